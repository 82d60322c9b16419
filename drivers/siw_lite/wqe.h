/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules every work request obeys, however it was posted: a kernel ULP
 * or uverbs through ib_post_send()/ib_post_recv(), or a process through
 * its shared rings. Each path decodes its own encoding, then asks these
 * functions, so the paths cannot disagree on what is a valid WQE. Pure
 * functions over plain numbers (wire_compat.h), unit-tested in user space.
 */
#ifndef _SIW_LITE_WQE_H
#define _SIW_LITE_WQE_H

#include "wire_compat.h"

/*
 * RFC 5040 section 5.1 leaves the message size to the ULP; the RDMAC verbs
 * cap it at 2^31 bytes, for sends and receives alike.
 */
#define SIWL_MAX_MSG_SIZE	BIT(31)

/* SGEs per WQE (device limits); RFC 5040 section 4.4: one per Read sink. */
#define SIWL_MAX_SGE		6
#define SIWL_MAX_SGE_RD		1

/* What a send WQE asks for, whichever opcode encoding it came in. */
enum siwl_sq_kind {
	SIWL_SQK_SEND,
	SIWL_SQK_SEND_INV,
	SIWL_SQK_WRITE,
	SIWL_SQK_READ,
	SIWL_SQK_READ_INV,
	SIWL_SQK_REG_MR,
	SIWL_SQK_LOCAL_INV,
};

/* A send queue's limits, fixed when the QP is created. */
struct siwl_sq_limits {
	u32 max_sge;
	u32 max_inline;
};

int siwl_sqe_check_shape(const struct siwl_sq_limits *lim,
			 enum siwl_sq_kind kind, bool inline_data,
			 u32 num_sge);
int siwl_sqe_check_len(const struct siwl_sq_limits *lim, bool inline_data,
		       u64 len);
int siwl_rqe_check(u32 max_sge, u32 num_sge);
int siwl_rqe_check_len(u64 len);

#endif
