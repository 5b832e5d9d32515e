/* SPDX-License-Identifier: MIT */
/*
 * The per-thread "cpu": its slot per cache, the allocation fast path, the
 * slow path ___slab_alloc (get_freelist, cpu partial, get_partial,
 * new_slab), deactivate_slab, flushes, thread exit and fork adoption.
 *
 * Fast paths (alloc from / free to the thread's own cpu slab) take no lock
 * and no atomic instruction: the slot belongs to one thread, as a kernel
 * cpu's kmem_cache_cpu belongs to that cpu with preemption off.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "fastpath.h"

#include <errno.h>
#include <pthread.h>
#include <sys/prctl.h>

__thread struct slub_thread *slub_self __attribute__((tls_model("initial-exec")));
/* Set by the exit flush: this thread no longer gets a cpu slot of its own. */
static __thread int slub_exited __attribute__((tls_model("initial-exec")));

static uint32_t threads_lock;
static struct slub_thread *threads_all;   /* append-only, never freed */
static struct slub_thread *threads_free;  /* exited, ready for reuse */
static int32_t next_thread_id;
static pthread_key_t thread_key;
static int thread_key_ok;

SLUB_INTERNAL void slub_meta_free(void *p, size_t size);

struct slub_thread *slub_threads_head(void)
{
	return __atomic_load_n(&threads_all, __ATOMIC_ACQUIRE);
}

static void threads_lock_take(void)
{
	witness_acquire(RANK_THREADS);
	slub_futex_lock(&threads_lock);
}

static void threads_lock_drop(void)
{
	slub_futex_unlock(&threads_lock);
	witness_release(RANK_THREADS);
}

static void flush_lock_take(struct slub_thread *t)
{
	witness_acquire(RANK_FLUSH);
	slub_futex_lock(&t->flush_lock);
}

static void flush_lock_drop(struct slub_thread *t)
{
	slub_futex_unlock(&t->flush_lock);
	witness_release(RANK_FLUSH);
}

static void thread_exit(void *arg);

SLUB_INTERNAL void slub_threads_init(void);
void slub_threads_init(void)
{
	if (!thread_key_ok && pthread_key_create(&thread_key, thread_exit) == 0)
		thread_key_ok = 1;
}

/*
 * LTTng-UST's own threads (listener threads, named "<process>-ust") live as
 * long as the process, allocate rarely, and would otherwise hold a cpu slot
 * with frozen slabs that every fork()ed child has to adopt, even one that
 * only execs.  They use the shared orphan slot instead.
 */
static bool tracer_thread(void)
{
	char name[17] = "";
	size_t n;

	if (prctl(PR_GET_NAME, name, 0, 0, 0))
		return false;
	n = strlen(name);
	return n > 4 && !strcmp(name + n - 4, "-ust");
}

struct slub_thread *slub_thread_slow(void)
{
	struct slub_thread *t;

	slub_init();
	if (slub_self)
		return slub_self;
	if (slub_exited)
		return NULL; /* after the exit flush: the orphan slot serves it */
	if (tracer_thread()) {
		slub_exited = 1; /* the orphan slot serves it, as an exited thread */
		return NULL;
	}
	threads_lock_take();
	t = threads_free;
	if (t) {
		threads_free = t->next_free;
		t->next_free = NULL;
	}
	threads_lock_drop();
	if (!t) {
		t = slub_meta_alloc(sizeof(*t));
		if (!t) {
			/* Out of memory for metadata: nothing can be allocated. */
			slub_assert_fail("thread metadata allocation failed", __FILE__, __LINE__);
		}
		threads_lock_take();
		t->id = next_thread_id++;
		t->next_all = threads_all;
		__atomic_store_n(&threads_all, t, __ATOMIC_RELEASE);
		threads_lock_drop();
	}
	t->tid = slub_os_tid();
	t->node = t->id % (slub_nodes > 0 ? slub_nodes : 1);
	t->nr_held = 0;
	t->flushed = 0;
	for (int i = 0; i < SLUB_MAX_CACHES; i++) {
		struct slub_cpu *c = t->cpu[i];
		if (c)
			c->node = t->node;
	}
	__atomic_store_n(&t->live, 1, __ATOMIC_RELEASE);
	slub_self = t;
	if (thread_key_ok)
		pthread_setspecific(thread_key, t);
	return t;
}

struct slub_cpu *slub_cpu_slow(struct slub_cache *s, struct slub_thread *t)
{
	struct slub_cpu *c = slub_meta_alloc(sizeof(*c));

	if (!c)
		slub_assert_fail("cpu slot allocation failed", __FILE__, __LINE__);
	c->cache = s;
	c->id = t->id;
	c->node = t->node;
	__atomic_store_n(&t->cpu[s->id], c, __ATOMIC_RELEASE);
	return c;
}

/* ---- statistics ---- */

static void stats_add(struct slub_cpu_stats *dst, const struct slub_cpu_stats *src)
{
	const uint64_t *a = (const uint64_t *)src;
	uint64_t *d = (uint64_t *)dst;

	for (size_t i = 0; i < sizeof(*src) / sizeof(uint64_t); i++)
		d[i] += __atomic_load_n(&a[i], __ATOMIC_RELAXED);
}

void slub_fold_stats(struct slub_cache *s, struct slub_cpu *c)
{
	witness_acquire(RANK_STATS);
	slub_futex_lock(&s->stats_lock);
	stats_add(&s->dead, &c->stats);
	uint64_t *p = (uint64_t *)&c->stats;
	for (size_t i = 0; i < sizeof(c->stats) / sizeof(uint64_t); i++)
		__atomic_store_n(&p[i], 0, __ATOMIC_RELAXED);
	slub_futex_unlock(&s->stats_lock);
	witness_release(RANK_STATS);
}

void slub_sum_stats(const struct slub_cache *cs, struct slub_cpu_stats *out)
{
	struct slub_cache *s = (struct slub_cache *)cs;

	memset(out, 0, sizeof(*out));
	witness_acquire(RANK_STATS);
	slub_futex_lock(&s->stats_lock);
	stats_add(out, &s->dead);
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		struct slub_cpu *c = __atomic_load_n(&t->cpu[s->id], __ATOMIC_ACQUIRE);
		if (c && c->cache == s)
			stats_add(out, &c->stats);
	}
	slub_futex_unlock(&s->stats_lock);
	witness_release(RANK_STATS);
}

/* ---- events of the cpu slot ---- */

static void emit_cpu(unsigned type, struct slub_cache *s, struct slub_cpu *c, struct slab *slab,
		     int reason, int dest, unsigned count)
{
	struct slub_event ev;
	struct slab_word w = slab_word_read(slab);

	ev_init(&ev, type, s, c, slab);
	ev.slot = c->id;
	ev.reason = (uint32_t)reason;
	ev.list = (uint32_t)dest;
	ev.count = count;
	ev_word(&ev.old, &w, word_owner_unknown(&w));
	ev.new = ev.old;
	slub_emit(&ev);
}

static void load_cpu_slab(struct slub_cache *s, struct slub_cpu *c, struct slab *slab)
{
	c->slab = slab;
	if (slub_wants(SLUB_EV_CPU_SLAB_LOAD))
		emit_cpu(SLUB_EV_CPU_SLAB_LOAD, s, c, slab, 0, SLUB_DEST_NONE, 0);
}

/*
 * get_freelist() (Linux 6.1): the owner takes the slab's whole freelist (objects freed
 * remotely since it became the cpu slab).  An empty freelist unfreezes the
 * slab: it is full and leaves the cpu (on the full list when tracked, with
 * list_lock taken before the CAS so a racing free finds it listed).
 *
 * The slot lets go of the slab (c->slab = NULL) before the unfreezing CAS,
 * not after: once unfrozen, any free may freeze the slab onto another
 * slot's partial chain, and a fork() cutting between the CAS and the store
 * would leave a child with two slots owning it.  A slot's c->slab is thus
 * frozen for that slot whenever a snapshot of the process shows it (the
 * adoption below relies on it).  A lost CAS gives the slab back.
 */
static void *get_freelist(struct slub_cache *s, struct slab *slab, struct slub_cpu *c)
{
	struct slab_word old, new;
	struct slub_node *n = NULL;
	unsigned attempt = 0;

	for (;;) {
		old = slab_word_read(slab);
		slub_assert(old.c.frozen);
		new = old;
		new.freelist = NULL;
		new.c.inuse = old.c.objects;
		new.c.frozen = old.freelist != NULL;
		if (!new.c.frozen && kmem_cache_track_full(s) && !n) {
			n = get_node(s, slab->node);
			list_lock(s, n, c);
		}
		if (!new.c.frozen) {
			c->slab = NULL;
			barrier(); /* a fork snapshot never sees the CAS with c->slab set */
			if (!n)
				fork_point(SLUB_FP_GET_FREELIST_UNFREEZE);
		}
		if (slab_update(s, slab, &old, &new, SLUB_SITE_GET_FREELIST, n != NULL, c, &attempt))
			break;
		c->slab = slab;
		if (n) {
			list_unlock(s, n, c);
			n = NULL;
		}
	}
	if (new.c.frozen) {
		emit_word(SLUB_EV_TAKE_FREELIST, s, c, slab, &old, &new, SLUB_SITE_GET_FREELIST,
			  n != NULL, c->id, c->id, SLUB_DEST_NONE);
		fork_point(SLUB_FP_GET_FREELIST_TAKEN);
	} else {
		slab_owner_clear(slab, c->id);
		emit_word(SLUB_EV_UNFREEZE, s, c, slab, &old, &new, SLUB_SITE_GET_FREELIST,
			  n != NULL, c->id, -1, SLUB_DEST_FULL);
		if (n) {
			add_full(s, n, slab, c);
			list_unlock(s, n, c);
		}
		fork_point(SLUB_FP_GET_FREELIST_UNFROZEN);
	}
	return old.freelist;
}

static unsigned long lost_unfreeze_tick, early_discard_tick;

/*
 * deactivate_slab() (Linux 6.1): the cpu gives up its slab.  The cpu
 * freelist is spliced onto the slab freelist and the slab unfrozen in one
 * CAS ("unfreezing slab"), as since 5.12; the SLUB_VAR_PEROBJ_DEACTIVATE
 * variant first drains it one object per CAS ("drain percpu freelist") as
 * kernels 3.1 to 5.11 did.  The slab then goes to the node partial list (head, or
 * tail when remote frees refilled it), the full list, or is discarded.
 *
 * DEACTIVATE_REMOTE_FREES counts a deactivation whose first CAS replaced a
 * word with a slab freelist: the kernel counts by its first read of
 * slab->freelist, which a remote free may follow before the CAS.  Counted
 * from the word the CAS replaced, the figure is the one the trace shows
 * (slubtrace stats rebuilds it exactly); head or tail is still chosen by
 * the first read, as in Linux 6.1.
 */
void deactivate_slab(struct slub_cache *s, struct slab *slab, void *freelist, struct slub_cpu *c,
		     int reason)
{
	struct slub_node *n = get_node(s, slab->node);
	int tail = SLUB_DEST_HEAD;
	int mode, owner = c->id;
	unsigned attempt = 0, free_delta = 0, cpu_objects = 0;
	void *freelist_tail = NULL;
	struct slab_word old, new;
	bool locked, remote = false, updated = false;

	fork_point(SLUB_FP_DEACTIVATE);
	if (slab_word_read(slab).freelist)
		tail = SLUB_DEST_TAIL;

	if (variant(SLUB_VAR_PEROBJ_DEACTIVATE)) {
		void *nextfree;
		while (freelist && (nextfree = get_freepointer(s, freelist))) {
			do {
				old = slab_word_read(slab);
				set_freepointer(s, freelist, old.freelist);
				new = old;
				new.c.inuse--;
				new.freelist = freelist;
			} while (!slab_update(s, slab, &old, &new, SLUB_SITE_DRAIN_PERCPU, 0, c,
					      &attempt));
			if (!updated)
				remote = old.freelist != NULL;
			updated = true;
			emit_word(SLUB_EV_DRAIN_FREELIST, s, c, slab, &old, &new,
				  SLUB_SITE_DRAIN_PERCPU, 0, owner, owner, SLUB_DEST_NONE);
			cpu_objects++;
			freelist = nextfree;
		}
	}

	/* Stage one: count the cpu freelist and find its tail. */
	for (void *p = freelist; p; p = get_freepointer(s, p)) {
		if (unlikely(free_delta == s->objects)) {
			/* more objects than a slab holds: the chain loops (an
			 * object freed twice onto it); cut it, reported, rather
			 * than walk it for ever */
			slub_report(s, slab, p, SLUB_ERR_FREEPOINTER,
				    "cpu freelist longer than the slab (%u objects): a loop",
				    s->objects);
			set_freepointer(s, freelist_tail, NULL);
			break;
		}
		if (unlikely(!slub_check_freelist_ptr(s, slab, get_freepointer(s, p)))) {
			/* written after free: cut the chain here (reported) */
			slub_freepointer_check(s, slab, p, get_freepointer(s, p));
			set_freepointer(s, p, NULL);
		}
		freelist_tail = p;
		free_delta++;
	}
	cpu_objects += free_delta;

	/* Stage two: unfreeze while splicing the cpu freelist on. */
	for (;;) {
		old = slab_word_read(slab);
		slub_assert(old.c.frozen);
		new = old;
		new.c.frozen = 0;
		if (freelist_tail) {
			new.c.inuse -= free_delta;
			set_freepointer(s, freelist_tail, old.freelist);
			new.freelist = freelist;
		}
		locked = false;
		if (!new.c.inuse && READ_ONCE(n->nr_partial) >= s->min_partial) {
			mode = SLUB_DEST_DISCARD;
		} else if (new.freelist) {
			mode = tail;
			/* Taking the lock first keeps acquire_slab() from
			 * seeing a partial slab that is still frozen. */
			list_lock(s, n, c);
			locked = true;
		} else {
			mode = SLUB_DEST_FULL;
			if (kmem_cache_track_full(s)) {
				list_lock(s, n, c);
				locked = true;
			}
		}
		if (slab_update(s, slab, &old, &new, SLUB_SITE_UNFREEZING_SLAB, locked, c, &attempt))
			break;
		if (locked)
			list_unlock(s, n, c);
	}
	if (updated ? remote : old.freelist != NULL)
		stat(c, SLUB_DEACTIVATE_REMOTE_FREES);
	slab_owner_clear(slab, owner);
	emit_word(SLUB_EV_UNFREEZE, s, c, slab, &old, &new, SLUB_SITE_UNFREEZING_SLAB, locked, owner,
		  -1, mode);
	if (!(reason & SLUB_DEACT_NOT_ACTIVE) && slub_wants(SLUB_EV_DEACTIVATE))
		emit_cpu(SLUB_EV_DEACTIVATE, s, c, slab, reason, mode, cpu_objects);
	if (!locked)
		fork_point(SLUB_FP_DEACTIVATE_UNFROZEN);

	switch (mode) {
	case SLUB_DEST_HEAD:
	case SLUB_DEST_TAIL:
		if (variant(SLUB_INJ_UNLOCKED_LIST)) {
			/* Injected: the list operation runs after the lock was
			 * dropped as far as the trace can tell; the lock itself
			 * is released after it, so that this process stays
			 * sound.  Dropped for real, it let a concurrent
			 * __slab_free() empty and discard the slab, unfrozen
			 * with free objects on no list, before add_partial()
			 * listed it (ThreadSanitizer saw add_partial() write
			 * the next pointer of a slab another thread had taken
			 * anew). */
			list_unlock_traced(s, n, c);
			add_partial(s, n, slab, mode, c);
			slub_futex_unlock(&n->list_lock);
			witness_release(RANK_LIST);
		} else if (variant(SLUB_INJ_LOST_UNFREEZE) && inject_now(&lost_unfreeze_tick, 16)) {
			/* Injected: unfrozen with free objects, put on no list:
			 * leaked (__slab_free() copes when it empties). */
			list_unlock(s, n, c);
		} else {
			add_partial(s, n, slab, mode, c);
			list_unlock(s, n, c);
		}
		stat(c, mode == SLUB_DEST_TAIL ? SLUB_DEACTIVATE_TO_TAIL : SLUB_DEACTIVATE_TO_HEAD);
		break;
	case SLUB_DEST_DISCARD:
		stat(c, SLUB_DEACTIVATE_EMPTY);
		discard_slab(s, slab, c);
		break;
	default:
		if (locked) {
			add_full(s, n, slab, c);
			list_unlock(s, n, c);
		}
		stat(c, SLUB_DEACTIVATE_FULL);
		if (variant(SLUB_INJ_EARLY_DISCARD) && new.c.inuse &&
		    inject_now(&early_discard_tick, 32))
			discard_slab_early(s, slab, c);
		break;
	}
}

/* Pop the first slab of c's partial chain (CAS: a flusher may race). */
static struct slab *cpu_partial_pop(struct slub_cache *s, struct slub_cpu *c)
{
	struct slab *slab = __atomic_load_n(&c->partial, __ATOMIC_ACQUIRE);
	unsigned attempt = 0;

	while (slab) {
		struct slab *next = READ_ONCE(slab->next);
		if (__atomic_compare_exchange_n(&c->partial, &slab, next, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
		cpu_cmpxchg_failed(s, c, slab, SLUB_SITE_CPU_PARTIAL_TAKE, ++attempt);
	}
	return slab;
}

/*
 * ___slab_alloc() (Linux 6.1): the slow path.  Refill from the cpu slab's
 * freelist, else the next cpu partial slab, else a node partial slab, else
 * a new slab.  Debug caches hand out one object and deactivate the slab
 * again (6.1 and earlier; 6.2 serves them without a cpu slab), so every
 * allocation and free of theirs passes the checks.
 */
static void *____slab_alloc(struct slub_cache *s, int node, struct slub_cpu *c);

/* Counted when an object comes out, so allocs - frees stays the number of
 * objects in use even when the page layer fails. */
void *___slab_alloc(struct slub_cache *s, int node, struct slub_cpu *c)
{
	adopt_forked_slots();
	/* The sheaves generation keeps no cpu freelist: every allocation
	 * comes here and the classic fast path stays as it was. */
	if (s->sheaf_capacity)
		return sheaves_alloc(s, node, c);
	void *object = ____slab_alloc(s, node, c);

	if (likely(object))
		stat(c, SLUB_ALLOC_SLOWPATH);
	return object;
}

static void *____slab_alloc(struct slub_cache *s, int node, struct slub_cpu *c)
{
	void *freelist;
	struct slab *slab;

	if (unlikely(c->freelist)) {
		/* Only a node mismatch brings us here with objects left. */
		slub_assert(c->slab && node >= 0 && c->slab->node != node);
	}
reread:
	slab = c->slab;
	if (!slab)
		goto new_slab;
	if (node >= 0 && slab->node != node) {
		stat(c, SLUB_ALLOC_NODE_MISMATCH);
		void *fl = c->freelist;
		c->slab = NULL;
		c->freelist = NULL;
		deactivate_slab(s, slab, fl, c, SLUB_DEACT_NODE_MISMATCH);
		goto new_slab;
	}
	freelist = get_freelist(s, slab, c);
	if (!freelist) {
		/* get_freelist() unfroze the full slab: the cpu drops it. */
		c->slab = NULL;
		stat(c, SLUB_DEACTIVATE_BYPASS);
		if (slub_wants(SLUB_EV_DEACTIVATE))
			emit_cpu(SLUB_EV_DEACTIVATE, s, c, slab, SLUB_DEACT_EMPTY_FREELIST,
				 SLUB_DEST_FULL, 0);
		if (variant(SLUB_INJ_EARLY_DISCARD) && inject_now(&early_discard_tick, 32))
			discard_slab_early(s, slab, c);
		goto new_slab;
	}
	stat(c, SLUB_ALLOC_REFILL);
load_freelist:
	if (unlikely(!slub_check_freelist_ptr(s, slab, get_freepointer(s, freelist)))) {
		slub_report(s, slab, freelist, SLUB_ERR_FREEPOINTER,
			    "next free pointer 0x%lx is outside the slab",
			    (unsigned long)(uintptr_t)get_freepointer(s, freelist));
		c->freelist = NULL; /* the rest of the chain is leaked */
		return freelist;
	}
	c->freelist = get_freepointer(s, freelist);
	if (variant(SLUB_VAR_PREFETCH_FREELIST) && c->freelist) {
		/* a prefetch leaves no trace of its own: the count is what shows
		 * the variant ran, beside the instruction prefetch.sh finds */
		prefetch_freepointer(s, c->freelist);
		stat(c, SLUB_ALLOC_PREFETCH);
	}
	return freelist;

new_slab:
	if (READ_ONCE(c->partial) && node < 0) {
		slab = cpu_partial_pop(s, c);
		if (slab) {
			fork_point(SLUB_FP_CPU_PARTIAL_POPPED);
			stat(c, SLUB_CPU_PARTIAL_ALLOC);
			if (slub_wants(SLUB_EV_CPU_PARTIAL_TAKE))
				emit_cpu(SLUB_EV_CPU_PARTIAL_TAKE, s, c, slab, 0, SLUB_DEST_NONE, 0);
			slab->next = NULL;
			load_cpu_slab(s, c, slab);
			goto reread;
		}
	}
	freelist = get_partial(s, node, c, &slab);
	if (freelist) {
		fork_point(SLUB_FP_PARTIAL_TAKEN);
		goto check_new_slab;
	}
	slab = new_slab(s, node < 0 ? c->node : node, c, &freelist);
	if (unlikely(!slab))
		return NULL;
	fork_point(SLUB_FP_NEW_SLAB);
	stat(c, SLUB_ALLOC_SLAB);

check_new_slab:
	load_cpu_slab(s, c, slab);
	if (kmem_cache_debug(s)) {
		void *object = freelist;
		void *rest;
		for (;;) {
			if (!slub_check_freelist_ptr(s, slab, get_freepointer(s, object))) {
				slub_report(s, slab, object, SLUB_ERR_FREEPOINTER,
					    "next free pointer 0x%lx is outside the slab",
					    (unsigned long)(uintptr_t)get_freepointer(s, object));
				rest = NULL;
			} else {
				rest = get_freepointer(s, object);
			}
			if (alloc_debug_processing(s, slab, object, c))
				break;
			/* The object cannot be handed out: skip it. */
			object = rest;
			if (!object)
				break;
		}
		c->slab = NULL;
		c->freelist = NULL;
		deactivate_slab(s, slab, object ? rest : NULL, c, SLUB_DEACT_DEBUG);
		if (!object)
			goto new_slab;
		return object;
	}
	goto load_freelist;
}

/* Object events (debug level), out of line so the fast paths stay lean. */
void slub_emit_object(unsigned type, struct slub_cache *s, struct slub_cpu *c, struct slab *slab,
		      void *object)
{
	struct slub_event ev;

	if (!slab)
		slab = slub_virt_to_slab(object);
	ev_init(&ev, type, s, c, slab);
	ev.object = (uint64_t)(uintptr_t)object;
	ev.size = s->object_size;
	slub_emit(&ev);
}

void slub_free_double(struct slub_cache *s, struct slab *slab, void *object)
{
	slub_report(s, slab, object, SLUB_ERR_DOUBLE_FREE, "object heads the cpu freelist");
}

void *slab_alloc_node(struct slub_cache *s, int node)
{
	return slab_alloc_fast(s, node);
}

void slab_free(struct slub_cache *s, struct slab *slab, void *object)
{
	slab_free_fast(s, slab, object);
}

/* ---- flushing ---- */

/* flush_slab() + unfreeze of the partial chain, acting as cpu c (Linux 6.1
 * flush_cpu_slab()). */
void flush_cpu_slab(struct slub_cache *s, struct slub_cpu *c)
{
	struct slab *slab = c->slab;

	if (c->main || c->spare)
		sheaves_flush_cpu(s, c);

	if (slab) {
		void *fl = c->freelist;
		c->slab = NULL;
		c->freelist = NULL;
		stat(c, SLUB_CPUSLAB_FLUSH);
		deactivate_slab(s, slab, fl, c, SLUB_DEACT_FLUSH);
	}
	struct slab *chain = __atomic_exchange_n(&c->partial, NULL, __ATOMIC_ACQ_REL);
	if (chain) {
		fork_point(SLUB_FP_PARTIALS_DETACHED);
		emit_partial_drain(s, c, chain, SLUB_DEACT_FLUSH);
		unfreeze_partials(s, c, chain, c);
	}
}

static void emit_thread_flush(struct slub_thread *t, unsigned count)
{
	if (slub_wants(SLUB_EV_THREAD_FLUSH)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_THREAD_FLUSH, NULL, NULL, NULL);
		ev.slot = t->id;
		ev.node = t->node;
		ev.count = count;
		slub_emit(&ev);
	}
}

/* Every slot of thread t: deactivate, unfreeze partials, fold counters. */
void slub_flush_thread_caches(struct slub_thread *t)
{
	unsigned flushed = 0;

	for (int i = 0; i < SLUB_MAX_CACHES; i++) {
		struct slub_cpu *c = __atomic_load_n(&t->cpu[i], __ATOMIC_ACQUIRE);
		if (!c || !c->cache)
			continue;
		if (c->slab || READ_ONCE(c->partial) || slot_holds_sheaves(c))
			flushed++;
		flush_cpu_slab(c->cache, c);
		slub_fold_stats(c->cache, c);
	}
	t->flushed = 1;
	emit_thread_flush(t, flushed);
}

/* Does any slot of t hold a cpu slab or a partial chain? */
static bool thread_holds_slabs(struct slub_thread *t)
{
	for (int i = 0; i < SLUB_MAX_CACHES; i++) {
		struct slub_cpu *c = __atomic_load_n(&t->cpu[i], __ATOMIC_ACQUIRE);
		if (c && c->cache && (c->slab || READ_ONCE(c->partial) || slot_holds_sheaves(c)))
			return true;
	}
	return false;
}

/*
 * flush_all() for the partial chains: detach every thread's chain and
 * unfreeze it on behalf of that cpu, as the kernel's IPI runs the flush on
 * each cpu.  Active cpu slabs of other live threads stay theirs.
 */
void slub_flush_all_partials(struct slub_cache *s)
{
	struct slub_thread *self = slub_thread();
	struct slub_cpu *me = get_cpu_slab(s, self);

	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		struct slub_cpu *c = __atomic_load_n(&t->cpu[s->id], __ATOMIC_ACQUIRE);
		if (!c || c->cache != s || !READ_ONCE(c->partial))
			continue;
		struct slab *chain = __atomic_exchange_n(&c->partial, NULL, __ATOMIC_ACQ_REL);
		if (chain) {
			emit_partial_drain(s, c, chain, SLUB_DEACT_FLUSH);
			unfreeze_partials(s, c, chain, me);
		}
	}
}

/*
 * Injected (wrong-owner-unfreeze): after draining its own chain, a thread
 * also detaches another thread's cpu partial chain and unfreezes it, as a
 * flush would, but announces no flush (no cpu_partial_drain of that slot):
 * a cpu unfreezing slabs it does not own.  Every 16th drain.  The chain is
 * detached atomically, as the real flushes do, so the process stays sound.
 */
__attribute__((noinline, cold)) void unfreeze_foreign_partials(struct slub_cache *s,
							       struct slub_cpu *me)
{
	static unsigned long tick;

	if (!inject_now(&tick, 16))
		return;
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		struct slub_cpu *c = __atomic_load_n(&t->cpu[s->id], __ATOMIC_ACQUIRE);
		if (!c || c == me || c->cache != s || !READ_ONCE(c->partial))
			continue;
		struct slab *chain = __atomic_exchange_n(&c->partial, NULL, __ATOMIC_ACQ_REL);
		if (chain) {
			unfreeze_partials(s, c, chain, me);
			return;
		}
	}
}

/*
 * Cache destruction: the caller guarantees no thread uses the cache any
 * more, so every slot (of live threads too) is flushed as its cpu, its
 * counters folded, and the slot released.
 */
void slub_destroy_cpu_slots(struct slub_cache *s)
{
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		if (t == slub_self && t->orphan)
			continue; /* an exited thread destroying: its borrowed slot */
		bool mine = t == slub_self;
		if (!mine)
			flush_lock_take(t);
		struct slub_cpu *c = __atomic_load_n(&t->cpu[s->id], __ATOMIC_ACQUIRE);
		if (c && c->cache == s) {
			flush_cpu_slab(s, c);
			slub_fold_stats(s, c);
		}
		if (!mine)
			flush_lock_drop(t);
	}
	struct slub_thread *self = slub_self;
	if (self && self->orphan) {
		struct slub_cpu *c = __atomic_load_n(&self->cpu[s->id], __ATOMIC_ACQUIRE);
		if (c && c->cache == s) {
			flush_cpu_slab(s, c);
			slub_fold_stats(s, c);
		}
	}
}

SLUB_INTERNAL void slub_release_cpu_slots(struct slub_cache *s);
void slub_release_cpu_slots(struct slub_cache *s)
{
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		bool mine = t == slub_self;
		if (!mine)
			flush_lock_take(t);
		struct slub_cpu *c = __atomic_load_n(&t->cpu[s->id], __ATOMIC_ACQUIRE);
		if (c && c->cache == s) {
			__atomic_store_n(&t->cpu[s->id], NULL, __ATOMIC_RELEASE);
			slub_meta_free(c, sizeof(*c));
		}
		if (!mine)
			flush_lock_drop(t);
	}
}

void slub_thread_flush(void)
{
	struct slub_thread *t = slub_self;

	if (t && !t->orphan) {
		flush_lock_take(t);
		slub_flush_thread_caches(t);
		flush_lock_drop(t);
	}
}

/* ---- the orphan slot: threads past their exit flush ---- */

static struct slub_thread *orphan_thread;

static struct slub_thread *orphan_get(void)
{
	struct slub_thread *o = __atomic_load_n(&orphan_thread, __ATOMIC_ACQUIRE);

	if (likely(o))
		return o;
	o = slub_meta_alloc(sizeof(*o));
	if (!o)
		slub_assert_fail("orphan slot allocation failed", __FILE__, __LINE__);
	o->orphan = 1;
	o->live = 1;
	threads_lock_take();
	if (orphan_thread) {
		threads_lock_drop();
		return orphan_thread; /* another thread won: o stays unused */
	}
	o->id = next_thread_id++;
	o->node = o->id % (slub_nodes > 0 ? slub_nodes : 1);
	o->next_all = threads_all;
	__atomic_store_n(&threads_all, o, __ATOMIC_RELEASE);
	__atomic_store_n(&orphan_thread, o, __ATOMIC_RELEASE);
	threads_lock_drop();
	return o;
}

/*
 * The borrowing thread's id, kept per thread: LTTng-UST's own threads
 * allocate through the orphan slot hundreds of times while a process
 * registers (about 1,750 calls for /bin/true under `slubtrace record`), and
 * a gettid system call each time was most of what the slot cost them.  A
 * fork's child has a new thread id under the same thread-local storage:
 * the generation, bumped in the child, makes it look again.
 */
static __thread uint32_t orphan_tid __attribute__((tls_model("initial-exec")));
static __thread uint32_t orphan_tid_gen __attribute__((tls_model("initial-exec")));
static uint32_t fork_generation = 1;

/* Borrow the orphan slot: one exited thread at a time, under its
 * flush_lock, as a cpu is used by one task at a time. */
struct slub_thread *slub_orphan_enter(void)
{
	struct slub_thread *o = orphan_get();
	uint32_t gen = __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);

	if (unlikely(orphan_tid_gen != gen)) {
		orphan_tid = slub_os_tid();
		orphan_tid_gen = gen;
	}
	slub_futex_lock(&o->flush_lock);
	o->tid = orphan_tid;
	o->nr_locks = 1; /* the orphan lock itself */
	o->nr_held = 0;
	slub_self = o;
	return o;
}

void slub_orphan_leave(void)
{
	struct slub_thread *o = slub_self;

	o->nr_locks = 0;
	slub_self = NULL;
	slub_futex_unlock(&o->flush_lock);
}

void *slub_orphan_alloc(struct slub_cache *s, int node)
{
	slub_orphan_enter();
	void *p = slab_alloc_fast(s, node);
	slub_orphan_leave();
	return p;
}

void slub_orphan_free(struct slub_cache *s, struct slab *slab, void *object)
{
	slub_orphan_enter();
	slab_free_fast(s, slab, object);
	slub_orphan_leave();
}

/*
 * Thread exit: the kernel's cpu hotplug teardown for our "cpu".  The flush
 * holds the thread's flush_lock so that a concurrent slub_cache_destroy()
 * never flushes the same slot.  Allocations the thread still makes after
 * this (later key destructors, libc's own teardown) go to the orphan slot:
 * re-registering would leave a slot nobody flushes.
 */
static void thread_exit(void *arg)
{
	struct slub_thread *t = arg;

	if (!t)
		return;
	flush_lock_take(t);
	if (t->flushed && !thread_holds_slabs(t)) {
		/* Flushed already (the malloc shim's exit hook runs first):
		 * only counters are left to fold, and no second thread_flush. */
		for (int i = 0; i < SLUB_MAX_CACHES; i++) {
			struct slub_cpu *c = __atomic_load_n(&t->cpu[i], __ATOMIC_ACQUIRE);
			if (c && c->cache)
				slub_fold_stats(c->cache, c);
		}
	} else {
		slub_flush_thread_caches(t);
	}
	__atomic_store_n(&t->live, 0, __ATOMIC_RELEASE);
	flush_lock_drop(t);
	slub_self = NULL;
	slub_exited = 1;
	threads_lock_take();
	t->next_free = threads_free;
	threads_free = t;
	threads_lock_drop();
}

/* ---- fork ---- */

void (*slub_fork_point_hook)(int point);

void slub_threads_lock_all(void)
{
	slub_futex_lock(&threads_lock);
}

void slub_threads_unlock_all(void)
{
	slub_futex_unlock(&threads_lock);
}

/*
 * FORK ADOPTION: WHY THE CHILD REPAIRS INSTEAD OF THE PARENT WAITING
 *
 * fork() copies the process at an instant when the other threads may be
 * anywhere in a slow path: between a freezing CAS and the push on their
 * partial chain, with a popped or new slab not yet loaded, with a detached
 * chain half unfrozen, with empty slabs on their way to discard_slab().
 * Only list_lock sections are atomic with respect to fork(): the prepare
 * handler takes every list_lock.  Two designs were possible:
 *
 *  - The prepare handler waits until no thread is inside a slow path and
 *    keeps new ones out.  That costs a flag and a fence on every slow path
 *    (the remote free too), and it can deadlock: a thread kept out at the
 *    gate may hold a lock of its own program, or of a library whose atfork
 *    handler runs after ours (glibc's stdio list, LTTng-UST's), and the
 *    fork then waits for it forever; a thread interrupted in a slow path by
 *    a signal handler that forks waits for itself.
 *
 *  - The child, which is single-threaded while its atfork handler runs,
 *    rebuilds the slots of the threads it lost from the slab words, which
 *    are the truth (frozen bit, inuse, freelist), and from the two slot
 *    fields that the slow paths keep exact at every instant: a slot's
 *    c->slab is frozen for it (get_freelist() lets go of it before its
 *    unfreezing CAS; the other paths clear it before deactivate_slab()), and
 *    a slab is on a slot's partial chain only while frozen for that slot
 *    (pushed after its freeze, unfrozen after it left the chain).
 *
 * The second is used: it costs the parent nothing and cannot deadlock.  In
 * the child, slub_fork_repair_child() walks every slab of every cache once:
 * a frozen slab that no slot holds as c->slab or on its chain was caught in
 * a dead thread's hands (the "torn" slabs).  They are queued per cache and
 * the adoption, after fork() returned, unfreezes each as deactivate_slab()
 * with an empty cpu freelist (to the node partial or full list, or
 * discarded), acting for the dead slot named by slab->owner when there is
 * one.  Unfrozen empty slabs on no list were on their way to discard_slab()
 * and are discarded.  A slot reference that contradicts the word (a slab
 * not frozen, or held twice) is dropped, defensively.  What the dead thread
 * held in its local variables is lost with it, as an allocation it was
 * making: objects it had taken from a freelist stay counted in inuse (at
 * most one slab's worth per lost thread).
 *
 * The forking thread itself is never inside the allocator at fork() (a
 * fork from a signal handler that interrupted the allocator would already
 * deadlock on the list_locks in the prepare handler), so its slots are
 * trusted as they are, and so is what the orphan slot holds.
 */
static struct slab *forked_torn[SLUB_MAX_CACHES];

/* One slot's references to slabs of s: mark them, drop contradictions. */
static void repair_slot_refs(struct slub_cache *s, struct slub_cpu *c)
{
	struct slab **pp = &c->partial;

	while (*pp) {
		struct slab *slab = *pp;
		if (slab->kind != SLAB_KIND_SLAB || slab->cache != s || slab->fork_held ||
		    !slab_word_read(slab).c.frozen) {
			*pp = slab->next; /* not this slot's: off the chain */
			continue;
		}
		slab->fork_held = 1;
		pp = &slab->next;
	}
	struct slab *slab = c->slab;
	if (slab && (slab->kind != SLAB_KIND_SLAB || slab->cache != s || slab->fork_held ||
		     !slab_word_read(slab).c.frozen)) {
		c->slab = NULL;
		c->freelist = NULL;
	} else if (slab) {
		slab->fork_held = 1;
	}
}

void slub_fork_repair_child(void)
{
	bool torn = false;

	for (unsigned i = 0; i < SLUB_MAX_CACHES; i++) {
		struct slub_cache *s = slub_caches[i];

		forked_torn[i] = NULL;
		if (!s || s->destroyed)
			continue;
		size_t max = s->total_slabs * 2 + 1024;
		size_t bytes = (max * sizeof(struct slab *) + SLUB_PAGE_SIZE - 1) &
			       ~(SLUB_PAGE_SIZE - 1);
		struct slab **all = slub_os_map(bytes, SLUB_PAGE_SIZE);
		if (!all)
			continue; /* no memory: the classic adoption only */
		size_t nr = slub_collect_slabs(s, all, max);
		for (size_t k = 0; k < nr; k++)
			all[k]->fork_held = 0;
		for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
			struct slub_cpu *c = t->cpu[s->id];
			if (c && c->cache == s)
				repair_slot_refs(s, c);
		}
		for (size_t k = 0; k < nr; k++) {
			struct slab *slab = all[k];
			struct slab_word w = slab_word_read(slab);
			bool held = slab->fork_held;

			slab->fork_held = 0;
			/* The sheaves generation: a refill takes partial slabs
			 * off their list and their freelists after; one with
			 * free objects on no list was cut there. */
			bool cut_refill = s->sheaf_capacity && !w.c.frozen &&
					  slab->list == SLAB_LIST_NONE && w.freelist;
			if (!cut_refill &&
			    (held || (!w.c.frozen && (slab->list != SLAB_LIST_NONE || w.c.inuse))))
				continue;
			slab->next = forked_torn[i];
			slab->prev = NULL;
			forked_torn[i] = slab;
			torn = true;
		}
		slub_os_unmap(all, bytes);
	}
	if (torn)
		slub_adopt_pending = 1;
}

/* Adoption: the torn slabs of s, acting for their dead slot if known. */
static void adopt_torn_slabs(struct slub_cache *s, struct slub_cpu *actor)
{
	struct slab *slab, *list = forked_torn[s->id];

	forked_torn[s->id] = NULL;
	while ((slab = list)) {
		list = slab->next;
		slab->next = NULL;
		struct slab_word w = slab_word_read(slab);
		if (!w.c.frozen && w.c.inuse) {
			/* a sheaves refill's, cut before it took the freelist
			 * or gave the slab back: back on the partial list */
			struct slub_node *n = get_node(s, slab->node);
			list_lock(s, n, actor);
			add_partial(s, n, slab, SLUB_DEST_TAIL, actor);
			list_unlock(s, n, actor);
			continue;
		}
		if (!w.c.frozen) {
			/* on its way to discard_slab(): empty, on no list */
			stat(actor, SLUB_DEACTIVATE_EMPTY);
			discard_slab(s, slab, actor);
			continue;
		}
		struct slub_thread *dead = NULL;
		int owner = READ_ONCE(slab->owner);
		for (struct slub_thread *t = slub_threads_head(); t && owner >= 0; t = t->next_all)
			if (t->id == owner && READ_ONCE(t->adopt) && t != slub_self) {
				dead = t;
				break;
			}
		struct slub_cpu *c = dead ? dead->cpu[s->id] : NULL;
		if (!c || c->cache != s)
			dead = NULL, c = actor;
		if (dead)
			flush_lock_take(dead);
		/* Not c's active slab: c->slab is not changed (no cpu-slab event). */
		deactivate_slab(s, slab, NULL, c, SLUB_DEACT_FLUSH | SLUB_DEACT_NOT_ACTIVE);
		if (dead)
			flush_lock_drop(dead);
	}
}

/*
 * In the child only the forking thread exists.  The slots of every other
 * thread still hold frozen cpu slabs and partial chains; they must be
 * flushed (adopted), but not here: this runs inside fork(), before the
 * tracer has learnt that it is in a new process, so every event would be
 * recorded as the parent's.  The handler only marks those threads (and
 * slub_fork_repair_child() finds the slabs they held outside their slots);
 * the first slow path of the child after fork() returned adopts them.
 * Threads that had already exited are free for reuse at once.  The orphan
 * slot stays the orphan slot, shared by the child's exited threads.
 */
uint32_t slub_adopt_pending;

void slub_threads_reinit_child(void)
{
	struct slub_thread *self = slub_self;
	bool pending = false;

	threads_lock = 0;
	/* never 0: a thread that never borrowed the slot has generation 0 */
	uint32_t gen = fork_generation + 1;
	__atomic_store_n(&fork_generation, gen ? gen : 1, __ATOMIC_RELAXED);
	if (self) {
		self->tid = slub_os_tid();
		self->nr_held = 0;
	}
	threads_free = NULL;
	/* an exited thread was using the orphan slot at the fork */
	struct slub_thread *o = __atomic_load_n(&orphan_thread, __ATOMIC_ACQUIRE);
	bool orphan_busy = o && o != self && o->flush_lock;
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all)
		t->flush_lock = 0;
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		if (t == self || t->orphan)
			continue;
		if (__atomic_load_n(&t->live, __ATOMIC_ACQUIRE) || t->adopt) {
			t->live = 0;
			t->adopt = 1;
			pending = true;
			continue;
		}
		t->next_free = threads_free;
		threads_free = t;
	}
	slub_adopt_pending = pending;
	/* Only another thread can have been inside a slow path: a process
	 * forking from its one thread pays nothing for the repair. */
	if (pending || orphan_busy)
		slub_fork_repair_child();
}

/*
 * Adoption, run by the first thread of the child to take a slow path: the
 * torn slabs are unfrozen, every marked thread's slots are flushed as the
 * kernel flushes a dead cpu's, the events name this thread as the actor
 * (cpu) and the dead slot (slot), and the thread structure becomes
 * reusable.  Holds no lock on entry.
 */
void slub_adopt_forked_slots(void)
{
	/* An exited thread borrowing the orphan slot holds its flush_lock:
	 * leave the adoption to a thread of the child with a slot of its own. */
	if (!slub_self || slub_self->orphan)
		return;
	if (!__atomic_exchange_n(&slub_adopt_pending, 0, __ATOMIC_ACQ_REL))
		return;
	for (unsigned i = 0; i < SLUB_MAX_CACHES; i++) {
		struct slub_cache *s = __atomic_load_n(&slub_caches[i], __ATOMIC_ACQUIRE);
		if (s && forked_torn[i])
			adopt_torn_slabs(s, get_cpu_slab(s, slub_self));
	}
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		if (!READ_ONCE(t->adopt) || t == slub_self)
			continue;
		flush_lock_take(t);
		bool mine = t->adopt;
		if (mine) {
			slub_flush_thread_caches(t);
			t->adopt = 0;
		}
		flush_lock_drop(t);
		if (!mine)
			continue;
		threads_lock_take();
		t->next_free = threads_free;
		threads_free = t;
		threads_lock_drop();
	}
}
