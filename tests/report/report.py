#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`slubtrace report` and `slubtrace timeline --format chrome` on real traces.

    report.py --build DIR --source DIR [--keep] [--screenshot PNG] TEST

Tests:
  html    record the bundled workload twice, clean and with
          SLUBTRACE_INJECT=unlocked-list,race-window (a violation, and
          storms on slab words); write the report of the second
          with the first as baseline; check the file is self-contained
          (no network reference) and small; render it in headless Chromium
          (--dump-dom): every section is present, the violation's rule is
          named and its event is highlighted on the swimlane, the comparison
          table is there and counts the regressed figures `slubtrace diff`
          counts, the top storms show their losing threads on the
          slab's swimlane; no console error; take a screenshot.  Skipped
          (77) only when Chromium cannot run here.
  sheaves record the stress test (with its objects) under both
          allocator generations; `report --against CLASSIC SHEAVES`: the
          data has a sheaf lane per busy cpu slot and a barn lane per node
          whose counts stay within the sheaf capacity (the barn's never
          below 0), whose peaks are those of the trace's own sheaf_slot and
          barn events, and event counts those of the trace; the classic
          trace's page has none and says nothing of sheaves; the side by
          side figures are those `slubtrace stats -o` computes for each
          trace and those `slubtrace diff` prints (its 4 digits), the
          pages made and discarded those of its occupancy; the
          page renders both sections in headless Chromium (skipped there,
          not failed, when Chromium cannot run).
  chrome  `timeline --format chrome` of a recorded trace: valid Trace Event
          Format (chrome_trace.py checks fields and phases), one track per
          slab whose state slices match `timeline --json`, one track per
          thread, the counter tracks; the filters apply.

Session daemons as in tests/e2e/e2e.py (own lttng-sessiond --no-kernel,
private LTTNG_HOME, `nobody` when run as root).  Exit: 0 pass, 1 fail,
77 skipped.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
sys.path.insert(0, HERE)
import e2e  # noqa: E402
import chrome_trace  # noqa: E402

from e2e import Env, Failure, log, run  # noqa: E402

SKIP = 77
# Small and deterministic in shape: 2 groups of 3 threads, 2 nodes.
WORKLOAD = ["-g", "2", "-t", "3", "-m", "800", "-r", "2"]
SECTIONS = ["verdict", "violations", "storms", "locks", "top-slabs", "comparison"]
# The page must not reach out: no URL but the SVG namespace, no <link>, no
# external script, no CSS import or url().
NETWORK = re.compile(r"https?://(?!www\.w3\.org/2000/svg)|<link\b|<script[^>]*\bsrc=|@import|url\(",
                     re.I)
MAX_SMALL_REPORT = 4 << 20


def slubtrace(env, args, penv=None, timeout=600):
    return run([env.args.slubtrace] + args, env=penv or env.env, check=False, timeout=timeout,
               what="slubtrace " + args[0])


def record(env, name, extra_env=None, options=(), program=None):
    d = os.path.join(env.work, name)
    penv = dict(env.env)
    penv["SLUBTRACE_NODES"] = "2"
    penv.update(extra_env or {})
    program = program or [env.path("examples/slub-workload")] + WORKLOAD
    rc, out = slubtrace(env, ["record", "--no-check"] + list(options) + ["-o", d, "--"] + program,
                        penv=penv)
    log(out.rstrip()[-1500:])
    if rc != 0:
        raise Failure("slubtrace record exited %d" % rc)
    return d


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def chromium_run(env, exe, args, timeout=180):
    argv = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-dev-shm-usage", "--user-data-dir=" + os.path.join(env.work, "chromium"),
            "--enable-logging=stderr", "--v=0"] + args
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=timeout, env=env.env)
    return p.returncode, p.stdout, p.stderr


# Chromium logs a page's console messages (console.log too, at INFO) as
#   [...:INFO:CONSOLE:12] "message", source: file:///... (12)
# (older releases: CONSOLE(12)), uncaught exceptions among them.  The page
# logs nothing: any message from it is an error.
CONSOLE = re.compile(r":(?:ERROR|WARNING|INFO|VERBOSE\d*):CONSOLE(?:\(\d+\)|:\d+)\] \"(.*?)\", "
                     r"source: (\S+)")


def console_errors(stderr, page):
    errs = []
    for line in stderr.splitlines():
        m = CONSOLE.search(line)
        if m and page in m.group(2):
            errs.append(m.group(1))
        elif "Uncaught" in line:
            errs.append(line.strip())
    return errs


def test_html(env):
    errors = []
    exe = chromium()
    if not exe:
        log("chromium not installed (scripts/setup.sh test installs it): skipped")
        return SKIP
    rc, out, err = chromium_run(env, exe, ["--dump-dom", "about:blank"], timeout=120)
    if rc != 0 or "<html" not in out:
        log("chromium cannot run here (exit %d): skipped\n%s" % (rc, err[-2000:]))
        return SKIP

    env.start_sessiond()
    try:
        clean = record(env, "clean")
        # race-window widens the load-to-CAS window: storms on slab words.
        broken = record(env, "broken", {"SLUBTRACE_INJECT": "unlocked-list,race-window"})
    finally:
        env.stop_sessiond()

    page = os.path.join(env.work, "report.html")
    rc, out = slubtrace(env, ["report", broken, "--baseline", clean, "-o", page])
    log("  " + out.strip()[-600:])
    e2e.check(rc == 0, "report exited %d:\n%s" % (rc, out[-2000:]), errors)
    if rc != 0:
        return errors
    size = os.path.getsize(page)
    log("  report: %d bytes" % size)
    e2e.check(size < MAX_SMALL_REPORT, "report of a small trace is %d bytes" % size, errors)
    with open(page, encoding="utf-8") as f:
        html = f.read()
    for m in NETWORK.finditer(html):
        errors.append("the page refers to the network: ...%s..." %
                      html[max(0, m.start() - 60):m.end() + 60])
    # Every violation of the trace is in the data, with its rule.
    e2e.check("R3-list-unlocked" in html, "R3-list-unlocked not in the page", errors)

    url = "file://" + page
    rc, dom, err = chromium_run(env, exe, ["--dump-dom", "--virtual-time-budget=5000", url])
    e2e.check(rc == 0, "chromium --dump-dom exited %d" % rc, errors)
    e2e.check('data-rendered="yes"' in dom, "the page's script did not finish drawing", errors)
    for s in SECTIONS:
        m = re.search(r'<section id="%s">(.*?)</section>' % s, dom, re.S)
        e2e.check(m and len(m.group(1)) > 200, "section %s missing or empty" % s, errors)
    viol = re.search(r'<section id="violations">(.*?)</section>', dom, re.S)
    viol = viol.group(1) if viol else ""
    e2e.check(re.search(r'class="rule">R3-list-unlocked<', viol),
              "no violation titled R3-list-unlocked", errors)
    # The violating event: a mark on a swimlane, and its row in the history.
    marks = re.findall(r'<path [^>]*class="mark violating[^"]*"[^>]*>\s*<title>([^<]*)', viol)
    log("  %d violating marks on swimlanes" % len(marks))
    e2e.check(marks, "no violating event highlighted on a swimlane", errors)
    e2e.check(any("VIOLATION R3-list-unlocked" in t for t in marks),
              "the highlighted marks do not name R3-list-unlocked: %s" % marks[:3], errors)
    e2e.check('class="violating-row violating"' in viol,
              "the violating event's row is not highlighted", errors)
    e2e.check(re.search(r'<svg [^>]*role="img"', viol), "no swimlane drawn", errors)
    bands = len(re.findall(r'class="band"', dom))
    e2e.check(bands > 0, "no state band drawn", errors)
    storms = re.search(r'<section id="storms">(.*?)</section>', dom, re.S)
    storms = storms.group(1) if storms else ""
    e2e.check("<svg" in storms and "failures" in storms, "storms: no chart", errors)
    lanes = re.findall(r'>thread (\d+) \((lost|lost, won|won)\)<', storms)
    log("  %d storm party rows on swimlanes" % len(lanes))
    e2e.check(any(r == "lost" or r == "lost, won" for _, r in lanes),
              "storms: no losing thread drawn on a slab's swimlane", errors)
    comp = re.search(r'<section id="comparison">(.*?)</section>', dom, re.S)
    comp = comp.group(1) if comp else ""
    e2e.check('id="diff-verdict"' in comp and "<table" in comp,
              "comparison: no verdict or no table", errors)
    # The page judges as `slubtrace diff` does.
    rc_d, dout = slubtrace(env, ["diff", clean, broken])
    m = re.search(r"verdict: (?:REGRESSION \((\d+) figures? regressed\)|no regression)", dout)
    want = int(m.group(1) or 0) if m else None
    got = re.search(r'data-regressed="(\d+)"', comp)
    log("  diff: exit %d, %s regressed; the page: %s" % (rc_d, want, got and got.group(1)))
    e2e.check(m and got and int(got.group(1)) == want and rc_d == (1 if want else 0),
              "the page's regressed figures (%s) differ from slubtrace diff's (%s)" %
              (got and got.group(1), want), errors)
    regressed_rows = len(re.findall(r'<tr class="regressed"', comp))
    e2e.check(not want or regressed_rows > 0, "no regressed row marked", errors)
    e2e.check(re.search(r'<section id="locks">.*?<svg', dom, re.S),
              "locks: no histogram drawn", errors)
    e2e.check(re.search(r'<section id="top-slabs">.*?id="lane-\d+"', dom, re.S),
              "top slabs: no swimlane", errors)
    cerr = console_errors(err, "report.html")
    e2e.check(not cerr, "console errors: %s" % cerr[:5], errors)

    # The page of one program: the banner names the filter, the figures are
    # said to be the filter's, the page draws; the same violations (the
    # workload is the only program of the trace).
    fpage = os.path.join(env.work, "filtered.html")
    rc, out = slubtrace(env, ["report", "--procname", "slub-workload", broken, "-o", fpage])
    log("  " + out.strip()[-300:])
    e2e.check(rc == 0 and "(processes named slub-workload only)" in out,
              "report --procname exited %d: %s" % (rc, out[-1000:]), errors)
    if rc == 0:
        rc, fdom, err = chromium_run(env, exe, ["--dump-dom", "--virtual-time-budget=5000",
                                                 "file://" + fpage])
        banner = re.search(r'id="verdict-banner"[^>]*>([^<]*)<', fdom)
        e2e.check(banner and banner.group(1).endswith("(processes named slub-workload only)")
                  and "violation" in banner.group(1),
                  "filtered page's banner: %s" % (banner and banner.group(1)), errors)
        e2e.check("The figures are those of processes named slub-workload" in fdom,
                  "filtered page: no note on the filter", errors)
        e2e.check('data-rendered="yes"' in fdom, "filtered page not drawn", errors)
        e2e.check(not console_errors(err, "filtered.html"), "filtered page: console errors",
                  errors)

    shot = env.args.screenshot or os.path.join(env.work, "report.png")
    rc, _, err = chromium_run(env, exe, ["--screenshot=" + shot, "--window-size=1100,1250",
                                         "--hide-scrollbars", "--virtual-time-budget=5000", url])
    ok = rc == 0 and os.path.exists(shot) and os.path.getsize(shot) > 10000
    with open(shot, "rb") as f:
        ok = ok and f.read(8) == b"\x89PNG\r\n\x1a\n"
    log("  screenshot %s: %s" % (shot, "%d bytes" % os.path.getsize(shot) if ok else "missing"))
    e2e.check(ok, "no screenshot (exit %d)" % rc, errors)
    e2e.check(not console_errors(err, "report.html"), "console errors in the screenshot run",
              errors)
    return errors


SLUB_F_SHEAVES = 1 << 7     # include/slub/slub.h
SHEAF_EVENTS = ("sheaf_refill", "sheaf_flush", "sheaf_slot", "barn_put", "barn_get")
# The figures the page puts side by side (src/cli/report.c shared_figures).
SHARED_FIGURES = ["slabs_peak", "slabs_mean", "partial_slabs_peak", "partial_slabs_mean",
                  "free_objs_per_partial_slab", "slab_unused_pct", "slabs_touched_per_1k_allocs",
                  "lock_acq_per_1k_allocs", "lock_waits_per_1k_allocs", "redos_per_1k_allocs",
                  "page_churn_per_1k_allocs"]


def page_data(page):
    """The JSON the page embeds (its "</" written "<\/")."""
    with open(page, encoding="utf-8") as f:
        html = f.read()
    m = re.search(r'<script type="application/json" id="slubtrace-data">(.*?)</script>', html, re.S)
    if not m:
        raise Failure("%s: no data element" % page)
    return json.loads(m.group(1).replace("<\\/", "</"))


def sheaf_capacity(size):
    """calculate_sheaf_capacity() of src/sheaves.c for a cache of `size`
    bytes an object: a capacity for the object size, then as many objects
    as the kmalloc bucket the sheaf (a 32-byte header) fills."""
    cap = 4 if size >= 4096 else 12 if size >= 1024 else 26 if size >= 256 else 60
    b = 32 + cap * 8
    if 64 < b <= 96:
        bucket = 96
    elif 128 < b <= 192:
        bucket = 192
    else:
        bucket = 1 << (b - 1).bit_length()
    return (bucket - 32) // 8


def close(a, b, rel=1e-5):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check_gauge(what, g, bins, cap, errors):
    """[min, max, end] per bin (null before the first event), within 0..cap."""
    e2e.check(len(g) == bins, "%s: %d bins, the series has %d" % (what, len(g), bins), errors)
    bad = [x for x in g if x is not None and
           not (len(x) == 3 and 0 <= x[0] <= x[2] <= x[1] and (cap is None or x[1] <= cap))]
    e2e.check(not bad, "%s: bins out of 0..%s or not min <= end <= max: %s"
              % (what, cap, bad[:3]), errors)
    e2e.check(any(x is not None for x in g), "%s: no value" % what, errors)


def sheaf_events(env, trace):
    """The trace's cache_create, sheaf and barn events as e2e.Trace reads
    them, the other lines left unparsed (the trace has a million)."""
    names = ("slub:cache_create", "slub:sheaf_", "slub:barn_")
    p = subprocess.run(["babeltrace2", trace], env=env.env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, errors="replace", timeout=600)
    if p.returncode != 0:
        raise Failure("babeltrace2 %s failed:\n%s" % (trace, p.stderr[-2000:]))
    out = []
    for line in p.stdout.splitlines():
        if not any(n in line for n in names):
            continue
        m = e2e.LINE.match(line)
        if not m or not m.group(1).startswith(names):
            continue
        f = {k: e2e.value(v) for k, v in e2e.FIELD.findall(m.group(2))}
        e2e.take_pid_tid(f)
        f["_name"] = m.group(1)[5:]
        if "where" in f:
            e2e.unpack_v3(f)
        out.append(f)
    return out


def check_sheaf_lanes(env, d, trace, errors):
    sh = d["scan"]["sheaves"]
    ev = sheaf_events(env, trace)
    names = {}
    for e in ev:
        if e["_name"] == "cache_create":
            names[(e.get("vpid"), e["cache_id"])] = (e["name"], e["size"], e["flags"])
    want = {k: sum(1 for e in ev if e["_name"] == k) for k in SHEAF_EVENTS}
    log("  sheaf and barn events: trace %s, page %s" % (want, sh["events"]))
    e2e.check(sh["events"] == want, "event counts %s, the trace has %s" % (sh["events"], want),
              errors)
    slots, barns = {}, {}
    for e in ev:
        if e["_name"] == "sheaf_slot":
            name = names[(e.get("vpid"), e["cache_id"])][0]
            k = (e.get("vpid"), name, e["slot"])
            m, s = slots.get(k, (0, 0))
            slots[k] = (max(m, e["sizes"] & 0xffffffff), max(s, e["sizes"] >> 32))
        elif e["_name"] in ("barn_put", "barn_get"):
            name = names[(e.get("vpid"), e["cache_id"])][0]
            k = (e.get("vpid"), name, e["node"])
            f, m = barns.get(k, (0, 0))
            barns[k] = (max(f, e["counts"] & 0xffffffff), max(m, e["counts"] >> 32))
    caps = {(k[0], v[0]): sheaf_capacity(v[1]) for k, v in names.items()
            if v[2] & SLUB_F_SHEAVES}
    e2e.check(sh["cpu_lanes"] == len(slots) and sh["barn_lanes"] == len(barns),
              "lanes: %d cpu, %d barn; the trace has %d slots, %d barns"
              % (sh["cpu_lanes"], sh["barn_lanes"], len(slots), len(barns)), errors)
    e2e.check(sh["cpus"] and sh["barns"], "no sheaf or no barn lane", errors)
    e2e.check(len(sh["cpus"]) == min(32, len(slots)) and len(sh["barns"]) == min(16, len(barns)),
              "%d cpu and %d barn lanes drawn" % (len(sh["cpus"]), len(sh["barns"])), errors)
    for l in sh["cpus"]:
        k = (l["vpid"], l["cache"], l["cpu"])
        cap = caps.get((l["vpid"], l["cache"]))
        what = "sheaf lane %s cpu %d" % (l["cache"], l["cpu"])
        e2e.check(cap is not None and k in slots, "%s: no such sheaves cache or slot" % what,
                  errors)
        for g in ("main", "spare"):
            check_gauge("%s %s" % (what, g), l[g], sh["bins"], cap, errors)
        # refills raise main and spare between sheaf_slot events, never above capacity
        lo = slots.get(k, (0, 0))
        e2e.check(lo[0] <= l["main_peak"] <= (cap or 0) and lo[1] <= l["spare_peak"] <= (cap or 0),
                  "%s: peaks %d, %d; sheaf_slot's %s, capacity %s"
                  % (what, l["main_peak"], l["spare_peak"], lo, cap), errors)
    e2e.check(any(l["main_peak"] > 0 for l in sh["cpus"]), "every main sheaf empty", errors)
    for l in sh["barns"]:
        k = (l["vpid"], l["cache"], l["node"])
        what = "barn lane %s node %d" % (l["cache"], l["node"])
        for g in ("full", "empty"):
            check_gauge("%s %s" % (what, g), l[g], sh["bins"], None, errors)
        e2e.check(k in barns and (l["full_peak"], l["empty_peak"]) == barns[k],
                  "%s: peaks %d, %d; the trace's %s" % (what, l["full_peak"], l["empty_peak"],
                                                         barns.get(k)), errors)


def stats_json(env, trace, name):
    out = os.path.join(env.work, name + ".stats.json")
    rc, text = slubtrace(env, ["stats", "-o", out, trace])
    if rc != 0:
        raise Failure("slubtrace stats %s exited %d: %s" % (trace, rc, text[-500:]))
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def check_against(env, d, this_trace, other_trace, errors):
    a = d["against"]
    e2e.check(a and a["input"] == other_trace, "no comparison with %s" % other_trace, errors)
    if not a:
        return
    e2e.check([f["figure"] for f in a["figures"]] == SHARED_FIGURES,
              "figures side by side: %s" % [f["figure"] for f in a["figures"]], errors)
    sides = {"this": stats_json(env, this_trace, "this"),
             "other": stats_json(env, other_trace, "other")}
    for side, st in sides.items():
        overall = st["rates"]["scopes"][0]
        for f in a["figures"]:
            want = overall["figures"][f["figure"]]
            got = f[side]
            e2e.check(close(got["num"], want["num"], 1e-12) and
                      close(got["den"], want["den"], 1e-12) and
                      (want["den"] <= 0 or close(got["value"], want["value"])),
                      "%s %s: the page %s, slubtrace stats %s" % (side, f["figure"], got, want),
                      errors)
    touched = [f for f in a["figures"] if f["figure"] == "slabs_touched_per_1k_allocs"][0]
    e2e.check(touched["this"]["den"] > 0 and touched["other"]["den"] > 0,
              "slabs touched not measured: %s" % touched, errors)
    # diff prints the same figures (4 significant digits), OTHER before THIS
    rc, dout = slubtrace(env, ["diff", other_trace, this_trace])
    printed = {}
    for line in dout.splitlines():
        w = line.split()
        if len(w) >= 4 and w[0] == "overall":
            printed[w[1]] = (w[2], w[3])
    for f in a["figures"]:
        want = printed.get(f["figure"])
        got = tuple("-" if v["value"] is None else "%.4g" % v["value"]
                    for v in (f["other"], f["this"]))
        e2e.check(want is not None and
                  all(g == w or (g != "-" and w != "-" and close(float(g), float(w), 1e-3))
                      for g, w in zip(got, want)),
                  "%s: the page %s, slubtrace diff prints %s" % (f["figure"], got, want), errors)
    # pages made and discarded: the stats' occupancy, every cache together
    for side, occ in (("this", d["scan"]["occupancy"]), ("other", a["scan"]["occupancy"])):
        caches = sides[side]["caches"]
        for k in ("slabs_new", "slabs_freed", "pages_new", "pages_freed"):
            want = sum(c["occupancy"][k] for c in caches)
            e2e.check(occ[k] == want, "%s %s: the page %d, slubtrace stats %d"
                      % (side, k, occ[k], want), errors)
        churn = [f[side] for f in a["figures"] if f["figure"] == "page_churn_per_1k_allocs"][0]
        e2e.check(churn["num"] == occ["pages_new"] + occ["pages_freed"],
                  "%s: page churn counts %s pages, made and discarded %d + %d"
                  % (side, churn["num"], occ["pages_new"], occ["pages_freed"]), errors)
    e2e.check(a["scan"]["generation"] == "classic",
              "the other trace's generation: %s" % a["scan"]["generation"], errors)
    log("  side by side: " + ", ".join("%s %s | %s" % (f["figure"], f["this"]["value"],
                                                         f["other"]["value"])
                                        for f in a["figures"]))


def render(env, exe, page, errors):
    """The page's DOM once its script has drawn it; console errors fail."""
    rc, dom, err = chromium_run(env, exe, ["--dump-dom", "--virtual-time-budget=5000",
                                           "file://" + page])
    e2e.check(rc == 0 and 'data-rendered="yes"' in dom,
              "%s: chromium exit %d, drawn: %s" % (page, rc, 'data-rendered="yes"' in dom),
              errors)
    cerr = console_errors(err, os.path.basename(page))
    e2e.check(not cerr, "%s: console errors: %s" % (page, cerr[:5]), errors)
    return dom


def test_sheaves(env):
    errors = []
    env.start_sessiond()
    try:
        # the stress test's threads each allocate thousands of objects in
        # one cache: the slabs touched per 1,000 allocations are measured
        stress = [env.path("tests/test_stress"), "-t", "2", "-s", "1"]
        classic = record(env, "classic", {"SLUBTRACE_GENERATION": "classic"}, ["--objects"],
                         stress)
        sheaves = record(env, "sheaves", {"SLUBTRACE_GENERATION": "sheaves"}, ["--objects"],
                         stress)
    finally:
        env.stop_sessiond()
    page = os.path.join(env.work, "sheaves.html")
    rc, out = slubtrace(env, ["report", "--against", classic, sheaves, "-o", page])
    log("  " + out.strip()[-600:])
    if rc != 0:
        return ["report --against exited %d:\n%s" % (rc, out[-2000:])]
    d = page_data(page)
    e2e.check(d["scan"]["generation"] == "sheaves", "generation %s" % d["scan"]["generation"],
              errors)
    if d["scan"]["sheaves"]:
        check_sheaf_lanes(env, d, sheaves, errors)
    else:
        errors.append("a sheaves trace's page has no sheaf and barn lanes")
    check_against(env, d, sheaves, classic, errors)

    cpage = os.path.join(env.work, "classic.html")
    rc, out = slubtrace(env, ["report", classic, "-o", cpage])
    e2e.check(rc == 0, "report of the classic trace exited %d: %s" % (rc, out[-500:]), errors)
    c = page_data(cpage) if rc == 0 else None
    e2e.check(c and c["scan"]["generation"] == "classic" and c["scan"]["sheaves"] is None and
              c["against"] is None, "the classic page: generation %s, sheaves %s, against %s"
              % (c and c["scan"]["generation"], c and c["scan"]["sheaves"] is not None,
                 c and c["against"] is not None), errors)
    # the comparison from a stats report instead of a trace: the same figures
    jpage = os.path.join(env.work, "against-json.html")
    rc, out = slubtrace(env, ["report", "--against", os.path.join(env.work, "other.stats.json"),
                              sheaves, "-o", jpage])
    j = page_data(jpage) if rc == 0 else None
    e2e.check(j and j["against"]["scan"] is None and
              [f["other"] for f in j["against"]["figures"]] ==
              [f["other"] for f in d["against"]["figures"]],
              "--against a stats report: exit %d, figures differ from the trace's" % rc, errors)

    exe = chromium()
    if not exe or chromium_run(env, exe, ["--dump-dom", "about:blank"], timeout=120)[0] != 0:
        log("chromium cannot run here: the pages are not rendered")
        return errors
    dom = render(env, exe, page, errors)
    sec = re.search(r'<section id="sheaves">(.*?)</section>', dom, re.S)
    sec = sec.group(1) if sec else ""
    nl = len(re.findall(r'class="lane sheaf-lane"', sec))
    log("  page: %d sheaf and barn lanes drawn" % nl)
    e2e.check(nl == len(d["scan"]["sheaves"]["cpus"]) + len(d["scan"]["sheaves"]["barns"]),
              "%d sheaf and barn lanes drawn" % nl, errors)
    e2e.check(re.search(r'id="generation"[^>]*>sheaves<', dom), "the header does not name the generation",
              errors)
    gen = re.search(r'<section id="generations">(.*?)</section>', dom, re.S)
    gen = gen.group(1) if gen else ""
    rows = re.findall(r'<tr data-figure="([a-z0-9_]+)"', gen)
    e2e.check(rows == SHARED_FIGURES + ["pages_new", "pages_freed"],
              "side by side rows: %s" % rows, errors)
    cdom = render(env, exe, cpage, errors)
    e2e.check('id="sheaves"' not in cdom and 'id="generations"' not in cdom and
              'id="generation"' not in cdom, "the classic page shows sheaves or generations",
              errors)
    return errors


def test_chrome(env):
    errors = []
    env.start_sessiond()
    try:
        # race-window: cmpxchg failures in nearly every run, so the counter
        # tracks are exercised; whether they must exist is read from the trace.
        d = record(env, "workload", {"SLUBTRACE_INJECT": "race-window"})
    finally:
        env.stop_sessiond()
    t = e2e.Trace(d, env.env)
    contention = sum(1 for e in t.events if e["_name"] in ("cmpxchg_fail", "cpu_cmpxchg_fail")
                     or (e["_name"] == "lock_acquire" and e.get("contended")))
    rc, js = slubtrace(env, ["timeline", "--format", "json", d])
    rc_old, js_old = slubtrace(env, ["timeline", "--json", d])
    rc_c, ct = slubtrace(env, ["timeline", "--format", "chrome", d])
    e2e.check(rc == 0 and rc_old == 0 and rc_c == 0,
              "timeline exits: json %d, --json %d, chrome %d" % (rc, rc_old, rc_c), errors)
    e2e.check(js == js_old, "--format json differs from --json", errors)
    lines = [json.loads(l) for l in js.splitlines() if l.startswith("{")]
    try:
        doc = json.loads(ct)
    except ValueError as e:
        errors.append("chrome format: not JSON: %s" % e)
        return errors
    problems = chrome_trace.validate(doc)
    for p in problems[:20]:
        errors.append("chrome format: " + p)
    tracks = chrome_trace.tracks(doc)
    slabs = {k: v for k, v in tracks.items() if v["kind"] == "slab"}
    threads = {k: v for k, v in tracks.items() if v["kind"] == "thread"}
    counters = chrome_trace.counters(doc)
    log("  %d transitions; %d slab tracks, %d thread tracks, counters %s" %
        (len(lines), len(slabs), len(threads), sorted(counters)))
    # One slice per stay in a state: the runs of equal `after` states in the
    # JSON lines of each slab address (a track per incarnation, its name
    # holds the address).
    want = {}
    for r in lines:
        want.setdefault(r["slab"], []).append(r)
    by_slab = {}
    for t in slabs.values():
        by_slab.setdefault(t["slab"], 0)
        by_slab[t["slab"]] += t["slices"]
    e2e.check(set(by_slab) == set(want), "slab tracks %d, slabs in the timeline %d" %
              (len(by_slab), len(want)), errors)
    bad = 0
    for slab, recs in want.items():
        changes, prev = 0, None
        for r in recs:
            if r["after"] != prev and r["after"] not in ("DISCARDED", "UNKNOWN"):
                changes += 1
            prev = r["after"]
        if by_slab.get(slab) != changes:
            bad += 1
            if bad <= 5:
                errors.append("slab %s: %s slices, %d state changes" %
                              (slab, by_slab.get(slab), changes))
    tids = {(r["vpid"], r["vtid"]) for r in lines}
    e2e.check({(t["pid"], t["tid"]) for t in threads.values()} == tids,
              "thread tracks do not match the threads of the timeline", errors)
    instants = sum(t["instants"] for t in threads.values())
    e2e.check(instants == len(lines), "%d thread instants for %d transitions" %
              (instants, len(lines)), errors)
    # A process gets both counter tracks at its first failure or contended
    # lock, and none without one.
    log("  %d cmpxchg failures and contended locks in the trace" % contention)
    has = "cmpxchg failures" in counters and "lock wait" in counters
    e2e.check(has == (contention > 0), "counter tracks %s for %d cmpxchg failures and "
              "contended locks in the trace" % (sorted(counters), contention), errors)

    # Filters: one slab, one thread.
    slab = lines[len(lines) // 2]["slab"]
    rc, one = slubtrace(env, ["timeline", "--format", "chrome", "--slab", slab, d])
    doc1 = json.loads(one)
    e2e.check(not chrome_trace.validate(doc1), "--slab: invalid chrome trace", errors)
    t1 = chrome_trace.tracks(doc1)
    e2e.check({t["slab"] for t in t1.values() if t["kind"] == "slab"} == {slab},
              "--slab %s: slab tracks %s" % (slab, [t["slab"] for t in t1.values()][:5]),
              errors)
    tid = lines[0]["vtid"]
    rc, onet = slubtrace(env, ["timeline", "--format", "chrome", "--tid", str(tid), d])
    doc2 = json.loads(onet)
    t2 = chrome_trace.tracks(doc2)
    e2e.check({t["tid"] for t in t2.values() if t["kind"] == "thread"} == {tid},
              "--tid %d: thread tracks %s" % (tid, sorted({t["tid"] for t in t2.values()})),
              errors)
    rc, _ = slubtrace(env, ["timeline", "--format", "svg", d])
    e2e.check(rc == 2, "--format svg: exit %d, expected 2" % rc, errors)
    return errors


TESTS = {"html": test_html, "chrome": test_chrome, "sheaves": test_sheaves}


def drop_privileges(args):
    if os.geteuid() != 0 or args.as_user or not shutil.which("setpriv"):
        return None
    import pwd
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        return None
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    need = [py, args.slubtrace, os.path.abspath(__file__),
            os.path.join(args.build, "examples/slub-workload"),
            os.path.join(args.build, "tests/test_stress"),
            os.path.join(args.build, "analysis/plugin/babeltrace-plugin-slub.so")]
    if not e2e.nobody_can_use(need, pw.pw_uid, pw.pw_gid):
        return None
    work = tempfile.mkdtemp(prefix="slubtrace-report-")
    os.chown(work, pw.pw_uid, pw.pw_gid)
    os.chmod(work, 0o755)
    argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups",
            py, os.path.abspath(__file__), "--as-user", "--work", work] + sys.argv[1:]
    try:
        rc = subprocess.run(argv).returncode
        if args.screenshot and os.path.exists(os.path.join(work, "report.png")):
            shutil.copy(os.path.join(work, "report.png"), args.screenshot)
        return rc
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--screenshot", help="where to keep the report's screenshot")
    ap.add_argument("--work", help=argparse.SUPPRESS)
    ap.add_argument("--as-user", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("test", choices=sorted(TESTS))
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    args.source = os.path.abspath(args.source)
    args.slubtrace = os.path.join(args.build, "src/cli/slubtrace")
    if args.as_user:
        args.screenshot = None  # the outer process copies it out of the work directory
    for tool in ("lttng", "lttng-sessiond", "babeltrace2"):
        if not shutil.which(tool):
            log("%s not installed: skipped" % tool)
            return SKIP
    rc = drop_privileges(args)
    if rc is not None:
        return rc
    work = args.work or tempfile.mkdtemp(prefix="slubtrace-report-")
    env = Env(args, work)
    log("report %s: work directory %s (uid %d)" % (args.test, work, os.geteuid()))
    try:
        result = TESTS[args.test](env)
    except Failure as e:
        log("FAIL: %s" % e)
        return 1
    finally:
        env.stop_sessiond()
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if result == SKIP:
        return SKIP
    for e in result:
        log("FAIL: %s" % e)
    if result:
        return 1
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
