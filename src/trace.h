/* SPDX-License-Identifier: MIT */
/*
 * Contract between the allocator and the LTTng-UST call sites (src/trace.c).
 *
 * The allocator builds one struct slub_event per transition and hands it to
 * slub_emit() (observer.c), which calls the in-process observer and then
 * slub_trace_emit().  slub_trace_emit() maps the event onto the `slub`
 * provider's tracepoints.  The call sites use dynamic linkage: nothing here
 * loads liblttng-ust; the probes live in libslub-tp.so, which the user
 * preloads (slubtrace record does).
 *
 * slub_tp_enabled(type) is the cheap guard the allocator uses before it
 * builds an event: one load of the tracepoint's state word.
 */
#ifndef SLUB_TRACE_H
#define SLUB_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <slub/event.h>

/* slub:trigger's kind (tracepoints/slub_tp.h defines them alike). */
#define SLUB_TRIGGER_VIOLATION 0
#define SLUB_TRIGGER_STORM 1
#define SLUB_TRIGGER_ERROR 2

/* How many allocator locks the calling thread holds (any kind). */
int slub_locks_held(void);

#if SLUB_TRACE_ENABLED
/* &tracepoint.state for each event type (never NULL; a static zero for
 * types with no tracepoint). */
extern const int *const slub_tp_state[SLUB_EV_NR];
#define slub_tp_enabled(t) \
	__builtin_expect(__atomic_load_n(slub_tp_state[(t)], __ATOMIC_RELAXED) != 0, 0)
/* Emit `ev` on its tracepoint, with a call stack when SLUBTRACE_STACKS
 * selects the type.  Safe under list_lock; never calls the allocator
 * directly (LTTng-UST may call malloc: the shim's re-entrancy guard serves
 * that without allocator locks). */
void slub_trace_emit(const struct slub_event *ev);
/* The state words of the alloc and free tracepoints, for the fast paths. */
extern const int slub_tp_alloc_state __attribute__((visibility("hidden")));
extern const int slub_tp_free_state __attribute__((visibility("hidden")));
#define slub_tp_object_enabled(t)                                                 \
	(__atomic_load_n((t) == SLUB_EV_ALLOC ? &slub_tp_alloc_state : &slub_tp_free_state, \
			 __ATOMIC_RELAXED) != 0)
/* Reads SLUBTRACE_STACKS and SLUBTRACE_STACK_DEPTH; called by slub_init(). */
void slub_trace_init(void);
/* In the child of a fork: name the thread again before its next event. */
void slub_trace_postfork_child(void);
/* Around fork: no dump of the loaded objects in progress (trace.c). */
void slub_trace_prefork(void);
void slub_trace_postfork_parent(void);
/* slub:trigger (kind SLUB_TRIGGER_*); false when nothing listens to it. */
bool slub_trace_trigger(unsigned kind, uint64_t slab, const char *rule);
bool slub_trace_trigger_enabled(void);
/*
 * fork() with LTTng-UST's calls around it (the shim's fork(); trace.c tells
 * when a child registers).  `first`: no other fork() wrapper comes before
 * the caller's in the lookup order.  In a child that has not registered yet
 * (SLUB_FORK_PENDING), slub_trace_fork_ok() registers it where it can and
 * says whether the caller may emit: called before anything that may.
 */
#define SLUB_FORK_PENDING 1
#define SLUB_FORK_REGISTERING 2
#define SLUB_FORK_SILENT 3
pid_t slub_trace_fork(pid_t (*libc_fork)(void), bool first);
extern int slub_trace_fork_pending __attribute__((visibility("hidden")));
bool slub_trace_fork_register(void);
#define slub_trace_fork_ok()                                                            \
	(__builtin_expect(__atomic_load_n(&slub_trace_fork_pending, __ATOMIC_RELAXED) == 0, 1) || \
	 slub_trace_fork_register())
/* The calling thread an RCU reader of LTTng-UST before it holds any
 * allocator lock (trace.c says why); called with none held. */
extern __thread int slub_trace_rcu_ready
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
void slub_trace_rcu_register(void);
#define slub_trace_thread_ready()                                                       \
	do {                                                                            \
		if (__builtin_expect(!slub_trace_rcu_ready, 0))                         \
			slub_trace_rcu_register();                                      \
	} while (0)
#else
#define slub_tp_enabled(t) 0
#define slub_tp_object_enabled(t) 0
static inline void slub_trace_emit(const struct slub_event *ev) { (void)ev; }
static inline void slub_trace_init(void) { }
static inline void slub_trace_postfork_child(void) { }
static inline void slub_trace_prefork(void) { }
static inline void slub_trace_postfork_parent(void) { }
static inline bool slub_trace_trigger(unsigned kind, uint64_t slab, const char *rule)
{
	(void)kind; (void)slab; (void)rule;
	return false;
}
static inline bool slub_trace_trigger_enabled(void) { return false; }
static inline pid_t slub_trace_fork(pid_t (*libc_fork)(void), bool first)
{
	(void)first;
	return libc_fork();
}
#define slub_trace_fork_ok() true
#define slub_trace_thread_ready() do { } while (0)
#endif

#endif /* SLUB_TRACE_H */
