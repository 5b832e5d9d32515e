// SPDX-License-Identifier: MIT
/*
 * Thread churn: many short-lived threads, each allocating, freeing its own
 * blocks and blocks left by threads that have already exited, and leaving
 * some for threads not yet born.  Thread exit must flush the thread's cpu
 * slabs and partial chains, so memory stays flat: the resident set after
 * all threads is compared with the one after the first 100.
 *
 *   shim-churn [threads] [batch] [slack MiB]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAILBOX 256
#define PER_THREAD 48

static _Atomic(void *) mailbox[MAILBOX];
static atomic_int corrupt;

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, res = 0;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A block holds its size, then a tag byte repeated to its end. */
static void *make(size_t n, unsigned char tag)
{
	unsigned char *p = malloc(n);

	if (!p)
		abort();
	memcpy(p, &n, sizeof(n));
	memset(p + sizeof(n), tag, n - sizeof(n));
	return p;
}

static void check_free(void *v)
{
	unsigned char *p = v;
	size_t n, i;

	memcpy(&n, p, sizeof(n));
	for (i = sizeof(n) + 1; i < n; i++)
		if (p[i] != p[sizeof(n)]) {
			corrupt++;
			break;
		}
	free(p);
}

static size_t size_of(uint64_t v)
{
	/* mostly kmalloc sizes across many caches, now and then a page run */
	return (v % 29) ? 16 + v % 3000 : 20000 + v % 30000;
}

static void *thread_main(void *arg)
{
	uint64_t id = (uintptr_t)arg, x = id * 0x9e3779b97f4a7c15ull | 1;
	void *own[PER_THREAD];
	unsigned i;

	for (i = 0; i < PER_THREAD; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		own[i] = make(size_of(x), (unsigned char)(x >> 32));
	}
	/* cross-thread frees: take what an earlier thread left, leave one */
	for (i = 0; i < PER_THREAD; i += 4) {
		unsigned slot = (unsigned)((x >> 7) + i * 131) % MAILBOX;
		void *old = atomic_exchange(&mailbox[slot], own[i]);

		if (old)
			check_free(old);
		own[i] = NULL;
	}
	for (i = 0; i < PER_THREAD; i++)
		if (own[i])
			check_free(own[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned total = argc > 1 ? (unsigned)atoi(argv[1]) : 10000;
	unsigned batch = argc > 2 ? (unsigned)atoi(argv[2]) : 50;
	long slack_kib = (argc > 3 ? atol(argv[3]) : 16) * 1024;
	pthread_t *t = calloc(batch, sizeof(*t));
	long rss100 = -1, rss_end, rss_max = 0;
	unsigned done = 0, i, n;

	while (done < total) {
		n = total - done < batch ? total - done : batch;
		for (i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, thread_main,
					   (void *)(uintptr_t)(done + i + 1)) != 0) {
				perror("pthread_create");
				return 2;
			}
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		done += n;
		if (rss100 < 0 && done >= 100)
			rss100 = rss_kib();
		if (rss_kib() > rss_max)
			rss_max = rss_kib();
	}
	rss_end = rss_kib();
	for (i = 0; i < MAILBOX; i++) {
		void *p = atomic_exchange(&mailbox[i], NULL);

		if (p)
			check_free(p);
	}
	free(t);
	printf("threads %u: rss after 100 threads %ld KiB, at the end %ld KiB, peak %ld KiB\n",
	       total, rss100, rss_end, rss_max);
	if (corrupt) {
		fprintf(stderr, "%d corrupted blocks\n", (int)corrupt);
		return 1;
	}
	if (rss100 < 0 || rss_end > rss100 + slack_kib) {
		fprintf(stderr, "resident set grew by %ld KiB (allowed %ld KiB)\n",
			rss_end - rss100, slack_kib);
		return 1;
	}
	return 0;
}
