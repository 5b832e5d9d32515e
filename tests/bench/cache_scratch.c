// SPDX-License-Identifier: MIT
/*
 * cache_scratch: passive false sharing, after Hoard's cache-scratch.
 *
 * The main thread allocates one small object per worker, back to back, and
 * hands them out.  Each worker frees the object it was given, then loops:
 * allocate an object of the same size, write every byte of it many times,
 * free it.  An allocator that serves a worker from the cache line it just
 * got back (one that another worker's object shares) makes the workers
 * write to the same line; one that keeps per-thread slabs does not.
 *
 * The workers run side by side; the figure is wall nanoseconds per
 * iteration of one worker.
 */
#include "bench.h"

static int nr_threads;
static long nr_iter = 20000;
static long nr_writes = 200;
static size_t obj_size = 8;

struct worker {
	pthread_t thread;
	char *given;
	uint64_t sum;
} __attribute__((aligned(64)));

static struct worker *workers;
static pthread_barrier_t barrier;

static void *scratch_main(void *arg)
{
	struct worker *w = arg;
	uint64_t sum = 0;

	pthread_barrier_wait(&barrier);
	free(w->given);
	for (long i = 0; i < nr_iter; i++) {
		volatile char *p = bench_xmalloc(obj_size);

		for (long k = 0; k < nr_writes; k++) {
			for (size_t b = 0; b < obj_size; b++)
				p[b] = (char)(p[b] + k);
		}
		sum += (unsigned char)p[0];
		free((void *)p);
	}
	w->sum = sum;
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: cache_scratch [-t THREADS] [-i ITER] [-w WRITES] [-s SIZE] [-M]\n"
		"  -t  threads (online cpus)  -i  iterations per thread (20000)\n"
		"  -w  writes of each byte per iteration (200)  -s  object size (8)\n"
		"  -M  also print '@name value' lines\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t t0, t1, sum = 0;
	double ns_iter;
	int opt;

	nr_threads = bench_nproc();
	while ((opt = getopt(argc, argv, "t:i:w:s:Mh")) != -1) {
		switch (opt) {
		case 't': nr_threads = bench_arg(optarg, "-t"); break;
		case 'i': nr_iter = bench_arg(optarg, "-i"); break;
		case 'w': nr_writes = bench_arg(optarg, "-w"); break;
		case 's': obj_size = bench_arg(optarg, "-s"); break;
		case 'M': bench_machine = 1; break;
		default: usage();
		}
	}
	if (nr_threads < 1 || obj_size < 1)
		usage();

	printf("cache_scratch: %d threads, %ld iterations, %ld writes, %zu-byte objects\n",
	       nr_threads, nr_iter, nr_writes, obj_size);
	workers = bench_xmalloc(nr_threads * sizeof(*workers));
	for (int i = 0; i < nr_threads; i++) {
		workers[i].given = bench_xmalloc(obj_size);
		memset(workers[i].given, 0, obj_size);
	}
	pthread_barrier_init(&barrier, NULL, nr_threads + 1);
	for (int i = 0; i < nr_threads; i++)
		bench_thread_create(&workers[i].thread, scratch_main, &workers[i]);
	t0 = bench_ns();
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < nr_threads; i++) {
		pthread_join(workers[i].thread, NULL);
		sum += workers[i].sum;
	}
	t1 = bench_ns();
	pthread_barrier_destroy(&barrier);

	ns_iter = nr_iter ? (double)(t1 - t0) / nr_iter : 0;
	printf("%-14s %12s %10s\n", "benchmark", "iterations", "ns/iter");
	printf("%-14s %12ld %10.1f\n", "cache-scratch", nr_iter * nr_threads, ns_iter);
	printf("(checksum %llu)\n", (unsigned long long)sum);
	bench_metric(ns_iter, "scratch.ns");
	free(workers);
	bench_report_end(t1 - t0);
	return 0;
}
