/* SPDX-License-Identifier: MIT */
/*
 * How sink.slub.check and sink.slub.timeline write: one place for the text
 * and JSON forms of a transition, a violation and the verdict, so that the
 * README documents one format and the golden tests pin it.
 */
#ifndef SLUB_PLUGIN_FORMAT_H
#define SLUB_PLUGIN_FORMAT_H

#include <stdio.h>

#include "model/slub_model.h"

struct slub_symbolizer;

/* "HH:MM:SS.nnnnnnnnn" (UTC) of a time in ns from the clock's origin. */
const char *slub_fmt_time(char *buf, size_t len, uint64_t ts);

/* One transition, one line (README: "sink.slub.timeline, text"). */
void slub_fmt_record_text(FILE *f, const struct slub_model_record *r, const char *cache);
/* One transition, one JSON object on one line (README: the schema). */
void slub_fmt_record_json(FILE *f, const struct slub_model_record *r, const char *cache);

/* slabinfo_walk, what a list_lock hold did (not a slab transition): one
 * line, text or JSON (README: the schema). */
void slub_fmt_walk_text(FILE *f, const struct slub_model_event *e, const char *cache);
void slub_fmt_walk_json(FILE *f, const struct slub_model_event *e, const char *cache);

/* A violation report: rule, slab, threads, time, history, stack. */
void slub_fmt_violation(FILE *f, unsigned nr, const struct slub_model_violation *v,
			const uint64_t *stack, uint32_t stack_nr, struct slub_symbolizer *sym);

/* The one-line verdict, check's last line. */
void slub_fmt_verdict(FILE *f, const struct slub_model_summary *s);
/*
 * The verdict on what a filter reports (scope: " (cache NAME only)"...):
 * its events and violations, after a line with the whole trace's figures
 * (the model judged every event).
 */
void slub_fmt_verdict_filtered(FILE *f, const struct slub_model_summary *s, const char *scope,
			       uint64_t events, uint64_t violations);

#endif /* SLUB_PLUGIN_FORMAT_H */
