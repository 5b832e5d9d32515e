// SPDX-License-Identifier: MIT
/*
 * test_placement: where slabs go, replayed from the in-process events.
 *
 * The event stream says that a list operation happened; this test checks
 * that it happened at the right place, which no count or chain check can
 * see.  Two threads (the main thread and a helper) take turns, one acting
 * while the other waits, so the recording is one exact history and every
 * rule below is an equation, not a bound:
 *
 *   a) per node, the partial list replayed from add_partial (head|tail) and
 *      remove_partial: acquire_slab() always takes the head, and the
 *      replayed lists hold as many slabs as the census says;
 *   b) deactivate_slab() puts a slab at the tail exactly when its own
 *      freelist held objects (remote frees), else at the head (the kernel's
 *      DEACTIVATE_TO_TAIL rule);
 *   c) per cpu slot, the partial chain replayed from cpu_partial_put/take/
 *      drain: put_cpu_partial() drains exactly when the chain holds more
 *      than cpu_partial free objects, never at or below it; one
 *      get_partial_node() stops acquiring once the slabs it took hold more
 *      than cpu_partial / 2 free objects;
 *   d) counters with no other identity: FREE_FROZEN = free_remote events
 *      on a frozen slab, CPUSLAB_FLUSH = deactivations by a flush,
 *      DEACTIVATE_REMOTE_FREES = deactivations whose slab freelist was not
 *      empty;
 *   e) min_partial, at the three places an empty slab may be discarded:
 *      __slab_free() discards an emptied slab once the node holds
 *      min_partial partial slabs counting itself (freeing every object of
 *      a no-cpu-partial cache from another thread leaves min_partial - 1);
 *      unfreeze_partials() and deactivate_slab() discard an empty slab
 *      once the node already holds min_partial (flushing a chain of empty
 *      slabs leaves min_partial, and an empty cpu slab then goes too).
 *   f) full lists (tracked caches): a full slab is listed, moves to the
 *      partial list at its first free, and is never on both lists.
 *
 *   test_placement [-r rounds] [-s seed]
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slub/slub.h>

#include "testutil.h"

static long rounds = 3000;
static long seed = 1;

/* ---- the recording: a compact copy of the events of the caches under test ---- */

struct rec {
	uint32_t type, site, list, reason, count;
	int32_t cpu, node;
	uint32_t tid;
	uint64_t slab;
	uint64_t old_freelist;
	uint32_t old_frozen, old_inuse, old_objects;
	uint32_t lock_id;
	uint64_t lock_seq;
	uint32_t acquire; /* remove_partial done by acquire_slab() (set by the replay) */
};

#define RCAP (1ul << 20)
#define MAX_WATCH 8

static struct rec *rbuf;
static unsigned long rlen;
static unsigned watch_id[MAX_WATCH];
static int nwatch;
/* Filled from the cache_create events of the watched caches. */
static struct slub_cache_info watch_info[MAX_WATCH];
static char watch_name[MAX_WATCH][32];

/* thread_flush names no cache: counted apart.  cache_destroy: its count. */
static unsigned long thread_flushes;
static long destroy_count = -1;

static int watched(unsigned cache_id)
{
	for (int i = 0; i < nwatch; i++)
		if (watch_id[i] == cache_id)
			return 1;
	return 0;
}

static void observe(const struct slub_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == SLUB_EV_CACHE_CREATE) {
		for (int i = 0; i < MAX_WATCH; i++)
			if (ev->info && ev->info->name && !strcmp(ev->info->name, watch_name[i])) {
				watch_info[i] = *ev->info;
				watch_info[i].name = watch_name[i];
			}
		return;
	}
	if (ev->type == SLUB_EV_THREAD_FLUSH) {
		__atomic_fetch_add(&thread_flushes, 1, __ATOMIC_RELAXED);
		return;
	}
	if (!watched(ev->cache_id))
		return;
	if (ev->type == SLUB_EV_CACHE_DESTROY)
		__atomic_store_n(&destroy_count, (long)ev->count, __ATOMIC_RELAXED);
	unsigned long i = __atomic_fetch_add(&rlen, 1, __ATOMIC_RELAXED);
	if (i >= RCAP)
		return;
	struct rec *r = &rbuf[i];
	r->type = ev->type;
	r->site = ev->site;
	r->list = ev->list;
	r->reason = ev->reason;
	r->count = ev->count;
	r->cpu = ev->cpu;
	r->node = ev->node;
	r->tid = ev->tid;
	r->slab = ev->slab;
	r->old_freelist = ev->old.freelist;
	r->old_frozen = ev->old.frozen;
	r->old_inuse = ev->old.inuse;
	r->old_objects = ev->old.objects;
	r->lock_id = ev->lock_id;
	r->lock_seq = ev->lock_seq;
	r->acquire = 0;
}

/* Create a cache whose cache_create event the observer keeps. */
static struct slub_cache *watch_cache(const char *name, size_t size, unsigned flags, int *slot)
{
	if (nwatch >= MAX_WATCH)
		FATAL("too many watched caches");
	*slot = nwatch;
	snprintf(watch_name[nwatch], sizeof(watch_name[0]), "%s", name);
	struct slub_cache *s = slub_cache_create(name, size, 0, flags, NULL);
	if (!s)
		FATAL("create %s: errno %d", name, errno);
	watch_id[nwatch] = slub_cache_id(s);
	__atomic_store_n(&nwatch, nwatch + 1, __ATOMIC_RELEASE);
	if (!watch_info[*slot].objects)
		FATAL("%s: no cache_create event reached the observer", name);
	return s;
}

/* ---- two actors taking turns ---- */

#define POOL_CAP 8192

static void *pool[POOL_CAP];
static int npool;
static struct slub_cache *cur;
static __thread int touched; /* this thread called the allocator */

enum op { OP_ALLOC, OP_FREE, OP_FREE_EACH, OP_FLUSH, OP_EXIT };

struct helper {
	pthread_t th;
	sem_t go, done;
	enum op op;
	long arg;
	uint64_t rng;
	int used; /* called the allocator: registered, its flushes emit */
};

static struct helper helper;
static unsigned long flushes_done; /* thread flushes asked for (and exits) */

/* Allocate n objects into the pool. */
static void do_alloc(long n)
{
	for (long i = 0; i < n && npool < POOL_CAP; i++) {
		void *p = slub_cache_alloc(cur);
		touched = 1;
		if (!CHECK(p != NULL, "alloc: errno %d", errno))
			return;
		pool[npool++] = p;
	}
}

/* Free n random objects of the pool. */
static void do_free(long n, uint64_t *rng)
{
	for (long i = 0; i < n && npool > 0; i++) {
		int k = (int)(test_rand(rng) % (uint64_t)npool);
		slub_cache_free(cur, pool[k]);
		touched = 1;
		pool[k] = pool[--npool];
	}
}

/* Free every `stride`-th object of the pool, in allocation order (the
 * others stay, in order). */
static void do_free_each(long stride)
{
	int kept = 0;

	for (int i = 0; i < npool; i++) {
		if (i % stride == 0) {
			slub_cache_free(cur, pool[i]);
			touched = 1;
		} else
			pool[kept++] = pool[i];
	}
	npool = kept;
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;

	for (;;) {
		sem_wait(&h->go);
		switch (h->op) {
		case OP_ALLOC:
			do_alloc(h->arg);
			break;
		case OP_FREE:
			do_free(h->arg, &h->rng);
			break;
		case OP_FREE_EACH:
			do_free_each(h->arg);
			break;
		case OP_FLUSH:
			slub_thread_flush();
			break;
		case OP_EXIT:
			sem_post(&h->done);
			return NULL; /* the exit flush runs while the main thread waits */
		}
		h->used |= touched;
		sem_post(&h->done);
	}
}

static void helper_start(void)
{
	helper.used = 0;
	sem_init(&helper.go, 0, 0);
	sem_init(&helper.done, 0, 0);
	if (pthread_create(&helper.th, NULL, helper_main, &helper))
		FATAL("pthread_create");
}

/* The helper does one operation while the main thread waits. */
static void helper_do(enum op op, long arg)
{
	helper.op = op;
	helper.arg = arg;
	flushes_done += (op == OP_FLUSH || op == OP_EXIT) && helper.used;
	sem_post(&helper.go);
	sem_wait(&helper.done);
	if (op == OP_EXIT) {
		pthread_join(helper.th, NULL); /* its exit flush is over */
		sem_destroy(&helper.go);
		sem_destroy(&helper.done);
	}
}

/* ---- the replay ---- */

struct chain_ent {
	uint64_t slab;
	uint32_t count; /* pobjects of the chain when this slab was pushed */
};

#define MAX_CPUS 256
#define MAX_CHAIN 512
#define MAX_LIST 4096
#define MAX_LOCKS (MAX_WATCH * SLUB_MAX_NODES)

struct replay {
	/* node partial lists, by lock id */
	uint32_t lock_id[MAX_LOCKS];
	uint64_t *list[MAX_LOCKS];
	int len[MAX_LOCKS];
	/* node full lists (tracked caches), unordered */
	uint64_t *full[MAX_LOCKS];
	int nfull[MAX_LOCKS];
	int nlocks;
	/* cpu partial chains, by cpu id: top of the stack = chain head */
	struct chain_ent chain[MAX_CPUS][MAX_CHAIN];
	int depth[MAX_CPUS];
	/* what was seen */
	long acquires, acquires_multi, adds_head, adds_tail;
	long deact_head, deact_tail, drains_limit, puts_by_free;
	long free_frozen, flush_deact, deact_remote, add_partial, remove_partial;
	long bad_acquire, bad_list, bad_deact, bad_drain, bad_nodrain, bad_chain, bad_refill;
	long refills_multi;
};

static int lock_index(struct replay *rp, uint32_t id)
{
	for (int i = 0; i < rp->nlocks; i++)
		if (rp->lock_id[i] == id)
			return i;
	if (rp->nlocks >= MAX_LOCKS)
		FATAL("too many locks");
	rp->lock_id[rp->nlocks] = id;
	rp->list[rp->nlocks] = calloc(MAX_LIST, sizeof(uint64_t));
	rp->len[rp->nlocks] = 0;
	rp->full[rp->nlocks] = calloc(MAX_LIST, sizeof(uint64_t));
	rp->nfull[rp->nlocks] = 0;
	return rp->nlocks++;
}

static int list_find(const uint64_t *l, int len, uint64_t slab)
{
	for (int i = 0; i < len; i++)
		if (l[i] == slab)
			return i;
	return -1;
}

/* Order list operations by lock, then by acquisition, then as recorded. */
static const struct rec *sort_base;
static int cmp_listop(const void *a, const void *b)
{
	const struct rec *x = &sort_base[*(const unsigned long *)a];
	const struct rec *y = &sort_base[*(const unsigned long *)b];

	if (x->lock_id != y->lock_id)
		return x->lock_id < y->lock_id ? -1 : 1;
	if (x->lock_seq != y->lock_seq)
		return x->lock_seq < y->lock_seq ? -1 : 1;
	return *(const unsigned long *)a < *(const unsigned long *)b ? -1 : 1;
}

static int is_listop(uint32_t type)
{
	return type == SLUB_EV_ADD_PARTIAL || type == SLUB_EV_REMOVE_PARTIAL ||
	       type == SLUB_EV_ADD_FULL || type == SLUB_EV_REMOVE_FULL;
}

/* a) the node partial lists (and full lists: a slab is on one list at most).
 * Returns how many slabs the partial lists hold at the end; *full_total the
 * full lists. */
static long replay_lists_full(struct replay *rp, struct rec *r, unsigned long n, const char *phase,
			      long *full_total)
{
	unsigned long *idx = calloc(n ? n : 1, sizeof(*idx));
	unsigned long m = 0;
	int shown = 0;
	long total = 0;

	/* acquire_slab(): freeze ("acquire_slab") then remove_partial of the
	 * same slab, by the same thread, with nothing in between. */
	for (unsigned long i = 0; i < n; i++) {
		if (r[i].type != SLUB_EV_REMOVE_PARTIAL)
			continue;
		for (unsigned long j = i; j-- > 0;) {
			if (r[j].tid != r[i].tid)
				continue;
			r[i].acquire = r[j].type == SLUB_EV_FREEZE && r[j].site == SLUB_SITE_ACQUIRE_SLAB &&
				       r[j].slab == r[i].slab;
			break;
		}
	}
	for (unsigned long i = 0; i < n; i++)
		if (is_listop(r[i].type))
			idx[m++] = i;
	sort_base = r;
	qsort(idx, m, sizeof(*idx), cmp_listop);
	for (unsigned long k = 0; k < m; k++) {
		const struct rec *e = &r[idx[k]];
		int li = lock_index(rp, e->lock_id);
		uint64_t *l = rp->list[li];
		int *len = &rp->len[li];
		int at = list_find(l, *len, e->slab);
		uint64_t *f = rp->full[li];
		int *nf = &rp->nfull[li];
		int fat = list_find(f, *nf, e->slab);

		if (e->type == SLUB_EV_ADD_FULL || e->type == SLUB_EV_REMOVE_FULL) {
			int add = e->type == SLUB_EV_ADD_FULL;
			if (add ? (at >= 0 || fat >= 0 || *nf >= MAX_LIST) : fat < 0) {
				rp->bad_list++;
				if (shown++ < 5)
					CHECK(0, "%s: %s of slab %#llx: on the partial list at %d, "
					      "on the full list at %d", phase, slub_event_name(e->type),
					      (unsigned long long)e->slab, at, fat);
				continue;
			}
			if (add)
				f[(*nf)++] = e->slab;
			else
				f[fat] = f[--(*nf)];
			continue;
		}
		rp->add_partial += e->type == SLUB_EV_ADD_PARTIAL;
		rp->remove_partial += e->type == SLUB_EV_REMOVE_PARTIAL;
		if (e->type == SLUB_EV_ADD_PARTIAL) {
			if (at >= 0 || fat >= 0 || *len >= MAX_LIST || (e->list != SLUB_DEST_HEAD &&
							    e->list != SLUB_DEST_TAIL)) {
				rp->bad_list++;
				if (shown++ < 5)
					CHECK(0, "%s: add_partial of slab %#llx (list %u): already at %d of %d, "
					      "on the full list at %d", phase, (unsigned long long)e->slab,
					      e->list, at, *len, fat);
				continue;
			}
			if (e->list == SLUB_DEST_HEAD) {
				memmove(l + 1, l, (size_t)*len * sizeof(*l));
				l[0] = e->slab;
				rp->adds_head++;
			} else {
				l[*len] = e->slab;
				rp->adds_tail++;
			}
			(*len)++;
			continue;
		}
		if (at < 0) {
			rp->bad_list++;
			if (shown++ < 5)
				CHECK(0, "%s: remove_partial of slab %#llx, not on the replayed list",
				      phase, (unsigned long long)e->slab);
			continue;
		}
		if (e->acquire) {
			rp->acquires++;
			rp->acquires_multi += *len >= 2;
			if (at != 0) {
				rp->bad_acquire++;
				if (shown++ < 5)
					CHECK(0, "%s: acquire_slab took slab %#llx at position %d of %d, "
					      "the head is %#llx", phase, (unsigned long long)e->slab, at,
					      *len, (unsigned long long)l[0]);
			}
		}
		memmove(l + at, l + at + 1, (size_t)(*len - at - 1) * sizeof(*l));
		(*len)--;
	}
	*full_total = 0;
	for (int i = 0; i < rp->nlocks; i++) {
		total += rp->len[i];
		*full_total += rp->nfull[i];
	}
	free(idx);
	return total;
}

static long replay_lists(struct replay *rp, struct rec *r, unsigned long n, const char *phase)
{
	long full;

	return replay_lists_full(rp, r, n, phase, &full);
}

/*
 * c) continued: the acquisitions of one get_partial_node() run under one
 * list_lock acquisition, by one thread.  Every slab but the last was taken
 * while the free objects gathered were at most cpu_partial / 2.
 */
static void replay_refills(struct replay *rp, const struct rec *r, unsigned long n,
			   unsigned cpu_partial, const char *phase)
{
	int shown = 0;

	for (unsigned long i = 0; i < n; i++) {
		if (r[i].type != SLUB_EV_FREEZE || r[i].site != SLUB_SITE_ACQUIRE_SLAB)
			continue;
		/* the lock acquisition: the remove_partial right after */
		unsigned long j = i + 1;
		while (j < n && r[j].tid != r[i].tid)
			j++;
		if (j == n || r[j].type != SLUB_EV_REMOVE_PARTIAL)
			continue;
		uint32_t lock = r[j].lock_id;
		uint64_t seq = r[j].lock_seq;
		unsigned available = 0, taken = 0;
		unsigned long k;
		for (k = i; k < n; k++) {
			if (r[k].tid != r[i].tid)
				continue;
			if (r[k].type == SLUB_EV_LOCK_RELEASE)
				break;
			if (r[k].type == SLUB_EV_REMOVE_PARTIAL &&
			    (r[k].lock_id != lock || r[k].lock_seq != seq))
				break;
			if (r[k].type != SLUB_EV_FREEZE || r[k].site != SLUB_SITE_ACQUIRE_SLAB)
				continue;
			if (taken && available > cpu_partial / 2) {
				rp->bad_refill++;
				if (shown++ < 5)
					CHECK(0, "%s: get_partial_node took slab %#llx with %u free objects "
					      "gathered already (> cpu_partial / 2 = %u)", phase,
					      (unsigned long long)r[k].slab, available, cpu_partial / 2);
			}
			available += r[k].old_objects - r[k].old_inuse;
			taken++;
		}
		rp->refills_multi += taken >= 2;
		if (k > i + 1)
			i = k - 1; /* go on after this run */
	}
}

/* b) deactivate_slab's destination, c) the cpu partial chains, d) counts. */
static void replay_cpu(struct replay *rp, const struct rec *r, unsigned long n, unsigned cpu_partial,
		       const char *phase)
{
	/* Per thread: the slab frozen by its last __slab_free, and whether a
	 * drain ran since (put_cpu_partial(drain = 1) follows that freeze). */
	struct {
		uint32_t tid;
		uint64_t frozen_slab;
		int drained;
	} pend[64];
	int npend = 0, shown = 0;

	memset(pend, 0, sizeof(pend));
	for (unsigned long i = 0; i < n; i++) {
		const struct rec *e = &r[i];
		int p;

		for (p = 0; p < npend && pend[p].tid != e->tid; p++)
			;
		if (p == npend && npend < 64) {
			pend[npend].tid = e->tid;
			npend++;
		}
		if (e->cpu < 0 || e->cpu >= MAX_CPUS)
			continue;
		struct chain_ent *ch = rp->chain[e->cpu];
		int *d = &rp->depth[e->cpu];

		switch (e->type) {
		case SLUB_EV_FREEZE:
			if (e->site == SLUB_SITE_SLAB_FREE && p < 64) {
				pend[p].frozen_slab = e->slab;
				pend[p].drained = 0;
			}
			break;
		case SLUB_EV_FREE_REMOTE:
			rp->free_frozen += e->old_frozen == 1;
			break;
		case SLUB_EV_UNFREEZE:
			if (e->site != SLUB_SITE_UNFREEZING_SLAB)
				break;
			rp->deact_remote += e->old_freelist != 0;
			if (e->list != SLUB_DEST_HEAD && e->list != SLUB_DEST_TAIL)
				break;
			/* No other thread acts meanwhile: the slab freelist seen by
			 * the unfreezing CAS is the one deactivate_slab() looked at. */
			if ((e->list == SLUB_DEST_TAIL) != (e->old_freelist != 0)) {
				rp->bad_deact++;
				if (shown++ < 5)
					CHECK(0, "%s: slab %#llx deactivated to the %s with slab freelist %#llx",
					      phase, (unsigned long long)e->slab, slub_dest_name(e->list),
					      (unsigned long long)e->old_freelist);
			}
			rp->deact_head += e->list == SLUB_DEST_HEAD;
			rp->deact_tail += e->list == SLUB_DEST_TAIL;
			break;
		case SLUB_EV_DEACTIVATE:
			rp->flush_deact += e->reason == SLUB_DEACT_FLUSH;
			break;
		case SLUB_EV_CPU_PARTIAL_PUT: {
			int by_free = p < 64 && pend[p].frozen_slab == e->slab;
			if (by_free) {
				rp->puts_by_free++;
				/* put_cpu_partial(drain = 1): a chain over the limit
				 * must have been drained first. */
				if (!pend[p].drained && *d > 0 && ch[*d - 1].count > cpu_partial) {
					rp->bad_nodrain++;
					if (shown++ < 5)
						CHECK(0, "%s: cpu %d pushed slab %#llx on a chain of %u free "
						      "objects (> cpu_partial %u) without draining it", phase,
						      e->cpu, (unsigned long long)e->slab, ch[*d - 1].count,
						      cpu_partial);
				}
				pend[p].frozen_slab = 0;
			}
			if (*d >= MAX_CHAIN)
				FATAL("chain deeper than %d", MAX_CHAIN);
			ch[*d].slab = e->slab;
			ch[*d].count = e->count;
			(*d)++;
			break;
		}
		case SLUB_EV_CPU_PARTIAL_TAKE:
			if (*d == 0 || ch[*d - 1].slab != e->slab) {
				rp->bad_chain++;
				if (shown++ < 5)
					CHECK(0, "%s: cpu %d took slab %#llx, the replayed chain head is %#llx",
					      phase, e->cpu, (unsigned long long)e->slab,
					      *d ? (unsigned long long)ch[*d - 1].slab : 0ull);
				*d = 0;
			} else {
				(*d)--;
			}
			break;
		case SLUB_EV_CPU_PARTIAL_DRAIN:
			if (e->reason == SLUB_DEACT_CPU_PARTIAL_LIMIT) {
				rp->drains_limit++;
				if (p < 64)
					pend[p].drained = 1;
				if (*d == 0 || ch[*d - 1].count <= cpu_partial) {
					rp->bad_drain++;
					if (shown++ < 5)
						CHECK(0, "%s: cpu %d drained its chain at %u free objects, "
						      "not above cpu_partial %u", phase, e->cpu,
						      *d ? ch[*d - 1].count : 0, cpu_partial);
				}
			}
			*d = 0;
			break;
		}
	}
}

static void replay_report(const struct replay *rp, const char *phase)
{
	printf("%s: %ld acquisitions (%ld from lists of 2+), add_partial head %ld tail %ld, "
	       "deactivate head %ld tail %ld, %ld puts by frees, %ld drains over the limit\n",
	       phase, rp->acquires, rp->acquires_multi, rp->adds_head, rp->adds_tail, rp->deact_head,
	       rp->deact_tail, rp->puts_by_free, rp->drains_limit);
	CHECK_EQ(rp->bad_list, 0);
	CHECK_EQ(rp->bad_acquire, 0);
	CHECK_EQ(rp->bad_deact, 0);
	CHECK_EQ(rp->bad_drain, 0);
	CHECK_EQ(rp->bad_nodrain, 0);
	CHECK_EQ(rp->bad_chain, 0);
	CHECK_EQ(rp->bad_refill, 0);
}

static void replay_free(struct replay *rp)
{
	for (int i = 0; i < rp->nlocks; i++) {
		free(rp->list[i]);
		free(rp->full[i]);
	}
	free(rp);
}

/* d) the counters that only these events explain. */
static void check_identities(const struct replay *rp, struct slub_cache *s, const char *phase)
{
	struct slub_stats st;

	CHECK_EQ(slub_cache_stats(s, &st), 0);
#if SLUB_STATS
	CHECK(rp->free_frozen == (long)st.item[SLUB_FREE_FROZEN],
	      "%s: free_remote on a frozen slab %ld, FREE_FROZEN %llu", phase, rp->free_frozen,
	      (unsigned long long)st.item[SLUB_FREE_FROZEN]);
	CHECK(rp->flush_deact == (long)st.item[SLUB_CPUSLAB_FLUSH],
	      "%s: deactivate(flush) %ld, CPUSLAB_FLUSH %llu", phase, rp->flush_deact,
	      (unsigned long long)st.item[SLUB_CPUSLAB_FLUSH]);
	CHECK(rp->deact_remote == (long)st.item[SLUB_DEACTIVATE_REMOTE_FREES],
	      "%s: unfreezing with a slab freelist %ld, DEACTIVATE_REMOTE_FREES %llu", phase,
	      rp->deact_remote, (unsigned long long)st.item[SLUB_DEACTIVATE_REMOTE_FREES]);
	CHECK(rp->deact_tail == (long)st.item[SLUB_DEACTIVATE_TO_TAIL],
	      "%s: deactivate to the tail %ld, DEACTIVATE_TO_TAIL %llu", phase, rp->deact_tail,
	      (unsigned long long)st.item[SLUB_DEACTIVATE_TO_TAIL]);
	CHECK(rp->deact_head == (long)st.item[SLUB_DEACTIVATE_TO_HEAD],
	      "%s: deactivate to the head %ld, DEACTIVATE_TO_HEAD %llu", phase, rp->deact_head,
	      (unsigned long long)st.item[SLUB_DEACTIVATE_TO_HEAD]);
	CHECK(rp->add_partial == (long)(st.item[SLUB_DEACTIVATE_TO_HEAD] +
					st.item[SLUB_DEACTIVATE_TO_TAIL] +
					st.item[SLUB_FREE_ADD_PARTIAL]),
	      "%s: add_partial %ld, DEACTIVATE_TO_HEAD + DEACTIVATE_TO_TAIL + FREE_ADD_PARTIAL %llu",
	      phase, rp->add_partial,
	      (unsigned long long)(st.item[SLUB_DEACTIVATE_TO_HEAD] + st.item[SLUB_DEACTIVATE_TO_TAIL] +
				   st.item[SLUB_FREE_ADD_PARTIAL]));
	CHECK(rp->remove_partial == (long)(st.item[SLUB_ALLOC_FROM_PARTIAL] +
					   st.item[SLUB_CPU_PARTIAL_NODE] +
					   st.item[SLUB_FREE_REMOVE_PARTIAL]),
	      "%s: remove_partial %ld, ALLOC_FROM_PARTIAL + CPU_PARTIAL_NODE + FREE_REMOVE_PARTIAL %llu",
	      phase, rp->remove_partial,
	      (unsigned long long)(st.item[SLUB_ALLOC_FROM_PARTIAL] + st.item[SLUB_CPU_PARTIAL_NODE] +
				   st.item[SLUB_FREE_REMOVE_PARTIAL]));
#else
	(void)rp;
	(void)phase;
#endif
}

/* ---- the scenarios ---- */

static void record_start(void)
{
	rlen = 0;
	__atomic_store_n(&thread_flushes, 0, __ATOMIC_RELAXED);
	flushes_done = 0;
}

static void main_flush(void)
{
	slub_thread_flush();
	flushes_done += touched;
}

static unsigned long record_stop(const char *phase)
{
	unsigned long n = __atomic_load_n(&rlen, __ATOMIC_ACQUIRE);

	if (!CHECK(n <= RCAP, "%s: %lu events overflowed the buffer of %lu", phase, n, RCAP))
		n = RCAP;
	return n;
}

/*
 * The placement workload: random turns of the two threads over one cache
 * (allocations, local and remote frees, flushes, helper restarts), then
 * a directed run that grows one cpu partial chain one free object at a
 * time past cpu_partial.
 */
static void placement(void)
{
	const char *phase = "placement";
	uint64_t rng = test_seed((uint64_t)seed, 14);
	int slot;
	struct slub_stats st;

	cur = watch_cache("place-64", 64, 0, &slot);
	const struct slub_cache_info *info = &watch_info[slot];
	npool = 0;
	record_start();
	helper.rng = test_seed((uint64_t)seed, 15);
	helper_start();
	for (long i = 0; i < rounds; i++) {
		uint64_t r = test_rand(&rng);
		unsigned op = r % 100;
		long k = 1 + (long)((r >> 8) % (2 * info->objects));

		if (npool > POOL_CAP - 2 * (int)info->objects)
			op = 50; /* make room */
		if (op < 28)
			do_alloc(k);
		else if (op < 38)
			helper_do(OP_ALLOC, k);
		else if (op < 52)
			do_free(k, &rng);
		else if (op < 80)
			helper_do(OP_FREE, k);
		else if (op < 84)
			helper_do(OP_FREE_EACH, 2 + (long)((r >> 20) % 7));
		else if (op < 92)
			main_flush();
		else if (op < 97)
			helper_do(OP_FLUSH, 0);
		else {
			/* An exit flushes (and says so) only what the thread
			 * still holds: after an explicit flush with nothing
			 * held since, there is no second thread_flush.  One
			 * allocation first, so that every exit here flushes. */
			helper_do(OP_ALLOC, 1);
			helper_do(OP_EXIT, 0);
			helper_start();
		}
	}
	/* Directed: cpu_partial + 3 full slabs of the main thread each get one
	 * remote free; the helper's chain grows by one free object per slab. */
	helper_do(OP_FREE, npool);
	helper_do(OP_FLUSH, 0);
	main_flush();
	do_alloc((long)(info->cpu_partial + 4) * info->objects);
	helper_do(OP_FREE_EACH, info->objects);
	CHECK_EQ(slub_cache_stats(cur, &st), 0);
	unsigned long n = record_stop(phase);

	struct replay *rp = calloc(1, sizeof(*rp));
	long listed = replay_lists(rp, rbuf, n, phase);
	replay_cpu(rp, rbuf, n, info->cpu_partial, phase);
	replay_refills(rp, rbuf, n, info->cpu_partial, phase);
	replay_report(rp, phase);
	check_identities(rp, cur, phase);
	CHECK(thread_flushes == flushes_done, "%s: %lu thread_flush events for %lu flushes and exits",
	      phase, thread_flushes, flushes_done);
	CHECK(listed == (long)st.partial_slabs, "%s: replayed lists hold %ld slabs, census %llu",
	      phase, listed, (unsigned long long)st.partial_slabs);
	/* The workload must have exercised what is checked. */
	CHECK(rp->acquires_multi >= 10, "%s: only %ld acquisitions from lists of two or more", phase,
	      rp->acquires_multi);
	CHECK(rp->adds_head > 0 && rp->adds_tail > 0, "%s: add_partial head %ld tail %ld", phase,
	      rp->adds_head, rp->adds_tail);
	CHECK(rp->deact_head > 0 && rp->deact_tail > 0, "%s: deactivate head %ld tail %ld", phase,
	      rp->deact_head, rp->deact_tail);
	CHECK(rp->drains_limit > 0, "%s: no chain passed cpu_partial %u", phase, info->cpu_partial);
	CHECK(rp->refills_multi > 0, "%s: no get_partial_node took two slabs or more", phase);
	CHECK(rp->free_frozen > 0 && rp->flush_deact > 0 && rp->deact_remote > 0,
	      "%s: free_frozen %ld, flush deactivations %ld, remote-free deactivations %ld", phase,
	      rp->free_frozen, rp->flush_deact, rp->deact_remote);
	replay_free(rp);

	helper_do(OP_FREE, npool);
	helper_do(OP_EXIT, 0);
	CHECK_EQ(npool, 0);
	CHECK_EQ(slub_validate(cur), 0);
	CHECK_EQ(slub_cache_destroy(cur), 0);
}

/*
 * e) min_partial in __slab_free: the main thread fills `nslabs` slabs of a
 * cache without cpu partial chains; the helper frees every object in
 * allocation order, so the slabs empty one after the other.  Each first
 * free lists its (full) slab; each last free discards it when the node
 * already has min_partial partial slabs counting itself.  The last slab is
 * still the main thread's cpu slab (frozen: no list work).
 */
static void min_partial(void)
{
	const char *phase = "min_partial";
	int slot;
	struct slub_stats st;

	cur = watch_cache("place-nocpu", 64, SLUB_F_NO_CPU_PARTIAL, &slot);
	const struct slub_cache_info *info = &watch_info[slot];
	long nslabs = info->min_partial + 5;

	npool = 0;
	record_start();
	helper_start();
	do_alloc(nslabs * info->objects);
	helper_do(OP_FREE_EACH, 1);
	CHECK_EQ(slub_cache_stats(cur, &st), 0);
	unsigned long n = record_stop(phase);

	struct replay *rp = calloc(1, sizeof(*rp));
	long listed = replay_lists(rp, rbuf, n, phase);
	replay_cpu(rp, rbuf, n, info->cpu_partial, phase);
	check_identities(rp, cur, phase);
	long discards = 0;
	for (unsigned long i = 0; i < n; i++)
		discards += rbuf[i].type == SLUB_EV_SLAB_DISCARD;
	printf("%s: min_partial %u, %ld slabs emptied by remote frees: %llu kept on the partial "
	       "list, %ld discarded\n", phase, info->min_partial, nslabs - 1,
	       (unsigned long long)st.partial_slabs, discards);
	CHECK(st.partial_slabs == info->min_partial - 1,
	      "%s: %llu empty slabs kept, want min_partial - 1 = %u", phase,
	      (unsigned long long)st.partial_slabs, info->min_partial - 1);
	CHECK_EQ(listed, (long)st.partial_slabs);
	CHECK_EQ(discards, nslabs - 1 - (long)(info->min_partial - 1));
	CHECK_EQ(st.cpu_slabs, 1);
	replay_free(rp);

	helper_do(OP_EXIT, 0);
	CHECK_EQ(slub_validate(cur), 0);
	CHECK_EQ(slub_cache_destroy(cur), 0);
}

static long count_type(const struct rec *r, unsigned long n, uint32_t type, uint32_t site)
{
	long k = 0;

	for (unsigned long i = 0; i < n; i++)
		k += r[i].type == type && (site == SLUB_SITE_NR || r[i].site == site);
	return k;
}

/*
 * e) continued, with cpu partial chains: the main thread fills `nslabs`
 * slabs; the helper frees one object of each but the last (its chain gets
 * nslabs - 1 slabs, under the drain limit); the main thread frees the rest,
 * emptying the frozen slabs and its own cpu slab.  The helper's flush
 * unfreezes the chain: the first min_partial empty slabs are listed, the
 * others discarded.  The main thread's flush then discards its empty cpu
 * slab, the node holding min_partial already.
 */
static void min_partial_flush(void)
{
	const char *phase = "min_partial_flush";
	int slot;
	struct slub_stats st;

	cur = watch_cache("place-flush", 64, 0, &slot);
	const struct slub_cache_info *info = &watch_info[slot];
	long nslabs = info->min_partial + 5;

	if (!CHECK(nslabs - 1 <= (long)info->cpu_partial, "%s: %ld slabs would drain the chain",
		   phase, nslabs - 1))
		return;
	npool = 0;
	record_start();
	helper_start();
	do_alloc(nslabs * info->objects);
	/* The first object of every slab but the last (the cpu slab). */
	int kept = 0;
	static void *rest[POOL_CAP];
	for (int i = 0; i < npool; i++) {
		if (i % info->objects == 0 && i / info->objects < nslabs - 1)
			pool[kept++] = pool[i];
		else
			rest[i - kept] = pool[i];
	}
	int nrest = npool - kept;
	npool = kept;
	helper_do(OP_FREE_EACH, 1);
	for (int i = 0; i < nrest; i++)
		slub_cache_free(cur, rest[i]);
	helper_do(OP_FLUSH, 0);
	CHECK_EQ(slub_cache_stats(cur, &st), 0);
	CHECK(st.partial_slabs == info->min_partial,
	      "%s: flushing a chain of %ld empty slabs kept %llu, want min_partial %u", phase,
	      nslabs - 1, (unsigned long long)st.partial_slabs, info->min_partial);
	CHECK_EQ(st.slabs, info->min_partial + 1);
	slub_thread_flush();
	CHECK_EQ(slub_cache_stats(cur, &st), 0);
	CHECK(st.partial_slabs == info->min_partial && st.slabs == info->min_partial,
	      "%s: after deactivating the empty cpu slab %llu slabs, %llu listed, want %u", phase,
	      (unsigned long long)st.slabs, (unsigned long long)st.partial_slabs, info->min_partial);
	unsigned long n = record_stop(phase);

	struct replay *rp = calloc(1, sizeof(*rp));
	long listed = replay_lists(rp, rbuf, n, phase);
	replay_cpu(rp, rbuf, n, info->cpu_partial, phase);
	check_identities(rp, cur, phase);
	CHECK_EQ(listed, (long)info->min_partial);
	CHECK_EQ(count_type(rbuf, n, SLUB_EV_SLAB_DISCARD, SLUB_SITE_NR),
		 nslabs - (long)info->min_partial);
	CHECK_EQ(count_type(rbuf, n, SLUB_EV_FREE_REMOTE, SLUB_SITE_SLAB_FREE),
		 (nslabs - 1) * ((long)info->objects - 1));
	printf("%s: min_partial %u: chain of %ld empty slabs flushed, %llu kept, %ld discarded\n",
	       phase, info->min_partial, nslabs - 1, (unsigned long long)st.partial_slabs,
	       count_type(rbuf, n, SLUB_EV_SLAB_DISCARD, SLUB_SITE_NR));
	replay_free(rp);

	helper_do(OP_EXIT, 0);
	CHECK_EQ(slub_validate(cur), 0);
	CHECK_EQ(slub_cache_destroy(cur), 0);
}

/*
 * The full list of a tracked cache: full slabs are listed (add_full) when
 * get_freelist finds them empty, and move to the partial list at their
 * first free (remove_full, add_partial).  The replayed lists equal the
 * census, and a slab is never on both.
 */
static void full_lists(void)
{
	const char *phase = "full_lists";
	int slot;
	struct slub_stats st;

	cur = watch_cache("place-full", 64, SLUB_F_TRACK_FULL | SLUB_F_NO_CPU_PARTIAL, &slot);
	const struct slub_cache_info *info = &watch_info[slot];
	long nslabs = 6;

	npool = 0;
	record_start();
	helper_start();
	do_alloc(nslabs * info->objects + 1); /* nslabs full slabs, one more started */
	helper_do(OP_FREE_EACH, 2 * info->objects); /* one free in every other slab */
	CHECK_EQ(slub_cache_stats(cur, &st), 0);
	unsigned long n = record_stop(phase);

	struct replay *rp = calloc(1, sizeof(*rp));
	long full, listed = replay_lists_full(rp, rbuf, n, phase, &full);
	replay_cpu(rp, rbuf, n, info->cpu_partial, phase);
	check_identities(rp, cur, phase);
	printf("%s: %ld full slabs, every other one freed into: %ld full, %ld partial\n", phase,
	       nslabs, full, listed);
	CHECK_EQ(rp->bad_list, 0);
	CHECK_EQ(full, nslabs / 2);
	CHECK_EQ(listed, nslabs / 2);
	CHECK_EQ(full, (long)st.full_slabs);
	CHECK_EQ(listed, (long)st.partial_slabs);
	CHECK_EQ(count_type(rbuf, n, SLUB_EV_ADD_FULL, SLUB_SITE_NR), nslabs);
	CHECK_EQ(count_type(rbuf, n, SLUB_EV_REMOVE_FULL, SLUB_SITE_NR), nslabs / 2);
	replay_free(rp);

	helper_do(OP_FREE, npool);
	helper_do(OP_EXIT, 0);
	CHECK_EQ(slub_validate(cur), 0);
	CHECK_EQ(slub_cache_destroy(cur), 0);
}

/* cache_destroy says how many objects it found in use (the cache is kept). */
static void destroy_live(void)
{
	int slot;
	struct slub_cache *s = watch_cache("place-live", 64, 0, &slot);

	for (int i = 0; i < 3; i++)
		CHECK(slub_cache_alloc(s) != NULL, "alloc: errno %d", errno);
	destroy_count = -1;
	CHECK_EQ(slub_cache_destroy(s), 3);
	CHECK_EQ(destroy_count, 3);
}

int main(int argc, char **argv)
{
	const struct test_opt opts[] = {
		{ 'r', &rounds, "random turns (default 3000)" },
		{ 's', &seed, "seed (default 1)" },
	};

	test_parse_opts(argc, argv, opts, 2);
	rbuf = calloc(RCAP, sizeof(*rbuf));
	if (!rbuf)
		FATAL("calloc event buffer");
	slub_set_observer(observe, NULL, 0);
	placement();
	min_partial();
	min_partial_flush();
	full_lists();
	destroy_live();
	slub_set_observer(NULL, NULL, 0);
	free(rbuf);
	CHECK_EQ(slub_error_count(), 0);
	return test_summary("test_placement");
}
