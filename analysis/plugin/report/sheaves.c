/* SPDX-License-Identifier: MIT */
/*
 * The sheaf and barn lanes of `slubtrace report`, from the events of wire
 * format 7 (tracepoints/slub_tp.h):
 *
 *   sheaf_slot     a slot's main and spare sheaves and their objects after
 *                  any change of either: both gauges of the cpu lane;
 *   sheaf_refill,  the objects in `sheaf` after a refill or a flush: the
 *   sheaf_flush    main or spare gauge of the acting slot's lane when the
 *                  sheaf is its main or spare (a sheaf outside the slot,
 *                  refilled before it is installed or flushed from the
 *                  barn, is no gauge of a slot);
 *   barn_put,      the full and empty sheaves of the node's barn after the
 *   barn_get       move: both gauges of the barn lane.
 *
 * A gauge is kept in SHEAF_BINS time bins from the first such event, bins
 * doubling in width to stay that many; each bin keeps the least, the most
 * and the last value seen in it.  Nothing grows with the trace: a lane per
 * (process, cache, slot) and per (process, cache, node), at most
 * SHEAF_MAX_LANES of them.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <slub/slub.h>

#include "sheaves.h"
#include "../keymap.h"
#include "slub_json.h"

#define SHEAF_BINS 240
#define SHEAF_MAX_LANES 1024
#define SHEAF_FIRST_BIN_NS 100000	/* 100 us to start with */

struct gbin {
	uint32_t min, max, end;
	uint32_t seen;
};

struct gauge {
	struct gbin bin[SHEAF_BINS];
	uint32_t peak;
};

struct slane {
	uint32_t vpid, cache_id, id;	/* id: the slot (cpu lanes) or the node (barns) */
	int32_t node;
	uint64_t events;
	uint64_t main, spare;		/* cpu lanes: the slot's sheaves (0: none) */
	struct gauge g[2];		/* cpu: main, spare; barn: full, empty */
};

struct cname {
	uint32_t vpid, cache_id, flags;
	char name[48];
};

struct sheaf_lanes {
	struct keymap cpu_of, barn_of, cache_of;
	struct slane *cpus[SHEAF_MAX_LANES], *barns[SHEAF_MAX_LANES];
	uint32_t nr_cpus, nr_barns;
	uint64_t dropped;		/* events of lanes past SHEAF_MAX_LANES */
	struct cname *caches;
	uint32_t nr_caches, cap_caches;
	uint64_t start, bin_ns;
	uint32_t bins;
	uint64_t count[5];		/* sheaf_refill .. barn_get */
	uint32_t sheaves_caches;
};

struct sheaf_lanes *sheaf_lanes_new(void)
{
	struct sheaf_lanes *sl = calloc(1, sizeof(*sl));

	if (!sl)
		return NULL;
	keymap_init(&sl->cpu_of);
	keymap_init(&sl->barn_of);
	keymap_init(&sl->cache_of);
	return sl;
}

void sheaf_lanes_free(struct sheaf_lanes *sl)
{
	if (!sl)
		return;
	keymap_destroy(&sl->cpu_of);
	keymap_destroy(&sl->barn_of);
	keymap_destroy(&sl->cache_of);
	for (uint32_t i = 0; i < sl->nr_cpus; i++)
		free(sl->cpus[i]);
	for (uint32_t i = 0; i < sl->nr_barns; i++)
		free(sl->barns[i]);
	free(sl->caches);
	free(sl);
}

static void gbin_merge(struct gbin *to, const struct gbin *a, const struct gbin *b)
{
	struct gbin m = *a;

	if (b->seen) {
		if (!m.seen) {
			m = *b;
		} else {
			m.min = b->min < m.min ? b->min : m.min;
			m.max = b->max > m.max ? b->max : m.max;
			m.end = b->end;
			m.seen += b->seen;
		}
	}
	*to = m;
}

static void lanes_halve(struct slane **lanes, uint32_t nr)
{
	for (uint32_t l = 0; l < nr; l++)
		for (int k = 0; k < 2; k++) {
			struct gbin *b = lanes[l]->g[k].bin;

			for (unsigned i = 0; i < SHEAF_BINS / 2; i++)
				gbin_merge(&b[i], &b[2 * i], &b[2 * i + 1]);
			memset(&b[SHEAF_BINS / 2], 0, SHEAF_BINS / 2 * sizeof(*b));
		}
}

/* The bin of ts; bins double in width to stay SHEAF_BINS. */
static unsigned bin_of(struct sheaf_lanes *sl, uint64_t ts)
{
	uint64_t b;

	if (!sl->bin_ns) {
		sl->start = ts;
		sl->bin_ns = SHEAF_FIRST_BIN_NS;
	}
	if (ts < sl->start)
		ts = sl->start;	/* a few events out of order: the first bin */
	while ((b = (ts - sl->start) / sl->bin_ns) >= SHEAF_BINS) {
		lanes_halve(sl->cpus, sl->nr_cpus);
		lanes_halve(sl->barns, sl->nr_barns);
		sl->bin_ns *= 2;
	}
	if (b + 1 > sl->bins)
		sl->bins = (uint32_t)b + 1;
	return (unsigned)b;
}

static void gauge_set(struct gauge *g, unsigned b, uint32_t v)
{
	struct gbin *x = &g->bin[b];

	if (!x->seen || v < x->min)
		x->min = v;
	if (!x->seen || v > x->max)
		x->max = v;
	x->end = v;
	x->seen++;
	if (v > g->peak)
		g->peak = v;
}

static struct slane *lane_get(struct sheaf_lanes *sl, struct keymap *of, struct slane **lanes,
			      uint32_t *nr, const struct slub_model_event *e, uint32_t id)
{
	uint64_t k2 = (uint64_t)e->ev.cache_id << 32 | id;
	int64_t i = keymap_get(of, e->vpid, k2);
	struct slane *l;

	if (i >= 0)
		return lanes[i];
	if (*nr == SHEAF_MAX_LANES) {
		sl->dropped++;	/* its events are counted, not drawn */
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->vpid = e->vpid;
	l->cache_id = e->ev.cache_id;
	l->id = id;
	l->node = e->ev.node;
	keymap_put(of, e->vpid, k2, *nr);
	lanes[(*nr)++] = l;
	return l;
}

static int cache_create(struct sheaf_lanes *sl, const struct slub_decoded *d)
{
	uint64_t k2 = d->event.ev.cache_id;
	int64_t i = keymap_get(&sl->cache_of, d->event.vpid, k2);
	struct cname *c;

	if (i < 0) {
		if (sl->nr_caches == sl->cap_caches) {
			uint32_t cap = sl->cap_caches ? sl->cap_caches * 2 : 64;
			struct cname *n = realloc(sl->caches, cap * sizeof(*n));

			if (!n)
				return -1;
			sl->caches = n;
			sl->cap_caches = cap;
		}
		i = sl->nr_caches++;
		keymap_put(&sl->cache_of, d->event.vpid, k2, (uint32_t)i);
	}
	c = &sl->caches[i];
	c->vpid = d->event.vpid;
	c->cache_id = d->event.ev.cache_id;
	c->flags = d->info.flags;
	snprintf(c->name, sizeof(c->name), "%s", d->info.name ? d->info.name : "?");
	if (c->flags & SLUB_F_SHEAVES)
		sl->sheaves_caches++;
	return 0;
}

/* refill or flush of a sheaf of the acting slot: its gauge */
static void sheaf_moved(struct sheaf_lanes *sl, const struct slub_model_event *e)
{
	int64_t i = keymap_get(&sl->cpu_of, e->vpid, (uint64_t)e->ev.cache_id << 32 |
			       (uint32_t)e->ev.cpu);
	struct slane *l;
	unsigned b;

	if (i < 0 || !e->ev.sheaf)
		return;
	l = sl->cpus[i];
	if (e->ev.sheaf != l->main && e->ev.sheaf != l->spare)
		return;
	b = bin_of(sl, e->ts);
	l->events++;
	gauge_set(&l->g[e->ev.sheaf == l->main ? 0 : 1], b, e->ev.sheaf_size);
}

int sheaf_lanes_event(struct sheaf_lanes *sl, const struct slub_decoded *d)
{
	const struct slub_model_event *e = &d->event;
	struct slane *l;
	unsigned b;

	if (d->kind != SLUB_DEC_EVENT)
		return 0;
	switch (e->ev.type) {
	case SLUB_EV_CACHE_CREATE:
		return cache_create(sl, d);
	case SLUB_EV_SHEAF_REFILL:
	case SLUB_EV_SHEAF_FLUSH:
		sl->count[e->ev.type - SLUB_EV_SHEAF_REFILL]++;
		sheaf_moved(sl, e);
		return 0;
	case SLUB_EV_SHEAF_SLOT:
		sl->count[2]++;
		l = lane_get(sl, &sl->cpu_of, sl->cpus, &sl->nr_cpus, e, (uint32_t)e->ev.slot);
		if (!l)
			return sl->nr_cpus < SHEAF_MAX_LANES ? -1 : 0;
		b = bin_of(sl, e->ts);
		l->events++;
		l->node = e->ev.node;
		l->main = e->ev.sheaf;
		l->spare = e->ev.spare;
		gauge_set(&l->g[0], b, e->ev.sheaf_size);
		gauge_set(&l->g[1], b, e->ev.spare_size);
		return 0;
	case SLUB_EV_BARN_PUT:
	case SLUB_EV_BARN_GET:
		sl->count[e->ev.type - SLUB_EV_SHEAF_REFILL]++;
		l = lane_get(sl, &sl->barn_of, sl->barns, &sl->nr_barns, e, (uint32_t)e->ev.node);
		if (!l)
			return sl->nr_barns < SHEAF_MAX_LANES ? -1 : 0;
		b = bin_of(sl, e->ts);
		l->events++;
		gauge_set(&l->g[0], b, e->ev.barn_full);
		gauge_set(&l->g[1], b, e->ev.barn_empty);
		return 0;
	default:
		return 0;
	}
}

static const char *cache_name(const struct sheaf_lanes *sl, uint32_t vpid, uint32_t cache_id)
{
	int64_t i = keymap_get(&sl->cache_of, vpid, cache_id);

	return i >= 0 ? sl->caches[i].name : "?";
}

/* [min,max,end] per bin; a bin without events carries the last value on,
 * null before the first. */
static void write_gauge(FILE *f, const char *key, const struct gauge *g, uint32_t bins)
{
	int have = 0;
	uint32_t last = 0;

	fprintf(f, ",\"%s\":[", key);
	for (uint32_t b = 0; b < bins; b++) {
		const struct gbin *x = &g->bin[b];

		fputs(b ? "," : "", f);
		if (x->seen) {
			fprintf(f, "[%u,%u,%u]", x->min, x->max, x->end);
			last = x->end;
			have = 1;
		} else if (have) {
			fprintf(f, "[%u,%u,%u]", last, last, last);
		} else {
			fputs("null", f);
		}
	}
	fprintf(f, "],\"%s_peak\":%u", key, g->peak);
}

static int by_events(const void *a, const void *b)
{
	const struct slane *x = *(struct slane *const *)a, *y = *(struct slane *const *)b;

	if (x->events != y->events)
		return x->events < y->events ? 1 : -1;
	if (x->vpid != y->vpid)
		return x->vpid < y->vpid ? -1 : 1;
	if (x->cache_id != y->cache_id)
		return x->cache_id < y->cache_id ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The busiest max lanes, in (process, cache, slot or node) order. */
static int by_key(const void *a, const void *b)
{
	const struct slane *x = *(struct slane *const *)a, *y = *(struct slane *const *)b;

	if (x->vpid != y->vpid)
		return x->vpid < y->vpid ? -1 : 1;
	if (x->cache_id != y->cache_id)
		return x->cache_id < y->cache_id ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void write_lanes(FILE *f, const struct sheaf_lanes *sl, struct slane *const *lanes,
			uint32_t nr, unsigned max, bool cpu)
{
	struct slane **v = malloc((nr ? nr : 1) * sizeof(*v));
	uint32_t n = nr < max ? nr : max;

	if (!v) {
		n = 0;
	} else {
		memcpy(v, lanes, nr * sizeof(*v));
		qsort(v, nr, sizeof(*v), by_events);
		qsort(v, n, sizeof(*v), by_key);
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct slane *l = v[i];

		fprintf(f, "%s\n{\"vpid\":%u,\"cache\":", i ? "," : "", l->vpid);
		slub_json_put_script(f, cache_name(sl, l->vpid, l->cache_id));
		if (cpu)
			fprintf(f, ",\"cpu\":%u,\"node\":%d", l->id, l->node);
		else
			fprintf(f, ",\"node\":%u", l->id);
		fprintf(f, ",\"events\":%" PRIu64, l->events);
		write_gauge(f, cpu ? "main" : "full", &l->g[0], sl->bins);
		write_gauge(f, cpu ? "spare" : "empty", &l->g[1], sl->bins);
		fputc('}', f);
	}
	free(v);
}

void sheaf_lanes_write(FILE *f, const struct sheaf_lanes *sl, uint64_t origin, unsigned max_cpus,
		       unsigned max_barns)
{
	static const char *const names[5] = {
		"sheaf_refill", "sheaf_flush", "sheaf_slot", "barn_put", "barn_get",
	};
	uint64_t total = 0;

	/* debug caches have no sheaves in either generation */
	fprintf(f, ",\n\"generation\":\"%s\"", sl->sheaves_caches ? "sheaves" : "classic");
	for (int i = 0; i < 5; i++)
		total += sl->count[i];
	if (!total) {
		fputs(",\n\"sheaves\":null", f);
		return;
	}
	fprintf(f, ",\n\"sheaves\":{\"start_ts\":%" PRIu64 ",\"bin_ns\":%" PRIu64 ",\"bins\":%u,"
		"\"events\":{", sl->start > origin ? sl->start - origin : 0, sl->bin_ns, sl->bins);
	for (int i = 0; i < 5; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", names[i], sl->count[i]);
	fprintf(f, "},\"cpu_lanes\":%u,\"barn_lanes\":%u,\"dropped_events\":%" PRIu64 ",\"cpus\":[",
		sl->nr_cpus, sl->nr_barns, sl->dropped);
	write_lanes(f, sl, sl->cpus, sl->nr_cpus, max_cpus, true);
	fputs("],\"barns\":[", f);
	write_lanes(f, sl, sl->barns, sl->nr_barns, max_barns, false);
	fputs("]}", f);
}
