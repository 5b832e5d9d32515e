#!/bin/bash
# SPDX-License-Identifier: MIT
# Figures, not a test: what `slubtrace record` with its default buffers
# writes and loses on the bundled workload (examples/slub-workload, default
# arguments: 4 groups x 4+4 threads, 3 rounds) and on a 32-thread pipeline
# (hackbench -g 4 -f 4 -Q -l 6000), per build: events, discarded events,
# trace bytes, bytes per event, wall seconds.  Give two builds (say, before
# and after a wire-format change) to compare them; the workload programs
# come from the first build.
#
#   record-figures.sh [-r RUNS] BUILD [BUILD...]
#
# Each build directory must hold src/cli/slubtrace and the libraries it
# finds next to it.  slubtrace record starts a session daemon when none
# answers (as root: the global one; run as a user to keep it private).
set -u
runs=3
while getopts "r:" o; do
	case $o in
	r) runs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-r RUNS] BUILD [BUILD...]"; exit 2; }
first=$(readlink -f "$1")
workloads=(
	"bundled workload|$first/examples/slub-workload"
	"32-thread pipeline|$first/tests/bench/hackbench -g 4 -f 4 -Q -l 6000"
)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record-figures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "| build | workload | events (median) | discarded (each run) | trace bytes | bytes/event | wall s |"
echo "|---|---|---:|---:|---:|---:|---:|"
for b in "$@"; do
	b=$(readlink -f "$b")
	for w in "${workloads[@]}"; do
		label=${w%%|*} cmd=${w#*|}
		ev=() disc=() bytes=() wall=()
		for r in $(seq 1 "$runs"); do
			rm -rf "$tmp/t"
			t0=$(date +%s.%N)
			out=$("$b/src/cli/slubtrace" record -o "$tmp/t" -- $cmd 2>&1 >/dev/null)
			t1=$(date +%s.%N)
			line=$(grep -o 'events: [0-9]* recorded, [0-9]* discarded' <<<"$out")
			ev+=("$(awk '{ print $2 }' <<<"$line")")
			disc+=("$(awk '{ print $4 }' <<<"$line")")
			bytes+=("$(du -sb "$tmp/t" | cut -f1)")
			wall+=("$(echo "$t1 - $t0" | bc)")
		done
		med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
		e=$(med "${ev[@]}") by=$(med "${bytes[@]}") wl=$(med "${wall[@]}")
		printf '| %s | %s | %s | %s | %s | %.1f | %.2f |\n' "$(basename "$(dirname "$b")")/$(basename "$b")" \
			"$label" "$e" "${disc[*]}" "$by" "$(echo "$by / $e" | bc -l)" "$wl"
	done
done
