/* SPDX-License-Identifier: MIT */
/*
 * The trace processing graph of `slubtrace check` and `slubtrace timeline`,
 * built in-process with libbabeltrace2:
 *
 *   src.ctf.fs (one per trace directory) -> flt.utils.muxer -> sink.slub.NAME
 *
 * Trace directories are found below TRACE_DIR as babeltrace2 finds them: a
 * directory holding a `metadata` file is one CTF trace (an LTTng session
 * directory holds one per buffer scheme, ABI and user or process).
 *
 * The slub plugin is loaded from $SLUBTRACE_PLUGIN_PATH, else next to the
 * executable (the install layout, then the build tree), else from
 * babeltrace2's own plugin directories.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"

#define MAX_TRACE_DEPTH 16

struct trace_list {
	char **dirs;
	size_t nr, cap;
};

static int add_dir(struct trace_list *l, const char *dir)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		char **n = realloc(l->dirs, cap * sizeof(*n));

		if (!n)
			return -1;
		l->dirs = n;
		l->cap = cap;
	}
	l->dirs[l->nr] = strdup(dir);
	return l->dirs[l->nr] ? (int)l->nr++ * 0 : -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The first directory that could not be listed, said when no trace is
 * found (an unreadable trace is not a missing one). */
static char unlisted[PATH_MAX];
static int unlisted_errno;

static int find_traces(const char *dir, int depth, struct trace_list *l)
{
	char path[PATH_MAX];
	struct stat st;
	struct dirent *e;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s/metadata", dir) < (int)sizeof(path) &&
	    stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return add_dir(l, dir);
	if (depth >= MAX_TRACE_DEPTH)
		return 0;
	d = opendir(dir);
	if (!d) {
		if (!unlisted_errno) {
			unlisted_errno = errno;
			snprintf(unlisted, sizeof(unlisted), "%s", dir);
		}
		return 0;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && find_traces(path, depth + 1, l) < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static void free_traces(struct trace_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->dirs[i]);
	free(l->dirs);
}

/*
 * ^C while a graph runs: the graph's interrupter stops it at once (a live
 * source waiting for data too), and the sink is told to end as at the end
 * of its input, so the command prints the results of what was read and
 * exits with 130.  A second ^C kills as usual.
 */
static bt_interrupter *run_interrupter;
static struct slub_plugin_result *run_result;

static void on_interrupt(int sig)
{
	(void)sig;
	if (run_result)
		run_result->stop = 1;
	if (run_interrupter)
		bt_interrupter_set(run_interrupter);
	signal(SIGINT, SIG_DFL);
}

/* Catches SIGINT for the graph, unless the command has its own handler
 * (top, record). */
static bool catch_interrupt(bt_graph *g, struct slub_plugin_result *res)
{
	struct sigaction old, sa = { 0 };

	if (sigaction(SIGINT, NULL, &old) < 0 || old.sa_handler != SIG_DFL)
		return false;
	run_interrupter = bt_graph_borrow_default_interrupter(g);
	run_result = res;
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGINT, &sa, NULL) == 0;
}

static void release_interrupt(bool caught)
{
	if (caught)
		signal(SIGINT, SIG_DFL);
	run_interrupter = NULL;
	run_result = NULL;
}

/* ---- progress on a terminal ----------------------------------------------- */

#define PROGRESS_EVERY_NS 250000000ull	/* a line four times a second */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The graph run batch by batch, with a line on stderr (a terminal) saying
 * how far into the traces by bytes when every stream has its index file
 * (progress.c: the packets begun by the time of the latest message the
 * sink saw), and the messages read and the rate; from the first batch on,
 * then four times a second; the line is erased at the end.  ^C is handled
 * as by the plain loop. */
static bt_graph_run_status run_with_progress(bt_graph *g, struct slub_plugin_result *res,
					     const struct trace_list *traces)
{
	struct cli_progress prog;
	bool known = cli_progress_load(&prog, traces->dirs, traces->nr) == 0;
	char line[160];
	uint64_t start = now_ns(), last = 0;
	bool shown = false;

	for (;;) {
		bt_graph_run_once_status st = bt_graph_run_once(g);
		uint64_t t;

		if (st == BT_GRAPH_RUN_ONCE_STATUS_END)
			break;
		if (st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN) {
			struct timespec ts = { 0, 1000000 };

			if (res->stop == 1)
				bt_interrupter_reset(bt_graph_borrow_default_interrupter(g));
			else
				nanosleep(&ts, NULL);
		} else if (st != BT_GRAPH_RUN_ONCE_STATUS_OK) {
			if (shown)
				fputs("\r\033[K", stderr);
			if (known)
				cli_progress_free(&prog);
			return st == BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR ?
				BT_GRAPH_RUN_STATUS_MEMORY_ERROR : BT_GRAPH_RUN_STATUS_ERROR;
		}
		t = now_ns();
		if (t - last >= PROGRESS_EVERY_NS) {
			cli_progress_line(line, sizeof(line), known ? &prog : NULL, res->last_ns,
					  res->messages, t > start ?
					  (double)res->messages * 1e9 / (double)(t - start) : 0.0);
			fprintf(stderr, "\r\033[K%s", line);
			shown = true;
			last = t;
		}
	}
	if (shown)
		fputs("\r\033[K", stderr);
	if (known)
		cli_progress_free(&prog);
	return BT_GRAPH_RUN_STATUS_OK;
}

/* -v/-q: the level of every component the graph creates. */
static bt_logging_level cli_bt_log_level(void)
{
	return (bt_logging_level)cli_log_level();
}

/* ---- plugins -------------------------------------------------------------- */

static const bt_plugin *load_slub_from(const char *dir, const bt_plugin_set **keep)
{
	char path[PATH_MAX];
	const bt_plugin_set *set = NULL;

	if (snprintf(path, sizeof(path), "%s/babeltrace-plugin-slub.so", dir) >= (int)sizeof(path))
		return NULL;
	if (access(path, R_OK) != 0)
		return NULL;
	if (bt_plugin_find_all_from_file(path, BT_FALSE, &set) != BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK)
		return NULL;
	for (uint64_t i = 0; i < bt_plugin_set_get_plugin_count(set); i++) {
		const bt_plugin *p = bt_plugin_set_borrow_plugin_by_index_const(set, i);

		if (!strcmp(bt_plugin_get_name(p), "slub")) {
			*keep = set;
			return p;
		}
	}
	bt_plugin_set_put_ref(set);
	return NULL;
}

static const bt_plugin *load_slub(const bt_plugin_set **set, const bt_plugin **found)
{
	const char *env = getenv("SLUBTRACE_PLUGIN_PATH");
	char exe[PATH_MAX], dir[PATH_MAX * 2];
	const char *rel[] = { SLUBTRACE_INSTALL_REL_PLUGINDIR, SLUBTRACE_BUILD_REL_PLUGIN };
	const bt_plugin *p;

	*set = NULL;
	*found = NULL;
	if (env && *env)
		return load_slub_from(env, set);
	if (cli_exe_dir(exe, sizeof(exe)) == 0) {
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			snprintf(dir, sizeof(dir), "%s/%s", exe, rel[i]);
			p = load_slub_from(dir, set);
			if (p)
				return p;
		}
	}
	if (bt_plugin_find("slub", BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, BT_FALSE, found) ==
	    BT_PLUGIN_FIND_STATUS_OK)
		return *found;
	return NULL;
}

/* ---- errors ---------------------------------------------------------------- */

/*
 * One line out of Babeltrace's error causes; newlines become "; ".  What is
 * meant for Babeltrace's developers goes: the "key=value, ..." details
 * after the message (object addresses), and the muxer's words for
 * timestamps going back.
 */
static void error_line(char *buf, size_t len)
{
	const bt_error *err = bt_current_thread_take_error();
	uint64_t n;
	const char *msg = NULL;
	char *cut;
	size_t o = 0;

	buf[0] = '\0';
	if (!err)
		return;
	n = bt_error_get_cause_count(err);
	/* Cause 0 was appended first: the deepest, what actually went wrong
	 * (the others say where it surfaced). */
	if (n)
		msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, 0));
	for (const char *p = msg ? msg : ""; *p && o + 3 < len; p++) {
		if (*p == '\n') {
			buf[o++] = ';';
			buf[o++] = ' ';
		} else {
			buf[o++] = *p;
		}
	}
	buf[o] = '\0';
	bt_error_release(err);
	cut = strstr(buf, "addr=0x");
	if (cut) {
		while (cut > buf && !(cut[0] == ':' && cut[1] == ' '))
			cut--;
		*cut = '\0';
	}
	if (strstr(buf, "timestamp is less than muxer"))
		snprintf(buf, len, "an event is older than the one before it (the timestamps go "
			 "back): the stream is corrupted");
	else if (!strncmp(buf, "Invalid CTF magic number", 24))
		snprintf(buf, len, "a packet header does not start with CTF's magic number: "
			 "the stream is corrupted");
}

/* ---- the graph ---------------------------------------------------------------- */

/* Each stream (port) of src through its own filter.slubtrace.watch, named
 * after the stream file, to the muxer. */
static int connect_all(bt_graph *g, const bt_component_source *src, size_t nr,
		       const bt_component_class_filter *watch_cls, const bt_component_filter *mux)
{
	uint64_t n = bt_component_source_get_output_port_count(src);

	for (uint64_t i = 0; i < n; i++) {
		const bt_port_output *out = bt_component_source_borrow_output_port_by_index_const(src, i);
		/* The muxer always has one free input port: its last. */
		uint64_t in_nr = bt_component_filter_get_input_port_count(mux);
		const bt_port_input *in =
			bt_component_filter_borrow_input_port_by_index_const(mux, in_nr - 1);
		const bt_component_filter *w;
		const char *port = bt_port_get_name(bt_port_output_as_port_const(out));
		const char *file = cli_stream_file(port);
		char name[64];

		snprintf(name, sizeof(name), "watch-%zu-%" PRIu64, nr, i);
		if (bt_graph_add_filter_component_with_initialize_method_data(g, watch_cls, name,
				NULL, (void *)(file ? file : port),
				cli_bt_log_level(), &w) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
		    bt_graph_connect_ports(g, out,
				bt_component_filter_borrow_input_port_by_index_const(w, 0), NULL) !=
		    BT_GRAPH_CONNECT_PORTS_STATUS_OK ||
		    bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(w, 0),
					   in, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return -1;
	}
	return 0;
}

/* The traces to read: a live session's URLs (net://, separated by spaces),
 * or every CTF trace below trace_dir, sorted, their files checked.  0, or
 * the exit status after a message (the caller frees *traces). */
static int discover(const char *trace_dir, bool live, struct trace_list *traces)
{
	const char *no_check = getenv("SLUBTRACE_NO_FILE_CHECK");
	struct stat st;

	if (live) {
		/* Several sessions (of several hosts) are URLs separated by
		 * spaces: one src.ctf.lttng-live each, as it takes one URL. */
		const char *u = trace_dir;

		while (*u) {
			size_t n = strcspn(u, " ");
			char *one = strndup(u, n);

			if (!one || add_dir(traces, one) < 0) {
				free(one);
				return cli_nomem();
			}
			free(one);
			u += n + strspn(u + n, " ");
		}
	} else if (stat(trace_dir, &st) < 0) {
		cli_err("%s: %s", trace_dir, strerror(errno));
		return CLI_EXIT_USAGE;
	} else if (!S_ISDIR(st.st_mode)) {
		cli_err("%s: not a directory (give the trace directory)", trace_dir);
		return CLI_EXIT_USAGE;
	}
	unlisted_errno = 0;
	if (!live && find_traces(trace_dir, 0, traces) < 0)
		return cli_nomem();
	if (!traces->nr) {
		if (unlisted_errno)
			cli_err("%s: cannot list it: %s (so no CTF trace was found)", unlisted,
				strerror(unlisted_errno));
		else
			cli_err("%s: no CTF trace found (no `metadata` file below it)", trace_dir);
		return CLI_EXIT_USAGE;
	}
	qsort(traces->dirs, traces->nr, sizeof(traces->dirs[0]), cmp_str);
	for (size_t i = 0; !live && i < traces->nr && !(no_check && !strcmp(no_check, "1")); i++)
		if (cli_check_trace_files(traces->dirs[i]) < 0)
			return CLI_EXIT_USAGE;
	return 0;

}

/* One source per trace, each through a watch filter into the muxer: 0,
 * or -1 after a message. */
static int add_sources(bt_graph *g, const struct trace_list *traces, bool live,
		       const bt_component_class_source *fs_cls, bt_component_class_filter *watch_cls,
		       const bt_component_filter *mux)
{
	char err[1024];

	for (size_t i = 0; i < traces->nr; i++) {
		const bt_component_source *src;
		bt_value *p = bt_value_map_create(), *inputs = bt_value_array_create();
		char name[32];
		int bad;

		snprintf(name, sizeof(name), "trace-%zu", i);
		bad = !p || !inputs ||
			bt_value_array_append_string_element(inputs, traces->dirs[i]) ||
			bt_value_map_insert_entry(p, "inputs", inputs) ||
			(live && bt_value_map_insert_string_entry(p, "session-not-found-action",
								  "fail"));
		if (bad) {
			cli_nomem();
		} else if (bt_graph_add_source_component(g, fs_cls, name, p, cli_bt_log_level(),
							 &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
			char file[PATH_MAX];

			error_line(err, sizeof(err));
			if (!strncmp(err, "a packet header does not start with CTF's magic", 47) &&
			    cli_find_bad_magic(traces->dirs[i], file, sizeof(file)) == 0)
				cli_err("%s: its first packet does not start with CTF's magic number: "
					"the stream file is corrupted", file);
			else
				cli_err("%s: not a readable CTF trace: %s", traces->dirs[i], err);
			bad = 1;
		} else if (connect_all(g, src, i, watch_cls, mux) < 0) {
			error_line(err, sizeof(err));
			cli_err("%s: cannot connect the trace: %s", traces->dirs[i], err);
			bad = 1;
		}
		bt_value_put_ref(inputs);
		bt_value_put_ref(p);
		if (bad)
			return -1;
	}
	return 0;
}

static int snapshot_window(const char *trace_dir, const struct trace_list *traces, bool live,
			   const char *sink_name, bt_value *params)
{
	uint64_t trim_ns = 0, trim_end = 0;
	unsigned trim_cut = 0;

	/* A flight recorder's snapshot: read from where every stream is complete
	 * (snapshot_trace_begin(), snapshot.c); the watch filters drop what
	 * comes before (flt.utils.trimmer would need sources that seek). */
	for (size_t i = 0; !live && i < traces->nr; i++) {
		uint64_t b, e;
		unsigned cut;

		if (snapshot_trace_bounds(traces->dirs[i], &b, &e, &cut) == 1 && b > trim_ns) {
			trim_ns = b;
			trim_end = e;
			trim_cut = cut;
		}
	}
	if (trim_ns) {
		cli_watch_window(trim_ns, trim_end);
		/* The model's sinks count, not judge, a seq gap at the window's
		 * edges whose updates may have been traced outside it. */
		if (params && (!strcmp(sink_name, "check") || !strcmp(sink_name, "report") ||
			       !strcmp(sink_name, "timeline")) &&
		    (bt_value_map_insert_unsigned_integer_entry(params, "window-begin", trim_ns) !=
			     BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
		     (trim_end && bt_value_map_insert_unsigned_integer_entry(
					  params, "window-end", trim_end) !=
					  BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK))) {
			cli_err("out of memory");
			return -1;
		}
		cli_info("%s: a flight-recorder snapshot: %u stream%s lost %s oldest packets; "
			 "read from %" PRIu64 ".%09" PRIu64 " to %" PRIu64 ".%09" PRIu64 " s of "
			 "the clock, where every stream is complete", trace_dir, trim_cut,
			 trim_cut == 1 ? "" : "s", trim_cut == 1 ? "its" : "their",
			 trim_ns / 1000000000u, trim_ns % 1000000000u, trim_end / 1000000000u,
			 trim_end % 1000000000u);
	}
	return 0;
}

/* Runs the graph to its end (^C: once more, for the sink to end). */
static bt_graph_run_status run_graph(bt_graph *g, struct slub_plugin_result *res, bool live,
				     const struct trace_list *traces)
{
	bt_graph_run_status run;
	bool caught;

	cli_watch_running();
	caught = catch_interrupt(g, res);
	/* Progress only for a person watching a long run whose results go to
	 * a file or a pipe: stderr a terminal, stdout not (the sink writes as
	 * it reads, and a line of progress would cut its output), not -q, and
	 * not a live session (it has no end). */
	if (!live && !cli_quiet() && isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO)) {
		run = run_with_progress(g, res, traces);
	} else {
		while ((run = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN) {
			struct timespec ts = { 0, 1000000 };

			if (res->stop == 1) {
				/* Interrupted: run once more, for the sink to end. */
				bt_interrupter_reset(bt_graph_borrow_default_interrupter(g));
				continue;
			}
			nanosleep(&ts, NULL);
		}
	}
	release_interrupt(caught);
	return run;
}

int cli_run_graph(const char *trace_dir, const char *sink_name, bt_value *params,
		  struct slub_plugin_result *res)
{
	struct trace_list traces = { 0 };
	const bt_plugin *ctf = NULL, *utils = NULL, *slub, *slub_found;
	const bt_plugin_set *slub_set;
	const bt_component_class_source *fs_cls;
	const bt_component_class_filter *mux_cls;
	bt_component_class_filter *watch_cls = NULL;
	const bt_component_class_sink *sink_cls;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_graph *g = NULL;
	char err[1024];
	int rc = CLI_EXIT_USAGE;
	bt_graph_run_status run;
	/* net://: a live session of an lttng-relayd (check --live, live.c) */
	bool live = !strncmp(trace_dir, "net://", 6);

	memset(res, 0, sizeof(*res));
	res->magic = SLUB_PLUGIN_RESULT_MAGIC;
	rc = discover(trace_dir, live, &traces);
	if (rc)
		goto out;
	rc = CLI_EXIT_USAGE;

	slub = load_slub(&slub_set, &slub_found);
	if (!slub) {
		cli_err("the babeltrace2 plugin babeltrace-plugin-slub.so was not found "
			"(install slubtrace, or set SLUBTRACE_PLUGIN_PATH to its directory)");
		goto out;
	}
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) !=
	    BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		cli_err("babeltrace2's ctf and utils plugins were not found (install babeltrace2)");
		goto plugins;
	}
	fs_cls = bt_plugin_borrow_source_component_class_by_name_const(ctf, live ? "lttng-live" :
								      "fs");
	mux_cls = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	sink_cls = bt_plugin_borrow_sink_component_class_by_name_const(slub, sink_name);
	if (!fs_cls || !mux_cls || !sink_cls) {
		cli_err("component class missing: source.ctf.fs, filter.utils.muxer or sink.slub.%s",
			sink_name);
		goto plugins;
	}

	watch_cls = cli_watch_class();
	g = bt_graph_create(0);
	if (!g || !watch_cls ||
	    bt_graph_add_filter_component(g, mux_cls, "muxer", NULL, cli_bt_log_level(),
					  &mux) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		cli_err("cannot create the trace processing graph");
		goto plugins;
	}
	cli_watch_start(trace_dir);
	if (add_sources(g, &traces, live, fs_cls, watch_cls, mux) < 0)
		goto graph;
	if (snapshot_window(trace_dir, &traces, live, sink_name, params) < 0)
		goto graph;
	if (bt_graph_add_sink_component_with_initialize_method_data(g, sink_cls, "slub", params,
			res, cli_bt_log_level(), &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		error_line(err, sizeof(err));
		cli_err("sink.slub.%s: %s", sink_name, err);
		goto graph;
	}
	if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
				   bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		error_line(err, sizeof(err));
		cli_err("cannot connect the graph: %s", err);
		goto graph;
	}

	run = run_graph(g, res, live, &traces);
	fflush(stdout);
	if (res->stop && run == BT_GRAPH_RUN_STATUS_OK) {
		cli_err("interrupted: the results above cover the %" PRIu64 " messages read before ^C",
			res->messages);
		rc = CLI_EXIT_INTERRUPTED;
		goto graph;
	}
	if (run == BT_GRAPH_RUN_STATUS_OK && res->unusable != SLUB_UNUSABLE_NO_EVENTS) {
		rc = 0;
	} else if (res->unusable) {
		/* A sink that ends on zero events gives a verdict (a trimmed
		 * window may hold none); a trace of nothing is still no input
		 * for this command. */
		bt_current_thread_clear_error();
		/* The sink knows the trace's path from its events: with none,
		 * it is the one given here. */
		if (!strncmp(res->message, "input: ", 7))
			cli_err("%s: %s", traces.nr == 1 ? traces.dirs[0] : trace_dir,
				res->message + 7);
		else
			cli_err("%s", res->message);
	} else {
		char where[4200];

		error_line(err, sizeof(err));
		cli_watch_where(where, sizeof(where), strstr(err, "timestamps go back") != NULL);
		cli_err("%s: cannot read the trace%s%s: %s",
			traces.nr == 1 ? traces.dirs[0] : trace_dir, where[0] ? ", " : "", where,
			err[0] ? err : "unknown error");
	}
graph:
	bt_graph_put_ref(g);
	cli_watch_stop();
plugins:
	bt_component_class_filter_put_ref(watch_cls);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	bt_plugin_set_put_ref(slub_set);
	bt_plugin_put_ref(slub_found);
out:
	free_traces(&traces);
	return rc;
}

const bt_plugin *cli_load_slub_plugin(const bt_plugin_set **set, const bt_plugin **found)
{
	return load_slub(set, found);
}
