/* SPDX-License-Identifier: MIT */
/*
 * The variant prefetch-freelist (2024) at run time.  A prefetch has no
 * observable effect on the program's state, so the allocator counts the
 * prefetches it issues (stat item alloc_prefetch, in ___slab_alloc next to
 * the prefetch instruction that prefetch.sh finds in the binary):
 *  - without the variant, no allocation prefetches;
 *  - with it, filling a fresh cache slab after slab (no frees, so every
 *    slow-path allocation takes a new slab of several objects and leaves
 *    its next free pointer on the cpu freelist) prefetches once per slow
 *    allocation, exactly.
 */
#include <stdio.h>
#include <stdlib.h>

#include <slub/slub.h>

static int failures;

#define CHECK(cond, ...)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                     \
			printf(__VA_ARGS__);                                          \
			putchar('\n');                                                \
			failures++;                                                   \
		}                                                                     \
	} while (0)

/* Fills `slabs` slabs of a fresh cache of `size`-byte objects under the
 * variant mask `v`; returns the cache's stats. */
static struct slub_stats fill(const char *name, size_t size, unsigned long slabs, unsigned v)
{
	unsigned old = slub_variant();
	struct slub_cache *s;
	struct slub_slabinfo si;
	struct slub_stats st;
	unsigned long n;
	void **objs, *p;

	slub_set_variant(v);
	s = slub_cache_create(name, size, 0, SLUB_F_NO_CPU_PARTIAL, NULL);
	if (!s)
		abort();
	p = slub_cache_alloc(s);
	slub_get_slabinfo(s, &si);
	slub_cache_free(s, p);
	/* start from an empty cpu slot: the one object above left its slab */
	slub_validate(s);
	n = slabs * si.objects_per_slab;
	objs = calloc(n, sizeof(*objs));
	for (unsigned long i = 0; i < n; i++)
		objs[i] = slub_cache_alloc(s);
	slub_cache_stats(s, &st);
	slub_set_variant(old);
	for (unsigned long i = 0; i < n; i++)
		slub_cache_free(s, objs[i]);
	free(objs);
	return st;
}

int main(void)
{
	struct slub_stats off, on;

#if !SLUB_STATS
	printf("built without SLUB_STATS: no counters: skipped\n");
	return 77;
#endif

	off = fill("pf-off", 64, 50, slub_variant() & ~SLUB_VAR_PREFETCH_FREELIST);
	CHECK(off.item[SLUB_ALLOC_SLOWPATH] >= 50, "off: %llu slow allocations",
	      (unsigned long long)off.item[SLUB_ALLOC_SLOWPATH]);
	CHECK(off.item[SLUB_ALLOC_PREFETCH] == 0, "off: %llu prefetches",
	      (unsigned long long)off.item[SLUB_ALLOC_PREFETCH]);

	on = fill("pf-on", 64, 50, slub_variant() | SLUB_VAR_PREFETCH_FREELIST);
	printf("prefetch-freelist: %llu prefetches in %llu slow allocations (%llu new slabs)\n",
	       (unsigned long long)on.item[SLUB_ALLOC_PREFETCH],
	       (unsigned long long)on.item[SLUB_ALLOC_SLOWPATH],
	       (unsigned long long)on.item[SLUB_ALLOC_SLAB]);
	CHECK(on.item[SLUB_ALLOC_SLOWPATH] >= 50, "on: %llu slow allocations",
	      (unsigned long long)on.item[SLUB_ALLOC_SLOWPATH]);
	CHECK(on.item[SLUB_ALLOC_PREFETCH] == on.item[SLUB_ALLOC_SLOWPATH],
	      "on: %llu prefetches, %llu slow allocations",
	      (unsigned long long)on.item[SLUB_ALLOC_PREFETCH],
	      (unsigned long long)on.item[SLUB_ALLOC_SLOWPATH]);

	printf("%s\n", failures ? "FAILED" : "all passed");
	return failures != 0;
}
