#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the slubtrace benchmarks side by side with other allocators.

Every benchmark program calls plain malloc/free; each allocator comes in
with LD_PRELOAD.  Runs are interleaved: for each repetition, each program
runs once under every allocator (starting at a different allocator each
repetition), and the table reports medians.  The traced modes run under a
private lttng-sessiond, one recording session per run, so that each run's
events can be counted and its trace measured.

Never pass/fail on time: the exit status says whether the runs completed,
the Targets section says which goals the figures meet.

Entry point: tests/bench/run-bench.sh (which sets the command line shown in
the report).
"""

import argparse
import glob
import math
import os
import platform
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SRC_DIR = os.path.dirname(os.path.abspath(__file__))
TOP_DIR = os.path.abspath(os.path.join(SRC_DIR, "..", ".."))
LIBDIR = "/usr/lib/x86_64-linux-gnu"

# ---- benchmark programs and their parameters ------------------------------

# name -> (program, args per profile)
BENCHES = {
    "slab_test": ("slab_test", {
        "full": ["-n", "10000"],
        "quick": ["-n", "4000", "-s", "4096", "-S", "1024"],
        "smoke": ["-n", "200", "-s", "256", "-S", "64"],
    }),
    "larson": ("larson", {
        "full": ["-e", "50", "-k", "20000"],
        "quick": ["-e", "10", "-k", "10000"],
        "smoke": ["-e", "2", "-k", "200", "-c", "50"],
    }),
    "xmalloc": ("xmalloc", {
        "full": ["-n", "1000000"],
        "quick": ["-n", "200000"],
        "smoke": ["-n", "5000"],
    }),
    "cache_scratch": ("cache_scratch", {
        "full": ["-i", "50000"],
        "quick": ["-i", "20000"],
        "smoke": ["-i", "200"],
    }),
    "hackbench": ("hackbench", {
        "full": ["-l", "2000"],
        "quick": ["-l", "500"],
        "smoke": ["-g", "1", "-f", "2", "-l", "20"],
    }),
}

PROFILES = {
    # repetitions, modes
    "full": 5,
    "quick": 3,
    "smoke": 1,
}

SIZES_FAST = [8, 16, 32, 64, 128, 256]

# Rows of the summary table: (label, bench, metric key).
SUMMARY_ROWS = [
    ("1. malloc(8) (N x alloc)", "slab_test", "t1.alloc.8.ns"),
    ("1. free(8) (N x free)", "slab_test", "t1.free.8.ns"),
    ("1. malloc(64)", "slab_test", "t1.alloc.64.ns"),
    ("1. free(64)", "slab_test", "t1.free.64.ns"),
    ("1. malloc(256)", "slab_test", "t1.alloc.256.ns"),
    ("1. free(256)", "slab_test", "t1.free.256.ns"),
    ("1. malloc(1024)", "slab_test", "t1.alloc.1024.ns"),
    ("1. free(1024)", "slab_test", "t1.free.1024.ns"),
    ("1. malloc(4096)", "slab_test", "t1.alloc.4096.ns"),
    ("1. free(4096)", "slab_test", "t1.free.4096.ns"),
    ("2. malloc/free(8)", "slab_test", "t2.pair.8.ns"),
    ("2. malloc/free(64)", "slab_test", "t2.pair.64.ns"),
    ("2. malloc/free(256)", "slab_test", "t2.pair.256.ns"),
    ("2. malloc/free(4096)", "slab_test", "t2.pair.4096.ns"),
    ("3. concurrent malloc(64)", "slab_test", "t3.alloc.64.ns"),
    ("3. concurrent free(64)", "slab_test", "t3.free.64.ns"),
    ("3. concurrent pairs(64)", "slab_test", "t3.pair.64.ns"),
    ("4. remote: malloc(64)", "slab_test", "t4.alloc.64.ns"),
    ("4. remote: free(64)", "slab_test", "t4.free.64.ns"),
    ("4. remote: free(256)", "slab_test", "t4.free.256.ns"),
    ("5. 1 alloc N free: malloc(64)", "slab_test", "t5.alloc.64.ns"),
    ("5. 1 alloc N free: free(64)", "slab_test", "t5.free.64.ns"),
    ("larson (ns/op)", "larson", "larson.ns"),
    ("xmalloc producer/consumer (ns/obj)", "xmalloc", "xmalloc.ns"),
    ("cache-scratch (ns/iter)", "cache_scratch", "scratch.ns"),
    ("hackbench (ns/msg)", "hackbench", "hackbench.ns"),
]

# ---- allocators and tracing modes -----------------------------------------


class Mode:
    def __init__(self, name, desc, preload, session=None, package=None, contexts=()):
        self.name = name
        self.contexts = contexts    # LTTng contexts added to the session's channel
        self.package = package      # Debian package giving the version
        self.desc = desc
        self.preload = preload      # list of library paths
        self.session = session      # None, or list of enable-event argument lists
        self.missing = None         # why the mode cannot run


def find_lib(build, name):
    if not build or not os.path.isdir(build):
        return None
    hits = sorted(glob.glob(os.path.join(build, "**", name), recursive=True))
    return hits[0] if hits else None


def make_modes(args):
    shim = args.slub_lib or find_lib(args.build, "libslub-malloc.so")
    shim_off = args.slub_notrace_lib or find_lib(args.build_notrace, "libslub-malloc.so")
    tp = args.tp_lib or find_lib(args.build, "libslub-tp.so")
    wrapper = os.path.join(LIBDIR, "liblttng-ust-libc-wrapper.so.1")
    slub_transitions = [["slub:*", "--exclude", "slub:alloc,slub:free"]]
    slub_all = [["slub:*"]]
    modes = [
        Mode("glibc", "glibc malloc", [], package="libc6"),
        Mode("jemalloc", "jemalloc", [os.path.join(LIBDIR, "libjemalloc.so.2")],
             package="libjemalloc2"),
        Mode("mimalloc", "mimalloc", [os.path.join(LIBDIR, "libmimalloc.so.2")],
             package="libmimalloc2.0"),
        Mode("tcmalloc", "tcmalloc (minimal)", [os.path.join(LIBDIR, "libtcmalloc_minimal.so.4")],
             package="libtcmalloc-minimal4"),
        Mode("slub-off", "slubtrace, tracing compiled out (-DSLUB_TRACE=OFF)", [shim_off]),
        Mode("slub-idle", "slubtrace, tracing compiled in, provider loaded, no session",
             [shim, tp]),
        Mode("slub-trans", "slubtrace, session: slub:* except slub:alloc/slub:free",
             [shim, tp], slub_transitions),
        Mode("slub-obj", "slubtrace, session: slub:* (object events too)", [shim, tp], slub_all),
        # The wrapper's events carry no pid or tid: the contexts give them, as
        # slubtrace's events carry their own (wire format 12), so that both
        # traces say which thread of which process did what.
        Mode("libc-wrap", "glibc + liblttng-ust-libc-wrapper, session: lttng_ust_libc:*, "
             "contexts vpid and vtid", [wrapper], [["lttng_ust_libc:*"]],
             package="liblttng-ust1", contexts=("vpid", "vtid")),
    ]
    for m in modes:
        for lib in m.preload:
            if not lib or not os.path.exists(lib):
                m.missing = "library not found: %s" % (lib or
                                                      ("libslub-tp.so" if lib is tp else
                                                       "libslub-malloc.so"))
                break
        if m.session and not shutil.which("lttng"):
            m.missing = "lttng not installed"
    return modes

# ---- LTTng ----------------------------------------------------------------


class Lttng:
    """A session daemon for the traced runs and one session per run."""

    def __init__(self, workdir, verbose):
        self.home = os.path.join(workdir, "lttng-home")
        os.makedirs(self.home, exist_ok=True)
        self.env = dict(os.environ, LTTNG_HOME=self.home)
        self.pid = None
        self.verbose = verbose
        self.counter = 0
        self.note = ""

    def _pidfile(self):
        if os.geteuid() == 0:
            return "/var/run/lttng/lttng-sessiond.pid"
        return os.path.join(self.home, ".lttng", "lttng-sessiond.pid")

    def _read_pid(self):
        try:
            with open(self._pidfile()) as f:
                pid = int(f.read().strip())
            os.kill(pid, 0)
            return pid
        except (OSError, ValueError):
            return None

    def start(self):
        before = self._read_pid()
        if before is not None:
            # A root session daemon owns /var/run/lttng; a second one cannot
            # start beside it.  Use it, and leave it running.
            self.note = "an already running lttng-sessiond (pid %d) was used" % before
            return
        r = subprocess.run(["lttng-sessiond", "--no-kernel", "--daemonize"],
                           env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError("lttng-sessiond failed: " + r.stdout.strip())
        for _ in range(100):
            self.pid = self._read_pid()
            if self.pid:
                break
            time.sleep(0.05)
        if not self.pid:
            raise RuntimeError("lttng-sessiond started but wrote no pid file")
        self.note = "private lttng-sessiond --no-kernel, LTTNG_HOME=%s" % self.home

    def _our_daemons(self):
        """Pids of the LTTng daemons started with our private LTTNG_HOME (the
        session daemon, its run-as helper and the consumer daemons, which
        outlive a session daemon that is killed)."""
        tag = ("LTTNG_HOME=" + self.home).encode()
        pids = []
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == os.getpid():
                continue
            try:
                with open("/proc/%s/comm" % d) as f:
                    if not f.read().startswith("lttng-"):
                        continue
                with open("/proc/%s/environ" % d, "rb") as f:
                    if tag in f.read().split(b"\0"):
                        pids.append(int(d))
            except OSError:
                continue
        return pids

    def stop(self):
        if not self.pid:
            return
        pids = set(self._our_daemons()) | {self.pid}
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 2.0)):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                pids = {p for p in pids if not _is_gone(p)}
                if not pids:
                    break
                time.sleep(0.05)
            if not pids:
                break
        self.pid = None

    def lttng(self, *cmd):
        r = subprocess.run(["lttng"] + list(cmd), env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if self.verbose:
            sys.stderr.write("lttng %s -> %d\n%s" % (" ".join(cmd), r.returncode, r.stdout))
        if r.returncode != 0:
            raise RuntimeError("lttng %s failed: %s" % (" ".join(cmd), r.stdout.strip()))
        return r.stdout

    def open_session(self, outdir, events, subbuf, nsubbuf, contexts=()):
        self.counter += 1
        name = "slubbench-%d-%d" % (os.getpid(), self.counter)
        self.lttng("create", name, "--output=" + outdir)
        try:
            self.lttng("enable-channel", "--userspace", "--session=" + name,
                       "--subbuf-size=" + subbuf, "--num-subbuf=" + str(nsubbuf), "bench")
            for ev in events:
                self.lttng("enable-event", "--userspace", "--session=" + name,
                           "--channel=bench", *ev)
            if contexts:
                self.lttng("add-context", "--userspace", "--session=" + name,
                           "--channel=bench", *["--type=" + c for c in contexts])
            self.lttng("start", name)
        except Exception:
            self.close_session(name)
            raise
        return name

    def close_session(self, name):
        """Stop and destroy; returns the number of discarded events lttng reported."""
        discarded = 0
        try:
            out = self.lttng("stop", name)
            m = re.search(r"(\d+)\s+events?\s+(?:were|was)\s+discarded", out)
            if m:
                discarded = int(m.group(1))
        finally:
            self.lttng("destroy", name)
        return discarded


def _is_gone(pid):
    """True when pid has exited (reaping it if it is our child)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def count_events(trace_dir):
    """Events recorded in a CTF trace, by babeltrace2's counter sink."""
    r = subprocess.run(["babeltrace2", trace_dir, "--component=sink.utils.counter",
                        "--params=step=+0"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("babeltrace2 failed on %s: %s" % (trace_dir, r.stderr.strip()[-500:]))
    counts = re.findall(r"^\s*(\d+)\s+Event messages?\s*$", r.stdout, re.M)
    if not counts:
        raise RuntimeError("babeltrace2 counter printed no event count for %s" % trace_dir)
    return int(counts[-1])


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total

# ---- running --------------------------------------------------------------


def run_child(argv, env, timeout):
    """Run with fork/exec and os.wait4 so the child's own rusage is known."""
    t0 = time.monotonic()
    rfd, wfd = os.pipe()
    efd_r, efd_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            os.close(efd_r)
            os.dup2(wfd, 1)
            os.dup2(efd_w, 2)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    os.close(wfd)
    os.close(efd_w)
    out_chunks, err_chunks = [], []
    sel = selectors.DefaultSelector()
    sel.register(rfd, selectors.EVENT_READ, out_chunks)
    sel.register(efd_r, selectors.EVENT_READ, err_chunks)
    open_fds = 2
    deadline = t0 + timeout
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            raise RuntimeError("%s: timed out after %ds" % (argv[0], timeout))
        for key, _ in sel.select(timeout=left):
            data = os.read(key.fd, 65536)
            if not data:
                sel.unregister(key.fd)
                os.close(key.fd)
                open_fds -= 1
            else:
                key.data.append(data)
    _, status, rusage = os.wait4(pid, 0)
    elapsed = time.monotonic() - t0
    out = b"".join(out_chunks).decode(errors="replace")
    err = b"".join(err_chunks).decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(argv), code, err.strip()[-800:]))
    return out, err, rusage, elapsed


def parse_metrics(out):
    metrics = {}
    for line in out.splitlines():
        if line.startswith("@"):
            parts = line[1:].split()
            if len(parts) == 2:
                try:
                    metrics[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    return metrics


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))

# ---- report ---------------------------------------------------------------


def fmt(v, digits=1):
    if v is None:
        return "–"
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 100:
        return "%.0f" % v if digits <= 1 else "%.1f" % v
    return "%.*f" % (digits, v)


def fmt_ratio(v):
    return "–" if v is None else "%.2f" % v


def package_version(pkg):
    if not pkg or not shutil.which("dpkg-query"):
        return ""
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def machine_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = "%.1f GiB" % (kb / 1048576)
    except (OSError, ValueError, IndexError):
        pass
    try:
        distro = platform.freedesktop_os_release().get("PRETTY_NAME", "")
    except (OSError, AttributeError):
        distro = ""
    try:
        load = " ".join("%.1f" % x for x in os.getloadavg())
    except OSError:
        load = ""
    return {
        "load": load,
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "kernel": "%s %s" % (platform.system(), platform.release()),
        "memory": mem,
        "distro": distro,
    }


class Results:
    def __init__(self):
        self.data = {}   # (mode, bench) -> list of dict per rep
        self.errors = []

    def add(self, mode, bench, rec):
        self.data.setdefault((mode, bench), []).append(rec)

    def med(self, mode, bench, key):
        recs = self.data.get((mode, bench), [])
        return median([r["metrics"].get(key)
                       for r in recs])

    def med_ratio(self, mode, bench, key, base):
        """Median over the repetitions of key / base within each: on a
        shared machine a repetition's figures move together."""
        recs = self.data.get((mode, bench), [])
        return median([r["metrics"][key] / r["metrics"][base] for r in recs
                       if r["metrics"].get(key) and r["metrics"].get(base)])


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def build_report(res, modes, benches, args, info, lttng_note, reps, elapsed):
    ran = [m for m in modes if not m.missing and any((m.name, b) in res.data for b in benches)]
    names = [m.name for m in ran]
    out = []
    out.append("# slubtrace benchmarks")
    out.append("")
    out.append("Command: `%s`  " % args.command)
    out.append("Machine: %s cpus, %s, %s, %s%s  " % (
        info["nproc"], info["cpu"], info["kernel"], info["memory"],
        (", " + info["distro"]) if info["distro"] else ""))
    out.append("Profile: %s, %d repetition(s), interleaved (round robin over allocators "
               "within each repetition); medians. Run time %.0f s.  " %
               (args.profile, reps, elapsed))
    if info.get("load"):
        out.append("Load average at the end (other work shares the cpus): %s.  " % info["load"])
    if lttng_note:
        out.append("Tracing: %s; channel `bench` with %s x %d sub-buffers, discard mode.  " %
                   (lttng_note, args.subbuf_size, args.num_subbuf))
    out.append("")
    out.append("Allocators and modes:")
    out.append("")
    for m in modes:
        libs = " ".join(os.path.basename(p) for p in m.preload if p) or "(none)"
        state = ("not run: " + m.missing) if m.missing else ("LD_PRELOAD=" + libs)
        version = package_version(m.package)
        out.append("- `%s`: %s%s — %s" % (m.name, m.desc,
                                           (" " + version) if version else "", state))
    out.append("")
    out.append("Times are nanoseconds per operation (lower is better); slab_test also "
               "prints cycles, kept in the raw log.")
    out.append("")

    rows = []
    for label, bench, key in SUMMARY_ROWS:
        if bench not in benches:
            continue
        vals = [res.med(n, bench, key) for n in names]
        if all(v is None for v in vals):
            continue
        rows.append((label, bench, key, vals))

    out.append("## Time per operation (ns, median)")
    out.append("")
    out.append(table(["benchmark"] + names, [[r[0]] + [fmt(v) for v in r[3]] for r in rows]))
    out.append("")
    for base in ("glibc", "mimalloc"):
        if base not in names:
            continue
        bi = names.index(base)
        out.append("## Ratio against %s (time / %s time; < 1 is faster)" % (base, base))
        out.append("")
        trows = []
        for label, _, _, vals in rows:
            b = vals[bi]
            trows.append([label] + [fmt_ratio(v / b) if v is not None and b else "–"
                                    for v in vals])
        out.append(table(["benchmark"] + names, trows))
        out.append("")

    out.append("## Peak RSS (KiB, median; ratio to glibc)")
    out.append("")
    out.append("VmHWM of the benchmark process at exit. (The child's ru_maxrss is also in "
               "the raw log, but it inherits the Python launcher's peak across exec.)")
    out.append("")
    rss_rows = []
    for b in benches:
        vals = [res.med(n, b, "rss_kb") for n in names]
        g = res.med("glibc", b, "rss_kb")
        rss_rows.append([b] + ["%s (%.2fx)" % (fmt(v, 0), v / g) if v and g else fmt(v, 0)
                               for v in vals])
    out.append(table(["benchmark"] + names, rss_rows))
    out.append("")

    traced = [m for m in ran if m.session]
    if traced:
        out.append("## Traced modes: events")
        out.append("")
        out.append("Events counted with babeltrace2 (sink.utils.counter); bytes/event = trace "
                   "directory size / events; events/s over the program's own timed span.")
        out.append("")
        trows = []
        for m in traced:
            for b in benches:
                ev = res.med(m.name, b, "events")
                if ev is None:
                    continue
                wall = res.med(m.name, b, "wall_s")
                size = res.med(m.name, b, "trace_bytes")
                disc = res.med(m.name, b, "discarded")
                trows.append([m.name, b, fmt(ev, 0),
                              fmt(ev / wall, 0) if wall else "–",
                              fmt(size / ev, 1) if ev else "–",
                              fmt(size / 1048576.0, 1) if size is not None else "–",
                              fmt(disc, 0)])
        out.append(table(["mode", "benchmark", "events", "events/s", "bytes/event",
                          "trace MiB", "discarded"], trows))
        out.append("")

    out.extend(probe_sections(res, names))

    out.append("## Targets")
    out.append("")
    out.append("A miss is a finding about the allocator, not a failed run.")
    out.append("")
    out.extend(targets(res, names, benches))
    out.append("")
    if args.detail and "slab_test" in benches:
        out.append("## slab_test detail (ns, median)")
        out.append("")
        keys = []
        for recs in (res.data.get((n, "slab_test"), []) for n in names):
            for r in recs:
                for k in r["metrics"]:
                    if k.endswith(".ns") and k not in keys:
                        keys.append(k)
        keys.sort(key=_slab_key)
        out.append(table(["metric"] + names,
                         [[k[:-3]] + [fmt(res.med(n, "slab_test", k)) for n in names]
                          for k in keys]))
        out.append("")
    if res.errors:
        out.append("## Errors")
        out.append("")
        for e in res.errors:
            out.append("- " + e)
        out.append("")
    return "\n".join(out)


def _slab_key(k):
    parts = k.split(".")
    try:
        size = int(parts[2])
    except (IndexError, ValueError):
        size = 0
    return (parts[0], parts[1], size)


def targets(res, names, benches):
    lines = []

    def have(*ms):
        return all(m in names for m in ms)

    def vals(mode, keys):
        return [res.med(mode, b, k) for b, k in keys]

    def ratio_geo(a, b, keys):
        pairs = [(x, y) for x, y in zip(vals(a, keys), vals(b, keys)) if x and y]
        if not pairs:
            return None
        return geomean([x / y for x, y in pairs])

    def verdict(ok):
        return "met" if ok else "**missed**"

    slub = [n for n in ("slub-off", "slub-idle") if n in names]
    fast = [("slab_test", "t1.alloc.%d.ns" % s) for s in SIZES_FAST] + \
           [("slab_test", "t1.free.%d.ns" % s) for s in SIZES_FAST] + \
           [("slab_test", "t2.pair.%d.ns" % s) for s in SIZES_FAST]
    remote = [("slab_test", "t4.free.%d.ns" % s) for s in SIZES_FAST]
    prodcons = [("xmalloc", "xmalloc.ns")]
    timed = [(b, k) for _, b, k in SUMMARY_ROWS if b in benches]
    per_alloc = [("slab_test", "t2.pair.%d.ns" % s) for s in SIZES_FAST] + \
                [("larson", "larson.ns"), ("xmalloc", "xmalloc.ns")]

    rows = []
    for s in slub:
        if "slab_test" in benches and have("mimalloc", "glibc"):
            rm = ratio_geo(s, "mimalloc", fast)
            rg = ratio_geo(s, "glibc", fast)
            if rm is not None and rg is not None:
                worst = _worst(res, s, "mimalloc", fast)
                rows.append(["fast paths (tests 1-2, 8..256 B), %s" % s,
                             "<= 1.3x mimalloc, <= 1x glibc",
                             "%.2fx mimalloc, %.2fx glibc (worst: %s)" % (rm, rg, worst),
                             verdict(rm <= 1.3 and rg <= 1.0)])
        for label, keys in (("remote free (test 4 free, 8..256 B)", remote),
                            ("producer/consumer (xmalloc)", prodcons)):
            if keys[0][0] in benches and have("mimalloc", "glibc"):
                rm = ratio_geo(s, "mimalloc", keys)
                rg = ratio_geo(s, "glibc", keys)
                if rm is not None and rg is not None:
                    rows.append(["%s, %s" % (label, s), "<= 2x mimalloc, < 1x glibc",
                                 "%.2fx mimalloc, %.2fx glibc" % (rm, rg),
                                 verdict(rm <= 2.0 and rg < 1.0)])
    if have("slub-idle", "slub-off"):
        r = ratio_geo("slub-idle", "slub-off", timed)
        if r is not None:
            rows.append(["compiled in, idle vs compiled out", "<= 1.02x",
                         "%.3fx (geomean of %d figures; worst: %s)" %
                         (r, len(timed), _worst(res, "slub-idle", "slub-off", timed)),
                         verdict(r <= 1.02)])
    if have("slub-trans", "slub-off"):
        r = ratio_geo("slub-trans", "slub-off", timed)
        if r is not None:
            rows.append(["active, transition events vs untraced", "<= 3x",
                         "%.2fx (geomean; worst: %s)" %
                         (r, _worst(res, "slub-trans", "slub-off", timed)),
                         verdict(r <= 3.0)])
    if have("slub-trans", "slub-off", "libc-wrap", "glibc"):
        cs = [a - b for a, b in zip(vals("slub-trans", per_alloc), vals("slub-off", per_alloc))
              if a is not None and b is not None]
        cw = [a - b for a, b in zip(vals("libc-wrap", per_alloc), vals("glibc", per_alloc))
              if a is not None and b is not None]
        if cs and cw:
            s_cost = sum(cs) / len(cs)
            w_cost = sum(cw) / len(cw)
            ratio = w_cost / s_cost if s_cost > 0 else float("inf")
            rows.append(["tracing cost per allocation: libc wrapper / slub-trans",
                         ">= 5x",
                         "%s (added ns per malloc+free: slub-trans %.1f, libc-wrap %.1f)" %
                         ("inf" if math.isinf(ratio) else "%.1fx" % ratio, s_cost, w_cost),
                         verdict(ratio >= 5.0)])
    if have("slub-obj", "slub-off"):
        r = ratio_geo("slub-obj", "slub-off", timed)
        if r is not None:
            rows.append(["active, object events too vs untraced", "(reported)",
                         "%.2fx (geomean)" % r, "–"])
    for s in slub:
        if "glibc" in names:
            rs = [(b, res.med(s, b, "rss_kb"), res.med("glibc", b, "rss_kb"))
                  for b in benches]
            rs = [(b, x / y) for b, x, y in rs if x and y]
            if rs:
                b, worst = max(rs, key=lambda t: t[1])
                rows.append(["peak RSS, %s" % s, "<= 1.3x glibc",
                             "worst %.2fx (%s)" % (worst, b), verdict(worst <= 1.3)])
    if not rows:
        return ["(no slubtrace mode ran: nothing to check)"]
    lines.append(table(["target", "goal", "measured", "verdict"], rows))
    return lines


def _worst(res, a, b, keys):
    worst = None
    for bench, k in keys:
        x, y = res.med(a, bench, k), res.med(b, bench, k)
        if x and y and (worst is None or x / y > worst[1]):
            worst = (k if bench == "slab_test" else bench, x / y)
    return "%s %.2fx" % (worst[0].replace(".ns", ""), worst[1]) if worst else "–"

# ---- main -----------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_const", dest="profile", const="quick",
                    help="smaller runs, 3 repetitions (under 2 minutes)")
    ap.add_argument("--smoke", action="store_const", dest="profile", const="smoke",
                    help="tiny runs, 1 repetition, no tracing (checks the harness)")
    ap.add_argument("--out", help="markdown report (default tests/bench/results/latest.md)")
    ap.add_argument("--reps", type=int, help="repetitions (default 5 full, 3 quick)")
    ap.add_argument("--modes", help="comma list of modes to run (default all)")
    ap.add_argument("--benches", help="comma list of benchmarks (default all)")
    ap.add_argument("--build", default=os.path.join(TOP_DIR, "build-bench"),
                    help="build with tracing compiled in (default build-bench)")
    ap.add_argument("--build-notrace", default=os.path.join(TOP_DIR, "build-bench-notrace"),
                    help="build with -DSLUB_TRACE=OFF (default build-bench-notrace)")
    ap.add_argument("--bin-dir", help="benchmark programs (default BUILD/tests/bench)")
    ap.add_argument("--slub-lib", help="libslub-malloc.so with tracing compiled in")
    ap.add_argument("--slub-notrace-lib", help="libslub-malloc.so with tracing compiled out")
    ap.add_argument("--tp-lib", help="libslub-tp.so")
    ap.add_argument("--subbuf-size", default="4M", help="LTTng sub-buffer size (4M)")
    ap.add_argument("--num-subbuf", type=int, default=8, help="LTTng sub-buffers (8)")
    ap.add_argument("--no-detail", dest="detail", action="store_false",
                    help="leave out the per-size slab_test table")
    ap.add_argument("--keep-traces", action="store_true", help="keep the trace directories")
    ap.add_argument("--timeout", type=int, default=300, help="per run, seconds (300)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.set_defaults(profile="full")
    args = ap.parse_args()
    args.command = os.environ.get("SLUB_BENCH_COMMAND") or " ".join(sys.argv)

    reps = args.reps or PROFILES[args.profile]
    bin_dir = args.bin_dir or os.path.join(args.build, "tests", "bench")
    benches = list(BENCHES)
    if args.benches:
        benches = [b for b in args.benches.split(",") if b]
        for b in benches:
            if b not in BENCHES:
                ap.error("unknown benchmark %s (have: %s)" % (b, ", ".join(BENCHES)))
    for b in benches:
        prog = os.path.join(bin_dir, BENCHES[b][0])
        if not os.access(prog, os.X_OK):
            ap.error("%s not built (looked in %s; build with cmake --build, or pass --bin-dir)"
                     % (BENCHES[b][0], bin_dir))

    modes = make_modes(args)
    if args.modes:
        want = [m for m in args.modes.split(",") if m]
        known = {m.name for m in modes}
        for w in want:
            if w not in known:
                ap.error("unknown mode %s (have: %s)" % (w, ", ".join(sorted(known))))
        modes = [m for m in modes if m.name in want]
    if args.profile == "smoke" and not args.modes:
        modes = [m for m in modes if not m.session and m.name in ("glibc", "slub-off")]
    runnable = [m for m in modes if not m.missing]
    for m in modes:
        if m.missing:
            sys.stderr.write("run-bench: skipping %s: %s\n" % (m.name, m.missing))
    if not runnable:
        sys.stderr.write("run-bench: no mode can run\n")
        return 1

    out_path = args.out or os.path.join(SRC_DIR, "results", "latest.md")
    workdir = tempfile.mkdtemp(prefix="slub-bench-")
    log_path = os.path.splitext(out_path)[0] + ".log"
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    log = open(log_path, "w")
    log.write("# raw output of: %s\n" % args.command)

    lt = None
    res = Results()
    t_start = time.monotonic()
    try:
        if any(m.session for m in runnable):
            if not shutil.which("lttng-sessiond") or not shutil.which("babeltrace2"):
                for m in runnable:
                    if m.session:
                        m.missing = "lttng-sessiond or babeltrace2 not installed"
                runnable = [m for m in runnable if not m.missing]
            else:
                lt = Lttng(workdir, args.verbose)
                lt.start()
        base_env = dict(os.environ)
        base_env.pop("LD_PRELOAD", None)
        if lt:
            base_env["LTTNG_HOME"] = lt.home
        total = reps * len(benches) * len(runnable)
        done = 0
        for rep in range(reps):
            if not sys.stderr.isatty():
                sys.stderr.write("run-bench: repetition %d of %d\n" % (rep + 1, reps))
            run_probes(res, log, base_env, lt, workdir, args, bin_dir, rep)
            for b in benches:
                prog, params = BENCHES[b]
                argv = [os.path.join(bin_dir, prog)] + params[args.profile] + ["-M"]
                order = runnable[rep % len(runnable):] + runnable[:rep % len(runnable)]
                for m in order:
                    done += 1
                    env = dict(base_env)
                    if m.preload:
                        env["LD_PRELOAD"] = ":".join(m.preload)
                    if sys.stderr.isatty():
                        sys.stderr.write("\r[%d/%d] rep %d %-14s %-10s   " %
                                         (done, total, rep + 1, b, m.name))
                        sys.stderr.flush()
                    try:
                        rec = run_one(argv, env, m, lt, workdir, args, rep, b)
                    except Exception as e:  # noqa: BLE001 - report, keep going
                        lines = [x.strip() for x in str(e).splitlines() if x.strip()]
                        res.errors.append("%s/%s rep %d: %s" % (
                            m.name, b, rep + 1, " / ".join(lines[:1] + lines[-1:])[:400]))
                        log.write("## %s %s rep %d FAILED: %s\n" % (m.name, b, rep + 1, e))
                        continue
                    res.add(m.name, b, rec)
                    log.write("## %s %s rep %d\n%s\n" % (m.name, b, rep + 1, rec["stdout"]))
        if sys.stderr.isatty():
            sys.stderr.write("\n")
    finally:
        if lt:
            lt.stop()
        if not args.keep_traces:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            sys.stderr.write("run-bench: traces kept in %s\n" % workdir)
        log.close()

    report = build_report(res, modes, benches, args, machine_info(),
                          lt.note if lt else "", reps, time.monotonic() - t_start)
    with open(out_path, "w") as f:
        f.write(report + "\n")
    print(report)
    sys.stderr.write("run-bench: report in %s, raw output in %s\n" % (out_path, log_path))
    return 1 if res.errors and not res.data else (2 if res.errors else 0)


# The floor and the event cost: measured once per repetition, beside the
# benchmarks, so that every report carries them.
# what slubtrace record adds to the slub channel: nothing since wire format
# 12, whose events carry their pid and tid themselves
EVENT_COST_CONTEXTS = ()
# Its channel, per cpu: 8 sub-buffers of 8 MiB.  event_cost writes 72 MiB
# before timing, so that every timed event goes to a ring buffer already
# written once (a first pass costs about twice as much).
EVENT_COST_SUBBUF, EVENT_COST_NSUBBUF, EVENT_COST_WARM_MIB = "8M", 8, "72"


def run_probes(res, log, base_env, lt, workdir, args, bin_dir, rep):
    floor = os.path.join(bin_dir, "dwcas_floor")
    if os.access(floor, os.X_OK):
        try:
            out, _, _, _ = run_child([floor, "-M"], dict(base_env), args.timeout)
            res.add("floor", "dwcas", {"metrics": parse_metrics(out), "stdout": out})
            log.write("## floor rep %d\n%s\n" % (rep + 1, out))
        except Exception as e:  # noqa: BLE001 - report, keep going
            res.errors.append("dwcas_floor rep %d: %s" % (rep + 1, str(e)[:300]))
    cost = os.path.join(bin_dir, "event_cost")
    tp = args.tp_lib or find_lib(args.build, "libslub-tp.so")
    if not lt or not tp or not os.access(cost, os.X_OK) or args.profile == "smoke":
        return
    n = {"full": "20000", "quick": "10000"}.get(args.profile, "2000")
    # Plain, then with the slab_word event's stack selected (16 frames).
    for label, stacks in (("event_cost", "none"), ("event_cost_stack", "free_remote")):
        trace_dir = os.path.join(workdir, "trace-%s-%d" % (label, rep))
        session = lt.open_session(trace_dir, [["slub:*"], ["slub_bench:*"]], EVENT_COST_SUBBUF,
                                  EVENT_COST_NSUBBUF, EVENT_COST_CONTEXTS)
        env = dict(base_env, LD_PRELOAD=tp, SLUBTRACE_STACKS=stacks)
        discarded = None
        try:
            out, _, _, _ = run_child([cost, "-n", n, "-r", "5", "-w", EVENT_COST_WARM_MIB, "-M"],
                                     env, args.timeout)
        except Exception as e:  # noqa: BLE001 - report, keep going
            res.errors.append("%s rep %d: %s" % (label, rep + 1, str(e)[:300]))
            continue
        finally:
            discarded = lt.close_session(session)
        metrics = parse_metrics(out)
        metrics["discarded"] = float(discarded or 0)
        metrics["events"] = float(count_events(trace_dir))
        metrics["trace_bytes"] = float(dir_bytes(trace_dir))
        res.add(label, "event_cost", {"metrics": metrics, "stdout": out})
        log.write("## %s rep %d (discarded %s)\n%s\n" % (label, rep + 1, discarded, out))
        if not args.keep_traces:
            shutil.rmtree(trace_dir, ignore_errors=True)


EVENT_COST_CLASSES = [
    ("slab_word", "free_remote (and slab_new, slab_discard, freeze, unfreeze, "
     "take_freelist, drain_freelist)"),
    ("cmpxchg_fail", "cmpxchg_fail"),
    ("cpu_cmpxchg_fail", "cpu_cmpxchg_fail"),
    ("cpu_slab", "deactivate (and cpu_slab_load, cpu_partial_*)"),
    ("list_op", "add_partial (and remove_partial, add_full, remove_full)"),
    ("lock_acquire", "lock_acquire"),
    ("lock_release", "lock_release"),
    ("thread_flush", "thread_flush"),
    ("object", "free (and alloc)"),
    ("cache_create", "cache_create"),
    ("error", "error"),
]

# Rows whose every call is a slab-word CAS (a free that is not to the
# thread's own cpu slab), or the pair the fast path serves.
FLOOR_ROWS = [
    ("1. free(64) (N x free)", "t1.free.64.ns"),
    ("4. remote: free(64)", "t4.free.64.ns"),
    ("5. 1 alloc N free: free(64)", "t5.free.64.ns"),
    ("2. malloc/free(64)", "t2.pair.64.ns"),
]


def probe_sections(res, names):
    out = []
    floor = res.med("floor", "dwcas", "floor.dwcas.ns")
    if floor:
        out.append("## Floor: one `lock cmpxchg16b`")
        out.append("")
        out.append("`dwcas_floor`: a loop of successful `lock cmpxchg16b` on one 16-byte "
                   "word, one thread (median of the repetitions): **%.1f ns**. A faithful "
                   "`__slab_free` does one per free that is not to the thread's own cpu slab; "
                   "ratios are time / floor." % floor)
        seq = res.med("floor", "dwcas", "floor.dwcas_free.ns")
        if seq:
            out.append("")
            out.append("The bare sequence of such a free, with nothing around it (read the "
                       "word consistently, store the free pointer into the object, the CAS; "
                       "`dwcas_floor`'s second loop): **%.1f ns** (%.2fx the floor)."
                       % (seq, seq / floor))
        out.append("")
        rows = []
        for label, key in FLOOR_ROWS:
            vals = [res.med(n, "slab_test", key) for n in names]
            if all(v is None for v in vals):
                continue
            rows.append([label] + ["%s (%.2fx)" % (fmt(v), v / floor) if v else "–"
                                   for v in vals])
        if rows:
            out.append(table(["benchmark (ns, x floor)"] + names, rows))
            out.append("")
    minimal = res.med("event_cost", "event_cost", "ev.minimal.ns")
    if minimal:
        disc = sum(r["metrics"].get("discarded", 0) for k in ("event_cost", "event_cost_stack")
                   for r in res.data.get((k, "event_cost"), []))
        out.append("## Cost of one enabled event, per class")
        out.append("")
        out.append("`event_cost` (libslub-tp.so preloaded) emits each class through "
                   "`slub_trace_emit()` and a minimal LTTng-UST event "
                   "(`slub_bench:minimal`, one integer field) in the same session "
                   "(channel 8M x 8, no context: `slubtrace record` adds none to the slub "
                   "channel, its events carry their pid and tid), interleaved, medians, "
                   "pinned to one cpu whose ring buffer "
                   "%s MiB of minimal events went through first (`-w`: a first pass "
                   "through a buffer costs about twice as much); %d events discarded. "
                   "`x minimal` is the median of each repetition's ratio. "
                   "Target: at most 1.3x the minimal event." % (EVENT_COST_WARM_MIB, disc))
        out.append("")
        rows = [["minimal (one integer)", "slub_bench:minimal", fmt(minimal), "1.00", "–"]]
        for key, label, what in (
                ("ev.four_fields.ns", "yardstick: 25 bytes as 4 fields",
                 "slub_bench:four_fields (format 10's slab-word fields, LTTng alone)"),
                ("ev.packed.ns", "yardstick: 25 bytes packed",
                 "slub_bench:packed (one array of 3 words, a byte)")):
            v = res.med("event_cost", "event_cost", key)
            if v is not None:
                rows.append([label, what, fmt(v),
                             fmt_ratio(res.med_ratio("event_cost", "event_cost", key,
                                                     "ev.minimal.ns")), "(reported)"])
        for cls, what in EVENT_COST_CLASSES:
            key = "ev.%s.ns" % cls
            v = res.med("event_cost", "event_cost", key)
            if v is None:
                continue
            ratio = res.med_ratio("event_cost", "event_cost", key, "ev.minimal.ns")
            rows.append([cls, what, fmt(v), fmt_ratio(ratio),
                         "met" if ratio <= 1.3 else "**missed**"])
        st = res.med("event_cost_stack", "event_cost", "ev.slab_word.ns")
        sr = res.med_ratio("event_cost_stack", "event_cost", "ev.slab_word.ns", "ev.minimal.ns")
        if st and sr:
            rows.append(["slab_word + slub:stack", "free_remote with its 16-frame stack "
                         "(SLUBTRACE_STACKS=free_remote)", fmt(st), fmt_ratio(sr),
                         "(reported)"])
        out.append(table(["class", "event timed", "ns", "x minimal", "<= 1.3x"], rows))
        out.append("")
    if "slub-trans" in names and "libc-wrap" in names:
        out.append("## slub-trans against libc-wrap, every slab_test pattern")
        out.append("")
        out.append("Transition events (slubtrace) against the LTTng libc wrapper's "
                   "event per call, ns per operation; target: slub-trans never more "
                   "expensive.")
        out.append("")
        rows = []
        worse = 0
        for label, bench, key in SUMMARY_ROWS:
            if bench != "slab_test":
                continue
            a, b = res.med("slub-trans", bench, key), res.med("libc-wrap", bench, key)
            if a is None or b is None:
                continue
            worse += a > b
            rows.append([label, fmt(a), fmt(b), fmt_ratio(a / b),
                         "**more expensive**" if a > b else "cheaper"])
        out.append(table(["pattern", "slub-trans", "libc-wrap", "ratio", ""], rows))
        out.append("")
        out.append("slub-trans is more expensive than the wrapper on %d of %d patterns."
                   % (worse, len(rows)))
        out.append("")
    return out


def run_one(argv, env, mode, lt, workdir, args, rep, bench):
    session = None
    trace_dir = None
    if mode.session:
        trace_dir = os.path.join(workdir, "trace-%s-%s-%d" % (mode.name, bench, rep))
        session = lt.open_session(trace_dir, mode.session, args.subbuf_size, args.num_subbuf,
                                  mode.contexts)
    discarded = None
    try:
        out, err, ru, elapsed = run_child(argv, env, args.timeout)
    finally:
        if session:
            discarded = lt.close_session(session)
    metrics = parse_metrics(out)
    rec = {"metrics": metrics, "stdout": out, "elapsed": elapsed}
    # Peak RSS: the program's VmHWM; the child's ru_maxrss otherwise
    # (which includes this launcher's own peak, inherited across exec).
    metrics["rss_kb"] = metrics.get("vmhwm_kb", float(ru.ru_maxrss))
    if session:
        metrics["events"] = float(count_events(trace_dir))
        metrics["trace_bytes"] = float(dir_bytes(trace_dir))
        metrics["discarded"] = float(discarded or 0)
        if not args.keep_traces:
            shutil.rmtree(trace_dir, ignore_errors=True)
    if err.strip():
        rec["stdout"] += "\n[stderr]\n" + err
    return rec


if __name__ == "__main__":
    sys.exit(main())
