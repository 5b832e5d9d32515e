/* SPDX-License-Identifier: MIT */
/*
 * The sheaves generation (Linux 7.0) in the model: its slab table, its
 * word deltas, and the sheaves and barns (the S rules, table.c).
 *
 * Slabs.  A slab of a sheaves cache is never frozen.  What freezing gave
 * a cpu, exclusive use of a slab's freelist, is now being off every list:
 * get_partial_node_bulk() takes partial slabs off the list under
 * list_lock, then get_freelist_nofreeze() takes each one's whole freelist
 * without the lock (S2-take-off-list).  A slab is therefore only
 * NODE_PARTIAL (a free object; on the partial list, or off it while a
 * refill holds it), FULL (no free object, on no list: every object is
 * allocated or in a sheaf) or DISCARDED; the list is kept apart as for
 * the classic generation.  slab.c applies this table instead of the
 * classic one to a slab of a cache created with SLUB_F_SHEAVES.
 *
 * Sheaves and barns.  An object is in exactly one of: its slab's
 * freelist, a sheaf, allocated.  The slab words count the objects in
 * sheaves as in use; where they are the sheaf events say (wire format 7):
 * sheaf_refill and sheaf_flush move `count` objects between one slab and
 * a sheaf and give the sheaf's size after, sheaf_slot gives a slot's main
 * and spare with their sizes after any change, barn_put and barn_get give
 * the barn's counts after the move.  Between two of its events a sheaf's
 * size changes only while it is a slot's main (allocations and frees, not
 * traced one by one unless asked): the model checks a sheaf's size
 * wherever it was not main (S5), within a flush (S6) and a refill (S7), a
 * sheaf's place (S4) and a barn's counts (S8).  These events arrive in an
 * order that holds: a slot's in its thread's program order, a barn's in
 * its lock's order (emitted under it).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* SLUB_F_SHEAVES (include/slub/slub.h): cache_create's flags. */
#define F_SHEAVES (1u << 7)

/* ---- slabs: the table ---- */

#define NPA SLUB_STATE_NODE_PARTIAL
#define FUL SLUB_STATE_FULL
#define DIS SLUB_STATE_DISCARDED
#define UNK SLUB_STATE_UNKNOWN
#define L_NO SLUB_LIST_NONE
#define L_PA SLUB_LIST_PARTIAL
#define LCK SLUB_COND_LOCKED
#define ONL SLUB_COND_ON_LIST
#define EMP SLUB_COND_EMPTY
#define DST SLUB_COND_DEST
#define OFF SLUB_COND_OFF_LIST

static const struct slub_transition transitions[] = {
	/* alloc_from_new_slab(): a refill carves a new slab, unfrozen */
	{ UNK, SLUB_EV_SLAB_NEW, SLUB_SITE_NEW_SLAB, NPA, L_NO, DST, "alloc_from_new_slab",
	  "the refill took some objects; the rest stay on the freelist (add_partial follows)" },
	{ UNK, SLUB_EV_SLAB_NEW, SLUB_SITE_NEW_SLAB, FUL, L_NO, DST, "alloc_from_new_slab",
	  "the refill took every object of the new slab" },
	{ DIS, SLUB_EV_SLAB_NEW, SLUB_SITE_NEW_SLAB, NPA, L_NO, DST, "alloc_from_new_slab",
	  "the slab descriptor is reused for new pages, some objects left" },
	{ DIS, SLUB_EV_SLAB_NEW, SLUB_SITE_NEW_SLAB, FUL, L_NO, DST, "alloc_from_new_slab",
	  "the slab descriptor is reused for new pages, every object taken" },

	/* node lists, under list_lock */
	{ NPA, SLUB_EV_ADD_PARTIAL, SLUB_SITE_NONE, NPA, L_PA, LCK, "add_partial",
	  "a new slab's rest, a full slab that got objects back (tail), a slab a refill "
	  "did not need after all (head)" },
	{ NPA, SLUB_EV_REMOVE_PARTIAL, SLUB_SITE_NONE, NPA, L_NO, LCK | ONL,
	  "get_partial_node_bulk", "a refill takes the slab off the list (what freezing was); "
	  "or an empty slab leaves it to be discarded" },

	/* get_freelist_nofreeze(): the refill takes the slab's freelist */
	{ NPA, SLUB_EV_TAKE_FREELIST, SLUB_SITE_GET_FREELIST, FUL, L_NO, OFF,
	  "get_freelist_nofreeze", "the whole freelist, of a slab the refill took off the list" },

	/* __slab_free(): a flush, a remote-node free, a refill's leftover */
	{ FUL, SLUB_EV_FREE_REMOTE, SLUB_SITE_SLAB_FREE, NPA, L_NO, LCK, "__slab_free",
	  "a full slab gets objects back under list_lock (add_partial, tail, follows)" },
	{ NPA, SLUB_EV_FREE_REMOTE, SLUB_SITE_SLAB_FREE, NPA, L_NO, 0, "__slab_free",
	  "objects back to a slab with free objects (under list_lock when it empties)" },

	/* discard_slab() */
	{ NPA, SLUB_EV_SLAB_DISCARD, SLUB_SITE_NONE, DIS, L_NO, EMP, "discard_slab",
	  "an empty slab off every list (the node has min_partial slabs)" },
};

#define NR_TRANSITIONS (sizeof(transitions) / sizeof(transitions[0]))

unsigned slub_sheaves_transition_count(void)
{
	return NR_TRANSITIONS;
}

const struct slub_transition *slub_sheaves_transition_get(unsigned i)
{
	return i < NR_TRANSITIONS ? &transitions[i] : NULL;
}

const struct slub_transition *slub_sheaves_find_edge(uint8_t before, const struct slub_event *ev)
{
	/* no freeze in this generation: no row has TAKES */
	return slub_edge_in(transitions, NR_TRANSITIONS, before, ev, -1);
}

/* What a slab seen without history is after the event (see table.c's
 * effects): never frozen, so never owned; the word says partial or full. */
#define FX(type, state, list, pages) [type] = { 1, state, FX_OWNER_KEEP, list, SLUB_SITE_NONE, pages }

static const struct slub_effect effects[SLUB_EV_NR] = {
	FX(SLUB_EV_SLAB_NEW, FX_WORD, L_NO, FX_PAGES_NEW),
	FX(SLUB_EV_TAKE_FREELIST, FX_WORD, L_NO, 0),
	FX(SLUB_EV_FREE_REMOTE, FX_WORD, FX_KEEP, 0),
	FX(SLUB_EV_ADD_PARTIAL, FX_KEEP, L_PA, 0),
	FX(SLUB_EV_REMOVE_PARTIAL, FX_KEEP, L_NO, 0),
	FX(SLUB_EV_SLAB_DISCARD, DIS, L_NO, FX_PAGES_GONE),
};

const struct slub_effect *slub_sheaves_effect_of(unsigned type)
{
	return type < SLUB_EV_NR && effects[type].row ? &effects[type] : NULL;
}

/* S3-word-delta: what the change of the word may be (pi, pfl: the
 * previous inuse and freelist).  Returns what is wrong, or NULL. */
const char *slub_sheaves_word_delta(const struct slub_event *ev, uint32_t pi, uint64_t pfl)
{
	const struct slub_word *w = &ev->new;

	switch (ev->type) {
	case SLUB_EV_SLAB_NEW:
		if (!w->inuse || (w->inuse == w->objects) != !w->freelist)
			return "a new slab's taken objects are in use, the rest on its freelist";
		break;
	case SLUB_EV_TAKE_FREELIST:
		if (!pfl || w->freelist || w->inuse != w->objects)
			return "get_freelist_nofreeze takes the whole, non-empty freelist";
		break;
	case SLUB_EV_FREE_REMOTE:
		if (w->inuse >= pi || !w->freelist || w->freelist == pfl)
			return "__slab_free gives objects back onto the freelist";
		break;
	}
	return NULL;
}

/* Is the slab's cache of the sheaves generation?  Its cache_create says
 * so, or its sheaf and barn events do; without either (a trace started
 * mid-run, a forked child, whose caches were announced before it), an
 * update only that generation makes does: a new slab or a take of the
 * freelist that leaves the slab unfrozen. */
int slub_sheaves_slab(struct slub_model *m, uint64_t k1, const struct slub_event *ev, int cur)
{
	const struct mcache *c = m->sheaves_caches || ev->type == SLUB_EV_SLAB_NEW ?
		(const struct mcache *)ht_find(&m->caches, k1, ev->cache_id) : NULL;

	if (c && c->known_generation)
		return c->sheaves;
	if (ev->type == SLUB_EV_SLAB_NEW || ev->type == SLUB_EV_TAKE_FREELIST)
		return !ev->new.frozen;
	return cur;
}

void slub_sheaves_cache(struct slub_model *m, struct mcache *c, const struct slub_event *ev)
{
	int sheaves = ev->info && (ev->info->flags & F_SHEAVES);

	if (sheaves && !(c->known_generation && c->sheaves))
		m->sheaves_caches++;
	c->known_generation = ev->info != NULL;
	c->sheaves = (uint8_t)sheaves;
}

/* A sheaf or barn event: its cache runs the sheaves generation. */
static void note_sheaves_cache(struct slub_model *m, uint64_t k1, uint32_t cache_id)
{
	struct mcache *c = (struct mcache *)ht_find(&m->caches, k1, cache_id);

	if (c && c->known_generation)
		return;
	if (!c) {
		c = mm_pool_get(&m->p_cache);
		if (!c)
			return;
		memset((char *)c + sizeof(c->h), 0, sizeof(*c) - sizeof(c->h));
		c->h.k1 = k1;
		c->h.k2 = cache_id;
		ht_insert(&m->caches, &c->h);
	}
	c->known_generation = 1;
	c->sheaves = 1;
	m->sheaves_caches++;
}

/* ---- sheaves and barns ---- */

enum { P_NONE = 0, P_MAIN, P_SPARE, P_BARN_EMPTY, P_BARN_FULL };

static const char *const place_names[] = {
	[P_NONE] = "on its way", [P_MAIN] = "a slot's main", [P_SPARE] = "a slot's spare",
	[P_BARN_EMPTY] = "the barn's empty list", [P_BARN_FULL] = "the barn's full list",
};

#define BARN_KEY (1ull << 63)

static uint64_t barn_key(uint32_t cache_id, int32_t node)
{
	return BARN_KEY | (uint64_t)cache_id << 8 | (uint8_t)node;
}

/* The entry of a sheaf or a barn (made when `create`); after lost events
 * what it knew is forgotten. */
static struct msheaf *get_entry(struct slub_model *m, uint64_t k1, uint64_t k2, int create)
{
	struct msheaf *x = (struct msheaf *)ht_find(&m->sheaves, k1, k2);

	if (!x && create) {
		x = mm_pool_get(&m->p_sheaf);
		if (!x)
			return NULL;
		memset((char *)x + sizeof(x->h), 0, sizeof(*x) - sizeof(x->h));
		x->h.k1 = k1;
		x->h.k2 = k2;
		x->gen = m->disc_gen;
		ht_insert(&m->sheaves, &x->h);
	}
	if (x && x->gen != m->disc_gen) {
		x->known = 0;
		x->gen = m->disc_gen;
	}
	return x;
}

static void drop_entry(struct slub_model *m, struct msheaf *x)
{
	ht_remove(&m->sheaves, &x->h);
	mm_pool_put(&m->p_sheaf, x);
}

static __attribute__((format(printf, 5, 6))) void
sheaf_report(struct slub_model *m, unsigned rule, const struct slub_model_event *e, uint64_t k1,
	     const char *fmt, ...)
{
	struct slub_model_record r;
	char detail[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	model_make_record(&r, e);
	r.object = e->ev.sheaf;
	model_report(m, rule, &r, NULL, k1, 0, "%s", detail);
}

/* A sheaf whose size nothing but its own events changed since the model
 * last knew it: checked (S5), else learnt. */
static void check_size(struct slub_model *m, struct msheaf *x, const struct slub_model_event *e,
		       uint64_t k1, uint32_t size, int judge)
{
	if (judge && x->known && x->place != P_MAIN && x->size != size)
		sheaf_report(m, SLUB_RULE_S_SHEAF_COUNT, e, k1,
			     "%s: sheaf %#llx holds %u objects; in %s since its last event it "
			     "held %u",
			     slub_event_name(e->ev.type), (unsigned long long)e->ev.sheaf, size,
			     slub_sheaf_place_name(x->place), x->size);
	x->size = size;
	x->known = 1;
}

static void slot_sheaf(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
		       uint64_t addr, uint32_t size, int place, int judge)
{
	const struct slub_event *ev = &e->ev;
	struct msheaf *x = get_entry(m, k1, addr, 1);
	struct slub_model_event q = *e;

	if (!x)
		return;
	q.ev.sheaf = addr;
	if (judge && x->place >= P_BARN_EMPTY)
		sheaf_report(m, SLUB_RULE_S_SHEAF_PLACE, &q, k1,
			     "sheaf_slot: sheaf %#llx is slot %d's %s while in %s",
			     (unsigned long long)addr, ev->slot, place == P_MAIN ? "main" : "spare",
			     slub_sheaf_place_name(x->place));
	if (x->place != P_MAIN || x->slot != ev->slot || x->cache_id != ev->cache_id)
		check_size(m, x, &q, k1, size, judge);
	x->place = (uint8_t)place;
	x->slot = ev->slot;
	x->cache_id = ev->cache_id;
	x->size = size;
	/* main's size moves with every allocation and free */
	x->known = place != P_MAIN;
}

/* sheaf_slot: the slot's main and spare after a change. */
static void slot_event_sheaves(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
			       int judge)
{
	const struct slub_event *ev = &e->ev;
	struct mslot *c = model_get_slot(m, k1, ev->cache_id, ev->slot);
	uint64_t before[2] = { c ? c->main : 0, c ? c->spare : 0 };

	if (judge && ev->sheaf && ev->sheaf == ev->spare)
		sheaf_report(m, SLUB_RULE_S_SHEAF_PLACE, e, k1,
			     "%s: sheaf %#llx is both main and spare of slot %d",
			     slub_event_name(ev->type), (unsigned long long)ev->sheaf, ev->slot);
	if (ev->sheaf)
		slot_sheaf(m, k1, e, ev->sheaf, ev->sheaf_size, P_MAIN, judge);
	if (ev->spare && ev->spare != ev->sheaf)
		slot_sheaf(m, k1, e, ev->spare, ev->spare_size, P_SPARE, judge);
	/* what left the slot otherwise than into the barn was freed */
	for (int i = 0; i < 2; i++) {
		struct msheaf *x;

		if (!before[i] || before[i] == ev->sheaf || before[i] == ev->spare)
			continue;
		x = get_entry(m, k1, before[i], 0);
		if (x && (x->place == P_MAIN || x->place == P_SPARE) && x->slot == ev->slot &&
		    x->cache_id == ev->cache_id)
			drop_entry(m, x);
	}
	if (c) {
		c->main = ev->sheaf;
		c->spare = ev->spare;
	}
}

/* barn_put, barn_get: the barn's counts (S8), the sheaf's place (S4) and
 * size (S5). */
static void barn_event(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
		       int judge)
{
	const struct slub_event *ev = &e->ev;
	int put = ev->type == SLUB_EV_BARN_PUT, full = ev->reason == SLUB_BARN_FULL;
	struct msheaf *b = get_entry(m, k1, barn_key(ev->cache_id, ev->node), 1);
	struct msheaf *x = get_entry(m, k1, ev->sheaf, 1);

	if (!b || !x)
		return;
	if (judge && b->known) {
		uint32_t want_full = b->full + (full ? (put ? 1 : -1) : 0);
		uint32_t want_empty = b->empty + (!full ? (put ? 1 : -1) : 0);

		if (want_full != ev->barn_full || want_empty != ev->barn_empty)
			sheaf_report(m, SLUB_RULE_S_BARN_COUNT, e, k1,
				     "%s of a sheaf on the %s list: node %d's barn says %u full, "
				     "%u empty after it had %u full, %u empty",
				     slub_event_name(ev->type), full ? "full" : "empty", ev->node,
				     ev->barn_full, ev->barn_empty, b->full, b->empty);
	}
	if (judge && (full ? !ev->sheaf_size : ev->sheaf_size != 0))
		sheaf_report(m, SLUB_RULE_S_BARN_COUNT, e, k1,
			     "%s: sheaf %#llx with %u objects on the barn's %s list",
			     slub_event_name(ev->type), (unsigned long long)ev->sheaf,
			     ev->sheaf_size, full ? "full" : "empty");
	b->full = ev->barn_full;
	b->empty = ev->barn_empty;
	b->known = 1;

	if (judge && put && x->place >= P_BARN_EMPTY)
		sheaf_report(m, SLUB_RULE_S_SHEAF_PLACE, e, k1,
			     "%s: sheaf %#llx put in the barn of node %d while in %s already",
			     slub_event_name(ev->type), (unsigned long long)ev->sheaf, ev->node,
			     slub_sheaf_place_name(x->place));
	if (judge && !put && (x->place == P_MAIN || x->place == P_SPARE))
		sheaf_report(m, SLUB_RULE_S_SHEAF_PLACE, e, k1,
			     "%s: sheaf %#llx got from the barn of node %d while slot %d's %s",
			     slub_event_name(ev->type), (unsigned long long)ev->sheaf, ev->node,
			     x->slot, slub_sheaf_place_name(x->place));
	check_size(m, x, e, k1, ev->sheaf_size, judge);
	x->place = put ? (full ? P_BARN_FULL : P_BARN_EMPTY) : P_NONE;
	x->cache_id = ev->cache_id;
}

/* sheaf_refill, sheaf_flush: the sheaf's size moves by count (S7, S6). */
static void move_event(struct slub_model *m, uint64_t k1, const struct slub_model_event *e,
		       int judge)
{
	const struct slub_event *ev = &e->ev;
	int refill = ev->type == SLUB_EV_SHEAF_REFILL;
	struct msheaf *x;

	if (!ev->sheaf)
		return; /* a refill straight to the caller */
	x = get_entry(m, k1, ev->sheaf, 1);
	if (!x)
		return;
	if (judge && x->known) {
		uint64_t want = refill ? (uint64_t)x->size + ev->count :
				x->size >= ev->count ? x->size - ev->count : UINT64_MAX;

		if (want != ev->sheaf_size)
			sheaf_report(m, refill ? SLUB_RULE_S_REFILL : SLUB_RULE_S_FLUSH_WHOLE, e,
				     k1, "%s of slab %#llx: %u objects %s a sheaf of %u leave it "
				     "with %u", slub_event_name(ev->type),
				     (unsigned long long)ev->slab, ev->count,
				     refill ? "into" : "from", x->size, ev->sheaf_size);
	}
	x->size = ev->sheaf_size;
	x->known = 1;
	if (!refill && !x->size && x->place == P_NONE)
		drop_entry(m, x); /* flushed on its way: freed next */
}

/* sheaf_alloc, sheaf_free (format 8): a sheaf made is empty and in no
 * place, so its size is known from its first event on; a sheaf freed is
 * forgotten (its address may be the next sheaf's).  What the model knew of
 * an address before a sheaf_alloc, through lost events or not, is the old
 * sheaf's, not this one's. */
static void life_event(struct slub_model *m, uint64_t k1, const struct slub_model_event *e)
{
	struct msheaf *x;

	if (!e->ev.sheaf)
		return;
	x = get_entry(m, k1, e->ev.sheaf, e->ev.type == SLUB_EV_SHEAF_ALLOC);
	if (!x)
		return;
	if (e->ev.type == SLUB_EV_SHEAF_FREE) {
		drop_entry(m, x);
		return;
	}
	x->size = 0;
	x->known = 1;
	x->place = P_NONE;
	x->cache_id = e->ev.cache_id;
}

void sheaves_event(struct slub_model *m, uint64_t k1, struct mthread *t,
		   const struct slub_model_event *e)
{
	int judge = !t->suspect && !model_quarantined(m, e->vpid);

	note_sheaves_cache(m, k1, e->ev.cache_id);
	switch (e->ev.type) {
	case SLUB_EV_SHEAF_SLOT:
		slot_event_sheaves(m, k1, e, judge);
		break;
	case SLUB_EV_BARN_PUT:
	case SLUB_EV_BARN_GET:
		barn_event(m, k1, e, judge);
		break;
	case SLUB_EV_SHEAF_REFILL:
	case SLUB_EV_SHEAF_FLUSH:
		move_event(m, k1, e, judge);
		break;
	case SLUB_EV_SHEAF_ALLOC:
	case SLUB_EV_SHEAF_FREE:
		life_event(m, k1, e);
		break;
	}
}

const char *slub_sheaf_place_name(unsigned p)
{
	return p < sizeof(place_names) / sizeof(place_names[0]) ? place_names[p] : "?";
}
