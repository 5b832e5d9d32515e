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

/*
 * What a sink reports limited to one cache and/or the processes of one
 * name (parameters `cache` and `procname`), while its model is fed every
 * event: a slab's state, a list_lock's holder and a seq chain span caches
 * and processes, and a model fed a part would find violations that are
 * not.  A process's name comes with its main thread's events (LTTng's
 * procname context of the thread whose vtid is the vpid); the sink learns
 * it, and the caches' names, from every decoded event.
 */
#define SLUB_FILTER_MET 16
struct slub_filter {
	const char *cache, *procname;	/* NULL: not filtered (own copies) */
	struct slub_filter_proc {
		uint32_t vpid;
		bool match;
		bool main_known;	/* match is the main thread's name */
	} *procs;
	size_t nr_procs, cap_procs;
	/* the caches of each process, by the id its events carry */
	struct slub_filter_cache {
		uint32_t vpid, cache_id;
		bool match;
	} *ids;
	size_t nr_ids, cap_ids, last_id;
	bool cache_met, proc_met, nomem;
	/* what passed: events decoded, violations (counted by the sink) */
	uint64_t events, violations;
	/* the names seen, said when the one asked for is not in the input */
	char caches[SLUB_FILTER_MET][48], procnames[SLUB_FILTER_MET][16];
	unsigned nr_caches, nr_procnames;
};

struct slub_sink {
	bt_self_component *self;
	bt_message_iterator *iter;
	struct slub_decoder *dec;
	struct slub_model *model;
	struct slub_decoded scratch;
	struct slub_plugin_result *result;	/* the caller's, or NULL */
	bool result_clock;			/* it has last_ns */
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
	struct slub_filter filter;	/* set by the sink from its parameters */
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

/*
 * After slub_sink_params() stored `cache` and `procname` in s->filter:
 * copies them (the parameters are only borrowed).  0, or -1 without memory.
 */
int slub_filter_init(struct slub_sink *s);
/* Whether events of process vpid (as the model numbers it) are reported:
 * always without a procname filter. */
bool slub_filter_vpid(struct slub_filter *f, uint32_t vpid);
/* Whether a decoded event is reported (its process and cache pass). */
bool slub_filter_event(struct slub_filter *f, const struct slub_model_event *e);
static inline bool slub_filter_on(const struct slub_filter *f)
{
	return f->cache || f->procname;
}
/* Whether what belongs to the cache named name (NULL: never announced) is
 * reported: always without a cache filter. */
bool slub_filter_cache(const struct slub_filter *f, const char *name);
/* " (cache NAME only)", " (processes named NAME only)", both, or "". */
void slub_filter_describe(const struct slub_filter *f, char *buf, size_t len);
/*
 * At the end of the input (from end()): a filter that named what the input
 * does not hold refuses it (SLUB_UNUSABLE_FILTER), saying the names it
 * holds.  With check_cache false only the procname is checked (timeline
 * says of its cache filter the slabs it met).  0, or -1 when refused.
 */
int slub_filter_refuse(struct slub_sink *s, bool check_cache);

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
