/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing map from a pair of integers (vpid, slab address)
 * to an index into the caller's own array.  Unlike ptrmap.h, entries are
 * removed (a slab's state goes with its slab_discard), by backward-shift
 * deletion so that no tombstone accumulates over a long trace.
 */
#ifndef SLUB_PLUGIN_KEYMAP_H
#define SLUB_PLUGIN_KEYMAP_H

#include <stdint.h>
#include <stdlib.h>

struct keymap_slot {
	uint64_t a, b;
	uint32_t value;		/* index + 1; 0 marks an empty slot */
};

struct keymap {
	struct keymap_slot *slots;
	size_t mask;		/* capacity - 1, a power of two minus one */
	size_t used;		/* used <= capacity / 2 */
};

static inline size_t keymap_hash(uint64_t a, uint64_t b)
{
	uint64_t x = b ^ (a * 0x9e3779b97f4a7c15ull);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static inline int keymap_init(struct keymap *m)
{
	m->mask = 255;
	m->used = 0;
	m->slots = calloc(m->mask + 1, sizeof(*m->slots));
	return m->slots ? 0 : -1;
}

/* The index stored for (a, b), or -1. */
static inline int64_t keymap_get(const struct keymap *m, uint64_t a, uint64_t b)
{
	for (size_t i = keymap_hash(a, b) & m->mask; m->slots[i].value; i = (i + 1) & m->mask)
		if (m->slots[i].a == a && m->slots[i].b == b)
			return (int64_t)m->slots[i].value - 1;
	return -1;
}

static inline int keymap_put(struct keymap *m, uint64_t a, uint64_t b, uint32_t index)
{
	size_t i;

	if ((m->used + 1) * 2 > m->mask + 1) {
		struct keymap bigger = { calloc((m->mask + 1) * 2, sizeof(*m->slots)),
					 (m->mask + 1) * 2 - 1, 0 };

		if (!bigger.slots)
			return -1;
		for (size_t j = 0; j <= m->mask; j++)
			if (m->slots[j].value)
				keymap_put(&bigger, m->slots[j].a, m->slots[j].b,
					   m->slots[j].value - 1);
		free(m->slots);
		*m = bigger;
	}
	for (i = keymap_hash(a, b) & m->mask; m->slots[i].value; i = (i + 1) & m->mask)
		if (m->slots[i].a == a && m->slots[i].b == b)
			break;
	if (!m->slots[i].value)
		m->used++;
	m->slots[i].a = a;
	m->slots[i].b = b;
	m->slots[i].value = index + 1;
	return 0;
}

static inline void keymap_del(struct keymap *m, uint64_t a, uint64_t b)
{
	size_t i, j;

	for (i = keymap_hash(a, b) & m->mask; m->slots[i].value; i = (i + 1) & m->mask)
		if (m->slots[i].a == a && m->slots[i].b == b)
			break;
	if (!m->slots[i].value)
		return;
	m->used--;
	/* Shift back every later entry of the run that may sit at i. */
	for (j = (i + 1) & m->mask; m->slots[j].value; j = (j + 1) & m->mask) {
		size_t home = keymap_hash(m->slots[j].a, m->slots[j].b) & m->mask;

		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].value = 0;
}

static inline void keymap_destroy(struct keymap *m)
{
	free(m->slots);
	m->slots = NULL;
}

#endif /* SLUB_PLUGIN_KEYMAP_H */
