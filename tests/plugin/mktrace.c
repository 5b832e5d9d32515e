/* SPDX-License-Identifier: MIT */
/*
 * Writes a small deterministic CTF trace from a script of the scripted
 * source, with Babeltrace's own sink.ctf.fs: the same events on every run
 * (only the trace UUID differs), for golden outputs and for bad-input
 * tests that need no session daemon.
 *
 *   mktrace clean|lost|clean3|lost3|clean2|lost2|clean10|lost10|clean11|lost11|
 *           storm|storm3|storm10|storm11|mixed|other|format1|sheaves6|sheaves7 DIR
 *
 *   clean    one clean life of a slab (tests/plugin/scripts.c), wire format 4
 *   lost     the same life with a slab-word update missing (a lost update)
 *   clean3, lost3  the same in wire format 3
 *   clean2, lost2  the same in wire format 2 (readers decode all three)
 *   clean10, lost10, clean11, lost11  the same in wire format 10 or 11
 *   storm    a retry storm: five failed CAS in a row, each winner traced,
 *            a redo retried under a kept list_lock, a double free
 *            (scripts.h), wire format 4
 *   storm3, storm10, storm11  the same in wire format 3, 10 or 11
 *   mixed    two processes (alpha, beta), each with a cache of its own
 *            (test-64, other-64): a clean life, then a lost update (scripts.h)
 *   other    events of another provider only
 *   format1  a slub event laid out as in wire format 1
 *   sheaves6 a cache of the sheaves generation announced in wire format 6
 *            (without the sheaf and barn events: the checker refuses it)
 *   sheaves7 the same cache announced in wire format 7
 */
#include <stdio.h>
#include <string.h>

#include "scripts.h"

static const struct ts_class format1_classes[] = {
	{ "slub:freeze", { { "cache_id", TF_U32 }, { "cpu", TF_I32 }, { "node", TF_I16 },
		{ "slab", TF_U64 }, { "old_seq", TF_U32 }, { "new_seq", TF_U32 } } },
};
static const struct ts_item format1_items[] = {
	{ 0, 1000000000ull, LIFE_VPID, LIFE_VPID, { 1, 0, 0, LIFE_SLAB, 1, 2 }, 0, 0, 0 },
};

/* cache_create of a sheaves cache (flags SLUB_F_SHEAVES, cpu_partial 0),
 * format 4's layout; items[0].v[0] is the format it says. */
static const struct ts_class sheaves_classes[] = {
	{ "slub:cache_create", { { "format", TF_U8 }, { "where", TF_U64 },
		{ "geometry", TF_ARR32, 8 }, { "name", TF_STR } } },
};
static const uint64_t sheaves_geometry[8] = { 64, 64, 8, 0, 64, 5, 0, 0x80 };
static struct ts_item sheaves_items[] = {
	{ 0, 1000000000ull, LIFE_VPID, LIFE_VPID,
	  { 6, 1, (uintptr_t)sheaves_geometry, (uintptr_t)"sheaves-64" }, 0, 0, 0 },
};

int main(int argc, char **argv)
{
	struct ts_script s;
	const bt_plugin *ctf = NULL;
	const bt_component_class_sink *fs;
	bt_component_class_source *src_cls;
	const bt_component_source *src;
	const bt_component_sink *sink;
	bt_value *params;
	bt_graph *g;
	bt_graph_run_status st;

	if (argc != 3) {
		fprintf(stderr, "usage: mktrace clean|lost|clean3|lost3|clean2|lost2|clean10|lost10|"
			"clean11|lost11|storm|storm3|storm10|storm11|mixed|other|format1|sheaves6|"
			"sheaves7 DIR\n");
		return 2;
	}
	if (!strcmp(argv[1], "clean")) {
		script_life(&s, LIFE_CLEAN, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "lost")) {
		script_life(&s, LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "clean3")) {
		script_life_format(&s, 3, LIFE_CLEAN, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "lost3")) {
		script_life_format(&s, 3, LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "clean11")) {
		script_life_format(&s, 11, LIFE_CLEAN, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "lost11")) {
		script_life_format(&s, 11, LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "storm11")) {
		script_storm_format(&s, 11);
	} else if (!strcmp(argv[1], "clean10")) {
		script_life_format(&s, 10, LIFE_CLEAN, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "lost10")) {
		script_life_format(&s, 10, LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "storm10")) {
		script_storm_format(&s, 10);
	} else if (!strcmp(argv[1], "clean2")) {
		script_life_format(&s, 2, LIFE_CLEAN, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "lost2")) {
		script_life_format(&s, 2, LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "storm")) {
		script_storm(&s);
	} else if (!strcmp(argv[1], "storm3")) {
		script_storm_format(&s, 3);
	} else if (!strcmp(argv[1], "mixed")) {
		script_mixed(&s);
	} else if (!strcmp(argv[1], "other")) {
		script_life(&s, LIFE_OTHER_ONLY, 0, 0, 0, NULL);
	} else if (!strcmp(argv[1], "sheaves6") || !strcmp(argv[1], "sheaves7")) {
		memset(&s, 0, sizeof(s));
		sheaves_items[0].v[0] = argv[1][7] == '6' ? 6 : 7;
		s.classes = sheaves_classes;
		s.nr_classes = 1;
		s.items = sheaves_items;
		s.nr_items = 1;
	} else if (!strcmp(argv[1], "format1")) {
		memset(&s, 0, sizeof(s));
		s.classes = format1_classes;
		s.nr_classes = 1;
		s.items = format1_items;
		s.nr_items = 1;
	} else {
		fprintf(stderr, "mktrace: unknown script '%s'\n", argv[1]);
		return 2;
	}
	s.packets = 1;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		fprintf(stderr, "mktrace: babeltrace2's ctf plugin not found\n");
		return 1;
	}
	fs = bt_plugin_borrow_sink_component_class_by_name_const(ctf, "fs");
	src_cls = testsrc_class();
	g = bt_graph_create(0);
	params = bt_value_map_create();
	bt_value_map_insert_string_entry(params, "path", argv[2]);
	bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE);
	bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE);
	if (bt_graph_add_source_component_with_initialize_method_data(g, src_cls, "src", NULL, &s,
			BT_LOGGING_LEVEL_NONE, &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_sink_component(g, fs, "fs", params, BT_LOGGING_LEVEL_NONE, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		fprintf(stderr, "mktrace: cannot build the graph\n");
		return 1;
	}
	st = bt_graph_run(g);
	bt_value_put_ref(params);
	bt_graph_put_ref(g);
	bt_component_class_source_put_ref(src_cls);
	bt_plugin_put_ref(ctf);
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		fprintf(stderr, "mktrace: writing %s failed (status %d)\n", argv[2], st);
		return 1;
	}
	return 0;
}
