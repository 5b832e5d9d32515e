/* SPDX-License-Identifier: MIT */
/*
 * A map from a pair of integers (vpid, slab address; vpid, vtid) to an
 * index into the caller's own array, on GLib's GHashTable with the key of
 * keypair.h.  Each entry holds its key and its index, so that one
 * allocation serves both; entries are removed with their slab.
 */
#ifndef SLUB_PLUGIN_KEYMAP_H
#define SLUB_PLUGIN_KEYMAP_H

#include <stdint.h>

#include <glib.h>

#include "keypair.h"

struct keymap_entry {
	struct slub_keypair key;	/* first: the entry is its own key */
	uint32_t value;
};

struct keymap {
	GHashTable *t;
};

static inline int keymap_init(struct keymap *m)
{
	m->t = g_hash_table_new_full(slub_keypair_hash, slub_keypair_equal, g_free, NULL);
	return 0;
}

/* The index stored for (a, b), or -1. */
static inline int64_t keymap_get(const struct keymap *m, uint64_t a, uint64_t b)
{
	struct slub_keypair k = { a, b };
	const struct keymap_entry *e = g_hash_table_lookup(m->t, &k);

	return e ? (int64_t)e->value : -1;
}

/* 0: GLib aborts when it cannot allocate. */
static inline int keymap_put(struct keymap *m, uint64_t a, uint64_t b, uint32_t index)
{
	struct keymap_entry *e = g_new(struct keymap_entry, 1);

	e->key.a = a;
	e->key.b = b;
	e->value = index;
	g_hash_table_replace(m->t, e, e);	/* frees an earlier entry of (a, b) */
	return 0;
}

static inline void keymap_del(struct keymap *m, uint64_t a, uint64_t b)
{
	struct slub_keypair k = { a, b };

	g_hash_table_remove(m->t, &k);
}

static inline void keymap_destroy(struct keymap *m)
{
	if (m->t)
		g_hash_table_destroy(m->t);
	m->t = NULL;
}

#endif /* SLUB_PLUGIN_KEYMAP_H */
