// SPDX-License-Identifier: MIT
/*
 * test_tstats: the trace statistics on synthetic event sequences.
 *
 *  a) each stat item is counted from the event that marks it;
 *  b) a failed CAS is attributed to the update whose seq it observed,
 *     also when that update's event arrives after the failure; an
 *     observed seq equal to the expected one is an untraced write;
 *  c) consecutive failed attempts of one operation make a run storm (with
 *     the loser's stack), failures on one slab within the window a slab storm;
 *  d) list_lock figures and the longest hold with what the holder did;
 *  e) contended acquisitions over the threshold make a lock storm;
 *  f) a discarded-events notice makes the figures lower bounds;
 *  g) the JSON report reads back; diff of a result with itself finds no
 *     regression, five times the redo rate is one, noise is not; thresholds parse;
 *  h) locked redos retried with list_lock kept, and frees into a frozen
 *     slab under it, are counted; a redo after the lock was dropped is not;
 *  i) several runs per side pool their counts; runs far more different
 *     than counting noise do not make a regression;
 *  j) lock time tails: the histogram's buckets tile every 64-bit time
 *     within the stated bound; p99 and maximum of waits and holds from a
 *     known sequence (one wait and one hold over 1 ms, which the means
 *     include); the JSON keeps them; pooled runs merge their histograms;
 *     a report without them makes them unknown, not a failure; a much
 *     longer hold (2 s) regresses lock_hold_max_ns.  With -j DIR the reports
 *     diff's command-line tests read are written there;
 *  k) what the holds did: the most slabs walked in one list_lock hold, the
 *     walking holds per 1,000 acquisitions and the longest walking hold;
 *     walks gone are an improvement, walks back a regression, the bounded
 *     scan a drop of the most; a report without them: unknown (-j: the
 *     walk-*.json reports).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slub_json.h"
#include "slub_tstats.h"

static unsigned long checks, failures;

#define CHECK(cond, ...)                                                              \
	do {                                                                          \
		checks++;                                                             \
		if (!(cond)) {                                                        \
			failures++;                                                   \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
		}                                                                     \
	} while (0)

#define VPID 100
#define CACHE 3
#define SLAB_A 0x100000ull
#define SLAB_B 0x200000ull

static struct slub_cache_info info = { "t-64", 64, 64, 8, 0, 64, 5, 30, 0 };

static struct slub_model_event mk(unsigned type, uint64_t ts, uint32_t vtid)
{
	struct slub_model_event e;

	memset(&e, 0, sizeof(e));
	e.ev.type = type;
	e.ev.cache_id = CACHE;
	e.ev.cpu = (int32_t)vtid % 8;
	e.ev.slot = -1;
	e.ts = ts;
	e.vpid = VPID;
	e.vtid = vtid;
	return e;
}

static struct slub_model_event word(unsigned type, uint64_t ts, uint32_t vtid, uint64_t slab,
				     unsigned site, uint32_t seq, uint32_t frozen, uint64_t freelist)
{
	struct slub_model_event e = mk(type, ts, vtid);

	e.ev.slab = slab;
	e.ev.site = site;
	e.ev.new.seq = seq;
	e.ev.new.frozen = frozen;
	e.ev.new.freelist = freelist;
	e.ev.new.objects = 64;
	e.ev.new.inuse = 10;
	return e;
}

static struct slub_model_event fail(uint64_t ts, uint32_t vtid, uint64_t slab, unsigned site,
				     uint32_t exp, uint32_t obs, uint32_t attempt)
{
	struct slub_model_event e = mk(SLUB_EV_CMPXCHG_FAIL, ts, vtid);

	e.ev.slab = slab;
	e.ev.site = site;
	e.ev.old.seq = exp;
	e.ev.new.seq = obs;
	e.ev.attempt = attempt;
	e.old_valid = 1;
	return e;
}

/* The statistics are fed as the plugin feeds them: through a state model,
 * whose applied listener hands each event on in the model's order. */
#define MAX_FED 8
static struct {
	struct slub_tstats *st;
	struct slub_model *m;
} fed[MAX_FED];

static struct slub_model *model_of(struct slub_tstats *st)
{
	for (int i = 0; i < MAX_FED; i++)
		if (fed[i].st == st)
			return fed[i].m;
	for (int i = 0; i < MAX_FED; i++) {
		if (fed[i].st)
			continue;
		struct slub_model_callbacks cb = { 0 };

		cb.applied = slub_tstats_applied;
		cb.arg = st;
		fed[i].m = slub_model_new(NULL, &cb);
		if (!fed[i].m) {
			fprintf(stderr, "slub_model_new: out of memory\n");
			exit(1);
		}
		fed[i].st = st;
		return fed[i].m;
	}
	fprintf(stderr, "more than %d statistics at once\n", MAX_FED);
	exit(1);
}

static void feed(struct slub_tstats *st, struct slub_model_event e)
{
	CHECK(slub_model_event(model_of(st), &e) == 0, "event %u refused", e.ev.type);
	CHECK(!slub_tstats_failed(st), "event %u: the statistics ran out of memory", e.ev.type);
}

/* The end of the input: the model hands on what waits, then the
 * statistics conclude. */
static void finish(struct slub_tstats *st)
{
	slub_model_finish(model_of(st));
	slub_tstats_finish(st);
}

static void tfree(struct slub_tstats *st)
{
	for (int i = 0; i < MAX_FED; i++)
		if (fed[i].st == st) {
			slub_model_free(fed[i].m);
			fed[i].st = NULL;
			fed[i].m = NULL;
		}
	slub_tstats_free(st);
}

static void create(struct slub_tstats *st)
{
	struct slub_model_event e = mk(SLUB_EV_CACHE_CREATE, 1, 1);

	e.ev.info = &info;
	feed(st, e);
}

/* a) */
static void test_items(void)
{
	struct slub_tstats *st = slub_tstats_new(NULL);
	uint64_t ts = 10;
	struct slub_model_event e;

	create(st);
	feed(st, word(SLUB_EV_SLAB_NEW, ts++, 1, SLAB_A, SLUB_SITE_NEW_SLAB, 1, 1, 0));
	feed(st, word(SLUB_EV_TAKE_FREELIST, ts++, 1, SLAB_A, SLUB_SITE_GET_FREELIST, 2, 1, 0));
	e = word(SLUB_EV_UNFREEZE, ts++, 1, SLAB_A, SLUB_SITE_UNFREEZING_SLAB, 3, 0, 0x100040);
	e.ev.list = SLUB_DEST_TAIL;
	feed(st, e);
	e = mk(SLUB_EV_DEACTIVATE, ts++, 1);
	e.ev.slab = SLAB_A;
	e.ev.reason = SLUB_DEACT_FLUSH;
	e.ev.list = SLUB_DEST_TAIL;
	feed(st, e);
	e = word(SLUB_EV_ADD_PARTIAL, ts++, 1, SLAB_A, 0, 3, 0, 0x100040);
	feed(st, e);
	/* acquire_slab: to the cpu slab (takes the freelist) */
	feed(st, word(SLUB_EV_FREEZE, ts++, 2, SLAB_A, SLUB_SITE_ACQUIRE_SLAB, 4, 1, 0));
	feed(st, word(SLUB_EV_REMOVE_PARTIAL, ts++, 2, SLAB_A, 0, 4, 1, 0));
	/* acquire_slab: to the cpu partial chain (leaves it) */
	feed(st, word(SLUB_EV_FREEZE, ts++, 2, SLAB_B, SLUB_SITE_ACQUIRE_SLAB, 7, 1, 0x200080));
	feed(st, word(SLUB_EV_REMOVE_PARTIAL, ts++, 2, SLAB_B, 0, 7, 1, 0x200080));
	/* __slab_free: a full slab frozen onto the chain, a free into a frozen slab */
	feed(st, word(SLUB_EV_FREEZE, ts++, 3, SLAB_B + 0x10000, SLUB_SITE_SLAB_FREE, 3, 1, 0x210000));
	feed(st, word(SLUB_EV_FREE_REMOTE, ts++, 3, SLAB_A, SLUB_SITE_SLAB_FREE, 5, 1, 0x100080));
	/* unfreeze_partials: one to the partial list, one discarded */
	e = word(SLUB_EV_UNFREEZE, ts++, 2, SLAB_B, SLUB_SITE_UNFREEZE_PARTIALS, 8, 0, 0x200080);
	e.ev.list = SLUB_DEST_TAIL;
	feed(st, e);
	feed(st, word(SLUB_EV_ADD_PARTIAL, ts++, 2, SLAB_B, 0, 8, 0, 0x200080));
	e = word(SLUB_EV_UNFREEZE, ts++, 2, SLAB_B + 0x10000, SLUB_SITE_UNFREEZE_PARTIALS, 4, 0, 0x210000);
	e.ev.list = SLUB_DEST_DISCARD;
	feed(st, e);
	e = word(SLUB_EV_SLAB_DISCARD, ts++, 2, SLAB_B + 0x10000, 0, 4, 0, 0x210000);
	feed(st, e);
	e = mk(SLUB_EV_CPU_PARTIAL_DRAIN, ts++, 2);
	e.ev.reason = SLUB_DEACT_CPU_PARTIAL_LIMIT;
	feed(st, e);
	e = mk(SLUB_EV_DEACTIVATE, ts++, 2);
	e.ev.reason = SLUB_DEACT_EMPTY_FREELIST;
	e.ev.list = SLUB_DEST_FULL;
	feed(st, e);
	for (int i = 0; i < 10; i++)
		feed(st, mk(SLUB_EV_ALLOC, ts++, 1));
	for (int i = 0; i < 4; i++)
		feed(st, mk(SLUB_EV_FREE, ts++, 1));
	finish(st);

	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-64");
	CHECK(c != NULL, "cache t-64 missing");
	if (!c) {
		tfree(st);
		return;
	}
	static const struct { unsigned item; uint64_t want; } want[] = {
		{ SLUB_TS_ALLOC_SLAB, 1 }, { SLUB_TS_ALLOC_REFILL, 1 },
		{ SLUB_TS_CPUSLAB_FLUSH, 1 }, { SLUB_TS_DEACTIVATE_TO_TAIL, 1 },
		{ SLUB_TS_DEACTIVATE_REMOTE_FREES, 1 }, { SLUB_TS_ALLOC_FROM_PARTIAL, 1 },
		{ SLUB_TS_CPU_PARTIAL_NODE, 1 }, { SLUB_TS_CPU_PARTIAL_FREE, 1 },
		{ SLUB_TS_FREE_FROZEN, 1 }, { SLUB_TS_FREE_SLOWPATH, 2 },
		{ SLUB_TS_DEACTIVATE_EMPTY, 1 }, { SLUB_TS_FREE_ADD_PARTIAL, 1 },
		{ SLUB_TS_FREE_REMOVE_PARTIAL, 0 }, { SLUB_TS_FREE_SLAB, 1 },
		{ SLUB_TS_CPU_PARTIAL_DRAIN, 1 }, { SLUB_TS_DEACTIVATE_BYPASS, 1 },
		{ SLUB_TS_ALLOC_SLOWPATH, 3 }, { SLUB_TS_ALLOC_FASTPATH, 7 },
		{ SLUB_TS_FREE_FASTPATH, 2 }, { SLUB_TS_DEACTIVATE_FULL, 0 },
	};
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(c->item[want[i].item] == want[i].want, "%s = %llu, want %llu",
		      slub_tstat_item_name(want[i].item), (unsigned long long)c->item[want[i].item],
		      (unsigned long long)want[i].want);
	CHECK(c->known & (1ull << SLUB_TS_ALLOC_FASTPATH), "fast path unknown with object events");
	CHECK(c->object_size == 64 && c->objects == 64, "cache info not kept");
	CHECK(c->slabs == 2 && c->partial_slabs == 1 && c->cpu_slabs == 1,
	      "census: %llu slabs, %llu partial, %llu cpu", (unsigned long long)c->slabs,
	      (unsigned long long)c->partial_slabs, (unsigned long long)c->cpu_slabs);
	tfree(st);
}

/* The sheaves generation: a slab word event of slab with inuse before
 * and after (the freelist follows: empty when every object is in use). */
static struct slub_model_event sword(unsigned type, uint64_t ts, uint32_t vtid, uint64_t slab,
				      unsigned site, uint32_t seq, uint32_t inuse_before,
				      uint32_t inuse)
{
	struct slub_model_event e = word(type, ts, vtid, slab, site, seq, 0,
					 inuse < 64 ? slab + 64 * (64 - inuse) : 0);

	e.ev.new.inuse = inuse;
	e.ev.old = e.ev.new;
	e.ev.old.seq = seq - 1;
	e.ev.old.inuse = inuse_before;
	e.old_valid = type != SLUB_EV_SLAB_NEW;
	return e;
}

static struct slub_model_event sheaf(unsigned type, uint64_t ts, uint32_t vtid, uint64_t slab,
				      uint64_t sheaf_addr, uint32_t count, uint32_t size)
{
	struct slub_model_event e = mk(type, ts, vtid);

	e.ev.slab = slab;
	e.ev.sheaf = sheaf_addr;
	e.ev.count = count;
	e.ev.sheaf_size = size;
	return e;
}

static struct slub_model_event barn(unsigned type, uint64_t ts, uint32_t vtid, uint64_t sheaf_addr,
				     unsigned list, uint32_t size, uint32_t full, uint32_t empty)
{
	struct slub_model_event e = mk(type, ts, vtid);

	e.ev.sheaf = sheaf_addr;
	e.ev.reason = list;
	e.ev.sheaf_size = size;
	e.ev.barn_full = full;
	e.ev.barn_empty = empty;
	return e;
}

static struct slub_model_event listop(unsigned type, uint64_t ts, uint32_t vtid, uint64_t slab,
				       uint32_t seq, unsigned dest)
{
	struct slub_model_event e = mk(type, ts, vtid);

	e.ev.slab = slab;
	e.ev.new.seq = seq;
	e.ev.list = dest;
	e.ev.locked = 1;
	return e;
}

static struct slub_model_event life(unsigned type, uint64_t ts, uint32_t vtid, uint64_t sheaf_addr)
{
	struct slub_model_event e = mk(type, ts, vtid);

	e.ev.sheaf = sheaf_addr;
	return e;
}

/* d) the sheaves generation's items, in an order the model hands on (the
 * sheaf and barn events as they come, the slab's by seq), read from a
 * trace of `format`: from 8 on with sheaf_alloc and sheaf_free events */
static void test_sheaves_items(unsigned format)
{
	static struct slub_cache_info sinfo = { "t-sheaves", 64, 64, 8, 0, 64, 5, 30, 0x80 };
	struct slub_tstats *st = slub_tstats_new(NULL);
	struct slub_model_event e = mk(SLUB_EV_CACHE_CREATE, 1, 1);
	const uint64_t C = SLAB_B + 0x10000, S1 = 0x5000, S2 = 0x6000, S3 = 0x7000, S4 = 0x8000;
	const int life8 = format >= 8;
	uint64_t ts = 10;

	e.ev.info = &sinfo;
	e.format = format;
	feed(st, e);
	if (life8) {
		feed(st, life(SLUB_EV_SHEAF_ALLOC, ts++, 1, S1));
		feed(st, life(SLUB_EV_SHEAF_ALLOC, ts++, 2, S2));
		feed(st, life(SLUB_EV_SHEAF_ALLOC, ts++, 4, S3));
		feed(st, life(SLUB_EV_SHEAF_ALLOC, ts++, 2, S4));
	}
	/* thread 1 refills its empty sheaf S1 from a new slab A (20 objects),
	 * the rest listed at the head: barn_get_fail, sheaf_refill 20 */
	feed(st, sword(SLUB_EV_SLAB_NEW, ts++, 1, SLAB_A, SLUB_SITE_NEW_SLAB, 1, 0, 20));
	feed(st, sheaf(SLUB_EV_SHEAF_REFILL, ts++, 1, SLAB_A, S1, 20, 20));
	feed(st, listop(SLUB_EV_ADD_PARTIAL, ts++, 1, SLAB_A, 1, SLUB_DEST_HEAD));
	/* thread 2 takes A's 44 free objects and keeps 30 into S2: its
	 * sheaf_refill seen before the take; 14 go back (a leftover) */
	feed(st, listop(SLUB_EV_REMOVE_PARTIAL, ts++, 2, SLAB_A, 1, 0));
	feed(st, sheaf(SLUB_EV_SHEAF_REFILL, ts++, 2, SLAB_A, S2, 30, 30));
	feed(st, sword(SLUB_EV_TAKE_FREELIST, ts++, 2, SLAB_A, SLUB_SITE_GET_FREELIST, 2, 20, 64));
	feed(st, sword(SLUB_EV_FREE_REMOTE, ts++, 2, SLAB_A, SLUB_SITE_SLAB_FREE, 3, 64, 50));
	/* thread 1 flushes 5 of S1 to A; thread 3 frees one object to A
	 * (another node's: the slow path) */
	feed(st, sword(SLUB_EV_FREE_REMOTE, ts++, 1, SLAB_A, SLUB_SITE_SLAB_FREE, 4, 50, 45));
	feed(st, sheaf(SLUB_EV_SHEAF_FLUSH, ts++, 1, SLAB_A, S1, 5, 15));
	feed(st, sword(SLUB_EV_FREE_REMOTE, ts++, 3, SLAB_A, SLUB_SITE_SLAB_FREE, 5, 45, 44));
	/* thread 3 allocates one object from a new slab B (to the caller,
	 * for another node than its slot's: format 8 says so), then frees
	 * it: B empty, off the list and discarded */
	feed(st, sword(SLUB_EV_SLAB_NEW, ts++, 3, SLAB_B, SLUB_SITE_NEW_SLAB, 1, 0, 1));
	e = sheaf(SLUB_EV_SHEAF_REFILL, ts++, 3, SLAB_B, 0, 1, 0);
	e.ev.reason = life8;
	feed(st, e);
	feed(st, listop(SLUB_EV_ADD_PARTIAL, ts++, 3, SLAB_B, 1, SLUB_DEST_HEAD));
	e = sword(SLUB_EV_FREE_REMOTE, ts++, 3, SLAB_B, SLUB_SITE_SLAB_FREE, 2, 1, 0);
	e.ev.locked = 1;
	feed(st, e);
	feed(st, listop(SLUB_EV_REMOVE_PARTIAL, ts++, 3, SLAB_B, 2, 0));
	feed(st, word(SLUB_EV_SLAB_DISCARD, ts++, 3, SLAB_B, 0, 2, 0, SLAB_B + 64));
	/* slab C: thread 4 takes its one free object into S3 while thread 2,
	 * which took all 64 before, is yet to say it kept 64 into S4: no
	 * leftover.  Thread 5's free lists the full C at the tail. */
	feed(st, sword(SLUB_EV_SLAB_NEW, ts++, 2, C, SLUB_SITE_NEW_SLAB, 1, 0, 1));
	feed(st, sheaf(SLUB_EV_SHEAF_REFILL, ts++, 2, C, S3, 1, 4));
	feed(st, listop(SLUB_EV_ADD_PARTIAL, ts++, 2, C, 1, SLUB_DEST_HEAD));
	feed(st, listop(SLUB_EV_REMOVE_PARTIAL, ts++, 2, C, 1, 0));
	feed(st, sword(SLUB_EV_TAKE_FREELIST, ts++, 2, C, SLUB_SITE_GET_FREELIST, 2, 1, 64));
	e = sword(SLUB_EV_FREE_REMOTE, ts++, 5, C, SLUB_SITE_SLAB_FREE, 3, 64, 63);
	e.ev.locked = 1;
	feed(st, e);
	feed(st, listop(SLUB_EV_ADD_PARTIAL, ts++, 5, C, 3, SLUB_DEST_TAIL));
	feed(st, listop(SLUB_EV_REMOVE_PARTIAL, ts++, 4, C, 3, 0));
	feed(st, sword(SLUB_EV_TAKE_FREELIST, ts++, 4, C, SLUB_SITE_GET_FREELIST, 4, 63, 64));
	feed(st, sheaf(SLUB_EV_SHEAF_REFILL, ts++, 4, C, S3, 1, 5));
	feed(st, sheaf(SLUB_EV_SHEAF_REFILL, ts++, 2, C, S4, 63, 63));
	/* the barn: thread 1 gets a full sheaf for its empty main (barn_get),
	 * puts a full one (barn_put); shrink takes both lists (not counted) */
	feed(st, barn(SLUB_EV_BARN_PUT, ts++, 2, S4, SLUB_BARN_FULL, 63, 1, 0));
	feed(st, barn(SLUB_EV_BARN_GET, ts++, 1, S4, SLUB_BARN_FULL, 63, 0, 0));
	/* a sheaf made in between moves nothing: the get still pairs */
	if (life8)
		feed(st, life(SLUB_EV_SHEAF_ALLOC, ts++, 1, 0x9000));
	feed(st, barn(SLUB_EV_BARN_PUT, ts++, 1, S1, SLUB_BARN_EMPTY, 0, 0, 1));
	feed(st, barn(SLUB_EV_BARN_PUT, ts++, 3, S2, SLUB_BARN_FULL, 30, 1, 1));
	feed(st, barn(SLUB_EV_BARN_GET, ts++, 1, S2, SLUB_BARN_FULL, 30, 0, 1));
	feed(st, barn(SLUB_EV_BARN_GET, ts++, 1, S1, SLUB_BARN_EMPTY, 0, 0, 0));
	/* thread 1's slot: main S1, spare S2; the two swapped (no put);
	 * then the barn full of full sheaves, the full spare S1 is flushed and
	 * comes back as the empty main (barn_put_fail) */
	e = sheaf(SLUB_EV_SHEAF_SLOT, ts++, 1, 0, S1, 0, 64);
	e.ev.slot = e.ev.cpu;
	e.ev.spare = S2;
	e.ev.spare_size = 64;
	feed(st, e);
	e.ts = ts++;
	e.ev.sheaf = S2;
	e.ev.spare = S1;
	feed(st, e);
	feed(st, sword(SLUB_EV_FREE_REMOTE, ts++, 1, SLAB_A, SLUB_SITE_SLAB_FREE, 6, 44, 24));
	feed(st, sheaf(SLUB_EV_SHEAF_FLUSH, ts++, 1, SLAB_A, S1, 20, 44));
	feed(st, sword(SLUB_EV_FREE_REMOTE, ts++, 1, C, SLUB_SITE_SLAB_FREE, 5, 64, 20));
	feed(st, sheaf(SLUB_EV_SHEAF_FLUSH, ts++, 1, C, S1, 44, 0));
	e.ts = ts++;
	e.ev.sheaf = S1;
	e.ev.sheaf_size = 0;
	e.ev.spare = S2;
	feed(st, e);
	for (int i = 0; i < 9; i++)
		feed(st, mk(SLUB_EV_ALLOC, ts++, 1));
	for (int i = 0; i < 6; i++)
		feed(st, mk(SLUB_EV_FREE, ts++, 1));
	if (life8)
		feed(st, life(SLUB_EV_SHEAF_FREE, ts++, 4, 0x9000));
	finish(st);

	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-sheaves");
	CHECK(c != NULL && c->sheaves, "cache t-sheaves missing or not of the sheaves generation");
	if (!c || !c->sheaves) {
		tfree(st);
		return;
	}
	static const struct { unsigned item; uint64_t want; } want[] = {
		{ SLUB_TS_ALLOC_SLAB, 3 }, { SLUB_TS_FREE_SLAB, 1 }, { SLUB_TS_ALLOC_REFILL, 0 },
		/* 7 free_remote: 3 of flushes, 1 a leftover (C's late
		 * sheaf_refill paired with thread 4's take would make a second) */
		{ SLUB_TS_FREE_SLOWPATH, 3 }, { SLUB_TS_FREE_FASTPATH, 3 },
		{ SLUB_TS_ALLOC_SLOWPATH, 1 }, { SLUB_TS_ALLOC_FASTPATH, 8 },
		{ SLUB_TS_FREE_ADD_PARTIAL, 1 }, { SLUB_TS_FREE_REMOVE_PARTIAL, 1 },
	};
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(c->item[want[i].item] == want[i].want, "sheaves: %s = %llu, want %llu",
		      slub_tstat_item_name(want[i].item), (unsigned long long)c->item[want[i].item],
		      (unsigned long long)want[i].want);
	static const uint64_t swant[SLUB_TS_NR_SHEAF_ITEMS] = {
		[SLUB_TS_SHEAF_FLUSH] = 5 + 20 + 44, [SLUB_TS_SHEAF_REFILL] = 20 + 30 + 1 + 1 + 63,
		[SLUB_TS_BARN_GET] = 1, [SLUB_TS_BARN_GET_FAIL] = 3, [SLUB_TS_BARN_PUT] = 2,
		[SLUB_TS_BARN_PUT_FAIL] = 1, [SLUB_TS_SHEAF_ALLOC] = 5, [SLUB_TS_SHEAF_FREE] = 1,
	};
	const uint64_t life_bits = (1ull << SLUB_TS_SHEAF_ALLOC) | (1ull << SLUB_TS_SHEAF_FREE);
	for (unsigned i = 0; i < SLUB_TS_NR_SHEAF_ITEMS; i++)
		if (c->sheaf_known & (1ull << i))
			CHECK(c->sheaf_item[i] == swant[i], "sheaves: %s = %llu, want %llu",
			      slub_tstat_sheaf_item_name(i), (unsigned long long)c->sheaf_item[i],
			      (unsigned long long)swant[i]);
	CHECK(c->sheaf_known == (((1ull << SLUB_TS_NR_SHEAF_ITEMS) - 1) & ~(life8 ? 0 : life_bits)) &&
		      !(c->known & (1ull << SLUB_TS_ALLOC_NODE_MISMATCH)) == !life8,
	      "sheaves, format %u: known items %#llx, %#llx", format,
	      (unsigned long long)c->sheaf_known, (unsigned long long)c->known);
	if (life8)
		CHECK(c->item[SLUB_TS_ALLOC_NODE_MISMATCH] == 1,
		      "sheaves: alloc_node_mismatch = %llu, want 1 (the other-node refill)",
		      (unsigned long long)c->item[SLUB_TS_ALLOC_NODE_MISMATCH]);
	tfree(st);
}

/* d) a thread that takes from one slab and refills again and again while
 * the model holds the slab's events back (the update before its first
 * take is another thread's, whose event comes late: preempted between its
 * CAS and its event), its sheaf_refill events arriving at once: each take
 * still pairs with its own sheaf_refill, however many wait. */
static void test_sheaves_held_takes(void)
{
	static struct slub_cache_info sinfo = { "t-sheaves-held", 64, 64, 8, 0, 64, 5, 30, 0x80 };
	struct slub_tstats *st = slub_tstats_new(NULL);
	struct slub_model_event e = mk(SLUB_EV_CACHE_CREATE, 1, 1);
	const uint64_t S1 = 0x5000;
	const unsigned rounds = 12;
	uint64_t ts = 10;
	uint32_t seq = 1, inuse = 19;

	e.ev.info = &sinfo;
	e.format = 8;
	feed(st, e);
	feed(st, life(SLUB_EV_SHEAF_ALLOC, ts++, 1, S1));
	/* thread 1 refills S1 with 20 objects of a new slab A, lists the rest */
	feed(st, sword(SLUB_EV_SLAB_NEW, ts++, 1, SLAB_A, SLUB_SITE_NEW_SLAB, seq, 0, 20));
	feed(st, sheaf(SLUB_EV_SHEAF_REFILL, ts++, 1, SLAB_A, S1, 20, 20));
	feed(st, listop(SLUB_EV_ADD_PARTIAL, ts++, 1, SLAB_A, seq, SLUB_DEST_HEAD));
	/* thread 2 frees one object to A (seq 2); its event comes last */
	seq++;
	/* thread 1, rounds times: takes A's free objects for one allocation
	 * of its own (to the caller) and gives the rest back (a leftover) */
	for (unsigned i = 0; i < rounds; i++, inuse++) {
		feed(st, listop(SLUB_EV_REMOVE_PARTIAL, ts++, 1, SLAB_A, seq, 0));
		feed(st, sword(SLUB_EV_TAKE_FREELIST, ts++, 1, SLAB_A, SLUB_SITE_GET_FREELIST, ++seq,
			       inuse, 64));
		feed(st, sheaf(SLUB_EV_SHEAF_REFILL, ts++, 1, SLAB_A, 0, 1, 0));
		feed(st, sword(SLUB_EV_FREE_REMOTE, ts++, 1, SLAB_A, SLUB_SITE_SLAB_FREE, ++seq, 64,
			       inuse + 1));
		feed(st, listop(SLUB_EV_ADD_PARTIAL, ts++, 1, SLAB_A, seq, SLUB_DEST_TAIL));
		feed(st, mk(SLUB_EV_ALLOC, ts++, 1));
	}
	feed(st, mk(SLUB_EV_FREE, ts++, 2));
	feed(st, sword(SLUB_EV_FREE_REMOTE, ts++, 2, SLAB_A, SLUB_SITE_SLAB_FREE, 2, 20, 19));
	finish(st);

	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-sheaves-held");
	CHECK(c != NULL && c->sheaves, "cache t-sheaves-held missing or not of the sheaves generation");
	if (c && c->sheaves) {
		/* rounds + 1 free_remote: rounds leftovers, one slow free */
		CHECK(c->item[SLUB_TS_FREE_SLOWPATH] == 1 && c->item[SLUB_TS_FREE_FASTPATH] == 0 &&
			      c->item[SLUB_TS_ALLOC_SLOWPATH] == rounds,
		      "sheaves, held takes: free_slowpath %llu (want 1), free_fastpath %llu (want 0), "
		      "alloc_slowpath %llu (want %u)",
		      (unsigned long long)c->item[SLUB_TS_FREE_SLOWPATH],
		      (unsigned long long)c->item[SLUB_TS_FREE_FASTPATH],
		      (unsigned long long)c->item[SLUB_TS_ALLOC_SLOWPATH], rounds);
	}
	tfree(st);
}

/* b), c) */
static void test_winners_and_storms(void)
{
	struct slub_tstats_config cfg = { 0 };
	struct slub_tstats_totals t;
	uint64_t ts = 1000;

	cfg.run_attempts = 4;
	cfg.window_failures = 16;
	cfg.window_ns = 1000000;
	struct slub_tstats *st = slub_tstats_new(&cfg);
	create(st);
	feed(st, word(SLUB_EV_SLAB_NEW, ts++, 1, SLAB_A, SLUB_SITE_NEW_SLAB, 1, 1, 0));
	feed(st, word(SLUB_EV_FREE_REMOTE, ts++, 2, SLAB_A, SLUB_SITE_SLAB_FREE, 2, 1, 0x100040));
	feed(st, fail(ts++, 3, SLAB_A, SLUB_SITE_SLAB_FREE, 1, 2, 1));
	/* the winner's event arrives after the failure */
	feed(st, fail(ts++, 3, SLAB_A, SLUB_SITE_SLAB_FREE, 2, 3, 1));
	feed(st, word(SLUB_EV_FREE_REMOTE, ts++, 4, SLAB_A, SLUB_SITE_SLAB_FREE, 3, 1, 0x100080));
	/* observed == expected: the word changed without an update */
	feed(st, fail(ts++, 3, SLAB_A, SLUB_SITE_SLAB_FREE, 3, 3, 1));
	/* a run: thread 5 fails 6 attempts in a row, each time beaten by 6;
	 * each failure's stack follows it */
	static const uint64_t ips[3] = { 0x401000, 0x401100, 0x401200 };
	for (uint32_t a = 1; a <= 6; a++) {
		feed(st, word(SLUB_EV_TAKE_FREELIST, ts++, 6, SLAB_A, SLUB_SITE_GET_FREELIST, 3 + a, 1, 0));
		feed(st, fail(ts++, 5, SLAB_A, SLUB_SITE_SLAB_FREE, 2 + a, 3 + a, a));
		slub_tstats_stack(st, VPID, 5, SLUB_EV_CMPXCHG_FAIL, SLAB_A, ips, 3);
	}
	feed(st, word(SLUB_EV_FREE_REMOTE, ts++, 5, SLAB_A, SLUB_SITE_SLAB_FREE, 10, 1, 0x1000c0));
	/* a window: 20 single failures on slab B from threads 7 and 8 in 20 us */
	feed(st, word(SLUB_EV_SLAB_NEW, ts, 9, SLAB_B, SLUB_SITE_NEW_SLAB, 1, 1, 0));
	for (uint32_t i = 0; i < 20; i++) {
		ts += 1000;
		feed(st, word(SLUB_EV_FREE_REMOTE, ts, 9, SLAB_B, SLUB_SITE_SLAB_FREE, 2 + i, 1, 0x200000 + i));
		feed(st, fail(ts + 1, 7 + (i & 1), SLAB_B, SLUB_SITE_SLAB_FREE, 1 + i, 2 + i, 1));
	}
	/* a second later: the window closed */
	ts += 1000000000ull;
	feed(st, word(SLUB_EV_FREE_REMOTE, ts, 9, SLAB_B, SLUB_SITE_SLAB_FREE, 22, 1, 0x200100));
	feed(st, fail(ts + 1, 7, SLAB_B, SLUB_SITE_SLAB_FREE, 21, 22, 1));
	finish(st);

	slub_tstats_get_totals(st, &t);
	CHECK(t.failures == 30, "failures %llu", (unsigned long long)t.failures);
	CHECK(t.attributed == 29 && t.untraced_winner == 1 && t.unknown_winner == 0,
	      "attributed %llu untraced %llu unknown %llu", (unsigned long long)t.attributed,
	      (unsigned long long)t.untraced_winner, (unsigned long long)t.unknown_winner);
	CHECK(t.storms_run == 1 && t.storms_slab == 1 && t.storms == 2,
	      "storms: run %llu slab %llu total %llu", (unsigned long long)t.storms_run,
	      (unsigned long long)t.storms_slab, (unsigned long long)t.storms);

	const struct slub_tstats_storm *run = NULL, *win = NULL;
	for (unsigned i = 0; i < slub_tstats_nr_storms(st); i++) {
		const struct slub_tstats_storm *s = slub_tstats_storm_at(st, i);
		if (s->kind == SLUB_STORM_RUN)
			run = s;
		if (s->kind == SLUB_STORM_SLAB)
			win = s;
	}
	CHECK(run && run->attempts == 6 && run->max_attempt == 6 && run->object == SLAB_A,
	      "run storm: %llu attempts", run ? (unsigned long long)run->attempts : 0ull);
	if (run) {
		CHECK(run->nr_losers == 1 && run->losers[0].vtid == 5, "run loser");
		CHECK(run->nr_winners == 1 && run->winners[0].vtid == 6 &&
		      run->winners[0].site == SLUB_SITE_GET_FREELIST &&
		      run->winners[0].type == SLUB_EV_TAKE_FREELIST && run->winners[0].count == 6,
		      "run winner: vtid %u site %u", run->winners[0].vtid, run->winners[0].site);
		CHECK(run->site == SLUB_SITE_SLAB_FREE && !strcmp(run->cache, "t-64"), "run site %u",
		      run->site);
		CHECK(run->stack_nr == 3 && run->stack_vtid == 5 && run->stack[2] == 0x401200,
		      "run storm stack: %u frames of vtid %u", run->stack_nr, run->stack_vtid);
	}
	CHECK(win && win->attempts == 20 && win->object == SLAB_B && win->nr_losers == 2 &&
	      win->nr_winners == 1 && win->winners[0].vtid == 9,
	      "window storm: %llu attempts", win ? (unsigned long long)win->attempts : 0ull);
	if (win)
		CHECK(win->end_ts - win->begin_ts <= 20000, "window storm span %llu",
		      (unsigned long long)(win->end_ts - win->begin_ts));
	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-64");
	CHECK(c && c->fail_site[SLUB_SITE_SLAB_FREE] == 30, "failures by site");
	tfree(st);
}

/* d), e) */
static void test_locks(void)
{
	struct slub_tstats_config cfg = { 0 };
	uint64_t ts = 5000;
	struct slub_model_event e;
	FILE *f;
	char *text = NULL;
	size_t len = 0;

	cfg.window_failures = 4;
	cfg.window_ns = 1000000;
	struct slub_tstats *st = slub_tstats_new(&cfg);
	create(st);
	e = mk(SLUB_EV_LOCK_ACQUIRE, ts++, 1);
	e.ev.lock_id = CACHE * 64;
	e.ev.lock_seq = 1;
	feed(st, e);
	feed(st, word(SLUB_EV_UNFREEZE, ts++, 1, SLAB_A, SLUB_SITE_UNFREEZE_PARTIALS, 2, 0, 1));
	feed(st, word(SLUB_EV_ADD_PARTIAL, ts++, 1, SLAB_A, 0, 2, 0, 1));
	e = mk(SLUB_EV_LOCK_RELEASE, ts++, 1);
	e.ev.lock_id = CACHE * 64;
	e.ev.lock_seq = 1;
	e.ev.hold_ns = 50000;
	feed(st, e);
	for (int i = 0; i < 6; i++) {
		e = mk(SLUB_EV_LOCK_ACQUIRE, ts += 100, 2 + (i & 1));
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = 2 + i;
		e.ev.contended = 1;
		e.ev.wait_ns = 3000;
		feed(st, e);
		e = mk(SLUB_EV_LOCK_RELEASE, ts += 100, 2 + (i & 1));
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = 2 + i;
		e.ev.hold_ns = 100;
		feed(st, e);
	}
	finish(st);
	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-64");
	CHECK(c && c->item[SLUB_TS_LOCK_ACQUIRE] == 7 && c->item[SLUB_TS_LOCK_CONTENDED] == 6,
	      "lock counts");
	CHECK(c && c->lock_wait_ns == 18000 && c->lock_hold_ns == 50600, "wait %llu hold %llu",
	      c ? (unsigned long long)c->lock_wait_ns : 0ull,
	      c ? (unsigned long long)c->lock_hold_ns : 0ull);
	/* 3000 ns: bucket 6 (< 4096), 50000 ns: bucket 10 (< 65536) */
	CHECK(c && c->lock_wait_hist[6] == 6 && c->lock_wait_hist[0] == 1 &&
	      c->lock_hold_hist[10] == 1, "histograms");
	struct slub_tstats_totals t;
	slub_tstats_get_totals(st, &t);
	CHECK(t.storms_lock == 1, "lock storms %llu", (unsigned long long)t.storms_lock);
	const struct slub_tstats_storm *s = slub_tstats_storm_at(st, 0);
	CHECK(s && s->kind == SLUB_STORM_LOCK && s->attempts == 6 && s->wait_ns == 18000 &&
	      s->nr_losers == 2, "lock storm");

	f = open_memstream(&text, &len);
	slub_tstats_print_text(st, f, SLUB_TSTATS_SHOW_LOCKS, NULL);
	fclose(f);
	CHECK(strstr(text, "50000 ns") && strstr(text, "add_partial x1") &&
	      strstr(text, "unfreeze x1") && strstr(text, "unfreeze_partials"),
	      "longest hold not shown with what it did:\n%s", text);
	free(text);
	tfree(st);
}

/* A slabinfo reader's hold: what it did says the walk (walked N slabs;
 * N of M, extrapolated, for the bounded scan), the threads whose waits
 * overlapped it are named as stalled behind it, one whose wait began
 * after the release is not, and the cache counts the walks. */
static void walk_hold(struct slub_tstats *st, uint64_t *ts, uint64_t seq, uint32_t walked,
		      uint32_t listed, uint64_t hold)
{
	struct slub_model_event e = mk(SLUB_EV_LOCK_ACQUIRE, *ts, 9);

	e.ev.lock_id = CACHE * 64;
	e.ev.lock_seq = seq;
	feed(st, e);
	e = mk(SLUB_EV_SLABINFO_WALK, *ts + 10, 9);
	e.ev.lock_id = CACHE * 64;
	e.ev.lock_seq = seq;
	e.ev.locked = 1;
	e.ev.count = walked;
	e.ev.pages = listed;
	e.ev.size = 1000;
	feed(st, e);
	e = mk(SLUB_EV_LOCK_RELEASE, *ts += hold, 9);
	e.ev.lock_id = CACHE * 64;
	e.ev.lock_seq = seq;
	e.ev.hold_ns = hold;
	feed(st, e);
}

static void test_walk(void)
{
	struct slub_tstats_config cfg = { 0 };
	struct slub_tstats *st = slub_tstats_new(&cfg);
	struct slub_model_event e;
	uint64_t ts = 1000000;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	create(st);
	walk_hold(st, &ts, 1, 50000, 50000, 8000000);
	/* two waiters behind it: their acquisitions follow the release */
	for (uint32_t v = 2; v <= 3; v++) {
		e = mk(SLUB_EV_LOCK_ACQUIRE, ts += 100, v);
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = v;
		e.ev.contended = 1;
		e.ev.wait_ns = 3000000 * v;
		feed(st, e);
		e = mk(SLUB_EV_LOCK_RELEASE, ts += 100, v);
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = v;
		e.ev.hold_ns = 100;
		feed(st, e);
	}
	/* the bounded scan, later: 10000 of 60000 slabs */
	ts += 1000000;
	walk_hold(st, &ts, 4, 10000, 60000, 2000000);
	/* a wait that began after that release: not stalled behind it */
	e = mk(SLUB_EV_LOCK_ACQUIRE, ts += 5000, 4);
	e.ev.lock_id = CACHE * 64;
	e.ev.lock_seq = 5;
	e.ev.contended = 1;
	e.ev.wait_ns = 1000;
	feed(st, e);
	finish(st);

	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-64");
	CHECK(c && c->slabinfo_walks == 2 && c->slabs_walked == 60000 && c->walked_max == 50000 &&
	      c->walked_max_listed == 50000, "walks %llu walked %llu max %u of %u",
	      c ? (unsigned long long)c->slabinfo_walks : 0ull,
	      c ? (unsigned long long)c->slabs_walked : 0ull, c ? c->walked_max : 0,
	      c ? c->walked_max_listed : 0);
	f = open_memstream(&text, &len);
	slub_tstats_print_text(st, f, SLUB_TSTATS_SHOW_LOCKS | SLUB_TSTATS_SHOW_SLABINFO, NULL);
	fclose(f);
	CHECK(text && strstr(text, "8000000 ns") &&
	      strstr(text, "did: walked 50000 slabs (slabinfo)\n") &&
	      strstr(text, "stalled: vtid 2 (waited 6000000 ns) vtid 3 (waited 9000000 ns)\n") &&
	      strstr(text, "did: walked 10000 of 60000 slabs (slabinfo, extrapolated)\n") &&
	      !strstr(text, "vtid 4 (waited") &&
	      strstr(text, "slabinfo walks 2, 60000 slabs walked under the lock, at most 50000 in "
			   "one (of 50000 listed)"),
	      "the walk's hold and the stalled threads:\n%s", text);
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	slub_tstats_print_json(st, f);
	fclose(f);
	CHECK(text && strstr(text, "\"walked\":50000,\"listed\":50000,\"stalled\":[{\"vtid\":2,"
				   "\"wait_ns\":6000000},{\"vtid\":3,\"wait_ns\":9000000}]") &&
	      strstr(text, "\"slabinfo_walks\":2,\"slabs_walked\":60000,\"walked_max\":50000"),
	      "JSON: %s", text);
	free(text);
	tfree(st);
}

/* f), g) */
static void test_json_and_diff(void)
{
	struct slub_tstats *st = slub_tstats_new(NULL);
	struct slub_tstats_discard d = { 1, 42, 0, 0, 0, 0 };
	struct slub_tstats_discard foreign = { 2, 5, 0, 0, 0, 1 };
	struct slub_tstats_result r, back;
	char path[] = "/tmp/test_tstats.XXXXXX";
	char err[256];
	uint64_t ts = 1;

	create(st);
	feed(st, word(SLUB_EV_SLAB_NEW, ts++, 1, SLAB_A, SLUB_SITE_NEW_SLAB, 1, 1, 0));
	for (uint32_t i = 0; i < 3000; i++) {
		feed(st, word(SLUB_EV_FREE_REMOTE, ts += 1000, 2, SLAB_A, SLUB_SITE_SLAB_FREE, 2 + i, 1, i));
		if (i % 100 == 0)
			feed(st, fail(ts + 1, 3, SLAB_A, SLUB_SITE_SLAB_FREE, 1 + i, 2 + i, 1));
	}
	/* LTTng-UST's own events lost: counted apart, the figures stay exact */
	slub_tstats_discarded(st, &foreign);
	{
		struct slub_tstats_totals t;

		slub_tstats_get_totals(st, &t);
		CHECK(t.foreign_discarded == 5 && !t.lower_bounds && !t.discarded_events &&
		      !t.discarded_notices, "a foreign loss: foreign %llu lower_bounds %u",
		      (unsigned long long)t.foreign_discarded, t.lower_bounds);
	}
	slub_tstats_discarded(st, &d);
	finish(st);

	struct slub_tstats_totals t;
	slub_tstats_get_totals(st, &t);
	CHECK(t.lower_bounds && t.discarded_events == 42, "discarded events not reported");

	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	slub_tstats_print_json(st, f);
	fclose(f);
	CHECK(slub_tstats_result_get(st, &r) == 0, "result_get");
	CHECK(slub_tstats_result_load(path, &back, err, sizeof(err)) == 0, "load: %s", err);
	CHECK(back.nr_scopes == r.nr_scopes && back.lower_bounds && !strcmp(back.alloc_basis, "slowpath"),
	      "scopes %u/%u basis %s", back.nr_scopes, r.nr_scopes, back.alloc_basis);
	for (unsigned s = 0; s < r.nr_scopes && s < back.nr_scopes; s++)
		for (unsigned i = 0; i < SLUB_RATE_NR; i++)
			CHECK(fabs(back.scope[s].fig[i].value - r.scope[s].fig[i].value) <=
				      1e-5 * fabs(r.scope[s].fig[i].value),
			      "%s %s: %g read back as %g", r.scope[s].name, slub_tstats_rate_name(i),
			      r.scope[s].fig[i].value, back.scope[s].fig[i].value);
	CHECK(r.scope[0].fig[SLUB_RATE_REDOS_PER_1K_SLOW_FREES].value == 10.0,
	      "redos per 1k slow frees %g", r.scope[0].fig[SLUB_RATE_REDOS_PER_1K_SLOW_FREES].value);

	struct slub_tstats_diff_config dc;
	FILE *null = fopen("/dev/null", "w");
	slub_tstats_diff_defaults(&dc);
	CHECK(slub_tstats_diff(&back, &r, &dc, null) == 0, "a result against itself regressed");
	/* Five times the redos: regressed; a tenth more: within threshold. */
	struct slub_tstats_result worse = back;
	struct slub_tstats_scope sc[8];
	memcpy(sc, back.scope, back.nr_scopes * sizeof(sc[0]));
	worse.scope = sc;
	struct slub_tstats_figure *g = &sc[0].fig[SLUB_RATE_REDOS_PER_1K_SLOW_FREES];
	g->num *= 5;
	g->value *= 5;
	CHECK(slub_tstats_diff(&back, &worse, &dc, null) >= 1, "five times the redos not a regression");
	CHECK(slub_tstats_diff(&worse, &back, &dc, null) == 0, "an improvement is a regression");
	g->num = back.scope[0].fig[SLUB_RATE_REDOS_PER_1K_SLOW_FREES].num * 1.1;
	g->value = back.scope[0].fig[SLUB_RATE_REDOS_PER_1K_SLOW_FREES].value * 1.1;
	CHECK(slub_tstats_diff(&back, &worse, &dc, null) == 0, "+10%% redos is a regression");
	CHECK(slub_tstats_diff_set(&dc, "redos_per_1k_slow_frees=5", err, sizeof(err)) == 0 &&
	      slub_tstats_diff_set(&dc, "redos_per_1k_slow_frees.abs=0", err, sizeof(err)) == 0 &&
	      slub_tstats_diff_set(&dc, "z=0", err, sizeof(err)) == 0, "set: %s", err);
	CHECK(slub_tstats_diff(&back, &worse, &dc, null) >= 1, "+10%% not caught at a 5%% threshold");
	CHECK(slub_tstats_diff_set(&dc, "no_such_figure=5", err, sizeof(err)) == -1 &&
	      strstr(err, "no_such_figure"), "unknown figure accepted");
	CHECK(slub_tstats_diff_set(&dc, "storms_per_s=abc", err, sizeof(err)) == -1, "bad value accepted");
	CHECK(slub_tstats_diff_set(&dc, "all=30%", err, sizeof(err)) == 0, "all=30%%: %s", err);
	fclose(null);

	/* Not a report: a clear error. */
	f = fopen(path, "w");
	fputs("{\"schema\":\"other\"}", f);
	fclose(f);
	struct slub_tstats_result bad;
	CHECK(slub_tstats_result_load(path, &bad, err, sizeof(err)) == -1 && strstr(err, "schema"),
	      "foreign JSON accepted: %s", err);
	f = fopen(path, "w");
	fputs("{\"schema\":\"slubtrace-stats/1\",\"rates\":{\"scopes\":[{\"name\":\"overall\"", f);
	fclose(f);
	CHECK(slub_tstats_result_load(path, &bad, err, sizeof(err)) == -1, "truncated JSON accepted");
	/* A negative count: refused, naming the file and the field. */
	{
		static const char *const bad_fields[] = {
			"\"num\":-3,\"den\":100,\"value\":0.03",
			"\"num\":3,\"den\":-100,\"value\":0.03",
			"\"num\":3,\"den\":100,\"value\":-0.03",
		};
		static const char *const names[] = { "num is -3", "den is -100", "value is -0.03" };

		for (unsigned i = 0; i < 3; i++) {
			f = fopen(path, "w");
			fprintf(f,
				"{\"schema\":\"slubtrace-stats/1\",\"rates\":{\"events\":10,"
				"\"scopes\":[{\"name\":\"overall\",\"figures\":{\"storms_per_s\":"
				"{%s}}}]}}",
				bad_fields[i]);
			fclose(f);
			CHECK(slub_tstats_result_load(path, &bad, err, sizeof(err)) == -1 &&
				      strstr(err, path) && strstr(err, "storms_per_s") &&
				      strstr(err, names[i]),
			      "negative figure field %u: %s", i, err);
		}
		f = fopen(path, "w");
		fputs("{\"schema\":\"slubtrace-stats/1\",\"rates\":{\"events\":-5,"
		      "\"scopes\":[{\"name\":\"overall\",\"figures\":{}}]}}",
		      f);
		fclose(f);
		CHECK(slub_tstats_result_load(path, &bad, err, sizeof(err)) == -1 &&
			      strstr(err, "rates.events"),
		      "negative events accepted: %s", err);
	}
	unlink(path);
	slub_tstats_result_free(&r);
	slub_tstats_result_free(&back);
	tfree(st);
}

/* A lock of the test cache acquired (acq) or released by vtid. */
static void lock_ev(struct slub_tstats *st, bool acq, uint64_t ts, uint32_t vtid, uint64_t seq)
{
	struct slub_model_event e = mk(acq ? SLUB_EV_LOCK_ACQUIRE : SLUB_EV_LOCK_RELEASE, ts, vtid);

	e.ev.lock_id = CACHE * 64;
	e.ev.lock_seq = seq;
	e.ev.hold_ns = acq ? 0 : 100;
	feed(st, e);
}

/* h) a locked __slab_free redo retried with the lock kept (as before
 * Linux 3.6) is counted; one whose lock was dropped first is not; a
 * free into a frozen slab under the lock is counted apart. */
static void test_kept_lock(void)
{
	struct slub_tstats *st = slub_tstats_new(NULL);
	struct slub_model_event e;
	uint64_t ts = 100;

	create(st);
	/* thread 1: fails under the lock, retries without releasing it */
	lock_ev(st, true, ts++, 1, 1);
	e = fail(ts++, 1, SLAB_A, SLUB_SITE_SLAB_FREE, 4, 5, 0);
	e.ev.locked = 1;
	feed(st, e);
	e = word(SLUB_EV_FREE_REMOTE, ts++, 1, SLAB_A, SLUB_SITE_SLAB_FREE, 6, 1, 0x1040);
	e.ev.locked = 1;
	feed(st, e);
	lock_ev(st, false, ts++, 1, 1);
	/* thread 2: fails under the lock, releases it, takes it again */
	lock_ev(st, true, ts++, 2, 2);
	e = fail(ts++, 2, SLAB_B, SLUB_SITE_SLAB_FREE, 7, 8, 0);
	e.ev.locked = 1;
	feed(st, e);
	lock_ev(st, false, ts++, 2, 2);
	lock_ev(st, true, ts++, 2, 3);
	e = word(SLUB_EV_FREE_REMOTE, ts++, 2, SLAB_B, SLUB_SITE_SLAB_FREE, 9, 0, 0x2040);
	e.ev.locked = 1;
	feed(st, e);
	lock_ev(st, false, ts++, 2, 3);
	/* thread 3: an unlocked failure, then a locked update: not kept */
	e = fail(ts++, 3, SLAB_A, SLUB_SITE_SLAB_FREE, 6, 7, 0);
	feed(st, e);
	lock_ev(st, true, ts++, 3, 4);
	e = word(SLUB_EV_FREE_REMOTE, ts++, 3, SLAB_A, SLUB_SITE_SLAB_FREE, 8, 0, 0x1080);
	e.ev.locked = 1;
	feed(st, e);
	lock_ev(st, false, ts++, 3, 4);
	/* thread 4: unfreeze_partials retries under its lock (as Linux 6.1
	 * does): counted at its own site, not as a __slab_free one */
	lock_ev(st, true, ts++, 4, 5);
	/* the update that beats it (the model hands its failure on after it) */
	feed(st, word(SLUB_EV_TAKE_FREELIST, ts++, 5, SLAB_B, SLUB_SITE_GET_FREELIST, 10, 1, 0));
	e = fail(ts++, 4, SLAB_B, SLUB_SITE_UNFREEZE_PARTIALS, 9, 10, 0);
	e.ev.locked = 1;
	feed(st, e);
	e = word(SLUB_EV_UNFREEZE, ts++, 4, SLAB_B, SLUB_SITE_UNFREEZE_PARTIALS, 11, 0, 0x2040);
	e.ev.locked = 1;
	feed(st, e);
	lock_ev(st, false, ts++, 4, 5);
	finish(st);

	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-64");
	CHECK(c && c->fail_site_kept[SLUB_SITE_SLAB_FREE] == 1, "kept at __slab_free: %llu",
	      c ? (unsigned long long)c->fail_site_kept[SLUB_SITE_SLAB_FREE] : 0ull);
	CHECK(c && c->fail_site_kept[SLUB_SITE_UNFREEZE_PARTIALS] == 1,
	      "kept at unfreeze_partials: %llu",
	      c ? (unsigned long long)c->fail_site_kept[SLUB_SITE_UNFREEZE_PARTIALS] : 0ull);
	CHECK(c && c->locked_frozen_frees == 1, "locked frozen frees: %llu",
	      c ? (unsigned long long)c->locked_frozen_frees : 0ull);
	struct slub_tstats_result r;
	CHECK(slub_tstats_result_get(st, &r) == 0, "result");
	const struct slub_tstats_figure *g = r.scope[0].fig;
	CHECK(g[SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES].num == 1 &&
	      g[SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES].den == 3, "kept figure %g/%g",
	      g[SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES].num,
	      g[SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES].den);
	CHECK(g[SLUB_RATE_LOCKED_FROZEN_FREES_PER_1K_SLOW_FREES].num == 1,
	      "locked frozen figure %g", g[SLUB_RATE_LOCKED_FROZEN_FREES_PER_1K_SLOW_FREES].num);
	CHECK(g[SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K].num == 1 &&
	      g[SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K].den == 1 &&
	      g[SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K].value == 1000,
	      "unfreeze_partials redos %g/%g", g[SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K].num,
	      g[SLUB_RATE_UNFREEZE_PARTIALS_REDOS_PER_1K].den);
	slub_tstats_result_free(&r);
	tfree(st);
}

/* A one-scope result whose figure `rate` counts num in den. */
static void one(struct slub_tstats_result *r, struct slub_tstats_scope *sc, unsigned rate,
		double num, double den)
{
	memset(r, 0, sizeof(*r));
	memset(sc, 0, sizeof(*sc));
	snprintf(r->alloc_basis, sizeof(r->alloc_basis), "slowpath");
	snprintf(sc->name, sizeof(sc->name), "overall");
	r->scope = sc;
	r->nr_scopes = 1;
	sc->fig[rate].num = num;
	sc->fig[rate].den = den;
	sc->fig[rate].value = num / den * 1000;
	sc->fig[rate].runs = 1;
	sc->fig[rate].sq = num * num / den;
}

/* Pools runs into a result of its own (malloc'd scopes). */
static void pool(struct slub_tstats_result *dst, struct slub_tstats_result *runs, unsigned n)
{
	char err[128];

	*dst = runs[0];
	dst->scope = malloc(sizeof(*dst->scope));
	memcpy(dst->scope, runs[0].scope, sizeof(*dst->scope));
	for (unsigned i = 1; i < n; i++)
		CHECK(slub_tstats_result_pool(dst, &runs[i], err, sizeof(err)) == 0, "pool: %s", err);
}

/* i) several runs per side: counts summed; a rare event seen in every
 * run of one side only is a regression once pooled; runs that differ
 * far more than counting noise do not make one. */
static void test_pool(void)
{
	const unsigned R = SLUB_RATE_KEPT_LOCK_REDOS_PER_1K_SLOW_FREES;
	struct slub_tstats_result b[3], a[3], pb, pa;
	struct slub_tstats_scope sb[3], sa[3];
	struct slub_tstats_diff_config dc;
	FILE *null = fopen("/dev/null", "w");
	char err[128];
	const char *why;

	slub_tstats_diff_defaults(&dc);
	for (unsigned i = 0; i < 3; i++) {
		one(&b[i], &sb[i], R, 0, 60000);
		one(&a[i], &sa[i], R, 4 + i, 60000);
	}
	CHECK(slub_tstats_diff(&b[0], &a[0], &dc, null) == 0, "4 events in one run judged");
	pool(&pb, b, 3);
	pool(&pa, a, 3);
	CHECK(pa.scope[0].fig[R].num == 15 && pa.scope[0].fig[R].den == 180000 &&
	      pa.scope[0].fig[R].runs == 3, "pooled %g/%g over %g runs", pa.scope[0].fig[R].num,
	      pa.scope[0].fig[R].den, pa.scope[0].fig[R].runs);
	CHECK(slub_tstats_diff_judge(&dc, R, &pb.scope[0].fig[R], &pa.scope[0].fig[R], 1, &why) ==
		      3, "pooled 0 -> 15 events: not a regression (%s)", why);
	slub_tstats_result_free(&pa);
	slub_tstats_result_free(&pb);

	/* 2 and 14 events before, 60 and 8 after: pooled 16 -> 68 (+325%,
	 * z 13 by counting noise alone), but each side's runs differ far more
	 * than counting noise (chi-square 9 and 40 on one degree of freedom):
	 * within noise */
	const double cb[2] = { 2, 14 }, ca[2] = { 60, 8 };
	for (unsigned i = 0; i < 2; i++) {
		one(&b[i], &sb[i], R, cb[i], 60000);
		one(&a[i], &sa[i], R, ca[i], 60000);
	}
	pool(&pb, b, 2);
	pool(&pa, a, 2);
	CHECK(slub_tstats_diff_judge(&dc, R, &pb.scope[0].fig[R], &pa.scope[0].fig[R], 1, &why) ==
		      1 && !strcmp(why, "within noise"),
	      "overdispersed runs judged a regression (%s)", *why ? why : "regressed");
	/* the same totals from runs that agree: a regression */
	for (unsigned i = 0; i < 2; i++) {
		one(&b[i], &sb[i], R, 8, 60000);
		one(&a[i], &sa[i], R, 34, 60000);
	}
	slub_tstats_result_free(&pa);
	slub_tstats_result_free(&pb);
	pool(&pb, b, 2);
	pool(&pa, a, 2);
	CHECK(slub_tstats_diff_judge(&dc, R, &pb.scope[0].fig[R], &pa.scope[0].fig[R], 1, &why) ==
		      3, "16 -> 68 from agreeing runs not a regression (%s)", why);
	slub_tstats_result_free(&pa);
	slub_tstats_result_free(&pb);

	/* runs counting allocations differently cannot be pooled */
	one(&a[0], &sa[0], R, 1, 10);
	one(&a[1], &sa[1], R, 1, 10);
	snprintf(a[1].alloc_basis, sizeof(a[1].alloc_basis), "objects");
	CHECK(slub_tstats_result_pool(&a[0], &a[1], err, sizeof(err)) == -1 &&
	      strstr(err, "objects"), "mixed allocation bases pooled: %s", err);
	fclose(null);
}

/* The per-second series: failures land in their second. */
static void test_series(void)
{
	struct slub_tstats *st = slub_tstats_new(NULL);
	char *text = NULL;
	size_t len = 0;

	create(st);
	feed(st, word(SLUB_EV_SLAB_NEW, 0, 1, SLAB_A, SLUB_SITE_NEW_SLAB, 1, 1, 0));
	feed(st, fail(10, 2, SLAB_A, SLUB_SITE_SLAB_FREE, 0, 1, 1));
	feed(st, fail(2500000000ull, 2, SLAB_A, SLUB_SITE_SLAB_FREE, 0, 1, 1));
	feed(st, fail(2600000000ull, 2, SLAB_A, SLUB_SITE_SLAB_FREE, 0, 1, 1));
	finish(st);
	FILE *f = open_memstream(&text, &len);
	slub_tstats_print_json(st, f);
	fclose(f);
	CHECK(strstr(text, "\"failures\":[1,0,2]") != NULL, "series wrong: %s",
	      strstr(text, "\"series\"") ? strstr(text, "\"series\"") : text);
	free(text);
	tfree(st);
}

/* Lock times near 2^64 ns (a damaged trace): the sums saturate and say
 * so, and diff gives no verdict on them ("unknown", not "no regression"). */
static void test_lock_saturation(void)
{
	struct slub_tstats *st = slub_tstats_new(NULL);
	struct slub_tstats_result r;
	struct slub_tstats_diff_config dc;
	struct slub_model_event e;
	uint64_t ts = 5000;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	create(st);
	for (int i = 0; i < 3; i++) {
		e = mk(SLUB_EV_LOCK_ACQUIRE, ts++, 1);
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = 1 + i;
		e.ev.contended = 1;
		e.ev.wait_ns = UINT64_MAX / 2 + 1;
		feed(st, e);
		e = mk(SLUB_EV_LOCK_RELEASE, ts++, 1);
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = 1 + i;
		e.ev.hold_ns = UINT64_MAX / 2 + 1;
		feed(st, e);
	}
	finish(st);
	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-64");
	CHECK(c && c->lock_wait_ns == UINT64_MAX && c->lock_hold_ns == UINT64_MAX &&
		      c->lock_saturated >= 2,
	      "sums wait %llu hold %llu saturated %llu", c ? (unsigned long long)c->lock_wait_ns : 0,
	      c ? (unsigned long long)c->lock_hold_ns : 0,
	      c ? (unsigned long long)c->lock_saturated : 0);
	f = open_memstream(&text, &len);
	slub_tstats_print_text(st, f, SLUB_TSTATS_SHOW_ALL, NULL);
	fclose(f);
	CHECK(text && strstr(text, "WARNING") && strstr(text, "2^64"), "no warning:\n%s", text);
	free(text);
	CHECK(slub_tstats_result_get(st, &r) == 0 && r.saturated > 0, "result not saturated");
	slub_tstats_diff_defaults(&dc);
	text = NULL;
	f = open_memstream(&text, &len);
	CHECK(slub_tstats_diff(&r, &r, &dc, f) == 0, "saturated result regressed against itself");
	fclose(f);
	CHECK(text && !strstr(text, "no regression") && strstr(text, "verdict: unknown"),
	      "diff on saturated sums:\n%s", text);
	free(text);
	slub_tstats_result_free(&r);
	tfree(st);
}

/* ---- j) lock time tails ---- */

static uint64_t lcg_state = 88172645463325252ull;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return lcg_state >> 11;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_tail_buckets(void)
{
	/* the buckets tile [0, 2^64) in order, each at most 1/16 of its
	 * smallest value wide (exact below 16) */
	CHECK(slub_tstats_tail_lower(0) == 0 && slub_tstats_tail_upper(SLUB_TS_TAIL_BUCKETS - 1) ==
	      UINT64_MAX, "the buckets do not cover 0 to 2^64 - 1");
	unsigned bad = 0;
	for (unsigned b = 0; b < SLUB_TS_TAIL_BUCKETS; b++) {
		uint64_t lo = slub_tstats_tail_lower(b), hi = slub_tstats_tail_upper(b);
		if (hi < lo || (b < SLUB_TS_TAIL_SUB ? hi != lo : hi - lo + 1 > lo / 16) ||
		    slub_tstats_tail_bucket(lo) != b || slub_tstats_tail_bucket(hi) != b ||
		    (b + 1 < SLUB_TS_TAIL_BUCKETS && slub_tstats_tail_lower(b + 1) != hi + 1))
			bad++;
	}
	CHECK(bad == 0, "%u buckets out of place", bad);

	/* quantiles of 5,000 log-uniform times against the exact order
	 * statistics: never below, less than 6.25 % above */
	enum { N = 5000 };
	static uint64_t v[N];
	static struct slub_tstats_tail t;
	memset(&t, 0, sizeof(t));
	for (unsigned i = 0; i < N; i++) {
		v[i] = lcg() >> (lcg() % 53);
		slub_tstats_tail_add(&t, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	unsigned off = 0;
	for (uint64_t k = 1; k <= N; k += 37) {
		uint64_t got = slub_tstats_tail_rank(&t, k), want = v[k - 1];
		if (got < want || got - want > want / 16)
			off++;
	}
	CHECK(off == 0, "%u ranks outside the bound", off);
	CHECK(t.count == N && t.max == v[N - 1] && slub_tstats_tail_rank(&t, N) == v[N - 1] &&
	      slub_tstats_tail_p99(&t) >= v[N - N / 100 - 1] &&
	      slub_tstats_tail_p99(&t) - v[N - N / 100 - 1] <= v[N - N / 100 - 1] / 16,
	      "p99 %llu of exact %llu, max %llu", (unsigned long long)slub_tstats_tail_p99(&t),
	      (unsigned long long)v[N - N / 100 - 1], (unsigned long long)t.max);
	/* small times are exact; no values: 0 */
	memset(&t, 0, sizeof(t));
	CHECK(slub_tstats_tail_p99(&t) == 0, "p99 of nothing");
	for (uint64_t i = 1; i <= 10; i++)
		slub_tstats_tail_add(&t, i);
	CHECK(slub_tstats_tail_p99(&t) == 10 && slub_tstats_tail_rank(&t, 3) == 3,
	      "small values not exact");
}

/*
 * 200 acquisitions of one lock: 190 uncontended, 8 waits of 3,000 ns, one
 * of 40,000 and one of 2.5 ms; holds: 150 of 100 ns, 48 of 500, one of
 * 70,000 and one of 1.2 ms; long_hold replaces the 1.2 ms hold.
 */
static struct slub_tstats *tails_run(uint64_t long_hold)
{
	struct slub_tstats *st = slub_tstats_new(NULL);
	uint64_t ts = 10;

	create(st);
	for (unsigned i = 0; i < 200; i++) {
		struct slub_model_event e = mk(SLUB_EV_LOCK_ACQUIRE, ts += 10, 1 + i % 3);
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = 1 + i;
		e.ev.wait_ns = i < 190 ? 0 : i < 198 ? 3000 : i == 198 ? 40000 : 2500000;
		e.ev.contended = e.ev.wait_ns != 0;
		feed(st, e);
		e = mk(SLUB_EV_LOCK_RELEASE, ts += 10, 1 + i % 3);
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = 1 + i;
		e.ev.hold_ns = i < 150 ? 100 : i < 198 ? 500 : i == 198 ? 70000 : long_hold;
		feed(st, e);
	}
	finish(st);
	return st;
}

static int write_report(const struct slub_tstats *st, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	slub_tstats_print_json(st, f);
	return fclose(f);
}

/* Rewrites the report at src as one written before the figures figs[]
 * (without them) and, with tails, before the tails ("tails" ends every
 * rates scope). */
static int strip_figures(const char *src, const char *dst, const char *const *figs,
			 unsigned nr, bool tails)
{
	FILE *f = fopen(src, "r");
	char *buf = NULL, *p;
	size_t cap = 0;
	ssize_t n;
	int ret = -1;

	if (!f)
		return -1;
	n = getdelim(&buf, &cap, 0, f);
	fclose(f);
	if (n <= 0)
		goto out;
	while (tails && (p = strstr(buf, ",\"tails\":{")) != NULL) {
		/* up to the end of the tails object: braces balance */
		char *q = p + strlen(",\"tails\":");
		int depth = 0;
		do {
			depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
			q++;
		} while (*q && depth);
		memmove(p, q, strlen(q) + 1);
	}
	for (unsigned i = 0; i < nr; i++) {
		char key[64];
		snprintf(key, sizeof(key), ",\"%s\":{", figs[i]);
		while ((p = strstr(buf, key)) != NULL) {
			char *q = strchr(p + 1, '}');
			if (!q)
				goto out;
			memmove(p, q + 1, strlen(q + 1) + 1);
		}
	}
	f = fopen(dst, "w");
	if (!f)
		goto out;
	fputs(buf, f);
	ret = fclose(f);
out:
	free(buf);
	return ret;
}

static int strip_tails(const char *src, const char *dst)
{
	static const char *const figs[] = { "lock_wait_p99_ns", "lock_wait_max_ns",
					    "lock_hold_p99_ns", "lock_hold_max_ns" };

	return strip_figures(src, dst, figs, 4, true);
}

static void test_lock_tails(const char *dir)
{
	struct slub_tstats *st = tails_run(1200000);
	const struct slub_tstats_cache *c = slub_tstats_cache_find(st, "t-64");
	char *text = NULL;
	size_t len = 0;
	char err[256];

	CHECK(c != NULL, "no cache");
	if (!c)
		return;
	/* p99 is rank 198 of 200: 3,000 ns (bucket [2,944, 3,071]) and
	 * 500 ns (bucket [496, 511]); the maxima are exact */
	CHECK(c->lock_wait_tail.count == 200 && slub_tstats_tail_p99(&c->lock_wait_tail) == 3071 &&
	      c->lock_wait_tail.max == 2500000, "wait tail: %llu, p99 %llu, max %llu",
	      (unsigned long long)c->lock_wait_tail.count,
	      (unsigned long long)slub_tstats_tail_p99(&c->lock_wait_tail),
	      (unsigned long long)c->lock_wait_tail.max);
	CHECK(c->lock_hold_tail.count == 200 && slub_tstats_tail_p99(&c->lock_hold_tail) == 511 &&
	      c->lock_hold_tail.max == 1200000, "hold tail: %llu, p99 %llu, max %llu",
	      (unsigned long long)c->lock_hold_tail.count,
	      (unsigned long long)slub_tstats_tail_p99(&c->lock_hold_tail),
	      (unsigned long long)c->lock_hold_tail.max);

	struct slub_tstats_result r;
	CHECK(slub_tstats_result_get(st, &r) == 0, "result_get");
	const struct slub_tstats_figure *g = r.scope[0].fig;
	/* the means count the waits and holds over 1 ms: (8 * 3,000 +
	 * 40,000 + 2,500,000) / 200 and (150 * 100 + 48 * 500 + 70,000 +
	 * 1,200,000) / 200 (without them: 320 and 545) */
	CHECK(g[SLUB_RATE_LOCK_WAIT_NS_PER_ACQ].value == 12820 &&
	      g[SLUB_RATE_LOCK_HOLD_NS_PER_ACQ].value == 6545, "means: wait %g hold %g",
	      g[SLUB_RATE_LOCK_WAIT_NS_PER_ACQ].value, g[SLUB_RATE_LOCK_HOLD_NS_PER_ACQ].value);
	CHECK(g[SLUB_RATE_LOCK_WAIT_P99_NS].value == 3071 &&
	      g[SLUB_RATE_LOCK_WAIT_MAX_NS].value == 2500000 &&
	      g[SLUB_RATE_LOCK_HOLD_P99_NS].value == 511 &&
	      g[SLUB_RATE_LOCK_HOLD_MAX_NS].value == 1200000 &&
	      g[SLUB_RATE_LOCK_HOLD_MAX_NS].den == 200 && g[SLUB_RATE_LOCK_HOLD_MAX_NS].runs == 1,
	      "tail figures %g %g %g %g", g[SLUB_RATE_LOCK_WAIT_P99_NS].value,
	      g[SLUB_RATE_LOCK_WAIT_MAX_NS].value, g[SLUB_RATE_LOCK_HOLD_P99_NS].value,
	      g[SLUB_RATE_LOCK_HOLD_MAX_NS].value);
	CHECK(slub_tstats_rate_kind(SLUB_RATE_LOCK_HOLD_MAX_NS) == SLUB_RATE_KIND_MAX &&
	      slub_tstats_rate_kind(SLUB_RATE_LOCK_WAIT_P99_NS) == SLUB_RATE_KIND_P99 &&
	      slub_tstats_rate_kind(SLUB_RATE_LOCK_WAIT_NS_PER_ACQ) == SLUB_RATE_KIND_RATIO, "kinds");

	FILE *f = open_memstream(&text, &len);
	slub_tstats_print_text(st, f, SLUB_TSTATS_SHOW_SLABINFO | SLUB_TSTATS_SHOW_RATES, NULL);
	fclose(f);
	CHECK(text && strstr(text, "wait p99 3071 ns, max 2500000 ns; hold p99 511 ns, "
				   "max 1200000 ns") && strstr(text, "lock_hold_max_ns"),
	      "text report:\n%s", text);
	free(text);

	/* the JSON keeps the histograms: the figures read back exactly;
	 * two runs pooled: the same p99 and maximum over twice the count */
	char tmpdir[] = "/tmp/test_tstats_tails.XXXXXX";
	const char *d = dir ? dir : mkdtemp(tmpdir);
	char before[512], after[512], old[512];
	snprintf(before, sizeof(before), "%s/tails-before.json", d);
	snprintf(after, sizeof(after), "%s/tails-after.json", d);
	snprintf(old, sizeof(old), "%s/tails-old-format.json", d);
	struct slub_tstats *worse = tails_run(2000000000);     /* a 2 s hold */
	CHECK(d && write_report(st, before) == 0 && write_report(worse, after) == 0 &&
	      strip_tails(before, old) == 0, "writing the reports in %s", d ? d : "?");
	struct slub_tstats_result back, back2, w, o;
	CHECK(slub_tstats_result_load(before, &back, err, sizeof(err)) == 0, "load: %s", err);
	CHECK(slub_tstats_result_load(before, &back2, err, sizeof(err)) == 0, "load: %s", err);
	CHECK(slub_tstats_result_load(after, &w, err, sizeof(err)) == 0, "load: %s", err);
	CHECK(slub_tstats_result_load(old, &o, err, sizeof(err)) == 0, "old format: %s", err);
	for (unsigned i = SLUB_RATE_LOCK_WAIT_P99_NS; i <= SLUB_RATE_LOCK_HOLD_MAX_NS; i++)
		CHECK(back.scope[0].fig[i].value == g[i].value && back.scope[0].fig[i].den == 200 &&
		      back.scope[1].fig[i].value == g[i].value && o.scope[0].fig[i].runs == 0,
		      "%s read back %g, old format runs %g", slub_tstats_rate_name(i),
		      back.scope[0].fig[i].value, o.scope[0].fig[i].runs);
	CHECK(o.scope[0].fig[SLUB_RATE_LOCK_WAIT_NS_PER_ACQ].runs == 0 &&
	      o.scope[0].fig[SLUB_RATE_LOCK_ACQ_PER_1K_ALLOCS].runs == 1 && !o.scope[0].tails_known,
	      "the old format's lock means (under 1 ms only) are not unknown");
	CHECK(slub_tstats_result_pool(&back, &back2, err, sizeof(err)) == 0, "pool: %s", err);
	CHECK(back.scope[0].fig[SLUB_RATE_LOCK_HOLD_P99_NS].value == 511 &&
	      back.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS].value == 1200000 &&
	      back.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS].den == 400 &&
	      back.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS].runs == 2, "pooled tail %g %g %g",
	      back.scope[0].fig[SLUB_RATE_LOCK_HOLD_P99_NS].value,
	      back.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS].value,
	      back.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS].den);

	/* diff: the 2 s hold regresses lock_hold_max_ns (its floor is 1 s) */
	struct slub_tstats_diff_config dc;
	const char *why;
	slub_tstats_diff_defaults(&dc);
	/* p99 needs 10,000 holds a side by default: 200 are too few */
	CHECK(slub_tstats_diff_judge(&dc, SLUB_RATE_LOCK_HOLD_P99_NS,
				     &r.scope[0].fig[SLUB_RATE_LOCK_HOLD_P99_NS],
				     &w.scope[0].fig[SLUB_RATE_LOCK_HOLD_P99_NS], 1, &why) == 0 &&
	      !strcmp(why, "too few operations") &&
	      slub_tstats_diff_set(&dc, "lock_hold_p99_ns.min=100", err, sizeof(err)) == 0,
	      "p99 on 200 holds: %s", why);
	CHECK(slub_tstats_diff_judge(&dc, SLUB_RATE_LOCK_HOLD_MAX_NS,
				     &r.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS],
				     &w.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS], 1, &why) == 3 &&
	      slub_tstats_diff_judge(&dc, SLUB_RATE_LOCK_HOLD_P99_NS,
				     &r.scope[0].fig[SLUB_RATE_LOCK_HOLD_P99_NS],
				     &w.scope[0].fig[SLUB_RATE_LOCK_HOLD_P99_NS], 1, &why) == 1 &&
	      slub_tstats_diff_judge(&dc, SLUB_RATE_LOCK_HOLD_MAX_NS,
				     &w.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS],
				     &r.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS], 1, &why) == 2,
	      "2 s against 1.2 ms: not a regression of lock_hold_max_ns");
	text = NULL;
	f = open_memstream(&text, &len);
	CHECK(slub_tstats_diff(&r, &w, &dc, f) >= 1, "no regression");
	fclose(f);
	CHECK(text && strstr(text, "lock_hold_max_ns") && strstr(strstr(text, "lock_hold_max_ns"),
								"REGRESSED"),
	      "diff:\n%s", text);
	free(text);
	/* against a report without tails: unknown there, no verdict */
	text = NULL;
	f = open_memstream(&text, &len);
	CHECK(slub_tstats_diff(&o, &w, &dc, f) == 0, "an unknown figure regressed");
	fclose(f);
	CHECK(text && strstr(text, "unknown before: its report predates the figure") &&
	      strstr(text, "no regression"), "diff against the old format:\n%s", text);
	CHECK(slub_tstats_diff_judge(&dc, SLUB_RATE_LOCK_HOLD_MAX_NS,
				     &w.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS],
				     &o.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS], 1, &why) == 0 &&
	      !strcmp(why, "unknown after: its report predates the figure"), "why: %s", why);
	free(text);
	/* a side pooled with an old report does not know its tails */
	CHECK(slub_tstats_result_pool(&w, &o, err, sizeof(err)) == 0 &&
	      w.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS].runs == 0 &&
	      w.scope[0].fig[SLUB_RATE_LOCK_HOLD_NS_PER_ACQ].runs == 0 &&
	      w.scope[0].fig[SLUB_RATE_LOCK_ACQ_PER_1K_ALLOCS].runs == 2,
	      "pooled with the old format: %s", err);
	slub_tstats_result_free(&r);
	slub_tstats_result_free(&back);
	slub_tstats_result_free(&back2);
	slub_tstats_result_free(&w);
	slub_tstats_result_free(&o);
	if (!dir) {
		unlink(before);
		unlink(after);
		unlink(old);
		rmdir(d);
	}
	tfree(worse);
	tfree(st);
}

/*
 * k) what the holds did: 200 list_lock holds of 100 ns, of which the last
 * `walks` are slabinfo readers walking `slabs` slabs each in a hold of
 * walk_hold ns (6.1's count_partial walks all of them; the bounded scan
 * 10,000; with the partial counters nothing is walked).
 */
static struct slub_tstats *walks_run(unsigned walks, uint32_t slabs, uint64_t walk_hold)
{
	struct slub_tstats *st = slub_tstats_new(NULL);
	uint64_t ts = 10;

	create(st);
	for (unsigned i = 0; i < 200; i++) {
		bool walk = i >= 200 - walks;
		uint64_t hold = walk ? walk_hold : 100;
		uint32_t vtid = walk ? 9 : 1 + i % 3;
		struct slub_model_event e = mk(SLUB_EV_LOCK_ACQUIRE, ts += 10, vtid);

		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = 1 + i;
		feed(st, e);
		if (walk) {
			struct slub_model_event w = mk(SLUB_EV_SLABINFO_WALK, ts + 5, 9);
			w.ev.lock_id = CACHE * 64;
			w.ev.lock_seq = 1 + i;
			w.ev.locked = 1;
			w.ev.count = slabs;
			w.ev.pages = 30000;
			w.ev.size = 1000;
			feed(st, w);
		}
		e = mk(SLUB_EV_LOCK_RELEASE, ts += hold, vtid);
		e.ev.lock_id = CACHE * 64;
		e.ev.lock_seq = 1 + i;
		e.ev.hold_ns = hold;
		feed(st, e);
	}
	finish(st);
	return st;
}

static void test_walk_figures(const char *dir)
{
	static const char *const figs[] = { "walk_slabs_max", "walks_per_1k_acq",
					    "walk_hold_max_ns" };
	struct slub_tstats *full = walks_run(12, 30000, 5000000);
	struct slub_tstats *bounded = walks_run(12, 10000, 2000000);
	struct slub_tstats *none = walks_run(0, 0, 0);
	struct slub_tstats_result rf, rb, rn, back, old;
	struct slub_tstats_diff_config dc;
	char tmpdir[] = "/tmp/test_tstats_walk.XXXXXX";
	const char *d = dir ? dir : mkdtemp(tmpdir);
	char p_full[512], p_bounded[512], p_none[512], p_old[512], err[256];
	const char *why;

	const struct slub_tstats_cache *c = slub_tstats_cache_find(full, "t-64");
	CHECK(c && c->walk_holds == 12 && c->walk_hold_slabs_max == 30000 &&
	      c->walk_hold_max_ns == 5000000, "walking holds %llu, most %llu, longest %llu",
	      c ? (unsigned long long)c->walk_holds : 0ull,
	      c ? (unsigned long long)c->walk_hold_slabs_max : 0ull,
	      c ? (unsigned long long)c->walk_hold_max_ns : 0ull);
	CHECK(slub_tstats_result_get(full, &rf) == 0 && slub_tstats_result_get(bounded, &rb) == 0 &&
	      slub_tstats_result_get(none, &rn) == 0, "result_get");
	const struct slub_tstats_figure *g = rf.scope[0].fig, *n = rn.scope[0].fig;
	CHECK(g[SLUB_RATE_WALK_SLABS_MAX].value == 30000 &&
	      g[SLUB_RATE_WALK_SLABS_MAX].den == 200 && g[SLUB_RATE_WALKS_PER_1K_ACQ].value == 60 &&
	      g[SLUB_RATE_WALK_HOLD_MAX_NS].value == 5000000 &&
	      g[SLUB_RATE_WALK_HOLD_MAX_NS].den == 12 &&
	      rf.scope[1].fig[SLUB_RATE_WALK_SLABS_MAX].value == 30000 &&
	      slub_tstats_rate_kind(SLUB_RATE_WALK_SLABS_MAX) == SLUB_RATE_KIND_PEAK,
	      "walk figures %g %g %g", g[SLUB_RATE_WALK_SLABS_MAX].value,
	      g[SLUB_RATE_WALKS_PER_1K_ACQ].value, g[SLUB_RATE_WALK_HOLD_MAX_NS].value);
	CHECK(n[SLUB_RATE_WALK_SLABS_MAX].value == 0 && n[SLUB_RATE_WALK_SLABS_MAX].runs == 1 &&
	      n[SLUB_RATE_WALKS_PER_1K_ACQ].value == 0 && n[SLUB_RATE_WALK_HOLD_MAX_NS].den == 0,
	      "no walk: %g %g", n[SLUB_RATE_WALK_SLABS_MAX].value,
	      n[SLUB_RATE_WALKS_PER_1K_ACQ].value);

	/* judged: the walks gone improve, come back regress; the cap too */
	slub_tstats_diff_defaults(&dc);
	for (unsigned i = SLUB_RATE_WALK_SLABS_MAX; i <= SLUB_RATE_WALKS_PER_1K_ACQ; i++)
		CHECK(slub_tstats_diff_judge(&dc, i, &g[i], &n[i], 1, &why) == 2 &&
		      slub_tstats_diff_judge(&dc, i, &n[i], &g[i], 1, &why) == 3,
		      "%s: walks gone not improved or back not regressed (%s)",
		      slub_tstats_rate_name(i), why);
	CHECK(slub_tstats_diff_judge(&dc, SLUB_RATE_WALK_SLABS_MAX, &g[SLUB_RATE_WALK_SLABS_MAX],
				     &rb.scope[0].fig[SLUB_RATE_WALK_SLABS_MAX], 1, &why) == 2,
	      "30000 -> 10000 not improved");
	/* no walking hold on a side: the longest of none is not judged */
	CHECK(slub_tstats_diff_judge(&dc, SLUB_RATE_WALK_HOLD_MAX_NS,
				     &n[SLUB_RATE_WALK_HOLD_MAX_NS],
				     &g[SLUB_RATE_WALK_HOLD_MAX_NS], 1, &why) == 0 &&
	      slub_tstats_diff_set(&dc, "walk_hold_max_ns.abs=1000000", err, sizeof(err)) == 0 &&
	      slub_tstats_diff_judge(&dc, SLUB_RATE_WALK_HOLD_MAX_NS,
				     &rb.scope[0].fig[SLUB_RATE_WALK_HOLD_MAX_NS],
				     &g[SLUB_RATE_WALK_HOLD_MAX_NS], 1, &why) == 1,
	      "walk_hold_max_ns judged without walking holds, or 2 -> 5 ms under 1000%%");

	/* the reports diff's ctest cases read, and one written before the figures */
	snprintf(p_full, sizeof(p_full), "%s/walk-full.json", d);
	snprintf(p_bounded, sizeof(p_bounded), "%s/walk-bounded.json", d);
	snprintf(p_none, sizeof(p_none), "%s/walk-none.json", d);
	snprintf(p_old, sizeof(p_old), "%s/walk-old-format.json", d);
	CHECK(d && write_report(full, p_full) == 0 && write_report(bounded, p_bounded) == 0 &&
	      write_report(none, p_none) == 0 &&
	      strip_figures(p_full, p_old, figs, 3, false) == 0, "writing the reports in %s",
	      d ? d : "?");
	CHECK(slub_tstats_result_load(p_full, &back, err, sizeof(err)) == 0 &&
	      slub_tstats_result_load(p_old, &old, err, sizeof(err)) == 0, "load: %s", err);
	for (unsigned i = SLUB_RATE_WALK_SLABS_MAX; i <= SLUB_RATE_WALK_HOLD_MAX_NS; i++)
		CHECK(back.scope[0].fig[i].value == g[i].value && back.scope[0].fig[i].runs == 1 &&
		      old.scope[0].fig[i].runs == 0 &&
		      old.scope[0].fig[SLUB_RATE_LOCK_HOLD_MAX_NS].runs == 1,
		      "%s read back %g, old format runs %g", slub_tstats_rate_name(i),
		      back.scope[0].fig[i].value, old.scope[0].fig[i].runs);
	/* pooled: the largest of the runs over all their holds; with an old
	 * report, unknown */
	CHECK(slub_tstats_result_pool(&back, &rb, err, sizeof(err)) == 0 &&
	      back.scope[0].fig[SLUB_RATE_WALK_SLABS_MAX].value == 30000 &&
	      back.scope[0].fig[SLUB_RATE_WALK_SLABS_MAX].den == 400 &&
	      back.scope[0].fig[SLUB_RATE_WALK_SLABS_MAX].runs == 2 &&
	      back.scope[0].fig[SLUB_RATE_WALK_HOLD_MAX_NS].value == 5000000 &&
	      back.scope[0].fig[SLUB_RATE_WALKS_PER_1K_ACQ].value == 60,
	      "pooled walk figures %g of %g", back.scope[0].fig[SLUB_RATE_WALK_SLABS_MAX].value,
	      back.scope[0].fig[SLUB_RATE_WALK_SLABS_MAX].den);
	CHECK(slub_tstats_result_pool(&back, &old, err, sizeof(err)) == 0 &&
	      back.scope[0].fig[SLUB_RATE_WALK_SLABS_MAX].runs == 0 &&
	      back.scope[0].fig[SLUB_RATE_WALK_HOLD_MAX_NS].runs == 0,
	      "pooled with the old format");

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	slub_tstats_print_text(full, f, SLUB_TSTATS_SHOW_SLABINFO | SLUB_TSTATS_SHOW_RATES, NULL);
	fclose(f);
	CHECK(text && strstr(text, "12 list_lock holds walked: at most 30000 slabs in one hold, "
				   "the longest held 5000000 ns") &&
	      strstr(text, "walk_slabs_max") && strstr(text, "walk_hold_max_ns"),
	      "text report:\n%s", text);
	free(text);

	slub_tstats_result_free(&rf);
	slub_tstats_result_free(&rb);
	slub_tstats_result_free(&rn);
	slub_tstats_result_free(&back);
	slub_tstats_result_free(&old);
	if (!dir) {
		unlink(p_full);
		unlink(p_bounded);
		unlink(p_none);
		unlink(p_old);
		rmdir(d);
	}
	tfree(full);
	tfree(bounded);
	tfree(none);
}

/* Every JSON writer's strings: one escaping rule (jansson's), names that
 * are not UTF-8 kept (U+FFFD) rather than dropped, and the page's variant
 * safe inside <script>. */
static void test_json_strings(void)
{
	static const struct {
		const char *in, *json, *script;
	} cases[] = {
		{ "kmalloc-64", "\"kmalloc-64\"", "\"kmalloc-64\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"", "\"a\\\"b\\\\c\"" },
		{ "tab\there\n\x01", "\"tab\\there\\n\\u0001\"", "\"tab\\there\\n\\u0001\"" },
		{ "</script>&", "\"</script>&\"", "\"\\u003c/script\\u003e\\u0026\"" },
		{ "bad\xff", "\"bad\xef\xbf\xbd\"", "\"bad\xef\xbf\xbd\"" },
		{ NULL, "\"\"", "\"\"" },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *j = slub_json_quote(cases[i].in, false);
		char *s = slub_json_quote(cases[i].in, true);

		CHECK(j && !strcmp(j, cases[i].json), "case %u: %s", i, j ? j : "(null)");
		CHECK(s && !strcmp(s, cases[i].script), "case %u (script): %s", i, s ? s : "(null)");
		/* the shortcut only where jansson changes nothing */
		CHECK(slub_json_plain(cases[i].in, false) == (j &&
			strlen(j) == strlen(cases[i].in ? cases[i].in : "") + 2), "case %u: plain", i);
		free(j);
		free(s);
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc == 3 && !strcmp(argv[1], "-j") ? argv[2] : NULL;

	test_items();
	test_sheaves_items(7);
	test_sheaves_items(8);
	test_sheaves_held_takes();
	test_winners_and_storms();
	test_locks();
	test_walk();
	test_lock_saturation();
	test_json_and_diff();
	test_json_strings();
	test_series();
	test_kept_lock();
	test_pool();
	test_tail_buckets();
	test_lock_tails(dir);
	test_walk_figures(dir);
	printf("test_tstats: %lu checks, %lu failed\n", checks, failures);
	return failures ? 1 : 0;
}
