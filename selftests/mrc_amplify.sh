#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No amplification (issue 13, item 5): a queue pair that a peer's packet
# opened sends that peer at most MRC_AMP_FACTOR (3) times the bytes it
# received from it, until the peer acknowledges data of ours.
#
#   +------ client netns ------------+        +------ server netns ------+
#   | 10.0.0.1, python client        |        | 10.0.0.2, python server: |
#   | mrc_inject from 10.98.0.0/24   |========| every message answered   |
#   |  (ip route add local ... lo)   |  veth  | with 64 KiB              |
#   +--------------------------------+        +--------------------------+
#
# The server is a program of the kind a reflector is made of: a small
# request draws a large reply, to whatever address the request came from.
#
#   1. 20 forged sources (10.98.0.1..20) each send one 64-byte message:
#      the server opens a queue pair for each (qp_opened) and answers
#      each with 64 KiB; its namespace sends them no more than 3 times
#      the bytes it received (tx_bytes against rx_bytes: at most 5,760
#      bytes, where 20 x 64 KiB were asked for), and each of the 20 held
#      data back (tx_amp_limited).  Their replies go to the client's
#      namespace, which has no mrc socket: it refuses them (ICMP port
#      unreachable), and the queue pairs fail.
#   2. a real client at 10.0.0.1 sends a request of 1 KiB, 4 bytes, no
#      bytes, and gets its 64 KiB reply whole and intact each time: the
#      limit held the reply back at first (tx_amp_limited), and the
#      client's acknowledgment of its first packet lifted it.
#   3. a reader that never answers, on a socket of its own: 1,280
#      forged sources (20 addresses x 64 ports) each send it one whole
#      message, which it reads at once.  Its table holds 1,024 queue
#      pairs: the 256 sources beyond are let in by evicting queue pairs
#      whose messages were read (qp_evicted), none is refused
#      (rx_drop_qp_limit), and a real client's message then gets in and
#      is read too.  (A queue pair is kept from eviction while its
#      peer's message waits unread, which mrc_amp_pinned_max() bounds, not
#      for the idle period after a read: that kept the table full.)  On
#      the debug kernel the flood outlasts the reaper's idle period, which
#      makes the room: all read, none refused, none need be evicted.

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip python3
mrc_require_cli
mrc_require_inject
mrc_load
mrc_dmesg_mark

T=$mrc_tmpdir
PORT=6300
FORGED=10.98.0.0/24
NF=20
REPLY=65536
# shellcheck disable=SC2034 # filled and read by name (lib.sh)
declare -A B A B2 A2

mrc_client_server
mrc_forged_prefix "$FORGED"

cat >"$T/amp.py" <<'EOF'
import socket, sys, time
IPPROTO_MRC = 253

def mrc():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM, IPPROTO_MRC)

def reply_bytes(n):
    return bytes((i * 7 + 3) & 0xff for i in range(n))

def server(port, size):
    s = mrc()
    s.bind(("0.0.0.0", port))
    print("ready", flush=True)
    body = reply_bytes(size)
    while True:
        data, addr = s.recvfrom(1 << 20)
        t = time.monotonic()
        s.sendto(body, addr)
        print("replied", addr[0], len(data),
              "%.3f" % (time.monotonic() - t), flush=True)

def client(addr, port, size, secs, req):
    s = mrc()
    s.settimeout(secs)
    s.sendto(b"q" * req, (addr, port))
    try:
        data, _ = s.recvfrom(1 << 20)
    except socket.timeout:
        print("timeout", flush=True)
        return
    print("got", len(data), "intact" if data == reply_bytes(size) else
          "corrupt", flush=True)

def reader(port):
    s = mrc()
    # Room for every forged message at once (a page each): none may be
    # refused for want of it.  SO_RCVBUFFORCE, <asm-generic/socket.h>.
    s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)
    s.bind(("0.0.0.0", port))
    print("ready", flush=True)
    while True:
        data, addr = s.recvfrom(1 << 20)
        print("read", addr[0], len(data), flush=True)

def send(addr, port, size):
    s = mrc()
    s.sendto(b"r" * size, (addr, port))
    # Until the message is acknowledged: a close now would drop it.
    time.sleep(2)

if sys.argv[1] == "server":
    server(int(sys.argv[2]), int(sys.argv[3]))
elif sys.argv[1] == "reader":
    reader(int(sys.argv[2]))
elif sys.argv[1] == "send":
    send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
else:
    client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
           float(sys.argv[5]), int(sys.argv[6]))
EOF

ip netns exec "$S" python3 "$T/amp.py" server "$PORT" "$REPLY" \
	>"$T/srv.out" 2>"$T/srv.err" &
SPID=$!
mrc_at_exit "mrc_kill_pid $SPID"
mrc_wait_line "$T/srv.out" '^ready' ||
	mrc_die "the server did not start: $(cat "$T/srv.err")"

# replies N: wait (10 s at most) until the server has answered N
# messages; prints how many it has.
replies() {
	local n

	for _ in $(seq 100); do
		n=$(grep -c '^replied' "$T/srv.out")
		[ "$n" -ge "$1" ] && break
		mrc_sleep 0.1
	done
	echo "$n"
}

# --- 1. forged sources ---------------------------------------------------

mrc_stats_snapshot -n "$S" B || mrc_die "mrc stats in $S"
out=$(ip netns exec "$C" "$MRC_INJECT" -q "$PORT" -A 10.98.0.1 -N "$NF" \
	"$MRC_IP4_B" data 2>&1) || mrc_die "mrc_inject: $out"
nrep=$(replies "$NF")
# What the replies' first pushes send goes out as they are queued; the
# refusals (ICMP) that fail the queue pairs come after.
mrc_sleep 0.5
mrc_stats_snapshot -n "$S" A || mrc_die "mrc stats in $S"

if [ "$nrep" = "$NF" ]; then
	mrc_pass "forged: the server answered all $NF requests"
else
	mrc_fail "forged: the server answered $nrep of $NF requests" \
		"$(cat "$T/srv.err")"
fi
opened=$(mrc_stats_delta qp_opened B A)
if [ "$opened" = "$NF" ]; then
	mrc_pass "forged: $opened queue pairs opened, one per source"
else
	mrc_fail "forged: $opened queue pairs opened, want $NF"
fi
rx=$(mrc_stats_delta rx_bytes B A)
tx=$(mrc_stats_delta tx_bytes B A)
if [[ $rx =~ ^[0-9]+$ && $tx =~ ^[0-9]+$ ]] && [ "$rx" -gt 0 ] &&
   [ "$tx" -gt 0 ] && [ "$tx" -le $((3 * rx)) ]; then
	mrc_pass "forged: sent $tx bytes for $rx received (at most 3x;" \
		"$((NF * REPLY)) bytes of replies asked for)"
else
	mrc_fail "forged: sent $tx bytes for $rx received, want 0 < sent" \
		"<= $((3 * rx))"
fi
# The replies' sendto() waits for room (20 x 64 KiB against SO_SNDBUF),
# longer than the reaper's idle period (3 s) where the queue pairs it
# waits on fail late: the replies must still go through the requests'
# queue pairs (qp_opened above), not through new ones.
waited=$(awk '$1 == "replied" && $4 > w { w = $4 } END { print w + 0 }' \
	"$T/srv.out")
echo "# the longest wait in sendto() for room: $waited s"
mrc_check_atleast "forged: every reply held back by the limit" \
	"$(mrc_stats_delta tx_amp_limited B A)" "$NF"

# --- 2. real clients -----------------------------------------------------

# Requests of 1 KiB, 4 bytes and none: the smallest leave the reply's
# first packet 16 bytes (3 x 32 bytes in, 48 of them the SACK sent).
for req in 1024 4 0; do
	mrc_stats_snapshot -n "$S" B2 || mrc_die "mrc stats in $S"
	got=$(ip netns exec "$C" python3 "$T/amp.py" client "$MRC_IP4_B" \
		"$PORT" "$REPLY" 20 "$req" 2>&1)
	mrc_stats_snapshot -n "$S" A2 || mrc_die "mrc stats in $S"
	if [ "$got" = "got $REPLY intact" ]; then
		mrc_pass "real client, $req-byte request: its $REPLY-byte" \
			"reply came whole and intact"
	else
		mrc_fail "real client, $req-byte request: '$got', want" \
			"'got $REPLY intact'"
	fi
	d="real client, $req-byte request: the reply held back until the"
	mrc_check_atleast "$d client's acknowledgment (tx_amp_limited)" \
		"$(mrc_stats_delta tx_amp_limited B2 A2)" 1
	d="real client, $req-byte request: bytes sent once the limit"
	mrc_check_atleast "$d was lifted (tx_bytes)" \
		"$(mrc_stats_delta tx_bytes B2 A2)" $((REPLY + 1))
done

# --- 3. a reader that never answers --------------------------------------

RPORT=$((PORT + 1))
NA=20
NP=64
ip netns exec "$S" python3 "$T/amp.py" reader "$RPORT" \
	>"$T/rdr.out" 2>"$T/rdr.err" &
RPID=$!
mrc_at_exit "mrc_kill_pid $RPID"
mrc_wait_line "$T/rdr.out" '^ready' ||
	mrc_die "the reader did not start: $(cat "$T/rdr.err")"
# reads N: wait (20 s at most) until the reader has read N messages;
# prints how many it has.
reads() {
	local n

	for _ in $(seq 200); do
		n=$(grep -c '^read ' "$T/rdr.out")
		[ "$n" -ge "$1" ] && break
		mrc_sleep 0.1
	done
	echo "$n"
}
mrc_stats_snapshot -n "$S" B || mrc_die "mrc stats in $S"
# In bursts of 256 packets, which the veth's backlog (1,000) takes whole.
for ((a = 101; a < 101 + NA; a += 4)); do
	out=$(ip netns exec "$C" "$MRC_INJECT" -q "$RPORT" -s 40000 \
		-P "$NP" -A "10.98.0.$a" -N 4 "$MRC_IP4_B" data 2>&1) ||
		mrc_die "mrc_inject: $out"
done
n=$(reads $((NA * NP)))
mrc_stats_snapshot -n "$S" A || mrc_die "mrc stats in $S"
if [ "$n" = $((NA * NP)) ]; then
	mrc_pass "reader: all $n forged messages read"
else
	mrc_fail "reader: $n of $((NA * NP)) forged messages read" \
		"(qp_opened $(mrc_stats_delta qp_opened B A)," \
		"rx_msgs $(mrc_stats_delta rx_msgs B A)," \
		"rx_drop_qp_limit $(mrc_stats_delta rx_drop_qp_limit B A)," \
		"rx_drop_addr_limit $(mrc_stats_delta rx_drop_addr_limit B A)," \
		"rx_drop_no_mem $(mrc_stats_delta rx_drop_no_mem B A))"
fi
# chk_evict DESC MIN: none refused for a full table, and at least MIN
# queue pairs evicted.
chk_evict() {
	local ev ref

	ev=$(mrc_stats_delta qp_evicted B A)
	ref=$(mrc_stats_delta rx_drop_qp_limit B A)
	if [[ $ev =~ ^[0-9]+$ && $ref =~ ^[0-9]+$ ]] && [ "$ev" -ge "$2" ] &&
	   [ "$ref" = 0 ]; then
		mrc_pass "reader: $1: none refused ($ev queue pairs whose" \
			"messages were read evicted)"
	else
		mrc_fail "reader: $1: qp_evicted $ev (want at least $2)," \
			"rx_drop_qp_limit $ref (want 0)"
	fi
}
# On the debug kernel the flood outlasts the reaper's idle period (3 s),
# which makes the room instead: all 1,280 read, none refused, none
# evicted there.
min=1
[ "${MRC_DEBUG_KERNEL:-0}" = 1 ] && min=0
chk_evict "beyond its 1,024 queue pairs" "$min"
# The forged queue pairs idle for less than the reaper's 3 s: the table
# is still full when the real client comes.
mrc_stats_snapshot -n "$S" B || mrc_die "mrc stats in $S"
ip netns exec "$C" python3 "$T/amp.py" send "$MRC_IP4_B" "$RPORT" 100 \
	>"$T/snd.out" 2>&1 &
SNDPID=$!
for _ in $(seq 100); do
	grep -q "^read $MRC_IP4_A 100\$" "$T/rdr.out" && break
	mrc_sleep 0.1
done
if grep -q "^read $MRC_IP4_A 100\$" "$T/rdr.out"; then
	mrc_pass "reader: a real client's message got in and was read"
else
	mrc_fail "reader: the real client's message was not read" \
		"$(cat "$T/snd.out")"
fi
mrc_stats_snapshot -n "$S" A || mrc_die "mrc stats in $S"
chk_evict "the real client" 0
mrc_wait_pid "$SNDPID" 10 || mrc_kill_pid "$SNDPID"

mrc_dmesg_check "amplification"
mrc_exit
