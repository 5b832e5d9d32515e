/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the state model (analysis/model) on any sequence of
 * events, lost-event notices, stacks and registrations (modelin.h).  Each
 * struct slub_model_event holds what the decoder can give: a known type,
 * any value in every other field, cache info on cache_create, a message on
 * error, time that never goes back.
 *
 * It must not crash (ASan, UBSan), not loop (libFuzzer's -timeout bounds
 * every input), and keep its memory, as the model itself accounts it
 * (mm_ctx: every byte it has from its allocator), within what the state
 * the input names can need: after each call, mem_bytes may not exceed
 * what the model held when created, one partly used chunk per pool, and a
 * generous size for every slab, lock, slot, thread, object, cache and
 * process the input has named so far (each exec counted as a new process)
 * and for every event that may wait in the reorder buffer (at most
 * reorder_events).  A model whose state grows with the trace rather than
 * with what is live breaks that bound on long enough inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzin.h"
#include "modelin.h"
#include "slub_model.h"

/* Generous sizes: the model's own structures are a few hundred bytes.
 * POOLS is the number of mm_pool_init() calls in slub_model_new(). */
#define PER_ENTITY 1024u
#define PER_PENDING 1024u
#define POOLS 9u
#define CHUNK (64u << 10)

/* Distinct keys of the input: an open-addressing set. */
struct keyset {
	uint64_t *k;
	size_t n, cap;
};

static int key_add(struct keyset *s, uint64_t k)
{
	size_t i;

	k = k * 0x9e3779b97f4a7c15ull + 1;	/* never 0 */
	if (2 * (s->n + 1) > s->cap) {
		struct keyset g = { NULL, 0, s->cap ? s->cap * 2 : 256 };

		g.k = calloc(g.cap, sizeof(*g.k));
		if (!g.k)
			abort();
		for (size_t j = 0; j < s->cap; j++)
			if (s->k[j]) {
				for (i = (s->k[j] >> 7) & (g.cap - 1); g.k[i]; i = (i + 1) & (g.cap - 1))
					;
				g.k[i] = s->k[j];
				g.n++;
			}
		free(s->k);
		*s = g;
	}
	for (i = (k >> 7) & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
		if (s->k[i] == k)
			return 0;
	s->k[i] = k;
	s->n++;
	return 1;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	return (a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2))) * 0xff51afd7ed558ccdull;
}

struct run {
	struct slub_model *m;
	struct keyset keys;
	uint64_t entity_bytes;	/* the bound's part for named state */
	uint64_t base, given, cap_pending;
	uint32_t history;
	uint32_t epoch[4];	/* execs per vpid: a new process key */
	const char *procname[4];
};

static void fail(const char *what, const struct run *r)
{
	struct slub_model_summary s;

	slub_model_get_summary(r->m, &s);
	fprintf(stderr, "fuzz_model: %s (mem %llu bytes, bound part for state %llu, "
		"%llu events)\n", what, (unsigned long long)s.mem_bytes,
		(unsigned long long)r->entity_bytes, (unsigned long long)r->given);
	abort();
}

static void name(struct run *r, uint64_t kind, uint32_t vpid, uint64_t k, uint64_t per)
{
	if (key_add(&r->keys, mix(mix(mix(kind, vpid), r->epoch[vpid & 3]), k)))
		r->entity_bytes += per;
}

static void check_memory(struct run *r)
{
	struct slub_model_summary s;
	uint64_t pending = r->given < r->cap_pending ? r->given : r->cap_pending;
	uint64_t bound = r->base + POOLS * CHUNK + r->entity_bytes + pending * PER_PENDING;

	slub_model_get_summary(r->m, &s);
	if (s.mem_bytes > bound)
		fail("memory beyond the state the input names", r);
	if (s.events != r->given)
		fail("events counted other than given", r);
}

static void on_violation(const struct slub_model_violation *v, void *arg)
{
	struct run *r = arg;

	if (v->rule >= SLUB_RULE_NR || !v->rule_id || !v->meaning || !v->kernel_fn ||
	    !v->detail || !v->event)
		fail("a violation without its rule, text or event", r);
	if (strlen(v->rule_id) + strlen(v->meaning) + strlen(v->detail) == 0 ||
	    (v->cache_name && strlen(v->cache_name) > 4096))
		fail("a violation with empty text", r);
	if (v->nr_history > r->history || (v->nr_history && !v->history))
		fail("a history longer than configured", r);
	if (v->stack_nr > SLUB_MODEL_MAX_STACK || (v->stack_nr && !v->stack))
		fail("a stack longer than kept", r);
	for (uint32_t i = 0; i < v->nr_history; i++)
		if (v->history[i].before >= SLUB_STATE_NR || v->history[i].after >= SLUB_STATE_NR)
			fail("a history record of an unknown state", r);
}

static void on_transition(const struct slub_model_transition *t, void *arg)
{
	struct run *r = arg;

	if (!t->rec || t->rec->before >= SLUB_STATE_NR || t->rec->after >= SLUB_STATE_NR ||
	    t->rec->list >= SLUB_LIST_NR || t->rec->type >= SLUB_EV_NR)
		fail("a transition out of range", r);
	if (t->cache_name && strlen(t->cache_name) > 4096)
		fail("a cache name without its end", r);
}

static void on_summary(const struct slub_model_summary *s, void *arg)
{
	struct run *r = arg;

	if (s->events != r->given || s->applied > s->events || s->live_slabs > s->peak_slabs)
		fail("a summary that does not add up", r);
}

static const char *const procnames[] = { NULL, "prog", "other", "prog-ust" };
static const char *const cache_names[] = { "kmalloc-64", "kmalloc-8", "test-64", "" };

static uint64_t addr(struct fz_reader *in)
{
	unsigned n = fz_u8(in);

	return MI_SLAB(n) + fz_u32(in);
}

static void word(struct fz_reader *in, struct slub_word *w)
{
	uint64_t fl = addr(in), c = fz_u64(in);

	w->freelist = fl;
	w->inuse = c & 0xffff;
	w->objects = (c >> 16) & 0x7fff;
	w->frozen = (c >> 31) & 1;
	w->seq = (uint32_t)(c >> 32);
	w->owner = (int8_t)fz_u8(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_reader in;
	struct slub_model_config cfg = { 0 };
	struct slub_model_callbacks cb = { on_violation, on_transition, on_summary, NULL, NULL };
	struct run r;
	struct slub_model_summary s;
	uint64_t now = 0;
	unsigned b;

	memset(&r, 0, sizeof(r));
	fz_init(&in, data, size);
	b = fz_u8(&in);
	cfg.reorder_events = b * 4;
	b = fz_u8(&in);
	cfg.reorder_ns = b ? (uint64_t)b * 125000 : 0;
	cfg.history = fz_u8(&in) % 33;
	b = fz_u8(&in);
	cfg.end_cut_off = b & 1;
	cfg.max_violations = (b >> 1) & 7;
	cfg.stack_types = b & 0x10 ? fz_u32(&in) : 0;
	cb.arg = &r;
	r.m = slub_model_new(&cfg, &cb);
	if (!r.m)
		abort();
	r.history = cfg.history ? cfg.history : SLUB_MODEL_DEFAULT_HISTORY;
	r.cap_pending = cfg.reorder_events ? cfg.reorder_events : SLUB_MODEL_DEFAULT_REORDER_EVENTS;
	slub_model_get_summary(r.m, &s);
	r.base = s.mem_bytes;

	while (!fz_end(&in)) {
		unsigned op = fz_u8(&in) & 15;

		if (op <= MI_OP_EVENT_LAST) {
			struct slub_model_event e;
			struct slub_event *ev = &e.ev;
			struct slub_cache_info info;
			unsigned who, flags;
			uint32_t vpid;

			memset(&e, 0, sizeof(e));
			ev->type = fz_u8(&in) % SLUB_EV_NR;
			who = fz_u8(&in);
			e.vpid = vpid = MI_VPID(who);
			e.vtid = ev->tid = MI_VTID(who);
			e.stream_id = fz_u8(&in) & 3;
			flags = fz_u8(&in);
			now += (uint64_t)fz_u16(&in) << MI_F_SCALE(flags);
			e.ts = now;
			ev->locked = flags & MI_F_LOCKED;
			ev->contended = !!(flags & MI_F_CONTENDED);
			e.old_valid = !!(flags & MI_F_OLD_VALID);
			e.procname = e.vtid == e.vpid ? procnames[MI_F_PROCNAME(flags)] : NULL;
			ev->cache_id = fz_u8(&in);
			ev->cpu = (int8_t)fz_u8(&in);
			ev->node = (int8_t)fz_u8(&in);
			ev->slot = (int8_t)fz_u8(&in);
			ev->site = fz_u8(&in);
			ev->list = fz_u8(&in);
			ev->reason = fz_u8(&in);
			ev->slab = MI_SLAB(fz_u8(&in));
			word(&in, &ev->new);
			word(&in, &ev->old);
			ev->attempt = fz_u8(&in);
			ev->lock_id = fz_u16(&in);
			ev->lock_seq = fz_u32(&in);
			ev->wait_ns = fz_u16(&in);
			ev->hold_ns = fz_u16(&in);
			ev->object = addr(&in);
			ev->size = fz_u16(&in);
			ev->count = fz_u16(&in);
			ev->pages = fz_u8(&in);
			if (MI_SHEAF_EVENT(ev->type)) {
				ev->sheaf = addr(&in);
				ev->spare = addr(&in);
				ev->sheaf_size = fz_u16(&in);
				ev->spare_size = fz_u16(&in);
				ev->barn_full = fz_u8(&in);
				ev->barn_empty = fz_u8(&in);
			}
			if (ev->type == SLUB_EV_CACHE_CREATE) {
				info.name = cache_names[ev->site & 3];
				info.object_size = info.size = (uint32_t)ev->size;
				info.align = 8;
				info.order = ev->pages & 7;
				info.objects = ev->count;
				info.min_partial = ev->reason;
				info.cpu_partial = ev->attempt;
				info.flags = ev->lock_id;
				ev->info = &info;
			}
			if (ev->type == SLUB_EV_ERROR)
				ev->msg = slub_error_name(ev->reason);
			/* What this event may make the model keep. */
			if (ev->type == SLUB_EV_CACHE_CREATE ||
			    (e.procname && e.procname != r.procname[vpid & 3])) {
				r.epoch[vpid & 3]++;
				if (e.procname)
					r.procname[vpid & 3] = e.procname;
			}
			name(&r, 1, vpid, ev->slab,
			     PER_ENTITY + r.history * sizeof(struct slub_model_record));
			name(&r, 2, vpid, ev->object, PER_ENTITY);
			name(&r, 3, vpid, ev->lock_id, PER_ENTITY);
			name(&r, 4, vpid, (uint64_t)ev->cache_id << 32 | (uint32_t)ev->slot, PER_ENTITY);
			name(&r, 4, vpid, (uint64_t)ev->cache_id << 32 | (uint32_t)ev->cpu, PER_ENTITY);
			name(&r, 5, vpid, e.vtid, PER_ENTITY);
			name(&r, 6, vpid, ev->cache_id, PER_ENTITY);
			name(&r, 7, vpid, 0, PER_ENTITY);
			if (MI_SHEAF_EVENT(ev->type)) {
				name(&r, 8, vpid, ev->sheaf, PER_ENTITY);
				name(&r, 8, vpid, ev->spare, PER_ENTITY);
				name(&r, 9, vpid, (uint64_t)ev->cache_id << 32 | (uint8_t)ev->node,
				     PER_ENTITY);
			}
			r.given++;
			slub_model_event(r.m, &e);
		} else if (op <= MI_OP_DISCARD + 1) {
			struct slub_model_discard d = { 0 };
			unsigned f, scale;
			uint64_t back, ahead;

			d.stream_id = fz_u8(&in) & 3;
			f = fz_u8(&in);
			scale = MI_F_SCALE(f);
			d.count = fz_u16(&in);
			if (!(f & 1))
				d.count = 0;
			back = (uint64_t)fz_u16(&in) << scale;
			ahead = (uint64_t)fz_u16(&in) << scale;
			d.range_known = !!(f & 2);
			if (d.range_known) {
				d.begin_ts = back > now ? 0 : now - back;
				d.end_ts = now + ahead;
				now = d.end_ts;
			}
			slub_model_discarded(r.m, &d);
		} else if (op == MI_OP_STACK) {
			unsigned who = fz_u8(&in), type = fz_u8(&in) % SLUB_EV_NR;
			uint64_t slab = MI_SLAB(fz_u8(&in)), ips[72];
			uint32_t nr = fz_u8(&in) % 72;

			for (uint32_t i = 0; i < nr; i++)
				ips[i] = 0x400000 + fz_u32(&in);
			slub_model_stack(r.m, MI_VPID(who), MI_VTID(who), type, slab, ips, nr);
			name(&r, 5, MI_VPID(who), MI_VTID(who), PER_ENTITY);
		} else {
			unsigned who = fz_u8(&in);

			now += fz_u16(&in);
			slub_model_registered(r.m, MI_VPID(who), now);
			name(&r, 7, MI_VPID(who), 0, PER_ENTITY);
		}
		check_memory(&r);
	}
	slub_model_finish(r.m);
	check_memory(&r);
	slub_model_free(r.m);
	free(r.keys.k);
	return 0;
}
