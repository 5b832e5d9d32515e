// SPDX-License-Identifier: MIT
/*
 * e2e_forker: an ordinary malloc program that forks and creates threads,
 * run under `slubtrace record` (the malloc shim and LTTng-UST preloaded).
 *
 *   e2e_forker fork [children]    threads allocating while the main thread
 *                                 forks children that allocate from threads
 *                                 of their own, then exit
 *   e2e_forker threads [waves]    waves of short-lived threads, each making
 *                                 its first allocations (and so its first
 *                                 events) while other threads run
 *   e2e_forker lazy [children]    threads allocating while the main thread
 *                                 forks children of three kinds in turn: one
 *                                 that execs /bin/true at once, one whose
 *                                 first act is to start a thread that
 *                                 allocates, one that exit()s at once (its
 *                                 destructors run); each child has 60 s
 *   e2e_forker dlclose [children] LIB
 *                                 the main thread loads LIB, a tracepoint
 *                                 provider, allocates, and forks children
 *                                 (threads allocating meanwhile) that
 *                                 unload it first, freeing under
 *                                 LTTng-UST's locks what loading it took,
 *                                 then allocate; each child has 60 s
 *   e2e_forker rename [rounds]    the main thread allocates, renames itself
 *                                 ("renamed-main", PR_SET_NAME) and
 *                                 allocates on: a rename is not an exec
 *
 * Exits 0 when every child and thread finished and saw its own data intact.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int stop;
static int failures;

static void churn(unsigned seed, int iterations)
{
	void *keep[256] = { 0 };

	for (int i = 0; i < iterations; i++) {
		unsigned slot = (unsigned)rand_r(&seed) % 256;
		size_t size = 16 + (size_t)(rand_r(&seed) % 2000);
		char *p;

		if (keep[slot]) {
			if (((unsigned char *)keep[slot])[0] != (unsigned char)slot)
				__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
			free(keep[slot]);
		}
		p = malloc(size);
		if (!p) {
			__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
			keep[slot] = NULL;
			continue;
		}
		memset(p, (int)slot, size);
		keep[slot] = p;
	}
	for (int i = 0; i < 256; i++)
		free(keep[i]);
}

static void *background(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		churn(seed++, 300);
		usleep(5000);
	}
	return NULL;
}

static void *short_lived(void *arg)
{
	churn((unsigned)(uintptr_t)arg, 1000);
	return NULL;
}

static int run_threads(int n, unsigned seed)
{
	pthread_t th[16];

	if (n > 16)
		n = 16;
	for (int i = 0; i < n; i++) {
		errno = pthread_create(&th[i], NULL, short_lived, (void *)(uintptr_t)(seed + i));
		if (errno) {
			perror("pthread_create");
			return -1;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/*
 * Two threads allocating in the parent while its main thread forks
 * `children` children one after the other, each running child(c), which
 * exits; kind(c), when given, is printed with the child's pid for the test
 * to read.  1 when a child failed or was not made.
 */
static int fork_children(int children, unsigned seed, void (*child)(int c), int (*kind)(int c))
{
	pthread_t bg[2];
	int bad = 0;

	for (int i = 0; i < 2; i++)
		if ((errno = pthread_create(&bg[i], NULL, background,
					    (void *)(uintptr_t)(seed + (unsigned)i)))) {
			perror("pthread_create");
			return 1;
		}
	for (int c = 0; c < children; c++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("fork");
			bad++;
			break;
		}
		if (pid == 0) {
			child(c);
			_exit(6);
		}
		if (kind) {
			printf("e2e_forker: child %d kind %d\n", (int)pid, kind(c));
			fflush(stdout);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "e2e_forker: child %d (kind %d) failed (status %#x)\n", c,
				kind ? kind(c) : 0, status);
			bad++;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		pthread_join(bg[i], NULL);
	return bad || failures ? 1 : 0;
}

/* The child: the parent's other threads are gone; the allocator and
 * LTTng-UST must both work here. */
static void plain_child(int c)
{
	churn(100u + (unsigned)c, 1000);
	if (run_threads(3, 1000u * (unsigned)c) < 0)
		_exit(3);
	/* Long enough for the child to register with the session daemon
	 * and record its own events. */
	usleep(300 * 1000);
	churn(200u + (unsigned)c, 1000);
	exit(failures ? 4 : 0);
}

static void *child_thread(void *arg)
{
	churn((unsigned)(uintptr_t)arg, 2000);
	return NULL;
}

static int lazy_kind(int c)
{
	return c % 3;
}

/* The children of a parent whose threads are inside tracepoints at any
 * instant: none may hang (in its registration, or in an exit that waits
 * for the parent's readers), each one's events are its own. */
static void lazy_child(int c)
{
	pthread_t th;

	alarm(60);
	switch (lazy_kind(c)) {
	case 0:
		execl("/bin/true", "true", (char *)NULL);
		_exit(5);
	case 1:
		if ((errno = pthread_create(&th, NULL, child_thread,
					    (void *)(uintptr_t)(300u + (unsigned)c)))) {
			perror("pthread_create");
			_exit(3);
		}
		pthread_join(th, NULL);
		exit(failures ? 4 : 0);
	default:
		exit(0);
	}
}

static void *provider;

static int dlclose_kind(int c)
{
	(void)c;
	return 3;
}

/* A child not registered yet meets its first events inside the loader and
 * LTTng-UST (the provider's destructors): it must neither hang there nor
 * lose its own events after. */
static void dlclose_child(int c)
{
	alarm(60);
	if (dlclose(provider)) {
		fprintf(stderr, "e2e_forker: dlclose: %s\n", dlerror());
		_exit(3);
	}
	churn(500u + (unsigned)c, 3000);
	exit(failures ? 4 : 0);
}

static int do_dlclose(int children, const char *lib)
{
	void (*ping)(int);

	provider = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!provider) {
		fprintf(stderr, "e2e_forker: %s\n", dlerror());
		return 1;
	}
	ping = (void (*)(int))dlsym(provider, "e2e_tp_ping");
	if (!ping) {
		fprintf(stderr, "e2e_forker: %s\n", dlerror());
		return 1;
	}
	ping(1);
	/* the provider's objects no longer in the cpu slabs: their frees in
	 * the child take the slow path */
	churn(77, 20000);
	return fork_children(children, 21, dlclose_child, dlclose_kind);
}

static int do_threads(int waves)
{
	pthread_t bg;

	if ((errno = pthread_create(&bg, NULL, background, (void *)7))) {
		perror("pthread_create");
		return 1;
	}
	for (int w = 0; w < waves; w++)
		if (run_threads(8, 100u * (unsigned)w) < 0)
			return 1;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(bg, NULL);
	return failures ? 1 : 0;
}

/* Enough allocations after the rename that the main thread names itself
 * again (slub:comm every 4096 of its events) several times. */
static int do_rename(int rounds)
{
	churn(1, 1000);
	if (prctl(PR_SET_NAME, "renamed-main", 0, 0, 0)) {
		perror("prctl");
		return 1;
	}
	for (int r = 0; r < rounds; r++)
		churn(2 + (unsigned)r, 3000);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 4;

	if (argc > 1 && !strcmp(argv[1], "fork"))
		return fork_children(n, 1, plain_child, NULL);
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return do_threads(n);
	if (argc > 1 && !strcmp(argv[1], "lazy"))
		return fork_children(n, 11, lazy_child, lazy_kind);
	if (argc > 3 && !strcmp(argv[1], "dlclose"))
		return do_dlclose(n, argv[3]);
	if (argc > 1 && !strcmp(argv[1], "rename"))
		return do_rename(n);
	fprintf(stderr, "usage: e2e_forker fork|lazy|threads|rename [n], e2e_forker dlclose n LIB\n");
	return 2;
}
