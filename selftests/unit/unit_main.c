// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every unit test and reports in TAP, ending with the plain
 * "N passed, N failed" line. Exit status is non-zero if any test failed.
 */
#include <stdarg.h>
#include <stdlib.h>
#include "unit.h"

int unit_fails;

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	unit_fails++;
	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void unit_hexdump(const char *tag, const void *buf, size_t len)
{
	const u8 *p = buf;
	size_t i;

	printf("#   %-4s", tag);
	for (i = 0; i < len; i++)
		printf("%s%02x", i && !(i % 16) ? "\n#       " : " ", p[i]);
	printf("\n");
}

struct unit_group {
	const struct unit_test *tests;
	const size_t *n;
};

int main(void)
{
	const struct unit_group groups[] = {
		{ crc_tests, &crc_tests_n },
		{ mpa_tests, &mpa_tests_n },
		{ ddp_tests, &ddp_tests_n },
		{ term_tests, &term_tests_n },
		{ place_tests, &place_tests_n },
		{ wqe_tests, &wqe_tests_n },
	};
	size_t g, i, total = 0, num = 0, passed = 0, failed = 0;

	for (g = 0; g < ARRAY_LEN(groups); g++)
		total += *groups[g].n;
	printf("1..%zu\n", total);

	for (g = 0; g < ARRAY_LEN(groups); g++) {
		for (i = 0; i < *groups[g].n; i++) {
			const struct unit_test *t = &groups[g].tests[i];

			unit_fails = 0;
			t->fn();
			num++;
			if (unit_fails) {
				failed++;
				printf("not ok %zu - %s\n", num, t->name);
			} else {
				passed++;
				printf("ok %zu - %s\n", num, t->name);
			}
		}
	}
	printf("%zu passed, %zu failed\n", passed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
