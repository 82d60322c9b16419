// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs of the siw_lite provider: RC only, like every iWARP RNIC.
 * The kernel owns the QP and its state machine; create, modify, query and
 * destroy are uverbs commands (create with a driver part asking for
 * shared rings when the context has them, see dp_ring.c).  Posting checks
 * each WR here (siwl_check_*_wr, the same for every backend) and hands
 * the list to the QP's data-path backend (struct siwl_dp_ops).
 */
#include <errno.h>
#include <stdlib.h>

#include "siw_lite.h"

struct ibv_qp *siwl_create_qp(struct ibv_pd *ibpd,
			      struct ibv_qp_init_attr *attr)
{
	struct ibv_context *ibctx = ibpd->context;
	struct siwl_context *ctx = to_siwl_ctx(ibctx);
	struct siwl_create_qp_cmd cmd = {};
	struct siwl_create_qp_resp resp = {};
	size_t cmd_size = sizeof(cmd.ibv), resp_size = sizeof(resp.ibv);
	struct siwl_qp *qp;
	int ret;

	if (attr->qp_type != IBV_QPT_RC) {
		siwl_dbg(ibctx, "QP type %d: only RC is supported\n",
			 attr->qp_type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* libibverbs would dereference them before the kernel could object */
	if (!attr->send_cq || !attr->recv_cq) {
		errno = EINVAL;
		return NULL;
	}

	/* zeroes the verbs_qp room as well (see struct siwl_qp) */
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->dp = siwl_ctx_dp(ctx);
	qp->sig_all = attr->sq_sig_all;

	if (ctx->rings) {
		cmd.drv.flags = SIW_LITE_USE_RING;
		cmd_size = sizeof(cmd);
		resp_size = sizeof(resp);
	}

	/*
	 * Fills in the whole ibv_qp (context, handle, qp_num, CQs, SRQ,
	 * state RESET, event mutex/cond) and writes what the kernel granted
	 * back to attr->cap.
	 */
	ret = ibv_cmd_create_qp(ibpd, &qp->ibv_qp, attr, &cmd.ibv, cmd_size,
				&resp.ibv, resp_size);
	if (ret) {
		siwl_dbg(ibctx, "create_qp: %d\n", ret);
		free(qp);
		errno = ret;
		return NULL;
	}
	qp->cap = attr->cap;

	if (ctx->rings) {
		ret = siwl_ring_attach_qp(qp, &resp.drv);
		if (ret) {
			ibv_cmd_destroy_qp(&qp->ibv_qp);
			free(qp);
			errno = ret;
			return NULL;
		}
	}

	return &qp->ibv_qp;
}

int siwl_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct pabi34_cmd_modify_qp cmd = {};

	/* ibv_modify_qp() updates ibqp->state when this succeeds */
	return ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
}

int siwl_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct pabi34_cmd_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr,
				&cmd, sizeof(cmd));
}

int siwl_destroy_qp(struct ibv_qp *ibqp)
{
	int ret;

	/* waits until every async event of the QP has been acknowledged */
	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	siwl_ring_detach_qp(to_siwl_qp(ibqp));
	free(to_siwl_qp(ibqp));
	return 0;
}

enum {
	SIWL_SEND_FLAGS = IBV_SEND_FENCE | IBV_SEND_SIGNALED |
			  IBV_SEND_SOLICITED | IBV_SEND_INLINE,
};

/*
 * What an iWARP RC QP can carry (RFC 5040): no immediate data, atomics,
 * memory windows or UD/raw-packet offloads.  The kernel checks again (and
 * checks what only it knows: STags, QP state, RDMA Read SGE limit); these
 * checks keep a malformed WR from ever reaching a backend.
 */
int siwl_check_send_wr(const struct siwl_qp *qp,
		       const struct ibv_send_wr *wr)
{
	uint64_t len = 0;
	int i;

	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		break;
	default:
		return EINVAL;
	}
	if (wr->send_flags & ~(unsigned int)SIWL_SEND_FLAGS)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;

	if (wr->send_flags & IBV_SEND_INLINE) {
		/* an RDMA Read has no data to put inline */
		if (wr->opcode == IBV_WR_RDMA_READ)
			return EINVAL;
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->cap.max_inline_data)
			return EINVAL;
	}
	return 0;
}

int siwl_check_recv_wr(uint32_t max_sge, const struct ibv_recv_wr *wr)
{
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	return 0;
}

int siwl_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);

	if (!wr)
		return 0;
	return qp->dp->post_send(qp, wr, bad_wr);
}

int siwl_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);

	if (!wr)
		return 0;
	/* the QP's receives come from its SRQ */
	if (ibqp->srq) {
		*bad_wr = wr;
		return EINVAL;
	}
	return qp->dp->post_recv(qp, wr, bad_wr);
}
