/* SPDX-License-Identifier: MIT */
/*
 * The sheaf and barn lanes of `slubtrace report` (the sheaves generation):
 * per cpu slot of a cache, the objects in its main and spare sheaves over
 * time; per node of a cache, the full and empty sheaves in its barn.
 */
#ifndef SLUB_REPORT_SHEAVES_H
#define SLUB_REPORT_SHEAVES_H

#include <stdint.h>
#include <stdio.h>

#include "../decode.h"

struct sheaf_lanes;

struct sheaf_lanes *sheaf_lanes_new(void);
void sheaf_lanes_free(struct sheaf_lanes *sl);
/* Counts one decoded event (cache_create, the sheaf and barn events; the
 * others are ignored).  0, or -1 out of memory. */
int sheaf_lanes_event(struct sheaf_lanes *sl, const struct slub_decoded *d);
/* Writes ,"generation":...,"sheaves":{...} (null without sheaf or barn
 * events) with times relative to origin: at most max_cpus cpu lanes and
 * max_barns barn lanes, the busiest. */
void sheaf_lanes_write(FILE *f, const struct sheaf_lanes *sl, uint64_t origin, unsigned max_cpus,
		       unsigned max_barns);

#endif /* SLUB_REPORT_SHEAVES_H */
