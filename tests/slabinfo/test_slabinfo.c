/* SPDX-License-Identifier: MIT */
/*
 * The slabinfo reader (src/slabinfo.c):
 *  - the counts are 6.1's get_slabinfo(): after the cpu slab is flushed,
 *    active objects are exactly the live ones, and every partial slab is
 *    walked;
 *  - the walk is list_lock holds and nothing else: an observer sees one
 *    lock_acquire, one slabinfo_walk and one lock_release per node, in that
 *    order and of one lock_seq, no slab event; the walk says the slabs it
 *    walked, the slabs listed and the free objects it counted;
 *  - partial-scan-bounded (6.10): a list longer than 10000 slabs is scanned
 *    10000 slabs deep (5000 from each end) and extrapolated, capped at the
 *    node's objects; a shorter one is walked whole;
 *  - partial-counters, partial-counters-pcp (2020): the reader takes no
 *    list_lock and walks nothing, its counts stay exact through lockless
 *    frees into listed slabs, allocations from them and discards; -pcp
 *    keeps the node's shared free counter at 0 (the count is per cpu);
 *  - `test_slabinfo reader`: with SLUBTRACE_SLABINFO set, the reader thread
 *    makes rounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slub/event.h>
#include <slub/slub.h>

#include "internal.h"	/* the node counters, to tell -pcp from the shared one */

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

static unsigned seen[SLUB_EV_NR];
/* the last walk, and whether it came inside a hold of its lock_seq */
static struct slub_event last_walk;
static uint64_t held_seq;
static unsigned walks_inside;

static void observe(const struct slub_event *ev, void *arg)
{
	(void)arg;
	if (ev->type < SLUB_EV_NR)
		seen[ev->type]++;
	if (ev->type == SLUB_EV_LOCK_ACQUIRE)
		held_seq = ev->lock_seq;
	else if (ev->type == SLUB_EV_LOCK_RELEASE)
		held_seq = 0;
	else if (ev->type == SLUB_EV_SLABINFO_WALK) {
		last_walk = *ev;
		walks_inside += held_seq && ev->lock_seq == held_seq && ev->locked;
	}
}

static void observe_read(struct slub_cache *s, struct slub_slabinfo *si)
{
	memset(seen, 0, sizeof(seen));
	memset(&last_walk, 0, sizeof(last_walk));
	walks_inside = 0;
	held_seq = 0;
	slub_set_observer(observe, NULL, 0);
	slub_get_slabinfo(s, si);
	slub_set_observer(NULL, NULL, 0);
}

/* Fragments `slabs` slabs of a fresh cache, keeping `keep` objects in each;
 * returns the objects kept (NULL-terminated runs freed by the caller). */
static void **fragment(struct slub_cache **sp, const char *name, unsigned long slabs,
		       unsigned keep, unsigned *per_out, unsigned long *live)
{
	struct slub_cache *s = slub_cache_create(name, 256, 0, SLUB_F_NO_CPU_PARTIAL, NULL);
	struct slub_slabinfo si;
	void **objs, *p;
	unsigned per;

	if (!s)
		abort();
	p = slub_cache_alloc(s);
	slub_get_slabinfo(s, &si);
	per = si.objects_per_slab;
	slub_cache_free(s, p);
	objs = calloc(slabs * per, sizeof(*objs));
	for (unsigned long i = 0; i < slabs * per; i++)
		objs[i] = slub_cache_alloc(s);
	*live = 0;
	for (unsigned long i = 0; i < slabs * per; i++) {
		/* a varying number kept per slab, at least one */
		unsigned k = 1 + (unsigned)((i / per) % keep);
		if (i % per >= k) {
			slub_cache_free(s, objs[i]);
			objs[i] = NULL;
		} else {
			(*live)++;
		}
	}
	slub_validate(s);	/* flushes the cpu slab onto the lists */
	*sp = s;
	*per_out = per;
	return objs;
}

static void release(struct slub_cache *s, void **objs, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		if (objs[i])
			slub_cache_free(s, objs[i]);
	free(objs);
	CHECK(slub_cache_destroy(s) == 0, "cache destroyed");
}

static void test_exact(void)
{
	struct slub_cache *s;
	struct slub_slabinfo si;
	unsigned per;
	unsigned long live;
	void **objs = fragment(&s, "si-exact", 300, 5, &per, &live);

	CHECK(slub_get_slabinfo(s, &si) == 0, "get_slabinfo");
	CHECK(si.num_slabs == 300 && si.active_slabs == 300, "slabs %lu", si.num_slabs);
	CHECK(si.num_objs == 300ul * per, "num_objs %lu", si.num_objs);
	CHECK(si.active_objs == live, "active_objs %lu, live %lu", si.active_objs, live);
	CHECK(si.partial_slabs == 300 && si.scanned_slabs == 300, "partial %lu scanned %lu",
	      si.partial_slabs, si.scanned_slabs);
	CHECK(slub_get_slabinfo(NULL, &si) == -1, "NULL cache refused");

	observe_read(s, &si);
	for (unsigned t = 0; t < SLUB_EV_NR; t++) {
		unsigned want = t == SLUB_EV_LOCK_ACQUIRE || t == SLUB_EV_LOCK_RELEASE ||
			t == SLUB_EV_SLABINFO_WALK ? (unsigned)slub_nr_nodes() : 0;
		CHECK(seen[t] == want, "%s: %u events, want %u", slub_event_name(t), seen[t],
		      want);
	}
	CHECK(walks_inside == (unsigned)slub_nr_nodes(), "%u of %u walks inside their hold",
	      walks_inside, seen[SLUB_EV_SLABINFO_WALK]);
	if (slub_nr_nodes() == 1)
		CHECK(last_walk.count == 300 && last_walk.pages == 300 &&
		      last_walk.size == si.num_objs - si.active_objs && last_walk.slab == 0 &&
		      last_walk.lock_id == slub_cache_id(s) * 64,
		      "walk: %u walked of %u, %llu free (want %lu), lock %u", last_walk.count,
		      last_walk.pages, (unsigned long long)last_walk.size,
		      si.num_objs - si.active_objs, last_walk.lock_id);
	release(s, objs, 300ul * per);
}

static void test_bounded(void)
{
	struct slub_cache *s;
	struct slub_slabinfo si, bounded;
	unsigned per;
	unsigned long live, slabs = 12000;
	void **objs = fragment(&s, "si-bounded", slabs, 7, &per, &live);
	unsigned old = slub_variant();
	double err;

	if (slub_nr_nodes() != 1) {
		printf("skip bounded: %d nodes\n", slub_nr_nodes());
		release(s, objs, slabs * per);
		return;
	}
	slub_get_slabinfo(s, &si);
	CHECK(si.scanned_slabs == slabs && si.active_objs == live,
	      "6.1 walk: scanned %lu active %lu (live %lu)", si.scanned_slabs, si.active_objs,
	      live);
	slub_set_variant(old | SLUB_VAR_PARTIAL_SCAN_BOUNDED);
	observe_read(s, &bounded);
	slub_set_variant(old);
	CHECK(bounded.scanned_slabs == 10000, "bounded: scanned %lu, want 10000",
	      bounded.scanned_slabs);
	/* the trace says the cap: 10000 walked of the 12000 listed */
	CHECK(seen[SLUB_EV_SLABINFO_WALK] == 1 && walks_inside == 1 && last_walk.count == 10000 &&
	      last_walk.pages == slabs &&
	      last_walk.size == bounded.num_objs - bounded.active_objs,
	      "bounded walk event: %u events, %u walked of %u, %llu free",
	      seen[SLUB_EV_SLABINFO_WALK], last_walk.count, last_walk.pages,
	      (unsigned long long)last_walk.size);
	CHECK(bounded.partial_slabs == slabs, "bounded: partial %lu", bounded.partial_slabs);
	err = ((double)bounded.active_objs - (double)live) / (double)live;
	printf("bounded estimate: active %lu, exact %lu (%+.2f%%)\n", bounded.active_objs, live,
	       100 * err);
	CHECK(err > -0.05 && err < 0.05, "bounded estimate off by %.2f%%", 100 * err);
	release(s, objs, slabs * per);

	/* a short list is walked whole under the variant too */
	objs = fragment(&s, "si-short", 100, 3, &per, &live);
	slub_set_variant(old | SLUB_VAR_PARTIAL_SCAN_BOUNDED);
	slub_get_slabinfo(s, &bounded);
	slub_set_variant(old);
	CHECK(bounded.scanned_slabs == 100 && bounded.active_objs == live,
	      "short list: scanned %lu active %lu live %lu", bounded.scanned_slabs,
	      bounded.active_objs, live);
	release(s, objs, 100ul * per);
}


/* The exact counts, walked with the 6.1 reader, against the variant's. */
static void expect_counts(struct slub_cache *s, unsigned v, const char *when)
{
	struct slub_slabinfo walked, counted;
	unsigned old = slub_variant();

	slub_set_variant(old & ~v);
	slub_get_slabinfo(s, &walked);
	slub_set_variant(old);
	observe_read(s, &counted);
	CHECK(counted.active_objs == walked.active_objs, "%s: counted active %lu, walked %lu",
	      when, counted.active_objs, walked.active_objs);
	CHECK(counted.partial_objs == walked.partial_objs, "%s: counted partial objects %lu, "
	      "walked %lu", when, counted.partial_objs, walked.partial_objs);
	CHECK(counted.scanned_slabs == 0, "%s: %lu slabs walked", when, counted.scanned_slabs);
	CHECK(seen[SLUB_EV_LOCK_ACQUIRE] == 0, "%s: the counted read took list_lock %u times",
	      when, seen[SLUB_EV_LOCK_ACQUIRE]);
	CHECK(seen[SLUB_EV_SLABINFO_WALK] == 0, "%s: the counted read walked %u times",
	      when, seen[SLUB_EV_SLABINFO_WALK]);
}

static void test_counters(unsigned v, const char *name)
{
	struct slub_cache *s;
	unsigned per, old = slub_variant();
	unsigned long live, slabs = 200;
	void **objs;
	long shared = 0;

	/* the counters follow the lists from the cache's first slab */
	slub_set_variant(old | v);
	objs = fragment(&s, name, slabs, 6, &per, &live);
	expect_counts(s, v, "fragmented");
	/* frees into listed slabs (lockless: unfrozen, free objects left) */
	for (unsigned long i = 0; i < slabs * per; i += per * 2)
		if (objs[i + 1]) {
			slub_cache_free(s, objs[i + 1]);
			objs[i + 1] = NULL;
		}
	expect_counts(s, v, "after frees into listed slabs");
	/* allocations take slabs off the list (acquire_slab) */
	for (int i = 0; i < 500; i++)
		(void)slub_cache_alloc(s);
	slub_validate(s);
	expect_counts(s, v, "after allocations from the list");
	/* frees that empty slabs: discarded or kept under min_partial */
	for (unsigned long i = 0; i < slabs * per; i++)
		if (objs[i] && i % (per * 3) == 0) {
			slub_cache_free(s, objs[i]);
			objs[i] = NULL;
		}
	slub_validate(s);
	expect_counts(s, v, "after emptying frees");
	for (int nid = 0; nid < slub_nr_nodes(); nid++)
		shared += s->node[nid].partial_free_objs;
	if (v == SLUB_VAR_PARTIAL_COUNTERS_PCP)
		CHECK(shared == 0, "pcp: the shared node counter holds %ld", shared);
	else
		CHECK(shared > 0, "shared counter: %ld", shared);
	slub_set_variant(old);
	/* the objects allocated above stay with the cache: not destroyed */
	for (unsigned long i = 0; i < slabs * per; i++)
		if (objs[i])
			slub_cache_free(s, objs[i]);
	free(objs);
}

static int test_reader(void)
{
	struct timespec ts = { 0, 1000000 };
	void *p = slub_malloc(64);	/* starts the allocator, and the reader */

	for (int i = 0; i < 20000 && !slub_slabinfo_reader_rounds(); i++)
		nanosleep(&ts, NULL);
	CHECK(slub_slabinfo_reader_rounds() > 0, "the reader thread made no round");
	slub_free(p);
	return failures != 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "reader"))
		return test_reader();
	CHECK(slub_slabinfo_reader_rounds() == 0, "no reader without SLUBTRACE_SLABINFO");
	test_exact();
	test_bounded();
	test_counters(SLUB_VAR_PARTIAL_COUNTERS, "si-counters");
	test_counters(SLUB_VAR_PARTIAL_COUNTERS_PCP, "si-counters-pcp");
	printf("%s\n", failures ? "FAILED" : "all passed");
	return failures != 0;
}
