/* SPDX-License-Identifier: MIT */
/*
 * kmalloc and kfree as the malloc shim calls them: inline, so that malloc()
 * and free() reach the cpu freelist without a call into the allocator (a
 * call and its frame were about a tenth of a malloc/free pair).  The rest
 * (not initialised, Z red zones, large blocks, bad pointers) is out of line
 * in kmalloc.c.
 */
#ifndef SLUB_KMALLOC_FAST_H
#define SLUB_KMALLOC_FAST_H

#include "internal.h"
#include "fastpath.h"
#include "segment.h"

#include <errno.h>

SLUB_INTERNAL void *slub_kmalloc_slow(size_t size, int node);
SLUB_INTERNAL bool slub_kfree_other(void *ptr, struct slab *slab);

static inline __attribute__((always_inline)) void *__kmalloc_node(size_t size, int node)
{
	if (likely(size <= SLUB_KMALLOC_MAX_CACHE_SIZE)) {
		struct slub_cache *s = kmalloc_slab(size);
		void *p = slab_alloc_fast(s, node);
		if (unlikely(!p)) {
			errno = ENOMEM;
			return NULL;
		}
		return p;
	}
	return slub_large_alloc(size, 16);
}

/* One test on the way in: slub_kmalloc_plain is set once slub_init() is
 * done, when the kmalloc caches record no requested sizes. */
static inline __attribute__((always_inline)) void *kmalloc_node(size_t size, int node)
{
	if (unlikely(!READ_ONCE(slub_kmalloc_plain)))
		return slub_kmalloc_slow(size, node);
	return __kmalloc_node(size, node);
}

/*
 * Free ptr if it is ours.  Returns false, touching and reporting nothing,
 * when the page layer does not know the pointer at all; true when it was
 * freed or when a report said what was wrong with it.
 */
static inline __attribute__((always_inline)) bool kfree(void *ptr)
{
	struct slab *slab = virt_to_slab(ptr);

	if (likely(slab && slab->kind == SLAB_KIND_SLAB)) {
		struct slub_cache *s = READ_ONCE(slab->cache);
		if (likely(s)) {
			unsigned idx = obj_to_index(s, slab, ptr);
			if (likely(slab->base + (size_t)idx * s->size == (char *)ptr &&
				   idx < s->objects)) {
				slab_free_fast(s, slab, ptr);
				return true;
			}
		}
	}
	return slub_kfree_other(ptr, slab);
}

/*
 * The two commonest cases, with no call at all so that malloc() and free()
 * stay leaf functions on them (no registers saved, no frame): the thread's
 * cpu freelist of the size's cache hands out its head, or takes back an
 * object of the thread's own cpu slab, and no object event is wanted.
 * Anything else returns NULL / false having changed nothing, and the
 * caller takes the whole path (kmalloc_node(), kfree()), which checks and
 * does everything again: the same state machine, the same counters.
 */
static inline __attribute__((always_inline)) void *kmalloc_quick(size_t size)
{
	if (unlikely(!READ_ONCE(slub_kmalloc_plain)) || unlikely(size > SLUB_KMALLOC_MAX_CACHE_SIZE))
		return NULL;
	struct slub_cache *s = kmalloc_slab(size);
	struct slub_thread *t = slub_self;
	if (unlikely(!t))
		return NULL;
	struct slub_cpu *c = READ_ONCE(t->cpu[s->id]);
	if (unlikely(!c))
		return NULL;
	void *object = c->freelist;
	if (unlikely(!object))
		return NULL;
	void *next = get_freepointer(s, object);
	/* the end of the chain and a corrupt pointer: the whole path */
	if (unlikely(((uintptr_t)next ^ (uintptr_t)object) & s->slab_mask) ||
	    slub_wants_object(SLUB_EV_ALLOC))
		return NULL;
	c->freelist = next;
	stat(c, SLUB_ALLOC_FASTPATH);
	return object;
}

/* kfree_quick(): done, not a well-formed object of a slab (kfree() says
 * what it is), or an object of *slab in cache *s that the quick case does
 * not take (the caller takes it from there, without a second lookup; *cp
 * is the calling thread's slot of *s when it has one, else NULL). */
enum { KFREE_NOT_OBJECT = 0, KFREE_DONE = 1, KFREE_OBJECT = 2 };

static inline __attribute__((always_inline)) int kfree_quick(void *ptr, struct slab **slabp,
								struct slub_cache **sp,
								struct slub_cpu **cp)
{
	struct slab *slab = virt_to_slab(ptr);

	if (unlikely(!slab || slab->kind != SLAB_KIND_SLAB))
		return KFREE_NOT_OBJECT;
	struct slub_cache *s = READ_ONCE(slab->cache);
	if (unlikely(!s))
		return KFREE_NOT_OBJECT;
	unsigned idx = obj_to_index(s, slab, ptr);
	if (unlikely(slab->base + (size_t)idx * s->size != (char *)ptr || idx >= s->objects))
		return KFREE_NOT_OBJECT;
	*slabp = slab;
	*sp = s;
	*cp = NULL;
	struct slub_thread *t = slub_self;
	if (unlikely(!t))
		return KFREE_OBJECT;
	struct slub_cpu *c = READ_ONCE(t->cpu[s->id]);
	if (unlikely(!c))
		return KFREE_OBJECT;
	if (slab != c->slab) {
		*cp = c;
		return KFREE_OBJECT;
	}
	void *head = c->freelist;
	/* the object heading the freelist: a double free, reported there */
	if (unlikely(ptr == head) || slub_wants_object(SLUB_EV_FREE))
		return KFREE_OBJECT;
	set_freepointer(s, ptr, head);
	barrier(); /* a fork snapshot never sees the push before the link */
	c->freelist = ptr;
	stat(c, SLUB_FREE_FASTPATH);
	return KFREE_DONE;
}

#endif /* SLUB_KMALLOC_FAST_H */
