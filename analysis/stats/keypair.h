/* SPDX-License-Identifier: MIT */
/*
 * A key of two 64-bit integers for GLib's GHashTable: (vpid, slab address),
 * (vpid, cache id), (vpid, vtid) ...  Slab addresses, cache ids and thread
 * ids are only unique within one process, so every table outside the model
 * is keyed by such a pair.  The stats tables and the plugin's sinks share
 * this one hash; the model keeps its own malloc-free map (analysis/model).
 */
#ifndef SLUB_KEYPAIR_H
#define SLUB_KEYPAIR_H

#include <stdint.h>

#include <glib.h>

struct slub_keypair {
	uint64_t a, b;
};

static inline guint slub_keypair_hash(gconstpointer key)
{
	const struct slub_keypair *k = key;

	/* GHashTable reduces the hash modulo a prime, so aligned addresses
	 * spread without further mixing; fold each half into 32 bits. */
	return (guint)(k->a ^ k->a >> 32) * 31u + (guint)(k->b ^ k->b >> 32);
}

static inline gboolean slub_keypair_equal(gconstpointer x, gconstpointer y)
{
	const struct slub_keypair *p = x, *q = y;

	return p->a == q->a && p->b == q->b;
}

#endif /* SLUB_KEYPAIR_H */
