#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The checker's false-positive sweep: record clean runs again and again and
# expect `slubtrace check` to find nothing in any of them.
#
#   scripts/clean-sweep.sh [-n RUNS] [-b BUILD_DIR] [-o WORK_DIR] [-g GENERATION]
#                          [WORKLOAD...]
#
# Workloads (default: all): stress (tests/test_stress, 12 threads, 2 nodes),
# workload (examples/slub-workload, 2 nodes), and the shim's real programs:
# python, sort-gzip-xz, git, gcc, sqlite (tests/shim/workloads.sh).  Each is
# recorded RUNS times (default 5) with `slubtrace record` (which ends with
# the check); the verdict lines are collected.  Prints one line per
# recording and a summary; exit 0 when every verdict is clean, 1 when one
# is not, 2 when a recording failed.  Runs as the calling user with
# whatever session daemon `slubtrace record` finds or starts.  -g sheaves
# records every run under the sheaves generation (`record --generation`).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=5 build=build work="" gen=classic
while getopts "n:b:o:g:h" o; do
	case $o in
	n) runs=$OPTARG ;;
	b) build=$OPTARG ;;
	o) work=$OPTARG ;;
	g) gen=$OPTARG ;;
	*) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
names=("$@")
((${#names[@]})) || names=(stress workload python sort-gzip-xz git gcc sqlite)
st=$root/$build/src/cli/slubtrace
[[ -x $st ]] || { echo "clean-sweep: $st not built" >&2; exit 2; }
[[ -n $work ]] || work=$(mktemp -d /tmp/slubtrace-sweep.XXXXXX)
mkdir -p "$work"
. tests/shim/workloads.sh

clean=0 dirty=0 failed=0
for name in "${names[@]}"; do
	for ((i = 1; i <= runs; i++)); do
		out=$work/$name-$i
		rm -rf "$out" "$out.run"
		mkdir -p "$out.run"
		case $name in
		stress) cmd=("$root/$build/tests/test_stress" -t 12 -s 2) ;;
		workload) cmd=("$root/$build/examples/slub-workload" -g 4 -t 6 -m 2000 -r 2) ;;
		*) cmd=(bash -c ". '$root/tests/shim/workloads.sh' && wl_$name '$out.run'") ;;
		esac
		log=$out.log
		if ! SLUBTRACE_NODES=2 "$st" record --generation "$gen" --nodes 2 -o "$out" -- "${cmd[@]}" >"$log" 2>&1; then
			echo "$name #$i: the recorded run failed (log: $log)"
			failed=$((failed + 1))
			continue
		fi
		v=$(grep '^verdict:' "$log" | tail -n 1)
		if [[ $v == "verdict: clean"* ]]; then
			clean=$((clean + 1))
		elif [[ -z $v ]] && grep -q 'no slub event in the trace' "$log"; then
			v="(no slub event: the program allocated nothing)"
			clean=$((clean + 1))
		else
			dirty=$((dirty + 1))
		fi
		echo "$name #$i: ${v:-no verdict (log: $log)}"
		rm -rf "$out.run"
	done
done
echo "clean-sweep: $clean clean, $dirty with violations, $failed failed recordings (traces in $work)"
((failed)) && exit 2
((dirty)) && exit 1
exit 0
