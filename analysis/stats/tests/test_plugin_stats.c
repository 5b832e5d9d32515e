// SPDX-License-Identifier: MIT
/*
 * test_plugin_stats: sink.slub.stats of the built plugin, fed wire-format-4
 * messages by a scripted source component (tests/plugin/testsrc.c): the
 * decoded events reach the statistics, a failed CAS is attributed to the
 * update whose seq it observed, six failed attempts of one free make a run
 * storm, a discarded-events notice makes the figures lower bounds, and
 * bad parameters are refused.
 *
 *   test_plugin_stats PLUGIN.so
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "slub_tstats.h"
#include "testsrc.h"

static int checks, failures;

#define CHECK(cond, ...)							\
	do {									\
		checks++;							\
		if (!(cond)) {							\
			failures++;						\
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
		}								\
	} while (0)

#define WHERE { "where", TF_U64 }
#define SLAB_WORD WHERE, { "slab", TF_U64 }, { "freelist", TF_U64 }, { "counters", TF_U64 }, \
	{ "site", TF_U8 }

enum { C_CACHE, C_SLAB_NEW, C_TAKE, C_FREE_REMOTE, C_FAIL, C_ACQ, C_REL, C_NR };

static const struct ts_class classes[C_NR] = {
	[C_CACHE] = { "slub:cache_create", { { "format", TF_U8 }, WHERE,
		{ "geometry", TF_ARR32, 8 }, { "name", TF_STR } } },
	[C_SLAB_NEW] = { "slub:slab_new", { SLAB_WORD } },
	[C_TAKE] = { "slub:take_freelist", { SLAB_WORD } },
	[C_FREE_REMOTE] = { "slub:free_remote", { SLAB_WORD } },
	[C_FAIL] = { "slub:cmpxchg_fail", { WHERE, { "slab", TF_U64 }, { "words", TF_ARR64, 4 },
		{ "site", TF_U8 } } },
	[C_ACQ] = { "slub:lock_acquire", { WHERE, { "lock_seq", TF_U64 }, { "wait_ns", TF_U64 },
		{ "lock_id", TF_U32 } } },
	[C_REL] = { "slub:lock_release", { WHERE, { "lock_seq", TF_U64 }, { "hold_ns", TF_U64 },
		{ "lock_id", TF_U32 } } },
};

/* `where`: cache_id 0-15, cpu 16-31, node 32-39, flags 40-47 (locked 40,
 * contended 41), arg 48-63 (owner, attempt) */
#define W3(cache, cpu, flags, arg) \
	((uint64_t)(cache) | (uint64_t)(uint16_t)(cpu) << 16 | (uint64_t)(flags) << 40 | \
	 (uint64_t)(uint16_t)(arg) << 48)
#define CONTENDED 2

#define COUNTERS(inuse, objects, frozen, seq) \
	((uint64_t)(inuse) | (uint64_t)(objects) << 16 | (uint64_t)(frozen) << 31 | \
	 (uint64_t)(seq) << 32)
#define SLAB 0x7f0000010000ull
#define SITE_GET_FREELIST 2
#define SITE_SLAB_FREE 6
#define SITE_NEW_SLAB 8

static struct ts_item items[64];
static int nr_items;

static void add(int cls, uint64_t ts, int vtid, const uint64_t *v, int n)
{
	struct ts_item *it = &items[nr_items++];

	it->cls = cls;
	it->ts = ts;
	it->vpid = 500;
	it->vtid = vtid;
	memcpy(it->v, v, n * sizeof(*v));
}

static void script(void)
{
	/* object_size, size, align, order, objects, min_partial, cpu_partial,
	 * flags */
	static const uint64_t geometry[8] = { 64, 64, 8, 0, 64, 5, 30, 0 };
	static uint64_t words[6][4];	/* cmpxchg_fail: expected, then observed */
	uint64_t ts = 1000;

	add(C_CACHE, ts++, 501, (uint64_t[]){ 4, W3(3, 0, 0, 0), (uintptr_t)geometry,
					       (uintptr_t)"kmalloc-64" }, 4);
	add(C_SLAB_NEW, ts++, 501, (uint64_t[]){ W3(3, 1, 0, 1), SLAB, 0, COUNTERS(64, 64, 1, 1),
						  SITE_NEW_SLAB }, 5);
	for (uint32_t a = 1; a <= 6; a++) {
		uint64_t *w = words[a - 1];

		/* 502 takes the freelist (seq a+1); 503's free expected seq a */
		add(C_TAKE, ts++, 502, (uint64_t[]){ W3(3, 2, 0, 2), SLAB, 0,
						      COUNTERS(64, 64, 1, a + 1),
						      SITE_GET_FREELIST }, 5);
		w[0] = SLAB + 64;
		w[1] = COUNTERS(64, 64, 1, a);
		w[2] = 0;
		w[3] = COUNTERS(64, 64, 1, a + 1);
		add(C_FAIL, ts++, 503, (uint64_t[]){ W3(3, 3, 0, a), SLAB, (uintptr_t)w,
						      SITE_SLAB_FREE }, 4);
	}
	add(C_FREE_REMOTE, ts++, 503, (uint64_t[]){ W3(3, 3, 0, 2), SLAB, SLAB + 64,
						     COUNTERS(63, 64, 1, 8), SITE_SLAB_FREE }, 5);
	add(C_ACQ, ts++, 503, (uint64_t[]){ W3(3, 3, CONTENDED, 0), 1, 2500, 3 * 64 }, 4);
	add(C_REL, ts += 7000, 503, (uint64_t[]){ W3(3, 3, 0, 0), 1, 7000, 3 * 64 }, 4);
	items[nr_items].discard = 1;
	items[nr_items].ts = ts + 10;
	items[nr_items].discard_count = 17;
	items[nr_items].discard_begin = ts + 1;
	nr_items++;
}

static const bt_component_class_sink *stats_class(const char *so, const bt_plugin_set **set)
{
	if (bt_plugin_find_all_from_file(so, BT_FALSE, set) != BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK)
		return NULL;
	for (uint64_t i = 0; i < bt_plugin_set_get_plugin_count(*set); i++) {
		const bt_plugin *p = bt_plugin_set_borrow_plugin_by_index_const(*set, i);
		if (!strcmp(bt_plugin_get_name(p), "slub"))
			return bt_plugin_borrow_sink_component_class_by_name_const(p, "stats");
	}
	return NULL;
}

/* Runs the script into sink.slub.stats with params; the graph's status. */
static int run(const bt_component_class_sink *sink_cls, bt_value *params)
{
	struct ts_script s = { classes, C_NR, items, nr_items,
			       "/tmp/slub-test/trace/ust/uid/0/64-bit/slubtrace_0", 0 };
	bt_component_class_source *cls = testsrc_class();
	bt_graph *g = bt_graph_create(0);
	const bt_component_source *src;
	const bt_component_sink *sink;
	int st = -1;

	bt_graph_add_source_component_with_initialize_method_data(g, cls, "src", NULL, &s,
		BT_LOGGING_LEVEL_NONE, &src);
	if (bt_graph_add_sink_component(g, sink_cls, "stats", params, BT_LOGGING_LEVEL_NONE,
					&sink) == BT_GRAPH_ADD_COMPONENT_STATUS_OK &&
	    bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		st = bt_graph_run(g);
	bt_current_thread_clear_error();
	bt_graph_put_ref(g);
	bt_component_class_source_put_ref(cls);
	return st;
}

int main(int argc, char **argv)
{
	const bt_plugin_set *set = NULL;
	char path[] = "/tmp/test_plugin_stats.XXXXXX";
	char err[256];

	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}
	const bt_component_class_sink *cls = stats_class(argv[1], &set);
	if (!cls) {
		fprintf(stderr, "FAIL: no sink.slub.stats in %s\n", argv[1]);
		return 1;
	}
	script();
	close(mkstemp(path));

	bt_value *params = bt_value_map_create();
	bt_value_map_insert_string_entry(params, "format", "none");
	bt_value_map_insert_string_entry(params, "json-path", path);
	bt_value_map_insert_unsigned_integer_entry(params, "run-attempts", 4);
	CHECK(run(cls, params) == BT_GRAPH_RUN_STATUS_OK, "the graph failed");
	bt_value_put_ref(params);

	FILE *f = fopen(path, "r");
	char *json = calloc(1, 1 << 20);
	size_t n = f ? fread(json, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	CHECK(n > 0, "no JSON written");
	CHECK(strstr(json, "\"lower_bounds\":true") && strstr(json, "\"discarded_events\":17"),
	      "discarded events not reported");
	CHECK(strstr(json, "\"name\":\"kmalloc-64\"") != NULL, "cache name not decoded");
	CHECK(strstr(json, "\"cmpxchg_double_fail\":6,") != NULL, "6 failures not counted");
	CHECK(strstr(json, "\"attributed\":6,") != NULL, "failures not attributed to winners");
	CHECK(strstr(json, "\"kind\":\"run\"") && strstr(json, "\"attempts\":6") &&
	      strstr(json, "\"losers\":[{\"vtid\":503,\"count\":6,\"site\":\"__slab_free\"}]") &&
	      strstr(json, "\"winners\":[{\"vtid\":502,\"count\":6,\"site\":\"get_freelist\","
			   "\"event\":\"take_freelist\"}]"),
	      "run storm not reported with loser and winner:\n%s", strstr(json, "\"storms\""));
	CHECK(strstr(json, "\"list_lock_contended\":1") && strstr(json, "\"hold_ns\":7000"),
	      "lock figures missing");
	struct slub_tstats_result r;
	CHECK(slub_tstats_result_load(path, &r, err, sizeof(err)) == 0, "load: %s", err);
	slub_tstats_result_free(&r);

	/* A wrong parameter: the component refuses to be created. */
	params = bt_value_map_create();
	bt_value_map_insert_string_entry(params, "sections", "slabinfo,bogus");
	CHECK(run(cls, params) != BT_GRAPH_RUN_STATUS_OK, "sections=bogus accepted");
	bt_value_put_ref(params);
	params = bt_value_map_create();
	bt_value_map_insert_string_entry(params, "no-such-parameter", "1");
	CHECK(run(cls, params) != BT_GRAPH_RUN_STATUS_OK, "an unknown parameter accepted");
	bt_value_put_ref(params);

	unlink(path);
	free(json);
	bt_plugin_set_put_ref(set);
	printf("test_plugin_stats: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
