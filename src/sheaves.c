/* SPDX-License-Identifier: MIT */
/*
 * The sheaves generation (Linux 7.0): per-cpu arrays of free objects in
 * front of unfrozen slabs.
 *
 * Each cpu slot has a main and a spare sheaf (struct slub_percpu_sheaves);
 * allocation pops main, a free pushes on main.  When main is empty or full
 * it is swapped with the spare, exchanged with the node's barn (a stock of
 * full and empty sheaves, at most MAX_FULL_SHEAVES / MAX_EMPTY_SHEAVES),
 * refilled from slabs or flushed to them.  Slabs are never frozen: a refill
 * takes whole freelists off node partial slabs (get_freelist_nofreeze) or
 * carves a new slab, a flush frees objects back with __slab_free(), which
 * lists and discards slabs by their word alone.  A free of an object of
 * another node goes straight to its slab.
 *
 * Ownership: the kernel takes the cpu's local_trylock around every use of
 * the sheaves, against interrupts and migration.  Our cpu slot belongs to
 * one thread, which is never interrupted inside the allocator by another
 * user of the slot, so the thread's ownership of its slot is that lock and
 * nothing is taken; the recovery paths 7.0 has for a lock dropped and
 * retaken on another cpu cannot happen here and are left out.  A flusher
 * from outside (thread exit, destroy, fork adoption) holds the slot's
 * thread->flush_lock, as for the classic slot fields.
 *
 * Caches with debug flags have no sheaves (sheaf_capacity 0, as in 7.0)
 * and run the classic paths.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>

#define MAX_FULL_SHEAVES 10
#define MAX_EMPTY_SHEAVES 10
/* The kernel's struct slab_sheaf before objects[] on 64-bit (a union of
 * rcu_head and barn list, cache, size, node): the capacities come out as
 * 7.0's.  Ours is smaller, so a sheaf still fits the same bucket. */
#define SHEAF_HEADER_7_0 32u
_Static_assert(offsetof(struct slub_sheaf, objects) <= SHEAF_HEADER_7_0, "sheaf header");
/* sheaf_flush_main(): objects moved per batch (an on-stack array). */
#define PCS_BATCH_MAX 32u

SLUB_INTERNAL void slub_meta_free(void *p, size_t size);

int slub_generation_env;

/* kmalloc_size_roundup() over our kmalloc sizes (8 .. 8192, 96, 192). */
static size_t kmalloc_size_roundup(size_t size)
{
	if (size <= 8)
		return 8;
	if (size <= 96 && size > 64)
		return 96;
	if (size <= 192 && size > 128)
		return 192;
	return (size_t)1 << (64 - __builtin_clzl(size - 1));
}

/* calculate_sheaf_capacity() (7.0): half of what cpu partial slabs held,
 * then up to the kmalloc bucket the sheaf itself fills. */
unsigned calculate_sheaf_capacity(const struct slub_cache *s)
{
	unsigned capacity;

	if (s->flags & SLUB_F_DEBUG_MASK)
		return 0;
	if (s->size >= SLUB_PAGE_SIZE)
		capacity = 4;
	else if (s->size >= 1024)
		capacity = 12;
	else if (s->size >= 256)
		capacity = 26;
	else
		capacity = 60;
	size_t bytes = kmalloc_size_roundup(SHEAF_HEADER_7_0 + capacity * sizeof(void *));
	return (unsigned)((bytes - SHEAF_HEADER_7_0) / sizeof(void *));
}

static size_t sheaf_bytes(const struct slub_cache *s)
{
	return offsetof(struct slub_sheaf, objects) + s->sheaf_capacity * sizeof(void *);
}

/* ---- events ---- */

static uint64_t sheaf_addr(const struct slub_sheaf *sheaf)
{
	return (uint64_t)(uintptr_t)sheaf;
}

/* sheaf_alloc, sheaf_free: an empty sheaf made or freed, as the stat items
 * count them. */
static void emit_sheaf(unsigned type, struct slub_cache *s, struct slub_cpu *c,
		       const struct slub_sheaf *sheaf)
{
	struct slub_event ev;

	if (!slub_wants(type))
		return;
	ev_init(&ev, type, s, c, NULL);
	ev.sheaf = sheaf_addr(sheaf);
	slub_emit(&ev);
}

/* alloc_empty_sheaf(): from the metadata allocator (the kernel's kmalloc
 * would recurse into the allocator being traced here). */
static struct slub_sheaf *alloc_empty_sheaf(struct slub_cache *s, struct slub_cpu *c)
{
	struct slub_sheaf *sheaf = slub_meta_alloc(sheaf_bytes(s));

	if (!sheaf)
		return NULL;
	stat_sheaf(c, SLUB_SHEAF_ALLOC, 1);
	memset(sheaf, 0, offsetof(struct slub_sheaf, objects));
	sheaf->cache = s;
	sheaf->capacity = s->sheaf_capacity;
	emit_sheaf(SLUB_EV_SHEAF_ALLOC, s, c, sheaf);
	return sheaf;
}

static void free_empty_sheaf(struct slub_cache *s, struct slub_sheaf *sheaf, struct slub_cpu *c)
{
	slub_assert(sheaf->size == 0);
	stat_sheaf(c, SLUB_SHEAF_FREE, 1);
	/* before the free: the address is not yet another sheaf's */
	emit_sheaf(SLUB_EV_SHEAF_FREE, s, c, sheaf);
	slub_meta_free(sheaf, sheaf_bytes(s));
}

/* sheaf_refill, sheaf_flush: count objects of slab into or out of sheaf
 * (refill: NULL when they go straight to the caller), with what the sheaf
 * then holds. */
static void emit_sheaf_slab(unsigned type, struct slub_cache *s, struct slub_cpu *c,
			    struct slab *slab, const struct slub_sheaf *sheaf, unsigned count,
			    unsigned size_after, bool other_node)
{
	struct slub_event ev;

	if (!slub_wants(type))
		return;
	ev_init(&ev, type, s, c, slab);
	ev.reason = other_node;
	ev.sheaf = sheaf_addr(sheaf);
	ev.count = count;
	ev.sheaf_size = size_after;
	slub_emit(&ev);
}

/* Injected two-sheaves: the copy of an object freed into main that was
 * also pushed on sheaf is taken off again, before the sheaf is used (its
 * top: nothing pops a spare).  The process stays sound; the trace showed
 * the sheaf with one object more than its events gave it. */
static void undo_two_sheaves(struct slub_cpu *c, struct slub_sheaf *sheaf)
{
	if (likely(!c->dup_sheaf) || (sheaf && c->dup_sheaf != sheaf))
		return;
	sheaf = c->dup_sheaf;
	if (sheaf->size && sheaf->objects[sheaf->size - 1] == c->dup_object)
		sheaf->size--;
	c->dup_sheaf = NULL;
	c->dup_object = NULL;
}

static void inject_two_sheaves(struct slub_cache *s, struct slub_cpu *c, void *object)
{
	static unsigned long tick;
	struct slub_sheaf *spare = c->spare;

	if (c->dup_sheaf || !spare || spare->size >= s->sheaf_capacity ||
	    !inject_now(&tick, 64))
		return;
	spare->objects[spare->size++] = object;
	c->dup_sheaf = spare;
	c->dup_object = object;
}

/* sheaf_slot: the slot's main and spare after a change of either. */
static void emit_sheaf_slot(struct slub_cache *s, struct slub_cpu *c)
{
	struct slub_event ev;

	if (!slub_wants(SLUB_EV_SHEAF_SLOT)) {
		undo_two_sheaves(c, NULL);
		return;
	}
	ev_init(&ev, SLUB_EV_SHEAF_SLOT, s, c, NULL);
	ev.slot = c->id;
	ev.node = c->node;
	ev.sheaf = sheaf_addr(c->main);
	ev.spare = sheaf_addr(c->spare);
	ev.sheaf_size = c->main ? c->main->size : 0;
	ev.spare_size = c->spare ? c->spare->size : 0;
	slub_emit(&ev);
	undo_two_sheaves(c, NULL);
}

/* barn_put, barn_get: under barn_lock, the barn's counts after the move. */
static void emit_barn(unsigned type, struct slub_cache *s, struct slub_cpu *c, int node,
		      const struct slub_node *b, const struct slub_sheaf *sheaf, unsigned list)
{
	struct slub_event ev;

	if (!slub_wants(type))
		return;
	ev_init(&ev, type, s, c, NULL);
	ev.node = node;
	ev.reason = list;
	ev.sheaf = sheaf_addr(sheaf);
	ev.sheaf_size = sheaf->size;
	ev.barn_full = b->barn_nr_full;
	ev.barn_empty = b->barn_nr_empty;
	slub_emit(&ev);
}

/* ---- the barn ---- */

/* get_barn(): the barn of the slot's node (numa_mem_id()). */
static struct slub_node *get_barn(struct slub_cache *s, struct slub_cpu *c)
{
	return get_node(s, c->node);
}

static void barn_lock(struct slub_node *b)
{
	slub_futex_lock(&b->barn_lock);
}

static void barn_unlock(struct slub_node *b)
{
	slub_futex_unlock(&b->barn_lock);
}

static struct slub_sheaf *barn_pop(struct slub_sheaf **list)
{
	struct slub_sheaf *sheaf = *list;

	*list = sheaf->barn_next;
	sheaf->barn_next = NULL;
	return sheaf;
}

static void barn_push(struct slub_sheaf **list, struct slub_sheaf *sheaf)
{
	sheaf->barn_next = *list;
	*list = sheaf;
}

/* Injected barn-count: one empty sheaf in 8 put in the barn is counted
 * twice.  The pops look at the list as well as the count, so the process
 * stays sound; the barn's counts are out of step from then on. */
static void inject_barn_count(struct slub_node *b)
{
	static unsigned long tick;

	if (unlikely(variant(SLUB_INJ_BARN_COUNT)) && inject_now(&tick, 8))
		b->barn_nr_empty++;
}

/* barn_get_empty_sheaf() (7.0) */
static struct slub_sheaf *barn_get_empty_sheaf(struct slub_cache *s, struct slub_cpu *c,
					       struct slub_node *b)
{
	struct slub_sheaf *empty = NULL;

	if (!READ_ONCE(b->barn_nr_empty))
		return NULL;
	barn_lock(b);
	/* the list too, not only its count: see barn_put_empty_sheaf() */
	if (b->barn_nr_empty && b->barn_empty) {
		empty = barn_pop(&b->barn_empty);
		b->barn_nr_empty--;
		emit_barn(SLUB_EV_BARN_GET, s, c, c->node, b, empty, SLUB_BARN_EMPTY);
	}
	barn_unlock(b);
	return empty;
}

/* barn_put_empty_sheaf(), barn_put_full_sheaf() (7.0): no limit check, the
 * callers checked or undo an exchange. */
static void barn_put_empty_sheaf(struct slub_cache *s, struct slub_cpu *c, struct slub_node *b,
				 struct slub_sheaf *sheaf)
{
	barn_lock(b);
	barn_push(&b->barn_empty, sheaf);
	b->barn_nr_empty++;
	inject_barn_count(b);
	emit_barn(SLUB_EV_BARN_PUT, s, c, c->node, b, sheaf, SLUB_BARN_EMPTY);
	barn_unlock(b);
}

static void barn_put_full_sheaf(struct slub_cache *s, struct slub_cpu *c, struct slub_node *b,
				struct slub_sheaf *sheaf)
{
	barn_lock(b);
	barn_push(&b->barn_full, sheaf);
	b->barn_nr_full++;
	emit_barn(SLUB_EV_BARN_PUT, s, c, c->node, b, sheaf, SLUB_BARN_FULL);
	barn_unlock(b);
}

/* barn_replace_empty_sheaf() (7.0): a full sheaf for an empty one; the
 * number of sheaves does not change, so no limit applies. */
static struct slub_sheaf *barn_replace_empty_sheaf(struct slub_cache *s, struct slub_cpu *c,
						   struct slub_node *b, struct slub_sheaf *empty)
{
	struct slub_sheaf *full = NULL;

	if (!READ_ONCE(b->barn_nr_full))
		return NULL;
	barn_lock(b);
	if (b->barn_nr_full) {
		full = barn_pop(&b->barn_full);
		b->barn_nr_full--;
		emit_barn(SLUB_EV_BARN_GET, s, c, c->node, b, full, SLUB_BARN_FULL);
		barn_push(&b->barn_empty, empty);
		b->barn_nr_empty++;
		inject_barn_count(b);
		emit_barn(SLUB_EV_BARN_PUT, s, c, c->node, b, empty, SLUB_BARN_EMPTY);
	}
	barn_unlock(b);
	return full;
}

/* barn_replace_full_sheaf() (7.0): an empty sheaf for a full one; NULL
 * with *err E2BIG when the barn holds too many full sheaves (checked
 * racily, as the kernel does), ENOMEM when it has no empty one. */
static struct slub_sheaf *barn_replace_full_sheaf(struct slub_cache *s, struct slub_cpu *c,
						  struct slub_node *b, struct slub_sheaf *full,
						  int *err)
{
	struct slub_sheaf *empty = NULL;

	if (READ_ONCE(b->barn_nr_full) >= MAX_FULL_SHEAVES) {
		*err = E2BIG;
		return NULL;
	}
	if (!READ_ONCE(b->barn_nr_empty)) {
		*err = ENOMEM;
		return NULL;
	}
	barn_lock(b);
	if (b->barn_nr_empty && b->barn_empty) {
		empty = barn_pop(&b->barn_empty);
		b->barn_nr_empty--;
		emit_barn(SLUB_EV_BARN_GET, s, c, c->node, b, empty, SLUB_BARN_EMPTY);
		barn_push(&b->barn_full, full);
		b->barn_nr_full++;
		emit_barn(SLUB_EV_BARN_PUT, s, c, c->node, b, full, SLUB_BARN_FULL);
	}
	barn_unlock(b);
	if (!empty)
		*err = ENOMEM;
	return empty;
}

/* ---- slabs ---- */

/*
 * __slab_free() (7.0): the slab is never frozen.  list_lock is taken when
 * the free may change the slab's list: it becomes empty, or it was full
 * (on no list).  A slab with free objects that is on no list belongs to a
 * refill that took it off the partial list; its list is that refill's.
 */
static void sheaf_slab_free(struct slub_cache *s, struct slab *slab, void *head, void *tail,
			    unsigned cnt, struct slub_cpu *c)
{
	struct slab_word old, new;
	struct slub_node *n = NULL;
	bool was_full, on_node_partial = false;
	unsigned attempt = 0;

	for (;;) {
		if (n) {
			list_unlock(s, n, c);
			n = NULL;
		}
		old = slab_word_read(slab);
		if (unlikely(head == old.freelist || old.c.inuse < cnt)) {
			slub_report(s, slab, head, SLUB_ERR_DOUBLE_FREE,
				    head == old.freelist ? "object heads the slab freelist"
							 : "slab has no object in use");
			return;
		}
		was_full = old.freelist == NULL;
		set_freepointer(s, tail, old.freelist);
		new = old;
		new.freelist = head;
		new.c.inuse = old.c.inuse - cnt;
		if (!new.c.inuse || was_full) {
			n = get_node(s, slab->node);
			list_lock(s, n, c);
			on_node_partial = slab->list == SLAB_LIST_PARTIAL;
		}
		if (slab_update(s, slab, &old, &new, SLUB_SITE_SLAB_FREE, n != NULL, c, &attempt))
			break;
	}
	emit_word(SLUB_EV_FREE_REMOTE, s, c, slab, &old, &new, SLUB_SITE_SLAB_FREE, n != NULL,
		  SLUB_NO_OWNER, SLUB_NO_OWNER, SLUB_DEST_NONE);
	if (likely(!n))
		return;
	if (!was_full && !on_node_partial) {
		list_unlock(s, n, c);
		return;
	}
	if (unlikely(!new.c.inuse && n->nr_partial >= s->min_partial))
		goto slab_empty;
	if (unlikely(was_full)) {
		add_partial(s, n, slab, SLUB_DEST_TAIL, c);
		stat(c, SLUB_FREE_ADD_PARTIAL);
	}
	list_unlock(s, n, c);
	return;

slab_empty:
	if (likely(!was_full)) {
		remove_partial(s, n, slab, c);
		stat(c, SLUB_FREE_REMOVE_PARTIAL);
	}
	list_unlock(s, n, c);
	discard_slab(s, slab, c);
}

static unsigned long flush_loses_tick;

/*
 * __kmem_cache_free_bulk() (7.0): objects of one slab are linked into one
 * detached freelist (build_detached_freelist) and freed with one
 * __slab_free().
 */
static void kmem_cache_free_bulk_slabs(struct slub_cache *s, const struct slub_sheaf *sheaf,
				       unsigned nr, void **p, struct slub_cpu *c)
{
	while (nr) {
		void *head = p[--nr];
		struct slab *slab = slub_virt_to_slab(head);
		void *tail = head;
		unsigned cnt = 1;

		for (unsigned i = nr; i-- > 0;) {
			if (slub_virt_to_slab(p[i]) != slab)
				continue;
			set_freepointer(s, p[i], head);
			head = p[i];
			cnt++;
			p[i] = p[--nr];
		}
		sheaf_slab_free(s, slab, head, tail, cnt, c);
		/* what the sheaf holds after: its size without this flush's
		 * objects (already taken off), plus those still to go */
		emit_sheaf_slab(SLUB_EV_SHEAF_FLUSH, s, c, slab, sheaf, cnt, sheaf->size + nr,
				false);
		/* Injected flush-loses: an object taken off the sheaf goes to
		 * no slab (leaked, in use in its slab's word for good). */
		if (unlikely(variant(SLUB_INJ_FLUSH_LOSES)) && nr >= 2 &&
		    inject_now(&flush_loses_tick, 16))
			nr--;
	}
}

/* get_freelist_nofreeze() (7.0): the whole freelist of a slab taken off
 * the partial list, the slab left unfrozen and full. */
static void *get_freelist_nofreeze(struct slub_cache *s, struct slab *slab, struct slub_cpu *c)
{
	struct slab_word old, new;
	unsigned attempt = 0;

	do {
		old = slab_word_read(slab);
		slub_assert(!old.c.frozen);
		new = old;
		new.freelist = NULL;
		new.c.inuse = old.c.objects;
	} while (!slab_update(s, slab, &old, &new, SLUB_SITE_GET_FREELIST, 0, c, &attempt));
	emit_word(SLUB_EV_TAKE_FREELIST, s, c, slab, &old, &new, SLUB_SITE_GET_FREELIST, 0,
		  SLUB_NO_OWNER, SLUB_NO_OWNER, SLUB_DEST_FULL);
	return old.freelist;
}

/*
 * get_partial_node_bulk() (7.0): under list_lock, partial slabs off the
 * list until their free objects (read racily: a lower bound, frees may add
 * more) reach min.  At most max slabs, each holding at least one.
 */
static unsigned get_partial_node_bulk(struct slub_cache *s, struct slub_node *n, unsigned min,
				      unsigned max, struct slab **slabs, struct slub_cpu *c)
{
	unsigned nr = 0, total_free = 0;

	if (!READ_ONCE(n->nr_partial))
		return 0;
	list_lock(s, n, c);
	for (struct slab *slab = n->partial, *next; slab && nr < max; slab = next) {
		next = slab->next;
		struct slab_word w = slab_word_read(slab);
		unsigned slab_free = w.c.objects - w.c.inuse;

		if (!slab_free)
			continue;
		remove_partial(s, n, slab, c);
		slabs[nr++] = slab;
		total_free += slab_free;
		if (total_free >= min)
			break;
	}
	list_unlock(s, n, c);
	return nr;
}

/* sheaf_refill: count objects of slab now at p[0 .. upto) of a refill
 * into sheaf (NULL: for the caller), which then holds its objects up to
 * there. */
/* want: the node the objects were asked for; another than the slot's is
 * an allocation for that node (alloc_node_mismatch), said by the event. */
static void emit_refill(struct slub_cache *s, struct slub_cpu *c, struct slab *slab,
			const struct slub_sheaf *sheaf, void **p, unsigned count, unsigned upto,
			int want)
{
	unsigned size = sheaf ? (unsigned)(p + upto - (void **)sheaf->objects) : 0;

	emit_sheaf_slab(SLUB_EV_SHEAF_REFILL, s, c, slab, sheaf, count, size, want != c->node);
}

/* __refill_objects_node() (7.0): objects from one node's partial slabs. */
static unsigned refill_objects_node(struct slub_cache *s, const struct slub_sheaf *sheaf, void **p,
				    unsigned min, unsigned max, int node, int want,
				    struct slub_cpu *c)
{
	struct slub_node *n = get_node(s, node);
	struct slab *slabs[max];
	unsigned nr = get_partial_node_bulk(s, n, min, max, slabs, c);
	unsigned refilled = 0, i;

	if (!nr)
		return 0;
	for (i = 0; i < nr && refilled < max; i++) {
		struct slab *slab = slabs[i];
		void *object = get_freelist_nofreeze(s, slab, c);
		unsigned from_slab = refilled;

		while (object && refilled < max) {
			void *fp = get_freepointer(s, object);

			p[refilled++] = object;
			if (unlikely(!slub_check_freelist_ptr(s, slab, fp))) {
				/* A write after free over the free pointer: the
				 * rest of the chain is leaked, never followed. */
				slub_report(s, slab, object, SLUB_ERR_FREEPOINTER,
					    "next free pointer 0x%lx is outside the slab",
					    (unsigned long)(uintptr_t)fp);
				fp = NULL;
			}
			object = fp;
		}
		emit_refill(s, c, slab, sheaf, p, refilled - from_slab, refilled, want);
		if (unlikely(object)) {
			/* More than we can take (frees raced in): the rest
			 * goes back as a detached freelist. */
			void *head = object, *tail;
			unsigned cnt = 0;

			do {
				tail = object;
				cnt++;
				object = get_freepointer(s, object);
				if (unlikely(!slub_check_freelist_ptr(s, slab, object))) {
					slub_report(s, slab, tail, SLUB_ERR_FREEPOINTER,
						    "next free pointer 0x%lx is outside the slab",
						    (unsigned long)(uintptr_t)object);
					set_freepointer(s, tail, NULL);
					object = NULL;
				}
			} while (object);
			sheaf_slab_free(s, slab, head, tail, cnt, c);
		}
	}
	if (unlikely(i < nr)) {
		/* Slabs not needed after all: back on the list, or discarded
		 * when empty and the node has enough partial slabs. */
		unsigned first = i;

		list_lock(s, n, c);
		for (i = first; i < nr; i++) {
			if (!slab_word_read(slabs[i]).c.inuse && n->nr_partial >= s->min_partial)
				continue;
			add_partial(s, n, slabs[i], SLUB_DEST_HEAD, c);
			slabs[i] = NULL;
		}
		list_unlock(s, n, c);
		for (i = first; i < nr; i++)
			if (slabs[i])
				discard_slab(s, slabs[i], c);
	}
	return refilled;
}

/*
 * refill_objects() (7.0): the local node's partial slabs, then the other
 * nodes' that hold more than min_partial (__refill_objects_any, without
 * the defrag ratio's randomness), then new slabs on the local node.
 */
static unsigned refill_objects(struct slub_cache *s, const struct slub_sheaf *sheaf, void **p,
			       unsigned min, unsigned max, int node, struct slub_cpu *c)
{
	unsigned refilled = refill_objects_node(s, sheaf, p, min, max, node, node, c);

	for (int i = 0; i < slub_nodes && refilled < min; i++) {
		if (i == node || READ_ONCE(get_node(s, i)->nr_partial) <= s->min_partial)
			continue;
		refilled += refill_objects_node(s, sheaf, p + refilled, min - refilled,
						max - refilled, i, node, c);
	}
	while (refilled < min) {
		unsigned take = max - refilled;
		struct slab *slab = sheaves_new_slab(s, node, c, take, p + refilled);

		if (!slab)
			break;
		stat(c, SLUB_ALLOC_SLAB);
		/* alloc_from_new_slab(): objects left, so on the partial list */
		if (s->objects > take) {
			struct slub_node *n = get_node(s, node);

			emit_refill(s, c, slab, sheaf, p, take, refilled + take, node);
			list_lock(s, n, c);
			add_partial(s, n, slab, SLUB_DEST_HEAD, c);
			list_unlock(s, n, c);
			refilled += take;
		} else {
			emit_refill(s, c, slab, sheaf, p, s->objects, refilled + s->objects,
				    node);
			refilled += s->objects;
		}
	}
	return refilled;
}

/* ---- sheaves and slabs ---- */

/* sheaf_flush_unused() (7.0): every object of a sheaf back to its slab. */
static void sheaf_flush_unused(struct slub_cache *s, struct slub_sheaf *sheaf, struct slub_cpu *c)
{
	undo_two_sheaves(c, sheaf);
	if (!sheaf->size)
		return;
	unsigned nr = sheaf->size;
	sheaf->size = 0;
	stat_sheaf(c, SLUB_SHEAF_FLUSH, nr);
	kmem_cache_free_bulk_slabs(s, sheaf, nr, sheaf->objects, c);
}

/* sheaf_flush_main() (7.0): main's objects to their slabs, from the top,
 * in batches of PCS_BATCH_MAX as the kernel moves them off the locked
 * sheaf. */
static void sheaf_flush_main(struct slub_cache *s, struct slub_cpu *c)
{
	void *objects[PCS_BATCH_MAX];
	struct slub_sheaf *sheaf = c->main;

	undo_two_sheaves(c, sheaf);
	while (sheaf->size) {
		unsigned batch = sheaf->size < PCS_BATCH_MAX ? sheaf->size : PCS_BATCH_MAX;

		sheaf->size -= batch;
		memcpy(objects, sheaf->objects + sheaf->size, batch * sizeof(void *));
		kmem_cache_free_bulk_slabs(s, sheaf, batch, objects, c);
		stat_sheaf(c, SLUB_SHEAF_FLUSH, batch);
	}
}

/* refill_sheaf() (7.0): 0 when full, -ENOMEM with what could be had. */
static int refill_sheaf(struct slub_cache *s, struct slub_sheaf *sheaf, struct slub_cpu *c)
{
	unsigned to_fill = s->sheaf_capacity - sheaf->size;

	if (!to_fill)
		return 0;
	unsigned filled =
		refill_objects(s, sheaf, &sheaf->objects[sheaf->size], to_fill, to_fill, c->node, c);
	sheaf->size += filled;
	stat_sheaf(c, SLUB_SHEAF_REFILL, filled);
	return filled < to_fill ? -ENOMEM : 0;
}

static struct slub_sheaf *alloc_full_sheaf(struct slub_cache *s, struct slub_cpu *c)
{
	struct slub_sheaf *sheaf = alloc_empty_sheaf(s, c);

	if (!sheaf)
		return NULL;
	if (refill_sheaf(s, sheaf, c)) {
		sheaf_flush_unused(s, sheaf, c);
		free_empty_sheaf(s, sheaf, c);
		return NULL;
	}
	return sheaf;
}

/* __pcs_replace_empty_main() (7.0): main is empty; false when no object
 * could be had (then main is still empty). */
static bool pcs_replace_empty_main(struct slub_cache *s, struct slub_cpu *c)
{
	struct slub_sheaf *empty = NULL, *full;
	struct slub_node *barn = get_barn(s, c);

	if (c->spare && c->spare->size > 0) {
		full = c->main;
		c->main = c->spare;
		c->spare = full;
		return true;
	}
	full = barn_replace_empty_sheaf(s, c, barn, c->main);
	if (full) {
		stat_sheaf(c, SLUB_BARN_GET, 1);
		c->main = full;
		return true;
	}
	stat_sheaf(c, SLUB_BARN_GET_FAIL, 1);
	if (c->spare) {
		empty = c->spare;
		c->spare = NULL;
	} else {
		empty = barn_get_empty_sheaf(s, c, barn);
	}
	if (empty) {
		if (!refill_sheaf(s, empty, c)) {
			full = empty;
		} else {
			/* Very low on memory: the kernel frees the sheaf; what
			 * the refill did get goes back to the slabs first. */
			sheaf_flush_unused(s, empty, c);
			free_empty_sheaf(s, empty, c);
		}
	} else {
		full = alloc_full_sheaf(s, c);
	}
	if (!full)
		return false;
	if (!c->spare)
		c->spare = c->main;
	else
		barn_put_empty_sheaf(s, c, barn, c->main);
	c->main = full;
	return true;
}

/* __pcs_install_empty_sheaf() (7.0), for the one case that remains when
 * the slot never changes hands: spare is full, main is full. */
static void pcs_install_empty_sheaf(struct slub_cache *s, struct slub_cpu *c,
				    struct slub_sheaf *empty, struct slub_node *barn)
{
	(void)s;
	if (!c->spare) {
		c->spare = c->main;
		c->main = empty;
		return;
	}
	barn_put_full_sheaf(s, c, barn, c->main);
	stat_sheaf(c, SLUB_BARN_PUT, 1);
	c->main = empty;
}

/* __pcs_replace_full_main() (7.0): main is full; afterwards it has room. */
static void pcs_replace_full_main(struct slub_cache *s, struct slub_cpu *c)
{
	struct slub_node *barn = get_barn(s, c);
	struct slub_sheaf *empty;
	int err = 0;

	if (!c->spare) {
		empty = barn_get_empty_sheaf(s, c, barn);
		if (empty) {
			c->spare = c->main;
			c->main = empty;
			return;
		}
		goto alloc_empty;
	}
	if (c->spare->size < s->sheaf_capacity) {
		empty = c->main;
		c->main = c->spare;
		c->spare = empty;
		return;
	}
	empty = barn_replace_full_sheaf(s, c, barn, c->main, &err);
	if (empty) {
		stat_sheaf(c, SLUB_BARN_PUT, 1);
		c->main = empty;
		return;
	}
	if (err == E2BIG) {
		stat_sheaf(c, SLUB_BARN_PUT_FAIL, 1);
		/* Too many full sheaves in the barn: the spare (full) goes to
		 * the slabs and becomes the empty main. */
		struct slub_sheaf *to_flush = c->spare;

		c->spare = NULL;
		sheaf_flush_unused(s, to_flush, c);
		pcs_install_empty_sheaf(s, c, to_flush, barn);
		return;
	}
alloc_empty:
	empty = alloc_empty_sheaf(s, c);
	if (empty) {
		pcs_install_empty_sheaf(s, c, empty, barn);
		return;
	}
	if (err == ENOMEM)
		stat_sheaf(c, SLUB_BARN_PUT_FAIL, 1);
	sheaf_flush_main(s, c);
}

/* ---- entry points ---- */

static bool pcs_main(struct slub_cache *s, struct slub_cpu *c)
{
	if (likely(c->main))
		return true;
	c->main = alloc_empty_sheaf(s, c);
	if (!c->main)
		return false;
	emit_sheaf_slot(s, c);
	return true;
}

/* pcs_replace_empty_main() and the slot's sheaves it leaves. */
static bool pcs_replace_empty_main_slot(struct slub_cache *s, struct slub_cpu *c)
{
	bool ok = pcs_replace_empty_main(s, c);

	emit_sheaf_slot(s, c);
	return ok;
}

/*
 * alloc_from_pcs(), then ___slab_alloc() (7.0).  An allocation for another
 * node than the slot's bypasses the sheaves, as the kernel's does: one
 * object from that node's partial slabs or a new slab there (taken by the
 * bulk path: the rest of a partial slab's freelist goes back to it).
 */
void *sheaves_alloc(struct slub_cache *s, int node, struct slub_cpu *c)
{
	void *object;

	if (unlikely(node >= 0 && node != c->node)) {
		stat(c, SLUB_ALLOC_NODE_MISMATCH);
		if (refill_objects(s, NULL, &object, 1, 1, node, c) != 1)
			return NULL;
		stat(c, SLUB_ALLOC_SLOWPATH);
		return object;
	}
	if (unlikely(!pcs_main(s, c)))
		return NULL;
	/* (a loop only for the injected two-sheaves, whose undo may empty
	 * the main it swapped in) */
	while (unlikely(c->main->size == 0)) {
		if (pcs_replace_empty_main_slot(s, c))
			continue;
		/* ___slab_alloc(): no sheaf could be had, one object. */
		if (refill_objects(s, NULL, &object, 1, 1, c->node, c) != 1)
			return NULL;
		stat(c, SLUB_ALLOC_SLOWPATH);
		return object;
	}
	object = c->main->objects[--c->main->size];
	stat(c, SLUB_ALLOC_FASTPATH);
	return object;
}

/* free_to_pcs() (7.0) */
static bool free_to_pcs(struct slub_cache *s, void *object, struct slub_cpu *c)
{
	if (unlikely(!pcs_main(s, c)))
		return false;
	if (unlikely(c->main->size == s->sheaf_capacity)) {
		pcs_replace_full_main(s, c);
		emit_sheaf_slot(s, c);
		if (c->main->size == s->sheaf_capacity)
			return false;
	}
	c->main->objects[c->main->size++] = object;
	if (unlikely(variant(SLUB_INJ_TWO_SHEAVES)))
		inject_two_sheaves(s, c, object);
	stat(c, SLUB_FREE_FASTPATH);
	return true;
}

/*
 * slab_free() (7.0): an object of the slot's node goes to the sheaves, any
 * other straight to its slab.  A detached freelist (cnt > 1) is freed
 * object by object, as free_to_pcs_bulk() takes an array.
 */
void sheaves_free(struct slub_cache *s, struct slab *slab, void *head, void *tail,
		  unsigned cnt, struct slub_cpu *c)
{
	void *object = head;

	(void)tail;
	while (cnt--) {
		void *next = cnt ? get_freepointer(s, object) : NULL;

		if (likely(slab->node == c->node) && likely(free_to_pcs(s, object, c))) {
			object = next;
			continue;
		}
		sheaf_slab_free(s, slab, object, object, 1, c);
		stat(c, SLUB_FREE_SLOWPATH);
		object = next;
	}
}

/*
 * pcs_flush_all() / __pcs_flush_all_cpu() (7.0): both sheaves straight to
 * the slabs, skipping the barn, and freed; the next use of the slot gets a
 * new empty main.  Thread exit, destroy, shrink, validate and fork adoption
 * come here through flush_cpu_slab().
 */
void sheaves_flush_cpu(struct slub_cache *s, struct slub_cpu *c)
{
	struct slub_sheaf *spare = c->spare, *main = c->main;

	c->spare = NULL;
	if (spare) {
		sheaf_flush_unused(s, spare, c);
		free_empty_sheaf(s, spare, c);
	}
	if (main) {
		sheaf_flush_main(s, c);
		c->main = NULL;
		free_empty_sheaf(s, main, c);
	}
	if (spare || main)
		emit_sheaf_slot(s, c);
}

/* barn_shrink() (7.0), every node: full sheaves flushed, all freed. */
void sheaves_barn_shrink(struct slub_cache *s, struct slub_cpu *c)
{
	for (int i = 0; i < slub_nodes; i++) {
		struct slub_node *b = get_node(s, i);
		struct slub_sheaf *full, *empty;

		barn_lock(b);
		full = b->barn_full;
		empty = b->barn_empty;
		b->barn_full = b->barn_empty = NULL;
		if (slub_wants(SLUB_EV_BARN_GET)) {
			/* one barn_get per sheaf, the counts going down */
			for (struct slub_sheaf *f = full; f; f = f->barn_next) {
				b->barn_nr_full--;
				emit_barn(SLUB_EV_BARN_GET, s, c, i, b, f, SLUB_BARN_FULL);
			}
			for (struct slub_sheaf *e = empty; e; e = e->barn_next) {
				b->barn_nr_empty--;
				emit_barn(SLUB_EV_BARN_GET, s, c, i, b, e, SLUB_BARN_EMPTY);
			}
		}
		b->barn_nr_full = b->barn_nr_empty = 0;
		barn_unlock(b);
		while (full) {
			struct slub_sheaf *sheaf = barn_pop(&full);
			sheaf_flush_unused(s, sheaf, c);
			free_empty_sheaf(s, sheaf, c);
		}
		while (empty)
			free_empty_sheaf(s, barn_pop(&empty), c);
	}
}

/* fork: 0 takes every barn lock (prepare), 1 releases them (parent), 2
 * resets them (child). */
void sheaves_barn_locks(struct slub_cache *s, int how)
{
	for (int i = 0; i < slub_nodes; i++) {
		struct slub_node *b = get_node(s, i);

		if (how == 0)
			barn_lock(b);
		else if (how == 1)
			barn_unlock(b);
		else
			b->barn_lock = 0;
	}
}
