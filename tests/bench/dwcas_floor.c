/* SPDX-License-Identifier: MIT */
/*
 * dwcas_floor: the physical floor of a faithful __slab_free, one
 * `lock cmpxchg16b` on a 16-byte word, in a loop on one thread (the word
 * stays in this core's cache: the uncontended case of a free).
 *
 * The instruction is written out here rather than taken from the
 * allocator's slub_dwcas(): the floor is the bare instruction, and the
 * ratio of the allocator's free paths to it is what the report shows.
 *
 * A second loop times the bare sequence of such a free, with nothing else
 * around it: read the word consistently (counters, freelist, counters
 * again, as slub_dword_read() does), store the old freelist into the
 * object being freed (its free pointer; 10,000 objects of 64 bytes in
 * turn, as slab_test's N x free walks them), then the CAS that makes the
 * object the head.  The locked instruction waits for that store, and the
 * loads of the next iteration wait for it.
 *
 *   dwcas_floor [-n ITERATIONS] [-r REPETITIONS] [-M]
 */
#include <stdbool.h>

#include "bench.h"

struct dword {
	uint64_t lo, hi;
} __attribute__((aligned(16)));

static struct dword word;

/* One successful CAS: (lo, hi) -> (lo + 1, hi + 1), as an update bumps seq. */
static inline void cas_once(struct dword *w, uint64_t *lo, uint64_t *hi)
{
	uint64_t nlo = *lo + 1, nhi = *hi + 1;
	bool ok;

	__asm__ __volatile__("lock cmpxchg16b %[mem]\n\t"
			     "sete %[ok]"
			     : [mem] "+m"(*w), "+a"(*lo), "+d"(*hi), [ok] "=q"(ok)
			     : "b"(nlo), "c"(nhi)
			     : "memory", "cc");
	if (ok) {
		*lo = nlo;
		*hi = nhi;
	}
}

/* Objects of 64 bytes, 10,000 of them: where the free pointers go. */
#define FREE_OBJS 10000
static uint64_t objs[FREE_OBJS][8] __attribute__((aligned(64)));

/* The bare sequence of a free into a frozen slab: consistent read, link,
 * CAS (retried as a free retries, though nothing competes here). */
static inline void free_once(struct dword *w, unsigned long i)
{
	uint64_t *obj = objs[i % FREE_OBJS];
	uint64_t lo, hi, check;
	bool ok;

	do {
		do {
			check = __atomic_load_n(&w->hi, __ATOMIC_ACQUIRE);
			lo = __atomic_load_n(&w->lo, __ATOMIC_ACQUIRE);
			hi = __atomic_load_n(&w->hi, __ATOMIC_ACQUIRE);
		} while (hi != check);
		obj[0] = lo;
		__asm__ __volatile__("lock cmpxchg16b %[mem]\n\t"
				     "sete %[ok]"
				     : [mem] "+m"(*w), "+a"(lo), "+d"(hi), [ok] "=q"(ok)
				     : "b"((uint64_t)(uintptr_t)obj), "c"(hi + 1)
				     : "memory", "cc");
	} while (!ok);
}

int main(int argc, char **argv)
{
	unsigned long n = 10000000, reps = 5;
	double best = 0, sum = 0;
	int o;

	while ((o = getopt(argc, argv, "n:r:Mh")) != -1) {
		switch (o) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'r': reps = strtoul(optarg, NULL, 0); break;
		case 'M': bench_machine = 1; break;
		default:
			fprintf(stderr, "usage: dwcas_floor [-n ITERATIONS] [-r REPETITIONS] [-M]\n");
			return o == 'h' ? 0 : 2;
		}
	}
	if (!n || !reps)
		return 2;
	for (unsigned long r = 0; r < reps; r++) {
		uint64_t lo = word.lo, hi = word.hi, t0, t1;
		double ns;

		t0 = bench_ns();
		for (unsigned long i = 0; i < n; i++)
			cas_once(&word, &lo, &hi);
		t1 = bench_ns();
		ns = (double)(t1 - t0) / (double)n;
		sum += ns;
		if (!best || ns < best)
			best = ns;
	}
	printf("lock cmpxchg16b, uncontended: %.2f ns (best of %lu), %.2f ns (mean)\n", best,
	       reps, sum / (double)reps);
	if (bench_machine)
		printf("@floor.dwcas.ns %.3f\n", best);

	double fbest = 0, fsum = 0;
	for (unsigned long r = 0; r < reps; r++) {
		uint64_t t0, t1;
		double ns;

		t0 = bench_ns();
		for (unsigned long i = 0; i < n; i++)
			free_once(&word, i);
		t1 = bench_ns();
		ns = (double)(t1 - t0) / (double)n;
		fsum += ns;
		if (!fbest || ns < fbest)
			fbest = ns;
	}
	printf("read, link, lock cmpxchg16b (a free's bare sequence): %.2f ns (best of %lu), "
	       "%.2f ns (mean)\n", fbest, reps, fsum / (double)reps);
	if (bench_machine)
		printf("@floor.dwcas_free.ns %.3f\n", fbest);
	return 0;
}
