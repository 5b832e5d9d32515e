/* SPDX-License-Identifier: MIT */
/*
 * Objects (R8), when the trace has alloc/free events: the set of allocated
 * objects per process image; an object is handed out only while free,
 * freed only while allocated, and freed to the slab and cache it came from.
 */
#include "internal.h"

static void obj_set(struct slub_model *m, struct mobj *o, const struct slub_model_event *e)
{
	o->slab = e->ev.slab;
	o->cache_id = e->ev.cache_id;
	o->gen = m->disc_gen;
	o->ts = e->ts;
}

static void obj_add(struct slub_model *m, uint64_t k1, const struct slub_model_event *e)
{
	struct mobj *o = mm_pool_get(&m->p_obj);

	if (!o)
		return;
	o->h.k1 = k1;
	o->h.k2 = e->ev.object;
	obj_set(m, o, e);
	ht_insert(&m->objs, &o->h);
}

static void obj_del(struct slub_model *m, struct mobj *o)
{
	ht_remove(&m->objs, &o->h);
	mm_pool_put(&m->p_obj, o);
}

/* R8-double-alloc: an object handed out while allocated (unless its free
 * may be among lost events). */
static void object_alloc(struct slub_model *m, uint64_t k1, struct mobj *o,
			 const struct slub_model_event *e, const struct slub_model_record *r)
{
	const struct slub_event *ev = &e->ev;

	if (!o) {
		obj_add(m, k1, e);
		return;
	}
	if (model_notice_covers(m, o->gen, window_start(m, o->ts))) {
		/* its free may be among the lost events */
	} else {
		model_report(m, SLUB_RULE_DOUBLE_ALLOC, r, model_get_slab(m, k1, ev->slab, 0),
			k1, 0,
			"object %#llx handed out again (allocated from slab %#llx, never freed)",
			(unsigned long long)ev->object, (unsigned long long)o->slab);
	}
	obj_set(m, o, e);
}

/* R8-object-slab for an allocated object; R8-double-free for one not
 * allocated, when the slab's whole life was seen with object events on. */
static void object_free(struct slub_model *m, uint64_t k1, struct mproc *p, struct mobj *o,
			const struct slub_model_event *e, const struct slub_model_record *r)
{
	const struct slub_event *ev = &e->ev;
	struct mslab *s;

	if (o) {
		if ((o->slab != ev->slab || o->cache_id != ev->cache_id) &&
		    !model_notice_covers(m, o->gen, window_start(m, o->ts)))
			model_report(m, SLUB_RULE_OBJECT_SLAB, r,
				model_get_slab(m, k1, ev->slab, 0), k1, 0,
				"object %#llx freed to slab %#llx cache %u, allocated from slab "
				"%#llx cache %u",
				(unsigned long long)ev->object, (unsigned long long)ev->slab,
				ev->cache_id, (unsigned long long)o->slab, o->cache_id);
		obj_del(m, o);
		return;
	}
	s = model_get_slab(m, k1, ev->slab, 0);
	if (s && s->born && p->obj_since && p->obj_since <= s->born_ts &&
	    s->state != SLUB_STATE_UNKNOWN &&
	    !model_notice_covers(m, s->born_gen, window_start(m, s->born_ts)))
		model_report(m, SLUB_RULE_DOUBLE_FREE, r, s, k1, 0,
			     "object %#llx of slab %#llx freed while not allocated",
			     (unsigned long long)ev->object, (unsigned long long)ev->slab);
}

void model_object_event(struct slub_model *m, uint64_t k1, struct mproc *p,
			const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;
	struct mobj *o = (struct mobj *)ht_find(&m->objs, k1, ev->object);
	struct slub_model_record r;

	if (!p->obj_since)
		p->obj_since = e->ts ? e->ts : 1;
	model_make_record(&r, e);
	if (model_quarantined(m, e->vpid)) {
		/* keep the set, judge nothing */
		if (ev->type == SLUB_EV_FREE && o)
			obj_del(m, o);
		else if (ev->type == SLUB_EV_ALLOC && !o)
			obj_add(m, k1, e);
		return;
	}
	if (ev->type == SLUB_EV_ALLOC)
		object_alloc(m, k1, o, e, &r);
	else
		object_free(m, k1, p, o, e, &r);
}
