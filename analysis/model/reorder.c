/* SPDX-License-Identifier: MIT */
/*
 * The ordering engine: a slab's events are applied in the order of its
 * slab word.  Word events go by seq; every other event of the slab (list
 * and cpu-slot operations, slab_discard) right after the word update its
 * thread last saw (the seq a list operation carries, or the thread's own
 * last update of that slab: model_lru_key()).  An event that arrives early waits
 * in its slab's pending list, sorted by (seq, word before what follows it,
 * arrival); a slab that waits sits in a FIFO wait queue, so that a gap
 * older than the window (reorder_ns in trace time, reorder_events waiting
 * in all) is given up: a lost update, or a resynchronisation when a
 * discarded-events notice explains it.  A word update whose seq the slab
 * has passed is dropped (seq_twice()), never waited for.
 *
 * Memory: one struct pend per waiting event, bounded by reorder_events
 * (model_expire() gives up the oldest gap past it).
 */
#include <assert.h>
#include <string.h>

#include "internal.h"

/* ---- slab ordering ---- */

static void wq_add(struct slub_model *m, struct mslab *s, uint64_t since)
{
	s->waiting = 1;
	s->wait_since = since;
	s->wnext = NULL;
	s->wprev = m->wq_tail;
	if (m->wq_tail)
		m->wq_tail->wnext = s;
	else
		m->wq_head = s;
	m->wq_tail = s;
}

static void wq_del(struct slub_model *m, struct mslab *s)
{
	if (!s->waiting)
		return;
	if (s->wprev)
		s->wprev->wnext = s->wnext;
	else
		m->wq_head = s->wnext;
	if (s->wnext)
		s->wnext->wprev = s->wprev;
	else
		m->wq_tail = s->wprev;
	s->waiting = 0;
	s->wprev = s->wnext = NULL;
}

void model_reorder_forget(struct slub_model *m, struct mslab *s)
{
	while (s->pend) {
		struct pend *pe = s->pend;

		model_deliver(m, &pe->e, s->h.k1, 1);
		s->pend = pe->next;
		mm_pool_put(&m->p_pend, pe);
		m->npend--;
	}
	wq_del(m, s);
}

/* One event of the slab in its order: a failed CAS goes in the history,
 * anything else is applied; then its consumer has it. */
static void slab_apply(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		       int late)
{
	if (e->ev.type == SLUB_EV_CMPXCHG_FAIL)
		model_failed_record(m, s, e);
	else
		model_apply(m, s, e, late);
	model_deliver(m, e, s->h.k1, 0);
}

static int applicable(const struct mslab *s, const struct pend *p)
{
	if (!s->have_seq)
		return 1;
	if (p->sort & 1)
		return (p->sort >> 1) <= s->seq;
	/* A reused descriptor waits for the discard of its last life, then
	 * starts a new baseline whatever its seq. */
	if (p->e.ev.type == SLUB_EV_SLAB_NEW)
		return !s->pages || s->state == SLUB_STATE_UNKNOWN;
	return (p->sort >> 1) == (uint64_t)s->seq + 1;
}

static const struct slub_model_record *applied_at(const struct slub_model *m,
						  const struct mslab *s, uint32_t seq);
static int same_event(const struct slub_model_record *a, const struct slub_model_record *b);

/* The slab_new of the slab's current life, read a second time. */
static int slab_new_again(const struct slub_model *m, const struct mslab *s,
			  const struct slub_model_event *e)
{
	const struct slub_model_record *a;
	struct slub_model_record r;

	if (!s->have_seq || !s->pages || s->state == SLUB_STATE_UNKNOWN)
		return 0;
	a = applied_at(m, s, e->ev.new.seq);
	if (!a || a->type != SLUB_EV_SLAB_NEW)
		return 0;
	model_make_record(&r, e);
	return same_event(a, &r);
}

/* A word update at or below the seq the slab is at can never apply. */
static int stale(const struct slub_model *m, const struct mslab *s, const struct pend *p)
{
	if (!s->have_seq || (p->sort & 1))
		return 0;
	if (p->e.ev.type == SLUB_EV_SLAB_NEW)
		return slab_new_again(m, s, &p->e);
	return (p->sort >> 1) <= s->seq;
}

/* The applied word update of the slab at that seq, if still in its history. */
static const struct slub_model_record *applied_at(const struct slub_model *m,
						  const struct mslab *s, uint32_t seq)
{
	uint32_t n = m->cfg.history;

	for (uint32_t i = 0; i < s->hist_n; i++) {
		const struct slub_model_record *r = &s->hist[(s->hist_head + n - 1 - i) % n];

		if (is_word_event(r->type) && r->seq == seq)
			return r;
	}
	return NULL;
}

static int same_event(const struct slub_model_record *a, const struct slub_model_record *b)
{
	return a->ts == b->ts && a->type == b->type && a->site == b->site && a->vtid == b->vtid &&
	       a->cpu == b->cpu && a->freelist == b->freelist && a->inuse == b->inuse &&
	       a->objects == b->objects && a->frozen == b->frozen && a->seq == b->seq;
}

/*
 * A word update whose seq the slab has already passed: an update late
 * past a given-up gap or from before the baseline (dropped), or a seq
 * produced twice: two updates that both claim one step (a CAS that did
 * not compare the whole word), or the same event read twice (a stream
 * and a copy of it).  Either way it is dropped: applying it would rewind
 * the word, and waiting for it would never end.
 */
static void seq_twice(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		      uint64_t key)
{
	const struct slub_model_record *a = applied_at(m, s, (uint32_t)key);
	struct slub_model_record r;

	model_deliver(m, e, s->h.k1, 1);
	model_make_record(&r, e);
	/* the same event again is never a late update */
	if (!(a && same_event(a, &r)) &&
	    ((key >= s->skip_lo && key <= s->skip_hi) || key <= s->base_seq || s->resync)) {
		m->sum.reorder_exceeded += key > s->base_seq;
		return;
	}
	r.before = r.after = s->state;
	r.list = s->list;
	r.owner = s->frozen ? s->owner : -1;
	if (!a) {
		model_report(m, SLUB_RULE_WORD_CHAIN, &r, s, s->h.k1, 0,
			"seq %u produced twice: %s at %s {freelist %#llx inuse %u frozen %u} "
			"tid %u claims a step already applied (no longer in the history; now at "
			"seq %u)",
			(unsigned)key, slub_event_name(e->ev.type), slub_site_name(e->ev.site),
			(unsigned long long)e->ev.new.freelist, e->ev.new.inuse, e->ev.new.frozen,
			e->vtid, s->seq);
		return;
	}
	/* kept short (the history shows both events in full) */
	model_report(m, SLUB_RULE_WORD_CHAIN, &r, s, s->h.k1, a->vtid,
		"seq %u produced twice: %s at %s {freelist %#llx inuse %u frozen %u} tid %u, "
		"applied; then %s at %s {freelist %#llx inuse %u frozen %u} tid %u: %s",
		(unsigned)key, slub_event_name(a->type), slub_site_name(a->site),
		(unsigned long long)a->freelist, a->inuse, a->frozen, a->vtid,
		slub_event_name(r.type), slub_site_name(r.site), (unsigned long long)r.freelist,
		r.inuse, r.frozen, r.vtid,
		same_event(a, &r) ? "the same event twice" : "two updates claim one step");
}

/*
 * Apply what waits and can go, drop what never can; the slab may be freed
 * (returns NULL).  Each iteration takes one event off the slab's list.
 */
static struct mslab *drain(struct slub_model *m, struct mslab *s)
{
	while (s->pend) {
		struct pend *p = s->pend;
		int go = applicable(s, p);

		if (!go && !stale(m, s, p))
			break;
		s->pend = p->next;
		s->npend--;
		m->npend--;
		if (!go) {
			seq_twice(m, s, &p->e, p->sort >> 1);
			mm_pool_put(&m->p_pend, p);
			continue;
		}
		if (m->sum.reorder_max_delay_ns < m->now - p->e.ts && m->now > p->e.ts)
			m->sum.reorder_max_delay_ns = m->now - p->e.ts;
		if (!m->giving_up && m->lag_max < m->now - p->e.ts && m->now > p->e.ts)
			m->lag_max = m->now - p->e.ts;
		slab_apply(m, s, &p->e,
			   p->lenient || (is_cpu_event(p->e.ev.type) && (p->sort >> 1) < s->seq));
		mm_pool_put(&m->p_pend, p);
	}
	wq_del(m, s);
	if (s->pend) {
		wq_add(m, s, s->pend->arrival);
		return s;
	}
	if (s->state == SLUB_STATE_DISCARDED && !s->pages) {
		model_free_slab(m, s);
		return NULL;
	}
	return s;
}

/* The lag across the edges of a cut input (slub_model_config.cut_*). */
uint64_t model_cut_lag(const struct slub_model *m)
{
	if (m->cfg.cut_lag_ns)
		return m->cfg.cut_lag_ns;
	return m->lag_max > SLUB_MODEL_DEFAULT_CUT_LAG_NS ? m->lag_max
							  : SLUB_MODEL_DEFAULT_CUT_LAG_NS;
}

/*
 * Could the gap before p be updates whose events lie outside a cut input?
 * Before it: the missing updates came after every update of the slab
 * applied so far, so when they were traced before the window, each of
 * those events lagged its CAS by its distance from the window's start.
 * After it: the first event after the gap lagged behind no CAS of the
 * missing ones, whose events then fell after the window's end no later
 * than the lag after that event.
 */
static int cut_edge(const struct slub_model *m, const struct mslab *s, const struct pend *p)
{
	uint64_t lag;

	if (!m->cfg.cut_begin_ns && !m->cfg.cut_end_ns)
		return 0;
	lag = model_cut_lag(m);
	if (m->cfg.cut_begin_ns && s->last_ts <= m->cfg.cut_begin_ns + lag)
		return 1;
	return m->finished && m->cfg.cut_end_ns && p->e.ts + lag >= m->cfg.cut_end_ns;
}

/*
 * The window passed (or the buffer is full): stop waiting for the gap.
 *
 * Termination: the loops over the wait queue (model_expire(), finish) call this
 * on a waiting slab, which has events waiting.  Afterwards its first event
 * is applicable or stale: a later seq is reached by skipping the gap, a
 * slab_new by ending the previous life, a non-word event by the seq it
 * follows, and a word update at or below the seq is stale.  drain() then
 * takes it off, so every call removes at least one waiting event, and the
 * model's total of waiting events strictly falls.
 */
void model_give_up(struct slub_model *m, struct mslab *s)
{
	struct pend *p = s->pend;
	uint64_t npend = m->npend;
	uint64_t key = p->sort >> 1;
	uint32_t target = (p->sort & 1) ? (uint32_t)key : (uint32_t)(key - 1);
	uint64_t k1 = s->h.k1;

	if (s->have_seq && target >= (uint64_t)s->seq + 1) {
		/* With end_cut_off, at the end a gap younger than the
		 * reorder window is an update whose event had not come yet:
		 * its thread was between its CAS and its event at exit(). */
		int cut_off = m->finished && m->cfg.end_cut_off &&
			      m->now - s->wait_since <= m->cfg.reorder_ns;
		int explained = s->resync || cut_off ||
				model_notice_since(m, window_start(m, s->last_ts));
		struct slub_model_record r;

		if (!explained && cut_edge(m, s, p)) {
			m->sum.cut_gaps++;
			explained = 1;
		}
		if (!explained) {
			m->sum.reorder_exceeded++;
			model_make_record(&r, &p->e);
			r.before = r.after = s->state;
			r.list = s->list;
			model_report(m, SLUB_RULE_WORD_CHAIN, &r, s, k1, 0,
				     "seq jumps from %u to %u: %u update(s) never seen and no "
				     "discarded-events notice covers them (lost update)",
				     s->seq, target + 1, target - s->seq);
		}
		/* Updates of every given-up gap may still arrive, late: keep
		 * one range over all of them (a late one is then dropped, not
		 * taken for a seq produced twice). */
		if (!s->skip_hi)
			s->skip_lo = s->seq + 1;
		s->skip_hi = target;
		s->seq = target;
		s->resync = 1; /* what the missing updates did is unknown */
	}
	if (p->e.ev.type == SLUB_EV_SLAB_NEW && !(p->sort & 1) && !applicable(s, p) &&
	    !stale(m, s, p)) {
		/* The discard of the previous life never came. */
		if (!model_notice_since(m, window_start(m, s->last_ts))) {
			struct slub_model_record r;

			model_make_record(&r, &p->e);
			r.before = r.after = s->state;
			model_report(m, SLUB_RULE_TRANSITION, &r, s, k1, 0,
				     "slab_new at seq %u of a slab that was never discarded (%s)",
				     p->e.ev.new.seq, slub_state_name(s->state));
		}
		s->pages = 0;
		s->state = SLUB_STATE_DISCARDED;
	}
	assert(applicable(s, p) || stale(m, s, p));
	m->giving_up = 1;
	drain(m, s);
	m->giving_up = 0;
	assert(m->npend < npend);
	(void)npend;
}

void model_expire(struct slub_model *m)
{
	while (m->wq_head) {
		struct mslab *s = m->wq_head;

		if (m->now - s->wait_since <= m->cfg.reorder_ns && m->npend <= m->cfg.reorder_events)
			break;
		model_give_up(m, s);
	}
	/* A gap that a discarded-events notice covers waits an eighth of the
	 * window: its events are most likely lost, not late.  (Slabs wait in
	 * FIFO order, so only the head is looked at.) */
	while (m->wq_head && m->disc_gen) {
		struct mslab *s = m->wq_head;

		if (m->now - s->wait_since <= m->cfg.reorder_ns / 8 ||
		    !model_notice_covers(m, s->gen, window_start(m, s->last_ts)))
			break;
		model_give_up(m, s);
	}
}

/* Order one slab event: apply now, or wait for its predecessor. */
void model_slab_submit(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
			uint64_t key, int word, int lenient)
{
	uint64_t sort;

	if (s->have_seq && word &&
	    (e->ev.type == SLUB_EV_SLAB_NEW ? slab_new_again(m, s, e) : key <= s->seq)) {
		/* An update older than what was applied: late past a given-up
		 * gap, from before the baseline, or a seq produced twice. */
		seq_twice(m, s, e, key);
		return;
	}
	if (key == KEY_LAST) {
		/* Nothing the slab has seen so far can follow it: after the
		 * highest seq applied or waiting (a later update of the same
		 * thread cannot have been produced yet). */
		key = s->seq;
		for (struct pend *q = s->pend; q; q = q->next)
			if ((q->sort >> 1) > key)
				key = q->sort >> 1;
	}
	if (word)
		sort = key * 2;
	else
		sort = key * 2 + 1;
	if (!s->pend) {
		struct pend probe;

		probe.sort = sort;
		probe.e.ev.type = e->ev.type;
		if (applicable(s, &probe)) {
			slab_apply(m, s, e,
				   lenient || (!word && is_cpu_event(e->ev.type) && s->have_seq &&
					       key < s->seq));
			if (s->state == SLUB_STATE_DISCARDED && !s->pages)
				model_free_slab(m, s);
			return;
		}
	}
	struct pend *p = mm_pool_get(&m->p_pend);
	if (!p) {
		slab_apply(m, s, e, lenient); /* out of memory: better out of order than lost */
		return;
	}
	p->sort = sort;
	p->lenient = lenient;
	p->order = ++m->order;
	p->arrival = m->now;
	p->e = *e;
	p->e.procname = NULL;
	if (s->pend && s->pend_tail->sort <= sort) {
		/* the common case: arrivals in seq order behind a gap */
		p->next = NULL;
		s->pend_tail->next = p;
		s->pend_tail = p;
	} else {
		struct pend **pp = &s->pend;

		while (*pp && (*pp)->sort <= sort)
			pp = &(*pp)->next;
		p->next = *pp;
		*pp = p;
		if (!p->next)
			s->pend_tail = p;
	}
	s->npend++;
	m->npend++;
	if (m->npend > m->sum.reorder_max_pending)
		m->sum.reorder_max_pending = m->npend;
	if (s->pend == p || !s->waiting) {
		s = drain(m, s);
	}
}

/* ---- per-thread memory of the last word seen per slab ---- */

void model_lru_note(struct mthread *t, uint64_t slab, uint32_t seq)
{
	for (unsigned i = 0; i < THREAD_LRU; i++)
		if (t->lru[i].slab == slab) {
			t->lru[i].seq = seq;
			return;
		}
	t->lru[t->lru_i].slab = slab;
	t->lru[t->lru_i].seq = seq;
	t->lru_i = (t->lru_i + 1) % THREAD_LRU;
}

/* A cpu-slot event comes right after its thread's own last update of the
 * slab (deactivate after its unfreeze, even when another cpu froze the
 * slab again in between); without one, after everything known. */
uint64_t model_lru_key(const struct mthread *t, uint64_t slab)
{
	for (unsigned i = 0; i < THREAD_LRU; i++)
		if (t->lru[i].slab == slab)
			return t->lru[i].seq;
	return KEY_LAST;
}
