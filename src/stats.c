/* SPDX-License-Identifier: MIT */
/*
 * Statistics: the kernel's enum stat_item, summed over threads on read,
 * and a report in the layout of `slabinfo -r` (tools/mm/slabinfo.c).
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <inttypes.h>

#include "slabinfo_page.h"

const char *slub_stat_name(unsigned item)
{
	return item < SLUB_NR_STAT_ITEMS && slub_stat_names[item] ? slub_stat_names[item] : "unknown";
}

static const char *const sheaf_stat_names[SLUB_NR_SHEAF_STAT_ITEMS] = {
	[SLUB_SHEAF_FLUSH] = "sheaf_flush",
	[SLUB_SHEAF_REFILL] = "sheaf_refill",
	[SLUB_SHEAF_ALLOC] = "sheaf_alloc",
	[SLUB_SHEAF_FREE] = "sheaf_free",
	[SLUB_BARN_GET] = "barn_get",
	[SLUB_BARN_GET_FAIL] = "barn_get_fail",
	[SLUB_BARN_PUT] = "barn_put",
	[SLUB_BARN_PUT_FAIL] = "barn_put_fail",
};

const char *slub_sheaf_stat_name(unsigned item)
{
	return item < SLUB_NR_SHEAF_STAT_ITEMS ? sheaf_stat_names[item] : "unknown";
}

/* What both queries begin with: the arguments checked (EINVAL), *out
 * cleared, and the cache's counters summed over its threads into *sum. */
static struct slub_cache *stats_begin(const struct slub_cache *cs, void *out, size_t size,
				      struct slub_cpu_stats *sum)
{
	struct slub_cache *s = (struct slub_cache *)cs;

	if (!s || !out) {
		errno = EINVAL;
		return NULL;
	}
	memset(out, 0, size);
	slub_sum_stats(s, sum);
	return s;
}

int slub_cache_sheaf_stats(const struct slub_cache *cs, struct slub_sheaf_stats *out)
{
	struct slub_cpu_stats sum;
	struct slub_cache *s = stats_begin(cs, out, sizeof(*out), &sum);

	if (!s)
		return -1;
	memcpy(out->item, sum.sheaf, sizeof(out->item));
	out->sheaf_capacity = s->sheaf_capacity;
	for (int i = 0; i < slub_nodes; i++) {
		out->barn_full += READ_ONCE(s->node[i].barn_nr_full);
		out->barn_empty += READ_ONCE(s->node[i].barn_nr_empty);
	}
	return 0;
}

int slub_cache_stats(const struct slub_cache *cs, struct slub_stats *out)
{
	struct slub_cpu_stats sum;
	struct slub_cache *s = stats_begin(cs, out, sizeof(*out), &sum);

	if (!s)
		return -1;
	memcpy(out->item, sum.item, sizeof(out->item));
	memcpy(out->cmpxchg_fail_site, sum.cmpxchg_fail_site, sizeof(out->cmpxchg_fail_site));
	out->lock_wait_ns = sum.lock_wait_ns;
	out->lock_hold_ns = sum.lock_hold_ns;
	memcpy(out->lock_wait_hist, sum.lock_wait_hist, sizeof(out->lock_wait_hist));
	memcpy(out->lock_hold_hist, sum.lock_hold_hist, sizeof(out->lock_hold_hist));

	/* Census (exact only when the cache is quiet). */
	out->slabs = __atomic_load_n(&s->total_slabs, __ATOMIC_RELAXED);
	for (int i = 0; i < slub_nodes; i++) {
		out->partial_slabs += READ_ONCE(s->node[i].nr_partial);
		out->full_slabs += READ_ONCE(s->node[i].nr_full);
	}
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		struct slub_cpu *c = __atomic_load_n(&t->cpu[s->id], __ATOMIC_ACQUIRE);
		if (!c || c->cache != s)
			continue;
		if (READ_ONCE(c->slab))
			out->cpu_slabs++;
		struct slab *p = __atomic_load_n(&c->partial, __ATOMIC_ACQUIRE);
		if (p)
			out->cpu_slabs += READ_ONCE(p->pages);
	}
	if (!kmem_cache_track_full(s) && out->slabs > out->partial_slabs + out->cpu_slabs)
		out->full_slabs = out->slabs - out->partial_slabs - out->cpu_slabs;
	out->objects = out->slabs * s->objects;
	uint64_t allocs = out->item[SLUB_ALLOC_FASTPATH] + out->item[SLUB_ALLOC_SLOWPATH];
	uint64_t frees = out->item[SLUB_FREE_FASTPATH] + out->item[SLUB_FREE_SLOWPATH];
	out->objects_inuse = allocs > frees ? allocs - frees : 0;
	return 0;
}

void slub_print_slabinfo(FILE *f, struct slub_cache *s)
{
	struct slub_stats st;

	if (!f || !s || slub_cache_stats(s, &st))
		return;
	struct slub_page p = {
		.name = s->name,
		.objects_note = "",
		.order = s->order,
		.processes = 1,
		.object_size = s->object_size,
		.size = s->size,
		.align = s->align,
		.slab_bytes = s->slab_bytes,
		.objects = s->objects,
		.flags = s->flags,
		.tracing = slub_tp_enabled(SLUB_EV_FREEZE),
		.slabs = st.slabs,
		.partial_slabs = st.partial_slabs,
		.full_slabs = st.full_slabs,
		.cpu_slabs = st.cpu_slabs,
		.objects_inuse = st.objects_inuse,
		.item = st.item,
		.known = UINT64_MAX,	/* the allocator counts every item */
		.fail_site = st.cmpxchg_fail_site,
		.site_name = slub_site_name,
		.lock_wait_ns = st.lock_wait_ns,
		.lock_hold_ns = st.lock_hold_ns,
		.wait_hist = st.lock_wait_hist,
		.hold_hist = st.lock_hold_hist,
	};
	slub_page_print(f, &p);

	if (s->sheaf_capacity) {
		struct slub_sheaf_stats sh;

		slub_cache_sheaf_stats(s, &sh);
		const uint64_t *y = sh.item;
		fprintf(f, "\nSheaves (capacity %u)   Barn: %u full, %u empty\n", sh.sheaf_capacity,
			sh.barn_full, sh.barn_empty);
		fprintf(f, "--------------------------------------------------\n");
		fprintf(f, "Sheaf refill %8" PRIu64 " objects   flush %8" PRIu64 " objects\n",
			y[SLUB_SHEAF_REFILL], y[SLUB_SHEAF_FLUSH]);
		fprintf(f, "Sheaf alloc  %8" PRIu64 "           free  %8" PRIu64 "\n",
			y[SLUB_SHEAF_ALLOC], y[SLUB_SHEAF_FREE]);
		fprintf(f, "Barn get     %8" PRIu64 " fail %8" PRIu64 "   put %8" PRIu64 " fail %8" PRIu64
			   "\n",
			y[SLUB_BARN_GET], y[SLUB_BARN_GET_FAIL], y[SLUB_BARN_PUT],
			y[SLUB_BARN_PUT_FAIL]);
	}
}

static int print_used(struct slub_cache *s, void *arg)
{
	if (READ_ONCE(s->used))
		slub_print_slabinfo(arg, s);
	return 0;
}

void slub_print_all_slabinfo(FILE *f)
{
	slub_for_each_cache(print_used, f);
	fflush(f);
}
