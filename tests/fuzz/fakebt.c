/* SPDX-License-Identifier: MIT */
/*
 * libbabeltrace2's accessors over plain structures, with their documented
 * preconditions checked (fakebt.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fakebt.h"

static __attribute__((noreturn)) void broken(const char *fn, const char *pre)
{
	fprintf(stderr, "fakebt: %s: precondition broken: %s\n", fn, pre);
	abort();
}

#define PRE(cond, pre)						\
	do {							\
		if (!(cond))					\
			broken(__func__, pre);			\
	} while (0)

static int is(bt_field_class_type t, bt_field_class_type what)
{
	return (t & what) == what;
}

/* ---- construction (the fuzz target's side) ---- */

struct bt_field *fakebt_field_new(const struct bt_field_class *fc)
{
	struct bt_field *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	f->fc = fc;
	if (fc->type == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		f->nr = fc->nr_members;
		f->sub = calloc(f->nr ? f->nr : 1, sizeof(*f->sub));
		for (uint64_t i = 0; i < f->nr; i++) {
			struct bt_field *m = fakebt_field_new(fc->members[i].fc);

			f->sub[i] = *m;
			free(m);
		}
	} else if (fc->type == BT_FIELD_CLASS_TYPE_STATIC_ARRAY) {
		f->nr = fc->static_len;
		f->sub = calloc(f->nr ? f->nr : 1, sizeof(*f->sub));
		for (uint64_t i = 0; i < f->nr; i++)
			f->sub[i].fc = fc->elem;
	}
	return f;
}

static void field_fini(struct bt_field *f)
{
	for (uint64_t i = 0; i < f->nr; i++)
		field_fini(&f->sub[i]);
	free(f->sub);
	free(f->str);
}

void fakebt_field_free(struct bt_field *f)
{
	if (!f)
		return;
	field_fini(f);
	free(f);
}

void fakebt_field_class_free(struct bt_field_class *fc)
{
	if (!fc)
		return;
	for (uint64_t i = 0; i < fc->nr_members; i++) {
		free(fc->members[i].name);
		fakebt_field_class_free(fc->members[i].fc);
	}
	free(fc->members);
	fakebt_field_class_free(fc->elem);
	free(fc);
}

/* ---- field classes ---- */

bt_field_class_type bt_field_class_get_type(const bt_field_class *fc)
{
	PRE(fc, "field class not NULL");
	return fc->type;
}

uint64_t bt_field_class_structure_get_member_count(const bt_field_class *fc)
{
	PRE(fc && fc->type == BT_FIELD_CLASS_TYPE_STRUCTURE, "a structure field class");
	return fc->nr_members;
}

const bt_field_class_structure_member *
bt_field_class_structure_borrow_member_by_index_const(const bt_field_class *fc, uint64_t i)
{
	PRE(fc && fc->type == BT_FIELD_CLASS_TYPE_STRUCTURE, "a structure field class");
	PRE(i < fc->nr_members, "index below the member count");
	return &fc->members[i];
}

const char *bt_field_class_structure_member_get_name(const bt_field_class_structure_member *m)
{
	PRE(m, "member not NULL");
	return m->name;
}

const bt_field_class *
bt_field_class_structure_member_borrow_field_class_const(const bt_field_class_structure_member *m)
{
	PRE(m, "member not NULL");
	return m->fc;
}

const bt_field_class *bt_field_class_array_borrow_element_field_class_const(const bt_field_class *fc)
{
	PRE(fc && is(fc->type, BT_FIELD_CLASS_TYPE_ARRAY), "an array field class");
	return fc->elem;
}

uint64_t bt_field_class_array_static_get_length(const bt_field_class *fc)
{
	PRE(fc && fc->type == BT_FIELD_CLASS_TYPE_STATIC_ARRAY, "a static array field class");
	return fc->static_len;
}

/* ---- fields ---- */

const bt_field *bt_field_structure_borrow_member_field_by_index_const(const bt_field *f,
								      uint64_t i)
{
	PRE(f && f->fc->type == BT_FIELD_CLASS_TYPE_STRUCTURE, "a structure field");
	PRE(i < f->nr, "index below the member count");
	return &f->sub[i];
}

uint64_t bt_field_array_get_length(const bt_field *f)
{
	PRE(f && is(f->fc->type, BT_FIELD_CLASS_TYPE_ARRAY), "an array field");
	return f->nr;
}

const bt_field *bt_field_array_borrow_element_field_by_index_const(const bt_field *f, uint64_t i)
{
	PRE(f && is(f->fc->type, BT_FIELD_CLASS_TYPE_ARRAY), "an array field");
	PRE(i < f->nr, "index below the array's length");
	return &f->sub[i];
}

uint64_t bt_field_integer_unsigned_get_value(const bt_field *f)
{
	PRE(f && is(f->fc->type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER),
	    "an unsigned integer field");
	return f->u;
}

int64_t bt_field_integer_signed_get_value(const bt_field *f)
{
	PRE(f && is(f->fc->type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER), "a signed integer field");
	return (int64_t)f->u;
}

const char *bt_field_string_get_value(const bt_field *f)
{
	PRE(f && f->fc->type == BT_FIELD_CLASS_TYPE_STRING, "a string field");
	return f->str ? f->str : "";
}

/* ---- streams, event classes, events ---- */

const char *bt_stream_get_name(const bt_stream *s)
{
	PRE(s, "stream not NULL");
	return s->name;
}

uint64_t bt_stream_get_id(const bt_stream *s)
{
	PRE(s, "stream not NULL");
	return s->id;
}

const bt_stream_class *bt_stream_borrow_class_const(const bt_stream *s)
{
	PRE(s, "stream not NULL");
	return s->sc;
}

/* One trace and one trace class for every stream: the fake never destroys
 * them, so their destruction listeners are only recorded and removed. */
struct bt_trace_class {
	int unused;
};
static const struct bt_trace the_trace;
static const struct bt_trace_class the_trace_class;
static unsigned listeners;

const bt_trace *bt_stream_borrow_trace_const(const bt_stream *s)
{
	PRE(s, "stream not NULL");
	return &the_trace;
}

const bt_trace_class *bt_stream_class_borrow_trace_class_const(const bt_stream_class *sc)
{
	PRE(sc, "stream class not NULL");
	return &the_trace_class;
}

bt_trace_add_listener_status bt_trace_add_destruction_listener(const bt_trace *t,
		bt_trace_destruction_listener_func f, void *data, bt_listener_id *id)
{
	PRE(t && f && id, "trace, function and id not NULL");
	(void)data;
	*id = listeners++;
	return BT_TRACE_ADD_LISTENER_STATUS_OK;
}

bt_trace_remove_listener_status bt_trace_remove_destruction_listener(const bt_trace *t,
		bt_listener_id id)
{
	PRE(t && id < listeners, "trace not NULL, a listener it has");
	return BT_TRACE_REMOVE_LISTENER_STATUS_OK;
}

bt_trace_class_add_listener_status bt_trace_class_add_destruction_listener(
		const bt_trace_class *tc, bt_trace_class_destruction_listener_func f, void *data,
		bt_listener_id *id)
{
	PRE(tc && f && id, "trace class, function and id not NULL");
	(void)data;
	*id = listeners++;
	return BT_TRACE_CLASS_ADD_LISTENER_STATUS_OK;
}

bt_trace_class_remove_listener_status bt_trace_class_remove_destruction_listener(
		const bt_trace_class *tc, bt_listener_id id)
{
	PRE(tc && id < listeners, "trace class not NULL, a listener it has");
	return BT_TRACE_CLASS_REMOVE_LISTENER_STATUS_OK;
}

/* The fake stream classes list no event classes: the decoder learns of
 * them from the events (an input without events is not a slub trace). */
uint64_t bt_stream_class_get_event_class_count(const bt_stream_class *sc)
{
	PRE(sc, "stream class not NULL");
	return 0;
}

const bt_event_class *bt_stream_class_borrow_event_class_by_index_const(const bt_stream_class *sc,
									 uint64_t index)
{
	PRE(sc && index < bt_stream_class_get_event_class_count(sc),
	    "stream class not NULL, index in range");
	return NULL;
}

const bt_value *bt_trace_borrow_environment_entry_value_by_name_const(const bt_trace *t,
								     const char *name)
{
	PRE(t && name, "trace and name not NULL");
	return NULL;
}

bt_value_type bt_value_get_type(const bt_value *v)
{
	(void)v;
	broken(__func__, "no value exists here");
}

const char *bt_value_string_get(const bt_value *v)
{
	(void)v;
	broken(__func__, "no value exists here");
}

const bt_clock_class *bt_stream_class_borrow_default_clock_class_const(const bt_stream_class *sc)
{
	PRE(sc, "stream class not NULL");
	return sc->has_clock ? &sc->clock : NULL;
}

bt_bool bt_stream_class_discarded_events_have_default_clock_snapshots(const bt_stream_class *sc)
{
	PRE(sc, "stream class not NULL");
	return sc->disc_ev && sc->disc_ev_clock;
}

bt_bool bt_stream_class_discarded_packets_have_default_clock_snapshots(const bt_stream_class *sc)
{
	PRE(sc, "stream class not NULL");
	return sc->disc_pk && sc->disc_pk_clock;
}

const bt_field_class *
bt_stream_class_borrow_event_common_context_field_class_const(const bt_stream_class *sc)
{
	PRE(sc, "stream class not NULL");
	return sc->ctx;
}

const char *bt_event_class_get_name(const bt_event_class *ec)
{
	PRE(ec, "event class not NULL");
	return ec->name;
}

const bt_stream_class *bt_event_class_borrow_stream_class_const(const bt_event_class *ec)
{
	PRE(ec, "event class not NULL");
	return ec->sc;
}

const bt_field_class *bt_event_class_borrow_payload_field_class_const(const bt_event_class *ec)
{
	PRE(ec, "event class not NULL");
	return ec->payload;
}

const bt_event_class *bt_event_borrow_class_const(const bt_event *e)
{
	PRE(e, "event not NULL");
	return e->ec;
}

const bt_stream *bt_event_borrow_stream_const(const bt_event *e)
{
	PRE(e, "event not NULL");
	return e->stream;
}

const bt_field *bt_event_borrow_common_context_field_const(const bt_event *e)
{
	PRE(e, "event not NULL");
	return e->ctx;
}

const bt_field *bt_event_borrow_payload_field_const(const bt_event *e)
{
	PRE(e, "event not NULL");
	return e->payload;
}

/* ---- messages ---- */

bt_message_type bt_message_get_type(const bt_message *m)
{
	PRE(m, "message not NULL");
	return m->type;
}

const bt_event *bt_message_event_borrow_event_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_EVENT, "an event message");
	return &m->event;
}

const bt_clock_snapshot *bt_message_event_borrow_default_clock_snapshot_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_EVENT, "an event message");
	PRE(m->event.stream->sc->has_clock, "the stream class has a default clock class");
	return &m->cs;
}

const bt_stream *bt_message_stream_beginning_borrow_stream_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_STREAM_BEGINNING, "a stream beginning message");
	return m->stream;
}

const bt_stream *bt_message_discarded_events_borrow_stream_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS, "a discarded events message");
	return m->stream;
}

const bt_stream *bt_message_discarded_packets_borrow_stream_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_DISCARDED_PACKETS, "a discarded packets message");
	return m->stream;
}

bt_property_availability bt_message_discarded_events_get_count(const bt_message *m,
							       uint64_t *count)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS, "a discarded events message");
	PRE(count, "count not NULL");
	*count = m->count;
	return m->count_known ? BT_PROPERTY_AVAILABILITY_AVAILABLE :
		BT_PROPERTY_AVAILABILITY_NOT_AVAILABLE;
}

const bt_clock_snapshot *
bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS, "a discarded events message");
	PRE(bt_stream_class_discarded_events_have_default_clock_snapshots(m->stream->sc),
	    "the stream class's discarded events have default clock snapshots");
	return &m->cs;
}

const bt_clock_snapshot *
bt_message_discarded_events_borrow_end_default_clock_snapshot_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS, "a discarded events message");
	PRE(bt_stream_class_discarded_events_have_default_clock_snapshots(m->stream->sc),
	    "the stream class's discarded events have default clock snapshots");
	return &m->cs_end;
}

const bt_clock_snapshot *
bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_DISCARDED_PACKETS, "a discarded packets message");
	PRE(bt_stream_class_discarded_packets_have_default_clock_snapshots(m->stream->sc),
	    "the stream class's discarded packets have default clock snapshots");
	return &m->cs;
}

const bt_clock_snapshot *
bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(const bt_message *m)
{
	PRE(m && m->type == BT_MESSAGE_TYPE_DISCARDED_PACKETS, "a discarded packets message");
	PRE(bt_stream_class_discarded_packets_have_default_clock_snapshots(m->stream->sc),
	    "the stream class's discarded packets have default clock snapshots");
	return &m->cs_end;
}

bt_clock_snapshot_get_ns_from_origin_status
bt_clock_snapshot_get_ns_from_origin(const bt_clock_snapshot *cs, int64_t *ns)
{
	PRE(cs, "clock snapshot not NULL");
	PRE(ns, "ns not NULL");
	if (cs->overflows)
		return BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OVERFLOW_ERROR;
	*ns = cs->ns;
	return BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK;
}

/* The decoder appends causes only with a component, which it has not here. */
bt_current_thread_error_append_cause_status
bt_current_thread_error_append_cause_from_component(bt_self_component *self, const char *file,
						    uint64_t line, const char *fmt, ...)
{
	(void)self, (void)file, (void)line, (void)fmt;
	broken(__func__, "no component given to the decoder");
}
