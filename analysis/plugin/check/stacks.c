/* SPDX-License-Identifier: MIT */
/*
 * An open-addressing table keyed by (vpid, vtid, type); entries are
 * replaced, never removed.
 */
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

struct stack_entry {
	uint64_t key;		/* vpid << 32 | vtid, 0 = free */
	unsigned type;
	uint64_t ts, slab;
	uint32_t nr, cap;
	uint64_t *ips;
};

struct stack_store {
	struct stack_entry *e;
	size_t mask, used;
};

struct stack_store *stack_store_create(void)
{
	struct stack_store *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->mask = 255;
	st->e = calloc(st->mask + 1, sizeof(*st->e));
	if (!st->e) {
		free(st);
		return NULL;
	}
	return st;
}

void stack_store_destroy(struct stack_store *st)
{
	if (!st)
		return;
	for (size_t i = 0; i <= st->mask; i++)
		free(st->e[i].ips);
	free(st->e);
	free(st);
}

static size_t hash(uint64_t key, unsigned type)
{
	uint64_t x = key * 0x9e3779b97f4a7c15ull ^ type;

	x ^= x >> 29;
	return (size_t)(x * 0xbf58476d1ce4e5b9ull >> 17);
}

static struct stack_entry *slot(const struct stack_store *st, uint64_t key, unsigned type)
{
	size_t i = hash(key, type) & st->mask;

	while (st->e[i].key && (st->e[i].key != key || st->e[i].type != type))
		i = (i + 1) & st->mask;
	return &st->e[i];
}

static int grow(struct stack_store *st)
{
	struct stack_store bigger = { calloc((st->mask + 1) * 2, sizeof(*st->e)),
				      (st->mask + 1) * 2 - 1, 0 };

	if (!bigger.e)
		return -1;
	for (size_t i = 0; i <= st->mask; i++) {
		if (st->e[i].key) {
			*slot(&bigger, st->e[i].key, st->e[i].type) = st->e[i];
			bigger.used++;
		}
	}
	free(st->e);
	*st = bigger;
	return 0;
}

int stack_store_put(struct stack_store *st, uint32_t vpid, uint32_t vtid, unsigned type,
		    uint64_t ts, uint64_t slab, const uint64_t *ips, uint32_t nr)
{
	uint64_t key = (uint64_t)vpid << 32 | vtid | 1ull << 63;	/* never 0 */
	struct stack_entry *e;

	if ((st->used + 1) * 2 > st->mask + 1 && grow(st) < 0)
		return -1;
	e = slot(st, key, type);
	if (!e->key) {
		e->key = key;
		e->type = type;
		st->used++;
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
	uint64_t key = (uint64_t)vpid << 32 | vtid | 1ull << 63;
	const struct stack_entry *e = slot(st, key, type);

	/* A later event of the same thread and type has replaced it: no
	 * stack rather than somebody else's. */
	if (!e->key || e->slab != slab || (e->ts && e->ts != ts))
		return NULL;
	*nr = e->nr;
	return e->ips;
}
