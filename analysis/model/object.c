/* SPDX-License-Identifier: MIT */
/*
 * Objects (R8), when the trace has alloc/free events: the set of allocated
 * objects per process image; an object is handed out only while free,
 * freed only while allocated, and freed to the slab and cache it came from.
 */
#include "internal.h"

void object_event(struct slub_model *m, uint64_t k1, struct mproc *p,
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
