/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing map from a Babeltrace object (event class,
 * stream) to the plugin's state for it.  Keys are borrowed pointers that
 * live as long as the graph; never removed, so no tombstones.
 */
#ifndef SLUB_PLUGIN_PTRMAP_H
#define SLUB_PLUGIN_PTRMAP_H

#include <stdint.h>
#include <stdlib.h>

struct ptrmap_slot {
	const void *key;
	void *value;
};

struct ptrmap {
	struct ptrmap_slot *slots;
	size_t mask;	/* capacity - 1, a power of two minus one */
	size_t used;	/* used <= capacity / 2 */
};

static inline size_t ptrmap_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static inline int ptrmap_init(struct ptrmap *m)
{
	m->mask = 63;
	m->used = 0;
	m->slots = calloc(m->mask + 1, sizeof(*m->slots));
	return m->slots ? 0 : -1;
}

static inline void *ptrmap_get(const struct ptrmap *m, const void *key)
{
	for (size_t i = ptrmap_hash(key) & m->mask; m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return m->slots[i].value;
	return NULL;
}

static inline int ptrmap_put(struct ptrmap *m, const void *key, void *value)
{
	size_t i;

	if ((m->used + 1) * 2 > m->mask + 1) {
		struct ptrmap bigger = { calloc((m->mask + 1) * 2, sizeof(*m->slots)),
					 (m->mask + 1) * 2 - 1, 0 };

		if (!bigger.slots)
			return -1;
		for (size_t j = 0; j <= m->mask; j++)
			if (m->slots[j].key)
				ptrmap_put(&bigger, m->slots[j].key, m->slots[j].value);
		free(m->slots);
		*m = bigger;
	}
	for (i = ptrmap_hash(key) & m->mask; m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			break;
	if (!m->slots[i].key)
		m->used++;
	m->slots[i].key = key;
	m->slots[i].value = value;
	return 0;
}

static inline void ptrmap_destroy(struct ptrmap *m, void (*free_value)(void *))
{
	if (!m->slots)
		return;
	for (size_t j = 0; j <= m->mask; j++)
		if (m->slots[j].key && free_value)
			free_value(m->slots[j].value);
	free(m->slots);
	m->slots = NULL;
}

#endif /* SLUB_PLUGIN_PTRMAP_H */
