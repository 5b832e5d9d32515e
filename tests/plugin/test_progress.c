/* SPDX-License-Identifier: MIT */
/*
 * The progress of slubtrace by bytes (src/cli/progress.c), and the
 * discarded events record reads from the same index files.
 *
 *   test_progress                      the percent and the line, on packets
 *                                      made here; the counts by channel
 *   test_progress PLUGIN_DIR TRACE_DIR a recorded trace (LTTng's index files):
 *                                      its packets' sizes sum to its stream
 *                                      files' sizes; read through
 *                                      sink.slub.stats batch by batch, the
 *                                      percent at the sink's last_ns never
 *                                      goes back, stays in 0..100, passes
 *                                      between and ends at 100
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"
#include "slub-plugin.h"

static int failures;

#define CHECK(cond, ...)                                                                  \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
			fprintf(stderr, __VA_ARGS__);                                     \
			fputc('\n', stderr);                                              \
			failures++;                                                       \
		}                                                                         \
	} while (0)

/* ---- made packets ---- */

static void made(void)
{
	uint64_t begin[] = { 10, 20, 20, 30 };
	uint64_t bytes[] = { 1 << 20, 2 << 20, 3 << 20, 4 << 20 };
	struct cli_progress p = { begin, bytes, 4, 4 << 20 }, empty = { 0 };
	char line[160];

	CHECK(cli_progress_bytes(&p, 0) == 0, "nothing begun at 0");
	CHECK(cli_progress_bytes(&p, 9) == 0, "nothing begun at 9");
	CHECK(cli_progress_bytes(&p, 10) == 1 << 20, "the first packet at its begin");
	CHECK(cli_progress_bytes(&p, 20) == 3 << 20, "both packets of time 20");
	CHECK(cli_progress_bytes(&p, UINT64_MAX) == 4 << 20, "every packet at the end");
	CHECK(cli_progress_percent(&p, 5) == 0, "0%%: %u", cli_progress_percent(&p, 5));
	CHECK(cli_progress_percent(&p, 25) == 75, "75%%: %u", cli_progress_percent(&p, 25));
	CHECK(cli_progress_percent(&p, 30) == 100, "100%%: %u", cli_progress_percent(&p, 30));
	CHECK(cli_progress_percent(&empty, 0) == 100, "an empty trace is read");

	cli_progress_line(line, sizeof(line), &p, 15, 1234, 500.4);
	CHECK(!strcmp(line, "slubtrace: 25% of 4.0 MiB, 1234 messages read, 500 messages/s"),
	      "the line with indexes: '%s'", line);
	p.total = 32768;
	p.bytes[3] = 32768;
	cli_progress_line(line, sizeof(line), &p, 30, 7, 3.0);
	CHECK(!strcmp(line, "slubtrace: 100% of 32 KiB, 7 messages read, 3 messages/s"),
	      "a small trace in KiB: '%s'", line);
	cli_progress_line(line, sizeof(line), NULL, 15, 1234, 500.4);
	CHECK(!strcmp(line, "slubtrace: 1234 messages read, 500 messages/s"),
	      "the line without: '%s'", line);
}

/* ---- discarded events by channel, from made index files ---- */

static void be_store(unsigned char *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

/* An index of LTTng's layout: 16-byte header, 48-byte entries. */
static void write_index(const char *path, const uint64_t *discarded, int n)
{
	unsigned char hdr[16] = { 0 }, ent[48] = { 0 };
	FILE *f = fopen(path, "wb");

	CHECK(f, "%s: cannot write", path);
	if (!f)
		return;
	be_store(hdr, 0xC1F1DCC1u, 4);
	be_store(hdr + 4, 1, 4);
	be_store(hdr + 8, 1, 4);
	be_store(hdr + 12, sizeof(ent), 4);
	fwrite(hdr, 1, sizeof(hdr), f);
	for (int i = 0; i < n; i++) {
		be_store(ent, (uint64_t)i * 4096, 8);
		be_store(ent + 8, 4096 * 8, 8);
		be_store(ent + 16, 4096 * 8, 8);
		be_store(ent + 40, discarded[i], 8);
		fwrite(ent, 1, sizeof(ent), f);
	}
	fclose(f);
}

/* record's closing line: the slub channel's losses, and those of its
 * channel of LTTng-UST's own events apart.  Per stream the largest count
 * (a later packet may carry a lower sample). */
static void discarded_by_channel(void)
{
	char root[] = "/tmp/test-progress-idx-XXXXXX", dir[256], path[320];
	static const uint64_t cpu0[] = { 3, 7, 5 }, cpu1[] = { 0, 2 }, ust0[] = { 4, 4 };
	unsigned long long aside = 0;
	long long slub;

	if (!mkdtemp(root)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/ust/uid/0/64-bit/index", root);
	for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	mkdir(dir, 0755);
	CHECK(cli_trace_discarded(root, "slubtrace_ust_", &aside) == -1 && aside == 0,
	      "a trace without index files");
	snprintf(path, sizeof(path), "%s/slubtrace_0.idx", dir);
	write_index(path, cpu0, 3);
	snprintf(path, sizeof(path), "%s/slubtrace_1.idx", dir);
	write_index(path, cpu1, 2);
	snprintf(path, sizeof(path), "%s/slubtrace_ust_0.idx", dir);
	write_index(path, ust0, 2);
	slub = cli_trace_discarded(root, "slubtrace_ust_", &aside);
	CHECK(slub == 9 && aside == 4, "slub %lld (want 9), aside %llu (want 4)", slub, aside);
	aside = 0;
	slub = cli_trace_discarded(root, NULL, &aside);
	CHECK(slub == 13 && aside == 0, "all together: %lld (want 13), aside %llu", slub, aside);
	for (const char *n = "slubtrace_0.idx\0slubtrace_1.idx\0slubtrace_ust_0.idx\0"; *n;
	     n += strlen(n) + 1) {
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		unlink(path);
	}
	for (char *p; (p = strrchr(dir, '/')) && strlen(dir) > strlen(root); *p = '\0')
		rmdir(dir);
	rmdir(root);
}

/* ---- a recorded trace ---- */

struct dirs {
	char *v[64];
	size_t nr;
};

static void find(const char *dir, struct dirs *d, int depth)
{
	char path[PATH_MAX];
	struct stat st;
	struct dirent *e;
	DIR *dd;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (stat(path, &st) == 0 && d->nr < 64) {
		d->v[d->nr++] = strdup(dir);
		return;
	}
	dd = depth < 16 ? opendir(dir) : NULL;
	while (dd && (e = readdir(dd))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			find(path, d, depth + 1);
	}
	if (dd)
		closedir(dd);
}

/* The bytes of the stream files of d's traces. */
static uint64_t stream_bytes(const struct dirs *d)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < d->nr; i++) {
		DIR *dd = opendir(d->v[i]);
		struct dirent *e;

		while (dd && (e = readdir(dd))) {
			char path[PATH_MAX];
			struct stat st;

			if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", d->v[i], e->d_name);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
				sum += (uint64_t)st.st_size;
		}
		if (dd)
			closedir(dd);
	}
	return sum;
}

static const bt_plugin *load(const char *dir, const char *name, const bt_plugin_set **set)
{
	char path[PATH_MAX];

	if (dir) {
		snprintf(path, sizeof(path), "%s/babeltrace-plugin-slub.so", dir);
		if (bt_plugin_find_all_from_file(path, BT_FALSE, set) !=
		    BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK)
			return NULL;
		return bt_plugin_set_borrow_plugin_by_index_const(*set, 0);
	}
	const bt_plugin *p = NULL;

	*set = NULL;
	bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p);
	return p;
}

/* src.ctf.fs per trace -> muxer -> sink.slub.stats (format none) */
static bt_graph *build(const bt_plugin *ctf, const bt_plugin *utils, const bt_plugin *slub,
		       const struct dirs *d, struct slub_plugin_result *res)
{
	bt_graph *g = bt_graph_create(0);
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_value *sp = bt_value_map_create();

	bt_value_map_insert_string_entry(sp, "format", "none");
	if (bt_graph_add_filter_component(g,
			bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"),
			"mux", NULL, BT_LOGGING_LEVEL_WARNING, &mux) ||
	    bt_graph_add_sink_component_with_initialize_method_data(g,
			bt_plugin_borrow_sink_component_class_by_name_const(slub, "stats"),
			"stats", sp, res, BT_LOGGING_LEVEL_WARNING, &sink))
		return NULL;
	bt_value_put_ref(sp);
	for (size_t i = 0; i < d->nr; i++) {
		const bt_component_source *src;
		bt_value *p = bt_value_map_create(), *in = bt_value_array_create();
		char name[32];

		bt_value_array_append_string_element(in, d->v[i]);
		bt_value_map_insert_entry(p, "inputs", in);
		snprintf(name, sizeof(name), "src-%zu", i);
		if (bt_graph_add_source_component(g,
				bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"),
				name, p, BT_LOGGING_LEVEL_WARNING, &src))
			return NULL;
		bt_value_put_ref(in);
		bt_value_put_ref(p);
		for (uint64_t k = 0; k < bt_component_source_get_output_port_count(src); k++) {
			uint64_t n = bt_component_filter_get_input_port_count(mux);

			const bt_port_output *out =
				bt_component_source_borrow_output_port_by_index_const(src, k);
			const bt_port_input *in =
				bt_component_filter_borrow_input_port_by_index_const(mux, n - 1);

			if (bt_graph_connect_ports(g, out, in, NULL))
				return NULL;
		}
	}
	if (bt_graph_connect_ports(g,
			bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
			bt_component_sink_borrow_input_port_by_name_const(sink, "in"), NULL))
		return NULL;
	return g;
}

static void recorded(const char *plugin_dir, const char *root)
{
	struct dirs d = { .nr = 0 };
	struct cli_progress p;
	struct slub_plugin_result res = { .magic = SLUB_PLUGIN_RESULT_MAGIC };
	const bt_plugin_set *set = NULL;
	const bt_plugin *ctf = NULL, *utils = NULL, *slub;
	bt_graph *g;
	unsigned last = 0, pct = 0, between = 0, batches = 0;
	bt_graph_run_once_status st;

	find(root, &d, 0);
	CHECK(d.nr > 0, "%s: no trace below it", root);
	if (!d.nr)
		return;
	CHECK(cli_progress_load(&p, d.v, d.nr) == 0, "%s: the index files are not read", root);
	if (failures)
		return;
	CHECK(p.total == stream_bytes(&d), "packets sum to %" PRIu64 " bytes, the stream files "
	      "hold %" PRIu64, p.total, stream_bytes(&d));
	CHECK(p.nr > d.nr, "%zu packets in %zu traces: a trace of one packet a stream tells "
	      "nothing", p.nr, d.nr);
	printf("%zu traces, %zu packets, %" PRIu64 " bytes\n", d.nr, p.nr, p.total);

	slub = load(plugin_dir, "slub", &set);
	bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf);
	bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils);
	CHECK(slub && ctf && utils, "the slub, ctf and utils plugins");
	if (!slub || !ctf || !utils)
		return;
	g = build(ctf, utils, slub, &d, &res);
	CHECK(g, "the graph");
	if (!g)
		return;
	while ((st = bt_graph_run_once(g)) == BT_GRAPH_RUN_ONCE_STATUS_OK ||
	       st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN) {
		pct = cli_progress_percent(&p, res.last_ns);
		batches++;
		CHECK(pct >= last, "the percent went back from %u to %u (batch %u)", last, pct,
		      batches);
		CHECK(pct <= 100, "%u%%", pct);
		between += pct > 0 && pct < 100;
		last = pct;
	}
	CHECK(st == BT_GRAPH_RUN_ONCE_STATUS_END, "the graph ended with status %d", st);
	CHECK(last == 100, "the percent at the end is %u", last);
	CHECK(between > 0, "no batch between 0 and 100%% in %u batches", batches);
	printf("%u batches, %u of them between 0 and 100%%, %u%% at the end\n", batches, between,
	       last);
	bt_graph_put_ref(g);
	bt_plugin_set_put_ref(set);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	cli_progress_free(&p);
	for (size_t i = 0; i < d.nr; i++)
		free(d.v[i]);
}

int main(int argc, char **argv)
{
	made();
	discarded_by_channel();
	if (argc == 3)
		recorded(argv[1], argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: test_progress [PLUGIN_DIR TRACE_DIR]\n");
		return 2;
	}
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("progress: ok\n");
	return failures ? 1 : 0;
}
