/* SPDX-License-Identifier: MIT */
/*
 * CTF -> struct slub_model_event, for wire formats 9 down to 2
 * (tracepoints/slub_tp.h).
 *
 * An event class is looked at once: its name gives the event type, its
 * payload the format and the index of every field the type needs, its
 * stream class the index of the vpid/vtid/procname contexts.  Decoding an
 * event is then a handful of indexed reads, and from format 3 on a few
 * shifts.  A class that lacks a field its type needs is refused when it is
 * first seen, with the event name and the stream.
 *
 * The format of a class: without a `where` field, 2.  With one, the class
 * is laid out as in format 4, which differs from format 3 in three classes
 * only: cache_create carries its flags as the eighth element of `geometry`
 * where format 3 had a `flags` field after a geometry of seven,
 * cmpxchg_fail carries one `words` array where format 3 had `expected` and
 * `observed`, error has no `msg` string.  Those three are read as format 3
 * when they have format 3's own field (`flags`, `expected`, `msg`); every
 * other class is the same in both and is read as format 3.  Format 5 is
 * format 4 with one more event, slabinfo_walk: its cache_create says 5 and
 * is laid out as format 4's.  Format 6 is format 5 where cache_create's
 * flags may carry SLUB_F_SHEAVES (the sheaves generation): the same
 * layout, decoded the same way; the flags reach the sinks in info.flags.
 * Format 7 is format 6 with the sheaf and barn events (sheaf_refill,
 * sheaf_flush, sheaf_slot, barn_put, barn_get), laid out as format 4's
 * other classes; cache_create's format reaches the sinks in out->format.
 * Format 8 adds sheaf_alloc and sheaf_free.  Format 9 carries free_remote's
 * freelist as `freelist_off`, an offset in the slab, and names the threads
 * with slub:comm events in place of the procname context: the decoder keeps
 * each (vpid, vtid)'s last name and gives it as the thread name of the
 * events that follow, as the context gave it.  Format 10 packs every
 * slab-word event's slab and freelist into `slab_fl`, carries list
 * operations' seq as a field `seq` (no lock_id_seq) and leaves the lock id
 * out of the lock events: it is cache_id * 64 + node, as the decoder
 * already derived it for slabinfo_walk.  Format 11 writes a slab-word
 * event's where, slab_fl and counters as one array,
 * `where_slab_fl_counters`: its elements are read as those three fields
 * (dec_class.elem).  Classes are told apart by their
 * fields, so a trace's formats need no look-up before its events.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "decode.h"
#include "log.h"
#include "symbolize.h"

/* Every payload field the decoder reads, by wire name. */
enum dec_field {
	F_CACHE_ID, F_CPU, F_NODE, F_SLAB, F_SITE, F_DEST, F_LOCKED,
	F_FREELIST, F_COUNTERS, F_OWNER, F_ATTEMPT,
	F_EXP_FREELIST, F_EXP_COUNTERS, F_OBS_FREELIST, F_OBS_COUNTERS,
	F_SLOT, F_REASON, F_COUNT, F_PAGES, F_LIST, F_LOCK_ID, F_LOCK_SEQ, F_SEQ,
	F_CONTENDED, F_WAIT_NS, F_HOLD_NS, F_OBJECT, F_SIZE, F_MSG,
	F_FORMAT, F_NAME, F_OBJECT_SIZE, F_ALIGN, F_ORDER, F_OBJECTS,
	F_MIN_PARTIAL, F_CPU_PARTIAL, F_FLAGS, F_ANNOUNCED,
	F_OF, F_IPS,
	/* format 3 */
	F_WHERE, F_GEOMETRY, F_EXPECTED, F_OBSERVED, F_LOCK_ID_SEQ,
	/* format 4 */
	F_WORDS,
	/* format 5: slabinfo_walk */
	F_FREE, F_WALKED, F_LISTED,
	/* format 7: sheaves and barns */
	F_SHEAF, F_MAIN, F_SPARE, F_SIZES, F_COUNTS,
	/* format 9: free_remote's freelist */
	F_FREELIST_OFF,
	/* format 10: a slab word's slab and freelist in one */
	F_SLAB_FL,
	/* format 12: the pid over the tid in the payload (formats 11 and 12
	 * write the slab-word fields as one array: word_arrays below) */
	F_PID_TID,
	/* lttng-ust's own events, for the symbolizer */
	F_BADDR, F_MEMSZ, F_PATH, F_IS_PIC, F_BUILD_ID,
	F_NR
};
_Static_assert(F_NR <= 64, "a class's fields are bits of a uint64_t");

static const char *const field_names[F_NR] = {
	[F_CACHE_ID] = "cache_id", [F_CPU] = "cpu", [F_NODE] = "node", [F_SLAB] = "slab",
	[F_SITE] = "site", [F_DEST] = "dest", [F_LOCKED] = "locked",
	[F_FREELIST] = "freelist", [F_COUNTERS] = "counters", [F_OWNER] = "owner",
	[F_ATTEMPT] = "attempt",
	[F_EXP_FREELIST] = "expected_freelist", [F_EXP_COUNTERS] = "expected_counters",
	[F_OBS_FREELIST] = "observed_freelist", [F_OBS_COUNTERS] = "observed_counters",
	[F_SLOT] = "slot", [F_REASON] = "reason", [F_COUNT] = "count", [F_PAGES] = "pages",
	[F_LIST] = "list", [F_LOCK_ID] = "lock_id", [F_LOCK_SEQ] = "lock_seq",
	[F_SEQ] = "seq", [F_CONTENDED] = "contended", [F_WAIT_NS] = "wait_ns",
	[F_HOLD_NS] = "hold_ns", [F_OBJECT] = "object", [F_SIZE] = "size", [F_MSG] = "msg",
	[F_FORMAT] = "format", [F_NAME] = "name", [F_OBJECT_SIZE] = "object_size",
	[F_ALIGN] = "align", [F_ORDER] = "order", [F_OBJECTS] = "objects",
	[F_MIN_PARTIAL] = "min_partial", [F_CPU_PARTIAL] = "cpu_partial",
	[F_FLAGS] = "flags", [F_ANNOUNCED] = "announced",
	[F_OF] = "of", [F_IPS] = "ips",
	[F_WHERE] = "where", [F_GEOMETRY] = "geometry", [F_EXPECTED] = "expected",
	[F_OBSERVED] = "observed", [F_LOCK_ID_SEQ] = "lock_id_seq", [F_WORDS] = "words",
	[F_FREE] = "free", [F_WALKED] = "walked", [F_LISTED] = "listed",
	[F_SHEAF] = "sheaf", [F_MAIN] = "main", [F_SPARE] = "spare", [F_SIZES] = "sizes",
	[F_COUNTS] = "counts", [F_FREELIST_OFF] = "freelist_off",
	[F_SLAB_FL] = "slab_fl", [F_PID_TID] = "pid_tid",
	[F_BADDR] = "baddr", [F_MEMSZ] = "memsz", [F_PATH] = "path", [F_IS_PIC] = "is_pic",
	[F_BUILD_ID] = "build_id",
};

#define B(f) (1ull << (f))
#define STRING_FIELDS (B(F_MSG) | B(F_NAME) | B(F_PATH))
#define ARRAY_FIELDS (B(F_IPS) | B(F_BUILD_ID) | STATIC_ARRAY_FIELDS)
/* Format 3's and 4's arrays of a fixed length, at least this long (format
 * 4's geometry: GEOMETRY4). */
#define STATIC_ARRAY_FIELDS (B(F_GEOMETRY) | B(F_EXPECTED) | B(F_OBSERVED) | B(F_WORDS))
static const uint8_t static_length[F_NR] = {
	[F_GEOMETRY] = 7, [F_EXPECTED] = 2, [F_OBSERVED] = 2, [F_WORDS] = 4,
};
/* Format 11's and 12's slab_word arrays, and the fields their elements
 * are, in order. */
static const struct {
	const char *name;
	int len;
} word_arrays[] = {
	{ "where_slab_fl_counters", 3 },		/* format 11 */
	{ "where_slab_fl_counters_pid_tid", 4 },	/* format 12 */
};
static const uint8_t word_fields[4] = { F_WHERE, F_SLAB_FL, F_COUNTERS, F_PID_TID };
/* cache_create.geometry of format 4: format 3's seven, then flags. */
#define GEOMETRY4 8
#define WHERE (B(F_CACHE_ID) | B(F_CPU) | B(F_NODE))
#define SLAB_WORD (WHERE | B(F_SLAB) | B(F_SITE) | B(F_DEST) | B(F_LOCKED) | \
		   B(F_FREELIST) | B(F_COUNTERS) | B(F_OWNER))
#define CPU_SLAB (WHERE | B(F_SLOT) | B(F_SLAB) | B(F_REASON) | B(F_DEST) | B(F_LOCKED) | \
		  B(F_COUNT) | B(F_PAGES))
#define LIST_OP (WHERE | B(F_SLAB) | B(F_LIST) | B(F_LOCKED) | B(F_LOCK_ID) | \
		 B(F_LOCK_SEQ) | B(F_SEQ))
#define OBJECT (WHERE | B(F_SLAB) | B(F_OBJECT) | B(F_SIZE))

/* What each slub event type must carry in format 2. */
static const uint64_t required2[SLUB_EV_NR] = {
	[SLUB_EV_CACHE_CREATE] = B(F_FORMAT) | B(F_CACHE_ID) | B(F_NAME) | B(F_OBJECT_SIZE) |
		B(F_SIZE) | B(F_ALIGN) | B(F_ORDER) | B(F_OBJECTS) | B(F_MIN_PARTIAL) |
		B(F_CPU_PARTIAL) | B(F_FLAGS) | B(F_ANNOUNCED),
	[SLUB_EV_CACHE_DESTROY] = B(F_CACHE_ID) | B(F_COUNT),
	[SLUB_EV_SLAB_NEW] = SLAB_WORD,
	[SLUB_EV_SLAB_DISCARD] = SLAB_WORD,
	[SLUB_EV_FREEZE] = SLAB_WORD,
	[SLUB_EV_UNFREEZE] = SLAB_WORD,
	[SLUB_EV_TAKE_FREELIST] = SLAB_WORD,
	[SLUB_EV_FREE_REMOTE] = SLAB_WORD,
	[SLUB_EV_DRAIN_FREELIST] = SLAB_WORD,
	[SLUB_EV_CPU_SLAB_LOAD] = CPU_SLAB,
	[SLUB_EV_DEACTIVATE] = CPU_SLAB,
	[SLUB_EV_CPU_PARTIAL_PUT] = CPU_SLAB,
	[SLUB_EV_CPU_PARTIAL_TAKE] = CPU_SLAB,
	[SLUB_EV_CPU_PARTIAL_DRAIN] = CPU_SLAB,
	[SLUB_EV_ADD_PARTIAL] = LIST_OP,
	[SLUB_EV_REMOVE_PARTIAL] = LIST_OP,
	[SLUB_EV_ADD_FULL] = LIST_OP,
	[SLUB_EV_REMOVE_FULL] = LIST_OP,
	[SLUB_EV_CMPXCHG_FAIL] = WHERE | B(F_SLAB) | B(F_SITE) | B(F_LOCKED) | B(F_ATTEMPT) |
		B(F_EXP_FREELIST) | B(F_EXP_COUNTERS) | B(F_OBS_FREELIST) | B(F_OBS_COUNTERS),
	[SLUB_EV_CPU_CMPXCHG_FAIL] = WHERE | B(F_SLAB) | B(F_SITE) | B(F_ATTEMPT),
	[SLUB_EV_LOCK_ACQUIRE] = WHERE | B(F_LOCK_ID) | B(F_LOCK_SEQ) | B(F_CONTENDED) |
		B(F_WAIT_NS),
	[SLUB_EV_LOCK_RELEASE] = WHERE | B(F_LOCK_ID) | B(F_LOCK_SEQ) | B(F_HOLD_NS),
	[SLUB_EV_THREAD_FLUSH] = WHERE | B(F_SLOT) | B(F_COUNT),
	[SLUB_EV_ALLOC] = OBJECT,
	[SLUB_EV_FREE] = OBJECT,
	[SLUB_EV_ERROR] = WHERE | B(F_SLAB) | B(F_REASON) | B(F_OBJECT) | B(F_MSG),
	/* format 5's and 7's: never laid out as format 2 */
	[SLUB_EV_SLABINFO_WALK] = B(F_WHERE),
	[SLUB_EV_SHEAF_REFILL] = B(F_WHERE),
	[SLUB_EV_SHEAF_FLUSH] = B(F_WHERE),
	[SLUB_EV_SHEAF_SLOT] = B(F_WHERE),
	[SLUB_EV_BARN_PUT] = B(F_WHERE),
	[SLUB_EV_BARN_GET] = B(F_WHERE),
	[SLUB_EV_SHEAF_ALLOC] = B(F_WHERE),
	[SLUB_EV_SHEAF_FREE] = B(F_WHERE),
};

/* ... and in format 3: the small integers are in `where`. */
#define SLAB_WORD3 (B(F_WHERE) | B(F_SLAB) | B(F_FREELIST) | B(F_COUNTERS) | B(F_SITE))
#define CPU_SLAB3 (B(F_WHERE) | B(F_SLAB) | B(F_COUNT) | B(F_PAGES) | B(F_REASON))
#define LIST_OP3 (B(F_WHERE) | B(F_SLAB) | B(F_LOCK_ID_SEQ) | B(F_LOCK_SEQ) | B(F_LIST))
#define OBJECT3 (B(F_WHERE) | B(F_SLAB) | B(F_OBJECT) | B(F_SIZE))
#define SHEAF_SLAB7 (B(F_WHERE) | B(F_SLAB) | B(F_SHEAF) | B(F_SIZE))
#define BARN7 (B(F_WHERE) | B(F_SHEAF) | B(F_COUNTS) | B(F_SIZE))

static const uint64_t required3[SLUB_EV_NR] = {
	[SLUB_EV_CACHE_CREATE] = B(F_FORMAT) | B(F_WHERE) | B(F_GEOMETRY) | B(F_FLAGS) |
		B(F_NAME),
	[SLUB_EV_CACHE_DESTROY] = B(F_CACHE_ID) | B(F_COUNT),
	[SLUB_EV_SLAB_NEW] = SLAB_WORD3,
	[SLUB_EV_SLAB_DISCARD] = SLAB_WORD3,
	[SLUB_EV_FREEZE] = SLAB_WORD3,
	[SLUB_EV_UNFREEZE] = SLAB_WORD3,
	[SLUB_EV_TAKE_FREELIST] = SLAB_WORD3,
	[SLUB_EV_FREE_REMOTE] = SLAB_WORD3,
	[SLUB_EV_DRAIN_FREELIST] = SLAB_WORD3,
	[SLUB_EV_CPU_SLAB_LOAD] = CPU_SLAB3,
	[SLUB_EV_DEACTIVATE] = CPU_SLAB3,
	[SLUB_EV_CPU_PARTIAL_PUT] = CPU_SLAB3,
	[SLUB_EV_CPU_PARTIAL_TAKE] = CPU_SLAB3,
	[SLUB_EV_CPU_PARTIAL_DRAIN] = CPU_SLAB3,
	[SLUB_EV_ADD_PARTIAL] = LIST_OP3,
	[SLUB_EV_REMOVE_PARTIAL] = LIST_OP3,
	[SLUB_EV_ADD_FULL] = LIST_OP3,
	[SLUB_EV_REMOVE_FULL] = LIST_OP3,
	[SLUB_EV_CMPXCHG_FAIL] = B(F_WHERE) | B(F_SLAB) | B(F_EXPECTED) | B(F_OBSERVED) |
		B(F_SITE),
	[SLUB_EV_CPU_CMPXCHG_FAIL] = B(F_WHERE) | B(F_SLAB) | B(F_SITE),
	[SLUB_EV_LOCK_ACQUIRE] = B(F_WHERE) | B(F_LOCK_SEQ) | B(F_WAIT_NS) | B(F_LOCK_ID),
	[SLUB_EV_LOCK_RELEASE] = B(F_WHERE) | B(F_LOCK_SEQ) | B(F_HOLD_NS) | B(F_LOCK_ID),
	[SLUB_EV_THREAD_FLUSH] = B(F_WHERE) | B(F_COUNT),
	[SLUB_EV_ALLOC] = OBJECT3,
	[SLUB_EV_FREE] = OBJECT3,
	[SLUB_EV_ERROR] = B(F_WHERE) | B(F_SLAB) | B(F_OBJECT) | B(F_REASON) | B(F_MSG),
	/* format 5 (format 4's layout and one more event) */
	[SLUB_EV_SLABINFO_WALK] = B(F_WHERE) | B(F_LOCK_SEQ) | B(F_FREE) | B(F_WALKED) |
		B(F_LISTED),
	/* format 7 */
	[SLUB_EV_SHEAF_REFILL] = SHEAF_SLAB7,
	[SLUB_EV_SHEAF_FLUSH] = SHEAF_SLAB7,
	[SLUB_EV_SHEAF_SLOT] = B(F_WHERE) | B(F_MAIN) | B(F_SPARE) | B(F_SIZES),
	[SLUB_EV_BARN_PUT] = BARN7,
	[SLUB_EV_BARN_GET] = BARN7,
	/* format 8 */
	[SLUB_EV_SHEAF_ALLOC] = B(F_WHERE) | B(F_SHEAF),
	[SLUB_EV_SHEAF_FREE] = B(F_WHERE) | B(F_SHEAF),
};

/* Format 4: the classes that differ from format 3 (the others are read
 * with required3). */
static uint64_t required4(unsigned type)
{
	switch (type) {
	case SLUB_EV_CACHE_CREATE:
		return B(F_FORMAT) | B(F_WHERE) | B(F_GEOMETRY) | B(F_NAME);
	case SLUB_EV_CMPXCHG_FAIL:
		return B(F_WHERE) | B(F_SLAB) | B(F_WORDS) | B(F_SITE);
	case SLUB_EV_ERROR:
		return B(F_WHERE) | B(F_SLAB) | B(F_OBJECT) | B(F_REASON);
	default:
		return required3[type];
	}
}

/* slab_free.freelist_off of a NULL freelist (format 9). */
#define FREELIST_OFF_NULL 0xffffffffull
/* slab_word.slab_fl (format 10): the slab's page number over the
 * freelist's offset (ffffff NULL; fffffe a pointer outside the slab, not
 * carried). */
#define SLAB_FL_BITS 24
#define SLAB_FL_OFF 0xffffffull
#define SLAB_FL_NULL 0xffffffull

/* The bits of format 3's and 4's `where` word. */
#define WHERE_LOCKED (1ull << 40)
#define WHERE_CONTENDED (1ull << 41)
#define WHERE_ANNOUNCED (1ull << 42)
#define WHERE_OTHER_NODE (1ull << 43)

enum dec_kind {
	K_IGNORE = 0,
	K_SLUB,		/* a slub event of type dc->type */
	K_STACK,	/* slub:stack */
	K_COMM,		/* slub:comm: the name of the thread (format 9) */
	K_BIN,		/* slub:bin_info: a loaded object and its build id (format 9) */
	K_SD_START,	/* lttng_ust_statedump:start: the process's objects follow */
	K_LOAD,		/* bin_info, dlopen, dlmopen, lib:load */
	K_BUILD_ID,	/* the build id of a loaded object */
	K_UNLOAD,	/* dlclose, lib:unload */
	K_BAD,		/* refused: reported once, every event of it fails */
};

struct dec_class {
	enum dec_kind kind;
	unsigned type;
	unsigned format;	/* K_SLUB: the layout, 2, 3, or 4 (cache_create,
				 * cmpxchg_fail and error only; format 5 is
				 * laid out as 4) */
	const char *name;
	int16_t idx[F_NR];
	/* >= 0: field f is element elem[f] of the array member idx[f]
	 * (format 11's where_slab_fl_counters); -1: a member of its own */
	int8_t elem[F_NR];
	uint64_t is_signed;
	int16_t ctx_vpid, ctx_vtid, ctx_procname;
	uint8_t ctx_unsigned;	/* bit 0 vpid, bit 1 vtid unsigned (LTTng's are signed) */
	const bt_trace_class *tc;	/* its trace class: the key goes with it */
};

struct dec_stream {
	uint64_t id;
	uint32_t host;		/* shifted by SLUB_DEC_HOST_SHIFT */
	char *name;
	const bt_trace *trace;	/* NULL once destroyed: the key is gone, the name stays */
	bool has_clock;
	/* Discarded events and discarded packets messages have clock
	 * snapshots: two properties of the stream class, not one. */
	bool discard_clock, discard_pk_clock;
};

struct slub_decoder {
	bt_self_component *self;
	struct slub_symbolizer *sym;
	GHashTable *classes;	/* bt_event_class -> struct dec_class (owned) */
	GHashTable *streams;	/* bt_stream -> struct dec_stream (by_id owns it) */
	/* The traces and trace classes whose objects are keys above, each with
	 * the id of the destruction listener that drops those keys: a live
	 * source's streams come and go, and a freed stream's address may be
	 * a new stream's. */
	GHashTable *traces;	/* bt_trace -> bt_listener_id */
	GHashTable *trace_classes;	/* bt_trace_class -> bt_listener_id */
	struct dec_stream **by_id;
	size_t nr_streams, cap_streams;
	const bt_stream *last_stream;
	struct dec_stream *last;
	const bt_event_class *last_ec;
	struct dec_class *last_dc;
	uint64_t events;
	enum slub_plugin_unusable unusable;
	char error[512];
	char *trace_dir;
	const struct slub_log *log;	/* the sink's; NULL: nothing is logged */
	bool slub_classes;	/* a stream class of the input has slub:* events */
	char **hosts;		/* by number, see decode.h */
	uint32_t nr_hosts;
	/* Thread names from slub:comm (format 9): (vpid << 32 | vtid) -> a
	 * string of `names`, which owns each name once for the decoder's
	 * life (sinks and queued events may keep the pointers). */
	GHashTable *threads;
	GHashTable *names;
	uint64_t last_thread;	/* the last (vpid, vtid) looked up, and its name */
	const char *last_name;
};

static guint thread_hash(gconstpointer k)
{
	uint64_t x = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull;

	return (guint)(x >> 32);
}

static inline uint64_t thread_key(uint32_t vpid, uint32_t vtid)
{
	return (uint64_t)vpid << 32 | vtid;
}

/* The name slub:comm last gave the thread; NULL when none did. */
static const char *thread_name(struct slub_decoder *d, uint32_t vpid, uint32_t vtid)
{
	uint64_t k = thread_key(vpid, vtid);

	if (k != d->last_thread || !d->last_name) {
		d->last_thread = k;
		d->last_name = g_hash_table_lookup(d->threads, (gconstpointer)(uintptr_t)k);
	}
	return d->last_name;
}

/* slub:comm: the thread is now called `name`; -1 when out of memory. */
static int name_thread(struct slub_decoder *d, uint32_t vpid, uint32_t vtid, const char *name)
{
	char *n = g_hash_table_lookup(d->names, name);

	if (!n) {
		if (!(n = strdup(name)))
			return -1;
		g_hash_table_add(d->names, n);
	}
	g_hash_table_insert(d->threads, (gpointer)(uintptr_t)thread_key(vpid, vtid), n);
	d->last_name = NULL;
	return 0;
}

struct slub_decoder *slub_decoder_create(bt_self_component *self, struct slub_symbolizer *sym)
{
	struct slub_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->self = self;
	d->sym = sym;
	d->classes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free);
	d->streams = g_hash_table_new(g_direct_hash, g_direct_equal);
	d->traces = g_hash_table_new(g_direct_hash, g_direct_equal);
	d->trace_classes = g_hash_table_new(g_direct_hash, g_direct_equal);
	d->threads = g_hash_table_new(thread_hash, g_direct_equal);
	d->names = g_hash_table_new_full(g_str_hash, g_str_equal, free, NULL);
	return d;
}

static void free_stream(void *v)
{
	struct dec_stream *s = v;

	free(s->name);
	free(s);
}

/* A trace is destroyed: its streams stop being keys (their names stay,
 * by id, for the reports). */
static void trace_destroyed(const bt_trace *trace, void *data)
{
	struct slub_decoder *d = data;
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, d->streams);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		struct dec_stream *s = value;

		if (s->trace == trace) {
			s->trace = NULL;
			g_hash_table_iter_remove(&it);
		}
	}
	if (d->last && !d->last->trace) {
		d->last_stream = NULL;
		d->last = NULL;
	}
	g_hash_table_remove(d->traces, trace);
	slub_log(d->log, BT_LOGGING_LEVEL_DEBUG, "a trace was destroyed: its streams are forgotten");
}

/* A trace class is destroyed: its event classes stop being keys. */
static void trace_class_destroyed(const bt_trace_class *tc, void *data)
{
	struct slub_decoder *d = data;
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, d->classes);
	while (g_hash_table_iter_next(&it, NULL, &value))
		if (((struct dec_class *)value)->tc == tc) {
			if (value == d->last_dc) {
				d->last_ec = NULL;
				d->last_dc = NULL;
			}
			g_hash_table_iter_remove(&it);	/* frees the dec_class */
		}
	g_hash_table_remove(d->trace_classes, tc);
	slub_log(d->log, BT_LOGGING_LEVEL_DEBUG,
		 "a trace class was destroyed: its event classes are forgotten");
}

/* Listens for the destruction of trace (and trace class tc, when not
 * NULL) once; 0, or -1 after appending an error cause. */
static int watch_trace(struct slub_decoder *d, const bt_trace *trace, const bt_trace_class *tc)
{
	bt_listener_id id;

	if (trace && !g_hash_table_contains(d->traces, trace)) {
		if (bt_trace_add_destruction_listener(trace, trace_destroyed, d, &id) !=
		    BT_TRACE_ADD_LISTENER_STATUS_OK)
			goto nomem;
		g_hash_table_insert(d->traces, (gpointer)trace, GUINT_TO_POINTER((guint)id));
	}
	if (tc && !g_hash_table_contains(d->trace_classes, tc)) {
		if (bt_trace_class_add_destruction_listener(tc, trace_class_destroyed, d, &id) !=
		    BT_TRACE_CLASS_ADD_LISTENER_STATUS_OK)
			goto nomem;
		g_hash_table_insert(d->trace_classes, (gpointer)tc, GUINT_TO_POINTER((guint)id));
	}
	return 0;
nomem:
	if (d->self)
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(d->self,
			"cannot listen for the destruction of a trace: out of memory");
	return -1;
}

/* The decoder goes before the traces it watched: no listener may call it. */
static void unwatch_all(struct slub_decoder *d)
{
	GHashTableIter it;
	gpointer key, value;

	if (d->traces) {
		g_hash_table_iter_init(&it, d->traces);
		while (g_hash_table_iter_next(&it, &key, &value))
			bt_trace_remove_destruction_listener(key, (bt_listener_id)GPOINTER_TO_UINT(value));
		g_hash_table_destroy(d->traces);
	}
	if (d->trace_classes) {
		g_hash_table_iter_init(&it, d->trace_classes);
		while (g_hash_table_iter_next(&it, &key, &value))
			bt_trace_class_remove_destruction_listener(key,
				(bt_listener_id)GPOINTER_TO_UINT(value));
		g_hash_table_destroy(d->trace_classes);
	}
}

void slub_decoder_destroy(struct slub_decoder *d)
{
	if (!d)
		return;
	unwatch_all(d);
	if (d->classes)
		g_hash_table_destroy(d->classes);
	if (d->streams)
		g_hash_table_destroy(d->streams);
	if (d->threads)
		g_hash_table_destroy(d->threads);
	if (d->names)
		g_hash_table_destroy(d->names);
	for (size_t i = 0; i < d->nr_streams; i++)
		free_stream(d->by_id[i]);
	free(d->by_id);
	free(d->trace_dir);
	for (uint32_t i = 0; i < d->nr_hosts; i++)
		free(d->hosts[i]);
	free(d->hosts);
	free(d);
}

void slub_decoder_set_log(struct slub_decoder *d, const struct slub_log *log)
{
	d->log = log;
}

bool slub_decoder_saw_slub_classes(const struct slub_decoder *d)
{
	return d->slub_classes;
}

const char *slub_decoder_error(const struct slub_decoder *d, enum slub_plugin_unusable *kind)
{
	if (kind)
		*kind = d->unusable;
	return d->error;
}

uint64_t slub_decoder_events(const struct slub_decoder *d)
{
	return d->events;
}

size_t slub_decoder_keys(const struct slub_decoder *d)
{
	return g_hash_table_size(d->streams) + g_hash_table_size(d->classes);
}

const char *slub_decoder_stream_name(const struct slub_decoder *d, uint64_t id)
{
	return id < d->nr_streams ? d->by_id[id]->name : "?";
}

const char *slub_decoder_trace_dir(const struct slub_decoder *d)
{
	return d->trace_dir;
}

uint32_t slub_decoder_hosts(const struct slub_decoder *d)
{
	return d->nr_hosts;
}

const char *slub_decoder_host_name(const struct slub_decoder *d, uint32_t i)
{
	return i < d->nr_hosts ? d->hosts[i] : "?";
}

uint32_t slub_decoder_stream_host(const struct slub_decoder *d, uint64_t id)
{
	return id < d->nr_streams ? slub_dec_host(d->by_id[id]->host) : 0;
}

/* Records the first reason the input is unusable and appends a cause. */
static __attribute__((format(printf, 3, 4)))
void refuse(struct slub_decoder *d, enum slub_plugin_unusable why, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!d->unusable) {
		d->unusable = why;
		snprintf(d->error, sizeof(d->error), "%s", buf);
	}
	slub_log(d->log, BT_LOGGING_LEVEL_WARNING, "unusable input: %s", buf);
	if (d->self)
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(d->self, "%s", buf);
}

/* ---- streams ------------------------------------------------------------- */

/* The number of the host whose trace holds bs, or -1 (no memory, or more
 * hosts than the vpid has bits for: refused). */
static int64_t host_of(struct slub_decoder *d, const bt_stream *bs)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(
		bt_stream_borrow_trace_const(bs), "hostname");
	const char *name = v && bt_value_is_string(v) ? bt_value_string_get(v) : "?";
	char **n;

	for (uint32_t i = 0; i < d->nr_hosts; i++)
		if (!strcmp(d->hosts[i], name))
			return i;
	if (d->nr_hosts == SLUB_DEC_MAX_HOSTS) {
		refuse(d, SLUB_UNUSABLE_MALFORMED, "%s: more than %u hosts (trace environments "
		       "with distinct hostnames) in one analysis", name, SLUB_DEC_MAX_HOSTS);
		return -1;
	}
	n = realloc(d->hosts, (d->nr_hosts + 1) * sizeof(*n));
	if (!n)
		return -1;
	d->hosts = n;
	n[d->nr_hosts] = strdup(name);
	if (!n[d->nr_hosts])
		return -1;
	return d->nr_hosts++;
}

/* Whether a stream class (an LTTng channel) declares a slub event. */
static bool has_slub_class(const bt_stream_class *sc)
{
	for (uint64_t i = 0; i < bt_stream_class_get_event_class_count(sc); i++) {
		const char *ecn = bt_event_class_get_name(
			bt_stream_class_borrow_event_class_by_index_const(sc, i));

		if (ecn && !strncmp(ecn, "slub:", 5))
			return true;
	}
	return false;
}

static struct dec_stream *get_stream(struct slub_decoder *d, const bt_stream *bs)
{
	struct dec_stream *s;
	const bt_stream_class *sc;
	const char *name;
	int64_t host;

	if (bs == d->last_stream)
		return d->last;
	s = g_hash_table_lookup(d->streams, bs);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		name = bt_stream_get_name(bs);
		if (name)
			s->name = strdup(name);
		else if (asprintf(&s->name, "stream %" PRIu64, bt_stream_get_id(bs)) < 0)
			s->name = NULL;
		sc = bt_stream_borrow_class_const(bs);
		s->has_clock = bt_stream_class_borrow_default_clock_class_const(sc) != NULL;
		s->discard_clock = s->has_clock &&
			bt_stream_class_discarded_events_have_default_clock_snapshots(sc);
		s->discard_pk_clock = s->has_clock &&
			bt_stream_class_discarded_packets_have_default_clock_snapshots(sc);
		host = host_of(d, bs);
		if (host < 0) {
			free_stream(s);
			return NULL;
		}
		s->host = (uint32_t)host << SLUB_DEC_HOST_SHIFT;
		if (d->nr_streams == d->cap_streams) {
			size_t cap = d->cap_streams ? d->cap_streams * 2 : 16;
			struct dec_stream **n = realloc(d->by_id, cap * sizeof(*n));

			if (!n) {
				free_stream(s);
				return NULL;
			}
			d->by_id = n;
			d->cap_streams = cap;
		}
		s->trace = bt_stream_borrow_trace_const(bs);
		if (!s->name || watch_trace(d, s->trace, NULL) < 0) {
			free_stream(s);
			return NULL;
		}
		g_hash_table_insert(d->streams, (gpointer)bs, s);
		s->id = d->nr_streams;
		d->by_id[d->nr_streams++] = s;
		/* An input with slub event classes but no slub event in range
		 * (a trimmer's empty window) is still a slub trace. */
		if (!d->slub_classes)
			d->slub_classes = has_slub_class(sc);
		slub_log(d->log, BT_LOGGING_LEVEL_DEBUG, "new stream %" PRIu64 ": %s", s->id, s->name);
		/* src.ctf.fs names a stream after its file: the trace is its directory. */
		if (!d->trace_dir && name && strchr(name, '/')) {
			d->trace_dir = strdup(name);
			if (d->trace_dir)
				*strrchr(d->trace_dir, '/') = '\0';
		}
	}
	d->last_stream = bs;
	d->last = s;
	return s;
}

static const char *trace_name(struct slub_decoder *d)
{
	return d->trace_dir ? d->trace_dir : "the trace";
}

/* ---- event classes ------------------------------------------------------- */

static int member_index(const bt_field_class *st, const char *name)
{
	uint64_t n;

	if (!st || bt_field_class_get_type(st) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return -1;
	n = bt_field_class_structure_get_member_count(st);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(st, i);

		if (!strcmp(bt_field_class_structure_member_get_name(m), name))
			return (int)i;
	}
	return -1;
}

static const bt_field_class *member_class(const bt_field_class *st, int i)
{
	return bt_field_class_structure_member_borrow_field_class_const(
		bt_field_class_structure_borrow_member_by_index_const(st, i));
}

static enum dec_kind other_kind(const char *name)
{
	static const struct { const char *name; enum dec_kind kind; } k[] = {
		{ "lttng_ust_statedump:start", K_SD_START },
		{ "lttng_ust_statedump:bin_info", K_LOAD },
		{ "lttng_ust_statedump:build_id", K_BUILD_ID },
		{ "lttng_ust_dl:dlopen", K_LOAD },
		{ "lttng_ust_dl:dlmopen", K_LOAD },
		{ "lttng_ust_dl:build_id", K_BUILD_ID },
		{ "lttng_ust_dl:dlclose", K_UNLOAD },
		{ "lttng_ust_lib:load", K_LOAD },
		{ "lttng_ust_lib:build_id", K_BUILD_ID },
		{ "lttng_ust_lib:unload", K_UNLOAD },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(name, k[i].name))
			return k[i].kind;
	return K_IGNORE;
}

static uint64_t required_of(const struct dec_class *dc)
{
	switch (dc->kind) {
	case K_SLUB:
		return dc->format == 4 ? required4(dc->type) :
			dc->format == 3 ? required3[dc->type] : required2[dc->type];
	case K_STACK:
		return B(F_OF) | B(F_SLAB) | B(F_IPS);
	case K_COMM:
		return B(F_NAME);
	case K_LOAD:
	case K_BIN:
		return B(F_BADDR) | B(F_MEMSZ) | B(F_PATH);
	case K_BUILD_ID:
		return B(F_BADDR) | B(F_BUILD_ID);
	case K_UNLOAD:
		return B(F_BADDR);
	default:
		return 0;
	}
}

/* The field only format 3 has in a class whose layout format 4 changed;
 * -1 for every other class. */
static int format3_field(unsigned type)
{
	switch (type) {
	case SLUB_EV_CACHE_CREATE:
		return F_FLAGS;
	case SLUB_EV_CMPXCHG_FAIL:
		return F_EXPECTED;
	case SLUB_EV_ERROR:
		return F_MSG;
	default:
		return -1;
	}
}

/* The formats a slub class of this layout may come from. */
static const char *format_names(const struct dec_class *dc)
{
	switch (dc->format) {
	case 2:
		return "2";
	case 4:
		return "4";
	default:
		return format3_field(dc->type) >= 0 ? "3" : "3 or 4";
	}
}

/* What the event class is: a slub event (and its type), slub:stack, an
 * lttng-ust event the symbolizer reads, or nothing to read (K_IGNORE). */
static void class_kind(struct slub_decoder *d, struct dec_class *dc)
{
	if (!strncmp(dc->name, "slub:", 5)) {
		const char *ev = dc->name + 5;

		if (!strcmp(ev, "stack")) {
			dc->kind = K_STACK;
		} else if (!strcmp(ev, "comm")) {
			dc->kind = K_COMM;
		} else if (!strcmp(ev, "bin_info")) {
			dc->kind = d->sym ? K_BIN : K_IGNORE;
		} else {
			for (unsigned t = 0; t < SLUB_EV_NR; t++) {
				if (!strcmp(ev, slub_event_name(t))) {
					dc->kind = K_SLUB;
					dc->type = t;
					break;
				}
			}
			/* An event this slubtrace does not know: a newer format. */
		}
	} else if (d->sym) {
		dc->kind = other_kind(dc->name);
	}
}

/* The payload's fields by name, each kept when of the type it must have:
 * 0, or -1 when the class is refused. */
static int map_payload(struct slub_decoder *d, struct dec_class *dc,
		       const bt_field_class *payload)
{
	for (int f = 0; f < F_NR; f++) {
		int i = member_index(payload, field_names[f]);
		const bt_field_class *fc;
		bt_field_class_type t;

		if (i < 0)
			continue;
		fc = member_class(payload, i);
		t = bt_field_class_get_type(fc);
		if (B(f) & STRING_FIELDS) {
			if (t != BT_FIELD_CLASS_TYPE_STRING)
				continue;
		} else if (B(f) & ARRAY_FIELDS) {
			if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY) ||
			    !bt_field_class_type_is(bt_field_class_get_type(
				    bt_field_class_array_borrow_element_field_class_const(fc)),
				    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
				continue;
			if ((B(f) & STATIC_ARRAY_FIELDS) &&
			    (t != BT_FIELD_CLASS_TYPE_STATIC_ARRAY ||
			     bt_field_class_array_static_get_length(fc) < static_length[f]))
				continue;
		} else if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER)) {
			if (f == F_FORMAT && dc->kind == K_SLUB) {
				/* the version marker itself is unreadable: no
				 * format can be assumed */
				refuse(d, SLUB_UNUSABLE_MALFORMED,
				       "%s: event %s: field `format` is not an integer: its "
				       "metadata is not slubtrace's (damaged, or another provider "
				       "named slub)", trace_name(d), dc->name);
				dc->kind = K_BAD;
				return -1;
			}
			continue;
		} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
			dc->is_signed |= B(f);
		}
		dc->idx[f] = (int16_t)i;
	}
	/* Formats 11 and 12: the slab_word class's words in one array, read
	 * as the fields format 10 had (and format 12's pid_tid), unless the
	 * class has those too. */
	for (size_t a = 0; a < sizeof(word_arrays) / sizeof(word_arrays[0]); a++) {
		int i = member_index(payload, word_arrays[a].name);
		const bt_field_class *fc;

		if (i < 0 || dc->idx[F_WHERE] >= 0 || dc->idx[F_SLAB_FL] >= 0 ||
		    dc->idx[F_COUNTERS] >= 0 || dc->idx[F_PID_TID] >= 0)
			continue;
		fc = member_class(payload, i);
		if (bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STATIC_ARRAY ||
		    bt_field_class_array_static_get_length(fc) < (uint64_t)word_arrays[a].len ||
		    !bt_field_class_type_is(bt_field_class_get_type(
			    bt_field_class_array_borrow_element_field_class_const(fc)),
			    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			continue;
		for (int k = 0; k < word_arrays[a].len; k++) {
			dc->idx[word_fields[k]] = (int16_t)i;
			dc->elem[word_fields[k]] = (int8_t)k;
		}
	}
	return 0;
}

/* The slub trace format the class is laid out in: 0, or -1 when it is
 * refused (format 1). */
static int class_format(struct slub_decoder *d, struct dec_class *dc,
			const bt_field_class *payload)
{
	/* Format 1: slab-word events carry old_/new_ words, cache_create
	 * has no format field. */
	if (dc->kind == K_SLUB && (member_index(payload, "new_seq") >= 0 ||
				   (dc->type == SLUB_EV_CACHE_CREATE && dc->idx[F_FORMAT] < 0))) {
		refuse(d, SLUB_UNUSABLE_FORMAT,
		       "%s: recorded with slub trace format 1; this slubtrace reads formats 2 "
		       "to %d: record it again", trace_name(d), SLUB_DEC_FORMAT);
		dc->kind = K_BAD;
		return -1;
	}
	/* Formats 3 and 4 pack the small integers of every event but
	 * cache_destroy (the same in all three) into `where`; format 4 lays
	 * out cache_create, cmpxchg_fail and error anew (see the top of this
	 * file). */
	dc->format = member_index(payload, field_names[F_WHERE]) >= 0 ||
		dc->elem[F_WHERE] >= 0 ? 3 : 2;
	if (dc->format == 3 && dc->kind == K_SLUB && format3_field(dc->type) >= 0 &&
	    member_index(payload, field_names[format3_field(dc->type)]) < 0)
		dc->format = 4;
	/* Format 4's geometry ends with the flags: seven elements are not
	 * enough. */
	if (dc->format == 4 && dc->type == SLUB_EV_CACHE_CREATE && dc->idx[F_GEOMETRY] >= 0 &&
	    bt_field_class_array_static_get_length(member_class(payload, dc->idx[F_GEOMETRY])) <
	    GEOMETRY4)
		dc->idx[F_GEOMETRY] = -1;
	return 0;
}

/* Every field the class needs is there: 0, or -1 (an lttng-ust event is
 * then ignored, a slub event refused). */
static int check_required(struct slub_decoder *d, struct dec_class *dc, struct dec_stream *s)
{
	uint64_t need = required_of(dc);

	/* Format 9's free_remote: the freelist as an offset in the slab. */
	if (dc->kind == K_SLUB && dc->type == SLUB_EV_FREE_REMOTE && dc->idx[F_FREELIST] < 0 &&
	    dc->idx[F_FREELIST_OFF] >= 0)
		need = (need & ~B(F_FREELIST)) | B(F_FREELIST_OFF);
	/* Format 10: slab_fl for slab and freelist, list operations' seq on
	 * its own, the lock id of `where`. */
	if (dc->kind == K_SLUB && dc->format >= 3) {
		if ((need & B(F_FREELIST)) && dc->idx[F_SLAB_FL] >= 0)
			need = (need & ~(B(F_SLAB) | B(F_FREELIST))) | B(F_SLAB_FL);
		if ((need & B(F_LOCK_ID_SEQ)) && dc->idx[F_LOCK_ID_SEQ] < 0 &&
		    dc->idx[F_SEQ] >= 0)
			need = (need & ~B(F_LOCK_ID_SEQ)) | B(F_SEQ);
		if (dc->type == SLUB_EV_LOCK_ACQUIRE || dc->type == SLUB_EV_LOCK_RELEASE)
			need &= ~B(F_LOCK_ID);
	}
	for (int f = 0; f < F_NR; f++) {
		if ((need & B(f)) && dc->idx[f] < 0) {
			if (dc->kind != K_SLUB && dc->kind != K_STACK && dc->kind != K_COMM) {
				/* lttng-ust's events are a bonus: without them,
				 * stacks stay addresses. */
				dc->kind = K_IGNORE;
				return -1;
			}
			refuse(d, SLUB_UNUSABLE_MALFORMED,
			       "%s: event %s in stream %s has no usable field `%s` "
			       "(not slub trace format %s?)",
			       trace_name(d), dc->name, s ? s->name : "?", field_names[f],
			       dc->kind == K_COMM ? "9 to 12" :
			       dc->kind == K_STACK || dc->type == SLUB_EV_CACHE_DESTROY ?
			       "2 to 12" : dc->type == SLUB_EV_SLABINFO_WALK ? "5 to 12" :
			       dc->type >= SLUB_EV_SHEAF_ALLOC ? "8 to 12" :
			       dc->type >= SLUB_EV_SHEAF_REFILL ? "7 to 12" : format_names(dc));
			dc->kind = K_BAD;
			return -1;
		}
	}
	return 0;
}

/* vpid, vtid and procname in the stream's common context. */
static void map_context(struct slub_decoder *d, struct dec_class *dc, const bt_event_class *ec,
			struct dec_stream *s)
{
	const bt_field_class *ctx = bt_stream_class_borrow_event_common_context_field_class_const(
		bt_event_class_borrow_stream_class_const(ec));

	dc->ctx_vpid = (int16_t)member_index(ctx, "vpid");
	dc->ctx_vtid = (int16_t)member_index(ctx, "vtid");
	dc->ctx_procname = (int16_t)member_index(ctx, "procname");
	if (dc->ctx_procname >= 0 &&
	    bt_field_class_get_type(member_class(ctx, dc->ctx_procname)) != BT_FIELD_CLASS_TYPE_STRING)
		dc->ctx_procname = -1;
	for (int16_t *c = &dc->ctx_vpid; c <= &dc->ctx_vtid; c++) {
		bt_field_class_type t;

		if (*c < 0)
			continue;
		t = bt_field_class_get_type(member_class(ctx, *c));
		if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER))
			*c = -1;
		else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			dc->ctx_unsigned |= c == &dc->ctx_vpid ? 1 : 2;
	}
	/* format 12: the pid and tid in the payload */
	if ((dc->kind == K_SLUB || dc->kind == K_STACK || dc->kind == K_COMM) &&
	    dc->idx[F_PID_TID] < 0 && (dc->ctx_vpid < 0 || dc->ctx_vtid < 0)) {
		refuse(d, SLUB_UNUSABLE_MALFORMED,
		       "%s: event %s in stream %s has no vpid/vtid context and no pid_tid "
		       "(a process of a slubtrace older than format 12 in a session without "
		       "the contexts: record with `slubtrace record --context vpid --context "
		       "vtid`, or add-context --type=vpid --type=vtid)",
		       trace_name(d), dc->name, s ? s->name : "?");
		dc->kind = K_BAD;
	}
}

static struct dec_class *resolve_class(struct slub_decoder *d, const bt_event_class *ec,
				       struct dec_stream *s)
{
	struct dec_class *dc = calloc(1, sizeof(*dc));
	const bt_field_class *payload;
	const char *name = bt_event_class_get_name(ec);

	if (!dc)
		return NULL;
	dc->tc = bt_stream_class_borrow_trace_class_const(bt_event_class_borrow_stream_class_const(ec));
	if (watch_trace(d, NULL, dc->tc) < 0) {
		free(dc);
		return NULL;
	}
	dc->name = name ? name : "?";
	for (int f = 0; f < F_NR; f++) {
		dc->idx[f] = -1;
		dc->elem[f] = -1;
	}
	class_kind(d, dc);
	if (dc->kind == K_IGNORE)
		goto out;

	payload = bt_event_class_borrow_payload_field_class_const(ec);
	if (map_payload(d, dc, payload) < 0 || class_format(d, dc, payload) < 0 ||
	    check_required(d, dc, s) < 0)
		goto out;

	map_context(d, dc, ec, s);
out:
	slub_log(d->log, BT_LOGGING_LEVEL_DEBUG, "event class %s: %s", dc->name ? dc->name : "?",
		 dc->kind == K_SLUB ? "slub event" : dc->kind == K_STACK ? "stack" :
		 dc->kind == K_COMM ? "thread name" :
		 dc->kind == K_BAD ? "refused" : "not read");
	g_hash_table_insert(d->classes, (gpointer)ec, dc);
	return dc;
}

/* ---- fields -------------------------------------------------------------- */

static inline const bt_field *member(const bt_field *st, int i)
{
	return bt_field_structure_borrow_member_field_by_index_const(st, (uint64_t)i);
}

static inline uint64_t get_u(const struct dec_class *dc, const bt_field *p, int f)
{
	const bt_field *x;

	if (dc->idx[f] < 0)
		return 0;
	x = member(p, dc->idx[f]);
	if (dc->elem[f] >= 0)
		return bt_field_integer_unsigned_get_value(
			bt_field_array_borrow_element_field_by_index_const(x, (uint64_t)dc->elem[f]));
	if (dc->is_signed & B(f))
		return (uint64_t)bt_field_integer_signed_get_value(x);
	return bt_field_integer_unsigned_get_value(x);
}

static inline int64_t get_s(const struct dec_class *dc, const bt_field *p, int f)
{
	return (int64_t)get_u(dc, p, f);
}

static const char *get_str(const struct dec_class *dc, const bt_field *p, int f)
{
	if (dc->idx[f] < 0)
		return "";
	return bt_field_string_get_value(member(p, dc->idx[f]));
}

/* The slab word as the trace packs it: inuse 0-15, objects 16-30,
 * frozen 31, seq 32-63. */
static void unpack_word(struct slub_word *w, uint64_t freelist, uint64_t counters, int32_t owner)
{
	w->freelist = freelist;
	w->inuse = counters & 0xffff;
	w->objects = (counters >> 16) & 0x7fff;
	w->frozen = (counters >> 31) & 1;
	w->seq = (uint32_t)(counters >> 32);
	w->owner = owner;
}

/* Element i of an array field, checked long enough when its class was. */
static inline uint64_t get_elem(const struct dec_class *dc, const bt_field *p, int f, uint64_t i)
{
	return bt_field_integer_unsigned_get_value(
		bt_field_array_borrow_element_field_by_index_const(member(p, dc->idx[f]), i));
}

/*
 * The small integers of an event: formats 3 and 4 pack them into `where`
 * (cache_id 0-15, cpu 16-31, node 32-39, flags 40-47, arg 48-63), format 2
 * gives each its own field.  arg is the class's owner, slot or attempt.
 */
struct small {
	uint32_t cache_id;
	int32_t cpu, node;
	uint32_t locked, contended, announced, other_node;
	uint16_t arg;
};

static void get_small(const struct dec_class *dc, const bt_field *p, struct small *m)
{
	if (dc->format >= 3 && dc->idx[F_WHERE] >= 0) {
		uint64_t w = get_u(dc, p, F_WHERE);

		m->cache_id = (uint16_t)w;
		m->cpu = (int16_t)(w >> 16);
		m->node = (uint8_t)(w >> 32);
		m->locked = !!(w & WHERE_LOCKED);
		m->contended = !!(w & WHERE_CONTENDED);
		m->announced = !!(w & WHERE_ANNOUNCED);
		m->other_node = !!(w & WHERE_OTHER_NODE);
		m->arg = (uint16_t)(w >> 48);
		return;
	}
	m->cache_id = (uint32_t)get_u(dc, p, F_CACHE_ID);
	m->cpu = (int32_t)get_s(dc, p, F_CPU);
	m->node = (int32_t)get_s(dc, p, F_NODE);
	m->locked = (uint32_t)get_u(dc, p, F_LOCKED);
	m->contended = (uint32_t)get_u(dc, p, F_CONTENDED);
	m->announced = (uint32_t)get_u(dc, p, F_ANNOUNCED);
	m->other_node = 0;
	m->arg = (uint16_t)get_u(dc, p, dc->idx[F_OWNER] >= 0 ? F_OWNER :
				 dc->idx[F_SLOT] >= 0 ? F_SLOT : F_ATTEMPT);
}

/* cache_create: the trace format it announces, and the cache's geometry. */
static int decode_cache_create(struct slub_decoder *d, const struct dec_class *dc,
			       const bt_field *p, struct slub_decoded *out, const struct small *m)
{
	struct slub_event *ev = &out->event.ev;
	bool v3 = dc->format >= 3;	/* `where`, the pair enumerations, the arrays */
	uint64_t format = get_u(dc, p, F_FORMAT);

	if (format >= 2 && format <= SLUB_DEC_FORMAT) {
		/* format 5 adds an event to format 4, format 6 a flag,
		 * format 7 the sheaf and barn events, format 8 sheaf_alloc
		 * and sheaf_free */
		if ((format >= 5 ? 4 : format) != dc->format) {
			refuse(d, SLUB_UNUSABLE_MALFORMED,
			       "%s: event %s says slub trace format %" PRIu64
			       " but is laid out in format %s", trace_name(d), dc->name,
			       format, format_names(dc));
			return -1;
		}
	} else {
		refuse(d, SLUB_UNUSABLE_FORMAT,
		       "%s: recorded with slub trace format %" PRIu64
		       "; this slubtrace reads formats 2 to %d: record it again",
		       trace_name(d), format, SLUB_DEC_FORMAT);
		return -1;
	}
	out->info.name = get_str(dc, p, F_NAME);
	if (v3) {
		out->info.object_size = (uint32_t)get_elem(dc, p, F_GEOMETRY, 0);
		out->info.size = (uint32_t)get_elem(dc, p, F_GEOMETRY, 1);
		out->info.align = (uint32_t)get_elem(dc, p, F_GEOMETRY, 2);
		out->info.order = (uint32_t)get_elem(dc, p, F_GEOMETRY, 3);
		out->info.objects = (uint32_t)get_elem(dc, p, F_GEOMETRY, 4);
		out->info.min_partial = (uint32_t)get_elem(dc, p, F_GEOMETRY, 5);
		out->info.cpu_partial = (uint32_t)get_elem(dc, p, F_GEOMETRY, 6);
		out->info.flags = dc->format == 4 ?
			(uint32_t)get_elem(dc, p, F_GEOMETRY, 7) :
			(uint32_t)get_u(dc, p, F_FLAGS);
	} else {
		out->info.object_size = (uint32_t)get_u(dc, p, F_OBJECT_SIZE);
		out->info.size = (uint32_t)get_u(dc, p, F_SIZE);
		out->info.align = (uint32_t)get_u(dc, p, F_ALIGN);
		out->info.order = (uint32_t)get_u(dc, p, F_ORDER);
		out->info.objects = (uint32_t)get_u(dc, p, F_OBJECTS);
		out->info.min_partial = (uint32_t)get_u(dc, p, F_MIN_PARTIAL);
		out->info.cpu_partial = (uint32_t)get_u(dc, p, F_CPU_PARTIAL);
		out->info.flags = (uint32_t)get_u(dc, p, F_FLAGS);
	}
	ev->reason = m->announced;
	ev->info = &out->info;
	out->format = (uint32_t)format;
	out->event.format = (uint32_t)format;
	return 0;
}

/* The new freelist: a field, or (format 9's free_remote) an offset in the
 * slab, or (format 10) the low bits of slab_fl.  A pointer outside the slab,
 * which format 10 does not carry, reads as slab + fffffe: in no slab, never
 * NULL. */
static inline uint64_t word_freelist(const struct dec_class *dc, const bt_field *p, uint64_t slab)
{
	uint64_t off;

	if (dc->idx[F_FREELIST] >= 0)
		return get_u(dc, p, F_FREELIST);
	if (dc->idx[F_SLAB_FL] >= 0) {
		off = get_u(dc, p, F_SLAB_FL) & SLAB_FL_OFF;
		return off == SLAB_FL_NULL ? 0 : slab + off;
	}
	off = get_u(dc, p, F_FREELIST_OFF);
	return off == FREELIST_OFF_NULL ? 0 : slab + off;
}

/* A slab-word update (and slab_discard's last word). */
static void decode_word(const struct dec_class *dc, const bt_field *p, struct slub_event *ev,
			const struct small *m)
{
	bool v3 = dc->format >= 3;
	int32_t owner = (int16_t)m->arg;
	uint32_t site = (uint32_t)get_u(dc, p, F_SITE);
	unsigned t = ev->type;

	/* format 3: one enumeration, site | dest << 4 */
	ev->site = v3 ? site & 15 : site;
	ev->list = v3 ? site >> 4 : (uint32_t)get_u(dc, p, F_DEST);
	ev->locked = m->locked;
	unpack_word(&ev->new, word_freelist(dc, p, ev->slab), get_u(dc, p, F_COUNTERS), owner);
	if (t == SLUB_EV_UNFREEZE) {
		/* The wire carries the slot the slab leaves. */
		ev->new.owner = -1;
		ev->old.owner = owner;
	} else if (t == SLUB_EV_SLAB_DISCARD) {
		/* In-process, slab_discard's last word is `old`. */
		ev->old = ev->new;
	}
}

/* cmpxchg_fail: the word expected and the word found, in each format. */
static void decode_cas_fail(const struct dec_class *dc, const bt_field *p,
			    struct slub_decoded *out, const struct small *m)
{
	struct slub_event *ev = &out->event.ev;
	bool v3 = dc->format >= 3;

	ev->site = (uint32_t)get_u(dc, p, F_SITE);
	ev->locked = m->locked;
	ev->attempt = m->arg;
	if (dc->format == 4) {
		/* words: expected { freelist, counters }, then observed */
		unpack_word(&ev->old, get_elem(dc, p, F_WORDS, 0),
			    get_elem(dc, p, F_WORDS, 1), -1);
		unpack_word(&ev->new, get_elem(dc, p, F_WORDS, 2),
			    get_elem(dc, p, F_WORDS, 3), -1);
	} else if (v3) {
		unpack_word(&ev->old, get_elem(dc, p, F_EXPECTED, 0),
			    get_elem(dc, p, F_EXPECTED, 1), -1);
		unpack_word(&ev->new, get_elem(dc, p, F_OBSERVED, 0),
			    get_elem(dc, p, F_OBSERVED, 1), -1);
	} else {
		unpack_word(&ev->old, get_u(dc, p, F_EXP_FREELIST),
			    get_u(dc, p, F_EXP_COUNTERS), -1);
		unpack_word(&ev->new, get_u(dc, p, F_OBS_FREELIST),
			    get_u(dc, p, F_OBS_COUNTERS), -1);
	}
	out->event.old_valid = 1;
}

/* The cpu-slot events: reason and destination, the slot acted upon. */
static void decode_cpu(const struct dec_class *dc, const bt_field *p, struct slub_event *ev,
		       const struct small *m)
{
	bool v3 = dc->format >= 3;
	uint32_t reason = (uint32_t)get_u(dc, p, F_REASON);

	/* format 3: one enumeration, reason | dest << 4 */
	ev->reason = v3 ? reason & 15 : reason;
	ev->list = v3 ? reason >> 4 : (uint32_t)get_u(dc, p, F_DEST);
	ev->slot = (int16_t)m->arg;
	ev->locked = m->locked;
	ev->count = (uint32_t)get_u(dc, p, F_COUNT);
	ev->pages = (uint32_t)get_u(dc, p, F_PAGES);
}

/* A list operation: its list, lock acquisition and the seq it saw. */
static void decode_list_op(const struct dec_class *dc, const bt_field *p, struct slub_event *ev,
			   const struct small *m)
{
	bool v3 = dc->format >= 3;

	ev->list = (uint32_t)get_u(dc, p, F_LIST);
	ev->locked = m->locked;
	ev->lock_seq = get_u(dc, p, F_LOCK_SEQ);
	if (v3 && dc->idx[F_LOCK_ID_SEQ] < 0) {
		/* format 10 */
		ev->lock_id = m->cache_id * 64 + (uint32_t)m->node;
		ev->new.seq = (uint32_t)get_u(dc, p, F_SEQ);
	} else if (v3) {
		uint64_t id_seq = get_u(dc, p, F_LOCK_ID_SEQ);

		ev->lock_id = (uint32_t)id_seq;
		ev->new.seq = (uint32_t)(id_seq >> 32);
	} else {
		ev->lock_id = (uint32_t)get_u(dc, p, F_LOCK_ID);
		ev->new.seq = (uint32_t)get_u(dc, p, F_SEQ);
	}
}

static int decode_slub(struct slub_decoder *d, const struct dec_class *dc, const bt_field *p,
		       struct slub_decoded *out)
{
	struct slub_event *ev = &out->event.ev;
	unsigned t = dc->type;
	struct small m;

	get_small(dc, p, &m);
	ev->type = t;
	ev->cache_id = m.cache_id;
	ev->cpu = m.cpu;
	ev->node = m.node;
	ev->slot = -1;
	/* format 10: the page number above the freelist's offset */
	ev->slab = dc->idx[F_SLAB_FL] >= 0 ?
		get_u(dc, p, F_SLAB_FL) >> SLAB_FL_BITS << 12 : get_u(dc, p, F_SLAB);
	ev->old.owner = -1;
	ev->new.owner = -1;

	switch (t) {
	case SLUB_EV_CACHE_CREATE:
		if (decode_cache_create(d, dc, p, out, &m) < 0)
			return -1;
		break;
	case SLUB_EV_CACHE_DESTROY:
		ev->count = (uint32_t)get_u(dc, p, F_COUNT);
		break;
	case SLUB_EV_SLAB_NEW:
	case SLUB_EV_SLAB_DISCARD:
	case SLUB_EV_FREEZE:
	case SLUB_EV_UNFREEZE:
	case SLUB_EV_TAKE_FREELIST:
	case SLUB_EV_FREE_REMOTE:
	case SLUB_EV_DRAIN_FREELIST:
		decode_word(dc, p, ev, &m);
		break;
	case SLUB_EV_CMPXCHG_FAIL:
		decode_cas_fail(dc, p, out, &m);
		break;
	case SLUB_EV_CPU_CMPXCHG_FAIL:
		ev->site = (uint32_t)get_u(dc, p, F_SITE);
		ev->attempt = m.arg;
		break;
	case SLUB_EV_CPU_SLAB_LOAD:
	case SLUB_EV_DEACTIVATE:
	case SLUB_EV_CPU_PARTIAL_PUT:
	case SLUB_EV_CPU_PARTIAL_TAKE:
	case SLUB_EV_CPU_PARTIAL_DRAIN:
		decode_cpu(dc, p, ev, &m);
		break;
	case SLUB_EV_ADD_PARTIAL:
	case SLUB_EV_REMOVE_PARTIAL:
	case SLUB_EV_ADD_FULL:
	case SLUB_EV_REMOVE_FULL:
		decode_list_op(dc, p, ev, &m);
		break;
	case SLUB_EV_LOCK_ACQUIRE:
	case SLUB_EV_LOCK_RELEASE:
		/* format 10: the node list_lock of `where` */
		ev->lock_id = dc->idx[F_LOCK_ID] >= 0 ? (uint32_t)get_u(dc, p, F_LOCK_ID) :
			m.cache_id * 64 + (uint32_t)m.node;
		ev->lock_seq = get_u(dc, p, F_LOCK_SEQ);
		ev->contended = m.contended;
		ev->wait_ns = get_u(dc, p, F_WAIT_NS);
		ev->hold_ns = get_u(dc, p, F_HOLD_NS);
		break;
	case SLUB_EV_THREAD_FLUSH:
		ev->slot = (int16_t)m.arg;
		ev->count = (uint32_t)get_u(dc, p, F_COUNT);
		break;
	case SLUB_EV_ALLOC:
	case SLUB_EV_FREE:
		ev->object = get_u(dc, p, F_OBJECT);
		ev->size = get_u(dc, p, F_SIZE);
		break;
	case SLUB_EV_ERROR:
		ev->reason = (uint32_t)get_u(dc, p, F_REASON);
		ev->object = get_u(dc, p, F_OBJECT);
		/* Format 4 leaves out the message: it was always the
		 * reason's label. */
		ev->msg = dc->idx[F_MSG] >= 0 ? get_str(dc, p, F_MSG) :
			slub_error_name(ev->reason);
		break;
	case SLUB_EV_SLABINFO_WALK:
		ev->locked = m.locked;
		ev->lock_id = m.cache_id * 64 + (uint32_t)m.node;
		ev->lock_seq = get_u(dc, p, F_LOCK_SEQ);
		ev->size = get_u(dc, p, F_FREE);
		ev->count = (uint32_t)get_u(dc, p, F_WALKED);
		ev->pages = (uint32_t)get_u(dc, p, F_LISTED);
		break;
	case SLUB_EV_SHEAF_REFILL:
	case SLUB_EV_SHEAF_FLUSH:
		/* format 8: objects for a caller on another node */
		ev->reason = t == SLUB_EV_SHEAF_REFILL && m.other_node;
		ev->count = m.arg;
		ev->sheaf = get_u(dc, p, F_SHEAF);
		ev->sheaf_size = (uint32_t)get_u(dc, p, F_SIZE);
		break;
	case SLUB_EV_SHEAF_SLOT: {
		uint64_t sizes = get_u(dc, p, F_SIZES);

		ev->slot = (int16_t)m.arg;
		ev->sheaf = get_u(dc, p, F_MAIN);
		ev->spare = get_u(dc, p, F_SPARE);
		ev->sheaf_size = (uint32_t)sizes;
		ev->spare_size = (uint32_t)(sizes >> 32);
		break;
	}
	case SLUB_EV_SHEAF_ALLOC:
	case SLUB_EV_SHEAF_FREE:
		ev->sheaf = get_u(dc, p, F_SHEAF);
		break;
	case SLUB_EV_BARN_PUT:
	case SLUB_EV_BARN_GET: {
		uint64_t counts = get_u(dc, p, F_COUNTS);

		ev->reason = m.arg;
		ev->sheaf = get_u(dc, p, F_SHEAF);
		ev->sheaf_size = (uint32_t)get_u(dc, p, F_SIZE);
		ev->barn_full = (uint32_t)counts;
		ev->barn_empty = (uint32_t)(counts >> 32);
		break;
	}
	}
	return 0;
}

static int decode_stack(struct slub_decoder *d, const struct dec_class *dc, const bt_field *p,
			struct slub_decoded *out, struct dec_stream *s)
{
	const bt_field *ips = member(p, dc->idx[F_IPS]);
	uint64_t n = bt_field_array_get_length(ips);

	out->stack_of = (uint32_t)get_u(dc, p, F_OF);
	out->stack_slab = get_u(dc, p, F_SLAB);
	if (out->stack_of >= SLUB_EV_NR) {
		refuse(d, SLUB_UNUSABLE_MALFORMED,
		       "%s: event slub:stack in stream %s belongs to unknown event type %u",
		       trace_name(d), s->name, out->stack_of);
		return -1;
	}
	if (n > SLUB_DEC_MAX_IPS)
		n = SLUB_DEC_MAX_IPS;
	for (uint64_t i = 0; i < n; i++)
		out->stack_ips[i] = bt_field_integer_unsigned_get_value(
			bt_field_array_borrow_element_field_by_index_const(ips, i));
	out->stack_nr = (uint32_t)n;
	return 0;
}

static void decode_objects(struct slub_decoder *d, const struct dec_class *dc, const bt_field *p,
			   uint32_t vpid)
{
	uint64_t baddr = dc->idx[F_BADDR] >= 0 ? get_u(dc, p, F_BADDR) : 0;

	switch (dc->kind) {
	case K_SD_START:
		slub_sym_reset(d->sym, vpid);
		break;
	case K_LOAD:
	case K_BIN:
		slub_sym_load(d->sym, vpid, baddr, get_u(dc, p, F_MEMSZ), get_str(dc, p, F_PATH),
			      dc->idx[F_IS_PIC] < 0 || get_u(dc, p, F_IS_PIC));
		if (dc->kind == K_LOAD || dc->idx[F_BUILD_ID] < 0)
			break;
		/* slub:bin_info carries its build id */
		__attribute__((fallthrough));
	case K_BUILD_ID: {
		const bt_field *a = member(p, dc->idx[F_BUILD_ID]);
		uint64_t n = bt_field_array_get_length(a);
		uint8_t id[64];

		if (n > sizeof(id))
			n = sizeof(id);
		for (uint64_t i = 0; i < n; i++)
			id[i] = (uint8_t)bt_field_integer_unsigned_get_value(
				bt_field_array_borrow_element_field_by_index_const(a, i));
		slub_sym_build_id(d->sym, vpid, baddr, id, n);
		break;
	}
	case K_UNLOAD:
		slub_sym_unload(d->sym, vpid, baddr);
		break;
	default:
		break;
	}
}

static inline uint32_t ctx_int(const struct dec_class *dc, const bt_field *ctx, int i,
			       unsigned bit)
{
	const bt_field *f = member(ctx, i);

	return dc->ctx_unsigned & bit ? (uint32_t)bt_field_integer_unsigned_get_value(f) :
		(uint32_t)bt_field_integer_signed_get_value(f);
}

static int decode_event(struct slub_decoder *d, const bt_message *msg, struct slub_decoded *out)
{
	const bt_event *e = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(e);
	struct dec_class *dc;
	struct dec_stream *s;
	const bt_field *ctx, *p;
	uint32_t vpid, vtid;

	s = get_stream(d, bt_event_borrow_stream_const(e));
	if (!s)
		goto nomem;
	if (ec == d->last_ec) {
		dc = d->last_dc;
	} else {
		dc = g_hash_table_lookup(d->classes, ec);
		if (!dc) {
			dc = resolve_class(d, ec, s);
			if (!dc)
				goto nomem;
		}
		d->last_ec = ec;
		d->last_dc = dc;
	}
	switch (dc->kind) {
	case K_IGNORE:
		return 0;
	case K_BAD:
		return -1;
	default:
		break;
	}

	ctx = bt_event_borrow_common_context_field_const(e);
	p = bt_event_borrow_payload_field_const(e);
	if (dc->idx[F_PID_TID] >= 0) {
		/* format 12: the payload says it, whatever the contexts */
		uint64_t pt = get_u(dc, p, F_PID_TID);

		vpid = (uint32_t)(pt >> 32);
		vtid = (uint32_t)pt;
	} else {
		vpid = dc->ctx_vpid >= 0 ? ctx_int(dc, ctx, dc->ctx_vpid, 1) : 0;
		vtid = dc->ctx_vtid >= 0 ? ctx_int(dc, ctx, dc->ctx_vtid, 2) : 0;
	}
	vpid = slub_dec_pid(vpid) | s->host;
	if (dc->kind == K_COMM) {
		if (name_thread(d, vpid, vtid, get_str(dc, p, F_NAME)) < 0)
			goto nomem;
		return 0;
	}
	if (dc->kind != K_SLUB && dc->kind != K_STACK) {
		decode_objects(d, dc, p, vpid);
		if (dc->kind == K_SD_START && s->has_clock) {
			int64_t ns;

			if (bt_clock_snapshot_get_ns_from_origin(
				    bt_message_event_borrow_default_clock_snapshot_const(msg), &ns) ==
			    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
				out->kind = SLUB_DEC_REGISTER;
				out->reg_vpid = vpid;
				out->reg_ts = (uint64_t)ns;
			}
		}
		return 0;
	}

	if (dc->kind == K_STACK) {
		out->stack_vpid = vpid;
		out->stack_vtid = vtid;
		out->stack_stream_id = s->id;
		if (decode_stack(d, dc, p, out, s) < 0)
			return -1;
		out->kind = SLUB_DEC_STACK;
		return 0;
	}

	memset(&out->event, 0, sizeof(out->event));
	out->event.vpid = vpid;
	out->event.vtid = vtid;
	out->event.ev.tid = vtid;
	out->event.stream_id = s->id;
	/*
	 * LTTng's procname is the acting thread's name: threads named apart
	 * (lttng-ust's own "*-ust" listeners) are not an exec.  An exec
	 * renames the main thread, whose vtid is the vpid: only its name
	 * goes to the model (which also saves a string per event).  From
	 * format 9 on the name comes from the thread's slub:comm events; the
	 * context, where a session adds it, takes precedence.
	 */
	out->thread_name = dc->ctx_procname >= 0 ?
		bt_field_string_get_value(member(ctx, dc->ctx_procname)) :
		thread_name(d, vpid, vtid);
	out->event.procname = vtid == slub_dec_pid(vpid) ? out->thread_name : NULL;
	if (s->has_clock) {
		int64_t ns;

		if (bt_clock_snapshot_get_ns_from_origin(
			    bt_message_event_borrow_default_clock_snapshot_const(msg), &ns) ==
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
			out->event.ts = (uint64_t)ns;
	}
	if (decode_slub(d, dc, p, out) < 0)
		return -1;
	d->events++;
	out->kind = SLUB_DEC_EVENT;
	return 0;

nomem:
	if (d->self)
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(d->self, "out of memory");
	return -1;
}

static int decode_discard(struct slub_decoder *d, const bt_message *msg, bool packets,
			  struct slub_decoded *out)
{
	const bt_stream *bs = packets ? bt_message_discarded_packets_borrow_stream_const(msg) :
		bt_message_discarded_events_borrow_stream_const(msg);
	struct dec_stream *s = get_stream(d, bs);
	struct slub_model_discard *g = &out->discard;
	const bt_stream_class *sc;
	uint64_t count = 0;

	if (!s) {
		if (d->self)
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(d->self, "out of memory");
		return -1;
	}
	memset(g, 0, sizeof(*g));
	g->stream_id = s->id;
	/* record's second channel holds LTTng-UST's own events only.  A
	 * class-less stream class (nothing declared yet) counts as slub. */
	sc = bt_stream_borrow_class_const(bs);
	g->foreign = bt_stream_class_get_event_class_count(sc) > 0 && !has_slub_class(sc);
	/* Lost packets: how many events they held is unknown. */
	if (!packets && bt_message_discarded_events_get_count(msg, &count) ==
	    BT_PROPERTY_AVAILABILITY_AVAILABLE)
		g->count = count;
	if (packets ? s->discard_pk_clock : s->discard_clock) {
		const bt_clock_snapshot *b, *e;
		int64_t bns, ens;

		if (packets) {
			b = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg);
			e = bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg);
		} else {
			b = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg);
			e = bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg);
		}
		if (bt_clock_snapshot_get_ns_from_origin(b, &bns) ==
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK &&
		    bt_clock_snapshot_get_ns_from_origin(e, &ens) ==
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
			g->begin_ts = (uint64_t)bns;
			g->end_ts = (uint64_t)ens;
			g->range_known = 1;
		}
	}
	if (packets)
		slub_log(d->log, BT_LOGGING_LEVEL_WARNING, "stream %s: packets discarded%s", s->name,
			 g->foreign ? " (LTTng-UST's own events, no slub event)" : "");
	else
		slub_log(d->log, BT_LOGGING_LEVEL_WARNING, "stream %s: %" PRIu64 " events discarded%s",
			 s->name, g->count,
			 g->foreign ? " (LTTng-UST's own events, no slub event)" : "");
	out->kind = SLUB_DEC_DISCARD;
	return 0;
}

int slub_decoder_message(struct slub_decoder *d, const bt_message *msg, struct slub_decoded *out)
{
	out->kind = SLUB_DEC_NONE;
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return decode_event(d, msg, out);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return decode_discard(d, msg, false, out);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return decode_discard(d, msg, true, out);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return get_stream(d, bt_message_stream_beginning_borrow_stream_const(msg)) ? 0 : -1;
	default:
		return 0;
	}
}
