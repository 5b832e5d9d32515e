#!/usr/bin/env bash
# The main job: install what is missing, build, run the bundled
# multi-threaded workload on slubtrace under an LTTng session, and print
# what slubtrace can say about it: the `slabinfo -r` page of every kmalloc
# cache the workload used, and a census of the recorded transitions.
#
#   scripts/demo.sh [-o TRACE_DIR] [-- WORKLOAD ARGS]
#
# Environment: BUILD_DIR (default build), SLUBTRACE_NODES (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=""
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
	sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
fi
if [[ ${1:-} == -o ]]; then
	out=$2
	shift 2
fi
[[ ${1:-} == -- ]] && shift
wargs=("$@")
((${#wargs[@]})) || wargs=(-g 4 -t 4 -m 5000 -r 3)

bash scripts/setup.sh build
build=${BUILD_DIR:-build}
echo "demo: building in $build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.configure.log" 2>&1 ||
	{ cat "$build.configure.log"; exit 1; }
if ! cmake --build "$build" -j "$(nproc)" >"$build.build.log" 2>&1; then
	cat "$build.build.log"
	exit 1
fi

[[ -n $out ]] || out=$root/slubtrace-trace-$(date +%Y%m%d-%H%M%S)
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT
nodes=${SLUBTRACE_NODES:-2}

echo "demo: slubtrace record --nodes $nodes -o $out -- slub-workload ${wargs[*]}"
set +e
SLUBTRACE_STATS=1 "$build/src/cli/slubtrace" record --nodes "$nodes" -o "$out" -- \
	"$build/examples/slub-workload" "${wargs[@]}" 2>"$stats"
rc=$?
set -e
# slub-workload's own line and slubtrace's summary, then the reports.
grep -v '^slubtrace: \|^$' "$stats" | grep -q . || true
if ((rc != 0)); then
	cat "$stats"
	echo "demo: the recorded run failed (exit $rc)" >&2
	exit "$rc"
fi

echo
echo "================ slabinfo -r (in-process counters, at exit) ================"
sed '/^slubtrace: /d' "$stats"
echo
grep '^slubtrace: ' "$stats" || true

echo
echo "================ the trace: $out ================"
babeltrace2 "$out" 2>/dev/null | awk '
function field(name,   re, m) {
	if (match($0, name " = [^,}]*")) {
		m = substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 3)
		return m
	}
	return ""
}
{
	ev = ""
	for (i = 1; i <= NF; i++) if ($i ~ /^slub:/) { ev = $i; sub(/:$/, "", ev); break }
	if (ev == "") next
	n[ev]++; total++
	tid = field("vtid"); if (tid != "") tids[tid] = 1
	slab = field("slab"); if (slab != "" && slab != "0x0") slabs[slab] = 1
	if (ev == "slub:cmpxchg_fail") {
		match($0, /site = \( "[^"]*"/); s = substr($0, RSTART + 10, RLENGTH - 11); site[s]++
		if (field("locked") == "1") locked++
		a = field("attempt") + 0; if (a > maxattempt) maxattempt = a
	}
	if (ev == "slub:lock_acquire") {
		acq++; if (field("contended") == "1") { cont++; wait += field("wait_ns") }
	}
	if (ev == "slub:lock_release") hold += field("hold_ns")
}
END {
	printf "%d events from %d threads on %d slabs\n\n", total, length(tids), length(slabs)
	printf "%-24s %10s\n", "event", "count"
	for (e in n) printf "%-24s %10d\n", e, n[e] | "sort -k2 -rn"
	close("sort -k2 -rn")
	printf "\ncmpxchg failures on slab words: %d (%d with list_lock held); most redos of one update: %d\n",
		n["slub:cmpxchg_fail"], locked, maxattempt
	for (s in site) printf "  %-24s %d\n", s, site[s]
	if (acq) printf "\nlist_lock: %d acquisitions, %d contended (%.1f%%), %.1f ms waited in all (%.0f us per contended wait), held %.0f ns on average\n",
		acq, cont, 100.0 * cont / acq, wait / 1e6, cont ? wait / cont / 1e3 : 0, hold / acq
}'
echo
echo "demo: read the whole trace with: babeltrace2 $out"
