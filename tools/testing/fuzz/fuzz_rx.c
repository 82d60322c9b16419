// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the receive engine, drivers/siw_lite/rx.c, compiled
 * unchanged, fed an arbitrary byte stream from the peer in arbitrary
 * pieces, and held to a model of which consumer memory it may write.
 *
 * What runs
 *   Real: rx.c whole (siwl_qp_rx, siwl_qp_data_ready, the RX and RQE
 *   work functions, siwl_rx_window_update, siwl_rx_reset), and the wire
 *   layer it calls: mpa_wire.c, ddp_wire.c (headers, MSN/MO/tagged
 *   checks, Terminate parsing). The driver's own headers are used as
 *   they are (qp_obj.h, mem.h, cq.h, ...).
 *   Shimmed (kshim/): the kernel. tcp_read_sock() hands the actor a
 *   receive queue of linear skbs that the input fills, some starting
 *   before what was already read, resuming where the last pass stopped;
 *   spinlocks check the lock order of siw_lite.rst ("Locking and
 *   contexts"), lock_sock() that nothing sleeps under one, WARN_ON
 *   aborts; work items are recorded, and run when the input says.
 *   Modelled (rx_env.c, each from its header's contract): the MR table
 *   and copies (mem.c), the receive CQ (cq.c), the SRQ (srq.c), the QP
 *   engine's error and completion calls (qp_engine.c), the tracepoints.
 *
 * The world (fuzz_rx.h, from the first 4 input octets): one QP in RTS
 * (or CLOSING), CRC on or off, an RTR awaited or not, IRD 0..7; eight MRs
 * over an arena with guard gaps: writable, read-only, invalid or
 * deregistered, of another PD, fast-register, DMA, one ending at 2^64,
 * one local-only; receive WQEs on a kernel RQ, an SRQ (of either PD) or a
 * user ring, some with unusable SGEs or malformed; up to 3 Reads of ours
 * awaiting their Responses (an RTR Read, a Read with Invalidate); a
 * small CQ. Then a schedule (fuzz_rx.h: skbs of the stream of 1..2048
 * octets, some overlapping what was read; RX passes through each entry
 * point; posts, time, invalidation, re-registration, deregistration, QP
 * and socket state changes, CQ polls, Read Responses sent), then the rest
 * of the stream, read to its end.
 *
 * The model (rx_oracle.c reads the stream independently, with the wire
 * parser only): every octet rx.c places is the next payload octet of the
 * FPDU it is processing, and lands (a) in a valid MR of the QP's PD that
 * grants remote write, at the TO the peer's RDMA Write names, (b) in the
 * receive WQE its Send message took, at the message offset, the SGE's MR
 * valid and of the receive PD, or (c) in the sink of our oldest
 * outstanding Read, in order; never after the QP went to TERMINATE or
 * ERROR, never without holding the MR, under rx_lock. At the end every
 * changed octet of the arena was so placed (guards and all else intact).
 * Further: FPDUs take effect in stream order, whole, with their CRC
 * checked; a successful completion comes from the last FPDU of a Send
 * that took effect, once per WQE, with byte_len the message length <=
 * the WQE's; no WQE is taken before the one before it completed, and the
 * one in progress is still owned; error completions have their cause;
 * invalidations follow their FPDU; queued Read Requests are exactly the
 * ones that took effect, within IRD, their source readable when checked
 * (TX checks again when it answers); no MR
 * reference, lock or RCU section outlives a pass; a Terminate built from
 * what RX reports must build; and unless the QP failed, every whole FPDU
 * took effect and the socket was drained.
 *
 * Findings (gen_rx_seeds writes an input for each, seeds/rx/finding-*):
 *   1. (fixed, now an invariant) siwl_rx_send() failing on a malformed
 *      WQE taken after a wait for one left rx->rqe_wait set: siwl_qp_rx()
 *      never read the socket again.
 *   2. (fixed, now an invariant) Error completions that follow from a
 *      Send's header (length, bad SGE, malformed WQE) were pushed before
 *      the FPDU's CRC was read, though rx.c's header says completions
 *      wait for the CRC.
 * FUZZ_RX_VERBOSE=1 prints each RX pass and a summary per input.
 *
 * Long run (hours, all cores):
 *   make && mkdir -p corpus/rx artifacts && \
 *   ./fuzz_rx -max_len=4096 -max_total_time=14400 -jobs=$(nproc) \
 *       -workers=$(nproc) -artifact_prefix=artifacts/ corpus/rx seeds/rx
 * A crash leaves artifacts/crash-<sha1>; ./fuzz_rx <file> replays it.
 */
#include "qp_engine.h"
#include "rx.h"
#include "tune.h"
#include "rx_env.h"

static struct rx_world rx_world;

/* Receive WQE k % 4: SGEs as (MR index or 0 for none, offset, length). */
static const struct {
	u32 nsge;
	struct {
		u32 mr, off, len;
	} sge[3];
} rx_rqe_shape[4] = {
	{ 1, { { RX_MR_RDONLY, 0x10, 32 } } },
	{ 3, { { RX_MR_LOCAL, 0x20, 8 }, { 0, 0, 0 },
	       { RX_MR_LOCAL, 0x28, 16 } } },
	{ 2, { { RX_MR_FRMR, 0xe0, 16 }, { RX_MR_LOCAL, 0x40, 48 } } },
	{ 1, { { RX_MR_LOCAL, 0x70, 64 } } },
};

static void rx_lock_init(spinlock_t *l, const char *name, int rank)
{
	*l = (spinlock_t){ .name = name, .rank = rank };
}

static void rx_setup_mrs(struct rx_world *w)
{
	const int all = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			IB_ACCESS_REMOTE_READ;
	struct rx_mr *m;
	int i;

	for (i = 1; i <= RX_NR_MR; i++) {
		m = &w->mrs[i];
		m->present = true;
		m->arena_off = RX_GUARD + (i - 1) * (RX_MR_LEN + RX_GUARD);
		m->mr.kind = SIWL_MR_USER;
		m->mr.pd = &w->pd;
		m->mr.stag = rx_stag(i);
		m->mr.base.lkey = m->mr.stag;
		m->mr.base.rkey = m->mr.stag;
		m->mr.valid = true;
		m->mr.access = all;
		m->mr.iova = rx_iova(i);
		m->mr.length = RX_MR_LEN;
		rx_lock_init(&m->mr.lock, "mr->lock", RX_RANK_LEAF);
	}
	w->mrs[RX_MR_RDONLY].mr.access = IB_ACCESS_LOCAL_WRITE |
					 IB_ACCESS_REMOTE_READ;
	w->mrs[RX_MR_INVAL].mr.valid = false;
	if (w->layout[1] & RX_L1_MR3_GONE)
		w->mrs[RX_MR_INVAL].present = false;
	w->mrs[RX_MR_FOREIGN].mr.pd = &w->other_pd;
	if (!(w->layout[1] & RX_L1_MR5_PLAIN))
		w->mrs[RX_MR_FRMR].mr.kind = SIWL_MR_FRMR;
	w->mrs[RX_MR_DMA].mr.kind = SIWL_MR_DMA;
	w->mrs[RX_MR_LOCAL].mr.access = IB_ACCESS_LOCAL_WRITE;
	if (w->layout[1] & RX_L1_MR8_REMOTE)
		w->mrs[RX_MR_LOCAL].mr.access |= IB_ACCESS_REMOTE_WRITE;
}

/* The consumer posts receive WQE number nrqe_posted (RQ, SRQ or ring). */
static void rx_post_rqe(struct rx_world *w)
{
	int k = w->nrqe_posted, s = k % 4;
	struct siwl_qp *qp = w->qp;
	struct siwl_rqe *rqe;
	unsigned long flags;
	u32 i, mr;

	if (k == RX_NR_RQE)
		return;
	rqe = &w->rqes[k].rqe;
	rqe->wr_id = RX_WR_ID(k);
	rqe->num_sge = rx_rqe_shape[s].nsge;
	for (i = 0; i < rqe->num_sge; i++) {
		mr = rx_rqe_shape[s].sge[i].mr;
		rqe->sge[i].lkey = mr ? rx_stag(mr) : 0;
		rqe->sge[i].addr = mr ? rx_iova(mr) +
				   rx_rqe_shape[s].sge[i].off : 0;
		rqe->sge[i].length = rx_rqe_shape[s].sge[i].len;
		rqe->total_len += rqe->sge[i].length;
	}
	if (s == 3 && (w->layout[2] & RX_L2_BAD_LKEY))
		rqe->sge[0].lkey ^= 1;
	/* Only a queue of user memory can hold something that is no WQE. */
	w->rqes[k].corrupt = k == 1 && (w->layout[2] & RX_L2_CORRUPT_WQE) &&
			     (w->rq_mode == RX_RQ_SRQ ||
			      w->rq_mode == RX_RQ_URING);
	w->nrqe_posted++;
	if (w->rq_mode != RX_RQ_KERNEL && w->rq_mode != RX_RQ_KERNEL2)
		return;
	spin_lock_irqsave(&qp->rq_lock, flags);
	qp->rq[qp->rq_head % qp->rq_size] = *rqe;
	qp->rq_head++;
	spin_unlock_irqrestore(&qp->rq_lock, flags);
}

/* Our Reads awaiting Responses, each (but an RTR Read) with a send WQE. */
static void rx_setup_orq(struct rx_world *w, u32 base)
{
	struct siwl_qp *qp = w->qp;
	struct siwl_orqe *o;
	struct siwl_sqe *sqe;
	struct rx_orqe *e;
	int k;

	w->norq = w->layout[2] & RX_L2_NORQ_MASK;
	w->sq_base = base;
	qp->sq_size = 4;
	qp->sq = calloc(qp->sq_size, sizeof(*qp->sq));
	qp->orq = calloc(SIWL_MAX_ORD, sizeof(*qp->orq));
	FUZZ_ASSERT(qp->sq && qp->orq);
	qp->sq_head = base;
	qp->sq_next = base;
	qp->sq_tail = base;
	qp->orq_head = base + 1;
	qp->ord = 4;
	for (k = 0; k < w->norq; k++) {
		e = &w->orq[k];
		e->sink_stag = rx_orq_sink(k);
		e->sink_to = rx_orq_to(k);
		e->len = rx_orq_len(k);
		e->rtr = k == 0 && (w->layout[2] & RX_L2_ORQ_RTR);
		e->inv = k == 1 && (w->layout[2] & RX_L2_ORQ_INV);
		if (e->rtr)
			e->len = 0;
		o = &qp->orq[(qp->orq_head + k) % SIWL_MAX_ORD];
		o->rtr = e->rtr;
		o->sink_stag = e->sink_stag;
		o->sink_to = e->sink_to;
		o->len = e->len;
		o->inv = e->inv;
		o->inv_key = rx_stag(RX_MR_FRMR);
		if (e->rtr)
			continue;
		e->sq_pos = qp->sq_head++;
		o->sq_idx = e->sq_pos;
		sqe = &qp->sq[e->sq_pos % qp->sq_size];
		sqe->wr_id = RX_ORQ_WR_ID(k);
		sqe->opcode = e->inv ? IB_WR_RDMA_READ_WITH_INV :
				       IB_WR_RDMA_READ;
		sqe->flags = SIWL_WQE_SIGNALED;
		sqe->num_sge = 1;
		sqe->total_len = e->len;
		sqe->inv_key = o->inv_key;
	}
	qp->sq_next = qp->sq_head;
	qp->orq_count = w->norq;
}

static void rx_setup_sock(struct rx_world *w)
{
	struct tcp_sock *tp = &w->tp;
	struct sock *sk = &tp->inet_conn.icsk_inet;

	kshim_sk_init(sk);
	sk->sk_state = TCP_ESTABLISHED;
	tp->window_clamp = 65535;
	tp->rcv_wnd = 4096;
	tp->space = (w->layout[3] & RX_L3_SPACE) ? 1 << 20 : 0;
	tp->inet_conn.icsk_ack.rcv_mss = RX_MSS;
	w->sock.sk = sk;
}

static void rx_setup(struct rx_world *w)
{
	static const u8 rtr[4] = { 0, MPA_RTR_SEND, MPA_RTR_WRITE,
				   MPA_RTR_READ };
	static const int cq_cap[4] = { 1, 2, 3, 64 };
	u32 base = (w->layout[2] & RX_L2_WRAP) ? 0xfffffffd : 0;
	unsigned long flags;
	struct siwl_qp *qp;
	int i, n;

	w->crc = w->layout[0] & RX_L0_CRC;
	w->rq_mode = (w->layout[0] >> RX_L0_RQ_SHIFT) & 3;
	for (i = 0; i < RX_ARENA_LEN; i++)
		w->arena[i] = rx_pattern(i);
	rx_setup_mrs(w);
	rx_setup_sock(w);

	w->sdev.ibdev.name = "siwl_fuzz";
	w->pd.device = &w->sdev.ibdev;
	w->other_pd.device = &w->sdev.ibdev;
	w->rcq.base.device = &w->sdev.ibdev;
	w->scq.base.device = &w->sdev.ibdev;
	rx_lock_init(&w->rcq.lock, "cq->lock", RX_RANK_LEAF);
	rx_lock_init(&w->srq.lock, "srq->lock", RX_RANK_LEAF);
	w->srq.base.pd = (w->layout[1] & RX_L1_SRQ_OTHER_PD) ? &w->other_pd :
							       &w->pd;
	w->rcq_cap = cq_cap[w->layout[3] & RX_L3_CQ_MASK];
	w->stat_set.pcpu = &w->stats;

	qp = calloc(1, sizeof(*qp));
	FUZZ_ASSERT(qp);
	w->qp = qp;
	qp->base.device = &w->sdev.ibdev;
	qp->base.pd = &w->pd;
	qp->base.qp_num = 7;
	qp->base.send_cq = &w->scq.base;
	qp->base.recv_cq = &w->rcq.base;
	qp->sdev = &w->sdev;
	qp->stat_set = &w->stat_set;
	qp->sock = &w->sock;
	rx_lock_init(&qp->lock, "qp->lock", RX_RANK_QP);
	rx_lock_init(&qp->rq_lock, "qp->rq_lock", RX_RANK_RQ);
	rx_lock_init(&qp->rx_lock, "qp->rx_lock", RX_RANK_RX);
	qp->state = (w->layout[2] & RX_L2_CLOSING) ? SIWL_QPS_CLOSING :
						     SIWL_QPS_RTS;
	qp->crc = w->crc;
	qp->ird = w->layout[0] >> RX_L0_IRD_SHIFT;
	qp->irq = calloc(SIWL_MAX_IRD, sizeof(*qp->irq));
	FUZZ_ASSERT(qp->irq);
	qp->irq_head = base + 2;
	w->irq_seen = qp->irq_head;
	qp->rx_work.func = siwl_qp_rx_work;
	qp->rqe_work.work.func = siwl_qp_rqe_work;
	if (w->rq_mode == RX_RQ_SRQ) {
		qp->srq = &w->srq;
		qp->base.srq = &w->srq.base;
	} else if (w->rq_mode == RX_RQ_URING) {
		qp->urq.hdr = &w->urq_hdr;
	}
	qp->max_recv_sge = SIWL_MAX_SGE;
	qp->rq_size = RX_NR_RQE;
	qp->rq = calloc(qp->rq_size, sizeof(*qp->rq));
	FUZZ_ASSERT(qp->rq);
	qp->rq_head = base;
	qp->rq_tail = base;
	w->rq_base = base;
	rx_setup_orq(w, base);

	spin_lock_bh(&qp->rx_lock);
	siwl_rx_reset(qp);
	qp->rx.rtr_expect = rtr[(w->layout[0] >> RX_L0_RTR_SHIFT) & 3];
	qp->tx_hold = qp->rx.rtr_expect;
	qp->rx_enabled = true;
	spin_unlock_bh(&qp->rx_lock);

	n = (w->layout[1] >> RX_L1_NRQE_SHIFT) & 7;
	for (i = 0; i < n; i++)
		rx_post_rqe(w);
	spin_lock_irqsave(&qp->lock, flags);
	qp->tx_enabled = true;
	spin_unlock_irqrestore(&qp->lock, flags);

	siwl_tune.rx_defer = (w->layout[1] & RX_L1_DEFER) ? 64 : 0;
	siwl_tune.rx_defer_read = (w->layout[1] & RX_L1_DEFER) ? 16 : 0;
	jiffies = (w->layout[2] & RX_L2_WRAP) ? -2UL * HZ : 100000;
	rx_oracle_read(w);
}

static void rx_teardown(struct rx_world *w)
{
	struct siwl_qp *qp = w->qp;

	kshim_sk_purge(w->sock.sk);
	free(qp->rq);
	free(qp->irq);
	free(qp->orq);
	free(qp->sq);
	free(qp);
	free(w->fpdus);
}

/* Read Requests RX queued: exactly those that took effect, in order. */
static void rx_check_irq(struct rx_world *w)
{
	struct siwl_qp *qp = w->qp;
	u32 end = qp->irq_head + qp->irq_count;
	const struct rdmap_rreq_info *r;
	const struct siwl_irqe *e;
	const struct rx_fpdu *f;

	FUZZ_ASSERT(qp->irq_count <= qp->ird);
	for (;;) {
		while (w->rreq_scan < w->fpdus_done &&
		       w->fpdus[w->rreq_scan].h.opcode != RDMAP_RDMA_READ_REQ)
			w->rreq_scan++;
		if (w->irq_seen == end)
			break;
		FUZZ_ASSERT(w->rreq_scan < w->fpdus_done);
		f = &w->fpdus[w->rreq_scan++];
		r = &f->h.rreq;
		e = &qp->irq[w->irq_seen++ % SIWL_MAX_IRD];
		FUZZ_ASSERT(f->rreq_ok);
		FUZZ_ASSERT(e->sink_stag == r->sink_stag &&
			    e->sink_to == r->sink_to &&
			    e->size == r->read_size &&
			    e->src_stag == r->source_stag &&
			    e->src_to == r->source_to);
	}
	/* None that took effect was dropped. */
	FUZZ_ASSERT(w->rreq_scan == w->fpdus_done);
}

/* What must hold whenever an RX pass has returned. */
static void rx_after_pass(struct rx_world *w)
{
	struct siwl_qp *qp = w->qp;
	int i;

	FUZZ_ASSERT(!kshim_locks_held() && !kshim_rcu_depth);
	FUZZ_ASSERT(!w->sock.sk->owned);
	/* A WQE taken for a header that then failed: nothing saw it yet. */
	rx_env_sync_taken(w);
	/* No MR reference outlives the pass (rx.c, top). */
	FUZZ_ASSERT(!qp->rx.mr);
	for (i = 1; i <= RX_NR_MR; i++)
		FUZZ_ASSERT(!w->mrs[i].refs);
	/* A lost completion or an error completion ends the QP. */
	if (w->rcq_overflow)
		FUZZ_ASSERT(qp->state == SIWL_QPS_ERROR);
	if (w->send_err_cqes)
		FUZZ_ASSERT(w->failed);
	if (w->term_rx)
		FUZZ_ASSERT(qp->state == SIWL_QPS_ERROR);
	/* RX stops only with the QP failed. */
	if (qp->rx.dead)
		FUZZ_ASSERT(w->failed);
	rx_check_irq(w);
}

static bool rx_verbose(void)
{
	static int verbose = -1;

	if (verbose < 0)
		verbose = !!getenv("FUZZ_RX_VERBOSE");
	return verbose;
}

static void rx_pass(struct rx_world *w, enum rx_entry e)
{
	struct siwl_qp *qp = w->qp;

	if (rx_verbose())
		fprintf(stderr, "fuzz_rx: pass %d: read %llu/%llu, fpdus %d, wait %d, dead %d, state %d\n",
			e, (unsigned long long)w->sock.sk->copied,
			(unsigned long long)w->sock.sk->queued, w->fpdus_done,
			qp->rx.rqe_wait, qp->rx.dead, qp->state);

	switch (e) {
	case RX_ENTRY_RX:
		kshim_in_softirq = true;
		siwl_qp_rx(qp, w->sock.sk);
		break;
	case RX_ENTRY_DATA_READY:
		kshim_in_softirq = true;
		siwl_qp_data_ready(qp, w->sock.sk);
		break;
	case RX_ENTRY_RX_WORK:
		qp->rx_work.queued = 0;
		qp->rx_work.func(&qp->rx_work);
		break;
	case RX_ENTRY_RQE_WORK:
		qp->rqe_work.work.queued = 0;
		qp->rqe_work.work.func(&qp->rqe_work.work);
		break;
	}
	kshim_in_softirq = false;
	rx_after_pass(w);
}

/* Hands the socket the next @n stream octets, starting @back early. */
static void rx_queue(struct rx_world *w, u64 n, u64 back)
{
	u64 to = min(w->stream_queued + n, (u64)w->stream_len);

	if (to == w->stream_queued)
		return;
	back = min(back, w->stream_queued);
	kshim_sk_queue(w->sock.sk, w->stream, w->stream_queued - back, to);
	w->stream_queued = to;
}

/* The QP or its connection changes state under RX (RX_LOC_MODIFY). */
static void rx_modify(struct rx_world *w, u32 how)
{
	struct siwl_qp *qp = w->qp;
	unsigned long flags;

	switch (how) {
	case 0:
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->state == SIWL_QPS_RTS)
			qp->state = SIWL_QPS_CLOSING;
		spin_unlock_irqrestore(&qp->lock, flags);
		break;
	case 1:
		spin_lock_irqsave(&qp->lock, flags);
		siwl_qp_error_locked(qp, false);
		spin_unlock_irqrestore(&qp->lock, flags);
		break;
	case 2:
		w->sock.sk->sk_state = TCP_CLOSE;
		break;
	default:
		/* What siwl_qp_llp_down() leaves: RX off, then no socket. */
		spin_lock_bh(&qp->rx_lock);
		qp->rx_enabled = false;
		spin_unlock_bh(&qp->rx_lock);
		spin_lock_irqsave(&qp->lock, flags);
		qp->sock = NULL;
		spin_unlock_irqrestore(&qp->lock, flags);
		break;
	}
}

static void rx_local(struct rx_world *w, enum rx_local kind, u32 a)
{
	struct siwl_qp *qp = w->qp;
	struct rx_mr *m = &w->mrs[a + 1];
	unsigned long flags;
	u32 key;

	if (kind == RX_LOC_INVALIDATE || kind == RX_LOC_FAST_REG ||
	    kind == RX_LOC_DEREG)
		rx_env_before_mr_change(w);
	switch (kind) {
	case RX_LOC_POST_RQE:
		rx_post_rqe(w);
		siwl_rx_rqe_posted(qp);
		break;
	case RX_LOC_TICK:
		jiffies += (a + 1) * HZ / 4;
		break;
	case RX_LOC_INVALIDATE:
		m->mr.valid = false;
		break;
	case RX_LOC_FAST_REG:
		/* The consumer's REG_MR: an invalid FRMR, under a new key. */
		m = &w->mrs[RX_MR_FRMR];
		if (m->mr.kind != SIWL_MR_FRMR || m->mr.valid)
			break;
		key = (m->mr.stag + a + 1) & SIWL_STAG_KEY_MASK;
		m->mr.stag = (m->mr.stag & ~SIWL_STAG_KEY_MASK) | key;
		m->mr.valid = true;
		break;
	case RX_LOC_DEREG:
		/* Deregistration waits for references: there are none. */
		FUZZ_ASSERT(!m->refs);
		m->present = false;
		break;
	case RX_LOC_MODIFY:
		rx_modify(w, a & 3);
		break;
	case RX_LOC_POLL_CQ:
		w->rcq_count = 0;
		break;
	case RX_LOC_TX_READ_RESP:
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->irq_count) {
			qp->irq_head++;
			qp->irq_count--;
		}
		spin_unlock_irqrestore(&qp->lock, flags);
		break;
	}
}

static void rx_schedule(struct rx_world *w, const u8 *ev, size_t n)
{
	size_t i;
	u8 c;

	for (i = 0; i < n; i++) {
		c = ev[i];
		switch (RX_EV_KIND(c)) {
		case RX_EV_SMALL:
			rx_queue(w, RX_EV_SMALL_LEN(c), 0);
			break;
		case RX_EV_LARGE:
			rx_queue(w, RX_EV_LARGE_LEN(c), RX_EV_LARGE_BACK(c));
			break;
		case RX_EV_PASS:
			rx_pass(w, c & 3);
			break;
		default:
			rx_local(w, RX_EV_LOCAL_KIND(c), RX_EV_LOCAL_ARG(c));
			break;
		}
	}
}

/* The rest of the stream, in MSS pieces, until RX has read it all. */
static void rx_drain(struct rx_world *w)
{
	int i;

	while (w->stream_queued < w->stream_len)
		rx_queue(w, RX_MSS, 0);
	for (i = 0; i < 4 && w->sock.sk->rx_head; i++) {
		/* A Send waiting for a WQE gives up after a second. */
		if (w->qp->rx.rqe_wait)
			jiffies += 2 * HZ;
		rx_pass(w, RX_ENTRY_RX);
	}
	if (!w->sock.sk->rx_head || !w->qp->rx_enabled)
		return;
	/*
	 * RX must have read it all: past an error it drops the rest
	 * (siwl_rx_actor()). seeds/rx/finding-1-rqe-wait is the input that
	 * once broke this (a Send failing on the WQE it took after a wait
	 * left rqe_wait set, and siwl_qp_rx() read no more).
	 */
	FUZZ_ASSERT(!"RX left bytes in the socket");
}

/* FUZZ_RX_VERBOSE=1: what an input did, to check that seeds go deep. */
static void rx_summary(const struct rx_world *w)
{
	int i, placed = 0, done = 0;

	for (i = 0; i < RX_ARENA_LEN; i++)
		placed += w->written[i];
	for (i = 0; i < w->nrqe_taken; i++)
		done += w->rqes[i].completed;
	fprintf(stderr, "fuzz_rx: fpdus %d/%d%s, placed %d, rqes taken %d completed %d,",
		w->fpdus_done, w->nfpdu, w->oracle_stopped ? " (stopped)" : "",
		placed, w->nrqe_taken, done);
	fprintf(stderr, " reads %d/%d, irq %u, state %d%s, term %u/%u/%#x%s\n",
		w->norq_done, w->norq, w->qp->irq_count, w->qp->state,
		w->failed ? " failed" : "", w->term.layer, w->term.etype,
		w->term.ecode, w->term_rx ? ", peer terminated" : "");
}

static void rx_final(struct rx_world *w)
{
	struct siwl_qp *qp = w->qp;
	const struct rx_rqe *r;
	int i;

	/* Unless the QP failed or lost its connection, every whole FPDU
	 * took effect.
	 */
	if (!w->failed && qp->rx_enabled) {
		FUZZ_ASSERT(!w->oracle_bad_whole);
		for (i = 0; i < w->nfpdu; i++)
			FUZZ_ASSERT(w->fpdus[i].done ||
				    !w->fpdus[i].complete);
	}
	/* Consumer memory changed only where placement was allowed. */
	for (i = 0; i < RX_ARENA_LEN; i++)
		if (w->arena[i] != rx_pattern(i))
			FUZZ_ASSERT(w->written[i]);
	/* Taken WQEs: completed, but for the one still being filled. */
	for (i = 0; i + 1 < w->nrqe_taken; i++)
		FUZZ_ASSERT(w->rqes[i].completed);
	if (w->nrqe_taken) {
		r = &w->rqes[w->nrqe_taken - 1];
		FUZZ_ASSERT(r->completed != qp->rx_rqe_valid);
		if (qp->rx_rqe_valid)
			FUZZ_ASSERT(qp->rx_rqe.wr_id == r->rqe.wr_id);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct rx_world *w = &rx_world;
	size_t nev;

	if (size < RX_HDR_LEN)
		return 0;
	nev = min((size_t)data[4], size - RX_HDR_LEN);
	memset(w, 0, sizeof(*w));
	rxw = w;
	memcpy(w->layout, data, sizeof(w->layout));
	w->stream = data + RX_HDR_LEN + nev;
	w->stream_len = size - RX_HDR_LEN - nev;

	rx_setup(w);
	rx_schedule(w, data + RX_HDR_LEN, nev);
	rx_drain(w);
	if (rx_verbose())
		rx_summary(w);
	rx_final(w);
	rx_teardown(w);
	return 0;
}
