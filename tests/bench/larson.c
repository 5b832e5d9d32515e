// SPDX-License-Identifier: MIT
/*
 * larson: a server-style workload after Larson and Krishnan's benchmark.
 *
 * Every thread owns a table of slots holding objects of random sizes and,
 * in each epoch, replaces random slots (free the old object, allocate a new
 * one of a random size).  At the end of an epoch the tables move on to the
 * next thread, so most frees hit objects that another thread allocated —
 * the pattern of a server whose requests migrate between workers.
 *
 * Work is fixed (threads x epochs x ops), time is measured.  The figure is
 * nanoseconds of thread time per replacement (wall x threads / ops).
 */
#include "bench.h"

static int nr_threads;
static long nr_epochs = 50;
static long ops_per_epoch = 20000;
static long nr_slots = 1000;
static size_t min_size = 8, max_size = 1000;

struct table {
	void **slot;
	size_t *size;
};

struct worker {
	int id;
	pthread_t thread;
	uint64_t rng;
	uint64_t checksum;
} __attribute__((aligned(64)));

static struct table *tables;
static struct worker *workers;
static pthread_barrier_t barrier;

static void *fill(size_t size, uint64_t tag)
{
	unsigned char *p = bench_xmalloc(size);

	p[0] = (unsigned char)tag;
	p[size - 1] = (unsigned char)(tag >> 8);
	return p;
}

static void *larson_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&barrier);
	for (long e = 0; e < nr_epochs; e++) {
		struct table *t = &tables[(w->id + e) % nr_threads];

		for (long i = 0; i < ops_per_epoch; i++) {
			long r = (long)(bench_rand(&w->rng) % nr_slots);
			size_t size = bench_rand_range(&w->rng, min_size, max_size);
			unsigned char *old = t->slot[r];

			w->checksum += old[0];
			free(old);
			t->slot[r] = fill(size, w->rng);
			t->size[r] = size;
		}
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: larson [-t THREADS] [-e EPOCHS] [-k OPS] [-c SLOTS] [-a MIN] [-b MAX] [-M]\n"
		"  -t  threads (online cpus)      -e  epochs (50)\n"
		"  -k  replacements per thread and epoch (20000)\n"
		"  -c  slots per table (1000)     -a/-b  size range (8..1000)\n"
		"  -M  also print '@name value' lines\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t rng = 4141, t0, t1, sum = 0;
	double ops, ns_op;
	int opt;

	nr_threads = bench_nproc();
	while ((opt = getopt(argc, argv, "t:e:k:c:a:b:Mh")) != -1) {
		switch (opt) {
		case 't': nr_threads = bench_arg(optarg, "-t"); break;
		case 'e': nr_epochs = bench_arg(optarg, "-e"); break;
		case 'k': ops_per_epoch = bench_arg(optarg, "-k"); break;
		case 'c': nr_slots = bench_arg(optarg, "-c"); break;
		case 'a': min_size = bench_arg(optarg, "-a"); break;
		case 'b': max_size = bench_arg(optarg, "-b"); break;
		case 'M': bench_machine = 1; break;
		default: usage();
		}
	}
	if (nr_threads < 1 || nr_slots < 1 || min_size < 1 || max_size < min_size)
		usage();

	printf("larson: %d threads, %ld epochs x %ld replacements, %ld slots, sizes %zu..%zu\n",
	       nr_threads, nr_epochs, ops_per_epoch, nr_slots, min_size, max_size);
	tables = bench_xmalloc(nr_threads * sizeof(*tables));
	workers = bench_xmalloc(nr_threads * sizeof(*workers));
	for (int i = 0; i < nr_threads; i++) {
		tables[i].slot = bench_xmalloc(nr_slots * sizeof(void *));
		tables[i].size = bench_xmalloc(nr_slots * sizeof(size_t));
		for (long s = 0; s < nr_slots; s++) {
			size_t size = bench_rand_range(&rng, min_size, max_size);

			tables[i].slot[s] = fill(size, s);
			tables[i].size[s] = size;
		}
		workers[i].id = i;
		workers[i].rng = 0x9E3779B97F4A7C15ULL * (i + 1);
		workers[i].checksum = 0;
	}

	pthread_barrier_init(&barrier, NULL, nr_threads + 1);
	for (int i = 0; i < nr_threads; i++)
		bench_thread_create(&workers[i].thread, larson_main, &workers[i]);
	t0 = bench_ns();
	pthread_barrier_wait(&barrier);
	for (long e = 0; e < nr_epochs; e++)
		pthread_barrier_wait(&barrier);
	t1 = bench_ns();
	for (int i = 0; i < nr_threads; i++) {
		pthread_join(workers[i].thread, NULL);
		sum += workers[i].checksum;
	}
	pthread_barrier_destroy(&barrier);

	ops = (double)nr_threads * nr_epochs * ops_per_epoch;
	ns_op = ops ? (double)(t1 - t0) * nr_threads / ops : 0;
	printf("%-12s %12s %12s %10s\n", "benchmark", "ops", "Mops/s", "ns/op");
	printf("%-12s %12.0f %12.2f %10.1f\n", "larson", ops,
	       ops / ((t1 - t0) / 1e3), ns_op);
	printf("(checksum %llu)\n", (unsigned long long)sum);
	bench_metric(ns_op, "larson.ns");
	bench_metric(ops / ((t1 - t0) / 1e3), "larson.mops");

	for (int i = 0; i < nr_threads; i++) {
		for (long s = 0; s < nr_slots; s++)
			free(tables[i].slot[s]);
		free(tables[i].slot);
		free(tables[i].size);
	}
	free(tables);
	free(workers);
	bench_report_end(t1 - t0);
	return 0;
}
