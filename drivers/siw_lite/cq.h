/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: completion queues. A kernel CQ (or a user CQ of a provider
 * that asks for no ring) is a ring of struct siwl_cqe in kernel memory,
 * polled with poll_cq; a user CQ with a ring gets its completions written
 * straight into memory it polls itself (struct siw_lite_cqe).
 */
#ifndef SIWL_CQ_H
#define SIWL_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "compat.h"

#include "uring.h"

/* One work completion as the data path produces it. */
struct siwl_cqe {
	u64 wr_id;
	enum ib_wc_opcode opcode;
	enum ib_wc_status status;
	u32 byte_len;
	u32 wc_flags;		/* IB_WC_WITH_INVALIDATE */
	u32 inv_rkey;		/* with IB_WC_WITH_INVALIDATE */
	struct ib_qp *qp;	/* never NULL: uverbs reads qp->qp_num */
};

struct siwl_cq {
	struct ib_cq base;
	/* Protects the ring, @armed and @overflowed; taken with irqsave. */
	spinlock_t lock;
	struct siwl_cqe *queue;	/* ring of num_cqe entries */
	u32 num_cqe;		/* capacity */
	u32 head;		/* next to poll */
	u32 count;		/* entries present */
	/* IB_CQ_NEXT_COMP or IB_CQ_SOLICITED when armed, else 0. */
	u32 armed;
	bool overflowed;	/* an IB_EVENT_CQ_ERR was raised */

	/* Shared ring (ring.hdr != NULL): @queue, @head, @count unused. */
	struct siwl_uring ring;
	u32 uprod;		/* our producer index; the shared one is a copy */
};

static inline struct siwl_cq *to_siwl_cq(struct ib_cq *cq)
{
	return container_of(cq, struct siwl_cq, base);
}

/*
 * Adds a completion; calls the CQ's completion handler when armed for it:
 * any completion for IB_CQ_NEXT_COMP; for IB_CQ_SOLICITED, one with
 * @solicited set or an error status. On overflow the completion is
 * dropped, IB_EVENT_CQ_ERR is raised once and -ENOSPC returned: the caller
 * moves its QP to ERROR. Any context; handlers run without our lock held.
 */
int siwl_cq_push(struct siwl_cq *cq, const struct siwl_cqe *cqe,
		 bool solicited);

/*
 * Removes every completion of @qp still queued on @cq. A polled work
 * completion points at its QP, so destroy_qp must call this for its send
 * and receive CQs once the QP can no longer push to them, before the QP is
 * freed. Returns how many were removed. Any context.
 */
u32 siwl_cq_clean(struct siwl_cq *cq, const struct ib_qp *qp);

int siwl_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		   struct siwl_create_cq_arg *arg);
int siwl_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);
int siwl_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
int siwl_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);

#endif /* SIWL_CQ_H */
