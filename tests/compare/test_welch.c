/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of `slubtrace compare`: the t quantile for integer and
 * fractional degrees of freedom (the fractional references were computed by
 * integrating the t density numerically, an independent method), and
 * Welch's interval on samples worked out by hand.
 */
#include <math.h>
#include <stdio.h>

#include "welch.h"

static int failures;

static void near(const char *what, double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol)) {
		printf("FAIL %s: %.9g, want %.9g (+-%g)\n", what, got, want, tol);
		failures++;
	} else {
		printf("ok   %s: %.6f\n", what, got);
	}
}

int main(void)
{
	static const struct { double df, q; } t975[] = {
		{ 1, 12.7062047 }, { 2, 4.30265273 }, { 3, 3.18244631 }, { 4, 2.77644511 },
		{ 5, 2.57058184 }, { 8, 2.30600414 }, { 10, 2.22813885 }, { 30, 2.04227246 },
		{ 100, 1.98397152 }, { 2.5, 3.574655 }, { 7.3, 2.345067 },
	};
	char what[64];
	struct welch w;

	for (unsigned i = 0; i < sizeof(t975) / sizeof(t975[0]); i++) {
		snprintf(what, sizeof(what), "t(0.975, df %g)", t975[i].df);
		near(what, welch_t_quantile(0.95, t975[i].df), t975[i].q, 2e-4);
	}
	near("t(0.975, df inf) = z", welch_t_quantile(0.95, INFINITY), 1.95996398, 1e-6);
	near("t(0.995, df 4)", welch_t_quantile(0.99, 4), 4.60409487, 1e-5);
	near("I_0.3(2, 3)", welch_betai(2, 3, 0.3), 0.3483, 1e-9);

	/* a = 1..5 (mean 3, var 2.5), b = 2,4,6,8,10 (mean 6, var 10):
	 * se^2 = 0.5 + 2 = 2.5, df = 6.25 / (0.25/4 + 4/4) = 5.882352941 */
	{
		const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10 };
		welch_compare(a, 5, b, 5, 0.95, &w);
		near("mean a", w.a.mean, 3, 1e-12);
		near("sd b", w.b.sd, sqrt(10), 1e-12);
		near("diff", w.diff, 3, 1e-12);
		near("Welch df", w.df, 5.882352941, 1e-8);
		near("half-width", w.hi - w.diff, w.t_crit * sqrt(2.5), 1e-12);
		/* t(0.975, 5.88) lies between t(5) and t(6) */
		if (!(w.t_crit < 2.57058184 && w.t_crit > 2.44691185)) {
			printf("FAIL t_crit %.6f not between t(6) and t(5)\n", w.t_crit);
			failures++;
		}
		/* 3 against a half-width of about 3.89: not significant */
		if (w.significant || !(w.lo < 0)) {
			printf("FAIL [%.3f, %.3f] should hold 0\n", w.lo, w.hi);
			failures++;
		}
	}
	/* the same spread 10 higher: significant */
	{
		const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 12, 14, 16, 18, 20 };
		welch_compare(a, 5, b, 5, 0.95, &w);
		if (!w.significant || !(w.lo > 0)) {
			printf("FAIL [%.3f, %.3f] should exclude 0\n", w.lo, w.hi);
			failures++;
		}
	}
	/* overlapping samples: the interval holds 0 */
	{
		const double a[] = { 10, 12, 11, 13 }, b[] = { 11, 12, 10, 14 };
		welch_compare(a, 4, b, 4, 0.95, &w);
		if (w.significant || !(w.lo < 0 && w.hi > 0)) {
			printf("FAIL [%.3f, %.3f] should hold 0\n", w.lo, w.hi);
			failures++;
		}
	}
	/* exact sides: no spread, the difference is significant iff not 0 */
	{
		const double a[] = { 5, 5, 5 }, b[] = { 5, 5, 5 }, c[] = { 6, 6, 6 };
		welch_compare(a, 3, b, 3, 0.95, &w);
		if (w.significant || w.lo != 0 || w.hi != 0) {
			printf("FAIL equal exact sides\n");
			failures++;
		}
		welch_compare(a, 3, c, 3, 0.95, &w);
		if (!w.significant || w.diff != 1) {
			printf("FAIL different exact sides\n");
			failures++;
		}
	}
	/* one run: no interval */
	{
		const double a[] = { 1 }, b[] = { 2, 3 };
		welch_compare(a, 1, b, 2, 0.95, &w);
		if (w.valid || w.significant) {
			printf("FAIL one run gave an interval\n");
			failures++;
		}
	}
	printf("%s\n", failures ? "FAILED" : "all passed");
	return failures != 0;
}
