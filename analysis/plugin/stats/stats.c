/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.stats
 *
 * Every decoded event goes to the model, which hands each on to the trace
 * statistics (analysis/stats) in its order: a slab's events in the order
 * of its word, a failed CAS after the update that beat it.
 *
 * Parameters:
 *   format           "text" (default), "json" (the whole result, schema
 *                    slubtrace-stats/1) or "none" (only json-path)
 *   sections         text sections, comma-separated: slabinfo, sites, locks,
 *                    storms, top, rates, all (default all)
 *   cache            only this cache (text)
 *   procname         only the events of processes of this name (an LTTng
 *                    session records every instrumented process of the user)
 *   json-path        also write the JSON result to this file
 *   run-attempts, window-failures, window-ns, lookback, top,
 *   max-storms       the storm detection's tunables (slub_tstats.h)
 *   pending-ns       the model's reorder window: how long an event waits for
 *                    the one before it (default the model's, 1 s)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "../sink.h"
#include "../symbolize.h"
#include "slub_tstats.h"

struct stats {
	struct slub_sink sink;
	struct slub_tstats *ts;
	struct slub_symbolizer *sym;
	const char *format, *sections, *json_path;
	unsigned what;
	bool json, none;
	int failed;
};

/* The model's applied listener: the events of the processes asked for. */
static void on_applied(const struct slub_model_applied *a, void *arg)
{
	struct stats *st = arg;

	if (!slub_filter_vpid(&st->sink.filter, a->e->vpid))
		return;
	slub_tstats_applied(a, st->ts);
}

static int on_decoded(struct slub_sink *s, const struct slub_decoded *d)
{
	struct stats *st = (struct stats *)s;
	struct slub_tstats_discard g;

	switch (d->kind) {
	case SLUB_DEC_STACK:
		slub_tstats_stack(st->ts, d->stack_vpid, d->stack_vtid, d->stack_of, d->stack_slab,
				  d->stack_ips, d->stack_nr);
		break;
	case SLUB_DEC_DISCARD:
		g.stream_id = d->discard.stream_id;
		g.count = d->discard.count;
		g.begin_ts = d->discard.begin_ts;
		g.end_ts = d->discard.end_ts;
		g.range_known = d->discard.range_known;
		g.foreign = d->discard.foreign;
		slub_tstats_discarded(st->ts, &g);
		break;
	default:
		break;
	}
	return 0;
}

/* Storm stacks as "function+0x12 (file.c:34)", from the trace's statedump. */
static const char *symbolize(uint32_t vpid, uint64_t ip, char *buf, size_t len, void *arg)
{
	struct slub_frame fr;

	if (slub_sym_lookup(arg, vpid, ip, &fr) < 0)
		return NULL;
	if (fr.function[0] && fr.file[0])
		snprintf(buf, len, "%s+0x%llx (%s:%d)", fr.function,
			 (unsigned long long)fr.function_off, fr.file, fr.line);
	else if (fr.function[0])
		snprintf(buf, len, "%s+0x%llx (%s)", fr.function, (unsigned long long)fr.function_off,
			 fr.path ? fr.path : "?");
	else
		snprintf(buf, len, "%s+0x%llx", fr.path ? fr.path : "?",
			 (unsigned long long)fr.offset);
	return buf;
}

static void stats_end(struct slub_sink *s)
{
	struct stats *st = (struct stats *)s;

	if (slub_tstats_failed(st->ts)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
			"out of memory in the statistics");
		st->failed = 1;
		return;
	}
	if (slub_filter_refuse(s, true) < 0)
		return;
	slub_tstats_finish(st->ts);
	if (st->json)
		slub_tstats_print_json(st->ts, s->out);
	else if (!st->none)
		slub_tstats_print_text(st->ts, s->out, st->what, s->filter.cache);
	if (st->json_path) {
		FILE *f = fopen(st->json_path, "w");
		if (f) {
			slub_tstats_print_json(st->ts, f);
			if (fclose(f))
				f = NULL;
		}
		if (!f) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
				"json-path %s: %s", st->json_path, strerror(errno));
			st->failed = 1;
		}
	}
}

static int parse_sections(const char *s, unsigned *what)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "slabinfo", SLUB_TSTATS_SHOW_SLABINFO }, { "sites", SLUB_TSTATS_SHOW_SITES },
		{ "locks", SLUB_TSTATS_SHOW_LOCKS }, { "storms", SLUB_TSTATS_SHOW_STORMS },
		{ "top", SLUB_TSTATS_SHOW_TOP }, { "rates", SLUB_TSTATS_SHOW_RATES },
		{ "all", SLUB_TSTATS_SHOW_ALL },
	};

	*what = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		unsigned i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && !strncmp(s, names[i].name, n))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		*what |= names[i].bit;
		s += n + (s[n] == ',');
	}
	return *what ? 0 : -1;
}

static void stats_destroy(struct stats *c)
{
	slub_sink_fini(&c->sink);
	slub_tstats_free(c->ts);
	slub_symbolizer_destroy(c->sym);
	free(c);
}

bt_component_class_initialize_method_status
slub_stats_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_data)
{
	struct stats *c = calloc(1, sizeof(*c));
	bt_component_class_initialize_method_status st;
	uint64_t run = 0, wfail = 0, wns = 0, lookback = 0, pns = 0, top = 0, max_storms = 0;
	static const char *const formats[] = { "text", "json", "none", NULL };
	struct slub_tstats_config cfg = { 0 };
	struct slub_model_config mcfg = { 0 };
	struct slub_model_callbacks cb = { 0 };

	(void)config;
	if (!c)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;

	struct slub_param p[] = {
		{ .name = "format", .type = SLUB_P_STRING, .where = &c->format, .choices = formats },
		{ .name = "sections", .type = SLUB_P_STRING, .where = &c->sections },
		{ .name = "cache", .type = SLUB_P_STRING, .where = &c->sink.filter.cache },
		{ .name = "json-path", .type = SLUB_P_STRING, .where = &c->json_path },
		{ .name = "procname", .type = SLUB_P_STRING, .where = &c->sink.filter.procname },
		{ .name = "run-attempts", .type = SLUB_P_UINT, .where = &run, .max = UINT32_MAX },
		{ .name = "window-failures", .type = SLUB_P_UINT, .where = &wfail,
		  .max = UINT32_MAX },
		{ .name = "window-ns", .type = SLUB_P_UINT, .where = &wns },
		{ .name = "lookback", .type = SLUB_P_UINT, .where = &lookback, .max = 4096 },
		{ .name = "pending-ns", .type = SLUB_P_UINT, .where = &pns },
		{ .name = "top", .type = SLUB_P_UINT, .where = &top, .max = 1000 },
		{ .name = "max-storms", .type = SLUB_P_UINT, .where = &max_storms, .max = 100000 },
	};

	st = slub_sink_init(&c->sink, self, init_data);
	if (st != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK)
		goto fail;
	st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (slub_sink_params(c->sink.self, params, p, SLUB_PARAM_NR(p)) < 0)
		goto fail;
	if (slub_filter_init(&c->sink) < 0) {
		st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto fail;
	}
	c->json = c->format && !strcmp(c->format, "json");
	c->none = c->format && !strcmp(c->format, "none");
	c->what = SLUB_TSTATS_SHOW_ALL;
	if (c->sections && parse_sections(c->sections, &c->what)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->sink.self,
			"sections: a comma-separated list of slabinfo, sites, locks, storms, top, "
			"rates, all; not \"%s\"", c->sections);
		goto fail;
	}
	cfg.run_attempts = (uint32_t)run;
	cfg.window_failures = (uint32_t)wfail;
	cfg.window_ns = wns;
	cfg.lookback = (uint32_t)lookback;
	mcfg.reorder_ns = pns;
	cfg.top_n = (uint32_t)top;
	cfg.max_storms = (uint32_t)max_storms;
	c->ts = slub_tstats_new(&cfg);
	c->sym = slub_symbolizer_create();
	c->sink.decoded = on_decoded;
	c->sink.end = stats_end;
	cb.applied = on_applied;
	cb.arg = c;
	if (!c->ts || !c->sym || slub_sink_model(&c->sink, &mcfg, &cb, c->sym) < 0) {
		st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto fail;
	}
	slub_tstats_set_symbolizer(c->ts, symbolize, c->sym);
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), c);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
fail:
	/* A component whose initialization failed is never finalized. */
	stats_destroy(c);
	return st;
}

bt_component_class_sink_graph_is_configured_method_status
slub_stats_graph_is_configured(bt_self_component_sink *self)
{
	struct stats *c = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	return slub_sink_configured(&c->sink, self);
}

bt_component_class_sink_consume_method_status slub_stats_consume(bt_self_component_sink *self)
{
	struct stats *c = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_component_class_sink_consume_method_status st = slub_sink_consume(&c->sink);

	if (st == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END && c->failed)
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	return st;
}

void slub_stats_finalize(bt_self_component_sink *self)
{
	struct stats *c = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (c)
		stats_destroy(c);
}
