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
# data packet to a port nothing is bound to.  The injected probe has the
# QP's addresses and mrc ports but not the client's incarnation tag (it
# carries mrc_inject's own, 0x7a670001, in PETH bytes 0-3): a forgery
# the server must drop.  The capture, on the server's side of the link,
# then decoded with the dissector, must show:
#   1. as many mrc packets from the client as the server's rx_packets
#      counted, and from the server as its tx_packets;
#   2. the transfer's data PSNs, per epoch, exactly 0..N-1 with N the
#      client's tx_data_packets less its retransmissions; one
#      WRITE_FIRST and one WRITE_LAST per 64 KiB message;
#   3. every SACK's reflected entropy value equal to its own UDP source
#      port and to the UDP source port of a copy of the data packet it
#      names (the acknowledged PSN), sent before it;
#   4. the NACK of the stray data packet: reason 0x19, its PSN, its UDP
#      source port as entropy value; sent without state, so with sender
#      tag 0, echoing the stray packet's tag;
#   5. every probe 74 bytes on the wire and every response 94, MRC 1.0's
#      sizes (the frame captured, plus the 4-byte FCS a veth does not
#      carry), neither with BTH flag 0x08; each response echoing the
#      number and value of one of the client's own probes; the injected
#      probes (tag 0x7a670001, not the client's) answered by none, each
#      counted in the server's rx_drop_bad_tag, and no other packet
#      there or at the client dropped for its tags (rx_drop_bad_tag,
#      rx_drop_blind_reset, qp_reincarnated);
#   6. trims: the trimming program (mrc_trim.bpf.o) on the client's
#      egress cuts every 25th data packet to its headers, codepoint 12.
#      Each trimmed packet captured (DSCP 12, no payload) is counted in
#      the server's rx_trimmed; each draws a NACK with reason 0x01, its
#      epoch and PSN, and its UDP source port as entropy value (and as
#      the NACK's own UDP source port); each such PSN comes again later
#      with its payload, flagged a retransmission.  An excerpt of one
#      trim, its NACK and its resend goes to the log.
#   7. incarnation tags: every mrc packet captured tagged: all but probes
#      and probe responses with an ITETH (BTH flag 0x08), every data
#      packet with 40 bytes of mrc headers (68 from the IPv4 header to
#      the payload); a probe with its sender tag in PETH bytes 0-3 and
#      a response with its tags in SETH bytes 20-27 (neither with an
#      ITETH, 74 and 94 bytes on the wire, either end's); on the
#      transfer's QP, one sender tag for the client's packets and one
#      for the server's; every ACK, SACK, NACK and probe response of the
#      server echoing the client's tag; the client's data and probe
#      responses echoing the server's, but for data sent before the
#      client heard from the server, which echoes 0 (all of it in the
#      first epoch, with the start flag); probes, the client's and any
#      of the server's, with their sender's tag alone.

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
INJ_TAG=0x7a670001	# mrc_inject's sender tag, a probe's only one

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
# copy is all the checks need.  Its tag is mrc_inject's, not the
# client's: the server must drop it unanswered.
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
	-e mrc.flags.tagged -e mrc.iteth.tag -e mrc.iteth.echo \
	-e mrc.flags.start \
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
	'$2 == b && $4 == "0xdd" && $14 == q { print $13, $10, $3, $19, $20; exit }' \
	"$T/dec.csv")
want="0x19 $isport $isport 0x00000000 $INJ_TAG"
if [ -n "$isport" ] && [ "$nack" = "$want" ]; then
	mrc_pass "NACK of data to no socket: reason 0x19, PSN $INJ_PSN," \
		"value $isport reflected and as its UDP source port," \
		"sender tag 0, echoing the data's tag $INJ_TAG"
else
	mrc_fail "NACK of data to no socket: '$nack' (reason, value, UDP" \
		"source port, tag, echo), want '$want'"
fi

# --- 5. probes and their responses ---------------------------------------

# The client's own probes (values gone bad under the loss) and the ones
# injected, told apart by their tags (PETH bytes 0-3: mrc_inject's), each
# 74 bytes on the wire, MRC 1.0's size: no ITETH, BTH flag 0x08 clear, no
# echoed tag.  Every response is 94 bytes, without an ITETH either, from
# the probed value, echoing the number and value of one of the client's
# own probes, and the tag of none injected.
read -r np bad ninj ibad nr rbad < <(awk -F, -v a="$MRC_IP4_A" \
	-v b="$MRC_IP4_B" -v it="$INJ_TAG" '
	$2 == a && $4 == "0xde" && $19 == it {
		ninj++
		if ($1 + 4 != 74 || $12 != 7 || $18 != "0" || $20 != "") {
			ibad++
			print "# injected probe " $0 > "/dev/stderr"
		}
		next
	}
	$2 == a && $4 == "0xde" {
		np++
		if ($1 + 4 != 74 || $18 != "0" || $20 != "") {
			bad++
			print "# probe " $0 > "/dev/stderr"
		}
		want[$12 " " $3] = 1
	}
	$2 == b && $4 == "0xdc" && $11 == "1" {
		nr++
		if ($1 + 4 != 94 || $18 != "0" || $10 != $3 ||
		    !(($12 " " $10) in want) || $20 == it) {
			rbad++
			print "# response " $0 > "/dev/stderr"
		}
	}
	END {
		print np + 0, bad + 0, ninj + 0, ibad + 0, nr + 0, rbad + 0
	}' "$T/dec.csv" 2>"$T/probe.bad")
if [ "$np" -gt 0 ] && [ "$bad" = 0 ]; then
	mrc_pass "probes: all $np of the client's 74 bytes on the wire," \
		"no ITETH"
else
	mrc_fail "probes: $bad of $np of the client's not 74 bytes on the" \
		"wire without an ITETH" "$(cat "$T/probe.bad")"
fi
if [ "$ninj" -gt 0 ] && [ "$ibad" = 0 ]; then
	mrc_pass "injected probes: $ninj captured, 74 bytes on the wire," \
		"number 7, tag $INJ_TAG in the PETH"
else
	mrc_fail "injected probes: $ninj captured (want 1..3), $ibad not 74" \
		"bytes, not number 7 or with an ITETH" "$(cat "$T/probe.bad")"
fi
if [ "$nr" -gt 0 ] && [ "$rbad" = 0 ]; then
	mrc_pass "probe responses: all $nr 94 bytes on the wire, no ITETH," \
		"from the probed value, echoing the number and value of a" \
		"probe of the client's, none the tag of one injected"
else
	mrc_fail "probe responses: $rbad of $nr wrong" "$(cat "$T/probe.bad")"
fi
chk "probes captured less the injected = server's total_probe_pkts_rx" \
	"$np" "$(mrc_stats_delta total_probe_pkts_rx SB SA)"
chk "probe responses captured = server's probe_resp_tx" "$nr" \
	"$(mrc_stats_delta probe_resp_tx SB SA)"
# The injected probes are the only packets either end drops for their
# tags: the transfer's own all carry the QP's.
chk "injected probes captured = server's rx_drop_bad_tag" "$ninj" \
	"$(mrc_stats_delta rx_drop_bad_tag SB SA)"
v=""
for c in rx_drop_blind_reset qp_reincarnated; do
	v+="${v:+,}$(mrc_stats_delta "$c" SB SA)"
done
chk "server's rx_drop_blind_reset, qp_reincarnated" "$v" "0,0"
v=""
for c in rx_drop_bad_tag rx_drop_blind_reset qp_reincarnated; do
	v+="${v:+,}$(mrc_stats_delta "$c" CB CA)"
done
chk "client's rx_drop_bad_tag, rx_drop_blind_reset, qp_reincarnated" \
	"$v" "0,0,0"

# --- 6. trims, their NACKs and their resends -----------------------------

# (epoch, PSN, UDP source port) of each trimmed packet; each NACK 0x01 by
# (epoch, NACK PSN, entropy value, its own UDP source port); and whether
# each trimmed PSN came again later with its payload, as a retransmission
# (a resend may be trimmed too: then the copy after it).  Unless a copy
# with its payload reached the server before the trim: the trimmed one
# was a retransmission (a timeout's, spurious under TCG), the PSN is
# acknowledged by the time its NACK comes, and the spec's table says the
# NACK then marks the value and resends nothing.
read -r ntr nnk nbad nres ndist nitr < <(awk -F, -v a="$MRC_IP4_A" -v b="$MRC_IP4_B" -v port="$PORT" '
	# mrc_inject'"'"'s data to a port with no socket (check 11) is
	# not the transfer'"'"'s, and is trimmed too when its turn comes:
	# counted apart (answered 0x19), and out of the rest.
	$2 == a && $4 ~ /^0xc[6-9ab]$/ && $7 != port {
		if ($17 == 12 && $15 == 0)
			itr++
		next
	}
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
		print ntr + 0, nk + 0, bad + 0, res + 0, ndist + 0, itr + 0
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
chk "trims captured = server's rx_trimmed (mrc_inject's data: $nitr)" \
	"$((ntr + nitr))" "$(mrc_stats_delta rx_trimmed SB SA)"
chk "NACKs 0x01 captured, one per trim" "$nnk" "$ntr"
chk "NACKs 0x01 not naming a trimmed packet's epoch, PSN and value" \
	"$nbad" 0
chk "trimmed PSNs ($ndist) resent with their payload, flagged rtx" \
	"$nres" "$ndist"

# --- 7. incarnation tags ------------------------------------------------

# Every mrc packet carries its tags: all but probes and probe responses
# an ITETH (BTH flag 0x08, a sender tag and an echo); a probe its sender
# tag alone, in PETH bytes 0-3, and a response its two in SETH bytes
# 20-27, both with the flag clear and at MRC 1.0's sizes, 74 and 94
# bytes on the wire, whichever end sent them (item 5 looks at the
# client's probes; the server probes too when its values go bad).
# Every data packet has 40 bytes of mrc headers: the frame is Ethernet
# 14, IPv4 20, UDP 8, mrc 40, and the payload.
read -r nun nd dbad < <(awk -F, '
	{
		if ($4 == "0xde")
			ok = $18 == "0" && $19 != "" && $20 == "" &&
			     $1 + 4 == 74
		else if ($4 == "0xdc" && $11 == "1")
			ok = $18 == "0" && $19 != "" && $20 != "" &&
			     $1 + 4 == 94
		else
			ok = $18 == "1" && $19 != "" && $20 != ""
		if (!ok) {
			nun++
			if (nun <= 3) print "# untagged " $0 > "/dev/stderr"
		}
	}
	$4 ~ /^0xc[6-9ab]$/ {
		nd++
		if ($1 != 14 + 20 + 8 + 40 + $15) {
			dbad++
			if (dbad <= 3) print "# data " $0 > "/dev/stderr"
		}
	}
	END { print nun + 0, nd + 0, dbad + 0 }' "$T/dec.csv" 2>"$T/tags.bad")
if [ "$nun" = 0 ] && [ "$dbad" = 0 ]; then
	mrc_pass "tags: all $ndec mrc packets tagged (an ITETH; a probe's" \
		"PETH, a response's SETH), all $nd data packets with 40 bytes" \
		"of mrc headers"
else
	mrc_fail "tags: $nun of $ndec mrc packets without their tags where" \
		"they belong (or probes, responses not 74, 94 bytes), $dbad of" \
		"$nd data packets not 82 bytes + payload" \
		"$(cat "$T/tags.bad")"
fi

# On the transfer's QP: the client's data to the server's port, its
# probes (not the injected ones) and its answers to the server's; the
# server's ACKs, SACKs, NACKs, probe responses and probes to the
# client's port (not the NACK of the stray data packet, sent without
# state).  One sender tag each way, not 0; the server echoing the
# client's (a trim NACK sent without state, were a trimmed packet the
# first of its epoch to arrive, with sender tag 0); the client's data
# and probe responses echoing the server's, but for the data it sent
# before it took an acknowledgment, which echoes 0: all of it of the
# first epoch, with the start flag (the client clears it once it took
# one); probes, either end's, with their sender's tag and no echo.
read -r tc ts nsrv sbad ncli cbad nzero < <(awk -F, -v a="$MRC_IP4_A" \
	-v b="$MRC_IP4_B" -v p="$PORT" -v r="$rport" -v it="$INJ_TAG" '
	function zero(t) { return t ~ /^0x0+$/ }
	$2 == a && $7 == p && $4 ~ /^0xc[6-9ab]$/ {
		if (e1 == "") e1 = $6
		cli[++nc] = $0
		tcs[$19] = 1
		next
	}
	$2 == a && $7 == p && ($4 == "0xde" && $19 != it ||
				$4 == "0xdc" && $11 == "1") {
		cli[++nc] = $0
		next
	}
	$2 == b && $7 == r && !($4 == "0xdd" && $13 == "0x19") {
		srv[++ns] = $0
		if (!($4 == "0xdd" && $13 == "0x01" && zero($19)))
			tss[$19] = 1
	}
	END {
		for (t in tcs) { ntc++; tc = t }
		for (t in tss) { nts++; ts = t }
		if (ntc != 1 || zero(tc)) tc = "?"
		if (nts != 1 || zero(ts)) ts = "?"
		for (i = 1; i <= ns; i++) {
			split(srv[i], f, ",")
			if ((f[19] != ts && !(f[4] == "0xdd" &&
			     f[13] == "0x01" && zero(f[19]))) ||
			    f[20] != (f[4] == "0xde" ? "" : tc)) {
				sbad++
				if (sbad <= 3)
					print "# server " srv[i] > "/dev/stderr"
			}
		}
		for (i = 1; i <= nc; i++) {
			split(cli[i], f, ",")
			if (f[4] == "0xde")
				ok = f[19] == tc && f[20] == ""
			else
				ok = f[19] == tc && f[20] == ts
			if (zero(f[20]) && f[19] == tc && f[4] != "0xde") {
				nz++
				ok = f[6] == e1 && f[21] == "1"
			}
			if (!ok) {
				cbad++
				if (cbad <= 3)
					print "# client " cli[i] > "/dev/stderr"
			}
		}
		print tc, ts, ns + 0, sbad + 0, nc + 0, cbad + 0, nz + 0
	}' "$T/dec.csv" 2>"$T/tags.bad")
mrc_log "# the transfer's tags: client $tc, server $ts"
if [ "$tc" != "?" ] && [ "$ts" != "?" ] && [ "$nsrv" -gt 0 ] &&
   [ "$sbad" = 0 ]; then
	mrc_pass "tags: all $nsrv of the server's packets on the QP with" \
		"tag $ts, echoing the client's $tc (its probes, if any, none)"
else
	mrc_fail "tags: client's '$tc', server's '$ts' (want one each, not" \
		"0); $sbad of the server's $nsrv packets on the QP not" \
		"tagged $ts echoing $tc" "$(cat "$T/tags.bad")"
fi
if [ "$tc" != "?" ] && [ "$ts" != "?" ] && [ "$ncli" -gt 0 ] &&
   [ "$cbad" = 0 ] && [ "$nzero" -gt 0 ]; then
	mrc_pass "tags: all $ncli of the client's data, probes and probe" \
		"responses on the QP with tag $tc, its data and responses" \
		"echoing the server's $ts, but for data sent before it heard" \
		"from the server, echoing 0 (first epoch, start flag):" \
		"$nzero packet(s)"
else
	mrc_fail "tags: $cbad of the client's $ncli packets on the QP not" \
		"tagged $tc echoing $ts (or 0, in the first epoch with the" \
		"start flag); $nzero echoing 0 (want some)" \
		"$(cat "$T/tags.bad")"
fi

mrc_dmesg_check "the dissector test"
mrc_exit
