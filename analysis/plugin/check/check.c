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
 *   cache            report only the violations of this cache
 *   procname         report only the violations of the processes of this
 *                    name; with either filter the verdict counts the events
 *                    and violations that pass it and says which applied (the
 *                    model still judges every event)
 *   hosts            label every line with its host (the trace
 *                    environment's hostname) and end with a verdict per
 *                    host; also done as soon as a second host is seen
 *
 * Hosts: the decoder numbers them in the vpid (decode.h), so the model
 * keeps the processes of two machines apart; here the number becomes the
 * label again and the vpid printed is the process's own.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	bool hosts;		/* label lines with their host */
	struct slub_model_summary summary;
	/* per host number: slub events decoded, violations found */
	struct host_count {
		uint64_t events, violations;
	} *per_host;
	uint32_t nr_per_host;
};

static struct host_count *host_count(struct check *c, uint32_t host)
{
	if (host >= c->nr_per_host) {
		uint32_t n = host + 8;
		struct host_count *h = realloc(c->per_host, n * sizeof(*h));

		if (!h)
			return NULL;
		memset(h + c->nr_per_host, 0, (n - c->nr_per_host) * sizeof(*h));
		c->per_host = h;
		c->nr_per_host = n;
	}
	return &c->per_host[host];
}

static bool labelled(const struct check *c)
{
	return c->hosts || slub_decoder_hosts(c->sink.dec) > 1;
}

static int on_decoded(struct slub_sink *s, const struct slub_decoded *d)
{
	struct check *c = (struct check *)s;
	struct host_count *h;

	if (slub_sink_refuse_generation(s, d) < 0)
		return -1;
	if (d->kind != SLUB_DEC_EVENT || !slub_filter_event(&s->filter, &d->event))
		return 0;
	h = host_count(c, slub_dec_host(d->event.vpid));
	if (!h) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self, "out of memory");
		return -1;
	}
	h->events++;
	return 0;
}

/* The report of v, as slub_fmt_violation() prints it, in a string (NULL
 * without memory). */
static char *report_text(struct check *c, const struct slub_model_violation *v,
			 const uint64_t *stack, uint32_t nr)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	slub_fmt_violation(f, (unsigned)c->reported, v, stack, nr, c->sym);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * A violation of a host: its report with the process's own vpid, each
 * line prefixed with "[HOST] ".  The records are copied to unmask their
 * vpids (violations are few, and at most max-reports are printed); the
 * stack is symbolized with the host-numbered vpid the symbolizer knows
 * the process by, so its lines come from the report of v itself.
 */
static void print_labelled(struct check *c, const struct slub_model_violation *v,
			   const uint64_t *stack, uint32_t nr)
{
	const char *host = slub_decoder_host_name(c->sink.dec, slub_dec_host(v->vpid));
	struct slub_model_violation u = *v;
	struct slub_model_record ev, *hist = NULL;
	char *text, *full = NULL, *from = NULL, *line, *next;

	u.vpid = slub_dec_pid(v->vpid);
	if (v->event) {
		ev = *v->event;
		ev.vpid = slub_dec_pid(ev.vpid);
		u.event = &ev;
	}
	if (v->nr_history) {
		hist = malloc(v->nr_history * sizeof(*hist));
		if (hist) {
			memcpy(hist, v->history, v->nr_history * sizeof(*hist));
			for (uint32_t i = 0; i < v->nr_history; i++)
				hist[i].vpid = slub_dec_pid(hist[i].vpid);
		}
		u.history = hist;
		u.nr_history = hist ? v->nr_history : 0;
	}
	text = report_text(c, &u, NULL, 0);
	if (nr) {
		full = report_text(c, v, stack, nr);
		from = full ? strstr(full, "\n  stack of the offending event:\n") : NULL;
	}
	if (!text) {
		/* no memory for the labels: the report still goes out */
		fprintf(c->sink.out, "[%s]\n", host);
		slub_fmt_violation(c->sink.out, (unsigned)c->reported, v, stack, nr, c->sym);
		goto out;
	}
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (!*line)
			break;	/* the blank line that closes the report */
		fprintf(c->sink.out, "[%s] %s\n", host, line);
	}
	for (line = from ? from + 1 : NULL; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (!*line)
			break;
		fprintf(c->sink.out, "[%s] %s\n", host, line);
	}
	fputc('\n', c->sink.out);
out:
	free(text);
	free(full);
	free(hist);
}

static void on_violation(const struct slub_model_violation *v, void *arg)
{
	struct check *c = arg;

	const uint64_t *stack = v->stack;
	uint32_t nr = v->stack_nr;

	struct host_count *h;

	if (!slub_filter_vpid(&c->sink.filter, v->vpid) ||
	    !slub_filter_cache(&c->sink.filter, v->cache_name))
		return;
	c->sink.filter.violations++;
	h = host_count(c, slub_dec_host(v->vpid));
	if (h)
		h->violations++;
	c->reported++;
	if (c->max_reports && c->reported > c->max_reports)
		return;
	if (!stack && v->event)
		stack = stack_store_get(c->stacks, v->vpid, v->event->vtid, v->event->type,
					v->event->ts, v->event->slab, &nr);
	if (labelled(c))
		print_labelled(c, v, stack, stack ? nr : 0);
	else
		slub_fmt_violation(c->sink.out, (unsigned)c->reported, v, stack, stack ? nr : 0,
				   c->sym);
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
 * A cache that ran Linux 7.0's sheaves says so in cache_create's flags
 * (SLUB_F_SHEAVES); the model judges its slabs by the sheaves table and
 * its sheaves and barns by the S rules.  A trace of wire format 6 has no
 * sheaf and barn events: the check is refused rather than run.
 */
static void check_end(struct slub_sink *s)
{
	struct check *c = (struct check *)s;
	char scope[160];

	if (slub_filter_refuse(s, true) < 0)
		return;
	if (c->max_reports && c->reported > c->max_reports)
		fprintf(s->out, "(%" PRIu64 " more violations not shown: max-reports=%" PRIu64 ")\n",
			c->reported - c->max_reports, c->max_reports);
	/* each host's own verdict, then the verdict over all of them */
	for (uint32_t i = 0; labelled(c) && i < slub_decoder_hosts(s->dec); i++) {
		const struct host_count *h = i < c->nr_per_host ? &c->per_host[i] : NULL;
		uint64_t ev = h ? h->events : 0, vi = h ? h->violations : 0;

		fprintf(s->out, "[%s] host verdict: %s: %" PRIu64 " events, %" PRIu64
			" violations\n", slub_decoder_host_name(s->dec, i),
			vi ? "VIOLATIONS" : ev ? "clean" : "no slub event", ev, vi);
	}
	slub_filter_describe(&s->filter, scope, sizeof(scope));
	if (slub_filter_on(&s->filter))
		slub_fmt_verdict_filtered(s->out, &c->summary, scope, s->filter.events,
					  s->filter.violations);
	else
		slub_fmt_verdict(s->out, &c->summary);
}

static void check_destroy(struct check *c)
{
	slub_sink_fini(&c->sink);
	slub_symbolizer_destroy(c->sym);
	stack_store_destroy(c->stacks);
	free(c->per_host);
	free(c);
}

bt_component_class_initialize_method_status
slub_check_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_data)
{
	struct check *c = calloc(1, sizeof(*c));
	bt_component_class_initialize_method_status st;
	uint64_t history = 0;
	struct slub_order_params order = { 0 };
	struct slub_model_config cfg = { 0 };
	struct slub_model_callbacks cb = { 0 };

	if (!c)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;

	struct slub_param p[] = {
		SLUB_HISTORY_PARAM(&history),
		{ .name = "max-reports", .type = SLUB_P_UINT, .where = &c->max_reports },
		{ .name = "fail-on-violation", .type = SLUB_P_BOOL, .where = &c->fail },
		{ .name = "hosts", .type = SLUB_P_BOOL, .where = &c->hosts },
		{ .name = "cache", .type = SLUB_P_STRING, .where = &c->sink.filter.cache },
		{ .name = "procname", .type = SLUB_P_STRING, .where = &c->sink.filter.procname },
		SLUB_REORDER_PARAMS(&order),
	};

	c->max_reports = 100;
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
	cfg.history = (uint32_t)history;
	slub_order_config(&order, &cfg);
	cb.violation = on_violation;
	cb.summary = on_summary;
	cb.arg = c;
	c->sym = slub_symbolizer_create();
	c->stacks = stack_store_create();
	c->sink.end = check_end;
	c->sink.stack = on_stack;
	c->sink.decoded = on_decoded;
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

	uint64_t violations = slub_filter_on(&c->sink.filter) ? c->sink.filter.violations :
		c->summary.violations;

	if (st == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END && c->fail && violations) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(c->sink.self,
			"%" PRIu64 " violation(s) of the SLUB invariants (fail-on-violation)",
			violations);
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
