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
 */
#include <pthread.h>
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

int main(int argc, char **argv)
{
	int iterations = argc > 1 ? atoi(argv[1]) : 3000;

	destroy_vs_exit(iterations);
	alloc_after_exit(50);
	double_free_slow_path();
	return test_summary("test_lifecycle");
}
