// SPDX-License-Identifier: MIT
/*
 * test_misuse: deliberate misuse must be reported, counted, and survived.
 *
 * Reports go to a temporary file (slub_set_report_fd); each case asserts on
 * the text (the kernel-style "BUG <cache>: <what>" line naming the cache,
 * the slab and the object), on slub_error_count(), and that the cache still
 * validates and never hands an object out twice afterwards.  The kmalloc
 * cases run with SLUBTRACE_DEBUG=FZP (set before the first allocator call).
 * Last, SLUB_ON_ERROR_ABORT in a forked child: a double free aborts.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slub/slub.h>

#include "testutil.h"

static struct capture cap;

/* Expect exactly one new report that contains every given string. */
static const char *expect_report(const char *what, unsigned long before, const char *needle1,
				 const char *needle2)
{
	const char *text = capture_take(&cap);
	unsigned long now = slub_error_count();

	CHECK(now == before + 1, "%s: error count went %lu -> %lu, want one report", what, before,
	      now);
	CHECK(strstr(text, needle1) != NULL, "%s: report lacks '%s':\n%s", what, needle1, text);
	if (needle2)
		CHECK(strstr(text, needle2) != NULL, "%s: report lacks '%s':\n%s", what, needle2,
		      text);
	return text;
}

static void expect_quiet(const char *what, unsigned long before)
{
	const char *text = capture_take(&cap);

	CHECK(slub_error_count() == before, "%s: %lu unexpected reports:\n%s", what,
	      slub_error_count() - before, text);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Allocate n objects, check none is handed out twice (nor `avoid`, an
 * object that is still live), free them. */
static void no_duplicates(struct slub_cache *s, int n, const void *avoid, const char *what)
{
	void **v = calloc(n, sizeof(void *));
	int dups = 0;

	for (int i = 0; i < n; i++) {
		v[i] = s ? slub_cache_alloc(s) : slub_malloc(48);
		if (!CHECK(v[i] != NULL, "%s: alloc %d failed, errno %d", what, i, errno))
			break;
		if (avoid && v[i] == avoid && dups++ < 3)
			CHECK(0, "%s: live object %p handed out again", what, avoid);
	}
	qsort(v, n, sizeof(void *), cmp_ptr);
	for (int i = 1; i < n; i++)
		if (v[i] && v[i] == v[i - 1] && dups++ < 3)
			CHECK(0, "%s: object %p handed out twice", what, v[i]);
	CHECK_EQ(dups, 0);
	for (int i = 0; i < n; i++)
		if (v[i] && (i == 0 || v[i] != v[i - 1])) {
			if (s)
				slub_cache_free(s, v[i]);
			else
				slub_free(v[i]);
		}
	free(v);
}

static void test_double_free(void)
{
	struct slub_cache *s = slub_cache_create("misuse-df", 40, 0, SLUB_F_CONSISTENCY, NULL);
	unsigned long before;
	const char *text;
	void *p, *q;

	if (!CHECK(s != NULL, "create: errno %d", errno))
		return;
	p = slub_cache_alloc(s);
	q = slub_cache_alloc(s);
	slub_cache_free(s, p);
	expect_quiet("first free", slub_error_count());
	before = slub_error_count();
	slub_cache_free(s, p);
	text = expect_report("double free", before, "Object already free", "misuse-df");
	CHECK(strstr(text, "BUG misuse-df"), "no BUG line naming the cache:\n%s", text);
	CHECK(text_has_addr(text, p), "report does not name object %p:\n%s", p, text);
	CHECK(strstr(text, "Slab 0x"), "report does not name the slab:\n%s", text);

	CHECK_EQ(slub_validate(s), 0);
	expect_quiet("validate after double free", before + 1);
	/* The object was freed once: it may come back, but only once. */
	no_duplicates(s, 600, q, "after double free");
	CHECK_EQ(slub_validate(s), 0);

	/* Triple free of one object, interleaved with other traffic. */
	p = slub_cache_alloc(s);
	slub_cache_free(s, p);
	before = slub_error_count();
	slub_cache_free(s, p);
	slub_cache_free(s, p);
	CHECK_EQ(slub_error_count(), before + 2);
	capture_take(&cap);
	no_duplicates(s, 600, q, "after triple free");
	slub_cache_free(s, q);
	CHECK_EQ(slub_validate(s), 0);
	expect_quiet("clean validate", slub_error_count());
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static void test_foreign(void)
{
	struct slub_cache *s = slub_cache_create("misuse-foreign", 64, 0, SLUB_F_CONSISTENCY, NULL);
	char stack_buf[64];
	void *heap = malloc(64);
	unsigned long before;
	const char *text;

	if (!CHECK(s != NULL, "create: errno %d", errno))
		return;
	before = slub_error_count();
	slub_free(stack_buf);
	text = expect_report("free(stack pointer)", before, "not from slubtrace", NULL);
	CHECK(text_has_addr(text, stack_buf), "report does not name %p:\n%s", (void *)stack_buf, text);

	before = slub_error_count();
	slub_free(heap);
	text = expect_report("free(glibc pointer)", before, "not from slubtrace", NULL);
	CHECK(text_has_addr(text, heap), "report does not name %p:\n%s", heap, text);

	before = slub_error_count();
	slub_cache_free(s, stack_buf);
	expect_report("cache_free(stack pointer)", before, "BUG", NULL);

	/* The glibc block is intact and still glibc's. */
	memset(heap, 1, 64);
	free(heap);
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_validate_all(), 0);
	no_duplicates(s, 300, NULL, "after foreign frees");
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static void test_wrong_cache(void)
{
	struct slub_cache *a = slub_cache_create("misuse-a", 64, 0, SLUB_F_CONSISTENCY, NULL);
	struct slub_cache *b = slub_cache_create("misuse-b", 64, 0, SLUB_F_CONSISTENCY, NULL);
	unsigned long before;
	const char *text;
	void *p;

	if (!CHECK(a && b, "create: errno %d", errno))
		return;
	p = slub_cache_alloc(a);
	before = slub_error_count();
	slub_cache_free(b, p);
	text = expect_report("free into the wrong cache", before, "Wrong slab cache", NULL);
	CHECK(strstr(text, "misuse-a") || strstr(text, "misuse-b"),
	      "report names neither cache:\n%s", text);
	CHECK(text_has_addr(text, p), "report does not name %p:\n%s", p, text);
	/* The object is still live in a: no one else may get it. */
	no_duplicates(a, 300, p, "cache a after wrong-cache free");
	no_duplicates(b, 300, p, "cache b after wrong-cache free");
	CHECK_EQ(slub_validate(a), 0);
	CHECK_EQ(slub_validate(b), 0);
	slub_cache_free(a, p);
	expect_quiet("proper free", slub_error_count());
	CHECK_EQ(slub_cache_destroy(a), 0);
	CHECK_EQ(slub_cache_destroy(b), 0);
}

static void test_interior(void)
{
	struct slub_cache *s = slub_cache_create("misuse-interior", 64, 0, SLUB_F_CONSISTENCY, NULL);
	unsigned long before;
	const char *text;
	char *p;

	if (!CHECK(s != NULL, "create: errno %d", errno))
		return;
	p = slub_cache_alloc(s);
	before = slub_error_count();
	slub_cache_free(s, p + 8);
	text = expect_report("interior pointer", before, "Invalid object pointer", "misuse-interior");
	CHECK(text_has_addr(text, p + 8), "report does not name %p:\n%s", (void *)(p + 8), text);
	no_duplicates(s, 300, p, "after interior free");
	CHECK_EQ(slub_validate(s), 0);
	slub_cache_free(s, p);
	expect_quiet("proper free", slub_error_count());
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static void test_redzone(void)
{
	struct slub_cache *s =
		slub_cache_create("misuse-redzone", 40, 0, SLUB_F_CONSISTENCY | SLUB_F_RED_ZONE, NULL);
	unsigned long before;
	const char *text;
	unsigned char *p;

	if (!CHECK(s != NULL, "create: errno %d", errno))
		return;
	p = slub_cache_alloc(s);
	memset(p, 0x41, 40);
	p[40] = 0x99; /* one byte past the object */
	before = slub_error_count();
	slub_cache_free(s, p);
	text = expect_report("red zone", before, "Redzone overwritten", "misuse-redzone");
	CHECK(text_has_addr(text, p), "report does not name object %p:\n%s", (void *)p, text);
	/* In-bounds writes are not reported. */
	p = slub_cache_alloc(s);
	memset(p, 0x42, 40);
	slub_cache_free(s, p);
	expect_quiet("in-bounds writes", before + 1);
	no_duplicates(s, 300, NULL, "after red zone");
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static void test_poison(void)
{
	struct slub_cache *s =
		slub_cache_create("misuse-poison", 64, 0, SLUB_F_CONSISTENCY | SLUB_F_POISON, NULL);
	unsigned long before;
	const char *text = "";
	unsigned char *p;
	void *v[512];
	int n = 0;

	if (!CHECK(s != NULL, "create: errno %d", errno))
		return;
	p = slub_cache_alloc(s);
	slub_cache_free(s, p);
	expect_quiet("alloc/free", slub_error_count());
	p[20] = 0x55; /* use after free */
	before = slub_error_count();
	/* The next allocation of that object finds it. */
	while (n < 512 && slub_error_count() == before) {
		v[n] = slub_cache_alloc(s);
		if (!v[n])
			break;
		n++;
	}
	text = expect_report("poison", before, "Poison overwritten", "misuse-poison");
	CHECK(text_has_addr(text, p), "report does not name object %p:\n%s", (void *)p, text);
	CHECK(n == 1, "the damaged object was found on allocation %d, want the first", n);
	for (int i = 0; i < n; i++)
		slub_cache_free(s, v[i]);
	capture_take(&cap);
	no_duplicates(s, 300, NULL, "after poison");
	CHECK_EQ(slub_validate(s), 0);
	CHECK_EQ(slub_cache_destroy(s), 0);
}

static void test_kmalloc_debug(void)
{
	unsigned long before;
	const char *text;
	char *p, *keep;

	/* SLUBTRACE_DEBUG=FZP applies to the kmalloc caches. */
	keep = slub_malloc(48);
	p = slub_malloc(48);
	slub_free(p);
	before = slub_error_count();
	slub_free(p);
	text = expect_report("kmalloc double free", before, "Object already free", "kmalloc-");
	CHECK(text_has_addr(text, p), "report does not name %p:\n%s", (void *)p, text);
	no_duplicates(NULL, 400, keep, "kmalloc after double free");

	p = slub_malloc(48);
	p[48] = 1; /* beyond the requested size, inside the 64-byte class */
	p[64] = 1; /* beyond the class object: the red zone */
	before = slub_error_count();
	slub_free(p);
	text = expect_report("kmalloc red zone", before, "Redzone overwritten", "kmalloc-");
	slub_free(keep);
	CHECK_EQ(slub_validate_all(), 0);
	expect_quiet("validate_all", slub_error_count());
}

/*
 * Large blocks, page runs (100 KB) and dedicated mappings (8 MiB) alike: a
 * pointer inside one is "Invalid object pointer", a second free "Object
 * already free", whatever the debug flags (ctest runs this file with FZP
 * and with none).
 */
static void test_large_misuse(void)
{
	static const size_t sizes[] = { 100000, 8u << 20 };
	unsigned long before;
	const char *text;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		char *p = slub_malloc(n), what[64];

		if (!CHECK(p != NULL, "malloc(%zu): errno %d", n, errno))
			continue;
		memset(p, 1, n);
		snprintf(what, sizeof(what), "free(p + 4096) of %zu bytes", n);
		before = slub_error_count();
		slub_free(p + 4096);
		text = expect_report(what, before, "Invalid object pointer", NULL);
		CHECK(text_has_addr(text, p + 4096), "%s: report does not name %p:\n%s", what,
		      (void *)(p + 4096), text);
		CHECK(p[0] == 1 && p[n - 1] == 1, "%s: the block was touched", what);
		before = slub_error_count();
		slub_free(p);
		expect_quiet("free of a large block", before);
		snprintf(what, sizeof(what), "double free of %zu bytes", n);
		before = slub_error_count();
		slub_free(p);
		text = expect_report(what, before, "Object already free", NULL);
		CHECK(text_has_addr(text, p), "%s: report does not name %p:\n%s", what, (void *)p,
		      text);
		CHECK(slub_try_free(p) == 1, "%s: slub_try_free says not ours", what);
		capture_take(&cap);
	}
	CHECK_EQ(slub_validate_all(), 0);
}

/*
 * A write after free over a free object's free pointer (no P or Z, so the
 * pointer sits inside the object): the fast path that hands the object out
 * finds the next pointer outside the slab and reports, and so does a flush
 * that walks the cpu freelist; neither follows the bad pointer.
 */
static void test_freepointer_corrupt(void)
{
	struct slub_cache *s = slub_cache_create("fp-corrupt", 64, 0, 0, NULL);
	unsigned long before;
	const char *text;
	char *a, *b, *x, *y;

	if (!CHECK(s != NULL, "cache_create: errno %d", errno))
		return;
	a = slub_cache_alloc(s);
	b = slub_cache_alloc(s);
	slub_cache_free(s, b);
	slub_cache_free(s, a); /* cpu freelist: a -> b -> ... */
	memset(a + 24, 0x41, 24); /* over the free pointer at 32 */
	before = slub_error_count();
	x = slub_cache_alloc(s);
	text = expect_report("free pointer corrupt (alloc)", before, "Freepointer corrupt",
			     "fp-corrupt");
	CHECK(text_has_addr(text, a), "report does not name %p:\n%s", (void *)a, text);
	CHECK(strstr(text, "Slab 0x") != NULL, "report does not name the slab:\n%s", text);
	CHECK(x == a, "alloc after the write gave %p, want %p", (void *)x, (void *)a);
	y = slub_cache_alloc(s); /* the slow path, not 0x4141414141414141 */
	CHECK(y != NULL && y != a, "alloc after the report gave %p", (void *)y);
	expect_quiet("alloc after the report", slub_error_count());

	/* deeper in the chain: found by the flush's walk */
	a = slub_cache_alloc(s);
	b = slub_cache_alloc(s);
	slub_cache_free(s, b);
	slub_cache_free(s, a); /* a -> b -> ... */
	memset(b + 32, 0x42, 8);
	before = slub_error_count();
	slub_cache_shrink(s);
	text = expect_report("free pointer corrupt (flush)", before, "Freepointer corrupt",
			     "fp-corrupt");
	CHECK(text_has_addr(text, b), "report does not name %p:\n%s", (void *)b, text);
	capture_take(&cap);
}

/*
 * Z on the kmalloc caches: the requested size is recorded, so a write one
 * byte past it is caught whatever the class (the kernel's kmalloc red zone
 * since 6.1); the word before every object is a red zone too; and large
 * blocks, runs and mappings, have red zones on both sides.  Usable size is
 * the size asked for.  Writes that stay inside the request are quiet.
 */
static void test_kmalloc_redzones(void)
{
	static const size_t sizes[] = { 13, 24, 40, 100, 200, 1000, 3000, 8000,
					9000, 100000, 3u << 20 };
	unsigned long before;
	const char *text;
	char what[80];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		char *p = slub_malloc(n);

		if (!CHECK(p != NULL, "malloc(%zu): errno %d", n, errno))
			continue;
		CHECK(slub_usable_size(p) == n, "usable size of malloc(%zu) is %zu", n,
		      slub_usable_size(p));
		memset(p, 0x33, n); /* all of it: quiet */
		before = slub_error_count();
		slub_free(p);
		snprintf(what, sizeof(what), "malloc(%zu) written in full", n);
		expect_quiet(what, before);

		p = slub_malloc(n);
		p[n] = 1;
		before = slub_error_count();
		slub_free(p);
		snprintf(what, sizeof(what), "malloc(%zu), p[%zu] = 1", n, n);
		text = expect_report(what, before, "Redzone overwritten", NULL);
		CHECK(text_has_addr(text, p), "%s: report does not name %p:\n%s", what, (void *)p,
		      text);
		if (n <= 8192)
			CHECK(strstr(text, "kmalloc-") != NULL, "%s: no cache named:\n%s", what, text);

		p = slub_malloc(n);
		p[-1] = 1;
		before = slub_error_count();
		slub_free(p);
		snprintf(what, sizeof(what), "malloc(%zu), p[-1] = 1", n);
		text = expect_report(what, before, "Redzone overwritten", "left");
		CHECK(text_has_addr(text, p), "%s: report does not name %p:\n%s", what, (void *)p,
		      text);
	}
	/* realloc within the object moves the red zone with the size */
	char *p = slub_malloc(50), *q;
	q = slub_realloc(p, 60);
	CHECK(q == p, "realloc(50 -> 60) moved");
	memset(q, 1, 60);
	q = slub_realloc(q, 40);
	q[40] = 1;
	before = slub_error_count();
	slub_free(q);
	expect_report("realloc to 40, q[40] = 1", before, "Redzone overwritten", "requested 40");
	/* a large block grown in place keeps its red zones at its new end */
	p = slub_malloc(20000);
	q = slub_realloc(p, 30000);
	CHECK(q != NULL, "realloc(20000 -> 30000)");
	memset(q, 2, 30000);
	before = slub_error_count();
	q = slub_realloc(q, 3u << 20);
	memset(q, 2, 3u << 20);
	q = slub_realloc(q, 5u << 20);
	expect_quiet("large reallocs written in full", before);
	q[5u << 20] = 1;
	before = slub_error_count();
	slub_free(q);
	expect_report("5 MiB after reallocs, q[n] = 1", before, "Redzone overwritten", "right");
	/* validate checks the left red zone of free objects too */
	char *keep = slub_malloc(48);
	p = slub_malloc(48);
	slub_free(p);
	p[-1] = 0x44;
	before = slub_error_count();
	CHECK(slub_validate_all() >= 1, "validate missed a free object's left red zone");
	text = capture_take(&cap);
	CHECK(strstr(text, "left red zone") != NULL, "validate's report:\n%s", text);
	p[-1] = (char)0xbb; /* RED_INACTIVE again */
	slub_free(keep);
	CHECK_EQ(slub_validate_all(), 0);
	expect_quiet("validate_all", slub_error_count());
}

static void test_abort_child(void)
{
	pid_t pid;
	int status = 0;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		CHECK(0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		struct slub_cache *s;
		void *p;

		slub_set_report_fd(cap.fd);
		slub_set_error_action(SLUB_ON_ERROR_ABORT);
		s = slub_cache_create("misuse-abort", 32, 0, SLUB_F_CONSISTENCY, NULL);
		p = slub_cache_alloc(s);
		slub_cache_free(s, p);
		slub_cache_free(s, p);
		_exit(0); /* not reached when the double free aborts */
	}
	if (waitpid(pid, &status, 0) != pid) {
		CHECK(0, "waitpid: %s", strerror(errno));
		return;
	}
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	      "child status %#x: want killed by SIGABRT", status);
	{
		const char *text = capture_take(&cap);

		CHECK(strstr(text, "Object already free") && strstr(text, "misuse-abort"),
		      "child's report:\n%s", text);
	}
	/* The parent goes on normally. */
	CHECK_EQ(slub_validate_all(), 0);
}

/*
 * A double free the free path cannot see (another object freed in between,
 * no consistency checks) makes the cpu freelist loop: a -> b -> a -> ...
 * Deactivating the cpu slab (slub_thread_flush) walks that chain: the walk
 * stops at the slab's object count with a report, not for ever.  The
 * cache is left as it is.  Classic only: under sheaves the objects go
 * into a sheaf, which is never walked.  Without consistency checks (F),
 * which would report the second free at once.
 */
static void test_freelist_loop(void)
{
	const char *gen = getenv("SLUBTRACE_GENERATION");
	struct slub_cache *s;
	unsigned long before;
	const char *text;
	void *a, *b;

	if (gen && !strcmp(gen, "sheaves"))
		return;
	s = slub_cache_create("fl-loop", 64, 0, 0, NULL);
	if (!CHECK(s != NULL, "cache_create: errno %d", errno))
		return;
	a = slub_cache_alloc(s);
	b = slub_cache_alloc(s);
	slub_cache_free(s, a);
	slub_cache_free(s, b);
	before = slub_error_count();
	slub_cache_free(s, a);	/* a -> b -> a */
	expect_quiet("the second free of a, behind b", before);
	slub_thread_flush();
	text = expect_report("cpu freelist loop", before, "a loop", "fl-loop");
	CHECK(strstr(text, "longer than the slab") != NULL, "report does not say why:\n%s", text);
}

int main(void)
{
	/* Debug options for the kmalloc caches, before the first call. */
	setenv("SLUBTRACE_DEBUG", "FZP", 0);
	capture_open(&cap);
	slub_set_report_fd(cap.fd);
	slub_init();

	test_double_free();
	test_foreign();
	test_wrong_cache();
	test_interior();
	test_redzone();
	test_poison();
	if (strchr(getenv("SLUBTRACE_DEBUG"), 'Z')) {
		test_kmalloc_debug();
		test_kmalloc_redzones();
	}
	test_large_misuse();
	if (!strpbrk(getenv("SLUBTRACE_DEBUG"), "PpZz"))
		test_freepointer_corrupt();
	test_abort_child();
	/* with consistency checks (F) the second free is caught at once */
	if (!strpbrk(getenv("SLUBTRACE_DEBUG"), "Ff"))
		test_freelist_loop();
	return test_summary("test_misuse");
}
