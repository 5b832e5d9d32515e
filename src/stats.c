/* SPDX-License-Identifier: MIT */
/*
 * Statistics: the kernel's enum stat_item, summed over threads on read,
 * and a report in the layout of `slabinfo -r` (tools/mm/slabinfo.c).
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <inttypes.h>

static const char *const stat_names[SLUB_NR_STAT_ITEMS] = {
	[SLUB_ALLOC_FASTPATH] = "alloc_fastpath",
	[SLUB_ALLOC_SLOWPATH] = "alloc_slowpath",
	[SLUB_FREE_FASTPATH] = "free_fastpath",
	[SLUB_FREE_SLOWPATH] = "free_slowpath",
	[SLUB_FREE_FROZEN] = "free_frozen",
	[SLUB_FREE_ADD_PARTIAL] = "free_add_partial",
	[SLUB_FREE_REMOVE_PARTIAL] = "free_remove_partial",
	[SLUB_ALLOC_FROM_PARTIAL] = "alloc_from_partial",
	[SLUB_ALLOC_SLAB] = "alloc_slab",
	[SLUB_ALLOC_REFILL] = "alloc_refill",
	[SLUB_ALLOC_NODE_MISMATCH] = "alloc_node_mismatch",
	[SLUB_FREE_SLAB] = "free_slab",
	[SLUB_CPUSLAB_FLUSH] = "cpuslab_flush",
	[SLUB_DEACTIVATE_FULL] = "deactivate_full",
	[SLUB_DEACTIVATE_EMPTY] = "deactivate_empty",
	[SLUB_DEACTIVATE_TO_HEAD] = "deactivate_to_head",
	[SLUB_DEACTIVATE_TO_TAIL] = "deactivate_to_tail",
	[SLUB_DEACTIVATE_REMOTE_FREES] = "deactivate_remote_frees",
	[SLUB_DEACTIVATE_BYPASS] = "deactivate_bypass",
	[SLUB_CMPXCHG_DOUBLE_CPU_FAIL] = "cmpxchg_double_cpu_fail",
	[SLUB_CMPXCHG_DOUBLE_FAIL] = "cmpxchg_double_fail",
	[SLUB_CPU_PARTIAL_ALLOC] = "cpu_partial_alloc",
	[SLUB_CPU_PARTIAL_FREE] = "cpu_partial_free",
	[SLUB_CPU_PARTIAL_NODE] = "cpu_partial_node",
	[SLUB_CPU_PARTIAL_DRAIN] = "cpu_partial_drain",
	[SLUB_CMPXCHG_DOUBLE_FAIL_LOCKED] = "cmpxchg_double_fail_locked",
	[SLUB_LOCK_ACQUIRE] = "list_lock_acquire",
	[SLUB_LOCK_CONTENDED] = "list_lock_contended",
	[SLUB_CPU_PARTIAL_CMPXCHG_FAIL] = "cpu_partial_cmpxchg_fail",
};

const char *slub_stat_name(unsigned item)
{
	return item < SLUB_NR_STAT_ITEMS && stat_names[item] ? stat_names[item] : "unknown";
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

int slub_cache_sheaf_stats(const struct slub_cache *cs, struct slub_sheaf_stats *out)
{
	struct slub_cpu_stats sum;
	struct slub_cache *s = (struct slub_cache *)cs;

	if (!s || !out) {
		errno = EINVAL;
		return -1;
	}
	memset(out, 0, sizeof(*out));
	slub_sum_stats(s, &sum);
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
	struct slub_cache *s = (struct slub_cache *)cs;

	if (!s || !out) {
		errno = EINVAL;
		return -1;
	}
	memset(out, 0, sizeof(*out));
	slub_sum_stats(s, &sum);
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

static unsigned long pct(uint64_t a, uint64_t total)
{
	return total ? (unsigned long)(a * 100 / total) : 0;
}

static const char *onoff(const struct slub_cache *s, unsigned f)
{
	return (s->flags & f) ? "On " : "Off";
}

void slub_print_slabinfo(FILE *f, struct slub_cache *s)
{
	struct slub_stats st;

	if (!f || !s || slub_cache_stats(s, &st))
		return;
	const uint64_t *x = st.item;
	uint64_t total_alloc = x[SLUB_ALLOC_FASTPATH] + x[SLUB_ALLOC_SLOWPATH];
	uint64_t total_free = x[SLUB_FREE_FASTPATH] + x[SLUB_FREE_SLOWPATH];
	uint64_t total_bytes = st.slabs * s->slab_bytes;
	uint64_t used = st.objects_inuse * s->object_size;

	fprintf(f, "\nSlabcache: %-20s  Aliases:  0 Order : %2u Objects: %" PRIu64 "\n", s->name,
		s->order, st.objects_inuse);
	fprintf(f, "\nSizes (bytes)     Slabs              Debug                Memory\n");
	fprintf(f, "------------------------------------------------------------------------\n");
	fprintf(f, "Object : %7zu  Total  : %7" PRIu64 "   Sanity Checks : %s  Total: %8" PRIu64 "\n",
		s->object_size, st.slabs, onoff(s, SLUB_F_CONSISTENCY), total_bytes);
	fprintf(f, "SlabObj: %7zu  Full   : %7" PRIu64 "   Redzoning     : %s  Used : %8" PRIu64 "\n",
		s->size, st.full_slabs, onoff(s, SLUB_F_RED_ZONE), used);
	fprintf(f, "SlabSiz: %7zu  Partial: %7" PRIu64 "   Poisoning     : %s  Loss : %8" PRIu64 "\n",
		s->slab_bytes, st.partial_slabs, onoff(s, SLUB_F_POISON),
		total_bytes > used ? total_bytes - used : 0);
	fprintf(f, "Loss   : %7zu  CpuSlab: %7" PRIu64 "   Tracking      : %s  Lalig: %8" PRIu64 "\n",
		s->size - s->object_size, st.cpu_slabs, onoff(s, SLUB_F_STORE_USER),
		st.objects_inuse * (s->size - s->object_size));
	fprintf(f, "Align  : %7zu  Objects: %7u   Tracing       : %s  Lpadd: %8" PRIu64 "\n",
		s->align, s->objects, slub_tp_enabled(SLUB_EV_FREEZE) ? "On " : "Off",
		st.slabs * (s->slab_bytes - (size_t)s->objects * s->size));

	fprintf(f, "\nSlab Perf Counter       Alloc     Free %%Al %%Fr\n");
	fprintf(f, "--------------------------------------------------\n");
	fprintf(f, "Fastpath             %8" PRIu64 " %8" PRIu64 " %3lu %3lu\n", x[SLUB_ALLOC_FASTPATH],
		x[SLUB_FREE_FASTPATH], pct(x[SLUB_ALLOC_FASTPATH], total_alloc),
		pct(x[SLUB_FREE_FASTPATH], total_free));
	fprintf(f, "Slowpath             %8" PRIu64 " %8" PRIu64 " %3lu %3lu\n", x[SLUB_ALLOC_SLOWPATH],
		x[SLUB_FREE_SLOWPATH], pct(x[SLUB_ALLOC_SLOWPATH], total_alloc),
		pct(x[SLUB_FREE_SLOWPATH], total_free));
	fprintf(f, "Page Alloc           %8" PRIu64 " %8" PRIu64 " %3lu %3lu\n", x[SLUB_ALLOC_SLAB],
		x[SLUB_FREE_SLAB], pct(x[SLUB_ALLOC_SLAB], total_alloc),
		pct(x[SLUB_FREE_SLAB], total_free));
	fprintf(f, "Add partial          %8" PRIu64 " %8" PRIu64 " %3lu %3lu\n",
		x[SLUB_DEACTIVATE_TO_HEAD] + x[SLUB_DEACTIVATE_TO_TAIL], x[SLUB_FREE_ADD_PARTIAL],
		pct(x[SLUB_DEACTIVATE_TO_HEAD] + x[SLUB_DEACTIVATE_TO_TAIL], total_alloc),
		pct(x[SLUB_FREE_ADD_PARTIAL], total_free));
	fprintf(f, "Remove partial       %8" PRIu64 " %8" PRIu64 " %3lu %3lu\n",
		x[SLUB_ALLOC_FROM_PARTIAL], x[SLUB_FREE_REMOVE_PARTIAL],
		pct(x[SLUB_ALLOC_FROM_PARTIAL], total_alloc),
		pct(x[SLUB_FREE_REMOVE_PARTIAL], total_free));
	fprintf(f, "Cpu partial list     %8" PRIu64 " %8" PRIu64 " %3lu %3lu\n",
		x[SLUB_CPU_PARTIAL_ALLOC], x[SLUB_CPU_PARTIAL_FREE],
		pct(x[SLUB_CPU_PARTIAL_ALLOC], total_alloc), pct(x[SLUB_CPU_PARTIAL_FREE], total_free));
	fprintf(f, "RemoteObj/SlabFrozen %8" PRIu64 " %8" PRIu64 " %3lu %3lu\n",
		x[SLUB_DEACTIVATE_REMOTE_FREES], x[SLUB_FREE_FROZEN],
		pct(x[SLUB_DEACTIVATE_REMOTE_FREES], total_alloc), pct(x[SLUB_FREE_FROZEN], total_free));
	fprintf(f, "Total                %8" PRIu64 " %8" PRIu64 "\n\n", total_alloc, total_free);
	fprintf(f, "Flushes %8" PRIu64 " Refill %8" PRIu64 "\n", x[SLUB_CPUSLAB_FLUSH],
		x[SLUB_ALLOC_REFILL]);

	uint64_t total = x[SLUB_DEACTIVATE_FULL] + x[SLUB_DEACTIVATE_EMPTY] +
			 x[SLUB_DEACTIVATE_TO_HEAD] + x[SLUB_DEACTIVATE_TO_TAIL] +
			 x[SLUB_DEACTIVATE_BYPASS];
	if (total) {
		fprintf(f, "\nSlab Deactivation             Occurrences %%\n");
		fprintf(f, "-------------------------------------------------\n");
		fprintf(f, "Slab full                     %7" PRIu64 "  %3lu%%\n", x[SLUB_DEACTIVATE_FULL],
			pct(x[SLUB_DEACTIVATE_FULL], total));
		fprintf(f, "Slab empty                    %7" PRIu64 "  %3lu%%\n", x[SLUB_DEACTIVATE_EMPTY],
			pct(x[SLUB_DEACTIVATE_EMPTY], total));
		fprintf(f, "Moved to head of partial list %7" PRIu64 "  %3lu%%\n",
			x[SLUB_DEACTIVATE_TO_HEAD], pct(x[SLUB_DEACTIVATE_TO_HEAD], total));
		fprintf(f, "Moved to tail of partial list %7" PRIu64 "  %3lu%%\n",
			x[SLUB_DEACTIVATE_TO_TAIL], pct(x[SLUB_DEACTIVATE_TO_TAIL], total));
		fprintf(f, "Deactivation bypass           %7" PRIu64 "  %3lu%%\n",
			x[SLUB_DEACTIVATE_BYPASS], pct(x[SLUB_DEACTIVATE_BYPASS], total));
		fprintf(f, "Refilled from foreign frees   %7" PRIu64 "  %3lu%%\n", x[SLUB_ALLOC_REFILL],
			pct(x[SLUB_ALLOC_REFILL], total));
		fprintf(f, "Node mismatch                 %7" PRIu64 "  %3lu%%\n",
			x[SLUB_ALLOC_NODE_MISMATCH], pct(x[SLUB_ALLOC_NODE_MISMATCH], total));
	}
	fprintf(f, "\nCpu partial: %" PRIu64 " slabs taken, %" PRIu64 " frozen by frees, %" PRIu64
		   " from node lists, %" PRIu64 " drains\n",
		x[SLUB_CPU_PARTIAL_ALLOC], x[SLUB_CPU_PARTIAL_FREE], x[SLUB_CPU_PARTIAL_NODE],
		x[SLUB_CPU_PARTIAL_DRAIN]);

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

	fprintf(f, "\nCmpxchg_double Looping\n------------------------\n");
	/* As slabinfo -r: "Locked" are the slab-word (cmpxchg_double_slab)
	 * redos, "Unlocked" the fast path's this_cpu_cmpxchg redos, which a
	 * per-thread slot never needs.  The cpu partial chain CAS has its
	 * own line. */
	fprintf(f, "Locked Cmpxchg Double redos   %" PRIu64 "\nUnlocked Cmpxchg Double redos %" PRIu64
		   " (the fast path takes no cmpxchg)\n",
		x[SLUB_CMPXCHG_DOUBLE_FAIL], x[SLUB_CMPXCHG_DOUBLE_CPU_FAIL]);
	fprintf(f, "Cpu partial chain cmpxchg redos %" PRIu64 "\n", x[SLUB_CPU_PARTIAL_CMPXCHG_FAIL]);
	fprintf(f, "  (slab word redos with list_lock held: %" PRIu64 ")\n",
		x[SLUB_CMPXCHG_DOUBLE_FAIL_LOCKED]);
	for (unsigned i = 1; i < SLUB_SITE_NR; i++)
		if (st.cmpxchg_fail_site[i])
			fprintf(f, "  %-24s %" PRIu64 "\n", slub_site_name(i), st.cmpxchg_fail_site[i]);

	fprintf(f, "\nlist_lock: %" PRIu64 " taken, %" PRIu64 " contended (%lu%%), wait %" PRIu64
		   " ns total, hold %" PRIu64 " ns total\n",
		x[SLUB_LOCK_ACQUIRE], x[SLUB_LOCK_CONTENDED],
		pct(x[SLUB_LOCK_CONTENDED], x[SLUB_LOCK_ACQUIRE]), st.lock_wait_ns, st.lock_hold_ns);
	if (x[SLUB_LOCK_ACQUIRE]) {
		fprintf(f, "  hold time      <ns      count   wait time      <ns      count\n");
		for (int i = 0; i < SLUB_LOCK_HIST_BUCKETS; i++) {
			if (!st.lock_hold_hist[i] && !st.lock_wait_hist[i])
				continue;
			fprintf(f, "            %9llu %10" PRIu64 "             %9llu %10" PRIu64 "\n",
				64ull << i, st.lock_hold_hist[i], 64ull << i, st.lock_wait_hist[i]);
		}
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
