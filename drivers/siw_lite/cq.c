// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: completion queues.
 *
 * A CQ is a ring of struct siwl_cqe in kernel memory, filled by the data
 * path in any context and drained by poll_cq, for kernel ULPs and (through
 * uverbs) user space alike. Completion and error handlers are always
 * called with the CQ lock dropped, as they may poll or re-arm the CQ.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "cq.h"
#include "siw_lite.h"
#include "trace.h"

/* Ring position @pos (less than twice the capacity) to a slot. */
static u32 siwl_cq_slot(const struct siwl_cq *cq, u32 pos)
{
	return pos < cq->num_cqe ? pos : pos - cq->num_cqe;
}

static void siwl_cq_error(struct siwl_cq *cq)
{
	struct ib_event ev = {
		.device = cq->base.device,
		.element.cq = &cq->base,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->base.event_handler)
		cq->base.event_handler(&ev, cq->base.cq_context);
}

/*
 * As in the IB verbs, a CQ armed for solicited completions also reports
 * one completed in error, so that a consumer waiting for a solicited
 * message learns that none will come.
 */
static bool siwl_cq_fires(u32 armed, const struct siwl_cqe *cqe,
			  bool solicited)
{
	if (armed == IB_CQ_NEXT_COMP)
		return true;
	return armed == IB_CQ_SOLICITED &&
	       (solicited || cqe->status != IB_WC_SUCCESS);
}

static u32 siwl_arm_of(u32 uarm)
{
	switch (uarm) {
	case SIW_LITE_CQ_ARM_NEXT:
		return IB_CQ_NEXT_COMP;
	case SIW_LITE_CQ_ARM_SOLICITED:
		return IB_CQ_SOLICITED;
	default:
		return 0;	/* not armed, or garbage */
	}
}

/*
 * The ring's consumer index is the user's to write: a value that puts more
 * than the capacity in the ring, wrap included, counts as an overflow, so
 * nothing the user writes makes us overwrite an entry it has not consumed
 * or report more than is there.
 */
static bool siwl_cq_ring_full(struct siwl_cq *cq)
{
	u32 cons = READ_ONCE(cq->ring.hdr->cons);

	return cq->uprod - cons >= cq->ring.num;
}

static void siwl_cq_ring_put(struct siwl_cq *cq, const struct siwl_cqe *cqe,
			     bool solicited)
{
	struct siw_lite_cqe *e = siwl_uring_entry(&cq->ring, cq->uprod);
	struct siw_lite_cqe u = {
		.wr_id = cqe->wr_id,
		.opcode = cqe->opcode,
		.status = cqe->status,
		.byte_len = cqe->byte_len,
		.qp_num = cqe->qp->qp_num,
	};

	if (cqe->wc_flags & IB_WC_WITH_INVALIDATE) {
		u.flags |= SIW_LITE_CQE_WITH_INV;
		u.invalidated_rkey = cqe->inv_rkey;
	}
	if (solicited)
		u.flags |= SIW_LITE_CQE_SOLICITED;
	memcpy(e, &u, sizeof(u));
	cq->uprod++;
	/* The entry is complete before user space can see the index move. */
	smp_store_release(&cq->ring.hdr->prod, cq->uprod);
}

/*
 * Arming of a ring CQ lives in the ring: user space stores an arm value,
 * we take it back with a compare-and-exchange, so that one arming yields
 * one event even against a user that keeps re-arming. The full barrier
 * pairs with the one user space puts between arming and polling again:
 * either we see the arming, or it sees the entry just published.
 */
static bool siwl_cq_ring_fires(struct siwl_cq *cq, const struct siwl_cqe *cqe,
			       bool solicited)
{
	u32 uarm;

	smp_mb();	/* prod published before the arm word is read */
	uarm = READ_ONCE(cq->ring.hdr->flags);
	if (!siwl_cq_fires(siwl_arm_of(uarm), cqe, solicited))
		return false;
	return cmpxchg(&cq->ring.hdr->flags, uarm, SIW_LITE_CQ_ARM_NONE) ==
	       uarm;
}

int siwl_cq_push(struct siwl_cq *cq, const struct siwl_cqe *cqe,
		 bool solicited)
{
	bool notify = false;
	bool first_overflow;
	unsigned long flags;

	if (WARN_ON_ONCE(!cqe->qp))
		return -EINVAL;
	trace_wqe_done(cqe->qp->qp_num, cq->base.res.id, cqe->wr_id,
		       cqe->opcode, cqe->status, cqe->byte_len);

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->ring.hdr ? siwl_cq_ring_full(cq) : cq->count == cq->num_cqe) {
		first_overflow = !cq->overflowed;
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		siwl_stat_inc(to_siwl_dev(cq->base.device)->stats,
			      SIWL_STAT_CQ_OVERFLOWS);
		if (first_overflow)
			siwl_cq_error(cq);
		return -ENOSPC;
	}

	if (cq->ring.hdr) {
		siwl_cq_ring_put(cq, cqe, solicited);
		notify = siwl_cq_ring_fires(cq, cqe, solicited);
	} else {
		cq->queue[siwl_cq_slot(cq, cq->head + cq->count)] = *cqe;
		cq->count++;
	}
	if (!cq->ring.hdr && siwl_cq_fires(cq->armed, cqe, solicited)) {
		/* One notification per arming, as the verbs require. */
		cq->armed = 0;
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->base.comp_handler)
		cq->base.comp_handler(&cq->base, cq->base.cq_context);
	return 0;
}

u32 siwl_cq_clean(struct siwl_cq *cq, const struct ib_qp *qp)
{
	unsigned long flags;
	u32 i, src, kept = 0, removed;

	/*
	 * A ring CQ's entries carry a QP number, not a pointer: nothing to
	 * remove, and user space may already be reading them.
	 */
	if (cq->ring.hdr)
		return 0;
	spin_lock_irqsave(&cq->lock, flags);
	/* Compact in place; a slot is only written after it was read. */
	for (i = 0; i < cq->count; i++) {
		src = siwl_cq_slot(cq, cq->head + i);
		if (cq->queue[src].qp == qp)
			continue;
		if (kept != i)
			cq->queue[siwl_cq_slot(cq, cq->head + kept)] =
				cq->queue[src];
		kept++;
	}
	removed = cq->count - kept;
	cq->count = kept;
	spin_unlock_irqrestore(&cq->lock, flags);
	return removed;
}

int siwl_create_cq(struct ib_cq *base, const struct ib_cq_init_attr *attr,
		   struct siwl_create_cq_arg *arg)
{
	struct ib_udata *udata = siwl_create_cq_udata(arg);
	struct siwl_device *sdev = to_siwl_dev(base->device);
	struct siwl_cq *cq = to_siwl_cq(base);
	struct siw_lite_uresp_create_cq resp = {};
	bool ring;
	int rv;

	/* No timestamps; comp_vector does not matter to a software CQ. */
	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > SIWL_MAX_CQE)
		return -EINVAL;
	rv = siwl_uring_wanted(udata, &ring);
	if (rv)
		return rv;

	if (atomic_inc_return(&sdev->num_cq) > SIWL_MAX_CQ) {
		atomic_dec(&sdev->num_cq);
		return -ENOMEM;
	}

	spin_lock_init(&cq->lock);
	cq->head = 0;
	cq->count = 0;
	cq->armed = 0;
	cq->overflowed = false;
	cq->uprod = 0;
	if (ring) {
		rv = -EINVAL;
		if (udata->outlen < sizeof(resp))
			goto err;
		rv = siwl_uring_alloc(&cq->ring, siwl_uctx(udata), attr->cqe,
				      sizeof(struct siw_lite_cqe),
				      &resp.mmap_key);
		if (rv)
			goto err;
		cq->num_cqe = cq->ring.num;
		resp.mmap_size = cq->ring.size;
		resp.num_entries = cq->ring.num;
		rv = siwl_respond(udata, &resp, sizeof(resp));
		if (rv)
			goto err_ring;
	} else {
		/* Up to a few MB for the largest CQ: may come from vmalloc. */
		cq->queue = kvcalloc(attr->cqe, sizeof(*cq->queue),
				     GFP_KERNEL_ACCOUNT);
		if (!cq->queue) {
			rv = -ENOMEM;
			goto err;
		}
		cq->num_cqe = attr->cqe;
	}
	base->cqe = cq->num_cqe;
	return 0;

err_ring:
	siwl_uring_free(&cq->ring);
err:
	atomic_dec(&sdev->num_cq);
	return rv;
}

int siwl_destroy_cq(struct ib_cq *base, struct ib_udata *udata)
{
	struct siwl_cq *cq = to_siwl_cq(base);

	/* The core destroys every QP using the CQ first. */
	siwl_uring_free(&cq->ring);
	kvfree(cq->queue);
	cq->queue = NULL;
	atomic_dec(&to_siwl_dev(base->device)->num_cq);
	return 0;
}

static void siwl_cqe_to_wc(const struct siwl_cqe *cqe, struct ib_wc *wc)
{
	/*
	 * uverbs polls into an ib_wc on its stack and copies most of it to
	 * user space: every field must be defined.
	 */
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->byte_len = cqe->byte_len;
	wc->qp = cqe->qp;
	wc->wc_flags = cqe->wc_flags;
	if (cqe->wc_flags & IB_WC_WITH_INVALIDATE)
		wc->ex.invalidate_rkey = cqe->inv_rkey;
	wc->port_num = SIWL_PORT;
}

int siwl_poll_cq(struct ib_cq *base, int num_entries, struct ib_wc *wc)
{
	struct siwl_cq *cq = to_siwl_cq(base);
	unsigned long flags;
	int n;

	/* A ring CQ is polled in user space only. */
	if (cq->ring.hdr)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries && cq->count; n++) {
		siwl_cqe_to_wc(&cq->queue[cq->head], &wc[n]);
		cq->head = siwl_cq_slot(cq, cq->head + 1);
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int siwl_req_notify_cq(struct ib_cq *base, enum ib_cq_notify_flags flags)
{
	struct siwl_cq *cq = to_siwl_cq(base);
	unsigned long irqflags;
	int rv = 0;

	if (cq->ring.hdr)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, irqflags);
	/*
	 * Arming for any completion wins over arming for solicited ones,
	 * whichever came first.
	 */
	if ((flags & IB_CQ_NEXT_COMP) || cq->armed == IB_CQ_NEXT_COMP)
		cq->armed = IB_CQ_NEXT_COMP;
	else if (flags & IB_CQ_SOLICITED)
		cq->armed = IB_CQ_SOLICITED;
	/* Lets the consumer poll again instead of waiting for an event. */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		rv = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return rv;
}
