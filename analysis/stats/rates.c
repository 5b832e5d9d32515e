/* SPDX-License-Identifier: MIT */
/*
 * Rates normalised per operation, and `diff`: two results compared figure
 * by figure against thresholds.
 *
 * Thresholds.  Figures fixed by the code path for a given workload
 * (cpu_redos_per_drain, word_updates_per_deactivate) have tight ones.
 * Figures that depend on how threads interleave moved between recordings of
 * the same hackbench run on a 2-core machine shared with other jobs: lock
 * acquisitions per allocation by 25%, redos and slab churn up to 3x (redos
 * per slow-path allocation 4x), contention and storms up to 6x (storms
 * come in clusters: 0 to 17 per second between runs, whence a floor of 50
 * per second), lock wait per acquisition up to 10x.  Their defaults are set above that (+50%, +300%, +500%, +1000%,
 * with floors): on such a machine
 * one recording against another catches only gross changes (race-window's
 * 100x); tighten them with -t on a quiet machine.
 *
 * Wall-clock figures (lock wait and hold per acquisition) count every wait
 * and hold.  They used to leave out those of a millisecond or more, as a
 * holder preempted for a time slice (which a kernel spinlock holder never
 * is) dominates the mean and moves it several-fold between two runs of the
 * same program on a loaded machine; but a long hold is also what a reader
 * walking a long partial list under the lock makes, and the waits behind
 * it are the jitter users see, so the mean now shows them.  Their tails
 * (p99 and maximum of waits and holds, from each scope's histogram; see
 * slub_tstats.h for its resolution) are figures of their own.  All of them
 * are set by how long holders were preempted when the machine is loaded:
 * two recorded runs a side of the same workload here (slub-workload -r 3,
 * 2 cores shared with other builds and tests) moved a cache's mean wait
 * per acquisition from 8 to 18,519 ns and another's from 1,338 to 236,384
 * ns (a small cache: a few waits behind a preempted holder), its p99 wait
 * (contention past 1 % of acquisitions, each wait a preemption) from 0 to
 * 9.4 ms, and the longest wait between 971 ns and 125 ms.  Hence floors of
 * 50 us per acquisition for the means and 50 ms for p99, judged on 10,000
 * acquisitions at least (so that one preempted wait of 0.5 s moves a mean
 * by 50 us at most), and 1 s for the maximum: by default they catch only
 * gross changes; tighten them with -t (e.g. lock_hold_max_ns.abs=1000000)
 * on a quiet machine.
 *
 * Allocations are the alloc events when object events were recorded
 * ("objects"), else the slow-path allocations ("slowpath"); figures per
 * allocation are only compared between results of the same basis.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct rate_def {
	const char *name;
	const char *meaning;
	double scale;
	unsigned per_alloc;     /* the denominator is allocations */
	unsigned is_count;      /* the numerator counts events (Poisson test applies) */
	struct slub_tstats_threshold thr;
	unsigned lock_time;     /* made of lock times: not judged when a sum saturated */
	unsigned kind;          /* enum slub_tstats_rate_kind */
	unsigned tail;          /* SLUB_TAIL_*: of a tail figure */
	/* a ratio whose definition changed when the tails came (the lock
	 * time means counted waits and holds under 1 ms only): a report
	 * without tails has the old figure, unknown here */
	unsigned redefined;
};

static const struct rate_def rates[SLUB_RATE_NR] = {
	[SLUB_RATE_REDOS_PER_1K_SLOW_FREES] = { "redos_per_1k_slow_frees",
		"slab-word CAS redos per 1,000 slow-path frees", 1000, 0, 1, { 300, 2, 1000 } },
	[SLUB_RATE_LOCKED_REDOS_PER_1K_SLOW_FREES] = { "locked_redos_per_1k_slow_frees",
		"... of them with list_lock held", 1000, 0, 1, { 300, 2, 1000 } },
	[SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES] = { "kept_lock_redos_per_1k_slow_frees",
		"__slab_free redos retried with list_lock still held, per 1,000 slow-path frees",
		1000, 0, 1, { 300, 0.01, 1000 } },
	[SLUB_RATE_LOCKED_FROZEN_FREES_PER_1K_SLOW_FREES] = {
		"locked_frozen_frees_per_1k_slow_frees",
		"frees into a frozen slab under list_lock (not needed), per 1,000 slow-path frees",
		1000, 0, 1, { 300, 0.01, 1000 } },
	[SLUB_RATE_REDOS_PER_1K_ALLOCS] = { "redos_per_1k_allocs",
		"slab-word CAS redos per 1,000 allocations", 1000, 1, 1, { 500, 20, 1000 } },
	[SLUB_RATE_LOCKED_REDOS_PER_1K_ALLOCS] = { "locked_redos_per_1k_allocs",
		"... of them with list_lock held", 1000, 1, 1, { 500, 20, 1000 } },
	[SLUB_RATE_CPU_REDOS_PER_1K_ALLOCS] = { "cpu_redos_per_1k_allocs",
		"cpu partial chain CAS redos per 1,000 allocations", 1000, 1, 1, { 300, 5, 1000 } },
	[SLUB_RATE_CPU_REDOS_PER_DRAIN] = { "cpu_redos_per_drain",
		"cpu partial chain CAS redos per chain drained over its limit", 1, 0, 1,
		{ 20, 0.05, 10 } },
	[SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K] = { "unfreeze_partials_redos_per_1k",
		"slab-word CAS redos in unfreeze_partials per 1,000 slabs it unfroze", 1000, 0, 1,
		{ 300, 0.1, 500 } },
	[SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE] = { "word_updates_per_deactivate",
		"slab-word updates per deactivate_slab", 1, 0, 1, { 10, 0.05, 5 } },
	[SLUB_RATE_LOCK_ACQ_PER_1K_ALLOCS] = { "lock_acq_per_1k_allocs",
		"list_lock acquisitions per 1,000 allocations", 1000, 1, 1, { 50, 5, 1000 } },
	[SLUB_RATE_LOCK_WAIT_NS_PER_ACQ] = { "lock_wait_ns_per_acq",
		"list_lock wait per acquisition (ns, every wait)", 1, 0, 0,
		{ 1000, 50000, 10000 }, 1, .redefined = 1 },
	[SLUB_RATE_LOCK_HOLD_NS_PER_ACQ] = { "lock_hold_ns_per_acq",
		"list_lock hold per acquisition (ns, every hold)", 1, 0, 0,
		{ 1000, 50000, 10000 }, 1, .redefined = 1 },
	[SLUB_RATE_CONTENDED_PER_1K_ACQ] = { "contended_per_1k_acq",
		"contended list_lock acquisitions per 1,000", 1000, 0, 1, { 1000, 20, 1000 } },
	[SLUB_RATE_STORMS_PER_S] = { "storms_per_s",
		"retry storms per second of trace", 1, 0, 1, { 1000, 50, 0.1 } },
	[SLUB_RATE_SLAB_CHURN_PER_1K_ALLOCS] = { "slab_churn_per_1k_allocs",
		"slabs created plus discarded per 1,000 allocations", 1000, 1, 1, { 300, 50, 1000 } },
	[SLUB_RATE_LOCK_WAIT_P99_NS] = { "lock_wait_p99_ns",
		"list_lock wait, 99th percentile of acquisitions (ns, up to 6.25% over)", 1, 0, 0,
		{ 1000, 50e6, 10000 }, 1, SLUB_RATE_KIND_P99, SLUB_TAIL_LOCK_WAIT },
	[SLUB_RATE_LOCK_WAIT_MAX_NS] = { "lock_wait_max_ns",
		"list_lock wait, the longest (ns)", 1, 0, 0,
		{ 1000, 1e9, 100 }, 1, SLUB_RATE_KIND_MAX, SLUB_TAIL_LOCK_WAIT },
	[SLUB_RATE_LOCK_HOLD_P99_NS] = { "lock_hold_p99_ns",
		"list_lock hold, 99th percentile (ns, up to 6.25% over)", 1, 0, 0,
		{ 1000, 50e6, 10000 }, 1, SLUB_RATE_KIND_P99, SLUB_TAIL_LOCK_HOLD },
	[SLUB_RATE_LOCK_HOLD_MAX_NS] = { "lock_hold_max_ns",
		"list_lock hold, the longest (ns)", 1, 0, 0,
		{ 1000, 1e9, 100 }, 1, SLUB_RATE_KIND_MAX, SLUB_TAIL_LOCK_HOLD },
	/* What the holds did rather than how long they took: a handful of
	 * walking holds among 100,000s cannot move a p99, and the longest
	 * holds on a loaded machine are preempted allocating threads.  A
	 * walk's length is the partial list's, which the run's interleaving
	 * sets: 2x and 100 slabs above it. */
	[SLUB_RATE_WALK_SLABS_MAX] = { "walk_slabs_max",
		"partial slabs walked in one list_lock hold (slabinfo), the most", 1, 0, 0,
		{ 100, 100, 1 }, 0, SLUB_RATE_KIND_PEAK },
	[SLUB_RATE_WALKS_PER_1K_ACQ] = { "walks_per_1k_acq",
		"list_lock holds that walked a partial list, per 1,000 acquisitions", 1000, 0, 1,
		{ 300, 0.01, 100 } },
	/* a hold time, preempted like any other: lock_hold_max_ns's floor */
	[SLUB_RATE_WALK_HOLD_MAX_NS] = { "walk_hold_max_ns",
		"list_lock hold that walked a partial list, the longest (ns)", 1, 0, 0,
		{ 1000, 1e9, 1 }, 1, SLUB_RATE_KIND_PEAK },
	/*
	 * Occupancy and locality, the same for every generation (occupancy.c):
	 * what the sheaves generation was argued to lose against cpu partial
	 * slabs.  Slab counts follow the live set the workload keeps and how
	 * threads interleaved: two runs of generations.sh -n medium moved
	 * them within one generation by up to 53 % (peaks), 28 % (means), 19 %
	 * (free objects per partial slab), slabs touched by 30 % and unused
	 * slots by 17 points (a small cache's by 54 %, 31 -> 48 %); hence a
	 * doubling and 8 (4) slabs more, +50 % for slabs touched, a doubling
	 * and 15 points for unused slots over 10^10 slot ns (10 slots for 1 s).  Time-weighted means need 10 ms
	 * of trace (den in ns); free objects per partial slab one partial
	 * slab-second (den in slab ns: a small cache's few partial slabs
	 * swing it) and 8 objects more.  Lock waits per allocation take
	 * contended_per_1k_acq's floor (20), at up to one acquisition per
	 * allocation: recordings of one program moved a cache's from 0.8 to
	 * 11 per 1,000.  The
	 * figures of object events (unused slots, slabs touched) have no
	 * denominator without them (n/a).
	 */
	[SLUB_RATE_SLABS_PEAK] = { "slabs_peak",
		"live slabs, the most at once", 1, 0, 0, { 100, 8, 1 }, 0, SLUB_RATE_KIND_PEAK },
	[SLUB_RATE_SLABS_MEAN] = { "slabs_mean",
		"live slabs, time-weighted mean over the trace", 1, 0, 0, { 100, 4, 1e7 } },
	[SLUB_RATE_PARTIAL_SLABS_PEAK] = { "partial_slabs_peak",
		"partial slabs (free objects on and off their freelist), the most at once", 1, 0, 0,
		{ 100, 8, 1 }, 0, SLUB_RATE_KIND_PEAK },
	[SLUB_RATE_PARTIAL_SLABS_MEAN] = { "partial_slabs_mean",
		"partial slabs, time-weighted mean over the trace", 1, 0, 0, { 100, 4, 1e7 } },
	[SLUB_RATE_FREE_OBJS_PER_PARTIAL] = { "free_objs_per_partial_slab",
		"free objects on a partial slab's freelist, time-weighted", 1, 0, 0,
		{ 100, 8, 1e9 } },
	[SLUB_RATE_SLAB_UNUSED_PCT] = { "slab_unused_pct",
		"object slots of live slabs not allocated (%, time-weighted; object events)", 100, 0,
		0, { 100, 15, 1e10 } },
	[SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS] = { "slabs_touched_per_1k_allocs",
		"distinct slabs a thread's 1,000 allocations in a cache touch (object events)",
		1000, 0, 0, { 50, 5, 10000 } },
	[SLUB_RATE_LOCK_WAITS_PER_1K_ALLOCS] = { "lock_waits_per_1k_allocs",
		"contended list_lock acquisitions per 1,000 allocations", 1000, 1, 1,
		{ 1000, 20, 1000 } },
	[SLUB_RATE_PAGE_CHURN_PER_1K_ALLOCS] = { "page_churn_per_1k_allocs",
		"pages of slabs created plus discarded per 1,000 allocations", 1000, 1, 1,
		{ 300, 50, 1000 } },
};

const char *slub_tstats_rate_name(unsigned rate)
{
	return rate < SLUB_RATE_NR ? rates[rate].name : "unknown";
}

const char *slub_tstats_rate_meaning(unsigned rate)
{
	return rate < SLUB_RATE_NR ? rates[rate].meaning : "";
}

unsigned slub_tstats_rate_kind(unsigned rate)
{
	return rate < SLUB_RATE_NR ? rates[rate].kind : SLUB_RATE_KIND_RATIO;
}

/* A tail figure from its scope's histogram; unknown (runs 0) without it. */
static void set_tail(struct slub_tstats_figure *g, unsigned rate,
		     const struct slub_tstats_scope *sc)
{
	const struct slub_tstats_tail *t = &sc->tail[rates[rate].tail];

	memset(g, 0, sizeof(*g));
	if (!(sc->tails_known & (1u << rates[rate].tail)))
		return;
	g->den = (double)t->count;
	g->value = (double)(rates[rate].kind == SLUB_RATE_KIND_MAX ? t->max
							    : slub_tstats_tail_p99(t));
	g->num = g->value;
	g->runs = 1;
}

void tstats_tails_fill(struct slub_tstats_scope *sc)
{
	bool all = sc->tails_known == (1u << SLUB_TAIL_NR) - 1;

	for (unsigned i = 0; i < SLUB_RATE_NR; i++)
		if (rates[i].kind == SLUB_RATE_KIND_P99 || rates[i].kind == SLUB_RATE_KIND_MAX)
			set_tail(&sc->fig[i], i, sc);
		else if (rates[i].redefined && !all)
			memset(&sc->fig[i], 0, sizeof(sc->fig[i]));
}

static void set(struct slub_tstats_figure *g, unsigned rate, double num, double den)
{
	g->num = num;
	g->den = den;
	g->value = den > 0 ? num / den * rates[rate].scale : 0;
	g->runs = 1;
	g->sq = den > 0 ? num * num / den : 0;
}

static void set_peak(struct slub_tstats_figure *g, double value, double den)
{
	memset(g, 0, sizeof(*g));
	g->value = g->num = g->lo = value;
	g->den = den;
	g->runs = 1;
}

/*
 * How much more than counting (Poisson) noise the runs pooled into g
 * differ: Pearson's X^2 of the per-run counts against the pooled rate,
 * over its degrees of freedom, at least 1.  X^2 = sum (n_i - d_i r)^2 /
 * (d_i r) with r = N / D reduces to sq * D / N - N.  One run: 1.
 */
static double dispersion(const struct slub_tstats_figure *g)
{
	if (g->runs < 2 || g->num <= 0 || g->den <= 0)
		return 1;
	double x2 = g->sq * g->den / g->num - g->num;
	double phi = x2 / (g->runs - 1);
	return phi > 1 ? phi : 1;
}

static void occ_fill(struct slub_tstats_figure *g, const struct slub_tstats_cache *v,
		     double allocs)
{
	const struct slub_tstats_occupancy *o = &v->occ;
	const uint64_t *x = v->item;
	double span = (double)o->span_ns;

	set_peak(&g[SLUB_RATE_SLABS_PEAK], (double)o->slabs_peak, (double)o->slabs_new);
	set(&g[SLUB_RATE_SLABS_MEAN], SLUB_RATE_SLABS_MEAN, o->slab_ns, span);
	set_peak(&g[SLUB_RATE_PARTIAL_SLABS_PEAK], (double)o->partial_peak, (double)o->slabs_new);
	set(&g[SLUB_RATE_PARTIAL_SLABS_MEAN], SLUB_RATE_PARTIAL_SLABS_MEAN, o->partial_ns, span);
	set(&g[SLUB_RATE_FREE_OBJS_PER_PARTIAL], SLUB_RATE_FREE_OBJS_PER_PARTIAL,
	    o->partial_free_ns, o->partial_ns);
	/* without object events no slot is known allocated: no denominator */
	set(&g[SLUB_RATE_SLAB_UNUSED_PCT], SLUB_RATE_SLAB_UNUSED_PCT,
	    o->capacity_ns - o->live_ns, o->live_ns > 0 ? o->capacity_ns : 0);
	set(&g[SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS], SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS,
	    (double)o->touched, (double)o->touched_allocs);
	set(&g[SLUB_RATE_LOCK_WAITS_PER_1K_ALLOCS], SLUB_RATE_LOCK_WAITS_PER_1K_ALLOCS,
	    (double)x[SLUB_TS_LOCK_CONTENDED], allocs);
	set(&g[SLUB_RATE_PAGE_CHURN_PER_1K_ALLOCS], SLUB_RATE_PAGE_CHURN_PER_1K_ALLOCS,
	    (double)(o->pages_new + o->pages_freed), allocs);
}

static void scope_fill(struct slub_tstats_scope *sc, const struct slub_tstats_cache *v,
		       bool objects, double seconds)
{
	const uint64_t *x = v->item;
	double allocs = objects ? (double)v->allocs : (double)x[SLUB_TS_ALLOC_SLOWPATH];
	double slow_frees = (double)x[SLUB_TS_FREE_SLOWPATH];
	double acq = (double)x[SLUB_TS_LOCK_ACQUIRE];
	struct slub_tstats_figure *g = sc->fig;

	set(&g[SLUB_RATE_REDOS_PER_1K_SLOW_FREES], SLUB_RATE_REDOS_PER_1K_SLOW_FREES,
	    (double)x[SLUB_TS_CMPXCHG_DOUBLE_FAIL], slow_frees);
	set(&g[SLUB_RATE_LOCKED_REDOS_PER_1K_SLOW_FREES], SLUB_RATE_LOCKED_REDOS_PER_1K_SLOW_FREES,
	    (double)x[SLUB_TS_CMPXCHG_DOUBLE_FAIL_LOCKED], slow_frees);
	set(&g[SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES],
	    SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES,
	    (double)v->fail_site_kept[SLUB_SITE_SLAB_FREE], slow_frees);
	set(&g[SLUB_RATE_LOCKED_FROZEN_FREES_PER_1K_SLOW_FREES],
	    SLUB_RATE_LOCKED_FROZEN_FREES_PER_1K_SLOW_FREES, (double)v->locked_frozen_frees,
	    slow_frees);
	set(&g[SLUB_RATE_REDOS_PER_1K_ALLOCS], SLUB_RATE_REDOS_PER_1K_ALLOCS,
	    (double)x[SLUB_TS_CMPXCHG_DOUBLE_FAIL], allocs);
	set(&g[SLUB_RATE_LOCKED_REDOS_PER_1K_ALLOCS], SLUB_RATE_LOCKED_REDOS_PER_1K_ALLOCS,
	    (double)x[SLUB_TS_CMPXCHG_DOUBLE_FAIL_LOCKED], allocs);
	set(&g[SLUB_RATE_CPU_REDOS_PER_1K_ALLOCS], SLUB_RATE_CPU_REDOS_PER_1K_ALLOCS,
	    (double)x[SLUB_TS_CPU_PARTIAL_CMPXCHG_FAIL], allocs);
	set(&g[SLUB_RATE_CPU_REDOS_PER_DRAIN], SLUB_RATE_CPU_REDOS_PER_DRAIN,
	    (double)x[SLUB_TS_CPU_PARTIAL_CMPXCHG_FAIL], (double)x[SLUB_TS_CPU_PARTIAL_DRAIN]);
	set(&g[SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K], SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K,
	    (double)v->fail_site[SLUB_SITE_UNFREEZE_PARTIALS],
	    (double)v->ops_site[SLUB_SITE_UNFREEZE_PARTIALS]);
	set(&g[SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE], SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE,
	    (double)(v->deactivations + v->drain_updates), (double)v->deactivations);
	set(&g[SLUB_RATE_LOCK_ACQ_PER_1K_ALLOCS], SLUB_RATE_LOCK_ACQ_PER_1K_ALLOCS, acq, allocs);
	set(&g[SLUB_RATE_LOCK_WAIT_NS_PER_ACQ], SLUB_RATE_LOCK_WAIT_NS_PER_ACQ,
	    (double)v->lock_wait_ns, acq);
	set(&g[SLUB_RATE_LOCK_HOLD_NS_PER_ACQ], SLUB_RATE_LOCK_HOLD_NS_PER_ACQ,
	    (double)v->lock_hold_ns, acq);
	set(&g[SLUB_RATE_CONTENDED_PER_1K_ACQ], SLUB_RATE_CONTENDED_PER_1K_ACQ,
	    (double)x[SLUB_TS_LOCK_CONTENDED], acq);
	set(&g[SLUB_RATE_STORMS_PER_S], SLUB_RATE_STORMS_PER_S, (double)v->storms, seconds);
	set(&g[SLUB_RATE_SLAB_CHURN_PER_1K_ALLOCS], SLUB_RATE_SLAB_CHURN_PER_1K_ALLOCS,
	    (double)(x[SLUB_TS_ALLOC_SLAB] + x[SLUB_TS_FREE_SLAB]), allocs);
	set(&g[SLUB_RATE_WALKS_PER_1K_ACQ], SLUB_RATE_WALKS_PER_1K_ACQ, (double)v->walk_holds,
	    acq);
	/* a walk whose lock_acquire was not recorded (a trace starting
	 * inside the hold) still walked that many in one hold */
	set_peak(&g[SLUB_RATE_WALK_SLABS_MAX],
		 (double)(v->walk_hold_slabs_max > v->walked_max ? v->walk_hold_slabs_max
								 : v->walked_max),
		 acq);
	set_peak(&g[SLUB_RATE_WALK_HOLD_MAX_NS], (double)v->walk_hold_max_ns,
		 (double)v->walk_holds);
	occ_fill(g, v, allocs);
	sc->tail[SLUB_TAIL_LOCK_WAIT] = v->lock_wait_tail;
	sc->tail[SLUB_TAIL_LOCK_HOLD] = v->lock_hold_tail;
	sc->tails_known = (1u << SLUB_TAIL_NR) - 1;
	tstats_tails_fill(sc);
}

int slub_tstats_result_get(const struct slub_tstats *st, struct slub_tstats_result *r)
{
	struct slub_tstats_cache all;
	bool objects = st->tot.have_objects;
	double seconds = (double)(st->tot.last_ts - st->tot.first_ts) / 1e9;

	memset(r, 0, sizeof(*r));
	r->scope = calloc(st->nr_views + 1, sizeof(*r->scope));
	if (!r->scope)
		return -1;
	snprintf(r->alloc_basis, sizeof(r->alloc_basis), "%s", objects ? "objects" : "slowpath");
	r->lower_bounds = st->tot.lower_bounds;
	r->events = st->tot.events;
	memset(&all, 0, sizeof(all));
	for (unsigned i = 0; i < st->nr_views; i++) {
		const struct slub_tstats_cache *v = &st->views[i];
		for (int k = 0; k < SLUB_TS_NR_ITEMS; k++)
			all.item[k] += v->item[k];
		for (int k = 0; k < SLUB_SITE_NR; k++) {
			all.fail_site[k] += v->fail_site[k];
			all.fail_site_kept[k] += v->fail_site_kept[k];
			all.ops_site[k] += v->ops_site[k];
		}
		all.locked_frozen_frees += v->locked_frozen_frees;
		all.allocs += v->allocs;
		all.deactivations += v->deactivations;
		all.drain_updates += v->drain_updates;
		r->saturated += v->lock_saturated;
		if (__builtin_add_overflow(all.lock_wait_ns, v->lock_wait_ns, &all.lock_wait_ns)) {
			all.lock_wait_ns = UINT64_MAX;
			r->saturated++;
		}
		if (__builtin_add_overflow(all.lock_hold_ns, v->lock_hold_ns, &all.lock_hold_ns)) {
			all.lock_hold_ns = UINT64_MAX;
			r->saturated++;
		}
		slub_tstats_tail_merge(&all.lock_wait_tail, &v->lock_wait_tail);
		slub_tstats_tail_merge(&all.lock_hold_tail, &v->lock_hold_tail);
		all.slabinfo_walks += v->slabinfo_walks;
		all.walk_holds += v->walk_holds;
		if (v->walked_max > all.walked_max)
			all.walked_max = v->walked_max;
		if (v->walk_hold_slabs_max > all.walk_hold_slabs_max)
			all.walk_hold_slabs_max = v->walk_hold_slabs_max;
		if (v->walk_hold_max_ns > all.walk_hold_max_ns)
			all.walk_hold_max_ns = v->walk_hold_max_ns;
		all.storms += v->storms;
		snprintf(r->scope[i + 1].name, sizeof(r->scope[i + 1].name), "%s", v->name);
		scope_fill(&r->scope[i + 1], v, objects, seconds);
	}
	/* Storms of caches never named (lock storms of unknown caches) are
	 * counted overall from the totals. */
	all.storms = st->tot.storms;
	/* occupancy of the total: its peaks are of all caches at once */
	all.occ = st->occ_all.o;
	snprintf(r->scope[0].name, sizeof(r->scope[0].name), "overall");
	scope_fill(&r->scope[0], &all, objects, seconds);
	r->nr_scopes = st->nr_views + 1;
	return 0;
}

void slub_tstats_result_free(struct slub_tstats_result *r)
{
	free(r->scope);
	memset(r, 0, sizeof(*r));
}

int slub_tstats_result_only(struct slub_tstats_result *r, const char *name, char *err,
			    size_t errlen)
{
	size_t o;

	/* scope[0] is "overall", every cache's: never a cache of that name */
	for (unsigned s = 1; s < r->nr_scopes; s++) {
		if (strcmp(r->scope[s].name, name))
			continue;
		r->scope[0] = r->scope[s];
		r->nr_scopes = 1;
		return 0;
	}
	o = (size_t)snprintf(err, errlen, "no cache `%s` in it; its caches: ", name);
	for (unsigned s = 1; s < r->nr_scopes && o < errlen; s++)
		o += (size_t)snprintf(err + o, errlen - o, "%s%s", s > 1 ? ", " : "",
				      r->scope[s].name);
	if (r->nr_scopes < 2 && o < errlen)
		snprintf(err + o, errlen - o, "none");
	return -1;
}

int slub_tstats_result_pool(struct slub_tstats_result *dst, const struct slub_tstats_result *src,
			    char *err, size_t errlen)
{
	if (strcmp(dst->alloc_basis, src->alloc_basis)) {
		snprintf(err, errlen, "allocations counted from %s in one run and from %s in "
			 "another: record all runs of a side the same way", dst->alloc_basis,
			 src->alloc_basis);
		return -1;
	}
	dst->lower_bounds |= src->lower_bounds;
	dst->saturated += src->saturated;
	dst->events += src->events;
	for (unsigned k = 0; k < src->nr_scopes; k++) {
		const struct slub_tstats_scope *ss = &src->scope[k];
		struct slub_tstats_scope *ds = NULL;

		for (unsigned s = 0; s < dst->nr_scopes && !ds; s++)
			if (!strcmp(dst->scope[s].name, ss->name))
				ds = &dst->scope[s];
		if (!ds) {
			struct slub_tstats_scope *n = realloc(dst->scope,
							      (dst->nr_scopes + 1) * sizeof(*n));
			if (!n) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			dst->scope = n;
			dst->scope[dst->nr_scopes++] = *ss;
			continue;
		}
		double runs[SLUB_RATE_NR];
		for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
			struct slub_tstats_figure *g = &ds->fig[i];
			double sq = g->sq + ss->fig[i].sq;

			runs[i] = g->runs + ss->fig[i].runs;
			if (rates[i].kind == SLUB_RATE_KIND_PEAK) {
				/* known for the pool when every run has it, as
				 * a tail */
				if (!g->runs || !ss->fig[i].runs) {
					memset(g, 0, sizeof(*g));
					continue;
				}
				double lo = fmin(g->lo, ss->fig[i].lo);

				set_peak(g, fmax(g->value, ss->fig[i].value),
					 g->den + ss->fig[i].den);
				g->runs = runs[i];
				g->lo = lo;
				continue;
			}
			if (rates[i].kind != SLUB_RATE_KIND_RATIO)
				continue;
			set(g, i, g->num + ss->fig[i].num, g->den + ss->fig[i].den);
			g->runs = runs[i];
			g->sq = sq;
		}
		/* A tail is known for the pool when every run has it: a p99
		 * of the runs that have it would not be the side's. */
		ds->tails_known &= ss->tails_known;
		for (unsigned t = 0; t < SLUB_TAIL_NR; t++)
			slub_tstats_tail_merge(&ds->tail[t], &ss->tail[t]);
		tstats_tails_fill(ds);
		for (unsigned i = 0; i < SLUB_RATE_NR; i++)
			if (rates[i].kind != SLUB_RATE_KIND_RATIO && ds->fig[i].runs)
				ds->fig[i].runs = runs[i];
	}
	return 0;
}

/* ---- diff ---- */

void slub_tstats_diff_defaults(struct slub_tstats_diff_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	for (unsigned i = 0; i < SLUB_RATE_NR; i++)
		cfg->thr[i] = rates[i].thr;
	cfg->z_min = 3.0;
	cfg->count_min = 10;
}

void slub_tstats_diff_print_defaults(FILE *f)
{
	fprintf(f, "  %-38s %8s %10s %10s  %s\n", "figure", "rise %", "abs floor", "min ops",
		"meaning");
	for (unsigned i = 0; i < SLUB_RATE_NR; i++)
		fprintf(f, "  %-38s %8g %10g %10g  %s\n", rates[i].name, rates[i].thr.rel_pct,
			rates[i].thr.abs_floor, rates[i].thr.min_den, rates[i].meaning);
	fprintf(f, "  z (count figures: Poisson z-score of the rise) = 3\n");
	fprintf(f, "  count (count figures: events needed on the larger side) = 10\n");
}

int slub_tstats_diff_set(struct slub_tstats_diff_config *cfg, const char *assign, char *err,
			 size_t errlen)
{
	const char *eq = strchr(assign, '=');
	char name[64], *end;

	if (!eq || eq == assign || (size_t)(eq - assign) >= sizeof(name)) {
		snprintf(err, errlen, "threshold '%s': expected NAME=VALUE", assign);
		return -1;
	}
	memcpy(name, assign, (size_t)(eq - assign));
	name[eq - assign] = 0;
	errno = 0;
	double v = strtod(eq + 1, &end);
	if (errno || end == eq + 1 || (*end && strcmp(end, "%")) || v < 0) {
		snprintf(err, errlen, "threshold '%s': '%s' is not a non-negative number", assign,
			 eq + 1);
		return -1;
	}
	if (!strcmp(name, "z")) {
		cfg->z_min = v;
		return 0;
	}
	if (!strcmp(name, "count")) {
		cfg->count_min = v;
		return 0;
	}
	char *dot = strchr(name, '.');
	unsigned field = 0; /* 0 rel, 1 abs, 2 min */
	if (dot) {
		*dot = 0;
		if (!strcmp(dot + 1, "abs"))
			field = 1;
		else if (!strcmp(dot + 1, "min"))
			field = 2;
		else {
			snprintf(err, errlen, "threshold '%s': suffix must be .abs or .min", assign);
			return -1;
		}
	}
	bool any = false;
	for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
		if (strcmp(name, "all") && strcmp(name, rates[i].name))
			continue;
		double *p = field == 0 ? &cfg->thr[i].rel_pct
			  : field == 1 ? &cfg->thr[i].abs_floor : &cfg->thr[i].min_den;
		*p = v;
		any = true;
	}
	if (!any) {
		snprintf(err, errlen, "threshold '%s': no figure named '%s' (see --help)", assign, name);
		return -1;
	}
	return 0;
}

enum verdict { V_NA = 0, V_OK, V_IMPROVED, V_REGRESSED };

static enum verdict judge(const struct slub_tstats_diff_config *cfg, unsigned i,
			  const struct slub_tstats_figure *b, const struct slub_tstats_figure *a,
			  bool same_basis, const char **why)
{
	const struct slub_tstats_threshold *t = &cfg->thr[i];

	*why = "";
	if (!b->runs || !a->runs) {
		*why = !b->runs && !a->runs ? "unknown: both reports predate the figure"
		       : !b->runs ? "unknown before: its report predates the figure"
				  : "unknown after: its report predates the figure";
		return V_NA;
	}
	if (rates[i].per_alloc && !same_basis) {
		*why = "allocation basis differs";
		return V_NA;
	}
	if (b->den < t->min_den || a->den < t->min_den) {
		*why = "too few operations";
		return V_NA;
	}
	double hi = a->value, lo = b->value;
	bool rise = hi > lo;
	if (!rise) {
		hi = b->value;
		lo = a->value;
	}
	if (hi <= lo * (1 + t->rel_pct / 100) || hi - lo <= t->abs_floor)
		return V_OK;
	if (rates[i].kind == SLUB_RATE_KIND_PEAK && (a->runs > 1 || b->runs > 1)) {
		/* A peak is each run's extreme, and the runs of one build
		 * spread with how threads interleaved (a producer's lead over
		 * its consumers: hackbench's slab peak tripled between two runs
		 * of one build on a machine other work came to): the sides
		 * differ only when every run of one is past every run of the
		 * other by the threshold. */
		const struct slub_tstats_figure *big = rise ? a : b, *small = rise ? b : a;

		if (big->lo <= small->value * (1 + t->rel_pct / 100) ||
		    big->lo - small->value <= t->abs_floor) {
			*why = "the runs of the two sides overlap";
			return V_OK;
		}
	}
	if (rates[i].is_count) {
		/* Could the larger count come from the smaller rate by chance? */
		const struct slub_tstats_figure *big = rise ? a : b, *small = rise ? b : a;
		if (big->num < cfg->count_min) {
			*why = "too few events";
			return V_OK;
		}
		double expect = small->num / small->den * big->den;
		double z = (big->num - expect) / sqrt(expect > 1 ? expect : 1);
		/* Pooled runs that differ more than counting noise (how
		 * threads interleaved): widen the noise by that much. */
		double phi = fmax(dispersion(big), dispersion(small));
		z /= sqrt(phi);
		if (z < cfg->z_min) {
			*why = "within noise";
			return V_OK;
		}
	}
	return rise ? V_REGRESSED : V_IMPROVED;
}

int slub_tstats_diff_judge(const struct slub_tstats_diff_config *cfg, unsigned rate,
			   const struct slub_tstats_figure *before,
			   const struct slub_tstats_figure *after, int same_basis, const char **why)
{
	return rate < SLUB_RATE_NR ? (int)judge(cfg, rate, before, after, same_basis, why) : V_NA;
}

static const char *verdict_name(enum verdict v)
{
	static const char *const n[] = { "n/a", "ok", "improved", "REGRESSED" };
	return n[v];
}

static void change_text(const struct slub_tstats_figure *b, const struct slub_tstats_figure *a,
			char *buf, size_t len)
{
	if (b->den <= 0 || a->den <= 0 || !b->runs || !a->runs)
		snprintf(buf, len, "-");
	else if (b->value == 0)
		snprintf(buf, len, a->value == 0 ? "0%%" : "new");
	else
		snprintf(buf, len, "%+.1f%%", (a->value - b->value) / b->value * 100);
}

static void value_text(const struct slub_tstats_figure *g, char *buf, size_t len)
{
	if (!g->runs)
		snprintf(buf, len, "unknown");
	else if (g->den <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4g", g->value);
}

unsigned slub_tstats_diff(const struct slub_tstats_result *before,
			  const struct slub_tstats_result *after,
			  const struct slub_tstats_diff_config *cfg, FILE *f)
{
	bool same_basis = !strcmp(before->alloc_basis, after->alloc_basis);
	unsigned regressed = 0;

	if (before->lower_bounds || after->lower_bounds)
		fprintf(f, "WARNING: events were discarded in %s: its figures are lower bounds\n",
			before->lower_bounds && after->lower_bounds ? "both traces"
			: before->lower_bounds ? "BEFORE" : "AFTER");
	if (!same_basis)
		fprintf(f, "note: allocations counted from %s before, %s after: per-allocation "
			   "figures are not compared\n", before->alloc_basis, after->alloc_basis);
	bool saturated = before->saturated || after->saturated;
	if (saturated)
		fprintf(f, "WARNING: lock time sums reached 2^64 ns in %s (impossible wait or hold "
			   "times in the input): lock time figures are not compared\n",
			before->saturated && after->saturated ? "both traces"
			: before->saturated ? "BEFORE" : "AFTER");
	fprintf(f, "%-22s %-38s %12s %12s %9s  %s\n", "scope", "figure", "before", "after", "change",
		"verdict");
	for (unsigned s = 0; s < before->nr_scopes; s++) {
		const struct slub_tstats_scope *bs = &before->scope[s], *as = NULL;
		for (unsigned k = 0; k < after->nr_scopes; k++)
			if (!strcmp(after->scope[k].name, bs->name)) {
				as = &after->scope[k];
				break;
			}
		if (!as) {
			if (cfg->all_caches)
				fprintf(f, "%-22s (only in BEFORE)\n", bs->name);
			continue;
		}
		bool overall = s == 0;
		for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
			const char *why;
			enum verdict v = judge(cfg, i, &bs->fig[i], &as->fig[i], same_basis, &why);
			if (saturated && rates[i].lock_time) {
				v = V_NA;
				why = "a lock time sum saturated";
			}
			if (v == V_REGRESSED)
				regressed++;
			if (!overall && !cfg->all_caches && (v == V_NA || v == V_OK))
				continue;
			char b[32], a[32], c[32];
			value_text(&bs->fig[i], b, sizeof(b));
			value_text(&as->fig[i], a, sizeof(a));
			change_text(&bs->fig[i], &as->fig[i], c, sizeof(c));
			fprintf(f, "%-22.22s %-38s %12s %12s %9s  %s%s%s%s\n", bs->name,
				rates[i].name, b, a, c, verdict_name(v), *why ? " (" : "", why,
				*why ? ")" : "");
		}
	}
	if (cfg->all_caches)
		for (unsigned k = 0; k < after->nr_scopes; k++) {
			bool found = false;
			for (unsigned s = 0; s < before->nr_scopes && !found; s++)
				found = !strcmp(before->scope[s].name, after->scope[k].name);
			if (!found)
				fprintf(f, "%-22s (only in AFTER)\n", after->scope[k].name);
		}
	unsigned unknown[2] = { 0, 0 };
	for (unsigned i = 0; i < SLUB_RATE_NR && before->nr_scopes && after->nr_scopes; i++) {
		unknown[0] += !before->scope[0].fig[i].runs;
		unknown[1] += !after->scope[0].fig[i].runs;
	}
	for (unsigned side = 0; side < 2; side++)
		if (unknown[side])
			fprintf(f, "note: %u figure%s unknown in %s (its report predates them): not "
				   "judged\n", unknown[side], unknown[side] == 1 ? "" : "s",
				side ? "AFTER" : "BEFORE");
	if (saturated && !regressed)
		fprintf(f, "verdict: unknown (lock time sums saturated; no other figure regressed)\n");
	else
		fprintf(f, "verdict: %s (%u figure%s regressed)\n",
			regressed ? "REGRESSION" : "no regression", regressed, regressed == 1 ? "" : "s");
	return regressed;
}
