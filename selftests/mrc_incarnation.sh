#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034 # arrays read by name (lib.sh)
#
# An incarnation cannot be reset or impersonated blind (issue 13, item 3).
# Each end of a queue pair draws a random 32-bit tag; every packet
# carries its own and echoes the peer's (include/mrc/tag.h,
# Documentation/wire-format.rst).  While the client (C) sends 64 KiB
# messages to the server (S), a local user of either host sends, from a
# plain UDP socket (mrc_inject), packets with the live queue pair's
# addresses, mrc ports and epoch (read off the wire), a PSN that was in
# flight, and tags drawn anew at random for each packet (-R): a blind
# attacker who knows everything but the tags.
#
#   1. To the client, acknowledgments that would end or confuse its
#      transfer: a cumulative ACK, NACK 0x0B (the peer has no state: the
#      QP would fail, ECONNRESET), NACK 0x19 (no socket: ECONNREFUSED),
#      NACK 0x1A (a challenge: it would take a forged tag for the
#      peer's).  Each dropped and counted (rx_drop_bad_tag), no QP fails.
#   2. To the server, data that would start a new incarnation of the
#      client's direction (start flag, PSN 0, a whole message), in every
#      epoch (-E): each dropped and counted (rx_drop_blind_reset) and
#      challenged (one a queue pair per 10 ms); the challenges, which
#      echo the forged tags, dropped at the client; none taken
#      (qp_reincarnated 0), nothing delivered of them.
#   3. To the server, data of the live incarnation (no start flag):
#      dropped (rx_drop_bad_tag), refused as if there were no QP (NACK
#      0x0B without state, rate-limited), which the client drops too.
#   4. Untagged (MRC 1.0) data and acknowledgments: dropped
#      (rx_drop_bad_tag), unanswered; and a probe with a forged tag
#      (a probe carries its sender's alone, in its PETH: MRC 1.0's 28
#      bytes) draws no answer.
#   5. Positive controls: data and ACKs for a PSN long acknowledged,
#      with the tags read off the wire, are taken (as a duplicate, as a
#      late ACK), not dropped: the drops above were the tags'.
#   Through all of it the transfer verifies: every message delivered
#   once (rx_msgs at the server = the client's messages + 2).
#
# The restarted peer, which a challenge lets in, is mrc_sockapi's
# reincarnate test; the forged acknowledgments swept over every epoch,
# mrc_transport.sh's section 6.  On the debug kernel, 1,000 packets an
# attack, not 20,000 (65,535 for item 2's sweep).

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip jq python3
mrc_require_cli
mrc_require_mrcperf
mrc_require_inject
mrc_load
mrc_dmesg_mark

T=$mrc_tmpdir
PORT=6500
N=20000
SECS=20
if [ "${MRC_DEBUG_KERNEL:-0}" = 1 ]; then
	N=1000
	SECS=90
fi
# shellcheck disable=SC2034 # filled and read by name (lib.sh)
declare -A C0 S0 CB CA SB SA

mrc_client_server

# sniff.py DEV: the first data packet that comes in by DEV echoing a tag,
# as "SPORT DPORT EPOCH PSN TAG ECHO": the sender's and receiver's mrc
# ports, the epoch of its direction, its PSN, and the tags of both ends
# (an AF_PACKET socket, 10 s at most).  The tags are for the positive
# controls alone: what the attacks lack.
cat >"$T/sniff.py" <<'EOF'
import socket, struct, sys, time

s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0800))
s.bind((sys.argv[1], 0))
s.settimeout(1)
end = time.time() + 10
while time.time() < end:
    try:
        p, a = s.recvfrom(2048)
    except socket.timeout:
        continue
    if a[2] != socket.PACKET_HOST or p[9] != 17:
        continue
    u = p[(p[0] & 15) * 4:]
    m = u[8:]
    if struct.unpack('!H', u[2:4])[0] != 4791 or len(m) < 40 or \
       not 0xc6 <= m[0] <= 0xcb:
        continue
    reth = 16 + (4 if m[8] & 0x10 else 0)
    sport, epoch = struct.unpack('!HH', m[reth + 8:reth + 12])
    tag, echo = struct.unpack('!II', m[reth + 16:reth + 24])
    if not m[8] & 0x08 or not echo:
        continue
    print(sport, int.from_bytes(m[5:8], 'big'), epoch,
          int.from_bytes(m[9:12], 'big'), tag, echo)
    sys.exit(0)
sys.exit(1)
EOF

# sniff NS DEV: sniff.py in NS.
sniff() {
	ip netns exec "$1" python3 "$T/sniff.py" "$2"
}

# chk_range DESC GOT LO HI: LO <= GOT <= HI.
chk_range() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then
		mrc_pass "$1: $2 (want $3..$4)"
	else
		mrc_fail "$1: $2, want $3..$4" \
			"client: $(mrc_exec -n "$C" stats | grep -v ' 0$' | tr '\n' ' ')" \
			"server: $(mrc_exec -n "$S" stats | grep -v ' 0$' | tr '\n' ' ')"
	fi
}

# inject NS ADDR ARGS...: mrc_inject in NS to ADDR; sets LOST to the
# packets the backlogs dropped meanwhile.
inject() {
	local ns=$1 addr=$2 d0 out

	shift 2
	d0=$(softnet_drops)
	out=$(ip netns exec "$ns" "$MRC_INJECT" "$addr" "$@" 2>&1) ||
		mrc_die "mrc_inject $addr $*: $out"
	LOST=$(($(softnet_drops) - d0))
}

# after: the counters of both ends now, into CA and SA, once what was
# injected has been taken (and the answers to it have come back).
after() {
	mrc_sleep 0.5
	mrc_stats_snapshot -n "$C" CA || mrc_die "mrc stats in $C"
	mrc_stats_snapshot -n "$S" SA || mrc_die "mrc stats in $S"
}

# d SIDE COUNTER: its change at SIDE (C or S) from SIDE's B to its A.
d() {
	mrc_stats_delta "$2" "${1}B" "${1}A"
}

# next: the next deltas are from here.
next() {
	local k

	for k in "${!CA[@]}"; do
		CB[$k]=${CA[$k]}
	done
	for k in "${!SA[@]}"; do
		SB[$k]=${SA[$k]}
	done
}

ip netns exec "$S" "$MRCPERF" server -p "$PORT" -1 -j \
	>"$T/srv.out" 2>"$T/srv.err" &
srv=$!
mrc_wait_bound "$srv" "$PORT" 20 || mrc_die "mrcperf server did not start"
mrc_stats_snapshot -n "$C" C0 || mrc_die "mrc stats"
mrc_stats_snapshot -n "$S" S0 || mrc_die "mrc stats"
ip netns exec "$C" "$MRCPERF" client "$MRC_IP4_B" -p "$PORT" -j \
	-s 65536 -t "$SECS" -c 4 >"$T/cli.out" 2>"$T/cli.err" &
cli=$!

# The live queue pair's ports, epoch and a PSN in flight, off the wire.
read -r lport dport epoch psn ctag stag < <(sniff "$S" "$MRC_VETH_B") ||
	mrc_die "no data packet of the client's seen"
[ "$dport" = "$PORT" ] || mrc_die "sniffed a packet to port $dport, not $PORT"
mrc_log "# the client's queue pair: port $lport, epoch $epoch, PSN $psn in flight"
# Another epoch of the client's direction: a start of it would reset the
# server's receive side, were it taken.
epoch2=$((epoch % 65535 + 1))
mrc_stats_snapshot -n "$C" CB || mrc_die "mrc stats"
mrc_stats_snapshot -n "$S" SB || mrc_die "mrc stats"

# 1. Forged acknowledgments to the client, from the server's host.
inject "$S" "$MRC_IP4_A" -q "$lport" -s "$PORT" -e "$epoch" -n "$psn" \
	-c "$N" -R 1 ack-forged nack-oow nack-refused nack-challenge
after
chk_range "1. $((4 * N)) forged acknowledgments for a PSN in flight, dropped at the client (rx_drop_bad_tag)" \
	"$(d C rx_drop_bad_tag)" $((4 * N - LOST)) $((4 * N))
chk_eq "1. no queue pair failed at the client" "$(d C qp_failed)" 0
next

# 2. Blind resets of the server's receive side, from the client's host:
# every epoch (on the debug kernel, N of another epoch than the live one).
if [ "${MRC_DEBUG_KERNEL:-0}" = 1 ]; then
	NR=$N
	inject "$C" "$MRC_IP4_B" -q "$PORT" -s "$lport" -e "$epoch2" -c "$N" \
		-R 2 data
else
	NR=65535
	inject "$C" "$MRC_IP4_B" -q "$PORT" -s "$lport" -E -R 2 data
fi
after
chk_range "2. $NR forged starts of a new incarnation, dropped at the server (rx_drop_blind_reset)" \
	"$(d S rx_drop_blind_reset)" $((NR - LOST)) "$NR"
chk_eq "2. none taken (qp_reincarnated)" "$(d S qp_reincarnated)" 0
chk_range "2. the challenges (NACK 0x1A, rate-limited) dropped at the client (rx_drop_bad_tag)" \
	"$(d C rx_drop_bad_tag)" 1 "$(d S nack_tx)"
next

# 3. Forged data of the live incarnation, from the client's host.
inject "$C" "$MRC_IP4_B" -q "$PORT" -s "$lport" -e "$epoch" -n "$psn" \
	-c "$N" -R 3 data-nostart
after
chk_range "3. $N forged data packets of the live incarnation, dropped at the server (rx_drop_bad_tag)" \
	"$(d S rx_drop_bad_tag)" $((N - LOST)) "$N"
chk_range "3. their refusals (NACK 0x0B, rate-limited) dropped at the client (rx_drop_bad_tag)" \
	"$(d C rx_drop_bad_tag)" 1 "$(d S nack_tx)"
next

# 4. Untagged packets, and probes with forged tags (in PETH bytes 0-3).
inject "$C" "$MRC_IP4_B" -q "$PORT" -s "$lport" -e "$epoch" -c 100 -U \
	data data-nostart
after
chk_range "4. 200 untagged data packets dropped at the server (rx_drop_bad_tag)" \
	"$(d S rx_drop_bad_tag)" $((200 - LOST)) 200
chk_eq "4. ... unanswered: nothing with a wrong tag came back to the client" \
	"$(d C rx_drop_bad_tag)" 0
next
inject "$S" "$MRC_IP4_A" -q "$lport" -s "$PORT" -e "$epoch" -n "$psn" \
	-c 100 -U ack-forged nack-oow
after
chk_range "4. 200 untagged acknowledgments dropped at the client (rx_drop_bad_tag)" \
	"$(d C rx_drop_bad_tag)" $((200 - LOST)) 200
chk_eq "4. no queue pair failed at the client" "$(d C qp_failed)" 0
next
inject "$C" "$MRC_IP4_B" -q "$PORT" -s "$lport" -c 100 -R 4 probe
after
chk_range "4. 100 probes with a forged tag dropped at the server (rx_drop_bad_tag)" \
	"$(d S rx_drop_bad_tag)" $((100 - LOST)) 100
# The client's own probes, tagged, go on meanwhile once a timeout has
# marked a value bad (a slow kernel): the server answers those alone,
# each counted as taken (total_probe_pkts_rx) after its tag passed, the
# forged ones as dropped (above).
chk_eq "4. ... unanswered: the server answered the probes it took alone (probe_resp_tx = total_probe_pkts_rx)" \
	"$(d S probe_resp_tx)" "$(d S total_probe_pkts_rx)"

# 5. Positive controls: the same packets with the live queue pair's tags
# (off the wire: what a blind attacker lacks) are taken, each for what
# it is, a PSN long acknowledged: data as a duplicate, a cumulative ACK
# as a late one.  The drops above were the tags', and nothing else's.
next
inject "$C" "$MRC_IP4_B" -q "$PORT" -s "$lport" -e "$epoch" -n 0 -m 0 \
	-t "$ctag" -T "$stag" -c 100 data-nostart
after
chk_eq "5. control: 100 data packets with the client's tag, not dropped for tags" \
	"$(d S rx_drop_bad_tag)" 0
chk_range "5. control: ... taken as duplicates (rx_dup_packets)" \
	"$(d S rx_dup_packets)" $((100 - LOST)) 100000
next
inject "$S" "$MRC_IP4_A" -q "$lport" -s "$PORT" -e "$epoch" -n 0 \
	-t "$stag" -T "$ctag" -c 100 ack-forged
after
chk_eq "5. control: 100 ACKs with the server's tags, not dropped for tags" \
	"$(d C rx_drop_bad_tag)" 0
chk_range "5. control: ... taken (ack_rx)" \
	"$(d C ack_rx)" $((100 - LOST)) 100000
chk_eq "5. control: no queue pair failed at the client" "$(d C qp_failed)" 0

# The transfer ends and verifies: every message delivered once.
if kill -0 "$cli" 2>/dev/null; then
	mrc_pass "the transfer is still under way after the attacks"
else
	mrc_fail "the transfer ended during the attacks" "$(<"$T/cli.err")"
fi
mrc_wait_pid "$cli" $((SECS + 60)) || mrc_kill_pid "$cli"
rc=$MRC_WAIT_RC
mrc_wait_pid "$srv" 30 || mrc_kill_pid "$srv"
srv_rc=$MRC_WAIT_RC
mrc_stats_snapshot -n "$C" CA || mrc_die "mrc stats"
mrc_stats_snapshot -n "$S" SA || mrc_die "mrc stats"
msgs=$(jq -r .messages <"$T/cli.out" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$srv_rc" = 0 ] && [ -n "$msgs" ] && [ "$msgs" -gt 0 ]; then
	mrc_pass "the transfer verified: $msgs x 64 KiB" \
		"($(jq -r .goodput_mbps <"$T/cli.out") Mbit/s during the attacks)"
else
	mrc_fail "the transfer: client exit $rc, server $srv_rc" \
		"client: $(<"$T/cli.err") $(<"$T/cli.out")" \
		"server: $(<"$T/srv.err")"
fi
chk_eq "every message delivered once (server rx_msgs = client messages + 2)" \
	"$(mrc_stats_delta rx_msgs S0 SA)" $((msgs + 2))
chk_eq "no queue pair failed at either end" \
	"$(($(mrc_stats_delta qp_failed C0 CA) + $(mrc_stats_delta qp_failed S0 SA)))" 0

mrc_dmesg_check "incarnation"
mrc_exit
