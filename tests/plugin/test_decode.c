/* SPDX-License-Identifier: MIT */
/*
 * The CTF decoder and the symbolizer, in-process: a scripted source
 * component emits events of wire formats 5, 4, 3 and 2 (and wrong ones), a
 * simple sink runs the plugin's decoder on each message, and the test
 * compares what came out with what went in.  No file, no session daemon.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slub/slub.h>

#include "decode.h"
#include "symbolize.h"
#include "testsrc.h"

static int failures;

#define CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			failures++;						\
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
		}								\
	} while (0)

/* ---- wire format 2 layouts (tracepoints/slub_tp.h) ---- */

#define WHERE { "cache_id", TF_U16 }, { "cpu", TF_I16 }, { "node", TF_U8 }
#define SLAB_WORD WHERE, { "site", TF_U8 }, { "dest", TF_U8 }, { "locked", TF_U8 }, \
	{ "slab", TF_U64 }, { "freelist", TF_U64 }, { "counters", TF_U64 }, { "owner", TF_I16 }

enum { C_CACHE, C_FREEZE, C_UNFREEZE, C_ADD_PARTIAL, C_DEACTIVATE, C_CMPXCHG_FAIL, C_STACK,
       C_OTHER, C_BIN_INFO, C_ERROR, C_NR };

static const struct ts_class v2_classes[C_NR] = {
	[C_CACHE] = { "slub:cache_create", { { "format", TF_U8 }, { "cache_id", TF_U16 },
		{ "name", TF_STR }, { "object_size", TF_U32 }, { "size", TF_U32 },
		{ "align", TF_U32 }, { "order", TF_U32 }, { "objects", TF_U32 },
		{ "min_partial", TF_U32 }, { "cpu_partial", TF_U32 }, { "flags", TF_U32 },
		{ "announced", TF_U8 } } },
	[C_FREEZE] = { "slub:freeze", { SLAB_WORD } },
	[C_UNFREEZE] = { "slub:unfreeze", { SLAB_WORD } },
	[C_ADD_PARTIAL] = { "slub:add_partial", { WHERE, { "slab", TF_U64 }, { "list", TF_U8 },
		{ "locked", TF_U8 }, { "lock_id", TF_U32 }, { "lock_seq", TF_U64 },
		{ "seq", TF_U32 } } },
	[C_DEACTIVATE] = { "slub:deactivate", { WHERE, { "slot", TF_I16 }, { "slab", TF_U64 },
		{ "reason", TF_U8 }, { "dest", TF_U8 }, { "locked", TF_U8 }, { "count", TF_U32 },
		{ "pages", TF_U32 } } },
	[C_CMPXCHG_FAIL] = { "slub:cmpxchg_fail", { WHERE, { "site", TF_U8 }, { "locked", TF_U8 },
		{ "slab", TF_U64 }, { "attempt", TF_U16 }, { "expected_freelist", TF_U64 },
		{ "expected_counters", TF_U64 }, { "observed_freelist", TF_U64 },
		{ "observed_counters", TF_U64 } } },
	[C_STACK] = { "slub:stack", { { "of", TF_U8 }, { "slab", TF_U64 }, { "ips", TF_SEQ64 } } },
	[C_OTHER] = { "other_provider:event", { { "cache_id", TF_U32 }, { "slab", TF_U64 } } },
	[C_BIN_INFO] = { "lttng_ust_statedump:bin_info", { { "baddr", TF_U64 },
		{ "memsz", TF_U64 }, { "path", TF_STR }, { "is_pic", TF_U8 },
		{ "has_build_id", TF_U8 }, { "has_debug_link", TF_U8 } } },
	[C_ERROR] = { "slub:error", { WHERE, { "slab", TF_U64 }, { "reason", TF_U8 },
		{ "object", TF_U64 }, { "msg", TF_STR } } },
};

/* inuse 0-15, objects 16-30, frozen 31, seq 32-63 */
#define COUNTERS(inuse, objects, frozen, seq) \
	((uint64_t)(inuse) | (uint64_t)(objects) << 16 | (uint64_t)(frozen) << 31 | \
	 (uint64_t)(seq) << 32)

#define SLAB 0x7f0000010000ull
#define STREAM "/tmp/slub-test/trace/ust/uid/0/64-bit/slubtrace_0"
#define TRACE_DIR "/tmp/slub-test/trace/ust/uid/0/64-bit"

static const uint64_t ips[] = { 3, 0x401000, 0x401100, 0x401200 };

/* The same events in every format: check_life() reads each. */
static const struct ts_item v2_items[] = {
	{ C_CACHE, 100, 10, 10, { 2, 3, (uintptr_t)"kmalloc-64", 64, 64, 8, 0, 64, 5, 30, 0x1, 0 } },
	{ C_BIN_INFO, 110, 10, 11, { 0, 0, (uintptr_t)"/nonexistent/libx.so", 1, 0, 0 } },
	/* freeze by slot 2: inuse 5/32, frozen, seq 7 */
	{ C_FREEZE, 200, 10, 11, { 3, 2, 1, 1 /* acquire_slab */, 0, 1, SLAB, SLAB + 0x40,
		COUNTERS(5, 32, 1, 7), 2 } },
	{ C_OTHER, 250, 10, 11, { 3, SLAB } },
	/* unfreeze: the wire's owner is the slot the slab leaves */
	{ C_UNFREEZE, 300, 10, 12, { 3, 2, 1, 3 /* unfreezing slab */, 2 /* tail */, 1, SLAB,
		SLAB + 0x80, COUNTERS(4, 32, 0, 8), 2 } },
	{ C_ADD_PARTIAL, 310, 10, 12, { 3, 2, 1, SLAB, 2 /* tail */, 1, 3 * 64 + 1, 44, 8 } },
	/* thread 12 (slot 5) deactivates slot 2's slab: a flush */
	{ C_DEACTIVATE, 320, 10, 12, { 3, 5, 1, 2, SLAB, 2 /* flush */, 1 /* head */, 1, 9, 0 } },
	{ C_CMPXCHG_FAIL, 330, 10, 13, { 3, 4, 1, 6 /* __slab_free */, 0, SLAB, 2,
		SLAB + 0x80, COUNTERS(4, 32, 0, 8), SLAB + 0xc0, COUNTERS(3, 32, 0, 9) } },
	{ C_STACK, 331, 10, 13, { SLUB_EV_CMPXCHG_FAIL, SLAB, (uintptr_t)ips } },
	{ .ts = 400, .discard = 1, .discard_count = 17, .discard_begin = 340 },
	/* a double free of the slab's third object by thread 14 (cpu 1) */
	{ C_ERROR, 500, 10, 14, { 3, 1, 1, SLAB, SLUB_ERR_DOUBLE_FREE, SLAB + 0x80,
		(uintptr_t)"Object already free" } },
};

/* ---- wire format 3 layouts ---- */

#define WHERE3 { "where", TF_U64 }
#define SLAB_WORD3 WHERE3, { "slab", TF_U64 }, { "freelist", TF_U64 }, \
	{ "counters", TF_U64 }, { "site", TF_U8 }

/* The classes formats 3 and 4 lay out alike. */
#define CLASSES_3_AND_4							\
	[C_FREEZE] = { "slub:freeze", { SLAB_WORD3 } },				\
	[C_UNFREEZE] = { "slub:unfreeze", { SLAB_WORD3 } },			\
	[C_ADD_PARTIAL] = { "slub:add_partial", { WHERE3, { "slab", TF_U64 },	\
		{ "lock_id_seq", TF_U64 }, { "lock_seq", TF_U64 }, { "list", TF_U8 } } }, \
	[C_DEACTIVATE] = { "slub:deactivate", { WHERE3, { "slab", TF_U64 },	\
		{ "count", TF_U32 }, { "pages", TF_U32 }, { "reason", TF_U8 } } },	\
	[C_STACK] = { "slub:stack", { { "of", TF_U8 }, { "slab", TF_U64 },	\
		{ "ips", TF_SEQ64 } } },						\
	[C_OTHER] = { "other_provider:event", { { "cache_id", TF_U32 },		\
		{ "slab", TF_U64 } } },							\
	[C_BIN_INFO] = { "lttng_ust_statedump:bin_info", { { "baddr", TF_U64 },	\
		{ "memsz", TF_U64 }, { "path", TF_STR }, { "is_pic", TF_U8 },	\
		{ "has_build_id", TF_U8 }, { "has_debug_link", TF_U8 } } }

static const struct ts_class v3_classes[C_NR] = {
	CLASSES_3_AND_4,
	[C_CACHE] = { "slub:cache_create", { { "format", TF_U8 }, WHERE3,
		{ "geometry", TF_ARR32, 7 }, { "flags", TF_U32 }, { "name", TF_STR } } },
	[C_CMPXCHG_FAIL] = { "slub:cmpxchg_fail", { WHERE3, { "slab", TF_U64 },
		{ "expected", TF_ARR64, 2 }, { "observed", TF_ARR64, 2 }, { "site", TF_U8 } } },
	[C_ERROR] = { "slub:error", { WHERE3, { "slab", TF_U64 }, { "object", TF_U64 },
		{ "reason", TF_U8 }, { "msg", TF_STR } } },
};

/* cache_id 0-15, cpu 16-31 (i16), node 32-39, flags 40-47 (locked 40,
 * contended 41, announced 42), arg 48-63 */
#define W3(cache, cpu, node, flags, arg) \
	((uint64_t)(cache) | (uint64_t)(uint16_t)(cpu) << 16 | (uint64_t)(node) << 32 | \
	 (uint64_t)(flags) << 40 | (uint64_t)(uint16_t)(arg) << 48)

/* The life's events that formats 3 and 4 write alike: after cache_create
 * up to the failed CAS, and the stack and the lost events after it. */
#define ITEMS_3_AND_4_BEFORE_CAS						\
	{ C_BIN_INFO, 110, 10, 11, { 0, 0, (uintptr_t)"/nonexistent/libx.so", 1, 0, 0 } }, \
	{ C_FREEZE, 200, 10, 11, { W3(3, 2, 1, 1, 2), SLAB, SLAB + 0x40,	\
		COUNTERS(5, 32, 1, 7), 1 /* acquire_slab */ } },		\
	{ C_OTHER, 250, 10, 11, { 3, SLAB } },					\
	{ C_UNFREEZE, 300, 10, 12, { W3(3, 2, 1, 1, 2), SLAB, SLAB + 0x80,	\
		COUNTERS(4, 32, 0, 8), 3 | 2 << 4 /* unfreezing slab -> tail */ } }, \
	{ C_ADD_PARTIAL, 310, 10, 12, { W3(3, 2, 1, 1, 0), SLAB,		\
		(3 * 64 + 1) | 8ull << 32, 44, 2 /* tail */ } },		\
	{ C_DEACTIVATE, 320, 10, 12, { W3(3, 5, 1, 1, 2), SLAB, 9, 0,		\
		2 | 1 << 4 /* flush -> head */ } }
#define ITEMS_3_AND_4_AFTER_CAS							\
	{ C_STACK, 331, 10, 13, { SLUB_EV_CMPXCHG_FAIL, SLAB, (uintptr_t)ips } }, \
	{ .ts = 400, .discard = 1, .discard_count = 17, .discard_begin = 340 }

static const uint64_t geometry[] = { 64, 64, 8, 0, 64, 5, 30 };
static const uint64_t expected[] = { SLAB + 0x80, COUNTERS(4, 32, 0, 8) };
static const uint64_t observed[] = { SLAB + 0xc0, COUNTERS(3, 32, 0, 9) };

static const struct ts_item v3_items[] = {
	{ C_CACHE, 100, 10, 10, { 3, W3(3, 0, 0, 0, 0), (uintptr_t)geometry, 0x1,
		(uintptr_t)"kmalloc-64" } },
	ITEMS_3_AND_4_BEFORE_CAS,
	{ C_CMPXCHG_FAIL, 330, 10, 13, { W3(3, 4, 1, 0, 2), SLAB, (uintptr_t)expected,
		(uintptr_t)observed, 6 /* __slab_free */ } },
	ITEMS_3_AND_4_AFTER_CAS,
	{ C_ERROR, 500, 10, 14, { W3(3, 1, 1, 0, 0), SLAB, SLAB + 0x80, SLUB_ERR_DOUBLE_FREE,
		(uintptr_t)"Object already free" } },
};

/* ---- wire format 4 layouts: cache_create's flags last in geometry,
 * cmpxchg_fail's words in one array, error without msg; the other classes
 * as in format 3 ---- */

#define CACHE4 { "slub:cache_create", { { "format", TF_U8 }, WHERE3, \
	{ "geometry", TF_ARR32, 8 }, { "name", TF_STR } } }

static const struct ts_class v4_classes[C_NR] = {
	CLASSES_3_AND_4,
	[C_CACHE] = CACHE4,
	[C_CMPXCHG_FAIL] = { "slub:cmpxchg_fail", { WHERE3, { "slab", TF_U64 },
		{ "words", TF_ARR64, 4 }, { "site", TF_U8 } } },
	[C_ERROR] = { "slub:error", { WHERE3, { "slab", TF_U64 }, { "object", TF_U64 },
		{ "reason", TF_U8 } } },
};

/* format 3's geometry, then the flags */
static const uint64_t geometry4[] = { 64, 64, 8, 0, 64, 5, 30, 0x1 };
/* expected { freelist, counters }, observed { freelist, counters } */
static const uint64_t words[] = { SLAB + 0x80, COUNTERS(4, 32, 0, 8), SLAB + 0xc0,
				  COUNTERS(3, 32, 0, 9) };

static const struct ts_item v4_items[] = {
	{ C_CACHE, 100, 10, 10, { 4, W3(3, 0, 0, 0, 0), (uintptr_t)geometry4,
		(uintptr_t)"kmalloc-64" } },
	ITEMS_3_AND_4_BEFORE_CAS,
	{ C_CMPXCHG_FAIL, 330, 10, 13, { W3(3, 4, 1, 0, 2), SLAB, (uintptr_t)words,
		6 /* __slab_free */ } },
	ITEMS_3_AND_4_AFTER_CAS,
	{ C_ERROR, 500, 10, 14, { W3(3, 1, 1, 0, 0), SLAB, SLAB + 0x80, SLUB_ERR_DOUBLE_FREE } },
};

/* ---- the graph ---- */

struct collected {
	struct slub_decoder *dec;
	struct slub_decoded out[64];
	/* strings live as long as their message: copies */
	char name[64][64], procname[64][32], msg[64][64];
	int nr;
	int failed;
	char error[512];
	enum slub_plugin_unusable why;
};

static bt_graph_simple_sink_component_initialize_func_status
sink_init(bt_message_iterator *iter, void *data)
{
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status
sink_consume(bt_message_iterator *iter, void *data)
{
	struct collected *c = data;
	bt_message_array_const msgs;
	uint64_t n;

	switch (bt_message_iterator_next(iter, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct slub_decoded d;

		if (!c->failed) {
			if (slub_decoder_message(c->dec, msgs[i], &d) < 0) {
				c->failed = 1;
				snprintf(c->error, sizeof(c->error), "%s",
					 slub_decoder_error(c->dec, &c->why));
			} else if (d.kind != SLUB_DEC_NONE && c->nr < 64) {
				struct slub_decoded *o = &c->out[c->nr];

				*o = d;
				/* d.event is only written for an event */
				if (d.kind == SLUB_DEC_EVENT && d.event.ev.info) {
					snprintf(c->name[c->nr], 64, "%s", d.info.name);
					o->info.name = c->name[c->nr];
					o->event.ev.info = &o->info;
				}
				if (d.kind == SLUB_DEC_EVENT && d.event.procname) {
					snprintf(c->procname[c->nr], 32, "%s", d.event.procname);
					o->event.procname = c->procname[c->nr];
				}
				if (d.kind == SLUB_DEC_EVENT && d.event.ev.msg) {
					snprintf(c->msg[c->nr], 64, "%s", d.event.ev.msg);
					o->event.ev.msg = c->msg[c->nr];
				}
				c->nr++;
			}
		}
		bt_message_put_ref(msgs[i]);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* The script through c's decoder; the graph, and so the script's trace,
 * is destroyed at the end (after the decoder when dec_first). */
static void run_on(const struct ts_script *s, struct collected *c, bool dec_first)
{
	bt_component_class_source *cls = testsrc_class();
	bt_graph *g = bt_graph_create(0);
	const bt_component_source *src;
	const bt_component_sink *sink;
	bt_graph_run_status st;

	bt_graph_add_source_component_with_initialize_method_data(g, cls, "src", NULL, (void *)s,
		BT_LOGGING_LEVEL_NONE, &src);
	bt_graph_add_simple_sink_component(g, "sink", sink_init, sink_consume, NULL, c, &sink);
	bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, 0),
			       bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL);
	st = bt_graph_run(g);
	CHECK(st == BT_GRAPH_RUN_STATUS_OK, "graph run status %d", st);
	if (dec_first) {
		slub_decoder_destroy(c->dec);
		c->dec = NULL;
	}
	bt_graph_put_ref(g);
	bt_component_class_source_put_ref(cls);
}

static void run(const struct ts_script *s, struct collected *c, struct slub_symbolizer *sym)
{
	memset(c, 0, sizeof(*c));
	c->dec = slub_decoder_create(NULL, sym);
	run_on(s, c, false);
}

/* ---- tests ---- */

/* Formats 4, 3 and 2 carry the same events: the same checks for each. */
static void check_life(const struct ts_class *classes, const struct ts_item *items, int nr)
{
	struct ts_script s = { classes, C_NR, items, nr, STREAM, 0 };
	struct slub_symbolizer *sym = slub_symbolizer_create();
	struct collected c;
	const struct slub_event *e;

	run(&s, &c, sym);
	CHECK(!c.failed, "decoder refused a good trace: %s", c.error);
	CHECK(c.nr == 9, "%d outputs, expected 9 (7 events, a stack, a gap)", c.nr);
	if (c.nr != 9)
		goto out;
	CHECK(slub_decoder_events(c.dec) == 7, "%llu events",
	      (unsigned long long)slub_decoder_events(c.dec));
	CHECK(!strcmp(slub_decoder_trace_dir(c.dec), TRACE_DIR), "trace dir %s",
	      slub_decoder_trace_dir(c.dec));

	e = &c.out[0].event.ev;
	CHECK(e->type == SLUB_EV_CACHE_CREATE && e->cache_id == 3, "cache_create");
	CHECK(e->info && !strcmp(e->info->name, "kmalloc-64") && e->info->objects == 64 &&
	      e->info->cpu_partial == 30 && e->info->min_partial == 5 &&
	      e->info->object_size == 64 && e->info->size == 64 && e->info->align == 8 &&
	      e->info->order == 0 && e->info->flags == 0x1 && e->reason == 0, "cache info");
	CHECK(c.out[0].event.vpid == 10 && c.out[0].event.vtid == 10 && c.out[0].event.ts == 100,
	      "contexts and time: %u %u %llu", c.out[0].event.vpid, c.out[0].event.vtid,
	      (unsigned long long)c.out[0].event.ts);
	/* the main thread's name only: other threads' names are no exec */
	CHECK(c.out[0].event.procname && !strcmp(c.out[0].event.procname, "testproc"), "procname");
	CHECK(!c.out[1].event.procname, "procname of another thread given to the model");

	e = &c.out[1].event.ev;
	CHECK(e->type == SLUB_EV_FREEZE && e->slab == SLAB && e->cpu == 2 && e->node == 1 &&
	      e->cache_id == 3, "freeze");
	CHECK(e->site == SLUB_SITE_ACQUIRE_SLAB && e->locked == 1, "freeze site/locked");
	CHECK(e->new.freelist == SLAB + 0x40 && e->new.inuse == 5 && e->new.objects == 32 &&
	      e->new.frozen == 1 && e->new.seq == 7 && e->new.owner == 2,
	      "freeze word: inuse %u objects %u frozen %u seq %u owner %d", e->new.inuse,
	      e->new.objects, e->new.frozen, e->new.seq, e->new.owner);
	CHECK(!c.out[1].event.old_valid, "a decoded slab-word event has no old word");
	CHECK(e->slot == -1, "slot of a word event: %d", e->slot);

	e = &c.out[2].event.ev;
	CHECK(e->type == SLUB_EV_UNFREEZE && e->new.frozen == 0 && e->new.seq == 8, "unfreeze");
	CHECK(e->old.owner == 2 && e->new.owner == -1, "unfreeze owner: old %d new %d",
	      e->old.owner, e->new.owner);
	CHECK(e->list == SLUB_DEST_TAIL && e->site == SLUB_SITE_UNFREEZING_SLAB,
	      "unfreeze site %u dest %u", e->site, e->list);
	CHECK(c.out[2].event.vtid == 12, "vtid");

	e = &c.out[3].event.ev;
	CHECK(e->type == SLUB_EV_ADD_PARTIAL && e->lock_seq == 44 && e->new.seq == 8 &&
	      e->lock_id == 3 * 64 + 1 && e->list == SLUB_DEST_TAIL && e->locked, "add_partial");

	e = &c.out[4].event.ev;
	CHECK(e->type == SLUB_EV_DEACTIVATE && e->cpu == 5 && e->slot == 2 &&
	      e->reason == SLUB_DEACT_FLUSH && e->list == SLUB_DEST_HEAD && e->count == 9 &&
	      e->locked == 1, "deactivate: cpu %d slot %d", e->cpu, e->slot);

	e = &c.out[5].event.ev;
	CHECK(e->type == SLUB_EV_CMPXCHG_FAIL && c.out[5].event.old_valid, "cmpxchg_fail");
	CHECK(e->old.freelist == SLAB + 0x80 && e->old.inuse == 4 && e->old.seq == 8 &&
	      e->new.freelist == SLAB + 0xc0 && e->new.inuse == 3 && e->new.seq == 9 &&
	      e->attempt == 2 && e->site == SLUB_SITE_SLAB_FREE && e->cpu == 4 && !e->locked,
	      "cmpxchg_fail words");

	CHECK(c.out[6].kind == SLUB_DEC_STACK && c.out[6].stack_of == SLUB_EV_CMPXCHG_FAIL &&
	      c.out[6].stack_vpid == 10 && c.out[6].stack_vtid == 13 && c.out[6].stack_nr == 3 &&
	      c.out[6].stack_ips[0] == 0x401000 && c.out[6].stack_ips[2] == 0x401200, "stack");

	CHECK(c.out[7].kind == SLUB_DEC_DISCARD && c.out[7].discard.count == 17 &&
	      c.out[7].discard.range_known && c.out[7].discard.begin_ts == 340 &&
	      c.out[7].discard.end_ts == 400 && c.out[7].discard.stream_id == c.out[1].event.stream_id,
	      "discarded events: count %llu", (unsigned long long)c.out[7].discard.count);

	e = &c.out[8].event.ev;
	CHECK(e->type == SLUB_EV_ERROR && e->slab == SLAB && e->object == SLAB + 0x80 &&
	      e->reason == SLUB_ERR_DOUBLE_FREE && e->cpu == 1 && e->node == 1 &&
	      e->cache_id == 3 && c.out[8].event.vtid == 14,
	      "error: reason %u object %#llx cpu %d", e->reason,
	      (unsigned long long)e->object, e->cpu);
	/* format 4 carries no message: the reason's label stands for it */
	CHECK(e->msg && !strcmp(e->msg, "Object already free"), "error message %s",
	      e->msg ? e->msg : "(none)");

	/* bin_info went to the symbolizer */
	CHECK(slub_sym_known(sym, 10), "the statedump's object was not recorded");
out:
	slub_decoder_destroy(c.dec);
	slub_symbolizer_destroy(sym);
}

static void test_v4(void)
{
	check_life(v4_classes, v4_items, sizeof(v4_items) / sizeof(v4_items[0]));
}

static void test_v3(void)
{
	check_life(v3_classes, v3_items, sizeof(v3_items) / sizeof(v3_items[0]));
}

static void test_v2(void)
{
	check_life(v2_classes, v2_items, sizeof(v2_items) / sizeof(v2_items[0]));
}

/* The pair enumerations and the signed parts of `where`. */
static void test_v3_where(void)
{
	static const struct ts_item items[] = {
		/* cpu -1, node 255, cache 65535; free_remote of a frozen slab
		 * whose owner the freeing thread cannot know (-2) */
		{ C_FREEZE, 100, 1, 1, { W3(0xffff, -1, 255, 0, -2), SLAB, 0, COUNTERS(1, 2, 1, 3),
			9 | 4 << 4 /* cpu_partial_take -> discard */ } },
		{ C_DEACTIVATE, 200, 1, 1, { W3(1, 0, 0, 0, -1), SLAB, 3, 4,
			4 | 3 << 4 /* cpu_partial_limit -> full */ } },
	};
	struct ts_script s = { v3_classes, C_NR, items, 2, STREAM, 0 };
	struct collected c;
	const struct slub_event *e;

	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 2, "decoder: %s (%d)", c.error, c.nr);
	if (c.nr == 2) {
		e = &c.out[0].event.ev;
		CHECK(e->cache_id == 0xffff && e->cpu == -1 && e->node == 255 && !e->locked &&
		      e->new.owner == -2 && e->site == SLUB_SITE_CPU_PARTIAL_TAKE &&
		      e->list == SLUB_DEST_DISCARD,
		      "where: cache %u cpu %d node %d owner %d site %u dest %u", e->cache_id,
		      e->cpu, e->node, e->new.owner, e->site, e->list);
		e = &c.out[1].event.ev;
		CHECK(e->slot == -1 && e->reason == SLUB_DEACT_CPU_PARTIAL_LIMIT &&
		      e->list == SLUB_DEST_FULL && e->count == 3 && e->pages == 4,
		      "deactivate: slot %d reason %u dest %u", e->slot, e->reason, e->list);
	}
	slub_decoder_destroy(c.dec);
}

/* Format 5: format 4's classes, cache_create saying 5, and slabinfo_walk
 * (the walk of a node partial list inside a list_lock hold). */
static void test_v5(void)
{
	static const struct ts_class cls[] = {
		CACHE4,
		{ "slub:slabinfo_walk", { WHERE3, { "lock_seq", TF_U64 }, { "free", TF_U64 },
			{ "walked", TF_U32 }, { "listed", TF_U32 } } },
		/* a walk laid out without `where`: format 2 never had it */
		{ "slub:slabinfo_walk", { { "lock_seq", TF_U64 }, { "free", TF_U64 },
			{ "walked", TF_U32 }, { "listed", TF_U32 } } },
	};
	static const struct ts_item items[] = {
		{ 0, 100, 10, 10, { 5, W3(3, 0, 0, 0, 0), (uintptr_t)geometry4,
			(uintptr_t)"kmalloc-64" } },
		{ 1, 200, 10, 11, { W3(3, 1, 1, 1, 0), 77, 123456, 10000, 60000 } },
	};
	static const struct ts_item bad[] = {
		{ 2, 200, 10, 11, { 77, 123456, 10000, 60000 } },
	};
	struct ts_script s = { cls, 2, items, 2, STREAM, 0 };
	struct collected c;
	const struct slub_event *e;

	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 2, "format 5 refused: %s (%d)", c.error, c.nr);
	if (c.nr == 2) {
		e = &c.out[0].event.ev;
		CHECK(e->type == SLUB_EV_CACHE_CREATE && e->info && e->info->flags == 0x1,
		      "format 5 cache_create");
		e = &c.out[1].event.ev;
		CHECK(e->type == SLUB_EV_SLABINFO_WALK && e->cache_id == 3 && e->cpu == 1 &&
		      e->node == 1 && e->locked == 1 && e->lock_id == 3 * 64 + 1 &&
		      e->lock_seq == 77 && e->size == 123456 && e->count == 10000 &&
		      e->pages == 60000 && e->slab == 0,
		      "slabinfo_walk: lock %u seq %llu free %llu walked %u listed %u", e->lock_id,
		      (unsigned long long)e->lock_seq, (unsigned long long)e->size, e->count,
		      e->pages);
	}
	slub_decoder_destroy(c.dec);
	s.nr_classes = 3;
	s.items = bad;
	s.nr_items = 1;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`where`") &&
	      strstr(c.error, "format 5 to 12?"), "slabinfo_walk without where: %s", c.error);
	slub_decoder_destroy(c.dec);
}

/* A live source's traces come and go: once one is destroyed, the decoder
 * holds none of its streams and event classes as keys (destruction
 * listeners), so a new stream or class at a freed address is not taken for
 * the old one; the old stream keeps its id and name.  A decoder destroyed
 * before the traces it watched leaves no listener behind (ASan: the
 * plugin_asan run). */
static void test_trace_destroyed(void)
{
	static const struct ts_class cls[] = {
		CACHE4,
		{ "slub:slabinfo_walk", { WHERE3, { "lock_seq", TF_U64 }, { "free", TF_U64 },
			{ "walked", TF_U32 }, { "listed", TF_U32 } } },
	};
	static const struct ts_item items[] = {
		{ 0, 100, 10, 10, { 5, W3(3, 0, 0, 0, 0), (uintptr_t)geometry4,
			(uintptr_t)"kmalloc-64" } },
		{ 1, 200, 10, 11, { W3(3, 1, 1, 1, 0), 77, 123456, 10000, 60000 } },
	};
	struct ts_script a = { cls, 2, items, 2, "/tmp/a/ust/uid/0/64-bit/chan_0", 0 };
	struct ts_script b = { cls, 2, items, 2, "/tmp/b/ust/uid/0/64-bit/chan_0", 0 };
	struct collected c;

	run(&a, &c, NULL);
	CHECK(!c.failed && c.nr == 2, "first trace: %s (%d)", c.error, c.nr);
	CHECK(slub_decoder_keys(c.dec) == 0, "%zu keys left after their trace was destroyed",
	      slub_decoder_keys(c.dec));
	c.nr = 0;
	run_on(&b, &c, false);
	CHECK(!c.failed && c.nr == 2 && c.out[1].event.stream_id == 1 &&
	      !strcmp(slub_decoder_stream_name(c.dec, 1), b.stream_name) &&
	      !strcmp(slub_decoder_stream_name(c.dec, 0), a.stream_name),
	      "second trace: %d events, stream %llu named %s", c.nr,
	      (unsigned long long)c.out[1].event.stream_id, slub_decoder_stream_name(c.dec, 1));
	slub_decoder_destroy(c.dec);

	memset(&c, 0, sizeof(c));
	c.dec = slub_decoder_create(NULL, NULL);
	run_on(&a, &c, true);
	CHECK(!c.failed && c.nr == 2, "decoder destroyed first: %s (%d)", c.error, c.nr);
}

/* Format 6: format 5's layout; cache_create's flags may say the cache ran
 * the sheaves generation (SLUB_F_SHEAVES), and they reach the sink. */
static void test_v6(void)
{
	static const uint64_t geometry6[] = { 64, 64, 8, 0, 64, 5, 0, 0x81 };
	static const struct ts_class cls[] = { CACHE4 };
	static const struct ts_item items[] = {
		{ 0, 100, 10, 10, { 6, W3(3, 0, 0, 0, 0), (uintptr_t)geometry6,
			(uintptr_t)"kmalloc-64" } },
		{ 0, 110, 10, 10, { 6, W3(4, 0, 0, 0, 0), (uintptr_t)geometry4,
			(uintptr_t)"kmalloc-96" } },
	};
	struct ts_script s = { cls, 1, items, 2, STREAM, 0 };
	struct collected c;

	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 2, "format 6 refused: %s (%d)", c.error, c.nr);
	if (c.nr == 2) {
		const struct slub_event *e = &c.out[0].event.ev;

		CHECK(e->type == SLUB_EV_CACHE_CREATE && e->info &&
		      e->info->flags == (SLUB_F_SHEAVES | 0x1) && e->info->cpu_partial == 0,
		      "format 6 cache_create of the sheaves generation: flags %#x",
		      e->info ? e->info->flags : 0);
		e = &c.out[1].event.ev;
		CHECK(e->info && e->info->flags == 0x1, "format 6 classic cache_create: flags %#x",
		      e->info ? e->info->flags : 0);
	}
	slub_decoder_destroy(c.dec);
}

/* Format 7: format 6 with the sheaf and barn events, each decoded into
 * the fields of struct slub_event they carry; cache_create's format
 * reaches the sink. */
static void test_v7(void)
{
	static const uint64_t geometry7[] = { 64, 64, 8, 0, 64, 5, 0, 0x81 };
	static const struct ts_class cls[] = {
		CACHE4,
		{ "slub:sheaf_refill", { WHERE3, { "slab", TF_U64 }, { "sheaf", TF_U64 },
			{ "size", TF_U32 } } },
		{ "slub:sheaf_flush", { WHERE3, { "slab", TF_U64 }, { "sheaf", TF_U64 },
			{ "size", TF_U32 } } },
		{ "slub:sheaf_slot", { WHERE3, { "main", TF_U64 }, { "spare", TF_U64 },
			{ "sizes", TF_U64 } } },
		{ "slub:barn_put", { WHERE3, { "sheaf", TF_U64 }, { "counts", TF_U64 },
			{ "size", TF_U32 } } },
		{ "slub:barn_get", { WHERE3, { "sheaf", TF_U64 }, { "counts", TF_U64 },
			{ "size", TF_U32 } } },
		/* a refill without its sheaf */
		{ "slub:sheaf_refill", { WHERE3, { "slab", TF_U64 }, { "size", TF_U32 } } },
	};
	static const struct ts_item items[] = {
		{ 0, 100, 10, 10, { 7, W3(3, 0, 0, 0, 0), (uintptr_t)geometry7,
			(uintptr_t)"kmalloc-64" } },
		{ 1, 200, 10, 11, { W3(3, 1, 1, 0, 12), 0x1000, 0xa000, 40 } },
		{ 2, 300, 10, 11, { W3(3, 1, 1, 0, 7), 0x2000, 0xa000, 33 } },
		{ 3, 400, 10, 11, { W3(3, 1, 1, 0, 1), 0xa000, 0xb000, 60ull | 5ull << 32 } },
		{ 4, 500, 10, 11, { W3(3, 1, 1, 0, 1), 0xb000, 2ull | 9ull << 32, 60 } },
		{ 5, 600, 10, 11, { W3(3, 1, 1, 0, 0), 0xc000, 2ull | 8ull << 32, 0 } },
	};
	static const struct ts_item bad[] = {
		{ 6, 200, 10, 11, { W3(3, 1, 1, 0, 12), 0x1000, 40 } },
	};
	struct ts_script s = { cls, 6, items, 6, STREAM, 0 };
	struct collected c;
	const struct slub_event *e;

	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 6, "format 7 refused: %s (%d)", c.error, c.nr);
	if (c.nr == 6) {
		CHECK(c.out[0].format == 7 && c.out[0].event.ev.info->flags == 0x81,
		      "format 7 cache_create: format %u", c.out[0].format);
		e = &c.out[1].event.ev;
		CHECK(e->type == SLUB_EV_SHEAF_REFILL && e->slab == 0x1000 && e->sheaf == 0xa000 &&
		      e->count == 12 && e->sheaf_size == 40 && e->cpu == 1 && e->node == 1,
		      "sheaf_refill: slab %#llx sheaf %#llx count %u size %u",
		      (unsigned long long)e->slab, (unsigned long long)e->sheaf, e->count,
		      e->sheaf_size);
		e = &c.out[2].event.ev;
		CHECK(e->type == SLUB_EV_SHEAF_FLUSH && e->slab == 0x2000 && e->count == 7 &&
		      e->sheaf_size == 33, "sheaf_flush: count %u size %u", e->count,
		      e->sheaf_size);
		e = &c.out[3].event.ev;
		CHECK(e->type == SLUB_EV_SHEAF_SLOT && e->slot == 1 && e->sheaf == 0xa000 &&
		      e->spare == 0xb000 && e->sheaf_size == 60 && e->spare_size == 5,
		      "sheaf_slot: slot %d main %#llx spare %#llx sizes %u %u", e->slot,
		      (unsigned long long)e->sheaf, (unsigned long long)e->spare, e->sheaf_size,
		      e->spare_size);
		e = &c.out[4].event.ev;
		CHECK(e->type == SLUB_EV_BARN_PUT && e->reason == SLUB_BARN_FULL &&
		      e->sheaf == 0xb000 && e->barn_full == 2 && e->barn_empty == 9 &&
		      e->sheaf_size == 60, "barn_put: list %u full %u empty %u", e->reason,
		      e->barn_full, e->barn_empty);
		e = &c.out[5].event.ev;
		CHECK(e->type == SLUB_EV_BARN_GET && e->reason == SLUB_BARN_EMPTY &&
		      e->sheaf == 0xc000 && e->barn_full == 2 && e->barn_empty == 8,
		      "barn_get: list %u full %u empty %u", e->reason, e->barn_full,
		      e->barn_empty);
	}
	slub_decoder_destroy(c.dec);
	s.nr_classes = 7;
	s.items = bad;
	s.nr_items = 1;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`sheaf`") &&
	      strstr(c.error, "format 7 to 12?"), "sheaf_refill without sheaf: %s", c.error);
	slub_decoder_destroy(c.dec);
}

static void test_format1(void)
{
	static const struct ts_class cls[] = {
		{ "slub:freeze", { WHERE, { "slab", TF_U64 }, { "old_seq", TF_U32 },
			{ "new_seq", TF_U32 } } },
	};
	static const struct ts_item items[] = { { 0, 100, 1, 1, { 1, 0, 0, SLAB, 1, 2 } } };
	struct ts_script s = { cls, 1, items, 1, STREAM, 0 };
	struct collected c;
	enum slub_plugin_unusable why;

	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_FORMAT, "format 1 accepted");
	CHECK(!strcmp(c.error, TRACE_DIR ": recorded with slub trace format 1; this slubtrace "
		      "reads formats 2 to 12: record it again"), "message: %s", c.error);
	slub_decoder_error(c.dec, &why);
	CHECK(why == SLUB_UNUSABLE_FORMAT, "kind");
	slub_decoder_destroy(c.dec);
}

/* A `format` field that is not an integer: refused as malformed, not
 * taken for format 1. */
static void test_format_string(void)
{
	static const struct ts_class cls[] = {
		{ "slub:cache_create", { { "format", TF_STR }, WHERE3,
			{ "geometry", TF_ARR32, 8 }, { "name", TF_STR } } },
	};
	static const struct ts_item items[] = {
		{ 0, 100, 1, 1, { (uintptr_t)"4", W3(1, 0, 0, 0, 0), (uintptr_t)geometry4,
			(uintptr_t)"x" } },
	};
	struct ts_script s = { cls, 1, items, 1, STREAM, 0 };
	struct collected c;

	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED, "string format accepted: %d", c.why);
	CHECK(strstr(c.error, "field `format` is not an integer") &&
	      !strstr(c.error, "format 1"), "message: %s", c.error);
	slub_decoder_destroy(c.dec);
}

/* Format 8: format 7 with sheaf_alloc and sheaf_free (the sheaf, where
 * it was made or freed); a sheaf_free without its sheaf is refused as
 * not format 8. */
static void test_v8(void)
{
	static const uint64_t geometry8[] = { 64, 64, 8, 0, 64, 5, 0, 0x81 };
	static const struct ts_class cls[] = {
		CACHE4,
		{ "slub:sheaf_alloc", { WHERE3, { "sheaf", TF_U64 } } },
		{ "slub:sheaf_free", { WHERE3, { "sheaf", TF_U64 } } },
		{ "slub:sheaf_free", { WHERE3 } },
		{ "slub:sheaf_refill", { WHERE3, { "slab", TF_U64 }, { "sheaf", TF_U64 },
			{ "size", TF_U32 } } },
	};
	/* the refills: straight to a caller for another node (flag bit 43),
	 * then for the slot's own */
	static const struct ts_item items[] = {
		{ 0, 100, 10, 10, { 8, W3(3, 0, 0, 0, 0), (uintptr_t)geometry8,
			(uintptr_t)"kmalloc-64" } },
		{ 1, 200, 10, 11, { W3(3, 1, 1, 0, 0), 0xa000 } },
		{ 2, 300, 10, 12, { W3(3, 0, 0, 0, 0), 0xa000 } },
		{ 4, 400, 10, 12, { W3(3, 0, 1, 0x8, 1), 0x7f0000200000ull, 0, 0 } },
		{ 4, 500, 10, 12, { W3(3, 0, 0, 0, 1), 0x7f0000100000ull, 0, 0 } },
	};
	static const struct ts_item bad[] = {
		{ 3, 200, 10, 11, { W3(3, 1, 1, 0, 0) } },
	};
	struct ts_script s = { cls, 5, items, 5, STREAM, 0 };
	struct collected c;
	const struct slub_event *e;

	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 5, "format 8 refused: %s (%d)", c.error, c.nr);
	if (c.nr == 5) {
		CHECK(c.out[0].format == 8 && c.out[0].event.format == 8,
		      "format 8 cache_create: format %u, in the model's event %u", c.out[0].format,
		      c.out[0].event.format);
		e = &c.out[1].event.ev;
		CHECK(e->type == SLUB_EV_SHEAF_ALLOC && e->sheaf == 0xa000 && e->cpu == 1 &&
		      e->node == 1 && e->cache_id == 3, "sheaf_alloc: sheaf %#llx cpu %d node %d",
		      (unsigned long long)e->sheaf, e->cpu, e->node);
		e = &c.out[2].event.ev;
		CHECK(e->type == SLUB_EV_SHEAF_FREE && e->sheaf == 0xa000 && e->cpu == 0,
		      "sheaf_free: sheaf %#llx cpu %d", (unsigned long long)e->sheaf, e->cpu);
		e = &c.out[3].event.ev;
		CHECK(e->type == SLUB_EV_SHEAF_REFILL && e->reason == 1 && e->node == 1 &&
		      e->count == 1 && !e->sheaf && !e->locked,
		      "sheaf_refill for another node: reason %u node %d count %u sheaf %#llx",
		      e->reason, e->node, e->count, (unsigned long long)e->sheaf);
		e = &c.out[4].event.ev;
		CHECK(e->type == SLUB_EV_SHEAF_REFILL && e->reason == 0 && e->count == 1,
		      "sheaf_refill for the slot's node: reason %u count %u", e->reason, e->count);
	}
	slub_decoder_destroy(c.dec);
	s.items = bad;
	s.nr_items = 1;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`sheaf`") &&
	      strstr(c.error, "format 8 to 12?"), "sheaf_free without sheaf: %s", c.error);
	slub_decoder_destroy(c.dec);
}

/* Format 9: free_remote's freelist as an offset in the slab, and the
 * threads named by slub:comm in place of the procname context. */
static void test_v9(void)
{
	static const uint64_t geometry9[] = { 64, 64, 8, 0, 64, 5, 30, 0 };
	static const struct ts_class cls[] = {
		CACHE4,
		{ "slub:comm", { { "name", TF_STR } } },
		{ "slub:free_remote", { WHERE3, { "slab", TF_U64 }, { "counters", TF_U64 },
			{ "freelist_off", TF_U32 }, { "site", TF_U8 } } },
		{ "slub:free_remote", { WHERE3, { "slab", TF_U64 }, { "counters", TF_U64 },
			{ "site", TF_U8 } } },
		{ "slub:bin_info", { { "baddr", TF_U64 }, { "memsz", TF_U64 },
			{ "build_id", TF_SEQ64 }, { "is_pic", TF_U8 }, { "path", TF_STR } } },
	};
	static const uint64_t build_id[] = { 3, 0xab, 0xcd, 0xef };
	/* a worker thread (11) frees before and after it is named; the main
	 * thread (10) is named, frees, execs (a new name) and frees */
	static const struct ts_item items[] = {
		{ 0, 100, 10, 10, { 9, W3(3, 0, 0, 0, 0), (uintptr_t)geometry9,
			(uintptr_t)"kmalloc-64" } },
		{ 4, 150, 10, 11, { 0x7f0000400000ull, 0x3000, (uintptr_t)build_id, 1,
			(uintptr_t)"/nonexistent/liby.so" } },
		{ 2, 200, 10, 11, { W3(3, 1, 0, 0, 0xfffe), SLAB, COUNTERS(5, 64, 1, 7), 0x40, 6 } },
		{ 1, 300, 10, 11, { (uintptr_t)"worker" } },
		{ 2, 400, 10, 11, { W3(3, 1, 0, 0, 0xffff), SLAB, COUNTERS(4, 64, 0, 8),
			0xffffffffull, 6 } },
		{ 1, 500, 10, 10, { (uintptr_t)"prog" } },
		{ 2, 600, 10, 10, { W3(3, 0, 0, 0, 0xffff), SLAB, COUNTERS(3, 64, 0, 9), 0x80, 6 } },
		{ 1, 700, 10, 10, { (uintptr_t)"newprog" } },
		{ 2, 800, 10, 10, { W3(3, 0, 0, 0, 0xffff), SLAB, COUNTERS(2, 64, 0, 10), 0xc0, 6 } },
		{ 2, 900, 12, 12, { W3(3, 0, 0, 0, 0xffff), SLAB, COUNTERS(2, 64, 0, 10), 0xc0, 6 } },
	};
	static const struct ts_item bad[] = {
		{ 3, 200, 10, 11, { W3(3, 1, 0, 0, 0xffff), SLAB, COUNTERS(4, 64, 0, 8), 6 } },
	};
	struct ts_script s = { cls, 5, items, 10, STREAM, 0 };
	struct collected c;
	const struct slub_decoded *o;
	struct slub_symbolizer *sym = slub_symbolizer_create();
	struct slub_frame f;

	s.no_procname = 1;
	run(&s, &c, sym);
	CHECK(!c.failed && c.nr == 6, "format 9 refused: %s (%d)", c.error, c.nr);
	/* slub:bin_info names an object for the symbolizer */
	CHECK(slub_sym_known(sym, 10) && slub_sym_lookup(sym, 10, 0x7f0000400123ull, &f) == 0 &&
	      f.path && !strcmp(f.path, "/nonexistent/liby.so") && f.offset == 0x123,
	      "slub:bin_info: object %s offset %#llx", f.path ? f.path : "(none)",
	      (unsigned long long)f.offset);
	CHECK(slub_sym_lookup(sym, 10, 0x7f0000403000ull, &f) < 0, "past the object's memsz");
	slub_symbolizer_destroy(sym);
	if (c.nr == 6) {
		CHECK(c.out[0].format == 9, "cache_create: format %u", c.out[0].format);
		o = &c.out[1];
		CHECK(o->event.ev.type == SLUB_EV_FREE_REMOTE && o->event.ev.new.freelist == SLAB + 0x40 &&
		      o->event.ev.new.inuse == 5 && o->event.ev.new.seq == 7 &&
		      o->event.ev.new.owner == -2,
		      "free_remote: freelist %#llx inuse %u seq %u owner %d",
		      (unsigned long long)o->event.ev.new.freelist, o->event.ev.new.inuse,
		      o->event.ev.new.seq, o->event.ev.new.owner);
		CHECK(!o->thread_name && !o->event.procname, "a name before slub:comm: %s",
		      o->thread_name ? o->thread_name : "?");
		o = &c.out[2];
		CHECK(o->event.ev.new.freelist == 0, "freelist_off ffffffff: %#llx",
		      (unsigned long long)o->event.ev.new.freelist);
		CHECK(o->thread_name && !strcmp(o->thread_name, "worker") && !o->event.procname,
		      "worker: thread name %s, procname %s", o->thread_name ? o->thread_name : "-",
		      o->event.procname ? o->event.procname : "-");
		o = &c.out[3];
		CHECK(o->event.ev.new.freelist == SLAB + 0x80 && o->thread_name &&
		      !strcmp(o->thread_name, "prog") && o->event.procname &&
		      !strcmp(o->event.procname, "prog"), "main thread: procname %s",
		      o->event.procname ? o->event.procname : "-");
		o = &c.out[4];
		CHECK(o->event.procname && !strcmp(o->event.procname, "newprog"),
		      "after the exec: procname %s", o->event.procname ? o->event.procname : "-");
		o = &c.out[5];
		CHECK(!o->thread_name && !o->event.procname,
		      "another process took a name it was never given: %s",
		      o->thread_name ? o->thread_name : "-");
	}
	slub_decoder_destroy(c.dec);
	/* with the procname context (a session that adds it), the context wins */
	s.no_procname = 0;
	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 6 && c.out[4].event.procname &&
	      !strcmp(c.out[4].event.procname, "testproc"), "the context did not win: %s",
	      c.nr == 6 && c.out[4].event.procname ? c.out[4].event.procname : c.error);
	slub_decoder_destroy(c.dec);
	/* a free_remote with neither freelist nor freelist_off */
	s.no_procname = 1;
	s.items = bad;
	s.nr_items = 1;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`freelist`"),
	      "free_remote without its freelist: %s", c.error);
	slub_decoder_destroy(c.dec);
}

/* Format 10: a slab word's slab and freelist packed into slab_fl, list
 * operations' seq as a field of its own, the lock id of `where`. */
#define SLAB_FL(slab, off) ((uint64_t)(slab) << 12 | (off))

static void test_v10(void)
{
	static const uint64_t geometry10[] = { 64, 64, 8, 0, 64, 5, 30, 0 };
	static const struct ts_class cls[] = {
		CACHE4,
		{ "slub:free_remote", { WHERE3, { "slab_fl", TF_U64 }, { "counters", TF_U64 },
			{ "site", TF_U8 } } },
		{ "slub:unfreeze", { WHERE3, { "slab_fl", TF_U64 }, { "counters", TF_U64 },
			{ "site", TF_U8 } } },
		{ "slub:lock_acquire", { WHERE3, { "lock_seq", TF_U64 }, { "wait_ns", TF_U64 } } },
		{ "slub:add_partial", { WHERE3, { "slab", TF_U64 }, { "lock_seq", TF_U64 },
			{ "seq", TF_U32 }, { "list", TF_U8 } } },
		{ "slub:lock_release", { WHERE3, { "lock_seq", TF_U64 }, { "hold_ns", TF_U64 } } },
		/* neither slab_fl nor slab and freelist */
		{ "slub:freeze", { WHERE3, { "counters", TF_U64 }, { "site", TF_U8 } } },
		/* neither lock_id_seq nor seq */
		{ "slub:remove_partial", { WHERE3, { "slab", TF_U64 }, { "lock_seq", TF_U64 },
			{ "list", TF_U8 } } },
	};
	/* cache 3, node 2: lock 3 * 64 + 2 */
	static const struct ts_item items[] = {
		{ 0, 100, 10, 10, { 10, W3(3, 0, 0, 0, 0), (uintptr_t)geometry10,
			(uintptr_t)"kmalloc-64" } },
		{ 1, 200, 10, 11, { W3(3, 1, 2, 0, 0xfffe), SLAB_FL(SLAB, 0x40),
			COUNTERS(5, 64, 1, 7), 6 } },
		{ 3, 300, 10, 10, { W3(3, 0, 2, 2, 0), 5, 250 } },
		{ 2, 400, 10, 10, { W3(3, 0, 2, 1, 0), SLAB_FL(SLAB, 0xffffff),
			COUNTERS(64, 64, 0, 8), 3 | 2 << 4 } },
		{ 4, 500, 10, 10, { W3(3, 0, 2, 1, 0), SLAB, 5, 8, 2 } },
		{ 5, 600, 10, 10, { W3(3, 0, 2, 0, 0), 5, 700 } },
		/* the largest offset a slab of the segments can have, and a
		 * pointer outside the slab */
		{ 2, 700, 10, 10, { W3(3, 0, 2, 1, 0), SLAB_FL(SLAB, 0x3ffff8),
			COUNTERS(63, 64, 0, 9), 3 } },
		{ 2, 800, 10, 10, { W3(3, 0, 2, 1, 0), SLAB_FL(SLAB, 0xfffffe),
			COUNTERS(63, 64, 0, 10), 3 } },
	};
	static const struct ts_item bad_word[] = {
		{ 6, 200, 10, 10, { W3(3, 0, 0, 0, 0), COUNTERS(5, 64, 1, 7), 6 } },
	};
	static const struct ts_item bad_list[] = {
		{ 7, 200, 10, 10, { W3(3, 0, 0, 1, 0), SLAB, 5, 2 } },
	};
	struct ts_script s = { cls, 8, items, 8, STREAM, 0 };
	struct collected c;
	const struct slub_event *e;

	s.no_procname = 1;
	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 8, "format 10 refused: %s (%d)", c.error, c.nr);
	if (c.nr == 8) {
		CHECK(c.out[0].format == 10, "cache_create: format %u", c.out[0].format);
		e = &c.out[1].event.ev;
		CHECK(e->type == SLUB_EV_FREE_REMOTE && e->slab == SLAB &&
		      e->new.freelist == SLAB + 0x40 && e->new.inuse == 5 && e->new.seq == 7 &&
		      e->new.frozen && e->new.owner == -2 && e->site == 6 && e->node == 2,
		      "free_remote: slab %#llx freelist %#llx inuse %u seq %u owner %d",
		      (unsigned long long)e->slab, (unsigned long long)e->new.freelist,
		      e->new.inuse, e->new.seq, e->new.owner);
		e = &c.out[2].event.ev;
		CHECK(e->type == SLUB_EV_LOCK_ACQUIRE && e->lock_id == 3 * 64 + 2 &&
		      e->lock_seq == 5 && e->wait_ns == 250 && e->contended,
		      "lock_acquire: lock %u seq %llu wait %llu contended %u", e->lock_id,
		      (unsigned long long)e->lock_seq, (unsigned long long)e->wait_ns,
		      e->contended);
		e = &c.out[3].event.ev;
		CHECK(e->type == SLUB_EV_UNFREEZE && e->slab == SLAB && e->new.freelist == 0 &&
		      e->new.inuse == 64 && e->site == 3 && e->list == 2 && e->locked,
		      "unfreeze: slab %#llx freelist %#llx site %u dest %u",
		      (unsigned long long)e->slab, (unsigned long long)e->new.freelist, e->site,
		      e->list);
		e = &c.out[4].event.ev;
		CHECK(e->type == SLUB_EV_ADD_PARTIAL && e->slab == SLAB && e->lock_id == 194 &&
		      e->lock_seq == 5 && e->new.seq == 8 && e->list == 2 && e->locked,
		      "add_partial: lock %u lock_seq %llu seq %u list %u", e->lock_id,
		      (unsigned long long)e->lock_seq, e->new.seq, e->list);
		e = &c.out[5].event.ev;
		CHECK(e->type == SLUB_EV_LOCK_RELEASE && e->lock_id == 194 && e->hold_ns == 700,
		      "lock_release: lock %u hold %llu", e->lock_id, (unsigned long long)e->hold_ns);
		e = &c.out[6].event.ev;
		CHECK(e->slab == SLAB && e->new.freelist == SLAB + 0x3ffff8,
		      "the last offset: slab %#llx freelist %#llx", (unsigned long long)e->slab,
		      (unsigned long long)e->new.freelist);
		e = &c.out[7].event.ev;
		CHECK(e->slab == SLAB && e->new.freelist == SLAB + 0xfffffe,
		      "outside the slab: slab %#llx freelist %#llx", (unsigned long long)e->slab,
		      (unsigned long long)e->new.freelist);
	}
	slub_decoder_destroy(c.dec);
	s.items = bad_word;
	s.nr_items = 1;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`slab`") &&
	      strstr(c.error, "slub:freeze"), "a slab word without its slab: %s", c.error);
	slub_decoder_destroy(c.dec);
	s.items = bad_list;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`lock_id_seq`") &&
	      strstr(c.error, "slub:remove_partial"), "a list operation without its seq: %s",
	      c.error);
	slub_decoder_destroy(c.dec);
}

/* Format 11: a slab-word event's where, slab_fl and counters in one
 * array, where_slab_fl_counters; a trace may mix it with the other classes
 * of format 10, which it keeps. */
static void test_v11(void)
{
	static const uint64_t geometry11[] = { 64, 64, 8, 0, 64, 5, 30, 0 };
	static const uint64_t fr[] = { W3(3, 1, 2, 0, 0xfffe), SLAB_FL(SLAB, 0x40),
				       COUNTERS(5, 64, 1, 7) };
	static const uint64_t uf[] = { W3(3, 0, 2, 1, 1), SLAB_FL(SLAB, 0xffffff),
				       COUNTERS(64, 64, 0, 8) };
	static const uint64_t out[] = { W3(3, 0, 2, 0, 0xffff), SLAB_FL(SLAB, 0xfffffe),
					COUNTERS(63, 64, 0, 9) };
	static const uint64_t two[] = { W3(3, 0, 2, 0, 0), SLAB_FL(SLAB, 0x40) };
	static const struct ts_class cls[] = {
		CACHE4,
		{ "slub:free_remote", { { "where_slab_fl_counters", TF_ARR64, 3 },
			{ "site", TF_U8 } } },
		{ "slub:unfreeze", { { "where_slab_fl_counters", TF_ARR64, 3 },
			{ "site", TF_U8 } } },
		{ "slub:add_partial", { WHERE3, { "slab", TF_U64 }, { "lock_seq", TF_U64 },
			{ "seq", TF_U32 }, { "list", TF_U8 } } },
		/* two words where three must be */
		{ "slub:freeze", { { "where_slab_fl_counters", TF_ARR64, 2 },
			{ "site", TF_U8 } } },
	};
	static const struct ts_item items[] = {
		{ 0, 100, 10, 10, { 11, W3(3, 0, 0, 0, 0), (uintptr_t)geometry11,
			(uintptr_t)"kmalloc-64" } },
		{ 1, 200, 10, 11, { (uintptr_t)fr, 6 } },
		{ 2, 300, 10, 10, { (uintptr_t)uf, 3 | 2 << 4 } },
		{ 3, 400, 10, 10, { W3(3, 0, 2, 1, 0), SLAB, 5, 8, 2 } },
		{ 1, 500, 10, 11, { (uintptr_t)out, 6 } },
	};
	static const struct ts_item bad[] = {
		{ 4, 200, 10, 10, { (uintptr_t)two, 6 } },
	};
	struct ts_script s = { cls, 5, items, 5, STREAM, 0 };
	struct collected c;
	const struct slub_event *e;

	s.no_procname = 1;
	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 5, "format 11 refused: %s (%d)", c.error, c.nr);
	if (c.nr == 5) {
		CHECK(c.out[0].format == 11, "cache_create: format %u", c.out[0].format);
		e = &c.out[1].event.ev;
		CHECK(e->type == SLUB_EV_FREE_REMOTE && e->cache_id == 3 && e->cpu == 1 &&
		      e->node == 2 && e->slab == SLAB && e->new.freelist == SLAB + 0x40 &&
		      e->new.inuse == 5 && e->new.objects == 64 && e->new.seq == 7 &&
		      e->new.frozen && e->new.owner == -2 && e->site == 6 && e->list == 0 &&
		      !e->locked && c.out[1].event.vtid == 11,
		      "free_remote: cache %u cpu %d slab %#llx freelist %#llx inuse %u seq %u "
		      "owner %d site %u", e->cache_id, e->cpu, (unsigned long long)e->slab,
		      (unsigned long long)e->new.freelist, e->new.inuse, e->new.seq,
		      e->new.owner, e->site);
		e = &c.out[2].event.ev;
		CHECK(e->type == SLUB_EV_UNFREEZE && e->slab == SLAB && e->new.freelist == 0 &&
		      e->new.inuse == 64 && e->new.seq == 8 && !e->new.frozen &&
		      e->new.owner == -1 && e->old.owner == 1 && e->site == 3 && e->list == 2 &&
		      e->locked,
		      "unfreeze: slab %#llx freelist %#llx owner %d left %d site %u dest %u",
		      (unsigned long long)e->slab, (unsigned long long)e->new.freelist,
		      e->new.owner, e->old.owner, e->site, e->list);
		e = &c.out[3].event.ev;
		CHECK(e->type == SLUB_EV_ADD_PARTIAL && e->slab == SLAB && e->lock_id == 194 &&
		      e->new.seq == 8, "add_partial beside it: lock %u seq %u", e->lock_id,
		      e->new.seq);
		e = &c.out[4].event.ev;
		CHECK(e->slab == SLAB && e->new.freelist == SLAB + 0xfffffe &&
		      e->new.owner == -1 && e->new.inuse == 63,
		      "outside the slab: slab %#llx freelist %#llx owner %d",
		      (unsigned long long)e->slab, (unsigned long long)e->new.freelist,
		      e->new.owner);
	}
	slub_decoder_destroy(c.dec);
	s.items = bad;
	s.nr_items = 1;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "slub:freeze"),
	      "a slab word of two words: %s", c.error);
	slub_decoder_destroy(c.dec);
}

/* Format 12: every slub event carries its pid over its tid, the slab-word
 * events as the array's fourth word, the others as pid_tid: the slub
 * channel has no vpid or vtid context. */
#define PT(pid, tid) ((uint64_t)(pid) << 32 | (uint32_t)(tid))

static void test_v12(void)
{
	static const uint64_t geometry12[] = { 64, 64, 8, 0, 64, 5, 30, 0 };
	static const uint64_t fr[] = { W3(3, 1, 2, 0, 0xfffe), SLAB_FL(SLAB, 0x40),
				       COUNTERS(5, 64, 1, 7), PT(20, 21) };
	static const struct ts_class cls[] = {
		{ "slub:cache_create", { { "format", TF_U8 }, WHERE3,
			{ "geometry", TF_ARR32, 8 }, { "name", TF_STR },
			{ "pid_tid", TF_U64 } } },
		{ "slub:free_remote", { { "where_slab_fl_counters_pid_tid", TF_ARR64, 4 },
			{ "site", TF_U8 } } },
		{ "slub:add_partial", { WHERE3, { "slab", TF_U64 }, { "lock_seq", TF_U64 },
			{ "seq", TF_U32 }, { "list", TF_U8 }, { "pid_tid", TF_U64 } } },
		{ "slub:comm", { { "name", TF_STR }, { "pid_tid", TF_U64 } } },
		/* neither the contexts nor pid_tid */
		{ "slub:lock_acquire", { WHERE3, { "lock_seq", TF_U64 }, { "wait_ns", TF_U64 } } },
	};
	static const struct ts_item items[] = {
		{ 0, 100, 0, 0, { 12, W3(3, 0, 0, 0, 0), (uintptr_t)geometry12,
			(uintptr_t)"kmalloc-64", PT(20, 20) } },
		{ 3, 150, 0, 0, { (uintptr_t)"worker", PT(20, 21) } },
		{ 1, 200, 0, 0, { (uintptr_t)fr, 6 } },
		{ 2, 300, 0, 0, { W3(3, 0, 2, 1, 0), SLAB, 5, 8, 2, PT(20, 22) } },
	};
	static const struct ts_item bad[] = {
		{ 4, 200, 0, 0, { W3(3, 0, 2, 2, 0), 5, 250 } },
	};
	struct ts_script s = { cls, 5, items, 4, STREAM, 0 };
	struct collected c;
	const struct slub_event *e;

	s.no_context = 1;
	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 3, "format 12 refused: %s (%d)", c.error, c.nr);
	if (c.nr == 3) {
		CHECK(c.out[0].format == 12 && c.out[0].event.vpid == 20 &&
		      c.out[0].event.vtid == 20, "cache_create: format %u, pid %u tid %u",
		      c.out[0].format, c.out[0].event.vpid, c.out[0].event.vtid);
		e = &c.out[1].event.ev;
		CHECK(e->type == SLUB_EV_FREE_REMOTE && e->cache_id == 3 && e->cpu == 1 &&
		      e->node == 2 && e->slab == SLAB && e->new.freelist == SLAB + 0x40 &&
		      e->new.inuse == 5 && e->new.seq == 7 && e->new.owner == -2 && e->site == 6 &&
		      c.out[1].event.vpid == 20 && c.out[1].event.vtid == 21 && e->tid == 21 &&
		      c.out[1].thread_name && !strcmp(c.out[1].thread_name, "worker"),
		      "free_remote: slab %#llx freelist %#llx seq %u, pid %u tid %u, name %s",
		      (unsigned long long)e->slab, (unsigned long long)e->new.freelist,
		      e->new.seq, c.out[1].event.vpid, c.out[1].event.vtid,
		      c.out[1].thread_name ? c.out[1].thread_name : "(none)");
		e = &c.out[2].event.ev;
		CHECK(e->type == SLUB_EV_ADD_PARTIAL && e->lock_id == 194 && e->new.seq == 8 &&
		      c.out[2].event.vpid == 20 && c.out[2].event.vtid == 22,
		      "add_partial: lock %u seq %u, pid %u tid %u", e->lock_id, e->new.seq,
		      c.out[2].event.vpid, c.out[2].event.vtid);
	}
	slub_decoder_destroy(c.dec);
	s.items = bad;
	s.nr_items = 1;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "slub:lock_acquire") &&
	      strstr(c.error, "no vpid/vtid context"), "neither pid_tid nor the contexts: %s",
	      c.error);
	slub_decoder_destroy(c.dec);
}

static void test_cache_format(void)
{
	static const struct ts_item items2[] = {
		{ C_CACHE, 100, 1, 1, { 13, 1, (uintptr_t)"x", 8, 8, 8, 0, 512, 5, 30, 0, 0 } },
	};
	static const struct ts_item items4[] = {
		{ C_CACHE, 100, 1, 1, { 13, W3(1, 0, 0, 0, 0), (uintptr_t)geometry4,
			(uintptr_t)"x" } },
	};
	static const struct ts_item mixed[] = {
		{ C_CACHE, 100, 1, 1, { 3, 1, (uintptr_t)"x", 8, 8, 8, 0, 512, 5, 30, 0, 0 } },
	};
	static const struct ts_item mixed4[] = {
		{ C_CACHE, 100, 1, 1, { 4, 1, (uintptr_t)"x", 8, 8, 8, 0, 512, 5, 30, 0, 0 } },
	};
	static const struct ts_item mixed2[] = {
		{ C_CACHE, 100, 1, 1, { 2, W3(1, 0, 0, 0, 0), (uintptr_t)geometry4,
			(uintptr_t)"x" } },
	};
	/* formats 3 and 4 each in its own layout: geometry and flags, or
	 * geometry with the flags last */
	static const struct ts_class cls34[] = {
		[0] = { "slub:cache_create", { { "format", TF_U8 }, WHERE3,
			{ "geometry", TF_ARR32, 7 }, { "flags", TF_U32 }, { "name", TF_STR } } },
		[1] = CACHE4,
		/* format 4's layout with format 3's geometry of seven */
		[2] = { "slub:cache_create", { { "format", TF_U8 }, WHERE3,
			{ "geometry", TF_ARR32, 7 }, { "name", TF_STR } } },
	};
	static const struct ts_item items34[] = {
		{ 0, 100, 1, 1, { 3, W3(1, 0, 0, 0, 0), (uintptr_t)geometry, 0x2,
			(uintptr_t)"x" } },
		{ 1, 200, 1, 1, { 4, W3(2, 0, 0, 0, 0), (uintptr_t)geometry4,
			(uintptr_t)"y" } },
	};
	static const struct ts_item mixed43[] = {
		{ 0, 100, 1, 1, { 4, W3(1, 0, 0, 0, 0), (uintptr_t)geometry, 0x2,
			(uintptr_t)"x" } },
	};
	static const struct ts_item mixed34[] = {
		{ 1, 100, 1, 1, { 3, W3(1, 0, 0, 0, 0), (uintptr_t)geometry4,
			(uintptr_t)"x" } },
	};
	static const struct ts_item short4[] = {
		{ 2, 100, 1, 1, { 4, W3(1, 0, 0, 0, 0), (uintptr_t)geometry, (uintptr_t)"x" } },
	};
	static const struct ts_item short3[] = {
		{ 2, 100, 1, 1, { 3, W3(1, 0, 0, 0, 0), (uintptr_t)geometry, (uintptr_t)"x" } },
	};
	struct ts_script s = { v2_classes, C_NR, items2, 1, STREAM, 0 };
	struct collected c;

	/* a newer format, in either layout */
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_FORMAT && strstr(c.error, "format 13") &&
	      strstr(c.error, "reads formats 2 to 12"), "cache_create of format 13: %s",
	      c.error);
	slub_decoder_destroy(c.dec);
	s.classes = v4_classes;
	s.items = items4;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_FORMAT && strstr(c.error, "format 13"),
	      "cache_create of format 13 in format 4's layout: %s", c.error);
	slub_decoder_destroy(c.dec);
	/* a number that does not match the layout */
	s.classes = v2_classes;
	s.items = mixed;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "format 3") &&
	      strstr(c.error, "format 2"), "cache_create of format 3 laid out as 2: %s", c.error);
	slub_decoder_destroy(c.dec);
	s.items = mixed4;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "format 4") &&
	      strstr(c.error, "format 2"), "cache_create of format 4 laid out as 2: %s", c.error);
	slub_decoder_destroy(c.dec);
	s.classes = v4_classes;
	s.items = mixed2;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "format 2") &&
	      strstr(c.error, "laid out in format 4"), "cache_create of format 2 laid out as 4: %s",
	      c.error);
	slub_decoder_destroy(c.dec);
	s.classes = cls34;
	s.nr_classes = 3;
	s.items = mixed43;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED &&
	      strstr(c.error, "says slub trace format 4") &&
	      strstr(c.error, "laid out in format 3"), "cache_create of format 4 laid out as 3: %s",
	      c.error);
	slub_decoder_destroy(c.dec);
	s.items = mixed34;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED &&
	      strstr(c.error, "says slub trace format 3") &&
	      strstr(c.error, "laid out in format 4"), "cache_create of format 3 laid out as 4: %s",
	      c.error);
	slub_decoder_destroy(c.dec);
	/* no flags field, and no room for them in a geometry of seven */
	s.items = short4;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`geometry`") &&
	      strstr(c.error, "format 4?"), "format 4 cache_create with a geometry of 7: %s",
	      c.error);
	slub_decoder_destroy(c.dec);
	s.items = short3;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`geometry`"),
	      "format 3 cache_create without flags: %s", c.error);
	slub_decoder_destroy(c.dec);
	/* both layouts in one trace, each with its flags */
	s.items = items34;
	s.nr_items = 2;
	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 2, "cache_create of formats 3 and 4: %s (%d)", c.error, c.nr);
	if (c.nr == 2) {
		const struct slub_cache_info *a = c.out[0].event.ev.info;
		const struct slub_cache_info *b = c.out[1].event.ev.info;

		CHECK(a && !strcmp(a->name, "x") && a->flags == 0x2 && a->cpu_partial == 30 &&
		      a->objects == 64, "format 3 cache: flags %#x cpu_partial %u",
		      a ? a->flags : 0, a ? a->cpu_partial : 0);
		CHECK(b && !strcmp(b->name, "y") && b->flags == 0x1 && b->cpu_partial == 30 &&
		      b->objects == 64 && c.out[1].event.ev.cache_id == 2,
		      "format 4 cache: flags %#x cpu_partial %u", b ? b->flags : 0,
		      b ? b->cpu_partial : 0);
	}
	slub_decoder_destroy(c.dec);
}

static void test_malformed(void)
{
	static const struct ts_class cls[] = {
		{ "slub:freeze", { WHERE, { "site", TF_U8 }, { "dest", TF_U8 }, { "locked", TF_U8 },
			{ "slab", TF_U64 }, { "freelist", TF_U64 }, { "owner", TF_I16 } } },
	};
	static const struct ts_item items[] = { { 0, 100, 1, 1, { 1, 0, 0, 1, 0, 0, SLAB, 0, 0 } } };
	struct ts_script s = { cls, 1, items, 1, STREAM, 0 };
	struct collected c;

	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED, "missing field accepted");
	CHECK(strstr(c.error, "slub:freeze") && strstr(c.error, STREAM) &&
	      strstr(c.error, "`counters`") && strstr(c.error, "format 2?"),
	      "message names event, stream, field: %s", c.error);
	slub_decoder_destroy(c.dec);
}

/* Format 3: a field missing, an array too short. */
static void test_malformed_v3(void)
{
	static const struct ts_class cls[] = {
		{ "slub:freeze", { WHERE3, { "slab", TF_U64 }, { "freelist", TF_U64 },
			{ "site", TF_U8 } } },
		{ "slub:cmpxchg_fail", { WHERE3, { "slab", TF_U64 }, { "expected", TF_ARR64, 1 },
			{ "observed", TF_ARR64, 2 }, { "site", TF_U8 } } },
	};
	static const struct ts_item items[] = { { 0, 100, 1, 1, { 1, SLAB, 0, 1 } } };
	static const struct ts_item items_cx[] = {
		{ 1, 100, 1, 1, { 1, SLAB, (uintptr_t)expected, (uintptr_t)observed, 6 } },
	};
	struct ts_script s = { cls, 2, items, 1, STREAM, 0 };
	struct collected c;

	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`counters`") &&
	      strstr(c.error, "format 3 or 4?"), "format 3 without counters: %s", c.error);
	slub_decoder_destroy(c.dec);
	s.items = items_cx;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`expected`"),
	      "an expected word of one element: %s", c.error);
	slub_decoder_destroy(c.dec);
}

/* Format 4: a words array too short, one missing, an error without its
 * object; format 3's error keeps its message. */
static void test_malformed_v4(void)
{
	static const struct ts_class cls[] = {
		{ "slub:cmpxchg_fail", { WHERE3, { "slab", TF_U64 }, { "words", TF_ARR64, 3 },
			{ "site", TF_U8 } } },
		{ "slub:cmpxchg_fail", { WHERE3, { "slab", TF_U64 }, { "site", TF_U8 } } },
		{ "slub:error", { WHERE3, { "slab", TF_U64 }, { "reason", TF_U8 } } },
		{ "slub:error", { WHERE3, { "slab", TF_U64 }, { "reason", TF_U8 },
			{ "msg", TF_STR } } },
		{ "slub:error", { WHERE3, { "slab", TF_U64 }, { "object", TF_U64 },
			{ "reason", TF_U8 }, { "msg", TF_STR } } },
	};
	static const struct ts_item short_words[] = {
		{ 0, 100, 1, 1, { 1, SLAB, (uintptr_t)words, 6 } },
	};
	static const struct ts_item no_words[] = { { 1, 100, 1, 1, { 1, SLAB, 6 } } };
	static const struct ts_item no_object4[] = { { 2, 100, 1, 1, { 1, SLAB, 1 } } };
	static const struct ts_item no_object3[] = {
		{ 3, 100, 1, 1, { 1, SLAB, 1, (uintptr_t)"Object already free" } },
	};
	/* the message format 3 carried, whatever it says */
	static const struct ts_item msg3[] = {
		{ 4, 100, 1, 1, { 1, SLAB, SLAB + 0x40, SLUB_ERR_REDZONE, (uintptr_t)"as traced" } },
	};
	struct ts_script s = { cls, 5, short_words, 1, STREAM, 0 };
	struct collected c;

	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`words`") &&
	      strstr(c.error, "format 4?"), "words of three elements: %s", c.error);
	slub_decoder_destroy(c.dec);
	s.items = no_words;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`words`") &&
	      strstr(c.error, "format 4?"), "cmpxchg_fail without words: %s", c.error);
	slub_decoder_destroy(c.dec);
	s.items = no_object4;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`object`") &&
	      strstr(c.error, "format 4?"), "format 4 error without object: %s", c.error);
	slub_decoder_destroy(c.dec);
	s.items = no_object3;
	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "`object`") &&
	      strstr(c.error, "format 3?"), "format 3 error without object: %s", c.error);
	slub_decoder_destroy(c.dec);
	s.items = msg3;
	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 1, "format 3 error: %s (%d)", c.error, c.nr);
	if (c.nr == 1)
		CHECK(c.out[0].event.ev.reason == SLUB_ERR_REDZONE &&
		      c.out[0].event.ev.object == SLAB + 0x40 && c.out[0].event.ev.msg &&
		      !strcmp(c.out[0].event.ev.msg, "as traced"), "format 3 error's message %s",
		      c.out[0].event.ev.msg ? c.out[0].event.ev.msg : "(none)");
	slub_decoder_destroy(c.dec);
}

static void test_no_context(void)
{
	struct ts_script s = { v4_classes, C_NR, v4_items + 2, 1, STREAM, 1 };
	struct collected c;

	run(&s, &c, NULL);
	CHECK(c.failed && c.why == SLUB_UNUSABLE_MALFORMED && strstr(c.error, "vpid/vtid"),
	      "events without vpid/vtid accepted: %s", c.error);
	slub_decoder_destroy(c.dec);
}

/* Lost events with a time range, lost packets without one: the packets'
 * range is not read from the events' property. */
static void test_lost_packets_no_clock(void)
{
	static const struct ts_item items[] = {
		{ .ts = 300, .discard = 1, .discard_count = 5, .discard_begin = 200 },
		{ .ts = 400, .discard = 2 },
	};
	struct ts_script s = { v4_classes, C_NR, items, 2, STREAM, 0 };
	struct collected c;

	s.packets = 1;
	s.lost_packets = 1;
	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 2, "decoder: %s (%d)", c.error, c.nr);
	if (c.nr == 2) {
		CHECK(c.out[0].kind == SLUB_DEC_DISCARD && c.out[0].discard.range_known &&
		      c.out[0].discard.begin_ts == 200 && c.out[0].discard.end_ts == 300 &&
		      c.out[0].discard.count == 5, "lost events: range %d %llu-%llu",
		      c.out[0].discard.range_known, (unsigned long long)c.out[0].discard.begin_ts,
		      (unsigned long long)c.out[0].discard.end_ts);
		CHECK(c.out[1].kind == SLUB_DEC_DISCARD && !c.out[1].discard.range_known &&
		      !c.out[1].discard.count, "lost packets: range %d count %llu",
		      c.out[1].discard.range_known, (unsigned long long)c.out[1].discard.count);
		CHECK(!c.out[0].discard.foreign && !c.out[1].discard.foreign,
		      "a loss in a stream of slub events counted as LTTng-UST's own");
	}
	slub_decoder_destroy(c.dec);
}

/* record's second channel: LTTng-UST's own events, no slub event class.
 * Its losses are told apart (foreign), whatever precedes them. */
static void test_foreign_discard(void)
{
	static const struct ts_class classes[] = {
		{ "lttng_ust_statedump:start", { { NULL } } },
		{ "lttng_ust_dl:dlopen", { { "baddr", TF_U64 } } },
	};
	static const struct ts_item items[] = {
		{ 0, 100, 7, 7, { 0 } },
		{ .ts = 300, .discard = 1, .discard_count = 12, .discard_begin = 150 },
		{ 1, 400, 7, 8, { 0x400000 } },
	};
	struct ts_script s = { classes, 2, items, 3, "trace/ust/uid/0/64-bit/slubtrace_ust_0", 0 };
	struct collected c;

	s.no_procname = 1;
	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 1, "decoder: %s (%d)", c.error, c.nr);
	if (c.nr == 1)
		CHECK(c.out[0].kind == SLUB_DEC_DISCARD && c.out[0].discard.foreign &&
		      c.out[0].discard.count == 12 && c.out[0].discard.range_known &&
		      c.out[0].discard.begin_ts == 150 && c.out[0].discard.end_ts == 300,
		      "LTTng-UST's own events lost: foreign %u count %llu",
		      c.out[0].discard.foreign, (unsigned long long)c.out[0].discard.count);
	slub_decoder_destroy(c.dec);
}

static void test_other_provider(void)
{
	static const struct ts_item items[] = {
		{ C_OTHER, 100, 1, 1, { 1, SLAB } },
		{ C_OTHER, 200, 1, 1, { 2, SLAB } },
	};
	struct ts_script s = { v4_classes, C_NR, items, 2, STREAM, 0 };
	struct collected c;

	run(&s, &c, NULL);
	CHECK(!c.failed && c.nr == 0 && slub_decoder_events(c.dec) == 0,
	      "another provider's events were decoded (%d)", c.nr);
	slub_decoder_destroy(c.dec);
}

/* ---- the symbolizer on this very executable ---- */

__attribute__((noinline)) uint64_t symbolizer_marker(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

struct self_map {
	uint64_t base, memsz;
	char path[512];
};

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self_map *m = arg;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (info->dlpi_name && info->dlpi_name[0])
		return 0;	/* the main program comes first, unnamed */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < lo)
			lo = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > hi)
			hi = ph->p_vaddr + ph->p_memsz;
	}
	m->base = info->dlpi_addr + lo;
	m->memsz = hi - lo;
	return 1;
}

static void test_symbolizer(void)
{
	struct slub_symbolizer *sym = slub_symbolizer_create();
	struct self_map m = { 0 };
	struct slub_frame f;
	ssize_t n = readlink("/proc/self/exe", m.path, sizeof(m.path) - 1);
	/* A return address inside this function, as a stack would hold it. */
	uint64_t ip = symbolizer_marker();

	CHECK(n > 0, "readlink /proc/self/exe");
	dl_iterate_phdr(find_self, &m);
	slub_sym_load(sym, 77, m.base, m.memsz, m.path, true);
	CHECK(slub_sym_lookup(sym, 77, ip, &f) == 0, "ip 0x%llx not in the executable",
	      (unsigned long long)ip);
	CHECK(f.path && !strcmp(f.path, m.path), "object %s", f.path ? f.path : "(none)");
	CHECK(!strcmp(f.function, "test_symbolizer"), "function '%s'", f.function);
	CHECK(strstr(f.file, "test_decode.c") && f.line > 0, "file:line '%s:%d'", f.file, f.line);
	CHECK(slub_sym_lookup(sym, 78, ip, &f) < 0 && !f.path, "another process's objects used");
	slub_sym_reset(sym, 77);
	CHECK(slub_sym_lookup(sym, 77, ip, &f) < 0, "objects kept after a new statedump");
	slub_symbolizer_destroy(sym);
}

int main(void)
{
	test_v5();
	test_trace_destroyed();

	test_v6();
	test_v7();
	test_v8();
	test_v9();
	test_v10();
	test_v11();
	test_v12();
	test_v4();
	test_v3();
	test_v2();
	test_v3_where();
	test_format1();
	test_format_string();
	test_cache_format();
	test_malformed();
	test_foreign_discard();
	test_malformed_v3();
	test_malformed_v4();
	test_no_context();
	test_lost_packets_no_clock();
	test_other_provider();
	test_symbolizer();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("decoder and symbolizer: all checks passed\n");
	return 0;
}
