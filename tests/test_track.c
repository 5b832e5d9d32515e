/* SPDX-License-Identifier: MIT */
/*
 * test_track: the U flag.  A double free in a cache with owner tracking is
 * reported with where the object was allocated and where it was first
 * freed: the stacks start at the caller (no allocator frames) and name the
 * functions that did it.  Built with -rdynamic so dladdr() names them.
 */
#define _GNU_SOURCE
#include <slub/slub.h>

#include "testutil.h"

__attribute__((noinline)) void *track_make_one(struct slub_cache *s)
{
	void *p = slub_cache_alloc(s);
	__asm__ __volatile__("" ::: "memory"); /* no tail call */
	return p;
}

__attribute__((noinline)) void track_drop_one(struct slub_cache *s, void *p)
{
	slub_cache_free(s, p);
	__asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) void track_drop_again(struct slub_cache *s, void *p)
{
	slub_cache_free(s, p);
	__asm__ __volatile__("" ::: "memory");
}

int main(void)
{
	struct capture cap;
	struct slub_cache *s;

	capture_open(&cap);
	slub_set_report_fd(cap.fd);
	s = slub_cache_create("track-u", 100, 0, SLUB_F_CONSISTENCY | SLUB_F_STORE_USER, NULL);
	if (!CHECK(s != NULL, "errno %d", errno))
		return test_summary("test_track");

	void *p = track_make_one(s);
	track_drop_one(s, p);
	unsigned long before = slub_error_count();
	track_drop_again(s, p);
	CHECK_EQ(slub_error_count(), before + 1);

	const char *r = capture_take(&cap);
	CHECK(strstr(r, "BUG track-u: Object already free") != NULL, "report: %.400s", r);
	CHECK(text_has_addr(r, p), "the report names the object: %.400s", r);
	const char *alloc = strstr(r, "INFO: Allocated in");
	const char *freed = strstr(r, "INFO: Freed in");
	if (CHECK(alloc && freed && alloc < freed, "both owner records: %.600s", r)) {
		/* The first frame after each header is the caller. */
		const char *a1 = strchr(alloc, '\n');
		const char *f1 = strchr(freed, '\n');
		CHECK(a1 && strstr(a1, "track_make_one") &&
			      strstr(a1, "track_make_one") < strstr(a1, "main"),
		      "allocation stack starts at track_make_one: %.300s", alloc);
		CHECK(f1 && strstr(f1, "track_drop_one") && strstr(f1, "track_drop_one") < strstr(f1, "main"),
		      "free stack starts at track_drop_one: %.300s", freed);
		/* No allocator frame above the caller. */
		const char *line_end = strchr(a1 + 1, '\n');
		CHECK(line_end && memmem(a1, (size_t)(line_end - a1), "track_make_one", 14),
		      "first allocation frame is the caller: %.200s", a1);
		line_end = strchr(f1 + 1, '\n');
		CHECK(line_end && memmem(f1, (size_t)(line_end - f1), "track_drop_one", 14),
		      "first free frame is the caller: %.200s", f1);
	}
	CHECK_EQ(slub_validate(s), 0);
	return test_summary("test_track");
}
