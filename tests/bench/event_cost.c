/* SPDX-License-Identifier: MIT */
/*
 * event_cost: the time one enabled `slub` event of each class costs, next
 * to a minimal LTTng-UST event (one integer field, slub_bench:minimal)
 * emitted by this program into the same session, so that the ratio says
 * what the slub payload adds to LTTng's own fixed cost.
 *
 * Each class is timed through slub_trace_emit(), the function the
 * allocator calls once slub_tp_enabled() said yes: the event is built once,
 * outside the loop, as the allocator has it built by then.  Runs are
 * interleaved: every repetition times every class once; medians of thread
 * CPU time per event.
 *
 * The first pass through a ring buffer costs about twice what the later
 * ones do (on a 2-cpu VM: 160-260 ns for the minimal event until its
 * buffer had been written once, 90-120 ns after), and that extra cost
 * follows the bytes written more than the fields.  -w MIB writes that
 * much with the minimal event before anything is timed, on the one cpu
 * the program is pinned to, so that every repetition measures the same,
 * steady state: give it at least the channel's size per cpu (run_bench.py
 * does).  Without -w, the first repetitions are first passes.
 *
 * Two yardsticks follow the minimal event: the slab-word payload (25
 * bytes: three words and a byte) as the four fields format 10 writes, and
 * as one array of the three words and the byte: two ring-buffer writes
 * instead of four, what a packed slab-word class would cost.
 *
 * Needs libslub-tp.so preloaded (the `slub` probes) and a session enabling
 * slub:* and slub_bench:* (tests/bench/run_bench.py sets one up beside the
 * benchmarks).  Without a session, every figure is the disabled-tracepoint
 * cost.
 *
 *   event_cost [-n EVENTS] [-r REPETITIONS] [-w MIB] [-M]
 */
#include <stdbool.h>

#include "bench.h"	/* first: it defines _GNU_SOURCE */
#include "../../src/trace.h"

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "event_cost_tp.h"

struct ev_class {
	const char *name;	/* the class, as slub_tp.h names it */
	const char *event;	/* the event timed for it */
	struct slub_event ev;
};

static struct slub_cache_info info = {
	.name = "kmalloc-64", .object_size = 64, .size = 64, .align = 8, .order = 0,
	.objects = 64, .min_partial = 5, .cpu_partial = 30,
};

static void word(struct slub_word *w, uint32_t seq, uint32_t frozen, int32_t owner)
{
	w->freelist = 0x7f0000001040ull;
	w->inuse = 17;
	w->objects = 64;
	w->frozen = frozen;
	w->owner = owner;
	w->seq = seq;
}

static unsigned make_classes(struct ev_class *c)
{
	static const struct { const char *name; unsigned type; } tab[] = {
		{ "slab_word", SLUB_EV_FREE_REMOTE },
		{ "cmpxchg_fail", SLUB_EV_CMPXCHG_FAIL },
		{ "cpu_cmpxchg_fail", SLUB_EV_CPU_CMPXCHG_FAIL },
		{ "cpu_slab", SLUB_EV_DEACTIVATE },
		{ "list_op", SLUB_EV_ADD_PARTIAL },
		{ "lock_acquire", SLUB_EV_LOCK_ACQUIRE },
		{ "lock_release", SLUB_EV_LOCK_RELEASE },
		{ "thread_flush", SLUB_EV_THREAD_FLUSH },
		{ "object", SLUB_EV_FREE },
		{ "cache_create", SLUB_EV_CACHE_CREATE },
		{ "error", SLUB_EV_ERROR },
	};
	unsigned n = sizeof(tab) / sizeof(tab[0]);

	for (unsigned i = 0; i < n; i++) {
		struct slub_event *e = &c[i].ev;

		memset(e, 0, sizeof(*e));
		c[i].name = tab[i].name;
		c[i].event = slub_event_name(tab[i].type);
		e->type = tab[i].type;
		e->cache_id = 6;
		e->cpu = 3;
		e->slot = tab[i].type == SLUB_EV_DEACTIVATE || tab[i].type == SLUB_EV_THREAD_FLUSH ?
				  3 : -1;
		e->node = 0;
		e->slab = 0x7f0000001000ull;
		e->site = SLUB_SITE_SLAB_FREE;
		e->locked = 1;
		e->list = SLUB_DEST_TAIL;
		e->attempt = 1;
		e->lock_id = 6 * 64;
		e->lock_seq = 123456;
		e->wait_ns = 1500;
		e->hold_ns = 800;
		e->object = 0x7f0000001080ull;
		e->size = 64;
		e->count = 12;
		e->pages = 2;
		e->info = &info;
		e->msg = "Object already free";
		word(&e->old, 41, 1, 3);
		word(&e->new, 42, 1, 3);
	}
	return n;
}

/* Thread CPU time: on a shared machine, wall time would count the other
 * runnable threads' turns as the tracer's cost. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define MAX_CLASSES 16
#define MAX_REPS 64

int main(int argc, char **argv)
{
	static struct ev_class classes[MAX_CLASSES];
	static double t[MAX_CLASSES + 1][MAX_REPS];
	static double yard[2][MAX_REPS];
	unsigned long n = 20000, reps = 7, warm_mib = 0;
	unsigned nc;
	int o;

	while ((o = getopt(argc, argv, "n:r:w:Mh")) != -1) {
		switch (o) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'r': reps = strtoul(optarg, NULL, 0); break;
		case 'w': warm_mib = strtoul(optarg, NULL, 0); break;
		case 'M': bench_machine = 1; break;
		default:
			fprintf(stderr,
				"usage: event_cost [-n EVENTS] [-r REPETITIONS] [-w MIB] [-M]\n");
			return o == 'h' ? 0 : 2;
		}
	}
	if (!n || !reps || reps > MAX_REPS)
		return 2;
	slub_trace_init();	/* SLUBTRACE_STACKS: none unless asked for */
	nc = make_classes(classes);
	if (warm_mib) {
		/* One cpu, one ring buffer: the one warmed up.  A minimal event
		 * takes 33 bytes with its compact header and the contexts
		 * (procname is 17), so 32 per event writes at least MIB. */
		unsigned long warm = warm_mib << 15;

		bench_pin(sched_getcpu());
		for (unsigned long i = 0; i < warm; i++)
			lttng_ust_tracepoint(slub_bench, minimal, (int)i);
	}

	for (unsigned long r = 0; r < reps; r++) {
		uint64_t t0, t1, w[3] = { 0x3, 0x7f0aa48e0001400ull, 0x1080100005ull };

		t0 = cpu_ns();
		for (unsigned long i = 0; i < n; i++)
			lttng_ust_tracepoint(slub_bench, minimal, (int)i);
		t1 = cpu_ns();
		t[0][r] = (double)(t1 - t0) / (double)n;
		t0 = cpu_ns();
		for (unsigned long i = 0; i < n; i++) {
			w[2] = i;
			lttng_ust_tracepoint(slub_bench, four_fields, w, 6);
		}
		t1 = cpu_ns();
		yard[0][r] = (double)(t1 - t0) / (double)n;
		t0 = cpu_ns();
		for (unsigned long i = 0; i < n; i++) {
			w[2] = i;
			lttng_ust_tracepoint(slub_bench, packed, w, 6);
		}
		t1 = cpu_ns();
		yard[1][r] = (double)(t1 - t0) / (double)n;
		for (unsigned c = 0; c < nc; c++) {
			struct slub_event *e = &classes[c].ev;

			t0 = cpu_ns();
			for (unsigned long i = 0; i < n; i++) {
				e->new.seq = (uint32_t)i;
				slub_trace_emit(e);
			}
			t1 = cpu_ns();
			t[c + 1][r] = (double)(t1 - t0) / (double)n;
		}
	}
	for (unsigned c = 0; c <= nc; c++)
		qsort(t[c], reps, sizeof(double), cmp_double);
	for (unsigned c = 0; c < 2; c++)
		qsort(yard[c], reps, sizeof(double), cmp_double);

	printf("%-18s %-18s %10s %8s\n", "class", "event", "ns/event", "ratio");
	printf("%-18s %-18s %10.1f %8.2f\n", "minimal", "slub_bench:minimal", t[0][reps / 2], 1.0);
	if (bench_machine)
		printf("@ev.minimal.ns %.2f\n", t[0][reps / 2]);
	printf("%-18s %-18s %10.1f %8.2f\n", "yardstick", "slub_bench:four_fields",
	       yard[0][reps / 2], yard[0][reps / 2] / t[0][reps / 2]);
	printf("%-18s %-18s %10.1f %8.2f\n", "yardstick", "slub_bench:packed", yard[1][reps / 2],
	       yard[1][reps / 2] / t[0][reps / 2]);
	if (bench_machine) {
		printf("@ev.four_fields.ns %.2f\n", yard[0][reps / 2]);
		printf("@ev.packed.ns %.2f\n", yard[1][reps / 2]);
	}
	for (unsigned c = 0; c < nc; c++) {
		double ns = t[c + 1][reps / 2];

		printf("%-18s %-18s %10.1f %8.2f\n", classes[c].name, classes[c].event, ns,
		       ns / t[0][reps / 2]);
		if (bench_machine)
			printf("@ev.%s.ns %.2f\n", classes[c].name, ns);
	}
	return 0;
}
