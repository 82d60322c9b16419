// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: queue pairs. Verbs (create, destroy, modify, query, post),
 * the iWARP QP state machine as the verbs drive it (RFC 5040 section 6,
 * RDMAC verbs), the device QP table, and the glue the connection manager
 * and iw_cm call.
 *
 * Layer: verbs, below the connection manager and above the data path
 * (tx.c, rx.c) and the QP engine (qp_engine.c), which owns error states,
 * completions and flushing.
 *
 * Locking and the contexts everything runs in: Documentation/siw_lite.rst,
 * "Locking and contexts" (lock order: modify_mutex, tx_mutex, rx_lock,
 * lock, rq_lock, then the CQ, SRQ and MR locks).
 */

#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "cq.h"
#include "mem.h"
#include "qp.h"
#include "qp_engine.h"
#include "qp_uring.h"
#include "rx.h"
#include "srq.h"
#include "trace.h"
#include "tx.h"
#include "zcopy.h"

void siwl_qp_table_init(struct siwl_device *sdev)
{
	xa_init_flags(&sdev->qp_table, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sdev->qp_next = 1;
	atomic_set(&sdev->num_qp, 0);
}

void siwl_qp_table_fini(struct siwl_device *sdev)
{
	WARN_ON(!xa_empty(&sdev->qp_table));
	WARN_ON(atomic_read(&sdev->num_qp));
	xa_destroy(&sdev->qp_table);
}

/* ---- references -------------------------------------------------------- */

static void siwl_qp_release(struct kref *ref)
{
	struct siwl_qp *qp = container_of(ref, struct siwl_qp, ref);

	/* The memory belongs to the ib core, which frees it after destroy. */
	complete(&qp->freed);
}

void siwl_qp_get(struct siwl_qp *qp)
{
	kref_get(&qp->ref);
}

void siwl_qp_put(struct siwl_qp *qp)
{
	kref_put(&qp->ref, siwl_qp_release);
}

struct siwl_qp *siwl_qp_from_id(struct siwl_device *sdev, u32 qpn)
{
	struct siwl_qp *qp;
	unsigned long flags;

	/*
	 * Under the xarray lock rather than RCU: destroy_qp() erases the
	 * entry under the same lock before it drops the initial reference,
	 * so a QP found here still has that reference and cannot be freed.
	 */
	xa_lock_irqsave(&sdev->qp_table, flags);
	qp = xa_load(&sdev->qp_table, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&sdev->qp_table, flags);
	return qp;
}

/* The next QP of @sdev from *@idx on, with a reference, or NULL. */
static struct siwl_qp *siwl_qp_next(struct siwl_device *sdev,
				    unsigned long *idx)
{
	struct siwl_qp *qp;
	unsigned long flags;

	/* As in siwl_qp_from_id(): a QP in the table is not freed yet. */
	xa_lock_irqsave(&sdev->qp_table, flags);
	xa_for_each_start(&sdev->qp_table, *idx, qp, *idx) {
		if (kref_get_unless_zero(&qp->ref))
			break;
	}
	xa_unlock_irqrestore(&sdev->qp_table, flags);
	return qp;
}

/* Is @sk's local address @addr? IPv4 may be mapped on an IPv6 socket. */
static bool siwl_sk_local_is(const struct sock *sk,
			     const struct sockaddr_storage *addr)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;

	if (addr->ss_family == AF_INET) {
		if (sk->sk_family == AF_INET)
			return sk->sk_rcv_saddr == sin->sin_addr.s_addr;
#if IS_ENABLED(CONFIG_IPV6)
		return ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr) &&
		       sk->sk_v6_rcv_saddr.s6_addr32[3] == sin->sin_addr.s_addr;
#endif
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (addr->ss_family == AF_INET6 && sk->sk_family == AF_INET6)
		return ipv6_addr_equal(&sk->sk_v6_rcv_saddr, &sin6->sin6_addr);
#endif
	return false;
}

void siwl_qp_path_lost(struct siwl_device *sdev,
		       const struct sockaddr_storage *addr)
{
	unsigned long idx, flags;
	struct siwl_qp *qp;

	for (idx = 0; (qp = siwl_qp_next(sdev, &idx)); idx++) {
		spin_lock_irqsave(&qp->lock, flags);
		/* qp->sock is set while the QP is bound to a connection. */
		if (qp->sock && (!addr || siwl_sk_local_is(qp->sock->sk, addr)))
			siwl_qp_error_locked(qp, true);
		spin_unlock_irqrestore(&qp->lock, flags);
		siwl_qp_put(qp);
	}
}

void siwl_iw_add_ref(struct ib_qp *ibqp)
{
	siwl_qp_get(to_siwl_qp(ibqp));
}

void siwl_iw_rem_ref(struct ib_qp *ibqp)
{
	siwl_qp_put(to_siwl_qp(ibqp));
}

/*
 * iw_cm looks a QP up by the number its consumer gives, in that
 * consumer's context (rdma_connect(), rdma_accept()), and follows a
 * successful lookup with iw_add_ref(): the reference taken here for a
 * safe lookup is not passed on, and the QP cannot go away in between
 * because the consumer owns it.
 *
 * For a user, that number comes straight from userspace (ucma), so a
 * user QP is found only for the process that created it: anyone else
 * could otherwise bind it to a TCP stream of their choosing (issue 17,
 * finding 2). Threads of the owner share its thread group; a child
 * after fork() does not own its parent's QPs. A refusal looks exactly
 * like an unknown number.
 */
struct ib_qp *siwl_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct siwl_qp *qp;
	bool mine;

	if (qpn <= 0)
		return NULL;
	qp = siwl_qp_from_id(to_siwl_dev(ibdev), qpn);
	if (!qp)
		return NULL;
	mine = !qp->owner || qp->owner == task_tgid(current);
	siwl_qp_put(qp);
	return mine ? &qp->base : NULL;
}

/* ---- verbs: create / destroy ------------------------------------------- */

static int siwl_check_caps(struct ib_qp_init_attr *attr)
{
	struct ib_qp_cap *cap = &attr->cap;

	if (cap->max_send_wr > SIWL_MAX_QP_WR ||
	    cap->max_send_sge > SIWL_MAX_SGE ||
	    cap->max_inline_data > SIWL_MAX_INLINE)
		return -EINVAL;
	if (!attr->srq && (cap->max_recv_wr > SIWL_MAX_QP_WR ||
			   cap->max_recv_sge > SIWL_MAX_SGE))
		return -EINVAL;
	return 0;
}

/*
 * Initializes the locks, work items, state and queue geometry of a new
 * QP from @attr. Allocates nothing and cannot fail.
 */
static void siwl_qp_init(struct siwl_qp *qp, struct siwl_device *sdev,
			 struct ib_qp_init_attr *attr)
{
	qp->sdev = sdev;
	RCU_INIT_POINTER(qp->stat_set, &sdev->dev_set);
	qp->srq = attr->srq ? to_siwl_srq(attr->srq) : NULL;
	kref_init(&qp->ref);
	init_completion(&qp->freed);
	mutex_init(&qp->modify_mutex);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->rq_lock);
	spin_lock_init(&qp->rx_lock);
	mutex_init(&qp->tx_mutex);
	INIT_WORK(&qp->tx_work, siwl_qp_tx_work);
	INIT_WORK(&qp->rx_work, siwl_qp_rx_work);
	INIT_DELAYED_WORK(&qp->rqe_work, siwl_qp_rqe_work);
	INIT_WORK(&qp->event_work, siwl_qp_event_work);
	INIT_DELAYED_WORK(&qp->term_work, siwl_qp_term_work);

	qp->state = SIWL_QPS_IDLE;
	qp->ib_idle = IB_QPS_RESET;
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	/*
	 * Ring positions run freely through 2^32 and index with "% size",
	 * which stays continuous across the wrap only for powers of two.
	 */
	qp->sq_size = roundup_pow_of_two(max_t(u32, attr->cap.max_send_wr, 1));
	/* Every WQE has room for the maximum: grant it, whatever was asked. */
	qp->sq_lim.max_sge = SIWL_MAX_SGE;
	qp->sq_lim.max_inline = SIWL_MAX_INLINE;
	if (!qp->srq) {
		qp->rq_size = roundup_pow_of_two(max_t(u32,
						       attr->cap.max_recv_wr,
						       1));
		qp->max_recv_sge = SIWL_MAX_SGE;
	}
}

/*
 * Allocates the SQ, the RQ (without an SRQ), the ORQ and the IRQ. On
 * -ENOMEM what was allocated stays in @qp: siwl_qp_free_queues() frees it.
 */
static int siwl_qp_alloc_queues(struct siwl_qp *qp)
{
	qp->sq = kvcalloc(qp->sq_size, sizeof(*qp->sq), GFP_KERNEL);
	if (!qp->sq)
		return -ENOMEM;
	if (qp->rq_size) {
		qp->rq = kvcalloc(qp->rq_size, sizeof(*qp->rq), GFP_KERNEL);
		if (!qp->rq)
			return -ENOMEM;
	}
	/* Sized for the device limits, so any negotiated IRD/ORD fits. */
	qp->orq = kcalloc(SIWL_MAX_ORD, sizeof(*qp->orq), GFP_KERNEL);
	qp->irq = kcalloc(SIWL_MAX_IRD, sizeof(*qp->irq), GFP_KERNEL);
	if (!qp->orq || !qp->irq)
		return -ENOMEM;
	return 0;
}

/* Frees what siwl_qp_alloc_queues() allocated, in reverse order. */
static void siwl_qp_free_queues(struct siwl_qp *qp)
{
	kfree(qp->irq);
	kfree(qp->orq);
	kvfree(qp->rq);
	kvfree(qp->sq);
}

/* Tells the consumer what it was granted. */
static void siwl_qp_report_caps(const struct siwl_qp *qp,
				struct ib_qp_init_attr *attr)
{
	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_send_sge = qp->sq_lim.max_sge;
	attr->cap.max_inline_data = qp->sq_lim.max_inline;
	if (!qp->srq) {
		attr->cap.max_recv_wr = qp->rq_size;
		attr->cap.max_recv_sge = qp->max_recv_sge;
	}
}

int siwl_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata)
{
	struct siwl_device *sdev = to_siwl_dev(ibqp->device);
	struct siwl_qp *qp = to_siwl_qp(ibqp);
	u32 qpn;
	int rv;

	if (attr->qp_type != IB_QPT_RC || attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	rv = siwl_check_caps(attr);
	if (rv)
		return rv;
	if (atomic_inc_return(&sdev->num_qp) > SIWL_MAX_QP) {
		rv = -ENOMEM;
		goto err_count;
	}

	siwl_qp_init(qp, sdev, attr);
	rv = siwl_qp_alloc_queues(qp);
	if (rv)
		goto err_free;

	/*
	 * The number is reserved now (a NULL entry, which lookups do not
	 * find) and the QP published only once nothing can fail: the rings
	 * and the response to the user may, and a QP that someone found by
	 * number and holds must not then be freed under them (issue 17,
	 * finding 2).
	 */
	rv = xa_alloc_cyclic_irq(&sdev->qp_table, &qpn, NULL,
				 XA_LIMIT(1, (1U << 24) - 1), &sdev->qp_next,
				 GFP_KERNEL);
	if (rv < 0)
		goto err_free;
	ibqp->qp_num = qpn;

	if (udata) {
		rv = siwl_qp_uring_create(qp, udata);
		if (rv) {
			xa_erase_irq(&sdev->qp_table, qpn);
			goto err_free;
		}
		qp->owner = get_pid(task_tgid(current));
	}
	/* Into the reserved slot: no allocation, cannot fail. */
	xa_store_irq(&sdev->qp_table, qpn, qp, GFP_KERNEL);

	siwl_qp_report_caps(qp, attr);
	return 0;

err_free:
	siwl_qp_free_queues(qp);
err_count:
	atomic_dec(&sdev->num_qp);
	return rv;
}

int siwl_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);
	struct siwl_device *sdev = qp->sdev;
	struct siwl_cep *cep;
	unsigned long flags;

	mutex_lock(&qp->modify_mutex);
	spin_lock_irqsave(&qp->lock, flags);
	/*
	 * Outstanding WRs are dropped, not completed: the CQ must not hold
	 * completions that point at a QP about to be freed.
	 */
	qp->discard = true;
	siwl_qp_error_locked(qp, false);
	cep = qp->cep;
	qp->cep = NULL;
	spin_unlock_irqrestore(&qp->lock, flags);
	siwl_qp_sync(qp);
	if (cep) {
		siwl_llp_close(cep, true);
		siwl_llp_cep_put(cep);
	}
	mutex_unlock(&qp->modify_mutex);

	xa_erase_irq(&sdev->qp_table, ibqp->qp_num);

	/*
	 * iw_cm and the CEP hold references until the connection is gone
	 * (siwl_qp_llp_down()); the ib core frees the QP when we return.
	 */
	siwl_qp_put(qp);
	wait_for_completion(&qp->freed);
	/* Zero-copy buffers TCP still holds no longer kick our work. */
	siwl_zc_detach(qp);
	/* First: it may queue tx_work. */
	cancel_delayed_work_sync(&qp->term_work);
	cancel_work_sync(&qp->tx_work);
	cancel_work_sync(&qp->rx_work);
	cancel_delayed_work_sync(&qp->rqe_work);
	cancel_work_sync(&qp->event_work);

	spin_lock_bh(&qp->rx_lock);
	siwl_rx_release(qp);
	spin_unlock_bh(&qp->rx_lock);

	/*
	 * Nothing pushes completions of this QP any more. Those still
	 * queued point at it (wc->qp): they go with it, or the next poll
	 * reads a freed QP (issue 17, finding 1). Rule: a kernel CQ entry
	 * lives no longer than the QP it names.
	 */
	siwl_cq_clean(to_siwl_cq(ibqp->send_cq), ibqp);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		siwl_cq_clean(to_siwl_cq(ibqp->recv_cq), ibqp);

	siwl_qp_uring_destroy(qp);
	siwl_tx_release_pages(qp);
	siwl_zc_release(qp);
	kfree(qp->tx.bvec);
	kvfree(qp->tx.copy_buf);
	kfree(qp->irq);
	kfree(qp->orq);
	kvfree(qp->rq);
	kvfree(qp->sq);
	put_pid(qp->owner);
	atomic_dec(&sdev->num_qp);
	return 0;
}

/* ---- verbs: modify / query --------------------------------------------- */

/* Drops every queued WR without completion (IB modify to RESET). */
static void siwl_qp_reset_queues(struct siwl_qp *qp)
{
	unsigned long flags;

	spin_lock_bh(&qp->rx_lock);
	spin_lock_irqsave(&qp->lock, flags);
	qp->sq_tail = qp->sq_head;
	qp->sq_next = qp->sq_head;
	qp->orq_count = 0;
	qp->irq_count = 0;
	spin_unlock_irqrestore(&qp->lock, flags);
	spin_lock_irqsave(&qp->rq_lock, flags);
	qp->rq_tail = qp->rq_head;
	qp->rx_rqe_valid = false;
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	spin_unlock_bh(&qp->rx_lock);
	siwl_uring_reset(qp);
}

/*
 * Applies a state change; returns what the caller has to do once the lock
 * is dropped. RESET/INIT/RTR only move within IDLE; RTS is reached through
 * siwl_qp_llp_up() alone, since iWARP has no RTS without a connection.
 */
enum siwl_after { SIWL_AFTER_NONE, SIWL_AFTER_KICK, SIWL_AFTER_ERROR,
		  SIWL_AFTER_RESET };

static int siwl_qp_new_state(struct siwl_qp *qp, enum ib_qp_state new,
			     enum siwl_after *after)
{
	enum siwl_qp_state s = qp->state;

	lockdep_assert_held(&qp->lock);
	*after = SIWL_AFTER_NONE;
	switch (new) {
	case IB_QPS_RESET:
		if (s == SIWL_QPS_IDLE ||
		    (s == SIWL_QPS_ERROR && !qp->cep && !qp->tx_enabled)) {
			*after = SIWL_AFTER_RESET;
			return 0;
		}
		return s == SIWL_QPS_ERROR ? -EBUSY : -EINVAL;
	case IB_QPS_INIT:
		if (s != SIWL_QPS_IDLE || qp->ib_idle == IB_QPS_RTR)
			return -EINVAL;
		qp->ib_idle = IB_QPS_INIT;
		return 0;
	case IB_QPS_RTR:
		if (s != SIWL_QPS_IDLE || qp->ib_idle == IB_QPS_RESET)
			return -EINVAL;
		qp->ib_idle = IB_QPS_RTR;
		return 0;
	case IB_QPS_RTS:
		return s == SIWL_QPS_RTS ? 0 : -EINVAL;
	case IB_QPS_SQD:
		/*
		 * Closing, or closed already by the peer or an error: nothing
		 * is left to drain. librdmacm's rdma_disconnect() asks for SQD
		 * on iWARP and fails if we refuse, which an application that
		 * disconnects after its peer did would see; the in-tree siw
		 * accepts it too.
		 */
		if (s == SIWL_QPS_CLOSING || s == SIWL_QPS_TERMINATE ||
		    s == SIWL_QPS_ERROR)
			return 0;
		if (s != SIWL_QPS_RTS)
			return -EINVAL;
		/* Graceful: the work item closes once the SQ is drained. */
		qp->state = SIWL_QPS_CLOSING;
		*after = SIWL_AFTER_KICK;
		return 0;
	case IB_QPS_SQE:
		if (s == SIWL_QPS_TERMINATE)
			return 0;
		if (s != SIWL_QPS_RTS && s != SIWL_QPS_CLOSING)
			return -EINVAL;
		siwl_qp_fail_locked(qp, &siwl_term_local, NULL, 0, 0);
		/* The consumer asked for it; no asynchronous error event. */
		qp->event_pending = false;
		return 0;
	case IB_QPS_ERR:
		siwl_qp_error_locked(qp, true);
		*after = SIWL_AFTER_ERROR;
		return 0;
	default:
		return -EINVAL;
	}
}

int siwl_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);
	enum siwl_after after = SIWL_AFTER_NONE;
	unsigned long flags;
	int rv = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != SIWL_PORT)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SIWL_MAX_ORD)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SIWL_MAX_IRD)
		return -EINVAL;

	mutex_lock(&qp->modify_mutex);
	spin_lock_irqsave(&qp->lock, flags);
	if ((mask & (IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC)) &&
	    qp->state > SIWL_QPS_RTS) {
		rv = -EINVAL;
		goto out_unlock;
	}
	if (mask & IB_QP_STATE) {
		rv = siwl_qp_new_state(qp, attr->qp_state, &after);
		if (rv)
			goto out_unlock;
	}
	/*
	 * IRD/ORD of a live connection were negotiated by MPA (RFC 6581);
	 * the consumer's values apply to the next connection and to query.
	 */
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr_ord = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->attr_ird = attr->max_dest_rd_atomic;
	/*
	 * Recorded and reported but not enforced: iWARP rights live in the
	 * STags, and rdma_cm gives an active side's QP no access flags.
	 */
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);

	switch (after) {
	case SIWL_AFTER_KICK:
		siwl_qp_kick(qp);
		break;
	case SIWL_AFTER_ERROR:
		siwl_qp_sync(qp);
		break;
	case SIWL_AFTER_RESET:
		siwl_qp_sync(qp);
		siwl_qp_reset_queues(qp);
		spin_lock_irqsave(&qp->lock, flags);
		qp->state = SIWL_QPS_IDLE;
		qp->ib_idle = IB_QPS_RESET;
		qp->close_pending = false;
		qp->close_abortive = false;
		qp->close_level = 0;
		qp->event_pending = false;
		qp->term_valid = false;
		spin_unlock_irqrestore(&qp->lock, flags);
		break;
	default:
		break;
	}
	mutex_unlock(&qp->modify_mutex);
	return rv;
}

static enum ib_qp_state siwl_ib_state(struct siwl_qp *qp)
{
	switch (qp->state) {
	case SIWL_QPS_IDLE:
		return qp->ib_idle;
	case SIWL_QPS_RTS:
		return IB_QPS_RTS;
	case SIWL_QPS_CLOSING:
		return IB_QPS_SQD;
	case SIWL_QPS_TERMINATE:
		return IB_QPS_SQE;
	default:
		return IB_QPS_ERR;
	}
}

int siwl_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));

	spin_lock_irqsave(&qp->lock, flags);
	attr->qp_state = siwl_ib_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->cep ? qp->ord : qp->attr_ord;
	attr->max_dest_rd_atomic = qp->cep ? qp->ird : qp->attr_ird;
	attr->sq_draining = qp->state == SIWL_QPS_CLOSING &&
			    qp->sq_tail != qp->sq_head;
	spin_unlock_irqrestore(&qp->lock, flags);

	attr->path_mtu = IB_MTU_1024;
	attr->port_num = SIWL_PORT;
	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_send_sge = qp->sq_lim.max_sge;
	attr->cap.max_recv_wr = qp->rq_size;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->sq_lim.max_inline;

	init_attr->event_handler = ibqp->event_handler;
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = attr->cap;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR :
					       IB_SIGNAL_REQ_WR;
	init_attr->port_num = SIWL_PORT;
	return 0;
}

/* ---- verbs: posting ---------------------------------------------------- */

#define SIWL_SEND_FLAGS	(IB_SEND_SIGNALED | IB_SEND_SOLICITED | \
			 IB_SEND_FENCE | IB_SEND_INLINE)

/*
 * Inline data is copied now, so the consumer may reuse the buffer as soon
 * as the post returns. Kernel SGE addresses are kernel virtual (software
 * device); a user QP posts from its own process through uverbs, where the
 * addresses are its virtual addresses.
 */
static int siwl_copy_inline(struct siwl_qp *qp, struct siwl_sqe *sqe,
			    const struct ib_send_wr *wr)
{
	bool user = !rdma_is_kernel_res(&qp->base.res);
	u32 off = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;
		u64 addr = wr->sg_list[i].addr;

		if (!len)
			continue;
		if (user) {
			if (copy_from_user(sqe->inline_data + off,
					   u64_to_user_ptr(addr), len))
				return -EFAULT;
		} else {
			memcpy(sqe->inline_data + off,
			       (void *)(uintptr_t)addr, len);
		}
		off += len;
	}
	sqe->num_sge = 0;
	return 0;
}

/* Decodes @wr's opcode and its operands into @sqe, in wqe.c's terms. */
static int siwl_wr_decode(const struct ib_send_wr *wr, struct siwl_sqe *sqe,
			  enum siwl_sq_kind *kind)
{
	switch (wr->opcode) {
	case IB_WR_SEND:
		*kind = SIWL_SQK_SEND;
		break;
	case IB_WR_SEND_WITH_INV:
		*kind = SIWL_SQK_SEND_INV;
		sqe->inv_key = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE:
		*kind = SIWL_SQK_WRITE;
		break;
	case IB_WR_RDMA_READ:
		*kind = SIWL_SQK_READ;
		break;
	case IB_WR_RDMA_READ_WITH_INV:
		/* inv_key: the sink SGE's lkey, once its count is checked */
		*kind = SIWL_SQK_READ_INV;
		break;
	case IB_WR_REG_MR:
		*kind = SIWL_SQK_REG_MR;
		sqe->reg_mr = reg_wr(wr)->mr;
		sqe->reg_key = reg_wr(wr)->key;
		sqe->reg_access = reg_wr(wr)->access;
		return sqe->reg_mr ? 0 : -EINVAL;
	case IB_WR_LOCAL_INV:
		*kind = SIWL_SQK_LOCAL_INV;
		sqe->inv_key = wr->ex.invalidate_rkey;
		break;
	default:
		return -EINVAL;
	}
	if (*kind == SIWL_SQK_WRITE || *kind == SIWL_SQK_READ ||
	    *kind == SIWL_SQK_READ_INV) {
		sqe->rkey = rdma_wr(wr)->rkey;
		sqe->raddr = rdma_wr(wr)->remote_addr;
	}
	return 0;
}

static int siwl_build_sqe(struct siwl_qp *qp, const struct ib_send_wr *wr,
			  struct siwl_sqe *sqe)
{
	bool inline_data = wr->send_flags & IB_SEND_INLINE;
	enum siwl_sq_kind kind;
	u64 len;
	int rv;

	memset(sqe, 0, sizeof(*sqe));
	if (wr->send_flags & ~SIWL_SEND_FLAGS || wr->num_sge < 0)
		return -EINVAL;
	sqe->wr_id = wr->wr_id;
	sqe->opcode = wr->opcode;
	sqe->flags = siwl_wqe_flags(wr->send_flags & IB_SEND_SIGNALED ||
				    qp->sig_all,
				    wr->send_flags & IB_SEND_SOLICITED,
				    wr->send_flags & IB_SEND_FENCE);

	rv = siwl_wr_decode(wr, sqe, &kind);
	if (!rv)
		rv = siwl_sqe_check_shape(&qp->sq_lim, kind, inline_data,
					  wr->num_sge);
	if (rv || (wr->num_sge && !wr->sg_list))
		return rv ?: -EINVAL;
	len = siwl_copy_sges(sqe->sge, wr->sg_list, wr->num_sge);
	rv = siwl_sqe_check_len(&qp->sq_lim, inline_data, len);
	if (rv)
		return rv;
	sqe->num_sge = wr->num_sge;
	sqe->total_len = len;
	/*
	 * What dies with a Read with Invalidate is its Data Sink STag, the
	 * sink SGE's lkey. rdma_rw (6.1) fills ex.invalidate_rkey before it
	 * bumps the MR's key, so that field may be stale.
	 */
	if (kind == SIWL_SQK_READ_INV)
		sqe->inv_key = wr->sg_list[0].lkey;
	if (inline_data) {
		sqe->flags |= SIWL_WQE_INLINE;
		return siwl_copy_inline(qp, sqe, wr);
	}
	return 0;
}

/*
 * Queues one built WQE under @lock, or in ERROR on an empty SQ completes
 * it at once. Sets *@kick when the work item must run, also when it then
 * fails; returns the WR's error.
 */
static int siwl_sq_post_one(struct siwl_qp *qp, struct siwl_sqe *sqe,
			    bool *kick)
{
	unsigned long flags;
	int rv = 0;

	spin_lock_irqsave(&qp->lock, flags);
	switch (qp->state) {
	case SIWL_QPS_IDLE:
		/* RDMAC verbs: queued in Idle, processed from RTS. */
		if (qp->ib_idle == IB_QPS_RESET)
			rv = -EINVAL;
		break;
	case SIWL_QPS_RTS:
		break;
	case SIWL_QPS_ERROR:
		/*
		 * Completed at once, behind whatever the flush has
		 * not reached yet: ib_drain_sq() relies on the order.
		 */
		sqe->status = IB_WC_WR_FLUSH_ERR;
		if (qp->sq_tail == qp->sq_head) {
			siwl_sq_push(qp, sqe);
			spin_unlock_irqrestore(&qp->lock, flags);
			return 0;
		}
		sqe->flags |= SIWL_WQE_DONE;
		*kick = true;
		break;
	default:
		rv = -ENOTCONN;
		break;
	}
	if (!rv && qp->sq_head - qp->sq_tail >= qp->sq_size)
		rv = -ENOMEM;
	if (rv) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return rv;
	}
	*siwl_sq_slot(qp, qp->sq_head) = *sqe;
	qp->sq_head++;
	trace_wqe_post(qp->base.qp_num, true, sqe->wr_id, sqe->opcode,
		       sqe->total_len);
	if (qp->state == SIWL_QPS_ERROR)
		siwl_qp_reap_locked(qp);
	else if (qp->tx_enabled)
		*kick = true;
	spin_unlock_irqrestore(&qp->lock, flags);
	return 0;
}

int siwl_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);
	struct siwl_sqe sqe;
	bool kick = false;
	int rv = 0;

	if (qp->usq.hdr) {
		/* WRs go through the ring; a post without any is a doorbell. */
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		siwl_usq_doorbell(qp);
		return 0;
	}
	for (; wr; wr = wr->next) {
		/* Built outside the lock: inline data may come from user. */
		rv = siwl_build_sqe(qp, wr, &sqe);
		if (rv)
			break;
		rv = siwl_sq_post_one(qp, &sqe, &kick);
		if (rv)
			break;
	}
	if (rv)
		*bad_wr = wr;
	if (kick) {
		/*
		 * A user's post may transmit right here, in its own system
		 * call: no worker wake-up in the latency path. Kernel
		 * consumers may post from atomic context: their QPs use the
		 * work item.
		 */
		if (rdma_is_kernel_res(&qp->base.res))
			siwl_qp_kick(qp);
		else
			siwl_qp_tx_direct(qp);
	}
	return rv;
}

int siwl_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);
	struct siwl_rqe rqe;
	enum siwl_qp_state state;
	unsigned long flags;
	bool kick = false;
	int rv = 0;

	if (qp->srq || (qp->urq.hdr && wr)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->urq.hdr) {
		/* Asked for by RQ_FLUSH: complete what was posted in ERROR. */
		spin_lock_irqsave(&qp->rq_lock, flags);
		if (READ_ONCE(qp->state) == SIWL_QPS_ERROR &&
		    !qp->rx_rqe_valid)
			siwl_urq_flush_locked(qp, false);
		spin_unlock_irqrestore(&qp->rq_lock, flags);
		return 0;
	}
	for (; wr; wr = wr->next) {
		rv = siwl_build_rqe(qp->max_recv_sge, wr, &rqe);
		if (rv)
			break;

		spin_lock_irqsave(&qp->rq_lock, flags);
		/*
		 * Read without @lock: a QP that turns ERROR after this is
		 * flushed by the work item under rq_lock, after this post.
		 */
		state = READ_ONCE(qp->state);
		if (state == SIWL_QPS_IDLE &&
		    READ_ONCE(qp->ib_idle) == IB_QPS_RESET) {
			rv = -EINVAL;
		} else if (state == SIWL_QPS_ERROR &&
			   qp->rq_tail == qp->rq_head && !qp->rx_rqe_valid) {
			siwl_rq_push(qp, &rqe, IB_WC_WR_FLUSH_ERR);
			spin_unlock_irqrestore(&qp->rq_lock, flags);
			continue;
		} else if (qp->rq_head - qp->rq_tail >= qp->rq_size) {
			rv = -ENOMEM;
		}
		if (rv) {
			spin_unlock_irqrestore(&qp->rq_lock, flags);
			break;
		}
		qp->rq[qp->rq_head % qp->rq_size] = rqe;
		qp->rq_head++;
		trace_wqe_post(qp->base.qp_num, false, rqe.wr_id, 0,
			       rqe.total_len);
		if (state == SIWL_QPS_ERROR)
			kick = true;
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
	if (rv)
		*bad_wr = wr;
	if (kick)
		siwl_qp_kick(qp);
	siwl_rx_rqe_posted(qp);
	return rv;
}

/* ---- connection manager glue ------------------------------------------- */

static u8 siwl_rtr_pick(u8 rtr)
{
	/* RFC 6581 negotiates one type; prefer the cheapest if given more. */
	if (rtr & MPA_RTR_WRITE)
		return MPA_RTR_WRITE;
	if (rtr & MPA_RTR_READ)
		return MPA_RTR_READ;
	return rtr & MPA_RTR_SEND;
}

/* Allocates the transmit buffers a QP keeps across connections, once. */
static int siwl_qp_tx_bufs(struct siwl_tx *tx)
{
	if (!tx->copy_buf) {
		tx->copy_buf = kvmalloc(SIWL_TX_BUF_SIZE, GFP_KERNEL);
		if (!tx->copy_buf)
			return -ENOMEM;
		tx->buf = tx->copy_buf;
		tx->buf_size = SIWL_TX_BUF_SIZE;
	}
	if (!tx->bvec) {
		tx->bvec = kmalloc_array(SIWL_TX_BVECS, sizeof(*tx->bvec),
					 GFP_KERNEL);
		if (!tx->bvec)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Forgets a previous connection's transmit progress. Caller holds rx_lock
 * and lock and has flushed tx_work.
 */
static void siwl_qp_tx_reset_locked(struct siwl_tx *tx)
{
	tx->fpdu_len = 0;
	tx->fpdu_sent = 0;
	tx->buf_used = 0;
	tx->kind = SIWL_TX_NONE;
	tx->zc_msg = false;
	tx->irq_more = 0;
	tx->irq_turn = false;
	/* RFC 5041 section 5.1: the first MSN on each queue is 1. */
	tx->next_msn[RDMAP_QN_SEND] = 1;
	tx->next_msn[RDMAP_QN_READ_REQ] = 1;
	tx->next_msn[RDMAP_QN_TERMINATE] = 1;
}

/*
 * Binds an IDLE QP without a CEP to @cep and the negotiated @p, resets
 * TX and RX and moves it to RTS. Caller holds rx_lock and lock and has
 * checked the state; takes a CEP reference.
 */
static void siwl_qp_bind_locked(struct siwl_qp *qp, struct siwl_cep *cep,
				const struct siwl_conn_params *p, u8 rtr)
{
	siwl_llp_cep_get(cep);
	qp->cep = cep;
	qp->sock = p->sock;
	qp->crc = p->crc;
	qp->mpa_rev = p->mpa_rev;
	qp->ird = p->ird;
	qp->ord = p->ord;
	qp->orq_count = 0;
	qp->irq_count = 0;
	qp->close_pending = false;
	qp->close_abortive = false;
	qp->close_level = 0;
	qp->event_pending = false;
	qp->term_valid = false;
	qp->tx_rtr = p->initiator ? rtr : 0;
	/* RFC 6581 section 5: the responder sends after the RTR. */
	qp->tx_hold = !p->initiator && rtr;

	siwl_qp_tx_reset_locked(&qp->tx);

	siwl_rx_reset(qp);
	qp->rx.rtr_expect = p->initiator ? 0 : rtr;

	qp->state = SIWL_QPS_RTS;
	qp->tx_enabled = true;
	qp->rx_enabled = true;
}

int siwl_qp_llp_up(struct siwl_qp *qp, struct siwl_cep *cep,
		   const struct siwl_conn_params *p)
{
	struct sock *sk;
	unsigned long flags;
	u8 rtr;
	int rv;

	if (!p->sock || !p->sock->sk || p->ird > SIWL_MAX_IRD ||
	    p->ord > SIWL_MAX_ORD)
		return -EINVAL;
	sk = p->sock->sk;
	rtr = siwl_rtr_pick(p->rtr);

	mutex_lock(&qp->modify_mutex);
	rv = siwl_qp_tx_bufs(&qp->tx);
	if (rv)
		goto out;
	/* A previous connection's work must be over before TX is reset. */
	flush_work(&qp->tx_work);

	spin_lock_bh(&qp->rx_lock);
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != SIWL_QPS_IDLE || qp->ib_idle == IB_QPS_RESET)
		rv = -EINVAL;
	else if (qp->cep)
		rv = -EBUSY;
	else
		siwl_qp_bind_locked(qp, cep, p, rtr);
	spin_unlock_irqrestore(&qp->lock, flags);
	spin_unlock_bh(&qp->rx_lock);
	if (rv)
		goto out;

	siwl_qp_kick(qp);
	/*
	 * FPDUs that arrived between the MPA exchange and now raised no
	 * sk_data_ready we acted on; read them now.
	 */
	lock_sock(sk);
	siwl_qp_rx(qp, sk);
	release_sock(sk);
out:
	mutex_unlock(&qp->modify_mutex);
	return rv;
}

void siwl_qp_tx_wakeup(struct siwl_qp *qp)
{
	siwl_qp_kick(qp);
}

void siwl_qp_llp_down(struct siwl_qp *qp)
{
	struct siwl_cep *cep;
	unsigned long flags;

	spin_lock_bh(&qp->rx_lock);
	qp->rx_enabled = false;
	siwl_rx_release(qp);
	spin_unlock_bh(&qp->rx_lock);

	spin_lock_irqsave(&qp->lock, flags);
	qp->tx_enabled = false;
	/* The connection is gone already: nothing left to close. */
	siwl_qp_error_locked(qp, false);
	qp->close_pending = false;
	cep = qp->cep;
	qp->cep = NULL;
	spin_unlock_irqrestore(&qp->lock, flags);

	/* Waits for a send in progress; afterwards TX sees !tx_enabled. */
	siwl_qp_sync(qp);
	/*
	 * The CM no longer calls us for this socket: nothing queues rx_work,
	 * and RX, no longer in RTS, does not arm rqe_work again.
	 */
	cancel_work_sync(&qp->rx_work);
	cancel_delayed_work_sync(&qp->rqe_work);
	/*
	 * A user's post transmits outside the work item, under tx_mutex
	 * only: it may still hold the socket the CEP is about to release.
	 * Once it is out, the buffers TCP no longer needs can go too.
	 */
	mutex_lock(&qp->tx_mutex);
	siwl_tx_release_pages(qp);
	mutex_unlock(&qp->tx_mutex);

	spin_lock_irqsave(&qp->lock, flags);
	qp->sock = NULL;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (cep)
		siwl_llp_cep_put(cep);
}
