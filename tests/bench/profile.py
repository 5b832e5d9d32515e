#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Instructions per malloc/free, by function, under callgrind.

Counts instructions (repeatable, unlike time) for one slab_test workload
under each allocator given, and prints per call of malloc and of free: the
inclusive instruction count, and the functions where those instructions are
spent (exclusive counts divided by the number of malloc+free calls).

  tests/bench/profile.py --bin-dir build-bench/tests/bench \\
      --lib glibc --lib /usr/lib/x86_64-linux-gnu/libmimalloc.so.2 \\
      --lib build-bench-notrace/src/shim/libslub-malloc.so --test 2 --size 64
  tests/bench/profile.py --lib ... --prog larson -- -e 5 -k 20000

Tests: 1 (N x malloc then N x free), 2 (malloc/free pairs), 4 (remote
free), 5 (1 alloc N free), as in slab_test.  Multithreaded tests run
serialised under valgrind: the code paths are the real ones (remote frees
stay remote), the interleaving is not.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

SRC_DIR = os.path.dirname(os.path.abspath(__file__))
TOP_DIR = os.path.abspath(os.path.join(SRC_DIR, "..", ".."))


def parse_calls(path):
    """Calls per callee name from a callgrind output file."""
    names = {}
    calls = {}
    target = None
    with open(path) as f:
        for line in f:
            m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "cfn":
                    target = names.get(m.group(2))
            elif line.startswith("calls=") and target:
                calls[target] = calls.get(target, 0) + int(line.split("=", 1)[1].split()[0])
    return calls


def annotate(path, inclusive):
    r = subprocess.run(["callgrind_annotate", "--inclusive=" + ("yes" if inclusive else "no"),
                        "--threshold=100", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("callgrind_annotate: " + r.stderr.strip())
    costs = {}
    total = None
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(.*?)\s*$", line)
        if not m:
            continue
        ir = int(m.group(1).replace(",", ""))
        what = m.group(2)
        if "PROGRAM TOTALS" in what:
            total = ir
            continue
        # "file:function [object]" -> function
        fn = re.sub(r"\s+\[[^\]]*\]$", "", what)
        fn = fn.split(":", 1)[1] if ":" in fn else fn
        costs[fn] = costs.get(fn, 0) + ir
    return total, costs


def profile(lib, args, workdir):
    if lib == "glibc":
        label = "glibc"
    elif os.path.abspath(lib).startswith(TOP_DIR + os.sep):
        label = os.path.relpath(os.path.abspath(lib), TOP_DIR)
    else:
        label = os.path.basename(lib)
    out = os.path.join(workdir, "cg.%s.out" % re.sub(r"[^\w.-]", "_", label))
    if args.prog:
        argv = [os.path.join(args.bin_dir, args.prog)] + args.args
    else:
        argv = [os.path.join(args.bin_dir, "slab_test"), "-T", str(args.test),
                "-m", str(args.size), "-s", str(args.size), "-S", str(args.size),
                "-n", str(args.n), "-w", "0", "-t", "2"]
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + argv
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if lib != "glibc":
        env["LD_PRELOAD"] = lib
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: valgrind failed:\n%s" % (label, r.stderr[-2000:]))
    calls = parse_calls(out)
    _, incl = annotate(out, True)
    total, excl = annotate(out, False)
    n_malloc = calls.get("malloc", 0)
    n_free = calls.get("free", 0)
    return label, total, incl, excl, n_malloc, n_free


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", action="append", default=[],
                    help="allocator to preload, or 'glibc' (repeatable)")
    ap.add_argument("--bin-dir", default=os.path.join(TOP_DIR, "build-bench", "tests", "bench"))
    ap.add_argument("--test", type=int, default=2, choices=[1, 2, 4, 5])
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("-n", type=int, default=100000)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--prog", help="profile this benchmark program instead of slab_test, "
                    "with the arguments after --")
    ap.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    libs = args.lib or ["glibc"]
    workdir = tempfile.mkdtemp(prefix="slub-profile-")
    if args.prog:
        print("callgrind, %s %s" % (args.prog, " ".join(args.args)))
    else:
        print("callgrind, slab_test test %d, size %d, %d objects per thread"
              % (args.test, args.size, args.n))
    for lib in libs:
        label, total, incl, excl, n_malloc, n_free = profile(lib, args, workdir)
        ops = n_malloc + n_free
        print()
        print("## %s: %s instructions in all; %d malloc, %d free calls" %
              (label, format(total or 0, ","), n_malloc, n_free))
        if n_malloc:
            print("  malloc: %.1f instructions per call (inclusive)" %
                  (incl.get("malloc", 0) / n_malloc))
        if n_free:
            print("  free:   %.1f instructions per call (inclusive)" %
                  (incl.get("free", 0) / n_free))
        if ops:
            print("  where (exclusive instructions per malloc+free call):")
            for fn, ir in sorted(excl.items(), key=lambda kv: -kv[1])[:args.top]:
                print("    %8.2f  %s" % (ir / ops, fn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
