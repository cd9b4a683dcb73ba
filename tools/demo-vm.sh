#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo's VM side (tools/demo.sh runs it in the VM, from the tree):
# two hosts on a fabric of four equal-cost paths (selftests/fabric.sh:
# h1 - leaf - 4 spines of 50 Mbit/s and 2 ms - leaf - h2, the leaves
# hashing the UDP ports as a switch does).  One mrc socket streams 1 MiB
# messages from h1 to h2 under Default Packet Spraying; every couple of
# seconds a line shows each spine's packets, h2's goodput, the values
# assumed bad and the probes.  Spine 1 fails silently, then comes back.
# The summary: messages sent and verified, goodput against one TCP flow
# on the same fabric, and how long after the failure the goodput was
# back to 3/4 of what it was (a quarter of the paths being gone).

set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh
. selftests/fabric.sh

STREAM_S=34		# the stream's length
FAIL_AT=10		# spine 1 fails silently ...
BACK_AT=20		# ... and comes back
SAMPLE_MS=20		# h2's receive counter is read this often

say() {
	printf '\n$ %s\n' "$*"
	"$@"
}

# sampler NS: "ms bytes" lines, h2's received bytes every SAMPLE_MS, from
# one shell reading /proc/net/dev (no process per sample).
sampler() {
	ip netns exec "$1" bash -c '
		f=$(mktemp -u /tmp/mrc-demo.XXXXXX) && mkfifo "$f" &&
			exec {fd}<>"$f" && rm "$f" || exit 1
		while :; do
			while read -r dev b _; do
				[ "$dev" = vh: ] && break
			done </proc/net/dev
			t=${EPOCHREALTIME/[.,]/}
			echo "$((t / 1000)) $b"
			read -r -t '"0.0$((SAMPLE_MS / 10))"' -u "$fd" _
		done'
}

# rate FILE FROM_MS TO_MS: Mbit/s received between two times.
rate() {
	awk -v a="$2" -v b="$3" '
		$1 >= a && !x { x = 1; t0 = $1; b0 = $2 }
		$1 <= b { t1 = $1; b1 = $2 }
		END { if (t1 > t0) printf "%.1f", (b1 - b0) * 8 / (t1 - t0) / 1000;
		      else print 0 }' "$1"
}

# status T: one line of what the fabric and h1's mrc are doing.
status() {
	local pj i line

	spine_counts A
	line=$(printf '%4ss  spines' "$1")
	for ((i = 1; i <= NSPINES; i++)); do
		line+=$(printf ' %6d' $((A[i] - B[i])))
	done
	pj=$(peer_json "$H1")
	line+=$(printf '  h2 %5s Mbit/s' \
		"$(rate "$T/samples" $(($(mrc_now_ms) - 2000)) "$(mrc_now_ms)")")
	line+=$(jq -r '.[0] // empty |
		"  bad \(.nr_bad // 0)  probes \(.probes_tx)/\(.probe_responses_rx)"' \
		<<<"$pj" 2>/dev/null)
	echo "$line"
	for ((i = 1; i <= NSPINES; i++)); do
		B[i]=${A[i]}
	done
}

say modprobe -a udp_tunnel ip6_udp_tunnel
mrc_load
echo
echo "# Two hosts, h1 10.0.1.1 and h2 10.0.2.1, and four equal-cost paths"
echo "# between them: leaf l1 - spines s1..s4 (50 Mbit/s, 2 ms each) - leaf"
echo "# l2; the leaves pick a spine by hashing addresses and UDP ports."
fabric 2ms 2ms 2ms 2ms
say ip -n "$L1" route show 10.0.2.0/24
say ip netns exec "$H1" tools/mrc/mrc config show

echo
echo "# Where l1 sends each UDP source port of the entropy range (256..383):"
declare -A per=()
while read -r p s; do
	per[$s]=$((${per[$s]:-0} + 1))
done < <(value_spines $(seq 256 383))
for ((i = 1; i <= NSPINES; i++)); do
	echo "#   spine $i: ${per[$i]:-0} of the 128 ports"
done

PORT=5001
# Buffers for several 1 MiB messages at each end: with the default
# SO_RCVBUF a receiver takes one message beyond it at a time.
BUFS=(--rcvbuf 16M --sndbuf 16M)
ip netns exec "$H2" tools/mrcperf/mrcperf server -p $PORT -1 -j "${BUFS[@]}" \
	>"$T/srv.out" 2>"$T/srv.err" &
srv=$!
mrc_wait_bound "$srv" $PORT 20 || mrc_die "mrcperf server did not start"
sampler "$H2" >"$T/samples" &
samp=$!
mrc_at_exit "kill $samp"

echo
echo "# One mrc socket on h1 streams 1 MiB messages to h2 for $STREAM_S s,"
echo "# every byte verified by h2.  Each line: the packets each spine"
echo "# carried since the last line, h2's goodput over the last 2 s, and"
echo "# h1's values assumed bad and probes sent/answered."
declare -a A B
spine_counts B
t_start=$(mrc_now_ms)
ip netns exec "$H1" tools/mrcperf/mrcperf client 10.0.2.1 -p $PORT -j \
	-s 1M -c 8 -t $STREAM_S "${BUFS[@]}" >"$T/cli.out" 2>"$T/cli.err" &
cli=$!
mrc_sleep 3
echo
echo "# h1's state for h2: the active set (72 of the 128 ports, in rotation"
echo "# order) and the data packets each value has carried so far"
ip netns exec "$H1" tools/mrc/mrc peer show 10.0.2.1
echo
failed=0 back=0
while kill -0 "$cli" 2>/dev/null; do
	el=$((($(mrc_now_ms) - t_start) / 1000))
	if [ $failed = 0 ] && [ $el -ge $FAIL_AT ]; then
		t_fail=$(mrc_now_ms)
		tc -n "${SP[1]}" qdisc change dev vb parent 1:1 handle 10: \
			netem delay 2ms limit 10000 loss 100%
		echo "---- spine 1 fails silently (netem loss 100 %) ----"
		failed=1
	fi
	if [ $back = 0 ] && [ $el -ge $BACK_AT ]; then
		pj=$(peer_json "$H1")
		tc -n "${SP[1]}" qdisc change dev vb parent 1:1 handle 10: \
			netem delay 2ms limit 10000
		echo "---- spine 1 is back; the values h1 assumed bad were:" \
			"$(jq -r '[.[0].values[] | select(.state == "bad") | .port] | join(" ")' <<<"$pj")"
		back=1
	fi
	status "$el"
	mrc_sleep 1
done
wait "$cli"
rc=$?
wait "$srv"

echo
echo "# h1's counters"
ip netns exec "$H1" tools/mrc/mrc stats | grep -E \
	'^(tx_msgs|tx_data_packets|total_rtx_sack|total_rtx_timeout|total_timeouts|ev_assumed_bad|ev_restored|total_probe_pkts_tx|probe_resp_rx) '

echo
echo "# One TCP flow over the same fabric, 10 s"
ip netns exec "$H2" tools/mrcperf/mrcperf server -p 5002 --proto tcp -1 \
	>/dev/null 2>&1 &
tsrv=$!
mrc_sleep 1
ip netns exec "$H1" tools/mrcperf/mrcperf client 10.0.2.1 -p 5002 \
	--proto tcp -j -s 1M -c 8 -t 10 >"$T/tcp.out" 2>"$T/tcp.err"
wait "$tsrv"

# Goodput before the failure (from 4 s in, past the start), and the
# first 200 ms window after it back at 3/4 of that.
pre=$(rate "$T/samples" $((t_start + 4000)) "$t_fail")
rec=$(awk -v f="$t_fail" -v p="$pre" -v w=200 '
	{ t[NR] = $1; b[NR] = $2 }
	END {
		j = 1
		for (i = 1; i <= NR; i++) {
			if (t[i] < f) continue
			while (j < i && t[j] < t[i] - w) j++
			if (t[i] - t[j] < w / 2) continue
			r = (b[i] - b[j]) * 8 / (t[i] - t[j]) / 1000
			if (t[j] >= f && r >= p * 3 / 4) {
				printf "%d", t[i] - f; exit
			}
		}
		print "never"
	}' "$T/samples")

echo
echo "==== summary ===="
echo "mrc, one socket, 1 MiB messages: $(jq -r '.messages' "$T/cli.out") sent," \
	"$(jq -r '.messages' "$T/srv.out") verified by h2," \
	"$(jq -r '.errors' "$T/srv.out") errors (client exit $rc)"
echo "mrc goodput over the whole run: $(jq -r '.goodput_mbps' "$T/cli.out") Mbit/s;" \
	"before the failure: $pre Mbit/s"
echo "one TCP flow on the same fabric: $(jq -r '.goodput_mbps' "$T/tcp.out") Mbit/s"
echo "spine 1 failed silently at ${FAIL_AT} s: goodput back to 3/4 of the" \
	"pre-failure figure (200 ms windows) after: ${rec} ms"
echo "values assumed bad: $(mrc_stat -n "$H1" ev_assumed_bad), restored by probes:" \
	"$(mrc_stat -n "$H1" ev_restored); probes sent $(mrc_stat -n "$H1" total_probe_pkts_tx)," \
	"answered $(mrc_stat -n "$H1" probe_resp_rx)"
