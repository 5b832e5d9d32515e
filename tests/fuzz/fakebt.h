/* SPDX-License-Identifier: MIT */
/*
 * The part of libbabeltrace2's trace IR and message API the decoder
 * (analysis/plugin/decode.c) calls, implemented over plain structures so
 * that a fuzz target can hand the real decoder any event layout and any
 * field values without a graph, a CTF reader or a file.
 *
 * The decoder is compiled against the real <babeltrace2/babeltrace.h> and
 * linked with this file instead of the library.  Every function checks the
 * preconditions Babeltrace 2 documents for it (what its developer mode
 * asserts and its release build leaves undefined: a member index within
 * the structure, an element index within the array, the signed getter on
 * a signed integer, a clock snapshot only where the stream class has one)
 * and aborts naming the broken one, so that libFuzzer reports a misuse
 * as a crash.
 */
#ifndef SLUB_FAKEBT_H
#define SLUB_FAKEBT_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

struct bt_field_class_structure_member {
	char *name;
	struct bt_field_class *fc;
};

struct bt_field_class {
	bt_field_class_type type;
	unsigned bits;			/* integers: value range */
	uint64_t nr_members;		/* structures */
	struct bt_field_class_structure_member *members;
	struct bt_field_class *elem;	/* arrays */
	uint64_t static_len;		/* static arrays */
};

struct bt_field {
	const struct bt_field_class *fc;
	uint64_t u;			/* integers, booleans: the raw value */
	char *str;			/* strings */
	uint64_t nr;			/* structure members, array elements */
	struct bt_field *sub;
};

struct bt_clock_class {
	int dummy;
};

struct bt_stream_class {
	int has_clock;
	int disc_ev, disc_ev_clock;	/* discarded events supported, with snapshots */
	int disc_pk, disc_pk_clock;	/* discarded packets */
	struct bt_field_class *ctx;	/* NULL: no common context */
	struct bt_clock_class clock;
};

/* A trace without environment entries: every stream is of one host. */
struct bt_trace {
	int unused;
};

struct bt_stream {
	const struct bt_stream_class *sc;
	char *name;			/* NULL: unnamed */
	uint64_t id;
};

struct bt_event_class {
	const struct bt_stream_class *sc;
	char *name;			/* NULL: unnamed */
	struct bt_field_class *payload;	/* NULL: no payload */
};

struct bt_event {
	const struct bt_event_class *ec;
	const struct bt_stream *stream;
	struct bt_field *ctx, *payload;
};

struct bt_clock_snapshot {
	int64_t ns;
	int overflows;			/* get_ns_from_origin fails */
};

struct bt_message {
	bt_message_type type;
	struct bt_event event;		/* BT_MESSAGE_TYPE_EVENT */
	const struct bt_stream *stream;	/* every other type */
	struct bt_clock_snapshot cs, cs_end;
	int count_known;
	uint64_t count;
};

/* The fields of class fc, zeroed (arrays of a dynamic length get nr). */
struct bt_field *fakebt_field_new(const struct bt_field_class *fc);
void fakebt_field_free(struct bt_field *f);
void fakebt_field_class_free(struct bt_field_class *fc);

#endif /* SLUB_FAKEBT_H */
