/* SPDX-License-Identifier: MIT */
/*
 * The `slabinfo -r` page of one cache, in the layout of tools/mm/slabinfo.c's
 * report(): printed by the allocator (slub_print_slabinfo, src/stats.c) from
 * its counters and by `slubtrace stats` (analysis/stats/text.c) from a
 * trace.  One printer and one table of the stat items (enum slub_stat_item),
 * so that the two pages cannot drift apart; the stats module's own item
 * enum is asserted against this one where it is defined.
 *
 * A header of static functions rather than a source file: the allocator
 * library and the stats library each take their copy, and a program that
 * links both (the in-process tests) gets no duplicate symbol.
 */
#ifndef SLUB_SLABINFO_PAGE_H
#define SLUB_SLABINFO_PAGE_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slub/event.h"
#include "slub/slub.h"

/* The names of enum slub_stat_item, as /sys/kernel/slab/<cache>/<item>. */
static const char *const slub_stat_names[SLUB_NR_STAT_ITEMS] = {
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
	[SLUB_ALLOC_PREFETCH] = "alloc_prefetch",
};

/* "Slab Perf Counter" rows: allocations (one item, or the sum of two) and
 * frees.  -1: no second item. */
static const struct {
	const char *label;
	int alloc, alloc2, free;
} slub_page_perf_rows[] = {
	{ "Fastpath", SLUB_ALLOC_FASTPATH, -1, SLUB_FREE_FASTPATH },
	{ "Slowpath", SLUB_ALLOC_SLOWPATH, -1, SLUB_FREE_SLOWPATH },
	{ "Page Alloc", SLUB_ALLOC_SLAB, -1, SLUB_FREE_SLAB },
	{ "Add partial", SLUB_DEACTIVATE_TO_HEAD, SLUB_DEACTIVATE_TO_TAIL, SLUB_FREE_ADD_PARTIAL },
	{ "Remove partial", SLUB_ALLOC_FROM_PARTIAL, -1, SLUB_FREE_REMOVE_PARTIAL },
	{ "Cpu partial list", SLUB_CPU_PARTIAL_ALLOC, -1, SLUB_CPU_PARTIAL_FREE },
	{ "RemoteObj/SlabFrozen", SLUB_DEACTIVATE_REMOTE_FREES, -1, SLUB_FREE_FROZEN },
};

/* "Slab Deactivation" rows, as a share of the five deactivation outcomes. */
static const struct {
	const char *label;
	int item;
} slub_page_deact_rows[] = {
	{ "Slab full", SLUB_DEACTIVATE_FULL },
	{ "Slab empty", SLUB_DEACTIVATE_EMPTY },
	{ "Moved to head of partial list", SLUB_DEACTIVATE_TO_HEAD },
	{ "Moved to tail of partial list", SLUB_DEACTIVATE_TO_TAIL },
	{ "Deactivation bypass", SLUB_DEACTIVATE_BYPASS },
	{ "Refilled from foreign frees", SLUB_ALLOC_REFILL },
	{ "Node mismatch", SLUB_ALLOC_NODE_MISMATCH },
};

_Static_assert(SLUB_NR_STAT_ITEMS <= 64, "known items are a 64-bit mask");

/* What the page shows of one cache. */
struct slub_page {
	const char *name;
	const char *objects_note;	/* after the object count ("" for none) */
	unsigned order, processes;	/* processes > 1: a line says the page sums them */
	uint64_t object_size, size, align, slab_bytes;
	unsigned objects, flags;	/* objects per slab; SLUB_F_* */
	bool tracing;
	uint64_t slabs, partial_slabs, full_slabs, cpu_slabs, objects_inuse;
	const uint64_t *item;		/* SLUB_NR_STAT_ITEMS, by enum slub_stat_item */
	uint64_t known;			/* bit i: item i is known; else it prints "-" */
	const uint64_t *fail_site;	/* slab-word redos by site (SLUB_SITE_NR) */
	const char *(*site_name)(unsigned site);
	uint64_t lock_wait_ns, lock_hold_ns;
	const uint64_t *wait_hist, *hold_hist;	/* SLUB_LOCK_HIST_BUCKETS */
	/* More lines on the lock after its summary (what a trace adds). */
	void (*lock_notes)(FILE *f, const void *arg);
	const void *arg;
};

static inline unsigned long slub_page_pct(uint64_t a, uint64_t total)
{
	return total ? (unsigned long)(a * 100 / total) : 0;
}

static inline bool slub_page_known(const struct slub_page *p, int item)
{
	return item < 0 || (p->known >> item & 1);
}

/* An item, or "-" when unknown, into buf. */
static inline const char *slub_page_num(const struct slub_page *p, int item, char *buf, size_t len)
{
	if (!slub_page_known(p, item))
		return "-";
	snprintf(buf, len, "%" PRIu64, p->item[item]);
	return buf;
}

static inline void slub_page_print(FILE *f, const struct slub_page *p)
{
	const uint64_t *x = p->item;
	uint64_t total_alloc = x[SLUB_ALLOC_FASTPATH] + x[SLUB_ALLOC_SLOWPATH];
	uint64_t total_free = x[SLUB_FREE_FASTPATH] + x[SLUB_FREE_SLOWPATH];
	bool totals = slub_page_known(p, SLUB_ALLOC_FASTPATH) && slub_page_known(p, SLUB_FREE_FASTPATH);
	uint64_t total_bytes = p->slabs * p->slab_bytes;
	uint64_t used = p->objects_inuse * p->object_size;
	uint64_t slab_used = (uint64_t)p->objects * p->size;
	char a[32], b[32];

#define ONOFF(fl) ((p->flags & (fl)) ? "On " : "Off")
	fprintf(f, "\nSlabcache: %-20s  Aliases:  0 Order : %2u Objects: %" PRIu64 "%s\n", p->name,
		p->order, p->objects_inuse, p->objects_note);
	if (p->processes > 1)
		fprintf(f, "(summed over %u processes)\n", p->processes);
	fprintf(f, "\nSizes (bytes)     Slabs              Debug                Memory\n");
	fprintf(f, "------------------------------------------------------------------------\n");
	fprintf(f, "Object : %7" PRIu64 "  Total  : %7" PRIu64 "   Sanity Checks : %s  Total: %8" PRIu64
		   "\n", p->object_size, p->slabs, ONOFF(SLUB_F_CONSISTENCY), total_bytes);
	fprintf(f, "SlabObj: %7" PRIu64 "  Full   : %7" PRIu64 "   Redzoning     : %s  Used : %8" PRIu64
		   "\n", p->size, p->full_slabs, ONOFF(SLUB_F_RED_ZONE), used);
	fprintf(f, "SlabSiz: %7" PRIu64 "  Partial: %7" PRIu64 "   Poisoning     : %s  Loss : %8" PRIu64
		   "\n", p->slab_bytes, p->partial_slabs, ONOFF(SLUB_F_POISON),
		total_bytes > used ? total_bytes - used : 0);
	fprintf(f, "Loss   : %7" PRIu64 "  CpuSlab: %7" PRIu64 "   Tracking      : %s  Lalig: %8" PRIu64
		   "\n", p->size - p->object_size, p->cpu_slabs, ONOFF(SLUB_F_STORE_USER),
		p->objects_inuse * (p->size - p->object_size));
	fprintf(f, "Align  : %7" PRIu64 "  Objects: %7u   Tracing       : %s  Lpadd: %8" PRIu64 "\n",
		p->align, p->objects, p->tracing ? "On " : "Off",
		p->slabs * (p->slab_bytes > slab_used ? p->slab_bytes - slab_used : 0));
#undef ONOFF

	fprintf(f, "\nSlab Perf Counter       Alloc     Free %%Al %%Fr\n");
	fprintf(f, "--------------------------------------------------\n");
	for (size_t i = 0; i < sizeof(slub_page_perf_rows) / sizeof(slub_page_perf_rows[0]); i++) {
		int ia = slub_page_perf_rows[i].alloc, ia2 = slub_page_perf_rows[i].alloc2;
		int ifr = slub_page_perf_rows[i].free;
		uint64_t al = x[ia] + (ia2 >= 0 ? x[ia2] : 0), fr = x[ifr];

		if (!slub_page_known(p, ia) || !slub_page_known(p, ia2) || !slub_page_known(p, ifr))
			fprintf(f, "%-20s %8s %8s %3s %3s  (no object events)\n",
				slub_page_perf_rows[i].label, "-", "-", "-", "-");
		else
			fprintf(f, "%-20s %8" PRIu64 " %8" PRIu64 " %3lu %3lu\n",
				slub_page_perf_rows[i].label, al, fr, slub_page_pct(al, total_alloc),
				slub_page_pct(fr, total_free));
	}
	if (totals)
		fprintf(f, "Total                %8" PRIu64 " %8" PRIu64 "\n\n", total_alloc, total_free);
	else
		fprintf(f, "%-20s %8s %8s\n\n", "Total", "-", "-");
	fprintf(f, "Flushes %8" PRIu64 " Refill %8" PRIu64 "\n", x[SLUB_CPUSLAB_FLUSH],
		x[SLUB_ALLOC_REFILL]);

	uint64_t total = x[SLUB_DEACTIVATE_FULL] + x[SLUB_DEACTIVATE_EMPTY] +
			 x[SLUB_DEACTIVATE_TO_HEAD] + x[SLUB_DEACTIVATE_TO_TAIL] +
			 x[SLUB_DEACTIVATE_BYPASS];
	if (total) {
		fprintf(f, "\nSlab Deactivation             Occurrences %%\n");
		fprintf(f, "-------------------------------------------------\n");
		for (size_t i = 0; i < sizeof(slub_page_deact_rows) / sizeof(slub_page_deact_rows[0]);
		     i++) {
			uint64_t n = x[slub_page_deact_rows[i].item];

			fprintf(f, "%-29s %7" PRIu64 "  %3lu%%\n", slub_page_deact_rows[i].label, n,
				slub_page_pct(n, total));
		}
	}
	fprintf(f, "\nCpu partial: %" PRIu64 " slabs taken, %" PRIu64 " frozen by frees, %" PRIu64
		   " from node lists, %" PRIu64 " drains\n",
		x[SLUB_CPU_PARTIAL_ALLOC], x[SLUB_CPU_PARTIAL_FREE], x[SLUB_CPU_PARTIAL_NODE],
		x[SLUB_CPU_PARTIAL_DRAIN]);

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
		if (p->fail_site[i])
			fprintf(f, "  %-24s %" PRIu64 "\n", p->site_name(i), p->fail_site[i]);

	fprintf(f, "\nlist_lock: %s taken, %s contended (%lu%%), wait %" PRIu64
		   " ns total, hold %" PRIu64 " ns total\n",
		slub_page_num(p, SLUB_LOCK_ACQUIRE, a, sizeof(a)),
		slub_page_num(p, SLUB_LOCK_CONTENDED, b, sizeof(b)),
		slub_page_pct(x[SLUB_LOCK_CONTENDED], x[SLUB_LOCK_ACQUIRE]), p->lock_wait_ns,
		p->lock_hold_ns);
	if (p->lock_notes)
		p->lock_notes(f, p->arg);
	if (x[SLUB_LOCK_ACQUIRE]) {
		fprintf(f, "  hold time      <ns      count   wait time      <ns      count\n");
		for (int i = 0; i < SLUB_LOCK_HIST_BUCKETS; i++) {
			if (!p->hold_hist[i] && !p->wait_hist[i])
				continue;
			fprintf(f, "            %9llu %10" PRIu64 "             %9llu %10" PRIu64 "\n",
				64ull << i, p->hold_hist[i], 64ull << i, p->wait_hist[i]);
		}
	}
}

#endif /* SLUB_SLABINFO_PAGE_H */
