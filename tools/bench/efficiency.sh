# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2016 # jq programs
#
# Efficiency and latency on one link (issue #15 item 5, the figures of
# issue #16): one veth pair, MTU 9000, no rate limit, no delay, between
#
#   mrc   two namespaces (mrc_client_server), mrcperf;
#   tcp   the same two namespaces, mrcperf --proto tcp;
#   rxe   SoftRoCE, Linux's RoCEv2: rdma_rxe on each end of a veth pair
#         in the initial namespace (rxe's data path works there alone on
#         6.1), perftest's ib_send_bw and ib_send_lat.  Both addresses
#         are then local: rules looked up before the local table send
#         what each end's programs send to the other's address out of
#         its own veth (iif lo: only packets sent here), and
#         accept_local takes it in at the other end.
#
# Goodput: 1 MiB messages (RDMA SENDs of 1 MiB for rxe), 4 in flight;
# CPU time per GB: the VM's busy time (/proc/stat: user, nice, system,
# irq and softirq; both ends together) over the bytes moved, in seconds
# a GB; ib_send_bw waits for completions by event (-e), as mrcperf
# sleeps in poll(), rather than spinning a CPU.  Latency: 64-byte
# messages one at a time, each answered (mrcperf: a 16-byte response)
# and timed to the answer: mrcperf's p50 and p99 round trip;
# ib_send_lat's (64 bytes both ways) typical and 99th percentile, which
# it reports as half a round trip, doubled.
# Sourced by run.sh; bench_efficiency leaves $BENCH_DIR/efficiency.json.
#
#   BENCH_T   seconds of each transfer (default 10, QUICK=1: 4)
#   BENCH_R   repetitions (default 3, QUICK=1: 1)

# bench_busy: the VM's busy CPU time so far, in clock ticks: user,
# nice, system, irq and softirq (not idle, iowait or steal).
bench_busy() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# bench_eff_xfer NAME PROTO SECONDS ARGS...: one mrcperf run from C to S,
# its client's JSON in $BENCH_DIR/NAME.json with busy_s (the VM's busy
# seconds over it) and ok.
bench_eff_xfer() {
	local name=$1 proto=$2 secs=$3 srv cli crc src b0 b1 hz

	shift 3
	hz=$(getconf CLK_TCK)
	bench_server "$S" "$proto" "$T/esrv.out" "$T/esrv.err" "${BENCH_BUFS[@]}"
	srv=$BENCH_SRV
	b0=$(bench_busy)
	ip netns exec "$C" "$MRCPERF" client "$MRC_IP4_B" -p "$PORT" \
		--proto "$proto" -j -t "$secs" --timeout 60 "${BENCH_BUFS[@]}" \
		"$@" >"$T/ecli.out" 2>"$T/ecli.err" &
	cli=$!
	mrc_wait_pid "$cli" $((secs + 90)) || mrc_kill_pid "$cli"
	crc=$MRC_WAIT_RC
	b1=$(bench_busy)
	if mrc_wait_pid "$srv" 30; then
		src=$MRC_WAIT_RC
	else
		src=timeout
		mrc_kill_pid "$srv"
	fi
	[ -s "$T/ecli.out" ] || echo null >"$T/ecli.out"
	[ -s "$T/esrv.out" ] || echo null >"$T/esrv.out"
	bench_json "$BENCH_DIR/$name.json" --arg name "$name" \
		--arg crc "$crc" --arg src "$src" \
		--slurpfile c "$T/ecli.out" --slurpfile s "$T/esrv.out" \
		--rawfile err "$T/ecli.err" \
		--argjson busy "$(((b1 - b0) * 1000 / hz))" '
		($c[0] // {}) as $c | ($s[0] // {}) as $s |
		{
			name: $name, client: $c, server: $s,
			bytes: ($s.bytes // 0), seconds: ($c.seconds // 0),
			goodput_mbps: (if ($c.seconds // 0) > 0
				then ($s.bytes // 0) * 8 / $c.seconds / 1e6
				else 0 end),
			busy_s: ($busy / 1000),
			lat_p50_us: $c.lat_us.p50, lat_p99_us: $c.lat_us.p99,
			ok: ($crc == "0" and $src == "0" and
			     ($s.errors // 1) == 0 and ($s.messages // 0) > 0 and
			     ($s.messages // 0) == ($c.messages // -1)),
			stderr: $err
		} |
		.cpu_s_per_gb = (if .bytes > 0 then .busy_s / (.bytes / 1e9)
				 else null end)'
}

# bench_rxe_gid DEV ADDR_HEX: the index of DEV's RoCE v2 GID of the IPv4
# address whose last 32 bits are ADDR_HEX ("0a08:0001"), once the kernel
# has made it (5 s at most); 1 if it does not.
bench_rxe_gid() {
	local d=/sys/class/infiniband/$1/ports/1 t g i

	for ((t = 0; t < 50; t++)); do
		while read -r g; do
			i=${g##*/}
			if [ "$(cat "$d/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ]; then
				echo "$i"
				return 0
			fi
		done < <(grep -lx "0000:0000:0000:0000:0000:ffff:$2" \
			 "$d"/gids/* 2>/dev/null)
		mrc_sleep 0.1
	done
	return 1
}

# bench_rxe_up: the rxe pair (rxe-a on veth ra 10.8.0.1, rxe-b on rb
# 10.8.0.2) in the initial namespace, and its routing; RXE_GID_A and
# RXE_GID_B, the RoCE v2 GID indexes of their addresses.  1 if rxe
# cannot be had; bench_rxe_down undoes what was done, at exit too.
bench_rxe_up() {
	command -v ib_send_bw >/dev/null && command -v ib_send_lat >/dev/null &&
		command -v rdma >/dev/null || return 1
	modprobe -q -a rdma_rxe ib_uverbs 2>/dev/null || return 1
	RXE_RP=$(sysctl -n net.ipv4.conf.all.rp_filter)
	mrc_at_exit bench_rxe_down
	ip -b - <<-EOF || return 1
		link add ra mtu 9000 type veth peer name rb mtu 9000
		addr add 10.8.0.1/24 dev ra
		addr add 10.8.0.2/24 dev rb
		link set ra up
		link set rb up
		rule add pref 10 iif lo from 10.8.0.1 to 10.8.0.2 lookup 108
		rule add pref 10 iif lo from 10.8.0.2 to 10.8.0.1 lookup 109
		route add 10.8.0.2 dev ra table 108
		route add 10.8.0.1 dev rb table 109
		rule add pref 100 lookup local
		rule del pref 0 lookup local
	EOF
	sysctl -q -w net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.ra.rp_filter=0 \
		net.ipv4.conf.rb.rp_filter=0 net.ipv4.conf.ra.accept_local=1 \
		net.ipv4.conf.rb.accept_local=1 || return 1
	rdma link add rxe-a type rxe netdev ra || return 1
	rdma link add rxe-b type rxe netdev rb || return 1
	RXE_GID_A=$(bench_rxe_gid rxe-a 0a08:0001) || return 1
	RXE_GID_B=$(bench_rxe_gid rxe-b 0a08:0002) || return 1
}

# bench_rxe_down: the rxe pair and its routing gone, the local table
# back first; rp_filter as it was.  Once: again (at exit), nothing.
bench_rxe_down() {
	[ -n "${RXE_RP:-}" ] || return 0
	rdma link del rxe-a 2>/dev/null
	rdma link del rxe-b 2>/dev/null
	ip -force -b - <<-EOF 2>/dev/null
		rule add pref 0 lookup local
		rule del pref 100 lookup local
		rule del pref 10 lookup 108
		rule del pref 10 lookup 109
		link del ra
	EOF
	sysctl -q -w net.ipv4.conf.all.rp_filter="$RXE_RP"
	RXE_RP=
}

# bench_ra_tx: bytes veth ra has sent, rxe-a's way out.
bench_ra_tx() {
	ip -s -j link show ra | jq '.[0].stats64.tx.bytes // 0'
}

# bench_rxe NAME TOOL SECONDS ARGS...: perftest's TOOL between rxe-b
# (server) and rxe-a, for SECONDS (-D) or as ARGS say; its output, the
# VM's busy seconds over it and the bytes ra sent in $BENCH_DIR/NAME.json,
# the figures of its result line in .line (the numbers in order).
bench_rxe() {
	local name=$1 tool=$2 secs=$3 srv b0 b1 hz crc src i tx0 tx1

	shift 3
	hz=$(getconf CLK_TCK)
	"$tool" -d rxe-b -x "$RXE_GID_B" -F "$@" >"$T/rsrv.out" 2>&1 &
	srv=$!
	# Its client tries to connect once: wait for the listener.
	for ((i = 0; i < 100; i++)); do
		ss -Htln 'sport = :18515' | grep -q . && break
		mrc_sleep 0.1
	done
	tx0=$(bench_ra_tx)
	b0=$(bench_busy)
	timeout $((secs + 60)) "$tool" -d rxe-a -x "$RXE_GID_A" -F "$@" 10.8.0.2 \
		>"$T/rcli.out" 2>&1
	crc=$?
	b1=$(bench_busy)
	tx1=$(bench_ra_tx)
	if mrc_wait_pid "$srv" 20; then
		src=$MRC_WAIT_RC
	else
		src=timeout
		mrc_kill_pid "$srv"
	fi
	bench_json "$BENCH_DIR/$name.json" --arg name "$name" \
		--arg crc "$crc" --arg src "$src" \
		--rawfile out "$T/rcli.out" --argjson tx "$((tx1 - tx0))" \
		--argjson busy "$(((b1 - b0) * 1000 / hz))" '
		# The result: the line after the one of the column names.
		($out | split("\n")) as $l |
		([range($l | length) | select($l[.] | test("^ *#bytes"))] |
		 last) as $h |
		{
			name: $name, ok: ($crc == "0" and $src == "0" and $h != null),
			busy_s: ($busy / 1000), veth_tx_bytes: $tx,
			columns: (if $h then $l[$h] |
				  [scan("[^ ]+(?: [a-z]+\\[[^\\]]*\\])?")]
				  else null end),
			line: (if $h then $l[$h + 1] | [scan("[0-9.]+") | tonumber]
			       else null end),
			output: $out
		}'
}

bench_efficiency() {
	local t=${BENCH_T:-10} reps=${BENCH_R:-3} r rxe=1 f dump

	[ "${QUICK:-0}" = 1 ] && t=${BENCH_T:-4} reps=${BENCH_R:-1}
	dump=$MRC_DUMP_NS
	mrc_client_server
	# No MTU of 9000 for mrc without the MSS to use it: 8192.
	mrc_exec -n "$C" config set mss 8192 || mrc_die "mss 8192 in $C"
	mrc_exec -n "$S" config set mss 8192 || mrc_die "mss 8192 in $S"
	if ! bench_rxe_up; then
		bench_say "efficiency: no SoftRoCE (rdma_rxe, perftest): its cases skipped"
		bench_rxe_down
		rxe=0
	fi
	bench_say "efficiency: mrc, TCP$([ $rxe = 1 ] && echo " and SoftRoCE")" \
		"on one veth (MTU 9000, no limit), $reps repetitions x $t s"
	for ((r = 1; r <= reps; r++)); do
		bench_eff_xfer "eff-mrc-bw-$r" mrc "$t" -s 1M -c 4
		bench_eff_xfer "eff-tcp-bw-$r" tcp "$t" -s 1M -c 4
		bench_eff_xfer "eff-mrc-lat-$r" mrc "$t" -s 64 -c 1
		bench_eff_xfer "eff-tcp-lat-$r" tcp "$t" -s 64 -c 1
		if [ $rxe = 1 ]; then
			# SENDs, not WRITEs: perftest takes completions by
			# event (-e), as mrcperf sleeps in poll(), rather
			# than by a CPU spinning on the queue, for SENDs only.
			# Iterations, not -D, which events exclude: about
			# $t s at what rxe moves under TCG.
			bench_rxe "eff-rxe-bw-$r" ib_send_bw "$t" -s 1048576 \
				-t 4 -n $((t * 40)) -e --report_gbits
			bench_rxe "eff-rxe-lat-$r" ib_send_lat "$t" -s 64 -n 20000
		fi
		for f in mrc-bw tcp-bw mrc-lat tcp-lat; do
			bench_say "efficiency $f run $r/$reps: $(jq -M -r '
				"\(.goodput_mbps * 10 | round / 10) Mbit/s, " +
				"\(.busy_s) CPU s, \(.cpu_s_per_gb // "n/a" |
				if type == "number" then . * 100 | round / 100
				else . end) CPU s a GB, p50 \(.lat_p50_us) us," +
				" p99 \(.lat_p99_us) us" +
				(if .ok then "" else " -- FAILED: \(.stderr[:200])"
				 end)' "$BENCH_DIR/eff-$f-$r.json")"
		done
		if [ $rxe = 1 ]; then
			for f in rxe-bw rxe-lat; do
				bench_say "efficiency $f run $r/$reps: $(jq -M -r '
					"\(.columns // [] | join(" | ")): " +
					"\(.line // [] | map(tostring) | join(" | "))" +
					", \(.busy_s) CPU s, \(.veth_tx_bytes)" +
					" bytes out of veth ra" +
					(if .ok then "" else " -- FAILED: " +
					 (.output[-300:]) end)' \
					"$BENCH_DIR/eff-$f-$r.json")"
			done
		fi
	done
	[ $rxe = 0 ] || bench_rxe_down
	MRC_DUMP_NS=$dump

	jq -s --argjson t "$t" --argjson reps "$reps" --argjson rxe "$rxe" '
		def med: sort | if length == 0 then null
			elif length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def runs($n): map(select(.name | test("^eff-\($n)-[0-9]+$")));
		def stat(f): map(f | numbers) | {median: med, min: min, max: max, runs: .};
		# A perftest result by its column name.
		def col($c): . as $x | ($x.columns // []) | index([$c]) as $i |
			if $i == null then null else $x.line[$i] end;
		. as $all |
		{
			seconds: $t, repetitions: $reps, rxe_measured: ($rxe == 1),
			mrc: {
				goodput_mbps: ($all | runs("mrc-bw") | stat(.goodput_mbps)),
				cpu_s_per_gb: ($all | runs("mrc-bw") | stat(.cpu_s_per_gb)),
				lat_p50_us: ($all | runs("mrc-lat") | stat(.lat_p50_us)),
				lat_p99_us: ($all | runs("mrc-lat") | stat(.lat_p99_us)),
				ok: ($all | runs("mrc-(bw|lat)") | all(.ok))
			},
			tcp: {
				goodput_mbps: ($all | runs("tcp-bw") | stat(.goodput_mbps)),
				cpu_s_per_gb: ($all | runs("tcp-bw") | stat(.cpu_s_per_gb)),
				lat_p50_us: ($all | runs("tcp-lat") | stat(.lat_p50_us)),
				lat_p99_us: ($all | runs("tcp-lat") | stat(.lat_p99_us)),
				ok: ($all | runs("tcp-(bw|lat)") | all(.ok))
			},
			rxe: (if $rxe == 1 then {
				goodput_mbps: ($all | runs("rxe-bw") |
					stat(col("BW average[Gb/sec]") | if . then . * 1000 else null end)),
				cpu_s_per_gb: ($all | runs("rxe-bw") |
					stat(. as $x | ((col("#bytes") // 0) *
					     (col("#iterations") // 0) / 1e9) as $gb |
					     if $gb > 0 then $x.busy_s / $gb else null end)),
				lat_p50_us: ($all | runs("rxe-lat") |
					stat(col("t_typical[usec]") | if . then . * 2 else null end)),
				lat_p99_us: ($all | runs("rxe-lat") |
					stat(col("99% percentile[usec]") | if . then . * 2 else null end)),
				# Over the veth, not through lo: ra sent at least
				# 90 % of what ib_send_bw says it moved.
				over_veth: ($all | runs("rxe-bw") | all(. as $x |
					((col("#bytes") // 0) * (col("#iterations") // 0)) as $b |
					$x.veth_tx_bytes >= 0.9 * $b)),
				ok: ($all | runs("rxe-(bw|lat)") | all(.ok))
			} | .ok = (.ok and .over_veth) else null end),
			runs: $all
		}' "$BENCH_DIR"/eff-*-*.json >"$BENCH_DIR/efficiency.json" ||
		mrc_die "cannot sum up the efficiency runs"
	bench_say "efficiency: $(jq -M -r '[("mrc", "tcp", "rxe") as $p |
		.[$p] | select(. != null) |
		"\($p) \(.goodput_mbps.median // 0 | round) Mbit/s," +
		" \(.cpu_s_per_gb.median // 0 | . * 100 | round / 100) CPU s a GB," +
		" 64 B round trip p50 \(.lat_p50_us.median) us" +
		" p99 \(.lat_p99_us.median) us"] | join("; ")' \
		"$BENCH_DIR/efficiency.json")"
}
