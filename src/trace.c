/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST call sites: struct slub_event -> `slub` tracepoints.
 *
 * Dynamic linkage: this file defines the tracepoints (state words, probe
 * pointers) but no probes.  Its constructor dlopen()s only the small
 * liblttng-ust-tracepoint registry; the probes, and liblttng-ust with them,
 * arrive only when libslub-tp.so is loaded.  Until then every tracepoint's
 * state word is 0 and slub_tp_enabled() is one predictable branch.
 *
 * Call stacks (SLUBTRACE_STACKS, SLUBTRACE_STACK_DEPTH) travel in their own
 * slub:stack event, emitted right after the event they belong to (wire
 * format: tracepoints/slub_tp.h), so an event without a stack pays nothing
 * for them.  They are captured only for an enabled tracepoint of a selected
 * type, often while the emitting
 * thread holds a list_lock or another allocator lock.  That rules out any
 * walker that takes the dynamic loader's locks: libunwind's unw_backtrace()
 * finds unwind tables with dl_iterate_phdr(), which holds the loader's
 * dl_load_write_lock while it runs its callbacks (and libunwind may malloc).
 * Thread B inside dl_iterate_phdr() -- LTTng-UST's statedump and dl
 * tracking, libunwind in another thread, a C++ unwinder -- can call malloc
 * from its callback; that malloc may need the list_lock we hold, while we
 * wait in dl_iterate_phdr() for the loader lock B holds: an ABBA deadlock.
 *
 * So stacks are walked by libgcc's _Unwind_Backtrace() where libgcc finds
 * unwind tables with glibc's _dl_find_object() (glibc >= 2.35, GCC >= 12):
 * no lock, no allocation, safe under any allocator lock.  libgcc's, taken
 * from libgcc_s.so.1 by dlsym(): libunwind, which the library links for
 * the other case, exports an _Unwind_Backtrace() of its own (on top of
 * dl_iterate_phdr) that a plain call binds to, as a process preloading
 * the shim resolves libunwind.so.8 before libgcc_s.so.1; with it, a stack
 * taken under a list_lock while LTTng-UST's listener thread was inside
 * dl_iterate_phdr() hung python3 under `slubtrace record` now and then.
 * Elsewhere
 * libunwind walks the stack, but only for events emitted with no allocator
 * lock held (slub_locks_held() == 0, counted by every lock the allocator
 * takes); the others carry no stack.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <unwind.h>

#ifdef SLUB_HAVE_UNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#include "platform.h"
#include "trace.h"

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#include "../tracepoints/slub_tp.h"

#if defined(DLFO_STRUCT_HAS_EH_DBASE) && defined(__GNUC__) && __GNUC__ >= 12
#define SLUB_LOCKFREE_UNWIND 1
#else
#define SLUB_LOCKFREE_UNWIND 0
#endif

#define SLUB_STACK_DEFAULT_TYPES "cmpxchg_fail,error"
#define SLUB_STACK_DEFAULT_DEPTH 16u
/* Frames of this file on top of every stack: capture_stack, slub_trace_emit. */
#define SLUB_STACK_SKIP 2

#define SLUB_TP_STATE(name) (&lttng_ust_tracepoint_slub___##name.state)

_Static_assert(SLUB_EV_NR == 34, "one tracepoint per event type");
_Static_assert(SLUB_SITE_NR <= 16 && SLUB_DEACT_NR <= 16 && SLUB_DEST_NR <= 16,
	       "slab_word.site and cpu_slab.reason are x | dest << 4 in 8 bits");

const int *const slub_tp_state[SLUB_EV_NR] = {
	[SLUB_EV_CACHE_CREATE] = SLUB_TP_STATE(cache_create),
	[SLUB_EV_CACHE_DESTROY] = SLUB_TP_STATE(cache_destroy),
	[SLUB_EV_SLAB_NEW] = SLUB_TP_STATE(slab_new),
	[SLUB_EV_SLAB_DISCARD] = SLUB_TP_STATE(slab_discard),
	[SLUB_EV_FREEZE] = SLUB_TP_STATE(freeze),
	[SLUB_EV_UNFREEZE] = SLUB_TP_STATE(unfreeze),
	[SLUB_EV_TAKE_FREELIST] = SLUB_TP_STATE(take_freelist),
	[SLUB_EV_FREE_REMOTE] = SLUB_TP_STATE(free_remote),
	[SLUB_EV_DRAIN_FREELIST] = SLUB_TP_STATE(drain_freelist),
	[SLUB_EV_CPU_SLAB_LOAD] = SLUB_TP_STATE(cpu_slab_load),
	[SLUB_EV_DEACTIVATE] = SLUB_TP_STATE(deactivate),
	[SLUB_EV_CPU_PARTIAL_PUT] = SLUB_TP_STATE(cpu_partial_put),
	[SLUB_EV_CPU_PARTIAL_TAKE] = SLUB_TP_STATE(cpu_partial_take),
	[SLUB_EV_CPU_PARTIAL_DRAIN] = SLUB_TP_STATE(cpu_partial_drain),
	[SLUB_EV_ADD_PARTIAL] = SLUB_TP_STATE(add_partial),
	[SLUB_EV_REMOVE_PARTIAL] = SLUB_TP_STATE(remove_partial),
	[SLUB_EV_ADD_FULL] = SLUB_TP_STATE(add_full),
	[SLUB_EV_REMOVE_FULL] = SLUB_TP_STATE(remove_full),
	[SLUB_EV_CMPXCHG_FAIL] = SLUB_TP_STATE(cmpxchg_fail),
	[SLUB_EV_CPU_CMPXCHG_FAIL] = SLUB_TP_STATE(cpu_cmpxchg_fail),
	[SLUB_EV_LOCK_ACQUIRE] = SLUB_TP_STATE(lock_acquire),
	[SLUB_EV_LOCK_RELEASE] = SLUB_TP_STATE(lock_release),
	[SLUB_EV_THREAD_FLUSH] = SLUB_TP_STATE(thread_flush),
	[SLUB_EV_ALLOC] = SLUB_TP_STATE(alloc),
	[SLUB_EV_FREE] = SLUB_TP_STATE(free),
	[SLUB_EV_ERROR] = SLUB_TP_STATE(error),
	[SLUB_EV_SLABINFO_WALK] = SLUB_TP_STATE(slabinfo_walk),
	[SLUB_EV_SHEAF_REFILL] = SLUB_TP_STATE(sheaf_refill),
	[SLUB_EV_SHEAF_FLUSH] = SLUB_TP_STATE(sheaf_flush),
	[SLUB_EV_SHEAF_SLOT] = SLUB_TP_STATE(sheaf_slot),
	[SLUB_EV_BARN_PUT] = SLUB_TP_STATE(barn_put),
	[SLUB_EV_BARN_GET] = SLUB_TP_STATE(barn_get),
	[SLUB_EV_SHEAF_ALLOC] = SLUB_TP_STATE(sheaf_alloc),
	[SLUB_EV_SHEAF_FREE] = SLUB_TP_STATE(sheaf_free),
};

/* Set by close_tracepoints() at exit: no slub event from then on. */
static int tp_closed;

/*
 * A thread's first tracepoint registers it as an RCU reader of LTTng-UST,
 * under a mutex that LTTng-UST's fork hook (lttng_ust_before_fork(), which
 * fork() calls before the allocator's own prefork handler takes every
 * list_lock) holds across the fork.  A thread whose first event came under
 * a list_lock (lock_acquire) would wait for that mutex while the forking
 * thread waits for its list_lock.  So a thread registers before it takes
 * its first allocator lock (witness_acquire()), with no lock held.
 */
__thread int slub_trace_rcu_ready __attribute__((tls_model("initial-exec")));

void slub_trace_rcu_register(void)
{
	struct lttng_ust_tracepoint_dlopen *tp = lttng_ust_tracepoint_dlopen_ptr;
	int saved = errno;	/* malloc() and free() keep the caller's */

	if (!tp || !tp->rcu_read_lock_sym || !tp->rcu_read_unlock_sym ||
	    __atomic_load_n(&tp_closed, __ATOMIC_RELAXED))
		return;
	tp->rcu_read_lock_sym();
	tp->rcu_read_unlock_sym();
	slub_trace_rcu_ready = 1;
	errno = saved;
}

/* The process's pid, read once (getpid() is a system call) and again in a
 * forked child (slub_trace_postfork_child()). */
static uint32_t trace_pid;

/* pid_tid of every event (format 12): what LTTng's vpid and vtid contexts
 * gave, the pid over the acting thread's tid. */
static inline uint64_t pid_tid(uint32_t tid)
{
	uint32_t pid = __atomic_load_n(&trace_pid, __ATOMIC_RELAXED);

	if (__builtin_expect(!pid, 0)) {
		pid = (uint32_t)getpid();
		__atomic_store_n(&trace_pid, pid, __ATOMIC_RELAXED);
	}
	return (uint64_t)pid << 32 | tid;
}

bool slub_trace_trigger_enabled(void)
{
	return lttng_ust_tracepoint_enabled(slub, trigger);
}

bool slub_trace_trigger(unsigned kind, uint64_t slab, const char *rule)
{
	int saved = errno;

	if (!lttng_ust_tracepoint_enabled(slub, trigger) ||
	    __atomic_load_n(&tp_closed, __ATOMIC_RELAXED))
		return false;
	if (!slub_trace_fork_ok())
		return false;
	lttng_ust_do_tracepoint(slub, trigger, kind, slab, rule, pid_tid(slub_os_tid()));
	errno = saved;
	return true;
}

/*
 * The fast paths test the alloc and free tracepoints on every call: give
 * their state words direct, hidden symbols so that test is one load (the
 * table above costs two).  The offset is checked against the ABI struct.
 */
#define SLUB_TP_STATE_OFFSET 24
_Static_assert(offsetof(struct lttng_ust_tracepoint, state) == SLUB_TP_STATE_OFFSET,
	       "lttng_ust_tracepoint.state moved");
__asm__(".globl slub_tp_alloc_state\n\t.hidden slub_tp_alloc_state\n\t"
	".set slub_tp_alloc_state, lttng_ust_tracepoint_slub___alloc + 24\n\t"
	".globl slub_tp_free_state\n\t.hidden slub_tp_free_state\n\t"
	".set slub_tp_free_state, lttng_ust_tracepoint_slub___free + 24\n");

/* Set once by slub_trace_init(), read-only afterwards. */
static uint64_t stack_types;	/* bit (1 << SLUB_EV_*) per type with stacks */
static unsigned stack_depth = SLUB_STACK_DEFAULT_DEPTH;

static void trace_warn(const char *what, const char *s, size_t len)
{
	static const char pre[] = "slubtrace: ";
	ssize_t r;

	r = write(STDERR_FILENO, pre, sizeof(pre) - 1);
	r = write(STDERR_FILENO, what, strlen(what));
	r = write(STDERR_FILENO, s, len);
	r = write(STDERR_FILENO, "\n", 1);
	(void)r;
}

static void fork_mode_init(void);

/* Parses without allocating: slub_init() may run inside the first malloc. */
#if SLUB_LOCKFREE_UNWIND
static void resolve_gcc_unwinder(void);
#endif

void slub_trace_init(void)
{
	const char *list = getenv("SLUBTRACE_STACKS");
	const char *depth = getenv("SLUBTRACE_STACK_DEPTH");
	const char *bad;
	uint64_t types;
	size_t len;

	/* now, not at the first event: a vfork() child shares this memory */
	__atomic_store_n(&trace_pid, (uint32_t)getpid(), __ATOMIC_RELAXED);
	if (!list)
		list = SLUB_STACK_DEFAULT_TYPES;
	if (slub_event_list_parse(list, &types, &bad, &len) < 0)
		trace_warn("SLUBTRACE_STACKS: unknown event ", bad, len);
	stack_types = types;
#if SLUB_LOCKFREE_UNWIND
	if (types)
		resolve_gcc_unwinder();
#endif

	fork_mode_init();
	if (depth && *depth) {
		char *end;
		unsigned long d = strtoul(depth, &end, 10);

		if (*end)
			trace_warn("SLUBTRACE_STACK_DEPTH: not a number: ", depth, strlen(depth));
		else
			stack_depth = d > SLUB_TP_STACK_MAX ? SLUB_TP_STACK_MAX : (unsigned)d;
	}
}

static __attribute__((unused)) bool holds_allocator_lock(const struct slub_event *ev)
{
	(void)ev;
	return slub_locks_held() != 0;
}

#if SLUB_LOCKFREE_UNWIND
struct unwind_walk {
	uint64_t *buf;
	unsigned skip, n, max;
};

/* libgcc's unwinder, whatever else in the process defines these names
 * (see the top of this file); NULL: no stacks. */
static _Unwind_Reason_Code (*gcc_backtrace)(_Unwind_Trace_Fn, void *);
static _Unwind_Ptr (*gcc_getip)(struct _Unwind_Context *);

/* At init, with no allocator lock held (dlopen may allocate). */
static void resolve_gcc_unwinder(void)
{
	void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);

	if (!h)
		h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		trace_warn("stacks disabled: ", "libgcc_s.so.1 not found", 23);
		return;
	}
	void *bt = dlsym(h, "_Unwind_Backtrace"), *ip = dlsym(h, "_Unwind_GetIP");
	if (!bt || !ip) {
		trace_warn("stacks disabled: ", "libgcc_s.so.1 has no _Unwind_Backtrace", 38);
		return;
	}
	gcc_getip = (_Unwind_Ptr (*)(struct _Unwind_Context *))ip;
	__atomic_store_n(&gcc_backtrace, (_Unwind_Reason_Code (*)(_Unwind_Trace_Fn, void *))bt,
			 __ATOMIC_RELEASE);
}

static _Unwind_Reason_Code unwind_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct unwind_walk *w = arg;
	uintptr_t ip = gcc_getip(ctx);

	if (!ip)
		return _URC_END_OF_STACK;
	if (w->skip) {
		w->skip--;
		return _URC_NO_REASON;
	}
	w->buf[w->n++] = ip;
	return w->n < w->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}
#endif

/* Return addresses of the allocator's caller chain, innermost first. */
static __attribute__((noinline)) unsigned capture_stack(const struct slub_event *ev,
							 uint64_t *buf)
{
	unsigned max = stack_depth;

	if (!max)
		return 0;
#if SLUB_LOCKFREE_UNWIND
	{
		struct unwind_walk w = { buf, SLUB_STACK_SKIP, 0, max };
		_Unwind_Reason_Code (*bt)(_Unwind_Trace_Fn, void *) =
			__atomic_load_n(&gcc_backtrace, __ATOMIC_ACQUIRE);

		(void)ev;
		if (!bt)
			return 0;
		bt(unwind_frame, &w);
		return w.n;
	}
#elif defined(SLUB_HAVE_UNWIND)
	{
		void *ips[SLUB_TP_STACK_MAX + SLUB_STACK_SKIP];
		unsigned got = 0;
		int n;

		if (holds_allocator_lock(ev))
			return 0;
		n = unw_backtrace(ips, (int)(max + SLUB_STACK_SKIP));
		for (int i = SLUB_STACK_SKIP; i < n; i++)
			buf[got++] = (uintptr_t)ips[i];
		return got;
	}
#else
	(void)ev;
	(void)buf;
	return 0;
#endif
}

#define SLUB_TP_FIRE(name, ...)						\
	do {								\
		if (!lttng_ust_tracepoint_enabled(slub, name))		\
			return false;					\
		lttng_ust_do_tracepoint(slub, name, __VA_ARGS__);	\
		return true;						\
	} while (0)

static const struct slub_cache_info no_info = { .name = "" };

/* cache_create carries the cache's geometry and flags as one array. */
static bool fire_cache_create(const struct slub_event *ev, uint64_t pt)
{
	struct slub_cache_info info;
	struct slub_event e;
	uint32_t geometry[SLUB_TP_GEOMETRY];

	if (!lttng_ust_tracepoint_enabled(slub, cache_create))
		return false;
	if (!ev->info || !ev->info->name) {
		info = ev->info ? *ev->info : no_info;
		info.name = "";
		e = *ev;
		e.info = &info;
		ev = &e;
	}
	geometry[0] = ev->info->object_size;
	geometry[1] = ev->info->size;
	geometry[2] = ev->info->align;
	geometry[3] = ev->info->order;
	geometry[4] = ev->info->objects;
	geometry[5] = ev->info->min_partial;
	geometry[6] = ev->info->cpu_partial;
	geometry[7] = ev->info->flags;
	lttng_ust_do_tracepoint(slub, cache_create, ev, geometry, pt);
	return true;
}

/* The slab_word class's four words, laid out in w (the tracepoint copies
 * them into the ring buffer before fire_event() returns). */
static inline const uint64_t *slub_word4(const struct slub_event *ev, uint64_t pt, uint64_t *w)
{
	slub_tp_word4(ev, pt, w);
	return w;
}

/* Fires ev's own tracepoint; false when that tracepoint is disabled. */
static inline bool fire_event(const struct slub_event *ev)
{
	uint64_t w[SLUB_TP_WORD4];
	uint64_t pt = pid_tid(ev->tid);

	switch ((enum slub_event_type)ev->type) {
	case SLUB_EV_CACHE_CREATE:
		return fire_cache_create(ev, pt);
	case SLUB_EV_CACHE_DESTROY:
		SLUB_TP_FIRE(cache_destroy, ev, pt);
	case SLUB_EV_SLAB_NEW:
		SLUB_TP_FIRE(slab_new, ev, slub_word4(ev, pt, w));
	case SLUB_EV_SLAB_DISCARD:
		SLUB_TP_FIRE(slab_discard, ev, slub_word4(ev, pt, w));
	case SLUB_EV_FREEZE:
		SLUB_TP_FIRE(freeze, ev, slub_word4(ev, pt, w));
	case SLUB_EV_UNFREEZE:
		SLUB_TP_FIRE(unfreeze, ev, slub_word4(ev, pt, w));
	case SLUB_EV_TAKE_FREELIST:
		SLUB_TP_FIRE(take_freelist, ev, slub_word4(ev, pt, w));
	case SLUB_EV_FREE_REMOTE:
		SLUB_TP_FIRE(free_remote, ev, slub_word4(ev, pt, w));
	case SLUB_EV_DRAIN_FREELIST:
		SLUB_TP_FIRE(drain_freelist, ev, slub_word4(ev, pt, w));
	case SLUB_EV_CPU_SLAB_LOAD:
		SLUB_TP_FIRE(cpu_slab_load, ev, pt);
	case SLUB_EV_DEACTIVATE:
		SLUB_TP_FIRE(deactivate, ev, pt);
	case SLUB_EV_CPU_PARTIAL_PUT:
		SLUB_TP_FIRE(cpu_partial_put, ev, pt);
	case SLUB_EV_CPU_PARTIAL_TAKE:
		SLUB_TP_FIRE(cpu_partial_take, ev, pt);
	case SLUB_EV_CPU_PARTIAL_DRAIN:
		SLUB_TP_FIRE(cpu_partial_drain, ev, pt);
	case SLUB_EV_ADD_PARTIAL:
		SLUB_TP_FIRE(add_partial, ev, pt);
	case SLUB_EV_REMOVE_PARTIAL:
		SLUB_TP_FIRE(remove_partial, ev, pt);
	case SLUB_EV_ADD_FULL:
		SLUB_TP_FIRE(add_full, ev, pt);
	case SLUB_EV_REMOVE_FULL:
		SLUB_TP_FIRE(remove_full, ev, pt);
	case SLUB_EV_CMPXCHG_FAIL: {
		/* expected, then observed: the two 16-byte words as compared */
		const uint64_t words[SLUB_TP_CAS_WORDS] = {
			ev->old.freelist, slub_tp_counters(&ev->old),
			ev->new.freelist, slub_tp_counters(&ev->new),
		};

		SLUB_TP_FIRE(cmpxchg_fail, ev, words, pt);
	}
	case SLUB_EV_CPU_CMPXCHG_FAIL:
		SLUB_TP_FIRE(cpu_cmpxchg_fail, ev, pt);
	case SLUB_EV_LOCK_ACQUIRE:
		SLUB_TP_FIRE(lock_acquire, ev, pt);
	case SLUB_EV_LOCK_RELEASE:
		SLUB_TP_FIRE(lock_release, ev, pt);
	case SLUB_EV_THREAD_FLUSH:
		SLUB_TP_FIRE(thread_flush, ev, pt);
	case SLUB_EV_ALLOC:
		SLUB_TP_FIRE(alloc, ev, pt);
	case SLUB_EV_FREE:
		SLUB_TP_FIRE(free, ev, pt);
	case SLUB_EV_ERROR:
		/* no msg on the wire: the reason's label is the message */
		SLUB_TP_FIRE(error, ev, pt);
	case SLUB_EV_SLABINFO_WALK:
		SLUB_TP_FIRE(slabinfo_walk, ev, pt);
	case SLUB_EV_SHEAF_REFILL:
		SLUB_TP_FIRE(sheaf_refill, ev, pt);
	case SLUB_EV_SHEAF_FLUSH:
		SLUB_TP_FIRE(sheaf_flush, ev, pt);
	case SLUB_EV_SHEAF_SLOT:
		SLUB_TP_FIRE(sheaf_slot, ev, pt);
	case SLUB_EV_BARN_PUT:
		SLUB_TP_FIRE(barn_put, ev, pt);
	case SLUB_EV_BARN_GET:
		SLUB_TP_FIRE(barn_get, ev, pt);
	case SLUB_EV_SHEAF_ALLOC:
		SLUB_TP_FIRE(sheaf_alloc, ev, pt);
	case SLUB_EV_SHEAF_FREE:
		SLUB_TP_FIRE(sheaf_free, ev, pt);
	case SLUB_EV_NR:
		break;
	}
	return false;
}

/*
 * slub:comm: the thread's name before its first slub event and before every
 * SLUB_TP_COMM_PERIOD-th one after (tracepoints/slub_tp.h).  The countdown
 * starts at 0 in every new thread and every new image (TLS), and the child
 * of a fork sets it to 0 again (slub_trace_postfork_child()): the child is
 * a new (vpid, vtid) whose readers know no name yet.  One TLS decrement per
 * event, and every 4096 events one event.
 *
 * The name is read once per thread, at its first announcement, and again in
 * a forked child, as LTTng-UST's procname context caches it: a thread that
 * renames itself later keeps its first name in the trace, so that the main
 * thread's name changes only at an exec (a new image), which is how readers
 * tell an exec.
 */
static __thread uint32_t comm_countdown __attribute__((tls_model("initial-exec")));
static __thread char comm_name[17] __attribute__((tls_model("initial-exec")));

static __attribute__((noinline, cold)) void announce_comm(void)
{
	comm_countdown = SLUB_TP_COMM_PERIOD - 1;
	if (!lttng_ust_tracepoint_enabled(slub, comm))
		return;
	if (!comm_name[0] && prctl(PR_GET_NAME, comm_name, 0, 0, 0))
		comm_name[0] = 0;
	lttng_ust_do_tracepoint(slub, comm, comm_name, pid_tid(slub_os_tid()));
}

/*
 * slub:bin_info: the objects mapped in the process, for the symbolizer
 * (tracepoints/slub_tp.h), only when stacks are recorded.  Read from memory:
 * the program headers dl_iterate_phdr() gives, the ELF header at the first
 * loadable segment, the build id in the PT_NOTE segments; the main
 * program's path from /proc/self/exe.  No file is opened, where LTTng-UST's
 * statedump read each object's ELF file at each registration (about 25 ms
 * of CPU per traced process here).
 *
 * Only with no allocator lock held (slub_locks_held() == 0): the loader's
 * lock, which dl_iterate_phdr() takes, is also held by threads that call
 * malloc from their callbacks (see the top of this file).  Nothing is
 * allocated or emitted inside the callback: the objects are copied into a
 * private mapping, then emitted.  One thread dumps at a time; a thread
 * that finds another dumping goes on (the stack it was about to emit may
 * then precede the objects it lies in).
 */
#define BIN_PATH_MAX 1024
#define BIN_MAX 1024

struct bin_rec {
	uint64_t baddr, memsz;
	uint8_t pic, id_len;
	uint8_t id[64];
	char path[BIN_PATH_MAX];
};

struct bin_dump {
	struct bin_rec *rec;
	unsigned nr;
	uint64_t adds;
};

/* dlpi_adds at this process's last dump; 0: none yet (or a new child) */
static uint64_t bin_adds;
static int bin_busy;
static int bin_fork_held;	/* bin_busy taken by slub_trace_prefork() */
static __thread uint32_t bin_recheck __attribute__((tls_model("initial-exec")));

static int read_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_adds;
	return 1;
}

/* The GNU build id among the notes of [p, p + len): its length, or 0. */
static unsigned note_build_id(const unsigned char *p, size_t len, uint8_t *id)
{
	while (len >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
		size_t name = (n->n_namesz + 3) & ~(size_t)3, desc = (n->n_descsz + 3) & ~(size_t)3;
		size_t all = sizeof(*n) + name + desc;

		if (all > len)
			break;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(p + sizeof(*n), "GNU", 4) && n->n_descsz && n->n_descsz <= 64) {
			memcpy(id, p + sizeof(*n) + name, n->n_descsz);
			return n->n_descsz;
		}
		p += all;
		len -= all;
	}
	return 0;
}

static int collect_bin(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct bin_dump *d = arg;
	struct bin_rec *r;
	uint64_t lo = UINT64_MAX, hi = 0;
	const ElfW(Ehdr) *eh = NULL;

	(void)size;
	if (d->nr == 0)
		d->adds = info->dlpi_adds;
	if (d->nr >= BIN_MAX)
		return 1;
	r = &d->rec[d->nr];
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < lo)
			lo = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > hi)
			hi = ph->p_vaddr + ph->p_memsz;
		if (!eh && ph->p_offset == 0)
			eh = (const ElfW(Ehdr) *)(info->dlpi_addr + ph->p_vaddr);
	}
	if (lo >= hi)
		return 0;
	if (info->dlpi_name && info->dlpi_name[0] == '/') {
		size_t n = strnlen(info->dlpi_name, BIN_PATH_MAX - 1);

		memcpy(r->path, info->dlpi_name, n);
		r->path[n] = 0;
	} else if (!info->dlpi_name || !info->dlpi_name[0]) {
		/* the main program (the vdso has a name that is not a path) */
		ssize_t n = d->nr ? -1 : readlink("/proc/self/exe", r->path, BIN_PATH_MAX - 1);

		if (n <= 0)
			return 0;
		r->path[n] = 0;
	} else {
		return 0;
	}
	r->baddr = info->dlpi_addr + lo;
	r->memsz = hi - lo;
	r->pic = eh && !memcmp(eh->e_ident, ELFMAG, SELFMAG) ? eh->e_type == ET_DYN : 1;
	r->id_len = 0;
	for (unsigned i = 0; i < info->dlpi_phnum && !r->id_len; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE)
			r->id_len = (uint8_t)note_build_id(
				(const unsigned char *)(info->dlpi_addr + ph->p_vaddr), ph->p_filesz,
				r->id);
	}
	d->nr++;
	return 0;
}

/*
 * Names the loaded objects when this process has not yet, or (recheck) when
 * objects were loaded since its last dump.  Called with no allocator lock
 * held only.
 */
static __attribute__((noinline, cold)) void dump_objects(bool recheck)
{
	uint64_t have = __atomic_load_n(&bin_adds, __ATOMIC_ACQUIRE), adds = 0;
	size_t len = (size_t)BIN_MAX * sizeof(struct bin_rec);
	struct bin_dump d = { 0 };
	int zero = 0;

	if (!lttng_ust_tracepoint_enabled(slub, bin_info))
		return;
	if (have && !recheck)
		return;
	/* every dl_iterate_phdr() of ours under bin_busy: see slub_trace_prefork() */
	if (!__atomic_compare_exchange_n(&bin_busy, &zero, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	if (have) {
		dl_iterate_phdr(read_adds, &adds);
		if (adds == have)
			goto out;
	}
	d.rec = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d.rec != MAP_FAILED) {
		uint64_t pt = pid_tid(slub_os_tid());

		dl_iterate_phdr(collect_bin, &d);
		for (unsigned i = 0; i < d.nr; i++)
			lttng_ust_do_tracepoint(slub, bin_info, d.rec[i].baddr, d.rec[i].memsz,
						d.rec[i].id, d.rec[i].id_len, d.rec[i].pic,
						d.rec[i].path, pt);
		munmap(d.rec, len);
		__atomic_store_n(&bin_adds, d.adds ? d.adds : 1, __ATOMIC_RELEASE);
	}
out:
	__atomic_store_n(&bin_busy, 0, __ATOMIC_RELEASE);
}

/*
 * dl_iterate_phdr() holds the loader's lock, which fork() does not take: a
 * fork while another thread dumped left the child with that lock held by
 * no thread, and the child's own first dump (or any dlopen()) waited for
 * it forever (seen in e2e_fork: a child of e2e_forker stuck in
 * dl_iterate_phdr() under lttng_ust_after_fork_child()).  The fork waits
 * for a dump in progress and keeps new ones out until it is done (bounded:
 * a fork from inside a dump, a signal handler's, goes on after 2 s).
 */
void slub_trace_prefork(void)
{
	uint64_t t0 = slub_now_ns();
	int zero = 0;

	while (!__atomic_compare_exchange_n(&bin_busy, &zero, 1, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		zero = 0;
		if (slub_now_ns() - t0 > 2000000000ull) {
			bin_fork_held = 0;
			return;
		}
		sched_yield();
	}
	bin_fork_held = 1;
}

void slub_trace_postfork_parent(void)
{
	if (bin_fork_held)
		__atomic_store_n(&bin_busy, 0, __ATOMIC_RELEASE);
	bin_fork_held = 0;
}

void slub_trace_postfork_child(void)
{
	__atomic_store_n(&trace_pid, 0, __ATOMIC_RELAXED);
	comm_countdown = 0;
	comm_name[0] = 0;
	/* a new process for the readers: its objects are named again (no
	 * dump of the parent's was in progress: slub_trace_prefork()) */
	bin_adds = 0;
	bin_busy = 0;
	bin_fork_held = 0;
}

/* ---- fork: when a forked child registers with the session daemon ----
 *
 * LTTng-UST wants lttng_ust_before_fork() before a fork and, in the child,
 * lttng_ust_after_fork_child(), which drops the parent's sessions, resets
 * the cached vpid and vtid and registers the child (a round trip to the
 * session daemon per enabled event) before fork() returns; without it a
 * child's events carry its parent's pid.  liblttng-ust-fork.so does that
 * for every fork, so a traced shell registers every command it runs twice:
 * once in the forked child, which then execs, and again in the new image.
 *
 * The shim's fork() calls slub_trace_fork() (src/shim/malloc.c), which
 * does the same (SLUBTRACE_FORK=eager, the default) or, with
 * SLUBTRACE_FORK=lazy (what `slubtrace record` sets for the command it
 * runs), leaves the registration to the moment the child needs it:
 *
 *   - the child releases what lttng_ust_before_fork() took, as a parent
 *     does, and prunes the RCU readers of the parent's other threads (one
 *     of them may have been inside a tracepoint at the fork: an exit
 *     without registering then waits for no such reader), and is
 *     SLUB_FORK_PENDING;
 *   - it registers (lttng_ust_before_fork() then _after_fork_child(), as if
 *     it forked then) before the first of: its first slub event
 *     (slub_emit()), the first allocator lock it takes holding none
 *     (witness_acquire(): a registration under a list_lock could wait for
 *     LTTng's listener threads, which allocate, to get that lock), the first
 *     thread it creates (the shim's pthread_create(): the registration
 *     expects the child's only thread), a slub:trigger;
 *   - but never from inside LTTng-UST, whose locks the registration takes
 *     (a provider's constructor in dlopen(), or a destructor at exit, frees
 *     under them: seen as a child hung in its exit), nor from inside the
 *     dynamic loader (dlclose() frees a link map; the registration
 *     dlopen()s, which the loader refuses there: seen as an assertion of
 *     ld.so) or dl_iterate_phdr() (whose lock LTTng-UST's statedump
 *     takes), all of which the stack tells (libgcc's lock-free unwinder and
 *     _dl_find_object()); nor under an allocator lock, nor once the child
 *     called exit(): the events met there are not emitted, and after
 *     exit() none of the child's is (SLUB_FORK_SILENT);
 *   - a child that execs first never registers: its new image does, once.
 *
 * A child's trace is thus what a process traced from its registration on
 * gives, in both modes: nothing before it, everything after it (an event
 * left out before it is one of a process the trace does not know yet).
 * The fast paths emit no event, so what a child does between fork() and
 * exec() (a shell's redirections, a few allocations) rarely needs one.
 * Lazy only while a slub event is enabled at the fork: a child forked
 * before any session traces registers at once, or a session created later
 * (record --pid) would never reach it.  Without the lock-free unwinder
 * (glibc < 2.35 or GCC < 12), eager.  A fork from inside LTTng-UST (its
 * listener thread's) and a fork with another fork() wrapper ahead of the
 * shim in the lookup order (which already called lttng_ust_before_fork())
 * go straight to the libc's.
 */
enum { FORK_EAGER, FORK_LAZY };
static int fork_mode;
int slub_trace_fork_pending;	/* 0, SLUB_FORK_PENDING, _REGISTERING, _SILENT */
static int fork_exiting;	/* exit() called in a child not registered */
static int fork_exit_hooked;	/* inherited, as the atexit() is */
static __thread int fork_registering __attribute__((tls_model("initial-exec")));
static void (*ust_before_fork)(sigset_t *);
static void (*ust_after_fork_parent)(sigset_t *);
static void (*ust_after_fork_child)(sigset_t *);
static void (*ust_urcu_before_fork)(void);
static void (*ust_urcu_after_fork_child)(void);

static void fork_mode_init(void)
{
	const char *m = getenv("SLUBTRACE_FORK");

	if (!m || !*m || !strcmp(m, "eager"))
		fork_mode = FORK_EAGER;
	else if (!strcmp(m, "lazy"))
		fork_mode = FORK_LAZY;
	else
		trace_warn("SLUBTRACE_FORK: not eager or lazy (eager used): ", m, strlen(m));
}

/* LTTng-UST's fork calls, once it is loaded (it comes with the probes). */
static bool ust_fork_resolve(void)
{
	if (__atomic_load_n(&ust_urcu_after_fork_child, __ATOMIC_ACQUIRE))
		return true;
	void *bf = dlsym(RTLD_DEFAULT, "lttng_ust_before_fork");
	if (!bf)
		return false; /* no LTTng-UST in the process (yet): one look per fork */
	void *ap = dlsym(RTLD_DEFAULT, "lttng_ust_after_fork_parent");
	void *ac = dlsym(RTLD_DEFAULT, "lttng_ust_after_fork_child");
	void *ub = dlsym(RTLD_DEFAULT, "lttng_ust_urcu_before_fork");
	void *uc = dlsym(RTLD_DEFAULT, "lttng_ust_urcu_after_fork_child");

	if (!bf || !ap || !ac || !ub || !uc)
		return false;
	ust_before_fork = (void (*)(sigset_t *))bf;
	ust_after_fork_parent = (void (*)(sigset_t *))ap;
	ust_after_fork_child = (void (*)(sigset_t *))ac;
	ust_urcu_before_fork = (void (*)(void))ub;
	__atomic_store_n(&ust_urcu_after_fork_child, (void (*)(void))uc, __ATOMIC_RELEASE);
	return true;
}

static bool any_slub_event_enabled(void)
{
	for (unsigned t = 0; t < SLUB_EV_NR; t++)
		if (__atomic_load_n(slub_tp_state[t], __ATOMIC_RELAXED))
			return true;
	return false;
}

static bool registration_unsafe_here(void);
#if SLUB_LOCKFREE_UNWIND
static void unsafe_frames_init(void);
static struct link_map *rtld_map;
#endif

static void fork_exit_mark(void)
{
	__atomic_store_n(&fork_exiting, 1, __ATOMIC_RELAXED);
}

pid_t slub_trace_fork(pid_t (*libc_fork)(void), bool first)
{
	sigset_t mask;
	bool lazy;
	pid_t pid;
	int saved;

	if (!first || !ust_fork_resolve())
		return libc_fork();
	lazy = fork_mode == FORK_LAZY && any_slub_event_enabled();
#if SLUB_LOCKFREE_UNWIND
	if (lazy && !__atomic_load_n(&gcc_backtrace, __ATOMIC_ACQUIRE))
		resolve_gcc_unwinder();
	/* LTTng-UST's own fork (its listener making the wait shm) is no
	 * fork to LTTng-UST (its nesting count): eager, where both calls do
	 * nothing; the child takes no lock and execs or exits */
	lazy = lazy && __atomic_load_n(&gcc_backtrace, __ATOMIC_ACQUIRE) && !registration_unsafe_here();
	if (lazy)
		unsafe_frames_init();
	lazy = lazy && rtld_map;
#else
	lazy = false;
#endif
	/* registered now: under ust_before_fork() the registration's mutex is
	 * held, and an allocation of an atfork handler would wait for it */
	slub_trace_thread_ready();
	ust_before_fork(&mask);
	pid = libc_fork();
	saved = errno;
	if (pid != 0) {
		ust_after_fork_parent(&mask);
	} else if (!lazy) {
		__atomic_store_n(&slub_trace_fork_pending, 0, __ATOMIC_RELAXED);
		ust_after_fork_child(&mask);
	} else {
		ust_after_fork_parent(&mask);
		ust_urcu_before_fork();
		ust_urcu_after_fork_child();
		fork_exiting = 0;
		/* registered after the libc's own exit handler, so it runs
		 * before every destructor; before the state, as atexit() may
		 * allocate */
		if (!fork_exit_hooked)
			fork_exit_hooked = atexit(fork_exit_mark) == 0;
		__atomic_store_n(&slub_trace_fork_pending, SLUB_FORK_PENDING, __ATOMIC_RELEASE);
	}
	errno = saved;
	return pid;
}

#if SLUB_LOCKFREE_UNWIND
struct ust_frame_walk {
	unsigned n;
	bool found;
};

/* The dynamic loader's own link map, and dl_iterate_phdr()'s code: found
 * at the fork, in the parent (dladdr1() takes the loader's lock). */
static uintptr_t iterate_start, iterate_end;

static void unsafe_frames_init(void)
{
	struct dl_find_object fo;
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (!rtld_map && _dl_find_object((void *)&_r_debug, &fo) == 0)
		rtld_map = fo.dlfo_link_map;
	if (!iterate_end && dladdr1((void *)dl_iterate_phdr, &info, (void **)&sym, RTLD_DL_SYMENT) &&
	    sym && sym->st_size) {
		iterate_start = (uintptr_t)dl_iterate_phdr;
		iterate_end = iterate_start + sym->st_size;
	}
}

/* A frame where the registration must not run: LTTng-UST's (its locks),
 * the dynamic loader's (inside dlopen() or dlclose(): LTTng-UST's
 * registration dlopen()s), dl_iterate_phdr()'s (LTTng-UST's statedump
 * waits for its lock). */
static _Unwind_Reason_Code ust_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct ust_frame_walk *w = arg;
	uintptr_t ip = gcc_getip(ctx);
	struct dl_find_object fo;

	if (!ip || ++w->n > 128)
		return _URC_END_OF_STACK;
	if (ip - 1 - iterate_start < iterate_end - iterate_start)
		w->found = true;
	else if (_dl_find_object((void *)(ip - 1), &fo) == 0 && fo.dlfo_link_map &&
		 (fo.dlfo_link_map == rtld_map ||
		  (fo.dlfo_link_map->l_name && strstr(fo.dlfo_link_map->l_name, "liblttng-ust"))))
		w->found = true;
	return w->found ? _URC_END_OF_STACK : _URC_NO_REASON;
}

/* Is a frame of LTTng-UST, of the loader or of dl_iterate_phdr() on this
 * thread's stack, under ours? */
static bool registration_unsafe_here(void)
{
	struct ust_frame_walk w = { 0, false };
	_Unwind_Reason_Code (*bt)(_Unwind_Trace_Fn, void *) =
		__atomic_load_n(&gcc_backtrace, __ATOMIC_ACQUIRE);

	if (!bt)
		return true;
	bt(ust_frame, &w);
	return w.found;
}
#else
static bool registration_unsafe_here(void) { return true; }
#endif

/*
 * The deferred registration: true when the caller may emit.  Only the first
 * caller registers; meanwhile (SLUB_FORK_REGISTERING) the registering
 * thread emits nothing, and the other threads, which can only be
 * LTTng-UST's listeners that the registration starts, go on: their events
 * reach no session until it is done.
 */
bool slub_trace_fork_register(void)
{
	int pending = __atomic_load_n(&slub_trace_fork_pending, __ATOMIC_ACQUIRE);
	int saved = errno;
	sigset_t mask;

	switch (pending) {
	case 0:
		return true;
	case SLUB_FORK_REGISTERING:
		return !fork_registering;
	case SLUB_FORK_SILENT:
		return false;
	}
	if (__atomic_load_n(&fork_exiting, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&tp_closed, __ATOMIC_RELAXED)) {
		__atomic_store_n(&slub_trace_fork_pending, SLUB_FORK_SILENT, __ATOMIC_RELEASE);
		return false;
	}
	if (slub_locks_held() || registration_unsafe_here()) {
		errno = saved;
		return false;
	}
	if (!__atomic_compare_exchange_n(&slub_trace_fork_pending, &pending, SLUB_FORK_REGISTERING,
					 false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return slub_trace_fork_register();
	fork_registering = 1;
	ust_before_fork(&mask);
	ust_after_fork_child(&mask);
	fork_registering = 0;
	__atomic_store_n(&slub_trace_fork_pending, 0, __ATOMIC_RELEASE);
	errno = saved;
	return true;
}

/*
 * free() keeps errno, and so does every other entry point that emits: the
 * stack walkers probe addresses with system calls that fail with ENOMEM
 * (libunwind validates frames with mincore/msync), and the ring buffer may
 * wake its consumer.  Seen as free() returning with errno 12 under
 * `slubtrace record` (test_stress checks errno around every free).
 */
void slub_trace_emit(const struct slub_event *ev)
{
	uint64_t ips[SLUB_TP_STACK_MAX];
	unsigned n;
	int saved = errno;

	if (__builtin_expect(__atomic_load_n(&tp_closed, __ATOMIC_RELAXED), 0))
		goto out;
	if (__builtin_expect(comm_countdown-- == 0, 0))
		announce_comm();
	if (!fire_event(ev))
		goto out;
	/* The objects the stacks lie in, once per process, lock-free; not
	 * between the cache_create events that announce the caches at the
	 * process's first event (observer.c), which other threads' events of
	 * those caches must not precede by more than that loop takes. */
	if (__builtin_expect(stack_types && !__atomic_load_n(&bin_adds, __ATOMIC_RELAXED), 0) &&
	    ev->type != SLUB_EV_CACHE_CREATE && !slub_locks_held())
		dump_objects(false);
	/* The stack follows its event, from this thread: the reader attaches
	 * it to the last event of type `of` of this thread. */
	if (__builtin_expect(!(stack_types & (1ull << ev->type)), 1) ||
	    !lttng_ust_tracepoint_enabled(slub, stack))
		goto out;
	n = capture_stack(ev, ips);
	if (n) {
		/* objects loaded since the last dump, before the stack: asked
		 * of the loader (under its lock) at one stack in 64 of the
		 * thread's, not at every one */
		if ((++bin_recheck & 63) == 1 && !slub_locks_held())
			dump_objects(true);
		lttng_ust_do_tracepoint(slub, stack, ev->type, ev->slab, ips, n, pid_tid(ev->tid));
	}
out:
	errno = saved;
}

/*
 * At exit, the destructor tracepoint.h gives this file unregisters its
 * tracepoints one at a time and frees each entry as it goes
 * (liblttng-ust-tracepoint: remove_callsite()).  A free() there that took a
 * list_lock emitted the lock_release of an acquisition whose lock_acquire
 * tracepoint was already off, a lost event with no discarded-events
 * record: a false R7-lock-holder in 1 of 6 recordings of python3 (the
 * process's last slub event, followed by the dlclose of
 * liblttng-ust-tracepoint.so).  This destructor comes after that include
 * in the file, so it runs before it (.fini_array runs backwards), and stops
 * every slub event at once: a process's events end where a transition
 * ends, never between the halves of one.
 */
static void __attribute__((destructor)) close_tracepoints(void)
{
	__atomic_store_n(&tp_closed, 1, __ATOMIC_RELAXED);
}
