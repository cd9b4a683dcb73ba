#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrc is per network namespace: every netns gets its own configuration,
# counters and UDP/4791 sockets (IPv4 and IPv6) -- those only while mrc
# is used there (a socket, or listen set: mrc_quiet.sh); they go away with
# the netns and with the module, and the configuration and counters come
# back, at their defaults, when the module does, in namespaces that
# outlived it.

. "$(dirname "$0")/lib.sh"

NR_NS=${MRC_NETNS_NR:-5}
# Three on the debug kernel, where a cycle takes 8 s: mrc_fuzz.sh
# deletes 20 pairs more there, under traffic.
LOOPS=${MRC_NETNS_LOOPS:-10}
[ "${MRC_DEBUG_KERNEL:-0}" = 1 ] && LOOPS=${MRC_NETNS_LOOPS:-3}

mrc_require_root
mrc_require_cmd ip ss insmod rmmod modprobe modinfo
mrc_require_cli
mrc_require_inject
mrc_load

mrc_dmesg_mark
init_cfg=$(mrc_config_snapshot)
init_rx=$(mrc_stat rx_packets)

# --- several namespaces side by side --------------------------------------

mrc_log "# $NR_NS namespaces: sockets, configuration, counters"
ns=()
for ((i = 0; i < NR_NS; i++)); do
	mrc_netns_add
	ns+=("$MRC_NS")
done

for ((i = 0; i < NR_NS; i++)); do
	n=${ns[i]}
	mrc_state -n "$n"
	chk_eq "$n: v4 listeners on 4791 (mrc unused)" "$MRC_L4" 0
	chk_eq "$n: v6 listeners on 4791 (mrc unused)" "$MRC_L6" 0
	chk_eq "$n: udp_sockets_open" "${MRC_STATS[udp_sockets_open]}" 0
	chk_eq "$n: entropy-mask-bits default" "${MRC_CFG[entropy-mask-bits]}" 7
	chk_eq "$n: rx_packets" "${MRC_STATS[rx_packets]}" 0
done

# One change in one netns: the others keep the default.
MRC_DUMP_NS=${ns[0]}
mrc_run_capture -n "${ns[0]}" config set entropy-mask-bits 3
chk_eq "${ns[0]}: config set entropy-mask-bits 3" "$MRC_RC" 0 ||
	mrc_log "# $MRC_ERR"
out=$(mrc_config_snapshot -n "${ns[0]}")
chk_eq "${ns[0]}: entropy-mask-bits" "$(mrc_kv_get entropy-mask-bits <<<"$out")" 3
chk_eq "${ns[0]}: active-set follows (min(72, 2^3))" \
	"$(mrc_kv_get active-set <<<"$out")" 8
for ((i = 1; i < NR_NS; i++)); do
	MRC_DUMP_NS=${ns[i]}
	out=$(mrc_config_snapshot -n "${ns[i]}")
	chk_eq "${ns[i]}: entropy-mask-bits untouched" \
		"$(mrc_kv_get entropy-mask-bits <<<"$out")" 7
	chk_eq "${ns[i]}: active-set untouched" \
		"$(mrc_kv_get active-set <<<"$out")" 72
done
MRC_DUMP_NS=
chk_same "init netns: configuration untouched" "$(mrc_config_snapshot)" \
	"$init_cfg"

# A different configuration in each: each reads back its own.
for ((i = 0; i < NR_NS; i++)); do
	mrc_exec -n "${ns[i]}" config set entropy-mask-bits "$i" \
		mss "$((1000 + i))" rto "$((200 + i))" ||
		mrc_fail "${ns[i]}: config set"
done
for ((i = 0; i < NR_NS; i++)); do
	MRC_DUMP_NS=${ns[i]}
	out=$(mrc_config_snapshot -n "${ns[i]}")
	chk_eq "${ns[i]}: own entropy-mask-bits" \
		"$(mrc_kv_get entropy-mask-bits <<<"$out")" "$i"
	chk_eq "${ns[i]}: own mss" "$(mrc_kv_get mss <<<"$out")" "$((1000 + i))"
	chk_eq "${ns[i]}: own rto" "$(mrc_kv_get rto <<<"$out")" "$((200 + i))"
done
MRC_DUMP_NS=
chk_same "init netns: configuration still untouched" \
	"$(mrc_config_snapshot)" "$init_cfg"

# Packets sent in a netns are counted there and nowhere else (the two
# that receive listen; the others' port 4791 stays closed).
for ((i = 0; i < NR_NS; i++)); do
	ip -n "${ns[i]}" link set lo up
done
for ((i = 0; i < 2; i++)); do
	mrc_exec -n "${ns[i]}" config set listen 1 ||
		mrc_fail "${ns[i]}: config set listen 1"
	mrc_state -n "${ns[i]}"
	chk_eq "${ns[i]}: v4 listeners on 4791 (listen 1)" "$MRC_L4" 1
	chk_eq "${ns[i]}: v6 listeners on 4791 (listen 1)" "$MRC_L6" 1
	chk_eq "${ns[i]}: udp_sockets_open (listen 1)" \
		"${MRC_STATS[udp_sockets_open]}" 2
done
ip netns exec "${ns[0]}" "$MRC_INJECT" -c 3 127.0.0.1 probe >/dev/null
ip netns exec "${ns[1]}" "$MRC_INJECT" -c 2 ::1 probe >/dev/null
ip netns exec "${ns[1]}" "$MRC_INJECT" -c 1 127.0.0.1 short5 >/dev/null
want_rx=(3 3)
want_noqp=(3 2)
want_short=(0 1)
for ((i = 0; i < NR_NS; i++)); do
	declare -A st=()
	MRC_DUMP_NS=${ns[i]}
	mrc_stats_snapshot -n "${ns[i]}" st
	chk_eq "${ns[i]}: rx_packets" "${st[rx_packets]}" "${want_rx[i]:-0}"
	chk_eq "${ns[i]}: rx_drop_no_qp" "${st[rx_drop_no_qp]}" \
		"${want_noqp[i]:-0}"
	chk_eq "${ns[i]}: rx_drop_short" "${st[rx_drop_short]}" \
		"${want_short[i]:-0}"
done
MRC_DUMP_NS=
chk_eq "init netns: rx_packets untouched" "$(mrc_stat rx_packets)" "$init_rx"

for n in "${ns[@]}"; do
	mrc_netns_del "$n"
done
left=$(ip netns list | awk '$1 ~ /^mrc-/ { print $1 }' | tr '\n' ' ')
chk_eq "namespaces left behind" "$left" ""
chk_eq "module reference count after the namespaces" \
	"$(cat /sys/module/mrc/refcnt)" 0

# --- unload and reload under existing namespaces --------------------------

mrc_log "# rmmod and insmod while namespaces exist"
mrc_netns_add
nsa=$MRC_NS
mrc_netns_add
nsb=$MRC_NS
mrc_exec -n "$nsa" config set entropy-mask-bits 2 listen 1 ||
	mrc_fail "$nsa: config set"
chk_eq "$nsa: entropy-mask-bits before rmmod" \
	"$(mrc_cfg -n "$nsa" entropy-mask-bits)" 2
mrc_listeners -n "$nsa"
chk_eq "$nsa: v4 listeners before rmmod (listen 1)" "$MRC_L4" 1

out=$(rmmod mrc 2>&1)
chk_eq "rmmod with namespaces alive" "$?" 0 || mrc_log "# $out"
for n in "$nsa" "$nsb"; do
	mrc_state -n "$n"
	chk_eq "$n: v4 listeners after rmmod" "$MRC_L4" 0
	chk_eq "$n: v6 listeners after rmmod" "$MRC_L6" 0
	chk_eq "$n: CLI exit status after rmmod" "$MRC_CFG_RC" 3
done
mrc_listeners
chk_eq "init netns: v4 listeners after rmmod" "$MRC_L4" 0
chk_eq "init netns: v6 listeners after rmmod" "$MRC_L6" 0

mrc_insmod || mrc_die "insmod $MRC_KO: $MRC_INSMOD_ERR"
for n in "$nsa" "$nsb"; do
	mrc_state -n "$n"
	chk_eq "$n: v4 listeners after insmod" "$MRC_L4" 0
	chk_eq "$n: v6 listeners after insmod" "$MRC_L6" 0
	chk_eq "$n: entropy-mask-bits is the default again" \
		"${MRC_CFG[entropy-mask-bits]}" 7
	chk_eq "$n: listen is the default again" "${MRC_CFG[listen]}" 0
	chk_eq "$n: counters start from zero" "${MRC_STATS[rx_packets]}" 0
done
mrc_listeners
chk_eq "init netns: v4 listeners after insmod" "$MRC_L4" 0
chk_eq "init netns: v6 listeners after insmod" "$MRC_L6" 0
# The reload reset the init netns too.
init_cfg=$(mrc_config_snapshot)
ip -n "$nsa" link set lo up
mrc_exec -n "$nsa" config set listen 1 || mrc_fail "$nsa: config set listen 1"
ip netns exec "$nsa" "$MRC_INJECT" 127.0.0.1 probe >/dev/null
chk_eq "$nsa: receives after the reload" "$(mrc_stat -n "$nsa" rx_drop_no_qp)" 1
mrc_netns_del "$nsa"
mrc_netns_del "$nsb"

# --- create and delete in a loop ------------------------------------------

mrc_log "# $LOOPS create/use/delete cycles"
bad=0
for ((i = 1; i <= LOOPS; i++)); do
	mrc_netns_add
	n=$MRC_NS
	mrc_state -n "$n"
	got="$MRC_L4 $MRC_L6 ${MRC_CFG[entropy-mask-bits]} ${MRC_STATS[rx_packets]}"
	if [ "$got" != "0 0 7 0" ]; then
		bad=$((bad + 1))
		mrc_log "# cycle $i: listeners v4, v6, entropy-mask-bits, rx_packets: $got"
	fi
	# Changed state must not leak into the next cycle's new netns.
	ip netns exec "$n" sh -c '"$1" config set entropy-mask-bits 1 listen 1 &&
		ip link set lo up && "$2" 127.0.0.1 probe' sh "$MRC" \
		"$MRC_INJECT" >/dev/null || bad=$((bad + 1))
	mrc_netns_del "$n"
done
chk_eq "create/use/delete cycles that went wrong" "$bad" 0

# The init netns never saw any of it.
chk_same "init netns: configuration at the end" "$(mrc_config_snapshot)" \
	"$init_cfg"
mrc_dmesg_check "kernel log of the netns test"

mrc_exit
