/* SPDX-License-Identifier: MIT */
/*
 * A tracepoint provider of its own, for e2e_forker's dlclose mode: loading
 * it registers its probe and call sites with LTTng-UST (allocations made
 * under LTTng-UST's locks); unloading it frees them under those locks.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER e2e_fork_tp

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./e2e_tp_provider.h"

#if !defined(E2E_TP_PROVIDER_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define E2E_TP_PROVIDER_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(e2e_fork_tp, ping,
	LTTNG_UST_TP_ARGS(int, n),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, n, n)))

#endif

#include <lttng/tracepoint-event.h>
