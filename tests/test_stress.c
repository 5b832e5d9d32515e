// SPDX-License-Identifier: MIT
/*
 * test_stress: many threads on few cores, objects of kmalloc classes and of
 * dedicated caches handed between threads through mailboxes (remote frees),
 * threads exiting and being replaced, two emulated nodes.
 *
 * Each live object is registered by address in a table of this test's own
 * (the one exact witness of an object handed out twice: the allocator
 * returned an address the table still holds).  Each object is also stamped
 * on allocation: word 0 gets a tag (a magic in the top 16 bits, the thread
 * generation and a counter), the rest of the first 64 bytes and the last
 * word bytes derived from it; before a free the stamp is checked and word 0
 * cleared, so an object written by a second owner shows at its free.
 * What a new object holds before its stamp is not judged: freed memory
 * keeps its bytes, and a page freed by one size class and reused by
 * another puts stale stamps of old objects at any offset of new ones.
 *
 *   test_stress [-t threads] [-s seconds] [-n nodes]
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slub/slub.h>

#include "testutil.h"

#define TAG_MAGIC 0xA5A5ull
#define NCACHES 3
#define NBOX 16
#define BOX_CAP 256
#define LOCAL_MAX 600

struct item {
	void *p;
	uint64_t tag;
	uint32_t size;
	int32_t kind; /* -1: kmalloc family, else index in caches[] */
};

struct mailbox {
	pthread_mutex_t lock;
	int n;
	struct item items[BOX_CAP];
};

static struct slub_cache *caches[NCACHES];
static size_t cache_size[NCACHES];
static struct mailbox boxes[NBOX];
static volatile int stop;
static int nr_nodes = 1;

/* Totals, for the summary and the stats cross-check. */
static unsigned long long n_alloc, n_free, n_remote, n_realloc, n_threads;
static unsigned long long n_cache_alloc[NCACHES], n_cache_free[NCACHES];
static unsigned long long n_stamp_errors;

#define CTOR_BYTE 0x3e
static void small_ctor(void *p)
{
	memset(p, CTOR_BYTE, 24);
}

static inline unsigned char tag_byte(uint64_t tag, size_t i)
{
	return (unsigned char)((tag >> ((i & 3) * 8)) ^ (i * 13));
}

/* Bytes [8, limit) carry the pattern; the last word (size >= 16) its own. */
static inline size_t stamp_limit(size_t size)
{
	size_t lim = size < 64 ? size : 64;

	if (size >= 16 && lim > size - 8)
		lim = size - 8;
	return lim;
}

/*
 * The live table: LIVE_SHARDS buckets by address, each a fixed array under
 * its own spin lock (never held across an allocator call).  Fixed and
 * static: the workers never call malloc for it, which under a preloaded
 * malloc shim would be a second allocator instance in the process, its
 * caches and cpu slots numbered like this one's in the same trace.  At
 * most 16 x 600 + 16 x 256 objects live (-t 16): about 13 a shard.
 */
#define LIVE_SHARDS 1024
#define LIVE_PER_SHARD 128
struct live_entry {
	void *p;
	uint64_t tag;
	uint32_t size;
};
struct live_shard {
	uint32_t lock;
	uint32_t n;
	struct live_entry e[LIVE_PER_SHARD];
};
static struct live_shard live[LIVE_SHARDS];
static unsigned long long n_double_alloc, n_unregistered;
static int live_quiet; /* the self-check's planted double entry */

static struct live_shard *live_lock(const void *p)
{
	uint64_t h = ((uint64_t)(uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull;
	struct live_shard *sh = &live[h >> (64 - 10)];

	while (__atomic_exchange_n(&sh->lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&sh->lock, __ATOMIC_RELAXED))
			sched_yield(); /* 16 threads on 2 cores: let the holder run */
	return sh;
}

static void live_unlock(struct live_shard *sh)
{
	__atomic_store_n(&sh->lock, 0, __ATOMIC_RELEASE);
}

/* A new object: its address must not be live already. */
static void live_add(const struct item *it)
{
	struct live_shard *sh = live_lock(it->p);

	for (uint32_t i = 0; i < sh->n; i++)
		if (sh->e[i].p == it->p) {
			struct live_entry was = sh->e[i];

			sh->e[i].tag = it->tag;
			sh->e[i].size = it->size;
			live_unlock(sh);
			__atomic_fetch_add(&n_double_alloc, 1, __ATOMIC_RELAXED);
			if (!live_quiet)
				CHECK(0, "object %p (kind %d size %u, tag %#llx) handed out while live: "
			      "allocated before with size %u, tag %#llx, and not freed",
			      it->p, it->kind, it->size, (unsigned long long)it->tag, was.size,
			      (unsigned long long)was.tag);
			return;
		}
	if (sh->n == LIVE_PER_SHARD)
		FATAL("live table: more than %d live objects in one of %d shards", LIVE_PER_SHARD,
		      LIVE_SHARDS);
	sh->e[sh->n++] = (struct live_entry){ it->p, it->tag, it->size };
	live_unlock(sh);
}

/* An object about to be freed: it must be live, with its own tag. */
static void live_del(const struct item *it, const char *when)
{
	struct live_shard *sh = live_lock(it->p);

	for (uint32_t i = 0; i < sh->n; i++)
		if (sh->e[i].p == it->p && sh->e[i].tag == it->tag) {
			sh->e[i] = sh->e[--sh->n];
			live_unlock(sh);
			return;
		}
	live_unlock(sh);
	__atomic_fetch_add(&n_unregistered, 1, __ATOMIC_RELAXED);
	CHECK(0, "%s: object %p (kind %d size %u, tag %#llx) is not live under its tag", when,
	      it->p, it->kind, it->size, (unsigned long long)it->tag);
}

static void stamp(struct item *it)
{
	unsigned char *b = it->p;
	size_t lim = stamp_limit(it->size);

	__atomic_store_n((uint64_t *)it->p, it->tag, __ATOMIC_RELAXED);
	for (size_t i = 8; i < lim; i++)
		b[i] = tag_byte(it->tag, i);
	if (it->size >= 16)
		memcpy(b + it->size - 8, &(uint64_t){ ~it->tag }, 8);
}

static int verify(const struct item *it, const char *when)
{
	const unsigned char *b = it->p;
	uint64_t w0 = __atomic_load_n((uint64_t *)it->p, __ATOMIC_RELAXED), last;
	size_t lim = stamp_limit(it->size);

	if (w0 != it->tag) {
		__atomic_fetch_add(&n_stamp_errors, 1, __ATOMIC_RELAXED);
		CHECK(0, "%s: object %p (kind %d size %u) tag %#llx, want %#llx", when, it->p,
		      it->kind, it->size, (unsigned long long)w0, (unsigned long long)it->tag);
		return 0;
	}
	for (size_t i = 8; i < lim; i++)
		if (b[i] != tag_byte(it->tag, i)) {
			__atomic_fetch_add(&n_stamp_errors, 1, __ATOMIC_RELAXED);
			CHECK(0, "%s: object %p (kind %d size %u) byte %zu = %#x, want %#x", when,
			      it->p, it->kind, it->size, i, b[i], tag_byte(it->tag, i));
			return 0;
		}
	if (it->size >= 16) {
		memcpy(&last, b + it->size - 8, 8);
		if (last != ~it->tag) {
			__atomic_fetch_add(&n_stamp_errors, 1, __ATOMIC_RELAXED);
			CHECK(0, "%s: object %p (kind %d size %u) last word %#llx, want %#llx", when,
			      it->p, it->kind, it->size, (unsigned long long)last,
			      (unsigned long long)~it->tag);
			return 0;
		}
	}
	return 1;
}

struct worker {
	pthread_t thread;
	int done;
	uint32_t gen;
	uint64_t rng;
	long budget;
	uint32_t counter;
	int errno_changed;
	/* thread-local totals, added once at exit */
	unsigned long long alloc, free, remote, realloc;
	unsigned long long cache_alloc[NCACHES], cache_free[NCACHES];
	int n;
	struct item local[LOCAL_MAX];
};

static size_t pick_size(uint64_t r)
{
	unsigned k = r % 1000;

	if (k < 500)
		return 8 + (r >> 10) % 121;      /* 8..128 */
	if (k < 800)
		return 8 + (r >> 10) % 1017;     /* ..1024 */
	if (k < 995)
		return 1025 + (r >> 10) % 7168;  /* ..8192 */
	return 8193 + (r >> 10) % (1 << 20); /* large */
}

static int new_item(struct worker *w, struct item *it)
{
	uint64_t r = test_rand(&w->rng);
	unsigned what = r % 20;
	int node = (int)((r >> 40) % (nr_nodes + 1)) - 1; /* -1 .. nodes-1 */

	if (what < 11) {
		it->size = pick_size(r >> 8);
		it->kind = -1;
		it->p = slub_malloc(it->size);
	} else if (what < 13) {
		it->size = pick_size(r >> 8);
		it->kind = -1;
		it->p = slub_malloc_node(it->size, node);
	} else {
		int c = (r >> 20) % NCACHES;

		it->size = cache_size[c];
		it->kind = c;
		it->p = what < 16 ? slub_cache_alloc(caches[c]) : slub_cache_alloc_node(caches[c], node);
	}
	if (!it->p) {
		CHECK(0, "allocation of %u bytes (kind %d, node %d) failed: errno %d", it->size,
		      it->kind, node, errno);
		return 0;
	}
	it->tag = TAG_MAGIC << 48 | (uint64_t)(w->gen & 0xffff) << 32 | ++w->counter;
	live_add(it);
	stamp(it);
	w->alloc++;
	if (it->kind >= 0)
		w->cache_alloc[it->kind]++;
	return 1;
}

/* Check the stamp, clear word 0 and free: `w` is the freeing thread. */
static void free_item(struct worker *w, struct item *it, const char *when)
{
	if (it->kind < 0 && it->size > 0 && slub_usable_size(it->p) < it->size)
		CHECK(0, "%s: object %p usable %zu < %u", when, it->p, slub_usable_size(it->p),
		      it->size);
	if (!verify(it, when))
		return; /* leave a corrupted object alone */
	live_del(it, when);
	__atomic_store_n((uint64_t *)it->p, 0, __ATOMIC_RELAXED);
	/* free() keeps errno, also when it waited for a contended lock. */
	int sentinel = 1000 + (int)(w->counter & 0xff);
	errno = sentinel;
	if (it->kind < 0) {
		slub_free(it->p);
	} else {
		slub_cache_free(caches[it->kind], it->p);
		w->cache_free[it->kind]++;
	}
	if (errno != sentinel && w->errno_changed++ < 3)
		CHECK(0, "%s: free(%p) changed errno %d to %d", when, it->p, sentinel, errno);
	w->free++;
}

static void realloc_item(struct worker *w, struct item *it)
{
	size_t nsize = pick_size(test_rand(&w->rng));
	void *q;

	if (!verify(it, "before realloc"))
		return;
	live_del(it, "before realloc");
	__atomic_store_n((uint64_t *)it->p, 0, __ATOMIC_RELAXED);
	q = slub_realloc(it->p, nsize);
	if (!CHECK(q != NULL, "realloc(%p, %zu) errno %d", it->p, nsize, errno)) {
		__atomic_store_n((uint64_t *)it->p, it->tag, __ATOMIC_RELAXED);
		live_add(it);
		return;
	}
	/* The first min(old, new) bytes moved along. */
	{
		const unsigned char *b = q;
		size_t keep = stamp_limit(it->size);

		if (keep > nsize)
			keep = nsize;
		for (size_t i = 8; i < keep; i++)
			if (b[i] != tag_byte(it->tag, i)) {
				CHECK(0, "realloc %u -> %zu lost byte %zu", it->size, nsize, i);
				break;
			}
	}
	it->p = q;
	it->size = nsize;
	it->tag = TAG_MAGIC << 48 | (uint64_t)(w->gen & 0xffff) << 32 | ++w->counter;
	live_add(it);
	stamp(it);
	w->realloc++;
}

static int box_put(struct item *it, uint64_t r)
{
	struct mailbox *b = &boxes[r % NBOX];
	int ok = 0;

	pthread_mutex_lock(&b->lock);
	if (b->n < BOX_CAP) {
		b->items[b->n++] = *it;
		ok = 1;
	}
	pthread_mutex_unlock(&b->lock);
	return ok;
}

static int box_get(struct item *it, uint64_t r)
{
	struct mailbox *b = &boxes[r % NBOX];
	int ok = 0;

	pthread_mutex_lock(&b->lock);
	if (b->n > 0) {
		/* Take from a random slot so objects mix across owners. */
		int k = (r >> 8) % b->n;

		*it = b->items[k];
		b->items[k] = b->items[--b->n];
		ok = 1;
	}
	pthread_mutex_unlock(&b->lock);
	return ok;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (long i = 0; i < w->budget && !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++) {
		uint64_t r = test_rand(&w->rng);
		unsigned op = r % 100;
		struct item tmp;

		if (op < 45 && w->n < LOCAL_MAX) {
			if (new_item(w, &w->local[w->n]))
				w->n++;
		} else if (op < 65 && w->n > 0) {
			int k = (r >> 8) % w->n;

			free_item(w, &w->local[k], "local free");
			w->local[k] = w->local[--w->n];
		} else if (op < 80 && w->n > 0) {
			int k = (r >> 8) % w->n;

			if (box_put(&w->local[k], r >> 24)) {
				w->local[k] = w->local[--w->n];
			}
		} else if (op < 97) {
			if (box_get(&tmp, r >> 8)) {
				free_item(w, &tmp, "remote free");
				w->remote++;
			}
		} else if (op < 99 && w->n > 0) {
			int k = (r >> 8) % w->n;

			if (w->local[k].kind < 0)
				realloc_item(w, &w->local[k]);
		} else if ((r >> 8) % 64 == 0) {
			slub_thread_flush();
		}
	}
	/* Leave part of the objects to other threads, free the rest. */
	while (w->n > 0) {
		struct item *it = &w->local[--w->n];

		if (!(test_rand(&w->rng) & 1) || !box_put(it, test_rand(&w->rng)))
			free_item(w, it, "exit free");
	}
	__atomic_fetch_add(&n_alloc, w->alloc, __ATOMIC_RELAXED);
	__atomic_fetch_add(&n_free, w->free, __ATOMIC_RELAXED);
	__atomic_fetch_add(&n_remote, w->remote, __ATOMIC_RELAXED);
	__atomic_fetch_add(&n_realloc, w->realloc, __ATOMIC_RELAXED);
	for (int c = 0; c < NCACHES; c++) {
		__atomic_fetch_add(&n_cache_alloc[c], w->cache_alloc[c], __ATOMIC_RELAXED);
		__atomic_fetch_add(&n_cache_free[c], w->cache_free[c], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Before the workers, single threaded:
 * 1. the live table reports an address handed out twice (a planted one);
 * 2. why memory contents are no witness: pages a slab of one cache gave
 *    back, reused by a slab of another, hand out objects whose word 0
 *    holds what the old objects held.  Filled with the tag magic, every
 *    word 0 on a reused page looks like a live stamp while no object of
 *    the old cache is live.
 */
static void self_check(void)
{
	struct item a = { (void *)0x1000, TAG_MAGIC << 48 | 1, 64, -1 }, b = a;
	struct slub_cache *old = slub_cache_create("stress-stale-192", 192, 0, 0, NULL);
	struct slub_cache *neu = slub_cache_create("stress-stale-128", 128, 0, 0, NULL);
	enum { NOLD = 4 * 21, NNEW = 4 * 32 };
	void *o[NOLD], *n[NNEW];
	int magic = 0;

	live_quiet = 1;
	live_add(&a);
	b.tag++;
	live_add(&b);
	live_quiet = 0;
	CHECK_EQ(n_double_alloc, 1);
	live_del(&b, "self-check");
	CHECK_EQ(n_unregistered, 0);
	n_double_alloc = 0;

	if (!CHECK(old && neu, "self-check caches: errno %d", errno))
		return;
	for (int i = 0; i < NOLD; i++) {
		o[i] = slub_cache_alloc(old);
		if (!CHECK(o[i] != NULL, "self-check alloc"))
			return;
		memset(o[i], TAG_MAGIC & 0xff, 192);
	}
	for (int i = 0; i < NOLD; i++)
		slub_cache_free(old, o[i]);
	slub_thread_flush();
	slub_cache_shrink(old);
	for (int i = 0; i < NNEW; i++) {
		n[i] = slub_cache_alloc(neu);
		if (!CHECK(n[i] != NULL, "self-check alloc"))
			return;
		magic += *(uint64_t *)n[i] >> 48 == TAG_MAGIC;
	}
	CHECK(magic > 0, "no object of %d on pages given back held their old bytes", NNEW);
	printf("test_stress: self-check: %d of %d new objects start with the stale bytes "
	       "of freed ones\n", magic, NNEW);
	for (int i = 0; i < NNEW; i++)
		slub_cache_free(neu, n[i]);
	CHECK_EQ(slub_cache_destroy(old), 0);
	CHECK_EQ(slub_cache_destroy(neu), 0);
}

static void start_worker(struct worker *w, uint32_t gen, uint64_t *rng)
{
	memset(w, 0, offsetof(struct worker, local));
	w->gen = gen;
	w->rng = test_seed(gen, test_rand(rng));
	w->budget = 5000 + test_rand(rng) % 60000;
	if (pthread_create(&w->thread, NULL, worker_main, w))
		FATAL("pthread_create: %s", strerror(errno));
	n_threads++;
}

int main(int argc, char **argv)
{
	long threads = 12, seconds = 3, nodes = 2;
	const struct test_opt opts[] = {
		{ 't', &threads, "threads (default 12)" },
		{ 's', &seconds, "seconds (default 3)" },
		{ 'n', &nodes, "emulated nodes (default 2; SLUBTRACE_NODES wins)" },
	};
	struct worker *workers;
	uint64_t rng = test_seed(42, (uint64_t)time(NULL));
	uint32_t gen = 0;
	double end;
	struct item it;
	char nbuf[16];

	test_parse_opts(argc, argv, opts, 3);
	if (threads < 1)
		threads = 1;
	/* Before the first allocator call: the node count is read once. */
	snprintf(nbuf, sizeof(nbuf), "%ld", nodes);
	setenv("SLUBTRACE_NODES", nbuf, 0);
	slub_init();
	nr_nodes = slub_nr_nodes();
	CHECK_EQ(nr_nodes, atoi(getenv("SLUBTRACE_NODES")));

	caches[0] = slub_cache_create("stress-small", 24, 0, 0, small_ctor);
	caches[1] = slub_cache_create("stress-mid", 200, 0,
				      SLUB_F_HWCACHE_ALIGN | SLUB_F_TRACK_FULL, NULL);
	caches[2] = slub_cache_create("stress-big", 1500, 0, SLUB_F_NO_CPU_PARTIAL, NULL);
	for (int c = 0; c < NCACHES; c++) {
		if (!caches[c])
			FATAL("cache %d: create failed, errno %d", c, errno);
		cache_size[c] = slub_cache_object_size(caches[c]);
	}
	for (int b = 0; b < NBOX; b++)
		pthread_mutex_init(&boxes[b].lock, NULL);

	self_check();
	workers = calloc(threads, sizeof(*workers));
	if (!workers)
		FATAL("calloc");
	for (long i = 0; i < threads; i++)
		start_worker(&workers[i], ++gen, &rng);

	end = test_now() + seconds;
	while (test_now() < end) {
		struct timespec ts = { 0, 2 * 1000 * 1000 };

		for (long i = 0; i < threads; i++)
			if (__atomic_load_n(&workers[i].done, __ATOMIC_ACQUIRE)) {
				pthread_join(workers[i].thread, NULL);
				start_worker(&workers[i], ++gen, &rng);
			}
		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < threads; i++)
		pthread_join(workers[i].thread, NULL);

	/* What is left in the mailboxes is freed here: remote for their
	 * allocators, which have all exited. */
	{
		struct worker *mw = calloc(1, sizeof(*mw));

		for (int b = 0; b < NBOX; b++)
			while (box_get(&it, (uint64_t)b))
				free_item(mw, &it, "final free");
		n_free += mw->free;
		for (int c = 0; c < NCACHES; c++)
			n_cache_free[c] += mw->cache_free[c];
		free(mw);
	}

	CHECK_EQ(n_double_alloc, 0);
	CHECK_EQ(n_unregistered, 0);
	CHECK_EQ(n_stamp_errors, 0);
	for (int i = 0; i < LIVE_SHARDS; i++) {
		CHECK(live[i].n == 0, "live table: %u objects never freed (one is %p)", live[i].n,
		      live[i].n ? live[i].e[0].p : NULL);
	}
	CHECK_EQ(n_alloc, n_free);
	CHECK_EQ(slub_error_count(), 0);
	for (int c = 0; c < NCACHES; c++) {
		struct slub_stats st;

		CHECK(n_cache_alloc[c] > 0, "cache %s never used", slub_cache_name(caches[c]));
		CHECK_EQ(n_cache_alloc[c], n_cache_free[c]);
		CHECK(slub_validate(caches[c]) == 0, "validate %s", slub_cache_name(caches[c]));
		CHECK_EQ(slub_cache_stats(caches[c], &st), 0);
#if SLUB_STATS
		CHECK(st.item[SLUB_ALLOC_FASTPATH] + st.item[SLUB_ALLOC_SLOWPATH] == n_cache_alloc[c],
		      "%s: alloc stats %llu + %llu, allocations made %llu",
		      slub_cache_name(caches[c]),
		      (unsigned long long)st.item[SLUB_ALLOC_FASTPATH],
		      (unsigned long long)st.item[SLUB_ALLOC_SLOWPATH], n_cache_alloc[c]);
		CHECK(st.item[SLUB_FREE_FASTPATH] + st.item[SLUB_FREE_SLOWPATH] == n_cache_free[c],
		      "%s: free stats %llu + %llu, frees made %llu", slub_cache_name(caches[c]),
		      (unsigned long long)st.item[SLUB_FREE_FASTPATH],
		      (unsigned long long)st.item[SLUB_FREE_SLOWPATH], n_cache_free[c]);
#endif
	}
	CHECK_EQ(slub_validate_all(), 0);
	for (int c = 0; c < NCACHES; c++) {
		struct slub_stats st;
		const char *name = slub_cache_name(caches[c]);
		long live;

		slub_cache_shrink(caches[c]);
		CHECK_EQ(slub_cache_stats(caches[c], &st), 0);
		CHECK(st.objects_inuse == 0, "%s: %llu objects in use after freeing all", name,
		      (unsigned long long)st.objects_inuse);
		CHECK(st.slabs == 0, "%s: %llu slabs left after shrink", name,
		      (unsigned long long)st.slabs);
		live = slub_cache_destroy(caches[c]);
		CHECK(live == 0, "destroy of cache %d returned %ld live objects", c, live);
	}
	CHECK_EQ(slub_error_count(), 0);
	printf("test_stress: %ld threads at a time, %llu threads in all, %d nodes, %llu allocs, "
	       "%llu remote frees, %llu reallocs\n",
	       threads, n_threads, nr_nodes, n_alloc, n_remote, n_realloc);
	free(workers);
	return test_summary("test_stress");
}
