/* SPDX-License-Identifier: MIT */
/*
 * One life of a slab in wire format 4 (or 3, or 2), as the allocator would
 * trace it: new_slab by cpu 0, a remote free, get_freelist, another remote
 * free, deactivate_slab to the partial list under list_lock, acquire_slab
 * by cpu 2, a remote free, deactivate_slab to discard.  Cache 1
 * ("test-64"), 16 objects, node 0, lock id 64.  Every format carries the
 * same values, so that a reader gives the same output for each.
 */
#include <string.h>

#include <slub/event.h>

#include "scripts.h"

/* ---- wire formats 4 and 3: alike but for cache_create, cmpxchg_fail and
 * error ---- */

#define WHERE3 { "where", TF_U64 }
#define SLAB_WORD3 WHERE3, { "slab", TF_U64 }, { "freelist", TF_U64 }, \
	{ "counters", TF_U64 }, { "site", TF_U8 }
#define CPU_SLAB3 WHERE3, { "slab", TF_U64 }, { "count", TF_U32 }, { "pages", TF_U32 }, \
	{ "reason", TF_U8 }
#define LIST_OP3 WHERE3, { "slab", TF_U64 }, { "lock_id_seq", TF_U64 }, \
	{ "lock_seq", TF_U64 }, { "list", TF_U8 }
#define OTHERS \
	[W_STACK] = { "slub:stack", { { "of", TF_U8 }, { "slab", TF_U64 }, \
		{ "ips", TF_SEQ64 } } }, \
	[W_BIN_INFO] = { "lttng_ust_statedump:bin_info", { { "baddr", TF_U64 }, \
		{ "memsz", TF_U64 }, { "path", TF_STR }, { "is_pic", TF_U8 }, \
		{ "has_build_id", TF_U8 }, { "has_debug_link", TF_U8 } } }, \
	[W_OTHER] = { "other_provider:tick", { { "n", TF_U32 } } }

#define CLASSES3 \
	[W_SLAB_NEW] = { "slub:slab_new", { SLAB_WORD3 } }, \
	[W_SLAB_DISCARD] = { "slub:slab_discard", { SLAB_WORD3 } }, \
	[W_FREEZE] = { "slub:freeze", { SLAB_WORD3 } }, \
	[W_UNFREEZE] = { "slub:unfreeze", { SLAB_WORD3 } }, \
	[W_TAKE_FREELIST] = { "slub:take_freelist", { SLAB_WORD3 } }, \
	[W_FREE_REMOTE] = { "slub:free_remote", { SLAB_WORD3 } }, \
	[W_CPU_SLAB_LOAD] = { "slub:cpu_slab_load", { CPU_SLAB3 } }, \
	[W_DEACTIVATE] = { "slub:deactivate", { CPU_SLAB3 } }, \
	[W_ADD_PARTIAL] = { "slub:add_partial", { LIST_OP3 } }, \
	[W_REMOVE_PARTIAL] = { "slub:remove_partial", { LIST_OP3 } }, \
	[W_LOCK_ACQUIRE] = { "slub:lock_acquire", { WHERE3, { "lock_seq", TF_U64 }, \
		{ "wait_ns", TF_U64 }, { "lock_id", TF_U32 } } }, \
	[W_LOCK_RELEASE] = { "slub:lock_release", { WHERE3, { "lock_seq", TF_U64 }, \
		{ "hold_ns", TF_U64 }, { "lock_id", TF_U32 } } }, \
	OTHERS

/* Format 4's own layouts of cache_create, cmpxchg_fail and error, which
 * format 10 keeps. */
#define CLASSES4_OWN \
	[W_CACHE_CREATE] = { "slub:cache_create", { { "format", TF_U8 }, WHERE3, \
		{ "geometry", TF_ARR32, 8 }, { "name", TF_STR } } }, \
	[W_CMPXCHG_FAIL] = { "slub:cmpxchg_fail", { WHERE3, { "slab", TF_U64 }, \
		{ "words", TF_ARR64, 4 }, { "site", TF_U8 } } }, \
	[W_ERROR] = { "slub:error", { WHERE3, { "slab", TF_U64 }, { "object", TF_U64 }, \
		{ "reason", TF_U8 } } }

const struct ts_class wire_v4[W_NR] = {
	CLASSES4_OWN,
	CLASSES3,
};

const struct ts_class wire_v3[W_NR] = {
	[W_CACHE_CREATE] = { "slub:cache_create", { { "format", TF_U8 }, WHERE3,
		{ "geometry", TF_ARR32, 7 }, { "flags", TF_U32 }, { "name", TF_STR } } },
	[W_CMPXCHG_FAIL] = { "slub:cmpxchg_fail", { WHERE3, { "slab", TF_U64 },
		{ "expected", TF_ARR64, 2 }, { "observed", TF_ARR64, 2 }, { "site", TF_U8 } } },
	[W_ERROR] = { "slub:error", { WHERE3, { "slab", TF_U64 }, { "object", TF_U64 },
		{ "reason", TF_U8 }, { "msg", TF_STR } } },
	CLASSES3,
};

/* ---- wire format 10: format 4 with slab_fl, list operations' seq, lock
 * events without lock_id ---- */

#define SLAB_WORD10 WHERE3, { "slab_fl", TF_U64 }, { "counters", TF_U64 }, { "site", TF_U8 }
#define LIST_OP10 WHERE3, { "slab", TF_U64 }, { "lock_seq", TF_U64 }, { "seq", TF_U32 }, \
	{ "list", TF_U8 }

/* Format 10's classes, the slab-word ones laid out as `word`. */
#define CLASSES10(word) \
	CLASSES4_OWN, \
	[W_SLAB_NEW] = { "slub:slab_new", { word } }, \
	[W_SLAB_DISCARD] = { "slub:slab_discard", { word } }, \
	[W_FREEZE] = { "slub:freeze", { word } }, \
	[W_UNFREEZE] = { "slub:unfreeze", { word } }, \
	[W_TAKE_FREELIST] = { "slub:take_freelist", { word } }, \
	[W_FREE_REMOTE] = { "slub:free_remote", { word } }, \
	[W_CPU_SLAB_LOAD] = { "slub:cpu_slab_load", { CPU_SLAB3 } }, \
	[W_DEACTIVATE] = { "slub:deactivate", { CPU_SLAB3 } }, \
	[W_ADD_PARTIAL] = { "slub:add_partial", { LIST_OP10 } }, \
	[W_REMOVE_PARTIAL] = { "slub:remove_partial", { LIST_OP10 } }, \
	[W_LOCK_ACQUIRE] = { "slub:lock_acquire", { WHERE3, { "lock_seq", TF_U64 }, \
		{ "wait_ns", TF_U64 } } }, \
	[W_LOCK_RELEASE] = { "slub:lock_release", { WHERE3, { "lock_seq", TF_U64 }, \
		{ "hold_ns", TF_U64 } } }, \
	OTHERS

const struct ts_class wire_v10[W_NR] = { CLASSES10(SLAB_WORD10) };

/* ---- wire format 11: format 10 with a slab-word event's where, slab_fl
 * and counters in one array ---- */

#define SLAB_WORD11 { "where_slab_fl_counters", TF_ARR64, 3 }, { "site", TF_U8 }

const struct ts_class wire_v11[W_NR] = { CLASSES10(SLAB_WORD11) };

/* slab_fl: the slab's page number over the freelist's offset (ffffff:
 * NULL). */
static uint64_t slab_fl(uint64_t slab, uint64_t off)
{
	return slab << 12 | (off ? off : 0xffffffu);
}

/* ---- wire format 2 ---- */

#define WHERE { "cache_id", TF_U16 }, { "cpu", TF_I16 }, { "node", TF_U8 }
#define SLAB_WORD WHERE, { "site", TF_U8 }, { "dest", TF_U8 }, { "locked", TF_U8 }, \
	{ "slab", TF_U64 }, { "freelist", TF_U64 }, { "counters", TF_U64 }, { "owner", TF_I16 }
#define CPU_SLAB WHERE, { "slot", TF_I16 }, { "slab", TF_U64 }, { "reason", TF_U8 }, \
	{ "dest", TF_U8 }, { "locked", TF_U8 }, { "count", TF_U32 }, { "pages", TF_U32 }
#define LIST_OP WHERE, { "slab", TF_U64 }, { "list", TF_U8 }, { "locked", TF_U8 }, \
	{ "lock_id", TF_U32 }, { "lock_seq", TF_U64 }, { "seq", TF_U32 }

const struct ts_class wire_v2[W_NR] = {
	[W_CMPXCHG_FAIL] = { "slub:cmpxchg_fail", { WHERE, { "site", TF_U8 }, { "locked", TF_U8 },
		{ "slab", TF_U64 }, { "attempt", TF_U16 }, { "expected_freelist", TF_U64 },
		{ "expected_counters", TF_U64 }, { "observed_freelist", TF_U64 },
		{ "observed_counters", TF_U64 } } },
	[W_ERROR] = { "slub:error", { WHERE, { "slab", TF_U64 }, { "reason", TF_U8 },
		{ "object", TF_U64 }, { "msg", TF_STR } } },
	[W_CACHE_CREATE] = { "slub:cache_create", { { "format", TF_U8 }, { "cache_id", TF_U16 },
		{ "name", TF_STR }, { "object_size", TF_U32 }, { "size", TF_U32 },
		{ "align", TF_U32 }, { "order", TF_U32 }, { "objects", TF_U32 },
		{ "min_partial", TF_U32 }, { "cpu_partial", TF_U32 }, { "flags", TF_U32 },
		{ "announced", TF_U8 } } },
	[W_SLAB_NEW] = { "slub:slab_new", { SLAB_WORD } },
	[W_SLAB_DISCARD] = { "slub:slab_discard", { SLAB_WORD } },
	[W_FREEZE] = { "slub:freeze", { SLAB_WORD } },
	[W_UNFREEZE] = { "slub:unfreeze", { SLAB_WORD } },
	[W_TAKE_FREELIST] = { "slub:take_freelist", { SLAB_WORD } },
	[W_FREE_REMOTE] = { "slub:free_remote", { SLAB_WORD } },
	[W_CPU_SLAB_LOAD] = { "slub:cpu_slab_load", { CPU_SLAB } },
	[W_DEACTIVATE] = { "slub:deactivate", { CPU_SLAB } },
	[W_ADD_PARTIAL] = { "slub:add_partial", { LIST_OP } },
	[W_REMOVE_PARTIAL] = { "slub:remove_partial", { LIST_OP } },
	[W_LOCK_ACQUIRE] = { "slub:lock_acquire", { WHERE, { "lock_id", TF_U32 },
		{ "lock_seq", TF_U64 }, { "contended", TF_U8 }, { "wait_ns", TF_U64 } } },
	[W_LOCK_RELEASE] = { "slub:lock_release", { WHERE, { "lock_id", TF_U32 },
		{ "lock_seq", TF_U64 }, { "hold_ns", TF_U64 } } },
	OTHERS,
};

#define OBJS 16
#define LOCK 64
#define COUNTERS(inuse, frozen, seq) \
	((uint64_t)(inuse) | (uint64_t)OBJS << 16 | (uint64_t)(frozen) << 31 | (uint64_t)(seq) << 32)

static struct ts_item items[64];
/* Format 11's slab-word arrays, one per item. */
static uint64_t word3[64][3];
static int n;
static uint64_t now;
static uint64_t stack_ips[2];
static unsigned format;	/* of the script being written */
/* The process of the events added, its name (NULL: the source's default),
 * the cache the script announces and the thread announcing it. */
static int32_t cur_vpid;
static const char *cur_proc, *cache_name;
static int32_t cache_tid;

static void script_defaults(void)
{
	cur_vpid = LIFE_VPID;
	cur_proc = NULL;
	cache_name = "test-64";
	cache_tid = 10;
}

/* `where` (formats 3 and 4): cache 1, node 0, cpu slot t - 10. */
static uint64_t where(int32_t t, unsigned flags, int32_t arg)
{
	return 1 | (uint64_t)(uint16_t)(t - 10) << 16 | (uint64_t)flags << 40 |
	       (uint64_t)(uint16_t)arg << 48;
}

static struct ts_item *add(int cls, int32_t tid)
{
	struct ts_item *i = &items[n++];

	memset(i, 0, sizeof(*i));
	now += 1000;
	i->cls = cls;
	i->ts = now;
	i->vpid = cur_vpid;
	i->vtid = tid;
	i->procname = cur_proc;
	return i;
}

/* Format 11: format 10's where, slab_fl, counters and site as the array
 * and the site. */
static void word11(struct ts_item *i, const uint64_t v10[4])
{
	uint64_t *w = word3[i - items];

	memcpy(w, v10, 3 * sizeof(*w));
	i->v[0] = (uintptr_t)w;
	i->v[1] = v10[3];
}

/* A slab-word event: tid t runs cpu slot t - 10. */
static void word(int cls, int32_t t, unsigned site, unsigned dest, unsigned locked,
		 uint64_t freelist, unsigned inuse, unsigned frozen, unsigned seq)
{
	struct ts_item *i = add(cls, t);
	int32_t owner = frozen ? t - 10 : -1;
	uint64_t fl = freelist ? LIFE_SLAB + freelist : 0;
	uint64_t v2[] = { 1, (uint64_t)(t - 10), 0, site, dest, locked, LIFE_SLAB, fl,
			  COUNTERS(inuse, frozen, seq), (uint64_t)owner };
	uint64_t v3[] = { where(t, locked, owner), LIFE_SLAB, fl, COUNTERS(inuse, frozen, seq),
			  site | dest << 4 };
	uint64_t v10[] = { where(t, locked, owner), slab_fl(LIFE_SLAB, freelist),
			   COUNTERS(inuse, frozen, seq), site | dest << 4 };

	if (format >= 11)
		word11(i, v10);
	else if (format >= 10)
		memcpy(i->v, v10, sizeof(v10));
	else if (format >= 3)
		memcpy(i->v, v3, sizeof(v3));
	else
		memcpy(i->v, v2, sizeof(v2));
}

static void cpu_slab(int cls, int32_t t, unsigned reason, unsigned dest, unsigned count)
{
	struct ts_item *i = add(cls, t);
	uint64_t v2[] = { 1, (uint64_t)(t - 10), 0, (uint64_t)(t - 10), LIFE_SLAB, reason, dest,
			  0, count, 0 };
	uint64_t v3[] = { where(t, 0, t - 10), LIFE_SLAB, count, 0, reason | dest << 4 };

	if (format >= 3)
		memcpy(i->v, v3, sizeof(v3));
	else
		memcpy(i->v, v2, sizeof(v2));
}

static void list_op(int cls, int32_t t, unsigned list, uint64_t lock_seq, unsigned seq)
{
	struct ts_item *i = add(cls, t);
	uint64_t v2[] = { 1, (uint64_t)(t - 10), 0, LIFE_SLAB, list, 1, LOCK, lock_seq, seq };
	uint64_t v3[] = { where(t, 1, 0), LIFE_SLAB, LOCK | (uint64_t)seq << 32, lock_seq, list };
	uint64_t v10[] = { where(t, 1, 0), LIFE_SLAB, lock_seq, seq, list };

	if (format >= 10)
		memcpy(i->v, v10, sizeof(v10));
	else if (format >= 3)
		memcpy(i->v, v3, sizeof(v3));
	else
		memcpy(i->v, v2, sizeof(v2));
}

/* lock_acquire waited 250 ns, uncontended; lock_release held it 0 ns. */
static void lock(int cls, int32_t t, uint64_t lock_seq)
{
	struct ts_item *i = add(cls, t);
	uint64_t v2[] = { 1, (uint64_t)(t - 10), 0, LOCK, lock_seq,
			  0, cls == W_LOCK_ACQUIRE ? 250 : 0 };
	/* format 10 leaves the last, lock_id, out: it is where's cache * 64 +
	 * node */
	uint64_t v3[] = { where(t, 0, 0), lock_seq, cls == W_LOCK_ACQUIRE ? 250 : 0, LOCK };

	if (format >= 3)
		memcpy(i->v, v3, sizeof(v3));
	else
		memcpy(i->v, v2, sizeof(v2));
}

/* Cache 1, "test-64": object_size, size, align, order, objects,
 * min_partial, cpu_partial; flags 0 (format 4: geometry's last element),
 * created now. */
static void cache_create(void)
{
	static const uint64_t geo[8] = { 64, 64, 8, 0, OBJS, 5, 30, 0 };
	struct ts_item *i = add(W_CACHE_CREATE, cache_tid);
	uint64_t v2[] = { 2, 1, (uintptr_t)cache_name, geo[0], geo[1], geo[2], geo[3], geo[4],
			  geo[5], geo[6], geo[7], 0 };
	uint64_t v3[] = { 3, where(10, 0, 0), (uintptr_t)geo, geo[7], (uintptr_t)cache_name };
	uint64_t v4[] = { 4, where(10, 0, 0), (uintptr_t)geo, (uintptr_t)cache_name };

	if (format >= 4) {
		memcpy(i->v, v4, sizeof(v4));
		i->v[0] = format;
	} else if (format == 3)
		memcpy(i->v, v3, sizeof(v3));
	else
		memcpy(i->v, v2, sizeof(v2));
}

void script_life(struct ts_script *s, enum life_variant v, uint64_t ip, uint64_t base,
		 uint64_t size, const char *path)
{
	script_life_format(s, 4, v, ip, base, size, path);
}

static void life(enum life_variant v, uint64_t ip, uint64_t base, uint64_t size,
		 const char *path);

/* record's second channel: LTTng-UST's own events */
static const struct ts_class statedump_classes[] = {
	{ "lttng_ust_statedump:start", { { NULL } } },
};

void script_life_format(struct ts_script *s, unsigned fmt, enum life_variant v, uint64_t ip,
			uint64_t base, uint64_t size, const char *path)
{
	n = 0;
	now = 1000000000ull;	/* 00:00:01 */
	format = fmt;
	script_defaults();
	memset(s, 0, sizeof(*s));
	s->classes = format == 11 ? wire_v11 : format == 10 ? wire_v10 : format == 4 ? wire_v4 :
		format == 3 ? wire_v3 : wire_v2;
	s->nr_classes = W_NR;
	s->items = items;
	s->stream_name = NULL;
	if (v == LIFE_LOST_FOREIGN) {
		s->aux_classes = statedump_classes;
		s->nr_aux_classes = 1;
	}
	if (v == LIFE_OTHER_ONLY) {
		for (int k = 0; k < 4; k++)
			add(W_OTHER, 10)->v[0] = (uint64_t)k;
	} else {
		life(v, ip, base, size, path);
	}
	s->nr_items = n;
}

void script_mixed(struct ts_script *s)
{
	script_life(s, LIFE_CLEAN, 0, 0, 0, NULL);
	n = 0;
	now = 1000000000ull;
	cur_vpid = cache_tid = MIXED_VPID_A;
	cur_proc = "alpha";
	life(LIFE_CLEAN, 0, 0, 0, NULL);
	cur_vpid = cache_tid = MIXED_VPID_B;
	cur_proc = "beta";
	cache_name = "other-64";
	life(LIFE_LOST_UPDATE, 0, 0, 0, NULL);
	s->nr_items = n;
}

/* One life of slab LIFE_SLAB in the current process, from its cache's
 * announcement on. */
static void life(enum life_variant v, uint64_t ip, uint64_t base, uint64_t size,
		 const char *path)
{
	struct ts_item *i;
	unsigned seq = 1;

	cache_create();
	if (v == LIFE_LOST_STACK) {
		i = add(W_BIN_INFO, 10);
		i->v[0] = base;
		i->v[1] = size;
		i->v[2] = (uintptr_t)path;
		i->v[3] = 1;
	}

	/* new_slab() and the cpu slab of slot 0 (thread 10) */
	word(W_SLAB_NEW, 10, SLUB_SITE_NEW_SLAB, SLUB_DEST_NONE, 0, 0, OBJS, 1, seq);
	cpu_slab(W_CPU_SLAB_LOAD, 10, 0, SLUB_DEST_NONE, 0);
	/* thread 11 frees an object remotely */
	word(W_FREE_REMOTE, 11, SLUB_SITE_SLAB_FREE, SLUB_DEST_NONE, 0, 0xa0, OBJS - 1, 1, ++seq);
	/* get_freelist(): the owner takes it back */
	if (v == LIFE_CLEAN)
		word(W_TAKE_FREELIST, 10, SLUB_SITE_GET_FREELIST, SLUB_DEST_NONE, 0, 0, OBJS, 1, ++seq);
	else
		++seq;	/* never reaches the trace */
	if (v == LIFE_LOST_NOTICED || v == LIFE_LOST_FOREIGN) {
		/* LTTng's notice: one event lost in this stream (or in the
		 * statedump stream: 3 of LTTng-UST's own) */
		i = &items[n++];
		memset(i, 0, sizeof(*i));
		i->discard = 1;
		i->aux = v == LIFE_LOST_FOREIGN;
		i->discard_count = i->aux ? 3 : 1;
		i->discard_begin = now + 100;
		i->ts = now + 900;
	}
	word(W_FREE_REMOTE, 11, SLUB_SITE_SLAB_FREE, SLUB_DEST_NONE, 0, 0xb0, OBJS - 1, 1, ++seq);
	if (v == LIFE_LOST_STACK) {
		i = add(W_STACK, 11);
		stack_ips[0] = 1;
		stack_ips[1] = ip;
		i->v[0] = SLUB_EV_FREE_REMOTE;
		i->v[1] = LIFE_SLAB;
		i->v[2] = (uintptr_t)stack_ips;
	}

	/* deactivate_slab() by slot 0: to the partial list's tail */
	lock(W_LOCK_ACQUIRE, 10, 1);
	word(W_UNFREEZE, 10, SLUB_SITE_UNFREEZING_SLAB, SLUB_DEST_TAIL, 1, 0xb0, OBJS - 1, 0, ++seq);
	cpu_slab(W_DEACTIVATE, 10, SLUB_DEACT_NODE_MISMATCH, SLUB_DEST_TAIL, 0);
	list_op(W_ADD_PARTIAL, 10, SLUB_DEST_TAIL, 1, seq);
	lock(W_LOCK_RELEASE, 10, 1);

	/* acquire_slab() by slot 2 (thread 12) */
	lock(W_LOCK_ACQUIRE, 12, 2);
	word(W_FREEZE, 12, SLUB_SITE_ACQUIRE_SLAB, SLUB_DEST_NONE, 1, 0, OBJS, 1, ++seq);
	list_op(W_REMOVE_PARTIAL, 12, SLUB_DEST_NONE, 2, seq);
	lock(W_LOCK_RELEASE, 12, 2);
	cpu_slab(W_CPU_SLAB_LOAD, 12, 0, SLUB_DEST_NONE, 0);
	word(W_FREE_REMOTE, 11, SLUB_SITE_SLAB_FREE, SLUB_DEST_NONE, 0, 0xc0, OBJS - 1, 1, ++seq);

	/* deactivate_slab() by slot 2 with the whole cpu freelist: discard */
	word(W_UNFREEZE, 12, SLUB_SITE_UNFREEZING_SLAB, SLUB_DEST_DISCARD, 0, 0xd0, 0, 0, ++seq);
	cpu_slab(W_DEACTIVATE, 12, SLUB_DEACT_EMPTY_FREELIST, SLUB_DEST_DISCARD, OBJS - 1);
	word(W_SLAB_DISCARD, 12, SLUB_SITE_NONE, SLUB_DEST_NONE, 0, 0xd0, 0, 0, seq);
}

/* ---- a retry storm (wire format 4 or 3) ---- */

static uint64_t storm_words[8][4];

/* One slab-word event of STORM_SLAB: new word (freelist offset, inuse, frozen, seq). */
static void storm_word(int cls, int32_t t, unsigned site, unsigned locked, int32_t owner,
		       uint64_t fl, unsigned inuse, unsigned frozen, unsigned seq)
{
	struct ts_item *i = add(cls, t);
	uint64_t v[] = { where(t, locked, owner), STORM_SLAB, fl ? STORM_SLAB + fl : 0,
			 COUNTERS(inuse, frozen, seq), site };
	uint64_t v10[] = { where(t, locked, owner), slab_fl(STORM_SLAB, fl),
			   COUNTERS(inuse, frozen, seq), site };

	if (format >= 11)
		word11(i, v10);
	else if (format >= 10)
		memcpy(i->v, v10, sizeof(v10));
	else
		memcpy(i->v, v, sizeof(v));
}

/* Thread t's CAS at attempt `attempt` expected the word of seq `exp`
 * (freelist efl, inuse ein) and found seq exp + 1 (ofl, oin). */
static void storm_fail(int k, int32_t t, unsigned locked, unsigned attempt, uint64_t efl,
		       unsigned ein, uint64_t ofl, unsigned oin, unsigned exp)
{
	struct ts_item *i = add(W_CMPXCHG_FAIL, t);
	uint64_t *w = storm_words[k];

	w[0] = STORM_SLAB + efl;
	w[1] = COUNTERS(ein, 1, exp);
	w[2] = STORM_SLAB + ofl;
	w[3] = COUNTERS(oin, 1, exp + 1);
	i->v[0] = where(t, locked, (int32_t)attempt);
	i->v[1] = STORM_SLAB;
	i->v[2] = (uintptr_t)&w[0];	/* format 4: words; 3: expected */
	if (format >= 4) {
		i->v[3] = SLUB_SITE_SLAB_FREE;
	} else {
		i->v[3] = (uintptr_t)&w[2];	/* observed */
		i->v[4] = SLUB_SITE_SLAB_FREE;
	}
}

/* Thread t frees an object of STORM_SLAB that is already free; format 3
 * adds the reason's label as msg. */
static void storm_error(int32_t t, uint64_t object)
{
	struct ts_item *i = add(W_ERROR, t);

	i->v[0] = where(t, 0, 0);
	i->v[1] = STORM_SLAB;
	i->v[2] = STORM_SLAB + object;
	i->v[3] = SLUB_ERR_DOUBLE_FREE;
	if (format == 3)
		i->v[4] = (uintptr_t)"Object already free";
}

void script_storm(struct ts_script *s)
{
	script_storm_format(s, 4);
}

void script_storm_format(struct ts_script *s, unsigned fmt)
{
	unsigned seq = 1, inuse = OBJS;
	uint64_t fl = 0;

	n = 0;
	now = 2000000000ull;	/* 00:00:02 */
	format = fmt;
	script_defaults();
	memset(s, 0, sizeof(*s));
	s->classes = format == 11 ? wire_v11 : format == 10 ? wire_v10 : format == 4 ? wire_v4 :
		wire_v3;
	s->nr_classes = W_NR;
	s->items = items;
	cache_create();
	/* slot 0 (thread 10) takes a new slab, all objects in use */
	storm_word(W_SLAB_NEW, 10, SLUB_SITE_NEW_SLAB, 0, 0, 0, OBJS, 1, seq);
	/* thread 11 loses five times running: 12, 13, 12, 13, 12 free first */
	for (int k = 0; k < 5; k++) {
		int32_t winner = k % 2 ? 13 : 12;
		uint64_t nfl = 0x40u * (unsigned)(k + 1);

		storm_word(W_FREE_REMOTE, winner, SLUB_SITE_SLAB_FREE, 0, SLUB_OWNER_UNKNOWN, nfl,
			   inuse - 1, 1, seq + 1);
		storm_fail(k, 11, 0, (unsigned)k + 1, fl, inuse, nfl, inuse - 1, seq);
		fl = nfl;
		inuse--;
		seq++;
	}
	/* ... and wins its sixth attempt */
	storm_word(W_FREE_REMOTE, 11, SLUB_SITE_SLAB_FREE, 0, SLUB_OWNER_UNKNOWN, 0x200, inuse - 1,
		   1, ++seq);
	inuse--;
	/* thread 14 under list_lock: a locked redo on the slab, retried
	 * without releasing the lock (as before Linux 3.6) */
	lock(W_LOCK_ACQUIRE, 14, 1);
	storm_word(W_FREE_REMOTE, 12, SLUB_SITE_SLAB_FREE, 0, SLUB_OWNER_UNKNOWN, 0x240, inuse - 1, 1,
		   seq + 1);
	storm_fail(5, 14, 1, 1, 0x200, inuse, 0x240, inuse - 1, seq);
	seq++;
	inuse--;
	storm_word(W_FREE_REMOTE, 14, SLUB_SITE_SLAB_FREE, 1, SLUB_OWNER_UNKNOWN, 0x280, inuse - 1, 1,
		   ++seq);
	lock(W_LOCK_RELEASE, 14, 1);
	/* thread 11 frees the object thread 12 freed first */
	storm_error(11, 0x40);
	s->nr_items = n;
}
