#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: install what is missing, build everything, then run
#   - build checks: zero warnings with W=1, sparse clean, checkpatch clean
#   - the unit tests (userspace, sanitizers)
#   - every selftest inside a VM booted on the installed Debian kernel,
#     and a check that the VM's kernel log has no splat
# and end with one line "N passed, N failed, N skipped".

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

tools/deps.sh || exit 1

kver=$(tools/vm/kver) || exit 1
kdir=/lib/modules/$kver/build
ksrc=${KSRC:-/usr/src/linux-source-6.1}
out=$(mktemp -d /tmp/mrc-check.XXXXXX)
start=$SECONDS
pass=0
fail=0
skip=0

result() {	# result ok|fail|skip NAME [WHY]
	case $1 in
	ok)	pass=$((pass + 1)); echo "PASS: $2" ;;
	skip)	skip=$((skip + 1)); echo "SKIP: $2: $3" ;;
	*)	fail=$((fail + 1)); echo "FAIL: $2${3:+: $3}" ;;
	esac
}

stage() {
	echo
	echo "=== $* ($((SECONDS - start)) s)"
}

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
make -s clean >/dev/null 2>&1
build_check "build: module with W=1, zero warnings" "$out/w1.log" \
	'warning:|error:' make -C "$kdir" M="$top" W=1 modules
touch net/mrc/*.c
build_check "build: sparse (C=1) clean" "$out/sparse.log" \
	'warning:|error:' make -C "$kdir" M="$top" C=1 modules
build_check "build: checkpatch --strict clean" "$out/checkpatch.log" \
	'(WARNING|ERROR|CHECK):' \
	"$ksrc/scripts/checkpatch.pl" --strict --no-tree --terse --no-summary \
	-f net/mrc/*.c include/mrc/*.h uapi/linux/mrc.h
build_check "build: tools, unit tests and selftests" "$out/tools.log" \
	'warning:|error:' make KDIR="$kdir" tools unit selftests

# A TAP stream's "ok"/"not ok" lines, counted; SKIP directives apart.
count_tap() {	# count_tap PREFIX LOG
	local line

	while IFS= read -r line; do
		case $line in
		"not ok "*)	result fail "$1: ${line#not ok }" ;;
		"ok "*"# SKIP"*) result skip "$1: ${line#ok }" "skipped" ;;
		"ok "*)		result ok "$1: ${line#ok }" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$2")
}

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

stage "selftests in a VM (kernel $kver)"
tools/vm/run-vm --console-log "$out/console.log" --timeout 1500 -- \
	make -s -C selftests run_tests 2>&1 | tee "$out/selftests.log"
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 125 ]; then
	result fail "selftests: the VM did not boot or timed out"
else
	# The kselftest runner's own result lines, not the tests' inner ones.
	grep -E '^(not )?ok [0-9]+ selftests: ' "$out/selftests.log" \
		>"$out/selftests.tap"
	[ -s "$out/selftests.tap" ] ||
		result fail "selftests: no test ran"
	count_tap "selftest" "$out/selftests.tap"
	# A check a test could not make here is a skip, not a silent pass.
	while IFS= read -r line; do
		result skip "selftest check: ${line#*ok }" "see the log"
	done < <(grep -E '^# ok [0-9]+ .*# SKIP' "$out/selftests.log")
	if grep -nE 'WARNING:|BUG:|Oops|general protection|Call Trace:|KASAN|UBSAN|kmemleak:|lockdep' \
		"$out/console.log"; then
		result fail "kernel log: no splat during the selftests"
	else
		result ok "kernel log: no splat during the selftests"
	fi
fi

stage "done in $((SECONDS - start)) s; logs in $out"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
