/* SPDX-License-Identifier: MIT */
/*
 * Event scripts for the scripted source (testsrc.h) in slubtrace's wire
 * format 4 (and 11, 10, 3 and 2): the event classes, one deterministic life of a
 * slab and a retry storm.
 */
#ifndef SLUB_TEST_SCRIPTS_H
#define SLUB_TEST_SCRIPTS_H

#include "testsrc.h"

/* Event classes of wire formats 4, 3 and 2 (tracepoints/slub_tp.h), and a
 * few others. */
enum {
	W_CACHE_CREATE, W_SLAB_NEW, W_SLAB_DISCARD, W_FREEZE, W_UNFREEZE, W_TAKE_FREELIST,
	W_FREE_REMOTE, W_CPU_SLAB_LOAD, W_DEACTIVATE, W_ADD_PARTIAL, W_REMOVE_PARTIAL,
	W_LOCK_ACQUIRE, W_LOCK_RELEASE, W_STACK, W_BIN_INFO, W_OTHER, W_CMPXCHG_FAIL, W_ERROR,
	W_NR
};
extern const struct ts_class wire_v11[W_NR], wire_v10[W_NR], wire_v4[W_NR], wire_v3[W_NR], wire_v2[W_NR];

/* Variations of the life of slab LIFE_SLAB (script_life()). */
enum life_variant {
	LIFE_CLEAN,
	LIFE_LOST_UPDATE,	/* one slab-word update never reaches the trace */
	LIFE_LOST_NOTICED,	/* the same, with a discarded-events notice */
	LIFE_LOST_FOREIGN,	/* the same, the notice from a second stream of
				 * LTTng-UST's own events only (record's
				 * statedump channel) */
	LIFE_LOST_STACK,	/* LOST_UPDATE, the event after the gap with a stack */
	LIFE_OTHER_ONLY,	/* events of another provider only */
};

#define LIFE_SLAB 0x7f0000010000ull
#define LIFE_VPID 4242

/* Fills s (static storage: one script at a time), in wire format 4.  ip:
 * the return address the LOST_STACK stack holds; base/size/path: the
 * object holding it. */
void script_life(struct ts_script *s, enum life_variant v, uint64_t ip, uint64_t base,
		 uint64_t size, const char *path);
/* The same in wire format 11, 10, 4, 3 or 2: the same values in each. */
void script_life_format(struct ts_script *s, unsigned format, enum life_variant v,
			uint64_t ip, uint64_t base, uint64_t size, const char *path);

/*
 * Two processes of one trace, each with a cache of its own: process
 * MIXED_VPID_A ("alpha") lives the clean life in cache "test-64", then
 * process MIXED_VPID_B ("beta") the lost-update life in cache "other-64";
 * each cache is announced by its process's main thread (whose events
 * carry the process's name).  For the cache and procname filters.
 */
#define MIXED_VPID_A 4242
#define MIXED_VPID_B 4343
void script_mixed(struct ts_script *s);

/*
 * A retry storm on slab STORM_SLAB, in wire format 4: thread 11 frees
 * into slot 0's frozen slab and loses its CAS five times running, each
 * time to a remote free by thread 12 or 13 whose seq is the one it
 * observed; then a list_lock hold by thread 14 around a locked redo
 * retried under the lock it kept; last, thread 11 frees an object twice
 * (an error).  For the golden stats and storms.
 */
#define STORM_SLAB 0x7f0000020000ull
void script_storm(struct ts_script *s);
/* The same in wire format 11, 10, 4 or 3: the same values in each. */
void script_storm_format(struct ts_script *s, unsigned format);

#endif /* SLUB_TEST_SCRIPTS_H */
