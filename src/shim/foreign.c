// SPDX-License-Identifier: MIT
/*
 * Pointers the shim did not hand out.
 *
 * A process running on the shim can still own memory from elsewhere: blocks
 * the dynamic loader carved with its own minimal allocator before the shim
 * was reachable, blocks of another allocator loaded earlier, or plain bugs.
 * The page layer's ownership check (slub_ptr_lookup() == SLUB_OWNER_NONE)
 * finds them; the shim then never writes to them and never frees them: free
 * leaks them, malloc_usable_size says 0, realloc copies into a new block.
 *
 * Reporting is off by default, because a correct program can hand such a
 * pointer back (a library unloaded by dlclose frees what the loader
 * allocated at startup) and its output must not change.  It is on when
 * SLUBTRACE_DEBUG names F (or is set without letters, like slub_debug) or
 * SLUBTRACE_REPORT_FOREIGN=1.  Each address is reported once; a fixed table
 * remembers the first SHIM_FOREIGN_SLOTS of them.
 *
 * Nothing here allocates: this runs inside free().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

#define SHIM_FOREIGN_SLOTS 4096u
#define SHIM_FOREIGN_PROBE 32u

static bool shim_foreign_verbose;
static _Atomic uintptr_t shim_foreign_seen[SHIM_FOREIGN_SLOTS];
static atomic_bool shim_foreign_table_full;

void shim_foreign_init(void)
{
	const char *dbg = getenv("SLUBTRACE_DEBUG");
	const char *rep = getenv("SLUBTRACE_REPORT_FOREIGN");

	/* a value that is not a yes or a no stops the process (env.c) */
	if (rep && *rep)
		shim_foreign_verbose = slub_env_bool("SLUBTRACE_REPORT_FOREIGN", false);
	else if (dbg)
		shim_foreign_verbose = !*dbg || strchr(dbg, 'F') || strchr(dbg, 'f');
}

/* true the first time p is seen (or when it cannot be remembered) */
static bool shim_foreign_first(uintptr_t p)
{
	uint64_t h = (uint64_t)(p >> 4) * 0x9e3779b97f4a7c15ull;
	unsigned i;

	for (i = 0; i < SHIM_FOREIGN_PROBE; i++) {
		_Atomic uintptr_t *slot = &shim_foreign_seen[(h + i) % SHIM_FOREIGN_SLOTS];
		uintptr_t cur = atomic_load_explicit(slot, memory_order_relaxed);

		if (cur == p)
			return false;
		if (!cur && atomic_compare_exchange_strong(slot, &cur, p))
			return true;
		if (cur == p)
			return false;
	}
	return !atomic_exchange(&shim_foreign_table_full, true);
}

void shim_foreign_report(const char *what, const void *p)
{
	char buf[200];
	int saved = errno, n;

	if (!shim_foreign_verbose || !shim_foreign_first((uintptr_t)p))
		goto out;
	n = snprintf(buf, sizeof(buf),
		     "slubtrace: note: %s(%p): not allocated by slubtrace, left alone\n",
		     what, p);
	if (n > 0 && write(STDERR_FILENO, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0) {
		/* nowhere else to say it */
	}
out:
	errno = saved;
}

/*
 * The bytes of a foreign block beyond its first page cannot be known to be
 * mapped.  A write(2) into a pipe reads the source with the kernel's fault
 * handling: EFAULT instead of SIGSEGV.  Sources are fed one page at a time so
 * that a fault ends the copy exactly at a page boundary.  When no pipe can be
 * made (out of descriptors) the copy stops at the end of the first page,
 * which is readable because the block's first byte is.
 */
size_t shim_copy_readable(void *dst, const void *src, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t done = 0;
	int fds[2];

	if (!n)
		return 0;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
		size_t room = page - ((uintptr_t)src & (page - 1));

		done = n < room ? n : room;
		memcpy(dst, src, done);
		return done;
	}
	while (done < n) {
		const char *s = (const char *)src + done;
		size_t piece = page - ((uintptr_t)s & (page - 1));
		ssize_t w, r;
		size_t got = 0;

		if (piece > n - done)
			piece = n - done;
		w = write(fds[1], s, piece);
		if (w <= 0)
			break;
		while (got < (size_t)w) {
			r = read(fds[0], (char *)dst + done + got, (size_t)w - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		done += got;
		if (got != piece)
			break;
	}
	close(fds[0]);
	close(fds[1]);
	return done;
}
