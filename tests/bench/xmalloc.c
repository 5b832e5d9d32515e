// SPDX-License-Identifier: MIT
/*
 * xmalloc: producer/consumer, after Lever and Boreham's xmalloc-test.
 *
 * Producer threads allocate objects of random sizes, write them and pass
 * them in batches through a bounded queue; consumer threads check and free
 * them.  Every free is a remote free: in SLUB terms it lands on a slab that
 * is frozen on another cpu, or on a full slab that the consumer then parks
 * on its own cpu partial chain.
 *
 * The figure is nanoseconds of thread time per object (wall x threads /
 * objects), which covers one malloc, one free and 1/BATCH of a queue hop.
 */
#include "bench.h"

#define BATCH 64
#define MAGIC 0x5AB5AB5AB5AB5AB5ULL

struct batch {
	int n;
	void *obj[BATCH];
};

static int nr_producers = 1, nr_consumers = 1;
static long nr_objects = 2000000;
static size_t min_size = 8, max_size = 256;
static long queue_cap = 64;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct batch **ring;
	long head, count;
	int producers_left;
} q = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.not_empty = PTHREAD_COND_INITIALIZER,
	.not_full = PTHREAD_COND_INITIALIZER,
};

static uint64_t freed_total, bad_total;

static void q_push(struct batch *b)
{
	pthread_mutex_lock(&q.lock);
	while (q.count == queue_cap)
		pthread_cond_wait(&q.not_full, &q.lock);
	q.ring[(q.head + q.count) % queue_cap] = b;
	q.count++;
	pthread_cond_signal(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
}

/* NULL when every producer is done and the queue is drained. */
static struct batch *q_pop(void)
{
	struct batch *b = NULL;

	pthread_mutex_lock(&q.lock);
	while (q.count == 0 && q.producers_left > 0)
		pthread_cond_wait(&q.not_empty, &q.lock);
	if (q.count) {
		b = q.ring[q.head];
		q.head = (q.head + 1) % queue_cap;
		q.count--;
		pthread_cond_signal(&q.not_full);
	}
	pthread_mutex_unlock(&q.lock);
	return b;
}

static void *producer(void *arg)
{
	long id = (long)arg, n = nr_objects / nr_producers;
	uint64_t rng = 0xC0FFEE + id * 7919;
	struct batch *b = NULL;

	if (id == nr_producers - 1)
		n = nr_objects - n * (nr_producers - 1);
	for (long i = 0; i < n; i++) {
		size_t size = bench_rand_range(&rng, min_size, max_size);
		uint64_t *p;

		if (!b) {
			b = bench_xmalloc(sizeof(*b));
			b->n = 0;
		}
		p = bench_xmalloc(size < 8 ? 8 : size);
		p[0] = MAGIC;
		b->obj[b->n++] = p;
		if (b->n == BATCH) {
			q_push(b);
			b = NULL;
		}
	}
	if (b)
		q_push(b);

	pthread_mutex_lock(&q.lock);
	if (--q.producers_left == 0)
		pthread_cond_broadcast(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
	return NULL;
}

static void *consumer(void *arg)
{
	uint64_t freed = 0, bad = 0;
	struct batch *b;

	(void)arg;
	while ((b = q_pop())) {
		for (int i = 0; i < b->n; i++) {
			uint64_t *p = b->obj[i];

			bad += p[0] != MAGIC;
			free(p);
		}
		freed += b->n;
		free(b);
	}
	__atomic_add_fetch(&freed_total, freed, __ATOMIC_RELAXED);
	__atomic_add_fetch(&bad_total, bad, __ATOMIC_RELAXED);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: xmalloc [-p PRODUCERS] [-c CONSUMERS] [-n OBJECTS] [-a MIN] [-b MAX] [-q BATCHES] [-M]\n"
		"  -p/-c  threads on each side (1/1)   -n  objects in all (2000000)\n"
		"  -a/-b  size range (8..256)          -q  queue capacity in batches of %d (64)\n"
		"  -M     also print '@name value' lines\n", BATCH);
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t *th;
	uint64_t t0, t1;
	double ns_obj;
	int opt, nr;

	while ((opt = getopt(argc, argv, "p:c:n:a:b:q:Mh")) != -1) {
		switch (opt) {
		case 'p': nr_producers = bench_arg(optarg, "-p"); break;
		case 'c': nr_consumers = bench_arg(optarg, "-c"); break;
		case 'n': nr_objects = bench_arg(optarg, "-n"); break;
		case 'a': min_size = bench_arg(optarg, "-a"); break;
		case 'b': max_size = bench_arg(optarg, "-b"); break;
		case 'q': queue_cap = bench_arg(optarg, "-q"); break;
		case 'M': bench_machine = 1; break;
		default: usage();
		}
	}
	if (nr_producers < 1 || nr_consumers < 1 || queue_cap < 1 ||
	    min_size < 1 || max_size < min_size)
		usage();

	printf("xmalloc: %d producers, %d consumers, %ld objects, sizes %zu..%zu\n",
	       nr_producers, nr_consumers, nr_objects, min_size, max_size);
	nr = nr_producers + nr_consumers;
	q.ring = bench_xmalloc(queue_cap * sizeof(*q.ring));
	q.producers_left = nr_producers;
	th = bench_xmalloc(nr * sizeof(*th));

	t0 = bench_ns();
	for (long i = 0; i < nr_consumers; i++)
		bench_thread_create(&th[i], consumer, NULL);
	for (long i = 0; i < nr_producers; i++)
		bench_thread_create(&th[nr_consumers + i], producer, (void *)i);
	for (int i = 0; i < nr; i++)
		pthread_join(th[i], NULL);
	t1 = bench_ns();

	if (freed_total != (uint64_t)nr_objects || bad_total) {
		fprintf(stderr, "xmalloc: freed %llu of %ld objects, %llu corrupt\n",
			(unsigned long long)freed_total, nr_objects,
			(unsigned long long)bad_total);
		return 1;
	}
	ns_obj = nr_objects ? (double)(t1 - t0) * nr / nr_objects : 0;
	printf("%-12s %12s %12s %10s\n", "benchmark", "objects", "Mobj/s", "ns/obj");
	printf("%-12s %12ld %12.2f %10.1f\n", "xmalloc", nr_objects,
	       nr_objects / ((t1 - t0) / 1e3), ns_obj);
	bench_metric(ns_obj, "xmalloc.ns");
	bench_metric(nr_objects / ((t1 - t0) / 1e3), "xmalloc.mops");
	free(th);
	free(q.ring);
	bench_report_end(t1 - t0);
	return 0;
}
