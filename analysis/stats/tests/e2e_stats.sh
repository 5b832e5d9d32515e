#!/bin/sh
# e2e_stats.sh BUILD_DIR: slubtrace stats, storms and diff on traces recorded
# with `slubtrace record` (a real LTTng session) of the hackbench benchmark:
#  - stats prints the slabinfo page of kmalloc-128 and a readable JSON;
#  - diff of a trace against itself exits 0;
#  - keep-oldpage and perobj-deactivate against the default exit 1, on the
#    figures their code paths fix (cpu chain redos per drain, slab-word
#    updates per deactivation), not on interleaving-dependent ones;
#  - under race-window, storms are found and name losers, winners and site,
#    with a loser's symbolized stack (record's default --stacks cmpxchg_fail).
# Exit 77 (skipped) without lttng.
build=$1
slubtrace=$build/src/cli/slubtrace
hackbench=$build/tests/bench/hackbench
command -v lttng >/dev/null 2>&1 || { echo "no lttng: skipped"; exit 77; }
. "$(dirname "$0")/as-user.sh"
work=$(mktemp -d /tmp/slubtrace-e2e-stats.XXXXXX)
trap 'rm -rf "$work"' EXIT
export LTTNG_HOME="$work"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

record() { # name [SLUBTRACE_VARIANT=...|SLUBTRACE_INJECT=...]
	env ${2:+"$2"} "$slubtrace" record -o "$work/$1" --no-check -- "$hackbench" \
		-g 2 -f 4 -l 1500 >"$work/$1.log" 2>&1 || { cat "$work/$1.log"; bad "record $1"; return; }
	# Only our user's buffers: the session records every user's instrumented processes.
	t=$work/$1/ust/uid/$(id -u)
	"$slubtrace" stats --procname hackbench -o "$work/$1.json" "$t" >"$work/$1.txt" ||
		bad "stats $1 exit $?"
}

record default ""
record keep SLUBTRACE_VARIANT=keep-oldpage
record perobj SLUBTRACE_VARIANT=perobj-deactivate
record race SLUBTRACE_INJECT=race-window

grep -q "^Slabcache: kmalloc-128 " "$work/default.txt" || bad "no slabinfo page for kmalloc-128"
grep -q "Locked Cmpxchg Double redos" "$work/default.txt" || bad "no redo figures"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$work/default.json" || bad "JSON unreadable"

"$slubtrace" diff "$work/default.json" "$work/default.json" >/dev/null
[ $? -eq 0 ] || bad "diff of a trace against itself"
"$slubtrace" diff "$work/default/ust/uid/$(id -u)" "$work/default.json" --procname hackbench >/dev/null
[ $? -eq 0 ] || bad "diff of a trace directory against its own report"
"$slubtrace" diff "$work/default.json" "$work/keep.json" >"$work/keep.diff"
[ $? -eq 1 ] || bad "keep-oldpage not a regression"
grep -q "^overall .*cpu_redos_per_drain .*REGRESSED" "$work/keep.diff" || bad "keep-oldpage: cpu_redos_per_drain"
"$slubtrace" diff "$work/default.json" "$work/perobj.json" >"$work/perobj.diff"
[ $? -eq 1 ] || bad "perobj-deactivate not a regression"
grep -q "^overall .*word_updates_per_deactivate .*REGRESSED" "$work/perobj.diff" ||
	bad "perobj-deactivate: word_updates_per_deactivate"

"$slubtrace" storms --procname hackbench "$work/race/ust/uid/$(id -u)" >"$work/storms.txt" ||
	bad "storms exit $?"
n=$(sed -n 's/^Retry storms: \([0-9]*\).*/\1/p' "$work/storms.txt")
[ "${n:-0}" -gt 0 ] || bad "race-window: no storm"
grep -q "storm: kmalloc" "$work/storms.txt" || bad "race-window: storm without cache"
grep -q "losers: vtid" "$work/storms.txt" || bad "race-window: storm without losers"
grep -Eq "winners: vtid [0-9]+ [a-z_]+@" "$work/storms.txt" || bad "race-window: storm without winners and sites"
grep -q "stack of vtid" "$work/storms.txt" || bad "race-window: no storm with a stack"
grep -Eq "#[0-9]+ +0x[0-9a-f]+ slab_update(_failed)?\+" "$work/storms.txt" || bad "race-window: stack not symbolized"
sed -n '/#1 /,/#2 /p' "$work/storms.txt"
[ $fail -eq 0 ] && echo "e2e_stats: ok"
exit $fail
