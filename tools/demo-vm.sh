#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo's VM side (tools/demo.sh runs it in the VM, from the tree):
# two hosts, namespaces h1 and h2 joined by a veth pair; mrcperf moves
# verified 1 MiB messages between them over mrc, then over a link that
# loses 5 % of packets, and the module's counters say what it did; TCP
# over the same link, for comparison.  Spraying over a multi-path fabric
# comes with the spraying work.

set -euo pipefail

MRC=tools/mrc/mrc
PERF=tools/mrcperf/mrcperf

say() {
	printf '\n$ %s\n' "$*"
	"$@"
}

# serve NS ARGS...: an mrcperf server for one run, once its port is bound
# (selftests/mrc_sockapi --wait-bound watches the process's sockets).
serve() {
	local ns=$1

	shift
	ip netns exec "$ns" "$PERF" server -1 "$@" >/dev/null &
	SERVER=$!
	if [ "${1:-}" = --proto ]; then
		sleep 1		# TCP: nothing to watch for
	else
		selftests/mrc_sockapi --wait-bound "$SERVER" 5001 20 >/dev/null
	fi
}

say modprobe -a udp_tunnel ip6_udp_tunnel veth sch_netem
say insmod mrc.ko

echo
echo "# two hosts: h1 10.0.0.1 and h2 10.0.0.2, one veth link (MTU 9000)"
ip netns add h1
ip netns add h2
ip link add v1 netns h1 mtu 9000 type veth peer name v2 netns h2 mtu 9000
ip -n h1 addr add 10.0.0.1/24 dev v1
ip -n h2 addr add 10.0.0.2/24 dev v2
for ns in h1 h2; do
	ip -n "$ns" link set lo up
done
ip -n h1 link set v1 up
ip -n h2 link set v2 up
say ip netns exec h1 "$MRC" config show

echo
echo "# 50 messages of 1 MiB, 4 in flight, every byte verified by h2"
serve h2 --rcvbuf 16M --sndbuf 16M
say ip netns exec h1 "$PERF" client 10.0.0.2 -s 1M -n 50 -c 4 \
	--rcvbuf 16M --sndbuf 16M
wait "$SERVER"
say ip netns exec h1 "$MRC" qp show

echo
echo "# the same link losing 5 % of h1's packets: 200 messages of 64 KiB"
say ip netns exec h1 tc qdisc add dev v1 root netem loss 5%
serve h2
say ip netns exec h1 "$PERF" client 10.0.0.2 -s 64k -n 200 -c 4
wait "$SERVER"
echo
echo "# h1's counters: the losses were found from SACK gaps (total_rtx_sack)"
echo "# and, when a whole flight was lost, by the timer (total_rtx_timeout)"
say sh -c "ip netns exec h1 $MRC stats | grep -E '^(tx_msgs|tx_data_packets|total_rtx|total_timeouts|sack_rx|nack_rx|qp_failed)'"
echo "# h2's: what arrived twice, or out of order"
say sh -c "ip netns exec h2 $MRC stats | grep -E '^(rx_msgs|rx_data_packets|rx_dup|total_ooo|calc_max)'"
say ip netns exec h1 tc qdisc del dev v1 root

echo
echo "# TCP over the same link, 50 x 1 MiB, for comparison"
serve h2 --proto tcp
say ip netns exec h1 "$PERF" client 10.0.0.2 --proto tcp -s 1M -n 50 -c 4
wait "$SERVER"

ip netns del h1
ip netns del h2
say rmmod mrc
