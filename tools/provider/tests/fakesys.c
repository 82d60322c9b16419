// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD shim that lets libibverbs see fake siw_lite devices, so the
 * provider can be exercised without the kernel module:
 *  - NETLINK_RDMA sockets fail, which makes libibverbs fall back to
 *    scanning $SYSFS_PATH/class/infiniband_verbs;
 *  - /dev/infiniband/<x> is replaced by /dev/null for stat() and open(),
 *    so the fake sysfs gives every uverbs device dev = 1:3;
 *  - opendir("/etc/libibverbs.d") is redirected to $SIWL_TEST_CONFDIR, so
 *    only the providers named in RDMAV_DRIVERS get loaded;
 *  - write() on such a /dev/null fd plays a minimal uverbs kernel for the
 *    legacy write() ABI (ioctl() on /dev/null fails with ENOTTY, which
 *    makes libibverbs use it): GET_CONTEXT answers with the siw_lite ABI
 *    version $SIWL_TEST_ABI (default 1), plus QUERY_DEVICE, QUERY_PORT,
 *    ALLOC/DEALLOC_PD and REG/DEREG_MR; and a loopback "RNIC" for the data
 *    path (see fake_dp_cmd()).  Everything else is EOPNOTSUPP.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include <rdma/siw_lite-abi.h>

#define CDEV_DIR "/dev/infiniband/"
#define CONF_DIR "/etc/libibverbs.d"
#define MAX_FD 1024

/* Which fds are fake uverbs devices. */
static unsigned char fake_fd[MAX_FD];

#define REAL(ret, name, args)						\
	static ret (*real_##name) args;					\
	if (!real_##name)						\
		real_##name = (ret (*) args)dlsym(RTLD_NEXT, #name)

static bool is_cdev(const char *path)
{
	return !strncmp(path, CDEV_DIR, strlen(CDEV_DIR));
}

int socket(int domain, int type, int protocol)
{
	REAL(int, socket, (int, int, int));

	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return real_socket(domain, type, protocol);
}

int stat(const char *path, struct stat *st)
{
	REAL(int, stat, (const char *, struct stat *));

	return real_stat(is_cdev(path) ? "/dev/null" : path, st);
}

static int do_open(int (*real)(const char *, int, ...), const char *path,
		   int flags, mode_t mode)
{
	int fd;

	if (!is_cdev(path))
		return real(path, flags, mode);

	fd = real("/dev/null", flags, mode);
	if (fd >= 0 && fd < MAX_FD)
		fake_fd[fd] = 1;
	return fd;
}

int open(const char *path, int flags, ...)
{
	REAL(int, open, (const char *, int, ...));
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return do_open(real_open, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	REAL(int, open64, (const char *, int, ...));
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return do_open(real_open64, path, flags, mode);
}

int close(int fd)
{
	REAL(int, close, (int));

	if (fd >= 0 && fd < MAX_FD)
		fake_fd[fd] = 0;
	return real_close(fd);
}

DIR *opendir(const char *path)
{
	REAL(DIR *, opendir, (const char *));
	const char *dir = getenv("SIWL_TEST_CONFDIR");

	if (dir && !strcmp(path, CONF_DIR))
		path = dir;
	return real_opendir(path);
}

/* Copy at most out_words * 4 bytes of a response to user space. */
static void reply(const struct ib_uverbs_cmd_hdr *hdr, uint64_t uptr,
		  const void *resp, size_t len)
{
	size_t room = hdr->out_words * 4u;

	memcpy((void *)(uintptr_t)uptr, resp, len < room ? len : room);
}

/*
 * The data path: CQs, RC QPs and SRQs with the limits below, as the legacy
 * write() commands see them.  A QP is connected to itself: a Send lands
 * in its own RQ (or SRQ), an RDMA Write/Read copies straight to/from the
 * remote address of this process.  Any SGE with lkey FAKE_BAD_LKEY makes
 * the kernel refuse that WR (the uverbs bad_wr protocol).  Capacities are
 * granted as asked up to the limits; an SRQ gets one WR more than asked.
 */
#define FAKE_NCQ		8
#define FAKE_NQP		8
#define FAKE_NSRQ		4
#define FAKE_DEPTH		256
#define FAKE_MAX_SGE		6
#define FAKE_MAX_INLINE		64
#define FAKE_BAD_LKEY		0xbadu
#define FAKE_QPN_BASE		0x100
/* The kernel's enum ib_wc_flags, which ib_uverbs copies out verbatim. */
#define FAKE_KWC_WITH_INVALIDATE (1u << 2)

struct fake_rqe {
	uint64_t wr_id;
	uint32_t num_sge;
	struct ib_uverbs_sge sge[FAKE_MAX_SGE];
};

struct fake_rq {
	struct fake_rqe q[FAKE_DEPTH];
	unsigned int head, count, max_wr, max_sge;
};

static struct fake_cq {
	bool used;
	int users;
	unsigned int depth, head, count, armed, arms;
	struct ib_uverbs_wc q[FAKE_DEPTH];
} cqs[FAKE_NCQ];

static struct fake_qp {
	bool used;
	uint32_t scq, rcq, srq;
	bool has_srq, sig_all;
	uint32_t max_send_wr, max_send_sge, max_inline, state;
	struct fake_rq rq;
} qps[FAKE_NQP];

static struct fake_srq {
	bool used;
	int users;
	uint32_t limit;
	struct fake_rq rq;
} srqs[FAKE_NSRQ];

/* The object behind a handle, NULL for a bad one. */
static struct fake_cq *fake_cq(uint32_t h)
{
	return h < FAKE_NCQ && cqs[h].used ? &cqs[h] : NULL;
}

static struct fake_qp *fake_qp(uint32_t h)
{
	return h < FAKE_NQP && qps[h].used ? &qps[h] : NULL;
}

static struct fake_srq *fake_srq(uint32_t h)
{
	return h < FAKE_NSRQ && srqs[h].used ? &srqs[h] : NULL;
}

static int fake_slot(bool *used, size_t stride, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		bool *u = (bool *)((char *)used + i * stride);

		if (!*u) {
			*u = true;
			return i;
		}
	}
	return -1;
}

static void fake_cqe(uint32_t h, uint64_t wr_id, uint32_t status,
		     uint32_t opcode, uint32_t byte_len, uint32_t qpn,
		     uint32_t flags, uint32_t inv)
{
	struct fake_cq *cq = &cqs[h];
	struct ib_uverbs_wc *wc;

	if (cq->count == cq->depth)
		abort();	/* the tests never overrun a CQ */
	wc = &cq->q[(cq->head + cq->count++) % FAKE_DEPTH];
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = status;
	wc->opcode = opcode;
	wc->byte_len = byte_len;
	wc->qp_num = qpn;
	wc->wc_flags = flags;
	wc->ex.invalidate_rkey = inv;
}

/* Gathers a WR's SGEs into buf (the tests stay far below its size). */
static uint32_t fake_gather(const struct ib_uverbs_sge *sge, uint32_t n,
			    char *buf)
{
	uint32_t i, len = 0;

	for (i = 0; i < n; i++) {
		memcpy(buf + len, (void *)(uintptr_t)sge[i].addr,
		       sge[i].length);
		len += sge[i].length;
	}
	return len;
}

/* Scatters len bytes; false when they do not fit. */
static bool fake_scatter(const struct ib_uverbs_sge *sge, uint32_t n,
			 const char *buf, uint32_t len)
{
	uint32_t i, c;

	for (i = 0; i < n && len; i++) {
		c = sge[i].length < len ? sge[i].length : len;
		memcpy((void *)(uintptr_t)sge[i].addr, buf, c);
		buf += c;
		len -= c;
	}
	return !len;
}

static int fake_post_rq(struct fake_rq *rq, const void *req, size_t len,
			const struct ib_uverbs_post_recv *cmd,
			struct ib_uverbs_post_send_resp *resp)
{
	const char *p = (const char *)req + sizeof(*cmd);
	const struct ib_uverbs_sge *sge;
	const struct ib_uverbs_recv_wr *wr;
	uint32_t i;

	if (sizeof(*cmd) + (uint64_t)cmd->wr_count * cmd->wqe_size +
	    (uint64_t)cmd->sge_count * sizeof(*sge) > len ||
	    cmd->wqe_size < sizeof(*wr))
		return EINVAL;
	sge = (const void *)(p + cmd->wr_count * cmd->wqe_size);
	for (i = 0; i < cmd->wr_count; i++) {
		struct fake_rqe *e;

		wr = (const void *)(p + i * cmd->wqe_size);
		if (wr->num_sge > rq->max_sge || rq->count == rq->max_wr ||
		    (wr->num_sge && sge[0].lkey == FAKE_BAD_LKEY)) {
			resp->bad_wr = i + 1;
			return EINVAL;
		}
		e = &rq->q[(rq->head + rq->count++) % FAKE_DEPTH];
		e->wr_id = wr->wr_id;
		e->num_sge = wr->num_sge;
		memcpy(e->sge, sge, wr->num_sge * sizeof(*sge));
		sge += wr->num_sge;
	}
	return 0;
}

static int fake_post_send(const void *req, size_t len,
			  struct ib_uverbs_post_send_resp *resp)
{
	const struct ib_uverbs_post_send *cmd = req;
	const char *p = (const char *)req + sizeof(*cmd);
	const struct ib_uverbs_sge *sge;
	static char data[1 << 16];
	struct fake_qp *qp;
	uint32_t i, j, n;

	qp = len < sizeof(*cmd) ? NULL : fake_qp(cmd->qp_handle);
	if (!qp)
		return EINVAL;
	if (sizeof(*cmd) + (uint64_t)cmd->wr_count * cmd->wqe_size +
	    (uint64_t)cmd->sge_count * sizeof(*sge) > len ||
	    cmd->wqe_size < sizeof(struct ib_uverbs_send_wr))
		return EINVAL;
	sge = (const void *)(p + cmd->wr_count * cmd->wqe_size);

	for (i = 0; i < cmd->wr_count; i++) {
		const struct ib_uverbs_send_wr *wr =
			(const void *)(p + i * cmd->wqe_size);
		struct fake_rq *rq = qp->has_srq ? &srqs[qp->srq].rq : &qp->rq;
		uint32_t qpn = FAKE_QPN_BASE + (qp - qps);
		uint32_t st = IBV_WC_SUCCESS, opc, flags = 0;
		struct fake_rqe *e;

		for (j = 0; j < wr->num_sge; j++)
			if (sge[j].lkey == FAKE_BAD_LKEY)
				break;
		if (wr->num_sge > qp->max_send_sge || j < wr->num_sge) {
			resp->bad_wr = i + 1;
			return EINVAL;
		}
		if (wr->opcode == IBV_WR_SEND_WITH_INV)
			flags = FAKE_KWC_WITH_INVALIDATE;
		switch (wr->opcode) {
		case IBV_WR_SEND_WITH_INV:
		case IBV_WR_SEND:
			opc = IBV_WC_SEND;
			n = fake_gather(sge, wr->num_sge, data);
			if (!rq->count) {
				st = IBV_WC_RNR_RETRY_EXC_ERR;
				break;
			}
			e = &rq->q[rq->head];
			rq->head = (rq->head + 1) % FAKE_DEPTH;
			rq->count--;
			fake_cqe(qp->rcq, e->wr_id,
				 fake_scatter(e->sge, e->num_sge, data, n) ?
					IBV_WC_SUCCESS : IBV_WC_LOC_LEN_ERR,
				 IBV_WC_RECV, n, qpn, flags,
				 flags ? wr->ex.invalidate_rkey : 0);
			break;
		case IBV_WR_RDMA_WRITE:
			opc = IBV_WC_RDMA_WRITE;
			n = fake_gather(sge, wr->num_sge, data);
			memcpy((void *)(uintptr_t)wr->wr.rdma.remote_addr, data,
			       n);
			break;
		case IBV_WR_RDMA_READ:
			opc = IBV_WC_RDMA_READ;
			for (n = 0, j = 0; j < wr->num_sge; j++)
				n += sge[j].length;
			memcpy(data,
			       (void *)(uintptr_t)wr->wr.rdma.remote_addr, n);
			fake_scatter(sge, wr->num_sge, data, n);
			break;
		default:
			resp->bad_wr = i + 1;
			return EINVAL;
		}
		if (qp->sig_all || (wr->send_flags & IBV_SEND_SIGNALED) ||
		    st != IBV_WC_SUCCESS)
			fake_cqe(qp->scq, wr->wr_id, st, opc, n, qpn, 0, 0);
		sge += wr->num_sge;
	}
	return 0;
}

/*
 * The data-path commands; returns -1 for "not one of them".  @resp_buf
 * receives the response (copied out by the caller, resp_len bytes).
 */
static int fake_dp_cmd(const struct ib_uverbs_cmd_hdr *hdr, const void *req,
		       size_t len, void *resp_buf, size_t *resp_len)
{
	union {
		const struct ib_uverbs_create_cq *create_cq;
		const struct ib_uverbs_destroy_cq *destroy_cq;
		const struct ib_uverbs_poll_cq *poll_cq;
		const struct ib_uverbs_req_notify_cq *notify;
		const struct ib_uverbs_create_qp *create_qp;
		const struct ib_uverbs_modify_qp *modify_qp;
		const struct ib_uverbs_query_qp *query_qp;
		const struct ib_uverbs_destroy_qp *destroy_qp;
		const struct ib_uverbs_post_recv *post_recv;
		const struct ib_uverbs_create_srq *create_srq;
		const struct ib_uverbs_modify_srq *modify_srq;
		const struct ib_uverbs_query_srq *query_srq;
		const struct ib_uverbs_destroy_srq *destroy_srq;
	} c = { .create_cq = req };
	struct fake_cq *cq;
	struct fake_qp *qp;
	struct fake_srq *srq;
	int h;

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_CREATE_CQ: {
		struct ib_uverbs_create_cq_resp *r = resp_buf;

		if (c.create_cq->cqe < 1 || c.create_cq->cqe > FAKE_DEPTH)
			return EINVAL;
		h = fake_slot(&cqs[0].used, sizeof(cqs[0]), FAKE_NCQ);
		if (h < 0)
			return ENOMEM;
		cqs[h].depth = c.create_cq->cqe;
		r->cq_handle = h;
		r->cqe = c.create_cq->cqe;
		*resp_len = sizeof(*r);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_CQ:
		cq = fake_cq(c.destroy_cq->cq_handle);
		if (!cq)
			return EINVAL;
		if (cq->users)
			return EBUSY;
		memset(cq, 0, sizeof(*cq));
		/* no events were reported: zeroed resp */
		*resp_len = sizeof(struct ib_uverbs_destroy_cq_resp);
		memset(resp_buf, 0, *resp_len);
		return 0;
	case IB_USER_VERBS_CMD_POLL_CQ: {
		struct ib_uverbs_poll_cq_resp *r = resp_buf;
		unsigned int n = 0;

		cq = fake_cq(c.poll_cq->cq_handle);
		if (!cq)
			return EINVAL;
		while (n < c.poll_cq->ne && n < FAKE_DEPTH && cq->count) {
			r->wc[n++] = cq->q[cq->head];
			cq->head = (cq->head + 1) % FAKE_DEPTH;
			cq->count--;
		}
		r->count = n;
		r->reserved = 0;
		*resp_len = sizeof(*r) + n * sizeof(r->wc[0]);
		return 0;
	}
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
		cq = fake_cq(c.notify->cq_handle);
		if (!cq)
			return EINVAL;
		cq->armed = c.notify->solicited_only ? 2 : 1;
		cq->arms++;
		return 0;
	case IB_USER_VERBS_CMD_CREATE_QP: {
		const struct ib_uverbs_create_qp *q = c.create_qp;
		struct ib_uverbs_create_qp_resp *r = resp_buf;

		if (q->pd_handle != 7 || q->qp_type != IBV_QPT_RC ||
		    !fake_cq(q->send_cq_handle) ||
		    !fake_cq(q->recv_cq_handle) ||
		    (q->is_srq && !fake_srq(q->srq_handle)) ||
		    q->max_send_wr > FAKE_DEPTH ||
		    q->max_recv_wr > FAKE_DEPTH ||
		    q->max_send_sge > FAKE_MAX_SGE ||
		    q->max_recv_sge > FAKE_MAX_SGE ||
		    q->max_inline_data > FAKE_MAX_INLINE)
			return EINVAL;
		h = fake_slot(&qps[0].used, sizeof(qps[0]), FAKE_NQP);
		if (h < 0)
			return ENOMEM;
		qp = &qps[h];
		qp->scq = q->send_cq_handle;
		qp->rcq = q->recv_cq_handle;
		qp->has_srq = q->is_srq;
		qp->srq = q->srq_handle;
		qp->sig_all = q->sq_sig_all;
		qp->max_send_wr = q->max_send_wr;
		qp->max_send_sge = q->max_send_sge;
		qp->max_inline = q->max_inline_data;
		qp->rq.max_wr = q->is_srq ? 0 : q->max_recv_wr;
		qp->rq.max_sge = q->is_srq ? 0 : q->max_recv_sge;
		cqs[qp->scq].users++;
		cqs[qp->rcq].users++;
		if (qp->has_srq)
			srqs[qp->srq].users++;
		memset(r, 0, sizeof(*r));
		r->qp_handle = h;
		r->qpn = FAKE_QPN_BASE + h;
		r->max_send_wr = qp->max_send_wr;
		r->max_recv_wr = qp->rq.max_wr;
		r->max_send_sge = qp->max_send_sge;
		r->max_recv_sge = qp->rq.max_sge;
		r->max_inline_data = qp->max_inline;
		*resp_len = sizeof(*r);
		return 0;
	}
	case IB_USER_VERBS_CMD_MODIFY_QP:
		qp = fake_qp(c.modify_qp->qp_handle);
		if (!qp)
			return EINVAL;
		if (c.modify_qp->attr_mask & IBV_QP_STATE)
			qp->state = c.modify_qp->qp_state;
		return 0;
	case IB_USER_VERBS_CMD_QUERY_QP: {
		struct ib_uverbs_query_qp_resp *r = resp_buf;

		qp = fake_qp(c.query_qp->qp_handle);
		if (!qp)
			return EINVAL;
		memset(r, 0, sizeof(*r));
		r->qp_state = qp->state;
		r->cur_qp_state = qp->state;
		r->max_send_wr = qp->max_send_wr;
		r->max_recv_wr = qp->rq.max_wr;
		r->max_send_sge = qp->max_send_sge;
		r->max_recv_sge = qp->rq.max_sge;
		r->max_inline_data = qp->max_inline;
		r->sq_sig_all = qp->sig_all;
		*resp_len = sizeof(*r);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_QP:
		qp = fake_qp(c.destroy_qp->qp_handle);
		if (!qp)
			return EINVAL;
		cqs[qp->scq].users--;
		cqs[qp->rcq].users--;
		if (qp->has_srq)
			srqs[qp->srq].users--;
		memset(qp, 0, sizeof(*qp));
		*resp_len = sizeof(struct ib_uverbs_destroy_qp_resp);
		memset(resp_buf, 0, *resp_len);
		return 0;
	case IB_USER_VERBS_CMD_POST_SEND:
		*resp_len = sizeof(struct ib_uverbs_post_send_resp);
		memset(resp_buf, 0, *resp_len);
		return fake_post_send(req, len, resp_buf);
	case IB_USER_VERBS_CMD_POST_RECV:
		*resp_len = sizeof(struct ib_uverbs_post_send_resp);
		memset(resp_buf, 0, *resp_len);
		qp = fake_qp(c.post_recv->qp_handle);
		if (!qp || qp->has_srq)
			return EINVAL;
		return fake_post_rq(&qp->rq, req, len, c.post_recv, resp_buf);
	case IB_USER_VERBS_CMD_POST_SRQ_RECV:
		*resp_len = sizeof(struct ib_uverbs_post_send_resp);
		memset(resp_buf, 0, *resp_len);
		/* same layout as POST_RECV, qp_handle holds the SRQ handle */
		srq = fake_srq(c.post_recv->qp_handle);
		if (!srq)
			return EINVAL;
		return fake_post_rq(&srq->rq, req, len, c.post_recv, resp_buf);
	case IB_USER_VERBS_CMD_CREATE_SRQ: {
		struct ib_uverbs_create_srq_resp *r = resp_buf;

		if (c.create_srq->pd_handle != 7 ||
		    c.create_srq->max_wr > FAKE_DEPTH ||
		    c.create_srq->max_sge > FAKE_MAX_SGE)
			return EINVAL;
		h = fake_slot(&srqs[0].used, sizeof(srqs[0]), FAKE_NSRQ);
		if (h < 0)
			return ENOMEM;
		srq = &srqs[h];
		/* grant more than asked, like real devices may */
		srq->rq.max_wr = c.create_srq->max_wr + 1;
		srq->rq.max_sge = c.create_srq->max_sge;
		srq->limit = c.create_srq->srq_limit;
		memset(r, 0, sizeof(*r));
		r->srq_handle = h;
		r->max_wr = srq->rq.max_wr;
		r->max_sge = srq->rq.max_sge;
		*resp_len = sizeof(*r);
		return 0;
	}
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
		srq = fake_srq(c.modify_srq->srq_handle);
		if (!srq)
			return EINVAL;
		if (c.modify_srq->attr_mask & IBV_SRQ_LIMIT)
			srq->limit = c.modify_srq->srq_limit;
		return 0;
	case IB_USER_VERBS_CMD_QUERY_SRQ: {
		struct ib_uverbs_query_srq_resp *r = resp_buf;

		srq = fake_srq(c.query_srq->srq_handle);
		if (!srq)
			return EINVAL;
		memset(r, 0, sizeof(*r));
		r->max_wr = srq->rq.max_wr;
		r->max_sge = srq->rq.max_sge;
		r->srq_limit = srq->limit;
		*resp_len = sizeof(*r);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
		srq = fake_srq(c.destroy_srq->srq_handle);
		if (!srq)
			return EINVAL;
		if (srq->users)
			return EBUSY;
		memset(srq, 0, sizeof(*srq));
		*resp_len = sizeof(struct ib_uverbs_destroy_srq_resp);
		memset(resp_buf, 0, *resp_len);
		return 0;
	}
	return -1;
}

/* Size of each data-path request we accept, by command. */
static size_t fake_min_len(uint32_t cmd)
{
	switch (cmd) {
	case IB_USER_VERBS_CMD_CREATE_CQ:
		return sizeof(struct ib_uverbs_create_cq);
	case IB_USER_VERBS_CMD_DESTROY_CQ:
		return sizeof(struct ib_uverbs_destroy_cq);
	case IB_USER_VERBS_CMD_POLL_CQ:
		return sizeof(struct ib_uverbs_poll_cq);
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
		return sizeof(struct ib_uverbs_req_notify_cq);
	case IB_USER_VERBS_CMD_CREATE_QP:
		return sizeof(struct ib_uverbs_create_qp);
	case IB_USER_VERBS_CMD_MODIFY_QP:
		return sizeof(struct ib_uverbs_modify_qp);
	case IB_USER_VERBS_CMD_QUERY_QP:
		return sizeof(struct ib_uverbs_query_qp);
	case IB_USER_VERBS_CMD_DESTROY_QP:
		return sizeof(struct ib_uverbs_destroy_qp);
	case IB_USER_VERBS_CMD_POST_SEND:
		return sizeof(struct ib_uverbs_post_send);
	case IB_USER_VERBS_CMD_POST_RECV:
	case IB_USER_VERBS_CMD_POST_SRQ_RECV:
		return sizeof(struct ib_uverbs_post_recv);
	case IB_USER_VERBS_CMD_CREATE_SRQ:
		return sizeof(struct ib_uverbs_create_srq);
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
		return sizeof(struct ib_uverbs_modify_srq);
	case IB_USER_VERBS_CMD_QUERY_SRQ:
		return sizeof(struct ib_uverbs_query_srq);
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
		return sizeof(struct ib_uverbs_destroy_srq);
	}
	return 0;
}

/* Commands without a response pointer. */
static bool fake_no_resp(uint32_t cmd)
{
	return cmd == IB_USER_VERBS_CMD_REQ_NOTIFY_CQ ||
	       cmd == IB_USER_VERBS_CMD_MODIFY_QP ||
	       cmd == IB_USER_VERBS_CMD_MODIFY_SRQ;
}

static int fake_cmd(const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const void *req = hdr + 1;
	uint64_t uptr;

	if (len < sizeof(*hdr) || hdr->in_words * 4u != len ||
	    (hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED))
		return EOPNOTSUPP;
	/* every request we play starts with the response pointer */
	memcpy(&uptr, req, sizeof(uptr));

	if (fake_min_len(hdr->command)) {
		static union {
			char buf[1 << 16];
			uint64_t align;
		} resp;
		size_t rlen = 0;
		int ret;

		if (len - sizeof(*hdr) < fake_min_len(hdr->command))
			return EINVAL;
		ret = fake_dp_cmd(hdr, req, len - sizeof(*hdr), resp.buf,
				  &rlen);
		/* uverbs copies the response out even for a failed post */
		if (rlen && !fake_no_resp(hdr->command))
			reply(hdr, uptr, resp.buf, rlen);
		return ret;
	}

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		struct {
			struct ib_uverbs_get_context_resp core;
			struct siw_lite_uresp_alloc_ctx drv;
		} r = {};
		const char *abi = getenv("SIWL_TEST_ABI");

		r.core.async_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		r.core.num_comp_vectors = 1;
		r.drv.abi_version = abi ? atoi(abi) : SIW_LITE_ABI_VERSION;
		r.drv.max_inline = 64;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_DEVICE: {
		struct ib_uverbs_query_device_resp r = {};

		r.fw_ver = 1ull << 32 | 2 << 16 | 3;
		r.vendor_id = 0x626d74;
		r.max_pd = 100;
		r.phys_port_cnt = 1;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_PORT: {
		struct ib_uverbs_query_port_resp r = {};

		r.state = 4;		/* ACTIVE */
		r.max_mtu = r.active_mtu = 3;	/* 1024 */
		r.gid_tbl_len = 1;
		r.phys_state = 5;
		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp r = { .pd_handle = 7 };

		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_REG_MR: {
		struct ib_uverbs_reg_mr_resp r = {
			.mr_handle = 9, .lkey = 0x100, .rkey = 0x200,
		};

		reply(hdr, uptr, &r, sizeof(r));
		return 0;
	}
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DEREG_MR:
		return 0;
	}
	return EOPNOTSUPP;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	REAL(ssize_t, write, (int, const void *, size_t));
	int err;

	if (fd < 0 || fd >= MAX_FD || !fake_fd[fd])
		return real_write(fd, buf, len);

	err = fake_cmd(buf, len);
	if (err) {
		errno = err;
		return -1;
	}
	return len;
}
