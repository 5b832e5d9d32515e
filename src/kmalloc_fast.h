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

#endif /* SLUB_KMALLOC_FAST_H */
