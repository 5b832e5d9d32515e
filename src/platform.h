/* SPDX-License-Identifier: MIT */
/*
 * The platform under the allocator, with stated contracts.  Nothing else in
 * the allocator calls mmap, futex, or a double-word compare-and-swap.
 */
#ifndef SLUB_PLATFORM_H
#define SLUB_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define READ_ONCE(x)      __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)  __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define barrier()         __asm__ __volatile__("" ::: "memory")

#define SLUB_PAGE_SHIFT 12
#define SLUB_PAGE_SIZE  (1ul << SLUB_PAGE_SHIFT)

/*
 * Map `size` bytes (a multiple of the page size) aligned to `align` (a power
 * of two >= page size), read-write, zero-filled.  Returns NULL with errno
 * ENOMEM on failure (also when failure injection says so).
 *
 * The mapping is committed memory, accounted by the kernel as glibc's
 * mmap()ed chunks are (no MAP_NORESERVE): the overcommit policy
 * (/proc/sys/vm/overcommit_memory) answers for absurd sizes.  Under the
 * default heuristic (0) a request larger than RAM + swap fails, under
 * strict accounting (2) one beyond the commit limit, under 1 only the
 * address space bounds it.  An alignment is obtained by mapping
 * size + align and trimming, so the whole of it must pass that check.
 */
void *slub_os_map(size_t size, size_t align);
/* Resize a mapping made by slub_os_map, moving it if it must (mremap
 * MREMAP_MAYMOVE: page tables move, bytes are not copied; the alignment
 * given to slub_os_map is not kept).  NULL with errno ENOMEM on failure,
 * the old mapping then intact. */
void *slub_os_remap(void *addr, size_t old_size, size_t new_size);
/* Unmap a region returned by slub_os_map (whole). */
void slub_os_unmap(void *addr, size_t size);
/* Give the pages back to the OS; the range stays mapped and reads as zero. */
void slub_os_purge(void *addr, size_t size);
/* After n more successful maps every map fails, until called with n < 0. */
void slub_os_fail_after(long n);

/* Kernel thread id of the caller (gettid). */
uint32_t slub_os_tid(void);
uint64_t slub_now_ns(void);
unsigned slub_os_ncpus(void);

/*
 * The slab word: freelist + counters, 16 bytes, 16-byte aligned.
 * slub_dwcas() is the only place the pair is compared and swapped: on
 * x86-64 `lock cmpxchg16b`.  On success returns true.  On failure returns
 * false and stores the word it observed into *expected (atomically read).
 * With SLUB_DWCAS=0 the same contract is met under `*fallback_lock`.
 */
struct slub_dword {
	void *freelist;
	uint64_t counters;
} __attribute__((aligned(16)));
_Static_assert(sizeof(struct slub_dword) == 16, "slab word must be 16 bytes");
_Static_assert(_Alignof(struct slub_dword) == 16, "slab word must be 16-byte aligned");

/* fork(): with SLUB_DWCAS=0, no writer may be inside slub_dwcas() when the
 * process is copied.  Called last in prefork, in the parent and child after. */
void slub_dwcas_prefork(void);
void slub_dwcas_postfork(void);

#if SLUB_DWCAS
/*
 * Inline: every free that is not to the thread's own cpu slab pays one
 * slub_dwcas() and one slub_dword_read(); out of line they cost two calls
 * around the one instruction that is the path's floor.
 */
static inline __attribute__((always_inline)) bool
slub_dwcas(struct slub_dword *word, struct slub_dword *expected, struct slub_dword desired,
	   uint32_t *fallback_lock)
{
	bool ok;
	uint64_t old_lo = (uint64_t)(uintptr_t)expected->freelist;
	uint64_t old_hi = expected->counters;

	(void)fallback_lock;
	__asm__ __volatile__("lock cmpxchg16b %[mem]\n\t"
			     "sete %[ok]"
			     : [mem] "+m"(*word), [ok] "=q"(ok),
			       "+a"(old_lo), "+d"(old_hi)
			     : "b"((uint64_t)(uintptr_t)desired.freelist),
			       "c"(desired.counters)
			     : "memory", "cc");
	if (!ok) {
		expected->freelist = (void *)(uintptr_t)old_lo;
		expected->counters = old_hi;
	}
	return ok;
}

/* A consistent snapshot of the word (two loads, retried until stable):
 * every update bumps the seq in the counters, so equal counters around the
 * freelist load mean the pair was not torn. */
static inline __attribute__((always_inline)) struct slub_dword
slub_dword_read(struct slub_dword *word)
{
	struct slub_dword w;

	for (;;) {
		uint64_t c = __atomic_load_n(&word->counters, __ATOMIC_ACQUIRE);
		w.freelist = __atomic_load_n(&word->freelist, __ATOMIC_ACQUIRE);
		w.counters = __atomic_load_n(&word->counters, __ATOMIC_ACQUIRE);
		if (w.counters == c)
			return w;
	}
}
#else
bool slub_dwcas(struct slub_dword *word, struct slub_dword *expected,
		struct slub_dword desired, uint32_t *fallback_lock);
/* A consistent snapshot of the word (two loads, retried until stable). */
struct slub_dword slub_dword_read(struct slub_dword *word);
#endif

/*
 * A futex lock with bounded spinning.  0 free, 1 locked, 2 locked with
 * waiters.  slub_futex_lock() returns true when it had to wait.
 */
bool slub_futex_lock(uint32_t *word);
bool slub_futex_trylock(uint32_t *word);
void slub_futex_unlock(uint32_t *word);

#endif /* SLUB_PLATFORM_H */
