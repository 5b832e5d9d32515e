/* SPDX-License-Identifier: MIT */
/*
 * The page layer's purge delay (SLUBTRACE_PURGE_DELAY_MS): 12.5 MiB of
 * 64 KiB page runs are freed, past the 8 MiB threshold.
 *   test_purge keep   (delay 1 hour): every freed page is still resident,
 *                     and allocating the same again reuses them (fewer
 *                     than half of its pages fault; with delay 0 nearly
 *                     all do);
 *   test_purge now    (delay 0): the freed pages are given back at once
 *                     (not resident);
 *   test_purge hard   (delay 1 hour): 160 MiB freed in one wave, past the
 *                     128 MiB hard limit: the excess goes back at once,
 *                     down to half the limit, so between 64 and 128 MiB
 *                     stay resident (not nothing) and the next wave reuses
 *                     them.
 * Residency is read with mincore(2) on the freed runs, which stay mapped
 * (segments are never unmapped).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <slub/slub.h>

#define RUNS 200
#define RUN (64u << 10)
#define HARD_RUNS 2560			/* 160 MiB of runs */
#define HARD_PAGES 32768		/* the page layer's hard limit, 128 MiB */

static unsigned long resident_n(void **v, int n)
{
	unsigned long pages = 0;
	unsigned char vec[RUN / 4096];

	for (int i = 0; i < n; i++) {
		if (mincore(v[i], RUN, vec)) {
			perror("mincore");
			exit(1);
		}
		for (unsigned k = 0; k < sizeof(vec); k++)
			pages += vec[k] & 1;
	}
	return pages;
}

static unsigned long resident(void **v)
{
	return resident_n(v, RUNS);
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static int hard(void)
{
	static void *v[HARD_RUNS];
	unsigned long total = HARD_RUNS * (RUN / 4096), res;
	long f0, f;

	for (int i = 0; i < HARD_RUNS; i++) {
		v[i] = slub_malloc(RUN);
		memset(v[i], 1, RUN);
	}
	for (int i = 0; i < HARD_RUNS; i++)
		slub_free(v[i]);
	res = resident_n(v, HARD_RUNS);
	printf("hard: %lu of %lu freed pages resident\n", res, total);
	if (res < HARD_PAGES / 2 || res > HARD_PAGES) {
		printf("FAIL: want %u to %u resident\n", HARD_PAGES / 2, HARD_PAGES);
		return 1;
	}
	f0 = minflt();
	for (int i = 0; i < HARD_RUNS; i++) {
		v[i] = slub_malloc(RUN);
		memset(v[i], 2, RUN);
	}
	f = minflt() - f0;
	printf("hard: the second wave faulted %ld times\n", f);
	if (f > (long)(total - HARD_PAGES / 2)) {
		printf("FAIL: the second wave did not reuse the pages kept\n");
		return 1;
	}
	for (int i = 0; i < HARD_RUNS; i++)
		slub_free(v[i]);
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	int keep = argc > 1 && !strcmp(argv[1], "keep");
	void *v[RUNS], *w[RUNS];
	unsigned long total = RUNS * (RUN / 4096), res;
	long f0;

	if (argc > 1 && !strcmp(argv[1], "hard"))
		return hard();
	for (int i = 0; i < RUNS; i++) {
		v[i] = slub_malloc(RUN);
		memset(v[i], 1, RUN);
	}
	for (int i = 0; i < RUNS; i++)
		slub_free(v[i]);
	res = resident(v);
	printf("%s: %lu of %lu freed pages resident\n", keep ? "keep" : "now", res, total);
	if (keep ? res != total : res > total - 2048) {
		printf("FAIL: %s\n", keep ? "pages given back before the delay" :
		       "pages past the threshold kept with delay 0");
		return 1;
	}
	{
		f0 = minflt();
		for (int i = 0; i < RUNS; i++) {
			w[i] = slub_malloc(RUN);
			memset(w[i], 2, RUN);
		}
		printf("%s: the second pass faulted %ld times\n", keep ? "keep" : "now", minflt() - f0);
		/* the pages kept are reused; the faults left are the untouched
		 * pages of the newest segment, which the search visits first */
		if (keep && minflt() - f0 > (long)total / 2) {
			printf("FAIL: the second pass faulted its pages in again\n");
			return 1;
		}
		for (int i = 0; i < RUNS; i++)
			slub_free(w[i]);
	}
	printf("ok\n");
	return 0;
}
