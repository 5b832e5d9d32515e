/* SPDX-License-Identifier: MIT */
/* The platform primitives: see platform.h for the contracts. */
#define _GNU_SOURCE
#include "platform.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long fail_after = -1;

void slub_os_fail_after(long n)
{
	__atomic_store_n(&fail_after, n, __ATOMIC_SEQ_CST);
}

static bool injected_failure(void)
{
	long n = __atomic_load_n(&fail_after, __ATOMIC_SEQ_CST);

	while (n >= 0) {
		if (n == 0)
			return true;
		if (__atomic_compare_exchange_n(&fail_after, &n, n - 1, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return false;
	}
	return false;
}

void *slub_os_map(size_t size, size_t align)
{
	if (injected_failure()) {
		errno = ENOMEM;
		return NULL;
	}
	if (align <= SLUB_PAGE_SIZE) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			errno = ENOMEM;
			return NULL;
		}
		return p;
	}
	/* Over-map and trim to get the alignment. */
	size_t len = size + align;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	char *a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + size < p + len)
		munmap(a + size, p + len - (a + size));
	return a;
}

void *slub_os_remap(void *addr, size_t old_size, size_t new_size)
{
	if (new_size > old_size && injected_failure()) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = mremap(addr, old_size, new_size, MREMAP_MAYMOVE);
	if (p == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void slub_os_unmap(void *addr, size_t size)
{
	munmap(addr, size);
}

void slub_os_purge(void *addr, size_t size)
{
	int saved = errno;

	madvise(addr, size, MADV_DONTNEED);
	errno = saved;
}

uint32_t slub_os_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

uint64_t slub_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Read once: glibc reads /sys/devices/system/cpu/online on every call, and
 * each cache created at start (13 in a process that allocates) asks. */
unsigned slub_os_ncpus(void)
{
	static unsigned cached;
	unsigned v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	long n;

	if (v)
		return v;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	v = n > 0 ? (unsigned)n : 1;
	__atomic_store_n(&cached, v, __ATOMIC_RELAXED);
	return v;
}

/* ---- the slab word ---- */

/* SLUB_DWCAS=0: a writer parks this in the freelist half while it
 * changes the two halves, so a reader never pairs new counters with the
 * old freelist. */
#define DWORD_BUSY ((void *)1)

#if SLUB_DWCAS
/* slub_dwcas() and slub_dword_read() are inline, in platform.h. */
void slub_dwcas_prefork(void) { }
void slub_dwcas_postfork(void) { }
#else
/*
 * Fallback: the per-slab lock serialises every writer of the word.  Readers
 * use slub_dword_read(), which the seq and the busy mark keep consistent.
 * fork() must not catch a writer between its lock and its unlock (the
 * child would inherit a held slab lock or a parked busy mark): prefork
 * raises fork_pending and waits for the writers in flight.
 */
static uint32_t fork_pending, writers;

void slub_dwcas_prefork(void)
{
	__atomic_store_n(&fork_pending, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&writers, __ATOMIC_SEQ_CST))
		sched_yield();
}

struct slub_dword slub_dword_read(struct slub_dword *word)
{
	struct slub_dword w;

	for (;;) {
		uint64_t c = __atomic_load_n(&word->counters, __ATOMIC_ACQUIRE);
		w.freelist = __atomic_load_n(&word->freelist, __ATOMIC_ACQUIRE);
		w.counters = __atomic_load_n(&word->counters, __ATOMIC_ACQUIRE);
		/* Every update bumps the seq in the counters, so equal counters
		 * around the freelist load mean the pair was not torn; a parked
		 * busy mark means a writer is between its two stores. */
		if (w.counters == c && w.freelist != DWORD_BUSY)
			return w;
	}
}

void slub_dwcas_postfork(void)
{
	__atomic_store_n(&writers, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fork_pending, 0, __ATOMIC_SEQ_CST);
}

bool slub_dwcas(struct slub_dword *word, struct slub_dword *expected,
		struct slub_dword desired, uint32_t *fallback_lock)
{
	bool ok;

	for (;;) {
		while (__atomic_load_n(&fork_pending, __ATOMIC_SEQ_CST))
			sched_yield();
		__atomic_fetch_add(&writers, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&fork_pending, __ATOMIC_SEQ_CST))
			break;
		__atomic_fetch_sub(&writers, 1, __ATOMIC_SEQ_CST);
	}
	slub_futex_lock(fallback_lock);
	struct slub_dword cur;
	cur.freelist = __atomic_load_n(&word->freelist, __ATOMIC_RELAXED);
	cur.counters = __atomic_load_n(&word->counters, __ATOMIC_RELAXED);
	ok = cur.freelist == expected->freelist && cur.counters == expected->counters;
	if (ok) {
		/* Park the freelist, change the counters (seq), then publish the
		 * freelist: a reader sees either the old pair or, with the new
		 * counters, the busy mark or the new freelist. */
		__atomic_store_n(&word->freelist, DWORD_BUSY, __ATOMIC_RELEASE);
		__atomic_store_n(&word->counters, desired.counters, __ATOMIC_RELEASE);
		__atomic_store_n(&word->freelist, desired.freelist, __ATOMIC_RELEASE);
	} else {
		*expected = cur;
	}
	slub_futex_unlock(fallback_lock);
	__atomic_fetch_sub(&writers, 1, __ATOMIC_SEQ_CST);
	return ok;
}
#endif

/* ---- futex lock ---- */

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

bool slub_futex_trylock(uint32_t *word)
{
	uint32_t z = 0;

	return __atomic_compare_exchange_n(word, &z, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

bool slub_futex_lock(uint32_t *word)
{
	if (likely(slub_futex_trylock(word)))
		return false;
	/* Bounded spinning: the holders are short list walks. */
	for (int i = 0; i < 100; i++) {
		__builtin_ia32_pause();
		if (__atomic_load_n(word, __ATOMIC_RELAXED) == 0 && slub_futex_trylock(word))
			return true;
	}
	int saved = errno; /* free() keeps errno: EAGAIN/EINTR stay here */
	while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) != 0)
		futex(word, FUTEX_WAIT_PRIVATE, 2);
	errno = saved;
	return true;
}

void slub_futex_unlock(uint32_t *word)
{
	if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2) {
		int saved = errno;
		futex(word, FUTEX_WAKE_PRIVATE, 1);
		errno = saved;
	}
}
