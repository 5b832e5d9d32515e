/* SPDX-License-Identifier: MIT */
/*
 * The yardstick of event_cost: the smallest useful LTTng-UST event, one
 * integer field, in provider `slub_bench`.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER slub_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./event_cost_tp.h"

#if !defined(SLUB_EVENT_COST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SLUB_EVENT_COST_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(slub_bench, minimal,
	LTTNG_UST_TP_ARGS(int, value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, value, value)
	)
)

#endif /* SLUB_EVENT_COST_TP_H */

#include <lttng/tracepoint-event.h>
