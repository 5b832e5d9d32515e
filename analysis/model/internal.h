/* SPDX-License-Identifier: MIT */
/*
 * The state model's own header, shared by its files (outside
 * analysis/model only its unit tests include it: test_model for the
 * table's effects, test_reorder for the ordering engine):
 *
 *   model.c    the core: entity tables (process, slab, lock, slot, thread
 *              maps), discarded-events notices, records and reports, the
 *              public entry points (slub_model_event() dispatches one
 *              handler per event class)
 *   reorder.c  the ordering engine: a slab's events in seq order (pending
 *              lists, the wait queue, drain, give_up, expire)
 *   slab.c     transitions and the slab word (R0, R1, R2, R5, R9): model_apply()
 *              finds the edge, checks it, updates the state
 *   lock.c     locks and lists (R3, R4, R6, R7)
 *   object.c   objects (R8)
 *   table.c    the rules and the transition table, with each event type's
 *              resynchronisation effect
 *   sheaves.c  the sheaves generation: its slab table and word deltas, the
 *              sheaves and barns (the S rules)
 *
 * Entities live in hash tables keyed by (vpid << 32 | incarnation, id):
 * O(live slabs + locks + slots + threads + allocated objects).
 */
#ifndef SLUB_MODEL_INTERNAL_H
#define SLUB_MODEL_INTERNAL_H

#include <stdint.h>

#include "mem.h"
#include "slub_model.h"

#define KEY_LAST UINT64_MAX /* "after everything the slab has seen" */
#define NOTICES 64
#define LOCK_TOUCH 32
#define THREAD_HELD 4
#define THREAD_LRU 8
/* After lost events, a thread's next events may depend on lost ones (the
 * deactivate after a lost unfreeze, the release after a lost acquire): that
 * many of them only update the state. */
#define SUSPECT_EVENTS 64

struct pend {
	struct pend *next;
	int lenient;      /* its thread may have lost events just before it */
	uint64_t sort;    /* 2 * seq for a word event, 2 * seq + 1 after it */
	uint64_t order;   /* arrival number: ties keep arrival order */
	uint64_t arrival; /* model time when it arrived */
	struct slub_model_event e;
};

struct mslab {
	struct hnode h; /* k1 = process key, k2 = address */
	uint32_t vpid, cache_id;
	int32_t node, owner, last_owner;
	uint8_t state, list, list_known, have_seq;
	uint8_t born, pages, resync, waiting;
	uint8_t sheaves;	/* its cache runs the sheaves generation */
	/* 1: unfrozen to the partial list, add_partial due before the lock
	 * drops; 2: the lock (due_lock, acquisition due_seq) dropped first. */
	uint8_t list_due;
	uint32_t due_lock;
	uint64_t due_seq;
	uint64_t freelist;
	uint32_t inuse, objects, frozen, seq;
	uint32_t base_seq, skip_lo, skip_hi;
	uint64_t gen, last_ts, born_ts, born_gen;
	struct pend *pend, *pend_tail;
	uint32_t npend;
	struct mslab *wprev, *wnext;
	uint64_t wait_since;
	uint32_t hist_n, hist_head;
	struct slub_model_record hist[];
};

struct mproc {
	struct hnode h; /* k1 = vpid */
	uint32_t inc;
	uint64_t namehash;
	uint64_t obj_since; /* first object event, 0 = none yet */
	/* seen: this image has had an event.  from_start: its first one was
	 * the announcement of its caches, which the allocator emits once,
	 * before the first traced event of a process image (src/observer.c):
	 * the trace holds the image from its first traced event, so every
	 * cache it uses was announced or created in it.  Threads that run
	 * while the announcement is emitted may trace events before it ends:
	 * judged from a reorder window after it (from_ts) on. */
	uint8_t seen, from_start;
	uint64_t from_ts;
	/* registered at ts: its events up to ts + the reorder window are
	 * recorded, not judged (what LTTng did not record before may be
	 * logically before or after them) */
	uint64_t quarantine_until;
	uint8_t registered;	/* its lttng_ust_statedump:start came */
};

struct mcache {
	struct hnode h; /* k1 = process key, k2 = cache id */
	uint8_t destroyed;
	uint8_t known_generation, sheaves; /* cache_create said; SLUB_F_SHEAVES */
	uint32_t objects; /* per slab, from cache_create (0: not given) */
	char name[55];
};

struct mlock {
	struct hnode h; /* k1 = process key, k2 = lock id */
	uint64_t seq;
	uint32_t holder;
	uint8_t known, held, overflow;
	uint64_t gen, last_ts;
	uint32_t ntouched;
	uint64_t touched[LOCK_TOUCH];
};

struct mslot {
	struct hnode h; /* k1 = process key, k2 = cache id << 32 | slot */
	uint64_t active;
	uint32_t chain;
	uint8_t known;
	uint64_t gen, last_ts;
	uint64_t main, spare; /* the sheaves generation: the slot's sheaves */
};

/* A sheaf (k2 = its address) or a barn (k2 = BARN_KEY | cache << 8 | node)
 * of the sheaves generation (sheaves.c). */
struct msheaf {
	struct hnode h; /* k1 = process key */
	uint8_t place, known;
	int32_t slot;
	uint32_t cache_id;
	uint32_t size;		/* a sheaf's objects when known */
	uint32_t full, empty;	/* a barn's counts */
	uint64_t gen;
};

struct mthread {
	struct hnode h; /* k1 = vpid, k2 = vtid */
	uint32_t nheld;
	uint32_t held[THREAD_HELD];
	uint8_t known;
	int32_t flush_slot; /* a flush of another slot in progress, -1 none */
	uint32_t suspect;   /* events of this thread not judged: some of its
			     * events before them may have been lost */
	uint32_t flush_cache;
	uint64_t gen, last_ts;
	/* the seq of the thread's latest update (or list operation) per slab */
	struct {
		uint64_t slab;
		uint32_t seq;
	} lru[THREAD_LRU];
	uint32_t lru_i;
};

struct mobj {
	struct hnode h; /* k1 = process key, k2 = object address */
	uint64_t slab;
	uint32_t cache_id;
	uint64_t gen, ts; /* notices and time when it was allocated */
};

/* Findings held back at once, at most (more are reported at once). */
#define DEFERRED_FINDINGS 16

struct slub_model {
	struct slub_model_config cfg;
	struct slub_model_callbacks cb;
	struct mm_ctx mm;
	struct mm_pool p_slab, p_pend, p_lock, p_slot, p_thread, p_obj, p_cache, p_proc, p_sheaf;
	struct htab slabs, locks, slots, threads, objs, caches, procs, sheaves;
	uint64_t now, order;
	uint64_t disc_gen;
	/* After a discarded-events notice, events of the reorder window around
	 * it may be logically before or after the lost ones: until then the
	 * model only records, and forgets what it cannot trust. */
	uint64_t quarantine_until;
	/* the latest quarantine_until of a process (registrations) */
	uint64_t reg_quarantine_until;
	struct {
		uint64_t begin, end, gen;
	} notice[NOTICES];
	struct mslab *wq_head, *wq_tail;
	uint64_t npend;
	uint64_t seen;
	uint64_t applied_mask; /* types that reached a rule */
	uint64_t sheaves_caches; /* caches known to run the sheaves generation */
	struct slub_model_summary sum;
	int finished;
	/* The longest a waiting event waited for its predecessor to arrive
	 * (not for a gap to be given up): the CAS-to-event lag this input
	 * showed, for the edges of a cut input (reorder.c: cut_edge()). */
	uint64_t lag_max;
	int giving_up;
	/* the violation being reported */
	struct slub_model_record vrec;
	struct slub_model_record *vhist;
	char detail[512];
	/* Findings of processes that may still register (see model_report()),
	 * oldest first; dhist: history records of each, cfg.history apiece */
	struct mdeferred {
		uint32_t vpid, other;
		unsigned rule, nr_history;
		int has_slab;	/* a finding about slab r.slab */
		int stands;	/* its slab went with no hole in its chain */
		uint64_t k1;
		struct slub_model_record r;
		char detail[512];
	} deferred[DEFERRED_FINDINGS];
	unsigned ndeferred;
	struct slub_model_record *dhist;
	int registrations;	/* slub_model_registered() was called */
	/* a violation waiting for the stack of its event */
	int held;
	struct slub_model_violation hv;
	uint64_t hips[SLUB_MODEL_MAX_STACK];
};

/* ---- small helpers ---- */

static inline uint64_t pkey(uint32_t vpid, uint32_t inc)
{
	return (uint64_t)vpid << 32 | inc;
}

static inline int is_word_event(unsigned t)
{
	switch (t) {
	case SLUB_EV_SLAB_NEW:
	case SLUB_EV_FREEZE:
	case SLUB_EV_UNFREEZE:
	case SLUB_EV_TAKE_FREELIST:
	case SLUB_EV_FREE_REMOTE:
	case SLUB_EV_DRAIN_FREELIST:
		return 1;
	}
	return 0;
}

static inline int is_list_op(unsigned t)
{
	return t == SLUB_EV_ADD_PARTIAL || t == SLUB_EV_REMOVE_PARTIAL || t == SLUB_EV_ADD_FULL ||
	       t == SLUB_EV_REMOVE_FULL;
}

static inline int is_cpu_event(unsigned t)
{
	return t == SLUB_EV_CPU_SLAB_LOAD || t == SLUB_EV_DEACTIVATE ||
	       t == SLUB_EV_CPU_PARTIAL_PUT || t == SLUB_EV_CPU_PARTIAL_TAKE ||
	       t == SLUB_EV_CPU_PARTIAL_DRAIN;
}

/* The cpu slot an event acts upon (cpu slot events carry it apart from
 * the acting cpu: they differ when a thread flushes another slot). */
static inline int32_t ev_slot(const struct slub_event *ev)
{
	return ev->slot >= 0 ? ev->slot : ev->cpu;
}

static inline uint32_t lock_id_of(uint32_t cache_id, int32_t node)
{
	return cache_id * 64 + (uint32_t)node;
}

static inline uint64_t window_start(const struct slub_model *m, uint64_t ts)
{
	return ts > m->cfg.reorder_ns ? ts - m->cfg.reorder_ns : 0;
}

/* The queued copy of an unfreeze_partials unfreeze made inside a flush of
 * the slot it leaves (see slab_event() in model.c, owner_ok() in slab.c). */
#define UNFREEZE_IN_FLUSH 0x5f1u

/* ---- table.c: the transition table applied ---- */

/*
 * What an event says of a slab whatever state it was in: the effect of
 * the edges it can be, as data (table.c, one row per slab event type).
 * A slab seen without history (its first event, after lost events, after
 * an event no edge allows) is resynchronised by applying it in full
 * (baseline() in slab.c); on an edge of the table its owner part is
 * applied after the edge's own state and list.
 */
enum fx_state_kind {
	/* 0 .. SLUB_STATE_NR - 1: that state */
	FX_KEEP = SLUB_STATE_NR, /* state (or list) unchanged */
	FX_TAKES,	/* CPU_ACTIVE when it takes the freelist (slub_freeze_takes), else CPU_PARTIAL */
	FX_DEST,	/* the state the event's destination names (slub_dest_state) */
	FX_WORD,	/* unfrozen word: NODE_PARTIAL with a free object, else FULL; frozen: unchanged */
};

enum fx_owner {
	FX_OWNER_KEEP = 0,
	FX_OWNER_ACTOR,	/* the acting cpu takes the slab (slab_new, freeze) */
	FX_OWNER_HOLDER,/* the acting cpu holds it (checked on an edge, learnt on resync) */
	FX_OWNER_SLOT,	/* the slot acted upon holds it (adopted when it has none) */
	FX_OWNER_LEAVES,/* no owner after; the one it had is remembered for its deactivate */
};

enum fx_pages {
	FX_PAGES_KEEP = 0,
	FX_PAGES_NEW,	/* the slab gets pages */
	FX_PAGES_GONE,	/* its pages are given back */
};

struct slub_effect {
	uint8_t row;		/* 1: a slab event (others have no effect) */
	uint8_t state;		/* enum slub_state, or FX_KEEP/FX_TAKES/FX_DEST/FX_WORD */
	uint8_t owner;		/* enum fx_owner */
	uint8_t list;		/* enum slub_model_list, or FX_KEEP */
	uint8_t list_site;	/* the list is known only at this site (SLUB_SITE_NONE: any) */
	uint8_t pages;		/* enum fx_pages */
};

const struct slub_effect *slub_effect_of(unsigned type);
/* The state after the event by its effect, from `cur`. */
uint8_t slub_effect_state(const struct slub_effect *fx, const struct slub_event *ev, uint8_t cur);
/* acquire_slab's freeze: 1 takes the whole freelist, 0 leaves it, -1 not
 * that freeze.  The one place the TAKES condition is decided. */
int slub_freeze_takes(const struct slub_event *ev);
uint8_t slub_dest_state(unsigned dest, const struct slub_word *w);
/* The edge of the table this event takes from `before`, or NULL. */
const struct slub_transition *slub_find_edge(uint8_t before, const struct slub_event *ev);
/* The edge-matching of both tables (table.c). */
const struct slub_transition *slub_edge_in(const struct slub_transition *tab, unsigned n,
					   uint8_t before, const struct slub_event *ev, int takes);

/* ---- model.c: the core ---- */

int model_notice_covers(const struct slub_model *m, uint64_t gen, uint64_t from_ts);
int model_notice_since(const struct slub_model *m, uint64_t from_ts);
int model_quarantined(const struct slub_model *m, uint32_t vpid);
struct mslab *model_get_slab(struct slub_model *m, uint64_t k1, uint64_t addr, int create);
void model_free_slab(struct slub_model *m, struct mslab *s);
struct mlock *model_get_lock(struct slub_model *m, uint64_t k1, uint32_t id);
struct mslot *model_get_slot(struct slub_model *m, uint64_t k1, uint32_t cache_id, int32_t slot);
const char *model_cache_name(struct slub_model *m, uint64_t k1, uint32_t cache_id);
void model_lock_touch(struct slub_model *m, struct mlock *l, uint64_t ts);
void model_slot_touch(struct slub_model *m, struct mslot *c, uint64_t ts);
void model_make_record(struct slub_model_record *r, const struct slub_model_event *e);
void model_hist_push(struct slub_model *m, struct mslab *s, const struct slub_model_record *r);
/* Hands e to the applied callback (k1: its process image's key). */
void model_deliver(struct slub_model *m, const struct slub_model_event *e, uint64_t k1,
		   int dropped);
/* A failed CAS or an error, in its slab's history (it changes nothing). */
void model_failed_record(struct slub_model *m, struct mslab *s, const struct slub_model_event *e);
void model_report(struct slub_model *m, unsigned rule, const struct slub_model_record *r,
		  struct mslab *s, uint64_t k1, uint32_t other_vtid, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* ---- reorder.c: a slab's events in seq order ---- */

/* Order one slab event (key: its seq, or the seq it follows): apply it
 * now, or hold it until its predecessor came or the window passed. */
void model_slab_submit(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		       uint64_t key, int word, int lenient);
/* Stop waiting for the gaps the window (or the buffer bound) gave up. */
void model_expire(struct slub_model *m);
uint64_t model_cut_lag(const struct slub_model *m);
/* Stop waiting for the first gap of a waiting slab (finish: all of them). */
void model_give_up(struct slub_model *m, struct mslab *s);
/* Drop what the slab holds back (its process image went). */
void model_reorder_forget(struct slub_model *m, struct mslab *s);
void model_lru_note(struct mthread *t, uint64_t slab, uint32_t seq);
uint64_t model_lru_key(const struct mthread *t, uint64_t slab);

/* ---- slab.c: transitions and the slab word ---- */

void model_apply(struct slub_model *m, struct mslab *s, const struct slub_model_event *e, int late);
void model_slot_event(struct slub_model *m, uint64_t k1, struct mthread *t,
		      const struct slub_model_event *e, int lenient);

/* ---- lock.c: locks and lists ---- */

void model_lock_event(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
		      struct mthread *t, int lenient);
void model_lock_note_slab(struct mlock *l, uint64_t slab);
void model_list_op_arrival(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
			   struct mthread *t, int lenient);
void model_discard_arrival(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
			   int lenient);
int model_check_list_op(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
			const struct slub_model_record *r);
int model_check_discard(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
			const struct slub_model_record *r);
void model_report_leak(struct slub_model *m, struct mslab *s, const struct slub_model_record *r);

/* ---- sheaves.c: the sheaves generation ---- */

const struct slub_transition *slub_sheaves_find_edge(uint8_t before, const struct slub_event *ev);
const struct slub_effect *slub_sheaves_effect_of(unsigned type);
const char *slub_sheaves_word_delta(const struct slub_event *ev, uint32_t pi, uint64_t pfl);
/* Whether a slab of this event's cache runs the sheaves generation (cur:
 * what the slab knew). */
int slub_sheaves_slab(struct slub_model *m, uint64_t k1, const struct slub_event *ev, int cur);
void slub_sheaves_cache(struct slub_model *m, struct mcache *c, const struct slub_event *ev);
void sheaves_event(struct slub_model *m, uint64_t k1, struct mthread *t,
		   const struct slub_model_event *e);
const char *slub_sheaf_place_name(unsigned p);

/* ---- object.c ---- */

void model_object_event(struct slub_model *m, uint64_t k1, struct mproc *p,
			const struct slub_model_event *e);

#endif
