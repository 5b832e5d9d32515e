/* SPDX-License-Identifier: MIT */
/* JSON strings through jansson: see slub_json.h. */
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <jansson.h>

#include "slub_json.h"

/* jansson refuses a string that is not UTF-8; a trace's name may not be. */
static json_t *string_value(const char *s)
{
	json_t *v = json_string(s);
	char *valid;

	if (v)
		return v;
	valid = g_utf8_make_valid(s, -1);
	v = json_string(valid);
	g_free(valid);
	return v;
}

bool slub_json_plain(const char *s, bool script)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\' ||
		    (script && (c == '<' || c == '>' || c == '&')))
			return false;
	}
	return true;
}

char *slub_json_quote(const char *s, bool script)
{
	json_t *v;
	char *out, *safe;
	size_t n = 0;

	/* Most names need no escape: the string itself, quoted, is what
	 * jansson would write (measured: a JSON timeline line each time
	 * through jansson cost 15 % more instructions). */
	if (slub_json_plain(s, script)) {
		size_t len = s ? strlen(s) : 0;

		out = malloc(len + 3);
		if (out) {
			out[0] = '"';
			memcpy(out + 1, s ? s : "", len);
			out[len + 1] = '"';
			out[len + 2] = '\0';
		}
		return out;
	}
	v = string_value(s ? s : "");
	if (!v)
		return NULL;
	out = json_dumps(v, JSON_ENCODE_ANY);
	json_decref(v);
	if (!out || !script)
		return out;
	for (const char *p = out; *p; p++)
		n += *p == '<' || *p == '>' || *p == '&';
	if (!n)
		return out;
	/* Outside of the quotes jansson writes none of the three, so each
	 * is a character of the string and may be written as \u00XX. */
	safe = malloc(strlen(out) + n * 5 + 1);
	if (safe) {
		char *q = safe;

		for (const char *p = out; *p; p++) {
			if (*p == '<' || *p == '>' || *p == '&')
				q += sprintf(q, "\\u%04x", (unsigned)*p);
			else
				*q++ = *p;
		}
		*q = '\0';
	}
	free(out);
	return safe;
}

static int put(FILE *f, const char *s, bool script)
{
	char *q = slub_json_quote(s, script);

	if (!q)
		return -1;
	fputs(q, f);
	free(q);
	return 0;
}

int slub_json_put(FILE *f, const char *s)
{
	return put(f, s, false);
}

int slub_json_put_script(FILE *f, const char *s)
{
	return put(f, s, true);
}
