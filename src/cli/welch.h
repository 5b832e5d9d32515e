/* SPDX-License-Identifier: MIT */
/*
 * Two-sample statistics of `slubtrace compare`: mean and standard deviation
 * of each side, and the difference of the means with its confidence
 * interval by Welch's t (unequal variances, Welch-Satterthwaite degrees of
 * freedom, the t quantile computed for those degrees, not rounded to an
 * integer nor replaced by 1.96).
 */
#ifndef SLUBTRACE_WELCH_H
#define SLUBTRACE_WELCH_H

#include <stdbool.h>

struct welch_side {
	unsigned n;
	double mean, sd;	/* sd: sample standard deviation (n - 1) */
};

struct welch {
	struct welch_side a, b;
	double diff;		/* b.mean - a.mean */
	double df;		/* Welch-Satterthwaite; INFINITY when both sds are 0 */
	double t_crit;		/* two-sided quantile at `level` for df */
	double lo, hi;		/* the interval of diff */
	bool valid;		/* both sides have at least 2 values */
	bool significant;	/* the interval excludes 0 */
};

void welch_side_of(const double *v, unsigned n, struct welch_side *out);
/* Regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double welch_betai(double a, double b, double x);
/* Two-sided P(|T| > t) for Student's t with df degrees of freedom (df > 0). */
double welch_t_sf2(double t, double df);
/* The t with P(|T| > t) = 1 - level, e.g. level 0.95: 12.706 for df 1. */
double welch_t_quantile(double level, double df);
/* The difference b - a at confidence `level` (0.95). */
void welch_compare(const double *a, unsigned na, const double *b, unsigned nb, double level,
		   struct welch *out);

#endif /* SLUBTRACE_WELCH_H */
