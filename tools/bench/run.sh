#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks' VM side: builds the ECMP fabric of the selftests
# (selftests/fabric.sh: h1 - leaf - 4 spines of 50 Mbit/s and 2 ms - leaf
# - h2), runs the benchmarks named (default: all) and ends with their
# results as a Markdown table, then as JSON between the lines
# BENCH-RESULTS-BEGIN and BENCH-RESULTS-END for tools/bench/bench.sh
# (make bench), which writes them under Documentation/benchmarks/.
#
#   tools/vm/run-vm -- bash tools/bench/run.sh [goodput] [paths] [failover] [trimming] [incast] [efficiency] [collective] [scale]
#   tools/vm/run-vm -- env QUICK=1 bash tools/bench/run.sh
#
# Each benchmark is tools/bench/NAME.sh, whose bench_NAME leaves one JSON
# object in $BENCH_DIR/NAME.json (tools/bench/lib.sh).  Nothing here
# passes or fails: the exit status is 0 unless the setup broke.
# Build first (make, or make bench): the VM's root is the host's,
# read-only.

set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/lib.sh
. selftests/fabric.sh
. tools/bench/lib.sh

. tools/bench/goodput.sh
. tools/bench/paths.sh
. tools/bench/failover.sh
. tools/bench/trimming.sh
. tools/bench/incast.sh
. tools/bench/efficiency.sh
. tools/bench/collective.sh
. tools/bench/scale.sh

BENCHMARKS=(goodput paths failover trimming incast efficiency collective scale)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${BENCHMARKS[@]}")
for b in "${want[@]}"; do
	case " ${BENCHMARKS[*]} " in
	*" $b "*) ;;
	*) mrc_die "no benchmark $b (there are: ${BENCHMARKS[*]})" ;;
	esac
done

mrc_require_root
mrc_require_cmd ip tc jq sysctl ss
mrc_require_cli
mrc_require_mrcperf
mrc_require_sockapi
mrc_load

bench_say "kernel $(uname -r), $(nproc) CPUs, QUICK=${QUICK:-0}"
fabric 2ms 2ms 2ms 2ms
# The configuration every mrc transfer starts from (BENCH_MRC_CONFIG:
# KEY VALUE pairs for h1 and h2, e.g. "link-rate 200 base-rtt 4000").
if [ -n "${BENCH_MRC_CONFIG:-}" ]; then
	# shellcheck disable=SC2086 # KEY VALUE pairs
	bench_config $BENCH_MRC_CONFIG
fi
mrc_exec -n "$H1" -j config show >"$BENCH_DIR/config.json" ||
	mrc_die "mrc config show"

start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# KVM says so at boot; QEMU's TCG, which the VM falls back to, does not.
accel=$(dmesg 2>/dev/null | grep -o 'Hypervisor detected: [A-Za-z]*')
accel=${accel#Hypervisor detected: }
[ "$accel" = KVM ] || accel=TCG
for b in "${want[@]}"; do
	"bench_$b"
done

for b in "${want[@]}"; do
	jq --arg b "$b" '{($b): .}' "$BENCH_DIR/$b.json"
done | jq -s add >"$BENCH_DIR/all.json" || mrc_die "cannot read the results"
jq -n --arg kernel "$(uname -r)" --arg start "$start" \
	--arg cpus "$(nproc)" --arg quick "${QUICK:-0}" --arg accel "$accel" \
	--arg extra "${BENCH_MRC_CONFIG:-}" \
	--slurpfile cfg "$BENCH_DIR/config.json" \
	--slurpfile all "$BENCH_DIR/all.json" '
	{
		meta: {
			started: $start, vm_kernel: $kernel,
			vm_cpus: ($cpus | tonumber), vm_accel: $accel,
			quick: ($quick == "1"),
			fabric: ("h1 - leaf - 4 spines (tbf 50 Mbit/s, netem " +
				 "2 ms each way) - leaf - h2, 5-tuple ECMP " +
				 "hash (selftests/fabric.sh)"),
			mrc_config: $cfg[0], mrc_config_set: $extra
		},
		benchmarks: $all[0]
	}' >"$BENCH_DIR/results.json" || mrc_die "cannot put the results together"

echo
tools/bench/report.sh "$BENCH_DIR/results.json"
echo
echo BENCH-RESULTS-BEGIN
jq -M -c . "$BENCH_DIR/results.json"
echo BENCH-RESULTS-END
exit 0
