/* SPDX-License-Identifier: MIT */
/*
 * A Babeltrace2 source component made in the test process: it emits the
 * events and discarded-events notices of a script, with the field layout
 * of slubtrace's wire format (or a deliberately wrong one), so that the
 * decoder and the sinks are tested without any file.
 */
#ifndef SLUB_TESTSRC_H
#define SLUB_TESTSRC_H

#include <stdint.h>

#include <babeltrace2/babeltrace.h>

/* TF_SEQ64: a dynamic array of u64; TF_ARR32/64: a static one of len. */
enum tf_type { TF_U8, TF_U16, TF_U32, TF_U64, TF_I16, TF_I32, TF_STR, TF_SEQ64, TF_ARR32,
	       TF_ARR64 };

struct tf_field {
	const char *name;
	enum tf_type type;
	unsigned len;
};

#define TS_MAX_FIELDS 16

/* An event class: its full name and payload layout. */
struct ts_class {
	const char *name;
	struct tf_field fields[TS_MAX_FIELDS];
};

/* One message of the script: an event (class index, values in field order;
 * strings as (uintptr_t) pointers, sequences as a pointer to
 * {n, v0, v1, ...}, static arrays as a pointer to {v0, v1, ...}) or, when
 * discard is set, a discarded-events notice. */
struct ts_item {
	int cls;
	uint64_t ts;
	int32_t vpid, vtid;
	uint64_t v[TS_MAX_FIELDS];
	int discard;
	uint64_t discard_count, discard_begin;
	const char *procname;	/* the procname context; NULL: "testproc" */
	int aux;		/* on the second stream (ts_script.aux_classes) */
};

struct ts_script {
	const struct ts_class *classes;
	int nr_classes;
	const struct ts_item *items;
	int nr_items;
	const char *stream_name;	/* like src.ctf.fs: the stream's file */
	int no_context;			/* leave out vpid/vtid/procname */
	int no_procname;		/* vpid and vtid only (format 9's sessions) */
	int packets;			/* one packet around everything (sink.ctf.fs
					 * needs packets); no discard items then */
	int lost_packets;		/* with packets: discarded events with clock
					 * snapshots, discarded packets without; a
					 * discard item of 2 is lost packets */
	const char *hostname;		/* the trace environment's, NULL: none */
	/* A second stream of a second stream class, as record's channel of
	 * LTTng-UST's own events: its classes (item.cls indexes them for an
	 * aux item); none: one stream.  No packets, discarded events. */
	const struct ts_class *aux_classes;
	int nr_aux_classes;
};

/* The component class; add it with init data = a struct ts_script *. */
bt_component_class_source *testsrc_class(void);

#endif /* SLUB_TESTSRC_H */
