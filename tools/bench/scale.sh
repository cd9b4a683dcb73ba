# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2016 # jq programs
#
# Scale (issue #15 item 6): memory per destination state and per queue
# pair, and the message rate of one socket as its destinations grow to
# 10,000.  One veth pair (mrc_client_server, MTU 9000, no limit):
#
#   C  the sender: one mrc message socket (tools/bench/fanout send);
#      its routes send to each destination from an address of its own
#      (10.9.0.0 on, on lo, by the route's src), as the one address of
#      a sending host would look to each of 10,000 receiving hosts: one
#      source a destination at each receiver (whose table keys a QP by
#      the remote address and port, and lets one source open 64)
#   S  the receivers: 10,000 addresses (10.8.0.0 on, on lo), each a
#      destination; one socket a port takes them all (fanout sink), and
#      checks every message
#
# net.mrc.max_qps is raised to 16384 for it (a socket's QP table is sized
# by it when the socket opens), and set back after.
#
# Rate: 64-byte messages, one a destination in turn, round-robin over N
# = 1 ... 10,000 destinations for BENCH_T seconds, after a first pass that
# opens a queue pair to each: messages a second the socket takes (each a
# packet; a send waits while the send buffer, SO_SNDBUF 1 MiB which the
# kernel doubles, is full, so this is what is acknowledged, a buffer's
# worth apart).  A lookup that grew with the table would make it fall as
# N grows; the rate of the first pass (queue pairs opened a second) is
# reported too.
#
# Memory, measured first: SUnreclaim + VmallocUsed + Percpu of
# /proc/meminfo (what the kernel allocates for itself; not the page
# cache or dentries), the slab caches shrunk first, sampled with no
# queue pair open and again 2 s into a run to N = BENCH_SCALE_MEM
# destinations, with one queue pair to each (K = 1) and then two (K = 2,
# two ports): the difference between the two runs over N is the memory
# of a queue pair at both ends (the sender's and the receiver's), and
# what is left of the first, over N, that of a destination state at both
# ends (the sender's of the destination, the receiver's of the source).
# A run to them before, not sampled, leaves what the kernel keeps of an
# address once used (routes cached) out of it.
# The module's counters say how many of each were open when sampled,
# and are checked.  Messages in flight (SO_SNDBUF 64 KiB, doubled: at
# most 256 KiB, an idle QP's first message let past it) are counted in
# both runs: they cancel out of a QP's figure, and add 256 KiB / N at
# most to a state's.
#
# Sourced by run.sh; bench_scale leaves $BENCH_DIR/scale.json.
#
#   BENCH_T          seconds of each rate run (default 8, QUICK=1: 4)
#   BENCH_R          repetitions (default 3, QUICK=1: 1)
#   BENCH_SCALE_N    destination counts (default "1 10 100 1000 10000",
#                    QUICK=1: "1 10000"), 10,000 at most
#   BENCH_SCALE_MEM  destinations of the memory runs (default 6000,
#                    QUICK=1: 3000; two QPs each must fit a namespace's
#                    16,384)

FANOUT=${FANOUT:-$BENCH_TOP/tools/bench/fanout}
# The sinks running, for bench_scale_sinks_kill at exit.
SCALE_SINKS=()
SCALE_DST=10.8.0.0
SCALE_MAX=10000
SCALE_PORT=7000

# bench_scale_sinks_kill: on an exit before the sinks were stopped.
bench_scale_sinks_kill() {
	local s

	for s in "${SCALE_SINKS[@]}"; do
		kill "$s" 2>/dev/null
	done
}

# bench_scale_fabric: C and S as above.
bench_scale_fabric() {
	local i a

	mrc_client_server
	for ((i = 0; i < SCALE_MAX; i++)); do
		echo "addr add 10.8.$((i / 256)).$((i % 256))/32 dev lo"
	done | ip -n "$S" -b - || mrc_die "cannot add $SCALE_MAX addresses in $S"
	ip -n "$S" route add 10.9.0.0/16 via "$MRC_IP4_A" ||
		mrc_die "cannot route 10.9.0.0/16 from $S"
	for ((i = 0; i < SCALE_MAX; i++)); do
		a="$((i / 256)).$((i % 256))"
		echo "addr add 10.9.$a/32 dev lo"
		echo "route add 10.8.$a/32 via $MRC_IP4_B src 10.9.$a"
	done | ip -n "$C" -b - || mrc_die "cannot add the sources in $C"
}

# bench_scale_open NS: queue pairs and destination states open in NS,
# "QPS PEERS" (the module's counters: opened less closed).
bench_scale_open() {
	mrc_exec -n "$1" -j stats | jq -r '
		"\(.qp_opened - .qp_closed) \(.peer_opened - .peer_closed)"'
}

# bench_scale_idle: wait until neither end has a queue pair open (each
# closes once idle: a few seconds, qp-hold); dies after 60 s.
bench_scale_idle() {
	local i q p

	for ((i = 0; i < 300; i++)); do
		read -r q p < <(bench_scale_open "$C")
		if [ "$q" = 0 ] && [ "$p" = 0 ]; then
			read -r q p < <(bench_scale_open "$S")
			[ "$q" = 0 ] && [ "$p" = 0 ] && return 0
		fi
		mrc_sleep 0.2
	done
	mrc_die "scale: queue pairs still open after 60 s ($q, $p)"
}

# bench_scale_mem_settled: bench_scale_mem once two readings a second
# apart agree within 256 kB (the states of a run before are freed by RCU
# callbacks, batched for up to 5 s after they close), or after 15 s.
bench_scale_mem_settled() {
	local a b i

	a=$(bench_scale_mem)
	for ((i = 0; i < 15; i++)); do
		mrc_sleep 1
		b=$(bench_scale_mem)
		[ $((a - b)) -le 256 ] && [ $((b - a)) -le 256 ] && break
		a=$b
	done
	echo "$b"
}

# bench_scale_mem: kB the kernel holds for itself (see above), the slab
# caches' per-CPU and empty slabs given back first.
bench_scale_mem() {
	local f

	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f"
	done 2>/dev/null
	awk '/^(SUnreclaim|VmallocUsed|Percpu):/ { s += $2 } END { print s }' \
		/proc/meminfo
}

# bench_scale_run NAME N K SECONDS BUF [sample]: one fanout send from C to
# N destinations x K ports, its JSON in $BENCH_DIR/NAME.json with, if
# "sample", mem_kb (the kernel's memory 2 s after the first pass, less
# before it) and the queue pairs and states open at each end then.
bench_scale_run() {
	local name=$1 n=$2 k=$3 secs=$4 buf=$5 sample=${6:-} pid rc m0=0 m1=0
	local cq=0 cp=0 sq=0 sp=0

	bench_scale_idle
	[ -n "$sample" ] && m0=$(bench_scale_mem_settled)
	: >"$T/fan.err"
	ip netns exec "$C" "$FANOUT" send --first "$SCALE_DST" --count "$n" \
		--ports "$k" --port "$SCALE_PORT" --seconds "$secs" \
		--buf "$buf" --timeout 60 >"$T/fan.out" 2>"$T/fan.err" &
	pid=$!
	if [ -n "$sample" ]; then
		mrc_wait_line "$T/fan.err" "first pass done" 1200 ||
			mrc_die "scale: $name: no first pass in 120 s"
		mrc_sleep 2
		m1=$(bench_scale_mem)
		read -r cq cp < <(bench_scale_open "$C")
		read -r sq sp < <(bench_scale_open "$S")
	fi
	mrc_wait_pid "$pid" $((secs + 300)) || mrc_kill_pid "$pid"
	rc=$MRC_WAIT_RC
	[ -s "$T/fan.out" ] || echo null >"$T/fan.out"
	bench_json "$BENCH_DIR/$name.json" --arg name "$name" --arg rc "$rc" \
		--argjson n "$n" --argjson k "$k" \
		--slurpfile f "$T/fan.out" --rawfile err "$T/fan.err" \
		--argjson sample "$([ -n "$sample" ] && echo true || echo false)" \
		--argjson mem $((m1 - m0)) --argjson cq "$cq" --argjson cp "$cp" \
		--argjson sq "$sq" --argjson sp "$sp" '
		($f[0] // {}) as $f |
		{
			name: $name, n: $n, k: $k,
			first_s: $f.first_s, sent: ($f.sent // 0),
			seconds: ($f.seconds // 0),
			msgs_per_s: (if ($f.seconds // 0) > 0
				then $f.sent / $f.seconds else null end),
			qps_opened_per_s: (if ($f.first_s // 0) > 0
				then $f.dests * $f.ports / $f.first_s else null end),
			ok: ($rc == "0" and ($f.errors // 1) == 0),
			stderr: $err
		} + if $sample then {
			mem_kb: $mem, sender: {qps: $cq, peers: $cp},
			receiver: {qps: $sq, peers: $sp}
		} else {} end'
}

bench_scale() {
	local t=${BENCH_T:-8} reps=${BENCH_R:-3} ns=${BENCH_SCALE_N:-} r n
	local mem_n=${BENCH_SCALE_MEM:-} old p s sent
	local dump=$MRC_DUMP_NS

	# QUICK=1: the two ends of the range, the memory at half the size
	# (each run waits for the last one's QPs to close, ~10 s).
	[ "${QUICK:-0}" = 1 ] && t=${BENCH_T:-4} reps=${BENCH_R:-1} \
		ns=${ns:-1 10000} mem_n=${mem_n:-3000}
	ns=${ns:-1 10 100 1000 10000}
	mem_n=${mem_n:-6000}
	for n in $ns $mem_n; do
		if [ "$n" -lt 1 ] || [ "$n" -gt $SCALE_MAX ]; then
			mrc_die "scale: $n destinations: 1 to $SCALE_MAX"
		fi
	done
	[ $((mem_n * 2)) -le 16384 ] ||
		mrc_die "scale: BENCH_SCALE_MEM $mem_n: two QPs each exceed 16384"
	[ -x "$FANOUT" ] || mrc_die "no $FANOUT: make -C tools/bench"
	old=$(sysctl -n net.mrc.max_qps) || mrc_die "no net.mrc.max_qps"
	mrc_at_exit "sysctl -qw net.mrc.max_qps=$old"
	mrc_at_exit bench_scale_sinks_kill
	sysctl -qw net.mrc.max_qps=16384 || mrc_die "cannot set net.mrc.max_qps"
	bench_scale_fabric
	bench_say "scale: one socket to N = ${ns// /, } destinations" \
		"($SCALE_MAX addresses), 64 B messages, $reps x $t s;" \
		"memory at $mem_n destinations"
	for p in 0 1; do
		ip netns exec "$S" "$FANOUT" sink --port $((SCALE_PORT + p)) \
			--buf 16777216 --timeout 3600 >"$T/sink$p.out" \
			2>"$T/sink$p.err" &
		SCALE_SINKS+=($!)
		mrc_wait_line "$T/sink$p.err" listening ||
			mrc_die "scale: the sink on $((SCALE_PORT + p)) did not start"
	done
	# Memory first: slabs the 10,000 QPs of a rate run leave would be
	# taken again unseen.  A run to the same destinations before it,
	# not sampled, leaves behind what the kernel keeps of an address
	# once used (routes cached at each end), so that what is sampled
	# lives and goes with mrc's queue pairs and states.
	bench_scale_run scale-warm-1 "$mem_n" 1 2 65536
	for ((r = 1; r <= reps; r++)); do
		for p in 1 2; do
			bench_scale_run "scale-mem-$p-$r" "$mem_n" "$p" 6 65536 sample
			bench_say "scale memory, $mem_n destinations x $p QPs" \
				"run $r/$reps: $(jq -M -r '
				"\(.mem_kb) kB; open: sender \(.sender.qps) QPs," +
				" \(.sender.peers) states, receiver" +
				" \(.receiver.qps) QPs, \(.receiver.peers)" +
				" states" + (if .ok then "" else
				" -- FAILED: \(.stderr[:200])" end)' \
				"$BENCH_DIR/scale-mem-$p-$r.json")"
		done
	done
	for ((r = 1; r <= reps; r++)); do
		for n in $ns; do
			bench_scale_run "scale-rate-$n-$r" "$n" 1 "$t" 1048576
			bench_say "scale N=$n run $r/$reps: $(jq -M -r '
				"\(.msgs_per_s // 0 | round) messages/s, first" +
				" pass \(.qps_opened_per_s // 0 | round) QPs" +
				" opened/s" + (if .ok then "" else
				" -- FAILED: \(.stderr[:200])" end)' \
				"$BENCH_DIR/scale-rate-$n-$r.json")"
		done
	done
	# Every message sent, delivered once and intact.
	bench_scale_idle
	for s in "${SCALE_SINKS[@]}"; do
		kill -TERM "$s" 2>/dev/null
		mrc_wait_pid "$s" 30 || mrc_kill_pid "$s"
	done
	SCALE_SINKS=()
	sent=$(jq -s 'map(.sent + .n * .k) | add' \
		"$BENCH_DIR"/scale-{warm,rate,mem}-*.json)
	sysctl -qw net.mrc.max_qps="$old"
	MRC_DUMP_NS=$dump

	jq -s --argjson t "$t" --argjson reps "$reps" --argjson memn "$mem_n" \
		--argjson sent "${sent:-0}" \
		--slurpfile s0 <(cat "$T/sink0.out" 2>/dev/null || echo null) \
		--slurpfile s1 <(cat "$T/sink1.out" 2>/dev/null || echo null) '
		def med: sort | if length == 0 then null
			elif length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def stat(f): map(f | numbers) | {median: med, min: min, max: max, runs: .};
		def runs($p): map(select(.name | test($p)));
		. as $all |
		($all | runs("^scale-mem-1-") | map(.mem_kb)) as $m1 |
		($all | runs("^scale-mem-2-") | map(.mem_kb)) as $m2 |
		# A QP at each end, from the runs of the same repetition.
		[range($m1 | length) | ($m2[.] - $m1[.]) * 1024 / $memn] as $qp |
		[range($m1 | length) | $m1[.] * 1024 / $memn - $qp[.]] as $dest |
		($s0[0] // {}) as $a | ($s1[0] // {}) as $b |
		{
			seconds: $t, repetitions: $reps, size: 64,
			rate: [$all | runs("^scale-rate-") | group_by(.n)[] | {
				n: .[0].n,
				msgs_per_s: stat(.msgs_per_s),
				qps_opened_per_s: stat(.qps_opened_per_s)
			}],
			memory: {
				destinations: $memn,
				qp_pair_bytes: ($qp | stat(.)),
				dest_bytes: ($dest | stat(.)),
				open: ($all | runs("^scale-mem-") |
				       map({k, sender, receiver}))
			},
			sent: $sent,
			received: (($a.received // 0) + ($b.received // 0)),
			errors: (($a.errors // 1) + ($b.errors // 1)),
			ok: (($all | all(.ok)) and
			     ($a.errors // 1) + ($b.errors // 1) == 0 and
			     ($a.received // 0) + ($b.received // 0) == $sent and
			     ($all | runs("^scale-mem-") | all(
				.sender.qps == .n * .k and .sender.peers == .n and
				.receiver.qps == .n * .k and
				.receiver.peers == .n))),
			runs: $all
		}' "$BENCH_DIR"/scale-{warm,rate,mem}-*.json >"$BENCH_DIR/scale.json" ||
		mrc_die "cannot sum up the scale runs"
	bench_say "scale: $(jq -M -r '
		(.rate | map("N=\(.n) \(.msgs_per_s.median // 0 | round)/s") |
		 join(", ")) + "; a destination state \(.memory.dest_bytes.median
		 // 0 | round) B, a QP at both ends \(.memory.qp_pair_bytes.median
		 // 0 | round) B; \(.received)/\(.sent) messages delivered, " +
		"\(.errors) wrong" + (if .ok then "" else " -- NOT OK" end)' \
		"$BENCH_DIR/scale.json")"
}
