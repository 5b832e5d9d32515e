/* SPDX-License-Identifier: MIT */
/*
 * The stat items, per-site redos, list_lock figures and the slab census,
 * rebuilt from events.  Each item is counted from the event that marks it
 * in the allocator (see the table in slub_tstats.h); a few are derived at
 * finish from counts that include them (add_partial, remove_partial).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "slabinfo_page.h"

/* ---- tables ---- */

struct hnode *htab_find(const struct htab *h, uint64_t k1, uint64_t k2)
{
	struct slub_keypair k = { k1, k2 };

	return h->t ? g_hash_table_lookup(h->t, &k) : NULL;
}

int htab_insert(struct htab *h, struct hnode *n)
{
	if (!h->t)
		h->t = g_hash_table_new(slub_keypair_hash, slub_keypair_equal);
	g_hash_table_insert(h->t, &n->key, n);
	return 0;
}

void htab_remove(struct htab *h, struct hnode *n)
{
	if (h->t)
		g_hash_table_remove(h->t, &n->key);
}

void htab_remove_if(struct htab *h, bool (*pred)(struct hnode *, void *), void *arg)
{
	GHashTableIter it;
	gpointer value;

	if (!h->t)
		return;
	g_hash_table_iter_init(&it, h->t);
	while (g_hash_table_iter_next(&it, NULL, &value))
		if (pred(value, arg))
			g_hash_table_iter_remove(&it);
}

/* htab_each() is the walk of htab_remove_if() with a visitor that keeps
 * every node. */
struct each_arg {
	void (*fn)(struct hnode *, void *);
	void *arg;
};

static bool visit_keep(struct hnode *n, void *arg)
{
	struct each_arg *a = arg;

	a->fn(n, a->arg);
	return false;
}

void htab_each(const struct htab *h, void (*fn)(struct hnode *, void *), void *arg)
{
	struct each_arg a = { fn, arg };

	htab_remove_if((struct htab *)h, visit_keep, &a);
}

void htab_destroy(struct htab *h, void (*fn)(struct hnode *, void *), void *arg)
{
	/* The table has no destroy notifiers: it never reads a key (a node)
	 * fn has freed. */
	if (fn)
		htab_each(h, fn, arg);
	if (h->t)
		g_hash_table_destroy(h->t);
	h->t = NULL;
}

/* ---- names ---- */

/* enum slub_tstat_item mirrors the allocator's enum slub_stat_item: the
 * text page (slabinfo_page.h) and the names index both by the latter. */
#define SAME_ITEM(x) _Static_assert((int)SLUB_TS_##x == (int)SLUB_##x, "stat item " #x)
SAME_ITEM(ALLOC_FASTPATH);
SAME_ITEM(ALLOC_SLOWPATH);
SAME_ITEM(FREE_FASTPATH);
SAME_ITEM(FREE_SLOWPATH);
SAME_ITEM(FREE_FROZEN);
SAME_ITEM(FREE_ADD_PARTIAL);
SAME_ITEM(FREE_REMOVE_PARTIAL);
SAME_ITEM(ALLOC_FROM_PARTIAL);
SAME_ITEM(ALLOC_SLAB);
SAME_ITEM(ALLOC_REFILL);
SAME_ITEM(ALLOC_NODE_MISMATCH);
SAME_ITEM(FREE_SLAB);
SAME_ITEM(CPUSLAB_FLUSH);
SAME_ITEM(DEACTIVATE_FULL);
SAME_ITEM(DEACTIVATE_EMPTY);
SAME_ITEM(DEACTIVATE_TO_HEAD);
SAME_ITEM(DEACTIVATE_TO_TAIL);
SAME_ITEM(DEACTIVATE_REMOTE_FREES);
SAME_ITEM(DEACTIVATE_BYPASS);
SAME_ITEM(CMPXCHG_DOUBLE_CPU_FAIL);
SAME_ITEM(CMPXCHG_DOUBLE_FAIL);
SAME_ITEM(CPU_PARTIAL_ALLOC);
SAME_ITEM(CPU_PARTIAL_FREE);
SAME_ITEM(CPU_PARTIAL_NODE);
SAME_ITEM(CPU_PARTIAL_DRAIN);
SAME_ITEM(CMPXCHG_DOUBLE_FAIL_LOCKED);
SAME_ITEM(LOCK_ACQUIRE);
SAME_ITEM(LOCK_CONTENDED);
SAME_ITEM(CPU_PARTIAL_CMPXCHG_FAIL);
SAME_ITEM(ALLOC_PREFETCH);
#undef SAME_ITEM
/* The items the events determine are a prefix of the allocator's; those
 * after it (alloc_prefetch: a variant's count that no event carries) are
 * the allocator's only, and neither page prints them. */
_Static_assert((int)SLUB_TS_NR_ITEMS <= (int)SLUB_NR_STAT_ITEMS,
	       "the mirrored items come first");
_Static_assert(SLUB_TS_HIST_BUCKETS == SLUB_LOCK_HIST_BUCKETS, "the allocator's lock buckets");

const char *slub_tstat_item_name(unsigned item)
{
	return item < SLUB_TS_NR_ITEMS ? slub_stat_names[item] : "unknown";
}

#define SAME_SHEAF_ITEM(x) _Static_assert((int)SLUB_TS_##x == (int)SLUB_##x, "sheaf item " #x)
SAME_SHEAF_ITEM(SHEAF_FLUSH);
SAME_SHEAF_ITEM(SHEAF_REFILL);
SAME_SHEAF_ITEM(SHEAF_ALLOC);
SAME_SHEAF_ITEM(SHEAF_FREE);
SAME_SHEAF_ITEM(BARN_GET);
SAME_SHEAF_ITEM(BARN_GET_FAIL);
SAME_SHEAF_ITEM(BARN_PUT);
SAME_SHEAF_ITEM(BARN_PUT_FAIL);
#undef SAME_SHEAF_ITEM
_Static_assert((int)SLUB_TS_NR_SHEAF_ITEMS == (int)SLUB_NR_SHEAF_STAT_ITEMS, "sheaf items");

const char *slub_tstat_sheaf_item_name(unsigned item)
{
	static const char *const names[SLUB_TS_NR_SHEAF_ITEMS] = {
		"sheaf_flush", "sheaf_refill", "sheaf_alloc", "sheaf_free",
		"barn_get", "barn_get_fail", "barn_put", "barn_put_fail",
	};

	return item < SLUB_TS_NR_SHEAF_ITEMS ? names[item] : "unknown";
}

/* Event and site names of the trace, kept here so that the library needs
 * nothing but event.h (the names are part of the trace format). */
const char *tstats_event(unsigned type)
{
	static const char *const names[SLUB_EV_NR] = {
		"cache_create", "cache_destroy", "slab_new", "slab_discard", "freeze", "unfreeze",
		"take_freelist", "free_remote", "drain_freelist", "cpu_slab_load", "deactivate",
		"cpu_partial_put", "cpu_partial_take", "cpu_partial_drain", "add_partial",
		"remove_partial", "add_full", "remove_full", "cmpxchg_fail", "cpu_cmpxchg_fail",
		"lock_acquire", "lock_release", "thread_flush", "alloc", "free", "error",
		"slabinfo_walk", "sheaf_refill", "sheaf_flush", "sheaf_slot", "barn_put", "barn_get",
		"sheaf_alloc", "sheaf_free",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == 34, "a name per event type");
	return type < SLUB_EV_NR ? names[type] : "unknown";
}

const char *tstats_site(unsigned site)
{
	static const char *const names[SLUB_SITE_NR] = {
		"none", "acquire_slab", "get_freelist", "unfreezing slab", "unfreeze_partials",
		"drain percpu freelist", "__slab_free", "put_cpu_partial", "new_slab",
		"cpu_partial_take",
	};
	return site < SLUB_SITE_NR ? names[site] : "unknown";
}

/* ---- life ---- */

struct slub_tstats *slub_tstats_new(const struct slub_tstats_config *cfg)
{
	struct slub_tstats *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	if (cfg)
		st->cfg = *cfg;
#define DEF(f, v) if (!st->cfg.f) st->cfg.f = (v)
	DEF(run_attempts, SLUB_TSTATS_DEFAULT_RUN_ATTEMPTS);
	DEF(window_failures, SLUB_TSTATS_DEFAULT_WINDOW_FAILURES);
	DEF(window_ns, SLUB_TSTATS_DEFAULT_WINDOW_NS);
	DEF(lookback, SLUB_TSTATS_DEFAULT_LOOKBACK);
	DEF(top_n, SLUB_TSTATS_DEFAULT_TOP_N);
	DEF(max_storms, SLUB_TSTATS_DEFAULT_MAX_STORMS);
#undef DEF
	if (st->cfg.window_failures < 2)
		st->cfg.window_failures = 2;
	if (st->cfg.run_attempts < 2)
		st->cfg.run_attempts = 2;
	st->kept = calloc((size_t)st->cfg.max_storms * SLUB_STORM_NR, sizeof(*st->kept));
	st->top_holds = calloc(st->cfg.top_n, sizeof(*st->top_holds));
	st->top_slabs = calloc(st->cfg.top_n, sizeof(*st->top_slabs));
	st->pair_cap = 1024;
	st->pair_arr = calloc(st->pair_cap, sizeof(*st->pair_arr));
	st->bin_ns = 1000000000ull;
	if (!st->kept || !st->top_holds || !st->top_slabs || !st->pair_arr) {
		slub_tstats_free(st);
		return NULL;
	}
	return st;
}

static void free_node(struct hnode *n, void *arg)
{
	(void)arg;
	free(n);
}

void slub_tstats_free(struct slub_tstats *st)
{
	if (!st)
		return;
	storms_free(st);
	occ_free(st);
	htab_destroy(&st->caches, NULL, NULL);
	for (struct tcache *c = st->cache_list, *next; c; c = next) {
		next = c->next_all;
		free(c->name);
		free(c);
	}
	htab_destroy(&st->locks, NULL, NULL);
	for (struct tlock *l = st->lock_list, *next; l; l = next) {
		next = l->next_all;
		free(l);
	}
	htab_destroy(&st->slabs, free_node, NULL);
	htab_destroy(&st->chains, free_node, NULL);
	htab_destroy(&st->pairs, free_node, NULL);
	htab_destroy(&st->sh_pairs, tstats_sheaves_pair_free, NULL);
	htab_destroy(&st->sh_slots, free_node, NULL);
	free(st->kept);
	free(st->top_holds);
	free(st->top_slabs);
	free(st->pair_arr);
	free(st->bin_fail);
	free(st->bin_cpu_fail);
	free(st->bin_waits);
	free(st->bin_wait_ns);
	free(st->views);
	free(st);
}

/* ---- lookups ---- */

static struct tcache *cache_new(struct slub_tstats *st, uint64_t key, uint32_t cache_id)
{
	struct tcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->h.k1 = key;
	c->h.k2 = cache_id;
	c->vpid = tstats_key_vpid(key);
	c->cache_id = cache_id;
	if (htab_insert(&st->caches, &c->h)) {
		free(c);
		return NULL;
	}
	c->next_all = st->cache_list;
	st->cache_list = c;
	return c;
}

struct tcache *tstats_cache_of(struct slub_tstats *st, uint64_t key, uint32_t cache_id)
{
	struct hnode *n = htab_find(&st->caches, key, cache_id);

	return n ? (struct tcache *)n : cache_new(st, key, cache_id);
}

static struct tslab *slab_of(struct slub_tstats *st, uint64_t key, uint64_t addr,
			     struct tcache *c, bool create)
{
	struct hnode *n = htab_find(&st->slabs, key, addr);

	if (n || !create)
		return (struct tslab *)n;
	struct tslab *s = calloc(1, sizeof(*s) + st->cfg.lookback * sizeof(struct tword_ev));
	if (!s)
		return NULL;
	s->h.k1 = key;
	s->h.k2 = addr;
	s->cache = c;
	if (htab_insert(&st->slabs, &s->h)) {
		free(s);
		return NULL;
	}
	if (++st->live_slabs > st->tot.peak_live_slabs)
		st->tot.peak_live_slabs = st->live_slabs;
	return s;
}

static struct tlock *lock_of(struct slub_tstats *st, const struct slub_model_event *e,
			     uint64_t key, struct tcache *c)
{
	struct hnode *n = htab_find(&st->locks, key, e->ev.lock_id);

	if (n)
		return (struct tlock *)n;
	struct tlock *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->h.k1 = key;
	l->h.k2 = e->ev.lock_id;
	l->vpid = e->vpid;
	l->lock_id = e->ev.lock_id;
	l->node = e->ev.lock_id % 64;
	l->cache = c;
	if (htab_insert(&st->locks, &l->h)) {
		free(l);
		return NULL;
	}
	l->next_all = st->lock_list;
	st->lock_list = l;
	return l;
}

static struct tthread *thread_of(struct slub_tstats *st, uint32_t vpid, uint32_t vtid)
{
	struct hnode *n = htab_find(&st->threads, vpid, vtid);

	if (n)
		return (struct tthread *)n;
	struct tthread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->h.k1 = vpid;
	t->h.k2 = vtid;
	t->run_buf = calloc(st->cfg.run_attempts, sizeof(*t->run_buf));
	if (!t->run_buf || htab_insert(&st->threads, &t->h)) {
		free(t->run_buf);
		free(t);
		return NULL;
	}
	return t;
}

/* ---- series: per-second bins, widened (2^k s) past 4096 bins ---- */

#define MAX_BINS 4096

static int series_grow(struct slub_tstats *st, uint32_t need)
{
	uint32_t cap = st->bins_cap ? st->bins_cap : 64;

	while (cap < need)
		cap *= 2;
	uint64_t **arr[4] = { &st->bin_fail, &st->bin_cpu_fail, &st->bin_waits, &st->bin_wait_ns };
	for (int i = 0; i < 4; i++) {
		uint64_t *p = realloc(*arr[i], cap * sizeof(uint64_t));
		if (!p)
			return -1;
		memset(p + st->bins_cap, 0, (cap - st->bins_cap) * sizeof(uint64_t));
		*arr[i] = p;
	}
	st->bins_cap = cap;
	return 0;
}

void tstats_series_add(struct slub_tstats *st, uint64_t ts, unsigned what, uint64_t v)
{
	if (ts < st->series_t0)
		ts = st->series_t0;
	uint64_t bin = (ts - st->series_t0) / st->bin_ns;

	while (bin >= MAX_BINS) {
		/* Halve the resolution: merge pairs of bins. */
		uint64_t *arr[4] = { st->bin_fail, st->bin_cpu_fail, st->bin_waits, st->bin_wait_ns };
		for (int i = 0; i < 4; i++) {
			for (uint32_t j = 0; j < st->nr_bins; j++) {
				uint64_t x = arr[i][j];
				arr[i][j] = 0;
				arr[i][j / 2] += x;
			}
		}
		st->nr_bins = (st->nr_bins + 1) / 2;
		st->bin_ns *= 2;
		bin = (ts - st->series_t0) / st->bin_ns;
	}
	if (bin >= st->bins_cap && series_grow(st, (uint32_t)bin + 1))
		return;
	if (bin >= st->nr_bins)
		st->nr_bins = (uint32_t)bin + 1;
	uint64_t *arr[4] = { st->bin_fail, st->bin_cpu_fail, st->bin_waits, st->bin_wait_ns };
	arr[what][bin] += v;
}

unsigned tstats_hist_bucket(uint64_t ns)
{
	unsigned b = 0;

	ns >>= 6;
	while (ns && b < SLUB_TS_HIST_BUCKETS - 1) {
		ns >>= 1;
		b++;
	}
	return b;
}

/* ---- lock time tails (the scheme is described in slub_tstats.h) ---- */

unsigned slub_tstats_tail_bucket(uint64_t ns)
{
	if (ns < SLUB_TS_TAIL_SUB)
		return (unsigned)ns;
	unsigned e = 63 - (unsigned)__builtin_clzll(ns);    /* >= SUB_BITS */
	unsigned sub = (unsigned)(ns >> (e - SLUB_TS_TAIL_SUB_BITS)) & (SLUB_TS_TAIL_SUB - 1);

	return (e - SLUB_TS_TAIL_SUB_BITS + 1) * SLUB_TS_TAIL_SUB + sub;
}

uint64_t slub_tstats_tail_lower(unsigned b)
{
	if (b < SLUB_TS_TAIL_SUB)
		return b;
	if (b >= SLUB_TS_TAIL_BUCKETS)
		return UINT64_MAX;
	unsigned shift = b / SLUB_TS_TAIL_SUB - 1;

	return (uint64_t)(SLUB_TS_TAIL_SUB + b % SLUB_TS_TAIL_SUB) << shift;
}

uint64_t slub_tstats_tail_upper(unsigned b)
{
	if (b < SLUB_TS_TAIL_SUB)
		return b;
	if (b >= SLUB_TS_TAIL_BUCKETS)
		return UINT64_MAX;
	return slub_tstats_tail_lower(b) + ((1ull << (b / SLUB_TS_TAIL_SUB - 1)) - 1);
}

void slub_tstats_tail_add(struct slub_tstats_tail *t, uint64_t ns)
{
	t->count++;
	t->bucket[slub_tstats_tail_bucket(ns)]++;
	if (ns > t->max)
		t->max = ns;
}

void slub_tstats_tail_merge(struct slub_tstats_tail *dst, const struct slub_tstats_tail *src)
{
	dst->count += src->count;
	for (unsigned i = 0; i < SLUB_TS_TAIL_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t slub_tstats_tail_rank(const struct slub_tstats_tail *t, uint64_t k)
{
	uint64_t seen = 0;

	if (!k || k > t->count)
		return 0;
	for (unsigned i = 0; i < SLUB_TS_TAIL_BUCKETS; i++) {
		seen += t->bucket[i];
		if (seen >= k) {
			/* the bucket's largest value, which the maximum caps */
			uint64_t v = slub_tstats_tail_upper(i);
			return v < t->max ? v : t->max;
		}
	}
	return t->max;  /* buckets short of count: a damaged report's */
}

uint64_t slub_tstats_tail_p99(const struct slub_tstats_tail *t)
{
	/* ceil(0.99 n) = n - floor(n / 100), without rounding or overflow */
	return slub_tstats_tail_rank(t, t->count - t->count / 100);
}

/* ---- long holds ---- */

static void did_text(const struct theld *hd, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	if (hd->did[SLUB_EV_SLABINFO_WALK]) {
		/* the cause of the hold's length, first */
		int n = hd->walked < hd->listed ?
			snprintf(buf, len, "walked %" PRIu64 " of %" PRIu64 " slabs (slabinfo, "
				 "extrapolated)", hd->walked, hd->listed) :
			snprintf(buf, len, "walked %" PRIu64 " slabs (slabinfo)", hd->walked);
		o = n > 0 && (size_t)n < len ? (size_t)n : 0;
	}
	for (unsigned t = 0; t < SLUB_EV_NR && o + 1 < len; t++) {
		if (!hd->did[t] || t == SLUB_EV_SLABINFO_WALK)
			continue;
		int n = snprintf(buf + o, len - o, "%s%s x%u", o ? ", " : "", tstats_event(t),
				 hd->did[t]);
		if (n < 0)
			break;
		o += (size_t)n;
	}
	if (hd->sites && o + 1 < len) {
		int n = snprintf(buf + o, len - o, " (sites:");
		o += n > 0 ? (size_t)n : 0;
		for (unsigned s = 1; s < SLUB_SITE_NR && o + 1 < len; s++)
			if (hd->sites & (1u << s)) {
				n = snprintf(buf + o, len - o, " %s", tstats_site(s));
				o += n > 0 ? (size_t)n : 0;
			}
		if (o + 1 < len)
			snprintf(buf + o, len - o, ")");
	}
	if (!buf[0])
		snprintf(buf, len, "nothing traced");
}

/* Keeps the `cap` largest holds in arr (unsorted); returns the slot or -1. */
static int top_slot(struct thold *arr, unsigned *nr, unsigned cap, uint64_t hold)
{
	if (*nr < cap)
		return (int)(*nr)++;
	unsigned min = 0;
	for (unsigned i = 1; i < cap; i++)
		if (arr[i].hold_ns < arr[min].hold_ns)
			min = i;
	return arr[min].hold_ns < hold ? (int)min : -1;
}

static void note_hold(struct slub_tstats *st, struct tlock *l, const struct slub_model_event *e,
		      const struct theld *hd)
{
	uint64_t hold = e->ev.hold_ns;
	int i = top_slot(l->top, &l->nr_top, TLOCK_TOP, hold);
	int j = top_slot(st->top_holds, &st->nr_top_holds, st->cfg.top_n, hold);
	struct thold h;

	if (i < 0 && j < 0)
		return;
	memset(&h, 0, sizeof(h));
	h.hold_ns = hold;
	h.ts = e->ts;
	h.lock_seq = e->ev.lock_seq;
	h.vpid = e->vpid;
	h.vtid = e->vtid;
	h.lock_id = l->lock_id;
	snprintf(h.cache, sizeof(h.cache), "%s", l->cache && l->cache->name ? l->cache->name : "?");
	if (hd) {
		did_text(hd, h.did, sizeof(h.did));
		h.walked = hd->walked;
		h.listed = hd->listed;
	}
	else
		snprintf(h.did, sizeof(h.did), "unknown (acquired before the trace)");
	if (i >= 0)
		l->top[i] = h;
	if (j >= 0)
		st->top_holds[j] = h;
}

/* A contended wait of vtid for lock l, [ts - wait, ts]: the kept long
 * holds of l it overlapped name it as stalled behind them. */
static void stall_one(struct thold *h, const struct tlock *l, const struct slub_model_event *e)
{
	uint64_t wait = e->ev.wait_ns, from = e->ts > wait ? e->ts - wait : 0;
	uint64_t hold_from = h->ts > h->hold_ns ? h->ts - h->hold_ns : 0;

	if (h->vpid != l->vpid || h->lock_id != l->lock_id || h->vtid == e->vtid ||
	    from >= h->ts || e->ts < hold_from)
		return;
	for (uint32_t i = 0; i < h->nr_stalled; i++)
		if (h->stalled_vtid[i] == e->vtid) {
			if (wait > h->stalled_ns[i])
				h->stalled_ns[i] = wait;
			return;
		}
	if (h->nr_stalled < THOLD_STALLED) {
		h->stalled_vtid[h->nr_stalled] = e->vtid;
		h->stalled_ns[h->nr_stalled++] = wait;
	} else {
		h->more_stalled++;
	}
}

static void note_stalled(struct slub_tstats *st, struct tlock *l,
			 const struct slub_model_event *e)
{
	for (unsigned i = 0; i < l->nr_top; i++)
		stall_one(&l->top[i], l, e);
	for (unsigned i = 0; i < st->nr_top_holds; i++)
		stall_one(&st->top_holds[i], l, e);
}

/* ---- events ---- */

/* A cache_create: the cache's figures go under its name.  Its id may name
 * a new cache after a cache_destroy; an exec is a new process image (the
 * model's), whose caches are new whatever their ids. */
static void cache_created(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key)
{
	struct tcache *c = (struct tcache *)htab_find(&st->caches, key, e->ev.cache_id);
	const struct slub_cache_info *info = e->ev.info;

	if (c && c->destroyed) {
		htab_remove(&st->caches, &c->h);
		c = NULL;
	}
	if (!c)
		c = cache_new(st, key, e->ev.cache_id);
	if (!c || !info)
		return;
	if (info->name && !c->name)
		c->name = strdup(info->name);
	c->object_size = info->object_size;
	c->size = info->size;
	c->align = info->align;
	c->order = info->order;
	c->objects = info->objects;
	c->flags = info->flags;
	c->sheaves = (info->flags & SLUB_F_SHEAVES) != 0;
	c->sh_no_life = e->format && e->format < TSTATS_FORMAT_SHEAF_LIFE;
}

/* The slab's word after an update (the model hands them on in seq order). */
static void word_apply(struct tslab *s, const struct slub_event *ev)
{
	s->freelist = ev->new.freelist;
	s->seq = ev->new.seq;
	s->inuse = ev->new.inuse;
	s->objects = ev->new.objects;
	s->frozen = ev->new.frozen;
	s->word_valid = 1;
}

static void ring_push(struct slub_tstats *st, struct tslab *s, const struct slub_model_event *e)
{
	struct tword_ev *w = &s->ring[e->ev.new.seq % st->cfg.lookback];

	w->ts = e->ts;
	w->seq = e->ev.new.seq;
	w->vtid = e->vtid;
	w->type = (uint8_t)e->ev.type;
	w->site = (uint8_t)e->ev.site;
	w->valid = 1;
}

static void census_slab(struct hnode *n, void *arg)
{
	struct tslab *s = (struct tslab *)n;
	struct slub_tstats *st = arg;
	struct tcache *c = s->cache;

	if (s->failures) {
		tstats_offer_slab(st, s);
	}
	if (!c || !s->word_valid)
		return;
	c->slabs++;
	if (s->frozen)
		c->cpu_slabs++;
	else if (s->list == TLIST_PARTIAL)
		c->partial_slabs++;
	else
		c->full_slabs++;
	c->inuse_words += s->inuse;
}

void tstats_offer_slab(struct slub_tstats *st, struct tslab *s)
{
	unsigned cap = st->cfg.top_n, k;

	if (st->nr_top_slabs < cap) {
		k = st->nr_top_slabs++;
	} else {
		k = 0;
		for (unsigned i = 1; i < cap; i++)
			if (st->top_slabs[i].failures < st->top_slabs[k].failures)
				k = i;
		if (st->top_slabs[k].failures >= s->failures)
			return;
	}
	struct ttop_slab *t = &st->top_slabs[k];
	unsigned best = 0;
	for (unsigned i = 1; i < SLUB_SITE_NR; i++)
		if (s->fail_by_site[i] > s->fail_by_site[best])
			best = i;
	t->slab = s->h.k2;
	t->vpid = (uint32_t)s->h.k1;
	t->failures = s->failures;
	t->first_ts = s->first_fail_ts;
	t->last_ts = s->last_fail_ts;
	t->site = best;
	t->cache = s->cache && s->cache->name ? s->cache->name : "?";
}

static void slab_discarded(struct slub_tstats *st, struct tslab *s)
{
	if (s->failures)
		tstats_offer_slab(st, s);
	htab_remove(&st->slabs, &s->h);
	st->live_slabs--;
	free(s);
}

static bool is_word_update(unsigned type)
{
	return type == SLUB_EV_SLAB_NEW || (type >= SLUB_EV_FREEZE && type <= SLUB_EV_DRAIN_FREELIST);
}

/* What the holders of list_locks did: every event of a thread holding some. */
static void note_while_held(struct tthread *t, const struct slub_event *ev)
{
	for (unsigned i = 0; i < t->nheld; i++) {
		t->held[i].did[ev->type]++;
		if (ev->site && ev->site < SLUB_SITE_NR)
			t->held[i].sites |= 1u << ev->site;
	}
}

/* slabinfo's walk: what the hold of that lock by this thread did, and the
 * cache's walk figures.  It changes no slab. */
static void walk_event(struct tcache *c, struct tthread *t, const struct slub_event *ev)
{
	c->walks++;
	c->walked += ev->count;
	if (ev->count > c->walked_max) {
		c->walked_max = ev->count;
		c->walked_max_listed = ev->pages;
	}
	for (unsigned i = 0; i < t->nheld; i++)
		if (t->held[i].lock->lock_id == ev->lock_id) {
			t->held[i].walked += ev->count;
			t->held[i].listed += ev->pages;
		}
}

/* *sum += x, held at 2^64 - 1 instead of wrapping (counted in *sat): a
 * wrapped sum would read as a small time, and diff would call it fine. */
static inline void sat_add(uint64_t *sum, uint64_t x, uint64_t *sat)
{
	if (__builtin_add_overflow(*sum, x, sum)) {
		*sum = UINT64_MAX;
		++*sat;
	}
}

static int lock_event(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		      struct tcache *c, struct tthread *t)
{
	const struct slub_event *ev = &e->ev;
	struct tlock *l = lock_of(st, e, key, c);

	if (!l)
		return -1;
	if (ev->type == SLUB_EV_LOCK_ACQUIRE) {
		c->item[SLUB_TS_LOCK_ACQUIRE]++;
		l->acq++;
		c->lock_wait_hist[tstats_hist_bucket(ev->wait_ns)]++;
		l->wait_hist[tstats_hist_bucket(ev->wait_ns)]++;
		/* as the wait sum: an uncontended acquisition waited 0 */
		slub_tstats_tail_add(&c->lock_wait_tail, ev->contended ? ev->wait_ns : 0);
		if (ev->contended) {
			c->item[SLUB_TS_LOCK_CONTENDED]++;
			sat_add(&c->lock_wait_ns, ev->wait_ns, &c->lock_saturated);
			if (ev->wait_ns < SLUB_TSTATS_PREEMPTED_NS)
				sat_add(&c->lock_wait_short_ns, ev->wait_ns, &c->lock_saturated);
			else
				c->lock_long_waits++;
			l->contended++;
			sat_add(&l->wait_ns, ev->wait_ns, &c->lock_saturated);
			if (ev->wait_ns > l->max_wait_ns)
				l->max_wait_ns = ev->wait_ns;
			tstats_series_add(st, e->ts, SERIES_WAIT, 1);
			tstats_series_add(st, e->ts, SERIES_WAIT_NS, ev->wait_ns);
			storms_lock_wait(st, e, key, l);
			note_stalled(st, l, e);
		}
		l->holder_vtid = e->vtid;
		if (t && t->nheld < TTHREAD_HELD) {
			struct theld *hd = &t->held[t->nheld++];
			memset(hd, 0, sizeof(*hd));
			hd->lock = l;
			hd->ts = e->ts;
			hd->lock_seq = ev->lock_seq;
		}
		return 0;
	}
	/* release */
	sat_add(&c->lock_hold_ns, ev->hold_ns, &c->lock_saturated);
	if (ev->hold_ns < SLUB_TSTATS_PREEMPTED_NS)
		sat_add(&c->lock_hold_short_ns, ev->hold_ns, &c->lock_saturated);
	else
		c->lock_long_holds++;
	c->lock_hold_hist[tstats_hist_bucket(ev->hold_ns)]++;
	slub_tstats_tail_add(&c->lock_hold_tail, ev->hold_ns);
	sat_add(&l->hold_ns, ev->hold_ns, &c->lock_saturated);
	l->hold_hist[tstats_hist_bucket(ev->hold_ns)]++;
	const struct theld *found = NULL;
	unsigned k = 0;
	if (t)
		for (k = 0; k < t->nheld; k++)
			if (t->held[k].lock == l) {
				found = &t->held[k];
				break;
			}
	note_hold(st, l, e, found);
	if (found && found->walked) {
		c->walk_holds++;
		if (found->walked > c->walk_hold_slabs_max)
			c->walk_hold_slabs_max = found->walked;
		if (ev->hold_ns > c->walk_hold_max_ns)
			c->walk_hold_max_ns = ev->hold_ns;
	}
	if (t)
		t->kept_pending = 0;
	if (found) {
		t->held[k] = t->held[--t->nheld];
	}
	return 0;
}

/* deactivate_slab's and unfreeze_partials' word updates: the items of the
 * deactivation (remote frees: the word before its first update tells). */
static void deactivation(struct tcache *c, struct tslab *s, const struct slub_model_event *e)
{
	const struct slub_event *ev = &e->ev;

	if (ev->type == SLUB_EV_DRAIN_FREELIST)
		c->drain_updates++;
	if (ev->type == SLUB_EV_UNFREEZE && ev->site == SLUB_SITE_UNFREEZE_PARTIALS &&
	    ev->list == SLUB_DEST_DISCARD)
		c->item[SLUB_TS_DEACTIVATE_EMPTY]++;
	if (!s || (ev->site != SLUB_SITE_UNFREEZING_SLAB && ev->site != SLUB_SITE_DRAIN_PERCPU))
		return;
	if (!s->deact_open || s->deact_vtid != e->vtid) {
		uint64_t fl = 0;

		if (e->old_valid)
			fl = ev->old.freelist;
		else if (s->word_valid && s->seq + 1 == ev->new.seq)
			fl = s->freelist;
		s->deact_open = 1;
		s->deact_vtid = e->vtid;
		s->deact_remote = fl != 0;
	}
	if (ev->type == SLUB_EV_UNFREEZE) {
		c->deactivations++;
		if (ev->list == SLUB_DEST_DISCARD)
			c->item[SLUB_TS_DEACTIVATE_EMPTY]++;
		/* to the tail: counted at the deactivate event (a tail implies
		 * that word had a freelist) */
		if (ev->list != SLUB_DEST_TAIL && s->deact_remote)
			c->item[SLUB_TS_DEACTIVATE_REMOTE_FREES]++;
		s->deact_open = 0;
	}
}

static void deactivate_event(struct tcache *c, const struct slub_event *ev)
{
	switch (ev->reason) {
	case SLUB_DEACT_EMPTY_FREELIST:
		c->item[SLUB_TS_DEACTIVATE_BYPASS]++;
		return;
	case SLUB_DEACT_NODE_MISMATCH:
		c->item[SLUB_TS_ALLOC_NODE_MISMATCH]++;
		break;
	case SLUB_DEACT_FLUSH:
		c->item[SLUB_TS_CPUSLAB_FLUSH]++;
		break;
	}
	if (ev->list == SLUB_DEST_HEAD) {
		c->item[SLUB_TS_DEACTIVATE_TO_HEAD]++;
	} else if (ev->list == SLUB_DEST_TAIL) {
		c->item[SLUB_TS_DEACTIVATE_TO_TAIL]++;
		c->item[SLUB_TS_DEACTIVATE_REMOTE_FREES]++;
	} else if (ev->list == SLUB_DEST_FULL) {
		c->item[SLUB_TS_DEACTIVATE_FULL]++;
	}
}

/* A failed slab-word CAS: the redo items and sites, and its storms. */
static void cas_failed(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		       struct tcache *c, struct tthread *t, struct tslab *s)
{
	const struct slub_event *ev = &e->ev;

	c->item[SLUB_TS_CMPXCHG_DOUBLE_FAIL]++;
	st->tot.failures++;
	if (ev->site < SLUB_SITE_NR) {
		c->fail_site[ev->site]++;
		if (ev->locked)
			c->fail_site_locked[ev->site]++;
	}
	if (ev->locked)
		c->item[SLUB_TS_CMPXCHG_DOUBLE_FAIL_LOCKED]++;
	if (ev->locked && t->nheld && ev->site < SLUB_SITE_NR) {
		t->kept_pending = 1;
		t->kept_slab = ev->slab;
		t->kept_site = ev->site;
	}
	tstats_series_add(st, e->ts, SERIES_FAIL, 1);
	if (!s)
		return;
	if (!s->failures++)
		s->first_fail_ts = e->ts;
	s->last_fail_ts = e->ts;
	if (ev->site < SLUB_SITE_NR)
		s->fail_by_site[ev->site]++;
	storms_word_fail(st, e, key, c, s);
}

static void cpu_cas_failed(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
			   struct tcache *c)
{
	const struct slub_event *ev = &e->ev;

	c->item[SLUB_TS_CPU_PARTIAL_CMPXCHG_FAIL]++;
	st->tot.cpu_failures++;
	if (ev->site < SLUB_SITE_NR)
		c->cpu_fail_site[ev->site]++;
	tstats_series_add(st, e->ts, SERIES_CPU_FAIL, 1);
	storms_chain_fail(st, e, key, c);
}

/* The items an event marks, one case per event type. */
static int count_event(struct slub_tstats *st, const struct slub_model_event *e, uint64_t key,
		       struct tcache *c, struct tthread *t, struct tslab *s)
{
	const struct slub_event *ev = &e->ev;

	switch (ev->type) {
	case SLUB_EV_CACHE_DESTROY:
		c->destroyed = 1;
		break;
	case SLUB_EV_SLAB_NEW:
		c->item[SLUB_TS_ALLOC_SLAB]++;
		c->ops_site[SLUB_SITE_NEW_SLAB]++;
		break;
	case SLUB_EV_SLAB_DISCARD:
		c->item[SLUB_TS_FREE_SLAB]++;
		break;
	case SLUB_EV_FREEZE:
		if (ev->site == SLUB_SITE_ACQUIRE_SLAB) {
			c->freeze_acquire++;
			c->item[ev->new.freelist ? SLUB_TS_CPU_PARTIAL_NODE : SLUB_TS_ALLOC_FROM_PARTIAL]++;
		} else if (ev->site == SLUB_SITE_SLAB_FREE) {
			c->item[SLUB_TS_CPU_PARTIAL_FREE]++;
			c->item[SLUB_TS_FREE_SLOWPATH]++;
		}
		break;
	case SLUB_EV_FREE_REMOTE:
		c->item[SLUB_TS_FREE_SLOWPATH]++;
		if (ev->new.frozen) {
			c->item[SLUB_TS_FREE_FROZEN]++;
			if (ev->locked)
				c->locked_frozen_frees++;
		}
		break;
	case SLUB_EV_TAKE_FREELIST:
		c->item[SLUB_TS_ALLOC_REFILL]++;
		break;
	case SLUB_EV_DRAIN_FREELIST:
	case SLUB_EV_UNFREEZE:
		deactivation(c, s, e);
		break;
	case SLUB_EV_DEACTIVATE:
		deactivate_event(c, ev);
		break;
	case SLUB_EV_CPU_PARTIAL_PUT:
		c->ops_site[SLUB_SITE_PUT_CPU_PARTIAL]++;
		storms_chain_event(st, e, key, tstats_ev_slot(ev));
		break;
	case SLUB_EV_CPU_PARTIAL_TAKE:
		c->item[SLUB_TS_CPU_PARTIAL_ALLOC]++;
		c->ops_site[SLUB_SITE_CPU_PARTIAL_TAKE]++;
		storms_chain_event(st, e, key, tstats_ev_slot(ev));
		break;
	case SLUB_EV_CPU_PARTIAL_DRAIN:
		if (ev->reason == SLUB_DEACT_CPU_PARTIAL_LIMIT)
			c->item[SLUB_TS_CPU_PARTIAL_DRAIN]++;
		storms_chain_event(st, e, key, tstats_ev_slot(ev));
		break;
	case SLUB_EV_ADD_PARTIAL:
		c->add_partial++;
		if (s)
			s->list = TLIST_PARTIAL;
		break;
	case SLUB_EV_ADD_FULL:
		if (s)
			s->list = TLIST_FULL;
		break;
	case SLUB_EV_REMOVE_PARTIAL:
		c->remove_partial++;
		/* fall through */
	case SLUB_EV_REMOVE_FULL:
		if (s)
			s->list = TLIST_NONE;
		break;
	case SLUB_EV_CMPXCHG_FAIL:
		cas_failed(st, e, key, c, t, s);
		break;
	case SLUB_EV_CPU_CMPXCHG_FAIL:
		cpu_cas_failed(st, e, key, c);
		break;
	case SLUB_EV_LOCK_ACQUIRE:
	case SLUB_EV_LOCK_RELEASE:
		return lock_event(st, e, key, c, t);
	case SLUB_EV_ALLOC:
		c->allocs++;
		st->tot.have_objects = 1;
		break;
	case SLUB_EV_FREE:
		c->frees++;
		st->tot.have_objects = 1;
		break;
	default:
		break;
	}
	return 0;
}

static bool has_slab_state(unsigned type)
{
	return is_word_update(type) || type == SLUB_EV_SLAB_DISCARD ||
	       (type >= SLUB_EV_ADD_PARTIAL && type <= SLUB_EV_REMOVE_FULL) ||
	       type == SLUB_EV_CMPXCHG_FAIL;
}

/* The next attempt after a locked failure, the lock not released in
 * between (a release clears kept_pending): was list_lock kept? */
static void kept_attempt(struct tcache *c, struct tthread *t, const struct slub_event *ev)
{
	if (!t->kept_pending || ev->slab != t->kept_slab ||
	    (ev->type != SLUB_EV_CMPXCHG_FAIL && !is_word_update(ev->type)))
		return;
	t->kept_pending = 0;
	if (ev->locked && ev->site == t->kept_site)
		c->fail_site_kept[t->kept_site]++;
}

int slub_tstats_event(struct slub_tstats *st, const struct slub_model_applied *a)
{
	const struct slub_model_event *e = a->e;
	const struct slub_event *ev = &e->ev;
	uint64_t key = tstats_key(e->vpid, a->image);
	struct tcache *c;
	struct tslab *s = NULL;
	struct tthread *t;
	int ret = 0;

	if (st->finished)
		return -1;
	if (!st->tot.events++) {
		st->tot.first_ts = e->ts;
		st->series_t0 = e->ts;
	}
	if (e->ts > st->tot.last_ts)
		st->tot.last_ts = e->ts;
	if (ev->type >= SLUB_EV_NR)
		return 0;
	if (ev->type == SLUB_EV_CACHE_CREATE) {
		cache_created(st, e, key);
		return 0;
	}
	if (ev->type == SLUB_EV_THREAD_FLUSH || ev->type == SLUB_EV_ERROR)
		return 0;
	c = tstats_cache_of(st, key, ev->cache_id);
	t = thread_of(st, e->vpid, e->vtid);
	if (!c || !t)
		return -1;
	if (occ_event(st, e, c))
		ret = -1;
	if (ev->type == SLUB_EV_SLABINFO_WALK) {
		walk_event(c, t, ev);
		note_while_held(t, ev);
		return 0;
	}
	if (t->nheld && ev->type != SLUB_EV_LOCK_ACQUIRE && ev->type != SLUB_EV_LOCK_RELEASE)
		note_while_held(t, ev);
	if (ev->slab && has_slab_state(ev->type)) {
		s = slab_of(st, key, ev->slab, c, true);
		if (!s)
			ret = -1;
	}
	kept_attempt(c, t, ev);
	if (c->sheaves || (ev->type >= SLUB_EV_SHEAF_REFILL && ev->type <= SLUB_EV_SHEAF_FREE))
		tstats_sheaves_event(st, key, c, t, e, s);
	if (count_event(st, e, key, c, t, s))
		ret = -1;
	if (s && is_word_update(ev->type)) {
		c->word_updates++;
		if (ev->type != SLUB_EV_SLAB_NEW && ev->site < SLUB_SITE_NR)
			c->ops_site[ev->site]++;
		if (!a->dropped) {
			word_apply(s, ev);
			ring_push(st, s, e);
		}
	}
	if (s && ev->type == SLUB_EV_SLAB_DISCARD)
		slab_discarded(st, s);
	if (++st->events_since_sweep >= 65536) {
		st->events_since_sweep = 0;
		storms_sweep(st, e->ts, false);
	}
	return ret;
}

void slub_tstats_applied(const struct slub_model_applied *a, void *arg)
{
	struct slub_tstats *st = arg;

	if (slub_tstats_event(st, a) < 0)
		st->failed = 1;
}

int slub_tstats_failed(const struct slub_tstats *st)
{
	return st->failed;
}

void slub_tstats_stack(struct slub_tstats *st, uint32_t vpid, uint32_t vtid, unsigned type,
		       uint64_t slab, const uint64_t *ips, uint32_t nr)
{
	struct tthread *t = (struct tthread *)htab_find(&st->threads, vpid, vtid);

	if (!t || (type != SLUB_EV_CMPXCHG_FAIL && type != SLUB_EV_CPU_CMPXCHG_FAIL))
		return;
	if (nr > SLUB_TSTATS_STACK_DEPTH)
		nr = SLUB_TSTATS_STACK_DEPTH;
	memcpy(t->stack, ips, nr * sizeof(*ips));
	t->stack_nr = nr;
	t->stack_type = type;
	t->stack_slab = slab;
}

void slub_tstats_set_symbolizer(struct slub_tstats *st, slub_tstats_symbolize_fn fn, void *arg)
{
	st->symbolize = fn;
	st->symbolize_arg = arg;
}

void slub_tstats_discarded(struct slub_tstats *st, const struct slub_tstats_discard *d)
{
	if (d->foreign) {
		st->tot.foreign_discarded += d->count;
		return;
	}
	st->tot.discarded_notices++;
	st->tot.discarded_events += d->count;
	st->tot.lower_bounds = 1;
}

/* ---- finish: derived items, census, views by name ---- */

static void derive_items(struct slub_tstats *st, struct tcache *c)
{
	uint64_t *x = c->item;
	uint64_t deact_partial = x[SLUB_TS_DEACTIVATE_TO_HEAD] + x[SLUB_TS_DEACTIVATE_TO_TAIL];

	x[SLUB_TS_FREE_ADD_PARTIAL] = c->add_partial > deact_partial ? c->add_partial - deact_partial : 0;
	x[SLUB_TS_FREE_REMOVE_PARTIAL] =
		c->remove_partial > c->freeze_acquire ? c->remove_partial - c->freeze_acquire : 0;
	x[SLUB_TS_ALLOC_SLOWPATH] =
		x[SLUB_TS_ALLOC_REFILL] + x[SLUB_TS_ALLOC_FROM_PARTIAL] + x[SLUB_TS_ALLOC_SLAB];
	if (st->tot.have_objects) {
		x[SLUB_TS_ALLOC_FASTPATH] = c->allocs > x[SLUB_TS_ALLOC_SLOWPATH]
						    ? c->allocs - x[SLUB_TS_ALLOC_SLOWPATH] : 0;
		x[SLUB_TS_FREE_FASTPATH] = c->frees > x[SLUB_TS_FREE_SLOWPATH]
						   ? c->frees - x[SLUB_TS_FREE_SLOWPATH] : 0;
	}
	if (c->sheaves)
		tstats_sheaves_derive(c, x, st->tot.have_objects);
}

static void view_add(struct slub_tstats_cache *v, const struct tcache *c)
{
	v->processes++;
	if (!v->objects) {
		v->object_size = c->object_size;
		v->size = c->size;
		v->align = c->align;
		v->order = c->order;
		v->objects = c->objects;
		v->flags = c->flags;
	}
	for (int i = 0; i < SLUB_TS_NR_ITEMS; i++)
		v->item[i] += c->item[i];
	v->sheaves |= c->sheaves;
	v->sheaf_no_life |= c->sheaves && c->sh_no_life;
	for (int i = 0; i < SLUB_TS_NR_SHEAF_ITEMS; i++)
		v->sheaf_item[i] += c->sheaf_item[i];
	for (int i = 0; i < SLUB_SITE_NR; i++) {
		v->fail_site[i] += c->fail_site[i];
		v->fail_site_locked[i] += c->fail_site_locked[i];
		v->fail_site_kept[i] += c->fail_site_kept[i];
		v->cpu_fail_site[i] += c->cpu_fail_site[i];
		v->ops_site[i] += c->ops_site[i];
	}
	v->locked_frozen_frees += c->locked_frozen_frees;
	v->lock_saturated += c->lock_saturated;
	v->slabinfo_walks += c->walks;
	v->slabs_walked += c->walked;
	if (c->walked_max > v->walked_max) {
		v->walked_max = c->walked_max;
		v->walked_max_listed = c->walked_max_listed;
	}
	v->walk_holds += c->walk_holds;
	if (c->walk_hold_slabs_max > v->walk_hold_slabs_max)
		v->walk_hold_slabs_max = c->walk_hold_slabs_max;
	if (c->walk_hold_max_ns > v->walk_hold_max_ns)
		v->walk_hold_max_ns = c->walk_hold_max_ns;
	sat_add(&v->lock_wait_ns, c->lock_wait_ns, &v->lock_saturated);
	sat_add(&v->lock_hold_ns, c->lock_hold_ns, &v->lock_saturated);
	sat_add(&v->lock_wait_short_ns, c->lock_wait_short_ns, &v->lock_saturated);
	sat_add(&v->lock_hold_short_ns, c->lock_hold_short_ns, &v->lock_saturated);
	v->lock_long_waits += c->lock_long_waits;
	v->lock_long_holds += c->lock_long_holds;
	for (int i = 0; i < SLUB_TS_HIST_BUCKETS; i++) {
		v->lock_wait_hist[i] += c->lock_wait_hist[i];
		v->lock_hold_hist[i] += c->lock_hold_hist[i];
	}
	slub_tstats_tail_merge(&v->lock_wait_tail, &c->lock_wait_tail);
	slub_tstats_tail_merge(&v->lock_hold_tail, &c->lock_hold_tail);
	v->allocs += c->allocs;
	v->frees += c->frees;
	v->word_updates += c->word_updates;
	v->deactivations += c->deactivations;
	v->drain_updates += c->drain_updates;
	v->storms += c->storms;
	occ_view_add(&v->occ, c);
	v->slabs += c->slabs;
	v->partial_slabs += c->partial_slabs;
	v->full_slabs += c->full_slabs;
	v->cpu_slabs += c->cpu_slabs;
}

static int view_cmp(const void *a, const void *b)
{
	const struct slub_tstats_cache *x = a, *y = b;

	return strcmp(x->name, y->name);
}

void slub_tstats_finish(struct slub_tstats *st)
{
	unsigned n = 0;
	char unnamed[32];

	if (st->finished)
		return;
	storms_finish(st);
	occ_finish(st);
	htab_each(&st->slabs, census_slab, st);
	for (struct tcache *c = st->cache_list; c; c = c->next_all)
		n++;
	st->views = calloc(n ? n : 1, sizeof(*st->views));
	if (!st->views)
		n = 0;
	for (struct tcache *c = st->cache_list; c && st->views; c = c->next_all) {
		derive_items(st, c);
		if (!c->name) {
			snprintf(unnamed, sizeof(unnamed), "cache#%u", c->cache_id);
			c->name = strdup(unnamed);
			if (!c->name)
				continue;
		}
		unsigned i;
		for (i = 0; i < st->nr_views; i++)
			if (!strcmp(st->views[i].name, c->name))
				break;
		if (i == st->nr_views) {
			st->views[i].name = c->name;
			st->nr_views++;
		}
		view_add(&st->views[i], c);
		st->views[i].objects_inuse += st->tot.have_objects
			? (c->allocs > c->frees ? c->allocs - c->frees : 0) : c->inuse_words;
	}
	/* Which items the events determine. */
	uint64_t known = (1ull << SLUB_TS_NR_ITEMS) - 1;
	/* prefetch-freelist's prefetches leave no event */
	known &= ~(1ull << SLUB_TS_ALLOC_PREFETCH);
	if (!st->tot.have_objects)
		known &= ~((1ull << SLUB_TS_ALLOC_FASTPATH) | (1ull << SLUB_TS_FREE_FASTPATH));
	for (unsigned i = 0; i < st->nr_views; i++) {
		struct slub_tstats_cache *v = &st->views[i];

		v->known = v->sheaves && v->sheaf_no_life ? known & ~TSTATS_SHEAVES_UNKNOWN : known;
		v->sheaf_known = !v->sheaves ? 0 : v->sheaf_no_life ? TSTATS_SHEAF_KNOWN :
				 TSTATS_SHEAF_KNOWN | TSTATS_SHEAF_LIFE;
	}
	qsort(st->views, st->nr_views, sizeof(*st->views), view_cmp);
	st->finished = 1;
}

unsigned slub_tstats_nr_caches(const struct slub_tstats *st)
{
	return st->nr_views;
}

const struct slub_tstats_cache *slub_tstats_cache_at(const struct slub_tstats *st, unsigned i)
{
	return i < st->nr_views ? &st->views[i] : NULL;
}

const struct slub_tstats_cache *slub_tstats_cache_find(const struct slub_tstats *st,
						       const char *name)
{
	for (unsigned i = 0; i < st->nr_views; i++)
		if (!strcmp(st->views[i].name, name))
			return &st->views[i];
	return NULL;
}

void slub_tstats_get_totals(const struct slub_tstats *st, struct slub_tstats_totals *t)
{
	*t = st->tot;
}
