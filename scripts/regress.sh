#!/usr/bin/env bash
# The regression-hunting proving ground: record the same hackbench run with
# the default allocator and with each 2012 variant and the race-window
# injection, RUNS times each, then print what `slubtrace diff` (the runs of
# each side pooled) and `slubtrace storms` say, as the Markdown table of
# the README.
#
#   scripts/regress.sh [-n RUNS] [-o WORK_DIR] [-- HACKBENCH ARGS]
#
# RUNS (default 3) recordings per variant and 2 x RUNS of the default: the
# first RUNS are BEFORE of every diff, the other RUNS are compared with
# them as a variant would be (default against default).  Needs a built tree
# (BUILD_DIR, default build) and LTTng.  Exit status 0 when every
# expectation held: default against default exits 0 (pooled both ways, and
# every ordered pair of single default runs), every variant and race-window
# exit 1, storms are found under race-window, `slubtrace check` is clean on
# the first default run and flags each injected fault (one recording each)
# with its rule; 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
slubtrace=$PWD/$build/src/cli/slubtrace
hackbench=$PWD/$build/tests/bench/hackbench
runs=3
work=""
while (($#)); do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-o) work=$2; shift 2 ;;
	-h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) echo "regress.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
hargs=("$@")
((${#hargs[@]})) || hargs=(-g 4 -f 4 -l 6000)
[[ -x $slubtrace && -x $hackbench ]] || { echo "regress.sh: build first ($build)" >&2; exit 2; }
[[ -n $work ]] || work=$(mktemp -d /tmp/slubtrace-regress.XXXXXX)
mkdir -p "$work"

capture() { # name ENV=VALUE... -- CMD ARGS...: a recording, linked as $work/name.trace
	local name=$1 envs=()
	shift
	while [[ $1 != -- ]]; do
		envs+=("$1")
		shift
	done
	shift
	local dir=$work/$name
	rm -rf "$dir"
	if ! env "${envs[@]}" "$slubtrace" record -o "$dir" --no-check -- "$@" \
		>"$work/$name.record.log" 2>&1; then
		echo "regress.sh: recording $name failed:" >&2
		tail -5 "$work/$name.record.log" >&2
		exit 2
	fi
	# Only our user's buffers: the session also records other users'
	# instrumented processes, whose buffers may be empty.
	local mine=$dir/ust/uid/$(id -u)
	[[ -d $mine ]] && ln -sfn "$mine" "$work/$name.trace" || ln -sfn "$dir" "$work/$name.trace"
}

record() { # name variant: hackbench, and its rates
	# race-window is an injected fault, the others are 2012 variants
	local var=SLUBTRACE_VARIANT
	[[ $2 == race-window ]] && var=SLUBTRACE_INJECT
	capture "$1" "$var=$2" -- "$hackbench" "${hargs[@]}"
	"$slubtrace" stats --procname hackbench -o "$work/$1.json" --sections rates \
		"$work/$1.trace/" >"$work/$1.rates.txt" || exit 2
}

figure() { # json scope figure -> value
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["rates"]["scopes"]:
    if s["name"] == sys.argv[2]:
        f = s["figures"][sys.argv[3]]
        print("%.4g" % f["value"] if f["den"] > 0 else "-")
        break
PY
}

# runs SIDE NAME FROM TO: --before/--after arguments of runs NAME<FROM..TO>
runs() {
	local i
	for ((i = $3; i <= $4; i++)); do
		printf -- '--%s\n%s\n' "$1" "$work/$2$i.json"
	done
}

for ((i = 1; i <= 2 * runs; i++)); do
	record default$i ""
done
variants=(keep-oldpage perobj-deactivate old-unfreeze-partials free-keep-lock race-window)
for v in "${variants[@]}"; do
	for ((i = 1; i <= runs; i++)); do
		record "$v$i" "$v"
	done
done

ok=1
"$slubtrace" check "$work/default1.trace/" >"$work/check-default.txt" 2>&1 || ok=0
fp=0 pairs=0
for ((a = 1; a <= 2 * runs; a++)); do
	for ((b = 1; b <= 2 * runs; b++)); do
		((a == b)) && continue
		pairs=$((pairs + 1))
		"$slubtrace" diff "$work/default$a.json" "$work/default$b.json" \
			>"$work/diff-default$a-default$b.txt"
		(($? == 0)) || fp=$((fp + 1))
	done
done
mapfile -t before < <(runs before default 1 "$runs")
mapfile -t dd < <(runs after default $((runs + 1)) $((2 * runs)))
"$slubtrace" diff "${before[@]}" "${dd[@]}" >"$work/diff-default.txt"
rc_dd=$?
mapfile -t dd_rev < <(runs before default $((runs + 1)) $((2 * runs)); runs after default 1 "$runs")
"$slubtrace" diff "${dd_rev[@]}" >"$work/diff-default-reverse.txt"
rc_dd_rev=$?
((rc_dd == 0 && rc_dd_rev == 0 && fp == 0)) || ok=0

declare -A key=(
	[keep-oldpage]=cpu_redos_per_drain
	[perobj-deactivate]=word_updates_per_deactivate
	[old-unfreeze-partials]=unfreeze_partials_redos_per_1k
	[free-keep-lock]=kept_lock_redos_per_1k_slow_frees
	[race-window]=redos_per_1k_slow_frees
)
declare -A y2012=(
	[keep-oldpage]="the CAS after a drain fails for nothing (no figure posted)"
	[perobj-deactivate]="one CAS per object when deactivating (the default of 3.1 to 5.11)"
	[old-unfreeze-partials]="Locked Cmpxchg Double redos 182685 -> 177995 with the fix (hackbench 50 process 4000)"
	[free-keep-lock]="the fix drops list_lock before a __slab_free retry (no figure posted)"
	[race-window]="(injection, not a 2012 patch)"
)
# pooled FILE FIGURE: the overall figure of a pooled diff table, before and after
pooled() {
	awk -v f="$2" '$1 == "overall" && $2 == f { print $3 " | " $4; exit }' "$1"
}
echo "| run | diff, $runs runs a side pooled | figure | default | run | regressed figures (overall) | 2012 threads |"
echo "|---|---|---|---|---|---|---|"
echo "| default x$runs (runs $((runs + 1))-$((2 * runs)) vs 1-$runs) | exit $rc_dd (reverse: exit $rc_dd_rev); single runs: $((pairs - fp)) of $pairs pairs exit 0 | - | - | - | $(awk '$1 == "overall" && $NF == "REGRESSED" {print $2}' "$work/diff-default.txt" | paste -sd, -) | - |"
for v in "${variants[@]}"; do
	mapfile -t after < <(runs after "$v" 1 "$runs")
	"$slubtrace" diff "${before[@]}" "${after[@]}" >"$work/diff-$v.txt"
	rc=$?
	reg=$(awk '$1 == "overall" && $NF == "REGRESSED" {print $2}' "$work/diff-$v.txt" | paste -sd, -)
	f=${key[$v]}
	echo "| $v | exit $rc | $f | $(pooled "$work/diff-$v.txt" "$f") | ${reg:--} | ${y2012[$v]} |"
	((rc == 1)) || ok=0
done
echo
echo "Per run, the figure of each variant (\`slubtrace diff\` prints them under its table):"
echo
echo '```'
for v in "${variants[@]}"; do
	grep -h "^  ${key[$v]} " "$work/diff-$v.txt" | sed "s/^ /$v:/"
done
echo '```'
# The injected faults: one recording each of the bundled workload on 2
# nodes (hackbench deactivates too few slabs for lost-unfreeze to fire),
# `slubtrace check` offline.
workload=$PWD/$build/examples/slub-workload
inject() { # name fault
	capture "$1" SLUBTRACE_INJECT="$2" SLUBTRACE_NODES=2 -- "$workload" -g 2 -t 3 -m 1500 -r 2
}
declare -A rule=(
	[unlocked-list]=R3-list-unlocked
	[lost-update]=R5-word
	[double-freeze]=R2-freeze-unfrozen
	[lost-unfreeze]=R4-list-at-unlock
	[wrong-owner-unfreeze]=R1-owner
	[early-discard]=R6-discard
)
injections=(unlocked-list lost-update double-freeze lost-unfreeze wrong-owner-unfreeze early-discard)
echo
echo "| injection (bundled workload, 2 nodes) | \`slubtrace check\` | violations by rule | expected rule |"
echo "|---|---|---|---|"
for j in "${injections[@]}"; do
	inject "inject-$j" "$j"
	"$slubtrace" check --max-reports 0 "$work/inject-$j.trace/" >"$work/check-$j.txt" 2>&1
	rc=$?
	byrule=$(sed -n 's/^violation [0-9]*: \([A-Za-z0-9-]*\):.*/\1/p' "$work/check-$j.txt" |
		sort | uniq -c | sort -rn | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')
	echo "| $j | exit $rc | ${byrule:--} | ${rule[$j]} |"
	((rc == 1)) && grep -q "^violation [0-9]*: ${rule[$j]}" "$work/check-$j.txt" || ok=0
done
echo
echo "default run 1: \`slubtrace check\` $(tail -1 "$work/check-default.txt")"

"$slubtrace" storms --procname hackbench --max-storms 1 "$work/race-window1.trace/" >"$work/storms.txt"
storms=$(sed -n 's/^Retry storms: \([0-9]*\).*/\1/p' "$work/storms.txt")
echo
echo "race-window: \`slubtrace storms\` found ${storms:-0} storms; the largest run:"
echo
echo '```'
sed -n '/#1 run storm/,/winners:/p' "$work/storms.txt"
echo '```'
((${storms:-0} > 0)) || ok=0
echo
echo "traces and reports: $work"
((ok)) && exit 0 || exit 1
