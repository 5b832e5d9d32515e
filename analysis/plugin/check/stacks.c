/* SPDX-License-Identifier: MIT */
/*
 * A GLib table keyed by ((vpid, vtid), type) (keypair.h); entries are
 * replaced, never removed, and own their return addresses.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "keypair.h"
#include "stacks.h"

struct stack_entry {
	struct slub_keypair key;	/* first: the entry is its own key */
	uint64_t ts, slab;
	uint32_t nr, cap;
	uint64_t *ips;
};

struct stack_store {
	GHashTable *t;
};

static void entry_free(gpointer p)
{
	struct stack_entry *e = p;

	free(e->ips);
	g_free(e);
}

struct stack_store *stack_store_create(void)
{
	struct stack_store *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->t = g_hash_table_new_full(slub_keypair_hash, slub_keypair_equal, NULL, entry_free);
	return st;
}

void stack_store_destroy(struct stack_store *st)
{
	if (!st)
		return;
	g_hash_table_destroy(st->t);
	free(st);
}

static struct slub_keypair stack_key(uint32_t vpid, uint32_t vtid, unsigned type)
{
	struct slub_keypair k = { (uint64_t)vpid << 32 | vtid, type };

	return k;
}

int stack_store_put(struct stack_store *st, uint32_t vpid, uint32_t vtid, unsigned type,
		    uint64_t ts, uint64_t slab, const uint64_t *ips, uint32_t nr)
{
	struct slub_keypair k = stack_key(vpid, vtid, type);
	struct stack_entry *e = g_hash_table_lookup(st->t, &k);

	if (!e) {
		e = g_new0(struct stack_entry, 1);
		e->key = k;
		g_hash_table_insert(st->t, &e->key, e);
	}
	if (nr > e->cap) {
		uint64_t *n = realloc(e->ips, nr * sizeof(*n));

		if (!n)
			return -1;
		e->ips = n;
		e->cap = nr;
	}
	memcpy(e->ips, ips, nr * sizeof(*ips));
	e->nr = nr;
	e->ts = ts;
	e->slab = slab;
	return 0;
}

const uint64_t *stack_store_get(const struct stack_store *st, uint32_t vpid, uint32_t vtid,
				unsigned type, uint64_t ts, uint64_t slab, uint32_t *nr)
{
	struct slub_keypair k = stack_key(vpid, vtid, type);
	const struct stack_entry *e = g_hash_table_lookup(st->t, &k);

	/* A later event of the same thread and type has replaced it: no
	 * stack rather than somebody else's. */
	if (!e || e->slab != slab || (e->ts && e->ts != ts))
		return NULL;
	*nr = e->nr;
	return e->ips;
}
