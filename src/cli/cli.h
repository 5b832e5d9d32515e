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

/* `name` (libslub-malloc.so, libslub-tp.so) from $SLUBTRACE_LIBDIR when set,
 * else next to the executable (install layout, then build tree build_rel).
 * 0, or -1 after printing why. */
int cli_find_lib(const char *name, const char *build_rel, char *out, size_t size);

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

struct slub_tstats_result;
/*
 * One side of a diff: a JSON report written by `slubtrace stats -o`, or a
 * trace directory run through sink.slub.stats with params.  0, or 2 after
 * printing why.
 */
int cli_load_result(const char *input, struct bt_value *params, struct slub_tstats_result *r);

#endif /* SLUBTRACE_CLI_H */
