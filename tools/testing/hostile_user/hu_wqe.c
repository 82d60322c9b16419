// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wqe_rules: the send WQEs of tools/testing/lib/wqe_cases.h, posted both
 * ways a process reaches a siw_lite send queue; each way must decide as the
 * table says (the two once disagreed, issue 18).
 *
 *  - uverbs: POST_SEND with the WR (ibv_cmd_post_send, past the
 *    provider's own checks) on a QP without rings: the post returns 0 or
 *    EINVAL.
 *  - ring: the WQE written into the send ring of a QP the provider made,
 *    then a doorbell.  The QP is in INIT, so the kernel takes the WQE at
 *    once: a refused one completes with a local QP operation error; an
 *    accepted one waits, and the move to ERR flushes it.
 *
 * Rows an encoding cannot express (Read with Invalidate and fast
 * registration exist for kernel ULPs only; uverbs has no Local
 * Invalidate) are left out of that path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_user.h"
#include "../../provider/siw_lite.h"
#include "wqe_cases.h"

#define WQE_WR_ID	0x77e00000ULL
#define WQE_NA		(-1)

static const char *const op_names[] = {
	[WQE_OP_SEND] = "Send",
	[WQE_OP_SEND_INV] = "Send with Invalidate",
	[WQE_OP_WRITE] = "Write",
	[WQE_OP_READ] = "Read",
	[WQE_OP_READ_INV] = "Read with Invalidate",
	[WQE_OP_REG_MR] = "fast registration",
	[WQE_OP_LOCAL_INV] = "Local Invalidate",
	[WQE_OP_BOGUS] = "an unknown opcode",
};

/* uverbs opcodes; an atomic reaches the driver, which has none */
static const int verbs_ops[] = {
	[WQE_OP_SEND] = IBV_WR_SEND,
	[WQE_OP_SEND_INV] = IBV_WR_SEND_WITH_INV,
	[WQE_OP_WRITE] = IBV_WR_RDMA_WRITE,
	[WQE_OP_READ] = IBV_WR_RDMA_READ,
	[WQE_OP_READ_INV] = WQE_NA,
	[WQE_OP_REG_MR] = WQE_NA,
	[WQE_OP_LOCAL_INV] = WQE_NA,
	[WQE_OP_BOGUS] = IBV_WR_ATOMIC_FETCH_AND_ADD,
};

static const int ring_ops[] = {
	[WQE_OP_SEND] = SIW_LITE_WR_SEND,
	[WQE_OP_SEND_INV] = SIW_LITE_WR_SEND_WITH_INV,
	[WQE_OP_WRITE] = SIW_LITE_WR_WRITE,
	[WQE_OP_READ] = SIW_LITE_WR_READ,
	[WQE_OP_READ_INV] = WQE_NA,
	[WQE_OP_REG_MR] = WQE_NA,
	[WQE_OP_LOCAL_INV] = SIW_LITE_WR_LOCAL_INV,
	[WQE_OP_BOGUS] = 42,
};

/* inline payloads come from here; longer SGEs are never read at post */
static char wqe_buf[4096];

static const struct ibv_qp_cap wqe_cap = {
	.max_send_wr = 4, .max_recv_wr = 1,
	.max_send_sge = 6, .max_recv_sge = 1, .max_inline_data = 64,
};

static const struct ibv_qp_attr to_init = {
	.qp_state = IBV_QPS_INIT, .port_num = 1,
	.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
};

#define INIT_MASK (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
		   IBV_QP_ACCESS_FLAGS)

/* SGE @i of @c: @c's length spread over its SGEs, the last takes the rest */
static uint32_t sge_len(const struct wqe_case *c, unsigned int i)
{
	unsigned long long each = c->len / c->num_sge;

	return i + 1 < c->num_sge ? each : c->len - each * i;
}

static uint64_t sge_addr(unsigned int i)
{
	return (uintptr_t)wqe_buf + 64 * i;
}

/* The uverbs way: 0 or the errno of the post, -1 if it could not run. */
static int post_uverbs(struct ibv_pd *pd, struct ibv_cq *cq,
		       const struct wqe_case *c, unsigned int n)
{
	struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq,
				       .qp_type = IBV_QPT_RC, .cap = wqe_cap };
	struct ibv_qp_attr init = to_init;
	struct pabi34_cmd_create_qp cmd = {};
	struct pabi34_cmd_modify_qp mcmd = {};
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_sge sge[8] = {};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_qp *qp = hu_qp_alloc();
	unsigned int i;
	int ret;

	if (!qp || ibv_cmd_create_qp(pd, qp, &qa, &cmd, sizeof(cmd), &resp,
				     sizeof(resp))) {
		tap_diag("wqe_rules: a QP without rings: %s", strerror(errno));
		free(qp);
		return -1;
	}
	if (ibv_cmd_modify_qp(qp, &init, INIT_MASK, &mcmd, sizeof(mcmd))) {
		tap_diag("wqe_rules: QP without rings to INIT: %s",
			 strerror(errno));
		hu_free_qp(qp);
		return -1;
	}
	for (i = 0; i < c->num_sge && i < HU_ARRAY_SIZE(sge); i++) {
		sge[i].addr = sge_addr(i);
		sge[i].length = sge_len(c, i);
		sge[i].lkey = 0x100;
	}
	wr.wr_id = WQE_WR_ID + n;
	wr.opcode = verbs_ops[c->op];
	wr.send_flags = IBV_SEND_SIGNALED |
			(c->inline_data ? IBV_SEND_INLINE : 0);
	wr.sg_list = sge;
	wr.num_sge = c->num_sge;
	wr.wr.rdma.rkey = 0x200;
	ret = ibv_cmd_post_send(qp, &wr, &bad);
	hu_free_qp(qp);
	return ret;
}

/* Writes @c into @qp's send ring and rings the doorbell. */
static int ring_write(struct ibv_qp *qp, const struct wqe_case *c,
		      unsigned int n)
{
	struct siwl_qp *sq = siwl_container_of(qp, struct siwl_qp, ibv_qp);
	struct siw_lite_sqe *e;
	struct ibv_send_wr *bad;
	unsigned int i;

	if (!sq->sq.hdr) {
		tap_diag("wqe_rules: the provider made no send ring");
		return -1;
	}
	e = (void *)(sq->sq.entries +
		     (size_t)(sq->sq.idx & (sq->sq.num - 1)) * sq->sq.esize);
	memset(e, 0, sizeof(*e));
	e->wr_id = WQE_WR_ID + n;
	e->opcode = ring_ops[c->op];
	e->flags = SIW_LITE_WQE_SIGNALED;
	e->rkey = 0x200;
	e->invalidate_rkey = 0x200;
	if (c->inline_data) {
		/* the entry carries the bytes: no SGE may be named */
		e->flags |= SIW_LITE_WQE_INLINE;
		e->length = c->len;
	} else {
		/* more than the entry holds: the count alone must refuse it */
		e->num_sge = c->num_sge;
		for (i = 0; i < c->num_sge && i < SIW_LITE_MAX_SGE; i++) {
			e->sge[i].addr = sge_addr(i);
			e->sge[i].length = sge_len(c, i);
			e->sge[i].lkey = 0x100;
		}
	}
	sq->sq.idx++;
	__atomic_store_n(&sq->sq.hdr->prod, sq->sq.idx, __ATOMIC_RELEASE);
	/* a POST_SEND without WRs is the doorbell */
	return ibv_cmd_post_send(qp, NULL, &bad);
}

/*
 * The ring way: 0 (accepted: flushed by ERR), EINVAL (refused: a local
 * QP operation error), -1 if it could not run or something else came.
 */
static int post_ring(struct ibv_pd *pd, struct ibv_cq *cq,
		     const struct wqe_case *c, unsigned int n)
{
	struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq,
				       .qp_type = IBV_QPT_RC, .cap = wqe_cap };
	struct ibv_qp_attr init = to_init, err = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp *qp = ibv_create_qp(pd, &qa);
	double end = hu_now() + 5;
	struct ibv_wc wc;
	int ret = -1, got = 0;

	if (!qp) {
		tap_diag("wqe_rules: a QP with rings: %s", strerror(errno));
		return -1;
	}
	if (ibv_modify_qp(qp, &init, INIT_MASK) || ring_write(qp, c, n) ||
	    ibv_modify_qp(qp, &err, IBV_QP_STATE)) {
		tap_diag("wqe_rules: ring QP: %s", strerror(errno));
		goto out;
	}
	while (!got && hu_now() < end)
		got = ibv_poll_cq(cq, 1, &wc);
	if (got != 1 || wc.wr_id != WQE_WR_ID + n) {
		tap_diag("wqe_rules: ring: %d completions%s", got,
			 got == 1 ? " of another WR" : "");
		goto out;
	}
	if (wc.status == IBV_WC_WR_FLUSH_ERR)
		ret = 0;
	else if (wc.status == IBV_WC_LOC_QP_OP_ERR)
		ret = EINVAL;
	else
		tap_diag("wqe_rules: ring: status %s",
			 ibv_wc_status_str(wc.status));
out:
	ibv_destroy_qp(qp);
	return ret;
}

static const char *verdict(int r)
{
	return r == WQE_NA ? "-" : r == 0 ? "accepted" :
	       r == EINVAL ? "refused" : "failed";
}

void hu_case_wqe(const struct hu_opts *o)
{
	struct ibv_context *ctx = hu_open(o);
	struct pabi34_cmd_create_cq ccmd = {};
	struct ib_uverbs_create_cq_resp cresp;
	struct ibv_cq *cq = NULL, *kcq = hu_cq_alloc();
	struct ibv_pd *pd = NULL;
	unsigned int i;

	if (!ctx || !kcq) {
		tap_ok(false, "wqe_rules: open the device");
		free(kcq);
		return;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 8, NULL, NULL, 0) : NULL;
	if (!cq || ibv_cmd_create_cq(ctx, 8, NULL, 0, kcq, &ccmd,
				     sizeof(ccmd), &cresp, sizeof(cresp))) {
		tap_ok(false, "wqe_rules: a PD and CQs: %s", strerror(errno));
		free(kcq);
		kcq = NULL;
		goto out;
	}
	for (i = 0; i < HU_ARRAY_SIZE(wqe_cases); i++) {
		const struct wqe_case *c = &wqe_cases[i];
		int want = c->ok ? 0 : EINVAL, u = WQE_NA, r = WQE_NA;

		if (verbs_ops[c->op] != WQE_NA)
			u = post_uverbs(pd, kcq, c, i);
		if (ring_ops[c->op] != WQE_NA)
			r = post_ring(pd, cq, c, i);
		if (u == WQE_NA && r == WQE_NA)
			continue;
		tap_ok((u == WQE_NA || u == want) && (r == WQE_NA || r == want),
		       "wqe_rules: %s, %u SGEs, %llu bytes%s: uverbs %s, ring %s (want %s)",
		       op_names[c->op], c->num_sge, c->len,
		       c->inline_data ? " inline" : "", verdict(u), verdict(r),
		       verdict(want));
	}
out:
	if (kcq)
		hu_free_cq(kcq);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}
