/* SPDX-License-Identifier: MIT */
/*
 * slubtrace — the normalized transition event.
 *
 * Every slab state transition of the allocator produces exactly one
 * struct slub_event.  The same struct feeds the in-process observer
 * (slub_set_observer()), the LTTng-UST tracepoints (tracepoints/) and,
 * decoded back from CTF, the offline checker.  Field meanings are fixed
 * here once; every producer and consumer follows this page.
 */
#ifndef SLUB_EVENT_H
#define SLUB_EVENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Event types.  Names are the LTTng event names without the "slub:" prefix. */
enum slub_event_type {
	SLUB_EV_CACHE_CREATE = 0,  /* info: a cache was created */
	SLUB_EV_CACHE_DESTROY,     /* count: objects still in use (kept) */
	SLUB_EV_SLAB_NEW,          /* new_slab: pages from the page layer; new = first word */
	SLUB_EV_SLAB_DISCARD,      /* discard_slab: pages back; old = last word */

	/* Slab-word updates: one per successful slab_update(); old -> new. */
	SLUB_EV_FREEZE,            /* frozen 0 -> 1 (acquire_slab, __slab_free) */
	SLUB_EV_UNFREEZE,          /* frozen 1 -> 0 (deactivate_slab, unfreeze_partials, get_freelist) */
	SLUB_EV_TAKE_FREELIST,     /* owner takes the whole freelist, stays frozen (get_freelist) */
	SLUB_EV_FREE_REMOTE,       /* __slab_free pushed objects, frozen unchanged */
	SLUB_EV_DRAIN_FREELIST,    /* per-object deactivate drain, stays frozen */

	SLUB_EV_CPU_SLAB_LOAD,     /* a cpu's active slab becomes `slab` */
	SLUB_EV_DEACTIVATE,        /* a cpu drops its active slab: reason, count = cpu freelist objects */
	SLUB_EV_CPU_PARTIAL_PUT,   /* slab pushed on cpu partial chain: count = pobjects, pages */
	SLUB_EV_CPU_PARTIAL_TAKE,  /* slab popped from the chain to become the cpu slab */
	SLUB_EV_CPU_PARTIAL_DRAIN, /* the whole chain is being unfrozen: count = slabs on it */

	SLUB_EV_ADD_PARTIAL,       /* list = head|tail; under list_lock */
	SLUB_EV_REMOVE_PARTIAL,
	SLUB_EV_ADD_FULL,
	SLUB_EV_REMOVE_FULL,

	SLUB_EV_CMPXCHG_FAIL,      /* slab word CAS failed: old = expected, new = observed */
	SLUB_EV_CPU_CMPXCHG_FAIL,  /* cpu partial chain CAS failed in put_cpu_partial */

	SLUB_EV_LOCK_ACQUIRE,      /* list_lock taken: lock_seq, wait_ns, contended */
	SLUB_EV_LOCK_RELEASE,      /* list_lock dropped: lock_seq, hold_ns */

	SLUB_EV_THREAD_FLUSH,      /* a thread's cpu slots flushed (exit, fork adoption): once per flush */

	SLUB_EV_ALLOC,             /* per object (debug level): object, size */
	SLUB_EV_FREE,

	SLUB_EV_ERROR,             /* corruption or misuse: reason, object, msg */

	SLUB_EV_SLABINFO_WALK,     /* slabinfo's count_partial walk, inside its list_lock hold:
				    * count = slabs walked, pages = slabs listed, size = free
				    * objects counted; changes no slab */

	/* The sheaves generation (SLUB_F_SHEAVES caches): sheaves and barns. */
	SLUB_EV_SHEAF_REFILL,      /* count objects of slab into sheaf (0: to the caller) */
	SLUB_EV_SHEAF_FLUSH,       /* count objects of sheaf back to slab (__slab_free) */
	SLUB_EV_SHEAF_SLOT,        /* slot's main and spare after a change: sheaf, spare */
	SLUB_EV_BARN_PUT,          /* sheaf into the node's barn: barn_full, barn_empty after */
	SLUB_EV_BARN_GET,          /* sheaf out of the node's barn: barn_full, barn_empty after */
	SLUB_EV_SHEAF_ALLOC,       /* an empty sheaf made (alloc_empty_sheaf): sheaf */
	SLUB_EV_SHEAF_FREE,        /* an empty sheaf freed (free_empty_sheaf): sheaf */

	SLUB_EV_NR
};

/*
 * Call sites.  Slab-word events and cmpxchg_fail name the code path with the
 * same strings mm/slub.c passes to cmpxchg_double_slab().
 */
enum slub_site {
	SLUB_SITE_NONE = 0,
	SLUB_SITE_ACQUIRE_SLAB,        /* "acquire_slab" */
	SLUB_SITE_GET_FREELIST,        /* "get_freelist" */
	SLUB_SITE_UNFREEZING_SLAB,     /* "unfreezing slab" (deactivate_slab) */
	SLUB_SITE_UNFREEZE_PARTIALS,   /* "unfreeze_partials" (the kernel's string there is
					* "unfreezing slab" too; one name per site here) */
	SLUB_SITE_DRAIN_PERCPU,        /* "drain percpu freelist" */
	SLUB_SITE_SLAB_FREE,           /* "__slab_free" */
	SLUB_SITE_PUT_CPU_PARTIAL,     /* cpu chain CAS in put_cpu_partial */
	SLUB_SITE_NEW_SLAB,            /* "new_slab" */
	SLUB_SITE_CPU_PARTIAL_TAKE,    /* cpu chain CAS popping a slab to load it */
	SLUB_SITE_NR
};

/* Why a cpu slab was deactivated (SLUB_EV_DEACTIVATE.reason), or why a
 * cpu partial chain was drained (SLUB_EV_CPU_PARTIAL_DRAIN.reason: FLUSH or
 * CPU_PARTIAL_LIMIT). */
enum slub_deactivate_reason {
	SLUB_DEACT_EMPTY_FREELIST = 0, /* cpu freelist and slab freelist exhausted */
	SLUB_DEACT_NODE_MISMATCH,      /* alloc asked for another node */
	SLUB_DEACT_FLUSH,              /* thread exit, shrink, validate, fork */
	SLUB_DEACT_DEBUG,              /* debug caches deactivate after every alloc */
	SLUB_DEACT_CPU_PARTIAL_LIMIT,  /* cpu_partial_drain: the chain passed cpu_partial */
	SLUB_DEACT_NR
};

/* Where a deactivated or unfrozen slab went (SLUB_EV_DEACTIVATE.list). */
enum slub_slab_dest {
	SLUB_DEST_NONE = 0,   /* still frozen / not decided */
	SLUB_DEST_HEAD,       /* node partial list, head */
	SLUB_DEST_TAIL,       /* node partial list, tail */
	SLUB_DEST_FULL,       /* full (on the full list when tracking) */
	SLUB_DEST_DISCARD,    /* empty, discarded */
	SLUB_DEST_NR
};

/* SLUB_EV_BARN_PUT / SLUB_EV_BARN_GET.reason: the barn list. */
enum slub_barn_list {
	SLUB_BARN_EMPTY = 0,  /* barn->sheaves_empty */
	SLUB_BARN_FULL,       /* barn->sheaves_full */
	SLUB_BARN_NR
};

/* SLUB_EV_ERROR.reason */
enum slub_error_kind {
	SLUB_ERR_DOUBLE_FREE = 0,     /* "Object already free" */
	SLUB_ERR_FOREIGN_POINTER,     /* not from any slubtrace cache or page */
	SLUB_ERR_WRONG_CACHE,         /* "Wrong slab cache" */
	SLUB_ERR_NOT_OBJECT_START,    /* "Invalid object pointer" (interior pointer) */
	SLUB_ERR_FREEPOINTER,         /* "Freepointer corrupt" */
	SLUB_ERR_REDZONE,             /* "Redzone overwritten" */
	SLUB_ERR_POISON,              /* "Poison overwritten" */
	SLUB_ERR_COUNTS,              /* validate: counts or chain wrong */
	SLUB_ERR_LIST,                /* validate: slab on wrong list */
	SLUB_ERR_NR
};

/* slub_word.owner values that are not a cpu slot id. */
#define SLUB_NO_OWNER -1      /* unfrozen: no cpu owns the slab */
#define SLUB_OWNER_UNKNOWN -2  /* frozen, but the acting thread cannot know by whom */

/*
 * One view of a slab word (freelist + counters) plus its owner.
 *
 * freelist, inuse, objects, frozen and seq are the word exactly as it was
 * in memory (read or written atomically).  owner is what the acting thread
 * knows about the cpu slot owning the slab, per event type:
 *   slab_new          new.owner = the slot the new slab is loaded to
 *   freeze            old.owner = -1, new.owner = the slot freezing it (= cpu)
 *   unfreeze          old.owner = the slot the slab leaves (its owner until
 *                     this update; = cpu unless a thread flushes another
 *                     slot), new.owner = -1
 *   take_freelist,    old.owner = new.owner = the owning slot
 *   drain_freelist
 *   free_remote       the freeing thread cannot read the owner atomically
 *                     with the word: SLUB_OWNER_UNKNOWN when frozen, -1 when
 *                     unfrozen (both words)
 *   slab_discard      -1
 *   list operations   old = new = the word the acting thread saw under the
 *                     list_lock, owner true (a listed slab's frozen state
 *                     cannot change while the lock is held)
 *   cmpxchg_fail      SLUB_OWNER_UNKNOWN in both words (not meaningful)
 *   cpu slot events   old = new = a snapshot read after the change:
 *                     SLUB_OWNER_UNKNOWN when frozen, -1 when unfrozen
 * A frozen slab always has an owner: the owner clears slab->owner only with
 * a CAS from its own id, so a racing freeze by another slot is never undone.
 */
struct slub_word {
	uint64_t freelist;  /* address of the first free object, 0 if none */
	uint32_t inuse;     /* objects not on the slab freelist */
	uint32_t objects;   /* objects in the slab; never changes */
	uint32_t frozen;    /* 1 while CPU_ACTIVE or CPU_PARTIAL */
	int32_t owner;      /* see above */
	uint32_t seq;       /* modification seq: +1 per successful update */
};

struct slub_cache_info {
	const char *name;
	uint32_t object_size;  /* what the user asked for */
	uint32_t size;         /* object plus metadata, stride in the slab */
	uint32_t align;
	uint32_t order;        /* slab = 4096 << order bytes */
	uint32_t objects;      /* per slab */
	uint32_t min_partial;
	uint32_t cpu_partial;  /* objects on a cpu partial chain before drain */
	uint32_t flags;        /* SLUB_F_* */
};

/*
 * The event.  Fields not meaningful for a type are zero (slot: -1).
 *
 *  type      enum slub_event_type
 *  site      enum slub_site: slab-word events, cmpxchg_fail, cpu_cmpxchg_fail
 *  cache_id  every event but thread_flush (0 there: it covers every cache)
 *  cpu       the ACTING cpu slot: the slot id of the thread that runs the
 *            code emitting the event, in every event (-1 for a thread that
 *            has none, e.g. cache_create before its first allocation)
 *  slot      cpu_slab_load, deactivate, cpu_partial_put, cpu_partial_take,
 *            cpu_partial_drain, thread_flush, sheaf_slot: the cpu slot acted upon.
 *            Equals cpu except when a thread flushes another slot (shrink,
 *            validate, cache destroy, adoption of a forked-away thread's
 *            slots in a child).  -1 for every other type.
 *  node      the slab's node (lock events: the lock's node; else the
 *            acting slot's node)
 *  tid       the acting thread's kernel tid
 *  slab      slab address (its first byte)
 *  old, new  struct slub_word above: slab-word updates old -> new (exact
 *            words); slab_new: new = the first word, old = the address's
 *            previous last word; slab_discard: old = new = the last word;
 *            cmpxchg_fail: old = expected, new = observed (exact words as
 *            the CAS compared them); list operations: new (= old) = the
 *            word seen at the list operation, so new.seq orders the
 *            operation against the slab's chain
 *  attempt   cmpxchg_fail, cpu_cmpxchg_fail: 1 for the first failure of
 *            one operation
 *  locked    the acting thread holds the slab's node list_lock
 *  list      add_partial: head|tail; unfreeze, deactivate: destination
 *            (enum slub_slab_dest)
 *  reason    deactivate, cpu_partial_drain: slub_deactivate_reason;
 *            error: slub_error_kind; cache_create: 0 created now,
 *            1 announced (created before tracing)
 *  lock_id   lock and list events, slabinfo_walk: cache_id * 64 + node
 *  contended lock_acquire: the lock was busy
 *  lock_seq  lock events: acquisition number of that lock; list ops and
 *            slabinfo_walk: the acquisition under which they ran
 *  wait_ns   lock_acquire; hold_ns: lock_release
 *  object, size  alloc, free, error; size of slabinfo_walk: the free
 *            objects the walk counted (extrapolated when pages > count);
 *            object of an announced cache_create (trace only): the flag the
 *            probe sets when a session records it
 *  count     deactivate: cpu freelist objects returned; cpu_partial_put:
 *            pobjects on the chain; cpu_partial_drain: slabs on the chain;
 *            cache_destroy: objects still in use; sheaf_refill, sheaf_flush:
 *            objects moved; thread_flush: slots that
 *            held a slab; slab_new: objects; slabinfo_walk: partial slabs
 *            walked (read) under the hold
 *  sheaf     sheaf events: the sheaf (its address); sheaf_slot: the main
 *            sheaf (0: none); sheaf_refill: 0 when the objects went
 *            straight to the caller (no sheaf)
 *  spare     sheaf_slot: the spare sheaf (0: none)
 *  sheaf_size  sheaf events: objects in `sheaf` after the event
 *            (sheaf_slot: in main; spare_size: in the spare)
 *  barn_full, barn_empty  barn_put, barn_get: the barn's counts of full
 *            and empty sheaves after the event (reason: the list,
 *            enum slub_barn_list)
 *  pages     cpu_partial_put: slabs on the chain after the put;
 *            cpu_partial_drain: slabs on the chain; slab_new,
 *            slab_discard: pages of the slab; slabinfo_walk: slabs on the
 *            node partial list (fewer walked: the rest was extrapolated)
 */
struct slub_event {
	uint32_t type;      /* enum slub_event_type */
	uint32_t site;      /* enum slub_site */
	uint32_t cache_id;
	int32_t cpu;        /* acting slot */
	int32_t node;
	int32_t slot;       /* cpu slab, cpu partial and thread_flush events:
			     * the cpu slot acted upon; -1 elsewhere */
	uint32_t tid;
	uint64_t slab;
	struct slub_word old;
	struct slub_word new;
	uint32_t attempt;
	uint32_t locked;
	uint32_t list;
	uint32_t reason;
	uint32_t lock_id;   /* cache_id * 64 + node */
	uint32_t contended;
	uint64_t lock_seq;
	uint64_t wait_ns;
	uint64_t hold_ns;
	uint64_t object;
	uint64_t size;
	uint32_t count;
	uint32_t pages;
	const struct slub_cache_info *info; /* cache_create */
	const char *msg;                    /* error: slub_error_name(reason) */
	/* sheaf and barn events (the sheaves generation) */
	uint64_t sheaf;
	uint64_t spare;
	uint32_t sheaf_size;
	uint32_t spare_size;
	uint32_t barn_full;
	uint32_t barn_empty;
};

/* Names, for printers and the CTF decoder (same strings as the trace). */
const char *slub_event_name(unsigned type);
const char *slub_site_name(unsigned site);
const char *slub_dest_name(unsigned dest);
const char *slub_deactivate_reason_name(unsigned reason);
const char *slub_error_name(unsigned kind);

/*
 * An event list as SLUBTRACE_STACKS and `slubtrace record --stacks` take it:
 * event names, each maybe written "slub:NAME", and "all" and "none",
 * separated by commas or spaces.  *types gets the bit 1 << type of every
 * event named ("none" adds nothing).  Returns 0, or -1 when a word names no
 * event: *bad and *bad_len then give the first such word, and the words
 * known still count.  It does not allocate: the allocator parses the list
 * inside its first malloc.
 */
int slub_event_list_parse(const char *list, uint64_t *types, const char **bad, size_t *bad_len);

#ifdef __cplusplus
}
#endif
#endif /* SLUB_EVENT_H */
