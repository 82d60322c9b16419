// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: receive. MPA FPDUs (RFC 5044 section 4) are taken off the TCP
 * socket with tcp_read_sock() from sk_data_ready, their DDP segments
 * (RFC 5041) checked and their payload placed straight from the skb into
 * the target memory, with the CRC32c computed in the same pass.
 *
 * Per FPDU: the MPA length and the DDP/RDMAP headers are gathered into
 * rx->hdr (they can straddle skbs), validated by ddp_parse_hdr() and the
 * per-opcode checks below, and only then is any payload placed; a failed
 * check never touches the target memory. The PAD and CRC come last. What
 * a segment means to the consumer (completions, error completions of a
 * Send its receive WQE cannot take, queued Read Requests, invalidations)
 * takes effect only after its CRC matched; data placed before a mismatch
 * is never reported (RFC 5041 section 5.2 allows placing before
 * validation as long as nothing is delivered).
 *
 * RX runs in BH context (or in the socket owner's release_sock(), or in
 * rx_work, see siwl_qp_data_ready()), one pass at a time per socket, under
 * qp->rx_lock: nothing here sleeps. The target MR of a tagged segment is
 * held only within one pass: a segment whose payload is still on its way
 * when the pass ends looks its STag up again, and checks it, when more
 * arrives. A peer that stops mid-segment therefore holds no reference
 * that ibv_dereg_mr() would wait for, and an STag invalidated or
 * deregistered meanwhile takes no more bytes (issue 17, findings 3, 5).
 *
 * Messages: a Send's segments must arrive back to back with increasing MO
 * (TCP is in order and senders segment messages sequentially); tagged
 * segments (RDMA Write, Read Response) may come in between.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/skbuff.h>
#include <net/tcp.h>

#include "compat.h"
#include "cq.h"
#include "mem.h"
#include "mpa_wire.h"
#include "qp_engine.h"
#include "qp_obj.h"
#include "rx.h"
#include "srq.h"
#include "trace.h"
#include "tune.h"

/* MPA ULPDU_Length and DDP control: enough to know the header length. */
#define SIWL_RX_HDR_START	(MPA_HDR_SIZE + 2)

/* How long a Send waits for a receive WQE (siwl_rx_wait_rqe()). */
#define SIWL_RQE_WAIT_MS	1000

#define HDRCT_MD		(RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)

static const struct iw_term siwl_rx_term_local = {
	.valid = 1,
	.layer = IW_TERM_LAYER_RDMAP,
	.etype = RDMAP_ETYPE_LOCAL_CATASTROPHIC,
	.ecode = 0,
	.hdrct = 0,
};

/* Drops the segment's MR reference; rx_lock held. */
void siwl_rx_release(struct siwl_qp *qp)
{
	if (qp->rx.mr) {
		siwl_mr_put(qp->rx.mr);
		qp->rx.mr = NULL;
	}
}

static void siwl_rx_next_segment(struct siwl_rx *rx)
{
	rx->phase = SIWL_RX_HDR;
	rx->kind = SIWL_RX_DISCARD;
	rx->rtr_seg = false;
	rx->have = 0;
	rx->need = SIWL_RX_HDR_START;
}

/* A new connection; rx_lock held. */
void siwl_rx_reset(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;

	siwl_rx_release(qp);
	memset(rx, 0, sizeof(*rx));
	siwl_rx_next_segment(rx);
	/* RFC 5041 section 5.1: each queue's first MSN is 1. */
	rx->next_msn[RDMAP_QN_SEND] = 1;
	rx->next_msn[RDMAP_QN_READ_REQ] = 1;
	rx->next_msn[RDMAP_QN_TERMINATE] = 1;
}

/*
 * Stops RX for good and has a Terminate sent, echoing the offending
 * segment's headers as far as @term asks (RFC 5040 section 4.8).
 */
static int siwl_rx_fail(struct siwl_qp *qp, const struct iw_term *term)
{
	struct siwl_rx *rx = &qp->rx;
	unsigned long flags;

	rx->dead = true;
	/*
	 * A Send that waited for a receive WQE may fail on the one it took:
	 * siwl_qp_rx() reads nothing while rqe_wait is set, and a dead RX
	 * must still drain the socket (siwl_rx_actor()).
	 */
	WRITE_ONCE(rx->rqe_wait, false);
	siwl_rx_release(qp);
	ibdev_dbg(&qp->sdev->ibdev, "qp %u: rx error: layer %u etype %u ecode %u\n",
		  qp->base.qp_num, term->layer, term->etype, term->ecode);
	spin_lock_irqsave(&qp->lock, flags);
	siwl_qp_fail_locked(qp, term, rx->hdr + MPA_HDR_SIZE,
			    rx->have > MPA_HDR_SIZE ? rx->have - MPA_HDR_SIZE : 0,
			    rx->mpa_len);
	spin_unlock_irqrestore(&qp->lock, flags);
	return -EPROTO;
}

static int siwl_rx_fail_code(struct siwl_qp *qp, u8 layer, u8 etype,
			     u8 ecode, u8 hdrct)
{
	struct iw_term term;

	iw_term_set(&term, layer, etype, ecode, hdrct);
	return siwl_rx_fail(qp, &term);
}

static void siwl_rx_kick_locked_free(struct siwl_qp *qp, bool release_hold)
{
	unsigned long flags;

	if (release_hold) {
		spin_lock_irqsave(&qp->lock, flags);
		qp->tx_hold = false;
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	siwl_qp_kick(qp);
}

/*
 * Looks up @stag for a peer's access to [@to, @to + @len). The RFC error is
 * derived by iw_tagged_check() from a snapshot of the MR; siwl_mr_check()
 * then has the final word, since mem.c reads the MR consistently. Returns
 * the MR with a reference, or NULL after filling @term.
 */
static struct siwl_mr *siwl_rx_tagged(struct siwl_qp *qp, u32 stag, u64 to,
				      u32 len, u32 need, u8 layer,
				      struct iw_term *term)
{
	int ib_access = need == IW_ACCESS_REMOTE_READ ?
			IB_ACCESS_REMOTE_READ : IB_ACCESS_REMOTE_WRITE;
	struct iw_tagged_region r = {};
	bool ddp = layer == IW_TERM_LAYER_DDP;
	struct siwl_mr *mr;
	int access;

	mr = siwl_mr_get(qp->sdev, stag);
	if (mr) {
		/* A DMA MR never grants remote access (mem.c enforces it). */
		access = mr->kind == SIWL_MR_DMA ? 0 : READ_ONCE(mr->access);
		r.stag_valid = READ_ONCE(mr->valid);
		r.stag_assoc = READ_ONCE(mr->pd) == qp->base.pd;
		r.base = READ_ONCE(mr->iova);
		r.len = READ_ONCE(mr->length);
		if (access & IB_ACCESS_REMOTE_READ)
			r.access |= IW_ACCESS_REMOTE_READ;
		if (access & IB_ACCESS_REMOTE_WRITE)
			r.access |= IW_ACCESS_REMOTE_WRITE;
	}
	if (iw_tagged_check(&r, need, to, len, layer, term))
		goto fail;
	if (siwl_mr_check(mr, qp->base.pd, to, len, ib_access)) {
		iw_term_set(term, layer,
			    ddp ? DDP_ETYPE_TAGGED :
				  RDMAP_ETYPE_REMOTE_PROTECTION,
			    ddp ? DDP_TECODE_INVALID_STAG :
				  RDMAP_ECODE_INVALID_STAG,
			    ddp ? HDRCT_MD : HDRCT_MD | RDMAP_TERM_HDRCT_R);
		goto fail;
	}
	return mr;
fail:
	if (mr)
		siwl_mr_put(mr);
	return NULL;
}

/* RFC 5040 section 4.3: RDMA Write, placed at the Data Sink STag/TO. */
static int siwl_rx_write(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct iw_term term;

	/* Nothing is accessed, so there is nothing to check. */
	if (!rx->h.payload_len)
		return 0;
	rx->mr = siwl_rx_tagged(qp, rx->h.stag, rx->h.to, rx->h.payload_len,
				IW_ACCESS_REMOTE_WRITE, IW_TERM_LAYER_DDP,
				&term);
	if (!rx->mr)
		return siwl_rx_fail(qp, &term);
	rx->addr = rx->h.to;
	rx->kind = SIWL_RX_WRITE;
	return 0;
}

/*
 * RFC 5040 section 4.5: Read Responses come in the order of our Read
 * Requests (section 5.3), so each belongs to the oldest outstanding Read
 * and must fill its sink from the start, in order.
 */
static int siwl_rx_read_resp(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct ddp_hdr_info *h = &rx->h;
	struct siwl_orqe orqe;
	unsigned long flags;
	struct siwl_mr *mr;
	int rv;

	spin_lock_irqsave(&qp->lock, flags);
	if (!qp->orq_count) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return siwl_rx_fail_code(qp, IW_TERM_LAYER_RDMAP,
					 RDMAP_ETYPE_REMOTE_OPERATION,
					 RDMAP_ECODE_UNEXPECTED_OPCODE,
					 HDRCT_MD);
	}
	orqe = qp->orq[qp->orq_head % SIWL_MAX_ORD];
	spin_unlock_irqrestore(&qp->lock, flags);

	if (h->stag != orqe.sink_stag)
		return siwl_rx_fail_code(qp, IW_TERM_LAYER_DDP,
					 DDP_ETYPE_TAGGED,
					 DDP_TECODE_INVALID_STAG, HDRCT_MD);
	if (h->to - orqe.sink_to != orqe.placed ||
	    h->payload_len > orqe.len - orqe.placed)
		return siwl_rx_fail_code(qp, IW_TERM_LAYER_DDP,
					 DDP_ETYPE_TAGGED,
					 DDP_TECODE_BASE_BOUNDS, HDRCT_MD);
	/* The response must carry exactly what was asked for. */
	if (h->last && orqe.placed + h->payload_len != orqe.len)
		return siwl_rx_fail_code(qp, IW_TERM_LAYER_RDMAP,
					 RDMAP_ETYPE_REMOTE_OPERATION,
					 RDMAP_ECODE_UNSPECIFIED, HDRCT_MD);

	if (h->payload_len) {
		mr = siwl_mr_get(qp->sdev, orqe.sink_stag);
		rv = mr ? siwl_mr_check(mr, qp->base.pd, h->to,
					h->payload_len,
					IB_ACCESS_LOCAL_WRITE) : -ENOENT;
		if (rv) {
			if (mr)
				siwl_mr_put(mr);
			return siwl_rx_fail_code(qp, IW_TERM_LAYER_DDP,
						 DDP_ETYPE_TAGGED,
						 rv == -EINVAL ?
						 DDP_TECODE_BASE_BOUNDS :
						 DDP_TECODE_INVALID_STAG,
						 HDRCT_MD);
		}
		rx->mr = mr;
		rx->addr = h->to;
	}
	rx->kind = SIWL_RX_READ_RESP;
	return 0;
}

/* RFC 5040 section 4.4: checked here, answered by TX (IRD bounded). */
static int siwl_rx_read_req(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct ddp_hdr_info *h = &rx->h;
	struct iw_term term;
	unsigned long flags;
	struct siwl_mr *mr;
	bool room;
	u32 idx;

	spin_lock_irqsave(&qp->lock, flags);
	room = qp->irq_count < qp->ird;
	spin_unlock_irqrestore(&qp->lock, flags);
	/* Beyond IRD the Read Request queue has no buffer (RFC 5040 6.5). */
	if (ddp_msn_check(h->msn, rx->next_msn[RDMAP_QN_READ_REQ], room, 1,
			  &idx, &term))
		return siwl_rx_fail(qp, &term);

	if (h->rreq.read_size) {
		mr = siwl_rx_tagged(qp, h->rreq.source_stag,
				    h->rreq.source_to, h->rreq.read_size,
				    IW_ACCESS_REMOTE_READ, IW_TERM_LAYER_RDMAP,
				    &term);
		if (!mr)
			return siwl_rx_fail(qp, &term);
		siwl_mr_put(mr);
	}
	rx->kind = SIWL_RX_READ_REQ;
	return 0;
}

/* Takes the receive WQE for a new message, from the RQ or the SRQ. */
static int siwl_rx_take_rqe(struct siwl_qp *qp)
{
	struct siwl_rqe rqe;
	unsigned long flags;
	int rv = 0;

	if (qp->srq) {
		rv = siwl_srq_get(qp->srq, &rqe);
		if (rv == -ENOENT)
			return rv;
		spin_lock_irqsave(&qp->rq_lock, flags);
		qp->rx_rqe = rqe;
		qp->rx_rqe_valid = true;
		spin_unlock_irqrestore(&qp->rq_lock, flags);
		return rv;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->urq.hdr) {
		rv = siwl_urq_take_locked(qp, &qp->rx_rqe);
		/* A corrupt WQE is completed in error, for its wr_id. */
		qp->rx_rqe_valid = rv != -ENOENT;
	} else if (qp->rq_tail == qp->rq_head) {
		rv = -ENOENT;
	} else {
		qp->rx_rqe = qp->rq[qp->rq_tail % qp->rq_size];
		qp->rq_tail++;
		qp->rx_rqe_valid = true;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return rv;
}

static void siwl_rx_complete_rqe(struct siwl_qp *qp, const struct siwl_cqe *c,
				 bool solicited)
{
	struct siwl_cqe cqe = *c;
	unsigned long flags;
	int rv = 0;

	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->rx_rqe_valid) {
		cqe.wr_id = qp->rx_rqe.wr_id;
		cqe.qp = &qp->base;
		rv = siwl_cq_push(to_siwl_cq(qp->base.recv_cq), &cqe,
				  solicited);
		qp->rx_rqe_valid = false;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (rv == -ENOSPC) {
		spin_lock_irqsave(&qp->lock, flags);
		siwl_qp_error_locked(qp, true);
		spin_unlock_irqrestore(&qp->lock, flags);
	}
}

/*
 * The PD a receive buffer's lkeys belong to: the SRQ's when the WQE came
 * from one (they were posted, and are checked, there), else the QP's.
 */
static struct ib_pd *siwl_rx_rqe_pd(const struct siwl_qp *qp)
{
	return qp->base.srq ? qp->base.srq->pd : qp->base.pd;
}

/* The consumer's buffer must be valid before a byte is placed in it. */
static int siwl_rx_check_rqe(struct siwl_qp *qp)
{
	const struct siwl_rqe *rqe = &qp->rx_rqe;
	struct siwl_mr *mr;
	u32 i;
	int rv;

	for (i = 0; i < rqe->num_sge; i++) {
		if (!rqe->sge[i].length)
			continue;
		mr = siwl_mr_get(qp->sdev, rqe->sge[i].lkey);
		if (!mr)
			return -ENOENT;
		rv = siwl_mr_check(mr, siwl_rx_rqe_pd(qp), rqe->sge[i].addr,
				   rqe->sge[i].length, IB_ACCESS_LOCAL_WRITE);
		siwl_mr_put(mr);
		if (rv)
			return rv;
	}
	return 0;
}

/*
 * A Send arrived and no receive WQE is posted. RFC 5041 section 7.2 makes
 * that an error that ends the connection, and the in-tree siw terminates
 * at once. Programs written for InfiniBand count on the RNR retry instead
 * and repost receives only as completions come back (qperf rc_bi_bw). So
 * the Send waits, with all that follows it in the stream: RX stops
 * reading, TCP's window closes, and the peer's sender waits as it would
 * for a slow consumer, which on the wire it is. Once a receive is posted
 * (siwl_rx_rqe_posted(), or a poll each jiffy, since a WQE posted on a
 * user ring makes no system call), RX takes it and goes on. After
 * SIWL_RQE_WAIT_MS without one, the Terminate is sent as the RFC says.
 * Returns true while the Send waits.
 */
static bool siwl_rx_wait_rqe(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;

	if (!rx->rqe_wait) {
		rx->rqe_wait_until = jiffies + msecs_to_jiffies(SIWL_RQE_WAIT_MS);
		WRITE_ONCE(rx->rqe_wait, true);
		siwl_qp_stat_inc(qp, SIWL_STAT_RX_RQE_WAITS);
	} else if (time_after(jiffies, rx->rqe_wait_until)) {
		WRITE_ONCE(rx->rqe_wait, false);
		return false;
	}
	queue_delayed_work(siwl_qp_wq, &qp->rqe_work, 1);
	return true;
}

/* The receive WQE ends in @status, the stream in @term's Terminate. */
static int siwl_rx_send_failed(struct siwl_qp *qp, enum ib_wc_status status,
			       const struct iw_term *term)
{
	struct siwl_cqe cqe = { .opcode = IB_WC_RECV, .status = status };

	siwl_rx_complete_rqe(qp, &cqe, false);
	return siwl_rx_fail(qp, term);
}

/*
 * A Send whose header its receive WQE cannot take (too long, a bad SGE, a
 * malformed WQE). Without CRCs that is final at once. With CRCs the
 * header is believed only once the FPDU's CRC matches: the payload is
 * read through (CRC only, nothing placed) and siwl_rx_segment_done()
 * reports the error; on a mismatch the QP ends on the CRC error instead
 * and the WQE is flushed like any other.
 */
static int siwl_rx_send_error(struct siwl_qp *qp, enum ib_wc_status status,
			      const struct iw_term *term)
{
	struct siwl_rx *rx = &qp->rx;

	if (!qp->crc)
		return siwl_rx_send_failed(qp, status, term);
	rx->send_err_status = status;
	rx->send_err_term = *term;
	rx->kind = SIWL_RX_SEND_ERROR;
	return 0;
}

/* RFC 5040 section 4.6/4.7: Send variants, on untagged queue 0. */
static int siwl_rx_send(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct ddp_hdr_info *h = &rx->h;
	struct iw_term term;
	u32 idx;
	int rv;

	if (!rx->send_active) {
		if (h->mo)
			return siwl_rx_fail_code(qp, IW_TERM_LAYER_DDP,
						 DDP_ETYPE_UNTAGGED,
						 DDP_UECODE_INVALID_MO,
						 HDRCT_MD);
		if (ddp_msn_check(h->msn, rx->next_msn[RDMAP_QN_SEND], 1, 1,
				  &idx, &term))
			return siwl_rx_fail(qp, &term);
		rv = siwl_rx_take_rqe(qp);
		/* The user wrote a WQE we cannot take. */
		if (rv == -EPROTO) {
			WRITE_ONCE(rx->rqe_wait, false);
			return siwl_rx_send_error(qp, IB_WC_LOC_QP_OP_ERR,
						  &siwl_rx_term_local);
		}
		/* RFC 5041 section 7.2: no buffer posted for this MSN. */
		if (rv) {
			if (siwl_rx_wait_rqe(qp))
				return -EAGAIN;
			siwl_qp_stat_inc(qp, SIWL_STAT_RX_NO_RQE);
			ddp_msn_check(h->msn, rx->next_msn[RDMAP_QN_SEND], 0,
				      1, &idx, &term);
			return siwl_rx_fail(qp, &term);
		}
		WRITE_ONCE(rx->rqe_wait, false);
		if (siwl_rx_check_rqe(qp))
			return siwl_rx_send_error(qp, IB_WC_LOC_PROT_ERR,
						  &siwl_rx_term_local);
		rx->send_active = true;
		rx->send_msn = h->msn;
		rx->send_mo = 0;
	} else {
		if (ddp_msn_check(h->msn, rx->send_msn, 1, 1, &idx, &term))
			return siwl_rx_fail(qp, &term);
		if (h->mo != rx->send_mo)
			return siwl_rx_fail_code(qp, IW_TERM_LAYER_DDP,
						 DDP_ETYPE_UNTAGGED,
						 DDP_UECODE_INVALID_MO,
						 HDRCT_MD);
	}
	/*
	 * A message longer than the posted buffer is "too long" (7.2); the
	 * receive it was placed into ends with a length error, not flushed,
	 * so that the consumer learns why.
	 */
	if (ddp_untagged_check(h->mo, h->payload_len, qp->rx_rqe.total_len,
			       &term))
		return siwl_rx_send_error(qp, IB_WC_LOC_LEN_ERR, &term);
	rx->kind = SIWL_RX_SEND;
	return 0;
}

/* RFC 6581 section 4: the one zero-length message the initiator sends. */
static bool siwl_rx_is_rtr(const struct siwl_rx *rx)
{
	const struct ddp_hdr_info *h = &rx->h;

	switch (rx->rtr_expect) {
	case MPA_RTR_WRITE:
		return h->opcode == RDMAP_RDMA_WRITE && !h->payload_len &&
		       h->last;
	case MPA_RTR_READ:
		return h->opcode == RDMAP_RDMA_READ_REQ && !h->rreq.read_size;
	case MPA_RTR_SEND:
		return h->opcode == RDMAP_SEND && !h->payload_len && h->last &&
		       !h->mo;
	default:
		return false;
	}
}

/* Per-opcode checks of a segment whose headers parsed cleanly. */
static int siwl_rx_dispatch(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct ddp_hdr_info *h = &rx->h;
	struct iw_term term;
	u32 idx;

	rx->kind = SIWL_RX_DISCARD;
	rx->rtr_seg = false;
	if (rx->rtr_expect && h->opcode != RDMAP_TERMINATE) {
		if (!siwl_rx_is_rtr(rx))
			return siwl_rx_fail_code(qp, IW_TERM_LAYER_LLP,
						 MPA_ETYPE_MPA,
						 MPA_ECODE_NO_MATCHING_RTR, 0);
		rx->rtr_seg = true;
		rx->rtr_expect = 0;
		if (h->opcode == RDMAP_RDMA_WRITE)
			return 0;
		if (h->opcode == RDMAP_SEND) {
			/* Uses an MSN but no receive WQE, completes nothing. */
			if (ddp_msn_check(h->msn, rx->next_msn[RDMAP_QN_SEND],
					  1, 1, &idx, &term))
				return siwl_rx_fail(qp, &term);
			rx->kind = SIWL_RX_RTR_SEND;
			return 0;
		}
		/* A zero-length Read is answered like any other. */
	}

	switch (h->opcode) {
	case RDMAP_RDMA_WRITE:
		return siwl_rx_write(qp);
	case RDMAP_RDMA_READ_RESP:
		return siwl_rx_read_resp(qp);
	case RDMAP_RDMA_READ_REQ:
		return siwl_rx_read_req(qp);
	case RDMAP_TERMINATE:
		rx->kind = SIWL_RX_TERMINATE;
		return 0;
	default:
		return siwl_rx_send(qp);
	}
}

/*
 * RFC 5040 section 4.8: the Terminate for an error in a DDP or RDMAP
 * header echoes that DDP header (D bit). The version and opcode checks
 * fail on the segment's first two bytes, so gather the rest of its DDP
 * header first when the segment is long enough to have one. Returns true
 * when the Terminate is held until then.
 */
static bool siwl_rx_hold_term(struct siwl_rx *rx, const struct iw_term *term)
{
	u32 dlen = rx->h.tagged ? DDP_TAGGED_HDR_SIZE : DDP_UNTAGGED_HDR_SIZE;

	if (!(term->hdrct & RDMAP_TERM_HDRCT_D) || rx->mpa_len < dlen ||
	    rx->have >= MPA_HDR_SIZE + dlen)
		return false;
	rx->term_held = *term;
	rx->need = MPA_HDR_SIZE + dlen;
	return true;
}

/*
 * The header bytes gathered so far are complete enough to parse. Returns
 * 1 when more header bytes are needed, 0 when the segment is ready for
 * its payload, -EAGAIN while a Send waits for a receive WQE (parsed
 * again when one may be there), or another negative errno after failing
 * the QP.
 */
static int siwl_rx_hdr(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct iw_term term;
	int rv;

	if (rx->term_held.valid)
		return siwl_rx_fail(qp, &rx->term_held);

	rx->mpa_len = get_unaligned_be16(rx->hdr);
	rv = ddp_parse_hdr(rx->hdr + MPA_HDR_SIZE, rx->have - MPA_HDR_SIZE,
			   rx->mpa_len, &rx->h, &term);
	if (rv == -EAGAIN) {
		rx->need = MPA_HDR_SIZE + rx->h.hdr_len;
	} else if (rv) {
		if (!siwl_rx_hold_term(rx, &term))
			return siwl_rx_fail(qp, &term);
	} else if (rx->h.opcode == RDMAP_TERMINATE &&
		   rx->have < MPA_HDR_SIZE + rx->mpa_len) {
		/* Parsed as bounded by RDMAP_TERM_MAX_BODY: take it all. */
		rx->need = MPA_HDR_SIZE + rx->mpa_len;
	} else {
		goto parsed;
	}
	if (rx->need > sizeof(rx->hdr) || rx->need <= rx->have)
		return siwl_rx_fail(qp, &siwl_rx_term_local);
	return 1;

parsed:
	if (qp->crc)
		rx->crc = mpa_crc_update(MPA_CRC_SEED, rx->hdr, rx->have);
	rx->payload_left = rx->h.opcode == RDMAP_TERMINATE ? 0 :
			   rx->h.payload_len;
	rx->payload_done = 0;
	rx->trailer_have = 0;
	rx->trailer_need = mpa_pad_len(rx->mpa_len) + MPA_CRC_SIZE;
	rv = siwl_rx_dispatch(qp);
	if (rv)
		return rv;
	rx->phase = rx->payload_left ? SIWL_RX_PAYLOAD : SIWL_RX_TRAILER;
	return 0;
}

/* Places a Send's payload through the receive WQE's SGEs. */
static int siwl_rx_place_send(struct siwl_qp *qp, const struct sk_buff *skb,
			      int off, u32 len, u32 *crc)
{
	const struct siwl_rqe *rqe = &qp->rx_rqe;
	u32 mo = qp->rx.h.mo + qp->rx.payload_done;
	struct siwl_mr *mr;
	u32 i, n;
	int rv;

	for (i = 0; i < rqe->num_sge && len; i++) {
		const struct siwl_sge *sge = &rqe->sge[i];

		if (mo >= sge->length) {
			mo -= sge->length;
			continue;
		}
		n = min(len, sge->length - mo);
		mr = siwl_mr_get(qp->sdev, sge->lkey);
		rv = mr ? siwl_mr_check(mr, siwl_rx_rqe_pd(qp), sge->addr + mo,
					n, IB_ACCESS_LOCAL_WRITE) : -ENOENT;
		if (!rv)
			rv = siwl_mr_copy_from_skb(mr, sge->addr + mo, skb, off,
						   n, crc);
		if (mr)
			siwl_mr_put(mr);
		if (rv)
			return rv;
		off += n;
		len -= n;
		mo = 0;
	}
	return len ? -EINVAL : 0;
}

/*
 * The target MR of the tagged segment being placed, valid under the
 * segment's STag for what is left of it: looked up again when an earlier
 * pass let go of it, and its validity and key checked before every piece,
 * since an invalidation or a new fast registration may come at any time.
 */
static int siwl_rx_tagged_mr(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	int access = rx->kind == SIWL_RX_WRITE ? IB_ACCESS_REMOTE_WRITE :
						 IB_ACCESS_LOCAL_WRITE;
	struct siwl_mr *mr = rx->mr;

	if (!mr) {
		mr = siwl_mr_get(qp->sdev, rx->h.stag);
		if (!mr)
			return -ENOENT;
		rx->mr = mr;
		if (siwl_mr_check(mr, qp->base.pd, rx->addr + rx->payload_done,
				  rx->payload_left, access))
			return -EACCES;
	}
	/* Pairs with the release in siwl_mr_fast_reg(). */
	if (!smp_load_acquire(&mr->valid) ||
	    READ_ONCE(mr->stag) != rx->h.stag)
		return -ENOENT;
	return 0;
}

/* A Send read through for its held error: its payload counts in the CRC. */
static int siwl_rx_crc_only(const struct sk_buff *skb, int off, u32 len,
			    u32 *crc)
{
	u8 buf[256];
	u32 n;

	for (; len; off += n, len -= n) {
		n = min_t(u32, len, sizeof(buf));
		if (skb_copy_bits(skb, off, buf, n))
			return -EFAULT;
		*crc = mpa_crc_update(*crc, buf, n);
	}
	return 0;
}

static int siwl_rx_place(struct siwl_qp *qp, const struct sk_buff *skb,
			 int off, u32 len)
{
	struct siwl_rx *rx = &qp->rx;
	u32 *crc = qp->crc ? &rx->crc : NULL;
	int rv;

	switch (rx->kind) {
	case SIWL_RX_WRITE:
	case SIWL_RX_READ_RESP:
		if (!len)
			return 0;
		/* RFC 5041 section 7.2: the STag is no longer valid. */
		if (siwl_rx_tagged_mr(qp))
			return siwl_rx_fail_code(qp, IW_TERM_LAYER_DDP,
						 DDP_ETYPE_TAGGED,
						 DDP_TECODE_INVALID_STAG,
						 HDRCT_MD);
		rv = siwl_mr_copy_from_skb(rx->mr, rx->addr + rx->payload_done,
					   skb, off, len, crc);
		break;
	case SIWL_RX_SEND:
		rv = siwl_rx_place_send(qp, skb, off, len, crc);
		break;
	case SIWL_RX_SEND_ERROR:
		rv = siwl_rx_crc_only(skb, off, len, &rx->crc);
		break;
	default:
		rv = -EIO;	/* every other kind was checked to be empty */
		break;
	}
	if (rv)
		return siwl_rx_fail(qp, &siwl_rx_term_local);
	return 0;
}

static void siwl_rx_read_resp_done(struct siwl_qp *qp)
{
	struct ddp_hdr_info *h = &qp->rx.h;
	enum ib_wc_status status = IB_WC_SUCCESS;
	struct siwl_orqe *e, orqe;
	struct siwl_sqe *sqe;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (!qp->orq_count) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return;
	}
	e = &qp->orq[qp->orq_head % SIWL_MAX_ORD];
	e->placed += h->payload_len;
	if (!h->last) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return;
	}
	orqe = *e;
	qp->orq_head++;
	qp->orq_count--;
	spin_unlock_irqrestore(&qp->lock, flags);

	/* iWARP Read with Invalidate: the sink STag dies with the Read. */
	if (!orqe.rtr && orqe.inv &&
	    siwl_mr_invalidate(qp->sdev, qp->base.pd, orqe.inv_key, false))
		status = IB_WC_LOC_PROT_ERR;

	spin_lock_irqsave(&qp->lock, flags);
	if (!orqe.rtr && qp->state != SIWL_QPS_ERROR) {
		sqe = &qp->sq[orqe.sq_idx % qp->sq_size];
		if (!(sqe->flags & SIWL_WQE_DONE)) {
			sqe->status = status;
			sqe->flags |= SIWL_WQE_DONE;
			siwl_qp_reap_locked(qp);
		}
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	/* ORD and fences may let the send queue move again. */
	siwl_qp_kick(qp);
}

static void siwl_rx_send_done(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct ddp_hdr_info *h = &rx->h;
	struct siwl_cqe cqe = {};
	bool inv, se;
	int rv;

	if (!h->last) {
		rx->send_mo += h->payload_len;
		return;
	}
	inv = h->opcode == RDMAP_SEND_INVAL || h->opcode == RDMAP_SEND_SE_INVAL;
	se = h->opcode == RDMAP_SEND_SE || h->opcode == RDMAP_SEND_SE_INVAL;
	if (inv) {
		/* RFC 5040 section 5.2: invalidate before completing. */
		rv = siwl_mr_invalidate(qp->sdev, qp->base.pd, h->stag, true);
		if (rv) {
			siwl_rx_fail_code(qp, IW_TERM_LAYER_RDMAP,
					  rv == -EACCES ?
					  RDMAP_ETYPE_REMOTE_PROTECTION :
					  RDMAP_ETYPE_REMOTE_OPERATION,
					  RDMAP_ECODE_CANNOT_INVALIDATE,
					  HDRCT_MD);
			return;
		}
		cqe.wc_flags = IB_WC_WITH_INVALIDATE;
		cqe.inv_rkey = h->stag;
	}
	cqe.opcode = IB_WC_RECV;
	cqe.status = IB_WC_SUCCESS;
	cqe.byte_len = h->mo + h->payload_len;
	siwl_rx_complete_rqe(qp, &cqe, se);
	rx->next_msn[RDMAP_QN_SEND]++;
	rx->send_active = false;
}

static void siwl_rx_read_req_done(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct rdmap_rreq_info *r = &rx->h.rreq;
	struct siwl_irqe *e;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	/* Room was checked with the header; only RX adds entries. */
	if (qp->irq_count < qp->ird) {
		e = &qp->irq[(qp->irq_head + qp->irq_count) % SIWL_MAX_IRD];
		e->sink_stag = r->sink_stag;
		e->sink_to = r->sink_to;
		e->size = r->read_size;
		e->src_stag = r->source_stag;
		e->src_to = r->source_to;
		qp->irq_count++;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	rx->next_msn[RDMAP_QN_READ_REQ]++;
	/* siwl_qp_rx() wakes the transmitter once the pass is over. */
	rx->read_req_kick = true;
}

/* RFC 5040 section 5.4.4: the peer is done with this stream. */
static void siwl_rx_terminate(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	struct rdmap_term_info ti;
	struct siwl_sqe *sqe;
	unsigned long flags;
	u16 ctrl;

	rx->dead = true;
	if (rdmap_parse_terminate(rx->hdr + MPA_HDR_SIZE +
				  DDP_UNTAGGED_HDR_SIZE,
				  rx->mpa_len - DDP_UNTAGGED_HDR_SIZE, &ti)) {
		ibdev_warn_ratelimited(&qp->sdev->ibdev,
				       "qp %u: malformed Terminate received\n",
				       qp->base.qp_num);
		memset(&ti, 0, sizeof(ti));
	} else {
		ibdev_warn_ratelimited(&qp->sdev->ibdev,
				       "qp %u: Terminate received: layer %u etype %u ecode %u\n",
				       qp->base.qp_num, ti.layer, ti.etype,
				       ti.ecode);
	}
	trace_term_rx(qp->base.qp_num, ti.layer, ti.etype, ti.ecode);

	spin_lock_irqsave(&qp->lock, flags);
	/*
	 * A Terminate echoing one of our Read Requests concerns the oldest
	 * Read in flight (the peer processes them in order): report it as
	 * a remote error rather than a flush.
	 */
	if (ti.ddp_hdr && qp->orq_count &&
	    !qp->orq[qp->orq_head % SIWL_MAX_ORD].rtr) {
		ctrl = get_unaligned_be16(ti.ddp_hdr);
		if (!(ctrl & DDP_CTRL_TAGGED) &&
		    (ctrl & RDMAP_CTRL_OPCODE_MASK) == RDMAP_RDMA_READ_REQ) {
			sqe = &qp->sq[qp->orq[qp->orq_head % SIWL_MAX_ORD].sq_idx %
				      qp->sq_size];
			if (!(sqe->flags & SIWL_WQE_DONE)) {
				sqe->status = ti.etype ==
					RDMAP_ETYPE_REMOTE_PROTECTION ?
					IB_WC_REM_ACCESS_ERR : IB_WC_REM_OP_ERR;
				sqe->flags |= SIWL_WQE_DONE;
			}
		}
	}
	if (qp->state != SIWL_QPS_ERROR)
		qp->event_pending = true;
	siwl_qp_error_locked(qp, true);
	spin_unlock_irqrestore(&qp->lock, flags);
}

static void siwl_rx_segment_done(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;

	switch (rx->kind) {
	case SIWL_RX_READ_RESP:
		siwl_rx_read_resp_done(qp);
		break;
	case SIWL_RX_SEND:
		siwl_rx_send_done(qp);
		break;
	case SIWL_RX_RTR_SEND:
		rx->next_msn[RDMAP_QN_SEND]++;
		break;
	case SIWL_RX_READ_REQ:
		siwl_rx_read_req_done(qp);
		break;
	case SIWL_RX_TERMINATE:
		siwl_rx_terminate(qp);
		break;
	case SIWL_RX_SEND_ERROR:
		siwl_rx_send_failed(qp, rx->send_err_status,
				    &rx->send_err_term);
		break;
	default:
		break;
	}
	/* RFC 6581: the responder may transmit once the RTR is in. */
	if (rx->rtr_seg && !rx->dead)
		siwl_rx_kick_locked_free(qp, true);
}

/* PAD and CRC are in: check the CRC, then let the segment take effect. */
static int siwl_rx_trailer(struct siwl_qp *qp)
{
	struct siwl_rx *rx = &qp->rx;
	u32 pad = rx->trailer_need - MPA_CRC_SIZE;
	__le32 crc;

	if (qp->crc) {
		crc = mpa_crc_final(mpa_crc_update(rx->crc, rx->trailer, pad));
		if (memcmp(&crc, rx->trailer + pad, MPA_CRC_SIZE)) {
			siwl_qp_stat_inc(qp, SIWL_STAT_RX_CRC_ERRORS);
			/* RFC 5044 section 8: nothing in it can be trusted. */
			return siwl_rx_fail_code(qp, IW_TERM_LAYER_LLP,
						 MPA_ETYPE_MPA, MPA_ECODE_CRC,
						 0);
		}
	}
	siwl_qp_stat_fpdu(qp, true, rx->h.opcode, rx->payload_done);
	trace_fpdu_rx(qp->base.qp_num, &rx->h, rx->payload_done);
	siwl_rx_release(qp);
	siwl_rx_segment_done(qp);
	WRITE_ONCE(rx->segs, rx->segs + 1);
	siwl_rx_next_segment(rx);
	return 0;
}

/* Consumes up to @avail bytes at @off; returns the count or an error. */
static int siwl_rx_consume(struct siwl_qp *qp, const struct sk_buff *skb,
			   int off, u32 avail)
{
	struct siwl_rx *rx = &qp->rx;
	u32 n;
	int rv;

	switch (rx->phase) {
	case SIWL_RX_HDR:
		n = min(avail, rx->need - rx->have);
		if (skb_copy_bits(skb, off, rx->hdr + rx->have, n))
			return siwl_rx_fail(qp, &siwl_rx_term_local);
		rx->have += n;
		if (rx->have == rx->need) {
			rv = siwl_rx_hdr(qp);
			if (rv < 0 && rv != -EAGAIN)
				return rv;
		}
		return n;
	case SIWL_RX_PAYLOAD:
		n = min(avail, rx->payload_left);
		rv = siwl_rx_place(qp, skb, off, n);
		if (rv)
			return rv;
		rx->payload_left -= n;
		rx->payload_done += n;
		if (!rx->payload_left)
			rx->phase = SIWL_RX_TRAILER;
		return n;
	default:
		n = min(avail, rx->trailer_need - rx->trailer_have);
		if (skb_copy_bits(skb, off, rx->trailer + rx->trailer_have, n))
			return siwl_rx_fail(qp, &siwl_rx_term_local);
		rx->trailer_have += n;
		if (rx->trailer_have == rx->trailer_need) {
			rv = siwl_rx_trailer(qp);
			if (rv)
				return rv;
		}
		return n;
	}
}

/* TERMINATE or ERROR: nothing more is placed, no Send waits any more. */
static bool siwl_rx_stop_if_closed(struct siwl_qp *qp)
{
	enum siwl_qp_state state = READ_ONCE(qp->state);

	if (state == SIWL_QPS_RTS || state == SIWL_QPS_CLOSING)
		return false;
	qp->rx.dead = true;
	WRITE_ONCE(qp->rx.rqe_wait, false);
	siwl_rx_release(qp);
	return true;
}

static int siwl_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len)
{
	struct siwl_qp *qp = desc->arg.data;
	struct siwl_rx *rx = &qp->rx;
	size_t done = 0;
	int n;

	/* tcp_read_sock() hands us at most one skb's worth. */
	if (WARN_ON_ONCE(len > INT_MAX))
		return 0;
	while (done < len && !rx->dead) {
		/* The rest stays in TCP's queue until a receive is posted. */
		if (rx->rqe_wait)
			return done;
		if (siwl_rx_stop_if_closed(qp))
			break;
		n = siwl_rx_consume(qp, skb, off + done, len - done);
		if (n < 0)
			break;
		done += n;
	}
	/* Past an error the stream has no meaning left: drop the rest. */
	return len;
}

/* A Send waiting for a receive WQE tries again (siwl_rx_wait_rqe()). */
static void siwl_rx_retry_send(struct siwl_qp *qp)
{
	if (!siwl_rx_stop_if_closed(qp))
		siwl_rx_hdr(qp);
}

void siwl_qp_rx(struct siwl_qp *qp, struct sock *sk)
{
	read_descriptor_t desc = { .arg.data = qp, .count = 1 };
	bool kick;

	spin_lock_bh(&qp->rx_lock);
	if (qp->rx_enabled && qp->rx.rqe_wait && !qp->rx.dead)
		siwl_rx_retry_send(qp);
	if (qp->rx_enabled && !qp->rx.rqe_wait)
		tcp_read_sock(sk, &desc, siwl_rx_actor);
	/* No MR reference outlives the pass (see the top of this file). */
	siwl_rx_release(qp);
	kick = qp->rx.read_req_kick;
	qp->rx.read_req_kick = false;
	spin_unlock_bh(&qp->rx_lock);
	if (!kick)
		return;
	/*
	 * Read Requests arrived: answer them from another CPU. With a local
	 * requester this softirq runs inside the requester's own send, and a
	 * worker queued on this CPU would answer only after that chain of
	 * work ends, turning a stream of Reads into a ping-pong. In the 2 CPU
	 * benchmark guest, ib_read_bw 64 B went from 7 to 101 Kmsg/s and
	 * 64 KiB from 221 to 283 MiB/s; ib_read_lat 8 B from 86 to 143 us,
	 * waking an idle vCPU being slow under TCG. Telling the two apart by
	 * the queue (more than one request waiting) or by a busy transmitter
	 * kept both slow, since a stream arrives one request at a time.
	 */
	siwl_queue_elsewhere(&qp->tx_work);
}

/*
 * sk_data_ready. Placement normally runs right here, in the softirq that
 * TCP received in, which is the sender's CPU when the peer is local. With
 * rx_defer, a burst of at least that many unread bytes is placed by a
 * worker on another CPU instead, so that copying into consumer memory
 * overlaps with the protocol work on this one; a small message is still
 * placed at once, for its latency.
 *
 * In the 2 CPU benchmark guest, with the sender's system call sending
 * on one CPU and placement on the other, ib_write_bw 64 KiB went from a
 * median of 152 to 192 MiB/s and ib_send_bw from 149 to 200 over four
 * alternating pairs of runs (Documentation/siw_lite.rst).
 *
 * rx_defer_read does the same while Reads are outstanding, with its own
 * threshold. Read Responses are sent by the responder's worker, and
 * placing them beside it, on the requester's CPU where the requester
 * waits for them, paid in the same guest: median ib_read_bw 64 KiB
 * 244 -> 339 MiB/s, 1 MiB 261 -> 369.
 */
void siwl_qp_data_ready(struct siwl_qp *qp, struct sock *sk)
{
	u32 min = READ_ONCE(siwl_tune.rx_defer);
	u32 rmin = READ_ONCE(siwl_tune.rx_defer_read);
	const struct tcp_sock *tp = tcp_sk(sk);

	/* Unlocked: a stale count only places one burst elsewhere. */
	if (rmin && READ_ONCE(qp->orq_count) && (!min || rmin < min))
		min = rmin;
	if (min && in_serving_softirq() && num_online_cpus() > 1 &&
	    READ_ONCE(tp->rcv_nxt) - READ_ONCE(tp->copied_seq) >= min) {
		siwl_queue_elsewhere(&qp->rx_work);
		return;
	}
	siwl_qp_rx(qp, sk);
}

/*
 * Whether the receive window we last advertised is nearly used up while
 * the buffer would allow twice as much: the test tcp_cleanup_rbuf() makes
 * after an application read, less its cost.
 */
static bool siwl_rwnd_stale(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 left = tcp_receive_window(tp);
	int space = tcp_space(sk);

	return left < READ_ONCE(tp->window_clamp) / 2 && space > 0 &&
	       (u32)space >= 2 * left + inet_csk(sk)->icsk_ack.rcv_mss;
}

/*
 * Called after a process context held @sk (a post's or worker's send, the
 * RX worker): reopens a receive window that closed meanwhile.
 *
 * While a socket is owned, arriving segments wait in its backlog, and
 * until release_sock() has drained it, 6.1's __release_sock() counts every
 * byte that went through against the free space (sk_backlog.len is reset
 * only at the end, so that a flood cannot keep it looping). We place data
 * from sk_data_ready, so draining is reading: with a local peer each ACK
 * sent during the drain lets the peer's softirq send more into the same
 * backlog, and the advertised window shrinks to zero. TCP reopens it only
 * on the next application read (tcp_cleanup_rbuf()); none comes, since we
 * read it all already, and the peer waits for its zero window probe, one
 * RTO (200 ms or more). In the 2 CPU benchmark guest that was the slow
 * mode of ib_send_bw 64 KiB, whose server posts a credit Send every few
 * receives: stops of 140-180 ms, two to three a second
 * (Documentation/siw_lite.rst).
 */
void siwl_rx_window_update(struct sock *sk)
{
	if (!siwl_rwnd_stale(sk))
		return;
	lock_sock(sk);
	if (sk->sk_state == TCP_ESTABLISHED && siwl_rwnd_stale(sk))
		siwl_tcp_send_ack(sk);
	release_sock(sk);
}

static void siwl_qp_rx_sock(struct siwl_qp *qp)
{
	struct sock *sk = NULL;
	unsigned long flags;

	/* siwl_qp_llp_down() waits for us before the socket goes. */
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->sock)
		sk = qp->sock->sk;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!sk)
		return;
	lock_sock(sk);
	siwl_qp_rx(qp, sk);
	release_sock(sk);
	siwl_rx_window_update(sk);
}

void siwl_qp_rx_work(struct work_struct *work)
{
	siwl_qp_rx_sock(container_of(work, struct siwl_qp, rx_work));
}

void siwl_qp_rqe_work(struct work_struct *work)
{
	siwl_qp_rx_sock(container_of(to_delayed_work(work), struct siwl_qp,
				     rqe_work));
}

/*
 * From the posts (any context): unlocked, since a Send that starts to wait
 * just after this read polls for the WQE anyway.
 */
void siwl_rx_rqe_posted(struct siwl_qp *qp)
{
	if (READ_ONCE(qp->rx.rqe_wait))
		mod_delayed_work(siwl_qp_wq, &qp->rqe_work, 0);
}
