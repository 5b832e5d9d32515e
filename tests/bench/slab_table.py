#!/usr/bin/env python3
"""slab_table.py BUILD_DIR [REPEATS]: the 2009 slab_test table side by side, one run.

Single-thread slab_test (tests 1 and 2: N x alloc then N x free, and N x
alloc/free pairs; then the same with calloc, the zeroing __GFP_ZERO path,
and for slubtrace through a cache per size with kmem_cache_zalloc)
under slubtrace untraced (the shim preloaded), slubtrace traced (`slubtrace
record --no-check`), glibc and mimalloc, beside the 2009 kernel's cycles
(SLUB 2.6.32-rc8, 2009-slub-gfp-zero-slab-test-thread.txt).  Each cell is
cycles (TSC) / ns per operation, the lowest of REPEATS timed passes (default
7, `slab_test -r`: the TSC runs on while the thread is preempted, and on a
shared machine a pass of large objects often is); the ratio of slubtrace's
cycles to the 2009 kernel's beside it.  The peak RSS and minor faults of
each run close the table, then the preempted passes and the load average at
the start of each run.  Figures are printed, never judged.
"""
import os
import re
import subprocess
import sys

KERNEL_2009 = {  # size: (N x kmalloc, N x kfree, kmalloc/kfree pair), cycles
    8: (118, 158, 199), 16: (129, 162, 197), 32: (136, 149, 197), 64: (148, 168, 196),
    128: (189, 189, 197), 256: (217, 242, 197), 512: (254, 377, 210),
    1024: (284, 468, 201), 2048: (304, 509, 186), 4096: (388, 567, 204),
    8192: (523, 658, 202), 16384: (790, 843, 871),
}


def run(label, cmd, env):
    load = os.getloadavg()[0]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=900)
    if p.returncode != 0:
        sys.exit(f"slab_table: {label}: exit {p.returncode}\n{p.stdout[-2000:]}")
    m = {}
    for line in p.stdout.splitlines():
        g = re.match(r"^@(\S+) (\S+)$", line.strip())
        if g:
            m[g.group(1)] = float(g.group(2))
    m["loadavg"] = load
    return m


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    st = os.path.join(build, "tests/bench/slab_test")
    shim = os.path.join(build, "src/shim/libslub-malloc.so")
    cli = os.path.join(build, "src/cli/slubtrace")
    mi = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2"
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    base = [st, "-T", "12", "-M", "-r", str(repeats)]
    env0 = dict(os.environ)
    env0.pop("LD_PRELOAD", None)
    sides = [("slubtrace", {"LD_PRELOAD": shim}, [])]
    sides.append(("traced", {}, [cli, "record", "--no-check", "-o", "/tmp/slab-table-trace-%d" % os.getpid(), "--"]))
    sides.append(("glibc", {}, []))
    if os.path.exists(mi):
        sides.append(("mimalloc", {"LD_PRELOAD": mi}, []))
    res = {}
    # mode: "" malloc, "z" calloc, "c" kmem_cache_zalloc (slubtrace's own
    # call: its two sides only)
    for mode in ("", "z", "c"):
        for name, extra, prefix in sides:
            if mode == "c" and name not in ("slubtrace", "traced"):
                res[(name, mode)] = {}
                continue
            env = dict(env0, **extra)
            cmd = prefix + base + (["-" + mode] if mode else [])
            res[(name, mode)] = run(name, cmd, env)
            if prefix:
                subprocess.run(["rm", "-rf", "/tmp/slab-table-trace-%d" % os.getpid()])
    names = [s[0] for s in sides]
    print(f"slab_test -T 12 -r {repeats} (10,000 objects, one thread): cycles / ns per "
          f"operation, best of {repeats} passes")
    print("| test | size | 2009 kernel (cycles) | slubtrace / 2009 | " + " | ".join(names) + " |")
    print("|---|---|---|---|" + "---|" * len(names))
    for mode in ("", "z", "c"):
        alloc = {"": "malloc", "z": "calloc", "c": "kmem_cache_zalloc"}[mode]
        free = "kmem_cache_free" if mode == "c" else "free"
        for key, label, k in ((f"t1{mode}.alloc", f"N x {alloc}", 0),
                              (f"t1{mode}.free", f"N x {free}", 1),
                              (f"t2{mode}.pair", f"{alloc}/{free}", 2)):
            for size in sorted(KERNEL_2009):
                cells = []
                for n in names:
                    m = res[(n, mode)]
                    c, ns = m.get(f"{key}.{size}.cyc"), m.get(f"{key}.{size}.ns")
                    cells.append("-" if c is None else f"{c:.0f} / {ns:.1f}")
                kern = "-" if mode else str(KERNEL_2009[size][k])
                c = res[("slubtrace", mode)].get(f"{key}.{size}.cyc")
                ratio = "-" if mode or c is None else f"{c / KERNEL_2009[size][k]:.2f}x"
                print(f"| {label} | {size} | {kern} | {ratio} | " + " | ".join(cells) + " |")
    for mode in ("", "z", "c"):
        cells = []
        for n in names:
            m = res[(n, mode)]
            cells.append("-" if not m else
                         f"{m.get('maxrss_kb', 0) / 1024:.1f} MiB, {m.get('minflt', 0):.0f} faults")
        print(f"| peak RSS, minor faults ({'-' + mode if mode else 'malloc'}) | | | | " +
              " | ".join(cells) + " |")
    for mode in ("", "z", "c"):
        cells = []
        for n in names:
            m = res[(n, mode)]
            cells.append("-" if not m else
                         f"{m.get('preempted_passes', 0):.0f} of {m.get('passes', 0):.0f}, "
                         f"load {m['loadavg']:.1f}")
        print(f"| preempted passes, load average ({'-' + mode if mode else 'malloc'}) | | | | " +
              " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
