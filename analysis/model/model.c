/* SPDX-License-Identifier: MIT */
/*
 * The SLUB state model: per slab, per list_lock, per cpu slot and per
 * thread state, fed one struct slub_event at a time.
 *
 * Two orders meet here.  A slab's events are applied in the order of its
 * slab word: word events by seq, every other event of the slab (list and
 * cpu-slot operations, slab_discard) right after the word update its thread
 * last saw (the seq a list operation carries, or the thread's own last
 * update of that slab).  Events that arrive early wait in the slab's
 * reorder list; a slab that waits sits in a FIFO so that a gap older than
 * the window is given up (a lost update, or resynchronisation when a
 * discarded-events notice covers it).  Lock, thread and cpu-slot checks
 * run in arrival order: a thread's events arrive in its program order, and
 * one lock's events are emitted inside its critical sections.
 *
 * Entities live in hash tables keyed by (vpid << 32 | incarnation, id):
 * O(live slabs + locks + slots + threads + allocated objects).
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mem.h"
#include "slub_model.h"

#define KEY_LAST UINT64_MAX /* "after everything the slab has seen" */
#define NOTICES 64
#define LOCK_TOUCH 32
#define THREAD_HELD 4
#define THREAD_LRU 8
/* After lost events, a thread's next events may depend on lost ones (the
 * deactivate after a lost unfreeze, the release after a lost acquire): that
 * many of them only update the state. */
#define SUSPECT_EVENTS 64

struct pend {
	struct pend *next;
	int lenient;      /* its thread may have lost events just before it */
	uint64_t sort;    /* 2 * seq for a word event, 2 * seq + 1 after it */
	uint64_t order;   /* arrival number: ties keep arrival order */
	uint64_t arrival; /* model time when it arrived */
	struct slub_model_event e;
};

struct mslab {
	struct hnode h; /* k1 = process key, k2 = address */
	uint32_t vpid, cache_id;
	int32_t node, owner, last_owner;
	uint8_t state, list, list_known, have_seq;
	uint8_t born, pages, resync, waiting;
	/* 1: unfrozen to the partial list, add_partial due before the lock
	 * drops; 2: the lock (due_lock, acquisition due_seq) dropped first. */
	uint8_t list_due;
	uint32_t due_lock;
	uint64_t due_seq;
	uint64_t freelist;
	uint32_t inuse, objects, frozen, seq;
	uint32_t base_seq, skip_lo, skip_hi;
	uint64_t gen, last_ts, born_ts, born_gen;
	struct pend *pend, *pend_tail;
	uint32_t npend;
	struct mslab *wprev, *wnext;
	uint64_t wait_since;
	uint32_t hist_n, hist_head;
	struct slub_model_record hist[];
};

struct mproc {
	struct hnode h; /* k1 = vpid */
	uint32_t inc;
	uint64_t namehash;
	uint64_t obj_since; /* first object event, 0 = none yet */
	/* seen: this image has had an event.  from_start: its first one was
	 * the announcement of its caches, which the allocator emits once,
	 * before the first traced event of a process image (src/observer.c):
	 * the trace holds the image from its first traced event, so every
	 * cache it uses was announced or created in it.  Threads that run
	 * while the announcement is emitted may trace events before it ends:
	 * judged from a reorder window after it (from_ts) on. */
	uint8_t seen, from_start;
	uint64_t from_ts;
	/* registered at ts: its events up to ts + the reorder window are
	 * recorded, not judged (what LTTng did not record before may be
	 * logically before or after them) */
	uint64_t quarantine_until;
	uint8_t registered;	/* its lttng_ust_statedump:start came */
};

struct mcache {
	struct hnode h; /* k1 = process key, k2 = cache id */
	uint8_t destroyed;
	uint32_t objects; /* per slab, from cache_create (0: not given) */
	char name[55];
};

struct mlock {
	struct hnode h; /* k1 = process key, k2 = lock id */
	uint64_t seq;
	uint32_t holder;
	uint8_t known, held, overflow;
	uint64_t gen, last_ts;
	uint32_t ntouched;
	uint64_t touched[LOCK_TOUCH];
};

struct mslot {
	struct hnode h; /* k1 = process key, k2 = cache id << 32 | slot */
	uint64_t active;
	uint32_t chain;
	uint8_t known;
	uint64_t gen, last_ts;
};

struct mthread {
	struct hnode h; /* k1 = vpid, k2 = vtid */
	uint32_t nheld;
	uint32_t held[THREAD_HELD];
	uint8_t known;
	int32_t flush_slot; /* a flush of another slot in progress, -1 none */
	uint32_t suspect;   /* events of this thread not judged: some of its
			     * events before them may have been lost */
	uint32_t flush_cache;
	uint64_t gen, last_ts;
	/* the seq of the thread's latest update (or list operation) per slab */
	struct {
		uint64_t slab;
		uint32_t seq;
	} lru[THREAD_LRU];
	uint32_t lru_i;
};

struct mobj {
	struct hnode h; /* k1 = process key, k2 = object address */
	uint64_t slab;
	uint32_t cache_id;
	uint64_t gen, ts; /* notices and time when it was allocated */
};

/* Findings held back at once, at most (more are reported at once). */
#define DEFERRED_FINDINGS 16

struct slub_model {
	struct slub_model_config cfg;
	struct slub_model_callbacks cb;
	struct mm_ctx mm;
	struct mm_pool p_slab, p_pend, p_lock, p_slot, p_thread, p_obj, p_cache, p_proc;
	struct htab slabs, locks, slots, threads, objs, caches, procs;
	uint64_t now, order;
	uint64_t disc_gen;
	/* After a discarded-events notice, events of the reorder window around
	 * it may be logically before or after the lost ones: until then the
	 * model only records, and forgets what it cannot trust. */
	uint64_t quarantine_until;
	/* the latest quarantine_until of a process (registrations) */
	uint64_t reg_quarantine_until;
	struct {
		uint64_t begin, end, gen;
	} notice[NOTICES];
	struct mslab *wq_head, *wq_tail;
	uint64_t npend;
	uint64_t seen;
	uint64_t applied_mask; /* types that reached a rule */
	struct slub_model_summary sum;
	int finished;
	/* the violation being reported */
	struct slub_model_record vrec;
	struct slub_model_record *vhist;
	char detail[512];
	/* Findings of processes that may still register (see report()),
	 * oldest first; dhist: history records of each, cfg.history apiece */
	struct mdeferred {
		uint32_t vpid, other;
		unsigned rule, nr_history;
		int has_slab;	/* a finding about slab r.slab */
		int stands;	/* its slab went with no hole in its chain */
		uint64_t k1;
		struct slub_model_record r;
		char detail[512];
	} deferred[DEFERRED_FINDINGS];
	unsigned ndeferred;
	struct slub_model_record *dhist;
	int registrations;	/* slub_model_registered() was called */
	/* a violation waiting for the stack of its event */
	int held;
	struct slub_model_violation hv;
	uint64_t hips[SLUB_MODEL_MAX_STACK];
};

/* ---- small helpers ---- */

static inline uint64_t pkey(uint32_t vpid, uint32_t inc)
{
	return (uint64_t)vpid << 32 | inc;
}

static int is_word_event(unsigned t)
{
	switch (t) {
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

static int is_list_op(unsigned t)
{
	return t == SLUB_EV_ADD_PARTIAL || t == SLUB_EV_REMOVE_PARTIAL || t == SLUB_EV_ADD_FULL ||
	       t == SLUB_EV_REMOVE_FULL;
}

static int is_cpu_event(unsigned t)
{
	return t == SLUB_EV_CPU_SLAB_LOAD || t == SLUB_EV_DEACTIVATE ||
	       t == SLUB_EV_CPU_PARTIAL_PUT || t == SLUB_EV_CPU_PARTIAL_TAKE ||
	       t == SLUB_EV_CPU_PARTIAL_DRAIN;
}

/* The cpu slot an event acts upon (cpu slot events carry it apart from
 * the acting cpu: they differ when a thread flushes another slot). */
static int32_t ev_slot(const struct slub_event *ev)
{
	return ev->slot >= 0 ? ev->slot : ev->cpu;
}

static uint32_t lock_id_of(uint32_t cache_id, int32_t node)
{
	return cache_id * 64 + (uint32_t)node;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h ? h : 1;
}

/* ---- discarded-events notices ---- */

/* May events after `from_ts` be missing for an entity last synced at gen? */
static int notice_covers(const struct slub_model *m, uint64_t gen, uint64_t from_ts)
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
static int notice_since(const struct slub_model *m, uint64_t from_ts)
{
	uint64_t n = m->disc_gen < NOTICES ? m->disc_gen : NOTICES;

	for (uint64_t i = 0; i < n; i++)
		if (m->notice[(m->disc_gen - i) % NOTICES].end >= from_ts)
			return 1;
	return 0;
}

static uint64_t window_start(const struct slub_model *m, uint64_t ts)
{
	return ts > m->cfg.reorder_ns ? ts - m->cfg.reorder_ns : 0;
}

/*
 * Only record, judge nothing: after a discarded-events notice, every
 * process; after a registration, the process that registered (what LTTng
 * did not record of it before is its own).  Its notice still explains
 * gaps of every process, as a discarded-events notice does: a forking
 * run showed a gap explained by nothing else.
 */
static int quarantined(const struct slub_model *m, uint32_t vpid)
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

static void report_leak(struct slub_model *m, struct mslab *s,
			const struct slub_model_record *r);

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
						report_leak(m, s, NULL);

					while (s->pend) {
						struct pend *pe = s->pend;

						s->pend = pe->next;
						mm_pool_put(&m->p_pend, pe);
						m->npend--;
					}
					if (s->waiting) {
						if (s->wprev)
							s->wprev->wnext = s->wnext;
						else
							m->wq_head = s->wnext;
						if (s->wnext)
							s->wnext->wprev = s->wprev;
						else
							m->wq_tail = s->wprev;
					}
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
	purge_table(m, &m->threads, &m->p_thread, p->h.k1);
	p->inc++;
	p->obj_since = 0;
	p->seen = p->from_start = p->registered = 0;
}

static struct mslab *get_slab(struct slub_model *m, uint64_t k1, uint64_t addr, int create)
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

static void free_slab(struct slub_model *m, struct mslab *s)
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

static struct mlock *get_lock(struct slub_model *m, uint64_t k1, uint32_t id)
{
	int made;
	struct mlock *l = (struct mlock *)ht_get(&m->locks, &m->p_lock, k1, id, &made);

	if (l && made)
		l->gen = m->disc_gen;
	return l;
}

static struct mslot *get_slot(struct slub_model *m, uint64_t k1, uint32_t cache_id, int32_t slot)
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

static const char *cache_name(struct slub_model *m, uint64_t k1, uint32_t cache_id)
{
	struct mcache *c = (struct mcache *)ht_find(&m->caches, k1, cache_id);

	return c && c->name[0] ? c->name : NULL;
}

/* Lost events may hide this lock's or slot's history: start over. */
static void lock_touch(struct slub_model *m, struct mlock *l, uint64_t ts)
{
	if (l->gen != m->disc_gen) {
		if (l->known && notice_covers(m, l->gen, window_start(m, l->last_ts))) {
			l->known = 0;
			l->held = 0;
			l->ntouched = 0;
			m->sum.locks_resynced++;
		}
		l->gen = m->disc_gen;
	}
	l->last_ts = ts;
}

static void slot_touch(struct slub_model *m, struct mslot *c, uint64_t ts)
{
	if (c->gen != m->disc_gen) {
		if (c->known && notice_covers(m, c->gen, window_start(m, c->last_ts)))
			c->known = 0;
		c->gen = m->disc_gen;
	}
	c->last_ts = ts;
}

static void thread_touch(struct slub_model *m, struct mthread *t, uint64_t ts)
{
	if (t->gen != m->disc_gen) {
		if (notice_covers(m, t->gen, window_start(m, t->last_ts))) {
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

static void make_record(struct slub_model_record *r, const struct slub_model_event *e)
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

static void hist_push(struct slub_model *m, struct mslab *s, const struct slub_model_record *r)
{
	uint32_t n = m->cfg.history;

	if (!n)
		return;
	s->hist[s->hist_head] = *r;
	s->hist_head = (s->hist_head + 1) % n;
	if (s->hist_n < n)
		s->hist_n++;
}

static void report(struct slub_model *m, unsigned rule, const struct slub_model_record *r,
		   struct mslab *s, uint64_t k1, uint32_t other_vtid, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

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
	v.cache_name = cache_name(m, k1, r->cache_id);
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

static void report(struct slub_model *m, unsigned rule, const struct slub_model_record *r,
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

/* ---- the slab state machine ---- */

static uint8_t dest_state(unsigned dest, const struct slub_word *w)
{
	switch (dest) {
	case SLUB_DEST_HEAD:
	case SLUB_DEST_TAIL:
		return SLUB_STATE_NODE_PARTIAL;
	case SLUB_DEST_FULL:
		return SLUB_STATE_FULL;
	case SLUB_DEST_DISCARD:
		return SLUB_STATE_DISCARDED;
	}
	return w->freelist ? SLUB_STATE_NODE_PARTIAL : SLUB_STATE_FULL;
}

/* The edge of the table this event takes from `before`, or NULL. */
static const struct slub_transition *find_edge(uint8_t before, const struct slub_event *ev)
{
	int takes = ev->type == SLUB_EV_FREEZE && ev->new.freelist == 0;
	uint8_t dst = dest_state(ev->list, &ev->new);

	for (unsigned i = 0, n = slub_transition_count(); i < n; i++) {
		const struct slub_transition *t = slub_transition_get(i);

		if (t->before != before || t->type != ev->type)
			continue;
		if (t->site != SLUB_SITE_NONE && t->site != ev->site)
			continue;
		if (ev->type == SLUB_EV_FREEZE && ev->site == SLUB_SITE_ACQUIRE_SLAB &&
		    !!(t->cond & SLUB_COND_TAKES) != takes)
			continue;
		if ((t->cond & SLUB_COND_DEST) && t->after != dst)
			continue;
		return t;
	}
	return NULL;
}

static uint8_t list_of_op(unsigned type)
{
	return type == SLUB_EV_ADD_FULL || type == SLUB_EV_REMOVE_FULL ? SLUB_LIST_FULL
								      : SLUB_LIST_PARTIAL;
}

static void set_word(struct mslab *s, const struct slub_word *w)
{
	s->freelist = w->freelist;
	s->inuse = w->inuse;
	s->objects = w->objects;
	s->frozen = w->frozen;
	s->seq = w->seq;
}

/* What a slab seen without history (first event, or after lost events) is. */
static void baseline(struct slub_model *m, struct mslab *s, const struct slub_event *ev)
{
	unsigned t = ev->type;

	if (is_word_event(t)) {
		set_word(s, &ev->new);
		if (!s->have_seq)
			s->base_seq = ev->new.seq;
		s->have_seq = 1;
	}
	s->pages = t != SLUB_EV_SLAB_DISCARD; /* an event of a live slab: it has pages */
	switch (t) {
	case SLUB_EV_SLAB_NEW:
		s->state = SLUB_STATE_CPU_ACTIVE;
		s->owner = ev->cpu;
		s->list = SLUB_LIST_NONE;
		s->list_known = 1;
		s->pages = 1;
		break;
	case SLUB_EV_FREEZE:
		s->owner = ev->cpu;
		s->state = ev->site == SLUB_SITE_ACQUIRE_SLAB && ev->new.freelist == 0
				   ? SLUB_STATE_CPU_ACTIVE
				   : SLUB_STATE_CPU_PARTIAL;
		/* acquire_slab() freezes a slab still on the partial list; a
		 * free-time freeze may find it on the full list */
		s->list = SLUB_LIST_PARTIAL;
		s->list_known = ev->site == SLUB_SITE_ACQUIRE_SLAB;
		return;
	case SLUB_EV_TAKE_FREELIST:
	case SLUB_EV_DRAIN_FREELIST:
		s->owner = ev->cpu;
		s->state = SLUB_STATE_CPU_ACTIVE;
		break;
	case SLUB_EV_UNFREEZE:
		s->last_owner = ev->old.owner >= 0 ? ev->old.owner : -1;
		s->owner = -1;
		s->state = dest_state(ev->list, &ev->new);
		break;
	case SLUB_EV_FREE_REMOTE:
		if (!ev->new.frozen)
			s->state = ev->new.freelist ? SLUB_STATE_NODE_PARTIAL : SLUB_STATE_FULL;
		break;
	case SLUB_EV_CPU_SLAB_LOAD:
	case SLUB_EV_CPU_PARTIAL_TAKE:
		s->owner = ev_slot(ev);
		s->state = SLUB_STATE_CPU_ACTIVE;
		break;
	case SLUB_EV_CPU_PARTIAL_PUT:
		s->owner = ev_slot(ev);
		s->state = SLUB_STATE_CPU_PARTIAL;
		s->list = SLUB_LIST_CPU_PARTIAL;
		s->list_known = 1;
		return;
	case SLUB_EV_ADD_PARTIAL:
	case SLUB_EV_ADD_FULL:
		s->list = list_of_op(t);
		s->list_known = 1;
		break;
	case SLUB_EV_REMOVE_PARTIAL:
	case SLUB_EV_REMOVE_FULL:
		s->list = SLUB_LIST_NONE;
		s->list_known = 1;
		break;
	case SLUB_EV_SLAB_DISCARD:
		s->state = SLUB_STATE_DISCARDED;
		s->pages = 0;
		s->list = SLUB_LIST_NONE;
		s->list_known = 1;
		break;
	}
}

/*
 * Word rules that need only the previous word and this one: R5 (chain,
 * objects, deltas) and R2.  Returns 1 when a violation was reported.
 */
static int check_word(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		      const struct slub_model_record *r)
{
	const struct slub_event *ev = &e->ev;
	const struct slub_word *w = &ev->new;
	uint64_t k1 = s->h.k1;
	uint32_t pf = s->frozen, pi = s->inuse;
	uint64_t pfl = s->freelist;

	if (e->old_valid && ev->type != SLUB_EV_SLAB_NEW &&
	    (ev->old.freelist != s->freelist || ev->old.inuse != s->inuse ||
	     ev->old.objects != s->objects || ev->old.frozen != s->frozen ||
	     ev->old.seq != s->seq)) {
		report(m, SLUB_RULE_WORD_CHAIN, r, s, k1, 0,
		       "%s seq %u: old word {freelist %#llx inuse %u frozen %u seq %u} is not the "
		       "previous new word {freelist %#llx inuse %u frozen %u seq %u}: lost update",
		       slub_event_name(ev->type), w->seq, (unsigned long long)ev->old.freelist,
		       ev->old.inuse, ev->old.frozen, ev->old.seq, (unsigned long long)s->freelist,
		       s->inuse, s->frozen, s->seq);
		return 1;
	}
	if (w->inuse > w->objects || (ev->type != SLUB_EV_SLAB_NEW && w->objects != s->objects)) {
		report(m, SLUB_RULE_WORD_OBJECTS, r, s, k1, 0,
		       "%s seq %u: inuse %u objects %u (objects were %u)", slub_event_name(ev->type),
		       w->seq, w->inuse, w->objects, s->objects);
		return 1;
	}
	if (ev->type == SLUB_EV_FREEZE && pf) {
		report(m, SLUB_RULE_FREEZE, r, s, k1, 0, "freeze at %s of a frozen slab (seq %u)",
		       slub_site_name(ev->site), w->seq);
		return 1;
	}
	if (ev->type == SLUB_EV_UNFREEZE && !pf) {
		report(m, SLUB_RULE_UNFREEZE, r, s, k1, 0,
		       "unfreeze at %s of a slab that is not frozen (seq %u)",
		       slub_site_name(ev->site), w->seq);
		return 1;
	}

	const char *bad = NULL;
	switch (ev->type) {
	case SLUB_EV_SLAB_NEW:
		if (!w->frozen || w->freelist || w->inuse != w->objects)
			bad = "a new slab is frozen with all objects on the cpu freelist";
		break;
	case SLUB_EV_FREEZE:
		if (!w->frozen)
			bad = "freeze left the slab unfrozen";
		else if (ev->site == SLUB_SITE_ACQUIRE_SLAB) {
			if (!pfl)
				bad = "acquire_slab froze a slab without free objects";
			else if (w->freelist ? (w->freelist != pfl || w->inuse != pi)
					     : w->inuse != w->objects)
				bad = "acquire_slab either takes the whole freelist or leaves it";
		} else if (ev->site == SLUB_SITE_SLAB_FREE) {
			if (pfl)
				bad = "__slab_free freezes only a full slab";
			else if (w->inuse + 1 != pi || !w->freelist)
				bad = "__slab_free frees one object";
		}
		break;
	case SLUB_EV_UNFREEZE:
		if (w->frozen)
			bad = "unfreeze left the slab frozen";
		else if (ev->site == SLUB_SITE_GET_FREELIST) {
			if (pfl || w->freelist || w->inuse != w->objects)
				bad = "get_freelist unfreezes only a slab without free objects";
		} else if (ev->site == SLUB_SITE_UNFREEZE_PARTIALS) {
			if (w->inuse != pi || w->freelist != pfl)
				bad = "unfreeze_partials changes only the frozen bit";
		} else if (w->inuse > pi || (w->inuse == pi && w->freelist != pfl)) {
			bad = "deactivate_slab only gives objects back";
		}
		break;
	case SLUB_EV_TAKE_FREELIST:
		if (!w->frozen || !pf)
			bad = "take_freelist is for the frozen cpu slab";
		else if (!pfl || w->freelist || w->inuse != w->objects)
			bad = "get_freelist takes the whole, non-empty freelist";
		break;
	case SLUB_EV_FREE_REMOTE:
		if (w->frozen != pf)
			bad = "frozen flips only by freeze and unfreeze";
		else if (w->inuse + 1 != pi || !w->freelist || w->freelist == pfl)
			bad = "__slab_free frees one object onto the freelist";
		break;
	case SLUB_EV_DRAIN_FREELIST:
		if (!w->frozen || !pf)
			bad = "drain_freelist is for the frozen cpu slab";
		else if (w->inuse + 1 != pi || !w->freelist)
			bad = "the per-object drain gives back one object";
		break;
	}
	if (bad) {
		report(m, SLUB_RULE_WORD_DELTA, r, s, k1, 0,
		       "%s at %s seq %u: %s (was freelist %#llx inuse %u frozen %u; now freelist "
		       "%#llx inuse %u frozen %u)",
		       slub_event_name(ev->type), slub_site_name(ev->site), w->seq, bad,
		       (unsigned long long)pfl, pi, pf, (unsigned long long)w->freelist, w->inuse,
		       w->frozen);
		return 1;
	}
	return 0;
}

/*
 * Owner-only edges.  The actor is the slot acted upon for cpu slot events
 * and the acting cpu otherwise.  Another cpu may act for the owner only in
 * a flush: unfreeze_partials() after a cpu_partial_drain of that slot with
 * reason flush, or deactivate_slab(), whose deactivate event (slot, reason)
 * is checked on arrival.  An unfreeze also names the slot it leaves
 * (old.owner when the producer gives it): it must be the owner.
 */
/* The queued copy of an unfreeze_partials unfreeze made inside a flush of
 * the slot it leaves (see slub_model_event()). */
#define UNFREEZE_IN_FLUSH 0x5f1u

static int owner_ok(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		    int32_t owner, int32_t *who)
{
	const struct slub_event *ev = &e->ev;
	int32_t actor = is_cpu_event(ev->type) ? ev_slot(ev) : ev->cpu;

	*who = actor;
	if (owner < 0)
		return 1;
	if (ev->type == SLUB_EV_UNFREEZE && ev->old.owner >= 0 && ev->old.owner != owner) {
		*who = ev->old.owner;
		return 0;
	}
	if (actor == owner)
		return 1;
	if (ev->type != SLUB_EV_UNFREEZE)
		return 0;
	if (ev->site == SLUB_SITE_UNFREEZING_SLAB)
		return 1; /* its deactivate says whose slot and why */
	/* unfreeze_partials on behalf of another slot: only inside a flush
	 * of that slot's chain, as seen when the event arrived. */
	return ev->site == SLUB_SITE_UNFREEZE_PARTIALS && ev->reason == UNFREEZE_IN_FLUSH &&
	       ev->old.owner == owner;
}

/*
 * R4, the leak: a slab unfrozen to the partial list (deactivate_slab,
 * unfreeze_partials) whose list_lock was released with the slab on no
 * list, and never listed since.  Judged when a later critical section that
 * touched the slab ends (the free that empties it takes the lock), at the
 * end of its process or of the trace: an add_partial right after the
 * unlock is R3-list-unlocked's, not a leak.  r NULL: the slab's last event
 * stands for it.
 */
static void report_leak(struct slub_model *m, struct mslab *s, const struct slub_model_record *r)
{
	struct slub_model_record rr;

	s->list_due = 0;
	/* Events lost since its last one may hold its add_partial. */
	if (notice_covers(m, s->gen, window_start(m, s->last_ts)) ||
	    notice_since(m, window_start(m, s->last_ts)))
		return;
	if (!r) {
		memset(&rr, 0, sizeof(rr));
		if (s->hist_n) {
			rr = s->hist[(s->hist_head + m->cfg.history - 1) % m->cfg.history];
		} else {
			rr.ts = s->last_ts;
			rr.slab = s->h.k2;
			rr.vpid = s->vpid;
			rr.cache_id = s->cache_id;
			rr.node = s->node;
			rr.slot = rr.owner = -1;
			rr.type = SLUB_EV_UNFREEZE;
			rr.before = rr.after = s->state;
		}
		r = &rr;
	}
	report(m, SLUB_RULE_LIST_AT_UNLOCK, r, s, s->h.k1, 0,
	       "slab %#llx was unfrozen to the partial list under lock %u, released "
	       "(acquisition %llu) with the slab on no list and never listed since: leaked",
	       (unsigned long long)s->h.k2, s->due_lock, (unsigned long long)s->due_seq);
}

/*
 * A slab's first event (or first after lost events) against its cache:
 * the cache must be known when the trace holds its process image from its
 * first traced event and nothing was lost (a trace started mid-run, a
 * snapshot, a forked child or a second session lack the announcement:
 * there it is unknown, not judged), and the slab's objects must be the
 * cache's objects per slab (the allocator has one geometry per cache).
 */
static void check_cache(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
			const struct slub_model_record *r)
{
	const struct slub_event *ev = &e->ev;
	struct mcache *c = (struct mcache *)ht_find(&m->caches, s->h.k1, ev->cache_id);

	if (!c) {
		struct mproc *p = (struct mproc *)ht_find(&m->procs, s->vpid, 0);

		if (p && p->from_start && !m->disc_gen && e->ts - p->from_ts > m->cfg.reorder_ns &&
		    e->ts > p->from_ts)
			report(m, SLUB_RULE_TRANSITION, r, s, s->h.k1, 0,
			       "%s of slab %#llx names cache %u, which the process never announced "
			       "nor created",
			       slub_event_name(ev->type), (unsigned long long)ev->slab,
			       ev->cache_id);
		return;
	}
	if (is_word_event(ev->type) && c->objects && ev->new.objects != c->objects)
		report(m, SLUB_RULE_WORD_OBJECTS, r, s, s->h.k1, 0,
		       "%s seq %u: objects %u, cache %u has %u objects per slab",
		       slub_event_name(ev->type), ev->new.seq, ev->new.objects, ev->cache_id,
		       c->objects);
}

/*
 * Apply one slab event in slab order.  `late`: a cpu-slot event whose
 * thread's last update of the slab is older than what was applied since
 * (its thread was preempted before its tracepoint while other cpus moved
 * the slab on): it moves the state only along an edge that still exists
 * and is not judged, its checks having run on the cpu slot at arrival.
 */
static void apply(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		  int late)
{
	const struct slub_event *ev = &e->ev;
	struct slub_model_record r;
	uint8_t before = s->state;
	int resync = 0, flagged = 0;

	int forget = quarantined(m, s->vpid);

	if (forget)
		late = 1;
	make_record(&r, e);
	r.before = r.after = before;
	r.list = s->list;
	r.owner = s->owner;
	if (s->gen != m->disc_gen) {
		if (notice_covers(m, s->gen, window_start(m, s->last_ts)))
			s->resync = 1;
		s->gen = m->disc_gen;
	}
	if (s->resync) {
		s->resync = 0;
		s->list_due = 0;
		s->state = SLUB_STATE_UNKNOWN;
		s->list_known = 0;
		s->owner = -1;
		s->last_owner = -1;
		resync = 1;
		m->sum.slabs_resynced++;
	}
	s->last_ts = e->ts;
	if (ev->cache_id || !s->cache_id)
		s->cache_id = ev->cache_id;
	s->node = ev->node;
	m->sum.applied++;

	if (s->state == SLUB_STATE_UNKNOWN || (!s->have_seq && is_word_event(ev->type)) ||
	    (ev->type == SLUB_EV_SLAB_NEW && s->state == SLUB_STATE_DISCARDED)) {
		/* Baseline: nothing to compare with (first event, after lost
		 * events, or a reused descriptor). */
		if (ev->type == SLUB_EV_SLAB_NEW) {
			s->born = !resync;
			s->born_ts = e->ts;
			s->born_gen = m->disc_gen;
		}
		if (!forget)
			check_cache(m, s, e, &r);
		baseline(m, s, ev);
		(void)resync;
		goto done;
	}

	uint64_t k1 = s->h.k1;
	const struct slub_transition *edge = NULL;

	if (late) {
		/* judged on arrival (cpu slot rules) */
	} else if (is_word_event(ev->type)) {
		flagged = check_word(m, s, e, &r);
	} else if (ev->type == SLUB_EV_SLAB_DISCARD) {
		if (ev->new.inuse || ev->new.frozen || (s->list_known && s->list != SLUB_LIST_NONE) ||
		    !s->pages || ev->locked) {
			report(m, SLUB_RULE_DISCARD, &r, s, k1, 0,
			       "discard of a slab with inuse %u frozen %u on list %s%s%s",
			       ev->new.inuse, ev->new.frozen, slub_model_list_name(s->list),
			       s->pages ? "" : ", already discarded",
			       ev->locked ? ", list_lock held" : "");
			flagged = 1;
		} else if (ev->new.seq != s->seq) {
			report(m, SLUB_RULE_DISCARD, &r, s, k1, 0,
			       "discard names word seq %u, the slab is at seq %u", ev->new.seq,
			       s->seq);
			flagged = 1;
		}
	} else if (is_list_op(ev->type) && s->list_known) {
		uint8_t want = list_of_op(ev->type);
		int add = ev->type == SLUB_EV_ADD_PARTIAL || ev->type == SLUB_EV_ADD_FULL;

		if (add && s->list != SLUB_LIST_NONE && s->list != SLUB_LIST_CPU_PARTIAL) {
			report(m, SLUB_RULE_LIST_ONE, &r, s, k1, 0, "%s of a slab already on list %s",
			       slub_event_name(ev->type), slub_model_list_name(s->list));
			flagged = 1;
		} else if (!add && s->list != want) {
			report(m, SLUB_RULE_LIST_REMOVE, &r, s, k1, 0, "%s of a slab on list %s",
			       slub_event_name(ev->type), slub_model_list_name(s->list));
			flagged = 1;
		}
	} else if (e->old_valid && is_cpu_event(ev->type) && s->have_seq && ev->new.objects &&
		   ev->new.seq == s->seq &&
		   (ev->new.inuse != s->inuse || ev->new.frozen != s->frozen)) {
		/* In-process cpu slot events carry the word read when they
		 * fire.  Its counters half (inuse, frozen, seq) is one atomic
		 * load: at the seq the chain is at, it must be the chain's
		 * word; anything else was written without a counted CAS. */
		report(m, SLUB_RULE_WORD_CHAIN, &r, s, k1, 0,
		       "%s of slot %d saw {inuse %u frozen %u} at seq %u, the chain has "
		       "{inuse %u frozen %u} at that seq: lost update",
		       slub_event_name(ev->type), ev_slot(ev), ev->new.inuse, ev->new.frozen,
		       ev->new.seq, s->inuse, s->frozen);
		flagged = 1;
	} else if ((ev->type == SLUB_EV_CPU_SLAB_LOAD || ev->type == SLUB_EV_CPU_PARTIAL_PUT ||
		    ev->type == SLUB_EV_CPU_PARTIAL_TAKE) &&
		   (s->state != SLUB_STATE_CPU_ACTIVE && s->state != SLUB_STATE_CPU_PARTIAL)) {
		report(m, SLUB_RULE_FROZEN_STATE, &r, s, k1, 0, "%s of slot %d: the slab is %s, not frozen",
		       slub_event_name(ev->type), ev_slot(ev), slub_state_name(s->state));
		flagged = 1;
	}

	if (ev->type == SLUB_EV_CPU_PARTIAL_DRAIN) {
		/* The chain head names the chain; its slabs follow one by one. */
		goto done;
	}
	if (late) {
		/* Not judged; a cpu-slot event moves the state only along an
		 * edge that still exists (other cpus moved the slab on). */
		edge = find_edge(before, ev);
		if (!edge && is_cpu_event(ev->type))
			goto done;
		flagged = 1;
	}
	if (!flagged) {
		edge = find_edge(before, ev);
		if (!edge) {
			report(m, SLUB_RULE_TRANSITION, &r, s, k1, 0,
			       "no edge for %s at %s from %s (list %s, dest %s)",
			       slub_event_name(ev->type), slub_site_name(ev->site),
			       slub_state_name(before), slub_model_list_name(s->list),
			       slub_dest_name(ev->list));
			flagged = 1;
		}
	}
	if (edge && !flagged) {
		int32_t owner = ev->type == SLUB_EV_DEACTIVATE ? s->last_owner : s->owner;

		int32_t who;

		if ((edge->cond & SLUB_COND_OWNER) && ev->type != SLUB_EV_SLAB_NEW &&
		    !owner_ok(m, s, e, owner, &who)) {
			report(m, SLUB_RULE_OWNER, &r, s, k1, 0,
			       "%s at %s by cpu %d for slot %d of a slab owned by slot %d",
			       slub_event_name(ev->type), slub_site_name(ev->site), ev->cpu, who,
			       owner);
			flagged = 1;
		} else if ((edge->cond & SLUB_COND_LOCKED) && !is_list_op(ev->type) && !ev->locked) {
			report(m, SLUB_RULE_TRANSITION, &r, s, k1, 0,
			       "%s at %s to %s without list_lock", slub_event_name(ev->type),
			       slub_site_name(ev->site), slub_state_name(edge->after));
			flagged = 1;
		} else if ((edge->cond & SLUB_COND_ON_LIST) && !is_list_op(ev->type) &&
			   s->list_known && s->list != SLUB_LIST_PARTIAL) {
			report(m, SLUB_RULE_TRANSITION, &r, s, k1, 0,
			       "%s at %s of a slab not on the partial list (%s)",
			       slub_event_name(ev->type), slub_site_name(ev->site),
			       slub_model_list_name(s->list));
			flagged = 1;
		} else if ((edge->cond & SLUB_COND_EMPTY) && ev->new.inuse) {
			report(m, edge->type == SLUB_EV_SLAB_DISCARD ? SLUB_RULE_DISCARD
								     : SLUB_RULE_TRANSITION,
			       &r, s, k1, 0, "%s to %s with %u objects in use",
			       slub_event_name(ev->type), slub_state_name(edge->after),
			       ev->new.inuse);
			flagged = 1;
		}
	}

	/* The new state: the edge's when one was taken, else what the event says. */
	if (is_word_event(ev->type))
		set_word(s, &ev->new);
	if (edge) {
		s->state = edge->after;
		if (ev->type == SLUB_EV_UNFREEZE && edge->after == SLUB_STATE_NODE_PARTIAL)
			s->list_due = 1;
		if (is_list_op(ev->type) || edge->list != SLUB_LIST_NONE) {
			s->list = edge->list;
			s->list_known = 1;
		} else if (s->list == SLUB_LIST_CPU_PARTIAL && s->state != SLUB_STATE_CPU_PARTIAL) {
			s->list = SLUB_LIST_NONE;
		}
	} else {
		baseline(m, s, ev);
	}
	switch (ev->type) {
	case SLUB_EV_FREEZE:
		s->owner = ev->cpu;
		break;
	case SLUB_EV_UNFREEZE:
		s->last_owner = s->owner;
		s->owner = -1;
		break;
	case SLUB_EV_SLAB_NEW:
		s->owner = ev->cpu;
		s->pages = 1;
		break;
	case SLUB_EV_SLAB_DISCARD:
		s->pages = 0;
		s->state = SLUB_STATE_DISCARDED;
		break;
	case SLUB_EV_CPU_SLAB_LOAD:
	case SLUB_EV_CPU_PARTIAL_TAKE:
	case SLUB_EV_CPU_PARTIAL_PUT:
		if (s->owner < 0)
			s->owner = ev_slot(ev);
		break;
	}

done:
	if (is_list_op(ev->type) || s->state != SLUB_STATE_NODE_PARTIAL)
		s->list_due = 0;
	if (forget) {
		/* recorded, not trusted: the next event after the quarantine
		 * is a baseline */
		s->list_due = 0;
		s->state = SLUB_STATE_UNKNOWN;
		s->list_known = 0;
		s->owner = s->last_owner = -1;
	}
	r.before = before;
	r.after = s->state;
	r.list = s->list;
	r.owner = s->frozen ? s->owner : -1;
	if (!is_word_event(ev->type) && s->have_seq) {
		r.inuse = s->inuse;
		r.objects = s->objects;
		r.frozen = s->frozen;
		r.seq = s->seq;
		r.freelist = s->freelist;
	}
	hist_push(m, s, &r);
	if (m->cb.transition) {
		struct slub_model_transition tr = { &r, cache_name(m, s->h.k1, r.cache_id) };

		m->cb.transition(&tr, m->cb.arg);
	}
}

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
	make_record(&r, e);
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

	make_record(&r, e);
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
		report(m, SLUB_RULE_WORD_CHAIN, &r, s, s->h.k1, 0,
		       "seq %u produced twice: %s at %s {freelist %#llx inuse %u frozen %u} tid %u "
		       "claims a step already applied (no longer in the history; now at seq %u)",
		       (unsigned)key, slub_event_name(e->ev.type), slub_site_name(e->ev.site),
		       (unsigned long long)e->ev.new.freelist, e->ev.new.inuse, e->ev.new.frozen,
		       e->vtid, s->seq);
		return;
	}
	/* kept short (the history shows both events in full) */
	report(m, SLUB_RULE_WORD_CHAIN, &r, s, s->h.k1, a->vtid,
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
		apply(m, s, &p->e,
		      p->lenient || (is_cpu_event(p->e.ev.type) && (p->sort >> 1) < s->seq));
		mm_pool_put(&m->p_pend, p);
	}
	wq_del(m, s);
	if (s->pend) {
		wq_add(m, s, s->pend->arrival);
		return s;
	}
	if (s->state == SLUB_STATE_DISCARDED && !s->pages) {
		free_slab(m, s);
		return NULL;
	}
	return s;
}

/*
 * The window passed (or the buffer is full): stop waiting for the gap.
 *
 * Termination: the loops over the wait queue (expire(), finish) call this
 * on a waiting slab, which has events waiting.  Afterwards its first event
 * is applicable or stale: a later seq is reached by skipping the gap, a
 * slab_new by ending the previous life, a non-word event by the seq it
 * follows, and a word update at or below the seq is stale.  drain() then
 * takes it off, so every call removes at least one waiting event, and the
 * model's total of waiting events strictly falls.
 */
static void give_up(struct slub_model *m, struct mslab *s)
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
				notice_since(m, window_start(m, s->last_ts));
		struct slub_model_record r;

		if (!explained) {
			m->sum.reorder_exceeded++;
			make_record(&r, &p->e);
			r.before = r.after = s->state;
			r.list = s->list;
			report(m, SLUB_RULE_WORD_CHAIN, &r, s, k1, 0,
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
		if (!notice_since(m, window_start(m, s->last_ts))) {
			struct slub_model_record r;

			make_record(&r, &p->e);
			r.before = r.after = s->state;
			report(m, SLUB_RULE_TRANSITION, &r, s, k1, 0,
			       "slab_new at seq %u of a slab that was never discarded (%s)",
			       p->e.ev.new.seq, slub_state_name(s->state));
		}
		s->pages = 0;
		s->state = SLUB_STATE_DISCARDED;
	}
	assert(applicable(s, p) || stale(m, s, p));
	drain(m, s);
	assert(m->npend < npend);
	(void)npend;
}

static void expire(struct slub_model *m)
{
	while (m->wq_head) {
		struct mslab *s = m->wq_head;

		if (m->now - s->wait_since <= m->cfg.reorder_ns && m->npend <= m->cfg.reorder_events)
			break;
		give_up(m, s);
	}
	/* A gap that a discarded-events notice covers waits an eighth of the
	 * window: its events are most likely lost, not late.  (Slabs wait in
	 * FIFO order, so only the head is looked at.) */
	while (m->wq_head && m->disc_gen) {
		struct mslab *s = m->wq_head;

		if (m->now - s->wait_since <= m->cfg.reorder_ns / 8 ||
		    !notice_covers(m, s->gen, window_start(m, s->last_ts)))
			break;
		give_up(m, s);
	}
}

/* Order one slab event: apply now, or wait for its predecessor. */
static void slab_submit(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
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
			apply(m, s, e,
			      lenient || (!word && is_cpu_event(e->ev.type) && s->have_seq &&
					  key < s->seq));
			if (s->state == SLUB_STATE_DISCARDED && !s->pages)
				free_slab(m, s);
			return;
		}
	}
	struct pend *p = mm_pool_get(&m->p_pend);
	if (!p) {
		apply(m, s, e, lenient); /* out of memory: better out of order than lost */
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

static void lru_note(struct mthread *t, uint64_t slab, uint32_t seq)
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
static uint64_t lru_key(const struct mthread *t, uint64_t slab)
{
	for (unsigned i = 0; i < THREAD_LRU; i++)
		if (t->lru[i].slab == slab)
			return t->lru[i].seq;
	return KEY_LAST;
}

static void lock_note_slab(struct mlock *l, uint64_t slab)
{
	for (uint32_t i = 0; i < l->ntouched; i++)
		if (l->touched[i] == slab)
			return;
	if (l->ntouched < LOCK_TOUCH)
		l->touched[l->ntouched++] = slab;
	else
		l->overflow = 1;
}

/* ---- locks (arrival order = critical-section order) ---- */

static void check_at_unlock(struct slub_model *m, uint64_t k1, struct mlock *l,
			    const struct slub_model_record *r)
{
	for (uint32_t i = 0; i < l->ntouched; i++) {
		struct mslab *s = get_slab(m, k1, l->touched[i], 0);
		const char *bad = NULL;

		/* Only a slab whose own order has caught up is judged. */
		if (!s || s->pend || !s->list_known || s->state == SLUB_STATE_UNKNOWN)
			continue;
		if (s->list == SLUB_LIST_PARTIAL && s->frozen)
			bad = "frozen";
		else if (s->list == SLUB_LIST_PARTIAL && !s->freelist)
			bad = "without a free object";
		else if (s->list == SLUB_LIST_FULL && s->freelist)
			bad = "with free objects";
		if (s->list_due == 2 && s->list == SLUB_LIST_NONE &&
		    (s->due_lock != (uint32_t)l->h.k2 || s->due_seq != l->seq)) {
			struct slub_model_record rr = *r;

			rr.slab = s->h.k2;
			rr.before = rr.after = s->state;
			rr.list = s->list;
			report_leak(m, s, &rr);
			continue;
		}
		if (s->list_due == 1 && s->list == SLUB_LIST_NONE &&
		    s->state == SLUB_STATE_NODE_PARTIAL) {
			/* Not yet a leak: a late add_partial is R3's.  Judged
			 * when a later critical section on it ends, or at the end. */
			s->list_due = 2;
			s->due_lock = (uint32_t)l->h.k2;
			s->due_seq = l->seq;
			continue;
		}
		if (bad) {
			struct slub_model_record rr = *r;

			rr.slab = s->h.k2;
			rr.before = rr.after = s->state;
			rr.list = s->list;
			rr.inuse = s->inuse;
			rr.objects = s->objects;
			rr.frozen = s->frozen;
			rr.seq = s->seq;
			rr.freelist = s->freelist;
			report(m, SLUB_RULE_LIST_AT_UNLOCK, &rr, s, k1, 0,
			       "lock %llu released (acquisition %llu) with slab %#llx on the %s "
			       "list %s",
			       (unsigned long long)l->h.k2, (unsigned long long)l->seq,
			       (unsigned long long)s->h.k2, slub_model_list_name(s->list), bad);
		}
	}
	l->ntouched = 0;
	l->overflow = 0;
}

static void lock_event(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
		       struct mthread *t, int lenient)
{
	const struct slub_event *ev = &e->ev;
	struct mlock *l = get_lock(m, k1, ev->lock_id);
	struct slub_model_record r;

	if (!l)
		return;
	lock_touch(m, l, e->ts);
	make_record(&r, e);
	if (ev->type == SLUB_EV_LOCK_ACQUIRE) {
		if (t && t->known && !t->suspect && !lenient) {
			for (uint32_t i = 0; i < t->nheld; i++) {
				if (t->held[i] == ev->lock_id)
					report(m, SLUB_RULE_LOCK_RECURSIVE, &r, NULL, k1, 0,
					       "tid %u takes lock %u (acquisition %llu) it holds",
					       e->vtid, ev->lock_id, (unsigned long long)ev->lock_seq);
				else
					report(m, SLUB_RULE_LOCK_ORDER, &r, NULL, k1, 0,
					       "tid %u takes lock %u while holding lock %u", e->vtid,
					       ev->lock_id, t->held[i]);
			}
		}
		if (l->known && !lenient) {
			int explained = notice_covers(m, l->gen, window_start(m, l->last_ts));

			if (l->held && l->holder == e->vtid) {
				/* recursion: reported above from the thread's view */
			} else if (l->held && !explained)
				report(m, SLUB_RULE_LOCK_HOLDER, &r, NULL, k1, l->holder,
				       "lock %u acquisition %llu by tid %u while tid %u holds "
				       "acquisition %llu",
				       ev->lock_id, (unsigned long long)ev->lock_seq, e->vtid,
				       l->holder, (unsigned long long)l->seq);
			else if (ev->lock_seq != l->seq + 1 && !explained)
				report(m, SLUB_RULE_LOCK_SEQ, &r, NULL, k1, 0,
				       "lock %u acquisition %llu follows acquisition %llu",
				       ev->lock_id, (unsigned long long)ev->lock_seq,
				       (unsigned long long)l->seq);
		}
		l->known = 1;
		l->held = 1;
		l->holder = e->vtid;
		l->seq = ev->lock_seq;
		l->ntouched = 0;
		l->overflow = 0;
		if (t) {
			t->known = 1;
			if (t->nheld < THREAD_HELD)
				t->held[t->nheld++] = ev->lock_id;
		}
		return;
	}
	/* release */
	if (l->known && !lenient && (!l->held || l->holder != e->vtid || l->seq != ev->lock_seq))
		report(m, SLUB_RULE_LOCK_HOLDER, &r, NULL, k1, l->held ? l->holder : 0,
		       "tid %u releases lock %u acquisition %llu; %s%u holds acquisition %llu",
		       e->vtid, ev->lock_id, (unsigned long long)ev->lock_seq,
		       l->held ? "tid " : "no one (last: tid ", l->holder,
		       (unsigned long long)l->seq);
	if (l->known && l->held && !lenient)
		check_at_unlock(m, k1, l, &r);
	l->ntouched = 0;
	if (!l->known) {
		l->known = 1;
		l->seq = ev->lock_seq;
	}
	l->held = 0;
	if (t) {
		for (uint32_t i = 0; i < t->nheld; i++)
			if (t->held[i] == ev->lock_id) {
				t->held[i] = t->held[--t->nheld];
				break;
			}
		t->known = 1;
	}
}

/* ---- objects ---- */

static void object_event(struct slub_model *m, uint64_t k1, struct mproc *p,
			 const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;
	struct mobj *o = (struct mobj *)ht_find(&m->objs, k1, ev->object);
	struct slub_model_record r;

	if (!p->obj_since)
		p->obj_since = e->ts ? e->ts : 1;
	make_record(&r, e);
	if (quarantined(m, e->vpid)) {
		/* keep the set, judge nothing */
		if (ev->type == SLUB_EV_FREE && o) {
			ht_remove(&m->objs, &o->h);
			mm_pool_put(&m->p_obj, o);
		} else if (ev->type == SLUB_EV_ALLOC && !o && (o = mm_pool_get(&m->p_obj))) {
			o->h.k1 = k1;
			o->h.k2 = ev->object;
			o->slab = ev->slab;
			o->cache_id = ev->cache_id;
			o->gen = m->disc_gen;
			o->ts = e->ts;
			ht_insert(&m->objs, &o->h);
		}
		return;
	}
	if (ev->type == SLUB_EV_ALLOC) {
		if (o && notice_covers(m, o->gen, window_start(m, o->ts))) {
			/* its free may be among the lost events */
		} else if (o) {
			report(m, SLUB_RULE_DOUBLE_ALLOC, &r, get_slab(m, k1, ev->slab, 0), k1, 0,
			       "object %#llx handed out again (allocated from slab %#llx, never freed)",
			       (unsigned long long)ev->object, (unsigned long long)o->slab);
		}
		if (o) {
			o->slab = ev->slab;
			o->cache_id = ev->cache_id;
			o->gen = m->disc_gen;
			o->ts = e->ts;
			return;
		}
		o = mm_pool_get(&m->p_obj);
		if (!o)
			return;
		o->h.k1 = k1;
		o->h.k2 = ev->object;
		o->slab = ev->slab;
		o->cache_id = ev->cache_id;
		o->gen = m->disc_gen;
		o->ts = e->ts;
		ht_insert(&m->objs, &o->h);
		return;
	}
	if (o) {
		if ((o->slab != ev->slab || o->cache_id != ev->cache_id) &&
		    !notice_covers(m, o->gen, window_start(m, o->ts)))
			report(m, SLUB_RULE_OBJECT_SLAB, &r, get_slab(m, k1, ev->slab, 0), k1, 0,
			       "object %#llx freed to slab %#llx cache %u, allocated from slab "
			       "%#llx cache %u",
			       (unsigned long long)ev->object, (unsigned long long)ev->slab,
			       ev->cache_id, (unsigned long long)o->slab, o->cache_id);
		ht_remove(&m->objs, &o->h);
		mm_pool_put(&m->p_obj, o);
		return;
	}
	/* Not allocated as far as we know: a double free only when the slab's
	 * whole life was seen with object events on. */
	struct mslab *s = get_slab(m, k1, ev->slab, 0);
	if (s && s->born && p->obj_since && p->obj_since <= s->born_ts &&
	    s->state != SLUB_STATE_UNKNOWN && !notice_covers(m, s->born_gen, window_start(m, s->born_ts)))
		report(m, SLUB_RULE_DOUBLE_FREE, &r, s, k1, 0,
		       "object %#llx of slab %#llx freed while not allocated",
		       (unsigned long long)ev->object, (unsigned long long)ev->slab);
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
	m->vhist = mm_alloc(&m->mm, m->cfg.history * sizeof(*m->vhist));
	m->dhist = mm_alloc(&m->mm, DEFERRED_FINDINGS * m->cfg.history * sizeof(*m->dhist));
	if (!m->vhist || (m->cfg.history && !m->dhist) || ht_init(&m->slabs, &m->mm, 1024) || ht_init(&m->locks, &m->mm, 64) ||
	    ht_init(&m->slots, &m->mm, 256) || ht_init(&m->threads, &m->mm, 256) ||
	    ht_init(&m->objs, &m->mm, 1024) || ht_init(&m->caches, &m->mm, 64) ||
	    ht_init(&m->procs, &m->mm, 16)) {
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
	if (ev->info && ev->info->name) {
		strncpy(c->name, ev->info->name, sizeof(c->name) - 1);
		c->name[sizeof(c->name) - 1] = 0;
	}
}

int slub_model_event(struct slub_model *m, const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;
	unsigned type = ev->type;
	struct mproc *p;
	struct mthread *t;
	uint64_t k1;

	m->sum.events++;
	if (m->ndeferred)
		deferred_findings(m, 0);
	/* The thread went on without the stack its violation waited for. */
	if (m->held && m->hv.vpid == e->vpid && m->hv.vtid == e->vtid)
		flush_held(m);
	if (type >= SLUB_EV_NR)
		return 0;
	if (e->ts > m->now)
		m->now = e->ts;
	m->seen |= 1ull << type;
	p = get_proc(m, e->vpid);
	if (!p)
		return -1;
	if (e->procname && *e->procname) {
		uint64_t h = hash_str(e->procname);

		if (p->namehash && p->namehash != h)
			new_incarnation(m, p);
		p->namehash = h;
	}
	if (!p->seen) {
		p->seen = 1;
		p->from_start = type == SLUB_EV_CACHE_CREATE && ev->reason == 1;
		p->from_ts = e->ts;
	}
	if (type == SLUB_EV_CACHE_CREATE || type == SLUB_EV_CACHE_DESTROY) {
		cache_event(m, p, e);
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
		lock_event(m, k1, e, t, quarantined(m, e->vpid));
		goto out;
	case SLUB_EV_ALLOC:
	case SLUB_EV_FREE:
		object_event(m, k1, p, e);
		goto out;
	case SLUB_EV_SLABINFO_WALK:
		/* count_partial() reads the listed slabs' words under the
		 * lock and changes no slab, list or word: nothing to apply,
		 * nothing to judge (the hold it belongs to is judged by its
		 * own lock events). */
		goto out;
	case SLUB_EV_THREAD_FLUSH:
		t->flush_slot = -1;
		if (!t->nheld) {
			/* Thread exit (or a flush with nothing held): its memory goes. */
			ht_remove(&m->threads, &t->h);
			mm_pool_put(&m->p_thread, t);
		}
		goto out;
	case SLUB_EV_CMPXCHG_FAIL:
	case SLUB_EV_CPU_CMPXCHG_FAIL:
	case SLUB_EV_ERROR: {
		struct mslab *s = ev->slab ? get_slab(m, k1, ev->slab, 0) : NULL;

		if (s) {
			struct slub_model_record r;

			make_record(&r, e);
			r.before = r.after = s->state;
			r.list = s->list;
			hist_push(m, s, &r);
		}
		goto out;
	}
	}
	if (!ev->slab) {
		/* No slab lives at address 0: the producer named none. */
		if (is_word_event(type) || is_list_op(type) || type == SLUB_EV_SLAB_DISCARD ||
		    type == SLUB_EV_CPU_SLAB_LOAD || type == SLUB_EV_CPU_PARTIAL_PUT ||
		    type == SLUB_EV_CPU_PARTIAL_TAKE) {
			struct slub_model_record r;

			make_record(&r, e);
			report(m, SLUB_RULE_TRANSITION, &r, NULL, k1, 0,
			       "%s at %s of slab 0: no slab has address 0 (the event is dropped)",
			       slub_event_name(type), slub_site_name(ev->site));
		}
		goto out;
	}

	/* Arrival-order checks: lock held, cpu slot, and the slab's key. */
	uint64_t key;
	int word = is_word_event(type);
	int lenient = t->suspect > 0 || quarantined(m, e->vpid);

	if (t->suspect)
		t->suspect--;

	if (word) {
		key = ev->new.seq;
		lru_note(t, ev->slab, ev->new.seq);
		if (ev->locked) {
			struct mlock *l = get_lock(m, k1, lock_id_of(ev->cache_id, ev->node));

			if (l && l->held && l->holder == e->vtid)
				lock_note_slab(l, ev->slab);
		}
	} else if (is_list_op(type)) {
		struct mlock *l = get_lock(m, k1, ev->lock_id);
		struct slub_model_record r;

		key = ev->new.seq;
		lru_note(t, ev->slab, ev->new.seq);
		if (l)
			lock_touch(m, l, e->ts);
		if (!lenient &&
		    (l && l->known ? !(l->held && l->holder == e->vtid && l->seq == ev->lock_seq)
				   : !ev->locked)) {
			make_record(&r, e);
			report(m, SLUB_RULE_LIST_UNLOCKED, &r, get_slab(m, k1, ev->slab, 0), k1,
			       l && l->held ? l->holder : 0,
			       "%s of slab %#llx by tid %u under lock %u acquisition %llu; %s",
			       slub_event_name(type), (unsigned long long)ev->slab, e->vtid,
			       ev->lock_id, (unsigned long long)ev->lock_seq,
			       !l || !l->known ? "the event says list_lock is not held"
			       : !l->held	 ? "the lock is free"
			       : l->holder != e->vtid ? "another thread holds it"
						      : "it is held under another acquisition");
		}
		if (l && l->held && l->holder == e->vtid)
			lock_note_slab(l, ev->slab);
	} else if (type == SLUB_EV_SLAB_DISCARD) {
		key = ev->new.seq;
	} else {
		key = lru_key(t, ev->slab);
	}

	if (is_cpu_event(type) || type == SLUB_EV_TAKE_FREELIST || type == SLUB_EV_DRAIN_FREELIST) {
		int32_t slot = is_cpu_event(type) ? ev_slot(ev) : ev->cpu;
		struct mslot *c = get_slot(m, k1, ev->cache_id, slot);
		struct slub_model_record r;

		if (c) {
			slot_touch(m, c, e->ts);
			if (lenient)
				c->known = 0; /* relearnt from this thread's next loads */
			make_record(&r, e);
			switch (type) {
			case SLUB_EV_CPU_SLAB_LOAD:
				if (c->known && c->active)
					report(m, SLUB_RULE_CPU_SLAB, &r, get_slab(m, k1, ev->slab, 0),
					       k1, 0, "slot %d loads slab %#llx over its active slab %#llx",
					       slot, (unsigned long long)ev->slab,
					       (unsigned long long)c->active);
				c->active = ev->slab;
				c->known = 1;
				break;
			case SLUB_EV_DEACTIVATE:
				if (!lenient && slot != ev->cpu && ev->reason != SLUB_DEACT_FLUSH)
					report(m, SLUB_RULE_OWNER, &r, get_slab(m, k1, ev->slab, 0), k1, 0,
					       "cpu %d deactivates slot %d's slab %#llx, reason %s (not a flush)",
					       ev->cpu, slot, (unsigned long long)ev->slab,
					       slub_deactivate_reason_name(ev->reason));
				if (c->known && c->active != ev->slab)
					report(m, SLUB_RULE_CPU_SLAB, &r, get_slab(m, k1, ev->slab, 0),
					       k1, 0, "slot %d deactivates slab %#llx, its active slab is %#llx",
					       slot, (unsigned long long)ev->slab,
					       (unsigned long long)c->active);
				c->active = 0;
				c->known = 1;
				break;
			case SLUB_EV_CPU_PARTIAL_PUT:
				c->chain++;
				break;
			case SLUB_EV_CPU_PARTIAL_TAKE:
				if (c->chain)
					c->chain--;
				break;
			case SLUB_EV_CPU_PARTIAL_DRAIN:
				c->chain = 0;
				if (ev->reason == SLUB_DEACT_FLUSH && slot != ev->cpu) {
					t->flush_slot = slot;
					t->flush_cache = ev->cache_id;
				} else {
					t->flush_slot = -1;
				}
				break;
			case SLUB_EV_TAKE_FREELIST:
			case SLUB_EV_DRAIN_FREELIST:
				if (c->known && c->active != ev->slab)
					report(m, SLUB_RULE_CPU_SLAB, &r, get_slab(m, k1, ev->slab, 0),
					       k1, 0,
					       "slot %d takes the freelist of slab %#llx, its active slab is %#llx",
					       slot, (unsigned long long)ev->slab,
					       (unsigned long long)c->active);
				break;
			}
		}
	}
	if (type == SLUB_EV_SLAB_DISCARD) {
		struct mlock *l = get_lock(m, k1, lock_id_of(ev->cache_id, ev->node));

		if (!lenient && l && l->known && l->held && l->holder == e->vtid) {
			struct slub_model_record r;

			make_record(&r, e);
			report(m, SLUB_RULE_DISCARD, &r, get_slab(m, k1, ev->slab, 0), k1, 0,
			       "slab %#llx discarded while tid %u holds its node's list_lock",
			       (unsigned long long)ev->slab, e->vtid);
		}
	}

	struct mslab *s = get_slab(m, k1, ev->slab, 1);
	if (!s)
		return -1;
	if (ev->type == SLUB_EV_UNFREEZE && ev->site == SLUB_SITE_UNFREEZE_PARTIALS) {
		/*
		 * Whose chain the thread is flushing is known now, in its own
		 * order; the unfreeze is judged later, in the slab's seq
		 * order, when the thread may be flushing another slot.  The
		 * answer travels in the queued copy's reason (unused by an
		 * unfreeze): UNFREEZE_IN_FLUSH.
		 */
		struct slub_model_event q = *e;

		q.ev.reason = t && t->flush_slot >= 0 && t->flush_slot == ev->old.owner &&
			      t->flush_cache == ev->cache_id ? UNFREEZE_IN_FLUSH : 0;
		slab_submit(m, s, &q, key, word, lenient);
		goto out;
	}
	slab_submit(m, s, e, key, word, lenient);
out:
	expire(m);
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
	s = get_slab(m, pkey(vpid, p->inc), slab, 0);
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
	/* other processes go on being judged (see quarantined()) */
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
		give_up(m, m->wq_head);
	deferred_findings(m, 1);
	for (size_t i = 0; i < m->slabs.nb; i++)
		for (struct hnode *h = m->slabs.b[i]; h; h = h->next)
			if (((struct mslab *)h)->list_due == 2)
				report_leak(m, (struct mslab *)h, NULL);
	flush_held(m);
	slub_model_get_summary(m, &s);
	if (m->cb.summary)
		m->cb.summary(&s, m->cb.arg);
}
