/* SPDX-License-Identifier: MIT */
/* Page layer test hooks (internal; tests link the static library). */
#ifndef SLUB_PAGE_H
#define SLUB_PAGE_H

/* After n more successful maps every map fails, until called with n < 0. */
__attribute__((visibility("default"))) void slub_page_fail_after(long n);
/* Pages currently handed out, free but resident, purged, and segments. */
struct slub_page_census {
	unsigned long segments, pages_used, pages_free_dirty, pages_free_clean;
	unsigned long huge_allocs, huge_bytes;
	/* reallocs that moved a block by copying it, and the bytes copied */
	unsigned long realloc_copies, realloc_copied_bytes;
};
__attribute__((visibility("default"))) void slub_page_census(struct slub_page_census *out);

#endif
