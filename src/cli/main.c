/* SPDX-License-Identifier: MIT */
/*
 * slubtrace: record the slab state transitions of a program, and check
 * or print them.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Every subcommand once: dispatch, `slubtrace --help`, `help COMMAND` and
 * the man pages (man.c) all read this table. */
const struct cli_command cli_commands[] = {
	{ "record", "[OPTIONS] -- CMD [ARGS]",
	  "run CMD on the slubtrace allocator and record its transitions in an LTTng trace, "
	  "then check it",
	  cmd_record, cmd_record_usage },
	{ "check", "[OPTIONS] TRACE_DIR | --live URL",
	  "replay a trace against the SLUB state model and report every invariant it breaks",
	  cmd_check, cmd_check_usage },
	{ "timeline", "[OPTIONS] TRACE_DIR", "print each slab's state transitions",
	  cmd_timeline, cmd_timeline_usage },
	{ "stats", "[OPTIONS] TRACE_DIR",
	  "slabinfo -r rebuilt from the events, redos per site, list_lock figures, retry storms",
	  cmd_stats, cmd_stats_usage },
	{ "storms", "[OPTIONS] TRACE_DIR", "the retry storms: who collided, where, when",
	  cmd_storms, cmd_storms_usage },
	{ "diff", "[OPTIONS] BEFORE AFTER",
	  "compare two runs per operation; exit 1 when a figure regressed (a CI gate)",
	  cmd_diff, cmd_diff_usage },
	{ "report", "[OPTIONS] TRACE_DIR -o F",
	  "one self-contained HTML page: verdict, violations on their slab's swimlane, storms, "
	  "locks, top slabs",
	  cmd_report, cmd_report_usage },
	{ "compare", "[OPTIONS] -- CMD [ARGS]",
	  "run CMD N times on two sides (variants or builds), interleaved: timings with 95% "
	  "confidence intervals (Welch's t) and the pooled diff of recorded runs; exit 1 on a "
	  "regression",
	  cmd_compare, cmd_compare_usage },
	{ "top", "[OPTIONS] TRACE_DIR | --live URL",
	  "per cache and interval: rates, CAS redos, storms, list_lock wait and holds, the "
	  "threads most involved, refreshed in place (slabtop)",
	  cmd_top, cmd_top_usage },
	{ "rules", "[--dot]",
	  "the checker's rules and the slab state transition table (text or Graphviz)",
	  cmd_rules, cmd_rules_usage },
	{ NULL },
};

const struct cli_command *cli_command_find(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "  NAME ARGS   summary", the summary folded to 80 columns. */
static void list_command(FILE *f, const char *left, const char *summary)
{
	const int col = 35, width = 80;
	const char *p = summary;
	int first = 1;

	while (*p) {
		int room = width - col, n = (int)strlen(p);

		if (n > room) {
			n = room;
			while (n > 0 && p[n] != ' ')
				n--;
			if (n == 0)
				n = room;
		}
		if (first && (int)strlen(left) + 2 < col - 1)
			fprintf(f, "  %-*s%.*s\n", col - 2, left, n, p);
		else if (first)
			fprintf(f, "  %s\n%*s%.*s\n", left, col, "", n, p);
		else
			fprintf(f, "%*s%.*s\n", col, "", n, p);
		first = 0;
		p += n;
		while (*p == ' ')
			p++;
	}
}

static void usage(FILE *f)
{
	char left[128];

	fprintf(f, "Usage: slubtrace COMMAND [OPTIONS] [ARGS]\n"
		   "\n"
		   "Trace the slab state transitions of the slubtrace allocator with LTTng.\n"
		   "\n"
		   "Commands:\n");
	for (const struct cli_command *c = cli_commands; c->name; c++) {
		snprintf(left, sizeof(left), "%s %s", c->name, c->args);
		list_command(f, left, c->summary);
	}
	list_command(f, "help [COMMAND]", "show this help, or a command's help");
	fprintf(f, "\n"
		   "Options:\n"
		   "  -h, --help       show this help\n"
		   "  --version        show the version\n"
		   "\n"
		   "Run `slubtrace COMMAND --help` for a command's options, `man slubtrace-COMMAND`\n"
		   "for its manual page.  Read a trace with babeltrace2(1): `babeltrace2 TRACE_DIR`,\n"
		   "or `babeltrace2 TRACE_DIR -c sink.slub.check`.\n");
}

void cli_main_usage(FILE *f)
{
	usage(f);
}

static int cmd_help(int argc, char **argv)
{
	const struct cli_command *c;

	if (argc > 1 && !strcmp(argv[1], "--man"))
		return cli_man(argc > 2 ? argv[2] : NULL, stdout);
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	c = cli_command_find(argv[1]);
	if (!c) {
		cli_err("help: no command '%s'", argv[1]);
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	c->usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const struct cli_command *c;
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("slubtrace %s\n", SLUBTRACE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help"))
		return cmd_help(argc - 1, argv + 1);
	c = cli_command_find(cmd);
	if (c)
		return c->run(argc - 1, argv + 1);
	cli_err("unknown command '%s'", cmd);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
