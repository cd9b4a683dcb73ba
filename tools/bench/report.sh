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

jq -M -r '
def r1: if . == null then "n/a" else . * 10 | round / 10 | tostring end;
def r2: if . == null then "n/a" else . * 100 | round / 100 | tostring end;
def pct: if . == null then "n/a" else . * 100 | round | "\(.) %" end;
def ms: if . == null then "never" else "\(r1) ms" end;
def med: sort | if length == 0 then null
	elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;

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
	"issue #12 asks for at least \(.mrc_over_tcp.goal) x.",
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
 (if .goodput then (.goodput | goodput), "" else empty end))
' "$1"
