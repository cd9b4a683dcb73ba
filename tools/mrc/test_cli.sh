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
# The fake keeps its configuration in $tmp/state from one run to the next.
run()
{
	mode=$1
	shift
	MRC_FAKE=$mode MRC_FAKE_DUMP=$tmp/dump MRC_FAKE_STATE=$tmp/state \
		LD_PRELOAD=$FAKE "$MRC" "$@" >"$tmp/out" 2>"$tmp/err"
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

# expect_out RC DESCRIPTION: last run exited RC, its stdout is stdin.
expect_out()
{
	cat >"$tmp/want"
	[ "$(cat "$tmp/rc")" = "$1" ] || bad "$2: exit $(cat "$tmp/rc"), not $1"
	if ! cmp -s "$tmp/want" "$tmp/out"; then
		echo "FAIL: $2: output differs (- wanted, + got):"
		diff -u "$tmp/want" "$tmp/out" | sed -n '3,$p'
		fail=1
	fi
}

# expect_json DESCRIPTION EXPR: stdout is JSON, and the Python expression
# EXPR of it (j) is true.
expect_json()
{
	command -v python3 >/dev/null || return 0
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$tmp/out" "$2" ||
		bad "$1: not JSON, or not $2"
}

# lines FILE N DESCRIPTION: FILE in $tmp has N lines.
lines()
{
	[ "$(wc -l <"$tmp/$1")" -eq "$2" ] ||
		bad "$3: $(wc -l <"$tmp/$1") lines, not $2"
}

run ok config show
expect 0 out "spraying default" "config show"
expect 0 out "qp-groups off" "config show"
expect 0 out "trimming on" "config show"
expect 0 out "bdp-bytes 300000" "config show"
expect 0 out "active-set 72" "config show"
expect 0 out "max-msg-size 67108864" "config show"
expect 0 out "retry-limit 7" "config show"
expect 0 out "dscp-trimmed-last-hop 16" "config show"
expect 0 out "ecn-skip off" "config show"
lines out 24 "config show"

run ok -j config show
expect 0 out '{"packet_spraying_type":"default","entropy_mask_bits":7,' \
	"config show -j"
expect 0 out '"qp_groups_enabled":false,"trimming_enabled":true,' \
	"config show -j"
expect 0 out '"rto_us":4000,"max_msg_size":67108864,"retry_limit":7,"listen":0,"dscp_no_trim":0,"dscp_trimmable":4,"dscp_trimmable_rtx":8,"dscp_trimmed":12,"dscp_trimmed_last_hop":16,"dscp_control":46,"ecn_skip":false,"bdp_bytes":300000,"active_ev_set":72}' \
	"config show -j"
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
expect 0 out "rx_drop_malformed 8001" "stats"
expect 0 out "total_rtx_sack 18001" "stats"
expect 0 out "calc_mean_reorder_depth 29001" "stats"
expect 0 out "calc_max_reorder_depth 30001" "stats"
expect 0 out "tx_errors 34001" "stats"
expect 0 out "total_probe_pkts_tx 35001" "stats"
expect 0 out "total_probe_pkts_rx 36001" "stats"
expect 0 out "probe_resp_tx 37001" "stats"
expect 0 out "probe_resp_rx 38001" "stats"
expect 0 out "skip_marked 39001" "stats"
expect 0 out "skip_cleared 40001" "stats"
expect 0 out "ev_assumed_bad 41001" "stats"
expect 0 out "ev_restored 42001" "stats"
expect 0 out "peer_opened 43001" "stats"
expect 0 out "peer_closed 44001" "stats"
expect 0 out "monitor_events 45001" "stats"
expect 0 out "monitor_drops 46001" "stats"
expect 0 out "rx_drop_proto_mem 63001" "stats"
expect 0 out "rx_drop_bad_tag 64001" "stats"
expect 0 out "rx_drop_blind_reset 65001" "stats"
expect 0 out "qp_reincarnated 66001" "stats"
expect 0 out "rto_deferred 67001" "stats"
[ "$(tail -n 1 "$tmp/out")" = "sack_beyond_tx 68001" ] ||
	bad "stats: last line"
lines out 67 "stats"

run ok -json stats show
expect 0 out '{"rx_packets":2001,"rx_bytes":3001,' "stats -json"
expect 0 out '"calc_mean_reorder_depth":29001,"calc_max_reorder_depth":30001,' \
	"stats -json"
expect 0 out '"qp_failed":33001,"tx_errors":34001,"total_probe_pkts_tx":35001,' \
	"stats -json"
expect 0 out '"ev_assumed_bad":41001,"ev_restored":42001,"peer_opened":43001,"peer_closed":44001,"monitor_events":45001,"monitor_drops":46001,"probe_skip_queue_stopped":47001,"ack_delayed_tx":48001,"icmp_too_big":49001,"icmp_unreach":50001,"icmp_ignored":51001,"total_rtx_mtu":52001,"rx_msgs_evicted":53001,"udp_sockets_open":54001,"rx_drop_filter":55001,"rx_trimmed":56001,"ecn_skip_tx":57001,"rx_drop_no_start":58001,"rx_drop_addr_limit":59001,"rx_drop_qp_limit":60001,"qp_evicted":61001,"tx_amp_limited":62001,"rx_drop_proto_mem":63001,"rx_drop_bad_tag":64001,"rx_drop_blind_reset":65001,"qp_reincarnated":66001,"rto_deferred":67001,"sack_beyond_tx":68001}' \
	"stats -json"
expect_json "stats -json" \
	'len(j) == 67 and all(type(v) is int for v in j.values())'

rm -f "$tmp/dump"
run ok config set spraying none qp-groups on link-rate 100G rto 4000
expect 0 rc 0 "config set"
grep -qx "cmd 2 flags 0x5 2=0 11=1 10=100000 13=4000" "$tmp/dump" ||
	bad "config set: sent $(cat "$tmp/dump")"

# The two keys after rto: set, read back, and kept by a rejected set.
rm -f "$tmp/dump" "$tmp/state"
run ok config set max-msg-size 1M retry-limit 3
expect 0 rc 0 "config set max-msg-size retry-limit"
grep -qx "cmd 2 flags 0x5 17=1048576 18=3" "$tmp/dump" ||
	bad "config set max-msg-size retry-limit: sent $(cat "$tmp/dump")"
run ok config show
expect 0 out "max-msg-size 1048576" "config show after set"
expect 0 out "retry-limit 3" "config show after set"
run ok -j config show
expect 0 out '"max_msg_size":1048576,"retry_limit":3,' "config show -j after set"
run ok config set max-msg-size 1073741824 retry-limit 255
expect 0 rc 0 "config set max-msg-size retry-limit at their max"
run ok config set max-msg-size 1 retry-limit 1
expect 0 rc 0 "config set max-msg-size retry-limit at their min"
run ok config set max-msg-size 64MiB retry-limit 7
run ok config show
expect 0 out "max-msg-size 67108864" "config set max-msg-size 64MiB"
expect 0 out "retry-limit 7" "config set retry-limit 7"

# range MESSAGE KEY VALUE...: the fake kernel refuses, nothing changes.
range()
{
	msg=$1
	shift
	run ok config show
	mv "$tmp/out" "$tmp/before"
	run ok config set "$@"
	expect 2 err "mrc: Error: $msg (Numerical result out of range)" \
		"config set $*"
	[ -s "$tmp/out" ] && bad "config set $*: wrote to stdout"
	run ok config show
	cmp -s "$tmp/before" "$tmp/out" || bad "config set $*: changed"
}
range "MaxMessageSize (max-msg-size) must be in 1..1073741824" \
	max-msg-size 0
range "MaxMessageSize (max-msg-size) must be in 1..1073741824" \
	max-msg-size 1073741825
range "MaxMessageSize (max-msg-size) must be in 1..1073741824" \
	retry-limit 3 max-msg-size 2G
range "RetryLimit (retry-limit) must be in 1..255" retry-limit 0
range "RetryLimit (retry-limit) must be in 1..255" retry-limit 256
range "RetryLimit (retry-limit) must be in 1..255" \
	max-msg-size 4096 retry-limit 4294967295
# The policy's range from the kernel wins over the table's; without it,
# or from a module that sent its own message, the table's.
run range config set mss 1000 retry-limit 0
expect 2 err "mrc: Error: RetryLimit (retry-limit) must be in 1..12345 (Numerical result out of range)" \
	"range from NLMSGERR_ATTR_POLICY"
run norange config set retry-limit 0
expect 2 err "mrc: Error: RetryLimit (retry-limit) must be in 1..255 (Numerical result out of range)" \
	"range without NLMSGERR_ATTR_POLICY"
run oldrange config set retry-limit 256
expect 2 err "mrc: Error: RetryLimit (retry-limit) must be in 1..255 (Numerical result out of range)" \
	"range from an older module"
grep -q "integer out of range" "$tmp/err" && bad "policy message shown"
run noext config set mss 100 retry-limit 0
expect 2 err "mrc: the kernel rejected retry-limit: Invalid argument" \
	"offset only, new key"
run ok config set starting-port-offset 65409
expect 2 err "mrc: Error: StartingPortOffset + 2^EntropyMaskBits - 1 must not exceed 65535 (Invalid argument)" \
	"port rule"

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
run ok config set max-msg-size 4G
expect 1 err 'value "4G" for max-msg-size does not fit in 32 bits' \
	"max-msg-size overflow"
run ok config set max-msg-size 64MB
expect 1 err 'invalid value "64MB" for max-msg-size: expected an unsigned decimal integer in bytes, optionally followed by K, M or G' \
	"max-msg-size suffix"
run ok config set retry-limit 7K
expect 1 err 'invalid value "7K" for retry-limit: expected an unsigned decimal integer' \
	"retry-limit suffix"
run ok qp show now
expect 1 err 'unexpected argument "now"' "qp: extra argument"
run ok qp frob
expect 1 err 'unknown qp command "frob"' "qp: unknown command"
run ok qp show qpn
expect 1 err 'missing value for "qpn"' "qp: qpn without a value"
run ok qp show qpn x1
expect 1 err 'invalid queue pair number "x1"' "qp: qpn not a number"
run ok qp show qpn 0
expect 1 err 'invalid queue pair number "0"' "qp: qpn 0"
run ok qp show qpn 1 qpn 2
expect 1 err 'qpn given more than once' "qp: qpn twice"
run ok qp show remote 192.0.2
expect 1 err 'invalid address "192.0.2"' "qp: bad address"
run ok qp show remote ::1 remote ::2
expect 1 err 'remote given more than once' "qp: remote twice"
run ok config show now
expect 1 err 'unexpected argument "now"' "extra argument"
run ok --frob config show
expect 1 err 'unknown option' "unknown option"
[ -e "$tmp/dump" ] && bad "usage errors: sent $(cat "$tmp/dump")"

# --- qp show: a dump over several reads --------------------------------

rm -f "$tmp/dump"
run ok qp show
expect_out 0 "qp show" <<'END'
qpn 1 local 192.0.2.9:5000 remote 192.0.2.1:6000 udp-sport 300 state open
    snd-nxt 1000 snd-una 990 rcv-nxt 500 cwnd 300000 inflight 40960
    srtt 12us base-rtt 6us tx-queued 2 rx-pending 1
    tx_packets 1000 tx_bytes 4096000 tx_data_packets 990 ack_rx 10
    calc_mean_reorder_depth 3
qpn 2 local-port 5001 remote [2001:db8::2]:7000 udp-sport 301 state failed
    snd-nxt 16777215 snd-una 16777208 rcv-nxt 0 cwnd 8192 inflight 8192
    srtt 4000us base-rtt 9us tx-queued 1 rx-pending 0
    tx_packets 80 total_rtx_timeout 7 total_timeouts 7 qp_failed 1
END
[ -s "$tmp/err" ] && bad "qp show: wrote to stderr"
# A dump request: NLM_F_REQUEST | NLM_F_DUMP, no attributes, no ack.
grep -qx "cmd 4 flags 0x301" "$tmp/dump" ||
	bad "qp show: sent $(cat "$tmp/dump")"

run ok q
expect 0 out "qpn 2 local-port 5001 remote [2001:db8::2]:7000" "mrc q"

# -s: every counter, zeros too, wrapped.
run ok -s qp
expect 0 out "    rx_packets 0 rx_bytes 0 rx_drop_short 0 rx_drop_bad_version 0" \
	"qp -s"
expect 0 out "    qp_opened 0 qp_closed 0 qp_failed 1 tx_errors 0" "qp -s"
expect 0 out " ev_restored 0 peer_opened 0 peer_closed 0" "qp -s"
expect 0 out "    monitor_events 0 monitor_drops 0" "qp -s"
[ "$(awk 'length > 80' "$tmp/out")" ] && bad "qp -s: lines over 80 columns"
expect 0 out " rx_drop_proto_mem 0 rx_drop_bad_tag 0" "qp -s"
expect 0 out "    rx_drop_blind_reset 0 qp_reincarnated 0" "qp -s"
lines out 38 "qp -s"
run ok --stats qp list
lines out 38 "qp --stats"

run ok -j qp show
expect 0 out '[{"qpn":1,"family":"inet","local_port":5000,"local_addr":"192.0.2.9","remote_addr":"192.0.2.1","remote_port":6000,"udp_sport":300,"state":"open","snd_nxt":1000,"snd_una":990,"rcv_nxt":500,"cwnd":300000,"inflight":40960,"srtt_us":12,"base_rtt_us":6,"tx_queued":2,"rx_pending":1,"stats":{"rx_packets":0,' \
	"qp -j"
expect 0 out '"calc_mean_reorder_depth":3,' "qp -j"
expect 0 out '"peer_closed":0,"monitor_events":0,"monitor_drops":0,"probe_skip_queue_stopped":0,"ack_delayed_tx":0,"icmp_too_big":0,"icmp_unreach":0,"icmp_ignored":0,"total_rtx_mtu":0,"rx_msgs_evicted":0,"udp_sockets_open":0,"rx_drop_filter":0,"rx_trimmed":0,"ecn_skip_tx":0,"rx_drop_no_start":0,"rx_drop_addr_limit":0,"rx_drop_qp_limit":0,"qp_evicted":0,"tx_amp_limited":0,"rx_drop_proto_mem":0,"rx_drop_bad_tag":0,"rx_drop_blind_reset":0,"qp_reincarnated":0,"rto_deferred":0,"sack_beyond_tx":0}},{"qpn":2,"family":"inet6","local_port":5001,"remote_addr":"2001:db8::2","remote_port":7000,"udp_sport":301,"state":"failed","snd_nxt":16777215,' \
	"qp -j"
expect 0 out '"qp_failed":1,"tx_errors":0,"total_probe_pkts_tx":0,' "qp -j"
expect 0 out '"peer_opened":0,"peer_closed":0,"monitor_events":0,"monitor_drops":0,"probe_skip_queue_stopped":0,"ack_delayed_tx":0,"icmp_too_big":0,"icmp_unreach":0,"icmp_ignored":0,"total_rtx_mtu":0,"rx_msgs_evicted":0,"udp_sockets_open":0,"rx_drop_filter":0,"rx_trimmed":0,"ecn_skip_tx":0,"rx_drop_no_start":0,"rx_drop_addr_limit":0,"rx_drop_qp_limit":0,"qp_evicted":0,"tx_amp_limited":0,"rx_drop_proto_mem":0,"rx_drop_bad_tag":0,"rx_drop_blind_reset":0,"qp_reincarnated":0,"rto_deferred":0,"sack_beyond_tx":0}}]' "qp -j"
lines out 1 "qp -j"
expect_json "qp -j" 'len(j) == 2 and len(j[0]) == 18 and j[0]["local_addr"] == "192.0.2.9" and "local_addr" not in j[1] and len(j[1]["stats"]) == 67 and j[1]["stats"]["total_timeouts"] == 7 and j[0]["stats"]["ack_rx"] == 10'

run ok -j -p qp
[ "$(head -n 3 "$tmp/out")" = '[
    {
        "qpn": 1,' ] || bad "qp -j -p: start"
expect 0 out '        "stats": {' "qp -j -p"
expect 0 out '            "rx_packets": 0,' "qp -j -p"
[ "$(tail -n 4 "$tmp/out")" = '            "sack_beyond_tx": 0
        }
    }
]' ] || bad "qp -j -p: end"
expect_json "qp -j -p" 'j[0]["remote_addr"] == "192.0.2.1" and j[1]["remote_addr"] == "2001:db8::2" and j[1]["state"] == "failed"'

# --- qp show qpn N | remote ADDR: one queue pair, or those to ADDR -----

# qpn: a get (NLM_F_REQUEST | NLM_F_ACK, no dump), MRC_A_QP { QPN }.
rm -f "$tmp/dump"
run ok qp show qpn 2
expect_out 0 "qp show qpn 2" <<'END'
qpn 2 local-port 5001 remote [2001:db8::2]:7000 udp-sport 301 state failed
    snd-nxt 16777215 snd-una 16777208 rcv-nxt 0 cwnd 8192 inflight 8192
    srtt 4000us base-rtt 9us tx-queued 1 rx-pending 0
    tx_packets 80 total_rtx_timeout 7 total_timeouts 7 qp_failed 1
END
grep -qx "cmd 4 flags 0x5 19={ 2=2 }" "$tmp/dump" ||
	bad "qp show qpn 2: sent $(cat "$tmp/dump")"
run ok -j qp show qpn 1
expect_json "qp -j show qpn 1" 'len(j) == 1 and j[0]["qpn"] == 1 and j[0]["remote_addr"] == "192.0.2.1"'
run ok qp show qpn 3
expect 2 err "mrc: Error: no queue pair with this number (No such file or directory)" \
	"qp show qpn 3: none"
[ -s "$tmp/out" ] && bad "qp show qpn 3: wrote to stdout"
run ok qp show qpn 1 remote 2001:db8::2
expect 2 err "mrc: Error: no queue pair with this number (No such file or directory)" \
	"qp show qpn 1 remote of another"
run ok qp show qpn 1 remote 192.0.2.1
expect 0 out "qpn 1 local 192.0.2.9:5000 remote 192.0.2.1:6000" "qp show qpn 1 remote its own"
lines out 5 "qp show qpn 1 remote its own"

# remote: a dump the kernel filters, MRC_A_QP { REMOTE_ADDR }.
rm -f "$tmp/dump"
run ok qp show remote 192.0.2.1
expect 0 out "qpn 1 local 192.0.2.9:5000 remote 192.0.2.1:6000" "qp show remote v4"
lines out 5 "qp show remote v4"
grep -qx "cmd 4 flags 0x301 19={ 5=\[4\] }" "$tmp/dump" ||
	bad "qp show remote: sent $(cat "$tmp/dump")"
run ok qp show remote 2001:db8::2
expect 0 out "qpn 2 local-port 5001 remote [2001:db8::2]:7000" "qp show remote v6"
lines out 4 "qp show remote v6"
run ok -j qp show remote 198.51.100.7
echo "[]" | expect_out 0 "qp -j show remote, none to it"
run oldqp qp show qpn 1
expect 2 err "mrc: the loaded mrc module cannot get one of its queue pairs (no MRC_CMD_QP_GET doit): Operation not supported" \
	"qp show qpn: old module"

# No queue pairs: nothing, or an empty list.
run noqp qp show
expect_out 0 "qp show, no queue pairs" </dev/null
run noqp -s qp show
expect_out 0 "qp -s, no queue pairs" </dev/null
run noqp -j qp show
echo "[]" | expect_out 0 "qp -j, no queue pairs"
run noqp -j -p qp show
echo "[]" | expect_out 0 "qp -j -p, no queue pairs"

# Errors: a module without the dump, a dump failing part way, malformed.
run oldqp qp show
expect 2 err "mrc: the loaded mrc module cannot list queue pairs (no MRC_CMD_QP_GET dump): Operation not supported" \
	"qp: old module"
run qperr -j qp show
expect 2 err "mrc: Error: fake: no memory for the dump (Cannot allocate memory)" \
	"qp: dump error in NLMSG_DONE"
[ -s "$tmp/out" ] && bad "qp: dump error: wrote to stdout"
run qpbad qp show
expect 2 err "mrc: reading the queue pairs: Bad message" "qp: 5-byte address"
[ -s "$tmp/out" ] && bad "qp: 5-byte address: wrote to stdout"
run nofamily qp show
expect 3 err 'mrc: the mrc module is not loaded' "qp: no family"

# NLM_F_DUMP_INTR: the dump is retried, three times at most.
rm -f "$tmp/dump"
run qpintr qp show
expect 0 out "qpn 2 local-port 5001" "qp: one interrupted dump"
[ "$(grep -c "^cmd 4 " "$tmp/dump")" -eq 2 ] ||
	bad "qp: one interrupted dump: $(grep -c "^cmd 4 " "$tmp/dump") dumps, not 2"
lines out 9 "qp: one interrupted dump"
rm -f "$tmp/dump"
run qpintr-always qp show
expect 2 err "mrc: the queue pairs changed during each of 3 dumps; try again" \
	"qp: every dump interrupted"
[ "$(grep -c "^cmd 4 " "$tmp/dump")" -eq 3 ] ||
	bad "qp: every dump interrupted: $(grep -c "^cmd 4 " "$tmp/dump") dumps, not 3"
[ -s "$tmp/out" ] && bad "qp: every dump interrupted: wrote to stdout"

# --- peer show: the destination states, one a read ----------------------

rm -f "$tmp/dump"
run ok peer show
expect_out 0 "peer show" <<'END'
10.0.2.1 spraying default range 256..383 active 72 position 5 bad 2
    reorder 16 srtt 4100us base-rtt 3900us probes 12/10
    values: 301 usable tx 40, 338 bad tx 12 probes 6/5, 375 usable tx 38,
        284 skip-once tx 40, 321 usable tx 39, 358 usable tx 38,
        267 usable tx 40, 304 usable tx 39, 341 usable tx 38, 378 usable tx 40,
        287 skip-once tx 39, 324 usable tx 38, 361 usable tx 40,
        270 usable tx 39, 307 usable tx 38, 344 usable tx 40, 381 usable tx 39,
        290 usable tx 38, 327 usable tx 40, 364 usable tx 39, 273 usable tx 38,
        310 usable tx 40, 347 usable tx 39, 256 usable tx 38, 293 usable tx 40,
        330 usable tx 39, 367 usable tx 38, 276 usable tx 40, 313 usable tx 39,
        350 usable tx 38, 259 usable tx 40, 296 usable tx 39, 333 usable tx 38,
        370 usable tx 40, 279 usable tx 39, 316 usable tx 38, 353 usable tx 40,
        262 usable tx 39, 299 usable tx 38, 336 usable tx 40,
        373 bad tx 12 probes 6/0, 282 usable tx 38, 319 usable tx 40,
        356 usable tx 39, 265 usable tx 38, 302 usable tx 40, 339 usable tx 39,
        376 usable tx 38, 285 usable tx 40, 322 usable tx 39, 359 usable tx 38,
        268 usable tx 40, 305 usable tx 39, 342 usable tx 38, 379 usable tx 40,
        288 usable tx 39, 325 usable tx 38, 362 usable tx 40, 271 usable tx 39,
        308 usable tx 38, 345 usable tx 40, 382 usable tx 39, 291 usable tx 38,
        328 usable tx 40, 365 usable tx 39, 274 usable tx 38, 311 usable tx 40,
        348 usable tx 39, 257 usable tx 38, 294 usable tx 40, 331 usable tx 39,
        368 usable tx 38
    qps: 3 7
2001:db8::2 spraying default range 256..383 active 4 position 0 bad 0
    reorder 0 srtt 20us base-rtt 9us probes 0/0
    values: 301 usable tx 40, 338 usable tx 39, 375 usable tx 38,
        284 usable tx 40
    qps: 2
10.0.2.9 spraying none
    reorder 0 srtt 7us base-rtt 6us probes 0/0
    qps: 4
END
[ -s "$tmp/err" ] && bad "peer show: wrote to stderr"
[ "$(awk 'length > 80' "$tmp/out")" ] && bad "peer show: lines over 80 columns"
# A dump request: NLM_F_REQUEST | NLM_F_DUMP, no attributes, no ack.
grep -qx "cmd 5 flags 0x301" "$tmp/dump" ||
	bad "peer show: sent $(cat "$tmp/dump")"

run ok p
lines out 31 "mrc p"
run ok peer list
lines out 31 "peer list"

# ADDR: one destination, IPv4, IPv6 in any spelling, IPv4-mapped.
run ok peer show 2001:db8:0:0::2
expect_out 0 "peer show IPv6" <<'END'
2001:db8::2 spraying default range 256..383 active 4 position 0 bad 0
    reorder 0 srtt 20us base-rtt 9us probes 0/0
    values: 301 usable tx 40, 338 usable tx 39, 375 usable tx 38,
        284 usable tx 40
    qps: 2
END
run ok peer show 10.0.2.9
expect_out 0 "peer show, spraying none" <<'END'
10.0.2.9 spraying none
    reorder 0 srtt 7us base-rtt 6us probes 0/0
    qps: 4
END
run ok peer show ::ffff:10.0.2.1
expect 0 out "10.0.2.1 spraying default range 256..383 active 72 position 5 bad 2" \
	"peer show IPv4-mapped"
lines out 23 "peer show IPv4-mapped"
run ok peer show 10.0.2.77
expect_out 0 "peer show, no such destination" </dev/null
run ok -j peer show 2001:db8::77
echo "[]" | expect_out 0 "peer show -j, no such destination"

# -s: the probes of every value, zeros too.
run ok -s peer show 2001:db8::2
expect 0 out "    values: 301 usable tx 40 probes 0/0, 338 usable tx 39 probes 0/0," \
	"peer -s"
expect 0 out "        375 usable tx 38 probes 0/0, 284 usable tx 40 probes 0/0" \
	"peer -s"

run ok -j peer show
lines out 1 "peer -j"
expect 0 out '[{"address":"10.0.2.1","family":"inet","spraying":"default","range":{"first":256,"last":383,"size":128},"active_set":[301,338,375,284,' \
	"peer -j"
expect 0 out '"position":5,"nr_bad":2,"reorder":16,"srtt_us":4100,"base_rtt_us":3900,"probes_tx":12,"probe_responses_rx":10,"values":[{"port":301,"state":"usable","tx_packets":40,"probes_tx":0,"probes_rx":0},{"port":338,"state":"bad","tx_packets":12,"probes_tx":6,"probes_rx":5},' \
	"peer -j"
expect 0 out '{"port":284,"state":"skip_once","tx_packets":40,"probes_tx":0,"probes_rx":0},' \
	"peer -j"
expect 0 out '"qps":[3,7]},{"address":"2001:db8::2","family":"inet6",' "peer -j"
expect 0 out '{"address":"10.0.2.9","family":"inet","spraying":"none","reorder":0,"srtt_us":7,"base_rtt_us":6,"probes_tx":0,"probe_responses_rx":0,"qps":[4]}]' \
	"peer -j"
expect_json "peer -j" 'len(j) == 3 and len(j[0]["active_set"]) == 72 and len(j[0]["values"]) == 72 and [v["port"] for v in j[0]["values"]] == j[0]["active_set"] and len(set(j[0]["active_set"])) == 72 and all(256 <= p <= 383 for p in j[0]["active_set"]) and [v["port"] for v in j[0]["values"] if v["state"] == "bad"] == [338, 373] and [v["port"] for v in j[0]["values"] if v["state"] == "skip_once"] == [284, 287] and j[0]["nr_bad"] == 2 and j[0]["qps"] == [3, 7] and j[1]["address"] == "2001:db8::2" and j[1]["qps"] == [2] and "values" not in j[2] and "range" not in j[2]'

run ok -j -p peer show 10.0.2.9
expect_out 0 "peer -j -p" <<'END'
[
    {
        "address": "10.0.2.9",
        "family": "inet",
        "spraying": "none",
        "reorder": 0,
        "srtt_us": 7,
        "base_rtt_us": 6,
        "probes_tx": 0,
        "probe_responses_rx": 0,
        "qps": [
            4
        ]
    }
]
END
run ok -j -p peer show 10.0.2.1
expect_json "peer -j -p" 'len(j) == 1 and j[0]["range"] == {"first": 256, "last": 383, "size": 128} and j[0]["values"][40] == {"port": 373, "state": "bad", "tx_packets": 12, "probes_tx": 6, "probes_rx": 0}'

# No destination: nothing, or an empty list.
run nopeer peer show
expect_out 0 "peer show, no destinations" </dev/null
run nopeer -j peer show
echo "[]" | expect_out 0 "peer -j, no destinations"

# Usage errors never reach the kernel.
rm -f "$tmp/dump"
run ok peer show 10.0.2.300
expect 1 err 'mrc: invalid address "10.0.2.300": expected an IPv4 or IPv6 address' \
	"peer: bad address"
[ -s "$tmp/out" ] && bad "peer: bad address: wrote to stdout"
run ok peer show foo
expect 1 err 'mrc: invalid address "foo": expected an IPv4 or IPv6 address' \
	"peer: bad address"
run ok peer show 10.0.2.1/32
expect 1 err 'mrc: invalid address "10.0.2.1/32"' "peer: prefix"
run ok peer show 10.0.2.1 10.0.2.9
expect 1 err 'unexpected argument "10.0.2.9"' "peer: extra argument"
run ok peer frob
expect 1 err 'unknown peer command "frob"' "peer: unknown command"
[ -e "$tmp/dump" ] && bad "peer usage errors: sent $(cat "$tmp/dump")"

# Errors: a module without the dump, a malformed value array.
run oldpeer peer show
expect 2 err "mrc: the loaded mrc module cannot list peers (no MRC_CMD_PEER_GET dump): Operation not supported" \
	"peer: old module"
run peerbad peer show
expect 2 err "mrc: reading the peers: Bad message" "peer: values of 1151 bytes"
[ -s "$tmp/out" ] && bad "peer: values of 1151 bytes: wrote to stdout"
run peerbad -j peer show 2001:db8::2
expect 2 err "mrc: reading the peers: Bad message" \
	"peer: malformed values of a destination filtered out"
run nofamily peer show
expect 3 err 'mrc: the mrc module is not loaded' "peer: no family"

# NLM_F_DUMP_INTR: the dump is tried again.
rm -f "$tmp/dump"
run peerintr peer show
lines out 31 "peer: one interrupted dump"
[ "$(grep -c "^cmd 5 " "$tmp/dump")" -eq 2 ] ||
	bad "peer: one interrupted dump: $(grep -c "^cmd 5 " "$tmp/dump") dumps, not 2"

# --- monitor: the events of the group, as they come ----------------------

# The fake's events: two in one read, an ENOBUFS, an unknown event, a
# message of another command and one without a nest (skipped), an event
# older than the first; then SIGTERM.
rm -f "$tmp/dump"
run ok monitor
expect_out 0 "monitor" <<'END'
0.000000 data_tx qpn 1 ev 300 psn 1000 addr 192.0.2.1
0.000001 sack_rx qpn 1 ev 301 psn 990 addr 192.0.2.1
0.000250 probe_resp_rx qpn 2 ev 257 psn 12 addr 2001:db8::2
0.001000 event-99 qpn 2 ev 258 psn 7 addr 2001:db8::2
-0.000001 data_rx qpn 3 ev 49152 psn 0 addr 10.0.2.9
1.234567 nack_tx qpn 1 ev 302 psn 16777215 addr 192.0.2.1
END
[ "$(cat "$tmp/err")" = "mrc: monitor: events lost (receive buffer full)" ] ||
	bad "monitor: stderr"
# A big buffer (forced if allowed), the group "monitor" (not "other")
# joined, left at the signal; no request to the family.
printf '%s\n' "SO_RCVBUFFORCE 4194304" "SO_RCVBUF 4194304" "join 7" "leave 7" |
	cmp -s - "$tmp/dump" || bad "monitor: sent $(cat "$tmp/dump")"

run ok -j monitor
expect_out 0 "monitor -j" <<'END'
{"time_ns":5000000000,"event":"data_tx","qpn":1,"ev":300,"psn":1000,"address":"192.0.2.1"}
{"time_ns":5000001500,"event":"sack_rx","qpn":1,"ev":301,"psn":990,"address":"192.0.2.1"}
{"time_ns":5000250000,"event":"probe_resp_rx","qpn":2,"ev":257,"psn":12,"address":"2001:db8::2"}
{"time_ns":5001000000,"event":"event-99","qpn":2,"ev":258,"psn":7,"address":"2001:db8::2"}
{"time_ns":4999999000,"event":"data_rx","qpn":3,"ev":49152,"psn":0,"address":"10.0.2.9"}
{"time_ns":6234567890,"event":"nack_tx","qpn":1,"ev":302,"psn":16777215,"address":"192.0.2.1"}
END
expect 0 err "mrc: monitor: events lost (receive buffer full)" "monitor -j"
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys
for l in sys.stdin:
    j = json.loads(l)
    assert list(j) == ["time_ns", "event", "qpn", "ev", "psn", "address"]
    assert all(type(j[k]) is int for k in ("time_ns", "qpn", "ev", "psn"))' \
		<"$tmp/out" || bad "monitor -j: not JSON Lines"
fi
# -p does not make an object span lines.
run ok -j -p monitor
lines out 6 "monitor -j -p"

# -c: COUNT events, then exit; the note of events lost on the way.
run ok monitor -c 2
expect_out 0 "monitor -c 2" <<'END'
0.000000 data_tx qpn 1 ev 300 psn 1000 addr 192.0.2.1
0.000001 sack_rx qpn 1 ev 301 psn 990 addr 192.0.2.1
END
[ -s "$tmp/err" ] && bad "monitor -c 2: wrote to stderr"
run ok -j mon --count 4
lines out 4 "monitor --count 4"
expect 0 out '"event":"event-99"' "monitor --count 4"
expect 0 err "events lost" "monitor --count 4"
run ok monitor -c 100
lines out 6 "monitor -c 100, SIGTERM first"

# SIGTERM while events are queued: they are printed, after leaving.
rm -f "$tmp/dump"
run monsig monitor
lines out 6 "monitor, SIGTERM"
expect 0 out "1.234567 nack_tx qpn 1 ev 302 psn 16777215 addr 192.0.2.1" \
	"monitor, SIGTERM"
[ "$(tail -n 1 "$tmp/dump")" = "leave 7" ] ||
	bad "monitor, SIGTERM: sent $(cat "$tmp/dump")"

# Errors: no group, joining refused, a malformed event, no module.
run nomon monitor
[ "$(cat "$tmp/err")" = "mrc: monitor: the kernel's mrc has no monitor group" ] ||
	bad "monitor: no group: stderr"
expect 2 err "no monitor group" "monitor: no group"
[ -s "$tmp/out" ] && bad "monitor: no group: wrote to stdout"
run monjoin monitor
expect 2 err "mrc: monitor: joining the monitor group: Operation not permitted" \
	"monitor: join refused"
run monbad monitor
expect 2 err "mrc: monitor: reading the events: Bad message" \
	"monitor: 5-byte address"
[ -s "$tmp/out" ] && bad "monitor: 5-byte address: wrote to stdout"
run nofamily monitor
expect 3 err 'mrc: the mrc module is not loaded' "monitor: no family"

# Usage errors never reach the kernel.
rm -f "$tmp/dump"
run ok monitor -c 0
expect 1 err 'invalid count "0": expected an integer in 1..4294967295' \
	"monitor -c 0"
run ok monitor -c 4294967296
expect 1 err 'invalid count "4294967296"' "monitor -c overflow"
run ok monitor -c
expect 1 err 'missing value for -c' "monitor -c"
run ok monitor now
expect 1 err 'unexpected argument "now"' "monitor: extra argument"
[ -e "$tmp/dump" ] && bad "monitor usage errors: sent $(cat "$tmp/dump")"

run ok --help
expect 0 out "sack-loss-min-retx-pkts SACKLossMinRetxPkts    1..65535 packets" \
	"help"
expect 0 out "max-msg-size            MaxMessageSize         1..1073741824 bytes 67108864" \
	"help"
expect 0 out "retry-limit             RetryLimit             1..255              7" \
	"help"
expect 0 out "mrc [ OPTIONS ] qp [ show [ qpn N ] [ remote ADDR ] ]" "help"
expect 0 out "mrc [ OPTIONS ] peer [ show [ ADDR ] ]" "help"
expect 0 out "mrc [ OPTIONS ] monitor [ -c COUNT ]" "help"
run ok -V
expect 0 out "mrc utility, version" "version"

if [ $fail -ne 0 ]; then
	echo "test_cli: FAILED"
	exit 1
fi
echo "test_cli: all passed"
