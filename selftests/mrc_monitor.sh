#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034 # arrays read by name
#
# The monitor record (spec: mrc-monitor) on the ECMP fabric of fabric.sh:
#
#   1. "mrc -j monitor" in h1 during a stream of 1 MiB messages: it gets
#      exactly the events the module says it sent (monitor_events), and,
#      none having been dropped, one data_tx or data_rtx per data packet
#      sent (tx_data_packets), one sack_rx per SACK taken, one ack_tx per
#      ACK sent; every data packet's value is one of the destination's
#      active set; every event names h1's queue pair and h2's address.
#   2. "mrc monitor -c N" stops after N events.
#   3. The tracepoint mrc:mrc_pkt, enabled through tracefs, records one
#      event=0 (data_tx) line per first transmission h1 made.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric.sh"

mrc_require_root
mrc_require_cmd ip tc jq sysctl
mrc_require_cli
mrc_require_mrcperf
mrc_require_sockapi
mrc_load
mrc_dmesg_mark

declare -A SB SA

fabric 2ms 2ms 2ms 2ms

# count FILE EVENT: events of that name in a JSON Lines file.
count() {
	jq -s --arg e "$2" '[.[] | select(.event == $e)] | length' "$1"
}

check_listener() {
	local mon qpn set bad out n ev0 evs delta

	mrc_stats_snapshot -n "$H1" SB
	ip netns exec "$H1" "$MRC" -j monitor >"$T/mon.json" 2>"$T/mon.err" &
	mon=$!
	mrc_sleep 1
	XFER_QPS=1 xfer -s 1M -n 8 -c 2
	chk_xfer "a stream while h1 listens to the monitor" 8
	mrc_sleep 1
	kill -TERM "$mon"
	mrc_wait_pid "$mon" 10 || mrc_kill_pid "$mon"
	mrc_stats_snapshot -n "$H1" SA
	n=$(wc -l <"$T/mon.json")
	ev0=$(mrc_stats_delta monitor_events SB SA)
	chk_eq "monitor: events received = monitor_events (+$ev0)" "$n" "$ev0"
	delta=$(mrc_stats_delta monitor_drops SB SA)
	chk_eq "monitor: none dropped at this rate" "$delta" 0 ||
		sed "s/^/#   monitor stderr: /" "$T/mon.err"
	evs=$(($(count "$T/mon.json" data_tx) + $(count "$T/mon.json" data_rtx)))
	chk_eq "monitor: data_tx + data_rtx = tx_data_packets" "$evs" \
		"$(mrc_stats_delta tx_data_packets SB SA)"
	chk_eq "monitor: sack_rx = sack_rx" "$(count "$T/mon.json" sack_rx)" \
		"$(mrc_stats_delta sack_rx SB SA)"
	chk_eq "monitor: ack_tx = ack_tx" "$(count "$T/mon.json" ack_tx)" \
		"$(mrc_stats_delta ack_tx SB SA)"

	set=$(jq -c '[.[0].active_set[]]' <<<"$PEER")
	bad=$(jq -s --argjson s "$set" '[.[] | select(.event == "data_tx" or
		.event == "data_rtx") | select(.ev as $v | $s | index($v) | not)]
		| length' "$T/mon.json")
	chk_eq "monitor: data packets on values outside the active set" "$bad" 0
	qpn=$(jq -r '.[0].qpn' <<<"$QPS")
	out=$(jq -s --argjson q "$qpn" '[.[] | select(.qpn != $q or
		.address != "10.0.2.1")] | length' "$T/mon.json")
	chk_eq "monitor: events of another QP or address than h1's QP $qpn" \
		"$out" 0
}

check_count() {
	local mon

	ip netns exec "$H1" "$MRC" monitor -c 25 >"$T/mon.txt" 2>&1 &
	mon=$!
	mrc_sleep 1
	xfer -s 1M -n 2
	if mrc_wait_pid "$mon" 20; then
		chk_eq "monitor -c 25: exit status" "$MRC_WAIT_RC" 0
		chk_eq "monitor -c 25: lines" "$(wc -l <"$T/mon.txt")" 25
	else
		mrc_kill_pid "$mon"
		mrc_fail "monitor -c 25 did not end after 25 events"
	fi
}

check_tracepoint() {
	local tr n want

	tr=$(mrc_tracefs)
	if [ ! -e "$tr/events/mrc/mrc_pkt/enable" ]; then
		mrc_fail "tracepoint: no $tr/events/mrc/mrc_pkt"
		return
	fi
	echo >"$tr/trace"
	echo 1 >"$tr/events/mrc/mrc_pkt/enable"
	mrc_stats_snapshot -n "$H1" SB
	xfer -s 1M -n 4
	mrc_stats_snapshot -n "$H1" SA
	echo 0 >"$tr/events/mrc/mrc_pkt/enable"
	# h1's first transmissions: event 0, remote address h2.
	n=$(grep -c 'mrc_pkt: .* event=0 .* addr=[:a-f]*10\.0\.2\.1$' "$tr/trace")
	want=$(($(mrc_stats_delta tx_data_packets SB SA) -
		$(mrc_stats_delta total_rtx_sack SB SA) -
		$(mrc_stats_delta total_rtx_timeout SB SA)))
	chk_eq "tracepoint mrc:mrc_pkt: one data_tx line per first transmission" \
		"$n" "$want"
	echo >"$tr/trace"
}

check_listener
check_count
check_tracepoint

mrc_dmesg_check "monitor"
mrc_exit
