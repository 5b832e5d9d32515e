/* SPDX-License-Identifier: MIT */
/*
 * slubtrace record: run a program on the slubtrace allocator inside an
 * LTTng user-space recording session.
 *
 *   1. a session daemon: the user's, or one started here (and stopped here)
 *   2. a session writing to DIR (or a snapshot session), two channels that
 *      wait up to 1 s per event for the consumer when full (discard mode
 *      with --no-blocking, overwrite for snapshots): slub:*, whose events
 *      carry their pid and tid themselves (format 12: no context), and a
 *      small one with the contexts vpid and vtid for the lttng-ust statedump
 *      events that mark each registration and let the analysis symbolize
 *      stacks (and the dl/lib ones with --dlopen-events); the threads name
 *      themselves with slub:comm events: no procname on every event
 *   3. CMD with LD_PRELOAD = the malloc shim, the `slub` probe provider and
 *      lttng-ust's fork helper (and its dl helper with --dlopen-events)
 *   4. stop, count what was recorded and discarded, destroy
 *
 * The session is controlled with the lttng(1) command: its messages are
 * the ones LTTng users know, and this file needs no LTTng library.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"
#include "slub/event.h"

/*
 * Default ring buffer: 64 MiB shared by the CPUs, 8..32 MiB per CPU.  A
 * pipeline of 32 threads on 2 cores leaves the consumer daemon one thread
 * among 33 runnable ones: the buffers, not the consumer, absorb the bursts
 * (measured: hackbench -Q with 32 threads fills 12 MiB in 0.2 s).
 */
#define DEFAULT_BUFFER_TOTAL (64ull << 20)
#define DEFAULT_BUFFER_MIN (8ull << 20)
#define DEFAULT_BUFFER_MAX (32ull << 20)
#define CHANNEL "slubtrace"
/* LTTng-UST's own events, which carry no pid: the contexts give it.  A few
 * events per process: 4 x 64 KiB per CPU; an attached service's whole
 * statedump of its objects (its own LTTng-UST settings): 4 x 1 MiB. */
#define CHANNEL_UST "slubtrace_ust"
#define CHANNEL_UST_SUBBUF "--subbuf-size=65536"
#define CHANNEL_UST_SUBBUF_ATTACH "--subbuf-size=1048576"
#define CHANNEL_UST_NSUB "--num-subbuf=4"
#define SESSIOND_START_TIMEOUT_S 20
#define SESSIOND_STOP_TIMEOUT_S 10
#define MAX_CONTEXTS 8
/*
 * The default wait for the consumer daemon when the buffer is full, in
 * microseconds.  Discard mode lost 0 to 37 % of an event-dense pipeline's
 * 2.5M events on the 2-core machine (the consumer starved beside 32
 * threads, at any buffer size from 4M to 64M per CPU, on disk or tmpfs);
 * waiting lost none, for 5 to 45 % more of the program's own time than
 * discard mode, which wrote up to 40 % fewer events (doc/tracing.md).
 * Bounded, so that a consumer that stops draining costs a program at most
 * this per event, never a hang.
 */
#define DEFAULT_BLOCKING_US "1000000"

struct record_opts {
	const char *output;
	const char *stacks;
	const char *stack_depth;
	const char *nodes;
	const char *generation;	/* --generation: SLUBTRACE_GENERATION of CMD */
	unsigned long long buffer_size;
	const char *blocking;	/* lttng --blocking-timeout value, or NULL */
	bool no_blocking;	/* --no-blocking: discard mode */
	bool objects;
	bool snapshot;
	bool full_lists;
	bool dlopen_events;	/* --dlopen-events: liblttng-ust-dl preloaded */
	bool tsc_clock;		/* --clock tsc */
	bool check;
	const char *contexts[MAX_CONTEXTS];
	unsigned nr_contexts;
	char **cmd;
};

struct session {
	char name[64];
	char dir[PATH_MAX];
	pid_t sessiond;		/* the daemon started here, or 0 */
	char sessiond_log[PATH_MAX];
	bool created;
	bool started;
	unsigned snapshots;
};

void cmd_record_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace record [OPTIONS] -- CMD [ARGS]\n"
		"       slubtrace record [OPTIONS] --pid PID[,PID...] | --procname NAME\n"
		"\n"
		"Run CMD with the slubtrace malloc and record every slab state transition\n"
		"in an LTTng trace.  Exits with CMD's exit status (128+N when killed by\n"
		"signal N); 125 when tracing failed, 126/127 when CMD cannot run.\n"
		"\n"
		"Options:\n"
		"  -o, --output DIR       trace directory (default:\n"
		"                         ./slubtrace-trace-YYYYmmdd-HHMMSS); must be new or empty\n"
		"      --stacks LIST      events recorded with a call stack: comma-separated\n"
		"                         event names, `all` or `none`\n"
		"                         (default: cmpxchg_fail,error)\n"
		"      --stack-depth N    frames per stack, at most 64 (default 16)\n"
		"      --objects          also record one alloc/free event per object\n"
		"      --snapshot         flight-recorder session: keep the latest events in\n"
		"                         memory, write a snapshot at exit, on SIGUSR1 and on\n"
		"                         SIGINT\n"
		"      --trigger LIST     with --snapshot: write a snapshot when the in-process\n"
		"                         checker (SLUBTRACE_CHECK=report) sees one of LIST:\n"
		"                         violation, storm[=N] (a CAS retried N times, default\n"
		"                         16), error (an allocator error report); at most one\n"
		"                         per SLUBTRACE_TRIGGER_INTERVAL seconds (default 10);\n"
		"                         each in DIR/YYYYmmdd-HHMMSS-RULE-N, then checked;\n"
		"                         no snapshot at exit\n"
		"      --live             a live session: the events stream to an lttng-relayd\n"
		"                         as they are recorded (one is started on 127.0.0.1,\n"
		"                         writing to DIR, and stopped at the end); prints the\n"
		"                         URL for `slubtrace check --live URL`\n"
		"      --relay HOST[:PORT]  stream to the relay daemon on HOST instead (control\n"
		"                         PORT, default 5342; data PORT+1; live PORT+2); the\n"
		"                         trace then stays on that host, not checked here\n"
		"      --buffer-size SIZE ring buffer per CPU, suffix K, M or G (default: 64M\n"
		"                         shared by the CPUs, 8M to 32M per CPU)\n"
		"      --blocking[=TIMEOUT]  lose no event: a thread whose event finds the\n"
		"                         ring buffer full waits for the consumer daemon, up\n"
		"                         to TIMEOUT (inf, the default, or N with us, ms or s)\n"
		"                         per event; without the option, record waits up to\n"
		"                         1s (not with --snapshot, --pid or --procname).\n"
		"                         Cost: nothing while the buffer has room;\n"
		"                         when it fills, the program runs at the speed the\n"
		"                         trace is written to disk, and a thread that waits\n"
		"                         while holding a list_lock stalls the threads that\n"
		"                         need it, which changes the timing of the races being\n"
		"                         traced.  Not with --snapshot; keep --buffer-size at\n"
		"                         1M or more (with a few small sub-buffers LTTng can\n"
		"                         still lose an event behind a writer preempted in the\n"
		"                         middle of its own).\n"
		"      --no-blocking      discard mode: an event that finds the ring buffer\n"
		"                         full is lost (counted, and reported by the analysis\n"
		"                         as a gap); the program never waits\n"
		"      --nodes N          emulate N NUMA nodes (SLUBTRACE_NODES)\n"
		"      --generation GEN   the allocator generation CMD runs: classic (cpu slabs\n"
		"                         and cpu partial lists, the default) or sheaves\n"
		"                         (Linux 7.0's percpu sheaves and barns;\n"
		"                         SLUBTRACE_GENERATION)\n"
		"      --full-lists       keep full slabs on the node full lists (as the kernel\n"
		"                         does for debug caches only), so that add_full and\n"
		"                         remove_full are recorded; costs a list_lock in\n"
		"                         get_freelist, in the deactivation of a full slab and\n"
		"                         in the free that refreezes one, which the kernel\n"
		"                         does not take: lock contention reads higher\n"
		"      --no-full-lists    the kernel's behaviour, full slabs on no list (the\n"
		"                         default)\n"
		"      --dlopen-events    preload liblttng-ust-dl, so that a stack through a\n"
		"                         library loaded with dlopen() after the start is\n"
		"                         symbolized too; costs about 40 ms of CPU per traced\n"
		"                         process (its wrappers read every loaded object's\n"
		"                         ELF file again at each dlopen())\n"
		"      --no-dlopen-events the default: liblttng-ust-dl not preloaded; stacks\n"
		"                         are symbolized through the objects loaded at start\n"
		"      --clock CLOCK      the trace clock: monotonic (LTTng's clock_gettime,\n"
		"                         the default) or tsc (the invariant TSC through the\n"
		"                         libslub-tsc-clock.so plugin, read by the program and\n"
		"                         the daemons; needs a session daemon started here:\n"
		"                         none may be running; monotonic where the TSC is not\n"
		"                         one clock for the whole machine)\n"
		"      --context TYPE     add an LTTng context (see `lttng add-context --list`)\n"
		"                         to every event (the slub events carry their pid and\n"
		"                         tid themselves; procname: 16 bytes on every event,\n"
		"                         and the slub:comm events already name every thread)\n"
		"      --no-check         do not run `slubtrace check` on the trace at the end\n"
		"      --pid PID[,PID...] attach to running processes started with\n"
		"                         LD_PRELOAD=libslub-malloc.so:libslub-tp.so instead of\n"
		"                         running CMD: the session records only them, from now\n"
		"                         (the trace starts mid-run); they must run as this user\n"
		"                         with this LTTNG_HOME (else HOME), or this be root\n"
		"      --procname NAME    attach to every such process named NAME (its\n"
		"                         /proc/PID/comm), also those started while attached\n"
		"      --duration TIME    stop attaching after TIME (N, Ns, Nms, Nm, Nh);\n"
		"                         default: until SIGINT or until every process exited\n"
		"  -h, --help             show this help\n"
		"\n"
		"Environment:\n"
		"  SLUBTRACE_LIBDIR       directory holding libslub-malloc.so and libslub-tp.so\n"
		"  LTTNG_HOME             as for lttng(1): where a non-root session daemon lives\n"
		"  SLUBTRACE_TSC_CLOCK    off or force, for --clock tsc (see the plugin's notes\n"
		"                         in doc/allocator.md)\n"
		"  SLUBTRACE_FORK         eager: a forked child of CMD registers with the\n"
		"                         session daemon at the fork; default lazy (eager\n"
		"                         with --dlopen-events): before its first slub event\n"
		"                         (a child that execs first, never: its new image does)\n"
		"\n"
		"A session daemon is started (lttng-sessiond --no-kernel) when none is\n"
		"reachable, and stopped at the end.  The trace is then checked as\n"
		"`slubtrace check DIR` does: its report and verdict follow the recording\n"
		"summary (the exit status stays CMD's).  All of record's own lines are\n"
		"written on standard error: standard output holds only CMD's.  Read the\n"
		"trace with babeltrace2(1).\n");
}

/* ---- options ------------------------------------------------------------ */

static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		v <<= 10;
		end++;
		break;
	case 'm': case 'M':
		v <<= 20;
		end++;
		break;
	case 'g': case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end || v < 8192)
		return -1;
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -1;
	return (int)v;
}

enum {
	OPT_STACKS = 256,
	OPT_STACK_DEPTH,
	OPT_OBJECTS,
	OPT_SNAPSHOT,
	OPT_BUFFER_SIZE,
	OPT_NODES,
	OPT_GENERATION,
	OPT_FULL_LISTS,
	OPT_NO_FULL_LISTS,
	OPT_NO_DLOPEN,
	OPT_DLOPEN,
	OPT_CLOCK,
	OPT_CONTEXT,
	OPT_NO_CHECK,
	OPT_BLOCKING,
	OPT_NO_BLOCKING,
	OPT_PID,
	OPT_PROCNAME,
	OPT_DURATION,
	OPT_TRIGGER,
	OPT_LIVE,
	OPT_RELAY,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "stacks", required_argument, NULL, OPT_STACKS },
	{ "stack-depth", required_argument, NULL, OPT_STACK_DEPTH },
	{ "objects", no_argument, NULL, OPT_OBJECTS },
	{ "snapshot", no_argument, NULL, OPT_SNAPSHOT },
	{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
	{ "nodes", required_argument, NULL, OPT_NODES },
	{ "generation", required_argument, NULL, OPT_GENERATION },
	{ "full-lists", no_argument, NULL, OPT_FULL_LISTS },
	{ "no-full-lists", no_argument, NULL, OPT_NO_FULL_LISTS },
	{ "no-dlopen-events", no_argument, NULL, OPT_NO_DLOPEN },
	{ "dlopen-events", no_argument, NULL, OPT_DLOPEN },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "context", required_argument, NULL, OPT_CONTEXT },
	{ "no-check", no_argument, NULL, OPT_NO_CHECK },
	{ "blocking", optional_argument, NULL, OPT_BLOCKING },
	{ "no-blocking", no_argument, NULL, OPT_NO_BLOCKING },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "procname", required_argument, NULL, OPT_PROCNAME },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "relay", required_argument, NULL, OPT_RELAY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Per-CPU default: DEFAULT_BUFFER_TOTAL over the CPUs, a power of two. */
static unsigned long long default_buffer_size(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long per = DEFAULT_BUFFER_TOTAL / (unsigned long long)(ncpu > 0 ? ncpu : 1);
	unsigned long long p = DEFAULT_BUFFER_MIN;

	while (p * 2 <= per && p * 2 <= DEFAULT_BUFFER_MAX)
		p *= 2;
	return p;
}

/*
 * --stacks LIST, checked before anything starts: the traced program checks
 * it too (SLUBTRACE_STACKS), but only once it runs, in a session already
 * made.  The same grammar: names separated by commas or spaces, `slub:`
 * prefixes allowed, `all`, `none`.
 */
static int check_stacks(const char *v)
{
	const char *bad;
	uint64_t types;
	size_t len;

	if (slub_event_list_parse(v, &types, &bad, &len) < 0) {
		cli_err("--stacks: unknown event '%.*s' (event names of `slubtrace rules`, "
			"all or none)", (int)len, bad);
		return -1;
	}
	return 0;
}

/*
 * --blocking's TIMEOUT as lttng enable-channel --blocking-timeout wants it:
 * "inf" or microseconds.  Returns 0, or -1 when it is not a duration.
 */
static int parse_blocking(const char *s, char *out, size_t size)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!s || !strcmp(s, "inf")) {
		snprintf(out, size, "inf");
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (!strcmp(end, "s"))
		mul = 1000000;
	else if (!strcmp(end, "ms"))
		mul = 1000;
	else if (*end && strcmp(end, "us"))
		return -1;
	if (v > (1ull << 40) / mul)
		return -1;
	snprintf(out, size, "%llu", v * mul);
	return 0;
}

/* Returns -1 to continue, else the exit code. */
static int parse_opts(int argc, char **argv, struct record_opts *o)
{
	int c;

	static char blocking[32];

	memset(o, 0, sizeof(*o));
	o->buffer_size = default_buffer_size();
	o->full_lists = false; /* the kernel's behaviour for non-debug caches */
	o->check = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case OPT_STACKS:
			if (check_stacks(optarg) < 0)
				return CLI_EXIT_USAGE;
			o->stacks = optarg;
			break;
		case OPT_STACK_DEPTH:
			if (parse_uint(optarg, 64) < 0) {
				cli_err("--stack-depth: expected 0..64, got '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			o->stack_depth = optarg;
			break;
		case OPT_OBJECTS:
			o->objects = true;
			break;
		case OPT_SNAPSHOT:
			o->snapshot = true;
			break;
		case OPT_BUFFER_SIZE:
			if (parse_size(optarg, &o->buffer_size) < 0) {
				cli_err("--buffer-size: expected a size of at least 8K such as 4M, got '%s'",
					optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case OPT_NODES:
			if (parse_uint(optarg, 8) < 1) {
				cli_err("--nodes: expected 1..8, got '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			o->nodes = optarg;
			break;
		case OPT_GENERATION:
			if (strcmp(optarg, "classic") && strcmp(optarg, "sheaves")) {
				cli_err("--generation: expected classic or sheaves, got '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			o->generation = optarg;
			break;
		case OPT_FULL_LISTS:
			o->full_lists = true;
			break;
		case OPT_NO_FULL_LISTS:
			o->full_lists = false;
			break;
		case OPT_NO_DLOPEN:
			o->dlopen_events = false;
			break;
		case OPT_DLOPEN:
			o->dlopen_events = true;
			break;
		case OPT_CLOCK:
			if (strcmp(optarg, "tsc") && strcmp(optarg, "monotonic")) {
				cli_err("--clock: expected monotonic or tsc, got '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			o->tsc_clock = !strcmp(optarg, "tsc");
			break;
		case OPT_CONTEXT:
			if (o->nr_contexts == MAX_CONTEXTS) {
				cli_err("--context: at most %d", MAX_CONTEXTS);
				return CLI_EXIT_USAGE;
			}
			o->contexts[o->nr_contexts++] = optarg;
			break;
		case OPT_NO_CHECK:
			o->check = false;
			break;
		case OPT_BLOCKING:
			if (parse_blocking(optarg, blocking, sizeof(blocking)) < 0) {
				cli_err("--blocking: expected inf or a duration such as 500ms, got '%s'",
					optarg);
				return CLI_EXIT_USAGE;
			}
			o->blocking = blocking;
			o->no_blocking = false;
			break;
		case OPT_NO_BLOCKING:
			o->blocking = NULL;
			o->no_blocking = true;
			break;
		case OPT_PID:
		case OPT_PROCNAME:
		case OPT_DURATION: {
			int rc = attach_option(ATTACH_OPT_PID + (c - OPT_PID), optarg);

			if (rc >= 0)
				return rc;
			break;
		}
		case OPT_LIVE:
		case OPT_RELAY:
			c = live_option(c == OPT_RELAY, optarg);
			if (c >= 0)
				return c;
			break;
		case OPT_TRIGGER:
			c = snapshot_option(optarg);
			if (c >= 0)
				return c;
			break;
		case 'h':
			cmd_record_usage(stdout);
			return 0;
		default:
			cmd_record_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	c = attach_check_opts(optind < argc);
	if (c < 0)
		c = snapshot_check_opts(o->snapshot);
	if (c < 0)
		c = live_check_opts(o->snapshot);
	if (c >= 0)
		return c;
	if (optind >= argc && !attach_requested()) {
		cli_err("record: no command given (slubtrace record [OPTIONS] -- CMD [ARGS])");
		return CLI_EXIT_USAGE;
	}
	if (o->blocking && o->snapshot) {
		cli_err("--blocking and --snapshot: a flight recorder overwrites, it never waits");
		return CLI_EXIT_USAGE;
	}
	if (!o->blocking && !o->no_blocking && !o->snapshot && !attach_requested())
		o->blocking = DEFAULT_BLOCKING_US;
	o->cmd = argv + optind;
	return -1;
}

/* ---- libraries ---------------------------------------------------------- */

static bool file_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * `name` from $SLUBTRACE_LIBDIR alone when set; else next to the executable
 * in the install layout (bin/ -> lib/) or in the build tree.
 */
int cli_find_lib(const char *name, const char *build_rel, char *out, size_t size)
{
	const char *env = getenv("SLUBTRACE_LIBDIR");
	char exe[PATH_MAX];
	const char *rel[2] = { SLUBTRACE_INSTALL_REL_LIBDIR, build_rel };

	if (env && *env) {
		if (snprintf(out, size, "%s/%s", env, name) < (int)size && file_exists(out))
			return 0;
		cli_err("%s not found in SLUBTRACE_LIBDIR=%s", name, env);
		return -1;
	}
	if (cli_exe_dir(exe, sizeof(exe)) < 0) {
		cli_err("cannot find the slubtrace executable's directory: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX];

		if (snprintf(path, sizeof(path), "%s/%s/%s", exe, rel[i], name) >= (int)sizeof(path))
			continue;
		if (file_exists(path) && realpath(path, out))
			return 0;
	}
	cli_err("%s not found in %s/%s nor %s/%s (set SLUBTRACE_LIBDIR)", name, exe, rel[0],
		exe, rel[1]);
	return -1;
}

/*
 * --clock tsc: LTTNG_UST_CLOCK_PLUGIN for the daemons started here and for
 * CMD, when the plugin finds the machine's TSC fit (else a note, and
 * LTTng's clock).  Returns 0, or -1 after a message.
 */
static bool sessiond_reachable(void);

static int use_tsc_clock(void)
{
	char path[PATH_MAX], why[160];
	int (*usable)(char *, size_t);
	void *h;

	if (attach_requested()) {
		cli_err("--clock tsc: an attached process chose its clock at its start "
			"(LTTNG_UST_CLOCK_PLUGIN)");
		return -1;
	}
	if (cli_find_lib("libslub-tsc-clock.so", SLUBTRACE_BUILD_REL_CLOCK, path,
			 sizeof(path)) < 0)
		return -1;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	usable = h ? (int (*)(char *, size_t))dlsym(h, "slub_tsc_clock_usable") : NULL;
	if (!usable) {
		cli_err("--clock tsc: cannot load %s: %s", path, dlerror());
		return -1;
	}
	if (!usable(why, sizeof(why))) {
		cli_info("--clock tsc: %s: the trace keeps LTTng's CLOCK_MONOTONIC", why);
		return 0;
	}
	/* The session daemon writes the clock's frequency in the metadata and
	 * the consumer daemon stamps the packets it closes: a daemon already
	 * running reads another clock. */
	if (sessiond_reachable()) {
		cli_err("--clock tsc: a session daemon is already running; it and its consumer "
			"daemon must read the same clock as the program: stop it, or record "
			"with another LTTNG_HOME");
		return -1;
	}
	setenv("LTTNG_UST_CLOCK_PLUGIN", path, 1);
	return 0;
}

/* ---- the trace directory ------------------------------------------------ */

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
			break;
		}
	}
	closedir(d);
	return empty;
}

static int prepare_dir(const struct record_opts *o, struct session *s)
{
	char def[64];
	const char *dir = o->output;
	struct stat st;

	if (!dir) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(def, sizeof(def), "slubtrace-trace-%Y%m%d-%H%M%S", &tm);
		dir = def;
	}
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			cli_err("%s exists and is not a directory", dir);
			return -1;
		}
		if (!dir_is_empty(dir)) {
			cli_err("%s is not empty: choose a new trace directory with -o", dir);
			return -1;
		}
	} else if (mkdir_p(dir) < 0) {
		cli_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		cli_err("%s is not writable: %s", dir, strerror(errno));
		return -1;
	}
	if (!realpath(dir, s->dir)) {
		cli_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- lttng(1) ----------------------------------------------------------- */

/* Runs `lttng ARGS...`; on failure prints what lttng said. */
int lttng(struct cli_output *keep, ...)
{
	char *argv[24];
	int argc = 0;
	va_list ap;
	struct cli_output out;
	int rc;

	argv[argc++] = "lttng";
	va_start(ap, keep);
	while (argc < 23) {
		char *a = va_arg(ap, char *);

		if (!a)
			break;
		argv[argc++] = a;
	}
	va_end(ap);
	argv[argc] = NULL;
	rc = cli_run(argv, &out);
	if (rc != 0) {
		char cmd[512] = "";

		for (int i = 0; i < argc; i++) {
			strncat(cmd, argv[i], sizeof(cmd) - strlen(cmd) - 2);
			strncat(cmd, " ", sizeof(cmd) - strlen(cmd) - 1);
		}
		cli_err("`%s` failed (exit %d)%s%s", cmd, rc, out.len ? ":\n" : "",
			out.text ? out.text : "");
	}
	if (keep && rc == 0)
		*keep = out;
	else
		cli_output_free(&out);
	return rc;
}

static bool sessiond_reachable(void)
{
	char *argv[] = { "lttng", "--no-sessiond", "list", NULL };

	return cli_run(argv, NULL) == 0;
}

static volatile sig_atomic_t sessiond_ready;

static void on_sessiond_ready(int sig)
{
	(void)sig;
	sessiond_ready = 1;
}

/*
 * Starts `lttng-sessiond --no-kernel` as a child in its own session, so that
 * this process knows exactly which daemon it owns; --sig-parent tells when
 * it accepts clients.
 */
static int start_sessiond(struct session *s)
{
	char *argv[] = { "lttng-sessiond", "--no-kernel", "--sig-parent", NULL };
	struct sigaction sa = { .sa_handler = on_sessiond_ready }, old;
	sigset_t block, prev;
	pid_t pid;

	/* SIGUSR1 is blocked from before the fork: the daemon's signal stays
	 * pending until the wait below.  The daemon runs with the old mask. */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &prev);
	sigaction(SIGUSR1, &sa, &old);
	sessiond_ready = 0;

	pid = cli_start_daemon(argv, "sessiond", "the session daemon", &prev, s->sessiond_log,
			       sizeof(s->sessiond_log));
	if (pid < 0) {
		sigaction(SIGUSR1, &old, NULL);
		sigprocmask(SIG_SETMASK, &prev, NULL);
		return -1;
	}
	s->sessiond = pid;

	for (int waited = 0; !sessiond_ready; waited++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		sigset_t wait_set = prev;
		int status;

		sigdelset(&wait_set, SIGUSR1);
		if (waitpid(pid, &status, WNOHANG) == pid) {
			s->sessiond = 0;
			cli_err("the session daemon refused to start (log: %s)", s->sessiond_log);
			break;
		}
		if (waited >= SESSIOND_START_TIMEOUT_S * 10) {
			cli_err("the session daemon did not become ready in %d s (log: %s)",
				SESSIOND_START_TIMEOUT_S, s->sessiond_log);
			break;
		}
		/* SIGUSR1 stays blocked except inside this wait. */
		sigprocmask(SIG_SETMASK, &wait_set, NULL);
		nanosleep(&ts, NULL);
		sigprocmask(SIG_BLOCK, &block, NULL);
	}
	sigaction(SIGUSR1, &old, NULL);
	sigprocmask(SIG_SETMASK, &prev, NULL);
	return sessiond_ready ? 0 : -1;
}

/* Sessions the daemon still has (`lttng list`: "  N) NAME ..." lines),
 * or -1 when it cannot tell. */
static int sessions_left(void)
{
	char *argv[] = { "lttng", "list", NULL };
	struct cli_output out;
	int n = 0;

	if (cli_run(argv, &out) || !out.text) {
		cli_output_free(&out);
		return -1;
	}
	for (const char *l = out.text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;

		while (*p == ' ')
			p++;
		if (p > l && *p >= '0' && *p <= '9') {
			while (*p >= '0' && *p <= '9')
				p++;
			n += p[0] == ')' && p[1] == ' ';
		}
	}
	cli_output_free(&out);
	return n;
}

static void stop_sessiond(struct session *s, bool keep_log)
{
	int status;

	/* The daemon this run started may serve another run's session by
	 * now (a second `slubtrace record` found it and used it): stopping
	 * it would end that recording.  Leave it to them. */
	if (s->sessiond > 0) {
		int left = sessions_left();

		if (left > 0) {
			cli_info("note: the session daemon started for this run (pid %ld) also "
				 "records other sessions now; left running", (long)s->sessiond);
			s->sessiond = 0;
		} else if (left < 0) {
			cli_info("note: `lttng list` failed: cannot tell whether the session daemon "
				 "started for this run (pid %ld) serves other sessions; stopping it",
				 (long)s->sessiond);
		}
	}
	if (s->sessiond > 0) {
		kill(s->sessiond, SIGTERM);
		for (int i = 0; i < SESSIOND_STOP_TIMEOUT_S * 10; i++) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };

			if (waitpid(s->sessiond, &status, WNOHANG) == s->sessiond) {
				s->sessiond = 0;
				break;
			}
			nanosleep(&ts, NULL);
		}
		if (s->sessiond > 0) {
			kill(s->sessiond, SIGKILL);
			waitpid(s->sessiond, &status, 0);
			s->sessiond = 0;
		}
	}
	if (s->sessiond_log[0] && !keep_log)
		unlink(s->sessiond_log);
}

/*
 * Whether the traced program records call stacks: --stacks, else its
 * SLUBTRACE_STACKS, else the default types; none with a depth of 0.
 */
static bool stacks_recorded(const struct record_opts *o)
{
	const char *list = o->stacks ? o->stacks : getenv("SLUBTRACE_STACKS");
	const char *depth = o->stack_depth ? o->stack_depth : getenv("SLUBTRACE_STACK_DEPTH");
	const char *bad;
	uint64_t types = 1;
	size_t len;

	if (depth && !strcmp(depth, "0"))
		return false;
	if (list && slub_event_list_parse(list, &types, &bad, &len) < 0)
		return true;
	return types != 0;
}

/*
 * The LTTng-UST events the symbolizer reads, and no other: every event
 * enabled in the session costs each traced process a round trip with the
 * session daemon when it registers (its field description).  The
 * statedump's start marks a process's registration (the model waits for
 * it before judging a forked child).  The objects loaded are named by the
 * allocator's own slub:bin_info (read from memory, only with stacks), so
 * LTTng-UST's statedump of them, which reads each object's ELF file at
 * each registration, is off (LTTNG_UST_WITHOUT_BADDR_STATEDUMP, set for
 * CMD); with --dlopen-events the dl/lib events name those loaded later.
 */
static const char *symbol_events(const struct record_opts *o)
{
	/* An attached service chose its stacks and helpers at its start. */
	if (attach_requested())
		return "lttng_ust_statedump:start,lttng_ust_statedump:bin_info,"
		       "lttng_ust_statedump:build_id,lttng_ust_dl:*,lttng_ust_lib:*";
	if (!stacks_recorded(o) || !o->dlopen_events)
		return "lttng_ust_statedump:start";
	return "lttng_ust_statedump:start,lttng_ust_dl:dlopen,lttng_ust_dl:dlmopen,"
	       "lttng_ust_dl:build_id,lttng_ust_dl:dlclose,lttng_ust_lib:load,"
	       "lttng_ust_lib:build_id,lttng_ust_lib:unload";
}

static int setup_session(const struct record_opts *o, struct session *s)
{
	char subbuf[32], nsub[16], blocking[48];
	const char *ust_subbuf = attach_requested() ? CHANNEL_UST_SUBBUF_ATTACH :
		CHANNEL_UST_SUBBUF;
	unsigned long long n = 8, size;

	snprintf(s->name, sizeof(s->name), "slubtrace-%ld-%ld", (long)getpid(),
		 (long)time(NULL));

	if (live_requested()) {
		if (live_create(s->name))
			return -1;
	} else if (o->snapshot) {
		char out[PATH_MAX + 16];

		snprintf(out, sizeof(out), "--output=%s", s->dir);
		if (lttng(NULL, "create", s->name, "--snapshot", out, NULL))
			return -1;
	} else {
		char out[PATH_MAX + 16];

		snprintf(out, sizeof(out), "--output=%s", s->dir);
		if (lttng(NULL, "create", s->name, out, NULL))
			return -1;
	}
	s->created = true;

	/* Sub-buffers: powers of two, 8 of them unless that makes them tiny. */
	size = o->buffer_size / n;
	while (n > 2 && size < (64u << 10)) {
		n /= 2;
		size = o->buffer_size / n;
	}
	for (unsigned long long p = 4096; ; p <<= 1) {
		if (p * 2 > size) {
			size = p;
			break;
		}
	}
	snprintf(subbuf, sizeof(subbuf), "--subbuf-size=%llu", size);
	snprintf(nsub, sizeof(nsub), "--num-subbuf=%llu", n);
	if (o->blocking) {
		snprintf(blocking, sizeof(blocking), "--blocking-timeout=%s", o->blocking);
		if (lttng(NULL, "enable-channel", "--userspace", "--session", s->name, subbuf,
			  nsub, "--discard", blocking, CHANNEL, NULL) ||
		    lttng(NULL, "enable-channel", "--userspace", "--session", s->name,
			  ust_subbuf, CHANNEL_UST_NSUB, "--discard", blocking, CHANNEL_UST, NULL))
			return -1;
	} else if (lttng(NULL, "enable-channel", "--userspace", "--session", s->name, subbuf,
			 nsub, o->snapshot ? "--overwrite" : "--discard", CHANNEL, NULL) ||
		   lttng(NULL, "enable-channel", "--userspace", "--session", s->name,
			 ust_subbuf, CHANNEL_UST_NSUB,
			 o->snapshot ? "--overwrite" : "--discard", CHANNEL_UST, NULL)) {
		return -1;
	}

	/* alloc/free sit at TRACE_DEBUG, every other slub event above it. */
	if (o->objects) {
		if (lttng(NULL, "enable-event", "--userspace", "--session", s->name,
			  "--channel", CHANNEL, "slub:*", NULL))
			return -1;
	} else if (lttng(NULL, "enable-event", "--userspace", "--session", s->name,
			 "--channel", CHANNEL, "--loglevel=TRACE_DEBUG_LINE", "slub:*", NULL)) {
		return -1;
	}
	if (lttng(NULL, "enable-event", "--userspace", "--session", s->name, "--channel",
		  CHANNEL_UST, symbol_events(o), NULL))
		return -1;
	if (lttng(NULL, "add-context", "--userspace", "--session", s->name, "--channel",
		  CHANNEL_UST, "--type=vpid", "--type=vtid", NULL))
		return -1;
	/* An attached service may run a slubtrace older than format 12,
	 * whose events have no pid of their own. */
	if (attach_requested() &&
	    lttng(NULL, "add-context", "--userspace", "--session", s->name, "--channel",
		  CHANNEL, "--type=vpid", "--type=vtid", NULL))
		return -1;
	for (unsigned i = 0; i < o->nr_contexts; i++) {
		char type[128];

		snprintf(type, sizeof(type), "--type=%s", o->contexts[i]);
		/* vpid and vtid: already on the channels that need them */
		if ((!strcmp(o->contexts[i], "vpid") || !strcmp(o->contexts[i], "vtid")) &&
		    attach_requested())
			continue;
		if (lttng(NULL, "add-context", "--userspace", "--session", s->name, "--channel",
			  CHANNEL, type, NULL))
			return -1;
		if (strcmp(o->contexts[i], "vpid") && strcmp(o->contexts[i], "vtid") &&
		    lttng(NULL, "add-context", "--userspace", "--session", s->name, "--channel",
			  CHANNEL_UST, type, NULL))
			return -1;
	}
	if (attach_requested() && attach_track(s->name))
		return -1;
	if (snapshot_add_trigger(s->name))
		return -1;
	if (lttng(NULL, "start", s->name, NULL))
		return -1;
	s->started = true;
	live_announce(s->name);
	return 0;
}

static int take_snapshot(struct session *s)
{
	if (lttng(NULL, "snapshot", "record", "--session", s->name, NULL))
		return -1;
	s->snapshots++;
	return 0;
}

/* "Discarded events: N" and "Lost packets: N" of `lttng list SESSION`. */
static void read_losses(struct session *s, unsigned long long *discarded,
			unsigned long long *lost)
{
	struct cli_output out;

	*discarded = 0;
	*lost = 0;
	if (lttng(&out, "list", s->name, NULL) || !out.text)
		return;
	for (char *p = out.text; (p = strstr(p, ":")); p++) {
		const char *line = p;

		while (line > out.text && line[-1] != '\n')
			line--;
		while (*line == ' ')
			line++;
		if (!strncmp(line, "Discarded events:", 17))
			*discarded += strtoull(p + 1, NULL, 10);
		else if (!strncmp(line, "Lost packets:", 13))
			*lost += strtoull(p + 1, NULL, 10);
	}
	cli_output_free(&out);
}

static void finish_session(struct session *s)
{
	snapshot_remove_trigger();
	if (s->started)
		lttng(NULL, "stop", s->name, NULL);
	s->started = false;
	if (s->created)
		lttng(NULL, "destroy", s->name, NULL);
	s->created = false;
}

/* Event messages babeltrace2 reads back from the trace, or -1. */
static long long count_events(const char *dir)
{
	char path[PATH_MAX];
	char *argv[] = { "babeltrace2", (char *)dir, "--component=sink.utils.counter",
			 "--params=step=+0", NULL };
	struct cli_output out;
	long long n = -1;

	if (cli_find_program("babeltrace2", path, sizeof(path)) < 0)
		return -1;
	if (cli_run(argv, &out) == 0 && out.text) {
		char *p = NULL;

		/* The last report is the total. */
		for (char *q = out.text; (q = strstr(q, " Event messages")); q++)
			p = q;
		if (p) {
			while (p > out.text && p[-1] >= '0' && p[-1] <= '9')
				p--;
			n = strtoll(p, NULL, 10);
		}
	}
	cli_output_free(&out);
	return n;
}

/*
 * `slubtrace check DIR` on the new trace.  Its verdict is information: the
 * exit status stays the traced command's.
 */
static void run_check(const char *dir)
{
	struct slub_plugin_result res;
	bt_value *params = bt_value_map_create();
	int rc;

	if (!params)
		return;
	fflush(NULL);
	cli_info("checking the trace (slubtrace check %s):", dir);
	rc = cli_check_on_stderr(dir, params, &res);
	bt_value_put_ref(params);
	if (rc == CLI_EXIT_USAGE)
		cli_info("the trace could not be checked");
}

/* ---- the traced command ------------------------------------------------- */

static volatile sig_atomic_t got_usr1, got_int, forward_sig;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGUSR1) {
		got_usr1 = 1;
		return;
	}
	if (sig == SIGINT)
		got_int = 1;
	/* Sent to slubtrace itself (kill), not by the terminal to the whole
	 * foreground group: pass it on to the traced program. */
	if (si && (si->si_code == SI_USER || si->si_code == SI_QUEUE))
		forward_sig = sig;
}

static pid_t spawn_cmd(const struct record_opts *o, const char *path, const char *preload)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;

	setenv("LD_PRELOAD", preload, 1);
	if (o->full_lists)
		setenv("SLUBTRACE_FULL_LISTS", "1", 1);
	else
		unsetenv("SLUBTRACE_FULL_LISTS");
	if (o->nodes)
		setenv("SLUBTRACE_NODES", o->nodes, 1);
	if (o->generation)
		setenv("SLUBTRACE_GENERATION", o->generation, 1);
	if (o->stacks)
		setenv("SLUBTRACE_STACKS", o->stacks, 1);
	if (o->stack_depth)
		setenv("SLUBTRACE_STACK_DEPTH", o->stack_depth, 1);
	/* A forked child registers with the session daemon before its first
	 * slub event, not at the fork: one that execs first registers once,
	 * in its new image (src/trace.c).  Not with liblttng-ust-dl, whose
	 * events a child not registered yet would give its parent's pid. */
	if (!o->dlopen_events)
		setenv("SLUBTRACE_FORK", "lazy", 0);
	/* LTTng-UST's statedump skips reading every loaded object's ELF
	 * file (its start event stays): slub:bin_info names them. */
	setenv("LTTNG_UST_WITHOUT_BADDR_STATEDUMP", "1", 1);
	/* LTTng-UST honours the channel's blocking timeout only with this. */
	if (o->blocking)
		setenv("LTTNG_UST_ALLOW_BLOCKING", "1", 1);
	snapshot_child_env();
	execv(path, o->cmd);
	fprintf(stderr, "%s: cannot run %s: %s\n", cli_progname, path, strerror(errno));
	_exit(errno == ENOENT ? CLI_EXIT_NOTFOUND : CLI_EXIT_NOEXEC);
}

static int wait_cmd(pid_t pid, struct session *s, bool snapshot)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	struct sigaction old[5];
	const int sigs[5] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 };
	int status = 0;

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 5; i++)
		sigaction(sigs[i], &sa, &old[i]);

	for (;;) {
		pid_t r = waitpid(pid, &status, 0);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			cli_err("waitpid: %s", strerror(errno));
			status = -1;
			break;
		}
		if (forward_sig) {
			kill(pid, forward_sig);
			forward_sig = 0;
		}
		if (got_usr1) {
			got_usr1 = 0;
			if (snapshot && !take_snapshot(s))
				cli_info("snapshot %u recorded", s->snapshots);
		}
		if (got_int && snapshot && s->snapshots == 0) {
			if (!take_snapshot(s))
				cli_info("snapshot %u recorded", s->snapshots);
		}
	}
	for (int i = 0; i < 5; i++)
		sigaction(sigs[i], &old[i], NULL);
	return status;
}

/* ---- the command -------------------------------------------------------- */

/* 8192 -> "8K", as --buffer-size reads it back. */
static void format_size(unsigned long long v, char *out, size_t size)
{
	static const char unit[] = "KMG";
	int u = -1;

	while (u < 2 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, size, "%llu", v);
	else
		snprintf(out, size, "%llu%c", v, unit[u]);
}

/* The closing word on discarded events: what they mean and what to do. */
static void advise_losses(const struct record_opts *o, unsigned long long discarded,
			  long long recorded)
{
	char now[24], more[24];

	if (recorded > 0)
		cli_info("%llu events discarded (%.2f%% of %llu): the ring buffer was full while "
			 "the consumer daemon fell behind; the analysis reports the gaps and "
			 "never judges the slabs they touch", discarded,
			 100.0 * (double)discarded / (double)(discarded + (unsigned long long)recorded),
			 discarded + (unsigned long long)recorded);
	else
		cli_info("%llu events discarded: the ring buffer was full while the consumer "
			 "daemon fell behind", discarded);
	format_size(o->buffer_size, now, sizeof(now));
	format_size(o->buffer_size * 4, more, sizeof(more));
	if (o->blocking)
		/* Blocking was on: the wait ran out (a finite timeout), or the
		 * events were lost outside it (LTTng discards from threads that
		 * must not block, as its own listener threads). */
		cli_info("to keep every event: record again with --buffer-size %s (now %s per "
			 "CPU)%s, fewer events (--no-full-lists, no --objects, fewer --stacks), "
			 "or on a less loaded machine (the consumer daemon needs a CPU)", more, now,
			 strcmp(o->blocking, "inf") ? " and --blocking=inf (the wait ran out)" : "");
	else if (attach_requested())
		/* Waiting needs LTTNG_UST_ALLOW_BLOCKING=1 in the service's
		 * environment from its start. */
		cli_info("to keep more events: attach with --buffer-size %s (now %s per CPU); "
			 "a larger buffer absorbs a burst, not a sustained rate", more, now);
	else
		/* Measured on an event-dense pipeline: a larger buffer (4M to
		 * 64M per CPU) or a tmpfs output still lost up to 37 %; waiting
		 * lost nothing. */
		cli_info("to keep every event: record again without --no-blocking (the program "
			 "then waits for the consumer daemon when the buffer is full); a larger "
			 "--buffer-size (now %s per CPU) absorbs a burst, not a sustained rate", now);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct session s = { 0 };
	char cmd_path[PATH_MAX], lttng_path[PATH_MAX];
	char shim[PATH_MAX], tp[PATH_MAX];
	char *preload = NULL;
	const char *old_preload;
	unsigned long long discarded = 0, lost = 0;
	long long events;
	int status, rc;
	pid_t pid;

	rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;

	if (cli_find_program("lttng", lttng_path, sizeof(lttng_path)) < 0) {
		cli_err("lttng not found in PATH: install lttng-tools (lttng, lttng-sessiond)");
		return CLI_EXIT_FAILURE;
	}
	if (!attach_requested() && cli_find_program(o.cmd[0], cmd_path, sizeof(cmd_path)) < 0) {
		if (errno == EACCES) {
			cli_err("%s: permission denied", o.cmd[0]);
			return CLI_EXIT_NOEXEC;
		}
		cli_err("%s: command not found", o.cmd[0]);
		return CLI_EXIT_NOTFOUND;
	}
	if (cli_find_lib("libslub-malloc.so", SLUBTRACE_BUILD_REL_SHIM, shim, sizeof(shim)) < 0 ||
	    cli_find_lib("libslub-tp.so", SLUBTRACE_BUILD_REL_TP, tp, sizeof(tp)) < 0)
		return CLI_EXIT_FAILURE;
	old_preload = getenv("LD_PRELOAD");
	if (asprintf(&preload, "%s:%s:liblttng-ust-fork.so.1%s%s%s", shim, tp,
		     o.dlopen_events ? ":liblttng-ust-dl.so.1" : "",
		     old_preload && *old_preload ? ":" : "",
		     old_preload ? old_preload : "") < 0) {
		cli_err("out of memory");
		return CLI_EXIT_FAILURE;
	}
	if (attach_requested() && (rc = attach_prepare()) >= 0) {
		free(preload);
		return rc;
	}
	if (o.tsc_clock && use_tsc_clock() < 0) {
		free(preload);
		return CLI_EXIT_FAILURE;
	}
	if (prepare_dir(&o, &s) < 0) {
		free(preload);
		return CLI_EXIT_FAILURE;
	}

	if (!sessiond_reachable() && start_sessiond(&s) < 0) {
		stop_sessiond(&s, true);
		free(preload);
		return CLI_EXIT_FAILURE;
	}
	if (live_start_relay(s.dir) < 0 || setup_session(&o, &s) < 0) {
		finish_session(&s);
		stop_sessiond(&s, true);
		live_stop_relay(true);
		free(preload);
		return CLI_EXIT_FAILURE;
	}

	fflush(NULL);
	if (attach_requested()) {
		bool by_signal;

		free(preload);
		status = attach_wait(s.name, &by_signal) ? -1 : 0;
	} else {
		pid = spawn_cmd(&o, cmd_path, preload);
		free(preload);
		if (pid < 0) {
			cli_err("fork: %s", strerror(errno));
			finish_session(&s);
			stop_sessiond(&s, false);
			live_stop_relay(false);
			return CLI_EXIT_FAILURE;
		}
		status = wait_cmd(pid, &s, o.snapshot);
	}

	if (snapshot_triggers())
		snapshot_settle(s.dir);
	else if (o.snapshot && !got_int)
		take_snapshot(&s);
	else if (o.snapshot && s.snapshots == 0)
		take_snapshot(&s);
	/* A session that cannot be stopped lost its daemon (killed, or
	 * stopped by someone else) while CMD ran: whatever CMD traced after
	 * that is gone, and the trace must not pass for a complete one. */
	bool incomplete = false;
	if (s.started) {
		incomplete = lttng(NULL, "stop", s.name, NULL) != 0;
		s.started = false;
	}
	read_losses(&s, &discarded, &lost);
	finish_session(&s);
	stop_sessiond(&s, false);
	bool relay_died = live_stop_relay(incomplete);
	if (live_remote()) {
		cli_info("the trace is on the relay daemon's host (--relay): check it there");
		goto out;
	}
	if (snapshot_triggers()) {
		snapshot_finish(s.dir, o.check && !incomplete);
		goto out;
	}

	events = count_events(s.dir);
	/* The trace's own per-stream counts: `lttng list` may miss or
	 * misstate them once the session is stopped. */
	unsigned long long ust_discarded = 0;
	long long from_index = cli_trace_discarded(s.dir, CHANNEL_UST "_", &ust_discarded);
	if (from_index >= 0)
		discarded = (unsigned long long)from_index;
	cli_info("trace: %s", s.dir);
	if (events >= 0)
		cli_info("events: %lld recorded, %llu discarded%s", events, discarded,
			 o.snapshot ? " (snapshot: older events overwritten)" : "");
	else
		cli_info("events: %llu discarded (install babeltrace2 to count the recorded ones)",
			 discarded);
	if (lost)
		cli_info("lost packets: %llu", lost);
	if (ust_discarded && !o.snapshot)
		/* A lost lttng_ust_statedump:start hides a registration: the
		 * checker cannot tell a process's untraced start from a loss. */
		cli_info("%llu of LTTng-UST's own events (registrations%s) discarded in channel "
			 CHANNEL_UST ": no slub event was lost; the analysis does not judge the "
			 "slabs around them", ust_discarded,
			 o.dlopen_events ? ", dlopen" : "");
	if (discarded && !o.snapshot)
		advise_losses(&o, discarded, events);
	if (relay_died) {
		cli_err("the relay daemon exited while the command ran: %s is incomplete; record "
			"again", s.dir);
		return CLI_EXIT_FAILURE;
	}
	if (incomplete) {
		cli_err("the session could not be stopped (its session daemon went away while "
			"the command ran): %s is incomplete; record again", s.dir);
		return CLI_EXIT_FAILURE;
	}
	if (o.check)
		run_check(s.dir);
out:
	if (status == -1)
		return CLI_EXIT_FAILURE;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return CLI_EXIT_FAILURE;
}
