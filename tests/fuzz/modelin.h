/* SPDX-License-Identifier: MIT */
/*
 * The model fuzz input (tests/fuzz/README.md, "model input"): a header of
 * four configuration bytes, then records, each an operation byte and its
 * body.  Read by fuzz_model, written from decoded traces by mkseeds.
 *
 * Addresses are compact: slab n (1..255) of a record is at MI_SLAB(n), a
 * freelist or an object is a slab number and an offset from it (slab 0:
 * the offset is the address), so that mutations keep objects inside slabs.
 */
#ifndef SLUB_MODELIN_H
#define SLUB_MODELIN_H

#include <stdint.h>

#define MI_SLAB(n) ((n) ? 0x7f0000000000ull + ((uint64_t)(n) << 20) : 0)

/* operation byte, modulo 16 */
#define MI_OP_EVENT_LAST 11	/* 0..11: an event */
#define MI_OP_DISCARD 12	/* 12, 13 */
#define MI_OP_STACK 14
#define MI_OP_REGISTERED 15

/* The event types whose body carries the sheaf fields. */
#define MI_SHEAF_EVENT(t) ((t) >= SLUB_EV_SHEAF_REFILL && (t) <= SLUB_EV_SHEAF_FREE)

/* event flags */
#define MI_F_LOCKED 0x01
#define MI_F_CONTENDED 0x02
#define MI_F_OLD_VALID 0x04
#define MI_F_PROCNAME(f) (((f) >> 3) & 3)	/* none, "prog", "other", "prog-ust" */
#define MI_F_SCALE(f) ((((f) >> 5) & 3) * 10)	/* time delta << scale */

/* who: vpid 100..103, thread 0 is the main thread (vtid = vpid) */
#define MI_VPID(who) (100u + ((who) & 3))
#define MI_VTID(who) (((who) >> 2) ? MI_VPID(who) * 100 + ((who) >> 2) : MI_VPID(who))

/* Event body, in this order (little-endian):
 *   type u8 (modulo SLUB_EV_NR), who u8, stream u8 (& 3), flags u8,
 *   ts delta u16, cache_id u8, cpu i8, node i8, slot i8, site u8, list u8,
 *   reason u8, slab u8, freelist (slab u8, offset u32), counters u64,
 *   owner i8, old freelist (slab u8, offset u32), old counters u64,
 *   old owner i8, attempt u8, lock_id u16, lock_seq u32, wait_ns u16,
 *   hold_ns u16, object (slab u8, offset u32), size u16, count u16, pages u8,
 *   and for the sheaves generation's events (MI_SHEAF_EVENT) only: sheaf
 *   (slab u8, offset u32), spare (slab u8, offset u32), sheaf_size u16,
 *   spare_size u16, barn_full u8, barn_empty u8
 * cache_create's geometry comes from them (mkseeds and fuzz_model agree):
 *   object_size = size = size, align 8, order pages & 7, objects count,
 *   min_partial reason, cpu_partial attempt, flags lock_id, name by site & 3.
 * Discard: stream u8, flags u8 (bit 0 count known, bit 1 range known),
 *   count u16, begin back u16, end ahead u16 (both << scale of flags 5-6).
 * Stack: who u8, type u8, slab u8, nr u8 (% 72), nr ips of u32 each.
 * Registered: who u8, ts delta u16.
 */

#endif
