#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The protocol's memory (issue 13, item 4): what all mrc sockets hold
# for their readers is counted, as UDP's and TCP's is, in pages
# (net.mrc.mem_used: pages, and 1 under pressure) and bounded by
# net.mrc.mem (pages: above the second pressure, until below the first;
# the third the most).
#
#   +------ client netns ------+        +------ server netns ------------+
#   | 10.0.0.1, python client: |        | 10.0.0.2, python server:        |
#   | 48 x 64 KiB, numbered    |========| SO_RCVBUF 8 MiB, reads nothing  |
#   |                          |  veth  | for 3 s, then reads and checks  |
#   +--------------------------+        +---------------------------------+
#
#   1. no mrc socket: the protocol holds 0 pages; net.mrc.mem has three
#      rising numbers, and refuses 0 or one beyond a long; net.mrc.mem_used
#      cannot be written.
#   2. net.mrc.mem set to 48 64 96 (192, 256, 384 KiB); the client
#      sends 1 MiB, then 47 x 64 KiB: the server's socket, whose own
#      SO_RCVBUF would take 8 MiB, fills to the protocol's hard limit
#      and no further (sampled while it does not read: at least 88 and
#      at most 96 pages, and one a CPU), since its first message, next
#      in order and started, goes on under pressure; the protocol goes
#      under pressure; the packets beyond are refused
#      (rx_drop_proto_mem).
#   3. net.mrc.mem back to what it was, and the server reads: the 1 MiB
#      could not complete within the limit, so nothing could be read
#      before; its sender's timer tries again, and all 48 messages
#      arrive whole and in order; once both sockets close, the protocol
#      holds 0 pages again and is no longer under pressure.

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip python3 sysctl
mrc_require_cli
mrc_load
mrc_dmesg_mark

T=$mrc_tmpdir
PORT=6400
N=48
SIZE=65536
LIMITS="48 64 96"
HARD=96
# shellcheck disable=SC2034 # filled and read by name (lib.sh)
declare -A B A

# proto_mem: "pages pressure" (1 or 0), net.mrc.mem_used.
proto_mem() {
	sysctl -n net.mrc.mem_used
}

# --- 1. at rest -----------------------------------------------------------

# A test run just before may have left sockets closing (their namespaces
# deleted, their last messages still trying to go): the count is global,
# so wait for them to finish, a minute at most: two readings of nothing
# held a second apart (a closing socket may charge again what it let go).
zeros=0
for ((i = 0; i < 60 && zeros < 2; i++)); do
	read -r pages press <<<"$(proto_mem)"
	if [ "$pages" = 0 ] && [ "$press" = 0 ]; then
		zeros=$((zeros + 1))
	else
		zeros=0
	fi
	[ $zeros -lt 2 ] && mrc_sleep 1
done
if [ $zeros = 2 ]; then
	mrc_pass "at rest: the protocol holds 0 pages, no pressure ($i s)"
else
	mrc_fail "at rest: net.mrc.mem_used is '$pages $press', want '0 0'"
fi
if (echo "1 1" >/proc/sys/net/mrc/mem_used) 2>/dev/null; then
	mrc_fail "net.mrc.mem_used took a write"
else
	mrc_pass "net.mrc.mem_used is read-only"
fi
old=$(sysctl -n net.mrc.mem)
read -r m0 m1 m2 <<<"$old"
if [[ $m0 =~ ^[0-9]+$ && $m1 =~ ^[0-9]+$ && $m2 =~ ^[0-9]+$ ]] &&
   [ "$m0" -gt 0 ] && [ "$m0" -lt "$m1" ] && [ "$m1" -lt "$m2" ]; then
	mrc_pass "net.mrc.mem defaults to $m0 $m1 $m2 pages"
else
	mrc_fail "net.mrc.mem is '$old', want three rising numbers"
fi
mrc_at_exit "sysctl -qw net.mrc.mem='$old'"
# Each limit at least a page and at most a long's largest: above, read
# as a long, it would be negative and refuse everything.
# (The first number is the bad one: those before a bad one are taken,
# as for any vector sysctl.)
for v in "0 64 96" "9223372036854775808 64 96"; do
	if (echo "$v" >/proc/sys/net/mrc/mem) 2>/dev/null; then
		mrc_fail "net.mrc.mem took '$v'"
	else
		mrc_pass "net.mrc.mem refuses '$v'"
	fi
done
[ "$(sysctl -n net.mrc.mem)" = "$old" ] ||
	mrc_fail "net.mrc.mem changed by refused writes:" \
		"'$(sysctl -n net.mrc.mem)', was '$old'"
sysctl -qw net.mrc.mem="$LIMITS" || mrc_die "cannot set net.mrc.mem"
[ "$(sysctl -n net.mrc.mem | tr -s '\t ' '  ')" = "$LIMITS" ] ||
	mrc_die "net.mrc.mem reads '$(sysctl -n net.mrc.mem)' once set"

mrc_client_server

cat >"$T/mem.py" <<'EOF'
import os, socket, sys, time
IPPROTO_MRC = 253
# Not in Python's socket module: <asm-generic/socket.h>.
SO_SNDBUFFORCE, SO_RCVBUFFORCE = 32, 33
N, SIZE = int(sys.argv[3]), int(sys.argv[4])

def mrc():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM, IPPROTO_MRC)

def body(i):
    # The first message is 16 times the others: next in order and
    # started, it goes on under pressure, up to the hard limit.
    n = 16 * SIZE if i == 0 else SIZE
    return bytes([i & 0xff]) * 4 + bytes((i + j) & 0xff for j in range(n - 4))

def server(port, go):
    s = mrc()
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    s.bind(("0.0.0.0", port))
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.05)
    s.settimeout(120)
    for i in range(N):
        data, _ = s.recvfrom(1 << 20)
        if data != body(i):
            print("corrupt", i, len(data), flush=True)
            return
    print("verified", N, flush=True)

def client(addr, port):
    s = mrc()
    s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 8 << 20)
    for i in range(N):
        s.sendto(body(i), (addr, port))
    print("sent", N, flush=True)
    time.sleep(120)

if sys.argv[1] == "server":
    server(int(sys.argv[2]), sys.argv[5])
else:
    client(sys.argv[2], int(sys.argv[5]))
EOF

ip netns exec "$S" python3 "$T/mem.py" server "$PORT" "$N" "$SIZE" \
	"$T/go" >"$T/srv.out" 2>"$T/srv.err" &
SPID=$!
mrc_at_exit "mrc_kill_pid $SPID"
mrc_wait_line "$T/srv.out" '^ready' ||
	mrc_die "the server did not start: $(cat "$T/srv.err")"

# --- 2. a reader that does not read ---------------------------------------

mrc_stats_snapshot -n "$S" B || mrc_die "mrc stats in $S"
ip netns exec "$C" python3 "$T/mem.py" client "$MRC_IP4_B" "$N" "$SIZE" \
	"$PORT" >"$T/cli.out" 2>"$T/cli.err" &
CPID=$!
mrc_at_exit "mrc_kill_pid $CPID"
# By the clock, 2 s from when the hard limit is reached (20 s at most
# before): well inside the sender's persist deadline (8 s by default)
# from its last progress, after which its queue pair would fail for
# want of room.  Read without starting a process (nor a subshell): on
# the debug kernel 30 sysctl runs took longer than that deadline.
max=0
pressed=0
nsamples=0
t=${EPOCHREALTIME/[.,]/}
end=$((t + 20000000))
while [ "$t" -lt "$end" ]; do
	read -r pages press </proc/sys/net/mrc/mem_used
	nsamples=$((nsamples + 1))
	if [ "$pages" -gt "$max" ]; then
		max=$pages
		[ "$max" -ge $((HARD - 8)) ] && end=$((t + 2000000))
	fi
	[ "$press" = 1 ] && pressed=$((pressed + 1))
	mrc_sleep 0.1
	t=${EPOCHREALTIME/[.,]/}
done
mrc_stats_snapshot -n "$S" A || mrc_die "mrc stats in $S"
cpus=$(nproc)
if [ "$max" -ge $((HARD - 8)) ] && [ "$max" -le $((HARD + cpus)) ]; then
	mrc_pass "unread: the protocol held at most $max pages (hard limit" \
		"$HARD, and a page per CPU), where SO_RCVBUF allowed 2,048"
else
	mrc_fail "unread: the protocol held at most $max pages, want" \
		"$((HARD - 8))..$((HARD + cpus))"
fi
if [ "$pressed" -gt 0 ]; then
	mrc_pass "unread: under pressure in $pressed of $nsamples samples"
else
	mrc_fail "unread: never under pressure, over 64 pages"
fi
mrc_check_atleast "unread: packets refused by the limits (rx_drop_proto_mem)" \
	"$(mrc_stats_delta rx_drop_proto_mem B A)" 1

# --- 3. the reader reads -------------------------------------------------

# The limit that held the first message back goes: its sender's timer
# finds room (within its persist deadline).
sysctl -qw net.mrc.mem="$old" || mrc_die "cannot set net.mrc.mem back"
touch "$T/go"
mrc_wait_line "$T/srv.out" '^(verified|corrupt)' 1200
if grep -q "^verified $N" "$T/srv.out"; then
	mrc_pass "read: all $N messages (1 MiB, then 64 KiB each) arrived" \
		"whole and in order"
else
	mrc_fail "read: '$(cat "$T/srv.out" "$T/srv.err" | tail -n 3)'," \
		"want 'verified $N'"
fi
mrc_kill_pid "$CPID"
mrc_kill_pid "$SPID"
# Closed sockets free what they hold at once; the queue pairs linger
# without holding received memory.
for _ in $(seq 50); do
	read -r pages press <<<"$(proto_mem)"
	[ "$pages" = 0 ] && [ "$press" = 0 ] && break
	mrc_sleep 0.1
done
if [ "$pages" = 0 ] && [ "$press" = 0 ]; then
	mrc_pass "closed: the protocol holds 0 pages again, no pressure"
else
	mrc_fail "closed: net.mrc.mem_used is '$pages $press', want '0 0'"
fi

mrc_dmesg_check "memory"
mrc_exit
