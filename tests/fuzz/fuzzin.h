/* SPDX-License-Identifier: MIT */
/*
 * The fuzz targets' input: a byte reader that answers zeros past the end
 * (every input is a whole input), and the dictionaries of names the
 * decode input may pick by number (tests/fuzz/README.md).
 */
#ifndef SLUB_FUZZIN_H
#define SLUB_FUZZIN_H

#include <stddef.h>
#include <stdint.h>

struct fz_reader {
	const uint8_t *p, *end;
};

static inline void fz_init(struct fz_reader *r, const uint8_t *data, size_t size)
{
	r->p = data;
	r->end = data + size;
}

static inline int fz_end(const struct fz_reader *r)
{
	return r->p >= r->end;
}

static inline unsigned fz_u8(struct fz_reader *r)
{
	return r->p < r->end ? *r->p++ : 0;
}

/* n bytes into buf; zeros past the end. */
void fz_bytes(struct fz_reader *r, void *buf, size_t n);
/* little-endian */
unsigned fz_u16(struct fz_reader *r);
uint32_t fz_u32(struct fz_reader *r);
uint64_t fz_u64(struct fz_reader *r);
/* An integer of bits (8, 16, 32, 64) in bits / 8 bytes, sign-extended
 * when is_signed. */
uint64_t fz_int(struct fz_reader *r, unsigned bits, int is_signed);

/* Event names: "slub:" + every event type, slub:stack, lttng-ust's
 * statedump, dl and lib events, one of another provider; i wraps. */
const char *fz_event_name(unsigned i);
/* Payload field names of the wire formats (tracepoints/slub_tp.h) and of
 * lttng-ust's events. */
#define FZ_NR_FIELD_NAMES 53
const char *fz_field_name(unsigned i);

#endif
