/* SPDX-License-Identifier: MIT */
/*
 * partial_jitter: the count_partial() jitter of the 2020 thread
 * (2020-slub-count-partial-thread.txt), measured where users felt it.
 *
 * A cache without cpu partial chains is fragmented: -s slabs are filled and
 * all objects but one per slab freed, so the node partial list holds -s
 * slabs with one live object each.  Then -t threads allocate and free on the
 * cache (each keeps a ring of -w live objects: allocate one, free the
 * oldest) for -d seconds, taking list_lock whenever their cpu slab runs out
 * or a free makes a full slab partial, while a reader thread reads the
 * cache's slabinfo (slub_get_slabinfo, the walk of 6.1's count_partial()
 * under list_lock) every -i milliseconds (0: no reader).  Each thread times
 * every operation; the output is name=value lines (for `slubtrace compare`):
 * the p99, p99.9 and maximum latency of allocations and frees over all
 * threads, the reader's reads and its longest read, the partial list
 * length.
 *
 *   partial_jitter [-s slabs] [-t threads] [-w ring] [-d seconds] [-i ms]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slub/slub.h>

/* latency histogram: 32 sub-buckets per power of two of nanoseconds */
#define SUB 32
#define BUCKETS (40 * SUB)

struct hist {
	uint64_t n[BUCKETS];
	uint64_t count, max;
};

static unsigned bucket(uint64_t ns)
{
	unsigned e, m;

	if (ns < SUB)
		return (unsigned)ns;
	e = 63 - __builtin_clzll(ns);		/* ns in [2^e, 2^(e+1)) */
	m = (unsigned)((ns >> (e - 5)) & (SUB - 1));
	return (e - 4) * SUB + m < BUCKETS ? (e - 4) * SUB + m : BUCKETS - 1;
}

/* The upper edge of bucket b. */
static uint64_t bucket_top(unsigned b)
{
	unsigned e, m;

	if (b < SUB)
		return b;
	e = b / SUB + 4;
	m = b % SUB;
	return ((uint64_t)(SUB + m + 1) << (e - 5)) - 1;
}

static void hist_add(struct hist *h, uint64_t ns)
{
	h->n[bucket(ns)]++;
	h->count++;
	if (ns > h->max)
		h->max = ns;
}

static uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t want = (uint64_t)(q * h->count), seen = 0;

	for (unsigned b = 0; b < BUCKETS; b++) {
		seen += h->n[b];
		if (seen > want)
			return bucket_top(b) < h->max ? bucket_top(b) : h->max;
	}
	return h->max;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static struct slub_cache *cache;
static unsigned ring = 64;
static volatile int stop;

struct worker {
	pthread_t tid;
	struct hist alloc, free;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	void **live = calloc(ring, sizeof(*live));
	unsigned k = 0;

	if (!live)
		abort();
	while (!stop) {
		uint64_t t0 = now_ns();
		void *p = slub_cache_alloc(cache);
		uint64_t t1 = now_ns();

		if (!p)
			abort();
		*(volatile char *)p = 1;
		hist_add(&w->alloc, t1 - t0);
		if (live[k]) {
			t0 = now_ns();
			slub_cache_free(cache, live[k]);
			hist_add(&w->free, now_ns() - t0);
		}
		live[k] = p;
		k = (k + 1) % ring;
	}
	for (unsigned i = 0; i < ring; i++)
		if (live[i])
			slub_cache_free(cache, live[i]);
	free(live);
	return NULL;
}

static unsigned interval_ms = 10;
static uint64_t reads, read_max_ns, read_total_ns, read_scanned_max;

static void *reader(void *arg)
{
	struct timespec ts = { interval_ms / 1000, (long)(interval_ms % 1000) * 1000000 };

	(void)arg;
	while (!stop) {
		struct slub_slabinfo si;
		uint64_t t0 = now_ns(), d;

		slub_get_slabinfo(cache, &si);
		d = now_ns() - t0;
		reads++;
		read_total_ns += d;
		if (d > read_max_ns)
			read_max_ns = d;
		if (si.scanned_slabs > read_scanned_max)
			read_scanned_max = si.scanned_slabs;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long slabs = 20000;
	unsigned threads = 2;
	double seconds = 2;
	struct worker *w;
	struct hist alloc, fr;
	pthread_t rt;
	void **objs;
	unsigned long per, total;
	struct slub_slabinfo si;
	int opt;

	while ((opt = getopt(argc, argv, "s:t:w:d:i:")) != -1) {
		switch (opt) {
		case 's': slabs = strtoul(optarg, NULL, 10); break;
		case 't': threads = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'w': ring = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'd': seconds = strtod(optarg, NULL); break;
		case 'i': interval_ms = (unsigned)strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: partial_jitter [-s slabs] [-t threads] "
					"[-w ring] [-d seconds] [-i ms]\n");
			return 2;
		}
	}
	if (!slabs || !threads || !ring || !(seconds > 0)) {
		fprintf(stderr, "partial_jitter: -s, -t, -w and -d must be positive\n");
		return 2;
	}
	cache = slub_cache_create("jitter-256", 256, 0, SLUB_F_NO_CPU_PARTIAL, NULL);
	if (!cache) {
		perror("slub_cache_create");
		return 1;
	}
	/* fragment: fill `slabs` slabs, keep one object of each */
	slub_get_slabinfo(cache, &si);
	{
		void *p = slub_cache_alloc(cache);
		slub_get_slabinfo(cache, &si);
		per = si.objects_per_slab;
		slub_cache_free(cache, p);
	}
	total = slabs * per;
	objs = malloc(total * sizeof(*objs));
	if (!objs)
		return 1;
	for (unsigned long i = 0; i < total; i++)
		if (!(objs[i] = slub_cache_alloc(cache)))
			return 1;
	for (unsigned long i = 0; i < total; i++)
		if (i % per)
			slub_cache_free(cache, objs[i]);
	slub_validate(cache);	/* flushes this thread's cpu slab to the lists */
	slub_get_slabinfo(cache, &si);
	printf("partial_jitter: %lu slabs of %lu objects, %lu on the partial list; %u threads "
	       "for %.1f s; slabinfo every %u ms%s\n", si.num_slabs, per, si.partial_slabs,
	       threads, seconds, interval_ms, interval_ms ? "" : " (no reader)");
	printf("partial_slabs=%lu\n", si.partial_slabs);

	w = calloc(threads, sizeof(*w));
	if (!w)
		return 1;
	for (unsigned i = 0; i < threads; i++)
		pthread_create(&w[i].tid, NULL, work, &w[i]);
	if (interval_ms)
		pthread_create(&rt, NULL, reader, NULL);
	usleep((useconds_t)(seconds * 1e6));
	stop = 1;
	for (unsigned i = 0; i < threads; i++)
		pthread_join(w[i].tid, NULL);
	if (interval_ms)
		pthread_join(rt, NULL);

	memset(&alloc, 0, sizeof(alloc));
	memset(&fr, 0, sizeof(fr));
	for (unsigned i = 0; i < threads; i++) {
		for (unsigned b = 0; b < BUCKETS; b++) {
			alloc.n[b] += w[i].alloc.n[b];
			fr.n[b] += w[i].free.n[b];
		}
		alloc.count += w[i].alloc.count;
		fr.count += w[i].free.count;
		if (w[i].alloc.max > alloc.max)
			alloc.max = w[i].alloc.max;
		if (w[i].free.max > fr.max)
			fr.max = w[i].free.max;
	}
	printf("ops=%llu\n", (unsigned long long)(alloc.count + fr.count));
	printf("alloc_p99_ns=%llu\n", (unsigned long long)hist_quantile(&alloc, 0.99));
	printf("alloc_p999_ns=%llu\n", (unsigned long long)hist_quantile(&alloc, 0.999));
	printf("alloc_max_ns=%llu\n", (unsigned long long)alloc.max);
	printf("free_p99_ns=%llu\n", (unsigned long long)hist_quantile(&fr, 0.99));
	printf("free_p999_ns=%llu\n", (unsigned long long)hist_quantile(&fr, 0.999));
	printf("free_max_ns=%llu\n", (unsigned long long)fr.max);
	printf("slabinfo_reads=%llu\n", (unsigned long long)reads);
	printf("slabinfo_max_ns=%llu\n", (unsigned long long)read_max_ns);
	if (reads)
		printf("slabinfo_mean_ns=%llu\n", (unsigned long long)(read_total_ns / reads));
	printf("slabinfo_scanned_max=%llu\n", (unsigned long long)read_scanned_max);
	for (unsigned long i = 0; i < total; i += per)
		slub_cache_free(cache, objs[i]);
	free(objs);
	free(w);
	return 0;
}
