/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.top
 *
 * The trace is cut into intervals of trace time (interval-ns, aligned on
 * multiples of it from the clock's origin).  When the first event past an
 * interval arrives, or the input ends, the interval's table is printed:
 * per cache the allocations, frees, slow-path operations and failed CAS
 * (slab word and cpu partial chain: the redos) per second, the storms
 * that ended in it, the list_lock acquisitions, their total wait and the
 * longest hold; then the threads with the most redos and lock wait.
 * Intervals without an event are printed only when a live source says
 * that nothing older will come (its inactivity beacons): a quiet
 * program's view moves on, a replay prints only what happened.
 *
 * Storms come from the statistics library (analysis/stats) fed by the
 * model's applied listener as in sink.slub.stats: a storm counts in the interval where its
 * detection closed it (a window storm ends when a failure no longer fits
 * its window, a run when the operation succeeds), the open ones in the
 * last interval.  So every column summed over the intervals is the
 * figure `slubtrace stats` reports for the whole trace.
 *
 * Hosts (decode.h): the rows are per host and cache, the storms come
 * from one statistics instance per host, and with the parameter `hosts`
 * (or once a second host is seen) every row names its host.
 *
 * With `cache` or `procname` (sink.h's filter) only that cache's rows, or
 * the processes of that name, are counted, their storms too; the
 * intervals still follow every event.
 *
 * Parameters: see plugin.c (format, interval-ns, sort, top, threads,
 * counts, quit-fd, realtime, hosts, cache, procname).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "top.h"
#include "../keymap.h"
#include "../sink.h"
#include "slub_tstats.h"

#define TOP_DEFAULT_INTERVAL_NS 1000000000ull
#define TOP_DEFAULT_ROWS 10
#define TOP_DEFAULT_THREADS 5
#define TOP_NAME 48

enum top_sort { SORT_REDO, SORT_SLOW, SORT_ALLOC, SORT_FREE, SORT_STORMS, SORT_LOCKS,
		SORT_WAIT, SORT_HOLD, SORT_NAME, SORT_NR };
static const char *const sort_names[SORT_NR + 1] = { /* NULL-terminated */
	"redo", "slow", "alloc", "free", "storms", "locks", "wait", "hold", "name", NULL,
};

/* One cache of a host (by name, summed over its processes), this
 * interval's counts. */
struct row {
	char *name;
	uint32_t host;
	uint64_t allocs, frees, slow, redos, locks, wait_ns, max_hold;
	uint64_t storms, storms_seen;	/* this interval; the library's count at the last table */
};

struct thread {
	uint32_t vpid, vtid;
	uint64_t redos, waits, wait_ns;
	char name[TOP_NAME];	/* its own (LTTng's procname of its events) */
};

struct proc {
	uint32_t vpid;
	char name[TOP_NAME];
};

struct top {
	struct slub_sink sink;
	struct slub_tstats **ts;	/* per host number */
	uint32_t nts;
	bool hosts;
	const char *format, *sort_name;
	uint64_t interval_ns, rows, nthreads;
	int64_t quit_fd;
	bool counts, realtime, screen, quit;
	enum top_sort sort;

	struct row *r;
	size_t nr, cap;
	struct keymap cache_of;		/* (vpid, cache_id) -> row */
	struct thread *t;
	size_t nt, tcap;
	struct keymap thread_of;	/* (vpid, vtid) -> thread */
	struct proc *p;
	size_t np, pcap;
	struct keymap proc_of;		/* (vpid, 0) -> proc */

	bool started;
	bool objects;			/* alloc/free events seen (record --objects) */
	uint64_t begin;			/* this interval's start */
	uint64_t events, discarded, storms_seen, tables;
};

/* ---- tables ---------------------------------------------------------------- */

static int row_named(struct top *t, uint32_t host, const char *name)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->r[i].host == host && !strcmp(t->r[i].name, name))
			return (int)i;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct row *r = realloc(t->r, cap * sizeof(*r));

		if (!r)
			return -1;
		t->r = r;
		t->cap = cap;
	}
	memset(&t->r[t->nr], 0, sizeof(t->r[0]));
	t->r[t->nr].name = strdup(name);
	t->r[t->nr].host = host;
	if (!t->r[t->nr].name)
		return -1;
	return (int)t->nr++;
}

/* The row of a process's cache id; a cache_create names it (an exec may
 * give the id another cache: the new name from then on). */
static struct row *row_of(struct top *t, uint32_t vpid, uint32_t cache_id, const char *name)
{
	int64_t found = keymap_get(&t->cache_of, vpid, cache_id);
	char unnamed[32];
	int i;

	if (found >= 0 && (!name || !strcmp(t->r[found].name, name)))
		return &t->r[found];
	if (!name) {
		/* as the statistics name a cache never created in the trace */
		snprintf(unnamed, sizeof(unnamed), "cache#%u", cache_id);
		name = unnamed;
	}
	i = row_named(t, slub_dec_host(vpid), name);
	if (i < 0)
		return NULL;
	keymap_put(&t->cache_of, vpid, cache_id, (uint32_t)i);
	return &t->r[i];
}

static struct thread *thread_of(struct top *t, uint32_t vpid, uint32_t vtid, const char *name)
{
	int64_t found = keymap_get(&t->thread_of, vpid, vtid);

	if (found >= 0) {
		struct thread *th = &t->t[found];

		/* renamed (prctl, exec) */
		if (name && strncmp(th->name, name, sizeof(th->name) - 1))
			snprintf(th->name, sizeof(th->name), "%s", name);
		return th;
	}
	if (t->nt == t->tcap) {
		size_t cap = t->tcap ? t->tcap * 2 : 64;
		struct thread *n = realloc(t->t, cap * sizeof(*n));

		if (!n)
			return NULL;
		t->t = n;
		t->tcap = cap;
	}
	memset(&t->t[t->nt], 0, sizeof(t->t[0]));
	t->t[t->nt].vpid = vpid;
	t->t[t->nt].vtid = vtid;
	if (name)
		snprintf(t->t[t->nt].name, sizeof(t->t[t->nt].name), "%s", name);
	keymap_put(&t->thread_of, vpid, vtid, (uint32_t)t->nt);
	return &t->t[t->nt++];
}

/* The process's name, from its main thread's events (the decoder gives
 * no other); "" until one is seen. */
static struct proc *proc_of(struct top *t, uint32_t vpid)
{
	int64_t found = keymap_get(&t->proc_of, vpid, 0);

	if (found >= 0)
		return &t->p[found];
	if (t->np == t->pcap) {
		size_t cap = t->pcap ? t->pcap * 2 : 16;
		struct proc *n = realloc(t->p, cap * sizeof(*n));

		if (!n)
			return NULL;
		t->p = n;
		t->pcap = cap;
	}
	memset(&t->p[t->np], 0, sizeof(t->p[0]));
	t->p[t->np].vpid = vpid;
	keymap_put(&t->proc_of, vpid, 0, (uint32_t)t->np);
	return &t->p[t->np++];
}

/* The statistics of a host, made when it is first seen; NULL without
 * memory. */
static struct slub_tstats *ts_of(struct top *t, uint32_t host)
{
	if (host >= t->nts) {
		struct slub_tstats **n = realloc(t->ts, (host + 1) * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + t->nts, 0, (host + 1 - t->nts) * sizeof(*n));
		t->ts = n;
		t->nts = host + 1;
	}
	if (!t->ts[host])
		t->ts[host] = slub_tstats_new(NULL);
	return t->ts[host];
}

static bool labelled(const struct top *t)
{
	return t->hosts || slub_decoder_hosts(t->sink.dec) > 1;
}

/* ---- printing ---------------------------------------------------------------- */

/* A count per second of the interval, or the count itself (counts=true). */
static void fmt_rate(const struct top *t, char *buf, size_t len, uint64_t n)
{
	double v;

	if (t->counts) {
		snprintf(buf, len, "%" PRIu64, n);
		return;
	}
	v = (double)n * 1e9 / (double)t->interval_ns;
	if (v < 99999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 9999.95e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v < 9999.95e6)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.1fG", v / 1e9);
}

static void fmt_ns(const struct top *t, char *buf, size_t len, uint64_t ns)
{
	if (t->counts || ns < 10000)
		snprintf(buf, len, t->counts ? "%" PRIu64 : "%" PRIu64 "ns", ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1fus", (double)ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(buf, len, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
}

static uint64_t sort_key(const struct row *r, enum top_sort s)
{
	switch (s) {
	case SORT_REDO: return r->redos;
	case SORT_SLOW: return r->slow;
	case SORT_ALLOC: return r->allocs;
	case SORT_FREE: return r->frees;
	case SORT_STORMS: return r->storms;
	case SORT_LOCKS: return r->locks;
	case SORT_WAIT: return r->wait_ns;
	case SORT_HOLD: return r->max_hold;
	default: return 0;
	}
}

/* The chosen column (arg), largest first; ties by redos, lock wait, name. */
static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
	enum top_sort sort = *(const enum top_sort *)arg;
	uint64_t kx, ky;

	if (sort != SORT_NAME) {
		kx = sort_key(x, sort);
		ky = sort_key(y, sort);
		if (kx != ky)
			return kx > ky ? -1 : 1;
		if (x->redos != y->redos)
			return x->redos > y->redos ? -1 : 1;
		if (x->wait_ns != y->wait_ns)
			return x->wait_ns > y->wait_ns ? -1 : 1;
	}
	if (strcmp(x->name, y->name))
		return strcmp(x->name, y->name);
	return x->host < y->host ? -1 : x->host > y->host;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct thread *x = *(const struct thread *const *)a;
	const struct thread *y = *(const struct thread *const *)b;

	if (x->redos != y->redos)
		return x->redos > y->redos ? -1 : 1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->vpid != y->vpid)
		return x->vpid < y->vpid ? -1 : 1;
	return x->vtid < y->vtid ? -1 : x->vtid > y->vtid;
}

/* A cache with anything to show: a lock released in the interval counts
 * (its hold), though it was taken in an earlier one. */
static bool row_active(const struct row *r)
{
	return r->allocs || r->frees || r->slow || r->redos || r->locks || r->storms ||
	       r->wait_ns || r->max_hold;
}

/* Each line of a batch table starts with the interval's start time. */
static void line_start(struct top *t, char *stamp)
{
	if (!t->screen)
		fprintf(t->sink.out, "%s ", stamp);
}

/* Prints the interval [begin, begin + interval) and resets its counts. */
static void print_interval(struct top *t)
{
	FILE *f = t->sink.out;
	struct slub_tstats_totals tot;
	struct row **rows;
	struct thread **thr;
	size_t n = 0, m = 0;
	char stamp[40], a[24], b[24], c[24], d[24], w[24], h[24];
	uint64_t storms;

	bool hosts = labelled(t);

	storms = 0;
	for (uint32_t i = 0; i < t->nts; i++) {
		if (!t->ts[i])
			continue;
		slub_tstats_get_totals(t->ts[i], &tot);
		storms += tot.storms;
	}
	/* the storms of all hosts so far, less those of the tables before */
	storms -= t->storms_seen;
	t->storms_seen += storms;
	for (size_t i = 0; i < t->nr; i++) {
		struct slub_tstats *ts = t->r[i].host < t->nts ? t->ts[t->r[i].host] : NULL;
		uint64_t now = ts ? slub_tstats_cache_storms(ts, t->r[i].name) : 0;

		t->r[i].storms = now - t->r[i].storms_seen;
		t->r[i].storms_seen = now;
	}
	rows = calloc(t->nr ? t->nr : 1, sizeof(*rows));
	thr = calloc(t->nt ? t->nt : 1, sizeof(*thr));
	if (!rows || !thr)
		goto reset;
	for (size_t i = 0; i < t->nr; i++)
		if (row_active(&t->r[i]))
			rows[n++] = &t->r[i];
	for (size_t i = 0; i < t->nt; i++)
		if (t->t[i].redos || t->t[i].waits)
			thr[m++] = &t->t[i];
	qsort_r(rows, n, sizeof(*rows), row_cmp, &t->sort);
	qsort(thr, m, sizeof(*thr), thread_cmp);

	snprintf(stamp, sizeof(stamp), "%" PRIu64 ".%09" PRIu64, t->begin / 1000000000u,
		 t->begin % 1000000000u);
	if (t->screen)
		/* home, clear: the new table replaces the last in place */
		fputs("\033[H\033[2J", f);
	line_start(t, stamp);
	fprintf(f, "interval %.6f s: %" PRIu64 " events, %" PRIu64 " storms", t->interval_ns / 1e9,
		t->events, storms);
	if (t->discarded)
		fprintf(f, ", %" PRIu64 " events discarded (figures are lower bounds)", t->discarded);
	if (t->screen)
		fprintf(f, "   [%s]   q quits", stamp);
	fputc('\n', f);
	line_start(t, stamp);
	if (hosts)
		fprintf(f, "%-12s ", "HOST");
	fprintf(f, "%-20s %8s %8s %8s %8s %6s %8s %9s %9s\n", "CACHE",
		t->counts ? "ALLOC" : "ALLOC/s", t->counts ? "FREE" : "FREE/s",
		t->counts ? "SLOW" : "SLOW/s", t->counts ? "REDO" : "REDO/s", "STORMS", "LOCKS",
		"WAIT", "MAXHOLD");
	for (size_t i = 0; i < n && i < t->rows; i++) {
		const struct row *r = rows[i];

		/* Without object events in the trace the figures are not known,
		 * not zero. */
		if (t->objects) {
			fmt_rate(t, a, sizeof(a), r->allocs);
			fmt_rate(t, b, sizeof(b), r->frees);
		} else {
			snprintf(a, sizeof(a), "-");
			snprintf(b, sizeof(b), "-");
		}
		fmt_rate(t, c, sizeof(c), r->slow);
		fmt_rate(t, d, sizeof(d), r->redos);
		fmt_ns(t, w, sizeof(w), r->wait_ns);
		fmt_ns(t, h, sizeof(h), r->max_hold);
		line_start(t, stamp);
		if (hosts)
			fprintf(f, "%-12s ", slub_decoder_host_name(t->sink.dec, r->host));
		fprintf(f, "%-20s %8s %8s %8s %8s %6" PRIu64 " %8" PRIu64 " %9s %9s\n", r->name, a,
			b, c, d, r->storms, r->locks, w, h);
	}
	if (n > t->rows) {
		line_start(t, stamp);
		fprintf(f, "(%zu more caches)\n", n - t->rows);
	}
	if (m && t->nthreads) {
		if (t->screen)
			fputc('\n', f);
		line_start(t, stamp);
		if (hosts)
			fprintf(f, "%-12s ", "HOST");
		fprintf(f, "%-8s %-8s %8s %8s %9s %s\n", "TID", "PID", "REDOS", "WAITS", "WAIT",
			"NAME");
		for (size_t i = 0; i < m && i < t->nthreads; i++) {
			struct proc *p = proc_of(t, thr[i]->vpid);

			fmt_ns(t, w, sizeof(w), thr[i]->wait_ns);
			line_start(t, stamp);
			if (hosts)
				fprintf(f, "%-12s ", slub_decoder_host_name(t->sink.dec,
						slub_dec_host(thr[i]->vpid)));
			fprintf(f, "%-8u %-8u %8" PRIu64 " %8" PRIu64 " %9s %s\n", thr[i]->vtid,
				slub_dec_pid(thr[i]->vpid), thr[i]->redos, thr[i]->waits, w,
				thr[i]->name[0] ? thr[i]->name : p && p->name[0] ? p->name : "?");
		}
	}
	fflush(f);
	t->tables++;
reset:
	free(rows);
	free(thr);
	for (size_t i = 0; i < t->nr; i++) {
		struct row *r = &t->r[i];

		r->allocs = r->frees = r->slow = r->redos = r->locks = r->wait_ns = 0;
		r->max_hold = r->storms = 0;
	}
	for (size_t i = 0; i < t->nt; i++)
		t->t[i].redos = t->t[i].waits = t->t[i].wait_ns = 0;
	t->events = t->discarded = 0;
}

/* ---- quitting ------------------------------------------------------------------ */

/* Whether the caller asked to quit (a byte on quit-fd, or its end),
 * waiting at most timeout_ms for it. */
static bool quit_asked(struct top *t, int timeout_ms)
{
	struct pollfd pfd = { .fd = (int)t->quit_fd, .events = POLLIN };
	char buf[64];

	if (t->quit)
		return true;
	if (t->quit_fd < 0) {
		if (timeout_ms > 0) {
			struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
		return false;
	}
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return false;
	/* a byte, or the writer gone: either way nobody watches any more */
	(void)!read((int)t->quit_fd, buf, sizeof(buf));
	t->quit = true;
	return true;
}

/* Replayed on a screen: each table stays up for its interval. */
static void pace(struct top *t)
{
	uint64_t ms = t->interval_ns / 1000000u;

	if (t->realtime && t->screen)
		quit_asked(t, ms > 60000 ? 60000 : (int)ms);
}

/* Closes the intervals before ts (an event's time, or a live source's
 * word that nothing older will come: then an idle interval is printed
 * too, so that the view moves on while the program is quiet). */
static void advance(struct top *t, uint64_t ts)
{
	uint64_t start = ts - ts % t->interval_ns;

	if (!t->started) {
		t->started = true;
		t->begin = start;
		return;
	}
	if (start <= t->begin)
		return;
	print_interval(t);
	pace(t);
	t->begin = start;
}

/* ---- events ---------------------------------------------------------------------- */

static int count(struct top *t, const struct slub_model_event *e, const char *thread_name)
{
	const struct slub_event *ev = &e->ev;
	struct row *r;
	struct thread *th;

	if (e->procname) {
		struct proc *p = proc_of(t, e->vpid);

		if (!p)
			return -1;
		snprintf(p->name, sizeof(p->name), "%s", e->procname);
	}
	if (ev->type == SLUB_EV_THREAD_FLUSH || ev->type == SLUB_EV_ERROR)
		return 0;
	r = row_of(t, e->vpid, ev->cache_id,
		   ev->type == SLUB_EV_CACHE_CREATE && ev->info ? ev->info->name : NULL);
	if (!r)
		return -1;
	switch (ev->type) {
	case SLUB_EV_ALLOC:
		r->allocs++;
		t->objects = true;
		break;
	case SLUB_EV_FREE:
		r->frees++;
		t->objects = true;
		break;
	/* the slow paths as slabinfo counts them: alloc_slowpath (new slab,
	 * refill, from partial) and free_slowpath (remote free, or a free
	 * freezing the slab) */
	case SLUB_EV_SLAB_NEW:
	case SLUB_EV_TAKE_FREELIST:
	case SLUB_EV_FREE_REMOTE:
		r->slow++;
		break;
	case SLUB_EV_FREEZE:
		if ((ev->site == SLUB_SITE_ACQUIRE_SLAB && !ev->new.freelist) ||
		    ev->site == SLUB_SITE_SLAB_FREE)
			r->slow++;
		break;
	case SLUB_EV_CMPXCHG_FAIL:
	case SLUB_EV_CPU_CMPXCHG_FAIL:
		r->redos++;
		th = thread_of(t, e->vpid, e->vtid, thread_name);
		if (!th)
			return -1;
		th->redos++;
		break;
	case SLUB_EV_LOCK_ACQUIRE:
		r->locks++;
		/* the wait of a contended acquisition, as the statistics sum it */
		if (ev->contended) {
			r->wait_ns += ev->wait_ns;
			th = thread_of(t, e->vpid, e->vtid, thread_name);
			if (!th)
				return -1;
			th->waits++;
			th->wait_ns += ev->wait_ns;
		}
		break;
	case SLUB_EV_LOCK_RELEASE:
		if (ev->hold_ns > r->max_hold)
			r->max_hold = ev->hold_ns;
		break;
	default:
		break;
	}
	return 0;
}

/* The model's applied listener: each host's statistics. */
static void on_applied(const struct slub_model_applied *a, void *arg)
{
	struct top *t = arg;
	struct slub_tstats *ts;

	if (!slub_filter_event(&t->sink.filter, a->e))
		return;
	ts = ts_of(t, slub_dec_host(a->e->vpid));
	if (ts)
		slub_tstats_applied(a, ts);
}

static int on_decoded(struct slub_sink *s, const struct slub_decoded *d)
{
	struct top *t = (struct top *)s;
	struct slub_tstats_discard g;
	struct slub_tstats *ts;

	switch (d->kind) {
	case SLUB_DEC_EVENT:
		advance(t, d->event.ts);
		if (!slub_filter_event(&s->filter, &d->event))
			break;
		t->events++;
		/* its statistics are counted in the model's order (on_applied) */
		ts = ts_of(t, slub_dec_host(d->event.vpid));
		if (!ts || slub_tstats_failed(ts) || count(t, &d->event, d->thread_name) < 0) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
				"out of memory in the interval figures");
			return -1;
		}
		break;
	case SLUB_DEC_STACK:
		ts = ts_of(t, slub_dec_host(d->stack_vpid));
		if (ts)
			slub_tstats_stack(ts, d->stack_vpid, d->stack_vtid, d->stack_of, d->stack_slab,
				  d->stack_ips, d->stack_nr);
		break;
	case SLUB_DEC_DISCARD:
		g.stream_id = d->discard.stream_id;
		g.count = d->discard.count;
		g.begin_ts = d->discard.begin_ts;
		g.end_ts = d->discard.end_ts;
		g.range_known = d->discard.range_known;
		g.foreign = d->discard.foreign;
		ts = ts_of(t, slub_decoder_stream_host(s->dec, d->discard.stream_id));
		if (ts)
			slub_tstats_discarded(ts, &g);
		if (!d->discard.foreign)
			t->discarded += d->discard.count;
		break;
	default:
		break;
	}
	return 0;
}

/* A live session quiet from the start shows its (empty) intervals too. */
static void on_tick(struct slub_sink *s, uint64_t ts)
{
	advance((struct top *)s, ts);
}

/* The input ended: storms still open close now, in the last interval. */
static void top_end(struct slub_sink *s)
{
	struct top *t = (struct top *)s;

	if (slub_filter_refuse(s, true) < 0)
		return;
	for (uint32_t i = 0; i < t->nts; i++)
		if (t->ts[i])
			slub_tstats_finish(t->ts[i]);
	if (t->started)
		print_interval(t);
}

/* ---- the component ------------------------------------------------------------------ */

static void top_destroy(struct top *t)
{
	slub_sink_fini(&t->sink);
	for (uint32_t i = 0; i < t->nts; i++)
		slub_tstats_free(t->ts[i]);
	free(t->ts);
	for (size_t i = 0; i < t->nr; i++)
		free(t->r[i].name);
	free(t->r);
	free(t->t);
	free(t->p);
	keymap_destroy(&t->cache_of);
	keymap_destroy(&t->thread_of);
	keymap_destroy(&t->proc_of);
	free(t);
}

bt_component_class_initialize_method_status
slub_top_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	      const bt_value *params, void *init_data)
{
	struct top *t = calloc(1, sizeof(*t));
	bt_component_class_initialize_method_status st;
	static const char *const formats[] = { "text", "screen", NULL };
	struct slub_model_config mcfg = { 0 };
	struct slub_model_callbacks cb = { 0 };

	(void)config;
	if (!t)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	keymap_init(&t->cache_of);
	keymap_init(&t->thread_of);
	keymap_init(&t->proc_of);

	struct slub_param p[] = {
		{ .name = "format", .type = SLUB_P_STRING, .where = &t->format, .choices = formats },
		{ .name = "interval-ns", .type = SLUB_P_UINT, .where = &t->interval_ns, .min = 1 },
		{ .name = "sort", .type = SLUB_P_STRING, .where = &t->sort_name,
		  .choices = sort_names },
		{ .name = "top", .type = SLUB_P_UINT, .where = &t->rows },
		{ .name = "threads", .type = SLUB_P_UINT, .where = &t->nthreads },
		{ .name = "counts", .type = SLUB_P_BOOL, .where = &t->counts },
		{ .name = "quit-fd", .type = SLUB_P_INT, .where = &t->quit_fd, .imin = -1,
		  .imax = INT32_MAX },
		{ .name = "realtime", .type = SLUB_P_BOOL, .where = &t->realtime },
		{ .name = "hosts", .type = SLUB_P_BOOL, .where = &t->hosts },
		{ .name = "cache", .type = SLUB_P_STRING, .where = &t->sink.filter.cache },
		{ .name = "procname", .type = SLUB_P_STRING, .where = &t->sink.filter.procname },
	};

	t->interval_ns = TOP_DEFAULT_INTERVAL_NS;
	t->rows = TOP_DEFAULT_ROWS;
	t->nthreads = TOP_DEFAULT_THREADS;
	t->quit_fd = -1;
	st = slub_sink_init(&t->sink, self, init_data);
	if (st != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK)
		goto fail;
	st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (slub_sink_params(t->sink.self, params, p, SLUB_PARAM_NR(p)) < 0)
		goto fail;
	if (slub_filter_init(&t->sink) < 0) {
		st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto fail;
	}
	t->screen = t->format && !strcmp(t->format, "screen");
	t->sort = SORT_REDO;
	if (t->sort_name) {
		unsigned i;

		for (i = 0; strcmp(t->sort_name, sort_names[i]); i++)
			;
		t->sort = (enum top_sort)i;
	}

	t->sink.decoded = on_decoded;
	t->sink.end = top_end;
	t->sink.tick = on_tick;
	cb.applied = on_applied;
	cb.arg = t;
	if (!ts_of(t, 0) || slub_sink_model(&t->sink, &mcfg, &cb, NULL) < 0) {
		st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto fail;
	}
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), t);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
fail:
	/* A component whose initialization failed is never finalized. */
	top_destroy(t);
	return st;
}

bt_component_class_sink_graph_is_configured_method_status
slub_top_graph_is_configured(bt_self_component_sink *self)
{
	struct top *t = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	return slub_sink_configured(&t->sink, self);
}

bt_component_class_sink_consume_method_status slub_top_consume(bt_self_component_sink *self)
{
	struct top *t = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	/* Asked to quit (q, a signal): the interval so far is the last. */
	if (quit_asked(t, 0)) {
		if (t->started && t->events)
			print_interval(t);
		t->started = false;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	}
	return slub_sink_consume(&t->sink);
}

void slub_top_finalize(bt_self_component_sink *self)
{
	struct top *t = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (t)
		top_destroy(t);
}
