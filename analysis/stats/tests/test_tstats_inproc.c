// SPDX-License-Identifier: MIT
/*
 * test_tstats_inproc: the trace statistics fed by the allocator itself.
 *
 * An observer stamps every event (object events included) with a
 * monotonic time, the pid and the thread id, and copies it into a
 * preallocated buffer; it never calls the allocator.  A workload of
 * threads passing objects to each other (remote frees, cpu partial
 * chains, list_lock traffic) runs once per phase; then the buffer is fed
 * to the statistics and
 *  a) every stat item rebuilt from events equals slub_cache_stats() of
 *     the same run, and so do the per-site redos, lock wait and hold sums
 *     and histograms, and the p99 and maximum of lock waits and holds fall
 *     in the allocator's histogram buckets of that rank and of its top;
 *  b) with the race-window injection, failed CAS appear, each attributed
 *     to a winner, and storms name the colliding threads and the site;
 *  c) each 2012 variant against the default moves its figure the way the
 *     2012 threads measured: keep-oldpage fails the cpu chain CAS about
 *     once per drain, perobj-deactivate makes more than one slab-word
 *     update per deactivation; old-unfreeze-partials and free-keep-lock
 *     are printed (their effect is a matter of timing, judged on pooled
 *     recordings by e2e_2012.sh), and no phase but free-keep-lock ever
 *     retries a __slab_free redo under the list_lock it kept or frees into
 *     a frozen slab under it;
 *  d) the sheaves generation (caches made with SLUB_F_SHEAVES), with more
 *     threads than cores and the objects freed by another thread, often of
 *     another node: the items of a) that it counts and Linux 7.0's sheaf
 *     and barn items (slub_cache_sheaf_stats()) rebuilt from its events
 *     equal the allocator's, sheaf_alloc and sheaf_free included (their
 *     events are of wire format 8), and alloc_node_mismatch: one allocation
 *     in 16 asks for a node, the slot's or another (the other-node flag of
 *     sheaf_refill, format 8).  See doc/analysis.md.
 *
 *   test_tstats_inproc [-j JSON_DIR] [-t threads] [-o objects per thread]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <slub/slub.h>

#include "slub_tstats.h"
#include "testutil.h"

#define EVCAP (2ul << 20)
#define NCACHES 3

static struct slub_model_event *evbuf;
static unsigned long evlen;
static uint32_t self_pid;

static void observe(const struct slub_event *ev, void *arg)
{
	unsigned long i = __atomic_fetch_add(&evlen, 1, __ATOMIC_RELAXED);
	struct timespec ts;

	(void)arg;
	if (i >= EVCAP)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	struct slub_model_event *e = &evbuf[i];
	e->ev = *ev;
	e->ts = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	e->vpid = self_pid;
	e->vtid = ev->tid;
	e->old_valid = 1;
}

/* ---- the workload, hackbench-like: each thread allocates messages in
 * batches and hands them to the next thread, which frees them (remote
 * frees into slabs that went full: cpu partial chains and their drains);
 * a quarter is freed locally (fast path). ---- */

#define BOX 4096
#define BATCH 96

struct mailbox {
	pthread_mutex_t lock;
	void *p[BOX];
	int cache[BOX];
	int n;
};

static struct slub_cache *caches[NCACHES];
static struct mailbox *boxes;
static long opt_threads = 4, opt_ops = 40000;
static const char *opt_json_dir;
/* d): one allocation in 16 asks for a node (of node_allocs), the slot's or
 * another (alloc_node_mismatch) */
static int node_allocs;

struct worker {
	pthread_t th;
	int id;
	uint64_t rng;
};

static void drain_box(struct mailbox *in)
{
	pthread_mutex_lock(&in->lock);
	while (in->n > 0) {
		in->n--;
		slub_cache_free(caches[in->cache[in->n]], in->p[in->n]);
	}
	pthread_mutex_unlock(&in->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	void *batch[BATCH];
	struct mailbox *out = &boxes[(w->id + 1) % opt_threads], *in = &boxes[w->id];

	for (long done = 0; done < opt_ops; done += BATCH) {
		int c = test_rand(&w->rng) % NCACHES;
		int n = 0;
		for (int i = 0; i < BATCH; i++) {
			void *p = node_allocs && i % 16 == 0 ?
				slub_cache_alloc_node(caches[c],
						      (int)(test_rand(&w->rng) % (unsigned)node_allocs)) :
				slub_cache_alloc(caches[c]);
			if (CHECK(p != NULL, "alloc: errno %d", errno))
				batch[n++] = p;
		}
		int local = n / 4;
		for (int i = 0; i < local; i++)
			slub_cache_free(caches[c], batch[i]);
		pthread_mutex_lock(&out->lock);
		for (int i = local; i < n; i++) {
			if (out->n < BOX) {
				out->p[out->n] = batch[i];
				out->cache[out->n++] = c;
			} else {
				batch[local++] = batch[i];
			}
		}
		pthread_mutex_unlock(&out->lock);
		for (int i = n / 4; i < local; i++)
			slub_cache_free(caches[c], batch[i]);
		drain_box(in);
	}
	return NULL;
}

struct phase_out {
	struct slub_tstats_result rates;
	struct slub_tstats_totals tot;
	unsigned storms_with_winners;
	unsigned long events;
};

/* The allocator's lock histogram bucket of a time: < 2^(i+6) ns, the last open. */
static unsigned log2_bucket(uint64_t ns)
{
	unsigned b = 0;

	for (ns >>= 6; ns && b < SLUB_TS_HIST_BUCKETS - 1; ns >>= 1)
		b++;
	return b;
}

static void compare(const char *phase, const char *name, const struct slub_tstats_cache *v,
		    const struct slub_stats *st)
{
	if (!CHECK(v != NULL, "%s: cache %s not rebuilt", phase, name))
		return;
#if SLUB_STATS
	const unsigned nr_alloc_items = SLUB_NR_STAT_ITEMS;

	for (unsigned i = 0; i < SLUB_TS_NR_ITEMS; i++) {
		uint64_t want;
		if (!(v->known & (1ull << i)))
			continue;
		if (i < nr_alloc_items) {
			want = st->item[i];
		} else {
			/* An allocator from before cpu_partial_cmpxchg_fail had its
			 * own item counted the chain CAS failures as
			 * cmpxchg_double_cpu_fail. */
			want = st->item[SLUB_TS_CMPXCHG_DOUBLE_CPU_FAIL];
		}
		if (i == SLUB_TS_CMPXCHG_DOUBLE_CPU_FAIL && nr_alloc_items <= SLUB_TS_CPU_PARTIAL_CMPXCHG_FAIL)
			continue;
		CHECK(v->item[i] == want, "%s: %s: %s rebuilt %llu, allocator %llu", phase,
		      name, slub_tstat_item_name(i), (unsigned long long)v->item[i],
		      (unsigned long long)want);
	}
	for (unsigned s = 0; s < SLUB_SITE_NR; s++)
		CHECK(v->fail_site[s] == st->cmpxchg_fail_site[s], "%s: %s: redos at site %u: %llu vs %llu",
		      phase, name, s, (unsigned long long)v->fail_site[s],
		      (unsigned long long)st->cmpxchg_fail_site[s]);
	CHECK(v->lock_wait_ns == st->lock_wait_ns && v->lock_hold_ns == st->lock_hold_ns,
	      "%s: %s: lock wait %llu/%llu hold %llu/%llu", phase, name,
	      (unsigned long long)v->lock_wait_ns, (unsigned long long)st->lock_wait_ns,
	      (unsigned long long)v->lock_hold_ns, (unsigned long long)st->lock_hold_ns);
	CHECK(!memcmp(v->lock_wait_hist, st->lock_wait_hist, sizeof(st->lock_wait_hist)) &&
	      !memcmp(v->lock_hold_hist, st->lock_hold_hist, sizeof(st->lock_hold_hist)),
	      "%s: %s: lock histograms differ", phase, name);
	/* The tails of the trace against the allocator's own log2
	 * histograms of the same waits and holds: their p99 and maximum lie
	 * in its bucket of rank ceil(0.99 n) and its last non-empty bucket
	 * (a tail bucket never straddles a power of two). */
	const uint64_t *in_hist[2] = { st->lock_wait_hist, st->lock_hold_hist };
	const struct slub_tstats_tail *tails[2] = { &v->lock_wait_tail, &v->lock_hold_tail };
	for (unsigned k = 0; k < 2; k++) {
		uint64_t n = 0, seen = 0;
		unsigned p99 = 0, top = 0;
		for (unsigned i = 0; i < SLUB_TS_HIST_BUCKETS; i++) {
			n += in_hist[k][i];
			if (in_hist[k][i])
				top = i;
		}
		for (unsigned i = 0; i < SLUB_TS_HIST_BUCKETS; i++) {
			seen += in_hist[k][i];
			if (seen >= n - n / 100) {
				p99 = i;
				break;
			}
		}
		CHECK(tails[k]->count == n &&
		      (!n || (log2_bucket(slub_tstats_tail_p99(tails[k])) == p99 &&
			      log2_bucket(tails[k]->max) == top)),
		      "%s: %s: %s tail: %llu values, p99 %llu, max %llu; allocator %llu, "
		      "p99 bucket %u, last %u", phase, name, k ? "hold" : "wait",
		      (unsigned long long)tails[k]->count,
		      (unsigned long long)slub_tstats_tail_p99(tails[k]),
		      (unsigned long long)tails[k]->max, (unsigned long long)n, p99, top);
	}
	CHECK(v->objects_inuse == st->objects_inuse, "%s: %s: objects in use %llu vs %llu", phase,
	      name, (unsigned long long)v->objects_inuse, (unsigned long long)st->objects_inuse);
	/* Occupancy: the slabs made and discarded are the allocator's
	 * alloc_slab and free_slab, the slabs live at the end its census. */
	CHECK(v->occ.slabs_new == st->item[SLUB_ALLOC_SLAB] &&
		      v->occ.slabs_freed == st->item[SLUB_FREE_SLAB] && v->occ.slabs_end == st->slabs,
	      "%s: %s: occupancy made %llu discarded %llu live %llu; allocator %llu %llu %llu",
	      phase, name, (unsigned long long)v->occ.slabs_new,
	      (unsigned long long)v->occ.slabs_freed, (unsigned long long)v->occ.slabs_end,
	      (unsigned long long)st->item[SLUB_ALLOC_SLAB],
	      (unsigned long long)st->item[SLUB_FREE_SLAB], (unsigned long long)st->slabs);
	CHECK(v->occ.slabs_peak >= v->occ.slabs_end && v->occ.partial_peak <= v->occ.slabs_peak,
	      "%s: %s: peaks %llu slabs, %llu partial, %llu live at the end", phase, name,
	      (unsigned long long)v->occ.slabs_peak, (unsigned long long)v->occ.partial_peak,
	      (unsigned long long)v->occ.slabs_end);
#else
	(void)st;
	(void)phase;
#endif
}

/* d): the sheaf and barn items, rebuilt and counted in-process. */
static void compare_sheaves(const char *phase, const char *name, const struct slub_tstats_cache *v,
			    const struct slub_cache *cache)
{
	struct slub_sheaf_stats sh;

	if (!CHECK(v != NULL && v->sheaves, "%s: %s not rebuilt as a sheaves cache", phase, name))
		return;
	if (!CHECK(slub_cache_sheaf_stats(cache, &sh) == 0 && sh.sheaf_capacity > 0,
		   "%s: %s has no sheaves", phase, name))
		return;
	CHECK((v->known & (1ull << SLUB_TS_ALLOC_NODE_MISMATCH)) &&
		      v->sheaf_known == (1ull << SLUB_TS_NR_SHEAF_ITEMS) - 1,
	      "%s: %s: the items known are not those the events determine", phase, name);
	/* allocations for another node than the slot's were made (compare()
	 * finds the rebuilt count equal to the allocator's) */
	CHECK(node_allocs < 2 || v->item[SLUB_TS_ALLOC_NODE_MISMATCH] > 0,
	      "%s: %s: no alloc_node_mismatch with %d nodes", phase, name, node_allocs);
#if SLUB_STATS
	for (unsigned i = 0; i < SLUB_TS_NR_SHEAF_ITEMS; i++) {
		if (v->sheaf_known & (1ull << i))
			CHECK(v->sheaf_item[i] == sh.item[i], "%s: %s: %s rebuilt %llu, allocator %llu",
			      phase, name, slub_tstat_sheaf_item_name(i),
			      (unsigned long long)v->sheaf_item[i], (unsigned long long)sh.item[i]);
	}
	/* the run went through the paths the items count (barn_put_fail,
	 * a barn already holding too many full sheaves, only in some runs:
	 * test_tstats scripts it) */
	const unsigned used[] = { SLUB_SHEAF_FLUSH, SLUB_SHEAF_REFILL, SLUB_SHEAF_ALLOC,
				  SLUB_SHEAF_FREE, SLUB_BARN_GET, SLUB_BARN_GET_FAIL, SLUB_BARN_PUT };
	for (unsigned i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		CHECK(sh.item[used[i]] > 0, "%s: %s: no %s", phase, name,
		      slub_sheaf_stat_name(used[i]));
	CHECK(sh.item[SLUB_SHEAF_ALLOC] == sh.item[SLUB_SHEAF_FREE] && sh.barn_full == 0 &&
		      sh.barn_empty == 0,
	      "%s: %s: %llu sheaves made, %llu freed, barns %u full %u empty after shrink", phase,
	      name, (unsigned long long)sh.item[SLUB_SHEAF_ALLOC],
	      (unsigned long long)sh.item[SLUB_SHEAF_FREE], sh.barn_full, sh.barn_empty);
	printf("%s: %s: sheaf flush %llu refill %llu alloc %llu free %llu, barn get %llu "
	       "(fail %llu) put %llu (fail %llu)\n", phase, name,
	       (unsigned long long)sh.item[0], (unsigned long long)sh.item[1],
	       (unsigned long long)sh.item[2], (unsigned long long)sh.item[3],
	       (unsigned long long)sh.item[4], (unsigned long long)sh.item[5],
	       (unsigned long long)sh.item[6], (unsigned long long)sh.item[7]);
#endif
}

static struct phase_out run_phase_flags(const char *phase, unsigned variant, const char *show,
					bool exact, unsigned flags);

static struct phase_out run_phase(const char *phase, unsigned variant, const char *show,
				  bool exact)
{
	return run_phase_flags(phase, variant, show, exact, 0);
}

/* flags: cache flags added to each cache's (SLUB_F_SHEAVES: d) */
static struct phase_out run_phase_flags(const char *phase, unsigned variant, const char *show,
					bool exact, unsigned flags)
{
	struct phase_out out;
	struct slub_stats st[NCACHES];
	char name[NCACHES][64];
	struct worker *ws = calloc(opt_threads, sizeof(*ws));

	memset(&out, 0, sizeof(out));
	boxes = calloc(opt_threads, sizeof(*boxes));
	if (!ws || !boxes)
		FATAL("calloc");
	for (long t = 0; t < opt_threads; t++)
		pthread_mutex_init(&boxes[t].lock, NULL);
	evlen = 0;
	node_allocs = 0;
	if (flags & SLUB_F_SHEAVES) {
		const char *nodes = getenv("SLUBTRACE_NODES");

		node_allocs = nodes && atoi(nodes) >= 2 ? atoi(nodes) : 0;
	}
	slub_set_observer(observe, NULL, (1ull << SLUB_EV_NR) - 1);
	snprintf(name[0], sizeof(name[0]), "%s-64", phase);
	snprintf(name[1], sizeof(name[1]), "%s-256", phase);
	snprintf(name[2], sizeof(name[2]), "%s-full-128", phase);
	caches[0] = slub_cache_create(name[0], 64, 0, flags, NULL);
	caches[1] = slub_cache_create(name[1], 256, 0, flags, NULL);
	caches[2] = slub_cache_create(name[2], 128, 0, SLUB_F_TRACK_FULL | flags, NULL);
	for (int c = 0; c < NCACHES; c++)
		if (!caches[c])
			FATAL("%s: cache create: errno %d", name[c], errno);
	slub_set_variant(variant);
	for (long t = 0; t < opt_threads; t++) {
		ws[t].id = (int)t;
		ws[t].rng = test_seed(t, variant + 3);
		if (pthread_create(&ws[t].th, NULL, worker_main, &ws[t]))
			FATAL("pthread_create");
	}
	for (long t = 0; t < opt_threads; t++)
		pthread_join(ws[t].th, NULL);
	for (long t = 0; t < opt_threads; t++)
		drain_box(&boxes[t]);
	slub_set_variant(0);
	for (int c = 0; c < NCACHES; c++) {
		slub_cache_shrink(caches[c]);
		CHECK_EQ(slub_cache_stats(caches[c], &st[c]), 0);
	}
	slub_set_observer(NULL, NULL, 0);
	out.events = evlen;
	if (!CHECK(evlen <= EVCAP, "%s: %lu events overflowed the buffer", phase, evlen))
		evlen = EVCAP;

	/* fed as the plugin feeds it: in the order of a state model */
	struct slub_tstats *ts = slub_tstats_new(NULL);
	struct slub_model_callbacks cb = { 0 };
	cb.applied = slub_tstats_applied;
	cb.arg = ts;
	struct slub_model *m = ts ? slub_model_new(NULL, &cb) : NULL;
	if (!ts || !m)
		FATAL("slub_tstats_new");
	for (unsigned long i = 0; i < evlen; i++)
		CHECK(slub_model_event(m, &evbuf[i]) == 0, "%s: event %lu refused", phase, i);
	slub_model_finish(m);
	CHECK(!slub_tstats_failed(ts), "%s: the statistics ran out of memory", phase);
	slub_tstats_finish(ts);
	slub_model_free(m);
	for (int c = 0; c < NCACHES; c++) {
		const struct slub_tstats_cache *v = slub_tstats_cache_find(ts, name[c]);

		if (exact)
			compare(phase, name[c], v, &st[c]);
		if (exact && (flags & SLUB_F_SHEAVES))
			compare_sheaves(phase, name[c], v, caches[c]);
	}
	if (flags & SLUB_F_SHEAVES) {
		/* the reports carry the sheaf items, "-" / null where unknown */
		char *text = NULL, *json = NULL;
		size_t tlen = 0, jlen = 0;
		FILE *tf = open_memstream(&text, &tlen), *jf = open_memstream(&json, &jlen);
		if (CHECK(tf && jf, "open_memstream")) {
			slub_tstats_print_text(ts, tf, SLUB_TSTATS_SHOW_SLABINFO, NULL);
			slub_tstats_print_json(ts, jf);
			fclose(tf);
			fclose(jf);
			CHECK(strstr(text, "\nSheaves\n") && strstr(text, "Sheaf alloc   ") &&
				      !strstr(text, "Sheaf alloc         -") &&
				      strstr(text, "Barn get     "),
			      "%s: no sheaves block in the text report", phase);
			CHECK(strstr(json, "\"sheaf_items\":{\"sheaf_flush\":") &&
				      strstr(json, "\"sheaf_alloc\":") &&
				      !strstr(json, "\"sheaf_alloc\":null"),
			      "%s: no sheaf_items in the JSON report", phase);
		}
		free(text);
		free(json);
	}
	slub_tstats_get_totals(ts, &out.tot);
	for (unsigned i = 0; i < slub_tstats_nr_storms(ts); i++) {
		const struct slub_tstats_storm *s = slub_tstats_storm_at(ts, i);
		out.storms_with_winners += s->kind != SLUB_STORM_LOCK && s->nr_losers > 0 &&
					   s->nr_winners > 0 && s->site != SLUB_SITE_NONE;
	}
	CHECK(slub_tstats_result_get(ts, &out.rates) == 0, "result");
	if (show)
		slub_tstats_print_text(ts, stdout, SLUB_TSTATS_SHOW_STORMS | SLUB_TSTATS_SHOW_RATES,
				       NULL);
	if (opt_json_dir) {
		/* The reports `slubtrace diff` is tested on. */
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.json", opt_json_dir, phase);
		FILE *f = fopen(path, "w");
		if (CHECK(f != NULL, "%s: %s", path, strerror(errno))) {
			slub_tstats_print_json(ts, f);
			CHECK(fclose(f) == 0, "%s: write", path);
		}
	}
	printf("%s: %lu events, %llu failed CAS (%llu attributed), %llu cpu chain, %llu storms\n",
	       phase, out.events, (unsigned long long)out.tot.failures,
	       (unsigned long long)out.tot.attributed, (unsigned long long)out.tot.cpu_failures,
	       (unsigned long long)out.tot.storms);
	fflush(stdout);
	slub_tstats_free(ts);
	for (int c = 0; c < NCACHES; c++)
		CHECK_EQ(slub_cache_destroy(caches[c]), 0);
	free(ws);
	free(boxes);
	return out;
}

static double fig(const struct phase_out *o, unsigned rate)
{
	return o->rates.scope[0].fig[rate].value;
}

int main(int argc, char **argv)
{
	const struct test_opt opts[] = {
		{ 't', &opt_threads, "threads (default 4)" },
		{ 'o', &opt_ops, "objects allocated per thread (default 40000)" },
	};

	/* -j DIR: write each phase's JSON report there (before the options
	 * test_parse_opts() knows). */
	if (argc > 2 && !strcmp(argv[1], "-j")) {
		opt_json_dir = argv[2];
		argv[2] = argv[0];
		argc -= 2;
		argv += 2;
	}
	test_parse_opts(argc, argv, opts, 2);
	if (opt_threads < 2)
		opt_threads = 2;
	self_pid = (uint32_t)getpid();
	evbuf = calloc(EVCAP, sizeof(*evbuf));
	if (!evbuf)
		FATAL("calloc event buffer");
	for (unsigned i = 0; i < SLUB_TS_NR_ITEMS && i < (unsigned)SLUB_NR_STAT_ITEMS; i++)
		CHECK(!strcmp(slub_stat_name(i), slub_tstat_item_name(i)), "item %u: %s vs %s", i,
		      slub_stat_name(i), slub_tstat_item_name(i));

	/* d) more threads than cores */
	for (unsigned i = 0; i < SLUB_TS_NR_SHEAF_ITEMS; i++)
		CHECK(!strcmp(slub_sheaf_stat_name(i), slub_tstat_sheaf_item_name(i)),
		      "sheaf item %u: %s vs %s", i, slub_sheaf_stat_name(i),
		      slub_tstat_sheaf_item_name(i));
	long threads = opt_threads, cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (opt_threads <= cores)
		opt_threads = cores + 2;
	struct phase_out sheaves = run_phase_flags("ts-sheaves", 0, NULL, true, SLUB_F_SHEAVES);
	opt_threads = threads;

	struct phase_out base = run_phase("ts-default", 0, NULL, true);
	struct phase_out base2 = run_phase("ts-default2", 0, NULL, true);
	CHECK(base.tot.failures == base.tot.attributed + base.tot.untraced_winner +
					   base.tot.unknown_winner, "failures not all judged");

	/* b) */
	struct phase_out race = run_phase("ts-race", SLUB_INJ_RACE_WINDOW, "show", true);
	CHECK(race.tot.failures > 0, "race-window: no failed CAS");
	CHECK(race.tot.attributed * 10 >= race.tot.failures * 9,
	      "race-window: only %llu of %llu failures attributed to a winner",
	      (unsigned long long)race.tot.attributed, (unsigned long long)race.tot.failures);
	CHECK(race.tot.untraced_winner == 0, "race-window: untraced writes without lost-update");
	CHECK(race.tot.storms > 0 && race.storms_with_winners > 0,
	      "race-window: no storm with losers, winners and a site (%llu storms)",
	      (unsigned long long)race.tot.storms);

	/* lost-update: updates the trace never sees (so no equality), and a
	 * failure whose word changed without a seq change is an untraced write */
	struct phase_out lost = run_phase("ts-lost", SLUB_INJ_LOST_UPDATE | SLUB_INJ_RACE_WINDOW, NULL,
					  false);
	printf("ts-lost: %llu failures lost to untraced writes\n",
	       (unsigned long long)lost.tot.untraced_winner);

	/* c) */
	struct phase_out keep = run_phase("ts-keep-oldpage", SLUB_VAR_KEEP_OLDPAGE, NULL, true);
	printf("cpu_redos_per_drain: default %.3f, keep-oldpage %.3f\n",
	       fig(&base, SLUB_RATE_CPU_REDOS_PER_DRAIN), fig(&keep, SLUB_RATE_CPU_REDOS_PER_DRAIN));
	CHECK(fig(&keep, SLUB_RATE_CPU_REDOS_PER_DRAIN) >= 0.5 &&
	      fig(&keep, SLUB_RATE_CPU_REDOS_PER_DRAIN) > fig(&base, SLUB_RATE_CPU_REDOS_PER_DRAIN),
	      "keep-oldpage: cpu chain redos per drain %.3f (default %.3f)",
	      fig(&keep, SLUB_RATE_CPU_REDOS_PER_DRAIN), fig(&base, SLUB_RATE_CPU_REDOS_PER_DRAIN));

	struct phase_out perobj = run_phase("ts-perobj-deactivate", SLUB_VAR_PEROBJ_DEACTIVATE, NULL, true);
	printf("word_updates_per_deactivate: default %.3f, perobj-deactivate %.3f\n",
	       fig(&base, SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE),
	       fig(&perobj, SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE));
	CHECK(fig(&base, SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE) == 1.0,
	      "default: %.3f slab-word updates per deactivation",
	      fig(&base, SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE));
	CHECK(fig(&perobj, SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE) > 1.05,
	      "perobj-deactivate: %.3f slab-word updates per deactivation",
	      fig(&perobj, SLUB_RATE_WORD_UPDATES_PER_DEACTIVATE));

	struct slub_tstats_diff_config dc;
	slub_tstats_diff_defaults(&dc);
	CHECK(slub_tstats_diff(&keep.rates, &keep.rates, &dc, stdout) == 0, "self diff regressed");
	printf("\ndiff default -> keep-oldpage:\n");
	CHECK(slub_tstats_diff(&base.rates, &keep.rates, &dc, stdout) >= 1,
	      "keep-oldpage not a regression");
	/* A deactivation per thread exit and cache only: lower the minimum. */
	char err[128];
	CHECK(slub_tstats_diff_set(&dc, "word_updates_per_deactivate.min=5", err, sizeof(err)) == 0,
	      "%s", err);
	printf("\ndiff default -> perobj-deactivate:\n");
	CHECK(slub_tstats_diff(&base.rates, &perobj.rates, &dc, stdout) >= 1,
	      "perobj-deactivate not a regression");

	struct phase_out old = run_phase("ts-old-unfreeze-partials", SLUB_VAR_OLD_UNFREEZE_PARTIALS, NULL, true);
	struct phase_out keeplock = run_phase("ts-free-keep-lock", SLUB_VAR_FREE_KEEP_LOCK, NULL, true);
	const unsigned shown[] = { SLUB_RATE_LOCKED_REDOS_PER_1K_SLOW_FREES,
				   SLUB_RATE_LOCK_HOLD_NS_PER_ACQ, SLUB_RATE_REDOS_PER_1K_ALLOCS };
	for (unsigned i = 0; i < 3; i++)
		printf("%s: default %.3f, old-unfreeze-partials %.3f, free-keep-lock %.3f\n",
		       slub_tstats_rate_name(shown[i]), fig(&base, shown[i]), fig(&old, shown[i]),
		       fig(&keeplock, shown[i]));

	/* What free-keep-lock changes is zero by construction everywhere
	 * else: Linux 3.6 and the default drop list_lock before a __slab_free
	 * redo and never free into a frozen slab under it.  Whether a given
	 * free-keep-lock run shows it depends on a locked redo happening (a few
	 * per run): printed here, judged on pooled recordings by e2e_2012.sh. */
	const unsigned kept[] = { SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES,
				  SLUB_RATE_LOCKED_FROZEN_FREES_PER_1K_SLOW_FREES,
				  SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K };
	for (unsigned i = 0; i < 3; i++)
		printf("%s: default %.3f, race %.3f, free-keep-lock %.3f, "
		       "old-unfreeze-partials %.3f\n",
		       slub_tstats_rate_name(kept[i]), fig(&base, kept[i]), fig(&race, kept[i]),
		       fig(&keeplock, kept[i]), fig(&old, kept[i]));
	const struct phase_out *nokeep[] = { &base, &base2, &race, &keep, &perobj, &old };
	for (unsigned i = 0; i < sizeof(nokeep) / sizeof(nokeep[0]); i++)
		CHECK(nokeep[i]->rates.scope[0].fig[SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES].num ==
			      0 &&
		      nokeep[i]->rates.scope[0].fig[SLUB_RATE_LOCKED_FROZEN_FREES_PER_1K_SLOW_FREES]
				      .num == 0,
		      "phase %u: __slab_free kept list_lock across a redo or freed into a frozen "
		      "slab under it without free-keep-lock", i);

	printf("\ndiff default -> default (another run; not asserted: wall-clock figures):\n");
	slub_tstats_diff(&base.rates, &base2.rates, &dc, stdout);
	struct phase_out *all[] = { &sheaves, &base, &base2, &race, &lost, &keep, &perobj, &old, &keeplock };
	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		slub_tstats_result_free(&all[i]->rates);
	free(evbuf);
	return test_summary("test_tstats_inproc");
}
