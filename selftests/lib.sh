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
#
# The commands a test runs beyond the Essential packages' are listed, with
# their Debian packages, in required-commands, which tools/deps.sh
# installs.  MRC_CHECK=1 (make check sets it, having run tools/deps.sh and
# built everything) makes a test fail, not skip, for want of something the
# project provides: a listed command (mrc_require_cmd, mrc_have_cmd) or
# what mrc_skip_fixable names.

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

# mrc_skip_fixable DESCRIPTION REASON: a check that cannot be made for
# want of something the project provides (a command tools/deps.sh
# installs, a program make builds): skipped, but failed under make check.
mrc_skip_fixable() {
	if [ "${MRC_CHECK:-0}" = 1 ]; then
		mrc_fail "$1" "$2 (under make check, MRC_CHECK=1, a failure)"
	else
		mrc_skip_check "$1" "$2"
	fi
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
		"$mrc_nr_skipped skipped, in $SECONDS s"
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

# mrc_have_cmd CMD...: true if every CMD is available; if one is not,
# false with the reason in $MRC_MISSING.  Each CMD must be listed in
# required-commands (the test dies if one is not), so that tools/deps.sh
# installs it.
mrc_have_cmd() {
	local c cmd pkg rest

	for c in "$@"; do
		pkg=
		while read -r cmd pkg rest; do
			[ "$cmd" = "$c" ] && break
			pkg=
		done <"$MRC_SELFTEST_DIR/required-commands"
		[ -n "$pkg" ] || mrc_die "'$c' is not in" \
			"$MRC_SELFTEST_DIR/required-commands: list it there," \
			"with its Debian package"
		if ! command -v "$c" >/dev/null 2>&1; then
			MRC_MISSING="'$c' is not installed (Debian package $pkg; tools/deps.sh installs it)"
			return 1
		fi
	done
	return 0
}

# mrc_require_cmd CMD...: skip the test unless every CMD is available
# (fail it under make check: tools/deps.sh has installed them all).
mrc_require_cmd() {
	mrc_have_cmd "$@" && return 0
	if [ "${MRC_CHECK:-0}" = 1 ]; then
		mrc_die "$MRC_MISSING (under make check, MRC_CHECK=1, a failure)"
	fi
	mrc_skip_test "$MRC_MISSING"
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

# --- helpers of the transport tests ---------------------------------------

MRCPERF=${MRCPERF:-$MRC_TREE/tools/mrcperf/mrcperf}
MRC_SOCKAPI=${MRC_SOCKAPI:-$MRC_SELFTEST_DIR/mrc_sockapi}

# mrc_require_mrcperf: the benchmark tool must have been built.
mrc_require_mrcperf() {
	[ -x "$MRCPERF" ] ||
		mrc_die "no mrcperf at $MRCPERF (build it first: make tools)"
}

# mrc_require_sockapi: mrc_sockapi (its --hold and --wait-bound modes).
mrc_require_sockapi() {
	[ -x "$MRC_SOCKAPI" ] ||
		mrc_die "no $MRC_SOCKAPI (build it first: make -C selftests)"
}

# mrc_modprobe MODULE...: load modules the test needs; the VM's kernel
# cannot autoload them.  A module that will not load may be built in
# (a debug kernel without modules.builtin): whatever needs it says so.
mrc_modprobe() {
	local m

	for m in "$@"; do
		[ -d "/sys/module/$m" ] || modprobe -q "$m" 2>/dev/null || :
	done
}

# mrc_sleep SECONDS: sleep without starting a process (fractions work).
mrc_sleep() {
	# A subshell may have made the fifo first: its descriptor stayed
	# there.
	if [ -z "${mrc_sleep_fd:-}" ]; then
		{ [ -p "$mrc_tmpdir/sleep.fifo" ] ||
		  mkfifo "$mrc_tmpdir/sleep.fifo"; } &&
			exec {mrc_sleep_fd}<>"$mrc_tmpdir/sleep.fifo"
	fi
	read -r -t "$1" -u "$mrc_sleep_fd" _ || :
}

# mrc_wait_line FILE PATTERN [TENTHS]: wait up to TENTHS tenths of a
# second (100) until FILE holds a line matching PATTERN (grep -E), as a
# program's "ready"; 1 if it does not in time.
mrc_wait_line() {
	local n=${3:-100}

	while ! grep -qE -- "$2" "$1" 2>/dev/null; do
		n=$((n - 1))
		[ "$n" -ge 0 ] || return 1
		mrc_sleep 0.1
	done
}

# mrc_check_atleast DESC VALUE MIN: the check that VALUE, read back from
# the module, is a number and at least MIN.
mrc_check_atleast() {
	if [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ]; then
		mrc_pass "$1 ($2)"
	else
		mrc_fail "$1: '$2', want at least $3"
	fi
}

# mrc_now_ms: milliseconds since the epoch, from bash itself.
mrc_now_ms() {
	local t=${EPOCHREALTIME/[.,]/}

	echo $((t / 1000))
}

# mrc_wait_pid PID SECONDS: wait up to SECONDS for background job PID to
# end; its status in $MRC_WAIT_RC.  Returns 1, the job left running, if it
# did not end in time.
mrc_wait_pid() {
	local pid=$1 deadline

	deadline=$(($(mrc_now_ms) + ${2%.*} * 1000))
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$(mrc_now_ms)" -ge "$deadline" ]; then
			MRC_WAIT_RC=timeout
			return 1
		fi
		mrc_sleep 0.1
	done
	wait "$pid"
	MRC_WAIT_RC=$?
	return 0
}

# mrc_kill_pid PID: end background job PID (TERM, then KILL) and reap it.
mrc_kill_pid() {
	kill -TERM "$1" 2>/dev/null || return 0
	mrc_wait_pid "$1" 3 || {
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
	}
	return 0
}

# Two namespaces joined by one veth pair (mrc_veth_pair):
#
#   +--------- NS_A ---------+          +--------- NS_B ---------+
#   | mrc-a 10.0.0.1/24      |          | mrc-b 10.0.0.2/24      |
#   |       fd00::1/64       |==========|       fd00::2/64       |
#   |       02:6d:72:63:00:01|   veth   |       02:6d:72:63:00:02|
#   +------------------------+          +------------------------+
#
# MTU 9000 unless told otherwise (a 4096 B MSS + 60 B fits either way; the
# large MTU keeps the emulated machine's per-packet cost down), IPv6 without
# DAD, and permanent neighbour entries: the first packet goes at once.
MRC_VETH_A=mrc-a MRC_VETH_B=mrc-b
MRC_IP4_A=10.0.0.1 MRC_IP4_B=10.0.0.2
MRC_IP6_A=fd00::1 MRC_IP6_B=fd00::2
MRC_MAC_A=02:6d:72:63:00:01 MRC_MAC_B=02:6d:72:63:00:02

# mrc_veth_pair NS_A NS_B [MTU]: the topology above (lo up in both).
# Returns 1, having said why, when it cannot be built.
mrc_veth_pair() {
	local a=$1 b=$2 mtu=${3:-9000} out

	mrc_modprobe veth
	out=$(ip link add "$MRC_VETH_A" netns "$a" address "$MRC_MAC_A" \
		mtu "$mtu" type veth peer name "$MRC_VETH_B" netns "$b" \
		address "$MRC_MAC_B" mtu "$mtu" 2>&1) || {
		echo "# ip link add veth: $out"
		return 1
	}
	out=$(ip -n "$a" -b - 2>&1 <<-EOF
		link set lo up
		addr add $MRC_IP4_A/24 dev $MRC_VETH_A
		addr add $MRC_IP6_A/64 dev $MRC_VETH_A nodad
		link set $MRC_VETH_A up
		neigh replace $MRC_IP4_B lladdr $MRC_MAC_B dev $MRC_VETH_A nud permanent
		neigh replace $MRC_IP6_B lladdr $MRC_MAC_B dev $MRC_VETH_A nud permanent
		EOF
	) || {
		echo "# setting up $a: $out"
		return 1
	}
	out=$(ip -n "$b" -b - 2>&1 <<-EOF
		link set lo up
		addr add $MRC_IP4_B/24 dev $MRC_VETH_B
		addr add $MRC_IP6_B/64 dev $MRC_VETH_B nodad
		link set $MRC_VETH_B up
		neigh replace $MRC_IP4_A lladdr $MRC_MAC_A dev $MRC_VETH_B nud permanent
		neigh replace $MRC_IP6_A lladdr $MRC_MAC_A dev $MRC_VETH_B nud permanent
		EOF
	) || {
		echo "# setting up $b: $out"
		return 1
	}
}

# mrc_client_server: two new namespaces, the client's in $C and the
# server's in $S, joined by mrc_veth_pair (C on its side A); the server's
# state is the one dumped on a failure.  Dies if they cannot be built.
mrc_client_server() {
	mrc_netns_add
	C=$MRC_NS
	mrc_netns_add
	S=$MRC_NS
	mrc_veth_pair "$C" "$S" || mrc_die "cannot build the veth pair"
	MRC_DUMP_NS=$S
}

# mrc_forged_prefix PREFIX: make PREFIX (IPv4 or IPv6) local in the
# client's namespace, so that mrc_inject -A may send from any address of
# it, and route it there from the server's: forged sources whose answers
# come back to the client's namespace.  Dies if it cannot.
mrc_forged_prefix() {
	local fam=-4 via=$MRC_IP4_A

	[[ $1 == *:* ]] && fam=-6 via=$MRC_IP6_A
	ip -n "$C" "$fam" route add local "$1" dev lo ||
		mrc_die "cannot make $1 local in $C"
	ip -n "$S" "$fam" route add "$1" via "$via" ||
		mrc_die "cannot route $1 from $S"
}

# A line of three namespaces, the middle one routing between the others:
#
#   NS_A mrc-a 10.0.0.1/24 ==== r-a 10.0.0.254/24 NS_R r-b 10.0.1.254/24
#              fd00::1/64            fd00::fe/64           fd01::fe/64
#        ==== mrc-b 10.0.1.2/24 NS_B
#                   fd01::2/64
#
# Each end's default routes go through NS_R; IPv6 without DAD.
MRC_LINE_IP4_B=10.0.1.2 MRC_LINE_IP6_B=fd01::2

# mrc_routed_line NS_A NS_R NS_B [MTU]: the line above (MTU 1500 unless
# told otherwise, on all four ends).  Returns 1, having said why, when it
# cannot be built.
mrc_routed_line() {
	local a=$1 r=$2 b=$3 mtu=${4:-1500} out

	mrc_modprobe veth
	out=$(ip link add mrc-a netns "$a" mtu "$mtu" type veth peer name r-a \
		netns "$r" mtu "$mtu" 2>&1 &&
	      ip link add r-b netns "$r" mtu "$mtu" type veth peer name mrc-b \
		netns "$b" mtu "$mtu" 2>&1) || {
		echo "# ip link add veth: $out"
		return 1
	}
	out=$(ip -n "$a" -b - 2>&1 <<-EOF
		link set lo up
		addr add 10.0.0.1/24 dev mrc-a
		addr add fd00::1/64 dev mrc-a nodad
		link set mrc-a up
		route add default via 10.0.0.254
		route add default via fd00::fe
		EOF
	) || {
		echo "# setting up $a: $out"
		return 1
	}
	out=$(ip -n "$r" -b - 2>&1 <<-EOF
		link set lo up
		addr add 10.0.0.254/24 dev r-a
		addr add fd00::fe/64 dev r-a nodad
		addr add 10.0.1.254/24 dev r-b
		addr add fd01::fe/64 dev r-b nodad
		link set r-a up
		link set r-b up
		EOF
	) || {
		echo "# setting up $r: $out"
		return 1
	}
	out=$(ip -n "$b" -b - 2>&1 <<-EOF
		link set lo up
		addr add 10.0.1.2/24 dev mrc-b
		addr add fd01::2/64 dev mrc-b nodad
		link set mrc-b up
		route add default via 10.0.1.254
		route add default via fd01::fe
		EOF
	) || {
		echo "# setting up $b: $out"
		return 1
	}
	out=$(ip netns exec "$r" sysctl -q -w net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1 2>&1) || {
		echo "# making $r a router: $out"
		return 1
	}
}

# mrc_netem NS DEV ARGS...: a netem root qdisc (ARGS as tc takes them) on
# DEV in NS, replacing what is there; "mrc_netem NS DEV none" removes it.
mrc_netem() {
	local ns=$1 dev=$2 out

	shift 2
	if [ "$1" = none ]; then
		tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
		return 0
	fi
	mrc_modprobe sch_netem
	out=$(tc -n "$ns" qdisc replace dev "$dev" root netem "$@" 2>&1) || {
		echo "# tc qdisc replace dev $dev root netem $*: $out"
		return 1
	}
}

# mrc_tracefs: print where tracefs is, mounting it if it is not; 1 if
# it has no mrc events (mrc not loaded).
mrc_tracefs() {
	local tr=/sys/kernel/tracing

	if [ ! -e "$tr/events" ]; then
		mount -t tracefs nodev "$tr" 2>/dev/null ||
			mount -t tracefs nodev /sys/kernel/debug/tracing 2>/dev/null
		[ -e "$tr/events" ] || tr=/sys/kernel/debug/tracing
	fi
	echo "$tr"
	[ -e "$tr/events/mrc" ]
}

# softnet_drops: packets the receiving CPUs' backlogs dropped, which
# never reached mrc (an injection is not paced): the sum of
# /proc/net/softnet_stat's second column, in all namespaces.
softnet_drops() {
	local d=0 f

	while read -r _ f _; do
		d=$((d + 16#$f))
	done </proc/net/softnet_stat
	echo "$d"
}

# mrc_stats_delta NAME BEFORE AFTER: AFTER[NAME] - BEFORE[NAME] of two
# mrc_stats_snapshot arrays, or "<absent>" if either lacks it.
mrc_stats_delta() {
	local -n d_before=$2 d_after=$3

	if [ -z "${d_before[$1]:-}" ] || [ -z "${d_after[$1]:-}" ]; then
		echo "<absent>"
		return 0
	fi
	echo $((d_after[$1] - d_before[$1]))
}

# mrc_stats_json [-n NS]: the counters as "mrc -j stats" prints them (one
# JSON object, {"rx_packets":N,...}).
mrc_stats_json() {
	mrc_exec "$@" -j stats
}

# mrc_qp_stat [-n NS] NAME: the sum of counter NAME over the queue pairs
# "mrc -j qp show" lists, wherever they nest it; "<absent>" when the CLI
# or the kernel has no queue pair dump, 0 when there is no queue pair.
mrc_qp_stat() {
	local nsarg=() out

	if [ "${1:-}" = -n ]; then
		nsarg=(-n "$2")
		shift 2
	fi
	out=$(mrc_exec "${nsarg[@]}" -j qp show 2>/dev/null) || {
		echo "<absent>"
		return 0
	}
	jq -r --arg n "$1" '[.. | objects | select(has($n)) | .[$n] |
		numbers] | add // 0' <<<"$out" 2>/dev/null || echo "<absent>"
}

# mrc_wait_bound PID PORT [SECONDS]: wait until process PID holds an mrc
# socket bound to PORT (0: to any port), without touching the port (no
# probing bind that could race with the process's own).  The port found
# is in $MRC_BOUND_PORT.  Returns 1, having said why, if PID ended or
# SECONDS (default 20) passed first.
mrc_wait_bound() {
	local out

	out=$("$MRC_SOCKAPI" --wait-bound "$1" "$2" "${3:-20}" 2>&1) || {
		echo "# $out"
		return 1
	}
	MRC_BOUND_PORT=${out##* }
}
