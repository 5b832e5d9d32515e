/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.check
 *
 * Parameters:
 *   history          events of the slab shown before a violation (default 8)
 *   max-reports      violations printed in full; the others are counted
 *                    (default 100, 0 = all)
 *   fail-on-violation  end the graph with an error when violations exist
 *                    (babeltrace2 then exits non-zero)
 *   reorder-ns, reorder-events  the model's reorder window
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <slub/slub.h>

#include "check.h"
#include "../decode.h"
#include "../format.h"
#include "../sink.h"
#include "../symbolize.h"
#include "stacks.h"

struct check {
	struct slub_sink sink;
	struct slub_symbolizer *sym;
	struct stack_store *stacks;
	uint64_t max_reports;
	uint64_t reported;
	bool fail;
	struct slub_model_summary summary;
};

static void on_violation(const struct slub_model_violation *v, void *arg)
{
	struct check *c = arg;

	const uint64_t *stack = v->stack;
	uint32_t nr = v->stack_nr;

	c->reported++;
	if (c->max_reports && c->reported > c->max_reports)
		return;
	if (!stack && v->event)
		stack = stack_store_get(c->stacks, v->vpid, v->event->vtid, v->event->type,
					v->event->ts, v->event->slab, &nr);
	slub_fmt_violation(c->sink.out, (unsigned)c->reported, v, stack, stack ? nr : 0, c->sym);
}

static void on_stack(struct slub_sink *s, const struct slub_decoded *d, uint64_t event_ts)
{
	struct check *c = (struct check *)s;

	/* Out of memory only costs the report its stack. */
	stack_store_put(c->stacks, d->stack_vpid, d->stack_vtid, d->stack_of, event_ts,
			d->stack_slab, d->stack_ips, d->stack_nr);
}

static void on_summary(const struct slub_model_summary *s, void *arg)
{
	struct check *c = arg;

	c->summary = *s;
}

/*
 * The state model's table is the classic generation's (cpu slabs, frozen
 * slabs, cpu partial chains).  A cache that ran Linux 7.0's sheaves says
 * so in cache_create's flags (SLUB_F_SHEAVES): its slabs are never frozen
 * and their freelists are taken whole without freezing, so the classic
 * rules would report violations that are not.  The check is refused
 * rather than run; stats, timeline and the others read such traces.
 */
static int check_decoded(struct slub_sink *s, const struct slub_decoded *d)
{
	char msg[512];

	if (d->kind != SLUB_DEC_EVENT || d->event.ev.type != SLUB_EV_CACHE_CREATE ||
	    !(d->info.flags & SLUB_F_SHEAVES))
		return 0;
	const char *file = slub_decoder_stream_name(s->dec, d->event.stream_id);

	snprintf(msg, sizeof(msg),
		 "%s: generation sheaves (cache %s): the state model has no table for it yet",
		 file ? file : "input", d->info.name ? d->info.name : "?");
	slub_sink_refuse(s, SLUB_UNUSABLE_GENERATION, msg);
	return -1;
}

static void check_end(struct slub_sink *s)
{
	struct check *c = (struct check *)s;

	if (c->max_reports && c->reported > c->max_reports)
		fprintf(s->out, "(%" PRIu64 " more violations not shown: max-reports=%" PRIu64 ")\n",
			c->reported - c->max_reports, c->max_reports);
	slub_fmt_verdict(s->out, &c->summary);
}

static void check_destroy(struct check *c)
{
	slub_sink_fini(&c->sink);
	slub_symbolizer_destroy(c->sym);
	stack_store_destroy(c->stacks);
	free(c);
}

bt_component_class_initialize_method_status
slub_check_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_data)
{
	struct check *c = calloc(1, sizeof(*c));
	bt_component_class_initialize_method_status st;
	uint64_t history = 0, reorder_ns = 0, reorder_events = 0;
	struct slub_model_config cfg = { 0 };
	struct slub_model_callbacks cb = { 0 };

	if (!c)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;

	struct slub_param p[] = {
		SLUB_HISTORY_PARAM(&history),
		{ .name = "max-reports", .type = SLUB_P_UINT, .where = &c->max_reports },
		{ .name = "fail-on-violation", .type = SLUB_P_BOOL, .where = &c->fail },
		SLUB_REORDER_PARAMS(&reorder_ns, &reorder_events),
	};

	c->max_reports = 100;
	st = slub_sink_init(&c->sink, self, init_data);
	if (st != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK)
		goto fail;
	st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (slub_sink_params(c->sink.self, params, p, SLUB_PARAM_NR(p)) < 0)
		goto fail;
	cfg.history = (uint32_t)history;
	cfg.reorder_ns = reorder_ns;
	cfg.reorder_events = (uint32_t)reorder_events;
	cb.violation = on_violation;
	cb.summary = on_summary;
	cb.arg = c;
	c->sym = slub_symbolizer_create();
	c->stacks = stack_store_create();
	c->sink.end = check_end;
	c->sink.stack = on_stack;
	c->sink.decoded = check_decoded;
	if (!c->sym || !c->stacks || slub_sink_model(&c->sink, &cfg, &cb, c->sym) < 0) {
		st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto fail;
	}
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), c);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
fail:
	/* A component whose initialization failed is never finalized. */
	check_destroy(c);
	return st;
}

bt_component_class_sink_graph_is_configured_method_status
slub_check_graph_is_configured(bt_self_component_sink *self)
{
	struct check *c = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	return slub_sink_configured(&c->sink, self);
}

bt_component_class_sink_consume_method_status slub_check_consume(bt_self_component_sink *self)
{
	struct check *c = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	bt_component_class_sink_consume_method_status st = slub_sink_consume(&c->sink);

	if (st == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END && c->fail &&
	    c->summary.violations) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->sink.self,
			"%" PRIu64 " violation(s) of the SLUB invariants (fail-on-violation)",
			c->summary.violations);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return st;
}

void slub_check_finalize(bt_self_component_sink *self)
{
	struct check *c = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	if (c)
		check_destroy(c);
}
