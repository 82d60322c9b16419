// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cases that need a connected QP, and the server they talk to.
 *
 * The server accepts one connection at a time, offers a 1 MiB remote
 * read/write area in its accept private data (struct hu_pdata), keeps 64
 * receives posted, and serves until the connection ends, however it
 * ends; then the next.  It prints "listening on", one "conn N:
 * established" and one "conn N: ended: ..." line per connection, which
 * selftests/test_71_hostile_user.sh reads.
 *
 * The client cases break the rules with their own QP: an lkey of another
 * PD or context (RFC 5040 section 7.2 local protection error), an MR
 * deregistered or unmapped under outstanding WRs, fork() with live rings
 * and a registered MR.  "stream" writes until it is killed, or until the
 * server is killed and it must notice.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile_user.h"

#define SRV_RECVS	64
#define SRV_SLOT	(16 << 10)
#define SRV_AREA	(1 << 20)
#define SRV_BUF		(2 * SRV_AREA)

struct hu_pdata {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

static int set_nonblock(int fd)
{
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int resolve(const char *host, const char *port, bool passive,
		   struct rdma_addrinfo **res)
{
	struct rdma_addrinfo hints = {
		.ai_flags = passive ? RAI_PASSIVE : 0,
		.ai_port_space = RDMA_PS_TCP,
	};

	return rdma_getaddrinfo(host, port, &hints, res);
}

/* The next CM event within @ms, or NULL. */
static struct rdma_cm_event *cm_get(struct rdma_event_channel *ech, int ms)
{
	struct pollfd pfd = { .fd = ech->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (!rdma_get_cm_event(ech, &ev))
		return ev;
	if (errno != EAGAIN || poll(&pfd, 1, ms) <= 0)
		return NULL;
	return rdma_get_cm_event(ech, &ev) ? NULL : ev;
}

/* Waits up to @secs for an event of @type; other events are dropped. */
static int cm_wait(struct rdma_event_channel *ech, int type, unsigned int secs,
		   struct hu_pdata *pdata)
{
	double end = hu_now() + secs;
	struct rdma_cm_event *ev;
	int got;

	while (hu_now() < end) {
		ev = cm_get(ech, 100);
		if (!ev)
			continue;
		got = ev->event;
		if (got == type && pdata && ev->param.conn.private_data &&
		    ev->param.conn.private_data_len >= sizeof(*pdata))
			memcpy(pdata, ev->param.conn.private_data,
			       sizeof(*pdata));
		rdma_ack_cm_event(ev);
		if (got == type)
			return 0;
		tap_info("cm event %s while waiting for %s",
			 rdma_event_str(got), rdma_event_str(type));
		if (got == RDMA_CM_EVENT_REJECTED ||
		    got == RDMA_CM_EVENT_UNREACHABLE ||
		    got == RDMA_CM_EVENT_ADDR_ERROR ||
		    got == RDMA_CM_EVENT_ROUTE_ERROR ||
		    got == RDMA_CM_EVENT_CONNECT_ERROR ||
		    got == RDMA_CM_EVENT_DISCONNECTED)
			return ECONNREFUSED;
	}
	return ETIMEDOUT;
}

/* ------------------------------------------------------------ client */

struct hu_cli {
	const struct hu_opts *o;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct hu_pdata remote;
	bool disconnected;
};

static const struct rdma_conn_param cli_param = {
	.initiator_depth = 4, .responder_resources = 4,
	.retry_count = 7,
};

/* A new event channel and id, resolved up to the route to the server. */
static int cli_route(const struct hu_opts *o, struct rdma_event_channel **ech,
		     struct rdma_cm_id **id)
{
	struct rdma_addrinfo *ai = NULL;
	int ret;

	*ech = rdma_create_event_channel();
	if (!*ech || set_nonblock((*ech)->fd) ||
	    rdma_create_id(*ech, id, NULL, RDMA_PS_TCP) ||
	    resolve(o->addr, o->port, false, &ai))
		return errno ? errno : EIO;
	ret = rdma_resolve_addr(*id, NULL, ai->ai_dst_addr, 2000) ? errno :
	      cm_wait(*ech, RDMA_CM_EVENT_ADDR_RESOLVED, o->timeout, NULL);
	rdma_freeaddrinfo(ai);
	if (ret)
		return ret;
	return rdma_resolve_route(*id, 2000) ? errno :
	       cm_wait(*ech, RDMA_CM_EVENT_ROUTE_RESOLVED, o->timeout, NULL);
}

/* Route, PD, CQ and QP: everything but the connection. */
static int cli_setup(const struct hu_opts *o, struct hu_cli *c)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	int ret;

	memset(c, 0, sizeof(*c));
	c->o = o;
	ret = cli_route(o, &c->ech, &c->id);
	if (ret)
		return ret;
	c->ctx = c->id->verbs;
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = ibv_create_cq(c->ctx, 128, NULL, NULL, 0);
	if (!c->pd || !c->cq)
		return errno;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return errno;
	c->qp = c->id->qp;
	return 0;
}

static int cli_establish(struct hu_cli *c)
{
	struct rdma_conn_param cp = cli_param;

	if (rdma_connect(c->id, &cp))
		return errno;
	return cm_wait(c->ech, RDMA_CM_EVENT_ESTABLISHED, c->o->timeout,
		       &c->remote);
}

static int cli_connect(const struct hu_opts *o, struct hu_cli *c)
{
	int ret = cli_setup(o, c);

	return ret ? ret : cli_establish(c);
}

static int cli_close(struct hu_cli *c)
{
	int bad = 0;

	if (c->id && c->qp && !c->disconnected) {
		rdma_disconnect(c->id);
		cm_wait(c->ech, RDMA_CM_EVENT_DISCONNECTED, c->o->timeout,
			NULL);
	}
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		bad |= ibv_destroy_cq(c->cq);
	if (c->pd)
		bad |= ibv_dealloc_pd(c->pd);
	if (c->id)
		bad |= rdma_destroy_id(c->id);
	if (c->ech)
		rdma_destroy_event_channel(c->ech);
	memset(c, 0, sizeof(*c));
	return bad;
}

/* Notes a DISCONNECTED that arrived meanwhile. */
static void cli_events(struct hu_cli *c)
{
	struct rdma_cm_event *ev;

	while ((ev = cm_get(c->ech, 0))) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			c->disconnected = true;
		tap_info("cm event %s", rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
}

/* The next completion within the timeout: 1, 0 (none) or -1. */
static int cli_wc(struct hu_cli *c, struct ibv_wc *wc)
{
	double end = hu_now() + c->o->timeout;
	int n;

	while (hu_now() < end) {
		n = ibv_poll_cq(c->cq, 1, wc);
		if (n)
			return n;
		cli_events(c);
		usleep(1000);
	}
	return 0;
}

static int post_rdma(struct hu_cli *c, enum ibv_wr_opcode op, void *addr,
		     uint32_t len, uint32_t lkey, uint64_t raddr, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = c->remote.rkey },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(c->qp, &wr, &bad);
}

/* One signaled WR and its completion status (-1: none). */
static int rdma_status(struct hu_cli *c, enum ibv_wr_opcode op, void *addr,
		       uint32_t len, uint32_t lkey, uint64_t off)
{
	struct ibv_wc wc;
	int ret;

	ret = post_rdma(c, op, addr, len, lkey, c->remote.addr + off, 7);
	if (ret) {
		tap_diag("post: %s", hu_err(ret));
		return -1;
	}
	if (cli_wc(c, &wc) != 1)
		return -1;
	return wc.status;
}

static const char *wcs(int st)
{
	return st < 0 ? "no completion" :
	       ibv_wc_status_str((enum ibv_wc_status)st);
}

static bool connect_or_fail(const struct hu_opts *o, struct hu_cli *c,
			    const char *name)
{
	int ret = cli_connect(o, c);

	if (ret || c->remote.len < SRV_AREA) {
		tap_ok(false, "%s: connect to %s:%s: %s (remote area %u bytes)",
		       name, o->addr, o->port, strerror(ret), c->remote.len);
		cli_close(c);
		return false;
	}
	return true;
}

/* Waits for the connection to end after a fatal error of our QP. */
static void expect_down(struct hu_cli *c, const char *name)
{
	double end = hu_now() + c->o->timeout;
	struct ibv_wc wc;

	while (!c->disconnected && hu_now() < end) {
		while (ibv_poll_cq(c->cq, 1, &wc) > 0)
			;
		cli_events(c);
		usleep(2000);
	}
	tap_ok(c->disconnected,
	       "%s: the connection ends (DISCONNECTED) after the QP's fatal error",
	       name);
}

/* ----------------------------------------------------------- pd_cross */

static void *area(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memset(p, 0x11, len);
	return p;
}

void hu_case_pd_cross(const struct hu_opts *o)
{
	unsigned char *a = area(1 << 16), *b = area(1 << 16);
	struct ibv_context *ctx2;
	struct ibv_mr *mra, *mrb, *mr2;
	struct ibv_pd *pdb, *pd2;
	struct hu_opts o2 = *o;
	struct hu_cli c;
	int st;

	if (!connect_or_fail(o, &c, "pd_cross"))
		return;
	pdb = ibv_alloc_pd(c.ctx);
	mra = ibv_reg_mr(c.pd, a, 1 << 16, IBV_ACCESS_LOCAL_WRITE);
	mrb = pdb ? ibv_reg_mr(pdb, b, 1 << 16, IBV_ACCESS_LOCAL_WRITE) :
	      NULL;
	if (!mra || !mrb) {
		tap_ok(false, "pd_cross: MRs: %s", strerror(errno));
		cli_close(&c);
		return;
	}
	st = rdma_status(&c, IBV_WR_RDMA_WRITE, a, 4096, mra->lkey, 0);
	tap_ok(st == IBV_WC_SUCCESS,
	       "pd_cross: RDMA Write from an MR of the QP's PD (control): %s",
	       wcs(st));
	st = rdma_status(&c, IBV_WR_RDMA_WRITE, b, 4096, mrb->lkey, 0);
	tap_ok(st == IBV_WC_LOC_PROT_ERR,
	       "pd_cross: RDMA Write from an MR of another PD: %s (got %s)",
	       wcs(IBV_WC_LOC_PROT_ERR), wcs(st));
	expect_down(&c, "pd_cross");
	tap_errno(ibv_dereg_mr(mrb), 0, "pd_cross: the other PD's MR deregisters");
	tap_errno(ibv_dealloc_pd(pdb), 0, "pd_cross: the other PD deallocates");
	tap_errno(ibv_dereg_mr(mra), 0, "pd_cross: our MR deregisters");
	tap_errno(cli_close(&c), 0, "pd_cross: QP, CQ, PD and id destroyed");

	/* an lkey from a second context of the same device */
	if (!connect_or_fail(o, &c, "pd_cross"))
		return;
	o2.dev = ibv_get_device_name(c.ctx->device);
	ctx2 = hu_open(&o2);
	pd2 = ctx2 ? ibv_alloc_pd(ctx2) : NULL;
	mr2 = pd2 ? ibv_reg_mr(pd2, b, 1 << 16, IBV_ACCESS_LOCAL_WRITE) :
	      NULL;
	if (!mr2) {
		tap_ok(false, "pd_cross: an MR in a second context: %s",
		       strerror(errno));
	} else {
		st = rdma_status(&c, IBV_WR_RDMA_WRITE, b, 4096, mr2->lkey, 0);
		tap_ok(st == IBV_WC_LOC_PROT_ERR,
		       "pd_cross: RDMA Write from an MR of another context: %s (got %s)",
		       wcs(IBV_WC_LOC_PROT_ERR), wcs(st));
		expect_down(&c, "pd_cross");
		tap_errno(ibv_dereg_mr(mr2), 0,
			  "pd_cross: the other context's MR deregisters");
	}
	if (pd2)
		ibv_dealloc_pd(pd2);
	if (ctx2)
		ibv_close_device(ctx2);
	tap_errno(cli_close(&c), 0, "pd_cross: second connection torn down");
}

/* -------------------------------------------------------- mr_inflight */

#define INFL_WRS	16
#define INFL_LEN	(SRV_AREA)

/* Collects @n completions: how many of each kind. */
static void reap(struct hu_cli *c, int n, int *ok, int *prot, int *flush,
		 int *other)
{
	struct ibv_wc wc;

	*ok = *prot = *flush = *other = 0;
	while (n-- > 0 && cli_wc(c, &wc) == 1) {
		if (wc.status == IBV_WC_SUCCESS)
			(*ok)++;
		else if (wc.status == IBV_WC_LOC_PROT_ERR)
			(*prot)++;
		else if (wc.status == IBV_WC_WR_FLUSH_ERR)
			(*flush)++;
		else
			(*other)++;
	}
}

static int post_many(struct hu_cli *c, void *buf, uint32_t lkey)
{
	int i, ret = 0;

	for (i = 0; i < INFL_WRS && !ret; i++)
		ret = post_rdma(c, IBV_WR_RDMA_WRITE, buf, INFL_LEN, lkey,
				c->remote.addr, i);
	return ret;
}

void hu_case_mr_inflight(const struct hu_opts *o)
{
	size_t len = INFL_LEN;
	int ok, prot, flush, other, ret;
	struct ibv_mr *mr;
	unsigned char *buf;
	struct hu_cli c;
	double t0;

	if (!connect_or_fail(o, &c, "mr_inflight"))
		return;

	/* the memory goes away first: the pinned pages stay until dereg */
	buf = area(len);
	mr = ibv_reg_mr(c.pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		tap_ok(false, "mr_inflight: MR: %s", strerror(errno));
		cli_close(&c);
		return;
	}
	ret = post_many(&c, buf, mr->lkey);
	munmap(buf, len);
	tap_errno(ret, 0, "mr_inflight: %d x 1 MiB RDMA Writes posted, then the buffer unmapped",
		  INFL_WRS);
	reap(&c, INFL_WRS, &ok, &prot, &flush, &other);
	tap_ok(ok == INFL_WRS,
	       "mr_inflight: all complete successfully from the pinned pages (%d ok, %d prot, %d flush, %d other)",
	       ok, prot, flush, other);
	tap_errno(ibv_dereg_mr(mr), 0, "mr_inflight: then the MR deregisters");

	/* deregistered under outstanding WRs */
	buf = area(len);
	mr = ibv_reg_mr(c.pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		tap_ok(false, "mr_inflight: MR: %s", strerror(errno));
		cli_close(&c);
		return;
	}
	ret = post_many(&c, buf, mr->lkey);
	t0 = hu_now();
	tap_errno(ret, 0, "mr_inflight: %d x 1 MiB RDMA Writes posted again",
		  INFL_WRS);
	tap_errno(ibv_dereg_mr(mr), 0,
		  "mr_inflight: the MR deregistered under them (after %.2f s)",
		  hu_now() - t0);
	munmap(buf, len);
	reap(&c, INFL_WRS, &ok, &prot, &flush, &other);
	tap_ok(ok + prot + flush == INFL_WRS && !other,
	       "mr_inflight: every WR completes once, success or a local protection error or flushed (%d ok, %d prot, %d flush, %d other)",
	       ok, prot, flush, other);
	if (prot)
		expect_down(&c, "mr_inflight");
	tap_errno(cli_close(&c), 0, "mr_inflight: QP, CQ, PD and id destroyed");
}

/* --------------------------------------------------------------- fork */

static sigjmp_buf segv_env;

/* A child's fault: an exit status, not a "segfault at" in the kernel log */
#define FAULT_EXIT(sig)	(100 + (sig))

static void child_fault(int sig)
{
	_exit(FAULT_EXIT(sig));
}

static void *first_ring(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long a;
	void *p = NULL;

	while (f && !p && fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    sscanf(line, "%lx-", &a) == 1)
			p = (void *)a;
	if (f)
		fclose(f);
	return p;
}

/* Writes @buf out and reads it back into @back; true if it matches @v. */
static bool round_trip(struct hu_cli *c, unsigned char *buf,
		       struct ibv_mr *mr, unsigned char *back,
		       struct ibv_mr *mrb, size_t len, unsigned char v)
{
	int st;
	size_t i;

	memset(back, 0, len);
	st = rdma_status(c, IBV_WR_RDMA_WRITE, buf, len, mr->lkey, 0);
	if (st != IBV_WC_SUCCESS) {
		tap_diag("fork: write: %s", wcs(st));
		return false;
	}
	st = rdma_status(c, IBV_WR_RDMA_READ, back, len, mrb->lkey, 0);
	if (st != IBV_WC_SUCCESS) {
		tap_diag("fork: read: %s", wcs(st));
		return false;
	}
	for (i = 0; i < len; i++)
		if (back[i] != v) {
			tap_diag("fork: byte %zu is %#x, not %#x", i, back[i],
				 v);
			return false;
		}
	return true;
}

void hu_case_fork(const struct hu_opts *o)
{
	struct sigaction sa = { .sa_handler = child_fault };
	size_t len = 64 << 10;
	unsigned char *buf, *back;
	unsigned char *ring;
	struct ibv_mr *mr, *mrb;
	struct hu_cli c;
	int st = -1;
	pid_t pid;

	(void)segv_env;
	if (!connect_or_fail(o, &c, "fork"))
		return;
	buf = area(len);
	back = area(len);
	mr = ibv_reg_mr(c.pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	mrb = ibv_reg_mr(c.pd, back, len, IBV_ACCESS_LOCAL_WRITE);
	ring = first_ring();
	if (!mr || !mrb || !ring) {
		tap_ok(false, "fork: MRs and rings: %s", strerror(errno));
		cli_close(&c);
		return;
	}
	memset(buf, 0x22, len);
	tap_ok(round_trip(&c, buf, mr, back, mrb, len, 0x22),
	       "fork: before: 64 KiB written out and read back");

	fflush(stdout);
	pid = fork();
	if (!pid) {
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
		alarm(10);
		/* the child's copy of the MR memory: its own */
		memset(buf, 0x33, len);
		/* the rings: not there (MADV_DONTFORK) */
		(void)__atomic_load_n(ring, __ATOMIC_RELAXED);
		__atomic_store_n(ring, 0xa5, __ATOMIC_RELAXED);
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	tap_ok(st != -1 && WIFEXITED(st) &&
	       (WEXITSTATUS(st) == FAULT_EXIT(SIGSEGV) ||
		WEXITSTATUS(st) == FAULT_EXIT(SIGBUS)),
	       "fork: a child touching the ring area faults: no mapping (status %#x)",
	       st);
	tap_ok(round_trip(&c, buf, mr, back, mrb, len, 0x22),
	       "fork: the child's writes to its copy do not reach the parent's MR");
	/* after fork the parent writes first: its MR must follow */
	memset(buf, 0x44, len);
	tap_ok(round_trip(&c, buf, mr, back, mrb, len, 0x44),
	       "fork: the parent's writes after fork() reach its MR");
	ibv_dereg_mr(mr);
	ibv_dereg_mr(mrb);
	munmap(buf, len);
	munmap(back, len);
	tap_errno(cli_close(&c), 0, "fork: QP, CQ, PD and id destroyed");
}

/* ---------------------------------------------------------- qp_hijack */

/*
 * A QP named by number by a process that did not create it (issue 17,
 * finding 2).  An rdma_cm id without a QP of its own connects with
 * whatever qp_num the user puts in rdma_conn_param: the device must not
 * find another process's QP under it, even one waiting in INIT for its
 * owner's rdma_connect().  The child of fork() is such a process; it
 * exits 0 when rdma_connect() is refused, 1 when it went through.
 */
static int hijack_child(const struct hu_opts *o, uint32_t qpn)
{
	struct rdma_conn_param cp = cli_param;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	int ret;

	alarm(3 * o->timeout + 5);
	if (cli_route(o, &ech, &id))
		return 2;
	cp.qp_num = qpn;
	if (!rdma_connect(id, &cp)) {
		ret = cm_wait(ech, RDMA_CM_EVENT_ESTABLISHED, o->timeout, NULL);
		tap_diag("qp_hijack: rdma_connect() with QP %u went through (%s)",
			 qpn, ret ? hu_err(ret) : "established");
		return 1;
	}
	tap_diag("qp_hijack: rdma_connect() with QP %u: %s", qpn,
		 hu_err(errno));
	return 0;
}

void hu_case_qp_hijack(const struct hu_opts *o)
{
	unsigned char *buf;
	struct ibv_mr *mr;
	struct hu_cli c;
	int ret, st = -1;
	pid_t pid;

	ret = cli_setup(o, &c);
	if (ret) {
		tap_ok(false, "qp_hijack: QP set up for %s:%s: %s", o->addr,
		       o->port, strerror(ret));
		cli_close(&c);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		st = hijack_child(o, c.qp->qp_num);
		fflush(stdout);
		_exit(st);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	tap_ok(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "qp_hijack: another process cannot connect with this process's QP %u (status %#x)",
	       c.qp->qp_num, st);

	ret = cli_establish(&c);
	tap_errno(ret, 0, "qp_hijack: the owner then connects its QP");
	buf = area(4096);
	mr = ibv_reg_mr(c.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ret = !ret && mr ? rdma_status(&c, IBV_WR_RDMA_WRITE, buf, 4096,
				       mr->lkey, 0) : -1;
	tap_ok(ret == IBV_WC_SUCCESS, "qp_hijack: and writes through it: %s",
	       wcs(ret));
	if (mr)
		ibv_dereg_mr(mr);
	munmap(buf, 4096);
	tap_errno(cli_close(&c), 0, "qp_hijack: QP, CQ, PD and id destroyed");
}

/* ------------------------------------------------------------- stream */

void hu_case_stream(const struct hu_opts *o)
{
	size_t len = 64 << 10;
	unsigned char *buf = area(len);
	unsigned long done = 0, posted = 0;
	const char *why = NULL;
	struct ibv_wc wc[16];
	struct ibv_mr *mr;
	struct hu_cli c;
	double end;
	int n, i;

	if (!connect_or_fail(o, &c, "stream"))
		return;
	mr = ibv_reg_mr(c.pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		tap_ok(false, "stream: MR: %s", strerror(errno));
		return;
	}
	/* the selftest kills us, or the server, in the middle of this */
	end = hu_now() + 4 * o->timeout;
	while (!why && hu_now() < end) {
		while (posted - done < 16 &&
		       !post_rdma(&c, IBV_WR_RDMA_WRITE, buf, len, mr->lkey,
				  c.remote.addr, posted))
			posted++;
		n = ibv_poll_cq(c.cq, 16, wc);
		for (i = 0; i < n; i++) {
			done++;
			if (wc[i].status != IBV_WC_SUCCESS && !why)
				why = ibv_wc_status_str(wc[i].status);
		}
		if (done >= 64 && done - n < 64)
			tap_diag("stream: streaming (%lu writes done)", done);
		cli_events(&c);
		if (c.disconnected && !why)
			why = "DISCONNECTED";
		if (!n)
			usleep(500);
	}
	tap_ok(why,
	       "stream: the peer's end is seen after %lu writes: %s", done,
	       why ? why : "nothing within the time limit");
	ibv_dereg_mr(mr);
	tap_errno(cli_close(&c), 0, "stream: QP, CQ, PD and id destroyed");
}

/* ------------------------------------------------------------- server */

struct srv_conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;
	unsigned int n, recvs, errors;
	int first_error;
};

static int srv_stop;

static void srv_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&srv_stop, 1, __ATOMIC_RELAXED);
}

static int srv_post_recv(struct srv_conn *s, uint64_t slot)
{
	struct ibv_sge sge = { (uintptr_t)(s->buf + slot * SRV_SLOT),
			       SRV_SLOT, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(s->id->qp, &wr, &bad);
}

static void srv_teardown(struct srv_conn *s, const char *how)
{
	if (!s->id)
		return;
	printf("conn %u: ended: %s (receives %u, error completions %u%s%s)\n",
	       s->n, how, s->recvs, s->errors, s->errors ? ", first " : "",
	       s->errors ? ibv_wc_status_str(s->first_error) : "");
	fflush(stdout);
	if (s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	rdma_destroy_id(s->id);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static int srv_accept(struct srv_conn *s, struct rdma_cm_id *id,
		      unsigned int n)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = SRV_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct hu_pdata pd;
	struct rdma_conn_param cp = {
		.initiator_depth = 4, .responder_resources = 4,
		.private_data = &pd, .private_data_len = sizeof(pd),
	};
	int i;

	memset(s, 0, sizeof(*s));
	s->id = id;
	s->n = n;
	s->pd = ibv_alloc_pd(id->verbs);
	s->cq = ibv_create_cq(id->verbs, 2 * SRV_RECVS, NULL, NULL, 0);
	if (posix_memalign((void **)&s->buf, 4096, SRV_BUF))
		s->buf = NULL;
	if (!s->pd || !s->cq || !s->buf)
		return -1;
	memset(s->buf, 0, SRV_BUF);
	s->mr = ibv_reg_mr(s->pd, s->buf, SRV_BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	if (!s->mr || rdma_create_qp(id, s->pd, &qa))
		return -1;
	for (i = 0; i < SRV_RECVS; i++)
		if (srv_post_recv(s, i))
			return -1;
	pd.addr = (uintptr_t)s->buf + SRV_AREA;
	pd.rkey = s->mr->rkey;
	pd.len = SRV_AREA;
	return rdma_accept(id, &cp);
}

static void srv_poll(struct srv_conn *s)
{
	struct ibv_wc wc[16];
	int n, i;

	if (!s->cq)
		return;
	n = ibv_poll_cq(s->cq, 16, wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			if (!s->errors++)
				s->first_error = wc[i].status;
			continue;
		}
		if (wc[i].opcode & IBV_WC_RECV) {
			s->recvs++;
			srv_post_recv(s, wc[i].wr_id);
		}
	}
}

int hu_server(const struct hu_opts *o)
{
	struct sigaction sa = { .sa_handler = srv_signal };
	struct rdma_event_channel *ech;
	struct rdma_addrinfo *ai = NULL;
	struct rdma_cm_id *lid;
	struct rdma_cm_event *ev;
	struct srv_conn s = {};
	unsigned int n = 0, ended = 0;
	const char *how;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	ech = rdma_create_event_channel();
	if (!ech || set_nonblock(ech->fd) ||
	    rdma_create_id(ech, &lid, NULL, RDMA_PS_TCP) ||
	    resolve(o->bind, o->port, true, &ai) ||
	    rdma_bind_addr(lid, ai->ai_src_addr) || rdma_listen(lid, 4)) {
		fprintf(stderr, "server: listen on %s:%s: %s\n", o->bind,
			o->port, strerror(errno));
		return 2;
	}
	rdma_freeaddrinfo(ai);
	printf("listening on %s:%s\n", o->bind, o->port);
	fflush(stdout);

	while (!__atomic_load_n(&srv_stop, __ATOMIC_RELAXED) &&
	       (!o->count || ended < o->count)) {
		srv_poll(&s);
		ev = cm_get(ech, s.id ? 2 : 100);
		if (!ev)
			continue;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (s.id) {
				rdma_reject(ev->id, NULL, 0);
				break;
			}
			if (srv_accept(&s, ev->id, ++n)) {
				printf("conn %u: set-up failed: %s\n", n,
				       strerror(errno));
				rdma_reject(ev->id, NULL, 0);
				srv_teardown(&s, "rejected");
				ended++;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			printf("conn %u: established\n", s.n);
			fflush(stdout);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			if (ev->id != s.id)
				break;
			how = rdma_event_str(ev->event);
			srv_poll(&s);
			rdma_ack_cm_event(ev);
			ev = NULL;
			srv_teardown(&s, how);
			ended++;
			break;
		default:
			tap_info("server: cm event %s",
				 rdma_event_str(ev->event));
			break;
		}
		if (ev)
			rdma_ack_cm_event(ev);
	}
	srv_teardown(&s, srv_stop ? "server stopped" : "done");
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(ech);
	printf("server: %u connections, %u ended\n", n, ended);
	return 0;
}
