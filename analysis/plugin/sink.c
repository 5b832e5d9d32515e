/* SPDX-License-Identifier: MIT */
/*
 * The part of sink.slub.check and sink.slub.timeline that moves messages
 * from the upstream iterator through the decoder into the model.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slub/slub.h>

#include "sink.h"

#define OUT_BUFFER (1u << 20)
/* Room for a parameter table's names or a string parameter's values. */
#define PARAM_TEXT 512

static const char *param_expected(const struct slub_param *p)
{
	switch (p->type) {
	case SLUB_P_BOOL:
		return "a boolean";
	case SLUB_P_UINT:
		return "a non-negative integer";
	case SLUB_P_INT:
		return "an integer";
	case SLUB_P_STRING:
		return "a string";
	case SLUB_P_ANY:
		break;
	}
	return "a value";
}

/* The accepted values of a string parameter, as text: "a", "b" or "c". */
static void param_choices(const struct slub_param *p, char *buf, size_t len)
{
	size_t o = 0, n = 0;

	while (p->choices[n])
		n++;
	buf[0] = 0;
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s\"%s\"",
				      !i ? "" : i + 1 == n ? " or " : ", ", p->choices[i]);
}

static int param_one(bt_self_component *self, struct slub_param *p, const bt_value *v)
{
	bt_value_type t = bt_value_get_type(v);
	char choices[PARAM_TEXT];

	switch (p->type) {
	case SLUB_P_BOOL:
		if (t != BT_VALUE_TYPE_BOOL)
			goto type;
		*(bool *)p->where = bt_value_bool_get(v);
		break;
	case SLUB_P_UINT: {
		uint64_t u;

		if (t == BT_VALUE_TYPE_UNSIGNED_INTEGER)
			u = bt_value_integer_unsigned_get(v);
		else if (t == BT_VALUE_TYPE_SIGNED_INTEGER && bt_value_integer_signed_get(v) >= 0)
			u = (uint64_t)bt_value_integer_signed_get(v);
		else
			goto type;
		if (u < p->min || (p->max && u > p->max)) {
			if (p->max)
				BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self,
					"parameter `%s`: from %" PRIu64 " to %" PRIu64 ", not %" PRIu64,
					p->name, p->min, p->max, u);
			else
				BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self,
					"parameter `%s`: at least %" PRIu64 ", not %" PRIu64, p->name,
					p->min, u);
			return -1;
		}
		*(uint64_t *)p->where = u;
		break;
	}
	case SLUB_P_INT: {
		int64_t i;

		if (t == BT_VALUE_TYPE_SIGNED_INTEGER)
			i = bt_value_integer_signed_get(v);
		else if (t == BT_VALUE_TYPE_UNSIGNED_INTEGER &&
			 bt_value_integer_unsigned_get(v) <= INT64_MAX)
			i = (int64_t)bt_value_integer_unsigned_get(v);
		else
			goto type;
		if (p->imin < p->imax && (i < p->imin || i > p->imax)) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self,
				"parameter `%s`: from %" PRId64 " to %" PRId64 ", not %" PRId64,
				p->name, p->imin, p->imax, i);
			return -1;
		}
		*(int64_t *)p->where = i;
		break;
	}
	case SLUB_P_STRING: {
		const char *str;
		size_t c;

		if (t != BT_VALUE_TYPE_STRING)
			goto type;
		str = bt_value_string_get(v);
		for (c = 0; p->choices && p->choices[c]; c++)
			if (!strcmp(str, p->choices[c]))
				break;
		if (p->choices && !p->choices[c]) {
			param_choices(p, choices, sizeof(choices));
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self,
				"parameter `%s`: %s, not \"%s\"", p->name, choices, str);
			return -1;
		}
		*(const char **)p->where = str;
		break;
	}
	case SLUB_P_ANY:
		*(const bt_value **)p->where = v;
		break;
	}
	p->set = true;
	return 0;
type:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self, "parameter `%s`: expected %s",
							    p->name, param_expected(p));
	return -1;
}

struct param_scan {
	const struct slub_param *p;
	size_t nr;
	const char *unknown;
};

static bt_value_map_foreach_entry_const_func_status param_known(const char *key,
								 const bt_value *v, void *arg)
{
	struct param_scan *scan = arg;

	(void)v;
	for (size_t i = 0; i < scan->nr; i++)
		if (!strcmp(key, scan->p[i].name))
			return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
	scan->unknown = key;
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_INTERRUPT;
}

int slub_sink_params(bt_self_component *self, const bt_value *params,
		     struct slub_param *p, size_t nr)
{
	struct param_scan scan = { p, nr, NULL };

	if (!params || bt_value_get_type(params) != BT_VALUE_TYPE_MAP)
		return 0;
	bt_value_map_foreach_entry_const(params, param_known, &scan);
	if (scan.unknown) {
		char names[PARAM_TEXT] = "";
		size_t o = 0;

		for (size_t i = 0; i < nr && o < sizeof(names); i++)
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", i ? ", " : "",
					      p[i].name);
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self,
			"unexpected key `%s` (unknown parameter); this component accepts: %s",
			scan.unknown, names);
		return -1;
	}
	for (size_t i = 0; i < nr; i++) {
		const bt_value *v = bt_value_map_borrow_entry_value_const(params, p[i].name);

		if (v && param_one(self, &p[i], v) < 0)
			return -1;
	}
	return 0;
}

const struct slub_param *slub_param_get(const struct slub_param *p, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

bt_component_class_initialize_method_status
slub_sink_init(struct slub_sink *s, bt_self_component_sink *self, void *init_data)
{
	struct slub_plugin_result *r = init_data;
	int fd;

	s->self = bt_self_component_sink_as_self_component(self);
	slub_log_init(&s->log, s->self);
	if (r && (r->magic == SLUB_PLUGIN_RESULT_MAGIC ||
		  r->magic == SLUB_PLUGIN_RESULT_MAGIC_STOP))
		s->result = r;
	s->result_clock = r && r->magic == SLUB_PLUGIN_RESULT_MAGIC;
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	/* Our own buffered stream on standard output: timelines are large. */
	fd = dup(STDOUT_FILENO);
	s->out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!s->out) {
		if (fd >= 0)
			close(fd);
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
			"cannot open standard output");
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	s->outbuf = malloc(OUT_BUFFER);
	if (s->outbuf)
		setvbuf(s->out, s->outbuf, _IOFBF, OUT_BUFFER);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void slub_order_config(const struct slub_order_params *o, struct slub_model_config *cfg)
{
	cfg->reorder_ns = o->reorder_ns;
	cfg->reorder_events = (uint32_t)o->reorder_events;
	cfg->cut_begin_ns = o->window_begin;
	cfg->cut_end_ns = o->window_end;
	cfg->cut_lag_ns = o->window_lag_ns;
}

int slub_sink_model(struct slub_sink *s, const struct slub_model_config *cfg,
		    const struct slub_model_callbacks *cb, struct slub_symbolizer *sym)
{
	s->model = slub_model_new(cfg, cb);
	s->dec = slub_decoder_create(s->self, sym);
	if (!s->model || !s->dec) {
		slub_log(&s->log, BT_LOGGING_LEVEL_ERROR, "out of memory");
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self, "out of memory");
		return -1;
	}
	slub_decoder_set_log(s->dec, &s->log);
	slub_log(&s->log, BT_LOGGING_LEVEL_DEBUG, "model created: reorder window %" PRIu64
		 " ns, %" PRIu64 " events", (uint64_t)cfg->reorder_ns, (uint64_t)cfg->reorder_events);
	return 0;
}

bt_component_class_sink_graph_is_configured_method_status
slub_sink_configured(struct slub_sink *s, bt_self_component_sink *self)
{
	bt_self_component_port_input *port =
		bt_self_component_sink_borrow_input_port_by_index(self, 0);

	if (!bt_port_is_connected(bt_port_input_as_port_const(
		    bt_self_component_port_input_as_port_input(port)))) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
			"the input port is not connected");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	if (bt_message_iterator_create_from_sink_component(self, port, &s->iter) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void fill_result(struct slub_sink *s)
{
	struct slub_model_summary sum;
	enum slub_plugin_unusable why;
	const char *err;

	if (!s->result)
		return;
	slub_model_get_summary(s->model, &sum);
	s->result->events = sum.events;
	s->result->slabs = sum.slabs;
	s->result->violations = sum.violations;
	s->result->gaps = sum.gaps;
	s->result->skipped_rules = sum.skipped_rules;
	if (slub_filter_on(&s->filter)) {
		s->result->events = s->filter.events;
		s->result->violations = s->filter.violations;
	}
	err = slub_decoder_error(s->dec, &why);
	if (why && !s->result->unusable) {
		s->result->unusable = why;
		snprintf(s->result->message, sizeof(s->result->message), "%s", err);
	}
}

/* ---- the cache and procname filters ---- */

int slub_filter_init(struct slub_sink *s)
{
	struct slub_filter *f = &s->filter;

	if (f->cache && !(f->cache = strdup(f->cache)))
		return -1;
	if (f->procname && !(f->procname = strdup(f->procname)))
		return -1;
	return 0;
}

static void filter_fini(struct slub_filter *f)
{
	free((char *)f->cache);
	free((char *)f->procname);
	free(f->procs);
	free(f->ids);
	memset(f, 0, sizeof(*f));
}

static struct slub_filter_proc *filter_proc(struct slub_filter *f, uint32_t vpid, bool add)
{
	for (size_t i = f->nr_procs; i-- > 0;)
		if (f->procs[i].vpid == vpid)
			return &f->procs[i];
	if (!add)
		return NULL;
	if (f->nr_procs == f->cap_procs) {
		size_t cap = f->cap_procs ? f->cap_procs * 2 : 16;
		struct slub_filter_proc *n = realloc(f->procs, cap * sizeof(*n));

		if (!n) {
			f->nomem = true;
			return NULL;
		}
		f->procs = n;
		f->cap_procs = cap;
	}
	f->procs[f->nr_procs] = (struct slub_filter_proc){ .vpid = vpid };
	return &f->procs[f->nr_procs++];
}

/* A name among the first SLUB_FILTER_MET seen, for the refusal. */
static void filter_met(char *names, size_t size, unsigned *nr, const char *name)
{
	for (unsigned i = 0; i < *nr; i++)
		if (!strncmp(names + i * size, name, size - 1))
			return;
	if (*nr < SLUB_FILTER_MET)
		snprintf(names + (*nr)++ * size, size, "%s", name);
}

/*
 * Every decoded event, in arrival order: the processes' names and the
 * caches' names.  A process is named by its main thread (the decoder gives
 * its name with the main thread's events only; the model's queued copies
 * have none); a process whose main thread emits no event (the work done by
 * threads it started) is named by its threads, which are born with the
 * name of the thread that started them.
 */
static void filter_learn(struct slub_filter *f, const struct slub_decoded *d)
{
	const struct slub_model_event *e = &d->event;

	if (f->procname && (e->procname || d->thread_name)) {
		struct slub_filter_proc *p = filter_proc(f, e->vpid, true);
		const char *name = e->procname ? e->procname : d->thread_name;

		/* the main thread's name: set, or changed by an exec */
		if (p && e->procname) {
			p->match = !strcmp(e->procname, f->procname);
			p->main_known = true;
		} else if (p && !p->main_known && !p->match) {
			p->match = !strcmp(d->thread_name, f->procname);
		}
		f->proc_met |= p && p->match;
		filter_met(f->procnames[0], sizeof(f->procnames[0]), &f->nr_procnames, name);
	}
	if (f->cache && e->ev.type == SLUB_EV_CACHE_CREATE && e->ev.info && e->ev.info->name) {
		bool match = !strcmp(e->ev.info->name, f->cache);

		f->cache_met |= match;
		if (f->nr_ids == f->cap_ids) {
			size_t cap = f->cap_ids ? f->cap_ids * 2 : 64;
			struct slub_filter_cache *n = realloc(f->ids, cap * sizeof(*n));

			if (!n) {
				f->nomem = true;
				return;
			}
			f->ids = n;
			f->cap_ids = cap;
		}
		f->ids[f->nr_ids++] = (struct slub_filter_cache){ e->vpid, e->ev.cache_id, match };
		filter_met(f->caches[0], sizeof(f->caches[0]), &f->nr_caches, e->ev.info->name);
	}
}

/* Whether the cache of id cache_id of process vpid is the one asked for
 * (the latest announcement of that id wins). */
static bool filter_cache_id(struct slub_filter *f, uint32_t vpid, uint32_t cache_id)
{
	const struct slub_filter_cache *c = f->last_id < f->nr_ids ? &f->ids[f->last_id] : NULL;

	if (c && c->vpid == vpid && c->cache_id == cache_id)
		return c->match;
	for (size_t i = f->nr_ids; i-- > 0;) {
		if (f->ids[i].vpid == vpid && f->ids[i].cache_id == cache_id) {
			f->last_id = i;
			return f->ids[i].match;
		}
	}
	return false;
}

bool slub_filter_event(struct slub_filter *f, const struct slub_model_event *e)
{
	if (!slub_filter_vpid(f, e->vpid))
		return false;
	if (!f->cache)
		return true;
	if (e->ev.type == SLUB_EV_CACHE_CREATE)
		return e->ev.info && e->ev.info->name && !strcmp(e->ev.info->name, f->cache);
	return filter_cache_id(f, e->vpid, e->ev.cache_id);
}

bool slub_filter_vpid(struct slub_filter *f, uint32_t vpid)
{
	const struct slub_filter_proc *p;

	if (!f->procname)
		return true;
	p = filter_proc(f, vpid, false);
	return p && p->match;
}

bool slub_filter_cache(const struct slub_filter *f, const char *name)
{
	return !f->cache || (name && !strcmp(name, f->cache));
}

void slub_filter_describe(const struct slub_filter *f, char *buf, size_t len)
{
	if (f->cache && f->procname)
		snprintf(buf, len, " (cache %s, processes named %s only)", f->cache, f->procname);
	else if (f->cache)
		snprintf(buf, len, " (cache %s only)", f->cache);
	else if (f->procname)
		snprintf(buf, len, " (processes named %s only)", f->procname);
	else if (len)
		buf[0] = '\0';
}

static void refuse_filter(struct slub_sink *s, const char *what, const char *name,
			  const char *holds, const char *names, size_t stride, unsigned nr)
{
	const char *dir = slub_decoder_trace_dir(s->dec);
	char msg[512];
	size_t o;

	o = (size_t)snprintf(msg, sizeof(msg), "%s: no %s `%s` in the trace; %s: ",
			     dir ? dir : "input", what, name, holds);
	for (unsigned i = 0; i < nr && o < sizeof(msg); i++)
		o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s%s", i ? ", " : "",
				      names + i * stride);
	if (!nr && o < sizeof(msg))
		snprintf(msg + o, sizeof(msg) - o, "none");
	slub_sink_refuse(s, SLUB_UNUSABLE_FILTER, msg);
}

int slub_filter_refuse(struct slub_sink *s, bool check_cache)
{
	struct slub_filter *f = &s->filter;

	if (f->nomem) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
			"out of memory in the cache and procname filter");
		s->refused = true;
		return -1;
	}
	if (check_cache && f->cache && !f->cache_met) {
		refuse_filter(s, "cache", f->cache, "its caches", f->caches[0],
			      sizeof(f->caches[0]), f->nr_caches);
		return -1;
	}
	if (f->procname && !f->proc_met) {
		refuse_filter(s, "process named", f->procname, "the names of its threads",
			      f->procnames[0], sizeof(f->procnames[0]), f->nr_procnames);
		return -1;
	}
	return 0;
}

static int apply(struct slub_sink *s, const struct slub_decoded *d)
{
	if (d->kind == SLUB_DEC_EVENT && slub_filter_on(&s->filter)) {
		filter_learn(&s->filter, d);
		s->filter.events += slub_filter_event(&s->filter, &d->event);
	}
	if (s->decoded && d->kind != SLUB_DEC_NONE && s->decoded(s, d) < 0)
		return -1;
	switch (d->kind) {
	case SLUB_DEC_EVENT:
		if (s->stack) {
			uint64_t id = d->event.stream_id;

			if (id >= s->nr_last) {
				size_t n = (size_t)id * 2 + 16;
				struct slub_sink_last *l = realloc(s->last, n * sizeof(*l));

				if (!l)
					goto nomem;
				memset(l + s->nr_last, 0, (n - s->nr_last) * sizeof(*l));
				s->last = l;
				s->nr_last = n;
			}
			s->last[id].ts = d->event.ts;
			s->last[id].vtid = d->event.vtid;
			s->last[id].type = d->event.ev.type;
		}
		if (slub_model_event(s->model, &d->event) < 0) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
				"out of memory in the slab model");
			return -1;
		}
		break;
	case SLUB_DEC_STACK:
		slub_model_stack(s->model, d->stack_vpid, d->stack_vtid, d->stack_of,
				 d->stack_slab, d->stack_ips, d->stack_nr);
		if (s->stack) {
			const struct slub_sink_last *l = d->stack_stream_id < s->nr_last ?
				&s->last[d->stack_stream_id] : NULL;

			s->stack(s, d, l && l->vtid == d->stack_vtid && l->type == d->stack_of ?
				 l->ts : 0);
		}
		break;
	case SLUB_DEC_DISCARD:
		slub_model_discarded(s->model, &d->discard);
		break;
	case SLUB_DEC_REGISTER:
		slub_model_registered(s->model, d->reg_vpid, d->reg_ts);
		break;
	default:
		break;
	}
	return 0;
nomem:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self, "out of memory");
	return -1;
}

static bt_component_class_sink_consume_method_status finish(struct slub_sink *s)
{
	/* Slub streams without a slub event (a trimmer's window that holds
	 * none, a program that allocated nothing): a verdict on zero events,
	 * which the in-process caller may still call unusable.  Without any
	 * slub event class the input is another provider's: an error. */
	s->empty = !slub_decoder_events(s->dec) && slub_decoder_saw_slub_classes(s->dec);
	if (s->empty) {
		const char *dir = slub_decoder_trace_dir(s->dec);

		slub_log(&s->log, BT_LOGGING_LEVEL_WARNING,
			 "%s: slub streams, but no slub event in the input: a verdict on zero events",
			 dir ? dir : "input");
		if (s->result && !s->result->unusable) {
			s->result->unusable = SLUB_UNUSABLE_NO_EVENTS;
			snprintf(s->result->message, sizeof(s->result->message),
				 "%s: no slub event in the trace or the window (its streams hold "
				 "slub events elsewhere, or none was emitted)", dir ? dir : "input");
		}
	} else if (!slub_decoder_events(s->dec)) {
		const char *dir = slub_decoder_trace_dir(s->dec);
		char msg[512];

		snprintf(msg, sizeof(msg),
			 "%s: no slub event in the trace (another provider only, or slub:* "
			 "was not enabled)", dir ? dir : "input");
		if (s->result && !s->result->unusable) {
			s->result->unusable = SLUB_UNUSABLE_NO_EVENTS;
			snprintf(s->result->message, sizeof(s->result->message), "%s", msg);
		}
		slub_log(&s->log, BT_LOGGING_LEVEL_ERROR, "%s", msg);
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self, "%s", msg);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	slub_log(&s->log, BT_LOGGING_LEVEL_INFO, "end of input: %" PRIu64 " slub events",
		 slub_decoder_events(s->dec));
	slub_model_finish(s->model);
	s->finished = true;
	if (s->end)
		s->end(s);
	fflush(s->out);
	fill_result(s);
	return s->refused ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR :
		BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
}

/* The default clock snapshot of an event or a packet's beginning or end,
 * when its stream class has a default clock. */
static const bt_clock_snapshot *message_clock(const bt_message *m)
{
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_EVENT:
		if (!bt_message_event_borrow_stream_class_default_clock_class_const(m))
			return NULL;
		return bt_message_event_borrow_default_clock_snapshot_const(m);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		if (!bt_message_packet_beginning_borrow_stream_class_default_clock_class_const(m) ||
		    !bt_stream_class_packets_have_beginning_default_clock_snapshot(
			    bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
				    bt_message_packet_beginning_borrow_packet_const(m)))))
			return NULL;
		return bt_message_packet_beginning_borrow_default_clock_snapshot_const(m);
	case BT_MESSAGE_TYPE_PACKET_END:
		if (!bt_message_packet_end_borrow_stream_class_default_clock_class_const(m) ||
		    !bt_stream_class_packets_have_end_default_clock_snapshot(
			    bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
				    bt_message_packet_end_borrow_packet_const(m)))))
			return NULL;
		return bt_message_packet_end_borrow_default_clock_snapshot_const(m);
	default:
		return NULL;
	}
}

/* The caller's last_ns: the batch's latest message with a clock (the
 * muxer gives them in time order), looked up from the batch's end. */
static void note_last_ns(struct slub_sink *s, bt_message_array_const msgs, uint64_t count)
{
	for (uint64_t i = count; i-- > 0;) {
		const bt_clock_snapshot *cs = message_clock(msgs[i]);
		int64_t ns;

		if (!cs)
			continue;
		if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) ==
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK && ns >= 0)
			s->result->last_ns = (uint64_t)ns;
		return;
	}
}

bt_component_class_sink_consume_method_status slub_sink_consume(struct slub_sink *s)
{
	bt_message_array_const msgs;
	uint64_t count = 0;
	int failed = 0;

	/* Interrupted (^C in slubtrace): the results of what was read. */
	if (s->result && s->result->stop) {
		slub_log(&s->log, BT_LOGGING_LEVEL_WARNING,
			 "interrupted: ending on the %" PRIu64 " messages read", s->result->messages);
		s->result->stop = 2;
		bt_message_iterator_put_ref(s->iter);
		s->iter = NULL;
		return finish(s);
	}
	switch (bt_message_iterator_next(s->iter, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		bt_message_iterator_put_ref(s->iter);
		s->iter = NULL;
		return finish(s);
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		/* A live source has nothing more for now: what was found so
		 * far is shown now, not when the buffer fills. */
		fflush(s->out);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		fflush(s->out);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	if (s->result_clock)
		note_last_ns(s, msgs, count);
	for (uint64_t i = 0; i < count; i++) {
		if (!failed && s->tick &&
		    bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY) {
			int64_t ns;

			if (bt_clock_snapshot_get_ns_from_origin(
				    bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(
					    msgs[i]), &ns) ==
			    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK && ns >= 0)
				s->tick(s, (uint64_t)ns);
		}
		if (!failed && (slub_decoder_message(s->dec, msgs[i], &s->scratch) < 0 ||
				apply(s, &s->scratch) < 0))
			failed = 1;
		bt_message_put_ref(msgs[i]);
	}
	if (s->result)
		s->result->messages += count;
	if (failed) {
		fflush(s->out);
		fill_result(s);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

void slub_sink_refuse(struct slub_sink *s, enum slub_plugin_unusable why, const char *msg)
{
	s->refused = true;
	slub_log(&s->log, BT_LOGGING_LEVEL_ERROR, "%s", msg);
	if (s->result && !s->result->unusable) {
		s->result->unusable = why;
		snprintf(s->result->message, sizeof(s->result->message), "%s", msg);
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self, "%s", msg);
}

/* A trace of the sheaves generation is judged by its own table from wire
 * format 7 on; one of format 6 lacks the sheaf and barn events that say
 * where its objects are, and is refused: returns -1 when d announces such
 * a cache. */
int slub_sink_refuse_generation(struct slub_sink *s, const struct slub_decoded *d)
{
	char msg[512];

	if (d->kind != SLUB_DEC_EVENT || d->event.ev.type != SLUB_EV_CACHE_CREATE ||
	    !(d->info.flags & SLUB_F_SHEAVES) || d->format >= SLUB_FORMAT_SHEAF_EVENTS)
		return 0;
	const char *file = slub_decoder_stream_name(s->dec, d->event.stream_id);

	snprintf(msg, sizeof(msg),
		 "%s: generation sheaves (cache %s) in wire format %u, without the sheaf and "
		 "barn events the checker needs (format %d): record it again",
		 file ? file : "input", d->info.name ? d->info.name : "?", d->format,
		 SLUB_FORMAT_SHEAF_EVENTS);
	slub_sink_refuse(s, SLUB_UNUSABLE_GENERATION, msg);
	return -1;
}

void slub_sink_fini(struct slub_sink *s)
{
	bt_message_iterator_put_ref(s->iter);
	s->iter = NULL;
	if (s->out) {
		fflush(s->out);
		fclose(s->out);
	}
	free(s->outbuf);
	free(s->last);
	slub_model_free(s->model);
	slub_decoder_destroy(s->dec);
	filter_fini(&s->filter);
}
