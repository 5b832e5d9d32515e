// SPDX-License-Identifier: MIT
/*
 * e2e_stress: a multi-threaded workload on the slub_* API, recorded by
 * LTTng (libslub-tp.so preloaded) and counted in-process at the same time.
 *
 * Generations of threads allocate from three caches on two emulated nodes
 * (also from the other node, which deactivates the cpu slab), hand half of
 * their objects to a neighbour thread to free (remote frees: __slab_free,
 * cpu partial chains, their drains), shrink the caches now and then, and
 * exit (thread_flush).  A fourth cache is filled, emptied and destroyed.
 *
 * The in-process observer counts every event per cache and type.  At the
 * end, with no thread left, the program writes to OUTFILE:
 *   pid PID
 *   cache ID NAME
 *   obs CACHE_ID EVENT COUNT           observer counts
 *   contended CACHE_ID COUNT           lock_acquire events with contended=1
 *   fail_locked CACHE_ID COUNT         cmpxchg_fail events with locked=1
 *   stat CACHE_ID STAT VALUE           slub_cache_stats() of the live caches
 *   name KIND VALUE LABEL              the name tables (event, site, dest,
 *                                      reason, error)
 * and leaves with _exit(), so that nothing runs after the counts were taken.
 * The trace is checked against this file by e2e.py.
 *
 *   e2e_stress OUTFILE [threads] [rounds] [generations]
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slub/slub.h>

#define MAX_CACHE_ID 1024
#define NCACHES 3
#define NOBJ 600

static uint64_t obs[MAX_CACHE_ID][SLUB_EV_NR];
static uint64_t obs_contended[MAX_CACHE_ID];
static uint64_t obs_fail_locked[MAX_CACHE_ID];
static uint64_t obs_overflow;

static void observe(const struct slub_event *ev, void *arg)
{
	(void)arg;
	if (ev->cache_id >= MAX_CACHE_ID || ev->type >= SLUB_EV_NR) {
		__atomic_fetch_add(&obs_overflow, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&obs[ev->cache_id][ev->type], 1, __ATOMIC_RELAXED);
	if (ev->type == SLUB_EV_LOCK_ACQUIRE && ev->contended)
		__atomic_fetch_add(&obs_contended[ev->cache_id], 1, __ATOMIC_RELAXED);
	if (ev->type == SLUB_EV_CMPXCHG_FAIL && ev->locked)
		__atomic_fetch_add(&obs_fail_locked[ev->cache_id], 1, __ATOMIC_RELAXED);
}

static struct slub_cache *caches[NCACHES];
static const size_t sizes[NCACHES] = { 48, 256, 1024 };

struct worker {
	pthread_t th;
	int idx;
	int rounds;
	/* Objects this thread leaves for its neighbour, per cache. */
	void *out[NCACHES][NOBJ];
	int nout[NCACHES];
};

static struct worker *workers;
static int nthreads;
static pthread_barrier_t barrier;

static void die(const char *what)
{
	fprintf(stderr, "e2e_stress: %s: %s\n", what, strerror(errno));
	_exit(1);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct worker *left = &workers[(w->idx + nthreads - 1) % nthreads];
	void *mine[NOBJ];
	unsigned seed = 12345u + (unsigned)w->idx;

	for (int r = 0; r < w->rounds; r++) {
		for (int c = 0; c < NCACHES; c++) {
			int n = NOBJ / 2 + (int)(rand_r(&seed) % (NOBJ / 2));

			for (int i = 0; i < n; i++) {
				void *p;

				if (i % 16 == 0)
					p = slub_cache_alloc_node(caches[c], (w->idx + r + i / 16) % 2);
				else
					p = slub_cache_alloc(caches[c]);
				if (!p)
					die("slub_cache_alloc");
				memset(p, w->idx, 8);
				mine[i] = p;
			}
			/* Keep every other object for the neighbour. */
			w->nout[c] = 0;
			for (int i = 0; i < n; i++) {
				if (i % 2)
					w->out[c][w->nout[c]++] = mine[i];
				else
					slub_cache_free(caches[c], mine[i]);
			}
		}
		pthread_barrier_wait(&barrier);
		/* Remote frees: the neighbour's objects, freed from here. */
		for (int c = 0; c < NCACHES; c++)
			for (int i = left->nout[c] - 1; i >= 0; i--)
				slub_cache_free(caches[c], left->out[c][i]);
		pthread_barrier_wait(&barrier);
		if (r % 4 == 3)
			slub_cache_shrink(caches[w->idx % NCACHES]);
	}
	return NULL;
}

static void destroy_cycle(void)
{
	struct slub_cache *s = slub_cache_create("e2e-destroy", 96, 0, SLUB_F_TRACK_FULL, NULL);
	void *objs[NOBJ];
	long left;

	if (!s)
		die("slub_cache_create e2e-destroy");
	for (int i = 0; i < NOBJ; i++)
		if (!(objs[i] = slub_cache_alloc(s)))
			die("slub_cache_alloc e2e-destroy");
	for (int i = 0; i < NOBJ; i++)
		slub_cache_free(s, objs[i]);
	left = slub_cache_destroy(s);
	if (left) {
		fprintf(stderr, "e2e_stress: e2e-destroy kept %ld objects\n", left);
		_exit(1);
	}
}

int main(int argc, char **argv)
{
	int rounds = 12, generations = 3;
	struct slub_stats st[NCACHES];
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: e2e_stress OUTFILE [threads] [rounds] [generations]\n");
		return 2;
	}
	nthreads = argc > 2 ? atoi(argv[2]) : 4;
	if (argc > 3)
		rounds = atoi(argv[3]);
	if (argc > 4)
		generations = atoi(argv[4]);
	if (nthreads < 2 || rounds < 1 || generations < 1) {
		fprintf(stderr, "e2e_stress: bad arguments\n");
		return 2;
	}
	/* Before the allocator reads its environment. */
	setenv("SLUBTRACE_NODES", "2", 0);
	setenv("SLUBTRACE_FULL_LISTS", "1", 0);

	slub_set_observer(observe, NULL, 0);
	for (int c = 0; c < NCACHES; c++) {
		char name[32];

		snprintf(name, sizeof(name), "e2e-%zu", sizes[c]);
		caches[c] = slub_cache_create(name, sizes[c], 0, SLUB_F_TRACK_FULL, NULL);
		if (!caches[c])
			die("slub_cache_create");
	}

	workers = calloc((size_t)nthreads, sizeof(*workers));
	if (!workers)
		die("calloc");
	for (int g = 0; g < generations; g++) {
		pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
		for (int t = 0; t < nthreads; t++) {
			workers[t].idx = t;
			workers[t].rounds = rounds;
			errno = pthread_create(&workers[t].th, NULL, work, &workers[t]);
			if (errno)
				die("pthread_create");
		}
		for (int t = 0; t < nthreads; t++)
			pthread_join(workers[t].th, NULL);
		pthread_barrier_destroy(&barrier);
	}
	destroy_cycle();
	slub_thread_flush();

	/* No thread but this one is left: the counts are final. */
	for (int c = 0; c < NCACHES; c++)
		if (slub_cache_stats(caches[c], &st[c]))
			die("slub_cache_stats");
	slub_set_observer(NULL, NULL, 0);

	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "pid %ld\n", (long)getpid());
	fprintf(f, "overflow %llu\n", (unsigned long long)obs_overflow);
	for (int c = 0; c < NCACHES; c++)
		fprintf(f, "cache %u %s\n", slub_cache_id(caches[c]), slub_cache_name(caches[c]));
	for (unsigned id = 0; id < MAX_CACHE_ID; id++) {
		for (unsigned t = 0; t < SLUB_EV_NR; t++)
			if (obs[id][t])
				fprintf(f, "obs %u %s %llu\n", id, slub_event_name(t),
					(unsigned long long)obs[id][t]);
		if (obs_contended[id])
			fprintf(f, "contended %u %llu\n", id,
				(unsigned long long)obs_contended[id]);
		if (obs_fail_locked[id])
			fprintf(f, "fail_locked %u %llu\n", id,
				(unsigned long long)obs_fail_locked[id]);
	}
	for (int c = 0; c < NCACHES; c++)
		for (unsigned i = 0; i < SLUB_NR_STAT_ITEMS; i++)
			fprintf(f, "stat %u %s %llu\n", slub_cache_id(caches[c]), slub_stat_name(i),
				(unsigned long long)st[c].item[i]);
	for (unsigned i = 0; i < SLUB_EV_NR; i++)
		fprintf(f, "name event %u %s\n", i, slub_event_name(i));
	for (unsigned i = 0; i < SLUB_SITE_NR; i++)
		fprintf(f, "name site %u %s\n", i, slub_site_name(i));
	for (unsigned i = 0; i < SLUB_DEST_NR; i++)
		fprintf(f, "name dest %u %s\n", i, slub_dest_name(i));
	for (unsigned i = 0; i < SLUB_DEACT_NR; i++)
		fprintf(f, "name reason %u %s\n", i, slub_deactivate_reason_name(i));
	for (unsigned i = 0; i < SLUB_ERR_NR; i++)
		fprintf(f, "name error %u %s\n", i, slub_error_name(i));
	if (fclose(f))
		die(argv[1]);
	fflush(NULL);
	_exit(0);
}
