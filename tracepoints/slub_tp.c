/* SPDX-License-Identifier: MIT */
/*
 * The `slub` probe provider, built as libslub-tp.so.  Loading it (LD_PRELOAD,
 * or dlopen) registers the probes with liblttng-ust; the allocator's call
 * sites (src/trace.c) find them through dynamic linkage.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "slub_tp.h"
