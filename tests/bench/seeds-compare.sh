#!/bin/sh
# seeds-compare.sh BUILD_DIR [RUNS] [WORK_DIR]: every seed variant through
# `slubtrace compare` (RUNS untraced timing runs and RUNS recorded runs per
# side, interleaved, default 3), then `slubtrace check` on the first
# recording of the variant's side and `slubtrace stats` on the first of
# each side, printed as one Markdown table, a row per variant: the seed's
# own figure, what compare measured here (the change of the workload's
# figure with its 95 % interval, Welch's t), what the pooled trace diff said
# (its exit, the figures it judged regressed or improved, the tails of
# list_lock hold), and the check's verdict.
#   the 2012 four (keep-oldpage, perobj-deactivate, old-unfreeze-partials,
#     free-keep-lock) on hackbench -g 4 -f 4 -l 6000, the proving ground's
#     run: the figure is the code-path figure of the diff;
#   partial-counters, partial-counters-pcp, partial-scan-bounded against the
#     6.1 walk on partial_jitter (-s 30000 partial slabs, 2 allocating
#     threads, a slabinfo read every 10 ms): the reader's mean read, and from
#     the traces the most slabs walked in one list_lock hold (slabinfo_walk);
#   prefetch-freelist on hackbench -Q (in-memory queues).
# SEEDS_TABLE_ONLY=1 with WORK_DIR prints the table of a finished run again.
# Prints figures only; never a pass/fail on time.  As root it runs as
# nobody under a private LTTNG_HOME (a root session daemon would record
# every other user's traced program too).
set -u
build=$(cd "$1" && pwd) runs=${2:-3}
work=${3:-}
if [ -z "${SEEDS_TABLE_ONLY:-}" ] && [ "$(id -u)" = 0 ] && [ -z "${SEEDS_AS_USER:-}" ] && command -v setpriv >/dev/null &&
	id nobody >/dev/null 2>&1; then
	[ -n "$work" ] || work=$(mktemp -d /tmp/slubtrace-seeds.XXXXXX)
	chmod 777 "$work"
	exec setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups \
		env SEEDS_AS_USER=1 HOME="$work" LTTNG_HOME="$work" sh "$0" "$build" "$runs" "$work"
fi
st=$build/src/cli/slubtrace
if [ -z "$work" ]; then
	work=$(mktemp -d /tmp/slubtrace-seeds.XXXXXX)
	export LTTNG_HOME="$work"
fi

one() { # name variant -- cmd...: compare, check, stats
	name=$1 variant=$2
	shift 3
	echo "seeds: $name ($variant), $runs runs a side: $*" >&2
	rm -rf "$work/$name"
	"$st" compare -n "$runs" --json -o "$work/$name" \
		--after-env "SLUBTRACE_VARIANT=$variant" -- "$@" >"$work/$name.json" \
		2>"$work/$name.log"
	echo $? >"$work/$name.rc"
	"$st" check "$work/$name/after-1" >"$work/$name.check" 2>&1
	echo $? >"$work/$name.check.rc"
	for side in before after; do
		"$st" stats --procname "$(basename "$1")" -o "$work/$name.$side.stats.json" \
			"$work/$name/$side-1" >/dev/null 2>&1
	done
}

hb="$build/tests/bench/hackbench -g 4 -f 4 -l 6000"
jit="$build/tests/bench/partial_jitter -s 30000 -t 2 -d 1 -i 10"
# shellcheck disable=SC2086
[ -n "${SEEDS_TABLE_ONLY:-}" ] || {
one keep-oldpage keep-oldpage -- $hb
one perobj-deactivate perobj-deactivate -- $hb
one old-unfreeze-partials old-unfreeze-partials -- $hb
one free-keep-lock free-keep-lock -- $hb
one partial-counters partial-counters -- $jit
one partial-counters-pcp partial-counters-pcp -- $jit
one partial-scan-bounded partial-scan-bounded -- $jit
one prefetch-freelist prefetch-freelist -- $hb -Q
}

python3 - "$work" "$runs" <<'PY'
import json, os, sys
work, runs = sys.argv[1], sys.argv[2]
rows = [
    ("keep-oldpage", "2012: the CAS after a drain fails for nothing (no figure posted)",
     "cpu_redos_per_drain", None),
    ("perobj-deactivate", "2012: one CAS per object when deactivating (3.1 to 5.11)",
     "word_updates_per_deactivate", None),
    ("old-unfreeze-partials", "2012: Locked Cmpxchg Double redos 182685 -> 177995 with the fix",
     "unfreeze_partials_redos_per_1k", None),
    ("free-keep-lock", "2012: the fix drops list_lock before a __slab_free retry (no figure)",
     "kept_lock_redos_per_1k_slow_frees", None),
    ("partial-counters", "2020 v2 1-2: no walk; hackbench 19.21 s -> 21.73 s (+13 %)",
     None, "slabinfo_mean_ns"),
    ("partial-counters-pcp", "2020 v2 1-3: no walk; 19.11 s (-0.5 %)", None, "slabinfo_mean_ns"),
    ("partial-scan-bounded", "6.10: at most 10,000 slabs walked, the rest extrapolated",
     None, "slabinfo_mean_ns"),
    ("prefetch-freelist", "2024: hackbench -g 100 -l 1000 17.07 s -> 16.42 s (-3.8 %, arm64)",
     None, "wall_s"),
]

def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None

def fmt(v):
    return "-" if v is None else ("%.4g" % v)

def timing(r, name):
    for x in r["figures"] if r else []:
        if x["name"] == name:
            ci = x.get("ci_pct")
            if not ci or ci[0] is None or x["diff_pct"] is None:
                return f"{name}: -"
            if x.get("significant"):
                d = "lower" if x["diff_pct"] < 0 else "higher"
            else:
                d = f"not distinguishable from 0 at +-{(ci[1] - ci[0]) / 2:.1f} %"
            return (f"{name} {fmt(x['before']['mean'])} -> {fmt(x['after']['mean'])}: "
                    f"{x['diff_pct']:+.1f} %, CI [{ci[0]:+.1f} %, {ci[1]:+.1f} %], {d}")
    return f"{name}: -"

def diff_fig(r, name, scope=None):
    for x in (r or {}).get("diff") and r["diff"]["figures"] or []:
        if x["name"] == name and (scope is None or x["scope"] == scope):
            return x
    return None

def walk(path):
    d = load(path)
    best = None
    for c in (d or {}).get("caches", []):
        w = c.get("lock", {}).get("walked_max")
        if w is not None and (best is None or w > best[0]):
            best = (w, c["lock"].get("walked_max_listed"), c["lock"].get("slabinfo_walks"))
    return best

print("| variant | seed's figure | workload | compare (untraced, 95 % CI, Welch) | "
      "diff (recorded, pooled) | list_lock hold p99 / max (ns, overall) | slabs walked in one hold | check |")
print("|---|---|---|---|---|---|---|---|")
for var, seed, dfig, tfig in rows:
    r = load(os.path.join(work, var + ".json"))
    rc = open(os.path.join(work, var + ".rc")).read().strip()
    wl = " ".join(os.path.basename(a) if "/" in a else a for a in (r or {}).get("command", ["?"]))
    cmp = timing(r, tfig) if tfig else timing(r, "wall_s")
    reg = [x for x in ((r or {}).get("diff") or {}).get("figures", []) if x["verdict"] == "regressed"]
    imp = [x for x in ((r or {}).get("diff") or {}).get("figures", []) if x["verdict"] == "improved"]
    ds = f"compare exit {rc}"
    if dfig:
        x = diff_fig(r, dfig, "overall")
        if x:
            ds += f"; {dfig} {fmt(x['before'])} -> {fmt(x['after'])} ({x['verdict']})"
    if reg:
        ds += "; regressed: " + ", ".join(sorted({x["name"] for x in reg}))
    if imp:
        ds += "; improved: " + ", ".join(sorted({x["name"] for x in imp}))
    p99, mx = diff_fig(r, "lock_hold_p99_ns", "overall"), diff_fig(r, "lock_hold_max_ns", "overall")
    tails = "-"
    if p99 and mx:
        tails = (f"{fmt(p99['before'])} -> {fmt(p99['after'])} / "
                 f"{fmt(mx['before'])} -> {fmt(mx['after'])}")
    wb, wa = walk(os.path.join(work, var + ".before.stats.json")), \
        walk(os.path.join(work, var + ".after.stats.json"))
    ws = "-"
    if wb or wa:
        ws = (f"{wb[0] if wb else 0} of {wb[1] if wb else 0} -> "
              f"{wa[0] if wa else 0}" + (f" of {wa[1]}" if wa else " (no walk)"))
    ck = "-"
    try:
        lines = open(os.path.join(work, var + ".check")).read().splitlines()
        ck = next((l for l in reversed(lines) if l.startswith("verdict")), lines[-1] if lines else "-")
        ck = ck.split(", skipped rules")[0]
    except OSError:
        pass
    print(f"| {var} | {seed} | {wl} | {cmp} | {ds} | {tails} | {ws} | {ck} |")
print(f"\n({runs} untraced and {runs} recorded runs per side, interleaved: `slubtrace compare "
      f"-n {runs} --after-env SLUBTRACE_VARIANT=V`; check on the variant's first recording; "
      f"walks from `slubtrace stats` of the first recording of each side)")
PY
