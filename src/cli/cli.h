/* SPDX-License-Identifier: MIT */
/*
 * The slubtrace command: one file per subcommand, shared helpers here.
 */
#ifndef SLUBTRACE_CLI_H
#define SLUBTRACE_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <sys/types.h>

/* Exit codes of slubtrace's own failures (as env(1) and timeout(1) use). */
#define CLI_EXIT_USAGE    2
#define CLI_EXIT_FAILURE  125 /* slubtrace or LTTng failed */
#define CLI_EXIT_NOEXEC   126 /* CMD found but not executable */
#define CLI_EXIT_NOTFOUND 127 /* CMD not found */

extern const char *cli_progname;

void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Full path of `name` searched in $PATH (or `name` itself when it holds a
 * '/'), into out[size].  Returns 0, or -1 with errno ENOENT / EACCES. */
int cli_find_program(const char *name, char *out, size_t size);

/* Directory of the running executable, into out[size].  Returns 0 or -1. */
int cli_exe_dir(char *out, size_t size);

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

struct slub_plugin_result;
struct bt_value;

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

struct slub_tstats_result;
/*
 * One side of a diff: a JSON report written by `slubtrace stats -o`, or a
 * trace directory run through sink.slub.stats with params.  0, or 2 after
 * printing why.
 */
int cli_load_result(const char *input, struct bt_value *params, struct slub_tstats_result *r);

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

#endif /* SLUBTRACE_CLI_H */
