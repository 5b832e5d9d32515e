/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the allocator tests: checks that report what
 * failed with the values involved, a per-thread PRNG, a monotonic clock,
 * and a capture of the allocator's report stream in a temporary file.
 *
 * A failed CHECK() prints and counts; the test goes on so that one run
 * shows every broken property.  test_summary() prints the one-line verdict
 * and gives main()'s exit status.
 */
#ifndef SLUB_TESTUTIL_H
#define SLUB_TESTUTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long test_checks;
static unsigned long test_failures;

static inline void test_fail(const char *file, int line, const char *cond,
			     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline void test_fail(const char *file, int line, const char *cond,
			     const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&test_failures, 1, __ATOMIC_RELAXED);
	fprintf(stderr, "FAIL %s:%d: %s%s%s:", file, line, cond ? "(" : "",
		cond ? cond : "", cond ? ")" : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* CHECK(cond, "printf format", args): on failure print the condition and
 * the formatted values.  Evaluates to cond, so it can gate later checks. */
#define CHECK(cond, ...)                                                    \
	({                                                                  \
		int __ok = !!(cond);                                        \
		__atomic_fetch_add(&test_checks, 1, __ATOMIC_RELAXED);      \
		if (!__ok)                                                  \
			test_fail(__FILE__, __LINE__, #cond, " " __VA_ARGS__); \
		__ok;                                                       \
	})

#define CHECK_EQ(a, b)                                                      \
	({                                                                  \
		long long __a = (long long)(a), __b = (long long)(b);       \
		CHECK(__a == __b, "%s = %lld, %s = %lld", #a, __a, #b, __b); \
	})

/* Abort the test at once: the state is too broken to go on. */
#define FATAL(...)                                                          \
	do {                                                                \
		test_fail(__FILE__, __LINE__, NULL, " " __VA_ARGS__);       \
		fprintf(stderr, "fatal, stopping\n");                      \
		exit(2);                                                    \
	} while (0)

static inline int test_summary(const char *name)
{
	unsigned long f = __atomic_load_n(&test_failures, __ATOMIC_RELAXED);
	unsigned long c = __atomic_load_n(&test_checks, __ATOMIC_RELAXED);

	if (f)
		printf("%s: FAILED %lu of %lu checks\n", name, f, c);
	else
		printf("%s: ok, %lu checks passed\n", name, c);
	fflush(stdout);
	return f ? 1 : 0;
}

/* xorshift64*: fast, per-thread, reproducible from a seed. */
static inline uint64_t test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline uint64_t test_seed(uint64_t a, uint64_t b)
{
	uint64_t s = (a + 1) * 0x9E3779B97F4A7C15ULL ^ (b + 7) * 0xBF58476D1CE4E5B9ULL;

	return s ? s : 1;
}

static inline double test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Parse "-t N -s SECONDS -r ROUNDS"-style options into the given ints;
 * unknown options print usage and exit 2. */
struct test_opt {
	char letter;
	long *value;
	const char *help;
};

static inline void test_parse_opts(int argc, char **argv,
				   const struct test_opt *opts, int nopts)
{
	for (int i = 1; i < argc; i++) {
		const struct test_opt *o = NULL;

		if (argv[i][0] == '-' && argv[i][1] && !argv[i][2])
			for (int k = 0; k < nopts; k++)
				if (opts[k].letter == argv[i][1])
					o = &opts[k];
		if (!o || i + 1 >= argc) {
			fprintf(stderr, "usage: %s", argv[0]);
			for (int k = 0; k < nopts; k++)
				fprintf(stderr, " [-%c %s]", opts[k].letter, opts[k].help);
			fputc('\n', stderr);
			exit(2);
		}
		*o->value = strtol(argv[++i], NULL, 0);
	}
}

/*
 * Report capture: the allocator writes its reports to a temporary file;
 * capture_take() returns what was written since the last call (a
 * NUL-terminated buffer owned by the capture).
 */
struct capture {
	int fd;
	off_t done;
	char buf[65536];
};

static inline void capture_open(struct capture *c)
{
	char path[] = "/tmp/slubtest-report-XXXXXX";

	c->fd = mkstemp(path);
	if (c->fd < 0)
		FATAL("mkstemp: %s", strerror(errno));
	unlink(path);
	c->done = 0;
	c->buf[0] = 0;
}

static inline const char *capture_take(struct capture *c)
{
	ssize_t n = pread(c->fd, c->buf, sizeof(c->buf) - 1, c->done);

	if (n < 0)
		n = 0;
	c->buf[n] = 0;
	c->done += n;
	/* Skip whatever did not fit, so the next take starts fresh. */
	c->done = lseek(c->fd, 0, SEEK_END);
	return c->buf;
}

/* Does `text` mention the address `p` in hex (any of 0x..., zero-padded)? */
static inline int text_has_addr(const char *text, const void *p)
{
	char hex[32];

	snprintf(hex, sizeof(hex), "%lx", (unsigned long)(uintptr_t)p);
	return strstr(text, hex) != NULL;
}

/*
 * Slab-word chain check over recorded events (tests that include
 * <slub/event.h>).  Per slab address, the slab-word events sorted by
 * new.seq must form one chain: new.seq == old.seq + 1, each old word equals
 * the previous new word, objects fixed within a slab's lifetime (slab_new
 * starts one), inuse <= objects.  slab_discard carries old = new = the last
 * word.  The first event seen for a slab is not checked against anything
 * (its history may predate the recording).  Frozen moves 0 -> 1 only by
 * freeze (and slab_new), 1 -> 0 only by unfreeze.
 *
 * The owner rule (event.h): slab_new and freeze name the owning slot (a
 * freeze: the acting one), take_freelist and drain_freelist keep it, an
 * unfreeze leaves exactly the slot that owned the slab (old.owner) and
 * clears it, free_remote says "unknown" (-2) for a frozen word and -1 for
 * an unfrozen one, a discarded slab has no owner.
 */
#ifdef SLUB_EVENT_H
struct chain_rec {
	uint64_t slab;
	uint32_t type, site, cache_id;
	int32_t tid, cpu;
	struct slub_word old, new;
};

struct chain_result {
	long slabs, events, breaks, frozen_bad, discard_bad, owner_bad;
};

static inline int chain_is_word_event(unsigned type)
{
	switch (type) {
	case SLUB_EV_SLAB_NEW:
	case SLUB_EV_SLAB_DISCARD:
	case SLUB_EV_FREEZE:
	case SLUB_EV_UNFREEZE:
	case SLUB_EV_TAKE_FREELIST:
	case SLUB_EV_FREE_REMOTE:
	case SLUB_EV_DRAIN_FREELIST:
		return 1;
	}
	return 0;
}

static inline void chain_rec_from(struct chain_rec *r, const struct slub_event *ev)
{
	r->slab = ev->slab;
	r->type = ev->type;
	r->site = ev->site;
	r->cache_id = ev->cache_id;
	r->tid = (int32_t)ev->tid;
	r->cpu = ev->cpu;
	r->old = ev->old;
	r->new = ev->new;
}

static inline int chain_cmp(const void *a, const void *b)
{
	const struct chain_rec *x = a, *y = b;
	int dx = x->type == SLUB_EV_SLAB_DISCARD, dy = y->type == SLUB_EV_SLAB_DISCARD;

	if (x->slab != y->slab)
		return x->slab < y->slab ? -1 : 1;
	if (x->new.seq != y->new.seq)
		return x->new.seq < y->new.seq ? -1 : 1;
	return dx - dy; /* a discard after the update that produced its word */
}

static inline int chain_word_eq(const struct slub_word *a, const struct slub_word *b)
{
	return a->freelist == b->freelist && a->inuse == b->inuse && a->objects == b->objects &&
	       a->frozen == b->frozen && a->seq == b->seq;
}

static inline void chain_print(const char *phase, const char *what, const struct chain_rec *e,
			       const struct chain_rec *p)
{
	fprintf(stderr,
		"  %s: %s: slab %#llx %s (site %s, tid %d) old {fl %#llx inuse %u obj %u frozen %u seq %u} "
		"new {fl %#llx inuse %u obj %u frozen %u seq %u}",
		phase, what, (unsigned long long)e->slab, slub_event_name(e->type),
		slub_site_name(e->site), e->tid, (unsigned long long)e->old.freelist, e->old.inuse,
		e->old.objects, e->old.frozen, e->old.seq, (unsigned long long)e->new.freelist,
		e->new.inuse, e->new.objects, e->new.frozen, e->new.seq);
	if (p)
		fprintf(stderr, "; previous %s (tid %d) new {fl %#llx inuse %u obj %u frozen %u seq %u}",
			slub_event_name(p->type), p->tid, (unsigned long long)p->new.freelist,
			p->new.inuse, p->new.objects, p->new.frozen, p->new.seq);
	fputc('\n', stderr);
}

/* The owner rule for one event; *owner follows the chain (-3 unknown). */
static inline int chain_owner_ok(const struct chain_rec *e, int *owner)
{
	int known = *owner != -3, ok;

	switch (e->type) {
	case SLUB_EV_SLAB_NEW:
		ok = e->new.owner >= 0;
		*owner = e->new.owner;
		return ok;
	case SLUB_EV_FREEZE:
		ok = e->old.owner == -1 && e->new.owner >= 0 && e->new.owner == e->cpu;
		*owner = e->new.owner;
		return ok;
	case SLUB_EV_UNFREEZE:
		ok = e->new.owner == -1 && e->old.owner >= 0 && (!known || e->old.owner == *owner);
		*owner = -1;
		return ok;
	case SLUB_EV_TAKE_FREELIST:
	case SLUB_EV_DRAIN_FREELIST:
		return e->old.owner >= 0 && e->new.owner == e->old.owner &&
		       (!known || e->old.owner == *owner);
	case SLUB_EV_FREE_REMOTE:
		return e->old.owner == (e->old.frozen ? -2 : -1) &&
		       e->new.owner == (e->new.frozen ? -2 : -1);
	case SLUB_EV_SLAB_DISCARD:
		return e->old.owner == -1 && e->new.owner == -1;
	}
	return 1;
}

/* Sorts `r` in place.  Prints up to `show` offending events. */
static inline struct chain_result chain_check(struct chain_rec *r, size_t n, const char *phase,
					      int show)
{
	struct chain_result res = { 0, (long)n, 0, 0, 0, 0 };
	const struct chain_rec *prev = NULL;
	int shown = 0;
	int owner = -3; /* the slab's owner by its chain; -3: not known yet */

	qsort(r, n, sizeof(*r), chain_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct chain_rec *e = &r[i];

		if (prev && prev->slab != e->slab)
			prev = NULL;
		if (!prev && (i == 0 || r[i - 1].slab != e->slab)) {
			res.slabs++;
			owner = -3;
		}
		if (!chain_owner_ok(e, &owner)) {
			res.owner_bad++;
			if (shown++ < show) {
				chain_print(phase, "owner rule broken", e, prev);
				fprintf(stderr, "    owner by the chain %d; event: cpu %d old.owner %d "
					"new.owner %d\n", owner, e->cpu, e->old.owner, e->new.owner);
			}
		}

		if (e->type == SLUB_EV_SLAB_DISCARD) {
			if (e->old.inuse != 0 || e->old.frozen || (prev && !chain_word_eq(&e->old, &prev->new))) {
				res.discard_bad++;
				if (shown++ < show)
					chain_print(phase, "discard of a busy slab or of a stale word", e, prev);
			}
			continue;
		}
		/* frozen moves only by freeze / unfreeze (slab_new: a fresh cpu slab) */
		{
			int bad = 0;

			if (e->type == SLUB_EV_FREEZE)
				bad = !(e->old.frozen == 0 && e->new.frozen == 1);
			else if (e->type == SLUB_EV_UNFREEZE)
				bad = !(e->old.frozen == 1 && e->new.frozen == 0);
			else if (e->type == SLUB_EV_SLAB_NEW)
				bad = e->new.frozen != 1;
			else
				bad = e->old.frozen != e->new.frozen;
			if (bad) {
				res.frozen_bad++;
				if (shown++ < show)
					chain_print(phase, "frozen changed by the wrong event", e, NULL);
			}
		}
		{
			int bad = e->new.seq != e->old.seq + 1 || e->new.inuse > e->new.objects ||
				  (e->type != SLUB_EV_SLAB_NEW && e->new.objects != e->old.objects) ||
				  (prev && !chain_word_eq(&e->old, &prev->new));

			if (bad) {
				res.breaks++;
				if (shown++ < show)
					chain_print(phase, "slab word chain broken", e, prev);
			}
		}
		prev = e;
	}
	return res;
}
#endif /* SLUB_EVENT_H */

#endif /* SLUB_TESTUTIL_H */
