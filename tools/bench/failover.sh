# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2016 # jq and awk programs
#
# Failover on the ECMP fabric (issues #12 and #15): a stream of 1 MiB
# messages from h1 to h2 through which a spine fails silently (netem loss
# 100 % toward h2) and later comes back, four times over:
#
#   mrc    one mrc socket; spine 1 fails (it carries about a quarter of
#          the active set's values);
#   tcp    one TCP connection (mrcperf --proto tcp); the spine it hashes
#          to fails, found 4 s before the failure as the one carrying
#          the most bytes: a spine it does not take would show nothing;
#   mptcp  one MPTCP connection with a subflow pinned to each spine (as
#          the paths benchmark's mptcp case); spine 1, the first
#          subflow's, fails;
#   tcp6   one TCP connection over IPv6 (bench_fabric6), the leaves
#          hashing the flow label, which TCP changes at each timeout
#          (net.core.txrehash): the strongest TCP there is against a
#          dead path.  The spine it takes fails, as for tcp.
#
# netsample reads, every BENCH_SAMPLE_MS, the bytes h2 receives and the
# packets each spine hands to l2.  Sourced by run.sh; bench_failover
# leaves $BENCH_DIR/failover.json: mrc's figures, and the others' under
# "compare".
#
#   BENCH_FAIL_AT    seconds into the stream the spine fails (default 6)
#   BENCH_FAIL_FOR   seconds it stays failed (default 5)
#   BENCH_AFTER      seconds the stream goes on after (default 5)
#   BENCH_SAMPLE_MS  sampling period (default 10)
#   BENCH_WINDOW_MS  the sliding window goodput is taken over (default 50)
#   (QUICK=1: 5, 3 and 3 s)
#
# What it reports (times in ms from the failure; "spine 1" is the spine
# that fails):
#
#   pre          h2's goodput over the 3 s before the failure
#   dip          the lowest goodput of a window in the 2 s after it
#   back_fabric  the end of the first window after the dip at 3/4 of the
#                fabric (150 Mbit/s) or more; back_pre: at 3/4 of pre.
#                0 if the dip never went below; null if it never came
#                back before the spine did
#   steady_*     the same, but the first moment from which the goodput
#                over the next BENCH_HOLD_MS (default 250) is at the
#                mark: a single window may be a burst, or the jitter of
#                an emulated clock.  The bound is judged on this one.
#   bound        (mrc) 2 x the RTO h1's queue pair would arm 4 s before
#                the failure (mrc -j qp show) + probe-period
#   spine_back   from the restoring tc command to spine 1's first packet
#                toward h2 (a probe, normally), and to its first window
#                at half its pre-failure rate (data again)
#
# h2's goodput is its rx_bytes less each packet's headers (below):
# duplicates count, but the transfer must lose nothing (verified at the
# end, and checked against the bytes the server verified).  The tc
# commands go to a tc batch started before the stream (bench_tc_open;
# for TCP, 4 s before the failure, once its spine is known): starting tc
# when it is needed could take seconds under TCG, with the transfer
# filling both CPUs.  The failure's moment is when spine 1 last
# handed a packet to l2, one sample early, and not before the command was
# written; the restore's, when the command was written.

# The headers a data packet carries on h2's link, for the goodput out of
# its counters: mrc's (BENCH_HDR); TCP's, Ethernet 14 + IPv4 20 + TCP 20
# + timestamps 12 (86 over IPv6's 40); MPTCP's, that and a DSS option,
# taken as 28 (a 64-bit data sequence number and a 64-bit data ACK; 24
# with a 32-bit one).  TCP's segments can cross the fabric as one GSO
# packet of several (no router segments them): the sampled goodput then
# counts a few headers as payload.  The ratio of the sampled bytes to
# those the server verified shows how far either estimate is off.
BENCH_HDR_TCP=66
BENCH_HDR_MPTCP=94
BENCH_HDR_TCP6=86
# The fabric's MTU is 9000: TCP's MSS over IPv4 and IPv6.
BENCH_TCP_MSS=8948
BENCH_TCP6_MSS=8928

bench_failover() {
	local fail_at=${BENCH_FAIL_AT:-6} fail_for=${BENCH_FAIL_FOR:-5}
	local after=${BENCH_AFTER:-5} smp=${BENCH_SAMPLE_MS:-10}

	if [ "${QUICK:-0}" = 1 ]; then
		fail_at=${BENCH_FAIL_AT:-5} fail_for=${BENCH_FAIL_FOR:-3}
		after=${BENCH_AFTER:-3}
	fi
	[ -x "$NETSAMPLE" ] ||
		mrc_die "no $NETSAMPLE (build it first: make -C tools/bench)"
	bench_say "failover: a $((fail_at + fail_for + after)) s stream of" \
		"mrc, TCP, MPTCP and TCP over IPv6 in turn; a spine fails silently at" \
		"$fail_at s for $fail_for s; samples every $smp ms"
	bench_failover_run mrc 1 "$BENCH_DIR/failover.json"
	bench_failover_run tcp 0 "$T/failover-tcp.json"
	bench_paths_mptcp on "$NSPINES"
	bench_failover_run mptcp 1 "$T/failover-mptcp.json"
	bench_paths_mptcp off "$NSPINES"
	[ -n "${BENCH_FABRIC6:-}" ] || bench_fabric6
	BENCH_FABRIC6=1
	bench_failover_run tcp6 0 "$T/failover-tcp6.json"
	jq --slurpfile tcp "$T/failover-tcp.json" \
		--slurpfile mptcp "$T/failover-mptcp.json" \
		--slurpfile tcp6 "$T/failover-tcp6.json" \
		'.compare = [$tcp[0], $mptcp[0], $tcp6[0]]' "$BENCH_DIR/failover.json" \
		>"$T/failover.json" || mrc_die "cannot sum up the failover"
	mv "$T/failover.json" "$BENCH_DIR/failover.json"
}

# bench_fabric6: IPv6 beside IPv4 on the fabric, for TCP over IPv6:
# h1 fd00:1::1, h2 fd00:2::1 (DST6), each leaf routing the other's over
# every spine.  The leaves hash IPv6 by fib_multipath_hash_policy 0:
# addresses, next header and flow label, the field a TCP socket changes
# (with net.core.txrehash, its default) when it times out.  Addresses
# without duplicate detection, usable at once.
DST6=fd00:2::1
bench_fabric6() {
	local i nh1="" nh2="" sys=() l1=() l2=()

	ip -n "$H1" -6 -b - <<-EOF || mrc_die "h1: IPv6"
		addr add fd00:1::1/64 dev vh nodad
		route add default via fd00:1::fe
	EOF
	ip -n "$H2" -6 -b - <<-EOF || mrc_die "h2: IPv6"
		addr add fd00:2::1/64 dev vh nodad
		route add default via fd00:2::fe
	EOF
	for ((i = 1; i <= NSPINES; i++)); do
		nh1+=" nexthop via fd01:$i::2 dev vs$i"
		nh2+=" nexthop via fd02:$i::2 dev vs$i"
		ip -n "${SP[i]}" -6 -b - <<-EOF || mrc_die "spine $i: IPv6"
			addr add fd01:$i::2/64 dev va nodad
			addr add fd02:$i::2/64 dev vb nodad
			route add fd00:1::/64 via fd01:$i::1
			route add fd00:2::/64 via fd02:$i::1
		EOF
		l1+=("addr add fd01:$i::1/64 dev vs$i nodad")
		l2+=("addr add fd02:$i::1/64 dev vs$i nodad")
		sys+=("netns exec ${SP[i]} sysctl -q -w net.ipv6.conf.all.forwarding=1")
	done
	l1+=("addr add fd00:1::fe/64 dev vh nodad" "route add fd00:2::/64$nh1")
	l2+=("addr add fd00:2::fe/64 dev vh nodad" "route add fd00:1::/64$nh2")
	printf '%s\n' "${l1[@]}" | ip -n "$L1" -6 -b - || mrc_die "l1: IPv6"
	printf '%s\n' "${l2[@]}" | ip -n "$L2" -6 -b - || mrc_die "l2: IPv6"
	for i in "$L1" "$L2"; do
		sys+=("netns exec $i sysctl -q -w net.ipv6.conf.all.forwarding=1 net.ipv6.fib_multipath_hash_policy=0")
	done
	sys+=("netns exec $H1 sysctl -q -w net.core.txrehash=1 net.ipv6.auto_flowlabels=1")
	printf '%s\n' "${sys[@]}" | ip -b - || mrc_die "IPv6 forwarding and hash"
}

# bench_tcp_rehash NS: TCP's timeouts in NS that gave its flow a new hash
# (TcpTimeoutRehash).
bench_tcp_rehash() {
	bench_mib "$1" netstat TcpExt: TcpTimeoutRehash
}

# bench_spine_busiest: the spine (1..NSPINES) that handed l2 the most
# bytes over the next half second; 1 if none did.
bench_spine_busiest() {
	ip netns exec "$L2" sh -c '
		r() { for i in $(seq 1 '"$NSPINES"'); do
			cat /sys/class/net/vs$i/statistics/rx_bytes; done; }
		a=$(r); sleep 0.5; b=$(r)
		printf "%s\n" $a $b' |
		awk -v n="$NSPINES" '{ v[NR] = $1 }
		END { k = 1; m = 0
		      for (i = 1; i <= n; i++)
			      if (v[n + i] - v[i] > m) { m = v[n + i] - v[i]; k = i }
		      print k }'
}

# bench_failover_run PROTO SPINE OUT: one stream of PROTO (mrc, tcp,
# mptcp, tcp6) from h1 to h2 through which spine SPINE fails and comes back (0:
# the spine the stream takes most, found 4 s before the failure: the
# one a TCP flow hashes to), its figures in OUT.
bench_failover_run() {
	local proto=$1 k=$2 out=$3
	# fail_at, fail_for, after and smp: bench_failover's, which calls it.
	local win=${BENCH_WINDOW_MS:-50} hold=${BENCH_HOLD_MS:-250} len srv cli samp crc src pj qp period
	local tf0 tf1 tr0 tr1 on1=0 nval=0 s bad_before mss cfg ts look qpt
	# shellcheck disable=SC2153 # selftests/fabric.sh sets DST
	local hdr=$BENCH_HDR rtx0=0 rtx1=0 srv_args=() cli_args=() dst=$DST
	local mproto=$proto rh0=0 rh1=0

	len=$((fail_at + fail_for + after))
	rm -f "$T/qp.json" "$T/qp.t" "$T/peer.json"
	case $proto in
	mrc)
		cfg=$(mrc_exec -n "$H1" -j config show) ||
			mrc_die "mrc config show"
		period=$(jq -r .reliability_probe_period_us <<<"$cfg")
		mss=$(jq -r .mss <<<"$cfg")
		srv_args=("${BENCH_BUFS[@]}")
		cli_args=(--timeout 60 "${BENCH_BUFS[@]}")
		;;
	tcp | mptcp | tcp6)
		period=null mss=$BENCH_TCP_MSS
		hdr=$BENCH_HDR_TCP
		[ "$proto" = mptcp ] && hdr=$BENCH_HDR_MPTCP
		if [ "$proto" = tcp6 ]; then
			mproto=tcp dst=$DST6 hdr=$BENCH_HDR_TCP6
			mss=$BENCH_TCP6_MSS srv_args=(-6)
		fi
		cli_args=(--proto "$mproto")
		rtx0=$(bench_tcp_retrans "$H1")
		rh0=$(bench_tcp_rehash "$H1")
		;;
	esac
	bench_stats "$H1" "$T/f1.0"
	bench_stats "$H2" "$T/f2.0"
	bench_spine_qdisc "$T/fq.0"
	bench_server "$H2" "$mproto" "$T/fsrv.out" "$T/fsrv.err" "${srv_args[@]}"
	srv=$BENCH_SRV
	[ "$k" -gt 0 ] && bench_tc_open "${SP[k]}" vb
	"$NETSAMPLE" -i "$smp" -d $((len + 60)) "$H2:vh" "$L2:vs1" "$L2:vs2" \
		"$L2:vs3" "$L2:vs4" >"$T/samples" 2>"$T/samples.err" &
	samp=$!
	mrc_sleep 0.5
	ip netns exec "$H1" "$MRCPERF" client "$dst" -p "$PORT" -j -s 1M -c 8 \
		-t "$len" "${cli_args[@]}" >"$T/fcli.out" 2>"$T/fcli.err" &
	cli=$!
	ts=$(bench_now)

	# 4 s before the failure (1 s into the stream at the least), the RTO
	# h1's queue pair would arm and its
	# destination state (which values it has: the spine of each is
	# asked after the stream, the fabric's hash being fixed).  In the
	# background: under TCG, with the transfer filling both CPUs, the
	# two commands can take seconds, and must not hold the failure
	# back; when each answered is kept, to tell if it was before.
	bench_sleep_until $((ts + (fail_at > 5 ? fail_at - 4 : 1) * 1000000))
	look=
	if [ "$proto" = mrc ]; then
		{
			mrc_exec -n "$H1" -j qp show >"$T/qp.json" 2>/dev/null
			bench_now >"$T/qp.t"
			peer_json "$H1" >"$T/peer.json"
		} &
		look=$!
	fi
	if [ "$k" = 0 ]; then
		k=$(bench_spine_busiest)
		bench_tc_open "${SP[k]}" vb
	fi
	bench_sleep_until $((ts + fail_at * 1000000))
	tf0=$(bench_now)
	bench_tc qdisc change dev vb parent 1:1 handle 10: netem \
		delay 2ms limit 10000 loss 100%
	tf1=$(bench_now)
	bench_say "failover $proto: spine $k failed at" \
		"$(((tf0 - ts) / 1000)) ms (tc took $(((tf1 - tf0) / 1000)) ms)"
	bench_sleep_until $((ts + (fail_at + fail_for) * 1000000))
	tr0=$(bench_now)
	bench_tc qdisc change dev vb parent 1:1 handle 10: netem \
		delay 2ms limit 10000
	tr1=$(bench_now)
	bench_say "failover $proto: spine $k back at" \
		"$(((tr0 - ts) / 1000)) ms (tc took $(((tr1 - tr0) / 1000)) ms)"

	mrc_wait_pid "$cli" $((len + 90)) || mrc_kill_pid "$cli"
	crc=$MRC_WAIT_RC
	if mrc_wait_pid "$srv" 30; then
		src=$MRC_WAIT_RC
	else
		src=timeout
		mrc_kill_pid "$srv"
	fi
	mrc_kill_pid "$samp"
	if [ -n "$look" ]; then
		mrc_wait_pid "$look" 30 || mrc_kill_pid "$look"
	fi
	qp=$(cat "$T/qp.json" 2>/dev/null)
	pj=$(cat "$T/peer.json" 2>/dev/null)
	qpt=$(cat "$T/qp.t" 2>/dev/null)
	bench_tc_close
	bench_stats "$H1" "$T/f1.1"
	bench_stats "$H2" "$T/f2.1"
	bench_spine_qdisc "$T/fq.1"
	if [ "$proto" != mrc ]; then
		rtx1=$(bench_tcp_retrans "$H1")
		rh1=$(bench_tcp_rehash "$H1")
	fi
	[ -s "$T/fcli.out" ] || echo null >"$T/fcli.out"
	[ -s "$T/fsrv.out" ] || echo null >"$T/fsrv.out"
	qp=$(jq -c '[.[] | {qpn, cwnd, inflight, srtt_us, base_rtt_us, reorder,
		      rto_us}]' <<<"$qp" 2>/dev/null)
	[ -n "$qp" ] || qp='[]'
	bad_before=$(jq -M -r '.[0].nr_bad // 0' <<<"$pj" 2>/dev/null)
	if [ "$proto" = mrc ]; then
		# shellcheck disable=SC2046 # a list of ports
		while read -r _ s; do
			nval=$((nval + 1))
			[ "$s" = "$k" ] && on1=$((on1 + 1))
		done < <(value_spines $(jq -M -r '.[0].values[].port' \
			<<<"$pj" 2>/dev/null))
	fi

	bench_failover_analyse "$T/samples" "$tf0" "$tf1" "$tr0" "$tr1" \
		$((win * 1000)) $((hold * 1000)) "$k" "$hdr" >"$T/analysis.json" ||
		mrc_die "cannot analyse the samples: $(head -c 300 "$T/samples.err")"

	bench_json "$out" \
		--slurpfile c "$T/fcli.out" --slurpfile s "$T/fsrv.out" \
		--slurpfile a "$T/analysis.json" \
		--rawfile cerr "$T/fcli.err" --rawfile serr "$T/fsrv.err" \
		--rawfile sampler "$T/samples.err" \
		--arg crc "$crc" --arg src "$src" --argjson qp "$qp" \
		--arg proto "$proto" --argjson spine "$k" --argjson hdr "$hdr" \
		--argjson tcp_rtx $((rtx1 - rtx0)) --argjson rehash $((rh1 - rh0)) \
		--argjson h1 "$(bench_stats_delta "$T/f1.0" "$T/f1.1")" \
		--argjson h2 "$(bench_stats_delta "$T/f2.0" "$T/f2.1")" \
		--argjson drops "$(bench_qdisc_drops "$T/fq.0" "$T/fq.1")" \
		--argjson period "${period:-null}" --argjson mss "${mss:-null}" \
		--argjson fabric "$BENCH_FABRIC_MBPS" \
		--argjson len "$len" --argjson fail_at "$fail_at" \
		--argjson fail_for "$fail_for" --argjson smp "$smp" \
		--argjson win "$win" --argjson hold "$hold" --argjson nval "$nval" --argjson on1 "$on1" \
		--argjson bad_before "${bad_before:-0}" \
		--argjson ts "$ts" --argjson qpt "${qpt:-0}" \
		--argjson tf0 "$tf0" --argjson tr0 "$tr0" '
		($c[0] // {}) as $c | ($s[0] // {}) as $s | $a[0] as $a |
		($qp | map(.rto_us) | max) as $rto |
		(if $proto == "mrc"
		 then ($h1.total_rtx_sack // 0) + ($h1.total_rtx_timeout // 0)
		 else $tcp_rtx end) as $rtx |
		{
			proto: $proto, failed_spine: $spine, header_bytes: $hdr,
			stream_seconds: $len, fail_at: $fail_at,
			fail_for: $fail_for, sample_ms: $smp, window_ms: $win,
			hold_ms: $hold,
			sampler: ($sampler | rtrimstr("\n")),
			fabric_mbps: $fabric,
			# mrc only: the destination state and queue pair.
			active_set: (if $proto == "mrc" then $nval else null end),
			values_on_spine1: (if $proto == "mrc" then $on1 else null end),
			bad_before_failure: (if $proto == "mrc" then $bad_before
					     else null end),
			failed_at_ms: (($tf0 - $ts) / 1000 | round),
			restored_at_ms: (($tr0 - $ts) / 1000 | round),
			qp_before_failure: $qp,
			qp_read_at_ms: (if $qpt > 0 then ($qpt - $ts) / 1000 | round
					else null end),
			qp_read_before_failure: ($qpt > 0 and $qpt < $tf0),
			rto_us: $rto, probe_period_us: $period,
			bound_ms: (if $rto and $period then (2 * $rto + $period) / 1000
				   else null end),
			client_rc: $crc, server_rc: $src,
			client: $c, server: $s,
			sent: ($c.messages // 0), verified: ($s.messages // 0),
			lost: (($c.messages // 0) - ($s.messages // 0)),
			errors: (($s.errors // 0) + ($c.errors // 0)),
			goodput_mbps: (if ($c.seconds // 0) > 0
				then ($s.bytes // 0) * 8 / $c.seconds / 1e6
				else 0 end),
			sampled_over_verified: (if ($s.bytes // 0) > 0
				then $a.payload_bytes / $s.bytes else null end),
			retransmitted_packets: $rtx,
			tcp_timeout_rehash: (if $proto == "mrc" then null
					     else $rehash end),
			retransmitted_bytes: ($rtx * $mss),
			spine_qdisc_drops: $drops,
			mrc_h1: $h1, mrc_h2: $h2,
			stderr: ([$cerr, $serr] | map(select(length > 0)) | join(""))
		} + ($a | del(.payload_bytes)) |
		.within_bound = (if .steady_fabric_ms != null and .bound_ms != null
			then .steady_fabric_ms <= .bound_ms else false end) |
		.ok = (.client_rc == "0" and .server_rc == "0" and .errors == 0
		       and .lost == 0 and .verified > 0)' ||
		mrc_die "cannot sum up the failover of $proto"
	bench_say "failover $proto: $(jq -M -r '
		def r: if . == null then "n/a" else . * 10 | round / 10 end;
		def t: if . == null then "never" else "+\(r) ms" end;
		"pre-failure \(.pre_mbps | r) Mbit/s, dip \(.dip_mbps | r) at " +
		"\(.dip_ms | t); back at 150 Mbit/s \(.back_fabric_ms | t), at 3/4 " +
		"of pre \(.back_pre_ms | t) (steadily: \(.steady_fabric_ms | t), " +
		"\(.steady_pre_ms | t)); " +
		(if .bound_ms then "bound 2 RTO + probe period " +
		 "\(.bound_ms | r) ms (RTO \(.rto_us) us); " else "" end) +
		"spine \(.failed_spine) back " +
		"\(.spine_back_first_ms | t) (first packet), " +
		"\(.spine_back_data_ms | t) (data); retransmitted " +
		"\(.retransmitted_packets) packets; \(.verified) messages " +
		"verified, \(.lost) lost, \(.errors) corrupted" +
		(if .ok then "" else " -- FAILED: client \(.client_rc), server " +
		 "\(.server_rc) \(.stderr[:200])" end)' "$out")"
}

# bench_failover_analyse SAMPLES TF0 TF1 TR0 TR1 WINDOW_US HOLD_US SPINE
# HDR: the figures of the failover of spine SPINE out of netsample's
# lines (t, then rx_bytes and rx_packets of h2's vh and of l2's
# vs1..vs4), h2's goodput its bytes less HDR a packet, as one JSON
# object.  Times in microseconds, CLOCK_REALTIME; rates in Mbit/s (bits
# per us).  "s1" in the names below is the failed spine.
bench_failover_analyse() {
	awk -v tf0="$2" -v tf1="$3" -v tr0="$4" -v tr1="$5" -v W="$6" -v H="$7" \
		-v fk="$8" -v hdr="$9" -v fabric="$BENCH_FABRIC_MBPS" '
	function num(x) { return x == "" ? "null" : sprintf("%.1f", x) }
	# Goodput over the window ending at sample i (j: its first sample);
	# "" when the samples do not cover half a window.
	function rate(i,  j) {
		j = first[i]
		if (t[i] - t[j] < W / 2) return ""
		return (g[i] - g[j]) * 8 / (t[i] - t[j])
	}
	# The rate of series x between times a and b (nearest samples).
	function span(x, a, b,  i, j) {
		for (i = 1; i < n && t[i] < a; i++) ;
		for (j = i; j < n && t[j + 1] <= b; j++) ;
		if (t[j] <= t[i]) return ""
		return (x[j] - x[i]) * 8 / (t[j] - t[i])
	}
	{
		n++; t[n] = $1; g[n] = $2 - hdr * $3
		s1p[n] = $(3 + 2 * fk)
		for (k = 1; k <= 4; k++) sb[k, n] = $(2 + 2 * k)
		s1b[n] = $(2 + 2 * fk)
	}
	END {
		if (n < 10) { print "too few samples" > "/dev/stderr"; exit 1 }
		j = 1
		for (i = 1; i <= n; i++) {
			while (t[j] < t[i] - W) j++
			first[i] = j
		}
		# The failure: the sample before spine 1 last moved, before
		# the restore; not before the tc command began.
		last = 0
		for (i = 2; i <= n && t[i] < tr0; i++)
			if (s1p[i] > s1p[i - 1]) last = i
		tf = (last > 1) ? t[last - 1] : tf0
		if (tf < tf0) tf = tf0
		pre = span(g, tf - 3000000, tf)
		s1pre = span(s1b, tf - 3000000, tf)
		tot = 0
		for (k = 1; k <= 4; k++) {
			for (k2 = 1; k2 <= n; k2++) x[k2] = sb[k, k2]
			r = span(x, tf - 3000000, tf)
			if (r != "") tot += r
		}
		s1share = (tot > 0 && s1pre != "") ? s1pre / tot : 0
		# The dip: the lowest window wholly after the failure, in
		# the 2 s after it (and before the restore).
		dip = ""; di = 0
		for (i = 1; i <= n; i++) {
			if (t[first[i]] < tf || t[i] > tr0 || t[i] > tf + 2000000)
				continue
			r = rate(i)
			if (r != "" && (dip == "" || r < dip)) { dip = r; di = i }
		}
		thr[1] = fabric * 3 / 4; thr[2] = pre * 3 / 4
		for (k = 1; k <= 2; k++) {
			back[k] = ""
			if (di == 0) continue
			if (dip >= thr[k]) { back[k] = 0; continue }
			for (i = di; i <= n && t[i] <= tr0; i++) {
				r = rate(i)
				if (r != "" && r >= thr[k]) {
					back[k] = (t[i] - tf) / 1000
					break
				}
			}
		}
		# Steadily back: the first moment after the dip from which
		# the goodput over the next H us is at the mark (a single
		# window can be a burst, or the jitter of an emulated clock).
		for (k = 1; k <= 2; k++) {
			steady[k] = ""
			if (di == 0) continue
			e = di
			for (i = di; i <= n && t[i] <= tr0; i++) {
				while (e < n && t[e] < t[i] + H) e++
				if (t[e] > tr0 || t[e] - t[i] < H / 2) break
				if ((g[e] - g[i]) * 8 / (t[e] - t[i]) >= thr[k]) {
					steady[k] = (t[i] - tf) / 1000
					break
				}
			}
		}
		# Share of the windows from there to the restore at or
		# above the mark: did it stay back?
		for (k = 1; k <= 2; k++) {
			held[k] = ""
			if (back[k] == "") continue
			m = 0; c = 0
			for (i = 1; i <= n && t[i] <= tr0; i++) {
				if (t[i] < tf + back[k] * 1000) continue
				r = rate(i)
				if (r == "") continue
				c++; if (r >= thr[k]) m++
			}
			if (c) held[k] = m / c
		}
		during = span(g, tf + 1000000, tr0)
		after = span(g, tr1 + 1000000, t[n] - 500000)
		# Spine 1 again: its first packet, and its first window with
		# half the share of the bytes it had before the failure.
		sfirst = ""; sdata = ""
		for (i = 2; i <= n; i++) {
			if (t[i] <= tr0) continue
			if (sfirst == "" && s1p[i] > s1p[i - 1])
				sfirst = (t[i] - tr0) / 1000
			j = first[i]
			tot = 0
			for (k = 1; k <= 4; k++) tot += sb[k, i] - sb[k, j]
			if (sdata == "" && t[i] - t[j] >= W / 2 && s1share > 0 &&
			    tot > 0 && (s1b[i] - s1b[j]) / tot >= s1share / 2) {
				sdata = (t[i] - tr0) / 1000
				break
			}
		}
		# The series, one window a point, for plotting: ms from the
		# failure, h2 goodput, then each spine (wire bytes).
		ser = ""; b = 1
		for (i = 2; i <= n; i++) {
			if (t[i] - t[b] < W && i < n) continue
			d = t[i] - t[b]
			pt = sprintf("[%d,%.1f", (t[i] - tf) / 1000,
				     (g[i] - g[b]) * 8 / d)
			for (k = 1; k <= 4; k++)
				pt = pt sprintf(",%.1f", (sb[k, i] - sb[k, b]) * 8 / d)
			ser = ser (ser == "" ? "" : ",") pt "]"
			b = i
		}
		printf "{\"failure_detected_ms\":%s,\"tc_fail_ms\":%s,", \
			num((tf - tf0) / 1000), num((tf1 - tf0) / 1000)
		printf "\"tc_restore_ms\":%s,\"restore_ms\":%s,", \
			num((tr1 - tr0) / 1000), num((tr0 - tf) / 1000)
		printf "\"pre_mbps\":%s,\"dip_mbps\":%s,\"dip_ms\":%s,", \
			num(pre), num(dip), di ? num((t[di] - tf) / 1000) : "null"
		printf "\"mark_fabric_mbps\":%s,\"mark_pre_mbps\":%s,", \
			num(thr[1]), num(thr[2])
		printf "\"back_fabric_ms\":%s,\"back_pre_ms\":%s,", \
			num(back[1]), num(back[2])
		printf "\"steady_fabric_ms\":%s,\"steady_pre_ms\":%s,", \
			num(steady[1]), num(steady[2])
		printf "\"held_fabric\":%s,\"held_pre\":%s,", \
			held[1] == "" ? "null" : sprintf("%.2f", held[1]), \
			held[2] == "" ? "null" : sprintf("%.2f", held[2])
		printf "\"during_mbps\":%s,\"after_mbps\":%s,", \
			num(during), num(after)
		printf "\"spine_back_first_ms\":%s,\"spine_back_data_ms\":%s,", \
			num(sfirst), num(sdata)
		printf "\"spine1_share_pre\":%.3f,", s1share
		printf "\"payload_bytes\":%d,\"series_columns\":[\"ms\",", \
			g[n] - g[1]
		printf "\"h2_mbps\",\"s1_mbps\",\"s2_mbps\",\"s3_mbps\",\"s4_mbps\"],"
		printf "\"series\":[%s]}\n", ser
	}' "$1"
}
