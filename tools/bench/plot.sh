#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016 # jq programs
#
# The benchmarks' results (tools/bench/bench.sh's results.json) as PNG
# plots, with gnuplot:
#
#   tools/bench/plot.sh RESULTS.json OUTDIR
#
#   goodput.png, trimming.png, incast.png   one bar a case: the median
#                       goodput over the repetitions, the bar from the
#                       lowest to the highest run, and the fabric's
#                       capacity as a line where the benchmark gives it
#   paths.png           each case's share of the capacity of N paths,
#                       against N
#   failover.png        the failover stream: h2's goodput and each
#                       spine's share of it over time, from the failure
#                       (0) to the restore (a second line)
#   failover-compare.png  h2's goodput through the same failure for mrc,
#                       TCP, MPTCP and TCP over IPv6, one line each (the
#                       restore's line: mrc's run's)
#
# Each benchmark absent from RESULTS.json gets no plot; the names of the
# plots written are printed, one a line.

set -euo pipefail

[ $# -eq 2 ] || {
	echo "usage: $0 RESULTS.json OUTDIR" >&2
	exit 2
}
json=$1 out=$2
command -v gnuplot >/dev/null || {
	echo "plot: no gnuplot (Debian's gnuplot-nox; tools/deps.sh bench)" >&2
	exit 1
}
mkdir -p "$out"
tmp=$(mktemp -d /tmp/mrc-plot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# bars NAME TITLE: NAME's cases, median and range, against its capacity.
bars() {
	local name=$1 title=$2 cap

	jq -e --arg b "$name" '.benchmarks[$b].cases | length > 0' "$json" \
		>/dev/null 2>&1 || return 0
	jq -r --arg b "$name" '.benchmarks[$b].cases[] |
		[(.description | gsub("\""; "'"'"'")),
		 .goodput_mbps.median // 0, .goodput_mbps.min // 0,
		 .goodput_mbps.max // 0] | @tsv' "$json" >"$tmp/$name.tsv"
	cap=$(jq -r --arg b "$name" \
		'.benchmarks[$b] | .fabric_mbps // .link_mbps // empty' "$json")
	gnuplot <<-EOF
		set terminal pngcairo size 1100,$((300 + 40 * $(wc -l <"$tmp/$name.tsv"))) font ",10"
		set termoption noenhanced
		set output "$out/$name.png"
		set title "$title"
		set datafile separator "\t"
		set style fill solid 0.6 border -1
		set boxwidth 0.6
		set yrange [-0.5:*] reverse
		set ytics nomirror
		set xrange [0:$( [ -n "$cap" ] && echo "$cap * 1.1" || echo "*")]
		set xlabel "goodput, Mbit/s (median; the bar: lowest to highest run)"
		set grid x
		set key off
		$( [ -n "$cap" ] && echo "set arrow from $cap, graph 0 to $cap, graph 1 nohead dt 2 lw 2 lc rgb 'red'
		set label 'fabric: $cap Mbit/s' at $cap, graph 1 right offset -1,-1 tc rgb 'red'" )
		plot "$tmp/$name.tsv" using (\$2 / 2):0:(\$2 / 2):(0.3):yticlabels(1) with boxxyerror lc rgb "#4477aa", \
		     "" using 2:0:3:4 with xerrorbars lc rgb "black" pt 7 ps 0.6
	EOF
	echo "$out/$name.png"
}

# fo_preamble FILE TITLE YLABEL: gnuplot's setting for a failover plot
# over time into $out/FILE: the failure at 0 and the restore ($restore,
# ms after it, if known) as lines.
fo_preamble() {
	cat <<-EOF
		set terminal pngcairo size 1100,500 font ",10"
		set termoption noenhanced
		set output "$out/$1"
		set title "$2 at 0$( [ -n "$restore" ] && echo ", restored at +$restore ms")"
		set datafile separator "\t"
		set xlabel "ms from the failure"
		set ylabel "$3"
		set grid
		set key outside right
		set arrow from $fail, graph 0 to $fail, graph 1 nohead dt 2 lc rgb "red"
		$( [ -n "$restore" ] && echo "set arrow from $restore, graph 0 to $restore, graph 1 nohead dt 2 lc rgb 'dark-green'" )
	EOF
}

failover() {
	local fail restore

	jq -e '.benchmarks.failover.series | length > 0' "$json" \
		>/dev/null 2>&1 || return 0
	jq -r '.benchmarks.failover.series[] | @tsv' "$json" >"$tmp/fo.tsv"
	fail=0
	restore=$(jq -r '.benchmarks.failover |
		if .restored_at_ms and .failed_at_ms
		then .restored_at_ms - .failed_at_ms else empty end' "$json")
	gnuplot <<-EOF
		$(fo_preamble failover.png "Failover: spine 1 fails silently" \
			"Mbit/s (h2's goodput; each spine's traffic to l2)")
		plot "$tmp/fo.tsv" using 1:2 with lines lw 2 lc rgb "black" title "h2 goodput", \
		     "" using 1:3 with lines lc rgb "red" title "spine 1", \
		     "" using 1:4 with lines title "spine 2", \
		     "" using 1:5 with lines title "spine 3", \
		     "" using 1:6 with lines title "spine 4"
	EOF
	echo "$out/failover.png"
	jq -e '.benchmarks.failover.compare | length > 0' "$json" \
		>/dev/null 2>&1 || return 0
	# One file a protocol: ms from its failure, h2's goodput.
	jq -r '.benchmarks.failover | ([.] + .compare)[] | .proto' "$json" |
		while read -r p; do
			jq -r --arg p "$p" '.benchmarks.failover |
				([.] + .compare)[] | select(.proto == $p) |
				.series[] | [.[0], .[1]] | @tsv' "$json" \
				>"$tmp/fo-$p.tsv"
		done
	gnuplot <<-EOF
		$(fo_preamble failover-compare.png \
			"Failover: the spine each stream takes fails silently" \
			"h2's goodput, Mbit/s")
		plot $(jq -r '.benchmarks.failover | ([.] + .compare) |
			map("\"'"$tmp"'/fo-\(.proto).tsv\" using 1:2 with lines lw 2 title \"\(.proto)\"") |
			join(", ")' "$json")
	EOF
	echo "$out/failover-compare.png"
}

# paths: each case's share of N paths' capacity against N.
paths() {
	local cols

	jq -e '.benchmarks.paths.fabrics | length > 0' "$json" \
		>/dev/null 2>&1 || return 0
	# One row an N; one column a case (by name, sorted); "?" where a
	# case did not run.
	jq -r '.benchmarks.paths.fabrics as $f |
		([$f[].cases[].name] | unique) as $names |
		(["N"] + $names | @tsv),
		($f[] | . as $x | [.paths] + ($names | map(. as $n |
			$x.cases | map(select(.name == $n)) |
			if length == 0 then "?" else .[0].utilisation * 100 end)) |
			@tsv)' "$json" >"$tmp/paths.tsv"
	cols=$(head -1 "$tmp/paths.tsv" | awk -F'\t' '{ print NF }')
	gnuplot <<-EOF
		set terminal pngcairo size 900,500 font ",10"
		set termoption noenhanced
		set output "$out/paths.png"
		set title "Path utilisation: one transfer over N equal-cost paths"
		set datafile separator "\t"
		set datafile missing "?"
		set xlabel "paths (N)"
		set ylabel "% of N x the path rate (median goodput)"
		set logscale x 2
		set xtics (1, 2, 4, 8)
		set yrange [0:105]
		set grid
		set key outside right
		plot for [i=2:$cols] "$tmp/paths.tsv" using 1:i with linespoints lw 2 title columnheader(i)
	EOF
	echo "$out/paths.png"
}

bars goodput "Goodput on the 4 x 50 Mbit/s fabric"
paths
bars trimming "Goodput under congestion signals (4 x 50 Mbit/s)"
bars incast "Incast: 4 senders into one receiver"
failover
