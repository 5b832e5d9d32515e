/* SPDX-License-Identifier: MIT */
/*
 * slub-workload: the bundled multi-threaded workload.
 *
 * hackbench-style groups: each group has senders and receivers joined by
 * pipes; a sender mallocs a message (sizes spread over the kmalloc classes),
 * stamps it and writes the pointer into a pipe; a receiver reads it, checks
 * the stamp and frees it: every free is a cross-thread free.  Rounds create
 * and join fresh threads (thread churn), so cpu slots are flushed and
 * recycled.  It uses plain malloc/free, so any allocator can be preloaded.
 *
 *   slub-workload [-g groups] [-t threads-per-side] [-m messages] [-r rounds]
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct msg {
	uint64_t stamp;
	uint32_t size;
	uint32_t sender;
	unsigned char payload[];
};

struct group {
	int pipe[2];
	int senders, messages;
	unsigned long received, bad;
};

struct sender_arg {
	struct group *g;
	uint32_t id;
	uint64_t rng;
};

static const size_t sizes[] = { 24, 40, 64, 96, 128, 200, 256, 500, 1024, 1800, 4000, 7000 };

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *sender(void *arg)
{
	struct sender_arg *a = arg;
	/* A short-lived private working set: local alloc/free pairs. */
	void *scratch[32] = { 0 };

	for (int i = 0; i < a->g->messages; i++) {
		uint64_t r = next_rand(&a->rng);
		size_t size = sizes[r % (sizeof(sizes) / sizeof(sizes[0]))];
		struct msg *m = malloc(size);
		if (!m) {
			perror("malloc");
			exit(1);
		}
		m->size = (uint32_t)size;
		m->sender = a->id;
		m->stamp = r;
		memset(m->payload, (int)(r & 0xff), size - sizeof(*m));
		if (write(a->g->pipe[1], &m, sizeof(m)) != sizeof(m)) {
			perror("write");
			exit(1);
		}
		unsigned k = (unsigned)(r >> 8) % 32;
		free(scratch[k]);
		scratch[k] = malloc(16 + (r >> 16) % 300);
	}
	for (int k = 0; k < 32; k++)
		free(scratch[k]);
	return NULL;
}

static void *receiver(void *arg)
{
	struct group *g = arg;
	struct msg *m;
	unsigned long got = 0, bad = 0;

	for (;;) {
		ssize_t n = read(g->pipe[0], &m, sizeof(m));
		if (n == 0)
			break;
		if (n != sizeof(m)) {
			if (n < 0 && errno == EINTR)
				continue;
			perror("read");
			exit(1);
		}
		unsigned char want = (unsigned char)(m->stamp & 0xff);
		for (size_t i = 0; i < m->size - sizeof(*m); i++)
			if (m->payload[i] != want) {
				bad++;
				break;
			}
		free(m);
		got++;
	}
	__atomic_fetch_add(&g->received, got, __ATOMIC_RELAXED);
	__atomic_fetch_add(&g->bad, bad, __ATOMIC_RELAXED);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: slub-workload [-g groups] [-t threads] [-m messages] [-r rounds]\n"
		   "  -g N  groups of senders and receivers joined by a pipe (default 4)\n"
		   "  -t N  senders and receivers per group, each (default 4)\n"
		   "  -m N  messages per sender per round (default 2000)\n"
		   "  -r N  rounds; each round starts fresh threads (default 3)\n");
}

int main(int argc, char **argv)
{
	int groups = 4, threads = 4, messages = 2000, rounds = 3, opt;

	while ((opt = getopt(argc, argv, "g:t:m:r:h")) != -1) {
		switch (opt) {
		case 'g': groups = atoi(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'm': messages = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (groups < 1 || threads < 1 || messages < 1 || rounds < 1) {
		usage(stderr);
		return 2;
	}

	unsigned long total = 0, bad = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int round = 0; round < rounds; round++) {
		struct group *g = calloc((size_t)groups, sizeof(*g));
		pthread_t *tids = calloc((size_t)groups * threads * 2, sizeof(*tids));
		struct sender_arg *args = calloc((size_t)groups * threads, sizeof(*args));
		if (!g || !tids || !args) {
			perror("calloc");
			return 1;
		}
		int nt = 0;
		for (int i = 0; i < groups; i++) {
			if (pipe(g[i].pipe)) {
				perror("pipe");
				return 1;
			}
			g[i].senders = threads;
			g[i].messages = messages;
			for (int j = 0; j < threads; j++)
				pthread_create(&tids[nt++], NULL, receiver, &g[i]);
		}
		int receivers = nt;
		for (int i = 0; i < groups; i++)
			for (int j = 0; j < threads; j++) {
				struct sender_arg *a = &args[i * threads + j];
				a->g = &g[i];
				a->id = (uint32_t)(i * threads + j);
				a->rng = 0x9e3779b97f4a7c15ull * (uint64_t)(round * 1000 + a->id + 1);
				pthread_create(&tids[nt++], NULL, sender, a);
			}
		for (int k = receivers; k < nt; k++)
			pthread_join(tids[k], NULL);
		for (int i = 0; i < groups; i++)
			close(g[i].pipe[1]);
		for (int k = 0; k < receivers; k++)
			pthread_join(tids[k], NULL);
		for (int i = 0; i < groups; i++) {
			close(g[i].pipe[0]);
			total += g[i].received;
			bad += g[i].bad;
		}
		free(args);
		free(tids);
		free(g);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	unsigned long expected = (unsigned long)groups * threads * messages * rounds;
	printf("slub-workload: %d rounds x %d groups x %d+%d threads: %lu messages passed, "
	       "%lu damaged, %.3f s\n",
	       rounds, groups, threads, threads, total, bad, secs);
	if (total != expected || bad) {
		fprintf(stderr, "slub-workload: expected %lu intact messages\n", expected);
		return 1;
	}
	return 0;
}
