/* SPDX-License-Identifier: MIT */
/*
 * The stat items of a cache of the sheaves generation (Linux 7.0), rebuilt
 * from its events as the allocator counts them (src/sheaves.c):
 *
 *  - sheaf_flush, sheaf_refill: the objects sheaf_flush and sheaf_refill
 *    (into a sheaf, not straight to the caller) move;
 *  - barn_put: a full sheaf into the barn (both of its cases put one);
 *  - barn_get: a full sheaf from the barn in exchange for the slot's empty
 *    main, i.e. a barn_get of a full sheaf the thread answers with a
 *    barn_put of an empty one (barn_shrink's gets are not counted);
 *  - barn_get_fail: the barn had no full sheaf, so an empty sheaf (the
 *    spare, the barn's, a new one) is refilled: each such refill starts
 *    with a sheaf_refill whose size after is its count;
 *  - alloc_slowpath: a refill straight to the caller (one object);
 *  - free_slowpath: __slab_free's free_remote events less those of a flush
 *    (one per sheaf_flush) and of a refill's leftover (a refill that took
 *    a slab's whole freelist but kept fewer objects gives the rest back);
 *  - free_add_partial: __slab_free lists a slab that was full at the
 *    tail, a refill lists what it does not take at the head;
 *  - free_remove_partial: __slab_free's removal of a slab it emptied and
 *    shrink's of an empty slab, each followed by the remover's discard of
 *    it with no take of a freelist by that thread in between (a refill
 *    takes first, then gives back or discards the slabs it did not need);
 *  - alloc_refill 0: the allocator counts no cpu slab refill here;
 *  - barn_put_fail: a sheaf the thread flushed that comes back as its
 *    slot's empty main: the full spare, flushed when the barn held too
 *    many full sheaves, or main, flushed when no empty sheaf could be had
 *    (memory ran out; one too many when the slot had no spare, which the
 *    allocator does not count as a failed put).
 *
 *  - sheaf_alloc, sheaf_free: their events (wire format 8 on; a trace of
 *    format 7 has none, and the two items are not known from it).
 *  - alloc_node_mismatch: the refills straight to the caller with the
 *    other-node flag (format 8 on; from format 7 it is not known: such a
 *    refill from another node is that or the fallback to any node's
 *    partial slabs).
 */
#include <slub/slub.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t barn_of(const struct slub_event *ev)
{
	return ((uint64_t)ev->cache_id << 8 | (uint8_t)ev->node) + 1;
}

/* A refill's source (take or new slab) and its sheaf_refill of one slab,
 * paired in order (struct tshpair). */
void tstats_sheaves_pair_free(struct hnode *n, void *arg)
{
	struct tshpair *p = (struct tshpair *)n;

	(void)arg;
	for (uint32_t i = 0; i < p->capq; i++)
		free(p->q[i].v);
	free(p->q);
	free(p);
}

static struct tshqueue *queue_of(struct slub_tstats *st, uint64_t key, uint64_t slab,
				 uint32_t vtid, struct tshpair **pp)
{
	struct tshpair *p = (struct tshpair *)htab_find(&st->sh_pairs, key, slab);
	struct tshqueue *free_q = NULL;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->h.k1 = key;
		p->h.k2 = slab;
		htab_insert(&st->sh_pairs, &p->h);
	}
	*pp = p;
	for (uint32_t i = 0; i < p->nq; i++) {
		struct tshqueue *q = &p->q[i];

		if (q->n && q->vtid == vtid)
			return q;
		if (!q->n && !free_q)
			free_q = q;
	}
	if (!free_q) {
		if (p->nq == p->capq) {
			uint32_t cap = p->capq ? 2 * p->capq : 4;
			struct tshqueue *q = realloc(p->q, cap * sizeof(*q));

			if (!q)
				return NULL;
			memset(q + p->capq, 0, (cap - p->capq) * sizeof(*q));
			p->q = q;
			p->capq = cap;
		}
		free_q = &p->q[p->nq++];
	}
	free_q->vtid = vtid;
	return free_q;
}

/* Out of memory: the statistics failed (slub_tstats_failed()). */
static void refill_pair(struct slub_tstats *st, uint64_t key, struct tcache *c,
			const struct slub_model_event *e, int is_src, uint32_t v)
{
	struct tshpair *p = NULL;
	struct tshqueue *q = queue_of(st, key, e->ev.slab, e->vtid, &p);

	if (!q) {
		st->failed = 1;
		return;
	}
	if (!q->n || q->src == is_src) {
		if (q->n == q->cap) {
			uint32_t cap = q->cap ? 2 * q->cap : 4;
			uint32_t *vs = realloc(q->v, cap * sizeof(*vs));

			if (!vs) {
				st->failed = 1;
				return;
			}
			q->v = vs;
			q->cap = cap;
		}
		q->src = (uint8_t)is_src;
		q->v[q->n++] = v;
		return;
	}
	uint32_t src = is_src ? v : q->v[0], kept = is_src ? q->v[0] : v;

	memmove(q->v, q->v + 1, --q->n * sizeof(*q->v));
	if (src != TSTATS_SH_NEW && kept < src)
		c->sh_leftovers++;
	for (uint32_t i = 0; i < p->nq; i++)
		if (p->q[i].n)
			return;
	htab_remove(&st->sh_pairs, &p->h);
	tstats_sheaves_pair_free(&p->h, NULL);
}

static struct tshslot *slot_of(struct slub_tstats *st, uint64_t key, uint32_t cache_id,
			       int32_t slot)
{
	uint64_t k2 = (uint64_t)cache_id << 32 | (uint32_t)slot;
	struct tshslot *sl = (struct tshslot *)htab_find(&st->sh_slots, key, k2);

	if (!sl) {
		sl = calloc(1, sizeof(*sl));
		if (!sl)
			return NULL;
		sl->h.k1 = key;
		sl->h.k2 = k2;
		htab_insert(&st->sh_slots, &sl->h);
	}
	return sl;
}

/* sheaf_slot of the acting thread's own slot: a sheaf it flushed since
 * the slot's last event that comes back as an empty main was put in no
 * barn.  The spare, flushed when the barn held too many full sheaves
 * (E2BIG), or main, flushed when no empty sheaf could be had (ENOMEM). */
static void slot_event(struct slub_tstats *st, uint64_t key, struct tcache *c,
		       const struct slub_event *ev)
{
	struct tshslot *sl = slot_of(st, key, ev->cache_id, ev->slot);

	if (!sl)
		return;
	if (ev->slot == ev->cpu && sl->flushed && ev->sheaf == sl->flushed && !ev->sheaf_size &&
	    (sl->spare == sl->flushed || sl->main == sl->flushed))
		c->sheaf_item[SLUB_TS_BARN_PUT_FAIL]++;
	sl->main = ev->sheaf;
	sl->spare = ev->spare;
	sl->flushed = 0;
}

static void sheaf_event(struct slub_tstats *st, uint64_t key, struct tcache *c,
			struct tthread *t, const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;
	uint64_t *y = c->sheaf_item;
	uint64_t got = t->sh_got_full;

	/* a sheaf made or freed moves nothing: it does not part a barn_get
	 * of a full sheaf from the put of the empty one that answers it */
	if (ev->type == SLUB_EV_SHEAF_ALLOC || ev->type == SLUB_EV_SHEAF_FREE) {
		y[ev->type == SLUB_EV_SHEAF_ALLOC ? SLUB_TS_SHEAF_ALLOC : SLUB_TS_SHEAF_FREE]++;
		return;
	}
	t->sh_got_full = 0;
	switch (ev->type) {
	case SLUB_EV_SHEAF_FLUSH:
		y[SLUB_TS_SHEAF_FLUSH] += ev->count;
		c->sh_flushes++;
		if (ev->sheaf) {
			struct tshslot *sl = slot_of(st, key, ev->cache_id, ev->cpu);

			if (sl)
				sl->flushed = ev->sheaf;
		}
		break;
	case SLUB_EV_SHEAF_REFILL:
		if (!ev->sheaf) {
			c->sh_to_caller++;
			/* one object for a caller on another node: one event */
			c->sh_other_node += ev->reason != 0;
		} else {
			y[SLUB_TS_SHEAF_REFILL] += ev->count;
			if (ev->sheaf_size == ev->count)
				y[SLUB_TS_BARN_GET_FAIL]++;
		}
		if (ev->slab)
			refill_pair(st, key, c, e, 0, ev->count);
		break;
	case SLUB_EV_SHEAF_SLOT:
		slot_event(st, key, c, ev);
		break;
	case SLUB_EV_BARN_GET:
		if (ev->reason == SLUB_BARN_FULL)
			t->sh_got_full = barn_of(ev);
		break;
	case SLUB_EV_BARN_PUT:
		if (ev->reason == SLUB_BARN_FULL)
			y[SLUB_TS_BARN_PUT]++;
		else if (got == barn_of(ev))
			y[SLUB_TS_BARN_GET]++;
		break;
	}
}

void tstats_sheaves_event(struct slub_tstats *st, uint64_t key, struct tcache *c,
			  struct tthread *t, const struct slub_model_event *e, struct tslab *s)
{
	const struct slub_event *ev = &e->ev;

	switch (ev->type) {
	case SLUB_EV_SHEAF_FLUSH:
	case SLUB_EV_SHEAF_REFILL:
	case SLUB_EV_SHEAF_SLOT:
	case SLUB_EV_BARN_GET:
	case SLUB_EV_BARN_PUT:
	case SLUB_EV_SHEAF_ALLOC:
	case SLUB_EV_SHEAF_FREE:
		c->sheaves = 1;
		sheaf_event(st, key, c, t, e);
		break;
	case SLUB_EV_FREE_REMOTE:
		c->sh_free_remote++;
		break;
	case SLUB_EV_SLAB_NEW:
		/* carved by a refill: the rest is listed, not given back */
		refill_pair(st, key, c, e, 1, TSTATS_SH_NEW);
		break;
	case SLUB_EV_TAKE_FREELIST:
		t->sh_takes++;
		if (s)
			s->sh_removed = 0;
		/* what the take held: the objects not in use before it */
		if (e->old_valid)
			refill_pair(st, key, c, e, 1, ev->new.objects - ev->old.inuse);
		else if (s && s->word_valid)
			refill_pair(st, key, c, e, 1, ev->new.objects - s->inuse);
		break;
	case SLUB_EV_ADD_PARTIAL:
		/* __slab_free lists a full slab at the tail, a refill at the head */
		if (ev->list == SLUB_DEST_TAIL)
			c->sh_free_add_partial++;
		if (s)
			s->sh_removed = 0;
		break;
	case SLUB_EV_REMOVE_PARTIAL:
		if (s) {
			s->sh_removed = 1;
			s->sh_remover = e->vtid;
			s->sh_takes_at = t->sh_takes;
		}
		break;
	case SLUB_EV_SLAB_DISCARD:
		if (s && s->sh_removed && s->sh_remover == e->vtid && s->sh_takes_at == t->sh_takes)
			c->sh_free_remove_partial++;
		break;
	}
}

void tstats_sheaves_derive(const struct tcache *c, uint64_t *x, int have_objects)
{
	uint64_t not_slow = c->sh_flushes + c->sh_leftovers;

	x[SLUB_TS_ALLOC_REFILL] = 0;
	x[SLUB_TS_ALLOC_SLOWPATH] = c->sh_to_caller;
	x[SLUB_TS_ALLOC_NODE_MISMATCH] = c->sh_other_node;
	x[SLUB_TS_FREE_SLOWPATH] = c->sh_free_remote > not_slow ? c->sh_free_remote - not_slow : 0;
	x[SLUB_TS_FREE_ADD_PARTIAL] = c->sh_free_add_partial;
	x[SLUB_TS_FREE_REMOVE_PARTIAL] = c->sh_free_remove_partial;
	if (have_objects) {
		x[SLUB_TS_ALLOC_FASTPATH] = c->allocs > x[SLUB_TS_ALLOC_SLOWPATH]
						    ? c->allocs - x[SLUB_TS_ALLOC_SLOWPATH] : 0;
		x[SLUB_TS_FREE_FASTPATH] = c->frees > x[SLUB_TS_FREE_SLOWPATH]
						   ? c->frees - x[SLUB_TS_FREE_SLOWPATH] : 0;
	}
}
