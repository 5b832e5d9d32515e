// SPDX-License-Identifier: MIT
/*
 * The malloc family's contract, checked in one process.
 *
 *   shim-semantics glibc     run without LD_PRELOAD: the expectations hold
 *                            for glibc itself (so they are glibc's semantics)
 *   shim-semantics shim      run with LD_PRELOAD=libslub-malloc.so: the same
 *                            expectations, plus proof that slubtrace serves
 *                            the calls, foreign pointers and re-entrancy
 *   shim-semantics foreign   frees and reallocs foreign pointers, the same
 *                            address twice (the driver counts the reports)
 *   shim-semantics misuse    mistakes on our own objects through free() and
 *                            malloc(), on the fast paths: each reported once,
 *                            survived, and no object handed out twice after
 *
 * Built with -fno-builtin so every call really reaches the allocator.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <slub/slub.h>

static int failures;
static int shim_mode;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                \
			failures++;                                              \
		}                                                                \
	} while (0)

/* Values the compiler must not see, so that it neither warns about them nor
 * folds the calls that receive them. */
static size_t opaque(size_t v)
{
	volatile size_t x = v;

	return x;
}

static void *opaque_ptr(void *p)
{
	void *volatile x = p;

	return x;
}

typedef int (*lookup_fn)(const void *, struct slub_ptr_info *);
typedef void (*observer_set_fn)(slub_observer_fn, void *, uint64_t);
static lookup_fn lookup;

/* What owns p, as the page layer sees it (shim mode only). */
static enum slub_owner_kind owner(const void *p)
{
	struct slub_ptr_info info;

	memset(&info, 0, sizeof(info));
	lookup(p, &info);
	return info.kind;
}

/* p came from slubtrace (shim mode) and is usable for n bytes. */
static void check_block(void *p, size_t n, size_t align)
{
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(((uintptr_t)p & (align - 1)) == 0);
	if ((uintptr_t)p & (align - 1))
		fprintf(stderr, "  %p: %zu bytes, wanted alignment %zu\n", p, n, align);
	CHECK(malloc_usable_size(p) >= n);
	memset(p, 0xa5, n);
	if (shim_mode)
		CHECK(owner(p) == SLUB_OWNER_SLAB || owner(p) == SLUB_OWNER_LARGE);
}

/* Alignment every malloc result of size n has (glibc: 16 always). */
static size_t natural_align(size_t n)
{
	if (n >= 16)
		return 16;
	return n > 8 ? 16 : 8;
}

static void test_exports(void)
{
	static const char *const names[] = {
		"malloc", "free", "calloc", "realloc", "reallocarray",
		"posix_memalign", "aligned_alloc", "memalign", "valloc",
		"pvalloc", "malloc_usable_size", "cfree", "__libc_malloc",
		"__libc_free", "__libc_calloc", "__libc_realloc",
		"__libc_memalign", "__libc_valloc", "__libc_pvalloc",
	};
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *sym = dlsym(RTLD_DEFAULT, names[i]);
		Dl_info di;

		/* glibc keeps cfree only as a compat symbol, invisible to dlsym */
		if (!shim_mode && !strcmp(names[i], "cfree"))
			continue;
		CHECK(sym != NULL);
		if (!sym || !shim_mode)
			continue;
		CHECK(dladdr(sym, &di) && di.dli_fname && strstr(di.dli_fname, "slub-malloc"));
		if (!di.dli_fname || !strstr(di.dli_fname, "slub-malloc"))
			fprintf(stderr, "  %s resolves to %s\n", names[i], di.dli_fname);
	}
	if (shim_mode) {
		void *(*lm)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "__libc_malloc");
		void (*lf)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "__libc_free");
		void *p = lm(100);

		check_block(p, 100, 16);
		lf(p);
	}
}

static void test_malloc(void)
{
	static const size_t sizes[] = {
		1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 95, 96,
		97, 127, 128, 129, 191, 192, 193, 255, 256, 257, 511, 512, 513,
		1000, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
		8191, 8192, 8193, 12000, 16384, 65536, 100000, 1u << 20,
		(1u << 20) + 1, 3u << 20, 9u << 20,
	};
	void *p, *q;
	unsigned i;

	p = malloc(0);
	q = malloc(0);
	CHECK(p && q && p != q);
	if (shim_mode)
		CHECK(owner(p) == SLUB_OWNER_SLAB);
	free(p);
	free(q);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = malloc(sizes[i]);
		check_block(p, sizes[i], natural_align(sizes[i]));
		free(p);
	}

	errno = 0;
	p = malloc(opaque(SIZE_MAX));
	CHECK(p == NULL && errno == ENOMEM);
	errno = 0;
	p = malloc(opaque(PTRDIFF_MAX));
	CHECK(p == NULL && errno == ENOMEM);

	free(NULL);
	CHECK(malloc_usable_size(NULL) == 0);

	/* free keeps errno, small and large */
	p = malloc(40);
	q = malloc(5u << 20);
	errno = EDOM;
	free(p);
	CHECK(errno == EDOM);
	free(q);
	CHECK(errno == EDOM);
	/* cfree: gone from glibc's headers, still bound by old binaries */
	void (*cfree_fn)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "cfree");
	CHECK(cfree_fn != NULL || !shim_mode);
	if (cfree_fn && shim_mode) {
		cfree_fn(malloc(10));
		CHECK(errno == EDOM);
	}
}

static void test_calloc(void)
{
	size_t n;

	for (n = 1; n <= 70000; n = n * 3 + 1) {
		unsigned char *p = malloc(n), *q;
		size_t i, nz = 0;

		memset(p, 0xff, n);
		free(p);
		q = calloc(1, n);
		CHECK(q != NULL);
		for (i = 0; q && i < n; i++)
			nz += q[i] != 0;
		CHECK(nz == 0);
		free(q);
	}
	errno = 0;
	CHECK(calloc(opaque(SIZE_MAX / 2), 3) == NULL && errno == ENOMEM);
	errno = 0;
	CHECK(calloc(opaque((size_t)1 << 33), (size_t)1 << 33) == NULL && errno == ENOMEM);
	void *z = calloc(0, 10), *z2 = calloc(10, 0);
	CHECK(z && z2 && z != z2);
	free(z);
	free(z2);
}

static int filled(const unsigned char *p, size_t n, unsigned char v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static void test_realloc(void)
{
	static const size_t steps[] = { 1, 24, 100, 200, 4000, 9000, 70000,
					2u << 20, 5u << 20, 300, 8, 1 };
	unsigned char *p = realloc(NULL, 0), *q;
	size_t prev = 0;
	unsigned i;

	CHECK(p != NULL);
	free(p);

	p = NULL;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t keep = prev < steps[i] ? prev : steps[i];

		q = realloc(p, steps[i]);
		CHECK(q != NULL);
		if (!q)
			return;
		CHECK(filled(q, keep, (unsigned char)i));
		check_block(q, steps[i], natural_align(steps[i]));
		memset(q, (unsigned char)(i + 1), steps[i]);
		p = q;
		prev = steps[i];
	}

	/* failure leaves the block alone */
	errno = 0;
	q = realloc(p, opaque(SIZE_MAX - 4096));
	CHECK(q == NULL && errno == ENOMEM);
	CHECK(filled(p, prev, (unsigned char)i));

	/* glibc 2.36: realloc(p, 0) frees p and returns NULL, errno kept */
	errno = EDOM;
	q = realloc(p, 0);
	CHECK(q == NULL && errno == EDOM);

	/* reallocarray */
	p = reallocarray(NULL, 10, 10);
	check_block(p, 100, 16);
	errno = 0;
	q = opaque_ptr(p);
	q = reallocarray(q, opaque(SIZE_MAX / 2), 3);
	CHECK(q == NULL && errno == ENOMEM);
	CHECK(filled(p, 100, 0xa5));
	q = reallocarray(p, 100, 100);
	check_block(q, 10000, 16);
	free(q);
}

static void test_aligned(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), a;
	void *p;
	int r;

	/* posix_memalign: EINVAL for a bad alignment, errno untouched */
	static const size_t bad[] = { 0, 1, 2, 4, 3, 24, 48, 4097 };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = (void *)1;
		errno = EDOM;
		r = posix_memalign(&p, bad[i], 16);
		CHECK(r == EINVAL && errno == EDOM && p == (void *)1);
	}
	for (a = sizeof(void *); a <= (4u << 20); a <<= 1) {
		static const size_t sz[] = { 0, 1, 100, 5000, 70000, 3u << 20 };
		for (unsigned i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
			p = NULL;
			errno = EDOM;
			r = posix_memalign(&p, a, sz[i]);
			CHECK(r == 0 && errno == EDOM);
			check_block(p, sz[i], a);
			free(p);
		}
		p = aligned_alloc(a, 3 * a + 5);
		check_block(p, 3 * a + 5, a);
		free(p);
		p = memalign(a, 77);
		check_block(p, 77, a);
		free(p);
	}
	r = posix_memalign(&p, 64, opaque(SIZE_MAX - 100));
	CHECK(r == ENOMEM);

	/* glibc 2.36: memalign/aligned_alloc round a bad alignment up */
	p = aligned_alloc(48, 100);
	check_block(p, 100, 64);
	free(p);
	p = memalign(3000, 10);
	check_block(p, 10, 4096);
	free(p);
	p = aligned_alloc(0, 10);
	check_block(p, 10, 8);
	free(p);
	errno = 0;
	CHECK(memalign(SIZE_MAX / 2 + 2, 10) == NULL && errno == EINVAL);
	errno = 0;
	CHECK(aligned_alloc(64, opaque(SIZE_MAX - 100)) == NULL && errno == ENOMEM);

	p = valloc(1);
	check_block(p, 1, page);
	free(p);
	p = valloc(3 * page + 1);
	check_block(p, 3 * page + 1, page);
	free(p);
	p = pvalloc(1);
	check_block(p, page, page);
	free(p);
	p = pvalloc(2 * page + 1);
	check_block(p, 3 * page, page);
	free(p);
	p = pvalloc(0);
	CHECK(p != NULL && ((uintptr_t)p & (page - 1)) == 0);
	free(p);
	errno = 0;
	CHECK(pvalloc(opaque(SIZE_MAX - 10)) == NULL && errno == ENOMEM);
}

/* ---- threads: blocks cross threads both ways ---- */

static void *thread_alloc(void *arg)
{
	void **out = arg;
	unsigned i;

	for (i = 0; i < 256; i++) {
		out[i] = malloc(16 + i * 13);
		memset(out[i], (int)i, 16 + i * 13);
	}
	free(out[256]); /* allocated by the main thread */
	return NULL;
}

static void test_threads(void)
{
	void **slots = malloc(257 * sizeof(void *));
	pthread_t t;
	unsigned i;

	slots[256] = malloc(333);
	CHECK(pthread_create(&t, NULL, thread_alloc, slots) == 0);
	pthread_join(t, NULL);
	for (i = 0; i < 256; i++) {
		CHECK(filled(slots[i], 16 + i * 13, (unsigned char)i));
		free(slots[i]);
	}
	free(slots);
}

/* ---- foreign pointers (shim mode) ---- */

static void *(*libc_malloc)(size_t);

static void test_foreign(int twice)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *f, *g, *map, *edge;

	CHECK(libc != NULL);
	if (!libc)
		return;
	libc_malloc = (void *(*)(size_t))dlsym(libc, "malloc");
	CHECK(libc_malloc != NULL && libc_malloc != malloc);
	if (!libc_malloc || libc_malloc == malloc)
		return;

	f = libc_malloc(100);
	memset(f, 0x3c, 100);
	if (twice)
		printf("foreign %p\n", (void *)f);
	CHECK(owner(f) == SLUB_OWNER_NONE);
	CHECK(malloc_usable_size(f) == 0);
	g = realloc(f, 300);
	CHECK(g != NULL && g != f && filled(g, 100, 0x3c));
	CHECK(owner(g) == SLUB_OWNER_SLAB);
	free(g);
	CHECK(filled(f, 100, 0x3c)); /* the foreign block was left alone */
	errno = EDOM;
	free(f);
	CHECK(errno == EDOM);
	if (twice)
		free(f);

	/* a foreign block right before an unreadable page: realloc must copy
	 * what it can read and not fault */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	mprotect(map + page, page, PROT_NONE);
	edge = map + page - 96;
	memset(edge, 0x77, 96);
	g = realloc(edge, 10000);
	CHECK(g != NULL && filled(g, 96, 0x77));
	free(g);
	free(edge);
	/* and one that spans readable pages entirely */
	g = realloc(map + 16, 3 * page);
	CHECK(g != NULL && filled(g + page - 96 - 16, 96, 0x77));
	free(g);
	munmap(map, 2 * page);
}

/* ---- re-entrancy: the observer runs inside the allocator ---- */

#define NESTED_MAX 4096
static void *nested[NESTED_MAX];
static unsigned nr_nested, nr_events;

static void observer(const struct slub_event *ev, void *arg)
{
	(void)ev;
	(void)arg;
	nr_events++;
	/* a malloc and a free from inside the allocator, possibly under a
	 * list_lock: the shim must serve them from its arena */
	void *p = malloc(48), *q = calloc(3, 7);

	memset(p, 0x11, 48);
	free(q);
	if (nr_nested < NESTED_MAX)
		nested[nr_nested++] = p;
	else
		free(p);
}

static void test_reentrancy(void)
{
	observer_set_fn set = (observer_set_fn)dlsym(RTLD_DEFAULT, "slub_set_observer");
	void *blocks[3000];
	unsigned i, nr_arena = 0;

	CHECK(set != NULL);
	if (!set)
		return;
	set(observer, NULL, 0);
	/* enough traffic to load, deactivate and discard slabs */
	for (int round = 0; round < 4; round++) {
		for (i = 0; i < 3000; i++)
			blocks[i] = malloc(200 + (i % 7) * 300);
		for (i = 0; i < 3000; i += 2)
			free(blocks[i]);
		for (i = 1; i < 3000; i += 2)
			free(blocks[i]);
	}
	set(NULL, NULL, 0);
	CHECK(nr_events > 0);
	CHECK(nr_nested > 0);
	for (i = 0; i < nr_nested; i++) {
		nr_arena += owner(nested[i]) == SLUB_OWNER_NONE &&
			    malloc_usable_size(nested[i]) >= 48;
		CHECK(filled(nested[i], 48, 0x11));
		nested[i] = realloc(nested[i], 4000); /* from the arena to a slab */
		CHECK(nested[i] && filled(nested[i], 48, 0x11));
		CHECK(owner(nested[i]) == SLUB_OWNER_SLAB);
		free(nested[i]);
	}
	CHECK(nr_arena == nr_nested);
	printf("re-entrancy: %u events, %u nested allocations, all from the arena\n",
	       nr_events, nr_nested);
}

/* n objects of `size`, none handed out twice nor equal to `avoid`
 * while held; freed again.  Returns how many equalled `avoid`. */
static int distinct(size_t size, int n, void *avoid)
{
	void *v[256];
	int hits = 0;

	for (int i = 0; i < n; i++) {
		v[i] = malloc(size);
		CHECK(v[i] != NULL);
		hits += v[i] == avoid;
		for (int j = 0; j < i; j++)
			if (v[j] == v[i]) {
				fprintf(stderr, "object %p handed out twice\n", v[i]);
				failures++;
			}
	}
	for (int i = 0; i < n; i++)
		free(v[i]);
	return hits;
}

/* A double free through free() into a frozen slab that is not the
 * thread's cpu slab: free() takes __slab_free()'s frozen case with no call
 * (slab_free_remote_quick), which must see the object heading that slab's
 * freelist.  The first free of the pair is counted as FREE_FROZEN. */
static void test_misuse_frozen(unsigned long (*errors)(void))
{
	int (*stats)(const struct slub_cache *, struct slub_stats *) =
		(int (*)(const struct slub_cache *, struct slub_stats *))dlsym(RTLD_DEFAULT,
									  "slub_cache_stats");
	struct slub_ptr_info first, last, info;
	void *v[200];
	int a = -1, b = -1;

	CHECK(stats != NULL && lookup != NULL);
	if (!stats || !lookup)
		return;
	for (int i = 0; i < 200; i++)
		v[i] = malloc(64);
	/* v[0]'s slab is full now, on no list, and not the cpu slab (v[199]'s) */
	CHECK(lookup(v[0], &first) == 1 && lookup(v[199], &last) == 1);
	CHECK(first.slab != last.slab);
	for (int i = 1; i < 200 && b < 0; i++)
		if (lookup(v[i], &info) == 1 && info.slab == first.slab) {
			if (a < 0)
				a = i;
			else
				b = i;
		}
	CHECK(a > 0 && b > 0);
	if (a < 0 || b < 0 || first.slab == last.slab) {
		for (int i = 0; i < 200; i++)
			free(v[i]);
		return;
	}
	free(v[a]); /* the full slab freezes onto this thread's partial chain */
	struct slub_stats before, after;
	CHECK(stats(first.cache, &before) == 0);
	unsigned long e0 = errors();
	free(v[b]); /* frozen, not the cpu slab: the frozen case */
	CHECK(stats(first.cache, &after) == 0);
	CHECK(after.item[SLUB_FREE_FROZEN] == before.item[SLUB_FREE_FROZEN] + 1);
	CHECK(errors() == e0);
	free(v[b]); /* heads that slab's freelist */
	CHECK(errors() == e0 + 1);
	for (int i = 0; i < 200; i++)
		if (i != a && i != b)
			free(v[i]);
	CHECK(distinct(64, 250, v[b]) <= 1);
}

/* Mistakes through the shim's free() and malloc(), on objects of the
 * thread's own cpu slab (the paths a plain malloc/free pair takes): a
 * double free of the object heading the cpu freelist, a pointer inside an
 * object, a write after free over the free pointer.  Each must be reported
 * (slub_error_count) and survived, the freelist intact.  Then the same
 * double free into another frozen slab (test_misuse_frozen). */
static void test_misuse(void)
{
	unsigned long (*errors)(void) =
		(unsigned long (*)(void))dlsym(RTLD_DEFAULT, "slub_error_count");
	unsigned long e0;

	CHECK(errors != NULL);
	if (!errors)
		return;
	distinct(64, 64, NULL); /* a cpu slab for kmalloc-64 */

	e0 = errors();
	char *p = malloc(64);
	free(p);
	free(p); /* heads the cpu freelist now */
	CHECK(errors() == e0 + 1);
	CHECK(distinct(64, 200, p) <= 1);

	e0 = errors();
	char *q = malloc(64);
	free(q + 8);
	CHECK(errors() == e0 + 1);
	free(q);
	CHECK(errors() == e0 + 1);
	CHECK(distinct(64, 200, NULL) == 0);

	e0 = errors();
	char *r = malloc(64);
	free(r);
	memset(r, 0x41, 64); /* the free pointer of r, now garbage */
	void *a = malloc(64), *b = malloc(64);
	CHECK(errors() >= e0 + 1);
	CHECK(a != NULL && b != NULL && a != b);
	free(a);
	free(b);
	CHECK(distinct(64, 200, NULL) == 0);

	test_misuse_frozen(errors);

	/* the counters of the fast paths count malloc()/free() pairs too */
	struct slub_ptr_info info;
	int (*stats)(const struct slub_cache *, struct slub_stats *) =
		(int (*)(const struct slub_cache *, struct slub_stats *))dlsym(RTLD_DEFAULT,
									  "slub_cache_stats");
	void *x = malloc(64);
	CHECK(stats != NULL && lookup != NULL && lookup(x, &info) == 1 && info.cache);
	free(x);
	if (stats && lookup && info.cache) {
		struct slub_stats before, after;

		CHECK(stats(info.cache, &before) == 0);
		for (int i = 0; i < 1000; i++)
			free(malloc(64));
		CHECK(stats(info.cache, &after) == 0);
		CHECK(after.item[SLUB_ALLOC_FASTPATH] - before.item[SLUB_ALLOC_FASTPATH] >= 1000);
		CHECK(after.item[SLUB_FREE_FASTPATH] - before.item[SLUB_FREE_FASTPATH] >= 1000);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "glibc";

	lookup = (lookup_fn)dlsym(RTLD_DEFAULT, "slub_ptr_lookup");
	shim_mode = strcmp(mode, "glibc") != 0;
	if (shim_mode != (lookup != NULL)) {
		fprintf(stderr, "mode %s but slub_ptr_lookup %s: is LD_PRELOAD set right?\n",
			mode, lookup ? "present" : "absent");
		return 2;
	}
	if (!strcmp(mode, "foreign")) {
		test_foreign(1);
		return failures ? 1 : 0;
	}
	if (!strcmp(mode, "misuse")) {
		test_misuse();
		if (!failures)
			printf("all checks passed (misuse)\n");
		return failures ? 1 : 0;
	}
	test_exports();
	test_malloc();
	test_calloc();
	test_realloc();
	test_aligned();
	test_threads();
	if (shim_mode) {
		unsigned long (*errors)(void) =
			(unsigned long (*)(void))dlsym(RTLD_DEFAULT, "slub_error_count");

		test_foreign(0);
		test_reentrancy();
		/* foreign pointers are notes, never corruption reports */
		CHECK(errors != NULL && errors() == 0);
	}
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("all checks passed (%s)\n", mode);
	return 0;
}
