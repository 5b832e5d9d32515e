/* SPDX-License-Identifier: MIT */
/*
 * What a program that builds a graph around sink.slub.check or
 * sink.slub.timeline in-process (slubtrace check|timeline) learns back.
 *
 * It passes a struct slub_plugin_result as the component's initialize
 * method data (bt_graph_add_sink_component_with_initialize_method_data());
 * the sink fills it as the graph runs.  babeltrace2(1) passes nothing and
 * the sink keeps its figures to itself.
 */
#ifndef SLUB_PLUGIN_H
#define SLUB_PLUGIN_H

#include <signal.h>
#include <stdint.h>

/* The layout with `last_ns`.  A caller of the layout before it, which ends
 * at `stop`, passes SLUB_PLUGIN_RESULT_MAGIC_STOP: the sinks fill it but
 * for last_ns.  One of the layout before that passes 0x5c0b7e5a: the sinks
 * then ignore its result, and the caller sees none. */
#define SLUB_PLUGIN_RESULT_MAGIC 0x5c0b7e5cu
#define SLUB_PLUGIN_RESULT_MAGIC_STOP 0x5c0b7e5bu

/* Why the input could not be used (slub_plugin_result.unusable). */
enum slub_plugin_unusable {
	SLUB_UNUSABLE_NONE = 0,
	SLUB_UNUSABLE_FORMAT,     /* recorded with another slub trace format */
	SLUB_UNUSABLE_MALFORMED,  /* a slub event class or event lacks a field */
	SLUB_UNUSABLE_NO_EVENTS,  /* no slub event at all (another provider only) */
	SLUB_UNUSABLE_FILTER,     /* a filter names what the trace does not hold */
	SLUB_UNUSABLE_GENERATION, /* check: a generation the state model has no table for */
};

struct slub_plugin_result {
	uint32_t magic;           /* SLUB_PLUGIN_RESULT_MAGIC, set by the caller */
	uint32_t unusable;        /* enum slub_plugin_unusable */
	uint64_t events;          /* slub events decoded */
	uint64_t messages;        /* messages of every kind consumed */
	uint64_t slabs;
	uint64_t violations;
	uint64_t gaps;            /* discarded-events notices */
	uint64_t skipped_rules;   /* bit per rule */
	uint64_t transitions;     /* timeline lines written */
	char message[512];        /* the first reason the input is unusable */
	/* Set by the caller (from a signal handler, with the graph's
	 * interrupter): end at the next message batch as at the end of the
	 * input, with the results of what was read; then set by the sink to 2. */
	volatile sig_atomic_t stop;
	/* The time of the latest message with a clock snapshot (event, packet
	 * beginning or end), ns from the clock's origin: how far the muxer's
	 * time order has come (the progress of slubtrace, with the packet
	 * index files).  Written once per message batch. */
	volatile uint64_t last_ns;
};

#endif /* SLUB_PLUGIN_H */
