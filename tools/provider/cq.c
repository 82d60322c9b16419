// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues of the siw_lite provider.  The kernel owns the CQ;
 * creating and destroying it are plain uverbs commands without driver
 * data, and polling and arming go through the CQ's data-path backend
 * (struct siwl_dp_ops).
 */
#include <errno.h>
#include <stdlib.h>

#include "siw_lite.h"

struct ibv_cq *siwl_create_cq(struct ibv_context *ibctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct pabi34_cmd_create_cq cmd = {};
	struct ib_uverbs_create_cq_resp resp = {};
	struct siwl_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->dp = siwl_ctx_dp(to_siwl_ctx(ibctx));

	/*
	 * Sets cq->context, handle and cqe (what the kernel granted);
	 * ibv_create_cq() fills in the rest once we return.
	 */
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector,
				&cq->ibv_cq, &cmd, sizeof(cmd),
				&resp, sizeof(resp));
	if (ret) {
		siwl_dbg(ibctx, "cqe %d: %d\n", cqe, ret);
		free(cq);
		errno = ret;
		return NULL;
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
