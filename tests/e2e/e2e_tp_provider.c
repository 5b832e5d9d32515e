// SPDX-License-Identifier: MIT
/*
 * libe2e_tp_provider.so: the provider of e2e_tp_provider.h, probes and call
 * site together.  e2e_tp_ping() fires its one event.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "e2e_tp_provider.h"

void e2e_tp_ping(int n);

void e2e_tp_ping(int n)
{
	lttng_ust_tracepoint(e2e_fork_tp, ping, n);
}
