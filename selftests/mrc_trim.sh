#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The trimming switch (mrc_trim.bpf.o on a device's egress, mrc_trimctl
# for its rule and counts): it must cut exactly the packets its rule
# names to their headers, with lengths and checksums a receiver accepts
# and the trimmed codepoint, and pass everything else untouched.
#
#   sender 10.0.0.1     ==== router ====     10.0.1.2 receiver
#          fd00::1                                fd01::2
#   mrc_inject; mrc_trim on     r-b: tx checksum   mrc (counts what
#   mrc-a's egress              offload off        arrives); tshark
#
# The router finishes in software the UDP checksums the sender's stack
# left to the device (CHECKSUM_PARTIAL), so the receiver's UDP checks
# every packet's sum, whichever way the program met it: with the
# sender's offload on (the sum left to the device) and off (summed in
# full before the program).
#
#   1. every 5th, IPv4, offload on and off: of 100 data packets of 64
#      payload bytes, exactly 20 arrive cut to their 40 bytes of mrc
#      headers (the ITETH kept: UDP length 48, not 112), DSCP 12, ECN
#      unchanged, and the receiver's UDP takes
#      every one (no checksum errors, rx_packets +100; tshark finds every
#      sum good); mrc counts the 20 as trimmed (rx_trimmed), none as
#      malformed.
#   2. the same over IPv6 (a UDP checksum is mandatory there), with
#      codepoint 16 (trimmed on the last hop).
#   3. probability 0.5 over 1000: trimmed within 6 standard deviations
#      of 500 (the counts of the program and of the receiver agree).
#   4. backlog 1460 bytes at 100 kbit/s: a burst of 50 packets of 146
#      bytes on the wire: the first 10 fill the queue and pass, at most a
#      few more as it drains during the burst (its duration measured),
#      the rest are trimmed; a second later the queue has drained and
#      the next packet passes.
#   4b. pace 1460 bytes at 100 kbit/s, fq as the device's root qdisc: the
#      same burst, the same bound on what passes; the packets that pass
#      reach the receiver one every 146 bytes at 100 kbit/s (11.68 ms),
#      so that the first and last of N are (N - 1) x 11.68 ms apart (4/5
#      of that at least, for the capture's own delays), where without
#      the pacing the burst takes a few milliseconds; the trimmed reach
#      it at once, the first before the last that passed (which left
#      at least 105 ms after the first, and more than the burst took);
#      fq dropped nothing.
#   5. packets that are not mrc data pass untouched: probes, ACKs, and
#      data with no payload (tagged: 40 bytes of headers, none of them
#      cut).

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip tc tshark mount nsenter ethtool sysctl jq
mrc_require_cli
mrc_require_inject
mrc_load
mrc_dmesg_mark

T=$mrc_tmpdir
BPF_OBJ=$MRC_SELFTEST_DIR/mrc_trim.bpf.o
TRIMCTL=$MRC_SELFTEST_DIR/mrc_trimctl
if [ ! -r "$BPF_OBJ" ] || [ ! -x "$TRIMCTL" ]; then
	mrc_die "no $BPF_OBJ or $TRIMCTL: run make -C selftests"
fi
PIN=/sys/fs/bpf/tc/globals
if ! grep -q ' /sys/fs/bpf bpf ' /proc/mounts; then
	mount -t bpf bpf /sys/fs/bpf || mrc_die "cannot mount bpffs"
fi
rm -f "$PIN/mrc_trim_cfg" "$PIN/mrc_trim_stats"

mrc_netns_add
C=$MRC_NS
mrc_netns_add
R=$MRC_NS
mrc_netns_add
S=$MRC_NS
MRC_DUMP_NS=$S
mrc_routed_line "$C" "$R" "$S" || mrc_die "cannot build the line"
ip netns exec "$R" ethtool -K r-b tx off >/dev/null ||
	mrc_die "cannot turn r-b's checksum offload off"
DST4=$MRC_LINE_IP4_B DST6=$MRC_LINE_IP6_B
# The receiver has no mrc socket: port 4791 opens there only to listen.
mrc_exec -n "$S" config set listen 1 || mrc_die "$S: config set listen 1"
# Not "tc -n": it would run tc in a mount namespace of its own, with a
# /sys of that network namespace and no /sys/fs/bpf, and the maps would
# be pinned where mrc_trimctl cannot see them.
out=$(nsenter --net="/run/netns/$C" tc qdisc add dev mrc-a clsact 2>&1 &&
      nsenter --net="/run/netns/$C" tc filter add dev mrc-a egress bpf da \
	obj "$BPF_OBJ" sec tc 2>&1) ||
	mrc_die "cannot attach $BPF_OBJ: $out"
trimctl() {
	"$TRIMCTL" "$@" || mrc_die "mrc_trimctl $* failed"
}

# shellcheck disable=SC2034 # used by name: mrc_stats_snapshot
declare -A B=() A=()
chk() {	# chk DESC GOT WANT
	if [ "$2" = "$3" ]; then
		mrc_pass "$1: $2"
	else
		mrc_fail "$1: $2, want $3"
	fi
}
csum_errors() {	# csum_errors NS: Udp + Udp6 InCsumErrors
	ip netns exec "$1" cat /proc/net/snmp /proc/net/snmp6 |
		awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { n += $7 }
		     $1 == "Udp6InCsumErrors" { n += $2 }
		     END { print n + 0 }'
}

# capture_start / capture_stop: tshark on the receiver's link.  dumpcap
# says "Capturing on" a little before it captures: capture_start returns
# once a marker (a probe, which the program passes and the checks leave
# out) is in the file.
capture_start() {
	local i

	ip netns exec "$S" tshark -q -i mrc-b -f "udp port 4791" \
		-w "$T/cap.pcapng" 2>"$T/tshark.err" &
	TPID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q "Capturing on" "$T/tshark.err" && break
		mrc_sleep 0.1
	done
	for ((i = 0; i < 50; i++)); do
		inject "$DST4" 1 probe
		mrc_sleep 0.2
		[ "$(tshark -r "$T/cap.pcapng" 2>/dev/null | wc -l)" -gt 0 ] &&
			return 0
	done
	mrc_die "tshark did not start: $(cat "$T/tshark.err")"
}
capture_stop() {
	mrc_sleep 0.5
	kill -INT "$TPID"
	mrc_wait_pid "$TPID" 20 || mrc_die "tshark did not stop"
}

# inject ADDR COUNT KIND: COUNT packets of KIND from the sender.
inject() {
	ip netns exec "$C" "$MRC_INJECT" -c "$2" "$1" "$3" >/dev/null ||
		mrc_die "mrc_inject -c $2 $1 $3 failed"
}

# --- 1, 2. every 5th, IPv4 and IPv6 ---------------------------------------

# every_fifth DESC ADDR DSCP FIELD OFFLOAD: 100 data packets to ADDR, the
# sender's checksum offload on or off; FIELD: tshark's DSCP field.
every_fifth() {
	local desc="$1, offload $5" addr=$2 dscp=$3 dsf=$4 v got want

	ip netns exec "$C" ethtool -K mrc-a tx "$5" >/dev/null ||
		mrc_die "ethtool -K mrc-a tx $5"
	trimctl every 5 dscp "$dscp"
	capture_start
	mrc_stats_snapshot -n "$S" B || mrc_die "mrc stats"
	v=$(csum_errors "$S")
	inject "$addr" 100 data
	capture_stop
	mrc_stats_snapshot -n "$S" A || mrc_die "mrc stats"
	chk "$desc: the program's counts" "$("$TRIMCTL" show)" \
		"data 100 trimmed 20 failed 0"
	chk "$desc: packets the receiver took (rx_packets)" \
		"$(mrc_stats_delta rx_packets B A)" 100
	chk "$desc: UDP checksum errors at the receiver" \
		"$(($(csum_errors "$S") - v))" 0
	chk "$desc: of them trimmed (rx_trimmed)" \
		"$(mrc_stats_delta rx_trimmed B A)" 20
	chk "$desc: of them malformed" \
		"$(mrc_stats_delta rx_drop_malformed B A)" 0
	# Each data packet (not the receiver's NACKs, whose sums its device
	# would finish, nor the markers, probes of UDP length 8 + 28, MRC
	# 1.0's, with no ITETH): UDP length, DSCP, ECN, and the checksum
	# tshark computes (1: good).  A data packet is 8 + 40 + 64 bytes of
	# UDP, 8 + 40 once trimmed.
	got=$(tshark -r "$T/cap.pcapng" -o udp.check_checksum:TRUE \
		-Y "(ip.src == 10.0.0.1 || ipv6.src == fd00::1) && udp.length != 36" \
		-T fields \
		-E separator=, -e udp.length -e "$dsf.dscp" -e "$dsf.ecn" \
		-e udp.checksum.status 2>/dev/null | sort | uniq -c |
		awk '{ printf "%s%s x%s", s, $2, $1; s = "; " }')
	want="112,0,0,1 x80; 48,$dscp,0,1 x20"
	chk "$desc: captured (UDP length, DSCP, ECN, checksum status)" \
		"$got" "$want"
}
for o in on off; do
	every_fifth "every 5th, IPv4" "$DST4" 12 ip.dsfield "$o"
	every_fifth "every 5th, IPv6" "$DST6" 16 ipv6.tclass "$o"
done
ip netns exec "$C" ethtool -K mrc-a tx on >/dev/null

# --- 3. probability -------------------------------------------------------

trimctl prob 0.5
mrc_stats_snapshot -n "$S" B || mrc_die "mrc stats"
inject "$DST4" 1000 data
mrc_sleep 0.5
mrc_stats_snapshot -n "$S" A || mrc_die "mrc stats"
read -r _ seen _ trimmed _ failed < <("$TRIMCTL" show)
v=$(mrc_stats_delta rx_trimmed B A)
if [ "$seen" = 1000 ] && [ "$failed" = 0 ] && [ "$trimmed" = "$v" ] &&
   [ "$trimmed" -ge 405 ] && [ "$trimmed" -le 595 ]; then
	mrc_pass "probability 0.5: $trimmed of 1000 trimmed (405..595)," \
		"as many counted trimmed at the receiver"
else
	mrc_fail "probability 0.5: $trimmed of $seen trimmed, $failed" \
		"failed, $v trimmed at the receiver; want 405..595 of 1000"
fi

# --- 4. backlog -----------------------------------------------------------

# burst_check RULE MS: after a burst of 50 in MS ms under RULE (1460 B at
# 100 kbit/s), the program saw 50, of which 10 passed, and at most as
# many more as the queue drained meanwhile; sets seen, passed, trimmed.
burst_check() {
	local most

	read -r _ seen _ trimmed _ _ < <("$TRIMCTL" show)
	passed=$((seen - trimmed))
	most=$((10 + ($2 * 125 / 10 + 145) / 146))
	if [ "$seen" = 50 ] && [ "$passed" -ge 10 ] &&
	   [ "$passed" -le "$most" ]; then
		mrc_pass "$1 1460 B at 100 kbit/s: of a burst of 50 in $2 ms," \
			"$passed passed (10..$most), $trimmed trimmed"
	else
		mrc_fail "$1 1460 B at 100 kbit/s: of $seen in $2 ms," \
			"$passed passed, want 10..$most"
	fi
}

# 100 kbit/s drains 12.5 bytes a millisecond; a packet of 64 payload
# bytes is 146 on the wire (Ethernet 14, IPv4 20, UDP 8, mrc 40): 10 of
# them fill 1460 bytes.
trimctl backlog 1460 100
t0=$(mrc_now_ms)
inject "$DST4" 50 data
ms=$(($(mrc_now_ms) - t0))
burst_check backlog "$ms"
mrc_sleep 1.2
inject "$DST4" 1 data
read -r _ seen _ trimmed _ failed < <("$TRIMCTL" show)
chk "backlog: a packet after the queue drained passes" \
	"$seen $((seen - trimmed))" "51 $((passed + 1))"

# --- 4b. pace --------------------------------------------------------------

# The same burst, paced by the program through fq: 10 fill the queue, a
# few more pass as it drains, the rest are trimmed; on the wire a data
# packet is 146 bytes, a trimmed one 82 (its 64 bytes of payload cut).
tc -n "$C" qdisc add dev mrc-a root fq || mrc_die "cannot add fq to mrc-a"
# The sender listens: the receiver's NACKs (of every packet: no queue
# pair there) would otherwise draw ICMP port unreachables, which leave
# by the paced link too and take their share of it.
mrc_exec -n "$C" config set listen 1 || mrc_die "$C: config set listen 1"
trimctl pace 1460 100
capture_start
t0=$(mrc_now_ms)
inject "$DST4" 50 data
ms=$(($(mrc_now_ms) - t0))
# The last that passed leaves (passed - 1) x 11.68 ms after the first.
mrc_sleep $((ms / 1000 + 1))
capture_stop
burst_check pace "$ms"
# Arrival times at the receiver, in microseconds: whole, then trimmed.
mapfile -t whole < <(tshark -r "$T/cap.pcapng" \
	-Y "ip.dst == $DST4 && frame.len == 146" \
	-T fields -e frame.time_relative 2>/dev/null |
	awk '{ printf "%d\n", $1 * 1000000 }')
mapfile -t cut < <(tshark -r "$T/cap.pcapng" \
	-Y "ip.dst == $DST4 && frame.len == 82" \
	-T fields -e frame.time_relative 2>/dev/null |
	awk '{ printf "%d\n", $1 * 1000000 }')
mrc_log "# pace: whole at (us) ${whole[*]}; trimmed at ${cut[*]}"
chk "pace: at the receiver, whole and trimmed" "${#whole[@]} ${#cut[@]}" \
	"$passed $trimmed"
if [ "${#whole[@]}" -ge 2 ] && [ "${#cut[@]}" -ge 1 ]; then
	span=$((whole[-1] - whole[0]))
	least=$(((${#whole[@]} - 1) * 11680 * 4 / 5))
	if [ "$span" -ge "$least" ]; then
		mrc_pass "pace: the ${#whole[@]} that passed over $span us" \
			"(at least $least us)"
	else
		mrc_fail "pace: the ${#whole[@]} that passed over $span us," \
			"want at least $least us"
	fi
	# A trimmed packet leaves at once, not behind the paced queue: the
	# first, sent within the burst's $ms ms, arrives before the last
	# whole one, which left (passed - 1) x 11.68 ms after the first:
	# at least 105 ms, and more than the burst took, since as many
	# more passed as the queue drained meanwhile.  (Before the second
	# whole one only if the burst's first 11 took less than 11.68 ms,
	# which a slow machine does not promise.)
	if [ "${cut[0]}" -lt "${whole[-1]}" ]; then
		mrc_pass "pace: the first trimmed at +$((cut[0] - whole[0])) us," \
			"before the last whole at +$((whole[-1] - whole[0])) us"
	else
		mrc_fail "pace: the first trimmed at +$((cut[0] - whole[0])) us," \
			"not before the last whole at +$((whole[-1] - whole[0])) us"
	fi
fi
chk "pace: fq's drops" \
	"$(tc -n "$C" -s -j qdisc show dev mrc-a root | jq '.[0].drops')" 0
tc -n "$C" qdisc del dev mrc-a root || mrc_die "cannot remove fq from mrc-a"
mrc_exec -n "$C" config set listen 0 || mrc_die "$C: config set listen 0"

# --- 5. what is not data passes untouched ---------------------------------

trimctl every 1
inject "$DST4" 10 probe
inject "$DST4" 10 ack
inject "$DST4" 10 write-only
chk "every packet: probes, ACKs and data with no payload untouched" \
	"$("$TRIMCTL" show)" "data 0 trimmed 0 failed 0"

trimctl off
mrc_dmesg_check "the trimming switch"
mrc_exit
