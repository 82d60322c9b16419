// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * TAP output shared by the test programs under tools/ (tap.h). Each line
 * is flushed as it is written: a selftest reading the output must see
 * every point made before a crash or a kill.
 */
#include <stdarg.h>
#include <stdio.h>

#include "tap.h"

bool tap_verbose;
static unsigned int tap_n, tap_failed;

static void tap_line(const char *pre, const char *post, const char *fmt,
		     va_list ap)
{
	printf("%s %u - ", pre, ++tap_n);
	vprintf(fmt, ap);
	printf("%s\n", post);
	fflush(stdout);
}

void tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(ok ? "ok" : "not ok", "", fmt, ap);
	va_end(ap);
	tap_failed += !ok;
}

void tap_skip(const char *reason, const char *fmt, ...)
{
	char post[256];
	va_list ap;

	snprintf(post, sizeof(post), " # SKIP %s", reason);
	va_start(ap, fmt);
	tap_line("ok", post, fmt, ap);
	va_end(ap);
}

static void tap_vdiag(const char *fmt, va_list ap)
{
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

void tap_info(const char *fmt, ...)
{
	va_list ap;

	if (!tap_verbose)
		return;
	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

unsigned int tap_count(void)
{
	return tap_n;
}

unsigned int tap_failures(void)
{
	return tap_failed;
}
