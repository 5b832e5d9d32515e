/* SPDX-License-Identifier: MIT */
/*
 * The yardsticks of event_cost, in provider `slub_bench`: the smallest
 * useful LTTng-UST event, one integer field; and the slab-word payload
 * written as four fields and as an array of three words and a byte.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER slub_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./event_cost_tp.h"

#if !defined(SLUB_EVENT_COST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SLUB_EVENT_COST_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(slub_bench, minimal,
	LTTNG_UST_TP_ARGS(int, value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, value, value)
	)
)

/* The slab-word payload (format 10: where, slab_fl, counters, site) as
 * four fields, and the same 25 bytes as one array of three words and a
 * byte: what writing it in fewer ring-buffer calls would save. */
LTTNG_UST_TRACEPOINT_EVENT(slub_bench, four_fields,
	LTTNG_UST_TP_ARGS(const uint64_t *, w, uint8_t, site),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, where, w[0])
		lttng_ust_field_integer_hex(uint64_t, slab_fl, w[1])
		lttng_ust_field_integer_hex(uint64_t, counters, w[2])
		lttng_ust_field_integer(uint8_t, site, site)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(slub_bench, packed,
	LTTNG_UST_TP_ARGS(const uint64_t *, w, uint8_t, site),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_array_hex(uint64_t, w, w, 3)
		lttng_ust_field_integer(uint8_t, site, site)
	)
)

#endif /* SLUB_EVENT_COST_TP_H */

#include <lttng/tracepoint-event.h>
