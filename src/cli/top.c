/* SPDX-License-Identifier: MIT */
/*
 * slubtrace top: sink.slub.top on a live session of an lttng-relayd
 * (src.ctf.lttng-live, as check --live reads it) or on a trace directory
 * replayed interval by interval.
 *
 * On a terminal the table is redrawn in place; stdin, when it is a
 * terminal too, goes to raw mode so that `q` quits at once, and is
 * restored on every way out (the end, q, SIGINT, SIGTERM, SIGHUP).  A key
 * or a signal reaches the sink through a pipe (its quit-fd): the sink
 * prints the interval so far and ends the graph, so a quit is clean.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"

void cmd_top_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace top [OPTIONS] TRACE_DIR\n"
		"       slubtrace top [OPTIONS] --live net://HOST[:PORT]/host/NAME/SESSION...\n"
		"       slubtrace top [OPTIONS] --all-sessions --live net://HOST[:PORT]...\n"
		"\n"
		"A table per interval of trace time, in the manner of slabtop: per cache the\n"
		"allocations, frees, slow-path operations and failed CAS (redos: slab word and\n"
		"cpu partial chain) per second, the retry storms that ended in the interval,\n"
		"list_lock acquisitions, their total wait and the longest hold; then the\n"
		"threads with the most redos and lock wait.  With --live, a live session of an\n"
		"lttng-relayd as it is recorded (the URL `slubtrace record --live` prints);\n"
		"else TRACE_DIR replayed interval by interval by the events' timestamps.\n"
		"Several URLs (after --live), or --all-sessions with a relay's URL (every\n"
		"session it lists when top starts), are shown in one table: programs of\n"
		"several hosts streaming to one relay; rows are per host and cache, and a HOST\n"
		"column (the trace's hostname) names each.\n"
		"\n"
		"On a terminal the table is redrawn in place (a trace directory at its own\n"
		"pace) and q quits; else, or with --batch, every line of each table starts\n"
		"with its interval's start time (seconds of the trace clock), for logs.\n"
		"Rates are counts over the interval's length: the last one, cut short by the\n"
		"end of the input, reads low.  With --counts, each column summed over the\n"
		"intervals (the longest hold: its largest) is what `slubtrace stats` reports;\n"
		"a storm counts in the interval where it ended.  Allocations and frees are\n"
		"events of their own, recorded with `record --objects`: without them the two\n"
		"columns show -.\n"
		"\n"
		"Options:\n"
		"      --live URL...     read live sessions (net://HOST[:PORT]/host/NAME/SESSION)\n"
		"      --all-sessions    with --live: each relay URL stands for all its sessions\n"
		"  -b, --batch           plain text lines, also on a terminal\n"
		"  -i, --interval T      the interval, of trace time: 1s (default), 250ms, 50us,\n"
		"                        1000ns, or seconds (0.5)\n"
		"  -s, --sort KEY        caches by redo (default), slow, alloc, free, storms,\n"
		"                        locks, wait, hold or name\n"
		"  -n, --top N           cache rows per table (default 10; on a terminal, as many\n"
		"                        as it has lines for)\n"
		"      --threads N       thread rows per table (default 5, 0 = none)\n"
		"      --counts          counts per interval instead of rates per second\n"
		"      --cache NAME      only this cache: its rows, storms, and the threads'\n"
		"                        redos and waits in it\n"
		"      --procname NAME   only the processes of this name (a cache or name the\n"
		"                        trace does not hold is refused at the end of the input,\n"
		"                        naming those it holds)\n"
		CLI_VERBOSITY_HELP
		"  -h, --help            show this help\n"
		"\n"
		"Exit status: 0 at the end of the input or on q or SIGINT, 2 the input cannot\n"
		"be used (no trace, unreachable relay, unknown session, bad URL).\n");
}

/* "1s", "250ms", "50us", "1000ns", or seconds with a fraction; 0 if bad. */
static unsigned long long parse_interval(const char *s)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0) || *s == '-' || *s == '+' || *s == ' ')
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			double ns = v * units[i].ns;

			return ns >= 1 && ns < 1e18 ? (unsigned long long)(ns + 0.5) : 0;
		}
	return 0;
}

static unsigned long long parse_rows(const char *opt, const char *s, int *bad)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end || *s == '-' || errno || v > 100000) {
		cli_err("%s: expected a number 0..100000, got '%s'", opt, s);
		*bad = 1;
	}
	return v;
}

/* ---- the terminal ------------------------------------------------------- */

static int quit_pipe[2] = { -1, -1 };
static struct termios saved;
static volatile sig_atomic_t raw_on;

static void restore_terminal(void)
{
	if (raw_on) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
		raw_on = 0;
	}
}

/* async-signal-safe: a byte to the sink; a second signal leaves at once */
static void on_signal(int sig)
{
	static volatile sig_atomic_t seen;
	char c = 'q';

	if (seen++) {
		restore_terminal();
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	(void)!write(quit_pipe[1], &c, 1);
}

static void *keys(void *arg)
{
	char c;

	(void)arg;
	while (read(STDIN_FILENO, &c, 1) == 1)
		if (c == 'q' || c == 'Q' || c == 3 /* ^C with ISIG off */) {
			(void)!write(quit_pipe[1], &c, 1);
			break;
		}
	return NULL;
}

static int raw_mode(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &saved) < 0)
		return -1;
	t = saved;
	/* keys one at a time, not echoed; ^C stays a signal */
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) < 0)
		return -1;
	raw_on = 1;
	return 0;
}

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "live", required_argument, NULL, 'L' },
		{ "all-sessions", no_argument, NULL, 'A' },
		{ "batch", no_argument, NULL, 'b' },
		{ "interval", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 'T' },
		{ "counts", no_argument, NULL, 'c' },
		{ "cache", required_argument, NULL, 'C' },
		{ "procname", required_argument, NULL, 'P' },
		CLI_VERBOSITY_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const sorts[] = { "redo", "slow", "alloc", "free", "storms", "locks",
					     "wait", "hold", "name" };
	struct slub_plugin_result res;
	struct sigaction sa = { 0 };
	const char *live = NULL, *input;
	char *urls = NULL;
	size_t nr_urls = 0;
	bool batch = false, screen, rows_given = false, all = false;
	unsigned long long threads = 5;
	bt_value *params;
	pthread_t kt;
	int c, bad = 0, rc;

	params = bt_value_map_create();
	if (!params) {
		cli_err("out of memory");
		return CLI_EXIT_USAGE;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "bi:s:n:hvq", opts, NULL)) != -1) {
		switch (c) {
		case 'L':
			live = optarg;
			break;
		case 'b':
			batch = true;
			break;
		case 'A':
			all = true;
			break;
		case 'i': {
			unsigned long long ns = parse_interval(optarg);

			if (!ns) {
				cli_err("--interval: expected a time such as 1s, 250ms, 50us or 0.5, "
					"got '%s'", optarg);
				bad = 1;
			}
			bt_value_map_insert_unsigned_integer_entry(params, "interval-ns", ns);
			break;
		}
		case 's': {
			size_t i;

			for (i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++)
				if (!strcmp(optarg, sorts[i]))
					break;
			if (i == sizeof(sorts) / sizeof(sorts[0])) {
				cli_err("--sort: redo, slow, alloc, free, storms, locks, wait, hold or "
					"name; not '%s'", optarg);
				bad = 1;
			}
			bt_value_map_insert_string_entry(params, "sort", optarg);
			break;
		}
		case 'n':
			bt_value_map_insert_unsigned_integer_entry(params, "top",
				parse_rows("--top", optarg, &bad));
			rows_given = true;
			break;
		case 'T':
			threads = parse_rows("--threads", optarg, &bad);
			bt_value_map_insert_unsigned_integer_entry(params, "threads", threads);
			break;
		case 'c':
			bt_value_map_insert_bool_entry(params, "counts", BT_TRUE);
			break;
		case 'C':
			bt_value_map_insert_string_entry(params, "cache", optarg);
			break;
		case 'P':
			bt_value_map_insert_string_entry(params, "procname", optarg);
			break;
		case 'h':
			cmd_top_usage(stdout);
			bt_value_put_ref(params);
			return 0;
		default:
			bad |= !cli_verbosity_option(c);
		}
	}
	if (!bad && all && !live) {
		cli_err("top: --all-sessions reads the relays given with --live URL");
		bad = 1;
	} else if (!bad && live && optind != argc && strncmp(argv[optind], "net://", 6)) {
		cli_err("top: --live URL or TRACE_DIR, not both");
		bad = 1;
	} else if (!bad && !live && optind != argc - 1) {
		cli_err("top: expected one TRACE_DIR, or --live URL");
		bad = 1;
	} else if (!bad && live && strncmp(live, "net://", 6)) {
		cli_err("top --live: expected a URL net://HOST[:PORT]/host/NAME/SESSION "
			"(record --live prints it), got '%s'", live);
		bad = 1;
	} else if (!bad && live) {
		/* the first URL is --live's argument, the others follow */
		char **in = calloc((size_t)(argc - optind) + 1, sizeof(*in));

		if (!in) {
			bt_value_put_ref(params);
			return cli_nomem();
		}
		in[0] = (char *)live;
		for (int i = optind; i < argc; i++)
			in[1 + i - optind] = argv[i];
		rc = live_inputs(1 + argc - optind, in, all, &urls, &nr_urls);
		free(in);
		if (rc >= 0) {
			bt_value_put_ref(params);
			return rc;
		}
		if ((all || nr_urls > 1) &&
		    bt_value_map_insert_bool_entry(params, "hosts", BT_TRUE)) {
			free(urls);
			bt_value_put_ref(params);
			return cli_nomem();
		}
	} else if (!bad && !live && !strncmp(argv[optind], "net://", 6)) {
		cli_err("top: a URL is read with --live %s", argv[optind]);
		bad = 1;
	}
	if (bad) {
		cmd_top_usage(stderr);
		bt_value_put_ref(params);
		return CLI_EXIT_USAGE;
	}
	input = live ? urls : argv[optind];
	screen = !batch && isatty(STDOUT_FILENO);
	if (pipe(quit_pipe) < 0) {
		cli_err("pipe: %s", strerror(errno));
		free(urls);
		bt_value_put_ref(params);
		return CLI_EXIT_USAGE;
	}
	bt_value_map_insert_string_entry(params, "format", screen ? "screen" : "text");
	bt_value_map_insert_signed_integer_entry(params, "quit-fd", quit_pipe[0]);
	if (screen && !live)
		bt_value_map_insert_bool_entry(params, "realtime", BT_TRUE);
	if (screen && !rows_given) {
		struct winsize ws;

		/* as many caches as the screen holds beside the header, the
		 * thread table and the "more caches" line */
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > threads + 9)
			bt_value_map_insert_unsigned_integer_entry(params, "top",
				ws.ws_row - threads - 6);
	}
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (screen && isatty(STDIN_FILENO) && raw_mode() == 0 &&
	    pthread_create(&kt, NULL, keys, NULL) == 0)
		pthread_detach(kt);
	/* a live table as soon as it is printed */
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = cli_run_graph(input, "top", params, &res);
	restore_terminal();
	bt_value_put_ref(params);
	free(urls);
	return rc;
}
