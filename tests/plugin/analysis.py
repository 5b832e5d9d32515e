#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The offline analysis on real traces: `slubtrace record`, then
`slubtrace check` / `slubtrace timeline`.

    analysis.py --build DIR --source DIR TEST

Tests:
  clean      a clean run of the bundled workload: zero violations, exit 0,
             the same verdict from `babeltrace2 -c sink.slub.check`;
             timeline text and JSON lines agree with each other
  inject     each SLUBTRACE_INJECT fault: exit 1, flagged with its rule
             (unlocked-list R3-list-unlocked, lost-update a family-5 break,
             double-freeze R2-freeze-unfrozen, lost-unfreeze R4-list-at-unlock,
             wrong-owner-unfreeze R1-owner, early-discard R6-discard); the
             list operations' stacks symbolized to function and file:line
  agreement  one run under SLUBTRACE_CHECK=1: the rules the in-process
             checker reports are the rules `slubtrace check` reports
  badinput   an empty directory, a directory that is not a trace, a
             truncated stream, a corrupted packet, a trace of another
             provider only: each one line on stderr and exit 2, no crash
  damaged    copies of a small recording damaged as a copy made while LTTng
             was writing, a full disk or a stray file would: metadata cut
             inside a packet, one byte of a build_id event's length (which
             crashes Babeltrace's decoder), a stream cut at a packet
             boundary or emptied, a stream of another recording, a
             corrupted packet header, an unreadable directory; each exit 2
             with one line naming the file, from every command; the
             watchdog on Babeltrace's own hang; the same trace without its
             index files still read; record's advice on losses with
             --blocking on (not --blocking again)
  progress_bytes  slubtrace's progress by bytes on a recording of several
             packets a stream (tests/plugin/test_progress.c): its index
             files' packets sum to the stream files' sizes, and the percent
             at the sink's latest message time never goes back, stays in
             0..100, passes between and ends at 100

Session daemons as in tests/e2e/e2e.py (own lttng-sessiond --no-kernel,
private LTTNG_HOME, `nobody` when run as root).  Exit: 0 pass, 1 fail,
77 skipped.
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import e2e  # noqa: E402  (run, Env, Failure, log, nobody_can_use)

from e2e import Env, Failure, log, run  # noqa: E402

SKIP = 77
WORKLOAD = ["-g", "2", "-t", "3", "-m", "1500", "-r", "2"]
RULE = re.compile(r"\bR\d+-[a-z-]+\b")


def slubtrace(env, args, penv=None, timeout=600):
    rc, out = run([env.args.slubtrace] + args, env=penv or env.env, check=False,
                  timeout=timeout, what="slubtrace " + args[0])
    return rc, out


def record(env, name, extra_env=None, args=None):
    d = os.path.join(env.work, name)
    penv = dict(env.env)
    penv.update(extra_env or {})
    rc, out = slubtrace(env, ["record", "-o", d] + (args or []) + ["--",
                        env.path("examples/slub-workload")] + WORKLOAD, penv=penv)
    log(out.rstrip()[-3000:])
    return d, rc, out


def verdict(out):
    lines = [l for l in out.splitlines() if l.startswith("verdict: ")]
    return lines[-1] if lines else None


def test_clean(env):
    errors = []
    env.start_sessiond()
    try:
        d, rc, out = record(env, "clean")
    finally:
        env.stop_sessiond()
    e2e.check(rc == 0, "record exited %d" % rc, errors)
    e2e.check(verdict(out) is not None, "record did not print check's verdict", errors)
    rc, out = slubtrace(env, ["check", d])
    log("  check: " + (verdict(out) or out[-500:]))
    e2e.check(rc == 0, "check exited %d on a clean trace:\n%s" % (rc, out[-3000:]), errors)
    e2e.check(verdict(out) and verdict(out).startswith("verdict: clean") and
              " 0 violations" in verdict(out), "not clean: %s" % verdict(out), errors)
    plugin_dir = env.path("analysis/plugin")
    rc2, out2 = run(["babeltrace2", "--plugin-path=" + plugin_dir, d, "-c", "sink.slub.check"],
                    env=env.env, check=False, what="babeltrace2 sink.slub.check")
    e2e.check(rc2 == 0 and verdict(out2) == verdict(out),
              "babeltrace2 -c sink.slub.check: exit %d, %s" % (rc2, verdict(out2)), errors)
    rc, text = slubtrace(env, ["timeline", d])
    rc_j, js = slubtrace(env, ["timeline", "--json", d])
    tl = [l for l in text.splitlines() if l.strip()]
    jl = [json.loads(l) for l in js.splitlines() if l.startswith("{")]
    log("  timeline: %d text lines, %d JSON lines" % (len(tl), len(jl)))
    e2e.check(rc == 0 and rc_j == 0 and tl and len(tl) == len(jl),
              "timeline: exit %d/%d, %d text lines, %d JSON lines" % (rc, rc_j, len(tl), len(jl)),
              errors)
    if jl:
        slab = jl[len(jl) // 2]["slab"]
        rc, one = slubtrace(env, ["timeline", "--json", "--slab", slab, d])
        mine = [json.loads(l) for l in one.splitlines() if l.startswith("{")]
        e2e.check(mine and all(r["slab"] == slab for r in mine) and
                  len(mine) == sum(1 for r in jl if r["slab"] == slab),
                  "--slab %s kept %d lines" % (slab, len(mine)), errors)
        for r in mine:
            e2e.check(r["inuse"] <= r["objects"], "inuse > objects in %s" % r, errors)
    return errors


def test_inject(env):
    errors = []
    # A lost update is a break of the slab-word chain: family 5 (which rule
    # of it depends on what the bypassing store changed).
    want = {"unlocked-list": "R3-list-unlocked", "lost-update": "R5-",
            "double-freeze": "R2-freeze-unfrozen", "lost-unfreeze": "R4-list-at-unlock",
            "wrong-owner-unfreeze": "R1-owner", "early-discard": "R6-discard"}
    env.start_sessiond()
    try:
        # The list operations carry stacks: the reports must symbolize them.
        traces = {fault: record(env, fault, {"SLUBTRACE_INJECT": fault, "SLUBTRACE_NODES": "2"},
                                ["--no-check", "--stacks", "add_partial,remove_partial"])[0]
                  for fault in want}
    finally:
        env.stop_sessiond()
    for fault, rule in want.items():
        rc, out = slubtrace(env, ["check", traces[fault]])
        rules = set(OFFLINE_RULE.findall(out))
        log("  %s: exit %d, rules %s, %s" % (fault, rc, sorted(rules), verdict(out)))
        e2e.check(rc == 1, "%s: check exited %d, expected 1" % (fault, rc), errors)
        e2e.check(any(r.startswith(rule) for r in rules),
                  "%s: %s not reported (found %s)" % (fault, rule, sorted(rules)), errors)
    rc, out = slubtrace(env, ["check", "--max-reports", "3", traces["unlocked-list"]])
    frames = re.findall(r"^    #\d+ +0x[0-9a-f]+ (\S+) at (\S+:\d+) \((\S+)\+0x", out, re.M)
    log("  symbolized frames: %s" % ", ".join("%s %s" % (f, l) for f, l, _ in frames[:6]))
    e2e.check("stack of the offending event:" in out, "no stack in the unlocked-list reports",
              errors)
    e2e.check(any("libslub-malloc" in o and l.split(":")[0].endswith(".c") for _, l, o in frames),
              "no frame symbolized to file:line in libslub-malloc.so:\n%s" % out[-3000:], errors)
    return errors


ONLINE_SUMMARY = re.compile(r"slubtrace: check: \d+ events, \d+ slabs, (\d+) violations")
ONLINE_RULE = re.compile(r"slubtrace: CHECK (R\d+-[a-z-]+)")
OFFLINE_RULE = re.compile(r"^violation \d+: (R\d+-[a-z-]+):", re.M)


def test_agreement(env):
    """The same run checked in-process (SLUBTRACE_CHECK=report) and from
    its trace: the same rules, the same number of violations."""
    errors = []
    for fault in ("", "unlocked-list"):
        extra = {"SLUBTRACE_INJECT": fault, "SLUBTRACE_NODES": "2",
                 "SLUBTRACE_CHECK": "report"}
        env.start_sessiond()
        try:
            d, rc, out = record(env, "agree-" + (fault or "clean"), extra, ["--no-check"])
        finally:
            env.stop_sessiond()
        online = {}
        for r in ONLINE_RULE.findall(out):
            online[r] = online.get(r, 0) + 1
        online_total = sum(int(x) for x in ONLINE_SUMMARY.findall(out))
        rc, off = slubtrace(env, ["check", "--max-reports", "0", d])
        offline = {}
        for r in OFFLINE_RULE.findall(off):
            offline[r] = offline.get(r, 0) + 1
        name = fault or "clean"
        log("  %s: online %s (%d), offline %s, %s" % (name, online, online_total, offline,
                                                       verdict(off)))
        e2e.check(rc == (1 if fault else 0), "%s: check exited %d" % (name, rc), errors)
        # The rules the in-process checker reported are the rules found
        # offline, as many violations in all (the in-process summary line
        # counts them).  An injected list operation outside list_lock
        # carries no lock_seq that orders it, so the trace may show a
        # consequence more (R3-list-remove): logged, and only R3 allowed.
        only = sorted(set(offline) - set(online))
        e2e.check(set(online) <= set(offline),
                  "%s: online rules %s, offline rules %s" % (name, sorted(online),
                                                             sorted(offline)), errors)
        e2e.check(all(r.startswith("R3-") for r in only),
                  "%s: offline-only rules %s" % (name, only), errors)
        if only:
            log("  %s: offline only: %s" % (name, ", ".join("%s %d" % (r, offline[r])
                                                          for r in only)))
        e2e.check(online_total == sum(offline.values()) - sum(offline[r] for r in only),
                  "%s: %d violations online, %d offline" % (name, online_total,
                                                           sum(offline.values())), errors)
        if fault:
            e2e.check(online, "%s: SLUBTRACE_CHECK reported nothing" % name, errors)
    return errors


def one_line_exit_2(env, what, d, errors):
    rc, out = slubtrace(env, ["check", d], timeout=120)
    lines = [l for l in out.splitlines() if l.strip()]
    log("  %s: exit %d: %s" % (what, rc, " | ".join(lines)[:300]))
    e2e.check(rc == 2, "%s: exit %d, expected 2" % (what, rc), errors)
    e2e.check(len(lines) == 1 and lines[0].startswith("slubtrace: "),
              "%s: expected one error line, got %d:\n%s" % (what, len(lines), out[-2000:]),
              errors)


def stream_files(d):
    out = []
    for root, _, files in os.walk(d):
        if "metadata" in files:
            out += [os.path.join(root, f) for f in sorted(files)
                    if f != "metadata" and not f.endswith(".idx") and
                    os.path.getsize(os.path.join(root, f)) > 4096]
    return out


def test_badinput(env):
    errors = []
    empty = os.path.join(env.work, "empty")
    os.makedirs(empty)
    one_line_exit_2(env, "empty directory", empty, errors)
    notrace = os.path.join(env.work, "notrace")
    os.makedirs(os.path.join(notrace, "sub"))
    with open(os.path.join(notrace, "sub", "README"), "w") as f:
        f.write("not a trace\n")
    one_line_exit_2(env, "not a trace", notrace, errors)

    env.start_sessiond()
    try:
        good, rc, _ = record(env, "good", args=["--no-check"])
        other = os.path.join(env.work, "other")
        env.lttng("create", "other", "--output=" + other)
        env.lttng("enable-event", "--userspace", "--session", "other", "lttng_ust_statedump:*")
        env.lttng("add-context", "--userspace", "--session", "other", "--type=vpid",
                  "--type=vtid")
        env.lttng("start", "other")
        penv = dict(env.env)
        penv["LD_PRELOAD"] = env.path("tracepoints/libslub-tp.so")
        run([env.path("examples/slub-workload")] + WORKLOAD, env=penv, what="slub-workload")
        env.lttng("stop", "other")
        env.lttng("destroy", "other")
    finally:
        env.stop_sessiond()
    one_line_exit_2(env, "another provider only", other, errors)

    streams = stream_files(good)
    if not streams:
        raise Failure("no stream file in %s" % good)
    trunc = os.path.join(env.work, "truncated")
    shutil.copytree(good, trunc)
    victim = stream_files(trunc)[0]
    with open(victim, "r+b") as f:
        f.truncate(os.path.getsize(victim) // 2 + 13)
    one_line_exit_2(env, "truncated stream", trunc, errors)

    corrupt = os.path.join(env.work, "corrupt")
    shutil.copytree(good, corrupt)
    victim = stream_files(corrupt)[0]
    with open(victim, "r+b") as f:
        f.write(b"\xde\xad\xbe\xef" * 8)   # the packet header's magic and uuid
    one_line_exit_2(env, "corrupted packet", corrupt, errors)
    return errors


SMALL = ["-g", "1", "-t", "1", "-m", "200", "-r", "1"]


def record_small(env, name, extra=()):
    """Small sub-buffers (8 KiB), so that streams have several packets;
    blocking, so that none is lost."""
    d = os.path.join(env.work, name)
    rc, out = slubtrace(env, ["record", "--no-check", "--buffer-size", "16K", "--blocking"] +
                        list(extra) + ["-o", d, "--", env.path("examples/slub-workload")] +
                        SMALL)
    log(out.rstrip()[-1000:])
    if rc != 0:
        raise Failure("record %s exited %d" % (name, rc))
    return d


def trace_dirs(d):
    return sorted(root for root, _, files in os.walk(d) if "metadata" in files)


def streams_of(tdir):
    return sorted(f for f in os.listdir(tdir)
                  if f != "metadata" and not f.startswith(".") and
                  os.path.isfile(os.path.join(tdir, f)))


def index_packets(tdir, stream):
    """(offset, size in bytes) of each packet index/STREAM.idx lists."""
    import struct
    with open(os.path.join(tdir, "index", stream + ".idx"), "rb") as f:
        data = f.read()
    magic, _, _, length = struct.unpack(">IIII", data[:16])
    if magic != 0xC1F1DCC1:
        raise Failure("%s: not an index" % stream)
    out = []
    for o in range(16, len(data) - length + 1, length):
        off, bits = struct.unpack(">QQ", data[o:o + 16])
        out.append((off, bits // 8))
    return out


def copy_of(env, good, name):
    d = os.path.join(env.work, name)
    shutil.copytree(good, d)
    return d, trace_dirs(d)[0]


# Every command that reads a trace (stats -o: none written on failure).
READERS = [["check"], ["timeline"], ["stats"], ["storms"], ["report", "-o", "REPORT"]]


def refused(env, what, d, pattern, errors, commands=READERS, extra_env=None, timeout=120):
    """Each command: exit 2, one line on stderr matching pattern."""
    penv = dict(env.env)
    penv.update(extra_env or {})
    for cmd in commands:
        args = [a.replace("REPORT", os.path.join(env.work, what.replace(" ", "-") + ".html"))
                for a in cmd] + [d]
        rc, out = run([env.args.slubtrace] + args, env=penv, check=False, timeout=timeout,
                      what="slubtrace " + cmd[0])
        err = [l for l in out.splitlines() if l.startswith("slubtrace: ")]
        log("  %s (%s): exit %d: %s" % (what, cmd[0], rc, " | ".join(err)[:400]))
        e2e.check(rc == 2, "%s (%s): exit %d, expected 2:\n%s" % (what, cmd[0], rc, out[-1500:]),
                  errors)
        e2e.check(len(err) == 1 and re.search(pattern, err[0]),
                  "%s (%s): expected one line matching /%s/, got:\n%s" %
                  (what, cmd[0], pattern, "\n".join(err)[-1500:]), errors)
        e2e.check(not err or "addr=0x" not in err[0], "%s: Babeltrace's internals leak: %s" %
                  (what, err[0] if err else ""), errors)


def test_damaged(env):
    errors = []
    env.start_sessiond()
    try:
        # with LTTng's dl events, whose build_id has a 64-bit length
        good = record_small(env, "good", ["--dlopen-events"])
        other = record_small(env, "other")
        # Losses with --blocking on (a wait of 0: none): the advice must not
        # be "--blocking" (tiny buffers discard, as e2e_options shows).
        rc, lossy = slubtrace(env, ["record", "--no-check", "--buffer-size", "16K",
                                    "--blocking=0", "-o", os.path.join(env.work, "lossy"), "--",
                                    env.path("examples/slub-workload"), "-g", "2", "-t", "2",
                                    "-m", "20000", "-r", "1"])
    finally:
        env.stop_sessiond()
    advice = [l for l in lossy.splitlines() if "to keep every event" in l]
    log("  --blocking=0 with 16K buffers: exit %d, %s" % (rc, advice))
    e2e.check(advice, "--blocking=0 with 16K buffers: no loss, no advice to judge:\n%s" %
              lossy[-1500:], errors)
    e2e.check(advice and "or with --blocking" not in advice[0] and
              "--blocking=inf" in advice[0] and "--buffer-size" in advice[0],
              "the advice with --blocking on: %s" % advice, errors)
    rc, out = slubtrace(env, ["check", good], timeout=120)
    e2e.check(rc == 0, "the undamaged copy: check exited %d:\n%s" % (rc, out[-1500:]), errors)

    # Metadata cut inside the text of its last packet (its header: magic,
    # uuid, checksum, content_size, packet_size; little-endian here).
    import struct
    d, t = copy_of(env, good, "metadata-cut")
    meta = os.path.join(t, "metadata")
    with open(meta, "rb") as f:
        data = f.read()
    o = last = 0
    while o < len(data):
        magic, content, size = struct.unpack("<I20xII", data[o:o + 32])
        if magic != 0x75D11D57 or not size:
            raise Failure("%s: not packetized metadata" % meta)
        last, o = o, o + size // 8
    with open(meta, "r+b") as f:
        f.truncate(last + 37 + (content // 8 - 37) // 2)
    refused(env, "metadata cut", d, re.escape(meta) + r": cut inside its packet \d+ .*"
            r"copied while it was being written, or the disk was full", errors)
    # Without the check, Babeltrace's reader spins: the watchdog ends it.
    refused(env, "metadata cut, unchecked", d,
            r": no progress for 3 s in Babeltrace's CTF reader, opening the trace \(its "
            r"metadata and indexes\): the trace is corrupted$", errors,
            commands=[["check"]], extra_env={"SLUBTRACE_NO_FILE_CHECK": "1",
                                             "SLUBTRACE_STALL_TIMEOUT": "3"})

    # The high half of a build_id event's _build_id_length.
    d, t = copy_of(env, good, "build-id")
    hit = None
    # baddr, then _build_id_length = 20 (64-bit little-endian), then the id:
    # looked for with the baddrs the build_id events carry, as a lone 20
    # may be any slub event's field.
    text = subprocess.run(["babeltrace2", t], capture_output=True, text=True).stdout
    baddrs = {int(b, 16) for b in
              re.findall(r"lttng_ust_(?:statedump|dl):build_id: .*?baddr = (0x[0-9A-Fa-f]+)",
                         text)}
    for s in streams_of(t):
        path = os.path.join(t, s)
        with open(path, "rb") as f:
            data = f.read()
        for b in sorted(baddrs):
            i = data.find(struct.pack("<QQ", b, 20))
            if i >= 0:
                hit = (path, i + 8)
                break
        if hit:
            break
    if not hit:
        raise Failure("no build_id length found in %s" % t)
    with open(hit[0], "r+b") as f:
        f.seek(hit[1] + 6)
        f.write(b"\x01")
    refused(env, "build_id length", d, r"^slubtrace: %s: (Babeltrace's CTF reader crashed "
            r"\(SIG[A-Z]+\) reading stream file %s|cannot read the trace, .*stream file %s)" %
            (re.escape(d), re.escape(hit[0]), re.escape(hit[0])), errors)

    # A stream cut at a packet boundary (its last packet gone), and one emptied.
    d, t = copy_of(env, good, "stream-cut")
    victim = max(streams_of(t), key=lambda s: len(index_packets(t, s)))
    packets = index_packets(t, victim)
    cut = packets[-1][0]
    with open(os.path.join(t, victim), "r+b") as f:
        f.truncate(cut)
    refused(env, "stream cut at a packet boundary", d,
            re.escape(os.path.join(t, victim)) + r": (cut short|empty): its index lists %d "
            r"packet\(s\), %d bytes, the file holds %d" % (len(packets), sum(packets[-1]), cut),
            errors)
    d, t = copy_of(env, good, "stream-empty")
    victim = streams_of(t)[-1]
    open(os.path.join(t, victim), "w").close()
    refused(env, "stream emptied", d, re.escape(os.path.join(t, victim)) +
            r": empty: its index lists", errors)

    # A stream of another recording dropped in, with and without an index.
    ot = trace_dirs(other)[0]
    for keep_index in (True, False):
        name = "stray-stream" + ("" if keep_index else "-noindex")
        d, t = copy_of(env, good, name)
        if not keep_index:
            shutil.rmtree(os.path.join(t, "index"))
        shutil.copy(os.path.join(ot, streams_of(ot)[0]), os.path.join(t, "stray_0"))
        refused(env, name, d, re.escape(os.path.join(t, "stray_0")) +
                r": packet 1 \(byte 0\) belongs to another trace", errors)

    # Without index files (older traces, live): still read, same verdict.
    d, t = copy_of(env, good, "no-index")
    shutil.rmtree(os.path.join(t, "index"))
    rc2, out2 = slubtrace(env, ["check", d], timeout=120)
    e2e.check(rc2 == 0 and verdict(out2) == verdict(out),
              "without index: exit %d, %s (with: %s)" % (rc2, verdict(out2), verdict(out)),
              errors)

    # A corrupted packet header: the stream file named, no internals.
    d, t = copy_of(env, good, "bad-magic")
    victim = streams_of(t)[0]
    with open(os.path.join(t, victim), "r+b") as f:
        f.write(b"\xde\xad\xbe\xef")
    refused(env, "bad packet magic", d, re.escape(os.path.join(t, victim)) +
            r": packet 1 \(byte 0\) does not start with CTF's magic number", errors)

    # An unreadable directory is not a missing trace.
    if os.geteuid() != 0:
        d, t = copy_of(env, good, "unreadable")
        locked = os.path.dirname(t)
        os.chmod(locked, 0)
        try:
            refused(env, "unreadable directory", d, re.escape(locked) +
                    r": cannot list it: Permission denied", errors, commands=[["check"]])
        finally:
            os.chmod(locked, 0o755)

    # A cache no slab of the trace has: the ones it has listed.
    refused(env, "timeline --cache nosuch", good,
            r"no slab of cache `nosuch` in the trace; its caches with slabs: .*kmalloc-",
            errors, commands=[["timeline", "--cache", "nosuch"]])
    return errors


def test_progress_bytes(env):
    errors = []
    env.start_sessiond()
    try:
        d = record_small(env, "progress")
    finally:
        env.stop_sessiond()
    prog = os.path.join(env.args.build, "tests/plugin/test_progress")
    rc, out = run([prog, env.path("analysis/plugin"), d], env=env.env, check=False,
                  what="test_progress")
    log(out.rstrip()[-2000:])
    e2e.check(rc == 0, "test_progress exited %d" % rc, errors)
    return errors


TESTS = {"clean": test_clean, "inject": test_inject, "agreement": test_agreement,
         "badinput": test_badinput, "damaged": test_damaged,
         "progress_bytes": test_progress_bytes}


def drop_privileges(args):
    if os.geteuid() != 0 or args.as_user or not shutil.which("setpriv"):
        return None
    import pwd
    import subprocess
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        return None
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    need = [py, args.slubtrace, os.path.abspath(__file__),
            os.path.join(args.build, "examples/slub-workload"),
            os.path.join(args.build, "analysis/plugin/babeltrace-plugin-slub.so")]
    if not e2e.nobody_can_use(need, pw.pw_uid, pw.pw_gid):
        return None
    work = tempfile.mkdtemp(prefix="slubtrace-analysis-")
    os.chown(work, pw.pw_uid, pw.pw_gid)
    os.chmod(work, 0o755)
    argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups",
            py, os.path.abspath(__file__), "--as-user", "--work", work] + sys.argv[1:]
    try:
        return subprocess.run(argv).returncode
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--keep", action="store_true")
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
    work = args.work or tempfile.mkdtemp(prefix="slubtrace-analysis-")
    env = Env(args, work)
    log("analysis %s: work directory %s (uid %d)" % (args.test, work, os.geteuid()))
    try:
        result = TESTS[args.test](env)
    except Failure as e:
        log("FAIL: %s" % e)
        return 1
    finally:
        env.stop_sessiond()
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
    for e in result:
        log("FAIL: %s" % e)
    if result:
        return 1
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
