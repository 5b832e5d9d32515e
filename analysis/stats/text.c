/* SPDX-License-Identifier: MIT */
/*
 * The text report: the `slabinfo -r` page of each cache in the layout of
 * the allocator's own report (src/stats.c), then redos per site, list_lock
 * figures, storms, top-N views and rates.  Items the events cannot
 * determine (fast paths without object events) print as "-".
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "slabinfo_page.h"

/* The lines a trace adds below the page's list_lock summary. */
static void lock_notes(FILE *f, const void *arg)
{
	const struct slub_tstats_cache *v = arg;

	if (v->lock_saturated)
		fprintf(f, "  WARNING: %" PRIu64 " addition%s would pass 2^64 ns: the sums stay at "
			   "2^64 - 1 (impossible lock times in the trace)\n",
			v->lock_saturated, v->lock_saturated == 1 ? "" : "s");
	if (v->slabinfo_walks)
		fprintf(f, "  slabinfo walks %" PRIu64 ", %" PRIu64 " slabs walked under the lock, "
			   "at most %u in one (of %u listed)\n",
			v->slabinfo_walks, v->slabs_walked, v->walked_max, v->walked_max_listed);
	if (v->walk_holds)
		fprintf(f, "  %" PRIu64 " list_lock hold%s walked: at most %" PRIu64
			   " slabs in one hold, the longest held %" PRIu64 " ns\n",
			v->walk_holds, v->walk_holds == 1 ? "" : "s", v->walk_hold_slabs_max,
			v->walk_hold_max_ns);
	if (v->lock_long_waits || v->lock_long_holds)
		fprintf(f, "  (%" PRIu64 " waits and %" PRIu64 " holds of 1 ms or more: a preempted holder, "
			   "or a long critical section)\n",
			v->lock_long_waits, v->lock_long_holds);
	if (v->lock_wait_tail.count || v->lock_hold_tail.count)
		fprintf(f, "  wait p99 %" PRIu64 " ns, max %" PRIu64 " ns; hold p99 %" PRIu64
			   " ns, max %" PRIu64 " ns (p99 up to 6.25%% over)\n",
			slub_tstats_tail_p99(&v->lock_wait_tail), v->lock_wait_tail.max,
			slub_tstats_tail_p99(&v->lock_hold_tail), v->lock_hold_tail.max);
}

/* The cache's page, as the allocator prints its own (slabinfo_page.h); the
 * items are indexed alike (asserted in core.c). */
static void print_page(FILE *f, const struct slub_tstats_cache *v)
{
	bool fast = v->known & (1ull << SLUB_TS_ALLOC_FASTPATH);
	struct slub_page p = {
		.name = v->name,
		.objects_note = fast ? "" : " (from slab words: cpu freelists count as used)",
		.order = v->order,
		.processes = v->processes,
		.object_size = v->object_size,
		.size = v->size,
		.align = v->align,
		.slab_bytes = 4096ull << v->order,
		.objects = v->objects,
		.flags = v->flags,	/* cache_create carries the SLUB_F_* flags */
		.tracing = true,
		.slabs = v->slabs,
		.partial_slabs = v->partial_slabs,
		.full_slabs = v->full_slabs,
		.cpu_slabs = v->cpu_slabs,
		.objects_inuse = v->objects_inuse,
		.item = v->item,
		.known = v->known,
		.fail_site = v->fail_site,
		.site_name = tstats_site,
		.lock_wait_ns = v->lock_wait_ns,
		.lock_hold_ns = v->lock_hold_ns,
		.wait_hist = v->lock_wait_hist,
		.hold_hist = v->lock_hold_hist,
		.lock_notes = lock_notes,
		.arg = v,
	};

	slub_page_print(f, &p);
}

/* The sheaves generation's items, laid out as the allocator prints them
 * (src/stats.c); "-" where the events do not tell. */
static void sheaf_item(FILE *f, const struct slub_tstats_cache *v, unsigned i)
{
	if (v->sheaf_known & (1ull << i))
		fprintf(f, "%8" PRIu64, v->sheaf_item[i]);
	else
		fprintf(f, "%8s", "-");
}

static void print_sheaves(FILE *f, const struct slub_tstats_cache *v)
{
	fprintf(f, "\nSheaves\n");
	fprintf(f, "--------------------------------------------------\n");
	fprintf(f, "Sheaf refill ");
	sheaf_item(f, v, SLUB_TS_SHEAF_REFILL);
	fprintf(f, " objects   flush ");
	sheaf_item(f, v, SLUB_TS_SHEAF_FLUSH);
	fprintf(f, " objects\nSheaf alloc  ");
	sheaf_item(f, v, SLUB_TS_SHEAF_ALLOC);
	fprintf(f, "           free  ");
	sheaf_item(f, v, SLUB_TS_SHEAF_FREE);
	fprintf(f, "\nBarn get     ");
	sheaf_item(f, v, SLUB_TS_BARN_GET);
	fprintf(f, " fail ");
	sheaf_item(f, v, SLUB_TS_BARN_GET_FAIL);
	fprintf(f, "   put ");
	sheaf_item(f, v, SLUB_TS_BARN_PUT);
	fprintf(f, " fail ");
	sheaf_item(f, v, SLUB_TS_BARN_PUT_FAIL);
	fprintf(f, "\n\n");
}

static void print_sites(FILE *f, const struct slub_tstats_cache *v)
{
	bool any = false;

	for (unsigned i = 1; i < SLUB_SITE_NR; i++)
		any |= v->fail_site[i] || v->cpu_fail_site[i];
	if (!any)
		return;
	fprintf(f, "\nRedos by site (%s)\n", v->name);
	fprintf(f, "  %-24s %10s %10s %10s %10s %12s %10s\n", "site", "unlocked", "locked",
		"kept lock", "cpu chain", "operations", "redos/op");
	for (unsigned i = 1; i < SLUB_SITE_NR; i++) {
		uint64_t fails = v->fail_site[i] + v->cpu_fail_site[i];
		if (!fails && !v->ops_site[i])
			continue;
		fprintf(f, "  %-24s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64
			   " %10.4f\n",
			tstats_site(i), v->fail_site[i] - v->fail_site_locked[i],
			v->fail_site_locked[i], v->fail_site_kept[i], v->cpu_fail_site[i],
			v->ops_site[i],
			v->ops_site[i] ? (double)fails / (double)v->ops_site[i] : 0.0);
	}
}

static void print_hold(FILE *f, const struct thold *h)
{
	fprintf(f, "    %10" PRIu64 " ns  %s lock %u (node %u)  vpid %u vtid %u  at %" PRIu64
		   "  lock_seq %" PRIu64 "\n      did: %s\n",
		h->hold_ns, h->cache, h->lock_id, h->lock_id % 64, h->vpid, h->vtid, h->ts,
		h->lock_seq, h->did);
	if (h->nr_stalled) {
		fprintf(f, "      stalled:");
		for (uint32_t i = 0; i < h->nr_stalled; i++)
			fprintf(f, " vtid %u (waited %" PRIu64 " ns)", h->stalled_vtid[i],
				h->stalled_ns[i]);
		if (h->more_stalled)
			fprintf(f, " + %u more waits", h->more_stalled);
		fputc('\n', f);
	}
}

static int hold_cmp(const void *a, const void *b)
{
	const struct thold *x = a, *y = b;

	return x->hold_ns < y->hold_ns ? 1 : x->hold_ns > y->hold_ns ? -1 : 0;
}

static void print_locks(FILE *f, const struct slub_tstats *st, const char *cache)
{
	fprintf(f, "\nlist_locks\n");
	fprintf(f, "  %-20s %5s %6s %10s %10s %12s %12s %12s\n", "cache", "node", "vpid", "acquired",
		"contended", "wait ns/acq", "hold ns/acq", "max wait ns");
	for (const struct tlock *l = st->lock_list; l; l = l->next_all) {
		const char *name = l->cache && l->cache->name ? l->cache->name : "?";
		if (cache && strcmp(cache, name))
			continue;
		fprintf(f, "  %-20s %5u %6u %10" PRIu64 " %10" PRIu64 " %12.1f %12.1f %12" PRIu64 "\n",
			name, l->node, l->vpid, l->acq, l->contended,
			l->acq ? (double)l->wait_ns / (double)l->acq : 0.0,
			l->acq ? (double)l->hold_ns / (double)l->acq : 0.0, l->max_wait_ns);
	}
	struct thold holds[64];
	unsigned n = 0;
	if (cache) {
		for (const struct tlock *l = st->lock_list; l; l = l->next_all)
			for (unsigned i = 0; i < l->nr_top && n < 64; i++)
				if (!strcmp(l->top[i].cache, cache))
					holds[n++] = l->top[i];
	} else {
		for (unsigned i = 0; i < st->nr_top_holds && n < 64; i++)
			holds[n++] = st->top_holds[i];
	}
	qsort(holds, n, sizeof(holds[0]), hold_cmp);
	if (n)
		fprintf(f, "  longest holds:\n");
	for (unsigned i = 0; i < n && i < st->cfg.top_n; i++)
		print_hold(f, &holds[i]);
}

static void print_storm(FILE *f, const struct slub_tstats *st, const struct slub_tstats_storm *s,
			unsigned i, uint64_t t0)
{
	fprintf(f, "  #%u %s storm: %s", i + 1, slub_tstats_storm_kind_name(s->kind), s->cache);
	if (s->kind == SLUB_STORM_SLAB || s->kind == SLUB_STORM_RUN)
		fprintf(f, " slab 0x%" PRIx64, s->object);
	if (s->kind == SLUB_STORM_CHAIN)
		fprintf(f, " cpu slot %u", (unsigned)(s->object & 0xffffffffu));
	if (s->kind == SLUB_STORM_LOCK)
		fprintf(f, " lock %u (node %u)", (unsigned)s->object, (unsigned)(s->object % 64));
	fprintf(f, " vpid %u\n", s->vpid);
	fprintf(f, "     %" PRIu64 " %s at +%.6f s for %.3f ms (ts %" PRIu64 "..%" PRIu64 ")",
		s->attempts, s->kind == SLUB_STORM_LOCK ? "contended acquisitions" : "failed attempts",
		(double)(s->begin_ts - t0) / 1e9, (double)(s->end_ts - s->begin_ts) / 1e6, s->begin_ts,
		s->end_ts);
	if (s->kind != SLUB_STORM_LOCK)
		fprintf(f, " at %s, highest attempt %u", tstats_site(s->site), s->max_attempt);
	else
		fprintf(f, ", waited %" PRIu64 " ns", s->wait_ns);
	fprintf(f, "\n     losers:");
	for (uint32_t k = 0; k < s->nr_losers; k++)
		fprintf(f, " vtid %u (%u)", s->losers[k].vtid, s->losers[k].count);
	if (s->more_losers)
		fprintf(f, " + %u by others", s->more_losers);
	fprintf(f, "\n     winners:");
	for (uint32_t k = 0; k < s->nr_winners; k++)
		fprintf(f, " vtid %u %s@%s (%u)", s->winners[k].vtid,
			tstats_event(s->winners[k].type),
			s->kind == SLUB_STORM_LOCK ? "holder" : tstats_site(s->winners[k].site),
			s->winners[k].count);
	if (s->more_winners)
		fprintf(f, " + %u by others", s->more_winners);
	if (s->untraced)
		fprintf(f, " + %" PRIu64 " by untraced writes (no seq change)", s->untraced);
	if (s->unknown)
		fprintf(f, " + %" PRIu64 " not found", s->unknown);
	fprintf(f, "\n");
	if (s->stack_nr)
		fprintf(f, "     stack of vtid %u at a failed CAS:\n", s->stack_vtid);
	for (uint32_t k = 0; k < s->stack_nr; k++) {
		char buf[512];
		const char *name = st->symbolize ?
			st->symbolize(s->vpid, s->stack[k], buf, sizeof(buf), st->symbolize_arg) : NULL;
		fprintf(f, "       #%-2u 0x%" PRIx64 "%s%s\n", k, s->stack[k], name ? " " : "",
			name ? name : "");
	}
}

static void print_storms(FILE *f, const struct slub_tstats *st, const char *cache)
{
	const struct slub_tstats_totals *t = &st->tot;

	fprintf(f, "\nRetry storms: %" PRIu64 " (runs %" PRIu64 ", slab windows %" PRIu64
		   ", cpu chain windows %" PRIu64 ", list_lock windows %" PRIu64 ")\n",
		t->storms, t->storms_run, t->storms_slab, t->storms_chain, t->storms_lock);
	fprintf(f, "  thresholds: run >= %u consecutive failed attempts; window >= %u failures in %.3f ms\n",
		st->cfg.run_attempts, st->cfg.window_failures, (double)st->cfg.window_ns / 1e6);
	fprintf(f, "  failures: %" PRIu64 " slab word, %" PRIu64 " cpu chain; winners found for %" PRIu64
		   ", untraced writes %" PRIu64 ", not found %" PRIu64 "\n",
		t->failures, t->cpu_failures, t->attributed, t->untraced_winner, t->unknown_winner);
	unsigned shown = 0;
	for (unsigned i = 0; i < st->nr_kept; i++) {
		const struct slub_tstats_storm *s = slub_tstats_storm_at(st, i);
		if (cache && strcmp(cache, s->cache))
			continue;
		print_storm(f, st, s, shown++, t->first_ts);
	}
	if (t->storms > st->nr_kept)
		fprintf(f, "  (the %u largest of each kind shown)\n", st->cfg.max_storms);
}

static int pair_cmp(const void *a, const void *b)
{
	const struct tpair *x = *(struct tpair *const *)a, *y = *(struct tpair *const *)b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int tslab_cmp(const void *a, const void *b)
{
	const struct ttop_slab *x = a, *y = b;

	return x->failures < y->failures ? 1 : x->failures > y->failures ? -1 : 0;
}

struct site_row {
	const char *cache;
	unsigned site;
	uint64_t fails;
};

static int site_cmp(const void *a, const void *b)
{
	const struct site_row *x = a, *y = b;

	return x->fails < y->fails ? 1 : x->fails > y->fails ? -1 : 0;
}

/* Sorted copies of the top-N tables, for text and JSON. */
unsigned tstats_top_pairs(const struct slub_tstats *st, const struct tpair **out, unsigned cap)
{
	const struct tpair **tmp = (const struct tpair **)st->pair_arr;
	unsigned n = st->nr_pairs;

	qsort(tmp, n, sizeof(*tmp), pair_cmp);
	for (unsigned i = 0; i < n && i < cap; i++)
		out[i] = tmp[i];
	return n < cap ? n : cap;
}

static void print_top(FILE *f, const struct slub_tstats *st)
{
	unsigned n = st->cfg.top_n;
	struct ttop_slab slabs[64];
	unsigned ns = st->nr_top_slabs < 64 ? st->nr_top_slabs : 64;

	memcpy(slabs, st->top_slabs, ns * sizeof(slabs[0]));
	qsort(slabs, ns, sizeof(slabs[0]), tslab_cmp);
	fprintf(f, "\nTop slabs by failed CAS\n");
	for (unsigned i = 0; i < ns && i < n; i++)
		fprintf(f, "  %8" PRIu64 "  %-20s slab 0x%" PRIx64 " vpid %u  mostly at %s, %.3f ms\n",
			slabs[i].failures, slabs[i].cache, slabs[i].slab, slabs[i].vpid,
			tstats_site(slabs[i].site),
			(double)(slabs[i].last_ts - slabs[i].first_ts) / 1e6);

	struct site_row rows[256];
	unsigned nr = 0;
	for (unsigned c = 0; c < st->nr_views; c++)
		for (unsigned s = 1; s < SLUB_SITE_NR && nr < 256; s++) {
			uint64_t x = st->views[c].fail_site[s] + st->views[c].cpu_fail_site[s];
			if (x)
				rows[nr++] = (struct site_row){ st->views[c].name, s, x };
		}
	qsort(rows, nr, sizeof(rows[0]), site_cmp);
	fprintf(f, "\nTop sites by failed CAS\n");
	for (unsigned i = 0; i < nr && i < n; i++)
		fprintf(f, "  %8" PRIu64 "  %-20s %s\n", rows[i].fails, rows[i].cache,
			tstats_site(rows[i].site));

	const struct tpair *pairs[64];
	unsigned np = tstats_top_pairs(st, pairs, n < 64 ? n : 64);
	fprintf(f, "\nTop thread pairs (loser <- winner)%s\n",
		st->pair_evicted ? " (approximate: more pairs than tracked)" : "");
	for (unsigned i = 0; i < np; i++)
		fprintf(f, "  %8" PRIu64 "  vpid %u: vtid %u <- vtid %u%s\n", pairs[i]->count,
			(unsigned)pairs[i]->h.k1, (unsigned)(pairs[i]->h.k2 >> 32),
			(unsigned)pairs[i]->h.k2,
			(pairs[i]->h.k2 >> 32) == (pairs[i]->h.k2 & 0xffffffffu) ? " (itself)" : "");
}

static void print_rates(FILE *f, const struct slub_tstats *st, const char *cache)
{
	struct slub_tstats_result r;

	if (slub_tstats_result_get(st, &r))
		return;
	fprintf(f, "\nRates (allocations counted from %s)\n", r.alloc_basis);
	for (unsigned s = 0; s < r.nr_scopes; s++) {
		if (cache && strcmp(cache, r.scope[s].name))
			continue;
		fprintf(f, "  %s\n", r.scope[s].name);
		for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
			const struct slub_tstats_figure *g = &r.scope[s].fig[i];
			if (g->den > 0 && slub_tstats_rate_kind(i) != SLUB_RATE_KIND_RATIO)
				fprintf(f, "    %-38s %14.0f  (of %.0f)\n", slub_tstats_rate_name(i),
					g->value, g->den);
			else if (g->den > 0)
				fprintf(f, "    %-38s %14.4f  (%.0f / %.6g)\n", slub_tstats_rate_name(i),
					g->value, g->num, g->den);
			else
				fprintf(f, "    %-38s %14s\n", slub_tstats_rate_name(i), "-");
		}
	}
	slub_tstats_result_free(&r);
}

void slub_tstats_print_text(const struct slub_tstats *st, FILE *f, unsigned what,
			    const char *cache)
{
	const struct slub_tstats_totals *t = &st->tot;

	/* the totals are the whole input's: with a cache, say which is shown */
	fprintf(f, "slubtrace stats: %" PRIu64 " events over %.3f s, %u caches%s%s%s\n",
		t->events, (double)(t->last_ts - t->first_ts) / 1e9, st->nr_views,
		cache ? " (cache " : "", cache ? cache : "", cache ? " shown)" : "");
	if (t->lower_bounds)
		fprintf(f, "WARNING: %" PRIu64 " events discarded in %" PRIu64
			   " gaps: every figure below is a lower bound\n",
			t->discarded_events, t->discarded_notices);
	if (t->foreign_discarded)
		fprintf(f, "(%" PRIu64 " of LTTng-UST's own events discarded, no slub event among "
			   "them)\n", t->foreign_discarded);
	if (!t->have_objects)
		fprintf(f, "(no alloc/free events recorded: fast paths unknown, allocations counted "
			   "on the slow path)\n");
	for (unsigned i = 0; i < st->nr_views; i++) {
		const struct slub_tstats_cache *v = &st->views[i];
		if (cache && strcmp(cache, v->name))
			continue;
		/* As the allocator's report: only caches that saw use. */
		if (!cache && !v->slabs && !v->allocs && !v->item[SLUB_TS_ALLOC_SLAB] &&
		    !v->item[SLUB_TS_FREE_SLOWPATH] && !v->item[SLUB_TS_LOCK_ACQUIRE])
			continue;
		if (what & SLUB_TSTATS_SHOW_SLABINFO) {
			print_page(f, v);
			if (v->sheaves)
				print_sheaves(f, v);
			occ_text(f, &v->occ, v->objects);
		}
		if (what & SLUB_TSTATS_SHOW_SITES)
			print_sites(f, v);
	}
	if (what & SLUB_TSTATS_SHOW_LOCKS)
		print_locks(f, st, cache);
	if (what & SLUB_TSTATS_SHOW_STORMS)
		print_storms(f, st, cache);
	if (what & SLUB_TSTATS_SHOW_TOP)
		print_top(f, st);
	if (what & SLUB_TSTATS_SHOW_RATES)
		print_rates(f, st, cache);
}
