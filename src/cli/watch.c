/* SPDX-License-Identifier: MIT */
/*
 * What the graph is reading, kept where a fatal signal or a stall can tell
 * it: Babeltrace's CTF decoder runs in this process, and some corrupted
 * inputs crash it (a sequence length it trusts) or make it wait for ever.
 * The user must still get one line naming the trace, the stream file and
 * what was being read, and exit status 2.
 *
 * One filter.slubtrace.watch sits between each output port of src.ctf.fs
 * (one port per stream file) and the muxer.  It forwards the upstream
 * batches as they are and, around each pull, records which stream is
 * being decoded, how many of its packets began and its last event (name
 * and time), all in this process's own memory.  The handlers of SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL and SIGABRT (on their own stack) and a watchdog
 * thread (no batch for SLUBTRACE_STALL_TIMEOUT seconds, 120 by default,
 * while the graph is being built or run and its thread is runnable, not
 * waiting in a system call) print it with write(2) and _exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "cli.h"

struct watch_stream {
	char file[4096];	/* the stream file (the source's port name) */
	uint64_t packets;	/* packet beginnings seen */
	char event[128];	/* the last event passed on */
	uint64_t event_ns;	/* its time, ns from origin */
	bool has_event, has_ns, named;
};

/* Lives in the component: upstream iterator, and leftovers when a batch
 * is larger than the downstream capacity. */
struct watch_iter {
	bt_message_iterator *up;
	struct watch_stream *st;
	const bt_message *spill[64];
	uint64_t nr_spill, spill_at;
};

static struct {
	const char *trace;			/* what the command was given */
	struct watch_stream *volatile current;	/* the stream being pulled */
	volatile sig_atomic_t in_source;	/* inside its decoder */
	bool source_failed;			/* it returned an error */
	volatile sig_atomic_t phase;		/* 0 idle, 1 building, 2 running */
	atomic_uint_fast64_t progress;		/* batches pulled */
	uint64_t begin_ns, end_ns;		/* drop events outside (a snapshot) */
	unsigned int stall_s;
	pthread_t thread;
	pid_t tid;				/* the graph's thread */
	bool thread_started;
	char altstack[64 * 1024];
	struct sigaction old[5];
} watch;

static const int watch_signals[5] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

/* ---- async-signal-safe text ------------------------------------------ */

struct line {
	char b[8192];
	size_t n;
};

static void put(struct line *l, const char *s)
{
	while (s && *s && l->n < sizeof(l->b) - 2)
		l->b[l->n++] = *s++;
}

static void put_u(struct line *l, uint64_t v)
{
	char t[24];
	int i = sizeof(t) - 1;

	t[i] = '\0';
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	put(l, t + i);
}

/* "stream file F, packet N or later, after its event E at S.NNNNNNNNN s":
 * the decoder hands events on a batch at a time, so the one it was
 * decoding is one of the next few of that stream. */
static void put_where(struct line *l)
{
	struct watch_stream *s = watch.current;

	if (!s) {
		put(l, watch.phase == 1 ? "opening the trace (its metadata and indexes)" :
		    "before the first stream was read");
		return;
	}
	put(l, watch.in_source ? "reading stream file " : "after reading stream file ");
	put(l, s->file);
	if (s->packets) {
		put(l, ", packet ");
		put_u(l, s->packets);
		put(l, " or later");
	}
	if (s->has_event) {
		put(l, ", after its event ");
		put(l, s->event);
		if (s->has_ns) {
			char frac[10];
			uint64_t ns = s->event_ns % 1000000000u;

			put(l, " at ");
			put_u(l, s->event_ns / 1000000000u);
			for (int i = 8; i >= 0; i--) {
				frac[i] = (char)('0' + ns % 10);
				ns /= 10;
			}
			frac[9] = '\0';
			put(l, ".");
			put(l, frac);
			put(l, " s");
		}
	} else {
		put(l, ", in its first events");
	}
}

static void say_and_exit(struct line *l)
{
	ssize_t r;

	l->b[l->n++] = '\n';
	for (size_t o = 0; o < l->n; o += (size_t)r) {
		r = write(STDERR_FILENO, l->b + o, l->n - o);
		if (r <= 0)
			break;
	}
	_exit(CLI_EXIT_USAGE);
}

/* In Babeltrace's code: opening the trace, or pulling from a stream. */
static bool in_babeltrace(void)
{
	return watch.in_source || watch.phase == 1;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	}
	return "a signal";
}

static void on_fatal(int sig)
{
	static volatile sig_atomic_t nested;
	struct line l = { .n = 0 };

	put(&l, cli_progname);
	put(&l, ": ");
	put(&l, watch.trace);
	if (nested++) {
		/* Faulted while reading the state: say the least. */
		put(&l, ": crashed while reading the trace");
		say_and_exit(&l);
	}
	if (in_babeltrace())
		put(&l, ": Babeltrace's CTF reader crashed (");
	else
		put(&l, ": crashed (");
	put(&l, signame(sig));
	put(&l, ") ");
	put_where(&l);
	put(&l, in_babeltrace() ? ": the trace is corrupted" :
	    ": a fault of slubtrace, please report it");
	say_and_exit(&l);
}

/* Whether the graph's thread is on a CPU or waiting for one (state R of
 * /proc/self/task/TID/stat), not sleeping in a system call. */
static bool graph_thread_runs(void)
{
	char path[64], buf[512];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)watch.tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'R';
}

/*
 * A stall is no batch pulled for stall_s seconds while the graph's thread
 * is runnable in most of them (what the hangs met so far do: a reader or
 * the model spinning; on a loaded machine it may get little CPU, but it
 * stays runnable).  A thread blocked, on a full pipe to a pager for one,
 * waits for someone else: that window starts again.
 */
static void *watchdog(void *arg)
{
	uint64_t seen = atomic_load(&watch.progress);
	unsigned int still = 0, running = 0;

	(void)arg;
	for (;;) {
		struct timespec ts = { 1, 0 };
		uint64_t now;

		nanosleep(&ts, NULL);
		now = atomic_load(&watch.progress);
		if (now != seen || !watch.phase) {
			seen = now;
			still = running = 0;
			continue;
		}
		running += graph_thread_runs();
		if (++still < watch.stall_s)
			continue;
		if (running * 2 < still) {
			still = running = 0;
			continue;
		}
		struct line l = { .n = 0 };

		put(&l, cli_progname);
		put(&l, ": ");
		put(&l, watch.trace);
		put(&l, ": no progress for ");
		put_u(&l, watch.stall_s);
		put(&l, in_babeltrace() ? " s in Babeltrace's CTF reader, " : " s in the analysis, ");
		put_where(&l);
		put(&l, in_babeltrace() ? ": the trace is corrupted" :
		    ": it hangs, please report it");
		say_and_exit(&l);
	}
	return NULL;
}

void cli_watch_start(const char *trace)
{
	stack_t ss = { .ss_sp = watch.altstack, .ss_size = sizeof(watch.altstack) };
	struct sigaction sa;
	const char *env = getenv("SLUBTRACE_STALL_TIMEOUT");

	watch.trace = trace;
	watch.tid = gettid();
	watch.current = NULL;
	watch.in_source = 0;
	watch.source_failed = false;
	watch.phase = 1;
	watch.stall_s = 120;
	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);

		if (!*end && v > 0 && v < 1000000)
			watch.stall_s = (unsigned int)v;
	}
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 5; i++)
		sigaction(watch_signals[i], &sa, &watch.old[i]);
	if (!watch.thread_started) {
		sigset_t all, old;


		/* The watchdog takes no signal meant for the process. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		watch.thread_started = pthread_create(&watch.thread, NULL, watchdog, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (watch.thread_started)
			pthread_detach(watch.thread);
	}
}

void cli_watch_window(uint64_t begin, uint64_t end)
{
	watch.begin_ns = begin;
	watch.end_ns = end;
}

/* Whether m is an event or a discarded-events/packets record outside
 * [watch.begin_ns, watch.end_ns]: a snapshot's streams are not all
 * complete there. */
static bool outside_window(const bt_message *m)
{
	const bt_clock_snapshot *cs;
	int64_t ns;

	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_EVENT:
		if (!bt_message_event_borrow_stream_class_default_clock_class_const(m))
			return false;
		cs = bt_message_event_borrow_default_clock_snapshot_const(m);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (!bt_stream_class_discarded_events_have_default_clock_snapshots(
			    bt_stream_borrow_class_const(
				    bt_message_discarded_events_borrow_stream_const(m))))
			return false;
		cs = bt_message_discarded_events_borrow_end_default_clock_snapshot_const(m);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		if (!bt_stream_class_discarded_packets_have_default_clock_snapshots(
			    bt_stream_borrow_class_const(
				    bt_message_discarded_packets_borrow_stream_const(m))))
			return false;
		cs = bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(m);
		break;
	default:
		return false;
	}
	return bt_clock_snapshot_get_ns_from_origin(cs, &ns) ==
		BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK && ns >= 0 &&
		((uint64_t)ns < watch.begin_ns || (uint64_t)ns > watch.end_ns);
}

void cli_watch_running(void)
{
	watch.phase = 2;
	atomic_fetch_add(&watch.progress, 1);
}

void cli_watch_stop(void)
{
	watch.phase = 0;
	watch.begin_ns = watch.end_ns = 0;
	watch.current = NULL;
	for (size_t i = 0; i < 5; i++)
		sigaction(watch_signals[i], &watch.old[i], NULL);
}

/* ---- filter.slubtrace.watch -------------------------------------------- */

static bt_component_class_initialize_method_status
watch_init(bt_self_component_filter *self, bt_self_component_filter_configuration *config,
	   const bt_value *params, void *data)
{
	struct watch_stream *st = calloc(1, sizeof(*st));

	(void)config;
	(void)params;
	if (!st)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	snprintf(st->file, sizeof(st->file), "%s", data ? (const char *)data : "?");
	bt_self_component_set_data(bt_self_component_filter_as_self_component(self), st);
	if (bt_self_component_filter_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		free(st);
		bt_self_component_set_data(bt_self_component_filter_as_self_component(self), NULL);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void watch_fini(bt_self_component_filter *self)
{
	struct watch_stream *st =
		bt_self_component_get_data(bt_self_component_filter_as_self_component(self));

	if (watch.current == st)
		watch.current = NULL;
	free(st);
}

static bt_message_iterator_class_initialize_method_status
watch_iter_init(bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port)
{
	bt_self_component *comp = bt_self_message_iterator_borrow_component(self);
	/* The filter's self component (the API's casts are pointer casts). */
	bt_self_component_filter *flt = (bt_self_component_filter *)comp;
	struct watch_iter *it = calloc(1, sizeof(*it));

	(void)config;
	(void)port;
	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->st = bt_self_component_get_data(comp);
	if (bt_message_iterator_create_from_message_iterator(self,
			bt_self_component_filter_borrow_input_port_by_index(flt, 0), &it->up) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
		free(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void watch_iter_fini(bt_self_message_iterator *self)
{
	struct watch_iter *it = bt_self_message_iterator_get_data(self);

	if (!it)
		return;
	for (uint64_t i = it->spill_at; i < it->nr_spill; i++)
		bt_message_put_ref(it->spill[i]);
	bt_message_iterator_put_ref(it->up);
	free(it);
}

static void note(struct watch_stream *st, const bt_message *m)
{
	const bt_event *ev = bt_message_event_borrow_event_const(m);
	const char *name = bt_event_class_get_name(bt_event_borrow_class_const(ev));
	int64_t ns;

	snprintf(st->event, sizeof(st->event), "%s", name ? name : "(unnamed)");
	st->has_event = true;
	st->has_ns = bt_message_event_borrow_stream_class_default_clock_class_const(m) &&
		bt_clock_snapshot_get_ns_from_origin(
			bt_message_event_borrow_default_clock_snapshot_const(m), &ns) ==
		BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK && ns >= 0;
	if (st->has_ns)
		st->event_ns = (uint64_t)ns;
}

static bt_message_iterator_class_next_method_status
watch_next(bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
	   uint64_t *count)
{
	struct watch_iter *it = bt_self_message_iterator_get_data(self);
	struct watch_stream *st = it->st;
	bt_message_array_const in;
	uint64_t n = 0, last_event = UINT64_MAX;
	bt_message_iterator_next_status status;

	if (it->spill_at < it->nr_spill) {
		while (n < capacity && it->spill_at < it->nr_spill)
			msgs[n++] = it->spill[it->spill_at++];
		*count = n;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}
	watch.current = st;
	watch.in_source = 1;
	status = bt_message_iterator_next(it->up, &in, &n);
	watch.in_source = 0;
	atomic_fetch_add_explicit(&watch.progress, 1, memory_order_relaxed);
	switch (status) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	default:
		watch.source_failed = true;
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < n; i++) {
		bt_message_type t = bt_message_get_type(in[i]);

		if (t == BT_MESSAGE_TYPE_EVENT)
			last_event = i;
		else if (t == BT_MESSAGE_TYPE_PACKET_BEGINNING)
			st->packets++;
		else if (t == BT_MESSAGE_TYPE_STREAM_BEGINNING && !st->named) {
			/* src.ctf.fs names the stream after its (first) file. */
			const char *name = bt_stream_get_name(
				bt_message_stream_beginning_borrow_stream_const(in[i]));

			if (name && strchr(name, '/'))
				snprintf(st->file, sizeof(st->file), "%s", name);
			st->named = true;
		}
	}
	if (last_event != UINT64_MAX)
		note(st, in[last_event]);
	if (watch.begin_ns) {
		uint64_t kept = 0;

		for (uint64_t i = 0; i < n; i++) {
			if (outside_window(in[i]))
				bt_message_put_ref(in[i]);
			else
				in[kept++] = in[i];
		}
		n = kept;
		if (!n)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	}
	if (n > capacity + sizeof(it->spill) / sizeof(it->spill[0]))
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	for (uint64_t i = 0; i < n; i++) {
		if (i < capacity)
			msgs[i] = in[i];
		else
			it->spill[i - capacity] = in[i];
	}
	it->spill_at = 0;
	it->nr_spill = n > capacity ? n - capacity : 0;
	*count = n < capacity ? n : capacity;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

bt_component_class_filter *cli_watch_class(void)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(watch_next);
	bt_component_class_filter *fc = NULL;

	if (!ic)
		return NULL;
	if (bt_message_iterator_class_set_initialize_method(ic, watch_iter_init) ||
	    bt_message_iterator_class_set_finalize_method(ic, watch_iter_fini))
		goto out;
	fc = bt_component_class_filter_create("watch", ic);
	if (fc && (bt_component_class_filter_set_initialize_method(fc, watch_init) ||
		   bt_component_class_filter_set_finalize_method(fc, watch_fini))) {
		bt_component_class_filter_put_ref(fc);
		fc = NULL;
	}
out:
	bt_message_iterator_class_put_ref(ic);
	return fc;
}

void cli_watch_where(char *buf, size_t len, bool last_pulled)
{
	struct line l = { .n = 0 };

	if (!len)
		return;
	buf[0] = '\0';
	if (!watch.current || !(watch.source_failed || last_pulled))
		return;
	put_where(&l);
	l.b[l.n] = '\0';
	snprintf(buf, len, "%s", l.b);
}
