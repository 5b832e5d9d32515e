/* SPDX-License-Identifier: MIT */
/*
 * What sink.slub.check and sink.slub.timeline share: one input port, a
 * message iterator, the decoder feeding a model, the result handed back to
 * an in-process caller, and parameter parsing.
 */
#ifndef SLUB_PLUGIN_SINK_H
#define SLUB_PLUGIN_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <babeltrace2/babeltrace.h>

#include "decode.h"
#include "log.h"
#include "model/slub_model.h"
#include "slub-plugin.h"

struct slub_sink {
	bt_self_component *self;
	bt_message_iterator *iter;
	struct slub_decoder *dec;
	struct slub_model *model;
	struct slub_decoded scratch;
	struct slub_plugin_result *result;	/* the caller's, or NULL */
	FILE *out;
	char *outbuf;
	bool finished;
	bool refused;		/* by end(): slub_sink_refuse() */
	bool empty;		/* the input had slub streams but no slub event */
	struct slub_log log;	/* the component's logging level and names */
	/* Called once at the end of the input, after slub_model_finish(). */
	void (*end)(struct slub_sink *s);
	/* Called with every decoded message the model is given (may be NULL):
	 * 0, or -1 after appending an error cause. */
	int (*decoded)(struct slub_sink *s, const struct slub_decoded *d);
	/* Called for each slub:stack with the time of the event it follows
	 * (0 when that event is not the last of its stream); may be NULL. */
	void (*stack)(struct slub_sink *s, const struct slub_decoded *d, uint64_t event_ts);
	/* Called when the source says no message older than ts will come (a
	 * live source's inactivity beacon, ts in ns from the clock's
	 * origin); may be NULL. */
	void (*tick)(struct slub_sink *s, uint64_t ts);
	/* The last slub event of each stream: a stack follows its event. */
	struct slub_sink_last {
		uint64_t ts;
		uint32_t vtid, type;
	} *last;
	size_t nr_last;
};

/*
 * Parameters, declared once per component: name, type, where the value
 * goes, and what is accepted (a range for integers, a list of values for
 * strings).  slub_sink_params() checks every entry against the table and
 * refuses a key the table does not have by name ("unexpected key
 * `histroy`"): a typo must not pass silently.  The model's sinks (check,
 * timeline, report) take SLUB_REORDER_PARAMS; check and report take
 * SLUB_HISTORY_PARAM too.
 */
struct slub_param {
	const char *name;
	enum { SLUB_P_BOOL, SLUB_P_UINT, SLUB_P_INT, SLUB_P_STRING, SLUB_P_ANY } type;
	/* bool *, uint64_t *, int64_t *, const char ** (the string belongs to
	 * the parameters), const bt_value ** (SLUB_P_ANY: any type, checked
	 * by the component) */
	void *where;
	/* SLUB_P_UINT: accepted from min to max (max 0: no upper bound);
	 * SLUB_P_INT: from imin to imax when imin < imax */
	uint64_t min, max;
	int64_t imin, imax;
	/* SLUB_P_STRING: the accepted values, NULL-terminated; NULL: any */
	const char *const *choices;
	bool set;		/* out: the parameter was given */
};

#define SLUB_PARAM_NR(p) (sizeof(p) / sizeof((p)[0]))
/* Events of a slab kept for a violation report: at most this many. */
#define SLUB_PARAM_MAX_HISTORY 1024
/*
 * The model's ordering: its reorder window, and the window a cut input was
 * read in (a flight-recorder snapshot's, given by slubtrace; see
 * slub_model_config.cut_*).  slub_order_config() puts them in a config.
 */
struct slub_order_params {
	uint64_t reorder_ns, reorder_events;
	uint64_t window_begin, window_end, window_lag_ns;
};
#define SLUB_REORDER_PARAMS(o)                                                            \
	{ .name = "reorder-ns", .type = SLUB_P_UINT, .where = &(o)->reorder_ns },        \
	{ .name = "reorder-events", .type = SLUB_P_UINT, .where = &(o)->reorder_events,  \
	  .max = UINT32_MAX },                                                            \
	{ .name = "window-begin", .type = SLUB_P_UINT, .where = &(o)->window_begin },    \
	{ .name = "window-end", .type = SLUB_P_UINT, .where = &(o)->window_end },        \
	{ .name = "window-lag-ns", .type = SLUB_P_UINT, .where = &(o)->window_lag_ns }
void slub_order_config(const struct slub_order_params *o, struct slub_model_config *cfg);
#define SLUB_HISTORY_PARAM(h)                                                             \
	{ .name = "history", .type = SLUB_P_UINT, .where = (h), .max = SLUB_PARAM_MAX_HISTORY }

/* 0, or -1 after appending an error cause that names the parameter. */
int slub_sink_params(bt_self_component *self, const bt_value *params,
		     struct slub_param *p, size_t nr);
/* The parameter of p named name (it must be in the table). */
const struct slub_param *slub_param_get(const struct slub_param *p, size_t nr, const char *name);

bt_component_class_initialize_method_status
slub_sink_init(struct slub_sink *s, bt_self_component_sink *self, void *init_data);
bt_component_class_sink_graph_is_configured_method_status
slub_sink_configured(struct slub_sink *s, bt_self_component_sink *self);
bt_component_class_sink_consume_method_status slub_sink_consume(struct slub_sink *s);
/* Creates the model and the decoder once the component knows its
 * configuration; sym may be NULL (stacks are not printed). */
int slub_sink_model(struct slub_sink *s, const struct slub_model_config *cfg,
		    const struct slub_model_callbacks *cb, struct slub_symbolizer *sym);
void slub_sink_fini(struct slub_sink *s);
/* From end(): the input cannot give what was asked (msg says why); the
 * graph ends with an error. */
void slub_sink_refuse(struct slub_sink *s, enum slub_plugin_unusable why, const char *msg);
/* For the sinks that judge by the model: a trace of the sheaves generation
 * recorded before wire format 7 (without the sheaf and barn events) is
 * refused (returns -1 when d announces one of its caches); from format 7
 * on it is judged by the sheaves generation's table. */
int slub_sink_refuse_generation(struct slub_sink *s, const struct slub_decoded *d);

#endif /* SLUB_PLUGIN_SINK_H */
