/* SPDX-License-Identifier: MIT */
/*
 * Locks and lists: R3 (list operations under the node's list_lock, one
 * list at a time, remove only from the list the slab is on), R4 (what the
 * lists hold when the lock drops, and the leak of a slab unfrozen to the
 * partial list but never listed), R6 (discard) and R7 (holder, recursion,
 * order, acquisition numbers).  Lock events are judged in arrival order:
 * one lock's events are emitted inside its critical sections.
 */
#include <string.h>

#include "internal.h"


/*
 * R4, the leak: a slab unfrozen to the partial list (deactivate_slab,
 * unfreeze_partials) whose list_lock was released with the slab on no
 * list, and never listed since.  Judged when a later critical section that
 * touched the slab ends (the free that empties it takes the lock), at the
 * end of its process or of the trace: an add_partial right after the
 * unlock is R3-list-unlocked's, not a leak.  r NULL: the slab's last event
 * stands for it.
 */
void model_report_leak(struct slub_model *m, struct mslab *s, const struct slub_model_record *r)
{
	struct slub_model_record rr;

	s->list_due = 0;
	/* Events lost since its last one may hold its add_partial. */
	if (model_notice_covers(m, s->gen, window_start(m, s->last_ts)) ||
	    model_notice_since(m, window_start(m, s->last_ts)))
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
	model_report(m, SLUB_RULE_LIST_AT_UNLOCK, r, s, s->h.k1, 0,
		     "slab %#llx was unfrozen to the partial list under lock %u, released "
		     "(acquisition %llu) with the slab on no list and never listed since: leaked",
		     (unsigned long long)s->h.k2, s->due_lock, (unsigned long long)s->due_seq);
}

void model_lock_note_slab(struct mlock *l, uint64_t slab)
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
		struct mslab *s = model_get_slab(m, k1, l->touched[i], 0);
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
			model_report_leak(m, s, &rr);
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
			model_report(m, SLUB_RULE_LIST_AT_UNLOCK, &rr, s, k1, 0,
				"lock %llu released (acquisition %llu) with slab %#llx on the %s "
				"list %s",
				(unsigned long long)l->h.k2, (unsigned long long)l->seq,
				(unsigned long long)s->h.k2, slub_model_list_name(s->list), bad);
		}
	}
	l->ntouched = 0;
	l->overflow = 0;
}

/* R7 at an acquisition: no recursion, one node lock at a time (the
 * thread's view), no second holder, acquisitions numbered one by one. */
static void lock_acquire(struct slub_model *m, uint64_t k1, struct mlock *l,
			 const struct slub_model_event *e, const struct slub_model_record *r,
			 struct mthread *t, int lenient)
{
	const struct slub_event *ev = &e->ev;

	if (t && t->known && !t->suspect && !lenient) {
		for (uint32_t i = 0; i < t->nheld; i++) {
			if (t->held[i] == ev->lock_id)
				model_report(m, SLUB_RULE_LOCK_RECURSIVE, r, NULL, k1, 0,
					"tid %u takes lock %u (acquisition %llu) it holds",
					e->vtid, ev->lock_id, (unsigned long long)ev->lock_seq);
			else
				model_report(m, SLUB_RULE_LOCK_ORDER, r, NULL, k1, 0,
					     "tid %u takes lock %u while holding lock %u", e->vtid,
					     ev->lock_id, t->held[i]);
		}
	}
	if (l->known && !lenient) {
		int explained = model_notice_covers(m, l->gen, window_start(m, l->last_ts));

		if (l->held && l->holder == e->vtid) {
			/* recursion: reported above from the thread's view */
		} else if (l->held && !explained)
			model_report(m, SLUB_RULE_LOCK_HOLDER, r, NULL, k1, l->holder,
				     "lock %u acquisition %llu by tid %u while tid %u holds "
				     "acquisition %llu",
				     ev->lock_id, (unsigned long long)ev->lock_seq, e->vtid,
				     l->holder, (unsigned long long)l->seq);
		else if (ev->lock_seq != l->seq + 1 && !explained)
			model_report(m, SLUB_RULE_LOCK_SEQ, r, NULL, k1, 0,
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
}

/* R7 at a release (by the holder, of the acquisition it took), then R4 on
 * the slabs the critical section touched. */
static void lock_release(struct slub_model *m, uint64_t k1, struct mlock *l,
			 const struct slub_model_event *e, const struct slub_model_record *r,
			 struct mthread *t, int lenient)
{
	const struct slub_event *ev = &e->ev;

	if (l->known && !lenient && (!l->held || l->holder != e->vtid || l->seq != ev->lock_seq))
		model_report(m, SLUB_RULE_LOCK_HOLDER, r, NULL, k1, l->held ? l->holder : 0,
			"tid %u releases lock %u acquisition %llu; %s%u holds acquisition %llu",
			e->vtid, ev->lock_id, (unsigned long long)ev->lock_seq,
			l->held ? "tid " : "no one (last: tid ", l->holder,
			(unsigned long long)l->seq);
	if (l->known && l->held && !lenient)
		check_at_unlock(m, k1, l, r);
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

void model_lock_event(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
		      struct mthread *t, int lenient)
{
	struct mlock *l = model_get_lock(m, k1, e->ev.lock_id);
	struct slub_model_record r;

	if (!l)
		return;
	model_lock_touch(m, l, e->ts);
	model_make_record(&r, e);
	if (e->ev.type == SLUB_EV_LOCK_ACQUIRE)
		lock_acquire(m, k1, l, e, &r, t, lenient);
	else
		lock_release(m, k1, l, e, &r, t, lenient);
}

/* ---- list operations and discards ---- */

static uint8_t list_of_op(unsigned type)
{
	return type == SLUB_EV_ADD_FULL || type == SLUB_EV_REMOVE_FULL ? SLUB_LIST_FULL
								      : SLUB_LIST_PARTIAL;
}

/* R3 in slab order: add to no list twice, remove only from the list the
 * slab is on.  Returns 1 when a violation was reported. */
int model_check_list_op(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
			const struct slub_model_record *r)
{
	const struct slub_event *ev = &e->ev;
	uint8_t want = list_of_op(ev->type);
	int add = ev->type == SLUB_EV_ADD_PARTIAL || ev->type == SLUB_EV_ADD_FULL;

	if (add && s->list != SLUB_LIST_NONE && s->list != SLUB_LIST_CPU_PARTIAL) {
		model_report(m, SLUB_RULE_LIST_ONE, r, s, s->h.k1, 0,
			     "%s of a slab already on list %s", slub_event_name(ev->type),
			     slub_model_list_name(s->list));
		return 1;
	} else if (!add && s->list != want) {
		model_report(m, SLUB_RULE_LIST_REMOVE, r, s, s->h.k1, 0, "%s of a slab on list %s",
			     slub_event_name(ev->type), slub_model_list_name(s->list));
		return 1;
	}
	return 0;
}

/* R6 in slab order: only an empty, unfrozen, unlisted slab with pages, at
 * the seq the slab is at.  Returns 1 when a violation was reported. */
int model_check_discard(struct slub_model *m, struct mslab *s, const struct slub_model_event *e,
			const struct slub_model_record *r)
{
	const struct slub_event *ev = &e->ev;

	if (ev->new.inuse || ev->new.frozen || (s->list_known && s->list != SLUB_LIST_NONE) ||
	    !s->pages || ev->locked) {
		model_report(m, SLUB_RULE_DISCARD, r, s, s->h.k1, 0,
			"discard of a slab with inuse %u frozen %u on list %s%s%s", ev->new.inuse,
			ev->new.frozen, slub_model_list_name(s->list),
			s->pages ? "" : ", already discarded",
			ev->locked ? ", list_lock held" : "");
		return 1;
	} else if (ev->new.seq != s->seq) {
		model_report(m, SLUB_RULE_DISCARD, r, s, s->h.k1, 0,
			"discard names word seq %u, the slab is at seq %u", ev->new.seq, s->seq);
		return 1;
	}
	return 0;
}

/* R3-list-unlocked in arrival order: the acting thread holds the node's
 * list_lock under the acquisition the list operation names.  The lock
 * learns the slab for its check at release (R4). */
void model_list_op_arrival(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
			   struct mthread *t, int lenient)
{
	const struct slub_event *ev = &e->ev;
	struct mlock *l = model_get_lock(m, k1, ev->lock_id);
	struct slub_model_record r;

	model_lru_note(t, ev->slab, ev->new.seq);
	if (l)
		model_lock_touch(m, l, e->ts);
	if (!lenient &&
	    (l && l->known ? !(l->held && l->holder == e->vtid && l->seq == ev->lock_seq)
			   : !ev->locked)) {
		model_make_record(&r, e);
		model_report(m, SLUB_RULE_LIST_UNLOCKED, &r, model_get_slab(m, k1, ev->slab, 0), k1,
		       l && l->held ? l->holder : 0,
		       "%s of slab %#llx by tid %u under lock %u acquisition %llu; %s",
		       slub_event_name(ev->type), (unsigned long long)ev->slab, e->vtid,
		       ev->lock_id, (unsigned long long)ev->lock_seq,
		       !l || !l->known	      ? "the event says list_lock is not held"
		       : !l->held	      ? "the lock is free"
		       : l->holder != e->vtid ? "another thread holds it"
					      : "it is held under another acquisition");
	}
	if (l && l->held && l->holder == e->vtid)
		model_lock_note_slab(l, ev->slab);
}

/* R6 in arrival order: no discard while the thread holds the node's lock. */
void model_discard_arrival(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
			   int lenient)
{
	const struct slub_event *ev = &e->ev;
	struct mlock *l = model_get_lock(m, k1, lock_id_of(ev->cache_id, ev->node));

	if (!lenient && l && l->known && l->held && l->holder == e->vtid) {
		struct slub_model_record r;

		model_make_record(&r, e);
		model_report(m, SLUB_RULE_DISCARD, &r, model_get_slab(m, k1, ev->slab, 0), k1, 0,
		       "slab %#llx discarded while tid %u holds its node's list_lock",
		       (unsigned long long)ev->slab, e->vtid);
	}
}
