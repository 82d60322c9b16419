// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: the QP engine. What happens to a QP below its verbs: moving
 * it to ERROR or TERMINATE on an error, completing and flushing its work
 * requests, the QP work queue, and the primitives the data path uses on
 * a user QP's shared rings (fetching send WQEs, taking and flushing
 * receive WQEs) and on receive WRs of any origin.
 *
 * Layer: below the verbs (qp.c, qp_uring.c) and the data path (tx.c,
 * rx.c, srq.c, zcopy.c), which all call into it; it calls only further
 * down (cq.c, uring.c, wqe.c), so that the data path never has to call
 * back up into the verbs. The connection manager is reached through the
 * siwl_llp_ops it registers, never directly.
 *
 * Locking and the contexts everything runs in: Documentation/siw_lite.rst,
 * "Locking and contexts" (lock order: modify_mutex, tx_mutex, rx_lock,
 * lock, rq_lock, then the CQ, SRQ and MR locks).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/overflow.h>

#include "cq.h"
#include "qp_engine.h"
#include "qp_obj.h"
#include "trace.h"
#include "uring.h"

struct workqueue_struct *siwl_qp_wq;

/* How long a QP may stay in TERMINATE trying to send the Terminate. */
#define SIWL_TERM_TIMEOUT	(5 * HZ)

int siwl_qp_init_module(void)
{
	/* ORQ and IRQ positions run freely, like the SQ's (see create). */
	BUILD_BUG_ON_NOT_POWER_OF_2(SIWL_MAX_ORD);
	BUILD_BUG_ON_NOT_POWER_OF_2(SIWL_MAX_IRD);
	BUILD_BUG_ON_NOT_POWER_OF_2(SIWL_MAX_QP_WR);

	/*
	 * Not ordered: modify_qp() may wait for a QP's work while another
	 * QP's work runs. MEM_RECLAIM because block ULPs (nvme-rdma) depend
	 * on transmit progress to free memory. Per-CPU and high priority:
	 * work queued from RX (Read Responses, kernel ULP posts) runs on the
	 * CPU that queued it and preempts a busy-polling consumer there at
	 * once, where an ordinary worker would wait for the next tick.
	 */
	siwl_qp_wq = alloc_workqueue("siwl_qp", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return siwl_qp_wq ? 0 : -ENOMEM;
}

void siwl_qp_exit_module(void)
{
	destroy_workqueue(siwl_qp_wq);
}

/* ---- the connection manager, as registered ----------------------------- */

/*
 * Set once at module init, before the first device (hence the first QP)
 * exists, and never changed: read without a lock.
 */
static const struct siwl_llp_ops *siwl_llp_ops;

void siwl_llp_register(const struct siwl_llp_ops *ops)
{
	siwl_llp_ops = ops;
}

void siwl_llp_close(struct siwl_cep *cep, bool abortive)
{
	siwl_llp_ops->close(cep, abortive);
}

void siwl_llp_cep_get(struct siwl_cep *cep)
{
	siwl_llp_ops->get(cep);
}

void siwl_llp_cep_put(struct siwl_cep *cep)
{
	siwl_llp_ops->put(cep);
}

/* ---- completions and state --------------------------------------------- */

/* A local error with no segment to blame: RDMAP, local catastrophic. */
const struct iw_term siwl_term_local = {
	.valid = 1,
	.layer = IW_TERM_LAYER_RDMAP,
	.etype = RDMAP_ETYPE_LOCAL_CATASTROPHIC,
	.ecode = 0,
	.hdrct = 0,
};

void siwl_qp_kick(struct siwl_qp *qp)
{
	queue_work(siwl_qp_wq, &qp->tx_work);
}

/* Queues @work on the next CPU after this one, to run beside us. */
void siwl_queue_elsewhere(struct work_struct *work)
{
	int cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	/* A CPU going offline meanwhile only means another one runs it. */
	queue_work_on(cpu, siwl_qp_wq, work);
}

static enum ib_wc_opcode siwl_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	default:
		return IB_WC_SEND;
	}
}

void siwl_sq_push(struct siwl_qp *qp, const struct siwl_sqe *sqe)
{
	struct siwl_cqe cqe = {
		.wr_id = sqe->wr_id,
		.opcode = siwl_wc_opcode(sqe->opcode),
		.status = sqe->status,
		.byte_len = sqe->total_len,
		.qp = &qp->base,
	};

	lockdep_assert_held(&qp->lock);
	/* A lost completion breaks the consumer's accounting: stop the QP. */
	if (siwl_cq_push(to_siwl_cq(qp->base.send_cq), &cqe, false) == -ENOSPC)
		siwl_qp_error_locked(qp, true);
}

/*
 * Completes finished send WQEs from the oldest on, stopping at the first
 * unfinished one, so that completions appear in the order the WRs were
 * posted (a Send behind an outstanding Read waits for the Read). Errors
 * are reported whether signalled or not.
 */
void siwl_qp_reap_locked(struct siwl_qp *qp)
{
	struct siwl_sqe *sqe;

	lockdep_assert_held(&qp->lock);
	while (qp->sq_tail != qp->sq_head) {
		sqe = siwl_sq_slot(qp, qp->sq_tail);
		if (!(sqe->flags & SIWL_WQE_DONE))
			break;
		qp->sq_tail++;
		/*
		 * A ring slot is free again before its completion can be
		 * seen: a consumer that reposts on a completion must find
		 * room. Our own copy of the WQE stays valid under the lock.
		 */
		if (qp->usq.hdr)
			siwl_usq_publish_locked(qp);
		if ((sqe->flags & SIWL_WQE_SIGNALED) ||
		    sqe->status != IB_WC_SUCCESS)
			siwl_sq_push(qp, sqe);
		sqe->flags = 0;
	}
}

void siwl_rq_push(struct siwl_qp *qp, const struct siwl_rqe *rqe,
		  enum ib_wc_status status)
{
	struct siwl_cqe cqe = {
		.wr_id = rqe->wr_id,
		.opcode = IB_WC_RECV,
		.status = status,
		.qp = &qp->base,
	};

	lockdep_assert_held(&qp->rq_lock);
	siwl_cq_push(to_siwl_cq(qp->base.recv_cq), &cqe, false);
}

/*
 * Moves the QP to ERROR. The work item flushes the queues (it is the only
 * context that may, see siwl_qp_flush()) and, if @abortive and still
 * connected, asks the connection manager for a reset.
 */
void siwl_qp_error_locked(struct siwl_qp *qp, bool abortive)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == SIWL_QPS_ERROR)
		return;
	qp->state = SIWL_QPS_ERROR;
	if (abortive && qp->cep) {
		qp->close_pending = true;
		qp->close_abortive = true;
	}
	siwl_qp_kick(qp);
}

/* Which counter an error that ends in a Terminate goes to. */
static enum siwl_stat siwl_term_stat(const struct iw_term *term)
{
	switch (term->layer) {
	case IW_TERM_LAYER_LLP:
		return SIWL_STAT_LLP_ERRORS;
	case IW_TERM_LAYER_DDP:
		return SIWL_STAT_DDP_ERRORS;
	default:
		if (term->etype == RDMAP_ETYPE_LOCAL_CATASTROPHIC)
			return SIWL_STAT_LOCAL_ERRORS;
		return SIWL_STAT_RDMAP_ERRORS;
	}
}

/*
 * An error the peer must hear about (RFC 5040 section 5.4.4 via 4.8): the
 * QP goes to TERMINATE, the work item sends the Terminate built from @term
 * and the echoed headers, then moves to ERROR, raises IB_EVENT_QP_FATAL and
 * closes the connection: a FIN after the Terminate, a reset if the peer
 * lingers. Only the first error is reported.
 */
void siwl_qp_fail_locked(struct siwl_qp *qp, const struct iw_term *term,
			 const void *bad, u32 bad_len, u16 bad_seg_len)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state != SIWL_QPS_RTS && qp->state != SIWL_QPS_CLOSING) {
		if (qp->state != SIWL_QPS_ERROR)
			qp->event_pending = true;
		siwl_qp_error_locked(qp, true);
		return;
	}
	siwl_qp_stat_inc(qp, siwl_term_stat(term));
	qp->term.term = *term;
	qp->term.bad_seg_len = bad_seg_len;
	qp->term.bad_len = 0;
	if (bad && bad_len) {
		qp->term.bad_len = min_t(u32, bad_len, sizeof(qp->term.bad));
		memcpy(qp->term.bad, bad, qp->term.bad_len);
	}
	qp->term_valid = true;
	qp->event_pending = true;
	qp->state = SIWL_QPS_TERMINATE;
	siwl_qp_kick(qp);
	queue_delayed_work(siwl_qp_wq, &qp->term_work, SIWL_TERM_TIMEOUT);
}

/*
 * A peer that stopped reading keeps our Terminate in the send buffer and
 * the QP in TERMINATE for ever: after a while, give up on telling it and
 * reset the connection.
 */
void siwl_qp_term_work(struct work_struct *work)
{
	struct siwl_qp *qp = container_of(to_delayed_work(work),
					  struct siwl_qp, term_work);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == SIWL_QPS_TERMINATE) {
		ibdev_info_ratelimited(&qp->sdev->ibdev,
				       "qp %u: Terminate not sent within %u s: reset\n",
				       qp->base.qp_num,
				       SIWL_TERM_TIMEOUT / HZ);
		siwl_qp_error_locked(qp, true);
	}
	spin_unlock_irqrestore(&qp->lock, flags);
}

/*
 * Completes every outstanding WR with IB_WC_WR_FLUSH_ERR (or drops them
 * silently when the QP is being destroyed). Called by the work item only,
 * so nothing is still being transmitted from these WQEs, and under rx_lock,
 * so nothing is still being placed into their buffers.
 */
void siwl_qp_flush(struct siwl_qp *qp)
{
	struct siwl_sqe *sqe;
	unsigned long flags;
	bool discard;
	u32 pos;

	spin_lock_bh(&qp->rx_lock);

	spin_lock_irqsave(&qp->lock, flags);
	discard = qp->discard;
	if (qp->usq.hdr) {
		/* Whatever was posted so far, once; later posts ring. */
		siwl_usq_fetch_locked(qp);
		WRITE_ONCE(qp->usq.hdr->flags, SIW_LITE_SQ_DOORBELL);
	}
	for (pos = qp->sq_tail; pos != qp->sq_head; pos++) {
		sqe = siwl_sq_slot(qp, pos);
		if (!(sqe->flags & SIWL_WQE_DONE)) {
			sqe->status = IB_WC_WR_FLUSH_ERR;
			sqe->flags |= SIWL_WQE_DONE;
		}
	}
	qp->sq_next = qp->sq_head;
	qp->orq_count = 0;
	qp->irq_count = 0;
	if (discard) {
		qp->sq_tail = qp->sq_head;
		if (qp->usq.hdr)
			siwl_usq_publish_locked(qp);
	} else {
		siwl_qp_reap_locked(qp);
	}
	qp->tx.kind = SIWL_TX_NONE;
	qp->tx.fpdu_len = 0;
	qp->tx.fpdu_sent = 0;
	qp->tx.irq_more = 0;
	spin_unlock_irqrestore(&qp->lock, flags);

	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->rx_rqe_valid && !discard)
		siwl_rq_push(qp, &qp->rx_rqe, IB_WC_WR_FLUSH_ERR);
	qp->rx_rqe_valid = false;
	if (qp->urq.hdr) {
		siwl_urq_flush_locked(qp, discard);
	} else {
		for (; qp->rq_tail != qp->rq_head; qp->rq_tail++)
			if (!discard)
				siwl_rq_push(qp,
					     &qp->rq[qp->rq_tail % qp->rq_size],
					     IB_WC_WR_FLUSH_ERR);
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);

	qp->rx.send_active = false;
	spin_unlock_bh(&qp->rx_lock);
}

/*
 * Runs the work item now and waits for it: queues are flushed on return.
 * In ERROR the work requeues itself until a user's send ring is empty
 * (siwl_usq_fetch_locked() takes a batch per run): wait for every run.
 */
void siwl_qp_sync(struct siwl_qp *qp)
{
	siwl_qp_kick(qp);
	if (current_work() == &qp->tx_work)
		return;
	while (flush_work(&qp->tx_work))
		;
}

/*
 * The consumer's event handler runs from its own work item, not from
 * tx_work: a handler may call ib_modify_qp(), which waits for tx_work.
 */
void siwl_qp_event_work(struct work_struct *work)
{
	struct siwl_qp *qp = container_of(work, struct siwl_qp, event_work);
	struct ib_event ev = {
		.device = qp->base.device,
		.element.qp = &qp->base,
		.event = IB_EVENT_QP_FATAL,
	};

	if (!READ_ONCE(qp->discard) && qp->base.event_handler)
		qp->base.event_handler(&ev, qp->base.qp_context);
}

/* ---- work requests from ib_post_send/recv ------------------------------ */

/* Checks and copies a receive WR; shared with the kernel SRQ. */
int siwl_build_rqe(u32 max_sge, const struct ib_recv_wr *wr,
		   struct siwl_rqe *rqe)
{
	u64 len;

	if (wr->num_sge < 0 || siwl_rqe_check(max_sge, wr->num_sge) ||
	    (wr->num_sge && !wr->sg_list))
		return -EINVAL;
	len = siwl_copy_sges(rqe->sge, wr->sg_list, wr->num_sge);
	if (siwl_rqe_check_len(len))
		return -EINVAL;
	rqe->wr_id = wr->wr_id;
	rqe->num_sge = wr->num_sge;
	rqe->total_len = len;
	return 0;
}

/* ---- user rings -------------------------------------------------------- */

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
		trace_wqe_post(qp->base.qp_num, true, sqe->wr_id, sqe->opcode,
			       sqe->total_len);
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

