#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Test of mrc(8) against fake_mnl.so, a stand-in for the kernel: output
# formats, the request sent, error reporting and exit statuses.
#
# Usage: test_cli.sh MRC FAKE_SO

MRC=${1:-./mrc}
FAKE=${2:-./fake_mnl.so}
case $FAKE in /*) ;; *) FAKE=$PWD/$FAKE ;; esac

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# run MODE ARGS...: run mrc on the fake kernel; stdout, stderr, exit in $tmp.
run()
{
	mode=$1
	shift
	MRC_FAKE=$mode MRC_FAKE_DUMP=$tmp/dump LD_PRELOAD=$FAKE \
		"$MRC" "$@" >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/rc"
}

bad()
{
	echo "FAIL: $*"
	echo "  stdout: $(cat "$tmp/out")"
	echo "  stderr: $(cat "$tmp/err")"
	fail=1
}

# expect RC FILE PATTERN DESCRIPTION: last run exited RC, FILE has PATTERN.
expect()
{
	[ "$(cat "$tmp/rc")" = "$1" ] || bad "$4: exit $(cat "$tmp/rc"), not $1"
	grep -qF -e "$3" "$tmp/$2" || bad "$4: no \"$3\" in $2"
}

run ok config show
expect 0 out "spraying default" "config show"
expect 0 out "qp-groups off" "config show"
expect 0 out "trimming on" "config show"
expect 0 out "bdp-bytes 300000" "config show"
expect 0 out "active-set 72" "config show"
[ "$(wc -l <"$tmp/out")" -eq 14 ] || bad "config show: not 14 lines"

run ok -j config show
expect 0 out '{"packet_spraying_type":"default","entropy_mask_bits":7,' \
	"config show -j"
expect 0 out '"qp_groups_enabled":false,"trimming_enabled":true,' \
	"config show -j"
expect 0 out '"bdp_bytes":300000,"active_ev_set":72}' "config show -j"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || bad "config show -j: not one line"

run ok -j -p config show
expect 0 out '    "link_rate_mbps": 400000,' "config show -j -p"
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys; json.load(sys.stdin)' <"$tmp/out" ||
		bad "config show -j -p: not JSON"
fi

run ok stats
expect 0 out "rx_packets 2001" "stats"
expect 0 out "rx_drop_no_qp 7001" "stats"
[ "$(wc -l <"$tmp/out")" -eq 6 ] || bad "stats: not 6 lines"

run ok -json stats show
expect 0 out '{"rx_packets":2001,"rx_bytes":3001,' "stats -json"

rm -f "$tmp/dump"
run ok config set spraying none qp-groups on link-rate 100G rto 4000
expect 0 rc 0 "config set"
grep -qx "cmd 2 flags 0x5 2=0 11=1 10=100000 13=4000" "$tmp/dump" ||
	bad "config set: sent $(cat "$tmp/dump")"

run extack config set entropy-mask-bits 9
expect 2 err \
	"mrc: Error: EntropyMaskBits (entropy-mask-bits) must be in 0..8 (Invalid argument)" \
	"extack"
run extack-full config set mss 100 entropy-mask-bits 9
expect 2 err "EntropyMaskBits (entropy-mask-bits) must be in 0..8" \
	"uncapped extack"
run noext config set mss 100 entropy-mask-bits 9
expect 2 err "mrc: the kernel rejected entropy-mask-bits: Invalid argument" \
	"offset only"
run eperm config set mss 100
expect 2 err "mrc: Operation not permitted (changing the configuration needs CAP_NET_ADMIN)" \
	"EPERM"
run nofamily config show
expect 3 err 'mrc: the mrc module is not loaded (generic netlink family "mrc" not found)' \
	"no family"
[ -s "$tmp/out" ] && bad "no family: wrote to stdout"

# Usage errors never reach the kernel.
rm -f "$tmp/dump"
run ok config set frob 1
expect 1 err 'mrc: unknown key "frob"' "unknown key"
expect 1 err "valid keys are: spraying, entropy-mask-bits," "unknown key"
run ok config set mss 1 trimming on mss 2
expect 1 err 'key "mss" given more than once' "repeated key"
run ok config set mss -1
expect 1 err 'invalid value "-1" for mss' "negative"
run ok config set mss 4294967296
expect 1 err 'value "4294967296" for mss does not fit in 32 bits' "overflow"
run ok config set mss 12x
expect 1 err 'invalid value "12x" for mss' "garbage"
run ok config set mss
expect 1 err 'missing value for key "mss"' "missing value"
run ok config set active-set 5
expect 1 err '"active-set" is read-only' "read-only"
run ok config show now
expect 1 err 'unexpected argument "now"' "extra argument"
run ok --frob config show
expect 1 err 'unknown option' "unknown option"
[ -e "$tmp/dump" ] && bad "usage errors: sent $(cat "$tmp/dump")"

run ok --help
expect 0 out "sack-loss-min-retx-pkts SACKLossMinRetxPkts    1..65535 packets" \
	"help"
run ok -V
expect 0 out "mrc utility, version" "version"

if [ $fail -ne 0 ]; then
	echo "test_cli: FAILED"
	exit 1
fi
echo "test_cli: all passed"
