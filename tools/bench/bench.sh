#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: install what is missing, build, boot the test VM and run
# the benchmarks there (tools/bench/run.sh), a progress line each as it
# goes and a Markdown table at the end; then write the results as
# results.json, results.md (and results.rst, which
# Documentation/benchmarks.rst includes) and PNG plots
# (tools/bench/plot.sh) under Documentation/benchmarks/ (or $BENCH_OUT).
# See Documentation/benchmarks.rst.
#
#   make bench [QUICK=1] [BENCH=goodput|paths|failover|trimming|incast|efficiency|collective|scale] [BENCH_T=S] [BENCH_R=N]
#   tools/bench/bench.sh [BENCHMARK...]
#
# QUICK=1 takes one repetition of shorter runs (about 10 minutes in all
# under TCG; the whole set about 49).  Any BENCH_* variable is passed to
# the VM (tools/bench/*.sh list them).  BENCH_NOTE adds a line to the
# results, e.g. what else the machine was doing.  No benchmark passes or
# fails: the exit status is 0 unless the VM or the setup broke.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

out=${BENCH_OUT:-Documentation/benchmarks}
# shellcheck disable=SC2206 # a list of names
benches=(${BENCH:-} "$@")

tools/deps.sh bench
kver=$(tools/vm/kver)
make -s KDIR="/lib/modules/$kver/build" module tools selftests

# What the VM gets of our environment: QUICK and the BENCH_* knobs.
vmenv=("QUICK=${QUICK:-0}")
while IFS='=' read -r k _; do
	case $k in
	BENCH_OUT | BENCH_NOTE | BENCH) ;;
	BENCH_*) vmenv+=("$k=${!k}") ;;
	esac
done < <(env)

read -r load0 _ </proc/loadavg
# Other VMs at the start: under TCG they take the same cores.
others=$(pgrep -c qemu-system || :)
log=$(mktemp /tmp/mrc-bench.XXXXXX)
trap 'rm -f "$log"' EXIT
t0=$SECONDS
set +e
tools/vm/run-vm --timeout 3600 -- env "${vmenv[@]}" \
	bash tools/bench/run.sh "${benches[@]}" | tee "$log" |
	awk '/^BENCH-RESULTS-BEGIN/ { h = 1 } !h { print; fflush() } /^BENCH-RESULTS-END/ { h = 0 }'
rc=${PIPESTATUS[0]}
set -e
read -r load1 _ </proc/loadavg
if [ "$rc" -ne 0 ]; then
	echo "bench: the VM run failed (exit $rc); nothing written" >&2
	exit 1
fi

json=$(sed -n '/^BENCH-RESULTS-BEGIN/,/^BENCH-RESULTS-END/p' "$log" |
	sed '1d;$d')
jq -e . >/dev/null <<<"$json" || {
	echo "bench: no results in the VM's output; nothing written" >&2
	exit 1
}
mkdir -p "$out"
jq --arg host "on a $(nproc)-core host" \
	--arg commit "$(git describe --always --dirty 2>/dev/null || echo unknown)" \
	--arg load "1-min load average $load0 before, $load1 after; $others other VMs running at the start" \
	--arg note "${BENCH_NOTE:-}" --argjson secs $((SECONDS - t0)) '
	.meta += {host: $host, commit: $commit, host_load: $load,
		  wall_seconds: $secs} |
	if $note != "" then .meta.note = $note else . end' <<<"$json" \
	>"$out/results.json"
# The plots first: the report links those it finds.
for p in goodput paths failover failover-compare trimming incast; do
	rm -f "$out/$p.png"
done
tools/bench/plot.sh "$out/results.json" "$out" >/dev/null ||
	echo "bench: the plots failed; the report goes without them" >&2
tools/bench/report.sh "$out/results.json" >"$out/results.md"
# Documentation/benchmarks.rst includes it, its images beside it.
tools/bench/md2rst.sh "$out/results.md" benchmarks >"$out/results.rst"
echo "bench: $out/results.json, $out/results.md, results.rst and plots written" \
	"($((SECONDS - t0)) s; load $load0 -> $load1, $others other VMs at the start)"
