/* SPDX-License-Identifier: MIT */
/*
 * slub_validate(): what writing to /sys/kernel/slab/<cache>/validate does.
 * Flush this thread's slot and every parked partial chain, then, per node
 * under its list_lock: walk the partial and full lists (state, list, node,
 * free chain length == objects - inuse, free pointers inside the slab, F
 * bitmap, poison and both red zones of free objects), and check every unfrozen
 * slab of that node found in the page layer is where its state says.
 *
 * Under list_lock the free chain of an unfrozen slab is stable from any
 * snapshot of its head: a racing free only prepends, and nobody can
 * allocate from it without acquire_slab(), which needs the lock.
 */
#define _GNU_SOURCE
#include "internal.h"

static long check_free_chain(struct slub_cache *s, struct slab *slab, struct slab_word w)
{
	long errors = 0;
	unsigned count = 0;

	for (void *p = w.freelist; p; p = get_freepointer(s, p)) {
		if (!slub_check_freelist_ptr(s, slab, p)) {
			slub_report(s, slab, p, SLUB_ERR_FREEPOINTER,
				    "free chain points outside the slab (after %u objects)", count);
			return errors + 1;
		}
		if (++count > w.c.objects) {
			slub_report(s, slab, NULL, SLUB_ERR_FREEPOINTER,
				    "free chain longer than the slab: a loop");
			return errors + 1;
		}
		if (s->flags & SLUB_F_CONSISTENCY) {
			unsigned idx = obj_to_index(s, slab, p);
			const uint64_t *map = (const uint64_t *)(slab->base + s->map_offset);
			if ((__atomic_load_n(&map[idx / 64], __ATOMIC_ACQUIRE) >> (idx % 64)) & 1) {
				slub_report(s, slab, p, SLUB_ERR_FREEPOINTER,
					    "object on the free chain is marked allocated");
				errors++;
			}
		}
		if (object_poison(s)) {
			const uint8_t *b = p;
			for (size_t i = 0; i + 1 < s->object_size; i++)
				if (b[i] != POISON_FREE) {
					slub_report(s, slab, p, SLUB_ERR_POISON,
						    "free object written at offset %zu (0x%02x)", i, b[i]);
					errors++;
					break;
				}
		}
		if (s->flags & SLUB_F_RED_ZONE) {
			const uint8_t *b = (const uint8_t *)p + s->object_size;
			for (size_t i = 0; i < s->inuse - s->object_size; i++)
				if (b[i] != RED_INACTIVE) {
					slub_report(s, slab, p, SLUB_ERR_REDZONE,
						    "free object's red zone at offset %zu (0x%02x)",
						    s->object_size + i, b[i]);
					errors++;
					break;
				}
			b = (const uint8_t *)p - sizeof(void *); /* the left red zone */
			for (size_t i = 0; i < sizeof(void *); i++)
				if (b[i] != RED_INACTIVE) {
					slub_report(s, slab, p, SLUB_ERR_REDZONE,
						    "free object's left red zone at offset -%zu (0x%02x)",
						    sizeof(void *) - i, b[i]);
					errors++;
					break;
				}
		}
	}
	if (count != (unsigned)(w.c.objects - w.c.inuse)) {
		slub_report(s, slab, NULL, SLUB_ERR_COUNTS,
			    "free chain has %u objects, counters say %u free (inuse %u of %u)", count,
			    w.c.objects - w.c.inuse, w.c.inuse, w.c.objects);
		errors++;
	}
	return errors;
}

static long check_listed(struct slub_cache *s, struct slub_node *n, int nid, struct slab *slab,
			 enum slab_list list)
{
	long errors = 0;
	struct slab_word w = slab_word_read(slab);

	if (slab->cache != s || slab->node != nid || slab->list != list) {
		slub_report(s, slab, NULL, SLUB_ERR_LIST,
			    "on node %d %s list but cache=%s node=%u list=%u", nid,
			    list == SLAB_LIST_PARTIAL ? "partial" : "full",
			    slab->cache ? slab->cache->name : "(none)", slab->node, slab->list);
		errors++;
	}
	if (w.c.frozen) {
		slub_report(s, slab, NULL, SLUB_ERR_LIST, "frozen slab on a node list");
		errors++;
	}
	if (w.c.objects != s->objects || w.c.inuse > w.c.objects) {
		slub_report(s, slab, NULL, SLUB_ERR_COUNTS, "objects %u (cache says %u), inuse %u",
			    w.c.objects, s->objects, w.c.inuse);
		errors++;
	}
	if (list == SLAB_LIST_PARTIAL && !w.freelist) {
		slub_report(s, slab, NULL, SLUB_ERR_LIST, "slab on the partial list has no free object");
		errors++;
	}
	if (list == SLAB_LIST_FULL && w.freelist) {
		slub_report(s, slab, NULL, SLUB_ERR_LIST, "slab on the full list has free objects");
		errors++;
	}
	return errors + check_free_chain(s, slab, w);
}

long slub_validate(struct slub_cache *s)
{
	long errors = 0;

	if (!s)
		return -1;
	bool orphan;
	struct slub_thread *t = slub_thread_or_orphan(&orphan);
	struct slub_cpu *c = get_cpu_slab(s, t);
	flush_cpu_slab(s, c);
	slub_flush_all_partials(s);
	if (orphan)
		slub_orphan_leave();

	size_t max = __atomic_load_n(&s->total_slabs, __ATOMIC_RELAXED) * 2 + 1024;
	size_t bytes = (max * sizeof(struct slab *) + SLUB_PAGE_SIZE - 1) & ~(SLUB_PAGE_SIZE - 1);
	struct slab **all = slub_os_map(bytes, SLUB_PAGE_SIZE);
	size_t nr_all = all ? slub_collect_slabs(s, all, max) : 0;

	for (int nid = 0; nid < slub_nodes; nid++) {
		struct slub_node *n = get_node(s, nid);
		unsigned long np = 0, nf = 0;

		witness_acquire(RANK_LIST);
		slub_futex_lock(&n->list_lock);
		for (struct slab *p = n->partial; p; p = p->next) {
			errors += check_listed(s, n, nid, p, SLAB_LIST_PARTIAL);
			if (++np > nr_all + n->nr_partial)
				break;
		}
		for (struct slab *p = n->full; p; p = p->next) {
			errors += check_listed(s, n, nid, p, SLAB_LIST_FULL);
			if (++nf > nr_all + n->nr_full)
				break;
		}
		if (np != n->nr_partial) {
			slub_report(s, NULL, NULL, SLUB_ERR_COUNTS,
				    "node %d: nr_partial=%lu but %lu slabs on the list", nid,
				    n->nr_partial, np);
			errors++;
		}
		if (nf != n->nr_full) {
			slub_report(s, NULL, NULL, SLUB_ERR_COUNTS,
				    "node %d: nr_full=%lu but %lu slabs on the list", nid, n->nr_full,
				    nf);
			errors++;
		}
		/* Unfrozen slabs of this node off every list: only full ones
		 * (untracked) or empty ones on their way to discard_slab(). */
		for (size_t i = 0; i < nr_all; i++) {
			struct slab *p = all[i];
			if (p->kind != SLAB_KIND_SLAB || READ_ONCE(p->cache) != s || p->node != nid)
				continue;
			struct slab_word w = slab_word_read(p);
			if (w.c.frozen || p->list != SLAB_LIST_NONE || w.c.inuse == 0)
				continue;
			if (w.freelist) {
				slub_report(s, p, NULL, SLUB_ERR_LIST,
					    "unfrozen slab with free objects is on no list");
				errors++;
			} else if (kmem_cache_track_full(s)) {
				slub_report(s, p, NULL, SLUB_ERR_LIST,
					    "full slab is not on the full list");
				errors++;
			}
		}
		slub_futex_unlock(&n->list_lock);
		witness_release(RANK_LIST);
	}
	if (all)
		slub_os_unmap(all, bytes);
	return errors;
}

static int validate_one(struct slub_cache *s, void *arg)
{
	*(long *)arg += slub_validate(s);
	return 0;
}

long slub_validate_all(void)
{
	long errors = 0;

	slub_for_each_cache(validate_one, &errors);
	return errors;
}
