// SPDX-License-Identifier: MIT
/*
 * The shim's fallback arena.
 *
 * Serves allocations the allocator must not see: those made on a thread on
 * which the allocator is already active (LTTng-UST inside a tracepoint,
 * dlsym/dlopen, libunwind, pthread_atfork registration...), those made while
 * another thread is initialising the allocator, and those made by a thread
 * after its exit flush.  It must therefore work without any lock, without
 * calling anything, and survive fork() at any instant.
 *
 * Layout of a block (classes are powers of two, 32 bytes to 16 MiB):
 *
 *   block                                  user pointer
 *   v                                      v
 *   [ link(free) | ... padding for align ... | hdr (16) | user bytes ... ]
 *
 * The 16-byte header sits right before every user pointer; without an
 * alignment request the header is the start of the block.  A free block
 * keeps the index of the next free block of its class in bytes 12..15 of
 * the block, which an aligned header (at least 16 bytes further) or a live
 * header (whose bytes 12..15 are unused) never overlaps.
 *
 * Equations: for every class c, blocks carved in c = blocks live in c +
 * blocks on the free list of c (minus blocks leaked by a fork() that cut a
 * pop or push short); carved bytes <= SHIM_FB_ARENA_SIZE.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "shim.h"

#define SHIM_FB_MIN_SHIFT 5  /* 32-byte blocks: header + 16 user bytes */
#define SHIM_FB_MAX_SHIFT 24 /* 16 MiB */
#define SHIM_FB_NR_CLASSES (SHIM_FB_MAX_SHIFT - SHIM_FB_MIN_SHIFT + 1)
#define SHIM_FB_GRAIN 16u    /* block index unit */

#define SHIM_FB_LIVE 0x51ab11feu
#define SHIM_FB_DEAD 0xdeadf11eu

struct shim_fb_hdr {
	uint32_t magic;
	uint32_t cls;
	uint32_t off;  /* user pointer - block start */
	uint32_t unused;
};
_Static_assert(sizeof(struct shim_fb_hdr) == 16, "header keeps user pointers 16-aligned");

char shim_fb_arena[SHIM_FB_ARENA_SIZE] __attribute__((aligned(4096)));
static _Atomic size_t shim_fb_top;
/* low 32 bits: index + 1 of the first free block (0: empty); high 32: tag */
static _Atomic uint64_t shim_fb_head[SHIM_FB_NR_CLASSES];


static inline _Atomic uint32_t *shim_fb_link(char *block)
{
	return (_Atomic uint32_t *)(block + 12);
}

static inline char *shim_fb_block(uint32_t idx1)
{
	return shim_fb_arena + (size_t)(idx1 - 1) * SHIM_FB_GRAIN;
}

static char *shim_fb_pop(unsigned c)
{
	uint64_t old = atomic_load_explicit(&shim_fb_head[c], memory_order_acquire);
	uint64_t new;
	char *block;

	do {
		uint32_t idx1 = (uint32_t)old;

		if (!idx1)
			return NULL;
		block = shim_fb_block(idx1);
		/*
		 * The block may be popped and written by another thread
		 * between these two loads; the region is always mapped, so
		 * the read is harmless and the tag makes the CAS fail.
		 */
		new = ((old >> 32) + 1) << 32 |
		      atomic_load_explicit(shim_fb_link(block), memory_order_relaxed);
	} while (!atomic_compare_exchange_weak_explicit(&shim_fb_head[c], &old, new,
							memory_order_acquire,
							memory_order_acquire));
	return block;
}

static void shim_fb_push(unsigned c, char *block)
{
	uint32_t idx1 = (uint32_t)((block - shim_fb_arena) / SHIM_FB_GRAIN) + 1;
	uint64_t old = atomic_load_explicit(&shim_fb_head[c], memory_order_relaxed);
	uint64_t new;

	do {
		atomic_store_explicit(shim_fb_link(block), (uint32_t)old, memory_order_relaxed);
		new = ((old >> 32) + 1) << 32 | idx1;
	} while (!atomic_compare_exchange_weak_explicit(&shim_fb_head[c], &old, new,
							memory_order_release,
							memory_order_relaxed));
}

static char *shim_fb_carve(size_t bytes)
{
	size_t top = atomic_load_explicit(&shim_fb_top, memory_order_relaxed);

	do {
		if (bytes > SHIM_FB_ARENA_SIZE - top)
			return NULL;
	} while (!atomic_compare_exchange_weak_explicit(&shim_fb_top, &top, top + bytes,
							memory_order_relaxed,
							memory_order_relaxed));
	return shim_fb_arena + top;
}

/* align: a power of two, or 0.  Returns NULL (errno ENOMEM) when the request
 * exceeds the largest class or the region is exhausted. */
void *shim_fb_alloc(size_t size, size_t align)
{
	size_t need, pad;
	unsigned shift, c;
	char *block, *user;
	struct shim_fb_hdr *h;

	if (align < SHIM_MIN_ALIGN)
		align = SHIM_MIN_ALIGN;
	pad = align - SHIM_MIN_ALIGN;
	if (size > (1ul << SHIM_FB_MAX_SHIFT) || pad > (1ul << SHIM_FB_MAX_SHIFT))
		goto nomem;
	need = sizeof(*h) + size + pad;
	for (shift = SHIM_FB_MIN_SHIFT; (1ul << shift) < need; shift++)
		;
	if (shift > SHIM_FB_MAX_SHIFT)
		goto nomem;
	c = shift - SHIM_FB_MIN_SHIFT;
	block = shim_fb_pop(c);
	if (!block)
		block = shim_fb_carve(1ul << shift);
	if (!block)
		goto nomem;
	user = (char *)(((uintptr_t)block + sizeof(*h) + align - 1) & ~(uintptr_t)(align - 1));
	h = (struct shim_fb_hdr *)(user - sizeof(*h));
	h->magic = SHIM_FB_LIVE;
	h->cls = c;
	h->off = (uint32_t)(user - block);
	return user;
nomem:
	errno = ENOMEM;
	return NULL;
}

static struct shim_fb_hdr *shim_fb_hdr(const void *p)
{
	struct shim_fb_hdr *h = (struct shim_fb_hdr *)((char *)p - sizeof(*h));

	if (((uintptr_t)p & (SHIM_MIN_ALIGN - 1)) || !shim_fb_owns(h) ||
	    h->magic != SHIM_FB_LIVE || h->cls >= SHIM_FB_NR_CLASSES)
		return NULL;
	return h;
}

/* A pointer that is not a live block (double free, interior pointer) is
 * ignored: the arena never trusts it enough to put it on a list. */
void shim_fb_free(void *p)
{
	struct shim_fb_hdr *h = shim_fb_hdr(p);
	unsigned c;
	char *block;

	if (!h)
		return;
	c = h->cls;
	block = (char *)p - h->off;
	/* two racing frees of one block: only one of them recycles it */
	if (!__atomic_compare_exchange_n(&h->magic, &(uint32_t){ SHIM_FB_LIVE },
					 SHIM_FB_DEAD, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return;
	shim_fb_push(c, block);
}

size_t shim_fb_usable(const void *p)
{
	struct shim_fb_hdr *h = shim_fb_hdr(p);

	if (!h)
		return 0;
	return (1ul << (h->cls + SHIM_FB_MIN_SHIFT)) - h->off;
}
