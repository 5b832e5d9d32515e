/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.timeline, format=chrome: the Trace Event Format (JSON object
 * form) that Perfetto UI and chrome://tracing open.
 *
 *   - one track per slab incarnation, in a process "slabs of pid N" (pid
 *     SLUB_CHROME_SLAB_PID | vpid): complete slices ("X") named by the
 *     state (CPU_ACTIVE, CPU_PARTIAL, NODE_PARTIAL, FULL) while the slab
 *     is in it;
 *   - one track per thread (pid vpid, tid vtid): an instant ("i") per
 *     transition it made, named by the event, the slab in its args;
 *   - counter tracks ("C") of each traced process, per millisecond:
 *     "cmpxchg failures" (slab word, cpu chain) and "lock wait"
 *     (contended acquisitions, wait in us).
 * Times are microseconds from the first event (otherData.origin_ns).
 */
#ifndef SLUB_PLUGIN_CHROME_H
#define SLUB_PLUGIN_CHROME_H

#include <stdbool.h>
#include <stdio.h>

#include "../decode.h"
#include "model/slub_model.h"

#define SLUB_CHROME_SLAB_PID 0x40000000u

struct slub_chrome;

struct slub_chrome *slub_chrome_new(FILE *f);
/* A transition that passed the slab, cache and time filters; thread: it
 * passed the thread filter as well (its thread's track shows it). */
int slub_chrome_transition(struct slub_chrome *c, const struct slub_model_record *r,
			   const char *cache, bool thread);
/* A decoded event that passed the filters: counters and cache names. */
int slub_chrome_event(struct slub_chrome *c, const struct slub_model_event *e);
/* The cache name of (vpid, cache id), as learnt from cache_create; NULL. */
const char *slub_chrome_cache(const struct slub_chrome *c, uint32_t vpid, uint32_t cache_id);
/* Closes the open slices and the document. */
void slub_chrome_end(struct slub_chrome *c);
void slub_chrome_free(struct slub_chrome *c);

#endif /* SLUB_PLUGIN_CHROME_H */
