/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: shared receive queues, kernel queues or rings shared with user
 * space, and the one call the receive path makes into them.
 */
#ifndef SIWL_SRQ_H
#define SIWL_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "uring.h"
#include "wqe.h"

struct siwl_srq {
	struct ib_srq base;
	spinlock_t lock;	/* protects all of the fields below */
	struct siwl_rqe *queue;	/* ring of max_wr entries */
	u32 max_wr;
	u32 max_sge;
	u32 head;		/* next to consume */
	u32 count;		/* posted, not consumed */
	/*
	 * 0: disarmed; else IB_EVENT_SRQ_LIMIT_REACHED is raised when
	 * count drops below it, which disarms it again.
	 */
	u32 limit;

	/* Shared ring (ring.hdr != NULL): @head runs freely, @queue unused. */
	struct siwl_uring ring;
};

static inline struct siwl_srq *to_siwl_srq(struct ib_srq *srq)
{
	return container_of(srq, struct siwl_srq, base);
}

/*
 * Takes the next receive WQE of @srq; -ENOENT when empty, -EPROTO when a
 * user ring holds something that is not a WQE (*@rqe then carries the
 * wr_id, if there was one). Any context.
 */
int siwl_srq_get(struct siwl_srq *srq, struct siwl_rqe *rqe);

int siwl_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata);
int siwl_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int siwl_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
int siwl_destroy_srq(struct ib_srq *srq, struct ib_udata *udata);
int siwl_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

#endif /* SIWL_SRQ_H */
