/* SPDX-License-Identifier: MIT */
/*
 * Internal state of the trace statistics.  Every table is keyed by the
 * process image first (tstats_key(): the vpid and the model's image
 * number): slab addresses, cache ids, lock ids and cpu slots are only
 * unique within one process image.
 */
#ifndef SLUB_TSTATS_INTERNAL_H
#define SLUB_TSTATS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keypair.h"
#include "slub_tstats.h"

/* ---- a table of nodes keyed by two 64-bit integers ----
 * A GHashTable whose key is the node's own pair and whose value is the node:
 * the caller owns the nodes (htab_destroy's fn frees them).  The table is
 * made on the first insert; a zeroed struct htab is an empty table. */

struct hnode {
	union {
		struct slub_keypair key;
		struct {
			uint64_t k1, k2;
		};
	};
};

struct htab {
	GHashTable *t;
};

struct hnode *htab_find(const struct htab *h, uint64_t k1, uint64_t k2);
int htab_insert(struct htab *h, struct hnode *n);   /* 0 (GLib aborts without memory) */
void htab_remove(struct htab *h, struct hnode *n);
void htab_destroy(struct htab *h, void (*fn)(struct hnode *, void *), void *arg);
/* Visits every node; fn may not change the table. */
void htab_each(const struct htab *h, void (*fn)(struct hnode *, void *), void *arg);
/* Removes (and hands to fn, which may free it) every node pred accepts. */
void htab_remove_if(struct htab *h, bool (*pred)(struct hnode *, void *), void *arg);

/* ---- occupancy of a cache (or of all): counts now, and their record ---- */

struct tocc {
	struct slub_tstats_occupancy o;
	uint64_t slabs, partial, partial_free, capacity, live;
	uint64_t last_ts;
	uint8_t started;
};

/* ---- per process and cache id: one incarnation of a cache ---- */

struct tcache {
	struct hnode h;                 /* (process image, cache_id) */
	struct tcache *next_all;
	char *name;
	uint32_t vpid, cache_id;
	uint32_t object_size, size, align, order, objects, flags;
	uint32_t destroyed;             /* a cache_create of its id makes a new cache */
	/* raw counts; items derived at finish */
	uint64_t item[SLUB_TS_NR_ITEMS];
	uint64_t add_partial, remove_partial, freeze_acquire;
	uint64_t fail_site[SLUB_SITE_NR], fail_site_locked[SLUB_SITE_NR];
	uint64_t fail_site_kept[SLUB_SITE_NR], locked_frozen_frees;
	uint64_t cpu_fail_site[SLUB_SITE_NR], ops_site[SLUB_SITE_NR];
	uint64_t lock_wait_ns, lock_hold_ns;
	uint64_t lock_wait_short_ns, lock_hold_short_ns, lock_long_waits, lock_long_holds;
	uint64_t lock_saturated;        /* lock time sums that reached 2^64 - 1 */
	uint64_t lock_wait_hist[SLUB_TS_HIST_BUCKETS], lock_hold_hist[SLUB_TS_HIST_BUCKETS];
	struct slub_tstats_tail lock_wait_tail, lock_hold_tail;
	uint64_t allocs, frees, word_updates, deactivations, drain_updates, storms;
	uint64_t slabs, partial_slabs, full_slabs, cpu_slabs, inuse_words;
	/* slabinfo_walk: walks, slabs walked, the longest walk and its list */
	uint64_t walks, walked;
	uint32_t walked_max, walked_max_listed;
	/* holds of a list_lock that walked: count, most slabs, longest (ns) */
	uint64_t walk_holds, walk_hold_slabs_max, walk_hold_max_ns;
	struct tocc occ;
	/* the sheaves generation (sheaves.c): its items, and the counts the
	 * classic items of such a cache are derived from at finish */
	uint8_t sheaves;
	/* announced in a wire format before sheaf_alloc, sheaf_free and the
	 * other-node flag of sheaf_refill (7) */
	uint8_t sh_no_life;
	uint64_t sheaf_item[SLUB_TS_NR_SHEAF_ITEMS];
	uint64_t sh_free_remote, sh_flushes, sh_leftovers, sh_to_caller, sh_other_node;
	uint64_t sh_free_add_partial, sh_free_remove_partial;
};

/* Sheaves generation: a refill's sources of one slab address (a take of
 * the whole freelist: the objects it held; slab_new: TSTATS_SH_NEW) and
 * its sheaf_refill events (the objects kept), paired in order per thread:
 * a refill's source and its sheaf_refill are the same thread's, in its
 * program order, but the sheaf events are not held back as the slab's
 * are, so either may come first; and a thread that stalls between its
 * take and its sheaf_refill may see another take and refill of the slab
 * by another thread before its own.  Kept apart from struct tslab, by
 * address, since a sheaf_refill may come before the discard of the
 * slab's previous life; dropped when nothing waits.  Fewer kept than
 * taken is a leftover that __slab_free gives back.
 *
 * Only one side of a thread's queue waits at a time (the other side's
 * next event pairs with its oldest).  How many wait is not bounded by the
 * refill: the slab's sources wait as long as the model holds the slab's
 * events back, for an update whose thread was preempted between its CAS
 * and its event (up to the reorder window), while the same thread may
 * take and refill from the slab again and again, each sheaf_refill
 * arriving at once.  So the queues, and the threads per slab, grow as
 * needed: a value dropped would pair every later one of that thread and
 * slab (and of the address's next lives) with the wrong partner. */
#define TSTATS_SH_NEW     UINT32_MAX
struct tshqueue {
	uint32_t vtid;
	uint8_t src;                    /* what waits: sources (1) or kept counts */
	uint32_t n, cap;
	uint32_t *v;                    /* oldest first */
};
struct tshpair {
	struct hnode h;                 /* (process image, slab) */
	uint32_t nq, capq;
	struct tshqueue *q;
};

/* Sheaves generation: a slot's main and spare at its last sheaf_slot, and
 * the last sheaf its thread flushed since (barn_put_fail). */
struct tshslot {
	struct hnode h;                 /* (process image, cache_id << 32 | slot) */
	uint64_t main, spare, flushed;
};

/* ---- per slab: the last word, list, and the recent updates ---- */

struct tword_ev {                       /* one successful update, at ring[seq % lookback] */
	uint64_t ts;
	uint32_t seq, vtid;
	uint8_t type, site, valid;
};

enum { TLIST_NONE = 0, TLIST_PARTIAL, TLIST_FULL };

struct tslab {
	struct hnode h;                 /* (process image, slab) */
	struct tcache *cache;
	uint64_t freelist;
	uint32_t seq, inuse, objects, frozen;
	uint8_t word_valid, list;
	/* sheaves generation: taken off the partial list by sh_remover when
	 * it had made sh_takes_at takes of a freelist; its discard by that
	 * thread with no take in between is __slab_free's or shrink's */
	uint8_t sh_removed;
	uint32_t sh_remover;
	uint64_t sh_takes_at;
	/* deactivate_slab in progress: who, and whether remote frees were seen */
	uint32_t deact_vtid;
	uint8_t deact_remote, deact_open;
	uint64_t failures, first_fail_ts, last_fail_ts;
	uint32_t fail_by_site[SLUB_SITE_NR];
	struct tword_ev ring[];         /* the last lookback updates, by seq */
};

/* ---- per list_lock ---- */

#define THOLD_STALLED 4
struct thold {                          /* one long hold */
	uint64_t hold_ns, ts, lock_seq;
	uint32_t vpid, vtid, lock_id;
	char cache[48];
	char did[160];
	/* slabinfo_walk inside it: slabs walked of those listed */
	uint64_t walked, listed;
	/* the threads whose contended wait for the lock overlapped the hold
	 * (their lock_acquire comes after its release): stalled behind it */
	uint32_t nr_stalled, more_stalled;
	uint32_t stalled_vtid[THOLD_STALLED];
	uint64_t stalled_ns[THOLD_STALLED];  /* each one's whole wait */
};

#define TLOCK_TOP 3
struct tlock {
	struct hnode h;                 /* (process image, lock_id) */
	struct tlock *next_all;
	struct tcache *cache;
	uint32_t vpid, lock_id, node;
	uint32_t holder_vtid;           /* the last holder (the winner of a wait) */
	uint64_t acq, contended, wait_ns, hold_ns, max_wait_ns;
	uint64_t wait_hist[SLUB_TS_HIST_BUCKETS], hold_hist[SLUB_TS_HIST_BUCKETS];
	struct thold top[TLOCK_TOP];
	unsigned nr_top;
};

/* ---- per cpu slot's partial chain: its last change ---- */

struct tchain {
	struct hnode h;                 /* (process image, cache_id << 32 | slot) */
	uint64_t ts;
	uint32_t vtid, type;
};

/* ---- storms ---- */

/* How late a failure may come after later events: the model holds it
 * until the update it observed has applied (measured worst 39 ms).  A
 * quiet window is kept that long past its end before it is closed, which
 * is when `top` counts its storm. */
#define TSTATS_LATE_NS 100000000ull

struct tstorm {
	struct slub_tstats_storm s;
	struct tcache *cache;
	uint64_t site_count[SLUB_SITE_NR];
};

/* A failure (or a contended acquisition) as storms see it. */
struct tfail {
	uint64_t ts, object, wait_ns;
	struct tcache *cache;
	uint32_t vpid, vtid, site, attempt, locked;
	uint32_t kind;                  /* SLUB_STORM_SLAB, _CHAIN or _LOCK */
	uint32_t exp_seq, obs_seq;
	uint64_t key;                   /* its process image (tstats_key()) */
	uint32_t state;                 /* FAIL_* */
	uint32_t wvtid, wsite, wtype;
};

enum { FAIL_WON = 1, FAIL_UNTRACED, FAIL_UNKNOWN };

/* Window detection state of one object (slab, chain, lock). */
struct thot {
	struct hnode h;                 /* (kind << 56 | process image, object) */
	struct tstorm *storm;           /* the open window storm, or NULL */
	uint64_t last_ts;
	uint32_t n, pos;
	struct tfail ring[];            /* the last window_failures failures */
};

#define TTHREAD_HELD 4
struct theld {
	struct tlock *lock;
	uint64_t ts, lock_seq;
	uint64_t walked, listed;        /* slabinfo_walk under this hold */
	uint32_t sites;                 /* bit per site seen while holding */
	uint32_t did[SLUB_EV_NR];
};

struct tthread {
	struct hnode h;                 /* (vpid, vtid) */
	struct theld held[TTHREAD_HELD];
	unsigned nheld;
	/* a failed CAS made with list_lock held: is it retried with the lock
	 * still held (kept), or is the lock dropped first? */
	uint64_t kept_slab;
	uint32_t kept_site, kept_pending;
	/* the current run of failed attempts (released failures) */
	struct tstorm *run;
	uint64_t run_object;
	uint32_t run_kind, run_site, run_attempt, run_len;
	struct tfail *run_buf;          /* the first run_attempts failures of the run */
	/* the stack of this thread's last failed CAS */
	uint64_t stack_slab;
	uint32_t stack_type, stack_nr;
	uint64_t stack[SLUB_TSTATS_STACK_DEPTH];
	/* sheaves generation: the takes of a freelist it made, and the barn
	 * (cache_id << 8 | node, + 1) it just got a full sheaf from */
	uint64_t sh_takes, sh_got_full;
};

struct tpair {
	struct hnode h;                 /* (vpid, loser << 32 | winner) */
	uint64_t count, err;
	uint32_t idx;
};

struct ttop_slab {
	uint64_t slab, failures, first_ts, last_ts;
	uint32_t vpid, site;
	const char *cache;
};

/* ---- the whole computation ---- */

struct slub_tstats {
	struct slub_tstats_config cfg;
	struct htab caches, slabs, locks, chains, threads, hot, pairs;
	struct htab sh_pairs;           /* struct tshpair */
	struct htab sh_slots;           /* struct tshslot */
	struct tcache *cache_list;
	struct tlock *lock_list;
	struct slub_tstats_totals tot;
	uint64_t live_slabs;
	uint64_t events_since_sweep;
	int finished;
	int failed;                     /* slub_tstats_applied() ran out of memory */

	/* storms kept (largest) */
	struct tstorm **kept;
	unsigned nr_kept;

	/* long holds overall */
	struct thold *top_holds;
	unsigned nr_top_holds;

	/* top slabs by failures */
	struct ttop_slab *top_slabs;
	unsigned nr_top_slabs;

	/* thread pairs (space-saving: bounded, counts may overestimate by err) */
	struct tpair **pair_arr;
	unsigned nr_pairs, pair_cap;
	uint64_t pair_evicted;

	/* series */
	uint64_t series_t0, bin_ns;
	uint32_t nr_bins, bins_cap;
	uint64_t *bin_fail, *bin_cpu_fail, *bin_waits, *bin_wait_ns;

	slub_tstats_symbolize_fn symbolize;
	void *symbolize_arg;

	/* occupancy.c: its own slab, page and allocation-window tables */
	struct htab occ_slabs, occ_pages, occ_windows;
	struct tocc occ_all;

	/* views built at finish */
	struct slub_tstats_cache *views;
	unsigned nr_views;
};

/* The key of a process image: the vpid, and the model's image number
 * above it (the image changes at an exec). */
static inline uint64_t tstats_key(uint32_t vpid, uint32_t image)
{
	return (uint64_t)image << 32 | vpid;
}

static inline uint32_t tstats_key_vpid(uint64_t key)
{
	return (uint32_t)key;
}

/* core.c */
struct tcache *tstats_cache_of(struct slub_tstats *st, uint64_t key, uint32_t cache_id);
unsigned tstats_hist_bucket(uint64_t ns);
void tstats_series_add(struct slub_tstats *st, uint64_t ts, unsigned what, uint64_t v);
enum { SERIES_FAIL, SERIES_CPU_FAIL, SERIES_WAIT, SERIES_WAIT_NS };

void tstats_offer_slab(struct slub_tstats *st, struct tslab *s);

/* storms.c */
void storms_word_fail(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		      struct tcache *c, struct tslab *slab);
void storms_chain_fail(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		       struct tcache *c);
void storms_chain_event(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
			int32_t slot);
void storms_lock_wait(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		      struct tlock *l);
void storms_sweep(struct slub_tstats *st, uint64_t now, bool all);
void storms_finish(struct slub_tstats *st);
void storms_free(struct slub_tstats *st);

/* occupancy.c */
int occ_event(struct slub_tstats *st, const struct slub_model_event *e, struct tcache *c);
void occ_finish(struct slub_tstats *st);
void occ_view_add(struct slub_tstats_occupancy *v, const struct tcache *c);
void occ_free(struct slub_tstats *st);
void occ_json(FILE *f, const struct slub_tstats_occupancy *o);
void occ_text(FILE *f, const struct slub_tstats_occupancy *o, uint32_t objects);

/* rates.c: the tail figures of a scope from its histograms (json.c reads them) */
void tstats_tails_fill(struct slub_tstats_scope *sc);

/* text.c, json.c helpers */
unsigned tstats_top_pairs(const struct slub_tstats *st, const struct tpair **out, unsigned cap);
const char *tstats_site(unsigned site);
const char *tstats_event(unsigned type);

/* The slot a cpu-slab event acted upon (the acting cpu when not given). */
static inline int32_t tstats_ev_slot(const struct slub_event *ev)
{
	return ev->slot >= 0 ? ev->slot : ev->cpu;
}

/* sheaves.c: the sheaves generation's items (a cache with c->sheaves) */
void tstats_sheaves_event(struct slub_tstats *st, uint64_t key, struct tcache *c,
			  struct tthread *t, const struct slub_model_event *e, struct tslab *s);
void tstats_sheaves_pair_free(struct hnode *n, void *arg);
void tstats_sheaves_derive(const struct tcache *c, uint64_t *x, int have_objects);
/* what the events determine of such a cache: of item[], of sheaf_item[] */
#define TSTATS_SHEAVES_UNKNOWN (1ull << SLUB_TS_ALLOC_NODE_MISMATCH)
#define TSTATS_SHEAF_LIFE ((1ull << SLUB_TS_SHEAF_ALLOC) | (1ull << SLUB_TS_SHEAF_FREE))
#define TSTATS_SHEAF_KNOWN (((1ull << SLUB_TS_NR_SHEAF_ITEMS) - 1) & ~TSTATS_SHEAF_LIFE)
/* the first wire format with sheaf_alloc, sheaf_free and the other-node
 * flag (alloc_node_mismatch) */
#define TSTATS_FORMAT_SHEAF_LIFE 8

#endif /* SLUB_TSTATS_INTERNAL_H */
