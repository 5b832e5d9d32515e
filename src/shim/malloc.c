// SPDX-License-Identifier: MIT
/*
 * libslub-malloc.so: the C malloc family served by the kmalloc caches.
 *
 *   LD_PRELOAD=libslub-malloc.so program args
 *
 * Small requests go to the kmalloc caches, large ones to the page layer
 * (slub_malloc() chooses).  Semantics are glibc's (2.36): malloc(0) returns
 * a unique pointer; calloc/reallocarray overflow gives NULL + ENOMEM;
 * realloc(p, 0) frees p and returns NULL; realloc(NULL, n) is malloc(n);
 * memalign/aligned_alloc round a non-power-of-two alignment up and fail with
 * EINVAL only when no power of two is left; posix_memalign returns EINVAL for
 * an alignment that is not a power-of-two multiple of sizeof(void *) and
 * leaves errno alone; free() keeps errno.
 *
 * THE RE-ENTRANCY RULE
 *
 * A thread is "in the allocator" from the moment an entry point below calls
 * into the core until it returns (shim_depth > 1, initial-exec TLS, so
 * reading it never allocates).  While it is, the core may hold a list_lock
 * and fire a tracepoint; LTTng-UST, libunwind, dlsym, pthread_atfork may
 * then call malloc on the same thread.  Such a nested call must never reach
 * the core again, because it could wait for a lock its own thread holds.
 * So, on a thread that is in the allocator:
 *   - allocations are served by the fallback arena (fallback.c), which takes
 *     no lock and calls nothing, and are never traced;
 *   - frees of arena blocks go back to the arena; frees of core objects are
 *     pushed on a lock-free deferred list that the next outermost entry
 *     point (of any thread) hands to slub_free();
 *   - ownership questions use only slub_ptr_lookup() and slub_usable_size(),
 *     which take no lock for slab objects and only the page layer's lock,
 *     innermost in the lock order, for other pointers.
 * The same holds for:
 *   - every thread while another thread runs the one-time initialisation
 *     (slub_init() may dlopen, create threads, register atfork handlers):
 *     nobody waits for it, everybody else uses the arena meanwhile;
 *   - the fork handlers: the shim's prepare handler, registered after the
 *     core's, runs first and marks the forking thread as in the allocator
 *     until its parent/child handlers, which run after the core's;
 *   - a thread that is exiting: its pthread key destructor flushes its cpu
 *     slots inside the allocator and leaves the thread marked, so the other
 *     destructors that run after it use the arena and cannot re-create a cpu
 *     slot for a thread that is going away.
 * Arena blocks are recognised by address in free, realloc and
 * malloc_usable_size whoever calls them later, on whatever thread.
 *
 * Initialisation is lazy: the first call of any entry point on any thread
 * initialises, so neither constructor order nor the position in LD_PRELOAD
 * matters.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slub/slub.h>

#include "shim.h"
#include "kmalloc_fast.h"
#include "trace.h"

#define SHIM_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/*
 * The thread's state, one word so that the common case is one test:
 *   0   not set up yet (first call on this thread)
 *   1   set up and outside the allocator: the fast case
 *   >1  inside the allocator, initialising, forking (+2 for the fork
 *       window) or past its exit flush (+4, never dropped)
 * Bits 16 and up count the arena allocations the thread made while inside
 * the allocator; leaving it (the store of SHIM_IDLE) clears them for free.
 * A thread that longjmp()s out of a signal handler which interrupted
 * malloc never leaves: from then on its count only grows, and past
 * SHIM_NESTED_NOTE a note says why its allocations come from the arena.
 */
static __thread unsigned shim_depth __attribute__((tls_model("initial-exec")));
#define SHIM_IDLE 1u
#define SHIM_NESTED_SHIFT 16
#define SHIM_STATE_MASK ((1u << SHIM_NESTED_SHIFT) - 1)
#define SHIM_EXITED 4u
/* Real nesting (a tracepoint, dlsym, unwinding) makes a few allocations
 * per entry point; thousands without leaving mean the thread is stuck. */
#define SHIM_NESTED_NOTE 4096u

enum shim_state { SHIM_UNINIT, SHIM_INITIALISING, SHIM_READY };
static atomic_int shim_state;
static pthread_key_t shim_thread_key;
static bool shim_have_key;
/* core objects freed while their thread was in the allocator */
static void *_Atomic shim_deferred;

/* ---- threads and fork ---- */

static void shim_thread_exit(void *arg)
{
	(void)arg;
	shim_depth += 4; /* never dropped: see the rule above */
	slub_thread_flush();
}

static void shim_prefork(void)
{
	shim_depth += 2;
}

static void shim_postfork(void)
{
	shim_depth -= 2;
}

static bool shim_init_slow(void)
{
	int state = SHIM_UNINIT;

	if (!atomic_compare_exchange_strong(&shim_state, &state, SHIM_INITIALISING))
		return state == SHIM_READY;
	shim_depth += 2;
	shim_foreign_init();
	/* before slub_init(): a smaller key runs its destructor first */
	shim_have_key = pthread_key_create(&shim_thread_key, shim_thread_exit) == 0;
	slub_init();
	/* after slub_init(): prepare runs before the core's, the others after */
	pthread_atfork(shim_prefork, shim_postfork, shim_postfork);
	atomic_store_explicit(&shim_state, SHIM_READY, memory_order_release);
	shim_depth -= 2;
	return true;
}

static void shim_drain_deferred(void)
{
	void *p = atomic_exchange_explicit(&shim_deferred, NULL, memory_order_acquire);

	while (p) {
		void *next = *(void **)p;

		slub_free(p);
		p = next;
	}
}

static void shim_defer_free(void *p)
{
	void *old = atomic_load_explicit(&shim_deferred, memory_order_relaxed);

	do {
		*(void **)p = old;
	} while (!atomic_compare_exchange_weak_explicit(&shim_deferred, &old, p,
							memory_order_release,
							memory_order_relaxed));
}

/*
 * Enter the allocator.  false: the caller must not call the core (nested
 * call, or another thread is initialising) and uses the arena instead.
 */
static __attribute__((noinline)) bool shim_enter_slow(void)
{
	if (shim_depth != 0)
		return false; /* nested, initialising, forking or exited */
	if (atomic_load_explicit(&shim_state, memory_order_acquire) != SHIM_READY &&
	    !shim_init_slow())
		return false;
	/* First call on this thread: arm the exit flush. */
	if (shim_have_key)
		pthread_setspecific(shim_thread_key, (void *)1);
	shim_depth = SHIM_IDLE + 1;
	if (unlikely(atomic_load_explicit(&shim_deferred, memory_order_relaxed) != NULL))
		shim_drain_deferred();
	return true;
}

static inline bool shim_enter(void)
{
	if (likely(shim_depth == SHIM_IDLE)) {
		shim_depth = SHIM_IDLE + 1;
		if (unlikely(atomic_load_explicit(&shim_deferred, memory_order_relaxed) != NULL))
			shim_drain_deferred();
		return true;
	}
	return shim_enter_slow();
}

static inline void shim_leave(void)
{
	shim_depth = SHIM_IDLE;
}

static inline bool shim_ready(void)
{
	return atomic_load_explicit(&shim_state, memory_order_acquire) == SHIM_READY;
}

/* Who owns p (not NULL, not an arena block)?  Reads the segment map; only
 * for a pointer outside every segment does it take the page layer's lock
 * (innermost in the lock order) to search the table of huge mappings. */
static enum slub_owner_kind shim_owner(const void *p)
{
	struct slub_ptr_info info;

	if (!shim_ready())
		return SLUB_OWNER_NONE; /* nothing came from the core yet */
	slub_ptr_lookup(p, &info); /* clears info when p is not ours */
	return info.kind;
}

/* One line on stderr, once per process: nothing here allocates. */
static void shim_note_once(atomic_bool *done, const char *msg)
{
	int saved = errno;
	ssize_t w;

	if (!atomic_exchange_explicit(done, true, memory_order_relaxed))
		w = write(STDERR_FILENO, msg, strlen(msg));
	(void)w;
	errno = saved;
}

static atomic_bool shim_noted_stuck, shim_noted_exhausted;

/*
 * An allocation the core must not see (see the re-entrancy rule): from the
 * arena, counted against the thread while it is inside the allocator.
 */
static __attribute__((noinline)) void *shim_nested_alloc(size_t size, size_t align)
{
	unsigned d = shim_depth, state = d & SHIM_STATE_MASK;
	void *p;

	if (state > SHIM_IDLE && !(state & SHIM_EXITED) &&
	    (d >> SHIM_NESTED_SHIFT) < SHIM_NESTED_NOTE) {
		shim_depth = d + (1u << SHIM_NESTED_SHIFT);
		if ((d >> SHIM_NESTED_SHIFT) + 1 == SHIM_NESTED_NOTE)
			shim_note_once(&shim_noted_stuck,
				       "slubtrace: note: a thread made 4096 allocations without "
				       "leaving the allocator (a longjmp out of a signal handler "
				       "that interrupted malloc?): they come from the fallback "
				       "arena (64 MiB, never traced) from now on\n");
	}
	p = shim_fb_alloc(size, align);
	if (!p)
		shim_note_once(&shim_noted_exhausted,
			       "slubtrace: note: the fallback arena (64 MiB) is exhausted: "
			       "allocations made inside the allocator fail with ENOMEM\n");
	return p;
}

/* ---- the operations, once ---- */

static inline __attribute__((always_inline)) void *shim_malloc(size_t size)
{
	void *p;

	if (!shim_enter())
		return shim_nested_alloc(size, 0);
	/* malloc(0): a kmalloc-8 object, unique as glibc's; slub_malloc()
	 * inline */
	p = kmalloc_node(size, -1);
	shim_leave();
	return p;
}

/* A free the core must not see now (nested, initialising, forking or
 * exited): deferred, or reported when foreign.  Out of line, so that the
 * frame its lookup needs is not set up by every free(). */
static __attribute__((noinline, cold)) void shim_free_outside(void *p)
{
	int saved = errno;

	if (shim_owner(p) == SLUB_OWNER_NONE)
		shim_foreign_report("free", p);
	else
		shim_defer_free(p);
	errno = saved;
}

static __attribute__((noinline, cold)) void shim_free_foreign(void *p)
{
	int saved = errno;

	shim_foreign_report("free", p);
	errno = saved;
}

static inline __attribute__((always_inline)) void shim_free(void *p)
{
	if (!p)
		return;
	if (shim_fb_owns(p)) {
		shim_fb_free(p);
		return;
	}
	if (likely(shim_enter())) {
		/* One lookup: frees ours (keeping errno), leaves foreign
		 * memory untouched. */
		if (unlikely(!kfree(p))) /* slub_try_free() inline */
			shim_free_foreign(p);
		shim_leave();
		return;
	}
	shim_free_outside(p);
}

static void *shim_calloc(size_t nmemb, size_t size)
{
	size_t total;
	void *p;

	if (__builtin_mul_overflow(nmemb, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	if (!shim_enter()) {
		p = shim_nested_alloc(total, 0);
		if (p)
			memset(p, 0, total);
		return p;
	}
	p = slub_calloc(1, total ? total : 1);
	shim_leave();
	return p;
}

static size_t shim_usable(const void *p)
{
	if (!p)
		return 0;
	if (shim_fb_owns(p))
		return shim_fb_usable(p);
	if (shim_owner(p) == SLUB_OWNER_NONE)
		return 0;
	return slub_usable_size(p);
}

/* Move p (of which `have` bytes are known) to a new block of `size`. */
static void *shim_move(void *p, size_t have, size_t size)
{
	void *q = shim_malloc(size);

	if (!q)
		return NULL;
	memcpy(q, p, have < size ? have : size);
	shim_free(p);
	return q;
}

static void *shim_realloc(void *p, size_t size)
{
	void *q;

	if (!p)
		return shim_malloc(size);
	if (!size) {
		shim_free(p);
		return NULL;
	}
	if (shim_fb_owns(p)) {
		size_t have = shim_fb_usable(p);

		if (size <= have)
			return p;
		return shim_move(p, have, size);
	}
	if (shim_owner(p) == SLUB_OWNER_NONE) {
		/*
		 * Unknown size: copy up to `size` bytes, stopping where memory
		 * stops being readable.  Bytes past the old block's end are
		 * indeterminate in the new block anyway, so copying them is
		 * harmless.  The old block is left alone (leaked).
		 */
		shim_foreign_report("realloc", p);
		q = shim_malloc(size);
		if (q)
			shim_copy_readable(q, p, size);
		return q;
	}
	if (!shim_enter())
		return shim_move(p, slub_usable_size(p), size);
	q = slub_realloc(p, size);
	shim_leave();
	return q;
}

/* glibc's _mid_memalign: small alignments are mallocs, others rounded up to
 * a power of two; EINVAL only beyond the largest power of two. */
static void *shim_memalign(size_t align, size_t size)
{
	void *p;

	if (align <= sizeof(void *))
		return shim_malloc(size);
	if (align > SIZE_MAX / 2 + 1) {
		errno = EINVAL;
		return NULL;
	}
	if (align & (align - 1))
		align = (size_t)1 << (64 - __builtin_clzl(align));
	if (!shim_enter())
		return shim_nested_alloc(size, align);
	/* slub_aligned_alloc(16, n) is slub_malloc(n), which gives kmalloc-8
	 * (8-aligned) for n <= 8: ask for at least `align` bytes */
	p = slub_aligned_alloc(align, size < align ? align : size);
	shim_leave();
	return p;
}

static void *shim_valloc(size_t size)
{
	return shim_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

static void *shim_pvalloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), rounded;

	if (__builtin_add_overflow(size, page - 1, &rounded)) {
		errno = ENOMEM;
		return NULL;
	}
	return shim_memalign(page, rounded & ~(page - 1));
}

/* ---- exported entry points ---- */

static __attribute__((noinline)) void *shim_malloc_slow(size_t size)
{
	return shim_malloc(size);
}

static __attribute__((noinline)) void shim_free_slow(void *p)
{
	shim_free(p);
}

/* free() of an object kfree_quick() found but did not take (a free to
 * another slab than the thread's cpu slab, a double free, object events
 * wanted): the rest of kfree(), inside the allocator already.  c, when
 * kfree_quick() found the thread's slot: a free to another slab goes
 * straight to __slab_free()'s frozen case. */
static __attribute__((noinline)) void shim_free_object(struct slub_cache *s, struct slab *slab,
						       void *p, struct slub_cpu *c)
{
	if (!c || !slab_free_remote_quick(s, slab, p, c))
		slab_free_fast(s, slab, p);
	shim_leave();
}

/*
 * malloc() and free() try the allocator's call-free fast cases first
 * (kmalloc_quick(), kfree_quick()) inside the same re-entrancy state as
 * the whole path, then fall back to it: a leaf function for the commonest
 * calls, where the whole path saves five registers.
 */
SHIM_EXPORT void *malloc(size_t size)
{
	if (likely(shim_depth == SHIM_IDLE) &&
	    likely(atomic_load_explicit(&shim_deferred, memory_order_relaxed) == NULL)) {
		shim_depth = SHIM_IDLE + 1;
		void *p = kmalloc_quick(size);
		shim_depth = SHIM_IDLE;
		if (likely(p))
			return p;
	}
	return shim_malloc_slow(size);
}

SHIM_EXPORT void free(void *p)
{
	if (likely(p) && !shim_fb_owns(p) && likely(shim_depth == SHIM_IDLE) &&
	    likely(atomic_load_explicit(&shim_deferred, memory_order_relaxed) == NULL)) {
		struct slab *slab;
		struct slub_cache *s;
		struct slub_cpu *c;

		shim_depth = SHIM_IDLE + 1;
		int r = kfree_quick(p, &slab, &s, &c);
		if (likely(r == KFREE_DONE)) {
			shim_depth = SHIM_IDLE;
			return;
		}
		if (r == KFREE_OBJECT) {
			shim_free_object(s, slab, p, c);
			return;
		}
		shim_depth = SHIM_IDLE;
	}
	shim_free_slow(p);
}

SHIM_EXPORT void *calloc(size_t nmemb, size_t size)
{
	return shim_calloc(nmemb, size);
}

SHIM_EXPORT void *realloc(void *p, size_t size)
{
	return shim_realloc(p, size);
}

SHIM_EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(nmemb, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return shim_realloc(p, total);
}

SHIM_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;
	int saved = errno, err;

	if (align % sizeof(void *) || (align & (align - 1)) || !align)
		return EINVAL;
	errno = 0;
	p = shim_memalign(align, size);
	if (!p) {
		err = errno ? errno : ENOMEM;
		errno = saved;
		return err;
	}
	*out = p;
	errno = saved;
	return 0;
}

SHIM_EXPORT void *memalign(size_t align, size_t size)
{
	return shim_memalign(align, size);
}

SHIM_EXPORT void *aligned_alloc(size_t align, size_t size)
{
	return shim_memalign(align, size);
}

SHIM_EXPORT void *valloc(size_t size)
{
	return shim_valloc(size);
}

SHIM_EXPORT void *pvalloc(size_t size)
{
	return shim_pvalloc(size);
}

SHIM_EXPORT size_t malloc_usable_size(void *p)
{
	return shim_usable(p);
}

/* Removed from glibc's API in 2.26, still bound by old binaries. */
SHIM_EXPORT void cfree(void *p);
void cfree(void *p)
{
	shim_free(p);
}

/* The names glibc's own callers and some libraries use. */
SHIM_EXPORT void *__libc_malloc(size_t size);
SHIM_EXPORT void __libc_free(void *p);
SHIM_EXPORT void *__libc_calloc(size_t nmemb, size_t size);
SHIM_EXPORT void *__libc_realloc(void *p, size_t size);
SHIM_EXPORT void *__libc_memalign(size_t align, size_t size);
SHIM_EXPORT void *__libc_valloc(size_t size);
SHIM_EXPORT void *__libc_pvalloc(size_t size);
SHIM_EXPORT void __libc_cfree(void *p);

void *__libc_malloc(size_t size)
{
	return shim_malloc(size);
}

void __libc_free(void *p)
{
	shim_free(p);
}

void *__libc_calloc(size_t nmemb, size_t size)
{
	return shim_calloc(nmemb, size);
}

void *__libc_realloc(void *p, size_t size)
{
	return shim_realloc(p, size);
}

void *__libc_memalign(size_t align, size_t size)
{
	return shim_memalign(align, size);
}

void *__libc_valloc(size_t size)
{
	return shim_valloc(size);
}

void *__libc_pvalloc(size_t size)
{
	return shim_pvalloc(size);
}

void __libc_cfree(void *p)
{
	shim_free(p);
}

/* ---- fork() and pthread_create(): when a traced child registers ----
 *
 * fork() brackets the libc's with LTTng-UST's fork calls, and a child
 * traced with SLUBTRACE_FORK=lazy registers with the session daemon only
 * when it first needs to (src/trace.c, slub_trace_fork()).  The libc's
 * fork() is taken from libc.so.6 itself: RTLD_NEXT would find
 * liblttng-ust-fork.so's, which `slubtrace record` preloads after the shim
 * (for clone() and daemon()).  When another fork() comes before the shim's
 * in the lookup order, it already wraps the call: the shim's adds nothing.
 */
typedef pid_t (*shim_fork_fn)(void);
typedef int (*shim_thread_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

SHIM_EXPORT pid_t fork(void)
{
	static shim_fork_fn libc_fork;
	static int first; /* 0 unknown, 1 the shim's fork() is the one called, -1 not */
	shim_fork_fn f = __atomic_load_n(&libc_fork, __ATOMIC_ACQUIRE);

	if (!f) {
		void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

		f = libc ? (shim_fork_fn)dlsym(libc, "fork") : NULL;
		if (!f)
			f = (shim_fork_fn)dlsym(RTLD_NEXT, "fork");
		if (!f) {
			errno = ENOSYS;
			return -1;
		}
		__atomic_store_n(&first, dlsym(RTLD_DEFAULT, "fork") == (void *)fork ? 1 : -1,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&libc_fork, f, __ATOMIC_RELEASE);
	}
	return slub_trace_fork(f, __atomic_load_n(&first, __ATOMIC_RELAXED) > 0);
}

SHIM_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			       void *(*start)(void *), void *arg)
{
	static shim_thread_fn next;
	shim_thread_fn f = __atomic_load_n(&next, __ATOMIC_ACQUIRE);

	if (!f) {
		f = (shim_thread_fn)dlsym(RTLD_NEXT, "pthread_create");
		if (!f)
			return ENOSYS;
		__atomic_store_n(&next, f, __ATOMIC_RELEASE);
	}
	/* a child not registered yet does so while it has one thread */
	(void)slub_trace_fork_ok();
	return f(thread, attr, start, arg);
}
