/* SPDX-License-Identifier: MIT */
/*
 * The kmalloc family over the size classes (kmalloc-8 ... kmalloc-8k), with
 * larger sizes and large alignments going to the page layer
 * (kmalloc_large), and the ownership lookup of any pointer.
 */
#define _GNU_SOURCE
#include "kmalloc_fast.h"

#include <errno.h>

SLUB_INTERNAL bool slub_huge_lookup(const void *p, size_t *usable);

/*
 * Not initialised yet, or Z on the kmalloc caches: then the size asked
 * for is recorded and the bytes after it, up to the object's end, become
 * red zone (large blocks get theirs in the page layer).
 */
__attribute__((noinline)) void *slub_kmalloc_slow(size_t size, int node)
{
	slub_init();
	void *p = __kmalloc_node(size, node);
	if (p && size <= SLUB_KMALLOC_MAX_CACHE_SIZE && (slub_debug_flags_env & SLUB_F_RED_ZONE))
		slub_set_orig_size(kmalloc_slab(size), p, size);
	return p;
}

void *slub_malloc(size_t size)
{
	return kmalloc_node(size, -1);
}

void *slub_malloc_node(size_t size, int node)
{
	slub_init();
	return kmalloc_node(size, node >= 0 && node < slub_nodes ? node : -1);
}

SLUB_INTERNAL bool slub_huge_free(void *p);

/*
 * A free of a pointer no live block starts at, that the page layer knows:
 * pages of ours that are free (a large block freed twice, or an object
 * whose slab is gone), a dedicated mapping freed lately, or a pointer
 * inside a live mapping.  Reported as the same mistakes are for small
 * objects and 100 KB runs; false when the pointer was never ours.
 */
static __attribute__((noinline, cold)) bool large_report_stale(void *ptr)
{
	const void *block;

	switch (slub_large_stale(ptr, &block)) {
	case SLUB_STALE_FREED:
		slub_report(NULL, NULL, ptr, SLUB_ERR_DOUBLE_FREE,
			    "free(0x%lx): a large block that is already free",
			    (unsigned long)(uintptr_t)ptr);
		return true;
	case SLUB_STALE_INSIDE:
		slub_report(NULL, NULL, ptr, SLUB_ERR_NOT_OBJECT_START,
			    "free(0x%lx): inside a large allocation at 0x%lx",
			    (unsigned long)(uintptr_t)ptr, (unsigned long)(uintptr_t)block);
		return true;
	}
	return false;
}

/* kfree() of a pointer that is not a well-formed object of a slab (see
 * kmalloc_fast.h): a bad pointer into a slab, a large block, or not ours. */
__attribute__((noinline)) bool slub_kfree_other(void *ptr, struct slab *slab)
{
	int saved = errno;
	bool ours = true;

	if (slab && slab->kind == SLAB_KIND_SLAB) {
		slub_object_slab(NULL, ptr, "free"); /* reports what is wrong */
	} else if (slab) {
		if ((char *)ptr == slab->base + slab->large_offset)
			slub_large_free(slab, ptr);
		else
			slub_report(NULL, NULL, ptr, SLUB_ERR_NOT_OBJECT_START,
				    "free(0x%lx): inside a large allocation at 0x%lx",
				    (unsigned long)(uintptr_t)ptr,
				    (unsigned long)(uintptr_t)slab->base);
	} else {
		ours = slub_huge_free(ptr) || large_report_stale(ptr);
	}
	errno = saved;
	return ours;
}

void slub_free(void *ptr)
{
	if (unlikely(!ptr))
		return;
	if (unlikely(!kfree(ptr))) {
		int saved = errno;
		slub_report_foreign(ptr, "free");
		errno = saved;
	}
}

int slub_try_free(void *ptr)
{
	if (!ptr)
		return 1;
	return kfree(ptr);
}

void *slub_calloc(size_t nmemb, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(nmemb, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	if (total > SLUB_KMALLOC_MAX_CACHE_SIZE) {
		slub_init();
		return slub_large_calloc(total);
	}
	void *p = slub_malloc(total);
	if (p)
		memset(p, 0, total);
	return p;
}

int slub_ptr_lookup(const void *ptr, struct slub_ptr_info *info)
{
	struct slub_ptr_info tmp;

	if (!info)
		info = &tmp;
	memset(info, 0, sizeof(*info));
	if (!ptr)
		return 0;
	struct slab *slab = slub_virt_to_slab(ptr);
	if (slab && slab->kind == SLAB_KIND_SLAB) {
		struct slub_cache *s = READ_ONCE(slab->cache);
		if (!s)
			return 0;
		if ((const char *)ptr >= slab->base + (size_t)s->objects * s->size)
			return 0; /* slab tail padding or the F bitmap */
		/* Z: before the first object, its left red zone */
		unsigned idx = (const char *)ptr < slab->base ? 0 : obj_to_index(s, slab, ptr);
		info->kind = SLUB_OWNER_SLAB;
		info->cache = s;
		info->slab = slab->base;
		info->index = idx;
		info->object = slab->base + (size_t)idx * s->size;
		info->start = info->object == ptr;
		size_t off = (size_t)((const char *)ptr - (const char *)info->object);
		/* with Z on kmalloc caches: what was asked for */
		size_t usable = s->orig_size_offset && info->start
				? slub_orig_size(s, ptr) : s->object_size;
		info->usable = off < usable ? usable - off : 0;
		return 1;
	}
	if (slab && slab->kind == SLAB_KIND_LARGE) {
		info->kind = SLUB_OWNER_LARGE;
		info->object = slab->base + slab->large_offset;
		info->start = info->object == ptr;
		info->slab = slab->base;
		info->usable = slub_large_usable(slab, ptr);
		return 1;
	}
	size_t usable;
	if (!slab && slub_huge_lookup(ptr, &usable)) {
		info->kind = SLUB_OWNER_LARGE;
		info->object = (void *)ptr;
		info->start = 1;
		info->usable = usable;
		return 1;
	}
	return 0;
}

size_t slub_usable_size(const void *ptr)
{
	struct slub_ptr_info info;

	if (!slub_ptr_lookup(ptr, &info))
		return 0;
	return info.usable;
}

void *slub_realloc(void *ptr, size_t size)
{
	struct slub_ptr_info info;

	if (!ptr)
		return slub_malloc(size);
	if (size == 0) {
		slub_free(ptr);
		return NULL;
	}
	if (!slub_ptr_lookup(ptr, &info) || !info.start) {
		slub_report(NULL, NULL, ptr, SLUB_ERR_FOREIGN_POINTER,
			    "realloc(0x%lx): not a slubtrace allocation", (unsigned long)(uintptr_t)ptr);
		errno = EINVAL;
		return NULL;
	}
	/* Stay in place when the size class would not change (kernel krealloc
	 * keeps the object while ksize() covers the new size). */
	if (info.kind == SLUB_OWNER_SLAB && info.cache->orig_size_offset &&
	    size <= info.cache->object_size && size > info.cache->object_size / 2) {
		/* Z: the object stays, with its new size and red zone */
		slub_set_orig_size(info.cache, ptr, size);
		return ptr;
	}
	if (info.kind == SLUB_OWNER_SLAB && size <= info.usable && size > info.usable / 2)
		return ptr;
	/* A large block grows or shrinks where it is, or by mremap(); only
	 * one that becomes a kmalloc object, or a run that cannot grow in
	 * its segment, is copied. */
	if (info.kind == SLUB_OWNER_LARGE && size > SLUB_KMALLOC_MAX_CACHE_SIZE) {
		void *q = slub_large_resize(slub_virt_to_slab(ptr), ptr, size);
		if (q)
			return q;
	}
	void *n = slub_malloc(size);
	if (!n)
		return NULL;
	size_t copy = size < info.usable ? size : info.usable;
	memcpy(n, ptr, copy);
	__atomic_fetch_add(&slub_realloc_copies, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&slub_realloc_copied_bytes, copy, __ATOMIC_RELAXED);
	slub_free(ptr);
	return n;
}

void *slub_aligned_alloc(size_t align, size_t size)
{
	if (align == 0 || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	if (align <= 16)
		return slub_malloc(size < align ? align : size); /* kmalloc-8 is 8-aligned */
	size_t need = size > align ? size : align;
	if (align <= SLUB_PAGE_SIZE && need <= SLUB_KMALLOC_MAX_CACHE_SIZE) {
		/* Power-of-two kmalloc objects are naturally aligned. */
		size_t cls = 1;
		while (cls < need)
			cls <<= 1;
		if (cls <= SLUB_KMALLOC_MAX_CACHE_SIZE)
			return slub_malloc(cls);
	}
	slub_init();
	return slub_large_alloc(size ? size : 1, align);
}

int slub_posix_memalign(void **out, size_t align, size_t size)
{
	int saved = errno;

	if (!out || align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	void *p = slub_aligned_alloc(align, size);
	if (!p) {
		errno = saved;
		return ENOMEM;
	}
	*out = p;
	errno = saved;
	return 0;
}
