/* SPDX-License-Identifier: MIT */
/*
 * How far a graph has read into its traces, by bytes.
 *
 * src.ctf.fs does not say which packet it decodes, but LTTng writes beside
 * each stream file an index (index/NAME.idx) with every packet's offset,
 * size and first timestamp.  The muxer hands the sink its messages in time
 * order, so once the sink has seen a message of time T every packet that
 * began at or before T has been opened: their sizes summed over all the
 * streams, against the sum of every packet, is the part read.  A packet is
 * counted whole when it is opened, so the figure runs a packet per stream
 * ahead at most, and is 100 when the last packet is.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

struct packet {
	uint64_t begin_ns, size;
};

struct loading {
	struct packet *v;
	size_t nr, cap;
	const struct cli_clock *clk;
	int failed;
};

static int add_packet(const struct cli_index_entry *e, void *arg)
{
	struct loading *l = arg;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct packet *n = realloc(l->v, cap * sizeof(*n));

		if (!n) {
			l->failed = 1;
			return -1;
		}
		l->v = n;
		l->cap = cap;
	}
	l->v[l->nr].begin_ns = cli_clock_ns(l->clk, e->ts_begin);
	l->v[l->nr].size = e->packet_bits / 8;
	l->nr++;
	return 0;
}

/* Every stream file of the trace directory dir through its index: 0, or
 * -1 when one has none (an empty stream file has no packet to count). */
static int load_trace(const char *dir, struct loading *l)
{
	char path[PATH_MAX * 2 + 16];
	struct cli_clock clk;
	struct dirent *e;
	struct stat st;
	DIR *d;
	int rc = 0;

	if (cli_trace_clock(dir, &clk) < 0)
		return -1;
	l->clk = &clk;
	d = opendir(dir);
	if (!d)
		return -1;
	while (rc == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
			continue;
		snprintf(path, sizeof(path), "%s/index/%s.idx", dir, e->d_name);
		if (cli_index_read(path, add_packet, l) < 0 || l->failed)
			rc = -1;
	}
	closedir(d);
	l->clk = NULL;
	return rc;
}

static int by_begin(const void *a, const void *b)
{
	const struct packet *x = a, *y = b;

	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

int cli_progress_load(struct cli_progress *p, char *const *dirs, size_t nr)
{
	struct loading l = { 0 };
	uint64_t sum = 0;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < nr; i++)
		if (load_trace(dirs[i], &l) < 0) {
			free(l.v);
			return -1;
		}
	qsort(l.v, l.nr, sizeof(*l.v), by_begin);
	p->begin_ns = malloc((l.nr ? l.nr : 1) * sizeof(*p->begin_ns));
	p->bytes = malloc((l.nr ? l.nr : 1) * sizeof(*p->bytes));
	if (!p->begin_ns || !p->bytes) {
		free(l.v);
		cli_progress_free(p);
		return -1;
	}
	for (size_t i = 0; i < l.nr; i++) {
		sum += l.v[i].size;
		p->begin_ns[i] = l.v[i].begin_ns;
		p->bytes[i] = sum;
	}
	p->nr = l.nr;
	p->total = sum;
	free(l.v);
	return 0;
}

void cli_progress_free(struct cli_progress *p)
{
	free(p->begin_ns);
	free(p->bytes);
	memset(p, 0, sizeof(*p));
}

uint64_t cli_progress_bytes(const struct cli_progress *p, uint64_t ns)
{
	size_t lo = 0, hi = p->nr;

	/* the first packet that began after ns */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->begin_ns[mid] <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? p->bytes[lo - 1] : 0;
}

unsigned cli_progress_percent(const struct cli_progress *p, uint64_t ns)
{
	if (!p->total)
		return 100;
	return (unsigned)((unsigned __int128)cli_progress_bytes(p, ns) * 100 / p->total);
}

char *cli_progress_line(char *buf, size_t len, const struct cli_progress *p, uint64_t ns,
			uint64_t messages, double rate)
{
	char part[64] = "";

	/* MiB, or KiB below one (a small trace would be "0.0 MiB") */
	if (p && p->total >= 1024 * 1024)
		snprintf(part, sizeof(part), "%u%% of %.1f MiB, ", cli_progress_percent(p, ns),
			 (double)p->total / (1024.0 * 1024.0));
	else if (p)
		snprintf(part, sizeof(part), "%u%% of %.0f KiB, ", cli_progress_percent(p, ns),
			 (double)p->total / 1024.0);
	snprintf(buf, len, "slubtrace: %s%" PRIu64 " messages read, %.0f messages/s", part,
		 messages, rate);
	return buf;
}
