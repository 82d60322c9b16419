// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: transmit. RDMAP messages (RFC 5040) cut into DDP segments
 * (RFC 5041) framed as MPA FPDUs (RFC 5044 section 4) on the TCP socket.
 *
 * Everything here runs one instance at a time under the QP's tx_mutex,
 * in its work item or in a user's post (siwl_qp_tx_direct()), so struct
 * siwl_tx needs no other lock. The work item never blocks on the socket:
 * it sends with MSG_DONTWAIT and, on -EAGAIN, returns; sk_write_space
 * (siwl_qp_tx_wakeup()) queues it again and it resumes within the FPDU it
 * was sending.
 *
 * Each FPDU is built whole in a per-QP buffer: headers, payload copied
 * from the source memory, PAD and CRC. That costs a copy but makes resuming
 * a partly sent FPDU trivial, keeps the CRC a single pass over contiguous
 * bytes, and lets a WR complete as soon as TCP has its bytes. The buffers
 * are pages TCP takes by reference (siwl_sendpage(), tx_pages of them
 * rotate), so that copy is the only one on the way out: TCP does not copy
 * them again.
 *
 * Scheduling, at FPDU boundaries: a pending Terminate first; then the
 * message in progress; then a new message, alternating between the send
 * queue and inbound Read Requests (RFC 5040 section 5.3) when both wait.
 * Messages are never interleaved with each other, so the peer sees every
 * message's segments back to back.
 *
 * A Send or RDMA Write is complete once its last FPDU has been accepted by
 * TCP (RFC 5040 section 5.1 leaves it to the implementation; the data is
 * then in kernel buffers and the consumer's memory is no longer read). An
 * RDMA Read completes when RX places the end of its Read Response.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/bvec.h>
#include <linux/uio.h>
#include <net/tcp.h>

#include "compat.h"
#include "mem.h"
#include "mpa_wire.h"
#include "qp_engine.h"
#include "qp_obj.h"
#include "rx.h"
#include "trace.h"
#include "tune.h"
#include "tx.h"
#include "zcopy.h"

/* Buffers (up to 64 KiB of FPDUs each) per run before yielding. */
#define SIWL_TX_BUDGET		16
/* Smallest ULPDU we frame, whatever the MSS: progress over efficiency. */
#define SIWL_TX_MIN_ULPDU	256

/* siwl_tune.sq_poll_us at most: a worker must not hog its CPU. */
#define SIWL_SQ_POLL_MAX_US	1000

/* Messages up to this size are handed off when streaming (see below). */
#define SIWL_TX_HANDOFF_MAX_LEN	1024
/* Doorbells closer than this with nothing received between: a stream. */
#define SIWL_TX_STREAM_NS	(200 * NSEC_PER_USEC)

enum siwl_step {
	SIWL_STEP_IDLE,		/* nothing to do, or waiting on someone */
	SIWL_STEP_MORE,		/* progress made: run again */
};

static struct siwl_sqe *siwl_tx_sqe(struct siwl_qp *qp, u32 pos)
{
	return &qp->sq[pos % qp->sq_size];
}

/* The Read Response being built: irq_more entries past the oldest. */
static struct siwl_irqe *siwl_tx_irqe(struct siwl_qp *qp)
{
	return &qp->irq[(qp->irq_head + qp->tx.irq_more) % SIWL_MAX_IRD];
}

/*
 * RFC 5044 section 4.5: an FPDU should fit one TCP segment. Read per
 * message, since the path MSS can change while connected.
 */
static u32 siwl_tx_mulpdu(struct siwl_qp *qp, struct socket *sock)
{
	u32 m = mpa_mulpdu(READ_ONCE(tcp_sk(sock->sk)->mss_cache));

	return clamp_t(u32, m, SIWL_TX_MIN_ULPDU, SIWL_TX_MAX_ULPDU);
}

static bool siwl_is_read(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ || opcode == IB_WR_RDMA_READ_WITH_INV;
}

/* Checks every SGE of @sqe against the MR it names, before any byte goes. */
static int siwl_tx_check_sges(struct siwl_qp *qp, const struct siwl_sqe *sqe,
			      int access)
{
	struct siwl_mr *mr;
	int i, rv;

	for (i = 0; i < sqe->num_sge; i++) {
		const struct siwl_sge *sge = &sqe->sge[i];

		if (!sge->length)
			continue;
		mr = siwl_mr_get(qp->sdev, sge->lkey);
		if (!mr)
			return -ENOENT;
		rv = siwl_mr_check(mr, qp->base.pd, sge->addr, sge->length,
				   access);
		siwl_mr_put(mr);
		if (rv)
			return rv;
	}
	return 0;
}

/*
 * Walks @len bytes at message offset @off of @sqe's SGEs, checking each
 * piece against its MR, and copies them to @dst; or, with @dst NULL,
 * appends their pages to the zero-copy piece list, summed into *@crc
 * unless @crc is NULL. Returns 0 or a negative errno, the piece list
 * then as it was: -EOPNOTSUPP or -ENOSPC mean "copy instead".
 */
static int siwl_tx_gather(struct siwl_qp *qp, const struct siwl_sqe *sqe,
			  u32 off, u8 *dst, u32 len, u32 *crc)
{
	struct siwl_tx *tx = &qp->tx;
	unsigned int nb = tx->nbvec;
	struct siwl_mr *mr;
	int i, rv;
	u32 n;

	for (i = 0; i < sqe->num_sge && len; i++) {
		const struct siwl_sge *sge = &sqe->sge[i];

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		n = min(len, sge->length - off);
		/* Looked up again per FPDU: no MR is pinned while we wait. */
		mr = siwl_mr_get(qp->sdev, sge->lkey);
		if (!mr)
			return -ENOENT;
		rv = siwl_mr_check(mr, qp->base.pd, sge->addr + off, n, 0);
		if (!rv && dst)
			siwl_mr_copy_from(mr, sge->addr + off, dst, n);
		else if (!rv)
			rv = siwl_mr_pages(mr, sge->addr + off, n, tx->bvec + nb,
					   SIWL_TX_BVECS - nb, crc);
		siwl_mr_put(mr);
		if (rv < 0)
			return rv;
		if (dst)
			dst += n;
		else
			nb += rv;
		len -= n;
		off = 0;
	}
	if (len)
		return -EINVAL;
	tx->nbvec = nb;
	return 0;
}

/*
 * Reads Read Response payload from our Data Source. RX validated the
 * source when the request arrived; the STag may have been invalidated
 * since, which RFC 5040 section 7 reports as a remote protection error.
 */
static struct siwl_mr *siwl_tx_read_source(struct siwl_qp *qp,
					   const struct siwl_irqe *irqe,
					   u32 off, u32 len,
					   struct iw_term *term)
{
	struct siwl_mr *mr;
	u8 ecode;
	int rv;

	mr = siwl_mr_get(qp->sdev, irqe->src_stag);
	rv = mr ? siwl_mr_check(mr, qp->base.pd, irqe->src_to + off, len,
				IB_ACCESS_REMOTE_READ) : -ENOENT;
	if (!rv)
		return mr;
	if (mr)
		siwl_mr_put(mr);

	if (rv == -EINVAL)
		ecode = RDMAP_ECODE_BASE_BOUNDS;
	else if (rv == -EACCES)
		ecode = RDMAP_ECODE_ACCESS_RIGHTS;
	else
		ecode = RDMAP_ECODE_INVALID_STAG;
	iw_term_set(term, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
		    ecode, 0);
	return NULL;
}

/*
 * Appends @len bytes of @buf at @off to the zero-copy piece list, merged
 * into the piece before when they are adjacent (a trailer and the next
 * header usually are).
 */
static void siwl_tx_emit_buf(struct siwl_tx *tx, u32 off, u32 len)
{
	struct bio_vec *prev = tx->nbvec ? &tx->bvec[tx->nbvec - 1] : NULL;

	if (prev && prev->bv_page == tx->buf_page &&
	    prev->bv_offset + prev->bv_len == off) {
		prev->bv_len += len;
		return;
	}
	bvec_set_page(&tx->bvec[tx->nbvec++], tx->buf_page, len, off);
}

/*
 * Frames the FPDU whose headers are at @fpdu in @buf with its payload
 * left in the registered pages: the piece list gets the headers, the
 * pages, then PAD and CRC, which are written right behind the headers.
 * Returns 0; -EAGAIN if the payload must be copied instead (memory that
 * is not pinned user pages, no room for its pieces); another negative
 * errno on a protection error (@term set for a Read Response).
 */
static int siwl_tx_build_zc(struct siwl_qp *qp, const struct siwl_sqe *sqe,
			    const struct siwl_irqe *irqe, u8 *fpdu, u32 hlen,
			    u32 payload, struct iw_term *term)
{
	struct siwl_tx *tx = &qp->tx;
	u32 ulpdu_len = hlen + payload, crc = MPA_CRC_SEED;
	u32 *pcrc = qp->crc ? &crc : NULL;
	unsigned int nb = tx->nbvec;
	u32 prev_len = nb ? tx->bvec[nb - 1].bv_len : 0;
	struct siwl_mr *mr;
	u32 tlen;
	int rv;

	if (nb + SIWL_TX_FPDU_BVECS > SIWL_TX_BVECS)
		return -EAGAIN;
	put_unaligned_be16(ulpdu_len, fpdu);
	if (pcrc)
		crc = mpa_crc_update(crc, fpdu, MPA_HDR_SIZE + hlen);
	siwl_tx_emit_buf(tx, tx->buf_used, MPA_HDR_SIZE + hlen);

	if (irqe) {
		mr = siwl_tx_read_source(qp, irqe, tx->msg_sent, payload, term);
		rv = -EACCES;
		if (mr) {
			rv = siwl_mr_pages(mr, irqe->src_to + tx->msg_sent,
					   payload, tx->bvec + tx->nbvec,
					   SIWL_TX_BVECS - tx->nbvec, pcrc);
			siwl_mr_put(mr);
			if (rv >= 0) {
				tx->nbvec += rv;
				rv = 0;
			} else if (rv != -EOPNOTSUPP && rv != -ENOSPC) {
				iw_term_set(term, IW_TERM_LAYER_RDMAP,
					    RDMAP_ETYPE_REMOTE_PROTECTION,
					    RDMAP_ECODE_BASE_BOUNDS, 0);
			}
		}
	} else {
		rv = siwl_tx_gather(qp, sqe, tx->msg_sent, NULL, payload, pcrc);
	}
	if (rv) {
		/* Undo the header piece: a copy emits the FPDU whole. */
		tx->nbvec = nb;
		if (nb)
			tx->bvec[nb - 1].bv_len = prev_len;
		return rv == -EOPNOTSUPP || rv == -ENOSPC ? -EAGAIN : rv;
	}

	tlen = mpa_fpdu_trailer(fpdu + MPA_HDR_SIZE + hlen, ulpdu_len, pcrc);
	siwl_tx_emit_buf(tx, tx->buf_used + MPA_HDR_SIZE + hlen, tlen);
	tx->buf_used += MPA_HDR_SIZE + hlen + tlen;
	tx->fpdu_len += MPA_HDR_SIZE + ulpdu_len + tlen;
	return 0;
}

static u8 siwl_send_opcode(const struct siwl_sqe *sqe)
{
	bool se = sqe->flags & SIWL_WQE_SOLICITED;

	if (sqe->opcode == IB_WR_SEND_WITH_INV)
		return se ? RDMAP_SEND_SE_INVAL : RDMAP_SEND_INVAL;
	return se ? RDMAP_SEND_SE : RDMAP_SEND;
}

static const struct iw_term siwl_tx_term_local = {
	.valid = 1,
	.layer = IW_TERM_LAYER_RDMAP,
	.etype = RDMAP_ETYPE_LOCAL_CATASTROPHIC,
	.ecode = 0,
	.hdrct = 0,
};

/* A local error on the WQE being processed: fail it, then the QP. */
static void siwl_tx_fail_sqe(struct siwl_qp *qp, u32 pos,
			     enum ib_wc_status status)
{
	struct siwl_sqe *sqe = siwl_tx_sqe(qp, pos);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != SIWL_QPS_ERROR && pos - qp->sq_tail <
	    qp->sq_head - qp->sq_tail && !(sqe->flags & SIWL_WQE_DONE)) {
		sqe->status = status;
		sqe->flags |= SIWL_WQE_DONE;
		if (qp->sq_next == pos)
			qp->sq_next++;
		siwl_qp_reap_locked(qp);
	}
	siwl_qp_fail_locked(qp, &siwl_tx_term_local, NULL, 0, 0);
	spin_unlock_irqrestore(&qp->lock, flags);
	qp->tx.kind = SIWL_TX_NONE;
}

/* An error on a message that is no WQE: fail the QP, owing the peer @term. */
static void siwl_tx_fail_qp(struct siwl_qp *qp, const struct iw_term *term)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	siwl_qp_fail_locked(qp, term, NULL, 0, 0);
	spin_unlock_irqrestore(&qp->lock, flags);
	qp->tx.kind = SIWL_TX_NONE;
}

/*
 * Fills @h, but for its last flag, for the next FPDU of send-queue WQE
 * @sqe. Returns whether the message carries payload.
 */
static bool siwl_tx_sq_hdr(const struct siwl_tx *tx,
			   const struct siwl_sqe *sqe, struct ddp_hdr_info *h)
{
	switch (sqe->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
		h->opcode = siwl_send_opcode(sqe);
		h->stag = sqe->inv_key;
		h->msn = tx->msn;
		h->mo = tx->msg_sent;
		return true;
	case IB_WR_RDMA_WRITE:
		h->opcode = RDMAP_RDMA_WRITE;
		h->stag = sqe->rkey;
		h->to = sqe->raddr + tx->msg_sent;
		return true;
	default:	/* RDMA Read Request, RFC 5040 section 4.4 */
		h->opcode = RDMAP_RDMA_READ_REQ;
		h->msn = tx->msn;
		if (sqe->num_sge) {
			h->rreq.sink_stag = sqe->sge[0].lkey;
			h->rreq.sink_to = sqe->sge[0].addr;
		}
		h->rreq.read_size = sqe->total_len;
		h->rreq.source_stag = sqe->rkey;
		h->rreq.source_to = sqe->raddr;
		return false;
	}
}

/*
 * RFC 6581 section 4: the RTR is a zero-length Write to STag 0, a
 * zero-length Read Request, or a zero-length Send. The latter two use up
 * the next MSN of their queue.
 */
static void siwl_tx_rtr_hdr(struct siwl_tx *tx, struct ddp_hdr_info *h)
{
	if (tx->rtr == MPA_RTR_WRITE) {
		h->opcode = RDMAP_RDMA_WRITE;
	} else if (tx->rtr == MPA_RTR_READ) {
		h->opcode = RDMAP_RDMA_READ_REQ;
		h->msn = tx->next_msn[RDMAP_QN_READ_REQ]++;
	} else {
		h->opcode = RDMAP_SEND;
		h->msn = tx->next_msn[RDMAP_QN_SEND]++;
	}
}

/*
 * Fills @h, but for its last flag, for the next FPDU of the current
 * message, and points *@sqe or *@irqe at the WQE or Read Request it
 * serves (the RTR has neither). Returns whether the message carries
 * payload.
 */
static bool siwl_tx_prep_hdr(struct siwl_qp *qp, struct ddp_hdr_info *h,
			     struct siwl_sqe **sqe, struct siwl_irqe **irqe)
{
	struct siwl_tx *tx = &qp->tx;
	struct siwl_irqe *ie;

	switch (tx->kind) {
	case SIWL_TX_SQ:
		*sqe = siwl_tx_sqe(qp, tx->sq_idx);
		return siwl_tx_sq_hdr(tx, *sqe, h);
	case SIWL_TX_IRQ:
		ie = siwl_tx_irqe(qp);
		*irqe = ie;
		h->opcode = RDMAP_RDMA_READ_RESP;
		h->stag = ie->sink_stag;
		h->to = ie->sink_to + tx->msg_sent;
		return true;
	default:
		siwl_tx_rtr_hdr(tx, h);
		return false;
	}
}

/*
 * Copies @len payload bytes, from the current message offset on, to @dst:
 * from our Data Source for a Read Response (@irqe set), else from @sqe's
 * inline data or SGEs. Returns 0 or a negative errno; for a Read Response
 * that is -EACCES with @term set.
 */
static int siwl_tx_copy_payload(struct siwl_qp *qp,
				const struct siwl_sqe *sqe,
				const struct siwl_irqe *irqe, u8 *dst, u32 len,
				struct iw_term *term)
{
	struct siwl_tx *tx = &qp->tx;
	struct siwl_mr *mr;

	if (irqe) {
		mr = siwl_tx_read_source(qp, irqe, tx->msg_sent, len, term);
		if (!mr)
			return -EACCES;
		siwl_mr_copy_from(mr, irqe->src_to + tx->msg_sent, dst, len);
		siwl_mr_put(mr);
		return 0;
	}
	if (sqe->flags & SIWL_WQE_INLINE) {
		memcpy(dst, sqe->inline_data + tx->msg_sent, len);
		return 0;
	}
	return siwl_tx_gather(qp, sqe, tx->msg_sent, dst, len, NULL);
}

/*
 * Frames the copied FPDU at @buf (@size bytes free) around its ULPDU of
 * @ulpdu_len and appends it to the buffer. Returns 0, or the negative
 * errno of mpa_fpdu_finish() with nothing appended.
 */
static int siwl_tx_finish_copy(struct siwl_qp *qp, u8 *buf, u32 size,
			       u32 ulpdu_len)
{
	struct siwl_tx *tx = &qp->tx;
	ssize_t len;

	len = mpa_fpdu_finish(buf, size, ulpdu_len, qp->crc);
	if (len < 0)
		return len;

	/* In a zero-copy buffer, a copied FPDU is one more piece. */
	if (tx->zc_pages)
		siwl_tx_emit_buf(tx, tx->buf_used, len);
	tx->buf_used += len;
	tx->fpdu_len += len;
	return 0;
}

/* An FPDU built: the counters, and the tracepoint when it is on. */
static void siwl_tx_account(struct siwl_qp *qp, const struct ddp_hdr_info *h,
			    u32 payload, bool zc)
{
	struct siwl_stats __percpu *s;

	/* Once per FPDU: one load of the QP's set for both counts. */
	rcu_read_lock();
	s = rcu_dereference(qp->stat_set)->pcpu;
	siwl_stat_fpdu(s, false, h->opcode, payload);
	siwl_stat_add(s, zc ? SIWL_STAT_TX_ZCOPY_BYTES :
			      SIWL_STAT_TX_COPY_BYTES, payload);
	rcu_read_unlock();
	trace_fpdu_tx(qp->base.qp_num, h, payload);
}

/*
 * Builds the next FPDU of the current message at the end of the buffer;
 * sets *@last when it ends the message. Returns 0, or a negative errno
 * after failing the QP.
 */
static int siwl_tx_build_one(struct siwl_qp *qp, bool *last)
{
	struct siwl_tx *tx = &qp->tx;
	u8 *buf = tx->buf + tx->buf_used;
	u32 size = tx->buf_size - tx->buf_used;
	struct ddp_hdr_info h = {};
	u8 *ulpdu = buf + MPA_HDR_SIZE;
	struct siwl_sqe *sqe = NULL;
	struct siwl_irqe *irqe = NULL;
	struct iw_term term;
	u32 hlen, payload = 0;
	bool data;
	int rv = 0;

	data = siwl_tx_prep_hdr(qp, &h, &sqe, &irqe);
	hlen = ddp_hdr_len(h.opcode);
	if (data)
		payload = min(tx->msg_len - tx->msg_sent, tx->mulpdu - hlen);
	h.last = tx->msg_sent + payload == tx->msg_len;
	if (ddp_build_hdr(ulpdu, size - MPA_HDR_SIZE, &h) < 0)
		rv = -EIO;

	if (!rv && payload && tx->zc_pages && tx->zc_msg) {
		rv = siwl_tx_build_zc(qp, sqe, irqe, buf, hlen, payload, &term);
		if (!rv) {
			siwl_tx_account(qp, &h, payload, true);
			*last = h.last;
			tx->msg_sent += payload;
			return 0;
		}
		if (rv == -EAGAIN)
			rv = 0;
		else if (irqe)
			goto fail_irqe;
	}
	if (!rv && payload) {
		rv = siwl_tx_copy_payload(qp, sqe, irqe, ulpdu + hlen, payload,
					  &term);
		if (rv && irqe)
			goto fail_irqe;
	}
	if (!rv)
		rv = siwl_tx_finish_copy(qp, buf, size, hlen + payload);
	if (rv) {
		if (sqe)
			siwl_tx_fail_sqe(qp, tx->sq_idx, IB_WC_LOC_PROT_ERR);
		else
			siwl_tx_fail_qp(qp, &siwl_tx_term_local);
		return rv;
	}

	siwl_tx_account(qp, &h, payload, false);
	*last = h.last;
	tx->msg_sent += payload;
	return 0;

fail_irqe:
	siwl_tx_fail_qp(qp, &term);
	return rv;
}

/*
 * Picks the buffer the next FPDUs are built in. A page still referenced by
 * TCP (its skbs wait for an ACK, or sit in a local peer's receive queue)
 * must not be written: take a free one, a new one while there is room, or
 * else the buffer TCP copies from.
 */
static void siwl_tx_pick_buf(struct siwl_tx *tx)
{
	unsigned int i, n = min_t(unsigned int, READ_ONCE(siwl_tune.tx_pages),
				  SIWL_TX_PAGES);
	struct page *pg;

	tx->buf = tx->copy_buf;
	tx->buf_page = NULL;
	for (i = 0; i < n; i++) {
		pg = tx->pages[i];
		if (!pg) {
			/* No reclaim in a user's post: the copy will do. */
			pg = alloc_pages(GFP_NOWAIT | __GFP_COMP | __GFP_NOWARN,
					 SIWL_TX_BUF_ORDER);
			if (!pg)
				return;
			tx->pages[i] = pg;
		} else if (page_count(pg) != 1) {
			continue;
		}
		/* TCP's last put_page() is ordered before our writes. */
		smp_mb();
		tx->buf = page_address(pg);
		tx->buf_page = pg;
		return;
	}
}

/*
 * Drops our references to the buffers, between connections and at the
 * end: TCP's own references keep a page it still sends from.
 */
void siwl_tx_release_pages(struct siwl_qp *qp)
{
	static const struct siwl_zc_range none;
	struct siwl_tx *tx = &qp->tx;
	int i;

	/* The WRs of this connection are flushed: none waits for TCP. */
	if (tx->zc)
		siwl_zc_end(qp, tx->zc, &none);
	tx->zc = NULL;
	tx->zc_pages = false;
	siwl_zc_forget(qp);

	for (i = 0; i < SIWL_TX_PAGES; i++) {
		if (tx->pages[i])
			put_page(tx->pages[i]);
		tx->pages[i] = NULL;
	}
	tx->buf = tx->copy_buf;
	tx->buf_page = NULL;
}

static int siwl_tx_build_term(struct siwl_qp *qp, const struct siwl_term *t)
{
	struct siwl_tx *tx = &qp->tx;
	ssize_t len;

	siwl_tx_pick_buf(tx);
	len = rdmap_build_terminate(tx->buf + MPA_HDR_SIZE,
				    tx->buf_size - MPA_HDR_SIZE,
				    tx->next_msn[RDMAP_QN_TERMINATE]++,
				    &t->term, t->bad_len ? t->bad : NULL,
				    t->bad_len, t->bad_seg_len);
	if (len < 0)
		return len;
	len = mpa_fpdu_finish(tx->buf, tx->buf_size, len, qp->crc);
	if (len < 0)
		return len;
	ibdev_info_ratelimited(&qp->sdev->ibdev,
			       "qp %u: sending Terminate: layer %u etype %u ecode %u\n",
			       qp->base.qp_num, t->term.layer, t->term.etype,
			       t->term.ecode);
	siwl_qp_stat_inc(qp, SIWL_STAT_TX_TERM_FPDUS);
	trace_term_tx(qp->base.qp_num, t->term.layer, t->term.etype,
		      t->term.ecode);
	tx->kind = SIWL_TX_TERM;
	tx->fpdu_len = len;
	tx->buf_used = len;
	tx->fpdu_sent = 0;
	tx->fpdu_ends_msg = true;
	return 0;
}

/* Sends and Writes at SQ positions [@first, @end) are complete. */
static void siwl_tx_complete_locked(struct siwl_qp *qp, u32 first, u32 end)
{
	struct siwl_sqe *sqe;
	u32 pos;

	lockdep_assert_held(&qp->lock);
	for (pos = first; pos != end; pos++) {
		if (pos - qp->sq_tail >= qp->sq_head - qp->sq_tail)
			continue;	/* flushed and reaped */
		sqe = siwl_tx_sqe(qp, pos);
		/* A Read completes only when its response arrives. */
		if (!siwl_is_read(sqe->opcode) &&
		    !(sqe->flags & SIWL_WQE_DONE)) {
			sqe->status = IB_WC_SUCCESS;
			sqe->flags |= SIWL_WQE_DONE;
		}
	}
	siwl_qp_reap_locked(qp);
}

/* Completes the WRs of buffers the stack has let go of, in order. */
static void siwl_tx_zc_reap(struct siwl_qp *qp)
{
	struct siwl_zc_range r;
	unsigned long flags;

	while (siwl_zc_next(qp, &r)) {
		if (r.first == r.end)
			continue;
		spin_lock_irqsave(&qp->lock, flags);
		siwl_tx_complete_locked(qp, r.first, r.end);
		spin_unlock_irqrestore(&qp->lock, flags);
	}
}

/* The FPDUs of the buffer are entirely in TCP's hands. */
static void siwl_tx_fpdu_done(struct siwl_qp *qp)
{
	struct siwl_tx *tx = &qp->tx;
	struct siwl_zc_range r = {};
	unsigned long flags;

	if (tx->zc) {
		/*
		 * Every message from sq_first on ends in this buffer; they
		 * complete when the stack lets go of it and of all before.
		 */
		if (tx->fpdu_ends_msg && tx->kind == SIWL_TX_SQ) {
			r.first = tx->sq_first;
			r.end = tx->sq_idx + 1;
		}
		siwl_zc_end(qp, tx->zc, &r);
		tx->zc = NULL;
		tx->zc_pages = false;
		if (r.first != r.end) {
			tx->kind = SIWL_TX_NONE;
			return;
		}
	}
	if (!tx->fpdu_ends_msg)
		return;

	spin_lock_irqsave(&qp->lock, flags);
	switch (tx->kind) {
	case SIWL_TX_SQ:
		/* Every message from sq_first on ends in this buffer. */
		siwl_tx_complete_locked(qp, tx->sq_first, tx->sq_idx + 1);
		break;
	case SIWL_TX_IRQ:
		/* Its Read Requests left the IRQ when built (siwl_tx_irq_built). */
		break;
	case SIWL_TX_TERM:
		/*
		 * RFC 5040 section 5.4.4: after the Terminate, the end. Close
		 * with a FIN, not a reset: a reset would discard the
		 * Terminate if TCP has not sent it yet. The CM escalates to
		 * a reset if the peer does not close in time.
		 */
		siwl_qp_error_locked(qp, false);
		if (qp->cep) {
			qp->close_pending = true;
			qp->close_abortive = false;
		}
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	tx->kind = SIWL_TX_NONE;
}

static int siwl_tx_send(struct siwl_qp *qp, struct socket *sock)
{
	struct siwl_tx *tx = &qp->tx;
	unsigned long flags;
	struct msghdr msg;
	struct kvec iov;
	int rv, mflags;

	while (tx->fpdu_sent < tx->fpdu_len) {
		mflags = MSG_DONTWAIT | MSG_NOSIGNAL;
		if (!tx->fpdu_ends_msg)
			mflags |= MSG_MORE;
		if (tx->zc_pages) {
			/* Pages by reference, released through tx->zc. */
			memset(&msg, 0, sizeof(msg));
			msg.msg_flags = mflags | MSG_ZEROCOPY;
			msg.msg_ubuf = tx->zc;
			iov_iter_bvec(&msg.msg_iter, WRITE, tx->bvec,
				      tx->nbvec, tx->fpdu_len);
			iov_iter_advance(&msg.msg_iter, tx->fpdu_sent);
			rv = sock_sendmsg(sock, &msg);
		} else if (tx->buf_page) {
			rv = siwl_sendpage(sock, tx->buf_page, tx->fpdu_sent,
					   tx->fpdu_len - tx->fpdu_sent,
					   mflags);
		} else {
			memset(&msg, 0, sizeof(msg));
			msg.msg_flags = mflags;
			iov.iov_base = tx->buf + tx->fpdu_sent;
			iov.iov_len = tx->fpdu_len - tx->fpdu_sent;
			rv = kernel_sendmsg(sock, &msg, &iov, 1, iov.iov_len);
		}
		if (rv == -EAGAIN)
			return SIWL_STEP_IDLE;	/* sk_write_space resumes */
		if (rv <= 0) {
			/* The stream is broken; the CEP will notice too. */
			spin_lock_irqsave(&qp->lock, flags);
			siwl_qp_error_locked(qp, true);
			spin_unlock_irqrestore(&qp->lock, flags);
			return SIWL_STEP_MORE;
		}
		tx->fpdu_sent += rv;
	}
	siwl_tx_fpdu_done(qp);
	return SIWL_STEP_MORE;
}

/* The next WQE must wait for outstanding Reads (ORD, fence). */
static bool siwl_sq_blocked(struct siwl_qp *qp, const struct siwl_sqe *sqe)
{
	/* Invalidating a Read's sink while the Read is pending is a race. */
	if (((sqe->flags & SIWL_WQE_FENCE) ||
	     sqe->opcode == IB_WR_LOCAL_INV) && qp->orq_count)
		return true;
	return siwl_is_read(sqe->opcode) && qp->ord &&
	       qp->orq_count >= qp->ord;
}

static void siwl_orq_push(struct siwl_qp *qp, const struct siwl_orqe *e)
{
	lockdep_assert_held(&qp->lock);
	qp->orq[(qp->orq_head + qp->orq_count) % SIWL_MAX_ORD] = *e;
	qp->orq_count++;
}

/* Memory registration work requests: no wire traffic, done in order. */
static int siwl_tx_local_op(struct siwl_qp *qp, u32 pos)
{
	struct siwl_sqe *sqe = siwl_tx_sqe(qp, pos);
	unsigned long flags;
	int rv;

	if (sqe->opcode == IB_WR_REG_MR)
		rv = siwl_mr_fast_reg(to_siwl_mr(sqe->reg_mr), qp->base.pd,
				      sqe->reg_key, sqe->reg_access);
	else
		rv = siwl_mr_invalidate(qp->sdev, qp->base.pd, sqe->inv_key,
					false);
	if (rv) {
		siwl_tx_fail_sqe(qp, pos, IB_WC_LOC_PROT_ERR);
		return SIWL_STEP_MORE;
	}
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != SIWL_QPS_ERROR) {
		sqe->status = IB_WC_SUCCESS;
		sqe->flags |= SIWL_WQE_DONE;
		qp->sq_next++;
		siwl_qp_reap_locked(qp);
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	return SIWL_STEP_MORE;
}

/*
 * Whether a message of @len payload bytes goes zero-copy (tx_zcopy):
 * large enough to repay the pieces and the later completion, and the
 * stack did not have to copy earlier ones.
 */
static bool siwl_tx_zc_want(struct siwl_qp *qp, u32 len)
{
	unsigned int mode = READ_ONCE(siwl_tune.tx_zcopy);

	if (!mode || !len || !qp->tx.bvec ||
	    len < READ_ONCE(siwl_tune.tx_zcopy_min))
		return false;
	return siwl_zc_usable(qp, mode >= 2);
}

/*
 * Starts the SQ WQE at @pos; the caller saw it was not blocked, and with
 * @checked that its SGEs are valid.
 */
static int siwl_tx_start_sq(struct siwl_qp *qp, struct socket *sock, u32 pos,
			    bool checked)
{
	struct siwl_sqe *sqe = siwl_tx_sqe(qp, pos);
	struct siwl_tx *tx = &qp->tx;
	struct siwl_orqe orqe = {};
	bool read = siwl_is_read(sqe->opcode);
	unsigned long flags;
	int rv;

	if (sqe->opcode == IB_WR_REG_MR || sqe->opcode == IB_WR_LOCAL_INV)
		return siwl_tx_local_op(qp, pos);

	if (read && !qp->ord) {
		/* No Read may be outstanding on this connection at all. */
		siwl_tx_fail_sqe(qp, pos, IB_WC_LOC_QP_OP_ERR);
		return SIWL_STEP_MORE;
	}
	if (!checked && !(sqe->flags & SIWL_WQE_INLINE)) {
		rv = siwl_tx_check_sges(qp, sqe,
					read ? IB_ACCESS_LOCAL_WRITE : 0);
		if (rv) {
			siwl_tx_fail_sqe(qp, pos, IB_WC_LOC_PROT_ERR);
			return SIWL_STEP_MORE;
		}
	}

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != SIWL_QPS_RTS && qp->state != SIWL_QPS_CLOSING) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return SIWL_STEP_MORE;
	}
	if (read) {
		/*
		 * Recorded before the request leaves: its response can be
		 * processed (by RX) before kernel_sendmsg() even returns.
		 */
		orqe.sq_idx = pos;
		orqe.len = sqe->total_len;
		if (sqe->num_sge) {
			orqe.sink_stag = sqe->sge[0].lkey;
			orqe.sink_to = sqe->sge[0].addr;
		}
		orqe.inv = sqe->opcode == IB_WR_RDMA_READ_WITH_INV;
		orqe.inv_key = sqe->inv_key;
		siwl_orq_push(qp, &orqe);
	}
	qp->sq_next++;
	spin_unlock_irqrestore(&qp->lock, flags);

	tx->kind = SIWL_TX_SQ;
	tx->sq_idx = pos;
	tx->msg_sent = 0;
	tx->msg_len = read ? 0 : sqe->total_len;
	tx->mulpdu = siwl_tx_mulpdu(qp, sock);
	tx->zc_msg = !read && !(sqe->flags & SIWL_WQE_INLINE) &&
		     siwl_tx_zc_want(qp, sqe->total_len);
	if (read)
		tx->msn = tx->next_msn[RDMAP_QN_READ_REQ]++;
	else if (sqe->opcode != IB_WR_RDMA_WRITE)
		tx->msn = tx->next_msn[RDMAP_QN_SEND]++;
	return -EINPROGRESS;
}

/*
 * With the end of a message in the buffer, starts the next SQ message if
 * it is one FPDU that fits whole in the @room left: a run of small
 * messages then goes to TCP in one call, mostly in one segment, instead
 * of one call and one segment each. Only a WQE that can start without a
 * local error is taken; one that fails does so in a later step, after
 * the messages built before it have gone out.
 */
static bool siwl_tx_chain(struct siwl_qp *qp, struct socket *sock, u32 room)
{
	struct siwl_sqe *sqe = NULL;
	unsigned long flags;
	u32 pos = 0, ulpdu;
	bool read;

	spin_lock_irqsave(&qp->lock, flags);
	/* A Terminate, an RTR or a waiting Read Response goes first. */
	if (qp->state != SIWL_QPS_RTS || qp->tx_rtr || qp->tx_hold ||
	    qp->irq_count || qp->term_valid)
		goto out;
	if (qp->sq_next == qp->sq_head && qp->usq.hdr)
		siwl_usq_fetch_locked(qp);
	if (qp->sq_next == qp->sq_head)
		goto out;
	pos = qp->sq_next;
	sqe = siwl_tx_sqe(qp, pos);
	if ((sqe->flags & SIWL_WQE_DONE) || siwl_sq_blocked(qp, sqe))
		sqe = NULL;
out:
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!sqe)
		return false;

	read = false;
	switch (sqe->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
		ulpdu = ddp_hdr_len(RDMAP_SEND);
		break;
	case IB_WR_RDMA_WRITE:
		ulpdu = ddp_hdr_len(RDMAP_RDMA_WRITE);
		break;
	case IB_WR_RDMA_READ:
		if (!qp->ord)
			return false;
		read = true;
		ulpdu = ddp_hdr_len(RDMAP_RDMA_READ_REQ);
		break;
	default:
		return false;	/* local operations take their own step */
	}
	if (!read) {
		if (sqe->total_len > SIWL_TX_MAX_ULPDU)
			return false;
		ulpdu += sqe->total_len;
	}
	if (ulpdu > siwl_tx_mulpdu(qp, sock) || mpa_fpdu_len(ulpdu) > room)
		return false;
	if (!(sqe->flags & SIWL_WQE_INLINE) &&
	    siwl_tx_check_sges(qp, sqe, read ? IB_ACCESS_LOCAL_WRITE : 0))
		return false;
	if (siwl_tx_start_sq(qp, sock, pos, true) != -EINPROGRESS)
		return false;
	/* Not a piece list: copy it; its completion is tied to the buffer. */
	if (!qp->tx.zc_pages)
		qp->tx.zc_msg = false;
	return true;
}

/*
 * With a Read Response ended in the buffer, starts the next one if it is
 * one FPDU that fits whole in the @room left: a burst of small Read
 * Requests is then answered in one call to TCP, as siwl_tx_chain() does
 * for the send queue. Responses keep the order of their requests (RFC
 * 5040 section 5.3).
 */
static bool siwl_tx_chain_irq(struct siwl_qp *qp, struct socket *sock,
			      u32 room)
{
	struct siwl_tx *tx = &qp->tx;
	unsigned long flags;
	bool next = false;
	u32 size = 0, ulpdu, mulpdu;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == SIWL_QPS_RTS && !qp->tx_rtr && !qp->tx_hold &&
	    !qp->term_valid && qp->irq_count > tx->irq_more + 1) {
		size = qp->irq[(qp->irq_head + tx->irq_more + 1) %
			       SIWL_MAX_IRD].size;
		next = true;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!next || size > SIWL_TX_MAX_ULPDU)
		return false;
	ulpdu = ddp_hdr_len(RDMAP_RDMA_READ_RESP) + size;
	mulpdu = siwl_tx_mulpdu(qp, sock);
	if (ulpdu > mulpdu || mpa_fpdu_len(ulpdu) > room)
		return false;

	tx->irq_more++;
	tx->msg_len = size;
	tx->msg_sent = 0;
	tx->mulpdu = mulpdu;
	tx->zc_msg = tx->zc_pages && siwl_tx_zc_want(qp, size);
	return true;
}

/*
 * The Read Requests whose responses are now whole in the buffer leave the
 * IRQ before TCP has a byte of them. A Read stops counting against the
 * requester's ORD when its last Read Response arrives, so the next Read
 * Request may come as soon as that Response is out; on a fast path that
 * is before siwl_tx_send() has returned. Freed later, the IRQ could still
 * look full to that Request, and an ORD = IRD = 1 connection would be
 * terminated for a Read it was entitled to. The entries are not read
 * again once built.
 */
static void siwl_tx_irq_built(struct siwl_qp *qp, bool last)
{
	struct siwl_tx *tx = &qp->tx;
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&qp->lock, flags);
	n = min(tx->irq_more + (last ? 1 : 0), qp->irq_count);
	qp->irq_head += n;
	qp->irq_count -= n;
	tx->irq_more = 0;
	spin_unlock_irqrestore(&qp->lock, flags);
}

/* Room in the buffer for one more FPDU of any kind. */
static bool siwl_tx_room(const struct siwl_tx *tx)
{
	if (tx->buf_size - tx->buf_used < SIWL_TX_MAX_FPDU)
		return false;
	return !tx->zc_pages ||
	       (tx->nbvec + SIWL_TX_FPDU_BVECS <= SIWL_TX_BVECS &&
		tx->fpdu_len < SIWL_TX_ZC_BYTES);
}

/*
 * Fills tx->buf with the next FPDUs of the current message, as many whole
 * ones as fit, and then small messages that follow it. Each FPDU stays
 * sized by MULPDU, so TCP, cutting the stream at MSS boundaries, keeps
 * them aligned with its segments (RFC 5044 section 4.5). Returns 0, or a
 * negative errno after failing the QP.
 */
static int siwl_tx_build(struct siwl_qp *qp, struct socket *sock)
{
	static const struct siwl_zc_range none;
	struct siwl_tx *tx = &qp->tx;
	bool last = false;
	int rv;

	siwl_tx_pick_buf(tx);
	tx->fpdu_len = 0;
	tx->fpdu_sent = 0;
	tx->buf_used = 0;
	tx->nbvec = 0;
	tx->sq_first = tx->sq_idx;
	/*
	 * A zero-copy message, or any buffer built while zero-copy ones
	 * are in flight: its completions must wait for theirs, so it takes
	 * a notification too (released as soon as TCP has a copied one).
	 */
	if (tx->zc_msg || siwl_zc_busy(qp)) {
		tx->zc = siwl_zc_begin(qp);
		if (!tx->zc)
			return -EBUSY;
		/* The buffer TCP copies from is no page to list. */
		tx->zc_pages = tx->zc_msg && tx->buf_page;
	}
	for (;;) {
		do {
			rv = siwl_tx_build_one(qp, &last);
			if (rv) {
				if (tx->zc)
					siwl_zc_end(qp, tx->zc, &none);
				tx->zc = NULL;
				tx->zc_pages = false;
				return rv;
			}
		} while (!last && siwl_tx_room(tx));
		if (!last || !siwl_tx_room(tx))
			break;
		if (tx->kind == SIWL_TX_SQ &&
		    siwl_tx_chain(qp, sock, tx->buf_size - tx->buf_used))
			continue;
		if (tx->kind != SIWL_TX_IRQ ||
		    !siwl_tx_chain_irq(qp, sock, tx->buf_size - tx->buf_used))
			break;
	}
	tx->fpdu_ends_msg = last;
	if (tx->kind == SIWL_TX_IRQ)
		siwl_tx_irq_built(qp, last);
	return 0;
}

enum siwl_pick { SIWL_PICK_NONE, SIWL_PICK_RTR, SIWL_PICK_IRQ, SIWL_PICK_SQ };

/* Chooses the next message; called with qp->lock held. */
static enum siwl_pick siwl_tx_pick_locked(struct siwl_qp *qp, u32 *pos)
{
	struct siwl_tx *tx = &qp->tx;
	struct siwl_orqe orqe = {};
	bool sq_ready = false, irq_ready;

	lockdep_assert_held(&qp->lock);
	if (qp->tx_rtr) {
		tx->rtr = qp->tx_rtr;
		qp->tx_rtr = 0;
		if (tx->rtr == MPA_RTR_READ) {
			/* Its zero-length response completes nothing. */
			orqe.rtr = true;
			siwl_orq_push(qp, &orqe);
		}
		return SIWL_PICK_RTR;
	}
	if (qp->tx_hold ||
	    (qp->state != SIWL_QPS_RTS && qp->state != SIWL_QPS_CLOSING))
		return SIWL_PICK_NONE;

	/* A user ring is read only when the SQ we hold runs dry. */
	if (qp->sq_next == qp->sq_head && qp->usq.hdr)
		siwl_usq_refill_locked(qp);
	if (qp->sq_next != qp->sq_head)
		sq_ready = !siwl_sq_blocked(qp, siwl_tx_sqe(qp, qp->sq_next));
	irq_ready = qp->irq_count > 0;

	if (irq_ready && (!sq_ready || tx->irq_turn)) {
		tx->irq_turn = false;
		return SIWL_PICK_IRQ;
	}
	if (sq_ready) {
		tx->irq_turn = true;
		*pos = qp->sq_next;
		return SIWL_PICK_SQ;
	}
	/* SQD: close gracefully once everything posted has completed. */
	if (qp->state == SIWL_QPS_CLOSING && qp->sq_tail == qp->sq_head &&
	    !qp->irq_count && !qp->close_level)
		qp->close_pending = true;
	return SIWL_PICK_NONE;
}

static int siwl_tx_step(struct siwl_qp *qp)
{
	struct siwl_tx *tx = &qp->tx;
	enum siwl_pick pick;
	struct siwl_term term;
	struct socket *sock;
	unsigned long flags;
	u32 pos = 0;
	int rv;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == SIWL_QPS_ERROR) {
		spin_unlock_irqrestore(&qp->lock, flags);
		siwl_qp_flush(qp);
		return SIWL_STEP_IDLE;
	}
	sock = qp->sock;
	if (!qp->tx_enabled || !sock) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return SIWL_STEP_IDLE;
	}
	/* An FPDU once started is finished: the stream stays framed. */
	if (tx->fpdu_sent < tx->fpdu_len) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return siwl_tx_send(qp, sock);
	}
	if (qp->state == SIWL_QPS_TERMINATE) {
		if (!qp->term_valid) {
			spin_unlock_irqrestore(&qp->lock, flags);
			return SIWL_STEP_IDLE;
		}
		term = qp->term;
		qp->term_valid = false;
		spin_unlock_irqrestore(&qp->lock, flags);
		if (siwl_tx_build_term(qp, &term)) {
			spin_lock_irqsave(&qp->lock, flags);
			siwl_qp_error_locked(qp, true);
			spin_unlock_irqrestore(&qp->lock, flags);
			return SIWL_STEP_MORE;
		}
		return siwl_tx_send(qp, sock);
	}
	if (tx->kind == SIWL_TX_NONE) {
		pick = siwl_tx_pick_locked(qp, &pos);
		spin_unlock_irqrestore(&qp->lock, flags);
		switch (pick) {
		case SIWL_PICK_RTR:
			tx->kind = SIWL_TX_RTR;
			tx->msg_len = 0;
			tx->msg_sent = 0;
			tx->zc_msg = false;
			break;
		case SIWL_PICK_IRQ:
			tx->kind = SIWL_TX_IRQ;
			tx->msg_len = siwl_tx_irqe(qp)->size;
			tx->msg_sent = 0;
			tx->mulpdu = siwl_tx_mulpdu(qp, sock);
			tx->zc_msg = siwl_tx_zc_want(qp, tx->msg_len);
			break;
		case SIWL_PICK_SQ:
			rv = siwl_tx_start_sq(qp, sock, pos, false);
			if (rv != -EINPROGRESS)
				return rv;
			break;
		default:
			return SIWL_STEP_IDLE;
		}
	} else {
		spin_unlock_irqrestore(&qp->lock, flags);
	}

	rv = siwl_tx_build(qp, sock);
	if (rv == -EBUSY)
		return SIWL_STEP_IDLE;	/* the oldest release kicks us */
	if (rv)
		return SIWL_STEP_MORE;
	return siwl_tx_send(qp, sock);
}

/* What the work item does outside all locks: events and CM calls. */
static void siwl_tx_deferred(struct siwl_qp *qp)
{
	struct siwl_cep *cep = NULL;
	bool event, abortive = false;
	unsigned long flags;
	u8 level;

	spin_lock_irqsave(&qp->lock, flags);
	event = qp->event_pending && !qp->discard;
	qp->event_pending = false;
	if (qp->close_pending) {
		abortive = qp->close_abortive;
		level = abortive ? 2 : 1;
		if (level > qp->close_level && qp->cep) {
			qp->close_level = level;
			cep = qp->cep;
			siwl_llp_cep_get(cep);
		}
		qp->close_pending = false;
		qp->close_abortive = false;
	}
	spin_unlock_irqrestore(&qp->lock, flags);

	if (event)
		queue_work(siwl_qp_wq, &qp->event_work);
	if (cep) {
		siwl_llp_close(cep, abortive);
		siwl_llp_cep_put(cep);
	}
}

/*
 * SQ polling (sq_poll_us): with the send ring empty, keeps the doorbell
 * flag clear and watches the producer index for a while, so that a
 * sender posting again soon needs no system call. Ends with the flag set
 * again, by the same protocol as siwl_usq_refill_locked(). True if WQEs
 * arrived.
 *
 * Only an idle transmitter with a dry SQ polls. With a message begun or
 * WQEs fetched but not sent, the worker went idle waiting for an event
 * that kicks it (a zero-copy release, Read Responses, a fence); new WQEs
 * in the ring are not what it waits for, and polling on them spun the
 * worker without end, on the CPU that TCP needed to deliver the release.
 */
static bool siwl_tx_poll_sq(struct siwl_qp *qp)
{
	u32 us = min_t(u32, READ_ONCE(siwl_tune.sq_poll_us),
		       SIWL_SQ_POLL_MAX_US);
	struct siw_lite_ring *hdr = qp->usq.hdr;
	unsigned long flags;
	bool more = false;
	u64 end;

	if (!us || !hdr)
		return false;
	/* tx is ours: the caller holds tx_mutex. */
	if (qp->tx.kind != SIWL_TX_NONE || qp->tx.fpdu_sent < qp->tx.fpdu_len)
		return false;
	spin_lock_irqsave(&qp->lock, flags);
	if (!qp->tx_enabled || qp->state != SIWL_QPS_RTS || qp->tx_hold ||
	    qp->sq_next != qp->sq_head) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return false;
	}
	WRITE_ONCE(hdr->flags, 0);
	spin_unlock_irqrestore(&qp->lock, flags);

	end = ktime_get_ns() + us * NSEC_PER_USEC;
	while (!more && ktime_get_ns() < end && !need_resched()) {
		more = READ_ONCE(hdr->prod) != READ_ONCE(qp->sq_head);
		cpu_relax();
	}

	spin_lock_irqsave(&qp->lock, flags);
	if (!more) {
		WRITE_ONCE(hdr->flags, SIW_LITE_SQ_DOORBELL);
		smp_mb();	/* flag before index: pairs with the provider's */
		more = READ_ONCE(hdr->prod) != qp->sq_head;
		if (more && qp->state != SIWL_QPS_ERROR)
			WRITE_ONCE(hdr->flags, 0);
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (more)
		siwl_qp_stat_inc(qp, SIWL_STAT_SQ_POLLS);
	return more;
}

/*
 * Our sends hold the socket, and with it whatever arrives meanwhile: see
 * siwl_rx_window_update(). Under tx_mutex, which keeps qp->sock.
 */
static void siwl_tx_window_update(struct siwl_qp *qp)
{
	struct socket *sock;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	sock = qp->tx_enabled ? qp->sock : NULL;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (sock)
		siwl_rx_window_update(sock->sk);
}

void siwl_qp_tx_work(struct work_struct *work)
{
	struct siwl_qp *qp = container_of(work, struct siwl_qp, tx_work);
	int budget = SIWL_TX_BUDGET;

	mutex_lock(&qp->tx_mutex);
	siwl_tx_zc_reap(qp);
	do {
		while (siwl_tx_step(qp) == SIWL_STEP_MORE) {
			if (!--budget) {
				/* Let other QPs' work run; we come back. */
				siwl_qp_kick(qp);
				goto out;
			}
		}
	} while (siwl_tx_poll_sq(qp));
out:
	siwl_tx_window_update(qp);
	mutex_unlock(&qp->tx_mutex);
	siwl_tx_deferred(qp);
}

/*
 * Transmits in the context of a user's post or doorbell, as far as the
 * budget goes: a small message leaves before the system call returns,
 * with no worker to wake. Whatever needs the worker (more than the
 * budget, a close, an event) is handed to it; so is everything when the
 * worker is transmitting already.
 */
void siwl_qp_tx_direct(struct siwl_qp *qp)
{
	int budget = SIWL_TX_BUDGET;
	unsigned long flags;
	bool kick;

	if (!mutex_trylock(&qp->tx_mutex)) {
		siwl_qp_kick(qp);
		return;
	}
	siwl_tx_zc_reap(qp);
	while (siwl_tx_step(qp) == SIWL_STEP_MORE)
		if (!--budget)
			break;
	siwl_tx_window_update(qp);
	mutex_unlock(&qp->tx_mutex);

	spin_lock_irqsave(&qp->lock, flags);
	kick = !budget || qp->close_pending || qp->event_pending;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (kick)
		siwl_qp_kick(qp);
}

/*
 * Whether a doorbell should hand transmission to a worker instead of
 * sending in the poster's system call. It does for a small message when
 * the poster is streaming rather than waiting for answers, where the
 * rate counts more than this message's latency: Reads are outstanding,
 * TCP has data of ours unacknowledged, or nothing came from the peer
 * since a doorbell less than SIWL_TX_STREAM_NS ago. (With a peer on the
 * same host, TCP often has every ACK in before the post returns, so the
 * last test is what finds a stream of Writes or Sends.) The worker then
 * runs on another CPU, the doorbell stays quiet while it works, and the
 * poster goes on posting without system calls into buffers the worker
 * fills with many messages at a time (siwl_tx_chain()). A large message
 * gains nothing from sharing a buffer and was measured slower through
 * the worker, so it goes out in the system call. A ping-pong sender,
 * whose answer arrived before it posts again, keeps transmitting in its
 * own call. Called with qp->lock held, which keeps qp->sock.
 */
bool siwl_tx_handoff_locked(struct siwl_qp *qp)
{
	u32 segs = READ_ONCE(qp->rx.segs);
	const struct siwl_sqe *sqe;
	const struct tcp_sock *tp;
	u64 now = ktime_get_ns();
	bool quiet;

	lockdep_assert_held(&qp->lock);
	quiet = segs == qp->db_rx_segs && now - qp->db_ns < SIWL_TX_STREAM_NS;
	qp->db_ns = now;
	qp->db_rx_segs = segs;
	if (!READ_ONCE(siwl_tune.tx_handoff) || !qp->sock ||
	    num_online_cpus() < 2 || qp->sq_next == qp->sq_head)
		return false;
	sqe = siwl_tx_sqe(qp, qp->sq_next);
	if (!siwl_is_read(sqe->opcode) &&
	    sqe->total_len > SIWL_TX_HANDOFF_MAX_LEN)
		return false;
	if (quiet || qp->orq_count)
		return true;
	tp = tcp_sk(qp->sock->sk);
	return READ_ONCE(tp->snd_nxt) != READ_ONCE(tp->snd_una);
}

