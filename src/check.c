/* SPDX-License-Identifier: MIT */
/*
 * SLUBTRACE_CHECK: the state model (analysis/model) run in-process, fed by
 * the observer with the same struct slub_event the tracepoints see.
 *
 *   SLUBTRACE_CHECK=1 | abort   report the first violation and abort()
 *   SLUBTRACE_CHECK=report      report every violation, go on, print a
 *                               one-line verdict at exit
 *   ...,objects                 also alloc/free events (family 8 rules)
 *
 * SLUBTRACE_TRIGGER=violation[,storm[=N]][,error] emits slub:trigger, which
 * an LTTng trigger turns into a snapshot of a flight-recorder session
 * (slubtrace record --snapshot --trigger), on a violation, on a CAS retried
 * N times in a row (cmpxchg_fail's attempt reaching N, default 16), on an
 * allocator error report.  At most one per SLUBTRACE_TRIGGER_INTERVAL
 * seconds (default 10): a snapshot is the last MiBs of events, and the
 * next violation of the same race a millisecond later would only write
 * the same evidence again.  Each one is reported on a line.
 *
 * The observer runs inside the allocator, sometimes under list_lock, so
 * the checker never calls malloc: the model's memory comes from mmap
 * through its memory hook, reports are formatted on the stack and
 * write()n.  One lock (a leaf, taken innermost) serialises the model.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "slub_model.h"

static struct slub_model *check_model;
static uint32_t check_lock;
static uint32_t check_pid;
static int check_abort;
static int check_verbose_exit;

static unsigned trigger_kinds;		/* bit (1 << SLUB_TRIGGER_*) */
static uint32_t trigger_storm = 16;
static uint64_t trigger_interval_ns = 10ull * 1000000000;
static uint64_t trigger_last_ns;
static int trigger_fired;
__thread int slub_check_trigger_pending __attribute__((tls_model("initial-exec")));
static __thread unsigned pending_kind;
static __thread uint64_t pending_slab;
static __thread const char *pending_rule;	/* a static string */

static void cwrite(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cwrite(const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	ssize_t w = write(slub_report_fd(), buf, (size_t)n);
	(void)w;
}

static void *check_mem_alloc(size_t size, void *arg)
{
	void *p;

	(void)arg;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p; /* anonymous pages are zero */
}

static void check_mem_free(void *p, size_t size, void *arg)
{
	(void)arg;
	munmap(p, size);
}

static const struct slub_model_mem check_mem = { check_mem_alloc, check_mem_free, NULL };

static void print_record(const char *prefix, const struct slub_model_record *r)
{
	cwrite("%s %" PRIu64 ".%09" PRIu64 " tid %u cpu %d %s%s%s %s -> %s list %s owner %d "
	       "inuse %u/%u frozen %u seq %u freelist %#" PRIx64 "\n",
	       prefix, r->ts / 1000000000, r->ts % 1000000000, r->vtid, r->cpu,
	       slub_event_name(r->type), r->site ? " at " : "", r->site ? slub_site_name(r->site) : "",
	       slub_state_name(r->before), slub_state_name(r->after),
	       slub_model_list_name(r->list), r->owner, r->inuse, r->objects, r->frozen, r->seq,
	       r->freelist);
}

/* Under check_lock. */
static void trigger(unsigned kind, uint64_t slab, const char *rule)
{
	static const char *const kinds[] = { "violation", "storm", "error" };
	uint64_t now = slub_now_ns();
	struct timespec wall;

	if (!(trigger_kinds & (1u << kind)))
		return;
	if (trigger_fired && now - trigger_last_ns < trigger_interval_ns)
		return;
	if (slub_check_trigger_pending || !slub_trace_trigger_enabled())
		return;	/* no LTTng trigger listens: try again next time */
	/* The event that caused it is not traced yet (the observer runs
	 * first): slub_emit() sends the trigger after it. */
	pending_kind = kind;
	pending_slab = slab;
	pending_rule = rule;
	slub_check_trigger_pending = 1;
	trigger_fired = 1;
	trigger_last_ns = now;
	/* Wall-clock time: the snapshot's files carry it too. */
	clock_gettime(CLOCK_REALTIME, &wall);
	cwrite("slubtrace: trigger: %s %s slab %#" PRIx64 " at %lld.%09ld: snapshot requested "
	       "(next one in %" PRIu64 " s at the earliest)\n", kinds[kind], rule, slab,
	       (long long)wall.tv_sec, wall.tv_nsec, trigger_interval_ns / 1000000000);
}

static void on_violation(const struct slub_model_violation *v, void *arg)
{
	(void)arg;
	trigger(SLUB_TRIGGER_VIOLATION, v->slab, v->rule_id);
	cwrite("=============================================================================\n");
	cwrite("slubtrace: CHECK %s %s: %s\n", v->rule_id, v->cache_name ? v->cache_name : "?",
	       v->detail);
	cwrite("-----------------------------------------------------------------------------\n");
	cwrite("slubtrace: rule: %s (%s)\n", v->meaning, v->kernel_fn);
	if (v->slab)
		cwrite("slubtrace: slab %#" PRIx64 " cache %u, pid %u tid %u%s\n", v->slab,
		       v->cache_id, v->vpid, v->vtid, v->other_vtid ? " (other: see detail)" : "");
	if (v->nr_history)
		cwrite("slubtrace: the slab's last %u events:\n", v->nr_history);
	for (uint32_t i = 0; i < v->nr_history; i++)
		print_record("slubtrace:  ", &v->history[i]);
	print_record("slubtrace: >", v->event);
	if (check_abort) {
		cwrite("slubtrace: SLUBTRACE_CHECK=abort: stopping\n");
		abort();
	}
}

static void check_observe(const struct slub_event *ev, void *arg)
{
	struct slub_model_event e;

	(void)arg;
	memset(&e, 0, sizeof(e));
	e.ev = *ev;
	e.vpid = __atomic_load_n(&check_pid, __ATOMIC_RELAXED);
	e.vtid = ev->tid;
	e.old_valid = 1;
	slub_futex_lock(&check_lock);
	e.ts = slub_now_ns();
	if (ev->type == SLUB_EV_ERROR)
		trigger(SLUB_TRIGGER_ERROR, ev->slab, slub_error_name(ev->reason));
	else if (ev->type == SLUB_EV_CMPXCHG_FAIL && ev->attempt >= trigger_storm)
		trigger(SLUB_TRIGGER_STORM, ev->slab, "storm");
	slub_model_event(check_model, &e);
	slub_futex_unlock(&check_lock);
}

static void check_atexit(void)
{
	struct slub_model_summary s;

	if (!check_model)
		return;
	slub_futex_lock(&check_lock);
	slub_model_finish(check_model);
	if (slub_check_trigger_pending)
		slub_check_trigger_flush();
	slub_model_get_summary(check_model, &s);
	if (check_verbose_exit || s.violations)
		cwrite("slubtrace: check: %" PRIu64 " events, %" PRIu64 " slabs, %" PRIu64
		       " violations, %" PRIu64 " reorder window exceeded, model memory peak %" PRIu64
		       " KiB\n",
		       s.events, s.slabs, s.violations, s.reorder_exceeded, s.peak_mem_bytes >> 10);
	slub_futex_unlock(&check_lock);
}

/* SLUBTRACE_TRIGGER, SLUBTRACE_TRIGGER_INTERVAL; parsed without malloc. */
static void trigger_init(void)
{
	const char *t = getenv("SLUBTRACE_TRIGGER");
	const char *iv = getenv("SLUBTRACE_TRIGGER_INTERVAL");

	while (t && *t) {
		size_t len = strcspn(t, ",");

		if (len == 9 && !strncmp(t, "violation", 9)) {
			trigger_kinds |= 1u << SLUB_TRIGGER_VIOLATION;
		} else if (len == 5 && !strncmp(t, "error", 5)) {
			trigger_kinds |= 1u << SLUB_TRIGGER_ERROR;
		} else if (len >= 5 && !strncmp(t, "storm", 5) && (len == 5 || t[5] == '=')) {
			trigger_kinds |= 1u << SLUB_TRIGGER_STORM;
			if (len > 6) {
				unsigned long n = strtoul(t + 6, NULL, 10);

				if (n >= 1 && n <= 1000000)
					trigger_storm = (uint32_t)n;
			}
		} else if (len) {
			cwrite("slubtrace: SLUBTRACE_TRIGGER: unknown trigger '%.*s' (violation, "
			       "storm[=N], error): ignored\n", (int)len, t);
		}
		t += len;
		if (*t == ',')
			t++;
	}
	if (iv && *iv) {
		char *end;
		unsigned long long s = strtoull(iv, &end, 10);

		if (*end || s > 86400 * 365)
			cwrite("slubtrace: SLUBTRACE_TRIGGER_INTERVAL: expected seconds, got '%s'\n",
			       iv);
		else
			trigger_interval_ns = s * 1000000000ull;
	}
}

void slub_check_trigger_flush(void)
{
	slub_check_trigger_pending = 0;
	slub_trace_trigger(pending_kind, pending_slab, pending_rule);
}

void slub_check_init(void)
{
	const char *v = getenv("SLUBTRACE_CHECK");
	struct slub_model_config cfg = { 0 };
	struct slub_model_callbacks cb = { on_violation, NULL, NULL, NULL, NULL };
	uint64_t mask;

	if (!v || !*v || !strcmp(v, "0"))
		return;
	if (0 && slub_generation_env == SLUB_GEN_SHEAVES) {
		/* Its rules are the classic generation's: a sheaves run would
		 * be judged wrong where it is not. */
		cwrite("slubtrace: SLUBTRACE_CHECK: generation sheaves (SLUBTRACE_GENERATION): "
		       "the state model has no table for it yet\n");
		_exit(2);
	}
	check_abort = !strstr(v, "report");
	check_verbose_exit = !check_abort;
	mask = ((1ull << SLUB_EV_NR) - 1) & ~((1ull << SLUB_EV_ALLOC) | (1ull << SLUB_EV_FREE));
	if (strstr(v, "objects"))
		mask |= (1ull << SLUB_EV_ALLOC) | (1ull << SLUB_EV_FREE);
	cfg.mem = &check_mem;
	/* exit() runs the verdict while other threads may still be between
	 * a CAS and its event. */
	cfg.end_cut_off = 1;
	check_model = slub_model_new(&cfg, &cb);
	if (!check_model) {
		slub_warn("SLUBTRACE_CHECK: no memory for the model, not checking");
		return;
	}
	check_pid = (uint32_t)getpid();
	trigger_init();
	slub_set_observer(check_observe, NULL, mask);
	atexit(check_atexit);
}

bool slub_check_active(void)
{
	return check_model != NULL;
}

/* fork: the lock is taken last (a leaf) and the child is a new process. */
void slub_check_prefork(void)
{
	if (check_model)
		slub_futex_lock(&check_lock);
}

void slub_check_postfork(int child)
{
	if (!check_model)
		return;
	if (child) {
		check_lock = 0;
		__atomic_store_n(&check_pid, (uint32_t)getpid(), __ATOMIC_RELAXED);
	} else {
		slub_futex_unlock(&check_lock);
	}
}
