/* SPDX-License-Identifier: MIT */
/*
 * slubtrace check: replay a trace against the SLUB state model
 * (sink.slub.check) and say whether the state machine held.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"

void cmd_check_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace check [OPTIONS] TRACE_DIR\n"
		"       slubtrace check --live net://HOST[:PORT]/host/NAME/SESSION...\n"
		"       slubtrace check --live --all-sessions net://HOST[:PORT]...\n"
		"\n"
		"Replay the slab state transitions recorded in TRACE_DIR (every CTF trace\n"
		"below it) against the SLUB state model and report each transition that\n"
		"breaks an invariant: the rule, the slab, its cache, the threads, the time,\n"
		"the slab's last events and the call stack when one was recorded.  The last\n"
		"line is the verdict.\n"
		"\n"
		"With --live, read a live session of an lttng-relayd as it is recorded (the URL\n"
		"`slubtrace record --live` prints): each violation is printed when it is\n"
		"found, and the verdict when the session ends.  Several URLs, or\n"
		"--all-sessions with a relay's net://HOST[:PORT] (every session it lists when\n"
		"check starts), are read together: traced programs of several hosts streaming\n"
		"to one relay.  Each host (the trace's hostname) is kept apart, every line of\n"
		"a report starts with [HOST], a verdict per host precedes the verdict over all;\n"
		"the exit status covers all hosts.\n"
		"\n"
		"Each cache is judged by the table of its generation: the classic one (Linux\n"
		"6.1's cpu slabs) or, for a cache of the sheaves generation\n"
		"(SLUBTRACE_GENERATION=sheaves, Linux 7.0), its own (slubtrace rules\n"
		"--generation sheaves).  A sheaves trace recorded before wire format 7 lacks\n"
		"the sheaf and barn events and is refused, naming its stream file (report\n"
		"refuses it too).\n"
		"\n"
		"Options:\n"
		"      --history N       events of the slab shown before a violation (default 8)\n"
		"      --max-reports N   violations printed in full, the others counted\n"
		"                        (default 100, 0 = all)\n"
		"      --reorder-ns NS   how long an event may wait for its predecessor in seq\n"
		"                        order (default: the model's, 1 s)\n"
		"      --cache NAME      report only the violations of this cache\n"
		"      --procname NAME   report only the violations of the processes of this\n"
		"                        name; with either, the verdict counts the events and\n"
		"                        violations of the filter and names it, after a line\n"
		"                        of the whole trace's figures (the model still reads\n"
		"                        every event: a lock, a list or a seq chain spans\n"
		"                        caches and processes); a name the trace does not\n"
		"                        hold is refused, naming those it holds (with --live\n"
		"                        too, when the session ends)\n"
		"      --all-sessions    with --live: each relay URL stands for all its sessions\n"
		CLI_VERBOSITY_HELP
		"  -h, --help            show this help\n"
		"\n"
		"Exit status: 0 the trace is clean, 1 violations were found, 2 the input\n"
		"cannot be used (no trace, not a slubtrace trace, unreadable or corrupt, or\n"
		"a generation the model has no rules for), 130 interrupted by ^C (the\n"
		"verdict covers the events read before it).\n");
}

static unsigned long long parse_count(const char *opt, const char *s, unsigned long long max,
				     int *bad)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || *end || *s == '-' || *s == '+' || *s == ' ') {
		cli_err("%s: expected a number, got '%s'", opt, s);
		*bad = 1;
	} else if (errno == ERANGE || v > max) {
		cli_err("%s: at most %llu, got '%s'", opt, max, s);
		*bad = 1;
	}
	return v;
}

int cli_check(const char *dir, bt_value *params, struct slub_plugin_result *res)
{
	int rc = cli_run_graph(dir, "check", params, res);

	if (rc)
		return rc;
	return res->violations ? 1 : 0;
}

/*
 * The sink writes on a dup() of file descriptor 1 made when it is created:
 * fd 1 is standard error while the graph runs, then standard output again.
 */
int cli_check_on_stderr(const char *dir, bt_value *params, struct slub_plugin_result *res)
{
	int saved, rc;

	fflush(NULL);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		cli_err("cannot send the check's output to standard error: %s", strerror(errno));
		if (saved >= 0)
			close(saved);
		return CLI_EXIT_USAGE;
	}
	rc = cli_check(dir, params, res);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "history", required_argument, NULL, 'H' },
		{ "max-reports", required_argument, NULL, 'm' },
		{ "reorder-ns", required_argument, NULL, 'r' },
		{ "cache", required_argument, NULL, 'c' },
		{ "procname", required_argument, NULL, 'p' },
		CLI_VERBOSITY_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct slub_plugin_result res;
	bt_value *params;
	int c, bad = 0, nomem = 0, rc;

	if (argc > 1 && !strcmp(argv[1], "--live"))
		return cmd_check_live(argc - 1, argv + 1);
	params = bt_value_map_create();

	if (!params)
		return cli_nomem();
	optind = 1;
	while ((c = getopt_long(argc, argv, "hvq", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			nomem |= !!bt_value_map_insert_unsigned_integer_entry(params, "history",
				parse_count("--history", optarg, 1024, &bad));
			break;
		case 'm':
			nomem |= !!bt_value_map_insert_unsigned_integer_entry(params, "max-reports",
				parse_count("--max-reports", optarg, ULLONG_MAX, &bad));
			break;
		case 'r':
			nomem |= !!bt_value_map_insert_unsigned_integer_entry(params, "reorder-ns",
				parse_count("--reorder-ns", optarg, ULLONG_MAX, &bad));
			break;
		case 'c':
			nomem |= !!bt_value_map_insert_string_entry(params, "cache", optarg);
			break;
		case 'p':
			nomem |= !!bt_value_map_insert_string_entry(params, "procname", optarg);
			break;
		case 'h':
			cmd_check_usage(stdout);
			bt_value_put_ref(params);
			return 0;
		default:
			bad |= !cli_verbosity_option(c);
		}
	}
	if (nomem) {
		bt_value_put_ref(params);
		return cli_nomem();
	}
	if (!bad && optind != argc - 1) {
		cli_err("check: expected one TRACE_DIR");
		bad = 1;
	}
	if (bad) {
		cmd_check_usage(stderr);
		bt_value_put_ref(params);
		return CLI_EXIT_USAGE;
	}
	rc = cli_check(argv[optind], params, &res);
	bt_value_put_ref(params);
	return rc;
}
