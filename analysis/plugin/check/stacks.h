/* SPDX-License-Identifier: MIT */
/*
 * The stacks sink.slub.check can print: the latest `slub:stack` of each
 * (process, thread, event type), with the time of the event it follows.
 * A violation can be found long after its event (the reorder window), so
 * the report looks its stack up here by thread, type and time.
 *
 * Memory: one entry per thread and stack-selected event type.
 */
#ifndef SLUB_PLUGIN_CHECK_STACKS_H
#define SLUB_PLUGIN_CHECK_STACKS_H

#include <stdint.h>

struct stack_store;

struct stack_store *stack_store_create(void);
void stack_store_destroy(struct stack_store *st);

/* The stack of the event (vpid, vtid, type) at ts (0: unknown). */
int stack_store_put(struct stack_store *st, uint32_t vpid, uint32_t vtid, unsigned type,
		    uint64_t ts, uint64_t slab, const uint64_t *ips, uint32_t nr);
/* The stack of that event, or NULL; *nr its depth. */
const uint64_t *stack_store_get(const struct stack_store *st, uint32_t vpid, uint32_t vtid,
				unsigned type, uint64_t ts, uint64_t slab, uint32_t *nr);

#endif /* SLUB_PLUGIN_CHECK_STACKS_H */
