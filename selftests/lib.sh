#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the mrc selftests.  Source it from a test:
#
#	. "$(dirname "$0")/lib.sh"
#
# Each test prints one TAP-ish line per check ("ok N - ..." / "not ok N -
# ..."; the kselftest runner prefixes them with "# ") and ends with
# mrc_exit, which exits 0 if every check passed, 1 if one failed, and
# $ksft_skip (4) if the test as a whole could not run.
#
# The tests need nothing but the host's root filesystem: they load mrc.ko
# from the tree this file is in (../mrc.ko), run the CLI from
# ../tools/mrc/mrc (override with MRC=/path/to/mrc) and write only under
# /tmp.  Every network namespace a test makes is named mrc-XXXXXXXX and is
# deleted when the test exits, however it exits.

ksft_skip=4

MRC_SELFTEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
MRC_TREE=$(cd "$MRC_SELFTEST_DIR/.." && pwd -P)
MRC_KO=${MRC_KO:-$MRC_TREE/mrc.ko}
MRC=${MRC:-$MRC_TREE/tools/mrc/mrc}
MRC_INJECT=${MRC_INJECT:-$MRC_SELFTEST_DIR/mrc_inject}
MRC_TEST=$(basename "$0")

mrc_nr_checks=0
mrc_nr_failed=0
mrc_nr_skipped=0
mrc_netns_list=()
mrc_cleanup_cmds=()
# Netns whose configuration and counters mrc_dump shows ("" = this one).
MRC_DUMP_NS=${MRC_DUMP_NS:-}
mrc_tmpdir=

# --- reporting ------------------------------------------------------------

mrc_log() {
	echo "$*"
}

# mrc_pass DESCRIPTION
mrc_pass() {
	mrc_nr_checks=$((mrc_nr_checks + 1))
	echo "ok $mrc_nr_checks - $*"
}

# mrc_fail DESCRIPTION [DETAIL...]: a failed check; shows the state of mrc.
mrc_fail() {
	local desc=$1

	shift
	mrc_nr_checks=$((mrc_nr_checks + 1))
	mrc_nr_failed=$((mrc_nr_failed + 1))
	echo "not ok $mrc_nr_checks - $desc"
	local d
	for d in "$@"; do
		echo "#   $d"
	done
	# The state after the first few failures; more would only slow a
	# badly broken run down.
	if [ "$mrc_nr_failed" -le 5 ]; then
		mrc_dump
	elif [ "$mrc_nr_failed" -eq 6 ]; then
		echo "#   (no more state dumps)"
	fi
}

# mrc_skip_check DESCRIPTION REASON: a check that cannot be made here.
mrc_skip_check() {
	mrc_nr_checks=$((mrc_nr_checks + 1))
	mrc_nr_skipped=$((mrc_nr_skipped + 1))
	echo "ok $mrc_nr_checks - $1 # SKIP $2"
}

# mrc_skip_test REASON: the whole test cannot run here.
mrc_skip_test() {
	echo "SKIP: $MRC_TEST: $*"
	exit "$ksft_skip"
}

# mrc_die MESSAGE: the test cannot go on (a broken setup, not a skip).
mrc_die() {
	mrc_nr_checks=$((mrc_nr_checks + 1))
	mrc_nr_failed=$((mrc_nr_failed + 1))
	echo "not ok $mrc_nr_checks - $MRC_TEST: $*"
	mrc_exit
}

# mrc_exit: end the test with the kselftest status of its checks.
mrc_exit() {
	echo "1..$mrc_nr_checks"
	echo "$MRC_TEST: $mrc_nr_checks checks, $mrc_nr_failed failed," \
		"$mrc_nr_skipped skipped"
	if [ "$mrc_nr_failed" -gt 0 ]; then
		exit 1
	fi
	exit 0
}

# chk_eq NAME GOT WANT
chk_eq() {
	if [ "$2" = "$3" ]; then
		mrc_pass "$1: $2"
	else
		mrc_fail "$1: got '$2', want '$3'"
		return 1
	fi
}

# chk_same NAME GOT WANT: like chk_eq for multi-line values (shows a diff).
chk_same() {
	if [ "$2" = "$3" ]; then
		mrc_pass "$1"
	else
		local IFS=$'\n'

		# shellcheck disable=SC2046
		mrc_fail "$1: differs" \
			$(diff <(echo "$3") <(echo "$2") | grep '^[<>]' |
			  sed -e 's/^</want:/' -e 's/^>/got: /')
		return 1
	fi
}

# chk_ne NAME GOT UNWANTED
chk_ne() {
	if [ "$2" != "$3" ]; then
		mrc_pass "$1: $2 (not $3)"
	else
		mrc_fail "$1: got '$2', want anything else"
		return 1
	fi
}

# mrc_dump: the configuration and counters of $MRC_DUMP_NS, after a failure.
mrc_dump() {
	local nsarg=()

	[ -n "$MRC_DUMP_NS" ] && nsarg=(-n "$MRC_DUMP_NS")
	[ -d /sys/module/mrc ] || {
		echo "#   (mrc is not loaded)"
		return 0
	}
	echo "#   --- mrc state${MRC_DUMP_NS:+ in netns $MRC_DUMP_NS} ---"
	mrc_exec "${nsarg[@]}" config show 2>&1 | sed 's/^/#   config: /'
	mrc_exec "${nsarg[@]}" stats 2>&1 | sed 's/^/#   stats:  /'
}

# --- environment ----------------------------------------------------------

# mrc_require_root: skip the test unless it runs as root.
mrc_require_root() {
	[ "$(id -u)" = 0 ] || mrc_skip_test "needs root"
}

# mrc_require_cmd CMD...: skip the test unless every CMD is available.
mrc_require_cmd() {
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			mrc_skip_test "'$c' is not installed"
	done
}

# mrc_require_cli: the CLI must have been built on the host.
mrc_require_cli() {
	[ -x "$MRC" ] ||
		mrc_die "no CLI at $MRC (build it first: make -C tools/mrc)"
}

# mrc_require_inject: the packet injector must have been built.
mrc_require_inject() {
	[ -x "$MRC_INJECT" ] ||
		mrc_die "no injector at $MRC_INJECT (build it first: make -C selftests)"
}

# mrc_tmp: print the test's private directory under /tmp (made when lib.sh
# is sourced, removed on exit; also in $mrc_tmpdir).
mrc_tmp() {
	echo "$mrc_tmpdir"
}

# --- the module -----------------------------------------------------------

mrc_loaded() {
	[ -d /sys/module/mrc ]
}

# mrc_insmod: insmod mrc.ko from the tree, after the modules it needs
# (insmod, unlike modprobe, does not load them: udp_tunnel and
# ip6_udp_tunnel, as modinfo lists them).  Not in a $(...): it caches the
# list.  Returns insmod's status, its messages in $MRC_INSMOD_ERR.
mrc_insmod() {
	local d

	if [ -z "${MRC_KO_DEPS+set}" ]; then
		MRC_KO_DEPS=$(modinfo -F depends "$MRC_KO" 2>/dev/null)
	fi
	for d in ${MRC_KO_DEPS//,/ }; do
		if [ ! -d "/sys/module/$d" ] &&
		   ! MRC_INSMOD_ERR=$(modprobe "$d" 2>&1); then
			MRC_INSMOD_ERR="modprobe $d: $MRC_INSMOD_ERR"
			return 1
		fi
	done
	MRC_INSMOD_ERR=$(insmod "$MRC_KO" 2>&1)
}

# mrc_load: load mrc.ko from the tree unless mrc is already loaded.
mrc_load() {
	mrc_loaded && return 0
	[ -f "$MRC_KO" ] ||
		mrc_die "$MRC_KO is missing (build the module first: make module)"
	mrc_insmod || mrc_die "insmod $MRC_KO failed: $MRC_INSMOD_ERR"
	mrc_loaded || mrc_die "insmod succeeded but /sys/module/mrc is absent"
}

# mrc_unload: remove the module; fails the test if it cannot.
mrc_unload() {
	mrc_loaded || return 0
	local out

	out=$(rmmod mrc 2>&1) || mrc_die "rmmod mrc failed: $out"
}

# --- network namespaces ---------------------------------------------------

# mrc_netns_add: make a namespace, print its name; deleted on exit.
# Callers must not use it in a $(...) subshell for the bookkeeping to
# work, so it stores the name in $MRC_NS instead of printing it.
mrc_netns_add() {
	local name i

	for i in 1 2 3 4 5 6 7 8; do
		name=mrc-$(printf '%04x%04x' $RANDOM $RANDOM)
		[ -e "/run/netns/$name" ] && continue
		if ip netns add "$name" 2>/dev/null; then
			mrc_netns_list+=("$name")
			MRC_NS=$name
			return 0
		fi
	done
	mrc_die "cannot create a network namespace"
}

# mrc_netns_del NAME
mrc_netns_del() {
	local n keep=()

	ip netns del "$1" 2>/dev/null
	for n in "${mrc_netns_list[@]}"; do
		[ "$n" = "$1" ] || keep+=("$n")
	done
	mrc_netns_list=("${keep[@]}")
}

# mrc_run_in_netns ARGS...: run the rest of this test in a netns of its
# own, where mrc starts from its defaults and zeroed counters and whatever
# the test changes goes away with the netns.  The calling process makes the
# netns, runs the script again inside it (with ARGS) and exits with its
# status; in the second run this returns at once, $MRC_NS naming the netns.
mrc_run_in_netns() {
	if [ -n "${MRC_IN_NETNS:-}" ]; then
		MRC_NS=$MRC_IN_NETNS
		return 0
	fi
	mrc_netns_add
	MRC_IN_NETNS=$MRC_NS ip netns exec "$MRC_NS" "$BASH" "$0" "$@"
	exit $?
}

# mrc_at_exit CMD: run the shell command CMD when the test exits.
mrc_at_exit() {
	mrc_cleanup_cmds+=("$1")
}

mrc_cleanup() {
	local n i

	for ((i = ${#mrc_cleanup_cmds[@]} - 1; i >= 0; i--)); do
		eval "${mrc_cleanup_cmds[i]}" >/dev/null 2>&1 || :
	done
	for n in "${mrc_netns_list[@]}"; do
		ip netns del "$n" 2>/dev/null || :
	done
	[ -n "$mrc_tmpdir" ] && rm -rf "$mrc_tmpdir"
}

trap mrc_cleanup EXIT
trap 'echo "$MRC_TEST: interrupted"; exit 1' INT TERM HUP

mrc_tmpdir=$(mktemp -d /tmp/mrc-selftest.XXXXXX) || {
	echo "$MRC_TEST: cannot make a directory under /tmp"
	exit 1
}

# --- the CLI --------------------------------------------------------------
#
# Under TCG every process costs a good fraction of a second: these helpers
# run as few as they can and parse with shell builtins only.

# mrc_exec [-n NS] ARGS...: run the CLI, in netns NS if given.
mrc_exec() {
	if [ "${1:-}" = -n ]; then
		local ns=$2

		shift 2
		ip netns exec "$ns" "$MRC" "$@"
	else
		"$MRC" "$@"
	fi
}

# mrc_kv_get KEY: the value of KEY in "key value" lines on stdin.
mrc_kv_get() {
	local k v

	while read -r k v; do
		if [ "$k" = "$1" ]; then
			echo "$v"
			return 0
		fi
	done
	echo "<absent>"
}

# mrc_cfg [-n NS] KEY: a configuration value as "config show" prints it.
mrc_cfg() {
	local nsarg=() out rc

	if [ "${1:-}" = -n ]; then
		nsarg=(-n "$2")
		shift 2
	fi
	out=$(mrc_exec "${nsarg[@]}" config show 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "<mrc exit $rc: $out>"
		return 0
	fi
	mrc_kv_get "$1" <<<"$out"
}

# mrc_stat [-n NS] NAME: one counter as "stats" prints it.
mrc_stat() {
	local nsarg=() out rc

	if [ "${1:-}" = -n ]; then
		nsarg=(-n "$2")
		shift 2
	fi
	out=$(mrc_exec "${nsarg[@]}" stats 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "<mrc exit $rc: $out>"
		return 0
	fi
	mrc_kv_get "$1" <<<"$out"
}

# mrc_stats_snapshot [-n NS] ARRAY: store every counter in associative
# array ARRAY (declared by the caller with declare -A).
mrc_stats_snapshot() {
	local nsarg=() out k v

	if [ "${1:-}" = -n ]; then
		nsarg=(-n "$2")
		shift 2
	fi
	local -n snap=$1
	snap=()
	out=$(mrc_exec "${nsarg[@]}" stats 2>&1) || {
		snap[error]=$out
		return 1
	}
	while read -r k v; do
		[ -n "$k" ] && snap[$k]=$v
	done <<<"$out"
	return 0
}

# mrc_config_snapshot [-n NS]: the whole "config show" output, for
# comparing before and after.
mrc_config_snapshot() {
	mrc_exec "$@" config show 2>&1
}

# mrc_run_capture [-n NS] ARGS...: run the CLI with stdout, stderr and
# the exit status left in $MRC_OUT, $MRC_ERR and $MRC_RC.
mrc_run_capture() {
	mrc_exec "$@" >"$mrc_tmpdir/out" 2>"$mrc_tmpdir/err"
	MRC_RC=$?
	IFS= read -r -d '' MRC_OUT <"$mrc_tmpdir/out"
	IFS= read -r -d '' MRC_ERR <"$mrc_tmpdir/err"
	MRC_OUT=${MRC_OUT%$'\n'}
	MRC_ERR=${MRC_ERR%$'\n'}
	return 0
}

# --- sockets --------------------------------------------------------------

# mrc_parse_ss: from "ss -nlu" output on stdin, set MRC_L4 / MRC_L6 (how
# many UDP sockets listen on port 4791 per family) and MRC_A4 / MRC_A6
# (their local addresses).  An IPv4 address is dotted; anything else
# ([::], or the * ss shows for a wildcard IPv6 socket when it cannot tell
# v6only) is IPv6.
mrc_parse_ss() {
	local state rq sq local rest

	MRC_L4=0 MRC_L6=0 MRC_A4= MRC_A6=
	while read -r state rq sq local rest; do
		case "$local" in
		*:4791) ;;
		*) continue ;;
		esac
		if [[ $local =~ ^[0-9.]+:4791$ ]]; then
			MRC_L4=$((MRC_L4 + 1))
			MRC_A4+=${MRC_A4:+ }$local
		else
			MRC_L6=$((MRC_L6 + 1))
			MRC_A6+=${MRC_A6:+ }$local
		fi
	done
}

# mrc_listeners [-n NS]: mrc_parse_ss for this netns or NS.
mrc_listeners() {
	if [ "${1:-}" = -n ]; then
		ip netns exec "$2" ss -n -l -u >"$mrc_tmpdir/ss" 2>&1
	else
		ss -n -l -u >"$mrc_tmpdir/ss" 2>&1
	fi
	mrc_parse_ss <"$mrc_tmpdir/ss"
}

# mrc_state [-n NS]: all of mrc's state in this netns or NS in one go:
# config show into associative array MRC_CFG (and its exit status into
# MRC_CFG_RC), stats into MRC_STATS (MRC_STATS_RC), listeners as
# mrc_listeners.
declare -A MRC_CFG=() MRC_STATS=()
mrc_state() {
	local pre=() sect= k v

	[ "${1:-}" = -n ] && pre=(ip netns exec "$2")
	# shellcheck disable=SC2016
	"${pre[@]}" /bin/sh -c '
		"$1" config show 2>&1; echo "== config $?"
		"$1" stats 2>&1; echo "== stats $?"
		ss -n -l -u 2>&1' sh "$MRC" >"$mrc_tmpdir/state"
	MRC_CFG=() MRC_STATS=() MRC_CFG_RC= MRC_STATS_RC=
	: >"$mrc_tmpdir/ss"
	while read -r k v; do
		case "$sect:$k" in
		:==) MRC_CFG_RC=${v#config }; sect=stats; continue ;;
		stats:==) MRC_STATS_RC=${v#stats }; sect=ss; continue ;;
		ss:*) echo "$k $v" >>"$mrc_tmpdir/ss" ;;
		stats:*) MRC_STATS[$k]=$v ;;
		*) MRC_CFG[$k]=$v ;;
		esac
	done <"$mrc_tmpdir/state"
	mrc_parse_ss <"$mrc_tmpdir/ss"
}

# --- the kernel log -------------------------------------------------------

# Kernel messages that mean a bug somewhere, whatever the test.
MRC_DMESG_BAD='WARNING:|BUG:|BUG |Oops|Call Trace|general protection|KASAN|UBSAN|kmemleak|refcount_t|list_add corruption|list_del corruption|possible recursive locking|circular locking|suspicious RCU usage|sleeping function called|INFO: task|rcu.*stall|Kernel panic'

# mrc_dmesg_mark: remember where the kernel log is now.
mrc_dmesg_mark() {
	local t

	t=$(mrc_tmp)
	dmesg >"$t/dmesg.mark" 2>/dev/null
	MRC_DMESG_LINES=$(wc -l <"$t/dmesg.mark")
}

# mrc_dmesg_new: the kernel log lines since mrc_dmesg_mark.
mrc_dmesg_new() {
	local t now

	t=$(mrc_tmp)
	dmesg >"$t/dmesg.now" 2>/dev/null
	now=$(wc -l <"$t/dmesg.now")
	if [ "$now" -ge "$MRC_DMESG_LINES" ] &&
	   head -n "$MRC_DMESG_LINES" "$t/dmesg.now" | cmp -s - "$t/dmesg.mark"; then
		tail -n "+$((MRC_DMESG_LINES + 1))" "$t/dmesg.now"
	else
		# The ring buffer wrapped: whatever was not there before.
		grep -vxF -f "$t/dmesg.mark" "$t/dmesg.now"
	fi
}

# mrc_dmesg_check DESCRIPTION: no warning, BUG or the like since the mark.
mrc_dmesg_check() {
	local bad

	bad=$(mrc_dmesg_new | grep -E "$MRC_DMESG_BAD")
	if [ -z "$bad" ]; then
		mrc_pass "$1: no kernel warnings"
	else
		mrc_fail "$1: kernel warnings" "$bad"
	fi
}
