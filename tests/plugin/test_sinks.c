/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.check and sink.slub.timeline, in-process: the plugin is loaded
 * from the build tree, fed by the scripted source (one life of a slab, or
 * a variation of it), and its output (captured from standard output), its
 * result and its error causes are checked.
 *
 *   test_plugin_sinks PLUGIN_DIR
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scripts.h"
#include "slub-plugin.h"

static int failures;
static const char *plugin_dir;

#define CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			failures++;						\
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
		}								\
	} while (0)

struct outcome {
	bt_graph_run_status status;
	struct slub_plugin_result res;
	char *out;		/* what the sink printed */
	char cause[2048];	/* every error cause, joined */
};

static const bt_plugin *slub_plugin(void)
{
	static const bt_plugin_set *set;
	char path[4096];

	if (!set) {
		snprintf(path, sizeof(path), "%s/babeltrace-plugin-slub.so", plugin_dir);
		if (bt_plugin_find_all_from_file(path, BT_TRUE, &set) !=
		    BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK) {
			fprintf(stderr, "cannot load %s\n", path);
			exit(1);
		}
	}
	return bt_plugin_set_borrow_plugin_by_index_const(set, 0);
}

static void take_causes(char *buf, size_t len)
{
	const bt_error *err = bt_current_thread_take_error();
	size_t o = 0;

	buf[0] = '\0';
	if (!err)
		return;
	for (uint64_t i = 0; i < bt_error_get_cause_count(err); i++) {
		const char *m = bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i));
		int w = snprintf(buf + o, len - o, "%s | ", m);

		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
	bt_error_release(err);
}

/* Runs script -> sink.slub.<sink> with params; output captured. */
/* > 0: interrupt the graph after that many sink batches, as slubtrace's
 * ^C does (the result's stop flag and the graph's interrupter). */
static unsigned interrupt_after;

static void run(const struct ts_script *script, const char *sink, bt_value *params,
		struct outcome *o)
{
	bt_component_class_source *src_cls = testsrc_class();
	const bt_component_class_sink *sink_cls =
		bt_plugin_borrow_sink_component_class_by_name_const(slub_plugin(), sink);
	bt_graph *g = bt_graph_create(0);
	const bt_component_source *src;
	const bt_component_sink *snk;
	char tmpl[] = "/tmp/slub-sink-out-XXXXXX";
	int fd = mkstemp(tmpl), saved = dup(STDOUT_FILENO);
	long size;
	FILE *f;

	memset(o, 0, sizeof(*o));
	o->res.magic = SLUB_PLUGIN_RESULT_MAGIC;
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);	/* the sink writes on a dup of fd 1 */
	bt_graph_add_source_component_with_initialize_method_data(g, src_cls, "src", NULL,
		(void *)script, BT_LOGGING_LEVEL_NONE, &src);
	if (bt_graph_add_sink_component_with_initialize_method_data(g, sink_cls, "sink", params,
			&o->res, BT_LOGGING_LEVEL_NONE, &snk) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		o->status = BT_GRAPH_RUN_STATUS_ERROR;
	} else {
		bt_graph_connect_ports(g,
			bt_component_source_borrow_output_port_by_index_const(src, 0),
			bt_component_sink_borrow_input_port_by_index_const(snk, 0), NULL);
		if (interrupt_after) {
			bt_interrupter *intr = bt_graph_borrow_default_interrupter(g);

			for (unsigned i = 0; i < interrupt_after; i++)
				bt_graph_run_once(g);
			o->res.stop = 1;
			bt_interrupter_set(intr);
			o->status = bt_graph_run(g);
			CHECK(o->status == BT_GRAPH_RUN_STATUS_AGAIN, "interrupted graph: %d",
			      o->status);
			bt_interrupter_reset(intr);
		}
		o->status = bt_graph_run(g);
	}
	take_causes(o->cause, sizeof(o->cause));
	bt_graph_put_ref(g);	/* finalizes the sink: its output is flushed */
	bt_component_class_source_put_ref(src_cls);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	o->out = calloc(1, (size_t)size + 1);
	if (fread(o->out, 1, (size_t)size, f) != (size_t)size)
		o->out[0] = '\0';
	fclose(f);
	unlink(tmpl);
}

static const char *last_line(const char *s)
{
	const char *end = s + strlen(s), *p;

	while (end > s && end[-1] == '\n')
		end--;
	for (p = end; p > s && p[-1] != '\n'; p--)
		;
	return p;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* ---- check ---- */

/*
 * Two hosts with the same vpid, cache id and slab address, their events
 * interleaved by the muxer: alpha loses an update, beta is clean.  The
 * model must keep them apart (one violation, alpha's), and every line of
 * the report says whose it is.
 */
static void test_hosts(void)
{
	const bt_plugin *utils = NULL;
	bt_component_class_source *src_cls = testsrc_class();
	const bt_component_sink *snk;
	const bt_component_filter *mux;
	const bt_component_source *src[2];
	struct ts_script s[2];
	struct ts_item *copy;
	struct outcome o;
	char tmpl[] = "/tmp/slub-sink-out-XXXXXX";
	int fd = mkstemp(tmpl), saved = dup(STDOUT_FILENO);
	bt_graph *g = bt_graph_create(0);
	long size;
	FILE *f;

	script_life(&s[0], LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	copy = malloc((size_t)s[0].nr_items * sizeof(*copy));
	memcpy(copy, s[0].items, (size_t)s[0].nr_items * sizeof(*copy));
	s[0].items = copy;
	s[0].hostname = "alpha";
	script_life(&s[1], LIFE_CLEAN, 0, 0, 0, NULL);
	s[1].hostname = "beta";
	memset(&o, 0, sizeof(o));
	o.res.magic = SLUB_PLUGIN_RESULT_MAGIC;
	if (bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		CHECK(0, "babeltrace2's utils plugin (the muxer) was not found");
		return;
	}
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	bt_graph_add_filter_component(g,
		bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"), "mux",
		NULL, BT_LOGGING_LEVEL_NONE, &mux);
	for (int i = 0; i < 2; i++) {
		char name[8];

		snprintf(name, sizeof(name), "src%d", i);
		bt_graph_add_source_component_with_initialize_method_data(g, src_cls, name, NULL,
			&s[i], BT_LOGGING_LEVEL_NONE, &src[i]);
		bt_graph_connect_ports(g,
			bt_component_source_borrow_output_port_by_index_const(src[i], 0),
			bt_component_filter_borrow_input_port_by_index_const(mux, (uint64_t)i),
			NULL);
	}
	bt_graph_add_sink_component_with_initialize_method_data(g,
		bt_plugin_borrow_sink_component_class_by_name_const(slub_plugin(), "check"), "sink",
		NULL, &o.res, BT_LOGGING_LEVEL_NONE, &snk);
	bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
			       bt_component_sink_borrow_input_port_by_index_const(snk, 0), NULL);
	o.status = bt_graph_run(g);
	take_causes(o.cause, sizeof(o.cause));
	bt_graph_put_ref(g);
	bt_component_class_source_put_ref(src_cls);
	bt_plugin_put_ref(utils);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	o.out = calloc(1, (size_t)size + 1);
	if (fread(o.out, 1, (size_t)size, f) != (size_t)size)
		o.out[0] = '\0';
	fclose(f);
	unlink(tmpl);

	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "status %d: %s", o.status, o.cause);
	CHECK(o.res.violations == 1, "two hosts, one lost update: %llu violations:\n%s",
	      (unsigned long long)o.res.violations, o.out);
	CHECK(strstr(o.out, "[alpha] violation 1: R5-word-chain: "), "not alpha's:\n%s", o.out);
	CHECK(strstr(o.out, "[alpha]   process 4242, thread 11"),
	      "the process line: labelled, the host's own vpid:\n%s", o.out);
	CHECK(!strstr(o.out, "[beta] violation"), "a violation of beta:\n%s", o.out);
	CHECK(strstr(o.out, "[alpha] host verdict: VIOLATIONS: ") &&
	      strstr(o.out, "[beta] host verdict: clean: "), "verdicts per host:\n%s", o.out);
	CHECK(!strncmp(last_line(o.out), "verdict: VIOLATIONS: ", 21) &&
	      strstr(last_line(o.out), " 2 slabs, 1 violations"), "verdict: %s", last_line(o.out));
	for (const char *l = o.out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		CHECK(*l == '[' || *l == '\n' || !strncmp(l, "verdict: ", 9),
		      "an unlabelled line: %.60s", l);
	free(o.out);
	free(copy);
}

static void test_clean(void)
{
	struct ts_script s;
	struct outcome o;

	script_life(&s, LIFE_CLEAN, 0, 0, 0, NULL);
	run(&s, "check", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "status %d: %s", o.status, o.cause);
	CHECK(o.res.violations == 0 && o.res.events == (uint64_t)s.nr_items,
	      "violations %llu, events %llu of %d", (unsigned long long)o.res.violations,
	      (unsigned long long)o.res.events, s.nr_items);
	CHECK(o.res.slabs == 1, "slabs %llu", (unsigned long long)o.res.slabs);
	CHECK(!strncmp(last_line(o.out), "verdict: clean: ", 16) &&
	      strstr(last_line(o.out), " 0 violations, 0 gaps"), "verdict: %s", last_line(o.out));
	CHECK(!strstr(o.out, "violation 1"), "a report on a clean life:\n%s", o.out);
	free(o.out);
}

static void test_lost_update(void)
{
	struct ts_script s;
	struct outcome o;

	script_life(&s, LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	run(&s, "check", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "status %d: %s", o.status, o.cause);
	CHECK(o.res.violations >= 1, "a lost update passed:\n%s", o.out);
	CHECK(strstr(o.out, "violation 1: R5-word-chain: "), "no R5-word-chain report:\n%s", o.out);
	CHECK(strstr(o.out, "slab 0x7f0000010000, cache test-64 (id 1)"), "slab/cache:\n%s", o.out);
	CHECK(strstr(o.out, "process 4242, thread 11"), "process/thread:\n%s", o.out);
	CHECK(strstr(o.out, "the slab's last ") && strstr(o.out, "offending event:"),
	      "history and offending event:\n%s", o.out);
	CHECK(!strncmp(last_line(o.out), "verdict: VIOLATIONS: ", 21), "verdict: %s",
	      last_line(o.out));
	free(o.out);

	/* fail-on-violation: the graph ends in error, with a cause saying why */
	{
		bt_value *p = bt_value_map_create();

		bt_value_map_insert_bool_entry(p, "fail-on-violation", BT_TRUE);
		run(&s, "check", p, &o);
		bt_value_put_ref(p);
		CHECK(o.status == BT_GRAPH_RUN_STATUS_ERROR, "fail-on-violation: status %d",
		      o.status);
		CHECK(strstr(o.cause, "violation(s) of the SLUB invariants"), "cause: %s", o.cause);
		CHECK(!strncmp(last_line(o.out), "verdict: VIOLATIONS", 19),
		      "the verdict is printed before failing: %s", last_line(o.out));
		free(o.out);
	}
}

static void test_lost_noticed(void)
{
	struct ts_script s;
	struct outcome o;

	script_life(&s, LIFE_LOST_NOTICED, 0, 0, 0, NULL);
	run(&s, "check", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "status %d: %s", o.status, o.cause);
	CHECK(o.res.violations == 0, "a noticed gap raised a violation:\n%s", o.out);
	CHECK(o.res.gaps == 1, "gaps %llu", (unsigned long long)o.res.gaps);
	CHECK(strstr(last_line(o.out), " 0 violations, 1 gaps (1 events discarded"),
	      "verdict: %s", last_line(o.out));
	free(o.out);
}

/*
 * The notice comes from a stream of LTTng-UST's own events (record's
 * statedump channel): no slub event was lost, and the verdict and the
 * stats say so; the model still does not judge over it (a lost
 * registration marker may hide a process's untraced start), so the lost
 * update the script also leaves out stays unjudged.
 */
static void test_lost_foreign(void)
{
	struct ts_script s;
	struct outcome o;

	script_life(&s, LIFE_LOST_FOREIGN, 0, 0, 0, NULL);
	run(&s, "check", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "status %d: %s", o.status, o.cause);
	CHECK(o.res.violations == 0, "a gap under a foreign notice raised a violation:\n%s", o.out);
	CHECK(o.res.gaps == 1, "gaps %llu", (unsigned long long)o.res.gaps);
	CHECK(strstr(last_line(o.out), " 0 violations, 1 gaps (3 of LTTng-UST's own events "
		     "discarded, no slub event among them)"), "verdict: %s", last_line(o.out));
	CHECK(!strstr(last_line(o.out), "resynchronised"), "verdict counts slub losses: %s",
	      last_line(o.out));
	free(o.out);

	run(&s, "stats", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "stats status %d: %s", o.status, o.cause);
	CHECK(o.out && !strstr(o.out, "lower bound"), "stats call its figures lower bounds:\n%s",
	      o.out ? o.out : "");
	CHECK(o.out && strstr(o.out, "(3 of LTTng-UST's own events discarded, no slub event among "
			       "them)"), "stats do not count the foreign loss:\n%s",
	      o.out ? o.out : "");
	free(o.out);
}

/*
 * window-begin/window-end: the input is a window cut out of a longer run
 * (a snapshot's).  The lost update of LIFE_LOST_UPDATE leaves a gap open
 * from the event after it (about 1.000017 s) to the end of the life (about
 * 1.000030 s).  Cut just after the life, the missing update's event may
 * lie after the cut: counted, said in the verdict, not judged.  Cut 100 ms
 * later, or with a lag shorter than the gap's distance to the cut, it is
 * a lost update.
 */
static void cut_run(const struct ts_script *s, uint64_t begin, uint64_t end, uint64_t lag,
		    struct outcome *o)
{
	bt_value *p = bt_value_map_create();

	bt_value_map_insert_unsigned_integer_entry(p, "window-begin", begin);
	bt_value_map_insert_unsigned_integer_entry(p, "window-end", end);
	if (lag)
		bt_value_map_insert_unsigned_integer_entry(p, "window-lag-ns", lag);
	run(s, "check", p, o);
	bt_value_put_ref(p);
}

static void test_window_edges(void)
{
	struct ts_script s;
	struct outcome o;
	uint64_t first, last;

	script_life(&s, LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	first = s.items[0].ts;
	last = s.items[s.nr_items - 1].ts;

	cut_run(&s, first - 1000000000ull, last + 1000, 0, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "status %d: %s", o.status, o.cause);
	CHECK(o.res.violations == 0, "a gap open at the window's end was judged:\n%s", o.out);
	CHECK(strstr(last_line(o.out), " 0 violations, 0 gaps, 1 seq gap within 50 ms of the "
				       "window's edges not judged"),
	      "the verdict does not say the gap: %s", last_line(o.out));
	free(o.out);

	cut_run(&s, first - 1000000000ull, last + 100000000, 0, &o);
	CHECK(o.res.violations == 1 && strstr(o.out, "violation 1: R5-word-chain: "),
	      "a gap 100 ms before the window's end was excused:\n%s", o.out);
	free(o.out);

	cut_run(&s, first - 1000000000ull, last + 1000, 2000, &o);
	CHECK(o.res.violations == 1 && strstr(o.out, "violation 1: R5-word-chain: "),
	      "a gap further than the lag from the window's end was excused:\n%s", o.out);
	free(o.out);

	/* the slab's events before the gap within the lag after the start */
	cut_run(&s, first - 1000, last + 100000000, 0, &o);
	CHECK(o.res.violations == 0 && strstr(last_line(o.out), "1 seq gap within 50 ms"),
	      "a gap just after the window's start was judged:\n%s", o.out);
	free(o.out);
}

__attribute__((noinline)) static uint64_t where_am_i(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

struct self_map {
	uint64_t base, memsz;
};

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self_map *m = arg;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		lo = ph->p_vaddr < lo ? ph->p_vaddr : lo;
		hi = ph->p_vaddr + ph->p_memsz > hi ? ph->p_vaddr + ph->p_memsz : hi;
	}
	m->base = info->dlpi_addr + lo;
	m->memsz = hi - lo;
	return 1;
}

static void test_stack(void)
{
	struct ts_script s;
	struct outcome o;
	struct self_map m = { 0 };
	char exe[4096] = "";
	uint64_t ip = where_am_i();	/* a return address in test_stack() */

	if (readlink("/proc/self/exe", exe, sizeof(exe) - 1) < 0)
		exe[0] = '\0';
	dl_iterate_phdr(find_self, &m);
	script_life(&s, LIFE_LOST_STACK, ip, m.base, m.memsz, exe);
	run(&s, "check", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "status %d: %s", o.status, o.cause);
	CHECK(strstr(o.out, "stack of the offending event:"), "no stack:\n%s", o.out);
	CHECK(strstr(o.out, "test_stack+0x") && strstr(o.out, "test_sinks.c:"),
	      "the stack is not symbolized to test_stack at test_sinks.c:\n%s", o.out);
	free(o.out);
}

static void test_bad_input(void)
{
	static const struct ts_class bad[] = {
		{ "slub:freeze", { { "cache_id", TF_U16 }, { "cpu", TF_I16 }, { "node", TF_U8 },
			{ "slab", TF_U64 } } },
	};
	static const struct ts_item items[] = { { 0, 1000, 1, 1, { 1, 0, 0, LIFE_SLAB } } };
	struct ts_script s = { bad, 1, items, 1, "/tmp/t/ust/uid/0/64-bit/chan_0", 0, 0 };
	struct outcome o;

	run(&s, "check", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_ERROR, "a malformed event passed");
	CHECK(o.res.unusable == SLUB_UNUSABLE_MALFORMED, "unusable %u", o.res.unusable);
	CHECK(strstr(o.cause, "slub:freeze") && strstr(o.cause, "/tmp/t/ust/uid/0/64-bit/chan_0") &&
	      strstr(o.cause, "`site`"), "error cause: %s", o.cause);
	free(o.out);

	/* Slub event classes but only another provider's events (a window
	 * that holds none of them): a verdict on zero events, which the
	 * in-process caller is told is no usable input.  A trace without any
	 * slub event class stays an error (empty_window.sh, badinput.sh). */
	script_life(&s, LIFE_OTHER_ONLY, 0, 0, 0, NULL);
	run(&s, "check", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK && o.res.unusable == SLUB_UNUSABLE_NO_EVENTS,
	      "slub classes, no slub event: status %d, unusable %u", o.status, o.res.unusable);
	CHECK(o.out && strstr(o.out, "verdict: clean: 0 events"), "output: %s", o.out);
	CHECK(strstr(o.res.message, "no slub event"), "message: %s", o.res.message);
	free(o.out);

	/* unknown parameters are refused */
	{
		bt_value *p = bt_value_map_create();

		bt_value_map_insert_bool_entry(p, "fail-on-violations", BT_TRUE);
		script_life(&s, LIFE_CLEAN, 0, 0, 0, NULL);
		run(&s, "check", p, &o);
		bt_value_put_ref(p);
		CHECK(o.status == BT_GRAPH_RUN_STATUS_ERROR &&
			      strstr(o.cause, "unexpected key `fail-on-violations`"),
		      "a misspelt parameter passed, or was not named: %s", o.cause);
		free(o.out);
	}
}

/* ---- timeline ---- */

static void test_timeline(void)
{
	struct ts_script s;
	struct outcome o;
	bt_value *p;
	size_t lines, json;

	script_life(&s, LIFE_CLEAN, 0, 0, 0, NULL);
	run(&s, "timeline", NULL, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "status %d: %s", o.status, o.cause);
	lines = count(o.out, "\n");
	CHECK(lines >= 10 && lines == o.res.transitions, "%zu lines, %llu transitions", lines,
	      (unsigned long long)o.res.transitions);
	CHECK(strstr(o.out, "freeze") && strstr(o.out, "NODE_PARTIAL -> CPU_ACTIVE"),
	      "acquire_slab's freeze not shown:\n%s", o.out);
	CHECK(strstr(o.out, "-> DISCARDED"), "discard not shown:\n%s", o.out);
	free(o.out);

	p = bt_value_map_create();
	bt_value_map_insert_bool_entry(p, "json", BT_TRUE);
	bt_value_map_insert_signed_integer_entry(p, "tid", 12);
	run(&s, "timeline", p, &o);
	bt_value_put_ref(p);
	json = count(o.out, "{\"ts\":");
	CHECK(json > 0 && json == count(o.out, "\n") && json < lines &&
	      count(o.out, "\"vtid\":12,") == json, "tid filter / JSON:\n%s", o.out);
	free(o.out);

	p = bt_value_map_create();
	bt_value_map_insert_string_entry(p, "slab", "0x1234");
	run(&s, "timeline", p, &o);
	bt_value_put_ref(p);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK && o.out[0] == '\0', "slab filter:\n%s", o.out);
	free(o.out);

	p = bt_value_map_create();
	bt_value_map_insert_string_entry(p, "cache", "test-64");
	bt_value_map_insert_string_entry(p, "begin", "1.000010");
	bt_value_map_insert_unsigned_integer_entry(p, "end", 1000015000ull);
	run(&s, "timeline", p, &o);
	bt_value_put_ref(p);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK && count(o.out, "\n") >= 1 &&
	      count(o.out, "\n") <= 6, "time range:\n%s", o.out);
	free(o.out);
}

/* ---- parameters: one table per component, the same checks everywhere ---- */

/* sink with one parameter set by add(): refused, the cause holding want. */
static void refused(const char *sink, void (*add)(bt_value *), const char *want)
{
	struct ts_script s;
	struct outcome o;
	bt_value *p = bt_value_map_create();

	add(p);
	script_life(&s, LIFE_CLEAN, 0, 0, 0, NULL);
	run(&s, sink, p, &o);
	bt_value_put_ref(p);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_ERROR && strstr(o.cause, want),
	      "sink.slub.%s: status %d, cause \"%s\" lacks \"%s\"", sink, o.status, o.cause,
	      want);
	free(o.out);
}

static void big_reorder_events(bt_value *p)
{
	bt_value_map_insert_unsigned_integer_entry(p, "reorder-events", 5000000000ull);
}

static void big_history(bt_value *p)
{
	bt_value_map_insert_unsigned_integer_entry(p, "history", 2000);
}

static void typo_history(bt_value *p)
{
	bt_value_map_insert_unsigned_integer_entry(p, "histroy", 8);
}

static void bad_format(bt_value *p)
{
	bt_value_map_insert_string_entry(p, "format", "xml");
}

static void string_reorder_ns(bt_value *p)
{
	bt_value_map_insert_string_entry(p, "reorder-ns", "1ms");
}

static void test_params(void)
{
	/* reorder-events is a 32-bit count in the model: every sink that
	 * takes it refuses more, none cuts it */
	refused("check", big_reorder_events,
		"parameter `reorder-events`: from 0 to 4294967295, not 5000000000");
	refused("timeline", big_reorder_events,
		"parameter `reorder-events`: from 0 to 4294967295, not 5000000000");
	refused("report", big_reorder_events,
		"parameter `reorder-events`: from 0 to 4294967295, not 5000000000");
	refused("check", big_history, "parameter `history`: from 0 to 1024, not 2000");
	refused("report", big_history, "parameter `history`: from 0 to 1024, not 2000");
	refused("check", typo_history, "unexpected key `histroy`");
	refused("timeline", typo_history, "unexpected key `histroy`");
	refused("stats", typo_history, "unexpected key `histroy`");
	refused("top", typo_history, "unexpected key `histroy`");
	refused("timeline", bad_format,
		"parameter `format`: \"text\", \"json\" or \"chrome\", not \"xml\"");
	refused("stats", bad_format,
		"parameter `format`: \"text\", \"json\" or \"none\", not \"xml\"");
	refused("top", bad_format, "parameter `format`: \"text\" or \"screen\", not \"xml\"");
	refused("check", string_reorder_ns, "parameter `reorder-ns`: expected a non-negative integer");
}

/* ^C: the sink ends at its next batch with the verdict of what it read. */
static void test_interrupted(void)
{
	struct ts_script s;
	struct outcome o;

	script_life(&s, LIFE_CLEAN, 0, 0, 0, NULL);
	interrupt_after = 1;
	run(&s, "check", NULL, &o);
	interrupt_after = 0;
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK && o.res.stop == 2, "status %d, stop %d: %s",
	      o.status, (int)o.res.stop, o.cause);
	CHECK(o.res.events > 0 && o.res.events < (uint64_t)s.nr_items,
	      "interrupted after one batch: %llu events of %d", (unsigned long long)o.res.events,
	      s.nr_items);
	CHECK(!strncmp(last_line(o.out), "verdict: clean: ", 16), "verdict: %s", last_line(o.out));
	free(o.out);
}

/* top: a lock released in an interval where its cache does nothing else
 * (taken in an earlier one) still gives the cache a row, with the hold.
 * The storm script, its hold set to 4 us, in 1 us intervals: the release
 * at 2.000018 s is alone in its interval. */
static void test_top_hold(void)
{
	struct ts_script s;
	struct ts_item *items;
	struct outcome o;
	bt_value *p = bt_value_map_create();
	char want[128];
	const char *row;
	size_t len;
	int released = 0;

	script_storm(&s);
	items = calloc((size_t)s.nr_items, sizeof(*items));
	if (!items || !p) {
		CHECK(0, "no memory");
		return;
	}
	memcpy(items, s.items, (size_t)s.nr_items * sizeof(*items));
	for (int i = 0; i < s.nr_items; i++)
		if (items[i].cls == W_LOCK_RELEASE && items[i].ts == 2000018000ull) {
			items[i].v[2] = 4000;	/* hold_ns, format 4 */
			released++;
		}
	CHECK(released == 1, "the storm script's release at 2.000018 s: %d found", released);
	s.items = items;
	bt_value_map_insert_unsigned_integer_entry(p, "interval-ns", 1000);
	bt_value_map_insert_bool_entry(p, "counts", BT_TRUE);
	run(&s, "top", p, &o);
	CHECK(o.status == BT_GRAPH_RUN_STATUS_OK, "top: status %d: %s", o.status, o.cause);
	snprintf(want, sizeof(want), "\n2.000018000 test-64 ");
	row = o.out ? strstr(o.out, want) : NULL;
	CHECK(row, "top: no row for test-64 in the interval of the lone release:\n%s",
	      o.out ? o.out : "");
	if (row) {
		row++;
		len = strcspn(row, "\n");
		CHECK(len > 5 && !strncmp(row + len - 5, " 4000", 5),
		      "top: the lone release's row does not end with its hold 4000: %.*s",
		      (int)len, row);
	}
	bt_value_put_ref(p);
	free(o.out);
	free(items);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_plugin_sinks PLUGIN_DIR\n");
		return 2;
	}
	plugin_dir = argv[1];
	test_clean();
	test_interrupted();
	test_lost_update();
	test_lost_noticed();
	test_lost_foreign();
	test_window_edges();
	test_stack();
	test_bad_input();
	test_timeline();
	test_params();
	test_hosts();
	test_top_hold();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("sink.slub.check and sink.slub.timeline: all checks passed\n");
	return 0;
}
