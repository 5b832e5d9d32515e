#!/bin/sh
# seeds-compare.sh BUILD_DIR [RUNS]: every seed variant of 2020-2024 through
# `slubtrace compare` (untraced timing runs, interleaved, RUNS per side,
# default 5), one table row per figure of interest: the seed's own figure,
# what compare measured here (change and its 95 % interval, Welch's t).
#   partial-counters, partial-counters-pcp, partial-scan-bounded against the
#     6.1 walk on partial_jitter (50,000 partial slabs, 2 allocating
#     threads, a slabinfo read every 10 ms): the allocating threads' p99.9
#     and maximum allocation latency, the reader's longest read;
#   prefetch-freelist against the default on hackbench -Q (in-memory
#     queues: allocation-bound, where pipes would be syscall-bound).
# Prints figures only; never a pass/fail on time.
build=$1 runs=${2:-5}
st=$build/src/cli/slubtrace
work=$(mktemp -d /tmp/slubtrace-seeds.XXXXXX)
trap 'rm -rf "$work"' EXIT

cmp() { # name variant figures... -- cmd
	name=$1 variant=$2
	shift 2
	"$st" compare --timing-only -n "$runs" --json --after-env "SLUBTRACE_VARIANT=$variant" \
		"$@" >"$work/$name.json"
	echo "$name exit $?" >"$work/$name.rc"
}

jit="$build/tests/bench/partial_jitter -s 50000 -t 2 -d 1 -i 10"
# shellcheck disable=SC2086
cmp counters partial-counters -- $jit
# shellcheck disable=SC2086
cmp counters-pcp partial-counters-pcp -- $jit
# shellcheck disable=SC2086
cmp bounded partial-scan-bounded -- $jit
cmp prefetch prefetch-freelist -- "$build/tests/bench/hackbench" -g 10 -f 5 -l 20000 -Q

python3 - "$work" "$runs" <<'PY'
import json, os, sys
work, runs = sys.argv[1], sys.argv[2]
rows = [
    ("partial-counters", "counters", "2020 v2 1-2: hackbench 19.21 s -> 21.73 s (+13 %)",
     ["slabinfo_mean_ns", "alloc_p999_ns", "alloc_max_ns", "wall_s"]),
    ("partial-counters-pcp", "counters-pcp", "2020 v2 1-3: 19.11 s (-0.5 %)",
     ["slabinfo_mean_ns", "alloc_p999_ns", "alloc_max_ns", "wall_s"]),
    ("partial-scan-bounded", "bounded", "6.10: at most 10,000 slabs walked",
     ["slabinfo_mean_ns", "slabinfo_max_ns", "slabinfo_scanned_max", "alloc_p999_ns", "alloc_max_ns"]),
    ("prefetch-freelist", "prefetch", "2024: hackbench -g 100 -l 1000 17.07 s -> 16.42 s (-3.8 %, arm64)",
     ["wall_s"]),
]
print(f"| variant | seed's figure | workload | figure | before (mean +- sd) | after | change | 95 % CI (Welch) | verdict |")
print("|---|---|---|---|---|---|---|---|---|")
for var, key, seed, figs in rows:
    r = json.load(open(os.path.join(work, key + ".json")))
    f = {x["name"]: x for x in r["figures"]}
    wl = os.path.basename(r["command"][0])
    for name in figs:
        x = f.get(name)
        if not x:
            continue
        b, a = x["before"], x["after"]
        ci = x.get("ci_pct")
        cis = f"[{ci[0]:+.1f} %, {ci[1]:+.1f} %]" if ci and ci[0] is not None else "-"
        verdict = x["verdict"]
        if verdict == "not distinguishable" and ci and ci[0] is not None:
            verdict = f"not distinguishable from 0 at +-{(ci[1]-ci[0])/2:.1f} %"
        chg = f"{x['diff_pct']:+.1f} %" if x["diff_pct"] is not None else "-"
        print(f"| {var} | {seed} | {wl} | {name} | {b['mean']:.4g} +- {b['sd']:.2g} | "
              f"{a['mean']:.4g} +- {a['sd']:.2g} | {chg} | {cis} | {verdict} |")
        seed = ""
print(f"\n({runs} untraced runs per side, interleaved; `slubtrace compare --timing-only -n {runs}`)")
PY
