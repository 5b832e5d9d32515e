// SPDX-License-Identifier: MIT
/*
 * test_fork: fork() while another thread is caught between two steps of a
 * slow path, at each such step in turn (enum slub_fork_point).
 *
 * For each step k a worker thread runs a fixed single-threaded workload on
 * a cache of its own (allocate many slabs' worth, free every other object,
 * allocate again, free all, flush: every slow path and step of it) and
 * parks in the allocator's fork-point hook the first time it reaches k.
 * The main thread then frees the objects the worker allocated last (one
 * of them lies in the slab the worker is working on, so it is frozen onto
 * the main thread's chain when the worker had just let it go) and forks.
 * The child adopts the lost worker's slots and checks, with the cache's
 * internals:
 *   - every slab is on at most one node list and its list matches the word;
 *   - a frozen slab is held by exactly one slot of the child (cpu slab or
 *     partial chain), an unfrozen one by none;
 *   - the objects in use are those the worker still held, plus at most one
 *     slab's worth that it had in its hands at the fork;
 *   - no free object is one the worker held, none is free twice;
 *   - slub_validate() finds nothing, no report was made;
 * then frees everything, allocates and frees again and checks once more.
 *
 *   test_fork [rounds]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slub/slub.h>

#include "internal.h"
#include "testutil.h"

#define OBJ_SIZE 64
#define MAX_OBJS 4096

static struct slub_cache *cache;
static void *objs[MAX_OBJS];
static int nobjs;

static pthread_t worker_thread;
static int target = -1;
static int parked, released, finished, hit[SLUB_FP_NR];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

/* The allocator calls this at every fork point: the worker parks at the
 * first pass of the target step until the main thread has forked. */
static void fork_point_hook(int point)
{
	if (!pthread_equal(pthread_self(), worker_thread))
		return;
	__atomic_store_n(&hit[point], 1, __ATOMIC_RELAXED);
	if (point != target || parked)
		return;
	pthread_mutex_lock(&mu);
	parked = 1;
	pthread_cond_broadcast(&cv);
	while (!released)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

/* objs[0, nobjs) are the worker's objects at every fork point: one leaves
 * the array before it is freed, joins it once allocated. */
static void add_obj(void *p)
{
	objs[nobjs] = p;
	nobjs = nobjs + 1;
}

static void free_at(int i)
{
	void *p = objs[i];

	objs[i] = objs[nobjs - 1];
	nobjs = nobjs - 1;
	slub_cache_free(cache, p);
}

static void *worker_main(void *arg)
{
	unsigned per = cache->objects;
	int n = (int)per * 12;

	(void)arg;
	if (n > MAX_OBJS / 4)
		n = MAX_OBJS / 4;
	for (int i = 0; i < n; i++)
		add_obj(slub_cache_alloc(cache));
	/* every other one back: frees into full slabs freeze them onto the
	 * cpu partial chain, which drains to the node lists */
	for (int i = nobjs - 1; i >= 0; i -= 2)
		free_at(i);
	/* again: cpu slab refills, chain pops, node partial slabs, new slabs */
	for (int i = 0; i < n; i++)
		add_obj(slub_cache_alloc(cache));
	/* all back, flushing now and then */
	while (nobjs > 0) {
		free_at(nobjs - 1);
		if (nobjs % 97 == 0)
			slub_thread_flush();
	}
	/* a full cpu slab flushed: unfrozen to no list */
	struct slub_cpu *c = get_cpu_slab(cache, slub_self);
	do
		add_obj(slub_cache_alloc(cache));
	while (c->freelist);
	slub_thread_flush();
	/* many partial slabs on the node, then an emptied slab on the cpu
	 * partial chain: its unfreeze discards it */
	int first = nobjs;
	for (int i = 0; i < (int)per * 24 && nobjs < MAX_OBJS; i++)
		add_obj(slub_cache_alloc(cache));
	struct slab *last = NULL, *before = NULL;
	for (int i = first; i < nobjs; i++) {
		struct slab *sl = slub_virt_to_slab(objs[i]);
		if (sl != last) {
			before = last;
			last = sl;
		}
	}
	for (int i = nobjs - 1; i >= first; i--) {
		struct slab *sl = slub_virt_to_slab(objs[i]);
		if (sl != last && sl != before && (i == first ||
						   slub_virt_to_slab(objs[i - 1]) != sl))
			free_at(i); /* one object of each other slab */
	}
	slub_thread_flush();
	for (int i = nobjs - 1; i >= 0; i--)
		if (slub_virt_to_slab(objs[i]) == before)
			free_at(i);
	slub_thread_flush();
	pthread_mutex_lock(&mu);
	finished = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int fail(const char *what, unsigned long a, unsigned long b)
{
	fprintf(stderr, "child (step %d): %s (%lu, %lu)\n", target, what, a, b);
	return 1;
}

/* The child's checks; 0 when all hold. */
static int child_check(int phase)
{
	struct slab *all[8192];
	size_t nr = slub_collect_slabs(cache, all, 8192);
	unsigned long inuse = 0, frozen = 0, errors = 0;
	struct slub_thread *self = slub_self;

	for (size_t i = 0; i < nr; i++)
		all[i]->fork_held = 0;
	/* slot references: the child has only this thread's slots */
	for (struct slub_thread *t = slub_threads_head(); t; t = t->next_all) {
		struct slub_cpu *c = t->cpu[cache->id];
		if (!c || c->cache != cache)
			continue;
		if (t != self && (c->slab || c->partial))
			errors += fail("a lost thread's slot still holds slabs", (unsigned long)t->id, 0);
		if (c->slab)
			c->slab->fork_held++;
		for (struct slab *p = c->partial; p; p = p->next)
			if (++p->fork_held > 2)
				return fail("a partial chain loops", 0, 0);
	}
	/* node lists */
	for (int nid = 0; nid < slub_nodes; nid++) {
		struct slub_node *n = get_node(cache, nid);
		unsigned long np = 0;
		for (struct slab *p = n->partial; p; p = p->next) {
			if (p->list != SLAB_LIST_PARTIAL || ++p->fork_held > 1)
				return fail("a slab is on the partial list twice or wrongly", p->list,
					    p->fork_held);
			if (++np > nr)
				return fail("the partial list loops", np, nr);
		}
		if (np != n->nr_partial)
			errors += fail("nr_partial disagrees with the list", n->nr_partial, np);
		for (struct slab *p = n->full; p; p = p->next)
			if (p->list != SLAB_LIST_FULL || ++p->fork_held > 1)
				return fail("a slab is on the full list twice or wrongly", p->list,
					    p->fork_held);
	}
	for (size_t i = 0; i < nr; i++) {
		struct slab *p = all[i];
		struct slab_word w = slab_word_read(p);
		unsigned held = p->fork_held;

		p->fork_held = 0;
		inuse += w.c.inuse;
		if (w.c.frozen) {
			frozen++;
			if (held != 1 || p->list != SLAB_LIST_NONE)
				errors += fail("a frozen slab is not held by exactly one slot", held,
					       p->list);
		} else if (held > 1 || (held == 1 && p->list == SLAB_LIST_NONE)) {
			errors += fail("an unfrozen slab is held by a slot", held, p->list);
		}
		if (!w.c.frozen && !w.c.inuse && p->list == SLAB_LIST_NONE)
			errors += fail("an empty unfrozen slab on no list was never discarded",
				       (unsigned long)i, 0);
	}
	/* the child's own slot: flush it so every inuse count is exact */
	(void)frozen;
	unsigned long held_objs = (unsigned long)nobjs;
	unsigned per = cache->objects;
	if (phase == 0 && (inuse < held_objs || inuse > held_objs + per))
		errors += fail("objects in use are not those held (+ one slab in flight)", inuse,
			       held_objs);
	if (phase == 1 && inuse > per)
		errors += fail("objects left in use after freeing all", inuse, per);
	/* no free object is held, none free twice: mark the held ones */
	for (unsigned long i = 0; i < held_objs; i++) {
		struct slab *p = slub_virt_to_slab(objs[i]);
		unsigned idx = obj_to_index(cache, p, objs[i]);
		if (idx >= 64 * 64)
			return fail("object index out of range", idx, 0);
	}
	for (size_t i = 0; i < nr; i++) {
		struct slab *p = all[i];
		struct slab_word w = slab_word_read(p);
		uint64_t seen[(8192 / OBJ_SIZE + 63) / 64 + 64];
		memset(seen, 0, sizeof(seen));
		for (unsigned long k = 0; k < held_objs; k++)
			if (slub_virt_to_slab(objs[k]) == p) {
				unsigned idx = obj_to_index(cache, p, objs[k]);
				seen[idx / 64] |= 1ull << (idx % 64);
			}
		unsigned count = 0;
		for (void *o = w.freelist; o; o = get_freepointer(cache, o)) {
			unsigned idx = obj_to_index(cache, p, o);
			if (seen[idx / 64] >> (idx % 64) & 1)
				return fail("a held object is free, or an object is free twice", idx,
					    count);
			seen[idx / 64] |= 1ull << (idx % 64);
			if (++count > w.c.objects)
				return fail("a slab freelist loops", count, w.c.objects);
		}
	}
	long v = slub_validate(cache);
	if (v)
		errors += fail("slub_validate", (unsigned long)v, 0);
	if (slub_error_count())
		errors += fail("reports", (unsigned long)slub_error_count(), 0);
	return errors != 0;
}

static int child_main(void)
{
	/* adoption: the first slow path of the child does it */
	void *p = slub_cache_alloc(cache);
	slub_adopt_forked_slots();
	slub_cache_free(cache, p);
	struct slub_cpu *c = get_cpu_slab(cache, slub_self);
	flush_cpu_slab(cache, c);
	if (child_check(0))
		return 1;
	for (int i = nobjs; i-- > 0;)
		slub_cache_free(cache, objs[i]);
	nobjs = 0;
	for (int i = 0; i < 500; i++)
		objs[i] = slub_cache_alloc(cache);
	for (int i = 0; i < 500; i++)
		slub_cache_free(cache, objs[i]);
	flush_cpu_slab(cache, c);
	return child_check(1);
}

static int run_step(int k)
{
	char name[32];
	int status;

	snprintf(name, sizeof(name), "fork-step-%d", k);
	cache = slub_cache_create(name, OBJ_SIZE, 0, 0, NULL);
	if (!CHECK(cache != NULL, "cache create"))
		return 1;
	/* the main thread has a slot in the cache (its frees freeze slabs) */
	slub_cache_free(cache, slub_cache_alloc(cache));
	nobjs = 0;
	parked = released = finished = 0;
	memset(hit, 0, sizeof(hit));
	target = k;
	if (pthread_create(&worker_thread, NULL, worker_main, NULL))
		FATAL("pthread_create: %s", strerror(errno));
	pthread_mutex_lock(&mu);
	while (!parked && !finished)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	if (!parked) {
		pthread_join(worker_thread, NULL);
		target = -1;
		return 1; /* main() reports the step never reached */
	}
	/* the worker is inside the allocator, holding no list_lock: free
	 * what it allocated last, as another thread would */
	for (int i = 0; i < 3 && nobjs > 0; i++) {
		int n = nobjs - 1;
		void *p = objs[n];
		nobjs = n;
		slub_cache_free(cache, p);
	}
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_main());
	pthread_mutex_lock(&mu);
	released = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(worker_thread, NULL);
	if (!CHECK(pid > 0, "fork: %s", strerror(errno)))
		return 1;
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	int ok = CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "step %d: child status %#x", k, status);
	/* the parent's side: the worker went on and finished */
	for (int i = nobjs; i-- > 0;)
		slub_cache_free(cache, objs[i]);
	slub_thread_flush();
	CHECK(slub_validate(cache) == 0, "step %d: parent validate", k);
	target = -1;
	return !ok;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1;

	setenv("SLUBTRACE_NODES", "1", 0);
	slub_init();
	slub_fork_point_hook = fork_point_hook;
	for (long r = 0; r < rounds; r++)
		for (int k = 0; k < SLUB_FP_NR; k++) {
			/* the workload must pass every step, or the test proves nothing */
			run_step(k);
			CHECK(hit[k], "step %d was never reached", k);
		}
	CHECK_EQ(slub_error_count(), 0);
	return test_summary("test_fork");
}
