/* SPDX-License-Identifier: MIT */
/*
 * The JSON report (schema "slubtrace-stats/1", described in README.md) and
 * the reader of its "rates" section, which `diff` compares (with jansson).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"
#include "slub_json.h"

#define SCHEMA "slubtrace-stats/1"

/* ---- writing ---- */

/* A name; without memory for its escaped form, null keeps the document
 * valid. */
static void jstr(FILE *f, const char *s)
{
	if (slub_json_put(f, s))
		fputs("null", f);
}

static void jarr(FILE *f, const uint64_t *a, unsigned n)
{
	fputc('[', f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", a[i]);
	fputc(']', f);
}

static void jdouble(FILE *f, double v)
{
	fprintf(f, "%.6g", v);
}

static void json_cache(FILE *f, const struct slub_tstats_cache *v)
{
	fprintf(f, "{\"name\":");
	jstr(f, v->name);
	fprintf(f, ",\"processes\":%u,\"object_size\":%u,\"size\":%u,\"align\":%u,\"order\":%u,"
		   "\"objects_per_slab\":%u,\"flags\":%u,\"items\":{",
		v->processes, v->object_size, v->size, v->align, v->order, v->objects, v->flags);
	for (unsigned i = 0; i < SLUB_TS_NR_ITEMS; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", slub_tstat_item_name(i));
		if (v->known & (1ull << i))
			fprintf(f, "%" PRIu64, v->item[i]);
		else
			fprintf(f, "null");
	}
	fputc('}', f);
	if (v->sheaves) {
		/* the sheaves generation's items (null: not known from events) */
		fprintf(f, ",\"sheaf_items\":{");
		for (unsigned i = 0; i < SLUB_TS_NR_SHEAF_ITEMS; i++) {
			fprintf(f, "%s\"%s\":", i ? "," : "", slub_tstat_sheaf_item_name(i));
			if (v->sheaf_known & (1ull << i))
				fprintf(f, "%" PRIu64, v->sheaf_item[i]);
			else
				fprintf(f, "null");
		}
		fputc('}', f);
	}
	fprintf(f, ",\"census\":{\"slabs\":%" PRIu64 ",\"partial\":%" PRIu64 ",\"full\":%" PRIu64
		   ",\"cpu\":%" PRIu64 ",\"objects_inuse\":%" PRIu64 "}",
		v->slabs, v->partial_slabs, v->full_slabs, v->cpu_slabs, v->objects_inuse);
	fprintf(f, ",\"sites\":[");
	bool first = true;
	for (unsigned i = 1; i < SLUB_SITE_NR; i++) {
		uint64_t fails = v->fail_site[i] + v->cpu_fail_site[i];
		if (!fails && !v->ops_site[i])
			continue;
		fprintf(f, "%s{\"site\":", first ? "" : ",");
		jstr(f, tstats_site(i));
		fprintf(f, ",\"unlocked\":%" PRIu64 ",\"locked\":%" PRIu64 ",\"kept_lock\":%" PRIu64
			   ",\"cpu_chain\":%" PRIu64 ",\"operations\":%" PRIu64 ",\"redos_per_op\":",
			v->fail_site[i] - v->fail_site_locked[i], v->fail_site_locked[i],
			v->fail_site_kept[i], v->cpu_fail_site[i], v->ops_site[i]);
		jdouble(f, v->ops_site[i] ? (double)fails / (double)v->ops_site[i] : 0.0);
		fputc('}', f);
		first = false;
	}
	fprintf(f, "],\"lock\":{\"wait_ns\":%" PRIu64 ",\"hold_ns\":%" PRIu64
		   ",\"wait_short_ns\":%" PRIu64 ",\"hold_short_ns\":%" PRIu64 ",\"long_waits\":%" PRIu64
		   ",\"long_holds\":%" PRIu64 ",\"wait_hist\":",
		v->lock_wait_ns, v->lock_hold_ns, v->lock_wait_short_ns, v->lock_hold_short_ns,
		v->lock_long_waits, v->lock_long_holds);
	jarr(f, v->lock_wait_hist, SLUB_TS_HIST_BUCKETS);
	if (v->lock_saturated)
		fprintf(f, ",\"saturated\":%" PRIu64, v->lock_saturated);
	fprintf(f, ",\"hold_hist\":");
	jarr(f, v->lock_hold_hist, SLUB_TS_HIST_BUCKETS);
	fprintf(f, ",\"wait_p99_ns\":%" PRIu64 ",\"wait_max_ns\":%" PRIu64 ",\"hold_p99_ns\":%" PRIu64
		   ",\"hold_max_ns\":%" PRIu64,
		slub_tstats_tail_p99(&v->lock_wait_tail), v->lock_wait_tail.max,
		slub_tstats_tail_p99(&v->lock_hold_tail), v->lock_hold_tail.max);
	if (v->slabinfo_walks)
		fprintf(f, ",\"slabinfo_walks\":%" PRIu64 ",\"slabs_walked\":%" PRIu64
			   ",\"walked_max\":%u,\"walked_max_listed\":%u",
			v->slabinfo_walks, v->slabs_walked, v->walked_max, v->walked_max_listed);
	if (v->walk_holds)
		fprintf(f, ",\"walk_holds\":%" PRIu64 ",\"walk_hold_slabs_max\":%" PRIu64
			   ",\"walk_hold_max_ns\":%" PRIu64,
			v->walk_holds, v->walk_hold_slabs_max, v->walk_hold_max_ns);
	fprintf(f, "},\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64 ",\"word_updates\":%" PRIu64
		   ",\"deactivations\":%" PRIu64 ",\"drain_updates\":%" PRIu64 ",\"storms\":%" PRIu64
		   ",\"occupancy\":",
		v->allocs, v->frees, v->word_updates, v->deactivations, v->drain_updates, v->storms);
	occ_json(f, &v->occ);
	fputc('}', f);
}

static const char *const tail_names[SLUB_TAIL_NR] = { "lock_wait", "lock_hold" };

/* A tail histogram: its non-empty buckets as [smallest value, count]. */
static void json_tail(FILE *f, const struct slub_tstats_tail *t)
{
	bool first = true;

	fprintf(f, "{\"count\":%" PRIu64 ",\"max\":%" PRIu64 ",\"buckets\":[", t->count, t->max);
	for (unsigned i = 0; i < SLUB_TS_TAIL_BUCKETS; i++) {
		if (!t->bucket[i])
			continue;
		fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", first ? "" : ",", slub_tstats_tail_lower(i),
			t->bucket[i]);
		first = false;
	}
	fprintf(f, "]}");
}

static void json_hold(FILE *f, const struct thold *h)
{
	fprintf(f, "{\"hold_ns\":%" PRIu64 ",\"ts\":%" PRIu64 ",\"lock_seq\":%" PRIu64
		   ",\"vpid\":%u,\"vtid\":%u,\"lock_id\":%u,\"cache\":",
		h->hold_ns, h->ts, h->lock_seq, h->vpid, h->vtid, h->lock_id);
	jstr(f, h->cache);
	fprintf(f, ",\"did\":");
	jstr(f, h->did);
	if (h->walked || h->listed)
		fprintf(f, ",\"walked\":%" PRIu64 ",\"listed\":%" PRIu64, h->walked, h->listed);
	if (h->nr_stalled) {
		fprintf(f, ",\"stalled\":[");
		for (uint32_t i = 0; i < h->nr_stalled; i++)
			fprintf(f, "%s{\"vtid\":%u,\"wait_ns\":%" PRIu64 "}", i ? "," : "",
				h->stalled_vtid[i], h->stalled_ns[i]);
		fprintf(f, "],\"more_stalled\":%u", h->more_stalled);
	}
	fputc('}', f);
}

static void json_party(FILE *f, const struct slub_tstats_party *p, uint32_t n, bool winners)
{
	fputc('[', f);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"vtid\":%u,\"count\":%u,\"site\":", i ? "," : "", p[i].vtid, p[i].count);
		jstr(f, tstats_site(p[i].site));
		if (winners) {
			fprintf(f, ",\"event\":");
			jstr(f, tstats_event(p[i].type));
		}
		fputc('}', f);
	}
	fputc(']', f);
}

static void json_storm(FILE *f, const struct slub_tstats_storm *s)
{
	fprintf(f, "{\"kind\":\"%s\",\"vpid\":%u,\"cache\":", slub_tstats_storm_kind_name(s->kind),
		s->vpid);
	jstr(f, s->cache);
	if (s->kind == SLUB_STORM_CHAIN)
		fprintf(f, ",\"cpu_slot\":%u", (unsigned)(s->object & 0xffffffffu));
	else if (s->kind == SLUB_STORM_LOCK)
		fprintf(f, ",\"lock_id\":%u", (unsigned)s->object);
	else
		fprintf(f, ",\"slab\":\"0x%" PRIx64 "\"", s->object);
	fprintf(f, ",\"site\":");
	jstr(f, tstats_site(s->site));
	fprintf(f, ",\"begin_ts\":%" PRIu64 ",\"end_ts\":%" PRIu64 ",\"attempts\":%" PRIu64
		   ",\"max_attempt\":%u,\"wait_ns\":%" PRIu64 ",\"losers\":",
		s->begin_ts, s->end_ts, s->attempts, s->max_attempt, s->wait_ns);
	json_party(f, s->losers, s->nr_losers, false);
	fprintf(f, ",\"losses_by_unlisted\":%u,\"winners\":", s->more_losers);
	json_party(f, s->winners, s->nr_winners, true);
	fprintf(f, ",\"wins_by_unlisted\":%u,\"untraced\":%" PRIu64 ",\"unknown\":%" PRIu64,
		s->more_winners, s->untraced, s->unknown);
	if (s->stack_nr) {
		fprintf(f, ",\"stack_vtid\":%u,\"stack\":[", s->stack_vtid);
		for (uint32_t k = 0; k < s->stack_nr; k++)
			fprintf(f, "%s\"0x%" PRIx64 "\"", k ? "," : "", s->stack[k]);
		fputc(']', f);
	}
	fputc('}', f);
}

static int hold_cmp(const void *a, const void *b)
{
	const struct thold *x = a, *y = b;

	return x->hold_ns < y->hold_ns ? 1 : x->hold_ns > y->hold_ns ? -1 : 0;
}

static int tslab_cmp(const void *a, const void *b)
{
	const struct ttop_slab *x = a, *y = b;

	return x->failures < y->failures ? 1 : x->failures > y->failures ? -1 : 0;
}

void slub_tstats_print_json(const struct slub_tstats *st, FILE *f)
{
	const struct slub_tstats_totals *t = &st->tot;
	const struct slub_tstats_config *c = &st->cfg;

	fprintf(f, "{\"schema\":\"" SCHEMA "\",\"events\":%" PRIu64 ",\"first_ts\":%" PRIu64
		   ",\"last_ts\":%" PRIu64 ",\"discarded_notices\":%" PRIu64
		   ",\"discarded_events\":%" PRIu64 ",\"foreign_discarded_events\":%" PRIu64
		   ",\"lower_bounds\":%s,\"have_objects\":%s",
		t->events, t->first_ts, t->last_ts, t->discarded_notices, t->discarded_events,
		t->foreign_discarded,
		t->lower_bounds ? "true" : "false", t->have_objects ? "true" : "false");
	fprintf(f, ",\"config\":{\"run_attempts\":%u,\"window_failures\":%u,\"window_ns\":%" PRIu64
		   ",\"lookback\":%u,\"top_n\":%u,\"max_storms\":%u}",
		c->run_attempts, c->window_failures, c->window_ns, c->lookback, c->top_n,
		c->max_storms);

	fprintf(f, ",\n\"caches\":[");
	for (unsigned i = 0; i < st->nr_views; i++) {
		fprintf(f, "%s\n", i ? "," : "");
		json_cache(f, &st->views[i]);
	}
	fprintf(f, "],\n\"locks\":[");
	bool first = true;
	for (const struct tlock *l = st->lock_list; l; l = l->next_all) {
		fprintf(f, "%s\n{\"cache\":", first ? "" : ",");
		jstr(f, l->cache && l->cache->name ? l->cache->name : "?");
		fprintf(f, ",\"vpid\":%u,\"lock_id\":%u,\"node\":%u,\"acquisitions\":%" PRIu64
			   ",\"contended\":%" PRIu64 ",\"wait_ns\":%" PRIu64 ",\"hold_ns\":%" PRIu64
			   ",\"max_wait_ns\":%" PRIu64 ",\"wait_hist\":",
			l->vpid, l->lock_id, l->node, l->acq, l->contended, l->wait_ns, l->hold_ns,
			l->max_wait_ns);
		jarr(f, l->wait_hist, SLUB_TS_HIST_BUCKETS);
		fprintf(f, ",\"hold_hist\":");
		jarr(f, l->hold_hist, SLUB_TS_HIST_BUCKETS);
		struct thold h[TLOCK_TOP];
		memcpy(h, l->top, l->nr_top * sizeof(h[0]));
		qsort(h, l->nr_top, sizeof(h[0]), hold_cmp);
		fprintf(f, ",\"longest_holds\":[");
		for (unsigned k = 0; k < l->nr_top; k++) {
			if (k)
				fputc(',', f);
			json_hold(f, &h[k]);
		}
		fprintf(f, "]}");
		first = false;
	}
	fprintf(f, "],\n\"longest_holds\":[");
	{
		struct thold *h = calloc(st->nr_top_holds ? st->nr_top_holds : 1, sizeof(*h));
		if (h) {
			memcpy(h, st->top_holds, st->nr_top_holds * sizeof(*h));
			qsort(h, st->nr_top_holds, sizeof(*h), hold_cmp);
			for (unsigned k = 0; k < st->nr_top_holds; k++) {
				if (k)
					fputc(',', f);
				json_hold(f, &h[k]);
			}
			free(h);
		}
	}
	fprintf(f, "],\n\"storms\":{\"total\":%" PRIu64 ",\"run\":%" PRIu64 ",\"slab\":%" PRIu64
		   ",\"cpu_chain\":%" PRIu64 ",\"list_lock\":%" PRIu64 ",\"failures\":%" PRIu64
		   ",\"cpu_failures\":%" PRIu64 ",\"attributed\":%" PRIu64 ",\"untraced\":%" PRIu64
		   ",\"unknown\":%" PRIu64 ",\"largest\":[",
		t->storms, t->storms_run, t->storms_slab, t->storms_chain, t->storms_lock, t->failures,
		t->cpu_failures, t->attributed, t->untraced_winner, t->unknown_winner);
	for (unsigned i = 0; i < st->nr_kept; i++) {
		fprintf(f, "%s\n", i ? "," : "");
		json_storm(f, slub_tstats_storm_at(st, i));
	}
	fprintf(f, "]},\n\"top\":{\"slabs\":[");
	{
		struct ttop_slab *ts = calloc(st->nr_top_slabs ? st->nr_top_slabs : 1, sizeof(*ts));
		if (ts) {
			memcpy(ts, st->top_slabs, st->nr_top_slabs * sizeof(*ts));
			qsort(ts, st->nr_top_slabs, sizeof(*ts), tslab_cmp);
			for (unsigned i = 0; i < st->nr_top_slabs; i++) {
				fprintf(f, "%s{\"slab\":\"0x%" PRIx64 "\",\"vpid\":%u,\"cache\":",
					i ? "," : "", ts[i].slab, ts[i].vpid);
				jstr(f, ts[i].cache);
				fprintf(f, ",\"failures\":%" PRIu64 ",\"site\":", ts[i].failures);
				jstr(f, tstats_site(ts[i].site));
				fprintf(f, ",\"first_ts\":%" PRIu64 ",\"last_ts\":%" PRIu64 "}",
					ts[i].first_ts, ts[i].last_ts);
			}
			free(ts);
		}
	}
	fprintf(f, "],\"thread_pairs\":[");
	{
		const struct tpair *pairs[256];
		unsigned np = tstats_top_pairs(st, pairs, st->cfg.top_n < 256 ? st->cfg.top_n : 256);
		for (unsigned i = 0; i < np; i++)
			fprintf(f, "%s{\"vpid\":%u,\"loser\":%u,\"winner\":%u,\"count\":%" PRIu64
				   ",\"max_overcount\":%" PRIu64 "}",
				i ? "," : "", (unsigned)pairs[i]->h.k1, (unsigned)(pairs[i]->h.k2 >> 32),
				(unsigned)pairs[i]->h.k2, pairs[i]->count, pairs[i]->err);
	}
	fprintf(f, "]},\n\"series\":{\"start_ts\":%" PRIu64 ",\"bin_ns\":%" PRIu64 ",\"failures\":",
		st->series_t0, st->bin_ns);
	jarr(f, st->bin_fail, st->nr_bins);
	fprintf(f, ",\"cpu_failures\":");
	jarr(f, st->bin_cpu_fail, st->nr_bins);
	fprintf(f, ",\"lock_waits\":");
	jarr(f, st->bin_waits, st->nr_bins);
	fprintf(f, ",\"lock_wait_ns\":");
	jarr(f, st->bin_wait_ns, st->nr_bins);
	fprintf(f, "},\n\"rates\":");

	struct slub_tstats_result r;
	if (slub_tstats_result_get(st, &r)) {
		fprintf(f, "null}\n");
		return;
	}
	fprintf(f, "{\"alloc_basis\":\"%s\",\"lower_bounds\":%s,\"events\":%" PRIu64,
		r.alloc_basis, r.lower_bounds ? "true" : "false", r.events);
	if (r.saturated)
		fprintf(f, ",\"saturated\":%" PRIu64, r.saturated);
	fprintf(f, ",\"scopes\":[");
	for (unsigned s = 0; s < r.nr_scopes; s++) {
		fprintf(f, "%s\n{\"name\":", s ? "," : "");
		jstr(f, r.scope[s].name);
		fprintf(f, ",\"figures\":{");
		for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
			const struct slub_tstats_figure *g = &r.scope[s].fig[i];
			fprintf(f, "%s\"%s\":{\"value\":", i ? "," : "", slub_tstats_rate_name(i));
			jdouble(f, g->value);
			fprintf(f, ",\"num\":");
			jdouble(f, g->num);
			fprintf(f, ",\"den\":");
			jdouble(f, g->den);
			fputc('}', f);
		}
		fprintf(f, "},\"tails\":{");
		for (unsigned t = 0; t < SLUB_TAIL_NR; t++) {
			fprintf(f, "%s\"%s\":", t ? "," : "", tail_names[t]);
			json_tail(f, &r.scope[s].tail[t]);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "]}}\n");
	slub_tstats_result_free(&r);
}

/* ---- reading the rates section, with jansson ---- */

/* A member of an object; NULL when o is not an object or has no such key. */
static const json_t *jget(const json_t *o, const char *key)
{
	return json_is_object(o) ? json_object_get(o, key) : NULL;
}

/* A number (true is 1; anything else 0): every number is read as a double,
 * so that counts past 2^63 load as they were written. */
static double jnum(const json_t *v)
{
	return json_is_true(v) ? 1.0 : json_number_value(v);
}

static bool is_count(const json_t *v)
{
	double x = json_number_value(v);

	return json_is_number(v) && x >= 0 && x < 0x1p64 && x == (double)(uint64_t)x;
}

/* A tail histogram of a rates scope; 0, or -1 with the reason in err. */
static int load_tail(const json_t *o, struct slub_tstats_tail *t, char *err, size_t errlen)
{
	const json_t *count = jget(o, "count"), *max = jget(o, "max"),
		     *buckets = jget(o, "buckets"), *b;
	uint64_t sum = 0, top = 0;
	size_t k;

	memset(t, 0, sizeof(*t));
	if (!is_count(count) || !is_count(max) || !json_is_array(buckets)) {
		snprintf(err, errlen, "count, max and buckets expected");
		return -1;
	}
	json_array_foreach(buckets, k, b) {
		const json_t *lo = json_array_get(b, 0), *n = json_array_get(b, 1);

		if (!is_count(lo) || !is_count(n) || json_array_size(b) != 2) {
			snprintf(err, errlen, "a bucket is not [smallest value, count]");
			return -1;
		}
		uint64_t low = (uint64_t)jnum(lo), nr = (uint64_t)jnum(n);
		unsigned i = slub_tstats_tail_bucket(low);

		if (slub_tstats_tail_lower(i) != low) {
			snprintf(err, errlen, "%.0f does not begin a bucket", jnum(lo));
			return -1;
		}
		t->bucket[i] += nr;
		sum += nr;
		if (nr)
			top = low;
	}
	t->count = (uint64_t)jnum(count);
	t->max = (uint64_t)jnum(max);
	if (sum != t->count || (t->count && slub_tstats_tail_bucket(t->max) !=
					     slub_tstats_tail_bucket(top))) {
		snprintf(err, errlen, "buckets hold %" PRIu64 " values up to %" PRIu64
			 ", count %" PRIu64 " max %" PRIu64, sum, top, t->count, t->max);
		return -1;
	}
	return 0;
}

/* One scope's figures and tails into sc; 0, or -1 with the error in err. */
static int load_scope(const char *path, const json_t *c, struct slub_tstats_scope *sc,
		      char *err, size_t errlen)
{
	const json_t *name = jget(c, "name"), *figs = jget(c, "figures");

	if (!json_is_string(name) || !figs) {
		snprintf(err, errlen, "%s: a rates scope without name or figures", path);
		return -1;
	}
	snprintf(sc->name, sizeof(sc->name), "%s", json_string_value(name));
	for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
		const json_t *g = jget(figs, slub_tstats_rate_name(i));
		const json_t *num = jget(g, "num"), *den = jget(g, "den"), *val = jget(g, "value");

		if (!num || !den || !val)
			continue; /* a figure this report does not have: n/a */
		double n = jnum(num), d = jnum(den), v = jnum(val);
		/* counts and their ratio: negative or too large is a damaged
		 * report, which diff must not judge (NaN and infinities are
		 * not JSON: the parser refuses them) */
		const char *field = !(n >= 0 && n <= 0x1p64)   ? "num"
				    : !(d >= 0 && d <= 0x1p64) ? "den"
				    : !(v >= 0 && v <= 1e300)   ? "value"
								: NULL;
		if (field) {
			snprintf(err, errlen, "%s: scope \"%s\" figure %s: %s is %g, not a count or rate",
				 path, sc->name, slub_tstats_rate_name(i), field,
				 field[0] == 'n' ? n : field[0] == 'd' ? d : v);
			return -1;
		}
		sc->fig[i].num = n;
		sc->fig[i].den = d;
		sc->fig[i].value = v;
		sc->fig[i].runs = 1;
		sc->fig[i].sq = d > 0 ? n * n / d : 0;
		sc->fig[i].lo = v;
	}
	/* The tail figures come from the histograms; a report written before
	 * them has none: unknown. */
	const json_t *tails = jget(c, "tails");
	for (unsigned t = 0; t < SLUB_TAIL_NR; t++) {
		const json_t *o = jget(tails, tail_names[t]);
		char why[160];

		if (!o)
			continue;
		if (load_tail(o, &sc->tail[t], why, sizeof(why))) {
			snprintf(err, errlen, "%s: scope \"%s\" tail %s: %s", path, sc->name,
				 tail_names[t], why);
			return -1;
		}
		sc->tails_known |= 1u << t;
	}
	tstats_tails_fill(sc);
	return 0;
}

int slub_tstats_result_load(const char *path, struct slub_tstats_result *r, char *err,
			    size_t errlen)
{
	json_error_t je;
	json_t *root;
	FILE *f = fopen(path, "r");
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	root = json_loadf(f, JSON_DECODE_INT_AS_REAL, &je);
	fclose(f);
	if (!root) {
		snprintf(err, errlen, "%s: not JSON (%s at byte %d)", path, je.text, je.position);
		return -1;
	}
	const json_t *schema = jget(root, "schema");
	const json_t *rates = jget(root, "rates");
	const json_t *scopes = jget(rates, "scopes");
	if (!json_is_string(schema) || strcmp(json_string_value(schema), SCHEMA)) {
		snprintf(err, errlen, "%s: not a slubtrace stats report (schema " SCHEMA ")", path);
		goto out;
	}
	if (!json_is_array(scopes)) {
		snprintf(err, errlen, "%s: no rates in the report", path);
		goto out;
	}
	const json_t *basis = jget(rates, "alloc_basis");
	const json_t *events = jget(rates, "events");
	const json_t *sat = jget(rates, "saturated");
	snprintf(r->alloc_basis, sizeof(r->alloc_basis), "%s",
		 json_is_string(basis) ? json_string_value(basis) : "?");
	r->lower_bounds = jnum(jget(rates, "lower_bounds")) != 0;
	if (events && !(jnum(events) >= 0 && jnum(events) <= 0x1p64)) {
		/* a count: never negative, never more than 2^64 */
		snprintf(err, errlen, "%s: rates.events is %g, not a count", path, jnum(events));
		goto out;
	}
	r->events = (uint64_t)jnum(events);
	if (sat && !(jnum(sat) >= 0 && jnum(sat) <= 0x1p64)) {
		snprintf(err, errlen, "%s: rates.saturated is %g, not a count", path, jnum(sat));
		goto out;
	}
	r->saturated = (uint64_t)jnum(sat);
	size_t n = json_array_size(scopes), k;
	const json_t *c;
	r->scope = calloc(n ? n : 1, sizeof(*r->scope));
	if (!r->scope) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	json_array_foreach(scopes, k, c) {
		if (load_scope(path, c, &r->scope[r->nr_scopes], err, errlen)) {
			slub_tstats_result_free(r);
			goto out;
		}
		r->nr_scopes++;
	}
	if (!r->nr_scopes || strcmp(r->scope[0].name, "overall")) {
		snprintf(err, errlen, "%s: rates do not start with \"overall\"", path);
		slub_tstats_result_free(r);
		goto out;
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}
