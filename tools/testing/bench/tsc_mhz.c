// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_mhz - the rate of the x86 time stamp counter against CLOCK_MONOTONIC,
 * in MHz (median of a few half-second samples).
 *
 * perftest times everything in TSC cycles and converts with a rate it
 * samples itself over a few milliseconds; on a busy TCG host that sample
 * often fails ("Correlation coefficient r^2 < 0.9") and perftest prints
 * 0.00 or inf.  scripts/bench-guest.sh asks perftest for cycles (-C) and
 * converts them with this longer, load-tolerant measurement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define SAMPLES 5

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	struct timespec half = { 0, 500000000 };
	double mhz[SAMPLES], t0, t1;
	unsigned long long c0, c1;
	int i;

	for (i = 0; i < SAMPLES; i++) {
		t0 = now_ns();
		c0 = __rdtsc();
		nanosleep(&half, NULL);
		c1 = __rdtsc();
		t1 = now_ns();
		mhz[i] = (double)(c1 - c0) / (t1 - t0) * 1e3;
	}
	qsort(mhz, SAMPLES, sizeof(mhz[0]), cmp_double);
	printf("%.3f\n", mhz[SAMPLES / 2]);
	return mhz[SAMPLES / 2] > 0 ? 0 : 1;
}
