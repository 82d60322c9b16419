// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The uverbs command data-path backend: every post, poll and arm is one
 * (or a few) write() commands on the device fd, handled by the kernel's
 * generic ib_uverbs code and the driver's verbs.  Nothing is shared with
 * the kernel, so nothing here needs a lock.
 *
 * libibverbs builds each command on the stack (post) or the heap (poll)
 * sized by what it is given.  We hand it at most SIWL_CMD_POST_BATCH WRs
 * and ask for at most SIWL_CMD_POLL_BATCH completions at a time, so a long
 * WR list or a large poll cannot exhaust the caller's stack or memory.
 * Batches are shallow copies of the caller's WRs, relinked: the caller's
 * list is only read.
 */
#include <errno.h>
#include <stddef.h>

#include "siw_lite.h"

#define SIWL_CMD_POST_BATCH	16
#define SIWL_CMD_POLL_BATCH	32

/*
 * Where the kernel's bad WR lies inside a batch of @n; 0 (the first) if
 * libibverbs handed back something that is not part of the batch.
 */
static size_t siwl_batch_index(const void *bad, const void *batch,
			       size_t elem, size_t n)
{
	const char *b = bad, *first = batch;

	if (b < first || b >= first + n * elem || (b - first) % elem)
		return 0;
	return (b - first) / elem;
}

static int siwl_cmd_post_send(struct siwl_qp *qp, struct ibv_send_wr *wr,
			      struct ibv_send_wr **bad_wr)
{
	struct ibv_send_wr batch[SIWL_CMD_POST_BATCH];
	struct ibv_send_wr *orig[SIWL_CMD_POST_BATCH];
	struct ibv_send_wr *bad;
	size_t n;
	int err = 0, ret;

	while (wr && !err) {
		for (n = 0; wr && n < SIWL_CMD_POST_BATCH; wr = wr->next) {
			err = siwl_check_send_wr(qp, wr);
			if (err)
				break;
			orig[n] = wr;
			batch[n] = *wr;
			batch[n].next = NULL;
			if (n)
				batch[n - 1].next = &batch[n];
			n++;
		}
		if (!n)
			break;
		bad = NULL;
		ret = ibv_cmd_post_send(&qp->ibv_qp, batch, &bad);
		if (ret) {
			*bad_wr = orig[siwl_batch_index(bad, batch,
							sizeof(*batch), n)];
			return ret;
		}
	}
	if (err)
		*bad_wr = wr;	/* the WR that failed the check */
	return err;
}

/* Receives for a QP's RQ or an SRQ: the same but for the command. */
typedef int (*siwl_recv_cmd_t)(void *obj, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr);

static int siwl_cmd_post_recvs(void *obj, siwl_recv_cmd_t cmd,
			       uint32_t max_sge, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	struct ibv_recv_wr batch[SIWL_CMD_POST_BATCH];
	struct ibv_recv_wr *orig[SIWL_CMD_POST_BATCH];
	struct ibv_recv_wr *bad;
	size_t n;
	int err = 0, ret;

	while (wr && !err) {
		for (n = 0; wr && n < SIWL_CMD_POST_BATCH; wr = wr->next) {
			err = siwl_check_recv_wr(max_sge, wr);
			if (err)
				break;
			orig[n] = wr;
			batch[n] = *wr;
			batch[n].next = NULL;
			if (n)
				batch[n - 1].next = &batch[n];
			n++;
		}
		if (!n)
			break;
		bad = NULL;
		ret = cmd(obj, batch, &bad);
		if (ret) {
			*bad_wr = orig[siwl_batch_index(bad, batch,
							sizeof(*batch), n)];
			return ret;
		}
	}
	if (err)
		*bad_wr = wr;
	return err;
}

static int siwl_cmd_rq(void *obj, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_recv(obj, wr, bad_wr);
}

static int siwl_cmd_srq(void *obj, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_srq_recv(obj, wr, bad_wr);
}

static int siwl_cmd_post_recv(struct siwl_qp *qp, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	return siwl_cmd_post_recvs(&qp->ibv_qp, siwl_cmd_rq,
				   qp->cap.max_recv_sge, wr, bad_wr);
}

static int siwl_cmd_post_srq_recv(struct siwl_srq *srq,
				  struct ibv_recv_wr *wr,
				  struct ibv_recv_wr **bad_wr)
{
	return siwl_cmd_post_recvs(&srq->ibv_srq, siwl_cmd_srq,
				   srq->max_sge, wr, bad_wr);
}

/*
 * ib_uverbs' POLL_CQ copies the kernel's struct ib_wc.wc_flags unchanged
 * (copy_wc_to_user()), and the kernel's enum ib_wc_flags numbers two bits
 * the other way round from libibverbs' enum ibv_wc_flags: WITH_INVALIDATE
 * is bit 2 and IP_CSUM_OK bit 3 in the kernel, IBV_WC_IP_CSUM_OK bit 2 and
 * IBV_WC_WITH_INV bit 3 in user space.  The kernel's bits 4..6 (SMAC,
 * VLAN, network header type: RoCE/UD only) would read as tag-matching
 * flags here; they never apply to iWARP and are dropped.
 */
#define SIWL_KWC_GRH		(1u << 0)
#define SIWL_KWC_WITH_IMM	(1u << 1)
#define SIWL_KWC_WITH_INV	(1u << 2)
#define SIWL_KWC_IP_CSUM_OK	(1u << 3)

static unsigned int siwl_wc_flags(unsigned int kflags)
{
	unsigned int flags = 0;

	if (kflags & SIWL_KWC_GRH)
		flags |= IBV_WC_GRH;
	if (kflags & SIWL_KWC_WITH_IMM)
		flags |= IBV_WC_WITH_IMM;
	if (kflags & SIWL_KWC_WITH_INV)
		flags |= IBV_WC_WITH_INV;
	if (kflags & SIWL_KWC_IP_CSUM_OK)
		flags |= IBV_WC_IP_CSUM_OK;
	return flags;
}

static int siwl_cmd_poll_cq(struct siwl_cq *cq, int ne, struct ibv_wc *wc)
{
	int total = 0, chunk, got, i;

	while (total < ne) {
		chunk = ne - total;
		if (chunk > SIWL_CMD_POLL_BATCH)
			chunk = SIWL_CMD_POLL_BATCH;
		got = ibv_cmd_poll_cq(&cq->ibv_cq, chunk, wc + total);
		if (got < 0)
			/* report what we have; the next poll sees the error */
			return total ? total : -1;
		/* more than we asked for: a kernel bug, stop here */
		if (got > chunk) {
			errno = EPROTO;
			return -1;
		}
		for (i = total; i < total + got; i++)
			wc[i].wc_flags = siwl_wc_flags(wc[i].wc_flags);
		total += got;
		if (got < chunk)
			break;
	}
	return total;
}

static int siwl_cmd_req_notify_cq(struct siwl_cq *cq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(&cq->ibv_cq, solicited_only);
}

const struct siwl_dp_ops siwl_dp_cmd = {
	.name = "uverbs-cmd",
	.post_send = siwl_cmd_post_send,
	.post_recv = siwl_cmd_post_recv,
	.post_srq_recv = siwl_cmd_post_srq_recv,
	.poll_cq = siwl_cmd_poll_cq,
	.req_notify_cq = siwl_cmd_req_notify_cq,
};
