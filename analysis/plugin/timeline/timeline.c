/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.timeline
 *
 * Parameters (all optional; every given filter must match):
 *   slab     slab address ("0x7f..." or an integer)
 *   cache    cache name
 *   tid      acting thread (vtid)
 *   procname the processes of this name (their main thread's LTTng
 *            procname, or its threads': sink.h)
 *   begin, end  time range, ns from the clock's origin (integers), or
 *            "SECONDS[.FRACTION]" strings
 *   format   "text" (default), "json" (one JSON object per line) or
 *            "chrome" (Trace Event Format for Perfetto UI, chrome.h);
 *            with chrome the thread filter selects the thread tracks and
 *            counters, the slab tracks keep every transition of the slabs
 *            the other filters select (a state slice needs all of them)
 *   json     the same as format="json"
 *   reorder-ns, reorder-events  the model's reorder window
 *
 * The model sees every event whatever the filters: a slab's state before a
 * transition depends on its whole history.  slabinfo_walk, which is no
 * transition, is printed as it is decoded (text and JSON).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "chrome.h"
#include "../format.h"
#include "../sink.h"

struct timeline {
	struct slub_sink sink;
	bool json;
	const char *format;
	struct slub_chrome *chrome;
	bool by_slab, by_tid;
	uint64_t slab;
	int64_t tid;
	const char *cache;
	char *cache_copy;
	uint64_t begin, end;
	uint64_t lines;
	/* With a cache filter: whether a slab of that cache was met, and the
	 * names met (said when it was not). */
	bool cache_met;
	const char *names[32];
	unsigned int nr_names;
	/* the caches' names, for slabinfo_walk lines (text and JSON) */
	struct walk_cache {
		uint32_t vpid, cache_id;
		char name[48];
	} *walk_caches;
	unsigned int nr_walk_caches, cap_walk_caches;
};

static void met_cache(struct timeline *tl, const char *name)
{
	if (!name || tl->cache_met)
		return;
	if (!strcmp(name, tl->cache)) {
		tl->cache_met = true;
		return;
	}
	for (unsigned int i = 0; i < tl->nr_names; i++)
		if (!strcmp(tl->names[i], name))
			return;
	if (tl->nr_names < sizeof(tl->names) / sizeof(tl->names[0]))
		tl->names[tl->nr_names++] = name;
}

static void on_transition(const struct slub_model_transition *t, void *arg)
{
	struct timeline *tl = arg;
	const struct slub_model_record *r = t->rec;

	if (tl->cache)
		met_cache(tl, t->cache_name);
	if (tl->by_slab && r->slab != tl->slab)
		return;
	if (!slub_filter_vpid(&tl->sink.filter, r->vpid))
		return;
	if (tl->chrome && r->ts >= tl->begin && r->ts <= tl->end &&
	    (!tl->cache || (t->cache_name && !strcmp(t->cache_name, tl->cache)))) {
		bool thread = !tl->by_tid || r->vtid == (uint64_t)tl->tid;

		if (slub_chrome_transition(tl->chrome, r, t->cache_name, thread) == 0 && thread)
			tl->lines++;
		return;
	}
	if (tl->by_tid && r->vtid != (uint64_t)tl->tid)
		return;
	if (r->ts < tl->begin || r->ts > tl->end)
		return;
	if (tl->cache && (!t->cache_name || strcmp(t->cache_name, tl->cache)))
		return;
	if (tl->chrome)
		return;
	if (tl->json)
		slub_fmt_record_json(tl->sink.out, r, t->cache_name);
	else
		slub_fmt_record_text(tl->sink.out, r, t->cache_name);
	tl->lines++;
}

/* Chrome format: the counter tracks, under the same filters (a slab
 * filter keeps the failures on that slab and no lock waits). */
static int timeline_decoded(struct slub_sink *s, const struct slub_decoded *d)
{
	struct timeline *tl = (struct timeline *)s;
	const struct slub_model_event *e = &d->event;

	if (d->kind != SLUB_DEC_EVENT)
		return 0;
	if (e->ev.type != SLUB_EV_CACHE_CREATE) {
		if (!slub_filter_vpid(&s->filter, e->vpid))
			return 0;
		if (tl->by_slab && (e->ev.type == SLUB_EV_LOCK_ACQUIRE || e->ev.slab != tl->slab))
			return 0;
		if ((tl->by_tid && e->vtid != (uint64_t)tl->tid) || e->ts < tl->begin ||
		    e->ts > tl->end)
			return 0;
		if (tl->cache) {
			const char *name = slub_chrome_cache(tl->chrome, e->vpid, e->ev.cache_id);

			if (!name || strcmp(name, tl->cache))
				return 0;
		}
	}
	if (slub_chrome_event(tl->chrome, e) < 0) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self, "out of memory");
		return -1;
	}
	return 0;
}

static const char *walk_cache(const struct timeline *tl, uint32_t vpid, uint32_t cache_id)
{
	for (unsigned int i = tl->nr_walk_caches; i-- > 0;)
		if (tl->walk_caches[i].vpid == vpid && tl->walk_caches[i].cache_id == cache_id)
			return tl->walk_caches[i].name;
	return NULL;
}

/*
 * Text and JSON: slabinfo_walk is what a reader's list_lock hold did, not a
 * slab transition, so the model has no record of it: it is printed as it
 * comes, under the same filters (a slab filter leaves it out: it names no
 * slab).
 */
static int timeline_walk(struct slub_sink *s, const struct slub_decoded *d)
{
	struct timeline *tl = (struct timeline *)s;
	const struct slub_model_event *e = &d->event;
	const char *name;

	if (d->kind != SLUB_DEC_EVENT)
		return 0;
	if (e->ev.type == SLUB_EV_CACHE_CREATE && e->ev.info && e->ev.info->name) {
		if (tl->nr_walk_caches == tl->cap_walk_caches) {
			unsigned int cap = tl->cap_walk_caches ? tl->cap_walk_caches * 2 : 32;
			struct walk_cache *n = realloc(tl->walk_caches, cap * sizeof(*n));

			if (!n) {
				BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self,
										    "out of memory");
				return -1;
			}
			tl->walk_caches = n;
			tl->cap_walk_caches = cap;
		}
		struct walk_cache *c = &tl->walk_caches[tl->nr_walk_caches++];
		c->vpid = e->vpid;
		c->cache_id = e->ev.cache_id;
		snprintf(c->name, sizeof(c->name), "%s", e->ev.info->name);
		return 0;
	}
	if (e->ev.type != SLUB_EV_SLABINFO_WALK || tl->by_slab ||
	    !slub_filter_vpid(&s->filter, e->vpid) ||
	    (tl->by_tid && e->vtid != (uint64_t)tl->tid) || e->ts < tl->begin || e->ts > tl->end)
		return 0;
	name = walk_cache(tl, e->vpid, e->ev.cache_id);
	if (tl->cache && (!name || strcmp(name, tl->cache)))
		return 0;
	if (tl->json)
		slub_fmt_walk_json(s->out, e, name);
	else
		slub_fmt_walk_text(s->out, e, name);
	tl->lines++;
	return 0;
}

static void timeline_end(struct slub_sink *s)
{
	struct timeline *tl = (struct timeline *)s;

	if (tl->chrome)
		slub_chrome_end(tl->chrome);

	if (s->result)
		s->result->transitions = tl->lines;
	if (slub_filter_refuse(s, false) < 0)
		return;
	if (tl->cache && !tl->cache_met) {
		char msg[512];
		size_t o;

		o = (size_t)snprintf(msg, sizeof(msg), "%s: no slab of cache `%s` in the trace; "
				     "its caches with slabs: ",
				     slub_decoder_trace_dir(s->dec) ? slub_decoder_trace_dir(s->dec) :
				     "input", tl->cache);
		for (unsigned int i = 0; i < tl->nr_names && o < sizeof(msg); i++)
			o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s%s", i ? ", " : "",
					      tl->names[i]);
		if (!tl->nr_names && o < sizeof(msg))
			snprintf(msg + o, sizeof(msg) - o, "none");
		slub_sink_refuse(s, SLUB_UNUSABLE_FILTER, msg);
	}
}

/* "SECONDS[.FRACTION]" -> ns; -1 when malformed. */
static int parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	uint64_t sec, frac = 0;
	int digits = 0;

	errno = 0;
	sec = strtoull(s, &end, 10);
	if (errno || end == s || sec > UINT64_MAX / 1000000000ull)
		return -1;
	if (*end == '.') {
		for (end++; *end >= '0' && *end <= '9'; end++, digits++)
			if (digits < 9)
				frac = frac * 10 + (uint64_t)(*end - '0');
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (*end)
		return -1;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/* v: the parameter's value, NULL when not given */
static int time_param(struct timeline *tl, const bt_value *v, const char *name, uint64_t *out)
{
	if (!v)
		return 0;
	switch (bt_value_get_type(v)) {
	case BT_VALUE_TYPE_UNSIGNED_INTEGER:
		*out = bt_value_integer_unsigned_get(v);
		return 0;
	case BT_VALUE_TYPE_SIGNED_INTEGER:
		if (bt_value_integer_signed_get(v) < 0)
			break;
		*out = (uint64_t)bt_value_integer_signed_get(v);
		return 0;
	case BT_VALUE_TYPE_STRING:
		if (parse_seconds(bt_value_string_get(v), out) == 0)
			return 0;
		break;
	default:
		break;
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(tl->sink.self,
		"parameter `%s`: expected ns from the origin, or \"SECONDS[.FRACTION]\"", name);
	return -1;
}

static int slab_param(struct timeline *tl, const bt_value *v)
{
	char *end;

	if (!v)
		return 0;
	tl->by_slab = true;
	if (bt_value_get_type(v) == BT_VALUE_TYPE_UNSIGNED_INTEGER) {
		tl->slab = bt_value_integer_unsigned_get(v);
		return 0;
	}
	if (bt_value_get_type(v) == BT_VALUE_TYPE_STRING) {
		errno = 0;
		tl->slab = strtoull(bt_value_string_get(v), &end, 0);
		if (!errno && end != bt_value_string_get(v) && !*end)
			return 0;
	}
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(tl->sink.self,
		"parameter `slab`: expected an address such as \"0x7f3a2c000000\"");
	return -1;
}

static void timeline_destroy(struct timeline *tl)
{
	slub_sink_fini(&tl->sink);
	slub_chrome_free(tl->chrome);
	free(tl->cache_copy);
	free(tl->walk_caches);
	free(tl);
}

bt_component_class_initialize_method_status
slub_timeline_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		   const bt_value *params, void *init_data)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	bt_component_class_initialize_method_status st;
	struct slub_order_params order = { 0 };
	const bt_value *slab = NULL, *begin = NULL, *end = NULL;
	static const char *const formats[] = { "text", "json", "chrome", NULL };
	struct slub_model_config cfg = { 0 };
	struct slub_model_callbacks cb = { 0 };

	if (!tl)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;

	struct slub_param p[] = {
		{ .name = "json", .type = SLUB_P_BOOL, .where = &tl->json },
		{ .name = "cache", .type = SLUB_P_STRING, .where = &tl->cache },
		{ .name = "tid", .type = SLUB_P_INT, .where = &tl->tid },
		{ .name = "procname", .type = SLUB_P_STRING, .where = &tl->sink.filter.procname },
		SLUB_REORDER_PARAMS(&order),
		{ .name = "format", .type = SLUB_P_STRING, .where = &tl->format,
		  .choices = formats },
		/* several types each: checked by slab_param() and time_param() */
		{ .name = "slab", .type = SLUB_P_ANY, .where = &slab },
		{ .name = "begin", .type = SLUB_P_ANY, .where = &begin },
		{ .name = "end", .type = SLUB_P_ANY, .where = &end },
	};

	tl->end = UINT64_MAX;
	st = slub_sink_init(&tl->sink, self, init_data);
	if (st != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK)
		goto fail;
	st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (slub_sink_params(tl->sink.self, params, p, SLUB_PARAM_NR(p)) < 0)
		goto fail;
	if (slub_filter_init(&tl->sink) < 0) {
		st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto fail;
	}
	if (tl->cache) {
		/* params outlive initialization only by reference */
		tl->cache_copy = strdup(tl->cache);
		if (!tl->cache_copy) {
			st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
			goto fail;
		}
		tl->cache = tl->cache_copy;
	}
	if (tl->format) {
		if (!strcmp(tl->format, "json")) {
			tl->json = true;
		} else if (!strcmp(tl->format, "chrome")) {
			tl->chrome = slub_chrome_new(tl->sink.out);
			if (!tl->chrome)
				goto fail;
		}
		tl->format = NULL; /* the parameters' */
	}
	tl->by_tid = slub_param_get(p, SLUB_PARAM_NR(p), "tid")->set;
	if (slab_param(tl, slab) < 0 || time_param(tl, begin, "begin", &tl->begin) < 0 ||
	    time_param(tl, end, "end", &tl->end) < 0)
		goto fail;
	if (tl->begin > tl->end) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(tl->sink.self,
			"parameters `begin` and `end`: begin is after end (nothing would be printed)");
		goto fail;
	}
	slub_order_config(&order, &cfg);
	cb.transition = on_transition;
	cb.arg = tl;
	tl->sink.end = timeline_end;
	tl->sink.decoded = tl->chrome ? timeline_decoded : timeline_walk;
	if (slub_sink_model(&tl->sink, &cfg, &cb, NULL) < 0) {
		st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto fail;
	}
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), tl);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
fail:
	/* A component whose initialization failed is never finalized. */
	timeline_destroy(tl);
	return st;
}

bt_component_class_sink_graph_is_configured_method_status
slub_timeline_graph_is_configured(bt_self_component_sink *self)
{
	struct timeline *tl = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	return slub_sink_configured(&tl->sink, self);
}

bt_component_class_sink_consume_method_status slub_timeline_consume(bt_self_component_sink *self)
{
	struct timeline *tl = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	return slub_sink_consume(&tl->sink);
}

void slub_timeline_finalize(bt_self_component_sink *self)
{
	struct timeline *tl = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	if (tl)
		timeline_destroy(tl);
}
