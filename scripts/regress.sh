#!/usr/bin/env bash
# The regression-hunting proving ground: record the same hackbench run with
# the default allocator (several times) and with each 2012 variant and the
# race-window injection, then print what `slubtrace diff` and `slubtrace
# storms` say, as the Markdown table of the README.
#
#   scripts/regress.sh [-n DEFAULT_RUNS] [-o WORK_DIR] [-- HACKBENCH ARGS]
#
# Needs a built tree (BUILD_DIR, default build) and LTTng.  Exit status 0
# when every expectation held: default against default exits 0 for every
# pair, keep-oldpage and perobj-deactivate and race-window exit 1, storms
# are found under race-window; 1 otherwise.
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
	-h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) echo "regress.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
hargs=("$@")
((${#hargs[@]})) || hargs=(-g 4 -f 4 -l 1000)
[[ -x $slubtrace && -x $hackbench ]] || { echo "regress.sh: build first ($build)" >&2; exit 2; }
[[ -n $work ]] || work=$(mktemp -d /tmp/slubtrace-regress.XXXXXX)
mkdir -p "$work"

record() { # name variant
	local dir=$work/$1
	rm -rf "$dir"
	# race-window is an injected fault, the others are 2012 variants
	local var=SLUBTRACE_VARIANT
	[[ $2 == race-window ]] && var=SLUBTRACE_INJECT
	if ! env "$var=$2" "$slubtrace" record -o "$dir" --no-check -- "$hackbench" \
		"${hargs[@]}" >"$work/$1.record.log" 2>&1; then
		echo "regress.sh: recording $1 failed:" >&2
		tail -5 "$work/$1.record.log" >&2
		exit 2
	fi
	# Only our user's buffers: the session also records other users'
	# instrumented processes, whose buffers may be empty.
	local mine=$dir/ust/uid/$(id -u)
	[[ -d $mine ]] && ln -sfn "$mine" "$work/$1.trace" || ln -sfn "$dir" "$work/$1.trace"
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

names=()
for ((i = 1; i <= runs; i++)); do
	record default$i ""
	names+=(default$i)
done
variants=(keep-oldpage perobj-deactivate old-unfreeze-partials free-keep-lock race-window)
for v in "${variants[@]}"; do
	record "$v" "$v"
done

ok=1
fp=0 pairs=0
for a in "${names[@]}"; do
	for b in "${names[@]}"; do
		[[ $a == "$b" ]] && continue
		pairs=$((pairs + 1))
		"$slubtrace" diff "$work/$a.json" "$work/$b.json" >"$work/diff-$a-$b.txt"
		rc=$?
		((rc == 0)) || { fp=$((fp + 1)); ok=0; }
	done
done

declare -A key=(
	[keep-oldpage]=cpu_redos_per_drain
	[perobj-deactivate]=word_updates_per_deactivate
	[old-unfreeze-partials]=locked_redos_per_1k_slow_frees
	[free-keep-lock]=lock_hold_ns_per_acq
	[race-window]=redos_per_1k_slow_frees
)
declare -A y2012=(
	[keep-oldpage]="the CAS after a drain fails for nothing (no figure posted)"
	[perobj-deactivate]="one CAS per object when deactivating (the default of 3.1 to 5.11)"
	[old-unfreeze-partials]="Locked Cmpxchg Double redos 182685 -> 177995 with the fix (hackbench 50 process 4000)"
	[free-keep-lock]="list_lock held across __slab_free redos (no figure posted)"
	[race-window]="(injection, not a 2012 patch)"
)
echo "| run | diff vs default1 | figure | default1 | run | regressed figures (overall) | 2012 threads |"
echo "|---|---|---|---|---|---|---|"
echo "| default x$runs | $((pairs - fp)) of $pairs pairs exit 0 | - | - | - | - | - |"
for v in "${variants[@]}"; do
	"$slubtrace" diff "$work/default1.json" "$work/$v.json" >"$work/diff-$v.txt"
	rc=$?
	reg=$(awk '$1 == "overall" && $NF == "REGRESSED" {print $2}' "$work/diff-$v.txt" | paste -sd, -)
	f=${key[$v]}
	echo "| $v | exit $rc | $f | $(figure "$work/default1.json" overall "$f") |" \
		"$(figure "$work/$v.json" overall "$f") | ${reg:--} | ${y2012[$v]} |"
	case $v in
	keep-oldpage|perobj-deactivate|race-window) ((rc == 1)) || ok=0 ;;
	esac
done
"$slubtrace" storms --procname hackbench --max-storms 1 "$work/race-window.trace/" >"$work/storms.txt"
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
