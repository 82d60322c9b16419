// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: shared receive queues.
 *
 * An SRQ is a ring of receive WQEs in kernel memory. Consumers post from
 * process context (uverbs or a kernel ULP); the data path takes WQEs from
 * softirq context, hence the irqsave locking. Work requests are checked
 * for shape here and for memory access only when a message lands in them,
 * as placement is where the rights of the moment apply.
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "qp_engine.h"
#include "siw_lite.h"
#include "srq.h"
#include "uring.h"

/* Ring position @pos (less than twice the capacity) to a slot. */
static u32 siwl_srq_slot(const struct siwl_srq *srq, u32 pos)
{
	return pos < srq->max_wr ? pos : pos - srq->max_wr;
}

static void siwl_srq_limit_reached(struct siwl_srq *srq)
{
	struct ib_event ev = {
		.device = srq->base.device,
		.element.srq = &srq->base,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->base.event_handler)
		srq->base.event_handler(&ev, srq->base.srq_context);
}

/* The user ring flavour of siwl_srq_get(), under the SRQ lock. */
static int siwl_srq_ring_get(struct siwl_srq *srq, struct siwl_rqe *rqe,
			     bool *low)
{
	struct siw_lite_rqe u;
	u32 prod, left;

	/* Pairs with the provider's release of prod after the WQEs. */
	prod = smp_load_acquire(&srq->ring.hdr->prod);
	if (prod == srq->head)
		return -ENOENT;
	left = prod - srq->head;
	if (left > srq->max_wr) {
		memset(rqe, 0, sizeof(*rqe));
		return -EPROTO;
	}
	memcpy(&u, siwl_uring_entry(&srq->ring, srq->head), sizeof(u));
	srq->head++;
	/* The slot was copied: the provider may reuse it. */
	smp_store_release(&srq->ring.hdr->cons, srq->head);
	if (srq->limit && left - 1 < srq->limit) {
		srq->limit = 0;
		*low = true;
	}
	return siwl_urqe_to_rqe(&u, srq->max_sge, rqe) ? 0 : -EPROTO;
}

int siwl_srq_get(struct siwl_srq *srq, struct siwl_rqe *rqe)
{
	bool low = false;
	unsigned long flags;
	int rv;

	if (srq->ring.hdr) {
		spin_lock_irqsave(&srq->lock, flags);
		rv = siwl_srq_ring_get(srq, rqe, &low);
		spin_unlock_irqrestore(&srq->lock, flags);
		if (low)
			siwl_srq_limit_reached(srq);
		return rv;
	}

	spin_lock_irqsave(&srq->lock, flags);
	if (!srq->count) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return -ENOENT;
	}
	*rqe = srq->queue[srq->head];
	srq->head = siwl_srq_slot(srq, srq->head + 1);
	srq->count--;
	/* The limit is one-shot: the consumer re-arms it with modify_srq. */
	if (srq->limit && srq->count < srq->limit) {
		srq->limit = 0;
		low = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	/* Handlers may call back into the SRQ (post, modify). */
	if (low)
		siwl_srq_limit_reached(srq);
	return 0;
}

int siwl_post_srq_recv(struct ib_srq *base, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct siwl_srq *srq = to_siwl_srq(base);
	struct siwl_rqe *rqe;
	unsigned long flags;
	int rv = 0;

	/* A ring SRQ is posted to in user space only. */
	if (srq->ring.hdr) {
		*bad_wr = wr;
		return wr ? -EINVAL : 0;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		if (srq->count == srq->max_wr) {
			rv = -ENOMEM;
			break;
		}
		/* The slot stays free until count covers it. */
		rqe = &srq->queue[siwl_srq_slot(srq, srq->head + srq->count)];
		rv = siwl_build_rqe(srq->max_sge, wr, rqe);
		if (rv)
			break;
		srq->count++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	/* Everything before @wr was posted and stays posted. */
	if (rv)
		*bad_wr = wr;
	return rv;
}

int siwl_create_srq(struct ib_srq *base, struct ib_srq_init_attr *init,
		    struct ib_udata *udata)
{
	struct siwl_device *sdev = to_siwl_dev(base->device);
	struct siwl_srq *srq = to_siwl_srq(base);
	struct ib_srq_attr *attr = &init->attr;
	struct siw_lite_uresp_create_srq resp = {};
	bool ring;
	int rv;

	/* Neither XRC nor tag matching exist on iWARP. */
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > SIWL_MAX_SRQ_WR ||
	    attr->max_sge > SIWL_MAX_SGE)
		return -EINVAL;
	rv = siwl_uring_wanted(udata, &ring);
	if (rv)
		return rv;
	if (ring && udata->outlen < sizeof(resp))
		return -EINVAL;

	if (atomic_inc_return(&sdev->num_srq) > SIWL_MAX_SRQ) {
		atomic_dec(&sdev->num_srq);
		return -ENOMEM;
	}

	spin_lock_init(&srq->lock);
	srq->max_sge = attr->max_sge;
	srq->head = 0;
	srq->count = 0;
	/* The verbs ignore srq_limit at creation; only modify arms it. */
	srq->limit = 0;
	if (ring) {
		rv = siwl_uring_alloc(&srq->ring, siwl_uctx(udata),
				      attr->max_wr, sizeof(struct siw_lite_rqe),
				      &resp.mmap_key);
		if (rv)
			goto err;
		srq->max_wr = srq->ring.num;
		resp.mmap_size = srq->ring.size;
		resp.num_entries = srq->ring.num;
		rv = siwl_respond(udata, &resp, sizeof(resp));
		if (rv) {
			siwl_uring_free(&srq->ring);
			goto err;
		}
		attr->max_wr = srq->max_wr;
		return 0;
	}
	srq->queue = kvcalloc(attr->max_wr, sizeof(*srq->queue),
			      GFP_KERNEL_ACCOUNT);
	if (!srq->queue) {
		rv = -ENOMEM;
		goto err;
	}
	srq->max_wr = attr->max_wr;
	return 0;

err:
	atomic_dec(&sdev->num_srq);
	return rv;
}

int siwl_modify_srq(struct ib_srq *base, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct siwl_srq *srq = to_siwl_srq(base);
	unsigned long flags;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	/* uverbs passes the user's mask through unchecked. */
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;

	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->max_wr)
			return -EINVAL;
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

int siwl_query_srq(struct ib_srq *base, struct ib_srq_attr *attr)
{
	struct siwl_srq *srq = to_siwl_srq(base);
	unsigned long flags;

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	spin_lock_irqsave(&srq->lock, flags);
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int siwl_destroy_srq(struct ib_srq *base, struct ib_udata *udata)
{
	struct siwl_srq *srq = to_siwl_srq(base);

	/* The core destroys every QP using the SRQ first. */
	siwl_uring_free(&srq->ring);
	kvfree(srq->queue);
	srq->queue = NULL;
	atomic_dec(&to_siwl_dev(base->device)->num_srq);
	return 0;
}
