/* SPDX-License-Identifier: MIT */
/*
 * /proc/slabinfo: get_slabinfo() and count_partial() of Linux 6.1.
 *
 * The free objects of a cache are counted by walking every node partial
 * list under its list_lock (count_partial(n, count_free)); slabs held by
 * cpus count as fully in use, as in the kernel.  With long partial lists
 * the walk holds list_lock for a long time and every allocating or freeing
 * thread that needs the lock waits behind it: the jitter of the 2020 thread
 * (2020-slub-count-partial-thread.txt).  The lock is taken with list_lock(),
 * so the hold is measured and traced like every other one; the walk changes
 * no slab state (no list operation, no slab-word update).  What the hold
 * did is said by one slabinfo_walk event, emitted inside it: the slabs
 * walked, the slabs listed and the free objects counted, so that a trace
 * names the walk as the cause of the long hold and of the waits behind it.
 *
 * Variants partial-counters and partial-counters-pcp: Xunlei Pang's v2
 * series "mm/slub: Fix count_partial() problem" (August 2020, not merged):
 * patches 1-2 keep two atomic counters per node, the objects of the partial
 * slabs and their free objects, updated by the list operations and by
 * __slab_free, and slabinfo reads them instead of walking; patch 3 keeps
 * the free counter per cpu (summed by the reader).  The thread measured
 * hackbench 20 thread 20000 at 19.21 s, 21.73 s with patches 1-2 (the
 * shared counter in every slow free) and 19.11 s with patch 3.
 *
 * Variant partial-scan-bounded: count_partial_free_approx() of Linux 6.10
 * (commit 046f4c69090c "slub: introduce count_partial_free_approx()",
 * merged with slab-for-6.10; posted as "mm/slub: avoid scanning all partial
 * slabs in get_slabinfo()"): a list longer than MAX_PARTIAL_TO_SCAN is
 * scanned half from its head and half from its tail, and the count is
 * extrapolated to the whole list, capped at the node's objects.
 *
 * SLUBTRACE_SLABINFO=INTERVAL starts a reader thread that reads every
 * cache's slabinfo every INTERVAL (N, Nus, Nms or Ns; plain N is ms), as a
 * monitoring agent reading /proc/slabinfo does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define MAX_PARTIAL_TO_SCAN 10000

static unsigned long counted_partial_free(struct slub_cache *s, int nid);

/* slabinfo_walk, under the list_lock the walk holds (so inside its hold
 * in the trace, with the hold's lock_seq). */
static void emit_walk(struct slub_cache *s, struct slub_node *n, struct slub_cpu *c,
		      unsigned long walked, unsigned long free)
{
	struct slub_event ev;

	if (!slub_wants(SLUB_EV_SLABINFO_WALK))
		return;
	ev_init(&ev, SLUB_EV_SLABINFO_WALK, s, c, NULL);
	ev.node = (int)(n - s->node);
	ev.lock_id = s->id * 64 + (uint32_t)ev.node;
	ev.lock_seq = n->lock_seq;
	ev.locked = 1;
	ev.count = walked > UINT32_MAX ? UINT32_MAX : (uint32_t)walked;
	ev.pages = n->nr_partial > UINT32_MAX ? UINT32_MAX : (uint32_t)n->nr_partial;
	ev.size = free;
	slub_emit(&ev);
}

/* count_partial(n, count_free): under list_lock, objects - inuse summed. */
static unsigned long count_partial_free(struct slub_cache *s, struct slub_node *n,
					struct slub_cpu *c, unsigned long *scanned)
{
	unsigned long x = 0, k = 0;

	list_lock(s, n, c);
	for (struct slab *p = n->partial; p; p = p->next, k++) {
		struct slab_word w = slab_word_read(p);
		x += w.c.objects - w.c.inuse;
	}
	emit_walk(s, n, c, k, x);
	list_unlock(s, n, c);
	*scanned += k;
	return x;
}

/* count_partial_free_approx() of 6.10. */
static unsigned long count_partial_free_approx(struct slub_cache *s, struct slub_node *n,
					       struct slub_cpu *c, unsigned long node_objs,
					       unsigned long *scanned)
{
	unsigned long x = 0, k = 0;

	list_lock(s, n, c);
	if (n->nr_partial <= MAX_PARTIAL_TO_SCAN) {
		for (struct slab *p = n->partial; p; p = p->next, k++) {
			struct slab_word w = slab_word_read(p);
			x += w.c.objects - w.c.inuse;
		}
	} else {
		/* both ends: the head gets fresh partials, the tail old ones */
		for (struct slab *p = n->partial; p && k < MAX_PARTIAL_TO_SCAN / 2;
		     p = p->next, k++) {
			struct slab_word w = slab_word_read(p);
			x += w.c.objects - w.c.inuse;
		}
		for (struct slab *p = n->partial_tail; p && k < MAX_PARTIAL_TO_SCAN;
		     p = p->prev, k++) {
			struct slab_word w = slab_word_read(p);
			x += w.c.objects - w.c.inuse;
		}
		x = (unsigned long)((unsigned __int128)x * n->nr_partial / k);
		if (x > node_objs)
			x = node_objs;
	}
	emit_walk(s, n, c, k, x);
	list_unlock(s, n, c);
	*scanned += k;
	return x;
}

int slub_get_slabinfo(struct slub_cache *s, struct slub_slabinfo *out)
{
	unsigned long nr_slabs, nr_objs, nr_free = 0;
	bool orphan;
	struct slub_thread *t;
	struct slub_cpu *c;

	if (!s || !out) {
		errno = EINVAL;
		return -1;
	}
	slub_init();
	memset(out, 0, sizeof(*out));
	t = slub_thread_or_orphan(&orphan);
	c = get_cpu_slab(s, t);
	nr_slabs = __atomic_load_n(&s->total_slabs, __ATOMIC_RELAXED);
	nr_objs = nr_slabs * s->objects;
	for (int nid = 0; nid < slub_nodes; nid++) {
		struct slub_node *n = get_node(s, nid);

		out->partial_slabs += READ_ONCE(n->nr_partial);
		if (variant(SLUB_VAR_PARTIAL_COUNTERS_ANY)) {
			/* patch 2: no walk, no list_lock */
			long t = __atomic_load_n(&n->partial_total_objs, __ATOMIC_RELAXED);
			nr_free += counted_partial_free(s, nid);
			out->partial_objs += t > 0 ? (unsigned long)t : 0;
			continue;
		}
		out->partial_objs += READ_ONCE(n->nr_partial) * s->objects;
		if (variant(SLUB_VAR_PARTIAL_SCAN_BOUNDED))
			nr_free += count_partial_free_approx(s, n, c, nr_objs, &out->scanned_slabs);
		else
			nr_free += count_partial_free(s, n, c, &out->scanned_slabs);
	}
	if (orphan)
		slub_orphan_leave();
	/* the counts are read racily, as the kernel's are: keep them sane */
	if (nr_free > nr_objs)
		nr_free = nr_objs;
	out->active_objs = nr_objs - nr_free;
	out->num_objs = nr_objs;
	out->active_slabs = out->num_slabs = nr_slabs;
	out->objects_per_slab = s->objects;
	out->pages_per_slab = 1u << s->order;
	return 0;
}

/* ---- the reader thread ---- */

static uint64_t reader_interval_ns;
static unsigned long reader_rounds;

static int read_one(struct slub_cache *s, void *arg)
{
	struct slub_slabinfo si;

	(void)arg;
	if (READ_ONCE(s->used))
		slub_get_slabinfo(s, &si);
	return 0;
}

static void *reader_main(void *arg)
{
	struct timespec ts = { (time_t)(reader_interval_ns / 1000000000u),
			       (long)(reader_interval_ns % 1000000000u) };

	(void)arg;
	for (;;) {
		nanosleep(&ts, NULL);
		slub_for_each_cache(read_one, NULL);
		__atomic_add_fetch(&reader_rounds, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

unsigned long slub_slabinfo_reader_rounds(void)
{
	return __atomic_load_n(&reader_rounds, __ATOMIC_RELAXED);
}

/* Parses SLUBTRACE_SLABINFO; 0 when unset.  A bad value stops the process
 * with one line (env.c), as every SLUBTRACE_ variable does. */
static uint64_t env_interval_ns(void)
{
	const char *v = getenv("SLUBTRACE_SLABINFO");
	double n, scale = 1e6;
	char *end;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtod(v, &end);
	if (!strcmp(end, "us"))
		scale = 1e3;
	else if (!strcmp(end, "ms") || !*end)
		scale = 1e6;
	else if (!strcmp(end, "s"))
		scale = 1e9;
	else
		n = -1;
	if (errno || end == v || !(n * scale >= 1000) || n * scale > 3600e9)
		slub_env_fail("SLUBTRACE_SLABINFO", "not an interval", v, strlen(v),
			      "N, Nus, Nms or Ns (1us to 3600s; N alone is ms)");
	return (uint64_t)(n * scale);
}

void slub_slabinfo_start(void)
{
	pthread_attr_t attr;
	pthread_t tid;

	reader_interval_ns = env_interval_ns();
	if (!reader_interval_ns)
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&tid, &attr, reader_main, NULL))
		slub_env_fail("SLUBTRACE_SLABINFO", "cannot start the reader thread",
			      getenv("SLUBTRACE_SLABINFO"), 0, "");
	pthread_attr_destroy(&attr);
}

/* ---- the counters of Xunlei Pang's v2 series (2020) ---- */

/*
 * A slab added to a node partial list brings its free objects to the
 * node's count and remembers them (slab->counted_free); removed, it takes
 * back what it brought plus what frees added while it was listed.  A
 * lockless free that races with the slab's removal adds after it: the
 * count can drift by that free's objects, as counters kept beside a
 * lockless structure do; a read clamps it to [0, objects].
 */
void partial_counters_list(struct slub_cache *s, struct slub_node *n, struct slab *slab,
			   struct slub_cpu *c, int add)
{
	long objects = s->objects, f;
	int nid = (int)(n - s->node);

	if (add) {
		struct slab_word w = slab_word_read(slab);
		f = (long)w.c.objects - w.c.inuse;
		__atomic_store_n(&slab->counted_free, (uint32_t)f, __ATOMIC_RELAXED);
	} else {
		f = -(long)__atomic_exchange_n(&slab->counted_free, 0, __ATOMIC_RELAXED);
		objects = -objects;
	}
	__atomic_add_fetch(&n->partial_total_objs, objects, __ATOMIC_RELAXED);
	if (variant(SLUB_VAR_PARTIAL_COUNTERS_PCP))
		__atomic_add_fetch(&c->partial_free_objs[nid], f, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&n->partial_free_objs, f, __ATOMIC_RELAXED);
}

void partial_counters_free(struct slub_cache *s, struct slab *slab, struct slub_cpu *c,
			   unsigned cnt)
{
	__atomic_add_fetch(&slab->counted_free, cnt, __ATOMIC_RELAXED);
	if (variant(SLUB_VAR_PARTIAL_COUNTERS_PCP))
		__atomic_add_fetch(&c->partial_free_objs[slab->node], (long)cnt, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&get_node(s, slab->node)->partial_free_objs, (long)cnt,
				   __ATOMIC_RELAXED);
}

/* The node's free objects on its partial list, from the counters. */
static unsigned long counted_partial_free(struct slub_cache *s, int nid)
{
	long x = __atomic_load_n(&get_node(s, nid)->partial_free_objs, __ATOMIC_RELAXED);

	/* -pcp: every cpu slot of the cache (the registry is append-only, and a
	 * slot keeps its sum when its thread exits and another takes it) */
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		struct slub_cpu *c = __atomic_load_n(&t->cpu[s->id], __ATOMIC_ACQUIRE);
		if (c && c->cache == s)
			x += __atomic_load_n(&c->partial_free_objs[nid], __ATOMIC_RELAXED);
	}
	return x > 0 ? (unsigned long)x : 0;
}
