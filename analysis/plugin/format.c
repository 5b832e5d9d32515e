/* SPDX-License-Identifier: MIT */
/*
 * Text and JSON forms of transitions, violations and the verdict.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "symbolize.h"

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
	else if (owner == -2)
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

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void slub_fmt_record_json(FILE *f, const struct slub_model_record *r, const char *cache)
{
	char site[64];

	fprintf(f, "{\"ts\":%" PRIu64 ",\"vpid\":%" PRIu32 ",\"vtid\":%" PRIu32
		",\"cpu\":%d,\"slot\":%d,\"event\":\"%s\",\"site\":\"%s\",\"slab\":\"0x%" PRIx64
		"\",\"cache_id\":%" PRIu32 ",\"cache\":",
		r->ts, r->vpid, r->vtid, r->cpu, r->slot, slub_event_name(r->type),
		site_of(r, site, sizeof(site)), r->slab, r->cache_id);
	if (cache)
		json_string(f, cache);
	else
		fputs("null", f);
	fprintf(f, ",\"node\":%d,\"before\":\"%s\",\"after\":\"%s\",\"list\":\"%s\",\"owner\":%d"
		",\"inuse\":%u,\"objects\":%u,\"frozen\":%u,\"seq\":%u,\"freelist\":\"0x%" PRIx64
		"\",\"lock_seq\":%" PRIu64 "}\n",
		r->node, slub_state_name(r->before), slub_state_name(r->after),
		slub_model_list_name(r->list), r->owner, r->inuse, r->objects, r->frozen, r->seq,
		r->freelist, r->lock_seq);
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

void slub_fmt_verdict(FILE *f, const struct slub_model_summary *s)
{
	unsigned printed = 0;

	fprintf(f, "verdict: %s: %" PRIu64 " events, %" PRIu64 " slabs, %" PRIu64
		" violations, %" PRIu64 " gaps",
		s->violations ? "VIOLATIONS" : "clean", s->events, s->slabs, s->violations,
		s->gaps);
	if (s->gaps && s->events_discarded)
		fprintf(f, " (%" PRIu64 " events discarded, %" PRIu64 " slabs resynchronised)",
			s->events_discarded, s->slabs_resynced);
	if (s->reorder_exceeded)
		fprintf(f, ", reorder window exceeded %" PRIu64 " times", s->reorder_exceeded);
	fputs(", skipped rules: ", f);
	for (unsigned r = 0; r < slub_rule_count() && r < 64; r++) {
		if (s->skipped_rules & (1ull << r))
			fprintf(f, "%s%s", printed++ ? "," : "", slub_rule_id(r));
	}
	fprintf(f, "%s\n", printed ? "" : "none");
}
