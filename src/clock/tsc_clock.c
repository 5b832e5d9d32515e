/* SPDX-License-Identifier: MIT */
/*
 * libslub-tsc-clock.so: an LTTng-UST clock plugin (LTTNG_UST_CLOCK_PLUGIN)
 * that reads the invariant TSC instead of clock_gettime(CLOCK_MONOTONIC).
 *
 * The trace clock is the TSC itself, in cycles: every process that loads
 * the plugin (the traced programs, the session daemon that writes the
 * metadata and the consumer daemon that closes packets) reads the same
 * counter, so their timestamps are comparable without any per-process
 * calibration.  Only the frequency, which the session daemon writes in the
 * metadata to turn cycles into seconds, is measured: against
 * CLOCK_MONOTONIC_RAW, once per process that asks for it.
 *
 * The TSC is used only where it is one clock for the whole machine:
 * cpuid says it is invariant (constant rate in every P- and C-state:
 * leaf 0x80000007, EDX bit 8) and the kernel still offers it as a
 * clocksource (it withdraws "tsc" from available_clocksource when its
 * checks find the CPUs' counters out of step).  Otherwise, or with
 * SLUBTRACE_TSC_CLOCK=off, the plugin leaves LTTng-UST's own clock in
 * place.  Every process on one machine reaches the same answer, so the
 * daemons and the programs agree.  SLUBTRACE_TSC_CLOCK=force skips the
 * kernel's verdict (not cpuid's), to measure the plugin on a machine whose
 * kernel distrusts its TSC: such a trace's CPUs may disagree.
 *
 * Reads are `lfence; rdtsc`: the fence keeps the read from being executed
 * before the instructions that precede it (a lock acquisition, a CAS), so
 * that an event ordered after another by memory is not stamped before it.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lttng/ust-clock.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define TSC_ARCH 1
#else
#define TSC_ARCH 0
#endif

#define CALIBRATE_NS 20000000ull	/* 20 ms */

void lttng_ust_clock_plugin_init(void);
int slub_tsc_clock_usable(char *why, size_t size);

#if TSC_ARCH
static uint64_t tsc_read(void)
{
	_mm_lfence();
	return __rdtsc();
}

static uint64_t mono_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Cycles per second: the TSC against CLOCK_MONOTONIC_RAW over 20 ms,
 * each end taken as the tightest of a few paired reads. */
static uint64_t tsc_measure_freq(void)
{
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0, best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = tsc_read(), n = mono_raw_ns(), b = tsc_read();

		if (b - a < best) {
			best = b - a;
			t0 = a + (b - a) / 2;
			n0 = n;
		}
	}
	do {
		n1 = mono_raw_ns();
	} while (n1 - n0 < CALIBRATE_NS);
	best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t a = tsc_read(), n = mono_raw_ns(), b = tsc_read();

		if (b - a < best) {
			best = b - a;
			t1 = a + (b - a) / 2;
			n1 = n;
		}
	}
	return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0));
}

static uint64_t tsc_freq(void)
{
	static uint64_t freq;
	uint64_t f = __atomic_load_n(&freq, __ATOMIC_RELAXED);

	if (!f) {
		f = tsc_measure_freq();
		__atomic_store_n(&freq, f, __ATOMIC_RELAXED);
	}
	return f;
}

/* The clock's identity: this boot's, as LTTng's own clock has it (the
 * TSC restarts with the machine).  The session daemon asks for it. */
static int tsc_uuid(char *uuid)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	int ok;

	if (!f)
		return -1;
	ok = fread(uuid, 1, LTTNG_UST_UUID_STR_LEN - 1, f) == LTTNG_UST_UUID_STR_LEN - 1;
	fclose(f);
	uuid[LTTNG_UST_UUID_STR_LEN - 1] = '\0';
	return ok ? 0 : -1;
}

static const char *tsc_name(void)
{
	return "slubtrace_tsc";
}

static const char *tsc_description(void)
{
	return "Invariant TSC (rdtsc), cycles";
}

static bool cpu_invariant_tsc(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return d & (1u << 8);
}

/* The kernel's verdict on the counters across CPUs. */
static bool kernel_offers_tsc(void)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/available_clocksource",
			"r");
	char line[256], *tok, *save;
	bool found = false;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, "tsc"))
				found = true;
	fclose(f);
	return found;
}
#endif

/*
 * Whether this machine's TSC can be the trace clock; if not, why (for
 * the message of whoever asked).  Exported for `slubtrace record` and the
 * tests.
 */
int slub_tsc_clock_usable(char *why, size_t size)
{
	const char *off = getenv("SLUBTRACE_TSC_CLOCK");

	if (off && !strcmp(off, "off")) {
		snprintf(why, size, "SLUBTRACE_TSC_CLOCK=off");
		return 0;
	}
#if TSC_ARCH
	if (!cpu_invariant_tsc()) {
		snprintf(why, size, "the CPU does not report an invariant TSC");
		return 0;
	}
	if (!(off && !strcmp(off, "force")) && !kernel_offers_tsc()) {
		snprintf(why, size, "the kernel does not offer the TSC as a clocksource "
			 "(its counters may be out of step across CPUs)");
		return 0;
	}
	return 1;
#else
	snprintf(why, size, "no TSC on this architecture");
	return 0;
#endif
}

void lttng_ust_clock_plugin_init(void)
{
	char why[160];

	if (!slub_tsc_clock_usable(why, sizeof(why)))
		return;	/* LTTng-UST's CLOCK_MONOTONIC stays */
#if TSC_ARCH
	if (lttng_ust_trace_clock_set_read64_cb(tsc_read) ||
	    lttng_ust_trace_clock_set_freq_cb(tsc_freq) ||
	    lttng_ust_trace_clock_set_uuid_cb(tsc_uuid) ||
	    lttng_ust_trace_clock_set_name_cb(tsc_name) ||
	    lttng_ust_trace_clock_set_description_cb(tsc_description) ||
	    lttng_ust_enable_trace_clock_override())
		fprintf(stderr, "libslub-tsc-clock: LTTng-UST refused the clock override; "
			"its own clock stays\n");
#endif
}
