/* SPDX-License-Identifier: MIT */
/*
 * Transitions and the slab word: model_apply() takes one slab event in slab
 * order (reorder.c), checks what the event itself says (the word rules R2
 * and R5, R1-frozen-state, and through lock.c the list and discard rules),
 * finds its edge in the table (R0), checks the edge's conditions (R1-owner,
 * locked, on the list, empty) and moves the slab along it.  A slab seen
 * without history is resynchronised from the table's effect of the event
 * (baseline()).  The cpu slot rules (R9) run on arrival (model_slot_event()).
 */
#include <string.h>

#include "internal.h"

static void set_word(struct mslab *s, const struct slub_word *w)
{
	s->freelist = w->freelist;
	s->inuse = w->inuse;
	s->objects = w->objects;
	s->frozen = w->frozen;
	s->seq = w->seq;
}

/*
 * R5-word-delta: what the change of the word may be for this event (pf,
 * pi, pfl: the previous frozen bit, inuse and freelist).  Returns what is
 * wrong, or NULL.
 */
static const char *word_delta(const struct slub_event *ev, uint32_t pf, uint32_t pi,
			      uint64_t pfl)
{
	const struct slub_word *w = &ev->new;
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
	return bad;
}

/* The sheaves generation's word rules after the chain and the objects:
 * S1 (never frozen), S3 (the delta). */
static int check_word_sheaves(struct slub_model *m, struct mslab *s,
			      const struct slub_model_event *e, const struct slub_model_record *r)
{
	const struct slub_event *ev = &e->ev;
	const struct slub_word *w = &ev->new;
	const char *bad;

	if (w->frozen) {
		model_report(m, SLUB_RULE_S_NEVER_FROZEN, r, s, s->h.k1, 0,
			     "%s at %s seq %u: a slab of a sheaves cache is frozen",
			     slub_event_name(ev->type), slub_site_name(ev->site), w->seq);
		return 1;
	}
	bad = slub_sheaves_word_delta(ev, s->inuse, s->freelist);
	if (bad) {
		model_report(m, SLUB_RULE_S_WORD_DELTA, r, s, s->h.k1, 0,
			     "%s at %s seq %u: %s (was freelist %#llx inuse %u; now freelist %#llx "
			     "inuse %u)",
			     slub_event_name(ev->type), slub_site_name(ev->site), w->seq, bad,
			     (unsigned long long)s->freelist, s->inuse,
			     (unsigned long long)w->freelist, w->inuse);
		return 1;
	}
	return 0;
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
		model_report(m, SLUB_RULE_WORD_CHAIN, r, s, k1, 0,
			"%s seq %u: old word {freelist %#llx inuse %u frozen %u seq %u} is not the "
			"previous new word {freelist %#llx inuse %u frozen %u seq %u}: lost update",
			slub_event_name(ev->type), w->seq, (unsigned long long)ev->old.freelist,
			ev->old.inuse, ev->old.frozen, ev->old.seq, (unsigned long long)s->freelist,
			s->inuse, s->frozen, s->seq);
		return 1;
	}
	if (w->inuse > w->objects || (ev->type != SLUB_EV_SLAB_NEW && w->objects != s->objects)) {
		model_report(m, SLUB_RULE_WORD_OBJECTS, r, s, k1, 0,
			"%s seq %u: inuse %u objects %u (objects were %u)",
			slub_event_name(ev->type), w->seq, w->inuse, w->objects, s->objects);
		return 1;
	}
	if (s->sheaves)
		return check_word_sheaves(m, s, e, r);
	if (ev->type == SLUB_EV_FREEZE && pf) {
		model_report(m, SLUB_RULE_FREEZE, r, s, k1, 0,
			     "freeze at %s of a frozen slab (seq %u)", slub_site_name(ev->site),
			     w->seq);
		return 1;
	}
	if (ev->type == SLUB_EV_UNFREEZE && !pf) {
		model_report(m, SLUB_RULE_UNFREEZE, r, s, k1, 0,
			     "unfreeze at %s of a slab that is not frozen (seq %u)",
			     slub_site_name(ev->site), w->seq);
		return 1;
	}

	const char *bad = word_delta(ev, pf, pi, pfl);

	if (bad) {
		model_report(m, SLUB_RULE_WORD_DELTA, r, s, k1, 0,
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
			model_report(m, SLUB_RULE_TRANSITION, r, s, s->h.k1, 0,
				"%s of slab %#llx names cache %u, which the process never "
				"announced nor created",
				slub_event_name(ev->type), (unsigned long long)ev->slab,
				ev->cache_id);
		return;
	}
	if (is_word_event(ev->type) && c->objects && ev->new.objects != c->objects)
		model_report(m, SLUB_RULE_WORD_OBJECTS, r, s, s->h.k1, 0,
			     "%s seq %u: objects %u, cache %u has %u objects per slab",
			     slub_event_name(ev->type), ev->new.seq, ev->new.objects, ev->cache_id,
			     c->objects);
}

/* ---- resynchronisation: the table's effect of the event ---- */

/*
 * What a slab seen without history (first event, after lost events, after
 * an event no edge allows) is: the effect of the event whatever state the
 * slab was in, applied in full (the owner the event implies, not only the
 * one an edge would keep).
 */
static const struct slub_effect *effect_of(const struct mslab *s, unsigned type)
{
	return s->sheaves ? slub_sheaves_effect_of(type) : slub_effect_of(type);
}

static void baseline(struct mslab *s, const struct slub_event *ev)
{
	const struct slub_effect *fx = effect_of(s, ev->type);

	if (is_word_event(ev->type)) {
		set_word(s, &ev->new);
		if (!s->have_seq)
			s->base_seq = ev->new.seq;
		s->have_seq = 1;
	}
	/* an event of a live slab: it has pages */
	s->pages = !fx || fx->pages != FX_PAGES_GONE;
	if (!fx)
		return;
	s->state = slub_effect_state(fx, ev, s->state);
	switch (fx->owner) {
	case FX_OWNER_ACTOR:
	case FX_OWNER_HOLDER:
		s->owner = ev->cpu;
		break;
	case FX_OWNER_SLOT:
		s->owner = ev_slot(ev);
		break;
	case FX_OWNER_LEAVES:
		s->last_owner = ev->old.owner >= 0 ? ev->old.owner : -1;
		s->owner = -1;
		break;
	}
	if (fx->list != FX_KEEP) {
		s->list = fx->list;
		s->list_known = fx->list_site == SLUB_SITE_NONE || fx->list_site == ev->site;
	}
}

/*
 * The owner and pages part of the event's effect, after its edge (or its
 * baseline): on an edge the owner rule has judged the actor, so a holder
 * stays, a slot adopts only an ownerless slab, and an unfreeze remembers
 * the owner it had.
 */
static void effect_after_edge(struct mslab *s, const struct slub_event *ev)
{
	const struct slub_effect *fx = effect_of(s, ev->type);

	if (!fx)
		return;
	switch (fx->owner) {
	case FX_OWNER_ACTOR:
		s->owner = ev->cpu;
		break;
	case FX_OWNER_SLOT:
		if (s->owner < 0)
			s->owner = ev_slot(ev);
		break;
	case FX_OWNER_LEAVES:
		s->last_owner = s->owner;
		s->owner = -1;
		break;
	}
	if (fx->pages == FX_PAGES_NEW) {
		s->pages = 1;
	} else if (fx->pages == FX_PAGES_GONE) {
		s->pages = 0;
		s->state = SLUB_STATE_DISCARDED;
	}
}

/* ---- one slab event: check it, find and judge its edge, move ---- */

/* Rules on what the event itself says, before its edge.  Returns 1 when
 * a violation was reported (the edge is then not looked for). */
static int check_event(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		       const struct slub_model_record *r)
{
	const struct slub_event *ev = &e->ev;

	if (is_word_event(ev->type))
		return check_word(m, s, e, r);
	if (ev->type == SLUB_EV_SLAB_DISCARD)
		return model_check_discard(m, s, e, r);
	if (is_list_op(ev->type))
		return s->list_known ? model_check_list_op(m, s, e, r) : 0;
	if (e->old_valid && is_cpu_event(ev->type) && s->have_seq && ev->new.objects &&
	    ev->new.seq == s->seq && (ev->new.inuse != s->inuse || ev->new.frozen != s->frozen)) {
		/* In-process cpu slot events carry the word read when they
		 * fire.  Its counters half (inuse, frozen, seq) is one atomic
		 * load: at the seq the chain is at, it must be the chain's
		 * word; anything else was written without a counted CAS. */
		model_report(m, SLUB_RULE_WORD_CHAIN, r, s, s->h.k1, 0,
			     "%s of slot %d saw {inuse %u frozen %u} at seq %u, the chain has "
			     "{inuse %u frozen %u} at that seq: lost update",
			     slub_event_name(ev->type), ev_slot(ev), ev->new.inuse, ev->new.frozen,
			     ev->new.seq, s->inuse, s->frozen);
		return 1;
	}
	if ((ev->type == SLUB_EV_CPU_SLAB_LOAD || ev->type == SLUB_EV_CPU_PARTIAL_PUT ||
	     ev->type == SLUB_EV_CPU_PARTIAL_TAKE) &&
	    (s->state != SLUB_STATE_CPU_ACTIVE && s->state != SLUB_STATE_CPU_PARTIAL)) {
		model_report(m, SLUB_RULE_FROZEN_STATE, r, s, s->h.k1, 0,
			     "%s of slot %d: the slab is %s, not frozen", slub_event_name(ev->type),
			     ev_slot(ev), slub_state_name(s->state));
		return 1;
	}
	return 0;
}

/* The edge's conditions: the owner acts (R1-owner), under list_lock, of a
 * slab on the partial list, an empty slab (R0, or R6 for a discard). */
static void check_edge(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		       const struct slub_model_record *r, const struct slub_transition *edge)
{
	const struct slub_event *ev = &e->ev;
	uint64_t k1 = s->h.k1;
	int32_t owner = ev->type == SLUB_EV_DEACTIVATE ? s->last_owner : s->owner;
	int32_t who;

	if ((edge->cond & SLUB_COND_OWNER) && ev->type != SLUB_EV_SLAB_NEW &&
	    !owner_ok(m, s, e, owner, &who)) {
		model_report(m, SLUB_RULE_OWNER, r, s, k1, 0,
			"%s at %s by cpu %d for slot %d of a slab owned by slot %d",
			slub_event_name(ev->type), slub_site_name(ev->site), ev->cpu, who, owner);
	} else if ((edge->cond & SLUB_COND_LOCKED) && !is_list_op(ev->type) && !ev->locked) {
		model_report(m, SLUB_RULE_TRANSITION, r, s, k1, 0,
			     "%s at %s to %s without list_lock", slub_event_name(ev->type),
			     slub_site_name(ev->site), slub_state_name(edge->after));
	} else if ((edge->cond & SLUB_COND_ON_LIST) && !is_list_op(ev->type) && s->list_known &&
		   s->list != SLUB_LIST_PARTIAL) {
		model_report(m, SLUB_RULE_TRANSITION, r, s, k1, 0,
			     "%s at %s of a slab not on the partial list (%s)",
			     slub_event_name(ev->type), slub_site_name(ev->site),
			     slub_model_list_name(s->list));
	} else if ((edge->cond & SLUB_COND_OFF_LIST) && s->list_known &&
		   s->list != SLUB_LIST_NONE) {
		model_report(m, SLUB_RULE_S_TAKE_OFF_LIST, r, s, k1, 0,
			     "%s at %s of a slab on the %s list: no refill took it off",
			     slub_event_name(ev->type), slub_site_name(ev->site),
			     slub_model_list_name(s->list));
	} else if ((edge->cond & SLUB_COND_EMPTY) && ev->new.inuse) {
		model_report(m,
			     edge->type == SLUB_EV_SLAB_DISCARD ? SLUB_RULE_DISCARD :
								  SLUB_RULE_TRANSITION,
			     r, s, k1, 0, "%s to %s with %u objects in use",
			     slub_event_name(ev->type), slub_state_name(edge->after),
			     ev->new.inuse);
	}
}

/* The new state: the edge's when one was taken, else the event's effect. */
static void move(struct mslab *s, const struct slub_event *ev, const struct slub_transition *edge)
{
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
		baseline(s, ev);
	}
	effect_after_edge(s, ev);
}

static const struct slub_transition *find_edge(const struct mslab *s, uint8_t before,
						const struct slub_event *ev)
{
	return s->sheaves ? slub_sheaves_find_edge(before, ev) : slub_find_edge(before, ev);
}

/*
 * A slab with a known state: the event's own rules, then its edge, then the
 * move.  `late`: not judged (see model_apply()); a cpu-slot event then moves the
 * state only along an edge that still exists (other cpus moved the slab on).
 */
static void step(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
		 const struct slub_model_record *r, uint8_t before, int late)
{
	const struct slub_event *ev = &e->ev;
	const struct slub_transition *edge = NULL;
	int flagged = late ? 0 : check_event(m, s, e, r);

	if (ev->type == SLUB_EV_CPU_PARTIAL_DRAIN) {
		/* The chain head names the chain; its slabs follow one by one. */
		return;
	}
	if (late) {
		edge = find_edge(s, before, ev);
		if (!edge && is_cpu_event(ev->type))
			return;
	} else if (!flagged) {
		edge = find_edge(s, before, ev);
		if (!edge)
			model_report(m, s->sheaves ? SLUB_RULE_S_TRANSITION : SLUB_RULE_TRANSITION, r, s,
				     s->h.k1, 0,
				     "no edge for %s at %s from %s (list %s, dest %s)",
				     slub_event_name(ev->type), slub_site_name(ev->site),
				     slub_state_name(before), slub_model_list_name(s->list),
				     slub_dest_name(ev->list));
		else
			check_edge(m, s, e, r, edge);
	}
	move(s, ev, edge);
}

/* Lost events may hide what happened to the slab since its last event:
 * it starts over from this one.  Returns 1 when it does. */
static int slab_resync(struct slub_model *m, struct mslab *s)
{
	if (s->gen != m->disc_gen) {
		if (model_notice_covers(m, s->gen, window_start(m, s->last_ts)))
			s->resync = 1;
		s->gen = m->disc_gen;
	}
	if (!s->resync)
		return 0;
	s->resync = 0;
	s->list_due = 0;
	s->state = SLUB_STATE_UNKNOWN;
	s->list_known = 0;
	s->owner = -1;
	s->last_owner = -1;
	m->sum.slabs_resynced++;
	return 1;
}

/* The applied event as the history and the timeline show it. */
static void record_applied(struct slub_model *m, struct mslab *s, struct slub_model_record *r,
			   const struct slub_event *ev, uint8_t before, int forget)
{
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
	r->before = before;
	r->after = s->state;
	r->list = s->list;
	r->owner = s->frozen ? s->owner : -1;
	if (!is_word_event(ev->type) && s->have_seq) {
		r->inuse = s->inuse;
		r->objects = s->objects;
		r->frozen = s->frozen;
		r->seq = s->seq;
		r->freelist = s->freelist;
	}
	model_hist_push(m, s, r);
	if (m->cb.transition) {
		struct slub_model_transition tr = { r, model_cache_name(m, s->h.k1, r->cache_id) };

		m->cb.transition(&tr, m->cb.arg);
	}
}

/*
 * Apply one slab event in slab order.  `late`: a cpu-slot event whose
 * thread's last update of the slab is older than what was applied since
 * (its thread was preempted before its tracepoint while other cpus moved
 * the slab on): it moves the state only along an edge that still exists
 * and is not judged, its checks having run on the cpu slot at arrival.
 */
void model_apply(struct slub_model *m, struct mslab *s, const struct slub_model_event *e, int late)
{
	const struct slub_event *ev = &e->ev;
	struct slub_model_record r;
	uint8_t before = s->state;
	int forget = model_quarantined(m, s->vpid);
	int resync;

	model_make_record(&r, e);
	r.before = r.after = before;
	r.list = s->list;
	r.owner = s->owner;
	resync = slab_resync(m, s);
	s->last_ts = e->ts;
	if (ev->cache_id || !s->cache_id)
		s->cache_id = ev->cache_id;
	s->node = ev->node;
	m->sum.applied++;

	if (s->state == SLUB_STATE_UNKNOWN || ev->type == SLUB_EV_SLAB_NEW) {
		s->sheaves = (uint8_t)slub_sheaves_slab(m, s->h.k1, ev, s->sheaves);
	} else if (!s->sheaves && m->sheaves_caches && slub_sheaves_slab(m, s->h.k1, ev, 0)) {
		/* Its cache turned out to run the sheaves generation (a forked
		 * child's, whose caches were announced before it): the state
		 * it was given by the classic table is dropped. */
		s->sheaves = 1;
		s->state = SLUB_STATE_UNKNOWN;
		s->list_known = 0;
		s->owner = s->last_owner = -1;
		before = s->state;
	}
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
		baseline(s, ev);
	} else {
		step(m, s, e, &r, before, late || forget);
	}
	record_applied(m, s, &r, ev, before, forget);
}

/*
 * The cpu slot rules, on arrival (a thread's events arrive in its program
 * order): R9 (a slot's active slab changes only by cpu_slab_load and
 * deactivate, only the active slab's freelist is taken), R1-owner of a
 * deactivate (another slot only in a flush), and the flush a thread is
 * running for another slot (for the unfreezes of that slot's chain).
 */
void model_slot_event(struct slub_model *m, uint64_t k1, struct mthread *t,
		      const struct slub_model_event *e, int lenient)
{
	const struct slub_event *ev = &e->ev;
	unsigned type = ev->type;
	int32_t slot = is_cpu_event(type) ? ev_slot(ev) : ev->cpu;
	struct mslot *c = model_get_slot(m, k1, ev->cache_id, slot);
	struct slub_model_record r;

	if (!c)
		return;
	model_slot_touch(m, c, e->ts);
	if (lenient)
		c->known = 0; /* relearnt from this thread's next loads */
	model_make_record(&r, e);
	switch (type) {
	case SLUB_EV_CPU_SLAB_LOAD:
		if (c->known && c->active)
			model_report(m, SLUB_RULE_CPU_SLAB, &r, model_get_slab(m, k1, ev->slab, 0),
			       k1, 0, "slot %d loads slab %#llx over its active slab %#llx",
			       slot, (unsigned long long)ev->slab,
			       (unsigned long long)c->active);
		c->active = ev->slab;
		c->known = 1;
		break;
	case SLUB_EV_DEACTIVATE:
		if (!lenient && slot != ev->cpu && ev->reason != SLUB_DEACT_FLUSH)
			model_report(m, SLUB_RULE_OWNER, &r, model_get_slab(m, k1, ev->slab, 0),
				k1, 0,
				"cpu %d deactivates slot %d's slab %#llx, reason %s (not a flush)",
				ev->cpu, slot, (unsigned long long)ev->slab,
				slub_deactivate_reason_name(ev->reason));
		if (c->known && c->active != ev->slab)
			model_report(m, SLUB_RULE_CPU_SLAB, &r, model_get_slab(m, k1, ev->slab, 0),
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
			model_report(m, SLUB_RULE_CPU_SLAB, &r, model_get_slab(m, k1, ev->slab, 0),
			       k1, 0,
			       "slot %d takes the freelist of slab %#llx, its active slab is %#llx",
			       slot, (unsigned long long)ev->slab,
			       (unsigned long long)c->active);
		break;
	}
}
