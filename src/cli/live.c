/* SPDX-License-Identifier: MIT */
/*
 * Live analysis through lttng-relayd.
 *
 *   record --live [--relay HOST[:PORT]]   a live session streaming to a
 *       relay daemon: one started here on loopback (its ports chosen free,
 *       its output the trace directory, stopped at the end), or HOST's
 *       (control PORT, default 5342; data PORT+1; live PORT+2)
 *   check --live [--all-sessions] URL...
 *       one src.ctf.lttng-live per session URL (net://HOST[:PORT]/host/
 *       NAME/SESSION; with --all-sessions a relay's net://HOST[:PORT]
 *       stands for every session it lists) -> flt.utils.muxer ->
 *       sink.slub.check: each violation printed as the model finds it,
 *       labelled with its host when there are several sessions; the
 *       verdict (per host, then over all) when the sessions end; exit 1
 *       if any
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"

#define RELAYD_START_TIMEOUT_MS 15000
#define RELAYD_STOP_TIMEOUT_MS 10000
#define VIEWERS_DRAIN_TIMEOUT_MS 5000	/* for viewers to read a session's end */
#define LIVE_TIMER_US "200000"	/* how often the consumer flushes to the relay */

static struct {
	bool live;
	const char *relay;	/* HOST[:PORT], or NULL: our own on loopback */
	char host[256];
	unsigned ctrl, data, view;
	pid_t relayd;
	char log[4096];
} lv;

bool live_requested(void)
{
	return lv.live;
}

bool live_remote(void)
{
	return lv.live && lv.relay;
}

int live_option(bool relay, const char *arg)
{
	if (!relay) {
		lv.live = true;
		return -1;
	}
	const char *colon = strrchr(arg, ':');
	size_t hl = colon ? (size_t)(colon - arg) : strlen(arg);

	lv.ctrl = 5342;
	if (colon) {
		char *end;
		unsigned long p = strtoul(colon + 1, &end, 10);

		if (*end || p < 1 || p > 65533) {
			cli_err("--relay: expected HOST[:PORT] with PORT 1..65533, got '%s'", arg);
			return CLI_EXIT_USAGE;
		}
		lv.ctrl = (unsigned)p;
	}
	if (!hl || hl >= sizeof(lv.host) || memchr(arg, '/', hl)) {
		cli_err("--relay: expected HOST[:PORT], got '%s'", arg);
		return CLI_EXIT_USAGE;
	}
	memcpy(lv.host, arg, hl);
	lv.host[hl] = '\0';
	lv.data = lv.ctrl + 1;
	lv.view = lv.ctrl + 2;
	lv.relay = arg;
	lv.live = true;
	return -1;
}

static bool port_answers(const char *host, unsigned port);

int live_check_opts(bool snapshot)
{
	if (lv.live && snapshot) {
		cli_err("--live and --snapshot: a live session streams everything, a snapshot "
			"session keeps the latest events in memory; choose one");
		return CLI_EXIT_USAGE;
	}
	/* Before anything runs: the program is never started for nothing. */
	if (lv.relay && !port_answers(lv.host, lv.ctrl)) {
		cli_err("--relay %s: no relay daemon answers on %s port %u (lttng-relayd -C "
			"tcp://0.0.0.0:%u there?)", lv.relay, lv.host, lv.ctrl, lv.ctrl);
		return CLI_EXIT_USAGE;
	}
	return -1;
}

/* A TCP port on loopback nobody listens on now. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static bool port_answers(const char *host, unsigned port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char svc[16];
	bool ok = false;

	snprintf(svc, sizeof(svc), "%u", port);
	if (getaddrinfo(host, svc, &hints, &res) != 0)
		return false;
	for (ai = res; ai && !ok; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

		if (fd < 0)
			continue;
		ok = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
		close(fd);
	}
	freeaddrinfo(res);
	return ok;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Starts lttng-relayd on loopback, writing below dir. */
int live_start_relay(const char *dir)
{
	char c[64], d[64], l[64];
	char *argv[] = { "lttng-relayd", "-C", c, "-D", d, "-L", l, "-o", (char *)dir, NULL };
	int p[3];
	long long start;

	if (!lv.live || lv.relay)
		return 0;
	for (int i = 0; i < 3; i++) {
		p[i] = free_port();
		if (p[i] < 0) {
			cli_err("no free TCP port on 127.0.0.1 for lttng-relayd: %s", strerror(errno));
			return -1;
		}
	}
	snprintf(lv.host, sizeof(lv.host), "127.0.0.1");
	lv.ctrl = (unsigned)p[0];
	lv.data = (unsigned)p[1];
	lv.view = (unsigned)p[2];
	snprintf(c, sizeof(c), "tcp://127.0.0.1:%u", lv.ctrl);
	snprintf(d, sizeof(d), "tcp://127.0.0.1:%u", lv.data);
	snprintf(l, sizeof(l), "tcp://127.0.0.1:%u", lv.view);
	lv.relayd = cli_start_daemon(argv, "relayd", "the relay daemon", NULL, lv.log,
				     sizeof(lv.log));
	if (lv.relayd < 0) {
		lv.relayd = 0;
		return -1;
	}
	start = now_ms();
	while (!port_answers("127.0.0.1", lv.view) || !port_answers("127.0.0.1", lv.ctrl)) {
		struct timespec ts = { 0, 50 * 1000000L };
		int status;

		if (waitpid(lv.relayd, &status, WNOHANG) == lv.relayd) {
			lv.relayd = 0;
			cli_err("the relay daemon refused to start (log: %s)", lv.log);
			return -1;
		}
		if (now_ms() - start > RELAYD_START_TIMEOUT_MS) {
			cli_err("the relay daemon did not listen in %d s (log: %s)",
				RELAYD_START_TIMEOUT_MS / 1000, lv.log);
			live_stop_relay(true);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

/*
 * The viewers connected to our relay's live port: relayd's side of each
 * established TCP connection to it (/proc/net/tcp, tcp6; state 01).
 */
static unsigned live_viewers(void)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f = fopen(files[i], "r");
		char line[512], local[128];
		unsigned st;

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			const char *port;

			if (sscanf(line, "%*s %127s %*s %x", local, &st) != 2 || st != 1)
				continue;
			port = strrchr(local, ':');
			if (port && strtoul(port + 1, NULL, 16) == lv.view)
				n++;
		}
		fclose(f);
	}
	return n;
}

bool live_stop_relay(bool keep_log)
{
	bool died = false;
	int status;

	if (lv.relayd > 0 && waitpid(lv.relayd, &status, WNOHANG) == lv.relayd) {
		died = true;
		keep_log = true;
		cli_err("the relay daemon (pid %ld) exited during the session (%s %d; log: %s)",
			(long)lv.relayd, WIFSIGNALED(status) ? "signal" : "status",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), lv.log);
		lv.relayd = 0;
	}
	if (lv.relayd > 0) {
		long long start = now_ms();

		/* The session is destroyed: a viewer learns it on its next
		 * request and hangs up.  Stopping the relay before then cuts
		 * it off with an error instead of the session's end. */
		while (live_viewers() && now_ms() - start < VIEWERS_DRAIN_TIMEOUT_MS) {
			struct timespec ts = { 0, 20 * 1000000L };

			nanosleep(&ts, NULL);
		}
		start = now_ms();
		kill(lv.relayd, SIGTERM);
		while (waitpid(lv.relayd, &status, WNOHANG) != lv.relayd) {
			struct timespec ts = { 0, 50 * 1000000L };

			if (now_ms() - start > RELAYD_STOP_TIMEOUT_MS) {
				kill(lv.relayd, SIGKILL);
				waitpid(lv.relayd, &status, 0);
				break;
			}
			nanosleep(&ts, NULL);
		}
		lv.relayd = 0;
	}
	if (lv.log[0] && !keep_log)
		unlink(lv.log);
	lv.log[0] = '\0';
	return died;
}

/* `lttng create NAME --live --set-url` and where to watch it. */
int live_create(const char *session)
{
	char url[400], live[32];

	snprintf(url, sizeof(url), "--set-url=net://%s:%u:%u", lv.host, lv.ctrl, lv.data);
	snprintf(live, sizeof(live), "--live=%s", LIVE_TIMER_US);
	if (lttng(NULL, "create", session, live, url, NULL))
		return -1;
	return 0;
}

/* Once the session runs, the relay daemon lists it to viewers. */
void live_announce(const char *session)
{
	char host[256];

	if (!lv.live)
		return;
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	cli_info("live: net://%s:%u/host/%s/%s (slubtrace check --live URL)", lv.host, lv.view,
		 host, session);
	fflush(NULL);
}

/* ---- live inputs ----------------------------------------------------- */

struct url_list {
	char *joined;
	size_t len, nr;
};

static int url_add(struct url_list *l, const char *url)
{
	size_t n = strlen(url);
	char *j;

	/* a space separates the URLs given to cli_run_graph() */
	if (strchr(url, ' ')) {
		cli_err("%s: a session URL with a space cannot be read", url);
		return CLI_EXIT_USAGE;
	}
	j = realloc(l->joined, l->len + n + 2);
	if (!j)
		return cli_nomem();
	if (l->len)
		j[l->len++] = ' ';
	memcpy(j + l->len, url, n + 1);
	l->len += n;
	l->joined = j;
	l->nr++;
	return -1;
}

/* Whether url names a session (net://HOST[:PORT]/host/NAME/SESSION), not
 * only a relay. */
static bool session_url(const char *url)
{
	const char *p = strchr(url + 6, '/');

	return p && !strncmp(p, "/host/", 6) && strchr(p + 6, '/') && p[strlen(p) - 1] != '/';
}

/*
 * Every session the relay at url lists, through src.ctf.lttng-live's
 * `sessions` query (what babeltrace2 prints for a URL without a session).
 */
static int relay_sessions(const char *url, struct url_list *l)
{
	const bt_plugin *ctf = NULL;
	const bt_component_class_source *cls;
	bt_query_executor *q = NULL;
	const bt_value *res = NULL;
	bt_value *params = NULL;
	int rc = CLI_EXIT_USAGE;
	uint64_t n, taken = 0;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		cli_err("babeltrace2's ctf plugin was not found (install babeltrace2)");
		return CLI_EXIT_USAGE;
	}
	cls = bt_plugin_borrow_source_component_class_by_name_const(ctf, "lttng-live");
	params = bt_value_map_create();
	if (!cls || !params || bt_value_map_insert_string_entry(params, "url", url)) {
		cli_err("%s: cannot query the relay (no src.ctf.lttng-live, or no memory)", url);
		goto out;
	}
	q = bt_query_executor_create(bt_component_class_source_as_component_class_const(cls),
				     "sessions", params);
	if (!q || bt_query_executor_query(q, &res) != BT_QUERY_EXECUTOR_QUERY_STATUS_OK ||
	    !bt_value_is_array(res)) {
		const bt_error *e = bt_current_thread_take_error();
		const char *msg = NULL;

		if (e && bt_error_get_cause_count(e))
			msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0));
		cli_err("%s: cannot list the relay's sessions: %s", url,
			msg ? msg : "no relay daemon answers there");
		if (e)
			bt_error_release(e);
		goto out;
	}
	n = bt_value_array_get_length(res);
	for (uint64_t i = 0; i < n; i++) {
		const bt_value *s = bt_value_array_borrow_element_by_index_const(res, i);
		const bt_value *u = bt_value_is_map(s) ?
			bt_value_map_borrow_entry_value_const(s, "url") : NULL;
		int r;

		if (!u || !bt_value_is_string(u))
			continue;
		r = url_add(l, bt_value_string_get(u));
		if (r >= 0) {
			rc = r;
			goto out;
		}
		taken++;
	}
	if (!taken) {
		cli_err("%s: the relay lists no session (record --live --relay HOST:PORT sends "
			"one there)", url);
		goto out;
	}
	rc = -1;
out:
	bt_value_put_ref(res);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	bt_plugin_put_ref(ctf);
	return rc;
}

int live_inputs(int n, char *const *args, bool all, char **urls, size_t *nr)
{
	struct url_list l = { 0 };
	int rc = -1;

	for (int i = 0; i < n && rc < 0; i++) {
		if (strncmp(args[i], "net://", 6)) {
			cli_err("%s: expected a URL net://HOST[:PORT]/host/NAME/SESSION%s", args[i],
				all ? " or net://HOST[:PORT]" : "");
			rc = CLI_EXIT_USAGE;
		} else if (session_url(args[i])) {
			rc = url_add(&l, args[i]);
		} else if (all) {
			rc = relay_sessions(args[i], &l);
		} else {
			cli_err("%s: no session named (net://HOST[:PORT]/host/NAME/SESSION); "
				"--all-sessions reads every session of the relay", args[i]);
			rc = CLI_EXIT_USAGE;
		}
	}
	if (rc < 0 && !l.nr) {
		cli_err("no live session given");
		rc = CLI_EXIT_USAGE;
	}
	if (rc >= 0) {
		free(l.joined);
		return rc;
	}
	*urls = l.joined;
	*nr = l.nr;
	return -1;
}

/* ---- check --live ------------------------------------------------------- */

int cmd_check_live(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "live", no_argument, NULL, 'L' },
		{ "all-sessions", no_argument, NULL, 'a' },
		{ "cache", required_argument, NULL, 'C' },
		{ "procname", required_argument, NULL, 'P' },
		CLI_VERBOSITY_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct slub_plugin_result res;
	const char *cache = NULL, *procname = NULL;
	bool all = false;
	char *urls = NULL;
	size_t nr = 0;
	bt_value *params;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "vq", opts, NULL)) != -1) {
		if (c == 'a') {
			all = true;
		} else if (c == 'C') {
			cache = optarg;
		} else if (c == 'P') {
			procname = optarg;
		} else if (c != 'L' && !cli_verbosity_option(c)) {
			cli_err("check --live: expected [--all-sessions] [--cache NAME] "
				"[--procname NAME] [-v|-q] URL...: a session "
				"net://HOST[:PORT]/host/NAME/SESSION (record --live prints it), or "
				"with --all-sessions a relay net://HOST[:PORT]");
			return CLI_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		cli_err("check --live: expected one URL net://HOST[:PORT]/host/NAME/SESSION or "
			"more (record --live prints it), or --all-sessions net://HOST[:PORT]");
		return CLI_EXIT_USAGE;
	}
	rc = live_inputs(argc - optind, argv + optind, all, &urls, &nr);
	if (rc >= 0)
		return rc;
	params = bt_value_map_create();
	/* several sessions are several hosts, or may be: say whose each line is */
	if (!params || ((all || nr > 1) &&
			bt_value_map_insert_bool_entry(params, "hosts", BT_TRUE)) ||
	    (cache && bt_value_map_insert_string_entry(params, "cache", cache)) ||
	    (procname && bt_value_map_insert_string_entry(params, "procname", procname))) {
		free(urls);
		bt_value_put_ref(params);
		return cli_nomem();
	}
	/* Each violation as it comes, not when a buffer fills. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = cli_run_graph(urls, "check", params, &res);
	bt_value_put_ref(params);
	free(urls);
	if (rc)
		return rc;
	return res.violations ? 1 : 0;
}
