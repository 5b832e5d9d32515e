// SPDX-License-Identifier: MIT
/*
 * test_api: one section per function of include/slub/slub.h, driven through
 * the public API only.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slub/slub.h>

#include "testutil.h"

static void expect_create_einval(const char *what, const char *name, size_t size,
				 size_t align, unsigned flags)
{
	struct slub_cache *s;

	errno = 0;
	s = slub_cache_create(name, size, align, flags, NULL);
	CHECK(s == NULL, "%s: slub_cache_create returned %p, want NULL", what, (void *)s);
	CHECK(errno == EINVAL, "%s: errno %d (%s), want EINVAL", what, errno, strerror(errno));
	if (s)
		slub_cache_destroy(s);
}

static void test_create_bad_args(void)
{
	expect_create_einval("NULL name", NULL, 64, 0, 0);
	expect_create_einval("size 0", "api-size0", 0, 0, 0);
	expect_create_einval("size 2^24", "api-16m", (size_t)1 << 24, 0, 0);
	/* The real limit: one object in a 2 MiB (order 9) slab. */
	expect_create_einval("size 2 MiB + 1", "api-2m1", ((size_t)2 << 20) + 1, 0, 0);
	expect_create_einval("size 4 MiB", "api-4m", (size_t)4 << 20, 0, 0);
	expect_create_einval("size 2^40", "api-huge", (size_t)1 << 40, 0, 0);
	expect_create_einval("size SIZE_MAX", "api-sizemax", SIZE_MAX, 0, 0);
	expect_create_einval("align 3", "api-align3", 64, 3, 0);
	expect_create_einval("align 24", "api-align24", 64, 24, 0);
	expect_create_einval("align 96", "api-align96", 64, 96, 0);
}

static void test_alloc_free_contents(void)
{
	enum { N = 2000 };
	static unsigned char *objs[N];
	struct slub_cache *s = slub_cache_create("api-basic", 72, 0, 0, NULL);

	if (!CHECK(s != NULL, "errno %d", errno))
		return;
	CHECK(strcmp(slub_cache_name(s), "api-basic") == 0, "name '%s'", slub_cache_name(s));
	CHECK_EQ(slub_cache_object_size(s), 72);

	for (int i = 0; i < N; i++) {
		objs[i] = slub_cache_alloc(s);
		if (!CHECK(objs[i] != NULL, "alloc %d: errno %d", i, errno))
			return;
		CHECK((uintptr_t)objs[i] % 8 == 0, "obj %p not 8-aligned", (void *)objs[i]);
		memset(objs[i], i & 0xff, 72);
	}
	/* Distinct and non-overlapping. */
	for (int i = 0; i < N; i++) {
		for (int k = 0; k < 72; k++)
			if (objs[i][k] != (unsigned char)(i & 0xff)) {
				CHECK(0, "obj %d byte %d = %#x, want %#x (overlap or corruption)",
				      i, k, objs[i][k], i & 0xff);
				break;
			}
	}
	/* Free every other one, reallocate, recheck the survivors. */
	for (int i = 0; i < N; i += 2)
		slub_cache_free(s, objs[i]);
	for (int i = 0; i < N; i += 2) {
		objs[i] = slub_cache_alloc(s);
		CHECK(objs[i] != NULL, "realloc %d", i);
		if (objs[i])
			memset(objs[i], 0xee, 72);
	}
	for (int i = 1; i < N; i += 2)
		for (int k = 0; k < 72; k++)
			if (objs[i][k] != (unsigned char)(i & 0xff)) {
				CHECK(0, "survivor %d byte %d = %#x", i, k, objs[i][k]);
				break;
			}
	for (int i = 0; i < N; i++)
		if (objs[i])
			slub_cache_free(s, objs[i]);
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static unsigned long ctor_calls;
#define CTOR_SIZE 48
static void ctor_fill(void *p)
{
	__atomic_fetch_add(&ctor_calls, 1, __ATOMIC_RELAXED);
	memset(p, 0xc7, CTOR_SIZE);
}

static void test_ctor(void)
{
	struct slub_cache *s = slub_cache_create("api-ctor", CTOR_SIZE, 0, 0, ctor_fill);
	struct slub_stats st;
	unsigned char *p, *q;
	unsigned long after_first;

	if (!CHECK(s != NULL, "errno %d", errno))
		return;
	CHECK_EQ(ctor_calls, 0);
	p = slub_cache_alloc(s);
	if (!CHECK(p != NULL, ""))
		return;
	after_first = ctor_calls;
	CHECK_EQ(slub_cache_stats(s, &st), 0);
	/* Kernel semantics: the ctor runs for every object when the slab is
	 * carved, not on each allocation. */
	CHECK(after_first == st.objects && after_first > 1,
	      "ctor ran %lu times after the first alloc, slab objects %llu",
	      after_first, (unsigned long long)st.objects);
	for (int k = 0; k < CTOR_SIZE; k++)
		if (p[k] != 0xc7) {
			CHECK(0, "fresh object byte %d = %#x, ctor wrote 0xc7", k, p[k]);
			break;
		}
	q = slub_cache_alloc(s);
	CHECK(q != NULL && q[0] == 0xc7 && q[CTOR_SIZE - 1] == 0xc7, "second object not constructed");
	CHECK_EQ(ctor_calls, after_first);
	slub_cache_free(s, p);
	p = slub_cache_alloc(s);
	CHECK_EQ(ctor_calls, after_first);
	/* The ctor's state survives free/alloc: the free pointer must live
	 * outside a constructed object, as in SLUB. */
	CHECK(p && p[0] == 0xc7 && p[CTOR_SIZE / 2] == 0xc7 && p[CTOR_SIZE - 1] == 0xc7,
	      "reallocated object lost the ctor pattern: %#x %#x %#x",
	      p ? p[0] : 0, p ? p[CTOR_SIZE / 2] : 0, p ? p[CTOR_SIZE - 1] : 0);
	slub_cache_free(s, p);
	slub_cache_free(s, q);
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static void check_align(const char *name, size_t size, size_t align, unsigned flags,
			size_t want)
{
	enum { N = 300 };
	void *objs[N];
	struct slub_cache *s = slub_cache_create(name, size, align, flags, NULL);
	int bad = 0;

	if (!CHECK(s != NULL, "%s: errno %d", name, errno))
		return;
	for (int i = 0; i < N; i++) {
		objs[i] = slub_cache_alloc(s);
		if (!objs[i] || (uintptr_t)objs[i] % want) {
			if (!bad++)
				CHECK(0, "%s: object %p not %zu-aligned", name, objs[i], want);
		}
		if (objs[i])
			memset(objs[i], 0x5a, size);
	}
	CHECK_EQ(bad, 0);
	for (int i = 0; i < N; i++)
		if (objs[i])
			slub_cache_free(s, objs[i]);
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static void test_alignment(void)
{
	check_align("api-al8", 20, 8, 0, 8);
	check_align("api-al16", 20, 16, 0, 16);
	check_align("api-al32", 40, 32, 0, 32);
	check_align("api-al64", 8, 64, 0, 64);
	check_align("api-al128", 100, 128, 0, 128);
	check_align("api-al256", 300, 256, 0, 256);
	check_align("api-al4096", 64, 4096, 0, 4096);
	check_align("api-hwcache", 48, 0, SLUB_F_HWCACHE_ALIGN, 64);
	check_align("api-hwcache-big", 200, 0, SLUB_F_HWCACHE_ALIGN, 64);
	check_align("api-odd", 13, 0, 0, sizeof(void *));
}

static void test_shrink(void)
{
	enum { N = 4000 };
	static void *objs[N];
	struct slub_cache *s = slub_cache_create("api-shrink", 256, 0, 0, NULL);
	struct slub_stats before, after;
	int ret;

	if (!CHECK(s != NULL, "errno %d", errno))
		return;
	for (int i = 0; i < N; i++)
		objs[i] = slub_cache_alloc(s);
	for (int i = 0; i < N; i++)
		slub_cache_free(s, objs[i]);
	CHECK_EQ(slub_cache_stats(s, &before), 0);
	CHECK(before.slabs > 1, "slabs %llu after %d allocs of 256", (unsigned long long)before.slabs, N);
	ret = slub_cache_shrink(s);
	CHECK_EQ(slub_cache_stats(s, &after), 0);
	CHECK(ret > 0, "shrink of a cache of empty slabs discarded %d", ret);
#if SLUB_STATS /* -DSLUB_STATS=OFF compiles the counters out */
	CHECK_EQ(ret, after.item[SLUB_FREE_SLAB] - before.item[SLUB_FREE_SLAB]);
	CHECK_EQ(after.objects_inuse, 0);
#endif
	CHECK_EQ(after.slabs, 0);
	CHECK_EQ(slub_cache_shrink(s), 0);
	/* Still usable after shrinking. */
	objs[0] = slub_cache_alloc(s);
	CHECK(objs[0] != NULL, "alloc after shrink");
	slub_cache_free(s, objs[0]);
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static void test_destroy(void)
{
	struct slub_cache *s = slub_cache_create("api-destroy-live", 32, 0, 0, NULL);
	struct slub_cache *e = slub_cache_create("api-destroy-empty", 32, 0, 0, NULL);
	char *live[3];
	long n;

	if (!CHECK(s && e, "errno %d", errno))
		return;
	CHECK_EQ(slub_cache_destroy(e), 0);

	for (int i = 0; i < 3; i++) {
		live[i] = slub_cache_alloc(s);
		if (!CHECK(live[i] != NULL, "alloc %d", i))
			return;
		snprintf(live[i], 32, "live object %d", i);
	}
	{
		void *x = slub_cache_alloc(s);

		slub_cache_free(s, x);
	}
	n = slub_cache_destroy(s);
	CHECK_EQ(n, 3);
	for (int i = 0; i < 3; i++) {
		char want[32];
		snprintf(want, sizeof(want), "live object %d", i);
		CHECK(strcmp(live[i], want) == 0, "kept object %d reads '%.31s'", i, live[i]);
		memset(live[i], 0x11, 32); /* still writable */
	}
	{
		struct slub_ptr_info info;
		slub_ptr_lookup(live[0], &info);
		CHECK(info.kind == SLUB_OWNER_SLAB, "kept object kind %d", info.kind);
	}
}

static void test_identity(void)
{
	struct slub_cache *a = slub_cache_create("api-id-a", 24, 0, 0, NULL);
	struct slub_cache *b = slub_cache_create("api-id-b", 1000, 0, 0, NULL);

	if (!CHECK(a && b, "errno %d", errno))
		return;
	CHECK(slub_cache_id(a) != slub_cache_id(b), "ids %u %u", slub_cache_id(a), slub_cache_id(b));
	CHECK(strcmp(slub_cache_name(a), "api-id-a") == 0, "'%s'", slub_cache_name(a));
	CHECK(strcmp(slub_cache_name(b), "api-id-b") == 0, "'%s'", slub_cache_name(b));
	CHECK_EQ(slub_cache_object_size(a), 24);
	CHECK_EQ(slub_cache_object_size(b), 1000);
	CHECK(slub_nr_nodes() >= 1 && slub_nr_nodes() <= SLUB_MAX_NODES, "nodes %d", slub_nr_nodes());
	CHECK_EQ(slub_cache_destroy(a), 0);
	CHECK_EQ(slub_cache_destroy(b), 0);
}

static int global_var[16];

static void test_ptr_lookup(void)
{
	struct slub_cache *s = slub_cache_create("api-lookup", 100, 0, 0, NULL);
	struct slub_ptr_info info, info2;
	char *p, *q, *big;
	int local = 0;
	void *heap;

	if (!CHECK(s != NULL, "errno %d", errno))
		return;
	p = slub_cache_alloc(s);
	q = slub_cache_alloc(s);
	memset(&info, 0xff, sizeof(info));
	slub_ptr_lookup(p, &info);
	CHECK(info.kind == SLUB_OWNER_SLAB, "kind %d", info.kind);
	CHECK(info.cache == s, "cache %p, want %p", (void *)info.cache, (void *)s);
	CHECK(info.object == p, "object %p, want %p", info.object, (void *)p);
	CHECK(info.start == 1, "start %d", info.start);
	CHECK(info.usable >= 100, "usable %zu", info.usable);
	CHECK(info.slab != NULL && (char *)info.slab <= p, "slab %p obj %p", info.slab, (void *)p);

	memset(&info2, 0xff, sizeof(info2));
	slub_ptr_lookup(p + 37, &info2);
	CHECK(info2.kind == SLUB_OWNER_SLAB, "interior kind %d", info2.kind);
	CHECK(info2.object == p, "interior object %p, want %p", info2.object, (void *)p);
	CHECK(info2.start == 0, "interior start %d", info2.start);
	CHECK(info2.index == info.index, "interior index %zu vs %zu", info2.index, info.index);
	CHECK(info2.slab == info.slab, "interior slab %p vs %p", info2.slab, info.slab);
	CHECK(info2.usable == info.usable - 37, "interior usable %zu, object usable %zu",
	      info2.usable, info.usable);

	slub_ptr_lookup(q, &info2);
	CHECK(info2.kind == SLUB_OWNER_SLAB && info2.object == q && info2.start == 1,
	      "second object kind %d object %p", info2.kind, info2.object);
	if (info2.slab == info.slab)
		CHECK(info2.index != info.index, "two objects share index %zu", info.index);

	big = slub_malloc(1 << 20);
	CHECK(big != NULL, "malloc 1 MiB");
	slub_ptr_lookup(big, &info);
	CHECK(info.kind == SLUB_OWNER_LARGE, "large kind %d", info.kind);
	CHECK(info.object == big && info.start == 1, "large object %p want %p", info.object, (void *)big);
	CHECK(info.usable >= (1 << 20), "large usable %zu", info.usable);
	slub_ptr_lookup(big + 4096 * 3 + 5, &info);
	CHECK(info.kind == SLUB_OWNER_LARGE && info.object == big && info.start == 0,
	      "large interior kind %d object %p start %d", info.kind, info.object, info.start);

	slub_ptr_lookup(&local, &info);
	CHECK(info.kind == SLUB_OWNER_NONE, "stack pointer kind %d", info.kind);
	slub_ptr_lookup(global_var, &info);
	CHECK(info.kind == SLUB_OWNER_NONE, "global pointer kind %d", info.kind);
	heap = malloc(64);
	slub_ptr_lookup(heap, &info);
	CHECK(info.kind == SLUB_OWNER_NONE, "glibc heap pointer kind %d", info.kind);
	free(heap);
	slub_ptr_lookup(NULL, &info);
	CHECK(info.kind == SLUB_OWNER_NONE, "NULL kind %d", info.kind);

	slub_free(big);
	slub_cache_free(s, p);
	slub_cache_free(s, q);
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static int count_cache(struct slub_cache *s, void *arg)
{
	int *n = arg;

	if (strncmp(slub_cache_name(s), "api-each", 8) == 0)
		(*n)++;
	return 0;
}

static int stop_first(struct slub_cache *s __attribute__((unused)), void *arg)
{
	(*(int *)arg)++;
	return 1;
}

/* Objects over 32 KiB: higher orders, up to one object per 2 MiB slab. */
static void test_large_objects(void)
{
	static const size_t sizes[] = { 32768 + 8, 65536, 200000, 1u << 20, 2u << 20 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char name[32];
		unsigned char *p[5];
		struct slub_ptr_info info;
		struct slub_cache *s;

		snprintf(name, sizeof(name), "api-big-%zu", sizes[i]);
		errno = 0;
		s = slub_cache_create(name, sizes[i], 0, 0, NULL);
		if (!CHECK(s != NULL, "%s: create failed, errno %d", name, errno))
			continue;
		for (int k = 0; k < 5; k++) {
			p[k] = slub_cache_alloc(s);
			if (!CHECK(p[k] != NULL, "%s: alloc %d: errno %d", name, k, errno))
				continue;
			memset(p[k], 0x40 + k, sizes[i]);
			/* The last byte belongs to the object that starts at p[k]. */
			CHECK(slub_ptr_lookup(p[k] + sizes[i] - 1, &info) == 1 &&
				      info.object == p[k] && info.usable == 1,
			      "%s: last byte looked up to %p (object %p)", name, info.object,
			      (void *)p[k]);
		}
		for (int k = 0; k < 5; k++) {
			if (!p[k])
				continue;
			CHECK(p[k][0] == 0x40 + k && p[k][sizes[i] - 1] == 0x40 + k,
			      "%s: object %d overwritten", name, k);
			slub_cache_free(s, p[k]);
		}
		CHECK_EQ(slub_validate(s), 0);
		CHECK_EQ(slub_cache_destroy(s), 0);
	}
}

/* include/slub/event.h documents every site with the name the trace uses. */
static void test_site_names_documented(void)
{
	FILE *f = fopen(SLUB_SOURCE_DIR "/include/slub/event.h", "r");
	char line[256];
	int found = 0;

	if (!CHECK(f != NULL, "open event.h: errno %d", errno))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *id = strstr(line, "SLUB_SITE_"), *q, *e;
		char want[64];

		if (!id || !strchr(id, ',') || strstr(id, "SLUB_SITE_NR"))
			continue;
		snprintf(want, sizeof(want), "%.40s", id);
		want[strcspn(want, " ,=")] = 0;
		q = strchr(id, '"');
		e = q ? strchr(q + 1, '"') : NULL;
		if (e && found < SLUB_SITE_NR) {
			*e = 0;
			CHECK(strcmp(q + 1, slub_site_name(found)) == 0,
			      "event.h documents %s as \"%s\", the trace calls it \"%s\"", want,
			      q + 1, slub_site_name(found));
		}
		found++;
	}
	fclose(f);
	CHECK(found == SLUB_SITE_NR, "event.h lists %d sites, want %d", found, SLUB_SITE_NR);
}

/*
 * Every slow-path function says at its top which kernel version it
 * follows: a comment naming "Linux N" within the lines just above its
 * definition (or above the forward declaration it is documented at).
 */
static void test_slow_paths_say_versions(void)
{
	static const struct {
		const char *file, *def;
	} fns[] = {
		{ "cpu.c", "static void *get_freelist(" },
		{ "cpu.c", "void deactivate_slab(" },
		{ "cpu.c", "static void *____slab_alloc(struct slub_cache *s, int node, struct slub_cpu *c);" },
		{ "cpu.c", "void flush_cpu_slab(" },
		{ "partial.c", "static void *acquire_slab(" },
		{ "partial.c", "static void *get_partial_node(" },
		{ "partial.c", "static void *get_any_partial(" },
		{ "partial.c", "void *get_partial(" },
		{ "partial.c", "static void unfreeze_partials_3_5(struct slub_cache *s, struct slub_cpu *c,\n\t\t\t\t  struct slab *chain, struct slub_cpu *actor);" },
		{ "partial.c", "static void unfreeze_partials_3_5(struct slub_cache *s, struct slub_cpu *c,\n\t\t\t\t  struct slab *chain, struct slub_cpu *actor)\n{" },
		{ "partial.c", "void put_cpu_partial(" },
		{ "free.c", "void __slab_free(" },
		{ "slab.c", "struct slab *new_slab(" },
		{ "slab.c", "void discard_slab(" },
	};
	static char text[1 << 17];

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		char path[512];
		FILE *f;
		size_t n;
		const char *at, *from, *p;
		int found = 0;

		snprintf(path, sizeof(path), "%s/src/%s", SLUB_SOURCE_DIR, fns[i].file);
		f = fopen(path, "r");
		if (!CHECK(f != NULL, "open %s: errno %d", path, errno))
			continue;
		n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = 0;
		fclose(f);
		at = strstr(text, fns[i].def);
		if (!CHECK(at != NULL, "%s: no definition '%.40s'", fns[i].file, fns[i].def))
			continue;
		/* The lines right above, up to 12, not past the end of the
		 * previous function. */
		from = at;
		for (int lines = 0; from > text && lines < 12; lines++) {
			from--;
			while (from > text && from[-1] != '\n')
				from--;
			if (*from == '}')
				break;
		}
		for (p = from; p < at; p++)
			if (!strncmp(p, "Linux ", 6) && p[6] >= '1' && p[6] <= '9')
				found = 1;
		CHECK(found, "%s: '%.40s' does not say which kernel version it follows", fns[i].file,
		      fns[i].def);
	}
}

static void test_stats_and_misc(void)
{
	struct slub_cache *s = slub_cache_create("api-each-1", 64, 0, 0, NULL);
	struct slub_cache *t = slub_cache_create("api-each-2", 64, 0, 0, NULL);
	struct slub_stats st;
	void *p;
	int n = 0;
	FILE *f;
	char *buf = NULL;
	size_t len = 0;

	if (!CHECK(s && t, "errno %d", errno))
		return;
	slub_for_each_cache(count_cache, &n);
	CHECK_EQ(n, 2);
	n = 0;
	slub_for_each_cache(stop_first, &n);
	CHECK_EQ(n, 1);

	errno = 0;
	CHECK(slub_cache_stats(NULL, &st) == -1 && errno == EINVAL, "stats(NULL) errno %d", errno);

	p = slub_cache_alloc(s);
	slub_cache_free(s, p);
	CHECK_EQ(slub_cache_stats(s, &st), 0);
#if SLUB_STATS
	CHECK(st.item[SLUB_ALLOC_FASTPATH] + st.item[SLUB_ALLOC_SLOWPATH] == 1,
	      "alloc paths %llu + %llu", (unsigned long long)st.item[SLUB_ALLOC_FASTPATH],
	      (unsigned long long)st.item[SLUB_ALLOC_SLOWPATH]);
	CHECK(st.item[SLUB_FREE_FASTPATH] + st.item[SLUB_FREE_SLOWPATH] == 1,
	      "free paths %llu + %llu", (unsigned long long)st.item[SLUB_FREE_FASTPATH],
	      (unsigned long long)st.item[SLUB_FREE_SLOWPATH]);
	CHECK_EQ(st.item[SLUB_ALLOC_SLAB], 1);
#else
	for (unsigned i = 0; i < SLUB_NR_STAT_ITEMS; i++)
		CHECK_EQ(st.item[i], 0);
#endif

	for (unsigned i = 0; i < SLUB_NR_STAT_ITEMS; i++)
		CHECK(slub_stat_name(i) && slub_stat_name(i)[0], "stat name %u", i);
	CHECK(strcmp(slub_stat_name(SLUB_ALLOC_FASTPATH), "alloc_fastpath") == 0,
	      "'%s'", slub_stat_name(SLUB_ALLOC_FASTPATH));

	f = open_memstream(&buf, &len);
	slub_print_slabinfo(f, s);
	fclose(f);
	CHECK(buf && strstr(buf, "api-each-1"), "slabinfo does not name the cache: '%.200s'", buf);
	free(buf);

	slub_thread_flush();
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_validate_all(), 0);
	CHECK_EQ(slub_error_count(), 0);

	slub_set_variant(SLUB_VAR_KEEP_OLDPAGE);
	CHECK_EQ(slub_variant(), SLUB_VAR_KEEP_OLDPAGE);
	slub_set_variant(0);
	CHECK_EQ(slub_variant(), 0);

	CHECK_EQ(slub_cache_destroy(s), 0);
	CHECK_EQ(slub_cache_destroy(t), 0);
}

/* slub_cache_zalloc(): zero object_size bytes, also of an object freed
 * dirty and handed out again from the cpu freelist; with the debug flags
 * the red zone right after the object still holds its marker. */
static void test_zalloc(void)
{
	static const unsigned flags[] = { 0, SLUB_F_RED_ZONE | SLUB_F_POISON };
	struct slub_cache *c = slub_cache_create("api-zalloc-ctor", 64, 0, 0, ctor_fill);

	errno = 0;
	CHECK(slub_cache_zalloc(NULL) == NULL && errno == EINVAL, "NULL cache: errno %d", errno);
	errno = 0;
	CHECK(c && slub_cache_zalloc(c) == NULL && errno == EINVAL,
	      "cache with a ctor: zalloc must be refused, errno %d", errno);
	if (c)
		CHECK_EQ(slub_cache_destroy(c), 0);
	for (unsigned f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		struct slub_cache *s = slub_cache_create("api-zalloc", 200, 0, flags[f], NULL);
		unsigned char *v[64];
		int bad = 0;

		if (!CHECK(s != NULL, "errno %d", errno))
			return;
		for (int round = 0; round < 3; round++) {
			for (int i = 0; i < 64; i++) {
				v[i] = slub_cache_zalloc(s);
				if (!CHECK(v[i] != NULL, "zalloc: errno %d", errno))
					return;
				for (int k = 0; k < 200; k++)
					bad += v[i][k] != 0;
				if (flags[f] & SLUB_F_RED_ZONE)
					bad += v[i][200] != 0xcc;
				memset(v[i], 0x5a, 200);
			}
			for (int i = 0; i < 64; i++)
				slub_cache_free(s, v[i]);
		}
		CHECK(bad == 0, "flags %#x: %d bytes not zero (or red zone not 0xcc)", flags[f],
		      bad);
		CHECK_EQ(slub_error_count(), 0);
		CHECK_EQ(slub_cache_destroy(s), 0);
	}
}

int main(void)
{
	slub_init();
	slub_init(); /* idempotent */

	test_create_bad_args();
	test_identity();
	test_alloc_free_contents();
	test_ctor();
	test_zalloc();
	test_alignment();
	test_shrink();
	test_destroy();
	test_ptr_lookup();
	test_stats_and_misc();
	test_large_objects();
	test_site_names_documented();
	test_slow_paths_say_versions();
	return test_summary("test_api");
}
