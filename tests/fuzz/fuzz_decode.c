/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the plugin's decoder (analysis/plugin/decode.c) on any
 * layout and any values.  The input describes stream classes, streams,
 * event classes (names, payload and context layouts) and messages built
 * from them (tests/fuzz/README.md, "decode input"); fakebt.c gives the
 * decoder those objects through Babeltrace's own accessors, checking each
 * call's preconditions.  Besides not crashing, every answer must be whole:
 * a refusal has its reason, an event a known type, the strings the model
 * reads exist, the stream ids are the decoder's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "fakebt.h"
#include "fuzzin.h"
#include "symbolize.h"

#define MAX_SC 8
#define MAX_STREAMS 16
#define MAX_EC 64
#define MAX_MEMBERS 24
#define MAX_DEPTH 3
#define MAX_DYN 512

struct input {
	struct fz_reader r;
	struct bt_stream_class sc[MAX_SC];
	int nr_sc;
	struct bt_stream streams[MAX_STREAMS];
	int nr_streams;
	struct bt_event_class ec[MAX_EC];
	int nr_ec;
};

static const char *const extra_field_names[] = {
	"new_seq", "old_seq", "_ips_length", "_build_id_length", "has_build_id",
	"has_debug_link", "vpid", "vtid", "procname", "freelist_off", "slab_fl",
	"where_slab_fl_counters", "where_slab_fl_counters_pid_tid", "pid_tid",
};

/* Names from the input: a literal, a name of the dictionary, or none. */
static char *read_name(struct fz_reader *r, int event)
{
	unsigned b = fz_u8(r);
	char buf[256];

	if (b == 0xff)
		return NULL;
	if (b >= 0xc0) {
		const char *n = event ? fz_event_name(b - 0xc0) : NULL;

		if (!event) {
			unsigned i = b - 0xc0;

			n = i < FZ_NR_FIELD_NAMES ? fz_field_name(i) :
				extra_field_names[i % (sizeof(extra_field_names) /
						       sizeof(extra_field_names[0]))];
		}
		return strdup(n);
	}
	fz_bytes(r, buf, b);
	buf[b] = '\0';
	return strdup(buf);
}

static struct bt_field_class *read_class(struct fz_reader *r, int depth)
{
	static const bt_field_class_type ints[] = {
		BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER,
	};
	struct bt_field_class *fc = calloc(1, sizeof(*fc));
	unsigned t = fz_u8(r);

	if (!fc)
		abort();
	switch (t & 15) {
	case 0 ... 7:
		fc->type = ints[(t & 15) >> 2];
		fc->bits = 8u << (t & 3);
		break;
	case 8:
		fc->type = BT_FIELD_CLASS_TYPE_STRING;
		break;
	case 9:
	case 10:
		if (depth >= MAX_DEPTH) {
			fc->type = BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER;
			fc->bits = 8;
			break;
		}
		fc->type = (t & 15) == 9 ? BT_FIELD_CLASS_TYPE_STATIC_ARRAY :
			BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD;
		if ((t & 15) == 9)
			fc->static_len = fz_u8(r);
		else if (t & 0x10)
			fc->type = BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD;
		fc->elem = read_class(r, depth + 1);
		break;
	case 11: {
		if (depth >= MAX_DEPTH) {
			fc->type = BT_FIELD_CLASS_TYPE_STRING;
			break;
		}
		fc->type = BT_FIELD_CLASS_TYPE_STRUCTURE;
		fc->nr_members = fz_u8(r) % (MAX_MEMBERS + 1);
		fc->members = calloc(fc->nr_members + 1, sizeof(*fc->members));
		for (uint64_t i = 0; i < fc->nr_members; i++) {
			fc->members[i].name = read_name(r, 0);
			if (!fc->members[i].name)
				fc->members[i].name = strdup("");
			fc->members[i].fc = read_class(r, depth + 1);
		}
		break;
	}
	case 12:
	case 13:
		fc->type = (t & 15) == 12 ? BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION :
			BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION;
		fc->bits = 8u << ((t >> 4) & 3);
		break;
	case 14:
		fc->type = BT_FIELD_CLASS_TYPE_BOOL;
		fc->bits = 8;
		break;
	default:
		fc->type = t & 0x10 ? BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL :
			BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL;
		fc->bits = t & 0x10 ? 64 : 32;
		break;
	}
	return fc;
}

/* Values in the class's order (fuzzin.h: fz_value). */
static void read_value(struct fz_reader *r, struct bt_field *f)
{
	const struct bt_field_class *fc = f->fc;

	if (fc->type == BT_FIELD_CLASS_TYPE_STRUCTURE || fc->type == BT_FIELD_CLASS_TYPE_STATIC_ARRAY) {
		for (uint64_t i = 0; i < f->nr; i++)
			read_value(r, &f->sub[i]);
	} else if (fc->type == BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD ||
		   fc->type == BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD) {
		f->nr = fz_u16(r) % (MAX_DYN + 1);
		f->sub = calloc(f->nr ? f->nr : 1, sizeof(*f->sub));
		for (uint64_t i = 0; i < f->nr; i++) {
			struct bt_field *e = fakebt_field_new(fc->elem);

			f->sub[i] = *e;
			free(e);
			read_value(r, &f->sub[i]);
		}
	} else if (fc->type == BT_FIELD_CLASS_TYPE_STRING) {
		unsigned n = fz_u8(r);

		f->str = malloc(n + 1);
		fz_bytes(r, f->str, n);
		f->str[n] = '\0';
	} else {
		f->u = fz_int(r, fc->bits, (fc->type & BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ==
			      BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
	}
}

static void free_input(struct input *in)
{
	for (int i = 0; i < in->nr_sc; i++)
		fakebt_field_class_free(in->sc[i].ctx);
	for (int i = 0; i < in->nr_streams; i++)
		free(in->streams[i].name);
	for (int i = 0; i < in->nr_ec; i++) {
		free(in->ec[i].name);
		fakebt_field_class_free(in->ec[i].payload);
	}
}

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_decode: %s\n", what);
	abort();
}

/* What every answer of the decoder must hold. */
static void check_answer(struct slub_decoder *d, const struct bt_message *m, int rc,
			 const struct slub_decoded *out, uint64_t events_before, int nr_streams)
{
	enum slub_plugin_unusable why;
	const char *err = slub_decoder_error(d, &why);

	if (rc != 0 && rc != -1)
		fail("an answer other than 0 and -1");
	if (rc < 0) {
		if (!err[0] || !why)
			fail("a refusal without its reason");
		return;
	}
	if (slub_decoder_events(d) != events_before + (out->kind == SLUB_DEC_EVENT))
		fail("the event count is not one per decoded event");
	switch (out->kind) {
	case SLUB_DEC_NONE:
		break;
	case SLUB_DEC_EVENT: {
		const struct slub_event *ev = &out->event.ev;

		if (m->type != BT_MESSAGE_TYPE_EVENT)
			fail("an event from a message that is none");
		if (ev->type >= SLUB_EV_NR)
			fail("an event of an unknown type");
		if ((ev->type == SLUB_EV_CACHE_CREATE) != (ev->info == &out->info))
			fail("cache info given to the wrong event");
		if (ev->info && (!ev->info->name || strlen(ev->info->name) > 255))
			fail("a cache without its name");
		if (ev->type == SLUB_EV_ERROR && !ev->msg)
			fail("an error without its message");
		if (out->event.procname && strlen(out->event.procname) > 255)
			fail("a procname longer than its field");
		if (out->event.stream_id >= (uint64_t)nr_streams)
			fail("an event of a stream the decoder never named");
		if (!m->event.stream->sc->has_clock || m->cs.overflows ?
		    out->event.ts != 0 : out->event.ts != (uint64_t)m->cs.ns)
			fail("the event's time is not its clock snapshot's");
		if (ev->slot != -1 && ev->type != SLUB_EV_CPU_SLAB_LOAD &&
		    ev->type != SLUB_EV_DEACTIVATE && ev->type != SLUB_EV_CPU_PARTIAL_PUT &&
		    ev->type != SLUB_EV_CPU_PARTIAL_TAKE && ev->type != SLUB_EV_CPU_PARTIAL_DRAIN &&
		    ev->type != SLUB_EV_THREAD_FLUSH && ev->type != SLUB_EV_SHEAF_SLOT)
			fail("a slot on an event that acts on none");
		break;
	}
	case SLUB_DEC_STACK:
		if (out->stack_nr > SLUB_DEC_MAX_IPS || out->stack_of >= SLUB_EV_NR)
			fail("a stack out of bounds");
		if (out->stack_stream_id >= (uint64_t)nr_streams)
			fail("a stack of a stream the decoder never named");
		break;
	case SLUB_DEC_DISCARD:
		if (m->type != BT_MESSAGE_TYPE_DISCARDED_EVENTS &&
		    m->type != BT_MESSAGE_TYPE_DISCARDED_PACKETS)
			fail("a gap from a message that is none");
		if (out->discard.stream_id >= (uint64_t)nr_streams)
			fail("a gap of a stream the decoder never named");
		if (m->type == BT_MESSAGE_TYPE_DISCARDED_PACKETS && out->discard.count)
			fail("lost packets given an event count");
		if (out->discard.range_known && (out->discard.begin_ts != (uint64_t)m->cs.ns ||
						 out->discard.end_ts != (uint64_t)m->cs_end.ns))
			fail("a gap's range is not its snapshots'");
		break;
	case SLUB_DEC_REGISTER:
		if (m->type != BT_MESSAGE_TYPE_EVENT || out->reg_ts != (uint64_t)m->cs.ns)
			fail("a registration not at its event's time");
		break;
	default:
		fail("an answer of an unknown kind");
	}
	if (out->kind == SLUB_DEC_EVENT || out->kind == SLUB_DEC_DISCARD) {
		uint64_t id = out->kind == SLUB_DEC_EVENT ? out->event.stream_id :
			out->discard.stream_id;

		if (!slub_decoder_stream_name(d, id))
			fail("a stream without a name");
	}
}

/* The streams the decoder has seen: those of messages that reached it. */
static int seen_streams(const struct bt_stream **seen, int *nr, const struct bt_stream *s)
{
	for (int i = 0; i < *nr; i++)
		if (seen[i] == s)
			return *nr;
	seen[(*nr)++] = s;
	return *nr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input *in = calloc(1, sizeof(*in));
	struct slub_symbolizer *sym = NULL;
	struct slub_decoder *d;
	const struct bt_stream *seen[MAX_STREAMS];
	int nr_seen = 0;
	struct slub_decoded *out = malloc(sizeof(*out));

	fz_init(&in->r, data, size);
	if (fz_u8(&in->r) & 1)
		sym = slub_symbolizer_create();
	d = slub_decoder_create(NULL, sym);
	if (!d || !in || !out)
		abort();
	while (!fz_end(&in->r)) {
		unsigned op = fz_u8(&in->r) & 7;
		struct bt_message m;
		uint64_t before = slub_decoder_events(d);
		int rc;

		memset(&m, 0, sizeof(m));
		switch (op) {
		case 0: {	/* stream class */
			struct bt_stream_class *sc;
			unsigned f;

			if (in->nr_sc == MAX_SC)
				goto out;
			sc = &in->sc[in->nr_sc++];
			f = fz_u8(&in->r);
			sc->has_clock = f & 1;
			sc->disc_ev = !!(f & 2);
			sc->disc_ev_clock = sc->has_clock && (f & 4);
			sc->disc_pk = !!(f & 8);
			sc->disc_pk_clock = sc->has_clock && (f & 16);
			if (f & 32)
				sc->ctx = read_class(&in->r, 0);
			continue;
		}
		case 1: {	/* stream */
			struct bt_stream *s;

			if (in->nr_streams == MAX_STREAMS || !in->nr_sc)
				goto out;
			s = &in->streams[in->nr_streams];
			s->sc = &in->sc[fz_u8(&in->r) % in->nr_sc];
			s->name = read_name(&in->r, 1);
			s->id = in->nr_streams++;
			continue;
		}
		case 2: {	/* event class */
			struct bt_event_class *ec;

			if (in->nr_ec == MAX_EC || !in->nr_sc)
				goto out;
			ec = &in->ec[in->nr_ec++];
			ec->sc = &in->sc[fz_u8(&in->r) % in->nr_sc];
			ec->name = read_name(&in->r, 1);
			if (fz_u8(&in->r) != 0xff)
				ec->payload = read_class(&in->r, 0);
			continue;
		}
		case 3: {	/* event */
			const struct bt_event_class *ec;
			const struct bt_stream *s = NULL;
			unsigned pick;

			if (!in->nr_ec)
				goto out;
			ec = &in->ec[fz_u8(&in->r) % in->nr_ec];
			pick = fz_u8(&in->r);
			/* a stream of the event class's stream class */
			for (int n = 0, i = 0; i < in->nr_streams * 2 && !s; i++)
				if (in->streams[i % in->nr_streams].sc == ec->sc &&
				    n++ >= (int)(pick % (unsigned)in->nr_streams))
					s = &in->streams[i % in->nr_streams];
			if (!s)
				continue;
			m.type = BT_MESSAGE_TYPE_EVENT;
			m.event.ec = ec;
			m.event.stream = s;
			m.cs.ns = (int64_t)fz_u64(&in->r);
			m.cs.overflows = m.cs.ns < 0;
			if (ec->sc->ctx) {
				m.event.ctx = fakebt_field_new(ec->sc->ctx);
				read_value(&in->r, m.event.ctx);
			}
			if (ec->payload) {
				m.event.payload = fakebt_field_new(ec->payload);
				read_value(&in->r, m.event.payload);
			}
			break;
		}
		case 4:		/* discarded events */
		case 5: {	/* discarded packets */
			const struct bt_stream *s;
			unsigned f;

			if (!in->nr_streams)
				goto out;
			s = &in->streams[fz_u8(&in->r) % in->nr_streams];
			/* Babeltrace makes neither message for a stream class
			 * without the property. */
			if (op == 4 ? !s->sc->disc_ev : !s->sc->disc_pk)
				continue;
			m.type = op == 4 ? BT_MESSAGE_TYPE_DISCARDED_EVENTS :
				BT_MESSAGE_TYPE_DISCARDED_PACKETS;
			m.stream = s;
			f = fz_u8(&in->r);
			m.count_known = op == 4 && (f & 1);
			m.count = m.count_known ? fz_u64(&in->r) : 0;
			m.cs.ns = (int64_t)fz_u64(&in->r);
			m.cs_end.ns = (int64_t)fz_u64(&in->r);
			m.cs.overflows = m.cs.ns < 0;
			m.cs_end.overflows = m.cs_end.ns < 0;
			break;
		}
		case 6:		/* stream beginning */
			if (!in->nr_streams)
				goto out;
			m.type = BT_MESSAGE_TYPE_STREAM_BEGINNING;
			m.stream = &in->streams[fz_u8(&in->r) % in->nr_streams];
			break;
		default: {	/* a message the decoder passes over */
			static const bt_message_type other[] = {
				BT_MESSAGE_TYPE_STREAM_END, BT_MESSAGE_TYPE_PACKET_BEGINNING,
				BT_MESSAGE_TYPE_PACKET_END, BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY,
			};

			m.type = other[fz_u8(&in->r) & 3];
			break;
		}
		}
		rc = slub_decoder_message(d, &m, out);
		if (m.type == BT_MESSAGE_TYPE_EVENT || m.type == BT_MESSAGE_TYPE_STREAM_BEGINNING ||
		    m.type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
		    m.type == BT_MESSAGE_TYPE_DISCARDED_PACKETS)
			seen_streams(seen, &nr_seen, m.type == BT_MESSAGE_TYPE_EVENT ?
				     m.event.stream : m.stream);
		check_answer(d, &m, rc, out, before, nr_seen);
		fakebt_field_free(m.event.ctx);
		fakebt_field_free(m.event.payload);
	}
out:
	slub_decoder_destroy(d);
	slub_symbolizer_destroy(sym);
	free_input(in);
	free(in);
	free(out);
	return 0;
}
