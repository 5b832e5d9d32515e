/* SPDX-License-Identifier: MIT */
/*
 * JSON strings as every slubtrace writer emits them (stats, timeline,
 * chrome, report, compare): escaped by jansson, so there is one escaping
 * rule.  Names come from traces, which may hold bytes that are not UTF-8;
 * those are replaced by U+FFFD rather than refused.
 */
#ifndef SLUB_JSON_H
#define SLUB_JSON_H

#include <stdbool.h>
#include <stdio.h>

/* s (NULL: "") as a JSON string, quotes included, in a buffer to free();
 * NULL without memory.  script: also '<', '>' and '&' as \u escapes, so
 * that the text is safe inside an HTML <script> element. */
char *slub_json_quote(const char *s, bool script);
/* s is printable ASCII that jansson writes unchanged (no quote, backslash
 * or control character; with script, no '<', '>' or '&'): the callers on
 * a hot path write it between quotes themselves. */
bool slub_json_plain(const char *s, bool script);
/* The same written to f; -1 without memory (nothing written), else 0. */
int slub_json_put(FILE *f, const char *s);
int slub_json_put_script(FILE *f, const char *s);

#endif /* SLUB_JSON_H */
