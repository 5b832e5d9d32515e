/* SPDX-License-Identifier: MIT */
/*
 * slubtrace — a userspace reproduction of classic Linux SLUB: frozen cpu slabs
 * and cpu partial chains, as from 3.5 to 6.7 (README: "Kernel versions").
 *
 * Public API.  Every function is thread-safe.  Errors: functions returning
 * pointers return NULL and set errno (EINVAL for bad arguments, ENOMEM when
 * the page layer cannot map memory); slub_free()/slub_cache_free() keep errno.
 */
#ifndef SLUB_SLUB_H
#define SLUB_SLUB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <slub/event.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SLUB_BUILDING) || defined(SLUB_STATIC)
#define SLUB_API __attribute__((visibility("default")))
#else
#define SLUB_API
#endif

struct slub_cache;

/* Cache flags.  The debug letters follow the kernel's slub_debug= letters. */
#define SLUB_F_CONSISTENCY    (1u << 0) /* F: sanity checks on alloc/free */
#define SLUB_F_RED_ZONE       (1u << 1) /* Z: red zones around objects */
#define SLUB_F_POISON         (1u << 2) /* P: poison free objects */
#define SLUB_F_STORE_USER     (1u << 3) /* U: alloc/free owner tracking */
#define SLUB_F_TRACK_FULL     (1u << 4) /* keep full slabs on the node full list */
#define SLUB_F_NO_CPU_PARTIAL (1u << 5) /* no per-cpu partial chains */
#define SLUB_F_HWCACHE_ALIGN  (1u << 6) /* align objects to the cache line */
/* The sheaves generation (Linux 7.0) for this cache, whatever
 * SLUBTRACE_GENERATION says.  Set in a cache's flags (slub_cache_info, the
 * trace's cache_create) when the cache runs sheaves; a debug cache has
 * none, as in 7.0, and runs the classic paths without it.  Refused
 * (ENOTSUP) under SLUBTRACE_CHECK, whose state model has no rules for it. */
#define SLUB_F_SHEAVES        (1u << 7)
#define SLUB_F_DEBUG_MASK \
	(SLUB_F_CONSISTENCY | SLUB_F_RED_ZONE | SLUB_F_POISON | SLUB_F_STORE_USER)

/* Largest size served by the kmalloc caches; larger goes to the page layer. */
#define SLUB_KMALLOC_MAX_CACHE_SIZE 8192u
#define SLUB_MAX_NODES 8

/* ---- caches ---- */
SLUB_API struct slub_cache *slub_cache_create(const char *name, size_t size,
					      size_t align, unsigned flags,
					      void (*ctor)(void *));
SLUB_API void *slub_cache_alloc(struct slub_cache *s);
/* Allocate from a slab of `node` (kmalloc_node); node -1 means any. */
SLUB_API void *slub_cache_alloc_node(struct slub_cache *s, int node);
/* kmem_cache_zalloc(): an object whose object_size bytes are zero, the
 * __GFP_ZERO of a cache allocation.  A cache with a constructor is refused
 * (EINVAL): zeroing would undo the constructor's work. */
SLUB_API void *slub_cache_zalloc(struct slub_cache *s);
SLUB_API void slub_cache_free(struct slub_cache *s, void *obj);
/* Flush this thread's cpu slot and every parked cpu partial chain, discard
 * empty slabs.  Returns the number of slabs discarded. */
SLUB_API int slub_cache_shrink(struct slub_cache *s);
/* Returns 0, or the number of objects still in use: then the cache and the
 * slabs holding them are kept (reported, never freed under live objects). */
SLUB_API long slub_cache_destroy(struct slub_cache *s);
SLUB_API const char *slub_cache_name(const struct slub_cache *s);
SLUB_API unsigned slub_cache_id(const struct slub_cache *s);
SLUB_API size_t slub_cache_object_size(const struct slub_cache *s);

/* ---- kmalloc family ---- */
SLUB_API void *slub_malloc(size_t size);
SLUB_API void slub_free(void *ptr);
SLUB_API void *slub_calloc(size_t nmemb, size_t size);
SLUB_API void *slub_realloc(void *ptr, size_t size);
SLUB_API size_t slub_usable_size(const void *ptr);
/* align: a power of two; returns NULL/EINVAL otherwise. */
SLUB_API void *slub_aligned_alloc(size_t align, size_t size);
SLUB_API int slub_posix_memalign(void **out, size_t align, size_t size);
SLUB_API void *slub_malloc_node(size_t size, int node);
/* free() for callers that handle foreign memory themselves (the malloc
 * shim): frees ptr and returns 1 when it is a slubtrace pointer (a bad one
 * is reported); returns 0 without touching or reporting anything when the
 * page layer does not know ptr.  NULL returns 1. */
SLUB_API int slub_try_free(void *ptr);

/* ---- ownership ---- */
enum slub_owner_kind {
	SLUB_OWNER_NONE = 0,   /* not our memory */
	SLUB_OWNER_SLAB,       /* inside a slab object */
	SLUB_OWNER_LARGE,      /* a page-layer allocation */
};
struct slub_ptr_info {
	enum slub_owner_kind kind;
	const struct slub_cache *cache; /* SLAB */
	void *slab;                     /* SLAB: slab start */
	void *object;                   /* start of the object or allocation */
	size_t index;                   /* SLAB: object index in the slab */
	size_t usable;                  /* usable bytes from `object` */
	int start;                      /* ptr == object */
};
SLUB_API int slub_ptr_lookup(const void *ptr, struct slub_ptr_info *info);

/* ---- validation ---- */
/* Like writing 1 to /sys/kernel/slab/<cache>/validate.  Flushes this
 * thread's cpu slot and the parked partial chains, walks every node list
 * under its list_lock and every slab of the cache, checks counts, free
 * chains and list membership; reports each error and returns how many. */
SLUB_API long slub_validate(struct slub_cache *s);
SLUB_API long slub_validate_all(void);

/* ---- statistics: the kernel's enum stat_item (CONFIG_SLUB_STATS) ----
 * All items that apply; ORDER_FALLBACK does not (one slab order per cache). */
enum slub_stat_item {
	SLUB_ALLOC_FASTPATH,        /* allocation from cpu slab */
	SLUB_ALLOC_SLOWPATH,        /* allocation by getting a new cpu slab */
	SLUB_FREE_FASTPATH,         /* free to cpu slab */
	SLUB_FREE_SLOWPATH,         /* freeing not to cpu slab */
	SLUB_FREE_FROZEN,           /* freeing to frozen slab */
	SLUB_FREE_ADD_PARTIAL,      /* freeing moves slab to partial list */
	SLUB_FREE_REMOVE_PARTIAL,   /* freeing removes last object */
	SLUB_ALLOC_FROM_PARTIAL,    /* cpu slab acquired from node partial list */
	SLUB_ALLOC_SLAB,            /* cpu slab acquired from page layer */
	SLUB_ALLOC_REFILL,          /* refill cpu slab from slab freelist */
	SLUB_ALLOC_NODE_MISMATCH,   /* switching cpu slab */
	SLUB_FREE_SLAB,             /* slab freed to the page layer */
	SLUB_CPUSLAB_FLUSH,         /* abandoning of the cpu slab */
	SLUB_DEACTIVATE_FULL,       /* cpu slab was full when deactivated */
	SLUB_DEACTIVATE_EMPTY,      /* cpu slab was empty when deactivated */
	SLUB_DEACTIVATE_TO_HEAD,    /* cpu slab was moved to the head of partials */
	SLUB_DEACTIVATE_TO_TAIL,    /* cpu slab was moved to the tail of partials */
	SLUB_DEACTIVATE_REMOTE_FREES, /* slab contained remotely freed objects */
	SLUB_DEACTIVATE_BYPASS,     /* implicit deactivation */
	SLUB_CMPXCHG_DOUBLE_CPU_FAIL, /* fast-path this_cpu_cmpxchg failures: always 0
				       * here (a thread's slot needs no cmpxchg) */
	SLUB_CMPXCHG_DOUBLE_FAIL,   /* failures of the slab word cmpxchg */
	SLUB_CPU_PARTIAL_ALLOC,     /* used cpu partial on alloc */
	SLUB_CPU_PARTIAL_FREE,      /* refill cpu partial on free */
	SLUB_CPU_PARTIAL_NODE,      /* refill cpu partial from node partial */
	SLUB_CPU_PARTIAL_DRAIN,     /* drain cpu partial to node partial */
	/* slubtrace additions, after the kernel's items */
	SLUB_CMPXCHG_DOUBLE_FAIL_LOCKED, /* of CMPXCHG_DOUBLE_FAIL: with list_lock held */
	SLUB_LOCK_ACQUIRE,          /* list_lock acquisitions */
	SLUB_LOCK_CONTENDED,        /* ... that had to wait */
	SLUB_CPU_PARTIAL_CMPXCHG_FAIL, /* cpu partial chain CAS failures (put/take) */
	SLUB_ALLOC_PREFETCH,        /* next free pointers prefetched in ___slab_alloc
				     * (variant prefetch-freelist) */
	SLUB_NR_STAT_ITEMS
};

#define SLUB_LOCK_HIST_BUCKETS 16 /* bucket i: < 2^(i+6) ns (64 ns ... ) */

struct slub_stats {
	uint64_t item[SLUB_NR_STAT_ITEMS];
	uint64_t cmpxchg_fail_site[SLUB_SITE_NR]; /* slab-word CAS failures per site */
	uint64_t lock_wait_ns, lock_hold_ns;      /* sums */
	uint64_t lock_wait_hist[SLUB_LOCK_HIST_BUCKETS];
	uint64_t lock_hold_hist[SLUB_LOCK_HIST_BUCKETS];
	/* slab census at the time of reading (approximate while running) */
	uint64_t slabs, partial_slabs, full_slabs, cpu_slabs, objects, objects_inuse;
};

SLUB_API const char *slub_stat_name(unsigned item);

/* The sheaves generation's counters: Linux 7.0's sheaf and barn items of
 * enum stat_item (those of its prefill API aside), kept apart from struct
 * slub_stats so that its size does not change. */
enum slub_sheaf_stat_item {
	SLUB_SHEAF_FLUSH,           /* objects flushed from a sheaf to slabs */
	SLUB_SHEAF_REFILL,          /* objects refilled to a sheaf */
	SLUB_SHEAF_ALLOC,           /* allocation of an empty sheaf */
	SLUB_SHEAF_FREE,            /* freeing of an empty sheaf */
	SLUB_BARN_GET,              /* got a full sheaf from the barn */
	SLUB_BARN_GET_FAIL,         /* the barn had no full sheaf */
	SLUB_BARN_PUT,              /* put a full sheaf to the barn */
	SLUB_BARN_PUT_FAIL,         /* the barn was full (or had no empty sheaf) */
	SLUB_NR_SHEAF_STAT_ITEMS
};
struct slub_sheaf_stats {
	uint64_t item[SLUB_NR_SHEAF_STAT_ITEMS];
	unsigned sheaf_capacity;            /* 0: the cache has no sheaves */
	unsigned barn_full, barn_empty;     /* sheaves in the barns now, all nodes */
};
SLUB_API const char *slub_sheaf_stat_name(unsigned item);
/* Sums every live and exited thread's counters; 0, or -1/EINVAL. */
SLUB_API int slub_cache_sheaf_stats(const struct slub_cache *s, struct slub_sheaf_stats *out);
/* Sums every live and exited thread's counters; returns 0, or -1/EINVAL. */
SLUB_API int slub_cache_stats(const struct slub_cache *s, struct slub_stats *out);
/* One cache's line of /proc/slabinfo, computed as Linux 6.1's get_slabinfo()
 * does: free objects counted by walking each node partial list under its
 * list_lock (count_partial), cpu slabs counted as in use.  With the variant
 * partial-scan-bounded, 6.10's bounded scan.  0, or -1 (EINVAL). */
struct slub_slabinfo {
	unsigned long active_objs, num_objs, active_slabs, num_slabs;
	unsigned objects_per_slab, pages_per_slab;
	unsigned long partial_slabs;    /* on the node partial lists */
	unsigned long scanned_slabs;    /* of those, walked under list_lock */
	unsigned long partial_objs;     /* objects of the partial slabs (walked or counted) */
};
SLUB_API int slub_get_slabinfo(struct slub_cache *s, struct slub_slabinfo *out);
/* Rounds made by the SLUBTRACE_SLABINFO reader thread (0 when not started). */
SLUB_API unsigned long slub_slabinfo_reader_rounds(void);
/* `slabinfo -r` report for one cache. */
SLUB_API void slub_print_slabinfo(FILE *f, struct slub_cache *s);
/* Report for every cache that saw use (what SLUBTRACE_STATS=1 prints at exit). */
SLUB_API void slub_print_all_slabinfo(FILE *f);
/* Visit every cache; stop when fn returns non-zero. */
SLUB_API void slub_for_each_cache(int (*fn)(struct slub_cache *, void *), void *arg);

/* ---- observer: every transition, in-process ---- */
typedef void (*slub_observer_fn)(const struct slub_event *ev, void *arg);
/* mask: bit (1 << SLUB_EV_*) per wanted type; 0 = all but alloc/free.
 * One observer at a time; pass fn NULL to remove.  The callback runs in the
 * acting thread, possibly under a list_lock: it must not call the allocator. */
SLUB_API void slub_set_observer(slub_observer_fn fn, void *arg, uint64_t mask);

/* ---- threads, fork ---- */
/* Flush the calling thread's cpu slots (as thread exit does). */
SLUB_API void slub_thread_flush(void);
/* pthread_atfork handlers: take every allocator lock in lock order, then
 * release them (parent) or reinitialise them and adopt the slabs of threads
 * that do not exist in the child.  Installed by slub_init(). */
SLUB_API void slub_prefork(void);
SLUB_API void slub_postfork_parent(void);
SLUB_API void slub_postfork_child(void);

/* ---- errors ---- */
enum slub_error_action {
	SLUB_ON_ERROR_CONTINUE = 0, /* report, leak the object, go on (default) */
	SLUB_ON_ERROR_ABORT,        /* report, then abort() */
};
SLUB_API void slub_set_error_action(enum slub_error_action a);
/* Number of corruption/misuse reports made so far in this process. */
SLUB_API unsigned long slub_error_count(void);
/* Where reports go (default stderr, or SLUBTRACE_LOG=path). */
SLUB_API void slub_set_report_fd(int fd);

/* Idempotent; every entry point calls it.  Reads the environment:
 * SLUBTRACE_NODES, SLUBTRACE_DEBUG, SLUBTRACE_STATS, SLUBTRACE_ON_ERROR,
 * SLUBTRACE_LOG, SLUBTRACE_VARIANT, SLUBTRACE_INJECT, SLUBTRACE_FULL_LISTS,
 * SLUBTRACE_SLABINFO (a reader thread), SLUBTRACE_GENERATION (classic, the
 * default, or sheaves: the allocator generation of every cache). */
SLUB_API void slub_init(void);
SLUB_API int slub_nr_nodes(void);

/* ---- variants and injected faults (slow paths only) ---- */
#define SLUB_VAR_OLD_UNFREEZE_PARTIALS (1u << 0) /* list work inside the CAS loop (pre-3.6) */
#define SLUB_VAR_PEROBJ_DEACTIVATE     (1u << 1) /* drain cpu freelist per object (3.1-5.11) */
#define SLUB_VAR_KEEP_OLDPAGE          (1u << 2) /* put_cpu_partial without oldpage = NULL */
#define SLUB_VAR_FREE_KEEP_LOCK        (1u << 3) /* __slab_free keeps list_lock across redos */
#define SLUB_VAR_PARTIAL_SCAN_BOUNDED  (1u << 4) /* slabinfo scans at most 10000 partial slabs (6.10) */
#define SLUB_VAR_PREFETCH_FREELIST     (1u << 5) /* prefetch_freepointer() in ___slab_alloc (2024) */
#define SLUB_VAR_PARTIAL_COUNTERS      (1u << 6) /* slabinfo from node counters, no walk (2020 v2 1-2) */
#define SLUB_VAR_PARTIAL_COUNTERS_PCP  (1u << 7) /* ... the free counter per cpu (2020 v2 3) */
#define SLUB_INJ_UNLOCKED_LIST         (1u << 8) /* a list op without list_lock */
#define SLUB_INJ_LOST_UPDATE           (1u << 9) /* a plain store bypassing the CAS */
#define SLUB_INJ_RACE_WINDOW           (1u << 10) /* delay between load and CAS */
#define SLUB_INJ_DOUBLE_FREEZE         (1u << 11) /* acquire_slab freezes a frozen slab */
#define SLUB_INJ_LOST_UNFREEZE         (1u << 12) /* a deactivated slab put on no list */
#define SLUB_INJ_WRONG_OWNER_UNFREEZE  (1u << 13) /* unfreeze of another cpu's partials */
#define SLUB_INJ_EARLY_DISCARD         (1u << 14) /* discard of a slab with objects in use */
/* the sheaves generation's */
#define SLUB_INJ_TWO_SHEAVES           (1u << 15) /* a freed object put in main and spare */
#define SLUB_INJ_BARN_COUNT            (1u << 16) /* a barn counts an empty sheaf twice */
#define SLUB_INJ_FLUSH_LOSES           (1u << 17) /* a flush leaves an object in no slab */
SLUB_API void slub_set_variant(unsigned mask);
SLUB_API unsigned slub_variant(void);

#ifdef __cplusplus
}
#endif
#endif /* SLUB_SLUB_H */
