/* SPDX-License-Identifier: MIT */
/*
 * Caches: creation, destruction, shrink; the kmalloc caches; process-wide
 * initialisation from the environment; fork handlers.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int slub_nodes = 1;
unsigned slub_variant_mask;
unsigned slub_debug_flags_env;
unsigned slub_kmalloc_extra_flags;
struct slub_cache *slub_caches[SLUB_MAX_CACHES];
struct slub_cache *slub_kmalloc_caches[SLUB_NR_KMALLOC];
uint32_t slub_caches_lock;
int slub_initialized;
int slub_kmalloc_plain;
static int stats_at_exit;
static uint32_t init_tid;

SLUB_INTERNAL void slub_threads_init(void);
SLUB_INTERNAL void slub_report_env(void);
SLUB_INTERNAL void slub_release_cpu_slots(struct slub_cache *s);
SLUB_INTERNAL void slub_meta_free(void *p, size_t size);

/* Optional hook for the malloc shim: phase 0 before fork's locking,
 * 1 after fork in the parent, 2 after fork in the child. */
SLUB_API void (*slub_fork_hook)(int phase);

void slub_caches_lock_take(void)
{
	witness_acquire(RANK_CACHES);
	slub_futex_lock(&slub_caches_lock);
}

void slub_caches_lock_release(void)
{
	slub_futex_unlock(&slub_caches_lock);
	witness_release(RANK_CACHES);
}

void slub_set_variant(unsigned mask)
{
	slub_init();
	__atomic_store_n(&slub_variant_mask, mask, __ATOMIC_SEQ_CST);
}

unsigned slub_variant(void)
{
	return READ_ONCE(slub_variant_mask);
}

int slub_nr_nodes(void)
{
	slub_init();
	return slub_nodes;
}

/* Programs may close stderr in their own atexit handlers (coreutils'
 * close_stdout), which run before ours: print to a copy taken at init. */
static int stats_fd = -1;

static void stats_atexit(void)
{
	FILE *f = stats_fd >= 0 ? fdopen(stats_fd, "w") : NULL;

	if (!f)
		return;
	slub_print_all_slabinfo(f);
	fclose(f);
	stats_fd = -1;
}

static struct slub_cache *cache_create_locked(const char *name, size_t size, size_t align,
					      unsigned flags, void (*ctor)(void *));

static const unsigned kmalloc_sizes[SLUB_NR_KMALLOC] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
};

/*
 * Idempotent; every entry point calls it.  A second thread waits for the
 * first; a re-entrant call from the initialising thread returns at once.
 */
void slub_init(void)
{
	int state = __atomic_load_n(&slub_initialized, __ATOMIC_ACQUIRE);

	if (likely(state == 2))
		return;
	uint32_t me = slub_os_tid();
	state = 0;
	if (!__atomic_compare_exchange_n(&slub_initialized, &state, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&init_tid, __ATOMIC_ACQUIRE) == me)
			return;
		while (__atomic_load_n(&slub_initialized, __ATOMIC_ACQUIRE) != 2)
			sched_yield();
		return;
	}
	__atomic_store_n(&init_tid, me, __ATOMIC_RELEASE);

	/* env.c: an unknown word stops the process here, with one line */
	slub_nodes = (int)slub_env_number("SLUBTRACE_NODES", 1, SLUB_MAX_NODES, 1);
	slub_generation_env = slub_env_generation();
	slub_debug_flags_env = slub_env_debug();
	if (slub_env_bool("SLUBTRACE_FULL_LISTS", false))
		slub_kmalloc_extra_flags |= SLUB_F_TRACK_FULL;
	slub_variant_mask = slub_env_variants();
	stats_at_exit = slub_env_bool("SLUBTRACE_STATS", false);
	slub_env_check_stacks();
	slub_report_env();
	slub_trace_init();
	slub_threads_init();

	slub_caches_lock_take();
	for (int i = 0; i < SLUB_NR_KMALLOC; i++) {
		char name[32];
		snprintf(name, sizeof(name), "kmalloc-%u", kmalloc_sizes[i]);
		if (kmalloc_sizes[i] >= 1024)
			snprintf(name, sizeof(name), "kmalloc-%uk", kmalloc_sizes[i] / 1024);
		/* Power-of-two kmalloc objects are naturally aligned. */
		unsigned a = kmalloc_sizes[i] & (kmalloc_sizes[i] - 1) ? 16 : kmalloc_sizes[i];
		if (a > SLUB_PAGE_SIZE)
			a = SLUB_PAGE_SIZE;
		slub_kmalloc_caches[i] = cache_create_locked(
			name, kmalloc_sizes[i], a,
			slub_debug_flags_env | slub_kmalloc_extra_flags | SLUB_F_KMALLOC, NULL);
	}
	slub_caches_lock_release();
	pthread_atfork(slub_prefork, slub_postfork_parent, slub_postfork_child);
	slub_check_init();
	if (stats_at_exit) {
		stats_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
		atexit(stats_atexit);
	}
	__atomic_store_n(&slub_initialized, 2, __ATOMIC_RELEASE);
	if (!(slub_debug_flags_env & SLUB_F_RED_ZONE))
		__atomic_store_n(&slub_kmalloc_plain, 1, __ATOMIC_RELEASE);
	slub_slabinfo_start();
}

const uint8_t slub_size_index[25] = {
	0,                      /* 0 */
	0, 1, 2, 2, 3, 3, 3, 3, /* 8, 16, 24..32, 40..64 */
	4, 4, 4, 4,             /* 72..96 */
	5, 5, 5, 5,             /* 104..128 */
	6, 6, 6, 6, 6, 6, 6, 6, /* 136..192 */
};

static struct slub_cache *cache_create_locked(const char *name, size_t size, size_t align,
					      unsigned flags, void (*ctor)(void *))
{
	unsigned id;

	for (id = 0; id < SLUB_MAX_CACHES; id++)
		if (!slub_caches[id])
			break;
	if (id == SLUB_MAX_CACHES) {
		errno = ENOMEM;
		return NULL;
	}
	struct slub_cache *s = slub_meta_alloc(sizeof(*s));
	if (!s)
		return NULL;
	s->id = id;
	s->flags = flags;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->object_size = size;
	if (flags & SLUB_F_HWCACHE_ALIGN) {
		/* calculate_alignment(): a cache line, or half/quarter of one
		 * for small objects so they still pack. */
		size_t ralign = 64;
		while (size <= ralign / 2 && ralign > sizeof(void *))
			ralign /= 2;
		if (ralign > align)
			align = ralign;
	}
	if (align < sizeof(void *))
		align = sizeof(void *);
	s->align = align;
	s->ctor = ctor;
	if (!slub_calculate_sizes(s)) {
		slub_meta_free(s, sizeof(*s));
		errno = EINVAL;
		return NULL;
	}
	s->flags &= ~SLUB_F_SHEAVES;
	if (slub_generation_env == SLUB_GEN_SHEAVES || (flags & SLUB_F_SHEAVES))
		s->sheaf_capacity = calculate_sheaf_capacity(s);
	if (s->sheaf_capacity) {
		/* 7.0 has no cpu partial slabs, and lists full slabs only for
		 * debug caches, which have no sheaves. */
		s->flags |= SLUB_F_SHEAVES;
		s->flags &= ~SLUB_F_TRACK_FULL;
		s->cpu_partial = 0;
	}
	s->info.name = s->name;
	s->info.object_size = (uint32_t)s->object_size;
	s->info.size = (uint32_t)s->size;
	s->info.align = (uint32_t)s->align;
	s->info.order = s->order;
	s->info.objects = s->objects;
	s->info.min_partial = s->min_partial;
	s->info.cpu_partial = s->cpu_partial;
	s->info.flags = s->flags & ~SLUB_F_KMALLOC;
	__atomic_store_n(&slub_caches[id], s, __ATOMIC_RELEASE);

	if (slub_wants(SLUB_EV_CACHE_CREATE)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_CACHE_CREATE, s, NULL, NULL);
		ev.info = &s->info;
		slub_emit(&ev);
	}
	return s;
}

struct slub_cache *slub_cache_create(const char *name, size_t size, size_t align,
				     unsigned flags, void (*ctor)(void *))
{
	slub_init();
	if (!name || !*name || size == 0 || size > (1u << 24) ||
	    (align & (align - 1)) || align > SLUB_PAGE_SIZE ||
	    (flags & ~(SLUB_F_DEBUG_MASK | SLUB_F_TRACK_FULL | SLUB_F_NO_CPU_PARTIAL |
		       SLUB_F_HWCACHE_ALIGN | SLUB_F_SHEAVES))) {
		errno = EINVAL;
		return NULL;
	}
	slub_caches_lock_take();
	struct slub_cache *s = cache_create_locked(name, size, align, flags | slub_debug_flags_env,
						   ctor);
	slub_caches_lock_release();
	return s;
}

const char *slub_cache_name(const struct slub_cache *s) { return s ? s->name : NULL; }
unsigned slub_cache_id(const struct slub_cache *s) { return s ? s->id : 0; }
size_t slub_cache_object_size(const struct slub_cache *s) { return s ? s->object_size : 0; }

void *slub_cache_alloc(struct slub_cache *s)
{
	return slub_cache_alloc_node(s, -1);
}

void *slub_cache_alloc_node(struct slub_cache *s, int node)
{
	if (unlikely(!s)) {
		errno = EINVAL;
		return NULL;
	}
	if (node >= slub_nodes)
		node = -1;
	void *p = slab_alloc_node(s, node);
	if (unlikely(!p)) {
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

/*
 * kmem_cache_zalloc(): slab_post_alloc_hook() zeroes object_size bytes when
 * the allocation asks for __GFP_ZERO; the red zone after them and the
 * debug metadata are left as the debug paths set them.
 */
void *slub_cache_zalloc(struct slub_cache *s)
{
	if (unlikely(!s || s->ctor)) {
		errno = EINVAL;
		return NULL;
	}
	void *p = slub_cache_alloc_node(s, -1);

	if (p)
		memset(p, 0, s->object_size);
	return p;
}

/*
 * cache_from_obj(): find the object's slab and make sure it belongs to s.
 * Returns NULL after reporting when the pointer is not a valid object.
 */
SLUB_INTERNAL struct slab *slub_object_slab(struct slub_cache *s, void *obj, const char *where);
struct slab *slub_object_slab(struct slub_cache *s, void *obj, const char *where)
{
	struct slab *slab = slub_virt_to_slab(obj);

	if (unlikely(!slab || slab->kind != SLAB_KIND_SLAB)) {
		slub_report_foreign(obj, where);
		return NULL;
	}
	struct slub_cache *owner = READ_ONCE(slab->cache);
	if (unlikely(s && owner != s)) {
		slub_report(s, slab, obj, SLUB_ERR_WRONG_CACHE, "object is from %s",
			    owner ? owner->name : "(no cache)");
		return NULL;
	}
	s = owner;
	if (unlikely(!s)) {
		slub_report_foreign(obj, where);
		return NULL;
	}
	if (unlikely((size_t)((char *)obj - slab->base) % s->size) ||
	    unlikely((char *)obj >= slab->base + (size_t)s->objects * s->size)) {
		slub_report(s, slab, obj, SLUB_ERR_NOT_OBJECT_START,
			    "pointer is not the start of an object");
		return NULL;
	}
	return slab;
}

void slub_cache_free(struct slub_cache *s, void *obj)
{
	int saved = errno;

	if (unlikely(!obj))
		return;
	struct slab *slab = slub_object_slab(s, obj, "slub_cache_free");
	if (likely(slab))
		slab_free(slab->cache, slab, obj);
	errno = saved;
}

int slub_cache_shrink(struct slub_cache *s)
{
	if (!s) {
		errno = EINVAL;
		return -1;
	}
	bool orphan;
	struct slub_thread *t = slub_thread_or_orphan(&orphan);
	struct slub_cpu *c = get_cpu_slab(s, t);
	unsigned long before = t->discards;
	flush_cpu_slab(s, c);
	slub_flush_all_partials(s);
	/* __kmem_cache_shrink() (7.0): the barns too.  The sheaves of other
	 * live threads stay theirs, as their active cpu slabs do. */
	if (s->sheaf_capacity)
		sheaves_barn_shrink(s, c);
	slub_shrink_node_lists(s, c);
	int discarded = (int)(t->discards - before);
	if (orphan)
		slub_orphan_leave();
	return discarded;
}

static long count_inuse(struct slub_cache *s, unsigned long *slabs)
{
	long inuse = 0;

	*slabs = 0;
	for (int i = 0; i < slub_nodes; i++) {
		struct slub_node *n = get_node(s, i);
		witness_acquire(RANK_LIST);
		slub_futex_lock(&n->list_lock);
		for (struct slab *p = n->partial; p; p = p->next) {
			inuse += slab_word_read(p).c.inuse;
			(*slabs)++;
		}
		for (struct slab *p = n->full; p; p = p->next) {
			inuse += slab_word_read(p).c.inuse;
			(*slabs)++;
		}
		slub_futex_unlock(&n->list_lock);
		witness_release(RANK_LIST);
	}
	return inuse;
}

/*
 * kmem_cache_destroy(): flush every cpu, discard empty slabs.  Objects
 * still in use keep their slabs (never freed under live objects): the
 * count is reported and returned, and the cache stays usable for them.
 */
long slub_cache_destroy(struct slub_cache *s)
{
	if (!s) {
		errno = EINVAL;
		return -1;
	}
	bool orphan;
	struct slub_thread *t = slub_thread_or_orphan(&orphan);
	slub_destroy_cpu_slots(s);
	struct slub_cpu *c = get_cpu_slab(s, t);
	if (s->sheaf_capacity)
		sheaves_barn_shrink(s, c);
	slub_shrink_node_lists(s, c);
	slub_fold_stats(s, c);
	unsigned long slabs;
	long inuse = count_inuse(s, &slabs);
	unsigned long total = __atomic_load_n(&s->total_slabs, __ATOMIC_RELAXED);
	if (total > slabs) {
		/* Full slabs are listed only when tracked: count the rest from
		 * the slab total (their objects are all in use). */
		inuse += (long)((total - slabs) * s->objects);
	}
	if (slub_wants(SLUB_EV_CACHE_DESTROY)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_CACHE_DESTROY, s, NULL, NULL);
		ev.count = (uint32_t)inuse;
		slub_emit(&ev);
	}
	if (inuse) {
		slub_warn("kmem_cache_destroy %s: %ld objects remaining in %lu slabs; cache kept",
			  s->name, inuse, total);
		if (orphan)
			slub_orphan_leave();
		return inuse;
	}
	slub_caches_lock_take();
	slub_release_cpu_slots(s);
	__atomic_store_n(&slub_caches[s->id], NULL, __ATOMIC_RELEASE);
	slub_caches_lock_release();
	/* The structure is never reused: a walker (the exit-time report,
	 * the trace's cache announcement, validate_all) may still hold it. */
	__atomic_store_n(&s->destroyed, 1, __ATOMIC_RELEASE);
	if (orphan)
		slub_orphan_leave();
	return 0;
}

void slub_for_each_cache(int (*fn)(struct slub_cache *, void *), void *arg)
{
	slub_init();
	for (unsigned i = 0; i < SLUB_MAX_CACHES; i++) {
		struct slub_cache *s = __atomic_load_n(&slub_caches[i], __ATOMIC_ACQUIRE);
		if (s && !__atomic_load_n(&s->destroyed, __ATOMIC_ACQUIRE) && fn(s, arg))
			break;
	}
}

/* ---- fork: every allocator lock, in the lock order ---- */

void slub_prefork(void)
{
	if (slub_fork_hook)
		slub_fork_hook(0);
	/* before the allocator's locks: a dump holds none of them */
	slub_trace_prefork();
	if (__atomic_load_n(&slub_initialized, __ATOMIC_ACQUIRE) != 2)
		return;
	slub_futex_lock(&slub_caches_lock);
	for (unsigned i = 0; i < SLUB_MAX_CACHES; i++)
		if (slub_caches[i])
			slub_node_locks_take(slub_caches[i]);
	/* barn locks are taken alone at run time: any place in the order */
	for (unsigned i = 0; i < SLUB_MAX_CACHES; i++)
		if (slub_caches[i] && slub_caches[i]->sheaf_capacity)
			sheaves_barn_locks(slub_caches[i], 0);
	for (unsigned i = 0; i < SLUB_MAX_CACHES; i++)
		if (slub_caches[i])
			slub_futex_lock(&slub_caches[i]->stats_lock);
	slub_threads_lock_all();
	slub_pages_lock_all();
	slub_dwcas_prefork();
	slub_check_prefork();
}

void slub_postfork_parent(void)
{
	slub_trace_postfork_parent();
	if (__atomic_load_n(&slub_initialized, __ATOMIC_ACQUIRE) == 2) {
		slub_check_postfork(0);
		slub_dwcas_postfork();
		slub_pages_unlock_all();
		slub_threads_unlock_all();
		for (unsigned i = SLUB_MAX_CACHES; i-- > 0;)
			if (slub_caches[i])
				slub_futex_unlock(&slub_caches[i]->stats_lock);
		for (unsigned i = SLUB_MAX_CACHES; i-- > 0;)
			if (slub_caches[i] && slub_caches[i]->sheaf_capacity)
				sheaves_barn_locks(slub_caches[i], 1);
		for (unsigned i = SLUB_MAX_CACHES; i-- > 0;)
			if (slub_caches[i])
				slub_node_locks_release(slub_caches[i]);
		slub_futex_unlock(&slub_caches_lock);
	}
	if (slub_fork_hook)
		slub_fork_hook(1);
}

void slub_postfork_child(void)
{
	slub_trace_postfork_child();
	slub_observer_postfork_child();
	if (__atomic_load_n(&slub_initialized, __ATOMIC_ACQUIRE) == 2) {
		slub_check_postfork(1);
		slub_dwcas_postfork();
		slub_pages_reinit_child();
		for (unsigned i = 0; i < SLUB_MAX_CACHES; i++) {
			if (!slub_caches[i])
				continue;
			slub_caches[i]->stats_lock = 0;
			slub_node_locks_reinit(slub_caches[i]);
			if (slub_caches[i]->sheaf_capacity)
				sheaves_barn_locks(slub_caches[i], 2);
		}
		slub_caches_lock = 0;
		slub_threads_reinit_child();
	}
	if (slub_fork_hook)
		slub_fork_hook(2);
}
