# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2016 # jq programs
#
# A training cluster's exchange (issue #15): four hosts behind the
# fabric, two on each leaf (h1 and h3 on l1, h2 and h4 on l2; the spines
# shaped to 50 Mbit/s both ways while it runs), each running one rank of
# tools/bench/collective in rounds of 1 MiB messages:
#
#   a2a   all-to-all: each rank sends one message to every other;
#   ring  each rank sends one to the next (h1 -> h2 -> h3 -> h4 -> h1,
#         every hop across the spines).
#
# for mrc (one message socket a rank) and TCP (a connection between every
# two ranks), with every spine up, and with spine 1 failing (netem loss
# 100 % both ways) 0.5 s after the ranks start, a few rounds in, every TCP
# connection up by then (a connection tried through a dead spine would
# time out and be tried again from another port, another path).  A round ends when the
# last rank has every message of it; its time is from the end of the
# round before (the first round, which for TCP includes connecting, is
# left out).  Each message is checked whole by its receiver.
#
# Sourced by run.sh; bench_collective leaves $BENCH_DIR/collective.json.
#
#   BENCH_COLL_ROUNDS  rounds a run (default 20, QUICK=1: 10)
#   BENCH_R            repetitions (default 3, QUICK=1: 1)
#   BENCH_COLL_TIMEOUT seconds a rank waits for progress (default 20)
#
# What the fabric allows: 2 MiB of a2a's 3 a rank and all of ring's 1 MiB
# cross the spines; each leaf's two ranks send theirs over its 4 x 50
# Mbit/s (3 x 50 with a spine failed), which bounds a round from below:
# a2a 168 ms (224), ring 84 ms (112).

COLLECTIVE=${COLLECTIVE:-$BENCH_TOP/tools/bench/collective}
BENCH_COLL_PORT=7700
BENCH_COLL_CASES=(
	"mrc a2a up" "tcp a2a up" "mrc ring up" "tcp ring up"
	"mrc a2a failed" "tcp a2a failed" "mrc ring failed" "tcp ring failed"
)

# bench_coll_hosts on|off: h3 on l1 (10.0.3.1) and h4 on l2 (10.0.4.1),
# routed over every spine, and the spines' links toward l1 shaped as
# those toward l2; or that undone (h3 and h4 left for fabric_del).
bench_coll_hosts() {
	local i nh1="" nh2="" n ns

	if [ "$1" = off ]; then
		for ((i = 1; i <= NSPINES; i++)); do
			tc -n "${SP[i]}" qdisc replace dev va root netem \
				delay 2ms limit 10000 ||
				mrc_die "spine $i: netem toward l1"
		done
		return 0
	fi
	fabric_names 2
	H3=${NAMES[0]} H4=${NAMES[1]}
	ip -b - <<-EOF || mrc_die "cannot add h3 and h4"
		netns add $H3
		netns add $H4
		link add vh3 netns $L1 mtu 9000 type veth peer name vh netns $H3 mtu 9000
		link add vh4 netns $L2 mtu 9000 type veth peer name vh netns $H4 mtu 9000
	EOF
	for n in 3 4; do
		ns=$H3
		[ $n = 4 ] && ns=$H4
		ip -n "$ns" -b - <<-EOF || mrc_die "cannot set up h$n"
			link set lo up
			addr add 10.0.$n.1/24 dev vh
			link set vh up
			route add default via 10.0.$n.254
		EOF
	done
	for ((i = 1; i <= NSPINES; i++)); do
		nh1+=" nexthop via 10.1.$i.2 dev vs$i"
		nh2+=" nexthop via 10.2.$i.2 dev vs$i"
		ip -n "${SP[i]}" -b - <<-EOF || mrc_die "spine $i: routes to h3, h4"
			route add 10.0.3.0/24 via 10.1.$i.1
			route add 10.0.4.0/24 via 10.2.$i.1
		EOF
		tc -n "${SP[i]}" -b - <<-EOF || mrc_die "spine $i: tbf toward l1"
			qdisc replace dev va root handle 1: tbf rate $FABRIC_RATE burst 64kb latency 100ms
			qdisc add dev va parent 1:1 handle 10: netem delay 2ms limit 10000
		EOF
	done
	ip -n "$L1" -b - <<-EOF || mrc_die "cannot set up l1 for h3"
		addr add 10.0.3.254/24 dev vh3
		link set vh3 up
		route add 10.0.4.0/24$nh1
	EOF
	ip -n "$L2" -b - <<-EOF || mrc_die "cannot set up l2 for h4"
		addr add 10.0.4.254/24 dev vh4
		link set vh4 up
		route add 10.0.3.0/24$nh2
	EOF
	COLL_NS=("$H1" "$H2" "$H3" "$H4")
	# The configuration h1 and h2 run (run.sh's BENCH_MRC_CONFIG).
	if [ -n "${BENCH_MRC_CONFIG:-}" ]; then
		for ns in "$H3" "$H4"; do
			# shellcheck disable=SC2086 # KEY VALUE pairs
			mrc_exec -n "$ns" config set $BENCH_MRC_CONFIG ||
				mrc_die "config set in $ns"
		done
	fi
	COLL_ADDRS=10.0.1.1,10.0.2.1,10.0.3.1,10.0.4.1
}

# bench_coll_spine1_drops: the packets spine 1 dropped so far, both ways
# (its root qdiscs', which count their children's drops too).
bench_coll_spine1_drops() {
	{
		tc -n "${SP[1]}" -s -j qdisc show dev va
		tc -n "${SP[1]}" -s -j qdisc show dev vb
	} | jq -s '[.[][] | select(.root == true) | .drops // 0] | add // 0' \
		2>/dev/null || echo 0
}

# bench_coll_spine1 fail|up: spine 1 silently dropping everything, both
# ways, or forwarding again, through the tc batch of bench_tc_open (a tc
# started at the moment could take seconds under TCG).
bench_coll_spine1() {
	local loss=

	[ "$1" = fail ] && loss="loss 100%"
	# shellcheck disable=SC2086 # the loss words
	bench_tc qdisc change dev vb parent 1:1 handle 10: netem delay 2ms \
		limit 10000 $loss
	# shellcheck disable=SC2086
	bench_tc qdisc change dev va parent 1:1 handle 10: netem delay 2ms \
		limit 10000 $loss
}

# bench_coll_run NAME PROTO PATTERN ROUNDS up|failed: one run of the four
# ranks (failed: spine 1 fails 0.5 s after they start, and is back after
# the run); $BENCH_DIR/NAME.json: each rank's report, their exit
# statuses and stderr, mrc's counters at each host over the run, and
# each round's time.
bench_coll_run() {
	local name=$1 proto=$2 pat=$3 rounds=$4 sp=$5 i start pids=() rcs=()
	local to=${BENCH_COLL_TIMEOUT:-20} rc fail_ns=null d0 d1 tc_ms=null

	BENCH_COLL_PORT=$((BENCH_COLL_PORT + 1))
	for i in 0 1 2 3; do
		bench_stats "${COLL_NS[i]}" "$T/coll$i.0"
	done
	d0=$(bench_coll_spine1_drops)
	[ "$sp" = failed ] && bench_tc_open "${SP[1]}" vb
	# Late enough for four programs to start and bind under TCG.
	start=$(($(bench_now) * 1000 + 4000000000))
	for i in 0 1 2 3; do
		ip netns exec "${COLL_NS[i]}" "$COLLECTIVE" --rank "$i" \
			--hosts "$COLL_ADDRS" --start-at "$start" \
			--proto "$proto" --pattern "$pat" --rounds "$rounds" \
			--port "$BENCH_COLL_PORT" --timeout "$to" \
			>"$T/coll$i.out" 2>"$T/coll$i.err" &
		pids+=($!)
	done
	if [ "$sp" = failed ]; then
		bench_sleep_until $((start / 1000 + 500000))
		fail_ns=$(($(bench_now) * 1000))
		bench_coll_spine1 fail
		tc_ms=$((($(bench_now) * 1000 - fail_ns) / 1000000))
	fi
	for i in 0 1 2 3; do
		if mrc_wait_pid "${pids[i]}" $((to * (rounds + 2) + 30)); then
			rc=$MRC_WAIT_RC
		else
			rc=timeout
			mrc_kill_pid "${pids[i]}"
		fi
		rcs+=("$rc")
		bench_stats "${COLL_NS[i]}" "$T/coll$i.1"
		[ -s "$T/coll$i.out" ] || echo null >"$T/coll$i.out"
	done
	d1=$(bench_coll_spine1_drops)
	if [ "$sp" = failed ]; then
		bench_coll_spine1 up
		bench_tc_close
	fi
	bench_json "$BENCH_DIR/$name.json" \
		--arg name "$name" --arg proto "$proto" --arg pattern "$pat" \
		--argjson fail_ns "$fail_ns" --argjson drops $((d1 - d0)) \
		--argjson tc_ms "$tc_ms" \
		--argjson rcs "$(printf '%s\n' "${rcs[@]}" | jq -R . | jq -s .)" \
		--slurpfile r0 "$T/coll0.out" --slurpfile r1 "$T/coll1.out" \
		--slurpfile r2 "$T/coll2.out" --slurpfile r3 "$T/coll3.out" \
		--rawfile e0 "$T/coll0.err" --rawfile e1 "$T/coll1.err" \
		--rawfile e2 "$T/coll2.err" --rawfile e3 "$T/coll3.err" \
		--argjson m0 "$(bench_stats_delta "$T/coll0.0" "$T/coll0.1")" \
		--argjson m1 "$(bench_stats_delta "$T/coll1.0" "$T/coll1.1")" \
		--argjson m2 "$(bench_stats_delta "$T/coll2.0" "$T/coll2.1")" \
		--argjson m3 "$(bench_stats_delta "$T/coll3.0" "$T/coll3.1")" '
		[$r0[0], $r1[0], $r2[0], $r3[0]] as $r |
		# The rounds every rank completed (a rank that gave up
		# reports those it had).
		($r | map(.end_ns // [] | length) | min) as $done |
		{
			name: $name, proto: $proto, pattern: $pattern,
			rcs: $rcs, ranks: $r,
			# The round the failure fell in (1 = the first): the
			# first to end after it.
			failed_in_round: (if $fail_ns == null then null else
				([range($done) as $i | $r | map(.end_ns[$i]) | max |
				  select(. < $fail_ns)] | length + 1) end),
			rounds_done: $done, spine1_drops: $drops,
			# The failure, when the tc command was written; it
			# took tc_ms; after the last round, it touched nothing.
			tc_ms: $tc_ms,
			failed_after_end: (if $fail_ns == null then null
				else $done > 0 and
				     $done == ($r | map(.rounds // 0) | max) and
				     ($r | map(.end_ns[$done - 1] // 0) | max) <
				     $fail_ns end),
			ok: ($rcs | all(. == "0")),
			errors: ($r | map(.errors // 0) | add),
			stderr: ([$e0, $e1, $e2, $e3] | map(select(length > 0)) |
				 join("")),
			mrc_timeouts: ([$m0, $m1, $m2, $m3] |
				       map(.total_timeouts // 0) | add),
			# A round ends with its last rank; the first is left out.
			round_ms: [range(1; $done) as $i |
				(($r | map(.end_ns[$i]) | max) -
				 ($r | map(.end_ns[$i - 1]) | max)) / 1e6]
		}'
}

bench_collective() {
	local rounds=${BENCH_COLL_ROUNDS:-20} reps=${BENCH_R:-3} r c f
	local proto pat sp cases=()

	if [ "${QUICK:-0}" = 1 ]; then
		rounds=${BENCH_COLL_ROUNDS:-10} reps=${BENCH_R:-1}
	fi
	[ -x "$COLLECTIVE" ] ||
		mrc_die "no $COLLECTIVE (build it first: make -C tools/bench)"
	bench_say "collective: 4 hosts, ${#BENCH_COLL_CASES[@]} cases x" \
		"$reps repetitions x $rounds rounds of 1 MiB messages"
	bench_coll_hosts on
	for ((r = 1; r <= reps; r++)); do
		for c in "${BENCH_COLL_CASES[@]}"; do
			read -r proto pat sp <<<"$c"
			f=collective-$proto-$pat-$sp-$r
			bench_coll_run "$f" "$proto" "$pat" "$rounds" "$sp"
			bench_say "collective $proto $pat, spine 1 $sp, run" \
				"$r/$reps: $(jq -M -r '
				def med: sort | if length == 0 then null
					else .[length / 2 | floor] end;
				if (.round_ms | length) > 0 then
				"round \(.round_ms | med | . * 10 | round / 10) ms" +
				" (median), \(.round_ms | max | . * 10 | round / 10)" +
				" ms (longest)" else "no round completed" end +
				", \(.rounds_done) of \(.ranks[0].rounds // "?") rounds" +
				(if .failed_in_round then " (spine 1 failed in round" +
				 " \(.failed_in_round), tc \(.tc_ms) ms" +
				 (if .failed_after_end then ", AFTER the last" else ""
				  end) + ")" else "" end) +
				", spine 1 dropped \(.spine1_drops)" +
				", \(.errors) corrupted" +
				(if .proto == "mrc" then ", \(.mrc_timeouts) mrc" +
				 " timeouts" else "" end) +
				(if .ok then "" else " -- FAILED: \(.rcs | join(","))" +
				 " \(.stderr[:200])" end)' "$BENCH_DIR/$f.json")"
			mrc_sleep 1
		done
	done
	bench_coll_hosts off
	for c in "${BENCH_COLL_CASES[@]}"; do
		cases+=("${c// /-}")
	done

	jq -s --argjson rounds "$rounds" --argjson reps "$reps" '
		# p-th percentile, nearest rank.
		def pct($p): sort | if length == 0 then null
			else .[((length * $p / 100) | ceil) - 1 |
				if . < 0 then 0 else . end] end;
		. as $all |
		{
			rounds: $rounds, repetitions: $reps, message_bytes: 1048576,
			bound_ms: {a2a: {up: 168, failed: 224},
				   ring: {up: 84, failed: 112}},
			cases: [$ARGS.positional[] | split("-") as [$p, $pat, $sp] |
				($all | map(select(.name | test(
					"^collective-\($p)-\($pat)-\($sp)-[0-9]+$"))))
				as $runs |
				($runs | map(.round_ms) | add // []) as $ms |
				{
					proto: $p, pattern: $pat, spine1: $sp,
					rounds_done: ($ms | length),
					rounds_wanted: (($rounds - 1) * ($runs | length)),
					p50_ms: ($ms | pct(50)), p99_ms: ($ms | pct(99)),
					max_ms: ($ms | max),
					errors: ($runs | map(.errors) | add),
					mrc_timeouts: ($runs | map(.mrc_timeouts) | add),
					spine1_drops: ($runs | map(.spine1_drops) | add),
					failed_after_end: ($runs |
						map(select(.failed_after_end)) | length),
					failed_in_round: ($runs | map(.failed_in_round)),
					ok: ($runs | all(.ok)),
					runs: $runs
				}]
		}' "$BENCH_DIR"/collective-*-*-*-*.json --args "${cases[@]}" \
		>"$BENCH_DIR/collective.json" ||
		mrc_die "cannot sum up the collective runs"
}
