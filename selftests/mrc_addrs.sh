#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A host with several addresses: mrc answers each peer from the address
# the peer used, and bind() to an address is honoured or refused.
#
#   +------- C (client) -------+          +------- S (server) --------+
#   | mrc-a 10.0.0.1/24        |          | mrc-b 10.0.0.2/24 primary |
#   |       fd00::1/64         |==========|       10.0.0.3/24 second  |
#   |       fe80::... (link)   |   veth   |       fd00::2/64 primary  |
#   |  tshark -i mrc-a         |          |       fd00::3/64 second   |
#   +--------------------------+          |       fe80::... (link)    |
#                                         +---------------------------+
#
# 1. mrcperf to S's second IPv4 and IPv6 address, S's server bound to
#    none: every message verified; S's queue pair has the second address
#    as its local one (mrc -j qp show, local_addr), C's the route's
#    source; tshark on C sees every packet from S come from the address
#    C sent to.  (Before the local address was part of a queue pair's
#    key, S answered from its primary address, which C's queue pair never
#    matched: nothing C sent was acknowledged and the run failed.)
# 2. The server bound to the second address: a client to the primary one
#    is refused (ECONNREFUSED from mrcperf, S counts rx_drop_no_qp and
#    sends a NACK, takes no message), one to the second verifies.
# 3. bind() to an address S does not have: EADDRNOTAVAIL; to a link-local
#    one with no scope: EINVAL.
# 4. mrcperf to S's IPv6 link-local address with C's scope id, S bound to
#    none and then to it with its scope id: verified, answered from it.

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip jq tshark
mrc_require_cli
mrc_require_mrcperf
mrc_require_sockapi
mrc_load
mrc_dmesg_mark

T=$mrc_tmpdir
PORT=6300
# Each run sends for SECS seconds: long enough for "mrc qp show" to see
# its queue pairs while they are up.  On the debug kernel (TCG, KASAN)
# each look takes about a second, and 20 messages were once over before
# the first.
SECS=1
[ "${MRC_DEBUG_KERNEL:-0}" = 1 ] && SECS=3
SIZE=65536
IP4_B2=10.0.0.3 IP6_B2=fd00::3

mrc_client_server
out=$(ip -n "$S" -b - 2>&1 <<-EOF
	addr add $IP4_B2/24 dev $MRC_VETH_B
	addr add $IP6_B2/64 dev $MRC_VETH_B nodad
	EOF
) || mrc_die "second addresses: $out"
out=$(ip -n "$C" -b - 2>&1 <<-EOF
	neigh replace $IP4_B2 lladdr $MRC_MAC_B dev $MRC_VETH_A nud permanent
	neigh replace $IP6_B2 lladdr $MRC_MAC_B dev $MRC_VETH_A nud permanent
	EOF
) || mrc_die "neighbours of the second addresses: $out"

# Each end's link-local address, once DAD is done with it.
ll_addr() {
	local ns=$1 dev=$2 i a

	for ((i = 0; i < 100; i++)); do
		a=$(ip -n "$ns" -j -6 addr show dev "$dev" scope link 2>/dev/null |
			jq -r '[.[].addr_info[] | select(.family == "inet6" and
				(.tentative | not))][0].local // empty')
		if [ -n "$a" ]; then
			echo "$a"
			return 0
		fi
		mrc_sleep 0.1
	done
	return 1
}
LL_C=$(ll_addr "$C" "$MRC_VETH_A") || mrc_die "no link-local address on $MRC_VETH_A"
LL_S=$(ll_addr "$S" "$MRC_VETH_B") || mrc_die "no link-local address on $MRC_VETH_B"
mrc_log "# link-local: C $LL_C, S $LL_S"

# shellcheck disable=SC2034 # used by name: mrc_stats_snapshot
declare -A SB=() SA=()

# capture_start / capture_stop: tshark on C's link, for one run.
capture_start() {
	local i

	rm -f "$T/cap.pcapng" "$T/tshark.err"
	ip netns exec "$C" tshark -q -i "$MRC_VETH_A" -f "udp port 4791" \
		-w "$T/cap.pcapng" 2>"$T/tshark.err" &
	TPID=$!
	for ((i = 0; i < 150; i++)); do
		grep -q "Capturing on" "$T/tshark.err" 2>/dev/null && break
		mrc_sleep 0.1
	done
	grep -q "Capturing on" "$T/tshark.err" ||
		mrc_die "tshark did not start: $(cat "$T/tshark.err")"
	# dumpcap says so a little before it captures.
	mrc_sleep 1
}
capture_stop() {
	mrc_sleep 0.5
	kill -INT "$TPID"
	mrc_wait_pid "$TPID" 20 && return 0
	kill -TERM "$TPID"
	mrc_wait_pid "$TPID" 10 || mrc_die "tshark did not stop"
}

# capture_srcs CLIENT_ADDR: "SOURCE COUNT" of the packets sent to
# CLIENT_ADDR (from S), one line per source.
capture_srcs() {
	tshark -r "$T/cap.pcapng" -T fields -e ip.src -e ip.dst -e ipv6.src \
		-e ipv6.dst 2>/dev/null |
		awk -v c="$1" -F'\t' '
			$2 == c { n[$1]++ } $4 == c { n[$3]++ }
			END { for (a in n) print a, n[a] }' | sort
}

# server ARGS...: an mrcperf server (-1 -j) on a new port in S, bound
# when it is up; its pid in SPID.
server() {
	PORT=$((PORT + 1))
	ip netns exec "$S" "$MRCPERF" server -p "$PORT" -1 -j "$@" \
		>"$T/srv.out" 2>"$T/srv.err" &
	SPID=$!
	if ! mrc_wait_bound "$SPID" "$PORT" 20; then
		mrc_kill_pid "$SPID"
		mrc_die "mrcperf server $* on port $PORT did not start:" \
			"$(cat "$T/srv.out" "$T/srv.err")"
	fi
}

# client ADDR: an mrcperf run from C to ADDR at the server's port; its
# status in CLI_RC, and the queue pairs of both ends in QPS_C / QPS_S as
# "LOCAL>REMOTE" words: all those seen while it ran and right after it
# (a closed socket's lingering ones).  Read while it runs too: the
# server's end with its socket.
client() {
	local pid

	ip netns exec "$C" "$MRCPERF" client "$1" -p "$PORT" -j -s "$SIZE" \
		-t "$SECS" --timeout 20 >"$T/cli.out" 2>"$T/cli.err" &
	pid=$!
	QPS_C="" QPS_S=""
	while kill -0 "$pid" 2>/dev/null; do
		QPS_S+=" $(qps "$S")"
		QPS_C+=" $(qps "$C")"
		mrc_sleep 0.2
	done
	wait "$pid"
	CLI_RC=$?
	QPS_S+=" $(qps "$S")"
	QPS_C+=" $(qps "$C")"
	QPS_S=$(words "$QPS_S")
	QPS_C=$(words "$QPS_C")
}

# words STRING: its words, each once, sorted, space-separated.
words() {
	# shellcheck disable=SC2086 # split on purpose
	printf '%s\n' $1 | sort -u | tr '\n' ' ' | sed 's/ $//'
}

qps() {
	mrc_exec -n "$1" -j qp show 2>&1 |
		jq -r '[.. | objects | select(has("remote_addr")) |
			"\(.local_addr // "none")>\(.remote_addr)"] |
			unique | join(" ")' 2>&1
}

# server_end: wait for the server; its status in SRV_RC.
server_end() {
	if mrc_wait_pid "$SPID" 30; then
		SRV_RC=$MRC_WAIT_RC
	else
		SRV_RC=timeout
		mrc_kill_pid "$SPID"
	fi
}

json_num() {
	jq -r ".$1 // empty" <<<"$2" 2>/dev/null | tail -n 1
}

# chk_verified DESC: client and server ended well, every message the
# client sent verified, and some were.
chk_verified() {
	local bad=() v n

	[ "$CLI_RC" = 0 ] || bad+=("client exit status $CLI_RC: $(cat "$T/cli.err")")
	[ "$SRV_RC" = 0 ] || bad+=("server exit status $SRV_RC: $(cat "$T/srv.err")")
	n=$(json_num messages "$(cat "$T/cli.out")")
	v=$(json_num messages "$(cat "$T/srv.out")")
	[ "${n:-0}" -gt 0 ] 2>/dev/null || bad+=("client: ${n:-no} messages sent")
	[ "$v" = "$n" ] || bad+=("server: ${v:-no} messages verified, want $n")
	v=$(json_num errors "$(cat "$T/srv.out")")
	[ "$v" = 0 ] || bad+=("server: ${v:-no} errors")
	if [ ${#bad[@]} -eq 0 ]; then
		mrc_pass "$1: $n messages of $SIZE B verified"
	else
		mrc_fail "$1" "${bad[@]}"
	fi
}

# chk_replies DESC CLIENT_ADDR SERVER_ADDR: every packet tshark saw go to
# the client came from SERVER_ADDR, and there were some.
chk_replies() {
	local got

	got=$(capture_srcs "$2")
	if [ "${got% *}" = "$3" ] && [ "${got##* }" -gt 0 ] 2>/dev/null; then
		mrc_pass "$1: all ${got##* } packets to $2 from $3"
	else
		mrc_fail "$1: packets to $2 by source, want all from $3" \
			"${got:-none captured}"
	fi
}

# chk_qp DESC QPS WORD: the queue pairs QPS include WORD.
chk_qp() {
	case " $2 " in
	*" $3 "*) mrc_pass "$1: queue pair $3" ;;
	*) mrc_fail "$1: no queue pair $3" "queue pairs: ${2:-none}" ;;
	esac
}

# --- 1. to the second address, the server bound to none --------------------

for fam in 4 6; do
	if [ $fam = 4 ]; then
		a_c=$MRC_IP4_A a_b=$MRC_IP4_B a_b2=$IP4_B2
	else
		a_c=$MRC_IP6_A a_b=$MRC_IP6_B a_b2=$IP6_B2
	fi
	capture_start
	server -$fam
	client "$a_b2"
	server_end
	capture_stop
	chk_verified "IPv$fam to the second address $a_b2"
	chk_qp "IPv$fam, S" "$QPS_S" "$a_b2>$a_c"
	chk_qp "IPv$fam, C" "$QPS_C" "$a_c>$a_b2"
	chk_replies "IPv$fam to $a_b2" "$a_c" "$a_b2"
	# Not the primary address's: S has no queue pair there.
	case " $QPS_S " in
	*"$a_b>"*) mrc_fail "IPv$fam: S has a queue pair at its primary $a_b" \
		"$QPS_S" ;;
	*) mrc_pass "IPv$fam: S has no queue pair at its primary $a_b" ;;
	esac
done

# --- 2. the server bound to the second address ------------------------------

for fam in 4 6; do
	if [ $fam = 4 ]; then
		a_c=$MRC_IP4_A a_b=$MRC_IP4_B a_b2=$IP4_B2
	else
		a_c=$MRC_IP6_A a_b=$MRC_IP6_B a_b2=$IP6_B2
	fi
	server -$fam --bind "$a_b2"
	mrc_stats_snapshot -n "$S" SB
	client "$a_b"
	mrc_stats_snapshot -n "$S" SA
	if [ "$CLI_RC" != 0 ] && grep -qi "refused" "$T/cli.err" "$T/cli.out"; then
		mrc_pass "IPv$fam bound to $a_b2: a client to $a_b is refused"
	else
		mrc_fail "IPv$fam bound to $a_b2: a client to $a_b, status $CLI_RC, want refused" \
			"$(cat "$T/cli.out" "$T/cli.err")"
	fi
	for c in rx_drop_no_qp nack_tx; do
		v=$(mrc_stats_delta $c SB SA)
		if [ "$v" -ge 1 ] 2>/dev/null; then
			mrc_pass "IPv$fam bound to $a_b2: S $c +$v"
		else
			mrc_fail "IPv$fam bound to $a_b2: S $c +$v, want >= 1"
		fi
	done
	chk_eq "IPv$fam bound to $a_b2: S took no message" \
		"$(mrc_stats_delta rx_msgs SB SA)" 0
	client "$a_b2"
	server_end
	chk_verified "IPv$fam bound to $a_b2, to it"
	chk_qp "IPv$fam bound, S" "$QPS_S" "$a_b2>$a_c"
done

# --- 3. bind() refused ------------------------------------------------------

# bind_err ARGS...: what an mrcperf server given ARGS said, and its status.
bind_err() {
	ip netns exec "$S" timeout 20 "$MRCPERF" server -p "$PORT" -1 "$@" \
		>/dev/null 2>"$T/bind.err"
	echo "$? $(cat "$T/bind.err")"
}
for a in 10.0.0.99 fd00::99; do
	got=$(bind_err --bind "$a")
	case "$got" in
	"1 "*"Cannot assign requested address"*)
		mrc_pass "bind to $a, not S's: EADDRNOTAVAIL" ;;
	*) mrc_fail "bind to $a, not S's: want EADDRNOTAVAIL" "$got" ;;
	esac
done
got=$(bind_err --bind "$LL_S")
case "$got" in
"1 "*"Invalid argument"*)
	mrc_pass "bind to $LL_S with no scope id: EINVAL" ;;
*) mrc_fail "bind to $LL_S with no scope id: want EINVAL" "$got" ;;
esac

# --- 4. link-local ----------------------------------------------------------

capture_start
server -6
client "$LL_S%$MRC_VETH_A"
server_end
capture_stop
chk_verified "to the link-local $LL_S%$MRC_VETH_A"
chk_qp "link-local, S" "$QPS_S" "$LL_S>$LL_C"
chk_replies "link-local" "$LL_C" "$LL_S"

server -6 --bind "$LL_S%$MRC_VETH_B"
client "$LL_S%$MRC_VETH_A"
server_end
chk_verified "bound to the link-local $LL_S%$MRC_VETH_B"
chk_qp "link-local bound, S" "$QPS_S" "$LL_S>$LL_C"

splat=$(mrc_dmesg_new | grep -E "$MRC_DMESG_BAD")
if [ -z "$splat" ]; then
	mrc_pass "no kernel warnings"
else
	mrc_fail "kernel warnings" "$splat"
fi
mrc_exit
