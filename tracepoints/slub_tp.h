/* SPDX-License-Identifier: MIT */
/*
 * The `slub` LTTng-UST provider: one tracepoint per enum slub_event_type,
 * plus `slub:stack`.  This comment is the wire format; the analysis decodes
 * it back into struct slub_event (include/slub/event.h).
 *
 * Wire format 12 (SLUB_TRACE_FORMAT, carried by every cache_create)
 * -----------------------------------------------------------------
 * No context: every event carries its process's pid over its thread's tid,
 * what LTTng's vpid and vtid contexts give (getpid() and gettid() in the
 * process's namespace), as `pid_tid` u64 x, its last field (the fourth word
 * of the slab-word events' array):
 *
 *    63                                 32 31                              0
 *   +-------------------------------------+--------------------------------+
 *   |                 pid                 |              tid               |
 *   +-------------------------------------+--------------------------------+
 *
 * A context costs two calls per event (its size, then its value); the
 * payload's word is part of a call made anyway.  `slubtrace record` puts
 * slub:* in a channel without context and LTTng-UST's own events, which
 * carry no pid, in a second channel with vpid and vtid.  A session that
 * adds the contexts to slub events too (a session set up by hand, an
 * attached service) has both; readers take the payload's.  A thread's
 * name travels in its own event, slub:comm (below), not in LTTng's 16-byte
 * procname context on every event.  Payloads
 * carry what the analysis needs and nothing it can derive, in few fields:
 * LTTng-UST 2.13 writes every field with its own indirect call into the
 * ring buffer (about 75 instructions), so that what an event costs beyond
 * LTTng's fixed part follows its field count more than its bytes.  No
 * class has more than six fields, the slab-word events (most of a trace)
 * have two, and only cache_create has a string.  The field lists below
 * leave out pid_tid.
 * `x` = printed in hex, `enum` = an 8-bit enumeration whose labels are the
 * strings of slub_site_name(), slub_dest_name(),
 * slub_deactivate_reason_name(), slub_error_name() and slub_event_name().
 *
 * `where` (u64 x), the first field of every event but cache_destroy,
 * slub:stack and the slab-word events (the second of cache_create; the
 * first word of the slab-word events' array): the small integers of the
 * event, in hex digits that read from the right:
 *
 *    63           48 47     40 39     32 31           16 15            0
 *   +---------------+---------+---------+---------------+---------------+
 *   |      arg      |  flags  |  node   |      cpu      |   cache_id    |
 *   +---------------+---------+---------+---------------+---------------+
 *
 *   cache_id  u16
 *   cpu       i16, two's complement: the ACTING cpu slot (ffff = -1)
 *   node      u8
 *   flags     bit 40 locked (slab_word, cmpxchg_fail, cpu_slab, list_op),
 *             bit 41 contended (lock_acquire), bit 42 announced
 *             (cache_create: created before the probes registered,
 *             announced now), bit 43 other node (sheaf_refill, format 8:
 *             objects for an allocation on another node than the slot's,
 *             alloc_node_mismatch); the other bits are 0
 *   arg       i16 or u16, per class: owner (slab_word), slot (cpu_slab,
 *             thread_flush, sheaf_slot), attempt (cmpxchg_fail,
 *             cpu_cmpxchg_fail), count (sheaf_slab), list (barn: 0 empty,
 *             1 full); 0 elsewhere
 *
 * Two enumerations name a pair: `site` of slab_word is site | dest << 4
 * (enum slub:site_dest, labelled "unfreezing slab -> tail", or the site
 * alone when dest is none), `reason` of cpu_slab is reason | dest << 4
 * (enum slub:reason_dest, "flush -> discard", or the reason alone).
 * Every pair has a label.  Fields come widest first, so that nothing is
 * padded where the ring buffer aligns them (x86 packs them anyway); only
 * cache_create keeps `format` first, where every reader looks for it.
 *
 *   cache_create    format u8 (= 5), where (announced),
 *                   geometry u32[8] = { object_size, size, align, order,
 *                   objects, min_partial, cpu_partial, flags }, name
 *                   string (the flags ride in the array, printed in
 *                   decimal with it: four fields, not five)
 *   cache_destroy   cache_id u16, count u32
 *   slab_new, slab_discard, freeze, unfreeze, take_freelist,
 *   drain_freelist, free_remote  (class slab_word)
 *                   where_slab_fl_counters_pid_tid u64 x[4], site enum
 *                   (site_dest): the array is { where (locked, arg =
 *                   owner), slab_fl, counters, pid_tid }, written with one
 *                   call (format 12; format 11 had the first three in
 *                   where_slab_fl_counters, and the contexts; format 10
 *                   wrote them as three fields);
 *                   slab_fl is the slab and its new freelist in one word
 *                   (format 10),
 *
 *    63             59 58                              24 23             0
 *   +-----------------+----------------------------------+----------------+
 *   |        0        |      slab >> 12 (page number)    |  freelist off  |
 *   +-----------------+----------------------------------+----------------+
 *
 *                   so that in hex the slab's address is the digits left of
 *                   the last six, less its three zeros, and the last six
 *                   are the freelist's offset in the slab: slab
 *                   0x7f0000010000 with its freelist at +0x40 reads
 *                   0x7f0000010000040.  A slab is a page run of the
 *                   allocator's 4 MiB segments: 4 KiB-aligned, below 2^47,
 *                   under 4 MiB, so every freelist in it has an offset
 *                   below 0x400000.  ffffff: NULL.  fffffe: a pointer
 *                   outside the slab, which only a corrupted free pointer
 *                   makes (its value is not carried).  33 bytes of
 *                   payload with pid_tid (25 in format 11, whose 8 bytes
 *                   of contexts were outside it), where format 9 had 29
 *                   (free_remote) or 33 and the contexts.
 *   cmpxchg_fail    where (locked, arg = attempt), slab u64 x,
 *                   words u64 x[4], site enum: words = { expected
 *                   freelist, expected counters, observed freelist,
 *                   observed counters }, the two 16-byte slab words as
 *                   the CAS compared them (an array is written with one
 *                   call: four fields, not seven)
 *   cpu_cmpxchg_fail where (arg = attempt), slab u64 x, site enum
 *   cpu_slab_load, deactivate, cpu_partial_put, cpu_partial_take,
 *   cpu_partial_drain  (class cpu_slab)
 *                   where (locked, arg = slot), slab u64 x, count u32,
 *                   pages u32, reason enum (reason_dest)
 *   add_partial, remove_partial, add_full, remove_full  (class list_op)
 *                   where (locked), slab u64 x, lock_seq u64, seq u32
 *                   (the slab word's seq the thread saw, bits 32-63 of
 *                   `counters`), list enum (dest labels)
 *   lock_acquire    where (contended), lock_seq u64, wait_ns u64
 *   lock_release    where, lock_seq u64, hold_ns u64
 *                   Every lock event is of the node list_lock of `where`:
 *                   the lock's id is cache_id * 64 + node, which format 9
 *                   carried as a field of its own.
 *   thread_flush    where (arg = slot), count u32
 *   alloc, free     where, slab u64 x, object u64 x, size u64
 *   error           where, slab u64 x, object u64 x, reason enum
 *                   (error_kind: its label is what in-process observers
 *                   get as slub_event.msg)
 *   comm            name string (format 9): the emitting thread's name
 *                   (PR_GET_NAME, read at its first announcement and again
 *                   in a forked child: what LTTng's procname context gives),
 *                   emitted by each thread before its first slub event,
 *                   by the thread that forked in the child before the
 *                   child's first, and again before every
 *                   SLUB_TP_COMM_PERIOD-th slub event of the thread, so
 *                   that a flight-recorder window that holds that many of
 *                   a thread's events names it.  A reader keeps the last
 *                   name of each (vpid, vtid) and gives it to the events
 *                   that follow; an exec is the main thread's first event
 *                   in the new image, announced under the new name.
 *                   Without it (a window shorter than the period, or a
 *                   session that did not enable it) events have pids and
 *                   no names.  The procname context, when a session adds
 *                   it, takes precedence.
 *   bin_info        baddr u64 x, memsz u64, build_id u8 x sequence,
 *                   is_pic u8, path string (format 9): an object mapped in
 *                   the process, as LTTng-UST's lttng_ust_statedump:bin_info
 *                   and build_id name it (baddr: where its first loadable
 *                   segment is mapped; memsz: the extent of its loadable
 *                   segments; the build id from its PT_NOTE segment), read
 *                   from memory by the allocator itself (dl_iterate_phdr(),
 *                   no file read), only when stacks are recorded, with no
 *                   allocator lock held: after the process's first event,
 *                   again in a forked child, and again before a stack when
 *                   objects were loaded since (dlpi_adds).  `slubtrace
 *                   record` turns LTTng-UST's own statedump of the loaded
 *                   objects off (LTTNG_UST_WITHOUT_BADDR_STATEDUMP), which
 *                   read every object's ELF file at each registration.
 *   stack           of enum (event type), slab u64 x,
 *                   ips u64 x sequence, u8 length (innermost first)
 *   trigger         kind enum (trigger_kind: violation, storm, error),
 *                   slab u64 x, rule string (the rule id, `storm`, or the
 *                   error's label): the in-process checker asks for a
 *                   flight-recorder snapshot (SLUBTRACE_TRIGGER, src/check.c);
 *                   `slubtrace record --trigger` turns it into one with an
 *                   LTTng trigger.  Added in format 4 without changing any
 *                   other class: it is an event of its own, emitted only
 *                   with SLUBTRACE_TRIGGER set, and readers that do not know
 *                   it ignore it (analysis/plugin/decode.c skips every slub
 *                   event it does not know), so cache_create still says 4
 *                   and every format-4 reader reads these traces.
 *   slabinfo_walk   where (locked), lock_seq u64, free u64, walked u32,
 *                   listed u32: slabinfo's count_partial() walk of a node
 *                   partial list (src/slabinfo.c), emitted inside its
 *                   list_lock hold, between that hold's lock_acquire and
 *                   lock_release of the same lock_seq (the lock is
 *                   cache_id * 64 + node of `where`): `walked` slabs read of
 *                   the `listed` on the list (fewer with the 6.10 bounded
 *                   scan: the count is then extrapolated), `free` the free
 *                   objects counted.  It reads slab words and changes no
 *                   slab, list or word: it is what the hold did.  New in
 *                   format 5, which is format 4 with this event; nothing
 *                   else changed.
 *
 *   sheaf_refill, sheaf_flush  (class sheaf_slab, the sheaves generation)
 *                   where (arg = count), slab u64 x, sheaf u64 x, size u32:
 *                   `count` objects of `slab` went into `sheaf` (refill;
 *                   sheaf 0: straight to the allocating caller, no sheaf;
 *                   with the other-node flag, format 8 on, for a caller
 *                   that asked for another node than its slot's)
 *                   or back from it to the slab (flush, after the
 *                   __slab_free that took them), one event per slab;
 *                   `size` is what the sheaf holds after the event.  The
 *                   slab word events stay as they are: the refill's
 *                   take_freelist (or slab_new) and the flush's free_remote.
 *   sheaf_slot      where (arg = slot), main u64 x, spare u64 x, sizes u64 x
 *                   (main's objects in bits 0-31, the spare's in 32-63):
 *                   the slot's two sheaves (0: none) after any change of
 *                   either (swap, exchange with the barn, a new or a freed
 *                   sheaf); between two of them only allocations and frees
 *                   change main's size.
 *   barn_put, barn_get  (class barn)
 *                   where (arg = list: 0 empty, 1 full), sheaf u64 x,
 *                   counts u64 x (the barn's full sheaves in bits 0-31,
 *                   empty ones in 32-63, after the move), size u32 (the
 *                   sheaf's objects): a sheaf into or out of the barn of
 *                   `where`'s node, emitted under the barn's lock, so that
 *                   one barn's events are in its order.  An exchange is a
 *                   get and a put in one hold.
 *                   New in format 7 (sheaf_refill .. barn_get), which is
 *                   format 6 with these events; nothing else changed.
 *   sheaf_alloc, sheaf_free  (class sheaf)
 *                   where (cpu = the acting slot, node its node), sheaf
 *                   u64 x: an empty sheaf made (alloc_empty_sheaf) or
 *                   freed (free_empty_sheaf), the events of 7.0's
 *                   sheaf_alloc and sheaf_free stat items.  A sheaf is
 *                   empty at both: neither moves an object.  New in format
 *                   8, which is format 7 with these two events; nothing else
 *                   changed.
 *
 * The slab word.  `counters` is the slab's counters word exactly as it sits
 * in memory next to `freelist`:
 *
 *    63                  32 31 30          16 15           0
 *   +----------------------+--+--------------+--------------+
 *   |         seq          |fz|   objects    |    inuse     |
 *   +----------------------+--+--------------+--------------+
 *
 * A slab_word event carries the NEW word (slab_new: the first word,
 * slab_discard: the last one).  The old word of an update is not carried:
 * it is the previous update's new word, which the seq chain (+1 per
 * update) proves.  `owner` is the cpu slot owning the slab after the update
 * while it is frozen, -1 unfrozen; for `unfreeze` it is the slot the slab
 * leaves; in `free_remote` of a frozen slab the freeing thread cannot know
 * the owner atomically (-2, SLUB_OWNER_UNKNOWN).  cmpxchg_fail carries
 * both words it compared, no owner.  List operations carry the seq of the
 * slab word the acting thread saw, so they order against the slab's chain.
 *
 * Stacks travel in their own event: `slub:stack` follows, in the same
 * thread, the event it belongs to (`of`, and the same `slab`), only for the
 * types SLUBTRACE_STACKS selects and only when a frame was captured.  A
 * reader attaches it to the last event of that type of that (vpid, vtid).
 * An event without a stack pays nothing for stacks.
 *
 * The generation.  A cache that ran the sheaves generation (Linux 7.0's
 * per-cpu sheaves and barns, SLUBTRACE_GENERATION=sheaves) has
 * SLUB_F_SHEAVES (bit 7) in cache_create's flags.  Its slabs are never
 * frozen (every word's frozen bit is 0, owner -1); a refill takes a
 * partial slab's whole freelist with take_freelist (site get_freelist,
 * unfrozen); its slab_new word already has the objects the refill took in
 * inuse and the rest on the freelist; a flush frees with free_remote; no
 * cpu-slab event concerns it.  The objects in sheaves are counted in use
 * by their slabs; format 7 says where they are (sheaf and barn events
 * above).  New in format 6, which is format 5 with this meaning of
 * the flags; the layout is unchanged.  A format-5 reader must not read a
 * sheaves trace with the classic generation's rules: the format tells it
 * to refuse.
 *
 * Format 11 was this format without pid_tid: `slubtrace record` added the
 * vpid and vtid contexts to every event, and the slab_word array was
 * where_slab_fl_counters u64 x[3] (cache_create says 11).  Readers decode it
 * too.
 *
 * Format 10 was format 11 with the slab_word class's three words as
 * three fields of their own: where u64 x, slab_fl u64 x, counters u64 x,
 * then site (cache_create says 10).  The same bytes, two more calls into
 * the ring buffer per event.  Readers decode it too.
 *
 * Format 9 was format 10 with slab and freelist apart in the slab_word
 * class (slab u64 x, freelist u64 x, between `where` and `counters`) but
 * for free_remote (class slab_free: slab u64 x, counters u64 x,
 * freelist_off u32 x, its offset in the slab or ffffffff for NULL, site),
 * list_op's seq in the high half of lock_id_seq u64 x (the lock id in the
 * low half) before lock_seq, and lock_acquire and lock_release with a last
 * field lock_id u32 (cache_create says 9).  Readers decode it too.
 *
 * Format 8 was format 9 with free_remote in class slab_word (freelist
 * u64) and without slub:comm; `slubtrace record` added the procname context
 * to every event (cache_create says 8).  Readers decode it too.
 *
 * Format 7 was this format without sheaf_alloc, sheaf_free and the
 * other-node flag (cache_create says 7).  Readers decode it too; the
 * sheaf_alloc, sheaf_free and alloc_node_mismatch stat items of its
 * sheaves caches are not known from it.
 *
 * Format 6 was this format without the sheaf and barn events (cache_create
 * says 6).  Readers decode it too; the checker refuses a sheaves trace of
 * format 6, which does not say where objects are.
 *
 * Format 5 was this format without the generation (cache_create says 5).
 * Readers decode it too.
 *
 * Format 4 was this format without slabinfo_walk (cache_create says 4).
 * Readers decode it too.
 *
 * Format 3 was this format with cache_create's geometry u32[7] (without
 * flags) followed by flags u32 x, a field of its own (five fields),
 * cmpxchg_fail's words as two arrays of two, expected and observed (five
 * fields), and error with a fifth field, msg string, always the label of
 * its reason.  Readers decode it too.
 *
 * Format 2 had the same events with every small integer in a field of its
 * own: cache_id u16, cpu i16, node u8 first in every event but cache_*,
 * then locked u8, owner / slot i16, attempt u16, contended u8, site and
 * dest (reason and dest) as two enums, cmpxchg_fail's words as
 * expected_freelist, expected_counters, observed_freelist,
 * observed_counters, list operations' lock_id u32 and seq u32 apart, and
 * cache_create as cache_id u16, name, the geometry as seven u32 fields
 * named as above, flags and announced u8 (no cpu, no node).  Readers
 * decode it too.  Format 1 (before this header carried a version) had one
 * `stack` field in every event and old_* and new_* words with separate
 * inuse, objects, frozen, owner and seq fields (`new_seq`); readers refuse
 * it and ask for a new recording.
 *
 * Log levels are chosen so that --loglevel selects useful subsets:
 *   TRACE_ERR            error
 *   TRACE_WARNING        cmpxchg_fail, cpu_cmpxchg_fail
 *   TRACE_NOTICE         cache_create, cache_destroy
 *   TRACE_INFO           slab life cycle, slab-word updates, cpu slab and
 *                        cpu partial changes, list operations, thread_flush,
 *                        sheaf and barn events, stack, comm, bin_info
 *   TRACE_DEBUG_PROCESS  lock_acquire, lock_release, slabinfo_walk (the walk
 *                        goes with its hold)
 *   TRACE_DEBUG          alloc, free (one per object)
 * `--loglevel=TRACE_DEBUG_LINE` is everything but the object events.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER slub

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "slub_tp.h"

#ifndef SLUB_TP_HELPERS
#define SLUB_TP_HELPERS
#include <stdint.h>
#include <slub/event.h>

/* The wire format this header describes (cache_create.format). */
#define SLUB_TRACE_FORMAT 12
/* slub:trigger's kind. */
#define SLUB_TRIGGER_VIOLATION 0
#define SLUB_TRIGGER_STORM 1
#define SLUB_TRIGGER_ERROR 2

/* Deepest stack a slub:stack event carries (SLUBTRACE_STACK_DEPTH is
 * clamped to it). */
#define SLUB_TP_STACK_MAX 64

/* Bits of the flags byte of `where` (bits 40-47). */
#define SLUB_TP_LOCKED 0x1u
#define SLUB_TP_CONTENDED 0x2u
#define SLUB_TP_ANNOUNCED 0x4u
#define SLUB_TP_OTHER_NODE 0x8u

/* slub:comm again before every this many slub events of a thread. */
#define SLUB_TP_COMM_PERIOD 4096

/* cache_create.geometry: object_size .. cpu_partial, then flags. */
#define SLUB_TP_GEOMETRY 8

/* cmpxchg_fail.words: expected freelist, counters, observed freelist,
 * counters. */
#define SLUB_TP_CAS_WORDS 4

/* slab_word.where_slab_fl_counters_pid_tid: where, slab_fl, counters,
 * pid_tid. */
#define SLUB_TP_WORD4 4

/* The counters word of a slab word, packed as in memory (see above). */
static inline uint64_t slub_tp_counters(const struct slub_word *w)
{
	return (uint64_t)(w->inuse & 0xffffu) | (uint64_t)(w->objects & 0x7fffu) << 16 |
	       (uint64_t)(w->frozen & 1u) << 31 | (uint64_t)w->seq << 32;
}

/* slab_word.slab_fl (format 10): the slab's page number over its new
 * freelist's offset in the slab (see above).  Slabs are pages of the
 * allocator's segments: 4 KiB-aligned, below 2^47, under 4 MiB. */
#define SLUB_TP_FL_BITS 24
#define SLUB_TP_FL_NULL 0xffffffu
#define SLUB_TP_FL_OUTSIDE 0xfffffeu

static inline uint64_t slub_tp_slab_fl(const struct slub_event *ev)
{
	uint64_t off = ev->new.freelist - ev->slab;
	uint64_t fl = !ev->new.freelist ? SLUB_TP_FL_NULL :
		off < SLUB_TP_FL_OUTSIDE ? off : SLUB_TP_FL_OUTSIDE;

	return ev->slab << (SLUB_TP_FL_BITS - 12) | fl;
}

/*
 * cache_create.format, with a side effect: an announcement (reason 1) whose
 * ev->object holds the address of the allocator's acknowledgement flag sets
 * it.  LTTng-UST evaluates a field's expression only when it writes the
 * event, after its session-active and enabled checks, so the flag says a
 * session recorded the announcement: a process's tracepoints turn on when
 * an event is enabled, before its session starts (an attached process, a
 * process registering with a started session), and an announcement made
 * then reaches no trace (src/observer.c announces again).
 */
static inline uint8_t slub_tp_format(const struct slub_event *ev)
{
	if (ev->reason && ev->object)
		__atomic_store_n((int *)(uintptr_t)ev->object, 1, __ATOMIC_RELAXED);
	return SLUB_TRACE_FORMAT;
}

/* The owner a slab_word event carries: the slot an unfreeze leaves. */
static inline int32_t slub_tp_owner(const struct slub_event *ev)
{
	return ev->type == SLUB_EV_UNFREEZE ? ev->old.owner : ev->new.owner;
}

/* The `where` word (see above): flags and arg as the class has them. */
static inline uint64_t slub_tp_where(const struct slub_event *ev, unsigned flags, int32_t arg)
{
	return (uint64_t)(ev->cache_id & 0xffffu) | (uint64_t)((uint32_t)ev->cpu & 0xffffu) << 16 |
	       (uint64_t)((uint32_t)ev->node & 0xffu) << 32 | (uint64_t)(flags & 0xffu) << 40 |
	       (uint64_t)((uint32_t)arg & 0xffffu) << 48;
}

static inline unsigned slub_tp_locked(const struct slub_event *ev)
{
	return ev->locked ? SLUB_TP_LOCKED : 0;
}

/* slab_word.where_slab_fl_counters_pid_tid (format 12): `where`, slab_fl,
 * counters and pid_tid, which format 10 wrote as three fields and the two
 * contexts, as one array: LTTng-UST writes it with one call. */
static inline void slub_tp_word4(const struct slub_event *ev, uint64_t pid_tid,
				 uint64_t w[SLUB_TP_WORD4])
{
	w[0] = slub_tp_where(ev, slub_tp_locked(ev), slub_tp_owner(ev));
	w[1] = slub_tp_slab_fl(ev);
	w[2] = slub_tp_counters(&ev->new);
	w[3] = pid_tid;
}

/*
 * The enumerations' labels as lists, so that the enumerations of pairs get
 * a label for every pair without writing them out.  A dest comes with its
 * name and the suffix it adds to a pair's label (none: nothing).
 */
#define SLUB_TP_SITES(X)						\
	X("none", SLUB_SITE_NONE)					\
	X("acquire_slab", SLUB_SITE_ACQUIRE_SLAB)			\
	X("get_freelist", SLUB_SITE_GET_FREELIST)			\
	X("unfreezing slab", SLUB_SITE_UNFREEZING_SLAB)			\
	X("unfreeze_partials", SLUB_SITE_UNFREEZE_PARTIALS)		\
	X("drain percpu freelist", SLUB_SITE_DRAIN_PERCPU)		\
	X("__slab_free", SLUB_SITE_SLAB_FREE)				\
	X("put_cpu_partial", SLUB_SITE_PUT_CPU_PARTIAL)			\
	X("new_slab", SLUB_SITE_NEW_SLAB)				\
	X("cpu_partial_take", SLUB_SITE_CPU_PARTIAL_TAKE)

#define SLUB_TP_REASONS(X)						\
	X("empty_freelist", SLUB_DEACT_EMPTY_FREELIST)			\
	X("node_mismatch", SLUB_DEACT_NODE_MISMATCH)			\
	X("flush", SLUB_DEACT_FLUSH)					\
	X("debug", SLUB_DEACT_DEBUG)					\
	X("cpu_partial_limit", SLUB_DEACT_CPU_PARTIAL_LIMIT)

#define SLUB_TP_DESTS(X, label, value)					\
	X(label, value, "none", "", SLUB_DEST_NONE)			\
	X(label, value, "head", " -> head", SLUB_DEST_HEAD)		\
	X(label, value, "tail", " -> tail", SLUB_DEST_TAIL)		\
	X(label, value, "full", " -> full", SLUB_DEST_FULL)		\
	X(label, value, "discard", " -> discard", SLUB_DEST_DISCARD)

#define SLUB_TP_VALUE(label, value) lttng_ust_field_enum_value(label, value)
#define SLUB_TP_DEST_VALUE(l, v, label, suffix, value) lttng_ust_field_enum_value(label, value)
#define SLUB_TP_PAIR_VALUE(label, value, dlabel, suffix, dvalue)	\
	lttng_ust_field_enum_value(label suffix, (value) | (dvalue) << 4)
#define SLUB_TP_WITH_DESTS(label, value) SLUB_TP_DESTS(SLUB_TP_PAIR_VALUE, label, value)
#endif /* SLUB_TP_HELPERS */

#if !defined(SLUB_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SLUB_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_ENUM(slub, site,
	LTTNG_UST_TP_ENUM_VALUES(SLUB_TP_SITES(SLUB_TP_VALUE))
)

/* slab_word.site: site | dest << 4 */
LTTNG_UST_TRACEPOINT_ENUM(slub, site_dest,
	LTTNG_UST_TP_ENUM_VALUES(SLUB_TP_SITES(SLUB_TP_WITH_DESTS))
)

LTTNG_UST_TRACEPOINT_ENUM(slub, slab_dest,
	LTTNG_UST_TP_ENUM_VALUES(SLUB_TP_DESTS(SLUB_TP_DEST_VALUE, "", 0))
)

/* cpu_slab.reason: reason | dest << 4 */
LTTNG_UST_TRACEPOINT_ENUM(slub, reason_dest,
	LTTNG_UST_TP_ENUM_VALUES(SLUB_TP_REASONS(SLUB_TP_WITH_DESTS))
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

/* slub:stack.of: the event names, as slub_event_name() spells them. */
LTTNG_UST_TRACEPOINT_ENUM(slub, event_type,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("cache_create", SLUB_EV_CACHE_CREATE)
		lttng_ust_field_enum_value("cache_destroy", SLUB_EV_CACHE_DESTROY)
		lttng_ust_field_enum_value("slab_new", SLUB_EV_SLAB_NEW)
		lttng_ust_field_enum_value("slab_discard", SLUB_EV_SLAB_DISCARD)
		lttng_ust_field_enum_value("freeze", SLUB_EV_FREEZE)
		lttng_ust_field_enum_value("unfreeze", SLUB_EV_UNFREEZE)
		lttng_ust_field_enum_value("take_freelist", SLUB_EV_TAKE_FREELIST)
		lttng_ust_field_enum_value("free_remote", SLUB_EV_FREE_REMOTE)
		lttng_ust_field_enum_value("drain_freelist", SLUB_EV_DRAIN_FREELIST)
		lttng_ust_field_enum_value("cpu_slab_load", SLUB_EV_CPU_SLAB_LOAD)
		lttng_ust_field_enum_value("deactivate", SLUB_EV_DEACTIVATE)
		lttng_ust_field_enum_value("cpu_partial_put", SLUB_EV_CPU_PARTIAL_PUT)
		lttng_ust_field_enum_value("cpu_partial_take", SLUB_EV_CPU_PARTIAL_TAKE)
		lttng_ust_field_enum_value("cpu_partial_drain", SLUB_EV_CPU_PARTIAL_DRAIN)
		lttng_ust_field_enum_value("add_partial", SLUB_EV_ADD_PARTIAL)
		lttng_ust_field_enum_value("remove_partial", SLUB_EV_REMOVE_PARTIAL)
		lttng_ust_field_enum_value("add_full", SLUB_EV_ADD_FULL)
		lttng_ust_field_enum_value("remove_full", SLUB_EV_REMOVE_FULL)
		lttng_ust_field_enum_value("cmpxchg_fail", SLUB_EV_CMPXCHG_FAIL)
		lttng_ust_field_enum_value("cpu_cmpxchg_fail", SLUB_EV_CPU_CMPXCHG_FAIL)
		lttng_ust_field_enum_value("lock_acquire", SLUB_EV_LOCK_ACQUIRE)
		lttng_ust_field_enum_value("lock_release", SLUB_EV_LOCK_RELEASE)
		lttng_ust_field_enum_value("thread_flush", SLUB_EV_THREAD_FLUSH)
		lttng_ust_field_enum_value("alloc", SLUB_EV_ALLOC)
		lttng_ust_field_enum_value("free", SLUB_EV_FREE)
		lttng_ust_field_enum_value("error", SLUB_EV_ERROR)
		lttng_ust_field_enum_value("slabinfo_walk", SLUB_EV_SLABINFO_WALK)
		lttng_ust_field_enum_value("sheaf_refill", SLUB_EV_SHEAF_REFILL)
		lttng_ust_field_enum_value("sheaf_flush", SLUB_EV_SHEAF_FLUSH)
		lttng_ust_field_enum_value("sheaf_slot", SLUB_EV_SHEAF_SLOT)
		lttng_ust_field_enum_value("barn_put", SLUB_EV_BARN_PUT)
		lttng_ust_field_enum_value("barn_get", SLUB_EV_BARN_GET)
		lttng_ust_field_enum_value("sheaf_alloc", SLUB_EV_SHEAF_ALLOC)
		lttng_ust_field_enum_value("sheaf_free", SLUB_EV_SHEAF_FREE)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(slub, barn_list,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("empty", SLUB_BARN_EMPTY)
		lttng_ust_field_enum_value("full", SLUB_BARN_FULL)
	)
)

/* The argument of every slub tracepoint but slub:stack, cmpxchg_fail and
 * cache_create, whose arrays the caller lays out (slub_trace_emit()). */
#define SLUB_TP_ARGS LTTNG_UST_TP_ARGS(const struct slub_event *, ev, uint64_t, pid_tid)

/* The last field of every event but the slab-word ones (format 12): the
 * emitting process's pid over its thread's tid, as LTTng's vpid and vtid
 * contexts give them. */
#define SLUB_TP_PID_TID lttng_ust_field_integer_hex(uint64_t, pid_tid, pid_tid)

#define SLUB_TP_WHERE(flags, arg)					\
	lttng_ust_field_integer_hex(uint64_t, where, slub_tp_where(ev, flags, arg))

#define SLUB_TP_SLAB lttng_ust_field_integer_hex(uint64_t, slab, ev->slab)

/* ---- caches ------------------------------------------------------------ */

LTTNG_UST_TRACEPOINT_EVENT(slub, cache_create,
	LTTNG_UST_TP_ARGS(const struct slub_event *, ev, const uint32_t *, geometry,
			  uint64_t, pid_tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, format, slub_tp_format(ev))
		SLUB_TP_WHERE(ev->reason ? SLUB_TP_ANNOUNCED : 0, 0)
		lttng_ust_field_array(uint32_t, geometry, geometry, SLUB_TP_GEOMETRY)
		lttng_ust_field_string(name, ev->info->name)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, cache_create, LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE)

LTTNG_UST_TRACEPOINT_EVENT(slub, cache_destroy,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint16_t, cache_id, ev->cache_id)
		lttng_ust_field_integer(uint32_t, count, ev->count)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, cache_destroy, LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE)

/* ---- slab life cycle and slab-word updates ------------------------------ */

/* The new word (slab_discard: ev->new is the last word) as slab_fl and
 * counters after `where`, then pid_tid, in one array (slub_tp_word4());
 * site = the code path, dest = where an unfrozen slab went. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, slab_word,
	LTTNG_UST_TP_ARGS(const struct slub_event *, ev, const uint64_t *, w),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_array_hex(uint64_t, where_slab_fl_counters_pid_tid, w, SLUB_TP_WORD4)
		lttng_ust_field_enum(slub, site_dest, uint8_t, site, ev->site | ev->list << 4)
	)
)

#define SLUB_TP_SLAB_WORD_EVENT(name)					\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, slab_word, slub, name,	\
		LTTNG_UST_TP_ARGS(const struct slub_event *, ev, const uint64_t *, w)) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

SLUB_TP_SLAB_WORD_EVENT(slab_new)
SLUB_TP_SLAB_WORD_EVENT(slab_discard)
SLUB_TP_SLAB_WORD_EVENT(freeze)
SLUB_TP_SLAB_WORD_EVENT(unfreeze)
SLUB_TP_SLAB_WORD_EVENT(take_freelist)
SLUB_TP_SLAB_WORD_EVENT(drain_freelist)
SLUB_TP_SLAB_WORD_EVENT(free_remote)

/* A failed slab-word CAS: what the thread expected and what it found,
 * words[0..1] and words[2..3], each { freelist, counters }. */
LTTNG_UST_TRACEPOINT_EVENT(slub, cmpxchg_fail,
	LTTNG_UST_TP_ARGS(const struct slub_event *, ev, const uint64_t *, words,
			  uint64_t, pid_tid),
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(slub_tp_locked(ev), ev->attempt)
		SLUB_TP_SLAB
		lttng_ust_field_array_hex(uint64_t, words, words, SLUB_TP_CAS_WORDS)
		lttng_ust_field_enum(slub, site, uint8_t, site, ev->site)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, cmpxchg_fail, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* A failed cpu partial chain CAS: a push (put_cpu_partial) or a pop
 * (cpu_partial_take) lost against a flush run from another thread. */
LTTNG_UST_TRACEPOINT_EVENT(slub, cpu_cmpxchg_fail,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(0, ev->attempt)
		SLUB_TP_SLAB
		lttng_ust_field_enum(slub, site, uint8_t, site, ev->site)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, cpu_cmpxchg_fail, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

/* ---- the cpu slab and the cpu partial chain ----------------------------- */

LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, cpu_slab,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(slub_tp_locked(ev), ev->slot)
		SLUB_TP_SLAB
		lttng_ust_field_integer(uint32_t, count, ev->count)
		lttng_ust_field_integer(uint32_t, pages, ev->pages)
		lttng_ust_field_enum(slub, reason_dest, uint8_t, reason, ev->reason | ev->list << 4)
		SLUB_TP_PID_TID
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

/* seq: the slab word's seq the acting thread saw at the list operation;
 * the lock is cache_id * 64 + node of `where`. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, list_op,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(slub_tp_locked(ev), 0)
		SLUB_TP_SLAB
		lttng_ust_field_integer(uint64_t, lock_seq, ev->lock_seq)
		lttng_ust_field_integer(uint32_t, seq, ev->new.seq)
		lttng_ust_field_enum(slub, slab_dest, uint8_t, list, ev->list)
		SLUB_TP_PID_TID
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

LTTNG_UST_TRACEPOINT_EVENT(slub, lock_acquire,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(ev->contended ? SLUB_TP_CONTENDED : 0, 0)
		lttng_ust_field_integer(uint64_t, lock_seq, ev->lock_seq)
		lttng_ust_field_integer(uint64_t, wait_ns, ev->wait_ns)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, lock_acquire, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS)

LTTNG_UST_TRACEPOINT_EVENT(slub, lock_release,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(0, 0)
		lttng_ust_field_integer(uint64_t, lock_seq, ev->lock_seq)
		lttng_ust_field_integer(uint64_t, hold_ns, ev->hold_ns)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, lock_release, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS)

/* What slabinfo's reader did inside its hold: walked `walked` of the
 * `listed` partial slabs (count_partial), counting `free` objects. */
LTTNG_UST_TRACEPOINT_EVENT(slub, slabinfo_walk,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(slub_tp_locked(ev), 0)
		lttng_ust_field_integer(uint64_t, lock_seq, ev->lock_seq)
		lttng_ust_field_integer(uint64_t, free, ev->size)
		lttng_ust_field_integer(uint32_t, walked, ev->count)
		lttng_ust_field_integer(uint32_t, listed, ev->pages)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, slabinfo_walk, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS)

/* ---- threads ------------------------------------------------------------ */

LTTNG_UST_TRACEPOINT_EVENT(slub, thread_flush,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(0, ev->slot)
		lttng_ust_field_integer(uint32_t, count, ev->count)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, thread_flush, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* ---- sheaves and barns (the sheaves generation) ------------------------- */

/* count objects of slab into (refill) or out of (flush) sheaf; size: what
 * the sheaf holds after. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, sheaf_slab,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(ev->reason ? SLUB_TP_OTHER_NODE : 0, ev->count)
		SLUB_TP_SLAB
		lttng_ust_field_integer_hex(uint64_t, sheaf, ev->sheaf)
		lttng_ust_field_integer(uint32_t, size, ev->sheaf_size)
		SLUB_TP_PID_TID
	)
)

#define SLUB_TP_SHEAF_SLAB_EVENT(name)					\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, sheaf_slab, slub, name, SLUB_TP_ARGS) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

SLUB_TP_SHEAF_SLAB_EVENT(sheaf_refill)
SLUB_TP_SHEAF_SLAB_EVENT(sheaf_flush)

/* The slot's main and spare sheaves after a change; sizes: main's in bits
 * 0-31, the spare's in bits 32-63. */
LTTNG_UST_TRACEPOINT_EVENT(slub, sheaf_slot,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(0, ev->slot)
		lttng_ust_field_integer_hex(uint64_t, main, ev->sheaf)
		lttng_ust_field_integer_hex(uint64_t, spare, ev->spare)
		lttng_ust_field_integer_hex(uint64_t, sizes,
					    (uint64_t)ev->sheaf_size | (uint64_t)ev->spare_size << 32)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, sheaf_slot, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* A sheaf into or out of the barn of `where`'s node (under its lock);
 * counts: the barn's full sheaves in bits 0-31, empty ones in 32-63,
 * after the move. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, barn,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(0, ev->reason)
		lttng_ust_field_integer_hex(uint64_t, sheaf, ev->sheaf)
		lttng_ust_field_integer_hex(uint64_t, counts,
					    (uint64_t)ev->barn_full | (uint64_t)ev->barn_empty << 32)
		lttng_ust_field_integer(uint32_t, size, ev->sheaf_size)
		SLUB_TP_PID_TID
	)
)

#define SLUB_TP_BARN_EVENT(name)					\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, barn, slub, name, SLUB_TP_ARGS) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

SLUB_TP_BARN_EVENT(barn_put)
SLUB_TP_BARN_EVENT(barn_get)

/* An empty sheaf made or freed (format 8). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, sheaf,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(0, 0)
		lttng_ust_field_integer_hex(uint64_t, sheaf, ev->sheaf)
		SLUB_TP_PID_TID
	)
)

#define SLUB_TP_SHEAF_EVENT(name)					\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(slub, sheaf, slub, name, SLUB_TP_ARGS) \
	LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, name, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

SLUB_TP_SHEAF_EVENT(sheaf_alloc)
SLUB_TP_SHEAF_EVENT(sheaf_free)

/* ---- objects: the transaction log, off unless asked for ----------------- */

LTTNG_UST_TRACEPOINT_EVENT_CLASS(slub, object,
	SLUB_TP_ARGS,
	LTTNG_UST_TP_FIELDS(
		SLUB_TP_WHERE(0, 0)
		SLUB_TP_SLAB
		lttng_ust_field_integer_hex(uint64_t, object, ev->object)
		lttng_ust_field_integer(uint64_t, size, ev->size)
		SLUB_TP_PID_TID
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
		SLUB_TP_WHERE(0, 0)
		SLUB_TP_SLAB
		lttng_ust_field_integer_hex(uint64_t, object, ev->object)
		lttng_ust_field_enum(slub, error_kind, uint8_t, reason, ev->reason)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, error, LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR)

/* ---- flight recorder --------------------------------------------------- */

LTTNG_UST_TRACEPOINT_ENUM(slub, trigger_kind,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("violation", SLUB_TRIGGER_VIOLATION)
		lttng_ust_field_enum_value("storm", SLUB_TRIGGER_STORM)
		lttng_ust_field_enum_value("error", SLUB_TRIGGER_ERROR)
	)
)

/* What the checker saw that is worth a snapshot of the last events. */
LTTNG_UST_TRACEPOINT_EVENT(slub, trigger,
	LTTNG_UST_TP_ARGS(unsigned int, kind, uint64_t, slab, const char *, rule,
			  uint64_t, pid_tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(slub, trigger_kind, uint8_t, kind, kind)
		lttng_ust_field_integer_hex(uint64_t, slab, slab)
		lttng_ust_field_string(rule, rule)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, trigger, LTTNG_UST_TRACEPOINT_LOGLEVEL_CRIT)

/* ---- loaded objects, for the symbolizer --------------------------------- */

LTTNG_UST_TRACEPOINT_EVENT(slub, bin_info,
	LTTNG_UST_TP_ARGS(uint64_t, baddr, uint64_t, memsz, const uint8_t *, build_id,
			  unsigned int, build_id_len, unsigned int, is_pic, const char *, path,
			  uint64_t, pid_tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, baddr, baddr)
		lttng_ust_field_integer(uint64_t, memsz, memsz)
		lttng_ust_field_sequence_hex(uint8_t, build_id, build_id, uint8_t, build_id_len)
		lttng_ust_field_integer(uint8_t, is_pic, is_pic)
		lttng_ust_field_string(path, path)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, bin_info, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* ---- thread names ------------------------------------------------------- */

/* The emitting thread's name, before its events (see above). */
LTTNG_UST_TRACEPOINT_EVENT(slub, comm,
	LTTNG_UST_TP_ARGS(const char *, name, uint64_t, pid_tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, name)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, comm, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* ---- call stacks -------------------------------------------------------- */

/* The return addresses of the event `of` the same thread emitted just
 * before (innermost first). */
LTTNG_UST_TRACEPOINT_EVENT(slub, stack,
	LTTNG_UST_TP_ARGS(unsigned int, of, uint64_t, slab, const uint64_t *, ips,
			  unsigned int, depth, uint64_t, pid_tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(slub, event_type, uint8_t, of, of)
		lttng_ust_field_integer_hex(uint64_t, slab, slab)
		lttng_ust_field_sequence_hex(uint64_t, ips, ips, uint8_t, depth)
		SLUB_TP_PID_TID
	)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(slub, stack, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

#endif /* SLUB_TP_H */

#include <lttng/tracepoint-event.h>
