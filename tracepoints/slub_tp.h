/* SPDX-License-Identifier: MIT */
/*
 * The `slub` LTTng-UST provider: one tracepoint per enum slub_event_type.
 *
 * Every tracepoint takes the same three arguments: the normalized event
 * (include/slub/event.h), and a call stack (return addresses, innermost
 * first) with its depth, 0 when no stack was captured.  Every event carries
 * the `stack` sequence, so SLUBTRACE_STACKS can select any of them without
 * changing the trace's metadata.
 *
 * Log levels are chosen so that --loglevel selects useful subsets:
 *   TRACE_ERR            error
 *   TRACE_WARNING        cmpxchg_fail, cpu_cmpxchg_fail
 *   TRACE_NOTICE         cache_create, cache_destroy
 *   TRACE_INFO           slab life cycle, slab-word updates, cpu slab and
 *                        cpu partial changes, list operations, thread_flush
 *   TRACE_DEBUG_PROCESS  lock_acquire, lock_release
 *   TRACE_DEBUG          alloc, free (one per object)
 * `--loglevel=TRACE_DEBUG_LINE` is everything but the object events.
 *
 * Enumeration labels are the strings slub_site_name(), slub_dest_name(),
 * slub_deactivate_reason_name() and slub_error_name() return.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER slub

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "slub_tp.h"

#if !defined(SLUB_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SLUB_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>
#include <slub/event.h>

/* Deepest stack an event carries (SLUBTRACE_STACK_DEPTH is clamped to it). */
#define SLUB_TP_STACK_MAX 64

LTTNG_UST_TRACEPOINT_ENUM(slub, site,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("none", SLUB_SITE_NONE)
		lttng_ust_field_enum_value("acquire_slab", SLUB_SITE_ACQUIRE_SLAB)
		lttng_ust_field_enum_value("get_freelist", SLUB_SITE_GET_FREELIST)
		lttng_ust_field_enum_value("unfreezing slab", SLUB_SITE_UNFREEZING_SLAB)
		lttng_ust_field_enum_value("unfreeze_partials", SLUB_SITE_UNFREEZE_PARTIALS)
		lttng_ust_field_enum_value("drain percpu freelist", SLUB_SITE_DRAIN_PERCPU)
		lttng_ust_field_enum_value("__slab_free", SLUB_SITE_SLAB_FREE)
		lttng_ust_field_enum_value("put_cpu_partial", SLUB_SITE_PUT_CPU_PARTIAL)
		lttng_ust_field_enum_value("new_slab", SLUB_SITE_NEW_SLAB)
		lttng_ust_field_enum_value("cpu_partial_take", SLUB_SITE_CPU_PARTIAL_TAKE)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(slub, slab_dest,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("none", SLUB_DEST_NONE)
		lttng_ust_field_enum_value("head", SLUB_DEST_HEAD)
		lttng_ust_field_enum_value("tail", SLUB_DEST_TAIL)
		lttng_ust_field_enum_value("full", SLUB_DEST_FULL)
		lttng_ust_field_enum_value("discard", SLUB_DEST_DISCARD)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(slub, deactivate_reason,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("empty_freelist", SLUB_DEACT_EMPTY_FREELIST)
		lttng_ust_field_enum_value("node_mismatch", SLUB_DEACT_NODE_MISMATCH)
		lttng_ust_field_enum_value("flush", SLUB_DEACT_FLUSH)
		lttng_ust_field_enum_value("debug", SLUB_DEACT_DEBUG)
		lttng_ust_field_enum_value("cpu_partial_limit", SLUB_DEACT_CPU_PARTIAL_LIMIT)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(slub, error_kind,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("Object already free", SLUB_ERR_DOUBLE_FREE)
		lttng_ust_field_enum_value("Invalid pointer (not from slubtrace)", SLUB_ERR_FOREIGN_POINTER)
		lttng_ust_field_enum_value("Wrong slab cache", SLUB_ERR_WRONG_CACHE)
		lttng_ust_field_enum_value("Invalid object pointer", SLUB_ERR_NOT_OBJECT_START)
		lttng_ust_field_enum_value("Freepointer corrupt", SLUB_ERR_FREEPOINTER)
		lttng_ust_field_enum_value("Redzone overwritten", SLUB_ERR_REDZONE)
		lttng_ust_field_enum_value("Poison overwritten", SLUB_ERR_POISON)
		lttng_ust_field_enum_value("Wrong object count", SLUB_ERR_COUNTS)
		lttng_ust_field_enum_value("Slab on the wrong list", SLUB_ERR_LIST)
	)
)

/* The arguments every slub tracepoint takes. */
#define SLUB_TP_ARGS							\
	LTTNG_UST_TP_ARGS(const struct slub_event *, ev,		\
			  const uint64_t *, stack, unsigned int, depth)

/* Where the event happened: cache, acting cpu slot, node (event.h). */
#define SLUB_TP_WHERE							\
	lttng_ust_field_integer(uint32_t, cache_id, ev->cache_id)	\
	lttng_ust_field_integer(int32_t, cpu, ev->cpu)			\
	lttng_ust_field_integer(int16_t, node, ev->node)

/* One view of the slab word, fields prefixed with `p`. */
#define SLUB_TP_WORD(p, w)						\
	lttng_ust_field_integer_hex(uint64_t, p##_freelist, (w).freelist) \
	lttng_ust_field_integer(uint16_t, p##_inuse, (w).inuse)	\
	lttng_ust_field_integer(uint16_t, p##_objects, (w).objects)	\
	lttng_ust_field_integer(uint8_t, p##_frozen, (w).frozen)	\
	lttng_ust_field_integer(int32_t, p##_owner, (w).owner)		\
	lttng_ust_field_integer(uint32_t, p##_seq, (w).seq)

#define SLUB_TP_STACK							\
	lttng_ust_field_sequence_hex(uint64_t, stack, stack, uint8_t, depth)

/* ---- caches ------------------------------------------------------------ */

LTTNG_UST_TRACEPOINT_EVENT(slub, cache_create,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, cache_id, ev->cache_id)
		lttng_ust_field_string(name, ev->info->name)
		lttng_ust_field_integer(uint32_t, object_size, ev->info->object_size)
		lttng_ust_field_integer(uint32_t, size, ev->info->size)
		lttng_ust_field_integer(uint32_t, align, ev->info->align)
		lttng_ust_field_integer(uint32_t, order, ev->info->order)
		lttng_ust_field_integer(uint32_t, objects, ev->info->objects)
		lttng_ust_field_integer(uint32_t, min_partial, ev->info->min_partial)
		lttng_ust_field_integer(uint32_t, cpu_partial, ev->info->cpu_partial)
		lttng_ust_field_integer_hex(uint32_t, flags, ev->info->flags)
		/* 1: created before the probes registered, announced now */
		lttng_ust_field_integer(uint8_t, announced, ev->reason)
		SLUB_TP_STACK
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, cache_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE)

LTTNG_UST_TRACEPOINT_EVENT(slub, cache_destroy,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, cache_id, ev->cache_id)
		lttng_ust_field_integer(uint32_t, count, ev->count)
		SLUB_TP_STACK
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, cache_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE)

/* ---- slab life cycle and slab-word updates ------------------------------ */

/*
 * slab_new: new = the first word; slab_discard: old = the last word; every
 * successful slab_update(): old -> new, site = the code path, dest = where
 * an unfrozen slab went.
 */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, slab_word,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer_hex(uint64_t, slab, ev->slab)
		lttng_ust_field_enum(slub, site, uint8_t, site, ev->site)
		lttng_ust_field_enum(slub, slab_dest, uint8_t, dest, ev->list)
		lttng_ust_field_integer(uint8_t, locked, ev->locked)
		SLUB_TP_WORD(old, ev->old)
		SLUB_TP_WORD(new, ev->new)
		SLUB_TP_STACK
	)
)

#define SLUB_TP_SLAB_WORD_EVENT(name, level)				\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, slab_word, slub, name, SLUB_TP_ARGS) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, level)

SLUB_TP_SLAB_WORD_EVENT(slab_new, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
SLUB_TP_SLAB_WORD_EVENT(slab_discard, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
SLUB_TP_SLAB_WORD_EVENT(freeze, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
SLUB_TP_SLAB_WORD_EVENT(unfreeze, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
SLUB_TP_SLAB_WORD_EVENT(take_freelist, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
SLUB_TP_SLAB_WORD_EVENT(free_remote, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
SLUB_TP_SLAB_WORD_EVENT(drain_freelist, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* A failed slab-word CAS: what the thread expected and what it found. */
LTTNG_UST_TRACEPOINT_EVENT(slub, cmpxchg_fail,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer_hex(uint64_t, slab, ev->slab)
		lttng_ust_field_enum(slub, site, uint8_t, site, ev->site)
		lttng_ust_field_integer(uint8_t, locked, ev->locked)
		lttng_ust_field_integer(uint32_t, attempt, ev->attempt)
		SLUB_TP_WORD(expected, ev->old)
		SLUB_TP_WORD(observed, ev->new)
		SLUB_TP_STACK
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, cmpxchg_fail, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* A failed cpu partial chain CAS: a push (put_cpu_partial) or a pop
 * (cpu_partial_take) lost against a flush run from another thread. */
LTTNG_UST_TRACEPOINT_EVENT(slub, cpu_cmpxchg_fail,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer_hex(uint64_t, slab, ev->slab)
		lttng_ust_field_enum(slub, site, uint8_t, site, ev->site)
		lttng_ust_field_integer(uint32_t, attempt, ev->attempt)
		SLUB_TP_STACK
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, cpu_cmpxchg_fail, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* ---- the cpu slab and the cpu partial chain ----------------------------- */

LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, cpu_slab,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer(int16_t, slot, ev->slot)
		lttng_ust_field_integer_hex(uint64_t, slab, ev->slab)
		lttng_ust_field_enum(slub, deactivate_reason, uint8_t, reason, ev->reason)
		lttng_ust_field_enum(slub, slab_dest, uint8_t, dest, ev->list)
		lttng_ust_field_integer(uint8_t, locked, ev->locked)
		lttng_ust_field_integer(uint32_t, count, ev->count)
		lttng_ust_field_integer(uint32_t, pages, ev->pages)
		SLUB_TP_STACK
	)
)

#define SLUB_TP_CPU_SLAB_EVENT(name)					\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, cpu_slab, slub, name, SLUB_TP_ARGS) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

SLUB_TP_CPU_SLAB_EVENT(cpu_slab_load)
SLUB_TP_CPU_SLAB_EVENT(deactivate)
SLUB_TP_CPU_SLAB_EVENT(cpu_partial_put)
SLUB_TP_CPU_SLAB_EVENT(cpu_partial_take)
SLUB_TP_CPU_SLAB_EVENT(cpu_partial_drain)

/* ---- node lists: under the node's list_lock ----------------------------- */

LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, list_op,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer_hex(uint64_t, slab, ev->slab)
		lttng_ust_field_enum(slub, slab_dest, uint8_t, list, ev->list)
		lttng_ust_field_integer(uint8_t, locked, ev->locked)
		lttng_ust_field_integer(uint32_t, lock_id, ev->lock_id)
		lttng_ust_field_integer(uint64_t, lock_seq, ev->lock_seq)
		/* the seq of the slab word seen at the list operation */
		lttng_ust_field_integer(uint32_t, seq, ev->new.seq)
		SLUB_TP_STACK
	)
)

#define SLUB_TP_LIST_EVENT(name)					\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, list_op, slub, name, SLUB_TP_ARGS) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

SLUB_TP_LIST_EVENT(add_partial)
SLUB_TP_LIST_EVENT(remove_partial)
SLUB_TP_LIST_EVENT(add_full)
SLUB_TP_LIST_EVENT(remove_full)

/* ---- list_lock ---------------------------------------------------------- */

LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, lock,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer(uint32_t, lock_id, ev->lock_id)
		lttng_ust_field_integer(uint64_t, lock_seq, ev->lock_seq)
		lttng_ust_field_integer(uint8_t, contended, ev->contended)
		lttng_ust_field_integer(uint64_t, wait_ns, ev->wait_ns)
		lttng_ust_field_integer(uint64_t, hold_ns, ev->hold_ns)
		SLUB_TP_STACK
	)
)

#define SLUB_TP_LOCK_EVENT(name)					\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, lock, slub, name, SLUB_TP_ARGS) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS)

SLUB_TP_LOCK_EVENT(lock_acquire)
SLUB_TP_LOCK_EVENT(lock_release)

/* ---- threads ------------------------------------------------------------ */

LTTNG_UST_TRACEPOINT_EVENT(slub, thread_flush,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer(int16_t, slot, ev->slot)
		lttng_ust_field_integer(uint32_t, count, ev->count)
		SLUB_TP_STACK
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, thread_flush, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* ---- objects: the transaction log, off unless asked for ----------------- */

LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, object,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer_hex(uint64_t, slab, ev->slab)
		lttng_ust_field_integer_hex(uint64_t, object, ev->object)
		lttng_ust_field_integer(uint64_t, size, ev->size)
		SLUB_TP_STACK
	)
)

#define SLUB_TP_OBJECT_EVENT(name)					\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, object, slub, name, SLUB_TP_ARGS) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

SLUB_TP_OBJECT_EVENT(alloc)
SLUB_TP_OBJECT_EVENT(free)

/* ---- corruption and misuse ---------------------------------------------- */

LTTNG_UST_TRACEPOINT_EVENT(slub, error,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE
		lttng_ust_field_integer_hex(uint64_t, slab, ev->slab)
		lttng_ust_field_enum(slub, error_kind, uint8_t, reason, ev->reason)
		lttng_ust_field_integer_hex(uint64_t, object, ev->object)
		lttng_ust_field_string(msg, ev->msg)
		SLUB_TP_STACK
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, error, LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR)

#endif /* SLUB_TP_H */

#include <lttng/tracepoint-event.h>
