// SPDX-License-Identifier: MIT
/*
 * test_tstats_occupancy: the occupancy and locality figures (occupancy.c)
 * on scripted event sequences with values worked out by hand.
 *
 *  a) slabs and partial slabs: peak, time-weighted mean, free objects per
 *     partial slab, unused object slots, slabs and pages made and
 *     discarded, a contended lock per 1,000 allocations; an object event
 *     of a slab never made in the trace is counted apart;
 *  b) slabs touched per 1,000 allocations: a thread cycling over 5 slabs,
 *     another staying on one (a slab of two pages: an object in its
 *     second page is placed by the cache's order), a partial window left
 *     out;
 *  c) the figures read back from the JSON report; pooled runs keep the
 *     largest peak and sum the integrals; diff of a run with itself finds
 *     no regression, four times the partial slabs is one.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slub_tstats.h"

static unsigned long checks, failures;

#define CHECK(cond, ...)                                                              \
	do {                                                                          \
		checks++;                                                             \
		if (!(cond)) {                                                        \
			failures++;                                                   \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
		}                                                                     \
	} while (0)

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-9 * (fabs((double)(b)) + 1))
/* the JSON report keeps 6 significant digits */
#define NEAR6(a, b) (fabs((double)(a) - (double)(b)) < 1e-5 * (fabs((double)(b)) + 1))

#define VPID 100
#define CACHE 3
#define SLAB_A 0x100000ull
#define SLAB_B 0x200000ull

/* 4 objects of 1 KiB in a 4 KiB slab (order 0) */
static struct slub_cache_info info = { "t-occ", 1024, 1024, 8, 0, 4, 5, 0, 0 };
/* 4 objects of 2 KiB in an 8 KiB slab (order 1) */
static struct slub_cache_info info2 = { "t-occ2", 2048, 2048, 8, 1, 4, 5, 0, 0 };

static struct slub_model_event mk(unsigned type, uint64_t ts, uint32_t vtid)
{
	struct slub_model_event e;

	memset(&e, 0, sizeof(e));
	e.ev.type = type;
	e.ev.cache_id = CACHE;
	e.ev.cpu = 0;
	e.ev.slot = -1;
	e.ts = ts;
	e.vpid = VPID;
	e.vtid = vtid;
	return e;
}

/* Each event as the state model hands it on (applied, in order): the
 * figures are worked out by hand for this order. */
static void feed(struct slub_tstats *st, struct slub_model_event e)
{
	struct slub_model_applied a = { &e, 0, 0 };

	CHECK(slub_tstats_event(st, &a) == 0, "event %u refused", e.ev.type);
}

static void create(struct slub_tstats *st, struct slub_cache_info *ci, uint32_t cache_id)
{
	struct slub_model_event e = mk(SLUB_EV_CACHE_CREATE, 0, 1);

	e.ev.cache_id = cache_id;
	e.ev.info = ci;
	feed(st, e);
}

static void slab_word(struct slub_tstats *st, unsigned type, uint64_t ts, uint64_t slab,
		      uint32_t seq, uint32_t inuse, uint32_t cache_id)
{
	struct slub_model_event e = mk(type, ts, 1);

	e.ev.cache_id = cache_id;
	e.ev.slab = slab;
	e.ev.site = type == SLUB_EV_FREE_REMOTE ? SLUB_SITE_SLAB_FREE : SLUB_SITE_NEW_SLAB;
	e.ev.new.seq = seq;
	e.ev.new.objects = 4;
	e.ev.new.inuse = inuse;
	e.ev.new.freelist = inuse < 4 ? slab : 0;
	e.ev.old = e.ev.new;
	feed(st, e);
}

static void object(struct slub_tstats *st, unsigned type, uint64_t ts, uint32_t vtid,
		   uint64_t addr, uint32_t cache_id)
{
	struct slub_model_event e = mk(type, ts, vtid);

	e.ev.cache_id = cache_id;
	e.ev.object = addr;
	e.ev.size = 1024;
	feed(st, e);
}

static void lock_pair(struct slub_tstats *st, uint64_t ts)
{
	struct slub_model_event e = mk(SLUB_EV_LOCK_ACQUIRE, ts - 10, 1);

	e.ev.lock_id = CACHE * 64;
	e.ev.lock_seq = 1;
	e.ev.contended = 1;
	e.ev.wait_ns = 5;
	feed(st, e);
	e.ev.type = SLUB_EV_LOCK_RELEASE;
	e.ts = ts;
	e.ev.contended = 0;
	e.ev.wait_ns = 0;
	e.ev.hold_ns = 10;
	feed(st, e);
}

/*
 * Over [0, 1000] ns: slab A lives throughout, B from 100 to 400.  A's
 * four objects are allocated at 10..40 (its freelist taken: full), two
 * come back at 200 by a free to the slab (inuse 2: partial, 2 free).  B
 * holds one object from 110 to 390.  Integrals (count x ns):
 *   slabs     1000 + 300                          = 1300  -> mean 1.3, peak 2
 *   partial   A over [200, 1000]                  =  800  -> mean 0.8, peak 1
 *   free on partial slabs 2 x 800                 = 1600  -> 2 a partial slab
 *   slots     4 x 1000 + 4 x 300                  = 5200
 *   allocated A: 10 + 2x10 + 3x10 + 4x160 + 2x800 = 2300, B: 280 -> 2580
 *   unused    (5200 - 2580) / 5200                = 50.3846... %
 */
static struct slub_tstats *run_a(unsigned partial_scale)
{
	struct slub_tstats *st = slub_tstats_new(NULL);

	create(st, &info, CACHE);
	slab_word(st, SLUB_EV_SLAB_NEW, 0, SLAB_A, 1, 4, CACHE);
	for (unsigned i = 0; i < 4; i++)
		object(st, SLUB_EV_ALLOC, 10 + 10 * i, 1, SLAB_A + 1024 * i, CACHE);
	slab_word(st, SLUB_EV_SLAB_NEW, 100, SLAB_B, 1, 4, CACHE);
	object(st, SLUB_EV_ALLOC, 110, 1, SLAB_B, CACHE);
	object(st, SLUB_EV_FREE, 200, 2, SLAB_A, CACHE);
	object(st, SLUB_EV_FREE, 200, 2, SLAB_A + 1024, CACHE);
	slab_word(st, SLUB_EV_FREE_REMOTE, 200, SLAB_A, 2, 2, CACHE);
	/* partial_scale - 1 more partial slabs over A's partial span (diff) */
	for (unsigned k = 1; k < partial_scale; k++)
		slab_word(st, SLUB_EV_SLAB_NEW, 200, SLAB_B + 0x10000 * k, 1, 2, CACHE);
	/* an object of a slab made before the trace: counted apart */
	object(st, SLUB_EV_ALLOC, 300, 1, 0x900000, CACHE);
	object(st, SLUB_EV_FREE, 390, 1, SLAB_B, CACHE);
	struct slub_model_event d = mk(SLUB_EV_SLAB_DISCARD, 400, 1);
	d.ev.slab = SLAB_B;
	d.ev.new.seq = 2;
	d.ev.new.objects = 4;
	feed(st, d);
	lock_pair(st, 1000);
	slub_tstats_finish(st);
	return st;
}

static const struct slub_tstats_figure *fig(const struct slub_tstats_result *r, unsigned rate)
{
	return &r->scope[0].fig[rate];
}

/* a) */
static void test_occupancy(void)
{
	struct slub_tstats *st = run_a(1);
	const struct slub_tstats_cache *v = slub_tstats_cache_find(st, "t-occ");
	struct slub_tstats_result r;

	CHECK(v != NULL, "no view of t-occ");
	if (!v)
		return;
	const struct slub_tstats_occupancy *o = &v->occ;
	CHECK(o->span_ns == 1000, "span %llu", (unsigned long long)o->span_ns);
	CHECK(o->slabs_peak == 2 && o->partial_peak == 1, "peaks %llu %llu",
	      (unsigned long long)o->slabs_peak, (unsigned long long)o->partial_peak);
	CHECK(o->slab_ns == 1300 && o->partial_ns == 800 && o->partial_free_ns == 1600,
	      "integrals %g %g %g", o->slab_ns, o->partial_ns, o->partial_free_ns);
	CHECK(o->capacity_ns == 5200 && o->live_ns == 2580, "slots %g allocated %g", o->capacity_ns,
	      o->live_ns);
	CHECK(o->slabs_new == 2 && o->slabs_freed == 1 && o->pages_new == 2 && o->pages_freed == 1,
	      "made %llu/%llu pages %llu/%llu", (unsigned long long)o->slabs_new,
	      (unsigned long long)o->slabs_freed, (unsigned long long)o->pages_new,
	      (unsigned long long)o->pages_freed);
	CHECK(o->slabs_end == 1 && o->partial_end == 1, "end %llu %llu",
	      (unsigned long long)o->slabs_end, (unsigned long long)o->partial_end);
	CHECK(o->unmapped == 1, "unmapped %llu", (unsigned long long)o->unmapped);

	CHECK(slub_tstats_result_get(st, &r) == 0, "result");
	CHECK(fig(&r, SLUB_RATE_SLABS_PEAK)->value == 2, "slabs_peak %g",
	      fig(&r, SLUB_RATE_SLABS_PEAK)->value);
	CHECK(NEAR(fig(&r, SLUB_RATE_SLABS_MEAN)->value, 1.3), "slabs_mean %g",
	      fig(&r, SLUB_RATE_SLABS_MEAN)->value);
	CHECK(fig(&r, SLUB_RATE_PARTIAL_SLABS_PEAK)->value == 1, "partial peak");
	CHECK(NEAR(fig(&r, SLUB_RATE_PARTIAL_SLABS_MEAN)->value, 0.8), "partial mean %g",
	      fig(&r, SLUB_RATE_PARTIAL_SLABS_MEAN)->value);
	CHECK(NEAR(fig(&r, SLUB_RATE_FREE_OBJS_PER_PARTIAL)->value, 2), "free per partial %g",
	      fig(&r, SLUB_RATE_FREE_OBJS_PER_PARTIAL)->value);
	CHECK(NEAR(fig(&r, SLUB_RATE_SLAB_UNUSED_PCT)->value, 2620.0 / 5200 * 100), "unused %g",
	      fig(&r, SLUB_RATE_SLAB_UNUSED_PCT)->value);
	/* 6 allocations (one unmapped), one contended acquisition, 3 pages */
	CHECK(NEAR(fig(&r, SLUB_RATE_LOCK_WAITS_PER_1K_ALLOCS)->value, 1000.0 / 6), "waits %g",
	      fig(&r, SLUB_RATE_LOCK_WAITS_PER_1K_ALLOCS)->value);
	CHECK(NEAR(fig(&r, SLUB_RATE_PAGE_CHURN_PER_1K_ALLOCS)->value, 3000.0 / 6), "pages %g",
	      fig(&r, SLUB_RATE_PAGE_CHURN_PER_1K_ALLOCS)->value);
	/* no full window of allocations: no denominator */
	CHECK(fig(&r, SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS)->den == 0, "touched den %g",
	      fig(&r, SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS)->den);
	slub_tstats_result_free(&r);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	slub_tstats_print_text(st, f, SLUB_TSTATS_SHOW_SLABINFO, "t-occ");
	fclose(f);
	CHECK(strstr(text, "partial slabs  peak        1  mean        0.8") != NULL,
	      "text: %s", text);
	CHECK(strstr(text, "free objects a partial slab 2.0") != NULL, "text: %s", text);
	CHECK(strstr(text, "object slots unused 50.4%") != NULL, "text: %s", text);
	free(text);
	slub_tstats_free(st);
}

/* b) */
static void test_locality(void)
{
	struct slub_tstats *st = slub_tstats_new(NULL);
	struct slub_tstats_result r;
	uint64_t ts = 1;

	create(st, &info, CACHE);
	create(st, &info2, CACHE + 1);
	for (unsigned k = 0; k < 5; k++)
		slab_word(st, SLUB_EV_SLAB_NEW, ts, SLAB_A + 0x1000 * k, 1, 4, CACHE);
	slab_word(st, SLUB_EV_SLAB_NEW, ts, SLAB_B, 1, 4, CACHE + 1);
	/* thread 2: 1,500 allocations over 5 slabs: one full window of 5 */
	for (unsigned i = 0; i < 1500; i++)
		object(st, SLUB_EV_ALLOC, ++ts, 2, SLAB_A + 0x1000 * (i % 5) + 1024 * (i % 4), CACHE);
	/* thread 3: 2,000 in the second page of one 2-page slab: two windows of 1 */
	for (unsigned i = 0; i < 2000; i++)
		object(st, SLUB_EV_ALLOC, ++ts, 3, SLAB_B + 4096 + 2048 * (i % 2), CACHE + 1);
	slub_tstats_finish(st);
	const struct slub_tstats_cache *v = slub_tstats_cache_find(st, "t-occ");
	const struct slub_tstats_cache *w = slub_tstats_cache_find(st, "t-occ2");
	CHECK(v && v->occ.touched == 5 && v->occ.touched_allocs == 1000, "t-occ %llu / %llu",
	      v ? (unsigned long long)v->occ.touched : 0,
	      v ? (unsigned long long)v->occ.touched_allocs : 0);
	CHECK(w && w->occ.touched == 2 && w->occ.touched_allocs == 2000 && !w->occ.unmapped,
	      "t-occ2 %llu / %llu", w ? (unsigned long long)w->occ.touched : 0,
	      w ? (unsigned long long)w->occ.touched_allocs : 0);
	CHECK(slub_tstats_result_get(st, &r) == 0, "result");
	CHECK(NEAR(fig(&r, SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS)->value, 7000.0 / 3000),
	      "overall touched %g", fig(&r, SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS)->value);
	for (unsigned s = 1; s < r.nr_scopes; s++)
		if (!strcmp(r.scope[s].name, "t-occ"))
			CHECK(r.scope[s].fig[SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS].value == 5,
			      "t-occ touched %g",
			      r.scope[s].fig[SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS].value);
	slub_tstats_result_free(&r);
	slub_tstats_free(st);
}

static int write_report(struct slub_tstats *st, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	slub_tstats_print_json(st, f);
	return fclose(f);
}

/* c) */
static void test_json_pool_diff(void)
{
	char dir[] = "/tmp/tstats-occ.XXXXXX", p1[64], p4[64], err[256];
	struct slub_tstats *one = run_a(1), *four = run_a(4);
	struct slub_tstats_result r1, r4, mem;
	struct slub_tstats_diff_config cfg;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(p1, sizeof(p1), "%s/one.json", dir);
	snprintf(p4, sizeof(p4), "%s/four.json", dir);
	CHECK(write_report(one, p1) == 0 && write_report(four, p4) == 0, "write reports");
	CHECK(slub_tstats_result_load(p1, &r1, err, sizeof(err)) == 0, "load: %s", err);
	CHECK(slub_tstats_result_load(p4, &r4, err, sizeof(err)) == 0, "load: %s", err);
	CHECK(slub_tstats_result_get(one, &mem) == 0, "result");
	for (unsigned i = SLUB_RATE_SLABS_PEAK; i < SLUB_RATE_NR; i++)
		CHECK(NEAR6(r1.scope[0].fig[i].value, mem.scope[0].fig[i].value) &&
		      NEAR6(r1.scope[0].fig[i].den, mem.scope[0].fig[i].den),
		      "%s: read back %g / %g, computed %g / %g", slub_tstats_rate_name(i),
		      r1.scope[0].fig[i].value, r1.scope[0].fig[i].den, mem.scope[0].fig[i].value,
		      mem.scope[0].fig[i].den);
	/* four's partial slabs: A over 800 ns plus 3 more over 800 ns */
	CHECK(NEAR(fig(&r4, SLUB_RATE_PARTIAL_SLABS_MEAN)->value, 3.2), "four: partial mean %g",
	      fig(&r4, SLUB_RATE_PARTIAL_SLABS_MEAN)->value);
	CHECK(fig(&r4, SLUB_RATE_PARTIAL_SLABS_PEAK)->value == 4, "four: partial peak %g",
	      fig(&r4, SLUB_RATE_PARTIAL_SLABS_PEAK)->value);

	FILE *null = fopen("/dev/null", "w");
	slub_tstats_diff_defaults(&cfg);
	/* scripted spans are 1,000 ns: judge them anyway, with small floors */
	CHECK(slub_tstats_diff_set(&cfg, "partial_slabs_mean.min=0", err, sizeof(err)) == 0, "%s",
	      err);
	CHECK(slub_tstats_diff_set(&cfg, "partial_slabs_mean.abs=1", err, sizeof(err)) == 0, "%s",
	      err);
	CHECK(slub_tstats_diff(&r1, &r1, &cfg, null) == 0, "a run against itself regressed");
	const char *why;
	CHECK(slub_tstats_diff_judge(&cfg, SLUB_RATE_PARTIAL_SLABS_MEAN,
				     fig(&r1, SLUB_RATE_PARTIAL_SLABS_MEAN),
				     fig(&r4, SLUB_RATE_PARTIAL_SLABS_MEAN), 1, &why) == 3,
	      "four times the partial slabs not a regression (%s)", why);
	CHECK(slub_tstats_diff(&r1, &r4, &cfg, null) >= 1, "diff found no regression");
	/* the default floors need 10 ms of trace: not judged */
	slub_tstats_diff_defaults(&cfg);
	CHECK(slub_tstats_diff_judge(&cfg, SLUB_RATE_PARTIAL_SLABS_MEAN,
				     fig(&r1, SLUB_RATE_PARTIAL_SLABS_MEAN),
				     fig(&r4, SLUB_RATE_PARTIAL_SLABS_MEAN), 1, &why) == 0,
	      "1 us of trace judged (%s)", why);
	fclose(null);

	/* pooled: the largest peak (and the smallest run's), the integrals
	 * summed */
	CHECK(slub_tstats_result_pool(&r1, &r4, err, sizeof(err)) == 0, "pool: %s", err);
	CHECK(fig(&r1, SLUB_RATE_PARTIAL_SLABS_PEAK)->value == 4 &&
	      fig(&r1, SLUB_RATE_PARTIAL_SLABS_PEAK)->lo == 1 &&
	      fig(&r1, SLUB_RATE_PARTIAL_SLABS_PEAK)->runs == 2, "pooled peak %g, smallest %g",
	      fig(&r1, SLUB_RATE_PARTIAL_SLABS_PEAK)->value,
	      fig(&r1, SLUB_RATE_PARTIAL_SLABS_PEAK)->lo);
	CHECK(NEAR(fig(&r1, SLUB_RATE_PARTIAL_SLABS_MEAN)->value, (800.0 + 3200) / 2000),
	      "pooled mean %g", fig(&r1, SLUB_RATE_PARTIAL_SLABS_MEAN)->value);
	slub_tstats_result_free(&r1);
	slub_tstats_result_free(&r4);
	slub_tstats_result_free(&mem);
	unlink(p1);
	unlink(p4);
	rmdir(dir);
	slub_tstats_free(one);
	slub_tstats_free(four);
}

/* Peaks of several runs a side: a regression only when every run of one
 * side is past every run of the other by the threshold (a doubling and 8
 * slabs for slabs_peak).  The figures of a default-against-default diff of
 * hackbench on a machine other work came to: one run's peak tripled. */
static void test_peak_runs(void)
{
	struct slub_tstats_diff_config cfg;
	const char *why;
	const unsigned R = SLUB_RATE_SLABS_PEAK;
	/* runs 2 and 3: 1,500 and 1,531 slabs */
	const struct slub_tstats_figure before = { .num = 1531, .den = 9000, .value = 1531,
						   .runs = 2, .lo = 1500 };
	/* runs 1 and 4: 3,618 and 1,510 */
	const struct slub_tstats_figure mixed = { .num = 3618, .den = 9000, .value = 3618,
						  .runs = 2, .lo = 1510 };
	/* both runs past 3,062 and 8 more than 1,531 */
	const struct slub_tstats_figure both = { .num = 3618, .den = 9000, .value = 3618,
						 .runs = 2, .lo = 3100 };
	const struct slub_tstats_figure one_b = { .num = 1531, .den = 4500, .value = 1531,
						  .runs = 1, .lo = 1531 };
	const struct slub_tstats_figure one_a = { .num = 3618, .den = 4500, .value = 3618,
						  .runs = 1, .lo = 3618 };

	slub_tstats_diff_defaults(&cfg);
	CHECK(slub_tstats_diff_judge(&cfg, R, &before, &mixed, 1, &why) == 1 &&
	      !strcmp(why, "the runs of the two sides overlap"),
	      "one run's peak tripled, the others alike: judged %d (%s)",
	      slub_tstats_diff_judge(&cfg, R, &before, &mixed, 1, &why), why);
	CHECK(slub_tstats_diff_judge(&cfg, R, &mixed, &before, 1, &why) == 1,
	      "the same the other way: judged %d (%s)",
	      slub_tstats_diff_judge(&cfg, R, &mixed, &before, 1, &why), why);
	CHECK(slub_tstats_diff_judge(&cfg, R, &before, &both, 1, &why) == 3,
	      "every run past the other side's: judged %d (%s)",
	      slub_tstats_diff_judge(&cfg, R, &before, &both, 1, &why), why);
	CHECK(slub_tstats_diff_judge(&cfg, R, &both, &before, 1, &why) == 2,
	      "every run below the other side's: judged %d (%s)",
	      slub_tstats_diff_judge(&cfg, R, &both, &before, 1, &why), why);
	/* one run a side: the two peaks, as before */
	CHECK(slub_tstats_diff_judge(&cfg, R, &one_b, &one_a, 1, &why) == 3,
	      "one run a side: judged %d (%s)",
	      slub_tstats_diff_judge(&cfg, R, &one_b, &one_a, 1, &why), why);
}

int main(void)
{
	test_occupancy();
	test_locality();
	test_json_pool_diff();
	test_peak_runs();
	printf("test_tstats_occupancy: %lu checks, %lu failures\n", checks, failures);
	return failures ? 1 : 0;
}
