// SPDX-License-Identifier: MIT
/*
 * test_reorder: the model's ordering engine (analysis/model/reorder.c) on
 * its own, linked with stand-ins for what it calls: model_apply() records the
 * order and moves only the slab word (seq, pages), model_report() counts
 * findings by rule, and a switch says whether a discarded-events notice
 * explains a gap.  No rule of the state machine runs.
 *
 *   order     word updates in any arrival order within the window are
 *             applied by seq, a list operation right after the word it saw
 *   twice     a seq that comes twice (before or while its slab waits) is
 *             reported once and dropped, never applied, never waited for
 *   hole      a seq that never comes is given up once the window passed:
 *             a lost update, or nothing when a notice explains it; a late
 *             update of the given-up range is dropped silently
 *   bound     at most reorder_events wait; the oldest gap goes first
 *   memory    a long random stream with holes and repeats: everything
 *             given is applied or dropped and handed on exactly once (the
 *             applied listener), nothing waits at the end, and the
 *             engine's memory stays within the bound
 *
 * Every case runs under alarm(): the engine once hung on a repeated seq.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"

#define MAX_APPLIED 400000
#define HISTORY 8

/* ---- stand-ins for the rest of the model ---- */

static struct {
	uint64_t slab[MAX_APPLIED];
	uint32_t type[MAX_APPLIED];
	uint32_t seq[MAX_APPLIED];
	uint64_t n;
} applied;

static uint64_t reports[SLUB_RULE_NR];
static uint64_t delivered, dropped;	/* handed to the applied listener */
static int notice;	/* a discarded-events notice explains every gap */
static uint64_t freed;
static uint64_t resynced;	/* applied events that found the slab to resynchronise */

void model_apply(struct slub_model *m, struct mslab *s, const struct slub_model_event *e, int late)
{
	const struct slub_event *ev = &e->ev;

	(void)late;
	if (applied.n < MAX_APPLIED) {
		applied.slab[applied.n] = s->h.k2;
		applied.type[applied.n] = ev->type;
		applied.seq[applied.n] = ev->new.seq;
	}
	applied.n++;
	m->sum.applied++;
	if (s->resync) {
		/* as the model does: this event is the slab's new baseline */
		s->resync = 0;
		resynced++;
	}
	s->state = SLUB_STATE_CPU_ACTIVE;
	if (is_word_event(ev->type)) {
		s->seq = ev->new.seq;
		if (!s->have_seq)
			s->base_seq = ev->new.seq;
		s->have_seq = 1;
		s->pages = 1;
	}
	if (ev->type == SLUB_EV_SLAB_DISCARD) {
		s->state = SLUB_STATE_DISCARDED;
		s->pages = 0;
	}
}

void model_failed_record(struct slub_model *m, struct mslab *s, const struct slub_model_event *e)
{
	(void)m;
	(void)s;
	(void)e;
}

void model_deliver(struct slub_model *m, const struct slub_model_event *e, uint64_t k1,
		   int drop)
{
	(void)m;
	(void)e;
	(void)k1;
	delivered++;
	dropped += drop != 0;
}

void model_free_slab(struct slub_model *m, struct mslab *s)
{
	(void)m;
	(void)s;
	freed++;
}

void model_report(struct slub_model *m, unsigned rule, const struct slub_model_record *r,
		  struct mslab *s, uint64_t k1, uint32_t other_vtid, const char *fmt, ...)
{
	(void)m;
	(void)r;
	(void)s;
	(void)k1;
	(void)other_vtid;
	(void)fmt;
	if (rule < SLUB_RULE_NR)
		reports[rule]++;
}

void model_make_record(struct slub_model_record *r, const struct slub_model_event *e)
{
	memset(r, 0, sizeof(*r));
	r->ts = e->ts;
	r->slab = e->ev.slab;
	r->type = e->ev.type;
	r->seq = e->ev.new.seq;
	r->vtid = e->vtid;
}

int model_notice_covers(const struct slub_model *m, uint64_t gen, uint64_t from_ts)
{
	(void)m;
	(void)gen;
	(void)from_ts;
	return notice;
}

int model_notice_since(const struct slub_model *m, uint64_t from_ts)
{
	(void)m;
	(void)from_ts;
	return notice;
}

/* ---- a model with only what the engine uses ---- */

static struct slub_model *model_new(uint64_t window_ns, uint32_t max_events)
{
	struct slub_model *m = calloc(1, sizeof(*m));

	if (!m)
		FATAL("out of memory");
	m->cfg.reorder_ns = window_ns;
	m->cfg.reorder_events = max_events;
	m->cfg.history = HISTORY;
	mm_pool_init(&m->p_pend, &m->mm, sizeof(struct pend));
	memset(&applied, 0, sizeof(applied));
	memset(reports, 0, sizeof(reports));
	delivered = dropped = 0;
	notice = 0;
	freed = 0;
	resynced = 0;
	return m;
}

static void model_free(struct slub_model *m)
{
	mm_pool_destroy(&m->p_pend);
	free(m);
}

static struct mslab *slab_new(uint64_t addr)
{
	struct mslab *s = calloc(1, sizeof(*s) + HISTORY * sizeof(struct slub_model_record));

	if (!s)
		FATAL("out of memory");
	s->h.k1 = 1;
	s->h.k2 = addr;
	s->owner = s->last_owner = -1;
	return s;
}

/* One word update (or, word 0, a list operation that saw seq) arriving at ts. */
static void submit(struct slub_model *m, struct mslab *s, unsigned type, uint32_t seq,
		   uint64_t ts)
{
	struct slub_model_event e;
	int word = is_word_event(type);

	memset(&e, 0, sizeof(e));
	e.ev.type = type;
	e.ev.site = SLUB_SITE_NONE;
	e.ev.slab = s->h.k2;
	e.ev.new.seq = seq;
	e.ev.new.objects = 16;
	e.ev.slot = -1;
	e.ts = ts;
	e.vpid = 1;
	e.vtid = 7;
	if (ts > m->now)
		m->now = ts;
	model_slab_submit(m, s, &e, seq, word, 0);
	model_expire(m);
}

static void finish(struct slub_model *m)
{
	m->finished = 1;
	while (m->wq_head)
		model_give_up(m, m->wq_head);
}

static uint64_t rnd = 0x5eed;

static void shuffle(uint32_t *a, unsigned n)
{
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)(test_rand(&rnd) % i);
		uint32_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ---- the cases ---- */

static void test_order(void)
{
	enum { N = 64, ROUNDS = 50 };

	for (int round = 0; round < ROUNDS; round++) {
		struct slub_model *m = model_new(1000000, 1024);
		struct mslab *s = slab_new(0x1000);
		uint32_t seqs[N];
		uint64_t ts = 1000;

		/* seq 1 is the baseline; 2..N+1 in any order, each after the
		 * list operation that saw it (as when the word's event was
		 * delayed past the list operation's) */
		submit(m, s, SLUB_EV_SLAB_NEW, 1, ts);
		for (unsigned i = 0; i < N; i++)
			seqs[i] = 2 + i;
		shuffle(seqs, N);
		for (unsigned i = 0; i < N; i++) {
			ts += 100;
			submit(m, s, SLUB_EV_ADD_PARTIAL, seqs[i], ts);
			submit(m, s, SLUB_EV_FREE_REMOTE, seqs[i], ts + 1);
		}
		CHECK_EQ(applied.n, (uint64_t)(1 + 2 * N));
		for (unsigned i = 0; i < N && applied.n == 1 + 2 * N; i++) {
			unsigned w = 1 + 2 * i, l = 2 + 2 * i;

			if (applied.type[w] != SLUB_EV_FREE_REMOTE || applied.seq[w] != 2 + i ||
			    applied.type[l] != SLUB_EV_ADD_PARTIAL || applied.seq[l] != 2 + i) {
				CHECK(0, "round %d: #%u, #%u are %s seq %u, %s seq %u: want the "
					 "update seq %u, then the list operation that saw it",
				      round, w, l, slub_event_name(applied.type[w]), applied.seq[w],
				      slub_event_name(applied.type[l]), applied.seq[l], 2 + i);
				break;
			}
		}
		CHECK_EQ(m->npend, 0);
		CHECK_EQ(s->waiting, 0);
		CHECK_EQ(reports[SLUB_RULE_WORD_CHAIN], 0);
		CHECK(m->sum.reorder_max_pending <= 2 * N, "%llu waited",
		      (unsigned long long)m->sum.reorder_max_pending);
		free(s);
		model_free(m);
	}
}

static void test_twice(void)
{
	struct slub_model *m = model_new(1000000, 1024);
	struct mslab *s = slab_new(0x2000);

	/* after the slab passed it */
	submit(m, s, SLUB_EV_SLAB_NEW, 1, 1000);
	for (uint32_t q = 2; q <= 5; q++)
		submit(m, s, SLUB_EV_FREE_REMOTE, q, 1000 + q);
	submit(m, s, SLUB_EV_FREE_REMOTE, 3, 1010);
	CHECK_EQ(applied.n, 5);
	CHECK_EQ(reports[SLUB_RULE_WORD_CHAIN], 1);

	/* while the slab waits: 7 twice behind the hole at 6 */
	submit(m, s, SLUB_EV_FREE_REMOTE, 7, 1020);
	submit(m, s, SLUB_EV_FREE_REMOTE, 7, 1021);
	CHECK_EQ(applied.n, 5);
	CHECK_EQ(m->npend, 2);
	submit(m, s, SLUB_EV_FREE_REMOTE, 6, 1022);
	CHECK_EQ(applied.n, 7);
	CHECK_EQ(s->seq, 7);
	CHECK_EQ(m->npend, 0);
	CHECK_EQ(s->waiting, 0);
	CHECK_EQ(reports[SLUB_RULE_WORD_CHAIN], 2);
	finish(m);
	CHECK_EQ(applied.n, 7);
	free(s);
	model_free(m);
}

static void test_hole(int explained)
{
	const uint64_t window = 1000000;
	struct slub_model *m = model_new(window, 1024);
	struct mslab *s = slab_new(0x3000);
	uint64_t ts = 1000;

	notice = explained;
	submit(m, s, SLUB_EV_SLAB_NEW, 1, ts);
	/* seq 2 never comes; 3..10 wait for it */
	for (uint32_t q = 3; q <= 10; q++)
		submit(m, s, SLUB_EV_FREE_REMOTE, q, ts += 1000);
	CHECK_EQ(applied.n, 1);
	CHECK_EQ(m->npend, 8);
	CHECK(s->waiting, "the slab waits in the queue");
	CHECK_EQ(reports[SLUB_RULE_WORD_CHAIN], 0);

	/* time passes (another slab's event): still within the window */
	struct mslab *o = slab_new(0x4000);
	submit(m, o, SLUB_EV_SLAB_NEW, 1, ts + window / 16);
	CHECK_EQ(applied.n, 2);
	/* past the window: the gap is given up, 3..10 applied in order */
	submit(m, o, SLUB_EV_FREE_REMOTE, 2, ts + 2 * window);
	CHECK_EQ(applied.n, 11);
	for (unsigned i = 0; i < 8 && applied.n == 11; i++)
		CHECK(applied.slab[3 + i] == 0x3000 && applied.seq[3 + i] == 3 + i,
		      "#%u: slab %#llx seq %u", 3 + i, (unsigned long long)applied.slab[3 + i],
		      applied.seq[3 + i]);
	CHECK_EQ(m->npend, 0);
	CHECK_EQ(s->waiting, 0);
	CHECK_EQ(s->seq, 10);
	CHECK_EQ(reports[SLUB_RULE_WORD_CHAIN], explained ? 0 : 1);
	CHECK_EQ(m->sum.reorder_exceeded, explained ? 0 : 1);
	/* what the lost update did is unknown: the slab resynchronises */
	CHECK_EQ(resynced, 1);

	/* seq 2 after all: late past its given-up gap, dropped without a word */
	submit(m, s, SLUB_EV_FREE_REMOTE, 2, ts + 2 * window + 1);
	CHECK_EQ(applied.n, 11);
	CHECK_EQ(reports[SLUB_RULE_WORD_CHAIN], explained ? 0 : 1);
	CHECK_EQ(m->npend, 0);
	free(s);
	free(o);
	model_free(m);
}

static void test_bound(void)
{
	enum { MAX = 32 };
	struct slub_model *m = model_new(1000000000, MAX);
	struct mslab *a = slab_new(0x5000), *b = slab_new(0x6000);
	uint64_t ts = 1000;

	submit(m, a, SLUB_EV_SLAB_NEW, 1, ts);
	submit(m, b, SLUB_EV_SLAB_NEW, 1, ts);
	/* a's hole first, then b's: both wait, well within the time window */
	for (uint32_t q = 3; q < 3 + MAX / 2; q++)
		submit(m, a, SLUB_EV_FREE_REMOTE, q, ++ts);
	for (uint32_t q = 3; q < 3 + MAX / 2; q++)
		submit(m, b, SLUB_EV_FREE_REMOTE, q, ++ts);
	CHECK_EQ(m->npend, MAX);
	CHECK_EQ(applied.n, 2);
	/* one more: past the bound, the oldest gap (a's) is given up */
	submit(m, b, SLUB_EV_FREE_REMOTE, 3 + MAX / 2, ++ts);
	CHECK(m->npend <= MAX, "%llu wait, bound %d", (unsigned long long)m->npend, MAX);
	CHECK_EQ(a->waiting, 0);
	CHECK_EQ(a->seq, 2 + MAX / 2);
	CHECK(b->waiting, "b still waits for its seq 2");
	CHECK_EQ(reports[SLUB_RULE_WORD_CHAIN], 1);
	finish(m);
	CHECK_EQ(m->npend, 0);
	CHECK_EQ(b->seq, 3 + MAX / 2);
	CHECK_EQ(reports[SLUB_RULE_WORD_CHAIN], 2);
	free(a);
	free(b);
	model_free(m);
}

static void test_memory(void)
{
	enum { SLABS = 64, EVENTS = 200000, MAX = 256 };
	struct slub_model *m = model_new(50000, MAX);
	struct mslab *s[SLABS];
	uint32_t next[SLABS];
	uint64_t ts = 1000, given = 0, maxpend = 0;

	for (unsigned i = 0; i < SLABS; i++) {
		s[i] = slab_new(0x100000 + 0x1000 * i);
		submit(m, s[i], SLUB_EV_SLAB_NEW, 1, ts);
		next[i] = 2;
		given++;
	}
	for (unsigned n = 0; n < EVENTS; n++) {
		unsigned i = (unsigned)(test_rand(&rnd) % SLABS);
		uint64_t r = test_rand(&rnd);
		uint32_t seq = next[i]++;

		if (r % 97 == 0)
			continue;			/* a hole */
		if (r % 89 == 0 && seq > 2)
			seq -= (uint32_t)(r >> 8) % 3;	/* a repeat */
		else if (r % 5 == 0)
			next[i]++, seq++;		/* out of order: the next one first */
		submit(m, s[i], SLUB_EV_FREE_REMOTE, seq, ts += 1 + (r >> 40) % 64);
		given++;
		if (r % 5 == 0 && seq > 2) {
			submit(m, s[i], SLUB_EV_FREE_REMOTE, seq - 1, ts += 1);
			given++;
		}
		if (m->npend > maxpend)
			maxpend = m->npend;
	}
	finish(m);
	CHECK(maxpend <= MAX, "%llu waited at once, bound %d", (unsigned long long)maxpend, MAX);
	CHECK_EQ(m->npend, 0);
	CHECK(m->wq_head == NULL, "a slab still waits");
	CHECK(applied.n <= given, "%llu applied of %llu given", (unsigned long long)applied.n,
	      (unsigned long long)given);
	CHECK(applied.n > given / 2, "%llu applied of %llu given", (unsigned long long)applied.n,
	      (unsigned long long)given);
	CHECK(delivered == given && delivered - dropped == applied.n,
	      "%llu handed on (%llu dropped), %llu applied, %llu given",
	      (unsigned long long)delivered, (unsigned long long)dropped,
	      (unsigned long long)applied.n, (unsigned long long)given);
	/* every slab went up by seq, never back */
	for (unsigned i = 0; i < SLABS; i++) {
		uint32_t last = 0;

		for (uint64_t k = 0; k < applied.n && k < MAX_APPLIED; k++)
			if (applied.slab[k] == s[i]->h.k2) {
				CHECK(applied.seq[k] > last, "slab %u: seq %u after %u", i,
				      applied.seq[k], last);
				last = applied.seq[k];
			}
	}
	/* the engine's memory: its waiting events, in pool chunks */
	CHECK(m->mm.peak <= (uint64_t)(MAX + 1) * sizeof(struct pend) + (128u << 10),
	      "peak %llu bytes for at most %d waiting events", (unsigned long long)m->mm.peak,
	      MAX);
	printf("memory: %llu events given, %llu applied, %llu waited at most, peak %llu bytes\n",
	       (unsigned long long)given, (unsigned long long)applied.n,
	       (unsigned long long)maxpend, (unsigned long long)m->mm.peak);
	for (unsigned i = 0; i < SLABS; i++)
		free(s[i]);
	model_free(m);
}

static void run(const char *name, void (*fn)(void))
{
	unsigned long before = test_failures;

	alarm(30);
	fn();
	alarm(0);
	printf("%s: %s\n", name, test_failures == before ? "ok" : "FAILED");
}

static void test_hole_lost(void)
{
	test_hole(0);
}

static void test_hole_explained(void)
{
	test_hole(1);
}

int main(void)
{
	signal(SIGALRM, SIG_DFL);
	run("order", test_order);
	run("twice", test_twice);
	run("hole (lost update)", test_hole_lost);
	run("hole (notice)", test_hole_explained);
	run("bound", test_bound);
	run("memory", test_memory);
	return test_summary("test_reorder");
}
