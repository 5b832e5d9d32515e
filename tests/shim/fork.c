// SPDX-License-Identifier: MIT
/*
 * fork() from a multi-threaded process.
 *
 * Worker threads allocate and free without pause (small, kmalloc-sized,
 * page-layer sizes) and pass blocks to each other through a shared ring,
 * so at any instant some thread is inside the allocator, maybe holding a
 * list_lock.  The main thread forks again and again.  Each child frees
 * blocks the parent's threads allocated (their cpu slabs now belong to no
 * thread), allocates, starts and joins a thread of its own, and exits.
 *
 * A child that hangs is killed by its own alarm(); the parent counts any
 * child that did not exit with 0 as a failure.
 *
 *   shim-fork [forks] [threads]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RING 256
#define CHILD_TIMEOUT 20

static _Atomic(void *) ring[RING];
static atomic_bool stop;

static size_t pick_size(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	switch (*x % 64) {
	case 0:
	case 1:
	case 2:
	case 3:
		return 8192 + *x % 60000;      /* page layer */
	case 4:
		return (1u << 20) + *x % 4096; /* dedicated mapping */
	default:
		return 1 + *x % 2048;          /* kmalloc caches */
	}
}

/* Every block starts with its size and ends with a pattern derived from it. */
static void *make(size_t n)
{
	unsigned char *p = malloc(n < 16 ? 16 : n);

	if (!p)
		abort();
	memcpy(p, &n, sizeof(n));
	memset(p + sizeof(n), (int)(n & 0xff), (n < 16 ? 16 : n) - sizeof(n));
	return p;
}

static int check_and_free(void *v)
{
	unsigned char *p = v;
	size_t n, i, len;

	if (!p)
		return 0;
	memcpy(&n, p, sizeof(n));
	len = n < 16 ? 16 : n;
	for (i = sizeof(n); i < len; i++)
		if (p[i] != (unsigned char)(n & 0xff))
			return 1;
	free(p);
	return 0;
}

static atomic_int corrupt;

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		void *local[8];
		unsigned i;

		for (i = 0; i < 8; i++)
			local[i] = make(pick_size(&x));
		for (i = 0; i < 8; i += 2)
			corrupt += check_and_free(local[i]);
		for (i = 1; i < 8; i += 2) {
			void *old = atomic_exchange(&ring[x % RING], local[i]);

			corrupt += check_and_free(old);
		}
	}
	return NULL;
}

static void *child_thread(void *arg)
{
	uint64_t x = 77;
	void *keep[64];
	unsigned i;

	(void)arg;
	for (i = 0; i < 64; i++)
		keep[i] = make(pick_size(&x));
	for (i = 0; i < 64; i++)
		if (check_and_free(keep[i]))
			return (void *)1;
	return NULL;
}

static int child(unsigned seed)
{
	uint64_t x = seed + 12345;
	void *mine[256];
	pthread_t t;
	void *ret = (void *)1;
	unsigned i, bad = 0;

	alarm(CHILD_TIMEOUT);
	/* blocks the parent's threads allocated and left in the ring */
	for (i = 0; i < RING; i += 3)
		bad += check_and_free(atomic_exchange(&ring[i], NULL));
	for (i = 0; i < 256; i++)
		mine[i] = make(pick_size(&x));
	if (pthread_create(&t, NULL, child_thread, NULL) != 0 || pthread_join(t, &ret) != 0)
		return 3;
	for (i = 0; i < 256; i++)
		bad += check_and_free(mine[i]);
	if (bad || ret)
		return 4;
	/* The allocator's own view after it adopted the lost threads' slots:
	 * every list and slab consistent, nothing reported. */
	long (*validate_all)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "slub_validate_all");
	unsigned long (*error_count)(void) =
		(unsigned long (*)(void))dlsym(RTLD_DEFAULT, "slub_error_count");
	if (validate_all && validate_all() != 0)
		return 5;
	if (error_count && error_count() != 0)
		return 6;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned forks = argc > 1 ? (unsigned)atoi(argv[1]) : 100;
	unsigned nthreads = argc > 2 ? (unsigned)atoi(argv[2]) : 3;
	pthread_t *t = calloc(nthreads, sizeof(*t));
	unsigned i, failed = 0;

	alarm(600);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)) != 0)
			return 2;
	for (i = 0; i < forks; i++) {
		int status;
		pid_t pid;

		usleep(1000 + (i % 7) * 300);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0)
			exit(child(i));
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			failed++;
			if (WIFSIGNALED(status))
				fprintf(stderr, "fork %u: child killed by signal %d%s\n", i,
					WTERMSIG(status),
					WTERMSIG(status) == SIGALRM ? " (hung)" : "");
			else
				fprintf(stderr, "fork %u: child exited with %d\n", i,
					WEXITSTATUS(status));
		}
	}
	atomic_store(&stop, true);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < RING; i++)
		corrupt += check_and_free(atomic_exchange(&ring[i], NULL));
	free(t);
	if (failed || corrupt) {
		fprintf(stderr, "%u of %u children failed, %d corrupted blocks\n", failed, forks,
			(int)corrupt);
		return 1;
	}
	printf("%u forks with %u threads running: all children exited cleanly\n", forks, nthreads);
	return 0;
}
