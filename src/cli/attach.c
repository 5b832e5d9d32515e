/* SPDX-License-Identifier: MIT */
/*
 * slubtrace record --pid PID[,PID...] | --procname NAME: record processes
 * that already run with libslub-malloc.so and libslub-tp.so preloaded.
 *
 * record.c sets up the session as for a command it runs; this file finds
 * the processes, checks that each can be traced (the probe provider
 * loaded, the same user and LTTng home as the session daemon), limits the
 * session to them with the vpid tracker, waits for them to register with
 * the daemon, then until --duration has passed, SIGINT/SIGTERM, or every
 * process has exited.  A process that cannot be traced or exits is named
 * on one line; the others go on.
 *
 * Registration: LTTng-UST connects an application to a session daemon at
 * start and, when none answers, its listener threads wait for one (on the
 * per-user wait shared memory the daemon wakes when it starts) and
 * register then, within a second.  The daemon must be one the process can
 * reach: the same user (a root daemon serves every user) and the same
 * LTTNG_HOME (else HOME), which names the socket directory.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define ATTACH_MAX 64
#define ATTACH_REGISTER_TIMEOUT_MS 15000
#define ATTACH_POLL_MS 100

enum attach_state {
	ATTACH_PENDING,		/* tracked, not yet registered with the daemon */
	ATTACH_TRACED,		/* registered: its events reach the session */
	ATTACH_GONE,		/* exited, or never registered */
};

struct attach_proc {
	pid_t pid;
	char comm[32];
	enum attach_state state;
};

static struct {
	const char *pids;
	const char *procname;
	long long duration_ms;	/* 0: until SIGINT or every process exits */
	struct attach_proc proc[ATTACH_MAX];
	unsigned nr;
} at;

bool attach_requested(void)
{
	return at.pids || at.procname;
}

/* "10", "10s", "500ms", "2m", "1h" -> milliseconds, or -1. */
static long long parse_duration(const char *s)
{
	char *end;
	unsigned long long v;
	long long mul = 1000;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	if (!strcmp(end, "ms"))
		mul = 1;
	else if (!strcmp(end, "m"))
		mul = 60 * 1000;
	else if (!strcmp(end, "h"))
		mul = 3600 * 1000;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (v == 0 || v > (unsigned long long)(LLONG_MAX / mul))
		return -1;
	return (long long)v * mul;
}

int attach_option(enum attach_opt opt, const char *arg)
{
	switch (opt) {
	case ATTACH_OPT_PID:
		for (const char *p = arg; ; p++) {
			const char *start = p;

			while (isdigit((unsigned char)*p))
				p++;
			if (p == start || (*p && *p != ',') || atol(start) <= 0) {
				cli_err("--pid: expected PID[,PID...], got '%s'", arg);
				return CLI_EXIT_USAGE;
			}
			if (!*p)
				break;
		}
		at.pids = arg;
		break;
	case ATTACH_OPT_PROCNAME:
		if (!*arg || strlen(arg) > 15 || strchr(arg, '/')) {
			cli_err("--procname: expected a process name of 1 to 15 characters as "
				"in /proc/PID/comm, got '%s'", arg);
			return CLI_EXIT_USAGE;
		}
		at.procname = arg;
		break;
	case ATTACH_OPT_DURATION:
		at.duration_ms = parse_duration(arg);
		if (at.duration_ms < 0) {
			cli_err("--duration: expected a duration such as 30s, 500ms, 10m or 1h, "
				"got '%s'", arg);
			return CLI_EXIT_USAGE;
		}
		break;
	}
	return -1;
}

int attach_check_opts(bool has_cmd)
{
	if (!attach_requested()) {
		if (at.duration_ms) {
			cli_err("--duration: only with --pid or --procname (a command runs to its "
				"end)");
			return CLI_EXIT_USAGE;
		}
		return -1;
	}
	if (has_cmd) {
		cli_err("--pid and --procname attach to running processes: give no command");
		return CLI_EXIT_USAGE;
	}
	return -1;
}

/* ---- /proc -------------------------------------------------------------- */

static int read_file(const char *path, char *buf, size_t size, size_t *len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return 0;
}

static void proc_comm(pid_t pid, char *out, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if (read_file(path, out, size, NULL) < 0) {
		snprintf(out, size, "?");
		return;
	}
	out[strcspn(out, "\n")] = '\0';
}

/* Running: /proc/PID exists and is not a zombie. */
static bool proc_alive(pid_t pid)
{
	char path[64], buf[512];
	char *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (read_file(path, buf, sizeof(buf), NULL) < 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* 1 when a mapping of PID is libslub-tp.so, 0 when none, -1 unreadable. */
static int proc_has_tp(pid_t pid)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *slash = strrchr(line, '/');

		found = slash && !strncmp(slash + 1, "libslub-tp.so", 13);
	}
	fclose(f);
	return found;
}

static long proc_uid(pid_t pid)
{
	char path[64], buf[4096];
	char *p;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if (read_file(path, buf, sizeof(buf), NULL) < 0)
		return -1;
	p = strstr(buf, "\nUid:");
	return p ? strtol(p + 5, NULL, 10) : -1;
}

/* The LTTng home a process uses (LTTNG_HOME, else HOME), into out; -1
 * when its environment cannot be read, 1 when it has neither. */
static int proc_lttng_home(pid_t pid, char *out, size_t size)
{
	static char env[65536];
	char path[64];
	const char *home = NULL, *lhome = NULL;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	if (read_file(path, env, sizeof(env), &len) < 0)
		return -1;
	for (size_t i = 0; i < len; i += strlen(env + i) + 1) {
		if (!strncmp(env + i, "LTTNG_HOME=", 11))
			lhome = env + i + 11;
		else if (!strncmp(env + i, "HOME=", 5))
			home = env + i + 5;
	}
	if (lhome && *lhome)
		home = lhome;
	if (!home || !*home)
		return 1;
	snprintf(out, size, "%s", home);
	return 0;
}

static const char *own_lttng_home(void)
{
	const char *h = getenv("LTTNG_HOME");

	if (!h || !*h)
		h = getenv("HOME");
	return h && *h ? h : NULL;
}

static bool same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (!realpath(a, ra) || !realpath(b, rb))
		return !strcmp(a, b);
	return !strcmp(ra, rb);
}

/*
 * Whether PID can be traced by this run's session daemon; when not, says
 * why on one line.
 */
static bool traceable(pid_t pid, const char *comm)
{
	char home[PATH_MAX];
	const char *own = own_lttng_home();
	long uid;
	int r;

	if (!proc_alive(pid)) {
		cli_err("pid %ld: no such process", (long)pid);
		return false;
	}
	r = proc_has_tp(pid);
	if (r < 0) {
		cli_err("pid %ld (%s): cannot read /proc/%ld/maps (%s): not traced", (long)pid,
			comm, (long)pid, strerror(errno));
		return false;
	}
	if (r == 0) {
		cli_err("pid %ld (%s): libslub-tp.so is not loaded: start it with "
			"LD_PRELOAD=libslub-malloc.so:libslub-tp.so (doc/tracing.md, \"Tracing a running "
			"service\"); not traced", (long)pid, comm);
		return false;
	}
	uid = proc_uid(pid);
	if (geteuid() != 0 && uid >= 0 && uid != (long)geteuid()) {
		cli_err("pid %ld (%s) runs as uid %ld: a session daemon of uid %ld serves only "
			"its own user's processes (a root one serves all); not traced", (long)pid,
			comm, uid, (long)geteuid());
		return false;
	}
	/* A root daemon listens on the global socket every process tries;
	 * a user's daemon only under its LTTng home. */
	if (geteuid() != 0 && own && proc_lttng_home(pid, home, sizeof(home)) == 0 &&
	    !same_dir(home, own)) {
		cli_err("pid %ld (%s) has LTTNG_HOME (or HOME) %s, this run %s: it cannot reach "
			"this session daemon; not traced", (long)pid, comm, home, own);
		return false;
	}
	return true;
}

static struct attach_proc *find_proc(pid_t pid)
{
	for (unsigned i = 0; i < at.nr; i++)
		if (at.proc[i].pid == pid)
			return &at.proc[i];
	return NULL;
}

static int add_proc(pid_t pid)
{
	struct attach_proc *p;

	if (find_proc(pid))
		return 0;
	if (at.nr == ATTACH_MAX) {
		cli_err("pid %ld: at most %d processes per run; not traced", (long)pid, ATTACH_MAX);
		return -1;
	}
	p = &at.proc[at.nr];
	p->pid = pid;
	proc_comm(pid, p->comm, sizeof(p->comm));
	if (!traceable(pid, p->comm))
		return -1;
	p->state = ATTACH_PENDING;
	at.nr++;
	return 0;
}

/* Processes named at.procname that are not in the list yet, each checked
 * (once: a refused one is remembered so it is reported once). */
static void scan_procname(pid_t *refused, unsigned *nr_refused, unsigned max_refused,
			  void (*added)(struct attach_proc *p, void *arg), void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char comm[32];
		pid_t pid;
		bool skip = false;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)atol(e->d_name);
		if (pid == getpid() || find_proc(pid))
			continue;
		for (unsigned i = 0; i < *nr_refused; i++)
			skip |= refused[i] == pid;
		if (skip)
			continue;
		proc_comm(pid, comm, sizeof(comm));
		if (strcmp(comm, at.procname))
			continue;
		if (add_proc(pid) < 0) {
			if (*nr_refused < max_refused)
				refused[(*nr_refused)++] = pid;
			continue;
		}
		if (added)
			added(&at.proc[at.nr - 1], arg);
	}
	closedir(d);
}

static pid_t refused[256];
static unsigned nr_refused;

int attach_prepare(void)
{
	if (at.pids) {
		for (const char *p = at.pids; *p; ) {
			add_proc((pid_t)atol(p));
			p += strcspn(p, ",");
			if (*p == ',')
				p++;
		}
	}
	if (at.procname)
		scan_procname(refused, &nr_refused, sizeof(refused) / sizeof(refused[0]), NULL,
			      NULL);
	if (at.nr == 0 && !at.procname) {
		cli_err("record: none of the processes can be traced: nothing to attach to");
		return CLI_EXIT_USAGE;
	}
	if (at.nr == 0)
		cli_info("no traceable process named %s runs yet: waiting for one", at.procname);
	return -1;
}

static int track(const char *session, pid_t pid)
{
	char vpid[32];

	snprintf(vpid, sizeof(vpid), "--vpid=%ld", (long)pid);
	return lttng(NULL, "track", "--userspace", "--session", session, vpid, NULL);
}

int attach_track(const char *session)
{
	/* Track only these: without a vpid in the set, nothing is recorded
	 * until one comes (--procname). */
	if (lttng(NULL, "untrack", "--userspace", "--session", session, "--vpid", "--all", NULL))
		return -1;
	for (unsigned i = 0; i < at.nr; i++)
		if (track(session, at.proc[i].pid))
			return -1;
	return 0;
}

/* ---- while attached ----------------------------------------------------- */

static volatile sig_atomic_t attach_stop;

static void on_stop(int sig)
{
	attach_stop = sig;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Marks the processes `lttng list --userspace` shows as registered.
 * Returns -1 when the daemon does not answer. */
static int poll_registered(void)
{
	struct cli_output out;
	char *argv[] = { "lttng", "list", "--userspace", NULL };

	if (cli_run(argv, &out) != 0 || !out.text) {
		cli_output_free(&out);
		return -1;
	}
	for (char *p = out.text; (p = strstr(p, "PID: ")); p += 5) {
		struct attach_proc *a = find_proc((pid_t)atol(p + 5));

		if (a && a->state == ATTACH_PENDING) {
			a->state = ATTACH_TRACED;
			cli_info("pid %ld (%s): attached", (long)a->pid, a->comm);
		}
	}
	cli_output_free(&out);
	return 0;
}

struct late_arg {
	const char *session;
	long long now;
};

static long long pending_since[ATTACH_MAX];

static void late_added(struct attach_proc *p, void *arg)
{
	struct late_arg *l = arg;

	if (track(l->session, p->pid)) {
		p->state = ATTACH_GONE;
		return;
	}
	pending_since[p - at.proc] = l->now;
}

int attach_wait(const char *session, bool *ended_by_signal)
{
	struct sigaction sa = { .sa_handler = on_stop }, old[3];
	const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	long long start = now_ms(), last_scan = start;
	const char *why = "every attached process has exited";
	unsigned left;
	int rc = 0;

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	for (unsigned i = 0; i < at.nr; i++)
		pending_since[i] = start;
	if (at.duration_ms)
		cli_info("attached for %lld.%03lld s (SIGINT ends it sooner)",
			 at.duration_ms / 1000, at.duration_ms % 1000);
	else
		cli_info("attached until SIGINT (^C) or until every process has exited");

	for (;;) {
		struct timespec ts = { 0, ATTACH_POLL_MS * 1000000L };
		long long now = now_ms();
		bool pending = false;

		if (attach_stop) {
			why = strsignal(attach_stop);
			break;
		}
		if (at.duration_ms && now - start >= at.duration_ms) {
			why = "--duration elapsed";
			break;
		}
		if (at.procname && now - last_scan >= 1000) {
			struct late_arg l = { session, now };

			scan_procname(refused, &nr_refused, sizeof(refused) / sizeof(refused[0]),
				      late_added, &l);
			last_scan = now;
		}
		for (unsigned i = 0; i < at.nr; i++)
			pending |= at.proc[i].state == ATTACH_PENDING;
		if (pending && poll_registered() < 0) {
			cli_err("the session daemon does not answer any more: the trace ends here");
			why = "the session daemon went away";
			rc = -1;
			break;
		}
		left = 0;
		for (unsigned i = 0; i < at.nr; i++) {
			struct attach_proc *p = &at.proc[i];

			if (p->state == ATTACH_GONE)
				continue;
			if (!proc_alive(p->pid)) {
				cli_info("pid %ld (%s) exited while attached%s", (long)p->pid, p->comm,
					 at.nr > 1 ? "; the others go on" : "");
				p->state = ATTACH_GONE;
				continue;
			}
			if (p->state == ATTACH_PENDING &&
			    now - pending_since[i] >= ATTACH_REGISTER_TIMEOUT_MS) {
				cli_err("pid %ld (%s) did not register with the session daemon in %d "
					"s (same user and LTTNG_HOME needed; LTTNG_UST_* settings of "
					"the process?): not traced", (long)p->pid, p->comm,
					ATTACH_REGISTER_TIMEOUT_MS / 1000);
				p->state = ATTACH_GONE;
				continue;
			}
			left++;
		}
		if (!left && !at.procname)
			break;
		nanosleep(&ts, NULL);
	}
	*ended_by_signal = attach_stop != 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	cli_info("detached after %.1f s: %s", (double)(now_ms() - start) / 1000, why);
	cli_info("note: attached to running processes: the trace starts mid-run; each slab "
		 "already alive is taken from its first recorded event (resynchronised, never "
		 "judged from nothing)");
	return rc;
}
