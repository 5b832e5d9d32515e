/* SPDX-License-Identifier: MIT */
/*
 * slubtrace record --snapshot --trigger violation[,storm[=N]][,error]: a
 * flight recorder that saves itself.
 *
 * The session is record's snapshot session (in memory, overwrite).  The
 * traced program runs with the in-process checker (SLUBTRACE_CHECK=report)
 * and SLUBTRACE_TRIGGER: on a violation, a retry storm of N CAS attempts or
 * an allocator error report it emits slub:trigger, at most one per
 * SLUBTRACE_TRIGGER_INTERVAL seconds (src/check.c).  An LTTng trigger
 * (condition event-rule-matches slub:trigger, action snapshot-session)
 * makes the session daemon write a snapshot then: the ring buffers hold
 * the events that led to it.  At the end each snapshot directory is
 * renamed after its time and the rule that fired, and checked.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"

#define SETTLE_QUIET_MS 1000
#define SETTLE_MAX_MS 15000

static const char *trigger_list;
static char trigger_name[128];

bool snapshot_triggers(void)
{
	return trigger_list != NULL;
}

int snapshot_option(const char *arg)
{
	for (const char *t = arg; ; ) {
		size_t len = strcspn(t, ",");
		bool ok = (len == 9 && !strncmp(t, "violation", 9)) ||
			  (len == 5 && !strncmp(t, "error", 5)) ||
			  (len == 5 && !strncmp(t, "storm", 5));

		if (!ok && len > 6 && !strncmp(t, "storm=", 6)) {
			char *end;
			unsigned long n = strtoul(t + 6, &end, 10);

			ok = end == t + len && n >= 1 && n <= 1000000;
		}
		if (!ok) {
			cli_err("--trigger: expected violation, storm[=N] (N: 1..1000000 CAS "
				"attempts) or error, comma-separated, got '%.*s'", (int)len, t);
			return CLI_EXIT_USAGE;
		}
		t += len;
		if (!*t)
			break;
		t++;
	}
	trigger_list = arg;
	return -1;
}

int snapshot_check_opts(bool snapshot)
{
	if (trigger_list && !snapshot) {
		cli_err("--trigger: only with --snapshot (a trigger saves a flight-recorder "
			"session)");
		return CLI_EXIT_USAGE;
	}
	if (trigger_list && attach_requested()) {
		cli_err("--trigger: not with --pid or --procname (the traced program must run with "
			"SLUBTRACE_TRIGGER set from its start)");
		return CLI_EXIT_USAGE;
	}
	return -1;
}

int snapshot_add_trigger(const char *session)
{
	char name[160], action[160];

	if (!trigger_list)
		return 0;
	snprintf(trigger_name, sizeof(trigger_name), "%s-trigger", session);
	snprintf(name, sizeof(name), "--name=%s", trigger_name);
	snprintf(action, sizeof(action), "%s", session);
	if (lttng(NULL, "add-trigger", name, "--condition=event-rule-matches", "--type=user",
		  "--name=slub:trigger", "--action=snapshot-session", action, NULL)) {
		trigger_name[0] = '\0';
		return -1;
	}
	return 0;
}

void snapshot_remove_trigger(void)
{
	if (trigger_name[0])
		lttng(NULL, "remove-trigger", trigger_name, NULL);
	trigger_name[0] = '\0';
}

void snapshot_child_env(void)
{
	const char *c = getenv("SLUBTRACE_CHECK");

	if (!trigger_list)
		return;
	setenv("SLUBTRACE_TRIGGER", trigger_list, 1);
	/* The triggers run in the in-process checker; keep a stricter
	 * setting the user chose (abort, objects). */
	if (!c || !*c || !strcmp(c, "0"))
		setenv("SLUBTRACE_CHECK", "report", 1);
}

/* ---- after the run ------------------------------------------------------ */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Files and the latest mtime below dir. */
static void tree_state(const char *dir, int depth, unsigned long long *files,
		       long long *latest_ns)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st))
			continue;
		long long t = (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		if (t > *latest_ns)
			*latest_ns = t;
		(*files)++;
		if (S_ISDIR(st.st_mode) && depth < 8)
			tree_state(path, depth + 1, files, latest_ns);
	}
	closedir(d);
}

/*
 * A trigger's snapshot is taken by the session daemon some milliseconds
 * after the event: before the session stops, wait until nothing has been
 * written below dir for a second.
 */
void snapshot_settle(const char *dir)
{
	unsigned long long files = 0, prev_files = ~0ull;
	long long latest = 0, prev_latest = -1, quiet_since = now_ms();
	long long start = quiet_since;

	if (!trigger_list)
		return;
	while (now_ms() - start < SETTLE_MAX_MS) {
		struct timespec ts = { 0, 100 * 1000000L };

		files = 0;
		latest = 0;
		tree_state(dir, 0, &files, &latest);
		if (files != prev_files || latest != prev_latest)
			quiet_since = now_ms();
		else if (now_ms() - quiet_since >= SETTLE_QUIET_MS)
			return;
		prev_files = files;
		prev_latest = latest;
		nanosleep(&ts, NULL);
	}
}

/* The rule of the last slub:trigger of the snapshot in dir, into out. */
static int snapshot_rule(const char *dir, char *out, size_t size)
{
	char cmd[PATH_MAX * 2 + 128], line[4096], *q = cmd;
	const char *pre = "babeltrace2 '";
	FILE *p;
	int found = -1;

	q += snprintf(q, sizeof(cmd), "%s", pre);
	for (const char *c = dir; *c && q < cmd + sizeof(cmd) - 64; c++) {
		if (*c == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *c;
		}
	}
	snprintf(q, sizeof(cmd) - (size_t)(q - cmd), "' 2>/dev/null | grep -a ' slub:trigger: '");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *r = strstr(line, "rule = \"");

		if (!r)
			continue;
		r += 8;
		r[strcspn(r, "\"")] = '\0';
		snprintf(out, size, "%s", r);
		found = 0;
	}
	pclose(p);
	return found;
}

static int stream_bounds(const char *path, uint64_t *begin, uint64_t *seq, uint64_t *end,
			 uint64_t *need);

/* A stream file below dir (recursively) that ends inside a packet, or no
 * metadata at all: into bad; false when every stream is whole. */
static bool cut_short(const char *dir, char *bad, size_t len, uint64_t *have, uint64_t *need)
{
	struct dirent *de;
	bool cut = false, meta = false, streams = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while (!cut && (de = readdir(d))) {
		char path[PATH_MAX];
		uint64_t b, q, e, n;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			cut = cut_short(path, bad, len, have, need);
		} else if (!strcmp(de->d_name, "metadata")) {
			meta = true;
		} else if (stream_bounds(path, &b, &q, &e, &n) == 0) {
			streams = true;
			if (n > (uint64_t)st.st_size) {
				snprintf(bad, len, "%s", path);
				*have = (uint64_t)st.st_size;
				*need = n;
				cut = true;
			}
		} else if (S_ISREG(st.st_mode) && strcmp(de->d_name, "index") &&
			   !strstr(de->d_name, ".idx")) {
			/* a stream file without even its first packet header */
			snprintf(bad, len, "%s", path);
			*have = (uint64_t)st.st_size;
			*need = 0;
			cut = true;
		}
	}
	closedir(d);
	if (!cut && streams && !meta) {
		snprintf(bad, len, "%s/metadata", dir);
		*have = *need = 0;
		cut = true;
	}
	return cut;
}

/*
 * The session daemon writes a snapshot on its own: when the file system
 * fills, the snapshot is cut short and nothing tells the program or us.
 * A snapshot with a stream file ending inside a packet (or no metadata)
 * is one line naming the directory and the space left, not a check that
 * cannot read it.  (The traced program is not concerned: its ring buffers
 * are in memory.)
 */
static bool snapshot_disk_full(const char *snap, const char *dir)
{
	struct statvfs vfs;
	char bad[PATH_MAX], space[96] = "";
	uint64_t have = 0, need = 0;

	if (!cut_short(snap, bad, sizeof(bad), &have, &need))
		return false;
	if (statvfs(snap, &vfs) == 0)
		snprintf(space, sizeof(space), "%s (%llu KiB free of %llu KiB)",
			 vfs.f_bavail ? "" : " is full",
			 (unsigned long long)vfs.f_bavail * vfs.f_frsize / 1024,
			 (unsigned long long)vfs.f_blocks * vfs.f_frsize / 1024);
	if (need)
		cli_err("%s: the snapshot is incomplete: %s holds %llu of its %llu bytes; the file "
			"system of %s%s; give -o a directory with room for --buffer-size per CPU",
			snap, bad, (unsigned long long)have, (unsigned long long)need, dir, space);
	else
		cli_err("%s: the snapshot is incomplete: %s is %s; the file system of %s%s; give "
			"-o a directory with room for --buffer-size per CPU", snap, bad,
			have ? "cut short" : "missing or empty", dir, space);
	return true;
}

/*
 * LTTng names a snapshot NAME-YYYYmmdd-HHMMSS-N: rename each to
 * YYYYmmdd-HHMMSS-RULE-N, list them, and check them.  Returns how many.
 */
unsigned snapshot_finish(const char *dir, bool check)
{
	struct dirent **ents = NULL;
	unsigned found = 0;
	int n = scandir(dir, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char from[PATH_MAX], to[PATH_MAX], rule[128], stamp[32];
		const char *name = ents[i]->d_name;
		const char *dash;
		unsigned long seq;
		struct stat st;

		snprintf(from, sizeof(from), "%s/%s", dir, name);
		if (name[0] == '.' || stat(from, &st) || !S_ISDIR(st.st_mode))
			goto next;
		/* ...-YYYYmmdd-HHMMSS-N */
		dash = strrchr(name, '-');
		if (!dash || dash - name < 17 || dash[-7] != '-' || dash[-16] != '-')
			goto next;
		seq = strtoul(dash + 1, NULL, 10);
		snprintf(stamp, sizeof(stamp), "%.15s", dash - 15);
		if (snapshot_rule(from, rule, sizeof(rule)) < 0)
			snprintf(rule, sizeof(rule), "unknown");
		for (char *c = rule; *c; c++)
			if (*c == '/' || *c == ' ')
				*c = '_';
		snprintf(to, sizeof(to), "%s/%s-%s-%lu", dir, stamp, rule, seq);
		if (rename(from, to) < 0) {
			cli_err("cannot rename %s to %s: %s", from, to, strerror(errno));
			snprintf(to, sizeof(to), "%s", from);
		}
		found++;
		cli_info("snapshot %u: %s", found, to);
		if (snapshot_disk_full(to, dir))
			goto next;
		if (check) {
			struct slub_plugin_result res;
			bt_value *params = bt_value_map_create();

			if (params) {
				fflush(NULL);
				cli_info("checking the snapshot (slubtrace check %s):", to);
				if (cli_check_on_stderr(to, params, &res) == CLI_EXIT_USAGE)
					cli_info("the snapshot could not be checked");
				bt_value_put_ref(params);
			}
		}
next:
		free(ents[i]);
	}
	free(ents);
	if (!found)
		cli_info("no trigger fired: no snapshot was written");
	return found;
}

/* ---- where a snapshot's streams are all complete ------------------------ */

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * An LTTng stream file's first packet's timestamp_begin and packet_seq_num
 * and its last packet's timestamp_end: little-endian at bytes 32, 64 and
 * 40 of a packet (LTTng-UST's packet header of 32 bytes, then its packet
 * context, packet_size in bits at 56; lttng_layout() checks the metadata
 * says so).  Snapshots have no index to read them from.  0, or -1 when
 * the file is no such stream.
 */
static int stream_bounds(const char *path, uint64_t *begin, uint64_t *seq, uint64_t *end,
			 uint64_t *need)
{
	unsigned char b[72];
	uint64_t off = 0, size;
	FILE *f = fopen(path, "rb");
	int rc = -1;

	if (!f)
		return -1;
	while (fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(b, 1, sizeof(b), f) == sizeof(b) &&
	       b[0] == 0xC1 && b[1] == 0x1F && b[2] == 0xFC && b[3] == 0xC1) {
		if (!off) {
			*begin = le64(b + 32);
			*seq = le64(b + 64);
		}
		*end = le64(b + 40);
		rc = 0;
		size = le64(b + 56) / 8;
		*need = off + size;
		if (size < sizeof(b))
			break;
		off += size;
	}
	fclose(f);
	return rc;
}

/* The metadata describes LTTng-UST's little-endian packet layout. */
static bool lttng_layout(const char *text, size_t n)
{
	static const char *const need[] = {
		"byte_order = le;",
		"uint32_t magic;\n\t\tuint8_t  uuid[16];\n\t\tuint32_t stream_id;\n\t\t"
		"uint64_t stream_instance_id;\n\t};",
		"struct packet_context {\n\tuint64_clock_monotonic_t timestamp_begin;\n\t"
		"uint64_clock_monotonic_t timestamp_end;\n\tuint64_t content_size;\n\t"
		"uint64_t packet_size;\n\tuint64_t packet_seq_num;",
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!memmem(text, n, need[i], strlen(need[i])))
			return false;
	return true;
}

int snapshot_trace_bounds(const char *trace_dir, uint64_t *begin_ns, uint64_t *end_ns,
			  unsigned *cut)
{
	char path[PATH_MAX];
	struct dirent *de;
	uint64_t latest = 0, earliest_end = UINT64_MAX;
	long long freq = 0, off_s = 0, off = 0;
	char *text;
	size_t n = 0;
	FILE *f;
	DIR *d;

	*cut = 0;
	snprintf(path, sizeof(path), "%s/metadata", trace_dir);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	text = malloc(1 << 20);
	if (text)
		n = fread(text, 1, 1 << 20, f);
	fclose(f);
	if (!text || !lttng_layout(text, n) || !cli_clock_field(text, n, "freq", &freq) ||
	    freq <= 0) {
		free(text);
		return -1;
	}
	cli_clock_field(text, n, "offset_s", &off_s);
	cli_clock_field(text, n, "offset", &off);
	free(text);
	d = opendir(trace_dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		uint64_t ts = 0, seq = 0, end = 0, need;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", trace_dir, de->d_name);
		if (stream_bounds(path, &ts, &seq, &end, &need) < 0)
			continue;
		if (end < earliest_end)
			earliest_end = end;
		if (!seq)
			continue;
		(*cut)++;
		if (ts > latest)
			latest = ts;
	}
	closedir(d);
	if (!*cut)
		return 0;
	/* cycles to ns from the origin, as Babeltrace computes it */
	*begin_ns = (uint64_t)off_s * 1000000000u +
		(uint64_t)((unsigned __int128)(latest + (uint64_t)off) * 1000000000u /
			   (uint64_t)freq);
	*end_ns = (uint64_t)off_s * 1000000000u +
		(uint64_t)((unsigned __int128)(earliest_end + (uint64_t)off) * 1000000000u /
			   (uint64_t)freq);
	return 1;
}
