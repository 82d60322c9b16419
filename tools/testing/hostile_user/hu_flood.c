// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A send ring filled to the last slot in one post, on a QP in ERROR
 * (issue 17, finding 6): the kernel copies the WQEs out of the ring under
 * the QP's irqsave lock, so it must take them a bounded batch at a time
 * (selftests/test_71_hostile_user.sh counts the fetches) and still flush
 * every one of them, once and in order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_user.h"

#define FLOOD_WR_ID	0xf100d0000000ULL

/* Polls @cq until @want completions or the timeout: how many came. */
static unsigned int flood_poll(const struct hu_opts *o, struct ibv_cq *cq,
			       unsigned int want, unsigned int *bad)
{
	double end = hu_now() + o->timeout;
	unsigned int got = 0;
	struct ibv_wc wc[64];
	int i, n;

	while (got < want && hu_now() < end) {
		n = ibv_poll_cq(cq, 64, wc);
		if (n < 0) {
			tap_diag("sq_flood: ibv_poll_cq: %d", n);
			break;
		}
		for (i = 0; i < n; i++, got++) {
			if (wc[i].status == IBV_WC_WR_FLUSH_ERR &&
			    wc[i].wr_id == FLOOD_WR_ID + got)
				continue;
			if (!(*bad)++)
				tap_diag("sq_flood: completion %u: wr_id %#llx status %s",
					 got, (unsigned long long)wc[i].wr_id,
					 ibv_wc_status_str(wc[i].status));
		}
	}
	return got;
}

void hu_case_flood(const struct hu_opts *o)
{
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_context *ctx = hu_open(o);
	struct ibv_send_wr *wrs = NULL, *bad_wr;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_sge = 1, .max_recv_wr = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_device_attr da;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_pd *pd = NULL;
	unsigned int i, n, got, bad = 0;
	int ret;

	if (!ctx) {
		tap_ok(false, "sq_flood: open the device");
		return;
	}
	if (ibv_query_device(ctx, &da)) {
		tap_ok(false, "sq_flood: query the device: %s", strerror(errno));
		goto out;
	}
	n = da.max_qp_wr;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, n + 1, NULL, NULL, 0) : NULL;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = n;
	qp = cq ? ibv_create_qp(pd, &qa) : NULL;
	tap_ok(qp, "sq_flood: a QP with a %u-entry send ring%s%s", n,
	       qp ? "" : ": ", qp ? "" : strerror(errno));
	if (!qp)
		goto out;
	/* What the kernel granted: a power of two of at least n. */
	n = qa.cap.max_send_wr;
	tap_errno(ibv_modify_qp(qp, &err, IBV_QP_STATE), 0,
		  "sq_flood: the QP to ERR");

	wrs = calloc(n, sizeof(*wrs));
	if (!wrs) {
		tap_ok(false, "sq_flood: %u WRs: out of memory", n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		wrs[i].wr_id = FLOOD_WR_ID + i;
		wrs[i].opcode = IBV_WR_SEND;
		wrs[i].send_flags = IBV_SEND_SIGNALED;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	/* One post, one doorbell: the whole ring waits for one fetch. */
	ret = ibv_post_send(qp, wrs, &bad_wr);
	tap_errno(ret, 0, "sq_flood: %u Sends in one post", n);
	tap_diag("sq_flood: posted %u", ret ? (unsigned int)(bad_wr - wrs) : n);
	if (ret)
		n = bad_wr - wrs;

	got = flood_poll(o, cq, n, &bad);
	tap_ok(got == n && !bad,
	       "sq_flood: every WR flushed once, in order (%u of %u, %u wrong)",
	       got, n, bad);
	/* Nothing more may come. */
	got = flood_poll(&(struct hu_opts){ .timeout = 1 }, cq, 1, &bad);
	tap_ok(!got, "sq_flood: no completion beyond those (%u)", got);
out:
	free(wrs);
	if (qp)
		tap_errno(ibv_destroy_qp(qp) ? errno : 0, 0,
			  "sq_flood: destroy the QP");
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}
