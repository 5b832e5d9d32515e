/* SPDX-License-Identifier: MIT */
/*
 * Emission points, the in-process observer, event names, and corruption
 * reports.  Every transition goes through slub_emit(): the observer and the
 * tracepoints see exactly the same struct slub_event.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dlfcn.h>
#include <sched.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <inttypes.h>

uint64_t slub_observer_mask;
static slub_observer_fn observer_fn;
static void *observer_arg;

void slub_set_observer(slub_observer_fn fn, void *arg, uint64_t mask)
{
	slub_init();
	if (!mask)
		mask = ((1ull << SLUB_EV_NR) - 1) & ~((1ull << SLUB_EV_ALLOC) | (1ull << SLUB_EV_FREE));
	/* Turn the mask off first so no event sees a half-set observer. */
	__atomic_store_n(&slub_observer_mask, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&observer_arg, arg, __ATOMIC_SEQ_CST);
	__atomic_store_n(&observer_fn, fn, __ATOMIC_SEQ_CST);
	if (fn)
		__atomic_store_n(&slub_observer_mask, mask, __ATOMIC_SEQ_CST);
}

void ev_init(struct slub_event *ev, unsigned type, struct slub_cache *s, struct slub_cpu *c,
	     struct slab *slab)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->cache_id = s ? s->id : 0;
	/* The acting slot: cpu ids are thread ids, so it is the calling
	 * thread's (c may be another thread's slot being flushed). */
	ev->cpu = slub_self ? slub_self->id : (c ? c->id : -1);
	ev->slot = -1;
	/* Relaxed loads: after the CAS that let it go (a free that emptied a
	 * frozen slab its owner then discards), the slab's descriptor may be
	 * taken for a new slab at the same pages while this event is built. */
	ev->node = slab ? __atomic_load_n(&slab->node, __ATOMIC_RELAXED) : (c ? c->node : 0);
	ev->slab = (uint64_t)(uintptr_t)(slab ? __atomic_load_n(&slab->base, __ATOMIC_RELAXED)
					   : NULL);
}

void ev_word(struct slub_word *dst, const struct slab_word *w, int owner)
{
	dst->freelist = (uint64_t)(uintptr_t)w->freelist;
	dst->inuse = w->c.inuse;
	dst->objects = w->c.objects;
	dst->frozen = w->c.frozen;
	dst->owner = owner;
	dst->seq = w->c.seq;
}

/*
 * The kmalloc caches are created at the first malloc, usually before
 * LTTng-UST has registered the probes: their cache_create events reach no
 * session.  The first traced event of the process therefore announces every
 * existing cache (cache_create with reason 1) so the trace names them.
 *
 * The announcement counts only once a session has recorded it: the probe
 * acknowledges the first cache_create it writes (slub_tp_format(),
 * tracepoints/slub_tp.h).  A process's tracepoints turn on as soon as a
 * session enables them, before that session starts (a process attached to,
 * or registering with an already started session); an announcement then
 * reaches no trace, and the next event announces again.  Until a session
 * records, that costs each event one cache_create the probe drops.
 *
 * Other threads wait while one announces, so that no event of a cache
 * reaches the trace before its announcement (readers name a cache from its
 * cache_create; before it, stats and top had a row `cache#N`).  The loop
 * takes no allocator lock, so a waiting thread that holds one stalls
 * nothing the announcer needs; the wait is bounded all the same
 * (ANNOUNCE_WAIT_NS) and the announcing thread never waits for itself (an
 * allocation made inside its own events).
 */
enum { CACHES_NOT_ANNOUNCED, CACHES_ANNOUNCING, CACHES_ANNOUNCED };
#define ANNOUNCE_WAIT_NS (100 * 1000 * 1000ull)
static int caches_announced;
static int announce_ack;
static __thread int announcing __attribute__((tls_model("initial-exec")));

static int announce_one(struct slub_cache *s, void *arg)
{
	struct slub_event ev;

	(void)arg;
	ev_init(&ev, SLUB_EV_CACHE_CREATE, s, NULL, NULL);
	ev.info = &s->info;
	ev.reason = 1;
	ev.object = (uint64_t)(uintptr_t)&announce_ack;
	ev.tid = slub_self ? slub_self->tid : slub_os_tid();
	slub_trace_emit(&ev);
	/* the first one unrecorded: no session records yet, stop here */
	return !__atomic_load_n(&announce_ack, __ATOMIC_RELAXED);
}

static __attribute__((noinline, cold)) void announce_caches(void)
{
	int state = CACHES_NOT_ANNOUNCED;
	uint64_t t0;

	if (__atomic_compare_exchange_n(&caches_announced, &state, CACHES_ANNOUNCING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		announcing = 1;
		__atomic_store_n(&announce_ack, 0, __ATOMIC_RELAXED);
		slub_for_each_cache(announce_one, NULL);
		announcing = 0;
		__atomic_store_n(&caches_announced,
				 __atomic_load_n(&announce_ack, __ATOMIC_RELAXED) ?
				 CACHES_ANNOUNCED : CACHES_NOT_ANNOUNCED, __ATOMIC_RELEASE);
		return;
	}
	if (state != CACHES_ANNOUNCING || announcing)
		return;
	t0 = slub_now_ns();
	while (__atomic_load_n(&caches_announced, __ATOMIC_ACQUIRE) == CACHES_ANNOUNCING &&
	       slub_now_ns() - t0 < ANNOUNCE_WAIT_NS)
		sched_yield();
}

/* A fork while a thread of the parent announced: the child has no such
 * thread; it keeps the parent's announcements, as the readers do. */
void slub_observer_postfork_child(void)
{
	if (__atomic_load_n(&caches_announced, __ATOMIC_RELAXED) == CACHES_ANNOUNCING)
		__atomic_store_n(&caches_announced, CACHES_ANNOUNCED, __ATOMIC_RELAXED);
	announcing = 0;
}

void slub_emit(struct slub_event *ev)
{
	struct slub_thread *t = slub_self;

	ev->tid = t ? t->tid : slub_os_tid();
	uint64_t mask = __atomic_load_n(&slub_observer_mask, __ATOMIC_ACQUIRE);
	if (mask & (1ull << ev->type)) {
		slub_observer_fn fn = __atomic_load_n(&observer_fn, __ATOMIC_ACQUIRE);
		void *arg = __atomic_load_n(&observer_arg, __ATOMIC_ACQUIRE);
		if (fn)
			fn(ev, arg);
	}
	if (slub_tp_enabled(ev->type) && slub_trace_fork_ok()) {
		if (unlikely(__atomic_load_n(&caches_announced, __ATOMIC_ACQUIRE) !=
			     CACHES_ANNOUNCED) &&
		    slub_tp_enabled(SLUB_EV_CACHE_CREATE))
			announce_caches();
		slub_trace_emit(ev);
	}
	if (mask && unlikely(slub_check_trigger_pending))
		slub_check_trigger_flush();
}

/* What the allocator did about each kind of report. */
static const char *const error_actions[SLUB_ERR_NR] = {
	[SLUB_ERR_DOUBLE_FREE] = "free ignored, object left as it was",
	[SLUB_ERR_FOREIGN_POINTER] = "memory not touched (leaked)",
	[SLUB_ERR_WRONG_CACHE] = "free ignored, object left as it was",
	[SLUB_ERR_NOT_OBJECT_START] = "free ignored (the object is leaked)",
	[SLUB_ERR_FREEPOINTER] = "the rest of the free chain is left alone (leaked)",
	[SLUB_ERR_REDZONE] = "red zone restored, the operation went ahead",
	[SLUB_ERR_POISON] = "poison restored, the object was handed out",
	[SLUB_ERR_COUNTS] = "nothing changed",
	[SLUB_ERR_LIST] = "nothing changed",
};


/* ---- reports ---- */

static int report_fd = 2;
static unsigned long error_count;
static enum slub_error_action error_action = SLUB_ON_ERROR_CONTINUE;

void slub_set_error_action(enum slub_error_action a) { error_action = a; }
unsigned long slub_error_count(void) { return __atomic_load_n(&error_count, __ATOMIC_RELAXED); }
void slub_set_report_fd(int fd) { report_fd = fd; }
int slub_report_fd(void) { return report_fd; }

SLUB_INTERNAL void slub_report_env(void);
void slub_report_env(void)
{
	const char *a = getenv("SLUBTRACE_ON_ERROR");
	if (a && !strcmp(a, "abort"))
		error_action = SLUB_ON_ERROR_ABORT;
	else if (a && *a && strcmp(a, "continue"))
		slub_env_fail("SLUBTRACE_ON_ERROR", "unknown action", a, strlen(a),
			      "abort continue");
	const char *log = getenv("SLUBTRACE_LOG");
	if (log && *log) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0)
			slub_env_fail("SLUBTRACE_LOG", "cannot open", log, strlen(log),
				      "a file this process can append to");
		report_fd = fd;
	}
}

/* Formats into a stack buffer and write()s: the report path never allocates. */
static void rwrite(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rwrite(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	ssize_t w = write(report_fd, buf, (size_t)n);
	(void)w;
}

static void print_addr(const char *prefix, uint64_t a)
{
	Dl_info info;

	/* dladdr() takes the loader's lock, whose holder may be waiting in
	 * malloc for a lock we hold: under an allocator lock, addresses only. */
	if (slub_locks_held()) {
		rwrite("%s 0x%" PRIx64 "\n", prefix, a);
		return;
	}
	if (dladdr((void *)(uintptr_t)a, &info) && info.dli_sname)
		rwrite("%s 0x%" PRIx64 " %s+0x%lx (%s)\n", prefix, a, info.dli_sname,
		       (unsigned long)(a - (uint64_t)(uintptr_t)info.dli_saddr),
		       info.dli_fname ? info.dli_fname : "?");
	else if (dladdr((void *)(uintptr_t)a, &info) && info.dli_fname)
		rwrite("%s 0x%" PRIx64 " (%s+0x%lx)\n", prefix, a, info.dli_fname,
		       (unsigned long)(a - (uint64_t)(uintptr_t)info.dli_fbase));
	else
		rwrite("%s 0x%" PRIx64 "\n", prefix, a);
}

static void print_track(struct slub_cache *s, const void *object, int which)
{
	const struct slub_track *tr =
		(const struct slub_track *)((const char *)object + s->track_offset) + which;

	if (!tr->nr) {
		rwrite("slubtrace: INFO: %s: no record\n", which ? "Freed" : "Allocated");
		return;
	}
	uint64_t now = slub_now_ns();
	rwrite("slubtrace: INFO: %s in cpu=%d tid=%u age=%" PRIu64 "us\n",
	       which ? "Freed" : "Allocated", tr->cpu, tr->tid,
	       now > tr->when_ns ? (now - tr->when_ns) / 1000 : 0);
	for (uint32_t i = 0; i < tr->nr && i < SLUB_TRACK_DEPTH; i++)
		print_addr("slubtrace:  ", tr->addrs[i]);
}

void slub_report(struct slub_cache *s, struct slab *slab, const void *object,
		 enum slub_error_kind kind, const char *fmt, ...)
{
	char detail[256] = "";
	va_list ap;
	int saved = errno;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	__atomic_fetch_add(&error_count, 1, __ATOMIC_RELAXED);
	rwrite("=============================================================================\n");
	rwrite("slubtrace: BUG %s: %s%s%s\n", s ? s->name : "(no cache)", slub_error_name(kind),
	       detail[0] ? ": " : "", detail);
	rwrite("-----------------------------------------------------------------------------\n");
	if (slab) {
		struct slab_word w = slab_word_read(slab);
		rwrite("slubtrace: Slab 0x%lx node=%u objects=%u used=%u fp=0x%lx frozen=%u owner=%d seq=%u\n",
		       (unsigned long)(uintptr_t)slab->base, slab->node, w.c.objects, w.c.inuse,
		       (unsigned long)(uintptr_t)w.freelist, w.c.frozen, READ_ONCE(slab->owner),
		       w.c.seq);
	}
	if (object) {
		if (s && slab)
			rwrite("slubtrace: Object 0x%lx @offset=%lu index=%u size=%zu\n",
			       (unsigned long)(uintptr_t)object,
			       (unsigned long)((const char *)object - slab->base),
			       obj_to_index(s, slab, object), s->object_size);
		else
			rwrite("slubtrace: Object 0x%lx\n", (unsigned long)(uintptr_t)object);
		if (s && slab && (s->flags & SLUB_F_STORE_USER) &&
		    (const char *)object >= slab->base) {
			/* Report on the object's own start, whatever pointer came in. */
			const char *start = slab->base +
				(size_t)obj_to_index(s, slab, object) * s->size;
			print_track(s, start, 0);
			print_track(s, start, 1);
		}
	}
	if (error_action == SLUB_ON_ERROR_ABORT)
		rwrite("slubtrace: SLUBTRACE_ON_ERROR=abort: stopping\n");
	else
		rwrite("slubtrace: action: %s, program continues\n", error_actions[kind]);

	if (slub_wants(SLUB_EV_ERROR)) {
		struct slub_event ev;
		struct slub_thread *t = slub_self;
		struct slub_cpu *c = (t && s) ? READ_ONCE(t->cpu[s->id]) : NULL;
		ev_init(&ev, SLUB_EV_ERROR, s, c, slab);
		ev.reason = kind;
		ev.object = (uint64_t)(uintptr_t)object;
		ev.msg = slub_error_name(kind);
		if (slab) {
			struct slab_word w = slab_word_read(slab);
			ev_word(&ev.old, &w, word_owner_unknown(&w));
			ev.new = ev.old;
		}
		slub_emit(&ev);
	}
	errno = saved;
	if (error_action == SLUB_ON_ERROR_ABORT)
		abort();
}

void slub_warn(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rwrite("slubtrace: WARNING: %s\n", msg);
	errno = saved;
}

void slub_report_foreign(const void *p, const char *where)
{
	slub_report(NULL, NULL, p, SLUB_ERR_FOREIGN_POINTER, "%s(0x%lx): not a slubtrace object",
		    where, (unsigned long)(uintptr_t)p);
}

void slub_assert_fail(const char *expr, const char *file, int line)
{
	rwrite("slubtrace: assertion failed: %s at %s:%d\n", expr, file, line);
	abort();
}

/* ---- lock witness: counts the locks held; checks the order at SLUB_DEBUG >= 2 ---- */
int slub_locks_held(void)
{
	struct slub_thread *t = slub_self;

	return t ? (int)t->nr_locks : 0;
}

void witness_acquire(unsigned rank)
{
	struct slub_thread *t = slub_self;

	/* a forked child registers before its first lock, not under it, and
	 * a thread becomes LTTng-UST's RCU reader before it (trace.c) */
	if (!t || !t->nr_locks) {
		if (slub_trace_fork_ok())
			slub_trace_thread_ready();
	}
	if (!t)
		return;
	t->nr_locks++;
#if SLUB_DEBUG >= 2
	for (uint32_t i = 0; i < t->nr_held; i++)
		if (t->held_rank[i] >= rank) {
			rwrite("slubtrace: lock order violation: taking rank %u while holding rank %u\n",
			       rank, t->held_rank[i]);
			abort();
		}
	if (t->nr_held < 8)
		t->held_rank[t->nr_held++] = rank;
#else
	(void)rank;
#endif
}

void witness_release(unsigned rank)
{
	struct slub_thread *t = slub_self;
	if (!t)
		return;
	if (t->nr_locks)
		t->nr_locks--;
#if SLUB_DEBUG >= 2
	for (uint32_t i = t->nr_held; i-- > 0;)
		if (t->held_rank[i] == rank) {
			t->held_rank[i] = t->held_rank[--t->nr_held];
			return;
		}
#else
	(void)rank;
#endif
}
