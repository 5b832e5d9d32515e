/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.report: the data of `slubtrace report`, in two passes over the
 * same trace, each writing JSON that the page embeds.
 *
 *   pass=scan   the model's verdict and violations (with the slab's last
 *               events), the trace statistics (analysis/stats, JSON at
 *               stats-path), cmpxchg failures per interval per site, and
 *               the slabs worth drawing: those with a violation, the top-N
 *               by transitions, failures and time on each list, and the
 *               slabs of the largest storms.  One line per slab in
 *               slabs-path: "vpid slab begin end why".  Also the trace's
 *               generation, its slabs and pages made and discarded, and
 *               for the sheaves generation the sheaf and barn lanes
 *               (sheaves.c).
 *   pass=lanes  for each slab of slabs-path, its swimlane in its time
 *               window: state bands, one mark per transition, the failed
 *               CAS, and the violating events.
 *
 * Nothing here grows with the trace: live slabs and threads are kept (as
 * the model does), closed slabs only as top-N candidates, and every lane
 * is capped (marks are thinned by halving, bands merged by pairs).
 *
 * Parameters: pass, data-path, slabs-path, stats-path (scan), top=N
 * (rows per top-N table, default 5), max-violations=N (shown in detail,
 * default 20), history=N (events shown before a violation, default 8),
 * cache and procname (scan: sink.h's filter; the violations, statistics,
 * series and top slabs of that cache or those processes, the verdict
 * counting their events and violations and naming the filter; the model
 * still reads every event).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sheaves.h"
#include "../keymap.h"
#include "../sink.h"
#include "slub_tstats.h"
#include "slub_json.h"

#define MAX_TOP 20
#define MAX_LANES 64
#define VIOLATION_LANES 8
#define STORM_LANES 4
#define SERIES_BINS 240
#define LANE_MARKS 600		/* transitions drawn per lane */
#define LANE_BANDS 1200		/* state bands per lane */
#define LANE_FAILS 400		/* failed CAS per lane */
#define LANE_SPECIAL 32		/* violating events per lane */
#define SHEAF_CPU_LANES 32	/* sheaf lanes drawn (the busiest slots) */
#define SHEAF_BARN_LANES 16	/* barn lanes drawn (the busiest barns) */

/* The top-N tables, each a figure of a closed slab incarnation. */
enum metric {
	M_TRANSITIONS = 0,
	M_FAILURES,
	M_TIME_CPU_PARTIAL,
	M_TIME_NODE_PARTIAL,
	M_TIME_FULL,
	M_NR
};

static const char *const metric_name[M_NR] = {
	"transitions", "failures", "time_cpu_partial", "time_node_partial", "time_full",
};

/* One slab incarnation as the scan pass follows it. */
struct slab {
	uint64_t slab, t0, last, since;
	uint64_t time[SLUB_STATE_NR];
	const char *cache;	/* the model's string, valid until the model goes */
	uint32_t vpid;
	uint32_t transitions, failures;
	uint8_t state;
	uint8_t violated;
	int32_t next_free;
};

/* A slab incarnation worth a lane. */
struct lane_meta {
	uint64_t slab, t0, t1;
	uint64_t time[SLUB_STATE_NR];
	uint32_t vpid;
	uint32_t transitions, failures;
	char cache[48];
	unsigned why;		/* bit 0: violation, bit 1+m: top by metric m, bit 8: storm */
	int storm;		/* index in the stats storms, -1 */
};

struct violation {
	const char *rule_id, *meaning, *kernel_fn;
	char detail[256];
	char cache[48];
	uint64_t ts, slab;
	uint32_t vpid, vtid, other_vtid;
	struct slub_model_record event;
	struct slub_model_record *history;
	uint32_t nr_history;
};

/* Lane contents (pass lanes).  Marks are thinned by keeping every stride-th. */
struct mark {
	uint64_t ts;
	uint32_t vtid, type, site, inuse, objects, seq;
	int32_t cpu, owner;
	uint8_t before, after;
	const char *rule;	/* violating events */
};

struct band {
	uint64_t start, end;
	uint8_t state;
};

struct fail {
	uint64_t ts;
	uint32_t vtid, site, attempt, type;
};

struct lane {
	struct lane_meta m;
	int next_same;		/* next lane of the same slab, -1 */
	struct mark *marks;
	uint32_t nr_marks, mark_stride, mark_seen;
	struct band *bands;
	uint32_t nr_bands;
	uint64_t band_cap_merges;
	int cur_state;		/* -1 before the first transition */
	struct fail *fails;
	uint32_t nr_fails, fail_stride, fail_seen;
	struct mark special[LANE_SPECIAL];
	uint32_t nr_special;
};

struct report {
	struct slub_sink sink;
	bool lanes_pass;
	const char *data_path, *slabs_path, *stats_path;
	uint64_t top_n, max_violations, history;
	int failed;

	/* both passes */
	uint64_t first_ts, last_ts;

	/* scan */
	struct slub_tstats *ts;
	struct keymap live;
	struct slab *slabs;
	uint32_t nr_slabs, cap_slabs;
	int32_t free_slab;
	struct keymap threads;
	uint64_t nr_threads, nr_processes;
	struct lane_meta top[M_NR][MAX_TOP];
	uint32_t nr_top[M_NR];
	struct lane_meta vlanes[VIOLATION_LANES];
	uint32_t nr_vlanes, nr_violated;
	struct violation *violations;
	uint32_t nr_violations;
	uint64_t by_rule[32];		/* the filter's violations per rule */
	uint64_t series_start, series_bin;
	uint64_t series[SLUB_SITE_NR][SERIES_BINS];
	uint64_t series_cpu[SERIES_BINS];
	uint64_t series_wait_ns[SERIES_BINS], series_waits[SERIES_BINS];
	uint32_t series_bins;
	struct sheaf_lanes *sheaves;	/* the sheaves generation's sheaf and barn lanes */

	/* lanes */
	struct keymap lane_of;
	struct lane lanes[MAX_LANES];
	uint32_t nr_lanes;
};

/* ---- JSON ------------------------------------------------------------------ */

/* A string safe inside a <script> element: '<', '>' and '&' escaped too. */
static void jstr(FILE *f, const char *s)
{
	if (slub_json_put_script(f, s))
		fputs("null", f);	/* no memory: the page's data stays valid */
}

/*
 * Times in the page are ns from the trace's first event (the origin, given
 * once as a string): absolute ns since 1970 do not fit a JavaScript number.
 */
static uint64_t rel(uint64_t origin, uint64_t ts)
{
	return ts > origin ? ts - origin : 0;
}

static void jrecord(FILE *f, const struct slub_model_record *r, uint64_t origin)
{
	fprintf(f, "{\"ts\":%" PRIu64 ",\"vpid\":%u,\"vtid\":%u,\"cpu\":%d,\"slot\":%d,"
		"\"event\":\"%s\",\"site\":\"%s\",\"before\":\"%s\",\"after\":\"%s\","
		"\"list\":\"%s\",\"owner\":%d,\"inuse\":%u,\"objects\":%u,\"frozen\":%u,"
		"\"seq\":%u,\"lock_seq\":%" PRIu64 "}",
		rel(origin, r->ts), r->vpid, r->vtid, r->cpu, r->slot, slub_event_name(r->type),
		r->site ? slub_site_name(r->site) : "-", slub_state_name(r->before),
		slub_state_name(r->after), slub_model_list_name(r->list), r->owner, r->inuse,
		r->objects, r->frozen, r->seq, r->lock_seq);
}

/* ---- scan: slabs, top-N, violations, series ----------------------------------- */

static struct slab *slab_get(struct report *r, uint32_t vpid, uint64_t addr, uint64_t ts)
{
	int64_t i = keymap_get(&r->live, vpid, addr);
	struct slab *s;

	if (i >= 0)
		return &r->slabs[i];
	if (r->free_slab >= 0) {
		i = r->free_slab;
		r->free_slab = r->slabs[i].next_free;
	} else {
		if (r->nr_slabs == r->cap_slabs) {
			uint32_t cap = r->cap_slabs ? r->cap_slabs * 2 : 1024;
			struct slab *n = realloc(r->slabs, cap * sizeof(*n));

			if (!n)
				return NULL;
			r->slabs = n;
			r->cap_slabs = cap;
		}
		i = r->nr_slabs++;
	}
	if (keymap_put(&r->live, vpid, addr, (uint32_t)i) < 0)
		return NULL;
	s = &r->slabs[i];
	memset(s, 0, sizeof(*s));
	s->slab = addr;
	s->vpid = vpid;
	s->t0 = s->last = s->since = ts;
	s->next_free = -1;
	return s;
}

static uint64_t metric_of(const struct lane_meta *m, unsigned k)
{
	switch (k) {
	case M_TRANSITIONS:
		return m->transitions;
	case M_FAILURES:
		return m->failures;
	case M_TIME_CPU_PARTIAL:
		return m->time[SLUB_STATE_CPU_PARTIAL];
	case M_TIME_NODE_PARTIAL:
		return m->time[SLUB_STATE_NODE_PARTIAL];
	default:
		return m->time[SLUB_STATE_FULL];
	}
}

static void meta_of(struct lane_meta *m, const struct slab *s)
{
	memset(m, 0, sizeof(*m));
	m->slab = s->slab;
	m->vpid = s->vpid;
	m->t0 = s->t0;
	m->t1 = s->last;
	m->transitions = s->transitions;
	m->failures = s->failures;
	memcpy(m->time, s->time, sizeof(m->time));
	snprintf(m->cache, sizeof(m->cache), "%s", s->cache ? s->cache : "?");
	m->storm = -1;
}

/* A slab incarnation ends (discarded, or the trace ended): rank it. */
static void slab_close(struct report *r, struct slab *s)
{
	struct lane_meta m;
	uint32_t idx = (uint32_t)(s - r->slabs);

	meta_of(&m, s);
	if (s->violated && r->nr_vlanes < VIOLATION_LANES) {
		m.why = 1;
		r->vlanes[r->nr_vlanes++] = m;
	}
	for (unsigned k = 0; k < M_NR; k++) {
		uint64_t v = metric_of(&m, k);
		uint32_t n = r->nr_top[k], pos;

		if (!v || (n == r->top_n && metric_of(&r->top[k][n - 1], k) >= v))
			continue;
		for (pos = n; pos > 0 && metric_of(&r->top[k][pos - 1], k) < v; pos--)
			;
		if (n == r->top_n)
			n--;
		memmove(&r->top[k][pos + 1], &r->top[k][pos], (n - pos) * sizeof(m));
		r->top[k][pos] = m;
		r->nr_top[k] = n + 1;
	}
	keymap_del(&r->live, s->vpid, s->slab);
	s->next_free = r->free_slab;
	r->free_slab = (int32_t)idx;
}

static void scan_transition(const struct slub_model_transition *t, void *arg)
{
	struct report *r = arg;
	const struct slub_model_record *rec = t->rec;
	struct slab *s;

	if (!rec->slab || !slub_filter_vpid(&r->sink.filter, rec->vpid) ||
	    !slub_filter_cache(&r->sink.filter, t->cache_name))
		return;
	s = slab_get(r, rec->vpid, rec->slab, rec->ts);
	if (!s) {
		r->failed = 1;
		return;
	}
	if (!s->cache && t->cache_name)
		s->cache = t->cache_name;
	if (rec->ts > s->since)
		s->time[s->state] += rec->ts - s->since;
	if (rec->ts > s->since || !s->transitions)
		s->since = rec->ts;
	if (rec->ts > s->last)
		s->last = rec->ts;
	s->state = rec->after;
	s->transitions++;
	if (rec->after == SLUB_STATE_DISCARDED)
		slab_close(r, s);
}

static void scan_violation(const struct slub_model_violation *v, void *arg)
{
	struct report *r = arg;
	struct violation *o;

	if (!slub_filter_vpid(&r->sink.filter, v->vpid) ||
	    !slub_filter_cache(&r->sink.filter, v->cache_name))
		return;
	r->sink.filter.violations++;
	if (v->rule < 32)
		r->by_rule[v->rule]++;
	/* The slabs of the first violations get a lane, in violation order. */
	if (v->slab && r->nr_violated < VIOLATION_LANES) {
		struct slab *s = slab_get(r, v->vpid, v->slab, v->ts);

		if (s && !s->violated) {
			s->violated = 1;
			r->nr_violated++;
		}
	}
	if (r->nr_violations >= r->max_violations)
		return;
	if (!r->violations) {
		r->violations = calloc(r->max_violations, sizeof(*r->violations));
		if (!r->violations) {
			r->failed = 1;
			return;
		}
	}
	o = &r->violations[r->nr_violations];
	o->rule_id = v->rule_id;
	o->meaning = v->meaning;
	o->kernel_fn = v->kernel_fn;
	snprintf(o->detail, sizeof(o->detail), "%s", v->detail ? v->detail : "");
	snprintf(o->cache, sizeof(o->cache), "%s", v->cache_name ? v->cache_name : "?");
	o->ts = v->ts;
	o->slab = v->slab;
	o->vpid = v->vpid;
	o->vtid = v->vtid;
	o->other_vtid = v->other_vtid;
	if (v->event)
		o->event = *v->event;
	o->nr_history = v->nr_history < r->history ? v->nr_history : (uint32_t)r->history;
	if (o->nr_history) {
		o->history = malloc(o->nr_history * sizeof(*o->history));
		if (!o->history)
			o->nr_history = 0;
		else
			memcpy(o->history, v->history + (v->nr_history - o->nr_history),
			       o->nr_history * sizeof(*o->history));
	}
	r->nr_violations++;
}

/* The bin of ts in the series; bins double in width to stay SERIES_BINS. */
static int series_bin(struct report *r, uint64_t ts)
{
	uint64_t b;

	if (!r->series_bin) {
		r->series_start = ts;
		r->series_bin = 1000000; /* 1 ms to start with */
	}
	if (ts < r->series_start)
		ts = r->series_start;
	while ((b = (ts - r->series_start) / r->series_bin) >= SERIES_BINS) {
		for (unsigned i = 0; i < SERIES_BINS / 2; i++) {
			for (unsigned s = 0; s < SLUB_SITE_NR; s++)
				r->series[s][i] = r->series[s][2 * i] + r->series[s][2 * i + 1];
			r->series_cpu[i] = r->series_cpu[2 * i] + r->series_cpu[2 * i + 1];
			r->series_waits[i] = r->series_waits[2 * i] + r->series_waits[2 * i + 1];
			r->series_wait_ns[i] = r->series_wait_ns[2 * i] + r->series_wait_ns[2 * i + 1];
		}
		for (unsigned i = SERIES_BINS / 2; i < SERIES_BINS; i++) {
			for (unsigned s = 0; s < SLUB_SITE_NR; s++)
				r->series[s][i] = 0;
			r->series_cpu[i] = r->series_waits[i] = r->series_wait_ns[i] = 0;
		}
		r->series_bin *= 2;
	}
	if (b + 1 > r->series_bins)
		r->series_bins = (uint32_t)b + 1;
	return (int)b;
}

/* The model's applied listener: the statistics, in the model's order. */
static void scan_applied(const struct slub_model_applied *a, void *arg)
{
	struct report *r = arg;

	if (slub_filter_event(&r->sink.filter, a->e))
		slub_tstats_applied(a, r->ts);
}

static int scan_decoded(struct slub_sink *sk, const struct slub_decoded *d)
{
	struct report *r = (struct report *)sk;
	const struct slub_event *ev = &d->event.ev;
	struct slub_tstats_discard g;
	int b;

	if (slub_sink_refuse_generation(sk, d) < 0)
		return -1;
	if (sheaf_lanes_event(r->sheaves, d) < 0)
		goto nomem;
	if (d->kind == SLUB_DEC_DISCARD) {
		g.stream_id = d->discard.stream_id;
		g.count = d->discard.count;
		g.begin_ts = d->discard.begin_ts;
		g.end_ts = d->discard.end_ts;
		g.range_known = d->discard.range_known;
		g.foreign = d->discard.foreign;
		slub_tstats_discarded(r->ts, &g);
		return 0;
	}
	if (d->kind != SLUB_DEC_EVENT)
		return 0;
	if (!r->first_ts || d->event.ts < r->first_ts)
		r->first_ts = d->event.ts;
	if (d->event.ts > r->last_ts)
		r->last_ts = d->event.ts;
	if (!slub_filter_event(&sk->filter, &d->event))
		return 0;
	if (keymap_get(&r->threads, d->event.vpid, d->event.vtid) < 0) {
		if (keymap_put(&r->threads, d->event.vpid, d->event.vtid, 0) < 0)
			goto nomem;
		r->nr_threads++;
		if (keymap_get(&r->threads, d->event.vpid, UINT64_MAX) < 0) {
			if (keymap_put(&r->threads, d->event.vpid, UINT64_MAX, 0) < 0)
				goto nomem;
			r->nr_processes++;
		}
	}
	switch (ev->type) {
	case SLUB_EV_CMPXCHG_FAIL:
	case SLUB_EV_CPU_CMPXCHG_FAIL:
		b = series_bin(r, d->event.ts);
		if (ev->type == SLUB_EV_CPU_CMPXCHG_FAIL)
			r->series_cpu[b]++;
		else if (ev->site < SLUB_SITE_NR)
			r->series[ev->site][b]++;
		if (ev->slab) {
			struct slab *s = slab_get(r, d->event.vpid, ev->slab, d->event.ts);

			if (!s)
				goto nomem;
			s->failures++;
		}
		break;
	case SLUB_EV_LOCK_ACQUIRE:
		if (ev->contended) {
			b = series_bin(r, d->event.ts);
			r->series_waits[b]++;
			r->series_wait_ns[b] += ev->wait_ns;
		}
		break;
	default:
		break;
	}
	/* the statistics count it in the model's order (scan_applied) */
	if (slub_tstats_failed(r->ts))
		goto nomem;
	return 0;
nomem:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sk->self, "out of memory in the report");
	return -1;
}

static void write_meta(FILE *f, const struct lane_meta *m, uint64_t origin)
{
	fprintf(f, "{\"vpid\":%u,\"slab\":\"0x%" PRIx64 "\",\"cache\":", m->vpid, m->slab);
	jstr(f, m->cache);
	fprintf(f, ",\"t0\":%" PRIu64 ",\"t1\":%" PRIu64 ",\"transitions\":%u,\"failures\":%u",
		rel(origin, m->t0), rel(origin, m->t1), m->transitions, m->failures);
	for (unsigned s = SLUB_STATE_CPU_ACTIVE; s <= SLUB_STATE_FULL; s++)
		fprintf(f, ",\"time_%s\":%" PRIu64, slub_state_name(s), m->time[s]);
	fprintf(f, ",\"storm\":%d}", m->storm);
}

/* The lane of m: an existing one of the same incarnation, or a new one. */
static int lane_add(struct lane_meta *lanes, uint32_t *nr, const struct lane_meta *m)
{
	for (uint32_t i = 0; i < *nr; i++)
		if (lanes[i].vpid == m->vpid && lanes[i].slab == m->slab && lanes[i].t0 == m->t0 &&
		    lanes[i].t1 == m->t1) {
			lanes[i].why |= m->why;
			return (int)i;
		}
	if (*nr == MAX_LANES)
		return -1;
	lanes[*nr] = *m;
	return (int)(*nr)++;
}

static int lane_of_slab(const struct lane_meta *lanes, uint32_t nr, uint32_t vpid, uint64_t slab,
			uint64_t ts)
{
	for (uint32_t i = 0; i < nr; i++)
		if (lanes[i].vpid == vpid && lanes[i].slab == slab && ts >= lanes[i].t0 &&
		    ts <= lanes[i].t1 && !(lanes[i].why & 0x100))
			return (int)i;
	return -1;
}

/* Slabs still alive at the end of the trace close there. */
static void close_live_slabs(struct report *r)
{
	for (uint32_t i = 0; i < r->nr_slabs; i++) {
		struct slab *s = &r->slabs[i];

		if (keymap_get(&r->live, s->vpid, s->slab) != (int64_t)i)
			continue;
		if (r->last_ts > s->since)
			s->time[s->state] += r->last_ts - s->since;
		s->last = r->last_ts > s->last ? r->last_ts : s->last;
		slab_close(r, s);
	}
}

/* The largest storms on a slab word: a lane around each, zoomed in. */
static void storm_lanes(struct report *r, struct lane_meta *lanes, uint32_t *nr_lanes)
{
	for (unsigned i = 0, n = 0; i < slub_tstats_nr_storms(r->ts) && n < STORM_LANES; i++) {
		const struct slub_tstats_storm *st = slub_tstats_storm_at(r->ts, i);
		struct lane_meta m = { 0 };
		uint64_t pad;

		/* A run on a cpu partial chain names no slab. */
		if ((st->kind != SLUB_STORM_RUN && st->kind != SLUB_STORM_SLAB) ||
		    st->site == SLUB_SITE_PUT_CPU_PARTIAL || st->site == SLUB_SITE_CPU_PARTIAL_TAKE)
			continue;
		pad = (st->end_ts - st->begin_ts) / 4;
		if (pad < 200000)
			pad = 200000;
		m.slab = st->object;
		m.vpid = st->vpid;
		m.t0 = st->begin_ts > pad ? st->begin_ts - pad : 0;
		m.t1 = st->end_ts + pad;
		m.why = 0x100;
		m.storm = (int)i;
		snprintf(m.cache, sizeof(m.cache), "%s", st->cache ? st->cache : "?");
		lane_add(lanes, nr_lanes, &m);
		n++;
	}
}

static void write_verdict(FILE *f, const struct report *r, const struct slub_model_summary *s)
{
	char scope[160];
	size_t n;

	/* the filter, as check's verdict says it, without the parentheses */
	slub_filter_describe(&r->sink.filter, scope, sizeof(scope));
	n = strlen(scope);
	if (n > 3 && scope[n - 1] == ')')
		scope[n - 1] = '\0';
	fprintf(f, "{\"filter\":");
	if (n > 3)
		jstr(f, scope + 2);
	else
		fputs("null", f);
	fprintf(f, ",\"origin\":\"%" PRIu64 "\",\"first_ts\":0,\"last_ts\":%" PRIu64 ",\n\"verdict\":{"
		"\"events\":%" PRIu64 ",\"applied\":%" PRIu64 ",\"slabs\":%" PRIu64
		",\"threads\":%" PRIu64 ",\"processes\":%" PRIu64 ",\"violations\":%" PRIu64
		",\"gaps\":%" PRIu64 ",\"events_discarded\":%" PRIu64
		",\"foreign_discarded\":%" PRIu64 ",\"slabs_resynced\":%" PRIu64
		",\"reorder_exceeded\":%" PRIu64 ",\"reorder_max_delay_ns\":%" PRIu64
		",\"cut_gaps\":%" PRIu64 ",\"cut_lag_ns\":%" PRIu64
		",\"peak_slabs\":%" PRIu64 ",\"by_rule\":{",
		r->first_ts, rel(r->first_ts, r->last_ts), s->events, s->applied, s->slabs, r->nr_threads,
		r->nr_processes, s->violations, s->gaps, s->events_discarded,
		s->foreign_discarded, s->slabs_resynced,
		s->reorder_exceeded, s->reorder_max_delay_ns, s->cut_gaps, s->cut_lag_ns,
		s->peak_slabs);
	for (unsigned i = 0, n = 0; i < SLUB_RULE_NR && i < 32; i++)
		if (s->violations_by_rule[i])
			fprintf(f, "%s\"%s\":%" PRIu64, n++ ? "," : "", slub_rule_id(i),
				s->violations_by_rule[i]);
	fprintf(f, "},\"skipped\":[");
	for (unsigned i = 0, n = 0; i < SLUB_RULE_NR && i < 64; i++)
		if (s->skipped_rules & (1ull << i)) {
			fprintf(f, "%s{\"id\":\"%s\",\"meaning\":", n++ ? "," : "", slub_rule_id(i));
			jstr(f, slub_rule_meaning(i));
			fputc('}', f);
		}
}

static void write_violations(FILE *f, const struct report *r, const struct lane_meta *lanes,
			     uint32_t nr_lanes)
{
	fprintf(f, "]},\n\"violations\":[");
	for (uint32_t i = 0; i < r->nr_violations; i++) {
		const struct violation *v = &r->violations[i];

		fprintf(f, "%s\n{\"rule\":\"%s\",\"meaning\":", i ? "," : "", v->rule_id);
		jstr(f, v->meaning);
		fprintf(f, ",\"kernel_fn\":");
		jstr(f, v->kernel_fn);
		fprintf(f, ",\"detail\":");
		jstr(f, v->detail);
		fprintf(f, ",\"cache\":");
		jstr(f, v->cache);
		fprintf(f, ",\"ts\":%" PRIu64 ",\"slab\":\"0x%" PRIx64 "\",\"vpid\":%u,\"vtid\":%u,"
			"\"other_vtid\":%u,\"lane\":%d,\"event\":",
			rel(r->first_ts, v->ts), v->slab, v->vpid, v->vtid, v->other_vtid,
			v->slab ? lane_of_slab(lanes, nr_lanes, v->vpid, v->slab, v->ts) : -1);
		jrecord(f, &v->event, r->first_ts);
		fprintf(f, ",\"history\":[");
		for (uint32_t h = 0; h < v->nr_history; h++) {
			fputs(h ? "," : "", f);
			jrecord(f, &v->history[h], r->first_ts);
		}
		fprintf(f, "]}");
	}
}

static void write_series(FILE *f, const struct report *r)
{
	fprintf(f, "],\n\"series\":{\"start_ts\":%" PRIu64 ",\"bin_ns\":%" PRIu64 ",\"sites\":{",
		rel(r->first_ts, r->series_start), r->series_bin);
	for (unsigned s = 0, n = 0; s <= SLUB_SITE_NR; s++) {
		const uint64_t *v = s < SLUB_SITE_NR ? r->series[s] : r->series_cpu;
		uint64_t total = 0;

		for (uint32_t b = 0; b < r->series_bins; b++)
			total += v[b];
		if (!total)
			continue;
		fprintf(f, "%s\"%s\":[", n++ ? "," : "",
			s < SLUB_SITE_NR ? slub_site_name(s) : "cpu partial chain");
		for (uint32_t b = 0; b < r->series_bins; b++)
			fprintf(f, "%s%" PRIu64, b ? "," : "", v[b]);
		fputc(']', f);
	}
	fprintf(f, "},\"lock_waits\":[");
	for (uint32_t b = 0; b < r->series_bins; b++)
		fprintf(f, "%s%" PRIu64, b ? "," : "", r->series_waits[b]);
	fprintf(f, "],\"lock_wait_ns\":[");
	for (uint32_t b = 0; b < r->series_bins; b++)
		fprintf(f, "%s%" PRIu64, b ? "," : "", r->series_wait_ns[b]);
}

static void write_top(FILE *f, const struct report *r, int top_lane[M_NR][MAX_TOP])
{
	fprintf(f, "]},\n\"top\":{");
	for (unsigned k = 0; k < M_NR; k++) {
		fprintf(f, "%s\"%s\":[", k ? "," : "", metric_name[k]);
		for (uint32_t i = 0; i < r->nr_top[k]; i++)
			fprintf(f, "%s{\"lane\":%d,\"value\":%" PRIu64 "}", i ? "," : "",
				top_lane[k][i], metric_of(&r->top[k][i], k));
		fputc(']', f);
	}
}

static void write_lanes(FILE *f, FILE *sl, const struct report *r, const struct lane_meta *lanes,
			uint32_t nr_lanes)
{
	fprintf(f, "},\n\"lanes\":[");
	for (uint32_t i = 0; i < nr_lanes; i++) {
		fputs(i ? ",\n" : "", f);
		write_meta(f, &lanes[i], r->first_ts);
		fprintf(sl, "%u 0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %u %d\n", lanes[i].vpid,
			lanes[i].slab, lanes[i].t0, lanes[i].t1, lanes[i].why, lanes[i].storm);
	}
}

static void write_names(FILE *f)
{
	/* The lanes carry event types, sites and states as numbers. */
	fprintf(f, "],\n\"names\":{\"events\":[");
	for (unsigned i = 0; i < SLUB_EV_NR; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", slub_event_name(i));
	fprintf(f, "],\"sites\":[");
	for (unsigned i = 0; i < SLUB_SITE_NR; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", i ? slub_site_name(i) : "-");
	fprintf(f, "],\"states\":[");
	for (unsigned i = 0; i < SLUB_STATE_NR; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", slub_state_name(i));
	fprintf(f, "]}");
}

/* Slabs and pages made and discarded, all caches together (the
 * occupancy of analysis/stats, as `slubtrace stats` counts them). */
static void write_occupancy(FILE *f, const struct report *r)
{
	struct slub_tstats_occupancy o;

	slub_tstats_get_occupancy(r->ts, &o);
	fprintf(f, ",\n\"occupancy\":{\"slabs_new\":%" PRIu64 ",\"slabs_freed\":%" PRIu64
		",\"pages_new\":%" PRIu64 ",\"pages_freed\":%" PRIu64 ",\"slabs_peak\":%" PRIu64
		",\"partial_peak\":%" PRIu64 "}", o.slabs_new, o.slabs_freed, o.pages_new,
		o.pages_freed, o.slabs_peak, o.partial_peak);
}

static void scan_end(struct slub_sink *sk)
{
	struct report *r = (struct report *)sk;
	struct slub_model_summary sum;
	struct lane_meta *lanes = calloc(MAX_LANES, sizeof(*lanes));
	int top_lane[M_NR][MAX_TOP];
	uint32_t nr_lanes = 0;
	FILE *f = NULL, *sl = NULL;

	if (!lanes || slub_tstats_failed(r->ts))
		goto fail;
	if (slub_filter_refuse(sk, true) < 0) {
		free(lanes);
		return;
	}
	close_live_slabs(r);
	slub_tstats_finish(r->ts);
	slub_model_get_summary(sk->model, &sum);
	if (slub_filter_on(&sk->filter)) {
		sum.events = sk->filter.events;
		sum.violations = sk->filter.violations;
		memcpy(sum.violations_by_rule, r->by_rule, sizeof(r->by_rule));
	}

	for (uint32_t i = 0; i < r->nr_vlanes; i++)
		lane_add(lanes, &nr_lanes, &r->vlanes[i]);
	for (unsigned k = 0; k < M_NR; k++)
		for (uint32_t i = 0; i < r->nr_top[k]; i++) {
			r->top[k][i].why = 2u << k;
			top_lane[k][i] = lane_add(lanes, &nr_lanes, &r->top[k][i]);
		}
	storm_lanes(r, lanes, &nr_lanes);

	f = fopen(r->data_path, "w");
	sl = fopen(r->slabs_path, "w");
	if (!f || !sl)
		goto fail;
	write_verdict(f, r, &sum);
	write_violations(f, r, lanes, nr_lanes);
	write_series(f, r);
	write_top(f, r, top_lane);
	write_lanes(f, sl, r, lanes, nr_lanes);
	write_names(f);
	sheaf_lanes_write(f, r->sheaves, r->first_ts, SHEAF_CPU_LANES, SHEAF_BARN_LANES);
	write_occupancy(f, r);
	fputs("}\n", f);
	if (fclose(f) || fclose(sl)) {
		f = sl = NULL;
		goto fail;
	}
	f = NULL;
	if (r->stats_path) {
		f = fopen(r->stats_path, "w");
		if (!f)
			goto fail;
		slub_tstats_print_json(r->ts, f);
		if (fclose(f)) {
			f = NULL;
			goto fail;
		}
	}
	free(lanes);
	return;
fail:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sk->self, "report: cannot write %s: %s",
							    r->data_path, strerror(errno));
	if (f)
		fclose(f);
	if (sl)
		fclose(sl);
	free(lanes);
	r->failed = 1;
}

/* ---- lanes ------------------------------------------------------------------- */

static void mark_of(struct mark *k, const struct slub_model_record *rec)
{
	k->ts = rec->ts;
	k->vtid = rec->vtid;
	k->type = rec->type;
	k->site = rec->site;
	k->inuse = rec->inuse;
	k->objects = rec->objects;
	k->seq = rec->seq;
	k->cpu = rec->cpu;
	k->owner = rec->owner;
	k->before = rec->before;
	k->after = rec->after;
	k->rule = NULL;
}

static void band_add(struct lane *l, uint64_t ts, uint8_t state)
{
	if (l->nr_bands && l->bands[l->nr_bands - 1].state == state)
		return;
	if (l->nr_bands)
		l->bands[l->nr_bands - 1].end = ts;
	if (l->nr_bands == LANE_BANDS) {
		/* Merge pairs: each keeps the state it spent longer in. */
		for (uint32_t i = 0; i < LANE_BANDS / 2; i++) {
			struct band *a = &l->bands[2 * i], *b = &l->bands[2 * i + 1];
			uint8_t st = a->end - a->start >= b->end - b->start ? a->state : b->state;

			l->bands[i] = (struct band){ a->start, b->end, st };
		}
		l->nr_bands = LANE_BANDS / 2;
		l->band_cap_merges++;
	}
	l->bands[l->nr_bands++] = (struct band){ ts, ts, state };
}

static void lane_transition(struct lane *l, const struct slub_model_record *rec)
{
	if (l->cur_state < 0)
		band_add(l, l->m.t0, rec->before);
	band_add(l, rec->ts, rec->after);
	l->cur_state = rec->after;
	if (l->mark_seen++ % l->mark_stride)
		return;
	if (l->nr_marks == LANE_MARKS) {
		for (uint32_t i = 0; i < LANE_MARKS / 2; i++)
			l->marks[i] = l->marks[2 * i];
		l->nr_marks = LANE_MARKS / 2;
		l->mark_stride *= 2;
		if ((l->mark_seen - 1) % l->mark_stride)
			return;
	}
	mark_of(&l->marks[l->nr_marks++], rec);
}

static void lanes_transition(const struct slub_model_transition *t, void *arg)
{
	struct report *r = arg;
	const struct slub_model_record *rec = t->rec;

	if (!rec->slab)
		return;
	for (int64_t i = keymap_get(&r->lane_of, rec->vpid, rec->slab); i >= 0;
	     i = r->lanes[i].next_same) {
		struct lane *l = &r->lanes[i];

		if (rec->ts >= l->m.t0 && rec->ts <= l->m.t1)
			lane_transition(l, rec);
	}
}

static void lanes_violation(const struct slub_model_violation *v, void *arg)
{
	struct report *r = arg;

	if (!v->slab || !v->event)
		return;
	for (int64_t i = keymap_get(&r->lane_of, v->vpid, v->slab); i >= 0;
	     i = r->lanes[i].next_same) {
		struct lane *l = &r->lanes[i];

		if (v->event->ts < l->m.t0 || v->event->ts > l->m.t1 || l->nr_special == LANE_SPECIAL)
			continue;
		mark_of(&l->special[l->nr_special], v->event);
		l->special[l->nr_special++].rule = v->rule_id;
	}
}

static int lanes_decoded(struct slub_sink *sk, const struct slub_decoded *d)
{
	struct report *r = (struct report *)sk;
	const struct slub_event *ev = &d->event.ev;

	if (d->kind != SLUB_DEC_EVENT || !ev->slab ||
	    (ev->type != SLUB_EV_CMPXCHG_FAIL && ev->type != SLUB_EV_CPU_CMPXCHG_FAIL))
		return 0;
	for (int64_t i = keymap_get(&r->lane_of, d->event.vpid, ev->slab); i >= 0;
	     i = r->lanes[i].next_same) {
		struct lane *l = &r->lanes[i];

		if (d->event.ts < l->m.t0 || d->event.ts > l->m.t1)
			continue;
		if (l->fail_seen++ % l->fail_stride)
			continue;
		if (l->nr_fails == LANE_FAILS) {
			for (uint32_t k = 0; k < LANE_FAILS / 2; k++)
				l->fails[k] = l->fails[2 * k];
			l->nr_fails = LANE_FAILS / 2;
			l->fail_stride *= 2;
			if ((l->fail_seen - 1) % l->fail_stride)
				continue;
		}
		l->fails[l->nr_fails++] = (struct fail){ d->event.ts, d->event.vtid, ev->site,
							 ev->attempt, ev->type };
	}
	return 0;
}

static int lanes_load(struct report *r)
{
	FILE *f = fopen(r->slabs_path, "r");
	struct lane_meta m;
	char line[256];

	if (!f) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(r->sink.self,
			"slabs-path %s: %s", r->slabs_path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) && r->nr_lanes < MAX_LANES) {
		struct lane *l = &r->lanes[r->nr_lanes];
		int64_t prev;

		memset(&m, 0, sizeof(m));
		if (sscanf(line, "%u %" SCNx64 " %" SCNu64 " %" SCNu64 " %u %d", &m.vpid, &m.slab,
			   &m.t0, &m.t1, &m.why, &m.storm) != 6)
			continue;
		l->m = m;
		l->marks = malloc(LANE_MARKS * sizeof(*l->marks));
		l->bands = malloc(LANE_BANDS * sizeof(*l->bands));
		l->fails = malloc(LANE_FAILS * sizeof(*l->fails));
		if (!l->marks || !l->bands || !l->fails) {
			fclose(f);
			return -1;
		}
		l->mark_stride = l->fail_stride = 1;
		l->cur_state = -1;
		prev = keymap_get(&r->lane_of, m.vpid, m.slab);
		l->next_same = (int)prev;
		if (keymap_put(&r->lane_of, m.vpid, m.slab, r->nr_lanes) < 0) {
			fclose(f);
			return -1;
		}
		r->nr_lanes++;
	}
	fclose(f);
	return 0;
}

static void write_mark(FILE *f, const struct lane *l, const struct mark *k)
{
	/* [dt, vtid, type, site, before, after, inuse, objects, seq, cpu, owner] */
	fprintf(f, "[%" PRIu64 ",%u,%u,%u,%u,%u,%u,%u,%u,%d,%d]", k->ts - l->m.t0, k->vtid,
		k->type, k->site, k->before, k->after, k->inuse, k->objects, k->seq, k->cpu,
		k->owner);
}

static void lanes_end(struct slub_sink *sk)
{
	struct report *r = (struct report *)sk;
	FILE *f = fopen(r->data_path, "w");

	if (!f)
		goto fail;
	fprintf(f, "[");
	for (uint32_t i = 0; i < r->nr_lanes; i++) {
		struct lane *l = &r->lanes[i];

		if (l->nr_bands)
			l->bands[l->nr_bands - 1].end = l->m.t1;
		fprintf(f, "%s\n{\"transitions\":%u,\"stride\":%u,\"band_merges\":%" PRIu64
			",\"bands\":[", i ? "," : "", l->mark_seen, l->mark_stride,
			l->band_cap_merges);
		for (uint32_t b = 0; b < l->nr_bands; b++)
			fprintf(f, "%s[%" PRIu64 ",%" PRIu64 ",%u]", b ? "," : "",
				l->bands[b].start - l->m.t0, l->bands[b].end - l->m.t0,
				l->bands[b].state);
		fprintf(f, "],\"marks\":[");
		for (uint32_t k = 0; k < l->nr_marks; k++) {
			fputs(k ? "," : "", f);
			write_mark(f, l, &l->marks[k]);
		}
		fprintf(f, "],\"failures\":%u,\"fails\":[", l->fail_seen);
		for (uint32_t k = 0; k < l->nr_fails; k++)
			fprintf(f, "%s[%" PRIu64 ",%u,%u,%u,%u]", k ? "," : "",
				l->fails[k].ts - l->m.t0, l->fails[k].vtid, l->fails[k].site,
				l->fails[k].attempt, l->fails[k].type);
		fprintf(f, "],\"violating\":[");
		for (uint32_t k = 0; k < l->nr_special; k++) {
			fprintf(f, "%s{\"rule\":\"%s\",\"mark\":", k ? "," : "", l->special[k].rule);
			write_mark(f, l, &l->special[k]);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]\n");
	if (fclose(f) == 0)
		return;
	f = NULL;
fail:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sk->self, "report: cannot write %s: %s",
							    r->data_path, strerror(errno));
	r->failed = 1;
}

/* ---- the component ------------------------------------------------------------ */

static void report_destroy(struct report *r)
{
	slub_sink_fini(&r->sink);
	slub_tstats_free(r->ts);
	sheaf_lanes_free(r->sheaves);
	keymap_destroy(&r->live);
	keymap_destroy(&r->threads);
	keymap_destroy(&r->lane_of);
	free(r->slabs);
	for (uint32_t i = 0; i < r->nr_violations; i++)
		free(r->violations[i].history);
	free(r->violations);
	for (uint32_t i = 0; i < MAX_LANES; i++) {
		free(r->lanes[i].marks);
		free(r->lanes[i].bands);
		free(r->lanes[i].fails);
	}
	free((void *)r->data_path);
	free((void *)r->slabs_path);
	free((void *)r->stats_path);
	free(r);
}

bt_component_class_initialize_method_status
slub_report_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		 const bt_value *params, void *init_data)
{
	struct report *r = calloc(1, sizeof(*r));
	bt_component_class_initialize_method_status st;
	struct slub_order_params order = { 0 };
	const char *pass = NULL, *data_path = NULL, *slabs_path = NULL, *stats_path = NULL;
	static const char *const passes[] = { "scan", "lanes", NULL };
	struct slub_model_config cfg = { 0 };
	struct slub_model_callbacks cb = { 0 };

	(void)config;
	if (!r)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;

	struct slub_param p[] = {
		{ .name = "pass", .type = SLUB_P_STRING, .where = &pass, .choices = passes },
		{ .name = "data-path", .type = SLUB_P_STRING, .where = &data_path },
		{ .name = "slabs-path", .type = SLUB_P_STRING, .where = &slabs_path },
		{ .name = "stats-path", .type = SLUB_P_STRING, .where = &stats_path },
		{ .name = "top", .type = SLUB_P_UINT, .where = &r->top_n, .min = 1, .max = MAX_TOP },
		{ .name = "max-violations", .type = SLUB_P_UINT, .where = &r->max_violations,
		  .max = 1000 },
		SLUB_HISTORY_PARAM(&r->history),
		SLUB_REORDER_PARAMS(&order),
		{ .name = "cache", .type = SLUB_P_STRING, .where = &r->sink.filter.cache },
		{ .name = "procname", .type = SLUB_P_STRING, .where = &r->sink.filter.procname },
	};

	r->top_n = 5;
	r->max_violations = 20;
	r->history = 8;
	r->free_slab = -1;
	st = slub_sink_init(&r->sink, self, init_data);
	if (st != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK)
		goto fail;
	st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (slub_sink_params(r->sink.self, params, p, SLUB_PARAM_NR(p)) < 0)
		goto fail;
	if (slub_filter_init(&r->sink) < 0)
		goto nomem;
	if (!data_path || !slabs_path) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(r->sink.self,
			"data-path and slabs-path are required");
		goto fail;
	}
	/* The strings belong to params, which outlives initialization only
	 * by reference: keep copies. */
	r->data_path = strdup(data_path);
	r->slabs_path = strdup(slabs_path);
	r->stats_path = stats_path ? strdup(stats_path) : NULL;
	if (!r->data_path || !r->slabs_path || (stats_path && !r->stats_path))
		goto nomem;
	r->lanes_pass = pass && !strcmp(pass, "lanes");
	slub_order_config(&order, &cfg);
	cfg.history = (uint32_t)r->history;
	cb.arg = r;
	if (r->lanes_pass) {
		if (keymap_init(&r->lane_of) < 0)
			goto nomem;
		if (lanes_load(r) < 0)
			goto fail;
		cb.transition = lanes_transition;
		cb.violation = lanes_violation;
		r->sink.decoded = lanes_decoded;
		r->sink.end = lanes_end;
	} else {
		struct slub_tstats_config tc = { 0 };

		r->ts = slub_tstats_new(&tc);
		r->sheaves = sheaf_lanes_new();
		if (!r->ts || !r->sheaves || keymap_init(&r->live) < 0 || keymap_init(&r->threads) < 0)
			goto nomem;
		cb.transition = scan_transition;
		cb.violation = scan_violation;
		cb.applied = scan_applied;
		r->sink.decoded = scan_decoded;
		r->sink.end = scan_end;
	}
	if (slub_sink_model(&r->sink, &cfg, &cb, NULL) < 0)
		goto nomem;
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), r);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
nomem:
	st = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
fail:
	/* A component whose initialization failed is never finalized. */
	report_destroy(r);
	return st;
}

bt_component_class_sink_graph_is_configured_method_status
slub_report_graph_is_configured(bt_self_component_sink *self)
{
	struct report *r = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	return slub_sink_configured(&r->sink, self);
}

bt_component_class_sink_consume_method_status slub_report_consume(bt_self_component_sink *self)
{
	struct report *r = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_component_class_sink_consume_method_status st = slub_sink_consume(&r->sink);

	if (r->failed && st != BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR)
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	return st;
}

void slub_report_finalize(bt_self_component_sink *self)
{
	struct report *r = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (r)
		report_destroy(r);
}
