// SPDX-License-Identifier: MIT
/*
 * shim-stuck: a thread leaves malloc by siglongjmp() from a signal handler
 * that interrupted it.  The thread stays marked as inside the allocator
 * and is served by the fallback arena from then on; the shim must say so,
 * once, and say so again (once) when the arena runs out.
 *
 * To interrupt malloc at a known point the signal is raised from the
 * observer, which runs inside the allocator (the alloc event of the fast
 * path).  The shim's notes go to stderr, which is redirected to a file
 * and read back.  Run under LD_PRELOAD=libslub-malloc.so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slub/slub.h>

static sigjmp_buf jump;
static volatile sig_atomic_t armed;
static int failures;

#define CHECK(c, ...)                                                   \
	do {                                                            \
		if (!(c)) {                                             \
			dprintf(out, "FAIL line %d: %s: ", __LINE__, #c); \
			dprintf(out, __VA_ARGS__);                      \
			dprintf(out, "\n");                             \
			failures++;                                     \
		}                                                       \
	} while (0)

static void on_signal(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

static void observer(const struct slub_event *ev, void *arg)
{
	(void)arg;
	if (armed && ev->type == SLUB_EV_ALLOC) {
		armed = 0;
		raise(SIGUSR1); /* "interrupts" this malloc */
	}
}

static unsigned count_lines(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

int main(void)
{
	void (*set)(slub_observer_fn, void *, uint64_t) =
		(void (*)(slub_observer_fn, void *, uint64_t))dlsym(RTLD_DEFAULT, "slub_set_observer");
	char path[] = "/tmp/shim-stuck.XXXXXX", text[8192];
	int out = dup(2), log = mkstemp(path);
	unsigned i, ok = 0, nulls = 0;

	if (!set || log < 0 || out < 0) {
		dprintf(out, "shim-stuck: run me under LD_PRELOAD=libslub-malloc.so\n");
		return 2;
	}
	unlink(path);
	free(malloc(64)); /* the allocator is up */
	dup2(log, 2);
	signal(SIGUSR1, on_signal);
	set(observer, NULL, 1ull << SLUB_EV_ALLOC);
	armed = 1;
	if (sigsetjmp(jump, 1) == 0) {
		void *p = malloc(64);

		CHECK(0, "malloc returned %p: the signal did not interrupt it", p);
	}
	set(NULL, NULL, 0);

	/* below the threshold: nested use, no note */
	for (i = 0; i < 4000; i++)
		free(malloc(100));
	CHECK(lseek(log, 0, SEEK_END) == 0, "a note before the threshold");
	/* past it: one note, however many more */
	for (i = 0; i < 20000; i++) {
		void *p = malloc(100);

		ok += p && malloc_usable_size(p) >= 100;
		free(p);
	}
	CHECK(ok == 20000, "%u of 20000 arena allocations usable", ok);
	/* the arena runs out: NULL with ENOMEM, one note */
	for (i = 0; i < 200; i++) {
		errno = 0;
		if (!malloc(1u << 20)) {
			CHECK(errno == ENOMEM, "errno %d", errno);
			nulls++;
		}
	}
	CHECK(nulls > 100, "only %u of 200 1 MiB allocations failed: arena bigger than 64 MiB?",
	      nulls);

	ssize_t n = pread(log, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = 0;
	CHECK(count_lines(text, "slubtrace: note: ") == 2, "want two notes:\n%s", text);
	CHECK(count_lines(text, "without leaving the allocator") == 1, "stuck note:\n%s", text);
	CHECK(count_lines(text, "arena (64 MiB) is exhausted") == 1, "exhausted note:\n%s", text);
	dprintf(out, "%s", text);
	dprintf(out, "shim-stuck: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
