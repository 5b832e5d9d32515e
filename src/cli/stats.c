/* SPDX-License-Identifier: MIT */
/*
 * slubtrace stats, storms and diff: regression hunting on traces.
 *
 * A result comes from a trace directory, read through the graph into
 * sink.slub.stats (analysis/stats does the work), or from a JSON report a
 * previous `slubtrace stats --json` wrote.  diff compares two results on
 * rates normalised per operation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"
#include "slub_tstats.h"

static void tunables_help(FILE *f)
{
	fprintf(f,
		"Storm detection (defaults in parentheses):\n"
		"      --run-attempts N     a run storm: N consecutive failed attempts of one\n"
		"                           operation (one thread, slab or cpu chain, site) (%u)\n"
		"      --window-failures N  a window storm: N failures on one slab or cpu chain,\n"
		"                           or N contended acquisitions of one list_lock ... (%u)\n"
		"      --window-ms MS       ... within MS milliseconds (%g)\n"
		"      --lookback N         updates kept per slab to find a failure's winner (%u)\n"
		"      --pending-ms MS      how long an event waits for the one before it in the\n"
		"                           model's order (a failure: for the update that beat\n"
		"                           it) (%g)\n"
		"      --top N              rows of the top-N views (%u)\n"
		"      --max-storms N       storms shown in detail, the largest (%u)\n",
		SLUB_TSTATS_DEFAULT_RUN_ATTEMPTS, SLUB_TSTATS_DEFAULT_WINDOW_FAILURES,
		SLUB_TSTATS_DEFAULT_WINDOW_NS / 1e6, SLUB_TSTATS_DEFAULT_LOOKBACK,
		SLUB_MODEL_DEFAULT_REORDER_NS / 1e6, SLUB_TSTATS_DEFAULT_TOP_N,
		SLUB_TSTATS_DEFAULT_MAX_STORMS);
}

void cmd_stats_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace stats [OPTIONS] TRACE_DIR\n"
		"\n"
		"Rebuild from the events recorded in TRACE_DIR (every CTF trace below it) the\n"
		"`slabinfo -r` page of each cache (the layout of SLUBTRACE_STATS=1) and its\n"
		"occupancy (slabs and partial slabs: peak, time-weighted mean, free objects\n"
		"per partial slab, slabs and pages made and discarded; with object events\n"
		"the unused object slots and the slabs a thread's 1,000 allocations touch;\n"
		"the same figures for classic and sheaves), then per\n"
		"site the slab-word redos with and without list_lock and the cpu chain redos,\n"
		"per list_lock the acquisitions, contention, wait and hold histograms and the\n"
		"longest holds with what the holder did (a slabinfo reader's: the slabs it\n"
		"walked) and the threads whose waits overlapped them, per cache the slabinfo\n"
		"walks, the p99 and maximum of list_lock waits and holds (p99 at most 6.25%%\n"
		"over), the retry storms (each\n"
		"failed CAS attributed to the thread, site and event that beat it), the top\n"
		"slabs, sites and thread pairs, and the rates `slubtrace diff` compares.\n"
		"When events were discarded the report says its figures are lower bounds.\n"
		"Fast-path counts, unused slots and slabs touched need object events\n"
		"(`slubtrace record --objects`).\n"
		"\n"
		"Options:\n"
		"      --json               print the whole result as JSON (schema\n"
		"                           slubtrace-stats/1, see analysis/stats/README.md)\n"
		"  -o, --output FILE        also write the JSON result to FILE (for diff)\n"
		"      --cache NAME         only this cache\n"
		"      --procname NAME      only the processes of this name (the session\n"
		"                           records every instrumented process of the user)\n"
		"      --sections LIST      text sections, comma-separated: slabinfo, sites,\n"
		"                           locks, storms, top, rates (default: all)\n");
	tunables_help(f);
	fprintf(f,
		CLI_VERBOSITY_HELP
		"  -h, --help               show this help\n"
		"\n"
		"Exit status: 0 done, 2 the input cannot be used, 130 interrupted by ^C\n"
		"(the figures cover the events read before it).\n");
}

void cmd_storms_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace storms [OPTIONS] TRACE_DIR\n"
		"\n"
		"Find the cmpxchg retry storms in TRACE_DIR: runs of consecutive failed\n"
		"attempts of one operation, and windows in which one slab, cpu partial chain\n"
		"or list_lock collects failures faster than a threshold.  Each storm is shown\n"
		"with its time span, cache, slab, site, the losing threads, the winning\n"
		"threads with their sites and events, and the attempts; then the top slabs,\n"
		"sites and thread pairs.  The same as `slubtrace stats --sections storms,top`.\n"
		"\n"
		"Options:\n"
		"      --json               print the whole result as JSON\n"
		"  -o, --output FILE        also write the JSON result to FILE\n"
		"      --cache NAME         only this cache\n"
		"      --procname NAME      only the processes of this name\n");
	tunables_help(f);
	fprintf(f,
		CLI_VERBOSITY_HELP
		"  -h, --help               show this help\n"
		"\n"
		"Exit status: 0 done, 2 the input cannot be used, 130 interrupted by ^C\n"
		"(the figures cover the events read before it).\n");
}

void cmd_diff_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace diff [OPTIONS] BEFORE AFTER\n"
		"       slubtrace diff [OPTIONS] --before RUN [--before RUN]... --after RUN...\n"
		"\n"
		"Compare two runs on rates normalised per operation, per cache and overall,\n"
		"and print a table: before, after, change, verdict.  BEFORE, AFTER and each\n"
		"RUN are trace directories or JSON reports written by `slubtrace stats -o FILE`.\n"
		"\n"
		"Several runs per side (recordings of the same workload) are pooled: each\n"
		"figure's counts and denominators are summed over the runs of a side, which\n"
		"gives rare events (a few redos per run) enough weight to be judged; the\n"
		"value of every run is printed under the table for the figures that moved.\n"
		"On a machine where runs differ by how threads interleave, compare 3 to 5\n"
		"runs per side rather than one.\n"
		"\n"
		"A figure regressed when, with at least `min ops` operations on both sides,\n"
		"it rose by more than its threshold and by more than its floor, and (for\n"
		"figures that count events) the rise is not noise: at least `count` events\n"
		"on the larger side and a Poisson z-score of at least z.  With several runs\n"
		"on a side, the z-score is divided by the square root of how much more the\n"
		"runs of a side differ from each other than counting noise explains\n"
		"(Pearson's chi-square over its degrees of freedom, at least 1), so that a\n"
		"figure set by how threads happened to interleave is not taken for a change.\n"
		"Per-allocation figures are compared only when both runs count allocations\n"
		"the same way (object events recorded in both, or in neither).\n"
		"The lock tail figures (p99 and maximum of waits and holds) are pooled by\n"
		"merging the runs' histograms; p99 is at most 6.25%% above the true one.  A\n"
		"report written before them (and before the lock means counted waits and\n"
		"holds of 1 ms or more) has them unknown: printed as such, not judged, and\n"
		"the exit status does not count them.\n"
		"\n"
		"Options:\n"
		"  -t, --threshold NAME=VALUE  change a threshold: NAME=PCT (the rise in %%),\n"
		"                           NAME.abs=FLOOR, NAME.min=OPS, all=PCT, z=Z,\n"
		"                           count=N;\n"
		"                           repeatable\n"
		"      --before RUN         a run of the BEFORE side; repeatable\n"
		"      --after RUN          a run of the AFTER side; repeatable\n"
		"      --all                print every cache's figures, not only verdicts\n"
		"      --cache NAME         compare this cache's figures only (in place of the\n"
		"                           overall ones; a run without it is refused, naming\n"
		"                           its caches)\n"
		"      --procname NAME      (trace directories) only the processes of this name\n"
		CLI_VERBOSITY_HELP
		"  -h, --help               show this help\n"
		"(trace directories are read with the default storm detection; see `slubtrace\n"
		"stats --help`, the same options apply)\n"
		"\n"
		"Figures and their default thresholds:\n");
	slub_tstats_diff_print_defaults(f);
	fprintf(f,
		"\n"
		"Exit status: 0 no figure regressed (the same run against itself is 0),\n"
		"1 a figure regressed, 2 an input cannot be used.\n");
}

/* ---- options shared by the three commands ---- */

enum {
	O_JSON = 256, O_CACHE, O_SECTIONS, O_RUN, O_WFAIL, O_WMS, O_LOOKBACK, O_PMS, O_TOP,
	O_STORMS, O_ALL, O_PROCNAME, O_BEFORE, O_AFTER,
};

/* diff --before / --after: the runs of each side (0 before, 1 after). */
#define DIFF_MAX_RUNS 64
static const char *diff_runs[2][DIFF_MAX_RUNS];
static unsigned diff_nr[2];

static const struct option stats_opts[] = {
	{ "json", no_argument, NULL, O_JSON },
	{ "output", required_argument, NULL, 'o' },
	{ "cache", required_argument, NULL, O_CACHE },
	{ "procname", required_argument, NULL, O_PROCNAME },
	{ "sections", required_argument, NULL, O_SECTIONS },
	{ "run-attempts", required_argument, NULL, O_RUN },
	{ "window-failures", required_argument, NULL, O_WFAIL },
	{ "window-ms", required_argument, NULL, O_WMS },
	{ "lookback", required_argument, NULL, O_LOOKBACK },
	{ "pending-ms", required_argument, NULL, O_PMS },
	{ "top", required_argument, NULL, O_TOP },
	{ "max-storms", required_argument, NULL, O_STORMS },
	{ "threshold", required_argument, NULL, 't' },
	{ "all", no_argument, NULL, O_ALL },
	{ "before", required_argument, NULL, O_BEFORE },
	{ "after", required_argument, NULL, O_AFTER },
	CLI_VERBOSITY_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* What put_uint() and parse() return when a parameter could not be stored. */
#define PARSE_NOMEM (-3)

/*
 * A count (scale 1: a whole number from min up to 2^32 - 1, what the
 * statistics keep) or a time in ms (scale 1e6: from min ms).  0 would
 * silently mean the default there, so it is refused, as is a count the
 * statistics would raise (a run or a window of fewer than 2 failures).
 */
static int put_uint(bt_value *p, const char *key, const char *opt, const char *s, double scale,
		    double min)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || (scale == 1 && v != (double)(uint64_t)v)) {
		cli_err("%s: expected a non-negative %s, got '%s'", opt,
			scale == 1 ? "whole number" : "number", s);
		return -1;
	}
	if (v < min || (scale == 1 && v > 4294967295.0) || v * scale > 9.2e18) {
		if (scale == 1)
			cli_err("%s: expected %g to 4294967295, got '%s'", opt, min, s);
		else
			cli_err("%s: expected more than 0 and less than 9.2e12 (ms), got '%s'", opt, s);
		return -1;
	}
	if (bt_value_map_insert_unsigned_integer_entry(p, key, (uint64_t)(v * scale)))
		return PARSE_NOMEM;
	return 0;
}

static int put_str(bt_value *p, const char *key, const char *value)
{
	return bt_value_map_insert_string_entry(p, key, value) ? PARSE_NOMEM : 0;
}

/* Parses the sink options into params; returns the index of the first
 * operand, or -1 (usage printed by the caller), or -2 for --help, or
 * PARSE_NOMEM after saying "out of memory" (no usage: the options were
 * right). */
static int parse(int argc, char **argv, bt_value *params, struct slub_tstats_diff_config *dc,
		 const char **output)
{
	int c, bad = 0, nomem = 0;
	char err[256];

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:t:vq", stats_opts, NULL)) != -1) {
		int r = 0;
		switch (c) {
		case O_JSON:
			r = put_str(params, "format", "json");
			break;
		case 'o':
			*output = optarg;
			break;
		case O_CACHE:
			r = put_str(params, "cache", optarg);
			break;
		case O_PROCNAME:
			r = put_str(params, "procname", optarg);
			break;
		case O_SECTIONS:
			r = put_str(params, "sections", optarg);
			break;
		case O_RUN: r = put_uint(params, "run-attempts", "--run-attempts", optarg, 1, 2); break;
		case O_WFAIL: r = put_uint(params, "window-failures", "--window-failures", optarg, 1, 2); break;
		case O_WMS: r = put_uint(params, "window-ns", "--window-ms", optarg, 1e6, 1e-6); break;
		case O_LOOKBACK: r = put_uint(params, "lookback", "--lookback", optarg, 1, 1); break;
		case O_PMS: r = put_uint(params, "pending-ns", "--pending-ms", optarg, 1e6, 1e-6); break;
		case O_TOP: r = put_uint(params, "top", "--top", optarg, 1, 1); break;
		case O_STORMS: r = put_uint(params, "max-storms", "--max-storms", optarg, 1, 1); break;
		case 't':
			if (!dc) {
				cli_err("--threshold belongs to diff");
				r = -1;
			} else if (slub_tstats_diff_set(dc, optarg, err, sizeof(err))) {
				cli_err("%s", err);
				r = -1;
			}
			break;
		case O_ALL:
			if (dc)
				dc->all_caches = 1;
			else
				r = -1;
			break;
		case O_BEFORE:
		case O_AFTER: {
			unsigned side = c == O_AFTER;
			if (!dc) {
				cli_err("--before and --after belong to diff");
				r = -1;
			} else if (diff_nr[side] == DIFF_MAX_RUNS) {
				cli_err("diff: at most %d runs per side", DIFF_MAX_RUNS);
				r = -1;
			} else {
				diff_runs[side][diff_nr[side]++] = optarg;
			}
			break;
		}
		case 'h':
			return -2;
		default:
			r = cli_verbosity_option(c) ? 0 : -1;
		}
		if (r == PARSE_NOMEM)
			nomem = 1;
		else if (r)
			bad = 1;
	}
	if (nomem) {
		cli_nomem();
		return PARSE_NOMEM;
	}
	return bad ? -1 : optind;
}

/* The output file must be writable before the trace is read: its error
 * is not the trace's.  A file created here only to try is removed. */
static int writable(const char *output)
{
	int created = 1, fd = open(output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

	if (fd < 0 && errno == EEXIST) {
		created = 0;
		fd = open(output, O_WRONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		cli_err("%s: cannot write the output file: %s", output, strerror(errno));
		return -1;
	}
	close(fd);
	if (created)
		unlink(output);
	return 0;
}

static int run_stats(const char *dir, bt_value *params, const char *output)
{
	struct slub_plugin_result res;

	if (output && writable(output) < 0)
		return CLI_EXIT_USAGE;
	if (output && bt_value_map_insert_string_entry(params, "json-path", output))
		return cli_nomem();
	return cli_run_graph(dir, "stats", params, &res);
}

static int stats_like(int argc, char **argv, const char *sections, void (*usage)(FILE *))
{
	bt_value *params = bt_value_map_create();
	const char *output = NULL;
	int first, rc;

	if (!params)
		return cli_nomem();
	if (sections && bt_value_map_insert_string_entry(params, "sections", sections)) {
		bt_value_put_ref(params);
		return cli_nomem();
	}
	first = parse(argc, argv, params, NULL, &output);
	if (first == PARSE_NOMEM) {
		bt_value_put_ref(params);
		return CLI_EXIT_NOMEM;
	}
	if (first == -2) {
		usage(stdout);
		bt_value_put_ref(params);
		return 0;
	}
	if (first >= 0 && first != argc - 1) {
		cli_err("%s: expected one TRACE_DIR", argv[0]);
		first = -1;
	}
	if (first < 0) {
		usage(stderr);
		bt_value_put_ref(params);
		return CLI_EXIT_USAGE;
	}
	rc = run_stats(argv[first], params, output);
	bt_value_put_ref(params);
	return rc;
}

int cmd_stats(int argc, char **argv)
{
	return stats_like(argc, argv, NULL, cmd_stats_usage);
}

int cmd_storms(int argc, char **argv)
{
	return stats_like(argc, argv, "storms,top", cmd_storms_usage);
}

/*
 * One side of a diff: a JSON report as it is, or a trace directory run
 * through sink.slub.stats into a temporary JSON report.
 */
int cli_load_result(const char *input, bt_value *params, struct slub_tstats_result *r)
{
	struct stat st;
	char err[512], tmp[PATH_MAX];
	int fd, rc;

	if (stat(input, &st) < 0) {
		cli_err("%s: %s", input, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (slub_tstats_result_load(input, r, err, sizeof(err))) {
			cli_err("%s", err);
			return CLI_EXIT_USAGE;
		}
		return 0;
	}
	fd = cli_tmp_template(tmp, sizeof(tmp), "diff") < 0 ? -1 : mkstemp(tmp);
	if (fd < 0) {
		cli_err("cannot create a temporary file in %s: %s", cli_tmpdir(), strerror(errno));
		return CLI_EXIT_USAGE;
	}
	close(fd);
	bt_value *p = NULL;
	if (bt_value_copy(params, &p) != BT_VALUE_COPY_STATUS_OK ||
	    bt_value_map_insert_string_entry(p, "format", "none")) {
		rc = cli_nomem();
	} else {
		rc = run_stats(input, p, tmp);
	}
	bt_value_put_ref(p);
	if (!rc && slub_tstats_result_load(tmp, r, err, sizeof(err))) {
		cli_err("%s", err);
		rc = CLI_EXIT_USAGE;
	}
	unlink(tmp);
	return rc;
}

/* Prints, for a figure judged improved or regressed overall, the value of
 * each run of each side: pooled counts hide how much runs differ. */
static void print_spread(const struct slub_tstats_result *runs[2][DIFF_MAX_RUNS],
			 const struct slub_tstats_result *pooled, const struct slub_tstats_diff_config *dc)
{
	bool same = !strcmp(pooled[0].alloc_basis, pooled[1].alloc_basis), head = false;

	for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
		const char *why;
		int v = slub_tstats_diff_judge(dc, i, &pooled[0].scope[0].fig[i],
					       &pooled[1].scope[0].fig[i], same, &why);
		if (v < 2)
			continue;
		if (!head)
			printf("\nper run (overall):\n");
		head = true;
		printf("  %-36s", slub_tstats_rate_name(i));
		for (unsigned side = 0; side < 2; side++) {
			printf(side ? "  after" : " before");
			for (unsigned k = 0; k < diff_nr[side]; k++) {
				const struct slub_tstats_figure *g = &runs[side][k]->scope[0].fig[i];
				if (g->den > 0)
					printf(" %.4g", g->value);
				else
					printf(" -");
			}
		}
		putchar('\n');
	}
}

int cmd_diff(int argc, char **argv)
{
	struct slub_tstats_diff_config dc;
	struct slub_tstats_result pooled[2];
	struct slub_tstats_result *loaded[2][DIFF_MAX_RUNS] = { { 0 } };
	bt_value *params = bt_value_map_create();
	const bt_value *v;
	const char *output = NULL, *cache;
	char err[512];
	int first, rc = 0;

	if (!params)
		return cli_nomem();
	diff_nr[0] = diff_nr[1] = 0;
	memset(pooled, 0, sizeof(pooled));
	slub_tstats_diff_defaults(&dc);
	first = parse(argc, argv, params, &dc, &output);
	if (first == PARSE_NOMEM) {
		bt_value_put_ref(params);
		return CLI_EXIT_NOMEM;
	}
	if (first == -2) {
		cmd_diff_usage(stdout);
		bt_value_put_ref(params);
		return 0;
	}
	if (first >= 0 && output) {
		cli_err("diff: -o belongs to stats");
		first = -1;
	} else if (first >= 0 && first == argc - 2) {
		for (unsigned side = 0; side < 2; side++) {
			if (diff_nr[side] == DIFF_MAX_RUNS) {
				cli_err("diff: at most %d runs per side", DIFF_MAX_RUNS);
				first = -1;
				break;
			}
			diff_runs[side][diff_nr[side]++] = argv[first + side];
		}
	} else if (first >= 0 && (first != argc || !diff_nr[0] || !diff_nr[1])) {
		cli_err("diff: expected BEFORE AFTER, or --before RUN... --after RUN...");
		first = -1;
	}
	if (first < 0) {
		cmd_diff_usage(stderr);
		bt_value_put_ref(params);
		return CLI_EXIT_USAGE;
	}
	v = bt_value_map_borrow_entry_value_const(params, "cache");
	cache = v ? bt_value_string_get(v) : NULL;
	for (unsigned side = 0; side < 2 && !rc; side++)
		for (unsigned k = 0; k < diff_nr[side] && !rc; k++) {
			struct slub_tstats_result *r = calloc(1, sizeof(*r));
			if (!r) {
				rc = cli_nomem();
				break;
			}
			loaded[side][k] = r;
			if (diff_nr[side] > 1 && isatty(STDERR_FILENO))
				fprintf(stderr, "slubtrace: reading %s run %u of %u: %s\n",
					side ? "AFTER" : "BEFORE", k + 1, diff_nr[side],
					diff_runs[side][k]);
			rc = cli_load_result(diff_runs[side][k], params, r);
			if (!rc && cache && slub_tstats_result_only(r, cache, err, sizeof(err))) {
				cli_err("%s: %s", diff_runs[side][k], err);
				rc = CLI_EXIT_USAGE;
			}
			if (!rc && !k) {
				/* the first run is the pool: a copy of its scopes */
				pooled[side] = *r;
				pooled[side].scope = malloc(r->nr_scopes * sizeof(*r->scope));
				if (!pooled[side].scope) {
					rc = cli_nomem();
				} else {
					memcpy(pooled[side].scope, r->scope,
					       r->nr_scopes * sizeof(*r->scope));
				}
			} else if (!rc && slub_tstats_result_pool(&pooled[side], r, err, sizeof(err))) {
				cli_err("%s: %s", diff_runs[side][k], err);
				rc = CLI_EXIT_USAGE;
			}
		}
	bt_value_put_ref(params);
	if (!rc) {
		for (unsigned side = 0; side < 2; side++) {
			const char *tag = side ? "AFTER " : "BEFORE";
			if (diff_nr[side] == 1)
				printf("%s %s (%llu events)\n", tag, diff_runs[side][0],
				       (unsigned long long)pooled[side].events);
			else
				printf("%s %u runs pooled (counts summed; %llu events): %s ... %s\n",
				       tag, diff_nr[side], (unsigned long long)pooled[side].events,
				       diff_runs[side][0], diff_runs[side][diff_nr[side] - 1]);
		}
		rc = slub_tstats_diff(&pooled[0], &pooled[1], &dc, stdout) ? 1 : 0;
		if (!rc && (pooled[0].saturated || pooled[1].saturated))
			rc = CLI_EXIT_USAGE; /* "verdict: unknown": impossible lock times */
		if (diff_nr[0] > 1 || diff_nr[1] > 1)
			print_spread((const struct slub_tstats_result *(*)[DIFF_MAX_RUNS])loaded,
				     pooled, &dc);
	}
	for (unsigned side = 0; side < 2; side++) {
		slub_tstats_result_free(&pooled[side]);
		for (unsigned k = 0; k < DIFF_MAX_RUNS; k++)
			if (loaded[side][k]) {
				slub_tstats_result_free(loaded[side][k]);
				free(loaded[side][k]);
			}
	}
	return rc;
}
