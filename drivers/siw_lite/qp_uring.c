// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: a user QP's send and receive rings, the verbs side: creating
 * and destroying them (create_qp/destroy_qp), the send doorbell (a post
 * through uverbs) and dropping their contents on modify to RESET.
 *
 * Layer: beside the verbs (qp.c), above the data path and the engine. It
 * may transmit through tx.c; the ring primitives the engine and the data
 * path use themselves (fetching and publishing send WQEs, taking and
 * flushing receive WQEs) are the engine's (qp_engine.c), so that nothing
 * below has to call up into this file.
 *
 * User space posts by writing WQEs into its rings and moving their
 * producer index; the kernel copies each WQE into the QP's own queue
 * once, validates the copy and never looks at that ring slot again. What
 * user space writes into a ring can therefore only ever hurt its own QP:
 * an impossible producer index or a malformed WQE ends the connection with
 * a Terminate and an error completion, like any local QP error.
 *
 * Send ring protocol (include/uapi/rdma/siw_lite-abi.h): the kernel keeps
 * SIW_LITE_SQ_DOORBELL clear while it will look at the ring again by
 * itself (it is transmitting), and sets it when it goes idle, re-checking
 * the producer index after a full barrier; the provider publishes its
 * index, issues a full barrier and reads the flag. One of the two always
 * sees the other's store, so no WQE waits unnoticed.
 */
#include "qp_engine.h"
#include "qp_obj.h"
#include "qp_uring.h"
#include "tx.h"
#include "uring.h"

int siwl_qp_uring_create(struct siwl_qp *qp, struct ib_udata *udata)
{
	struct siw_lite_uresp_create_qp resp = {};
	struct ib_ucontext *uctx = siwl_uctx(udata);
	bool want;
	int rv;

	rv = siwl_uring_wanted(udata, &want);
	if (rv || !want)
		return rv;
	if (udata->outlen < sizeof(resp))
		return -EINVAL;

	rv = siwl_uring_alloc(&qp->usq, uctx, qp->sq_size,
			      sizeof(struct siw_lite_sqe), &resp.sq_key);
	if (rv)
		return rv;
	/* Nothing fetches until the first doorbell. */
	qp->usq.hdr->flags = SIW_LITE_SQ_DOORBELL;
	resp.sq_size = qp->usq.size;
	resp.num_sqe = qp->usq.num;
	if (qp->rq_size) {
		rv = siwl_uring_alloc(&qp->urq, uctx, qp->rq_size,
				      sizeof(struct siw_lite_rqe),
				      &resp.rq_key);
		if (rv)
			goto err;
		resp.rq_size = qp->urq.size;
		resp.num_rqe = qp->urq.num;
	}
	resp.qp_id = qp->base.qp_num;
	rv = siwl_respond(udata, &resp, sizeof(resp));
	if (rv)
		goto err;
	return 0;

err:
	siwl_qp_uring_destroy(qp);
	return rv;
}

void siwl_qp_uring_destroy(struct siwl_qp *qp)
{
	siwl_uring_free(&qp->urq);
	siwl_uring_free(&qp->usq);
}

void siwl_usq_doorbell(struct siwl_qp *qp)
{
	unsigned long flags;
	bool tx, handoff;

	siwl_qp_stat_inc(qp, SIWL_STAT_DOORBELLS);
	spin_lock_irqsave(&qp->lock, flags);
	/* In ERROR every post rings, to have its WQEs flushed at once. */
	if (qp->state != SIWL_QPS_ERROR)
		WRITE_ONCE(qp->usq.hdr->flags, 0);
	smp_mb();	/* flag cleared before we look at prod */
	siwl_usq_fetch_locked(qp);
	tx = qp->tx_enabled && qp->state != SIWL_QPS_ERROR;
	if (!tx && qp->state != SIWL_QPS_ERROR)
		/* Queued for later (IDLE): transmit will look again. */
		WRITE_ONCE(qp->usq.hdr->flags, SIW_LITE_SQ_DOORBELL);
	/* The flag stays clear until the worker finds the ring empty. */
	handoff = tx && siwl_tx_handoff_locked(qp);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (handoff)
		siwl_queue_elsewhere(&qp->tx_work);
	else if (tx)
		siwl_qp_tx_direct(qp);
}

/* Modify to RESET: whatever the rings hold is dropped. */
void siwl_uring_reset(struct siwl_qp *qp)
{
	unsigned long flags;
	u32 prod;

	if (qp->usq.hdr) {
		spin_lock_irqsave(&qp->lock, flags);
		prod = READ_ONCE(qp->usq.hdr->prod);
		qp->sq_head = prod;
		qp->sq_next = prod;
		qp->sq_tail = prod;
		siwl_usq_publish_locked(qp);
		WRITE_ONCE(qp->usq.hdr->flags, SIW_LITE_SQ_DOORBELL);
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	if (qp->urq.hdr) {
		spin_lock_irqsave(&qp->rq_lock, flags);
		prod = READ_ONCE(qp->urq.hdr->prod);
		qp->rq_head = prod;
		qp->rq_tail = prod;
		/* Dropped, not read: no ordering needed beyond visibility. */
		WRITE_ONCE(qp->urq.hdr->cons, prod);
		WRITE_ONCE(qp->urq.hdr->flags, 0);
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
}
