// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: a user QP's send and receive rings.
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
#include <linux/overflow.h>

#include "cq.h"
#include "qp.h"
#include "qp_uring.h"
#include "tx.h"

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

/* Copies @num (bounds-checked) user SGEs; returns their byte count. */
static u64 siwl_usge_copy(struct siwl_sge *dst,
			  const struct siw_lite_sge *src, u32 num)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < num; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
		sum += src[i].length;
	}
	return sum;
}

/* A checked WQE fits the ring entry it came from and the kernel's. */
static_assert(SIWL_MAX_SGE <= SIW_LITE_MAX_SGE);
static_assert(SIWL_MAX_INLINE <= SIW_LITE_MAX_INLINE);
static_assert(sizeof_field(struct siwl_sqe, inline_data) >= SIWL_MAX_INLINE);

#define SIWL_USQE_FLAGS	(SIW_LITE_WQE_SIGNALED | SIW_LITE_WQE_SOLICITED | \
			 SIW_LITE_WQE_FENCE | SIW_LITE_WQE_INLINE)

/* The ABI's opcodes, as the internal WQE and wqe.c's rules know them. */
static const struct {
	u32 ib_opcode;
	enum siwl_sq_kind kind;
	bool valid;
} siwl_usq_ops[] = {
	[SIW_LITE_WR_WRITE] = { IB_WR_RDMA_WRITE, SIWL_SQK_WRITE, true },
	[SIW_LITE_WR_SEND] = { IB_WR_SEND, SIWL_SQK_SEND, true },
	[SIW_LITE_WR_SEND_WITH_INV] = { IB_WR_SEND_WITH_INV,
					SIWL_SQK_SEND_INV, true },
	[SIW_LITE_WR_READ] = { IB_WR_RDMA_READ, SIWL_SQK_READ, true },
	[SIW_LITE_WR_LOCAL_INV] = { IB_WR_LOCAL_INV, SIWL_SQK_LOCAL_INV,
				    true },
};

/*
 * Turns a private copy of a user send WQE into a kernel one: the ring's
 * encoding is decoded here, the rules are wqe.c's, as for ib_post_send().
 * Memory rights are checked later, at transmit time.
 */
static int siwl_usqe_to_sqe(struct siwl_qp *qp, const struct siw_lite_sqe *u,
			    struct siwl_sqe *sqe)
{
	bool inline_data = u->flags & SIW_LITE_WQE_INLINE;
	enum siwl_sq_kind kind;
	u64 len;
	int rv;

	memset(sqe, 0, sizeof(*sqe));
	sqe->wr_id = u->wr_id;
	if (u->flags & ~SIWL_USQE_FLAGS ||
	    u->opcode >= ARRAY_SIZE(siwl_usq_ops) ||
	    !siwl_usq_ops[u->opcode].valid)
		return -EINVAL;
	kind = siwl_usq_ops[u->opcode].kind;
	sqe->opcode = siwl_usq_ops[u->opcode].ib_opcode;
	sqe->flags = siwl_wqe_flags(u->flags & SIW_LITE_WQE_SIGNALED ||
				    qp->sig_all,
				    u->flags & SIW_LITE_WQE_SOLICITED,
				    u->flags & SIW_LITE_WQE_FENCE);
	sqe->rkey = u->rkey;
	sqe->raddr = u->remote_addr;
	sqe->inv_key = u->invalidate_rkey;

	/* Inline bytes share the entry with the SGEs: none may be named. */
	if (inline_data && u->num_sge)
		return -EINVAL;
	rv = siwl_sqe_check_shape(&qp->sq_lim, kind, inline_data, u->num_sge);
	if (rv)
		return rv;
	len = inline_data ? u->length :
			    siwl_usge_copy(sqe->sge, u->sge, u->num_sge);
	rv = siwl_sqe_check_len(&qp->sq_lim, inline_data, len);
	if (rv)
		return rv;
	sqe->total_len = len;
	if (inline_data) {
		memcpy(sqe->inline_data, u->inline_data, len);
		sqe->flags |= SIWL_WQE_INLINE;
	} else {
		sqe->num_sge = u->num_sge;
	}
	return 0;
}

/*
 * Takes at most SIWL_USQ_BATCH WQEs per call: this runs under qp->lock
 * with interrupts off, and a full ring is up to SIWL_MAX_QP_WR WQEs,
 * 1 MiB to copy and check. Transmission fetches again as it catches up; in ERROR,
 * where nothing transmits, the work item is kicked to flush the rest, one
 * batch per run.
 */
u32 siwl_usq_fetch_locked(struct siwl_qp *qp)
{
	struct siw_lite_sqe u;
	struct siwl_sqe *sqe;
	u32 prod, n = 0;

	lockdep_assert_held(&qp->lock);
	if (qp->state == SIWL_QPS_IDLE && qp->ib_idle == IB_QPS_RESET)
		return 0;
	/* Pairs with the provider's release store after the WQEs. */
	prod = smp_load_acquire(&qp->usq.hdr->prod);
	if (prod - qp->sq_tail > qp->sq_size) {
		/* More WQEs than slots, or an index that went backwards. */
		siwl_qp_fail_locked(qp, &siwl_term_local, NULL, 0, 0);
		return 0;
	}
	while (qp->sq_head != prod) {
		if (n == SIWL_USQ_BATCH) {
			if (qp->state == SIWL_QPS_ERROR)
				siwl_qp_kick(qp);
			break;
		}
		memcpy(&u, siwl_uring_entry(&qp->usq, qp->sq_head), sizeof(u));
		sqe = siwl_sq_slot(qp, qp->sq_head);
		qp->sq_head++;
		n++;
		if (siwl_usqe_to_sqe(qp, &u, sqe)) {
			sqe->status = IB_WC_LOC_QP_OP_ERR;
			sqe->flags |= SIWL_WQE_DONE;
			siwl_qp_fail_locked(qp, &siwl_term_local, NULL, 0, 0);
			break;
		}
		if (qp->state == SIWL_QPS_ERROR) {
			sqe->status = IB_WC_WR_FLUSH_ERR;
			sqe->flags |= SIWL_WQE_DONE;
		}
	}
	if (qp->state == SIWL_QPS_ERROR) {
		qp->sq_next = qp->sq_head;
		siwl_qp_reap_locked(qp);
	}
	return n;
}

bool siwl_usq_refill_locked(struct siwl_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (siwl_usq_fetch_locked(qp))
		return true;
	WRITE_ONCE(qp->usq.hdr->flags, SIW_LITE_SQ_DOORBELL);
	smp_mb();	/* flag before index: pairs with the provider's */
	if (!siwl_usq_fetch_locked(qp))
		return false;
	if (qp->state != SIWL_QPS_ERROR)
		WRITE_ONCE(qp->usq.hdr->flags, 0);
	return true;
}

void siwl_usq_doorbell(struct siwl_qp *qp)
{
	unsigned long flags;
	bool tx, handoff;

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

void siwl_usq_publish_locked(struct siwl_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	/* Slots up to sq_tail are theirs again: completions came first. */
	smp_store_release(&qp->usq.hdr->cons, qp->sq_tail);
}

bool siwl_urqe_to_rqe(const struct siw_lite_rqe *u, u32 max_sge,
		      struct siwl_rqe *rqe)
{
	u64 len;

	memset(rqe, 0, sizeof(*rqe));
	rqe->wr_id = u->wr_id;
	if (u->rsvd || siwl_rqe_check(max_sge, u->num_sge))
		return false;
	len = siwl_usge_copy(rqe->sge, u->sge, u->num_sge);
	if (siwl_rqe_check_len(len))
		return false;
	rqe->num_sge = u->num_sge;
	rqe->total_len = len;
	return true;
}

/*
 * Takes the next receive WQE from the ring: 0, -ENOENT when there is none,
 * -EPROTO when the ring or the WQE is corrupt (the WQE, if any, is
 * returned for its wr_id).
 */
int siwl_urq_take_locked(struct siwl_qp *qp, struct siwl_rqe *rqe)
{
	struct siw_lite_rqe u;
	u32 prod;

	lockdep_assert_held(&qp->rq_lock);
	/* Pairs with the provider's release store after the WQEs. */
	prod = smp_load_acquire(&qp->urq.hdr->prod);
	if (prod == qp->rq_tail)
		return -ENOENT;
	if (prod - qp->rq_tail > qp->rq_size) {
		memset(rqe, 0, sizeof(*rqe));
		return -EPROTO;
	}
	memcpy(&u, siwl_uring_entry(&qp->urq, qp->rq_tail), sizeof(u));
	qp->rq_tail++;
	/* Copied: the slot is the provider's again. */
	smp_store_release(&qp->urq.hdr->cons, qp->rq_tail);
	return siwl_urqe_to_rqe(&u, qp->max_recv_sge, rqe) ? 0 : -EPROTO;
}

static void siwl_urq_push_flush(struct siwl_qp *qp, u64 wr_id)
{
	struct siwl_cqe cqe = {
		.wr_id = wr_id,
		.opcode = IB_WC_RECV,
		.status = IB_WC_WR_FLUSH_ERR,
		.qp = &qp->base,
	};

	siwl_cq_push(to_siwl_cq(qp->base.recv_cq), &cqe, false);
}

/*
 * Completes (or with @discard drops) every WQE on the receive ring; from
 * now on the provider has to ask for it after each post (RQ_FLUSH).
 */
void siwl_urq_flush_locked(struct siwl_qp *qp, bool discard)
{
	const struct siw_lite_rqe *u;
	u32 prod;

	lockdep_assert_held(&qp->rq_lock);
	WRITE_ONCE(qp->urq.hdr->flags, SIW_LITE_RQ_FLUSH);
	smp_mb();	/* flag before index: pairs with the provider's */
	/* And the WQEs (their wr_ids) before the index. */
	prod = smp_load_acquire(&qp->urq.hdr->prod);
	if (prod - qp->rq_tail > qp->rq_size) {
		/* Nothing sane to complete: skip to where the user is. */
		qp->rq_tail = prod;
	}
	for (; qp->rq_tail != prod; qp->rq_tail++) {
		u = siwl_uring_entry(&qp->urq, qp->rq_tail);
		if (!discard)
			siwl_urq_push_flush(qp, READ_ONCE(u->wr_id));
	}
	/* Every slot up to here was read (its wr_id) and is free again. */
	smp_store_release(&qp->urq.hdr->cons, qp->rq_tail);
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
