#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034,SC2046 # arrays read by name; port lists split
#
# Default Packet Spraying over an ECMP fabric of Linux routers, checked
# against spec/multipath.md with numbers read back from the module (the
# destination's state, "mrc -j peer show", and its counters) and from the
# fabric (each spine's packet counter, the spec's load-balancing record).
#
#   h1 10.0.1.1                                              h2 10.0.2.1
#    |                        +-- s1 --+                         |
#    |                        +-- s2 --+                         |
#   l1 (leaf: ECMP over the   +-- .. --+   l2 (leaf: ECMP over the
#       spines, 5-tuple hash) +-- sN --+       spines, 5-tuple hash)
#
# The leaves hash as a switch does, addresses, protocol and both ports
# (fib_multipath_hash_policy 3, fields 0x37), so the UDP source port, the
# entropy value, picks the spine.  Each spine forwards toward h2 through
# tbf 50 Mbit/s and netem delay (2 ms unless a check says otherwise), and
# back toward h1 through the same delay.  Packets h1 sends to h2 are
# counted where they leave a spine for l2 (l2's receive counter of that
# link).
#
#   1. Defaults: a stream of 1 MiB messages from h1 to h2: the destination
#      has 72 values in the range 256..383; every spine carries packets;
#      each value carries the same number of data packets (within one per
#      value assumed bad along the way); each spine carries the packets of
#      the values l1 hashes onto it (route get per value), within a few
#      packets; h2 sends at most one ACK or SACK per two data packets
#      (besides those for retransmissions and for packets beyond the
#      SACK bitmap); every message verified.
#   2. Two sockets to one destination share one state (both QPs listed,
#      one rotation); once every QP has closed, the state is freed
#      (peer_closed) and the next QP draws a new active set.
#   3. entropy-mask-bits 0: every data packet on port starting-port-offset,
#      one spine.  active-ev-set-size 1: one port of the range, one spine.
#   4. spraying none: no state, each QP on its own port from
#      ip_local_port_range (not the entropy range), so on one spine.
#   5. l1 hashing addresses only (policy 0, the spec's dpr): one spine
#      whatever the values.
#   6. The spines' MTU lowered to 1500 mid-stream: h1 learns it from
#      their ICMP errors and cuts its packets to it; every message
#      verified.
#
# On the debug kernel (MRC_DEBUG_KERNEL=1, fabric.sh) a shorter set, on
# 4 spines only: 1 with 32 x 128 KiB on two sockets at once, which is
# 2's first half as well (both QPs on one state, whose one rotation the
# per-value counts check); one message outstanding a socket and rto 1 s
# at both ends, since an RTT there is up to a second of emulated
# queueing and a spurious timeout takes values out of the rotation.
# Then 2's second half, and 4 with
# 2 x 1 MiB.  Not 3, 5 nor 8 spines.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric.sh"

mrc_require_root
mrc_require_cmd ip tc jq sysctl
mrc_require_cli
mrc_require_mrcperf
mrc_require_sockapi
mrc_load
mrc_dmesg_mark

# --- 1. defaults ---------------------------------------------------------

declare -a B A

declare -A RB=() RA=() PB=() PA=()

# chk_ack_share: the receiver of the last stream (h2, counters RB and RA)
# acknowledged its data packets at most one in two, plus two for each
# retransmission (RTX, counted at h1), plus those beyond the SACK bitmap
# (sack_beyond_tx).  A retransmission asks for its acknowledgment, and
# when it was spurious (a stall of the VM times out all in flight) the
# copy it replaces arrives too, as a duplicate, which is acknowledged at
# once and not counted in rx_data_packets.  It acknowledges every fourth
# arrival, and at once only a packet that asked (each message's last,
# and every retransmission), one such a packet overtook, and one 64
# PSNs or more ahead, which no later SACK could name.  Those last come
# with the fabric's imbalance, not the receiver's policy: the spine
# that l1 hashes most values onto queues longest, and its packets
# arrive behind those of the others by more than the bitmap (measured
# under TCG: 200-800 of 6,146; more when the VM stalls).  Sprayed
# packets arrive out of
# order all the time, so a receiver that acknowledged each out-of-order
# arrival would send about one per packet.  (On the debug kernel the
# fabric itself drops packets: each comes back as a retransmission that
# asks.)
chk_ack_share() {
	local data acks delayed dups beyond v

	data=$(mrc_stats_delta rx_data_packets RB RA)
	acks=$(mrc_stats_delta ack_tx RB RA)
	v=$(mrc_stats_delta sack_tx RB RA)
	delayed=$(mrc_stats_delta ack_delayed_tx RB RA)
	beyond=$(mrc_stats_delta sack_beyond_tx RB RA)
	if ! [[ "$data$acks$v$delayed$beyond$RTX" =~ ^[0-9]+$ ]]; then
		mrc_fail "defaults: counters of h2: rx_data_packets $data," \
			"ack_tx $acks, sack_tx $v, ack_delayed_tx $delayed," \
			"sack_beyond_tx $beyond; of h1: retransmissions $RTX"
		return
	fi
	acks=$((acks + v))
	dups=$(mrc_stats_delta rx_dup_packets RB RA)
	# Beyond the bitmap, at most half of them: more would be a
	# receiver that took ordinary out-of-order arrivals for those.
	if [ "$data" -gt 0 ] && [ $((2 * beyond)) -le "$data" ] &&
	   [ $((2 * (acks - beyond - 2 * RTX))) -le "$data" ]; then
		mrc_pass "defaults: $acks ACKs and SACKs for $data data packets" \
			"($beyond beyond the bitmap, $delayed by the" \
			"delayed-ack timer, $RTX retransmitted, $dups duplicates)"
	else
		mrc_fail "defaults: $acks ACKs and SACKs for $data data packets," \
			"want at most one in two plus two for each of the" \
			"$RTX retransmitted plus $beyond beyond the bitmap" \
			"(themselves at most one in two)" \
			"($delayed by the timer, $dups duplicates)"
	fi
}

# rtx NS: the retransmissions NS has sent, of every cause.
rtx() {
	echo $(($(mrc_stat -n "$1" total_rtx_sack) +
		$(mrc_stat -n "$1" total_rtx_timeout) +
		$(mrc_stat -n "$1" total_rtx_mtu)))
}

# check_defaults DESC COUNT XFER_ARGS...: a stream of COUNT messages over
# the fabric of NSPINES spines of the defaults, checked as in 1.
check_defaults() {
	local desc=$1 count=$2 pj n range vals min max bad i p s tot=0 want
	local pr st nb bmax
	local ports=()
	declare -A onspine=()
	declare -a exp

	shift 2
	bad=$(mrc_stat -n "$H1" ev_assumed_bad)
	RTX=$(rtx "$H1")
	spine_counts B
	mrc_stats_snapshot -n "$H2" RB || mrc_die "mrc stats in $H2"
	xfer "$@"
	chk_xfer "$desc" "$count"
	spine_counts A
	mrc_stats_snapshot -n "$H2" RA || mrc_die "mrc stats in $H2"
	RTX=$(($(rtx "$H1") - RTX))
	spread B A
	chk_ack_share
	pj=$PEER
	# One jq: the set's size and range, then a "PORT TX_PACKETS PROBES"
	# line for each value.
	{
		read -r n range
		vals=$(cat)
	} < <(jq -r '.[0] | "\(.active_set | length) \(.range.first)..\(.range.last)",
		(.values[] | "\(.port) \(.tx_packets) \(.probes_tx // 0) \(.state)")' <<<"$pj")
	chk_eq "defaults: active set size" "$n" 72
	chk_eq "defaults: range" "$range" "256..383"

	# Every value its share: the rotation gives the values in use one
	# turn each, so those that never went bad are within one packet of
	# each other.  A value that went bad (a spurious timeout) is passed
	# over until a probe brings it back, which may take several turns:
	# it is known by its probes or its state, and may only be behind.
	# Or lose none, when the probe came back before its next turn: then
	# it is the one more of the last partial round as any value may be,
	# so it is never more than one ahead of the least.
	min="" max="" nb=0 bmax=0
	while read -r p n pr st; do
		ports+=("$p")
		if [ "$pr" -gt 0 ] || [ "$st" != usable ]; then
			nb=$((nb + 1))
			[ "$n" -gt "$bmax" ] && bmax=$n
			continue
		fi
		{ [ -z "$min" ] || [ "$n" -lt "$min" ]; } && min=$n
		{ [ -z "$max" ] || [ "$n" -gt "$max" ]; } && max=$n
	done <<<"$vals"
	# Each value that went bad was counted when it did.
	bad=$(($(mrc_stat -n "$H1" ev_assumed_bad) - bad))
	if [ -z "$min" ] && [ "$nb" -le "$bad" ]; then
		# Every value went bad at least once (a stall of the VM
		# times out all that is in flight, each value of the active
		# set among it): none is left to measure the rotation's
		# share by.  Each must still have carried its turns.
		min=$(awk 'NR == 1 || $2 < m { m = $2 } END { print m + 0 }' \
			<<<"$vals")
		if [ "$min" -ge 1 ]; then
			mrc_pass "defaults: all $nb values went bad once and were" \
				"passed over; each carried packets, $min..$bmax"
		else
			mrc_fail "defaults: all $nb values went bad once; one" \
				"carried no packet" "$vals"
		fi
	elif [ -n "$min" ] && [ $((max - min)) -le 1 ] &&
	     [ "$nb" -le "$bad" ] && [ "$bmax" -le $((min + 1)) ]; then
		mrc_pass "defaults: packets per value $min..$max" \
			"($nb values went bad and were passed over)"
	else
		mrc_fail "defaults: packets per value $min..$max, want within 1;" \
			"$nb values out (want at most the $bad that went bad)," \
			"most $bmax" \
			"(want at most $((min + 1)))" "$vals"
	fi

	# Each spine carries the packets of the values l1 hashes onto it.
	while read -r p s; do
		onspine[$p]=$s
	done < <(value_spines "${ports[@]}")
	# A value's probes (one a probe-period while it is bad) take its
	# path too.
	while read -r p n pr _; do
		s=${onspine[$p]:-}
		[ -n "$s" ] || { mrc_fail "defaults: no spine for value $p"; return; }
		exp[s]=$(( ${exp[s]:-0} + n + pr ))
		tot=$((tot + n))
	done <<<"$vals"
	# Every spine gets some of the 72 values (all but surely: a spine
	# of 8 misses them all with odds (7/8)^72, 1 in 15,000), and
	# carries their packets.
	local worst=0 d desc="" nv=0
	for ((i = 1; i <= NSPINES; i++)); do
		[ "${exp[i]:-0}" -gt 0 ] && nv=$((nv + 1))
	done
	chk_eq "defaults: spines with active values (of $NSPINES)" "$nv" \
		"$NSPINES"
	for ((i = 1; i <= NSPINES; i++)); do
		d=$((SPREAD[i] - ${exp[i]:-0}))
		[ $d -lt 0 ] && d=$((-d))
		[ $d -gt $worst ] && worst=$d
		desc+=" s$i ${SPREAD[i]}/${exp[i]:-0}"
	done
	# Beyond data: the few ACKs and SACKs h1 sends h2 for its answers.
	want=$((tot / 50 + 60))
	if [ $worst -le $want ]; then
		mrc_pass "defaults: per spine measured/expected:$desc"
	else
		mrc_fail "defaults: per spine measured/expected:$desc" \
			"off by $worst, want at most $want"
	fi
}

# --- 2. shared state, and a new one --------------------------------------

check_shared() {
	xfer -s 1M -n 16 -c 2 -P 2
	chk_xfer "two sockets to one destination" 16
	chk_shared_qps
	check_new_state
}

# chk_shared_qps: the last two-socket transfer had both its QPs on the
# destination's one state.
chk_shared_qps() {
	chk_eq "two sockets: queue pairs sharing the destination's state" \
		"$PEER_QPS" 2
}

# check_new_state: once every QP of the last transfer has closed, its
# state is freed and the next QP draws a new active set.
check_new_state() {
	local set1 set2 closed0

	set1=$(jq -c '.[0].active_set' <<<"$PEER")
	closed0=$(mrc_stat -n "$H1" peer_closed)
	if wait_no_peer "$H1"; then
		mrc_pass "every queue pair closed: the state is gone" \
			"(peer_closed $closed0 -> $(mrc_stat -n "$H1" peer_closed))"
	else
		mrc_fail "the state outlived its queue pairs" \
			"$(mrc_exec -n "$H1" peer show)"
	fi
	xfer -s 64K -n 4
	chk_xfer "a new queue pair" 4
	set2=$(jq -c '.[0].active_set' <<<"$PEER")
	chk_ne "a new queue pair draws a new active set" "$set2" "$set1"
}

# --- 3. one value, 4. none, 5. a hash of addresses only --------------------

check_one_path() {
	local desc=$1 want_set=$2 set

	spine_counts B
	xfer -s 1M -n 8
	chk_xfer "$desc" 8
	spine_counts A
	spread B A
	set=$(jq -r '.[0].active_set | join(" ")' <<<"$PEER")
	if [ -n "$want_set" ]; then
		if [[ " $set " == *" $want_set "* ]] || [ "$want_set" = "$set" ]; then
			mrc_pass "$desc: active set [$set]"
		else
			mrc_fail "$desc: active set [$set], want [$want_set]"
		fi
	fi
	chk_eq "$desc: spines carrying data (${SPREAD[*]:1})" "$(used_spines)" 1
}

check_single() {
	local set

	config_h1 entropy-mask-bits 0
	check_one_path "entropy-mask-bits 0" 256
	config_h1 entropy-mask-bits 7 active-ev-set-size 1
	spine_counts B
	xfer -s 1M -n 8
	chk_xfer "active-ev-set-size 1" 8
	spine_counts A
	spread B A
	set=$(jq -r '.[0].active_set | join(" ")' <<<"$PEER")
	if [[ $set =~ ^[0-9]+$ ]] && [ "$set" -ge 256 ] && [ "$set" -le 383 ]; then
		mrc_pass "active-ev-set-size 1: one value of the range, $set"
	else
		mrc_fail "active-ev-set-size 1: active set [$set]"
	fi
	chk_eq "active-ev-set-size 1: spines carrying data (${SPREAD[*]:1})" \
		"$(used_spines)" 1
}

# check_none COUNT: spraying none, a transfer of COUNT x 1 MiB on one
# spine, on the QP's own port.
check_none() {
	local lo hi sport

	config_h1 active-ev-set-size 0 spraying 0
	spine_counts B
	XFER_QPS=1 xfer -s 1M -n "$1"
	chk_xfer "spraying none" "$1"
	spine_counts A
	spread B A
	chk_eq "spraying none: the state's type" \
		"$(jq -r '.[0].spraying' <<<"$PEER")" none
	chk_eq "spraying none: spines carrying data (${SPREAD[*]:1})" \
		"$(used_spines)" 1
	read -r lo hi < <(ip netns exec "$H1" cat /proc/sys/net/ipv4/ip_local_port_range)
	sport=$(jq -r '.[0].udp_sport // empty' <<<"$QPS")
	if [ -z "$sport" ]; then
		mrc_fail "spraying none: no QP seen during the transfer"
	elif [ "$sport" -ge "$lo" ] && [ "$sport" -le "$hi" ]; then
		mrc_pass "spraying none: the QP's own port $sport, of $lo..$hi"
	else
		mrc_fail "spraying none: the QP's own port $sport, not in $lo..$hi"
	fi
	config_h1 spraying 1
}

# check_pmtu: the spines' links toward l2 fall to MTU 1500 half a second
# into a stream (48 x 1 MiB, about 3 s) of packets of the mss (4096):
# each spine answers the first packet too large with an ICMP
# "fragmentation needed", which h1 takes into its route to h2, and h1's
# queue pair cuts its packets to 1432 bytes from then on; those in flight
# too large for the path are resent at once, in IP fragments, without
# waiting for a timeout (icmp_too_big, total_rtx_mtu).  Every message
# verified.
check_pmtu() {
	local before after mpid i route big rtx

	mrc_stats_snapshot -n "$H1" PB || mrc_die "mrc stats in h1"
	before=$(mrc_stat -n "$H1" tx_data_packets)
	( mrc_sleep 0.5
	  for ((i = 1; i <= NSPINES; i++)); do
		ip -n "${SP[i]}" link set vb mtu 1500
	  done ) &
	mpid=$!
	xfer -s 1M -n 48 -c 4
	wait "$mpid"
	chk_xfer "spines' MTU 9000 -> 1500 mid-stream, 48 x 1 MiB" 48
	route=$(ip -n "$H1" route get "$DST" 2>&1)
	if [[ $route == *"mtu 1500"* ]]; then
		mrc_pass "spines' MTU 1500: h1's route to h2 learnt it" \
			"($(tr -s ' \n' ' ' <<<"$route"))"
	else
		mrc_fail "spines' MTU 1500: h1's route to h2 has no mtu 1500" \
			"$route"
	fi
	after=$(mrc_stat -n "$H1" tx_data_packets)
	# 48 MiB take 12288 packets of 4096 bytes, 35184 of 1432 (733 a MiB).
	if [[ "$before$after" =~ ^[0-9]+$ ]] &&
	   [ $((after - before)) -gt $((12288 * 11 / 10)) ]; then
		mrc_pass "spines' MTU 1500: $((after - before)) data packets" \
			"for 48 MiB, cut after the change"
	else
		mrc_fail "spines' MTU 1500: data packets $before -> $after," \
			"want more than $((12288 * 11 / 10))"
	fi
	mrc_stats_snapshot -n "$H1" PA || mrc_die "mrc stats in h1"
	big=$(mrc_stats_delta icmp_too_big PB PA)
	rtx=$(mrc_stats_delta total_rtx_mtu PB PA)
	if [ "$big" -ge 1 ] && [ "$rtx" -ge 1 ]; then
		mrc_pass "spines' MTU 1500: $big ICMP errors acted on, $rtx" \
			"packets resent at once in fragments" \
			"($(mrc_stats_delta total_rtx_timeout PB PA) by timeouts)"
	else
		mrc_fail "spines' MTU 1500: icmp_too_big $big, total_rtx_mtu" \
			"$rtx: want both at least 1"
	fi
}

check_dpr() {
	ip netns exec "$L1" sysctl -q -w net.ipv4.fib_multipath_hash_policy=0 ||
		mrc_die "cannot set l1's hash"
	check_one_path "l1 hashing addresses only (dpr)" ""
	ip netns exec "$L1" sysctl -q -w net.ipv4.fib_multipath_hash_policy=3 ||
		mrc_die "cannot set l1's hash"
}

if [ "$DEBUG_KERNEL" = 1 ]; then
	fabric 2ms 2ms 2ms 2ms
	debug_mark "fabric"
	for ns in "$H1" "$H2"; do
		mrc_exec -n "$ns" config set rto 1000000 ||
			mrc_die "config set rto"
	done
	check_defaults "defaults (rto 1 s), 4 spines, 32 x 128 KiB on two sockets" \
		32 -s 128K -n 32 -P 2
	chk_shared_qps
	debug_mark "defaults, two sockets"
	check_new_state
	debug_mark "a new state"
	check_none 2
	debug_mark "spraying none"
else
	fabric $(for ((i = 0; i < NSPINES; i++)); do echo 2ms; done)
	check_defaults "defaults, $NSPINES spines, 24 x 1 MiB" 24 -s 1M -n 24 -c 4
	check_shared
	check_single
	check_none 8
	check_dpr
	check_pmtu
	NSPINES=8
	fabric $(for ((i = 0; i < NSPINES; i++)); do echo 2ms; done)
	check_defaults "defaults, $NSPINES spines, 24 x 1 MiB" 24 -s 1M -n 24 -c 4
fi

mrc_dmesg_check "spraying"
mrc_exit
