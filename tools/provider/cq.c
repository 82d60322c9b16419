// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues of the siw_lite provider.  The kernel owns the CQ;
 * creating and destroying it are uverbs commands (with a driver part
 * asking for a shared ring when the context has rings, see dp_ring.c),
 * and polling and arming go through the CQ's data-path backend
 * (struct siwl_dp_ops).
 */
#include <errno.h>
#include <stdlib.h>

#include "siw_lite.h"

struct ibv_cq *siwl_create_cq(struct ibv_context *ibctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct siwl_context *ctx = to_siwl_ctx(ibctx);
	struct siwl_create_cq_cmd cmd = {};
	struct siwl_create_cq_resp resp = {};
	size_t cmd_size = sizeof(cmd.ibv), resp_size = sizeof(resp.ibv);
	struct siwl_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->dp = siwl_ctx_dp(ctx);

	/* without rings: no driver part at all, as older providers */
	if (ctx->rings) {
		cmd.drv.flags = SIW_LITE_USE_RING;
		cmd_size = sizeof(cmd);
		resp_size = sizeof(resp);
	}

	/*
	 * Sets cq->context, handle and cqe (what the kernel granted);
	 * ibv_create_cq() fills in the rest once we return.
	 */
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector,
				&cq->ibv_cq, &cmd.ibv, cmd_size,
				&resp.ibv, resp_size);
	if (ret) {
		siwl_dbg(ibctx, "cqe %d: %d\n", cqe, ret);
		free(cq);
		errno = ret;
		return NULL;
	}

	if (ctx->rings) {
		ret = siwl_ring_attach_cq(cq, &resp.drv);
		if (ret) {
			/* nothing can have been reported on it yet */
			ibv_cmd_destroy_cq(&cq->ibv_cq);
			free(cq);
			errno = ret;
			return NULL;
		}
	}

	return &cq->ibv_cq;
}

int siwl_destroy_cq(struct ibv_cq *ibcq)
{
	int ret;

	/*
	 * Waits until the application has acknowledged every event the
	 * kernel reported for the CQ; keeps the memory when the kernel
	 * refuses (a QP still uses the CQ: EBUSY).
	 */
	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	siwl_ring_detach_cq(to_siwl_cq(ibcq));
	free(to_siwl_cq(ibcq));
	return 0;
}

int siwl_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct siwl_cq *cq = to_siwl_cq(ibcq);

	if (ne <= 0) {
		if (!ne)
			return 0;
		errno = EINVAL;
		return -1;
	}
	return cq->dp->poll_cq(cq, ne, wc);
}

int siwl_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct siwl_cq *cq = to_siwl_cq(ibcq);

	return cq->dp->req_notify_cq(cq, solicited_only);
}
