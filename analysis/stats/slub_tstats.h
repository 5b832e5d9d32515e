/* SPDX-License-Identifier: MIT */
/*
 * slubtrace — statistics and retry storms rebuilt from the event stream.
 *
 * A pure C library, a consumer of the state model (analysis/model): it
 * takes the events in the model's order, as the model's applied listener
 * hands them on (struct slub_model_applied: a slab's events in the order
 * of its slab word, a failed CAS right after the update it observed, the
 * process image as the model tells execs apart).  From them it rebuilds
 *  - the `slabinfo -r` page of each cache (the items of enum stat_item the
 *    events determine; the allocator keeps the same counters in-process and
 *    the two agree on a run without discarded events),
 *  - slab-word and cpu chain redos per site, split by list_lock held,
 *  - per list_lock: acquisitions, contention, wait and hold histograms,
 *    the longest holds with the thread and what it did while holding,
 *  - retry storms: every failed CAS attributed to the update that beat it
 *    (the slab-word event whose seq is the observed seq), grouped into runs
 *    of one operation and into windows where one slab, cpu chain or lock
 *    collects failures faster than a threshold,
 *  - top-N slabs, sites and thread pairs, a per-second series, and rates
 *    normalised per operation that `slubtrace diff` compares.
 *
 * Memory is O(live slabs + locks + cpu slots + threads + caches): a slab's
 * state goes with its slab_discard, storms and slabs are kept as top-N.
 * Not thread-safe: one caller feeds one struct slub_tstats.
 */
#ifndef SLUB_TSTATS_H
#define SLUB_TSTATS_H

#include <stdint.h>
#include <stdio.h>

#include <slub/event.h>

#include "slub_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Events lost by LTTng's discard mode on one stream (count 0: unknown). */
struct slub_tstats_discard {
	uint64_t stream_id;
	uint64_t count;
	uint64_t begin_ts, end_ts;
	uint32_t range_known;
	uint32_t foreign;	/* a stream without slub events: none of them lost */
};

/* ---- tunables (0 = the default below) ---- */

struct slub_tstats_config {
	/* A run storm: this many consecutive failed attempts of one operation
	 * (one thread, one slab word or cpu chain, one site). */
	uint32_t run_attempts;
	/* A window storm: window_failures failures (contended acquisitions
	 * for a lock) on one slab, cpu chain or lock within window_ns. */
	uint32_t window_failures;
	uint64_t window_ns;
	/* Word updates kept per slab to find the winner of a failure (the
	 * update whose seq it observed: it may be this many updates back). */
	uint32_t lookback;
	uint32_t top_n;         /* rows of each top-N view */
	uint32_t max_storms;    /* storms kept in detail: the largest of each kind */
};

#define SLUB_TSTATS_DEFAULT_RUN_ATTEMPTS    4
#define SLUB_TSTATS_DEFAULT_WINDOW_FAILURES 16
#define SLUB_TSTATS_DEFAULT_WINDOW_NS       10000000ull  /* 10 ms */
#define SLUB_TSTATS_DEFAULT_LOOKBACK        8
#define SLUB_TSTATS_DEFAULT_TOP_N           10
#define SLUB_TSTATS_DEFAULT_MAX_STORMS      50

/* ---- the stat items: the order and names of enum slub_stat_item ---- */

enum slub_tstat_item {
	SLUB_TS_ALLOC_FASTPATH,     /* alloc events - slow path allocs (object events only) */
	SLUB_TS_ALLOC_SLOWPATH,     /* refill + from partial + new slab */
	SLUB_TS_FREE_FASTPATH,      /* free events - slow path frees (object events only) */
	SLUB_TS_FREE_SLOWPATH,      /* free_remote + freeze at __slab_free */
	SLUB_TS_FREE_FROZEN,        /* free_remote into a frozen slab */
	SLUB_TS_FREE_ADD_PARTIAL,   /* add_partial not by deactivate_slab */
	SLUB_TS_FREE_REMOVE_PARTIAL,/* remove_partial not by acquire_slab */
	SLUB_TS_ALLOC_FROM_PARTIAL, /* freeze at acquire_slab taking the freelist */
	SLUB_TS_ALLOC_SLAB,         /* slab_new */
	SLUB_TS_ALLOC_REFILL,       /* take_freelist */
	SLUB_TS_ALLOC_NODE_MISMATCH,/* deactivate, reason node_mismatch; sheaves:
				       * sheaf_refill to the caller, other node */
	SLUB_TS_FREE_SLAB,          /* slab_discard */
	SLUB_TS_CPUSLAB_FLUSH,      /* deactivate, reason flush */
	SLUB_TS_DEACTIVATE_FULL,    /* deactivate to full (not the bypass) */
	SLUB_TS_DEACTIVATE_EMPTY,   /* deactivate or unfreeze_partials to discard */
	SLUB_TS_DEACTIVATE_TO_HEAD,
	SLUB_TS_DEACTIVATE_TO_TAIL,
	SLUB_TS_DEACTIVATE_REMOTE_FREES, /* to tail, or discarded with remote frees */
	SLUB_TS_DEACTIVATE_BYPASS,  /* deactivate, reason empty_freelist (get_freelist) */
	SLUB_TS_CMPXCHG_DOUBLE_CPU_FAIL, /* the fast path's this_cpu_cmpxchg: always 0 (none) */
	SLUB_TS_CMPXCHG_DOUBLE_FAIL,     /* cmpxchg_fail */
	SLUB_TS_CPU_PARTIAL_ALLOC,  /* cpu_partial_take */
	SLUB_TS_CPU_PARTIAL_FREE,   /* freeze at __slab_free */
	SLUB_TS_CPU_PARTIAL_NODE,   /* freeze at acquire_slab leaving the freelist */
	SLUB_TS_CPU_PARTIAL_DRAIN,  /* cpu_partial_drain, reason cpu_partial_limit */
	SLUB_TS_CMPXCHG_DOUBLE_FAIL_LOCKED,
	SLUB_TS_LOCK_ACQUIRE,
	SLUB_TS_LOCK_CONTENDED,
	SLUB_TS_CPU_PARTIAL_CMPXCHG_FAIL, /* cpu_cmpxchg_fail: the cpu partial chain CAS */
	SLUB_TS_ALLOC_PREFETCH,     /* no event: never known from a trace */
	SLUB_TS_NR_ITEMS
};

/*
 * The sheaves generation's items: the order and names of enum
 * slub_sheaf_stat_item (Linux 7.0's sheaf and barn items of enum
 * stat_item).  Rebuilt for a cache created with SLUB_F_SHEAVES:
 */
enum slub_tstat_sheaf_item {
	SLUB_TS_SHEAF_FLUSH,        /* sheaf_flush: the counts */
	SLUB_TS_SHEAF_REFILL,       /* sheaf_refill into a sheaf: the counts */
	SLUB_TS_SHEAF_ALLOC,        /* sheaf_alloc (not known from format 7) */
	SLUB_TS_SHEAF_FREE,         /* sheaf_free (not known from format 7) */
	SLUB_TS_BARN_GET,           /* barn_get of a full sheaf answered by a barn_put of
				     * the thread's empty one (not barn_shrink's) */
	SLUB_TS_BARN_GET_FAIL,      /* refills of an empty sheaf: sheaf_refill with size == count */
	SLUB_TS_BARN_PUT,           /* barn_put of a full sheaf */
	SLUB_TS_BARN_PUT_FAIL,      /* a sheaf flushed that comes back as the empty main */
	SLUB_TS_NR_SHEAF_ITEMS
};

#define SLUB_TS_HIST_BUCKETS 16        /* bucket i: < 2^(i+6) ns, as the allocator's */
#define SLUB_TSTATS_PREEMPTED_NS 1000000ull /* 1 ms: a time slice, not a critical section */

/*
 * The tail of a lock time (wait or hold, ns): a log-linear histogram for
 * its p99 and the exact maximum.  Values below 2^SUB_BITS have a bucket of
 * their own; above, each power of two [2^e, 2^(e+1)) is cut into 2^SUB_BITS
 * equal sub-buckets.  A quantile is reported as the largest value its
 * bucket holds (never above the maximum), so it is exact below 16 ns and
 * otherwise at most 1/16 (6.25 %) above the true order statistic, never
 * below it.  976 buckets cover every 64-bit time: 7.8 KiB per histogram.
 */
#define SLUB_TS_TAIL_SUB_BITS 4
#define SLUB_TS_TAIL_SUB      (1u << SLUB_TS_TAIL_SUB_BITS)
#define SLUB_TS_TAIL_BUCKETS  ((64 - SLUB_TS_TAIL_SUB_BITS + 1) * SLUB_TS_TAIL_SUB)

struct slub_tstats_tail {
	uint64_t count, max;
	uint64_t bucket[SLUB_TS_TAIL_BUCKETS];
};

unsigned slub_tstats_tail_bucket(uint64_t ns);
uint64_t slub_tstats_tail_lower(unsigned bucket);   /* the smallest value of a bucket */
uint64_t slub_tstats_tail_upper(unsigned bucket);   /* the largest */
void slub_tstats_tail_add(struct slub_tstats_tail *t, uint64_t ns);
void slub_tstats_tail_merge(struct slub_tstats_tail *dst, const struct slub_tstats_tail *src);
/* The value of rank k (1 = the smallest) within the bound above, 0 when
 * there is none; p99: the rank ceil(0.99 * count). */
uint64_t slub_tstats_tail_rank(const struct slub_tstats_tail *t, uint64_t k);
uint64_t slub_tstats_tail_p99(const struct slub_tstats_tail *t);

const char *slub_tstat_item_name(unsigned item);
const char *slub_tstat_sheaf_item_name(unsigned item);

/* ---- the computation ---- */

struct slub_tstats;

/* NULL on allocation failure.  cfg may be NULL (defaults). */
struct slub_tstats *slub_tstats_new(const struct slub_tstats_config *cfg);
/* One event in the model's order (a->dropped: counted, its word not
 * applied).  Returns 0, or -1 when memory ran out (the event is counted,
 * not used). */
int slub_tstats_event(struct slub_tstats *st, const struct slub_model_applied *a);
/* The applied listener of a model whose arg is a struct slub_tstats (a
 * failure to count is kept and returned by slub_tstats_failed()). */
void slub_tstats_applied(const struct slub_model_applied *a, void *arg);
int slub_tstats_failed(const struct slub_tstats *st);
void slub_tstats_discarded(struct slub_tstats *st, const struct slub_tstats_discard *d);
/* A slub:stack: the call stack of the last event of (vpid, vtid) with that
 * type.  Stacks of cmpxchg_fail and cpu_cmpxchg_fail are kept for storms. */
void slub_tstats_stack(struct slub_tstats *st, uint32_t vpid, uint32_t vtid, unsigned type,
		       uint64_t slab, const uint64_t *ips, uint32_t nr);
/* Names a return address of process vpid ("function+0x12 (file.c:34)")
 * into buf; returns buf, or NULL when unknown.  The text report uses it. */
typedef const char *(*slub_tstats_symbolize_fn)(uint32_t vpid, uint64_t ip, char *buf,
						 size_t len, void *arg);
void slub_tstats_set_symbolizer(struct slub_tstats *st, slub_tstats_symbolize_fn fn, void *arg);
/* Resolves pending failures, closes storms, computes the views.  The
 * queries and reports below need it; feeding events after it is an error. */
void slub_tstats_finish(struct slub_tstats *st);
void slub_tstats_free(struct slub_tstats *st);

/* ---- queries (after finish) ---- */

/*
 * Occupancy and locality, the same for every allocator generation (see
 * occupancy.c).  A slab is live from its slab_new (or the first word
 * update of a slab made before the trace) to its slab_discard; it is
 * partial while its slab word has objects on the slab freelist and
 * objects off it (0 < inuse < objects): node partial slabs of both
 * generations and the classic cpu partial slabs (a cpu slab has taken its
 * freelist; objects in cpu freelists and sheaves count as in use).  The
 * *_ns fields integrate a count over time (count x ns) from the trace's
 * first event to its last (span_ns): mean = integral / span_ns.  The
 * fields needing object events (alloc, free) stay 0 without them.
 */
#define SLUB_TSTATS_LOCALITY_WINDOW 1000   /* allocations of one thread in one cache */

struct slub_tstats_occupancy {
	uint64_t slabs_new, slabs_freed, pages_new, pages_freed;
	uint64_t slabs_peak, partial_peak;      /* summed over processes in a cache's view */
	uint64_t slabs_end, partial_end;        /* live at the end of the trace */
	double slab_ns, partial_ns;             /* live slabs, partial slabs */
	double partial_free_ns;                 /* free objects on partial slabs' freelists */
	double capacity_ns, live_ns;            /* object slots of live slabs; allocated objects */
	uint64_t span_ns;
	/* distinct slabs the allocations of one thread in one cache touched,
	 * summed over its full windows of SLUB_TSTATS_LOCALITY_WINDOW
	 * allocations, and the allocations of those windows */
	uint64_t touched, touched_allocs;
	/* object events of slabs the trace never showed made (not counted) */
	uint64_t unmapped;
};

/* A cache's figures, summed over the processes that had a cache of that
 * name.  known: bit (1 << item) set when the events determine the item. */
struct slub_tstats_cache {
	const char *name;
	uint32_t processes;
	uint32_t object_size, size, align, order, objects, flags;
	uint64_t item[SLUB_TS_NR_ITEMS];
	uint64_t known;
	uint64_t fail_site[SLUB_SITE_NR];        /* slab-word redos */
	uint64_t fail_site_locked[SLUB_SITE_NR]; /* ... of which with list_lock held */
	/* locked redos retried without dropping list_lock first: the thread's
	 * next attempt on that slab at that site was made still holding it
	 * (__slab_free drops the lock since Linux 3.6; unfreeze_partials
	 * loops under it) */
	uint64_t fail_site_kept[SLUB_SITE_NR];
	/* frees into a frozen slab made with list_lock held: the lock was not
	 * needed (the "was_frozen with a lock" case Linux 3.6 removed) */
	uint64_t locked_frozen_frees;
	uint64_t cpu_fail_site[SLUB_SITE_NR];    /* cpu chain redos */
	uint64_t ops_site[SLUB_SITE_NR];         /* successful operations at the site */
	uint64_t lock_wait_ns, lock_hold_ns;
	/* the same without waits and holds of SLUB_TSTATS_PREEMPTED_NS or more
	 * (a holder preempted by the scheduler, which a kernel spinlock
	 * holder never is), and how many those were */
	uint64_t lock_wait_short_ns, lock_hold_short_ns, lock_long_waits, lock_long_holds;
	uint64_t lock_wait_hist[SLUB_TS_HIST_BUCKETS];
	uint64_t lock_hold_hist[SLUB_TS_HIST_BUCKETS];
	/* every acquisition's wait (0 when uncontended) and every hold */
	struct slub_tstats_tail lock_wait_tail, lock_hold_tail;
	uint64_t allocs, frees;                  /* object events */
	uint64_t word_updates;                   /* successful slab-word updates */
	uint64_t deactivations;                  /* deactivate_slab (unfreeze at "unfreezing slab") */
	uint64_t drain_updates;                  /* drain_freelist */
	uint64_t storms;
	/* census at the end of the trace, from the slabs' last events */
	uint64_t slabs, partial_slabs, full_slabs, cpu_slabs, objects_inuse;
	/* additions to a lock time sum above that would have passed 2^64 - 1:
	 * the sum stays at 2^64 - 1 (impossible lock times in the input) */
	uint64_t lock_saturated;
	/* slabinfo_walk events: walks of a node partial list under list_lock
	 * (count_partial), slabs walked in all, the most walked in one and the
	 * slabs listed then (more than walked: the count was extrapolated) */
	uint64_t slabinfo_walks, slabs_walked;
	uint32_t walked_max, walked_max_listed;
	/* the list_lock holds that walked (their release seen): how many, the
	 * most slabs walked in one hold and the longest of them (ns) */
	uint64_t walk_holds, walk_hold_slabs_max, walk_hold_max_ns;
	struct slub_tstats_occupancy occ;
	/* a cache of the sheaves generation (SLUB_F_SHEAVES, or sheaf and barn
	 * events): its sheaf items, and which of them (bit per item) and of
	 * item[] the events determine */
	uint32_t sheaves;
	/* one of its caches was read from a trace of a wire format before
	 * sheaf_alloc, sheaf_free and sheaf_refill's other-node flag (7):
	 * those two items and alloc_node_mismatch are not known */
	uint32_t sheaf_no_life;
	uint64_t sheaf_item[SLUB_TS_NR_SHEAF_ITEMS];
	uint64_t sheaf_known;
};

/* Number of caches (by name); NULL past the end. */
unsigned slub_tstats_nr_caches(const struct slub_tstats *st);
const struct slub_tstats_cache *slub_tstats_cache_at(const struct slub_tstats *st, unsigned i);
const struct slub_tstats_cache *slub_tstats_cache_find(const struct slub_tstats *st,
						       const char *name);

struct slub_tstats_totals {
	uint64_t events, discarded_notices, discarded_events;
	/* LTTng-UST's own events (record's statedump channel): the figures
	 * stay exact */
	uint64_t foreign_discarded;
	uint64_t first_ts, last_ts;
	uint64_t failures, cpu_failures, attributed, untraced_winner, unknown_winner;
	uint64_t storms, storms_run, storms_slab, storms_chain, storms_lock;
	uint64_t peak_live_slabs;
	uint32_t have_objects;  /* alloc/free events were recorded */
	uint32_t lower_bounds;  /* events were discarded */
};
void slub_tstats_get_totals(const struct slub_tstats *st, struct slub_tstats_totals *t);
/* Occupancy of all caches together (after finish): its peaks are of the
 * total, not sums of the caches' peaks. */
void slub_tstats_get_occupancy(const struct slub_tstats *st, struct slub_tstats_occupancy *o);

/* One storm as reported. */
enum slub_tstats_storm_kind {
	SLUB_STORM_RUN = 0,     /* consecutive failed attempts of one operation */
	SLUB_STORM_SLAB,        /* a slab word over the window threshold */
	SLUB_STORM_CHAIN,       /* a cpu partial chain over the window threshold */
	SLUB_STORM_LOCK,        /* a list_lock's contended acquisitions over the threshold */
	SLUB_STORM_NR
};
const char *slub_tstats_storm_kind_name(unsigned kind);

#define SLUB_TSTATS_STORM_PARTIES 6
struct slub_tstats_party {
	uint32_t vtid;
	uint32_t site;          /* the winner's site (winners), the loser's (losers) */
	uint32_t type;          /* the winner's event type */
	uint32_t count;
};

#define SLUB_TSTATS_STACK_DEPTH 16

struct slub_tstats_storm {
	uint32_t kind;
	uint32_t vpid;
	const char *cache;      /* name */
	uint64_t object;        /* slab address, lock id, or cpu slot */
	uint32_t site;          /* the most frequent losing site */
	uint64_t begin_ts, end_ts;
	uint64_t attempts;      /* failures (contended acquisitions for a lock) */
	uint64_t wait_ns;       /* lock storms: total wait */
	uint32_t max_attempt;   /* the highest attempt number seen */
	uint32_t nr_losers, nr_winners;       /* distinct, up to SLUB_TSTATS_STORM_PARTIES */
	uint32_t more_losers, more_winners;   /* distinct parties not listed */
	uint64_t untraced, unknown;           /* failures whose winner was untraced / not found */
	struct slub_tstats_party losers[SLUB_TSTATS_STORM_PARTIES];
	struct slub_tstats_party winners[SLUB_TSTATS_STORM_PARTIES];
	/* a losing thread's call stack at a failed CAS on this object, when
	 * the trace recorded stacks (slubtrace record --stacks cmpxchg_fail) */
	uint32_t stack_vtid, stack_nr;
	uint64_t stack[SLUB_TSTATS_STACK_DEPTH];
};

/* Storms kept in detail: by kind (runs, slab, cpu chain, lock), largest first. */
unsigned slub_tstats_nr_storms(const struct slub_tstats *st);
const struct slub_tstats_storm *slub_tstats_storm_at(const struct slub_tstats *st, unsigned i);

/* ---- rates for diff ---- */

enum slub_tstats_rate {
	SLUB_RATE_REDOS_PER_1K_SLOW_FREES = 0,
	SLUB_RATE_LOCKED_REDOS_PER_1K_SLOW_FREES,
	SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES,
	SLUB_RATE_LOCKED_FROZEN_FREES_PER_1K_SLOW_FREES,
	SLUB_RATE_REDOS_PER_1K_ALLOCS,
	SLUB_RATE_LOCKED_REDOS_PER_1K_ALLOCS,
	SLUB_RATE_CPU_REDOS_PER_1K_ALLOCS,
	SLUB_RATE_CPU_REDOS_PER_DRAIN,
	SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K,
	SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE,
	SLUB_RATE_LOCK_ACQ_PER_1K_ALLOCS,
	SLUB_RATE_LOCK_WAIT_NS_PER_ACQ,
	SLUB_RATE_LOCK_HOLD_NS_PER_ACQ,
	SLUB_RATE_CONTENDED_PER_1K_ACQ,
	SLUB_RATE_STORMS_PER_S,
	SLUB_RATE_SLAB_CHURN_PER_1K_ALLOCS,
	SLUB_RATE_LOCK_WAIT_P99_NS,
	SLUB_RATE_LOCK_WAIT_MAX_NS,
	SLUB_RATE_LOCK_HOLD_P99_NS,
	SLUB_RATE_LOCK_HOLD_MAX_NS,
	SLUB_RATE_WALK_SLABS_MAX,
	SLUB_RATE_WALKS_PER_1K_ACQ,
	SLUB_RATE_WALK_HOLD_MAX_NS,
	/* occupancy and locality (both generations; occupancy.c) */
	SLUB_RATE_SLABS_PEAK,
	SLUB_RATE_SLABS_MEAN,
	SLUB_RATE_PARTIAL_SLABS_PEAK,
	SLUB_RATE_PARTIAL_SLABS_MEAN,
	SLUB_RATE_FREE_OBJS_PER_PARTIAL,
	SLUB_RATE_SLAB_UNUSED_PCT,
	SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS,
	SLUB_RATE_LOCK_WAITS_PER_1K_ALLOCS,
	SLUB_RATE_PAGE_CHURN_PER_1K_ALLOCS,
	SLUB_RATE_NR
};

/* How a figure is made: a ratio of counts, a tail figure of a scope's
 * lock time histogram (value: the p99 or the maximum, in ns; den: the
 * number of waits or holds; num: the value), or the largest of what the
 * list_lock holds did (value and num: the largest; den: the holds it is
 * of; pooled runs keep the largest). */
enum slub_tstats_rate_kind {
	SLUB_RATE_KIND_RATIO = 0,
	SLUB_RATE_KIND_P99,
	SLUB_RATE_KIND_MAX,
	SLUB_RATE_KIND_PEAK,
};

/* The tail histograms of a scope. */
enum { SLUB_TAIL_LOCK_WAIT = 0, SLUB_TAIL_LOCK_HOLD, SLUB_TAIL_NR };

/* A figure: value = num / den * scale (a ratio) or a tail figure (see
 * above); usable when den > 0.  runs 0: the figure is unknown (a report
 * written before the figure existed). */
struct slub_tstats_figure {
	double num, den, value;
	/* over the runs pooled into it (slub_tstats_result_pool): how many,
	 * and the sum of num_i^2 / den_i, from which diff estimates how much
	 * more the runs differ than counting noise would make them */
	double runs, sq;
	/* a peak's (SLUB_RATE_KIND_PEAK): the smallest run's value, where
	 * value is the largest's */
	double lo;
};

/* The rates of one scope ("overall" or a cache name). */
struct slub_tstats_scope {
	char name[64];
	struct slub_tstats_figure fig[SLUB_RATE_NR];
	/* the histograms of the tail figures, pooled with the runs; bit
	 * (1 << SLUB_TAIL_*) of tails_known clear: unknown (a report written
	 * before them, or pooled with one) */
	uint32_t tails_known;
	struct slub_tstats_tail tail[SLUB_TAIL_NR];
};

/* What diff compares: the rates of every scope, and their basis. */
struct slub_tstats_result {
	char alloc_basis[16];   /* "objects" (alloc events) or "slowpath" */
	uint32_t lower_bounds;
	uint64_t events;
	unsigned nr_scopes;     /* scope[0] is "overall" */
	struct slub_tstats_scope *scope;
	/* lock time sums saturated (lock_saturated of every cache): the lock
	 * figures are not comparable, and diff says so instead of a verdict */
	uint64_t saturated;
};

const char *slub_tstats_rate_name(unsigned rate);
const char *slub_tstats_rate_meaning(unsigned rate);
unsigned slub_tstats_rate_kind(unsigned rate);     /* enum slub_tstats_rate_kind */
/* Fills r (malloc'd scopes; free with slub_tstats_result_free).  0 or -1. */
int slub_tstats_result_get(const struct slub_tstats *st, struct slub_tstats_result *r);
/* Reads the "rates" of a JSON report written by slub_tstats_print_json().
 * 0, or -1 with a one-line reason in err. */
int slub_tstats_result_load(const char *path, struct slub_tstats_result *r, char *err,
			    size_t errlen);
void slub_tstats_result_free(struct slub_tstats_result *r);
/* Pools src into dst, another run of the same workload: each figure's
 * numerator and denominator are summed per scope (scopes only in src are
 * added), so that counts from several recordings are compared as one
 * larger sample.  0, or -1 with a reason in err (allocations counted
 * differently, out of memory). */
int slub_tstats_result_pool(struct slub_tstats_result *dst, const struct slub_tstats_result *src,
			    char *err, size_t errlen);

/* Keeps the scope of cache name only, as scope[0] (what diff judges in
 * full): the figures of that cache alone.  0, or -1 with a reason naming
 * the caches r has in err. */
int slub_tstats_result_only(struct slub_tstats_result *r, const char *name, char *err,
			    size_t errlen);

/* ---- reports ---- */

#define SLUB_TSTATS_SHOW_SLABINFO 0x01u
#define SLUB_TSTATS_SHOW_SITES    0x02u
#define SLUB_TSTATS_SHOW_LOCKS    0x04u
#define SLUB_TSTATS_SHOW_STORMS   0x08u
#define SLUB_TSTATS_SHOW_TOP      0x10u
#define SLUB_TSTATS_SHOW_RATES    0x20u
#define SLUB_TSTATS_SHOW_ALL      0x3fu

/* Text report of the sections in `what`; cache: only that cache (NULL all). */
void slub_tstats_print_text(const struct slub_tstats *st, FILE *f, unsigned what,
			    const char *cache);
/* The whole result as one JSON document (schema in analysis/stats/README.md). */
void slub_tstats_print_json(const struct slub_tstats *st, FILE *f);

/* ---- diff ---- */

struct slub_tstats_threshold {
	double rel_pct;         /* regression: after > before * (1 + rel_pct/100) ... */
	double abs_floor;       /* ... and after - before > abs_floor ... */
	double min_den;         /* ... with at least min_den operations on both sides */
};

struct slub_tstats_diff_config {
	struct slub_tstats_threshold thr[SLUB_RATE_NR];
	double z_min;           /* count figures: Poisson z-score of the increase */
	double count_min;       /* count figures: events needed on the larger side */
	unsigned all_caches;    /* print every cache, not only those with a verdict */
};

void slub_tstats_diff_defaults(struct slub_tstats_diff_config *cfg);
/* "name=value": rate name (relative %), name.abs, name.min, z, count, for
 * all rates "all=PCT".  0, or -1 with a reason in err. */
int slub_tstats_diff_set(struct slub_tstats_diff_config *cfg, const char *assign, char *err,
			 size_t errlen);
/* Prints the table; returns the number of regressed figures. */
unsigned slub_tstats_diff(const struct slub_tstats_result *before,
			  const struct slub_tstats_result *after,
			  const struct slub_tstats_diff_config *cfg, FILE *f);
/* One figure's verdict as the table prints it: 0 n/a, 1 ok, 2 improved,
 * 3 regressed; why: the reason of n/a or "within noise", else "". */
int slub_tstats_diff_judge(const struct slub_tstats_diff_config *cfg, unsigned rate,
			   const struct slub_tstats_figure *before,
			   const struct slub_tstats_figure *after, int same_basis, const char **why);
/* The defaults as text, for --help. */
void slub_tstats_diff_print_defaults(FILE *f);

/* ---- while the events come ---- */

/* Storms closed so far (a storm is counted once, when it ends; finish
 * closes the open ones) in the caches of that name, summed over the
 * processes; usable before and after slub_tstats_finish().  Storms of
 * locks whose cache was never named count in the totals only. */
uint64_t slub_tstats_cache_storms(const struct slub_tstats *st, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* SLUB_TSTATS_H */
