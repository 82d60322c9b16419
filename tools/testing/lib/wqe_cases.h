/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One table of send work requests and whether siw_lite accepts them, for
 * every place that checks the rules: selftests/unit/test_wqe.c gives it
 * to the kernel's rules (drivers/siw_lite/wqe.c) directly; hostile_user's
 * wqe_rules case posts it through ib_post_send (the uverbs POST_SEND
 * command) and through a user send ring, and both must agree with it.
 *
 * The expectations come from the verbs and RFC 5040, not from the code:
 * a Read names one Data Sink STag (section 4.4), local operations move
 * no data, inline data is bounded by max_inline (64 on siw_lite), no
 * message is longer than 2^31 bytes, an SQ takes at most max_send_sge (6)
 * SGEs.  @len is spread over @num_sge SGEs; an inline WQE on a ring
 * carries its @len bytes in the entry instead.
 */
#ifndef WQE_CASES_H
#define WQE_CASES_H

#include <stdbool.h>

enum wqe_case_op {
	WQE_OP_SEND,
	WQE_OP_SEND_INV,
	WQE_OP_WRITE,
	WQE_OP_READ,
	WQE_OP_READ_INV,	/* kernel ULPs only */
	WQE_OP_REG_MR,		/* kernel ULPs only */
	WQE_OP_LOCAL_INV,	/* kernel ULPs and rings, not uverbs */
	WQE_OP_BOGUS,		/* an opcode siw_lite does not execute */
};

struct wqe_case {
	enum wqe_case_op op;
	bool inline_data;
	unsigned int num_sge;
	unsigned long long len;
	bool ok;
};

#define WQE_CASE_2G	(1ULL << 31)

static const struct wqe_case wqe_cases[] = {
	/* data-moving operations: up to 6 SGEs, 2^31 bytes */
	{ WQE_OP_SEND, false, 0, 0, true },
	{ WQE_OP_SEND, false, 6, 6 * 4096, true },
	{ WQE_OP_SEND, false, 7, 7, false },
	{ WQE_OP_SEND_INV, false, 1, 1, true },
	{ WQE_OP_WRITE, false, 6, WQE_CASE_2G, true },
	{ WQE_OP_WRITE, false, 2, WQE_CASE_2G + 1, false },
	{ WQE_OP_WRITE, false, 6, 6 * 0xffffffffULL, false },
	/* inline: Sends and Writes, at most 64 bytes */
	{ WQE_OP_SEND, true, 1, 64, true },
	{ WQE_OP_SEND, true, 2, 65, false },
	{ WQE_OP_SEND_INV, true, 1, 8, true },
	{ WQE_OP_WRITE, true, 0, 0, true },
	{ WQE_OP_WRITE, true, 6, 60, true },
	{ WQE_OP_READ, true, 1, 8, false },
	/* Reads: one sink SGE, zero-length allowed */
	{ WQE_OP_READ, false, 0, 0, true },
	{ WQE_OP_READ, false, 1, WQE_CASE_2G, true },
	{ WQE_OP_READ, false, 2, 2, false },
	{ WQE_OP_READ_INV, false, 1, 4096, true },
	{ WQE_OP_READ_INV, false, 0, 0, false },
	{ WQE_OP_READ_INV, false, 2, 2, false },
	{ WQE_OP_READ_INV, true, 1, 8, false },
	/* local operations: no SGEs, nothing inline */
	{ WQE_OP_LOCAL_INV, false, 0, 0, true },
	{ WQE_OP_LOCAL_INV, false, 1, 8, false },
	{ WQE_OP_LOCAL_INV, true, 0, 0, false },
	{ WQE_OP_REG_MR, false, 0, 0, true },
	{ WQE_OP_REG_MR, false, 1, 8, false },
	{ WQE_OP_REG_MR, true, 0, 0, false },
	{ WQE_OP_BOGUS, false, 0, 0, false },
};

#endif /* WQE_CASES_H */
