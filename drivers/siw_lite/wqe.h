/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules every work request obeys, however it was posted: a kernel ULP
 * or uverbs through ib_post_send()/ib_post_recv(), or a process through
 * its shared rings. Each path decodes its own encoding, then asks these
 * functions, so the paths cannot disagree on what is a valid WQE; the
 * result is the internal WQE defined here, which the data path executes.
 * Pure functions over plain numbers (wire_compat.h), unit-tested in user
 * space.
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

/* Bytes a send WQE may carry inline (device limit). */
#define SIWL_MAX_INLINE		64

struct ib_mr;

/* Scatter/gather element as the data path uses it (validated at post). */
struct siwl_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

/* Receive WQE, for a QP's RQ or an SRQ. */
struct siwl_rqe {
	u64 wr_id;
	u32 num_sge;
	u32 total_len;
	struct siwl_sge sge[SIWL_MAX_SGE];
};

/* siwl_sqe.flags */
#define SIWL_WQE_SIGNALED	0x01
#define SIWL_WQE_SOLICITED	0x02
#define SIWL_WQE_FENCE		0x04
#define SIWL_WQE_INLINE		0x08
#define SIWL_WQE_DONE		0x10	/* finished, status in @status */

/*
 * Send WQE, a checked copy of the consumer's ib_send_wr or ring entry
 * taken at post time.
 */
struct siwl_sqe {
	u64 wr_id;
	u32 opcode;		/* enum ib_wr_opcode */
	u8 flags;		/* SIWL_WQE_* */
	u8 num_sge;
	u8 status;		/* enum ib_wc_status, once DONE */
	u32 total_len;
	u32 rkey;		/* RDMA Write / Read: remote STag */
	u64 raddr;		/* RDMA Write / Read: remote Tagged Offset */
	u32 inv_key;		/* Send w/ Inv, Read w/ Inv, Local Inv */
	/* IB_WR_REG_MR; the consumer keeps the MR until the WR completes. */
	struct ib_mr *reg_mr;
	u32 reg_key;
	int reg_access;
	union {
		struct siwl_sge sge[SIWL_MAX_SGE];
		u8 inline_data[SIWL_MAX_INLINE];
	};
};

/* The completion and ordering flags of a send WQE, from either encoding. */
static inline u8 siwl_wqe_flags(bool signaled, bool solicited, bool fence)
{
	return (signaled ? SIWL_WQE_SIGNALED : 0) |
	       (solicited ? SIWL_WQE_SOLICITED : 0) |
	       (fence ? SIWL_WQE_FENCE : 0);
}

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
