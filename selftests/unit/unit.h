/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP harness for the wire-format unit tests. A test is a function
 * that runs CHECK*() assertions; any failed assertion prints a diagnostic
 * and makes the test "not ok". Expected values are written out from the
 * RFC text in each test, never produced by the code under test.
 */
#ifndef _SIW_LITE_UNIT_H
#define _SIW_LITE_UNIT_H

#include <stdio.h>
#include "wire_compat.h"
#include "iwarp.h"

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT_TEST(fn)	{ #fn, fn }

extern int unit_fails;

void unit_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void unit_hexdump(const char *tag, const void *buf, size_t len);

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			unit_fail(__FILE__, __LINE__, "%s", #cond);	\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long _a = (unsigned long long)(a);	\
		unsigned long long _b = (unsigned long long)(b);	\
		if (_a != _b)						\
			unit_fail(__FILE__, __LINE__,			\
				  "%s == %s: 0x%llx != 0x%llx",		\
				  #a, #b, _a, _b);			\
	} while (0)

#define CHECK_MEM(a, b, n)						\
	do {								\
		if (memcmp((a), (b), (n))) {				\
			unit_fail(__FILE__, __LINE__, "memcmp(%s, %s)",	\
				  #a, #b);				\
			unit_hexdump("got", (a), (n));			\
			unit_hexdump("want", (b), (n));			\
		}							\
	} while (0)

/* A check that must have produced exactly this Terminate. */
#define CHECK_TERM(t, l, e, c, h)					\
	do {								\
		CHECK_EQ((t)->valid, 1);				\
		CHECK_EQ((t)->layer, (l));				\
		CHECK_EQ((t)->etype, (e));				\
		CHECK_EQ((t)->ecode, (c));				\
		CHECK_EQ((t)->hdrct, (h));				\
	} while (0)

#define CHECK_NO_TERM(t)	CHECK_EQ((t)->valid, 0)

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

extern const struct unit_test crc_tests[];
extern const size_t crc_tests_n;
extern const struct unit_test mpa_tests[];
extern const size_t mpa_tests_n;
extern const struct unit_test ddp_tests[];
extern const size_t ddp_tests_n;
extern const struct unit_test term_tests[];
extern const size_t term_tests_n;
extern const struct unit_test place_tests[];
extern const size_t place_tests_n;
extern const struct unit_test wqe_tests[];
extern const size_t wqe_tests_n;

#endif /* _SIW_LITE_UNIT_H */
