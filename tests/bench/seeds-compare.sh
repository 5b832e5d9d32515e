#!/bin/sh
# seeds-compare.sh BUILD_DIR [RUNS] [WORK_DIR]: every seed variant through
# `slubtrace compare` (RUNS untraced timing runs and RUNS recorded runs per
# side, interleaved, default 3), then `slubtrace check` on every recording
# of both sides and `slubtrace stats` on the first of each side.  Prints the
# proving ground's rows for the seeds, in the format of the table in
# doc/analysis.md (a row per variant: the pooled diff's exit, its figure
# before and after, the figures it judged regressed, the seed's own figure)
# with two more columns: what compare measured untraced (the change of the
# workload's figure with its 95 % interval, Welch's t, and its direction)
# and the state model's verdicts on all 2 x RUNS recordings.  Then the tails
# of the count_partial variants: the allocating threads' own p99 and max
# latency (the workload's figures, compare's intervals) and the pooled
# diff's list_lock wait and hold p99 and max of the jitter cache, beside
# the structure that explains them: the reads, and the most slabs the
# reader walked in one list_lock hold (slabinfo_walk, from the first
# recording of each side), and diff's judged figures of what the holds did
# (walk_slabs_max, walks_per_1k_acq, walk_hold_max_ns, pooled).
#   the 2012 four (keep-oldpage, perobj-deactivate, old-unfreeze-partials,
#     free-keep-lock) on hackbench -g 4 -f 4 -l 6000, the proving ground's
#     run: the figure is the code-path figure of the diff;
#   partial-counters, partial-counters-pcp, partial-scan-bounded against the
#     6.1 walk on partial_jitter (-s 30000 partial slabs, 2 allocating
#     threads, a slabinfo read every 10 ms): the reader's mean read, and from
#     the traces the most slabs walked in one list_lock hold;
#   prefetch-freelist on hackbench -Q (in-memory queues).
# SEEDS_ONLY="v1 v2" runs those variants only; SEEDS_TABLE_ONLY=1 with
# WORK_DIR prints the tables of a finished run again; SEEDS_KEEP_TRACES=1
# keeps the recordings (partial_jitter's are ~150 MB each).
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
	# SEEDS_ONLY="v1 v2": those variants only (their table rows are redone)
	case " ${SEEDS_ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	shift 3
	echo "seeds: $name ($variant), $runs runs a side: $*" >&2
	rm -rf "$work/$name"
	"$st" compare -n "$runs" --json -o "$work/$name" \
		--after-env "SLUBTRACE_VARIANT=$variant" -- "$@" >"$work/$name.json" \
		2>"$work/$name.log"
	echo $? >"$work/$name.rc"
	# every recording of both sides through the state model: a false
	# violation of a new event would show on the default side too
	for side in before after; do
		k=1
		while [ "$k" -le "$runs" ]; do
			"$st" check "$work/$name/$side-$k" >"$work/$name.$side-$k.check" 2>&1
			echo $? >"$work/$name.$side-$k.check.rc"
			k=$((k + 1))
		done
		"$st" stats --procname "$(basename "$1")" -o "$work/$name.$side.stats.json" \
			"$work/$name/$side-1" >/dev/null 2>&1
	done
	# the traces are large (partial_jitter: ~150 MB each): kept on request
	[ -n "${SEEDS_KEEP_TRACES:-}" ] || rm -rf "${work:?}/$name"
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
import json, os, re, sys
work, runs = sys.argv[1], int(sys.argv[2])
# variant, the seed's own figure, the diff figure of the row (None: the
# workload's figure from compare), the workload figure compare reports
rows = [
    ("keep-oldpage", "2012: the CAS after a drain fails for nothing (no figure posted)",
     "cpu_redos_per_drain", "wall_s"),
    ("perobj-deactivate", "2012: one CAS per object when deactivating (3.1 to 5.11)",
     "word_updates_per_deactivate", "wall_s"),
    ("old-unfreeze-partials", "2012: Locked Cmpxchg Double redos 182685 -> 177995 with the fix",
     "unfreeze_partials_redos_per_1k", "wall_s"),
    ("free-keep-lock", "2012: the fix drops list_lock before a __slab_free retry (no figure posted)",
     "kept_lock_redos_per_1k_slow_frees", "wall_s"),
    ("partial-counters", "2020 v2 patches 1-2: no walk; hackbench 19.21 s -> 21.73 s (+13 %)",
     None, "slabinfo_mean_ns"),
    ("partial-counters-pcp", "2020 v2 patches 1-3: no walk; 19.11 s (-0.5 %)", None,
     "slabinfo_mean_ns"),
    ("partial-scan-bounded", "6.10: at most 10,000 partial slabs scanned, the rest extrapolated",
     None, "slabinfo_mean_ns"),
    ("prefetch-freelist", "2024: hackbench -g 100 -l 1000 17.07 s -> 16.42 s (-3.8 %, arm64)",
     None, "wall_s"),
]
JITTER = "jitter-256"


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def fmt(v):
    return "-" if v is None else ("%.4g" % v)


def cfig(r, name):
    for x in (r or {}).get("figures", []):
        if x["name"] == name:
            return x
    return None


def timing(x, short=False):
    """compare's change of one figure: direction and 95 % interval."""
    if not x or x.get("diff_pct") is None or not x.get("ci_pct") or x["ci_pct"][0] is None:
        return "-"
    lo, hi = x["ci_pct"]
    if x.get("significant"):
        d = "lower" if x["diff_pct"] < 0 else "higher"
    else:
        d = f"not distinguishable from 0 at +-{(hi - lo) / 2:.1f} %"
    body = f"{x['diff_pct']:+.1f} % [{lo:+.1f} %, {hi:+.1f} %], {d}"
    if short:
        return f"{fmt(x['before']['mean'])} -> {fmt(x['after']['mean'])}: {body}"
    return f"{x['name']} {fmt(x['before']['mean'])} -> {fmt(x['after']['mean'])}: {body}"


def dfig(r, name, scope="overall"):
    for x in ((r or {}).get("diff") or {}).get("figures", []):
        if x["name"] == name and x["scope"] == scope:
            return x
    return None


def walk(path):
    """(reads, most slabs walked in one hold, slabs listed then) of a side."""
    d = load(path)
    for c in (d or {}).get("caches", []):
        if c.get("name") == JITTER:
            l = c.get("lock", {})
            return (l.get("slabinfo_walks", 0), l.get("walked_max", 0),
                    l.get("walked_max_listed", 0))
    return None


def checks(var):
    """The verdicts of every recording: clean count, violations, events."""
    n = clean = viol = events = 0
    for side in ("before", "after"):
        for k in range(1, runs + 1):
            try:
                text = open(os.path.join(work, f"{var}.{side}-{k}.check")).read()
            except OSError:
                continue
            n += 1
            m = re.search(r"^verdict: (\w+): (\d+) events, \d+ slabs, (\d+) violations", text, re.M)
            if m:
                clean += m.group(1) == "clean"
                events += int(m.group(2))
                viol += int(m.group(3))
    return n, clean, viol, events


print(f"| run | diff, {runs} runs a side pooled | figure | default | run | "
      f"regressed figures (overall) | seed's figure | compare, untraced, {runs} runs a side "
      f"(change, 95 % CI, Welch) | check, {2 * runs} recordings |")
print("|---|---|---|---|---|---|---|---|---|")
for var, seed, fig, tfig in rows:
    r = load(os.path.join(work, var + ".json"))
    if r is None:
        print(f"| {var} | not run | | | | | {seed} | | |")
        continue
    rc = (r or {}).get("exit")
    reg = sorted({x["name"] for x in ((r.get("diff") or {}).get("figures", []))
                  if x["verdict"] == "regressed" and x["scope"] == "overall"})
    if fig:
        x = dfig(r, fig)
        fname, fb, fa = fig, fmt(x and x["before"]), fmt(x and x["after"])
    else:
        # the count_partial variants: the most slabs walked in one list_lock
        # hold; prefetch: its own figure is the run time
        wb = walk(os.path.join(work, var + ".before.stats.json"))
        wa = walk(os.path.join(work, var + ".after.stats.json"))
        if var.startswith("partial-"):
            fname = "slabs walked in one list_lock hold (most)"
            fb = f"{wb[1]} of {wb[2]}" if wb and wb[0] else "0 (no walk)"
            fa = f"{wa[1]} of {wa[2]}" if wa and wa[0] else "0 (no walk)"
        else:
            x = cfig(r, "wall_s")
            fname = "wall_s (untraced mean)"
            fb, fa = fmt(x and x["before"]["mean"]), fmt(x and x["after"]["mean"])
    n, clean, viol, events = checks(var)
    ck = f"{clean} of {n} clean, {viol} violations ({events / max(n, 1) / 1e3:.0f}k events each)"
    print(f"| {var} | exit {rc} | {fname} | {fb} | {fa} | {','.join(reg)} | {seed} | "
          f"{timing(cfig(r, tfig))} | {ck} |")

print()
print(f"The count_partial variants against the 6.1 walk, tails ({runs} untraced runs a side "
      f"for the workload's own latency, mean of the per-run figure -> mean, 95 % CI; "
      f"{runs} recordings a side pooled for the list_lock tails of {JITTER}, diff's verdict):")
print()
print("| variant | reads, slabs walked in the longest walk (default -> variant) | "
      "alloc p99 ns | alloc max ns | free p99 ns | free max ns | "
      "lock wait p99 / max ns | lock hold p99 / max ns | "
      "walk_slabs_max | walks_per_1k_acq | walk_hold_max_ns |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for var, _, _, _ in rows:
    if not var.startswith("partial-"):
        continue
    r = load(os.path.join(work, var + ".json"))
    if r is None:
        continue
    wb = walk(os.path.join(work, var + ".before.stats.json")) or (0, 0, 0)
    wa = walk(os.path.join(work, var + ".after.stats.json")) or (0, 0, 0)
    ws = (f"{wb[0]} reads, {wb[1]} of {wb[2]} -> " +
          (f"{wa[0]} reads, {wa[1]} of {wa[2]}" if wa[0] else "no walk"))
    cells = [timing(cfig(r, n), short=True)
             for n in ("alloc_p99_ns", "alloc_max_ns", "free_p99_ns", "free_max_ns")]
    for kind in ("wait", "hold"):
        p99, mx = dfig(r, f"lock_{kind}_p99_ns", JITTER), dfig(r, f"lock_{kind}_max_ns", JITTER)
        cells.append("-" if not (p99 and mx) else
                     f"{fmt(p99['before'])} -> {fmt(p99['after'])} ({p99['verdict']}) / "
                     f"{fmt(mx['before'])} -> {fmt(mx['after'])} ({mx['verdict']})")
    # what the holds did: diff's figures of the pooled recordings
    for n in ("walk_slabs_max", "walks_per_1k_acq", "walk_hold_max_ns"):
        x = dfig(r, n, JITTER)
        cells.append("-" if not x else
                     f"{fmt(x['before'])} -> {fmt(x['after'])} ({x['verdict']})")
    print(f"| {var} | {ws} | " + " | ".join(cells) + " |")
print(f"\n(regenerated by `tests/bench/seeds-compare.sh BUILD {runs}`: `slubtrace compare "
      f"-n {runs} --after-env SLUBTRACE_VARIANT=V -- WORKLOAD` per variant, `slubtrace check` "
      f"on every recording, `slubtrace stats` on the first of each side)")
PY
