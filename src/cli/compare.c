/* SPDX-License-Identifier: MIT */
/*
 * slubtrace compare: a regression hunt in one command.
 *
 * Two sides (environment settings or library directories), N runs of CMD
 * per side, interleaved before/after so that a machine that drifts (other
 * load, thermal state) weighs on both sides alike.  Untraced runs give the
 * timings: wall time and every `name=value` figure CMD prints, compared by
 * Welch's t (welch.c).  Recorded runs (`slubtrace record`, the same
 * executable) are pooled per side and compared by the diff of analysis/stats,
 * exactly as `slubtrace diff --before ... --after ...` does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub_tstats.h"
#include "slub_json.h"
#include "welch.h"

#define CMP_MAX_RUNS	64
#define CMP_MAX_ENV	32
#define CMP_MAX_FIGS	64
#define CMP_MAX_ARGS	32
#define CMP_OUT_MAX	(16u << 20)	/* output kept per run; the rest is read and dropped */
#define CMP_LEVEL	0.95

void cmd_compare_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace compare [OPTIONS] -- CMD [ARGS]\n"
		"\n"
		"Run CMD on two sides, BEFORE and AFTER, N times each, interleaved (before,\n"
		"after, before, after, ...), and say whether AFTER is slower.\n"
		"\n"
		"A side is a set of environment settings (--before-env, --after-env; for\n"
		"example SLUBTRACE_VARIANT=partial-counters) and/or a directory holding a\n"
		"build of libslub-malloc.so and libslub-tp.so (--before-lib, --after-lib).\n"
		"\n"
		"Timing runs run CMD untraced with libslub-malloc.so preloaded (LD_PRELOAD,\n"
		"and LD_LIBRARY_PATH=DIR for a library directory; a side's own LD_PRELOAD\n"
		"setting replaces it, `--before-env LD_PRELOAD=` runs glibc malloc).  Each\n"
		"gives the wall time (wall_s), the peak resident set (max_rss_kib) and every\n"
		"line of CMD's output (stdout and stderr) of the form name=NUMBER.  Each\n"
		"figure is printed as mean +- standard deviation per side, and the change\n"
		"AFTER - BEFORE with its 95%% confidence interval by Welch's t test (unequal\n"
		"variances; the t quantile is computed for the Welch-Satterthwaite degrees\n"
		"of freedom, which are not integers).  A change is significant when its\n"
		"interval excludes 0; otherwise the output says it is not distinguishable\n"
		"from 0 at +-X%%, X the interval's half-width.\n"
		"\n"
		"Recorded runs run `slubtrace record --no-check` on CMD; the traces of each\n"
		"side are pooled and compared as `slubtrace diff --before ... --after ...`\n"
		"does (the same figures, thresholds and verdicts).\n"
		"\n"
		"Options:\n"
		"      --before-env K=V     an environment setting of the BEFORE side; repeatable\n"
		"      --after-env K=V      an environment setting of the AFTER side; repeatable\n"
		"      --before-lib DIR     the BEFORE side's libslub-malloc.so and libslub-tp.so\n"
		"      --after-lib DIR      the AFTER side's\n"
		"  -n, --runs N             runs per side, of each kind (default 5, at most %d)\n"
		"      --warmup N           untimed runs per side first (default 0)\n"
		"      --timing-only        no recorded runs\n"
		"      --record-only        no timing runs\n"
		"      --threshold PCT      a timing regression is a significant rise of more\n"
		"                           than PCT %% of the BEFORE mean (default 5)\n"
		"      --metric NAME        a figure that decides the exit status; repeatable\n"
		"                           (default: wall_s and every figure whose name ends\n"
		"                           in _ns, _us, _ms, _s or _cycles; lower is better)\n"
		"      --diff-threshold NAME=VALUE  a threshold of the trace diff, as\n"
		"                           `slubtrace diff -t`; repeatable\n"
		"      --record-arg ARG     an option passed to `slubtrace record` (for example\n"
		"                           --objects); repeatable\n"
		"      --cache NAME         the diff compares this cache's figures only (in\n"
		"                           place of the overall ones; a run without the cache\n"
		"                           is refused, naming its caches)\n"
		"      --procname NAME      the diff reads only the processes of this name\n"
		"                           (default: CMD's base name; '' for all)\n"
		"  -o, --output DIR         keep the recorded traces in DIR/before-K, DIR/after-K\n"
		"                           (DIR must be new or empty; default: a temporary\n"
		"                           directory, removed at the end)\n"
		"      --json               print the result as JSON (schema slubtrace-compare/1)\n"
		"  -h, --help               show this help\n"
		"\n"
		"A progress line is written on standard error when it is a terminal.\n"
		"\n"
		"Exit status: 0 no regression; 1 a deciding figure is significantly higher\n"
		"after, by more than the threshold, or a figure of the trace diff regressed;\n"
		"2 bad options, a side that cannot be used (a library directory without the\n"
		"libraries), CMD not found, or a run of CMD that failed (its output is shown).\n",
		CMP_MAX_RUNS);
}

struct side {
	const char *tag;		/* "before", "after" */
	const char *env[CMP_MAX_ENV];
	unsigned nr_env;
	const char *lib;
	char shim[PATH_MAX];
	char trace[CMP_MAX_RUNS][PATH_MAX];
	unsigned nr_traces;
};

struct figure {
	char name[64];
	double v[2][CMP_MAX_RUNS];
	unsigned n[2];
	bool gated;
	struct welch w;
};

struct compare {
	struct side side[2];
	unsigned runs, warmup;
	bool timing, record, json;
	double threshold;
	const char *metric[CMP_MAX_FIGS];
	unsigned nr_metric;
	const char *diff_thr[CMP_MAX_FIGS];
	unsigned nr_diff_thr;
	const char *record_arg[CMP_MAX_ARGS];
	unsigned nr_record_arg;
	const char *procname;
	const char *cache;
	const char *output;
	char workdir[PATH_MAX];
	bool remove_workdir;
	char **cmd;
	char cmd_path[PATH_MAX];
	struct figure fig[CMP_MAX_FIGS];
	unsigned nr_figs;
	bool progress;
	unsigned done, total;
};

enum {
	O_BENV = 256, O_AENV, O_BLIB, O_ALIB, O_WARMUP, O_TONLY, O_RONLY, O_THR, O_METRIC,
	O_DTHR, O_RARG, O_PROCNAME, O_JSON, O_CACHE,
};

static const struct option compare_opts[] = {
	{ "before-env", required_argument, NULL, O_BENV },
	{ "after-env", required_argument, NULL, O_AENV },
	{ "before-lib", required_argument, NULL, O_BLIB },
	{ "after-lib", required_argument, NULL, O_ALIB },
	{ "runs", required_argument, NULL, 'n' },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "timing-only", no_argument, NULL, O_TONLY },
	{ "record-only", no_argument, NULL, O_RONLY },
	{ "threshold", required_argument, NULL, O_THR },
	{ "metric", required_argument, NULL, O_METRIC },
	{ "diff-threshold", required_argument, NULL, O_DTHR },
	{ "record-arg", required_argument, NULL, O_RARG },
	{ "procname", required_argument, NULL, O_PROCNAME },
	{ "cache", required_argument, NULL, O_CACHE },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, O_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_count(const char *opt, const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < (long)min || v > (long)max) {
		cli_err("compare: %s: expected a whole number from %u to %u, got '%s'", opt, min,
			max, s);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int add_ptr(const char **arr, unsigned *nr, unsigned max, const char *opt, const char *v)
{
	if (*nr == max) {
		cli_err("compare: %s: at most %u", opt, max);
		return -1;
	}
	arr[(*nr)++] = v;
	return 0;
}

static int check_lib_dir(struct compare *c, struct side *s)
{
	static const char *const names[2] = { "libslub-malloc.so", "libslub-tp.so" };
	struct stat st;

	if (!s->lib)
		return 0;
	if (stat(s->lib, &st) < 0 || !S_ISDIR(st.st_mode)) {
		cli_err("compare: --%s-lib %s: not a directory", s->tag, s->lib);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		char p[PATH_MAX];

		if (i == 1 && !c->record)
			break;
		snprintf(p, sizeof(p), "%s/%s", s->lib, names[i]);
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
			cli_err("compare: --%s-lib %s: no %s in it", s->tag, s->lib, names[i]);
			return -1;
		}
	}
	return 0;
}

/* 0, -1 bad (usage to stderr), -2 help. */
static int parse_opts(int argc, char **argv, struct compare *c)
{
	int o, bad = 0;

	c->side[0].tag = "before";
	c->side[1].tag = "after";
	c->runs = 5;
	c->timing = c->record = true;
	c->threshold = 5;
	optind = 1;
	while ((o = getopt_long(argc, argv, "+hn:o:", compare_opts, NULL)) != -1) {
		int r = 0;
		switch (o) {
		case O_BENV:
		case O_AENV: {
			struct side *s = &c->side[o == O_AENV];
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg) {
				cli_err("compare: --%s-env: expected NAME=VALUE, got '%s'", s->tag,
					optarg);
				r = -1;
			} else {
				r = add_ptr(s->env, &s->nr_env, CMP_MAX_ENV, "--*-env", optarg);
			}
			break;
		}
		case O_BLIB:
		case O_ALIB:
			c->side[o == O_ALIB].lib = optarg;
			break;
		case 'n': r = parse_count("--runs", optarg, 1, CMP_MAX_RUNS, &c->runs); break;
		case O_WARMUP: r = parse_count("--warmup", optarg, 0, 100, &c->warmup); break;
		case O_TONLY: c->record = false; if (!c->timing) r = -1; break;
		case O_RONLY: c->timing = false; if (!c->record) r = -1; break;
		case O_THR: {
			char *end;
			errno = 0;
			c->threshold = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(c->threshold >= 0)) {
				cli_err("compare: --threshold: expected a percentage >= 0, got '%s'",
					optarg);
				r = -1;
			}
			break;
		}
		case O_METRIC:
			r = add_ptr(c->metric, &c->nr_metric, CMP_MAX_FIGS, "--metric", optarg);
			break;
		case O_DTHR:
			r = add_ptr(c->diff_thr, &c->nr_diff_thr, CMP_MAX_FIGS, "--diff-threshold",
				    optarg);
			break;
		case O_RARG:
			r = add_ptr(c->record_arg, &c->nr_record_arg, CMP_MAX_ARGS, "--record-arg",
				    optarg);
			break;
		case O_PROCNAME: c->procname = optarg; break;
		case O_CACHE: c->cache = optarg; break;
		case 'o': c->output = optarg; break;
		case O_JSON: c->json = true; break;
		case 'h': return -2;
		default: r = -1;
		}
		if (r)
			bad = 1;
	}
	if (!c->timing && !c->record) {
		cli_err("compare: --timing-only and --record-only exclude each other");
		bad = 1;
	}
	if (!bad && optind >= argc) {
		cli_err("compare: expected -- CMD [ARGS]");
		bad = 1;
	}
	if (bad)
		return -1;
	c->cmd = argv + optind;
	for (int i = 0; i < 2; i++)
		if (check_lib_dir(c, &c->side[i]))
			return -1;
	return 0;
}

/* ---- running CMD ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(struct compare *c, const char *what, const struct side *s)
{
	if (!c->progress)
		return;
	fprintf(stderr, "\rslubtrace compare: run %u of %u: %-6s %-8s", c->done + 1, c->total,
		s->tag, what);
	fflush(stderr);
}

static void progress_end(struct compare *c)
{
	if (c->progress)
		fprintf(stderr, "\r%60s\r", "");
}

/* In the child: the side's settings, after the preload so that they win. */
static void child_env(const struct side *s, bool timing)
{
	if (timing) {
		setenv("LD_PRELOAD", s->shim, 1);
		if (s->lib) {
			const char *old = getenv("LD_LIBRARY_PATH");
			char *v;
			if (old && *old && asprintf(&v, "%s:%s", s->lib, old) >= 0)
				setenv("LD_LIBRARY_PATH", v, 1);
			else
				setenv("LD_LIBRARY_PATH", s->lib, 1);
		}
	} else if (s->lib) {
		setenv("SLUBTRACE_LIBDIR", s->lib, 1);
	}
	for (unsigned i = 0; i < s->nr_env; i++) {
		char *kv = strdup(s->env[i]);
		if (kv)
			putenv(kv);
	}
}

struct run_result {
	int status;		/* wait status */
	double wall;
	long maxrss_kib;
	char *out;
	size_t len;
};

static int run_once(const char *path, char *const argv[], const struct side *s, bool timing,
		    struct run_result *r)
{
	int pfd[2];
	pid_t pid;
	struct rusage ru;
	size_t cap = 0;
	double t0;

	memset(r, 0, sizeof(*r));
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		cli_err("compare: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		cli_err("compare: fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		child_env(s, timing);
		execv(path, argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", cli_progname, path, strerror(errno));
		_exit(CLI_EXIT_NOEXEC);
	}
	close(pfd[1]);
	for (;;) {
		char buf[65536];
		ssize_t n = read(pfd[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (r->len + n + 1 > cap && r->len < CMP_OUT_MAX) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *p;
			while (ncap < r->len + n + 1)
				ncap *= 2;
			p = realloc(r->out, ncap);
			if (!p)
				continue;
			r->out = p;
			cap = ncap;
		}
		if (r->len + n + 1 <= cap) {
			memcpy(r->out + r->len, buf, n);
			r->len += n;
		}
	}
	close(pfd[0]);
	while (wait4(pid, &r->status, 0, &ru) < 0) {
		if (errno != EINTR) {
			cli_err("compare: wait: %s", strerror(errno));
			return -1;
		}
	}
	r->wall = now_s() - t0;
	r->maxrss_kib = ru.ru_maxrss;
	if (r->out)
		r->out[r->len] = 0;
	return 0;
}

/* Prints why a run failed, with the end of its output; -1. */
static int run_failed(const struct side *s, unsigned k, const char *what, const struct run_result *r)
{
	const char *tail = r->out ? r->out : "";

	if (r->len > 4000)
		tail = r->out + r->len - 4000;
	fprintf(stderr, "%s", tail);
	if (WIFSIGNALED(r->status))
		cli_err("compare: %s run %u of the %s side: killed by signal %d", what, k + 1,
			s->tag, WTERMSIG(r->status));
	else
		cli_err("compare: %s run %u of the %s side: exit status %d", what, k + 1, s->tag,
			WEXITSTATUS(r->status));
	return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static bool default_gated(const char *name)
{
	static const char *const units[] = { "_ns", "_us", "_ms", "_s", "_cycles" };

	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ends_with(name, units[i]))
			return true;
	return false;
}

static struct figure *figure_find(struct compare *c, const char *name)
{
	for (unsigned i = 0; i < c->nr_figs; i++)
		if (!strcmp(c->fig[i].name, name))
			return &c->fig[i];
	return NULL;
}

static struct figure *figure(struct compare *c, const char *name)
{
	struct figure *f = figure_find(c, name);

	if (f)
		return f;
	if (c->nr_figs == CMP_MAX_FIGS)
		return NULL;
	f = &c->fig[c->nr_figs++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	if (c->nr_metric) {
		for (unsigned i = 0; i < c->nr_metric; i++)
			if (!strcmp(c->metric[i], name))
				f->gated = true;
	} else {
		f->gated = !strcmp(name, "wall_s") || default_gated(name);
	}
	return f;
}

static void add_value(struct compare *c, unsigned side, const char *name, double v)
{
	struct figure *f = figure(c, name);

	if (f && f->n[side] < CMP_MAX_RUNS)
		f->v[side][f->n[side]++] = v;
}

/* The lines of CMD's output that are exactly name=NUMBER (blanks around). */
static void parse_figures(struct compare *c, unsigned side, char *out)
{
	for (char *line = out, *next; line && *line; line = next) {
		char *eq, *end, *p;
		double v;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		while (*line == ' ' || *line == '\t')
			line++;
		eq = strchr(line, '=');
		if (!eq || eq == line || eq - line >= 64)
			continue;
		p = line;
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			continue;
		for (; p < eq; p++)
			if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') ||
			      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
				break;
		if (p != eq)
			continue;
		errno = 0;
		v = strtod(eq + 1, &end);
		if (errno || end == eq + 1 || !isfinite(v))
			continue;
		while (*end == ' ' || *end == '\t' || *end == '\r')
			end++;
		if (*end)
			continue;
		*eq = 0;
		if (strcmp(line, "wall_s") && strcmp(line, "max_rss_kib"))
			add_value(c, side, line, v);
	}
}

static int timing_run(struct compare *c, unsigned side, unsigned k, bool warm)
{
	struct side *s = &c->side[side];
	struct run_result r;

	progress(c, warm ? "warm-up" : "timing", s);
	if (run_once(c->cmd_path, c->cmd, s, true, &r))
		return -1;
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		run_failed(s, k, warm ? "warm-up" : "timing", &r);
		free(r.out);
		return -1;
	}
	if (!warm) {
		add_value(c, side, "wall_s", r.wall);
		add_value(c, side, "max_rss_kib", (double)r.maxrss_kib);
		if (r.out)
			parse_figures(c, side, r.out);
	}
	free(r.out);
	c->done++;
	return 0;
}

static int record_run(struct compare *c, unsigned side, unsigned k)
{
	struct side *s = &c->side[side];
	char self[PATH_MAX], *argv[CMP_MAX_ARGS + 512];
	struct run_result r;
	unsigned n = 0;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len < 0) {
		cli_err("compare: cannot find the slubtrace executable: %s", strerror(errno));
		return -1;
	}
	self[len] = 0;
	if (snprintf(s->trace[k], sizeof(s->trace[k]), "%s/%s-%u", c->workdir, s->tag, k + 1) >=
	    (int)sizeof(s->trace[k])) {
		cli_err("compare: %s: path too long", c->workdir);
		return -1;
	}
	argv[n++] = self;
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = s->trace[k];
	argv[n++] = "--no-check";
	for (unsigned i = 0; i < c->nr_record_arg; i++)
		argv[n++] = (char *)c->record_arg[i];
	argv[n++] = "--";
	for (unsigned i = 0; c->cmd[i]; i++) {
		if (n == sizeof(argv) / sizeof(argv[0]) - 1) {
			cli_err("compare: too many arguments");
			return -1;
		}
		argv[n++] = c->cmd[i];
	}
	argv[n] = NULL;
	progress(c, "recorded", s);
	if (run_once(self, argv, s, false, &r))
		return -1;
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		run_failed(s, k, "recorded", &r);
		free(r.out);
		return -1;
	}
	free(r.out);
	s->nr_traces = k + 1;
	c->done++;
	return 0;
}

/* ---- the trace diff ---- */

struct pooled {
	struct slub_tstats_result pool[2];
	struct slub_tstats_result *runs[2][CMP_MAX_RUNS];
	struct slub_tstats_diff_config dc;
	unsigned regressed;
	bool loaded;
};

static int load_side(struct compare *c, struct pooled *p, unsigned side, bt_value *params)
{
	struct side *s = &c->side[side];
	char err[512];

	for (unsigned k = 0; k < s->nr_traces; k++) {
		struct slub_tstats_result *r = calloc(1, sizeof(*r));
		int rc;

		if (!r) {
			cli_err("out of memory");
			return -1;
		}
		p->runs[side][k] = r;
		rc = cli_load_result(s->trace[k], params, r);
		if (rc)
			return -1;
		if (c->cache && slub_tstats_result_only(r, c->cache, err, sizeof(err))) {
			cli_err("compare: %s: %s", s->trace[k], err);
			return -1;
		}
		if (!k) {
			/* the first run is the pool: a copy of its scopes */
			p->pool[side] = *r;
			p->pool[side].scope = malloc(r->nr_scopes * sizeof(*r->scope));
			if (!p->pool[side].scope) {
				cli_err("out of memory");
				return -1;
			}
			memcpy(p->pool[side].scope, r->scope, r->nr_scopes * sizeof(*r->scope));
		} else if (slub_tstats_result_pool(&p->pool[side], r, err, sizeof(err))) {
			cli_err("compare: %s: %s", s->trace[k], err);
			return -1;
		}
	}
	return 0;
}

static int run_diff(struct compare *c, struct pooled *p)
{
	bt_value *params = bt_value_map_create();
	char err[256];
	FILE *null;
	int rc = 0;

	slub_tstats_diff_defaults(&p->dc);
	for (unsigned i = 0; i < c->nr_diff_thr; i++)
		if (slub_tstats_diff_set(&p->dc, c->diff_thr[i], err, sizeof(err))) {
			cli_err("compare: --diff-threshold: %s", err);
			rc = -1;
		}
	if (!params) {
		cli_err("out of memory");
		return -1;
	}
	if (!rc && c->procname && *c->procname &&
	    bt_value_map_insert_string_entry(params, "procname", c->procname)) {
		cli_err("out of memory");
		rc = -1;
	}
	for (unsigned side = 0; side < 2 && !rc; side++)
		rc = load_side(c, p, side, params);
	bt_value_put_ref(params);
	if (rc)
		return -1;
	p->loaded = true;
	/* the count of regressed figures, as `slubtrace diff` reckons it */
	null = fopen("/dev/null", "w");
	if (!null) {
		cli_err("compare: /dev/null: %s", strerror(errno));
		return -1;
	}
	p->regressed = slub_tstats_diff(&p->pool[0], &p->pool[1], &p->dc, null);
	fclose(null);
	return 0;
}

static void pooled_free(struct pooled *p)
{
	for (unsigned side = 0; side < 2; side++) {
		if (p->loaded)
			slub_tstats_result_free(&p->pool[side]);
		for (unsigned k = 0; k < CMP_MAX_RUNS; k++)
			if (p->runs[side][k]) {
				slub_tstats_result_free(p->runs[side][k]);
				free(p->runs[side][k]);
			}
	}
}

/* ---- verdicts and output ---- */

enum fig_verdict { V_NA, V_SAME, V_HIGHER, V_LOWER, V_REGRESSED, V_IMPROVED };

static const char *const verdict_name[] = {
	[V_NA] = "n/a", [V_SAME] = "not distinguishable", [V_HIGHER] = "higher",
	[V_LOWER] = "lower", [V_REGRESSED] = "regressed", [V_IMPROVED] = "improved",
};

static enum fig_verdict judge(const struct compare *c, const struct figure *f)
{
	const struct welch *w = &f->w;
	double rel;

	if (!w->valid)
		return V_NA;
	if (!w->significant)
		return V_SAME;
	rel = w->a.mean != 0 ? 100 * w->diff / fabs(w->a.mean) : INFINITY;
	if (f->gated && rel > c->threshold)
		return V_REGRESSED;
	if (f->gated && -rel > c->threshold)
		return V_IMPROVED;
	return w->diff > 0 ? V_HIGHER : V_LOWER;
}

static double pct(double v, double base)
{
	return base != 0 ? 100 * v / fabs(base) : NAN;
}

static void print_side(const struct side *s)
{
	printf("%-7s", s->tag);
	if (!s->nr_env && !s->lib)
		printf(" (the environment as it is)");
	for (unsigned i = 0; i < s->nr_env; i++)
		printf(" %s", s->env[i]);
	if (s->lib)
		printf(" lib=%s", s->lib);
	putchar('\n');
}

static void print_text(const struct compare *c, const struct pooled *p)
{
	if (c->timing && c->record)
		printf("slubtrace compare: %u timing runs and %u recorded runs per side, "
		       "interleaved before/after\n", c->runs, c->runs);
	else
		printf("slubtrace compare: %u %s runs per side, interleaved before/after\n",
		       c->runs, c->timing ? "timing" : "recorded");
	print_side(&c->side[0]);
	print_side(&c->side[1]);
	printf("command:");
	for (unsigned i = 0; c->cmd[i]; i++)
		printf(" %s", c->cmd[i]);
	putchar('\n');
	if (c->timing) {
		printf("\ntiming runs (untraced): mean +- sd per side; change after - before with "
		       "its 95%% confidence interval (Welch's t)\n");
		printf("  %-24s %-24s %-24s %9s  %-24s %7s  %s\n", "figure", "before", "after",
		       "change", "95% CI of the change", "df", "verdict");
		for (unsigned i = 0; i < c->nr_figs; i++) {
			const struct figure *f = &c->fig[i];
			const struct welch *w = &f->w;
			enum fig_verdict v = judge(c, f);
			char b[64], a[64], ci[64], df[16], chg[32];

			snprintf(b, sizeof(b), "%.6g +- %.3g", w->a.mean, w->a.sd);
			snprintf(a, sizeof(a), "%.6g +- %.3g", w->b.mean, w->b.sd);
			if (w->valid && w->a.mean == 0)
				snprintf(ci, sizeof(ci), "[%+.4g, %+.4g]", w->lo, w->hi);
			else if (w->valid)
				snprintf(ci, sizeof(ci), "[%+.2f%%, %+.2f%%]", pct(w->lo, w->a.mean),
					 pct(w->hi, w->a.mean));
			else
				snprintf(ci, sizeof(ci), "(needs 2 runs per side)");
			if (!w->valid)
				snprintf(df, sizeof(df), "-");
			else if (isinf(w->df))
				snprintf(df, sizeof(df), "exact");
			else
				snprintf(df, sizeof(df), "%.1f", w->df);
			if (w->a.mean == 0)
				snprintf(chg, sizeof(chg), "%+.4g", w->diff);
			else
				snprintf(chg, sizeof(chg), "%+.2f%%", pct(w->diff, w->a.mean));
			printf("  %-24s %-24s %-24s %9s  %-24s %7s  %s", f->name, b, a, chg, ci, df,
			       verdict_name[v]);
			if (v == V_SAME && w->a.mean != 0)
				printf(" from 0 at +-%.2f%%",
				       pct((w->hi - w->lo) / 2, w->a.mean));
			else if (v == V_SAME)
				printf(" from 0 at +-%.4g", (w->hi - w->lo) / 2);
			if (v == V_HIGHER || v == V_LOWER)
				printf(f->gated ? " (significant, within %g%%)" : " (significant)",
				       c->threshold);
			if (f->gated)
				printf("  [decides]");
			putchar('\n');
		}
		printf("(a figure [decides] the exit status when it is significantly higher after "
		       "by more than %g%%)\n", c->threshold);
	}
	if (c->record) {
		printf("\nrecorded runs: the pooled diff of %u traces per side\n",
		       c->side[0].nr_traces);
		slub_tstats_diff(&p->pool[0], &p->pool[1], &p->dc, stdout);
	}
}

static void json_str(const char *s)
{
	if (slub_json_put(stdout, s))
		fputs("null", stdout);	/* no memory: the output stays valid JSON */
}

static void json_num(double v)
{
	if (isfinite(v))
		printf("%.9g", v);
	else
		printf("null");
}

static void json_side(const struct side *s)
{
	printf("{\"env\": [");
	for (unsigned i = 0; i < s->nr_env; i++) {
		printf(i ? ", " : "");
		json_str(s->env[i]);
	}
	printf("], \"lib\": ");
	if (s->lib)
		json_str(s->lib);
	else
		printf("null");
	printf(", \"traces\": [");
	for (unsigned k = 0; k < s->nr_traces; k++) {
		printf(k ? ", " : "");
		json_str(s->trace[k]);
	}
	printf("]}");
}

static void print_json(const struct compare *c, const struct pooled *p, int rc)
{
	printf("{\"schema\": \"slubtrace-compare/1\", \"runs\": %u, \"timing\": %s, "
	       "\"recorded\": %s,\n \"confidence\": 0.95, \"method\": \"welch-t\", "
	       "\"threshold_pct\": ", c->runs, c->timing ? "true" : "false",
	       c->record ? "true" : "false");
	json_num(c->threshold);
	printf(",\n \"command\": [");
	for (unsigned i = 0; c->cmd[i]; i++) {
		printf(i ? ", " : "");
		json_str(c->cmd[i]);
	}
	printf("],\n \"before\": ");
	json_side(&c->side[0]);
	printf(",\n \"after\": ");
	json_side(&c->side[1]);
	printf(",\n \"figures\": [");
	for (unsigned i = 0; c->timing && i < c->nr_figs; i++) {
		const struct figure *f = &c->fig[i];
		const struct welch *w = &f->w;

		printf(i ? ",\n  " : "\n  ");
		printf("{\"name\": ");
		json_str(f->name);
		printf(", \"decides\": %s, \"verdict\": \"%s\"", f->gated ? "true" : "false",
		       verdict_name[judge(c, f)]);
		for (unsigned side = 0; side < 2; side++) {
			const struct welch_side *ws = side ? &w->b : &w->a;
			printf(", \"%s\": {\"n\": %u, \"mean\": ", side ? "after" : "before", ws->n);
			json_num(ws->mean);
			printf(", \"sd\": ");
			json_num(ws->sd);
			printf(", \"values\": [");
			for (unsigned k = 0; k < f->n[side]; k++) {
				printf(k ? ", " : "");
				json_num(f->v[side][k]);
			}
			printf("]}");
		}
		printf(", \"diff\": ");
		json_num(w->diff);
		printf(", \"diff_pct\": ");
		json_num(pct(w->diff, w->a.mean));
		if (w->valid) {
			printf(", \"ci\": [");
			json_num(w->lo);
			printf(", ");
			json_num(w->hi);
			printf("], \"ci_pct\": [");
			json_num(pct(w->lo, w->a.mean));
			printf(", ");
			json_num(pct(w->hi, w->a.mean));
			printf("], \"df\": ");
			json_num(w->df);	/* null: both sides exact */
			printf(", \"t\": ");
			json_num(w->t_crit);
			printf(", \"significant\": %s", w->significant ? "true" : "false");
		} else {
			printf(", \"ci\": null");
		}
		printf("}");
	}
	printf("],\n \"diff\": ");
	if (!c->record) {
		printf("null");
	} else {
		bool same = !strcmp(p->pool[0].alloc_basis, p->pool[1].alloc_basis), first = true;
		static const char *const vname[] = { "n/a", "ok", "improved", "regressed" };

		printf("{\"regressed\": %u, \"figures\": [", p->regressed);
		for (unsigned sc = 0; sc < p->pool[0].nr_scopes; sc++) {
			const struct slub_tstats_scope *a = &p->pool[0].scope[sc], *b = NULL;

			for (unsigned j = 0; j < p->pool[1].nr_scopes; j++)
				if (!strcmp(p->pool[1].scope[j].name, a->name))
					b = &p->pool[1].scope[j];
			if (!b)
				continue;
			for (unsigned i = 0; i < SLUB_RATE_NR; i++) {
				const char *why;
				int v = slub_tstats_diff_judge(&p->dc, i, &a->fig[i], &b->fig[i],
							       same, &why);
				if (!v && sc)
					continue;
				printf(first ? "\n  " : ",\n  ");
				first = false;
				printf("{\"scope\": ");
				json_str(a->name);
				printf(", \"name\": \"%s\", \"before\": ", slub_tstats_rate_name(i));
				json_num(a->fig[i].den > 0 ? a->fig[i].value : NAN);
				printf(", \"after\": ");
				json_num(b->fig[i].den > 0 ? b->fig[i].value : NAN);
				printf(", \"verdict\": \"%s\"", vname[v < 0 || v > 3 ? 0 : v]);
				if (why && *why) {
					printf(", \"why\": ");
					json_str(why);
				}
				printf("}");
			}
		}
		printf("]}");
	}
	printf(",\n \"exit\": %d}\n", rc);
}

/* ---- the command ---- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int make_workdir(struct compare *c)
{
	if (!c->record)
		return 0;
	if (c->output) {
		struct stat st;
		if (mkdir(c->output, 0777) < 0 && errno != EEXIST) {
			cli_err("compare: -o %s: %s", c->output, strerror(errno));
			return -1;
		}
		if (stat(c->output, &st) < 0 || !S_ISDIR(st.st_mode)) {
			cli_err("compare: -o %s: not a directory", c->output);
			return -1;
		}
		for (unsigned side = 0; side < 2; side++) {
			char p[PATH_MAX];
			snprintf(p, sizeof(p), "%s/%s-1", c->output, c->side[side].tag);
			if (!stat(p, &st)) {
				cli_err("compare: -o %s: holds %s already (use a new directory)",
					c->output, p);
				return -1;
			}
		}
		snprintf(c->workdir, sizeof(c->workdir), "%s", c->output);
		return 0;
	}
	if (cli_tmp_template(c->workdir, sizeof(c->workdir), "compare") < 0 ||
	    !mkdtemp(c->workdir)) {
		cli_err("compare: cannot create a temporary directory in %s: %s", cli_tmpdir(),
			strerror(errno));
		return -1;
	}
	c->remove_workdir = true;
	return 0;
}

static int find_shims(struct compare *c)
{
	for (unsigned side = 0; side < 2 && c->timing; side++) {
		struct side *s = &c->side[side];
		if (s->lib) {
			if (snprintf(s->shim, sizeof(s->shim), "%s/libslub-malloc.so", s->lib) >=
			    (int)sizeof(s->shim))
				return -1;
		} else if (cli_find_lib("libslub-malloc.so", SLUBTRACE_BUILD_REL_SHIM, s->shim,
					sizeof(s->shim)) < 0) {
			return -1;
		}
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static struct compare c;
	struct pooled p;
	char procname[16];
	int rc = 0;

	memset(&c, 0, sizeof(c));
	memset(&p, 0, sizeof(p));
	switch (parse_opts(argc, argv, &c)) {
	case -2:
		cmd_compare_usage(stdout);
		return 0;
	case -1:
		fprintf(stderr, "Run `slubtrace compare --help` for the options.\n");
		return CLI_EXIT_USAGE;
	}
	if (cli_find_program(c.cmd[0], c.cmd_path, sizeof(c.cmd_path)) < 0) {
		cli_err("compare: %s: %s", c.cmd[0],
			errno == EACCES ? "not executable" : "command not found");
		return CLI_EXIT_USAGE;
	}
	if (!c.procname) {
		/* the kernel's comm: the base name, 15 bytes */
		const char *b = strrchr(c.cmd_path, '/');
		size_t n = strnlen(b ? b + 1 : c.cmd_path, sizeof(procname) - 1);

		memcpy(procname, b ? b + 1 : c.cmd_path, n);
		procname[n] = 0;
		c.procname = procname;
	}
	if (find_shims(&c) || make_workdir(&c))
		return CLI_EXIT_USAGE;
	c.progress = isatty(STDERR_FILENO);
	c.total = 2 * (c.warmup * c.timing + c.runs * (c.timing + c.record));
	for (unsigned k = 0; k < c.warmup && c.timing && !rc; k++)
		for (unsigned side = 0; side < 2 && !rc; side++)
			rc = timing_run(&c, side, k, true);
	for (unsigned k = 0; k < c.runs && !rc; k++) {
		for (unsigned side = 0; side < 2 && !rc && c.timing; side++)
			rc = timing_run(&c, side, k, false);
		for (unsigned side = 0; side < 2 && !rc && c.record; side++)
			rc = record_run(&c, side, k);
	}
	progress_end(&c);
	if (!rc && c.record)
		rc = run_diff(&c, &p);
	if (!rc) {
		bool regressed = c.record && p.regressed;

		for (unsigned i = 0; i < c.nr_figs; i++) {
			struct figure *f = &c.fig[i];
			welch_compare(f->v[0], f->n[0], f->v[1], f->n[1], CMP_LEVEL, &f->w);
			if (judge(&c, f) == V_REGRESSED)
				regressed = true;
		}
		for (unsigned i = 0; i < c.nr_metric && c.timing; i++)
			if (!figure_find(&c, c.metric[i]))
				cli_info("compare: note: --metric %s: no run printed it",
					 c.metric[i]);
		rc = regressed ? 1 : 0;
		if (c.json)
			print_json(&c, &p, rc);
		else
			print_text(&c, &p);
	} else {
		rc = CLI_EXIT_USAGE;
	}
	pooled_free(&p);
	if (c.remove_workdir)
		nftw(c.workdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}
