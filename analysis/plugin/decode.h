/* SPDX-License-Identifier: MIT */
/*
 * The CTF decoder: Babeltrace2 messages of a slubtrace trace (wire formats
 * 2 to 12, tracepoints/slub_tp.h) into the model's input.
 *
 * Field indices are resolved once per event class; events of other
 * providers are skipped, except the lttng_ust_statedump / lttng_ust_dl /
 * lttng_ust_lib events, which go to the symbolizer when one is given.
 * Every problem (format 1, a missing or mistyped field) is reported once
 * with the event name and the stream through the error-cause API.
 */
#ifndef SLUB_PLUGIN_DECODE_H
#define SLUB_PLUGIN_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "model/slub_model.h"
#include "slub-plugin.h"

struct slub_symbolizer;
struct slub_decoder;

#define SLUB_DEC_MAX_IPS 255
/* The newest wire format read (SLUB_TRACE_FORMAT); from 2 on. */
#define SLUB_DEC_FORMAT 12
/* The first format with the sheaf and barn events. */
#define SLUB_FORMAT_SHEAF_EVENTS 7
/* The first format with sheaf_alloc and sheaf_free. */
#define SLUB_FORMAT_SHEAF_LIFE 8

enum slub_dec_kind {
	SLUB_DEC_NONE = 0,	/* nothing for the model (other provider, packet, ...) */
	SLUB_DEC_EVENT,		/* out->event */
	SLUB_DEC_STACK,		/* out->stack_* */
	SLUB_DEC_DISCARD,	/* out->discard */
	SLUB_DEC_REGISTER,	/* out->reg_*: a process registered (its statedump starts) */
};

struct slub_decoded {
	enum slub_dec_kind kind;
	struct slub_model_event event;
	/* the acting thread's name for every event: LTTng's procname context
	 * (valid until the next message), or from format 9 on the name the
	 * thread's last slub:comm gave (valid for the decoder's life); NULL
	 * when neither is known */
	const char *thread_name;
	struct slub_cache_info info;	/* event.ev.info points here (cache_create) */
	uint32_t format;		/* cache_create: the wire format it says */
	/* slub:stack */
	uint32_t stack_vpid, stack_vtid, stack_of;
	uint64_t stack_stream_id;
	uint64_t stack_slab;
	uint32_t stack_nr;
	uint64_t stack_ips[SLUB_DEC_MAX_IPS];
	struct slub_model_discard discard;
	/* lttng_ust_statedump:start: the process registered with the session
	 * daemon; a forked child's events between fork() and this point may
	 * be missing without any discarded-events notice. */
	uint32_t reg_vpid;
	uint64_t reg_ts;
};

/*
 * self: the component errors are reported for.  sym may be NULL (no
 * symbolization: the bin_info events are then skipped).
 */
struct slub_decoder *slub_decoder_create(bt_self_component *self, struct slub_symbolizer *sym);
void slub_decoder_destroy(struct slub_decoder *d);

/*
 * Decodes one message into out.  Returns 0 (out->kind says what it was) or
 * -1 when the input is unusable: an error cause is appended and the reason
 * is kept (slub_decoder_unusable()).
 */
int slub_decoder_message(struct slub_decoder *d, const bt_message *msg, struct slub_decoded *out);

/* The first reason the input was refused, "" if none; its kind. */
struct slub_log;
/* Log through the sink's logging state (log.h); NULL: nothing. */
void slub_decoder_set_log(struct slub_decoder *d, const struct slub_log *log);
/* A stream of the input has slub:* event classes (whether or not any
 * of their events came). */
bool slub_decoder_saw_slub_classes(const struct slub_decoder *d);
const char *slub_decoder_error(const struct slub_decoder *d, enum slub_plugin_unusable *kind);
/* slub events decoded so far; streams seen. */
uint64_t slub_decoder_events(const struct slub_decoder *d);
/* Streams and event classes held as keys: those of traces (and trace
 * classes) not destroyed yet. */
size_t slub_decoder_keys(const struct slub_decoder *d);
/* The name of the stream of that id (its file for src.ctf.fs). */
const char *slub_decoder_stream_name(const struct slub_decoder *d, uint64_t stream_id);
/* The trace directory of the first stream seen, or NULL. */
const char *slub_decoder_trace_dir(const struct slub_decoder *d);

/*
 * Hosts.  Traces of several machines read together (several live sessions
 * of a relay, or a relay's output directory) may use the same vpid, cache
 * id and slab address for different things.  The decoder tells hosts
 * apart by the trace environment's `hostname` (set by the session daemon)
 * and numbers them in the order they appear; every vpid it hands on
 * (event, stack, registration, symbolizer) carries that number above the
 * pid, so that whatever is keyed by vpid is keyed by host too.  Linux pids
 * are below 2^22 (PID_MAX_LIMIT); the first host is number 0, so a trace
 * of one host decodes to its own vpids.
 */
#define SLUB_DEC_HOST_SHIFT 22
#define SLUB_DEC_MAX_HOSTS (1u << (32 - SLUB_DEC_HOST_SHIFT))
static inline uint32_t slub_dec_pid(uint32_t vpid)
{
	return vpid & ((1u << SLUB_DEC_HOST_SHIFT) - 1);
}
static inline uint32_t slub_dec_host(uint32_t vpid)
{
	return vpid >> SLUB_DEC_HOST_SHIFT;
}
/* Hosts seen so far; the name of host i ("?" when its trace has none). */
uint32_t slub_decoder_hosts(const struct slub_decoder *d);
const char *slub_decoder_host_name(const struct slub_decoder *d, uint32_t i);
/* The host number of the stream of that id. */
uint32_t slub_decoder_stream_host(const struct slub_decoder *d, uint64_t stream_id);

#endif /* SLUB_PLUGIN_DECODE_H */
