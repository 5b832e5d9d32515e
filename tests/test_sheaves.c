/* SPDX-License-Identifier: MIT */
/*
 * The sheaves generation (Linux 7.0), counted object by object.
 *
 * Caches created with SLUB_F_SHEAVES.  Threads allocate, free their own
 * objects and objects of the other threads (cross-thread frees), some on
 * both nodes, and exit (their sheaves are flushed at exit).  At each
 * quiescent point, every object of every slab of the cache must be in
 * exactly one of: its slab's freelist, a sheaf (the main thread's main or
 * spare, or a barn's), or the test's table of allocated objects; each
 * slab's inuse must count exactly its objects not on its freelist; no slab
 * is frozen; every sheaf holds at most its capacity, the barns their
 * limits; slub_validate() finds nothing.  The sheaf and barn events add
 * up to the counters: refilled and flushed objects, and each barn's counts
 * move by one per event, in its lock's order.  Also: the sheaf capacity per
 * object size (7.0's calculate_sheaf_capacity over our sheaf header) and
 * the cache's announced flags.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

#define THREADS 6
#define PER_THREAD 3000
#define MAX_SLABS 4096

enum where { W_NONE = 0, W_FREELIST, W_SHEAF, W_ALLOCATED };

struct slot {
	void *p;
	pthread_mutex_t lock;
};

static struct slub_cache *cache;
static struct slot table[THREADS * PER_THREAD];
static pthread_barrier_t barrier;

/* A thread allocates its share of the table, frees half of its own and a
 * quarter of the next thread's after the barrier, allocates some again. */
static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	struct slot *mine = table + id * PER_THREAD;
	struct slot *next = table + ((id + 1) % THREADS) * PER_THREAD;

	for (unsigned i = 0; i < PER_THREAD; i++) {
		void *p = slub_cache_alloc(cache);

		CHECK(p != NULL, "thread %u: allocation %u failed", id, i);
		memset(p, (int)id, 32);
		pthread_mutex_lock(&mine[i].lock);
		mine[i].p = p;
		pthread_mutex_unlock(&mine[i].lock);
	}
	pthread_barrier_wait(&barrier);
	for (unsigned i = 0; i < PER_THREAD; i += 2) {
		pthread_mutex_lock(&mine[i].lock);
		slub_cache_free(cache, mine[i].p);
		mine[i].p = NULL;
		pthread_mutex_unlock(&mine[i].lock);
	}
	for (unsigned i = 1; i < PER_THREAD; i += 4) {
		pthread_mutex_lock(&next[i].lock);
		if (next[i].p)
			slub_cache_free(cache, next[i].p);
		next[i].p = NULL;
		pthread_mutex_unlock(&next[i].lock);
	}
	for (unsigned i = 0; i < PER_THREAD; i += 6) {
		pthread_mutex_lock(&mine[i].lock);
		if (!mine[i].p)
			mine[i].p = slub_cache_alloc(cache);
		pthread_mutex_unlock(&mine[i].lock);
	}
	return NULL;
}

static struct slab *slabs[MAX_SLABS];

/* The index of p among the objects of the collected slabs, or -1. */
static long object_index(size_t nr, const void *p)
{
	for (size_t k = 0; k < nr; k++) {
		const char *base = slabs[k]->base;
		size_t span = (size_t)cache->objects * cache->size;

		if ((const char *)p >= base && (const char *)p < base + span) {
			size_t off = (size_t)((const char *)p - base);

			if (off % cache->size)
				return -2;
			return (long)(k * cache->objects + off / cache->size);
		}
	}
	return -1;
}

static void mark(unsigned char *where, size_t nr, const void *p, enum where w, const char *what)
{
	long i = object_index(nr, p);

	if (!CHECK(i >= 0, "%s: %p is no object of the cache's slabs (%ld)", what, p, i))
		return;
	CHECK(where[i] == W_NONE, "%s: object %p is also %s", what, p,
	      where[i] == W_FREELIST ? "on a slab freelist" :
	      where[i] == W_SHEAF ? "in a sheaf" : "allocated");
	where[i] = (unsigned char)w;
}

static void count_sheaf(unsigned char *where, size_t nr, const struct slub_sheaf *sheaf,
			const char *what)
{
	if (!sheaf)
		return;
	CHECK(sheaf->size <= sheaf->capacity && sheaf->capacity == cache->sheaf_capacity,
	      "%s: size %u capacity %u (the cache's %u)", what, sheaf->size, sheaf->capacity,
	      cache->sheaf_capacity);
	for (unsigned i = 0; i < sheaf->size && i < sheaf->capacity; i++)
		mark(where, nr, sheaf->objects[i], W_SHEAF, what);
}

/* Every object in exactly one place; returns the objects in sheaves. */
static unsigned long account(const char *when)
{
	size_t nr = slub_collect_slabs(cache, slabs, MAX_SLABS);
	unsigned char *where = calloc(nr * cache->objects + 1, 1);
	unsigned long in_sheaves = 0, allocated = 0, on_freelists = 0;

	if (!CHECK(where != NULL && nr < MAX_SLABS, "%s: %zu slabs", when, nr))
		return 0;
	for (size_t k = 0; k < nr; k++) {
		struct slab_word w = slab_word_read(slabs[k]);
		unsigned free_objs = 0;

		CHECK(!w.c.frozen, "%s: slab %p of a sheaves cache is frozen", when,
		      (void *)slabs[k]);
		for (void *p = w.freelist; p && free_objs <= cache->objects;
		     p = get_freepointer(cache, p)) {
			mark(where, nr, p, W_FREELIST, "slab freelist");
			free_objs++;
		}
		on_freelists += free_objs;
		CHECK(w.c.inuse + free_objs == w.c.objects,
		      "%s: slab %p: inuse %u + %u on its freelist != %u objects", when,
		      (void *)slabs[k], w.c.inuse, free_objs, w.c.objects);
	}
	struct slub_thread *t = slub_thread();
	struct slub_cpu *c = t ? t->cpu[cache->id] : NULL;
	if (c) {
		count_sheaf(where, nr, c->main, "main sheaf");
		count_sheaf(where, nr, c->spare, "spare sheaf");
	}
	for (int n = 0; n < slub_nodes; n++) {
		struct slub_node *b = &cache->node[n];
		unsigned full = 0, empty = 0;

		for (struct slub_sheaf *sh = b->barn_full; sh; sh = sh->barn_next, full++) {
			CHECK(sh->size == sh->capacity, "%s: node %d: a barn full sheaf holds %u of %u",
			      when, n, sh->size, sh->capacity);
			count_sheaf(where, nr, sh, "barn full sheaf");
		}
		for (struct slub_sheaf *sh = b->barn_empty; sh; sh = sh->barn_next, empty++)
			CHECK(sh->size == 0, "%s: node %d: a barn empty sheaf holds %u", when, n,
			      sh->size);
		CHECK(full == b->barn_nr_full && empty == b->barn_nr_empty,
		      "%s: node %d: barn lists %u full %u empty, counts %u %u", when, n, full,
		      empty, b->barn_nr_full, b->barn_nr_empty);
		/* 7.0's limits, 10 each; a slot that found no empty sheaf in the
		 * barn may add its full main past the racy check: one per thread */
		CHECK(full <= 10 + THREADS && empty <= 10 + THREADS,
		      "%s: node %d: barn holds %u full, %u empty sheaves", when, n, full, empty);
	}
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].p) {
			mark(where, nr, table[i].p, W_ALLOCATED, "allocated");
			allocated++;
		}
	unsigned long lost = 0;
	for (size_t i = 0; i < nr * cache->objects; i++) {
		if (where[i] == W_SHEAF)
			in_sheaves++;
		if (where[i] == W_NONE)
			lost++;
	}
	CHECK(lost == 0, "%s: %lu objects are in no freelist, no sheaf and not allocated", when,
	      lost);
	printf("test_sheaves: %s: %zu slabs, %lu objects allocated, %lu in sheaves, %lu on "
	       "slab freelists\n",
	       when, nr, allocated, in_sheaves, on_freelists);
	free(where);
	CHECK(slub_validate(cache) == 0, "%s: slub_validate found errors", when);
	return in_sheaves;
}

static void test_capacity(void)
{
	static const struct {
		size_t size;
		unsigned capacity;
	} want[] = { { 64, 60 }, { 200, 60 }, { 256, 28 }, { 1024, 12 }, { 4096, 4 } };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct slub_cache *s = slub_cache_create("sheaves-cap", want[i].size, 0,
							 SLUB_F_SHEAVES, NULL);

		if (!CHECK(s != NULL, "create %zu", want[i].size))
			continue;
		CHECK(s->sheaf_capacity == want[i].capacity && (s->info.flags & SLUB_F_SHEAVES) &&
		      s->info.cpu_partial == 0,
		      "size %zu (stride %zu): capacity %u, want %u; flags %#x", want[i].size,
		      s->size, s->sheaf_capacity, want[i].capacity, s->info.flags);
		CHECK(slub_cache_destroy(s) == 0, "destroy");
	}
	struct slub_cache *d = slub_cache_create("sheaves-debug", 64, 0,
						 SLUB_F_SHEAVES | SLUB_F_POISON, NULL);
	if (CHECK(d != NULL, "create a debug cache"))
		CHECK(d->sheaf_capacity == 0 && !(d->info.flags & SLUB_F_SHEAVES),
		      "a debug cache has sheaves: capacity %u flags %#x", d->sheaf_capacity,
		      d->info.flags);
	slub_cache_destroy(d);
}

/*
 * 7.0's sheaf and barn counters, with no object in any sheaf and no sheaf
 * left (the threads' were freed at their exit, the main thread's and the
 * barns' by shrink): every sheaf allocated was freed, and every object
 * that entered a sheaf (refills, frees to a sheaf) left it (flushes,
 * allocations from a sheaf).  The slabinfo page shows them.
 */
/* ---- the sheaf and barn events, seen by an observer ---- */

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t refilled, flushed, direct, slot_events, barn_events, barn_bad, bad_size;
	uint64_t made, freed;
	int have[SLUB_MAX_NODES];
	uint32_t full[SLUB_MAX_NODES], empty[SLUB_MAX_NODES];
} seen;

static void observe(const struct slub_event *ev, void *arg)
{
	(void)arg;
	if (ev->cache_id != cache->id)
		return;
	pthread_mutex_lock(&ev_lock);
	switch (ev->type) {
	case SLUB_EV_SHEAF_REFILL:
		if (ev->sheaf)
			seen.refilled += ev->count;
		else
			seen.direct += ev->count;
		if (ev->sheaf && (ev->sheaf_size < ev->count || ev->sheaf_size > cache->sheaf_capacity))
			seen.bad_size++;
		break;
	case SLUB_EV_SHEAF_FLUSH:
		seen.flushed += ev->count;
		if (ev->sheaf_size + ev->count > cache->sheaf_capacity)
			seen.bad_size++;
		break;
	case SLUB_EV_SHEAF_SLOT:
		seen.slot_events++;
		if (ev->sheaf_size > cache->sheaf_capacity || ev->spare_size > cache->sheaf_capacity ||
		    (!ev->sheaf && ev->sheaf_size) || (!ev->spare && ev->spare_size))
			seen.bad_size++;
		break;
	case SLUB_EV_SHEAF_ALLOC:
		seen.made++;
		if (!ev->sheaf)
			seen.bad_size++;
		break;
	case SLUB_EV_SHEAF_FREE:
		seen.freed++;
		if (!ev->sheaf)
			seen.bad_size++;
		break;
	case SLUB_EV_BARN_PUT:
	case SLUB_EV_BARN_GET: {
		int n = ev->node, d = ev->type == SLUB_EV_BARN_PUT ? 1 : -1;
		uint32_t full = seen.full[n] + (ev->reason == SLUB_BARN_FULL ? d : 0);
		uint32_t empty = seen.empty[n] + (ev->reason == SLUB_BARN_EMPTY ? d : 0);

		seen.barn_events++;
		if (seen.have[n] && (full != ev->barn_full || empty != ev->barn_empty))
			seen.barn_bad++;
		seen.have[n] = 1;
		seen.full[n] = ev->barn_full;
		seen.empty[n] = ev->barn_empty;
		break;
	}
	}
	pthread_mutex_unlock(&ev_lock);
}

static void check_events(const uint64_t *y)
{
	printf("test_sheaves: events: refilled %llu (+%llu to callers) flushed %llu, %llu slot "
	       "changes, %llu barn moves\n",
	       (unsigned long long)seen.refilled, (unsigned long long)seen.direct,
	       (unsigned long long)seen.flushed, (unsigned long long)seen.slot_events,
	       (unsigned long long)seen.barn_events);
	CHECK(seen.refilled == y[SLUB_SHEAF_REFILL] && seen.flushed == y[SLUB_SHEAF_FLUSH],
	      "sheaf_refill events carry %llu objects, sheaf_flush %llu; the counters say %llu, "
	      "%llu", (unsigned long long)seen.refilled, (unsigned long long)seen.flushed,
	      (unsigned long long)y[SLUB_SHEAF_REFILL], (unsigned long long)y[SLUB_SHEAF_FLUSH]);
	CHECK(seen.made == y[SLUB_SHEAF_ALLOC] && seen.freed == y[SLUB_SHEAF_FREE] && seen.made,
	      "sheaf_alloc events %llu, sheaf_free %llu; the counters say %llu, %llu",
	      (unsigned long long)seen.made, (unsigned long long)seen.freed,
	      (unsigned long long)y[SLUB_SHEAF_ALLOC], (unsigned long long)y[SLUB_SHEAF_FREE]);
	CHECK(seen.slot_events > 0 && seen.barn_events > 0 && !seen.barn_bad && !seen.bad_size,
	      "%llu slot events, %llu barn events, %llu barn counts out of step, %llu sizes "
	      "out of range", (unsigned long long)seen.slot_events,
	      (unsigned long long)seen.barn_events, (unsigned long long)seen.barn_bad,
	      (unsigned long long)seen.bad_size);
	for (int n = 0; n < SLUB_MAX_NODES; n++)
		CHECK(!seen.have[n] || (!seen.full[n] && !seen.empty[n]),
		      "node %d: the last barn event leaves %u full, %u empty after shrink", n,
		      seen.full[n], seen.empty[n]);
}

static void check_counters(void)
{
	struct slub_sheaf_stats sh;
	struct slub_stats st;

	if (!CHECK(slub_cache_sheaf_stats(cache, &sh) == 0 && slub_cache_stats(cache, &st) == 0,
		   "stats"))
		return;
	const uint64_t *y = sh.item;
	printf("test_sheaves: sheaf refill %llu flush %llu alloc %llu free %llu, barn get %llu "
	       "(fail %llu) put %llu (fail %llu)\n",
	       (unsigned long long)y[SLUB_SHEAF_REFILL], (unsigned long long)y[SLUB_SHEAF_FLUSH],
	       (unsigned long long)y[SLUB_SHEAF_ALLOC], (unsigned long long)y[SLUB_SHEAF_FREE],
	       (unsigned long long)y[SLUB_BARN_GET], (unsigned long long)y[SLUB_BARN_GET_FAIL],
	       (unsigned long long)y[SLUB_BARN_PUT], (unsigned long long)y[SLUB_BARN_PUT_FAIL]);
	CHECK(sh.sheaf_capacity == cache->sheaf_capacity && sh.barn_full == 0 && sh.barn_empty == 0,
	      "capacity %u, barns %u full %u empty after shrink", sh.sheaf_capacity, sh.barn_full,
	      sh.barn_empty);
	CHECK(y[SLUB_SHEAF_ALLOC] > 0 && y[SLUB_SHEAF_ALLOC] == y[SLUB_SHEAF_FREE],
	      "sheaves allocated %llu, freed %llu", (unsigned long long)y[SLUB_SHEAF_ALLOC],
	      (unsigned long long)y[SLUB_SHEAF_FREE]);
	CHECK(y[SLUB_SHEAF_REFILL] + st.item[SLUB_FREE_FASTPATH] ==
		      y[SLUB_SHEAF_FLUSH] + st.item[SLUB_ALLOC_FASTPATH],
	      "into sheaves: refilled %llu + freed %llu; out: flushed %llu + allocated %llu",
	      (unsigned long long)y[SLUB_SHEAF_REFILL],
	      (unsigned long long)st.item[SLUB_FREE_FASTPATH],
	      (unsigned long long)y[SLUB_SHEAF_FLUSH],
	      (unsigned long long)st.item[SLUB_ALLOC_FASTPATH]);
	CHECK(y[SLUB_BARN_PUT] > 0 && y[SLUB_BARN_GET] > 0, "the barn was never used");
	check_events(y);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (CHECK(f != NULL, "open_memstream")) {
		slub_print_slabinfo(f, cache);
		fclose(f);
		char want[64];
		snprintf(want, sizeof(want), "Sheaves (capacity %u)", cache->sheaf_capacity);
		CHECK(strstr(text, want) && strstr(text, "Barn get"), "slabinfo page lacks the "
		      "sheaves:\n%s", text);
		free(text);
	}
}

int main(void)
{
	pthread_t th[THREADS];

	test_capacity();
	cache = slub_cache_create("sheaves-count", 96, 0, SLUB_F_SHEAVES, NULL);
	if (!CHECK(cache != NULL && cache->sheaf_capacity, "create"))
		return test_summary("test_sheaves");
	slub_set_observer(observe, NULL,
			  1ull << SLUB_EV_SHEAF_REFILL | 1ull << SLUB_EV_SHEAF_FLUSH |
				  1ull << SLUB_EV_SHEAF_SLOT | 1ull << SLUB_EV_BARN_PUT |
				  1ull << SLUB_EV_BARN_GET | 1ull << SLUB_EV_SHEAF_ALLOC |
				  1ull << SLUB_EV_SHEAF_FREE);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		pthread_mutex_init(&table[i].lock, NULL);
	/* a first pass with the main thread's own sheaves in play */
	for (int i = 0; i < 500; i++)
		table[i].p = slub_cache_alloc(cache);
	for (int i = 0; i < 500; i += 3) {
		slub_cache_free(cache, table[i].p);
		table[i].p = NULL;
	}
	CHECK(account("main thread") > 0, "no object in the main thread's sheaves");
	for (int i = 0; i < 500; i++)
		if (table[i].p) {
			slub_cache_free(cache, table[i].p);
			table[i].p = NULL;
		}

	pthread_barrier_init(&barrier, NULL, THREADS);
	for (unsigned i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	account("threads exited");

	/* shrink: the main thread's sheaves and the barns go to the slabs */
	slub_cache_shrink(cache);
	CHECK(account("after shrink") == 0, "objects left in sheaves after shrink");
	check_counters();
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].p) {
			slub_cache_free(cache, table[i].p);
			table[i].p = NULL;
		}
	account("all freed");
	CHECK(slub_cache_destroy(cache) == 0, "destroy with every object freed");
	return test_summary("test_sheaves");
}
