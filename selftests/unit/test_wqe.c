// SPDX-License-Identifier: GPL-2.0
/*
 * The work request rules of wqe.c, which both posting paths (ib_post_send
 * and the user rings) apply, against the table in
 * tools/testing/lib/wqe_cases.h that tools/testing/hostile_user also posts
 * through both paths in the guest.
 */
#include "unit.h"
#include "wqe.h"
/* tools/testing/lib: the table hostile_user posts too */
#include "wqe_cases.h"

static const struct siwl_sq_limits lim = { .max_sge = 6, .max_inline = 64 };

static const enum siwl_sq_kind kinds[] = {
	[WQE_OP_SEND] = SIWL_SQK_SEND,
	[WQE_OP_SEND_INV] = SIWL_SQK_SEND_INV,
	[WQE_OP_WRITE] = SIWL_SQK_WRITE,
	[WQE_OP_READ] = SIWL_SQK_READ,
	[WQE_OP_READ_INV] = SIWL_SQK_READ_INV,
	[WQE_OP_REG_MR] = SIWL_SQK_REG_MR,
	[WQE_OP_LOCAL_INV] = SIWL_SQK_LOCAL_INV,
	[WQE_OP_BOGUS] = (enum siwl_sq_kind)42,
};

/* Both steps, in the order every path takes them. */
static int sq_check(const struct wqe_case *c)
{
	int rv = siwl_sqe_check_shape(&lim, kinds[c->op], c->inline_data,
				      c->num_sge);

	return rv ?: siwl_sqe_check_len(&lim, c->inline_data, c->len);
}

static void wqe_send_table(void)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(wqe_cases); i++) {
		const struct wqe_case *c = &wqe_cases[i];
		int rv = sq_check(c);

		if (rv != (c->ok ? 0 : -EINVAL))
			unit_fail(__FILE__, __LINE__,
				  "case %zu (op %d, inline %d, %u SGEs, %llu bytes): %d, want %s",
				  i, c->op, c->inline_data, c->num_sge, c->len,
				  rv, c->ok ? "0" : "-EINVAL");
	}
}

/* The shape check alone must stop an SGE count beyond the array. */
static void wqe_send_sge_bound(void)
{
	u32 n;

	for (n = 0; n <= 255; n++) {
		int rv = siwl_sqe_check_shape(&lim, SIWL_SQK_SEND, false, n);

		CHECK_EQ(rv, n <= SIWL_MAX_SGE ? 0 : -EINVAL);
	}
	CHECK_EQ(siwl_sqe_check_shape(&lim, SIWL_SQK_SEND, false, U32_MAX),
		 -EINVAL);
}

static void wqe_recv(void)
{
	CHECK_EQ(siwl_rqe_check(6, 0), 0);
	CHECK_EQ(siwl_rqe_check(6, 6), 0);
	CHECK_EQ(siwl_rqe_check(6, 7), -EINVAL);
	CHECK_EQ(siwl_rqe_check(1, 2), -EINVAL);
	CHECK_EQ(siwl_rqe_check(6, U32_MAX), -EINVAL);
	CHECK_EQ(siwl_rqe_check_len(0), 0);
	CHECK_EQ(siwl_rqe_check_len(1ULL << 31), 0);
	CHECK_EQ(siwl_rqe_check_len((1ULL << 31) + 1), -EINVAL);
	CHECK_EQ(siwl_rqe_check_len(6ULL * 0xffffffff), -EINVAL);
}

const struct unit_test wqe_tests[] = {
	UNIT_TEST(wqe_send_table),
	UNIT_TEST(wqe_send_sge_bound),
	UNIT_TEST(wqe_recv),
};

const size_t wqe_tests_n = ARRAY_LEN(wqe_tests);
