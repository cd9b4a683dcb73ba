#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receive path's accounting, in a netns of its own: crafted UDP
# payloads sent from userspace (mrc_inject) to 127.0.0.1:4791 and
# [::1]:4791, and after each one the exact change of every counter of
# mrc stats: rx_packets +1, rx_bytes + the payload length, and exactly
# one of rx_drop_short / rx_drop_bad_version / rx_drop_bad_opcode /
# rx_drop_no_qp (every well-formed packet, as no queue pair exists yet).

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip
mrc_require_cli
mrc_require_inject
mrc_load
mrc_run_in_netns
mrc_log "# in netns $MRC_NS"
mrc_dmesg_mark

ip link set lo up || mrc_die "cannot bring lo up"

COUNTERS=(rx_packets rx_bytes rx_drop_short rx_drop_bad_version
	rx_drop_bad_opcode rx_drop_no_qp)

# kind, UDP payload bytes, the drop counter it must land in.  Expected
# values written out here, not taken from mrc_inject -l.
CASES=(
	"empty 0 rx_drop_short"
	"short5 5 rx_drop_short"
	"bth-short 11 rx_drop_short"
	"bad-opcode 12 rx_drop_bad_opcode"
	"bad-opcode-ff 64 rx_drop_bad_opcode"
	"bad-opcode-roce 64 rx_drop_bad_opcode"
	"bad-version 28 rx_drop_bad_version"
	"bad-version-f 28 rx_drop_bad_version"
	"probe 28 rx_drop_no_qp"
	"probe-b1-high 28 rx_drop_no_qp"
	"probe-short 27 rx_drop_short"
	"ack 16 rx_drop_no_qp"
	"ack-short 15 rx_drop_short"
	"sack 48 rx_drop_no_qp"
	"sack-short 20 rx_drop_short"
	"nack 32 rx_drop_no_qp"
	"nack-short 31 rx_drop_short"
	"write-only 32 rx_drop_no_qp"
	"write-only-1k 1056 rx_drop_no_qp"
	"write-only-short 31 rx_drop_short"
	"write-first 132 rx_drop_no_qp"
	"write-tseth 36 rx_drop_no_qp"
	"write-tseth-short 32 rx_drop_short"
	"write-imm 36 rx_drop_no_qp"
	"write-imm-short 35 rx_drop_short"
	"write-imm-tseth 40 rx_drop_no_qp"
	"write-imm-tseth-short 39 rx_drop_short"
	# TVer is checked before the opcode.
	"raw:12:0x00:0x01 12 rx_drop_bad_version"
)

declare -A before=() after=() total=()
for c in "${COUNTERS[@]}"; do
	total[$c]=0
done

mrc_stats_snapshot before || mrc_die "mrc stats: ${before[error]}"
for c in "${COUNTERS[@]}"; do
	chk_eq "new netns: $c" "${before[$c]:-<absent>}" 0
done

# expect DESC COUNT BYTES DROP_COUNTER: the deltas since $before, which
# then becomes the current snapshot.
expect() {
	local desc=$1 n=$2 bytes=$3 drop=$4 c want got bad=()

	mrc_stats_snapshot after || mrc_die "mrc stats: ${after[error]}"
	for c in "${COUNTERS[@]}"; do
		case $c in
		rx_packets) want=$n ;;
		rx_bytes) want=$((n * bytes)) ;;
		"$drop") want=$n ;;
		*) want=0 ;;
		esac
		got=$((${after[$c]:-0} - ${before[$c]:-0}))
		[ "$got" = "$want" ] || bad+=("$c: +$got, want +$want")
		total[$c]=$((total[$c] + want))
	done
	if [ ${#bad[@]} -eq 0 ]; then
		mrc_pass "$desc: rx_packets +$n, rx_bytes +$((n * bytes)), $drop +$n"
	else
		mrc_fail "$desc" "${bad[@]}"
	fi
	for c in "${COUNTERS[@]}"; do
		before[$c]=${after[$c]}
	done
}

for addr in 127.0.0.1 ::1; do
	mrc_log "# to $addr port 4791"
	for case in "${CASES[@]}"; do
		read -r kind len drop <<<"$case"
		out=$("$MRC_INJECT" "$addr" "$kind" 2>&1) ||
			mrc_die "mrc_inject $addr $kind: $out"
		expect "$addr $kind ($len bytes)" 1 "$len" "$drop"
	done
done

mrc_log "# bursts"
"$MRC_INJECT" -c 200 127.0.0.1 probe >/dev/null || mrc_die "mrc_inject burst"
expect "200 x probe to 127.0.0.1" 200 28 rx_drop_no_qp
"$MRC_INJECT" -c 200 ::1 write-only-1k >/dev/null || mrc_die "mrc_inject burst"
expect "200 x write-only-1k to ::1" 200 1056 rx_drop_no_qp
"$MRC_INJECT" -c 100 ::1 sack-short >/dev/null || mrc_die "mrc_inject burst"
expect "100 x sack-short to ::1" 100 20 rx_drop_short

mrc_log "# not for mrc"
"$MRC_INJECT" -p 4792 127.0.0.1 probe >/dev/null
"$MRC_INJECT" -p 4792 ::1 probe >/dev/null
expect "probe to port 4792: nothing counted" 0 0 none
# An IPv4-mapped destination from an IPv6 socket travels as IPv4: counted
# once, by the IPv4 socket (the IPv6 one is v6only).
"$MRC_INJECT" ::ffff:127.0.0.1 probe >/dev/null ||
	mrc_die "mrc_inject ::ffff:127.0.0.1"
expect "probe to ::ffff:127.0.0.1" 1 28 rx_drop_no_qp

# Through a device rather than loopback: from a peer netns over veth.
mrc_log "# from a peer netns over veth"
mrc_netns_add
peer=$MRC_NS
# Loaded by hand: run-vm's guest cannot autoload modules.
[ -d /sys/module/veth ] || modprobe veth 2>/dev/null
if ip link add mrc-v0 type veth peer name mrc-v1 netns "$peer" 2>/dev/null; then
	ip addr add 10.47.91.1/24 dev mrc-v0
	ip addr add fd00:4791::1/64 dev mrc-v0 nodad
	ip link set mrc-v0 up
	ip -n "$peer" addr add 10.47.91.2/24 dev mrc-v1
	ip -n "$peer" addr add fd00:4791::2/64 dev mrc-v1 nodad
	ip -n "$peer" link set mrc-v1 up
	# No neighbour resolution to wait for: the first packet goes at once.
	read -r mac </sys/class/net/mrc-v0/address
	ip -n "$peer" neigh replace 10.47.91.1 lladdr "$mac" dev mrc-v1 nud permanent
	ip -n "$peer" neigh replace fd00:4791::1 lladdr "$mac" dev mrc-v1 nud permanent
	for case in "probe 28 rx_drop_no_qp" "short5 5 rx_drop_short" \
		    "bad-version 28 rx_drop_bad_version" \
		    "write-only-1k 1056 rx_drop_no_qp"; do
		read -r kind len drop <<<"$case"
		for addr in 10.47.91.1 fd00:4791::1; do
			out=$(ip netns exec "$peer" "$MRC_INJECT" "$addr" "$kind" 2>&1) ||
				mrc_die "mrc_inject $addr $kind from $peer: $out"
			expect "veth $addr $kind ($len bytes)" 1 "$len" "$drop"
		done
	done
	chk_eq "peer netns: rx_packets (it only sent)" \
		"$(mrc_stat -n "$peer" rx_packets)" 0
	ip link del mrc-v0
else
	mrc_skip_check "packets over veth" "cannot create a veth pair"
fi
mrc_netns_del "$peer"

mrc_log "# totals since the netns was made"
mrc_stats_snapshot after
for c in "${COUNTERS[@]}"; do
	chk_eq "total $c" "${after[$c]}" "${total[$c]}"
done
chk_eq "drops add up to rx_packets" \
	"$((after[rx_drop_short] + after[rx_drop_bad_version] + after[rx_drop_bad_opcode] + after[rx_drop_no_qp]))" \
	"${after[rx_packets]}"


mrc_dmesg_check "kernel log of the rx test"
mrc_exit
