# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2016 # sourced: the benchmarks read what it sets; jq and awk programs
#
# Helpers of the benchmarks (tools/bench/*.sh), sourced by run.sh after
# selftests/lib.sh and selftests/fabric.sh, whose fabric, counters and
# CLI helpers they reuse.  A benchmark measures and reports; it passes or
# fails nothing: only a broken setup (mrc_die) or a transfer that lost or
# corrupted a message (counted, and reported as an error) stands out.
#
# Each benchmark is a function bench_NAME in tools/bench/NAME.sh; it
# prints one progress line per measurement (bench_say) and leaves its
# results, one JSON object, in $BENCH_DIR/NAME.json.  run.sh prints them
# at the end between marker lines for the host side (bench.sh).

BENCH_TOP=$MRC_TREE
# shellcheck disable=SC2154 # selftests/lib.sh sets it
BENCH_DIR=$mrc_tmpdir/bench
NETSAMPLE=${NETSAMPLE:-$BENCH_TOP/tools/bench/netsample}
# The fabric: 4 spines of 50 Mbit/s (tc counts the Ethernet header).
BENCH_FABRIC_MBPS=200
# Bytes of a full-size mrc data packet that are not payload, as h2's
# rx_bytes counts them: Ethernet 14, IPv4 20, UDP 8, BTH+METH+RETH 32,
# ITETH 8 (the incarnation tags mrc adds to every packet).
BENCH_HDR=82
# Buffers for several 1 MiB messages at each end (tools/demo-vm.sh).
BENCH_BUFS=(--rcvbuf 16M --sndbuf 16M)

mkdir -p "$BENCH_DIR" || mrc_die "cannot make $BENCH_DIR"

# bench_say TEXT...: one progress line, as the benchmark goes.
bench_say() {
	echo "bench: $*"
}

# bench_json FILE FILTER [jq args...]: jq -n FILTER into FILE.
bench_json() {
	local f=$1

	shift
	jq -n "$@" >"$f" || mrc_die "jq failed writing $f"
}

# bench_config KEY VALUE...: set the mrc configuration of h1 and h2 (each
# once it has no destination state left, so that the next one is made
# under the new configuration).  Only keys that change are set.
bench_config() {
	local ns

	for ns in "$H1" "$H2"; do
		wait_no_peer "$ns" || mrc_die "$ns kept a destination state"
		mrc_exec -n "$ns" config set "$@" ||
			mrc_die "config set $* in $ns"
	done
}

# bench_stats NS FILE: the namespace's mrc counters ("mrc -j stats").
bench_stats() {
	mrc_exec -n "$1" -j stats >"$2" 2>/dev/null || echo '{}' >"$2"
}

# bench_stats_delta BEFORE AFTER: a JSON object of AFTER - BEFORE for
# every counter (files of bench_stats).
bench_stats_delta() {
	jq -n --slurpfile a "$1" --slurpfile b "$2" '
		$a[0] as $x | $b[0] | with_entries(
			select(.value | type == "number") |
			.value -= ($x[.key] // 0))'
}

# bench_mib NS FILE GROUP NAME: counter NAME of GROUP ("Tcp:",
# "TcpExt:", "MPTcpExt:") in NS's /proc/net/FILE (snmp, netstat: a line
# of names, then one of values); 0 if the group has no such counter,
# nothing if there is no such group.
bench_mib() {
	ip netns exec "$1" awk -v g="$3" -v n="$4" '
		$1 == g && !h { for (i = 2; i <= NF; i++) if ($i == n) c = i
				h = 1; next }
		$1 == g { print c ? $c + 0 : 0; exit }' "/proc/net/$2"
}

# bench_tcp_retrans NS: TCP segments retransmitted so far in NS.
bench_tcp_retrans() {
	bench_mib "$1" snmp Tcp: RetransSegs
}

# bench_spine_qdisc FILE: the qdisc counters of each spine's link toward
# h2 (tbf and its netem child), as one JSON array of tc's per spine.
bench_spine_qdisc() {
	local i

	for ((i = 1; i <= NSPINES; i++)); do
		tc -n "${SP[i]}" -s -j qdisc show dev vb
	done | jq -s . >"$1" 2>/dev/null || echo '[]' >"$1"
}

# bench_qdisc_drops BEFORE AFTER: per spine, the packets its qdiscs
# toward h2 dropped between two bench_spine_qdisc files: the root's count,
# which holds its children's (a packet netem drops under tbf is counted
# by both), and clsact's (what a tc program drops).
bench_qdisc_drops() {
	jq -n -c --slurpfile a "$1" --slurpfile b "$2" '
		def d: map(select(.root == true or .kind == "clsact") |
			   .drops // 0) | add // 0;
		[range($b[0] | length) as $i |
		 ($b[0][$i] | d) - ($a[0][$i] // [] | d)]'
}

# bench_spines_json A B: the packets each spine carried toward h2 between
# two spine_counts arrays (names), as a JSON array.
bench_spines_json() {
	local -n sa=$1 sb=$2
	local i out=

	for ((i = 1; i <= NSPINES; i++)); do
		out+=${out:+,}$((sb[i] - sa[i]))
	done
	echo "[$out]"
}

# bench_wait_listen NS PORT: wait (10 s at most) until a TCP socket
# listens on PORT in NS; 1 if none did.
bench_wait_listen() {
	local st

	for ((st = 0; st < 100; st++)); do
		ip netns exec "$1" ss -Htln "sport = :$2" | grep -q . &&
			return 0
		mrc_sleep 0.1
	done
	return 1
}

# bench_server NS PROTO OUT ERR ARGS...: "mrcperf server -1 -j" of PROTO
# in NS on a new PORT, its output in OUT and ERR; its pid in BENCH_SRV
# once it is bound (mrc) or listens (TCP, MPTCP); dies if it does not.
bench_server() {
	local ns=$1 proto=$2 out=$3 err=$4

	shift 4
	PORT=$((PORT + 1))
	ip netns exec "$ns" "$MRCPERF" server -p "$PORT" --proto "$proto" -1 -j \
		"$@" >"$out" 2>"$err" &
	BENCH_SRV=$!
	if [ "$proto" = mrc ]; then
		mrc_wait_bound "$BENCH_SRV" "$PORT" 20 ||
			mrc_die "mrcperf server did not start: $(cat "$err")"
	else
		bench_wait_listen "$ns" "$PORT" ||
			mrc_die "mrcperf server does not listen on TCP $PORT"
	fi
}

# bench_xfer NAME PROTO SECONDS CLIENT_ARGS...: one transfer from h1 to
# h2 for SECONDS: mrcperf server -1 (exits 0 only if every message it
# received verified) on a new port, the client with CLIENT_ARGS; while it
# runs, nothing else but, for mrc, one look at h1's queue pairs halfway.
# Leaves its result in $BENCH_DIR/NAME.json: goodput_mbps, the bytes
# the receiver verified over the client's time; ok, both ends exited 0
# and every message sent was verified (errors: messages corrupted; lost:
# sent less verified); the client's and server's reports, and the
# counters that say what limited it.
bench_xfer() {
	local name=$1 proto=$2 secs=$3 srv cli src crc srv_args=()
	local qp='null' rtx0 rtx1 tcp_rtx='null' mrc_h1='null' mrc_h2='null'
	local -a sp0 sp1

	shift 3
	[ "$proto" = mrc ] && srv_args=("${BENCH_BUFS[@]}")
	bench_stats "$H1" "$T/h1.0"
	bench_stats "$H2" "$T/h2.0"
	bench_spine_qdisc "$T/q.0"
	spine_counts sp0
	rtx0=$(bench_tcp_retrans "$H1")
	bench_server "$H2" "$proto" "$T/srv.out" "$T/srv.err" "${srv_args[@]}"
	srv=$BENCH_SRV
	ip netns exec "$H1" "$MRCPERF" client "$DST" -p "$PORT" --proto "$proto" \
		-j -t "$secs" --timeout 60 "$@" >"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	if [ "$proto" = mrc ]; then
		mrc_sleep "$((secs / 2))"
		qp=$(mrc_exec -n "$H1" -j qp show 2>/dev/null |
			jq -c '[.[] | {qpn, cwnd, inflight, srtt_us, base_rtt_us,
				    reorder, rto_us, tx_queued}]' 2>/dev/null) ||
			qp='null'
		[ -n "$qp" ] || qp='null'
	fi
	mrc_wait_pid "$cli" $((secs + 90)) || mrc_kill_pid "$cli"
	crc=$MRC_WAIT_RC
	if mrc_wait_pid "$srv" 30; then
		src=$MRC_WAIT_RC
	else
		src=timeout
		mrc_kill_pid "$srv"
	fi
	spine_counts sp1
	bench_spine_qdisc "$T/q.1"
	rtx1=$(bench_tcp_retrans "$H1")
	if [ "$proto" != mrc ]; then
		tcp_rtx=$((rtx1 - rtx0))
	else
		bench_stats "$H1" "$T/h1.1"
		bench_stats "$H2" "$T/h2.1"
		mrc_h1=$(bench_stats_delta "$T/h1.0" "$T/h1.1")
		mrc_h2=$(bench_stats_delta "$T/h2.0" "$T/h2.1")
	fi
	[ -s "$T/cli.out" ] || echo null >"$T/cli.out"
	[ -s "$T/srv.out" ] || echo null >"$T/srv.out"
	bench_json "$BENCH_DIR/$name.json" \
		--arg name "$name" --arg crc "$crc" --arg src "$src" \
		--slurpfile c "$T/cli.out" --slurpfile s "$T/srv.out" \
		--rawfile cerr "$T/cli.err" --rawfile serr "$T/srv.err" \
		--argjson spines "$(bench_spines_json sp0 sp1)" \
		--argjson drops "$(bench_qdisc_drops "$T/q.0" "$T/q.1")" \
		--argjson qp "$qp" --argjson tcp_rtx "$tcp_rtx" \
		--argjson h1 "$mrc_h1" --argjson h2 "$mrc_h2" '
		($c[0] // {}) as $c | ($s[0] // {}) as $s |
		{
			name: $name,
			client_rc: $crc, server_rc: $src,
			client: $c, server: $s,
			sent: ($c.messages // 0),
			verified: ($s.messages // 0),
			errors: (($s.errors // 0) + ($c.errors // 0)),
			lost: (($c.messages // 0) - ($s.messages // 0)),
			seconds: ($c.seconds // 0),
			goodput_mbps: (if ($c.seconds // 0) > 0
				then ($s.bytes // 0) * 8 / $c.seconds / 1e6
				else 0 end),
			spine_packets: $spines,
			spine_qdisc_drops: $drops,
			tcp_retrans_segs: $tcp_rtx,
			qp_halfway: $qp,
			mrc_h1: $h1, mrc_h2: $h2,
			stderr: ([$cerr, $serr] | map(select(length > 0)) | join(""))
		} | .ok = (.client_rc == "0" and .server_rc == "0" and
			   .errors == 0 and .lost == 0 and .verified > 0)'
}

# bench_now: microseconds, CLOCK_REALTIME (netsample's clock).
bench_now() {
	echo "${EPOCHREALTIME/[.,]/}"
}

# bench_sleep_until USEC: sleep until time USEC (bench_now's clock); at
# once if it has passed.  Under TCG a busy VM starts processes slowly (a
# second or more each while a transfer fills both CPUs): what must happen
# at a given moment of a transfer is timed from its start, not by sleeps
# after other commands.
bench_sleep_until() {
	local left=$(($1 - ${EPOCHREALTIME/[.,]/}))

	[ "$left" -gt 0 ] || return 0
	mrc_sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"
}

# bench_tc_open NS DEV: a tc batch process in NS, started now, that
# bench_tc feeds later: a qdisc change then takes effect at once, where
# starting "tc" would take up to seconds under a busy emulated CPU.
bench_tc_open() {
	mkfifo "$T/tc.in" "$T/tc.out" || mrc_die "mkfifo"
	stdbuf -oL tc -n "$1" -b - <"$T/tc.in" >"$T/tc.out" 2>&1 &
	BENCH_TC_PID=$!
	BENCH_TC_DEV=$2
	exec {BENCH_TC_IN}<>"$T/tc.in" {BENCH_TC_OUT}<>"$T/tc.out"
	mrc_at_exit "kill $BENCH_TC_PID"
}

# bench_tc ARGS...: "tc ARGS" in the batch of bench_tc_open, and then
# "tc qdisc show dev DEV", whose netem line, read back, says the change
# is made (in $BENCH_TC_REPLY; an error message instead if not).
bench_tc() {
	BENCH_TC_REPLY=
	printf '%s\nqdisc show dev %s\n' "$*" "$BENCH_TC_DEV" >&"$BENCH_TC_IN"
	while read -r -t 60 -u "$BENCH_TC_OUT" BENCH_TC_REPLY; do
		[[ $BENCH_TC_REPLY == "qdisc netem "* ]] && return 0
		[[ $BENCH_TC_REPLY == "qdisc "* ]] || break
	done
	mrc_die "tc $*: ${BENCH_TC_REPLY:-no answer}"
}

# bench_tc_close: end the batch of bench_tc_open.
bench_tc_close() {
	exec {BENCH_TC_IN}>&- {BENCH_TC_OUT}<&-
	mrc_wait_pid "$BENCH_TC_PID" 10 || mrc_kill_pid "$BENCH_TC_PID"
	rm -f "$T/tc.in" "$T/tc.out"
}
