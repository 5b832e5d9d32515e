/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the slubtrace command: messages, program lookup, running and
 * capturing child processes, temporary files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"

const char *cli_progname = "slubtrace";

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cli_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* -1: -q; 0: neither; 1: -v; 2: -vv or more. */
static int verbosity;

bool cli_verbosity_option(int c)
{
	if (c == 'v' && verbosity >= 0)
		verbosity++;
	else if (c == 'q')
		verbosity = -1;	/* -q wins over -v, whatever the order */
	else
		return c == 'v';
	return true;
}

bool cli_quiet(void)
{
	return verbosity < 0;
}

int cli_log_level(void)
{
	return verbosity >= 2 ? BT_LOGGING_LEVEL_DEBUG :
	       verbosity == 1 ? BT_LOGGING_LEVEL_INFO : BT_LOGGING_LEVEL_NONE;
}

void cli_info(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

int cli_nomem(void)
{
	cli_err("out of memory");
	return CLI_EXIT_NOMEM;
}

/*
 * Temporary files go where the user says ($TMPDIR, as mkstemp(3)'s callers
 * and the shells do), not always to /tmp: a small or noexec /tmp, or a
 * private directory per job, is the reason TMPDIR exists.
 */
const char *cli_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

int cli_tmp_template(char *out, size_t size, const char *name)
{
	if (snprintf(out, size, "%s/slubtrace-%s-XXXXXX", cli_tmpdir(), name) >= (int)size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* 0: an executable file; 1: exists but cannot be executed; -1: absent. */
static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode) || access(path, X_OK) < 0)
		return 1;
	return 0;
}

int cli_find_program(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	int saw_eacces = 0;

	if (!*name) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(name, '/')) {
		if (snprintf(out, size, "%s", name) >= (int)size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		switch (check_exec(out)) {
		case 0:
			return 0;
		case 1:
			errno = EACCES;
			return -1;
		default:
			errno = ENOENT;
			return -1;
		}
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		const char *dir = len ? path : ".";
		int dlen = len ? (int)len : 1;

		if (snprintf(out, size, "%.*s/%s", dlen, dir, name) < (int)size) {
			int r = check_exec(out);

			if (r == 0)
				return 0;
			if (r == 1)
				saw_eacces = 1;
		}
		path += len;
		if (*path == ':')
			path++;
	}
	errno = saw_eacces ? EACCES : ENOENT;
	return -1;
}

int cli_exe_dir(char *out, size_t size)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (snprintf(out, size, "%s", buf) >= (int)size)
		return -1;
	return 0;
}

pid_t cli_start_daemon(char *const argv[], const char *tag, const char *what,
		       const sigset_t *mask, char *log, size_t log_size)
{
	char path[PATH_MAX];
	pid_t pid;
	int fd;

	if (cli_find_program(argv[0], path, sizeof(path)) < 0) {
		cli_err("%s not found in PATH: install lttng-tools", argv[0]);
		return -1;
	}
	fd = cli_tmp_template(log, log_size, tag) < 0 ? -1 : mkstemp(log);
	if (fd < 0) {
		cli_err("cannot create %s's log %s: %s", what, log, strerror(errno));
		log[0] = '\0';
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		cli_err("fork: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		/* Its own session: the terminal's ^C is for CMD and this
		 * process, which stops the daemon itself. */
		setsid();
		if (nul >= 0)
			dup2(nul, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (mask)
			sigprocmask(SIG_SETMASK, mask, NULL);
		execv(path, argv);
		_exit(CLI_EXIT_NOTFOUND);
	}
	close(fd);
	return pid;
}

static int status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int cli_run(char *const argv[], struct cli_output *out)
{
	int pfd[2] = { -1, -1 };
	pid_t pid;
	int status;

	if (out) {
		memset(out, 0, sizeof(*out));
		if (pipe2(pfd, O_CLOEXEC) < 0)
			return -1;
	}
	pid = fork();
	if (pid < 0) {
		if (out) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return -1;
	}
	if (pid == 0) {
		int fd = out ? pfd[1] : open("/dev/null", O_WRONLY);

		setpgid(0, 0);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(CLI_EXIT_NOTFOUND);
	}
	if (out) {
		size_t cap = 4096;
		char *buf = malloc(cap);
		ssize_t n;

		close(pfd[1]);
		if (!buf)
			cap = 0;
		for (;;) {
			if (buf && out->len + 1024 > cap) {
				char *nb = realloc(buf, cap * 2);

				if (nb) {
					buf = nb;
					cap *= 2;
				}
			}
			if (buf && out->len + 1 < cap)
				n = read(pfd[0], buf + out->len, cap - out->len - 1);
			else {
				char sink[1024];

				n = read(pfd[0], sink, sizeof(sink));
				if (n > 0)
					continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			out->len += (size_t)n;
		}
		close(pfd[0]);
		if (buf)
			buf[out->len] = '\0';
		out->text = buf;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	if (out)
		out->status = status;
	return status_code(status);
}

void cli_output_free(struct cli_output *out)
{
	free(out->text);
	out->text = NULL;
	out->len = 0;
}
