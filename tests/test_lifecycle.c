/* SPDX-License-Identifier: MIT */
/*
 * test_lifecycle: the edges of a thread's and a cache's life.
 *
 *  1. destroy racing thread exit: a worker empties the cache and returns;
 *     its exit flush and slub_cache_destroy() on the main thread touch the
 *     same cpu slot.  Destroy must find no live object, nothing is reported.
 *  2. allocations after the exit flush: a later key destructor allocates
 *     and frees for several rounds.  The thread must not get a new slot of
 *     its own that nobody flushes: exited threads share the orphan slot, so
 *     at most one cpu slab (plus its chain) stays with them, whatever the
 *     number of threads.
 *  3. a double free that reaches __slab_free (the object is not on the
 *     thread's cpu slab) is reported and changes nothing: the other object
 *     of the slab stays allocated and the slab is not discarded.
 *  4. the same on the fast path of a normal (non-debug) cache: freeing the
 *     object that heads the cpu freelist again is one report, and the
 *     object is never handed out twice.
 *  5. thread exit flushes the cpu partial chain, not only the cpu slab: a
 *     thread whose remote frees parked slabs on its chain exits, and before
 *     any validate or shrink its slot holds nothing.
 */
#include <pthread.h>
#include <stdint.h>
#include <slub/slub.h>

#include "testutil.h"

static struct slub_cache *cache;
static int worker_done;

static void *empty_and_exit(void *arg)
{
	void *v[64];

	(void)arg;
	for (int i = 0; i < 64; i++)
		v[i] = slub_cache_alloc(cache);
	for (int i = 0; i < 64; i++)
		slub_cache_free(cache, v[i]);
	__atomic_store_n(&worker_done, 1, __ATOMIC_RELEASE);
	return NULL; /* the exit flush runs now, maybe during the destroy */
}

static void destroy_vs_exit(int iterations)
{
	unsigned long e0 = slub_error_count();
	long bogus = 0;

	for (int it = 0; it < iterations; it++) {
		char name[32];
		pthread_t t;

		snprintf(name, sizeof(name), "life-%d", it);
		cache = slub_cache_create(name, 128, 0, 0, NULL);
		if (!CHECK(cache != NULL, "create %s: errno %d", name, errno))
			return;
		__atomic_store_n(&worker_done, 0, __ATOMIC_RELEASE);
		pthread_create(&t, NULL, empty_and_exit, NULL);
		while (!__atomic_load_n(&worker_done, __ATOMIC_ACQUIRE))
			;
		long live = slub_cache_destroy(cache);
		pthread_join(t, NULL);
		bogus += live != 0;
	}
	CHECK(bogus == 0, "%ld of %d destroys saw live objects (none were)", bogus, iterations);
	CHECK_EQ(slub_error_count(), e0);
}

static pthread_key_t late_key;
static __thread int late_rounds;

static void late_destructor(void *v)
{
	void *p = slub_cache_alloc(cache);

	CHECK(p != NULL, "allocation after the exit flush failed");
	slub_cache_free(cache, p);
	if (++late_rounds < 8)
		pthread_setspecific(late_key, v); /* ask for another round */
}

static void *late_worker(void *arg)
{
	(void)arg;
	slub_cache_free(cache, slub_cache_alloc(cache));
	pthread_setspecific(late_key, (void *)1);
	return NULL;
}

static void alloc_after_exit(int threads)
{
	struct slub_stats st;

	cache = slub_cache_create("life-late", 64, 0, 0, NULL);
	pthread_key_create(&late_key, late_destructor);
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		pthread_create(&t, NULL, late_worker, NULL);
		pthread_join(t, NULL);
	}
	CHECK_EQ(slub_cache_stats(cache, &st), 0);
	/* The main thread never allocated from it: every cpu slab left is the
	 * orphan slot's (one active slab, its partial chain bounded). */
	CHECK(st.cpu_slabs <= 1 + 30, "%llu cpu slabs held after %d exited threads",
	      (unsigned long long)st.cpu_slabs, threads);
	CHECK(st.slabs <= 2, "%llu slabs for %d threads of one object each",
	      (unsigned long long)st.slabs, threads);
	CHECK_EQ(st.objects_inuse, 0);
	CHECK_EQ(slub_validate(cache), 0);
	CHECK_EQ(slub_cache_destroy(cache), 0);
}

static void double_free_slow_path(void)
{
	struct capture cap;
	struct slub_ptr_info info;
	struct slub_cache *s = slub_cache_create("life-df", 64, 0, 0, NULL);

	capture_open(&cap);
	slub_set_report_fd(cap.fd);
	void *o = slub_cache_alloc(s), *p = slub_cache_alloc(s);
	slub_thread_flush(); /* the slab leaves the cpu: frees take __slab_free */
	unsigned long e0 = slub_error_count();
	slub_cache_free(s, o);
	slub_cache_free(s, o);
	CHECK_EQ(slub_error_count(), e0 + 1);
	const char *r = capture_take(&cap);
	CHECK(strstr(r, "BUG life-df: Object already free") && text_has_addr(r, o), "report: %.300s",
	      r);
	CHECK_EQ(slub_cache_shrink(s), 0); /* p keeps its slab */
	CHECK(slub_ptr_lookup(p, &info) && info.start && info.cache == s, "p lost its slab");
	CHECK_EQ(slub_validate(s), 0);
	slub_cache_free(s, p);
	CHECK_EQ(slub_cache_destroy(s), 0);
	slub_set_report_fd(2);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static void double_free_fast_path(void)
{
	struct capture cap;
	struct slub_cache *s = slub_cache_create("life-df-fast", 64, 0, 0, NULL);
	enum { N = 300 };
	void *v[N];
	int dups = 0, again = 0;

	if (!CHECK(s != NULL, "create: errno %d", errno))
		return;
	capture_open(&cap);
	slub_set_report_fd(cap.fd);
	void *o = slub_cache_alloc(s), *p = slub_cache_alloc(s);
	slub_cache_free(s, o); /* o heads this thread's cpu freelist */
	unsigned long e0 = slub_error_count();
	slub_cache_free(s, o);
	CHECK_EQ(slub_error_count(), e0 + 1);
	const char *r = capture_take(&cap);
	CHECK(strstr(r, "BUG life-df-fast: Object already free") && text_has_addr(r, o),
	      "report: %.300s", r);
	/* o is free once: the next allocations return it at most once. */
	for (int i = 0; i < N; i++) {
		v[i] = slub_cache_alloc(s);
		if (!CHECK(v[i] != NULL, "alloc %d: errno %d", i, errno))
			return;
		again += v[i] == o;
		if (v[i] == p && dups++ < 3)
			CHECK(0, "live object %p handed out", p);
	}
	qsort(v, N, sizeof(v[0]), cmp_ptr);
	for (int i = 1; i < N; i++)
		if (v[i] == v[i - 1] && dups++ < 3)
			CHECK(0, "object %p handed out twice", v[i]);
	CHECK_EQ(dups, 0);
	if (!CHECK(again <= 1, "the double-freed object came back %d times", again)) {
		slub_set_report_fd(2);
		return; /* its cpu freelist is a cycle now: leave the cache alone */
	}
	for (int i = 0; i < N; i++)
		if (i == 0 || v[i] != v[i - 1])
			slub_cache_free(s, v[i]);
	slub_cache_free(s, p);
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_cache_destroy(s), 0);
	CHECK_EQ(slub_error_count(), e0 + 1);
	slub_set_report_fd(2);
	close(cap.fd);
}

#define CHAIN_SLABS 20

static void *remote_free_and_exit(void *arg)
{
	void **firsts = arg;

	/* Each object is the first freed of a full slab: the slab is frozen
	 * onto this thread's cpu partial chain (20 free objects, under the
	 * drain limit of a 64-byte cache). */
	for (int i = 0; i < CHAIN_SLABS; i++)
		slub_cache_free(cache, firsts[i]);
	return NULL; /* the exit flush must unfreeze the chain */
}

static void exit_flushes_partial_chain(void)
{
	struct slub_stats before, after;
	struct slub_ptr_info info;
	enum { CAP = 4096 };
	void **v = calloc(CAP, sizeof(void *));
	void *firsts[CHAIN_SLABS + 2];
	const void *slab = NULL;
	int n = 0, nslabs = 0;
	pthread_t t;

	cache = slub_cache_create("life-chain", 64, 0, 0, NULL);
	if (!CHECK(cache != NULL && v != NULL, "create: errno %d", errno))
		return;
	/* Fill CHAIN_SLABS + 1 slabs, start one more (the cpu slab). */
	while (n < CAP && nslabs < CHAIN_SLABS + 2) {
		v[n] = slub_cache_alloc(cache);
		if (!CHECK(v[n] != NULL && slub_ptr_lookup(v[n], &info), "alloc %d", n))
			return;
		if (info.slab != slab) {
			slab = info.slab;
			firsts[nslabs++] = v[n];
		}
		n++;
	}
	CHECK_EQ(slub_cache_stats(cache, &before), 0);
	pthread_create(&t, NULL, remote_free_and_exit, firsts);
	pthread_join(t, NULL);
	CHECK_EQ(slub_cache_stats(cache, &after), 0);
	CHECK(after.cpu_slabs == before.cpu_slabs,
	      "after the thread's exit %llu cpu slabs and chain slabs, before it %llu",
	      (unsigned long long)after.cpu_slabs, (unsigned long long)before.cpu_slabs);
	CHECK(after.partial_slabs == before.partial_slabs + CHAIN_SLABS,
	      "%llu slabs on the node partial lists, want %llu + %d",
	      (unsigned long long)after.partial_slabs, (unsigned long long)before.partial_slabs,
	      CHAIN_SLABS);
	for (int i = 0; i < n; i++) {
		int freed = 0;
		for (int k = 0; k < CHAIN_SLABS; k++)
			freed |= v[i] == firsts[k];
		if (!freed)
			slub_cache_free(cache, v[i]);
	}
	free(v);
	CHECK_EQ(slub_validate(cache), 0);
	CHECK_EQ(slub_cache_destroy(cache), 0);
}

int main(int argc, char **argv)
{
	int iterations = argc > 1 ? atoi(argv[1]) : 3000;

	destroy_vs_exit(iterations);
	alloc_after_exit(50);
	double_free_slow_path();
	double_free_fast_path();
	exit_flushes_partial_chain();
	return test_summary("test_lifecycle");
}
