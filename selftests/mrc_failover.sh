#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034,SC2046 # arrays read by name; port lists split
#
# Default Packet Spraying when paths fail, and over paths of different
# delays, on the ECMP fabric of fabric.sh (4 spines), with numbers read
# back from the module ("mrc -j peer show", its counters) and the fabric.
#
#   1. A spine failed silently (netem loss 100 %) mid-stream: every value
#      l1 hashes onto it goes bad (ev_assumed_bad), the stream continues
#      with every message verified, probes go out at probe-period
#      (2 ms here; counted over a measured interval: at most one a
#      period, at least 3/5 of that under an emulated CPU), and within
#      3 s of the spine's return their responses have brought every
#      value back.  The congestion window is sized for the fabric
#      (link-rate 200, base-rtt 4000, active-ev-set-size 72).
#   2. The same with the spine's link taken down.
#   3. No failure but a queue 600 ms deep on spine 1 for 3 s: its values
#      time out, go bad and come back by probe all the same, and every
#      message arrives once, verified.
#   4. Four spines of 0.5, 1, 2 and 4 ms, the congestion window sized for
#      them (link-rate 200, base-rtt 4000): retransmissions stay under 1 %
#      of data packets (printed).
#
# On the debug kernel (MRC_DEBUG_KERNEL=1, fabric.sh) a shorter set: 1
# and 2 one after the other in one stream (of 110 s: a fixed length,
# long enough for both under a loaded host), at a probe-period of 20 ms
# (a softirq there can run tens of ms late, beyond the 4 periods the
# timer catches up on), each look at the module taking seconds: the
# probes are counted over the interval between the two reads of the
# counter (at most one a period over the longest it can be, at least
# 3/5 of one over the shortest), and the values must be back by the
# sixth look after the spine's return; h2 (the server) at rto 1 s.  The
# values on spine 1 must all be bad within 10 s of the first look, not
# at it: there the RTO the first failure backed off may not have run
# out by then.  Not 3 nor 4.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric.sh"

mrc_require_root
mrc_require_cmd ip tc jq sysctl
mrc_require_cli
mrc_require_mrcperf
mrc_require_sockapi
mrc_load
mrc_dmesg_mark

declare -A SB SA ONSPINE

# --- 6. a spine fails silently, and comes back ---------------------------

# fail_spine MODE 1|0: spine 1 fails (silently: netem loss 100 % toward
# h2; down: its link to l2 down) or comes back.
fail_spine() {
	local ns=${SP[1]}

	case "$1 $2" in
	"silent 1")
		tc -n "$ns" qdisc change dev vb parent 1:1 handle 10: netem \
			delay 2ms limit 10000 loss 100% ;;
	"silent 0")
		tc -n "$ns" qdisc change dev vb parent 1:1 handle 10: netem \
			delay 2ms limit 10000 ;;
	"down 1")
		ip -n "$ns" link set vb down ;;
	"down 0")
		# The link's routes went with it.
		ip -n "$ns" -b - <<-EOF
			link set vb up
			route replace 10.0.2.0/24 via 10.2.1.1
		EOF
		;;
	esac || mrc_die "spine 1: cannot set $1 $2"
}

# stream_start SECONDS: a stream of 1 MiB messages from h1 to h2 for
# SECONDS, in the background (server $SPID, client $CPID); once it has
# run 3 s, ONSPINE[value] is the spine l1 hashes each of the
# destination's values onto, and ON1 how many are on spine 1.
stream_start() {
	local pj v i

	PORT=$((PORT + 1))
	ip netns exec "$H2" "$MRCPERF" server -p "$PORT" -1 -j \
		>"$T/srv.out" 2>"$T/srv.err" &
	SPID=$!
	mrc_wait_bound "$SPID" "$PORT" 20 || mrc_die "mrcperf server did not start"
	ip netns exec "$H1" "$MRCPERF" client "$DST" -p "$PORT" -j \
		--timeout 120 -s 1M -t "$1" >"$T/cli.out" 2>"$T/cli.err" &
	CPID=$!
	mrc_sleep 3
	pj=$(peer_json "$H1")
	ONSPINE=()
	while read -r v i; do
		ONSPINE[$v]=$i
	done < <(value_spines $(jq -r '.[0].values[].port' <<<"$pj"))
	ON1=0
	for v in "${!ONSPINE[@]}"; do
		[ "${ONSPINE[$v]}" = 1 ] && ON1=$((ON1 + 1))
	done
}

# stream_end DESC: wait for the stream's end, every message verified.
stream_end() {
	wait "$CPID"
	XFER_RC=$?
	if mrc_wait_pid "$SPID" 30; then
		XFER_SRV_RC=$MRC_WAIT_RC
	else
		XFER_SRV_RC=timeout
	fi
	XFER_OUT=$(<"$T/cli.out")
	XFER_SOUT=$(<"$T/srv.out")
	chk_xfer "$1" any
}

# count_bad PEER_JSON: how many of its values are bad (nbad), and how many
# of those on spine 1 (bad1).
count_bad() {
	local v

	nbad=0
	bad1=0
	for v in $(jq -r '.[0].values[] | select(.state == "bad") | .port' \
		   <<<"$1" 2>/dev/null); do
		nbad=$((nbad + 1))
		[ "${ONSPINE[$v]:-}" = 1 ] && bad1=$((bad1 + 1))
	done
}

# check_failure MODE PERIOD: during the stream of stream_start, whose
# probe-period is PERIOD us, spine 1 fails (see fail_spine) for about
# 4 s, then comes back.
check_failure() {
	local mode=$1 period=$2 p0 p1 t0 t0a t1 t1a lo hi pj i nbad bad1
	local ok end

	fail_spine "$mode" 1
	mrc_sleep 1
	t0a=$(mrc_now_ms)
	p0=$(mrc_stat -n "$H1" total_probe_pkts_tx)
	t0=$(mrc_now_ms)
	mrc_sleep 3
	t1a=$(mrc_now_ms)
	p1=$(mrc_stat -n "$H1" total_probe_pkts_tx)
	t1=$(mrc_now_ms)
	# (A dump the debug kernel once answered with nothing: look again.
	# There, a look may also come before the last of the values timed
	# out, with the RTO backed off by the failure before: look again,
	# for up to FAIL_WAIT more seconds, while the stream runs.)
	end=$(($(mrc_now_ms) + FAIL_WAIT * 1000))
	for ((i = 0; i < 3 + FAIL_WAIT * 2; i++)); do
		pj=$(peer_json "$H1")
		if [ -n "$pj" ] && [ "$pj" != "[]" ]; then
			count_bad "$pj"
			[ "$bad1" -eq "$ON1" ] && break
		fi
		[ "$i" -ge 2 ] || continue
		[ "$(mrc_now_ms)" -lt "$end" ] &&
			kill -0 "$CPID" 2>/dev/null || break
		mrc_sleep 0.5
	done
	fail_spine "$mode" 0
	count_bad "$pj"
	if [ "$bad1" -eq "$ON1" ] && [ "$ON1" -gt 0 ]; then
		mrc_pass "$mode failure: all $ON1 values on spine 1 assumed bad" \
			"($nbad bad in all)"
	else
		mrc_fail "$mode failure: $bad1 of the $ON1 values on spine 1 assumed bad ($nbad bad in all; client $(kill -0 "$CPID" 2>/dev/null && echo running || echo gone), $(jq length <<<"$pj" 2>/dev/null) destinations)" \
			"$(jq -c '.[0] | del(.values)' <<<"$pj")" \
			"client: $(<"$T/cli.err")"
	fi
	# One probe a period while a value is bad: at most one per period
	# (the timer skips the periods it missed), and not far fewer.  On
	# the stock kernel the interval is from the first read's end to the
	# second's; on the debug kernel, where a read takes seconds, at most
	# from the first's start to the second's end and at least from the
	# first's end to the second's start.
	hi=$(((t1 - t0) * 1000 / period))
	lo=$hi
	if [ "$DEBUG_KERNEL" = 1 ]; then
		hi=$(((t1 - t0a) * 1000 / period))
		lo=$(((t1a - t0) * 1000 / period))
	fi
	if [ $((p1 - p0)) -le $((hi + hi / 10 + 2)) ] &&
	   [ $((p1 - p0)) -ge $((lo * 3 / 5)) ]; then
		mrc_pass "$mode failure: $((p1 - p0)) probes in $((t1 - t0)) ms at a" \
			"$period us period (at most $hi)"
	else
		mrc_fail "$mode failure: $((p1 - p0)) probes in $((t1 - t0)) ms," \
			"want about $lo..$hi (period $period us)"
	fi

	# The stream goes on: within 3 s of the spine's return (on the
	# debug kernel, by the sixth look) the probes' answers have brought
	# every value back (a value a queue's delay took out for a moment
	# may be out at any one look: look again).
	ok=0
	for ((i = 0; i < FAIL_LOOKS; i++)); do
		mrc_sleep 0.3
		pj=$(peer_json "$H1")
		kill -0 "$CPID" 2>/dev/null || break
		# (A jq costs seconds on the debug kernel: the compact JSON's
		# one "nr_bad" read by the shell.)
		if [[ $pj =~ \"nr_bad\":\ *([0-9]+) ]] &&
		   [ "${BASH_REMATCH[1]}" = 0 ]; then
			ok=1
			break
		fi
	done
	if [ $ok = 1 ]; then
		mrc_pass "$mode failure, spine 1 back: probes answered, no value left bad" \
			"(ev_restored $(mrc_stat -n "$H1" ev_restored))"
	else
		mrc_fail "$mode failure, spine 1 back: values still bad, or the stream ended" \
			"$(jq -c '.[0] | del(.values)' <<<"$pj")"
	fi
}

# check_deep: spine 1's delay toward h2 jumps from 2 to 600 ms (a queue
# that deep) for 3 s mid-stream, nothing lost: transmissions on its values
# time out, the values go bad and come back by probe as after a failure,
# and every message is delivered once, verified.
check_deep() {
	local pid cpid bad0 bad1 res0 res1 pj i

	PORT=$((PORT + 1))
	ip netns exec "$H2" "$MRCPERF" server -p "$PORT" -1 -j \
		>"$T/srv.out" 2>"$T/srv.err" &
	pid=$!
	mrc_wait_bound "$pid" "$PORT" 20 || mrc_die "mrcperf server did not start"
	ip netns exec "$H1" "$MRCPERF" client "$DST" -p "$PORT" -j \
		--timeout 120 -s 1M -t 16 >"$T/cli.out" 2>"$T/cli.err" &
	cpid=$!
	mrc_sleep 3
	bad0=$(mrc_stat -n "$H1" ev_assumed_bad)
	res0=$(mrc_stat -n "$H1" ev_restored)
	tc -n "${SP[1]}" qdisc change dev vb parent 1:1 handle 10: netem \
		delay 600ms limit 100000 || mrc_die "cannot slow spine 1"
	mrc_sleep 3
	tc -n "${SP[1]}" qdisc change dev vb parent 1:1 handle 10: netem \
		delay 2ms limit 10000 || mrc_die "cannot restore spine 1"
	# Within 3 s every value is back (look again: a queue's delay may
	# take one out for a moment at any one look).
	for ((i = 0; i < 10; i++)); do
		mrc_sleep 0.3
		pj=$(peer_json "$H1")
		[ "$(jq -r '.[0].nr_bad' <<<"$pj")" = 0 ] && break
	done
	bad1=$(mrc_stat -n "$H1" ev_assumed_bad)
	res1=$(mrc_stat -n "$H1" ev_restored)
	if [ $((bad1 - bad0)) -gt 0 ] && kill -0 "$cpid" 2>/dev/null &&
	   [ "$(jq -r '.[0].nr_bad' <<<"$pj")" = 0 ]; then
		mrc_pass "600 ms on spine 1, no loss: $((bad1 - bad0)) values went" \
			"bad, $((res1 - res0)) came back by probe, none left bad"
	else
		mrc_fail "600 ms on spine 1, no loss: $((bad1 - bad0)) values went" \
			"bad, $((res1 - res0)) came back" \
			"$(jq -c '.[0] | del(.values)' <<<"$pj")"
	fi
	CPID=$cpid SPID=$pid
	stream_end "600 ms on spine 1 for 3 s mid-stream"
}

# --- 7. paths of different delays ----------------------------------------

check_unequal() {
	local rtx tx rs rt desc

	fabric 0.5ms 1ms 2ms 4ms
	NSPINES=4
	# The congestion window sized for this fabric (4 x 50 Mbit/s, a few
	# ms), not for the defaults' 400 Gbit/s and 6 us: a window of 1.5
	# default BDPs would stand 20 ms of queue on the spines, and the
	# reordering measured would be the queues'.  The active set stays
	# 72 values.
	mrc_exec -n "$H1" config set link-rate 200 base-rtt 4000 \
		active-ev-set-size 72 || mrc_die "config set in h1"
	mrc_stats_snapshot -n "$H1" SB
	# Buffers that hold the messages in flight: no drop for room at h2,
	# so that every retransmission counted is one the paths caused.
	XFER_SRV_ARGS="--rcvbuf 16M --sndbuf 16M" \
		xfer -s 1M -n 24 -c 4 --rcvbuf 16M --sndbuf 16M
	chk_xfer "spines of 0.5, 1, 2 and 4 ms" 24
	mrc_stats_snapshot -n "$H1" SA
	rs=$(mrc_stats_delta total_rtx_sack SB SA)
	rt=$(mrc_stats_delta total_rtx_timeout SB SA)
	rtx=$((rs + rt))
	tx=$(mrc_stats_delta tx_data_packets SB SA)
	desc="unequal delays: $rtx retransmissions of $tx data packets"
	desc+=" (sack $rs, timeout $rt; $(mrc_stats_delta total_timeouts SB SA) timeouts),"
	desc+=" reorder depth max $(mrc_stat -n "$H2" calc_max_reorder_depth),"
	desc+=" duplicates at h2 $(mrc_stat -n "$H2" rx_dup_packets)"
	if [ $((rtx * 100)) -lt "$tx" ]; then
		mrc_pass "$desc: under 1 %"
	else
		mrc_fail "$desc: 1 % or more" "$(jq -c '.[0] | del(.values)' <<<"$PEER")"
	fi
}

fabric 2ms 2ms 2ms 2ms
# The congestion window sized for this fabric (4 x 50 Mbit/s, a few ms),
# not for the defaults' 400 Gbit/s and 6 us, whose window of 1.5 default
# BDPs stands tens of ms of queue on the spines: a queue's delay, not a
# failure, would then take values out at any moment.
mrc_exec -n "$H1" config set link-rate 200 base-rtt 4000 active-ev-set-size 72 ||
	mrc_die "config set in h1"
if [ "$DEBUG_KERNEL" = 1 ]; then
	FAIL_LOOKS=6
	FAIL_WAIT=10
	debug_mark "fabric"
	# The server's answers wait there for the client's word behind up
	# to seconds of emulated queueing: at the default rto its QP gives
	# up after retry-limit timeouts (the client then sees ECONNRESET);
	# at 1 s, retry-limit's timeouts outlast the queueing.
	# h1's own rto, which the failure's values go bad by, stays.
	mrc_exec -n "$H2" config set rto 1000000 || mrc_die "config set in h2"
	config_h1 probe-period 20000
	# Long enough for both failures' looks under a loaded host (they
	# end 40-80 s in).
	stream_start 110
	debug_mark "stream started"
	check_failure silent 20000
	debug_mark "silent failure"
	check_failure down 20000
	debug_mark "link down"
	stream_end "spine 1 failed silently, then down, for 4 s each mid-stream"
	debug_mark "stream ended"
else
	FAIL_LOOKS=10
	FAIL_WAIT=0
	for mode in silent down; do
		config_h1 probe-period 2000
		stream_start 25
		check_failure "$mode" 2000
		stream_end "spine 1 failed ($mode) for 4 s mid-stream"
		config_h1 probe-period 150
	done
	check_deep
	check_unequal
fi

mrc_dmesg_check "failover"
mrc_exit
