/* SPDX-License-Identifier: MIT */
/*
 * slubtrace internals: the structures of the SLUB model.
 *
 * Lock order (outer to inner), checked in debug builds (SLUB_DEBUG >= 2):
 *   1. slub_caches_lock      the cache registry, kmalloc table
 *   2. thread->flush_lock    one thread's cpu slots while they are flushed
 *                            from outside (exit, destroy) or used by an
 *                            exited thread (the orphan slot)
 *   3. node->list_lock       one node at a time (unfreeze_partials switches
 *                            by dropping one before taking the next)
 *   4. cache->stats_lock     folding an exiting thread's counters
 *   5. slub_threads_lock     the thread registry, cpu id recycling
 *   6. slub_pages_lock       the page layer (segments, free pages)
 *   7. slub_meta_lock        the metadata allocator
 * The slab word is never locked: it changes only through slab_update()
 * (double-word CAS), except with SLUB_DWCAS=0 where a per-slab lock, taken
 * innermost and never held across anything, serialises the writers.
 *
 * What each lock protects:
 *   list_lock   node->partial, node->full, node->nr_partial, slab->list,
 *               and the decision to move a slab between lists.
 *   nothing     cpu slot fields (freelist, slab): only the owning thread
 *               touches them; a flusher from outside (exit, destroy, fork
 *               adoption) holds the slot's thread->flush_lock.
 *   CAS         cpu slot ->partial: the owner pushes and pops, a flusher
 *               (shrink, validate, destroy) may detach the whole chain.
 *
 * Slab states (each slab is in exactly one):
 *
 *   state        frozen  on list                 owner
 *   CPU_ACTIVE   1       none                    one cpu (c->slab)
 *   CPU_PARTIAL  1       that cpu's partial chain  one cpu
 *   NODE_PARTIAL 0       node->partial           none
 *   FULL         0       node->full when tracked  none
 *   DISCARDED    -       none                    none (pages returned)
 *
 * "cpu" is a per-thread slot (struct slub_cpu) per cache; its id is the
 * thread's small integer id, recycled at thread exit.  "node" is a NUMA
 * node, emulated with SLUBTRACE_NODES=N.
 */
#ifndef SLUB_INTERNAL_H
#define SLUB_INTERNAL_H

#include <slub/slub.h>
#include <slub/event.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "platform.h"
#include "trace.h"

#define SLUB_INTERNAL __attribute__((visibility("hidden")))
#define SLUB_MAX_CACHES 256
/* slub_max_order (PAGE_ALLOC_COSTLY_ORDER): the orders calculate_order()
 * prefers.  An object too big for them gets the smallest order holding one
 * object, up to SLUB_MAX_SLAB_ORDER: a 2 MiB slab, the largest aligned run
 * a 4 MiB page-layer segment holds (the kernel's limit is MAX_ORDER). */
#define SLUB_MAX_ORDER 3
#define SLUB_MAX_SLAB_ORDER 9
#define SLUB_NR_KMALLOC 13      /* 8 .. 8192 */
#define SLUB_TRACK_DEPTH 8

/* ---- assertions in tiers (mimalloc style), never allocating ---- */
#ifndef SLUB_DEBUG
#define SLUB_DEBUG 0
#endif
void slub_assert_fail(const char *expr, const char *file, int line) __attribute__((noreturn));
#define slub_assert_tier(tier, e) \
	((SLUB_DEBUG >= (tier) && !(e)) ? slub_assert_fail(#e, __FILE__, __LINE__) : (void)0)
#define slub_assert(e)           slub_assert_tier(1, e)
#define slub_assert_internal(e)  slub_assert_tier(2, e)
#define slub_assert_expensive(e) slub_assert_tier(3, e)

/* ---- the slab word ---- */
/*
 * counters: inuse:16 objects:15 frozen:1 | seq:32.
 *   inuse  = objects - (objects on the slab freelist)
 *            - (objects on the owner's cpu freelist, when CPU_ACTIVE)
 *   objects is fixed for the life of the slab; seq += 1 per update.
 */
union slub_counters {
	uint64_t counters;
	struct {
		uint32_t inuse : 16;
		uint32_t objects : 15;
		uint32_t frozen : 1;
		uint32_t seq;
	};
};
_Static_assert(sizeof(union slub_counters) == 8, "counters are one word");

struct slab_word {
	void *freelist;
	union slub_counters c;
};

enum slab_list { SLAB_LIST_NONE = 0, SLAB_LIST_PARTIAL, SLAB_LIST_FULL };
enum slab_kind { SLAB_KIND_FREE = 0, SLAB_KIND_SLAB, SLAB_KIND_LARGE, SLAB_KIND_TAIL };

/*
 * The slab descriptor, out of line in its segment's header (one per page;
 * the head page's descriptor describes the slab).  Descriptors are never
 * unmapped, so a slab address keeps one monotone seq across lifetimes.
 */
struct slab {
	struct slub_dword word;         /* freelist + counters: slab_update() only */
	struct slub_cache *cache;
	struct slab *next;              /* node list or cpu partial chain */
	struct slab *prev;              /* node list */
	char *base;                     /* first object = slab start */
	uint32_t pages;                 /* cpu partial chain: slabs from here on */
	uint32_t pobjects;              /* cpu partial chain: free objects approx */
	int32_t owner;                  /* cpu id while frozen, else -1 */
	uint16_t node;
	uint8_t list;                   /* enum slab_list; under list_lock */
	uint8_t kind;                   /* enum slab_kind */
	uint32_t npages;                /* head: pages in this slab/allocation */
	uint32_t head_off;              /* tail pages: distance to the head */
	uint32_t dwlock;                /* SLUB_DWCAS=0 fallback */
	uint32_t large_offset;          /* LARGE: user pointer - base */
	uint64_t large_size;            /* LARGE: requested size */
	uint32_t order;
	uint32_t counted_free;          /* partial-counters: free objects counted while listed */
	uint32_t fork_held;              /* fork repair in the child: a slot holds it */
} __attribute__((aligned(16)));

/*
 * slab->owner: the cpu slot owning a frozen slab, -1 when unfrozen.  The
 * freezing slot stores its id right after its freezing CAS.  The owner
 * clears it after its unfreezing CAS only by CAS from its own id
 * (slab_owner_clear): between the two another slot may already have frozen
 * the slab and stored its own id, which must stay.
 */
static inline struct slab_word slab_word_read(struct slab *slab)
{
	struct slub_dword d = slub_dword_read(&slab->word);
	struct slab_word w = { d.freelist, { .counters = d.counters } };
	return w;
}

static inline void slab_owner_set(struct slab *slab, int id)
{
	__atomic_store_n(&slab->owner, id, __ATOMIC_RELEASE);
}

static inline void slab_owner_clear(struct slab *slab, int id)
{
	int expected = id;

	__atomic_compare_exchange_n(&slab->owner, &expected, -1, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

/* The owner of a word read by a thread that does not own the slab: it
 * cannot read slab->owner atomically with the word (event.h). */
static inline int word_owner_unknown(const struct slab_word *w)
{
	return w->c.frozen ? SLUB_OWNER_UNKNOWN : SLUB_NO_OWNER;
}

/* ---- nodes ---- */
struct slub_node {
	uint32_t list_lock;
	uint32_t holder;                /* tid holding list_lock (lockdep) */
	uint64_t lock_seq;              /* acquisitions so far */
	uint64_t acquired_ns;
	unsigned long nr_partial;       /* read racily, as the kernel does */
	unsigned long nr_full;
	struct slab *partial;           /* head of a doubly linked list */
	struct slab *partial_tail;
	struct slab *full;
	/* partial-counters (2020 v2 patches 1-2): objects of the partial slabs
	 * and their free objects, atomic; -pcp keeps the free count per cpu */
	long partial_total_objs;
	long partial_free_objs;
	/* The sheaves generation: this node's barn (struct node_barn), under
	 * barn_lock, which is taken alone (no other lock is held with it or
	 * taken under it).  Singly linked: a barn is a LIFO of sheaves. */
	uint32_t barn_lock;
	unsigned barn_nr_full, barn_nr_empty;
	struct slub_sheaf *barn_full, *barn_empty;
} __attribute__((aligned(64)));

/*
 * A sheaf (struct slab_sheaf, Linux 7.0): an array of free objects of one
 * cache, owned by one cpu slot (main or spare) or parked in a node's barn.
 * Its objects are counted in use by their slabs' words: a slab does not
 * know which of its objects sit in sheaves.
 */
struct slub_sheaf {
	struct slub_sheaf *barn_next;   /* barn list */
	struct slub_cache *cache;
	uint32_t size;                  /* objects[0 .. size) are free objects */
	uint32_t capacity;
	void *objects[];
};

/* ---- statistics (per thread, no atomics) ---- */
struct slub_cpu_stats {
	uint64_t item[SLUB_NR_STAT_ITEMS];
	uint64_t cmpxchg_fail_site[SLUB_SITE_NR];
	uint64_t lock_wait_ns, lock_hold_ns;
	uint64_t lock_wait_hist[SLUB_LOCK_HIST_BUCKETS];
	uint64_t lock_hold_hist[SLUB_LOCK_HIST_BUCKETS];
	uint64_t sheaf[SLUB_NR_SHEAF_STAT_ITEMS];
};

/* ---- the per-thread cpu slot of one cache ---- */
struct slub_cpu {
	void *freelist;                 /* owner only */
	struct slab *slab;              /* CPU_ACTIVE slab, owner only */
	struct slab *partial;           /* cpu partial chain: CAS */
	struct slub_cache *cache;
	int32_t id;                     /* cpu id (= thread id slot) */
	int32_t node;
	struct slub_cpu_stats stats;
	long partial_free_objs[SLUB_MAX_NODES]; /* partial-counters-pcp */
	/* The sheaves generation (struct slub_percpu_sheaves): owner only,
	 * or a flusher holding the slot's thread->flush_lock, as the classic
	 * slot fields.  NULL until the slot's first use. */
	struct slub_sheaf *main;
	struct slub_sheaf *spare;
	/* injected two-sheaves: the object also pushed on this sheaf, taken
	 * off again before the sheaf is used (sheaves.c) */
	struct slub_sheaf *dup_sheaf;
	void *dup_object;
};

/* ---- a thread ---- */
struct slub_thread {
	struct slub_cpu *cpu[SLUB_MAX_CACHES];
	int32_t id;
	int32_t node;
	uint32_t tid;
	uint32_t live;                  /* 1 while the thread runs */
	uint32_t flushing;
	uint32_t flushed;               /* slots flushed since registration */
	uint32_t adopt;                 /* forked away: the child flushes it */
	struct slub_thread *next_all;   /* registry, append-only */
	struct slub_thread *next_free;
	unsigned long discards;         /* slabs this thread discarded */
	uint32_t flush_lock;            /* serialises flushes of these slots */
	uint32_t orphan;                /* the shared slot of exited threads */
	uint32_t nr_locks;              /* allocator locks held, any kind */
	uint32_t held_rank[8];          /* lock witness (SLUB_DEBUG >= 2) */
	uint32_t nr_held;
};

/* ---- object layout of a cache ---- */
/*
 * Object layout (offsets from the object start):
 *
 *   0            object_size          inuse        offset?      orig?      track_offset      size
 *   | object ...  | red zone (Z) ...   | free ptr (*) | size (Z+k) | track (U) | pad | left rz (Z) |
 *
 * With Z the last word of a stride is the left red zone of the next
 * object, and the slab's objects start red_left_pad bytes into its pages
 * (slab->base points at the first object), so the word before every
 * object is a red zone.  On kmalloc caches with Z, the word at
 * orig_size_offset holds the size asked for, and the bytes from there to
 * object_size are red zone too (the kernel's kmalloc red zone, 6.1).
 *
 * (*) the free pointer sits in the middle of the object (offset =
 *     object_size / 2 rounded down to a word) unless P, Z or a ctor need
 *     the object intact while free: then it sits at `inuse`, after the
 *     red zone.  With F a per-slab allocation bitmap sits at the slab end.
 *   Poison (P): free objects hold 0x6b, last byte 0xa5.
 *   Red zone (Z): 0xcc while allocated, 0xbb while free.
 */
struct slub_track {
	uint64_t addrs[SLUB_TRACK_DEPTH];
	uint32_t nr;
	int32_t cpu;
	uint32_t tid;
	uint32_t pad;
	uint64_t when_ns;
};

struct slub_cache {
	unsigned id;
	unsigned flags;
	char name[48];
	size_t object_size;
	size_t size;                    /* stride */
	size_t align;
	size_t inuse;                   /* end of object + red zone */
	size_t offset;                  /* free pointer offset */
	uintptr_t slab_mask;            /* ~(slab_bytes - 1): slabs are aligned to their size */
	size_t track_offset;            /* U: two struct slub_track */
	size_t orig_size_offset;        /* Z on kmalloc caches: the size asked for */
	size_t red_left_pad;            /* Z: bytes before the first object */
	unsigned order;
	unsigned objects;               /* per slab */
	size_t slab_bytes;
	size_t map_offset;              /* F: bitmap offset in the slab */
	uint64_t reciprocal;            /* for obj_to_index */
	unsigned min_partial;
	unsigned cpu_partial;           /* objects */
	/* Objects per sheaf; 0: the classic generation's paths (a classic
	 * process, or a debug cache, which 7.0 gives no sheaves either). */
	unsigned sheaf_capacity;
	void (*ctor)(void *);
	uint32_t stats_lock;
	struct slub_cpu_stats dead;     /* folded counters of exited threads */
	struct slub_node node[SLUB_MAX_NODES];
	struct slub_cache_info info;
	unsigned long total_slabs;      /* atomic */
	uint32_t used;                  /* saw an allocation */
	uint32_t destroyed;
};

/* Internal cache flag (never accepted from callers): a kmalloc cache. */
#define SLUB_F_KMALLOC (1u << 30)

/* ---- globals ---- */
SLUB_INTERNAL extern int slub_nodes;
/* SLUBTRACE_GENERATION: the allocator generation of new caches. */
enum slub_generation_kind { SLUB_GEN_CLASSIC = 0, SLUB_GEN_SHEAVES = 1 };
SLUB_INTERNAL extern int slub_generation_env;
SLUB_INTERNAL extern unsigned slub_variant_mask;
SLUB_INTERNAL extern uint64_t slub_observer_mask;
SLUB_INTERNAL extern unsigned slub_debug_flags_env;    /* SLUBTRACE_DEBUG */
SLUB_INTERNAL extern unsigned slub_kmalloc_extra_flags; /* SLUBTRACE_FULL_LISTS ... */
SLUB_INTERNAL extern struct slub_cache *slub_caches[SLUB_MAX_CACHES];
SLUB_INTERNAL extern struct slub_cache *slub_kmalloc_caches[SLUB_NR_KMALLOC];
SLUB_INTERNAL extern uint32_t slub_caches_lock;
SLUB_INTERNAL extern int slub_initialized;
/* Initialised, and kmalloc records no requested sizes (no Z). */
SLUB_INTERNAL extern int slub_kmalloc_plain;

/* Injected faults held back by SLUBTRACE_INJECT_DELAY (env.c) until
 * their time comes; 0 once armed, or when no delay was asked. */
SLUB_INTERNAL extern unsigned slub_inject_pending;
SLUB_INTERNAL bool slub_inject_arm(unsigned bit);

static inline bool variant(unsigned bit)
{
	if (likely(!(READ_ONCE(slub_variant_mask) & bit))) {
		/* a delayed fault: the clock says whether it is armed yet */
		if (unlikely(READ_ONCE(slub_inject_pending) & bit))
			return slub_inject_arm(bit);
		return false;
	}
	return true;
}

/* An injected fault fires on every `every`-th pass of its site: often
 * enough to be seen in any run, rarely enough that the run goes on. */
static inline bool inject_now(unsigned long *tick, unsigned every)
{
	return __atomic_add_fetch(tick, 1, __ATOMIC_RELAXED) % every == 0;
}

static inline bool kmem_cache_debug(const struct slub_cache *s)
{
	return unlikely(s->flags & SLUB_F_DEBUG_MASK);
}

static inline bool kmem_cache_has_cpu_partial(const struct slub_cache *s)
{
	return !kmem_cache_debug(s) && !(s->flags & SLUB_F_NO_CPU_PARTIAL);
}

static inline bool kmem_cache_track_full(const struct slub_cache *s)
{
	return (s->flags & SLUB_F_TRACK_FULL) != 0;
}

static inline struct slub_node *get_node(struct slub_cache *s, int node)
{
	return &s->node[node];
}

/* ---- poison and red zone bytes (P, Z) ---- */
#define POISON_FREE 0x6b
#define POISON_END 0xa5
#define RED_ACTIVE 0xcc
#define RED_INACTIVE 0xbb

/* Poison only objects without a constructor: a ctor's work must survive
 * from free to the next allocation (__OBJECT_POISON in the kernel). */
static inline bool object_poison(const struct slub_cache *s)
{
	return (s->flags & SLUB_F_POISON) && !s->ctor;
}

/* ---- free pointers ---- */
static inline void *get_freepointer(const struct slub_cache *s, void *object)
{
	return *(void **)((char *)object + s->offset);
}

/* prefetch_freepointer(): the next allocation's free pointer, ahead of it
 * (the variant prefetch-freelist uses it in ___slab_alloc). */
static inline void prefetch_freepointer(const struct slub_cache *s, void *object)
{
	if (object)
		__builtin_prefetch((char *)object + s->offset);
}

static inline void set_freepointer(const struct slub_cache *s, void *object, void *fp)
{
	*(void **)((char *)object + s->offset) = fp;
}

static inline unsigned obj_to_index(const struct slub_cache *s, const struct slab *slab,
				    const void *obj)
{
	uint64_t off = (uint64_t)((const char *)obj - slab->base);
	return (unsigned)((off * s->reciprocal) >> 42);
}

/* ---- threads and cpus (cpu.c) ---- */
SLUB_INTERNAL struct slub_thread *slub_thread_slow(void);
extern __thread struct slub_thread *slub_self __attribute__((tls_model("initial-exec")));

/* The calling thread, registered on first use; NULL once the thread has
 * run its exit flush (then it must use the orphan slot, see cpu.c). */
static inline struct slub_thread *slub_thread(void)
{
	struct slub_thread *t = slub_self;

	if (unlikely(!t))
		t = slub_thread_slow();
	return t;
}

SLUB_INTERNAL struct slub_thread *slub_orphan_enter(void);
/* The calling thread, or the orphan slot (borrowed: *orphan set, give it
 * back with slub_orphan_leave()) for a thread past its exit flush. */
static inline struct slub_thread *slub_thread_or_orphan(bool *orphan)
{
	struct slub_thread *t = slub_thread();

	*orphan = !t;
	return t ? t : slub_orphan_enter();
}
SLUB_INTERNAL void slub_orphan_leave(void);
SLUB_INTERNAL void *slub_orphan_alloc(struct slub_cache *s, int node);
SLUB_INTERNAL void slub_orphan_free(struct slub_cache *s, struct slab *slab, void *object);

SLUB_INTERNAL struct slub_cpu *slub_cpu_slow(struct slub_cache *s, struct slub_thread *t);

static inline struct slub_cpu *get_cpu_slab(struct slub_cache *s, struct slub_thread *t)
{
	struct slub_cpu *c = READ_ONCE(t->cpu[s->id]);

	if (unlikely(!c))
		c = slub_cpu_slow(s, t);
	return c;
}

#if SLUB_STATS
static inline void stat(struct slub_cpu *c, enum slub_stat_item si)
{
	/* Only the owning thread writes; readers sum racily (relaxed). */
	WRITE_ONCE(c->stats.item[si], READ_ONCE(c->stats.item[si]) + 1);
}
static inline void stat_add(uint64_t *p, uint64_t v)
{
	WRITE_ONCE(*p, READ_ONCE(*p) + v);
}
static inline void stat_sheaf(struct slub_cpu *c, enum slub_sheaf_stat_item si, uint64_t n)
{
	WRITE_ONCE(c->stats.sheaf[si], READ_ONCE(c->stats.sheaf[si]) + n);
}
#else
static inline void stat_sheaf(struct slub_cpu *c, enum slub_sheaf_stat_item si, uint64_t n)
{
	(void)c; (void)si; (void)n;
}
static inline void stat(struct slub_cpu *c, enum slub_stat_item si) { (void)c; (void)si; }
static inline void stat_add(uint64_t *p, uint64_t v) { (void)p; (void)v; }
#endif

SLUB_INTERNAL void *slab_alloc_node(struct slub_cache *s, int node);
SLUB_INTERNAL void __slab_free(struct slub_cache *s, struct slab *slab, void *head, void *tail,
			       unsigned cnt, struct slub_cpu *c);
SLUB_INTERNAL void __slab_free_slow(struct slub_cache *s, struct slab *slab, void *head,
				    void *tail, unsigned cnt, struct slub_cpu *c, unsigned attempt)
	__attribute__((noinline));
SLUB_INTERNAL void slub_emit_object(unsigned type, struct slub_cache *s, struct slub_cpu *c,
				    struct slab *slab, void *object) __attribute__((noinline));
SLUB_INTERNAL void slub_free_double(struct slub_cache *s, struct slab *slab, void *object)
	__attribute__((noinline));
SLUB_INTERNAL void slab_free(struct slub_cache *s, struct slab *slab, void *object);
SLUB_INTERNAL void *___slab_alloc(struct slub_cache *s, int node, struct slub_cpu *c);
/* Or'ed into deactivate_slab()'s reason: the slab is no slot's active slab
 * (a torn slab adopted after fork()), so no slot's active slab changes and
 * no cpu-slab event is emitted; only the unfreeze and the list operation. */
#define SLUB_DEACT_NOT_ACTIVE 0x100
SLUB_INTERNAL void deactivate_slab(struct slub_cache *s, struct slab *slab, void *freelist,
				   struct slub_cpu *c, int reason);
SLUB_INTERNAL void flush_cpu_slab(struct slub_cache *s, struct slub_cpu *c);
SLUB_INTERNAL void slub_flush_thread_caches(struct slub_thread *t);
SLUB_INTERNAL void slub_flush_all_partials(struct slub_cache *s);
SLUB_INTERNAL void unfreeze_foreign_partials(struct slub_cache *s, struct slub_cpu *me);
SLUB_INTERNAL void slub_destroy_cpu_slots(struct slub_cache *s);
SLUB_INTERNAL void slub_threads_lock_all(void);
SLUB_INTERNAL void slub_threads_unlock_all(void);
SLUB_INTERNAL void slub_threads_reinit_child(void);
SLUB_INTERNAL extern uint32_t slub_adopt_pending;
SLUB_INTERNAL void slub_adopt_forked_slots(void) __attribute__((noinline));
/* In a forked child, the slow paths first adopt the slots of the threads
 * fork() left behind (cpu.c): after fork() returned, as a normal call, so
 * the events carry the child's identity. */
static inline void adopt_forked_slots(void)
{
	if (unlikely(READ_ONCE(slub_adopt_pending)))
		slub_adopt_forked_slots();
}
/*
 * The steps of the slow paths at which a thread holds slab state outside
 * the slot and the slab words (a slab or objects in local variables, a
 * slot field not yet updated) and no list_lock, so fork() may cut there.
 * slub_fork_point_hook, NULL but in tests, is called at each: a test parks
 * a thread there and forks (tests/test_fork.c).
 */
enum slub_fork_point {
	SLUB_FP_GET_FREELIST_UNFREEZE,  /* cpu slab cleared, unfreezing CAS next */
	SLUB_FP_GET_FREELIST_UNFROZEN,  /* full cpu slab unfrozen, not dropped yet */
	SLUB_FP_GET_FREELIST_TAKEN,     /* slab freelist taken, not the cpu's yet */
	SLUB_FP_DEACTIVATE,             /* slab and cpu freelist off the slot */
	SLUB_FP_DEACTIVATE_UNFROZEN,    /* unfrozen to no list / for discard */
	SLUB_FP_CPU_PARTIAL_POPPED,     /* off the chain, not the cpu slab yet */
	SLUB_FP_PARTIAL_TAKEN,          /* node partial slab frozen, not loaded */
	SLUB_FP_NEW_SLAB,               /* new frozen slab, not loaded */
	SLUB_FP_FREE_FROZE,             /* full slab frozen by a free, on no chain */
	SLUB_FP_PARTIALS_DETACHED,      /* cpu partial chain detached, frozen */
	SLUB_FP_DISCARD_PENDING,        /* unfrozen empty slabs to discard */
	SLUB_FP_DISCARD,                /* discard_slab() entered */
	SLUB_FP_NR
};
SLUB_INTERNAL extern void (*slub_fork_point_hook)(int point);
static inline void fork_point(int point)
{
	void (*hook)(int) = READ_ONCE(slub_fork_point_hook);

	if (unlikely(hook != NULL))
		hook(point);
}
SLUB_INTERNAL void slub_fork_repair_child(void);
SLUB_INTERNAL void slub_fold_stats(struct slub_cache *s, struct slub_cpu *c);
SLUB_INTERNAL void slub_sum_stats(const struct slub_cache *s, struct slub_cpu_stats *out);
SLUB_INTERNAL struct slub_thread *slub_threads_head(void);

/* ---- the sheaves generation (sheaves.c) ---- */
SLUB_INTERNAL unsigned calculate_sheaf_capacity(const struct slub_cache *s);
SLUB_INTERNAL void *sheaves_alloc(struct slub_cache *s, int node, struct slub_cpu *c)
	__attribute__((noinline));
SLUB_INTERNAL void sheaves_free(struct slub_cache *s, struct slab *slab, void *head, void *tail,
				unsigned cnt, struct slub_cpu *c) __attribute__((noinline));
SLUB_INTERNAL void sheaves_flush_cpu(struct slub_cache *s, struct slub_cpu *c);
SLUB_INTERNAL void sheaves_barn_shrink(struct slub_cache *s, struct slub_cpu *c);
SLUB_INTERNAL void sheaves_barn_locks(struct slub_cache *s, int how);
SLUB_INTERNAL struct slab *sheaves_new_slab(struct slub_cache *s, int node, struct slub_cpu *c,
					    unsigned take, void **objects);
static inline bool slot_holds_sheaves(const struct slub_cpu *c)
{
	return (c->main && c->main->size) || (c->spare && c->spare->size);
}

/* ---- node lists (partial.c) ---- */
SLUB_INTERNAL void list_lock(struct slub_cache *s, struct slub_node *n, struct slub_cpu *c);
SLUB_INTERNAL void list_unlock(struct slub_cache *s, struct slub_node *n, struct slub_cpu *c);
/* What list_unlock() counts and traces, the lock itself still held (the
 * unlocked-list injection); the caller releases it with
 * slub_futex_unlock() and witness_release(RANK_LIST). */
SLUB_INTERNAL void list_unlock_traced(struct slub_cache *s, struct slub_node *n,
				      struct slub_cpu *c);
SLUB_INTERNAL void add_partial(struct slub_cache *s, struct slub_node *n, struct slab *slab,
			       int tail, struct slub_cpu *c);
SLUB_INTERNAL void remove_partial(struct slub_cache *s, struct slub_node *n, struct slab *slab,
				  struct slub_cpu *c);
SLUB_INTERNAL void add_full(struct slub_cache *s, struct slub_node *n, struct slab *slab,
			    struct slub_cpu *c);
SLUB_INTERNAL void remove_full(struct slub_cache *s, struct slub_node *n, struct slab *slab,
			       struct slub_cpu *c);
SLUB_INTERNAL void *get_partial(struct slub_cache *s, int node, struct slub_cpu *c,
				struct slab **ret);
SLUB_INTERNAL void put_cpu_partial(struct slub_cache *s, struct slab *slab, int drain,
				   struct slub_cpu *c);
SLUB_INTERNAL void cpu_cmpxchg_failed(struct slub_cache *s, struct slub_cpu *c, struct slab *slab,
				      enum slub_site site, unsigned attempt);
SLUB_INTERNAL void emit_partial_drain(struct slub_cache *s, struct slub_cpu *c, struct slab *chain,
				      int reason);
SLUB_INTERNAL void unfreeze_partials(struct slub_cache *s, struct slub_cpu *c,
				     struct slab *chain, struct slub_cpu *actor);
SLUB_INTERNAL int slub_shrink_node_lists(struct slub_cache *s, struct slub_cpu *c);
SLUB_INTERNAL void slub_node_locks_take(struct slub_cache *s);
SLUB_INTERNAL void slub_node_locks_release(struct slub_cache *s);
SLUB_INTERNAL void slub_node_locks_reinit(struct slub_cache *s);

/* ---- slab word, slabs (slab.c) ---- */
SLUB_INTERNAL void slab_update_injected(const struct slab_word *old, struct slab_word *new,
					enum slub_site site);
SLUB_INTERNAL void slab_update_unfreeze_window(void);
SLUB_INTERNAL void slab_update_failed(struct slub_cache *s, struct slab *slab,
				      const struct slab_word *old,
				      const struct slub_dword *seen_word, enum slub_site site,
				      int locked, struct slub_cpu *c, unsigned *attempt);
/*
 * The one writer of a slab's (freelist, counters): __cmpxchg_double_slab().
 * On success new->c.seq = old->c.seq + 1 and the caller emits the event of
 * what it did.  On failure the failure is counted per site, a cmpxchg_fail
 * event carries the expected and the observed word, and the caller retries.
 * Inline, with the failure and the injected faults out of line: every free
 * that is not to the thread's own cpu slab runs it, and a call with the
 * failure path's frame costs as much as the rest of the update.
 */
static inline __attribute__((always_inline)) bool
slab_update(struct slub_cache *s, struct slab *slab, const struct slab_word *old,
	    struct slab_word *new, enum slub_site site, int locked, struct slub_cpu *c,
	    unsigned *attempt)
{
	struct slub_dword expected = { old->freelist, old->c.counters };

	slub_assert(new->c.objects == old->c.objects);
	slub_assert(new->c.inuse <= new->c.objects);
	new->c.seq = old->c.seq + 1;
	if (variant(SLUB_INJ_RACE_WINDOW | SLUB_INJ_LOST_UPDATE)) {
		struct slab_word o = *old, n = *new;

		slab_update_injected(&o, &n, site);
		*new = n;
	}
	struct slub_dword desired = { new->freelist, new->c.counters };
	if (likely(slub_dwcas(&slab->word, &expected, desired, &slab->dwlock))) {
		if (unlikely(variant(SLUB_INJ_RACE_WINDOW)) && old->c.frozen && !new->c.frozen)
			slab_update_unfreeze_window();
		return true;
	}
	/* The out-of-line calls get copies: the caller's words stay in
	 * registers (a word written in parts on the stack and read whole
	 * stalls the CAS that reads it). */
	struct slab_word o = *old;
	struct slub_dword seen = expected;
	slab_update_failed(s, slab, &o, &seen, site, locked, c, attempt);
	return false;
}
SLUB_INTERNAL struct slab *new_slab(struct slub_cache *s, int node, struct slub_cpu *c,
				    void **freelist);
SLUB_INTERNAL void discard_slab(struct slub_cache *s, struct slab *slab, struct slub_cpu *c);
SLUB_INTERNAL void discard_slab_early(struct slub_cache *s, struct slab *slab, struct slub_cpu *c);
SLUB_INTERNAL bool slub_calculate_sizes(struct slub_cache *s);
SLUB_INTERNAL void *alloc_debug_processing(struct slub_cache *s, struct slab *slab,
					   void *object, struct slub_cpu *c);
SLUB_INTERNAL bool free_debug_processing(struct slub_cache *s, struct slab *slab,
					 void *object, struct slub_cpu *c);
SLUB_INTERNAL void slub_set_orig_size(const struct slub_cache *s, void *object, size_t size);
/* What was asked for (object_size when the cache does not record it). */
SLUB_INTERNAL size_t slub_orig_size(const struct slub_cache *s, const void *object);
SLUB_INTERNAL void slub_set_track(struct slub_cache *s, void *object, int which,
				  struct slub_cpu *c);
SLUB_INTERNAL bool slub_check_freelist_ptr(struct slub_cache *s, struct slab *slab, void *fp);
SLUB_INTERNAL void *slub_freepointer_check(struct slub_cache *s, struct slab *slab, void *object,
					   void *fp) __attribute__((noinline, cold));
/* The same for the cpu slab of c (the fast path: c->slab is read only here). */
SLUB_INTERNAL void *slub_freepointer_check_cpu(struct slub_cache *s, struct slub_cpu *c,
					       void *object, void *fp) __attribute__((noinline, cold));

/* ---- page layer (page.c) ---- */
SLUB_INTERNAL struct slab *slub_pages_alloc(unsigned npages, size_t align, int kind);
SLUB_INTERNAL void slub_pages_free(struct slab *slab);
SLUB_INTERNAL struct slab *slub_virt_to_slab(const void *p);
SLUB_INTERNAL void *slub_large_alloc(size_t size, size_t align);
/* The same, reading as zero; clears only pages that may be dirty. */
SLUB_INTERNAL void *slub_large_calloc(size_t size);
SLUB_INTERNAL void slub_large_free(struct slab *slab, void *p);
/* realloc in place (page run) or by mremap (dedicated mapping, slab NULL);
 * NULL: the caller allocates, copies and frees. */
SLUB_INTERNAL void *slub_large_resize(struct slab *slab, void *p, size_t size);
SLUB_INTERNAL extern unsigned long slub_realloc_copies, slub_realloc_copied_bytes;
enum { SLUB_STALE_NONE, SLUB_STALE_FREED, SLUB_STALE_INSIDE };
SLUB_INTERNAL int slub_large_stale(const void *p, const void **block);
SLUB_INTERNAL size_t slub_large_usable(struct slab *slab, const void *p);
SLUB_INTERNAL void *slub_meta_alloc(size_t size);
SLUB_INTERNAL void slub_pages_lock_all(void);
SLUB_INTERNAL void slub_pages_unlock_all(void);
SLUB_INTERNAL void slub_pages_reinit_child(void);

/* ---- observer, reports (observer.c) ---- */
SLUB_INTERNAL int slub_report_fd(void);
/* SLUBTRACE_CHECK: the state model in-process (check.c). */
SLUB_INTERNAL void slub_check_init(void);
/* The in-process checker runs. */
SLUB_INTERNAL bool slub_check_active(void);
/* A slub:trigger the checker decided on in this thread, emitted once the
 * event that caused it is in the trace (after slub_trace_emit()). */
extern __thread int slub_check_trigger_pending SLUB_INTERNAL __attribute__((tls_model("initial-exec")));
SLUB_INTERNAL void slub_check_trigger_flush(void);
SLUB_INTERNAL void slub_check_prefork(void);
SLUB_INTERNAL void slub_check_postfork(int child);
SLUB_INTERNAL void slub_observer_postfork_child(void);
SLUB_INTERNAL void slub_emit(struct slub_event *ev);
static inline bool slub_wants(unsigned type)
{
	return unlikely(READ_ONCE(slub_observer_mask) & (1ull << type)) || slub_tp_enabled(type);
}

/* The same for alloc/free on the fast paths: one load per source. */
static inline bool slub_wants_object(unsigned type)
{
	return unlikely(READ_ONCE(slub_observer_mask) & (1ull << type)) ||
	       unlikely(slub_tp_object_enabled(type));
}
/* The event of a successful slab-word update (what it did: type). */
SLUB_INTERNAL void __emit_word(unsigned type, struct slub_cache *s, struct slub_cpu *c,
			       struct slab *slab, const struct slab_word *old,
			       const struct slab_word *new, enum slub_site site, int locked,
			       int owner_old, int owner_new, int dest);
/* __emit_word() gets copies of the words: the caller's own stay out of
 * memory (see slab_update()). */
#define emit_word(type, s, c, slab, old, new, ...)                              \
	do {                                                                    \
		if (slub_wants(type)) {                                         \
			struct slab_word o_ = *(old), n_ = *(new);              \
			__emit_word(type, s, c, slab, &o_, &n_, __VA_ARGS__);   \
		}                                                               \
	} while (0)
SLUB_INTERNAL void ev_init(struct slub_event *ev, unsigned type, struct slub_cache *s,
			   struct slub_cpu *c, struct slab *slab);
SLUB_INTERNAL void ev_word(struct slub_word *dst, const struct slab_word *w, int owner);
SLUB_INTERNAL void slub_report(struct slub_cache *s, struct slab *slab, const void *object,
			       enum slub_error_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
SLUB_INTERNAL void slub_report_foreign(const void *p, const char *where);
/* A warning: printed like a report, not counted as corruption or misuse. */
SLUB_INTERNAL void slub_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- locking witness (SLUB_DEBUG >= 2) ---- */
enum {
	RANK_CACHES = 1, RANK_FLUSH = 2, RANK_LIST = 3, RANK_STATS = 4, RANK_THREADS = 5,
	RANK_PAGES = 6, RANK_META = 7,
};
SLUB_INTERNAL void witness_acquire(unsigned rank);
SLUB_INTERNAL void witness_release(unsigned rank);

/* ---- environment (env.c): an unknown word stops the process ---- */
SLUB_INTERNAL void slub_env_fail(const char *var, const char *what, const char *word, size_t len,
				 const char *accepted) __attribute__((noreturn));
SLUB_INTERNAL bool slub_env_bool(const char *var, bool dflt);
SLUB_INTERNAL long slub_env_number(const char *var, long min, long max, long dflt);
SLUB_INTERNAL unsigned slub_env_debug(void);
SLUB_INTERNAL unsigned slub_env_variants(void);
SLUB_INTERNAL int slub_env_generation(void);
/* slabinfo.c: the SLUBTRACE_SLABINFO reader thread, when asked for. */
SLUB_INTERNAL void slub_slabinfo_start(void);
/* slabinfo.c: the counters of the partial-counters variants, called by the
 * list operations (under list_lock) and by __slab_free's lockless free into
 * a listed slab. */
#define SLUB_VAR_PARTIAL_COUNTERS_ANY (SLUB_VAR_PARTIAL_COUNTERS | SLUB_VAR_PARTIAL_COUNTERS_PCP)
SLUB_INTERNAL void partial_counters_list(struct slub_cache *s, struct slub_node *n,
					 struct slab *slab, struct slub_cpu *c, int add);
SLUB_INTERNAL void partial_counters_free(struct slub_cache *s, struct slab *slab,
					 struct slub_cpu *c, unsigned cnt);
SLUB_INTERNAL void slub_env_check_stacks(void);

/* ---- cache.c ---- */
SLUB_INTERNAL extern const uint8_t slub_size_index[25];
/* kmalloc_slab(): the kernel's size_index[] for <= 192 bytes (8-byte
 * steps), then powers of two up to 8 KiB.  size <= 8192. */
static inline struct slub_cache *kmalloc_slab(size_t size)
{
	if (size <= 192)
		return slub_kmalloc_caches[slub_size_index[(size + 7) >> 3]];
	/* 256 -> 7, 512 -> 8, ... 8192 -> 12 */
	return slub_kmalloc_caches[63 - __builtin_clzl(size - 1)];
}
SLUB_INTERNAL struct slab *slub_object_slab(struct slub_cache *s, void *obj, const char *where);
SLUB_INTERNAL size_t slub_collect_slabs(struct slub_cache *s, struct slab **out, size_t max);
SLUB_INTERNAL void slub_caches_lock_take(void);
SLUB_INTERNAL void slub_caches_lock_release(void);

#endif /* SLUB_INTERNAL_H */
