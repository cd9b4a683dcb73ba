#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A seeded mutation fuzzer beside a verified transfer, then teardown under
# traffic: rmmod and namespace deletion, 20 times each.
#
#   +------------- A -------------+          +------------- B -------------+
#   | mrcperf client loop -> 7001 |          | mrcperf server 7001 (verif.)|
#   | mrcperf client loop -> 7002 |==========| mrcperf server 7002 (victim)|
#   | mrc_fuzz -> B (-k 7003)     |   veth   | mrc_sockapi --hold 7003     |
#   | mrc-a 10.0.0.1              |          | mrc_fuzz -> A, mrc-b 10.0.0.2|
#   +-----------------------------+          +-----------------------------+
#
# 1. Reproducible: the same seed builds the same bytes (mrc_fuzz -d
#    digest), another seed other bytes.
# 2. MRC_FUZZ_PACKETS (default 1,000,000) fuzzed datagrams, half from
#    each namespace (mrc_fuzz.c: valid packets of the six types, tagged,
#    mutated), within MRC_FUZZ_SECONDS (240; 1,800 on the debug kernel,
#    MRC_DEBUG_KERNEL=1, where the transfers run at nice 19 so that the
#    fuzzers get the CPU),
#    aimed by what the fuzzers learn on the wire at the live queue pairs
#    of a verified transfer (with its live epoch, and data with START,
#    which forge a new incarnation over the live one, issue 13 item 3;
#    never with the incarnation tags its QPs would take, include/mrc/
#    tag.h) and of a victim transfer (with its tags too, mostly: it may
#    fail, cleanly), at a sink socket through incarnations of the
#    fuzzer's own (its tags learnt from the sink's answers), and at
#    boundary ports.  The transfers stop once the fuzzers have sent all,
#    before the fuzzers exit (see below).  Then:
#      - every run of the verified transfer verified, at both ends;
#      - the fuzzer in A learnt the sink's tags (what takes its
#        incarnations past the tag check);
#      - in each namespace, every packet mrc took has exactly one verdict:
#        rx_packets = the drops by reason + what was accepted;
#      - every datagram sent into a namespace (the fuzzer's, and mrc's of
#        the other) reached mrc there (rx_packets), or is counted where
#        the kernel dropped it: the veth's drops (the receive backlog
#        included), UDP's InErrors and NoPorts.  The counters are read
#        with nothing running, so the balance is exact;
#      - UDP's InDatagrams there is mrc's rx_packets (nothing else);
#      - all queue pairs and spraying states the storm made were closed
#        (qp_opened = qp_closed, peer_opened = peer_closed) and reaped;
#      - the unreclaimable slab grew less than MRC_FUZZ_SLAB_KB (16 MiB:
#        the per-CPU partial slabs a packet storm leaves; one 64-byte
#        object kept per packet would be 61 MiB), plus, under KASAN, its
#        quarantine (a thirty-second of memory), which holds freed
#        objects back;
# 3. rmmod while a transfer and both fuzzers run, MRC_FUZZ_SOAK (20)
#    times: the transfer under way, its processes
#    killed, the module unloads within 15 s each time (its orphaned
#    queue pairs fail and close), while fuzzed packets keep arriving.
# 4. namespace deletion while traffic flows, MRC_FUZZ_SOAK times: a new
#    pair of namespaces with a transfer and a fuzzer, deleted and their
#    processes killed mid-stream; then rmmod within 15 s.
# 5. No kernel warning; on a kernel with kmemleak, a scan finds nothing
#    new (tools/check-debug.sh scans again after all tests).
#
# To rerun one seed: MRC_FUZZ_SEED=N (it is printed); see
# Documentation/testing.rst.

. "$(dirname "$0")/lib.sh"

MRC_FUZZ=${MRC_FUZZ:-$MRC_SELFTEST_DIR/mrc_fuzz}
PKTS=${MRC_FUZZ_PACKETS:-1000000}
# The fuzzers' time limit: 1,000,000 packets take 46 s on the stock
# kernel under TCG.
FUZZ_SECS=${MRC_FUZZ_SECONDS:-240}
# The soak's cycles of each kind, and its fuzzers' packets a second each
# (0: as fast as they can).
SOAK=${MRC_FUZZ_SOAK:-20}
SOAK_RATE=${MRC_FUZZ_SOAK_RATE:-0}
# The transfers' nice(1) level.
NICE=0
if [ "${MRC_DEBUG_KERNEL:-0}" = 1 ]; then
	# The million there too, in about 6.5 minutes: the two fuzzers send
	# 2,600 packets a second there (two vCPUs under TCG, KASAN and
	# lockdep) when the transfers beside them, which would otherwise take
	# most of the CPU and leave them 800, run at the lowest priority.
	# They still run, every message verified.
	# A bound, not a target: 636 s at 1,570 a second were seen there
	# (393 s at 2,544 in another session: the machine's speed varies).
	FUZZ_SECS=${MRC_FUZZ_SECONDS:-1800}
	NICE=19
	# A flood at full speed takes a whole vCPU there, and
	# what waits for RCU there then waits for minutes: the module's
	# last references (a socket is freed after a grace period) and
	# the fuzzers' own exits (a packet socket's release waits for
	# one).
	SOAK_RATE=${MRC_FUZZ_SOAK_RATE:-100}
fi
SEED=${MRC_FUZZ_SEED:-$(($(date +%s) % 1000000))}
SLAB_KB=${MRC_FUZZ_SLAB_KB:-16384}
VERIFIED=7001
VICTIM=7002
SINK=7003
KMEMLEAK=/sys/kernel/debug/kmemleak

mrc_require_root
mrc_require_cmd ip jq insmod rmmod modprobe modinfo dmesg
mrc_require_cli
mrc_require_mrcperf
mrc_require_sockapi
[ -x "$MRC_FUZZ" ] ||
	mrc_die "no fuzzer at $MRC_FUZZ (build it first: make -C selftests)"
was_loaded=0
mrc_loaded && was_loaded=1
mrc_load
# Leave the module as it was found.
mrc_at_exit "[ $was_loaded = 1 ] && ! mrc_loaded && mrc_insmod"
mrc_dmesg_mark
T=$mrc_tmpdir
if [ -w "$KMEMLEAK" ]; then
	# What was there before this test is not its doing.
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
fi
mrc_log "# seed $SEED (MRC_FUZZ_SEED=$SEED reruns it), $PKTS packets"

# --- 1. reproducible --------------------------------------------------------

d1=$("$MRC_FUZZ" -d -s "$SEED" -n 20000 -k "$SINK" 10.0.0.2 | grep digest)
d2=$("$MRC_FUZZ" -d -s "$SEED" -n 20000 -k "$SINK" 10.0.0.2 | grep digest)
d3=$("$MRC_FUZZ" -d -s $((SEED + 1)) -n 20000 -k "$SINK" 10.0.0.2 |
	grep digest)
chk_eq "same seed, same 20000 packets" "$d2" "$d1"
chk_ne "another seed, other packets" "$d3" "$d1"

# --- helpers ------------------------------------------------------------------

# Verdicts: every packet mrc takes ends in exactly one of these (net/mrc/
# rx.c, tx.c's mrc_qp_rx_ack(), probe.c).  A trimmed data packet is
# counted in rx_trimmed, alone or beside rx_drop_no_qp or rx_drop_filter:
# none comes here (nothing sets a trimmed codepoint), which is checked.
# A packet its QP does not take by its tags is rx_drop_bad_tag, or
# rx_drop_blind_reset when it is challenged (include/mrc/tag.h).
VERDICTS=(rx_drop_short rx_drop_bad_version rx_drop_bad_opcode rx_drop_no_qp
	rx_drop_malformed rx_drop_out_of_window rx_drop_no_mem rx_drop_filter
	rx_drop_no_start rx_drop_addr_limit rx_drop_qp_limit rx_dup_packets
	rx_data_packets ack_rx sack_rx nack_rx total_probe_pkts_rx
	probe_resp_rx rx_drop_bad_tag rx_drop_blind_reset)

# udp_counters NS PREFIX: UDP's counters of NS into the associative
# array PREFIX: the Udp: and Udp6 lines of /proc/net/snmp{,6}, summed by
# name.
udp_counters() {
	local ns=$1 k v names vals i old
	local -n u=$2

	{ read -r -a names; read -r -a vals; } < <(ip netns exec "$ns" \
		grep '^Udp:' /proc/net/snmp)
	for ((i = 1; i < ${#names[@]}; i++)); do
		u["udp_${names[i]}"]=${vals[i]}
	done
	while read -r k v; do
		case $k in
		Udp6InDatagrams | Udp6NoPorts | Udp6InErrors)
			k=udp_${k#Udp6}
			old=${u[$k]:-0}
			u["$k"]=$((old + v)) ;;
		esac
	done < <(ip netns exec "$ns" cat /proc/net/snmp6)
}

# counters NS DEV PREFIX: mrc's counters, UDP's and the veth's of NS into
# the associative array PREFIX (declared by the caller).  mrc's and UDP's
# are read as of one moment: UDP's before and after mrc's, again until
# no datagram came in between (a late probe or acknowledgment would
# otherwise be UDP's and not yet mrc's; on the debug kernel each read
# takes up to a second).
counters() {
	local ns=$1 dev=$2 v try in0
	local -n c=$3

	for ((try = 0; try < 20; try++)); do
		udp_counters "$ns" "$3"
		in0=${c[udp_InDatagrams]}
		mrc_stats_snapshot -n "$ns" "$3" || mrc_die "mrc stats in $ns"
		udp_counters "$ns" "$3"
		[ "${c[udp_InDatagrams]}" = "$in0" ] && break
		mrc_sleep 0.5
	done
	v=$(ip -n "$ns" -j -s link show dev "$dev" |
		jq -r '.[0].stats64 | "\(.rx.dropped) \(.tx.dropped)"')
	c["dev_rx_dropped"]=${v% *}
	c["dev_tx_dropped"]=${v#* }
}

# slab_kb: the unreclaimable slab, kB.
slab_kb() {
	local k v

	while read -r k v _; do
		[ "$k" = SUnreclaim: ] && echo "$v" && return
	done </proc/meminfo
}

# qps NS: how many queue pairs NS has.
qps() {
	mrc_exec -n "$1" -j qp show 2>/dev/null | jq length 2>/dev/null ||
		echo "?"
}

# quiet NS...: wait (30 s at most) until no queue pair or spraying state
# is left in any NS and none of their packet counters moved for a second;
# 1 if that did not come.  All of them: the balance below reads A's
# counters before B's, and a packet B sends in between (a spraying
# state's probe, say, if one outlived its queue pairs) would be counted
# sent by B and never taken by A.
quiet() {
	local t0 ns n prev="" now rx tx peers
	local f='"\(.rx_packets) \(.tx_packets) \(.peer_opened - .peer_closed)"'

	t0=$(mrc_now_ms)
	while [ $(($(mrc_now_ms) - t0)) -lt 30000 ]; do
		now=
		for ns in "$@"; do
			n=$(qps "$ns")
			read -r rx tx peers < <(mrc_stats_json -n "$ns" |
				jq -r "$f" 2>/dev/null)
			now+=" $n $rx $tx"
			[ "$n" = 0 ] && [ "${peers:-}" = 0 ] || now+=" busy"
		done
		[[ $now != *busy* ]] && [ "$now" = "$prev" ] && return 0
		prev=$now
		mrc_sleep 1
	done
	return 1
}

# moving NS NAME: wait (10 s at most) until counter NAME of NS is not 0.
moving() {
	local t0 n

	t0=$(mrc_now_ms)
	while [ $(($(mrc_now_ms) - t0)) -lt 10000 ]; do
		n=$(mrc_stat -n "$1" "$2")
		[[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ] && return 0
		mrc_sleep 0.25
	done
	return 1
}

# fuzz_sent FILE: the datagrams a fuzzer's output says it sent.
fuzz_sent() {
	local s

	s=$(sed -n 's/^sent \([0-9]*\) .*/\1/p' "$1")
	echo "${s:-0}"
}

# --- 2. the fuzzer beside a verified transfer --------------------------------

mrc_client_server
A=$C B=$S

# shellcheck disable=SC2034 # used by name: counters, dl
declare -A AB=() AA=() BB=() BA=()
counters "$A" "$MRC_VETH_A" AB
counters "$B" "$MRC_VETH_B" BB
slab0=$(slab_kb)

nice -n "$NICE" ip netns exec "$B" "$MRCPERF" server -p "$VERIFIED" -j \
	>"$T/srv.out" 2>"$T/srv.err" &
srv=$!
nice -n "$NICE" ip netns exec "$B" "$MRCPERF" server -p "$VICTIM" -j \
	>/dev/null 2>&1 &
vsrv=$!
ip netns exec "$B" "$MRC_SOCKAPI" --hold "$SINK" >/dev/null 2>&1 &
sink=$!
# A socket held open in A throughout: between two runs of its clients
# (slow to start at nice 19) A would otherwise have none, its UDP/4791
# sockets none either, and B's fuzzer's packets would end in UDP's
# NoPorts, not in mrc (two fifths of them, measured).
ip netns exec "$A" "$MRC_SOCKAPI" --hold "$SINK" >/dev/null 2>&1 &
hold=$!
mrc_at_exit "kill $srv $vsrv $sink $hold"
mrc_wait_bound "$hold" "$SINK" 20 || mrc_die "no socket on port $SINK in $A"
for p in "$srv:$VERIFIED" "$vsrv:$VICTIM" "$sink:$SINK"; do
	mrc_wait_bound "${p%:*}" "${p#*:}" 20 ||
		mrc_die "no socket on port ${p#*:} in $B"
done

# The verified transfer: runs of 8 s, each verified, until told to stop.
(
	i=0
	while [ ! -e "$T/stop" ]; do
		i=$((i + 1))
		nice -n "$NICE" ip netns exec "$A" "$MRCPERF" client \
			"$MRC_IP4_B" -p "$VERIFIED" -j -s 65536 -c 4 -t 8 \
			--timeout 60 \
			>"$T/cli.$i.out" 2>"$T/cli.$i.err"
		echo "$? $i" >>"$T/cli.rc"
	done
) &
cli=$!
mrc_at_exit "kill $cli"
# The victim: whatever the fuzzer does to it, it starts again.
(
	while [ ! -e "$T/stop" ]; do
		nice -n "$NICE" ip netns exec "$A" "$MRCPERF" client \
			"$MRC_IP4_B" -p "$VICTIM" -j -s 65536 -c 4 -t 5 \
			--timeout 10 \
			>/dev/null 2>&1
		echo x >>"$T/victim.runs"
	done
) &
vcli=$!
mrc_at_exit "kill $vcli"

# Both transfers under way: their queue pairs in B.
for ((i = 0; i < 100; i++)); do
	ports=$(mrc_exec -n "$B" -j qp show 2>/dev/null |
		jq -r '[.[].local_port] | sort | unique | map(tostring) |
			join(" ")')
	[[ " $ports " == *" $VERIFIED "* && " $ports " == *" $VICTIM "* ]] &&
		break
	mrc_sleep 0.2
done
chk_eq "both transfers under way: ports of B's queue pairs" "$ports" \
	"$VERIFIED $VICTIM"

t0=$(mrc_now_ms)
# Each reads both ends of the link, each end what it receives (-I), and
# slows down when the other's receive backlog overflows (-D).
ip netns exec "$A" "$MRC_FUZZ" -s "$SEED" -n $((PKTS / 2)) -t "$FUZZ_SECS" \
	-i "$MRC_VETH_A" -I "$B:$MRC_VETH_B" -D -w 3000 -P "$VERIFIED" \
	-V "$VICTIM" -k "$SINK" "$MRC_IP4_B" >"$T/fuzz.a" 2>&1 &
fa=$!
ip netns exec "$B" "$MRC_FUZZ" -s $((SEED + 1)) -n $((PKTS - PKTS / 2)) \
	-t "$FUZZ_SECS" -i "$MRC_VETH_B" -I "$A:$MRC_VETH_A" -D -w 3000 \
	-P "$VERIFIED" -V "$VICTIM" "$MRC_IP4_A" >"$T/fuzz.b" 2>&1 &
fb=$!
# Until both have sent all (their last line, the digest, is written
# before they exit) or their time is up.
while [ $(($(mrc_now_ms) - t0)) -lt $(((FUZZ_SECS + 30) * 1000)) ] &&
      { kill -0 "$fa" 2>/dev/null || kill -0 "$fb" 2>/dev/null; } &&
      ! { grep -q '^digest ' "$T/fuzz.a" && grep -q '^digest ' "$T/fuzz.b"; }
do
	mrc_sleep 0.5
done
fuzz_ms=$(($(mrc_now_ms) - t0))
# The transfers stop before the fuzzers' exits are waited for: each exit
# closes a packet socket, whose release waits for an RCU grace period
# (synchronize_net()); on the debug kernel with one vCPU, two transfers
# at full speed put that off for minutes (hung-task reports).
touch "$T/stop"
mrc_wait_pid "$cli" 90 || mrc_kill_pid "$cli"
mrc_kill_pid "$vcli"
mrc_kill_pid "$vsrv"
mrc_kill_pid "$sink"
mrc_kill_pid "$hold"
mrc_kill_pid "$srv"
mrc_wait_pid "$fa" 120 || mrc_kill_pid "$fa"
rca=$MRC_WAIT_RC
mrc_wait_pid "$fb" 120 || mrc_kill_pid "$fb"
rcb=$MRC_WAIT_RC
srv_json=$(<"$T/srv.out")

sed 's/^/#   A: /' "$T/fuzz.a"
sed 's/^/#   B: /' "$T/fuzz.b"
sa=$(fuzz_sent "$T/fuzz.a")
sb=$(fuzz_sent "$T/fuzz.b")
if [ "$rca" = 0 ] && [ "$rcb" = 0 ] && [ $((sa + sb)) -ge "$PKTS" ]; then
	mrc_pass "fuzzed: $((sa + sb)) packets in $fuzz_ms ms" \
		"($((( sa + sb) * 1000 / (fuzz_ms + 1))) a second)"
else
	mrc_fail "fuzzed: $sa + $sb packets, want $PKTS" \
		"fuzzer exit status $rca and $rcb (limit $FUZZ_SECS s)"
fi
for t in data ack sack nack probe probe_resp; do
	na=$(sed -n "s/^sent .* $t \([0-9]*\).*/\1/p" "$T/fuzz.a")
	nb=$(sed -n "s/^sent .* $t \([0-9]*\).*/\1/p" "$T/fuzz.b")
	chk_ne "packets of type $t sent (A $na, B $nb)" "$(( ${na:-0} > 0 &&
		${nb:-0} > 0 ))" 0
done
# The fuzzers aimed at the live queue pairs they learnt.
for f in a b; do
	chk_ne "fuzzer in ${f^^}: learnt the verified transfer's directions" \
		"$(grep -c "^direction .* protected$" "$T/fuzz.$f")" 0
	chk_ne "fuzzer in ${f^^}: learnt the victim's directions" \
		"$(grep -c "^direction .* victim$" "$T/fuzz.$f")" 0
	v=$(sed -n 's/^targets: protected \([0-9]*\) victim \([0-9]*\).*/\1 \2/p' \
		"$T/fuzz.$f")
	chk_eq "fuzzer in ${f^^}: packets at live queue pairs (protected, victim: $v)" \
		"$([[ $v =~ ^[1-9][0-9]*\ [1-9] ]] && echo both)" both
done
# Its incarnations to the sink echo the sink's tags, learnt from its
# acknowledgments on the wire.
chk_ne "fuzzer in A: learnt the sink's tags" \
	"$(grep -c "^learnt: sink " "$T/fuzz.a")" 0

# Every run of the verified transfer verified, at both ends.
runs=0 bad=()
while read -r rc i; do
	runs=$((runs + 1))
	out=$(<"$T/cli.$i.out")
	[ "$rc" = 0 ] && [[ $out == *'"errors":0'* ]] ||
		bad+=("run $i: exit $rc: $out $(<"$T/cli.$i.err")")
done <"$T/cli.rc"
[[ $srv_json == *'"errors":0}'* ]] ||
	bad+=("server: $srv_json $(<"$T/srv.err")")
if [ "$runs" -gt 0 ] && [ ${#bad[@]} -eq 0 ]; then
	mrc_pass "the verified transfer: $runs runs during the fuzzing, every" \
		"message verified (server: $srv_json)"
else
	mrc_fail "the verified transfer ($runs runs)" "${bad[@]}"
fi
mrc_log "# victim runs: $(wc -l <"$T/victim.runs" 2>/dev/null)"

quiet "$A" "$B" || mrc_fail "queue pairs or spraying states still open, or packets moving, 30 s after the end" \
	"A: $(qps "$A"), B: $(qps "$B")"
counters "$A" "$MRC_VETH_A" AA
counters "$B" "$MRC_VETH_B" BA
slab1=$(slab_kb)

# dl X NAME: the change of NAME in namespace X (A or B).
dl() {
	mrc_stats_delta "$2" "$1B" "$1A"
}

for x in A B; do
	if [ "$x" = A ]; then y=B; sent=$sb; else y=A; sent=$sa; fi
	rx=$(dl "$x" rx_packets)
	sum=0 parts=
	for v in "${VERDICTS[@]}"; do
		n=$(dl "$x" "$v")
		sum=$((sum + n))
		[ "$n" = 0 ] || parts+=" $v=$n"
	done
	chk_eq "$x: every packet mrc took has one verdict: rx_packets" \
		"$rx" "$sum" || mrc_log "#  $parts"
	mrc_log "# $x:$parts"
	# What mrc in $y sent to it: the rest of what it took is the fuzzer's.
	parts=
	for v in tx_data_packets ack_tx sack_tx nack_tx total_probe_pkts_tx \
		probe_resp_tx; do
		parts+=" $v=$(dl "$y" "$v")"
	done
	mrc_log "# $x: mrc in $y sent:$parts"
	mrc_log "# $x: new incarnations of a peer taken (qp_reincarnated):" \
		"$(dl "$x" qp_reincarnated)"
	chk_eq "$x: no packet came trimmed (rx_trimmed)" \
		"$(dl "$x" rx_trimmed)" 0
	chk_eq "$x: UDP InDatagrams are mrc's rx_packets" \
		"$(dl "$x" udp_InDatagrams)" "$rx"
	in=$((sent + $(dl "$y" tx_packets)))
	lost=$(($(dl "$y" dev_tx_dropped) + $(dl "$x" dev_rx_dropped) +
		$(dl "$x" udp_InErrors) + $(dl "$x" udp_NoPorts)))
	chk_eq "$x: sent to it ($sent fuzzed + $(dl "$y" tx_packets) by mrc in $y) = taken by mrc + dropped on the way ($lost)" \
		"$((rx + lost))" "$in"
	chk_eq "$x: queue pairs opened = closed ($(dl "$x" qp_opened))" \
		"$(dl "$x" qp_closed)" "$(dl "$x" qp_opened)"
	chk_eq "$x: spraying states opened = closed ($(dl "$x" peer_opened))" \
		"$(dl "$x" peer_closed)" "$(dl "$x" peer_opened)"
done

bound=$SLAB_KB
if [ "${MRC_DEBUG_KERNEL:-0}" = 1 ] ||
   dmesg | grep -q 'KernelAddressSanitizer'; then
	total=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)
	bound=$((bound + total / 32))
	mrc_log "# KASAN: the bound includes its quarantine, $((total / 32)) kB"
fi
grow=$((slab1 - slab0))
if [ "$grow" -le "$bound" ]; then
	mrc_pass "unreclaimable slab grew $grow kB (bound $bound kB)," \
		"$((grow * 1024 / (sa + sb + 1))) bytes a fuzzed packet"
else
	mrc_fail "unreclaimable slab grew $grow kB, bound $bound kB"
fi
mrc_netns_del "$A"
mrc_netns_del "$B"

# --- 3. rmmod while traffic flows ---------------------------------------------

# soak_transfer: a server in B on the verified port and a client in A
# moving 64 KiB messages to it for up to 60 s, in the background, their
# PIDs in srv and cli: the traffic each soak cycle cuts short.
soak_transfer() {
	ip netns exec "$B" "$MRCPERF" server -p "$VERIFIED" \
		>/dev/null 2>&1 &
	srv=$!
	mrc_wait_bound "$srv" "$VERIFIED" 20 >/dev/null
	ip netns exec "$A" "$MRCPERF" client "$MRC_IP4_B" -p "$VERIFIED" -q \
		-s 65536 -c 4 -t 60 >/dev/null 2>&1 &
	cli=$!
}

# rmmod_within [SECONDS]: rmmod mrc, tried every 250 ms for SECONDS (15);
# the time it took in $RM_MS, the failure in $RM_ERR.
rmmod_within() {
	local t0 tries=0 rc limit=$((${1:-15} * 1000))

	t0=$(mrc_now_ms)
	while :; do
		RM_ERR=$(rmmod mrc 2>&1)
		rc=$?
		tries=$((tries + 1))
		RM_MS=$(($(mrc_now_ms) - t0))
		[ "$rc" -eq 0 ] && return 0
		[ "$RM_MS" -ge "$limit" ] && return 1
		mrc_sleep 0.25
	done
}

mrc_log "# rmmod while a transfer and the fuzzers run, $SOAK times"
mrc_client_server
A=$C B=$S
# The fuzzers stay up across the unloads: plain UDP sockets, which do not
# hold the module.  Without the live tags (-P): one who has them can keep
# a closed socket's queue pair, which answers duplicates for as long as
# they come (as TCP's TIME-WAIT answers a FIN again), and so the module,
# busy; with wrong ones, a packet is dropped before it counts as heard.
ip netns exec "$A" "$MRC_FUZZ" -s "$SEED" -n 100000000 -t 3600 \
	-r "$SOAK_RATE" -i "$MRC_VETH_A" -P "$VERIFIED" -k "$SINK" \
	"$MRC_IP4_B" >/dev/null 2>&1 &
fa=$!
ip netns exec "$B" "$MRC_FUZZ" -s $((SEED + 1)) -n 100000000 -t 3600 \
	-r "$SOAK_RATE" -i "$MRC_VETH_B" -P "$VERIFIED" "$MRC_IP4_A" \
	>/dev/null 2>&1 &
fb=$!
mrc_at_exit "kill $fa $fb"
worst=0 bad=() busy=0
for ((i = 1; i <= SOAK; i++)); do
	mrc_loaded || mrc_insmod || mrc_die "insmod: $MRC_INSMOD_ERR"
	soak_transfer
	moving "$B" rx_data_packets && busy=$((busy + 1))
	kill -KILL "$cli" "$srv" 2>/dev/null
	wait "$cli" "$srv" 2>/dev/null
	if rmmod_within; then
		[ "$RM_MS" -gt "$worst" ] && worst=$RM_MS
	else
		bad+=("cycle $i: rmmod still failing after $RM_MS ms: $RM_ERR"
		      "module refcount $(cat /sys/module/mrc/refcnt 2>&1)"
		      "A's queue pairs: $(mrc_exec -n "$A" -j qp show 2>&1)"
		      "B's queue pairs: $(mrc_exec -n "$B" -j qp show 2>&1)")
		rmmod_within 120 ||
			mrc_die "mrc will not unload: $RM_ERR" "${bad[@]}"
		bad+=("cycle $i: unloaded after $RM_MS ms more")
	fi
done
chk_eq "rmmod under traffic: cycles where data was moving" "$busy" "$SOAK"
if [ ${#bad[@]} -eq 0 ] && kill -0 "$fa" 2>/dev/null &&
   kill -0 "$fb" 2>/dev/null; then
	mrc_pass "rmmod under traffic: $SOAK unloads, the slowest in" \
		"$worst ms, the fuzzers sending throughout"
else
	mrc_fail "rmmod under traffic" "${bad[@]}" \
		"fuzzers alive: $(kill -0 "$fa" 2>/dev/null && echo A) $(kill -0 "$fb" 2>/dev/null && echo B)"
fi
mrc_kill_pid "$fa"
mrc_kill_pid "$fb"
mrc_netns_del "$A"
mrc_netns_del "$B"

# --- 4. namespace deletion while traffic flows ----------------------------------

mrc_log "# namespaces deleted while a transfer and a fuzzer run, $SOAK times"
mrc_load
busy=0
for ((i = 1; i <= SOAK; i++)); do
	mrc_netns_add
	A=$MRC_NS
	mrc_netns_add
	B=$MRC_NS
	mrc_veth_pair "$A" "$B" >/dev/null || mrc_die "cannot build the veth pair"
	soak_transfer
	ip netns exec "$A" "$MRC_FUZZ" -s $((SEED + i)) -n 100000000 \
		-t 600 -r "$SOAK_RATE" -i "$MRC_VETH_A" -P "$VERIFIED" \
		"$MRC_IP4_B" >/dev/null 2>&1 &
	fa=$!
	moving "$B" rx_data_packets && busy=$((busy + 1))
	# The names go first, then the processes that keep the namespaces
	# alive: their last reference drops with traffic in flight.
	mrc_netns_del "$A"
	mrc_netns_del "$B"
	kill -KILL "$cli" "$srv" "$fa" 2>/dev/null
	wait "$cli" "$srv" "$fa" 2>/dev/null
done
chk_eq "namespace deletion under traffic: cycles where data was moving" \
	"$busy" "$SOAK"
if rmmod_within; then
	mrc_pass "rmmod after $SOAK namespaces deleted under traffic: $RM_MS ms"
else
	mrc_fail "rmmod after the namespaces were deleted: $RM_ERR" \
		"module refcount: $(cat /sys/module/mrc/refcnt 2>&1)"
fi

# --- 5. the kernel's word --------------------------------------------------------

mrc_dmesg_check "the fuzzer and the soak"
if [ -w "$KMEMLEAK" ]; then
	# An object is reported once unreferenced for 5 s (check-debug.sh).
	mrc_sleep 6
	echo scan >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
	leaks=$(cat "$KMEMLEAK")
	if [ -z "$leaks" ]; then
		mrc_pass "kmemleak: nothing new unreferenced"
	else
		mrc_fail "kmemleak: unreferenced objects" \
			"$(head -n 60 <<<"$leaks")"
	fi
else
	mrc_log "# (no kmemleak on this kernel: tools/check-debug.sh has it)"
fi

mrc_exit
