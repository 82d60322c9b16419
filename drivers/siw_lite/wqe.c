// SPDX-License-Identifier: GPL-2.0
/*
 * One set of work request rules for every way a WQE reaches siw_lite.
 *
 * A check runs in two steps because the SGE array is only safe to read
 * once its count is known to be in bounds: the shape first (kind, inline,
 * SGE count), then the byte count the caller summed from at most
 * SIWL_MAX_SGE 32-bit lengths, which a u64 holds without wrapping.
 * Memory rights are not checked here: they are checked at transmit and
 * placement time, against the STags as they are then.
 */
#include "wqe.h"

static u32 siwl_sq_max_sge(const struct siwl_sq_limits *lim,
			   enum siwl_sq_kind kind)
{
	switch (kind) {
	case SIWL_SQK_READ:
	case SIWL_SQK_READ_INV:
		return SIWL_MAX_SGE_RD;
	case SIWL_SQK_REG_MR:
	case SIWL_SQK_LOCAL_INV:
		/* Local operations move no data. */
		return 0;
	default:
		return lim->max_sge;
	}
}

/* 0 if a send WQE of @kind with @num_sge SGEs may be posted, or -EINVAL. */
int siwl_sqe_check_shape(const struct siwl_sq_limits *lim,
			 enum siwl_sq_kind kind, bool inline_data,
			 u32 num_sge)
{
	switch (kind) {
	case SIWL_SQK_SEND:
	case SIWL_SQK_SEND_INV:
	case SIWL_SQK_WRITE:
		break;
	case SIWL_SQK_READ_INV:
		/* What dies with the Read is its one sink SGE's STag. */
		if (num_sge != 1)
			return -EINVAL;
		fallthrough;
	case SIWL_SQK_READ:
	case SIWL_SQK_REG_MR:
	case SIWL_SQK_LOCAL_INV:
		/* Data the peer sends, or none: nothing to carry inline. */
		if (inline_data)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (num_sge > siwl_sq_max_sge(lim, kind))
		return -EINVAL;
	return 0;
}

/* 0 if a send WQE may carry @len bytes, or -EINVAL. */
int siwl_sqe_check_len(const struct siwl_sq_limits *lim, bool inline_data,
		       u64 len)
{
	if (inline_data && len > lim->max_inline)
		return -EINVAL;
	return len > SIWL_MAX_MSG_SIZE ? -EINVAL : 0;
}

/* 0 if a receive WQE with @num_sge SGEs may be posted, or -EINVAL. */
int siwl_rqe_check(u32 max_sge, u32 num_sge)
{
	/* Zero SGEs are valid: the WQE takes a zero-length message. */
	return num_sge > max_sge ? -EINVAL : 0;
}

/* 0 if a receive WQE may offer @len bytes, or -EINVAL. */
int siwl_rqe_check_len(u64 len)
{
	/* No message is longer: a WQE beyond it would misreport its size. */
	return len > SIWL_MAX_MSG_SIZE ? -EINVAL : 0;
}
