/* SPDX-License-Identifier: MIT */
/*
 * Slabs: object layout and sizes, the slab word's one writer
 * (slab_update), new_slab / discard_slab, and the debug checks
 * (F consistency, Z red zones, P poison, U owner tracking).
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <dlfcn.h>
#include <sched.h>
#if SLUB_HAVE_UNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif


static unsigned ilog2(unsigned long v)
{
	return v ? 63 - (unsigned)__builtin_clzl(v) : 0;
}

static unsigned fls_u(unsigned v)
{
	return v ? 32 - (unsigned)__builtin_clz(v) : 0;
}

static unsigned objects_for(const struct slub_cache *s, size_t slab_bytes, size_t *map_off)
{
	if (!(s->flags & SLUB_F_CONSISTENCY)) {
		*map_off = 0;
		return (unsigned)(slab_bytes / s->size);
	}
	/* F: the allocation bitmap sits at the slab end. */
	unsigned n = (unsigned)(slab_bytes / s->size);
	while (n > 0) {
		size_t map = ((n + 63) / 64) * 8;
		if ((size_t)n * s->size + map <= slab_bytes) {
			*map_off = slab_bytes - map;
			return n;
		}
		n--;
	}
	*map_off = 0;
	return 0;
}

/*
 * calculate_sizes() + calculate_order() of mm/slub.c, in our words: lay
 * the object out, then pick the smallest order that holds min_objects
 * with at most 1/16 (then 1/8, 1/4) of the slab wasted.
 */
bool slub_calculate_sizes(struct slub_cache *s)
{
	size_t size = s->object_size;
	size_t word = sizeof(void *);

	size = (size + word - 1) & ~(word - 1);
	if ((s->flags & SLUB_F_RED_ZONE) && size == s->object_size)
		size += word; /* room for a red zone after the object */
	s->inuse = size;
	if ((s->flags & (SLUB_F_POISON | SLUB_F_RED_ZONE)) || s->ctor) {
		s->offset = size;
		size += word;
	} else {
		s->offset = (s->object_size / 2) & ~(word - 1);
	}
	s->orig_size_offset = 0;
	if ((s->flags & (SLUB_F_RED_ZONE | SLUB_F_KMALLOC)) == (SLUB_F_RED_ZONE | SLUB_F_KMALLOC)) {
		s->orig_size_offset = size;
		size += word;
	}
	if (s->flags & SLUB_F_STORE_USER) {
		s->track_offset = size;
		size += 2 * sizeof(struct slub_track);
	}
	/* Z: the word before every object is its left red zone: the last
	 * word of the previous stride, and for the first object the end of
	 * red_left_pad, by which the slab's objects start late (their
	 * alignment kept). */
	s->red_left_pad = 0;
	if (s->flags & SLUB_F_RED_ZONE) {
		size += word;
		s->red_left_pad = s->align > word ? s->align : word;
	}
	size = (size + s->align - 1) & ~(s->align - 1);
	s->size = size;

	unsigned min_objects = 4 * (fls_u(slub_os_ncpus()) + 1);
	unsigned max_objects = (unsigned)(((size_t)SLUB_PAGE_SIZE << SLUB_MAX_ORDER) / size);
	if (min_objects > max_objects)
		min_objects = max_objects;
	if (min_objects == 0)
		min_objects = 1;
	int order = -1;
	for (; min_objects >= 1 && order < 0; min_objects--) {
		for (unsigned fract = 16; fract >= 4 && order < 0; fract /= 2) {
			for (unsigned o = 0; o <= SLUB_MAX_ORDER; o++) {
				size_t bytes = ((size_t)SLUB_PAGE_SIZE << o) - s->red_left_pad;
				if (bytes / size < min_objects)
					continue;
				if (bytes % size <= bytes / fract) {
					order = (int)o;
					break;
				}
			}
		}
	}
	if (order < 0) {
		/* get_order(size): the smallest order holding one object. */
		for (unsigned o = 0; o <= SLUB_MAX_SLAB_ORDER; o++)
			if (((size_t)SLUB_PAGE_SIZE << o) >= size + s->red_left_pad) {
				order = (int)o;
				break;
			}
	}
	if (order < 0)
		return false;
	s->order = (unsigned)order;
	s->slab_bytes = (size_t)SLUB_PAGE_SIZE << order;
	/* objects and the F bitmap are counted from the first object */
	s->objects = objects_for(s, s->slab_bytes - s->red_left_pad, &s->map_offset);
	while (s->objects == 0 && s->order < SLUB_MAX_SLAB_ORDER) {
		s->order++;
		s->slab_bytes <<= 1;
		s->objects = objects_for(s, s->slab_bytes - s->red_left_pad, &s->map_offset);
	}
	if (s->objects == 0 || s->objects >= (1u << 15))
		return false;
	/* Exact for every offset: off < 2^21 and size <= 2^21 keep
	 * off * size < 2^42, and off * reciprocal < 2^60. */
	s->reciprocal = ((1ull << 42) + s->size - 1) / s->size;
	s->slab_mask = ~(uintptr_t)(s->slab_bytes - 1);

	/* set_min_partial(): ilog2(size) / 2, clamped to [5, 10]. */
	unsigned mp = ilog2(s->size) / 2;
	s->min_partial = mp < 5 ? 5 : mp > 10 ? 10 : mp;
	/* kmem_cache_open() of the 3.x kernels: free objects a cpu partial
	 * chain may hold before put_cpu_partial() drains it (compared with
	 * pobjects, as those kernels do). */
	if (!kmem_cache_has_cpu_partial(s))
		s->cpu_partial = 0;
	else if (s->size >= SLUB_PAGE_SIZE)
		s->cpu_partial = 2;
	else if (s->size >= 1024)
		s->cpu_partial = 6;
	else if (s->size >= 256)
		s->cpu_partial = 13;
	else
		s->cpu_partial = 30;
	return true;
}

/* ---- the slab word ---- */

static unsigned long lost_update_tick;

/*
 * The failure side of slab_update() (internal.h), out of line and cold:
 * its event on the stack would otherwise give every successful update a
 * large frame.
 */
__attribute__((noinline, cold)) void
slab_update_failed(struct slub_cache *s, struct slab *slab, const struct slab_word *old,
		   const struct slub_dword *seen_word, enum slub_site site, int locked,
		   struct slub_cpu *c, unsigned *attempt)
{
	(*attempt)++;
	stat(c, SLUB_CMPXCHG_DOUBLE_FAIL);
	if (locked)
		stat(c, SLUB_CMPXCHG_DOUBLE_FAIL_LOCKED);
	stat_add(&c->stats.cmpxchg_fail_site[site], 1);
	if (slub_wants(SLUB_EV_CMPXCHG_FAIL)) {
		struct slub_event ev;
		struct slab_word seen = { seen_word->freelist, { .counters = seen_word->counters } };
		ev_init(&ev, SLUB_EV_CMPXCHG_FAIL, s, c, slab);
		ev.site = site;
		ev.locked = locked ? 1 : 0;
		ev.attempt = *attempt;
		/* Exact words; the owner is no part of what the CAS compared. */
		ev_word(&ev.old, old, SLUB_OWNER_UNKNOWN);
		ev_word(&ev.new, &seen, SLUB_OWNER_UNKNOWN);
		slub_emit(&ev);
	}
}

/* After a successful unfreezing CAS under race-window: widen the window
 * between it and the owner clear as well. */
__attribute__((noinline, cold)) void slab_update_unfreeze_window(void)
{
	sched_yield();
}

/* The injected faults of slab_update(): a widened race window, a lost update. */
__attribute__((noinline, cold)) void slab_update_injected(const struct slab_word *old,
							  struct slab_word *new,
							  enum slub_site site)
{
	if (variant(SLUB_INJ_RACE_WINDOW))
		sched_yield();
	if (variant(SLUB_INJ_LOST_UPDATE) && site == SLUB_SITE_SLAB_FREE &&
	    __atomic_add_fetch(&lost_update_tick, 1, __ATOMIC_RELAXED) % 64 == 0) {
		/* Injected: an update that bypasses the seq and emits nothing,
		 * as a plain store would.  It is still done atomically so the
		 * process itself stays consistent; only the trace breaks. */
		new->c.seq = old->c.seq;
	}
}

/* ---- owner tracking (U) ---- */

/*
 * Is this frame the allocator's own?  When the allocator is a shared
 * object (libslub.so, the malloc shim) its frames are those of that
 * object; linked statically, those of functions named slub_*.
 */
static bool own_frame(void *addr, const void *own_base, bool own_is_dso)
{
	Dl_info info;

	if (!dladdr(addr, &info))
		return false;
	if (own_is_dso)
		return info.dli_fbase == own_base;
	return info.dli_sname && !strncmp(info.dli_sname, "slub_", 5);
}

/* The caller's stack, without the allocator's own frames. */
static unsigned capture_stack(uint64_t *addrs, unsigned max)
{
	void *buf[SLUB_TRACK_DEPTH + 12];
	int n;
#if SLUB_HAVE_UNWIND
	n = unw_backtrace(buf, (int)(sizeof(buf) / sizeof(buf[0])));
#else
	buf[0] = __builtin_return_address(0);
	n = 1;
#endif
	Dl_info self;
	bool own_is_dso = dladdr((void *)capture_stack, &self) && self.dli_fbase != NULL;
	/* Linked statically, we share the main program's base. */
	extern char __executable_start[] __attribute__((weak));
	if (own_is_dso && __executable_start && self.dli_fbase == (void *)__executable_start)
		own_is_dso = false;
	int first = 0;
	for (int i = 0; i < n && i < 12; i++)
		if (own_frame(buf[i], self.dli_fbase, own_is_dso))
			first = i + 1;
	unsigned out = 0;
	for (int i = first; i < n && out < max; i++)
		addrs[out++] = (uint64_t)(uintptr_t)buf[i];
	return out;
}

void slub_set_track(struct slub_cache *s, void *object, int which, struct slub_cpu *c)
{
	struct slub_track *tr = (struct slub_track *)((char *)object + s->track_offset) + which;
	struct slub_thread *t = slub_self;
	int saved = errno; /* the unwinder may touch errno; free() must not */

	tr->nr = capture_stack(tr->addrs, SLUB_TRACK_DEPTH);
	tr->cpu = c ? c->id : -1;
	tr->tid = t ? t->tid : 0;
	tr->when_ns = slub_now_ns();
	errno = saved;
}

/* ---- poison and red zones ---- */

static bool check_bytes(const uint8_t *p, uint8_t v, size_t n, size_t *bad)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v) {
			*bad = i;
			return false;
		}
	return true;
}

static void init_object(struct slub_cache *s, void *object, uint8_t red)
{
	char *p = object;

	if (object_poison(s)) {
		memset(p, POISON_FREE, s->object_size - 1);
		p[s->object_size - 1] = (char)POISON_END;
	}
	if (s->flags & SLUB_F_RED_ZONE) {
		memset(p - sizeof(void *), red, sizeof(void *));
		memset(p + s->object_size, red, s->inuse - s->object_size);
	}
}

/* kmalloc with Z: the size asked for, and the bytes after it painted as
 * red zone up to the object's end (the kernel's orig_size, since 6.1). */
static inline size_t get_orig_size(const struct slub_cache *s, const void *object)
{
	return *(const size_t *)((const char *)object + s->orig_size_offset);
}

void slub_set_orig_size(const struct slub_cache *s, void *object, size_t size)
{
	*(size_t *)((char *)object + s->orig_size_offset) = size;
	memset((char *)object + size, RED_ACTIVE, s->object_size - size);
}

size_t slub_orig_size(const struct slub_cache *s, const void *object)
{
	return s->orig_size_offset ? get_orig_size(s, object) : s->object_size;
}

/* Z: the word before the object, RED_ACTIVE or RED_INACTIVE. */
static bool check_left_red(struct slub_cache *s, struct slab *slab, void *object, uint8_t red,
			   const char *when)
{
	const uint8_t *l = (const uint8_t *)object - sizeof(void *);
	size_t bad;

	if (check_bytes(l, red, sizeof(void *), &bad))
		return true;
	slub_report(s, slab, object, SLUB_ERR_REDZONE,
		    "0x%lx: left red zone (%s), written before the object, byte 0x%02x",
		    (unsigned long)(uintptr_t)(l + bad), when, l[bad]);
	return false;
}

bool slub_check_freelist_ptr(struct slub_cache *s, struct slab *slab, void *fp)
{
	if (!fp)
		return true;
	const char *p = fp;
	if (p < slab->base || p >= slab->base + (size_t)s->objects * s->size)
		return false;
	return (size_t)(p - slab->base) % s->size == 0;
}

/*
 * The fast path found that the free pointer of `object`, which it is
 * handing out, does not point into the same slab: the end of the cpu
 * freelist (NULL), or a free object written after its free.  Returns the
 * next object to use, NULL when the chain is corrupt (reported; the rest
 * of it is left alone, and the next allocation takes the slow path).
 */
void *slub_freepointer_check(struct slub_cache *s, struct slab *slab, void *object, void *fp)
{
	if (!fp || slub_check_freelist_ptr(s, slab, fp))
		return fp;
	slub_report(s, slab, object, SLUB_ERR_FREEPOINTER,
		    "free pointer 0x%lx of a free object is outside its slab (written after free?)",
		    (unsigned long)(uintptr_t)fp);
	return NULL;
}

void *slub_freepointer_check_cpu(struct slub_cache *s, struct slub_cpu *c, void *object, void *fp)
{
	return slub_freepointer_check(s, c->slab, object, fp);
}

static bool map_test_and_set(struct slub_cache *s, struct slab *slab, unsigned idx, bool set)
{
	uint64_t *map = (uint64_t *)(slab->base + s->map_offset);
	uint64_t bit = 1ull << (idx % 64);
	uint64_t old;

	if (set)
		old = __atomic_fetch_or(&map[idx / 64], bit, __ATOMIC_ACQ_REL);
	else
		old = __atomic_fetch_and(&map[idx / 64], ~bit, __ATOMIC_ACQ_REL);
	return (old & bit) != 0;
}

/*
 * alloc_debug_processing(): the object leaves the freelist.  Returns the
 * object, or NULL when it must not be handed out (then it is leaked).
 */
void *alloc_debug_processing(struct slub_cache *s, struct slab *slab, void *object,
			     struct slub_cpu *c)
{
	size_t bad;

	if (s->flags & SLUB_F_CONSISTENCY) {
		unsigned idx = obj_to_index(s, slab, object);
		if (map_test_and_set(s, slab, idx, true)) {
			slub_report(s, slab, object, SLUB_ERR_FREEPOINTER,
				    "object on the freelist is marked allocated");
			return NULL;
		}
	}
	if (object_poison(s) &&
	    (!check_bytes(object, POISON_FREE, s->object_size - 1, &bad) ||
	     ((uint8_t *)object)[s->object_size - 1] != POISON_END)) {
		if (((uint8_t *)object)[s->object_size - 1] != POISON_END &&
		    check_bytes(object, POISON_FREE, s->object_size - 1, &bad))
			bad = s->object_size - 1;
		slub_report(s, slab, object, SLUB_ERR_POISON,
			    "0x%lx-0x%lx @offset=%zu: written after free, first byte 0x%02x",
			    (unsigned long)((uintptr_t)object + bad),
			    (unsigned long)((uintptr_t)object + s->object_size - 1), bad,
			    ((uint8_t *)object)[bad]);
		/* Restore the poison and hand it out: the damage is reported. */
	}
	if ((s->flags & SLUB_F_RED_ZONE) &&
	    !check_bytes((uint8_t *)object + s->object_size, RED_INACTIVE,
			 s->inuse - s->object_size, &bad))
		slub_report(s, slab, object, SLUB_ERR_REDZONE,
			    "0x%lx: free object's red zone, byte 0x%02x",
			    (unsigned long)((uintptr_t)object + s->object_size + bad),
			    ((uint8_t *)object)[s->object_size + bad]);
	if (s->flags & SLUB_F_RED_ZONE)
		check_left_red(s, slab, object, RED_INACTIVE, "free object");
	init_object(s, object, RED_ACTIVE);
	if (s->orig_size_offset) /* kmalloc sets the size asked for */
		*(size_t *)((char *)object + s->orig_size_offset) = s->object_size;
	if (s->flags & SLUB_F_STORE_USER)
		slub_set_track(s, object, 0, c);
	return object;
}

/*
 * free_debug_processing(): checks before an object goes back.  Returns
 * false when the free must not happen (reported; the object is left alone).
 */
bool free_debug_processing(struct slub_cache *s, struct slab *slab, void *object,
			   struct slub_cpu *c)
{
	size_t bad;
	const char *p = object;

	if (p < slab->base || p >= slab->base + (size_t)s->objects * s->size ||
	    (size_t)(p - slab->base) % s->size) {
		slub_report(s, slab, object, SLUB_ERR_NOT_OBJECT_START,
			    "pointer is not the start of an object");
		return false;
	}
	if (s->flags & SLUB_F_CONSISTENCY) {
		unsigned idx = obj_to_index(s, slab, object);
		if (!map_test_and_set(s, slab, idx, false)) {
			slub_report(s, slab, object, SLUB_ERR_DOUBLE_FREE, NULL);
			return false;
		}
	}
	size_t orig = slub_orig_size(s, object);
	if (orig < s->object_size &&
	    !check_bytes((const uint8_t *)object + orig, RED_ACTIVE, s->object_size - orig, &bad))
		slub_report(s, slab, object, SLUB_ERR_REDZONE,
			    "0x%lx-0x%lx @offset=%zu: written past the requested %zu bytes, first byte 0x%02x",
			    (unsigned long)((uintptr_t)object + orig + bad),
			    (unsigned long)((uintptr_t)object + s->object_size - 1), orig + bad, orig,
			    ((const uint8_t *)object)[orig + bad]);
	else if ((s->flags & SLUB_F_RED_ZONE) &&
	    !check_bytes((const uint8_t *)object + s->object_size, RED_ACTIVE,
			 s->inuse - s->object_size, &bad))
		slub_report(s, slab, object, SLUB_ERR_REDZONE,
			    "0x%lx-0x%lx @offset=%zu: written past the object's %zu bytes, first byte 0x%02x",
			    (unsigned long)((uintptr_t)object + s->object_size + bad),
			    (unsigned long)((uintptr_t)object + s->inuse - 1), s->object_size + bad,
			    s->object_size, ((const uint8_t *)object)[s->object_size + bad]);
	if (s->flags & SLUB_F_RED_ZONE)
		check_left_red(s, slab, object, RED_ACTIVE, "allocated object");
	if (s->flags & SLUB_F_STORE_USER)
		slub_set_track(s, object, 1, c);
	init_object(s, object, RED_INACTIVE);
	return true;
}

/* ---- new_slab / discard_slab ---- */

/*
 * allocate_slab() + new_slab() (Linux 6.1): pages from the page layer, objects carved
 * and linked in address order, ctor run once per object.  The slab comes
 * back frozen for `c` with inuse == objects and its whole freelist handed
 * to the caller in *freelist (nobody else can see it yet).
 */
static struct slab *allocate_slab(struct slub_cache *s, int node)
{
	/* Slabs are aligned to their size, as the buddy allocator's blocks
	 * are: power-of-two kmalloc objects come out naturally aligned. */
	struct slab *slab = slub_pages_alloc(1u << s->order, s->slab_bytes, SLAB_KIND_SLAB);

	if (!slab)
		return NULL;
	/* the first object's left red zone; base and node relaxed atomics,
	 * as in pages_alloc() */
	__atomic_store_n(&slab->base, slab->base + s->red_left_pad, __ATOMIC_RELAXED);
	slab->cache = s;
	__atomic_store_n(&slab->node, (uint16_t)node, __ATOMIC_RELAXED);
	slab->order = s->order;
	slab->list = SLAB_LIST_NONE;
	slab->next = slab->prev = NULL;

	char *base = slab->base;
	char *last = base + (size_t)(s->objects - 1) * s->size;
	if (s->flags & SLUB_F_CONSISTENCY)
		memset(base + s->map_offset, 0, ((s->objects + 63) / 64) * 8);
	for (char *p = base; p <= last; p += s->size) {
		if (kmem_cache_debug(s)) {
			init_object(s, p, RED_INACTIVE);
			if (s->flags & SLUB_F_STORE_USER)
				memset(p + s->track_offset, 0, 2 * sizeof(struct slub_track));
		}
		if (s->ctor)
			s->ctor(p);
		set_freepointer(s, p, p < last ? p + s->size : NULL);
	}

	return slab;
}

/*
 * A new slab's first word, written plainly while no one else can see the
 * slab (the kernel does the same), its owner (-1: none), the cache's
 * count, and the slab_new event: `count` objects went to the caller.
 */
static void publish_new_slab(struct slub_cache *s, struct slub_cpu *c, struct slab *slab,
			     const struct slab_word *old, const struct slab_word *w, int owner,
			     unsigned count)
{
	struct slub_dword d = { w->freelist, w->c.counters };

	__atomic_store_n(&slab->word.counters, d.counters, __ATOMIC_RELEASE);
	__atomic_store_n(&slab->word.freelist, d.freelist, __ATOMIC_RELEASE);
	slab_owner_set(slab, owner);
	__atomic_fetch_add(&s->total_slabs, 1, __ATOMIC_RELAXED);
	if (!READ_ONCE(s->used))
		WRITE_ONCE(s->used, 1);

	if (slub_wants(SLUB_EV_SLAB_NEW)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_SLAB_NEW, s, c, slab);
		ev.site = SLUB_SITE_NEW_SLAB;
		ev_word(&ev.old, old, -1);
		ev_word(&ev.new, w, owner);
		ev.pages = 1u << s->order;
		ev.count = count;
		slub_emit(&ev);
	}
}

/* new_slab() (Linux 6.1), the classic generation's: frozen for c, its whole
 * freelist to the caller. */
struct slab *new_slab(struct slub_cache *s, int node, struct slub_cpu *c, void **freelist)
{
	struct slab *slab = allocate_slab(s, node);

	if (!slab)
		return NULL;
	char *base = slab->base;

	/* The descriptor outlives the slab: continue its seq. */
	struct slab_word old = slab_word_read(slab);
	struct slab_word w;
	w.freelist = NULL;
	w.c.counters = 0;
	w.c.inuse = s->objects;
	w.c.objects = s->objects;
	w.c.frozen = 1;
	w.c.seq = old.c.seq + 1;
	publish_new_slab(s, c, slab, &old, &w, c->id, s->objects);
	*freelist = base;
	return slab;
}

/*
 * The sheaves generation's new slab (Linux 7.0 new_slab() followed by
 * alloc_from_new_slab()): the first `take` objects go to objects[], the
 * rest stay on the slab's freelist, and the slab is never frozen.  Its
 * first word says so at once (freelist = the rest, inuse = take): the
 * kernel writes the same fields plainly while nobody else can see the
 * slab.  The caller puts a slab with objects left on the partial list.
 */
struct slab *sheaves_new_slab(struct slub_cache *s, int node, struct slub_cpu *c, unsigned take,
			      void **objects)
{
	struct slab *slab = allocate_slab(s, node);

	if (!slab)
		return NULL;
	if (take > s->objects)
		take = s->objects;
	char *p = slab->base;
	for (unsigned i = 0; i < take; i++, p += s->size)
		objects[i] = p;

	struct slab_word old = slab_word_read(slab);
	struct slab_word w;
	w.freelist = take < s->objects ? p : NULL;
	w.c.counters = 0;
	w.c.inuse = take;
	w.c.objects = s->objects;
	w.c.frozen = 0;
	w.c.seq = old.c.seq + 1;
	publish_new_slab(s, c, slab, &old, &w, -1, take);
	return slab;
}

/* discard_slab() (Linux 6.1): the slab is empty, unfrozen, on no list, no
 * lock held. */
void discard_slab(struct slub_cache *s, struct slab *slab, struct slub_cpu *c)
{
	fork_point(SLUB_FP_DISCARD);
	struct slab_word w = slab_word_read(slab);

	slub_assert(w.c.inuse == 0 && !w.c.frozen);
	slub_assert(slab->list == SLAB_LIST_NONE);
	if (slub_wants(SLUB_EV_SLAB_DISCARD)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_SLAB_DISCARD, s, c, slab);
		ev_word(&ev.old, &w, -1);
		ev.new = ev.old;
		ev.pages = 1u << s->order;
		slub_emit(&ev);
	}
	stat(c, SLUB_FREE_SLAB);
	if (slub_self)
		slub_self->discards++;
	__atomic_fetch_sub(&s->total_slabs, 1, __ATOMIC_RELAXED);
	slab->cache = NULL;
	slub_pages_free(slab);
}

/*
 * Injected (early-discard): the discard of a slab whose objects are still
 * in use.  Only the discard's event is emitted: the pages stay with the
 * slab and the process goes on using it, so the run stays sound while its
 * trace shows discard_slab() called too early.
 */
__attribute__((noinline, cold)) void discard_slab_early(struct slub_cache *s, struct slab *slab,
							struct slub_cpu *c)
{
	struct slab_word w = slab_word_read(slab);

	if (slub_wants(SLUB_EV_SLAB_DISCARD)) {
		struct slub_event ev;
		ev_init(&ev, SLUB_EV_SLAB_DISCARD, s, c, slab);
		ev_word(&ev.old, &w, -1);
		ev.new = ev.old;
		ev.pages = 1u << s->order;
		slub_emit(&ev);
	}
}
