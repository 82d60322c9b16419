// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test of pattern.c: plans, layouts and pattern checks are what
 * decides pass/fail in verbs_test, so they are checked themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

static int fails;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("FAIL %s:%d: ", __FILE__, __LINE__);	\
			printf(__VA_ARGS__);				\
			printf("\n");					\
			fails++;					\
		}							\
	} while (0)

/* The TAP helpers are only linked, never called here. */
void tap_diag(const char *fmt, ...)
{
	(void)fmt;
}

static void plans(void)
{
	struct vt_plan p, q;
	uint32_t budget = 20u << 20, max = 8u << 20;
	uint64_t seed, total, end;
	unsigned int i, zero, big, one;

	for (seed = 1; seed < 200; seed++) {
		vt_plan_make(&p, seed * 7919, 0x101, budget, max, false);
		vt_plan_make(&q, seed * 7919, 0x101, budget, max, false);
		CHECK(!memcmp(&p, &q, sizeof(p)), "plan not deterministic");
		CHECK(p.n >= 3 && p.n <= VT_PLAN_MAX, "n %u", p.n);
		total = 0;
		zero = 0;
		big = 0;
		one = 0;
		end = 0;
		for (i = 0; i < p.n; i++) {
			CHECK(p.size[i] <= max, "size %u", p.size[i]);
			total += p.size[i];
			zero += !p.size[i];
			big += p.size[i] == max;
			one += p.size[i] == 1;
			CHECK(p.roff[i] >= end, "remote regions overlap");
			end = p.roff[i] + p.size[i];
		}
		CHECK(total == p.total && total <= budget, "total %llu",
		      (unsigned long long)total);
		CHECK(zero && big && one, "edges missing");
		CHECK(p.rspan >= end, "rspan");
	}
	vt_plan_make(&p, 1, 1, 100, 1000, false);
	CHECK(p.total <= 100, "small budget");
	vt_plan_make(&q, 1, 2, budget, max, false);
	vt_plan_make(&p, 1, 1, budget, max, false);
	CHECK(memcmp(p.size, q.size, sizeof(p.size)), "streams differ");

	/* --no-empty: every size at least one byte, both edges still there */
	for (seed = 1; seed < 200; seed++) {
		vt_plan_make(&p, seed * 104729, 0x202, budget, max, true);
		for (i = 0, big = 0, one = 0; i < p.n; i++) {
			CHECK(p.size[i], "empty size with no_empty");
			big += p.size[i] == max;
			one += p.size[i] == 1;
		}
		CHECK(big && one, "edges missing with no_empty");
	}
}

static void layouts(void)
{
	static uint8_t buf[1 << 20];
	struct vt_layout l;
	struct vt_rng r;
	uint64_t cursor, key = vt_pat_key(42, 3, 4);
	uint32_t cap, sum;
	unsigned int i, j, max_sge;
	char why[160];

	vt_rng_init(&r, 42, 1, 2);
	for (i = 0; i < 2000; i++) {
		cap = i < 10 ? i : vt_rand_range(&r, 0, 100000);
		max_sge = 1 + i % 6;
		memset(buf, VT_CANARY, sizeof(buf));
		cursor = vt_rand_range(&r, 0, 100);
		vt_layout_make(&l, &r, buf, 7, &cursor, cap, max_sge);
		CHECK(l.nsge <= max_sge && (cap ? l.nsge >= 1 : !l.nsge),
		      "nsge %u cap %u", l.nsge, cap);
		CHECK(cursor - l.start <= vt_layout_room(cap), "room");
		for (sum = 0, j = 0; j < l.nsge; j++) {
			CHECK(l.sge[j].length, "empty piece");
			CHECK(l.sge[j].lkey == 7, "lkey");
			CHECK(!j || l.sge[j].addr >= l.sge[j - 1].addr +
			      l.sge[j - 1].length, "pieces overlap");
			sum += l.sge[j].length;
		}
		CHECK(sum == cap && l.cap == cap, "cap");

		/* a message of len <= cap scattered like a receive would */
		if (cap) {
			uint32_t len = vt_rand_range(&r, 0, cap);
			uint32_t left = len, k;

			for (j = 0; j < l.nsge && left; j++) {
				k = VT_MIN(left, l.sge[j].length);
				vt_pat_fill((void *)(uintptr_t)l.sge[j].addr,
					    key, len - left, k);
				left -= k;
			}
			CHECK(vt_layout_check(&l, buf, key, len, true, why,
					      sizeof(why)), "check: %s", why);
			if (len) {
				/* flip one data byte */
				uint8_t *p = (uint8_t *)(uintptr_t)l.sge[0].addr;

				p[0] ^= 1;
				CHECK(!vt_layout_check(&l, buf, key, len, true,
						       why, sizeof(why)),
				      "missed a wrong byte");
				p[0] ^= 1;
			}
			if (len < cap || l.nsge > 1 || l.start) {
				/* a stray write into a gap or the slack */
				uint8_t *p = buf + l.end - 1;
				uint64_t ap = (uintptr_t)p;
				bool data = false;

				for (j = 0; j < l.nsge; j++)
					if (ap >= l.sge[j].addr &&
					    ap < l.sge[j].addr + l.sge[j].length)
						data = true;
				if (!data || len < cap) {
					uint8_t old = *p;

					*p = 0x11;
					CHECK(!vt_layout_check(&l, buf, key,
							       len, true, why,
							       sizeof(why)),
					      "missed a stray byte");
					*p = old;
				}
			}
		}
	}
}

static void patterns(void)
{
	static uint8_t a[4096], b[4096];
	uint64_t key = vt_pat_key(1, 2, 3);
	unsigned int off, len;

	vt_pat_fill(a, key, 0, sizeof(a));
	for (off = 0; off < 64; off++)
		for (len = 0; len < 100; len += 7) {
			memset(b, 0, sizeof(b));
			vt_pat_fill(b, key, off, len);
			CHECK(!memcmp(a + off, b, len), "fill off %u len %u",
			      off, len);
			CHECK(vt_pat_check(a + off, key, off, len) == SIZE_MAX,
			      "check off %u len %u", off, len);
			if (len) {
				b[len - 1] ^= 0x80;
				CHECK(vt_pat_check(b, key, off, len) == len - 1,
				      "mismatch index");
			}
		}
	CHECK(vt_pat_check(a, vt_pat_key(1, 2, 4), 0, 64) != SIZE_MAX,
	      "keys differ");
}

int main(void)
{
	plans();
	layouts();
	patterns();
	printf("pattern_test: %s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
