/* SPDX-License-Identifier: MIT */
/*
 * The page layer: 4 MiB aligned segments carved into page runs (slabs of
 * order 0..3 and kmalloc_large allocations up to 1 MiB), and dedicated
 * mappings for larger allocations.
 *
 * Segment layout:
 *
 *   | header: struct segment, one struct slab per page | data pages ... |
 *   0                                     SEG_DATA_START * 4 KiB          4 MiB
 *
 * object -> slab is O(1): mask the pointer to its segment, index the page,
 * follow a tail page's head_off.  The segment map (one bit per 4 MiB of
 * address space, reserved lazily) says which segments are ours, so any
 * pointer can be checked without touching memory that is not ours.
 *
 * Freed pages are reused first; when free-but-resident pages pass a
 * threshold they are returned to the OS with MADV_DONTNEED, after a purge
 * delay (SLUBTRACE_PURGE_DELAY_MS, default 1000; 0 at once): the pages of
 * discarded slabs stay resident for the next pass of a program that frees
 * and allocates in waves, as the kernel's direct-mapped pages always do
 * (and jemalloc's dirty_decay_ms, mimalloc's purge delay).  The delay runs
 * from the moment the threshold is passed and is checked at every free of
 * pages; beyond PURGE_HARD_PAGES the excess goes back at once, down to half
 * that limit (the rest waits for the delay).  Segments stay
 * mapped (their descriptors keep each slab address's seq monotone); only
 * their pages are returned.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "page.h"
#include "segment.h"

#include <errno.h>
#include <sys/mman.h>

#define SEG_MAGIC 0x736c7562736567ull /* "slubseg" */
#define LARGE_IN_SEGMENT_MAX (1ul << 20)
#define PURGE_THRESHOLD_PAGES 2048     /* 8 MiB of free resident pages */
#define PURGE_HARD_PAGES 32768         /* 128 MiB: no delay past this */

struct huge_entry {
	void *ptr;
	void *map;
	size_t map_size;
	size_t size;
};

static uint32_t pages_lock;
/* One bit per segment-sized chunk of the 47-bit address space: 4 MiB of
 * .bss, of which only the pages covering our segments are ever touched. */
uint64_t slub_segmap[SEGMAP_BITS / 64];
static struct segment *segments;
static unsigned long nr_segments, dirty_pages;
static long purge_delay_ms = -1;       /* SLUBTRACE_PURGE_DELAY_MS, read once */
static uint64_t over_since_ns;         /* when dirty_pages passed the threshold */
static struct huge_entry *huge_tab;
static size_t huge_cap, huge_count, huge_used; /* used: live + tombstones */
static unsigned long huge_bytes;

static void pages_lock_take(void)
{
	witness_acquire(RANK_PAGES);
	slub_futex_lock(&pages_lock);
}

static void pages_lock_drop(void)
{
	slub_futex_unlock(&pages_lock);
	witness_release(RANK_PAGES);
}

void slub_page_fail_after(long n)
{
	slub_os_fail_after(n);
}

static void segmap_set(uintptr_t chunk)
{
	__atomic_fetch_or(&slub_segmap[chunk / 64], 1ull << (chunk % 64), __ATOMIC_RELEASE);
}

static inline bool bit_test(const uint64_t *map, unsigned i)
{
	return (map[i / 64] >> (i % 64)) & 1;
}

static void bits_assign(uint64_t *map, unsigned start, unsigned n, bool v)
{
	for (unsigned i = start; i < start + n; i++) {
		if (v)
			map[i / 64] |= 1ull << (i % 64);
		else
			map[i / 64] &= ~(1ull << (i % 64));
	}
}

static struct segment *segment_new(void)
{
	struct segment *seg = slub_os_map(SEG_SIZE, SEG_SIZE);
	if (!seg)
		return NULL;
	if ((uintptr_t)seg >> ADDR_BITS) {
		/* Outside the range the segment map covers. */
		slub_os_unmap(seg, SEG_SIZE);
		errno = ENOMEM;
		return NULL;
	}
	seg->magic = SEG_MAGIC;
	seg->nr_free = SEG_DATA_PAGES;
	seg->first_free = SEG_DATA_START;
	bits_assign(seg->used, 0, SEG_DATA_START, true);
	seg->next = segments;
	segments = seg;
	nr_segments++;
	segmap_set((uintptr_t)seg >> SEG_SHIFT);
	return seg;
}

/* First index >= from whose bit in map equals want (SEG_PAGES if none). */
static unsigned next_bit(const uint64_t *map, unsigned from, bool want)
{
	while (from < SEG_PAGES) {
		uint64_t w = want ? map[from / 64] : ~map[from / 64];
		w &= ~0ull << (from % 64);
		if (w)
			return (from & ~63u) + (unsigned)__builtin_ctzll(w);
		from = (from & ~63u) + 64;
	}
	return SEG_PAGES;
}

/* First fit of n free pages whose address is aligned to align_pages,
 * scanning the used bitmap a word at a time from the first free page. */
static long segment_find_run(struct segment *seg, unsigned n, unsigned align_pages)
{
	if (seg->nr_free < n)
		return -1;
	unsigned start = seg->first_free > SEG_DATA_START ? seg->first_free : SEG_DATA_START;
	for (;;) {
		start = next_bit(seg->used, start, false);
		if (align_pages > 1)
			start = (start + align_pages - 1) & ~(align_pages - 1);
		if (start + n > SEG_PAGES)
			return -1;
		unsigned used = next_bit(seg->used, start, true);
		if (used >= start + n)
			return start;
		start = used + 1;
	}
}

static unsigned long count_dirty(struct segment *seg, unsigned start, unsigned n)
{
	unsigned long d = 0;

	for (unsigned i = start; i < start + n; i++)
		d += bit_test(seg->dirty, i);
	return d;
}

/* A run of npages; *dirty (when asked) tells how many of its pages were
 * freed by someone and not purged since: the others read as zero. */
static struct slab *pages_alloc(unsigned npages, size_t align, int kind, unsigned long *dirty)
{
	unsigned align_pages = align > SLUB_PAGE_SIZE ? (unsigned)(align >> SLUB_PAGE_SHIFT) : 1;
	struct segment *seg;
	long start = -1;

	if (npages == 0 || npages > SEG_DATA_PAGES || align_pages > SEG_PAGES / 2) {
		errno = ENOMEM;
		return NULL;
	}
	pages_lock_take();
	for (seg = segments; seg; seg = seg->next) {
		start = segment_find_run(seg, npages, align_pages);
		if (start >= 0)
			break;
	}
	if (!seg) {
		seg = segment_new();
		if (seg)
			start = segment_find_run(seg, npages, align_pages);
	}
	if (!seg || start < 0) {
		pages_lock_drop();
		errno = ENOMEM;
		return NULL;
	}
	unsigned long d = count_dirty(seg, (unsigned)start, npages);
	if (dirty)
		*dirty = d;
	bits_assign(seg->used, (unsigned)start, npages, true);
	bits_assign(seg->dirty, (unsigned)start, npages, false);
	if ((unsigned)start <= seg->first_free)
		seg->first_free = next_bit(seg->used, (unsigned)start, false);
	seg->nr_free -= npages;
	seg->nr_dirty -= (uint32_t)d;
	dirty_pages -= d;

	struct slab *head = &seg->desc[start];
	for (unsigned i = 1; i < npages; i++) {
		struct slab *t = &seg->desc[start + i];
		t->head_off = i;
		__atomic_store_n(&t->kind, SLAB_KIND_TAIL, __ATOMIC_RELEASE);
	}
	/* Relaxed atomic: a thread whose free emptied the slab this
	 * descriptor last described may still read base for its event
	 * (observer.c ev_init) after its CAS let the slab go. */
	__atomic_store_n(&head->base, (char *)seg + ((size_t)start << SLUB_PAGE_SHIFT),
			 __ATOMIC_RELAXED);
	head->npages = npages;
	head->head_off = 0;
	head->next = head->prev = NULL;
	head->list = SLAB_LIST_NONE;
	head->owner = -1;
	__atomic_store_n(&head->kind, (uint8_t)kind, __ATOMIC_RELEASE);
	pages_lock_drop();
	return head;
}

struct slab *slub_pages_alloc(unsigned npages, size_t align, int kind)
{
	return pages_alloc(npages, align, kind, NULL);
}

/* Returns free resident pages to the OS until at most `keep` are left. */
static void purge_dirty_locked(unsigned long keep)
{
	for (struct segment *seg = segments; seg && dirty_pages > keep; seg = seg->next) {
		unsigned i = SEG_DATA_START;
		while (i < SEG_PAGES && seg->nr_dirty && dirty_pages > keep) {
			if (!bit_test(seg->dirty, i)) {
				i++;
				continue;
			}
			unsigned j = i;
			while (j < SEG_PAGES && bit_test(seg->dirty, j) && dirty_pages - (j - i) > keep)
				j++;
			slub_os_purge((char *)seg + ((size_t)i << SLUB_PAGE_SHIFT),
				      (size_t)(j - i) << SLUB_PAGE_SHIFT);
			bits_assign(seg->dirty, i, j - i, false);
			seg->nr_dirty -= j - i;
			dirty_pages -= j - i;
			i = j;
		}
	}
}

/* Past the threshold: purge now, or once the delay has run out. */
static void purge_dirty_maybe_locked(void)
{
	uint64_t now;

	if (dirty_pages <= PURGE_THRESHOLD_PAGES) {
		over_since_ns = 0;
		return;
	}
	if (purge_delay_ms < 0)
		purge_delay_ms = slub_env_number("SLUBTRACE_PURGE_DELAY_MS", 0, 3600000, 1000);
	if (purge_delay_ms && dirty_pages > PURGE_HARD_PAGES) {
		/* Past the hard limit, the excess goes back at once, down to
		 * half the limit: a program that frees more than the limit in
		 * one wave (a 160 MiB cache emptied) finds half of it warm on
		 * its next wave instead of faulting all of it in again, and
		 * the purge runs once per half-limit of frees, not per free.
		 * The delay keeps running for what is left. */
		purge_dirty_locked(PURGE_HARD_PAGES / 2);
		if (!over_since_ns)
			over_since_ns = slub_now_ns();
		return;
	}
	if (purge_delay_ms) {
		now = slub_now_ns();
		if (!over_since_ns) {
			over_since_ns = now;
			return;
		}
		if (now - over_since_ns < (uint64_t)purge_delay_ms * 1000000u)
			return;
	}
	purge_dirty_locked(0);
	over_since_ns = 0;
}

static bool another_free_segment(const struct segment *seg)
{
	for (struct segment *s = segments; s; s = s->next)
		if (s != seg && s->nr_free == SEG_DATA_PAGES)
			return true;
	return false;
}

void slub_pages_free(struct slab *head)
{
	struct segment *seg = (struct segment *)((uintptr_t)head & ~(SEG_SIZE - 1));
	unsigned start = (unsigned)(head - seg->desc);
	unsigned n = head->npages;

	pages_lock_take();
	for (unsigned i = 0; i < n; i++)
		__atomic_store_n(&seg->desc[start + i].kind, SLAB_KIND_FREE, __ATOMIC_RELEASE);
	bits_assign(seg->used, start, n, false);
	bits_assign(seg->dirty, start, n, true);
	if (start < seg->first_free)
		seg->first_free = start;
	seg->nr_free += n;
	seg->nr_dirty += n;
	dirty_pages += n;
	/* Idle memory goes back to the OS: a whole free segment at once when
	 * another free segment is already kept warm (one spare absorbs a
	 * program that allocates and frees the same large block in a loop),
	 * the rest when enough free pages are resident. */
	if (purge_delay_ms < 0)
		purge_delay_ms = slub_env_number("SLUBTRACE_PURGE_DELAY_MS", 0, 3600000, 1000);
	if (!purge_delay_ms && seg->nr_free == SEG_DATA_PAGES && another_free_segment(seg)) {
		slub_os_purge((char *)seg + (SEG_DATA_START << SLUB_PAGE_SHIFT),
			      SEG_DATA_PAGES << SLUB_PAGE_SHIFT);
		dirty_pages -= seg->nr_dirty;
		seg->nr_dirty = 0;
		memset(seg->dirty, 0, sizeof(seg->dirty));
	} else {
		purge_dirty_maybe_locked();
	}
	pages_lock_drop();
}

/* ---- huge allocations: dedicated mappings, found by exact pointer ---- */

static size_t huge_hash(const void *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (cap - 1);
}

/* Room for one more entry without growing the table. */
static bool huge_reserve_locked(void)
{
	if ((huge_used + 1) * 2 > huge_cap) {
		size_t ncap = huge_cap ? huge_cap : 256;
		while ((huge_count + 1) * 4 > ncap)
			ncap *= 2;
		struct huge_entry *nt = slub_os_map(ncap * sizeof(*nt), SLUB_PAGE_SIZE);
		if (!nt)
			return false;
		for (size_t i = 0; i < huge_cap; i++) {
			if (!huge_tab[i].ptr || huge_tab[i].ptr == (void *)1)
				continue;
			size_t j = huge_hash(huge_tab[i].ptr, ncap);
			while (nt[j].ptr)
				j = (j + 1) & (ncap - 1);
			nt[j] = huge_tab[i];
		}
		if (huge_tab)
			slub_os_unmap(huge_tab, huge_cap * sizeof(*huge_tab));
		huge_tab = nt;
		huge_cap = ncap;
		huge_used = huge_count;
	}
	return true;
}

static bool huge_insert_locked(struct huge_entry e)
{
	if (!huge_reserve_locked())
		return false;
	size_t j = huge_hash(e.ptr, huge_cap);
	while (huge_tab[j].ptr && huge_tab[j].ptr != (void *)1)
		j = (j + 1) & (huge_cap - 1);
	if (!huge_tab[j].ptr)
		huge_used++;
	huge_tab[j] = e;
	huge_count++;
	return true;
}

static struct huge_entry *huge_find_locked(const void *p)
{
	if (!huge_cap)
		return NULL;
	size_t j = huge_hash(p, huge_cap);
	while (huge_tab[j].ptr) {
		if (huge_tab[j].ptr == p)
			return &huge_tab[j];
		j = (j + 1) & (huge_cap - 1);
	}
	return NULL;
}

/*
 * Dedicated mappings freed lately, so that a second free of one is
 * reported as what it is (its address is unmapped and in no table).  A
 * new mapping at a remembered address is forgotten here.
 */
#define HUGE_FREED_RING 64
static struct { void *ptr; size_t size; } huge_freed[HUGE_FREED_RING];
static unsigned huge_freed_next;

static void huge_freed_forget_locked(const void *p, size_t size)
{
	for (unsigned i = 0; i < HUGE_FREED_RING; i++)
		if ((const char *)huge_freed[i].ptr < (const char *)p + size &&
		    (const char *)p < (const char *)huge_freed[i].ptr + huge_freed[i].size)
			huge_freed[i].ptr = NULL;
}

/*
 * Red zones of large blocks (Z in SLUBTRACE_DEBUG): the block starts
 * large_rz_left() bytes into its pages and at least LARGE_RZ_RIGHT bytes
 * follow it; both, up to the end of its last page, hold RED_ACTIVE and are
 * checked when the block is freed or resized.  Usable size is then the
 * size asked for, so that malloc_usable_size() never invites a write into
 * them.
 */
#define LARGE_RZ_RIGHT 16

static inline bool large_red_zones(void)
{
	return unlikely(slub_debug_flags_env & SLUB_F_RED_ZONE);
}

static size_t large_rz_left(size_t align)
{
	return large_red_zones() ? (align > 16 ? align : 16) : 0;
}

static size_t large_rz_extra(size_t align)
{
	return large_red_zones() ? large_rz_left(align) + LARGE_RZ_RIGHT : 0;
}

static void large_paint(char *user, size_t size, size_t left, char *end)
{
	memset(user - left, RED_ACTIVE, left);
	memset(user + size, RED_ACTIVE, (size_t)(end - (user + size)));
}

static bool large_check(const char *user, size_t size, size_t left, const char *end,
			const char *what)
{
	const char *bad = NULL;

	for (const char *q = user - left; q < user && !bad; q++)
		if ((uint8_t)*q != RED_ACTIVE)
			bad = q;
	for (const char *q = user + size; q < end && !bad; q++)
		if ((uint8_t)*q != RED_ACTIVE)
			bad = q;
	if (!bad)
		return true;
	slub_report(NULL, NULL, user, SLUB_ERR_REDZONE,
		    "%s(0x%lx): large block of %zu bytes, byte 0x%02x at offset %ld (%s red zone)",
		    what, (unsigned long)(uintptr_t)user, size, (uint8_t)*bad, (long)(bad - user),
		    bad < user ? "left" : "right");
	large_paint((char *)user, size, left, (char *)end);
	return false;
}

/*
 * kmalloc_large: a page run in a segment up to 1 MiB, a dedicated mapping
 * beyond.  With `zero` the block reads as zero (calloc): fresh mappings and
 * purged pages already do, so only pages that were freed dirty are
 * cleared -- calloc(1, 1 GiB) touches nothing.
 */
static void *large_alloc(size_t size, size_t align, bool zero)
{
	if (align < 16)
		align = 16;
	if (size > (1ull << 46)) {
		errno = ENOMEM;
		return NULL;
	}
	size_t left = large_rz_left(align), need = size + large_rz_extra(align);
	if (need <= LARGE_IN_SEGMENT_MAX && align <= (SEG_SIZE >> 2)) {
		size_t bytes = (need + SLUB_PAGE_SIZE - 1) & ~(SLUB_PAGE_SIZE - 1);
		unsigned long dirty;
		struct slab *d = pages_alloc((unsigned)(bytes >> SLUB_PAGE_SHIFT), align,
					     SLAB_KIND_LARGE, &dirty);
		if (!d)
			return NULL;
		d->large_offset = (uint32_t)left;
		d->large_size = size;
		d->cache = NULL;
		if (zero && dirty)
			memset(d->base + left, 0, size);
		if (large_red_zones())
			large_paint(d->base + left, size, left, d->base + bytes);
		return d->base + left;
	}
	/* A dedicated mapping; the pointer is the key for free and lookup. */
	size_t a = align > SLUB_PAGE_SIZE ? align : SLUB_PAGE_SIZE;
	size_t map_size = (need + SLUB_PAGE_SIZE - 1) & ~(SLUB_PAGE_SIZE - 1);
	if (need < size || map_size < need || map_size + a < map_size) {
		errno = ENOMEM;
		return NULL;
	}
	char *m = slub_os_map(map_size, a);
	if (!m)
		return NULL;
	struct huge_entry e = { m + left, m, map_size, size };
	pages_lock_take();
	huge_freed_forget_locked(m, map_size);
	bool ok = huge_insert_locked(e);
	if (ok)
		huge_bytes += map_size;
	pages_lock_drop();
	if (!ok) {
		slub_os_unmap(m, map_size);
		errno = ENOMEM;
		return NULL;
	}
	if (large_red_zones())
		large_paint(m + left, size, left, m + map_size);
	return m + left;
}

void *slub_large_alloc(size_t size, size_t align)
{
	return large_alloc(size, align, false);
}

void *slub_large_calloc(size_t size)
{
	return large_alloc(size, 16, true);
}

/* Returns true if p was a huge allocation (and frees it). */
SLUB_INTERNAL bool slub_huge_free(void *p);
bool slub_huge_free(void *p)
{
	pages_lock_take();
	struct huge_entry *e = huge_find_locked(p);
	struct huge_entry copy;
	if (e) {
		copy = *e;
		e->ptr = (void *)1; /* tombstone */
		huge_count--;
		huge_bytes -= copy.map_size;
		huge_freed[huge_freed_next].ptr = copy.ptr;
		huge_freed[huge_freed_next].size = copy.map_size;
		huge_freed_next = (huge_freed_next + 1) % HUGE_FREED_RING;
	}
	pages_lock_drop();
	if (!e)
		return false;
	if (large_red_zones())
		large_check(copy.ptr, copy.size, (size_t)((char *)copy.ptr - (char *)copy.map),
			    (char *)copy.map + copy.map_size, "free");
	slub_os_unmap(copy.map, copy.map_size);
	return true;
}

static size_t huge_usable(const void *p)
{
	size_t r = 0;

	pages_lock_take();
	struct huge_entry *e = huge_find_locked(p);
	if (e)
		r = large_red_zones() ? e->size
				      : e->map_size - (size_t)((const char *)p - (const char *)e->map);
	pages_lock_drop();
	return r;
}

void slub_large_free(struct slab *d, void *p)
{
	if (d) {
		if (large_red_zones())
			large_check(p, d->large_size, d->large_offset,
				    d->base + ((size_t)d->npages << SLUB_PAGE_SHIFT), "free");
		slub_pages_free(d);
		return;
	}
	if (!slub_huge_free(p))
		slub_report_foreign(p, "free");
}

size_t slub_large_usable(struct slab *d, const void *p)
{
	if (d && large_red_zones()) {
		size_t off = (size_t)((const char *)p - (d->base + d->large_offset));
		return off < d->large_size ? d->large_size - off : 0;
	}
	if (d)
		return ((size_t)d->npages << SLUB_PAGE_SHIFT) - (size_t)((const char *)p - d->base);
	return huge_usable(p);
}

/*
 * realloc of a large block without copying it.
 *
 * A page run grows into the free pages that follow it in its segment, or
 * gives its tail pages back; a dedicated mapping is resized by mremap(),
 * which moves page tables, not bytes, so a buffer grown step by step to
 * any size is never copied and never held twice.  Returns the block's
 * (possibly new) address, or NULL when the caller must allocate, copy and
 * free: a run that would pass 1 MiB or whose next pages are taken, or
 * mremap() refused (errno ENOMEM).
 */
unsigned long slub_realloc_copies, slub_realloc_copied_bytes;

static bool run_resize_locked(struct slab *head, unsigned new_n)
{
	struct segment *seg = (struct segment *)((uintptr_t)head & ~(SEG_SIZE - 1));
	unsigned start = (unsigned)(head - seg->desc);
	unsigned n = head->npages;

	if (new_n > n) {
		unsigned more = new_n - n;

		if (start + new_n > SEG_PAGES || next_bit(seg->used, start + n, true) < start + new_n)
			return false;
		unsigned long d = count_dirty(seg, start + n, more);
		bits_assign(seg->used, start + n, more, true);
		bits_assign(seg->dirty, start + n, more, false);
		if (seg->first_free >= start + n && seg->first_free < start + new_n)
			seg->first_free = next_bit(seg->used, start + n, false);
		seg->nr_free -= more;
		seg->nr_dirty -= (uint32_t)d;
		dirty_pages -= d;
		for (unsigned i = n; i < new_n; i++) {
			struct slab *t = &seg->desc[start + i];
			t->head_off = i;
			__atomic_store_n(&t->kind, SLAB_KIND_TAIL, __ATOMIC_RELEASE);
		}
		head->npages = new_n;
		return true;
	}
	unsigned less = n - new_n;
	head->npages = new_n;
	for (unsigned i = new_n; i < n; i++)
		__atomic_store_n(&seg->desc[start + i].kind, SLAB_KIND_FREE, __ATOMIC_RELEASE);
	bits_assign(seg->used, start + new_n, less, false);
	bits_assign(seg->dirty, start + new_n, less, true);
	if (start + new_n < seg->first_free)
		seg->first_free = start + new_n;
	seg->nr_free += less;
	seg->nr_dirty += less;
	dirty_pages += less;
	purge_dirty_maybe_locked();
	return true;
}

static void *huge_resize(void *p, size_t size)
{
	char *q = NULL;
	size_t left = 0, need = size, map_size;

	pages_lock_take();
	struct huge_entry *e = huge_find_locked(p);
	if (e && large_red_zones()) {
		left = (size_t)((char *)e->ptr - (char *)e->map);
		need = size + left + LARGE_RZ_RIGHT;
		struct huge_entry copy = *e;
		pages_lock_drop();
		large_check(copy.ptr, copy.size, left, (char *)copy.map + copy.map_size, "realloc");
		pages_lock_take();
		e = huge_find_locked(p);
	}
	map_size = (need + SLUB_PAGE_SIZE - 1) & ~(SLUB_PAGE_SIZE - 1);
	/* The entry moves when the mapping does: make room first, so that
	 * nothing can fail once mremap() has moved it. */
	if (e && need >= size && map_size >= need && huge_reserve_locked()) {
		e = huge_find_locked(p); /* the table may have been rebuilt */
		/* Growth takes a quarter more than asked, so that a buffer grown
		 * by small steps remaps O(log n) times, not once per step; the
		 * slack is address space until it is written.  A small shrink
		 * keeps the mapping as it is. */
		if (map_size > e->map_size && map_size < e->map_size + e->map_size / 4)
			map_size = (e->map_size + e->map_size / 4 + SLUB_PAGE_SIZE - 1) &
				   ~(SLUB_PAGE_SIZE - 1);
		if (map_size <= e->map_size && map_size > e->map_size - e->map_size / 4)
			map_size = e->map_size;
		q = map_size == e->map_size ? e->map
					    : slub_os_remap(e->map, e->map_size, map_size);
		if (q) {
			struct huge_entry n = { q + left, q, map_size, size };
			huge_freed_forget_locked(q, map_size);
			huge_bytes += map_size - e->map_size;
			if (n.ptr == e->ptr) {
				*e = n;
			} else {
				e->ptr = (void *)1; /* tombstone */
				huge_count--;
				huge_insert_locked(n); /* reserved: cannot fail */
			}
		}
	}
	pages_lock_drop();
	if (q && large_red_zones())
		large_paint(q + left, size, left, q + map_size);
	return q ? q + left : NULL;
}

void *slub_large_resize(struct slab *d, void *p, size_t size)
{
	if (!d)
		return huge_resize(p, size);
	size_t need = size + d->large_offset + (large_red_zones() ? LARGE_RZ_RIGHT : 0);
	if (need > LARGE_IN_SEGMENT_MAX || need < size)
		return NULL;
	if (large_red_zones())
		large_check(p, d->large_size, d->large_offset,
			    d->base + ((size_t)d->npages << SLUB_PAGE_SHIFT), "realloc");
	unsigned new_n = (unsigned)((need + SLUB_PAGE_SIZE - 1) >> SLUB_PAGE_SHIFT);
	pages_lock_take();
	bool ok = run_resize_locked(d, new_n);
	if (ok)
		d->large_size = size;
	pages_lock_drop();
	if (ok && large_red_zones())
		large_paint(p, size, d->large_offset, d->base + ((size_t)new_n << SLUB_PAGE_SHIFT));
	return ok ? p : NULL;
}

/*
 * A pointer no live block starts at, on its way to free(): was it ours?
 * SLUB_STALE_FREED when it lies in pages of ours that are free, or is a
 * dedicated mapping freed lately (a second free); SLUB_STALE_INSIDE when
 * it lies inside a live dedicated mapping (*block: its start) or in a
 * segment's header; SLUB_STALE_NONE when the page layer never had it.
 * Only the free path of pointers that are not ours pays for this.
 */
int slub_large_stale(const void *p, const void **block)
{
	uintptr_t chunk = (uintptr_t)p >> SEG_SHIFT;
	int r = SLUB_STALE_NONE;

	*block = NULL;
	if (chunk < SEGMAP_BITS &&
	    ((__atomic_load_n(&slub_segmap[chunk / 64], __ATOMIC_ACQUIRE) >> (chunk % 64)) & 1)) {
		struct segment *seg = (struct segment *)(chunk << SEG_SHIFT);
		size_t idx = ((uintptr_t)p - (uintptr_t)seg) >> SLUB_PAGE_SHIFT;

		*block = seg;
		if (idx < SEG_DATA_START)
			return SLUB_STALE_INSIDE;
		/* virt_to_slab() found no live slab or block here */
		return SLUB_STALE_FREED;
	}
	pages_lock_take();
	for (size_t i = 0; i < huge_cap && r == SLUB_STALE_NONE; i++) {
		const struct huge_entry *e = &huge_tab[i];
		if (e->ptr && e->ptr != (void *)1 && (const char *)p >= (const char *)e->map &&
		    (const char *)p < (const char *)e->map + e->map_size) {
			*block = e->ptr;
			r = SLUB_STALE_INSIDE;
		}
	}
	for (unsigned i = 0; i < HUGE_FREED_RING && r == SLUB_STALE_NONE; i++)
		if (huge_freed[i].ptr == p) {
			*block = p;
			r = SLUB_STALE_FREED;
		}
	pages_lock_drop();
	return r;
}

/* Public-ish lookup helper for huge allocations (kmalloc.c). */
SLUB_INTERNAL bool slub_huge_lookup(const void *p, size_t *usable);
bool slub_huge_lookup(const void *p, size_t *usable)
{
	size_t u = huge_usable(p);

	if (usable)
		*usable = u;
	return u != 0;
}

/* ---- metadata: caches, threads, cpu slots ---- */

static uint32_t meta_lock;
static char *meta_cur, *meta_end;
struct meta_free { struct meta_free *next; };
static struct { size_t size; struct meta_free *head; } meta_lists[8];

void *slub_meta_alloc(size_t size)
{
	size = (size + 63) & ~(size_t)63;
	witness_acquire(RANK_META);
	slub_futex_lock(&meta_lock);
	void *p = NULL;
	for (int i = 0; i < 8; i++) {
		if (meta_lists[i].size == size && meta_lists[i].head) {
			p = meta_lists[i].head;
			meta_lists[i].head = meta_lists[i].head->next;
			memset(p, 0, size);
			break;
		}
	}
	if (!p) {
		if ((size_t)(meta_end - meta_cur) < size) {
			size_t chunk = size > (256u << 10) ? size : (256u << 10);
			chunk = (chunk + SLUB_PAGE_SIZE - 1) & ~(SLUB_PAGE_SIZE - 1);
			char *m = slub_os_map(chunk, SLUB_PAGE_SIZE);
			if (m) {
				meta_cur = m;
				meta_end = m + chunk;
			}
		}
		if ((size_t)(meta_end - meta_cur) >= size) {
			p = meta_cur;
			meta_cur += size;
		}
	}
	slub_futex_unlock(&meta_lock);
	witness_release(RANK_META);
	if (!p)
		errno = ENOMEM;
	return p;
}

SLUB_INTERNAL void slub_meta_free(void *p, size_t size);
void slub_meta_free(void *p, size_t size)
{
	size = (size + 63) & ~(size_t)63;
	witness_acquire(RANK_META);
	slub_futex_lock(&meta_lock);
	for (int i = 0; i < 8; i++) {
		if (meta_lists[i].size == size || meta_lists[i].size == 0) {
			meta_lists[i].size = size;
			struct meta_free *f = p;
			f->next = meta_lists[i].head;
			meta_lists[i].head = f;
			p = NULL;
			break;
		}
	}
	slub_futex_unlock(&meta_lock);
	witness_release(RANK_META);
	/* More distinct sizes than lists: the block stays allocated. */
}

/* ---- fork ---- */

void slub_pages_lock_all(void)
{
	slub_futex_lock(&pages_lock);
	slub_futex_lock(&meta_lock);
}

void slub_pages_unlock_all(void)
{
	slub_futex_unlock(&meta_lock);
	slub_futex_unlock(&pages_lock);
}

void slub_pages_reinit_child(void)
{
	meta_lock = 0;
	pages_lock = 0;
}

void slub_page_census(struct slub_page_census *out)
{
	memset(out, 0, sizeof(*out));
	pages_lock_take();
	for (struct segment *seg = segments; seg; seg = seg->next) {
		out->segments++;
		out->pages_used += SEG_DATA_PAGES - seg->nr_free;
		out->pages_free_dirty += seg->nr_dirty;
		out->pages_free_clean += seg->nr_free - seg->nr_dirty;
	}
	out->huge_allocs = huge_count;
	out->huge_bytes = huge_bytes;
	out->realloc_copies = __atomic_load_n(&slub_realloc_copies, __ATOMIC_RELAXED);
	out->realloc_copied_bytes = __atomic_load_n(&slub_realloc_copied_bytes, __ATOMIC_RELAXED);
	pages_lock_drop();
}

/* Every live slab of cache s (at most max), for validation. */
size_t slub_collect_slabs(struct slub_cache *s, struct slab **out, size_t max)
{
	size_t n = 0;

	pages_lock_take();
	for (struct segment *seg = segments; seg; seg = seg->next) {
		for (unsigned i = SEG_DATA_START; i < SEG_PAGES && n < max; i++) {
			struct slab *d = &seg->desc[i];
			if (d->kind == SLAB_KIND_SLAB && READ_ONCE(d->cache) == s)
				out[n++] = d;
		}
	}
	pages_lock_drop();
	return n;
}

struct slab *slub_virt_to_slab(const void *p)
{
	return virt_to_slab(p);
}
