// SPDX-License-Identifier: MIT
/*
 * test_dwcas: the slab word (freelist + counters) under heavy contention,
 * with whichever implementation the build selected: lock cmpxchg16b, or
 * the per-slab lock fallback (SLUB_DWCAS=OFF).
 *
 * 1. The primitive alone (src/platform.h): threads push single objects
 *    onto one word's freelist as __slab_free does, pop single objects as
 *    the allocation fast path does, and take the whole list as
 *    get_freelist does.  Afterwards every object is either held by exactly
 *    one thread or on the list exactly once, inuse matches, and seq equals
 *    the number of successful updates.
 * 2. Snapshots: writers store a freelist value derived from the new seq;
 *    readers check that slub_dword_read() never returns a torn pair.
 * 3. Through the allocator: the objects of a few slabs freed at once by
 *    many threads (remote frees into one slab word); an observer records
 *    every update of those slabs and the seq chain must be unbroken; the
 *    objects come back exactly once; the free counters agree with the
 *    events (FREE_FROZEN too, counted by the first CAS into a frozen slab
 *    and by the general loop after a lost CAS).  Repeated with the
 *    widened race window.
 *    Shrinking the emptied cache discards every slab it still has.
 * 4. The futex lock keeps errno: a thread waiting for a list_lock in free()
 *    is interrupted by signals (its futex wait fails with EINTR) and its
 *    errno must come out of free() as it went in.
 *
 *   test_dwcas [-t threads] [-r rounds]
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <slub/slub.h>

#include "platform.h"
#include "testutil.h"

static long nthreads = 8;
static long rounds = 60;

/* counters as the allocator packs them: inuse:16 objects:15 frozen:1 | seq:32 */
#define C_INUSE(c)   ((uint32_t)((c) & 0xffff))
#define C_OBJECTS(c) ((uint32_t)(((c) >> 16) & 0x7fff))
#define C_SEQ(c)     ((uint32_t)((c) >> 32))
#define C_MAKE(inuse, objects, seq) \
	((uint64_t)(inuse) | (uint64_t)(objects) << 16 | (uint64_t)(seq) << 32)

/* ---- 1. the primitive ---- */

#define NOBJ 512
#define OPS_PER_THREAD 200000

struct fobj {
	struct fobj *next; /* accessed atomically: racy by design, as in SLUB */
	uint32_t owner;    /* 0 free, else thread + 1 */
	uint32_t pad;
};

static struct fobj objs[NOBJ];
static struct slub_dword word;
static uint32_t word_lock;
static uint64_t updates, failures;

struct pworker {
	pthread_t th;
	int id;
	uint64_t rng;
	int n;
	struct fobj *held[NOBJ];
	uint64_t updates, failures;
};

static void push(struct pworker *w, struct fobj *o)
{
	struct slub_dword old = slub_dword_read(&word), new;

	o->owner = 0;
	for (;;) {
		__atomic_store_n(&o->next, (struct fobj *)old.freelist, __ATOMIC_RELAXED);
		new.freelist = o;
		new.counters = C_MAKE(C_INUSE(old.counters) - 1, C_OBJECTS(old.counters),
				      C_SEQ(old.counters) + 1);
		if (slub_dwcas(&word, &old, new, &word_lock))
			break;
		w->failures++;
	}
	w->updates++;
}

static struct fobj *pop(struct pworker *w)
{
	struct slub_dword old = slub_dword_read(&word), new;
	struct fobj *o;

	for (;;) {
		o = old.freelist;
		if (!o)
			return NULL;
		/* o may be taken and pushed again meanwhile: then the seq moved
		 * and the CAS fails, whatever next we read. */
		new.freelist = __atomic_load_n(&o->next, __ATOMIC_RELAXED);
		new.counters = C_MAKE(C_INUSE(old.counters) + 1, C_OBJECTS(old.counters),
				      C_SEQ(old.counters) + 1);
		if (slub_dwcas(&word, &old, new, &word_lock))
			break;
		w->failures++;
	}
	w->updates++;
	return o;
}

static int take_all(struct pworker *w)
{
	struct slub_dword old = slub_dword_read(&word), new;
	struct fobj *o;
	int n = 0;

	for (;;) {
		if (!old.freelist)
			return 0;
		new.freelist = NULL;
		new.counters = C_MAKE(C_OBJECTS(old.counters), C_OBJECTS(old.counters),
				      C_SEQ(old.counters) + 1);
		if (slub_dwcas(&word, &old, new, &word_lock))
			break;
		w->failures++;
	}
	w->updates++;
	for (o = old.freelist; o; o = __atomic_load_n(&o->next, __ATOMIC_RELAXED)) {
		w->held[w->n++] = o;
		n++;
	}
	return n;
}

static void claim(struct pworker *w, struct fobj *o)
{
	if (o->owner)
		CHECK(0, "object %td taken by thread %d while held by thread %u", o - objs, w->id,
		      o->owner - 1);
	o->owner = w->id + 1;
}

static int pstart;

static void *pworker_main(void *arg)
{
	struct pworker *w = arg;

	/* Start together, so that the threads really overlap. */
	while (!__atomic_load_n(&pstart, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int i = 0; i < OPS_PER_THREAD; i++) {
		uint64_t r = test_rand(&w->rng);
		unsigned op = r % 16;

		/* Push what is held more eagerly than popping, so the list
		 * stays populated and every thread works on the one word. */
		if (op < 9 && w->n > 0) {
			int k = (r >> 8) % w->n;
			struct fobj *o = w->held[k];

			w->held[k] = w->held[--w->n];
			push(w, o);
		} else if (op < 14) {
			struct fobj *o = pop(w);

			if (o) {
				claim(w, o);
				w->held[w->n++] = o;
			}
		} else if (op == 14) {
			int before = w->n, n = take_all(w);

			for (int k = before; k < before + n; k++)
				claim(w, w->held[k]);
		}
	}
	return NULL;
}

static void test_primitive(void)
{
	struct pworker *ws = calloc(nthreads, sizeof(*ws));
	int seen[NOBJ] = { 0 };
	long on_list = 0, held = 0;
	uint64_t total_updates = 0, total_fail = 0;
	struct slub_dword fin;

	for (int i = 0; i < NOBJ; i++)
		objs[i].next = i + 1 < NOBJ ? &objs[i + 1] : NULL;
	word.freelist = &objs[0];
	word.counters = C_MAKE(0, NOBJ, 0);
	for (long t = 0; t < nthreads; t++) {
		ws[t].id = (int)t;
		ws[t].rng = test_seed(t, 99);
		pthread_create(&ws[t].th, NULL, pworker_main, &ws[t]);
	}
	__atomic_store_n(&pstart, 1, __ATOMIC_RELEASE);
	for (long t = 0; t < nthreads; t++) {
		pthread_join(ws[t].th, NULL);
		total_updates += ws[t].updates;
		total_fail += ws[t].failures;
		for (int k = 0; k < ws[t].n; k++) {
			struct fobj *o = ws[t].held[k];

			seen[o - objs]++;
			held++;
			CHECK(o->owner == (uint32_t)t + 1, "object %td held by %ld owned by %u",
			      o - objs, t, o->owner);
		}
	}
	fin = slub_dword_read(&word);
	for (struct fobj *o = fin.freelist; o && on_list <= NOBJ; o = o->next) {
		seen[o - objs]++;
		on_list++;
		CHECK(o->owner == 0, "object %td on the list but owned by %u", o - objs, o->owner);
	}
	for (int i = 0; i < NOBJ; i++)
		if (seen[i] != 1) {
			CHECK(0, "object %d accounted %d times (held or listed)", i, seen[i]);
			break;
		}
	CHECK_EQ(held + on_list, NOBJ);
	CHECK_EQ(C_INUSE(fin.counters), NOBJ - on_list);
	CHECK_EQ(C_OBJECTS(fin.counters), NOBJ);
	CHECK_EQ(C_SEQ(fin.counters), (uint32_t)total_updates);
	updates = total_updates;
	failures = total_fail;
	printf("primitive: %llu updates, %llu failed CAS, %ld listed, %ld held\n",
	       (unsigned long long)total_updates, (unsigned long long)total_fail, on_list, held);
	free(ws);
}

/* ---- 2. snapshots ---- */

#define SNAP_WRITES 100000
static struct slub_dword snap;
static uint32_t snap_lock;
static int snap_stop;
static unsigned long torn;

static inline void *snap_encode(uint32_t seq)
{
	return (void *)(uintptr_t)(0x100000ull + (uint64_t)seq * 16);
}

static void *snap_writer(void *arg)
{
	for (int i = 0; i < SNAP_WRITES; i++) {
		struct slub_dword old = slub_dword_read(&snap), new;

		do {
			new.counters = C_MAKE(0, 0, C_SEQ(old.counters) + 1);
			new.freelist = snap_encode(C_SEQ(new.counters));
		} while (!slub_dwcas(&snap, &old, new, &snap_lock));
	}
	return arg;
}

static void *snap_reader(void *arg)
{
	unsigned long reads = 0;

	(void)arg;
	while (!__atomic_load_n(&snap_stop, __ATOMIC_ACQUIRE)) {
		struct slub_dword w = slub_dword_read(&snap);

		if (w.freelist != snap_encode(C_SEQ(w.counters))) {
			if (!__atomic_fetch_add(&torn, 1, __ATOMIC_RELAXED))
				CHECK(0, "slub_dword_read returned a torn word: freelist %p with seq %u "
				      "(that seq goes with %p)", w.freelist, C_SEQ(w.counters),
				      snap_encode(C_SEQ(w.counters)));
		}
		reads++;
	}
	return (void *)reads;
}

static void test_snapshots(void)
{
	long nw = nthreads / 2 > 0 ? nthreads / 2 : 1, nr = nthreads - nw > 0 ? nthreads - nw : 1;
	pthread_t w[64], r[64];
	unsigned long reads = 0;

	if (nw > 64)
		nw = 64;
	if (nr > 64)
		nr = 64;
	snap.freelist = snap_encode(0);
	snap.counters = 0;
	for (long i = 0; i < nr; i++)
		pthread_create(&r[i], NULL, snap_reader, NULL);
	for (long i = 0; i < nw; i++)
		pthread_create(&w[i], NULL, snap_writer, NULL);
	for (long i = 0; i < nw; i++)
		pthread_join(w[i], NULL);
	__atomic_store_n(&snap_stop, 1, __ATOMIC_RELEASE);
	for (long i = 0; i < nr; i++) {
		void *ret;

		pthread_join(r[i], &ret);
		reads += (unsigned long)ret;
	}
	CHECK_EQ(C_SEQ(snap.counters), (uint32_t)(nw * SNAP_WRITES));
	CHECK_EQ(torn, 0);
	printf("snapshots: %ld writers x %d updates, %lu reads, %lu torn\n", nw, SNAP_WRITES,
	       reads, torn);
}

/* ---- 3. through the allocator ---- */

#define WCAP (1u << 20)
static struct chain_rec *wbuf;
static unsigned long wlen;
static unsigned cache_id;
static unsigned long fails_seen;

static void observe(const struct slub_event *ev, void *arg)
{
	unsigned long i;

	(void)arg;
	if (ev->cache_id != cache_id)
		return;
	if (ev->type == SLUB_EV_CMPXCHG_FAIL) {
		__atomic_fetch_add(&fails_seen, 1, __ATOMIC_RELAXED);
		return;
	}
	if (!chain_is_word_event(ev->type))
		return;
	i = __atomic_fetch_add(&wlen, 1, __ATOMIC_RELAXED);
	if (i < WCAP)
		chain_rec_from(&wbuf[i], ev);
}

#define M_OBJS 2048

struct fworker {
	pthread_t th;
	int id;
	pthread_barrier_t *bar;
	void **objs;
};

static struct slub_cache *dcache;

static void *fworker_main(void *arg)
{
	struct fworker *w = arg;

	for (long r = 0; r < rounds; r++) {
		pthread_barrier_wait(w->bar);
		for (long i = w->id; i < M_OBJS; i += nthreads) {
			uint64_t *o = w->objs[i];

			if (o[0] != (uint64_t)i + 1 || o[1] != (uint64_t)r)
				CHECK(0, "round %ld: object %ld at %p holds %llu/%llu", r, i, (void *)o,
				      (unsigned long long)o[0], (unsigned long long)o[1]);
			slub_cache_free(dcache, o);
		}
		pthread_barrier_wait(w->bar);
	}
	return NULL;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static void remote_free_rounds(const char *phase, unsigned variant)
{
	pthread_barrier_t bar;
	struct fworker *ws = calloc(nthreads, sizeof(*ws));
	void **objs = calloc(M_OBJS, sizeof(void *)), **sorted = calloc(M_OBJS, sizeof(void *));
	struct slub_stats st;
	unsigned long nfree_remote = 0, nfreeze_free = 0, nfree_frozen = 0;
	long dups = 0;

	dcache = slub_cache_create(phase, 32, 0, 0, NULL);
	if (!dcache)
		FATAL("cache create: errno %d", errno);
	cache_id = slub_cache_id(dcache);
	wlen = 0;
	fails_seen = 0;
	slub_set_observer(observe, NULL, (1ull << SLUB_EV_NR) - 1);
	slub_set_variant(variant);

	pthread_barrier_init(&bar, NULL, nthreads + 1);
	for (long t = 0; t < nthreads; t++) {
		ws[t].id = (int)t;
		ws[t].bar = &bar;
		ws[t].objs = objs;
		pthread_create(&ws[t].th, NULL, fworker_main, &ws[t]);
	}
	for (long r = 0; r < rounds; r++) {
		for (long i = 0; i < M_OBJS; i++) {
			uint64_t *o = slub_cache_alloc(dcache);

			if (!o)
				FATAL("alloc: errno %d", errno);
			o[0] = i + 1;
			o[1] = r;
			objs[i] = sorted[i] = o;
		}
		qsort(sorted, M_OBJS, sizeof(void *), cmp_ptr);
		for (long i = 1; i < M_OBJS; i++)
			if (sorted[i] == sorted[i - 1] && dups++ < 3)
				CHECK(0, "round %ld: object %p handed out twice", r, sorted[i]);
		pthread_barrier_wait(&bar); /* go */
		pthread_barrier_wait(&bar); /* all freed */
	}
	for (long t = 0; t < nthreads; t++)
		pthread_join(ws[t].th, NULL);
	slub_set_variant(0);
	CHECK_EQ(dups, 0);
	CHECK_EQ(slub_validate(dcache), 0);
	slub_set_observer(NULL, NULL, 0);
	CHECK(wlen <= WCAP, "%s: %lu events overflowed the buffer of %u", phase, wlen, WCAP);

	for (unsigned long i = 0; i < wlen && i < WCAP; i++) {
		nfree_remote += wbuf[i].type == SLUB_EV_FREE_REMOTE;
		nfree_frozen += wbuf[i].type == SLUB_EV_FREE_REMOTE && wbuf[i].old.frozen;
		nfreeze_free += wbuf[i].type == SLUB_EV_FREEZE && wbuf[i].site == SLUB_SITE_SLAB_FREE;
	}
	CHECK(nfree_remote > 0, "%s: no remote frees recorded", phase);
	CHECK_EQ(slub_cache_stats(dcache, &st), 0);
#if SLUB_STATS
	CHECK(nfree_remote + nfreeze_free == st.item[SLUB_FREE_SLOWPATH],
	      "%s: free_remote %lu + freeze(__slab_free) %lu != FREE_SLOWPATH %llu", phase,
	      nfree_remote, nfreeze_free, (unsigned long long)st.item[SLUB_FREE_SLOWPATH]);
	/* Both ways a free into a frozen slab goes count it: the first CAS,
	 * and the general loop after a lost CAS (the race window makes many). */
	CHECK(nfree_frozen == st.item[SLUB_FREE_FROZEN],
	      "%s: free_remote into a frozen slab %lu, FREE_FROZEN %llu", phase, nfree_frozen,
	      (unsigned long long)st.item[SLUB_FREE_FROZEN]);
	CHECK(fails_seen == st.item[SLUB_CMPXCHG_DOUBLE_FAIL],
	      "%s: cmpxchg_fail events %lu, CMPXCHG_DOUBLE_FAIL %llu", phase, fails_seen,
	      (unsigned long long)st.item[SLUB_CMPXCHG_DOUBLE_FAIL]);
	if (variant & SLUB_INJ_RACE_WINDOW)
		CHECK(fails_seen > 0, "%s: no slab-word CAS failed with the race window open", phase);
#endif
	{
		struct chain_result cr = chain_check(wbuf, wlen < WCAP ? wlen : WCAP, phase, 5);

		CHECK_EQ(cr.breaks, 0);
		CHECK_EQ(cr.frozen_bad, 0);
		CHECK_EQ(cr.discard_bad, 0);
		printf("%s: %ld slab-word events on %ld slabs, %lu failed CAS\n", phase, cr.events,
		       cr.slabs, fails_seen);
	}
	/* Every object is free and every thread but this one has exited:
	 * shrink discards every slab (those min_partial kept too). */
	{
		struct slub_stats pre, post;

		CHECK_EQ(slub_cache_stats(dcache, &pre), 0);
		CHECK(pre.slabs > 0, "%s: no slab left before the shrink", phase);
		CHECK_EQ(slub_cache_shrink(dcache), (long)pre.slabs);
		CHECK_EQ(slub_cache_stats(dcache, &post), 0);
		CHECK_EQ(post.slabs, 0);
	}
	CHECK_EQ(slub_cache_destroy(dcache), 0);
	pthread_barrier_destroy(&bar);
	free(ws);
	free(objs);
	free(sorted);
}

/* ---- 4. errno across a wait for list_lock ---- */

#define ERRNO_SENTINEL 4242

static struct slub_cache *ecache;
static uint32_t holder_tid;           /* the thread to park under list_lock */
static int holding, release_hold;     /* it is parked / let it go */
static int waiter_ready, waiter_errno;
static pid_t waiter_tid;
static int signals_taken;
static int contended_events;
static void *e_first[2];

static void on_signal(int sig)
{
	(void)sig;
	__atomic_fetch_add(&signals_taken, 1, __ATOMIC_RELAXED);
}

/* Runs in the freeing thread, under list_lock: park the holder there. */
static void park_observer(const struct slub_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == SLUB_EV_LOCK_ACQUIRE) {
		if (ev->contended && ev->tid == (uint32_t)__atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE))
			__atomic_fetch_add(&contended_events, 1, __ATOMIC_RELAXED);
		return;
	}
	if (ev->type != SLUB_EV_ADD_PARTIAL || ev->tid != __atomic_load_n(&holder_tid, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&release_hold, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void *holder_main(void *arg)
{
	(void)arg;
	__atomic_store_n(&holder_tid, (uint32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	slub_cache_free(ecache, e_first[0]); /* full slab -> partial, under list_lock */
	return NULL;
}

static void *waiter_main(void *arg)
{
	(void)arg;
	__atomic_store_n(&waiter_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
		sched_yield();
	__atomic_store_n(&waiter_ready, 1, __ATOMIC_RELEASE);
	errno = ERRNO_SENTINEL;
	/* Needs the same list_lock.  slub_free(), not slub_cache_free(): the
	 * latter saves errno itself, kfree() relies on the lock keeping it. */
	slub_free(e_first[1]);
	waiter_errno = errno;
	return NULL;
}

/* Is thread `tid` of this process asleep (state S: the futex wait)? */
static int thread_sleeping(pid_t tid)
{
	char path[64], buf[256];
	FILE *f;
	char *p;
	int sleeping = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ')
		sleeping = p[2] == 'S';
	fclose(f);
	return sleeping;
}

static int wait_sleeping(pid_t tid)
{
	for (int i = 0; i < 5000; i++) {
		if (thread_sleeping(tid))
			return 1;
		usleep(1000);
	}
	return 0;
}

static void errno_under_contention(void)
{
	struct sigaction sa;
	struct slub_ptr_info info;
	const void *slab = NULL;
	void *objs[1024];
	int n = 0, nslabs = 0, waited = 0;
	pthread_t h, w;
	struct slub_stats st;

	/* Without cpu partial chains a free into a full slab takes list_lock. */
	ecache = slub_cache_create("dwcas-errno", 64, 0, SLUB_F_NO_CPU_PARTIAL, NULL);
	if (!ecache)
		FATAL("cache create: errno %d", errno);
	while (n < 1024 && nslabs < 3) {
		objs[n] = slub_cache_alloc(ecache);
		if (!objs[n] || !slub_ptr_lookup(objs[n], &info))
			FATAL("alloc: errno %d", errno);
		if (info.slab != slab) {
			slab = info.slab;
			if (nslabs < 2)
				e_first[nslabs] = objs[n];
			nslabs++;
		}
		n++;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the futex wait fails with EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	slub_set_observer(park_observer, NULL,
			  1ull << SLUB_EV_ADD_PARTIAL | 1ull << SLUB_EV_LOCK_ACQUIRE);
	pthread_create(&h, NULL, holder_main, NULL);
	pthread_create(&w, NULL, waiter_main, NULL);
	while (!__atomic_load_n(&waiter_ready, __ATOMIC_ACQUIRE))
		sched_yield();
	/* Interrupt the waiter's futex wait a few times, each time once it is
	 * asleep again. */
	for (int i = 0; i < 3; i++) {
		if (!wait_sleeping(waiter_tid))
			break;
		waited++;
		pthread_kill(w, SIGUSR1);
		usleep(2000);
	}
	wait_sleeping(waiter_tid);
	__atomic_store_n(&release_hold, 1, __ATOMIC_RELEASE);
	pthread_join(h, NULL);
	pthread_join(w, NULL);
	slub_set_observer(NULL, NULL, 0);
	signal(SIGUSR1, SIG_DFL);

	CHECK(waited == 3, "the waiter was asleep for %d of 3 signals", waited);
	CHECK(signals_taken >= 1, "no signal reached the waiter");
	CHECK(contended_events == 1, "the waiter's lock_acquire events say contended %d times, "
	      "want once", contended_events);
	CHECK(waiter_errno == ERRNO_SENTINEL, "free() under contention changed errno to %d (%s)",
	      waiter_errno, strerror(waiter_errno));
	CHECK_EQ(slub_cache_stats(ecache, &st), 0);
#if SLUB_STATS
	CHECK(st.item[SLUB_LOCK_CONTENDED] >= 1, "the waiter never contended for list_lock");
#endif
	printf("errno: a free waited for list_lock through %d signals, errno %d kept\n",
	       signals_taken, waiter_errno);
	for (int i = 0; i < n; i++)
		if (objs[i] != e_first[0] && objs[i] != e_first[1])
			slub_cache_free(ecache, objs[i]);
	CHECK_EQ(slub_validate(ecache), 0);
	CHECK_EQ(slub_cache_destroy(ecache), 0);
}

int main(int argc, char **argv)
{
	const struct test_opt opts[] = {
		{ 't', &nthreads, "threads (default 8)" },
		{ 'r', &rounds, "allocator rounds (default 60)" },
	};

	test_parse_opts(argc, argv, opts, 2);
	if (nthreads < 2)
		nthreads = 2;
	printf("slab word: %s\n", SLUB_DWCAS ? "lock cmpxchg16b" : "per-slab lock fallback");
	test_primitive();
	test_snapshots();

	wbuf = calloc(WCAP, sizeof(*wbuf));
	if (!wbuf)
		FATAL("calloc event buffer");
	remote_free_rounds("dwcas-remote", 0);
	remote_free_rounds("dwcas-race", SLUB_INJ_RACE_WINDOW);
	free(wbuf);
	errno_under_contention();
	CHECK_EQ(slub_error_count(), 0);
	return test_summary("test_dwcas");
}
