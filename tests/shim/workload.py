#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Allocation-heavy, multi-threaded, deterministic Python workload.

    workload.py run       dicts, strings, lists, bytes across a thread pool;
                          prints one digest line per task, then totals
    workload.py gen N     N lines of "word,number,text" for the sort/gzip run

Run with PYTHONMALLOC=malloc and PYTHONHASHSEED=0 so that every object goes
through malloc() and the output depends on nothing but the code.
"""
import hashlib
import json
import random
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

WORDS = ["slab", "cache", "node", "partial", "frozen", "freelist", "cpu",
         "list_lock", "cmpxchg", "seq", "inuse", "objects", "discard"]


def task(seed):
    rnd = random.Random(seed)
    table = {}
    strings = []
    for i in range(12000):
        key = "%s-%d-%s" % (rnd.choice(WORDS), rnd.randrange(50000),
                            "x" * rnd.randrange(0, 48))
        table[key] = [rnd.random() for _ in range(rnd.randrange(0, 10))]
        strings.append(key.upper() + str(i))
        if len(table) > 4000:
            for k in list(table)[:2000]:
                del table[k]
        if len(strings) > 3000:
            strings = strings[1500:]
    # a few large buffers: the page layer and dedicated mappings
    blob = bytearray(rnd.randrange(100000, 3000000))
    for i in range(0, len(blob), 4093):
        blob[i] = i & 0xff
    text = json.dumps(table, sort_keys=True)
    parts = sorted(text.split(", "))
    h = hashlib.sha256()
    h.update("".join(parts).encode())
    h.update(bytes(blob))
    h.update("|".join(sorted(strings)).encode())
    return seed, len(table), len(strings), len(blob), h.hexdigest()[:32]


def run():
    lock = threading.Lock()
    shared = {}

    def worker(seed):
        res = task(seed)
        with lock:
            shared[seed] = res
        return res

    with ThreadPoolExecutor(max_workers=4) as ex:
        results = list(ex.map(worker, range(24)))
    for r in results:
        print(*r)
    # short-lived threads, each with its own garbage
    out = []
    threads = [threading.Thread(target=lambda i=i: out.append(
        sum(len(str(j) * 3) for j in range(i * 100)))) for i in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("threads", len(out), sum(out))
    print("total", sum(r[1] for r in results), len(shared))


def gen(n):
    rnd = random.Random(1234)
    w = sys.stdout.write
    for i in range(n):
        w("%s%d,%d,%s\n" % (rnd.choice(WORDS), rnd.randrange(1000),
                            rnd.randrange(-10**6, 10**6),
                            " ".join(rnd.choice(WORDS)
                                     for _ in range(rnd.randrange(1, 12)))))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "gen":
        gen(int(sys.argv[2]))
    else:
        run()
