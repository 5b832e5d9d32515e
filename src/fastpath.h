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
