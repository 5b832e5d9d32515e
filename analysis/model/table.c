/* SPDX-License-Identifier: MIT */
/*
 * The SLUB state machine as data: the rules (doc/design.md's invariant
 * families, each with a stable id), the table of allowed transitions and,
 * per slab event, the effect of the edges it can be (what a slab seen
 * without history is after it).  The checker (slab.c), `slubtrace rules`
 * and the README's drawing all read these tables; nothing else describes
 * the edges or what an event implies.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const state_names[SLUB_STATE_NR] = {
	[SLUB_STATE_UNKNOWN] = "UNKNOWN",
	[SLUB_STATE_CPU_ACTIVE] = "CPU_ACTIVE",
	[SLUB_STATE_CPU_PARTIAL] = "CPU_PARTIAL",
	[SLUB_STATE_NODE_PARTIAL] = "NODE_PARTIAL",
	[SLUB_STATE_FULL] = "FULL",
	[SLUB_STATE_DISCARDED] = "DISCARDED",
};

static const char *const list_names[SLUB_LIST_NR] = {
	[SLUB_LIST_NONE] = "none",
	[SLUB_LIST_PARTIAL] = "partial",
	[SLUB_LIST_FULL] = "full",
	[SLUB_LIST_CPU_PARTIAL] = "cpu_partial",
};

const char *slub_state_name(unsigned s)
{
	return s < SLUB_STATE_NR ? state_names[s] : "?";
}

const char *slub_model_list_name(unsigned l)
{
	return l < SLUB_LIST_NR ? list_names[l] : "?";
}

/* ---- rules ---- */

struct rule {
	const char *id;
	unsigned family;
	const char *meaning;
	const char *kernel_fn;
	unsigned generation; /* enum slub_rule_generation, set below */
};

static const struct rule rules[SLUB_RULE_NR] = {
	[SLUB_RULE_TRANSITION] = { "R0-transition", 0,
		"an event whose (state, event, site) edge is not in the transition table",
		"mm/slub.c state machine" },
	[SLUB_RULE_FROZEN_STATE] = { "R1-frozen-state", 1,
		"a slab is frozen iff it is CPU_ACTIVE or CPU_PARTIAL",
		"acquire_slab / deactivate_slab" },
	[SLUB_RULE_OWNER] = { "R1-owner", 1,
		"a frozen slab has one owner; only it unfreezes it or takes its freelist "
		"(a flush of another slot, reason flush, is the exception)",
		"get_freelist / deactivate_slab / unfreeze_partials" },
	[SLUB_RULE_FREEZE] = { "R2-freeze-unfrozen", 2,
		"freeze only a slab that is not frozen",
		"acquire_slab / __slab_free" },
	[SLUB_RULE_UNFREEZE] = { "R2-unfreeze-frozen", 2,
		"unfreeze only a frozen slab",
		"deactivate_slab / unfreeze_partials / get_freelist" },
	[SLUB_RULE_LIST_UNLOCKED] = { "R3-list-unlocked", 3,
		"list operations only while the acting thread holds that node's list_lock",
		"add_partial / remove_partial (lockdep_assert_held)" },
	[SLUB_RULE_LIST_ONE] = { "R3-list-one", 3,
		"a slab is on at most one node list",
		"add_partial / add_full" },
	[SLUB_RULE_LIST_REMOVE] = { "R3-list-remove", 3,
		"remove_X only for a slab that is on list X",
		"remove_partial / remove_full" },
	[SLUB_RULE_LIST_AT_UNLOCK] = { "R4-list-at-unlock", 4,
		"when list_lock drops, no slab on the partial list is frozen or without a free "
		"object, no slab on the full list has one, and a slab unfrozen to the partial "
		"list under it is on that list (not leaked)",
		"spin_unlock(&n->list_lock) in deactivate_slab / unfreeze_partials / __slab_free" },
	[SLUB_RULE_WORD_CHAIN] = { "R5-word-chain", 5,
		"each update's old word is the previous new word and seq advances by one; "
		"a break no discarded-events notice explains is a lost update",
		"__cmpxchg_double_slab" },
	[SLUB_RULE_WORD_OBJECTS] = { "R5-word-objects", 5,
		"objects never changes and inuse <= objects",
		"__cmpxchg_double_slab" },
	[SLUB_RULE_WORD_DELTA] = { "R5-word-delta", 5,
		"the change of the word fits the event (frozen flips only by freeze/unfreeze, "
		"one object per free, the whole freelist per take)",
		"get_freelist / __slab_free / deactivate_slab" },
	[SLUB_RULE_DISCARD] = { "R6-discard", 6,
		"slab_discard only when inuse == 0, unfrozen, on no list, list_lock dropped",
		"discard_slab" },
	[SLUB_RULE_LOCK_HOLDER] = { "R7-lock-holder", 7,
		"list_lock is released only by its holder, under the acquisition it took",
		"spin_unlock(&n->list_lock)" },
	[SLUB_RULE_LOCK_RECURSIVE] = { "R7-lock-recursive", 7,
		"a thread never takes a list_lock it holds",
		"spin_lock(&n->list_lock)" },
	[SLUB_RULE_LOCK_ORDER] = { "R7-lock-order", 7,
		"a thread holds at most one node's list_lock (unfreeze_partials switches, never nests)",
		"unfreeze_partials" },
	[SLUB_RULE_LOCK_SEQ] = { "R7-lock-seq", 7,
		"each lock's acquisitions are numbered one by one: no number twice, none missing",
		"spin_lock(&n->list_lock)" },
	[SLUB_RULE_DOUBLE_FREE] = { "R8-double-free", 8,
		"an object is freed only while allocated",
		"__slab_free / set_freepointer (hardened freelist)" },
	[SLUB_RULE_DOUBLE_ALLOC] = { "R8-double-alloc", 8,
		"an object is handed out only while free",
		"slab_alloc_node" },
	[SLUB_RULE_OBJECT_SLAB] = { "R8-object-slab", 8,
		"a freed object belongs to the slab and cache it was allocated from",
		"cache_from_obj / virt_to_slab" },
	[SLUB_RULE_CPU_SLAB] = { "R9-cpu-slab", 9,
		"a cpu's active slab changes only through cpu_slab_load and deactivate, "
		"and only the active slab's freelist is taken",
		"___slab_alloc / flush_slab" },
	/* The sheaves generation (Linux 7.0): slabs are never frozen; being off
	 * every list is what gives a refill its slab. */
	[SLUB_RULE_S_TRANSITION] = { "S0-transition", 10,
		"a sheaves cache's slab event whose (state, event, site) edge is not in the "
		"sheaves table (no freeze, unfreeze, cpu slab or cpu partial event)",
		"mm/slub.c (7.0) state machine", SLUB_RULE_GEN_SHEAVES },
	[SLUB_RULE_S_NEVER_FROZEN] = { "S1-never-frozen", 10,
		"a slab of a sheaves cache is never frozen: no slab word has the frozen bit",
		"get_freelist_nofreeze / __slab_free (7.0)", SLUB_RULE_GEN_SHEAVES },
	[SLUB_RULE_S_TAKE_OFF_LIST] = { "S2-take-off-list", 10,
		"a refill takes the freelist only of a slab on no list: get_partial_node_bulk "
		"took it off the partial list under list_lock (what freezing was)",
		"get_partial_node_bulk / get_freelist_nofreeze (7.0)", SLUB_RULE_GEN_SHEAVES },
	[SLUB_RULE_S_WORD_DELTA] = { "S3-word-delta", 10,
		"the change of the word fits the event: a new slab's objects are in use or on "
		"its freelist, a take takes the whole non-empty freelist, __slab_free gives "
		"objects back",
		"alloc_from_new_slab / get_freelist_nofreeze / __slab_free (7.0)",
		SLUB_RULE_GEN_SHEAVES },
	[SLUB_RULE_S_SHEAF_PLACE] = { "S4-sheaf-place", 10,
		"a sheaf is in one place: the main or the spare of one cpu slot, or one barn "
		"list, or on its way between them; never in a barn twice, never in a barn "
		"and a slot, never both main and spare",
		"barn_put_*_sheaf / barn_get_*_sheaf / __pcs_replace_*_main (7.0)",
		SLUB_RULE_GEN_SHEAVES },
	[SLUB_RULE_S_SHEAF_COUNT] = { "S5-sheaf-count", 10,
		"a sheaf's objects change only through its events: allocations and frees "
		"while it is a slot's main, refills and flushes; an object put in a second "
		"sheaf shows as a count that grew without one",
		"alloc_from_pcs / free_to_pcs (7.0)", SLUB_RULE_GEN_SHEAVES },
	[SLUB_RULE_S_FLUSH_WHOLE] = { "S6-flush-whole", 10,
		"a flush gives every object it takes off a sheaf to a slab: the sheaf "
		"shrinks by exactly the objects the slabs got",
		"sheaf_flush_unused / sheaf_flush_main (7.0)", SLUB_RULE_GEN_SHEAVES },
	[SLUB_RULE_S_REFILL] = { "S7-refill", 10,
		"a refill puts into a sheaf exactly the objects it took from slabs",
		"refill_sheaf / refill_objects (7.0)", SLUB_RULE_GEN_SHEAVES },
	[SLUB_RULE_S_BARN_COUNT] = { "S8-barn-count", 10,
		"a barn's counts of full and empty sheaves move by one per sheaf put or got, "
		"on its list only; the empty list holds empty sheaves, the full list no empty one",
		"barn_put_*_sheaf / barn_get_*_sheaf / barn_replace_* (7.0)",
		SLUB_RULE_GEN_SHEAVES },
};

/* Classic rules that judge the sheaves generation too: lists, locks, the
 * word chain and objects, discards, objects. */
static int classic_rule_shared(unsigned r)
{
	switch (r) {
	case SLUB_RULE_LIST_UNLOCKED:
	case SLUB_RULE_LIST_ONE:
	case SLUB_RULE_LIST_REMOVE:
	case SLUB_RULE_LIST_AT_UNLOCK:
	case SLUB_RULE_WORD_CHAIN:
	case SLUB_RULE_WORD_OBJECTS:
	case SLUB_RULE_DISCARD:
	case SLUB_RULE_LOCK_HOLDER:
	case SLUB_RULE_LOCK_RECURSIVE:
	case SLUB_RULE_LOCK_ORDER:
	case SLUB_RULE_LOCK_SEQ:
	case SLUB_RULE_DOUBLE_FREE:
	case SLUB_RULE_DOUBLE_ALLOC:
	case SLUB_RULE_OBJECT_SLAB:
		return 1;
	}
	return 0;
}

unsigned slub_rule_generation(unsigned r)
{
	if (r >= SLUB_RULE_NR)
		return SLUB_RULE_GEN_CLASSIC;
	if (rules[r].generation == SLUB_RULE_GEN_SHEAVES)
		return SLUB_RULE_GEN_SHEAVES;
	return classic_rule_shared(r) ? SLUB_RULE_GEN_BOTH : SLUB_RULE_GEN_CLASSIC;
}

unsigned slub_rule_count(void)
{
	return SLUB_RULE_NR;
}

const char *slub_rule_id(unsigned r)
{
	return r < SLUB_RULE_NR ? rules[r].id : "?";
}

const char *slub_rule_meaning(unsigned r)
{
	return r < SLUB_RULE_NR ? rules[r].meaning : "?";
}

const char *slub_rule_kernel_fn(unsigned r)
{
	return r < SLUB_RULE_NR ? rules[r].kernel_fn : "?";
}

unsigned slub_rule_family(unsigned r)
{
	return r < SLUB_RULE_NR ? rules[r].family : 0;
}

int slub_rule_lookup(const char *id)
{
	for (unsigned r = 0; r < SLUB_RULE_NR; r++) {
		const char *dash = strchr(rules[r].id, '-');

		if (!strcmp(id, rules[r].id) || (dash && !strcmp(id, dash + 1)))
			return (int)r;
	}
	return -1;
}

/* ---- transitions ---- */

#define ACT SLUB_STATE_CPU_ACTIVE
#define CPP SLUB_STATE_CPU_PARTIAL
#define NPA SLUB_STATE_NODE_PARTIAL
#define FUL SLUB_STATE_FULL
#define DIS SLUB_STATE_DISCARDED
#define UNK SLUB_STATE_UNKNOWN

#define L_NO SLUB_LIST_NONE
#define L_PA SLUB_LIST_PARTIAL
#define L_FU SLUB_LIST_FULL
#define L_CP SLUB_LIST_CPU_PARTIAL

#define OWN SLUB_COND_OWNER
#define LCK SLUB_COND_LOCKED
#define ONL SLUB_COND_ON_LIST
#define EMP SLUB_COND_EMPTY
#define FLS SLUB_COND_FLUSH
#define TAK SLUB_COND_TAKES
#define DST SLUB_COND_DEST

/*
 * One row per allowed edge.  An unfrozen slab is NODE_PARTIAL when it has
 * a free object and FULL when not, whatever list it is on: the list is kept
 * apart (`list`) so that a slab between its word update and its list
 * operation is still in a named state.  Rows with the same (before, event,
 * site) are told apart by their conditions (TAKES: the freelist is taken;
 * DEST: the event's destination names `after`).
 */
static const struct slub_transition transitions[] = {
	/* new_slab(): pages from the page layer become the acting cpu's slab */
	{ UNK, SLUB_EV_SLAB_NEW, SLUB_SITE_NEW_SLAB, ACT, L_NO, OWN, "new_slab",
	  "a fresh slab, frozen, all objects handed to the cpu freelist" },
	{ DIS, SLUB_EV_SLAB_NEW, SLUB_SITE_NEW_SLAB, ACT, L_NO, OWN, "new_slab",
	  "the slab descriptor is reused for new pages" },
	{ ACT, SLUB_EV_CPU_SLAB_LOAD, SLUB_SITE_NONE, ACT, L_NO, OWN, "___slab_alloc",
	  "the owner makes its frozen slab the cpu slab (c->slab = slab)" },

	/* acquire_slab(): under list_lock, a node partial slab is frozen */
	{ NPA, SLUB_EV_FREEZE, SLUB_SITE_ACQUIRE_SLAB, ACT, L_PA, LCK | ONL | TAK, "acquire_slab",
	  "get_partial_node() takes the freelist: the slab becomes the cpu slab" },
	{ NPA, SLUB_EV_FREEZE, SLUB_SITE_ACQUIRE_SLAB, CPP, L_PA, LCK | ONL, "acquire_slab",
	  "get_partial_node() keeps the freelist: the slab goes to the cpu partial chain" },
	{ ACT, SLUB_EV_REMOVE_PARTIAL, SLUB_SITE_NONE, ACT, L_NO, LCK | ONL, "acquire_slab",
	  "remove_partial() right after the freeze" },
	{ CPP, SLUB_EV_REMOVE_PARTIAL, SLUB_SITE_NONE, CPP, L_NO, LCK | ONL, "acquire_slab",
	  "remove_partial() right after the freeze; or the 3.5 unfreeze_partials loop "
	  "changing its mind" },

	/* __slab_free() of a full slab: frozen onto the freeing cpu's chain */
	{ FUL, SLUB_EV_FREEZE, SLUB_SITE_SLAB_FREE, CPP, L_NO, 0, "__slab_free",
	  "a free to a full unfrozen slab freezes it for put_cpu_partial()" },
	{ CPP, SLUB_EV_REMOVE_FULL, SLUB_SITE_NONE, CPP, L_NO, LCK | ONL, "__slab_free",
	  "the frozen slab leaves the full list (full tracking on)" },
	{ CPP, SLUB_EV_CPU_PARTIAL_PUT, SLUB_SITE_NONE, CPP, L_CP, OWN, "put_cpu_partial",
	  "the frozen slab is pushed on its owner's partial chain" },
	{ CPP, SLUB_EV_CPU_PARTIAL_TAKE, SLUB_SITE_NONE, ACT, L_NO, OWN, "___slab_alloc",
	  "the owner pops it from its chain to make it the cpu slab" },

	/* get_freelist(): the owner takes the freelist of its cpu slab */
	{ ACT, SLUB_EV_TAKE_FREELIST, SLUB_SITE_GET_FREELIST, ACT, L_NO, OWN, "get_freelist",
	  "remote frees gave it objects: the owner takes them all, stays frozen" },
	{ ACT, SLUB_EV_UNFREEZE, SLUB_SITE_GET_FREELIST, FUL, L_NO, OWN, "get_freelist",
	  "no free object: the slab is unfrozen full (DEACTIVATE_BYPASS)" },
	{ ACT, SLUB_EV_DRAIN_FREELIST, SLUB_SITE_DRAIN_PERCPU, ACT, L_NO, OWN, "deactivate_slab",
	  "the per-object drain of the pre-2012 deactivate_slab" },

	/* deactivate_slab(): the cpu gives its slab up */
	{ ACT, SLUB_EV_UNFREEZE, SLUB_SITE_UNFREEZING_SLAB, NPA, L_NO, OWN | LCK | DST | FLS,
	  "deactivate_slab", "free objects left: to the node partial list, lock taken first" },
	{ ACT, SLUB_EV_UNFREEZE, SLUB_SITE_UNFREEZING_SLAB, FUL, L_NO, OWN | DST | FLS,
	  "deactivate_slab", "no free object: full" },
	{ ACT, SLUB_EV_UNFREEZE, SLUB_SITE_UNFREEZING_SLAB, DIS, L_NO, OWN | EMP | DST | FLS,
	  "deactivate_slab", "empty and the node has min_partial slabs: to be discarded" },
	{ NPA, SLUB_EV_DEACTIVATE, SLUB_SITE_NONE, NPA, L_NO, OWN | FLS, "deactivate_slab",
	  "the cpu slot lets go of the slab it unfroze" },
	{ FUL, SLUB_EV_DEACTIVATE, SLUB_SITE_NONE, FUL, L_NO, OWN | FLS, "deactivate_slab",
	  "the cpu slot lets go of the slab it unfroze (or get_freelist found full)" },
	{ DIS, SLUB_EV_DEACTIVATE, SLUB_SITE_NONE, DIS, L_NO, OWN | FLS, "deactivate_slab",
	  "the cpu slot lets go of the slab it unfroze empty" },

	/* unfreeze_partials(): a cpu partial chain goes back to the nodes */
	{ CPP, SLUB_EV_UNFREEZE, SLUB_SITE_UNFREEZE_PARTIALS, NPA, L_NO, OWN | LCK | DST | FLS,
	  "unfreeze_partials", "to the node partial list (tail)" },
	{ CPP, SLUB_EV_UNFREEZE, SLUB_SITE_UNFREEZE_PARTIALS, DIS, L_NO, OWN | EMP | DST | FLS,
	  "unfreeze_partials", "empty and the node has min_partial slabs: to be discarded" },
	{ CPP, SLUB_EV_ADD_PARTIAL, SLUB_SITE_NONE, CPP, L_PA, LCK, "unfreeze_partials",
	  "the 3.5 unfreeze_partials lists the slab inside its CAS loop (unfrozen before "
	  "the lock drops, R4)" },

	/* node lists, under list_lock */
	{ NPA, SLUB_EV_ADD_PARTIAL, SLUB_SITE_NONE, NPA, L_PA, LCK, "add_partial",
	  "head or tail of n->partial" },
	{ NPA, SLUB_EV_REMOVE_PARTIAL, SLUB_SITE_NONE, NPA, L_NO, LCK | ONL, "remove_partial",
	  "an empty slab leaves the list to be discarded (__slab_free, shrink)" },
	{ FUL, SLUB_EV_ADD_FULL, SLUB_SITE_NONE, FUL, L_FU, LCK, "add_full",
	  "full tracking: the unfrozen full slab is listed" },
	{ FUL, SLUB_EV_REMOVE_FULL, SLUB_SITE_NONE, FUL, L_NO, LCK | ONL, "remove_full",
	  "full tracking: the slab leaves the full list" },
	{ NPA, SLUB_EV_REMOVE_FULL, SLUB_SITE_NONE, NPA, L_NO, LCK | ONL, "__slab_free",
	  "a free gave the full slab an object: off the full list, then add_partial" },

	/* __slab_free(): a remote free, frozen or not */
	{ ACT, SLUB_EV_FREE_REMOTE, SLUB_SITE_SLAB_FREE, ACT, L_NO, 0, "__slab_free",
	  "an object freed to another cpu's slab (FREE_FROZEN)" },
	{ CPP, SLUB_EV_FREE_REMOTE, SLUB_SITE_SLAB_FREE, CPP, L_NO, 0, "__slab_free",
	  "an object freed to a slab on a cpu partial chain (FREE_FROZEN)" },
	{ NPA, SLUB_EV_FREE_REMOTE, SLUB_SITE_SLAB_FREE, NPA, L_NO, 0, "__slab_free",
	  "an object freed to a node partial slab (locked when it empties)" },
	{ FUL, SLUB_EV_FREE_REMOTE, SLUB_SITE_SLAB_FREE, NPA, L_NO, LCK, "__slab_free",
	  "without cpu partials a full slab gains an object under list_lock" },

	/* discard_slab(): pages back to the page layer */
	{ DIS, SLUB_EV_SLAB_DISCARD, SLUB_SITE_NONE, DIS, L_NO, EMP, "discard_slab",
	  "after an unfreeze that chose discard" },
	{ NPA, SLUB_EV_SLAB_DISCARD, SLUB_SITE_NONE, DIS, L_NO, EMP, "discard_slab",
	  "an empty unlisted slab (__slab_free, shrink)" },
};

#define NR_TRANSITIONS (sizeof(transitions) / sizeof(transitions[0]))

unsigned slub_transition_count(void)
{
	return NR_TRANSITIONS;
}

const struct slub_transition *slub_transition_get(unsigned i)
{
	return i < NR_TRANSITIONS ? &transitions[i] : NULL;
}

/* ---- the table applied ---- */

int slub_freeze_takes(const struct slub_event *ev)
{
	if (ev->type != SLUB_EV_FREEZE || ev->site != SLUB_SITE_ACQUIRE_SLAB)
		return -1;
	return ev->new.freelist == 0;
}

uint8_t slub_dest_state(unsigned dest, const struct slub_word *w)
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

/*
 * The first edge of tab (n rows) that ev takes from before: its type, its
 * site unless the row takes any, TAKES when takes >= 0 says whether the
 * freeze took the freelist, DEST the state its destination gives.
 */
const struct slub_transition *slub_edge_in(const struct slub_transition *tab, unsigned n,
					   uint8_t before, const struct slub_event *ev, int takes)
{
	uint8_t dst = slub_dest_state(ev->list, &ev->new);

	for (unsigned i = 0; i < n; i++) {
		const struct slub_transition *t = &tab[i];

		if (t->before != before || t->type != ev->type)
			continue;
		if (t->site != SLUB_SITE_NONE && t->site != ev->site)
			continue;
		if (takes >= 0 && !!(t->cond & SLUB_COND_TAKES) != takes)
			continue;
		if ((t->cond & SLUB_COND_DEST) && t->after != dst)
			continue;
		return t;
	}
	return NULL;
}

const struct slub_transition *slub_find_edge(uint8_t before, const struct slub_event *ev)
{
	return slub_edge_in(transitions, NR_TRANSITIONS, before, ev, slub_freeze_takes(ev));
}

/*
 * Each slab event's effect, whatever state the slab was in: the `after`,
 * owner and list its edges above agree on, and what tells them apart
 * where they do not (TAKES, DEST, the word's frozen bit).  test_model
 * checks that every edge's `after` is what its event's effect gives.
 */
#define FX(type, state, owner, list, list_site, pages) \
	[type] = { 1, state, owner, list, list_site, pages }
#define ANY SLUB_SITE_NONE

static const struct slub_effect effects[SLUB_EV_NR] = {
	/* new_slab(): frozen, the acting cpu's, on no list, with pages */
	FX(SLUB_EV_SLAB_NEW, ACT, FX_OWNER_ACTOR, L_NO, ANY, FX_PAGES_NEW),
	/* acquire_slab() freezes a slab still on the partial list; a
	 * free-time freeze may find it on the full list: the list is known
	 * at acquire_slab only */
	FX(SLUB_EV_FREEZE, FX_TAKES, FX_OWNER_ACTOR, L_PA, SLUB_SITE_ACQUIRE_SLAB, 0),
	FX(SLUB_EV_TAKE_FREELIST, ACT, FX_OWNER_HOLDER, FX_KEEP, ANY, 0),
	FX(SLUB_EV_DRAIN_FREELIST, ACT, FX_OWNER_HOLDER, FX_KEEP, ANY, 0),
	FX(SLUB_EV_UNFREEZE, FX_DEST, FX_OWNER_LEAVES, FX_KEEP, ANY, 0),
	FX(SLUB_EV_FREE_REMOTE, FX_WORD, FX_OWNER_KEEP, FX_KEEP, ANY, 0),
	FX(SLUB_EV_CPU_SLAB_LOAD, ACT, FX_OWNER_SLOT, FX_KEEP, ANY, 0),
	FX(SLUB_EV_CPU_PARTIAL_TAKE, ACT, FX_OWNER_SLOT, FX_KEEP, ANY, 0),
	FX(SLUB_EV_CPU_PARTIAL_PUT, CPP, FX_OWNER_SLOT, L_CP, ANY, 0),
	FX(SLUB_EV_DEACTIVATE, FX_KEEP, FX_OWNER_KEEP, FX_KEEP, ANY, 0),
	FX(SLUB_EV_CPU_PARTIAL_DRAIN, FX_KEEP, FX_OWNER_KEEP, FX_KEEP, ANY, 0),
	FX(SLUB_EV_ADD_PARTIAL, FX_KEEP, FX_OWNER_KEEP, L_PA, ANY, 0),
	FX(SLUB_EV_ADD_FULL, FX_KEEP, FX_OWNER_KEEP, L_FU, ANY, 0),
	FX(SLUB_EV_REMOVE_PARTIAL, FX_KEEP, FX_OWNER_KEEP, L_NO, ANY, 0),
	FX(SLUB_EV_REMOVE_FULL, FX_KEEP, FX_OWNER_KEEP, L_NO, ANY, 0),
	/* discard_slab(): pages given back, on no list */
	FX(SLUB_EV_SLAB_DISCARD, DIS, FX_OWNER_KEEP, L_NO, ANY, FX_PAGES_GONE),
};

const struct slub_effect *slub_effect_of(unsigned type)
{
	return type < SLUB_EV_NR && effects[type].row ? &effects[type] : NULL;
}

uint8_t slub_effect_state(const struct slub_effect *fx, const struct slub_event *ev, uint8_t cur)
{
	switch (fx->state) {
	case FX_KEEP:
		return cur;
	case FX_TAKES:
		return slub_freeze_takes(ev) == 1 ? SLUB_STATE_CPU_ACTIVE : SLUB_STATE_CPU_PARTIAL;
	case FX_DEST:
		return slub_dest_state(ev->list, &ev->new);
	case FX_WORD:
		if (ev->new.frozen)
			return cur;
		return ev->new.freelist ? SLUB_STATE_NODE_PARTIAL : SLUB_STATE_FULL;
	}
	return fx->state;
}

const char *slub_cond_str(unsigned cond, char *buf, size_t len)
{
	static const char *const names[] = { "owner", "locked", "on_list", "empty",
					     "flush", "takes", "dest", "off_list" };
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (unsigned b = 0; b < sizeof(names) / sizeof(names[0]); b++) {
		if (!(cond & (1u << b)))
			continue;
		int n = snprintf(buf + o, len - o, "%s%s", o ? "," : "", names[b]);
		if (n < 0 || (size_t)n >= len - o)
			break;
		o += (size_t)n;
	}
	if (!o)
		snprintf(buf, len, "-");
	return buf;
}
