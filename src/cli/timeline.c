/* SPDX-License-Identifier: MIT */
/*
 * slubtrace timeline: each slab's life, one line per transition
 * (sink.slub.timeline), filtered by slab, cache, thread and time.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"

void cmd_timeline_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace timeline [OPTIONS] TRACE_DIR\n"
		"\n"
		"Print the state transitions of the slabs recorded in TRACE_DIR, one line\n"
		"per transition in the order the model applies them (a slab's seq order):\n"
		"time, process/thread, acting cpu slot, event, site, slab, cache, state\n"
		"before -> after, list, owner, inuse/objects, seq.  A slabinfo reader's walk\n"
		"of a node partial list (slabinfo_walk) is printed as it comes, as what its\n"
		"list_lock hold did: the slabs walked of those listed, the free objects.\n"
		"\n"
		"Options:\n"
		"      --slab ADDR      only this slab (0x... address)\n"
		"      --cache NAME     only slabs of this cache\n"
		"      --tid N          only transitions made by this thread (vtid)\n"
		"      --procname NAME  only transitions made by the processes of this name (a\n"
		"                       name no process of the trace has is refused)\n"
		"      --begin TIME     only transitions at or after TIME\n"
		"      --end TIME       only transitions at or before TIME; TIME is seconds\n"
		"                       since the clock's origin (the Unix epoch for LTTng),\n"
		"                       with an optional fraction: 1796136257.836064586\n"
		"      --format FORMAT  text (default); json: one JSON object per line (schema\n"
		"                       in doc/analysis.md); chrome: Trace Event Format JSON for\n"
		"                       Perfetto UI or chrome://tracing: a track per slab (its\n"
		"                       states as slices), a track per thread (its transitions),\n"
		"                       counters of cmpxchg failures and list_lock waits; there\n"
		"                       --tid selects the thread tracks and counters\n"
		"      --json           the same as --format json\n"
		"      --reorder-ns NS  how long an event may wait for its predecessor in seq\n"
		"                       order (default: the model's, 1 s)\n"
		CLI_VERBOSITY_HELP
		"  -h, --help           show this help\n"
		"\n"
		"Exit status: 0 done, 2 the input cannot be used, 130 interrupted by ^C\n"
		"(what was read before it is printed).\n");
}

/* "SECONDS[.FRACTION]" as ns, saturated (only compared). */
static unsigned long long seconds_ns(const char *s)
{
	unsigned long long sec = strtoull(s, NULL, 10), frac = 0;
	const char *p = strchr(s, '.');
	int digits = 0;

	if (p)
		for (p++; *p && digits < 9; p++, digits++)
			frac = frac * 10 + (unsigned long long)(*p - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	if (sec > (ULLONG_MAX - frac) / 1000000000ull)
		return ULLONG_MAX;
	return sec * 1000000000ull + frac;
}

static int valid_seconds(const char *s)
{
	const char *p = s;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s)
		return 0;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	return *p == '\0';
}

int cmd_timeline(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slab", required_argument, NULL, 's' },
		{ "cache", required_argument, NULL, 'c' },
		{ "tid", required_argument, NULL, 't' },
		{ "procname", required_argument, NULL, 'p' },
		{ "begin", required_argument, NULL, 'b' },
		{ "end", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "reorder-ns", required_argument, NULL, 'r' },
		CLI_VERBOSITY_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct slub_plugin_result res;
	bt_value *params = bt_value_map_create();
	int c, bad = 0, nomem = 0, rc;
	char *end;
	const char *begin = NULL, *end_time = NULL;

	if (!params)
		return cli_nomem();
	optind = 1;
	while ((c = getopt_long(argc, argv, "hvq", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			strtoull(optarg, &end, 0);
			/* strtoull() takes "-1" as 2^64 - 1. */
			if (errno || end == optarg || *end || strchr(optarg, '-') || *optarg == ' ') {
				cli_err("--slab: expected an address such as 0x7f3a2c000000, got '%s'",
					optarg);
				bad = 1;
			}
			nomem |= !!bt_value_map_insert_string_entry(params, "slab", optarg);
			break;
		case 'c':
			nomem |= !!bt_value_map_insert_string_entry(params, "cache", optarg);
			break;
		case 'p':
			nomem |= !!bt_value_map_insert_string_entry(params, "procname", optarg);
			break;
		case 'r': {
			unsigned long long ns;

			/* as check's --reorder-ns: the sink's parameter */
			errno = 0;
			ns = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-') {
				cli_err("--reorder-ns: expected a number of ns, got '%s'", optarg);
				bad = 1;
			}
			nomem |= !!bt_value_map_insert_unsigned_integer_entry(params, "reorder-ns", ns);
			break;
		}
		case 't': {
			long long tid;

			errno = 0;
			tid = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || tid < 0) {
				cli_err("--tid: expected a thread id, got '%s'", optarg);
				bad = 1;
			}
			nomem |= !!bt_value_map_insert_signed_integer_entry(params, "tid", tid);
			break;
		}
		case 'b':
		case 'e':
			if (!valid_seconds(optarg)) {
				cli_err("--%s: expected SECONDS[.FRACTION] since the clock's origin, got '%s'",
					c == 'b' ? "begin" : "end", optarg);
				bad = 1;
			}
			nomem |= !!bt_value_map_insert_string_entry(
				params, c == 'b' ? "begin" : "end", optarg);
			if (c == 'b')
				begin = optarg;
			else
				end_time = optarg;
			break;
		case 'j':
			nomem |= !!bt_value_map_insert_string_entry(params, "format", "json");
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "chrome")) {
				cli_err("--format: text, json or chrome, not '%s'", optarg);
				bad = 1;
			}
			nomem |= !!bt_value_map_insert_string_entry(params, "format", optarg);
			break;
		case 'h':
			cmd_timeline_usage(stdout);
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
	if (!bad && begin && end_time && seconds_ns(begin) > seconds_ns(end_time)) {
		cli_err("--begin %s is after --end %s: nothing would be printed", begin, end_time);
		bad = 1;
	}
	if (!bad && optind != argc - 1) {
		cli_err("timeline: expected one TRACE_DIR");
		bad = 1;
	}
	if (bad) {
		cmd_timeline_usage(stderr);
		bt_value_put_ref(params);
		return CLI_EXIT_USAGE;
	}
	rc = cli_run_graph(argv[optind], "timeline", params, &res);
	bt_value_put_ref(params);
	return rc;
}
