#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: install what is missing, build everything, then run
#   - build checks: zero warnings with W=1, sparse clean, checkpatch clean
#   - the unit tests (userspace, sanitizers)
#   - every selftest inside a VM booted on the installed Debian kernel,
#     and a check that the VM's kernel log has no splat
# and end with every failure and skip, each with its reason, and then one
# line "N passed, N failed, N skipped".
#
# Having installed every command the tests need (selftests/required-
# commands) and built every program, it runs the selftests with
# MRC_CHECK=1: a test or check that would skip for want of one of those
# fails instead (selftests/lib.sh).  What still skips is what this machine
# cannot do, and the summary says why.

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

tools/deps.sh || exit 1

kver=$(tools/vm/kver) || exit 1
kdir=/lib/modules/$kver/build
ksrc=${KSRC:-/usr/src/linux-source-6.1}
out=$(mktemp -d /tmp/mrc-check.XXXXXX)
. tools/check-lib.sh

# A check passes when its command succeeds and prints no diagnostic.
build_check() {	# build_check NAME LOG PATTERN CMD...
	local name=$1 log=$2 pat=$3

	shift 3
	if ! "$@" >"$log" 2>&1; then
		cat "$log"
		result fail "$name" "command failed"
	elif grep -E "$pat" "$log"; then
		result fail "$name" "diagnostics above"
	else
		result ok "$name"
	fi
}

stage "build against $kdir"
build_check "deps: selftests/required-commands lists what the selftests run" \
	"$out/deps.log" 'does not list' tools/deps.sh check
make -s clean >/dev/null 2>&1
build_check "build: module with W=1, zero warnings" "$out/w1.log" \
	'warning:|error:' make -C "$kdir" M="$top" W=1 modules
touch net/mrc/*.c
build_check "build: sparse (C=1) clean" "$out/sparse.log" \
	'warning:|error:' make -C "$kdir" M="$top" C=1 modules
build_check "build: checkpatch --strict clean" "$out/checkpatch.log" \
	'(WARNING|ERROR|CHECK):' \
	"$ksrc/scripts/checkpatch.pl" --strict --no-tree --terse --no-summary \
	-f net/mrc/*.c net/mrc/*.h include/mrc/*.h uapi/linux/mrc.h
build_check "build: tools, unit tests and selftests" "$out/tools.log" \
	'warning:|error:' make KDIR="$kdir" tools unit selftests

stage "unit tests"
for t in tools/unit/unit_*; do
	[ -x "$t" ] || continue
	"$t" >"$out/$(basename "$t").log" 2>&1
	rc=$?
	count_tap "unit: $(basename "$t")" "$out/$(basename "$t").log"
	if [ $rc -ne 0 ]; then
		cat "$out/$(basename "$t").log"
		result fail "unit: $(basename "$t") exit status" "$rc"
	fi
done

make -s -C tools/mrc check >"$out/cli.log" 2>&1
rc=$?
grep -E 'passed|failed|FAIL' "$out/cli.log"
if [ $rc -eq 0 ]; then
	result ok "unit: mrc CLI against a stand-in kernel"
else
	cat "$out/cli.log"
	result fail "unit: mrc CLI against a stand-in kernel"
fi

make -s -C tools/mrcperf check >"$out/mrcperf.log" 2>&1
rc=$?
tail -n 3 "$out/mrcperf.log"
if [ $rc -eq 0 ]; then
	result ok "unit: mrcperf over TCP and UDP, verification and errors"
else
	cat "$out/mrcperf.log"
	result fail "unit: mrcperf over TCP and UDP, verification and errors"
fi

stage "selftests in a VM (kernel $kver)"
tools/vm/run-vm --console-log "$out/console.log" --timeout 1500 -- \
	env MRC_CHECK=1 make -s -C selftests run_tests 2>&1 |
	tee "$out/selftests.log"
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 125 ]; then
	result fail "selftests: the VM did not boot or timed out"
else
	count_selftests "selftest" "$out/selftests.log"
	if tools/vm/splat-scan "$out/console.log"; then
		result ok "kernel log: no splat during the selftests"
	else
		result fail "kernel log: no splat during the selftests"
	fi
fi

# The debug-kernel suite: its PASS/FAIL/SKIP lines count here too.
if [ "${MRC_CHECK_DEBUG:-1}" = 1 ]; then
	stage "debug-kernel suite (tools/check-debug.sh ${MRC_DEBUG_TESTS:-})"
	# shellcheck disable=SC2086 # a list of test names
	MRC_CHECK_NESTED=1 MRC_CHECK_OUT=$out/debug \
		tools/check-debug.sh ${MRC_DEBUG_TESTS:-} 2>&1 | tee "$out/debug.log"
	rc=${PIPESTATUS[0]}
	count_results "$out/debug.log"
	[ "$rc" -eq 0 ] || grep -q '^FAIL: ' "$out/debug.log" ||
		result fail "debug-kernel suite: ended without a result"
else
	result skip "debug-kernel suite" "MRC_CHECK_DEBUG=0"
fi

stage "done in $((SECONDS - start)) s; logs in $out"
check_summary
[ "$fail" -eq 0 ]
