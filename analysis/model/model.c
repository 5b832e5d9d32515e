/* SPDX-License-Identifier: MIT */
/*
 * The SLUB state model's core: per slab, per list_lock, per cpu slot and
 * per thread state (internal.h), fed one struct slub_event at a time.
 * This file keeps the entity tables, the discarded-events notices, the
 * records and reports (with the findings held for a registration), and the
 * public entry points; slub_model_event() hands each event class to its
 * handler: locks (lock.c), objects (object.c), slab events (ordered by
 * reorder.c, applied by slab.c).
 *
 * Two orders meet here.  A slab's events are applied in the order of its
 * slab word (reorder.c); lock, thread and cpu-slot checks run in arrival
 * order: a thread's events arrive in its program order, and one lock's
 * events are emitted inside its critical sections.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h ? h : 1;
}

/* ---- discarded-events notices ---- */

/* May events after `from_ts` be missing for an entity last synced at gen? */
int model_notice_covers(const struct slub_model *m, uint64_t gen, uint64_t from_ts)
{
	if (m->disc_gen == gen)
		return 0;
	if (m->disc_gen - gen > NOTICES)
		return 1;
	for (uint64_t g = gen + 1; g <= m->disc_gen; g++) {
		const typeof(m->notice[0]) *n = &m->notice[g % NOTICES];

		if (n->end >= from_ts)
			return 1;
	}
	return 0;
}

/* Did any recent notice lose events at or after from_ts (whatever the
 * entity saw since)?  For gaps found late: an event applied after a notice
 * may still be older than what the notice lost. */
int model_notice_since(const struct slub_model *m, uint64_t from_ts)
{
	uint64_t n = m->disc_gen < NOTICES ? m->disc_gen : NOTICES;

	for (uint64_t i = 0; i < n; i++)
		if (m->notice[(m->disc_gen - i) % NOTICES].end >= from_ts)
			return 1;
	return 0;
}


/*
 * Only record, judge nothing: after a discarded-events notice, every
 * process; after a registration, the process that registered (what LTTng
 * did not record of it before is its own).  Its notice still explains
 * gaps of every process, as a discarded-events notice does: a forking
 * run showed a gap explained by nothing else.
 */
int model_quarantined(const struct slub_model *m, uint32_t vpid)
{
	const struct mproc *p;

	if (m->disc_gen && m->now <= m->quarantine_until)
		return 1;
	if (m->now > m->reg_quarantine_until)
		return 0;
	p = (const struct mproc *)ht_find((struct htab *)&m->procs, vpid, 0);
	return p && m->now <= p->quarantine_until;
}

/* ---- entities ---- */

static size_t slab_bytes(const struct slub_model *m)
{
	return sizeof(struct mslab) + m->cfg.history * sizeof(struct slub_model_record);
}

/* The entry (k1, k2) of t, or a new zeroed one from pool p keyed so and
 * inserted (*made set); NULL when out of memory. */
static struct hnode *ht_get(struct htab *t, struct mm_pool *p, uint64_t k1, uint64_t k2,
			    int *made)
{
	struct hnode *h = ht_find(t, k1, k2);

	*made = 0;
	if (h)
		return h;
	h = mm_pool_get(p);
	if (!h)
		return NULL;
	h->k1 = k1;
	h->k2 = k2;
	ht_insert(t, h);
	*made = 1;
	return h;
}

static struct mproc *get_proc(struct slub_model *m, uint32_t vpid)
{
	int made;

	return (struct mproc *)ht_get(&m->procs, &m->p_proc, vpid, 0, &made);
}

static void purge_table(struct slub_model *m, struct htab *t, struct mm_pool *pool, uint64_t k1)
{
	for (size_t i = 0; i < t->nb; i++) {
		struct hnode **pp = &t->b[i];

		while (*pp) {
			struct hnode *h = *pp;

			if (h->k1 == k1) {
				*pp = h->next;
				t->n--;
				if (t == &m->slabs) {
					struct mslab *s = (struct mslab *)h;

					if (s->list_due == 2)
						model_report_leak(m, s, NULL);
					model_reorder_forget(m, s);
					m->sum.live_slabs--;
				}
				mm_pool_put(pool, h);
			} else {
				pp = &h->next;
			}
		}
	}
}

/* exec: the process image is new, so is every slab, lock and slot of it. */
static void new_incarnation(struct slub_model *m, struct mproc *p)
{
	uint64_t k1 = pkey((uint32_t)p->h.k1, p->inc);

	purge_table(m, &m->slabs, &m->p_slab, k1);
	purge_table(m, &m->locks, &m->p_lock, k1);
	purge_table(m, &m->slots, &m->p_slot, k1);
	purge_table(m, &m->objs, &m->p_obj, k1);
	purge_table(m, &m->caches, &m->p_cache, k1);
	purge_table(m, &m->sheaves, &m->p_sheaf, k1);
	purge_table(m, &m->threads, &m->p_thread, p->h.k1);
	p->inc++;
	p->obj_since = 0;
	p->seen = p->from_start = p->registered = 0;
}

struct mslab *model_get_slab(struct slub_model *m, uint64_t k1, uint64_t addr, int create)
{
	struct mslab *s;
	int made;

	if (!create)
		return (struct mslab *)ht_find(&m->slabs, k1, addr);
	s = (struct mslab *)ht_get(&m->slabs, &m->p_slab, k1, addr, &made);
	if (!s || !made)
		return s;
	s->vpid = (uint32_t)(k1 >> 32);
	s->owner = s->last_owner = -1;
	s->state = SLUB_STATE_UNKNOWN;
	s->gen = m->disc_gen;
	m->sum.slabs++;
	m->sum.live_slabs++;
	if (m->sum.live_slabs > m->sum.peak_slabs)
		m->sum.peak_slabs = m->sum.live_slabs;
	return s;
}

static int chain_whole(const struct mslab *s);

void model_free_slab(struct slub_model *m, struct mslab *s)
{
	/* A held finding about it is decided with what the slab was. */
	for (unsigned i = 0; i < m->ndeferred; i++)
		if (m->deferred[i].has_slab && m->deferred[i].k1 == s->h.k1 &&
		    m->deferred[i].r.slab == s->h.k2)
			m->deferred[i].stands = chain_whole(s);
	ht_remove(&m->slabs, &s->h);
	m->sum.live_slabs--;
	mm_pool_put(&m->p_slab, s);
}

struct mlock *model_get_lock(struct slub_model *m, uint64_t k1, uint32_t id)
{
	int made;
	struct mlock *l = (struct mlock *)ht_get(&m->locks, &m->p_lock, k1, id, &made);

	if (l && made)
		l->gen = m->disc_gen;
	return l;
}

struct mslot *model_get_slot(struct slub_model *m, uint64_t k1, uint32_t cache_id, int32_t slot)
{
	uint64_t k2 = (uint64_t)cache_id << 32 | (uint32_t)slot;
	int made;
	struct mslot *c = (struct mslot *)ht_get(&m->slots, &m->p_slot, k1, k2, &made);

	if (c && made)
		c->gen = m->disc_gen;
	return c;
}

static struct mthread *get_thread(struct slub_model *m, uint32_t vpid, uint32_t vtid)
{
	int made;
	struct mthread *t = (struct mthread *)ht_get(&m->threads, &m->p_thread, vpid, vtid, &made);

	if (t && made) {
		t->flush_slot = -1;
		t->gen = m->disc_gen;
	}
	return t;
}

const char *model_cache_name(struct slub_model *m, uint64_t k1, uint32_t cache_id)
{
	struct mcache *c = (struct mcache *)ht_find(&m->caches, k1, cache_id);

	return c && c->name[0] ? c->name : NULL;
}

/* Lost events may hide this lock's or slot's history: start over. */
void model_lock_touch(struct slub_model *m, struct mlock *l, uint64_t ts)
{
	if (l->gen != m->disc_gen) {
		if (l->known && model_notice_covers(m, l->gen, window_start(m, l->last_ts))) {
			l->known = 0;
			l->held = 0;
			l->ntouched = 0;
			m->sum.locks_resynced++;
		}
		l->gen = m->disc_gen;
	}
	l->last_ts = ts;
}

void model_slot_touch(struct slub_model *m, struct mslot *c, uint64_t ts)
{
	if (c->gen != m->disc_gen) {
		if (c->known && model_notice_covers(m, c->gen, window_start(m, c->last_ts)))
			c->known = 0;
		c->gen = m->disc_gen;
	}
	c->last_ts = ts;
}

static void thread_touch(struct slub_model *m, struct mthread *t, uint64_t ts)
{
	if (t->gen != m->disc_gen) {
		if (model_notice_covers(m, t->gen, window_start(m, t->last_ts))) {
			t->known = 0;
			t->nheld = 0;
			t->flush_slot = -1;
			t->suspect = SUSPECT_EVENTS;
		}
		t->gen = m->disc_gen;
	}
	t->last_ts = ts;
}

/* ---- records, history, reports ---- */

void model_make_record(struct slub_model_record *r, const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;

	memset(r, 0, sizeof(*r));
	r->ts = e->ts;
	r->slab = ev->slab;
	r->freelist = ev->new.freelist;
	r->lock_seq = ev->lock_seq;
	r->object = ev->object;
	r->vpid = e->vpid;
	r->vtid = e->vtid;
	r->cpu = ev->cpu;
	r->slot = is_cpu_event(ev->type) ? ev_slot(ev) : -1;
	r->type = ev->type;
	r->site = ev->site;
	r->cache_id = ev->cache_id;
	r->node = ev->node;
	r->dest = (uint8_t)ev->list;
	r->owner = -1;
	r->inuse = ev->new.inuse;
	r->objects = ev->new.objects;
	r->frozen = ev->new.frozen;
	r->seq = ev->new.seq;
	r->reason = ev->reason;
}

void model_hist_push(struct slub_model *m, struct mslab *s, const struct slub_model_record *r)
{
	uint32_t n = m->cfg.history;

	if (!n)
		return;
	s->hist[s->hist_head] = *r;
	s->hist_head = (s->hist_head + 1) % n;
	if (s->hist_n < n)
		s->hist_n++;
}

void model_deliver(struct slub_model *m, const struct slub_model_event *e, uint64_t k1,
		   int dropped)
{
	struct slub_model_applied a = { e, (uint32_t)k1, (uint32_t)dropped };
	struct slub_model_event q;

	if (!m->cb.applied)
		return;
	if (e->ev.type == SLUB_EV_UNFREEZE && e->ev.reason == UNFREEZE_IN_FLUSH) {
		/* the queued copy's mark (slab_event()) is the model's own */
		q = *e;
		q.ev.reason = 0;
		a.e = &q;
	}
	m->cb.applied(&a, m->cb.arg);
}

/* The key of vpid's current process image (the first when it has none). */
static uint64_t image_key(struct slub_model *m, uint32_t vpid)
{
	const struct mproc *p = (const struct mproc *)ht_find(&m->procs, vpid, 0);

	return pkey(vpid, p ? p->inc : 0);
}

static void flush_held(struct slub_model *m)
{
	if (!m->held)
		return;
	m->held = 0;
	m->cb.violation(&m->hv, m->cb.arg);
}

/* Hands a finding to the caller (history: nr records, or NULL). */
static void emit(struct slub_model *m, unsigned rule, const struct slub_model_record *r,
		 uint64_t k1, uint32_t other_vtid, const char *detail,
		 const struct slub_model_record *history, uint32_t nr, int may_hold)
{
	struct slub_model_violation v;

	flush_held(m); /* its buffers are about to be reused */
	m->sum.violations++;
	if (rule < 32)
		m->sum.violations_by_rule[rule]++;
	if (m->cfg.max_violations && m->sum.violations > m->cfg.max_violations)
		return;
	if (!m->cb.violation)
		return;
	if (detail != m->detail)
		snprintf(m->detail, sizeof(m->detail), "%s", detail);
	memset(&v, 0, sizeof(v));
	v.rule = rule;
	v.rule_id = slub_rule_id(rule);
	v.meaning = slub_rule_meaning(rule);
	v.kernel_fn = slub_rule_kernel_fn(rule);
	v.detail = m->detail;
	v.ts = r->ts;
	v.slab = r->slab;
	v.cache_id = r->cache_id;
	v.cache_name = model_cache_name(m, k1, r->cache_id);
	v.vpid = r->vpid;
	v.vtid = r->vtid;
	v.other_vtid = other_vtid;
	m->vrec = *r;
	v.event = &m->vrec;
	if (history && nr) {
		if (history != m->vhist)
			memcpy(m->vhist, history, nr * sizeof(*history));
		v.history = m->vhist;
		v.nr_history = nr;
	}
	if (may_hold && r->type < 64 && (m->cfg.stack_types & (1ull << r->type))) {
		m->hv = v;
		m->held = 1;
		return;
	}
	m->cb.violation(&v, m->cb.arg);
}

/*
 * A process of a recorded trace that has not registered yet is judged
 * provisionally.  LTTng-UST records a forked child from the parent's
 * session state until the child registers with the session daemon, and
 * loses some of its events in between without a discarded-events record
 * (seen: a list_lock acquisition, a slab's refreeze onto a cpu partial
 * chain).  The registration's lttng_ust_statedump:start comes after the
 * events it explains, so a finding of such a process waits: its
 * registration within the reorder window turns the finding into a
 * resynchronisation (a loss, not a violation); else it is reported when
 * the window has passed, or at the end.  A process traced from its start
 * (its first event announced its caches), and every process of a stream
 * without registrations (the in-process checker), is judged at once.
 */
static int awaits_registration(const struct slub_model *m, uint32_t vpid)
{
	const struct mproc *p;

	if (!m->registrations)
		return 0;
	p = (const struct mproc *)ht_find((struct htab *)&m->procs, vpid, 0);
	return p && !p->from_start && !p->registered;
}

void model_report(struct slub_model *m, unsigned rule, const struct slub_model_record *r,
		   struct mslab *s, uint64_t k1, uint32_t other_vtid, const char *fmt, ...)
{
	struct slub_model_record *hist = NULL;
	uint32_t nr = 0;
	va_list ap;
	int defer = awaits_registration(m, r->vpid) && m->ndeferred < DEFERRED_FINDINGS;

	if (!defer && (!m->cb.violation ||
		       (m->cfg.max_violations && m->sum.violations >= m->cfg.max_violations))) {
		emit(m, rule, r, k1, other_vtid, "", NULL, 0, 0); /* counted only */
		return;
	}
	flush_held(m); /* m->detail and m->vhist are about to be reused */
	va_start(ap, fmt);
	vsnprintf(m->detail, sizeof(m->detail), fmt, ap);
	va_end(ap);
	if (s && m->cfg.history) {
		uint32_t n = m->cfg.history, first = (s->hist_head + n - s->hist_n) % n;

		hist = defer ? m->dhist + (size_t)m->ndeferred * n : m->vhist;
		for (uint32_t i = 0; i < s->hist_n; i++)
			hist[i] = s->hist[(first + i) % n];
		nr = s->hist_n;
	}
	if (defer) {
		struct mdeferred *d = &m->deferred[m->ndeferred++];

		d->vpid = r->vpid;
		d->other = other_vtid;
		d->rule = rule;
		d->k1 = k1;
		d->r = *r;
		d->has_slab = s != NULL;
		d->stands = 0;
		d->nr_history = nr;
		memcpy(d->detail, m->detail, sizeof(d->detail));
		return;
	}
	emit(m, rule, r, k1, other_vtid, m->detail, hist, nr, 1);
}

static int chain_whole(const struct mslab *s)
{
	return s->have_seq && !s->pend && !s->skip_hi && !s->resync;
}

/* A finding about a slab whose seq chain has no hole stands whatever
 * the registration lost: the events it judged are all there (the child's
 * own adoption breaking a rule).  Others may rest on a lost event. */
static int judgeable(struct slub_model *m, const struct mdeferred *d)
{
	const struct mslab *s;

	if (!d->has_slab)
		return 0;
	s = (const struct mslab *)ht_find(&m->slabs, d->k1, d->r.slab);
	if (!s)
		return d->stands;
	return chain_whole(s);
}

/* Report the held findings whose window passed (all: every one); drop
 * those of a process that registered since, unless they stand. */
static void deferred_findings(struct slub_model *m, int all)
{
	unsigned keep = 0, n = m->cfg.history;

	for (unsigned i = 0; i < m->ndeferred; i++) {
		struct mdeferred *d = &m->deferred[i];
		const struct mproc *p = (const struct mproc *)ht_find(&m->procs, d->vpid, 0);

		if (p && p->registered && !judgeable(m, d)) {
			if (d->has_slab)
				m->sum.slabs_resynced++;
			else
				m->sum.locks_resynced++;
			continue;
		}
		if (all || m->now - d->r.ts > m->cfg.reorder_ns || !awaits_registration(m, d->vpid)) {
			emit(m, d->rule, &d->r, d->k1, d->other, d->detail,
			     m->dhist + (size_t)i * n, d->nr_history, 0);
			continue;
		}
		if (keep != i) {
			m->deferred[keep] = *d;
			if (n)
				memmove(m->dhist + (size_t)keep * n, m->dhist + (size_t)i * n,
					n * sizeof(*m->dhist));
		}
		keep++;
	}
	m->ndeferred = keep;
}


/* ---- entry points ---- */

struct slub_model *slub_model_new(const struct slub_model_config *cfg,
				  const struct slub_model_callbacks *cb)
{
	struct mm_ctx ctx = { { 0 }, 0, 0 };
	struct slub_model *m;

	if (cfg && cfg->mem)
		ctx.mem = *cfg->mem;
	m = mm_alloc(&ctx, sizeof(*m));
	if (!m)
		return NULL;
	memset(m, 0, sizeof(*m));
	m->mm = ctx;
	if (cfg)
		m->cfg = *cfg;
	m->cfg.mem = NULL;
	if (!m->cfg.reorder_ns)
		m->cfg.reorder_ns = SLUB_MODEL_DEFAULT_REORDER_NS;
	if (!m->cfg.reorder_events)
		m->cfg.reorder_events = SLUB_MODEL_DEFAULT_REORDER_EVENTS;
	if (!m->cfg.history)
		m->cfg.history = SLUB_MODEL_DEFAULT_HISTORY;
	if (cb)
		m->cb = *cb;
	mm_pool_init(&m->p_slab, &m->mm, slab_bytes(m));
	mm_pool_init(&m->p_pend, &m->mm, sizeof(struct pend));
	mm_pool_init(&m->p_lock, &m->mm, sizeof(struct mlock));
	mm_pool_init(&m->p_slot, &m->mm, sizeof(struct mslot));
	mm_pool_init(&m->p_thread, &m->mm, sizeof(struct mthread));
	mm_pool_init(&m->p_obj, &m->mm, sizeof(struct mobj));
	mm_pool_init(&m->p_cache, &m->mm, sizeof(struct mcache));
	mm_pool_init(&m->p_proc, &m->mm, sizeof(struct mproc));
	mm_pool_init(&m->p_sheaf, &m->mm, sizeof(struct msheaf));
	m->vhist = mm_alloc(&m->mm, m->cfg.history * sizeof(*m->vhist));
	m->dhist = mm_alloc(&m->mm, DEFERRED_FINDINGS * m->cfg.history * sizeof(*m->dhist));
	if (!m->vhist || (m->cfg.history && !m->dhist) || ht_init(&m->slabs, &m->mm, 1024) || ht_init(&m->locks, &m->mm, 64) ||
	    ht_init(&m->slots, &m->mm, 256) || ht_init(&m->threads, &m->mm, 256) ||
	    ht_init(&m->objs, &m->mm, 1024) || ht_init(&m->caches, &m->mm, 64) ||
	    ht_init(&m->procs, &m->mm, 16) || ht_init(&m->sheaves, &m->mm, 64)) {
		slub_model_free(m);
		return NULL;
	}
	return m;
}

void slub_model_free(struct slub_model *m)
{
	struct mm_ctx ctx;

	if (!m)
		return;
	mm_pool_destroy(&m->p_slab);
	mm_pool_destroy(&m->p_pend);
	mm_pool_destroy(&m->p_lock);
	mm_pool_destroy(&m->p_slot);
	mm_pool_destroy(&m->p_thread);
	mm_pool_destroy(&m->p_obj);
	mm_pool_destroy(&m->p_cache);
	mm_pool_destroy(&m->p_proc);
	mm_pool_destroy(&m->p_sheaf);
	if (m->sheaves.b)
		ht_destroy(&m->sheaves);
	if (m->slabs.b)
		ht_destroy(&m->slabs);
	if (m->locks.b)
		ht_destroy(&m->locks);
	if (m->slots.b)
		ht_destroy(&m->slots);
	if (m->threads.b)
		ht_destroy(&m->threads);
	if (m->objs.b)
		ht_destroy(&m->objs);
	if (m->caches.b)
		ht_destroy(&m->caches);
	if (m->procs.b)
		ht_destroy(&m->procs);
	mm_free(&m->mm, m->vhist, m->cfg.history * sizeof(*m->vhist));
	mm_free(&m->mm, m->dhist, DEFERRED_FINDINGS * m->cfg.history * sizeof(*m->dhist));
	ctx = m->mm;
	mm_free(&ctx, m, sizeof(*m));
}

static void cache_event(struct slub_model *m, struct mproc *p, const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;
	uint64_t k1 = pkey(e->vpid, p->inc);
	struct mcache *c = (struct mcache *)ht_find(&m->caches, k1, ev->cache_id);

	if (ev->type == SLUB_EV_CACHE_DESTROY) {
		if (c)
			c->destroyed = 1;
		return;
	}
	/* A cache id created twice in one process image: an exec happened. */
	if (c && !c->destroyed && ev->reason == 0) {
		new_incarnation(m, p);
		k1 = pkey(e->vpid, p->inc);
		c = NULL;
	}
	if (!c) {
		c = mm_pool_get(&m->p_cache);
		if (!c)
			return;
		c->h.k1 = k1;
		c->h.k2 = ev->cache_id;
		ht_insert(&m->caches, &c->h);
	}
	c->destroyed = 0;
	if (ev->info)
		c->objects = ev->info->objects;
	slub_sheaves_cache(m, c, ev);
	if (ev->info && ev->info->name) {
		strncpy(c->name, ev->info->name, sizeof(c->name) - 1);
		c->name[sizeof(c->name) - 1] = 0;
	}
}

/* The thread's memory goes at its exit (or a flush with nothing held). */
static void thread_flush(struct slub_model *m, struct mthread *t)
{
	t->flush_slot = -1;
	if (!t->nheld) {
		ht_remove(&m->threads, &t->h);
		mm_pool_put(&m->p_thread, t);
	}
}

void model_failed_record(struct slub_model *m, struct mslab *s, const struct slub_model_event *e)
{
	struct slub_model_record r;

	model_make_record(&r, e);
	r.before = r.after = s->state;
	r.list = s->list;
	model_hist_push(m, s, &r);
}

/*
 * A failed CAS or an allocator error changes nothing: its slab's history
 * shows it.  A failed slab-word CAS takes its place in the slab's order
 * right after the update whose word it observed (its new.seq): it fires
 * after its CAS, when that update's event may still be on its way, and
 * whoever reads the model's order (the statistics' winner of a failure)
 * finds that update applied before it.  Returns 1 when the slab's order
 * took it (it is delivered from there).
 */
static int failed_update(struct slub_model *m, uint64_t k1, const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;
	struct mslab *s = ev->slab ? model_get_slab(m, k1, ev->slab, 0) : NULL;

	if (!s)
		return 0;
	if (ev->type == SLUB_EV_CMPXCHG_FAIL && s->have_seq) {
		model_slab_submit(m, s, e, ev->new.seq, 0, 1);
		return 1;
	}
	model_failed_record(m, s, e);
	return 0;
}

/* No slab lives at address 0: the producer named none. */
static void slab_zero(struct slub_model *m, uint64_t k1, const struct slub_model_event *e)
{
	unsigned type = e->ev.type;
	struct slub_model_record r;

	if (is_word_event(type) || is_list_op(type) || type == SLUB_EV_SLAB_DISCARD ||
	    type == SLUB_EV_CPU_SLAB_LOAD || type == SLUB_EV_CPU_PARTIAL_PUT ||
	    type == SLUB_EV_CPU_PARTIAL_TAKE) {
		model_make_record(&r, e);
		model_report(m, SLUB_RULE_TRANSITION, &r, NULL, k1, 0,
			     "%s at %s of slab 0: no slab has address 0 (the event is dropped)",
			     slub_event_name(type), slub_site_name(e->ev.site));
	}
	model_deliver(m, e, k1, 1);
}

/*
 * A slab event: its arrival-order checks (the lock a word update or list
 * operation runs under, the cpu slot), the key that orders it among the
 * slab's events (its seq, or the seq its thread last saw), then the slab's
 * order (reorder.c).  Returns -1 when memory ran out.
 */
static int slab_event(struct slub_model *m, uint64_t k1, struct mthread *t,
		      const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;
	unsigned type = ev->type;
	int word = is_word_event(type);
	int lenient = t->suspect > 0 || model_quarantined(m, e->vpid);
	uint64_t key;
	struct mslab *s;

	if (t->suspect)
		t->suspect--;
	if (word) {
		key = ev->new.seq;
		model_lru_note(t, ev->slab, ev->new.seq);
		if (ev->locked) {
			struct mlock *l = model_get_lock(m, k1, lock_id_of(ev->cache_id, ev->node));

			if (l && l->held && l->holder == e->vtid)
				model_lock_note_slab(l, ev->slab);
		}
	} else if (is_list_op(type)) {
		key = ev->new.seq;
		model_list_op_arrival(m, k1, e, t, lenient);
	} else if (type == SLUB_EV_SLAB_DISCARD) {
		key = ev->new.seq;
	} else {
		key = model_lru_key(t, ev->slab);
	}
	if (is_cpu_event(type) || type == SLUB_EV_TAKE_FREELIST || type == SLUB_EV_DRAIN_FREELIST)
		model_slot_event(m, k1, t, e, lenient);
	if (type == SLUB_EV_SLAB_DISCARD)
		model_discard_arrival(m, k1, e, lenient);

	s = model_get_slab(m, k1, ev->slab, 1);
	if (!s)
		return -1;
	if (type == SLUB_EV_UNFREEZE && ev->site == SLUB_SITE_UNFREEZE_PARTIALS) {
		/*
		 * Whose chain the thread is flushing is known now, in its own
		 * order; the unfreeze is judged later, in the slab's seq
		 * order, when the thread may be flushing another slot.  The
		 * answer travels in the queued copy's reason (unused by an
		 * unfreeze): UNFREEZE_IN_FLUSH.
		 */
		struct slub_model_event q = *e;

		q.ev.reason = t->flush_slot >= 0 && t->flush_slot == ev->old.owner &&
			      t->flush_cache == ev->cache_id ? UNFREEZE_IN_FLUSH : 0;
		model_slab_submit(m, s, &q, key, word, lenient);
		return 0;
	}
	model_slab_submit(m, s, e, key, word, lenient);
	return 0;
}

/* The process image of the event (a new procname is an exec). */
static struct mproc *event_proc(struct slub_model *m, const struct slub_model_event *e)
{
	struct mproc *p = get_proc(m, e->vpid);

	if (!p)
		return NULL;
	if (e->procname && *e->procname) {
		uint64_t h = hash_str(e->procname);

		if (p->namehash && p->namehash != h)
			new_incarnation(m, p);
		p->namehash = h;
	}
	if (!p->seen) {
		p->seen = 1;
		p->from_start = e->ev.type == SLUB_EV_CACHE_CREATE && e->ev.reason == 1;
		p->from_ts = e->ts;
	}
	return p;
}

int slub_model_event(struct slub_model *m, const struct slub_model_event *e)
{
	unsigned type = e->ev.type;
	struct mproc *p;
	struct mthread *t;
	uint64_t k1;
	int ordered = 0;	/* the slab's order delivers it */

	m->sum.events++;
	if (m->ndeferred)
		deferred_findings(m, 0);
	/* The thread went on without the stack its violation waited for. */
	if (m->held && m->hv.vpid == e->vpid && m->hv.vtid == e->vtid)
		flush_held(m);
	if (type >= SLUB_EV_NR) {
		model_deliver(m, e, image_key(m, e->vpid), 0);
		return 0;
	}
	if (e->ts > m->now)
		m->now = e->ts;
	m->seen |= 1ull << type;
	p = event_proc(m, e);
	if (!p)
		return -1;
	if (type == SLUB_EV_CACHE_CREATE || type == SLUB_EV_CACHE_DESTROY) {
		cache_event(m, p, e);
		model_deliver(m, e, pkey(e->vpid, p->inc), 0);
		return 0;
	}
	k1 = pkey(e->vpid, p->inc);
	t = get_thread(m, e->vpid, e->vtid);
	if (!t)
		return -1;
	thread_touch(m, t, e->ts);

	switch (type) {
	case SLUB_EV_LOCK_ACQUIRE:
	case SLUB_EV_LOCK_RELEASE:
		model_lock_event(m, k1, e, t, model_quarantined(m, e->vpid));
		break;
	case SLUB_EV_ALLOC:
	case SLUB_EV_FREE:
		model_object_event(m, k1, p, e);
		break;
	case SLUB_EV_SLABINFO_WALK:
		/* count_partial() reads the listed slabs' words under the
		 * lock and changes no slab, list or word: nothing to apply,
		 * nothing to judge (the hold it belongs to is judged by its
		 * own lock events). */
		break;
	case SLUB_EV_THREAD_FLUSH:
		thread_flush(m, t);
		break;
	case SLUB_EV_SHEAF_REFILL:
	case SLUB_EV_SHEAF_FLUSH:
	case SLUB_EV_SHEAF_SLOT:
	case SLUB_EV_BARN_PUT:
	case SLUB_EV_BARN_GET:
	case SLUB_EV_SHEAF_ALLOC:
	case SLUB_EV_SHEAF_FREE:
		sheaves_event(m, k1, t, e);
		break;
	case SLUB_EV_CMPXCHG_FAIL:
	case SLUB_EV_CPU_CMPXCHG_FAIL:
	case SLUB_EV_ERROR:
		ordered = failed_update(m, k1, e);
		break;
	default:
		ordered = 1;
		if (!e->ev.slab)
			slab_zero(m, k1, e);
		else if (slab_event(m, k1, t, e))
			return -1;
	}
	if (!ordered)
		model_deliver(m, e, k1, 0);
	model_expire(m);
	return 0;
}

void slub_model_stack(struct slub_model *m, uint32_t vpid, uint32_t vtid, unsigned type,
		      uint64_t slab, const uint64_t *ips, uint32_t nr)
{
	struct mproc *p = (struct mproc *)ht_find(&m->procs, vpid, 0);
	struct mslab *s;

	if (type < 64)
		m->cfg.stack_types |= 1ull << type;
	if (m->held && m->hv.vpid == vpid && m->hv.vtid == vtid && m->hv.event->type == type &&
	    (!slab || m->hv.event->slab == slab)) {
		uint32_t n = nr < SLUB_MODEL_MAX_STACK ? nr : SLUB_MODEL_MAX_STACK;

		memcpy(m->hips, ips, n * sizeof(*ips));
		m->hv.stack = m->hips;
		m->hv.stack_nr = n;
		m->vrec.stack_nr = n;
		flush_held(m);
	}
	if (!p || !slab)
		return;
	s = model_get_slab(m, pkey(vpid, p->inc), slab, 0);
	if (!s || !s->hist_n)
		return;
	/* The slab's latest record of that thread and type had this stack. */
	for (uint32_t i = 0; i < s->hist_n; i++) {
		uint32_t n = m->cfg.history;
		struct slub_model_record *r = &s->hist[(s->hist_head + n - 1 - i) % n];

		if (r->vtid == vtid && r->type == type) {
			r->stack_nr = nr;
			break;
		}
	}
}

void slub_model_discarded(struct slub_model *m, const struct slub_model_discard *d)
{
	uint64_t g = ++m->disc_gen;

	m->notice[g % NOTICES].begin = d->range_known ? d->begin_ts : 0;
	m->notice[g % NOTICES].end = d->range_known ? d->end_ts : UINT64_MAX;
	m->notice[g % NOTICES].gen = g;
	m->sum.gaps++;
	if (d->foreign)
		m->sum.foreign_discarded += d->count;
	else
		m->sum.events_discarded += d->count;
	{
		uint64_t end = d->range_known ? d->end_ts : m->now;

		if (end + m->cfg.reorder_ns > m->quarantine_until)
			m->quarantine_until = end + m->cfg.reorder_ns;
	}
	if (d->range_known && d->end_ts > m->now)
		m->now = d->end_ts;
}

void slub_model_registered(struct slub_model *m, uint32_t vpid, uint64_t ts)
{
	struct mproc *p = (struct mproc *)ht_find(&m->procs, vpid, 0);
	uint64_t g;

	m->registrations = 1;
	if (!p)
		return;
	/* Findings older than the window before it stay findings; the
	 * others were the registration's loss. */
	if (ts > m->now)
		m->now = ts;
	if (m->ndeferred)
		deferred_findings(m, 0);
	p->registered = 1;
	if (m->ndeferred)
		deferred_findings(m, 0);
	g = ++m->disc_gen;
	m->notice[g % NOTICES].begin = 0;
	m->notice[g % NOTICES].end = ts;
	m->notice[g % NOTICES].gen = g;
	/* other processes go on being judged (see model_quarantined()) */
	if (ts + m->cfg.reorder_ns > p->quarantine_until)
		p->quarantine_until = ts + m->cfg.reorder_ns;
	if (p->quarantine_until > m->reg_quarantine_until)
		m->reg_quarantine_until = p->quarantine_until;
	if (ts > m->now)
		m->now = ts;
}

static void fill_skipped(const struct slub_model *m, struct slub_model_summary *s)
{
	uint64_t seen = m->seen, sk = 0;
	const uint64_t word = (1ull << SLUB_EV_FREEZE) | (1ull << SLUB_EV_UNFREEZE) |
			      (1ull << SLUB_EV_TAKE_FREELIST) | (1ull << SLUB_EV_FREE_REMOTE) |
			      (1ull << SLUB_EV_SLAB_NEW);
	const uint64_t lists = (1ull << SLUB_EV_ADD_PARTIAL) | (1ull << SLUB_EV_REMOVE_PARTIAL) |
			       (1ull << SLUB_EV_ADD_FULL) | (1ull << SLUB_EV_REMOVE_FULL);

	if (!(seen & word))
		sk |= 1ull << SLUB_RULE_TRANSITION | 1ull << SLUB_RULE_FROZEN_STATE |
		      1ull << SLUB_RULE_OWNER | 1ull << SLUB_RULE_FREEZE |
		      1ull << SLUB_RULE_UNFREEZE | 1ull << SLUB_RULE_WORD_CHAIN |
		      1ull << SLUB_RULE_WORD_OBJECTS | 1ull << SLUB_RULE_WORD_DELTA;
	if (!(seen & (1ull << SLUB_EV_SLAB_DISCARD)))
		sk |= 1ull << SLUB_RULE_DISCARD;
	if (!(seen & lists))
		sk |= 1ull << SLUB_RULE_LIST_UNLOCKED | 1ull << SLUB_RULE_LIST_ONE |
		      1ull << SLUB_RULE_LIST_REMOVE | 1ull << SLUB_RULE_LIST_AT_UNLOCK;
	if (!(seen & (1ull << SLUB_EV_LOCK_ACQUIRE)))
		sk |= 1ull << SLUB_RULE_LIST_AT_UNLOCK | 1ull << SLUB_RULE_LOCK_HOLDER |
		      1ull << SLUB_RULE_LOCK_RECURSIVE | 1ull << SLUB_RULE_LOCK_ORDER |
		      1ull << SLUB_RULE_LOCK_SEQ;
	if (!(seen & ((1ull << SLUB_EV_ALLOC) | (1ull << SLUB_EV_FREE))))
		sk |= 1ull << SLUB_RULE_DOUBLE_FREE | 1ull << SLUB_RULE_DOUBLE_ALLOC |
		      1ull << SLUB_RULE_OBJECT_SLAB;
	if (!(seen & ((1ull << SLUB_EV_CPU_SLAB_LOAD) | (1ull << SLUB_EV_DEACTIVATE))))
		sk |= 1ull << SLUB_RULE_CPU_SLAB;
	s->skipped_rules = sk;
}

void slub_model_get_summary(const struct slub_model *m, struct slub_model_summary *s)
{
	*s = m->sum;
	s->mem_bytes = m->mm.bytes;
	s->peak_mem_bytes = m->mm.peak;
	s->cut_lag_ns = m->cfg.cut_begin_ns || m->cfg.cut_end_ns ? model_cut_lag(m) : 0;
	fill_skipped(m, s);
}

void slub_model_finish(struct slub_model *m)
{
	struct slub_model_summary s;

	if (m->finished)
		return;
	m->finished = 1;
	/* Nothing more will come: every gap still open is final. */
	while (m->wq_head)
		model_give_up(m, m->wq_head);
	deferred_findings(m, 1);
	for (size_t i = 0; i < m->slabs.nb; i++)
		for (struct hnode *h = m->slabs.b[i]; h; h = h->next)
			if (((struct mslab *)h)->list_due == 2)
				model_report_leak(m, (struct mslab *)h, NULL);
	flush_held(m);
	slub_model_get_summary(m, &s);
	if (m->cb.summary)
		m->cb.summary(&s, m->cb.arg);
}
