#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receive path's accounting, in a netns of its own: crafted UDP
# payloads sent from userspace (mrc_inject) to 127.0.0.1:4791 and
# [::1]:4791, and after each one the exact change of every counter of
# mrc stats: rx_packets +1, rx_bytes + the payload length, and exactly
# one of rx_drop_short / rx_drop_bad_version / rx_drop_bad_opcode /
# rx_drop_malformed (immediate data) / rx_drop_no_qp (every well-formed
# packet, as no socket is bound to the destination QP, port 0x11) /
# rx_drop_bad_tag (untagged data).  A
# data packet to that port also draws a NACK "unexpected" (nack_tx), which
# comes back here and is dropped too: no QP takes it either.
#
# Then, from a peer netns over veth (so that what mrc answers lands in
# the peer, not here), data packets built per abi.md to a socket bound
# here (mrc_sockapi --hold): a whole message accepted (rx_data_packets,
# rx_msgs) and its duplicate (rx_dup_packets); the same to a port nobody
# bound (rx_drop_no_qp); payload past the message length, an offset past
# it, a length over max-msg-size (rx_drop_malformed); a PSN far beyond
# the window (rx_drop_out_of_window); the last PSN of the 256-PSN window
# (held) and the first beyond it (rx_drop_out_of_window); from senders
# with no queue pair, data without the start flag or beyond the first
# window, which cannot open one (rx_drop_no_start); and by incarnation
# tags (include/mrc/tag.h): a new incarnation with another tag, not
# echoing the server's (rx_drop_blind_reset, challenged), data of the
# live one with another tag, untagged data, an acknowledgment not
# echoing the server's tag, a probe with another tag than the queue
# pair's peer's (rx_drop_bad_tag), and one with it, answered
# (total_probe_pkts_rx, probe_resp_tx).  Each moves its counter
# by exactly the number sent and no other.  And the drops freed
# in mrc's code carry their reason to the skb:kfree_skb tracepoint.
#
# Both namespaces listen (config set listen 1): port 4791 is open with no
# mrc socket, as the packets to no socket need.

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip
mrc_require_cli
mrc_require_inject
mrc_require_sockapi
mrc_load
mrc_run_in_netns "$@"
mrc_log "# in netns $MRC_NS"
mrc_dmesg_mark

ip link set lo up || mrc_die "cannot bring lo up"
"$MRC" config set listen 1 || mrc_die "config set listen 1"

COUNTERS=(rx_packets rx_bytes rx_drop_short rx_drop_bad_version
	rx_drop_bad_opcode rx_drop_no_qp rx_drop_malformed
	rx_drop_out_of_window rx_drop_no_mem rx_dup_packets rx_data_packets
	rx_msgs nack_tx total_probe_pkts_rx probe_resp_tx rx_drop_no_start
	rx_drop_bad_tag rx_drop_blind_reset qp_reincarnated)
# Where every received packet ends up, exactly one of these.
FATES=(rx_drop_short rx_drop_bad_version rx_drop_bad_opcode rx_drop_no_qp
	rx_drop_malformed rx_drop_out_of_window rx_drop_no_mem rx_dup_packets
	rx_data_packets total_probe_pkts_rx rx_drop_no_start rx_drop_bad_tag
	rx_drop_blind_reset)

# kind, UDP payload bytes, the drop counter it must land in.  Expected
# values written out here, not taken from mrc_inject -l.
CASES=(
	"empty 0 rx_drop_short"
	"short5 5 rx_drop_short"
	"bth-short 11 rx_drop_short"
	"bad-opcode 12 rx_drop_bad_opcode"
	"bad-opcode-ff 64 rx_drop_bad_opcode"
	"bad-opcode-roce 64 rx_drop_bad_opcode"
	# mrc_inject tags every packet of an mrc opcode a BTH long or more
	# (an 8-byte ITETH: include/mrc/tag.h), its short forms too, but
	# a probe (opcode 0xDE, these five): MRC 1.0's 28 bytes, its tag
	# in the PETH.
	"bad-version 28 rx_drop_bad_version"
	"bad-version-f 28 rx_drop_bad_version"
	"probe 28 rx_drop_no_qp"
	"probe-b1-high 28 rx_drop_no_qp"
	"probe-short 27 rx_drop_short"
	"ack 24 rx_drop_no_qp"
	"ack-short 23 rx_drop_short"
	"sack 56 rx_drop_no_qp"
	"sack-short 28 rx_drop_short"
	"nack 40 rx_drop_no_qp"
	"nack-short 39 rx_drop_short"
	"write-only 40 rx_drop_no_qp"
	"write-only-1k 1064 rx_drop_no_qp"
	"write-only-short 39 rx_drop_short"
	"write-first 140 rx_drop_no_qp"
	"write-tseth 44 rx_drop_no_qp"
	"write-tseth-short 40 rx_drop_short"
	# mrc sends no immediate data: abi.md's data opcodes are 0xC6,
	# 0xC7, 0xC8 and 0xCA, so the _IMM ones, whole, are malformed.
	"write-imm 44 rx_drop_malformed"
	"write-imm-short 43 rx_drop_short"
	"write-imm-tseth 48 rx_drop_malformed"
	"write-imm-tseth-short 47 rx_drop_short"
	# TVer is checked before the opcode.
	"raw:12:0x00:0x01 12 rx_drop_bad_version"
	# No tag (MRC 1.0's layout): dropped before anything is looked up,
	# unanswered.
	"untagged:write-only 32 rx_drop_bad_tag"
)

declare -A before=() after=() total=()
for c in "${COUNTERS[@]}"; do
	total[$c]=0
done

mrc_stats_snapshot before || mrc_die "mrc stats: ${before[error]}"
for c in "${COUNTERS[@]}"; do
	chk_eq "new netns: $c" "${before[$c]:-<absent>}" 0
done

# expect_deltas DESC COUNTER=DELTA...: the deltas since $before (every
# counter of COUNTERS not named: 0), which then becomes the current
# snapshot.
expect_deltas() {
	local desc=$1 c want got kv try bad=() summary=()
	local -A wants=()

	shift
	for kv in "$@"; do
		wants[${kv%%=*}]=${kv#*=}
		summary+=("${kv%%=*} +${kv#*=}")
	done
	# The injector returns once its packets are sent; the receiving
	# softirq may still be at them (an emulated CPU can be descheduled
	# mid-way): read again for up to a second before calling a
	# difference a failure.
	for try in 1 2 3 4 5 6 7 8 9 10; do
		mrc_stats_snapshot after || mrc_die "mrc stats: ${after[error]}"
		bad=()
		for c in "${COUNTERS[@]}"; do
			want=${wants[$c]:-0}
			if [ -z "${after[$c]:-}" ]; then
				bad+=("$c: absent from mrc stats")
				continue
			fi
			got=$((${after[$c]} - ${before[$c]:-0}))
			[ "$got" = "$want" ] || bad+=("$c: +$got, want +$want")
		done
		[ ${#bad[@]} -eq 0 ] && break
		[ "$try" -lt 10 ] && mrc_sleep 0.1
	done
	for c in "${COUNTERS[@]}"; do
		total[$c]=$((total[$c] + ${wants[$c]:-0}))
	done
	if [ ${#bad[@]} -eq 0 ]; then
		local line=

		for kv in "${summary[@]}"; do
			line+="${line:+, }$kv"
		done
		mrc_pass "$desc: $line"
	else
		mrc_fail "$desc" "${bad[@]}"
	fi
	for c in "${COUNTERS[@]}"; do
		before[$c]=${after[$c]}
	done
}

# expect DESC COUNT BYTES DROP_COUNTER: COUNT packets of BYTES each, all
# counted in DROP_COUNTER ("none": nothing counted at all).
expect() {
	local n=$2 bytes=$3 drop=$4

	if [ "$drop" = none ]; then
		expect_deltas "$1"
	elif [ "$drop" = refused ]; then
		# Refused data: its NACK (40 bytes) comes back over loopback.
		expect_deltas "$1" "rx_packets=$((2 * n))" \
			"rx_bytes=$((n * (bytes + 40)))" "rx_drop_no_qp=$((2 * n))" \
			"nack_tx=$n"
	else
		expect_deltas "$1" "rx_packets=$n" "rx_bytes=$((n * bytes))" \
			"$drop=$n"
	fi
}

for addr in 127.0.0.1 ::1; do
	mrc_log "# to $addr port 4791"
	for case in "${CASES[@]}"; do
		read -r kind len drop <<<"$case"
		opts=()
		if [[ $kind = untagged:* ]]; then
			opts=(-U)
			kind=${kind#untagged:}
		fi
		out=$("$MRC_INJECT" "${opts[@]}" "$addr" "$kind" 2>&1) ||
			mrc_die "mrc_inject ${opts[*]} $addr $kind: $out"
		[[ $kind = write-* && $drop = rx_drop_no_qp ]] && drop=refused
		expect "$addr ${opts[*]:+${opts[*]} }$kind ($len bytes)" 1 "$len" "$drop"
	done
done

mrc_log "# bursts"
"$MRC_INJECT" -c 200 127.0.0.1 probe >/dev/null || mrc_die "mrc_inject burst"
expect "200 x probe to 127.0.0.1" 200 28 rx_drop_no_qp
"$MRC_INJECT" -c 200 ::1 write-only-1k >/dev/null || mrc_die "mrc_inject burst"
expect "200 x write-only-1k to ::1, each refused" 200 1064 refused
"$MRC_INJECT" -c 100 ::1 sack-short >/dev/null || mrc_die "mrc_inject burst"
expect "100 x sack-short to ::1" 100 28 rx_drop_short

# Drops are freed with a reason (kfree_skb_reason()), which the
# skb:kfree_skb tracepoint reports to drop monitors (dropwatch, perf):
# those freed in mrc's code, by reason.
check_drop_reasons() {
	local tr ev

	tr=$(mrc_tracefs)
	ev=$tr/events/skb/kfree_skb/enable
	if [ ! -e "$ev" ]; then
		mrc_fail "drop reasons: no $ev"
		return
	fi
	echo >"$tr/trace"
	echo 1 >"$ev"
	"$MRC_INJECT" -c 100 127.0.0.1 sack-short >/dev/null
	"$MRC_INJECT" -c 50 ::1 bad-opcode-ff >/dev/null
	"$MRC_INJECT" -c 20 127.0.0.1 write-only-1k >/dev/null
	echo 0 >"$ev"
	# Every kfree_skb of the VM in that time, mrc's or not: 6.1 prints
	# the location as a hashed pointer (%p), not a symbol, so the
	# function cannot be told.  Nothing else moves meanwhile; the NACKs
	# of the refusals come back to UDP/4791, where mrc has no QP for
	# them (rx_drop_no_qp), reason NO_SOCKET too.
	reasons() {
		grep -cE " reason: $1\$" "$tr/trace"
	}
	chk_eq "drop reason PKT_TOO_SMALL: 100 x sack-short" \
		"$(reasons PKT_TOO_SMALL)" 100
	chk_eq "drop reason UNHANDLED_PROTO: 50 x bad-opcode-ff" \
		"$(reasons UNHANDLED_PROTO)" 50
	chk_eq "drop reason NO_SOCKET: 20 x write-only-1k refused, their 20 NACKs" \
		"$(reasons NO_SOCKET)" 40
	echo >"$tr/trace"
	expect_deltas "drop reasons: their counters" rx_packets=190 \
		rx_bytes=$((100 * 28 + 50 * 64 + 20 * (1064 + 40))) \
		rx_drop_short=100 rx_drop_bad_opcode=50 rx_drop_no_qp=40 \
		nack_tx=20
}
check_drop_reasons

mrc_log "# not for mrc"
"$MRC_INJECT" -p 4792 127.0.0.1 probe >/dev/null
"$MRC_INJECT" -p 4792 ::1 probe >/dev/null
expect "probe to port 4792: nothing counted" 0 0 none
# An IPv4-mapped destination from an IPv6 socket travels as IPv4: counted
# once, by the IPv4 socket (the IPv6 one is v6only).
"$MRC_INJECT" ::ffff:127.0.0.1 probe >/dev/null ||
	mrc_die "mrc_inject ::ffff:127.0.0.1"
expect "probe to ::ffff:127.0.0.1" 1 28 rx_drop_no_qp

# Through a device rather than loopback: from a peer netns over veth.
mrc_log "# from a peer netns over veth"
mrc_netns_add
peer=$MRC_NS
mrc_exec -n "$peer" config set listen 1 || mrc_die "$peer: config set listen 1"
# Loaded by hand: run-vm's guest cannot autoload modules.
[ -d /sys/module/veth ] || modprobe veth 2>/dev/null
if ip link add mrc-v0 type veth peer name mrc-v1 netns "$peer" 2>/dev/null; then
	ip addr add 10.47.91.1/24 dev mrc-v0
	ip addr add fd00:4791::1/64 dev mrc-v0 nodad
	ip link set mrc-v0 up
	ip -n "$peer" addr add 10.47.91.2/24 dev mrc-v1
	ip -n "$peer" addr add fd00:4791::2/64 dev mrc-v1 nodad
	ip -n "$peer" link set mrc-v1 up
	# No neighbour resolution to wait for: the first packet goes at once.
	read -r mac </sys/class/net/mrc-v0/address
	ip -n "$peer" neigh replace 10.47.91.1 lladdr "$mac" dev mrc-v1 nud permanent
	ip -n "$peer" neigh replace fd00:4791::1 lladdr "$mac" dev mrc-v1 nud permanent
	for case in "probe 28 rx_drop_no_qp" "short5 5 rx_drop_short" \
		    "bad-version 28 rx_drop_bad_version" \
		    "write-only-1k 1064 rx_drop_no_qp"; do
		read -r kind len drop <<<"$case"
		for addr in 10.47.91.1 fd00:4791::1; do
			out=$(ip netns exec "$peer" "$MRC_INJECT" "$addr" "$kind" 2>&1) ||
				mrc_die "mrc_inject $addr $kind from $peer: $out"
			if [ "$kind" = write-only-1k ]; then
				# Its NACK goes to the peer.
				expect_deltas "veth $addr $kind ($len bytes)" \
					rx_packets=1 rx_bytes="$len" \
					rx_drop_no_qp=1 nack_tx=1
			else
				expect "veth $addr $kind ($len bytes)" 1 "$len" "$drop"
			fi
		done
	done
	chk_eq "peer netns: rx_packets (the two NACKs of the data packets)" \
		"$(mrc_stat -n "$peer" rx_packets)" 2
	chk_eq "peer netns: rx_drop_no_qp (it has no QP for them)" \
		"$(mrc_stat -n "$peer" rx_drop_no_qp)" 2

	# A flood to a port nobody bound draws at most 1000 NACKs a second.
	t0=$(mrc_now_ms)
	ip netns exec "$peer" "$MRC_INJECT" -c 3000 10.47.91.1 write-only >/dev/null ||
		mrc_die "mrc_inject flood from $peer"
	mrc_stats_snapshot after || mrc_die "mrc stats: ${after[error]}"
	secs=$(( ($(mrc_now_ms) - t0) / 1000 + 1 ))
	nacks=$((after[nack_tx] - before[nack_tx]))
	desc="flood of 3000 to a port nobody bound: $nacks NACKs in ~$secs s"
	if [ "$nacks" -ge 1 ] && [ "$nacks" -le $((1000 * (secs + 1))) ] &&
	   { [ "$nacks" -lt 3000 ] || [ "$secs" -ge 3 ]; }; then
		mrc_pass "$desc (at most 1000 a second)"
	else
		mrc_fail "$desc, want 1 to $((1000 * (secs + 1)))"
	fi
	expect_deltas "the flood's counters" rx_packets=3000 \
		rx_bytes=$((3000 * 40)) rx_drop_no_qp=3000 nack_tx="$nacks"
	ip link del mrc-v0
else
	mrc_skip_check "packets over veth" "cannot create a veth pair"
fi
mrc_netns_del "$peer"

# --- data packets to a bound socket ---------------------------------------

mrc_log "# data packets to a socket bound here, from a peer netns over veth"
mrc_netns_add
peer=$MRC_NS
mrc_exec -n "$peer" config set listen 1 || mrc_die "$peer: config set listen 1"
PORT=5000		# the socket mrc_sockapi --hold binds (both families)
NOBODY=4000		# a port nobody binds
hold_out=$mrc_tmpdir/hold.out
if mrc_veth_pair "$MRC_IN_NETNS" "$peer"; then
	"$MRC_SOCKAPI" --hold "$PORT" 300 >"$hold_out" 2>&1 &
	hold_pid=$!
	mrc_at_exit "kill $hold_pid"
	mrc_wait_bound "$hold_pid" "$PORT" 20 ||
		mrc_die "mrc_sockapi --hold $PORT: $(cat "$hold_out")"
	# inj ADDR OPTION... KIND...: mrc_inject from the peer to ADDR
	# (getopt takes the options after ADDR too).
	inj() {
		local addr=$1 out

		shift
		out=$(ip netns exec "$peer" "$MRC_INJECT" "$addr" "$@" 2>&1) ||
			mrc_die "mrc_inject $addr $* from $peer: $out"
	}
	n=0
	for addr in "$MRC_IP4_A" "$MRC_IP6_A"; do
		n=$((n + 1))
		# One sender (port 7000 + n, epoch 0x1234) per family.
		sp=$((7000 + n))
		inj "$addr" -q "$NOBODY" -s "$sp" data
		expect_deltas "$addr: data to port $NOBODY, nobody bound" \
			rx_packets=1 rx_bytes=104 rx_drop_no_qp=1 nack_tx=1
		# A message, its duplicate, and two probes between the ports
		# of that queue pair: back to back, from one mrc_inject, so
		# that the queue pair cannot close in between (idle for 3 s,
		# as reading the counters, or starting a program, can take on
		# the debug kernel under TCG).  A probe carries
		# its sender's tag alone, in its PETH (MRC 1.0's 28 bytes):
		# the first has mrc_inject's tag (-t's default), which the
		# queue pair learnt from the message as its peer's, so it is
		# answered (the answer goes to the peer netns); the second,
		# with another tag, is not (rx_drop_bad_tag).  Nor is one from
		# a port with no queue pair here (no reflection to a forged
		# source).
		inj "$addr" -q "$PORT" -s "$sp" data data probe probe,t=0x5eed
		expect_deltas "$addr: a 64 B message, its duplicate, a probe with the peer's tag, answered, and one with another, not" \
			rx_packets=4 rx_bytes=264 rx_data_packets=1 rx_msgs=1 \
			rx_dup_packets=1 total_probe_pkts_rx=1 probe_resp_tx=1 \
			rx_drop_bad_tag=1
		inj "$addr" -q "$PORT" -s 9999 -c 3 probe
		expect_deltas "$addr: 3 probes for no queue pair, unanswered" \
			rx_packets=3 rx_bytes=84 rx_drop_no_qp=3
		inj "$addr" -q "$PORT" -s "$sp" -c 3 data-overrun
		expect_deltas "$addr: 3 x payload past the message length" \
			rx_packets=3 rx_bytes=312 rx_drop_malformed=3
		inj "$addr" -q "$PORT" -s "$sp" -c 2 data-offset-overrun
		expect_deltas "$addr: 2 x offset + length past the message length" \
			rx_packets=2 rx_bytes=208 rx_drop_malformed=2
		inj "$addr" -q "$PORT" -s "$sp" -c 2 data-too-big
		expect_deltas "$addr: 2 x message length max-msg-size + 1" \
			rx_packets=2 rx_bytes=208 rx_drop_malformed=2
		# Beyond the window of a queue pair: from a new sender, back
		# to back with the message that opens it (the one above may
		# have closed by now, idle while the counters were read).
		inj "$addr" -q "$PORT" -s $((sp + 400)) data data-oow data-oow \
			data-oow data-oow data-oow
		expect_deltas "$addr: a message, then 5 x PSN 65536, beyond the window" \
			rx_packets=6 rx_bytes=624 rx_data_packets=1 rx_msgs=1 \
			rx_drop_out_of_window=5 nack_tx=5
		# From senders with no queue pair here: data that could not
		# start one (no start flag; a PSN beyond the first window)
		# allocates nothing, and draws NACK 0x0B.
		inj "$addr" -q "$PORT" -s $((sp + 200)) -c 2 data-nostart
		inj "$addr" -q "$PORT" -s $((sp + 300)) -c 3 data-oow
		expect_deltas "$addr: 2 x no start flag, 3 x PSN 65536, no queue pair" \
			rx_packets=5 rx_bytes=520 rx_drop_no_start=5 nack_tx=5
		# The window's edge (abi.md: PSN >= cumulative + 1 + 256 is
		# out), from a new sender, back to back: a message (PSN 0),
		# so cumulative PSN 0; PSN 256, the window's last (held out
		# of order, MSN 2 after a missing MSN 1: no message completes); PSN 257, the first
		# beyond it.
		inj "$addr" -q "$PORT" -s $((sp + 100)) data data-edge data-beyond
		expect_deltas "$addr: PSN 0, PSN 256 held, PSN 257 beyond the window" \
			rx_packets=3 rx_bytes=312 rx_data_packets=2 rx_msgs=1 \
			rx_drop_out_of_window=1 nack_tx=1
		# Incarnation tags (include/mrc/tag.h), at a queue pair a
		# message opened (tag 0x7a670001): a new incarnation with
		# another tag that does not echo the server's is dropped and
		# challenged (NACK 0x1A); data of the live incarnation with
		# another tag is dropped and refused as if there were no QP
		# (NACK 0x0B); an acknowledgment not echoing the server's
		# tag, and untagged data, are dropped, unanswered.  Nothing
		# of them reaches the socket.
		inj "$addr" -q "$PORT" -s $((sp + 500)) data \
			data,t=0x5eed,e=0x4321
		expect_deltas "$addr: a message, then a new incarnation with another tag, challenged" \
			rx_packets=2 rx_bytes=208 rx_data_packets=1 rx_msgs=1 \
			rx_drop_blind_reset=1 nack_tx=1
		# (Each group from one mrc_inject, back to back, from a
		# sender of its own: a queue pair idle for 3 s is closed, and
		# on a loaded host under TCG, three programs started one after
		# the other have taken that long: the acknowledgment then found
		# no queue pair.)
		inj "$addr" -q "$PORT" -s $((sp + 600)) data \
			data-nostart,t=0x5eed,n=1,m=1 data-nostart,U,n=1,m=1 \
			ack-forged,n=0
		expect_deltas "$addr: a message, then its data with another tag refused, untagged data and an acknowledgment not echoing the server's tag dropped" \
			rx_packets=4 rx_bytes=328 rx_data_packets=1 rx_msgs=1 \
			rx_drop_bad_tag=3 nack_tx=1
	done
	# What the socket got: the messages of PSN 0, nothing else (none
	# of the forged tags').
	mrc_kill_pid "$hold_pid"
	want="bound $PORT
msg inet 64 $MRC_IP4_B 7001 c8c9cacbcccdcecf
msg inet 64 $MRC_IP4_B 7401 c8c9cacbcccdcecf
msg inet 64 $MRC_IP4_B 7101 c8c9cacbcccdcecf
msg inet 64 $MRC_IP4_B 7501 c8c9cacbcccdcecf
msg inet 64 $MRC_IP4_B 7601 c8c9cacbcccdcecf
msg inet6 64 $MRC_IP6_B 7002 c8c9cacbcccdcecf
msg inet6 64 $MRC_IP6_B 7402 c8c9cacbcccdcecf
msg inet6 64 $MRC_IP6_B 7102 c8c9cacbcccdcecf
msg inet6 64 $MRC_IP6_B 7502 c8c9cacbcccdcecf
msg inet6 64 $MRC_IP6_B 7602 c8c9cacbcccdcecf"
	chk_same "the bound socket received exactly the ten whole messages" \
		"$(cat "$hold_out")" "$want"
	ip -n "$peer" link del "$MRC_VETH_B"
else
	mrc_fail "data packets to a bound socket: cannot create a veth pair"
fi
mrc_netns_del "$peer"

mrc_log "# totals since the netns was made"
mrc_stats_snapshot after
for c in "${COUNTERS[@]}"; do
	chk_eq "total $c" "${after[$c]}" "${total[$c]}"
done
sum=0
for c in "${FATES[@]}"; do
	sum=$((sum + ${after[$c]:-0}))
done
chk_eq "drops, duplicates and accepted data add up to rx_packets" \
	"$sum" "${after[rx_packets]}"


mrc_dmesg_check "kernel log of the rx test"
mrc_exit
