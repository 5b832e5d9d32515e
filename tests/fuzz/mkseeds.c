/* SPDX-License-Identifier: MIT */
/*
 * mkseeds TRACE_DIR OUT_DIR [EVENTS_PER_FILE] [FILES] [NAME]: the fuzz targets'
 * seed corpus from a recorded trace (TRACE_DIR: the directory holding its
 * `metadata`).  Babeltrace's own reader
 * (src.ctf.fs, then flt.utils.muxer: the plugin's graph) reads the trace;
 * every message is written in fuzz_decode's input (stream classes,
 * streams and event classes as the trace lays them out, each field's
 * value), and what the plugin's decoder makes of it in fuzz_model's input
 * (modelin.h).  Files OUT_DIR/decode/NAME-N and OUT_DIR/model/NAME-N hold
 * EVENTS_PER_FILE events each (default 40); at most FILES of each
 * (default 12), spread evenly over the trace.  NAME defaults to the trace
 * directory's last component.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <babeltrace2/babeltrace.h>

#include "decode.h"
#include "modelin.h"
#include "symbolize.h"

/* ---- output buffers ---- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void put_u8(struct buf *b, unsigned v)
{
	uint8_t c = (uint8_t)v;

	put(b, &c, 1);
}

static void put_le(struct buf *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		put_u8(b, (unsigned)(v >> (8 * i)));
}

/* A literal name: at most 191 bytes (longer ones keep their end); 0xff for none. */
static void put_name(struct buf *b, const char *s)
{
	size_t n;

	if (!s) {
		put_u8(b, 0xff);
		return;
	}
	n = strlen(s);
	if (n > 191) {
		s += n - 191;
		n = 191;
	}
	put_u8(b, (unsigned)n);
	put(b, s, n);
}

/* ---- decode input ---- */

#define MAX_OBJ 64

struct dec_file {
	struct buf b;
	const void *sc[MAX_OBJ], *st[MAX_OBJ], *ec[MAX_OBJ];
	int nsc, nst, nec;
};

static int find(const void *const *t, int n, const void *p)
{
	for (int i = 0; i < n; i++)
		if (t[i] == p)
			return i;
	return -1;
}

static unsigned size_code(const bt_field_class *fc)
{
	uint64_t bits = bt_field_class_integer_get_field_value_range(fc);

	return bits <= 8 ? 0 : bits <= 16 ? 1 : bits <= 32 ? 2 : 3;
}

static void put_class(struct buf *b, const bt_field_class *fc, int depth)
{
	bt_field_class_type t = bt_field_class_get_type(fc);

	if (depth > 3) {
		put_u8(b, 0);
		return;
	}
	switch (t) {
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
		put_u8(b, size_code(fc));
		break;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
		put_u8(b, 4 + size_code(fc));
		break;
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
		put_u8(b, 12 | size_code(fc) << 4);
		break;
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		put_u8(b, 13 | size_code(fc) << 4);
		break;
	case BT_FIELD_CLASS_TYPE_STRING:
		put_u8(b, 8);
		break;
	case BT_FIELD_CLASS_TYPE_BOOL:
		put_u8(b, 14);
		break;
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
		put_u8(b, 15);
		break;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
		put_u8(b, 15 | 0x10);
		break;
	case BT_FIELD_CLASS_TYPE_STATIC_ARRAY: {
		uint64_t n = bt_field_class_array_static_get_length(fc);

		put_u8(b, 9);
		put_u8(b, n > 255 ? 255 : (unsigned)n);
		put_class(b, bt_field_class_array_borrow_element_field_class_const(fc), depth + 1);
		break;
	}
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD:
		put_u8(b, t == BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD ? 10 | 0x10 : 10);
		put_class(b, bt_field_class_array_borrow_element_field_class_const(fc), depth + 1);
		break;
	case BT_FIELD_CLASS_TYPE_STRUCTURE: {
		uint64_t n = bt_field_class_structure_get_member_count(fc);

		if (n > 24)
			n = 24;
		put_u8(b, 11);
		put_u8(b, (unsigned)n);
		for (uint64_t i = 0; i < n; i++) {
			const bt_field_class_structure_member *m =
				bt_field_class_structure_borrow_member_by_index_const(fc, i);

			put_name(b, bt_field_class_structure_member_get_name(m));
			put_class(b, bt_field_class_structure_member_borrow_field_class_const(m),
				  depth + 1);
		}
		break;
	}
	default:	/* variants, options, bit arrays: a byte that reads 0 */
		put_u8(b, 0);
		break;
	}
}

static void put_value(struct buf *b, const bt_field *f, int depth)
{
	const bt_field_class *fc = bt_field_borrow_class_const(f);
	bt_field_class_type t = bt_field_class_get_type(fc);

	if (depth > 3) {
		put_u8(b, 0);
		return;
	}
	switch (t) {
	case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
		put_le(b, bt_field_integer_unsigned_get_value(f), 1u << size_code(fc));
		break;
	case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
	case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
		put_le(b, (uint64_t)bt_field_integer_signed_get_value(f), 1u << size_code(fc));
		break;
	case BT_FIELD_CLASS_TYPE_STRING: {
		const char *s = bt_field_string_get_value(f);
		size_t n = strlen(s);

		if (n > 255)
			n = 255;
		put_u8(b, (unsigned)n);
		put(b, s, n);
		break;
	}
	case BT_FIELD_CLASS_TYPE_BOOL:
		put_u8(b, bt_field_bool_get_value(f));
		break;
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
		put_le(b, 0, 4);
		break;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
		put_le(b, 0, 8);
		break;
	case BT_FIELD_CLASS_TYPE_STATIC_ARRAY:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD:
	case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD: {
		uint64_t n = bt_field_array_get_length(f);

		if (t == BT_FIELD_CLASS_TYPE_STATIC_ARRAY) {
			if (n > 255)
				n = 255;
		} else {
			if (n > 512)
				n = 512;
			put_le(b, n, 2);
		}
		for (uint64_t i = 0; i < n; i++)
			put_value(b, bt_field_array_borrow_element_field_by_index_const(f, i),
				  depth + 1);
		break;
	}
	case BT_FIELD_CLASS_TYPE_STRUCTURE: {
		uint64_t n = bt_field_class_structure_get_member_count(fc);

		if (n > 24)
			n = 24;
		for (uint64_t i = 0; i < n; i++)
			put_value(b, bt_field_structure_borrow_member_field_by_index_const(f, i),
				  depth + 1);
		break;
	}
	default:
		put_u8(b, 0);
		break;
	}
}

static int def_sc(struct dec_file *df, const bt_stream_class *sc)
{
	int i = find(df->sc, df->nsc, sc);
	const bt_field_class *ctx;
	unsigned f = 0;

	if (i >= 0 || df->nsc == 8)
		return i;
	ctx = bt_stream_class_borrow_event_common_context_field_class_const(sc);
	if (bt_stream_class_borrow_default_clock_class_const(sc))
		f |= 1;
	if (bt_stream_class_supports_discarded_events(sc))
		f |= 2;
	if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
		f |= 4;
	if (bt_stream_class_supports_discarded_packets(sc))
		f |= 8;
	if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
		f |= 16;
	if (ctx)
		f |= 32;
	put_u8(&df->b, 0);
	put_u8(&df->b, f);
	if (ctx)
		put_class(&df->b, ctx, 0);
	df->sc[df->nsc] = sc;
	return df->nsc++;
}

static int def_stream(struct dec_file *df, const bt_stream *s)
{
	int i = find(df->st, df->nst, s), sc;

	if (i >= 0 || df->nst == 16)
		return i;
	sc = def_sc(df, bt_stream_borrow_class_const(s));
	if (sc < 0)
		return -1;
	put_u8(&df->b, 1);
	put_u8(&df->b, (unsigned)sc);
	put_name(&df->b, bt_stream_get_name(s));
	df->st[df->nst] = s;
	return df->nst++;
}

static int def_ec(struct dec_file *df, const bt_event_class *ec)
{
	int i = find(df->ec, df->nec, ec), sc;
	const bt_field_class *p;

	if (i >= 0 || df->nec == MAX_OBJ)
		return i;
	sc = def_sc(df, bt_event_class_borrow_stream_class_const(ec));
	if (sc < 0)
		return -1;
	p = bt_event_class_borrow_payload_field_class_const(ec);
	put_u8(&df->b, 2);
	put_u8(&df->b, (unsigned)sc);
	put_name(&df->b, bt_event_class_get_name(ec));
	if (!p) {
		put_u8(&df->b, 0xff);
	} else {
		put_u8(&df->b, 0);
		put_class(&df->b, p, 0);
	}
	df->ec[df->nec] = ec;
	return df->nec++;
}

static int64_t snapshot(const bt_clock_snapshot *cs)
{
	int64_t ns = -1;

	if (!cs || bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return -1;
	return ns;
}

/* The index among the streams of its class, as fuzz_decode picks them. */
static int stream_pick(struct dec_file *df, int st)
{
	const bt_stream_class *sc = bt_stream_borrow_class_const(df->st[st]);
	int n = 0;

	for (int i = 0; i < st; i++)
		if (bt_stream_borrow_class_const(df->st[i]) == sc)
			n++;
	return n;
}

static void dec_message(struct dec_file *df, const bt_message *msg)
{
	struct buf *b = &df->b;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT: {
		const bt_event *e = bt_message_event_borrow_event_const(msg);
		const bt_stream *s = bt_event_borrow_stream_const(e);
		int st = def_stream(df, s), ec = def_ec(df, bt_event_borrow_class_const(e));
		const bt_field *ctx = bt_event_borrow_common_context_field_const(e);
		const bt_field *p = bt_event_borrow_payload_field_const(e);

		if (st < 0 || ec < 0)
			return;
		put_u8(b, 3);
		put_u8(b, (unsigned)ec);
		put_u8(b, (unsigned)stream_pick(df, st));
		put_le(b, bt_stream_class_borrow_default_clock_class_const(
			       bt_stream_borrow_class_const(s)) ?
		       (uint64_t)snapshot(bt_message_event_borrow_default_clock_snapshot_const(msg)) :
		       0, 8);
		if (ctx)
			put_value(b, ctx, 0);
		if (p)
			put_value(b, p, 0);
		break;
	}
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS: {
		int ev = bt_message_get_type(msg) == BT_MESSAGE_TYPE_DISCARDED_EVENTS;
		const bt_stream *s = ev ? bt_message_discarded_events_borrow_stream_const(msg) :
			bt_message_discarded_packets_borrow_stream_const(msg);
		const bt_stream_class *sc = bt_stream_borrow_class_const(s);
		int st = def_stream(df, s);
		uint64_t count = 0;
		int known = ev && bt_message_discarded_events_get_count(msg, &count) ==
			BT_PROPERTY_AVAILABILITY_AVAILABLE;
		int64_t b_ns = 0, e_ns = 0;

		if (st < 0)
			return;
		if (ev && bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
			b_ns = snapshot(bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg));
			e_ns = snapshot(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg));
		} else if (!ev && bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)) {
			b_ns = snapshot(bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg));
			e_ns = snapshot(bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg));
		}
		put_u8(b, ev ? 4 : 5);
		put_u8(b, (unsigned)st);
		put_u8(b, known);
		if (known)
			put_le(b, count, 8);
		put_le(b, (uint64_t)b_ns, 8);
		put_le(b, (uint64_t)e_ns, 8);
		break;
	}
	case BT_MESSAGE_TYPE_STREAM_BEGINNING: {
		int st = def_stream(df, bt_message_stream_beginning_borrow_stream_const(msg));

		if (st >= 0) {
			put_u8(b, 6);
			put_u8(b, (unsigned)st);
		}
		break;
	}
	default:
		break;
	}
}

/* ---- model input ---- */

struct model_file {
	struct buf b;
	uint64_t slabs[256];
	int nslabs;
	uint32_t vpids[4];
	int nvpids;
	uint32_t vtids[4][64];
	int nvtids[4];
	const char *procs[3];
	char procbuf[3][64];
	int nprocs;
	uint64_t last_ts;
};

static unsigned slab_idx(struct model_file *mf, uint64_t slab)
{
	if (!slab)
		return 0;
	for (int i = 1; i < mf->nslabs; i++)
		if (mf->slabs[i] == slab)
			return (unsigned)i;
	if (mf->nslabs == 0)
		mf->nslabs = 1;
	if (mf->nslabs == 256)
		return 0;
	mf->slabs[mf->nslabs] = slab;
	return (unsigned)mf->nslabs++;
}

/* An address as a slab number and an offset (modelin.h). */
static void put_addr(struct model_file *mf, uint64_t a)
{
	unsigned best = 0;

	for (int i = 1; i < mf->nslabs; i++)
		if (a >= mf->slabs[i] && a - mf->slabs[i] < (1u << 20) &&
		    (!best || mf->slabs[i] > mf->slabs[best]))
			best = (unsigned)i;
	put_u8(&mf->b, best);
	put_le(&mf->b, best ? a - mf->slabs[best] : a, 4);
}

static void put_word(struct model_file *mf, const struct slub_word *w)
{
	put_addr(mf, w->freelist);
	put_le(&mf->b, (uint64_t)w->inuse | (uint64_t)w->objects << 16 |
	       (uint64_t)w->frozen << 31 | (uint64_t)w->seq << 32, 8);
	put_u8(&mf->b, (unsigned)(int8_t)w->owner);
}

static unsigned who(struct model_file *mf, uint32_t vpid, uint32_t vtid)
{
	int p, t;

	for (p = 0; p < mf->nvpids && mf->vpids[p] != vpid; p++)
		;
	if (p == mf->nvpids) {
		if (p == 4)
			p = vpid & 3;
		else
			mf->vpids[mf->nvpids++] = vpid;
	}
	if (vtid == vpid)
		return (unsigned)p;
	for (t = 0; t < mf->nvtids[p] && mf->vtids[p][t] != vtid; t++)
		;
	if (t == mf->nvtids[p]) {
		if (t == 63)
			t = (int)(vtid % 63);
		else
			mf->vtids[p][mf->nvtids[p]++] = vtid;
	}
	return (unsigned)p | (unsigned)(t + 1) << 2;
}

static unsigned time_delta(struct model_file *mf, uint64_t ts, unsigned *scale)
{
	uint64_t d = ts > mf->last_ts ? ts - mf->last_ts : 0;

	*scale = 0;
	while (*scale < 3 && (d >> (*scale * 10)) > 0xffff)
		(*scale)++;
	d >>= *scale * 10;
	if (d > 0xffff)
		d = 0xffff;
	mf->last_ts += d << (*scale * 10);
	return (unsigned)d;
}

static unsigned procname(struct model_file *mf, const char *name)
{
	if (!name)
		return 0;
	for (int i = 0; i < mf->nprocs; i++)
		if (!strcmp(mf->procs[i], name))
			return (unsigned)i + 1;
	if (mf->nprocs == 3)
		return 1;
	snprintf(mf->procbuf[mf->nprocs], 64, "%s", name);
	mf->procs[mf->nprocs] = mf->procbuf[mf->nprocs];
	return (unsigned)++mf->nprocs;
}

static void model_decoded(struct model_file *mf, const struct slub_decoded *d)
{
	struct buf *b = &mf->b;

	switch (d->kind) {
	case SLUB_DEC_EVENT: {
		const struct slub_model_event *e = &d->event;
		const struct slub_event *ev = &e->ev;
		unsigned scale, delta, flags, w;
		uint32_t size = (uint32_t)ev->size, count = ev->count, pages = ev->pages;
		uint32_t reason = ev->reason, attempt = ev->attempt, lock_id = ev->lock_id;

		slab_idx(mf, ev->slab);
		w = who(mf, e->vpid, e->vtid);
		delta = time_delta(mf, e->ts, &scale);
		flags = (ev->locked ? MI_F_LOCKED : 0) | (ev->contended ? MI_F_CONTENDED : 0) |
			(e->old_valid ? MI_F_OLD_VALID : 0) | procname(mf, e->procname) << 3 |
			scale << 5;
		if (ev->type == SLUB_EV_CACHE_CREATE && ev->info) {
			size = ev->info->size;
			count = ev->info->objects;
			pages = ev->info->order;
			reason = ev->info->min_partial;
			attempt = ev->info->cpu_partial;
			lock_id = ev->info->flags;
		}
		put_u8(b, 0);
		put_u8(b, ev->type);
		put_u8(b, w);
		put_u8(b, (unsigned)e->stream_id & 3);
		put_u8(b, flags);
		put_le(b, delta, 2);
		put_u8(b, ev->cache_id);
		put_u8(b, (unsigned)(int8_t)ev->cpu);
		put_u8(b, (unsigned)(int8_t)ev->node);
		put_u8(b, (unsigned)(int8_t)ev->slot);
		put_u8(b, ev->site);
		put_u8(b, ev->list);
		put_u8(b, reason);
		put_u8(b, slab_idx(mf, ev->slab));
		put_word(mf, &ev->new);
		put_word(mf, &ev->old);
		put_u8(b, attempt);
		put_le(b, lock_id, 2);
		put_le(b, ev->lock_seq, 4);
		put_le(b, ev->wait_ns > 0xffff ? 0xffff : ev->wait_ns, 2);
		put_le(b, ev->hold_ns > 0xffff ? 0xffff : ev->hold_ns, 2);
		put_addr(mf, ev->object);
		put_le(b, size, 2);
		put_le(b, count, 2);
		put_u8(b, pages);
		if (MI_SHEAF_EVENT(ev->type)) {
			put_addr(mf, ev->sheaf);
			put_addr(mf, ev->spare);
			put_le(b, ev->sheaf_size > 0xffff ? 0xffff : ev->sheaf_size, 2);
			put_le(b, ev->spare_size > 0xffff ? 0xffff : ev->spare_size, 2);
			put_u8(b, ev->barn_full > 0xff ? 0xff : ev->barn_full);
			put_u8(b, ev->barn_empty > 0xff ? 0xff : ev->barn_empty);
		}
		break;
	}
	case SLUB_DEC_DISCARD: {
		const struct slub_model_discard *g = &d->discard;
		uint64_t back = g->range_known && g->begin_ts < mf->last_ts ?
			mf->last_ts - g->begin_ts : 0;
		uint64_t ahead = g->range_known && g->end_ts > mf->last_ts ?
			g->end_ts - mf->last_ts : 0;
		unsigned scale = 0;

		while (scale < 3 && ((back | ahead) >> (scale * 10)) > 0xffff)
			scale++;
		put_u8(b, MI_OP_DISCARD);
		put_u8(b, (unsigned)g->stream_id & 3);
		put_u8(b, (g->count ? 1 : 0) | (g->range_known ? 2 : 0) | scale << 5);
		put_le(b, g->count > 0xffff ? 0xffff : g->count, 2);
		back >>= scale * 10;
		ahead >>= scale * 10;
		put_le(b, back > 0xffff ? 0xffff : back, 2);
		put_le(b, ahead > 0xffff ? 0xffff : ahead, 2);
		if (g->range_known)
			mf->last_ts += ahead << (scale * 10);
		break;
	}
	case SLUB_DEC_STACK: {
		uint32_t nr = d->stack_nr > 71 ? 71 : d->stack_nr;

		put_u8(b, MI_OP_STACK);
		put_u8(b, who(mf, d->stack_vpid, d->stack_vtid));
		put_u8(b, d->stack_of);
		put_u8(b, slab_idx(mf, d->stack_slab));
		put_u8(b, nr);
		for (uint32_t i = 0; i < nr; i++)
			put_le(b, d->stack_ips[i] - 0x400000, 4);
		break;
	}
	case SLUB_DEC_REGISTER: {
		unsigned scale;

		put_u8(b, MI_OP_REGISTERED);
		put_u8(b, who(mf, d->reg_vpid, d->reg_vpid));
		put_le(b, time_delta(mf, d->reg_ts, &scale), 2);
		break;
	}
	default:
		break;
	}
}

/* ---- the graph ---- */

struct seeds {
	struct slub_decoder *dec;
	struct slub_symbolizer *sym;
	const char *out, *name;
	uint64_t per_file, files, events, stride;
	uint64_t chunk;		/* events / per_file of the current file */
	int writing;
	struct dec_file df;
	struct model_file mf;
	uint64_t in_file;
	int nr_written;
	size_t bytes;
};

static void write_file(struct seeds *s, const char *kind, const struct buf *b)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s-%03d", s->out, kind, s->name, s->nr_written);
	f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f)) {
		perror(path);
		exit(1);
	}
	s->bytes += b->n;
}

static void flush_files(struct seeds *s)
{
	if (!s->writing)
		return;
	if (s->in_file) {
		write_file(s, "decode", &s->df.b);
		write_file(s, "model", &s->mf.b);
		s->nr_written++;
	}
	free(s->df.b.p);
	free(s->mf.b.p);
	s->writing = 0;
}

static void start_files(struct seeds *s)
{
	memset(&s->df, 0, sizeof(s->df));
	memset(&s->mf, 0, sizeof(s->mf));
	put_u8(&s->df.b, 1);	/* with a symbolizer */
	/* reorder_events 256, the default window, history and verdicts */
	put_u8(&s->mf.b, 64);
	put_u8(&s->mf.b, 0);
	put_u8(&s->mf.b, 0);
	put_u8(&s->mf.b, 0);
	s->in_file = 0;
	s->writing = 1;
}

static bt_graph_simple_sink_component_initialize_func_status sink_init(bt_message_iterator *it,
								       void *data)
{
	(void)it, (void)data;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it,
								       void *data)
{
	struct seeds *s = data;
	bt_message_array_const msgs;
	uint64_t n;
	struct slub_decoded *d = malloc(sizeof(*d));

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		free(d);
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		free(d);
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	default:
		free(d);
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < n; i++) {
		int is_event = bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_EVENT;
		uint64_t chunk = s->events / s->per_file;

		/* every stride-th chunk of per_file events becomes a file */
		if (chunk % s->stride == 0 && (uint64_t)s->nr_written < s->files) {
			if (!s->writing)
				start_files(s);
			dec_message(&s->df, msgs[i]);
			if (slub_decoder_message(s->dec, msgs[i], d) == 0)
				model_decoded(&s->mf, d);
			s->in_file += is_event;
			if (s->in_file == s->per_file)
				flush_files(s);
		} else {
			flush_files(s);
			slub_decoder_message(s->dec, msgs[i], d);
		}
		s->events += is_event;
		bt_message_put_ref(msgs[i]);
	}
	free(d);
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static bt_graph *graph(const char *dir, struct seeds *s)
{
	const bt_plugin *ctf, *utils;
	const bt_component_source *src;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_graph *g = bt_graph_create(0);
	bt_value *p = bt_value_map_create(), *inputs = bt_value_array_create();

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) !=
	    BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		fprintf(stderr, "mkseeds: babeltrace2's ctf and utils plugins not found\n");
		exit(1);
	}
	bt_value_array_append_string_element(inputs, dir);
	bt_value_map_insert_entry(p, "inputs", inputs);
	if (bt_graph_add_source_component(g, bt_plugin_borrow_source_component_class_by_name_const(
			ctf, "fs"), "src", p, BT_LOGGING_LEVEL_NONE, &src) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_filter_component(g, bt_plugin_borrow_filter_component_class_by_name_const(
			utils, "muxer"), "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_simple_sink_component(g, "seeds", sink_init, sink_consume, NULL, s,
					       &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		fprintf(stderr, "mkseeds: %s: not a readable CTF trace\n", dir);
		exit(1);
	}
	for (uint64_t i = 0; i < bt_component_source_get_output_port_count(src); i++)
		bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, i),
			bt_component_filter_borrow_input_port_by_index_const(mux,
				bt_component_filter_get_input_port_count(mux) - 1), NULL);
	bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
			       bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL);
	bt_value_put_ref(inputs);
	bt_value_put_ref(p);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return g;
}

static uint64_t count_events(const char *dir)
{
	struct seeds s = { .per_file = 1, .files = 0, .stride = 1 };
	bt_graph *g;

	s.dec = slub_decoder_create(NULL, NULL);
	g = graph(dir, &s);
	while (bt_graph_run(g) == BT_GRAPH_RUN_STATUS_AGAIN)
		;
	bt_graph_put_ref(g);
	slub_decoder_destroy(s.dec);
	return s.events;
}

int main(int argc, char **argv)
{
	struct seeds s = { 0 };
	char path[PATH_MAX];
	const char *slash;
	bt_graph *g;
	bt_graph_run_status st;
	uint64_t chunks;

	if (argc < 3) {
		fprintf(stderr, "usage: mkseeds TRACE_DIR OUT_DIR [EVENTS_PER_FILE] [FILES] [NAME]\n");
		return 2;
	}
	s.out = argv[2];
	s.per_file = argc > 3 ? strtoull(argv[3], NULL, 10) : 40;
	s.files = argc > 4 ? strtoull(argv[4], NULL, 10) : 12;
	if (!s.per_file)
		s.per_file = 1;
	snprintf(path, sizeof(path), "%s", argv[1]);
	while (strlen(path) > 1 && path[strlen(path) - 1] == '/')
		path[strlen(path) - 1] = '\0';
	slash = strrchr(path, '/');
	s.name = argc > 5 ? argv[5] : slash ? slash + 1 : path;
	chunks = count_events(argv[1]) / s.per_file;
	s.stride = s.files && chunks > s.files ? chunks / s.files : 1;
	s.sym = slub_symbolizer_create();
	s.dec = slub_decoder_create(NULL, s.sym);
	if (mkdir(s.out, 0755) && errno != EEXIST) {
		perror(s.out);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/decode", s.out);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/model", s.out);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		return 1;
	}
	g = graph(argv[1], &s);
	while ((st = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN)
		;
	flush_files(&s);
	bt_graph_put_ref(g);
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		fprintf(stderr, "mkseeds: %s: reading the trace failed\n", argv[1]);
		return 1;
	}
	printf("%s: %llu events, %d files of each kind, %zu bytes\n", argv[1],
	       (unsigned long long)s.events, s.nr_written, s.bytes);
	slub_decoder_destroy(s.dec);
	slub_symbolizer_destroy(s.sym);
	return 0;
}
