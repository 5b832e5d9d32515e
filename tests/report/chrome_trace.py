#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate and load a `slubtrace timeline --format chrome` file.

    chrome_trace.py FILE      prints the tracks with their slice counts

The Trace Event Format (the JSON object form Perfetto UI and
chrome://tracing open): every event has ph, name, pid, tid; every phase
but M has a numeric ts >= 0; X has dur >= 0; i has scope s in g/p/t; C has
numeric args; M names a process or thread.  Exit 1 when invalid.
"""
import json
import re
import sys

SLAB_PID = 0x40000000
PHASES = {"X", "i", "C", "M"}
META = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}
SLAB_NAME = re.compile(r"^slab (0x[0-9a-f]+) ")
STATES = {"CPU_ACTIVE", "CPU_PARTIAL", "NODE_PARTIAL", "FULL"}


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def validate(doc):
    """A list of problems, empty when doc is a valid trace of ours."""
    out = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["no traceEvents array"]
    if doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        out.append("displayTimeUnit %r" % doc.get("displayTimeUnit"))
    for i, e in enumerate(doc["traceEvents"]):
        where = "event %d (%s)" % (i, json.dumps(e)[:120])
        if not isinstance(e, dict):
            out.append(where + ": not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            out.append(where + ": phase %r" % ph)
            continue
        if not isinstance(e.get("name"), str) or not e["name"]:
            out.append(where + ": no name")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            out.append(where + ": pid and tid must be integers")
        if ph == "M":
            if e["name"] not in META or not isinstance(e.get("args", {}).get("name"), str):
                out.append(where + ": metadata without a name")
            continue
        if not num(e.get("ts")) or e["ts"] < 0:
            out.append(where + ": ts")
        if ph == "X":
            if not num(e.get("dur")) or e["dur"] < 0:
                out.append(where + ": dur")
            if e["name"] not in STATES:
                out.append(where + ": a slab slice named %r" % e["name"])
            if e["pid"] & SLAB_PID == 0:
                out.append(where + ": a slice outside the slab tracks")
        elif ph == "i":
            if e.get("s") not in ("g", "p", "t"):
                out.append(where + ": instant scope")
            if not isinstance(e.get("args", {}).get("slab"), str):
                out.append(where + ": instant without its slab")
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(num(v) for v in args.values()):
                out.append(where + ": counter args must be numbers")
    return out


def tracks(doc):
    """{(pid, tid): {kind, name, slab, pid, tid, slices, instants}}."""
    t = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            slab = e["pid"] & SLAB_PID
            m = SLAB_NAME.match(e["args"]["name"])
            t[(e["pid"], e["tid"])] = {
                "kind": "slab" if slab else "thread", "name": e["args"]["name"],
                "slab": m.group(1) if m else None, "pid": e["pid"], "tid": e["tid"],
                "slices": 0, "instants": 0}
    for e in doc["traceEvents"]:
        key = (e["pid"], e["tid"])
        if e["ph"] == "X":
            t.setdefault(key, {"kind": "unnamed", "slices": 0, "instants": 0})["slices"] += 1
        elif e["ph"] == "i":
            t.setdefault(key, {"kind": "unnamed", "slices": 0, "instants": 0})["instants"] += 1
    return t


def counters(doc):
    """{counter name: number of samples}."""
    c = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "C":
            c[e["name"]] = c.get(e["name"], 0) + 1
    return c


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    problems = validate(doc)
    for p in problems[:50]:
        print("invalid: " + p)
    for (pid, tid), tr in sorted(tracks(doc).items()):
        print("%-8s pid %-10d tid %-8d %6d slices %6d instants  %s" %
              (tr["kind"], pid, tid, tr["slices"], tr["instants"], tr.get("name", "")))
    for name, n in sorted(counters(doc).items()):
        print("counter  %-20s %d samples" % (name, n))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
