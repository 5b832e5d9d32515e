/* SPDX-License-Identifier: MIT */
/*
 * The files of a CTF trace directory checked before Babeltrace reads them.
 *
 * Babeltrace 2.0 trusts them: a metadata file cut inside a packet makes its
 * metadata reader wait for the rest for ever, and a stream cut at a packet
 * boundary (or emptied) is valid CTF, read as a shorter trace, whose hole
 * the state model then blames on the allocator.  LTTng leaves what is
 * needed to tell: the packetized metadata says how long each of its packets
 * is, and each stream's index (index/NAME.idx) lists every packet the
 * tracer wrote, with its offset and size.  A stream of another recording
 * dropped into the directory carries another trace UUID in its packet
 * headers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ---- the CTF index (LTTng's index/NAME.idx) ---------------------------- */

#define CTF_INDEX_MAGIC 0xC1F1DCC1u
#define CTF_INDEX_MIN_ENTRY 48	/* offset, packet_size, content_size, ts x2, discarded */

static uint64_t be_load(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Big-endian entries after a 16-byte header: magic, major, minor, entry size. */
int cli_index_read(const char *path, int (*fn)(const struct cli_index_entry *e, void *arg),
		   void *arg)
{
	unsigned char hdr[16], ent[256];
	struct cli_index_entry e;
	uint64_t len;
	int n = 0;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -1;
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) || be_load(hdr, 4) != CTF_INDEX_MAGIC) {
		fclose(f);
		return -1;
	}
	len = be_load(hdr + 12, 4);
	if (len < CTF_INDEX_MIN_ENTRY || len > sizeof(ent)) {
		fclose(f);
		return -1;
	}
	while (fread(ent, 1, len, f) == len) {
		e.offset = be_load(ent, 8);
		e.packet_bits = be_load(ent + 8, 8);
		e.content_bits = be_load(ent + 16, 8);
		e.ts_begin = be_load(ent + 24, 8);
		e.ts_end = be_load(ent + 32, 8);
		e.discarded = be_load(ent + 40, 8);
		n++;
		if (fn && fn(&e, arg) < 0)
			break;
	}
	fclose(f);
	return n;
}

/*
 * Events the tracer discarded, from the trace's CTF index files (one per
 * stream, written by LTTng: big-endian entries, events_discarded the
 * stream's running count at each packet end).  The count only grows, but a
 * packet may carry a sample taken before an earlier packet's (the threads
 * sharing a per-CPU buffer close sub-buffers concurrently): a later entry
 * can be a few lower, which babeltrace2 reports as a count stepping back
 * (2^64 - n).  Per stream the total is the largest entry.  Returns -1 when
 * the trace has no index.
 */
static int index_most(const struct cli_index_entry *e, void *arg)
{
	uint64_t *most = arg;

	if (e->discarded > *most)
		*most = e->discarded;
	return 0;
}

static long long index_discarded(const char *path)
{
	uint64_t most = 0;

	if (cli_index_read(path, index_most, &most) < 0)
		return -1;
	return most > (uint64_t)LLONG_MAX ? -1 : (long long)most;
}

static long long trace_discarded(const char *dir, int depth, const char *aside,
				 unsigned long long *aside_count)
{
	long long total = -1;
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		size_t n = strlen(de->d_name);
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st))
			continue;
		long long v = -1;
		if (S_ISDIR(st.st_mode) && depth < 8) {
			v = trace_discarded(path, depth + 1, aside, aside_count);
		} else if (S_ISREG(st.st_mode) && n > 4 && !strcmp(de->d_name + n - 4, ".idx")) {
			v = index_discarded(path);
			if (v >= 0 && aside && !strncmp(de->d_name, aside, strlen(aside))) {
				*aside_count += (unsigned long long)v;
				v = 0;
			}
		}
		if (v >= 0)
			total = (total < 0 ? 0 : total) + v;
	}
	closedir(d);
	return total;
}

long long cli_trace_discarded(const char *dir, const char *aside,
			      unsigned long long *aside_count)
{
	return trace_discarded(dir, 0, aside, aside_count);
}

/* ---- metadata ------------------------------------------------------------ */

bool cli_clock_field(const char *text, size_t n, const char *key, long long *v)
{
	const char *c = memmem(text, n, "clock {", 7), *end, *p;
	size_t kl = strlen(key);

	if (!c)
		return false;
	end = memmem(c, n - (size_t)(c - text), "};", 2);
	if (!end)
		return false;
	for (p = c; (p = memmem(p, (size_t)(end - p), key, kl)); p += kl) {
		const char *q = p + kl;

		/* `offset` must not match `offset_s`, nor a word of a comment */
		if (p > c && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z')))
			continue;
		while (q < end && *q == ' ')
			q++;
		if (*q++ != '=')
			continue;
		*v = strtoll(q, NULL, 0);
		return true;
	}
	return false;
}

int cli_trace_clock(const char *dir, struct cli_clock *clk)
{
	char path[PATH_MAX];
	long long freq = 0, off_s = 0, off = 0;
	char *text = malloc(1 << 20);
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = text ? fopen(path, "rb") : NULL;
	if (f) {
		n = fread(text, 1, 1 << 20, f);
		fclose(f);
	}
	if (!f || !cli_clock_field(text, n, "freq", &freq) || freq <= 0) {
		free(text);
		return -1;
	}
	cli_clock_field(text, n, "offset_s", &off_s);
	cli_clock_field(text, n, "offset", &off);
	free(text);
	clk->freq = (uint64_t)freq;
	clk->offset_s = off_s;
	clk->offset = off;
	return 0;
}

uint64_t cli_clock_ns(const struct cli_clock *clk, uint64_t cycles)
{
	/* as Babeltrace: offset_s s, then offset + value cycles */
	__int128 ns = (__int128)clk->offset_s * 1000000000 +
		((__int128)cycles + clk->offset) * 1000000000 / (__int128)clk->freq;

	return ns < 0 ? 0 : ns > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

#define CTF_METADATA_MAGIC 0x75D11D57u
#define CTF_PACKET_MAGIC   0xC1FC1FC1u
#define METADATA_HEADER    37	/* magic, uuid, checksum, content, packet, 5 bytes */

static uint32_t load32(const unsigned char *p, bool be)
{
	return be ? (uint32_t)be_load(p, 4) :
		(uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int read_file(const char *path, unsigned char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;
	size_t o = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		close(fd);
		return -1;
	}
	while (o < (size_t)st.st_size && (r = read(fd, *buf + o, (size_t)st.st_size - o)) > 0)
		o += (size_t)r;
	close(fd);
	*len = o;
	return 0;
}

/*
 * The metadata file: plain text (nothing to check here: its parser says
 * what is wrong) or packets, each complete (the last may lack padding
 * after its text), all of one trace UUID, kept in uuid[16] (*has_uuid
 * set) for the stream files.
 */
static int check_metadata(const char *dir, unsigned char uuid[16], bool *has_uuid)
{
	char path[PATH_MAX];
	unsigned char *b;
	size_t len, o = 0;
	unsigned int nr = 0;
	bool be;

	*has_uuid = false;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (read_file(path, &b, &len) < 0) {
		cli_err("%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (len < 4 || (load32(b, false) != CTF_METADATA_MAGIC &&
			load32(b, true) != CTF_METADATA_MAGIC)) {
		free(b);
		return 0;
	}
	be = load32(b, true) == CTF_METADATA_MAGIC;
	while (o < len) {
		uint32_t content, size;

		nr++;
		if (len - o < METADATA_HEADER) {
			cli_err("%s: cut inside its packet %u (the file ends %zu bytes into it, "
				"before the end of the packet header): the trace was copied while "
				"it was being written, or the disk was full", path, nr, len - o);
			goto bad;
		}
		content = load32(b + o + 24, be);
		size = load32(b + o + 28, be);
		if (load32(b + o, be) != CTF_METADATA_MAGIC || size % 8 || content % 8 ||
		    content > size || content < METADATA_HEADER * 8) {
			cli_err("%s: packet %u at byte %zu is not a metadata packet (bad magic "
				"or sizes): the file is corrupted", path, nr, o);
			goto bad;
		}
		if (nr == 1)
			memcpy(uuid, b + o + 4, 16);
		else if (memcmp(uuid, b + o + 4, 16)) {
			cli_err("%s: packet %u at byte %zu belongs to another trace (another "
				"UUID): the file is corrupted", path, nr, o);
			goto bad;
		}
		/* A last packet cut in its padding holds all its text: read as is. */
		if (size / 8 > len - o && content / 8 <= len - o)
			break;
		if (size / 8 > len - o) {
			cli_err("%s: cut inside its packet %u (bytes %zu..%zu, the file ends at "
				"%zu): the trace was copied while it was being written, or the disk "
				"was full", path, nr, o, o + size / 8 - 1, len);
			goto bad;
		}
		o += size / 8;
	}
	free(b);
	*has_uuid = true;
	return 0;
bad:
	free(b);
	return -1;
}

/* ---- stream files ------------------------------------------------------- */

struct stream_check {
	const char *path;
	int fd;
	uint64_t size;		/* of the stream file */
	uint64_t end;		/* of the last indexed packet */
	unsigned int packets;
	const unsigned char *uuid;
	int bad;
};

/*
 * The stream files by the ids their first packet header gives (LTTng's
 * layout: stream class id, then stream instance id): src.ctf.fs names its
 * ports "UUID | CLASS | INSTANCE", which is how a crash before any event
 * of a stream can still name its file.
 */
static struct stream_name {
	char *path;
	uint64_t class_id, instance_id;
} *names;
static size_t nr_names;

static void remember(const char *path, uint64_t class_id, uint64_t instance_id)
{
	struct stream_name *n = realloc(names, (nr_names + 1) * sizeof(*n));

	if (!n)
		return;
	names = n;
	n[nr_names].path = strdup(path);
	n[nr_names].class_id = class_id;
	n[nr_names].instance_id = instance_id;
	if (n[nr_names].path)
		nr_names++;
}

const char *cli_stream_file(const char *port)
{
	const char *a = strstr(port, " | "), *b = a ? strstr(a + 3, " | ") : NULL;
	uint64_t cls, inst;
	const char *found = NULL;
	char *end;

	if (!b)
		return NULL;
	cls = strtoull(a + 3, &end, 10);
	if (end != b)
		return NULL;
	inst = strtoull(b + 3, &end, 10);
	if (*end)
		return NULL;
	for (size_t i = 0; i < nr_names; i++) {
		if (names[i].class_id == cls && names[i].instance_id == inst) {
			if (found)
				return NULL;	/* two traces: ambiguous */
			found = names[i].path;
		}
	}
	return found;
}

/* A packet header: magic, then the trace's UUID (LTTng's layout). */
static int check_header(struct stream_check *c, uint64_t offset, unsigned int nr)
{
	unsigned char h[36];
	bool be;

	if (pread(c->fd, h, sizeof(h), (off_t)offset) != (ssize_t)sizeof(h))
		return 0;	/* a cut: the sizes say it */
	if (load32(h, false) != CTF_PACKET_MAGIC && load32(h, true) != CTF_PACKET_MAGIC) {
		if (!c->uuid)
			return 0;	/* maybe no magic in its layout: Babeltrace judges */
		cli_err("%s: packet %u (byte %" PRIu64 ") does not start with CTF's magic "
			"number: the stream file is corrupted", c->path, nr, offset);
		return -1;
	}
	be = load32(h, true) == CTF_PACKET_MAGIC;
	if (nr == 1)
		remember(c->path, load32(h + 20, be),
			 be ? be_load(h + 24, 8) :
			 (uint64_t)load32(h + 24, false) | (uint64_t)load32(h + 28, false) << 32);
	if (c->uuid && memcmp(h + 4, c->uuid, 16)) {
		cli_err("%s: packet %u (byte %" PRIu64 ") belongs to another trace (its UUID "
			"is not the metadata's): a stream of another recording was put in "
			"this directory", c->path, nr, offset);
		return -1;
	}
	return 0;
}

static int index_entry(const struct cli_index_entry *e, void *arg)
{
	struct stream_check *c = arg;

	c->packets++;
	if (e->packet_bits % 8 || e->content_bits > e->packet_bits ||
	    e->offset + e->packet_bits / 8 < e->offset) {
		cli_err("%s: index entry %u is corrupted", c->path, c->packets);
		c->bad = 1;
		return -1;
	}
	if (e->offset + e->packet_bits / 8 > c->end)
		c->end = e->offset + e->packet_bits / 8;
	if (e->offset < c->size && check_header(c, e->offset, c->packets) < 0) {
		c->bad = 1;
		return -1;
	}
	return 0;
}

static int check_stream(const char *dir, const char *name, const unsigned char *uuid)
{
	char path[PATH_MAX], idx[PATH_MAX];
	struct stream_check c = { .path = path, .uuid = uuid };
	struct stat st;
	int n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(idx, sizeof(idx), "%s/index/%s.idx", dir, name);
	c.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c.fd < 0) {
		cli_err("%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(c.fd, &st) < 0) {
		cli_err("%s: %s", path, strerror(errno));
		close(c.fd);
		return -1;
	}
	c.size = (uint64_t)st.st_size;
	n = cli_index_read(idx, index_entry, &c);
	if (!c.bad && n < 0 && c.size)
		c.bad = check_header(&c, 0, 1) < 0;	/* no index: the first packet only */
	close(c.fd);
	if (c.bad)
		return -1;
	if (n > 0 && c.size < c.end) {
		cli_err("%s: %s: its index lists %u packet(s), %" PRIu64 " bytes, the file holds "
			"%" PRIu64 ": the stream was cut (copied while it was being written, or "
			"the disk was full)", path, c.size ? "cut short" : "empty", c.packets,
			c.end, c.size);
		return -1;
	}
	return 0;
}

/* Each index/NAME.idx must have its stream: a deleted stream is a hole. */
static int check_orphan_indexes(const char *dir)
{
	char path[PATH_MAX + 8], stream[PATH_MAX + 8];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/index", dir);
	d = opendir(path);
	if (!d)
		return 0;
	while (rc == 0 && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_name[0] == '.' || n <= 4 || strcmp(e->d_name + n - 4, ".idx"))
			continue;
		snprintf(stream, sizeof(stream), "%s/%.*s", dir, (int)(n - 4), e->d_name);
		if (stat(stream, &st) < 0 && errno == ENOENT) {
			char idx[PATH_MAX * 2 + 16];

			snprintf(idx, sizeof(idx), "%s/%s", path, e->d_name);
			if (cli_index_read(idx, NULL, NULL) > 0) {
				cli_err("%s: missing, though %s lists its packets: the trace is "
					"incomplete", stream, idx);
				rc = -1;
			}
		}
	}
	closedir(d);
	return rc;
}

int cli_check_trace_files(const char *dir)
{
	unsigned char uuid[16];
	bool has_uuid;
	struct dirent *e;
	struct stat st;
	DIR *d;
	int rc = 0;

	if (check_metadata(dir, uuid, &has_uuid) < 0)
		return -1;
	d = opendir(dir);
	if (!d) {
		cli_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		char path[PATH_MAX];

		/* What Babeltrace reads as streams: the regular files but metadata
		 * and hidden ones. */
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		rc = check_stream(dir, e->d_name, has_uuid ? uuid : NULL);
	}
	closedir(d);
	return rc ? rc : check_orphan_indexes(dir);
}

/*
 * After Babeltrace refused a packet's magic: the first stream file whose
 * first packet does not start with it (only looked for then: a trace
 * whose packet header declares no magic is valid CTF).  0 with its path
 * in out, or -1.
 */
int cli_find_bad_magic(const char *dir, char *out, size_t len)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int rc = -1;

	if (!d)
		return -1;
	while (rc < 0 && (e = readdir(d))) {
		char path[PATH_MAX];
		unsigned char h[4];
		struct stat st;
		int fd;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || !st.st_size)
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, h, sizeof(h)) != (ssize_t)sizeof(h) ||
		    (load32(h, false) != CTF_PACKET_MAGIC && load32(h, true) != CTF_PACKET_MAGIC)) {
			snprintf(out, len, "%s", path);
			rc = 0;
		}
		close(fd);
	}
	closedir(d);
	return rc;
}
