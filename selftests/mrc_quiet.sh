#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Quiet when unused: a namespace's UDP/4791 sockets open with its first
# mrc socket (or "mrc config set listen 1") and close after its last, so
# loading mrc takes port 4791 nowhere and leaves it to whoever else wants
# it (rdma_rxe, a plain UDP socket) where mrc is unused; mrc then fails
# there with EADDRINUSE, its socket() and its netlink set alike.
#
# Each step is checked twice: by ss (the sockets listening on 4791) and by
# the module's own udp_sockets_open (0, or 2: IPv4 and IPv6).
#
#   1. a fresh namespace: nothing on 4791, udp_sockets_open 0;
#   2. an mrc socket opens both, a second one shares them, the first's
#      close leaves them open, the last's closes them;
#   3. a plain UDP socket on 0.0.0.0:4791, then on [::]:4791 (v6only):
#      mrc's socket() fails with EADDRINUSE and leaves nothing open (not
#      even the family that was free), "config set listen 1" fails with
#      the extended ack's message, listen stays 0;
#   4. listen 1 holds the port with no mrc socket, across one's open and
#      close; listen 0 gives it back;
#   5. rdma_rxe loads beside mrc in the init namespace, takes 4791, and
#      mrc's socket() there fails with EADDRINUSE while another namespace
#      still has mrc (stock kernel only: the debug kernel has no RDMA).

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip ss python3 modprobe
mrc_require_cli
mrc_load
mrc_dmesg_mark

T=$mrc_tmpdir
# holder.py FAMILY KIND: open a socket, print "open" (or the errno's
# name, and exit 1) and hold it until killed.  KIND mrc is an mrc
# socket; udp a plain UDP socket bound to port 4791 (v6only in IPv6).
cat >"$T/holder.py" <<'EOF'
import errno, socket, sys, time
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
try:
    if sys.argv[2] == "mrc":
        s = socket.socket(fam, socket.SOCK_DGRAM, 253)
    else:
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", 4791))
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno), flush=True)
    sys.exit(1)
print("open", flush=True)
time.sleep(3600)
EOF

# hold NS FAMILY KIND: start holder.py in NS (- for this one); its pid in
# HOLD_PID, its first line in HOLD.
hold() {
	local pre=() out i

	[ "$1" != - ] && pre=(ip netns exec "$1")
	out=$(mktemp "$T/hold.XXXXXX")
	"${pre[@]}" python3 "$T/holder.py" "$2" "$3" >"$out" 2>&1 &
	HOLD_PID=$!
	HOLD=
	for ((i = 0; i < 100; i++)); do
		IFS= read -r HOLD <"$out"
		[ -n "$HOLD" ] && break
		kill -0 "$HOLD_PID" 2>/dev/null || { IFS= read -r HOLD <"$out"; break; }
		mrc_sleep 0.1
	done
	mrc_at_exit "kill $HOLD_PID"
}

# port NS DESC V4 V6 OPEN: the listeners on 4791 by family, and the
# module's udp_sockets_open.
port() {
	local nsarg=()

	[ "$1" != - ] && nsarg=(-n "$1")
	mrc_state "${nsarg[@]}"
	chk_eq "$2: v4 listeners on 4791" "$MRC_L4" "$3"
	chk_eq "$2: v6 listeners on 4791" "$MRC_L6" "$4"
	chk_eq "$2: udp_sockets_open" "${MRC_STATS[udp_sockets_open]}" "$5"
}

# closed NS: wait up to 5 s for the last user's close (a socket's
# destructor runs after a grace period, the close in a work item).
closed() {
	local nsarg=() i

	[ "$1" != - ] && nsarg=(-n "$1")
	for ((i = 0; i < 50; i++)); do
		[ "$(mrc_stat "${nsarg[@]}" udp_sockets_open)" = 0 ] && return 0
		mrc_sleep 0.1
	done
	return 1
}

mrc_netns_add
A=$MRC_NS

mrc_log "# 1. a fresh namespace"
port "$A" "fresh" 0 0 0

mrc_log "# 2. the first mrc socket opens the port, the last closes it"
hold "$A" 4 mrc
m1=$HOLD_PID
chk_eq "first mrc socket (IPv4)" "$HOLD" open
port "$A" "one mrc socket" 1 1 2
hold "$A" 6 mrc
m2=$HOLD_PID
chk_eq "second mrc socket (IPv6)" "$HOLD" open
mrc_kill_pid "$m1"
mrc_sleep 1
port "$A" "first closed, second open" 1 1 2
mrc_kill_pid "$m2"
closed "$A"
port "$A" "both closed" 0 0 0

mrc_log "# 3. another socket holds 4791: mrc fails with EADDRINUSE"
for fam in 4 6; do
	hold "$A" "$fam" udp
	u=$HOLD_PID
	chk_eq "plain UDP socket binds 4791 (IPv$fam) where mrc is unused" \
		"$HOLD" open
	hold "$A" 4 mrc
	chk_eq "mrc socket() beside UDP/4791 (IPv$fam)" "$HOLD" EADDRINUSE
	if [ "$fam" = 4 ]; then
		port "$A" "after the refused socket (IPv4 held)" 1 0 0
	else
		port "$A" "after the refused socket (IPv6 held)" 0 1 0
	fi
	mrc_run_capture -n "$A" config set listen 1
	chk_ne "config set listen 1 beside UDP/4791 (IPv$fam): exit status" \
		"$MRC_RC" 0
	case "$MRC_ERR" in
	*"UDP port 4791 is in use by another socket"*)
		mrc_pass "config set listen 1 (IPv$fam held): the message" ;;
	*)	mrc_fail "config set listen 1 (IPv$fam held): the message" \
			"$MRC_ERR" ;;
	esac
	chk_eq "listen after the refused set (IPv$fam held)" \
		"$(mrc_cfg -n "$A" listen)" 0
	mrc_kill_pid "$u"
done
hold "$A" 4 mrc
chk_eq "mrc socket once the UDP socket is gone" "$HOLD" open
mrc_kill_pid "$HOLD_PID"
closed "$A"
port "$A" "that one closed" 0 0 0

mrc_log "# 4. listen holds the port with no mrc socket"
mrc_run_capture -n "$A" config set listen 1
chk_eq "config set listen 1: exit status" "$MRC_RC" 0 || mrc_log "# $MRC_ERR"
port "$A" "listen 1" 1 1 2
hold "$A" 4 mrc
chk_eq "mrc socket under listen 1" "$HOLD" open
mrc_kill_pid "$HOLD_PID"
mrc_sleep 1
port "$A" "listen 1, the mrc socket closed" 1 1 2
mrc_run_capture -n "$A" config set listen 1
chk_eq "config set listen 1 again: exit status" "$MRC_RC" 0
mrc_run_capture -n "$A" config set listen 0
chk_eq "config set listen 0: exit status" "$MRC_RC" 0
closed "$A"
port "$A" "listen 0" 0 0 0
# A namespace deleted while it listens closes its sockets with it.
mrc_exec -n "$A" config set listen 1 || mrc_fail "config set listen 1"
mrc_netns_del "$A"

mrc_log "# 5. rdma_rxe beside mrc"
if [ "${MRC_DEBUG_KERNEL:-0}" = 1 ]; then
	# Its tinyconfig builds no RDMA; a plain UDP socket on 4791 (3.)
	# is the same refusal to mrc's side.
	mrc_log "# (rdma_rxe: on the stock kernel, the debug one has none)"
elif [ "$(mrc_stat udp_sockets_open)" != 0 ]; then
	mrc_fail "init netns: mrc already holds 4791 (listen or a socket)"
elif out=$(modprobe rdma_rxe 2>&1); then
	mrc_at_exit "modprobe -r rdma_rxe"
	mrc_pass "modprobe rdma_rxe with mrc loaded"
	port - "init netns with rdma_rxe" 1 1 0
	hold - 4 mrc
	chk_eq "mrc socket() where rdma_rxe holds 4791" "$HOLD" EADDRINUSE
	mrc_netns_add
	hold "$MRC_NS" 4 mrc
	chk_eq "mrc socket() in another namespace meanwhile" "$HOLD" open
	port "$MRC_NS" "the other namespace" 1 1 2
	mrc_kill_pid "$HOLD_PID"
	out=$(modprobe -r rdma_rxe 2>&1)
	chk_eq "modprobe -r rdma_rxe" "$?" 0 || mrc_log "# $out"
else
	mrc_fail "modprobe rdma_rxe with mrc loaded" "$out"
fi

mrc_dmesg_check "kernel log of the quiet test"
mrc_exit
