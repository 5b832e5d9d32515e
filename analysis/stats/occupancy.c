/* SPDX-License-Identifier: MIT */
/*
 * Occupancy and locality: figures that mean the same for every allocator
 * generation, to compare classic cpu (partial) slabs with sheaves on one
 * workload.
 *
 *  - slabs and partial slabs over time: the count now, its peak and its
 *    integral over time (the time-weighted mean).  A slab is partial while
 *    its word has objects both on and off the slab freelist
 *    (0 < inuse < objects): the node partial slabs of both generations and
 *    the classic cpu partial slabs; a classic cpu slab has taken its whole
 *    freelist, and objects in cpu freelists or sheaves are off the slab
 *    freelist, so they count as in use here;
 *  - free objects on the freelists of partial slabs over time
 *    (fragmentation: free objects per partial slab);
 *  - with object events: the objects allocated in each slab (an object is
 *    placed in its slab by the pages slab_new announced), the object slots
 *    of live slabs left unused, and the distinct slabs a thread's
 *    allocations in a cache touch in each window of
 *    SLUB_TSTATS_LOCALITY_WINDOW allocations (a locality and TLB proxy:
 *    draining one slab at a time touches few);
 *  - slabs and pages made and discarded.
 *
 * Its own tables (slabs, their 4 KiB pages, the windows) are kept apart
 * from the storms' slab table; a slab's entries go with its slab_discard.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define OCC_PAGE_SHIFT 12               /* slab_new's pages: 4 KiB */
#define OCC_MAX_PAGES 1024              /* more is not a slab of ours: no page map */

struct oslab {
	struct hnode h;                 /* (vpid, slab) */
	struct tcache *cache;
	uint32_t seq, inuse, objects, pages;
	uint32_t live;                  /* objects allocated (object events) */
	uint8_t word_valid, partial;
};

struct opage {
	struct hnode h;                 /* (vpid, page address) */
	struct oslab *slab;
};

struct owin {
	struct hnode h;                 /* (vpid, vtid << 32 | cache_id) */
	GHashTable *seen;               /* slab addresses of this window */
	uint32_t n;                     /* allocations in this window */
};

static bool is_partial(const struct oslab *s)
{
	return s->word_valid && s->inuse > 0 && s->inuse < s->objects;
}

/* Integrates the counts of o up to ts (never backwards). */
static void advance(struct tocc *o, uint64_t ts)
{
	if (!o->started) {
		o->started = 1;
		o->last_ts = ts;
		return;
	}
	if (ts <= o->last_ts)
		return;
	double dt = (double)(ts - o->last_ts);

	o->o.slab_ns += (double)o->slabs * dt;
	o->o.partial_ns += (double)o->partial * dt;
	o->o.partial_free_ns += (double)o->partial_free * dt;
	o->o.capacity_ns += (double)o->capacity * dt;
	o->o.live_ns += (double)o->live * dt;
	o->last_ts = ts;
}

static void add(uint64_t *x, int64_t d)
{
	*x = d < 0 && (uint64_t)-d > *x ? 0 : *x + (uint64_t)d;
}

/* A change of the counts, in the cache and overall. */
struct delta {
	int64_t slabs, partial, partial_free, capacity, live;
};

static void change_one(struct tocc *o, uint64_t ts, const struct delta *d)
{
	advance(o, ts);
	add(&o->slabs, d->slabs);
	add(&o->partial, d->partial);
	add(&o->partial_free, d->partial_free);
	add(&o->capacity, d->capacity);
	add(&o->live, d->live);
	if (o->slabs > o->o.slabs_peak)
		o->o.slabs_peak = o->slabs;
	if (o->partial > o->o.partial_peak)
		o->o.partial_peak = o->partial;
}

static void change(struct slub_tstats *st, struct tcache *c, uint64_t ts, const struct delta *d)
{
	change_one(&c->occ, ts, d);
	change_one(&st->occ_all, ts, d);
}

/* The slab's part of the counts: +1 entering, -1 leaving. */
static void slab_part(const struct oslab *s, int sign, struct delta *d)
{
	d->slabs += sign;
	d->capacity += sign * (int64_t)s->objects;
	d->live += sign * (int64_t)s->live;
	if (s->partial) {
		d->partial += sign;
		d->partial_free += sign * (int64_t)(s->objects - s->inuse);
	}
}

static void pages_map(struct slub_tstats *st, struct oslab *s, bool on)
{
	if (!s->pages || s->pages > OCC_MAX_PAGES)
		return;
	for (uint32_t i = 0; i < s->pages; i++) {
		uint64_t page = s->h.k2 + ((uint64_t)i << OCC_PAGE_SHIFT);
		struct opage *p = (struct opage *)htab_find(&st->occ_pages, s->h.k1, page);

		if (!on) {
			if (p && p->slab == s) {
				htab_remove(&st->occ_pages, &p->h);
				free(p);
			}
			continue;
		}
		if (!p) {
			p = calloc(1, sizeof(*p));
			if (!p)
				return;
			p->h.k1 = s->h.k1;
			p->h.k2 = page;
			htab_insert(&st->occ_pages, &p->h);
		}
		p->slab = s;
	}
}

static void slab_gone(struct slub_tstats *st, struct oslab *s, uint64_t ts)
{
	struct delta d = { 0 };

	if (s->word_valid) {
		slab_part(s, -1, &d);
		change(st, s->cache, ts, &d);
	}
	pages_map(st, s, false);
	htab_remove(&st->occ_slabs, &s->h);
	free(s);
}

static struct oslab *slab_new(struct slub_tstats *st, const struct slub_model_event *e,
			      struct tcache *c, uint32_t pages)
{
	struct oslab *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->h.k1 = e->vpid;
	s->h.k2 = e->ev.slab;
	s->cache = c;
	s->pages = pages;
	htab_insert(&st->occ_slabs, &s->h);
	pages_map(st, s, true);
	return s;
}

/* A word update of s (later seq wins, as core.c's). */
static void word(struct slub_tstats *st, struct oslab *s, const struct slub_model_event *e)
{
	const struct slub_word *w = &e->ev.new;
	struct delta d = { 0 };

	if (s->word_valid && (int32_t)(w->seq - s->seq) < 0)
		return;
	if (s->word_valid)
		slab_part(s, -1, &d);
	s->seq = w->seq;
	s->inuse = w->inuse;
	s->objects = w->objects;
	s->word_valid = 1;
	s->partial = is_partial(s);
	slab_part(s, +1, &d);
	change(st, s->cache, e->ts, &d);
}

static void count_new(struct slub_tstats *st, struct tcache *c, uint32_t pages, bool made)
{
	struct tocc *o[2] = { &c->occ, &st->occ_all };

	for (int i = 0; i < 2; i++) {
		if (made) {
			o[i]->o.slabs_new++;
			o[i]->o.pages_new += pages;
		} else {
			o[i]->o.slabs_freed++;
			o[i]->o.pages_freed += pages;
		}
	}
}

static struct oslab *slab_at_object(struct slub_tstats *st, const struct slub_model_event *e)
{
	uint64_t page = e->ev.object & ~((1ull << OCC_PAGE_SHIFT) - 1);
	struct opage *p = (struct opage *)htab_find(&st->occ_pages, e->vpid, page);

	if (!p) {
		st->occ_all.o.unmapped++;
		return NULL;
	}
	return p->slab;
}

/* The window of this thread in this cache: the distinct slabs its
 * allocations touched. */
static int touch(struct slub_tstats *st, const struct slub_model_event *e, struct tcache *c,
		 const struct oslab *s)
{
	uint64_t k2 = (uint64_t)e->vtid << 32 | e->ev.cache_id;
	struct owin *w = (struct owin *)htab_find(&st->occ_windows, e->vpid, k2);

	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w)
			return -1;
		w->h.k1 = e->vpid;
		w->h.k2 = k2;
		w->seen = g_hash_table_new(g_direct_hash, g_direct_equal);
		htab_insert(&st->occ_windows, &w->h);
	}
	g_hash_table_add(w->seen, (gpointer)(uintptr_t)s->h.k2);
	if (++w->n < SLUB_TSTATS_LOCALITY_WINDOW)
		return 0;
	uint64_t distinct = g_hash_table_size(w->seen);
	c->occ.o.touched += distinct;
	c->occ.o.touched_allocs += w->n;
	st->occ_all.o.touched += distinct;
	st->occ_all.o.touched_allocs += w->n;
	g_hash_table_remove_all(w->seen);
	w->n = 0;
	return 0;
}

static int object_event(struct slub_tstats *st, const struct slub_model_event *e,
			struct tcache *c)
{
	struct oslab *s = slab_at_object(st, e);
	struct delta d = { 0 };

	if (!s) {
		c->occ.o.unmapped++;
		return 0;
	}
	if (e->ev.type == SLUB_EV_ALLOC) {
		s->live++;
		d.live = 1;
		change(st, s->cache, e->ts, &d);
		return touch(st, e, s->cache, s);
	}
	if (s->live) {          /* else allocated before the trace */
		s->live--;
		d.live = -1;
		change(st, s->cache, e->ts, &d);
	}
	return 0;
}

int occ_event(struct slub_tstats *st, const struct slub_model_event *e, struct tcache *c)
{
	const struct slub_event *ev = &e->ev;
	unsigned type = ev->type;
	struct oslab *s;

	if (type == SLUB_EV_ALLOC || type == SLUB_EV_FREE)
		return object_event(st, e, c);
	bool update = type == SLUB_EV_SLAB_NEW ||
		      (type >= SLUB_EV_FREEZE && type <= SLUB_EV_DRAIN_FREELIST);
	if (!ev->slab || (!update && type != SLUB_EV_SLAB_DISCARD))
		return 0;
	s = (struct oslab *)htab_find(&st->occ_slabs, e->vpid, ev->slab);
	/* the trace's slab events carry no pages: the cache's order says */
	uint32_t pages = ev->pages ? ev->pages : s && s->pages ? s->pages
		       : c->order < 16 ? 1u << c->order : 0;
	if (type == SLUB_EV_SLAB_DISCARD) {
		count_new(st, c, pages, false);
		if (s)
			slab_gone(st, s, e->ts);
		return 0;
	}
	if (type == SLUB_EV_SLAB_NEW) {
		if (s)          /* its discard was lost */
			slab_gone(st, s, e->ts);
		count_new(st, c, pages, true);
		s = slab_new(st, e, c, pages);
	} else if (!s) {
		/* made before the trace: live from here, its pages unknown */
		s = slab_new(st, e, c, 0);
	}
	if (!s)
		return -1;
	word(st, s, e);
	return 0;
}

static void finish_one(struct tocc *o, const struct slub_tstats_totals *t)
{
	advance(o, t->last_ts);
	o->o.span_ns = t->last_ts - t->first_ts;
	o->o.slabs_end = o->slabs;
	o->o.partial_end = o->partial;
}

void occ_finish(struct slub_tstats *st)
{
	for (struct tcache *c = st->cache_list; c; c = c->next_all)
		finish_one(&c->occ, &st->tot);
	finish_one(&st->occ_all, &st->tot);
}

void occ_view_add(struct slub_tstats_occupancy *v, const struct tcache *c)
{
	const struct slub_tstats_occupancy *o = &c->occ.o;

	v->slabs_new += o->slabs_new;
	v->slabs_freed += o->slabs_freed;
	v->pages_new += o->pages_new;
	v->pages_freed += o->pages_freed;
	v->slabs_peak += o->slabs_peak;
	v->partial_peak += o->partial_peak;
	v->slabs_end += o->slabs_end;
	v->partial_end += o->partial_end;
	v->slab_ns += o->slab_ns;
	v->partial_ns += o->partial_ns;
	v->partial_free_ns += o->partial_free_ns;
	v->capacity_ns += o->capacity_ns;
	v->live_ns += o->live_ns;
	v->span_ns = o->span_ns;
	v->touched += o->touched;
	v->touched_allocs += o->touched_allocs;
	v->unmapped += o->unmapped;
}

void slub_tstats_get_occupancy(const struct slub_tstats *st, struct slub_tstats_occupancy *o)
{
	*o = st->occ_all.o;
}

static void free_window(struct hnode *n, void *arg)
{
	(void)arg;
	g_hash_table_destroy(((struct owin *)n)->seen);
	free(n);
}

static void free_plain(struct hnode *n, void *arg)
{
	(void)arg;
	free(n);
}

void occ_free(struct slub_tstats *st)
{
	htab_destroy(&st->occ_windows, free_window, NULL);
	htab_destroy(&st->occ_pages, free_plain, NULL);
	htab_destroy(&st->occ_slabs, free_plain, NULL);
}

/* ---- reports ---- */

static double per(double num, double den, double scale)
{
	return den > 0 ? num / den * scale : 0;
}

void occ_json(FILE *f, const struct slub_tstats_occupancy *o)
{
	double span = (double)o->span_ns;

	fprintf(f, "{\"slabs_new\":%" PRIu64 ",\"slabs_freed\":%" PRIu64 ",\"pages_new\":%" PRIu64
		   ",\"pages_freed\":%" PRIu64 ",\"slabs_peak\":%" PRIu64 ",\"partial_peak\":%" PRIu64
		   ",\"slabs_end\":%" PRIu64 ",\"partial_end\":%" PRIu64,
		o->slabs_new, o->slabs_freed, o->pages_new, o->pages_freed, o->slabs_peak,
		o->partial_peak, o->slabs_end, o->partial_end);
	fprintf(f, ",\"slabs_mean\":%.6g,\"partial_mean\":%.6g,\"free_per_partial\":%.6g"
		   ",\"unused_pct\":%.6g,\"span_ns\":%" PRIu64 ",\"touched\":%" PRIu64
		   ",\"touched_allocs\":%" PRIu64 ",\"unmapped\":%" PRIu64 "}",
		per(o->slab_ns, span, 1), per(o->partial_ns, span, 1),
		per(o->partial_free_ns, o->partial_ns, 1),
		per(o->capacity_ns - o->live_ns, o->capacity_ns, 100), o->span_ns, o->touched,
		o->touched_allocs, o->unmapped);
}

void occ_text(FILE *f, const struct slub_tstats_occupancy *o, uint32_t objects)
{
	double span = (double)o->span_ns;

	fprintf(f, "Occupancy (%u objects a slab)\n", objects);
	fprintf(f, "  slabs          peak %8" PRIu64 "  mean %10.1f  end %8" PRIu64
		   "  made %" PRIu64 " (%" PRIu64 " pages), discarded %" PRIu64 " (%" PRIu64
		   " pages)\n",
		o->slabs_peak, per(o->slab_ns, span, 1), o->slabs_end, o->slabs_new, o->pages_new,
		o->slabs_freed, o->pages_freed);
	fprintf(f, "  partial slabs  peak %8" PRIu64 "  mean %10.1f  end %8" PRIu64
		   "  free objects a partial slab %.1f\n",
		o->partial_peak, per(o->partial_ns, span, 1), o->partial_end,
		per(o->partial_free_ns, o->partial_ns, 1));
	if (o->capacity_ns > 0 && o->live_ns > 0)
		fprintf(f, "  object slots unused %.1f%% (time-weighted, of live slabs)\n",
			per(o->capacity_ns - o->live_ns, o->capacity_ns, 100));
	if (o->touched_allocs)
		fprintf(f, "  slabs touched per %u allocations of a thread %.1f (%" PRIu64
			   " windows)\n", SLUB_TSTATS_LOCALITY_WINDOW,
			per((double)o->touched, (double)o->touched_allocs, SLUB_TSTATS_LOCALITY_WINDOW),
			o->touched_allocs / SLUB_TSTATS_LOCALITY_WINDOW);
	if (o->unmapped)
		fprintf(f, "  %" PRIu64 " object events in slabs made before the trace (not "
			   "counted)\n", o->unmapped);
}
