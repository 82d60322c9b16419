// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shared-ring data-path backend (SIW_LITE_CAP_RINGS): SQ, RQ, SRQ and
 * CQ live in memory mapped from the uverbs file and shared with the
 * kernel, laid out as include/uapi/rdma/siw_lite-abi.h describes.
 * post_recv, post_srq_recv, poll_cq and req_notify_cq make no system
 * call; post_send makes one (the doorbell) only when the kernel says it
 * stopped fetching, however many WRs the call posts.  (post_recv makes
 * one too once the QP is in ERROR: the kernel then flushes receives only
 * when asked, SIW_LITE_RQ_FLUSH.)
 *
 * Each ring has a spinlock: libibverbs lets threads post and poll on the
 * same object concurrently, and a ring has a single producer (or
 * consumer) index on our side.
 *
 * We do not trust the kernel-written half of a ring either: an index
 * that claims more entries than the ring holds means the ring is corrupt
 * (someone scribbled on it).  Posting then fails with EIO, polling
 * returns -1 with errno EIO; nothing is read or written out of bounds.
 * The kernel treats the same condition as fatal for the queue and says so
 * with an async event, which is where the application learns more.
 *
 * The rings are MADV_DONTFORK: a child of fork() gets no mapping at all
 * (touching a ring there faults instead of racing with the parent on
 * shared indices), as with other providers' queue memory.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "siw_lite.h"

static inline uint32_t siwl_load_acq(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void siwl_store_rel(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void *siwl_slot(const struct siwl_ring *r, uint32_t idx)
{
	return r->entries + (size_t)(idx & (r->num - 1)) * r->esize;
}

/* -------------------------------------------------------- map / unmap */

static int siwl_ring_map(struct ibv_context *ibctx, struct siwl_ring *r,
			 uint64_t key, uint32_t size, uint32_t num,
			 uint32_t esize, uint32_t limit, bool consumer)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	/* what we index must lie inside what we map */
	if (!num || (num & (num - 1)) || (page > 0 && key % page) ||
	    (uint64_t)size < SIW_LITE_RING_ENTRIES + (uint64_t)num * esize) {
		siwl_err(ibctx, "bad ring: key %#llx size %u entries %u\n",
			 (unsigned long long)key, size, num);
		return EPROTO;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ibctx->cmd_fd, (off_t)key);
	if (p == MAP_FAILED) {
		siwl_err(ibctx, "mmap of ring %#llx (%u bytes): %m\n",
			 (unsigned long long)key, size);
		return errno;
	}
	if (madvise(p, size, MADV_DONTFORK))
		siwl_dbg(ibctx, "MADV_DONTFORK on a ring: %m\n");

	r->hdr = p;
	r->entries = (unsigned char *)p + SIW_LITE_RING_ENTRIES;
	r->map_size = size;
	r->num = num;
	r->esize = esize;
	r->limit = limit && limit < num ? limit : num;
	/*
	 * Start where the kernel initialised the ring: 0 in practice, but
	 * nothing depends on it, and the unit tests start just below 2^32
	 * to wrap the free-running indices early.
	 */
	r->idx = siwl_load_acq(consumer ? &r->hdr->cons : &r->hdr->prod);
	pthread_spin_init(&r->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

static void siwl_ring_unmap(struct siwl_ring *r)
{
	if (!r->hdr)
		return;
	munmap(r->hdr, r->map_size);
	pthread_spin_destroy(&r->lock);
	r->hdr = NULL;
}

int siwl_ring_attach_cq(struct siwl_cq *cq,
			const struct siw_lite_uresp_create_cq *resp)
{
	int ret;

	if (!resp->num_entries)
		return 0;
	ret = siwl_ring_map(cq->ibv_cq.context, &cq->ring, resp->mmap_key,
			    resp->mmap_size, resp->num_entries,
			    sizeof(struct siw_lite_cqe), 0, true);
	if (!ret)
		cq->dp = &siwl_dp_ring;
	return ret;
}

void siwl_ring_detach_cq(struct siwl_cq *cq)
{
	siwl_ring_unmap(&cq->ring);
}

int siwl_ring_attach_qp(struct siwl_qp *qp,
			const struct siw_lite_uresp_create_qp *resp)
{
	struct ibv_context *ibctx = qp->ibv_qp.context;
	int ret;

	if (!resp->num_sqe)
		return 0;
	/* an RQ ring exactly when the QP has no SRQ */
	if (!resp->num_rqe != !!qp->ibv_qp.srq) {
		siwl_err(ibctx, "RQ ring %u entries, SRQ %p\n", resp->num_rqe,
			 (void *)qp->ibv_qp.srq);
		return EPROTO;
	}
	ret = siwl_ring_map(ibctx, &qp->sq, resp->sq_key, resp->sq_size,
			    resp->num_sqe, sizeof(struct siw_lite_sqe),
			    qp->cap.max_send_wr, false);
	if (ret)
		return ret;
	if (resp->num_rqe) {
		ret = siwl_ring_map(ibctx, &qp->rq, resp->rq_key,
				    resp->rq_size, resp->num_rqe,
				    sizeof(struct siw_lite_rqe),
				    qp->cap.max_recv_wr, false);
		if (ret) {
			siwl_ring_unmap(&qp->sq);
			return ret;
		}
	}
	qp->dp = &siwl_dp_ring;
	return 0;
}

void siwl_ring_detach_qp(struct siwl_qp *qp)
{
	siwl_ring_unmap(&qp->sq);
	siwl_ring_unmap(&qp->rq);
}

int siwl_ring_attach_srq(struct siwl_srq *srq,
			 const struct siw_lite_uresp_create_srq *resp)
{
	int ret;

	if (!resp->num_entries)
		return 0;
	ret = siwl_ring_map(srq->ibv_srq.context, &srq->ring,
			    resp->mmap_key, resp->mmap_size,
			    resp->num_entries, sizeof(struct siw_lite_rqe),
			    srq->max_wr, false);
	if (!ret)
		srq->dp = &siwl_dp_ring;
	return ret;
}

void siwl_ring_detach_srq(struct siwl_srq *srq)
{
	siwl_ring_unmap(&srq->ring);
}

/* ---------------------------------------------------------------- post */

/*
 * Entries we may still write: limit minus what the kernel has not
 * consumed, re-reading its index.  -1: the kernel's index is beyond ours
 * or too far behind, i.e. the ring is corrupt.
 */
static int64_t siwl_ring_room(const struct siwl_ring *r)
{
	uint32_t used = r->idx - siwl_load_acq(&r->hdr->cons);

	if (used > r->num)
		return -1;
	return used >= r->limit ? 0 : r->limit - used;
}

static int siwl_ring_wr_opcode(const struct siwl_qp *qp,
			       const struct ibv_send_wr *wr, uint8_t *op,
			       uint32_t *inl)
{
	uint64_t len = 0;
	int i, ret;

	*inl = 0;
	if (wr->opcode == IBV_WR_LOCAL_INV) {
		/* no payload: SGEs are ignored, inline is meaningless */
		if (wr->send_flags & ~(unsigned int)(IBV_SEND_SIGNALED |
						     IBV_SEND_SOLICITED |
						     IBV_SEND_FENCE))
			return EINVAL;
		*op = SIW_LITE_WR_LOCAL_INV;
		return 0;
	}
	ret = siwl_check_send_wr(qp, wr);
	if (ret)
		return ret;
	if ((uint32_t)wr->num_sge > SIW_LITE_MAX_SGE)
		return EINVAL;
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
		*op = SIW_LITE_WR_WRITE;
		break;
	case IBV_WR_SEND:
		*op = SIW_LITE_WR_SEND;
		break;
	case IBV_WR_SEND_WITH_INV:
		*op = SIW_LITE_WR_SEND_WITH_INV;
		break;
	case IBV_WR_RDMA_READ:
		*op = SIW_LITE_WR_READ;
		break;
	default:
		return EINVAL;
	}
	if (wr->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		/* checked against the granted cap already; the slot size */
		if (len > SIW_LITE_MAX_INLINE)
			return EINVAL;
		*inl = len;
	}
	return 0;
}

static void siwl_ring_fill_sqe(const struct siwl_qp *qp,
			       struct siw_lite_sqe *sqe,
			       const struct ibv_send_wr *wr, uint8_t op,
			       uint32_t inl)
{
	uint16_t flags = 0;
	uint32_t off = 0;
	int i;

	if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sig_all)
		flags |= SIW_LITE_WQE_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		flags |= SIW_LITE_WQE_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		flags |= SIW_LITE_WQE_FENCE;

	sqe->wr_id = wr->wr_id;
	sqe->opcode = op;
	sqe->num_sge = 0;
	sqe->length = 0;
	sqe->remote_addr = 0;
	sqe->rkey = 0;
	sqe->invalidate_rkey = 0;
	if (op == SIW_LITE_WR_WRITE || op == SIW_LITE_WR_READ) {
		sqe->remote_addr = wr->wr.rdma.remote_addr;
		sqe->rkey = wr->wr.rdma.rkey;
	}
	if (op == SIW_LITE_WR_SEND_WITH_INV || op == SIW_LITE_WR_LOCAL_INV)
		sqe->invalidate_rkey = wr->invalidate_rkey;

	if (op == SIW_LITE_WR_LOCAL_INV) {
		/* nothing to carry */
	} else if (wr->send_flags & IBV_SEND_INLINE) {
		flags |= SIW_LITE_WQE_INLINE;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(sqe->inline_data + off,
			       (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		sqe->length = inl;
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			sqe->sge[i].addr = wr->sg_list[i].addr;
			sqe->sge[i].length = wr->sg_list[i].length;
			sqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
		sqe->num_sge = wr->num_sge;
	}
	sqe->flags = flags;
}

/*
 * Tells the kernel there is work when it has stopped fetching: one
 * POST_SEND command without WRs.  Ordering (siw_lite-abi.h): publish
 * prod, full barrier, read flags; the kernel clears the flag, full
 * barrier, re-reads prod, so one of us always sees the other's write.
 */
static void siwl_ring_doorbell(struct siwl_qp *qp)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(__atomic_load_n(&qp->sq.hdr->flags, __ATOMIC_RELAXED) &
	      SIW_LITE_SQ_DOORBELL))
		return;
	ret = ibv_cmd_post_send(&qp->ibv_qp, NULL, &bad);
	/*
	 * The WRs are in the ring already and cannot be taken back; the
	 * kernel completes (or flushes) them whatever it answered here.
	 */
	if (ret)
		siwl_dbg(qp->ibv_qp.context, "doorbell: %d\n", ret);
}

static int siwl_ring_post_send(struct siwl_qp *qp, struct ibv_send_wr *wr,
			       struct ibv_send_wr **bad_wr)
{
	struct siwl_ring *r = &qp->sq;
	uint32_t start, inl;
	bool posted;
	int64_t room;
	uint8_t op;
	int err = 0;

	pthread_spin_lock(&r->lock);
	start = r->idx;
	room = siwl_ring_room(r);
	for (; wr; wr = wr->next) {
		if (room < 0) {
			err = EIO;
			break;
		}
		err = siwl_ring_wr_opcode(qp, wr, &op, &inl);
		if (err)
			break;
		if (!room) {
			room = siwl_ring_room(r);
			if (room <= 0) {
				err = room ? EIO : ENOMEM;
				break;
			}
		}
		siwl_ring_fill_sqe(qp, siwl_slot(r, r->idx), wr, op, inl);
		r->idx++;
		room--;
	}
	if (err)
		*bad_wr = wr;
	posted = r->idx != start;
	if (posted)
		siwl_store_rel(&r->hdr->prod, r->idx);
	pthread_spin_unlock(&r->lock);
	/*
	 * Not under the lock: no thread should spin through our system
	 * call, and two threads ringing for the same WRs is harmless.
	 */
	if (posted)
		siwl_ring_doorbell(qp);
	return err;
}

/*
 * In ERROR the kernel no longer takes receives by itself but flushes
 * what we post when asked to (SIW_LITE_RQ_FLUSH): a POST_RECV command
 * without WRs.  Same ordering as the SQ doorbell.
 */
static void siwl_ring_rq_flush(struct siwl_qp *qp)
{
	struct ibv_recv_wr *bad = NULL;
	int ret;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(__atomic_load_n(&qp->rq.hdr->flags, __ATOMIC_RELAXED) &
	      SIW_LITE_RQ_FLUSH))
		return;
	ret = ibv_cmd_post_recv(&qp->ibv_qp, NULL, &bad);
	if (ret)
		siwl_dbg(qp->ibv_qp.context, "RQ flush request: %d\n", ret);
}

/* Receives into @r: a QP's RQ (@qp set) or an SRQ. */
static int siwl_ring_post_rq(struct siwl_qp *qp, struct siwl_ring *r,
			     uint32_t max_sge, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr)
{
	struct siw_lite_rqe *rqe;
	uint32_t start;
	bool posted;
	int64_t room;
	int err = 0, i;

	pthread_spin_lock(&r->lock);
	start = r->idx;
	room = siwl_ring_room(r);
	for (; wr; wr = wr->next) {
		if (room < 0) {
			err = EIO;
			break;
		}
		err = siwl_check_recv_wr(max_sge, wr);
		if (!err && wr->num_sge > SIW_LITE_MAX_SGE)
			err = EINVAL;
		if (err)
			break;
		if (!room) {
			room = siwl_ring_room(r);
			if (room <= 0) {
				err = room ? EIO : ENOMEM;
				break;
			}
		}
		rqe = siwl_slot(r, r->idx);
		rqe->wr_id = wr->wr_id;
		rqe->num_sge = wr->num_sge;
		rqe->rsvd = 0;
		for (i = 0; i < wr->num_sge; i++) {
			rqe->sge[i].addr = wr->sg_list[i].addr;
			rqe->sge[i].length = wr->sg_list[i].length;
			rqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
		r->idx++;
		room--;
	}
	if (err)
		*bad_wr = wr;
	posted = r->idx != start;
	if (posted)
		siwl_store_rel(&r->hdr->prod, r->idx);
	pthread_spin_unlock(&r->lock);
	if (posted && qp)
		siwl_ring_rq_flush(qp);
	return err;
}

static int siwl_ring_post_recv(struct siwl_qp *qp, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	/* an SRQ QP is refused in qp.c; a ring QP without RQ ring has one */
	if (!qp->rq.hdr) {
		*bad_wr = wr;
		return EINVAL;
	}
	return siwl_ring_post_rq(qp, &qp->rq, qp->cap.max_recv_sge, wr,
				 bad_wr);
}

static int siwl_ring_post_srq_recv(struct siwl_srq *srq,
				   struct ibv_recv_wr *wr,
				   struct ibv_recv_wr **bad_wr)
{
	return siwl_ring_post_rq(NULL, &srq->ring, srq->max_sge, wr, bad_wr);
}

/* ---------------------------------------------------------------- poll */

static void siwl_ring_cqe_to_wc(const struct siw_lite_cqe *cqe,
				struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp_num = cqe->qp_num;
	if (cqe->flags & SIW_LITE_CQE_WITH_INV) {
		wc->wc_flags = IBV_WC_WITH_INV;
		wc->invalidated_rkey = cqe->invalidated_rkey;
	}
}

static int siwl_ring_poll_cq(struct siwl_cq *cq, int ne, struct ibv_wc *wc)
{
	struct siwl_ring *r = &cq->ring;
	struct siw_lite_cqe cqe;
	uint32_t avail;
	int n;

	pthread_spin_lock(&r->lock);
	avail = siwl_load_acq(&r->hdr->prod) - r->idx;
	if (avail > r->num) {
		pthread_spin_unlock(&r->lock);
		errno = EIO;
		return -1;
	}
	for (n = 0; n < ne && (uint32_t)n < avail; n++) {
		/* one copy: the entry may change under us if scribbled */
		memcpy(&cqe, siwl_slot(r, r->idx + n), sizeof(cqe));
		siwl_ring_cqe_to_wc(&cqe, &wc[n]);
	}
	if (n) {
		r->idx += n;
		siwl_store_rel(&r->hdr->cons, r->idx);
	}
	pthread_spin_unlock(&r->lock);
	return n;
}

/*
 * The fence pairs with the kernel's between publishing a CQE and reading
 * the arm word: either it sees our arming or our next poll sees its CQE,
 * so "arm, then poll once more" never loses a wakeup.
 */
static int siwl_ring_req_notify_cq(struct siwl_cq *cq, int solicited_only)
{
	__atomic_store_n(&cq->ring.hdr->flags,
			 solicited_only ? SIW_LITE_CQ_ARM_SOLICITED :
					  SIW_LITE_CQ_ARM_NEXT,
			 __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

const struct siwl_dp_ops siwl_dp_ring = {
	.name = "shared-ring",
	.post_send = siwl_ring_post_send,
	.post_recv = siwl_ring_post_recv,
	.post_srq_recv = siwl_ring_post_srq_recv,
	.poll_cq = siwl_ring_poll_cq,
	.req_notify_cq = siwl_ring_req_notify_cq,
};
