# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2016 # jq programs
#
# Goodput on the ECMP fabric (issue #12): one mrc socket sending 1 MiB
# messages against one TCP flow measured in the same run, 16 TCP flows,
# and one mrc socket with spraying none (one path, as TCP has).  Sourced
# by run.sh; bench_goodput leaves $BENCH_DIR/goodput.json.
#
#   BENCH_T   seconds of each transfer (default 10, QUICK=1: 5)
#   BENCH_R   repetitions of the whole set (default 3, QUICK=1: 1)
#
# Each repetition runs every case once, in turn, so that a change in what
# else the machine is doing falls on all of them; the ratio of mrc to one
# TCP flow is taken within each repetition, then its median reported.
# Goodput is what mrcperf's server verified, byte by byte, over the
# client's time from its first send to its last message acknowledged.

# "NAME PROTO [KEY VALUE...]|DESCRIPTION|CLIENT_ARGS": KEY VALUE pairs,
# mrc's configuration for the case ("mrc config set" on both hosts, over
# its defaults).  The fabric's links have an MTU of 9000, where TCP's MSS
# is 8948: mrc9k gives mrc packets of that order too, against its
# default MSS of 4096.
BENCH_GOODPUT_CASES=(
	"mrc mrc spraying default mss 4096|one mrc socket, 1 MiB messages, 8 in flight|-s 1M -c 8 --rcvbuf 16M --sndbuf 16M"
	"tcp tcp|one TCP flow|-s 1M -c 8"
	"tcp16 tcp|16 TCP flows (-P 16)|-s 1M -c 8 -P 16"
	"mrc-none mrc spraying none mss 4096|one mrc socket, spraying none|-s 1M -c 8 --rcvbuf 16M --sndbuf 16M"
	"mrc9k mrc spraying default mss 8192|one mrc socket, mss 8192 (the links' MTU is 9000)|-s 1M -c 8 --rcvbuf 16M --sndbuf 16M"
)

bench_goodput() {
	local t=${BENCH_T:-10} reps=${BENCH_R:-3} r c name proto cfg
	local args applied="spraying default mss 4096" f line

	[ "${QUICK:-0}" = 1 ] && t=${BENCH_T:-5} reps=${BENCH_R:-1}
	bench_say "goodput: ${#BENCH_GOODPUT_CASES[@]} cases x $reps" \
		"repetitions x $t s on 4 x 50 Mbit/s spines"
	for ((r = 1; r <= reps; r++)); do
		for c in "${BENCH_GOODPUT_CASES[@]}"; do
			IFS='|' read -r line _ args <<<"$c"
			read -r name proto cfg <<<"$line"
			if [ -n "$cfg" ] && [ "$cfg" != "$applied" ]; then
				# shellcheck disable=SC2086 # KEY VALUE pairs
				bench_config $cfg
				applied=$cfg
			fi
			f=goodput-$name-$r
			# shellcheck disable=SC2086 # options, split on purpose
			bench_xfer "$f" "$proto" "$t" $args
			bench_say "goodput $name run $r/$reps: $(jq -M -r '
				"\(.goodput_mbps * 10 | round / 10) Mbit/s, " +
				"\(.verified) messages verified, \(.lost) lost, " +
				"\(.errors) corrupted" +
				(if .ok then "" else " -- FAILED: client \(.client_rc)," +
				 " server \(.server_rc) \(.stderr[:200])" end) +
				(if .mrc_h1 then ", rtx \(.mrc_h1.total_rtx_sack)" +
				 " sack + \(.mrc_h1.total_rtx_timeout) timeout of " +
				 "\(.mrc_h1.tx_data_packets) data packets" else "" end) +
				(if .tcp_retrans_segs != null then
				 ", \(.tcp_retrans_segs) TCP segments resent" else "" end) +
				", spine drops \(.spine_qdisc_drops)"' \
				"$BENCH_DIR/$f.json")"
			mrc_sleep 1
		done
	done
	[ "$applied" = "spraying default mss 4096" ] ||
		bench_config spraying default mss 4096

	jq -s --argjson t "$t" --argjson reps "$reps" \
		--argjson fabric "$BENCH_FABRIC_MBPS" '
		def med: sort | if length == 0 then null
			elif length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def by($n): map(select(.name | test("^goodput-\($n)-[0-9]+$"))) |
			sort_by(.name | split("-")[-1] | tonumber);
		. as $all |
		{
			seconds: $t, repetitions: $reps,
			fabric_mbps: $fabric,
			cases: [$ARGS.positional[] | split("|") as [$k, $d, $a] |
				($k | split(" ")[0]) as $n | ($all | by($n)) as $runs |
				($runs | map(.goodput_mbps)) as $g |
				{
					name: $n, description: $d, client_args: $a,
					config: ($k | split(" ")[2:] | join(" ")),
					spraying: ($k | split(" ") |
						(index("spraying") // null) as $i |
						if $i then .[$i + 1] else null end),
					goodput_mbps: {median: ($g | med),
						min: ($g | min), max: ($g | max), runs: $g},
					fabric_utilisation: (($g | med) / $fabric),
					verified: ($runs | map(.verified) | add),
					lost: ($runs | map(.lost) | add),
					errors: ($runs | map(.errors) | add),
					ok: ($runs | all(.ok)),
					runs: $runs
				}],
		} |
		(.cases | map({(.name): .goodput_mbps.runs}) | add) as $c |
		.mrc_over_tcp = {
			runs: [range($reps) as $i |
				if ($c.tcp[$i] // 0) > 0
				then $c.mrc[$i] / $c.tcp[$i] else null end],
			goal: 3
		} |
		.mrc_over_tcp.median = (.mrc_over_tcp.runs | map(numbers) | med) |
		.mrc9k_over_tcp = {
			runs: [range($reps) as $i |
				if ($c.tcp[$i] // 0) > 0 and $c.mrc9k != null
				then $c.mrc9k[$i] / $c.tcp[$i] else null end],
			goal: 3
		} |
		.mrc9k_over_tcp.median = (.mrc9k_over_tcp.runs | map(numbers) | med)
		' "$BENCH_DIR"/goodput-*-*.json \
		--args "${BENCH_GOODPUT_CASES[@]}" >"$BENCH_DIR/goodput.json" ||
		mrc_die "cannot sum up the goodput runs"
	bench_say "goodput: mrc / one TCP flow $(jq -M -r '
		.mrc_over_tcp | "\(.median // "n/a" | if type == "number" then
		. * 100 | round / 100 else . end) x (runs: \(.runs |
		map(if . then . * 100 | round / 100 else "n/a" end) |
		join(", "))), goal \(.goal) x"' "$BENCH_DIR/goodput.json");" \
		"with mss 8192 $(jq -M -r '.mrc9k_over_tcp.median // "n/a" |
		if type == "number" then . * 100 | round / 100 else . end' \
		"$BENCH_DIR/goodput.json") x"
}
