/* SPDX-License-Identifier: MIT */
/*
 * The names of event types, sites, destinations, reasons and error kinds
 * (include/slub/event.h): the same strings as the trace.  Shared by the
 * allocator and the analysis, which link it each on their own.
 */
#include <slub/event.h>
#include <string.h>

static const char *const event_names[SLUB_EV_NR] = {
	[SLUB_EV_CACHE_CREATE] = "cache_create",
	[SLUB_EV_CACHE_DESTROY] = "cache_destroy",
	[SLUB_EV_SLAB_NEW] = "slab_new",
	[SLUB_EV_SLAB_DISCARD] = "slab_discard",
	[SLUB_EV_FREEZE] = "freeze",
	[SLUB_EV_UNFREEZE] = "unfreeze",
	[SLUB_EV_TAKE_FREELIST] = "take_freelist",
	[SLUB_EV_FREE_REMOTE] = "free_remote",
	[SLUB_EV_DRAIN_FREELIST] = "drain_freelist",
	[SLUB_EV_CPU_SLAB_LOAD] = "cpu_slab_load",
	[SLUB_EV_DEACTIVATE] = "deactivate",
	[SLUB_EV_CPU_PARTIAL_PUT] = "cpu_partial_put",
	[SLUB_EV_CPU_PARTIAL_TAKE] = "cpu_partial_take",
	[SLUB_EV_CPU_PARTIAL_DRAIN] = "cpu_partial_drain",
	[SLUB_EV_ADD_PARTIAL] = "add_partial",
	[SLUB_EV_REMOVE_PARTIAL] = "remove_partial",
	[SLUB_EV_ADD_FULL] = "add_full",
	[SLUB_EV_REMOVE_FULL] = "remove_full",
	[SLUB_EV_CMPXCHG_FAIL] = "cmpxchg_fail",
	[SLUB_EV_CPU_CMPXCHG_FAIL] = "cpu_cmpxchg_fail",
	[SLUB_EV_LOCK_ACQUIRE] = "lock_acquire",
	[SLUB_EV_LOCK_RELEASE] = "lock_release",
	[SLUB_EV_THREAD_FLUSH] = "thread_flush",
	[SLUB_EV_ALLOC] = "alloc",
	[SLUB_EV_FREE] = "free",
	[SLUB_EV_ERROR] = "error",
	[SLUB_EV_SLABINFO_WALK] = "slabinfo_walk",
	[SLUB_EV_SHEAF_REFILL] = "sheaf_refill",
	[SLUB_EV_SHEAF_FLUSH] = "sheaf_flush",
	[SLUB_EV_SHEAF_SLOT] = "sheaf_slot",
	[SLUB_EV_BARN_PUT] = "barn_put",
	[SLUB_EV_BARN_GET] = "barn_get",
	[SLUB_EV_SHEAF_ALLOC] = "sheaf_alloc",
	[SLUB_EV_SHEAF_FREE] = "sheaf_free",
};

static const char *const site_names[SLUB_SITE_NR] = {
	[SLUB_SITE_NONE] = "none",
	[SLUB_SITE_ACQUIRE_SLAB] = "acquire_slab",
	[SLUB_SITE_GET_FREELIST] = "get_freelist",
	[SLUB_SITE_UNFREEZING_SLAB] = "unfreezing slab",
	[SLUB_SITE_UNFREEZE_PARTIALS] = "unfreeze_partials",
	[SLUB_SITE_DRAIN_PERCPU] = "drain percpu freelist",
	[SLUB_SITE_SLAB_FREE] = "__slab_free",
	[SLUB_SITE_PUT_CPU_PARTIAL] = "put_cpu_partial",
	[SLUB_SITE_NEW_SLAB] = "new_slab",
	[SLUB_SITE_CPU_PARTIAL_TAKE] = "cpu_partial_take",
};

static const char *const dest_names[SLUB_DEST_NR] = {
	"none", "head", "tail", "full", "discard",
};

static const char *const reason_names[SLUB_DEACT_NR] = {
	"empty_freelist", "node_mismatch", "flush", "debug", "cpu_partial_limit",
};

static const char *const error_names[SLUB_ERR_NR] = {
	[SLUB_ERR_DOUBLE_FREE] = "Object already free",
	[SLUB_ERR_FOREIGN_POINTER] = "Invalid pointer (not from slubtrace)",
	[SLUB_ERR_WRONG_CACHE] = "Wrong slab cache",
	[SLUB_ERR_NOT_OBJECT_START] = "Invalid object pointer",
	[SLUB_ERR_FREEPOINTER] = "Freepointer corrupt",
	[SLUB_ERR_REDZONE] = "Redzone overwritten",
	[SLUB_ERR_POISON] = "Poison overwritten",
	[SLUB_ERR_COUNTS] = "Wrong object count",
	[SLUB_ERR_LIST] = "Slab on the wrong list",
};

#define NAME_OR(tab, i, n) ((i) < (n) && (tab)[i] ? (tab)[i] : "unknown")
const char *slub_event_name(unsigned t) { return NAME_OR(event_names, t, SLUB_EV_NR); }
const char *slub_site_name(unsigned s) { return NAME_OR(site_names, s, SLUB_SITE_NR); }
const char *slub_dest_name(unsigned d) { return NAME_OR(dest_names, d, SLUB_DEST_NR); }
const char *slub_deactivate_reason_name(unsigned r) { return NAME_OR(reason_names, r, SLUB_DEACT_NR); }
const char *slub_error_name(unsigned k) { return NAME_OR(error_names, k, SLUB_ERR_NR); }

_Static_assert(SLUB_EV_NR <= 64, "an event list is a 64-bit mask");

/* The bits of one word of an event list (len bytes), or -1 for none. */
static int event_word(const char *w, size_t len, uint64_t *bits)
{
	if (len > 5 && !memcmp(w, "slub:", 5)) {
		w += 5;
		len -= 5;
	}
	if (len == 3 && !memcmp(w, "all", 3)) {
		*bits = ~0ull >> (64 - SLUB_EV_NR);
		return 0;
	}
	if (len == 4 && !memcmp(w, "none", 4)) {
		*bits = 0;
		return 0;
	}
	for (unsigned t = 0; t < SLUB_EV_NR; t++) {
		const char *n = event_names[t];

		if (n && strlen(n) == len && !memcmp(n, w, len)) {
			*bits = 1ull << t;
			return 0;
		}
	}
	return -1;
}

int slub_event_list_parse(const char *list, uint64_t *types, const char **bad, size_t *bad_len)
{
	int rc = 0;

	*types = 0;
	while (list && *list) {
		size_t len = strcspn(list, ", ");
		uint64_t bits;

		if (len && event_word(list, len, &bits) == 0) {
			*types |= bits;
		} else if (len && !rc) {
			*bad = list;
			*bad_len = len;
			rc = -1;
		}
		list += len;
		while (*list == ',' || *list == ' ')
			list++;
	}
	return rc;
}
