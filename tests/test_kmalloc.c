// SPDX-License-Identifier: MIT
/*
 * test_kmalloc: the kmalloc family (size classes, calloc, realloc, aligned
 * allocation, errno rules) and recovery from page-layer failures.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include <slub/slub.h>

#include "page.h"
#include "testutil.h"

#define PAGE 4096ul

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* The kmalloc size classes SLUB uses: powers of two plus 96 and 192. */
static size_t kmalloc_class(size_t n)
{
	static const size_t classes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512,
					  1024, 2048, 4096, 8192 };

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (n <= classes[i])
			return classes[i];
	return 0;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 31 + (i >> 8));
}

static size_t first_mismatch(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed + i * 31 + (i >> 8)))
			return i;
	return n;
}

static void test_size_classes(void)
{
	static const size_t sizes[] = {
		0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127,
		128, 129, 191, 192, 193, 255, 256, 257, 511, 512, 1000, 1024, 2047,
		2048, 4095, 4096, 4097, 8191, 8192, 8193, 12288, 65536, 1 << 20,
		(1 << 20) + 1, 1 << 26,
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], u, cls = kmalloc_class(n);
		struct slub_ptr_info info;
		unsigned char *p;

		errno = 0;
		p = slub_malloc(n);
		if (!CHECK(p != NULL, "malloc(%zu) failed, errno %d", n, errno))
			continue;
		u = slub_usable_size(p);
		CHECK(u >= n, "usable_size(malloc(%zu)) = %zu", n, u);
		slub_ptr_lookup(p, &info);
		if (n <= SLUB_KMALLOC_MAX_CACHE_SIZE) {
			CHECK(u <= cls, "usable_size(malloc(%zu)) = %zu beyond class %zu", n, u, cls);
			CHECK(info.kind == SLUB_OWNER_SLAB, "malloc(%zu) kind %d", n, info.kind);
			if (info.kind == SLUB_OWNER_SLAB)
				CHECK(slub_cache_object_size(info.cache) >= (n ? n : 1) &&
				      slub_cache_object_size(info.cache) <= cls,
				      "malloc(%zu) from cache %s of size %zu", n,
				      slub_cache_name(info.cache),
				      slub_cache_object_size(info.cache));
		} else {
			CHECK(u <= round_up(n, PAGE) + PAGE, "usable_size(malloc(%zu)) = %zu", n, u);
			CHECK(info.kind == SLUB_OWNER_LARGE, "malloc(%zu) kind %d", n, info.kind);
		}
		CHECK(info.usable == u, "lookup usable %zu, usable_size %zu", info.usable, u);
		CHECK((uintptr_t)p % 8 == 0, "malloc(%zu) = %p not 8-aligned", n, (void *)p);
		if (n >= 16)
			CHECK((uintptr_t)p % 16 == 0, "malloc(%zu) = %p not 16-aligned", n, (void *)p);
		/* Whole usable area is ours. */
		fill(p, u, (unsigned)n);
		CHECK_EQ(first_mismatch(p, u, (unsigned)n), u);
		slub_free(p);
	}
}

static void test_natural_alignment(void)
{
	for (size_t n = 8; n <= SLUB_KMALLOC_MAX_CACHE_SIZE; n <<= 1) {
		void *p[20];

		for (int i = 0; i < 20; i++) {
			p[i] = slub_malloc(n);
			CHECK(p[i] && (uintptr_t)p[i] % n == 0, "malloc(%zu) = %p not naturally aligned",
			      n, p[i]);
		}
		for (int i = 0; i < 20; i++)
			slub_free(p[i]);
	}
	for (size_t n = 16384; n <= (1 << 22); n <<= 2) {
		void *p = slub_malloc(n);

		CHECK(p && (uintptr_t)p % PAGE == 0, "large malloc(%zu) = %p not page aligned", n, p);
		slub_free(p);
	}
}

static void test_calloc(void)
{
	static const size_t sizes[] = { 1, 8, 24, 100, 192, 1000, 4096, 8192, 9000, 1 << 20 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		/* Dirty recycled memory first, so zeroing is really checked. */
		for (int r = 0; r < 4; r++) {
			unsigned char *d = slub_malloc(n), *z;

			if (!CHECK(d != NULL, "malloc(%zu)", n))
				break;
			memset(d, 0xab, n);
			slub_free(d);
			z = slub_calloc(1, n);
			if (!CHECK(z != NULL, "calloc(1, %zu)", n))
				break;
			for (size_t k = 0; k < n; k++)
				if (z[k]) {
					CHECK(0, "calloc(1, %zu) byte %zu = %#x", n, k, z[k]);
					break;
				}
			slub_free(z);
		}
	}
	{
		int *a = slub_calloc(250, sizeof(int));

		CHECK(a != NULL, "calloc(250, 4)");
		for (int k = 0; a && k < 250; k++)
			if (a[k]) {
				CHECK(0, "calloc(250,4)[%d] = %d", k, a[k]);
				break;
			}
		slub_free(a);
	}
	errno = 0;
	CHECK(slub_calloc(SIZE_MAX / 2, 3) == NULL && errno == ENOMEM,
	      "calloc overflow: errno %d", errno);
	errno = 0;
	CHECK(slub_calloc((size_t)1 << 33, (size_t)1 << 33) == NULL && errno == ENOMEM,
	      "calloc 2^66: errno %d", errno);
	errno = 0;
	CHECK(slub_malloc(SIZE_MAX) == NULL && errno == ENOMEM, "malloc(SIZE_MAX): errno %d", errno);
	errno = 0;
	CHECK(slub_malloc(SIZE_MAX - PAGE) == NULL && errno == ENOMEM,
	      "malloc(SIZE_MAX - page): errno %d", errno);
	/* calloc(0, n), like malloc(0): a unique, freeable pointer of ours. */
	{
		struct slub_ptr_info info;
		void *z = slub_calloc(0, 16), *z2 = slub_calloc(16, 0);

		CHECK(z != NULL && z2 != NULL && z != z2, "calloc(0, 16) = %p, calloc(16, 0) = %p", z,
		      z2);
		CHECK(z && slub_ptr_lookup(z, &info) && info.kind == SLUB_OWNER_SLAB && info.start,
		      "calloc(0, 16) = %p is not the start of a slab object", z);
		unsigned long e0 = slub_error_count();
		slub_free(z);
		slub_free(z2);
		CHECK_EQ(slub_error_count(), e0);
	}
}

/* Resident bytes of this process (statm). */
static size_t rss_bytes(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * PAGE;
}

/* calloc of fresh mappings does not touch them: 1 GiB costs no RSS. */
static void test_calloc_fresh(void)
{
	size_t n = (size_t)1 << 30, before = rss_bytes();
	unsigned char *p = slub_calloc(1, n);

	if (!CHECK(p != NULL, "calloc(1, 1 GiB): errno %d", errno))
		return;
	size_t grew = rss_bytes() - before;
	CHECK(grew < (16ul << 20), "calloc(1, 1 GiB) made %zu KiB resident", grew >> 10);
	CHECK(p[0] == 0 && p[n / 2] == 0 && p[n - 1] == 0, "calloc(1, 1 GiB) not zero");
	slub_free(p);
	/* a run of recycled pages: cleared, since they are dirty */
	p = slub_malloc(512u << 10);
	memset(p, 0x5a, 512u << 10);
	slub_free(p);
	p = slub_calloc(512, 1024);
	CHECK(p != NULL, "calloc(512, 1 KiB)");
	for (size_t k = 0; p && k < (512u << 10); k++)
		if (p[k]) {
			CHECK(0, "recycled calloc(512, 1 KiB) byte %zu = %#x", k, p[k]);
			break;
		}
	slub_free(p);
}

/*
 * Sizes no machine can back fail as with glibc, because mappings are
 * accounted (no MAP_NORESERVE): the kernel's overcommit policy answers.
 * Under heuristic (0) or strict (2) accounting, on a machine with less
 * than 1 TiB of RAM + swap, these fail with ENOMEM; under "always" (1)
 * the kernel says yes and only the explicit bound (2^46) is checked.
 */
static void test_absurd_sizes(void)
{
	struct sysinfo si;
	int mode = -1;
	FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");

	if (f) {
		if (fscanf(f, "%d", &mode) != 1)
			mode = -1;
		fclose(f);
	}
	errno = 0;
	CHECK(slub_malloc(((size_t)1 << 46) + 1) == NULL && errno == ENOMEM,
	      "malloc(2^46 + 1): errno %d", errno);
	if (sysinfo(&si) != 0 ||
	    (unsigned long long)(si.totalram + si.totalswap) * si.mem_unit >= (1ull << 40) ||
	    (mode != 0 && mode != 2)) {
		printf("test_kmalloc: overcommit_memory=%d: absurd sizes not checked\n", mode);
		return;
	}
	errno = 0;
	void *p = slub_malloc((size_t)1 << 46);
	CHECK(p == NULL && errno == ENOMEM, "malloc(2^46) = %p, errno %d", p, errno);
	errno = 0;
	p = slub_calloc((size_t)1 << 20, (size_t)1 << 20);
	CHECK(p == NULL && errno == ENOMEM, "calloc(2^20, 2^20) = %p, errno %d", p, errno);
	errno = 0;
	p = slub_aligned_alloc((size_t)1 << 40, 10);
	CHECK(p == NULL && errno == ENOMEM, "aligned_alloc(2^40, 10) = %p, errno %d", p, errno);
	errno = 0;
	p = slub_realloc(slub_malloc(100), (size_t)1 << 45);
	CHECK(p == NULL && errno == ENOMEM, "realloc(p, 2^45) = %p, errno %d", p, errno);
	/* the same sizes' neighbours that a machine can back still work */
	p = slub_malloc(64u << 20);
	CHECK(p != NULL, "malloc(64 MiB): errno %d", errno);
	slub_free(p);
}

static void test_realloc(void)
{
	static const size_t steps[] = { 1, 8, 9, 24, 96, 100, 192, 500, 4096, 8192, 8193,
					20000, 1 << 20, 3 << 20, 70000, 8192, 300, 64, 8, 3 };
	unsigned char *p;
	size_t have;

	p = slub_realloc(NULL, 40);
	CHECK(p != NULL && slub_usable_size(p) >= 40, "realloc(NULL, 40) = %p", (void *)p);
	if (!p)
		return;
	fill(p, 40, 7);
	have = 40;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t n = steps[i], keep = have < n ? have : n;
		unsigned char *q = slub_realloc(p, n);

		if (!CHECK(q != NULL, "realloc(%p, %zu) failed errno %d", (void *)p, n, errno))
			return;
		CHECK(slub_usable_size(q) >= n, "realloc to %zu: usable %zu", n, slub_usable_size(q));
		CHECK_EQ(first_mismatch(q, keep, 7), keep);
		/* Extend the pattern over the new size. */
		fill(q, n, 7);
		p = q;
		have = n;
	}
	slub_free(p);

	/* realloc(p, 0) frees p and returns NULL (as glibc does): one object
	 * fewer in use in p's cache, errno untouched, nothing reported. */
	p = slub_malloc(100);
	{
		struct slub_ptr_info info;
		struct slub_stats before, after;
		unsigned long e0 = slub_error_count();

		CHECK(slub_ptr_lookup(p, &info) && info.kind == SLUB_OWNER_SLAB, "malloc(100) = %p",
		      (void *)p);
		CHECK_EQ(slub_cache_stats(info.cache, &before), 0);
		errno = 77;
		void *z = slub_realloc(p, 0);
		CHECK(z == NULL && errno == 77, "realloc(p, 0) = %p, errno %d", z, errno);
		CHECK_EQ(slub_cache_stats(info.cache, &after), 0);
#if SLUB_STATS
		CHECK(after.objects_inuse + 1 == before.objects_inuse,
		      "realloc(p, 0): %llu objects in use before, %llu after",
		      (unsigned long long)before.objects_inuse, (unsigned long long)after.objects_inuse);
#endif
		CHECK_EQ(slub_error_count(), e0);
	}
	/* A failing realloc leaves the original intact. */
	p = slub_malloc(64);
	fill(p, 64, 3);
	errno = 0;
	CHECK(slub_realloc(p, SIZE_MAX) == NULL && errno == ENOMEM, "realloc(p, SIZE_MAX) errno %d",
	      errno);
	CHECK_EQ(first_mismatch(p, 64, 3), 64);
	slub_free(p);
}

static void test_aligned(void)
{
	static const size_t sizes[] = { 1, 8, 24, 100, 4096, 10000, 300000 };

	for (size_t a = 8; a <= ((size_t)1 << 21); a <<= 1) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i];
			unsigned char *p;
			void *q = (void *)0x1;
			int rc;

			errno = 0;
			p = slub_aligned_alloc(a, n);
			if (!CHECK(p != NULL, "aligned_alloc(%zu, %zu) errno %d", a, n, errno))
				continue;
			CHECK((uintptr_t)p % a == 0, "aligned_alloc(%zu, %zu) = %p", a, n, (void *)p);
			CHECK(slub_usable_size(p) >= n, "aligned_alloc(%zu, %zu) usable %zu", a, n,
			      slub_usable_size(p));
			memset(p, 0x3c, n);
			slub_free(p);

			rc = slub_posix_memalign(&q, a, n);
			CHECK(rc == 0 && q && (uintptr_t)q % a == 0,
			      "posix_memalign(%zu, %zu) rc %d ptr %p", a, n, rc, q);
			if (rc == 0) {
				memset(q, 0x3d, n);
				slub_free(q);
			}
		}
	}
	{
		static const size_t bad[] = { 0, 3, 12, 24, 48, 100 };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			void *q = (void *)0x1234;
			int rc;

			errno = 0;
			rc = slub_posix_memalign(&q, bad[i], 64);
			CHECK(rc == EINVAL, "posix_memalign(align %zu) rc %d", bad[i], rc);
			CHECK(q == (void *)0x1234, "posix_memalign(align %zu) wrote %p", bad[i], q);
		}
		/* Powers of two below sizeof(void *) are not valid either. */
		{
			void *q = (void *)0x1234;

			CHECK_EQ(slub_posix_memalign(&q, 4, 64), EINVAL);
			CHECK_EQ(slub_posix_memalign(&q, 2, 64), EINVAL);
		}
		errno = 0;
		CHECK(slub_aligned_alloc(3, 16) == NULL && errno == EINVAL,
		      "aligned_alloc(3, 16) errno %d", errno);
		errno = 0;
		CHECK(slub_aligned_alloc(48, 96) == NULL && errno == EINVAL,
		      "aligned_alloc(48, 96) errno %d", errno);
	}
}

static void test_free_rules(void)
{
	void *p;

	errno = 4242;
	slub_free(NULL);
	CHECK_EQ(errno, 4242);

	p = slub_malloc(50);
	errno = 4243;
	slub_free(p);
	CHECK_EQ(errno, 4243);

	p = slub_malloc(1 << 20);
	errno = 4244;
	slub_free(p);
	CHECK_EQ(errno, 4244);
	{
		struct slub_cache *s = slub_cache_create("km-errno", 40, 0, 0, NULL);

		p = slub_cache_alloc(s);
		errno = 4245;
		slub_cache_free(s, p);
		CHECK_EQ(errno, 4245);
		CHECK_EQ(slub_cache_destroy(s), 0);
	}
}

static void test_node_alloc(void)
{
	for (int node = -1; node < slub_nr_nodes(); node++) {
		void *p = slub_malloc_node(200, node);

		CHECK(p != NULL && slub_usable_size(p) >= 200, "malloc_node(200, %d)", node);
		slub_free(p);
	}
}

static void test_page_failure(void)
{
	enum { MAXOBJ = 65536 };
	static void *objs[MAXOBJ];
	struct slub_cache *s = slub_cache_create("km-fail", 4000, 0, 0, NULL);
	void *p;
	long n = 0;
	int saw_enomem = 0;

	if (!CHECK(s != NULL, "create errno %d", errno))
		return;

	/* Sizes bigger than anything freed before, so that no cached region
	 * can serve them without a new map. */
	slub_page_fail_after(0);
	errno = 0;
	p = slub_malloc(96ul << 20);
	CHECK(p == NULL && errno == ENOMEM, "large malloc with maps failing: %p errno %d", p, errno);
	if (p)
		slub_free(p);

	/* Fill the fresh cache: at the latest when the mapped memory is used
	 * up, allocation fails with ENOMEM. */
	for (n = 0; n < MAXOBJ; n++) {
		errno = 0;
		objs[n] = slub_cache_alloc(s);
		if (!objs[n]) {
			saw_enomem = errno == ENOMEM;
			break;
		}
	}
	CHECK(n < MAXOBJ, "cache fill of %d x 4000 bytes never failed", MAXOBJ);
	CHECK(saw_enomem, "cache alloc failed after %ld objects with errno %d", n, errno);
	errno = 0;
	CHECK(slub_cache_alloc(s) == NULL && errno == ENOMEM, "still failing: errno %d", errno);

	slub_page_fail_after(-1);
	p = slub_malloc(96ul << 20);
	CHECK(p != NULL, "large malloc after maps work again: errno %d", errno);
	slub_free(p);
	{
		void *more[64];

		for (int i = 0; i < 64; i++) {
			more[i] = slub_cache_alloc(s);
			CHECK(more[i] != NULL, "cache alloc %d after recovery: errno %d", i, errno);
		}
		for (int i = 0; i < 64; i++)
			if (more[i])
				slub_cache_free(s, more[i]);
	}
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_validate_all(), 0);
	for (long i = 0; i < n; i++)
		slub_cache_free(s, objs[i]);

	/* n successful maps, then failure: the first large allocations work. */
	slub_page_fail_after(1);
	p = slub_malloc(128ul << 20);
	CHECK(p != NULL, "first large malloc with one map allowed: errno %d", errno);
	errno = 0;
	{
		void *q = slub_malloc(160ul << 20);

		CHECK(q == NULL && errno == ENOMEM, "second large malloc: %p errno %d", q, errno);
		if (q)
			slub_free(q);
	}
	slub_page_fail_after(-1);
	slub_free(p);

	CHECK_EQ(slub_validate_all(), 0);
	slub_cache_shrink(s);
	CHECK_EQ(slub_cache_destroy(s), 0);
	CHECK_EQ(slub_error_count(), 0);
}

/* The page layer gives memory back: a dedicated mapping is unmapped on
 * free, page runs of large allocations return to the segment. */
/* VmHWM after resetting it (clear_refs 5): the peak from now on; 0 when
 * the kernel does not let us reset it. */
static bool reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	bool ok = f && fputs("5", f) >= 0;

	if (f && fclose(f) != 0)
		ok = false;
	return ok;
}

static size_t peak_bytes(void)
{
	char line[128];
	size_t kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %zu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb << 10;
}

/*
 * Growing a buffer never copies it once it is large: a page run grows into
 * the pages after it, a dedicated mapping by mremap().  The page layer
 * counts the reallocs that copied and their bytes; those are the figures
 * checked (time is not).
 */
static void test_realloc_growth(void)
{
	struct slub_page_census a, b, c;
	unsigned char *p = slub_malloc(PAGE), *q;
	size_t n;

	slub_page_census(&a);
	/* 4 KiB steps to 16 MiB: a byte at each step's end, checked below */
	for (n = 2 * PAGE; p && n <= (16ul << 20); n += PAGE) {
		q = slub_realloc(p, n);
		if (!CHECK(q != NULL, "realloc to %zu: errno %d", n, errno))
			break;
		p = q;
		p[n - 1] = (unsigned char)(n / PAGE);
	}
	slub_page_census(&b);
	unsigned long copies = b.realloc_copies - a.realloc_copies;
	unsigned long bytes = b.realloc_copied_bytes - a.realloc_copied_bytes;
	printf("test_kmalloc: 4 KiB steps to 16 MiB: %lu copies, %lu KiB copied\n", copies,
	       bytes >> 10);
	/* before: a copy per step, 32 GiB in all */
	CHECK(copies <= 32, "4 KiB steps to 16 MiB copied %lu times", copies);
	CHECK(bytes <= (4ul << 20), "4 KiB steps to 16 MiB copied %lu KiB", bytes >> 10);
	for (n = 2 * PAGE; p && n <= (16ul << 20); n += PAGE)
		if (p[n - 1] != (unsigned char)(n / PAGE)) {
			CHECK(0, "byte %zu lost in the growth: %#x", n - 1, p[n - 1]);
			break;
		}
	/* and on to 256 MiB, by the same steps: no copy at all */
	for (; p && n <= (256ul << 20); n += PAGE) {
		q = slub_realloc(p, n);
		if (!CHECK(q != NULL, "realloc to %zu: errno %d", n, errno))
			break;
		p = q;
		if (!(n & ((1ul << 20) - 1)))
			p[n - 1] = (unsigned char)(n >> 20);
	}
	slub_page_census(&c);
	CHECK_EQ(c.realloc_copies, b.realloc_copies);
	for (n = 1ul << 20; p && n <= (256ul << 20); n += 1ul << 20)
		if (p[n - 1] != (unsigned char)(n >> 20) && n > (16ul << 20)) {
			CHECK(0, "byte %zu lost in the growth to 256 MiB: %#x", n - 1, p[n - 1]);
			break;
		}
	/* shrinking a mapping keeps its bytes and gives memory back */
	q = slub_realloc(p, 2ul << 20);
	CHECK(q != NULL && q[(1ul << 20) + PAGE - 1] == 1, "shrink to 2 MiB lost bytes");
	p = q ? q : p;
	slub_free(p);

	/* geometric growth, every byte written: the peak is the last size,
	 * not the last two */
	if (!reset_peak()) {
		printf("test_kmalloc: VmHWM cannot be reset: geometric peak not checked\n");
		return;
	}
	size_t base = rss_bytes(), last = 256ul << 20;
	p = NULL;
	for (n = 1ul << 20; n <= last; n *= 2) {
		q = slub_realloc(p, n);
		if (!CHECK(q != NULL, "realloc to %zu: errno %d", n, errno))
			break;
		p = q;
		memset(p + n / 2, (int)(n >> 20), n / 2);
	}
	size_t peak = peak_bytes() - base;
	printf("test_kmalloc: geometric growth to 256 MiB: peak %zu MiB over the start\n",
	       peak >> 20);
	CHECK(peak < last + last / 4, "geometric growth to %zu MiB peaked at %zu MiB", last >> 20,
	      peak >> 20);
	slub_free(p);
}

static void test_page_census(void)
{
	struct slub_page_census a, b, c;

	slub_page_census(&a);
	void *huge = slub_malloc(3u << 20);   /* > 1 MiB: its own mapping */
	void *run = slub_malloc(64u << 10);   /* a page run in a segment */
	CHECK(huge && run, "large allocations failed: errno %d", errno);
	memset(huge, 1, 3u << 20);
	memset(run, 2, 64u << 10);
	slub_page_census(&b);
	CHECK_EQ(b.huge_allocs, a.huge_allocs + 1);
	CHECK(b.huge_bytes >= a.huge_bytes + (3u << 20), "huge bytes %lu -> %lu", a.huge_bytes,
	      b.huge_bytes);
	CHECK(b.pages_used >= a.pages_used + 16, "pages used %lu -> %lu", a.pages_used,
	      b.pages_used);
	slub_free(huge);
	slub_free(run);
	slub_page_census(&c);
	CHECK_EQ(c.huge_allocs, a.huge_allocs);
	CHECK_EQ(c.huge_bytes, a.huge_bytes);
	CHECK_EQ(c.pages_used, b.pages_used - 16);
}

int main(void)
{
	test_size_classes();
	test_natural_alignment();
	test_calloc();
	test_calloc_fresh();
	test_absurd_sizes();
	test_realloc();
	test_realloc_growth();
	test_aligned();
	test_free_rules();
	test_node_alloc();
	test_page_failure();
	test_page_census();
	CHECK_EQ(slub_validate_all(), 0);
	return test_summary("test_kmalloc");
}
