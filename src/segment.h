/* SPDX-License-Identifier: MIT */
/*
 * Segment layout, shared by the page layer and the inlined object -> slab
 * lookup.  A segment is 4 MiB, aligned to 4 MiB:
 *
 *   | header: struct segment, one struct slab per page | data pages ... |
 *   0                                     SEG_DATA_START * 4 KiB          4 MiB
 */
#ifndef SLUB_SEGMENT_H
#define SLUB_SEGMENT_H

#include "internal.h"

#define SEG_SHIFT 22
#define SEG_SIZE (1ul << SEG_SHIFT)
#define SEG_PAGES (SEG_SIZE >> SLUB_PAGE_SHIFT)
#define ADDR_BITS 47
#define SEGMAP_BITS (1ul << (ADDR_BITS - SEG_SHIFT))

struct segment {
	uint64_t magic;
	struct segment *next;
	uint32_t nr_free;
	uint32_t nr_dirty;
	uint32_t first_free;            /* no free page below this index */
	uint32_t pad;
	uint64_t used[SEG_PAGES / 64];
	uint64_t dirty[SEG_PAGES / 64];
	struct slab desc[SEG_PAGES];
};

#define SEG_DATA_START \
	((sizeof(struct segment) + SLUB_PAGE_SIZE - 1) >> SLUB_PAGE_SHIFT)
#define SEG_DATA_PAGES (SEG_PAGES - SEG_DATA_START)

/* One bit per segment-sized chunk of the address space: is it ours? */
SLUB_INTERNAL extern uint64_t slub_segmap[SEGMAP_BITS / 64];

/*
 * virt_to_slab(): the slab (or large allocation) holding p, or NULL when p
 * is not in one of our segments or in no live slab.  Touches no memory
 * that is not ours.
 */
static inline struct slab *virt_to_slab(const void *p)
{
	uintptr_t chunk = (uintptr_t)p >> SEG_SHIFT;

	if (unlikely(chunk >= SEGMAP_BITS) ||
	    !((__atomic_load_n(&slub_segmap[chunk / 64], __ATOMIC_ACQUIRE) >> (chunk % 64)) & 1))
		return NULL;
	struct segment *seg = (struct segment *)(chunk << SEG_SHIFT);
	size_t idx = ((uintptr_t)p - (uintptr_t)seg) >> SLUB_PAGE_SHIFT;
	if (unlikely(idx < SEG_DATA_START))
		return NULL;
	struct slab *d = &seg->desc[idx];
	uint8_t kind = __atomic_load_n(&d->kind, __ATOMIC_ACQUIRE);
	if (unlikely(kind == SLAB_KIND_TAIL)) {
		d -= READ_ONCE(d->head_off);
		kind = __atomic_load_n(&d->kind, __ATOMIC_ACQUIRE);
	}
	if (unlikely(kind != SLAB_KIND_SLAB && kind != SLAB_KIND_LARGE))
		return NULL;
	return d;
}

#endif /* SLUB_SEGMENT_H */
