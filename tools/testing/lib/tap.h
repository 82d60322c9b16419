/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * TAP output of the test programs under tools/: one numbered line per
 * point, diagnostics as comments. The caller prints the plan ("1..N",
 * from tap_count()) at the end, when it knows how many points ran.
 */
#ifndef SIWL_TOOLS_TAP_H
#define SIWL_TOOLS_TAP_H

#include <stdbool.h>

/* tap_info() prints only when this is set (the programs' --verbose). */
extern bool tap_verbose;

void tap_ok(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_skip(const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tap_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned int tap_count(void);
unsigned int tap_failures(void);

#endif
