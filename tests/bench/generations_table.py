#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The side-by-side tables of tests/bench/generations.sh.

generations_table.py WORKDIR SIZE CPUS LOADAVG

WORKDIR holds workloads.txt (name|preload|command a line) and, for the
workload on line i and each generation g, wI-g.time (/usr/bin/time -f
"%e %M"), wI-g.json (slubtrace stats -o) and wI.diff (slubtrace diff
classic sheaves).  Prints markdown: one table a workload and a summary.
"""
import json
import os
import sys

GENS = ("classic", "sheaves")
# (row label, how to get it from a report, diff figure or None)
ROWS = [
    ("wall s (untraced)", "time:0", None),
    ("max RSS KiB (untraced)", "time:1", None),
    ("allocations (traced)", "allocs", None),
    ("slabs peak", "fig:slabs_peak", "slabs_peak"),
    ("slabs mean", "fig:slabs_mean", "slabs_mean"),
    ("partial slabs peak", "fig:partial_slabs_peak", "partial_slabs_peak"),
    ("partial slabs mean", "fig:partial_slabs_mean", "partial_slabs_mean"),
    ("free objects per partial slab", "fig:free_objs_per_partial_slab",
     "free_objs_per_partial_slab"),
    ("object slots unused %", "fig:slab_unused_pct", "slab_unused_pct"),
    ("slabs touched per 1,000 allocations", "fig:slabs_touched_per_1k_allocs",
     "slabs_touched_per_1k_allocs"),
    ("list_lock acquisitions per 1,000 allocations", "fig:lock_acq_per_1k_allocs",
     "lock_acq_per_1k_allocs"),
    ("list_lock waits per 1,000 allocations", "fig:lock_waits_per_1k_allocs",
     "lock_waits_per_1k_allocs"),
    ("slab-word cmpxchg redos per 1,000 allocations", "fig:redos_per_1k_allocs",
     "redos_per_1k_allocs"),
    ("slabs made / discarded", "occ:slabs", "slab_churn_per_1k_allocs"),
    ("pages made / discarded", "occ:pages", "page_churn_per_1k_allocs"),
    ("events discarded", "discarded", None),
]
PREDICTION = ("partial_slabs_mean", "slabs_touched_per_1k_allocs", "slab_unused_pct")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_time(path):
    try:
        with open(path) as f:
            last = [l.split() for l in f if l.strip()][-1]
        return float(last[0]), int(last[1])
    except (OSError, ValueError, IndexError):
        return None


def verdicts(path):
    """diff's verdict of each overall figure."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) >= 6 and p[0] == "overall":
                    out[p[1]] = " ".join(p[5:])
    except OSError:
        pass
    return out


def fmt(x):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if isinstance(x, int) or float(x).is_integer():
        return "{:,}".format(int(x))
    if abs(x) < 0.01:
        return "{:.2g}".format(x)
    return "{:,.2f}".format(x) if abs(x) < 1000 else "{:,.0f}".format(x)


def value(rep, tm, how):
    kind, _, key = how.partition(":")
    if kind == "time":
        return tm[int(key)] if tm else None
    if rep is None:
        return None
    caches = rep.get("caches", [])
    if kind == "allocs":
        return sum(c.get("allocs", 0) for c in caches)
    if kind == "discarded":
        return rep.get("discarded_events", 0)
    if kind == "occ":
        occ = [c.get("occupancy", {}) for c in caches]
        made = sum(o.get(key + "_new", 0) for o in occ)
        gone = sum(o.get(key + "_freed", 0) for o in occ)
        return "{:,} / {:,}".format(made, gone)
    g = rep["rates"]["scopes"][0]["figures"].get(key)
    if g is None or not g.get("den"):
        return None
    return g["value"]


def change(a, b):
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return "-"
    if a == 0:
        return "0%" if b == 0 else "new"
    r = b / a
    return "{:+.0f}%".format((r - 1) * 100) if r < 10 else "x{:,.0f}".format(r)


def prediction(v):
    judged = [v.get(f, "n/a").split()[0] for f in PREDICTION]
    if "REGRESSED" in judged:
        return "confirmed"
    if all(j in ("ok", "improved") for j in judged):
        return "refuted"
    return "not measurable here"


def main():
    work, size, cpus, load_end = sys.argv[1:5]
    with open(os.path.join(work, "workloads.txt")) as f:
        workloads = [l.rstrip("\n").split("|", 2) for l in f if l.strip()]
    print("Generations side by side ({} size, {} cpus; load average at the end {}).\n"
          .format(size, cpus, load_end))
    summary = []
    for i, (name, pre, cmd) in enumerate(workloads, 1):
        reps = [load(os.path.join(work, "w{}-{}.json".format(i, g))) for g in GENS]
        tms = [read_time(os.path.join(work, "w{}-{}.time".format(i, g))) for g in GENS]
        v = verdicts(os.path.join(work, "w{}.diff".format(i)))
        shown = cmd.replace(work + "/", "")
        print("### {}\n".format(name))
        print("`{}SLUBTRACE_GENERATION=G {}`\n".format(
            "LD_PRELOAD=libslub-malloc.so " if pre == "1" else "", shown))
        print("| figure | classic | sheaves | change | diff |")
        print("|---|---:|---:|---:|---|")
        vals = {}
        for label, how, figname in ROWS:
            a, b = (value(r, t, how) for r, t in zip(reps, tms))
            vals[how] = (a, b)
            print("| {} | {} | {} | {} | {} |".format(label, fmt(a), fmt(b), change(a, b),
                                                       v.get(figname, "-") if figname else "-"))
        print()
        summary.append((name, vals, prediction(v)))
    print("### Summary: the prediction (sheaves: more partial slabs, more slabs touched)\n")
    print("| workload | partial slabs mean | slabs touched / 1k allocs | slots unused % "
          "| max RSS KiB | prediction |")
    print("|---|---:|---:|---:|---:|---|")
    for name, vals, pred in summary:
        cells = []
        for how in ("fig:partial_slabs_mean", "fig:slabs_touched_per_1k_allocs",
                    "fig:slab_unused_pct", "time:1"):
            a, b = vals[how]
            cells.append("{} -> {}".format(fmt(a), fmt(b)))
        print("| {} | {} | {} |".format(name, " | ".join(cells), pred))
    return 0


if __name__ == "__main__":
    sys.exit(main())
