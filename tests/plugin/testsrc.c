/* SPDX-License-Identifier: MIT */
/*
 * The scripted source component (testsrc.h): one trace, one stream with a
 * nanosecond clock, no packets, discarded events with clock snapshots (and
 * a second stream of its own class when the script has aux classes).
 */
#include <stdlib.h>
#include <string.h>

#include "testsrc.h"

struct ts_iter {
	const struct ts_script *script;
	bt_trace *trace;
	bt_stream *stream;
	bt_packet *packet;
	bt_event_class **ecs;
	bt_stream *aux;
	bt_event_class **aux_ecs;
	int pos;	/* -1: stream beginning to send; nr_items: stream end */
	int packet_ended;
	int done;
};

static bt_component_class_initialize_method_status
src_init(bt_self_component_source *self, bt_self_component_source_configuration *config,
	 const bt_value *params, void *init_data)
{
	bt_self_component_set_data(bt_self_component_source_as_self_component(self), init_data);
	if (bt_self_component_source_add_output_port(self, "out", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_field_class *field_class(bt_trace_class *tc, enum tf_type t, unsigned len)
{
	bt_field_class *fc = NULL;

	switch (t) {
	case TF_U8: case TF_U16: case TF_U32: case TF_U64:
		fc = bt_field_class_integer_unsigned_create(tc);
		bt_field_class_integer_set_field_value_range(fc, t == TF_U8 ? 8 : t == TF_U16 ? 16 :
							     t == TF_U32 ? 32 : 64);
		break;
	case TF_I16: case TF_I32:
		fc = bt_field_class_integer_signed_create(tc);
		bt_field_class_integer_set_field_value_range(fc, t == TF_I16 ? 16 : 32);
		break;
	case TF_STR:
		fc = bt_field_class_string_create(tc);
		break;
	case TF_SEQ64: {
		bt_field_class *el = bt_field_class_integer_unsigned_create(tc);

		fc = bt_field_class_array_dynamic_create(tc, el, NULL);
		bt_field_class_put_ref(el);
		break;
	}
	case TF_ARR32: case TF_ARR64: {
		bt_field_class *el = bt_field_class_integer_unsigned_create(tc);

		bt_field_class_integer_set_field_value_range(el, t == TF_ARR32 ? 32 : 64);
		fc = bt_field_class_array_static_create(tc, el, len);
		bt_field_class_put_ref(el);
		break;
	}
	}
	return fc;
}

static void append(bt_field_class *st, const char *name, bt_field_class *fc)
{
	bt_field_class_structure_append_member(st, name, fc);
	bt_field_class_put_ref(fc);
}

static void common_context(bt_trace_class *tc, bt_stream_class *sc, const struct ts_script *s)
{
	bt_field_class *ctx;

	if (s->no_context)
		return;
	ctx = bt_field_class_structure_create(tc);
	append(ctx, "vpid", field_class(tc, TF_I32, 0));
	append(ctx, "vtid", field_class(tc, TF_I32, 0));
	if (!s->no_procname)
		append(ctx, "procname", field_class(tc, TF_STR, 0));
	bt_stream_class_set_event_common_context_field_class(sc, ctx);
	bt_field_class_put_ref(ctx);
}

static bt_event_class **event_classes(bt_trace_class *tc, bt_stream_class *sc,
				      const struct ts_class *classes, int nr)
{
	bt_event_class **ecs = calloc((size_t)nr, sizeof(*ecs));

	for (int i = 0; i < nr; i++) {
		bt_field_class *p = bt_field_class_structure_create(tc);

		ecs[i] = bt_event_class_create(sc);
		bt_event_class_set_name(ecs[i], classes[i].name);
		for (int f = 0; f < TS_MAX_FIELDS && classes[i].fields[f].name; f++)
			append(p, classes[i].fields[f].name,
			       field_class(tc, classes[i].fields[f].type, classes[i].fields[f].len));
		bt_event_class_set_payload_field_class(ecs[i], p);
		bt_field_class_put_ref(p);
	}
	return ecs;
}

static bt_message_iterator_class_initialize_method_status
iter_init(bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
	  bt_self_component_port_output *port)
{
	bt_self_component *comp = bt_self_message_iterator_borrow_component(self);
	const struct ts_script *s = bt_self_component_get_data(comp);
	struct ts_iter *it = calloc(1, sizeof(*it));
	bt_trace_class *tc = bt_trace_class_create(comp);
	bt_stream_class *sc = bt_stream_class_create(tc);
	bt_clock_class *cc = bt_clock_class_create(comp);

	it->script = s;
	it->pos = -1;
	bt_stream_class_set_default_clock_class(sc, cc);
	if (s->packets)
		bt_stream_class_set_supports_packets(sc, BT_TRUE, BT_TRUE, BT_TRUE);
	if (s->lost_packets) {
		bt_stream_class_set_supports_discarded_events(sc, BT_TRUE, BT_TRUE);
		bt_stream_class_set_supports_discarded_packets(sc, BT_TRUE, BT_FALSE);
	} else if (!s->packets)
		bt_stream_class_set_supports_discarded_events(sc, BT_TRUE, BT_TRUE);
	common_context(tc, sc, s);
	it->ecs = event_classes(tc, sc, s->classes, s->nr_classes);
	if (s->nr_aux_classes) {
		bt_stream_class *aux = bt_stream_class_create(tc);

		bt_stream_class_set_default_clock_class(aux, cc);
		bt_stream_class_set_supports_discarded_events(aux, BT_TRUE, BT_TRUE);
		common_context(tc, aux, s);
		it->aux_ecs = event_classes(tc, aux, s->aux_classes, s->nr_aux_classes);
		it->trace = bt_trace_create(tc);
		it->aux = bt_stream_create(aux, it->trace);
		bt_stream_set_name(it->aux, "aux");
		bt_stream_class_put_ref(aux);
	} else {
		it->trace = bt_trace_create(tc);
	}
	if (s->hostname)
		bt_trace_set_environment_entry_string(it->trace, "hostname", s->hostname);
	it->stream = bt_stream_create(sc, it->trace);
	if (s->stream_name)
		bt_stream_set_name(it->stream, s->stream_name);
	if (s->packets)
		it->packet = bt_packet_create(it->stream);
	bt_clock_class_put_ref(cc);
	bt_stream_class_put_ref(sc);
	bt_trace_class_put_ref(tc);
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void iter_fini(bt_self_message_iterator *self)
{
	struct ts_iter *it = bt_self_message_iterator_get_data(self);

	for (int i = 0; i < it->script->nr_classes; i++)
		bt_event_class_put_ref(it->ecs[i]);
	free(it->ecs);
	for (int i = 0; i < it->script->nr_aux_classes; i++)
		bt_event_class_put_ref(it->aux_ecs[i]);
	free(it->aux_ecs);
	bt_stream_put_ref(it->aux);
	bt_packet_put_ref(it->packet);
	bt_stream_put_ref(it->stream);
	bt_trace_put_ref(it->trace);
	free(it);
}

static bt_message *make_event(bt_self_message_iterator *self, struct ts_iter *it,
			      const struct ts_item *item)
{
	const struct ts_class *c = item->aux ? &it->script->aux_classes[item->cls] :
		&it->script->classes[item->cls];
	bt_message *m = item->aux ?
		bt_message_event_create_with_default_clock_snapshot(self,
			it->aux_ecs[item->cls], it->aux, item->ts) :
		it->packet ?
		bt_message_event_create_with_packet_and_default_clock_snapshot(self,
			it->ecs[item->cls], it->packet, item->ts) :
		bt_message_event_create_with_default_clock_snapshot(self,
			it->ecs[item->cls], it->stream, item->ts);
	bt_event *e = bt_message_event_borrow_event(m);
	bt_field *p = bt_event_borrow_payload_field(e);

	if (!it->script->no_context) {
		bt_field *ctx = bt_event_borrow_common_context_field(e);

		bt_field_integer_signed_set_value(
			bt_field_structure_borrow_member_field_by_index(ctx, 0), item->vpid);
		bt_field_integer_signed_set_value(
			bt_field_structure_borrow_member_field_by_index(ctx, 1), item->vtid);
		if (!it->script->no_procname)
			bt_field_string_set_value(
				bt_field_structure_borrow_member_field_by_index(ctx, 2),
				item->procname ? item->procname : "testproc");
	}
	for (int f = 0; f < TS_MAX_FIELDS && c->fields[f].name; f++) {
		bt_field *x = bt_field_structure_borrow_member_field_by_index(p, (uint64_t)f);

		switch (c->fields[f].type) {
		case TF_STR:
			bt_field_string_set_value(x, (const char *)(uintptr_t)item->v[f]);
			break;
		case TF_I16: case TF_I32:
			bt_field_integer_signed_set_value(x, (int64_t)item->v[f]);
			break;
		case TF_SEQ64: {
			const uint64_t *seq = (const uint64_t *)(uintptr_t)item->v[f];

			bt_field_array_dynamic_set_length(x, seq[0]);
			for (uint64_t i = 0; i < seq[0]; i++)
				bt_field_integer_unsigned_set_value(
					bt_field_array_borrow_element_field_by_index(x, i), seq[i + 1]);
			break;
		}
		case TF_ARR32: case TF_ARR64: {
			const uint64_t *a = (const uint64_t *)(uintptr_t)item->v[f];

			for (unsigned i = 0; i < c->fields[f].len; i++)
				bt_field_integer_unsigned_set_value(
					bt_field_array_borrow_element_field_by_index(x, i), a[i]);
			break;
		}
		default:
			bt_field_integer_unsigned_set_value(x, item->v[f]);
		}
	}
	return m;
}

static bt_message_iterator_class_next_method_status
iter_next(bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
	  uint64_t *count)
{
	struct ts_iter *it = bt_self_message_iterator_get_data(self);
	const struct ts_script *s = it->script;
	uint64_t n = 0;

	if (it->done)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	while (n < capacity && !it->done) {
		if (it->pos == -1) {
			msgs[n++] = bt_message_stream_beginning_create(self, it->stream);
			/* Babeltrace asks for batches of more than two. */
			if (it->packet)
				msgs[n++] = bt_message_packet_beginning_create_with_default_clock_snapshot(
					self, it->packet, s->nr_items ? s->items[0].ts : 0);
			if (it->aux)
				msgs[n++] = bt_message_stream_beginning_create(self, it->aux);
		} else if (it->pos == s->nr_items) {
			if (it->packet && !it->packet_ended) {
				msgs[n++] = bt_message_packet_end_create_with_default_clock_snapshot(
					self, it->packet, s->nr_items ? s->items[s->nr_items - 1].ts : 0);
				it->packet_ended = 1;
				continue;
			}
			msgs[n++] = bt_message_stream_end_create(self, it->stream);
			if (it->aux)
				msgs[n++] = bt_message_stream_end_create(self, it->aux);
			it->done = 1;
		} else if (s->items[it->pos].discard == 2) {
			msgs[n++] = bt_message_discarded_packets_create(self, it->stream);
		} else if (s->items[it->pos].discard) {
			const struct ts_item *i = &s->items[it->pos];
			bt_message *m = bt_message_discarded_events_create_with_default_clock_snapshots(
				self, i->aux ? it->aux : it->stream, i->discard_begin, i->ts);

			bt_message_discarded_events_set_count(m, i->discard_count);
			msgs[n++] = m;
		} else {
			msgs[n++] = make_event(self, it, &s->items[it->pos]);
		}
		it->pos++;
	}
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

bt_component_class_source *testsrc_class(void)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(iter_next);
	bt_component_class_source *cls;

	bt_message_iterator_class_set_initialize_method(ic, iter_init);
	bt_message_iterator_class_set_finalize_method(ic, iter_fini);
	cls = bt_component_class_source_create("slub-test", ic);
	bt_component_class_source_set_initialize_method(cls, src_init);
	bt_message_iterator_class_put_ref(ic);
	return cls;
}
