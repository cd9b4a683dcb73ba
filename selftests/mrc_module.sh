#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload mrc.ko repeatedly.  After every load: the generic netlink
# family answers (mrc config show works), the init netns has its defaults,
# no socket listens on port 4791 (mrc is unused) until "config set listen
# 1" opens one IPv4 and one IPv6 UDP socket there, and the kernel log
# gained exactly one "mrc: Multipath Reliable Connection transport" line.
# After every unload: the CLI says the module is not loaded (exit 3) and
# no socket listens on 4791.  Over the whole loop the kernel log gains no
# other mrc line and no warning.

. "$(dirname "$0")/lib.sh"

# Three on the debug kernel, where a cycle takes 12 s: mrc_fuzz.sh
# unloads it 20 times more there, under traffic.
LOOPS=${MRC_MODULE_LOOPS:-10}
[ "${MRC_DEBUG_KERNEL:-0}" = 1 ] && LOOPS=${MRC_MODULE_LOOPS:-3}
LOAD_LINE='mrc: Multipath Reliable Connection transport, UDP port 4791'
# What the module loader itself prints about an unsigned out-of-tree
# module, once per boot: expected, not mrc's doing.
LOADER_LINES='loading out-of-tree module taints kernel|module verification failed'

mrc_require_root
mrc_require_cmd insmod rmmod modprobe modinfo ss dmesg
mrc_require_cli
[ -f "$MRC_KO" ] || mrc_die "$MRC_KO is missing (build the module first)"

was_loaded=0
if mrc_loaded; then
	was_loaded=1
	mrc_unload
fi
# Leave the module as it was found.
mrc_at_exit '[ $was_loaded = 1 ] && ! mrc_loaded && mrc_insmod'

mrc_log "module: $MRC_KO"
mrc_log "cli:    $MRC"

mrc_state
chk_eq "before the loop: CLI exit status without the module" "$MRC_CFG_RC" 3
chk_eq "before the loop: v4 listeners on 4791" "$MRC_L4" 0
chk_eq "before the loop: v6 listeners on 4791" "$MRC_L6" 0

mrc_dmesg_mark

for ((i = 1; i <= LOOPS; i++)); do
	mrc_insmod
	chk_eq "load $i: insmod exit status" "$?" 0 ||
		mrc_log "#   $MRC_INSMOD_ERR"
	chk_eq "load $i: /sys/module/mrc" \
		"$([ -d /sys/module/mrc ] && echo present || echo absent)" present
	mrc_state
	chk_eq "load $i: mrc config show exit status" "$MRC_CFG_RC" 0
	chk_eq "load $i: entropy-mask-bits" "${MRC_CFG[entropy-mask-bits]}" 7
	chk_eq "load $i: active-set" "${MRC_CFG[active-set]}" 72
	chk_eq "load $i: mrc stats exit status" "$MRC_STATS_RC" 0
	chk_eq "load $i: rx_packets" "${MRC_STATS[rx_packets]}" 0
	chk_eq "load $i: v4 listeners on 4791 (mrc unused)" "$MRC_L4" 0
	chk_eq "load $i: v6 listeners on 4791 (mrc unused)" "$MRC_L6" 0
	chk_eq "load $i: udp_sockets_open" "${MRC_STATS[udp_sockets_open]}" 0
	"$MRC" config set listen 1 || mrc_fail "load $i: config set listen 1"
	mrc_state
	chk_eq "load $i: v4 listeners on 4791 (listen 1)" "$MRC_L4" 1
	chk_eq "load $i: v6 listeners on 4791 (listen 1)" "$MRC_L6" 1
	chk_eq "load $i: udp_sockets_open (listen 1)" \
		"${MRC_STATS[udp_sockets_open]}" 2
	case "$MRC_A4" in
	0.0.0.0:4791) mrc_pass "load $i: v4 socket bound to any: $MRC_A4" ;;
	*) mrc_fail "load $i: v4 socket address '$MRC_A4', want 0.0.0.0:4791" ;;
	esac
	case "$MRC_A6" in
	'[::]:4791' | '*:4791') mrc_pass "load $i: v6 socket bound to any: $MRC_A6" ;;
	*) mrc_fail "load $i: v6 socket address '$MRC_A6', want [::]:4791" ;;
	esac

	out=$(rmmod mrc 2>&1)
	chk_eq "unload $i: rmmod exit status" "$?" 0 || mrc_log "#   $out"
	chk_eq "unload $i: /sys/module/mrc" \
		"$([ -d /sys/module/mrc ] && echo present || echo absent)" absent
	mrc_state
	chk_eq "unload $i: mrc config show exit status (module not loaded)" \
		"$MRC_CFG_RC" 3
	chk_eq "unload $i: mrc stats exit status (module not loaded)" \
		"$MRC_STATS_RC" 3
	chk_eq "unload $i: v4 listeners on 4791" "$MRC_L4" 0
	chk_eq "unload $i: v6 listeners on 4791" "$MRC_L6" 0
done

new=$(mrc_dmesg_new)
chk_eq "kernel log: load lines for $LOOPS loads" \
	"$(grep -cF "$LOAD_LINE" <<<"$new")" "$LOOPS"
other=$(grep -i 'mrc' <<<"$new" | grep -vF "$LOAD_LINE" |
	grep -vE "$LOADER_LINES")
if [ -z "$other" ]; then
	mrc_pass "kernel log: no other mrc lines"
else
	mrc_fail "kernel log: other mrc lines" "$other"
fi
mrc_dmesg_check "kernel log over $LOOPS load/unload cycles"

# Unload while busy: a netlink client and a packet sender keep running
# while the module goes away and comes back.
if [ -x "$MRC_INJECT" ]; then
	mrc_dmesg_mark
	mrc_insmod || mrc_die "insmod: $MRC_INSMOD_ERR"
	ip link set lo up
	t=$(mrc_tmp)
	(
		end=$((SECONDS + 6))
		while [ $SECONDS -lt $end ]; do
			# Each reload closes the port: open it again.
			"$MRC" config set listen 1 >/dev/null 2>&1
			"$MRC" stats >/dev/null 2>&1
			"$MRC_INJECT" -c 50 127.0.0.1 probe >/dev/null 2>&1
		done
	) &
	busy=$!
	mrc_at_exit "kill $busy"
	fails=0
	for ((i = 1; i <= 3; i++)); do
		rmmod mrc 2>>"$t/rmmod.err" || fails=$((fails + 1))
		mrc_insmod || {
			fails=$((fails + 1))
			echo "$MRC_INSMOD_ERR" >>"$t/rmmod.err"
		}
	done
	wait "$busy"
	chk_eq "load/unload under traffic and netlink requests: failures" \
		"$fails" 0 || mrc_log "#   $(cat "$t/rmmod.err")"
	rmmod mrc
	mrc_dmesg_check "kernel log of load/unload under traffic"
else
	mrc_skip_fixable "load/unload under traffic" \
		"no $MRC_INJECT (build it: make -C selftests)"
fi

mrc_exit
