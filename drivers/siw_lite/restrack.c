// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: what "rdma resource show qp|cq|mr -dd" prints beyond the RDMA
 * core's own fields (driver attributes; siw_lite(7) lists them). Each is
 * a snapshot taken under the lock that guards it, nothing more: the
 * numbers may be stale by the time the user reads them.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <rdma/restrack.h>

#include "cq.h"
#include "mem.h"
#include "qp_obj.h"
#include "restrack.h"

static const char *const siwl_qp_state_names[] = {
	[SIWL_QPS_IDLE] = "idle",
	[SIWL_QPS_RTS] = "rts",
	[SIWL_QPS_CLOSING] = "closing",
	[SIWL_QPS_TERMINATE] = "terminate",
	[SIWL_QPS_ERROR] = "error",
};

static const char *const siwl_arm_names[] = {
	[SIW_LITE_CQ_ARM_NONE] = "none",
	[SIW_LITE_CQ_ARM_NEXT] = "next",
	[SIW_LITE_CQ_ARM_SOLICITED] = "solicited",
};

/* "local->remote" of a connected TCP socket, addresses with ports. */
static void siwl_sk_tuple(const struct sock *sk, char *buf, size_t size)
{
	struct sockaddr_storage l = {}, r = {};

	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *ls = (struct sockaddr_in *)&l;
		struct sockaddr_in *rs = (struct sockaddr_in *)&r;

		ls->sin_family = AF_INET;
		ls->sin_addr.s_addr = sk->sk_rcv_saddr;
		ls->sin_port = inet_sk(sk)->inet_sport;
		rs->sin_family = AF_INET;
		rs->sin_addr.s_addr = sk->sk_daddr;
		rs->sin_port = sk->sk_dport;
#if IS_ENABLED(CONFIG_IPV6)
	} else if (sk->sk_family == AF_INET6) {
		struct sockaddr_in6 *ls = (struct sockaddr_in6 *)&l;
		struct sockaddr_in6 *rs = (struct sockaddr_in6 *)&r;

		ls->sin6_family = AF_INET6;
		ls->sin6_addr = sk->sk_v6_rcv_saddr;
		ls->sin6_port = inet_sk(sk)->inet_sport;
		rs->sin6_family = AF_INET6;
		rs->sin6_addr = sk->sk_v6_daddr;
		rs->sin6_port = sk->sk_dport;
#endif
	}
	snprintf(buf, size, "%pISpc->%pISpc", &l, &r);
}

struct siwl_qp_snap {
	char tcp[2 * 56];
	enum siwl_qp_state state;
	u32 ird, ord, sq_size, sq_used, rq_size, rq_used, orq, irq;
	u8 mpa_rev;
	bool crc, connected;
};

int siwl_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);
	struct siwl_qp_snap s = {};
	struct nlattr *table;
	unsigned long flags;

	/* qp->lock keeps qp->sock (see siwl_qp_llp_down()). */
	spin_lock_irqsave(&qp->lock, flags);
	s.state = qp->state;
	s.connected = qp->sock;
	if (qp->sock)
		siwl_sk_tuple(qp->sock->sk, s.tcp, sizeof(s.tcp));
	s.mpa_rev = qp->mpa_rev;
	s.crc = qp->crc;
	s.ird = qp->ird;
	s.ord = qp->ord;
	s.sq_size = qp->sq_size;
	s.sq_used = qp->sq_head - qp->sq_tail;
	s.orq = qp->orq_count;
	s.irq = qp->irq_count;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!qp->srq) {
		spin_lock_irqsave(&qp->rq_lock, flags);
		s.rq_size = qp->rq_size;
		/* A user RQ is the ring itself; its producer is the user. */
		if (qp->urq.hdr)
			s.rq_used = min(READ_ONCE(qp->urq.hdr->prod) -
					qp->rq_tail, qp->rq_size);
		else
			s.rq_used = qp->rq_head - qp->rq_tail;
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if ((s.connected && rdma_nl_put_driver_string(msg, "tcp", s.tcp)) ||
	    rdma_nl_put_driver_string(msg, "iw_state",
				      siwl_qp_state_names[s.state]) ||
	    (s.connected &&
	     (rdma_nl_put_driver_u32(msg, "mpa_rev", s.mpa_rev) ||
	      rdma_nl_put_driver_u32(msg, "crc", s.crc) ||
	      rdma_nl_put_driver_u32(msg, "markers", 0) ||
	      rdma_nl_put_driver_u32(msg, "ird", s.ird) ||
	      rdma_nl_put_driver_u32(msg, "ord", s.ord))) ||
	    rdma_nl_put_driver_u32(msg, "sq_size", s.sq_size) ||
	    rdma_nl_put_driver_u32(msg, "sq_used", s.sq_used) ||
	    rdma_nl_put_driver_u32(msg, "rq_size", s.rq_size) ||
	    rdma_nl_put_driver_u32(msg, "rq_used", s.rq_used) ||
	    rdma_nl_put_driver_u32(msg, "orq_used", s.orq) ||
	    rdma_nl_put_driver_u32(msg, "irq_used", s.irq)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

int siwl_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct siwl_cq *cq = to_siwl_cq(ibcq);
	u32 size, used, armed;
	struct nlattr *table;
	unsigned long flags;
	bool ring;

	spin_lock_irqsave(&cq->lock, flags);
	ring = cq->ring.hdr;
	if (ring) {
		/* The consumer index is the user's: never more than the ring. */
		size = cq->ring.num;
		used = min(cq->uprod - READ_ONCE(cq->ring.hdr->cons), size);
		armed = READ_ONCE(cq->ring.hdr->flags);
	} else {
		size = cq->num_cqe;
		used = cq->count;
		armed = cq->armed == IB_CQ_SOLICITED ? SIW_LITE_CQ_ARM_SOLICITED :
			cq->armed ? SIW_LITE_CQ_ARM_NEXT : SIW_LITE_CQ_ARM_NONE;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (armed >= ARRAY_SIZE(siwl_arm_names))
		armed = SIW_LITE_CQ_ARM_NONE;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cq_size", size) ||
	    rdma_nl_put_driver_u32(msg, "cq_used", used) ||
	    rdma_nl_put_driver_string(msg, "armed", siwl_arm_names[armed]) ||
	    rdma_nl_put_driver_u32(msg, "ring", ring)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

int siwl_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct siwl_mr *mr = to_siwl_mr(ibmr);
	struct nlattr *table;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	/*
	 * Only pinned user pages can leave without a copy (zcopy.c). The
	 * core prints the length itself (mrlen); a u64 of ours would also
	 * bring a pad attribute that rdma(8) cannot pair with a name.
	 */
	if (rdma_nl_put_driver_u32_hex(msg, "access", READ_ONCE(mr->access)) ||
	    rdma_nl_put_driver_u32(msg, "zcopy", mr->kind == SIWL_MR_USER)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}
