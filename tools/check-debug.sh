#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the selftests on a debug kernel (KASAN, lockdep,
# PROVE_RCU, kmemleak, UBSAN, debug objects), where any report fails.
#
#   tools/check-debug.sh [TEST...]
#
# 1. Builds (once, cached) the debug kernel: tools/vm/debug-kernel.sh.
# 2. Proves the harness can fail: a VM loads selftests/harness's broken
#    module, which commits a lock-order inversion, a leak and a
#    use-after-free, and each report must be found by tools/vm/splat-scan
#    naming the function that committed it.
# 3. Runs the selftests (the TEST... named in one VM, or all but
#    mrc_config.sh, mrc_trim.sh, mrc_trimming.sh and mrc_rx_drops.sh in
#    one and mrc_fuzz.sh in another, after it) with panic_on_warn=1,
#    then unloads mrc, has kmemleak scan, and fails on any report, which
#    it prints.  mrc_config.sh is a test of the CLI's
#    parsing, slow here (two minutes of process starts); the kernel's side
#    of it, netlink requests and their validation, is mrc_genl.sh's too.
#    As in make check, MRC_CHECK=1: a selftest that would skip for want
#    of a command tools/deps.sh installs fails instead.  MRC_DEBUG_KERNEL=1
#    tells the tests they run here: mrc_spray.sh and mrc_failover.sh, whose
#    full runs stream over a hundred MiB through the fabric's namespaces,
#    run a shorter set (4 spines: the rotation's evenness, spines and
#    values, a state renewed, spraying none; a spine failed silently and
#    by link down, probes at the period, values back); mrc_fuzz.sh
#    fuzzes its 1,000,000 packets with the transfers beside them at
#    nice 19 (1,500 to 2,500 a second get through there) and paces
#    its soak's fuzzers; mrc_module.sh and mrc_netns.sh run 3 cycles
#    where the stock kernel runs 10: see Documentation/testing.rst.
# Ends with every failure and skip, with its reason, and "N passed, N
# failed, N skipped" unless MRC_CHECK_NESTED is set, as when make check
# calls it and prints the summary itself.

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
. tools/check-lib.sh

tools/deps.sh debug || exit 1
# MRC_DEBUG_KERNEL_DIR: use an already built one (a debug-kernel.sh dir).
dir=${MRC_DEBUG_KERNEL_DIR:-$(tools/vm/debug-kernel.sh --print-dir)} || {
	result fail "debug: build the debug kernel"
	check_summary
	exit 1
}
kdir=$dir/build
bzimage=$kdir/arch/x86/boot/bzImage
out=${MRC_CHECK_OUT:-$(mktemp -d /tmp/mrc-check-debug.XXXXXX)}
mkdir -p "$out"

vm() {	# vm LOG APPEND CMD
	tools/vm/run-vm --kernel "$bzimage" --modules-dir "$dir/modules" \
		--console-log "$1.console" --append "$2" --timeout 3000 \
		-- "$3" 2>&1 | tee "$1"
	return "${PIPESTATUS[0]}"
}

# The module, the tools and the broken module, for the debug kernel.
stage "debug: build against $kdir"
make -s clean >/dev/null 2>&1
if ! make -s KDIR="$kdir" module tools selftests >"$out/build.log" 2>&1 ||
   ! make -s -C "$kdir" M="$top/selftests/harness" modules \
		>>"$out/build.log" 2>&1; then
	cat "$out/build.log"
	result fail "debug: build mrc.ko and the broken module"
	check_summary
	exit 1
fi

# kmemleak reports an object only once it has been unreferenced for 5 s.
kmemleak_report='sleep 6; echo scan >/sys/kernel/debug/kmemleak;
	echo scan >/sys/kernel/debug/kmemleak; cat /sys/kernel/debug/kmemleak'

stage "debug: the harness catches a broken module"
vm "$out/harness.log" "kasan_multi_shot" '
	echo clear >/sys/kernel/debug/kmemleak
	insmod selftests/harness/mrc_broken.ko bug=lockdep,leak,uaf
	'"$kmemleak_report" >/dev/null
rc=$?
tools/vm/splat-scan "$out/harness.log.console" >"$out/harness.splats"
for class in kasan lockdep kmemleak; do
	# Each report names the function that committed the bug.
	if grep -A30 "^=== splat: $class" "$out/harness.splats" |
		grep -q mrc_broken_; then
		result ok "debug: harness catches $class (mrc_broken)"
	else
		cat "$out/harness.splats"
		result fail "debug: harness catches $class (mrc_broken)" \
			"no $class report from mrc_broken (VM status $rc)"
	fi
done

stage "debug: selftests on the debug kernel"
tests=${*:-}
if [ -n "$tests" ]; then
	echo "debug: running the named subset: $tests"
else
	# mrc_config.sh parses the CLI, mrc_trim.sh tests a BPF program
	# (mrc only counts the datagrams it sends, as in mrc_rx_drops.sh,
	# and its tshark passes take ten minutes here): the stock kernel's
	# runs are enough.  mrc_trimming.sh needs fq_codel, which the debug
	# kernel lacks, and two fabrics; mrc's handling of trims runs here
	# in mrc_wireshark.sh, which trims too.  mrc_hardening.sh
	# runs a smaller set here (MRC_DEBUG_KERNEL=1): tables of 64 queue
	# pairs (net.mrc.max_qps), which its forged packets, about 8 ms
	# each here, fill before the idle ones close.
	# mrc_rx_drops.sh sends one malformed packet of each kind and
	# checks its counter: here mrc_fuzz.sh's million, mutated from
	# valid packets of every type, go through the same drops (each
	# reason counted thousands of times there) under KASAN.
	tests=$(make -s -C selftests print-tests | tr ' ' '\n' |
		grep -vx -e mrc_config.sh -e mrc_trim.sh -e mrc_trimming.sh \
			-e mrc_rx_drops.sh |
		tr '\n' ' ')
	echo "debug: all selftests but mrc_config.sh (CLI parsing)," \
		"mrc_trim.sh (a BPF program), mrc_trimming.sh (fq_codel)" \
		"and mrc_rx_drops.sh (mrc_fuzz.sh's drops); they run on the" \
		"stock kernel"
fi
# The VM starts its command with an empty environment: set it there,
# with the fuzzer's knobs if given (MRC_FUZZ_PACKETS=100000
# tools/check-debug.sh mrc_fuzz.sh for a shorter run: see
# Documentation/testing.rst).
knobs=
for v in MRC_FUZZ_PACKETS MRC_FUZZ_SECONDS MRC_FUZZ_SOAK \
	 MRC_FUZZ_SOAK_RATE MRC_FUZZ_SEED MRC_FUZZ_SLAB_KB; do
	[ -n "${!v:-}" ] && knobs+="$v=$(printf %q "${!v}") "
done
# selftests_vm LOG TESTS [TIMEOUT]: TESTS in a VM of their own, each
# with TIMEOUT seconds (selftests/settings' if not given), then rmmod and
# a kmemleak scan; counts what it found.
selftests_vm() {
	local run="MRC_CHECK=1 MRC_DEBUG_KERNEL=1 ${3:+MRC_TEST_TIMEOUT=$3 }${knobs}make -s -C selftests run_tests TEST_PROGS='$2'"
	local rc

	vm "$1" "panic_on_warn=1" "
	echo scan >/sys/kernel/debug/kmemleak; echo clear >/sys/kernel/debug/kmemleak
	$run
	rmmod mrc 2>/dev/null
	$kmemleak_report"
	rc=$?
	if [ "$rc" -eq 125 ]; then
		result fail "debug: selftests VM ended early (panic, e.g." \
			"panic_on_warn, or timeout): $2"
	fi
	count_selftests "debug selftest" "$1"
	if tools/vm/splat-scan "$1.console" >"${1%.log}.splats"; then
		result ok "debug: no KASAN, lockdep, RCU, UBSAN, kmemleak or" \
			"WARN report: $2"
	else
		cat "${1%.log}.splats"
		result fail "debug: no KASAN, lockdep, RCU, UBSAN, kmemleak or" \
			"WARN report: $2"
	fi
}

# Unless tests are named: mrc_fuzz.sh in a VM of its own, after the
# others in one.  It took 16 to over 19 minutes here (its million
# packets and soaks), the others 36 (session 23): in one VM they came
# to the runner's limit of 3,000 s (CI's run of 4de056c was killed
# there), and a hang in one VM no longer loses the other's results.
if [ -z "${*:-}" ]; then
	rest=$(tr ' ' '\n' <<<"$tests" | grep -vx -e mrc_fuzz.sh -e '' |
		tr '\n' ' ')
	selftests_vm "$out/selftests.log" "$rest"
	stage "debug: mrc_fuzz.sh on the debug kernel"
	# Its own limit: its runs there took from 680 s to more than
	# 1,160 s (CI's last, cut short by the VM's limit), near the
	# 1,200 s of selftests/settings.
	selftests_vm "$out/fuzz.log" mrc_fuzz.sh 2700
else
	selftests_vm "$out/selftests.log" "$tests"
fi

# Leave the tree's mrc.ko built for the stock kernel, as make builds it.
make -s clean >/dev/null 2>&1
stage "debug: done; logs in $out"
[ -n "${MRC_CHECK_NESTED:-}" ] || check_summary
[ "$fail" -eq 0 ]
