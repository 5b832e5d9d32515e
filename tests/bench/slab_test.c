// SPDX-License-Identifier: MIT
/*
 * slab_test: the kernel's synthetic slab benchmark, in userspace.
 *
 * Five tests, each reported in cycles (TSC) and nanoseconds per operation,
 * in the shape of the kernel's output ("10000 times kmalloc(8) -> 118
 * cycles kfree -> 158 cycles"):
 *
 *   1. N x malloc then N x free, sizes 8 .. max (single thread)
 *   2. N x (malloc, free) pairs, same sizes
 *   3. every thread: N x malloc then N x free, and N x (malloc, free),
 *      all threads at once, sizes 8 .. 4096
 *   4. remote free: every thread allocates N, then frees the N objects the
 *      next thread allocated (each object is freed by a thread that did not
 *      allocate it)
 *   5. 1 alloc N free: thread 0 allocates N objects, then every thread frees
 *      its share of them at once
 *
 * -z runs tests 1 and 2 with calloc(1, size): the zeroing allocation the
 * 2009 thread is about (kzalloc, __GFP_ZERO).  -c runs them through a cache
 * of each size and its zeroing allocation (kmem_cache_zalloc), slubtrace's
 * own calls, found at run time: under the preloaded shim only.
 *
 * The test threads are pinned one per cpu, round robin.  A warm-up pass per
 * size (-w 0 to disable) lets the allocator map its memory before the timed
 * pass, so that page faults do not stand in for allocator work.
 *
 * -r R times tests 1 and 2 R times per size and keeps the lowest figure of
 * each row: the TSC runs on while the thread is preempted, and on a shared
 * machine a pass of 10,000 large objects (a millisecond or more) often is,
 * which turns a 100-cycle operation into thousands.  The passes that were
 * preempted (the thread's involuntary context switches rose) are counted
 * and printed, so a reader sees how much of the run the machine took.
 */
#include "bench.h"

#include <dlfcn.h>
#include <sys/resource.h>

#define MAX_THREADS 256

static long nr_objs = 10000;
static int nr_threads;
static size_t min_size = 8;
static size_t max_size = 16384;
static size_t max_size_mt = 4096;
static int warmup = 1;
/* -r: timed passes per size of tests 1-2, the lowest kept */
static long repeats = 1;
static long passes, preempted_passes;
/* -z: tests 1 and 2 allocate zeroed memory, calloc(1, size): the
 * __GFP_ZERO path of the 2009 thread (kzalloc), slub_calloc in the shim */
static int zero;

/* -c: slub_cache_create / _zalloc / _free / _destroy of the shim */
static int cache_mode;
static void *(*cache_create)(const char *, size_t, size_t, unsigned, void (*)(void *));
static void *(*cache_zalloc)(void *);
static void (*cache_free)(void *, void *);
static long (*cache_destroy)(void *);
static void *cache; /* the cache of the size being measured */

static void cache_mode_init(void)
{
	cache_create = (void *(*)(const char *, size_t, size_t, unsigned, void (*)(void *)))
		dlsym(RTLD_DEFAULT, "slub_cache_create");
	cache_zalloc = (void *(*)(void *))dlsym(RTLD_DEFAULT, "slub_cache_zalloc");
	cache_free = (void (*)(void *, void *))dlsym(RTLD_DEFAULT, "slub_cache_free");
	cache_destroy = (long (*)(void *))dlsym(RTLD_DEFAULT, "slub_cache_destroy");
	if (!cache_create || !cache_zalloc || !cache_free || !cache_destroy) {
		fprintf(stderr, "slab_test: -c needs slubtrace's cache calls: run it with "
				"LD_PRELOAD=libslub-malloc.so\n");
		exit(2);
	}
}

/* -c: a cache for the next size, the last one destroyed. */
static void cache_for(size_t size)
{
	char name[32];

	if (!cache_mode)
		return;
	if (cache && cache_destroy(cache) != 0) {
		fprintf(stderr, "slab_test: cache of the last size still has objects\n");
		exit(2);
	}
	snprintf(name, sizeof(name), "slab_test-%zu", size);
	cache = cache_create(name, size, 0, 0, NULL);
	if (!cache) {
		fprintf(stderr, "slab_test: slub_cache_create(%s): %s\n", name, strerror(errno));
		exit(2);
	}
}

static inline void *alloc_one(size_t size)
{
	if (cache_mode)
		return cache_zalloc(cache);
	return zero ? calloc(1, size) : malloc(size);
}

static inline void free_one(void *p)
{
	if (cache_mode)
		cache_free(cache, p);
	else
		free(p);
}

static const char *alloc_name(void)
{
	return cache_mode ? "kmem_cache_zalloc" : zero ? "calloc" : "malloc";
}

/* The metric names' test prefix: t1/t2, t1z/t2z (-z), t1c/t2c (-c). */
static const char *variant_tag(void)
{
	return cache_mode ? "c" : zero ? "z" : "";
}

struct timing {
	uint64_t cyc, ns;
};

static inline struct timing t_now(void)
{
	struct timing t = { bench_cycles(), bench_ns() };

	return t;
}

/* The calling thread's involuntary context switches so far. */
static long nivcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nivcsw;
}

/* Counts one timed pass of tests 1-2, preempted or not. */
static void pass_done(long nivcsw_before)
{
	passes++;
	preempted_passes += nivcsw() != nivcsw_before;
}

static void keep_min(double *best, double v)
{
	if (*best < 0 || v < *best)
		*best = v;
}

/* Per-op figures from two timestamps. */
static inline void t_per_op(struct timing a, struct timing b, long ops,
			    double *cyc, double *ns)
{
	*cyc = ops ? (double)(b.cyc - a.cyc) / ops : 0;
	*ns = ops ? (double)(b.ns - a.ns) / ops : 0;
}

static void alloc_n(void **v, long n, size_t size)
{
	for (long i = 0; i < n; i++) {
		v[i] = alloc_one(size);
		bench_use(v[i]);
	}
}

static void free_n(void **v, long n)
{
	for (long i = 0; i < n; i++)
		free_one(v[i]);
}

static void check_all(void **v, long n, size_t size)
{
	for (long i = 0; i < n; i++) {
		if (!v[i]) {
			fprintf(stderr, "malloc(%zu) returned NULL\n", size);
			exit(2);
		}
	}
}

/* ---- single thread ---------------------------------------------------- */

static void test_alloc_then_free(void)
{
	void **v = bench_xmalloc(nr_objs * sizeof(*v));

	printf("1. %s: Repeatedly allocate then free test\n", alloc_name());
	for (size_t size = min_size; size <= max_size; size <<= 1) {
		struct timing a, b, c;
		double ac, an, fc, fn;

		cache_for(size);
		if (warmup) {
			alloc_n(v, nr_objs, size);
			free_n(v, nr_objs);
		}
		ac = an = fc = fn = -1;
		for (long r = 0; r < repeats; r++) {
			long sw = nivcsw();
			struct timing d;
			double x, y;

			a = t_now();
			alloc_n(v, nr_objs, size);
			b = t_now();
			check_all(v, nr_objs, size);
			c = t_now();
			free_n(v, nr_objs);
			d = t_now();
			pass_done(sw);
			t_per_op(a, b, nr_objs, &x, &y);
			keep_min(&ac, x);
			keep_min(&an, y);
			t_per_op(c, d, nr_objs, &x, &y);
			keep_min(&fc, x);
			keep_min(&fn, y);
		}
		printf("%ld times %s(%zu) -> %.0f cycles (%.1f ns) free -> %.0f cycles (%.1f ns)\n",
		       nr_objs, alloc_name(), size, ac, an, fc, fn);
		bench_metric(ac, "t1%s.alloc.%zu.cyc", variant_tag(), size);
		bench_metric(an, "t1%s.alloc.%zu.ns", variant_tag(), size);
		bench_metric(fc, "t1%s.free.%zu.cyc", variant_tag(), size);
		bench_metric(fn, "t1%s.free.%zu.ns", variant_tag(), size);
	}
	free(v);
}

static void test_pairs(void)
{
	printf("2. %s: alloc/free test\n", alloc_name());
	for (size_t size = min_size; size <= max_size; size <<= 1) {
		struct timing a, b;
		double pc, pn;

		cache_for(size);
		if (warmup) {
			for (long i = 0; i < nr_objs; i++) {
				void *p = alloc_one(size);

				bench_use(p);
				free_one(p);
			}
		}
		pc = pn = -1;
		for (long r = 0; r < repeats; r++) {
			long sw = nivcsw();
			double x, y;

			a = t_now();
			for (long i = 0; i < nr_objs; i++) {
				void *p = alloc_one(size);

				bench_use(p);
				free_one(p);
			}
			b = t_now();
			pass_done(sw);
			t_per_op(a, b, nr_objs, &x, &y);
			keep_min(&pc, x);
			keep_min(&pn, y);
		}
		printf("%ld times %s(%zu)/free -> %.0f cycles (%.1f ns)\n",
		       nr_objs, alloc_name(), size, pc, pn);
		bench_metric(pc, "t2%s.pair.%zu.cyc", variant_tag(), size);
		bench_metric(pn, "t2%s.pair.%zu.ns", variant_tag(), size);
	}
}

/* ---- several threads -------------------------------------------------- */

enum mt_test { MT_CONCURRENT, MT_PAIRS, MT_REMOTE, MT_ONE_ALLOC };

struct mt_thread {
	int id;
	pthread_t thread;
	void **objs;      /* N slots */
	double alloc_cyc, alloc_ns, free_cyc, free_ns;
} __attribute__((aligned(64)));

static struct mt_thread threads[MAX_THREADS];
static pthread_barrier_t barrier;
static enum mt_test mt_test;
static size_t mt_size;

static void mt_phase_alloc(struct mt_thread *t, void **v, long n)
{
	struct timing a, b;

	a = t_now();
	alloc_n(v, n, mt_size);
	b = t_now();
	t_per_op(a, b, n, &t->alloc_cyc, &t->alloc_ns);
	check_all(v, n, mt_size);
}

static void mt_phase_free(struct mt_thread *t, void **v, long n)
{
	struct timing a, b;

	a = t_now();
	free_n(v, n);
	b = t_now();
	t_per_op(a, b, n, &t->free_cyc, &t->free_ns);
}

static void *mt_main(void *arg)
{
	struct mt_thread *t = arg;
	long share, first;

	bench_pin(t->id);
	t->alloc_cyc = t->alloc_ns = t->free_cyc = t->free_ns = 0;
	if (warmup && mt_test != MT_ONE_ALLOC) {
		alloc_n(t->objs, nr_objs, mt_size);
		free_n(t->objs, nr_objs);
	}
	pthread_barrier_wait(&barrier);

	switch (mt_test) {
	case MT_CONCURRENT:
		mt_phase_alloc(t, t->objs, nr_objs);
		pthread_barrier_wait(&barrier);
		mt_phase_free(t, t->objs, nr_objs);
		break;
	case MT_PAIRS: {
		struct timing a = t_now(), b;

		for (long i = 0; i < nr_objs; i++) {
			void *p = malloc(mt_size);

			bench_use(p);
			free(p);
		}
		b = t_now();
		t_per_op(a, b, nr_objs, &t->alloc_cyc, &t->alloc_ns);
		break;
	}
	case MT_REMOTE:
		mt_phase_alloc(t, t->objs, nr_objs);
		pthread_barrier_wait(&barrier);
		mt_phase_free(t, threads[(t->id + 1) % nr_threads].objs, nr_objs);
		break;
	case MT_ONE_ALLOC:
		if (t->id == 0)
			mt_phase_alloc(t, t->objs, nr_objs);
		pthread_barrier_wait(&barrier);
		share = nr_objs / nr_threads;
		first = share * t->id;
		if (t->id == nr_threads - 1)
			share = nr_objs - first;
		mt_phase_free(t, threads[0].objs + first, share);
		break;
	}
	pthread_barrier_wait(&barrier);
	return NULL;
}

static void mt_run(enum mt_test test, size_t size)
{
	mt_test = test;
	mt_size = size;
	pthread_barrier_init(&barrier, NULL, nr_threads);
	for (int i = 0; i < nr_threads; i++)
		bench_thread_create(&threads[i].thread, mt_main, &threads[i]);
	for (int i = 0; i < nr_threads; i++)
		pthread_join(threads[i].thread, NULL);
	pthread_barrier_destroy(&barrier);
}

/* Print "0=a/f 1=a/f Average=a/f" (or the single-figure form) and the
 * metrics under `key`. */
static void mt_print(const char *label, const char *key, int two, int one_alloc)
{
	double ac = 0, an = 0, fc = 0, fn = 0;

	printf("%s(%zu):", label, mt_size);
	if (one_alloc)
		printf(" alloc=%.0f", threads[0].alloc_cyc);
	for (int i = 0; i < nr_threads; i++) {
		struct mt_thread *t = &threads[i];

		if (one_alloc)
			printf(" %d=%.0f", i, t->free_cyc);
		else if (two)
			printf(" %d=%.0f/%.0f", i, t->alloc_cyc, t->free_cyc);
		else
			printf(" %d=%.0f", i, t->alloc_cyc);
		ac += t->alloc_cyc;
		an += t->alloc_ns;
		fc += t->free_cyc;
		fn += t->free_ns;
	}
	ac /= nr_threads;
	an /= nr_threads;
	fc /= nr_threads;
	fn /= nr_threads;
	if (one_alloc) {
		ac = threads[0].alloc_cyc;
		an = threads[0].alloc_ns;
	}
	if (two && !one_alloc)
		printf(" Average=%.0f/%.0f cycles (%.1f/%.1f ns)\n", ac, fc, an, fn);
	else if (one_alloc)
		printf(" Average=%.0f cycles (alloc %.1f ns, free %.1f ns)\n", fc, an, fn);
	else
		printf(" Average=%.0f cycles (%.1f ns)\n", ac, an);
	if (two || one_alloc) {
		bench_metric(ac, "%s.alloc.%zu.cyc", key, mt_size);
		bench_metric(an, "%s.alloc.%zu.ns", key, mt_size);
		bench_metric(fc, "%s.free.%zu.cyc", key, mt_size);
		bench_metric(fn, "%s.free.%zu.ns", key, mt_size);
	} else {
		bench_metric(ac, "%s.pair.%zu.cyc", key, mt_size);
		bench_metric(an, "%s.pair.%zu.ns", key, mt_size);
	}
}

static void test_concurrent(void)
{
	printf("Concurrent allocs\n");
	printf("=================\n");
	for (size_t size = min_size; size <= max_size_mt; size <<= 1) {
		mt_run(MT_CONCURRENT, size);
		mt_print("malloc N*alloc N*free", "t3", 1, 0);
	}
	for (size_t size = min_size; size <= max_size_mt; size <<= 1) {
		mt_run(MT_PAIRS, size);
		mt_print("malloc N*(alloc free)", "t3", 0, 0);
	}
}

static void test_remote(void)
{
	printf("Remote free test\n");
	printf("================\n");
	for (size_t size = min_size; size <= max_size_mt; size <<= 1) {
		mt_run(MT_REMOTE, size);
		mt_print("N*remote free", "t4", 1, 0);
	}
}

static void test_one_alloc(void)
{
	printf("1 alloc N free test\n");
	printf("===================\n");
	for (size_t size = min_size; size <= max_size_mt; size <<= 1) {
		mt_run(MT_ONE_ALLOC, size);
		mt_print("1 alloc N free", "t5", 0, 1);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: slab_test [-n OBJS] [-t THREADS] [-m MINSIZE] [-s MAXSIZE] [-S MAXSIZE_MT]\n"
		"                 [-T TESTS] [-w 0|1] [-r REPEATS] [-z | -c] [-M]\n"
		"  -n  objects per test and thread (10000)\n"
		"  -t  threads for tests 3-5 (online cpus, at least 2)\n"
		"  -m  smallest size (8); sizes double from it\n"
		"  -s  largest size of tests 1-2 (16384); -S of tests 3-5 (4096)\n"
		"  -T  which tests, digits 1-5 (12345)\n"
		"  -w  warm-up pass before each timed pass (1)\n"
		"  -r  timed passes per size of tests 1-2, the lowest figure kept (1)\n"
		"  -z  tests 1-2 with calloc(1, size), the zeroing (__GFP_ZERO) path\n"
		"  -c  tests 1-2 through a cache per size and its zeroing allocation\n"
		"      (kmem_cache_zalloc: slubtrace's own call, under its preloaded shim)\n"
		"  -M  also print machine-readable '@name value' lines\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *tests = "12345";
	uint64_t t0;
	int opt;

	nr_threads = bench_nproc() < 2 ? 2 : bench_nproc();
	while ((opt = getopt(argc, argv, "n:t:m:s:S:T:w:r:zcMh")) != -1) {
		switch (opt) {
		case 'n': nr_objs = bench_arg(optarg, "-n"); break;
		case 't': nr_threads = bench_arg(optarg, "-t"); break;
		case 'm': min_size = bench_arg(optarg, "-m"); break;
		case 's': max_size = bench_arg(optarg, "-s"); break;
		case 'S': max_size_mt = bench_arg(optarg, "-S"); break;
		case 'T': tests = optarg; break;
		case 'w': warmup = bench_arg(optarg, "-w") != 0; break;
		case 'r': repeats = bench_arg(optarg, "-r"); break;
		case 'z': zero = 1; break;
		case 'c': cache_mode = 1; break;
		case 'M': bench_machine = 1; break;
		default: usage();
		}
	}
	if (nr_objs < 1 || nr_threads < 1 || nr_threads > MAX_THREADS || min_size < 1 ||
	    repeats < 1 || repeats > 1000 ||
	    (zero && cache_mode))
		usage();
	if (cache_mode)
		cache_mode_init();
	for (int i = 0; i < nr_threads; i++) {
		threads[i].id = i;
		threads[i].objs = bench_xmalloc(nr_objs * sizeof(void *));
	}

	printf("slab_test: %ld objects, %d threads, %d cpus\n", nr_objs,
	       nr_threads, bench_nproc());
	t0 = bench_ns();
	if (strchr(tests, '1') || strchr(tests, '2')) {
		printf("Single thread testing\n");
		printf("=====================\n");
	}
	if (strchr(tests, '1'))
		test_alloc_then_free();
	if (strchr(tests, '2'))
		test_pairs();
	if (passes) {
		printf("tests 1-2: %ld of %ld timed passes preempted (best of %ld kept)\n",
		       preempted_passes, passes, repeats);
		bench_metric((double)preempted_passes, "preempted_passes");
		bench_metric((double)passes, "passes");
	}
	if (cache && cache_destroy(cache) != 0)
		fprintf(stderr, "slab_test: the last cache still has objects\n");
	cache = NULL;
	if (strchr(tests, '3'))
		test_concurrent();
	if (nr_threads >= 2 && strchr(tests, '4'))
		test_remote();
	if (nr_threads >= 2 && strchr(tests, '5'))
		test_one_alloc();
	bench_report_end(bench_ns() - t0);

	for (int i = 0; i < nr_threads; i++)
		free(threads[i].objs);
	return 0;
}
