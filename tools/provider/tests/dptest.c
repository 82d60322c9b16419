// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dptest IBDEV: the provider's CQ, QP and SRQ verbs and its data path
 * against fakesys.c's loopback "RNIC" (a QP is connected to itself),
 * through uverbs commands or, with SIWL_TEST_RINGS=1 and DPTEST_RINGS=1,
 * through shared rings (same checks, one differs: see bad_wr_mapping()).
 * Prints one line per step for run.sh to compare; every line ends in
 * "ok" or in what went wrong.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define BAD_LKEY	0xbad	/* fakesys refuses WRs with this lkey */
#define NMSG		40	/* more than one batch of the provider */

static unsigned char sbuf[1 << 16], rbuf[1 << 16];
static int failures;
/* the provider uses shared rings (run.sh says so through the env) */
static bool rings;

static void step(const char *name, bool ok, const char *why)
{
	printf("%s: %s\n", name, ok ? "ok" : why);
	failures += !ok;
}

static const char *err(int e)
{
	return strerror(e);
}

static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	int got = 0, r;

	/* the fake kernel completes synchronously; no waiting needed */
	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r <= 0)
			break;
		got += r;
	}
	return got;
}

static unsigned char pat(unsigned int msg, unsigned int off)
{
	return (unsigned char)(msg * 131 + off * 7 + 1);
}

/* Send/recv through an RQ with 3 SGEs each side; NMSG WRs in one list. */
static void sends(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *smr,
		  struct ibv_mr *rmr)
{
	static struct ibv_sge ssge[NMSG][3], rsge[NMSG][3];
	static struct ibv_send_wr swr[NMSG];
	static struct ibv_recv_wr rwr[NMSG];
	struct ibv_send_wr *sbad = NULL;
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_wc wc[NMSG * 2 + 8];
	unsigned int i, j, len, off;
	bool ok = true;
	int n, ret;

	memset(rbuf, 0xee, sizeof(rbuf));
	for (i = 0; i < NMSG; i++) {
		len = 10 + i;	/* message i: 3 * len bytes */
		for (j = 0; j < 3; j++) {
			off = i * 300 + j * 100;
			ssge[i][j] = (struct ibv_sge){
				(uintptr_t)sbuf + off, len, smr->lkey };
			/* receive pieces are 1 byte longer: room to spare */
			rsge[i][j] = (struct ibv_sge){
				(uintptr_t)rbuf + off, len + 1, rmr->lkey };
			for (off = 0; off < len; off++)
				sbuf[i * 300 + j * 100 + off] =
					pat(i, j * len + off);
		}
		swr[i] = (struct ibv_send_wr){
			.wr_id = 1000 + i, .next = i + 1 < NMSG ? &swr[i + 1] :
			NULL, .sg_list = ssge[i], .num_sge = 3,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		rwr[i] = (struct ibv_recv_wr){
			.wr_id = 2000 + i, .next = i + 1 < NMSG ? &rwr[i + 1] :
			NULL, .sg_list = rsge[i], .num_sge = 3,
		};
	}
	ret = ibv_post_recv(qp, rwr, &rbad);
	step("post_recv 40 x 3 SGEs", !ret, err(ret));
	ret = ibv_post_send(qp, swr, &sbad);
	step("post_send 40 x 3 SGEs", !ret, err(ret));

	n = poll_n(cq, wc, NMSG * 2);
	if (n != NMSG * 2) {
		printf("poll: got %d of %d\n", n, NMSG * 2);
		failures++;
		return;
	}
	for (i = 0; i < NMSG * 2; i++) {
		/* per message: the receive completion, then the send's */
		unsigned int m = i / 2;
		bool recv = !(i & 1);

		if (wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].wr_id != (recv ? 2000u : 1000u) + m ||
		    wc[i].opcode != (recv ? IBV_WC_RECV : IBV_WC_SEND) ||
		    (recv && wc[i].byte_len != 3 * (10 + m)) ||
		    wc[i].qp_num != qp->qp_num || wc[i].wc_flags) {
			printf("wc %u: wr_id %llu status %d opcode %d len %u\n",
			       i, (unsigned long long)wc[i].wr_id,
			       wc[i].status, wc[i].opcode, wc[i].byte_len);
			ok = false;
		}
	}
	/* the bytes land in the receive SGEs in order, the rest untouched */
	for (i = 0; i < NMSG; i++) {
		unsigned int total = 3 * (10 + i), k = 0;

		for (j = 0; j < 3; j++)
			for (off = 0; off < 10 + i + 1; off++) {
				unsigned char b = rbuf[i * 300 + j * 100 + off];

				if (k < total ? b != pat(i, k) : b != 0xee)
					ok = false;
				k++;
			}
	}
	step("80 completions in order, bytes scattered", ok, "mismatch");
	n = ibv_poll_cq(cq, 4, wc);
	step("CQ empty afterwards", n == 0, "not empty");
}

/* The kernel refuses WR 20 of 40: WRs before it are posted. */
static void bad_wr_mapping(struct ibv_qp *qp, struct ibv_cq *cq,
			   struct ibv_mr *smr)
{
	static struct ibv_sge sge[NMSG];
	static struct ibv_send_wr wr[NMSG];
	struct ibv_send_wr *bad = NULL;
	struct ibv_wc wc[NMSG];
	unsigned int i;
	int ret, n;

	for (i = 0; i < NMSG; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)sbuf, 8,
					   i == 20 ? BAD_LKEY : smr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = i, .next = i + 1 < NMSG ? &wr[i + 1] : NULL,
			.sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)rbuf, 0x200 },
		};
	}
	ret = ibv_post_send(qp, wr, &bad);
	if (rings) {
		/*
		 * Through a ring the kernel sees the lkey only when it
		 * executes the WR: every WR is posted, WR 20 fails.
		 */
		step("ring: all 40 posted", !ret, err(ret));
		n = poll_n(cq, wc, NMSG);
		step("ring: WR 20 completes in error, the rest succeed",
		     n == NMSG && wc[20].wr_id == 20 &&
		     wc[20].status == IBV_WC_LOC_PROT_ERR &&
		     wc[20].vendor_err && wc[19].status == IBV_WC_SUCCESS &&
		     wc[39].wr_id == 39 && wc[39].status == IBV_WC_SUCCESS,
		     "wrong completions");
		return;
	}
	step("kernel refuses WR 20", ret == EINVAL, err(ret));
	step("bad_wr points at the caller's WR 20", bad == &wr[20],
	     "wrong bad_wr");
	n = poll_n(cq, wc, NMSG);
	step("WRs 0..19 were posted", n == 20 && wc[19].wr_id == 19,
	     "wrong count");
}

/* WRs the provider refuses itself, before any reaches the kernel. */
static void checks(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *smr)
{
	struct ibv_sge sge[8];
	struct ibv_send_wr wr[2], *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc[4];
	int i, ret;

	for (i = 0; i < 8; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)sbuf, 8, smr->lkey };
	wr[0] = (struct ibv_send_wr){ .wr_id = 1, .next = &wr[1],
		.sg_list = sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)rbuf, 0x200 } };

	wr[1] = wr[0];
	wr[1].next = NULL;
	wr[1].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	bad = NULL;
	ret = ibv_post_send(qp, wr, &bad);
	step("atomic refused, WR before it posted",
	     ret == EINVAL && bad == &wr[1] && poll_n(cq, wc, 4) == 1,
	     err(ret));

	wr[1] = wr[0];
	wr[1].next = NULL;
	wr[1].opcode = IBV_WR_SEND_WITH_IMM;
	ret = ibv_post_send(qp, &wr[1], &bad);
	step("immediate data refused", ret == EINVAL && bad == &wr[1],
	     err(ret));

	wr[1].opcode = IBV_WR_SEND;
	wr[1].num_sge = 7;
	ret = ibv_post_send(qp, &wr[1], &bad);
	step("7 send SGEs refused (max 6)", ret == EINVAL, err(ret));

	wr[1].num_sge = -1;
	ret = ibv_post_send(qp, &wr[1], &bad);
	step("negative num_sge refused", ret == EINVAL, err(ret));

	wr[1].num_sge = 3;	/* 24 bytes inline, QP granted 16 */
	wr[1].send_flags = IBV_SEND_INLINE;
	ret = ibv_post_send(qp, &wr[1], &bad);
	step("inline beyond max_inline_data refused", ret == EINVAL,
	     err(ret));

	wr[1].send_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM;
	ret = ibv_post_send(qp, &wr[1], &bad);
	step("unknown send flag refused", ret == EINVAL, err(ret));

	rwr = (struct ibv_recv_wr){ .wr_id = 9, .sg_list = sge, .num_sge = 5 };
	rbad = NULL;
	ret = ibv_post_recv(qp, &rwr, &rbad);
	step("5 recv SGEs refused (QP has 4)", ret == EINVAL && rbad == &rwr,
	     err(ret));
	step("nothing completed", ibv_poll_cq(cq, 4, wc) == 0, "completed");
}

static void rdma_and_inv(struct ibv_qp *qp, struct ibv_cq *cq,
			 struct ibv_mr *smr, struct ibv_mr *rmr)
{
	struct ibv_sge sge = { (uintptr_t)sbuf, 16, smr->lkey };
	struct ibv_sge rsge = { (uintptr_t)rbuf, 64, rmr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 77, .sg_list = &rsge,
				   .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc[2];
	int ret;

	memcpy(sbuf, "inline payload!", 16);
	memset(rbuf, 0, 64);
	wr = (struct ibv_send_wr){ .wr_id = 5, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.wr.rdma = { (uintptr_t)rbuf + 8, 0x200 } };
	ret = ibv_post_send(qp, &wr, &bad);
	step("inline RDMA Write", !ret && poll_n(cq, wc, 1) == 1 &&
	     wc[0].opcode == IBV_WC_RDMA_WRITE && wc[0].byte_len == 16 &&
	     !memcmp(rbuf + 8, "inline payload!", 16), err(ret));

	memset(sbuf, 0, 16);
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = IBV_WR_RDMA_READ;
	ret = ibv_post_send(qp, &wr, &bad);
	step("RDMA Read", !ret && poll_n(cq, wc, 1) == 1 &&
	     wc[0].opcode == IBV_WC_RDMA_READ &&
	     !memcmp(sbuf, "inline payload!", 16), err(ret));

	ret = ibv_post_recv(qp, &rwr, &rbad);
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x12345678;
	ret = ret ? ret : ibv_post_send(qp, &wr, &bad);
	/* the kernel numbers the flag differently: see dp_cmd.c */
	step("Send with Invalidate", !ret && poll_n(cq, wc, 2) == 2 &&
	     wc[0].wr_id == 77 && wc[0].wc_flags == IBV_WC_WITH_INV &&
	     wc[0].invalidated_rkey == 0x12345678 && wc[1].wr_id == 5,
	     err(ret));
}

static void srq_path(struct ibv_pd *pd, struct ibv_cq *cq,
		     struct ibv_mr *smr, struct ibv_mr *rmr)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 8,
						     .max_sge = 2 } };
	struct ibv_qp_init_attr qattr = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_sge rsge[3], sge = { (uintptr_t)sbuf, 32, smr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 31, .sg_list = rsge,
				   .num_sge = 2 }, *rbad;
	struct ibv_send_wr wr = { .wr_id = 32, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bad;
	struct ibv_srq_attr a;
	struct ibv_wc wc[2];
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	int ret, i;

	srq = ibv_create_srq(pd, &sattr);
	step("create_srq", srq, err(errno));
	if (!srq)
		return;
	step("create_srq reports what was granted", sattr.attr.max_wr == 9,
	     "max_wr not updated");
	a.srq_limit = 3;
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);
	step("modify_srq limit", !ret, err(ret));
	memset(&a, 0, sizeof(a));
	ret = ibv_query_srq(srq, &a);
	step("query_srq", !ret && a.max_wr == 9 && a.max_sge == 2 &&
	     a.srq_limit == 3, err(ret));

	qattr.srq = srq;
	qp = ibv_create_qp(pd, &qattr);
	step("create_qp on the SRQ", qp, err(errno));
	if (!qp)
		goto out;
	for (i = 0; i < 3; i++)
		rsge[i] = (struct ibv_sge){ (uintptr_t)rbuf + 100 * i, 16,
					    rmr->lkey };
	ret = ibv_post_recv(qp, &rwr, &rbad);
	step("post_recv on an SRQ QP refused", ret == EINVAL && rbad == &rwr,
	     err(ret));
	rwr.num_sge = 3;
	ret = ibv_post_srq_recv(srq, &rwr, &rbad);
	step("3 SGEs on a 2-SGE SRQ refused", ret == EINVAL && rbad == &rwr,
	     err(ret));
	rwr.num_sge = 2;
	memset(sbuf, 0x5a, 32);
	memset(rbuf, 0, 300);
	ret = ibv_post_srq_recv(srq, &rwr, &rbad);
	ret = ret ? ret : ibv_post_send(qp, &wr, &bad);
	step("Send into the SRQ", !ret && poll_n(cq, wc, 2) == 2 &&
	     wc[0].wr_id == 31 && wc[0].byte_len == 32 &&
	     wc[0].status == IBV_WC_SUCCESS && rbuf[115] == 0x5a &&
	     rbuf[116] == 0 && rbuf[15] == 0x5a && rbuf[16] == 0 &&
	     wc[1].wr_id == 32, err(ret));

	ret = ibv_destroy_srq(srq);
	step("destroy_srq in use refused", ret == EBUSY, err(ret));
	step("destroy_qp", !ibv_destroy_qp(qp), "failed");
out:
	step("destroy_srq", !ibv_destroy_srq(srq), "failed");
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qattr = {};
	struct ibv_qp_attr attr = {};
	struct ibv_qp_init_attr init = {};
	struct ibv_context *ctx = NULL;
	struct ibv_mr *smr, *rmr;
	struct ibv_device **list;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_qp *qp;
	int i, n, ret;

	if (argc != 2)
		return 2;
	rings = getenv("DPTEST_RINGS") && !strcmp(getenv("DPTEST_RINGS"), "1");
	list = ibv_get_device_list(&n);
	if (!list)
		return 1;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		printf("open: %s\n", strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	smr = pd ? ibv_reg_mr(pd, sbuf, sizeof(sbuf), 0) : NULL;
	rmr = pd ? ibv_reg_mr(pd, rbuf, sizeof(rbuf),
			      IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!smr || !rmr) {
		printf("setup: %s\n", strerror(errno));
		return 1;
	}

	cq = ibv_create_cq(ctx, 200, NULL, NULL, 0);
	step("create_cq", cq && cq->cqe == 200, err(errno));
	if (!cq)
		return 1;
	step("req_notify_cq", !ibv_req_notify_cq(cq, 1), "failed");

	qattr = (struct ibv_qp_init_attr){ .send_cq = cq, .recv_cq = cq,
		.qp_type = IBV_QPT_UD };
	step("UD QP refused", !ibv_create_qp(pd, &qattr) &&
	     errno == EOPNOTSUPP, err(errno));
	qattr.qp_type = IBV_QPT_RC;
	qattr.recv_cq = NULL;
	step("QP without recv CQ refused", !ibv_create_qp(pd, &qattr) &&
	     errno == EINVAL, err(errno));

	qattr = (struct ibv_qp_init_attr){ .send_cq = cq, .recv_cq = cq,
		.qp_type = IBV_QPT_RC, .cap = { .max_send_wr = 64,
		.max_recv_wr = 64, .max_send_sge = 6, .max_recv_sge = 4,
		.max_inline_data = 16 } };
	qp = ibv_create_qp(pd, &qattr);
	step("create_qp RC", qp && qp->qp_num == 0x100 &&
	     qp->state == IBV_QPS_RESET && qp->qp_type == IBV_QPT_RC,
	     err(errno));
	if (!qp)
		return 1;
	step("ibv_qp_to_qp_ex is NULL", !ibv_qp_to_qp_ex(qp), "not NULL");

	attr.qp_state = IBV_QPS_INIT;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	step("modify_qp INIT", !ret && qp->state == IBV_QPS_INIT, err(ret));
	memset(&attr, 0, sizeof(attr));
	ret = ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CAP, &init);
	step("query_qp", !ret && attr.qp_state == IBV_QPS_INIT &&
	     init.cap.max_send_sge == 6 && init.cap.max_recv_sge == 4 &&
	     init.cap.max_inline_data == 16, err(ret));

	sends(qp, cq, smr, rmr);
	bad_wr_mapping(qp, cq, smr);
	checks(qp, cq, smr);
	rdma_and_inv(qp, cq, smr, rmr);
	srq_path(pd, cq, smr, rmr);

	ret = ibv_destroy_cq(cq);
	step("destroy_cq in use refused", ret == EBUSY, err(ret));
	step("destroy_qp", !ibv_destroy_qp(qp), "failed");
	step("destroy_cq", !ibv_destroy_cq(cq), "failed");

	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("failures: %d\n", failures);
	return failures ? 1 : 0;
}
