// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver data (udata) of the wrong size or with garbage on every verb
 * that carries any, and handles the kernel never gave us or took back.
 *
 * The provider never sends such requests, so they are made with the
 * libibverbs ibv_cmd_* helpers (IBVERBS_PRIVATE_34) that the provider
 * itself uses: libibverbs passes everything after the core request as
 * the driver's request and everything after the core response as room
 * for the driver's response, whatever their sizes.  GET_CONTEXT is
 * written to a freshly opened uverbs file by hand, since a context can
 * be made only once per file.
 *
 * Expected answers (include/uapi/rdma/siw_lite-abi.h): unknown flags and
 * non-zero reserved fields or trailing bytes are EINVAL; a ring request
 * without room for the ring's description is EINVAL; a shorter request
 * must still cover the ABI version 1 fields; a longer response is
 * zero-filled by the kernel past what it knows.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hostile_user.h"

#define CANARY	0x5a

enum hu_kind { HU_CQ, HU_QP, HU_SRQ, HU_NKINDS };

static const struct {
	const char *name;
	size_t core_cmd, core_resp, drv_resp;
	size_t num_off;		/* entries of the ring in the driver response */
} kinds[HU_NKINDS] = {
	[HU_CQ] = { "create CQ", sizeof(struct pabi34_cmd_create_cq),
		    sizeof(struct ib_uverbs_create_cq_resp),
		    sizeof(struct siw_lite_uresp_create_cq),
		    offsetof(struct siw_lite_uresp_create_cq, num_entries) },
	[HU_QP] = { "create QP", sizeof(struct pabi34_cmd_create_qp),
		    sizeof(struct ib_uverbs_create_qp_resp),
		    sizeof(struct siw_lite_uresp_create_qp),
		    offsetof(struct siw_lite_uresp_create_qp, num_sqe) },
	[HU_SRQ] = { "create SRQ", sizeof(struct pabi34_cmd_create_srq),
		     sizeof(struct ib_uverbs_create_srq_resp),
		     sizeof(struct siw_lite_uresp_create_srq),
		     offsetof(struct siw_lite_uresp_create_srq, num_entries) },
};

struct hu_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

#define BIG_IN	4000

static uint64_t cbuf[(128 + BIG_IN + 64) / 8];
static uint64_t rbuf[(128 + 256) / 8];

static sigjmp_buf segv_env;

static void segv_jump(int sig)
{
	siglongjmp(segv_env, sig);
}

/*
 * One create command: 0 or a positive errno; on success the object is
 * destroyed again at once.
 */
static int create_obj(struct hu_env *e, enum hu_kind k, void *cmd,
		      size_t cmd_size, void *resp, size_t resp_size)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	int ret = EINVAL;

	switch (k) {
	case HU_CQ:
		cq = hu_cq_alloc();
		ret = ibv_cmd_create_cq(e->ctx, 16, NULL, 0, cq, cmd, cmd_size,
					resp, resp_size);
		if (ret)
			free(cq);
		else
			hu_free_cq(cq);
		break;
	case HU_QP:
		qp = hu_qp_alloc();
		ret = ibv_cmd_create_qp(e->pd, qp, &qa, cmd, cmd_size, resp,
					resp_size);
		if (ret)
			free(qp);
		else
			hu_free_qp(qp);
		break;
	case HU_SRQ:
		srq = hu_srq_alloc();
		ret = ibv_cmd_create_srq(e->pd, srq, &sa, cmd, cmd_size, resp,
					 resp_size);
		if (ret)
			free(srq);
		else
			hu_free_srq(srq);
		break;
	default:
		break;
	}
	return ret;
}

struct create_test {
	const char *what;
	uint32_t flags, rsvd;
	size_t inlen;		/* driver request bytes */
	int tail;		/* fill of request bytes 8.. (-1: last byte 1) */
	bool no_out;		/* no room for a driver response */
	int out_delta;		/* else: room for ours plus this */
	int want;
	bool ring;		/* a ring must be described on success */
};

#define RING SIW_LITE_USE_RING

static const struct create_test create_tests[] = {
	{ .what = "ring request (control)", .flags = RING, .inlen = 8,
	  .ring = true },
	{ .what = "no driver data at all (control)", .no_out = true },
	{ .what = "unknown flag 0x2", .flags = 0x2, .inlen = 8,
	  .want = EINVAL },
	{ .what = "flags 0xffffffff", .flags = 0xffffffff, .inlen = 8,
	  .want = EINVAL },
	{ .what = "reserved word 1", .flags = RING, .rsvd = 1, .inlen = 8,
	  .want = EINVAL },
	{ .what = "16-byte request, zero tail", .flags = RING, .inlen = 16,
	  .ring = true },
	{ .what = "16-byte request, 0xa5 tail", .flags = RING, .inlen = 16,
	  .tail = 0xa5, .want = EINVAL },
	{ .what = "4000-byte request, last byte 1", .flags = RING,
	  .inlen = BIG_IN, .tail = -1, .want = EINVAL },
	{ .what = "4-byte request (flags only)", .flags = RING, .inlen = 4,
	  .want = EINVAL },
	{ .what = "1-byte request", .flags = RING, .inlen = 1,
	  .want = EINVAL },
	{ .what = "ring request, no response room", .flags = RING,
	  .inlen = 8, .no_out = true, .want = EINVAL },
	{ .what = "ring request, response 1 byte short", .flags = RING,
	  .inlen = 8, .out_delta = -1, .want = EINVAL },
	{ .what = "ring request, response 8 bytes short", .flags = RING,
	  .inlen = 8, .out_delta = -8, .want = EINVAL },
};

static void fill_cmd(enum hu_kind k, const struct create_test *t)
{
	unsigned char *drv = (unsigned char *)cbuf + kinds[k].core_cmd;
	struct siw_lite_ureq_create_cq req = { t->flags, t->rsvd };

	memset(cbuf, 0, sizeof(cbuf));
	memcpy(drv, &req, sizeof(req));
	if (t->tail > 0 && t->inlen > 8)
		memset(drv + 8, t->tail, t->inlen - 8);
	if (t->tail < 0)
		drv[t->inlen - 1] = 1;
}

static void create_tests_run(struct hu_env *e, enum hu_kind k)
{
	const struct create_test *t;
	size_t i, outlen;
	uint32_t num;
	int ret;

	for (i = 0; i < HU_ARRAY_SIZE(create_tests); i++) {
		t = &create_tests[i];
		fill_cmd(k, t);
		outlen = t->no_out ? 0 : kinds[k].drv_resp + t->out_delta;
		memset(rbuf, CANARY, sizeof(rbuf));
		ret = create_obj(e, k, cbuf, kinds[k].core_cmd + t->inlen,
				 rbuf, kinds[k].core_resp + outlen);
		memcpy(&num, (unsigned char *)rbuf + kinds[k].core_resp +
		       kinds[k].num_off, sizeof(num));
		if (!tap_errno(ret, t->want, "udata: %s: %s (in %zu, out %zu)",
			       kinds[k].name, t->what, t->inlen, outlen))
			continue;
		if (t->ring)
			tap_ok(num && !(num & (num - 1)),
			       "udata: %s: %s: a ring of %u entries described",
			       kinds[k].name, t->what, num);
	}
}

/* A response larger than the kernel knows: the rest must be zero. */
static void create_long_resp(struct hu_env *e, enum hu_kind k)
{
	const struct create_test t = { .flags = RING, .inlen = 8 };
	unsigned char *extra;
	size_t n, zero = 0, canary = 0, other = 0;
	int ret;

	fill_cmd(k, &t);
	memset(rbuf, CANARY, sizeof(rbuf));
	ret = create_obj(e, k, cbuf, kinds[k].core_cmd + 8, rbuf,
			 kinds[k].core_resp + kinds[k].drv_resp + 64);
	if (!tap_errno(ret, 0, "udata: %s: ring request, response 64 bytes longer",
		       kinds[k].name))
		return;
	extra = (unsigned char *)rbuf + kinds[k].core_resp +
		kinds[k].drv_resp;
	for (n = 0; n < 64; n++) {
		zero += !extra[n];
		canary += extra[n] == CANARY;
	}
	other = 64 - zero - canary;
	if (zero == 64)
		tap_ok(true, "udata: %s: the 64 extra response bytes are zero-filled",
		       kinds[k].name);
	else
		tap_ok(false, "udata: %s: the 64 extra response bytes are zero-filled (%zu zero, %zu untouched, %zu other)",
		       kinds[k].name, zero, canary, other);
}

/* The driver response on a read-only page: EFAULT and nothing left over. */
static void create_ro_resp(struct hu_env *e, enum hu_kind k)
{
	const struct create_test t = { .flags = RING, .inlen = 8 };
	struct sigaction sa = { .sa_handler = segv_jump }, old;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *m, *resp;
	int ret = 0, sig;

	m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + pg, pg, PROT_READ)) {
		tap_ok(false, "udata: %s: response on a read-only page: set-up: %s",
		       kinds[k].name, strerror(errno));
		return;
	}
	resp = m + pg - kinds[k].core_resp;
	fill_cmd(k, &t);
	sigaction(SIGSEGV, &sa, &old);
	sig = sigsetjmp(segv_env, 1);
	if (!sig)
		ret = create_obj(e, k, cbuf, kinds[k].core_cmd + 8, resp,
				 kinds[k].core_resp + kinds[k].drv_resp);
	sigaction(SIGSEGV, &old, NULL);
	if (sig)
		tap_skip("libibverbs itself writes the driver response",
			 "udata: %s: driver response on a read-only page",
			 kinds[k].name);
	else
		tap_errno(ret, EFAULT,
			  "udata: %s: driver response on a read-only page",
			  kinds[k].name);
	munmap(m, 2 * pg);
}

/* ------------------------------------------------------------ PD, MR */

static void pd_tests(struct hu_env *e)
{
	struct {
		struct pabi34_cmd_alloc_pd ibv;
		unsigned char drv[32];
	} cmd;
	struct {
		struct ib_uverbs_alloc_pd_resp ibv;
		unsigned char drv[32];
	} resp;
	struct ibv_pd *pd;
	size_t n;
	int ret;

	/* zero tail: what an older or newer provider could send */
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, CANARY, sizeof(resp));
	pd = calloc(1, sizeof(*pd));
	ret = ibv_cmd_alloc_pd(e->ctx, pd, &cmd.ibv, sizeof(cmd), &resp.ibv,
			       sizeof(resp));
	if (tap_errno(ret, 0, "udata: alloc PD: 32 zero request bytes, 32 response bytes")) {
		for (n = 0; n < sizeof(resp.drv); n++)
			if (resp.drv[n] && resp.drv[n] != CANARY)
				break;
		tap_ok(n == sizeof(resp.drv),
		       "udata: alloc PD: no garbage in the 32 response bytes");
		ibv_cmd_dealloc_pd(pd);
	}
	free(pd);

	memset(&cmd, 0, sizeof(cmd));
	memset(cmd.drv, 0xa5, sizeof(cmd.drv));
	pd = calloc(1, sizeof(*pd));
	ret = ibv_cmd_alloc_pd(e->ctx, pd, &cmd.ibv, sizeof(cmd), &resp.ibv,
			       sizeof(resp.ibv));
	tap_errno(ret, EINVAL, "udata: alloc PD: 32 request bytes of 0xa5");
	if (!ret)
		ibv_cmd_dealloc_pd(pd);
	free(pd);
}

static void mr_tests(struct hu_env *e)
{
	struct {
		struct pabi34_cmd_reg_mr ibv;
		unsigned char drv[32];
	} cmd;
	struct {
		struct ib_uverbs_reg_mr_resp ibv;
		unsigned char drv[32];
	} resp;
	static char buf[8192];
	struct verbs_mr *vmr;
	int ret, i;

	for (i = 0; i < 3; i++) {
		memset(&cmd, 0, sizeof(cmd));
		if (i == 1)
			memset(cmd.drv, 0xa5, sizeof(cmd.drv));
		if (i == 2)
			cmd.drv[31] = 1;
		vmr = calloc(1, sizeof(*vmr));
		ret = ibv_cmd_reg_mr(e->pd, buf, sizeof(buf), (uintptr_t)buf,
				     IBV_ACCESS_LOCAL_WRITE, vmr, &cmd.ibv,
				     sizeof(cmd), &resp.ibv, sizeof(resp));
		tap_errno(ret, i ? EINVAL : 0,
			  "udata: reg MR: 32 request bytes, %s",
			  i == 0 ? "zero" : i == 1 ? "0xa5" : "last one 1");
		if (!ret)
			ibv_cmd_dereg_mr(vmr);
		free(vmr);
	}

	/* access bits the verbs do not define */
	memset(&cmd, 0, sizeof(cmd));
	vmr = calloc(1, sizeof(*vmr));
	ret = ibv_cmd_reg_mr(e->pd, buf, sizeof(buf), (uintptr_t)buf,
			     IBV_ACCESS_LOCAL_WRITE | (1 << 15), vmr, &cmd.ibv,
			     sizeof(cmd.ibv), &resp.ibv, sizeof(resp.ibv));
	tap_errno(ret, EINVAL, "udata: reg MR: undefined access bit 0x8000");
	if (!ret)
		ibv_cmd_dereg_mr(vmr);
	free(vmr);
}

/* ------------------------------------------------------ modify QP/SRQ */

/* @a leads @qp from RESET to INIT: the extended command must refuse junk. */
static void modify_qp_ex_tests(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	struct {
		struct hu_cmd_modify_qp_ex ibv;
		unsigned char drv[32];
	} mcmd;
	struct {
		struct ib_uverbs_ex_modify_qp_resp ibv;
		unsigned char drv[32];
	} mresp;
	int ret;

	memset(&mcmd, 0, sizeof(mcmd));
	memset(mcmd.drv, 0xa5, sizeof(mcmd.drv));
	ret = ibv_cmd_modify_qp_ex(qp, a, IBV_QP_STATE | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS, &mcmd.ibv,
				   sizeof(mcmd), &mresp.ibv, sizeof(mresp));
	tap_errno(ret, EINVAL, "udata: modify QP (extended): 32 request bytes of 0xa5");

	memset(&mcmd, 0, sizeof(mcmd));
	ret = ibv_cmd_modify_qp_ex(qp, a, IBV_QP_STATE | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS, &mcmd.ibv,
				   sizeof(mcmd), &mresp.ibv, sizeof(mresp));
	tap_errno(ret, 0, "udata: modify QP (extended): 32 zero request bytes, to INIT");
}

/* @qp in INIT: the legacy command with junk tails, masks and values. */
static void modify_qp_legacy_tests(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	struct {
		struct pabi34_cmd_modify_qp ibv;
		unsigned char extra[32];
	} lcmd;
	int ret;

	/* the legacy command has no driver part: the core checks the tail */
	memset(&lcmd, 0, sizeof(lcmd));
	memset(lcmd.extra, 0xa5, sizeof(lcmd.extra));
	a->qp_state = IBV_QPS_RTR;
	ret = ibv_cmd_modify_qp(qp, a, IBV_QP_STATE, &lcmd.ibv, sizeof(lcmd));
	tap_ok(ret == EINVAL || ret == EOPNOTSUPP,
	       "udata: modify QP (legacy): 32 trailing bytes of 0xa5: EINVAL or EOPNOTSUPP (got %s)",
	       hu_err(ret));

	memset(&lcmd, 0, sizeof(lcmd));
	ret = ibv_cmd_modify_qp(qp, a, IBV_QP_STATE | (1 << 30), &lcmd.ibv,
				sizeof(lcmd.ibv));
	tap_ok(ret == EINVAL || ret == EOPNOTSUPP,
	       "udata: modify QP: undefined attr_mask bit 30: EINVAL or EOPNOTSUPP (got %s)",
	       hu_err(ret));

	a->qp_state = 77;
	ret = ibv_cmd_modify_qp(qp, a, IBV_QP_STATE, &lcmd.ibv,
				sizeof(lcmd.ibv));
	tap_errno(ret, EINVAL, "udata: modify QP: state 77");
	a->qp_state = IBV_QPS_RTR;
	a->cur_qp_state = 99;
	ret = ibv_cmd_modify_qp(qp, a, IBV_QP_STATE | IBV_QP_CUR_STATE,
				&lcmd.ibv, sizeof(lcmd.ibv));
	tap_errno(ret, EINVAL, "udata: modify QP: current state 99");
	a->cur_qp_state = 0;
	a->port_num = 9;
	ret = ibv_cmd_modify_qp(qp, a, IBV_QP_PORT, &lcmd.ibv,
				sizeof(lcmd.ibv));
	tap_errno(ret, EINVAL, "udata: modify QP: port 9");
	a->max_rd_atomic = 255;
	ret = ibv_cmd_modify_qp(qp, a, IBV_QP_MAX_QP_RD_ATOMIC, &lcmd.ibv,
				sizeof(lcmd.ibv));
	tap_errno(ret, EINVAL, "udata: modify QP: ORD 255");
}

static void modify_srq_tests(struct hu_env *e)
{
	struct {
		struct pabi34_cmd_modify_srq ibv;
		unsigned char drv[32];
	} scmd;
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 8,
						   .max_sge = 1 } };
	struct ibv_srq_attr sa;
	struct ibv_srq *srq;
	int ret;

	srq = ibv_create_srq(e->pd, &sia);
	if (!srq) {
		tap_ok(false, "udata: modify SRQ: set-up: %s", strerror(errno));
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 2;
	memset(&scmd, 0, sizeof(scmd));
	memset(scmd.drv, 0xa5, sizeof(scmd.drv));
	ret = ibv_cmd_modify_srq(srq, &sa, IBV_SRQ_LIMIT, &scmd.ibv,
				 sizeof(scmd));
	tap_errno(ret, EINVAL, "udata: modify SRQ: 32 request bytes of 0xa5");
	memset(&scmd, 0, sizeof(scmd));
	ret = ibv_cmd_modify_srq(srq, &sa, IBV_SRQ_LIMIT, &scmd.ibv,
				 sizeof(scmd));
	tap_errno(ret, 0, "udata: modify SRQ: 32 zero request bytes, limit 2");
	ret = ibv_cmd_modify_srq(srq, &sa, 0x40000000, &scmd.ibv,
				 sizeof(scmd.ibv));
	tap_errno(ret, EINVAL, "udata: modify SRQ: undefined mask bit 30");
	sa.srq_limit = 100000;
	ret = ibv_cmd_modify_srq(srq, &sa, IBV_SRQ_LIMIT, &scmd.ibv,
				 sizeof(scmd.ibv));
	tap_errno(ret, EINVAL, "udata: modify SRQ: limit 100000 > max_wr");
	ret = ibv_destroy_srq(srq);
	tap_errno(ret, 0, "udata: the SRQ is destroyable afterwards");
}

/* Without a QP to start from, the SRQ tests are skipped as well. */
static void modify_tests(struct hu_env *e)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	int ret;

	qp = ibv_create_qp(e->pd, &qa);
	if (!qp) {
		tap_ok(false, "udata: modify QP: set-up: create QP: %s",
		       strerror(errno));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	modify_qp_ex_tests(qp, &a);
	modify_qp_legacy_tests(qp, &a);
	ret = ibv_destroy_qp(qp);
	tap_errno(ret, 0, "udata: the QP is destroyable afterwards");
	modify_srq_tests(e);
}

/* ------------------------------------------------- GET_CONTEXT by hand */

struct get_ctx_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core;
	unsigned char drv[64];
};

/*
 * Writes GET_CONTEXT with @inlen driver bytes (multiple of 4) and room
 * for @outlen driver response bytes at @resp; 0 or errno.  A context
 * that was made is left on @fd; its async event fd is closed.
 */
static int raw_get_context(int fd, const unsigned char *drv, size_t inlen,
			   void *resp, size_t outlen)
{
	struct get_ctx_cmd c;
	size_t len = sizeof(c.hdr) + sizeof(c.core) + inlen;
	struct ib_uverbs_get_context_resp *r = resp;

	memset(&c, 0, sizeof(c));
	c.hdr.command = IB_USER_VERBS_CMD_GET_CONTEXT;
	c.hdr.in_words = len / 4;
	c.hdr.out_words = (sizeof(*r) + outlen) / 4;
	c.core.response = (uintptr_t)resp;
	if (inlen)
		memcpy(c.drv, drv, inlen);
	if (write(fd, &c, len) != (ssize_t)len)
		return errno;
	close(r->async_fd);
	return 0;
}

static void get_context_tests(struct hu_env *e)
{
	struct {
		struct ib_uverbs_get_context_resp ibv;
		struct siw_lite_uresp_alloc_ctx drv;
		unsigned char extra[48];
	} resp;
	unsigned char drv[64];
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *m;
	size_t n;
	int fd, ret;

	memset(drv, 0xa5, sizeof(drv));
	fd = hu_open_raw(e->ctx);
	if (fd < 0) {
		tap_ok(false, "udata: alloc ucontext: open %s: %s",
		       e->ctx->device->dev_name, strerror(errno));
		return;
	}
	memset(&resp, CANARY, sizeof(resp));
	ret = raw_get_context(fd, drv, 16, &resp, sizeof(resp.drv));
	tap_errno(ret, EINVAL, "udata: alloc ucontext: 16 request bytes of 0xa5");

	/* the failed attempt left nothing behind: the file still works */
	memset(drv, 0, sizeof(drv));
	memset(&resp, CANARY, sizeof(resp));
	ret = raw_get_context(fd, drv, 16, &resp, sizeof(resp.drv) + 48);
	if (tap_errno(ret, 0, "udata: alloc ucontext: then 16 zero bytes, 64 response bytes, same file")) {
		tap_ok(resp.drv.abi_version == SIW_LITE_ABI_VERSION &&
		       (resp.drv.caps & SIW_LITE_CAP_RINGS),
		       "udata: alloc ucontext: ABI %u, caps %#llx",
		       resp.drv.abi_version,
		       (unsigned long long)resp.drv.caps);
		for (n = 0; n < sizeof(resp.extra); n++)
			if (resp.extra[n])
				break;
		if (n == sizeof(resp.extra))
			tap_ok(true, "udata: alloc ucontext: 48 extra response bytes zero-filled");
		else
			tap_ok(false, "udata: alloc ucontext: 48 extra response bytes zero-filled (byte %zu is %#x)",
			       n, resp.extra[n]);
	}
	ret = raw_get_context(fd, drv, 0, &resp, sizeof(resp.drv));
	tap_errno(ret, EINVAL, "udata: alloc ucontext: a second one on the same file");
	close(fd);

	/* a response shorter than ours: an older provider's, truncated */
	fd = hu_open_raw(e->ctx);
	memset(&resp, CANARY, sizeof(resp));
	ret = raw_get_context(fd, drv, 0, &resp, 4);
	if (tap_errno(ret, 0, "udata: alloc ucontext: 4-byte driver response"))
		tap_ok(resp.drv.abi_version == SIW_LITE_ABI_VERSION &&
		       ((unsigned char *)&resp.drv)[4] == CANARY,
		       "udata: alloc ucontext: exactly 4 bytes written (ABI %u)",
		       resp.drv.abi_version);
	close(fd);

	/* the driver response on a read-only page */
	m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + pg, pg, PROT_READ)) {
		tap_ok(false, "udata: alloc ucontext: read-only set-up");
		return;
	}
	fd = hu_open_raw(e->ctx);
	ret = raw_get_context(fd, drv, 0,
			      m + pg - sizeof(struct ib_uverbs_get_context_resp),
			      sizeof(resp.drv));
	tap_errno(ret, EFAULT, "udata: alloc ucontext: driver response on a read-only page");
	ret = raw_get_context(fd, drv, 0, &resp, sizeof(resp.drv));
	tap_errno(ret, 0, "udata: alloc ucontext: then a good one on the same file");
	close(fd);
	munmap(m, 2 * pg);
}

void hu_case_udata(const struct hu_opts *o)
{
	struct hu_env e = {};
	int k;

	e.ctx = hu_open(o);
	if (!e.ctx) {
		tap_ok(false, "udata: open the device");
		return;
	}
	e.pd = ibv_alloc_pd(e.ctx);
	e.cq = e.pd ? ibv_create_cq(e.ctx, 16, NULL, NULL, 0) : NULL;
	if (!e.cq) {
		tap_ok(false, "udata: PD and CQ: %s", strerror(errno));
		goto out;
	}
	for (k = 0; k < HU_NKINDS; k++) {
		create_tests_run(&e, k);
		create_long_resp(&e, k);
		create_ro_resp(&e, k);
	}
	pd_tests(&e);
	mr_tests(&e);
	modify_tests(&e);
	get_context_tests(&e);
out:
	if (e.cq)
		ibv_destroy_cq(e.cq);
	if (e.pd)
		ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
}
