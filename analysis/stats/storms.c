/* SPDX-License-Identifier: MIT */
/*
 * Retry storms.
 *
 * A failed slab-word CAS carries the word it expected and the word it
 * found.  The update that beat it is the slab-word event of that slab
 * whose seq is the observed seq: its thread, site and type are the
 * winner.  The model hands a failure on right after that update (its
 * tracepoint fires after its CAS, and the winner's may come later: the
 * model's reorder window waits for it), so the winner is among the slab's
 * last `lookback` updates, kept by seq; when it is not (given up by the
 * model, or more updates came in between), the winner is unknown.  An
 * observed seq equal to the expected one means the word changed without
 * an update: a write that bypassed the CAS.
 *
 * A failed cpu chain CAS (put_cpu_partial, cpu_partial_take) lost to the
 * last change of that chain: a push, a pop or a drain (a flush from
 * another thread, or the same thread's drain when oldpage is kept).
 *
 * Failures, in the model's order, feed two detectors:
 *  - runs: consecutive failed attempts of one operation (one thread, one
 *    object, one site, attempt numbers following) reaching run_attempts;
 *  - windows: window_failures failures on one slab or cpu chain (or as
 *    many contended acquisitions of one list_lock) within window_ns; the
 *    storm lasts while every window_failures consecutive failures fit.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *slub_tstats_storm_kind_name(unsigned kind)
{
	static const char *const names[SLUB_STORM_NR] = { "run", "slab", "cpu_chain", "list_lock" };

	return kind < SLUB_STORM_NR ? names[kind] : "unknown";
}

/* ---- storm accumulation ---- */

static struct tstorm *storm_open(unsigned kind, const struct tfail *f)
{
	struct tstorm *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->s.kind = kind;
	s->s.vpid = f->vpid;
	s->s.object = f->object;
	s->s.begin_ts = f->ts;
	s->s.end_ts = f->ts;
	s->cache = f->cache;
	return s;
}

static void party_add(struct slub_tstats_party *p, uint32_t *nr, uint32_t *more, uint32_t vtid,
		      uint32_t site, uint32_t type, bool match_site)
{
	for (uint32_t i = 0; i < *nr; i++)
		if (p[i].vtid == vtid && (!match_site || p[i].site == site)) {
			p[i].count++;
			return;
		}
	if (*nr < SLUB_TSTATS_STORM_PARTIES) {
		p[*nr].vtid = vtid;
		p[*nr].site = site;
		p[*nr].type = type;
		p[*nr].count = 1;
		(*nr)++;
	} else {
		(*more)++;
	}
}

static void storm_add(struct tstorm *s, const struct tfail *f)
{
	s->s.attempts++;
	if (f->ts < s->s.begin_ts)
		s->s.begin_ts = f->ts;
	if (f->ts > s->s.end_ts)
		s->s.end_ts = f->ts;
	if (f->site < SLUB_SITE_NR)
		s->site_count[f->site]++;
	if (f->attempt > s->s.max_attempt)
		s->s.max_attempt = f->attempt;
	s->s.wait_ns += f->wait_ns;
	party_add(s->s.losers, &s->s.nr_losers, &s->s.more_losers, f->vtid, f->site, 0, false);
	switch (f->state) {
	case FAIL_WON:
		party_add(s->s.winners, &s->s.nr_winners, &s->s.more_winners, f->wvtid, f->wsite,
			  f->wtype, true);
		break;
	case FAIL_UNTRACED:
		s->s.untraced++;
		break;
	default:
		s->s.unknown++;
		break;
	}
}

static int storm_cmp(const void *a, const void *b)
{
	const struct tstorm *x = *(struct tstorm *const *)a, *y = *(struct tstorm *const *)b;

	if (x->s.kind != y->s.kind)
		return x->s.kind < y->s.kind ? -1 : 1;
	if (x->s.attempts != y->s.attempts)
		return x->s.attempts > y->s.attempts ? -1 : 1;
	return x->s.begin_ts < y->s.begin_ts ? -1 : x->s.begin_ts > y->s.begin_ts;
}

static void storm_close(struct slub_tstats *st, struct tstorm *s)
{
	unsigned best = 0;

	for (unsigned i = 1; i < SLUB_SITE_NR; i++)
		if (s->site_count[i] > s->site_count[best])
			best = i;
	s->s.site = best;
	st->tot.storms++;
	switch (s->s.kind) {
	case SLUB_STORM_RUN: st->tot.storms_run++; break;
	case SLUB_STORM_SLAB: st->tot.storms_slab++; break;
	case SLUB_STORM_CHAIN: st->tot.storms_chain++; break;
	default: st->tot.storms_lock++; break;
	}
	if (s->cache)
		s->cache->storms++;
	/* The largest max_storms of each kind: lock storms, long and many,
	 * must not hide the CAS storms. */
	unsigned same = 0, min = UINT32_MAX;
	for (unsigned i = 0; i < st->nr_kept; i++) {
		if (st->kept[i]->s.kind != s->s.kind)
			continue;
		same++;
		if (min == UINT32_MAX || storm_cmp(&st->kept[i], &st->kept[min]) > 0)
			min = i;
	}
	if (same < st->cfg.max_storms) {
		st->kept[st->nr_kept++] = s;
		return;
	}
	if (storm_cmp(&s, &st->kept[min]) < 0) {
		free(st->kept[min]);
		st->kept[min] = s;
	} else {
		free(s);
	}
}

/* A storm takes the first stack a losing thread recorded at a failed CAS
 * on the storm's slab (or cpu chain). */
static void storm_stack(struct slub_tstats *st, struct tstorm *s, const struct tfail *f)
{
	if (!s || s->s.stack_nr || f->kind == SLUB_STORM_LOCK)
		return;
	struct tthread *t = (struct tthread *)htab_find(&st->threads, f->vpid, f->vtid);
	if (!t || !t->stack_nr)
		return;
	if (f->kind == SLUB_STORM_SLAB &&
	    (t->stack_type != SLUB_EV_CMPXCHG_FAIL || t->stack_slab != f->object))
		return;
	if (f->kind == SLUB_STORM_CHAIN && t->stack_type != SLUB_EV_CPU_CMPXCHG_FAIL)
		return;
	memcpy(s->s.stack, t->stack, t->stack_nr * sizeof(t->stack[0]));
	s->s.stack_nr = t->stack_nr;
	s->s.stack_vtid = f->vtid;
}

/* ---- window detection ---- */

static struct thot *hot_of(struct slub_tstats *st, unsigned kind, uint64_t key, uint64_t object)
{
	uint64_t k1 = (uint64_t)kind << 56 | key;
	struct hnode *n = htab_find(&st->hot, k1, object);

	if (n)
		return (struct thot *)n;
	struct thot *h = calloc(1, sizeof(*h) + st->cfg.window_failures * sizeof(struct tfail));
	if (!h)
		return NULL;
	h->h.k1 = k1;
	h->h.k2 = object;
	if (htab_insert(&st->hot, &h->h)) {
		free(h);
		return NULL;
	}
	return h;
}

static void window_feed(struct slub_tstats *st, const struct tfail *f)
{
	struct thot *h = hot_of(st, f->kind, f->key, f->object);
	uint32_t k = st->cfg.window_failures;

	if (!h)
		return;
	if (h->n < k) {
		h->ring[h->n++] = *f;
	} else {
		h->ring[h->pos] = *f;
		h->pos = (h->pos + 1) % k;
	}
	h->last_ts = f->ts;
	const struct tfail *oldest = h->n < k ? NULL : &h->ring[h->pos];
	bool hot = oldest && f->ts - oldest->ts <= st->cfg.window_ns;

	if (hot && !h->storm) {
		h->storm = storm_open(f->kind, oldest);
		if (h->storm)
			for (uint32_t i = 0; i < k; i++)
				storm_add(h->storm, &h->ring[(h->pos + i) % k]);
		storm_stack(st, h->storm, f);
	} else if (hot) {
		storm_add(h->storm, f);
		storm_stack(st, h->storm, f);
	} else if (h->storm) {
		storm_close(st, h->storm);
		h->storm = NULL;
	}
}

/* ---- run detection ---- */

static void run_close(struct slub_tstats *st, struct tthread *t)
{
	if (t->run) {
		storm_close(st, t->run);
		t->run = NULL;
	}
	t->run_len = 0;
}

static void run_feed(struct slub_tstats *st, const struct tfail *f)
{
	struct hnode *n = htab_find(&st->threads, f->vpid, f->vtid);
	struct tthread *t = (struct tthread *)n;

	if (!t)
		return;
	if (t->run_len && !(t->run_kind == f->kind && t->run_object == f->object &&
			    t->run_site == f->site && f->attempt == t->run_attempt + 1))
		run_close(st, t);
	if (!t->run_len) {
		t->run_kind = f->kind;
		t->run_object = f->object;
		t->run_site = f->site;
	}
	t->run_attempt = f->attempt;
	if (t->run) {
		storm_add(t->run, f);
		storm_stack(st, t->run, f);
		t->run_len++;
		return;
	}
	t->run_buf[t->run_len++] = *f;
	if (t->run_len == st->cfg.run_attempts) {
		t->run = storm_open(SLUB_STORM_RUN, &t->run_buf[0]);
		if (t->run)
			for (uint32_t i = 0; i < t->run_len; i++)
				storm_add(t->run, &t->run_buf[i]);
		storm_stack(st, t->run, f);
	}
}

/* ---- thread pairs: the space-saving top-k (bounded; counts can only
 * overestimate, by at most `err`) ---- */

static void pair_count(struct slub_tstats *st, uint32_t vpid, uint32_t loser, uint32_t winner)
{
	uint64_t k2 = (uint64_t)loser << 32 | winner;
	struct hnode *n = htab_find(&st->pairs, vpid, k2);

	if (n) {
		((struct tpair *)n)->count++;
		return;
	}
	if (st->nr_pairs < st->pair_cap) {
		struct tpair *p = calloc(1, sizeof(*p));
		if (!p)
			return;
		p->h.k1 = vpid;
		p->h.k2 = k2;
		p->count = 1;
		p->idx = st->nr_pairs;
		if (htab_insert(&st->pairs, &p->h)) {
			free(p);
			return;
		}
		st->pair_arr[st->nr_pairs++] = p;
		return;
	}
	unsigned min = 0;
	for (unsigned i = 1; i < st->nr_pairs; i++)
		if (st->pair_arr[i]->count < st->pair_arr[min]->count)
			min = i;
	struct tpair *p = st->pair_arr[min];
	htab_remove(&st->pairs, &p->h);
	p->h.k1 = vpid;
	p->h.k2 = k2;
	p->err = p->count;
	p->count++;
	st->pair_evicted++;
	htab_insert(&st->pairs, &p->h); /* cannot grow: the node came out */
}

/* ---- failures ---- */

static void fail_done(struct slub_tstats *st, struct tfail *f)
{
	switch (f->state) {
	case FAIL_WON:
		st->tot.attributed++;
		pair_count(st, f->vpid, f->vtid, f->wvtid);
		break;
	case FAIL_UNTRACED:
		st->tot.untraced_winner++;
		break;
	default:
		f->state = FAIL_UNKNOWN;
		st->tot.unknown_winner++;
		break;
	}
	run_feed(st, f);
	window_feed(st, f);
}

static void fail_init(struct tfail *f, const struct slub_model_event *e, uint64_t key,
		      struct tcache *c, unsigned kind, uint64_t object)
{
	memset(f, 0, sizeof(*f));
	f->ts = e->ts;
	f->object = object;
	f->cache = c;
	f->key = key;
	f->vpid = e->vpid;
	f->vtid = e->vtid;
	f->site = e->ev.site;
	f->attempt = e->ev.attempt;
	f->locked = e->ev.locked;
	f->kind = kind;
}

void storms_word_fail(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		      struct tcache *c, struct tslab *s)
{
	struct tfail f;

	fail_init(&f, e, key, c, SLUB_STORM_SLAB, e->ev.slab);
	f.exp_seq = e->ev.old.seq;
	f.obs_seq = e->ev.new.seq;
	if (f.obs_seq == f.exp_seq) {
		f.state = FAIL_UNTRACED;
	} else {
		const struct tword_ev *w = &s->ring[f.obs_seq % st->cfg.lookback];

		f.state = FAIL_UNKNOWN;
		if (w->valid && w->seq == f.obs_seq) {
			f.state = FAIL_WON;
			f.wvtid = w->vtid;
			f.wsite = w->site;
			f.wtype = w->type;
		}
	}
	fail_done(st, &f);
}

void storms_chain_event(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
			int32_t slot)
{
	uint64_t k2 = (uint64_t)e->ev.cache_id << 32 | (uint32_t)slot;
	struct tchain *ch = (struct tchain *)htab_find(&st->chains, key, k2);

	if (!ch) {
		ch = calloc(1, sizeof(*ch));
		if (!ch)
			return;
		ch->h.k1 = key;
		ch->h.k2 = k2;
		htab_insert(&st->chains, &ch->h);
	}
	ch->ts = e->ts;
	ch->vtid = e->vtid;
	ch->type = e->ev.type;
}

void storms_chain_fail(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		       struct tcache *c)
{
	uint32_t slot = (uint32_t)e->ev.cpu;
	uint64_t k2 = (uint64_t)e->ev.cache_id << 32 | slot;
	struct tchain *ch = (struct tchain *)htab_find(&st->chains, key, k2);
	struct tfail f;

	fail_init(&f, e, key, c, SLUB_STORM_CHAIN, k2);
	if (ch) {
		f.state = FAIL_WON;
		f.wvtid = ch->vtid;
		f.wtype = ch->type;
		f.wsite = ch->type == SLUB_EV_CPU_PARTIAL_PUT ? SLUB_SITE_PUT_CPU_PARTIAL
			: ch->type == SLUB_EV_CPU_PARTIAL_TAKE ? SLUB_SITE_CPU_PARTIAL_TAKE
			: SLUB_SITE_NONE;
	} else {
		f.state = FAIL_UNKNOWN;
	}
	fail_done(st, &f);
}

void storms_lock_wait(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		      struct tlock *l)
{
	struct tfail f;

	fail_init(&f, e, key, l->cache, SLUB_STORM_LOCK, l->lock_id);
	f.site = SLUB_SITE_NONE;
	f.wait_ns = e->ev.wait_ns;
	if (l->holder_vtid) {
		f.state = FAIL_WON;
		f.wvtid = l->holder_vtid;
		f.wtype = SLUB_EV_LOCK_ACQUIRE;
	} else {
		f.state = FAIL_UNKNOWN;
	}
	window_feed(st, &f);
}

/* ---- housekeeping ---- */

struct sweep_arg {
	struct slub_tstats *st;
	uint64_t now;
	bool all;
};

/* A quiet window: its storm closed, the node freed and dropped. */
static bool sweep_hot(struct hnode *n, void *arg)
{
	struct sweep_arg *a = arg;
	struct thot *h = (struct thot *)n;

	if (!a->all && a->now - h->last_ts <= a->st->cfg.window_ns + TSTATS_LATE_NS)
		return false;
	if (h->storm)
		storm_close(a->st, h->storm);
	free(h);
	return true;
}

static void sweep_runs(struct hnode *n, void *arg)
{
	struct sweep_arg *a = arg;

	run_close(a->st, (struct tthread *)n);
}

/* Closes the windows that went quiet (all: every one, and every run). */
void storms_sweep(struct slub_tstats *st, uint64_t now, bool all)
{
	struct sweep_arg a = { st, now, all };

	htab_remove_if(&st->hot, sweep_hot, &a);
	if (all)
		htab_each(&st->threads, sweep_runs, &a);
}

void storms_finish(struct slub_tstats *st)
{
	storms_sweep(st, UINT64_MAX, true);
	qsort(st->kept, st->nr_kept, sizeof(*st->kept), storm_cmp);
}

static void free_thread(struct hnode *n, void *arg)
{
	struct tthread *t = (struct tthread *)n;

	(void)arg;
	free(t->run);
	free(t->run_buf);
	free(t);
}

static void free_hot(struct hnode *n, void *arg)
{
	struct thot *h = (struct thot *)n;

	(void)arg;
	free(h->storm);
	free(h);
}

void storms_free(struct slub_tstats *st)
{
	htab_destroy(&st->threads, free_thread, NULL);
	htab_destroy(&st->hot, free_hot, NULL);
	for (unsigned i = 0; i < st->nr_kept; i++)
		free(st->kept[i]);
	st->nr_kept = 0;
}

unsigned slub_tstats_nr_storms(const struct slub_tstats *st)
{
	return st->nr_kept;
}

const struct slub_tstats_storm *slub_tstats_storm_at(const struct slub_tstats *st, unsigned i)
{
	if (i >= st->nr_kept)
		return NULL;
	struct tstorm *s = st->kept[i];
	s->s.cache = s->cache && s->cache->name ? s->cache->name : "?";
	return &s->s;
}
