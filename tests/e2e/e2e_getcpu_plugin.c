/* SPDX-License-Identifier: MIT */
/*
 * An LTTng-UST getcpu plugin (LTTNG_UST_GETCPU_PLUGIN) that allocates.
 *
 * LTTng-UST calls the getcpu override inside every probe, to pick the ring
 * buffer.  This one mallocs a per-thread buffer on each thread's first call
 * and frees it on the thread's 64th, the way LTTng-UST's perf contexts
 * allocate their per-thread data inside the probe on a thread's first
 * event.  Probes fired by the allocator run under its list_lock, so these
 * are mallocs from inside the allocator: the shim must serve them from its
 * fallback arena.  At exit the plugin writes what it saw to the file named
 * by E2E_PLUGIN_COUNT: "<first-call mallocs> <of them not slubtrace objects>".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slub/slub.h>

int lttng_ust_getcpu_override(int (*getcpu)(void));
void lttng_ust_getcpu_plugin_init(void);

static __thread void *thread_blob;
static __thread unsigned thread_calls;
static unsigned long mallocs, outside_slubtrace;
static int (*lookup)(const void *, struct slub_ptr_info *);

static int plugin_getcpu(void)
{
	if (++thread_calls == 1) {
		thread_blob = malloc(96);
		if (thread_blob) {
			struct slub_ptr_info info;
			__atomic_fetch_add(&mallocs, 1, __ATOMIC_RELAXED);
			/* Nested inside the allocator: the shim's arena, which
			 * the page layer does not know. */
			if (lookup && !lookup(thread_blob, &info))
				__atomic_fetch_add(&outside_slubtrace, 1, __ATOMIC_RELAXED);
			memset(thread_blob, 0x5a, 96);
		}
	} else if (thread_calls == 64) {
		free(thread_blob);
		thread_blob = NULL;
	}
	int cpu = sched_getcpu();
	return cpu < 0 ? 0 : cpu;
}

void lttng_ust_getcpu_plugin_init(void)
{
	lookup = (int (*)(const void *, struct slub_ptr_info *))dlsym(RTLD_DEFAULT,
								       "slub_ptr_lookup");
	if (lttng_ust_getcpu_override(plugin_getcpu)) {
		fprintf(stderr, "e2e_getcpu_plugin: getcpu override refused\n");
		exit(1);
	}
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("E2E_PLUGIN_COUNT");
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%lu %lu\n", mallocs, outside_slubtrace);
	fclose(f);
}
