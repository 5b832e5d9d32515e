/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the benchmark programs: clocks, a small PRNG, thread
 * pinning and the two output channels.
 *
 * Every program prints a human table on stdout.  With -M it also prints one
 * line per figure, "@name value", which run_bench.py collects; the human
 * lines never start with '@'.
 *
 * The programs call plain malloc()/free() so that any allocator can be put
 * underneath with LD_PRELOAD.  They are built with -fno-builtin-malloc and
 * every object is handed to bench_use() so that the compiler can neither
 * elide an allocation nor fold a malloc/free pair.
 */
#ifndef SLUB_BENCH_H
#define SLUB_BENCH_H

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int bench_machine; /* -M: also print "@name value" lines */

static inline uint64_t bench_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
#endif
}

static inline uint64_t bench_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Make the object's address escape so the allocation cannot be dropped. */
static inline void bench_use(void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/* xorshift64*: deterministic per-thread sequences from a seed. */
static inline uint64_t bench_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline size_t bench_rand_range(uint64_t *state, size_t lo, size_t hi)
{
	return lo + (size_t)(bench_rand(state) % (hi - lo + 1));
}

static inline int bench_nproc(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* Pin the calling thread to cpu (mod the online count); the slab_test
 * threads stand for the kernel's per-cpu test threads. */
static inline void bench_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % bench_nproc(), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static inline void *bench_xmalloc(size_t size)
{
	void *p = malloc(size);

	if (!p) {
		fprintf(stderr, "malloc(%zu) failed: %s\n", size, strerror(errno));
		exit(2);
	}
	return p;
}

static inline long bench_arg(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0) {
		fprintf(stderr, "bad %s: '%s'\n", what, s);
		exit(2);
	}
	return v;
}

__attribute__((format(printf, 2, 3)))
static inline void bench_metric(double value, const char *fmt, ...)
{
	va_list ap;

	if (!bench_machine)
		return;
	putchar('@');
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" %.6g\n", value);
}

/* Peak RSS of this program's own address space.  ru_maxrss is not that:
 * exec keeps the launcher's high-water mark (a Python parent's 13 MB), so
 * for the small benchmarks it would hide the allocator. */
static inline long bench_vmhwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* Wall time and peak RSS, for -M consumers. */
static inline void bench_report_end(uint64_t wall_ns)
{
	struct rusage ru;
	long hwm = bench_vmhwm_kb();

	getrusage(RUSAGE_SELF, &ru);
	bench_metric(wall_ns / 1e9, "wall_s");
	bench_metric((double)ru.ru_maxrss, "maxrss_kb");
	bench_metric((double)ru.ru_minflt, "minflt");
	if (hwm >= 0)
		bench_metric((double)hwm, "vmhwm_kb");
	fflush(stdout);
}

static inline void bench_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int err = pthread_create(t, NULL, fn, arg);

	if (err) {
		fprintf(stderr, "pthread_create: %s\n", strerror(err));
		exit(2);
	}
}

#endif /* SLUB_BENCH_H */
