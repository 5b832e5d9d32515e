// SPDX-License-Identifier: MIT
/*
 * test_model: the SLUB state model on hand-written event sequences, no
 * allocator and no trace.
 *
 * One clean life of a slab (new, remote frees, take_freelist, deactivate to
 * the partial list, acquire_slab by another cpu, deactivate to discard)
 * must pass; for every rule one change of that life must be flagged with
 * that rule's id.  A slab unfrozen to the partial list and never added is
 * a leak (R4), an add right after the unlock is R3's only.  Then:
 * timestamps that invert seq order pass; a seq gap is a lost update unless
 * a discarded-events notice covers it (then one gap is counted and the
 * slab resynchronises); forks, execs, thread churn and a trace that starts
 * mid-run produce nothing.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h" /* the table's per-event effects */
#include "slub_model.h"
#include "testutil.h"

#define SLAB 0x10000ull
#define SLAB2 0x20000ull
#define OBJS 16
#define LOCK0 (1 * 64 + 0)
#define NEV 512

struct seqb {
	struct slub_model_event ev[NEV];
	int n;
	uint64_t ts;
	uint32_t vpid;
	uint64_t slab;
};

static struct slub_model_event *add(struct seqb *b, unsigned type, uint32_t tid, int cpu)
{
	struct slub_model_event *e;

	if (b->n >= NEV)
		FATAL("sequence too long");
	e = &b->ev[b->n++];
	memset(e, 0, sizeof(*e));
	e->ev.type = type;
	e->ev.cpu = cpu;
	e->ev.slot = -1;
	e->ev.old.owner = -1;
	e->ev.new.owner = -1;
	e->ev.cache_id = 1;
	e->ev.node = 0;
	e->ev.slab = b->slab;
	e->ev.tid = tid;
	e->vpid = b->vpid;
	e->vtid = tid;
	b->ts += 1000;
	e->ts = b->ts;
	return e;
}

static void word(struct slub_model_event *e, unsigned site, uint64_t fl, unsigned inuse,
		 unsigned frozen, unsigned seq, unsigned dest, unsigned locked)
{
	e->ev.site = site;
	e->ev.new.freelist = fl;
	e->ev.new.inuse = inuse;
	e->ev.new.objects = OBJS;
	e->ev.new.frozen = frozen;
	e->ev.new.seq = seq;
	e->ev.new.owner = frozen ? e->ev.cpu : -1;
	if (e->ev.type == SLUB_EV_UNFREEZE)
		e->ev.old.owner = e->ev.cpu; /* the slot it leaves */
	e->ev.list = dest;
	e->ev.locked = locked;
}

static void lock(struct seqb *b, unsigned type, uint32_t tid, int cpu, uint32_t id, uint64_t seq)
{
	struct slub_model_event *e = add(b, type, tid, cpu);

	e->ev.slab = 0;
	e->ev.lock_id = id;
	e->ev.lock_seq = seq;
	e->ev.locked = type == SLUB_EV_LOCK_ACQUIRE;
}

static void list_op(struct seqb *b, unsigned type, uint32_t tid, int cpu, uint64_t lseq,
		    unsigned seen_seq, unsigned where)
{
	struct slub_model_event *e = add(b, type, tid, cpu);

	e->ev.lock_id = LOCK0;
	e->ev.lock_seq = lseq;
	e->ev.locked = 1;
	e->ev.list = where;
	e->ev.new.seq = seen_seq;
}

static void cpu_ev(struct seqb *b, unsigned type, uint32_t tid, int cpu, unsigned reason,
		   unsigned dest)
{
	struct slub_model_event *e = add(b, type, tid, cpu);

	e->ev.slot = cpu;
	e->ev.reason = reason;
	e->ev.list = dest;
}

/* Changes to the clean life, one per rule. */
enum mut {
	M_NONE,
	M_TRANSITION,     /* cpu_partial_take of the cpu slab */
	M_FROZEN_STATE,   /* cpu_slab_load of the unfrozen slab */
	M_OWNER,          /* take_freelist by cpu 1 */
	M_FREEZE,         /* acquire_slab freezes the frozen slab */
	M_UNFREEZE,       /* unfreeze twice */
	M_LIST_UNLOCKED,  /* add_partial after the lock was dropped */
	M_LIST_ONE,       /* add_partial twice */
	M_LIST_REMOVE,    /* remove_full of a partial slab */
	M_AT_UNLOCK,      /* acquire_slab without remove_partial */
	M_CHAIN_GAP,      /* an update never seen */
	M_CHAIN_OLD,      /* old word (in-process) differs from the previous new */
	M_OBJECTS,        /* objects changes */
	M_DELTA,          /* a remote free takes two objects off inuse */
	M_DISCARD,        /* discard with objects in use */
	M_LOCK_HOLDER,    /* release by another thread */
	M_LOCK_RECURSIVE, /* the holder takes it again */
	M_LOCK_ORDER,     /* a second node lock while holding one */
	M_LOCK_SEQ,       /* acquisition 2 then 4 */
	M_CPU_SLAB,       /* cpu_slab_load over the active slab */
	M_CPU_WORD,       /* in-process cpu_slab_load sees another word at the same seq */
	M_UNLOCKED_UNFREEZE, /* deactivate_slab unfreezes to the partial list without the lock */
	M_AT_UNLOCK_KEEP, /* acquire_slab keeps the freelist (cpu partial), no remove_partial */
	M_DISCARD_FROZEN, /* discard of a slab whose last word is frozen */
	M_NR
};

static const unsigned mut_rule[M_NR] = {
	[M_TRANSITION] = SLUB_RULE_TRANSITION,
	[M_FROZEN_STATE] = SLUB_RULE_FROZEN_STATE,
	[M_OWNER] = SLUB_RULE_OWNER,
	[M_FREEZE] = SLUB_RULE_FREEZE,
	[M_UNFREEZE] = SLUB_RULE_UNFREEZE,
	[M_LIST_UNLOCKED] = SLUB_RULE_LIST_UNLOCKED,
	[M_LIST_ONE] = SLUB_RULE_LIST_ONE,
	[M_LIST_REMOVE] = SLUB_RULE_LIST_REMOVE,
	[M_AT_UNLOCK] = SLUB_RULE_LIST_AT_UNLOCK,
	[M_CHAIN_GAP] = SLUB_RULE_WORD_CHAIN,
	[M_CHAIN_OLD] = SLUB_RULE_WORD_CHAIN,
	[M_OBJECTS] = SLUB_RULE_WORD_OBJECTS,
	[M_DELTA] = SLUB_RULE_WORD_DELTA,
	[M_DISCARD] = SLUB_RULE_DISCARD,
	[M_LOCK_HOLDER] = SLUB_RULE_LOCK_HOLDER,
	[M_LOCK_RECURSIVE] = SLUB_RULE_LOCK_RECURSIVE,
	[M_LOCK_ORDER] = SLUB_RULE_LOCK_ORDER,
	[M_LOCK_SEQ] = SLUB_RULE_LOCK_SEQ,
	[M_CPU_SLAB] = SLUB_RULE_CPU_SLAB,
	[M_CPU_WORD] = SLUB_RULE_WORD_CHAIN,
	[M_UNLOCKED_UNFREEZE] = SLUB_RULE_TRANSITION,
	[M_AT_UNLOCK_KEEP] = SLUB_RULE_LIST_AT_UNLOCK,
	[M_DISCARD_FROZEN] = SLUB_RULE_DISCARD,
};

/*
 * Slab SLAB, 16 objects, cache 1, node 0.  Thread 10 runs cpu 0, thread 11
 * cpu 1 (frees remotely), thread 12 cpu 2.
 */
static void life(struct seqb *b, enum mut m)
{
	struct slub_model_event *e;
	unsigned s = 1;

	e = add(b, SLUB_EV_SLAB_NEW, 10, 0);
	word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, s, 0, 0);
	cpu_ev(b, SLUB_EV_CPU_SLAB_LOAD, 10, 0, 0, 0);
	/* in-process, a cpu slot event carries the word it read */
	e = &b->ev[b->n - 1];
	e->old_valid = 1;
	e->ev.new = b->ev[b->n - 2].ev.new;
	e->ev.old = e->ev.new;
	if (m == M_CPU_WORD)
		e->ev.new.frozen = 0;
	if (m == M_CPU_SLAB)
		cpu_ev(b, SLUB_EV_CPU_SLAB_LOAD, 10, 0, 0, 0);
	if (m == M_TRANSITION)
		cpu_ev(b, SLUB_EV_CPU_PARTIAL_TAKE, 10, 0, 0, 0);
	e = add(b, SLUB_EV_FREE_REMOTE, 11, 1);
	word(e, SLUB_SITE_SLAB_FREE, 0xa0, OBJS - 1, 1, ++s, 0, 0);
	if (m != M_CHAIN_GAP) {
		e = add(b, SLUB_EV_TAKE_FREELIST, 10, m == M_OWNER ? 1 : 0);
		word(e, SLUB_SITE_GET_FREELIST, 0, OBJS, 1, ++s, 0, 0);
	} else {
		++s;
	}
	if (m == M_FREEZE) {
		e = add(b, SLUB_EV_FREEZE, 12, 2);
		word(e, SLUB_SITE_ACQUIRE_SLAB, 0, OBJS, 1, ++s, 0, 1);
	}
	e = add(b, SLUB_EV_FREE_REMOTE, 11, 1);
	word(e, SLUB_SITE_SLAB_FREE, 0xb0, m == M_DELTA ? OBJS - 2 : OBJS - 1, 1, ++s, 0, 0);
	if (m == M_OBJECTS)
		e->ev.new.objects = OBJS + 1;
	if (m == M_CHAIN_OLD) {
		/* in-process: the old word names a freelist that was never there */
		e->old_valid = 1;
		e->ev.old = e->ev.new;
		e->ev.old.freelist = 0xdead0;
		e->ev.old.inuse = OBJS;
		e->ev.old.seq = s - 1;
	}

	/* deactivate_slab(): lock, unfreeze to the tail, list, unlock */
	lock(b, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 1);
	if (m == M_LOCK_RECURSIVE)
		lock(b, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 2);
	if (m == M_LOCK_ORDER)
		lock(b, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0 + 1, 1);
	e = add(b, SLUB_EV_UNFREEZE, 10, 0);
	word(e, SLUB_SITE_UNFREEZING_SLAB, 0xb0, OBJS - 1, 0, ++s, SLUB_DEST_TAIL,
	     m != M_UNLOCKED_UNFREEZE);
	if (m == M_UNFREEZE) {
		e = add(b, SLUB_EV_UNFREEZE, 10, 0);
		word(e, SLUB_SITE_UNFREEZING_SLAB, 0xb0, OBJS - 1, 0, ++s, SLUB_DEST_TAIL, 1);
	}
	cpu_ev(b, SLUB_EV_DEACTIVATE, 10, 0, SLUB_DEACT_NODE_MISMATCH, SLUB_DEST_TAIL);
	if (m == M_FROZEN_STATE)
		cpu_ev(b, SLUB_EV_CPU_SLAB_LOAD, 10, 0, 0, 0);
	if (m != M_LIST_UNLOCKED)
		list_op(b, SLUB_EV_ADD_PARTIAL, 10, 0, 1, s, SLUB_DEST_TAIL);
	if (m == M_LIST_ONE)
		list_op(b, SLUB_EV_ADD_PARTIAL, 10, 0, 1, s, SLUB_DEST_TAIL);
	if (m == M_LIST_REMOVE)
		list_op(b, SLUB_EV_REMOVE_FULL, 10, 0, 1, s, 0);
	if (m == M_LOCK_ORDER)
		lock(b, SLUB_EV_LOCK_RELEASE, 10, 0, LOCK0 + 1, 1);
	lock(b, SLUB_EV_LOCK_RELEASE, m == M_LOCK_HOLDER ? 11 : 10, 0, LOCK0,
	     m == M_LOCK_RECURSIVE ? 2 : 1);
	if (m == M_LIST_UNLOCKED) {
		e = add(b, SLUB_EV_ADD_PARTIAL, 10, 0);
		e->ev.lock_id = LOCK0;
		e->ev.lock_seq = 1;
		e->ev.list = SLUB_DEST_TAIL;
		e->ev.new.seq = s;
	}

	/* acquire_slab() by cpu 2 takes the freelist; the slab is its cpu slab */
	uint64_t l2 = m == M_LOCK_SEQ ? 4 : (m == M_LOCK_RECURSIVE ? 3 : 2);
	lock(b, SLUB_EV_LOCK_ACQUIRE, 12, 2, LOCK0, l2);
	e = add(b, SLUB_EV_FREEZE, 12, 2);
	if (m == M_AT_UNLOCK_KEEP) /* frozen with its free objects: not "without a free object" */
		word(e, SLUB_SITE_ACQUIRE_SLAB, 0xb0, OBJS - 1, 1, ++s, 0, 1);
	else
		word(e, SLUB_SITE_ACQUIRE_SLAB, 0, OBJS, 1, ++s, 0, 1);
	if (m != M_AT_UNLOCK && m != M_AT_UNLOCK_KEEP)
		list_op(b, SLUB_EV_REMOVE_PARTIAL, 12, 2, l2, s, 0);
	lock(b, SLUB_EV_LOCK_RELEASE, 12, 2, LOCK0, l2);
	if (m == M_AT_UNLOCK || m == M_AT_UNLOCK_KEEP)
		return;
	cpu_ev(b, SLUB_EV_CPU_SLAB_LOAD, 12, 2, 0, 0);
	e = add(b, SLUB_EV_FREE_REMOTE, 11, 1);
	word(e, SLUB_SITE_SLAB_FREE, 0xc0, OBJS - 1, 1, ++s, 0, 0);

	/* deactivate_slab() by cpu 2 with the whole cpu freelist: empty, discarded */
	e = add(b, SLUB_EV_UNFREEZE, 12, 2);
	word(e, SLUB_SITE_UNFREEZING_SLAB, 0xd0, 0, 0, ++s, SLUB_DEST_DISCARD, 0);
	cpu_ev(b, SLUB_EV_DEACTIVATE, 12, 2, SLUB_DEACT_EMPTY_FREELIST + 2, SLUB_DEST_DISCARD);
	e = add(b, SLUB_EV_SLAB_DISCARD, 12, 2);
	word(e, SLUB_SITE_NONE, 0xd0, m == M_DISCARD ? 3 : 0, m == M_DISCARD_FROZEN, s, 0, 0);
	if (m == M_DISCARD)
		e->ev.new.inuse = 3;
}

/* ---- running a sequence ---- */

struct result {
	unsigned long violations;
	unsigned long by_rule[SLUB_RULE_NR];
	unsigned long transitions;
	struct slub_model_summary sum;
	int summaries;
	char first[512];
	char twin[512];    /* the first "seq produced twice" finding */
	unsigned twins;
	unsigned twin_history; /* records of the twin's slab shown with it */
	unsigned nr_history;
	unsigned stack_nr;
	uint64_t stack0;
};

static void on_violation(const struct slub_model_violation *v, void *arg)
{
	struct result *r = arg;

	if (v->stack_nr && v->stack)
		r->stack_nr = v->stack_nr, r->stack0 = v->stack[0];
	if (!r->violations)
		snprintf(r->first, sizeof(r->first), "%s: %s (%s)", v->rule_id, v->detail,
			 v->meaning);
	if (!r->violations)
		r->nr_history = v->nr_history;
	if (v->rule == SLUB_RULE_WORD_CHAIN && strstr(v->detail, "produced twice")) {
		if (!r->twins++) {
			snprintf(r->twin, sizeof(r->twin), "%s", v->detail);
			r->twin_history = v->nr_history;
		}
	}
	r->violations++;
	if (v->rule < SLUB_RULE_NR)
		r->by_rule[v->rule]++;
}

static void on_transition(const struct slub_model_transition *t, void *arg)
{
	struct result *r = arg;

	r->transitions++;
	(void)t;
}

static void on_summary(const struct slub_model_summary *s, void *arg)
{
	struct result *r = arg;

	r->sum = *s;
	r->summaries++;
}

/* Feed events in the order of idx (NULL: as built); a discard notice is
 * given before event number notice_at (-1: none). */
static int run_end_cut_off; /* cfg.end_cut_off of run() */
static uint64_t run_cut_begin, run_cut_end, run_cut_lag; /* cfg.cut_* of run() */
static uint32_t run_foreign; /* the notice is of a stream without slub events */

static struct result run(const struct seqb *b, const int *idx, int notice_at)
{
	struct result r;
	struct slub_model_callbacks cb = { on_violation, on_transition, on_summary, &r, NULL };
	struct slub_model_config cfg = { 0 };
	struct slub_model *m;

	memset(&r, 0, sizeof(r));
	cfg.reorder_ns = 100000; /* 100 us: sequences are 1 us apart */
	cfg.end_cut_off = (uint32_t)run_end_cut_off;
	cfg.cut_begin_ns = run_cut_begin;
	cfg.cut_end_ns = run_cut_end;
	cfg.cut_lag_ns = run_cut_lag;
	m = slub_model_new(&cfg, &cb);
	if (!m)
		FATAL("slub_model_new");
	for (int i = 0; i < b->n; i++) {
		if (i == notice_at) {
			struct slub_model_discard d = { 0, 5, b->ev[i].ts - 500, b->ev[i].ts, 1,
							run_foreign };

			slub_model_discarded(m, &d);
		}
		CHECK_EQ(slub_model_event(m, &b->ev[idx ? idx[i] : i]), 0);
	}
	slub_model_finish(m);
	slub_model_free(m);
	CHECK_EQ(r.summaries, 1);
	return r;
}

static void seq_init(struct seqb *b, uint32_t vpid, uint64_t slab)
{
	memset(b, 0, sizeof(*b));
	b->vpid = vpid;
	b->slab = slab;
	b->ts = 1000000;
}

static struct seqb B;

static uint32_t lock_id_of_test(uint32_t cache_id, int32_t node)
{
	return cache_id * 64 + (uint32_t)node; /* as the allocator numbers them */
}

static int is_word(const struct slub_model_event *e)
{
	switch (e->ev.type) {
	case SLUB_EV_SLAB_NEW:
	case SLUB_EV_FREEZE:
	case SLUB_EV_UNFREEZE:
	case SLUB_EV_TAKE_FREELIST:
	case SLUB_EV_FREE_REMOTE:
	case SLUB_EV_DRAIN_FREELIST:
		return 1;
	}
	return 0;
}

static void test_rules(void)
{
	struct result r;

	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	r = run(&B, NULL, -1);
	CHECK(r.violations == 0, "clean life: %lu violations, first: %s", r.violations, r.first);
	CHECK(r.transitions >= 15, "clean life: %lu transitions", r.transitions);
	CHECK_EQ(r.sum.slabs, 1);
	CHECK_EQ(r.sum.live_slabs, 0); /* discarded: its state is gone */
	CHECK_EQ(r.sum.gaps, 0);

	for (int m = 1; m < M_NR; m++) {
		seq_init(&B, 100, SLAB);
		life(&B, (enum mut)m);
		r = run(&B, NULL, -1);
		CHECK(r.by_rule[mut_rule[m]] >= 1, "change %d: rule %s not flagged (%lu violations, first: %s)",
		      m, slub_rule_id(mut_rule[m]), r.violations, r.first);
		CHECK(r.violations >= 1 && r.violations <= 4, "change %d (%s): %lu violations, first: %s",
		      m, slub_rule_id(mut_rule[m]), r.violations, r.first);
		if (r.violations && !strstr(r.first, slub_rule_id(mut_rule[m])))
			CHECK(0, "change %d: first violation is not %s: %s", m,
			      slub_rule_id(mut_rule[m]), r.first);
	}
	/* A violation carries the slab's history. */
	seq_init(&B, 100, SLAB);
	life(&B, M_DELTA);
	r = run(&B, NULL, -1);
	/* The free that took two objects is the one blamed, not the
	 * deactivate whose word no longer fits the wrong inuse. */
	CHECK(strstr(r.first, "R5-word-delta: free_remote") != NULL, "first: %s", r.first);
	CHECK(r.nr_history >= 3, "history of %u events", r.nr_history);
}

/*
 * slabinfo's walk (count_partial) changes no slab: a reader thread's hold
 * of the node's list_lock with a slabinfo_walk inside, while the slab
 * sits on the node partial list between deactivate_slab and
 * acquire_slab, gives no violation and no transition, and the slab's life
 * goes on as without it.
 */
static struct seqb W;

static void test_slabinfo_walk(void)
{
	struct result plain, walked;
	int at = -1;

	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	plain = run(&B, NULL, -1);
	seq_init(&W, 100, SLAB);
	for (int i = 0; i < B.n; i++) {
		struct slub_model_event e = B.ev[i];

		/* the holds after the reader's are one acquisition later */
		if (at >= 0 && e.ev.lock_id == LOCK0 && e.ev.lock_seq >= 2)
			e.ev.lock_seq++;
		W.ev[W.n++] = e;
		if (at < 0 && e.ev.type == SLUB_EV_LOCK_RELEASE && e.ev.lock_seq == 1) {
			struct slub_model_event *w;

			at = W.n;
			W.ts = e.ts;
			lock(&W, SLUB_EV_LOCK_ACQUIRE, 30, 3, LOCK0, 2);
			w = add(&W, SLUB_EV_SLABINFO_WALK, 30, 3);
			w->ev.slab = 0;
			w->ev.lock_id = LOCK0;
			w->ev.lock_seq = 2;
			w->ev.locked = 1;
			w->ev.count = w->ev.pages = 1;
			w->ev.size = 1;
			lock(&W, SLUB_EV_LOCK_RELEASE, 30, 3, LOCK0, 2);
			/* the next events keep their times, after the hold */
			for (int k = at; k < W.n; k++)
				W.ev[k].ts = e.ts + 1 + (uint64_t)(k - at);
		}
	}
	CHECK(at > 0, "no hold of seq 1 in the life");
	walked = run(&W, NULL, -1);
	CHECK(walked.violations == 0, "a walk under the lock: %lu violations, first: %s",
	      walked.violations, walked.first);
	CHECK_EQ(walked.transitions, plain.transitions);
	CHECK_EQ(walked.sum.events, plain.sum.events + 3);
	CHECK_EQ(walked.sum.slabs, 1);
	CHECK_EQ(walked.sum.live_slabs, 0);
}

/*
 * The owner rule's exception: a thread flushing another slot (shrink,
 * destroy) unfreezes that slot's slabs.  Slab frozen by slot 0 (thread
 * 10); thread 20 on cpu 5 flushes it.
 */
static void test_flush_other_slot(void)
{
	for (int k = 0; k < 4; k++) {
		struct slub_model_event *e;
		struct result r;

		seq_init(&B, 100, SLAB);
		e = add(&B, SLUB_EV_SLAB_NEW, 10, 0);
		word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 1, 0, 0);
		cpu_ev(&B, SLUB_EV_CPU_SLAB_LOAD, 10, 0, 0, 0);
		if (k < 2) {
			/* deactivate_slab() for slot 0 by cpu 5: a flush, or not */
			e = add(&B, SLUB_EV_UNFREEZE, 20, 5);
			word(e, SLUB_SITE_UNFREEZING_SLAB, 0x40, OBJS - 1, 0, 2, SLUB_DEST_TAIL, 1);
			e->ev.old.owner = 0;
			lock(&B, SLUB_EV_LOCK_ACQUIRE, 20, 5, LOCK0, 1);
			cpu_ev(&B, SLUB_EV_DEACTIVATE, 20, 5, k == 0 ? SLUB_DEACT_FLUSH
							     : SLUB_DEACT_NODE_MISMATCH,
			       SLUB_DEST_TAIL);
			B.ev[B.n - 1].ev.slot = 0;
		} else {
			/* unfreeze_partials() of slot 0's chain by cpu 5: the slab
			 * went on slot 0's chain by acquire_slab keeping its freelist */
			B.n = 0;
			e = add(&B, SLUB_EV_FREEZE, 10, 0);
			word(e, SLUB_SITE_ACQUIRE_SLAB, 0x40, OBJS - 1, 1, 2, 0, 1);
			cpu_ev(&B, SLUB_EV_CPU_PARTIAL_PUT, 10, 0, 0, 0);
			if (k == 2) {
				cpu_ev(&B, SLUB_EV_CPU_PARTIAL_DRAIN, 20, 5, SLUB_DEACT_FLUSH, 0);
				B.ev[B.n - 1].ev.slot = 0;
			}
			lock(&B, SLUB_EV_LOCK_ACQUIRE, 20, 5, LOCK0, 1);
			e = add(&B, SLUB_EV_UNFREEZE, 20, 5);
			word(e, SLUB_SITE_UNFREEZE_PARTIALS, 0x40, OBJS - 1, 0, 3, SLUB_DEST_TAIL, 1);
			e->ev.old.owner = 0;
		}
		r = run(&B, NULL, -1);
		if (k == 0 || k == 2)
			CHECK(r.violations == 0, "flush of another slot (%d): %s", k, r.first);
		else
			CHECK(r.by_rule[SLUB_RULE_OWNER] >= 1,
			      "unfreeze for another slot outside a flush (%d): %lu violations, %s", k,
			      r.violations, r.first);
	}

	/*
	 * The flush is judged as the unfreeze arrived: cpu 5 drains slot 0's
	 * chain and unfreezes the slab (seq 4) before a remote free's seq 3
	 * arrives; by then cpu 5 drains slot 1.  The unfreeze, applied after
	 * seq 3, is still slot 0's flush.
	 */
	struct slub_model_event *e;
	struct result r;

	seq_init(&B, 100, SLAB);
	e = add(&B, SLUB_EV_FREEZE, 10, 0);
	word(e, SLUB_SITE_ACQUIRE_SLAB, 0x40, OBJS - 1, 1, 2, 0, 1);
	cpu_ev(&B, SLUB_EV_CPU_PARTIAL_PUT, 10, 0, 0, 0);
	cpu_ev(&B, SLUB_EV_CPU_PARTIAL_DRAIN, 20, 5, SLUB_DEACT_FLUSH, 0);
	B.ev[B.n - 1].ev.slot = 0;
	lock(&B, SLUB_EV_LOCK_ACQUIRE, 20, 5, LOCK0, 1);
	e = add(&B, SLUB_EV_UNFREEZE, 20, 5);
	word(e, SLUB_SITE_UNFREEZE_PARTIALS, 0x50, OBJS - 2, 0, 4, SLUB_DEST_TAIL, 1);
	e->ev.old.owner = 0;
	list_op(&B, SLUB_EV_ADD_PARTIAL, 20, 5, 1, 4, SLUB_DEST_TAIL);
	lock(&B, SLUB_EV_LOCK_RELEASE, 20, 5, LOCK0, 1);
	cpu_ev(&B, SLUB_EV_CPU_PARTIAL_DRAIN, 20, 5, SLUB_DEACT_FLUSH, 0);
	B.ev[B.n - 1].ev.slot = 1;
	B.ev[B.n - 1].ev.slab = SLAB2;
	e = add(&B, SLUB_EV_FREE_REMOTE, 11, 1);
	word(e, SLUB_SITE_SLAB_FREE, 0x50, OBJS - 2, 1, 3, 0, 0);
	e->ev.new.owner = SLUB_OWNER_UNKNOWN;
	r = run(&B, NULL, -1);
	CHECK(r.violations == 0, "a flush judged late, after the next drain: %s", r.first);
}

/*
 * R4, the leak: deactivate_slab() unfreezes the slab to the partial list
 * under list_lock and must add it before the lock drops.  k 0: it does
 * (clean); 1: it never does, and the free that empties it later ends a
 * critical section with the slab still on no list; 2: the trace ends
 * first; 3: it adds it right after the unlock, which is R3's alone; 4: as
 * 2, but events were lost after the unlock (the add may be among them).
 */
static void test_leak(void)
{
	for (int k = 0; k < 5; k++) {
		struct slub_model_event *e;
		struct result r;

		seq_init(&B, 100, SLAB);
		e = add(&B, SLUB_EV_SLAB_NEW, 10, 0);
		word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 1, 0, 0);
		cpu_ev(&B, SLUB_EV_CPU_SLAB_LOAD, 10, 0, 0, 0);
		lock(&B, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 1);
		e = add(&B, SLUB_EV_UNFREEZE, 10, 0);
		word(e, SLUB_SITE_UNFREEZING_SLAB, 0x40, 1, 0, 2, SLUB_DEST_TAIL, 1);
		cpu_ev(&B, SLUB_EV_DEACTIVATE, 10, 0, SLUB_DEACT_NODE_MISMATCH, SLUB_DEST_TAIL);
		if (k == 0)
			list_op(&B, SLUB_EV_ADD_PARTIAL, 10, 0, 1, 2, SLUB_DEST_TAIL);
		lock(&B, SLUB_EV_LOCK_RELEASE, 10, 0, LOCK0, 1);
		if (k == 3)
			list_op(&B, SLUB_EV_ADD_PARTIAL, 10, 0, 1, 2, SLUB_DEST_TAIL);
		if (k == 4) {
			/* another thread's critical section, after a notice */
			lock(&B, SLUB_EV_LOCK_ACQUIRE, 12, 2, LOCK0, 2);
			lock(&B, SLUB_EV_LOCK_RELEASE, 12, 2, LOCK0, 2);
		} else if (k != 2) {
			/* __slab_free() of the last object by cpu 1, under the lock */
			lock(&B, SLUB_EV_LOCK_ACQUIRE, 11, 1, LOCK0, 2);
			e = add(&B, SLUB_EV_FREE_REMOTE, 11, 1);
			word(e, SLUB_SITE_SLAB_FREE, 0x50, 0, 0, 3, 0, 1);
			if (k != 1)
				list_op(&B, SLUB_EV_REMOVE_PARTIAL, 11, 1, 2, 3, 0);
			lock(&B, SLUB_EV_LOCK_RELEASE, 11, 1, LOCK0, 2);
			e = add(&B, SLUB_EV_SLAB_DISCARD, 11, 1);
			word(e, SLUB_SITE_NONE, 0x50, 0, 0, 3, 0, 0);
		}
		r = run(&B, NULL, k == 4 ? B.n - 2 : -1);
		if (k == 0 || k == 4) {
			CHECK(r.violations == 0,
			      "listed, or events lost (%d): %lu violations, first: %s", k,
			      r.violations, r.first);
		} else if (k == 3) {
			CHECK(r.by_rule[SLUB_RULE_LIST_UNLOCKED] == 1 &&
				      r.by_rule[SLUB_RULE_LIST_AT_UNLOCK] == 0,
			      "late add_partial: %lu R3, %lu R4 (%lu violations, first: %s)",
			      r.by_rule[SLUB_RULE_LIST_UNLOCKED],
			      r.by_rule[SLUB_RULE_LIST_AT_UNLOCK], r.violations, r.first);
		} else {
			CHECK(r.violations == 1 && r.by_rule[SLUB_RULE_LIST_AT_UNLOCK] == 1 &&
				      strstr(r.first, "leaked"),
			      "leaked slab (%d): %lu violations, first: %s", k, r.violations,
			      r.first);
		}
	}
}

/* Object rules (family 8) need the object events. */
static void test_objects(void)
{
	for (int k = 0; k < 5; k++) {
		struct slub_model_event *e;
		struct result r;

		seq_init(&B, 100, SLAB);
		e = add(&B, SLUB_EV_FREE, 10, 0); /* object events on before the slab */
		e->ev.slab = SLAB2;
		e->ev.object = SLAB2 + 64;
		e = add(&B, SLUB_EV_SLAB_NEW, 10, 0);
		word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 1, 0, 0);
		e = add(&B, SLUB_EV_ALLOC, 10, 0);
		e->ev.object = SLAB + 64;
		if (k == 1) {
			e = add(&B, SLUB_EV_ALLOC, 10, 0);
			e->ev.object = SLAB + 64;
		}
		e = add(&B, SLUB_EV_FREE, 11, 1);
		e->ev.object = SLAB + 64;
		if (k == 2)
			e->ev.slab = SLAB2;
		if (k == 4)
			e->ev.cache_id = 2; /* the right slab, another cache */
		if (k == 3) {
			e = add(&B, SLUB_EV_FREE, 11, 1);
			e->ev.object = SLAB + 64;
		}
		r = run(&B, NULL, -1);
		if (k == 0)
			CHECK(r.violations == 0, "objects clean: %s", r.first);
		if (k == 1)
			CHECK(r.by_rule[SLUB_RULE_DOUBLE_ALLOC] == 1 && r.violations == 1, "%s", r.first);
		if (k == 2 || k == 4)
			CHECK(r.by_rule[SLUB_RULE_OBJECT_SLAB] == 1 && r.violations == 1, "%d: %s", k,
			      r.first);
		if (k == 3)
			CHECK(r.by_rule[SLUB_RULE_DOUBLE_FREE] == 1 && r.violations == 1, "%s", r.first);
	}
}

/* Timestamps inverting seq order pass; real gaps are lost updates unless
 * a discarded-events notice covers them. */
static void test_reorder_and_discards(void)
{
	int idx[NEV];
	struct result r;

	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	/* The first remote free (seq 2) arrives after take_freelist (seq 3)
	 * and after the next remote free (seq 4): its thread was preempted
	 * between its CAS and its tracepoint. */
	for (int i = 0; i < B.n; i++)
		idx[i] = i;
	CHECK_EQ(B.ev[2].ev.type, SLUB_EV_FREE_REMOTE);
	idx[2] = 3;
	idx[3] = 4;
	idx[4] = 2;
	r = run(&B, idx, -1);
	CHECK(r.violations == 0, "inverted timestamps: %lu violations, first: %s", r.violations,
	      r.first);
	CHECK(r.sum.reorder_max_pending >= 2, "nothing waited (%llu)",
	      (unsigned long long)r.sum.reorder_max_pending);
	CHECK_EQ(r.sum.reorder_exceeded, 0);

	/* The same with the event lost: a lost update... */
	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	for (int i = 0, j = 0; i < B.n; i++)
		if (i != 2)
			idx[j++] = i;
	B.n--;
	r = run(&B, idx, -1);
	CHECK(r.by_rule[SLUB_RULE_WORD_CHAIN] == 1, "lost event without notice: %lu violations, %s",
	      r.violations, r.first);
	CHECK_EQ(r.sum.gaps, 0);

	/* In-process at exit(), the missing update may still be on its way
	 * (end_cut_off): the gap open at the end is not judged. */
	run_end_cut_off = 1;
	r = run(&B, idx, -1);
	run_end_cut_off = 0;
	CHECK(r.violations == 0, "gap open at the end with end_cut_off: %lu violations, %s",
	      r.violations, r.first);

	/* A window cut out of a longer run (a snapshot): the missing update's
	 * event may lie before the window's start, when every event before
	 * the gap lies within the lag after it... */
	run_cut_lag = 5000;
	run_cut_begin = B.ev[1].ts - 1000;
	r = run(&B, idx, -1);
	CHECK(r.violations == 0 && r.sum.cut_gaps == 1 && r.sum.cut_lag_ns == 5000,
	      "gap near a cut input's start: %lu violations, %lu cut gaps, %s", r.violations,
	      r.sum.cut_gaps, r.first);
	/* ...but not when the slab's events before it came later than that. */
	run_cut_begin = B.ev[1].ts - 10000;
	r = run(&B, idx, -1);
	CHECK(r.by_rule[SLUB_RULE_WORD_CHAIN] == 1 && r.sum.cut_gaps == 0,
	      "gap far from a cut input's start: %lu violations, %lu cut gaps", r.violations,
	      r.sum.cut_gaps);
	/* After the window's end, when the gap is still open at the end and
	 * the first event after it lies within the lag before the end. */
	run_cut_begin = B.ev[0].ts - 1000000;
	run_cut_end = B.ev[B.n - 1].ts + 1000;
	run_cut_lag = run_cut_end - B.ev[2].ts; /* idx skips event 2 of the life */
	r = run(&B, idx, -1);
	CHECK(r.violations == 0 && r.sum.cut_gaps == 1,
	      "gap open at a cut input's end: %lu violations, %lu cut gaps, %s", r.violations,
	      r.sum.cut_gaps, r.first);
	run_cut_lag -= 2000;
	r = run(&B, idx, -1);
	CHECK(r.by_rule[SLUB_RULE_WORD_CHAIN] == 1 && r.sum.cut_gaps == 0,
	      "gap open far from a cut input's end: %lu violations, %lu cut gaps", r.violations,
	      r.sum.cut_gaps);
	/* Without a lag given, the longest delay the input showed and at
	 * least 50 ms: a life of a few microseconds lies within it. */
	run_cut_lag = 0;
	r = run(&B, idx, -1);
	CHECK(r.violations == 0 && r.sum.cut_gaps == 1 &&
		      r.sum.cut_lag_ns == SLUB_MODEL_DEFAULT_CUT_LAG_NS,
	      "default lag: %lu violations, %lu cut gaps, lag %lu", r.violations, r.sum.cut_gaps,
	      r.sum.cut_lag_ns);
	run_cut_begin = run_cut_end = 0;

	/* ...unless LTTng said it dropped events. */
	r = run(&B, idx, 2);
	CHECK(r.violations == 0, "lost event with a notice: %lu violations, first: %s", r.violations,
	      r.first);
	CHECK_EQ(r.sum.gaps, 1);
	CHECK_EQ(r.sum.events_discarded, 5);
	CHECK_EQ(r.sum.foreign_discarded, 0);
	CHECK(r.sum.slabs_resynced >= 1, "no slab resynchronised");
	/* The same notice from record's statedump channel (LTTng-UST's own
	 * events): counted apart, but the model still does not judge over
	 * it, since a registration's marker may be what was lost. */
	run_foreign = 1;
	r = run(&B, idx, 2);
	run_foreign = 0;
	CHECK(r.violations == 0, "lost event with a foreign notice: %lu violations, first: %s",
	      r.violations, r.first);
	CHECK_EQ(r.sum.gaps, 1);
	CHECK_EQ(r.sum.events_discarded, 0);
	CHECK_EQ(r.sum.foreign_discarded, 5);
	B.n++;

	/* A lost lock release under a notice: no lock rule fires. */
	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	for (int i = 0, j = 0; i < B.n; i++)
		if (B.ev[i].ev.type != SLUB_EV_LOCK_RELEASE || j != i)
			idx[j++] = i;
	{
		int k = 0, drop = -1;

		for (int i = 0; i < B.n; i++)
			if (B.ev[i].ev.type == SLUB_EV_LOCK_RELEASE) {
				drop = i;
				break;
			}
		for (int i = 0; i < B.n; i++)
			if (i != drop)
				idx[k++] = i;
		int n = B.n;

		B.n = k;
		r = run(&B, idx, drop);
		CHECK(r.violations == 0, "lost release with a notice: %s", r.first);
		r = run(&B, idx, -1);
		CHECK(r.violations >= 1, "lost release without a notice went unnoticed");
		B.n = n;
	}
}

/* fork, exec, thread churn, a trace that starts mid-run. */
static void test_processes(void)
{
	struct slub_model_event *e;
	struct result r;

	/* Mid-run: the first events of a slab are in the middle of its life. */
	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	for (int cut = 1; cut < B.n - 1; cut++) {
		struct seqb *tail = malloc(sizeof(*tail));

		if (!tail)
			FATAL("malloc");
		seq_init(tail, 100, SLAB);
		memcpy(tail->ev, B.ev + cut, (size_t)(B.n - cut) * sizeof(B.ev[0]));
		tail->n = B.n - cut;
		r = run(tail, NULL, -1);
		CHECK(r.violations == 0, "trace starting at event %d (%s): %s", cut,
		      slub_event_name(B.ev[cut].ev.type), r.first);
		free(tail);
	}

	/* Mid-run, the slab's first event an unfreeze_partials: then emptied
	 * by a remote free, listed off and discarded. */
	seq_init(&B, 100, SLAB);
	lock(&B, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 7);
	e = add(&B, SLUB_EV_UNFREEZE, 10, 0);
	word(e, SLUB_SITE_UNFREEZE_PARTIALS, 0x40, 1, 0, 608, SLUB_DEST_TAIL, 1);
	list_op(&B, SLUB_EV_ADD_PARTIAL, 10, 0, 7, 608, SLUB_DEST_TAIL);
	lock(&B, SLUB_EV_LOCK_RELEASE, 10, 0, LOCK0, 7);
	lock(&B, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 8);
	e = add(&B, SLUB_EV_FREE_REMOTE, 10, 0);
	word(e, SLUB_SITE_SLAB_FREE, 0x80, 0, 0, 609, 0, 1);
	list_op(&B, SLUB_EV_REMOVE_PARTIAL, 10, 0, 8, 609, 0);
	lock(&B, SLUB_EV_LOCK_RELEASE, 10, 0, LOCK0, 8);
	e = add(&B, SLUB_EV_SLAB_DISCARD, 10, 0);
	word(e, SLUB_SITE_NONE, 0x80, 0, 0, 609, 0, 0);
	r = run(&B, NULL, -1);
	CHECK(r.violations == 0, "mid-run unfreeze then discard: %s", r.first);
	CHECK_EQ(r.sum.live_slabs, 0);

	/* fork: the child (new vpid) has the parent's slab frozen for its
	 * (inherited) cpu 0 and starts with a remote free and an unfreeze. */
	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	B.vpid = 101;
	e = add(&B, SLUB_EV_FREE_REMOTE, 200, 3);
	word(e, SLUB_SITE_SLAB_FREE, 0xe0, 5, 1, 40, 0, 0);
	e = add(&B, SLUB_EV_TAKE_FREELIST, 200, 0);
	word(e, SLUB_SITE_GET_FREELIST, 0, OBJS, 1, 41, 0, 0);
	r = run(&B, NULL, -1);
	CHECK(r.violations == 0, "fork: %s", r.first);
	CHECK_EQ(r.sum.slabs, 2);

	/* exec: same vpid, new procname; the new image's slab at the same
	 * address starts over. */
	seq_init(&B, 100, SLAB);
	e = add(&B, SLUB_EV_SLAB_NEW, 10, 0);
	word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 7, 0, 0);
	e->procname = "sh";
	lock(&B, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 9);
	e = add(&B, SLUB_EV_SLAB_NEW, 10, 0);
	word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 1, 0, 0);
	e->procname = "server";
	lock(&B, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 1);
	lock(&B, SLUB_EV_LOCK_RELEASE, 10, 0, LOCK0, 1);
	r = run(&B, NULL, -1);
	CHECK(r.violations == 0, "exec: %s", r.first);

	/* exec seen as a second cache_create of the same id */
	{
		struct slub_cache_info info = { .name = "kmalloc-64", .objects = OBJS };

		seq_init(&B, 100, SLAB);
		e = add(&B, SLUB_EV_CACHE_CREATE, 10, 0);
		e->ev.info = &info;
		e = add(&B, SLUB_EV_SLAB_NEW, 10, 0);
		word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 7, 0, 0);
		cpu_ev(&B, SLUB_EV_CPU_SLAB_LOAD, 10, 0, 0, 0);
		e = add(&B, SLUB_EV_CACHE_CREATE, 10, 0);
		e->ev.info = &info;
		e = add(&B, SLUB_EV_SLAB_NEW, 10, 0);
		word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 1, 0, 0);
		cpu_ev(&B, SLUB_EV_CPU_SLAB_LOAD, 10, 0, 0, 0);
		r = run(&B, NULL, -1);
		CHECK(r.violations == 0, "exec by cache_create: %s", r.first);
	}

	/* Thread churn: 150 threads, one lock, one partial slab moved between
	 * them; recycled cpu ids; each thread exits with a flush. */
	seq_init(&B, 100, SLAB);
	{
		struct seqb *c = malloc(sizeof(*c));
		unsigned s = 1;
		uint64_t lseq = 0;

		if (!c)
			FATAL("malloc");
		/* a long sequence in chunks: one model run */
		struct slub_model_config cfg = { 0 };
		struct result rr;
		struct slub_model_callbacks cb = { on_violation, on_transition, on_summary, &rr, NULL };
		struct slub_model *m;

		memset(&rr, 0, sizeof(rr));
		m = slub_model_new(&cfg, &cb);
		if (!m)
			FATAL("slub_model_new");
		for (int th = 0; th < 150; th++) {
			uint32_t tid = 1000 + th;
			int cpu = th % 3;

			seq_init(c, 100, SLAB);
			c->ts = 1000000 + (uint64_t)th * 100000;
			if (th == 0) {
				e = add(c, SLUB_EV_SLAB_NEW, tid, cpu);
				word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, s, 0, 0);
			} else {
				lock(c, SLUB_EV_LOCK_ACQUIRE, tid, cpu, LOCK0, ++lseq);
				e = add(c, SLUB_EV_FREEZE, tid, cpu);
				word(e, SLUB_SITE_ACQUIRE_SLAB, 0, OBJS, 1, ++s, 0, 1);
				list_op(c, SLUB_EV_REMOVE_PARTIAL, tid, cpu, lseq, s, 0);
				lock(c, SLUB_EV_LOCK_RELEASE, tid, cpu, LOCK0, lseq);
			}
			cpu_ev(c, SLUB_EV_CPU_SLAB_LOAD, tid, cpu, 0, 0);
			e = add(c, SLUB_EV_FREE_REMOTE, tid + 1, cpu + 3);
			word(e, SLUB_SITE_SLAB_FREE, 0x100 + (uint64_t)th, OBJS - 1, 1, ++s, 0, 0);
			lock(c, SLUB_EV_LOCK_ACQUIRE, tid, cpu, LOCK0, ++lseq);
			e = add(c, SLUB_EV_UNFREEZE, tid, cpu);
			word(e, SLUB_SITE_UNFREEZING_SLAB, 0x100 + (uint64_t)th, OBJS - 1, 0, ++s,
			     SLUB_DEST_TAIL, 1);
			cpu_ev(c, SLUB_EV_DEACTIVATE, tid, cpu, SLUB_DEACT_FLUSH, SLUB_DEST_TAIL);
			list_op(c, SLUB_EV_ADD_PARTIAL, tid, cpu, lseq, s, SLUB_DEST_TAIL);
			lock(c, SLUB_EV_LOCK_RELEASE, tid, cpu, LOCK0, lseq);
			e = add(c, SLUB_EV_THREAD_FLUSH, tid, cpu);
			e->ev.slab = 0;
			for (int i = 0; i < c->n; i++)
				slub_model_event(m, &c->ev[i]);
		}
		slub_model_finish(m);
		CHECK(rr.violations == 0, "thread churn: %lu violations, first: %s", rr.violations,
		      rr.first);
		CHECK(rr.sum.applied > 1000, "churn applied %llu", (unsigned long long)rr.sum.applied);
		slub_model_free(m);
		free(c);
	}
}

/* A violation waits for the stack of its event when that type has stacks. */
static void test_stack(void)
{
	struct result r;
	struct slub_model_callbacks cb = { on_violation, NULL, on_summary, &r, NULL };
	struct slub_model_config cfg = { .stack_types = 1ull << SLUB_EV_FREE_REMOTE };
	struct slub_model *m;
	uint64_t ips[3] = { 0x401000, 0x401100, 0x401200 };

	seq_init(&B, 100, SLAB);
	life(&B, M_DELTA);
	memset(&r, 0, sizeof(r));
	m = slub_model_new(&cfg, &cb);
	if (!m)
		FATAL("slub_model_new");
	for (int i = 0; i < B.n; i++) {
		slub_model_event(m, &B.ev[i]);
		if (B.ev[i].ev.type == SLUB_EV_FREE_REMOTE)
			slub_model_stack(m, B.ev[i].vpid, B.ev[i].vtid, SLUB_EV_FREE_REMOTE,
					 B.ev[i].ev.slab, ips, 3);
	}
	slub_model_finish(m);
	slub_model_free(m);
	CHECK(r.by_rule[SLUB_RULE_WORD_DELTA] >= 1, "%s", r.first);
	CHECK(r.stack_nr == 3 && r.stack0 == 0x401000, "stack of %u ips, first %#llx", r.stack_nr,
	      (unsigned long long)r.stack0);
}

/* Memory comes from the hook when one is given. */
static size_t hook_bytes;
static void *hook_alloc(size_t n, void *arg)
{
	(void)arg;
	hook_bytes += n;
	return calloc(1, n);
}
static void hook_free(void *p, size_t n, void *arg)
{
	(void)arg;
	hook_bytes -= n;
	free(p);
}

static void test_memory_hook(void)
{
	struct slub_model_mem mem = { hook_alloc, hook_free, NULL };
	struct slub_model_config cfg = { .mem = &mem };
	struct slub_model *m = slub_model_new(&cfg, NULL);
	struct slub_model_summary s;

	CHECK(m != NULL);
	CHECK(hook_bytes > 0, "the hook was not used");
	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	for (int i = 0; i < B.n; i++)
		slub_model_event(m, &B.ev[i]);
	slub_model_finish(m);
	slub_model_get_summary(m, &s);
	CHECK_EQ(s.violations, 0);
	CHECK(s.peak_mem_bytes >= s.mem_bytes && s.mem_bytes == hook_bytes,
	      "mem %llu peak %llu hook %zu", (unsigned long long)s.mem_bytes,
	      (unsigned long long)s.peak_mem_bytes, hook_bytes);
	slub_model_free(m);
	CHECK_EQ(hook_bytes, 0);
}

/* The tables: stable ids, every family, edges well formed. */
static void test_tables(void)
{
	unsigned fam = 0;

	CHECK_EQ(slub_rule_count(), SLUB_RULE_NR);
	for (unsigned r = 0; r < slub_rule_count(); r++) {
		CHECK(slub_rule_lookup(slub_rule_id(r)) == (int)r, "%s", slub_rule_id(r));
		CHECK(strlen(slub_rule_meaning(r)) > 10 && strlen(slub_rule_kernel_fn(r)) > 3);
		fam |= 1u << slub_rule_family(r);
	}
	CHECK_EQ(fam, 0x7ff); /* families 0 (the table) and 1-9, 10 the sheaves generation's */
	CHECK(slub_sheaves_transition_count() >= 8);
	for (unsigned i = 0; i < slub_sheaves_transition_count(); i++) {
		const struct slub_transition *t = slub_sheaves_transition_get(i);

		CHECK(t->before != SLUB_STATE_CPU_ACTIVE && t->before != SLUB_STATE_CPU_PARTIAL &&
		      t->after != SLUB_STATE_CPU_ACTIVE && t->after != SLUB_STATE_CPU_PARTIAL &&
		      t->type < SLUB_EV_NR && t->kernel_fn && t->note);
	}
	for (unsigned r = 0; r < slub_rule_count(); r++)
		CHECK((slub_rule_family(r) == 10) == (slub_rule_generation(r) == SLUB_RULE_GEN_SHEAVES),
		      "%s", slub_rule_id(r));
	CHECK_EQ(slub_rule_lookup("word-chain"), SLUB_RULE_WORD_CHAIN);
	CHECK_EQ(slub_rule_lookup("R1-owner"), SLUB_RULE_OWNER);
	CHECK(slub_transition_count() > 20);
	for (unsigned i = 0; i < slub_transition_count(); i++) {
		const struct slub_transition *t = slub_transition_get(i);

		CHECK(t->before < SLUB_STATE_NR && t->after < SLUB_STATE_NR &&
		      t->type < SLUB_EV_NR && t->kernel_fn && t->note);
	}
}

/*
 * Resynchronisation applies each event's effect (table.c): for every edge
 * of the table, an event that takes it must lead, by its effect alone and
 * from the edge's state before, to the edge's state after, and onto the
 * list the edge names.  An edge and an effect that disagree would make a
 * slab resynchronised on that event differ from one that took the edge.
 */
static void test_effects_match_edges(void)
{
	static const uint8_t dest_of[SLUB_STATE_NR] = {
		[SLUB_STATE_NODE_PARTIAL] = SLUB_DEST_TAIL,
		[SLUB_STATE_FULL] = SLUB_DEST_FULL,
		[SLUB_STATE_DISCARDED] = SLUB_DEST_DISCARD,
	};

	for (unsigned i = 0; i < slub_transition_count(); i++) {
		const struct slub_transition *t = slub_transition_get(i);
		const struct slub_effect *fx = slub_effect_of(t->type);
		int frozen = t->after == SLUB_STATE_CPU_ACTIVE || t->after == SLUB_STATE_CPU_PARTIAL;
		struct slub_event ev;
		char cond[64];

		CHECK(fx != NULL, "%s has no effect row", slub_event_name(t->type));
		if (!fx)
			continue;
		/* an event that takes this edge: its site, its conditions */
		memset(&ev, 0, sizeof(ev));
		ev.type = t->type;
		ev.site = t->site;
		ev.list = t->cond & SLUB_COND_DEST ? dest_of[t->after] : SLUB_DEST_NONE;
		ev.new.objects = 16;
		ev.new.frozen = frozen;
		ev.new.inuse = t->cond & SLUB_COND_EMPTY ? 0 : 8;
		ev.new.freelist = (t->cond & SLUB_COND_TAKES) || t->after == SLUB_STATE_FULL
					  ? 0 : 0x1000;
		CHECK(slub_find_edge(t->before, &ev) == t, "edge %u (%s %s at %s) not found for its "
		      "own event", i, slub_state_name(t->before), slub_event_name(t->type),
		      slub_site_name(t->site));
		CHECK(slub_effect_state(fx, &ev, t->before) == t->after,
		      "edge %u: %s --%s at %s [%s]--> %s, its effect gives %s", i,
		      slub_state_name(t->before), slub_event_name(t->type),
		      slub_site_name(t->site), slub_cond_str(t->cond, cond, sizeof(cond)),
		      slub_state_name(t->after),
		      slub_state_name(slub_effect_state(fx, &ev, t->before)));
		if (t->list != SLUB_LIST_NONE || is_list_op(t->type))
			CHECK(fx->list == t->list, "edge %u: %s onto list %s, its effect says %s", i,
			      slub_event_name(t->type), slub_model_list_name(t->list),
			      fx->list == FX_KEEP ? "unchanged" : slub_model_list_name(fx->list));
	}
}

/*
 * A forked child's events between fork() and its registration with the
 * session daemon are not recorded: acquisition 2 of the child's lock is
 * missing.  Its statedump (slub_model_registered) forgives that gap; with
 * no registration in between it is a lost acquisition.
 */
static void test_registration(void)
{
	for (int reg = 0; reg < 2; reg++) {
		struct result r;
		struct slub_model_callbacks cb = { on_violation, on_transition, on_summary, &r, NULL };
		struct slub_model_config cfg = { 0 };
		struct slub_model *m;

		seq_init(&B, 300, SLAB);
		lock(&B, SLUB_EV_LOCK_ACQUIRE, 300, 0, LOCK0, 1);
		lock(&B, SLUB_EV_LOCK_RELEASE, 300, 0, LOCK0, 1);
		lock(&B, SLUB_EV_LOCK_ACQUIRE, 300, 0, LOCK0, 3);
		lock(&B, SLUB_EV_LOCK_RELEASE, 300, 0, LOCK0, 3);
		memset(&r, 0, sizeof(r));
		cfg.reorder_ns = 100000;
		m = slub_model_new(&cfg, &cb);
		if (!m)
			FATAL("slub_model_new");
		for (int i = 0; i < B.n; i++) {
			if (i == 2 && reg)
				slub_model_registered(m, 300, B.ev[1].ts + 500);
			CHECK_EQ(slub_model_event(m, &B.ev[i]), 0);
		}
		/* a process without events yet is left alone */
		slub_model_registered(m, 301, B.ev[B.n - 1].ts + 10);
		slub_model_finish(m);
		slub_model_free(m);
		if (reg) {
			CHECK(r.violations == 0, "after a registration: %lu violations, first: %s",
			      r.violations, r.first);
			CHECK_EQ(r.sum.gaps, 0);
		} else {
			CHECK(r.by_rule[SLUB_RULE_LOCK_SEQ] == 1,
			      "no registration: %lu violations, first: %s", r.violations, r.first);
		}
	}
}

/*
 * Two gaps on one slab, each explained by a notice; an update of the first
 * gap then arrives very late.  It belongs to a given-up gap: dropped, not
 * a seq produced twice.
 */
static void test_late_after_two_gaps(void)
{
	struct slub_model_event *e, late;
	struct result r;
	struct slub_model_callbacks cb = { on_violation, on_transition, on_summary, &r, NULL };
	struct slub_model_config cfg = { 0 };
	struct slub_model *m;
	int have_late = 0;

	seq_init(&B, 100, SLAB);
	e = add(&B, SLUB_EV_SLAB_NEW, 10, 0);
	word(e, SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 1, 0, 0);
	for (unsigned seq = 2; seq <= 61; seq++) {
		B.ts += 20000; /* 21 us apart: the 100 us window passes */
		if (!(seq & 1)) {
			e = add(&B, SLUB_EV_FREE_REMOTE, 11, 1);
			word(e, SLUB_SITE_SLAB_FREE, 0xa0, OBJS - 1, 1, seq, 0, 0);
			e->ev.new.owner = SLUB_OWNER_UNKNOWN;
		} else {
			e = add(&B, SLUB_EV_TAKE_FREELIST, 10, 0);
			word(e, SLUB_SITE_GET_FREELIST, 0, OBJS, 1, seq, 0, 0);
		}
		if (seq == 5) {
			late = *e;
			have_late = 1;
		}
	}
	CHECK(have_late, "no late event");
	memset(&r, 0, sizeof(r));
	cfg.reorder_ns = 100000;
	m = slub_model_new(&cfg, &cb);
	if (!m)
		FATAL("slub_model_new");
	for (int i = 0; i < B.n; i++) {
		unsigned seq = B.ev[i].ev.new.seq;

		if (seq == 5 || seq == 30) {
			struct slub_model_discard d = { 0, 1, B.ev[i].ts - 500, B.ev[i].ts + 500, 1,
							0 };

			slub_model_discarded(m, &d);
			continue;
		}
		CHECK_EQ(slub_model_event(m, &B.ev[i]), 0);
	}
	CHECK_EQ(slub_model_event(m, &late), 0);
	slub_model_finish(m);
	slub_model_free(m);
	CHECK(r.violations == 0, "late update of the first of two gaps: %lu violations, first: %s",
	      r.violations, r.first);
	CHECK_EQ(r.sum.gaps, 2);
}

/* ---- a seq recorded twice ---- */

/* A test that would hang fails instead. */
static void on_alarm(int sig)
{
	static const char msg[] = "test_model: the model did not terminate (seq twice)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void bounded(unsigned seconds)
{
	signal(SIGALRM, on_alarm);
	alarm(seconds);
}

static int twin_shows(const struct result *r, const char *what)
{
	return strstr(r->twin, what) != NULL;
}

/*
 * What a broken cmpxchg records: the take_freelist at seq 3 claims seq 4,
 * which the next remote free claims too (seq 3 is never seen).  Both wait
 * behind the gap; once it is given up the first one applies and the other
 * can never apply: it is reported and dropped, and finish returns.
 */
static void test_seq_twice_conflict(void)
{
	struct result r;
	int n3 = -1;

	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	for (int i = 0; i < B.n; i++)
		if (B.ev[i].ev.type == SLUB_EV_TAKE_FREELIST && B.ev[i].ev.new.seq == 3)
			n3 = i;
	CHECK(n3 >= 0, "no take_freelist at seq 3");
	B.ev[n3].ev.new.seq = 4;
	bounded(20);
	r = run(&B, NULL, -1);
	alarm(0);
	CHECK(r.twins == 1, "conflicting twin: %u seq-twice findings, first %s", r.twins, r.first);
	CHECK(r.by_rule[SLUB_RULE_WORD_CHAIN] >= 2,
	      "the gap at seq 3 and the twin at seq 4 are both lost updates: %lu",
	      r.by_rule[SLUB_RULE_WORD_CHAIN]);
	/* both events: the applied take_freelist and the remote free */
	CHECK(twin_shows(&r, "seq 4 produced twice") && twin_shows(&r, "take_freelist") &&
		      twin_shows(&r, "free_remote") && twin_shows(&r, "two updates"),
	      "twin detail: %s", r.twin);
	CHECK(r.twin_history > 0, "the twin's report shows the slab's history");
}

/*
 * A trace read twice (a stream and a copy of it): every event comes twice,
 * interleaved by timestamp, and the first remote free arrives after the
 * take_freelist that follows it (a tracepoint fires after its CAS), so
 * both copies of seq 3 wait together.  Each repeated word event is an
 * identical twin: reported, dropped.  With more events a window later,
 * model_expire() gives the slab up in the middle of the trace: it must return too.
 */
static void test_seq_twice_copy(int expire_mid_trace)
{
	static struct seqb twice;
	struct result r;
	struct slub_model_callbacks cb = { on_violation, on_transition, on_summary, &r, NULL };
	struct slub_model_config cfg = { 0 };
	struct slub_model *m;
	int i2 = -1, i3 = -1, words = 0;

	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	for (int i = 0; i < B.n; i++) {
		if (is_word(&B.ev[i]))
			words++;
		if (is_word(&B.ev[i]) && B.ev[i].ev.new.seq == 2)
			i2 = i;
		if (is_word(&B.ev[i]) && B.ev[i].ev.new.seq == 3)
			i3 = i;
	}
	CHECK(i2 >= 0 && i3 == i2 + 1, "life: seq 2 then 3 (%d %d)", i2, i3);
	seq_init(&twice, 100, SLAB);
	for (int i = 0; i < B.n; i++) {
		int j = i == i2 ? i3 : i == i3 ? i2 : i;

		twice.ev[twice.n++] = B.ev[j];
		twice.ev[twice.n++] = B.ev[j];
	}
	memset(&r, 0, sizeof(r));
	cfg.reorder_ns = 100000;
	m = slub_model_new(&cfg, &cb);
	if (!m)
		FATAL("slub_model_new");
	bounded(20);
	for (int i = 0; i < twice.n; i++)
		CHECK_EQ(slub_model_event(m, &twice.ev[i]), 0);
	if (expire_mid_trace) {
		/* another slab, a window later: the reorder window passes */
		struct slub_model_event e = twice.ev[0];

		e.ev.slab = SLAB2;
		e.ts += 10 * cfg.reorder_ns;
		CHECK_EQ(slub_model_event(m, &e), 0);
		CHECK(r.twins > 0, "model_expire() reported no twin");
	}
	slub_model_finish(m);
	alarm(0);
	slub_model_free(m);
	/* every repeated word event, slab_new included, is one twin */
	CHECK(r.twins == (unsigned)words,
	      "copied trace: %u seq-twice findings for %d word events", r.twins, words);
	CHECK(twin_shows(&r, "the same") && twin_shows(&r, "twice"), "twin detail: %s", r.twin);
	CHECK_EQ(r.summaries, 1);
}

/*
 * Arbitrary sequences (a fixed pseudo-random stream: the same every run)
 * of slab, list, cpu, lock and object events over a few slabs, threads
 * and objects, with repeated, missing and wild seqs, discarded-events
 * notices and registrations.  The model must return from every call, and
 * its waiting events and memory stay bounded by the live state (a few
 * slabs, a small window), not by the trace length.
 */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return n ? (uint32_t)(rnd_state >> 11) % n : (uint32_t)(rnd_state >> 11); /* 0: any */
}

static void test_arbitrary_sequences(void)
{
	static const unsigned types[] = {
		SLUB_EV_SLAB_NEW,	 SLUB_EV_FREEZE,	  SLUB_EV_UNFREEZE,
		SLUB_EV_TAKE_FREELIST,	 SLUB_EV_FREE_REMOTE,	  SLUB_EV_DRAIN_FREELIST,
		SLUB_EV_SLAB_DISCARD,	 SLUB_EV_ADD_PARTIAL,	  SLUB_EV_REMOVE_PARTIAL,
		SLUB_EV_ADD_FULL,	 SLUB_EV_REMOVE_FULL,	  SLUB_EV_CPU_SLAB_LOAD,
		SLUB_EV_DEACTIVATE,	 SLUB_EV_CPU_PARTIAL_PUT, SLUB_EV_CPU_PARTIAL_TAKE,
		SLUB_EV_CPU_PARTIAL_DRAIN, SLUB_EV_LOCK_ACQUIRE,  SLUB_EV_LOCK_RELEASE,
		SLUB_EV_ALLOC,		 SLUB_EV_FREE,		  SLUB_EV_THREAD_FLUSH,
		SLUB_EV_CACHE_CREATE,
	};
	const unsigned nev = 200000, window = 64;
	struct result r;
	struct slub_model_callbacks cb = { on_violation, NULL, on_summary, &r, NULL };
	struct slub_model_config cfg = { 0 };
	struct slub_cache_info info = { "fuzzed", 64, 64, 8, 0, OBJS, 5, 30, 0 };
	struct slub_model *m;
	uint64_t ts = 1000;
	uint32_t seq[4] = { 0 };

	memset(&r, 0, sizeof(r));
	cfg.reorder_ns = 50000;
	cfg.reorder_events = window;
	cfg.max_violations = 1;
	m = slub_model_new(&cfg, &cb);
	if (!m)
		FATAL("slub_model_new");
	bounded(60);
	for (unsigned i = 0; i < nev; i++) {
		struct slub_model_event e;
		unsigned si = rnd(4);

		memset(&e, 0, sizeof(e));
		e.ev.type = types[rnd(sizeof(types) / sizeof(types[0]))];
		e.ev.site = rnd(SLUB_SITE_NR);
		e.ev.cpu = (int32_t)rnd(4);
		e.ev.slot = rnd(2) ? e.ev.cpu : (int32_t)rnd(4);
		e.ev.cache_id = 1 + rnd(2);
		e.ev.node = (int32_t)rnd(2);
		e.ev.slab = 0x100000ull * (si + 1);
		e.ev.object = e.ev.slab + 64 * rnd(OBJS);
		e.ev.lock_id = lock_id_of_test(e.ev.cache_id, e.ev.node);
		e.ev.lock_seq = rnd(64);
		e.ev.locked = rnd(2);
		e.ev.list = rnd(5);
		e.ev.reason = rnd(8);
		e.ev.old.owner = (int32_t)rnd(5) - 1;
		e.ev.new.owner = -1;
		e.ev.new.freelist = rnd(2) ? 0 : e.ev.object;
		e.ev.new.objects = rnd(8) ? OBJS : rnd(64);
		e.ev.new.inuse = rnd(OBJS + 2);
		e.ev.new.frozen = rnd(2);
		/* mostly the next seq; else repeated, skipped, from long ago or wild */
		switch (rnd(8)) {
		case 0: e.ev.new.seq = seq[si]; break;
		case 1: e.ev.new.seq = seq[si] + 1 + rnd(4); break;
		case 2: e.ev.new.seq = rnd(seq[si] + 1); break;
		case 3: e.ev.new.seq = rnd(8) ? seq[si] + 2 : UINT32_MAX - rnd(2); break;
		default: e.ev.new.seq = seq[si] + 1; break;
		}
		if (e.ev.new.seq > seq[si])
			seq[si] = e.ev.new.seq;
		e.ev.old = e.ev.new;
		e.ev.old.seq = e.ev.new.seq - 1;
		e.old_valid = rnd(2);
		e.ev.info = e.ev.type == SLUB_EV_CACHE_CREATE ? &info : NULL;
		e.vpid = 100 + rnd(2);
		e.vtid = e.vpid + rnd(4);
		ts += rnd(3000);
		e.ts = rnd(16) ? ts : ts - rnd(100000) % ts; /* some arrive late */
		CHECK_EQ(slub_model_event(m, &e), 0);
		if (!rnd(500)) {
			struct slub_model_discard d = { 0, rnd(10), ts - rnd(1000), ts, rnd(2),
							rnd(2) };

			slub_model_discarded(m, &d);
		}
		if (!rnd(2000))
			slub_model_registered(m, e.vpid, ts);
	}
	slub_model_get_summary(m, &r.sum);
	slub_model_finish(m);
	alarm(0);
	CHECK_EQ(r.summaries, 1);
	CHECK_EQ(r.sum.events, nev);
	/* model_expire() keeps at most the window (plus the event that crossed it) */
	CHECK(r.sum.reorder_max_pending <= window + 1, "%llu events waited (window %u)",
	      (unsigned long long)r.sum.reorder_max_pending, window);
	/* 4 slabs, 8 threads, 64 objects, 4 slots, 4 locks: well under 1 MiB */
	CHECK(r.sum.peak_mem_bytes < (1u << 20), "peak memory %llu bytes for a tiny live state",
	      (unsigned long long)r.sum.peak_mem_bytes);
	slub_model_free(m);
}

/*
 * Impossible values: a slab at address 0, a cache the process never
 * announced (judged only when the trace holds the process from its first
 * traced event: its cache announcement), a slab whose objects are not its
 * cache's objects per slab.
 */
static struct result run_with_cache(unsigned announce, uint32_t cache_id, uint32_t objects,
				    int notice)
{
	static struct seqb b;
	struct slub_cache_info info = { "test-cache", 64, 64, 8, 0, objects, 5, 30, 0 };
	struct slub_model_event *e;

	seq_init(&b, 100, SLAB);
	if (announce) {
		e = add(&b, SLUB_EV_CACHE_CREATE, 10, -1);
		e->ev.slab = 0;
		e->ev.cache_id = cache_id;
		e->ev.reason = announce == 1; /* 1: announced, 2: created now */
		e->ev.info = &info;
		/* past the window in which threads may still trace before the
		 * announcement is complete */
		b.ts += 200000;
	}
	life(&b, M_NONE);
	return run(&b, NULL, notice ? 1 : -1); /* the loss: before the slab's first event */
}

static void test_impossible_values(void)
{
	struct result r;

	/* the clean life, its cache announced with its geometry */
	r = run_with_cache(1, 1, OBJS, 0);
	CHECK(r.violations == 0, "announced cache: %s", r.first);
	/* never announced, the process seen from its announcement on */
	r = run_with_cache(1, 2, OBJS, 0);
	CHECK(r.by_rule[SLUB_RULE_TRANSITION] == 1 && strstr(r.first, "never announced"),
	      "unannounced cache: %lu, %s", r.violations, r.first);
	/* a lost event may have been its creation: unknown */
	r = run_with_cache(1, 2, OBJS, 1);
	CHECK(r.violations == 0, "unannounced cache after a loss: %s", r.first);
	/* a trace that starts mid-run (no announcement, or a creation first:
	 * the announcement may be before the trace): unknown */
	r = run_with_cache(0, 0, 0, 0);
	CHECK(r.violations == 0, "mid-run start: %s", r.first);
	r = run_with_cache(2, 2, OBJS, 0);
	CHECK(r.violations == 0, "first event a creation: %s", r.first);
	/* inside the announcement's window: unknown */
	seq_init(&B, 100, SLAB);
	{
		struct slub_model_event *e = add(&B, SLUB_EV_CACHE_CREATE, 10, -1);

		e->ev.slab = 0;
		e->ev.cache_id = 2;
		e->ev.reason = 1;
	}
	life(&B, M_NONE);
	r = run(&B, NULL, -1);
	CHECK(r.violations == 0, "an event racing the announcement: %s", r.first);
	/* geometry */
	r = run_with_cache(1, 1, OBJS * 2, 0);
	CHECK(r.by_rule[SLUB_RULE_WORD_OBJECTS] == 1 && strstr(r.first, "objects per slab"),
	      "geometry: %lu, %s", r.violations, r.first);

	/* slab 0 */
	seq_init(&B, 100, SLAB);
	life(&B, M_NONE);
	B.slab = 0;
	word(add(&B, SLUB_EV_SLAB_NEW, 10, 0), SLUB_SITE_NEW_SLAB, 0, OBJS, 1, 1, 0, 0);
	r = run(&B, NULL, -1);
	CHECK(r.violations == 1 && r.by_rule[SLUB_RULE_TRANSITION] == 1 &&
		      strstr(r.first, "slab 0"),
	      "slab_new of slab 0: %lu, %s", r.violations, r.first);
}

/*
 * A registration (a forked child's lttng_ust_statedump:start) says what
 * LTTng may not have recorded of that process only: another process's
 * events in the window after it are judged (here a child whose own
 * adoption unfreezes a slab twice), while the registered process's own
 * are recorded, not judged (unknown).
 */
static void test_registration_is_per_process(void)
{
	for (int judged = 0; judged < 2; judged++) {
		static struct seqb other;
		struct result r;
		struct slub_model_callbacks cb = { on_violation, on_transition, on_summary, &r, NULL };
		struct slub_model_config cfg = { 0 };
		struct slub_model *m;

		seq_init(&other, 302, SLAB2);
		lock(&other, SLUB_EV_LOCK_ACQUIRE, 302, 0, LOCK0, 1);
		lock(&other, SLUB_EV_LOCK_RELEASE, 302, 0, LOCK0, 1);
		/* judged: the child 301 breaks R2; else 302 itself, just after
		 * its registration */
		seq_init(&B, judged ? 301 : 302, SLAB);
		B.ts = other.ts + 1000;
		life(&B, M_UNFREEZE);
		memset(&r, 0, sizeof(r));
		cfg.reorder_ns = 100000000; /* 100 ms: the whole life is inside it */
		m = slub_model_new(&cfg, &cb);
		if (!m)
			FATAL("slub_model_new");
		for (int i = 0; i < other.n; i++)
			CHECK_EQ(slub_model_event(m, &other.ev[i]), 0);
		slub_model_registered(m, 302, other.ts + 500);
		for (int i = 0; i < B.n; i++)
			CHECK_EQ(slub_model_event(m, &B.ev[i]), 0);
		/* the child registers after its own adoption broke a rule: the
		 * slab's chain has no hole, the finding stands */
		if (judged)
			slub_model_registered(m, 301, B.ts + 1000);
		slub_model_finish(m);
		slub_model_free(m);
		if (judged)
			CHECK(r.by_rule[SLUB_RULE_UNFREEZE] == 1,
			      "another process after a registration not judged: %lu, %s",
			      r.violations, r.first);
		else
			CHECK(r.violations == 0, "the registered process judged in its window: %s",
			      r.first);
	}
}

/*
 * A forked child's lock acquisitions with one missing before its
 * registration (LTTng-UST lost it silently): its statedump:start, which
 * comes after, makes the gap a loss.  Without a registration, or in a
 * process traced from its start, the same gap is R7-lock-seq.
 */
static void test_registration_explains_lock_gap(void)
{
	static const char *const what[] = { "registered", "no registration",
					     "registered too late", "from its start" };

	for (int c = 0; c < 4; c++) {
		static struct seqb b, other;
		static struct slub_cache_info info = { "test-cache", 64, 64, 8, 0, OBJS, 5, 30, 0 };
		struct result r;
		struct slub_model_callbacks cb = { on_violation, on_transition, on_summary, &r, NULL };
		struct slub_model_config cfg = { 0 };
		struct slub_model *m;

		seq_init(&b, 401, SLAB);
		seq_init(&other, 400, SLAB2);
		other.ts = 500;
		if (c == 3) {
			struct slub_model_event *e = add(&b, SLUB_EV_CACHE_CREATE, 401, -1);

			e->ev.slab = 0;
			e->ev.reason = 1;
			e->ev.info = &info;
			b.ts += 200000000; /* past the announcement's window */
		}
		for (uint64_t seq = 1; seq <= 4; seq++) {
			if (seq == 3)
				continue; /* lost */
			lock(&b, SLUB_EV_LOCK_ACQUIRE, 402, 0, LOCK0, seq);
			lock(&b, SLUB_EV_LOCK_RELEASE, 402, 0, LOCK0, seq);
		}
		memset(&r, 0, sizeof(r));
		cfg.reorder_ns = 100000000;
		m = slub_model_new(&cfg, &cb);
		if (!m)
			FATAL("slub_model_new");
		/* the parent, registered at its start: a trace with registrations */
		lock(&other, SLUB_EV_LOCK_ACQUIRE, 400, 0, LOCK0 + 1, 1);
		CHECK_EQ(slub_model_event(m, &other.ev[0]), 0);
		slub_model_registered(m, 400, 1000);
		for (int i = 0; i < b.n; i++)
			CHECK_EQ(slub_model_event(m, &b.ev[i]), 0);
		if (c == 0 || c == 3)
			slub_model_registered(m, 401, b.ts + 5000000);
		if (c == 2)
			slub_model_registered(m, 401, b.ts + 300000000);
		slub_model_finish(m);
		slub_model_free(m);
		if (c == 0)
			CHECK(r.violations == 0, "%s: %s", what[c], r.first);
		else
			CHECK(r.by_rule[SLUB_RULE_LOCK_SEQ] == 1 && r.violations == 1,
			      "%s: %lu violations, %s", what[c], r.violations, r.first);
	}
}

/*
 * The sheaves generation: a slab of a SLUB_F_SHEAVES cache carved by a
 * refill, listed, taken off the list and its freelist taken, objects
 * flushed back; its sheaf refilled, made a slot's main, put in the barn
 * and got back.  Clean, then each variant breaks one S rule once.
 */
enum { SH_CLEAN, SH_BARN_COUNT, SH_FLUSH, SH_SIZE, SH_PLACE, SH_TAKE_LISTED, SH_FROZEN,
       SH_DELTA, SH_UNFREEZE, SH_REFILL, SH_FREE_SAME, SH_NR };

#define SHEAF_A 0xa000ull

static struct slub_model_event *sheaf_ev(struct seqb *b, unsigned type, uint64_t sheaf,
					 unsigned count, unsigned size)
{
	struct slub_model_event *e = add(b, type, 10, 0);

	e->ev.sheaf = sheaf;
	e->ev.count = count;
	e->ev.sheaf_size = size;
	if (type != SLUB_EV_SHEAF_REFILL && type != SLUB_EV_SHEAF_FLUSH)
		e->ev.slab = 0;
	return e;
}

static void barn_ev(struct seqb *b, unsigned type, unsigned size, unsigned full, unsigned empty)
{
	struct slub_model_event *e = sheaf_ev(b, type, SHEAF_A, 0, size);

	e->ev.reason = SLUB_BARN_FULL;
	e->ev.barn_full = full;
	e->ev.barn_empty = empty;
}

/* sheaf_alloc and sheaf_free (format 8) around the sheaf's life, and
 * objects the first refill's size says the sheaf had beyond its count
 * (the later events agree with it) */
static int sh_life;
static unsigned sh_extra;

static void sheaves_seq(struct seqb *b, int k)
{
	static struct slub_cache_info info = { "sheaves-cache", 64, 64, 8, 0, OBJS, 5, 0, 0x80 };
	struct slub_model_event *e;
	const unsigned x = sh_extra;

	seq_init(b, 100, SLAB);
	e = add(b, SLUB_EV_CACHE_CREATE, 10, -1);
	e->ev.slab = 0;
	e->ev.info = &info;
	e->ev.reason = 1;
	e = add(b, SLUB_EV_SLAB_NEW, 10, 0);
	word(e, SLUB_SITE_NEW_SLAB, 0xf0, 10, 0, 1, 0, 0);
	lock(b, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 1);
	list_op(b, SLUB_EV_ADD_PARTIAL, 10, 0, 1, 1, SLUB_DEST_HEAD);
	lock(b, SLUB_EV_LOCK_RELEASE, 10, 0, LOCK0, 1);
	if (sh_life)
		sheaf_ev(b, SLUB_EV_SHEAF_ALLOC, SHEAF_A, 0, 0);
	sheaf_ev(b, SLUB_EV_SHEAF_REFILL, SHEAF_A, 10, 10 + x);
	if (k == SH_REFILL)
		sheaf_ev(b, SLUB_EV_SHEAF_REFILL, SHEAF_A, 2, 13);
	e = sheaf_ev(b, SLUB_EV_SHEAF_SLOT, SHEAF_A, 0, k == SH_REFILL ? 13 : 10 + x);
	e->ev.slot = 0;
	/* SH_PLACE: the same sheaf as main and spare, with the same size as
	 * a slot listing one sheaf twice would show */
	if (k == SH_PLACE) {
		e->ev.spare = SHEAF_A;
		e->ev.spare_size = e->ev.sheaf_size;
	}
	barn_ev(b, SLUB_EV_BARN_PUT, k == SH_REFILL ? 13 : 10 + x, 1, 0);
	/* SH_BARN_COUNT: a full sheaf got, the empty count moved */
	barn_ev(b, SLUB_EV_BARN_GET, k == SH_SIZE ? 11 : k == SH_REFILL ? 13 : 10 + x, 0,
		k == SH_BARN_COUNT);
	lock(b, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 2);
	if (k != SH_TAKE_LISTED)
		list_op(b, SLUB_EV_REMOVE_PARTIAL, 10, 0, 2, 1, 0);
	lock(b, SLUB_EV_LOCK_RELEASE, 10, 0, LOCK0, 2);
	e = add(b, k == SH_UNFREEZE ? SLUB_EV_UNFREEZE : SLUB_EV_TAKE_FREELIST, 10, 0);
	if (k == SH_DELTA)
		word(e, SLUB_SITE_GET_FREELIST, 0xf0, 12, 0, 2, 0, 0);
	else
		word(e, k == SH_UNFREEZE ? SLUB_SITE_UNFREEZING_SLAB : SLUB_SITE_GET_FREELIST, 0,
		     OBJS, k == SH_FROZEN, 2, 0, 0);
	e->ev.old.owner = -1;
	if (k == SH_TAKE_LISTED || k == SH_FROZEN || k == SH_DELTA || k == SH_UNFREEZE)
		return;
	sheaf_ev(b, SLUB_EV_SHEAF_FLUSH, SHEAF_A, 6,
		 k == SH_FLUSH ? 3 : k == SH_SIZE ? 5 : k == SH_REFILL ? 7 : 4 + x);
	lock(b, SLUB_EV_LOCK_ACQUIRE, 10, 0, LOCK0, 3);
	e = add(b, SLUB_EV_FREE_REMOTE, 10, 0);
	/* SH_FREE_SAME: objects onto the freelist, inuse unchanged */
	word(e, SLUB_SITE_SLAB_FREE, 0xe0, k == SH_FREE_SAME ? OBJS : 10, 0, 3, 0, 1);
	list_op(b, SLUB_EV_ADD_PARTIAL, 10, 0, 3, 3, SLUB_DEST_TAIL);
	lock(b, SLUB_EV_LOCK_RELEASE, 10, 0, LOCK0, 3);
	if (sh_life)
		sheaf_ev(b, SLUB_EV_SHEAF_FREE, SHEAF_A, 0, 0);
}

static void test_sheaves(void)
{
	static const unsigned rule[SH_NR] = {
		[SH_BARN_COUNT] = SLUB_RULE_S_BARN_COUNT, [SH_FLUSH] = SLUB_RULE_S_FLUSH_WHOLE,
		[SH_SIZE] = SLUB_RULE_S_SHEAF_COUNT, [SH_PLACE] = SLUB_RULE_S_SHEAF_PLACE,
		[SH_TAKE_LISTED] = SLUB_RULE_S_TAKE_OFF_LIST, [SH_FROZEN] = SLUB_RULE_S_NEVER_FROZEN,
		[SH_DELTA] = SLUB_RULE_S_WORD_DELTA, [SH_UNFREEZE] = SLUB_RULE_S_TRANSITION,
		[SH_REFILL] = SLUB_RULE_S_REFILL, [SH_FREE_SAME] = SLUB_RULE_S_WORD_DELTA,
	};

	for (int k = 0; k < SH_NR; k++) {
		struct result r;

		sheaves_seq(&B, k);
		r = run(&B, NULL, -1);
		if (k == SH_CLEAN)
			CHECK(r.violations == 0, "sheaves clean: %s", r.first);
		else
			CHECK(r.by_rule[rule[k]] == 1 && r.violations == 1,
			      "sheaves variant %d: %lu violations, want one %s: %s", k, r.violations,
			      slub_rule_id(rule[k]), r.first);
	}

	/* A sheaf made (sheaf_alloc) is empty: its first refill is judged.
	 * Without the event the model learns its size from that refill. */
	static const struct { int life; unsigned extra, violations; } life[] = {
		{ 1, 0, 0 }, { 0, 2, 0 }, { 1, 2, 1 },
	};
	for (unsigned i = 0; i < sizeof(life) / sizeof(life[0]); i++) {
		struct result r;

		sh_life = life[i].life;
		sh_extra = life[i].extra;
		sheaves_seq(&B, SH_CLEAN);
		r = run(&B, NULL, -1);
		CHECK(r.violations == life[i].violations &&
			      (!life[i].violations || r.by_rule[SLUB_RULE_S_REFILL] == 1),
		      "sheaf life %d, %u objects before the first refill: %lu violations, want "
		      "%u (S7-refill): %s", life[i].life, life[i].extra, r.violations,
		      life[i].violations, r.first);
	}
	sh_life = 0;
	sh_extra = 0;
}

int main(void)
{
	test_tables();
	test_sheaves();
	test_effects_match_edges();
	test_rules();
	test_slabinfo_walk();
	test_flush_other_slot();
	test_leak();
	test_objects();
	test_reorder_and_discards();
	test_processes();
	test_registration();
	test_registration_is_per_process();
	test_registration_explains_lock_gap();
	test_late_after_two_gaps();
	test_seq_twice_conflict();
	test_seq_twice_copy(0);
	test_seq_twice_copy(1);
	test_arbitrary_sequences();
	test_impossible_values();
	test_stack();
	test_memory_hook();
	return test_summary("test_model");
}
