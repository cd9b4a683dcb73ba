#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016 # jq programs
#
# The benchmarks' results (the JSON tools/bench/run.sh prints and
# tools/bench/bench.sh keeps) as Markdown:
#
#   tools/bench/report.sh Documentation/benchmarks/results.json
#
# Each benchmark present gets its section; the JSON holds every run and
# counter, the Markdown the figures to read first.

set -euo pipefail

[ $# -eq 1 ] || {
	echo "usage: $0 RESULTS.json" >&2
	exit 2
}

# The plots beside RESULTS.json, linked under their sections.
plots=()
for p in goodput paths failover failover-compare trimming incast; do
	[ -f "$(dirname "$1")/$p.png" ] && plots+=("$p")
done

jq -M -r --argjson plots "$(printf '%s\n' "${plots[@]}" | jq -R . | jq -s 'map(select(. != ""))')" '
def r1: if . == null then "n/a" else . * 10 | round / 10 | tostring end;
def r2: if . == null then "n/a" else . * 100 | round / 100 | tostring end;
def pct: if . == null then "n/a" else . * 100 | round | "\(.) %" end;
def ms: if . == null then "never" else "\(r1) ms" end;
def msd: if . == null then "-" else "\(r1) ms" end;
def med: sort | if length == 0 then null
	elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;

# The plot tools/bench/plot.sh draws beside the results, when it did.
def plot($name): if $plots | index($name) then "![\($name)](\($name).png)", "" else empty end;

def goodput:
	"## Goodput on the 4 x 50 Mbit/s fabric",
	"",
	"\(.repetitions) repetition(s) of \(.seconds) s per case, the cases in turn; " +
	"goodput is what the receiver verified, byte by byte, over the " +
	"sender'"'"'s time (mrcperf).  Fabric use: median / \(.fabric_mbps) Mbit/s.",
	"",
	"| case | median Mbit/s | min | max | fabric use | messages verified | lost | corrupted |",
	"|---|---:|---:|---:|---:|---:|---:|---:|",
	(.cases[] |
	 "| \(.description) | \(.goodput_mbps.median | r1) | " +
	 "\(.goodput_mbps.min | r1) | \(.goodput_mbps.max | r1) | " +
	 "\(.fabric_utilisation | pct) | \(.verified) | \(.lost) | " +
	 "\(.errors)\(if .ok then "" else " (a run FAILED)" end) |"),
	"",
	"**mrc / one TCP flow, same repetition: \(.mrc_over_tcp.median | r2) x** " +
	"(runs: \(.mrc_over_tcp.runs | map(r2) | join(", "))); " +
	"issue #12 asks for at least \(.mrc_over_tcp.goal) x.  " +
	(if .mrc9k_over_tcp.median then
	 "With mss 8192: **\(.mrc9k_over_tcp.median | r2) x** (runs: " +
	 "\(.mrc9k_over_tcp.runs | map(r2) | join(", ")))." else "" end),
	"",
	"What the runs of one mrc socket say about what limits it (medians " +
	"over the runs; counters of h1 unless said):",
	"",
	"| case | data packets | resent (SACK / timeout) | timeouts | values assumed bad | spine queue drops | cwnd halfway | srtt halfway | cwnd / srtt | RTO halfway | TCP segments resent |",
	"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
	(.cases[] | .runs as $r |
	 def m(f): [$r[] | f | numbers] | med;
	 "| \(.name) | " +
	 (if .runs[0].mrc_h1 then
	   "\(m(.mrc_h1.tx_data_packets)) | \(m(.mrc_h1.total_rtx_sack)) / " +
	   "\(m(.mrc_h1.total_rtx_timeout)) | \(m(.mrc_h1.total_timeouts)) | " +
	   "\(m(.mrc_h1.ev_assumed_bad)) | "
	  else "- | - | - | - | " end) +
	 "\(m(.spine_qdisc_drops | add)) | " +
	 (if .runs[0].mrc_h1 then
	   "\(m(.qp_halfway[0].cwnd)) B | \(m(.qp_halfway[0].srtt_us)) us | " +
	   "\(m(.qp_halfway[0] | if .srtt_us > 0 then .cwnd * 8 / .srtt_us
		else null end) | r1) Mbit/s | " +
	   "\(m(.qp_halfway[0].rto_us)) us | - |"
	  else "- | - | - | - | \(m(.tcp_retrans_segs)) |" end)),
	"",
	"Packets each spine carried toward h2, first run: " +
	([.cases[] | "\(.name) \(.runs[0].spine_packets | map(tostring) | join("/"))"]
	 | join("; ")) + ".";

def paths:
	"## Path utilisation: N equal-cost paths",
	"",
	"\(.repetitions) repetition(s) of \(.seconds) s per case on fabrics of " +
	"N spines, each \(.path_mbps) Mbit/s (tbf) with 2 ms of delay each " +
	"way; goodput (median) over N x \(.path_mbps) Mbit/s.  The MPTCP " +
	"connection has a subflow pinned to each path.",
	"",
	(.fabrics as $f |
	 "| case | " + ($f | map("N = \(.paths) (\(.capacity_mbps) Mbit/s)") | join(" | ")) + " |",
	 "|---|" + ($f | map("---:") | join("|")) + "|",
	 ([$f[].cases[].name] | unique) as $names |
	 ($f[0].cases + $f[-1].cases | map({(.name): .description}) | add) as $desc |
	 ($names | sort_by(. as $n | ["mrc", "mrc-none", "tcp", "tcpN", "tcp16", "mptcp"] |
		index($n) // 99)[] | . as $n |
	  "| \(if $n == "tcpN" then "N TCP flows (-P N)" else $desc[$n] end) | " +
	  ($f | map(.cases | map(select(.name == $n)) |
		if length == 0 then "-" else .[0] |
		"\(.goodput_mbps.median | r1) (\(.utilisation | pct))" +
		(if .ok then "" else " FAILED" end) end) | join(" | ")) + " |")),
	(.fabrics as $f |
	 "",
	 "mrc / one TCP flow (median of the repetitions): " +
	 ($f | map("N = \(.paths): \(.mrc_over_tcp.median | r2) x") | join(", ")) + ".",
	 "",
	 # Runs before the count was kept have none.
	 (if [$f[].cases[] | select(.name == "mptcp") | .mptcp_joins | numbers] |
	     length > 0 then
	  "MPTCP subflows that joined the first, fewest of the runs: " +
	  ($f | map(select(.paths > 1) | "N = \(.paths): \(.cases |
		map(select(.name == "mptcp"))[0].mptcp_joins // "n/a") of \(.paths - 1)") |
	   join(", ")) + ".", ""
	  else empty end),
	 "Packets each spine carried toward h2, first run, N = \($f[-1].paths): " +
	 ($f[-1].cases | map("\(.name) \(.spine_packets | map(tostring) | join("/"))") |
	  join("; ")) + ".");

def efficiency:
	"## Efficiency and latency on one link",
	"",
	"\(.repetitions) repetition(s) of \(.seconds) s per case on one veth " +
	"pair (MTU 9000, no rate limit): 1 MiB messages, 4 in flight (SoftRoCE: " +
	"ib_send_bw -e, 1 MiB SENDs, 4 outstanding); CPU time is the VM'"'"'s " +
	"busy time over the run, both ends together, a GB moved.  Round trip: " +
	"64-byte messages one at a time, each answered (mrcperf: 16 bytes; " +
	"SoftRoCE: ib_send_lat, 64 bytes, its one-way typical and 99th " +
	"percentile doubled).  Medians; mrc at mss 8192.",
	"",
	"| transport | goodput Mbit/s (min-max) | CPU s a GB | x TCP | 64 B round trip p50 us | p99 us |",
	"|---|---:|---:|---:|---:|---:|",
	(.tcp.cpu_s_per_gb.median as $tc | .tcp.goodput_mbps.median as $tg |
	 ("mrc", "tcp", "rxe") as $p | .[$p] | select(. != null) |
	 "| \({mrc: "mrc", tcp: "TCP", rxe: "SoftRoCE (rxe)"}[$p]) | " +
	 "\(.goodput_mbps.median | r1) (\(.goodput_mbps.min | r1)-\(.goodput_mbps.max | r1)) | " +
	 "\(.cpu_s_per_gb.median | r2) | " +
	 "\(if $tg and $tg > 0 and .goodput_mbps.median then
	     (.goodput_mbps.median / $tg | r2) + " x goodput" +
	     (if $tc and $tc > 0 and .cpu_s_per_gb.median then
	      ", " + (.cpu_s_per_gb.median / $tc | r2) + " x CPU" else "" end)
	   else "n/a" end) | " +
	 "\(.lat_p50_us.median | r1) | \(.lat_p99_us.median | r1)" +
	 "\(if .ok then "" else " (a run FAILED)" end) |"),
	"",
	(if .rxe == null then "SoftRoCE: not measured (no rdma_rxe or perftest in the VM)." else empty end);

# One failover run (mrc, TCP or MPTCP) as [measure, value] rows.
def failover_rows:
	[["spine failed", (.failed_spine | tostring)],
	 ["goodput over the 3 s before, Mbit/s", (.pre_mbps | r1)],
	 ["lowest window in the 2 s after, Mbit/s", (.dip_mbps | r1)],
	 ["back to 3/4 of the goodput before", (.back_pre_ms | ms)],
	 ["steadily back to 3/4 of the goodput before", (.steady_pre_ms | ms)],
	 ["back to 3/4 of the fabric", (.back_fabric_ms | ms)],
	 ["goodput while failed (from +1 s), Mbit/s", (.during_mbps | r1)],
	 ["goodput after the restore (from +1 s), Mbit/s", (.after_mbps | r1)],
	 ["failed spine after the restore: first packet", (.spine_back_first_ms | ms)],
	 ["failed spine after the restore: data again", (.spine_back_data_ms | ms)],
	 ["packets retransmitted", (.retransmitted_packets | tostring)],
	 ["TCP timeouts that took a new hash (TcpTimeoutRehash)",
	  (.tcp_timeout_rehash // "" | tostring)],
	 ["messages verified / lost / corrupted",
	  "\(.verified) / \(.lost) / \(.errors)\(if .ok then "" else " (FAILED)" end)"],
	 ["goodput over the whole stream, Mbit/s", (.goodput_mbps | r1)],
	 ["sampled bytes / verified", (.sampled_over_verified | r2)]];

def failover:
	"## Failover: a spine fails silently",
	"",
	"One mrc socket streams 1 MiB messages for \(.stream_seconds) s; spine 1 " +
	"fails silently (netem loss 100 %) at \(.fail_at) s for \(.fail_for) s. " +
	"h2'"'"'s goodput is sampled every \(.sample_ms) ms (netsample) and taken " +
	"over a sliding \(.window_ms) ms window; times are from the failure, " +
	"as spine 1'"'"'s last packet to l2 dates it.",
	"",
	"| measure | value |",
	"|---|---:|",
	"| goodput over the 3 s before the failure | \(.pre_mbps | r1) Mbit/s |",
	"| lowest \(.window_ms) ms window in the 2 s after it | \(.dip_mbps | r1) Mbit/s at +\(.dip_ms | r1) ms |",
	"| back to 3/4 of the fabric (\(.mark_fabric_mbps | r1) Mbit/s) | \(.back_fabric_ms | ms)\(if .held_fabric then ", then \(.held_fabric | pct) of windows at it" else "" end) |",
	"| back to 3/4 of the goodput before (\(.mark_pre_mbps | r1) Mbit/s) | \(.back_pre_ms | ms)\(if .held_pre then ", then \(.held_pre | pct) of windows at it" else "" end) |",
	"| steadily back (the next \(.hold_ms) ms at the mark): 3/4 of the fabric / of the goodput before | \(.steady_fabric_ms | ms) / \(.steady_pre_ms | ms) |",
	"| bound: 2 RTO + probe period | \(.bound_ms | ms) (RTO \(.rto_us) us at +\(.qp_read_at_ms) ms into the stream\(if .qp_read_before_failure then "" else ", AFTER the failure" end), probe period \(.probe_period_us) us) |",
	"| steadily at 3/4 of the fabric within the bound | \(if .within_bound then "yes" else "no" end) |",
	"| goodput while failed (from +1 s) / after it (from +1 s) | \(.during_mbps | r1) / \(.after_mbps | r1) Mbit/s |",
	"| spine 1 after the restore: first packet / data again | +\(.spine_back_first_ms | ms) / +\(.spine_back_data_ms | ms) |",
	"| failed / restored, into the stream | \(.failed_at_ms) / \(.restored_at_ms) ms (tc took \(.tc_fail_ms | r1) / \(.tc_restore_ms | r1) ms) |",
	"| values of the active set on spine 1 / its share of the bytes before | \(.values_on_spine1) of \(.active_set) / \(.spine1_share_pre | pct) |",
	"| retransmitted | \(.retransmitted_packets) packets, \(.retransmitted_bytes) bytes (\(.mrc_h1.total_rtx_sack) SACK, \(.mrc_h1.total_rtx_timeout) timeout) |",
	"| timeouts / values assumed bad / restored by probes | \(.mrc_h1.total_timeouts) / \(.mrc_h1.ev_assumed_bad) / \(.mrc_h1.ev_restored) |",
	"| probes sent / answered | \(.mrc_h1.total_probe_pkts_tx) / \(.mrc_h1.probe_resp_rx) |",
	"| messages verified / lost / corrupted | \(.verified) / \(.lost) / \(.errors)\(if .ok then "" else " (FAILED)" end) |",
	"| goodput over the whole stream | \(.goodput_mbps | r1) Mbit/s |",
	"",
	"Sampler: \(.sampler)",
	(if .compare then
	 ([.] + .compare) as $all |
	 "",
	 "### Failover: mrc, TCP, MPTCP and TCP over IPv6",
	 "",
	 "The same stream and failure for each, in turn: for TCP, of the " +
	 "spine its one flow hashes to (a spine it does not take would show " +
	 "nothing); for MPTCP, with a subflow pinned to each spine, of spine " +
	 "1 (the first subflow); tcp6, TCP over IPv6 with the leaves hashing " +
	 "the flow label, which TCP changes at each timeout.  The goodput is h2'"'"'s bytes less the headers of its packets " +
	 "(TCP'"'"'s GSO packets make that an estimate: the sampled bytes over " +
	 "those verified say by how much).",
	 "",
	 "| measure | \($all | map(.proto) | join(" | ")) |",
	 "|---|\($all | map("---:") | join("|"))|",
	 ($all | map(failover_rows)) as $t |
	 range($t[0] | length) as $i |
	 "| \($t[0][$i][0]) | \($t | map(.[$i][1]) | join(" | ")) |"
	 else empty end);

def trimming:
	"## Congestion signals on the 4 x 50 Mbit/s fabric",
	"",
	"\(.repetitions) repetition(s) of \(.seconds) s per case; one mrc " +
	"socket, 1 MiB messages, 8 in flight.  Trimming spines trim above " +
	"\(.trim_backlog_bytes) bytes of backlog.  Fabric use: median / " +
	"\(.fabric_mbps) Mbit/s; issue #14 asks for \(.goal | pct) with " +
	"trimming spines (\(.hope | pct) hoped for).",
	"",
	"| case | median Mbit/s | min | max | fabric use | trimmed | CE skip marks | values marked | timeouts | spine queue drops | verified | lost | corrupted |",
	"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
	(.cases[] |
	 "| \(.description) | \(.goodput_mbps.median | r1) | " +
	 "\(.goodput_mbps.min | r1) | \(.goodput_mbps.max | r1) | " +
	 "\(.fabric_utilisation | pct) | \(.trimmed) | \(.ce_skip_marks) | " +
	 "\(.values_marked) | \(.timeouts) | \([.runs[] | .spine_qdisc_drops | add // 0] | med) | " +
	 "\(.verified) | \(.lost) | " +
	 "\(.errors)\(if .ok then "" else " (a run FAILED)" end) |");

def incast:
	"## Incast: 4 senders into one 50 Mbit/s link",
	"",
	"\(.repetitions) repetition(s) of \(.seconds) s per case; four " +
	"senders, one socket each, 256 KiB messages, at once into one " +
	"receiver behind a router whose \(.link_mbps) Mbit/s link to it " +
	"(tbf) is the bottleneck.  Tail drop: a queue of " +
	"\(.drop_queue_bytes) bytes; trimming: above \(.trim_backlog_bytes) " +
	"bytes of backlog.  Goodput: the bytes verified over the longest " +
	"sender'"'"'s time, all four together.",
	"",
	"| case | median Mbit/s | min | max | link use | trimmed | router drops | mrc timeouts | mrc packets resent | TCP segments resent | verified | lost | corrupted |",
	"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
	(.cases[] |
	 "| \(.description) | \(.goodput_mbps.median | r1) | " +
	 "\(.goodput_mbps.min | r1) | \(.goodput_mbps.max | r1) | " +
	 "\(.link_utilisation | pct) | \(.trimmed) | \(.router_drops) | " +
	 "\(.timeouts) | \(.retransmissions) | \(.tcp_retrans_segs) | " +
	 "\(.verified) | \(.lost) | " +
	 "\(.errors)\(if .ok then "" else " (a run FAILED)" end) |");

def collective:
	"## A training cluster'"'"'s exchange: 4 hosts, rounds of 1 MiB messages",
	"",
	"\(.repetitions) repetition(s) of \(.rounds) rounds per case " +
	"(the first of each left out); h1 and h3 behind one leaf, h2 and h4 " +
	"behind the other, the spines at 50 Mbit/s both ways.  All-to-all: " +
	"each host sends a message to every other a round; ring: to the " +
	"next (every hop across the spines).  \"failed\": spine 1 fails " +
	"silently 0.5 s after the start, a few rounds in.  A round ends when " +
	"the last host has all of its messages; p99 is of the rounds of " +
	"every repetition together (nearest rank: of fewer than 100, the " +
	"longest).  What the spines allow bounds a " +
	"round from below: all-to-all \(.bound_ms.a2a.up) ms " +
	"(\(.bound_ms.a2a.failed) with a spine failed), ring " +
	"\(.bound_ms.ring.up) ms (\(.bound_ms.ring.failed)).",
	"",
	"| transport | exchange | spine 1 | round p50 | round p99 | bound | rounds done | spine 1 drops | corrupted | mrc timeouts |",
	"|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
	(.bound_ms as $b | .cases[] |
	 "| \(.proto) | \(if .pattern == "a2a" then "all-to-all" else "ring" end) | " +
	 # Runs that completed every round before the failure came.
	 ([.runs[] | select(.failed_after_end and
	   .rounds_done == (.ranks | map(.rounds // 0) | max))] | length) as $early |
	 "\(.spine1)\(if $early > 0 then " (\($early) run(s) over before it)" else "" end) | " +
	 "\(.p50_ms | msd) | \(.p99_ms | msd) | " +
	 "\($b[.pattern][.spine1]) ms | \(.rounds_done) of \(.rounds_wanted) | " +
	 "\(.spine1_drops) | " +
	 "\(.errors) | \(if .proto == "mrc" then .mrc_timeouts else "-" end)" +
	 "\(if .ok then "" else " (a run FAILED: \([.runs[] | select(.ok | not) | .stderr | split("\n")[0] | gsub("\\|"; "/")] | first))" end) |");

def scale:
	def r0: if . == null then "n/a" else round | tostring end;
	"## Scale: one socket to 10,000 destinations",
	"",
	"\(.repetitions) repetition(s) of \(.seconds) s per count on one veth " +
	"pair (no rate limit): one mrc socket sends 64-byte messages to N " +
	"destinations in turn (10,000 addresses at the receiver, one socket a " +
	"port takes them all; each sent to from an address of the sender'"'"'s " +
	"own, as 10,000 hosts would see one sender), after a first pass that " +
	"opens a queue pair to each.  Messages a second the socket takes " +
	"(each one packet, acknowledged a send buffer apart): a lookup that " +
	"grew with the table would make it fall as N grows.  Medians " +
	"(min-max); the ratio is to the smallest N.",
	"",
	"| destinations | messages/s | ratio | queue pairs opened/s (first pass) |",
	"|---:|---:|---:|---:|",
	(.rate[0].msgs_per_s.median as $one | .rate[] |
	 "| \(.n) | \(.msgs_per_s.median | r0) (\(.msgs_per_s.min | r0)-\(.msgs_per_s.max | r0)) | " +
	 "\(if $one and $one > 0 and .msgs_per_s.median then .msgs_per_s.median / $one | r2 else "n/a" end) | " +
	 "\(if .n >= 100 then .qps_opened_per_s.median | r0 else "-" end) |"),
	"",
	(.memory | "Memory, what the kernel holds for itself (SUnreclaim + " +
	 "VmallocUsed + Percpu, the slab caches shrunk) 2 s into a run to " +
	 "\(.destinations) destinations, less before it, with one queue pair " +
	 "to each and then two: a queue pair, the sender'"'"'s and the " +
	 "receiver'"'"'s together, \(.qp_pair_bytes.median | r0) bytes " +
	 "(\(.qp_pair_bytes.min | r0)-\(.qp_pair_bytes.max | r0)); a " +
	 "destination state, the sender'"'"'s and the receiver'"'"'s of the " +
	 "source together, the rest over the destinations, " +
	 "\(.dest_bytes.median | r0) bytes (\(.dest_bytes.min | r0)-" +
	 "\(.dest_bytes.max | r0)).  Open when sampled, by the module'"'"'s " +
	 "counters: " +
	 (.open | map("sender \(.sender.qps) QPs and \(.sender.peers) states, " +
	  "receiver \(.receiver.qps) QPs and \(.receiver.peers) states") |
	  unique | join("; ")) + "."),
	"",
	"\(.received) of \(.sent) messages delivered, \(.errors) wrong" +
	"\(if .ok then "." else " (a run FAILED)." end)";

"# mrc benchmarks",
"",
(.meta | "Started \(.started); VM kernel \(.vm_kernel), \(.vm_cpus) CPUs under \(.vm_accel // "?")" +
 (if .host then ", \(.host)" else "" end) + (if .quick then "; QUICK=1" else "" end) +
 ".  Fabric: \(.fabric)." +
 (if .commit then "  Tree: \(.commit)." else "" end) +
 (if .host_load then "  Host: \(.host_load); \(.wall_seconds) s in all." else "" end) +
 (if .mrc_config_set != "" then "  mrc configuration set: \(.mrc_config_set)."
  else "  mrc at its default configuration." end) +
 (if .note then "\n\n\(.note)" else "" end)),
"",
(.benchmarks |
 (if .goodput then (.goodput | goodput), "", plot("goodput") else empty end),
 (if .paths then (.paths | paths), "", plot("paths") else empty end),
 (if .failover then (.failover | failover), "", plot("failover"), plot("failover-compare") else empty end),
 (if .efficiency then (.efficiency | efficiency), "" else empty end),
 (if .trimming then (.trimming | trimming), "", plot("trimming") else empty end),
 (if .incast then (.incast | incast), "", plot("incast") else empty end),
 (if .collective then (.collective | collective), "" else empty end),
 (if .scale then (.scale | scale), "" else empty end))
' "$1"
