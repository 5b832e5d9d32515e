/* SPDX-License-Identifier: MIT */
/*
 * Figures read while the events still come (slubtrace top): what the
 * computation has counted so far, before slub_tstats_finish().
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "internal.h"

uint64_t slub_tstats_cache_storms(const struct slub_tstats *st, const char *name)
{
	char unnamed[32];
	uint64_t n = 0;

	for (const struct tcache *c = st->cache_list; c; c = c->next_all) {
		const char *cn = c->name;

		/* named at finish as the views name it */
		if (!cn) {
			snprintf(unnamed, sizeof(unnamed), "cache#%u", c->cache_id);
			cn = unnamed;
		}
		if (!strcmp(cn, name))
			n += c->storms;
	}
	return n;
}
