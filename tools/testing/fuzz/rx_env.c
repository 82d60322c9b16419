// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_rx: models of everything rx.c calls outside itself and the wire
 * code: the MR table and copies (mem.c), the receive CQ (cq.c), the SRQ
 * (srq.c), the QP engine (qp_engine.c) and the tracepoints. Each follows
 * the contract its header documents, written afresh from that comment,
 * and is also where the harness watches rx.c: a copy into consumer
 * memory, a completion, an invalidation or an FPDU taking effect is
 * checked against the world (rx_env.h) and the oracle's reading of the
 * stream (rx_oracle.c) at the moment it happens.
 */
#include <stdlib.h>

#include "qp_engine.h"
#include "trace.h"
#include "tune.h"
#include "rx_env.h"

struct rx_world *rxw;
struct siwl_tune siwl_tune;
struct workqueue_struct *siwl_qp_wq;

static bool rx_is_send(u8 opcode)
{
	return opcode == RDMAP_SEND || opcode == RDMAP_SEND_INVAL ||
	       opcode == RDMAP_SEND_SE || opcode == RDMAP_SEND_SE_INVAL;
}

static bool rx_is_inval(u8 opcode)
{
	return opcode == RDMAP_SEND_INVAL || opcode == RDMAP_SEND_SE_INVAL;
}

/* ---- memory regions (mem.h) ------------------------------------------- */

struct rx_mr *rx_env_mr(struct rx_world *w, u32 stag)
{
	u32 idx = siwl_stag_index(stag);
	struct rx_mr *m;

	if (idx < 1 || idx > RX_NR_MR)
		return NULL;
	m = &w->mrs[idx];
	return m->present && m->mr.stag == stag ? m : NULL;
}

static struct rx_mr *rx_mr_of(const struct siwl_mr *mr)
{
	struct rx_mr *m = container_of(mr, struct rx_mr, mr);

	FUZZ_ASSERT(m > &rxw->mrs[0] && m <= &rxw->mrs[RX_NR_MR]);
	return m;
}

/* mem.h, siwl_mr_check(): rights, PD, validity, overflow-safe bounds. */
static int rx_mr_check(const struct siwl_mr *mr, const struct ib_pd *pd,
		       u64 addr, u64 len, int access)
{
	int granted = mr->access;

	if (!mr->valid)
		return -ENOENT;
	if (mr->pd != pd)
		return -EACCES;
	if (mr->kind == SIWL_MR_DMA)
		granted &= ~(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE);
	if (access & ~granted)
		return -EACCES;
	if (addr < mr->iova || addr - mr->iova > mr->length ||
	    len > mr->length - (addr - mr->iova))
		return -EINVAL;
	return 0;
}

bool rx_env_mr_allows(struct rx_world *w, u32 stag, const struct ib_pd *pd,
		      u64 addr, u64 len, int access)
{
	struct rx_mr *m = rx_env_mr(w, stag);

	return m && !rx_mr_check(&m->mr, pd, addr, len, access);
}

struct siwl_mr *siwl_mr_get(struct siwl_device *sdev, u32 stag)
{
	struct rx_mr *m;

	FUZZ_ASSERT(sdev == &rxw->sdev);
	m = rx_env_mr(rxw, stag);
	if (!m)
		return NULL;
	m->refs++;
	return &m->mr;
}

void siwl_mr_put(struct siwl_mr *mr)
{
	struct rx_mr *m = rx_mr_of(mr);

	FUZZ_ASSERT(m->refs > 0);
	m->refs--;
}

int siwl_mr_check(const struct siwl_mr *mr, const struct ib_pd *pd,
		  u64 addr, u64 len, int access)
{
	/* Only an MR the caller holds may be checked and then used. */
	FUZZ_ASSERT(rx_mr_of(mr)->refs > 0);
	return rx_mr_check(mr, pd, addr, len, access);
}

int siwl_mr_invalidate(struct siwl_device *sdev, const struct ib_pd *pd,
		       u32 stag, bool remote)
{
	struct rx_world *w = rxw;
	struct rx_mr *m = rx_env_mr(w, stag);
	const struct rx_fpdu *f;

	FUZZ_ASSERT(sdev == &w->sdev && pd == w->qp->base.pd);
	/* What a segment means takes effect only once it took effect. */
	FUZZ_ASSERT(w->fpdus_done > 0);
	f = &w->fpdus[w->fpdus_done - 1];
	FUZZ_ASSERT(f->h.last);
	if (remote) {
		FUZZ_ASSERT(rx_is_inval(f->h.opcode) && f->h.stag == stag);
	} else {
		FUZZ_ASSERT(f->h.opcode == RDMAP_RDMA_READ_RESP);
		FUZZ_ASSERT(w->orq[w->norq_done - 1].inv);
	}
	if (!m)
		return -ENOENT;
	if (m->mr.pd != pd || m->mr.kind == SIWL_MR_DMA)
		return -EACCES;
	if (remote && (m->mr.kind != SIWL_MR_FRMR ||
		       !(m->mr.access & (IB_ACCESS_REMOTE_READ |
					 IB_ACCESS_REMOTE_WRITE))))
		return -EACCES;
	m->mr.valid = false;
	return 0;
}

/* Maps message offset @mo of @rqe to (lkey, address); false if beyond. */
static bool rx_sge_target(const struct siwl_rqe *rqe, u64 mo, u32 len,
			  u32 *lkey, u64 *addr)
{
	u32 i;

	for (i = 0; i < rqe->num_sge; i++) {
		if (mo < rqe->sge[i].length) {
			/* One copy never spans two SGEs. */
			if (len > rqe->sge[i].length - mo)
				return false;
			*lkey = rqe->sge[i].lkey;
			*addr = rqe->sge[i].addr + mo;
			return true;
		}
		mo -= rqe->sge[i].length;
	}
	return false;
}

/* The PD a receive buffer must belong to (the SRQ's, if from one). */
static const struct ib_pd *rx_rqe_pd(struct rx_world *w)
{
	return w->rq_mode == RX_RQ_SRQ ? w->srq.base.pd : &w->pd;
}

/*
 * The model of which memory the peer may have written: (a) an MR that
 * grants it write access, at the TO its RDMA Write addressed, (b) the
 * receive WQE its Send message took, at the message offset, or (c) the
 * sink of our oldest outstanding Read, filled in order.
 */
static void rx_check_target(struct rx_world *w, const struct rx_fpdu *f,
			    const struct siwl_mr *mr, u64 addr, u32 len)
{
	const struct ib_pd *pd = w->qp->base.pd;
	u64 off = f->placed - f->hdr_end;
	const struct rx_orqe *e;
	struct rx_rqe *r;
	u32 lkey;
	u64 want;

	switch (f->h.opcode) {
	case RDMAP_RDMA_WRITE:
		FUZZ_ASSERT(mr->stag == f->h.stag && addr == f->h.to + off);
		FUZZ_ASSERT(!rx_mr_check(mr, pd, addr, len,
					 IB_ACCESS_REMOTE_WRITE));
		break;
	case RDMAP_RDMA_READ_RESP:
		FUZZ_ASSERT(w->norq_done < w->norq);
		e = &w->orq[w->norq_done];
		FUZZ_ASSERT(mr->stag == f->h.stag && mr->stag == e->sink_stag);
		FUZZ_ASSERT(addr == f->h.to + off);
		FUZZ_ASSERT(addr == e->sink_to + e->placed + off);
		FUZZ_ASSERT(e->placed + off + len <= e->len);
		FUZZ_ASSERT(!rx_mr_check(mr, pd, addr, len,
					 IB_ACCESS_LOCAL_WRITE));
		break;
	default:
		FUZZ_ASSERT(rx_is_send(f->h.opcode));
		r = rx_env_cur_rqe(w);
		FUZZ_ASSERT(r && !r->completed && r->taken_at == f->msg_first);
		FUZZ_ASSERT(rx_sge_target(&r->rqe, (u64)f->h.mo + off, len,
					  &lkey, &want));
		FUZZ_ASSERT(mr->stag == lkey && addr == want);
		FUZZ_ASSERT(!rx_mr_check(mr, rx_rqe_pd(w), addr, len,
					 IB_ACCESS_LOCAL_WRITE));
		break;
	}
}

int siwl_mr_copy_from_skb(struct siwl_mr *mr, u64 addr,
			  const struct sk_buff *skb, int offset, u32 len,
			  u32 *crc)
{
	struct rx_world *w = rxw;
	struct rx_mr *m = rx_mr_of(mr);
	struct rx_fpdu *f;
	u8 *dst;

	rx_env_sync_taken(w);
	/* Placement: under rx_lock, into a live QP, from a held MR. */
	FUZZ_ASSERT(w->qp->rx_lock.held && !w->failed);
	FUZZ_ASSERT(m->refs > 0);
	FUZZ_ASSERT(!crc == !w->crc);
	FUZZ_ASSERT(offset >= 0 && offset <= (int)skb->len &&
		    len <= skb->len - offset);
	/* The octets are the next payload of the FPDU being processed... */
	f = rx_oracle_cur(w);
	FUZZ_ASSERT(skb->seq + offset == f->placed);
	FUZZ_ASSERT(f->placed + len <= f->pay_end);
	/* ...and go where the peer may put them. */
	rx_check_target(w, f, mr, addr, len);

	dst = w->arena + m->arena_off + (addr - mr->iova);
	FUZZ_ASSERT(dst >= w->arena && dst + len <= w->arena + RX_ARENA_LEN);
	memcpy(dst, skb->data + offset, len);
	memset(&w->written[dst - w->arena], 1, len);
	if (crc)
		*crc = mpa_crc_update(*crc, skb->data + offset, len);
	f->placed += len;
	return 0;
}

/* ---- receive WQEs (RQ, SRQ, user ring) --------------------------------- */

struct rx_rqe *rx_env_cur_rqe(struct rx_world *w)
{
	return w->nrqe_taken ? &w->rqes[w->nrqe_taken - 1] : NULL;
}

/* RX takes the next posted WQE for the message starting now. */
static struct rx_rqe *rx_take(struct rx_world *w)
{
	struct rx_fpdu *f = rx_oracle_cur(w);
	struct rx_rqe *r;

	FUZZ_ASSERT(w->nrqe_taken < w->nrqe_posted);
	/* The one before was completed: no WQE is ever dropped. */
	if (w->nrqe_taken)
		FUZZ_ASSERT(w->rqes[w->nrqe_taken - 1].completed);
	/* Only the first segment of a Send message takes one. */
	FUZZ_ASSERT(f->msg_first == w->fpdus_done);
	r = &w->rqes[w->nrqe_taken++];
	r->taken = true;
	r->taken_at = w->fpdus_done;
	return r;
}

/* A kernel RQ is read by rx.c itself: see what it took since last time. */
void rx_env_sync_taken(struct rx_world *w)
{
	u32 n;

	if (w->rq_mode != RX_RQ_KERNEL && w->rq_mode != RX_RQ_KERNEL2)
		return;
	n = w->qp->rq_tail - w->rq_base;
	FUZZ_ASSERT(n <= (u32)w->nrqe_posted && n >= (u32)w->nrqe_taken);
	/* Every take is followed by a copy, completion or FPDU end. */
	FUZZ_ASSERT(n - w->nrqe_taken <= 1);
	if (n > (u32)w->nrqe_taken)
		rx_take(w);
}

static struct rx_rqe *rx_take_model(struct rx_world *w,
				    struct siwl_rqe *rqe, int *rv)
{
	struct rx_rqe *r;

	if (w->nrqe_taken == w->nrqe_posted) {
		*rv = -ENOENT;
		return NULL;
	}
	r = rx_take(w);
	*rqe = r->rqe;
	*rv = 0;
	if (r->corrupt) {
		/* Only the wr_id of something that is no WQE is known. */
		memset(rqe, 0, sizeof(*rqe));
		rqe->wr_id = r->rqe.wr_id;
		*rv = -EPROTO;
	}
	return r;
}

int siwl_srq_get(struct siwl_srq *srq, struct siwl_rqe *rqe)
{
	struct rx_world *w = rxw;
	unsigned long flags;
	int rv;

	FUZZ_ASSERT(srq == &w->srq && w->rq_mode == RX_RQ_SRQ);
	spin_lock_irqsave(&srq->lock, flags);
	rx_take_model(w, rqe, &rv);
	spin_unlock_irqrestore(&srq->lock, flags);
	return rv;
}

int siwl_urq_take_locked(struct siwl_qp *qp, struct siwl_rqe *rqe)
{
	struct rx_world *w = rxw;
	int rv;

	lockdep_assert_held(&qp->rq_lock);
	FUZZ_ASSERT(w->rq_mode == RX_RQ_URING && qp->urq.hdr);
	if (rx_take_model(w, rqe, &rv))
		qp->rq_tail++;
	return rv;
}

/* ---- the receive CQ (cq.h) --------------------------------------------- */

/*
 * An error completion for the Send whose header its WQE could not take:
 * without CRCs pushed while that header is checked, with CRCs once the
 * FPDU took effect, its CRC having matched (rx.c, siwl_rx_send_error()).
 */
static void rx_check_send_error(struct rx_world *w, const struct rx_rqe *r,
				const struct siwl_cqe *cqe)
{
	const struct rx_fpdu *f;
	u32 i;

	if (w->crc) {
		FUZZ_ASSERT(w->fpdus_done > 0);
		f = &w->fpdus[w->fpdus_done - 1];
		FUZZ_ASSERT(f->done && f->crc_ok && rx_is_send(f->h.opcode));
		/* Its payload was read for the CRC, not placed. */
		FUZZ_ASSERT(f->read_through || f->pay_end == f->hdr_end);
	} else {
		f = rx_oracle_cur(w);
	}

	switch (cqe->status) {
	case IB_WC_LOC_QP_OP_ERR:
		FUZZ_ASSERT(r->corrupt);
		break;
	case IB_WC_LOC_PROT_ERR:
		/* Some SGE of the WQE must really be unusable. */
		for (i = 0; i < r->rqe.num_sge; i++)
			if (r->rqe.sge[i].length &&
			    !rx_env_mr_allows(w, r->rqe.sge[i].lkey,
					      rx_rqe_pd(w), r->rqe.sge[i].addr,
					      r->rqe.sge[i].length,
					      IB_ACCESS_LOCAL_WRITE))
				break;
		FUZZ_ASSERT(!r->corrupt && i < r->rqe.num_sge);
		break;
	case IB_WC_LOC_LEN_ERR:
		FUZZ_ASSERT((u64)f->h.mo + f->h.payload_len >
			    r->rqe.total_len);
		break;
	default:
		FUZZ_ASSERT(!"unexpected receive completion status");
	}
	w->send_err_cqes++;
}

int siwl_cq_push(struct siwl_cq *cq, const struct siwl_cqe *cqe,
		 bool solicited)
{
	struct rx_world *w = rxw;
	struct rx_fpdu *f;
	struct rx_rqe *r;
	bool inv;
	int i;

	rx_env_sync_taken(w);
	/* RX completes receives of its QP only, under rq_lock. */
	FUZZ_ASSERT(cq == &w->rcq && w->qp->rq_lock.held && !w->failed);
	FUZZ_ASSERT(cqe->qp == &w->qp->base && cqe->opcode == IB_WC_RECV);
	/* For the WQE RX took last, once. */
	r = rx_env_cur_rqe(w);
	FUZZ_ASSERT(r && !r->completed && cqe->wr_id == r->rqe.wr_id);
	r->completed = true;
	if (cqe->status != IB_WC_SUCCESS) {
		FUZZ_ASSERT(!solicited);
		rx_check_send_error(w, r, cqe);
	} else {
		/* Only from a Send's last FPDU that took effect. */
		FUZZ_ASSERT(w->fpdus_done > 0);
		f = &w->fpdus[w->fpdus_done - 1];
		FUZZ_ASSERT(f->done && !f->completed);
		FUZZ_ASSERT(rx_is_send(f->h.opcode) && f->h.last);
		FUZZ_ASSERT(r->taken_at == f->msg_first);
		/* Every FPDU of the message placed its payload. */
		for (i = f->msg_first; i < w->fpdus_done; i++)
			FUZZ_ASSERT(!w->fpdus[i].read_through);
		FUZZ_ASSERT(cqe->byte_len == f->h.mo + f->h.payload_len);
		FUZZ_ASSERT(cqe->byte_len <= r->rqe.total_len);
		inv = rx_is_inval(f->h.opcode);
		FUZZ_ASSERT(!(cqe->wc_flags & IB_WC_WITH_INVALIDATE) == !inv);
		FUZZ_ASSERT(!inv || cqe->inv_rkey == f->h.stag);
		FUZZ_ASSERT(solicited == (f->h.opcode == RDMAP_SEND_SE ||
					  f->h.opcode == RDMAP_SEND_SE_INVAL));
		f->completed = true;
	}
	if (w->rcq_count == w->rcq_cap) {
		w->rcq_overflow = true;
		return -ENOSPC;
	}
	w->rcq_count++;
	return 0;
}

/* ---- the QP engine (qp_engine.h) --------------------------------------- */

void siwl_qp_kick(struct siwl_qp *qp)
{
	queue_work(siwl_qp_wq, &qp->tx_work);
}

void siwl_queue_elsewhere(struct work_struct *work)
{
	queue_work_on(1, siwl_qp_wq, work);
}

/* Send WQEs complete in order; a Read only after its last Response. */
void siwl_qp_reap_locked(struct siwl_qp *qp)
{
	struct rx_world *w = rxw;
	struct siwl_sqe *sqe;
	int k;

	lockdep_assert_held(&qp->lock);
	while (qp->sq_tail != qp->sq_head) {
		sqe = &qp->sq[qp->sq_tail % qp->sq_size];
		if (!(sqe->flags & SIWL_WQE_DONE))
			break;
		for (k = 0; k < w->norq; k++)
			if (!w->orq[k].rtr && w->orq[k].sq_pos == qp->sq_tail)
				break;
		FUZZ_ASSERT(k < w->norq && sqe->wr_id == RX_ORQ_WR_ID(k));
		if (sqe->status == IB_WC_SUCCESS)
			FUZZ_ASSERT(k < w->norq_done);
		qp->sq_tail++;
		w->sq_reaped++;
		sqe->flags = 0;
	}
}

void siwl_qp_error_locked(struct siwl_qp *qp, bool abortive)
{
	(void)abortive;
	lockdep_assert_held(&qp->lock);
	rxw->failed = true;
	if (qp->state == SIWL_QPS_ERROR)
		return;
	qp->state = SIWL_QPS_ERROR;
	siwl_qp_kick(qp);
}

void siwl_qp_fail_locked(struct siwl_qp *qp, const struct iw_term *term,
			 const void *bad, u32 bad_len, u16 bad_seg_len)
{
	const u8 *hdr = qp->rx.hdr;
	u8 out[SIWL_HDR_MAX + 64];
	ssize_t n;

	lockdep_assert_held(&qp->lock);
	FUZZ_ASSERT(term->valid && term->layer <= IW_TERM_LAYER_LLP);
	/* The echoed headers lie inside what RX gathered. */
	FUZZ_ASSERT(!bad_len || ((const u8 *)bad >= hdr &&
				 bad_len <= sizeof(qp->rx.hdr) -
					    ((const u8 *)bad - hdr)));
	/* TX must be able to build the Terminate from them. */
	n = rdmap_build_terminate(out, sizeof(out), 1, term, bad, bad_len,
				  bad_seg_len);
	FUZZ_ASSERT(n > 0);
	if (!rxw->term.valid)
		rxw->term = *term;
	if (qp->state != SIWL_QPS_RTS && qp->state != SIWL_QPS_CLOSING) {
		siwl_qp_error_locked(qp, true);
		return;
	}
	rxw->failed = true;
	qp->term.term = *term;
	qp->term_valid = true;
	qp->state = SIWL_QPS_TERMINATE;
	siwl_qp_kick(qp);
}

/* ---- tracepoints rx.c fires: where an FPDU takes effect ---------------- */

/* A Read Request's source: what the peer may read. */
static bool rx_rreq_ok(struct rx_world *w, const struct ddp_hdr_info *h)
{
	return !h->rreq.read_size ||
	       rx_env_mr_allows(w, h->rreq.source_stag, w->qp->base.pd,
				h->rreq.source_to, h->rreq.read_size,
				IB_ACCESS_REMOTE_READ);
}

/*
 * RX checks a Read Request's source with its header; the MR may change
 * before the FPDU ends (TX checks again when answering). Before a change,
 * note whether the one in progress was readable.
 */
void rx_env_before_mr_change(struct rx_world *w)
{
	struct rx_fpdu *f;

	if (w->fpdus_done >= w->nfpdu)
		return;
	f = rx_oracle_cur(w);
	if (f->h.opcode == RDMAP_RDMA_READ_REQ)
		f->rreq_ok |= rx_rreq_ok(w, &f->h);
}

void trace_fpdu_rx(u32 qpn, const struct ddp_hdr_info *h, u32 len)
{
	struct rx_world *w = rxw;
	struct rx_orqe *e;
	struct rx_fpdu *f;

	rx_env_sync_taken(w);
	FUZZ_ASSERT(qpn == w->qp->base.qp_num);
	FUZZ_ASSERT(w->qp->rx_lock.held && !w->failed);
	/* The next FPDU of the stream, whole, its CRC checked. */
	f = rx_oracle_cur(w);
	FUZZ_ASSERT(f->complete && (!w->crc || f->crc_ok));
	FUZZ_ASSERT(!memcmp(h, &f->h, sizeof(*h)));
	/*
	 * All its payload placed, nothing more; or, for a Send read through
	 * only to report the error its header showed, none of it (the
	 * completions below tell which it was).
	 */
	FUZZ_ASSERT(len == f->pay_end - f->hdr_end);
	f->read_through = rx_is_send(h->opcode) && f->pay_end > f->hdr_end &&
			  f->placed == f->hdr_end;
	FUZZ_ASSERT(f->placed == f->pay_end || f->read_through);
	switch (h->opcode) {
	case RDMAP_RDMA_READ_REQ:
		f->rreq_ok |= rx_rreq_ok(w, h);
		break;
	case RDMAP_RDMA_READ_RESP:
		FUZZ_ASSERT(w->norq_done < w->norq);
		e = &w->orq[w->norq_done];
		e->placed += h->payload_len;
		FUZZ_ASSERT(e->placed <= e->len);
		if (h->last) {
			/* A Response carries exactly what was asked. */
			FUZZ_ASSERT(e->placed == e->len);
			w->norq_done++;
		}
		break;
	}
	f->done = true;
	w->fpdus_done++;
}

void trace_term_rx(u32 qpn, u8 layer, u8 etype, u8 ecode)
{
	struct rx_world *w = rxw;

	(void)layer;
	(void)etype;
	(void)ecode;
	FUZZ_ASSERT(qpn == w->qp->base.qp_num);
	FUZZ_ASSERT(w->fpdus_done > 0 &&
		    w->fpdus[w->fpdus_done - 1].h.opcode == RDMAP_TERMINATE);
	w->term_rx = true;
}
