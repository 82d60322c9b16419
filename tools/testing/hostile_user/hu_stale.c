// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Objects used after they were destroyed, handles of the wrong type or
 * of another context, and objects destroyed while others still use
 * them.  libibverbs hands the kernel whatever handle an object struct
 * holds, so a stale object is simply a struct with the old handle; the
 * kernel must look every handle up and answer ENOENT (no object with
 * that handle in this file: the uverbs lookup), EINVAL (an object of
 * another type) or EBUSY (still in use), and nothing else may change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_user.h"

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    struct ibv_srq *srq)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = srq ? 0 : 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &qa);
}

/* ibv_cmd_create_qp with a CQ struct that holds @handle: 0 or errno. */
static int create_qp_with_cq(struct ibv_pd *pd, struct ibv_cq *good,
			     uint32_t handle, bool as_send)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct pabi34_cmd_create_qp cmd;
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_cq *fake = hu_cq_alloc();
	struct ibv_qp *qp = hu_qp_alloc();
	int ret;

	fake->context = pd->context;
	fake->handle = handle;
	qa.send_cq = as_send ? fake : good;
	qa.recv_cq = as_send ? good : fake;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_qp(pd, qp, &qa, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
	if (!ret) {
		hu_free_qp(qp);
		qp = NULL;
	}
	free(qp);
	free(fake);
	return ret;
}

static void stale_cq(struct ibv_context *ctx, struct ibv_pd *pd,
		     struct ibv_cq *good)
{
	struct ibv_cq *cq, *fake;
	struct ibv_wc wc;
	uint32_t h;
	int ret;

	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!cq) {
		tap_ok(false, "stale: create CQ: %s", strerror(errno));
		return;
	}
	h = cq->handle;
	tap_errno(ibv_destroy_cq(cq), 0, "stale: destroy CQ (handle %u)", h);

	fake = hu_cq_alloc();
	fake->context = ctx;
	fake->handle = h;
	errno = 0;
	ret = ibv_cmd_poll_cq(fake, 1, &wc);
	tap_errno(ret < 0 ? errno : 0, ENOENT,
		  "stale: poll (command) on the destroyed CQ");
	tap_errno(ibv_cmd_req_notify_cq(fake, 0), ENOENT,
		  "stale: arm (command) the destroyed CQ");
	tap_errno(create_qp_with_cq(pd, good, h, true), ENOENT,
		  "stale: create QP with the destroyed CQ as send CQ");
	tap_errno(create_qp_with_cq(pd, good, h, false), ENOENT,
		  "stale: create QP with the destroyed CQ as receive CQ");
	tap_errno(ibv_cmd_destroy_cq(fake), ENOENT,
		  "stale: destroy the destroyed CQ again");
	free(fake);

	tap_errno(create_qp_with_cq(pd, good, pd->handle, true), EINVAL,
		  "stale: create QP with the PD's handle as send CQ");
	tap_errno(create_qp_with_cq(pd, good, 0x7fffffff, false), ENOENT,
		  "stale: create QP with CQ handle 0x7fffffff");
}

static void stale_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct pabi34_cmd_modify_qp mcmd;
	struct pabi34_cmd_query_qp qcmd;
	struct ibv_qp_init_attr init;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_qp_attr a;
	struct ibv_qp *qp, *fake;
	uint32_t h;

	qp = rc_qp(pd, cq, NULL);
	if (!qp) {
		tap_ok(false, "stale: create QP: %s", strerror(errno));
		return;
	}
	h = qp->handle;
	tap_errno(ibv_destroy_qp(qp), 0, "stale: destroy QP (handle %u)", h);

	fake = hu_qp_alloc();
	fake->context = pd->context;
	fake->handle = h;
	fake->pd = pd;
	fake->send_cq = cq;
	fake->recv_cq = cq;
	fake->qp_type = IBV_QPT_RC;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	memset(&mcmd, 0, sizeof(mcmd));
	tap_errno(ibv_cmd_modify_qp(fake, &a, IBV_QP_STATE, &mcmd,
				    sizeof(mcmd)), ENOENT,
		  "stale: modify the destroyed QP to ERROR");
	memset(&qcmd, 0, sizeof(qcmd));
	tap_errno(ibv_cmd_query_qp(fake, &a, IBV_QP_STATE, &init, &qcmd,
				   sizeof(qcmd)), ENOENT,
		  "stale: query the destroyed QP");
	tap_errno(ibv_cmd_post_send(fake, NULL, &sbad), ENOENT,
		  "stale: doorbell (POST_SEND without WRs) on the destroyed QP");
	rwr.wr_id = 1;
	tap_errno(ibv_cmd_post_recv(fake, &rwr, &rbad), ENOENT,
		  "stale: POST_RECV (command) on the destroyed QP");
	tap_errno(ibv_cmd_destroy_qp(fake), ENOENT,
		  "stale: destroy the destroyed QP again");
	free(fake);
}

static void stale_pd_mr(struct ibv_context *ctx)
{
	struct pabi34_cmd_reg_mr cmd;
	struct ib_uverbs_reg_mr_resp resp;
	static char buf[4096];
	struct ibv_pd *pd, fake_pd;
	struct verbs_mr *vmr, fake_mr;
	struct ibv_mr *mr;
	uint32_t h;
	int ret;

	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
	     NULL;
	if (!mr) {
		tap_ok(false, "stale: PD and MR: %s", strerror(errno));
		if (pd)
			ibv_dealloc_pd(pd);
		return;
	}
	h = mr->handle;
	tap_errno(ibv_dereg_mr(mr), 0, "stale: deregister MR (handle %u)", h);
	memset(&fake_mr, 0, sizeof(fake_mr));
	fake_mr.ibv_mr.context = ctx;
	fake_mr.ibv_mr.handle = h;
	tap_errno(ibv_cmd_dereg_mr(&fake_mr), ENOENT,
		  "stale: deregister the deregistered MR again");

	h = pd->handle;
	tap_errno(ibv_dealloc_pd(pd), 0, "stale: deallocate PD (handle %u)", h);
	memset(&fake_pd, 0, sizeof(fake_pd));
	fake_pd.context = ctx;
	fake_pd.handle = h;
	vmr = calloc(1, sizeof(*vmr));
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_reg_mr(&fake_pd, buf, sizeof(buf), (uintptr_t)buf,
			     IBV_ACCESS_LOCAL_WRITE, vmr, &cmd, sizeof(cmd),
			     &resp, sizeof(resp));
	tap_errno(ret, ENOENT, "stale: register an MR in the deallocated PD");
	if (!ret)
		ibv_cmd_dereg_mr(vmr);
	free(vmr);
	tap_errno(ibv_cmd_dealloc_pd(&fake_pd), ENOENT,
		  "stale: deallocate the deallocated PD again");
}

/* Destroying what others still use: EBUSY, and everything still works. */
static void destroy_in_use(struct ibv_context *ctx)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4,
						   .max_sge = 1 } };
	static char buf[4096];
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	srq = pd ? ibv_create_srq(pd, &sia) : NULL;
	qp = srq && cq ? rc_qp(pd, cq, srq) : NULL;
	mr = qp ? ibv_reg_mr(pd, buf, sizeof(buf), 0) : NULL;
	if (!mr) {
		tap_ok(false, "stale: in-use set-up: %s", strerror(errno));
		return;
	}
	tap_errno(ibv_destroy_cq(cq), EBUSY, "stale: destroy a CQ a QP uses");
	tap_errno(ibv_destroy_srq(srq), EBUSY,
		  "stale: destroy an SRQ a QP uses");
	tap_errno(ibv_dealloc_pd(pd), EBUSY,
		  "stale: deallocate a PD with a QP and an MR");
	tap_ok(ibv_poll_cq(cq, 1, &wc) == 0,
	       "stale: the CQ still polls (empty)");
	tap_errno(ibv_destroy_qp(qp), 0, "stale: then destroy the QP");
	tap_errno(ibv_dereg_mr(mr), 0, "stale: the MR");
	tap_errno(ibv_destroy_srq(srq), 0, "stale: the SRQ");
	tap_errno(ibv_destroy_cq(cq), 0, "stale: the CQ");
	tap_errno(ibv_dealloc_pd(pd), 0, "stale: and the PD");
}

/* A CQ handle that exists only in another context of the same device. */
static void other_context(const struct hu_opts *o, struct ibv_pd *pd,
			  struct ibv_cq *good)
{
	struct ibv_context *ctx2 = hu_open(o);
	struct ibv_pd *pds[8];
	struct ibv_cq *cq2;
	int i, n = 0;

	if (!ctx2) {
		tap_ok(false, "stale: a second context");
		return;
	}
	/* push the second context's CQ handle past anything we have */
	for (i = 0; i < 8; i++) {
		pds[i] = ibv_alloc_pd(ctx2);
		n += !!pds[i];
	}
	cq2 = ibv_create_cq(ctx2, 8, NULL, NULL, 0);
	if (!cq2 || n != 8) {
		tap_ok(false, "stale: objects in the second context: %s",
		       strerror(errno));
	} else {
		tap_diag("stale: the other context's CQ has handle %u, ours %u",
			 cq2->handle, good->handle);
		tap_errno(create_qp_with_cq(pd, good, cq2->handle, true),
			  cq2->handle == good->handle ? 0 : ENOENT,
			  "stale: create QP with a CQ handle of another context");
	}
	if (cq2)
		ibv_destroy_cq(cq2);
	for (i = 0; i < 8; i++)
		if (pds[i])
			ibv_dealloc_pd(pds[i]);
	ibv_close_device(ctx2);
}

/*
 * Completions of a destroyed QP (issue 17, finding 1).  Without rings the
 * kernel CQ holds struct ib_wc with a pointer to the QP, and POLL_CQ reads
 * wc->qp->qp_num: a flushed receive still queued when the QP is destroyed
 * would be read from freed memory (slub_debug poisons it: qp_num
 * 0x6b6b6b6b).  The QP's completions must leave the CQ with it.
 */
static void destroyed_qp_completions(struct ibv_context *ctx,
				     struct ibv_pd *pd)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_recv_wr rwr = { .wr_id = 0x5157 }, *rbad;
	struct pabi34_cmd_create_cq ccmd = {};
	struct ib_uverbs_create_cq_resp cresp;
	struct pabi34_cmd_create_qp qcmd = {};
	struct ib_uverbs_create_qp_resp qresp;
	struct pabi34_cmd_modify_qp mcmd = {};
	struct ibv_cq *cq = hu_cq_alloc();
	struct ibv_qp *qp = hu_qp_alloc();
	struct ibv_wc wc[4];
	uint32_t num;
	int ret, n;

	ret = ibv_cmd_create_cq(ctx, 8, NULL, 0, cq, &ccmd, sizeof(ccmd),
				&cresp, sizeof(cresp));
	if (ret) {
		tap_ok(false, "stale: a CQ without ring: %s", hu_err(ret));
		free(cq);
		free(qp);
		return;
	}
	qa.send_cq = cq;
	qa.recv_cq = cq;
	ret = ibv_cmd_create_qp(pd, qp, &qa, &qcmd, sizeof(qcmd), &qresp,
				sizeof(qresp));
	if (ret) {
		tap_ok(false, "stale: a QP without rings: %s", hu_err(ret));
		free(qp);
		hu_free_cq(cq);
		return;
	}
	num = qp->qp_num;
	tap_errno(ibv_cmd_modify_qp(qp, &a, IBV_QP_STATE, &mcmd, sizeof(mcmd)),
		  0, "stale: QP %u without rings to ERR", num);
	tap_errno(ibv_cmd_post_recv(qp, &rwr, &rbad), 0,
		  "stale: post a receive to it (flushed at once)");
	tap_errno(ibv_cmd_destroy_qp(qp), 0,
		  "stale: destroy the QP, its completion not polled");
	free(qp);
	n = ibv_cmd_poll_cq(cq, 4, wc);
	if (n > 0)
		tap_diag("stale: polled wr_id %#llx status %d qp_num %#x",
			 (unsigned long long)wc[0].wr_id, wc[0].status,
			 wc[0].qp_num);
	tap_ok(n == 0,
	       "stale: the CQ no longer returns the destroyed QP's completions (%d)",
	       n);
	hu_free_cq(cq);
}

void hu_case_stale(const struct hu_opts *o)
{
	struct ibv_context *ctx = hu_open(o);
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	if (!ctx) {
		tap_ok(false, "stale: open the device");
		return;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!pd || !cq) {
		tap_ok(false, "stale: PD and CQ: %s", strerror(errno));
	} else {
		stale_cq(ctx, pd, cq);
		stale_qp(pd, cq);
		stale_pd_mr(ctx);
		destroy_in_use(ctx);
		other_context(o, pd, cq);
		destroyed_qp_completions(ctx, pd);
	}
	if (cq)
		tap_errno(ibv_destroy_cq(cq), 0, "stale: our own CQ still destroys");
	if (pd)
		tap_errno(ibv_dealloc_pd(pd), 0, "stale: our own PD still deallocates");
	ibv_close_device(ctx);
}
