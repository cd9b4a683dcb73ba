#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rest of the stack applies to mrc sockets as to UDP ones: their
# packets carry the sending socket, so its SO_MARK and SO_PRIORITY are on
# them (seen by nftables, by an ip rule and by a prio qdisc), and a
# socket filter on a receiving socket judges its data before mrc takes it.
#
#   +------ client netns C -----+          +------ server netns S -----+
#   | python: mrc socket, mark, |          | python: mrc sockets on    |
#   | priority; nft counters on |==========| 7000, 7001 (drop-all      |
#   | output; prio qdisc; rule  |   veth   | filter), 7002             |
#   +---------------------------+          +---------------------------+
#
#   1. SO_MARK 0x2a and SO_PRIORITY 2: every packet the client's mrc
#      counts as sent (tx_packets) is counted by an nft rule matching
#      mark 0x2a on output and by the prio qdisc's band 2 (priority 2);
#      an unmarked socket's packets by neither; all messages arrive.
#   2. SO_MARK 0x2b, which an ip rule routes to an unreachable table: no
#      packet of the socket's leaves (tx_packets all probes, which are
#      nobody's; tx_errors > 0), none matched 0x2b.
#   3. a drop-all socket filter (SO_ATTACH_FILTER, cBPF "ret #0") on the
#      server's socket: no message delivered, every data packet that
#      reached it counted in rx_drop_filter and in no other fate; a socket
#      without a filter on the next port gets every message.
#   4. socket options mrc does not honour fail: SO_RCVLOWAT and SOL_IP
#      ones with ENOPROTOOPT, SO_ZEROCOPY with EOPNOTSUPP.

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip tc nft python3
mrc_require_cli
mrc_load
mrc_dmesg_mark
mrc_modprobe nf_tables sch_prio

T=$mrc_tmpdir
N=20

cat >"$T/peer.py" <<'EOF'
import ctypes, errno, socket, struct, sys, time
IPPROTO_MRC = 253

def mrc():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM, IPPROTO_MRC)

def recv(port, secs, n, filt):
    s = mrc()
    if filt:
        # One instruction, BPF_RET | BPF_K 0: drop everything.
        ins = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, 0))
        prog = struct.pack("HxxxxxxP", 1, ctypes.addressof(ins))
        s.setsockopt(socket.SOL_SOCKET, 26, prog)  # SO_ATTACH_FILTER
    s.bind(("0.0.0.0", port))
    print("ready", flush=True)
    s.settimeout(0.2)
    got, end = 0, time.time() + secs
    while got < n and time.time() < end:
        try:
            s.recv(1 << 20)
            got += 1
        except socket.timeout:
            pass
    print(got, flush=True)

def send(addr, port, n, mark, prio):
    s = mrc()
    if mark:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, mark)
    if prio:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, prio)
    for _ in range(n):
        s.sendto(b"m" * 1000, (addr, port))
    # close() delivers what is queued in the background.
    s.close()

def opt(level, name):
    s = mrc()
    try:
        s.setsockopt(level, name, 1)
        print("ok")
    except OSError as e:
        print(errno.errorcode.get(e.errno, e.errno))

cmd = sys.argv[1]
if cmd == "recv":
    recv(int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]),
         sys.argv[5] == "filter")
elif cmd == "send":
    send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
         int(sys.argv[5], 0), int(sys.argv[6]))
else:
    opt(int(sys.argv[2]), int(sys.argv[3]))
EOF

mrc_netns_add
C=$MRC_NS
mrc_netns_add
S=$MRC_NS
mrc_veth_pair "$C" "$S" || mrc_die "cannot build the veth pair"
MRC_DUMP_NS=$C

ip netns exec "$C" nft -f - <<-EOF || mrc_die "cannot set up nftables"
table inet mrc_test {
	counter mark2a {}
	counter mark2b {}
	chain output {
		type filter hook output priority 0; policy accept;
		udp dport 4791 meta mark 0x2a counter name "mark2a"
		udp dport 4791 meta mark 0x2b counter name "mark2b"
	}
}
EOF
out=$(tc -n "$C" qdisc add dev "$MRC_VETH_A" root handle 1: prio 2>&1) ||
	mrc_die "tc qdisc add prio: $out"
ip -n "$C" route add unreachable default table 100 ||
	mrc_die "ip route add table 100"
ip -n "$C" rule add fwmark 0x2b table 100 || mrc_die "ip rule add fwmark"

# nftc NAME: packets nft counter NAME in C counted.
nftc() {
	local w next=0

	for w in $(ip netns exec "$C" nft list counter inet mrc_test "$1"); do
		if [ "$next" = 1 ]; then
			echo "$w"
			return
		fi
		[ "$w" = packets ] && next=1
	done
	echo -1000000	# no counter: every check on it fails
}

# band2: packets the prio qdisc sent from its band 2 (class 1:3), where
# its default priomap puts priority 2 (TC_PRIO_BULK) and nothing the
# stack sends by itself (0 goes to band 1, ND and MLD's 7 to band 0).
band2() {
	tc -n "$C" -s class show dev "$MRC_VETH_A" | awk '
		$1 == "class" { cls = $3 }
		$1 == "Sent" && cls == "1:3" { print $4; found = 1 }
		END { if (!found) print -1000000 }'
}

# serve PORT SECS [filter]: a receiver in S for N messages, in the
# background; its pid in SRV, its output in $T/srv.
serve() {
	local i line

	: >"$T/srv"
	ip netns exec "$S" python3 "$T/peer.py" recv "$1" "$2" "$N" \
		"${3:-none}" >"$T/srv" 2>&1 &
	SRV=$!
	mrc_at_exit "kill $SRV"
	for ((i = 0; i < 100; i++)); do
		IFS= read -r line <"$T/srv"
		[ "$line" = ready ] && return 0
		kill -0 "$SRV" 2>/dev/null || break
		mrc_sleep 0.1
	done
	mrc_die "receiver on $1: $(cat "$T/srv")"
}

# served: wait for the receiver; the messages it got in GOT.
served() {
	mrc_wait_pid "$SRV" 30 || mrc_kill_pid "$SRV"
	GOT=$(sed -n 2p "$T/srv")
}

# shellcheck disable=SC2034 # used by name: mrc_stats_snapshot, d()
declare -A CB=() CA=() SB=() SA=()
snap() {
	mrc_stats_snapshot -n "$C" "C$1"
	mrc_stats_snapshot -n "$S" "S$1"
}
# chk_probes DESC GOT WANT: GOT, a difference with the client's probes
# in it, is WANT give or take one.  A probe counts in tx_packets when
# the IP layer takes it and in total_probe_pkts_tx just after; while
# values are bad one goes every probe-period (150 us), so a stats read
# can fall between the two counts: one probe more in the before
# snapshot's difference (+1), or in the after's (-1), never more (one
# probe timer a namespace).  A marked packet that got out is caught
# exactly by nft's count beside.
chk_probes() {
	if [ "$2" -ge $(($3 - 1)) ] && [ "$2" -le $(($3 + 1)) ]; then
		mrc_pass "$1: $2 (want $3, give or take a probe counted while read)"
	else
		mrc_fail "$1: got $2, want $3 (give or take one)"
	fi
}
d() {
	mrc_stats_delta "$2" "$1B" "$1A"
}

mrc_log "# 1. SO_MARK 0x2a and SO_PRIORITY 2 on the packets"
m0=$(nftc mark2a)
b0=$(band2)
snap B
serve 7000 20
ip netns exec "$C" python3 "$T/peer.py" send "$MRC_IP4_B" 7000 "$N" 0x2a 2 ||
	mrc_fail "sender with mark and priority"
served
mrc_sleep 0.5
snap A
chk_eq "messages received from the marked socket" "$GOT" "$N"
# Probes (after a timeout) belong to no socket: unmarked.
tx=$(($(d C tx_packets) - $(d C total_probe_pkts_tx)))
chk_ne "client tx_packets less probes" "$tx" 0
chk_probes "packets nft saw with mark 0x2a = client tx_packets less probes" \
	"$(($(nftc mark2a) - m0))" "$tx"
chk_probes "packets of prio band 2 (priority 2) = the same" \
	"$(($(band2) - b0))" "$tx"

# The same from a socket with neither: nothing matched.
m0=$(nftc mark2a)
b0=$(band2)
snap B
serve 7000 20
ip netns exec "$C" python3 "$T/peer.py" send "$MRC_IP4_B" 7000 "$N" 0 0 ||
	mrc_fail "sender without mark or priority"
served
mrc_sleep 0.5
snap A
chk_eq "messages received from the plain socket" "$GOT" "$N"
chk_ne "client tx_packets (plain)" "$(d C tx_packets)" 0
chk_eq "packets nft saw with mark 0x2a (plain socket)" \
	"$(($(nftc mark2a) - m0))" 0
chk_eq "packets of prio band 2 (plain socket)" "$(($(band2) - b0))" 0

mrc_log "# 2. SO_MARK 0x2b: routed by the ip rule to an unreachable table"
snap B
ip netns exec "$C" python3 "$T/peer.py" send "$MRC_IP4_B" 7000 1 0x2b 0 ||
	mrc_log "# (sendto failed, as the route is unreachable)"
mrc_sleep 0.5
snap A
# Its timeouts draw probes, which are nobody's: unmarked, they go.
chk_probes "client tx_packets less probes (mark 0x2b)" \
	"$(($(d C tx_packets) - $(d C total_probe_pkts_tx)))" 0
chk_ne "client tx_errors (mark 0x2b)" "$(d C tx_errors)" 0
chk_eq "packets nft saw with mark 0x2b" "$(nftc mark2b)" 0

mrc_log "# 3. a drop-all socket filter on the receiving socket"
MRC_DUMP_NS=$S
snap B
serve 7001 8 filter
ip netns exec "$C" python3 "$T/peer.py" send "$MRC_IP4_B" 7001 5 0 0 ||
	mrc_fail "sender to the filtered socket"
# While the socket is still open: its closing would turn the
# retransmissions into refusals (rx_drop_no_qp).
mrc_sleep 2
snap A
served
chk_eq "messages the filtered socket received" "$GOT" 0
# Every message's first packet at least, and its retransmissions.
f=$(d S rx_drop_filter)
if [ "$f" -ge 5 ] 2>/dev/null; then
	mrc_pass "server rx_drop_filter: $f (>= 5 messages)"
else
	mrc_fail "server rx_drop_filter: got '$f', want >= 5"
fi
# (The client's timeouts draw probes, which no filter sees: with no QP
# for them, rx_drop_no_qp counts them.)
for c in rx_drop_no_mem rx_drop_malformed rx_drop_out_of_window \
	 rx_dup_packets; do
	chk_eq "server $c (filtered: no other fate)" "$(d S "$c")" 0
done
chk_eq "server rx_data_packets (filtered)" "$(d S rx_data_packets)" 0
chk_eq "server rx_msgs (filtered)" "$(d S rx_msgs)" 0
chk_eq "server qp_opened (filtered: no state for it)" "$(d S qp_opened)" 0
snap B
serve 7002 20
ip netns exec "$C" python3 "$T/peer.py" send "$MRC_IP4_B" 7002 "$N" 0 0 ||
	mrc_fail "sender to the unfiltered socket"
served
snap A
chk_eq "messages the unfiltered socket received" "$GOT" "$N"
chk_eq "server rx_drop_filter (unfiltered)" "$(d S rx_drop_filter)" 0

mrc_log "# 4. options mrc does not honour fail"
# SOL_SOCKET 1: SO_RCVLOWAT 18, SO_ZEROCOPY 60; SOL_IP 0: IP_TOS 1.
chk_eq "SO_RCVLOWAT" "$(python3 "$T/peer.py" opt 1 18)" ENOPROTOOPT
# Python names errno 95 (EOPNOTSUPP on Linux) ENOTSUP.
chk_eq "SO_ZEROCOPY" "$(python3 "$T/peer.py" opt 1 60)" ENOTSUP
chk_eq "IP_TOS" "$(python3 "$T/peer.py" opt 0 1)" ENOPROTOOPT
chk_eq "SO_MARK" "$(python3 "$T/peer.py" opt 1 36)" ok

mrc_dmesg_check "kernel log of the stack test"
mrc_exit
