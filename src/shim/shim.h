/* SPDX-License-Identifier: MIT */
/*
 * Internal interface of the malloc shim (libslub-malloc.so).
 *
 * malloc.c     the exported malloc family, the nesting guard, lazy init,
 *              thread-exit and fork hooks, deferred frees
 * fallback.c   the fallback arena: serves every allocation made while the
 *              allocator is already active on the calling thread
 * foreign.c    pointers that are neither ours nor the arena's: report once,
 *              copy what is safely readable
 */
#ifndef SLUB_SHIM_H
#define SLUB_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every block handed out by the shim is aligned to at least this (glibc's
 * MALLOC_ALIGNMENT on 64-bit targets). */
#define SHIM_MIN_ALIGN 16u

/* ---- fallback arena (fallback.c) ----
 *
 * One static, zero-initialised region.  Blocks come in power-of-two classes;
 * each class has a lock-free LIFO of recycled blocks whose head packs a
 * block index with a generation tag, so a concurrent pop cannot be fooled by
 * ABA.  Fresh blocks are cut from the region by one fetch-add.  No lock is
 * ever taken and nothing outside this file is called (apart from memset and
 * memcpy), so the arena is safe to use from inside the allocator, from a
 * signal handler, and in a child after fork() whatever the other threads
 * were doing: an operation interrupted by fork() at worst leaks one block.
 *
 * Bounded: the region never grows.  When it is exhausted the arena returns
 * NULL (the caller sets ENOMEM).
 */
#define SHIM_FB_ARENA_SIZE (64ul << 20)
extern char shim_fb_arena[SHIM_FB_ARENA_SIZE] __attribute__((visibility("hidden")));

/* Is p in the arena?  Inline: every free() asks first. */
static inline bool shim_fb_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)shim_fb_arena < SHIM_FB_ARENA_SIZE;
}
void *shim_fb_alloc(size_t size, size_t align);
void shim_fb_free(void *p);
/* Usable bytes from p to the end of its block. */
size_t shim_fb_usable(const void *p);

/* ---- foreign pointers (foreign.c) ---- */
/* Reads SLUBTRACE_DEBUG / SLUBTRACE_REPORT_FOREIGN; no allocation. */
__attribute__((visibility("hidden"))) bool slub_env_bool(const char *var, bool dflt);
void shim_foreign_init(void);
/* `what` is the function that received p ("free", "realloc"...).  Writes one
 * line to stderr the first time p is seen, if reporting is on. */
void shim_foreign_report(const char *what, const void *p);
/* Copy up to n bytes from src to dst, stopping at the first byte that cannot
 * be read; never faults.  Returns the number of bytes copied. */
size_t shim_copy_readable(void *dst, const void *src, size_t n);

#endif /* SLUB_SHIM_H */
