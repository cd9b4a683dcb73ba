# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # sourced: the tests read what it sets
#
# The ECMP fabric of the spraying tests, sourced after lib.sh:
#
#   h1 10.0.1.1                                              h2 10.0.2.1
#    |                        +-- s1 --+                         |
#    |                        +-- s2 --+                         |
#   l1 (leaf: ECMP over the   +-- .. --+   l2 (leaf: ECMP over the
#       spines, 5-tuple hash) +-- sN --+       spines, 5-tuple hash)
#
# The leaves hash as a switch does, addresses, protocol and both ports
# (fib_multipath_hash_policy 3, fields 0x37; not policy 1, which over veth
# reuses the sending socket's hash), so the UDP source port, the entropy
# value, picks the spine.  Each spine forwards toward h2 through tbf
# 50 Mbit/s and a netem delay, and back toward h1 through the same delay.
# Packets from h1 to h2 are counted where they leave a spine for l2 (l2's
# receive counter of that link), as a switch's load-balancing record.

T=$mrc_tmpdir
NSPINES=4
# Each spine's rate toward h2 (tbf), for the fabrics built after it is
# set: the benchmarks of N paths set it lower (tools/bench/paths.sh).
FABRIC_RATE=50mbit
PORT=7000
DST=10.0.2.1
# MRC_DEBUG_KERNEL=1 (tools/check-debug.sh sets it): the run is on the
# debug kernel, where each program started costs 0.5-2.5 s and packets
# move through the fabric a hundred times slower than on the stock
# kernel: the tests run a shorter set.
DEBUG_KERNEL=${MRC_DEBUG_KERNEL:-0}

# debug_mark WHAT: on the debug kernel, note how long the test has run
# (where its time goes).
debug_mark() {
	[ "$DEBUG_KERNEL" != 1 ] || mrc_log "# at $SECONDS s: $*"
}

# fabric_names N: N new namespace names (mrc-XXXXXXXX, as mrc_netns_add
# makes them), in NAMES, registered to be deleted on exit (by
# fabric_del) but not made.
FABRIC_NS=()
fabric_names() {
	local name i

	NAMES=()
	for ((i = 0; i < $1; i++)); do
		name=mrc-$(printf '%04x%04x' $RANDOM $RANDOM)
		if [ -e "/run/netns/$name" ] ||
		   [[ " ${NAMES[*]} ${FABRIC_NS[*]} " == *" $name "* ]]; then
			i=$((i - 1))
			continue
		fi
		NAMES+=("$name")
	done
	[ ${#FABRIC_NS[@]} -gt 0 ] || mrc_at_exit fabric_del
	FABRIC_NS+=("${NAMES[@]}")
}

# fabric_del: delete every fabric's namespaces, in one ip batch (-force:
# past any that is not there).
fabric_del() {
	printf 'netns del %s\n' "${FABRIC_NS[@]}" | ip -force -b - 2>/dev/null
}

# --- the fabric ----------------------------------------------------------

# fabric DELAY...: a fresh fabric of as many spines as DELAYs (netem delay
# of each spine, both ways).  Sets H1 H2 L1 L2 and SP[1..N].
fabric() {
	local n=$# i d m lines=() l1=() l2=() mods=() sys=()

	# As few programs as can be: each costs up to seconds under TCG.
	for m in veth sch_netem sch_tbf; do
		[ -d "/sys/module/$m" ] || mods+=("$m")
	done
	[ ${#mods[@]} -eq 0 ] || modprobe -q -a "${mods[@]}" 2>/dev/null || :
	fabric_names $((4 + n))
	H1=${NAMES[0]} H2=${NAMES[1]} L1=${NAMES[2]} L2=${NAMES[3]}
	SP=()
	for ((i = 1; i <= n; i++)); do
		SP[i]=${NAMES[i + 3]}
	done
	for m in "${NAMES[@]}"; do
		lines+=("netns add $m")
	done
	lines+=("link add vh netns $H1 mtu 9000 type veth peer name vh netns $L1 mtu 9000")
	lines+=("link add vh netns $H2 mtu 9000 type veth peer name vh netns $L2 mtu 9000")
	for ((i = 1; i <= n; i++)); do
		lines+=("link add vs$i netns $L1 mtu 9000 type veth peer name va netns ${SP[i]} mtu 9000")
		lines+=("link add vs$i netns $L2 mtu 9000 type veth peer name vb netns ${SP[i]} mtu 9000")
	done
	printf '%s\n' "${lines[@]}" | ip -b - ||
		mrc_die "cannot build the fabric's namespaces and links"

	ip -n "$H1" -b - <<-EOF || mrc_die "cannot set up h1"
		link set lo up
		addr add 10.0.1.1/24 dev vh
		link set vh up
		route add default via 10.0.1.254
	EOF
	ip -n "$H2" -b - <<-EOF || mrc_die "cannot set up h2"
		link set lo up
		addr add 10.0.2.1/24 dev vh
		link set vh up
		route add default via 10.0.2.254
	EOF
	l1=("link set lo up" "addr add 10.0.1.254/24 dev vh" "link set vh up")
	l2=("link set lo up" "addr add 10.0.2.254/24 dev vh" "link set vh up")
	local nh1="" nh2=""
	for ((i = 1; i <= n; i++)); do
		l1+=("addr add 10.1.$i.1/24 dev vs$i" "link set vs$i up")
		l2+=("addr add 10.2.$i.1/24 dev vs$i" "link set vs$i up")
		nh1+=" nexthop via 10.1.$i.2 dev vs$i"
		nh2+=" nexthop via 10.2.$i.2 dev vs$i"
		ip -n "${SP[i]}" -b - <<-EOF || mrc_die "cannot set up spine $i"
			link set lo up
			addr add 10.1.$i.2/24 dev va
			addr add 10.2.$i.2/24 dev vb
			link set va up
			link set vb up
			route add 10.0.1.0/24 via 10.1.$i.1
			route add 10.0.2.0/24 via 10.2.$i.1
		EOF
	done
	l1+=("route add 10.0.2.0/24$nh1")
	l2+=("route add 10.0.1.0/24$nh2")
	printf '%s\n' "${l1[@]}" | ip -n "$L1" -b - || mrc_die "cannot set up l1"
	printf '%s\n' "${l2[@]}" | ip -n "$L2" -b - || mrc_die "cannot set up l2"
	for m in "$L1" "$L2"; do
		sys+=("netns exec $m sysctl -q -w net.ipv4.ip_forward=1 net.ipv4.fib_multipath_hash_policy=3 net.ipv4.fib_multipath_hash_fields=0x37")
	done
	for ((i = 1; i <= n; i++)); do
		sys+=("netns exec ${SP[i]} sysctl -q -w net.ipv4.ip_forward=1")
	done
	printf '%s\n' "${sys[@]}" | ip -b - ||
		mrc_die "cannot set the leaves' hash and forwarding"
	i=1
	for d in "$@"; do
		tc -n "${SP[i]}" -b - <<-EOF || mrc_die "cannot shape spine $i"
			qdisc add dev vb root handle 1: tbf rate $FABRIC_RATE burst 64kb latency 100ms
			qdisc add dev vb parent 1:1 handle 10: netem delay $d limit 10000
			qdisc add dev va root netem delay $d limit 10000
		EOF
		i=$((i + 1))
	done
	MRC_DUMP_NS=$H1
}

# spine_counts VAR: l2's receive packet counter of each spine's link.
spine_counts() {
	local -n sc_out=$1
	local i out vals

	out=$(ip -n "$L2" -s -j link show) || mrc_die "ip link show in l2"
	mapfile -t vals < <(jq -r --argjson n "$NSPINES" '
		. as $l | range(1; $n + 1) as $i |
		($l[] | select(.ifname == "vs\($i)") | .stats64.rx.packets)' \
		<<<"$out")
	sc_out=()
	for ((i = 1; i <= NSPINES; i++)); do
		sc_out[i]=${vals[i - 1]:-0}
	done
}

# value_spines PORT...: which spine l1 hashes each value onto, as
# "PORT SPINE" lines (the fabric's own answer, ip route get).
value_spines() {
	local p out devs

	# One "dev vsN" per answer (each answer also has a "cache" line).
	# UDP by number: ip resolves "udp" through /etc/protocols, which
	# a minimal Debian (no netbase) does not have.
	out=$(for p in "$@"; do
		echo "route get $DST from 10.0.1.1 iif vh ipproto 17 sport $p dport 4791"
	done | ip -n "$L1" -b - 2>&1)
	devs=$(grep -o 'dev vs[0-9]*' <<<"$out")
	[ "$(grep -c . <<<"$devs")" -eq $# ] ||
		mrc_die "ip route get in l1 answered $(grep -c . <<<"$devs") of $# values: $(grep -v 'dev vs\|cache' <<<"$out" | head -3)"
	paste -d' ' <(printf '%s\n' "$@") - <<<"$devs" | sed 's/ dev vs/ /'
}

# peer_json NS: the destination state of $DST in NS (JSON), "" if none.
peer_json() {
	mrc_exec -n "$1" -j peer show "$DST" 2>/dev/null
}

# --- transfers -------------------------------------------------------------

# xfer ARGS...: mrcperf from h1 to h2 (server -1 on a new port, with
# $XFER_SRV_ARGS); sets
# XFER_RC, XFER_SRV_RC, XFER_OUT, XFER_SOUT, and PEER: h1's last view of
# the destination's state while the client ran or just after (a closed
# socket's queue pairs, and with them the state, go soon after).
xfer() {
	local pid cpid pj n

	PORT=$((PORT + 1))
	PEER=
	# shellcheck disable=SC2086 # options, split on purpose
	ip netns exec "$H2" "$MRCPERF" server -p "$PORT" -1 -j \
		${XFER_SRV_ARGS:-} >"$T/srv.out" 2>"$T/srv.err" &
	pid=$!
	if ! mrc_wait_bound "$pid" "$PORT" 20; then
		mrc_kill_pid "$pid"
		mrc_die "mrcperf server did not start: $(cat "$T/srv.err")"
	fi
	ip netns exec "$H1" "$MRCPERF" client "$DST" -p "$PORT" -j \
		--timeout 120 "$@" >"$T/cli.out" 2>"$T/cli.err" &
	cpid=$!
	QPS=""
	PEER_QPS=0
	: >"$T/peers"
	while kill -0 "$cpid" 2>/dev/null; do
		pj=$(peer_json "$H1")
		if [ -n "$pj" ] && [ "$pj" != "[]" ]; then
			PEER=$pj
			echo "$pj" >>"$T/peers"
		fi
		if [ -n "${XFER_QPS:-}" ]; then
			pj=$(mrc_exec -n "$H1" -j qp show 2>/dev/null)
			[ -n "$pj" ] && [ "$pj" != "[]" ] && QPS=$pj
		fi
		mrc_sleep 0.3
	done
	pj=$(peer_json "$H1")
	[ -n "$pj" ] && [ "$pj" != "[]" ] && PEER=$pj
	# The most queue pairs the state had at any one look.
	if [ -s "$T/peers" ]; then
		PEER_QPS=$(jq -s 'map(.[0].qps | length) | max' "$T/peers")
	fi
	wait "$cpid"
	XFER_RC=$?
	if mrc_wait_pid "$pid" 30; then
		XFER_SRV_RC=$MRC_WAIT_RC
	else
		XFER_SRV_RC=timeout
		mrc_kill_pid "$pid"
	fi
	XFER_OUT=$(<"$T/cli.out")
	XFER_SOUT=$(<"$T/srv.out")
}

# chk_xfer DESC N: both ends exited 0, N messages verified, no error.
chk_xfer() {
	local v='' w='' g=''

	# One jq for both ends' summaries (the server's, then the client's).
	read -r v w g < <(printf '%s\n%s\n' "$XFER_SOUT" "$XFER_OUT" |
		jq -rs '"\(.[0].messages) \(.[0].errors) \(.[1].goodput_mbps)"' \
		2>/dev/null)
	if [ "$XFER_RC" = 0 ] && [ "$XFER_SRV_RC" = 0 ] &&
	   { [ "$2" = any ] || [ "$v" = "$2" ]; } && [ "$w" = 0 ]; then
		mrc_pass "$1: $v messages verified ($g Mbit/s)"
	else
		# The server's counters too: why its side gave up (a queue
		# pair closed, messages evicted) is there alone.
		mrc_fail "$1: transfer" "client $XFER_RC: $XFER_OUT" \
			"$(<"$T/cli.err")" "server $XFER_SRV_RC: $XFER_SOUT" \
			"$(<"$T/srv.err")" "server's counters (h2):" \
			"$(mrc_exec -n "$H2" stats 2>&1 | grep -v ' 0$' |
			   tr '\n' ' ')"
	fi
}

# spread DESC BEFORE AFTER: print and return per-spine deltas in SPREAD.
spread() {
	local -n sb=$1 sa=$2
	local i

	SPREAD=()
	for ((i = 1; i <= NSPINES; i++)); do
		SPREAD[i]=$((sa[i] - sb[i]))
	done
}

# used_spines: how many spines carried over 5 % of SPREAD's packets.
used_spines() {
	local i tot=0 used=0

	for ((i = 1; i <= NSPINES; i++)); do
		tot=$((tot + SPREAD[i]))
	done
	for ((i = 1; i <= NSPINES; i++)); do
		[ $((SPREAD[i] * 20)) -gt "$tot" ] && used=$((used + 1))
	done
	echo "$used"
}

# fabric_star: the incast star, senders A[1..4] (10.3.i.1), router R,
# receiver D (10.4.0.1).  R's link to D has no qdisc: the test adds the
# bottleneck it studies (the trimming program pacing it through fq at
# 50 Mbit/s, say, or tbf with fq_codel).
fabric_star() {
	local i lines=() r=()

	fabric_names 6
	A=("" "${NAMES[@]:0:4}")
	R=${NAMES[4]} D=${NAMES[5]}
	for i in "${NAMES[@]}"; do
		lines+=("netns add $i")
	done
	for i in 1 2 3 4; do
		lines+=("link add va netns ${A[i]} type veth peer name va$i netns $R")
	done
	lines+=("link add vd netns $D type veth peer name vd netns $R")
	printf '%s\n' "${lines[@]}" | ip -b - || mrc_die "cannot build the star"
	r=("link set lo up" "addr add 10.4.0.254/24 dev vd" "link set vd up")
	for i in 1 2 3 4; do
		ip -n "${A[i]}" -b - <<-EOF || mrc_die "cannot set up sender $i"
			link set lo up
			addr add 10.3.$i.1/24 dev va
			link set va up
			route add default via 10.3.$i.254
		EOF
		r+=("addr add 10.3.$i.254/24 dev va$i" "link set va$i up")
	done
	ip -n "$D" -b - <<-EOF || mrc_die "cannot set up the receiver"
		link set lo up
		addr add 10.4.0.1/24 dev vd
		link set vd up
		route add default via 10.4.0.254
	EOF
	printf '%s\n' "${r[@]}" | ip -n "$R" -b - || mrc_die "cannot set up r"
	ip netns exec "$R" sysctl -q -w net.ipv4.ip_forward=1 ||
		mrc_die "r: forwarding"
}

# wait_no_qp NS: wait (10 s at most) until NS has no queue pair and no
# destination state left.
wait_no_peer() {
	local i

	for ((i = 0; i < 50; i++)); do
		[ "$(mrc_exec -n "$1" -j peer show | jq length)" = 0 ] &&
			return 0
		mrc_sleep 0.2
	done
	return 1
}

# config_h1 KEY VALUE...: once h1 has no destination state left (so that
# the next one is made under the new configuration), set KEY VALUE...
config_h1() {
	wait_no_peer "$H1" || mrc_die "h1 kept a destination state"
	mrc_exec -n "$H1" config set "$@" || mrc_die "config set $*"
}
