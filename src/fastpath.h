/* SPDX-License-Identifier: MIT */
/*
 * The fast paths, inlined into the entry points (kmalloc.c, cache.c).
 *
 * Allocation pops the thread's cpu freelist; a free of an object of the
 * thread's cpu slab pushes on it.  No lock, no atomic instruction: the slot
 * belongs to this thread, as kmem_cache_cpu belongs to its cpu.  Everything
 * else (empty freelist, node mismatch, debug caches, remote frees) goes to
 * ___slab_alloc / __slab_free.  Object events cost one test when off.
 */
#ifndef SLUB_FASTPATH_H
#define SLUB_FASTPATH_H

#include "internal.h"

static inline __attribute__((always_inline)) void *slab_alloc_fast(struct slub_cache *s, int node)
{
	struct slub_thread *t = slub_thread();
	if (unlikely(!t))
		return slub_orphan_alloc(s, node);
	struct slub_cpu *c = get_cpu_slab(s, t);
	void *object = c->freelist;
	struct slab *slab = c->slab;

	if (likely(object != NULL) && likely(node < 0 || slab->node == node)) {
		void *next = get_freepointer(s, object);
		/* Hardened freelist, at the cost of an xor and a test: the next
		 * free object lies in the same size-aligned slab.  The end of
		 * the chain (NULL) and a pointer written after free go out of
		 * line, so a use-after-free is reported, not a SIGSEGV later. */
		if (unlikely(((uintptr_t)next ^ (uintptr_t)object) & s->slab_mask))
			next = slub_freepointer_check_cpu(s, c, object, next);
		c->freelist = next;
		stat(c, SLUB_ALLOC_FASTPATH);
	} else {
		object = ___slab_alloc(s, node, c);
		if (unlikely(!object))
			return NULL;
	}
	if (slub_wants_object(SLUB_EV_ALLOC))
		slub_emit_object(SLUB_EV_ALLOC, s, c, NULL, object);
	return object;
}

/*
 * __slab_free()'s commonest case: the slab is frozen (some cpu slot's
 * active or partial slab), so the objects go on its freelist with one CAS
 * and nothing else can be needed, no lock, no list.  False, having changed
 * nothing the slab word shows, when the slab is not frozen, when the free
 * looks double (__slab_free_slow() reports it) or when the CAS lost
 * (*attempt counts it, slab_update() reported it); the caller goes on with
 * __slab_free_slow().
 */
static inline __attribute__((always_inline)) bool
slab_free_frozen(struct slub_cache *s, struct slab *slab, void *head, void *tail, unsigned cnt,
		 struct slub_cpu *c, unsigned *attempt)
{
	struct slab_word old = slab_word_read(slab), new;

	if (unlikely(!old.c.frozen || head == old.freelist || old.c.inuse < cnt))
		return false;
	set_freepointer(s, tail, old.freelist);
	new = old;
	new.freelist = head;
	new.c.inuse = old.c.inuse - cnt;
	if (unlikely(!slab_update(s, slab, &old, &new, SLUB_SITE_SLAB_FREE, 0, c, attempt)))
		return false;
	stat(c, SLUB_FREE_SLOWPATH);
	emit_word(SLUB_EV_FREE_REMOTE, s, c, slab, &old, &new, SLUB_SITE_SLAB_FREE, 0,
		  SLUB_OWNER_UNKNOWN, SLUB_OWNER_UNKNOWN, SLUB_DEST_NONE);
	stat(c, SLUB_FREE_FROZEN);
	return true;
}

/*
 * A free of one object of another slab than c's cpu slab, c being the
 * calling thread's slot (the malloc shim's free() found both): the frozen
 * case of __slab_free() with no call, else __slab_free_slow().  Only for
 * what slab_free_fast() would send straight to __slab_free(): no debug
 * cache, no object event, no forked child's slots to adopt first; false,
 * having done nothing, otherwise.
 */
static inline __attribute__((always_inline)) bool
slab_free_remote_quick(struct slub_cache *s, struct slab *slab, void *object, struct slub_cpu *c)
{
	unsigned attempt = 0;

	if (unlikely(kmem_cache_debug(s)) || unlikely(READ_ONCE(slub_adopt_pending)) ||
	    slub_wants_object(SLUB_EV_FREE) || unlikely(slab == c->slab))
		return false;
	if (unlikely(!slab_free_frozen(s, slab, object, object, 1, c, &attempt)))
		__slab_free_slow(s, slab, object, object, 1, c, attempt);
	return true;
}

static inline __attribute__((always_inline)) void slab_free_fast(struct slub_cache *s,
								  struct slab *slab, void *object)
{
	struct slub_thread *t = slub_thread();
	if (unlikely(!t)) {
		slub_orphan_free(s, slab, object);
		return;
	}
	struct slub_cpu *c = get_cpu_slab(s, t);

	if (slub_wants_object(SLUB_EV_FREE))
		slub_emit_object(SLUB_EV_FREE, s, c, slab, object);
	if (likely(slab == c->slab)) {
		void *head = c->freelist;
		if (unlikely(object == head)) {
			/* The hardened-freelist check: freeing the object that
			 * heads the freelist is a double free. */
			slub_free_double(s, slab, object);
			return;
		}
		set_freepointer(s, object, head);
		barrier(); /* a fork snapshot never sees the push before the link */
		c->freelist = object;
		stat(c, SLUB_FREE_FASTPATH);
		return;
	}
	__slab_free(s, slab, object, object, 1, c);
}

#endif /* SLUB_FASTPATH_H */
