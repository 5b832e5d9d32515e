/* SPDX-License-Identifier: MIT */
/*
 * __slab_free(): a free that is not to the freeing thread's own cpu slab.
 *
 * The object is pushed on the slab's freelist by CAS.  Four outcomes:
 *  - the slab is frozen (some cpu's active or partial slab): done
 *    (FREE_FROZEN), no lock;
 *  - the slab was full and unfrozen: freeze it onto this cpu's partial
 *    chain (put_cpu_partial), no lock unless full lists are tracked;
 *  - the slab became empty: with list_lock, remove it from its list and
 *    discard it when the node already has min_partial slabs;
 *  - without cpu partials, a full slab gains its first free object: with
 *    list_lock, move it from full to partial.
 * list_lock is dropped before a retry (the 2012 fix); the
 * SLUB_VAR_FREE_KEEP_LOCK variant keeps it across retries.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "fastpath.h"

#include <errno.h>


/* __slab_free() (Linux 6.1; the cpu partial freeze as in 5.14 and earlier,
 * through put_cpu_partial()). */
void __slab_free(struct slub_cache *s, struct slab *slab, void *head, void *tail, unsigned cnt,
		 struct slub_cpu *c)
{
	unsigned attempt = 0;

	/* free() keeps errno: the futex lock and the page layer restore it
	 * around their system calls. */
	if (kmem_cache_debug(s) && !free_debug_processing(s, slab, head, c))
		return;
	adopt_forked_slots();
	if (s->sheaf_capacity) {
		sheaves_free(s, slab, head, tail, cnt, c);
		return;
	}
	/* The commonest case first, in a small frame (fastpath.h). */
	if (likely(slab_free_frozen(s, slab, head, tail, cnt, c, &attempt)))
		return;
	__slab_free_slow(s, slab, head, tail, cnt, c, attempt);
}

/* __slab_free()'s loop (Linux 6.1, as above): every case but a first CAS
 * into a frozen slab, which slab_free_frozen() took; attempt counts the
 * CASes already lost. */
__attribute__((noinline)) void
__slab_free_slow(struct slub_cache *s, struct slab *slab, void *head, void *tail, unsigned cnt,
		 struct slub_cpu *c, unsigned attempt)
{
	struct slab_word old, new;
	struct slub_node *n = NULL;
	bool was_frozen;

	/* The malloc shim's quick remote free comes here directly: a sheaves
	 * cache's slabs are never frozen, so its frozen case did nothing. */
	if (s->sheaf_capacity) {
		adopt_forked_slots();
		sheaves_free(s, slab, head, tail, cnt, c);
		return;
	}
	for (;;) {
		if (n && !variant(SLUB_VAR_FREE_KEEP_LOCK)) {
			list_unlock(s, n, c);
			n = NULL;
		}
		old = slab_word_read(slab);
		if (unlikely(head == old.freelist || old.c.inuse < cnt)) {
			/* The hardened freelist check of every path: an object
			 * heading the freelist, or more frees than objects in
			 * use, is a double free.  Nothing is changed. */
			if (n)
				list_unlock(s, n, c);
			slub_report(s, slab, head, SLUB_ERR_DOUBLE_FREE,
				    head == old.freelist ? "object heads the slab freelist"
							 : "slab has no object in use");
			return;
		}
		set_freepointer(s, tail, old.freelist);
		new = old;
		new.freelist = head;
		new.c.inuse = old.c.inuse - cnt;
		was_frozen = old.c.frozen;
		bool need_lock = false;
		if ((!new.c.inuse || !old.freelist) && !was_frozen) {
			if (kmem_cache_has_cpu_partial(s) && !old.freelist) {
				/* Full and on no list (or the full list): freeze it
				 * onto our partial chain instead of listing it. */
				new.c.frozen = 1;
				need_lock = kmem_cache_track_full(s);
			} else {
				need_lock = true;
			}
		}
		if (need_lock && !n) {
			n = get_node(s, slab->node);
			list_lock(s, n, c);
		}
		if (slab_update(s, slab, &old, &new, SLUB_SITE_SLAB_FREE, n != NULL, c, &attempt))
			break;
	}
	stat(c, SLUB_FREE_SLOWPATH);

	if (new.c.frozen && !was_frozen) {
		if (!n)
			fork_point(SLUB_FP_FREE_FROZE);
		slab_owner_set(slab, c->id);
		emit_word(SLUB_EV_FREEZE, s, c, slab, &old, &new, SLUB_SITE_SLAB_FREE, n != NULL, -1,
			  c->id, SLUB_DEST_NONE);
		if (n) {
			remove_full(s, n, slab, c);
			list_unlock(s, n, c);
		}
		put_cpu_partial(s, slab, 1, c);
		stat(c, SLUB_CPU_PARTIAL_FREE);
		return;
	}
	emit_word(SLUB_EV_FREE_REMOTE, s, c, slab, &old, &new, SLUB_SITE_SLAB_FREE, n != NULL,
		  word_owner_unknown(&old), word_owner_unknown(&new), SLUB_DEST_NONE);
	if (was_frozen) {
		/* No list activity can be needed for a frozen slab. */
		if (n)
			list_unlock(s, n, c);
		stat(c, SLUB_FREE_FROZEN);
		return;
	}
	/* Unfrozen with free objects before: on the node partial list. */
	if (old.freelist && variant(SLUB_VAR_PARTIAL_COUNTERS_ANY))
		partial_counters_free(s, slab, c, cnt);
	if (!n)
		return;

	if (unlikely(!new.c.inuse && n->nr_partial >= s->min_partial))
		goto slab_empty;

	/* Objects left in the slab.  Not on the partial list before: add it. */
	if (!kmem_cache_has_cpu_partial(s) && unlikely(!old.freelist)) {
		remove_full(s, n, slab, c);
		add_partial(s, n, slab, SLUB_DEST_TAIL, c);
		stat(c, SLUB_FREE_ADD_PARTIAL);
	}
	list_unlock(s, n, c);
	return;

slab_empty:
	if (unlikely(variant(SLUB_INJ_LOST_UNFREEZE)) && old.freelist &&
	    slab->list == SLAB_LIST_NONE) {
		/* leaked by the lost-unfreeze injection: on no list */
	} else if (old.freelist) {
		remove_partial(s, n, slab, c);
		stat(c, SLUB_FREE_REMOVE_PARTIAL);
	} else {
		remove_full(s, n, slab, c);
	}
	list_unlock(s, n, c);
	discard_slab(s, slab, c);
}
