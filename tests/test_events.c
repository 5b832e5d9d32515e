// SPDX-License-Identifier: MIT
/*
 * test_events: the in-process event stream against the allocator's own
 * rules and counters.
 *
 * An observer copies every event (all types, alloc/free included) into a
 * preallocated buffer; it never calls the allocator.  A multi-threaded
 * workload on two emulated nodes, with remote frees and thread churn, runs
 * in phases; after each the recording is checked:
 *   a) by the state model (analysis/model), fed the recording in arrival
 *      order exactly as SLUBTRACE_CHECK feeds it: every rule of
 *      the families 1-9 of doc/design.md (slab word chain, frozen transitions, list
 *      operations under list_lock, lock pairing and numbering, cpu slabs,
 *      objects) holds;
 *   d) event counts equal the CONFIG_SLUB_STATS-style counters;
 *   e) the workload really did remote frees, cpu partial drains and (with
 *      the widened race window) failed slab-word CAS;
 *   f) the historical variants keep a), d) and g); the injected faults
 *      are caught with the right rule: an unlocked list operation as
 *      R3-list-unlocked, a lost update as R5-word-chain;
 *   g) every list operation carries a word of its slab's chain (exact, by
 *      seq): what lets the model (and the trace) order it.
 *
 *   test_events [-t threads] [-o ops per thread]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slub/slub.h>

#include "slub_model.h"
#include "testutil.h"

#define EVCAP (4ul << 20)
#define NCACHES 3
#define BOX_CAP 4096

static struct slub_event *evbuf;
static unsigned long evlen;

static void observe(const struct slub_event *ev, void *arg)
{
	unsigned long i = __atomic_fetch_add(&evlen, 1, __ATOMIC_RELAXED);

	(void)arg;
	if (i < EVCAP)
		evbuf[i] = *ev;
}

/* ---- the workload ---- */

struct phase {
	const char *name;
	unsigned variant;
	int threads;
	int ops;
	int generations;
};

struct box_item {
	void *p;
	int cache;
};

static struct slub_cache *caches[NCACHES];
static pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;
static struct box_item box[BOX_CAP];
static int box_n;
static int nr_nodes;

struct worker {
	pthread_t th;
	uint64_t rng;
	int ops;
};

#define LOCAL 256

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct box_item local[LOCAL];
	int n = 0;

	for (int i = 0; i < w->ops; i++) {
		uint64_t r = test_rand(&w->rng);
		unsigned op = r % 100;

		if (op < 45 && n < LOCAL) {
			int c = (r >> 8) % NCACHES;
			int node = (int)((r >> 16) % (nr_nodes + 1)) - 1;
			void *p = (r >> 24) % 4 ? slub_cache_alloc(caches[c])
						: slub_cache_alloc_node(caches[c], node);

			if (!CHECK(p != NULL, "alloc from %s: errno %d", slub_cache_name(caches[c]), errno))
				continue;
			memset(p, 0x77, 16);
			local[n].p = p;
			local[n].cache = c;
			n++;
		} else if (op < 65 && n > 0) {
			int k = (r >> 8) % n;

			slub_cache_free(caches[local[k].cache], local[k].p);
			local[k] = local[--n];
		} else if (op < 82 && n > 0) {
			int k = (r >> 8) % n;

			pthread_mutex_lock(&box_lock);
			if (box_n < BOX_CAP) {
				box[box_n++] = local[k];
				local[k] = local[--n];
			}
			pthread_mutex_unlock(&box_lock);
		} else {
			struct box_item it = { NULL, 0 };

			pthread_mutex_lock(&box_lock);
			if (box_n > 0) {
				int k = (r >> 8) % box_n;

				it = box[k];
				box[k] = box[--box_n];
			}
			pthread_mutex_unlock(&box_lock);
			if (it.p)
				slub_cache_free(caches[it.cache], it.p);
		}
	}
	/* Half of what is left goes to the next generation. */
	while (n > 0) {
		struct box_item it = local[--n];
		int kept = 0;

		if (n & 1) {
			pthread_mutex_lock(&box_lock);
			if (box_n < BOX_CAP) {
				box[box_n++] = it;
				kept = 1;
			}
			pthread_mutex_unlock(&box_lock);
		}
		if (!kept)
			slub_cache_free(caches[it.cache], it.p);
	}
	return NULL;
}

/* ---- checks ---- */

static int our_cache(unsigned id, int *idx)
{
	for (int c = 0; c < NCACHES; c++)
		if (slub_cache_id(caches[c]) == id) {
			if (idx)
				*idx = c;
			return 1;
		}
	return 0;
}

/* g) a list operation's word is the chain's word of that seq */
static int cmp_rec_key(const void *key, const void *elt)
{
	const struct slub_event *ev = key;
	const struct chain_rec *r = elt;

	if (ev->slab != r->slab)
		return ev->slab < r->slab ? -1 : 1;
	return ev->new.seq < r->new.seq ? -1 : ev->new.seq > r->new.seq;
}

static long list_words_bad;

static void check_list_words(const char *phase, unsigned long n, const struct chain_rec *r,
			     size_t m, int show)
{
	int shown = 0;

	list_words_bad = 0;
	for (unsigned long i = 0; i < n; i++) {
		const struct slub_event *ev = &evbuf[i];
		const struct chain_rec *w;

		if ((ev->type != SLUB_EV_ADD_PARTIAL && ev->type != SLUB_EV_REMOVE_PARTIAL &&
		     ev->type != SLUB_EV_ADD_FULL && ev->type != SLUB_EV_REMOVE_FULL) ||
		    !our_cache(ev->cache_id, NULL))
			continue;
		w = bsearch(ev, r, m, sizeof(*r), cmp_rec_key);
		if (w && chain_word_eq(&w->new, &ev->new) &&
		    (ev->new.frozen ? ev->new.owner >= 0 : ev->new.owner == -1))
			continue;
		list_words_bad++;
		if (shown++ < show)
			fprintf(stderr, "  %s: %s on slab %#llx carries seq %u frozen %u owner %d: %s\n",
				phase, slub_event_name(ev->type), (unsigned long long)ev->slab,
				ev->new.seq, ev->new.frozen, ev->new.owner,
				w ? "not the chain's word of that seq" : "no such word in the chain");
	}
}

static void check_words(const char *phase, unsigned long n, int show)
{
	struct chain_rec *r = calloc(n ? n : 1, sizeof(*r));
	size_t m = 0;

	if (!r)
		FATAL("calloc %lu chain records", n);
	for (unsigned long i = 0; i < n; i++)
		if (chain_is_word_event(evbuf[i].type) && our_cache(evbuf[i].cache_id, NULL))
			chain_rec_from(&r[m++], &evbuf[i]);
	qsort(r, m, sizeof(*r), chain_cmp);
	check_list_words(phase, n, r, m, show);
	free(r);
}

/* a) the model over the recording */
struct model_result {
	struct slub_model_summary sum;
	unsigned long shown;
	double seconds; /* the model alone, one thread: a figure, never judged */
	unsigned long notices;
};

static void model_violation(const struct slub_model_violation *v, void *arg)
{
	struct model_result *r = arg;

	if (r->shown++ >= 6)
		return;
	fprintf(stderr, "  %s: slab %#llx cache %s tid %u: %s\n", v->rule_id,
		(unsigned long long)v->slab, v->cache_name ? v->cache_name : "?", v->vtid,
		v->detail);
	for (uint32_t i = 0; i < v->nr_history; i++)
		fprintf(stderr, "    tid %u cpu %d %s %s -> %s seq %u inuse %u frozen %u\n",
			v->history[i].vtid, v->history[i].cpu, slub_event_name(v->history[i].type),
			slub_state_name(v->history[i].before), slub_state_name(v->history[i].after),
			v->history[i].seq, v->history[i].inuse, v->history[i].frozen);
}

/*
 * What a decoded trace gives the model (tracepoints/slub_tp.h, formats 4,
 * 3 and 2):
 * no old word but for cmpxchg_fail (an unfreeze's owner is the slot it
 * leaves), list operations with only the seq they saw, cpu slot events
 * without a word.
 */
static void as_decoded(struct slub_event *ev)
{
	int32_t leaves = ev->old.owner;

	if (ev->type == SLUB_EV_CMPXCHG_FAIL)
		return;
	memset(&ev->old, 0, sizeof(ev->old));
	ev->old.owner = ev->type == SLUB_EV_UNFREEZE ? leaves : -1;
	switch (ev->type) {
	case SLUB_EV_ADD_PARTIAL:
	case SLUB_EV_REMOVE_PARTIAL:
	case SLUB_EV_ADD_FULL:
	case SLUB_EV_REMOVE_FULL: {
		uint32_t seq = ev->new.seq;

		memset(&ev->new, 0, sizeof(ev->new));
		ev->new.seq = seq;
		ev->new.owner = -1;
		break;
	}
	case SLUB_EV_CPU_SLAB_LOAD:
	case SLUB_EV_DEACTIVATE:
	case SLUB_EV_CPU_PARTIAL_PUT:
	case SLUB_EV_CPU_PARTIAL_TAKE:
	case SLUB_EV_CPU_PARTIAL_DRAIN:
		memset(&ev->new, 0, sizeof(ev->new));
		ev->new.owner = -1;
		break;
	}
}

/*
 * decoded 2: as decoded, and LTTng's discard mode lost bursts of 40 events
 * every 3000, each reported by a discarded-events notice: nothing may be
 * flagged, every burst is a gap.
 */
static struct model_result check_model_as(unsigned long n, int show, int decoded)
{
	struct model_result res = { .shown = show ? 0 : ~0ul / 2 };
	struct slub_model_callbacks cb = { model_violation, NULL, NULL, &res, NULL };
	/* ts below are arrival numbers, 100 ns apart: 20 ms = 200 000 arrivals */
	struct slub_model_config cfg = { .reorder_ns = 20000000 };
	struct slub_model *m = slub_model_new(&cfg, &cb);
	struct slub_model_event e;
	uint32_t pid = (uint32_t)getpid();

	if (!m)
		FATAL("slub_model_new");
	memset(&e, 0, sizeof(e));
	double t0 = test_now();
	for (unsigned long i = 0; i < n; i++) {
		if (decoded == 2 && i % 3000 == 1500 && i + 40 < n) {
			struct slub_model_discard d = { 0, 40, 1000000 + i * 100,
							1000000 + (i + 39) * 100, 1, 0 };

			i += 40;
			slub_model_discarded(m, &d);
			res.notices++;
		}
		e.ev = evbuf[i];
		e.ts = 1000000 + i * 100; /* arrival order, 100 ns apart */
		e.vpid = pid;
		e.vtid = evbuf[i].tid;
		e.old_valid = !decoded || evbuf[i].type == SLUB_EV_CMPXCHG_FAIL;
		if (decoded)
			as_decoded(&e.ev);
		slub_model_event(m, &e);
	}
	slub_model_finish(m);
	res.seconds = test_now() - t0;
	slub_model_get_summary(m, &res.sum);
	slub_model_free(m);
	return res;
}

static struct model_result check_model(unsigned long n, int show)
{
	return check_model_as(n, show, 0);
}

/* d) */
struct counts {
	uint64_t type[SLUB_EV_NR];
	uint64_t fail_locked, fail_site[SLUB_SITE_NR];
	uint64_t deact_list[SLUB_DEST_NR], deact_node_mismatch, deact_bypass;
	uint64_t drain_limit; /* cpu_partial_drain by put_cpu_partial (not flushes) */
	uint64_t unfreeze_partials_discard, unfreeze_get_freelist;
	uint64_t freeze_slab_free, contended;
};

static void count_events(unsigned long n, struct counts *cnt)
{
	memset(cnt, 0, NCACHES * sizeof(*cnt));
	for (unsigned long i = 0; i < n; i++) {
		const struct slub_event *ev = &evbuf[i];
		struct counts *k;
		int c;

		if (!our_cache(ev->cache_id, &c))
			continue;
		k = &cnt[c];
		if (ev->type < SLUB_EV_NR)
			k->type[ev->type]++;
		switch (ev->type) {
		case SLUB_EV_CMPXCHG_FAIL:
			k->fail_locked += ev->locked != 0;
			if (ev->site < SLUB_SITE_NR)
				k->fail_site[ev->site]++;
			break;
		case SLUB_EV_CPU_PARTIAL_DRAIN:
			k->drain_limit += ev->reason == SLUB_DEACT_CPU_PARTIAL_LIMIT;
			break;
		case SLUB_EV_DEACTIVATE:
			/* get_freelist() found the slab full: DEACTIVATE_BYPASS */
			if (ev->reason == SLUB_DEACT_EMPTY_FREELIST)
				k->deact_bypass++;
			else if (ev->list < SLUB_DEST_NR)
				k->deact_list[ev->list]++;
			k->deact_node_mismatch += ev->reason == SLUB_DEACT_NODE_MISMATCH;
			break;
		case SLUB_EV_UNFREEZE:
			k->unfreeze_partials_discard +=
				ev->site == SLUB_SITE_UNFREEZE_PARTIALS && ev->list == SLUB_DEST_DISCARD;
			k->unfreeze_get_freelist += ev->site == SLUB_SITE_GET_FREELIST;
			break;
		case SLUB_EV_FREEZE:
			k->freeze_slab_free += ev->site == SLUB_SITE_SLAB_FREE;
			break;
		case SLUB_EV_LOCK_ACQUIRE:
			k->contended += ev->contended != 0;
			break;
		}
	}
}

static __attribute__((unused)) long identity(const char *phase, const char *cache, const char *what, uint64_t events,
		     uint64_t stats)
{
	if (events == stats)
		return 0;
	CHECK(0, "%s: cache %s: %s: events %llu, stats %llu", phase, cache, what,
	      (unsigned long long)events, (unsigned long long)stats);
	return 1;
}

static long check_stats(const char *phase, const struct counts *cnt, const struct slub_stats *st)
{
	long bad = 0;

#if SLUB_STATS
	for (int c = 0; c < NCACHES; c++) {
		const struct counts *k = &cnt[c];
		const uint64_t *it = st[c].item;
		const char *name = slub_cache_name(caches[c]);

#define ID(what, ev, stat) bad += identity(phase, name, what, (ev), (stat))
		ID("slab_new = ALLOC_SLAB", k->type[SLUB_EV_SLAB_NEW], it[SLUB_ALLOC_SLAB]);
		ID("slab_discard = FREE_SLAB", k->type[SLUB_EV_SLAB_DISCARD], it[SLUB_FREE_SLAB]);
		ID("cmpxchg_fail = CMPXCHG_DOUBLE_FAIL", k->type[SLUB_EV_CMPXCHG_FAIL],
		   it[SLUB_CMPXCHG_DOUBLE_FAIL]);
		ID("cmpxchg_fail locked = CMPXCHG_DOUBLE_FAIL_LOCKED", k->fail_locked,
		   it[SLUB_CMPXCHG_DOUBLE_FAIL_LOCKED]);
		for (int s = 0; s < SLUB_SITE_NR; s++) {
			char what[96];

			snprintf(what, sizeof(what), "cmpxchg_fail at %s = cmpxchg_fail_site",
				 slub_site_name(s));
			ID(what, k->fail_site[s], st[c].cmpxchg_fail_site[s]);
		}
		ID("cpu_cmpxchg_fail = CPU_PARTIAL_CMPXCHG_FAIL", k->type[SLUB_EV_CPU_CMPXCHG_FAIL],
		   it[SLUB_CPU_PARTIAL_CMPXCHG_FAIL]);
		/* The kernel's item counts fast-path cmpxchg failures: none here. */
		ID("no fast-path cmpxchg = CMPXCHG_DOUBLE_CPU_FAIL", 0, it[SLUB_CMPXCHG_DOUBLE_CPU_FAIL]);
		ID("cpu_partial_drain over the limit = CPU_PARTIAL_DRAIN", k->drain_limit,
		   it[SLUB_CPU_PARTIAL_DRAIN]);
		ID("deactivate empty_freelist = DEACTIVATE_BYPASS", k->deact_bypass,
		   it[SLUB_DEACTIVATE_BYPASS]);
		ID("deactivate head = DEACTIVATE_TO_HEAD", k->deact_list[SLUB_DEST_HEAD],
		   it[SLUB_DEACTIVATE_TO_HEAD]);
		ID("deactivate tail = DEACTIVATE_TO_TAIL", k->deact_list[SLUB_DEST_TAIL],
		   it[SLUB_DEACTIVATE_TO_TAIL]);
		ID("deactivate full = DEACTIVATE_FULL", k->deact_list[SLUB_DEST_FULL],
		   it[SLUB_DEACTIVATE_FULL]);
		ID("deactivate discard + unfreeze_partials discard = DEACTIVATE_EMPTY",
		   k->deact_list[SLUB_DEST_DISCARD] + k->unfreeze_partials_discard,
		   it[SLUB_DEACTIVATE_EMPTY]);
		ID("lock_acquire = LOCK_ACQUIRE", k->type[SLUB_EV_LOCK_ACQUIRE], it[SLUB_LOCK_ACQUIRE]);
		ID("lock_acquire contended = LOCK_CONTENDED", k->contended, it[SLUB_LOCK_CONTENDED]);
		ID("cpu_partial_put = CPU_PARTIAL_FREE + CPU_PARTIAL_NODE",
		   k->type[SLUB_EV_CPU_PARTIAL_PUT], it[SLUB_CPU_PARTIAL_FREE] + it[SLUB_CPU_PARTIAL_NODE]);
		ID("cpu_partial_take = CPU_PARTIAL_ALLOC", k->type[SLUB_EV_CPU_PARTIAL_TAKE],
		   it[SLUB_CPU_PARTIAL_ALLOC]);
		ID("freeze at __slab_free = CPU_PARTIAL_FREE", k->freeze_slab_free,
		   it[SLUB_CPU_PARTIAL_FREE]);
		ID("deactivate node_mismatch = ALLOC_NODE_MISMATCH", k->deact_node_mismatch,
		   it[SLUB_ALLOC_NODE_MISMATCH]);
		ID("take_freelist = ALLOC_REFILL", k->type[SLUB_EV_TAKE_FREELIST], it[SLUB_ALLOC_REFILL]);
		ID("unfreeze at get_freelist = DEACTIVATE_BYPASS", k->unfreeze_get_freelist,
		   it[SLUB_DEACTIVATE_BYPASS]);
		ID("free_remote + freeze at __slab_free = FREE_SLOWPATH",
		   k->type[SLUB_EV_FREE_REMOTE] + k->freeze_slab_free, it[SLUB_FREE_SLOWPATH]);
		ID("add_partial = DEACTIVATE_TO_HEAD + DEACTIVATE_TO_TAIL + FREE_ADD_PARTIAL",
		   k->type[SLUB_EV_ADD_PARTIAL],
		   it[SLUB_DEACTIVATE_TO_HEAD] + it[SLUB_DEACTIVATE_TO_TAIL] + it[SLUB_FREE_ADD_PARTIAL]);
		ID("remove_partial = ALLOC_FROM_PARTIAL + CPU_PARTIAL_NODE + FREE_REMOVE_PARTIAL",
		   k->type[SLUB_EV_REMOVE_PARTIAL],
		   it[SLUB_ALLOC_FROM_PARTIAL] + it[SLUB_CPU_PARTIAL_NODE] + it[SLUB_FREE_REMOVE_PARTIAL]);
		ID("alloc = ALLOC_FASTPATH + ALLOC_SLOWPATH", k->type[SLUB_EV_ALLOC],
		   it[SLUB_ALLOC_FASTPATH] + it[SLUB_ALLOC_SLOWPATH]);
		ID("free = FREE_FASTPATH + FREE_SLOWPATH", k->type[SLUB_EV_FREE],
		   it[SLUB_FREE_FASTPATH] + it[SLUB_FREE_SLOWPATH]);
#undef ID
	}
#else
	(void)phase;
	(void)cnt;
	(void)st;
#endif
	return bad;
}

struct phase_result {
	struct model_result model;
	struct model_result decoded; /* the same stream as a trace would give it */
	struct model_result lossy;   /* ... with bursts lost and reported */
	long stats_bad;
	uint64_t total[SLUB_EV_NR];
	unsigned long events;
};

static long opt_threads = 6, opt_ops = 20000;

/* Run one phase and check what is asked: CHK_* bits. */
#define CHK_MODEL 1
#define CHK_STATS 4
#define CHK_ALL (CHK_MODEL | CHK_STATS)

static struct phase_result run_phase(const struct phase *ph, unsigned checks)
{
	struct phase_result res;
	struct counts cnt[NCACHES];
	struct slub_stats st[NCACHES];
	char name[NCACHES][64];
	unsigned long n;
	int show = 6;

	memset(&res, 0, sizeof(res));
	evlen = 0;
	/* Observer first: the caches' whole history is recorded. */
	slub_set_observer(observe, NULL, (1ull << SLUB_EV_NR) - 1);
	snprintf(name[0], sizeof(name[0]), "%s-64", ph->name);
	snprintf(name[1], sizeof(name[1]), "%s-512", ph->name);
	snprintf(name[2], sizeof(name[2]), "%s-full-128", ph->name);
	caches[0] = slub_cache_create(name[0], 64, 0, 0, NULL);
	caches[1] = slub_cache_create(name[1], 512, 0, 0, NULL);
	caches[2] = slub_cache_create(name[2], 128, 0, SLUB_F_TRACK_FULL, NULL);
	for (int c = 0; c < NCACHES; c++)
		if (!caches[c])
			FATAL("%s: cache create: errno %d", name[c], errno);
	slub_set_variant(ph->variant);

	for (int g = 0; g < ph->generations; g++) {
		struct worker *ws = calloc(ph->threads, sizeof(*ws));

		for (int t = 0; t < ph->threads; t++) {
			ws[t].rng = test_seed(g * 100 + t, ph->variant + 17);
			ws[t].ops = ph->ops;
			if (pthread_create(&ws[t].th, NULL, worker_main, &ws[t]))
				FATAL("pthread_create");
		}
		for (int t = 0; t < ph->threads; t++)
			pthread_join(ws[t].th, NULL);
		free(ws);
	}
	/* The rest is freed here, remotely for the threads that made it. */
	while (box_n > 0) {
		box_n--;
		slub_cache_free(caches[box[box_n].cache], box[box_n].p);
	}
	slub_set_variant(0);
	for (int c = 0; c < NCACHES; c++) {
		long v = slub_validate(caches[c]);

		if (!(ph->variant & (SLUB_INJ_LOST_UPDATE | SLUB_INJ_UNLOCKED_LIST)))
			CHECK(v == 0, "%s: validate %s: %ld errors", ph->name, name[c], v);
		slub_cache_shrink(caches[c]);
		CHECK_EQ(slub_cache_stats(caches[c], &st[c]), 0);
	}
	slub_set_observer(NULL, NULL, 0);

	n = evlen;
	res.events = n;
	if (!CHECK(n <= EVCAP, "%s: %lu events overflowed the buffer of %lu", ph->name, n, EVCAP))
		n = EVCAP;

	res.model = check_model(n, (checks & CHK_MODEL) ? show : 0);
	res.decoded = check_model_as(n, (checks & CHK_MODEL) ? show : 0, 1);
	res.lossy = check_model_as(n, (checks & CHK_MODEL) ? show : 0, 2);
	check_words(ph->name, n, (checks & CHK_MODEL) ? show : 0);
	count_events(n, cnt);
	for (int c = 0; c < NCACHES; c++)
		for (int t = 0; t < SLUB_EV_NR; t++)
			res.total[t] += cnt[c].type[t];
	if (checks & CHK_STATS)
		res.stats_bad = check_stats(ph->name, cnt, st);

	const struct slub_model_summary *ms = &res.model.sum;
	if (checks & CHK_MODEL) {
		CHECK(ms->violations == 0, "%s: %llu violations of the model's rules", ph->name,
		      (unsigned long long)ms->violations);
		CHECK(ms->slabs > 0, "%s: no slab recorded", ph->name);
		CHECK(ms->skipped_rules == 0, "%s: rules skipped: %#llx", ph->name,
		      (unsigned long long)ms->skipped_rules);
		CHECK_EQ(ms->reorder_exceeded, 0);
		CHECK(res.decoded.sum.violations == 0,
		      "%s: %llu violations on the stream as a trace decodes it", ph->name,
		      (unsigned long long)res.decoded.sum.violations);
		CHECK(res.lossy.sum.violations == 0 && res.lossy.sum.gaps == res.lossy.notices &&
			      res.lossy.sum.slabs_resynced > 0,
		      "%s: with lost bursts: %llu violations, %llu gaps, %llu slabs resynchronised",
		      ph->name, (unsigned long long)res.lossy.sum.violations,
		      (unsigned long long)res.lossy.sum.gaps,
		      (unsigned long long)res.lossy.sum.slabs_resynced);
		CHECK(list_words_bad == 0, "%s: %ld list operations without their chain's word",
		      ph->name, list_words_bad);
		CHECK(res.total[SLUB_EV_ADD_PARTIAL] > 0, "%s: no list operation recorded", ph->name);
	}
	printf("%s: %lu events, %llu slabs, %llu free_remote, %llu cpu_partial_drain, "
	       "%llu cmpxchg_fail, %llu drain_freelist, %llu lock acquisitions; "
	       "model: %llu violations (%llu %s, %llu %s; as decoded %llu), max %llu waiting, %.0f kevents/s, "
	       "peak %llu KiB; stats mismatches %ld\n",
	       ph->name, res.events, (unsigned long long)ms->slabs,
	       (unsigned long long)res.total[SLUB_EV_FREE_REMOTE],
	       (unsigned long long)res.total[SLUB_EV_CPU_PARTIAL_DRAIN],
	       (unsigned long long)res.total[SLUB_EV_CMPXCHG_FAIL],
	       (unsigned long long)res.total[SLUB_EV_DRAIN_FREELIST],
	       (unsigned long long)res.total[SLUB_EV_LOCK_ACQUIRE],
	       (unsigned long long)ms->violations,
	       (unsigned long long)ms->violations_by_rule[SLUB_RULE_LIST_UNLOCKED],
	       slub_rule_id(SLUB_RULE_LIST_UNLOCKED),
	       (unsigned long long)ms->violations_by_rule[SLUB_RULE_WORD_CHAIN],
	       slub_rule_id(SLUB_RULE_WORD_CHAIN), (unsigned long long)res.decoded.sum.violations,
	       (unsigned long long)ms->reorder_max_pending,
	       res.model.seconds > 0 ? ms->events / res.model.seconds / 1000 : 0.0,
	       (unsigned long long)ms->peak_mem_bytes >> 10, res.stats_bad);
	fflush(stdout);

	for (int c = 0; c < NCACHES; c++) {
		long live = slub_cache_destroy(caches[c]);

		if (!(ph->variant & (SLUB_INJ_LOST_UPDATE | SLUB_INJ_UNLOCKED_LIST)))
			CHECK(live == 0, "%s: destroy %s: %ld live objects", ph->name, name[c], live);
	}
	return res;
}

/* Item: one thread_flush per flush.  A thread that flushes its slots
 * itself before exiting (as the malloc shim's exit hook does) is not
 * flushed a second time by the allocator's own exit hook. */
static uint32_t flusher_tid;

static void *flush_then_exit(void *arg)
{
	struct slub_cache *s = arg;
	void *p[100];

	flusher_tid = (uint32_t)gettid();
	for (int i = 0; i < 100; i++)
		p[i] = slub_cache_alloc(s);
	for (int i = 0; i < 100; i += 2)
		slub_cache_free(s, p[i]);
	slub_thread_flush();
	return NULL;
}

static void check_one_thread_flush(void)
{
	struct slub_cache *s = slub_cache_create("ev-thread-flush", 64, 0, 0, NULL);
	pthread_t th;
	unsigned long flushes = 0, slots = 0;

	if (!CHECK(s != NULL, "create: errno %d", errno))
		return;
	evlen = 0;
	slub_set_observer(observe, NULL, 1ull << SLUB_EV_THREAD_FLUSH);
	if (pthread_create(&th, NULL, flush_then_exit, s))
		FATAL("pthread_create");
	pthread_join(th, NULL);
	slub_set_observer(NULL, NULL, 0);
	for (unsigned long i = 0; i < evlen && i < EVCAP; i++)
		if (evbuf[i].type == SLUB_EV_THREAD_FLUSH && evbuf[i].tid == flusher_tid) {
			flushes++;
			slots += evbuf[i].count;
			CHECK(evbuf[i].slot == evbuf[i].cpu, "own flush: slot %d, cpu %d",
			      evbuf[i].slot, evbuf[i].cpu);
		}
	CHECK(flushes == 1, "a thread that flushed and exited: %lu thread_flush events", flushes);
	CHECK(slots == 1, "thread_flush counted %lu slots holding slabs, want 1", slots);
	CHECK_EQ(slub_cache_destroy(s), 50);
}

/*
 * get_any_partial(): an allocation on no particular node takes a partial
 * slab from another node only when that node keeps more than min_partial
 * of them.  Here the remote node keeps 3 (min_partial is at least 5): the
 * allocation must make a new slab on its own node.
 */
static void check_remote_partial_guard(void)
{
	struct slub_cache *probe = slub_cache_create("ev-home-probe", 64, 0, 0, NULL);
	struct slub_cache *s = slub_cache_create("ev-remote-guard", 256, 0,
						 SLUB_F_NO_CPU_PARTIAL, NULL);
	enum { K = 3, MAXOBJ = 4096 };
	static void *objs[MAXOBJ];
	int home = -1, remote, n = 0, objects = 0, took_remote = 0, new_home = 0;
	void *p, *q;

	if (!CHECK(probe && s, "create: errno %d", errno))
		return;
	/* This thread's node: that of the first slab it makes (another cache). */
	evlen = 0;
	slub_set_observer(observe, NULL, 1ull << SLUB_EV_SLAB_NEW);
	p = slub_cache_alloc(probe);
	slub_set_observer(NULL, NULL, 0);
	for (unsigned long i = 0; i < evlen; i++)
		if (evbuf[i].cache_id == slub_cache_id(probe))
			home = evbuf[i].node;
	slub_cache_free(probe, p);
	if (!CHECK(home >= 0, "no slab_new for the probe cache"))
		return;
	remote = 1 - home;
	evlen = 0;
	slub_set_observer(observe, NULL, 1ull << SLUB_EV_SLAB_NEW);
	q = slub_cache_alloc_node(s, remote);
	slub_set_observer(NULL, NULL, 0);
	for (unsigned long i = 0; i < evlen; i++)
		if (evbuf[i].cache_id == slub_cache_id(s))
			objects = (int)evbuf[i].count;
	if (!CHECK(objects > 0 && K * objects <= MAXOBJ, "objects per slab %d", objects))
		return;
	/* K full slabs on the remote node, then one free each: K partial. */
	objs[0] = q;
	for (n = 1; n < K * objects; n++)
		objs[n] = slub_cache_alloc_node(s, remote);
	slub_thread_flush();
	for (int k = 0; k < K; k++)
		slub_cache_free(s, objs[k * objects]);

	evlen = 0;
	slub_set_observer(observe, NULL, (1ull << SLUB_EV_SLAB_NEW) | (1ull << SLUB_EV_REMOVE_PARTIAL));
	p = slub_cache_alloc(s);
	slub_set_observer(NULL, NULL, 0);
	for (unsigned long i = 0; i < evlen; i++) {
		if (evbuf[i].cache_id != slub_cache_id(s))
			continue;
		took_remote += evbuf[i].type == SLUB_EV_REMOVE_PARTIAL && evbuf[i].node == remote;
		new_home += evbuf[i].type == SLUB_EV_SLAB_NEW && evbuf[i].node == home;
	}
	CHECK(took_remote == 0 && new_home == 1,
	      "remote node with %d partial slabs (min_partial >= 5): %d taken from it, %d new "
	      "slabs at home", K, took_remote, new_home);
	slub_cache_free(s, p);
	for (int k = 0; k < n; k++)
		if (k % objects)
			slub_cache_free(s, objs[k]);
	slub_thread_flush();
	CHECK_EQ(slub_cache_destroy(s), 0);
	CHECK_EQ(slub_cache_destroy(probe), 0);
}

/*
 * fork: the child adopts the cpu slots of the threads fork() left behind,
 * lazily, at its first slow path, as the acting slot (cpu) on the dead one
 * (slot).  A thread named like LTTng-UST's listener threads ("...-ust")
 * keeps no slot of its own (it uses the orphan slot), so a child never
 * adopts one.
 */
static pthread_barrier_t fork_barrier;

static void *forked_away(void *arg)
{
	struct slub_cache *s = arg;
	void *p[20];

	for (int i = 0; i < 20; i++)
		p[i] = slub_cache_alloc(s);
	for (int i = 0; i < 20; i += 2)
		slub_cache_free(s, p[i]);
	pthread_barrier_wait(&fork_barrier); /* allocated */
	pthread_barrier_wait(&fork_barrier); /* forked */
	for (int i = 1; i < 20; i += 2)
		slub_cache_free(s, p[i]);
	return NULL;
}

static void *tracer_like(void *arg)
{
	pthread_setname_np(pthread_self(), "events-ust");
	return forked_away(arg);
}

static void check_fork_adoption(void)
{
	struct slub_cache *s = slub_cache_create("ev-fork", 96, 0, 0, NULL);
	pthread_t th[2];
	pid_t pid;
	int status;

	if (!CHECK(s != NULL, "create: errno %d", errno))
		return;
	pthread_barrier_init(&fork_barrier, NULL, 3);
	evlen = 0;
	slub_set_observer(observe, NULL, (1ull << SLUB_EV_NR) - 1);
	if (pthread_create(&th[0], NULL, forked_away, s) ||
	    pthread_create(&th[1], NULL, tracer_like, s))
		FATAL("pthread_create");
	pthread_barrier_wait(&fork_barrier);
	pid = fork();
	if (pid == 0) {
		/* The child: a slow path adopts what the other threads left. */
		unsigned long adopted = 0, flushes_bad = 0;
		int32_t self_cpu = -1;
		void *q;

		evlen = 0;
		q = slub_cache_alloc(slub_cache_create("ev-fork-child", 200, 0, 0, NULL));
		for (unsigned long i = 0; i < evlen; i++) {
			const struct slub_event *ev = &evbuf[i];

			if (ev->type == SLUB_EV_CPU_SLAB_LOAD)
				self_cpu = ev->cpu;
			if (ev->type != SLUB_EV_THREAD_FLUSH)
				continue;
			adopted++;
			flushes_bad += ev->slot == ev->cpu || ev->tid != (uint32_t)getpid();
		}
		/* Exactly the ordinary thread's slot, by this thread. */
		_exit(q && adopted == 1 && !flushes_bad && self_cpu >= 0 ? 0 : 10 + (int)adopted);
	}
	pthread_barrier_wait(&fork_barrier);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	slub_set_observer(NULL, NULL, 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "child status %#x", status);
	CHECK(WEXITSTATUS(status) == 0,
	      "forked child: adoption wrong (exit %d: 10 + thread_flush events seen; want one, "
	      "for the ordinary thread's slot only, acting as the child's own slot)",
	      WEXITSTATUS(status));
	pthread_barrier_destroy(&fork_barrier);
	slub_thread_flush();
	CHECK_EQ(slub_cache_destroy(s), 0);
}

int main(int argc, char **argv)
{
	const struct test_opt opts[] = {
		{ 't', &opt_threads, "threads (default 6)" },
		{ 'o', &opt_ops, "operations per thread and generation (default 20000)" },
	};
	int t, o, vo;
	struct phase_result r;

	test_parse_opts(argc, argv, opts, 2);
	setenv("SLUBTRACE_NODES", "2", 0);
	slub_init();
	nr_nodes = slub_nr_nodes();
	CHECK(nr_nodes == 2, "SLUBTRACE_NODES=2 gave %d nodes", nr_nodes);
	evbuf = calloc(EVCAP, sizeof(*evbuf));
	if (!evbuf)
		FATAL("calloc event buffer");
	t = (int)opt_threads;
	o = (int)opt_ops;
	vo = o / 2 > 1000 ? o / 2 : 1000;

	/* Natural races only. */
	{
		struct phase ph = { "ev-natural", 0, t, o, 2 };

		r = run_phase(&ph, CHK_ALL);
		CHECK(r.total[SLUB_EV_FREE_REMOTE] > 0, "no remote frees in the workload");
		CHECK(r.total[SLUB_EV_CPU_PARTIAL_DRAIN] > 0, "no cpu partial drains in the workload");
		CHECK(r.total[SLUB_EV_ALLOC] > 0 && r.total[SLUB_EV_FREE] > 0,
		      "object events missing: %llu alloc %llu free",
		      (unsigned long long)r.total[SLUB_EV_ALLOC],
		      (unsigned long long)r.total[SLUB_EV_FREE]);
		CHECK(r.total[SLUB_EV_DEACTIVATE] > 0 && r.total[SLUB_EV_CPU_PARTIAL_PUT] > 0,
		      "deactivate %llu, cpu_partial_put %llu",
		      (unsigned long long)r.total[SLUB_EV_DEACTIVATE],
		      (unsigned long long)r.total[SLUB_EV_CPU_PARTIAL_PUT]);
	}
	/* The widened race window makes slab-word CAS failures certain. */
	{
		/* Long enough that an unfreeze and a freeze by another slot
		 * meet between the CAS and the owner clear (the owner rule). */
		struct phase ph = { "ev-race", SLUB_INJ_RACE_WINDOW, t, 2 * o, 3 };

		r = run_phase(&ph, CHK_ALL);
		CHECK(r.total[SLUB_EV_CMPXCHG_FAIL] > 0, "no cmpxchg_fail with the race window open");
		CHECK(r.total[SLUB_EV_FREE_REMOTE] > 0, "no remote frees in the workload");
	}
	/* Historical variants: the same rules hold. */
	{
		static const struct {
			const char *name;
			unsigned bit;
		} vars[] = {
			{ "ev-old-unfreeze-partials", SLUB_VAR_OLD_UNFREEZE_PARTIALS },
			{ "ev-perobj-deactivate", SLUB_VAR_PEROBJ_DEACTIVATE },
			{ "ev-keep-oldpage", SLUB_VAR_KEEP_OLDPAGE },
			{ "ev-free-keep-lock", SLUB_VAR_FREE_KEEP_LOCK },
		};

		for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
			struct phase ph = { vars[i].name, vars[i].bit, t, vo, 2 };

			r = run_phase(&ph, CHK_ALL);
			if (vars[i].bit == SLUB_VAR_PEROBJ_DEACTIVATE)
				CHECK(r.total[SLUB_EV_DRAIN_FREELIST] > 0,
				      "per-object deactivate produced no drain_freelist event");
			else
				CHECK(r.total[SLUB_EV_DRAIN_FREELIST] == 0,
				      "%s: %llu drain_freelist events without the per-object variant",
				      vars[i].name, (unsigned long long)r.total[SLUB_EV_DRAIN_FREELIST]);
			/* put_cpu_partial() without `oldpage = NULL` after a drain
			 * fails its chain CAS once per drain; with the 2012 fix
			 * (and no flush racing from another thread) never. */
			if (vars[i].bit == SLUB_VAR_KEEP_OLDPAGE)
				CHECK(r.total[SLUB_EV_CPU_CMPXCHG_FAIL] > 0 &&
					      r.total[SLUB_EV_CPU_PARTIAL_DRAIN] > 0,
				      "keep-oldpage: %llu cpu_cmpxchg_fail for %llu drains",
				      (unsigned long long)r.total[SLUB_EV_CPU_CMPXCHG_FAIL],
				      (unsigned long long)r.total[SLUB_EV_CPU_PARTIAL_DRAIN]);
			else
				CHECK(r.total[SLUB_EV_CPU_CMPXCHG_FAIL] == 0,
				      "%s: %llu cpu_cmpxchg_fail with the oldpage fix",
				      vars[i].name,
				      (unsigned long long)r.total[SLUB_EV_CPU_CMPXCHG_FAIL]);
		}
	}
	/* Injected faults: the checks must find them. */
	{
		struct phase ph = { "ev-inject-unlocked-list", SLUB_INJ_UNLOCKED_LIST, t, vo, 2 };

		r = run_phase(&ph, 0);
		CHECK(r.model.sum.violations_by_rule[SLUB_RULE_LIST_UNLOCKED] > 0 &&
			      r.decoded.sum.violations_by_rule[SLUB_RULE_LIST_UNLOCKED] ==
				      r.model.sum.violations_by_rule[SLUB_RULE_LIST_UNLOCKED],
		      "the injected unlocked list operation: %llu in-process, %llu as decoded",
		      (unsigned long long)r.model.sum.violations_by_rule[SLUB_RULE_LIST_UNLOCKED],
		      (unsigned long long)r.decoded.sum.violations_by_rule[SLUB_RULE_LIST_UNLOCKED]);
	}
	{
		struct phase ph = { "ev-inject-lost-update", SLUB_INJ_LOST_UPDATE, t, vo, 2 };

		r = run_phase(&ph, 0);
		CHECK(r.model.sum.violations_by_rule[SLUB_RULE_WORD_CHAIN] > 0,
		      "the injected lost update went unnoticed (%llu free_remote)",
		      (unsigned long long)r.total[SLUB_EV_FREE_REMOTE]);
		/* Without old words the lost free shows in the next free's delta. */
		CHECK(r.decoded.sum.violations_by_rule[SLUB_RULE_WORD_DELTA] > 0,
		      "the injected lost update went unnoticed as decoded (%llu violations)",
		      (unsigned long long)r.decoded.sum.violations);
	}
	check_one_thread_flush();
	check_remote_partial_guard();
	check_fork_adoption();
	free(evbuf);
	return test_summary("test_events");
}
