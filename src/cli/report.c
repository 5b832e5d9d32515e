/* SPDX-License-Identifier: MIT */
/*
 * slubtrace report: one self-contained HTML page (inline CSS, JavaScript
 * and SVG; no network) drawn from the summaries of a trace.
 *
 * The trace is read twice through sink.slub.report: a scan that keeps the
 * verdict, the violations, the statistics and the slabs worth drawing,
 * then a pass that collects the swimlanes of those slabs only.  The page
 * (report.html, embedded at build time) receives the three JSON documents
 * in one <script type="application/json"> element and draws them, so the
 * file's size depends on the number of lanes and violations shown, never
 * on the length of the trace.  --against OTHER adds the figures both
 * allocator generations share, of this trace and OTHER, from the same
 * statistics JSON that diff reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"
#include "slub_tstats.h"
#include "slub_json.h"

/* report.html, turned into a C string by embed.cmake. */
extern const char slubtrace_report_html[];

#define DATA_MARK "/*@SLUBTRACE_DATA@*/"

void cmd_report_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace report [OPTIONS] TRACE_DIR -o REPORT.html\n"
		"       slubtrace report [OPTIONS] --against OTHER TRACE_DIR -o REPORT.html\n"
		"\n"
		"Write one self-contained HTML page (inline CSS, JavaScript and SVG; it needs\n"
		"no network) about the trace in TRACE_DIR: the verdict; each violation with\n"
		"its slab's swimlane (state bands over time, one mark per transition, the\n"
		"violating event highlighted); cmpxchg failures per interval per site and the\n"
		"largest retry storms with their losing and winning threads; per list_lock\n"
		"wait and hold histograms and the longest holds; the top slabs by\n"
		"transitions, failures and time on each list, each with its swimlane.  A\n"
		"trace of the sheaves generation adds, beside the slab lanes, a lane per cpu\n"
		"slot (the objects in its main and spare sheaves over time) and per node (the\n"
		"full and empty sheaves in its barn).  The page is built from summaries: its\n"
		"size does not grow with the trace.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE        the page to write (required)\n"
		"      --baseline BEFORE    add a comparison with BEFORE (a trace directory or a\n"
		"                           `slubtrace stats -o` JSON report): the diff table,\n"
		"                           regressed figures marked\n"
		"      --against OTHER      add the figures both allocator generations share,\n"
		"                           side by side with OTHER (a trace directory, typically\n"
		"                           the same workload under the other generation, or a\n"
		"                           `slubtrace stats -o` JSON report): slabs and partial\n"
		"                           slabs (peak, mean), free objects per partial slab,\n"
		"                           slabs touched, list_lock acquisitions and waits,\n"
		"                           slab-word redos, pages made and discarded (a\n"
		"                           trace directory is read with --cache and\n"
		"                           --procname too)\n"
		"      --top N              slabs in each top-N table (default 10, as stats and\n"
		"                           top; at most 20)\n"
		"      --max-violations N   violations shown in detail (default 20)\n"
		"      --reorder-ns NS      how long an event may wait for its predecessor in\n"
		"                           seq order (default: the model's, 1 s)\n"
		"      --cache NAME         the violations, statistics and top slabs of this\n"
		"                           cache only; the verdict names the filter (the model\n"
		"                           still reads every event)\n"
		"      --procname NAME      the same for the processes of this name (the\n"
		"                           baseline, a trace directory, is read with it too);\n"
		"                           a name the trace does not hold is refused\n"
		CLI_VERBOSITY_HELP
		"  -h, --help               show this help\n"
		"\n"
		"Exit status: 0 written, 2 the input cannot be used (a trace of the sheaves\n"
		"generation before wire format 7 among them: it lacks the sheaf and barn\n"
		"events) or the page not written.\n");
}

/* Copies a JSON file into the page; "</" becomes "<\/" so that no string
 * in it can close the <script> element. */
static int copy_json(FILE *out, const char *path)
{
	FILE *in = fopen(path, "r");
	int c, prev = 0;

	if (!in) {
		cli_err("%s: %s", path, strerror(errno));
		return -1;
	}
	while ((c = getc(in)) != EOF) {
		if (prev == '<' && c == '/')
			putc('\\', out);
		putc(c, out);
		prev = c;
	}
	fclose(in);
	return 0;
}

/* A string safe inside the page's <script> element. */
static void json_str(FILE *f, const char *s)
{
	if (slub_json_put_script(f, s))
		fputs("null", f);	/* no memory: the page's data stays valid */
}

static void json_num(FILE *f, const struct slub_tstats_figure *g)
{
	if (g->den > 0)
		fprintf(f, "%.6g", g->value);
	else
		fputs("null", f);
}

/* The diff of before against after as JSON rows, as `slubtrace diff`
 * judges them: every figure of "overall", the others when not ok. */
static unsigned write_diff(FILE *f, const char *before_name, const struct slub_tstats_result *b,
			   const struct slub_tstats_result *a)
{
	static const char *const verdict[] = { "n/a", "ok", "improved", "REGRESSED" };
	struct slub_tstats_diff_config dc;
	int same_basis = !strcmp(b->alloc_basis, a->alloc_basis);
	unsigned regressed = 0, n = 0;

	slub_tstats_diff_defaults(&dc);
	fprintf(f, "{\"baseline\":");
	json_str(f, before_name);
	fprintf(f, ",\"before_events\":%" PRIu64 ",\"after_events\":%" PRIu64
		",\"lower_bounds\":%s,\"same_basis\":%s,\"rows\":[",
		b->events, a->events, b->lower_bounds || a->lower_bounds ? "true" : "false",
		same_basis ? "true" : "false");
	for (unsigned s = 0; s < b->nr_scopes; s++) {
		const struct slub_tstats_scope *bs = &b->scope[s], *as = NULL;

		for (unsigned k = 0; k < a->nr_scopes && !as; k++)
			if (!strcmp(a->scope[k].name, bs->name))
				as = &a->scope[k];
		if (!as)
			continue;
		for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
			const char *why;
			int v = slub_tstats_diff_judge(&dc, i, &bs->fig[i], &as->fig[i], same_basis,
						       &why);

			if (v == 3)
				regressed++;
			if (s && v < 2)
				continue;
			fprintf(f, "%s\n{\"scope\":", n++ ? "," : "");
			json_str(f, bs->name);
			fprintf(f, ",\"figure\":\"%s\",\"meaning\":", slub_tstats_rate_name(i));
			json_str(f, slub_tstats_rate_meaning(i));
			fprintf(f, ",\"before\":");
			json_num(f, &bs->fig[i]);
			fprintf(f, ",\"after\":");
			json_num(f, &as->fig[i]);
			fprintf(f, ",\"verdict\":\"%s\",\"why\":", verdict[v < 0 || v > 3 ? 0 : v]);
			json_str(f, why);
			fputc('}', f);
		}
	}
	fprintf(f, "],\"regressed\":%u}", regressed);
	return regressed;
}

/* The figures that mean the same in both allocator generations
 * (analysis/stats/occupancy.c and the lock and redo rates), as `slubtrace
 * diff` computes them. */
static const unsigned shared_figures[] = {
	SLUB_RATE_SLABS_PEAK,
	SLUB_RATE_SLABS_MEAN,
	SLUB_RATE_PARTIAL_SLABS_PEAK,
	SLUB_RATE_PARTIAL_SLABS_MEAN,
	SLUB_RATE_FREE_OBJS_PER_PARTIAL,
	SLUB_RATE_SLAB_UNUSED_PCT,
	SLUB_RATE_SLABS_TOUCHED_PER_1K_ALLOCS,
	SLUB_RATE_LOCK_ACQ_PER_1K_ALLOCS,
	SLUB_RATE_LOCK_WAITS_PER_1K_ALLOCS,
	SLUB_RATE_REDOS_PER_1K_ALLOCS,
	SLUB_RATE_PAGE_CHURN_PER_1K_ALLOCS,
};

static void json_figure(FILE *f, const struct slub_tstats_figure *g)
{
	fputs("{\"value\":", f);
	json_num(f, g);
	fprintf(f, ",\"num\":%.17g,\"den\":%.17g}", g->num, g->den);
}

/* The shared figures of this trace and of other, overall, side by side;
 * other_scan: the scan data of other (a trace), NULL for a stats report. */
static int write_against(FILE *f, const char *other, const struct slub_tstats_result *self,
			 const struct slub_tstats_result *o, const char *other_scan)
{
	int bad = 0;

	fputs("{\"input\":", f);
	json_str(f, other);
	fputs(",\"figures\":[", f);
	for (size_t i = 0; i < sizeof(shared_figures) / sizeof(shared_figures[0]); i++) {
		unsigned k = shared_figures[i];

		fprintf(f, "%s\n{\"figure\":\"%s\",\"meaning\":", i ? "," : "",
			slub_tstats_rate_name(k));
		json_str(f, slub_tstats_rate_meaning(k));
		fputs(",\"this\":", f);
		json_figure(f, &self->scope[0].fig[k]);
		fputs(",\"other\":", f);
		json_figure(f, &o->scope[0].fig[k]);
		fputc('}', f);
	}
	fprintf(f, "],\"same_basis\":%s,\"scan\":",
		strcmp(self->alloc_basis, o->alloc_basis) ? "false" : "true");
	if (other_scan)
		bad = copy_json(f, other_scan);
	else
		fputs("null", f);
	fputc('}', f);
	return bad;
}

/* --reorder-ns, when given (the sink's parameter, as for check and timeline) */
static bool reorder_given;
static uint64_t reorder_ns;
/* --cache, --procname: the scan pass's filter */
static const char *filter_cache, *filter_procname;

static int run_pass(const char *trace, const char *pass, const char *tmp, uint64_t top,
		    uint64_t max_violations, struct slub_plugin_result *res)
{
	char data[PATH_MAX], slabs[PATH_MAX], stats[PATH_MAX];
	bt_value *p = bt_value_map_create();
	int rc;

	if (!p)
		return cli_nomem();
	snprintf(data, sizeof(data), "%s/%s.json", tmp, pass);
	snprintf(slabs, sizeof(slabs), "%s/slabs.txt", tmp);
	snprintf(stats, sizeof(stats), "%s/stats.json", tmp);
	if (bt_value_map_insert_string_entry(p, "pass", pass) ||
	    bt_value_map_insert_string_entry(p, "data-path", data) ||
	    bt_value_map_insert_string_entry(p, "slabs-path", slabs) ||
	    bt_value_map_insert_unsigned_integer_entry(p, "top", top) ||
	    bt_value_map_insert_unsigned_integer_entry(p, "max-violations", max_violations) ||
	    (reorder_given && bt_value_map_insert_unsigned_integer_entry(p, "reorder-ns",
									  reorder_ns)) ||
	    (!strcmp(pass, "scan") && bt_value_map_insert_string_entry(p, "stats-path", stats)) ||
	    (!strcmp(pass, "scan") && filter_cache &&
	     bt_value_map_insert_string_entry(p, "cache", filter_cache)) ||
	    (!strcmp(pass, "scan") && filter_procname &&
	     bt_value_map_insert_string_entry(p, "procname", filter_procname))) {
		bt_value_put_ref(p);
		return cli_nomem();
	}
	rc = cli_run_graph(trace, "report", p, res);
	bt_value_put_ref(p);
	return rc;
}

/* What the page compares the trace with: --baseline and --against. */
struct page_inputs {
	const char *baseline, *against;
	struct slub_tstats_result before, after, other;
	bool other_scanned;	/* against is a trace: its scan data is in tmp/against */
};

static int write_page(const char *out_path, const char *trace, const char *tmp,
		      struct page_inputs *in, unsigned *regressed)
{
	const char *mark = strstr(slubtrace_report_html, DATA_MARK);
	char path[PATH_MAX], when[64];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	int bad = 0;

	if (!mark) {
		cli_err("the report template has no data mark (a build problem)");
		return -1;
	}
	f = fopen(out_path, "w");
	if (!f) {
		cli_err("%s: %s", out_path, strerror(errno));
		return -1;
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fwrite(slubtrace_report_html, 1, (size_t)(mark - slubtrace_report_html), f);
	fprintf(f, "{\"meta\":{\"trace\":");
	json_str(f, trace);
	fprintf(f, ",\"generated\":\"%s\",\"version\":\"%s\"},\n\"scan\":", when,
		SLUBTRACE_VERSION);
	snprintf(path, sizeof(path), "%s/scan.json", tmp);
	bad |= copy_json(f, path);
	fprintf(f, ",\n\"lanes\":");
	snprintf(path, sizeof(path), "%s/lanes.json", tmp);
	bad |= copy_json(f, path);
	fprintf(f, ",\n\"stats\":");
	snprintf(path, sizeof(path), "%s/stats.json", tmp);
	bad |= copy_json(f, path);
	fprintf(f, ",\n\"diff\":");
	if (in->baseline)
		*regressed = write_diff(f, in->baseline, &in->before, &in->after);
	else
		fputs("null", f);
	fprintf(f, ",\n\"against\":");
	snprintf(path, sizeof(path), "%s/against/scan.json", tmp);
	if (in->against)
		bad |= write_against(f, in->against, &in->after, &in->other,
				     in->other_scanned ? path : NULL);
	else
		fputs("null", f);
	fputs("}", f);
	fputs(mark + strlen(DATA_MARK), f);
	if (fclose(f) || bad) {
		cli_err("%s: cannot write the page: %s", out_path, bad ? "data missing" : strerror(errno));
		return -1;
	}
	return 0;
}

/* The temporary directory's name leaves room in a PATH_MAX for the files in it. */
#define TMP_DIR_MAX (PATH_MAX - 64)

static void remove_tmp(const char *tmp)
{
	static const char *const files[] = {
		"scan.json", "lanes.json", "stats.json", "slabs.txt", "against/scan.json",
		"against/stats.json", "against/slabs.txt", "against",
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, files[i]);
		if (unlink(path) && errno == EISDIR)
			rmdir(path);
	}
	rmdir(tmp);
}

/* --against OTHER: a trace gets the scan pass too (its statistics and its
 * sheaf and barn lanes); a `slubtrace stats -o` report is read as diff reads it. */
static int load_against(struct page_inputs *in, const char *tmp, uint64_t top,
			uint64_t max_violations)
{
	char dir[TMP_DIR_MAX + 16], path[PATH_MAX], err[512];
	struct slub_plugin_result res;
	struct stat st;
	int rc;

	if (stat(in->against, &st) < 0) {
		cli_err("%s: %s", in->against, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	if (!S_ISDIR(st.st_mode)) {
		bt_value *p = bt_value_map_create();

		rc = p ? cli_load_result(in->against, p, &in->other) : cli_nomem();
		bt_value_put_ref(p);
		return rc;
	}
	snprintf(dir, sizeof(dir), "%s/against", tmp);
	if (mkdir(dir, 0700) < 0) {
		cli_err("%s: %s", dir, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	cli_info("reading %s", in->against);
	rc = run_pass(in->against, "scan", dir, top, max_violations, &res);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/stats.json", dir);
	if (slub_tstats_result_load(path, &in->other, err, sizeof(err))) {
		cli_err("%s", err);
		return CLI_EXIT_USAGE;
	}
	in->other_scanned = true;
	return 0;
}

static int parse_uint(const char *opt, const char *arg, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > max) {
		cli_err("--%s: expected an integer from 0 to %" PRIu64 ", got '%s'", opt, max, arg);
		return -1;
	}
	*out = v;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "against", required_argument, NULL, 'A' },
		{ "top", required_argument, NULL, 'T' },
		{ "max-violations", required_argument, NULL, 'V' },
		{ "reorder-ns", required_argument, NULL, 'R' },
		{ "cache", required_argument, NULL, 'C' },
		{ "procname", required_argument, NULL, 'P' },
		CLI_VERBOSITY_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	struct page_inputs in = { 0 };
	/* the same default as stats and top */
	uint64_t top = SLUB_TSTATS_DEFAULT_TOP_N, max_violations = 20;
	struct slub_plugin_result res, lanes;
	char scope[256] = "";
	char tmp[TMP_DIR_MAX], path[PATH_MAX], err[512];
	unsigned regressed = 0;
	int c, bad = 0, rc;
	struct stat st;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:hvq", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'B':
			in.baseline = optarg;
			break;
		case 'A':
			in.against = optarg;
			break;
		case 'T':
			bad |= parse_uint("top", optarg, 20, &top) < 0 || !top;
			break;
		case 'V':
			bad |= parse_uint("max-violations", optarg, 1000, &max_violations) < 0;
			break;
		case 'R':
			bad |= parse_uint("reorder-ns", optarg, UINT64_MAX, &reorder_ns) < 0;
			reorder_given = true;
			break;
		case 'C':
			filter_cache = optarg;
			break;
		case 'P':
			filter_procname = optarg;
			break;
		case 'h':
			cmd_report_usage(stdout);
			return 0;
		default:
			bad |= !cli_verbosity_option(c);
		}
	}
	if (!bad && optind != argc - 1) {
		cli_err("report: expected one TRACE_DIR");
		bad = 1;
	}
	if (!bad && !out) {
		cli_err("report: -o REPORT.html is required");
		bad = 1;
	}
	if (bad) {
		cmd_report_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (cli_tmp_template(tmp, sizeof(tmp), "report") < 0 || !mkdtemp(tmp)) {
		cli_err("cannot create a temporary directory in %s: %s", cli_tmpdir(),
			strerror(errno));
		return CLI_EXIT_USAGE;
	}
	rc = run_pass(argv[optind], "scan", tmp, top, max_violations, &res);
	if (!rc)
		rc = run_pass(argv[optind], "lanes", tmp, top, max_violations, &lanes);
	snprintf(path, sizeof(path), "%s/stats.json", tmp);
	if (!rc && (in.baseline || in.against) &&
	    slub_tstats_result_load(path, &in.after, err, sizeof(err))) {
		cli_err("%s", err);
		rc = CLI_EXIT_USAGE;
	}
	if (!rc && in.baseline) {
		bt_value *p = bt_value_map_create();

		if (!p || (filter_procname &&
			   bt_value_map_insert_string_entry(p, "procname", filter_procname)))
			rc = cli_nomem();
		else if (stat(in.baseline, &st) == 0 && S_ISDIR(st.st_mode))
			cli_info("reading the baseline %s", in.baseline);
		if (!rc)
			rc = cli_load_result(in.baseline, p, &in.before);
		bt_value_put_ref(p);
	}
	if (!rc && in.against)
		rc = load_against(&in, tmp, top, max_violations);
	if (!rc && write_page(out, argv[optind], tmp, &in, &regressed) < 0)
		rc = CLI_EXIT_USAGE;
	remove_tmp(tmp);
	slub_tstats_result_free(&in.before);
	slub_tstats_result_free(&in.after);
	slub_tstats_result_free(&in.other);
	if (rc)
		return rc;
	if (filter_cache || filter_procname)
		snprintf(scope, sizeof(scope), " (%s%s%s%s%s only)", filter_cache ? "cache " : "",
			 filter_cache ? filter_cache : "",
			 filter_cache && filter_procname ? ", " : "",
			 filter_procname ? "processes named " : "",
			 filter_procname ? filter_procname : "");
	if (stat(out, &st) == 0)
		printf("report: %s (%lld bytes): %" PRIu64 " events, %" PRIu64 " violations%s%s\n",
		       out, (long long)st.st_size, res.events, res.violations, scope,
		       in.baseline ? (regressed ? ", regression against the baseline"
					     : ", no regression against the baseline")
				: "");
	return 0;
}
