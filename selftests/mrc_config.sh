#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configuration through the CLI, in a netns of its own: the defaults, every
# key set and read back (also at its bounds), every range rejected at
# min - 1 and max + 1 (ERANGE from the kernel's policy, which gives the
# range; mrc names the key) with the exact message and nothing changed,
# the StartingPortOffset + 2^EntropyMaskBits - 1 <= 65535 rule, atomic
# multi-key requests, the derived bdp-bytes / active-set values, and who
# may change what (CAP_NET_ADMIN in the netns's user namespace).

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip
mrc_require_cli
mrc_load
mrc_run_in_netns
MRC_DUMP_NS=
mrc_log "# in netns $MRC_NS"
mrc_dmesg_mark

PORT_RULE_MSG='StartingPortOffset + 2^EntropyMaskBits - 1 must not exceed 65535'

# The documented table: key, min, max, default, another valid value (as
# the CLI takes it), what mrc prints for a value out of range.
PARAMS=(
	"spraying|0|1|1|none|PacketSprayingType (spraying) must be in 0..1"
	"entropy-mask-bits|0|8|7|5|EntropyMaskBits (entropy-mask-bits) must be in 0..8"
	"starting-port-offset|0|65535|256|1000|StartingPortOffset (starting-port-offset) must be in 0..65535"
	"active-ev-set-size|0|65536|0|16|ActiveEVSetSize (active-ev-set-size) must be in 0..65536"
	"probe-period|1|1000000|150|300|ReliabilityProbePeriod (probe-period) must be in 1..1000000"
	"sack-loss-min-retx-pkts|1|65535|8|3|SACKLossMinRetxPkts (sack-loss-min-retx-pkts) must be in 1..65535"
	"mss|64|65000|4096|1500|MSS (mss) must be in 64..65000"
	"base-rtt|1|1000000|6|10|ConfigBaseRTT (base-rtt) must be in 1..1000000"
	"link-rate|1|10000000|400000|100000|LinkRate (link-rate) must be in 1..10000000"
	"qp-groups|0|1|0|on|QPGroupsEnabled (qp-groups) must be in 0..1"
	"trimming|0|1|1|off|TrimmingEnabled (trimming) must be in 0..1"
	"rto|100|10000000|4000|5000|RetransmissionTimeout (rto) must be in 100..10000000"
	"max-msg-size|1|1073741824|67108864|1048576|MaxMessageSize (max-msg-size) must be in 1..1073741824"
	"retry-limit|1|255|7|3|RetryLimit (retry-limit) must be in 1..255"
	"listen|0|1|0|1|Listen (listen) must be in 0..1"
)

# JSON keys, in the same order.
JSON_KEYS=(packet_spraying_type entropy_mask_bits starting_port_offset
	active_ev_set_size reliability_probe_period_us sack_loss_min_retx_pkts
	mss config_base_rtt_us link_rate_mbps qp_groups_enabled
	trimming_enabled rto_us max_msg_size retry_limit listen)

# plain KEY VALUE: how plain output shows a value given as a number.
plain() {
	case "$1:$2" in
	spraying:0) echo none ;;
	spraying:1) echo default ;;
	qp-groups:0 | trimming:0) echo off ;;
	qp-groups:1 | trimming:1) echo on ;;
	*) echo "$2" ;;
	esac
}

# json KEY VALUE: how JSON output shows it.
json() {
	case "$1:$2" in
	spraying:0) echo '"none"' ;;
	spraying:1) echo '"default"' ;;
	qp-groups:0 | trimming:0) echo false ;;
	qp-groups:1 | trimming:1) echo true ;;
	*) echo "$2" ;;
	esac
}

# json_parse TEXT: the members of a one-object JSON text without nesting
# or commas in strings (what mrc -j prints) into associative array JSON.
declare -A JSON=()
json_parse() {
	local s=$1 m k members=()

	JSON=()
	s=${s//[$' \n\t{}']/}
	IFS=',' read -r -a members <<<"$s"
	for m in "${members[@]}"; do
		k=${m%%:*}
		k=${k//\"/}
		JSON[$k]=${m#*:}
	done
}

# The configuration as the last set_rejected left it: the next one need
# not read it again.  Anything else that changes it clears this.
cfg_cache=

# set_ok DESCRIPTION KEY VALUE...: a set that must succeed.
set_ok() {
	local desc=$1

	shift
	cfg_cache=
	mrc_run_capture config set "$@"
	chk_eq "$desc: exit status" "$MRC_RC" 0 || mrc_log "#   stderr: $MRC_ERR"
}

# set_rejected DESCRIPTION MESSAGE KEY VALUE...: a set the kernel refuses
# with MESSAGE; the whole configuration must be as it was.
set_rejected() {
	local desc=$1 msg=$2 before after rest

	shift 2
	before=${cfg_cache:-$(mrc_config_snapshot)}
	mrc_run_capture config set "$@"
	after=$(mrc_config_snapshot)
	cfg_cache=$after
	chk_eq "$desc: exit status" "$MRC_RC" 2
	# The message verbatim, once.
	rest=${MRC_ERR/"$msg"/}
	if [[ $MRC_ERR == *"$msg"* && $rest != *"$msg"* ]]; then
		mrc_pass "$desc: kernel message '$msg'"
	else
		mrc_fail "$desc: kernel message" "want: $msg" "stderr: $MRC_ERR"
	fi
	chk_same "$desc: configuration unchanged" "$after" "$before"
}

# --- defaults -------------------------------------------------------------

mrc_log "# defaults"
out=$(mrc_config_snapshot)
for p in "${PARAMS[@]}"; do
	IFS='|' read -r key min max def val msg <<<"$p"
	chk_eq "default $key" "$(mrc_kv_get "$key" <<<"$out")" "$(plain "$key" "$def")"
done
chk_eq "default bdp-bytes" "$(mrc_kv_get bdp-bytes <<<"$out")" 300000
chk_eq "default active-set" "$(mrc_kv_get active-set <<<"$out")" 72
IFS=$'\n' read -r -d '' -a lines <<<"$out"
chk_eq "config show: number of lines" "${#lines[@]}" 17

jout=$(mrc_exec -j config show)
chk_eq "mrc -j config show: exit status" "$?" 0
if [[ $jout =~ ^\{[^{}]*\}$ ]]; then
	mrc_pass "mrc -j config show: one flat object"
else
	mrc_fail "mrc -j config show: not one flat object" "$jout"
fi
json_parse "$jout"
chk_eq "JSON: number of members" "${#JSON[@]}" 17
for ((i = 0; i < ${#PARAMS[@]}; i++)); do
	IFS='|' read -r key min max def val msg <<<"${PARAMS[i]}"
	chk_eq "JSON default ${JSON_KEYS[i]}" "${JSON[${JSON_KEYS[i]}]:-<absent>}" \
		"$(json "$key" "$def")"
done
chk_eq "JSON default bdp_bytes" "${JSON[bdp_bytes]:-<absent>}" 300000
chk_eq "JSON default active_ev_set" "${JSON[active_ev_set]:-<absent>}" 72

# --- every key set, read back, and set back --------------------------------

mrc_log "# set and read back"
for p in "${PARAMS[@]}"; do
	IFS='|' read -r key min max def val msg <<<"$p"
	set_ok "set $key $val" "$key" "$val"
	chk_eq "read back $key" "$(mrc_cfg "$key")" "$val"
done
json_parse "$(mrc_exec -j config show)"
chk_eq "JSON spraying none" "${JSON[packet_spraying_type]}" '"none"'
chk_eq "JSON qp-groups on" "${JSON[qp_groups_enabled]}" true
chk_eq "JSON trimming off" "${JSON[trimming_enabled]}" false
chk_eq "JSON mss 1500" "${JSON[mss]}" 1500
chk_eq "JSON max-msg-size 1048576" "${JSON[max_msg_size]}" 1048576
chk_eq "JSON retry-limit 3" "${JSON[retry_limit]}" 3

# max-msg-size takes K, M and G (powers of 1024); config show gives bytes.
set_ok "set max-msg-size 64K" max-msg-size 64K
chk_eq "read back max-msg-size" "$(mrc_cfg max-msg-size)" 65536
set_ok "set max-msg-size 1G (its max)" max-msg-size 1G
chk_eq "read back max-msg-size" "$(mrc_cfg max-msg-size)" 1073741824

# All back to the defaults in one request.
args=()
for p in "${PARAMS[@]}"; do
	IFS='|' read -r key min max def val msg <<<"$p"
	args+=("$key" "$def")
done
set_ok "every key back to its default in one request" "${args[@]}"
for p in "${PARAMS[@]}"; do
	IFS='|' read -r key min max def val msg <<<"$p"
	chk_eq "default again: $key" "$(mrc_cfg "$key")" "$(plain "$key" "$def")"
done

# --- bounds ---------------------------------------------------------------

mrc_log "# each key at its min and max"
for p in "${PARAMS[@]}"; do
	IFS='|' read -r key min max def val msg <<<"$p"
	set_ok "set $key $min (min)" "$key" "$min"
	chk_eq "read back $key" "$(mrc_cfg "$key")" "$(plain "$key" "$min")"
	if [ "$key" = starting-port-offset ]; then
		# 65535 leaves room for one entropy value: 2^0.
		set_ok "set $key $max (max) with entropy-mask-bits 0" \
			entropy-mask-bits 0 "$key" "$max"
		chk_eq "read back entropy-mask-bits" \
			"$(mrc_cfg entropy-mask-bits)" 0
	else
		set_ok "set $key $max (max)" "$key" "$max"
	fi
	chk_eq "read back $key" "$(mrc_cfg "$key")" "$(plain "$key" "$max")"
	if [ "$key" = starting-port-offset ]; then
		set_ok "back to defaults" "$key" "$def" entropy-mask-bits 7
	else
		set_ok "set $key back to $def" "$key" "$def"
	fi
done

# --- out of range ---------------------------------------------------------

mrc_log "# out of range: refused by the kernel's policy, its range named by mrc, nothing changed"
for p in "${PARAMS[@]}"; do
	IFS='|' read -r key min max def val msg <<<"$p"
	if [ "$min" -gt 0 ]; then
		set_rejected "$key $((min - 1)) (min - 1)" "$msg" "$key" "$((min - 1))"
	fi
	set_rejected "$key $((max + 1)) (max + 1)" "$msg" "$key" "$((max + 1))"
done
set_rejected "rto 4294967295" \
	"RetransmissionTimeout (rto) must be in 100..10000000" rto 4294967295
set_rejected "max-msg-size 2G" \
	"MaxMessageSize (max-msg-size) must be in 1..1073741824" max-msg-size 2G
set_rejected "retry-limit 4294967295" \
	"RetryLimit (retry-limit) must be in 1..255" retry-limit 4294967295

# --- the port rule --------------------------------------------------------

mrc_log "# StartingPortOffset + 2^EntropyMaskBits - 1 <= 65535"
set_rejected "starting-port-offset 65409 with entropy-mask-bits 7" \
	"$PORT_RULE_MSG" starting-port-offset 65409
set_ok "starting-port-offset 65408 with entropy-mask-bits 7" \
	starting-port-offset 65408
chk_eq "read back starting-port-offset" "$(mrc_cfg starting-port-offset)" 65408
set_rejected "entropy-mask-bits 8 at starting-port-offset 65408" \
	"$PORT_RULE_MSG" entropy-mask-bits 8
chk_eq "entropy-mask-bits still" "$(mrc_cfg entropy-mask-bits)" 7
set_ok "entropy-mask-bits 6 starting-port-offset 65472 together" \
	entropy-mask-bits 6 starting-port-offset 65472
chk_eq "read back entropy-mask-bits" "$(mrc_cfg entropy-mask-bits)" 6
chk_eq "read back starting-port-offset" "$(mrc_cfg starting-port-offset)" 65472
set_ok "back to defaults" entropy-mask-bits 7 starting-port-offset 256

# --- atomic requests ------------------------------------------------------

mrc_log "# a request is applied whole or not at all"
set_rejected "entropy-mask-bits 8 + starting-port-offset 65408 (each valid alone)" \
	"$PORT_RULE_MSG" entropy-mask-bits 8 starting-port-offset 65408
set_rejected "starting-port-offset 65408 + entropy-mask-bits 8 (other order)" \
	"$PORT_RULE_MSG" starting-port-offset 65408 entropy-mask-bits 8
set_rejected "mss 1000 + rto 99" \
	"RetransmissionTimeout (rto) must be in 100..10000000" mss 1000 rto 99
set_rejected "rto 99 + mss 1000" \
	"RetransmissionTimeout (rto) must be in 100..10000000" rto 99 mss 1000
set_rejected "mss 1000 + entropy-mask-bits 9 + rto 5000" \
	"EntropyMaskBits (entropy-mask-bits) must be in 0..8" \
	mss 1000 entropy-mask-bits 9 rto 5000
set_rejected "max-msg-size 4096 + retry-limit 0" \
	"RetryLimit (retry-limit) must be in 1..255" \
	max-msg-size 4096 retry-limit 0
set_rejected "retry-limit 3 + max-msg-size 0" \
	"MaxMessageSize (max-msg-size) must be in 1..1073741824" \
	retry-limit 3 max-msg-size 0
set_rejected "valid keys + starting-port-offset 65500 (rule)" \
	"$PORT_RULE_MSG" mss 1000 probe-period 10 starting-port-offset 65500
chk_eq "mss still the default" "$(mrc_cfg mss)" 4096

# --- derived values -------------------------------------------------------

mrc_log "# bdp-bytes = link-rate x base-rtt / 8; active-set from it"
# derived DESC EXPECTED_BDP EXPECTED_ACTIVE KEY VALUE...
derived() {
	local desc=$1 bdp=$2 act=$3 out

	shift 3
	set_ok "$desc" "$@"
	out=$(mrc_config_snapshot)
	chk_eq "$desc: bdp-bytes" "$(mrc_kv_get bdp-bytes <<<"$out")" "$bdp"
	chk_eq "$desc: active-set" "$(mrc_kv_get active-set <<<"$out")" "$act"
}
derived "active-ev-set-size 200 (capped at 2^7)" 300000 128 \
	active-ev-set-size 200
derived "active-ev-set-size 1" 300000 1 active-ev-set-size 1
derived "active-ev-set-size 65536 entropy-mask-bits 8" 300000 256 \
	active-ev-set-size 65536 entropy-mask-bits 8
derived "active-ev-set-size 0 entropy-mask-bits 3 (72 capped at 8)" \
	300000 8 active-ev-set-size 0 entropy-mask-bits 3
derived "entropy-mask-bits 0" 300000 1 entropy-mask-bits 0
derived "entropy-mask-bits 7: BDP / (4096 + 60)" 300000 72 entropy-mask-bits 7
derived "link-rate 1000 base-rtt 1: BDP 125 < MSS + 60" 125 1 \
	link-rate 1000 base-rtt 1
derived "link-rate 1 base-rtt 1 mss 64: BDP 0" 0 1 link-rate 1 mss 64
derived "mss 1436 link-rate 400000 base-rtt 6: 300000 / 1496 = 200, cap 100" \
	300000 100 mss 1436 link-rate 400000 base-rtt 6
derived "mss 2940: 300000 / 3000 = 100" 300000 100 mss 2940
derived "mss 2941: 300000 / 3001 = 99" 300000 99 mss 2941
derived "link-rate 10000000 base-rtt 1000000: BDP over 32 bits" \
	1250000000000 100 link-rate 10000000 base-rtt 1000000
set_ok "back to defaults" link-rate 400000 base-rtt 6 mss 4096
chk_eq "active-set at the defaults" "$(mrc_cfg active-set)" 72

# --- the CLI's own checks -------------------------------------------------

mrc_log "# command line errors (exit 1), nothing sent"
before=$(mrc_config_snapshot)
for args in "mss" "mss abc" "mss -1" "mss 4294967296" "no-such-key 1" \
	    "bdp-bytes 5" "active-set 5" "mss 1000 mss 2000" \
	    "max-msg-size 4G" "max-msg-size 64MB" "retry-limit 3K"; do
	# shellcheck disable=SC2086
	mrc_run_capture config set $args
	chk_eq "config set $args: exit status" "$MRC_RC" 1
done
chk_same "configuration after command line errors" \
	"$(mrc_config_snapshot)" "$before"

# --- permissions ----------------------------------------------------------

mrc_log "# permissions"
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)

# nobody_cli: copy the CLI, for nobody to run, into a directory of its own
# under /tmp: the tree may be where nobody cannot go (a clone under /root).
# The copy is $nobody_mrc.
nobody_cli() {
	local d

	d=$(mktemp -d /tmp/mrc-nobody.XXXXXX) || return 1
	mrc_at_exit "rm -rf '$d'"
	cp "$MRC" "$d/mrc" && chmod 755 "$d" "$d/mrc" &&
		"${NOBODY[@]}" test -x "$d/mrc" || return 1
	nobody_mrc=$d/mrc
}

if ! mrc_have_cmd setpriv unshare; then
	mrc_skip_fixable "unprivileged user" "$MRC_MISSING"
elif ! nobody_cli; then
	mrc_skip_fixable "unprivileged user" \
		"nobody cannot run a copy of $MRC made under /tmp"
else
	mrc_run_capture config show
	root_show=$MRC_OUT
	out=$("${NOBODY[@]}" "$nobody_mrc" config show 2>&1)
	chk_eq "nobody: config show exit status" "$?" 0
	chk_same "nobody: config show output" "$out" "$root_show"
	"${NOBODY[@]}" "$nobody_mrc" stats >/dev/null 2>&1
	chk_eq "nobody: stats exit status" "$?" 0
	t=$(mrc_tmp)
	"${NOBODY[@]}" "$nobody_mrc" config set mss 1000 >/dev/null 2>"$t/err"
	chk_eq "nobody: config set exit status" "$?" 2
	err=$(<"$t/err")
	if [[ $err == *"Operation not permitted"* ]]; then
		mrc_pass "nobody: config set fails with EPERM"
	else
		mrc_fail "nobody: config set error" "stderr: $err"
	fi
	chk_eq "nobody: mss unchanged" "$(mrc_cfg mss)" 4096

	# CAP_NET_ADMIN over the netns's user namespace is what counts: a
	# user namespace of nobody's own gives it nothing over this netns,
	# but all it needs over a netns made in that user namespace.
	if ! uerr=$("${NOBODY[@]}" unshare -Ur true 2>&1); then
		# The kernel refuses CLONE_NEWUSER to a chrooted process, as
		# everything run-vm runs is (virtme-ng's guests are not).
		if [ "$(stat -Lc %d:%i /)" != "$(stat -Lc %d:%i /proc/1/root/ 2>/dev/null)" ]; then
			uerr="running in a chroot, where the kernel refuses new user namespaces ($uerr)"
		fi
		mrc_skip_check "user namespaces" "cannot make one here: $uerr"
	else
		"${NOBODY[@]}" unshare -Ur "$nobody_mrc" config set mss 1000 \
			>/dev/null 2>"$t/err"
		chk_eq "nobody as root of its own userns, this netns: config set exit status" \
			"$?" 2
		err=$(<"$t/err")
		if [[ $err == *"Operation not permitted"* ]]; then
			mrc_pass "own userns, netns of init_user_ns: EPERM"
		else
			mrc_fail "own userns, netns of init_user_ns: error" \
				"stderr: $err"
		fi
		chk_eq "this netns: mss unchanged" "$(mrc_cfg mss)" 4096

		out=$("${NOBODY[@]}" unshare -Urn sh -c \
			'"$1" config set mss 1000 entropy-mask-bits 2 &&
			 "$1" config show && "$1" stats' sh "$nobody_mrc" 2>&1)
		chk_eq "nobody in its own userns + netns: config set exit status" \
			"$?" 0 || mrc_log "#   $out"
		chk_eq "own userns + netns: mss" "$(mrc_kv_get mss <<<"$out")" 1000
		chk_eq "own userns + netns: entropy-mask-bits" \
			"$(mrc_kv_get entropy-mask-bits <<<"$out")" 2
		chk_eq "own userns + netns: rx_packets" \
			"$(mrc_kv_get rx_packets <<<"$out")" 0
		chk_eq "this netns: mss still" "$(mrc_cfg mss)" 4096
		out=$("${NOBODY[@]}" unshare -Urn sh -c \
			'"$1" config set mss 63' sh "$nobody_mrc" 2>&1)
		chk_eq "own userns + netns: ranges still checked" "$?" 2
	fi
fi

mrc_dmesg_check "kernel log of the config test"
mrc_exit
