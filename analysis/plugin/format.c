/* SPDX-License-Identifier: MIT */
/*
 * Text and JSON forms of transitions, violations and the verdict.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "symbolize.h"
#include "slub_json.h"

const char *slub_fmt_time(char *buf, size_t len, uint64_t ts)
{
	time_t sec = (time_t)(ts / 1000000000ull);
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%09" PRIu64, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (uint64_t)(ts % 1000000000ull));
	return buf;
}

static const char *site_of(const struct slub_model_record *r, char *buf, size_t len)
{
	switch (r->type) {
	case SLUB_EV_ADD_PARTIAL:
		/* Where on the list: the kernel's DEACTIVATE_TO_HEAD/TAIL. */
		snprintf(buf, len, "%s", slub_dest_name(r->dest));
		return buf;
	case SLUB_EV_DEACTIVATE:
	case SLUB_EV_CPU_PARTIAL_DRAIN:
		snprintf(buf, len, "%s>%s", slub_deactivate_reason_name(r->reason),
			 slub_dest_name(r->dest));
		return buf;
	default:
		return r->site ? slub_site_name(r->site) : "-";
	}
}

static void owner_str(char *buf, size_t len, int32_t owner)
{
	if (owner >= 0)
		snprintf(buf, len, "%d", owner);
	else if (owner == SLUB_OWNER_UNKNOWN)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "-");
}

void slub_fmt_record_text(FILE *f, const struct slub_model_record *r, const char *cache)
{
	char t[32], site[64], owner[16], cpu[24];

	if (r->slot >= 0 && r->slot != r->cpu)
		snprintf(cpu, sizeof(cpu), "%d>%d", r->cpu, r->slot);
	else
		snprintf(cpu, sizeof(cpu), "%d", r->cpu);
	owner_str(owner, sizeof(owner), r->owner);
	fprintf(f, "%s %" PRIu32 "/%-7" PRIu32 " cpu %-5s %-17s %-22s 0x%-12" PRIx64
		" %s %-12s -> %-12s list %-11s owner %-3s %3u/%-3u seq %u\n",
		slub_fmt_time(t, sizeof(t), r->ts), r->vpid, r->vtid, cpu,
		slub_event_name(r->type), site_of(r, site, sizeof(site)), r->slab,
		cache ? cache : "?", slub_state_name(r->before), slub_state_name(r->after),
		slub_model_list_name(r->list), owner, r->inuse, r->objects, r->seq);
}

/*
 * JSON lines are the bulk output of a timeline: each is built in a buffer
 * by hand (no printf parsing per field) and written once.
 */
struct line {
	char b[1024];
	size_t n;
};

static inline void put_mem(struct line *l, const char *s, size_t k)
{
	if (l->n + k <= sizeof(l->b)) {
		memcpy(l->b + l->n, s, k);
		l->n += k;
	}
}

#define put_lit(l, s) put_mem(l, s, sizeof(s) - 1)

static inline void put_str(struct line *l, const char *s)
{
	put_mem(l, s, strlen(s));
}

static inline void put_u(struct line *l, uint64_t v)
{
	char t[24];
	int i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_mem(l, t + i, sizeof(t) - (size_t)i);
}

static inline void put_i(struct line *l, int64_t v)
{
	if (v < 0) {
		put_lit(l, "-");
		put_u(l, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u(l, (uint64_t)v);
	}
}

/* "0x..." in lower-case hex, quoted: JSON has no hex numbers. */
static inline void put_hex(struct line *l, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char t[20];
	int i = sizeof(t);

	t[--i] = '"';
	do {
		t[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	t[--i] = 'x';
	t[--i] = '0';
	t[--i] = '"';
	put_mem(l, t + i, sizeof(t) - (size_t)i);
}

/* Without memory for its escaped form, a name is null: the line stays
 * valid JSON. */
static void put_json_string(struct line *l, const char *s)
{
	char *q;

	/* a line per transition: no allocation for a name jansson would
	 * write unchanged */
	if (slub_json_plain(s, false)) {
		put_lit(l, "\"");
		put_mem(l, s ? s : "", s ? strlen(s) : 0);
		put_lit(l, "\"");
		return;
	}
	q = slub_json_quote(s, false);

	if (!q) {
		put_lit(l, "null");
		return;
	}
	put_mem(l, q, strlen(q));
	free(q);
}

/* ,"cache_id":N,"cache":"name" (null when never announced),"node":N */
static void put_cache_node(struct line *l, uint32_t cache_id, const char *cache, int32_t node)
{
	put_lit(l, ",\"cache_id\":");
	put_u(l, cache_id);
	put_lit(l, ",\"cache\":");
	if (cache)
		put_json_string(l, cache);
	else
		put_lit(l, "null");
	put_lit(l, ",\"node\":");
	put_i(l, node);
}

void slub_fmt_record_json(FILE *f, const struct slub_model_record *r, const char *cache)
{
	struct line l = { .n = 0 };
	char site[64];

	put_lit(&l, "{\"ts\":");
	put_u(&l, r->ts);
	put_lit(&l, ",\"vpid\":");
	put_u(&l, r->vpid);
	put_lit(&l, ",\"vtid\":");
	put_u(&l, r->vtid);
	put_lit(&l, ",\"cpu\":");
	put_i(&l, r->cpu);
	put_lit(&l, ",\"slot\":");
	put_i(&l, r->slot);
	put_lit(&l, ",\"event\":\"");
	put_str(&l, slub_event_name(r->type));
	put_lit(&l, "\",\"site\":\"");
	put_str(&l, site_of(r, site, sizeof(site)));
	put_lit(&l, "\",\"slab\":");
	put_hex(&l, r->slab);
	put_cache_node(&l, r->cache_id, cache, r->node);
	put_lit(&l, ",\"before\":\"");
	put_str(&l, slub_state_name(r->before));
	put_lit(&l, "\",\"after\":\"");
	put_str(&l, slub_state_name(r->after));
	put_lit(&l, "\",\"list\":\"");
	put_str(&l, slub_model_list_name(r->list));
	put_lit(&l, "\",\"owner\":");
	put_i(&l, r->owner);
	put_lit(&l, ",\"inuse\":");
	put_u(&l, r->inuse);
	put_lit(&l, ",\"objects\":");
	put_u(&l, r->objects);
	put_lit(&l, ",\"frozen\":");
	put_u(&l, r->frozen);
	put_lit(&l, ",\"seq\":");
	put_u(&l, r->seq);
	put_lit(&l, ",\"freelist\":");
	put_hex(&l, r->freelist);
	put_lit(&l, ",\"lock_seq\":");
	put_u(&l, r->lock_seq);
	put_lit(&l, "}\n");
	fwrite(l.b, 1, l.n, f);
}

static void print_stack(FILE *f, const struct slub_model_violation *v, const uint64_t *stack,
			uint32_t nr, struct slub_symbolizer *sym)
{
	fprintf(f, "  stack of the offending event:\n");
	for (uint32_t i = 0; i < nr; i++) {
		struct slub_frame fr;
		uint64_t ip = stack[i];

		if (!sym || slub_sym_lookup(sym, v->vpid, ip, &fr) < 0) {
			fprintf(f, "    #%-2u 0x%016" PRIx64 " (in no object the trace names)\n", i, ip);
			continue;
		}
		fprintf(f, "    #%-2u 0x%016" PRIx64 " ", i, ip);
		if (fr.function[0])
			fprintf(f, "%s+0x%" PRIx64, fr.function, fr.function_off);
		else
			fprintf(f, "?");
		if (fr.file[0])
			fprintf(f, " at %s:%d", fr.file, fr.line);
		fprintf(f, " (%s+0x%" PRIx64 ")%s\n", fr.path, fr.offset,
			fr.build_id_mismatch ? " [build id differs from the traced file]" : "");
	}
}

void slub_fmt_violation(FILE *f, unsigned nr, const struct slub_model_violation *v,
			const uint64_t *stack, uint32_t stack_nr, struct slub_symbolizer *sym)
{
	char t[32];

	fprintf(f, "violation %u: %s: %s\n", nr, v->rule_id, v->meaning);
	if (v->detail && *v->detail)
		fprintf(f, "  found: %s\n", v->detail);
	if (v->kernel_fn && *v->kernel_fn)
		fprintf(f, "  the promise of: %s\n", v->kernel_fn);
	if (v->slab)
		fprintf(f, "  slab 0x%" PRIx64 ", cache %s (id %u)\n", v->slab,
			v->cache_name ? v->cache_name : "?", v->cache_id);
	else
		fprintf(f, "  cache %s (id %u)\n", v->cache_name ? v->cache_name : "?",
			v->cache_id);
	fprintf(f, "  process %u, thread %u", v->vpid, v->vtid);
	if (v->other_vtid)
		fprintf(f, ", other thread %u", v->other_vtid);
	fprintf(f, ", at %s (%" PRIu64 " ns)\n", slub_fmt_time(t, sizeof(t), v->ts), v->ts);
	if (v->nr_history) {
		fprintf(f, "  the slab's last %u events before it:\n", v->nr_history);
		for (uint32_t i = 0; i < v->nr_history; i++) {
			fputs("    ", f);
			slub_fmt_record_text(f, &v->history[i], v->cache_name);
		}
	}
	if (v->event) {
		fputs("  offending event:\n    ", f);
		slub_fmt_record_text(f, v->event, v->cache_name);
	}
	if (stack_nr)
		print_stack(f, v, stack, stack_nr, sym);
	fputc('\n', f);
}

static void verdict_tail(FILE *f, const struct slub_model_summary *s);

void slub_fmt_verdict(FILE *f, const struct slub_model_summary *s)
{
	fprintf(f, "verdict: %s: %" PRIu64 " events, %" PRIu64 " slabs, %" PRIu64
		" violations, %" PRIu64 " gaps",
		s->violations ? "VIOLATIONS" : "clean", s->events, s->slabs, s->violations,
		s->gaps);
	verdict_tail(f, s);
}

void slub_fmt_verdict_filtered(FILE *f, const struct slub_model_summary *s, const char *scope,
			       uint64_t events, uint64_t violations)
{
	fprintf(f, "the whole trace, which the model judged: %" PRIu64 " events, %" PRIu64
		" slabs, %" PRIu64 " violations\n", s->events, s->slabs, s->violations);
	fprintf(f, "verdict%s: %s: %" PRIu64 " events, %" PRIu64 " violations, %" PRIu64 " gaps",
		scope, violations ? "VIOLATIONS" : events ? "clean" : "no event", events,
		violations, s->gaps);
	verdict_tail(f, s);
}

static void verdict_tail(FILE *f, const struct slub_model_summary *s)
{
	unsigned printed = 0;

	if (s->gaps && s->events_discarded)
		fprintf(f, " (%" PRIu64 " events discarded, %" PRIu64 " slabs resynchronised)",
			s->events_discarded, s->slabs_resynced);
	/* record's statedump channel: a registration may be among them */
	if (s->gaps && s->foreign_discarded)
		fprintf(f, " (%" PRIu64 " of LTTng-UST's own events discarded, no slub event "
			"among them)", s->foreign_discarded);
	if (s->reorder_exceeded)
		fprintf(f, ", reorder window exceeded %" PRIu64 " times", s->reorder_exceeded);
	if (s->cut_gaps)
		fprintf(f, ", %" PRIu64 " seq gap%s within %" PRIu64 " ms of the window's edges "
			"not judged", s->cut_gaps, s->cut_gaps == 1 ? "" : "s",
			(s->cut_lag_ns + 999999) / 1000000);
	fputs(", skipped rules: ", f);
	for (unsigned r = 0; r < slub_rule_count() && r < 64; r++) {
		if (s->skipped_rules & (1ull << r))
			fprintf(f, "%s%s", printed++ ? "," : "", slub_rule_id(r));
	}
	fprintf(f, "%s\n", printed ? "" : "none");
}

/*
 * slabinfo_walk is no slab transition: the timeline prints it as what the
 * reader's list_lock hold did, in the trace's order (it goes to no slab's
 * history).
 */
void slub_fmt_walk_text(FILE *f, const struct slub_model_event *e, const char *cache)
{
	const struct slub_event *ev = &e->ev;
	char t[32];

	fprintf(f, "%s %" PRIu32 "/%-7" PRIu32 " cpu %-5d %-17s %s lock %u (node %d) seq %" PRIu64
		": walked %u of %u partial slabs%s, %" PRIu64 " free objects\n",
		slub_fmt_time(t, sizeof(t), e->ts), e->vpid, e->vtid, ev->cpu,
		slub_event_name(ev->type), cache ? cache : "?", ev->lock_id, ev->node, ev->lock_seq,
		ev->count, ev->pages, ev->count < ev->pages ? " (extrapolated)" : "", ev->size);
}

void slub_fmt_walk_json(FILE *f, const struct slub_model_event *e, const char *cache)
{
	const struct slub_event *ev = &e->ev;
	struct line l = { .n = 0 };

	put_lit(&l, "{\"ts\":");
	put_u(&l, e->ts);
	put_lit(&l, ",\"vpid\":");
	put_u(&l, e->vpid);
	put_lit(&l, ",\"vtid\":");
	put_u(&l, e->vtid);
	put_lit(&l, ",\"cpu\":");
	put_i(&l, ev->cpu);
	put_lit(&l, ",\"event\":\"");
	put_str(&l, slub_event_name(ev->type));
	put_lit(&l, "\"");
	put_cache_node(&l, ev->cache_id, cache, ev->node);
	put_lit(&l, ",\"lock_id\":");
	put_u(&l, ev->lock_id);
	put_lit(&l, ",\"lock_seq\":");
	put_u(&l, ev->lock_seq);
	put_lit(&l, ",\"walked\":");
	put_u(&l, ev->count);
	put_lit(&l, ",\"listed\":");
	put_u(&l, ev->pages);
	put_lit(&l, ",\"free\":");
	put_u(&l, ev->size);
	put_lit(&l, "}\n");
	fwrite(l.b, 1, l.n, f);
}
