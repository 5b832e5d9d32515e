/* SPDX-License-Identifier: MIT */
/*
 * slubtrace: record the slab state transitions of a program, and check
 * or print them.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Trace the slab state transitions of the slubtrace allocator with LTTng.\n"
		"\n"
		"Commands:\n"
		"  record [OPTIONS] -- CMD [ARGS]   run CMD on the slubtrace allocator and\n"
		"                                   record its transitions in an LTTng trace,\n"
		"                                   then check it\n"
		"  check TRACE_DIR                  replay a trace against the SLUB state model\n"
		"                                   and report every invariant it breaks\n"
		"  check --live URL                 the same on a live session as it runs\n"
		"                                   (record --live prints URL)\n"
		"  timeline [OPTIONS] TRACE_DIR     print each slab's state transitions\n"
		"  stats [OPTIONS] TRACE_DIR        slabinfo -r rebuilt from the events, redos per\n"
		"                                   site, list_lock figures, retry storms\n"
		"  storms [OPTIONS] TRACE_DIR       the retry storms: who collided, where, when\n"
		"  diff [OPTIONS] BEFORE AFTER      compare two runs per operation; exit 1 when a\n"
		"                                   figure regressed (a CI gate)\n"
		"  report [OPTIONS] TRACE_DIR -o F  one self-contained HTML page: verdict, violations\n"
		"                                   on their slab's swimlane, storms, locks, top slabs\n"
		"  rules [--dot]                    the checker's rules and the slab state\n"
		"                                   transition table (text or Graphviz)\n"
		"  help [COMMAND]                   show this help, or a command's help\n"
		"\n"
		"Options:\n"
		"  -h, --help       show this help\n"
		"  --version        show the version\n"
		"\n"
		"Run `slubtrace COMMAND --help` for a command's options.\n"
		"Read a trace with babeltrace2(1): `babeltrace2 TRACE_DIR`, or\n"
		"`babeltrace2 TRACE_DIR -c sink.slub.check`.\n");
}

int main(int argc, char **argv)
{
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
	if (!strcmp(cmd, "help")) {
		if (argc > 2 && !strcmp(argv[2], "record"))
			cmd_record_usage(stdout);
		else if (argc > 2 && !strcmp(argv[2], "check"))
			cmd_check_usage(stdout);
		else if (argc > 2 && !strcmp(argv[2], "timeline"))
			cmd_timeline_usage(stdout);
		else if (argc > 2 && !strcmp(argv[2], "stats"))
			cmd_stats_usage(stdout);
		else if (argc > 2 && !strcmp(argv[2], "storms"))
			cmd_storms_usage(stdout);
		else if (argc > 2 && !strcmp(argv[2], "diff"))
			cmd_diff_usage(stdout);
		else if (argc > 2 && !strcmp(argv[2], "report"))
			cmd_report_usage(stdout);
		else if (argc > 2 && !strcmp(argv[2], "rules"))
			cmd_rules_usage(stdout);
		else
			usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "check") && argc > 2 && !strcmp(argv[2], "--live"))
		return cmd_check_live(argc - 2, argv + 2);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "timeline"))
		return cmd_timeline(argc - 1, argv + 1);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(argc - 1, argv + 1);
	if (!strcmp(cmd, "storms"))
		return cmd_storms(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return cmd_diff(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "rules"))
		return cmd_rules(argc - 1, argv + 1);
	cli_err("unknown command '%s'", cmd);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
