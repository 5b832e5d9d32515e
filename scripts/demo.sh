#!/usr/bin/env bash
# The main job: install what is missing, build, run the bundled
# multi-threaded workload on slubtrace under an LTTng session, and print
# what slubtrace can say about it: the check verdict, the timeline of one
# slab with a full life (cpu slab, cpu partial, node partial, full,
# discarded), the retry storms, and the stats rebuilt from the trace.
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
log=$(mktemp)
trap 'rm -f "$log"' EXIT
nodes=${SLUBTRACE_NODES:-2}
st="$build/src/cli/slubtrace"

echo "demo: slubtrace record --nodes $nodes -o $out -- slub-workload ${wargs[*]}"
set +e
"$st" record --nodes "$nodes" -o "$out" -- "$build/examples/slub-workload" "${wargs[@]}" 2>&1 |
	tee "$log"
rc=${PIPESTATUS[0]}
set -e
if ((rc != 0)); then
	echo "demo: the recorded run failed (exit $rc)" >&2
	exit "$rc"
fi
# record ends with `slubtrace check`; its last line is the verdict.
verdict=$(grep '^verdict:' "$log" | tail -n 1)

# One pass over the timeline: the slab whose life went through every state
# (the shortest such life, so that it reads in one screen) and the cache
# with the most transitions.
echo
echo "demo: choosing a slab (slubtrace timeline --json $out)"
read -r slab cache < <("$st" timeline --json "$out" 2>/dev/null | awk -F'"' '
{
	slab = ""; after = ""; cache = ""
	for (i = 2; i < NF; i += 2) {
		if ($i == "slab") slab = $(i + 2)
		else if ($i == "after") after = $(i + 2)
		else if ($i == "cache") cache = $(i + 2)
	}
	if (slab == "") next
	n[slab]++; per_cache[cache]++
	if (after ~ /^(CPU_ACTIVE|CPU_PARTIAL|NODE_PARTIAL|FULL|DISCARDED)$/ && !((slab, after) in seen)) {
		seen[slab, after] = 1
		states[slab]++
	}
}
END {
	best = ""
	for (s in n)
		if (best == "" || states[s] > states[best] || (states[s] == states[best] && n[s] < n[best]))
			best = s
	bc = ""
	for (c in per_cache)
		if (bc == "" || per_cache[c] > per_cache[bc]) bc = c
	print best, bc
}')

echo
echo "================ slubtrace check ================"
echo "${verdict:-verdict: (none printed)}"
echo
echo "================ slubtrace timeline --slab $slab ================"
"$st" timeline --slab "$slab" "$out"
echo
echo "================ slubtrace storms --top 5 ================"
"$st" storms --top 5 "$out"
echo
echo "================ slubtrace stats --cache $cache (the busiest cache) ================"
"$st" stats --cache "$cache" --sections slabinfo,sites,locks,rates "$out"
echo
echo "demo: more: slubtrace report $out -o report.html; babeltrace2 $out; slubtrace help"
