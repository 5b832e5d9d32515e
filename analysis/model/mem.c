/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "mem.h"

void *mm_alloc(struct mm_ctx *c, size_t size)
{
	void *p;

	if (c->mem.alloc) {
		p = c->mem.alloc(size, c->mem.arg);
	} else {
		p = calloc(1, size);
	}
	if (p) {
		c->bytes += size;
		if (c->bytes > c->peak)
			c->peak = c->bytes;
	}
	return p;
}

void mm_free(struct mm_ctx *c, void *p, size_t size)
{
	if (!p)
		return;
	c->bytes -= size;
	if (c->mem.free)
		c->mem.free(p, size, c->mem.arg);
	else if (!c->mem.alloc)
		free(p);
}

/* ---- pools ---- */

#define CHUNK_BYTES (64u << 10)

struct mm_chunk {
	struct mm_chunk *next;
	size_t bytes;
};

void mm_pool_init(struct mm_pool *p, struct mm_ctx *c, size_t size)
{
	memset(p, 0, sizeof(*p));
	/* Objects hold a free-list pointer and keep 16-byte alignment. */
	p->size = (size < sizeof(void *) ? sizeof(void *) : size + 15) & ~(size_t)15;
	p->ctx = c;
}

static int pool_grow(struct mm_pool *p)
{
	size_t hdr = (sizeof(struct mm_chunk) + 15) & ~(size_t)15;
	size_t bytes = CHUNK_BYTES;

	if (hdr + p->size > bytes)
		bytes = hdr + p->size * 4;
	struct mm_chunk *ch = mm_alloc(p->ctx, bytes);
	if (!ch)
		return -1;
	ch->bytes = bytes;
	ch->next = p->chunks;
	p->chunks = ch;
	for (char *o = (char *)ch + hdr; o + p->size <= (char *)ch + bytes; o += p->size) {
		*(void **)o = p->free;
		p->free = o;
	}
	return 0;
}

void *mm_pool_get(struct mm_pool *p)
{
	void *o;

	if (!p->free && pool_grow(p))
		return NULL;
	o = p->free;
	p->free = *(void **)o;
	memset(o, 0, p->size);
	return o;
}

void mm_pool_put(struct mm_pool *p, void *obj)
{
	*(void **)obj = p->free;
	p->free = obj;
}

void mm_pool_destroy(struct mm_pool *p)
{
	while (p->chunks) {
		struct mm_chunk *ch = p->chunks;

		p->chunks = ch->next;
		mm_free(p->ctx, ch, ch->bytes);
	}
	p->free = NULL;
}

/* ---- hash tables ---- */

static inline size_t hslot(uint64_t k1, uint64_t k2, size_t nb)
{
	uint64_t h = (k1 * 0x9e3779b97f4a7c15ull) ^ (k2 * 0xc2b2ae3d27d4eb4full);

	h ^= h >> 29;
	return (size_t)(h & (nb - 1));
}

int ht_init(struct htab *t, struct mm_ctx *c, size_t nb)
{
	t->ctx = c;
	t->nb = nb;
	t->n = 0;
	t->b = mm_alloc(c, nb * sizeof(*t->b));
	return t->b ? 0 : -1;
}

struct hnode *ht_find(const struct htab *t, uint64_t k1, uint64_t k2)
{
	for (struct hnode *h = t->b[hslot(k1, k2, t->nb)]; h; h = h->next)
		if (h->k1 == k1 && h->k2 == k2)
			return h;
	return NULL;
}

static void ht_grow(struct htab *t)
{
	size_t nb = t->nb * 2;
	struct hnode **b = mm_alloc(t->ctx, nb * sizeof(*b));

	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < t->nb; i++) {
		struct hnode *h = t->b[i], *next;

		for (; h; h = next) {
			size_t j = hslot(h->k1, h->k2, nb);

			next = h->next;
			h->next = b[j];
			b[j] = h;
		}
	}
	mm_free(t->ctx, t->b, t->nb * sizeof(*t->b));
	t->b = b;
	t->nb = nb;
}

void ht_insert(struct htab *t, struct hnode *h)
{
	size_t i;

	if (t->n >= t->nb)
		ht_grow(t);
	i = hslot(h->k1, h->k2, t->nb);
	h->next = t->b[i];
	t->b[i] = h;
	t->n++;
}

void ht_remove(struct htab *t, struct hnode *h)
{
	struct hnode **pp = &t->b[hslot(h->k1, h->k2, t->nb)];

	for (; *pp; pp = &(*pp)->next)
		if (*pp == h) {
			*pp = h->next;
			t->n--;
			return;
		}
}

void ht_destroy(struct htab *t)
{
	mm_free(t->ctx, t->b, t->nb * sizeof(*t->b));
	t->b = NULL;
	t->nb = t->n = 0;
}
