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

int siwl_cq_push(struct siwl_cq *cq, const struct siwl_cqe *cqe,
		 bool solicited)
{
	bool notify = false;
	bool first_overflow;
	unsigned long flags;

	if (WARN_ON_ONCE(!cqe->qp))
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count == cq->num_cqe) {
		first_overflow = !cq->overflowed;
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first_overflow)
			siwl_cq_error(cq);
		return -ENOSPC;
	}

	cq->queue[siwl_cq_slot(cq, cq->head + cq->count)] = *cqe;
	cq->count++;
	if (siwl_cq_fires(cq->armed, cqe, solicited)) {
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
		   struct ib_udata *udata)
{
	struct siwl_device *sdev = to_siwl_dev(base->device);
	struct siwl_cq *cq = to_siwl_cq(base);

	/* No timestamps; comp_vector does not matter to a software CQ. */
	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > SIWL_MAX_CQE)
		return -EINVAL;
	/* No driver request is defined: whatever is sent must be zero. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	if (atomic_inc_return(&sdev->num_cq) > SIWL_MAX_CQ) {
		atomic_dec(&sdev->num_cq);
		return -ENOMEM;
	}

	/* Up to a few MB for the largest CQ: let it come from vmalloc. */
	cq->queue = kvcalloc(attr->cqe, sizeof(*cq->queue), GFP_KERNEL_ACCOUNT);
	if (!cq->queue) {
		atomic_dec(&sdev->num_cq);
		return -ENOMEM;
	}
	spin_lock_init(&cq->lock);
	cq->num_cqe = attr->cqe;
	cq->head = 0;
	cq->count = 0;
	cq->armed = 0;
	cq->overflowed = false;
	base->cqe = attr->cqe;
	return 0;
}

int siwl_destroy_cq(struct ib_cq *base, struct ib_udata *udata)
{
	struct siwl_cq *cq = to_siwl_cq(base);

	/* The core destroys every QP using the CQ first. */
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
