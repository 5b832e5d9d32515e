/* SPDX-License-Identifier: MIT */
/*
 * The model's memory: fixed-size pools carved from chunks, and chained hash
 * tables, all on top of the caller's alloc/free hooks.  Nothing here calls
 * malloc unless the hooks do (the in-process checker gives mmap).
 */
#ifndef SLUB_MODEL_MEM_H
#define SLUB_MODEL_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "slub_model.h"

struct mm_ctx {
	struct slub_model_mem mem;
	uint64_t bytes, peak;
};

void *mm_alloc(struct mm_ctx *c, size_t size);
void mm_free(struct mm_ctx *c, void *p, size_t size);

/* Objects of one size; chunks are kept until mm_pool_destroy. */
struct mm_chunk;
struct mm_pool {
	size_t size;
	void *free;
	struct mm_chunk *chunks;
	struct mm_ctx *ctx;
};

void mm_pool_init(struct mm_pool *p, struct mm_ctx *c, size_t size);
void *mm_pool_get(struct mm_pool *p); /* zeroed, NULL when out of memory */
void mm_pool_put(struct mm_pool *p, void *obj);
void mm_pool_destroy(struct mm_pool *p);

/* Intrusive hash node: the first member of every hashed entity. */
struct hnode {
	struct hnode *next;
	uint64_t k1, k2;
};

struct htab {
	struct hnode **b;
	size_t nb, n;
	struct mm_ctx *ctx;
};

int ht_init(struct htab *t, struct mm_ctx *c, size_t nb);
struct hnode *ht_find(const struct htab *t, uint64_t k1, uint64_t k2);
void ht_insert(struct htab *t, struct hnode *h); /* grows when it can */
void ht_remove(struct htab *t, struct hnode *h);
void ht_destroy(struct htab *t);

#endif
