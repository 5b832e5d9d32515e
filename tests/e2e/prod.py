#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of production tracing, with e2e.py's daemons and rules.

    prod.py --build DIR --source DIR TEST

Tests:
  attach    services started with the preloads before any session daemon;
            `slubtrace record --pid` starts one, the services register with
            it, only they are recorded; one exits while attached and the
            other goes on; SIGINT detaches; a process not preloaded, one
            with another LTTNG_HOME and a pid that does not exist each get a
            line; the trace starts mid-run and the state model finds nothing
            (slabs already alive resynchronised); the service keeps running;
            `--procname` attaches to a running service and to one started
            while attached, and records only them
  trigger   `record --snapshot --trigger violation` of the bundled workload
            with injected faults and a rate-limit interval longer than the
            run: many violations, one slub:trigger, exactly one snapshot,
            named after its time and rule, holding the trigger event and
            the violating slab's events, which `slubtrace check` reports
            with the slab's history; a clean run writes none; bad options;
            `--trigger storm=3` under race-window: one snapshot holding the
            third attempt; `--trigger error`: a double free gives one snapshot, named after
            the error, holding the slub:error event and its trigger
  flight    `record --snapshot --buffer-size 1M --trigger violation` of the
            workload with a fault armed after 1 s (SLUBTRACE_INJECT_DELAY):
            one snapshot, whose streams lost their oldest packets; its check
            says the window read and finds R3-list-unlocked, no sign of
            a stream cut short (R7-lock-seq, R9-cpu-slab), no R5-word-chain
            (a seq gap at the window's edges is counted, not judged)
  live      `record --live` (its own lttng-relayd on loopback) of a program
            that runs the bundled workload with injected faults, then waits:
            `check --live URL` prints the violation while the program still
            runs (the test lets it end only after seeing the line), ends
            with the session, exit 1, the same count as record's own check;
            an unknown session, a relay that does not answer (also with
            --all-sessions, and for top), a relay URL without a session and
            without --all-sessions, `--relay` to
            a port nobody listens on: one line, exit 2, nothing run; the
            relay daemon killed mid-session: the program runs to its end,
            record says the trace is incomplete and exits 125
  top       `top --batch --counts` of a trace recorded under race-window:
            intervals of 1 s, redos in the contended cache, and every column
            summed over the intervals (the longest hold: its maximum) equal
            to what `slubtrace stats --json` reports; `top --batch --live`
            of a `record --live` session prints intervals with storms and
            redos while the program still runs (the test lets it end only
            after seeing them), then ends with the session; bad input: one
            line, exit 2
  hosts     (as root) several hosts streaming to one relay: in a private
            network, UTS, pid and mount namespace made here (`unshare`; no
            real interface is ever used), two host namespaces, each its own
            hostname and pid namespace, joined by veth pairs to the relay's
            (10.77.N.1 there, 10.77.N.2 in host N); one lttng-relayd; on
            each host `slubtrace record --live --relay` (its own session
            daemon as nobody with a private LTTNG_HOME) of the bundled
            workload, with an injected fault on alpha and clean on beta;
            `check --live --all-sessions` and `check --live URL URL` label
            the violations [alpha], say beta is clean, exit 1; `top --batch
            --all-sessions` prints rows of both hosts; `slubtrace check` of
            the relay's output (both hosts' traces) the same.  Everything is
            removed at the end; skipped (77) when not root or when the
            namespaces cannot be made
  diskfull  (as root) `record --snapshot --trigger violation` whose output
            directory is a 256 KiB tmpfs mounted in a private mount
            namespace (`unshare --mount`; gone with the test), the fault
            armed after 1 s of traffic (SLUBTRACE_INJECT_DELAY): the trigger
            fires, the snapshot cannot fit, one line names the snapshot's
            directory and says its file system is full, and the traced
            program runs to its end with its exit status and its output
"""
import argparse
import json
import os
import queue
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import Failure, check, log, run  # noqa: E402


def service_env(env, home=None):
    """A service's environment: the preloads, no wait for a session daemon
    at start (none runs yet, as for a service started at boot)."""
    s = dict(env.env)
    s.pop("LTTNG_UST_REGISTER_TIMEOUT", None)
    s["LD_PRELOAD"] = "%s:%s" % (env.path("src/shim/libslub-malloc.so"),
                                 env.path("tracepoints/libslub-tp.so"))
    if home:
        s["LTTNG_HOME"] = s["HOME"] = home
    return s


def start_service(env, home=None):
    argv = [env.path("examples/slub-workload"), "-g", "1", "-t", "1", "-m", "100",
            "-r", "100000000"]
    return subprocess.Popen(argv, env=service_env(env, home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def group_state(pgid):
    """Each process of the group: pid, state, wchan, command line (what a
    hang waits in)."""
    rows = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[2]) != pgid:
                continue
            with open("/proc/%s/wchan" % d) as f:
                wchan = f.read().strip() or "-"
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            threads = []
            for t in os.listdir("/proc/%s/task" % d):
                with open("/proc/%s/task/%s/stat" % (d, t)) as f:
                    ts = f.read()
                with open("/proc/%s/task/%s/wchan" % (d, t)) as f:
                    tw = f.read().strip() or "-"
                threads.append("%s:%s:%s" % (t, ts[ts.rindex(")") + 2:].split()[0], tw))
        except (OSError, ValueError, IndexError):
            continue
        rows.append("  %s %s wchan %s [%s] threads %s" % (d, fields[0], wchan, cmd[:120],
                                                        " ".join(threads[:12])))
    return "\n".join(rows) or "  (no process left)"


class Reader:
    """The lines of a running process, as they come; echoed to the log
    unless quiet (a long table stream that would bury the verdict)."""

    def __init__(self, p, quiet=False):
        self.p = p
        self.quiet = quiet
        self.lines = []
        self.q = queue.Queue()
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def wait_for(self, pattern, timeout=120):
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        for line in self.lines:
            if rx.search(line):
                return line
        while time.monotonic() < deadline:
            try:
                line = self.q.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                break
            self.echo(line)
            self.lines.append(line)
            if rx.search(line):
                return line
        raise Failure("no line matching %r:\n%s" % (pattern, "\n".join(self.lines[-40:])))

    def rest(self, timeout=300):
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            state = group_state(self.p.pid)
            os.killpg(self.p.pid, signal.SIGKILL)
            raise Failure("slubtrace record did not end in %d s; its process group "
                          "then:\n%s\nits last lines:\n%s"
                          % (timeout, state, "\n".join(self.lines[-20:])))
        self.t.join(timeout=60)
        while True:
            try:
                line = self.q.get_nowait()
            except queue.Empty:
                break
            if line is None:
                break
            self.echo(line)
            self.lines.append(line)
        return "\n".join(self.lines)

    def echo(self, line):
        if not self.quiet:
            log("  | " + line)


EVENT = re.compile(r'\] \(\+[^)]*\) \S+ slub:(\w+): (.*)')
# the pid: the vpid context, or (format 12) the high half of pid_tid or of a
# slab-word event's fourth word
VPID = re.compile(r'\bvpid = (\d+)|\bpid_tid = (0x[0-9A-Fa-f]+|\d+)|'
                  r'\bwhere_slab_fl_counters_pid_tid = \[ (?:\[[0-2]\] = [^,]+, ){3}'
                  r'\[3\] = (0x[0-9A-Fa-f]+|\d+)')
WHERE = re.compile(r'\bwhere = (0x[0-9A-Fa-f]+|\d+)')
SLAB = re.compile(r'\bslab(_fl)? = (0x[0-9A-Fa-f]+)')
# formats 11 and 12: where, slab_fl and counters of a slab-word event in
# one array (format 12: and pid_tid)
WORD3 = re.compile(r'\bwhere_slab_fl_counters(?:_pid_tid)? = \[ \[0\] = (0x[0-9A-Fa-f]+|\d+), '
                   r'\[1\] = (0x[0-9A-Fa-f]+|\d+),')


def slab_first_events(directory, env):
    """vpids of the slub events, each slab's first event name, and the
    caches of a process that have events but no cache_create naming them in
    it, as {(vpid, cache_id): events} (format 10: a slab-word event's slab
    is the page number in slab_fl; format 11: where and slab_fl are the
    first two words of where_slab_fl_counters)."""
    p = subprocess.Popen(["babeltrace2", directory], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, errors="replace")
    vpids, first, named, early = set(), {}, set(), {}
    for line in p.stdout:
        m = EVENT.search(line)
        if not m:
            continue
        name, rest = m.group(1), m.group(2)
        pids = set()
        for v in VPID.finditer(rest):
            pids.add(int(v.group(1)) if v.group(1) else int(v.group(2) or v.group(3), 0) >> 32)
        if len(pids) != 1:
            raise Failure("slub:%s with %s pids (context and payload): %s"
                          % (name, len(pids) or "no", line.strip()[:300]))
        vpid = pids.pop()
        vpids.add(vpid)
        w3 = WORD3.search(rest)
        w = w3 or WHERE.search(rest)
        if w:
            k = (vpid, int(w.group(1), 0) & 0xffff)
            if name == "cache_create":
                named.add(k)
            elif k not in named:
                early[k] = early.get(k, 0) + 1
        s = None if w3 else SLAB.search(rest)
        if w3 or s:
            slab = int(w3.group(2), 0) >> 24 << 12 if w3 else int(s.group(2), 16)
            if s and s.group(1):
                slab = slab >> 24 << 12
            if slab:
                first.setdefault((vpid, slab), name)
    if p.wait():
        raise Failure("babeltrace2 %s failed" % directory)
    return vpids, first, {k: n for k, n in early.items() if k not in named}


def test_attach(env):
    errors = []
    slubtrace = env.args.slubtrace
    trace = os.path.join(env.work, "attach")
    other_home = os.path.join(env.work, "other-home")
    os.makedirs(other_home)

    # Bad input first: nothing runs, nothing is started.
    for args, want in ((["--pid", "12x"], r"--pid: expected PID"),
                       (["--pid", "1", "--", "true"], r"give no command"),
                       (["--duration", "5s", "--", "true"], r"--duration: only with"),
                       (["--pid", "1", "--duration", "soon"], r"--duration: expected"),
                       (["--pid", "999999999"], r"nothing to attach to")):
        rc, out = run([slubtrace, "record"] + args, env=env.env, check=False)
        check(rc == 2, "record %s: exit %d, not 2" % (" ".join(args), rc), errors)
        check(re.search(want, out), "record %s: no line %r:\n%s" % (" ".join(args), want, out),
              errors)

    a = start_service(env)
    b = start_service(env)
    elsewhere = start_service(env, home=other_home)
    plain = subprocess.Popen(["sleep", "600"], env=env.env, start_new_session=True)
    procs = [a, b, elsewhere, plain]
    try:
        time.sleep(1)   # the services run before any session daemon exists
        check(not env.reachable(), "a session daemon runs before record", errors)
        pids = "%d,%d,%d,%d,999999999" % (a.pid, b.pid, elsewhere.pid, plain.pid)
        rec = subprocess.Popen([slubtrace, "record", "--pid", pids, "--duration", "600s",
                                "-o", trace], env=env.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace",
                               start_new_session=True)
        r = Reader(rec)
        r.wait_for(r"pid %d \(slub-workload\): attached" % a.pid)
        r.wait_for(r"pid %d \(slub-workload\): attached" % b.pid)
        if env.root:
            # A root session daemon listens on the global socket, which
            # every process tries whatever its LTTng home: it is traced.
            r.wait_for(r"pid %d \(slub-workload\): attached" % elsewhere.pid)
        time.sleep(1)
        b.kill()
        b.wait()
        r.wait_for(r"pid %d \(slub-workload\) exited while attached; the others go on" % b.pid)
        time.sleep(1)
        rec.send_signal(signal.SIGINT)
        out = r.rest(150)
        check(rec.returncode == 0, "record --pid exited with %d" % rec.returncode, errors)
        check(a.poll() is None, "the attached service did not survive the detach", errors)
        check(elsewhere.poll() is None and plain.poll() is None,
              "a process that was not traced was disturbed", errors)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()

    home_line = (r"pid %d \(slub-workload\): attached" % elsewhere.pid if env.root else
                 r"pid %d \(slub-workload\) has LTTNG_HOME \(or HOME\) %s.*not traced"
                 % (elsewhere.pid, re.escape(other_home)))
    for pat in (r"pid %d \(sleep\): libslub-tp.so is not loaded.*not traced" % plain.pid,
                home_line,
                r"pid 999999999: no such process",
                r"detached after [\d.]+ s: Interrupt",
                r"note: attached to running processes: the trace starts mid-run",
                r"^verdict: clean: \d+ events, \d+ slabs, 0 violations"):
        check(re.search(pat, out, re.M), "no line matching %r" % pat, errors)
    check(not env.reachable(), "the session daemon record started is still running", errors)

    vpids, first, unnamed = slab_first_events(trace, env.env)
    want = {a.pid, b.pid} | ({elsewhere.pid} if env.root else set())
    check(vpids == want, "vpids in the trace: %s, not only %s" % (sorted(vpids), sorted(want)),
          errors)
    # Every cache with events is named in its process: the caches are
    # announced once the attached session records (an announcement made
    # while it had the events enabled but was not started yet reached no
    # trace, and was not made again).  A thread's event at the instant the
    # session starts may still come before the announcement.
    check(not unnamed, "caches with events but never announced, by (vpid, cache): %s"
          % sorted(unnamed.items()), errors)
    alive = sum(1 for name in first.values() if name != "slab_new")
    log("attach: %d slabs, %d of them alive before the trace started" % (len(first), alive))
    check(alive > 0, "no slab was already alive when the trace started: not a mid-run "
          "trace", errors)

    # --procname: one service running, one started while attached.
    trace2 = os.path.join(env.work, "procname")
    c = start_service(env)
    late = None
    try:
        rec = subprocess.Popen([slubtrace, "record", "--procname", "slub-workload",
                                "--duration", "600s", "-o", trace2], env=env.env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace", start_new_session=True)
        r = Reader(rec)
        r.wait_for(r"pid %d \(slub-workload\): attached" % c.pid)
        late = start_service(env)
        r.wait_for(r"pid %d \(slub-workload\): attached" % late.pid)
        time.sleep(1)
        rec.send_signal(signal.SIGINT)
        out = r.rest(150)
        check(rec.returncode == 0, "record --procname exited with %d" % rec.returncode, errors)
    finally:
        for p in (c, late):
            if p and p.poll() is None:
                p.kill()
            if p:
                p.wait()
    check(re.search(r"^verdict: clean: \d+ events, \d+ slabs, 0 violations", out, re.M),
          "record --procname: no clean verdict:\n%s" % out[-3000:], errors)
    vpids, _, unnamed = slab_first_events(trace2, env.env)
    check(vpids == {c.pid, late.pid}, "record --procname: vpids %s, not %d and %d" % (
        sorted(vpids), c.pid, late.pid), errors)
    check(not unnamed, "record --procname: caches with events but never announced: %s"
          % sorted(unnamed.items()), errors)
    return errors


SNAPSHOT_DIR = re.compile(r'^(\d{8})-(\d{6})-(R\d+-[\w-]+|storm|unknown)-(\d+)$')


def test_trigger(env):
    errors = []
    slubtrace = env.args.slubtrace
    workload = [env.path("examples/slub-workload"), "-g", "2", "-t", "3", "-m", "800", "-r", "2"]

    for args, want in ((["--trigger", "violation"], r"--trigger: only with --snapshot"),
                       (["--snapshot", "--trigger", "violation,strom"],
                        r"--trigger: expected violation, storm\[=N\].*got 'strom'"),
                       (["--snapshot", "--trigger", "storm=0"], r"got 'storm=0'")):
        rc, out = run([slubtrace, "record"] + args + ["--", "true"], env=env.env, check=False)
        check(rc == 2, "record %s: exit %d, not 2" % (" ".join(args), rc), errors)
        check(re.search(want, out), "record %s: no line %r:\n%s" % (" ".join(args), want, out),
              errors)

    env.start_sessiond()
    # A clean run: nothing fires, nothing is written, CMD's status stays.
    clean = os.path.join(env.work, "clean")
    rc, out = run([slubtrace, "record", "--snapshot", "--trigger", "violation,error", "-o",
                   clean, "--", "sh", "-c", "%s; exit 3" % " ".join(workload)], env=env.env,
                  check=False)
    log(out[-1500:])
    check(rc == 3, "clean run: exit %d, not the command's 3" % rc, errors)
    check("no trigger fired: no snapshot was written" in out, "clean run: no 'no trigger "
          "fired' line", errors)
    check(os.listdir(clean) == [], "clean run wrote %s" % os.listdir(clean), errors)

    flight = os.path.join(env.work, "flight")
    fenv = dict(env.env)
    fenv["SLUBTRACE_INJECT"] = "unlocked-list,race-window"
    fenv["SLUBTRACE_TRIGGER_INTERVAL"] = "3600"
    rc, out = run([slubtrace, "record", "--snapshot", "--trigger", "violation", "-o", flight,
                   "--"] + workload, env=fenv, check=False)
    log("\n".join(l for l in out.splitlines() if not l.startswith(("slubtrace:  ", "    ")))
        [-3000:])
    check(rc == 0, "record --trigger exited with %d" % rc, errors)
    fired = re.findall(r"^slubtrace: trigger: violation (\S+) slab (0x[0-9a-f]+) at ([\d.]+): "
                       r"snapshot requested", out, re.M)
    inproc = len(re.findall(r"^slubtrace: CHECK R", out, re.M))
    check(len(fired) == 1, "%d trigger lines, not 1 (rate limit 3600 s)" % len(fired), errors)
    check(inproc > 1, "%d in-process violations: the injection should give several" % inproc,
          errors)
    dirs = sorted(os.listdir(flight))
    check(len(dirs) == 1, "snapshots: %s, not exactly one" % dirs, errors)
    if len(fired) != 1 or len(dirs) != 1:
        return errors
    rule, slab, when = fired[0][0], int(fired[0][1], 16), float(fired[0][2])
    m = SNAPSHOT_DIR.match(dirs[0])
    check(m and m.group(3) == rule, "snapshot %s not named DATE-TIME-%s-N" % (dirs[0], rule),
          errors)
    snap = os.path.join(flight, dirs[0])
    written = [os.stat(os.path.join(d, f)).st_mtime for d, _, files in os.walk(snap)
               for f in files]
    if written:
        log("trigger -> snapshot written: %.0f ms (the snapshot's last file mtime - the "
            "trigger line's time)" % ((max(written) - when) * 1000))

    p = subprocess.run(["babeltrace2", snap], env=env.env, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, errors="replace", timeout=600)
    check(p.returncode == 0, "babeltrace2 %s failed" % snap, errors)
    trig = [l for l in p.stdout.splitlines() if " slub:trigger: " in l]
    check(len(trig) == 1 and 'rule = "%s"' % rule in trig[0] and
          "slab = 0x%X" % slab in trig[0],
          "the snapshot's slub:trigger events: %s" % trig[:3], errors)
    on_slab = [l for l in p.stdout.splitlines()
               if "slab = 0x%X" % slab in l and " slub:trigger: " not in l]
    check(any(" slub:add_partial: " in l for l in on_slab),
          "the snapshot lacks the violating add_partial of slab %#x" % slab, errors)

    rc, out = run([slubtrace, "check", snap], env=env.env, check=False)
    log(out[:1500])
    check(rc == 1, "check SNAPSHOT: exit %d, not 1" % rc, errors)
    check(re.search(r"^violation \d+: %s" % re.escape(rule), out, re.M),
          "check SNAPSHOT does not report %s" % rule, errors)
    check(re.search(r"the slab's last \d+ events before it", out),
          "check SNAPSHOT shows no slab history", errors)

    # --trigger storm=3: a CAS retried three times (race-window widens the
    # window between a read and its CAS).
    stormdir = os.path.join(env.work, "storm")
    senv = dict(env.env)
    senv["SLUBTRACE_INJECT"] = "race-window"
    rc, out = run([slubtrace, "record", "--snapshot", "--trigger", "storm=3", "-o", stormdir,
                   "--"] + workload, env=senv, check=False)
    fired = re.findall(r"^slubtrace: trigger: storm storm slab (0x[0-9a-f]+)", out, re.M)
    check(rc == 0 and len(fired) == 1, "record --trigger storm=3: exit %d, %d trigger lines" %
          (rc, len(fired)), errors)
    dirs = os.listdir(stormdir) if os.path.isdir(stormdir) else []
    check(len(dirs) == 1 and SNAPSHOT_DIR.match(dirs[0]) and "-storm-" in dirs[0],
          "storm snapshots: %s" % dirs, errors)
    if len(fired) == 1 and len(dirs) == 1:
        p = subprocess.run(["babeltrace2", os.path.join(stormdir, dirs[0])], env=env.env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           errors="replace", timeout=600)
        attempts = [int(m.group(1), 16) >> 48 for m in re.finditer(
            r" slub:cmpxchg_fail: .*?where = (0x[0-9A-Fa-f]+), slab = %s\b" %
            fired[0].upper().replace("0X", "0x"), p.stdout)]
        check(attempts and max(attempts) >= 3,
              "the storm snapshot has no cmpxchg_fail of attempt >= 3 on %s: %s" %
              (fired[0], attempts[:10]), errors)

    # --trigger error: a double free the allocator reports.
    df = os.path.join(env.work, "double_free.py")
    with open(df, "w") as f:
        f.write("import ctypes\nl = ctypes.CDLL(None)\nl.malloc.restype = ctypes.c_void_p\n"
                "l.free.argtypes = [ctypes.c_void_p]\np = l.malloc(64)\nl.free(p)\n"
                "l.free(p)\n")
    errdir = os.path.join(env.work, "error")
    rc, out = run([slubtrace, "record", "--snapshot", "--trigger", "error", "-o", errdir,
                   "--", e2e.python3(), df], env=env.env, check=False)
    check(rc == 0, "record --trigger error exited with %d" % rc, errors)
    check(len(re.findall(r"^slubtrace: trigger: error Object already free", out, re.M)) == 1,
          "no single error trigger line:\n%s" % out[-2000:], errors)
    dirs = os.listdir(errdir) if os.path.isdir(errdir) else []
    check(len(dirs) == 1 and SNAPSHOT_DIR.match(dirs[0].replace("Object_already_free",
                                                                "unknown")) and
          "-Object_already_free-" in dirs[0], "error snapshots: %s" % dirs, errors)
    if len(dirs) == 1:
        p = subprocess.run(["babeltrace2", os.path.join(errdir, dirs[0])], env=env.env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           errors="replace", timeout=600)
        check(" slub:error: " in p.stdout and
              re.search(r' slub:trigger: .*"error"', p.stdout),
              "the error snapshot lacks slub:error or its trigger", errors)
    return errors


def test_flight(env):
    """A fault armed after a second of traffic, buffers small enough to
    wrap: the snapshot's streams lost their oldest packets, and its check
    reads only where every stream is complete, so it finds the injected
    fault and nothing else."""
    errors = []
    flight = os.path.join(env.work, "flight")
    renv = dict(env.env)
    # The run must outlast the delay on a fast, quiet machine (120 rounds
    # took 1.6 s here, less than the 2 s first asked), and one snapshot per
    # run whatever the load makes of its length.
    renv.update({"SLUBTRACE_INJECT": "unlocked-list", "SLUBTRACE_INJECT_DELAY": "1",
                 "SLUBTRACE_TRIGGER_INTERVAL": "3600"})
    rc, out = run([env.args.slubtrace, "record", "--snapshot", "--buffer-size", "1M",
                   "--trigger", "violation", "-o", flight, "--",
                   env.path("examples/slub-workload"), "-g", "2", "-t", "3", "-m", "800",
                   "-r", "600"], env=renv, check=False)
    for line in out.splitlines():
        if re.match(r"slubtrace: (SLUBTRACE|trigger|snapshot|/|check:)|verdict|slub-workload",
                    line):
            log("  | " + line)
    check("SLUBTRACE_INJECT armed after 1 s" in out, "the fault was not armed after 1 s", errors)
    snaps = [d for d in os.listdir(flight) if SNAPSHOT_DIR.match(d)] \
        if os.path.isdir(flight) else []
    check(len(snaps) == 1, "%d snapshots, not 1" % len(snaps), errors)
    if len(snaps) != 1:
        return errors
    rc, text = run([env.args.slubtrace, "check", "--max-reports", "0",
                    os.path.join(flight, snaps[0])], env=env.env, check=False)
    rules = re.findall(r"^violation \d+: (R\d+-[\w-]+):", text, re.M)
    log("snapshot check: exit %d, %d violations: %s" % (
        rc, len(rules), ", ".join("%s x%d" % (r, rules.count(r)) for r in sorted(set(rules)))))
    check(re.search(r"a flight-recorder snapshot: \d+ streams? lost (its|their) oldest "
                    r"packets; read from [\d.]+ to [\d.]+ s of the clock", text),
          "the snapshot's streams did not wrap, or its window was not said", errors)
    # Read whole, such a snapshot gives hundreds of R0, R5 and R7.
    # The fault corrupts a partial list: its consequences vary from run to
    # run (R4, R0, R6, ...; the program itself may fail).  What only a
    # stream cut short gives is a lock acquisition number skipped
    # (R7-lock-seq) or a cpu slab changed unseen (R9-cpu-slab): none may
    # remain.
    cut = [r for r in rules if r in ("R7-lock-seq", "R9-cpu-slab")]
    check(rc == 1 and "R3-list-unlocked" in rules,
          "the snapshot's check did not find the injected R3-list-unlocked", errors)
    check(not cut, "the snapshot's check found %d R7-lock-seq/R9-cpu-slab: events of a "
          "stream cut short were judged" % len(cut), errors)
    # A seq gap at the window's edges is counted, not judged (doc/tracing.md).
    verdict = re.search(r"^verdict: .*", text, re.M)
    log("snapshot verdict: %s" % (verdict.group(0) if verdict else "none"))
    check(rules.count("R5-word-chain") == 0, "the snapshot's check found %d "
          "R5-word-chain" % rules.count("R5-word-chain"), errors)
    return errors


def test_live(env):
    errors = []
    slubtrace = env.args.slubtrace
    go, release = os.path.join(env.work, "go"), os.path.join(env.work, "release")
    trace = os.path.join(env.work, "live")
    ran = os.path.join(env.work, "ran")

    # Bad input: nothing runs.
    rc, out = run([slubtrace, "record", "--relay", "127.0.0.1:1", "--", "touch", ran],
                  env=env.env, check=False)
    check(rc == 2 and re.search(r"--relay 127.0.0.1:1: no relay daemon answers", out),
          "record --relay to a closed port: exit %d:\n%s" % (rc, out), errors)
    check(not os.path.exists(ran), "record --relay to a closed port ran the program", errors)
    rc, out = run([slubtrace, "check", "--live", "net://127.0.0.1:1/host/h/s"], env=env.env,
                  check=False)
    check(rc == 2 and "net://127.0.0.1:1/host/h/s" in out,
          "check --live of a closed port: exit %d:\n%s" % (rc, out), errors)
    rc, out = run([slubtrace, "check", "--live", "--all-sessions", "net://127.0.0.1:1"],
                  env=env.env, check=False)
    check(rc == 2 and re.search(r"^slubtrace: net://127.0.0.1:1: cannot list the relay's "
                                r"sessions: ", out, re.M),
          "check --live --all-sessions of a closed port: exit %d:\n%s" % (rc, out), errors)
    rc, out = run([slubtrace, "check", "--live", "net://127.0.0.1:1"], env=env.env, check=False)
    check(rc == 2 and "no session named" in out and "--all-sessions" in out,
          "check --live of a relay URL without --all-sessions: exit %d:\n%s" % (rc, out),
          errors)
    rc, out = run([slubtrace, "top", "--batch", "--all-sessions", "--live", "net://127.0.0.1:1"],
                  env=env.env, check=False)
    check(rc == 2 and "cannot list the relay's sessions" in out,
          "top --all-sessions of a closed port: exit %d:\n%s" % (rc, out), errors)

    workload = "%s -g 2 -t 3 -m 800 -r 2" % env.path("examples/slub-workload")
    script = ("while [ ! -e %s ]; do sleep 0.1; done; %s; "
              "while [ ! -e %s ]; do sleep 0.1; done" % (go, workload, release))
    renv = dict(env.env)
    renv["SLUBTRACE_INJECT"] = "unlocked-list,race-window"
    rec = subprocess.Popen([slubtrace, "record", "--live", "-o", trace, "--", "sh", "-c",
                            script], env=renv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace",
                           start_new_session=True)
    r = Reader(rec)
    chk = None
    try:
        url = r.wait_for(r"^slubtrace: live: net://").split()[2]

        chk = subprocess.Popen([slubtrace, "check", "--live", url], env=env.env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace", start_new_session=True)
        c = Reader(chk)
        time.sleep(2)   # the viewer attaches before the workload starts
        open(go, "w").close()
        t0 = time.monotonic()
        c.wait_for(r"^violation 1: R\d")
        log("live: first violation line %.2f s after the workload was released "
            "(includes its start)" % (time.monotonic() - t0))
        # the event's time (ns since the epoch: LTTng's clock offset) against
        # the wall clock when its report's line is read: a figure, not a test
        at = c.wait_for(r"^  process \d+, thread \d+, at \S+ \((\d+) ns\)")
        seen = time.time()
        ns = int(re.search(r"\((\d+) ns\)", at).group(1))
        log("live: violation 1 -> its line on check --live: %.0f ms" % ((seen - ns / 1e9) * 1e3))
        check(rec.poll() is None, "the traced program ended before the live line", errors)
        open(release, "w").close()
        rec_out = r.rest()
        live_out = c.rest()
    finally:
        open(release, "w").close()
        for p in (rec, chk):
            if p and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    check(rec.returncode == 0, "record --live exited with %d" % rec.returncode, errors)
    check(chk.returncode == 1, "check --live exited with %d, not 1" % chk.returncode, errors)
    lv = re.findall(r"^verdict: VIOLATIONS: \d+ events, \d+ slabs, (\d+) violations",
                    live_out, re.M)
    off = re.findall(r"^verdict: VIOLATIONS: \d+ events, \d+ slabs, (\d+) violations",
                     rec_out, re.M)
    check(lv and off and lv[-1] == off[-1],
          "live verdict %s, record's check %s" % (lv, off), errors)
    check(not env.reachable(), "record's session daemon is still running", errors)
    check(not relayd_of(rec.pid), "record's lttng-relayd is still running", errors)

    # The relay daemon dies mid-session.
    go2, done = os.path.join(env.work, "go2"), os.path.join(env.work, "done")
    rec = subprocess.Popen([slubtrace, "record", "--live", "-o", os.path.join(env.work, "dies"),
                            "--", "sh", "-c", "while [ ! -e %s ]; do sleep 0.1; done; %s && "
                            "touch %s" % (go2, workload, done)], env=env.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", start_new_session=True)
    r = Reader(rec)
    try:
        url = r.wait_for(r"^slubtrace: live: net://").split()[2]
        bad = re.sub(r"/[^/]+$", "/no-such-session", url)
        rc, out = run([slubtrace, "check", "--live", bad], env=env.env, check=False)
        check(rc == 2 and "no-such-session" in out,
              "check --live of an unknown session: exit %d:\n%s" % (rc, out), errors)
        pids = relayd_of(rec.pid)
        check(len(pids) == 1, "record --live runs %d relay daemons, not 1" % len(pids), errors)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        open(go2, "w").close()
        out = r.rest()
    finally:
        if rec.poll() is None:
            os.killpg(rec.pid, signal.SIGKILL)
            rec.wait()
    check(os.path.exists(done) and "0 damaged" in out,
          "the traced program did not run to its end once the relay was gone", errors)
    check(rec.returncode == 125, "record with a dead relay: exit %d, not 125" % rec.returncode,
          errors)
    check(re.search(r"the relay daemon \(pid \d+\) exited during the session", out) and
          re.search(r"is incomplete; record again", out),
          "record with a dead relay does not say the trace is incomplete", errors)
    return errors


TOP_ROW = re.compile(r"^(\d+\.\d{9}) (\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)"
                     r"\s+(\S+)\s+(\S+)$")
TOP_HEAD = re.compile(r"^(\d+\.\d{9}) interval ([\d.]+) s: (\d+) events, (\d+) storms")


def top_tables(text):
    """The intervals of `top --batch` output: [(start, events, storms,
    {cache: [alloc, free, slow, redo, storms, locks, wait, maxhold]})]; the
    figures as printed (strings)."""
    tables, where = [], None
    for line in text.splitlines():
        m = TOP_HEAD.match(line)
        if m:
            tables.append((m.group(1), int(m.group(3)), int(m.group(4)), {}))
            where = None
            continue
        parts = line.split()
        if len(parts) > 1 and parts[1] in ("CACHE", "TID"):
            where = parts[1]
            continue
        m = TOP_ROW.match(line)
        if m and where == "CACHE" and tables:
            tables[-1][3][m.group(2)] = list(m.groups()[2:])
    return tables


def test_top(env):
    errors = []
    slubtrace = env.args.slubtrace
    workload = [env.path("examples/slub-workload"), "-g", "2", "-t", "3", "-m", "800", "-r", "2"]

    # Bad input: one line naming it, exit 2.
    for args, want in ((["--batch", "--live", "net://127.0.0.1:1/host/h/s"],
                        r"net://127.0.0.1:1/host/h/s: .*Connection refused"),
                       (["--batch", "--live", "http://x/host/h/s"], r"expected a URL net://"),
                       (["--batch", env.work], r"no CTF trace found"),
                       (["--batch", os.path.join(env.work, "none")], r"No such file")):
        rc, out = run([slubtrace, "top"] + args, env=env.env, check=False)
        check(rc == 2 and re.search(want, out.splitlines()[0] if out else ""),
              "top %s: exit %d, first line not %r:\n%s" % (" ".join(args), rc, want, out),
              errors)

    # A recorded trace: the intervals add up to the whole.
    trace = os.path.join(env.work, "race")
    renv = dict(env.env)
    renv["SLUBTRACE_INJECT"] = "race-window"
    rc, out = run([slubtrace, "record", "-o", trace, "--"] + workload, env=renv, check=False)
    log(out[-1500:])
    check(rc == 0, "record under race-window exited with %d" % rc, errors)
    t0 = time.monotonic()
    rc, out = run([slubtrace, "top", "--batch", "--counts", "--interval", "10ms", "--top",
                   "100000", trace], env=env.env, check=False)
    t_top = time.monotonic() - t0
    check(rc == 0, "top --batch --counts exited with %d:\n%s" % (rc, out[-2000:]), errors)
    log("\n".join(out.splitlines()[:24]))
    tables = top_tables(out)
    t0 = time.monotonic()
    rc, js = run([slubtrace, "stats", "--json", trace], env=env.env, check=False)
    t_stats = time.monotonic() - t0
    check(rc == 0, "stats --json exited with %d" % rc, errors)
    if rc != 0 or not tables:
        check(tables, "top printed no interval:\n%s" % out[-2000:], errors)
        return errors
    stats = json.loads(js)
    log("top: %d events replayed in %.2f s (stats: %.2f s)" % (stats["events"], t_top, t_stats))
    starts = [int(t[0].replace(".", "")) for t in tables]
    check(len(tables) >= 3, "%d intervals of 10 ms: the sums need several" % len(tables),
          errors)
    check(all(a % 10000000 == 0 for a in starts) and
          all(b > a for a, b in zip(starts, starts[1:])),
          "interval starts not increasing multiples of 10 ms: %s" % starts, errors)
    check(sum(t[1] for t in tables) == stats["events"],
          "events: top %d, stats %d" % (sum(t[1] for t in tables), stats["events"]), errors)
    check(sum(t[2] for t in tables) == stats["storms"]["total"],
          "storms: top %d, stats %d" % (sum(t[2] for t in tables), stats["storms"]["total"]),
          errors)
    contended = None
    for c in stats["caches"]:
        name, it = c["name"], c["items"]
        rows = [t[3][name] for t in tables if name in t[3]]
        # "-": no object events in the trace (recorded without --objects),
        # where stats counts 0
        unknown = any(r[i] == "-" for r in rows for i in (0, 1))
        check(not unknown or (c["allocs"], c["frees"]) == (0, 0),
              "%s: top shows no alloc/free figure, stats counts %d/%d" %
              (name, c["allocs"], c["frees"]), errors)
        got = [sum(int(r[i]) if r[i] != "-" else 0 for r in rows) for i in range(7)]
        got.append(max([int(r[7]) for r in rows] or [0]))
        holds = [h["hold_ns"] for l in stats["locks"] if l["cache"] == name
                 for h in l["longest_holds"]]
        want = [c["allocs"], c["frees"],
                (it["alloc_slowpath"] or 0) + (it["free_slowpath"] or 0),
                it["cmpxchg_double_fail"] + it["cpu_partial_cmpxchg_fail"], c["storms"],
                it["list_lock_acquire"], c["lock"]["wait_ns"], max(holds or [0])]
        check(got == want, "%s: top's sums %s, stats %s (alloc, free, slow, redo, storms, "
              "locks, wait, max hold)" % (name, got, want), errors)
        if want[3] and (contended is None or want[3] > contended[1]):
            contended = (name, want[3])
    check(contended, "no cache with a failed CAS under race-window", errors)
    if contended:
        busy = [t[0] for t in tables if contended[0] in t[3] and int(t[3][contended[0]][3])]
        log("top: %d intervals, %s has redos in %d of them (%d in all)"
            % (len(tables), contended[0], len(busy), contended[1]))
        check(busy, "no interval shows %s's redos" % contended[0], errors)

    # With object events (record --objects) the alloc and free columns are
    # counts, summing to stats' allocations and frees.
    otrace = os.path.join(env.work, "objects")
    rc, out = run([slubtrace, "record", "--objects", "--no-check", "-o", otrace, "--"] +
                  workload, env=env.env, check=False)
    check(rc == 0, "record --objects exited with %d" % rc, errors)
    rc, out = run([slubtrace, "top", "--batch", "--counts", "--interval", "10ms", "--top",
                   "100000", otrace], env=env.env, check=False)
    rc2, js = run([slubtrace, "stats", "--json", otrace], env=env.env, check=False)
    check(rc == 0 and rc2 == 0, "top / stats on the --objects trace exited %d / %d" %
          (rc, rc2), errors)
    if rc == 0 and rc2 == 0:
        otables = top_tables(out)
        allocs = 0
        for c in json.loads(js)["caches"]:
            rows = [t[3][c["name"]] for t in otables if c["name"] in t[3]]
            got = (sum(int(r[0]) for r in rows), sum(int(r[1]) for r in rows))
            check(got == (c["allocs"], c["frees"]), "%s: top's allocs/frees %s, stats %s" %
                  (c["name"], got, (c["allocs"], c["frees"])), errors)
            allocs += got[0]
        check(allocs > 0, "no allocation counted in a trace recorded with --objects", errors)
        log("top: %d allocations counted with --objects" % allocs)

    # The order: redos by default, else the column --sort names.
    for key, col in ((None, 3), ("locks", 5), ("slow", 2)):
        if key:
            rc, out = run([slubtrace, "top", "--batch", "--counts", "--interval", "10ms",
                           "--sort", key, trace], env=env.env, check=False)
        for t in top_tables(out):
            v = [int(r[col]) for r in t[3].values()]
            check(v == sorted(v, reverse=True) and (not key or len(v) <= 10),
                  "top --sort %s: interval %s in the order %s" % (key or "(redo)", t[0], v),
                  errors)

    # Live: the storm while the program runs.
    go, release = os.path.join(env.work, "top-go"), os.path.join(env.work, "top-release")
    done = os.path.join(env.work, "top-done")
    os.mkfifo(release)
    # After the workload the program waits in `read`: quiet, no event at all.
    script = ("while [ ! -e %s ]; do sleep 0.1; done; %s -r 20; touch %s; read x < %s"
              % (go, " ".join(workload[:-2]), done, release))
    rec = subprocess.Popen([slubtrace, "record", "--live", "-o", os.path.join(env.work, "live"),
                            "--", "sh", "-c", script], env=renv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace",
                           start_new_session=True)
    r = Reader(rec)
    top = None
    try:
        url = r.wait_for(r"^slubtrace: live: net://").split()[2]
        top = subprocess.Popen([slubtrace, "top", "--batch", "--interval", "250ms", "--live",
                                url], env=env.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace",
                               start_new_session=True)
        t = Reader(top, quiet=True)
        time.sleep(2)   # the viewer attaches before the workload starts
        open(go, "w").close()
        t0 = time.monotonic()
        line = t.wait_for(r"^\d+\.\d{9} interval [\d.]+ s: \d+ events, [1-9]\d* storms")
        stamp = line.split()[0]
        t.wait_for(r"^%s (?!CACHE)\S+\s+\S+\s+\S+\s+\S+\s+[1-9]" % re.escape(stamp))
        # the interval's end on the trace clock (LTTng's: ns since the epoch)
        late = time.time() - (float(stamp) + 0.25)
        log("top --live: a storm's interval %.2f s after the workload was released "
            "(includes its start), printed %.2f s after the interval ended; the workload "
            "%s" % (time.monotonic() - t0, late,
                    "had ended" if os.path.exists(done) else "was still running"))
        check(rec.poll() is None, "the traced program ended before the live storm line",
              errors)
        # Quiet: the relay's inactivity beacons still close the intervals.
        idle = lines_after(t, r"^(\d+\.\d{9}) interval [\d.]+ s: 0 events", float(stamp))
        log("top --live: an idle interval at %s, the workload %s" % (
            idle, "had ended" if os.path.exists(done) else "was still running"))
        check(rec.poll() is None, "the traced program ended before the idle interval", errors)
        # A viewer slow to read the session's end (stopped here for 1.5 s
        # across it): record keeps its relay up until the viewer has read
        # the end and hung up, and top ends with the session, not with a
        # connection reset.
        os.kill(top.pid, signal.SIGSTOP)
        unblock(release)
        time.sleep(1.5)
        os.kill(top.pid, signal.SIGCONT)
        r.rest()
        top_out = t.rest()
    finally:
        unblock(release)
        for p in (rec, top):
            if p and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    check(rec.returncode == 0, "record --live exited with %d" % rec.returncode, errors)
    check(top.returncode == 0, "top --live exited with %d:\n%s" % (
        top.returncode, "\n".join(t.lines[-30:])), errors)
    live = top_tables(top_out)
    log("top --live: %d intervals, %d events, %d storms" % (
        len(live), sum(t[1] for t in live), sum(t[2] for t in live)))
    check(len(live) > 1 and sum(t[2] for t in live) > 0,
          "top --live: %d intervals, %d storms" % (len(live), sum(t[2] for t in live)), errors)

    # On a terminal (a relay takes one viewer per session at a time: one
    # after the other): redrawn in place, raw mode, q quits; SIGINT quits;
    # the terminal is restored either way.
    release = os.path.join(env.work, "tty-release")
    os.mkfifo(release)
    rec = subprocess.Popen([slubtrace, "record", "--live", "-o", os.path.join(env.work, "tty"),
                            "--", "sh", "-c", "%s -r 1; read x < %s" % (" ".join(workload[:-2]),
                                                                      release)],
                           env=env.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", start_new_session=True)
    r = Reader(rec)
    try:
        url = r.wait_for(r"^slubtrace: live: net://").split()[2]
        for how in ("q", "SIGINT"):
            pty_quit(env, slubtrace, url, how, errors)
        check(rec.poll() is None, "the traced program ended before top was quit", errors)
        unblock(release)
        r.rest()
    finally:
        unblock(release)
        if rec.poll() is None:
            os.killpg(rec.pid, signal.SIGKILL)
            rec.wait()
    check(rec.returncode == 0, "record --live (terminal viewers) exited with %d"
          % rec.returncode, errors)
    return errors


def lines_after(reader, pattern, after, timeout=120):
    """Waits for a new line of reader whose first group, a time, is past after."""
    deadline, rx = time.monotonic() + timeout, re.compile(pattern)
    while time.monotonic() < deadline:
        try:
            line = reader.q.get(timeout=1)
        except queue.Empty:
            continue
        if line is None:
            break
        reader.echo(line)
        reader.lines.append(line)
        m = rx.search(line)
        if m and float(m.group(1)) > after:
            return m.group(1)
    raise Failure("no line matching %r after %.9f:\n%s" % (pattern, after,
                                                          "\n".join(reader.lines[-40:])))


def unblock(fifo):
    """Lets the program's `read < fifo` return (when it still waits)."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return
    os.write(fd, b"go\n")
    os.close(fd)


def pty_quit(env, slubtrace, url, how, errors):
    """`top --live URL` on a pseudo-terminal, quit by q or by SIGINT."""
    master, slave = os.openpty()
    p = subprocess.Popen([slubtrace, "top", "--live", url], env=env.env, stdin=slave,
                         stdout=slave, stderr=slave, start_new_session=True)
    got, t0 = bytearray(), time.monotonic()

    def read():
        while True:
            try:
                b = os.read(master, 4096)
            except OSError:
                return
            if not b:
                return
            got.extend(b)
    th = threading.Thread(target=read, daemon=True)
    th.start()
    try:
        deadline = time.monotonic() + 120
        while b"q quits" not in got and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        check(b"\033[H\033[2J" in got and b"q quits" in got,
              "top on a terminal (%s): no table redrawn in place:\n%r" % (how, bytes(got[-600:])),
              errors)
        shown = time.monotonic() - t0
        lflag = termios.tcgetattr(slave)[3]
        check(not lflag & (termios.ICANON | termios.ECHO),
              "top on a terminal: stdin not in raw mode", errors)
        if p.poll() is not None:
            check(False, "top on a terminal ended by itself (exit %d):\n%s" % (
                p.returncode, bytes(got[-600:]).decode(errors="replace")), errors)
            return
        if how == "q":
            os.write(master, b"q")
        else:
            os.kill(p.pid, signal.SIGINT)
        rc = p.wait(timeout=60)
        lflag = termios.tcgetattr(slave)[3]
        check(rc == 0, "top on a terminal, quit by %s: exit %d" % (how, rc), errors)
        check(lflag & termios.ICANON and lflag & termios.ECHO,
              "top quit by %s left the terminal in raw mode" % how, errors)
        log("top on a terminal: first table %.2f s after start, %d tables, quit by %s" % (
            shown, got.count(b"\033[H\033[2J"), how))
    except subprocess.TimeoutExpired:
        check(False, "top on a terminal did not quit on %s" % how, errors)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        os.close(slave)
        os.close(master)


def relayd_of(pid):
    """The lttng-relayd processes `pid` started (its children)."""
    p = subprocess.run(["pgrep", "-P", str(pid), "-x", "lttng-relayd"],
                       stdout=subprocess.PIPE, text=True)
    return [int(x) for x in p.stdout.split()]


# ---- several hosts ----------------------------------------------------------------

HOSTS = ("alpha", "beta")
RELAY_PORT = 5342       # in the test's own network namespace: no one else is there


def host_addr(i, side):
    """The veth address of host number i (from 1): side 1 the relay's, 2 the host's."""
    return "10.77.%d.%d" % (i, side)


class World:
    """Runs inside the private namespaces as root: the hosts and the relay."""

    def __init__(self, args, work):
        self.args, self.work = args, work
        self.slubtrace = os.path.join(args.build, "src/cli/slubtrace")
        self.pw = pwd.getpwnam("nobody")
        self.holders, self.hpid, self.procs = [], {}, []
        self.env = dict(os.environ)
        for k in ("LD_PRELOAD", "SLUBTRACE_LIBDIR", "SLUBTRACE_INJECT"):
            self.env.pop(k, None)
        self.env["LTTNG_UST_REGISTER_TIMEOUT"] = "30000"

    def home(self, name):
        h = os.path.join(self.work, "home-" + name)
        os.makedirs(h, exist_ok=True)
        os.chown(h, self.pw.pw_uid, self.pw.pw_gid)
        return h

    def as_nobody(self, argv):
        return ["setpriv", "--reuid=%d" % self.pw.pw_uid, "--regid=%d" % self.pw.pw_gid,
                "--clear-groups"] + argv

    def user_env(self, name, extra=None):
        e = dict(self.env)
        e["HOME"] = e["LTTNG_HOME"] = self.home(name)
        e.update(extra or {})
        return e

    def make_host(self, i, name):
        # its own network, hostname and pids; its /proc for those pids
        h = subprocess.Popen(["unshare", "--net", "--uts", "--pid", "--fork", "--kill-child",
                              "--mount", "--mount-proc", "--propagation", "private", "sleep",
                              "1000000"],
                             stderr=subprocess.DEVNULL)
        self.holders.append(h)
        pid = None
        for _ in range(200):
            try:
                with open("/proc/%d/task/%d/children" % (h.pid, h.pid)) as f:
                    kids = f.read().split()
            except OSError:
                kids = []
            if kids:
                pid = int(kids[0])
                break
            time.sleep(0.05)
        if not pid:
            raise Failure("the namespaces of host %s were not made" % name)
        self.hpid[name] = pid
        veth = "vh-" + name
        run(["ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns",
             str(pid)], what="ip link add")
        run(["ip", "addr", "add", host_addr(i, 1) + "/24", "dev", veth], what="ip addr")
        run(["ip", "link", "set", veth, "up"], what="ip link")
        inside = ["nsenter", "-t", str(pid), "--net", "--uts"]
        run(inside + ["ip", "addr", "add", host_addr(i, 2) + "/24", "dev", "eth0"],
            what="ip addr (host)")
        run(inside + ["ip", "link", "set", "eth0", "up"], what="ip link (host)")
        run(inside + ["ip", "link", "set", "lo", "up"], what="ip link lo (host)")
        run(inside + ["hostname", name], what="hostname")
        rc, out = run(inside + ["hostname"], what="hostname")
        if out.strip() != name:
            raise Failure("host %s: its hostname reads %r" % (name, out.strip()))
        log("host %s: pid namespace of %d, %s <-> %s" % (name, pid, host_addr(i, 1),
                                                           host_addr(i, 2)))

    def in_host(self, name, argv):
        return ["nsenter", "-t", str(self.hpid[name]), "--net", "--uts", "--pid",
                "--mount"] + self.as_nobody(argv)

    def start_relay(self):
        out = os.path.join(self.work, "relay")
        os.makedirs(out, exist_ok=True)
        os.chown(out, self.pw.pw_uid, self.pw.pw_gid)
        argv = self.as_nobody(["lttng-relayd", "-C", "tcp://0.0.0.0:%d" % RELAY_PORT,
                               "-D", "tcp://0.0.0.0:%d" % (RELAY_PORT + 1),
                               "-L", "tcp://0.0.0.0:%d" % (RELAY_PORT + 2), "-o", out])
        log_f = open(os.path.join(self.work, "relayd.log"), "w")
        p = subprocess.Popen(argv, env=self.user_env("relay"), stdout=log_f,
                             stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(p)
        import socket
        for _ in range(300):
            s = socket.socket()
            try:
                s.connect(("127.0.0.1", RELAY_PORT + 2))
                return p
            except OSError:
                time.sleep(0.1)
            finally:
                s.close()
        raise Failure("lttng-relayd did not listen")

    def record(self, i, name, tag, inject):
        go = os.path.join(self.work, "go-" + tag)
        release = os.path.join(self.work, "release-" + tag)
        workload = "%s -g 2 -t 3 -m 800 -r 2" % os.path.join(self.args.build,
                                                            "examples/slub-workload")
        script = ("while [ ! -e %s ]; do sleep 0.1; done; %s; "
                  "while [ ! -e %s ]; do sleep 0.1; done" % (go, workload, release))
        extra = {"SLUBTRACE_INJECT": inject} if inject else {}
        argv = self.in_host(name, [self.slubtrace, "record", "--live", "--relay",
                                   "%s:%d" % (host_addr(i, 1), RELAY_PORT), "-o",
                                   os.path.join(self.work, "trace-" + tag), "--", "sh", "-c",
                                   script])
        p = subprocess.Popen(argv, env=self.user_env(name, extra), cwd=self.work,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace",
                             start_new_session=True)
        self.procs.append(p)
        return p, go, release

    def viewer(self, argv):
        p = subprocess.Popen(self.as_nobody([self.slubtrace] + argv),
                             env=self.user_env("viewer"), cwd=self.work,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace",
                             start_new_session=True)
        self.procs.append(p)
        return p

    def round(self, tag, viewer_argv, wait_pattern):
        """Both hosts record (alpha with a fault); a viewer made of the
        sessions' URLs runs while they do; returns the viewer's exit status
        and output, and the records' outputs."""
        recs = [self.record(1, "alpha", tag + "-a", "unlocked-list,race-window"),
                self.record(2, "beta", tag + "-b", None)]
        readers = [Reader(p) for p, _, _ in recs]
        try:
            urls = [r.wait_for(r"^slubtrace: live: net://", 60).split()[2] for r in readers]
            log("%s: sessions %s" % (tag, " ".join(urls)))
            v = self.viewer(viewer_argv(urls))
            vr = Reader(v)
            time.sleep(2)   # the viewer attaches before the workloads start
            for _, go, _ in recs:
                open(go, "w").close()
            vr.wait_for(wait_pattern, 60)
            running = [p.poll() is None for p, _, _ in recs]
        finally:
            # the programs end whatever happened, so that nothing waits
            for _, go, release in recs:
                open(go, "w").close()
                open(release, "w").close()
        outs = [r.rest(60) for r in readers]
        try:
            v.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(v.pid, signal.SIGKILL)
            raise Failure("%s: the viewer did not end with the sessions" % tag)
        vout = vr.rest(60)
        for (p, _, _), out in zip(recs, outs):
            if p.returncode != 0:
                raise Failure("%s: record exited with %d:\n%s" % (tag, p.returncode, out))
        return v.returncode, vout, outs, running

    def cleanup(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        # the pid 1 of each host: its end ends every process of the host
        for name, pid in self.hpid.items():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for h in self.holders:
            h.wait()


def check_hosts_verdict(tag, out, errors):
    """alpha's violations labelled, beta clean with events, one verdict."""
    check(re.search(r"^\[alpha\] violation 1: R\d", out, re.M),
          "%s: no violation labelled [alpha]:\n%s" % (tag, out[-3000:]), errors)
    check(re.search(r"^\[alpha\]   process \d+, thread \d+", out, re.M),
          "%s: alpha's process line not labelled (or its vpid numbered)" % tag, errors)
    check(not re.search(r"^\[beta\] violation", out, re.M),
          "%s: a violation labelled [beta] (beta ran clean)" % tag, errors)
    check(re.search(r"^\[alpha\] host verdict: VIOLATIONS: [1-9]\d* events, [1-9]\d* "
                    r"violations$", out, re.M),
          "%s: no VIOLATIONS verdict for alpha" % tag, errors)
    check(re.search(r"^\[beta\] host verdict: clean: [1-9]\d* events, 0 violations$", out,
                    re.M), "%s: beta is not reported clean with its events" % tag, errors)
    check(re.search(r"^verdict: VIOLATIONS:", out, re.M),
          "%s: no verdict over all hosts" % tag, errors)
    for line in out.splitlines():
        if line.startswith("violation ") or line.startswith("  process "):
            check(False, "%s: an unlabelled report line: %s" % (tag, line), errors)
            break


def hosts_in_world(args, work):
    """The test proper, as root inside the private namespaces."""
    errors = []
    w = World(args, work)
    try:
        run(["ip", "link", "set", "lo", "up"], what="ip link lo")
        for i, name in enumerate(HOSTS, 1):
            w.make_host(i, name)
        w.start_relay()
        relay = "net://127.0.0.1:%d" % (RELAY_PORT + 2)

        # every session of the relay
        rc, out, recs, running = w.round(
            "all-sessions", lambda urls: ["check", "--live", "--all-sessions", relay],
            r"^\[alpha\] violation 1: R\d")
        check(all(running), "all-sessions: a traced program ended before the live line",
              errors)
        check(rc == 1, "check --live --all-sessions exited %d, not 1" % rc, errors)
        check_hosts_verdict("check --live --all-sessions", out, errors)

        # the same with two URLs
        rc, out, recs, running = w.round(
            "two-urls", lambda urls: ["check", "--live"] + urls,
            r"^\[alpha\] violation 1: R\d")
        check(rc == 1, "check --live URL URL exited %d, not 1" % rc, errors)
        check_hosts_verdict("check --live URL URL", out, errors)

        # top: the rows of both hosts
        rc, out, recs, running = w.round(
            "top", lambda urls: ["top", "--batch", "--counts", "--all-sessions", "--live",
                                 relay],
            r"^\d+\.\d{9} alpha\s+\S+\s+")
        check(rc == 0, "top --all-sessions exited %d" % rc, errors)
        for name in HOSTS:
            check(re.search(r"^\d+\.\d{9} %s\s+kmalloc-\d+\s" % name, out, re.M),
                  "top: no cache row of host %s:\n%s" % (name, out[-3000:]), errors)
        check(re.search(r"^\d+\.\d{9} HOST\s+CACHE\s", out, re.M),
              "top: no HOST column", errors)

        # the relay's output holds both hosts' traces: read offline together
        rc, out = run(w.as_nobody([w.slubtrace, "check", os.path.join(work, "relay")]),
                      env=w.user_env("viewer"), check=False)
        log(out[-1500:])
        check(rc == 1, "slubtrace check of the relay's output exited %d, not 1" % rc, errors)
        check(re.search(r"^\[beta\] host verdict: clean: [1-9]", out, re.M) and
              re.search(r"^\[alpha\] host verdict: VIOLATIONS", out, re.M),
              "slubtrace check of the relay's output: hosts not told apart", errors)
    finally:
        w.cleanup()
    return errors


# ---- a snapshot directory that fills ------------------------------------------------

def diskfull_in_world(args, work):
    """As root in a private mount namespace: a tiny tmpfs for the snapshots."""
    errors = []
    pw = pwd.getpwnam("nobody")
    small = os.path.join(work, "small")
    home = os.path.join(work, "home")
    os.makedirs(small)
    os.makedirs(home)
    os.chown(home, pw.pw_uid, pw.pw_gid)
    run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0777", "tmpfs", small],
        what="mount tmpfs")
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "SLUBTRACE_LIBDIR"):
        env.pop(k, None)
    # the fault after a second of traffic: the buffers then hold far more
    # than the file system can take
    # (60 rounds, 0.8 s on a quiet machine, ended before the fault; the run
    # must outlast the delay however fast the machine is)
    env.update({"HOME": home, "LTTNG_HOME": home, "LTTNG_UST_REGISTER_TIMEOUT": "30000",
                "SLUBTRACE_INJECT": "unlocked-list", "SLUBTRACE_INJECT_DELAY": "1",
                "SLUBTRACE_TRIGGER_INTERVAL": "3600"})
    slubtrace = os.path.join(args.build, "src/cli/slubtrace")
    workload = [os.path.join(args.build, "examples/slub-workload"), "-g", "2", "-t", "3",
                "-m", "800", "-r", "400"]
    argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups",
            slubtrace, "record", "--snapshot", "--trigger", "violation", "-o",
            os.path.join(small, "flight"), "--"] + workload
    # A hang (seen once in CI: record never exited, nothing of it left to
    # read) is reported with where each process of record's group waits,
    # and their stacks, before the world and its namespaces go.
    p = subprocess.Popen(argv, env=env, cwd=work, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, errors="replace",
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        state = group_state(p.pid)
        stacks = e2e.dump_stacks(p.pid)
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise Failure("record --snapshot --trigger on a full file system hung: no exit after "
                      "150 s; its processes (pid, state, wchan, command, threads):\n%s\n%s\n"
                      "its standard error:\n%s" % (state, stacks, err[-4000:]))
    p = subprocess.CompletedProcess(argv, p.returncode, out, err)
    for line in p.stderr.splitlines():
        if re.match(r"slubtrace: (trigger|snapshot|check:|/|no )", line):
            log("  | " + line)
    log("  stdout | " + p.stdout.strip())
    check(re.search(r"^slubtrace: trigger: violation R3-list-unlocked", p.stderr, re.M),
          "the trigger did not fire", errors)
    m = re.search(r"^slubtrace: (%s/flight/\S+): the snapshot is incomplete: .*; the file "
                  r"system of %s/flight( is full)? \((\d+) KiB free of 256 KiB\)"
                  % (re.escape(small), re.escape(small)), p.stderr, re.M)
    if m:
        log("the snapshot directory's file system: %s KiB free of 256" % m.group(3))
    check(m and os.path.isdir(m.group(1)),
          "no line naming the snapshot directory on the full file system", errors)
    # The fault corrupts a partial list: an object can then be handed out
    # twice and a message damaged (21 of 1,920,000 in one run under load),
    # and the program says so and exits 1.  record's status is the program's.
    own = 1 if re.search(r"^slub-workload: expected \d+ intact messages", p.stderr, re.M) else 0
    check(p.returncode == own, "record exited %d, not the program's %d" % (p.returncode, own),
          errors)
    check(re.search(r"^slub-workload: 400 rounds x 2 groups x 3\+3 threads: \d+ messages "
                    r"passed, \d+ damaged", p.stdout, re.M),
          "the traced program's output is not its own:\n" + p.stdout, errors)
    check("not a readable CTF trace" not in p.stderr,
          "the cut-short snapshot was checked anyway", errors)
    run(["umount", small], what="umount")
    return errors


ROOT_TESTS = {
    "hosts": (["--net", "--uts", "--pid", "--fork", "--kill-child", "--mount",
               "--mount-proc", "--propagation", "private"], hosts_in_world),
    "diskfull": (["--mount", "--pid", "--fork", "--kill-child", "--mount-proc",
                  "--propagation", "private"], diskfull_in_world),
}


def die_with_parent():
    """In the child: SIGKILL when the test ends, however it ends (ctest's
    timeout kills the test, not its children)."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def root_main(argv):
    """The tests that need root for their namespaces: run in them."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--in-world", help=argparse.SUPPRESS)
    ap.add_argument("test")
    args = ap.parse_args(argv)
    args.build = os.path.abspath(args.build)
    args.source = os.path.abspath(args.source)
    flags, inner = ROOT_TESTS[args.test]
    name = "e2e " + args.test
    if args.in_world:
        import faulthandler
        # a hang says where it is, and ends before the outer timeout
        faulthandler.dump_traceback_later(270, exit=True)
        try:
            errors = inner(args, args.in_world)
        except Failure as e:
            errors = [str(e)]
        for e in errors:
            log("FAIL: %s" % e)
        return 1 if errors else 0

    if os.geteuid() != 0:
        log("%s: skipped: its namespaces (%s) need root" % (
            name, " ".join(f[2:] for f in flags if f[2:] in ("net", "uts", "pid", "mount"))))
        return e2e.SKIP
    for tool in ("lttng", "lttng-sessiond", "lttng-relayd", "babeltrace2", "unshare",
                 "nsenter", "ip", "setpriv", "hostname", "mount"):
        if not shutil.which(tool):
            log("%s: skipped: %s is not installed" % (name, tool))
            return e2e.SKIP
    # --kill-child: the world's pid 1 dies with unshare, and with it every
    # process of the world
    world = ["unshare"] + flags
    probe = ["ip", "link", "add", "vprobe", "type", "veth", "peer", "name", "vprobe1"] \
        if "--net" in flags else ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", "/mnt"]
    p = subprocess.run(world + probe, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode:
        log("%s: skipped: cannot make its namespaces here (%s): %s"
            % (name, " ".join(probe), p.stdout.strip()))
        return e2e.SKIP
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        log("%s: skipped: no user nobody" % name)
        return e2e.SKIP
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    if not e2e.nobody_can_use([os.path.join(args.build, "src/cli/slubtrace"),
                               os.path.join(args.build, "tracepoints/libslub-tp.so")],
                              pw.pw_uid, pw.pw_gid):
        log("%s: skipped: user nobody cannot read the build tree" % name)
        return e2e.SKIP
    work = tempfile.mkdtemp(prefix="slubtrace-%s-" % args.test)
    os.chmod(work, 0o755)
    os.chown(work, pw.pw_uid, pw.pw_gid)
    log("%s: work directory %s" % (name, work))
    try:
        # The world's first process is the pid 1 of its pid namespace: when
        # it ends, whatever runs in there is killed, and the network
        # namespaces go with their last process.
        rc = subprocess.run(world + [py, os.path.abspath(__file__), "--in-world", work] +
                            argv, timeout=270, preexec_fn=die_with_parent).returncode
    except subprocess.TimeoutExpired:
        log("FAIL: the test did not end in 270 s")
        rc = 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    log("PASS" if rc == 0 else "FAIL")
    return rc


TESTS = {"attach": test_attach, "trigger": test_trigger, "flight": test_flight,
         "live": test_live,
         "top": test_top}

if __name__ == "__main__":
    if sys.argv[-1] in ROOT_TESTS:
        sys.exit(root_main(sys.argv[1:]))
    e2e.TESTS.update(TESTS)
    # drop_privileges() re-runs the script it finds in e2e.__file__.
    e2e.__file__ = os.path.abspath(__file__)
    sys.exit(e2e.main())
