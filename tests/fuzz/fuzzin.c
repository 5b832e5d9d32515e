/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include <slub/event.h>

#include "fuzzin.h"

void fz_bytes(struct fz_reader *r, void *buf, size_t n)
{
	size_t have = (size_t)(r->end - r->p);

	if (have > n)
		have = n;
	memcpy(buf, r->p, have);
	memset((char *)buf + have, 0, n - have);
	r->p += have;
}

unsigned fz_u16(struct fz_reader *r)
{
	unsigned lo = fz_u8(r);

	return lo | fz_u8(r) << 8;
}

uint32_t fz_u32(struct fz_reader *r)
{
	uint32_t lo = fz_u16(r);

	return lo | (uint32_t)fz_u16(r) << 16;
}

uint64_t fz_u64(struct fz_reader *r)
{
	uint64_t lo = fz_u32(r);

	return lo | (uint64_t)fz_u32(r) << 32;
}

uint64_t fz_int(struct fz_reader *r, unsigned bits, int is_signed)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bits / 8; i++)
		v |= (uint64_t)fz_u8(r) << (8 * i);
	if (is_signed && bits < 64 && (v >> (bits - 1) & 1))
		v |= ~0ull << bits;
	return v;
}

static const char *const other_events[] = {
	"slub:stack",
	"lttng_ust_statedump:start", "lttng_ust_statedump:bin_info",
	"lttng_ust_statedump:build_id", "lttng_ust_statedump:end",
	"lttng_ust_dl:dlopen", "lttng_ust_dl:dlmopen", "lttng_ust_dl:build_id",
	"lttng_ust_dl:dlclose", "lttng_ust_lib:load", "lttng_ust_lib:build_id",
	"lttng_ust_lib:unload", "other_provider:event", "slub:no_such_event", "slub:comm",
	"slub:bin_info",
};
#define NR_OTHER (sizeof(other_events) / sizeof(other_events[0]))

const char *fz_event_name(unsigned i)
{
	static char names[SLUB_EV_NR][48];

	i %= SLUB_EV_NR + NR_OTHER;
	if (i >= SLUB_EV_NR)
		return other_events[i - SLUB_EV_NR];
	if (!names[i][0])
		snprintf(names[i], sizeof(names[i]), "slub:%s", slub_event_name(i));
	return names[i];
}

static const char *const field_names[FZ_NR_FIELD_NAMES] = {
	"cache_id", "cpu", "node", "slab", "site", "dest", "locked", "freelist", "counters",
	"owner", "attempt", "expected_freelist", "expected_counters", "observed_freelist",
	"observed_counters", "slot", "reason", "count", "pages", "list", "lock_id",
	"lock_seq", "seq", "contended", "wait_ns", "hold_ns", "object", "size", "msg",
	"format", "name", "object_size", "align", "order", "objects", "min_partial",
	"cpu_partial", "flags", "announced", "of", "ips", "where", "geometry", "expected",
	"observed", "lock_id_seq", "words", "baddr", "memsz", "path", "is_pic", "build_id",
	"vpid",
};

const char *fz_field_name(unsigned i)
{
	return field_names[i % FZ_NR_FIELD_NAMES];
}
