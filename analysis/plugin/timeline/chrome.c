/* SPDX-License-Identifier: MIT */
/*
 * The Trace Event Format writer of sink.slub.timeline (format=chrome).
 *
 * A slab's slice is written when it ends (a complete event needs its
 * duration), so each live slab keeps its open state: O(live slabs), as the
 * model.  Threads and processes are named once, on first sight.  Counters
 * are summed per millisecond and per process, written when the next
 * millisecond begins, with a zero after an idle stretch so that the
 * counter track falls back.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "../keymap.h"
#include "slub_json.h"

#define COUNTER_BIN_NS 1000000ull

struct open_slab {
	uint64_t slab, start;
	uint32_t vpid, track;
	uint32_t seq, inuse, objects;
	int state;		/* -1: no slice open */
	int32_t next_free;
};

struct proc {
	uint32_t vpid;
	uint64_t bin;		/* current bin start, ns; 0 = none yet */
	uint64_t fail, cpu_fail, waits, wait_ns;
	bool any;		/* a bin was written: a zero may follow */
	bool named, slabs_named;
};

struct cache_name {
	uint32_t vpid, id;
	char name[64];
};

struct slub_chrome {
	FILE *f;
	uint64_t origin;
	bool started;
	uint64_t n;		/* trace events written */
	uint64_t last_ts;
	struct keymap slabs, threads;
	struct open_slab *open;
	uint32_t nr_open, cap_open;
	int32_t free_open;
	uint32_t next_track;
	struct proc *procs;
	uint32_t nr_procs;
	struct cache_name *caches;
	uint32_t nr_caches;
};

static void jstr(FILE *f, const char *s)
{
	if (slub_json_put(f, s))
		fputs("null", f);	/* no memory: the file stays valid JSON */
}

struct slub_chrome *slub_chrome_new(FILE *f)
{
	struct slub_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->f = f;
	c->free_open = -1;
	if (keymap_init(&c->slabs) < 0 || keymap_init(&c->threads) < 0) {
		slub_chrome_free(c);
		return NULL;
	}
	return c;
}

/* Starts the document at the first event: its time is the origin. */
static void begin(struct slub_chrome *c, uint64_t ts)
{
	if (c->started)
		return;
	c->started = true;
	c->origin = ts;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", c->f);
}

/* The separator and the common fields of one trace event. */
static void ev(struct slub_chrome *c, const char *ph, const char *name, uint32_t pid,
	       uint32_t tid, uint64_t ts)
{
	uint64_t d = ts > c->origin ? ts - c->origin : 0;

	fprintf(c->f, "%s{\"ph\":\"%s\",\"name\":", c->n++ ? ",\n" : "", ph);
	jstr(c->f, name);
	fprintf(c->f, ",\"pid\":%u,\"tid\":%u,\"ts\":%" PRIu64 ".%03u", pid, tid, d / 1000,
		(unsigned)(d % 1000));
}

static void meta(struct slub_chrome *c, const char *what, uint32_t pid, uint32_t tid,
		 const char *name)
{
	fprintf(c->f, "%s{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":",
		c->n++ ? ",\n" : "", what, pid, tid);
	jstr(c->f, name);
	fputs("}}", c->f);
}

static struct proc *proc_of(struct slub_chrome *c, uint32_t vpid)
{
	struct proc *p;

	for (uint32_t i = 0; i < c->nr_procs; i++)
		if (c->procs[i].vpid == vpid)
			return &c->procs[i];
	p = realloc(c->procs, (c->nr_procs + 1) * sizeof(*p));
	if (!p)
		return NULL;
	c->procs = p;
	p = &c->procs[c->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->vpid = vpid;
	return p;
}

static void close_slice(struct slub_chrome *c, struct open_slab *s, uint64_t ts)
{
	char name[32];

	if (s->state < 0)
		return;
	snprintf(name, sizeof(name), "%s", slub_state_name((unsigned)s->state));
	ev(c, "X", name, SLUB_CHROME_SLAB_PID | s->vpid, s->track, s->start);
	fprintf(c->f, ",\"dur\":%" PRIu64 ".%03u,\"cat\":\"state\",\"args\":{\"seq\":%u,"
		"\"inuse\":%u,\"objects\":%u}}",
		(ts - s->start) / 1000, (unsigned)((ts - s->start) % 1000), s->seq, s->inuse,
		s->objects);
	s->state = -1;
}

static struct open_slab *slab_of(struct slub_chrome *c, const struct slub_model_record *r,
				 const char *cache)
{
	int64_t i = keymap_get(&c->slabs, r->vpid, r->slab);
	struct open_slab *s;
	struct proc *p;
	char name[128];

	if (i >= 0)
		return &c->open[i];
	p = proc_of(c, r->vpid);
	if (!p)
		return NULL;
	if (!p->slabs_named) {
		snprintf(name, sizeof(name), "slabs of pid %u", r->vpid);
		meta(c, "process_name", SLUB_CHROME_SLAB_PID | r->vpid, 0, name);
		p->slabs_named = true;
	}
	if (c->free_open >= 0) {
		i = c->free_open;
		c->free_open = c->open[i].next_free;
	} else {
		if (c->nr_open == c->cap_open) {
			uint32_t cap = c->cap_open ? c->cap_open * 2 : 256;
			struct open_slab *n = realloc(c->open, cap * sizeof(*n));

			if (!n)
				return NULL;
			c->open = n;
			c->cap_open = cap;
		}
		i = c->nr_open++;
	}
	if (keymap_put(&c->slabs, r->vpid, r->slab, (uint32_t)i) < 0)
		return NULL;
	s = &c->open[i];
	memset(s, 0, sizeof(*s));
	s->slab = r->slab;
	s->vpid = r->vpid;
	s->state = -1;
	s->next_free = -1;
	s->track = ++c->next_track;
	snprintf(name, sizeof(name), "slab 0x%" PRIx64 " %s", r->slab, cache ? cache : "?");
	meta(c, "thread_name", SLUB_CHROME_SLAB_PID | r->vpid, s->track, name);
	return s;
}

/* An incarnation ends: its track is not used again. */
static void slab_forget(struct slub_chrome *c, uint32_t vpid, uint64_t slab, uint64_t ts)
{
	int64_t i = keymap_get(&c->slabs, vpid, slab);

	if (i < 0)
		return;
	close_slice(c, &c->open[i], ts);
	keymap_del(&c->slabs, vpid, slab);
	c->open[i].next_free = c->free_open;
	c->free_open = (int32_t)i;
}

int slub_chrome_transition(struct slub_chrome *c, const struct slub_model_record *r,
			   const char *cache, bool thread)
{
	char site[64];

	begin(c, r->ts);
	if (r->ts > c->last_ts)
		c->last_ts = r->ts;
	if (r->slab && r->type == SLUB_EV_SLAB_NEW)
		slab_forget(c, r->vpid, r->slab, r->ts);
	if (r->slab) {
		struct open_slab *s = slab_of(c, r, cache);

		if (!s)
			return -1;
		if ((int)r->after != s->state) {
			close_slice(c, s, r->ts);
			if (r->after != SLUB_STATE_DISCARDED && r->after != SLUB_STATE_UNKNOWN) {
				s->state = r->after;
				s->start = r->ts;
				s->seq = r->seq;
				s->inuse = r->inuse;
				s->objects = r->objects;
			}
		}
		/* The next slab at this address is another incarnation. */
		if (r->type == SLUB_EV_SLAB_DISCARD)
			slab_forget(c, r->vpid, r->slab, r->ts);
	}
	if (!thread)
		return 0;
	if (keymap_get(&c->threads, r->vpid, r->vtid) < 0) {
		struct proc *p = proc_of(c, r->vpid);
		char name[64];

		if (!p || keymap_put(&c->threads, r->vpid, r->vtid, 0) < 0)
			return -1;
		if (!p->named) {
			snprintf(name, sizeof(name), "pid %u", r->vpid);
			meta(c, "process_name", r->vpid, 0, name);
			p->named = true;
		}
		snprintf(name, sizeof(name), "thread %u", r->vtid);
		meta(c, "thread_name", r->vpid, r->vtid, name);
	}
	ev(c, "i", slub_event_name(r->type), r->vpid, r->vtid, r->ts);
	if (r->site)
		snprintf(site, sizeof(site), "%s", slub_site_name(r->site));
	else
		snprintf(site, sizeof(site), "-");
	fprintf(c->f, ",\"s\":\"t\",\"cat\":\"transition\",\"args\":{\"slab\":\"0x%" PRIx64
		"\",\"cache\":", r->slab);
	jstr(c->f, cache ? cache : "?");
	fprintf(c->f, ",\"site\":\"%s\",\"before\":\"%s\",\"after\":\"%s\",\"cpu\":%d,"
		"\"seq\":%u,\"inuse\":%u,\"objects\":%u}}",
		site, slub_state_name(r->before), slub_state_name(r->after), r->cpu, r->seq,
		r->inuse, r->objects);
	return 0;
}

static void counter_flush(struct slub_chrome *c, struct proc *p)
{
	if (!p->bin)
		return;
	ev(c, "C", "cmpxchg failures", p->vpid, 0, p->bin);
	fprintf(c->f, ",\"args\":{\"slab word\":%" PRIu64 ",\"cpu chain\":%" PRIu64 "}}", p->fail,
		p->cpu_fail);
	ev(c, "C", "lock wait", p->vpid, 0, p->bin);
	fprintf(c->f, ",\"args\":{\"contended\":%" PRIu64 ",\"wait_us\":%" PRIu64 ".%03u}}",
		p->waits, p->wait_ns / 1000, (unsigned)(p->wait_ns % 1000));
	p->any = p->fail || p->cpu_fail || p->waits;
	p->fail = p->cpu_fail = p->waits = p->wait_ns = 0;
}

/* Moves p's counters to the bin of ts, writing the finished one. */
static void counter_bin(struct slub_chrome *c, struct proc *p, uint64_t ts)
{
	uint64_t bin = ts - ts % COUNTER_BIN_NS;

	if (bin == p->bin)
		return;
	if (p->bin && bin < p->bin)
		return; /* a late event counts in the current bin */
	counter_flush(c, p);
	if (p->any && p->bin && bin > p->bin + COUNTER_BIN_NS) {
		/* Idle in between: back to zero right after the last bin. */
		p->bin += COUNTER_BIN_NS;
		counter_flush(c, p);
	}
	p->bin = bin;
}

int slub_chrome_event(struct slub_chrome *c, const struct slub_model_event *e)
{
	const struct slub_event *v = &e->ev;
	struct proc *p;

	if (v->type == SLUB_EV_CACHE_CREATE && v->info && v->info->name) {
		struct cache_name *n = realloc(c->caches, (c->nr_caches + 1) * sizeof(*n));

		if (!n)
			return -1;
		c->caches = n;
		n = &c->caches[c->nr_caches++];
		n->vpid = e->vpid;
		n->id = v->cache_id;
		snprintf(n->name, sizeof(n->name), "%s", v->info->name);
		return 0;
	}
	if (v->type != SLUB_EV_CMPXCHG_FAIL && v->type != SLUB_EV_CPU_CMPXCHG_FAIL &&
	    !(v->type == SLUB_EV_LOCK_ACQUIRE && v->contended))
		return 0;
	begin(c, e->ts);
	p = proc_of(c, e->vpid);
	if (!p)
		return -1;
	counter_bin(c, p, e->ts);
	if (v->type == SLUB_EV_CMPXCHG_FAIL) {
		p->fail++;
	} else if (v->type == SLUB_EV_CPU_CMPXCHG_FAIL) {
		p->cpu_fail++;
	} else {
		p->waits++;
		p->wait_ns += v->wait_ns;
	}
	return 0;
}

const char *slub_chrome_cache(const struct slub_chrome *c, uint32_t vpid, uint32_t cache_id)
{
	/* The latest: an exec may reuse a cache id. */
	for (uint32_t i = c->nr_caches; i-- > 0;)
		if (c->caches[i].vpid == vpid && c->caches[i].id == cache_id)
			return c->caches[i].name;
	return NULL;
}

void slub_chrome_end(struct slub_chrome *c)
{
	begin(c, 0);
	for (uint32_t i = 0; i < c->nr_open; i++)
		if (keymap_get(&c->slabs, c->open[i].vpid, c->open[i].slab) == (int64_t)i)
			close_slice(c, &c->open[i], c->last_ts > c->open[i].start ? c->last_ts
										 : c->open[i].start);
	for (uint32_t i = 0; i < c->nr_procs; i++) {
		struct proc *p = &c->procs[i];

		counter_flush(c, p);
		if (p->any) {
			p->bin += COUNTER_BIN_NS;
			counter_flush(c, p);
		}
	}
	fprintf(c->f, "\n],\"otherData\":{\"generator\":\"slubtrace timeline --format chrome\","
		"\"origin_ns\":%" PRIu64 "}}\n", c->origin);
}

void slub_chrome_free(struct slub_chrome *c)
{
	if (!c)
		return;
	keymap_destroy(&c->slabs);
	keymap_destroy(&c->threads);
	free(c->open);
	free(c->procs);
	free(c->caches);
	free(c);
}
