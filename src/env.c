/* SPDX-License-Identifier: MIT */
/*
 * The SLUBTRACE_* environment, read once by slub_init().
 *
 * A word the allocator does not know is a mistake the user wants to hear
 * about: a misspelt SLUBTRACE_DEBUG=FZp would otherwise run the program
 * without the checks it asked for and print nothing.  So an unknown word
 * stops the process at its first allocation with one line that names the
 * variable, the word and what is accepted, and exit status 2 (the status of
 * a usage error), before the program has done anything else:
 *
 *   slubtrace: SLUBTRACE_DEBUG: unknown flag 'X' (accepted: the letters F Z P U, '-' to clear)
 *
 * _exit(), not exit(): this runs inside the program's first malloc, maybe
 * in a constructor; its atexit handlers must not run on a half-made heap.
 *
 * Everything here runs before the allocator works: no allocation, only
 * write(2) on stderr.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void slub_env_fail(const char *var, const char *what, const char *word, size_t len,
		   const char *accepted)
{
	char buf[640];
	int n;

	n = snprintf(buf, sizeof(buf), "slubtrace: %s: %s '%.*s' (accepted: %s)\n", var, what,
		     (int)(len > 64 ? 64 : len), word, accepted);
	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, buf,
				  (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
		(void)w;
	}
	_exit(2);
}

bool slub_env_bool(const char *var, bool dflt)
{
	static const char *const yes[] = { "1", "yes", "on", "true" };
	static const char *const no[] = { "0", "no", "off", "false", "" };
	const char *v = getenv(var);

	if (!v)
		return dflt;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcasecmp(v, yes[i]))
			return true;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcasecmp(v, no[i]))
			return false;
	slub_env_fail(var, "unknown value", v, strlen(v), "1 yes on true, 0 no off false");
}

long slub_env_number(const char *var, long min, long max, long dflt)
{
	const char *v = getenv(var);
	char accepted[64];
	char *end;
	long n;

	if (!v || !*v)
		return dflt;
	n = strtol(v, &end, 10);
	if (*end || n < min || n > max) {
		snprintf(accepted, sizeof(accepted), "a number from %ld to %ld", min, max);
		slub_env_fail(var, "not a number in range", v, strlen(v), accepted);
	}
	return n;
}

/*
 * slub_debug's letters; '-' clears what came before.  A cache list after a comma
 * (slub_debug=F,kmalloc-64) is not supported: every cache gets the flags.
 */
unsigned slub_env_debug(void)
{
	static const char accepted[] = "the letters F Z P U, '-' to clear";
	const char *v = getenv("SLUBTRACE_DEBUG");
	unsigned f = 0;

	for (; v && *v; v++) {
		switch (*v) {
		case 'F': case 'f': f |= SLUB_F_CONSISTENCY; break;
		case 'Z': case 'z': f |= SLUB_F_RED_ZONE; break;
		case 'P': case 'p': f |= SLUB_F_POISON; break;
		case 'U': case 'u': f |= SLUB_F_STORE_USER; break;
		case '-': f = 0; break;
		case ',':
			slub_env_fail("SLUBTRACE_DEBUG", "cache lists are not supported, at", v,
				      strlen(v), accepted);
		default:
			slub_env_fail("SLUBTRACE_DEBUG", "unknown flag", v, 1, accepted);
		}
	}
	return f;
}

static const struct { const char *name; unsigned bit; } variant_names[] = {
	{ "old-unfreeze-partials", SLUB_VAR_OLD_UNFREEZE_PARTIALS },
	{ "perobj-deactivate", SLUB_VAR_PEROBJ_DEACTIVATE },
	{ "keep-oldpage", SLUB_VAR_KEEP_OLDPAGE },
	{ "free-keep-lock", SLUB_VAR_FREE_KEEP_LOCK },
	{ "partial-scan-bounded", SLUB_VAR_PARTIAL_SCAN_BOUNDED },
	{ "prefetch-freelist", SLUB_VAR_PREFETCH_FREELIST },
	{ "partial-counters", SLUB_VAR_PARTIAL_COUNTERS },
	{ "partial-counters-pcp", SLUB_VAR_PARTIAL_COUNTERS_PCP },
	{ "unlocked-list", SLUB_INJ_UNLOCKED_LIST },
	{ "lost-update", SLUB_INJ_LOST_UPDATE },
	{ "race-window", SLUB_INJ_RACE_WINDOW },
	{ "double-freeze", SLUB_INJ_DOUBLE_FREEZE },
	{ "lost-unfreeze", SLUB_INJ_LOST_UNFREEZE },
	{ "wrong-owner-unfreeze", SLUB_INJ_WRONG_OWNER_UNFREEZE },
	{ "early-discard", SLUB_INJ_EARLY_DISCARD },
	{ "two-sheaves", SLUB_INJ_TWO_SHEAVES },
	{ "barn-count", SLUB_INJ_BARN_COUNT },
	{ "flush-loses", SLUB_INJ_FLUSH_LOSES },
};
#define NR_VARIANT_NAMES (sizeof(variant_names) / sizeof(variant_names[0]))
#define INJECTED_MASK                                                                    \
	(SLUB_INJ_UNLOCKED_LIST | SLUB_INJ_LOST_UPDATE | SLUB_INJ_RACE_WINDOW |             \
	 SLUB_INJ_DOUBLE_FREEZE | SLUB_INJ_LOST_UNFREEZE | SLUB_INJ_WRONG_OWNER_UNFREEZE | \
	 SLUB_INJ_EARLY_DISCARD | SLUB_INJ_TWO_SHEAVES | SLUB_INJ_BARN_COUNT |                \
	 SLUB_INJ_FLUSH_LOSES)

/* SLUBTRACE_VARIANT takes the 2012 variants, SLUBTRACE_INJECT the injected
 * faults: a name in the wrong variable is a mistake too. */
static unsigned env_names(const char *var, bool injected)
{
	const char *v = getenv(var);
	char accepted[256] = "";
	unsigned mask = 0;

	for (size_t i = 0; i < NR_VARIANT_NAMES; i++) {
		if (!(variant_names[i].bit & INJECTED_MASK) != !injected)
			continue;
		if (accepted[0])
			strcat(accepted, " ");
		strcat(accepted, variant_names[i].name);
	}
	while (v && *v) {
		size_t len = strcspn(v, ", ");
		size_t i;

		for (i = 0; len && i < NR_VARIANT_NAMES; i++)
			if (!(variant_names[i].bit & INJECTED_MASK) == !injected &&
			    strlen(variant_names[i].name) == len &&
			    !strncmp(v, variant_names[i].name, len))
				break;
		if (len && i == NR_VARIANT_NAMES)
			slub_env_fail(var, "unknown name", v, len, accepted);
		if (len)
			mask |= variant_names[i].bit;
		v += len;
		while (*v == ',' || *v == ' ')
			v++;
	}
	return mask;
}

/*
 * SLUBTRACE_INJECT_DELAY=SECONDS holds the injected faults back for that
 * long after the allocator starts, so that a long-running program shows
 * clean traffic first and the fault later (the flight recorder's case).
 * Until then the faults wait in slub_inject_pending; variant() asks the
 * clock (CLOCK_MONOTONIC, a vDSO call) only for a fault still pending, on
 * the slow paths where it is tested, and nothing once they are armed.
 */
unsigned slub_inject_pending;
static uint64_t inject_at_ns;
static long inject_delay_s;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool slub_inject_arm(unsigned bit)
{
	unsigned armed;

	if (monotonic_ns() < inject_at_ns)
		return false;
	/* the first thread past the time arms them all, and says so once */
	armed = __atomic_exchange_n(&slub_inject_pending, 0, __ATOMIC_ACQ_REL);
	if (armed) {
		char buf[160];
		int n;

		__atomic_fetch_or(&slub_variant_mask, armed, __ATOMIC_RELEASE);
		n = snprintf(buf, sizeof(buf), "slubtrace: SLUBTRACE_INJECT armed after %ld s "
			     "(SLUBTRACE_INJECT_DELAY)\n", inject_delay_s);
		if (n > 0) {
			ssize_t w = write(STDERR_FILENO, buf,
					  (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
			(void)w;
		}
	}
	return (READ_ONCE(slub_variant_mask) & bit) != 0;
}

unsigned slub_env_variants(void)
{
	unsigned mask = env_names("SLUBTRACE_VARIANT", false);
	unsigned injected = env_names("SLUBTRACE_INJECT", true);

	/* up to a year: a delay is for a service that runs for hours */
	inject_delay_s = slub_env_number("SLUBTRACE_INJECT_DELAY", 0, 366L * 24 * 3600, 0);
	if (inject_delay_s && injected) {
		inject_at_ns = monotonic_ns() + (uint64_t)inject_delay_s * 1000000000u;
		__atomic_store_n(&slub_inject_pending, injected, __ATOMIC_RELEASE);
		return mask;
	}
	return mask | injected;
}

/*
 * SLUBTRACE_STACKS and SLUBTRACE_STACK_DEPTH are used by the tracing code
 * (trace.c); they are checked here, with the same parser
 * (slub_event_list_parse(), which `slubtrace record --stacks` uses too), so
 * that a mistake stops the process whether or not tracing is compiled in.
 */
void slub_env_check_stacks(void)
{
	const char *v = getenv("SLUBTRACE_STACKS"), *bad;
	char accepted[400] = "all none";
	uint64_t types;
	size_t len;

	for (unsigned t = 0; t < SLUB_EV_NR; t++)
		if (strlen(accepted) + strlen(slub_event_name(t)) + 2 < sizeof(accepted)) {
			strcat(accepted, " ");
			strcat(accepted, slub_event_name(t));
		}

	if (slub_event_list_parse(v, &types, &bad, &len) < 0)
		slub_env_fail("SLUBTRACE_STACKS", "unknown event", bad, len, accepted);
	slub_env_number("SLUBTRACE_STACK_DEPTH", 0, 1L << 20, 0);
}

/* SLUBTRACE_GENERATION: classic (Linux 6.1's cpu slabs and cpu partial
 * slabs, the default) or sheaves (Linux 7.0's per-cpu sheaves and barns). */
int slub_env_generation(void)
{
	const char *v = getenv("SLUBTRACE_GENERATION");

	if (!v || !*v || !strcmp(v, "classic"))
		return SLUB_GEN_CLASSIC;
	if (!strcmp(v, "sheaves"))
		return SLUB_GEN_SHEAVES;
	slub_env_fail("SLUBTRACE_GENERATION", "unknown generation", v, strlen(v),
		      "classic sheaves");
}
