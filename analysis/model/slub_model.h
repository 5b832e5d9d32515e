/* SPDX-License-Identifier: MIT */
/*
 * slubtrace — the SLUB state model.
 *
 * A pure C library (it depends on include/slub/event.h only) that replays
 * struct slub_event streams against classic SLUB's state machine: one state
 * per slab (CPU_ACTIVE, CPU_PARTIAL, NODE_PARTIAL, FULL, DISCARDED, UNKNOWN),
 * one holder per list_lock, one active slab and one partial chain per cpu
 * slot.  The same code runs offline (fed by the Babeltrace2 plugin from a
 * CTF trace) and in-process (fed by the allocator's observer under
 * SLUBTRACE_CHECK): same input, same verdict.
 *
 * Ordering.  A tracepoint fires after its CAS, so events of one slab can
 * arrive out of timestamp order.  The model applies a slab's word events
 * in seq order and list operations in lock_seq order, holding early events
 * in a bounded reorder buffer (slub_model_config.reorder_ns / _events).
 * Every event then goes, in that order, to the `applied` callback: the
 * trace statistics are computed from it.
 *
 * Lost events.  After slub_model_discarded(), the model records without
 * judging until the reorder window around the loss has passed, then every
 * slab, lock and cpu slot resynchronises from its next event: a missing
 * event never produces a violation; gaps are counted instead.  A
 * trace that starts mid-run behaves the same way: a slab's first event is
 * its baseline.
 *
 * Identity.  A slab is (vpid, address); a lock is (vpid, lock_id); a cpu
 * slot is (vpid, cache_id, slot).  A new vpid (fork) starts with no state;
 * an exec (cache_create of a cache id already known in that vpid, or a new
 * procname) starts a new incarnation of the vpid.
 *
 * Memory.  State is O(live slabs + locks + cpu slots + threads), never
 * O(trace length).  All memory comes from slub_model_config.mem when set
 * (the in-process checker gives mmap-backed functions: it runs inside the
 * allocator and must never call malloc), else from malloc/free.
 *
 * Threads.  A struct slub_model is not thread-safe; callers serialise.
 * Callbacks run inside slub_model_event()/_discarded()/_finish() and must not
 * call back into the same model.
 */
#ifndef SLUB_MODEL_H
#define SLUB_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <slub/event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- states, lists ---- */

enum slub_state {
	SLUB_STATE_UNKNOWN = 0, /* not seen yet, or events may be missing */
	SLUB_STATE_CPU_ACTIVE,  /* frozen, a cpu slot's active slab */
	SLUB_STATE_CPU_PARTIAL, /* frozen, on a cpu slot's partial chain */
	SLUB_STATE_NODE_PARTIAL,/* unfrozen, on its node's partial list */
	SLUB_STATE_FULL,        /* unfrozen, no free object (full list when tracked) */
	SLUB_STATE_DISCARDED,   /* pages given back */
	SLUB_STATE_NR
};

enum slub_model_list {
	SLUB_LIST_NONE = 0,
	SLUB_LIST_PARTIAL,      /* node partial list (n->partial) */
	SLUB_LIST_FULL,         /* node full list (n->full, tracking on) */
	SLUB_LIST_CPU_PARTIAL,  /* a cpu slot's partial chain */
	SLUB_LIST_NR
};

const char *slub_state_name(unsigned state);
const char *slub_model_list_name(unsigned list);

/* ---- configuration ---- */

/* Memory for the model's own state.  alloc returns zeroed memory or NULL. */
struct slub_model_mem {
	void *(*alloc)(size_t size, void *arg);
	void (*free)(void *p, size_t size, void *arg);
	void *arg;
};

struct slub_model_callbacks;

struct slub_model_config {
	/* Reorder window: an event waits for its predecessor (seq) at most
	 * this long in trace time (an eighth of it when a discarded-events
	 * notice covers the gap) and while at most reorder_events events wait
	 * in total.  0 = default. */
	uint64_t reorder_ns;
	uint32_t reorder_events;
	/* Events of a slab kept for the violation report ("last N"). 0 = default. */
	uint32_t history;
	/* Stop reporting after this many violations (0 = never). */
	uint32_t max_violations;
	/* Types whose events are followed by a stack (bit 1 << type, e.g. from
	 * SLUBTRACE_STACKS): a violation on such an event waits for its stack
	 * (until that thread's next event).  Learnt from the stacks given too. */
	uint64_t stack_types;
	const struct slub_model_mem *mem;  /* NULL: malloc/free */
	/* The stream ends while its producers still run (the in-process
	 * checker at exit(): other threads may be between a CAS and its
	 * event): at finish, a seq gap younger than the reorder window is
	 * an update whose event never came, not a lost update.  0: every
	 * gap still open at finish is judged (a recorded trace). */
	uint32_t end_cut_off;
	/* The input is a window cut out of a longer run (a flight-recorder
	 * snapshot read from cut_begin_ns to cut_end_ns, where every stream
	 * is complete): an update made inside the window can have its event
	 * outside it, its thread preempted between the CAS and the event
	 * across an edge.  A slab's seq gap is then counted in
	 * summary.cut_gaps and not judged when the slab's events before the
	 * gap all lie within the lag after cut_begin_ns (its missing updates
	 * were traced before the window), or when it is still open at the
	 * end and the first event after it lies within the lag before
	 * cut_end_ns (traced after it).  The lag is cut_lag_ns, or when 0 the
	 * longest CAS-to-event delay this input showed (reorder_max_delay_ns)
	 * and at least SLUB_MODEL_DEFAULT_CUT_LAG_NS.  Other rules are judged
	 * as everywhere.  0, 0: not cut. */
	uint64_t cut_begin_ns, cut_end_ns, cut_lag_ns;
};

#define SLUB_MODEL_DEFAULT_REORDER_NS 1000000000ull /* 1 s: measured worst 39 ms */
#define SLUB_MODEL_DEFAULT_REORDER_EVENTS (1u << 18)
#define SLUB_MODEL_DEFAULT_HISTORY 8
/* the worst CAS-to-event delay measured on 2 cores under load (39 ms) */
#define SLUB_MODEL_DEFAULT_CUT_LAG_NS 50000000ull /* 50 ms */

/* ---- input ---- */

/*
 * One event.  `ev` is the normalized event (include/slub/event.h: cpu is
 * the acting slot, slot the slot acted upon); ev.tid is ignored in favour
 * of vtid.  old_valid: ev.old holds the true old word (the in-process
 * observer: always; a decoded trace: only for cmpxchg_fail).  When it is
 * not valid, rules use the new word and the seq chain.  Whatever
 * old_valid says, an unfreeze's ev.old.owner is read as the slot the slab
 * leaves when >= 0 (the decoder puts the wire's `owner` there, -1 if it
 * has none) and ev.new.seq of a list operation as the seq it saw.
 */
struct slub_model_event {
	struct slub_event ev;
	uint64_t ts;            /* ns, monotonic within a stream */
	uint32_t vpid;
	uint32_t vtid;
	uint64_t stream_id;
	uint32_t old_valid;
	const char *procname;   /* may be NULL; a change within one vpid = exec */
	uint32_t format;        /* cache_create read from a trace: the wire format it
				 * announced; 0 straight from the allocator (this
				 * build's events, all of them) */
};

/*
 * LTTng's discard mode lost events of one stream.  count 0 and
 * range_known 0 mean "unknown"; an unknown range covers everything up to
 * the notice.  foreign: the stream's class holds no slub event, only
 * LTTng-UST's own (record's statedump channel): no slub event was lost,
 * but a registration's lttng_ust_statedump:start may have been, so the
 * model stops judging over it as over any gap; it is counted apart.
 */
struct slub_model_discard {
	uint64_t stream_id;
	uint64_t count;         /* 0: unknown */
	uint64_t begin_ts, end_ts;
	uint32_t range_known;
	uint32_t foreign;
};

/* ---- output ---- */

/* One applied event as the timeline and the history show it. */
struct slub_model_record {
	uint64_t ts;
	uint64_t slab;
	uint64_t freelist;      /* new word (slab-word events, list ops) */
	uint64_t lock_seq;      /* lock events and list ops */
	uint64_t object;        /* alloc/free */
	uint32_t vpid, vtid;
	int32_t cpu;            /* acting cpu slot */
	int32_t slot;           /* slot acted upon (cpu-slab events), else -1 */
	uint32_t type;          /* enum slub_event_type */
	uint32_t site;          /* enum slub_site */
	uint32_t cache_id;
	int32_t node;
	uint8_t before, after;  /* enum slub_state */
	uint8_t list;           /* enum slub_model_list after the event */
	uint8_t dest;           /* ev.list: add_partial head|tail, deactivate dest */
	int32_t owner;          /* owner slot after the event, -1 none */
	uint32_t inuse, objects, frozen, seq;
	uint32_t reason;
	uint32_t stack_nr;      /* ips attached (0: none recorded) */
};

struct slub_model_violation {
	unsigned rule;          /* enum slub_rule */
	const char *rule_id;    /* stable id, e.g. "R5-word-chain" */
	const char *meaning;    /* one line */
	const char *kernel_fn;  /* the mm/slub.c function whose promise it is */
	const char *detail;     /* what was found, one line */
	uint64_t ts;
	uint64_t slab;          /* 0 for lock rules */
	uint32_t cache_id;
	const char *cache_name; /* NULL when the cache was never announced */
	uint32_t vpid;
	uint32_t vtid;          /* acting thread */
	uint32_t other_vtid;    /* the other party (lock holder, owner's thread), 0 none */
	const struct slub_model_record *event;   /* the offending event */
	const struct slub_model_record *history; /* the slab's previous events, oldest first */
	uint32_t nr_history;
	const uint64_t *stack;  /* the offending event's stack, NULL if none */
	uint32_t stack_nr;
};

struct slub_model_transition {
	const struct slub_model_record *rec;
	const char *cache_name; /* NULL when unknown */
};

struct slub_model_summary {
	uint64_t events;            /* given to slub_model_event() */
	uint64_t applied;           /* applied in order (others: stale/dropped) */
	uint64_t slabs;             /* distinct slab incarnations seen */
	uint64_t violations;
	uint64_t violations_by_rule[32];
	uint64_t gaps;              /* discarded-events notices */
	uint64_t events_discarded;  /* sum of known counts (slub streams) */
	uint64_t foreign_discarded; /* the same in streams without slub events */
	uint64_t slabs_resynced;    /* slabs rebased on a later event after a gap */
	uint64_t locks_resynced;
	uint64_t reorder_exceeded;  /* times an event waited past the window */
	uint64_t reorder_max_pending;
	uint64_t reorder_max_delay_ns; /* largest inversion of ts vs seq order seen */
	uint64_t skipped_rules;     /* bit (1 << rule): not checkable, events missing */
	uint64_t live_slabs, peak_slabs;
	uint64_t mem_bytes, peak_mem_bytes;
	/* seq gaps at the edges of a cut input, not judged (cut_begin_ns) */
	uint64_t cut_gaps;
	uint64_t cut_lag_ns;        /* the lag they were measured with */
};

/*
 * An event as the model orders it, for a consumer that wants the model's
 * order and identities (the trace statistics).  Every event given to
 * slub_model_event() comes out once: a slab's events (word updates, list
 * and cpu-slot operations, slab_discard, and a failed slab-word CAS right
 * after the update it observed) in the slab's order when they apply; every
 * other event as it arrives.
 */
struct slub_model_applied {
	const struct slub_model_event *e;
	uint32_t image;         /* the process image of e->vpid: 0, then +1 at each exec */
	/* 1: not applied (an update whose seq the slab had passed, a slab at
	 * address 0, or one whose process image went while it waited) */
	uint32_t dropped;
};

struct slub_model_callbacks {
	/* Each violation, when it is found.  May be NULL. */
	void (*violation)(const struct slub_model_violation *v, void *arg);
	/* Each applied event that concerns a slab (word, cpu, list events),
	 * in the order the model applies them.  NULL: no timeline work. */
	void (*transition)(const struct slub_model_transition *t, void *arg);
	/* Once, from slub_model_finish(). */
	void (*summary)(const struct slub_model_summary *s, void *arg);
	void *arg;
	/* Each event in the model's order (struct slub_model_applied).  May
	 * be NULL. */
	void (*applied)(const struct slub_model_applied *a, void *arg);
};

/* ---- the model ---- */

struct slub_model;

/* NULL on allocation failure.  cfg and cb may be NULL (defaults, no output). */
struct slub_model *slub_model_new(const struct slub_model_config *cfg,
				  const struct slub_model_callbacks *cb);
/* Returns 0, or -1 when memory ran out (the event is counted, not applied). */
int slub_model_event(struct slub_model *m, const struct slub_model_event *e);
/* A stack for the last event of (vpid, vtid) with that type (at most
 * SLUB_MODEL_MAX_STACK ips are kept). */
#define SLUB_MODEL_MAX_STACK 64
void slub_model_stack(struct slub_model *m, uint32_t vpid, uint32_t vtid, unsigned type,
		      uint64_t slab, const uint64_t *ips, uint32_t nr);
void slub_model_discarded(struct slub_model *m, const struct slub_model_discard *d);
/*
 * Process vpid registered with the LTTng session daemon at ts (its
 * lttng_ust_statedump:start).  LTTng-UST records nothing of a forked child
 * between its fork() and this registration, without any discarded-events
 * record; when the process already has events, everything up to ts is
 * treated as a possible loss (resynchronised, never judged), but not
 * counted as a gap.  A process with no events yet is left alone.
 */
void slub_model_registered(struct slub_model *m, uint32_t vpid, uint64_t ts);
/* Drains the reorder buffer, runs end-of-trace rules, calls summary. */
void slub_model_finish(struct slub_model *m);
/* Current figures (also valid before finish). */
void slub_model_get_summary(const struct slub_model *m, struct slub_model_summary *s);
void slub_model_free(struct slub_model *m);

/* ---- rules: stable ids, one-line meanings, kernel functions ---- */

enum slub_rule {
	SLUB_RULE_TRANSITION = 0,  /* R0-transition: edge not in the table */
	SLUB_RULE_FROZEN_STATE,    /* R1-frozen-state */
	SLUB_RULE_OWNER,           /* R1-owner */
	SLUB_RULE_FREEZE,          /* R2-freeze-unfrozen */
	SLUB_RULE_UNFREEZE,        /* R2-unfreeze-frozen */
	SLUB_RULE_LIST_UNLOCKED,   /* R3-list-unlocked */
	SLUB_RULE_LIST_ONE,        /* R3-list-one */
	SLUB_RULE_LIST_REMOVE,     /* R3-list-remove */
	SLUB_RULE_LIST_AT_UNLOCK,  /* R4-list-at-unlock */
	SLUB_RULE_WORD_CHAIN,      /* R5-word-chain (lost update) */
	SLUB_RULE_WORD_OBJECTS,    /* R5-word-objects */
	SLUB_RULE_WORD_DELTA,      /* R5-word-delta */
	SLUB_RULE_DISCARD,         /* R6-discard */
	SLUB_RULE_LOCK_HOLDER,     /* R7-lock-holder */
	SLUB_RULE_LOCK_RECURSIVE,  /* R7-lock-recursive */
	SLUB_RULE_LOCK_ORDER,      /* R7-lock-order */
	SLUB_RULE_LOCK_SEQ,        /* R7-lock-seq */
	SLUB_RULE_DOUBLE_FREE,     /* R8-double-free */
	SLUB_RULE_DOUBLE_ALLOC,    /* R8-double-alloc */
	SLUB_RULE_OBJECT_SLAB,     /* R8-object-slab */
	SLUB_RULE_CPU_SLAB,        /* R9-cpu-slab */
	/* the sheaves generation (SLUB_F_SHEAVES caches): family 10, "S" */
	SLUB_RULE_S_TRANSITION,    /* S0-transition: edge not in the sheaves table */
	SLUB_RULE_S_NEVER_FROZEN,  /* S1-never-frozen */
	SLUB_RULE_S_TAKE_OFF_LIST, /* S2-take-off-list */
	SLUB_RULE_S_WORD_DELTA,    /* S3-word-delta */
	SLUB_RULE_S_SHEAF_PLACE,   /* S4-sheaf-place */
	SLUB_RULE_S_SHEAF_COUNT,   /* S5-sheaf-count */
	SLUB_RULE_S_FLUSH_WHOLE,   /* S6-flush-whole */
	SLUB_RULE_S_REFILL,        /* S7-refill */
	SLUB_RULE_S_BARN_COUNT,    /* S8-barn-count */
	SLUB_RULE_NR
};

/* Which generation a rule judges: classic only, sheaves only, or both. */
enum slub_rule_generation {
	SLUB_RULE_GEN_CLASSIC = 0,
	SLUB_RULE_GEN_SHEAVES,
	SLUB_RULE_GEN_BOTH,
};

unsigned slub_rule_count(void);
const char *slub_rule_id(unsigned rule);        /* "R5-word-chain" */
const char *slub_rule_meaning(unsigned rule);
const char *slub_rule_kernel_fn(unsigned rule);
unsigned slub_rule_family(unsigned rule);       /* 0..9, the numbering of doc/design.md;
						 * 10: the sheaves generation's S rules */
unsigned slub_rule_generation(unsigned rule);   /* enum slub_rule_generation */
/* rule index from an id (or its suffix after "Rn-"); -1 if none */
int slub_rule_lookup(const char *id);

/* ---- the transition table ---- */

/* Conditions of an edge (bits of slub_transition.cond). */
#define SLUB_COND_OWNER   0x1u  /* the acting cpu (or slot) is the slab's owner */
#define SLUB_COND_LOCKED  0x2u  /* the acting thread holds the node's list_lock */
#define SLUB_COND_ON_LIST 0x4u  /* the slab is on the list the edge names */
#define SLUB_COND_EMPTY   0x8u  /* inuse == 0 */
#define SLUB_COND_FLUSH   0x10u /* another slot's flush (reason flush) may act */
#define SLUB_COND_TAKES   0x20u /* the update takes the whole freelist (new freelist 0) */
#define SLUB_COND_DEST    0x40u /* the event's destination (ev.list) names `after` */
#define SLUB_COND_OFF_LIST 0x80u /* sheaves: the slab is on no list (a refill took it off) */

struct slub_transition {
	uint8_t before;         /* enum slub_state */
	uint8_t type;           /* enum slub_event_type */
	uint8_t site;           /* enum slub_site, SLUB_SITE_NONE = any */
	uint8_t after;          /* enum slub_state */
	uint8_t list;           /* enum slub_model_list the slab is on after */
	uint8_t cond;           /* SLUB_COND_* */
	const char *kernel_fn;
	const char *note;       /* one line: when this edge is taken */
};

unsigned slub_transition_count(void);
const struct slub_transition *slub_transition_get(unsigned i);
/* The sheaves generation's table (analysis/model/sheaves.c): its slabs are
 * never frozen, so they are only UNKNOWN, NODE_PARTIAL, FULL, DISCARDED. */
unsigned slub_sheaves_transition_count(void);
const struct slub_transition *slub_sheaves_transition_get(unsigned i);
/* Bits of SLUB_COND_* as text ("owner,locked"), into buf; returns buf. */
const char *slub_cond_str(unsigned cond, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* SLUB_MODEL_H */
