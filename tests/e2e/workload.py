#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A multi-threaded python3 workload for `slubtrace record`.

Producers allocate buffers larger than pymalloc's small-object limit (so
they come from malloc) and hand half of them to a consumer thread, which
frees them: remote frees on the malloc shim.
"""
import queue
import random
import threading

THREADS = 4
ROUNDS = 300


def producer(q, seed):
    rnd = random.Random(seed)
    keep = []
    for r in range(ROUNDS):
        batch = [bytearray(rnd.randrange(600, 9000)) for _ in range(40)]
        q.put(batch[::2])
        keep.extend(batch[1::2])
        if len(keep) > 400:
            del keep[: len(keep) // 2]
    q.put(None)


def consumer(q, producers):
    done = 0
    while done < producers:
        item = q.get()
        if item is None:
            done += 1
        del item


def main():
    q = queue.Queue(maxsize=64)
    threads = [threading.Thread(target=producer, args=(q, i)) for i in range(THREADS)]
    threads.append(threading.Thread(target=consumer, args=(q, THREADS)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
