// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues of the siw_lite provider (basic SRQs only).  The
 * kernel owns the SRQ; create, modify, query and destroy are uverbs
 * commands (create asks for a shared ring when the context has rings),
 * receives go through the SRQ's data-path backend (struct siwl_dp_ops).
 */
#include <errno.h>
#include <stdlib.h>

#include "siw_lite.h"

struct ibv_srq *siwl_create_srq(struct ibv_pd *ibpd,
				struct ibv_srq_init_attr *attr)
{
	struct ibv_context *ibctx = ibpd->context;
	struct siwl_context *ctx = to_siwl_ctx(ibctx);
	struct siwl_create_srq_cmd cmd = {};
	struct siwl_create_srq_resp resp = {};
	size_t cmd_size = sizeof(cmd.ibv), resp_size = sizeof(resp.ibv);
	struct siwl_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	srq->dp = siwl_ctx_dp(ctx);

	if (ctx->rings) {
		cmd.drv.flags = SIW_LITE_USE_RING;
		cmd_size = sizeof(cmd);
		resp_size = sizeof(resp);
	}

	/*
	 * Sets context, handle and the event mutex/cond, and writes the
	 * granted max_wr and max_sge back to attr->attr.
	 */
	ret = ibv_cmd_create_srq(ibpd, &srq->ibv_srq, attr, &cmd.ibv,
				 cmd_size, &resp.ibv, resp_size);
	if (ret) {
		siwl_dbg(ibctx, "create_srq: %d\n", ret);
		free(srq);
		errno = ret;
		return NULL;
	}
	srq->max_sge = attr->attr.max_sge;
	srq->max_wr = attr->attr.max_wr;

	if (ctx->rings) {
		ret = siwl_ring_attach_srq(srq, &resp.drv);
		if (ret) {
			ibv_cmd_destroy_srq(&srq->ibv_srq);
			free(srq);
			errno = ret;
			return NULL;
		}
	}

	return &srq->ibv_srq;
}

int siwl_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct pabi34_cmd_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int siwl_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct pabi34_cmd_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int siwl_destroy_srq(struct ibv_srq *ibsrq)
{
	int ret;

	/* waits until every async event of the SRQ has been acknowledged */
	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;

	siwl_ring_detach_srq(to_siwl_srq(ibsrq));
	free(to_siwl_srq(ibsrq));
	return 0;
}

int siwl_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct siwl_srq *srq = to_siwl_srq(ibsrq);

	if (!wr)
		return 0;
	return srq->dp->post_srq_recv(srq, wr, bad_wr);
}
