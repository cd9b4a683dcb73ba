# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2016 # jq programs
#
# Goodput of an incast (issue #14): four senders, each one socket sending
# 256 KiB messages for BENCH_T seconds, all at once, into one receiver
# through a router whose 50 Mbit/s link to it (tbf) is the bottleneck
# (fabric_star of selftests/fabric.sh):
#
#   drop      mrc; the router drops at the tail of a BENCH_INCAST_Q-byte
#             queue (default 200000: 32 ms at 50 Mbit/s)
#   trim      mrc; the router trims above 30 kB of backlog instead
#             (selftests/mrc_trim.bpf.o, the last hop's codepoint, 16),
#             its real queue far larger (16 MB) so that the program
#             decides
#   pace      mrc; the program is the link's queue (its pace rule at
#             50 Mbit/s, fq in place of the tbf, as mrc_trimming.sh's
#             incast): trimmed above the same 30 kB, with no count of
#             the tbf's queue to drift from it when the VM stalls
#   tcp-drop  TCP (the VM's default congestion control) through the
#             tail-drop queue of drop, for reference
#
# Sourced by run.sh; bench_incast leaves $BENCH_DIR/incast.json.  mrc
# runs with the namespace's defaults (a 4 ms minimum RTO): the timeouts
# it takes are reported, as are the trims and the router's drops.
#
#   BENCH_T          seconds of each transfer (default 10, QUICK=1: 5)
#   BENCH_R          repetitions (default 3, QUICK=1: 1)
#   BENCH_INCAST_Q   the tail-drop queue, bytes (default 200000)

BENCH_INCAST_CASES=(
	"drop|mrc, the last hop drops at the tail of its queue"
	"trim|mrc, the last hop trims above 30 kB of backlog"
	"pace|mrc, the last hop paces and trims above 30 kB (pace rule, fq)"
	"tcp-drop|TCP, the last hop drops at the tail of its queue"
)
BENCH_INCAST_PORT=7600

# bench_incast_link CASE|off: the router's link to the receiver as CASE
# wants it, or bare.
bench_incast_link() {
	local q=${BENCH_INCAST_Q:-200000}

	case $1 in
	off)
		tc -n "$R" qdisc del dev vd clsact 2>/dev/null
		tc -n "$R" qdisc del dev vd root 2>/dev/null
		return 0
		;;
	trim)
		ip netns exec "$R" sh -c "
			mount -t bpf bpf /sys/fs/bpf &&
			tc qdisc add dev vd root tbf rate 50mbit burst 64kb \
				limit 16mb &&
			tc qdisc add dev vd clsact &&
			tc filter add dev vd egress bpf da \
				obj '$MRC_SELFTEST_DIR/mrc_trim.bpf.o' sec tc &&
			'$MRC_SELFTEST_DIR/mrc_trimctl' backlog 30000 50000 dscp 16" \
			>/dev/null || mrc_die "r: cannot attach the trimming program"
		;;
	pace)
		ip netns exec "$R" sh -c "
			mount -t bpf bpf /sys/fs/bpf &&
			tc qdisc add dev vd root fq limit 100000 flow_limit 10000 &&
			tc qdisc add dev vd clsact &&
			tc filter add dev vd egress bpf da \
				obj '$MRC_SELFTEST_DIR/mrc_trim.bpf.o' sec tc &&
			'$MRC_SELFTEST_DIR/mrc_trimctl' pace 30000 50000 dscp 16" \
			>/dev/null || mrc_die "r: cannot attach the pacing program"
		;;
	*)
		tc -n "$R" qdisc add dev vd root tbf rate 50mbit burst 64kb \
			limit "$q" || mrc_die "r: tbf"
		;;
	esac
}

# bench_incast_run NAME PROTO SECONDS: the four senders at once; leaves
# $BENCH_DIR/NAME.json: goodput_mbps, the bytes the receiver verified
# over the longest sender's time, and the senders' and receiver's
# counters.
bench_incast_run() {
	local name=$1 proto=$2 secs=$3 i port bufs=() srv=() cli=() rc
	local q0 q1 xrc=() xsrc=() trx0=0 trx1=0

	[ "$proto" = mrc ] && bufs=("${BENCH_BUFS[@]}")
	for i in 1 2 3 4; do
		bench_stats "${A[i]}" "$T/ia$i.0"
	done
	bench_stats "$D" "$T/id.0"
	for i in 1 2 3 4; do
		trx0=$((trx0 + $(bench_tcp_retrans "${A[i]}")))
	done
	q0=$(tc -n "$R" -s -j qdisc show dev vd root | jq '.[0].drops // 0')
	for i in 1 2 3 4; do
		port=$((BENCH_INCAST_PORT + i))
		ip netns exec "$D" "$MRCPERF" server -p "$port" --proto "$proto" \
			-1 -j "${bufs[@]}" >"$T/is$i.out" 2>"$T/is$i.err" &
		srv[i]=$!
	done
	for i in 1 2 3 4; do
		port=$((BENCH_INCAST_PORT + i))
		if [ "$proto" = mrc ]; then
			mrc_wait_bound "${srv[i]}" "$port" 20 ||
				mrc_die "mrcperf server $i did not start"
			continue
		fi
		bench_wait_listen "$D" "$port" ||
			mrc_die "mrcperf server $i does not listen on TCP $port"
	done
	for i in 1 2 3 4; do
		ip netns exec "${A[i]}" "$MRCPERF" client 10.4.0.1 \
			-p $((BENCH_INCAST_PORT + i)) --proto "$proto" -j \
			-t "$secs" --timeout 60 -s 256K "${bufs[@]}" \
			>"$T/ic$i.out" 2>"$T/ic$i.err" &
		cli[i]=$!
	done
	for i in 1 2 3 4; do
		mrc_wait_pid "${cli[i]}" $((secs + 90)) ||
			mrc_kill_pid "${cli[i]}"
		xrc[i]=$MRC_WAIT_RC
	done
	for i in 1 2 3 4; do
		if mrc_wait_pid "${srv[i]}" 30; then
			xsrc[i]=$MRC_WAIT_RC
		else
			xsrc[i]=timeout
			mrc_kill_pid "${srv[i]}"
		fi
		[ -s "$T/ic$i.out" ] || echo null >"$T/ic$i.out"
		[ -s "$T/is$i.out" ] || echo null >"$T/is$i.out"
	done
	q1=$(tc -n "$R" -s -j qdisc show dev vd root | jq '.[0].drops // 0')
	for i in 1 2 3 4; do
		trx1=$((trx1 + $(bench_tcp_retrans "${A[i]}")))
	done
	for i in 1 2 3 4; do
		bench_stats "${A[i]}" "$T/ia$i.1"
		bench_stats_delta "$T/ia$i.0" "$T/ia$i.1" >"$T/ia$i.d"
	done
	bench_stats "$D" "$T/id.1"
	rc="${xrc[*]}|${xsrc[*]}"
	bench_json "$BENCH_DIR/$name.json" \
		--arg name "$name" --arg rc "$rc" \
		--argjson drops $((q1 - q0)) --argjson tcp_rtx $((trx1 - trx0)) \
		--slurpfile c <(cat "$T"/ic[1-4].out) \
		--slurpfile s <(cat "$T"/is[1-4].out) \
		--slurpfile x <(cat "$T"/ia[1-4].d) \
		--argjson d "$(bench_stats_delta "$T/id.0" "$T/id.1")" \
		--rawfile err <(cat "$T"/ic[1-4].err "$T"/is[1-4].err) '
		def sum(f): map(f // 0) | add // 0;
		{
			name: $name, exit_status: $rc,
			sent: ($c | sum(.messages)),
			verified: ($s | sum(.messages)),
			errors: (($s | sum(.errors)) + ($c | sum(.errors))),
			seconds: ($c | map(.seconds // 0) | max),
			bytes: ($s | sum(.bytes)),
			senders_mbps: [range(4) as $i |
				if ($c[$i].seconds // 0) > 0
				then ($s[$i].bytes // 0) * 8 / $c[$i].seconds / 1e6
				else 0 end],
			router_drops: $drops,
			timeouts: ($x | sum(.total_timeouts)),
			retransmissions: ($x | sum(.total_rtx_sack) +
				sum(.total_rtx_timeout) + sum(.total_rtx_mtu)),
			tcp_retrans_segs: $tcp_rtx,
			nacks_taken: ($x | sum(.nack_rx)),
			trimmed: ($d.rx_trimmed // 0),
			stderr: $err
		} | .lost = .sent - .verified
		  | .goodput_mbps = (if .seconds > 0
			then .bytes * 8 / .seconds / 1e6 else 0 end)
		  | .ok = (.exit_status == "0 0 0 0|0 0 0 0" and
			   .errors == 0 and .lost == 0 and .verified > 0)'
}

bench_incast() {
	local t=${BENCH_T:-10} reps=${BENCH_R:-3} r c name proto f

	[ "${QUICK:-0}" = 1 ] && t=${BENCH_T:-5} reps=${BENCH_R:-1}
	[ -r "$MRC_SELFTEST_DIR/mrc_trim.bpf.o" ] ||
		mrc_die "no selftests/mrc_trim.bpf.o: make -C selftests"
	fabric_star
	bench_say "incast: ${#BENCH_INCAST_CASES[@]} cases x $reps" \
		"repetitions x $t s, 4 senders into one 50 Mbit/s link"
	for ((r = 1; r <= reps; r++)); do
		for c in "${BENCH_INCAST_CASES[@]}"; do
			name=${c%%|*}
			proto=mrc
			[ "$name" = tcp-drop ] && proto=tcp
			bench_incast_link "${name#tcp-}"
			f=incast-$name-$r
			bench_incast_run "$f" "$proto" "$t"
			bench_incast_link off
			bench_say "incast $name run $r/$reps: $(jq -M -r '
				"\(.goodput_mbps * 10 | round / 10) Mbit/s " +
				"(senders \(.senders_mbps | map(. * 10 | round / 10) |
				 join(", "))), " +
				"\(.verified) messages verified, \(.lost) lost, " +
				"\(.errors) corrupted" +
				(if .ok then "" else " -- FAILED: \(.exit_status)" +
				 " \(.stderr[:200] | gsub("\n"; " / "))" end) +
				", trimmed \(.trimmed), router drops \(.router_drops)" +
				", timeouts \(.timeouts), resent \(.retransmissions)" +
				", TCP segments resent \(.tcp_retrans_segs)"' \
				"$BENCH_DIR/$f.json")"
			mrc_sleep 1
		done
	done

	jq -s --argjson t "$t" --argjson reps "$reps" \
		--argjson q "${BENCH_INCAST_Q:-200000}" '
		def med: sort | if length == 0 then null
			elif length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def by($n): map(select(.name | test("^incast-\($n)-[0-9]+$")));
		. as $all |
		{
			seconds: $t, repetitions: $reps, link_mbps: 50,
			drop_queue_bytes: $q, trim_backlog_bytes: 30000,
			cases: [$ARGS.positional[] | split("|") as [$n, $d] |
				($all | by($n)) as $runs |
				($runs | map(.goodput_mbps)) as $g |
				{
					name: $n, description: $d,
					goodput_mbps: {median: ($g | med),
						min: ($g | min), max: ($g | max), runs: $g},
					link_utilisation: (($g | med) / 50),
					trimmed: ($runs | map(.trimmed) | med),
					router_drops: ($runs | map(.router_drops) | med),
					timeouts: ($runs | map(.timeouts) | med),
					retransmissions: ($runs | map(.retransmissions) | med),
					tcp_retrans_segs: ($runs | map(.tcp_retrans_segs) | med),
					verified: ($runs | map(.verified) | add),
					lost: ($runs | map(.lost) | add),
					errors: ($runs | map(.errors) | add),
					ok: ($runs | all(.ok)),
					runs: $runs
				}]
		}' "$BENCH_DIR"/incast-*-*.json \
		--args "${BENCH_INCAST_CASES[@]}" >"$BENCH_DIR/incast.json" ||
		mrc_die "cannot sum up the incast runs"
	bench_say "incast: $(jq -M -r '[.cases[] | "\(.name) " +
		"\(.goodput_mbps.median // 0 | . * 10 | round / 10) Mbit/s"] |
		join(", ")' "$BENCH_DIR/incast.json") (of 50)"
}
