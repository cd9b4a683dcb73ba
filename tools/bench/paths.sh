# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2016,SC2034 # jq programs; fabric.sh's variables
#
# Path utilisation (issue #15, item 2): on fabrics of N = 1, 2, 4 and 8
# equal-cost paths, each spine's link toward h2 shaped to the same rate
# (tbf) with 2 ms of delay each way, the goodput of
#
#   mrc       one mrc socket, 1 MiB messages, 8 in flight;
#   mrc-none  the same with spraying none (one path, as TCP has);
#   tcp       one TCP flow;
#   tcpN      N TCP flows (-P N), which ECMP spreads as it can;
#   tcp16     16 TCP flows;
#   mptcp     one MPTCP connection with a subflow on each path: h1 gets
#             an address per spine, l1 routes each address's packets to
#             its spine (ip rule from ADDR lookup TABLE) and l2 the way
#             back, and h1 has an MPTCP endpoint per address but the
#             first (ip mptcp endpoint ... subflow), whose subflows join
#             the first, pinned to spine 1.  Left to ECMP they collide.
#
# over N x rate.  Each N is a fabric of its own (selftests/fabric.sh),
# built when its turn comes and deleted after; the fabric the other
# benchmarks use is left as it was.  Sourced by run.sh; bench_paths
# leaves $BENCH_DIR/paths.json.
#
#   BENCH_PATHS      the path counts (default "1 2 4 8"; QUICK=1: "2 8")
#   BENCH_PATH_MBIT  each path's rate, Mbit/s (default 25: 8 paths make
#                    200 Mbit/s, within what one VM moves under TCG)
#   BENCH_T          seconds of each transfer (default 10, QUICK=1: 4)
#   BENCH_R          repetitions (default 3, QUICK=1: 1)

# "NAME PROTO [KEY VALUE...]|DESCRIPTION|CLIENT_ARGS", as goodput.sh's;
# @N in CLIENT_ARGS is the fabric's path count.
BENCH_PATHS_CASES=(
	"mrc mrc spraying default|one mrc socket, 1 MiB messages, 8 in flight|-s 1M -c 8 --rcvbuf 16M --sndbuf 16M"
	"mrc-none mrc spraying none|one mrc socket, spraying none|-s 1M -c 8 --rcvbuf 16M --sndbuf 16M"
	"tcp tcp|one TCP flow|-s 1M -c 8"
	"tcpN tcp|N TCP flows (-P N)|-s 1M -c 8 -P @N"
	"tcp16 tcp|16 TCP flows (-P 16)|-s 1M -c 8 -P 16"
	"mptcp mptcp|one MPTCP connection, a subflow per path|-s 1M -c 8"
)

# bench_paths_mptcp on|off N: the per-path addresses, rules and MPTCP
# endpoints of the mptcp case on the fabric of N spines, or none.
bench_paths_mptcp() {
	local n=$2 i a h1=() l1=() l2=() op=add

	[ "$1" = on ] || op=del
	for ((i = 1; i <= n; i++)); do
		# h1's first address, 10.0.1.1, is spine 1's; 10.0.1.1i the
		# others'.
		a=10.0.1.1$i
		[ "$i" = 1 ] && a=10.0.1.1
		l1+=("rule $op from $a lookup $((100 + i))")
		l2+=("rule $op to $a lookup $((100 + i))")
		if [ "$op" = add ]; then
			l1+=("route add 10.0.2.0/24 via 10.1.$i.2 dev vs$i table $((100 + i))")
			l2+=("route add $a via 10.2.$i.2 dev vs$i table $((100 + i))")
		else
			l1+=("route flush table $((100 + i))")
			l2+=("route flush table $((100 + i))")
		fi
		[ "$i" = 1 ] && continue
		if [ "$op" = add ]; then
			h1+=("addr add $a/24 dev vh" "mptcp endpoint add $a dev vh subflow")
		else
			h1+=("addr del $a/24 dev vh")
		fi
	done
	if [ "$op" = del ]; then
		h1=("mptcp endpoint flush" "${h1[@]}")
	else
		h1+=("mptcp limits set subflows 8 add_addr_accepted 8")
		ip -n "$H2" mptcp limits set subflows 8 add_addr_accepted 8 ||
			mrc_die "h2: mptcp limits"
	fi
	printf '%s\n' "${l1[@]}" | ip -n "$L1" -b - || mrc_die "l1: mptcp rules $op"
	printf '%s\n' "${l2[@]}" | ip -n "$L2" -b - || mrc_die "l2: mptcp rules $op"
	[ ${#h1[@]} -eq 0 ] ||
		printf '%s\n' "${h1[@]}" | ip -n "$H1" -b - ||
		mrc_die "h1: mptcp endpoints $op"
}

# bench_mptcp_joins NS: the MPTCP subflows NS has seen join so far (the
# SYN/ACKs of MP_JOINs it sent, MPTcpExtMPJoinSynAckRx).
bench_mptcp_joins() {
	bench_mib "$1" netstat MPTcpExt: MPJoinSynAckRx
}

bench_paths() {
	local t=${BENCH_T:-10} reps=${BENCH_R:-3} rate=${BENCH_PATH_MBIT:-25}
	local n r c line name proto cfg args applied f d i saved j0 j1
	local -a ns delays keep_sp

	read -ra ns <<<"${BENCH_PATHS:-1 2 4 8}"
	if [ "${QUICK:-0}" = 1 ]; then
		t=${BENCH_T:-4} reps=${BENCH_R:-1}
		read -ra ns <<<"${BENCH_PATHS:-2 8}"
	fi
	# The other benchmarks' fabric, back when this is over.
	saved="$H1 $H2 $L1 $L2 $NSPINES"
	keep_sp=("${SP[@]:1}")
	bench_say "paths: N = ${ns[*]} paths of $rate Mbit/s," \
		"${#BENCH_PATHS_CASES[@]} cases x $reps repetitions x $t s"
	for n in "${ns[@]}"; do
		delays=()
		for ((i = 0; i < n; i++)); do
			delays+=(2ms)
		done
		FABRIC_RATE=${rate}mbit
		NSPINES=$n
		fabric "${delays[@]}"
		FABRIC_RATE=50mbit
		if [ -n "${BENCH_MRC_CONFIG:-}" ]; then
			# shellcheck disable=SC2086 # KEY VALUE pairs
			bench_config $BENCH_MRC_CONFIG
		fi
		# The first case sets its spraying, whatever
		# BENCH_MRC_CONFIG did.
		applied=
		for ((r = 1; r <= reps; r++)); do
			for c in "${BENCH_PATHS_CASES[@]}"; do
				IFS='|' read -r line _ args <<<"$c"
				read -r name proto cfg <<<"$line"
				# One flow of N: the same as one.
				[ "$name" = tcpN ] && [ "$n" = 1 ] && continue
				if [ -n "$cfg" ] && [ "$cfg" != "$applied" ]; then
					# shellcheck disable=SC2086 # KEY VALUE pairs
					bench_config $cfg
					applied=$cfg
				fi
				f=paths-$n-$name-$r
				if [ "$name" = mptcp ]; then
					bench_paths_mptcp on "$n"
					j0=$(bench_mptcp_joins "$H1")
				fi
				# shellcheck disable=SC2086 # options, split on purpose
				bench_xfer "$f" "$proto" "$t" ${args//@N/$n}
				if [ "$name" = mptcp ]; then
					# The subflows that joined: N - 1 if each
					# path got one, fewer if MPTCP fell short.
					j1=$(bench_mptcp_joins "$H1")
					jq --argjson j $((j1 - j0)) \
						'.mptcp_joins = $j' "$BENCH_DIR/$f.json" \
						>"$T/mj.json" &&
						mv "$T/mj.json" "$BENCH_DIR/$f.json"
					bench_paths_mptcp off "$n"
				fi
				bench_say "paths N=$n $name run $r/$reps: $(jq -M -r \
					--argjson cap $((n * rate)) '
					"\(.goodput_mbps * 10 | round / 10) Mbit/s" +
					" (\(.goodput_mbps / $cap * 100 | round) % of" +
					" \($cap)), \(.verified) messages verified," +
					" \(.lost) lost, \(.errors) corrupted" +
					(if .ok then "" else " -- FAILED: client" +
					 " \(.client_rc), server \(.server_rc)" +
					 " \(.stderr[:200])" end) +
					", spines \(.spine_packets | map(tostring) |
					join("/"))" +
					(if .mptcp_joins then ", \(.mptcp_joins)" +
					 " subflows joined" else "" end)' \
					"$BENCH_DIR/$f.json")"
				mrc_sleep 1
			done
		done
		# This fabric's namespaces go now: mrc's state and all.
		d=$(printf 'netns del %s\n' "$H1" "$H2" "$L1" "$L2" "${SP[@]:1}")
		ip -force -b - <<<"$d" 2>/dev/null
	done
	read -r H1 H2 L1 L2 NSPINES <<<"$saved"
	SP=()
	for ((i = 1; i <= NSPINES; i++)); do
		SP[i]=${keep_sp[i - 1]}
	done
	MRC_DUMP_NS=$H1

	jq -s --argjson t "$t" --argjson reps "$reps" --argjson rate "$rate" \
		--argjson ns "$(printf '%s\n' "${ns[@]}" | jq -s .)" '
		def med: sort | if length == 0 then null
			elif length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		. as $all |
		{
			seconds: $t, repetitions: $reps, path_mbps: $rate,
			fabrics: [$ns[] as $n | {
				paths: $n, capacity_mbps: ($n * $rate),
				cases: [$ARGS.positional[] | split("|") as [$k, $d, $a] |
					($k | split(" ")[0]) as $name |
					($all | map(select(.name |
						test("^paths-\($n)-\($name)-[0-9]+$"))) |
						sort_by(.name | split("-")[-1] | tonumber)) as $runs |
					select($runs | length > 0) |
					($runs | map(.goodput_mbps)) as $g |
					{
						name: $name,
						description: ($d | sub("N TCP"; "\($n) TCP") |
							sub("-P N"; "-P \($n)")),
						goodput_mbps: {median: ($g | med),
							min: ($g | min), max: ($g | max), runs: $g},
						utilisation: (($g | med) / ($n * $rate)),
						spine_packets: $runs[0].spine_packets,
						mptcp_joins: ($runs | map(.mptcp_joins // empty) |
							if length > 0 then min else null end),
						verified: ($runs | map(.verified) | add),
						lost: ($runs | map(.lost) | add),
						errors: ($runs | map(.errors) | add),
						ok: ($runs | all(.ok)),
						runs: $runs
					}]
			} |
			(.cases | map({(.name): .goodput_mbps.runs}) | add) as $c |
			.mrc_over_tcp = ([range($reps) as $i |
				if ($c.tcp[$i] // 0) > 0
				then $c.mrc[$i] / $c.tcp[$i] else null end] |
				{runs: ., median: (map(numbers) | med)})]
		}' "$BENCH_DIR"/paths-*-*-*.json \
		--args "${BENCH_PATHS_CASES[@]}" >"$BENCH_DIR/paths.json" ||
		mrc_die "cannot sum up the path runs"
	bench_say "paths: $(jq -M -r '[.fabrics[] | "N=\(.paths): " +
		([.cases[] | "\(.name) \(.utilisation * 100 | round) %"] |
		 join(", "))] | join("; ")' "$BENCH_DIR/paths.json")"
}
