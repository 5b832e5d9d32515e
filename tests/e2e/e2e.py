#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tracing tests: a real lttng-sessiond, real traces, babeltrace2.

    e2e.py --build DIR --source DIR TEST

Tests:
  stress        e2e_stress (slub_* API, libslub-tp.so preloaded) in a session
                set up here; the trace against the program's own observer
                counts and stat counters, the slab-word chains, the enum labels
  python        `slubtrace record --stacks all` of a multi-threaded python3
                workload on the malloc shim: several threads, symbolized stacks
  fork          `slubtrace record` of a program forking while its threads
                allocate: no hang, the children are traced
  threads       `slubtrace record` starting its own session daemon: waves of
                threads whose first events come while others run; the daemon
                is gone afterwards
  perf          as threads, with a perf:thread context, whose per-thread data
                LTTng-UST allocates inside the probe on a thread's first event
  startup       short programs under `slubtrace record` (LTTng-UST allocates
                in its constructors and listener threads)
  options       `slubtrace record` options: --objects (alloc/free events, one
                per object), --no-full-lists (no full-list events),
                --dlopen-events, --no-blocking (discard mode, and the advice
                that names waiting),
                --snapshot (a flight-recorder snapshot written at exit),
                --buffer-size, --nodes, --blocking (nothing discarded with
                a trace larger than the ring buffers)
  errno         test_stress (errno checked around every free) under
                `slubtrace record --stacks all` with race-window: tracing and
                stack walking never change errno
  clock         `slubtrace record --clock tsc`: the TSC clock plugin where the
                machine's TSC is one clock (forced where cpuid says invariant),
                LTTng's clock otherwise, refused beside a running daemon
  probe_malloc  as threads, with a getcpu plugin that mallocs inside the probe
                on each thread's first event (what perf contexts do): the
                allocations made inside the allocator come from the shim's
                arena, nothing hangs

Every test runs its own lttng-sessiond --no-kernel under a private LTTNG_HOME
in a temporary directory.  A root session daemon always uses the global
/var/run/lttng, so as root the test drops to the `nobody` user (when that
user can read the build tree), which keeps it apart from any other daemon.
Exit status: 0 pass, 1 fail, 77 skipped.
"""
import argparse
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
# A command that runs longer has hung.  The longest, e2e_errno's record of
# test_stress, takes 35 s quiet and 17 times as long beside stress-ng on a
# shared 2-core machine.
TIMEOUT = 600

SLUB_EVENTS = [
    "cache_create", "cache_destroy", "slab_new", "slab_discard", "freeze",
    "unfreeze", "take_freelist", "free_remote", "drain_freelist",
    "cpu_slab_load", "deactivate", "cpu_partial_put", "cpu_partial_take",
    "cpu_partial_drain", "add_partial", "remove_partial", "add_full",
    "remove_full", "cmpxchg_fail", "cpu_cmpxchg_fail", "lock_acquire",
    "lock_release", "thread_flush", "alloc", "free", "error",
]
WORD_UPDATES = {"freeze", "unfreeze", "take_freelist", "free_remote",
                "drain_freelist"}


class Failure(Exception):
    pass


def python3():
    """A python3 the current user can run (/usr/bin first: a per-user
    interpreter may sit in a home directory the test user cannot read)."""
    for p in ("/usr/bin/python3", shutil.which("python3"), sys.executable):
        if p and os.access(p, os.X_OK) and os.access(os.path.realpath(p), os.R_OK | os.X_OK):
            return p
    return sys.executable


def log(msg):
    print(msg, flush=True)


# ---- processes ---------------------------------------------------------------

def run(argv, env=None, timeout=TIMEOUT, check=True, capture=True, what=None):
    """Runs argv in its own process group; a timeout is a hang: fail."""
    what = what or os.path.basename(argv[0])
    p = subprocess.Popen(argv, env=env, start_new_session=True,
                         stdout=subprocess.PIPE if capture else None,
                         stderr=subprocess.STDOUT if capture else None,
                         text=True, errors="replace")
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stacks = dump_stacks(p.pid)
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        raise Failure("%s hung: no exit after %d s\n%s\n%s" % (what, timeout,
                                                           (out or "")[-4000:], stacks))
    if check and p.returncode != 0:
        raise Failure("%s exited with %d:\n%s" % (what, p.returncode, (out or "")[-4000:]))
    return p.returncode, out or ""


def dump_stacks(pgid):
    """Every thread's stack of a hung process group, for the log."""
    if not shutil.which("gdb"):
        return "(install gdb to see where it hung)"
    out = []
    pids = subprocess.run(["pgrep", "-g", str(pgid)], stdout=subprocess.PIPE,
                          text=True).stdout.split()
    for pid in pids:
        try:
            r = subprocess.run(["gdb", "-p", pid, "-batch", "-nx", "-ex",
                                "thread apply all bt 30"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace",
                               timeout=60)
            out.append("---- pid %s\n%s" % (pid, r.stdout[-12000:]))
        except subprocess.TimeoutExpired:
            out.append("---- pid %s: gdb timed out" % pid)
    return "\n".join(out)


class Env:
    """Paths, the private LTTNG_HOME and the session daemon of one test."""

    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.home = os.path.join(work, "home")
        os.makedirs(self.home, exist_ok=True)
        self.env = dict(os.environ)
        self.env["HOME"] = self.home
        self.env["LTTNG_HOME"] = self.home
        self.env.pop("LD_PRELOAD", None)
        self.env.pop("SLUBTRACE_LIBDIR", None)
        # Wait for the session daemon before main(), so no event is lost.
        self.env["LTTNG_UST_REGISTER_TIMEOUT"] = "30000"
        self.sessiond_pid = None
        self.root = os.geteuid() == 0

    def path(self, rel):
        return os.path.join(self.args.build, rel)

    def pidfile(self):
        if self.root:
            return "/var/run/lttng/lttng-sessiond.pid"
        return os.path.join(self.home, ".lttng", "lttng-sessiond.pid")

    def reachable(self):
        rc, _ = run(["lttng", "--no-sessiond", "list"], env=self.env, check=False, timeout=60)
        return rc == 0

    def start_sessiond(self):
        if self.root and self.reachable():
            raise Failure("a root session daemon is already running; run this test as a "
                          "user, or stop that daemon")
        run(["lttng-sessiond", "--no-kernel", "--daemonize"], env=self.env, timeout=60,
            what="lttng-sessiond")
        with open(self.pidfile()) as f:
            self.sessiond_pid = int(f.read().strip())
        for _ in range(1000):   # 100 s: a loaded machine (see TIMEOUT)
            if self.reachable():
                return
            time.sleep(0.1)
        raise Failure("the session daemon did not answer")

    def stop_sessiond(self):
        pid, self.sessiond_pid = self.sessiond_pid, None
        if not pid:
            return
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        for _ in range(200):
            if not os.path.exists("/proc/%d" % pid):
                return
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)

    def lttng(self, *args, timeout=120):
        return run(["lttng"] + list(args), env=self.env, timeout=timeout, what="lttng " + args[0])[1]

    def slubtrace(self, args, timeout=TIMEOUT, check=True):
        argv = [self.args.slubtrace, "record"] + args
        rc, out = run(argv, env=self.env, timeout=timeout, check=False, what="slubtrace record")
        log(out.rstrip())
        if check and rc != 0:
            raise Failure("slubtrace record exited with %d" % rc)
        if "--no-check" not in args:
            # record ends with `slubtrace check`: every e2e trace is a clean
            # run of the allocator, so the state model must find nothing.
            verdicts = re.findall(r'^verdict: .*$', out, re.M)
            if not verdicts and "no slub event in the trace" not in out:
                # (a program that allocates nothing leaves no slub event:
                # check says so and exits 2; the tests say which may)
                raise Failure("slubtrace record printed no check verdict")
            if not verdicts:
                return rc, out
            if not verdicts[-1].startswith("verdict: clean"):
                raise Failure("the state model flagged a clean run: " + verdicts[-1])
        return rc, out


# ---- reading traces ------------------------------------------------------------

LINE = re.compile(r'^\[[^\]]*\] (?:\([^)]*\) )?(?:[^ ]+ )?(\w+:\w+): (.*)$')
FIELD = re.compile(
    r'(\w+) = ('
    r'\( "(?:[^"\\]|\\.)*" : container = -?\d+ \)'   # enumeration
    r'|\[(?: \[\d+\] = [^,\]\s]+,?)* \]'              # sequence of integers
    r'|"(?:[^"\\]|\\.)*"'                              # string
    r'|[-+\w.]+)')                                     # integer
ENUM = re.compile(r'\( "((?:[^"\\]|\\.)*)" : container = (-?\d+) \)')
SEQ_ITEM = re.compile(r'\[\d+\] = ([^,\]\s]+)')


def take_pid_tid(f):
    """Format 12: a slub event's pid and tid in its payload (`pid_tid`, or
    the last word of a slab-word event's array) instead of the vpid and vtid
    contexts; f gets them as the contexts' keys, and a format-11 array's
    three words."""
    if "where_slab_fl_counters_pid_tid" in f:
        w = f.pop("where_slab_fl_counters_pid_tid")
        if len(w) != 4:
            raise Failure("a slab-word event with %d words, not 4" % len(w))
        f["where_slab_fl_counters"], f["pid_tid"] = w[:3], w[3]
    if "pid_tid" in f:
        pt = f.pop("pid_tid")
        pid, tid = pt >> 32, pt & 0xffffffff
        # a session that added the contexts too: the two must agree
        if f.get("vpid", pid) != pid or f.get("vtid", tid) != tid:
            raise Failure("pid_tid says pid %d tid %d, the contexts vpid %s vtid %s"
                          % (pid, tid, f.get("vpid"), f.get("vtid")))
        f["vpid"], f["vtid"] = pid, tid


def value(v):
    c = v[0]
    if c == '(':
        m = ENUM.match(v)
        return (m.group(1), int(m.group(2)))
    if c == '[':
        return [int(x, 0) for x in SEQ_ITEM.findall(v)]
    if c == '"':
        return v[1:-1].replace('\\"', '"').replace('\\\\', '\\')
    try:
        return int(v, 0)
    except ValueError:
        return v


def unpack_counters(c):
    """The packed slab counters word of wire formats 2 to 4
    (tracepoints/slub_tp.h): inuse bits 0-15, objects 16-30, frozen 31,
    seq 32-63."""
    return {"inuse": c & 0xffff, "objects": (c >> 16) & 0x7fff, "frozen": (c >> 31) & 1,
            "seq": c >> 32}


SLAB_WORD = WORD_UPDATES | {"slab_new", "slab_discard"}
CPU_SLAB = {"cpu_slab_load", "deactivate", "cpu_partial_put", "cpu_partial_take",
            "cpu_partial_drain"}


def s16(v):
    return v - (1 << 16) if v & 0x8000 else v


def split_pair(v, first):
    """A format-3/4 enumeration of a pair, x | dest << 4, labelled "x -> dest"
    (or "x" when dest is none): {first: (label, x), "dest": (label, dest)}."""
    label, value = v
    x, _, dest = label.partition(" -> ")
    return {first: (x, value & 15), "dest": (dest or "none", value >> 4)}


def unpack_v3(f):
    """The fields of a format-3 or -4 event under their format-2 names, each
    in the events that had it, so that the checks read every format.
    Format 4 carries cache_create's flags as the eighth element of
    `geometry` where format 3 had a geometry of seven and `flags`,
    cmpxchg_fail's two words as one array of four (expected freelist,
    counters, observed freelist, counters) where format 3 had `expected`
    and `observed`, and error without `msg`."""
    n = f["_name"]
    w = f.pop("where")
    f.update({"cache_id": w & 0xffff, "cpu": s16((w >> 16) & 0xffff), "node": (w >> 32) & 0xff})
    arg = (w >> 48) & 0xffff
    if n in SLAB_WORD or n in CPU_SLAB or n in LIST_OPS or n == "cmpxchg_fail":
        f["locked"] = (w >> 40) & 1
    if n == "lock_acquire":
        f["contended"] = (w >> 41) & 1
    if n == "cache_create":
        f["announced"] = (w >> 42) & 1
        geometry = f.pop("geometry")
        if len(geometry) != (7 if "flags" in f else 8):
            raise Failure("cache_create with a geometry of %d%s" % (
                len(geometry), " and flags" if "flags" in f else " and no flags"))
        if "flags" not in f:
            f["flags"] = geometry.pop()
        f.update(zip(("object_size", "size", "align", "order", "objects", "min_partial",
                      "cpu_partial"), geometry))
    if n in SLAB_WORD:
        f["owner"] = s16(arg)
        f.update(split_pair(f["site"], "site"))
    elif n in CPU_SLAB or n == "thread_flush":
        f["slot"] = s16(arg)
        if n != "thread_flush":
            f.update(split_pair(f["reason"], "reason"))
    elif n in ("cmpxchg_fail", "cpu_cmpxchg_fail"):
        f["attempt"] = arg
    elif n in ("sheaf_refill", "sheaf_flush"):
        f["count"] = arg
    elif n == "sheaf_slot":
        f["slot"] = s16(arg)
    elif n in ("barn_put", "barn_get"):
        f["list"] = arg
    if n == "cmpxchg_fail":
        if "words" in f:
            words = f.pop("words")
            if len(words) != 4:
                raise Failure("cmpxchg_fail with %d words, not 4" % len(words))
            f["expected"], f["observed"] = words[:2], words[2:]
        for k in ("expected", "observed"):
            f[k + "_freelist"], f[k + "_counters"] = f.pop(k)
    if n in LIST_OPS and "lock_id_seq" in f:
        id_seq = f.pop("lock_id_seq")
        f["lock_id"], f["seq"] = id_seq & 0xffffffff, id_seq >> 32
    elif n in LIST_OPS or n in ("lock_acquire", "lock_release"):
        # format 10: every lock is the node list_lock of `where`
        f.setdefault("lock_id", f["cache_id"] * 64 + f["node"])


class Trace:
    WANT = ("slub:", "lttng_ust_statedump:bin_info", "lttng_ust_lib:load",
            "lttng_ust_dl:dlopen")
    FORMAT = 12

    def __init__(self, directory, env):
        p = subprocess.run(["babeltrace2", directory], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, errors="replace",
                           timeout=600)
        if p.returncode != 0:
            raise Failure("babeltrace2 %s failed:\n%s" % (directory, p.stderr[-2000:]))
        self.warnings = p.stderr
        self.discarded = sum(int(n) for n in
                             re.findall(r'discarded (\d+) events', p.stderr, re.I))
        self.events = []
        self.stacks = []    # slub:stack events, each attached to its event
        self.orphan_stacks = 0
        self.formats = set()
        # cache_create.flags, cmpxchg_fail.expected, error.msg: not in format 4
        self.format3_fields = 0
        self.objects = []   # (vpid, base, size, path, is_pic)
        last = {}           # (vpid, vtid, type) -> that thread's last such event
        names = {}          # (vpid, vtid) -> its last slub:comm name
        for line in p.stdout.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            name = m.group(1)
            if not name.startswith(self.WANT):
                continue
            f = {k: value(v) for k, v in FIELD.findall(m.group(2))}
            take_pid_tid(f)
            if not name.startswith("slub:"):
                self.objects.append((f.get("vpid"), f["baddr"], f["memsz"], f["path"],
                                     f.get("is_pic", 1)))
                continue
            f["_name"] = name[5:]
            if f["_name"] == "bin_info":
                # format 9: the allocator names the loaded objects itself
                self.objects.append((f.get("vpid"), f["baddr"], f["memsz"], f["path"],
                                     f.get("is_pic", 1)))
                continue
            if f["_name"] == "comm":
                # format 9: the thread's name, for the events that follow
                names[(f.get("vpid"), f.get("vtid"))] = f["name"]
                continue
            if "procname" not in f and (f.get("vpid"), f.get("vtid")) in names:
                f["procname"] = names[(f.get("vpid"), f.get("vtid"))]
            if "freelist_off" in f:
                # format 9's free_remote: the freelist as an offset in the slab
                off = f.pop("freelist_off")
                f["freelist"] = 0 if off == 0xffffffff else f["slab"] + off
            if "where_slab_fl_counters" in f:
                # format 11: a slab-word event's three words in one array
                w3 = f.pop("where_slab_fl_counters")
                if len(w3) != 3:
                    raise Failure("%s with %d words, not 3" % (name, len(w3)))
                f["where"], f["slab_fl"], f["counters"] = w3
            if "slab_fl" in f:
                # format 10: the slab's page number over the freelist's offset
                sf = f.pop("slab_fl")
                f["slab"] = sf >> 24 << 12
                off = sf & 0xffffff
                f["freelist"] = 0 if off == 0xffffff else f["slab"] + off
            if f["_name"] == "stack":
                self.stacks.append(f)
                e = last.get((f.get("vpid"), f.get("vtid"), f["of"][0]))
                if e is None or e.get("slab", 0) != f["slab"] or e["stack"]:
                    self.orphan_stacks += 1
                else:
                    e["stack"] = f["ips"]
                continue
            if "new_seq" in f or "stack" in f:
                raise Failure("%s: recorded with slub trace format 1; this test reads "
                              "formats 2 to 12" % directory)
            if f["_name"] == "cache_create":
                self.formats.add(f.get("format"))
            if "expected" in f or "msg" in f or ("flags" in f and "where" in f):
                self.format3_fields += 1
            if "where" in f:
                unpack_v3(f)
            if "counters" in f:
                f.update(unpack_counters(f["counters"]))
            for w in ("expected", "observed"):
                if w + "_counters" in f:
                    f.update({w + "_" + k: v for k, v in
                              unpack_counters(f[w + "_counters"]).items()})
            f["stack"] = []
            last[(f.get("vpid"), f.get("vtid"), f["_name"])] = f
            self.events.append(f)

    def slub(self, vpid=None):
        return [e for e in self.events if vpid is None or e.get("vpid") == vpid]


def check(cond, msg, errors):
    if not cond:
        errors.append(msg)


def check_announced(events, errors):
    """No event of a cache comes before the cache_create that names it in
    its process: the first traced event announces every cache, and the
    other threads wait for that (src/observer.c).  events: one process's,
    in trace order; not for a forked child, which inherits its parent's
    caches without announcing them."""
    named, early = set(), {}
    for e in events:
        if "cache_id" not in e:
            continue
        k = (e.get("vpid"), e["cache_id"])
        if e["_name"] == "cache_create":
            named.add(k)
        elif k not in named:
            early.setdefault(k, []).append(e["_name"])
    for (vpid, cid), names in sorted(early.items(), key=str):
        errors.append("process %s: %d event(s) of cache %d before its cache_create "
                      "(the first: %s)" % (vpid, len(names), cid, names[0]))


# ---- symbols ---------------------------------------------------------------------

class Symbols:
    """Nearest-symbol lookup in an ELF file with nm (symtab, else dynsym)."""

    def __init__(self):
        self.cache = {}

    def table(self, path):
        if path not in self.cache:
            syms = []
            for flags in (["-C"], ["-D", "-C"]):
                p = subprocess.run(["nm", "-S", "--defined-only"] + flags + [path],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   text=True, errors="replace")
                for line in p.stdout.splitlines():
                    parts = line.split(None, 3)
                    if len(parts) == 4 and parts[2] in "tTwWiI":
                        syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
                if syms:
                    break
            syms.sort()
            self.cache[path] = syms
        return self.cache[path]

    def lookup(self, path, addr):
        for start, size, name in self.table(path):
            if start <= addr < start + max(size, 1):
                return name
        return None


def symbolize(trace, vpid, ip):
    """(path, symbol or None) of a return address, or None if unmapped."""
    best = None
    for ovpid, base, size, path, pic in trace.objects:
        if ovpid != vpid or not (base <= ip < base + size):
            continue
        best = (path, ip - base if pic else ip)
    if not best:
        return None
    path, off = best
    if not os.path.exists(path):
        return (path, None)
    return (path, symbolize.syms.lookup(path, off - 1))


symbolize.syms = Symbols()


# ---- the tests ---------------------------------------------------------------------

def read_counts(path):
    c = {"caches": {}, "obs": {}, "contended": {}, "fail_locked": {}, "stat": {},
         "names": {}}
    with open(path) as f:
        for line in f:
            w = line.rstrip("\n").split(" ", 3)
            if w[0] == "pid":
                c["pid"] = int(w[1])
            elif w[0] == "overflow":
                c["overflow"] = int(w[1])
            elif w[0] == "cache":
                c["caches"][int(w[1])] = w[2]
            elif w[0] == "obs":
                c["obs"][(int(w[1]), w[2])] = int(w[3])
            elif w[0] in ("contended", "fail_locked"):
                c[w[0]][int(w[1])] = int(w[2])
            elif w[0] == "stat":
                c["stat"][(int(w[1]), w[2])] = int(w[3])
            elif w[0] == "name":
                c["names"].setdefault(w[1], {})[int(w[2])] = w[3]
    return c


def check_chains(events, errors):
    """Per slab, the slab-word updates ordered by seq form one chain: the
    wire carries only the new word, so seq advances by one from slab_new to
    slab_discard, objects never change, inuse <= objects, and slab_discard
    carries the last update's word with inuse 0 and unfrozen."""
    key = ("freelist", "inuse", "objects", "frozen", "seq")
    gens = {}
    for e in events:
        n = e["_name"]
        if n == "slab_new":
            gens.setdefault(e["slab"], []).append({"new": e, "updates": [], "discard": None})
        elif n in WORD_UPDATES or n == "slab_discard":
            g = gens.get(e["slab"])
            if not g:
                errors.append("%s on slab %#x before its slab_new" % (n, e["slab"]))
                continue
            if n == "slab_discard":
                g[-1]["discard"] = e
            else:
                g[-1]["updates"].append(e)
    breaks = 0
    updates = 0
    for slab, glist in gens.items():
        for g in glist:
            prev = {k: g["new"][k] for k in key}
            for u in sorted(g["updates"], key=lambda e: e["seq"]):
                updates += 1
                new = {k: u[k] for k in key}
                if new["seq"] != (prev["seq"] + 1) % (1 << 32) \
                   or new["objects"] != prev["objects"] or new["inuse"] > new["objects"]:
                    breaks += 1
                    if breaks <= 5:
                        errors.append("slab %#x: %s seq %d breaks the chain: new %s, "
                                      "previous new %s" % (slab, u["_name"], u["seq"],
                                                           new, prev))
                prev = new
            d = g["discard"]
            if d is not None:
                last = {k: d[k] for k in key}
                if last != prev:
                    breaks += 1
                    if breaks <= 5:
                        errors.append("slab %#x: slab_discard's word %s is not the last "
                                      "update's %s" % (slab, last, prev))
                if d["inuse"] != 0 or d["frozen"]:
                    errors.append("slab %#x discarded with inuse %d, frozen %d"
                                  % (slab, d["inuse"], d["frozen"]))
    log("  slab-word chains: %d slabs, %d generations, %d updates, %d breaks"
        % (len(gens), sum(len(g) for g in gens.values()), updates, breaks))
    check(updates > 0, "no slab-word update in the trace", errors)


LIST_OPS = ("add_partial", "remove_partial", "add_full", "remove_full")


def check_list_seqs(events, errors):
    """Every list operation carries the seq of the slab word it saw, and
    that word is one of the slab's chain: an add finds it unfrozen, with
    free objects on the partial list and none on the full list, so
    invariant 4 is checked by seq, not by timestamp."""
    words = {}
    for e in events:
        if e["_name"] in WORD_UPDATES or e["_name"] == "slab_new":
            if "new_seq" in e:
                words[(e["vpid"], e["slab"], e["new_seq"])] = (e["new_frozen"],
                                                              e["new_freelist"])
            else:
                c = e["counters"]
                words[(e["vpid"], e["slab"], c >> 32)] = ((c >> 31) & 1, e["freelist"])
    ops = [e for e in events if e["_name"] in LIST_OPS]
    missing = bad = 0
    for e in ops:
        if "seq" not in e:
            missing += 1
            continue
        w = words.get((e["vpid"], e["slab"], e["seq"]))
        if w is None:
            missing += 1
            if missing <= 3:
                errors.append("%s on slab %#x names seq %d, not in the slab's chain"
                              % (e["_name"], e["slab"], e["seq"]))
            continue
        frozen, freelist = w
        if e["_name"] == "add_partial" and (frozen or not freelist) or \
           e["_name"] == "add_full" and (frozen or freelist):
            bad += 1
            if bad <= 3:
                errors.append("%s on slab %#x at seq %d: word frozen %d freelist %#x"
                              % (e["_name"], e["slab"], e["seq"], frozen, freelist))
    log("  list operations: %d, %d without a chain seq, %d on a word that forbids them"
        % (len(ops), missing, bad))
    check(ops and missing == 0 and bad == 0,
          "%d of %d list operations carry no seq of their slab's chain, %d break invariant 4"
          % (missing, len(ops), bad), errors)


def check_labels(events, names, errors):
    """Enumeration labels in the trace are the slub_*_name() strings."""
    fields = {"site": "site", "dest": "dest", "list": "dest", "of": "event"}
    seen = 0
    for e in events:
        for f, kind in list(fields.items()) + [("reason", "reason" if e["_name"] in (
                "cpu_slab_load", "deactivate", "cpu_partial_put", "cpu_partial_take",
                "cpu_partial_drain") else "error")]:
            v = e.get(f)
            if isinstance(v, tuple):
                seen += 1
                want = names.get(kind, {}).get(v[1])
                if want != v[0]:
                    errors.append("%s.%s = %d is labelled %r in the trace, %r by the "
                                  "allocator" % (e["_name"], f, v[1], v[0], want))
                    return
    check(seen > 0, "no enumeration field in the trace", errors)


def test_stress(env):
    counts_file = os.path.join(env.work, "counts.txt")
    trace_dir = os.path.join(env.work, "trace")
    session = "e2e-stress"
    env.start_sessiond()
    try:
        env.lttng("create", session, "--output=" + trace_dir)
        env.lttng("enable-channel", "--userspace", "--session", session,
                  "--subbuf-size=4M", "--num-subbuf=8", "--discard", "chan")
        env.lttng("enable-event", "--userspace", "--session", session, "--channel", "chan",
                  "--loglevel=TRACE_DEBUG_LINE", "slub:*")
        env.lttng("add-context", "--userspace", "--session", session, "--channel", "chan",
                  "--type=vpid", "--type=vtid", "--type=procname")
        env.lttng("start", session)
        penv = dict(env.env)
        penv["LD_PRELOAD"] = env.path("tracepoints/libslub-tp.so")
        penv["SLUBTRACE_NODES"] = "2"
        penv["SLUBTRACE_FULL_LISTS"] = "1"
        penv["SLUBTRACE_STACKS"] = "cmpxchg_fail,cpu_cmpxchg_fail,error,slab_discard"
        run([env.path("tests/e2e/e2e_stress"), counts_file, "4", "10", "3"], env=penv,
            what="e2e_stress")
        env.lttng("stop", session)
        listing = env.lttng("list", session)
        env.lttng("destroy", session)
    finally:
        env.stop_sessiond()

    lost = sum(int(n) for n in re.findall(r'Discarded events: (\d+)', listing))
    # The trace of a clean run: `slubtrace check` finds nothing.
    rc, out = run([env.args.slubtrace, "check", trace_dir], env=env.env, timeout=TIMEOUT,
                  check=False, what="slubtrace check")
    verdict = [l for l in out.splitlines() if l.startswith("verdict:")]
    log("  slubtrace check: " + (verdict[-1] if verdict else out.strip()[-200:]))
    if rc != 0:
        raise Failure("slubtrace check on the stress trace exited %d: %s" % (rc, out[-2000:]))
    c = read_counts(counts_file)
    t = Trace(trace_dir, env.env)
    events = t.slub(c["pid"])
    errors = []
    log("  %d slub events from pid %d, %d discarded by the tracer" % (len(events), c["pid"], lost))
    if lost or t.discarded:
        raise Failure("the tracer discarded %d events: the counts cannot be compared "
                      "(buffers too small for this machine?)" % max(lost, t.discarded))
    check(c.get("overflow", 0) == 0, "the observer saw events it could not count", errors)

    per = {}
    for e in events:
        k = (e["cache_id"] if "cache_id" in e else -1, e["_name"])
        per[k] = per.get(k, 0) + 1
    total = {}
    for (cid, name), n in per.items():
        total[name] = total.get(name, 0) + n
    obs_total = {}
    for (cid, name), n in c["obs"].items():
        obs_total[name] = obs_total.get(name, 0) + n

    # 1. every event type the workload produces is in the trace
    must = ["cache_create", "cache_destroy", "slab_new", "slab_discard", "freeze",
            "unfreeze", "take_freelist", "free_remote", "cpu_slab_load", "deactivate",
            "cpu_partial_put", "cpu_partial_take", "cpu_partial_drain", "add_partial",
            "remove_partial", "add_full", "remove_full", "lock_acquire", "lock_release",
            "thread_flush"]
    if obs_total.get("cmpxchg_fail"):
        must.append("cmpxchg_fail")
    for name in must:
        check(total.get(name, 0) > 0, "no %s event in the trace" % name, errors)
    check("alloc" not in total and "free" not in total,
          "object events recorded below their log level", errors)

    # 2. the trace and the in-process observer saw the same events
    for cid in c["caches"]:
        for name in SLUB_EVENTS:
            a, b = per.get((cid, name), 0), c["obs"].get((cid, name), 0)
            check(a == b, "cache %s: %d %s events in the trace, %d seen in-process"
                  % (c["caches"][cid], a, name, b), errors)
    for name in SLUB_EVENTS:
        if name == "cache_create":   # the kmalloc caches precede the observer
            continue
        check(total.get(name, 0) == obs_total.get(name, 0),
              "%d %s events in the trace, %d seen in-process"
              % (total.get(name, 0), name, obs_total.get(name, 0)), errors)

    # 3. the trace rebuilds the allocator's stat counters
    for cid, cname in c["caches"].items():
        ev = lambda n: per.get((cid, n), 0)
        st = lambda n: c["stat"][(cid, n)]
        contended = sum(1 for e in events if e["_name"] == "lock_acquire"
                        and e["cache_id"] == cid and e["contended"])
        fail_locked = sum(1 for e in events if e["_name"] == "cmpxchg_fail"
                          and e["cache_id"] == cid and e["locked"])
        identities = [
            ("slab_new = alloc_slab", ev("slab_new"), st("alloc_slab")),
            ("slab_discard = free_slab", ev("slab_discard"), st("free_slab")),
            ("cmpxchg_fail = cmpxchg_double_fail", ev("cmpxchg_fail"),
             st("cmpxchg_double_fail")),
            ("cmpxchg_fail locked = cmpxchg_double_fail_locked", fail_locked,
             st("cmpxchg_double_fail_locked")),
            ("cpu_cmpxchg_fail = cpu_partial_cmpxchg_fail", ev("cpu_cmpxchg_fail"),
             st("cpu_partial_cmpxchg_fail")),
            ("cpu_partial_drain over the limit = cpu_partial_drain",
             sum(1 for e in events if e["_name"] == "cpu_partial_drain"
                 and e["cache_id"] == cid and isinstance(e.get("reason"), tuple)
                 and e["reason"][0] == "cpu_partial_limit"),
             st("cpu_partial_drain")),
            ("cpu_partial_take = cpu_partial_alloc", ev("cpu_partial_take"),
             st("cpu_partial_alloc")),
            ("cpu_partial_put = cpu_partial_free + cpu_partial_node", ev("cpu_partial_put"),
             st("cpu_partial_free") + st("cpu_partial_node")),
            ("take_freelist = alloc_refill", ev("take_freelist"), st("alloc_refill")),
            ("lock_acquire = list_lock_acquire", ev("lock_acquire"), st("list_lock_acquire")),
            ("lock_acquire contended = list_lock_contended", contended,
             st("list_lock_contended")),
        ]
        for what, a, b in identities:
            check(a == b, "cache %s: %s: %d in the trace, %d counted" % (cname, what, a, b),
                  errors)

    # 4. slab-word chains, labels, threads, stacks, announcements
    check_chains(events, errors)
    check_announced(events, errors)
    check_list_seqs(events, errors)
    check_labels(events, c["names"], errors)
    vtids = {e["vtid"] for e in events}
    check(len(vtids) >= 4, "events from only %d threads" % len(vtids), errors)
    check(t.formats == {Trace.FORMAT}, "cache_create formats %s, expected {%d}"
          % (sorted(t.formats, key=str), Trace.FORMAT), errors)
    check(t.format3_fields == 0, "%d events with format 3's flags, expected or msg field"
          % t.format3_fields, errors)
    stack_events = [e for e in t.stacks if e.get("vpid") == c["pid"]]
    check_labels(stack_events, c["names"], errors)
    check(t.orphan_stacks == 0, "%d slub:stack events follow no event of their type and "
          "slab in their thread" % t.orphan_stacks, errors)
    stacks = [e for e in events if e["_name"] == "slab_discard" and e["stack"]]
    check(len(stacks) == total.get("slab_discard", 0),
          "%d of %d slab_discard events carry a stack" % (len(stacks),
                                                          total.get("slab_discard", 0)),
          errors)
    selected = {"cmpxchg_fail", "cpu_cmpxchg_fail", "error", "slab_discard"}
    unselected = [s for s in stack_events if s["of"][0] not in selected]
    check(not unselected, "%d stacks on events SLUBTRACE_STACKS did not select (%s)"
          % (len(unselected), unselected[:1]), errors)
    log("  stacks: %d slub:stack events, all attached" % len(stack_events)
        if not t.orphan_stacks else "  stacks: %d orphans" % t.orphan_stacks)
    log("  per type: " + ", ".join("%s %d" % (n, total[n]) for n in SLUB_EVENTS if n in total))
    return errors


def test_python(env):
    trace_dir = os.path.join(env.work, "trace")
    env.start_sessiond()
    try:
        env.slubtrace(["-o", trace_dir, "--stacks", "all", "--stack-depth", "12", "--",
                       python3(), os.path.join(env.args.source, "tests/e2e/workload.py")])
    finally:
        env.stop_sessiond()
    t = Trace(trace_dir, env.env)
    events = t.slub()
    errors = []
    transitions = [e for e in events if e["_name"] not in ("cache_create", "lock_acquire",
                                                           "lock_release")]
    vtids = {e["vtid"] for e in transitions}
    log("  %d slub events, %d transitions from %d threads" % (len(events), len(transitions),
                                                            len(vtids)))
    check(len(vtids) >= 3, "transitions from only %d threads" % len(vtids), errors)
    with_stack = [e for e in events if e.get("stack")]
    check(with_stack, "no event carries a stack", errors)
    check(t.orphan_stacks == 0, "%d of %d slub:stack events follow no event of their type "
          "and slab in their thread" % (t.orphan_stacks, len(t.stacks)), errors)
    mapped = resolved = frames = 0
    in_shim = set()
    for e in with_stack[:400]:
        for ip in e["stack"]:
            frames += 1
            r = symbolize(t, e["vpid"], ip)
            if not r:
                continue
            mapped += 1
            if r[1]:
                resolved += 1
                if os.path.basename(r[0]).startswith("libslub-malloc"):
                    in_shim.add(r[1])
    log("  stack frames: %d, in a known object %d, symbolized %d" % (frames, mapped, resolved))
    log("  allocator functions on the stacks: %s" % ", ".join(sorted(in_shim)[:12]))
    check(frames and mapped >= frames * 0.9,
          "only %d of %d stack frames lie in an object the statedump/dl events name"
          % (mapped, frames), errors)
    check(in_shim, "no stack frame resolves to a function of libslub-malloc.so", errors)
    check(any(n in in_shim for n in ("malloc", "free", "realloc", "calloc")),
          "the malloc entry points are not on the stacks", errors)
    return errors


def distinct(events, field):
    return {e[field] for e in events}


def test_fork(env):
    trace_dir = os.path.join(env.work, "trace")
    env.start_sessiond()
    try:
        env.slubtrace(["-o", trace_dir, "--", env.path("tests/e2e/e2e_forker"), "fork", "3"],
                      timeout=180)
    finally:
        env.stop_sessiond()
    t = Trace(trace_dir, env.env)
    events = t.slub()
    errors = []
    vpids = distinct(events, "vpid")
    log("  %d slub events from %d processes" % (len(events), len(vpids)))
    check(len(vpids) >= 2, "no event from a forked child (pids %s)" % sorted(vpids), errors)
    check_named(events, errors)
    check_attribution(events, errors)
    check_no_tracer_slots(events, errors)

    # fork + exec: /usr/bin/time runs the program in a child that execs
    if os.path.exists("/usr/bin/time"):
        trace_dir = os.path.join(env.work, "trace-exec")
        env.start_sessiond()
        try:
            env.slubtrace(["-o", trace_dir, "--", "/usr/bin/time", "-o", os.devnull,
                           env.path("tests/e2e/e2e_forker"), "threads", "1"], timeout=180)
        finally:
            env.stop_sessiond()
        events = Trace(trace_dir, env.env).slub()
        log("  fork+exec: %d slub events, procnames %s"
            % (len(events), sorted({e.get("procname") for e in events})))
        check_named(events, errors)
        check_attribution(events, errors)
        check_no_tracer_slots(events, errors)

    errors += fork_registrations(env)

    # a main thread that renames itself keeps its first name (no exec)
    trace_dir = os.path.join(env.work, "trace-rename")
    env.start_sessiond()
    try:
        env.slubtrace(["-o", trace_dir, "--", env.path("tests/e2e/e2e_forker"), "rename", "4"],
                      timeout=180)
    finally:
        env.stop_sessiond()
    events = Trace(trace_dir, env.env).slub()
    main = [e for e in events if e.get("vtid") == e.get("vpid")]
    names = sorted({e.get("procname") for e in main}, key=str)
    log("  rename: %d events of the main thread, named %s" % (len(main), names))
    check(len(main) > 3 * 4096, "only %d events of the main thread: too few to cross its "
          "re-announcements" % len(main), errors)
    check(names == ["e2e_forker"], "the main thread's names %s, not only e2e_forker: a rename "
          "would read as an exec" % names, errors)
    return errors


def registrations(directory, env):
    """vpid -> how many times it registered with the session daemon (one
    lttng_ust_statedump:start per registration)."""
    p = subprocess.run(["babeltrace2", directory], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, errors="replace", timeout=600)
    n = {}
    for m in re.finditer(r'lttng_ust_statedump:start: .*?vpid = (\d+)', p.stdout):
        n[int(m.group(1))] = n.get(int(m.group(1)), 0) + 1
    return n


def fork_registrations(env):
    """When a forked child registers.  record runs its command with
    SLUBTRACE_FORK=lazy: a child registers before its first slub event or
    thread, so one that execs at once registers only in its new image; with
    SLUBTRACE_FORK=eager (liblttng-ust-fork's way) it registers at the fork
    too.  Either way a child's events are its own, a child that starts a
    thread first is traced, and one that exit()s at once while the parent's
    threads are inside tracepoints does not hang (e2e_forker lazy checks
    every child's exit within 60 s)."""
    errors = []
    children = 9
    # registrations of each kind of child: execs at once, starts a thread
    # first, exit()s at once
    want = {"lazy": (1, 1, 0), "eager": (2, 1, 1)}
    for mode in ("lazy", "eager"):
        trace_dir = os.path.join(env.work, "trace-" + mode)
        saved = env.env.get("SLUBTRACE_FORK")
        if mode == "eager":
            env.env["SLUBTRACE_FORK"] = "eager"
        env.start_sessiond()
        try:
            _, out = env.slubtrace(["-o", trace_dir, "--", env.path("tests/e2e/e2e_forker"),
                                    "lazy", str(children)], timeout=300)
        finally:
            env.stop_sessiond()
            if saved is None:
                env.env.pop("SLUBTRACE_FORK", None)
            else:
                env.env["SLUBTRACE_FORK"] = saved
        kids = [(int(p), int(k)) for p, k in re.findall(r'e2e_forker: child (\d+) kind (\d)', out)]
        events = Trace(trace_dir, env.env).slub()
        regs = registrations(trace_dir, env.env)
        check_named(events, errors)
        check_attribution(events, errors)
        got = [(k, regs.get(p, 0)) for p, k in kids]
        log("  %s: (kind, registrations) of each child: %s" % (mode, got))
        check(len(kids) == children, "%s: %d children reported, not %d"
              % (mode, len(kids), children), errors)
        bad = [(p, k, regs.get(p, 0)) for p, k in kids if regs.get(p, 0) != want[mode][k]]
        check(not bad, "%s: children (pid, kind, registrations) %s; want %s registrations for "
              "kinds 0, 1, 2" % (mode, bad, want[mode]), errors)
        threaded = {e["vpid"] for e in events if e.get("vtid") != e["vpid"]}
        missing = [p for p, k in kids if k == 1 and p not in threaded]
        check(not missing, "%s: children %s started a thread that allocated, but no event of "
              "theirs is in the trace" % (mode, missing), errors)

    # children whose first slow paths come inside dlclose() (the loader's
    # free of the link map, a provider's destructors under LTTng-UST's
    # locks): no registration there (it dlopen()s: the loader asserts; it
    # takes LTTng-UST's locks: a hang), one after, events their own
    trace_dir = os.path.join(env.work, "trace-dlclose")
    env.start_sessiond()
    try:
        _, out = env.slubtrace(["-o", trace_dir, "--", env.path("tests/e2e/e2e_forker"),
                                "dlclose", "6", env.path("tests/e2e/libe2e_tp_provider.so")],
                               timeout=300)
    finally:
        env.stop_sessiond()
    kids = [int(p) for p in re.findall(r'e2e_forker: child (\d+) kind 3', out)]
    events = Trace(trace_dir, env.env).slub()
    regs = registrations(trace_dir, env.env)
    check_named(events, errors)
    check_attribution(events, errors)
    log("  dlclose: registrations of each child %s" % [regs.get(p, 0) for p in kids])
    check(len(kids) == 6, "dlclose: %d children reported, not 6" % len(kids), errors)
    check(all(regs.get(p, 0) == 1 for p in kids),
          "dlclose: children's registrations %s, not 1 each" % [regs.get(p, 0) for p in kids],
          errors)
    silent = [p for p in kids if p not in {e["vpid"] for e in events}]
    check(not silent, "dlclose: no event of children %s after their dlclose()" % silent, errors)
    return errors


def check_named(events, errors):
    """Format 9: every thread names itself (slub:comm) before its first
    event, a forked child and an exec'd image too, so that a recording
    from the start has a name for every event."""
    unnamed = [e for e in events if not e.get("procname")]
    log("  %d of %d events without a thread name" % (len(unnamed), len(events)))
    check(not unnamed, "%d events without a thread name, the first %s/%s %s"
          % (len(unnamed), unnamed[0].get("vpid") if unnamed else "-",
             unnamed[0].get("vtid") if unnamed else "-",
             unnamed[0]["_name"] if unnamed else "-"), errors)


def check_no_tracer_slots(events, errors):
    """LTTng-UST's listener threads ("<name>-ust") keep no cpu slot of their
    own: a forked child never adopts one (thread_flush acting on another
    slot whose id a listener thread used in the parent)."""
    tracer_slots = {}
    for e in events:
        if str(e.get("procname", "")).endswith("-ust") and e["_name"] == "cpu_slab_load":
            tracer_slots.setdefault(e["vpid"], set()).add(e["cpu"])
    adopted = [e for e in events if e["_name"] == "thread_flush" and "slot" in e
               and e["slot"] != e["cpu"]
               and any(e["slot"] in s for v, s in tracer_slots.items() if v != e["vpid"])]
    own = sum(len(s) for s in tracer_slots.values())
    log("  tracer threads: %d cpu slots loaded by them, %d adopted by a child"
        % (own, len(adopted)))
    check(not adopted, "a child adopted %d cpu slots of LTTng-UST's threads" % len(adopted),
          errors)


def word_seq(e):
    """The seq of the word an event produced (format 1: new_seq; formats 2
    to 4: the upper half of counters)."""
    if "new_seq" in e:
        return e["new_seq"]
    return e["counters"] >> 32


def check_attribution(events, errors):
    """Every event belongs to the process that made it: within one process,
    a slab's updates form one history (each seq produced once, each update
    continuing the previous one) and each list_lock acquisition number is
    taken once.  A child that recorded its adoption of the parent's slots
    under the parent's identity shows the same seq twice in the parent."""
    seen = {}
    dup_words = dup_locks = 0
    # An exec starts a new incarnation of the process: its caches are
    # created again (a cache id seen before in that pid), so its slabs and
    # locks start new histories.
    gen, caches = {}, {}
    for e in events:
        n = e["_name"]
        vpid = e["vpid"]
        if n == "cache_create":
            known = caches.setdefault(vpid, set())
            if e["cache_id"] in known:
                gen[vpid] = gen.get(vpid, 0) + 1
                known.clear()
            known.add(e["cache_id"])
            continue
        inc = e["_inc"] = (vpid, gen.get(vpid, 0))
        if n in WORD_UPDATES or n == "slab_new":
            key = ("w", inc, e["slab"], word_seq(e))
        elif n == "lock_acquire":
            key = ("l", inc, e["lock_id"], e["lock_seq"])
        else:
            continue
        if key in seen:
            if key[0] == "w":
                dup_words += 1
            else:
                dup_locks += 1
            if dup_words + dup_locks <= 5:
                a = seen[key]
                errors.append("pid %d: %s seq %d made twice: %s by tid %s, %s by tid %s"
                              % (vpid, ("slab %#x" % key[2]) if key[0] == "w"
                                 else ("lock %d" % key[2]), key[3], a["_name"],
                                 a.get("vtid"), n, e.get("vtid")))
        else:
            seen[key] = e
    by_proc = {}
    for e in events:
        if "_inc" in e:
            by_proc.setdefault(e["_inc"], []).append(e)
    breaks = 0
    for (vpid, _), evs in by_proc.items():
        errs = []
        if "old_seq" in (evs[0] if evs else {}):
            for slab in {e["slab"] for e in evs if e["_name"] in WORD_UPDATES}:
                ups = sorted((e for e in evs if e["_name"] in WORD_UPDATES and e["slab"] == slab),
                             key=lambda e: e["new_seq"])
                for a, b in zip(ups, ups[1:]):
                    if b["old_seq"] == a["new_seq"] and \
                       (b["old_freelist"], b["old_inuse"], b["old_frozen"]) != \
                       (a["new_freelist"], a["new_inuse"], a["new_frozen"]):
                        breaks += 1
                        if breaks <= 5:
                            errs.append("pid %d: slab %#x: %s seq %d does not continue %s "
                                        "seq %d" % (vpid, slab, b["_name"], b["new_seq"],
                                                    a["_name"], a["new_seq"]))
        errors.extend(errs)
    log("  attribution: %d slab-word seqs made twice in one process, %d lock acquisitions "
        "taken twice, %d chain breaks" % (dup_words, dup_locks, breaks))
    check(dup_words == 0 and dup_locks == 0 and breaks == 0,
          "events of one process recorded under another (%d words, %d lock acquisitions, "
          "%d breaks)" % (dup_words, dup_locks, breaks), errors)


def perf_cycles_available():
    """Can this thread open a user-space cpu-cycles counter (what LTTng-UST's
    perf:thread:cpu-cycles context needs)?  None when it cannot be tested."""
    import ctypes
    import platform
    if platform.machine() != "x86_64":
        return None
    attr = bytearray(112)
    attr[4:8] = (112).to_bytes(4, "little")          # size; type 0, config 0
    attr[40:48] = (0x60).to_bytes(8, "little")       # exclude_kernel, exclude_hv
    buf = ctypes.create_string_buffer(bytes(attr), len(attr))
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.syscall(298, buf, 0, -1, -1, 0)
    if fd < 0:
        return False
    os.close(fd)
    return True


def test_threads(env, perf=False):
    if perf and perf_cycles_available() is False:
        log("perf:thread:cpu-cycles is not available here (no hardware counter for "
            "perf_event_open): skipped")
        return SKIP
    trace_dir = os.path.join(env.work, "trace")
    args = ["-o", trace_dir]
    if perf:
        env.start_sessiond()
        args += ["--context", "perf:thread:cpu-cycles"]
    try:
        rc, out = env.slubtrace(args + ["--", env.path("tests/e2e/e2e_forker"), "threads", "6"],
                                timeout=180, check=not perf)
    finally:
        if perf:
            env.stop_sessiond()
    if perf and rc == 125 and "add-context" in out:
        log("perf:thread:cpu-cycles is not available here: skipped")
        return SKIP
    if rc != 0:
        raise Failure("slubtrace record exited with %d" % rc)
    errors = []
    if not perf:
        check(not env.reachable(), "slubtrace record left its session daemon running", errors)
    t = Trace(trace_dir, env.env)
    events = t.slub()
    vtids = distinct(events, "vtid")
    flushes = sum(1 for e in events if e["_name"] == "thread_flush")
    log("  %d slub events from %d threads, %d thread_flush" % (len(events), len(vtids), flushes))
    check(len(vtids) >= 20, "events from only %d threads" % len(vtids), errors)
    check(flushes >= 20, "only %d thread_flush events" % flushes, errors)
    check_announced(events, errors)
    if perf:
        check(all("perf_thread_cpu_cycles" in e for e in events),
              "events without the perf context", errors)
    return errors


def test_probe_malloc(env):
    plugin = env.path("tests/e2e/libe2e_getcpu_plugin.so")
    counts = os.path.join(env.work, "plugin-counts")
    trace_dir = os.path.join(env.work, "trace")
    saved = dict(env.env)
    env.env["LTTNG_UST_GETCPU_PLUGIN"] = plugin
    env.env["E2E_PLUGIN_COUNT"] = counts
    try:
        rc, out = env.slubtrace(["-o", trace_dir, "--", env.path("tests/e2e/e2e_forker"),
                                 "threads", "6"], timeout=180)
    finally:
        env.env.clear()
        env.env.update(saved)
    errors = []
    check(rc == 0, "slubtrace record exited with %d" % rc, errors)
    mallocs = outside = 0
    if os.path.exists(counts):
        for line in open(counts):
            a, b = line.split()
            mallocs += int(a)
            outside += int(b)
    t = Trace(trace_dir, env.env)
    events = t.slub()
    vtids = distinct(events, "vtid")
    log("  %d slub events from %d threads; %d mallocs inside probes, %d of them "
        "served by the shim's arena" % (len(events), len(vtids), mallocs, outside))
    check(len(vtids) >= 20, "events from only %d threads" % len(vtids), errors)
    check(mallocs >= 20, "the plugin allocated only %d times inside probes" % mallocs, errors)
    check(outside > 0, "no probe allocation was nested inside the allocator", errors)
    return errors


def test_options(env):
    work = env.path("examples/slub-workload")
    wargs = ["-g", "2", "-t", "2", "-m", "1500", "-r", "1"]
    msgs = 2 * 2 * 1500
    errors = []
    env.start_sessiond()
    try:
        # --objects: one alloc and one free event per message at least;
        # --full-lists: full slabs listed, add_full recorded
        d = os.path.join(env.work, "objects")
        env.slubtrace(["-o", d, "--objects", "--full-lists", "--nodes", "2", "--"]
                      + [work] + wargs)
        ev = Trace(d, env.env).slub()
        n = {k: sum(1 for e in ev if e["_name"] == k) for k in ("alloc", "free", "add_full")}
        log("  --objects: %d alloc, %d free events for %d messages" % (n["alloc"], n["free"], msgs))
        check(n["alloc"] >= msgs and n["free"] >= msgs,
              "--objects recorded %d alloc / %d free events for %d messages"
              % (n["alloc"], n["free"], msgs), errors)
        check(n["add_full"] > 0, "--full-lists, but no add_full event", errors)
        nodes = {e["node"] for e in ev if "node" in e}
        check(len(nodes) >= 2, "--nodes 2 but events from nodes %s" % sorted(nodes), errors)

        # default: no object events and, as in the kernel, no full lists
        for name, opts in (("default", []), ("nofull", ["--no-full-lists"])):
            d = os.path.join(env.work, name)
            env.slubtrace(["-o", d] + opts + ["--"] + [work] + wargs)
            ev = Trace(d, env.env).slub()
            check(not any(e["_name"] in ("alloc", "free") for e in ev),
                  "%s: object events without --objects" % name, errors)
            check(not any(e["_name"] in ("add_full", "remove_full") for e in ev),
                  "%s: full-list events without --full-lists" % name, errors)
            check(any(e["_name"] == "free_remote" for e in ev),
                  "%s: no transitions recorded" % name, errors)

        # a run that discards: the total slubtrace prints is, per stream,
        # the largest events_discarded count among its packets in the CTF
        # index (a packet may carry a sample a few lower than an earlier
        # one: babeltrace2 reports that as a count stepping back, 2^64 - n).
        # babeltrace2's notices are the differences between the packets it
        # reads after a stream's first, so their highest running sum per
        # stream can fall short of that count by what the first packet
        # held, never exceed it.
        d = os.path.join(env.work, "discard")
        rc, out = env.slubtrace(["-o", d, "--buffer-size", "16K", "--no-blocking", "--", work,
                                 "-g", "2", "-t", "2", "-m", "20000", "-r", "1"])
        m = re.search(r"events: (?:(\d+) recorded, )?(\d+) discarded", out)
        said = int(m.group(2)) if m else -1
        t = Trace(d, env.env)
        notices = re.findall(r'discarded (\d+) events .*? within stream "([^"]+)"', t.warnings,
                             re.I)
        running, highest = {}, {}
        for n, stream in notices:
            n = int(n)
            if n >= 1 << 63:
                n -= 1 << 64
            running[stream] = running.get(stream, 0) + n
            highest[stream] = max(highest.get(stream, 0), running[stream])
        largest = 0
        for root, _, files in os.walk(d):
            for name in files:
                if not name.endswith(".idx"):
                    continue
                with open(os.path.join(root, name), "rb") as f:
                    data = f.read()
                size = int.from_bytes(data[12:16], "big")
                counts = [int.from_bytes(data[o + 40:o + 48], "big")
                          for o in range(16, len(data) - size + 1, size)]
                largest += max(counts or [0])
        seen = sum(highest.values())
        log("  --buffer-size 16K: slubtrace says %d discarded; CTF index %d; babeltrace2: %d "
            "notices over %d streams (%d stepping back), highest running sums %d"
            % (said, largest, len(notices), len(highest),
               sum(int(n) >= 1 << 63 for n, _ in notices), seen))
        check(notices, "the 16K run discarded nothing: no test of the count", errors)
        check(0 < said < (1 << 40),
              "slubtrace record printed %d discarded events" % said, errors)
        check(said == largest,
              "slubtrace says %d discarded, the CTF index's counts make %d" % (said, largest),
              errors)
        check(0 < seen <= said,
              "babeltrace2's notices make %d discarded events, slubtrace says %d"
              % (seen, said), errors)
        # the closing advice names what keeps every event: waiting
        check("without --no-blocking" in out,
              "discard mode: the advice does not name waiting: %s" % out[-400:], errors)

        # --blocking: a trace larger than the ring buffers, and nothing lost.
        # Blocking covers a full buffer only.  LTTng-UST still drops an event
        # ("wrap-around") when the writers lap a sub-buffer that a preempted
        # writer has reserved and not yet committed: the other writers must
        # fill the seven other sub-buffers meanwhile.  With 1M per CPU that
        # was ~900 KB, a preemption of a few ms on a loaded 2-core machine
        # (8,056 events lost once at load 9.5); 4M and four times the
        # workload keep the trace as much larger than the ring and make the
        # lap four times longer.
        d = os.path.join(env.work, "blocking")
        rc, out = env.slubtrace(["-o", d, "--buffer-size", "4M", "--blocking", "--"]
                                + [work] + ["-g", "2", "-t", "2", "-m", "16000", "-r", "1"])
        m = re.search(r'events: (\d+) recorded, (\d+) discarded', out)
        check(m and int(m.group(2)) == 0, "--blocking discarded events: %s"
              % out.strip()[-300:], errors)
        t = Trace(d, env.env)
        check(not t.discarded, "--blocking: babeltrace2 reports %d discarded events"
              % t.discarded, errors)
        check(any(e["_name"] == "thread_flush" for e in t.slub()),
              "--blocking: no thread_flush in the trace", errors)
        log("  --blocking with 4M buffers: %s events, none discarded"
            % (m.group(1) if m else "?"))

        # --snapshot: the flight recorder's contents are written at exit
        d = os.path.join(env.work, "snap")
        rc, out = env.slubtrace(["-o", d, "--snapshot", "--buffer-size", "1M", "--"]
                                + [work] + wargs)
        check("snapshot" in out, "no snapshot mentioned in: %s" % out.strip()[-200:], errors)
        ev = Trace(d, env.env).slub()
        log("  --snapshot: %d slub events in the snapshot" % len(ev))
        check(len(ev) > 0, "the snapshot holds no slub event", errors)
        check(any(e["_name"] == "thread_flush" for e in ev),
              "the snapshot misses the last events (thread_flush)", errors)

        # liblttng-ust-dl is preloaded with --dlopen-events only; the program
        # may wait for the consumer (LTTNG_UST_ALLOW_BLOCKING) unless
        # --no-blocking
        for name, opts, want, waits in (("dl", ["--dlopen-events"], True, True),
                                        ("defaults", [], False, True),
                                        ("nodl", ["--no-dlopen-events"], False, True),
                                        ("noblock", ["--no-blocking"], False, False)):
            d = os.path.join(env.work, name)
            rc, out = env.slubtrace(["-o", d] + opts + ["--", "sh", "-c",
                                     'echo "blocking=$LTTNG_UST_ALLOW_BLOCKING"; '
                                     'echo "preload=$LD_PRELOAD"; ' + work + " " +
                                     " ".join(wargs)])
            m = re.search(r"^preload=(.*)$", out, re.M)
            has = bool(m and "liblttng-ust-dl.so" in m.group(1))
            log("  %s: LD_PRELOAD %s" % (name, m.group(1) if m else "?"))
            check(m and has == want and "libslub-malloc.so" in m.group(1),
                  "%s: LD_PRELOAD %s" % (name, m.group(1) if m else "not printed"), errors)
            check(bool(re.search(r"^blocking=1$", out, re.M)) == waits,
                  "%s: LTTNG_UST_ALLOW_BLOCKING %s" % (name, "unset" if waits else "set"),
                  errors)

        # the session daemon going away while CMD runs (here CMD kills
        # it): record cannot stop the session, says the trace is
        # incomplete and fails with 125 although CMD exited 0
        d = os.path.join(env.work, "gone")
        pid = env.sessiond_pid
        rc, out = env.slubtrace(["-o", d, "--no-check", "--", "sh", "-c",
                                 "kill %d; while kill -0 %d 2>/dev/null; do sleep 0.1; done"
                                 % (pid, pid)], check=False)
        log("  session daemon killed during the run: exit %d" % rc)
        check(rc == 125 and "incomplete" in out,
              "daemon gone: exit %d, output %s" % (rc, out.strip()[-300:]), errors)
    finally:
        env.stop_sessiond()
    return errors


def test_startup(env):
    env.start_sessiond()
    errors = []
    try:
        for i, cmd in enumerate([["true"], [python3(), "-c", "pass"],
                                 ["sh", "-c", "ls / > /dev/null; echo ok > /dev/null"]]):
            trace_dir = os.path.join(env.work, "trace%d" % i)
            env.slubtrace(["-o", trace_dir, "--"] + cmd, timeout=60)
            t = Trace(trace_dir, env.env)
            # format 9: the objects are named (slub:bin_info) after a
            # process's first slub event; `true` may allocate nothing
            check(t.objects or not t.slub(), "%s: %d slub events and no loaded object "
                  "named in the trace" % (cmd[0], len(t.slub())), errors)
            names = {e["_name"] for e in t.slub()}
            log("  %s: %d slub events (%s)" % (cmd[0], len(t.slub()), ", ".join(sorted(names))))
            if cmd[0] != "true":
                # Programs that allocate while traced: their caches are
                # announced and their allocations took slabs.  `true`
                # allocates nothing (under the shim with SLUBTRACE_STATS=1
                # it prints no cache), and LTTng-UST's own threads use the
                # orphan slot or the shim's arena: no slub event is right.
                check(names, "%s: no slub event in the trace" % cmd[0], errors)
                check("cache_create" in names, "%s: no slub:cache_create in the trace"
                      % cmd[0], errors)
                check("slab_new" in names, "%s: no slub:slab_new in the trace" % cmd[0],
                      errors)
        # record's own lines (summary, check reports and verdict, notes)
        # are on stderr: the program's stdout holds its output only, as
        # when a pipe or a file takes it.
        trace_dir = os.path.join(env.work, "stdout")
        line = "the program's only line"
        p = subprocess.run([env.args.slubtrace, "record", "-o", trace_dir, "--", python3(),
                            "-c", "print(%r)" % line], env=env.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, errors="replace", timeout=TIMEOUT)
        log("  record's stderr:\n" + p.stderr.rstrip())
        check(p.returncode == 0, "record -- python3 -c print: exit %d" % p.returncode, errors)
        check(p.stdout == line + "\n", "record's stdout holds more than the program's "
              "output: %r" % p.stdout[:400], errors)
        for pat in (r"^slubtrace: trace: ", r"^slubtrace: events: \d+ recorded",
                    r"^slubtrace: checking the trace", r"^verdict: clean: "):
            check(re.search(pat, p.stderr, re.M), "no line matching %r on record's stderr"
                  % pat, errors)
    finally:
        env.stop_sessiond()
    return errors


def trace_clock(trace_dir):
    """(name, freq) of the trace's clock, from its metadata."""
    for root, _, files in os.walk(trace_dir):
        if "metadata" in files:
            text = open(os.path.join(root, "metadata"), "rb").read().decode("latin-1")
            m = re.search(r'clock \{\s*name = "?([\w.]+)"?;.*?freq = (\d+);', text, re.S)
            if m:
                return m.group(1), int(m.group(2))
    return None, None


def invariant_tsc():
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return False
    return " constant_tsc" in flags and " nonstop_tsc" in flags


def test_clock(env):
    """record --clock tsc: refused beside a running session daemon; where
    the machine's TSC is one clock the trace is stamped with it, else a note
    and LTTng's clock; forced onto the TSC (SLUBTRACE_TSC_CLOCK=force, where
    cpuid reports an invariant TSC) the trace reads, checks clean and its
    time span matches the run's."""
    prog = [env.path("tests/e2e/e2e_forker"), "threads", "4"]
    errors = []
    d = os.path.join(env.work, "tsc")
    env.slubtrace(["--clock", "tsc", "-o", d, "--"] + prog)
    name, freq = trace_clock(d)
    log("  --clock tsc: clock %s, %s Hz" % (name, freq))
    kernel = "tsc" in open("/sys/devices/system/clocksource/clocksource0/"
                           "available_clocksource").read().split()
    if invariant_tsc() and kernel:
        check(name == "slubtrace_tsc", "--clock tsc on a trusted TSC: clock %s" % name, errors)
    else:
        check(name == "monotonic", "--clock tsc, TSC not trusted: clock %s" % name, errors)
    if not invariant_tsc():
        log("  no invariant TSC: the forced run is skipped")
        return errors
    saved = dict(env.env)
    env.env["SLUBTRACE_TSC_CLOCK"] = "force"
    d = os.path.join(env.work, "forced")
    try:
        env.start_sessiond()
        try:
            rc, out = env.slubtrace(["--clock", "tsc", "--no-check", "-o",
                                     os.path.join(env.work, "busy"),
                                     "--"] + prog, check=False)
            check(rc != 0 and "already running" in out and
                  not os.path.exists(os.path.join(env.work, "busy")),
                  "--clock tsc beside a running daemon: exit %d: %s" % (rc, out[-300:]),
                  errors)
        finally:
            env.stop_sessiond()
        t0 = time.time()
        env.slubtrace(["--clock", "tsc", "-o", d, "--"] + prog)
        wall = time.time() - t0
    finally:
        env.env.clear()
        env.env.update(saved)
    name, freq = trace_clock(d)
    log("  forced: clock %s, %s Hz" % (name, freq))
    check(name == "slubtrace_tsc", "forced: clock %s" % name, errors)
    check(freq and 10**8 <= freq <= 10**10, "forced: frequency %s Hz" % freq, errors)
    p = subprocess.run(["babeltrace2", "--clock-seconds", d], env=env.env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=600)
    stamps = [float(m) for m in re.findall(r'^\[(\d+\.\d+)\]', p.stdout, re.M)]
    check(p.returncode == 0 and stamps, "babeltrace2 on the forced trace: exit %d, %d events: %s"
          % (p.returncode, len(stamps), p.stderr[-300:]), errors)
    if stamps:
        span = stamps[-1] - stamps[0]
        log("  forced: %d events over %.3f s (the run took %.3f s)" % (len(stamps), span, wall))
        check(0 < span <= wall, "forced: events span %.3f s of a %.3f s run" % (span, wall),
              errors)
    return errors


def test_errno(env):
    """free() keeps errno while every event is traced with its stack:
    test_stress checks errno around each of its frees and exits 1 on a
    change; race-window makes slab-word CAS failures (and their stacks)
    frequent.  The stack walkers probe addresses with system calls that
    fail with ENOMEM; once seen as free() returning with errno 12."""
    trace_dir = os.path.join(env.work, "trace")
    penv = dict(env.env, SLUBTRACE_INJECT="race-window", SLUBTRACE_NODES="2")
    rc, out = run([env.args.slubtrace, "record", "--stacks", "all", "-o", trace_dir, "--",
                   env.path("tests/test_stress"), "-t", "12", "-s", "3"],
                  env=penv, timeout=TIMEOUT, check=False, what="slubtrace record")
    log("\n".join(l for l in out.splitlines() if "FAIL" in l or l.startswith(("verdict", "test_stress", "slubtrace: events"))))
    errors = []
    check(rc == 0, "test_stress under slubtrace record --stacks all exited %d" % rc, errors)
    check(not re.search(r'changed errno', out), "a free changed errno under tracing", errors)
    # babeltrace2's notices of discarded events go to stderr, not into the count
    rc, n = run(["sh", "-c", 'babeltrace2 "$0" 2>/dev/null | grep -c "slub:stack: .*cmpxchg_fail"',
                 trace_dir], env=env.env, timeout=TIMEOUT, check=False, what="babeltrace2")
    log("  %s cmpxchg_fail stacks recorded" % n.strip())
    check(n.strip().isdigit() and int(n.strip()) > 0, "no cmpxchg_fail with its stack recorded",
          errors)
    return errors


def test_concurrent(env):
    """Two `slubtrace record` runs at once, no session daemon running: the
    first starts one, the second finds it and records through it, the first
    ends while the second still records.  The first must leave the daemon
    running (before, it stopped it and the second lost its trace)."""
    if env.reachable():
        raise Failure("a session daemon is already running")
    errors = []
    work = env.path("examples/slub-workload")
    da, db = os.path.join(env.work, "first"), os.path.join(env.work, "second")
    argv = [env.args.slubtrace, "record"]
    # The first run ends only once the second's session exists (two
    # sessions listed, at most 300 s: a loaded 2-core machine ran 17 times
    # slower than a quiet one), whatever the load.
    # Only a number counts: an empty or garbled count (a client that failed
    # under load) used to end the wait as if the second session existed, and
    # the first run then rightly stopped a daemon that served no one yet.
    wait2 = ('i=0; while :; do '
             'n=$(lttng list 2>/dev/null | grep -c \') slubtrace-\'); '
             'case "$n" in ""|*[!0-9]*) n=0;; esac; '
             '[ "$n" -ge 2 ] && break; i=$((i + 1)); '
             'if [ $i -ge 3000 ]; then echo "first: no second session in 300 s" >&2; exit 3; fi; '
             'sleep 0.1; done; echo "first: $n sessions listed after $i polls" >&2')
    first = subprocess.Popen(argv + ["-o", da, "--no-check", "--", "sh", "-c", wait2],
                             env=env.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    second = None
    try:
        for _ in range(3000):
            if env.reachable():
                break
            time.sleep(0.1)
        second = subprocess.Popen(argv + ["-o", db, "--", "sh", "-c", "sleep 2; exec \"$0\" \"$@\"",
                                          work, "-g", "2", "-t", "2", "-m", "1500", "-r", "1"],
                                  env=env.env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        out_a = first.communicate(timeout=TIMEOUT)[0]
        out_b = second.communicate(timeout=TIMEOUT)[0]
    finally:
        for p in (first, second):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        # the daemon the first run started and left to the second
        try:
            with open(env.pidfile()) as f:
                env.sessiond_pid = int(f.read().strip())
        except (OSError, ValueError):
            pass
    log(out_a.rstrip())
    log(out_b.rstrip())
    check(first.returncode == 0, "first run: exit %d" % first.returncode, errors)
    check(re.search(r"^first: [0-9]+ sessions listed", out_a, re.M),
          "first run: its command never saw the second session", errors)
    check("left running" in out_a, "first run: no note that it left its daemon to the "
          "second", errors)
    check(second.returncode == 0, "second run: exit %d (its daemon was stopped under it?)"
          % second.returncode, errors)
    check(re.search(r"^verdict: clean", out_b, re.M), "second run: no clean verdict", errors)
    names = {e["_name"] for e in Trace(db, env.env).slub()}
    check("free_remote" in names and "thread_flush" in names,
          "second run: trace incomplete (%s)" % ", ".join(sorted(names)), errors)
    return errors


SLUB_F_SHEAVES = 1 << 7    # include/slub/slub.h


def test_sheaves(env):
    """Runs of the sheaves generation (SLUBTRACE_GENERATION=sheaves): the
    stress test and the bundled workload, each recorded and checked by
    `slubtrace record` (its verdict must be clean: the model judges the
    sheaves generation by its own table).  In the stress test's trace every
    non-debug cache says so in cache_create's flags, its slabs are never
    frozen and their slab-word chains hold, cpu slabs and cpu partial
    chains never appear, the sheaf and barn events are there and each
    barn's counts move by one per event; `slubtrace check` and `report`
    judge it clean, `stats` reads it (a Sheaves block under each sheaves
    cache's page), and SLUBTRACE_CHECK=1 runs clean."""
    trace_dir = os.path.join(env.work, "trace")
    penv = dict(env.env, SLUBTRACE_GENERATION="sheaves", SLUBTRACE_NODES="2")
    rc, out = run([env.args.slubtrace, "record", "-o", trace_dir, "--",
                   env.path("tests/test_stress"), "-t", "4", "-s", "1"],
                  env=penv, timeout=TIMEOUT, check=False, what="slubtrace record")
    log("\n".join(l for l in out.splitlines()
                   if "FAIL" in l or l.startswith(("test_stress", "slubtrace: events", "verdict"))))
    errors = []
    check(rc == 0, "test_stress under SLUBTRACE_GENERATION=sheaves recorded and checked: exit %d"
          % rc, errors)
    check(re.search(r"^verdict: clean", out, re.M),
          "the stress test's sheaves trace is not judged clean: %r" % out[-600:], errors)
    t = Trace(trace_dir, env.env)
    creates = [e for e in t.slub() if e["_name"] == "cache_create"]
    sheaves = {e["cache_id"] for e in creates if e["flags"] & SLUB_F_SHEAVES}
    log("  %d caches announced, %d of them with sheaves" % (len(creates), len(sheaves)))
    check(sheaves, "no cache_create says SLUB_F_SHEAVES", errors)
    check({e.get("format") for e in creates} == {Trace.FORMAT}, "cache_create formats %r"
          % {e.get("format") for e in creates}, errors)
    for e in creates:
        if e["cache_id"] in sheaves:
            check(e["cpu_partial"] == 0, "sheaves cache %s: cpu_partial %d"
                  % (e.get("name"), e["cpu_partial"]), errors)
    frozen = [e for e in t.slub() if e["_name"] in SLAB_WORD and
              e.get("cache_id") in sheaves and e["frozen"]]
    check(not frozen, "%d slab words of sheaves caches are frozen (first: %s)"
          % (len(frozen), frozen[:1]), errors)
    cpu = [e for e in t.slub() if e["_name"] in CPU_SLAB and e.get("cache_id") in sheaves]
    check(not cpu, "%d cpu-slab events in sheaves caches (first: %s)" % (len(cpu), cpu[:1]),
          errors)
    names = ("sheaf_refill", "sheaf_flush", "sheaf_slot", "barn_put", "barn_get",
             "sheaf_alloc", "sheaf_free")
    n = {k: sum(1 for e in t.slub() if e["_name"] == k) for k in names}
    log("  sheaf and barn events: %s" % n)
    check(all(n.values()), "sheaf or barn events missing: %s" % n, errors)
    # each barn's counts move by one per event, in the trace's order
    barns, bad = {}, 0
    for e in t.slub():
        if e["_name"] not in ("barn_put", "barn_get"):
            continue
        key = (e.get("vpid"), e["cache_id"], e["node"])
        full, empty = e["counts"] & 0xffffffff, e["counts"] >> 32
        if key in barns:
            d = 1 if e["_name"] == "barn_put" else -1
            pf, pe = barns[key]
            want = (pf + d, pe) if e["list"] == 1 else (pf, pe + d)
            bad += want != (full, empty)
        barns[key] = (full, empty)
    check(not bad, "%d barn events whose counts are out of step" % bad, errors)
    # Slabs the program made before the tracer had registered have no
    # slab_new in the trace: their chains start unseen, so they are left out.
    first_new = {}
    for e in t.slub():
        if e["_name"] == "slab_new":
            first_new[e["slab"]] = min(first_new.get(e["slab"], e["seq"]), e["seq"])
    seen = [e for e in t.slub() if e["_name"] not in SLAB_WORD or
            (e["slab"] in first_new and e["seq"] >= first_new[e["slab"]])]
    log("  %d slab-word events of slabs made before tracing left out"
        % (len(t.slub()) - len(seen)))
    check_chains(seen, errors)
    rc, out = run([env.args.slubtrace, "check", trace_dir], env=env.env, timeout=TIMEOUT,
                  check=False, what="slubtrace check")
    log("  check: exit %d: %s" % (rc, out.strip()[-300:]))
    check(rc == 0 and re.search(r"^verdict: clean", out, re.M),
          "slubtrace check on a sheaves trace: exit %d, %r" % (rc, out[-400:]), errors)
    html = os.path.join(env.work, "sheaves.html")
    rc, out = run([env.args.slubtrace, "report", "-o", html, trace_dir], env=env.env,
                  timeout=TIMEOUT, check=False, what="slubtrace report")
    log("  report: exit %d: %s" % (rc, out.strip()[-300:]))
    check(rc == 0 and os.path.getsize(html) > 0,
          "slubtrace report on a sheaves trace: exit %d, %r" % (rc, out[-300:]), errors)
    rc, out = run([env.args.slubtrace, "stats", trace_dir], env=env.env, timeout=TIMEOUT,
                  check=False, what="slubtrace stats")
    check(rc == 0, "slubtrace stats on a sheaves trace exited %d: %s" % (rc, out[-400:]),
          errors)
    # a sheaves cache's page ends with its sheaf and barn items (sheaf
    # alloc and free from their events, format 8 on)
    check(re.search(r"^Sheaves\n-+\nSheaf refill +\d+ objects +flush +\d+ objects\n"
                    r"Sheaf alloc +\d+ +free +\d+\nBarn get +\d+ fail +\d+ +put +\d+ fail +\d+$",
                    out, re.M),
          "slubtrace stats on a sheaves trace: no Sheaves block: %r" % out[-600:], errors)
    # the bundled workload, recorded with its objects and checked
    wdir = os.path.join(env.work, "workload")
    rc, out = run([env.args.slubtrace, "record", "--objects", "-o", wdir, "--",
                   env.path("examples/slub-workload"), "-g", "2", "-t", "2", "-m", "1500",
                   "-r", "1"], env=penv, timeout=TIMEOUT, check=False, what="slubtrace record")
    verdict = re.findall(r"^verdict: .*$", out, re.M)
    log("  workload: exit %d, %s" % (rc, verdict[-1] if verdict else out.strip()[-300:]))
    check(rc == 0 and verdict and verdict[-1].startswith("verdict: clean"),
          "the workload's sheaves trace: exit %d, %r" % (rc, out[-400:]), errors)
    # the in-process checker judges the generation too (abort at a violation)
    rc, out = run([env.path("tests/test_stress"), "-t", "4", "-s", "1"],
                  env=dict(penv, SLUBTRACE_CHECK="1"), timeout=TIMEOUT, check=False,
                  what="test_stress")
    check(rc == 0 and "CHECK" not in out, "SLUBTRACE_CHECK=1 with sheaves: exit %d, %r"
          % (rc, out[-300:]), errors)
    return errors


TESTS = {
    "sheaves": test_sheaves,
    "errno": test_errno,
    "stress": test_stress,
    "python": test_python,
    "fork": test_fork,
    "threads": test_threads,
    "perf": lambda env: test_threads(env, perf=True),
    "startup": test_startup,
    "probe_malloc": test_probe_malloc,
    "options": test_options,
    "concurrent": test_concurrent,
    "clock": test_clock,
}


# ---- privileges ---------------------------------------------------------------------

def nobody_can_use(paths, uid, gid):
    for p in paths:
        rc = subprocess.run(["setpriv", "--reuid=%d" % uid, "--regid=%d" % gid,
                             "--clear-groups", "/bin/sh", "-c", 'test -r "$0"', p],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        if rc:
            return False
    return True


def drop_privileges(args):
    """As root: re-run as `nobody` in a directory it owns; None if impossible."""
    if os.geteuid() != 0 or args.as_user or not shutil.which("setpriv"):
        return None
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        return None
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    need = [py, args.slubtrace, os.path.abspath(__file__),
            os.path.join(args.build, "tracepoints/libslub-tp.so"),
            os.path.join(args.build, "tests/e2e/e2e_stress"),
            os.path.join(args.source, "tests/e2e/workload.py")]
    if not nobody_can_use(need, pw.pw_uid, pw.pw_gid):
        return None
    work = tempfile.mkdtemp(prefix="slubtrace-e2e-")
    os.chown(work, pw.pw_uid, pw.pw_gid)
    os.chmod(work, 0o755)
    argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups",
            py, os.path.abspath(__file__), "--as-user", "--work", work] + sys.argv[1:]
    try:
        rc = subprocess.run(argv).returncode
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return rc


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="the build directory")
    ap.add_argument("--source", required=True, help="the source directory")
    ap.add_argument("--keep", action="store_true", help="keep the traces")
    ap.add_argument("--work", help=argparse.SUPPRESS)
    ap.add_argument("--as-user", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("test", choices=sorted(TESTS))
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    args.source = os.path.abspath(args.source)
    args.slubtrace = os.path.join(args.build, "src/cli/slubtrace")

    for tool in ("lttng", "lttng-sessiond", "babeltrace2"):
        if not shutil.which(tool):
            log("%s not installed: skipped" % tool)
            return SKIP

    rc = drop_privileges(args)
    if rc is not None:
        return rc

    work = args.work or tempfile.mkdtemp(prefix="slubtrace-e2e-")
    env = Env(args, work)
    log("e2e %s: work directory %s (uid %d)" % (args.test, work, os.geteuid()))
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
