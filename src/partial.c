/* SPDX-License-Identifier: MIT */
/*
 * Node partial (and full) lists under list_lock, and the per-cpu partial
 * chains: acquire_slab, get_partial_node, get_any_partial, put_cpu_partial,
 * unfreeze_partials.
 *
 * A slab on node->partial is unfrozen and has a non-empty freelist; a slab
 * on node->full (tracked caches only) is unfrozen with an empty freelist.
 * Both hold at every list_lock drop (invariant 4 of the design).
 */
#define _GNU_SOURCE
#include "internal.h"

static inline uint32_t lock_id(struct slub_cache *s, struct slub_node *n)
{
	return s->id * 64 + (uint32_t)(n - s->node);
}

static unsigned hist_bucket(uint64_t ns)
{
	unsigned b = 0;

	ns >>= 6;
	while (ns && b < SLUB_LOCK_HIST_BUCKETS - 1) {
		ns >>= 1;
		b++;
	}
	return b;
}

/* spin_lock(&n->list_lock), measured: wait and hold times, contention. */
void list_lock(struct slub_cache *s, struct slub_node *n, struct slub_cpu *c)
{
	uint64_t wait = 0;
	bool contended;

	witness_acquire(RANK_LIST);
	if (likely(slub_futex_trylock(&n->list_lock))) {
		contended = false;
	} else {
		uint64_t t0 = slub_now_ns();
		slub_futex_lock(&n->list_lock);
		wait = slub_now_ns() - t0;
		contended = true;
	}
	n->holder = slub_self ? slub_self->tid : 0;
	uint64_t seq = ++n->lock_seq;
	n->acquired_ns = slub_now_ns();
	stat(c, SLUB_LOCK_ACQUIRE);
	if (contended) {
		stat(c, SLUB_LOCK_CONTENDED);
		stat_add(&c->stats.lock_wait_ns, wait);
	}
	stat_add(&c->stats.lock_wait_hist[hist_bucket(wait)], 1);
	if (slub_wants(SLUB_EV_LOCK_ACQUIRE)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_LOCK_ACQUIRE, s, c, NULL);
		ev.node = (int)(n - s->node);
		ev.lock_id = lock_id(s, n);
		ev.lock_seq = seq;
		ev.wait_ns = wait;
		ev.contended = contended;
		ev.locked = 1;
		slub_emit(&ev);
	}
}

void list_unlock_traced(struct slub_cache *s, struct slub_node *n, struct slub_cpu *c)
{
	uint64_t hold = slub_now_ns() - n->acquired_ns;
	uint64_t seq = n->lock_seq;

	slub_assert(n->holder == (slub_self ? slub_self->tid : 0));
	stat_add(&c->stats.lock_hold_ns, hold);
	stat_add(&c->stats.lock_hold_hist[hist_bucket(hold)], 1);
	if (slub_wants(SLUB_EV_LOCK_RELEASE)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_LOCK_RELEASE, s, c, NULL);
		ev.node = (int)(n - s->node);
		ev.lock_id = lock_id(s, n);
		ev.lock_seq = seq;
		ev.hold_ns = hold;
		slub_emit(&ev);
	}
	n->holder = 0;
}

void list_unlock(struct slub_cache *s, struct slub_node *n, struct slub_cpu *c)
{
	list_unlock_traced(s, n, c);
	slub_futex_unlock(&n->list_lock);
	witness_release(RANK_LIST);
}

static void lockdep_assert_held(struct slub_node *n)
{
	/* The unlocked-list injection takes the lock silently: still held. */
	slub_assert(READ_ONCE(n->list_lock) != 0);
	slub_assert(variant(SLUB_INJ_UNLOCKED_LIST) ||
		    n->holder == (slub_self ? slub_self->tid : 0));
}

static void emit_list(unsigned type, struct slub_cache *s, struct slub_node *n,
		      struct slab *slab, int where, struct slub_cpu *c)
{
	struct slub_event ev;
	struct slab_word w = slab_word_read(slab);

	ev_init(&ev, type, s, c, slab);
	ev.list = (uint32_t)where;
	ev.lock_id = lock_id(s, n);
	ev.lock_seq = n->lock_seq;
	ev.locked = n->holder == (slub_self ? slub_self->tid : 0);
	/* Under list_lock a listed slab's frozen state is stable, and the
	 * owner of one frozen here has already published its id. */
	ev_word(&ev.old, &w, w.c.frozen ? READ_ONCE(slab->owner) : SLUB_NO_OWNER);
	ev.new = ev.old;
	ev.count = (uint32_t)n->nr_partial;
	slub_emit(&ev);
}

/* __add_partial(): tail = SLUB_DEST_TAIL or SLUB_DEST_HEAD. */
void add_partial(struct slub_cache *s, struct slub_node *n, struct slab *slab, int tail,
		 struct slub_cpu *c)
{
	lockdep_assert_held(n);
	slub_assert(slab->list == SLAB_LIST_NONE);
	WRITE_ONCE(n->nr_partial, n->nr_partial + 1);
	if (tail == SLUB_DEST_TAIL) {
		slab->next = NULL;
		slab->prev = n->partial_tail;
		if (n->partial_tail)
			n->partial_tail->next = slab;
		else
			n->partial = slab;
		n->partial_tail = slab;
	} else {
		slab->prev = NULL;
		slab->next = n->partial;
		if (n->partial)
			n->partial->prev = slab;
		else
			n->partial_tail = slab;
		n->partial = slab;
	}
	slab->list = SLAB_LIST_PARTIAL;
	if (variant(SLUB_VAR_PARTIAL_COUNTERS_ANY))
		partial_counters_list(s, n, slab, c, 1);
	if (slub_wants(SLUB_EV_ADD_PARTIAL))
		emit_list(SLUB_EV_ADD_PARTIAL, s, n, slab, tail, c);
}

void remove_partial(struct slub_cache *s, struct slub_node *n, struct slab *slab,
		    struct slub_cpu *c)
{
	lockdep_assert_held(n);
	slub_assert(slab->list == SLAB_LIST_PARTIAL);
	if (slab->prev)
		slab->prev->next = slab->next;
	else
		n->partial = slab->next;
	if (slab->next)
		slab->next->prev = slab->prev;
	else
		n->partial_tail = slab->prev;
	slab->next = slab->prev = NULL;
	slab->list = SLAB_LIST_NONE;
	WRITE_ONCE(n->nr_partial, n->nr_partial - 1);
	if (variant(SLUB_VAR_PARTIAL_COUNTERS_ANY))
		partial_counters_list(s, n, slab, c, 0);
	if (slub_wants(SLUB_EV_REMOVE_PARTIAL))
		emit_list(SLUB_EV_REMOVE_PARTIAL, s, n, slab, SLUB_DEST_NONE, c);
}

/* Full slabs are listed only for caches that track them (debug caches in
 * the kernel; SLUB_F_TRACK_FULL here, which `slubtrace record --full-lists` turns on). */
void add_full(struct slub_cache *s, struct slub_node *n, struct slab *slab, struct slub_cpu *c)
{
	if (!kmem_cache_track_full(s))
		return;
	lockdep_assert_held(n);
	slub_assert(slab->list == SLAB_LIST_NONE);
	slab->prev = NULL;
	slab->next = n->full;
	if (n->full)
		n->full->prev = slab;
	n->full = slab;
	slab->list = SLAB_LIST_FULL;
	WRITE_ONCE(n->nr_full, n->nr_full + 1);
	if (slub_wants(SLUB_EV_ADD_FULL))
		emit_list(SLUB_EV_ADD_FULL, s, n, slab, SLUB_DEST_FULL, c);
}

void remove_full(struct slub_cache *s, struct slub_node *n, struct slab *slab,
		 struct slub_cpu *c)
{
	if (!kmem_cache_track_full(s))
		return;
	lockdep_assert_held(n);
	slub_assert(slab->list == SLAB_LIST_FULL);
	if (slab->prev)
		slab->prev->next = slab->next;
	else
		n->full = slab->next;
	if (slab->next)
		slab->next->prev = slab->prev;
	slab->next = slab->prev = NULL;
	slab->list = SLAB_LIST_NONE;
	WRITE_ONCE(n->nr_full, n->nr_full - 1);
	if (slub_wants(SLUB_EV_REMOVE_FULL))
		emit_list(SLUB_EV_REMOVE_FULL, s, n, slab, SLUB_DEST_NONE, c);
}

/* ---- word events shared by the paths below ---- */
void __emit_word(unsigned type, struct slub_cache *s, struct slub_cpu *c, struct slab *slab,
	       const struct slab_word *old, const struct slab_word *new, enum slub_site site,
	       int locked, int owner_old, int owner_new, int dest)
{
	struct slub_event ev;

	if (new->c.seq == old->c.seq)
		return; /* injected lost update: the trace never sees it */
	ev_init(&ev, type, s, c, slab);
	ev.site = site;
	ev.locked = locked ? 1 : 0;
	ev.list = (uint32_t)dest;
	ev_word(&ev.old, old, owner_old);
	ev_word(&ev.new, new, owner_new);
	slub_emit(&ev);
}

/*
 * Injected (double-freeze): acquire_slab() freezes the slab it has just
 * frozen once more, as a CAS that never looked at `frozen` would; every
 * 32nd acquisition.  The word changes only its seq, so the process stays
 * sound while its trace shows a freeze of a frozen slab.
 */
static __attribute__((noinline, cold)) void acquire_slab_refreeze(struct slub_cache *s,
								  struct slab *slab,
								  struct slub_cpu *c)
{
	static unsigned long tick;
	struct slab_word old, new;
	unsigned attempt = 0;

	if (!inject_now(&tick, 32))
		return;
	do {
		old = slab_word_read(slab);
		new = old;
		new.c.frozen = 1;
	} while (!slab_update(s, slab, &old, &new, SLUB_SITE_ACQUIRE_SLAB, 1, c, &attempt));
	if (slub_wants(SLUB_EV_FREEZE))
		emit_word(SLUB_EV_FREEZE, s, c, slab, &old, &new, SLUB_SITE_ACQUIRE_SLAB, 1, c->id,
			  c->id, SLUB_DEST_NONE);
}

/*
 * acquire_slab() (Linux 6.1): under list_lock, freeze a node partial slab for cpu c.
 * mode 1: take its whole freelist (it becomes the cpu slab); mode 0: leave
 * the freelist (it goes on the cpu partial chain).  One attempt: a failed
 * CAS means a racing free; the caller stops scanning, as SLUB does.
 */
static void *acquire_slab(struct slub_cache *s, struct slub_node *n, struct slab *slab,
			  int mode, struct slub_cpu *c, unsigned *objects)
{
	struct slab_word old, new;
	unsigned attempt = 0;

	lockdep_assert_held(n);
	old = slab_word_read(slab);
	new = old;
	*objects = old.c.objects - old.c.inuse;
	if (mode) {
		new.c.inuse = old.c.objects;
		new.freelist = NULL;
	}
	slub_assert(!old.c.frozen);
	new.c.frozen = 1;
	if (!slab_update(s, slab, &old, &new, SLUB_SITE_ACQUIRE_SLAB, 1, c, &attempt))
		return NULL;
	slab_owner_set(slab, c->id);
	if (slub_wants(SLUB_EV_FREEZE))
		emit_word(SLUB_EV_FREEZE, s, c, slab, &old, &new, SLUB_SITE_ACQUIRE_SLAB, 1, -1,
			  c->id, SLUB_DEST_NONE);
	if (variant(SLUB_INJ_DOUBLE_FREEZE))
		acquire_slab_refreeze(s, slab, c);
	remove_partial(s, n, slab, c);
	slub_assert(old.freelist != NULL);
	return old.freelist;
}

/*
 * get_partial_node() (Linux 6.1, with the cpu partial accounting of 5.14
 * and earlier: stop once the slabs taken hold more than cpu_partial / 2
 * free objects).
 */
static void *get_partial_node(struct slub_cache *s, struct slub_node *n, struct slub_cpu *c,
			      struct slab **ret)
{
	struct slab *slab, *next;
	void *object = NULL;
	unsigned available = 0, objects;

	/* Racy check, as in SLUB: a miss only costs a new slab. */
	if (!READ_ONCE(n->nr_partial))
		return NULL;
	list_lock(s, n, c);
	for (slab = n->partial; slab; slab = next) {
		next = slab->next;
		void *t = acquire_slab(s, n, slab, object == NULL, c, &objects);
		if (!t)
			break;
		available += objects;
		if (!object) {
			*ret = slab;
			stat(c, SLUB_ALLOC_FROM_PARTIAL);
			object = t;
		} else {
			put_cpu_partial(s, slab, 0, c);
			stat(c, SLUB_CPU_PARTIAL_NODE);
		}
		if (!kmem_cache_has_cpu_partial(s) || available > s->cpu_partial / 2)
			break;
	}
	list_unlock(s, n, c);
	return object;
}

/*
 * get_any_partial() (Linux 6.1): for an allocation on no particular node,
 * take from another node only now and then (remote_node_defrag_ratio, the
 * kernel's default 1000 of 1024), and only from a node that keeps more
 * than min_partial partial slabs: a remote node's last few partial slabs
 * are left to its own cpus.
 */
#define REMOTE_NODE_DEFRAG_RATIO 1000

static void *get_any_partial(struct slub_cache *s, int searchnode, struct slub_cpu *c,
			     struct slab **ret)
{
	if (slub_now_ns() % 1024 > REMOTE_NODE_DEFRAG_RATIO)
		return NULL;
	for (int i = 1; i < slub_nodes; i++) {
		struct slub_node *n = get_node(s, (searchnode + i) % slub_nodes);

		if (READ_ONCE(n->nr_partial) <= s->min_partial)
			continue;
		void *object = get_partial_node(s, n, c, ret);
		if (object)
			return object;
	}
	return NULL;
}

/* get_partial() (Linux 6.1): the wanted node first (the cpu's own for
 * node -1), then, for node -1 only, get_any_partial(). */
void *get_partial(struct slub_cache *s, int node, struct slub_cpu *c, struct slab **ret)
{
	int searchnode = node < 0 ? c->node : node;
	void *object = get_partial_node(s, get_node(s, searchnode), c, ret);

	if (object || node >= 0 || slub_nodes < 2)
		return object;
	return get_any_partial(s, searchnode, c, ret);
}

/*
 * unfreeze_partials() (Linux 6.1 __unfreeze_partials()): every slab of
 * `chain` (detached from c->partial by
 * the caller) becomes unfrozen and goes to its node's partial list, or is
 * discarded when empty and the node has min_partial slabs.  The list_lock
 * switches when the node changes.  `actor` is the thread's own slot that
 * counts the work (it differs from c when flushing for another cpu).
 */
static void unfreeze_partials_3_5(struct slub_cache *s, struct slub_cpu *c,
				  struct slab *chain, struct slub_cpu *actor);

void unfreeze_partials(struct slub_cache *s, struct slub_cpu *c, struct slab *chain,
		       struct slub_cpu *actor)
{
	struct slub_node *n = NULL, *n2;
	struct slab *slab, *discard_list = NULL;

	if (variant(SLUB_VAR_OLD_UNFREEZE_PARTIALS)) {
		unfreeze_partials_3_5(s, c, chain, actor);
		return;
	}
	while ((slab = chain)) {
		struct slab_word old, new;
		unsigned attempt = 0;

		chain = READ_ONCE(slab->next);
		n2 = get_node(s, slab->node);
		if (n != n2) {
			if (n)
				list_unlock(s, n, actor);
			n = n2;
			list_lock(s, n, actor);
		}
		do {
			old = slab_word_read(slab);
			slub_assert(old.c.frozen);
			new = old;
			new.c.frozen = 0;
		} while (!slab_update(s, slab, &old, &new, SLUB_SITE_UNFREEZE_PARTIALS, 1, actor,
				      &attempt));
		slab_owner_clear(slab, c->id);
		WRITE_ONCE(slab->next, NULL);
		if (unlikely(!new.c.inuse && n->nr_partial >= s->min_partial)) {
			emit_word(SLUB_EV_UNFREEZE, s, actor, slab, &old, &new,
				  SLUB_SITE_UNFREEZE_PARTIALS, 1, c->id, -1, SLUB_DEST_DISCARD);
			slab->next = discard_list;
			discard_list = slab;
		} else {
			emit_word(SLUB_EV_UNFREEZE, s, actor, slab, &old, &new,
				  SLUB_SITE_UNFREEZE_PARTIALS, 1, c->id, -1, SLUB_DEST_TAIL);
			add_partial(s, n, slab, SLUB_DEST_TAIL, actor);
			stat(actor, SLUB_FREE_ADD_PARTIAL);
		}
	}
	if (n)
		list_unlock(s, n, actor);
	if (discard_list)
		fork_point(SLUB_FP_DISCARD_PENDING);
	while ((slab = discard_list)) {
		discard_list = slab->next;
		slab->next = NULL;
		stat(actor, SLUB_DEACTIVATE_EMPTY);
		discard_slab(s, slab, actor);
	}
}

/*
 * The 3.5 unfreeze_partials() (Linux 3.5), before the 2012 refactoring: the list
 * decision and the list operation sit inside the cmpxchg loop, so a slab
 * is put on the partial list while still frozen and moved again when a
 * racing free changes the decision.  The longer loop fails more often.
 */
static void unfreeze_partials_3_5(struct slub_cache *s, struct slub_cpu *c,
				  struct slab *chain, struct slub_cpu *actor)
{
	struct slub_node *n = NULL, *n2;
	struct slab *slab, *discard_list = NULL;

	while ((slab = chain)) {
		struct slab_word old, new;
		unsigned attempt = 0;
		enum { M_NONE, M_PARTIAL, M_FREE } l = M_NONE, m = M_NONE;

		chain = READ_ONCE(slab->next);
		WRITE_ONCE(slab->next, NULL);
		do {
			old = slab_word_read(slab);
			slub_assert(old.c.frozen);
			new = old;
			new.c.frozen = 0;
			if (!new.c.inuse && (!n || n->nr_partial >= s->min_partial)) {
				m = M_FREE;
			} else {
				m = M_PARTIAL;
				n2 = get_node(s, slab->node);
				if (n != n2) {
					if (n)
						list_unlock(s, n, actor);
					n = n2;
					list_lock(s, n, actor);
				}
			}
			if (l != m) {
				if (l == M_PARTIAL) {
					remove_partial(s, n, slab, actor);
					stat(actor, SLUB_FREE_REMOVE_PARTIAL);
				} else if (m == M_PARTIAL) {
					add_partial(s, n, slab, SLUB_DEST_TAIL, actor);
					stat(actor, SLUB_FREE_ADD_PARTIAL);
				}
				l = m;
			}
		} while (!slab_update(s, slab, &old, &new, SLUB_SITE_UNFREEZE_PARTIALS, n != NULL,
				      actor, &attempt));
		slab_owner_clear(slab, c->id);
		emit_word(SLUB_EV_UNFREEZE, s, actor, slab, &old, &new, SLUB_SITE_UNFREEZE_PARTIALS,
			  n != NULL, c->id, -1, m == M_FREE ? SLUB_DEST_DISCARD : SLUB_DEST_TAIL);
		if (m == M_FREE) {
			slab->next = discard_list;
			discard_list = slab;
		}
	}
	if (n)
		list_unlock(s, n, actor);
	while ((slab = discard_list)) {
		discard_list = slab->next;
		slab->next = NULL;
		stat(actor, SLUB_DEACTIVATE_EMPTY);
		discard_slab(s, slab, actor);
	}
}

/* The cpu partial chain CAS (push or pop) lost a race with a flusher. */
void cpu_cmpxchg_failed(struct slub_cache *s, struct slub_cpu *c, struct slab *slab,
			enum slub_site site, unsigned attempt)
{
	stat(c, SLUB_CPU_PARTIAL_CMPXCHG_FAIL);
	if (slub_wants(SLUB_EV_CPU_CMPXCHG_FAIL)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_CPU_CMPXCHG_FAIL, s, c, slab);
		ev.site = site;
		ev.attempt = attempt;
		slub_emit(&ev);
	}
}

/* A cpu partial chain was detached to be unfrozen: SLUB_DEACT_CPU_PARTIAL_LIMIT
 * when put_cpu_partial() drains it, SLUB_DEACT_FLUSH for a flush. */
void emit_partial_drain(struct slub_cache *s, struct slub_cpu *c, struct slab *chain, int reason)
{
	if (!slub_wants(SLUB_EV_CPU_PARTIAL_DRAIN))
		return;
	struct slub_event ev;
	ev_init(&ev, SLUB_EV_CPU_PARTIAL_DRAIN, s, c, chain);
	ev.slot = c->id;
	ev.count = READ_ONCE(chain->pages);
	ev.pages = ev.count;
	ev.reason = (uint32_t)reason;
	slub_emit(&ev);
}

/*
 * put_cpu_partial() (Linux 5.14 and earlier: a cmpxchg loop on the chain,
 * pobjects and pages kept in its first slab; 5.15 moved to a local lock and
 * counts slabs): push a frozen slab on c's partial chain.  With drain,
 * a chain holding more than cpu_partial free objects is first unfrozen to
 * the node lists.  The push is a CAS on c->partial because a flusher may
 * detach the chain from another thread.
 */
void put_cpu_partial(struct slub_cache *s, struct slab *slab, int drain, struct slub_cpu *c)
{
	struct slab *oldslab;
	unsigned pages, pobjects;
	unsigned attempt = 0;

	for (;;) {
		pages = 0;
		pobjects = 0;
		oldslab = __atomic_load_n(&c->partial, __ATOMIC_ACQUIRE);
		if (oldslab) {
			pobjects = oldslab->pobjects;
			pages = oldslab->pages;
			if (drain && pobjects > s->cpu_partial) {
				struct slab *chain = __atomic_exchange_n(&c->partial, NULL,
									 __ATOMIC_ACQ_REL);
				if (chain) {
					fork_point(SLUB_FP_PARTIALS_DETACHED);
					emit_partial_drain(s, c, chain,
							   SLUB_DEACT_CPU_PARTIAL_LIMIT);
					unfreeze_partials(s, c, chain, c);
					stat(c, SLUB_CPU_PARTIAL_DRAIN);
				}
				if (variant(SLUB_INJ_WRONG_OWNER_UNFREEZE))
					unfreeze_foreign_partials(s, c);
				/* The 2012 fix: the chain is gone, start a new one.
				 * Without it the CAS below fails once for nothing. */
				if (!variant(SLUB_VAR_KEEP_OLDPAGE))
					oldslab = NULL;
				pobjects = 0;
				pages = 0;
			}
		}
		pages++;
		struct slab_word w = slab_word_read(slab);
		pobjects += w.c.objects - w.c.inuse;
		slab->pages = pages;
		slab->pobjects = pobjects;
		WRITE_ONCE(slab->next, oldslab);
		struct slab *expected = oldslab;
		if (__atomic_compare_exchange_n(&c->partial, &expected, slab, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
		cpu_cmpxchg_failed(s, c, slab, SLUB_SITE_PUT_CPU_PARTIAL, ++attempt);
	}
	if (slub_wants(SLUB_EV_CPU_PARTIAL_PUT)) {
		struct slub_event ev;
		struct slab_word w = slab_word_read(slab);
		ev_init(&ev, SLUB_EV_CPU_PARTIAL_PUT, s, c, slab);
		ev.slot = c->id;
		ev_word(&ev.old, &w, word_owner_unknown(&w));
		ev.new = ev.old;
		ev.count = pobjects;
		ev.pages = pages;
		slub_emit(&ev);
	}
}

/* Shrink: discard the empty slabs on every node's partial list. */
int slub_shrink_node_lists(struct slub_cache *s, struct slub_cpu *c)
{
	int discarded = 0;

	for (int i = 0; i < slub_nodes; i++) {
		struct slub_node *n = get_node(s, i);
		struct slab *slab, *next, *discard_list = NULL;

		list_lock(s, n, c);
		for (slab = n->partial; slab; slab = next) {
			next = slab->next;
			struct slab_word w = slab_word_read(slab);
			if (w.c.inuse == 0 && !w.c.frozen) {
				remove_partial(s, n, slab, c);
				stat(c, SLUB_FREE_REMOVE_PARTIAL);
				slab->next = discard_list;
				discard_list = slab;
			}
		}
		list_unlock(s, n, c);
		while ((slab = discard_list)) {
			discard_list = slab->next;
			slab->next = NULL;
			discard_slab(s, slab, c);
			discarded++;
		}
	}
	return discarded;
}

/* ---- fork: every list_lock, in node order ---- */
void slub_node_locks_take(struct slub_cache *s)
{
	for (int i = 0; i < slub_nodes; i++)
		slub_futex_lock(&s->node[i].list_lock);
}

void slub_node_locks_release(struct slub_cache *s)
{
	for (int i = slub_nodes; i-- > 0;)
		slub_futex_unlock(&s->node[i].list_lock);
}

void slub_node_locks_reinit(struct slub_cache *s)
{
	for (int i = 0; i < slub_nodes; i++) {
		s->node[i].list_lock = 0;
		s->node[i].holder = 0;
	}
}
