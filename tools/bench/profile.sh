#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the CPU time goes on one link (issue #16 item 1): the setup of
# the efficiency benchmark (one veth pair, MTU 9000, no limit, mrc with
# an MSS of 8192; mrcperf, 1 MiB messages, 4 in flight, or 64-byte ones
# one at a time), profiled whole-system with perf (Debian's linux-perf)
# for mrc and for TCP in turn.  Sender and receiver run in the one VM,
# so each profile holds both ends.
#
#   tools/vm/run-vm -- bash tools/bench/profile.sh [mrc-bw] [tcp-bw] [mrc-lat] [tcp-lat]
#
# Prints, for each case, mrcperf's result and perf's flat profile (self
# time by symbol, the top PROFILE_TOP, default 40), then the same by
# module.  Under TCG there is no PMU: the samples are of the cpu-clock
# software event, PROFILE_HZ (default 997) a second on each CPU.
#
#   PROFILE_T    seconds of each transfer (default 8)
#   PROFILE_TOP  symbols printed (default 40)
#   PROFILE_G=1  call graphs too (perf record -g): the callers of the
#                top 15, at more cost
#   PROFILE_MRC_CONFIG  more "mrc config set" words for both ends, e.g.
#                "base-rtt 100"
#
# Nothing here passes or fails.  Build first (make): the VM's root is
# the host's, read-only; perf writes its data under the VM's /tmp.

set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/lib.sh
. tools/bench/lib.sh

T=${PROFILE_T:-8}
TOP=${PROFILE_TOP:-40}
HZ_=${PROFILE_HZ:-997}
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(mrc-bw tcp-bw mrc-lat tcp-lat)

command -v perf >/dev/null || mrc_die "no perf (apt install linux-perf)"
mrc_require_root
mrc_require_mrcperf
mrc_load
mrc_client_server
# shellcheck disable=SC2086 # PROFILE_MRC_CONFIG is a list of words
for ns in "$C" "$S"; do
	mrc_exec -n "$ns" config set mss 8192 ${PROFILE_MRC_CONFIG:-} ||
		mrc_die "config set mss 8192 ${PROFILE_MRC_CONFIG:-} in $ns"
done
sysctl -q -w kernel.perf_event_paranoid=-1 kernel.kptr_restrict=0
PORT=7100
out=$mrc_tmpdir

for c in "${CASES[@]}"; do
	case $c in
	mrc-bw) proto=mrc args=(-s 1M -c 4) ;;
	tcp-bw) proto=tcp args=(-s 1M -c 4) ;;
	mrc-lat) proto=mrc args=(-s 64 -c 1) ;;
	tcp-lat) proto=tcp args=(-s 64 -c 1) ;;
	*) mrc_die "no case $c (mrc-bw tcp-bw mrc-lat tcp-lat)" ;;
	esac
	g=()
	[ "${PROFILE_G:-0}" = 1 ] && g=(-g)
	bench_server "$S" "$proto" "$out/$c.srv" "$out/$c.srv.err" \
		"${BENCH_BUFS[@]}"
	srv=$BENCH_SRV
	ip netns exec "$C" "$MRCPERF" client "$MRC_IP4_B" -p "$PORT" \
		--proto "$proto" -j -t "$T" --timeout 60 "${BENCH_BUFS[@]}" \
		"${args[@]}" >"$out/$c.cli" 2>"$out/$c.cli.err" &
	cli=$!
	# From a second in (the connection up, the window open) to a
	# second before the end.
	mrc_sleep 1
	perf record -q -a "${g[@]}" -e cpu-clock -F "$HZ_" \
		-o "$out/$c.data" -- sleep $((T - 2)) 2>"$out/$c.perf.err"
	mrc_wait_pid "$cli" 60 || mrc_kill_pid "$cli"
	mrc_wait_pid "$srv" 30 || mrc_kill_pid "$srv"
	echo "=== profile $c: $proto ${args[*]}, ${T} s"
	jq -M -c '{seconds, mbps: (.mbps // .goodput_mbps), messages,
		lat_us}' "$out/$c.cli" 2>/dev/null || cat "$out/$c.cli.err"
	echo "--- $c: self time by symbol (top $TOP)"
	perf report -q -i "$out/$c.data" --no-children --sort sym \
		--percent-limit 0.3 --stdio -g none 2>/dev/null | head -n "$TOP"
	echo "--- $c: self time by module"
	perf report -q -i "$out/$c.data" --no-children --sort dso \
		--stdio -g none 2>/dev/null | head -n 12
	if [ "${PROFILE_G:-0}" = 1 ]; then
		echo "--- $c: callers of the top 15"
		perf report -q -i "$out/$c.data" --no-children --sort sym \
			--stdio -G --percent-limit 2 2>/dev/null | head -n 400
	fi
	rm -f "$out/$c.data"
done
