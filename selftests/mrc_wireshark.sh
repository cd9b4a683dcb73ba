#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Wireshark dissector (tools/wireshark/mrc.lua) against a capture of
# a real transfer: what tshark decodes must agree with the module's
# counters and with the wire format, packet by packet.
#
#   +------ client netns -------+          +------ server netns -------+
#   | mrcperf client            |          | mrcperf server -1         |
#   | mrc_inject (probe, data)  |==========| tshark -i mrc-b           |
#   | [netem loss 2%, 20 Mbit/s]|   veth   |                           |
#   +---------------------------+          +---------------------------+
#
# While 60 x 64 KiB go from client to server, the client also sends a
# probe on the transfer's queue pair (mrc_inject, probe number 7, three
# copies against the link's loss) and a
# data packet to a port nothing is bound to.  The capture, on the
# server's side of the link, then decoded with the dissector, must show:
#   1. as many mrc packets from the client as the server's rx_packets
#      counted, and from the server as its tx_packets;
#   2. the transfer's data PSNs, per epoch, exactly 0..N-1 with N the
#      client's tx_data_packets less its retransmissions; one
#      WRITE_FIRST and one WRITE_LAST per 64 KiB message;
#   3. every SACK's reflected entropy value equal to its own UDP source
#      port and to the UDP source port of a copy of the data packet it
#      names (the acknowledged PSN), sent before it;
#   4. the NACK of the stray data packet: reason 0x19, its PSN, its UDP
#      source port as entropy value;
#   5. the probe 74 bytes on the wire and its response 94 (the frame
#      captured, plus the 4-byte FCS a veth does not carry), the
#      response echoing the probe's number and value;
#   6. trims: the trimming program (mrc_trim.bpf.o) on the client's
#      egress cuts every 25th data packet to its headers, codepoint 12.
#      Each trimmed packet captured (DSCP 12, no payload) is counted in
#      the server's rx_trimmed; each draws a NACK with reason 0x01, its
#      epoch and PSN, and its UDP source port as entropy value (and as
#      the NACK's own UDP source port); each such PSN comes again later
#      with its payload, flagged a retransmission.  An excerpt of one
#      trim, its NACK and its resend goes to the log.

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip tc jq tshark mount nsenter
mrc_require_cli
mrc_require_mrcperf
mrc_require_inject
mrc_load
mrc_dmesg_mark

T=$mrc_tmpdir
LUA=$MRC_TREE/tools/wireshark/mrc.lua
[ -r "$LUA" ] || mrc_die "no dissector at $LUA"
PORT=6100
NMSG=60
SIZE=65536
INJ_PSN=4242

mrc_client_server
mrc_netem "$C" "$MRC_VETH_A" loss 2% rate 20mbit ||
	mrc_die "cannot set up netem"

# The trimming program on the client's egress, before netem: every 25th
# data packet.  Not "tc -n": see mrc_trim.sh.
BPF_OBJ=$MRC_SELFTEST_DIR/mrc_trim.bpf.o
TRIMCTL=$MRC_SELFTEST_DIR/mrc_trimctl
if [ ! -r "$BPF_OBJ" ] || [ ! -x "$TRIMCTL" ]; then
	mrc_die "no $BPF_OBJ or $TRIMCTL: run make -C selftests"
fi
if ! grep -q ' /sys/fs/bpf bpf ' /proc/mounts; then
	mount -t bpf bpf /sys/fs/bpf || mrc_die "cannot mount bpffs"
fi
rm -f /sys/fs/bpf/tc/globals/mrc_trim_cfg /sys/fs/bpf/tc/globals/mrc_trim_stats
out=$(nsenter --net="/run/netns/$C" tc qdisc add dev "$MRC_VETH_A" clsact 2>&1 &&
      nsenter --net="/run/netns/$C" tc filter add dev "$MRC_VETH_A" egress \
	bpf da obj "$BPF_OBJ" sec tc 2>&1) ||
	mrc_die "cannot attach $BPF_OBJ: $out"
"$TRIMCTL" every 25 dscp 12 >/dev/null || mrc_die "mrc_trimctl every 25"

# shellcheck disable=SC2034 # used by name: mrc_stats_snapshot
declare -A CB=() CA=() SB=() SA=()

# The capture: dumpcap says "Capturing on" once it is.
ip netns exec "$S" tshark -q -i "$MRC_VETH_B" -f "udp port 4791" \
	-w "$T/cap.pcapng" 2>"$T/tshark.err" &
tpid=$!
for ((i = 0; i < 100; i++)); do
	grep -q "Capturing on" "$T/tshark.err" && break
	mrc_sleep 0.1
done
grep -q "Capturing on" "$T/tshark.err" ||
	mrc_die "tshark did not start: $(cat "$T/tshark.err")"

mrc_stats_snapshot -n "$C" CB || mrc_die "mrc stats in $C"
mrc_stats_snapshot -n "$S" SB || mrc_die "mrc stats in $S"
ip netns exec "$S" "$MRCPERF" server -p "$PORT" -1 -j \
	>"$T/srv.out" 2>"$T/srv.err" &
spid=$!
mrc_wait_bound "$spid" "$PORT" 20 || mrc_die "mrcperf server did not start"
ip netns exec "$C" "$MRCPERF" client "$MRC_IP4_B" -p "$PORT" -j \
	-s "$SIZE" -n "$NMSG" -c 4 --timeout 60 >"$T/cli.out" 2>"$T/cli.err" &
cpid=$!

# The transfer's QP at the server: its port and the client's.
rport=""
for ((i = 0; i < 100; i++)); do
	rport=$(mrc_exec -n "$S" -j qp show 2>/dev/null | jq -r \
		--argjson p "$PORT" '[.[] | select(.local_port == $p)][0].remote_port // empty')
	[ -n "$rport" ] && break
	mrc_sleep 0.05
done
[ -n "$rport" ] || mrc_die "no queue pair at the server"
# Three times: the client's egress loses 2 % of what it sends, and one
# copy is all the checks need.
ip netns exec "$C" "$MRC_INJECT" -c 3 -q "$PORT" -s "$rport" "$MRC_IP4_B" \
	probe >/dev/null || mrc_die "mrc_inject probe failed"
ip netns exec "$C" "$MRC_INJECT" -n "$INJ_PSN" "$MRC_IP4_B" data \
	>/dev/null || mrc_die "mrc_inject data failed"

mrc_wait_pid "$cpid" 90 || mrc_die "mrcperf client still running after 90 s"
crc=$MRC_WAIT_RC
mrc_wait_pid "$spid" 30 || mrc_kill_pid "$spid"
srv_rc=${MRC_WAIT_RC:-timeout}
if [ "$crc" = 0 ] && [ "$srv_rc" = 0 ]; then
	mrc_pass "$NMSG x 64 KiB through loss 2%: verified"
else
	mrc_fail "$NMSG x 64 KiB: client exit $crc, server $srv_rc" \
		"$(cat "$T/cli.out" "$T/cli.err" "$T/srv.out" "$T/srv.err")"
fi
# Late acknowledgements and duplicates, then the counters and the end of
# the capture.
mrc_sleep 1
mrc_stats_snapshot -n "$C" CA || mrc_die "mrc stats in $C"
mrc_stats_snapshot -n "$S" SA || mrc_die "mrc stats in $S"
kill -INT "$tpid"
mrc_wait_pid "$tpid" 20 || mrc_die "tshark did not stop"
dropped=$(grep -oE 'dropped[^0-9]*[0-9]+' "$T/tshark.err" | grep -oE '[0-9]+$')

# One line per packet: fields in a fixed order, "" where absent.
tshark -r "$T/cap.pcapng" -X lua_script:"$LUA" -o udp.try_heuristic_first:TRUE -Y mrc -T fields \
	-E separator=, -E occurrence=f \
	-e frame.len -e ip.src -e udp.srcport -e mrc.opcode -e mrc.psn \
	-e mrc.epoch -e mrc.dport -e mrc.flags.rtx -e mrc.acked_psn \
	-e mrc.entropy -e mrc.probe_resp -e mrc.probe_num -e mrc.reason \
	-e mrc.nack_psn -e mrc.payload_len -e mrc.sport -e ip.dsfield.dscp \
	>"$T/dec.csv" 2>"$T/dec.err" || mrc_die "tshark could not decode:" \
	"$(cat "$T/dec.err")"
nall=$(tshark -r "$T/cap.pcapng" 2>/dev/null | wc -l)
ndec=$(wc -l <"$T/dec.csv")
if [ "$ndec" -gt 0 ] && [ "$ndec" = "$nall" ]; then
	mrc_pass "dissector: all $nall packets captured decoded as mrc" \
		"(capture dropped ${dropped:-0})"
else
	mrc_fail "dissector: $ndec of $nall packets decoded as mrc" \
		"$(tshark -r "$T/cap.pcapng" -X lua_script:"$LUA" -o udp.try_heuristic_first:TRUE -Y 'not mrc' \
		   2>&1 | head -10)"
fi

# --- 1. packets both ways against the counters ---------------------------

from_c=$(awk -F, -v a="$MRC_IP4_A" '$2 == a' "$T/dec.csv" | wc -l)
from_s=$(awk -F, -v a="$MRC_IP4_B" '$2 == a' "$T/dec.csv" | wc -l)
v=$(mrc_stats_delta rx_packets SB SA)
chk() {	# chk DESC GOT WANT
	if [ "$2" = "$3" ]; then
		mrc_pass "$1: $2"
	else
		mrc_fail "$1: $2, want $3"
	fi
}
chk "packets from the client captured = server's rx_packets" "$from_c" "$v"
chk "packets from the server captured = server's tx_packets" "$from_s" \
	"$(mrc_stats_delta tx_packets SB SA)"

# --- 2. PSNs and opcodes of the transfer ---------------------------------

# The client's data on the transfer's QP: distinct (epoch, PSN).
awk -F, -v a="$MRC_IP4_A" -v p="$PORT" \
	'$2 == a && $7 == p && $4 ~ /^0xc[6-9ab]$/ { print $6, $5, $4 }' \
	"$T/dec.csv" | sort -u >"$T/data"
rtx=$(($(mrc_stats_delta total_rtx_sack CB CA) +
       $(mrc_stats_delta total_rtx_timeout CB CA) +
       $(mrc_stats_delta total_rtx_mtu CB CA)))
want=$(($(mrc_stats_delta tx_data_packets CB CA) - rtx))
read -r n gaps epochs < <(awk '
	{ if (!($1 in max) || $2 > max[$1]) max[$1] = $2; cnt[$1]++; n++ }
	END {
		g = 0; e = 0
		for (k in max) { e++; if (max[k] + 1 != cnt[k]) g++ }
		print n, g, e
	}' "$T/data")
if [ "$n" = "$want" ] && [ "$gaps" = 0 ]; then
	mrc_pass "data PSNs: $n distinct in $epochs epoch(s), each 0..N-1 with" \
		"no gap, = tx_data_packets less $rtx retransmissions"
else
	mrc_fail "data PSNs: $n distinct, $gaps epoch(s) with gaps;" \
		"want $want (tx_data_packets less $rtx retransmissions)"
fi
chk "WRITE_FIRST (0xc6) packets, one per message" \
	"$(awk '$3 == "0xc6"' "$T/data" | wc -l)" "$NMSG"
chk "WRITE_LAST (0xc8) packets, one per message" \
	"$(awk '$3 == "0xc8"' "$T/data" | wc -l)" "$NMSG"
chk "WRITE_MIDDLE (0xc7) packets, 14 per message at mss 4096" \
	"$(awk '$3 == "0xc7"' "$T/data" | wc -l)" "$((NMSG * 14))"

# --- 3. SACKs echo the entropy value of the packet they name -------------

# (epoch, PSN) -> the UDP source ports of its copies, in capture order.
read -r nsack bad < <(awk -F, -v a="$MRC_IP4_A" -v b="$MRC_IP4_B" '
	$2 == a && $4 ~ /^0xc[6-9ab]$/ { seen[$6 " " $5 " " $3] = 1 }
	$2 == b && $4 == "0xdc" && $11 != "1" {
		n++
		if ($10 != $3 || !(($6 " " $9 " " $10) in seen)) {
			bad++
			if (bad <= 3)
				print "# SACK " $0 > "/dev/stderr"
		}
	}
	END { print n + 0, bad + 0 }' "$T/dec.csv" 2>"$T/sack.bad")
if [ "$nsack" -gt 0 ] && [ "$bad" = 0 ]; then
	mrc_pass "SACKs: all $nsack echo their own UDP source port, the value" \
		"of a copy of the PSN they name"
else
	mrc_fail "SACKs: $bad of $nsack do not echo the value of the packet" \
		"they name" "$(cat "$T/sack.bad")"
fi
chk "SACKs captured = server's sack_tx" "$nsack" \
	"$(mrc_stats_delta sack_tx SB SA)"

# --- 4. the NACK of the stray data packet --------------------------------

isport=$(awk -F, -v a="$MRC_IP4_A" -v q="$INJ_PSN" \
	'$2 == a && $4 ~ /^0xc[6-9ab]$/ && $5 == q { print $3; exit }' "$T/dec.csv")
nack=$(awk -F, -v b="$MRC_IP4_B" -v q="$INJ_PSN" \
	'$2 == b && $4 == "0xdd" && $14 == q { print $13, $10, $3; exit }' \
	"$T/dec.csv")
if [ -n "$isport" ] && [ "$nack" = "0x19 $isport $isport" ]; then
	mrc_pass "NACK of data to no socket: reason 0x19, PSN $INJ_PSN," \
		"value $isport reflected and as its UDP source port"
else
	mrc_fail "NACK of data to no socket: '$nack' (reason, value, UDP" \
		"source port), want '0x19 $isport $isport'"
fi

# --- 5. probes and their responses ---------------------------------------

# The client's own probes (values gone bad under the loss) and the one
# injected: each 74 bytes on the wire, each answered by a response of 94
# from the probed value, echoing its number and value.
read -r np bad nr rbad < <(awk -F, -v a="$MRC_IP4_A" -v b="$MRC_IP4_B" '
	$2 == a && $4 == "0xde" {
		np++
		if ($1 + 4 != 74) { bad++; print "# probe " $0 > "/dev/stderr" }
		want[$12 " " $3] = 1
	}
	$2 == b && $4 == "0xdc" && $11 == "1" {
		nr++
		if ($1 + 4 != 94 || $10 != $3 || !(($12 " " $10) in want)) {
			rbad++
			print "# response " $0 > "/dev/stderr"
		}
	}
	END { print np + 0, bad + 0, nr + 0, rbad + 0 }' "$T/dec.csv" \
	2>"$T/probe.bad")
inj=$(awk -F, -v a="$MRC_IP4_A" '$2 == a && $4 == "0xde" && $12 == 7 &&
	$3 > 1023 { print $3; exit }' "$T/dec.csv")
if [ "$np" -gt 0 ] && [ "$bad" = 0 ] && [ -n "$inj" ]; then
	mrc_pass "probes: all $np 74 bytes on the wire (the one injected," \
		"number 7, from port $inj among them)"
else
	mrc_fail "probes: $bad of $np not 74 bytes on the wire, or the" \
		"injected one (number 7) missing: '$inj'" "$(cat "$T/probe.bad")"
fi
if [ "$nr" -gt 0 ] && [ "$rbad" = 0 ]; then
	mrc_pass "probe responses: all $nr 94 bytes on the wire, from the" \
		"probed value, echoing the number and value of a probe"
else
	mrc_fail "probe responses: $rbad of $nr wrong" "$(cat "$T/probe.bad")"
fi
chk "probes captured = server's total_probe_pkts_rx" "$np" \
	"$(mrc_stats_delta total_probe_pkts_rx SB SA)"
chk "probe responses captured = server's probe_resp_tx" "$nr" \
	"$(mrc_stats_delta probe_resp_tx SB SA)"

# --- 6. trims, their NACKs and their resends -----------------------------

# (epoch, PSN, UDP source port) of each trimmed packet; each NACK 0x01 by
# (epoch, NACK PSN, entropy value, its own UDP source port); and whether
# each trimmed PSN came again later with its payload, as a retransmission
# (a resend may be trimmed too: then the copy after it).  Unless a copy
# with its payload reached the server before the trim: the trimmed one
# was a retransmission (a timeout's, spurious under TCG), the PSN is
# acknowledged by the time its NACK comes, and the spec's table says the
# NACK then marks the value and resends nothing.
read -r ntr nnk nbad nres ndist < <(awk -F, -v a="$MRC_IP4_A" -v b="$MRC_IP4_B" '
	$2 == a && $4 ~ /^0xc[6-9ab]$/ && $17 == 12 && $15 == 0 {
		ntr++
		tr[$6 " " $5 " " $3] = 1
		if (!(($6 " " $5) in psn)) { psn[$6 " " $5] = 1; ndist++ }
		if (($6 " " $5) in whole) {
			if (!(($6 " " $5) in resent)) {
				resent[$6 " " $5] = 1
				res++
				early++
			}
		} else {
			pend[$6 " " $5] = 1
		}
		if (!ex1) { ex1 = 1; print "# trimmed: " $0 > "/dev/stderr" }
		next
	}
	$2 == a && $4 ~ /^0xc[6-9ab]$/ && $15 > 0 &&
	!(($6 " " $5) in pend) {
		whole[$6 " " $5] = 1
	}
	$2 == a && $4 ~ /^0xc[6-9ab]$/ && $15 > 0 && (($6 " " $5) in pend) &&
	$8 == 1 {
		delete pend[$6 " " $5]
		# Once per PSN: a PSN sent again later may be trimmed and
		# resent again.
		if (!(($6 " " $5) in resent)) {
			resent[$6 " " $5] = 1
			res++
		}
		whole[$6 " " $5] = 1
		if (!ex3) { ex3 = 1; print "# resent:  " $0 > "/dev/stderr" }
		next
	}
	$2 == b && $4 == "0xdd" && $13 == "0x01" {
		nk++
		if ($10 != $3 || !(($6 " " $14 " " $10) in tr)) {
			bad++
			print "# NACK " $0 > "/dev/stderr"
		} else if (!ex2) {
			ex2 = 1
			print "# NACK:    " $0 > "/dev/stderr"
		}
	}
	END {
		if (early)
			print "# trimmed after a copy with its payload got" \
				" through (no resend due): " early > "/dev/stderr"
		print ntr + 0, nk + 0, bad + 0, res + 0, ndist + 0
	}' \
	"$T/dec.csv" 2>"$T/trim.txt")
read -r _ seen _ trimmed _ failed < <("$TRIMCTL" show)
mrc_log "# the program saw $seen data packets, trimmed $trimmed, failed $failed"
mrc_log "# (frame length, source, UDP source port, opcode, PSN, epoch, dest port,"
mrc_log "#  retransmit, acked PSN, entropy, probe response, probe number,"
mrc_log "#  reason, NACK PSN, payload length, sender port, DSCP)"
while read -r line; do
	mrc_log "$line"
done <"$T/trim.txt"
if [ "$ntr" -gt 0 ]; then
	mrc_pass "trims: $ntr trimmed packets captured (DSCP 12, no payload)"
else
	mrc_fail "trims: none captured (the program trimmed $trimmed)"
fi
chk "trims captured = server's rx_trimmed" "$ntr" \
	"$(mrc_stats_delta rx_trimmed SB SA)"
chk "NACKs 0x01 captured, one per trim" "$nnk" "$ntr"
chk "NACKs 0x01 not naming a trimmed packet's epoch, PSN and value" \
	"$nbad" 0
chk "trimmed PSNs ($ndist) resent with their payload, flagged rtx" \
	"$nres" "$ndist"

mrc_dmesg_check "the dissector test"
mrc_exit
