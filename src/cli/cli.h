/* SPDX-License-Identifier: MIT */
/*
 * The slubtrace command: one file per subcommand, shared helpers here.
 */
#ifndef SLUBTRACE_CLI_H
#define SLUBTRACE_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit codes of slubtrace's own failures (as env(1) and timeout(1) use). */
#define CLI_EXIT_USAGE    2
/* Out of memory: said as such, never with the usage text.  The analysis
 * commands document 0, 1 and 2, 2 when the work cannot be done: that. */
#define CLI_EXIT_NOMEM    CLI_EXIT_USAGE
#define CLI_EXIT_FAILURE  125 /* slubtrace or LTTng failed */
#define CLI_EXIT_INTERRUPTED 130 /* ^C: partial results printed */
#define CLI_EXIT_NOEXEC   126 /* CMD found but not executable */
#define CLI_EXIT_NOTFOUND 127 /* CMD not found */

extern const char *cli_progname;

void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * -v/--verbose and -q/--quiet, on every command that reads a trace: -v
 * gives the components the graph creates the INFO logging level (-vv:
 * DEBUG), so that they log what they do; -q silences slubtrace's
 * informational lines (cli_info) and the progress line, leaving results
 * and errors.  Without
 * either, the components log nothing: slubtrace says what went wrong.
 */
#define CLI_VERBOSITY_OPTIONS                                                              \
	{ "verbose", no_argument, NULL, 'v' }, { "quiet", no_argument, NULL, 'q' }
#define CLI_VERBOSITY_HELP                                                                 \
	"  -v, --verbose            the components log what they do on standard error\n"      \
	"                           (-vv: debug lines)\n"                                      \
	"  -q, --quiet              no informational lines and no progress: results\n"  \
	"                           and errors only\n"
/* Takes 'v' or 'q' from getopt_long(); false for any other option. */
bool cli_verbosity_option(int c);
/* -q was given. */
bool cli_quiet(void);
/* The logging level given to the components of a graph (a
 * bt_logging_level). */
int cli_log_level(void);
/* Says "out of memory"; returns CLI_EXIT_NOMEM. */
int cli_nomem(void);

/* Full path of `name` searched in $PATH (or `name` itself when it holds a
 * '/'), into out[size].  Returns 0, or -1 with errno ENOENT / EACCES. */
int cli_find_program(const char *name, char *out, size_t size);

/* Directory of the running executable, into out[size].  Returns 0 or -1. */
int cli_exe_dir(char *out, size_t size);

/* `name` (libslub-malloc.so, libslub-tp.so) from $SLUBTRACE_LIBDIR when set,
 * else next to the executable (install layout, then build tree build_rel).
 * 0, or -1 after printing why. */
int cli_find_lib(const char *name, const char *build_rel, char *out, size_t size);

/* $TMPDIR, or /tmp when it is unset or empty. */
const char *cli_tmpdir(void);
/* "TMPDIR/slubtrace-NAME-XXXXXX" for mkstemp() or mkdtemp(); -1 with errno
 * ENAMETOOLONG when it does not fit in size. */
int cli_tmp_template(char *out, size_t size, const char *name);

/*
 * Starts the LTTng daemon argv[0] (lttng-sessiond, lttng-relayd), found in
 * PATH, detached: in a session of its own, stdin /dev/null, stdout and
 * stderr to a new log TMPDIR/slubtrace-TAG-XXXXXX whose name is left in log.
 * With mask, the daemon runs with that signal mask.  Returns its pid, or -1
 * after saying why (what names the daemon: "the session daemon").
 */
pid_t cli_start_daemon(char *const argv[], const char *tag, const char *what,
		       const sigset_t *mask, char *log, size_t log_size);

/* Output of a finished child run by cli_run(). */
struct cli_output {
	char *text;	/* stdout and stderr, NUL-terminated (malloc'd) */
	size_t len;
	int status;	/* waitpid() status */
};

/*
 * Runs argv[0] (searched in $PATH) with argv, in its own process group so
 * that a terminal's ^C reaches the traced program but not the tracing
 * control commands.  Captures stdout+stderr into out when out is non-NULL,
 * else discards them.  Returns the exit code (0..255), 128+signal when the
 * child was killed, or -1 when it could not be started.
 */
int cli_run(char *const argv[], struct cli_output *out);
void cli_output_free(struct cli_output *out);

/* A subcommand: its name, its arguments and one line of summary (as
 * `slubtrace --help` lists it), and its entry points. */
struct cli_command {
	const char *name;
	const char *args;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
};
extern const struct cli_command cli_commands[];	/* ends with a NULL name */
const struct cli_command *cli_command_find(const char *name);
void cli_main_usage(FILE *f);

/* Writes the manual page of `name` (a command, or NULL for slubtrace(1)) in
 * roff to f.  Returns 0, or an exit status after a message. */
int cli_man(const char *name, FILE *f);

int cmd_record(int argc, char **argv);
int cmd_rules(int argc, char **argv);
void cmd_rules_usage(FILE *f);
void cmd_record_usage(FILE *f);
int cmd_check(int argc, char **argv);
void cmd_check_usage(FILE *f);
int cmd_timeline(int argc, char **argv);
void cmd_timeline_usage(FILE *f);
int cmd_stats(int argc, char **argv);
void cmd_stats_usage(FILE *f);
int cmd_storms(int argc, char **argv);
void cmd_storms_usage(FILE *f);
int cmd_diff(int argc, char **argv);
void cmd_diff_usage(FILE *f);
int cmd_report(int argc, char **argv);
void cmd_report_usage(FILE *f);
int cmd_compare(int argc, char **argv);
void cmd_compare_usage(FILE *f);
int cmd_top(int argc, char **argv);
void cmd_top_usage(FILE *f);

struct slub_plugin_result;
struct bt_value;
struct bt_plugin;
struct bt_plugin_set;

/* babeltrace-plugin-slub.so, found as `slubtrace check` finds it; the
 * caller puts *set and *found (either may be NULL).  NULL when not found. */
const struct bt_plugin *cli_load_slub_plugin(const struct bt_plugin_set **set,
					     const struct bt_plugin **found);

/*
 * Runs src.ctf.fs (every trace below trace_dir) -> utils.muxer ->
 * sink.slub.<sink> with params, the sink filling res.  Returns 0 when the
 * graph ran to its end, else 2 (CLI_EXIT_USAGE: unusable input) after
 * printing one line saying why.
 */
int cli_run_graph(const char *trace_dir, const char *sink, struct bt_value *params,
		  struct slub_plugin_result *res);
/* cli_run_graph() with sink.slub.check: 0 clean, 1 violations, 2 unusable. */
int cli_check(const char *trace_dir, struct bt_value *params, struct slub_plugin_result *res);
/* cli_check() with its reports and verdict on standard error: record's
 * check, after the traced command, whose standard output it leaves to
 * that command's own output (redirected or piped, it holds only that). */
int cli_check_on_stderr(const char *trace_dir, struct bt_value *params,
			struct slub_plugin_result *res);

struct slub_tstats_result;
/*
 * One side of a diff: a JSON report written by `slubtrace stats -o`, or a
 * trace directory run through sink.slub.stats with params.  0, or 2 after
 * printing why.
 */
int cli_load_result(const char *input, struct bt_value *params, struct slub_tstats_result *r);

/* One packet of a CTF index file (LTTng's index/NAME.idx). */
struct cli_index_entry {
	uint64_t offset;	/* bytes, in the stream file */
	uint64_t packet_bits, content_bits;
	uint64_t ts_begin, ts_end;
	uint64_t discarded;	/* the stream's running count at the packet end */
};

/*
 * Calls fn for each entry of the index file at path (until fn returns < 0).
 * Returns the number of entries read, or -1 when path is not an index.
 */
int cli_index_read(const char *path, int (*fn)(const struct cli_index_entry *e, void *arg),
		   void *arg);

/*
 * Events the tracer discarded in the trace below dir, from its index files
 * (per stream, the largest running count).  Streams whose file name begins
 * with aside (NULL: none) are added to *aside_count instead.  -1: no index.
 */
long long cli_trace_discarded(const char *dir, const char *aside,
			      unsigned long long *aside_count);

/* A trace's clock, from its metadata's first `clock` block. */
struct cli_clock {
	uint64_t freq;			/* cycles per second */
	long long offset_s, offset;	/* the origin: offset_s s plus offset cycles */
};
/* The value after `key =` in the first `clock {` block of metadata text
 * (packetized or not: LTTng writes the block in one packet). */
bool cli_clock_field(const char *text, size_t n, const char *key, long long *v);
/* The clock of the trace directory dir: 0, or -1 when its metadata has none. */
int cli_trace_clock(const char *dir, struct cli_clock *clk);
/* A value of that clock in ns from the origin, as Babeltrace computes it. */
uint64_t cli_clock_ns(const struct cli_clock *clk, uint64_t cycles);

/*
 * How far into the traces, by bytes: every packet of every stream, from
 * the streams' index files (LTTng's index/NAME.idx), as (begin time, size)
 * sorted by time.  The packets that began at or before the time of the
 * latest message read are taken as read.
 */
struct cli_progress {
	uint64_t *begin_ns;	/* each packet's timestamp_begin, ns from the origin, sorted */
	uint64_t *bytes;	/* bytes of the packets up to this one, inclusive */
	size_t nr;
	uint64_t total;		/* bytes of every packet */
};
/* Loads the packets of every stream of dirs[0..nr).  0, or -1 (nothing to
 * free) when a stream has no index, an index is unreadable or a trace has
 * no clock: then the percent is not known. */
int cli_progress_load(struct cli_progress *p, char *const *dirs, size_t nr);
void cli_progress_free(struct cli_progress *p);
/* The bytes of the packets that began at or before ns. */
uint64_t cli_progress_bytes(const struct cli_progress *p, uint64_t ns);
/* 0..100: the part of p->total those bytes are (100 for an empty trace). */
unsigned cli_progress_percent(const struct cli_progress *p, uint64_t ns);
/*
 * The progress line: "slubtrace: M messages read, R messages/s", with
 * known (p non-NULL) "NN% of X MiB, " (of X KiB below 1 MiB) after
 * "slubtrace: ".  Returns buf.
 */
char *cli_progress_line(char *buf, size_t len, const struct cli_progress *p, uint64_t ns,
			uint64_t messages, double rate);

/*
 * The files of one trace directory (holding `metadata`) before Babeltrace
 * reads them: packetized metadata complete; each stream file as long as
 * its index says, its packets of the metadata's trace UUID (without an
 * index: the first packet's UUID only); no indexed stream missing.
 * 0, or -1 after printing one line naming the file.
 */
int cli_check_trace_files(const char *dir);
/* After Babeltrace refused a packet's magic number: the first stream file
 * of dir whose first packet lacks it, into out.  0, or -1 when none. */
int cli_find_bad_magic(const char *dir, char *out, size_t len);
/* The stream file of src.ctf.fs's output port named port, from the packet
 * headers cli_check_trace_files() read, or NULL. */
const char *cli_stream_file(const char *port);

/*
 * What the graph reads, told when it crashes or stalls (watch.c): the
 * filter class put after each stream of src.ctf.fs (its initialize data:
 * the stream file), then start before the graph is built (the handlers
 * and the watchdog name trace), running once it runs, stop after.
 */
struct bt_component_class_filter *cli_watch_class(void);
/* Events and discarded-events records before begin or after end (ns from
 * the clock's origin) are dropped by the watch filters of the next graph
 * (0, 0: none). */
void cli_watch_window(uint64_t begin, uint64_t end);
void cli_watch_start(const char *trace);
void cli_watch_running(void);
void cli_watch_stop(void);
/* Where the graph was when a stream's decoder failed (or, last_pulled,
 * the stream pulled last: the muxer judges the message just pulled):
 * "stream file F, packet N or later, after its event E at T s"; "" when
 * there is none. */
void cli_watch_where(char *buf, size_t len, bool last_pulled);

/* Runs `lttng ARGS...` (record.c); on failure prints what lttng said.
 * With keep, the output of a successful run is kept there. */
int lttng(struct cli_output *keep, ...) __attribute__((sentinel));

/* record --pid / --procname: attach to running processes (attach.c). */
enum attach_opt { ATTACH_OPT_PID, ATTACH_OPT_PROCNAME, ATTACH_OPT_DURATION };
bool attach_requested(void);
/* Each returns -1 to go on, else the exit code (after saying why). */
int attach_option(enum attach_opt opt, const char *arg);
int attach_check_opts(bool has_cmd);
int attach_prepare(void);
/* Limits the session, before it starts, to the processes found. */
int attach_track(const char *session);
/* Until --duration, a signal, or no process left: 0, or -1 when the
 * session daemon went away. */
int attach_wait(const char *session, bool *ended_by_signal);

/* record --snapshot --trigger: the flight recorder (snapshot.c). */
bool snapshot_triggers(void);
int snapshot_option(const char *arg);
int snapshot_check_opts(bool snapshot);
/* Adds the LTTng trigger that snapshots session on slub:trigger. */
int snapshot_add_trigger(const char *session);
void snapshot_remove_trigger(void);
/* In the child before exec: SLUBTRACE_TRIGGER, SLUBTRACE_CHECK. */
void snapshot_child_env(void);
/* Waits for the snapshots in flight below dir. */
void snapshot_settle(const char *dir);
/* Names, lists and (check) checks the snapshots; returns how many. */
unsigned snapshot_finish(const char *dir, bool check);
/*
 * A flight recorder's snapshot keeps each per-CPU buffer's latest packets:
 * a stream whose first packet is not its first (packet_seq_num > 0) lost
 * everything before it, without a discarded-events record, and the
 * streams end at slightly different times.  Outside [latest such start,
 * earliest stream end] some CPU's events are missing, and the model would
 * judge the others' without them.  Returns 1 with those times (ns from
 * the clock's origin) and the count of streams cut at their start in
 * *cut, 0 when every stream is complete from its start, -1 when it cannot
 * tell (not LTTng-UST's packet layout, unreadable metadata clock).
 */
int snapshot_trace_bounds(const char *trace_dir, uint64_t *begin_ns, uint64_t *end_ns,
			  unsigned *cut);

/* record --live, --relay; check --live (live.c). */
bool live_requested(void);
bool live_remote(void);		/* --relay: the trace stays on the relay's host */
int live_option(bool relay, const char *arg);
int live_check_opts(bool snapshot);
int live_start_relay(const char *dir);
/* Stops the relay daemon started here; true when it had exited already. */
bool live_stop_relay(bool keep_log);
int live_create(const char *session);
void live_announce(const char *session);
int cmd_check_live(int argc, char **argv);
/*
 * The live inputs of check --live and top --live: session URLs, or with
 * all, relay URLs (net://HOST[:PORT]) whose every session is taken (listed
 * through src.ctf.lttng-live's `sessions` query).  *urls gets them joined
 * by spaces (cli_run_graph() reads one source per URL), *nr their count.
 * -1 on success, else the exit status after a line saying why.
 */
int live_inputs(int n, char *const *args, bool all, char **urls, size_t *nr);

#endif /* SLUBTRACE_CLI_H */
