// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ringtest connections: rdma_cm set-up and teardown (one connection per
 * test case, the case named in the connect private data), resources,
 * events, bounded waits and message helpers.  Nothing blocks: the CM
 * channel, the async fd and completion channels are non-blocking.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "ringtest.h"

double rt_now(void)
{
	return cm_now();
}

double rt_deadline(const struct rt_conn *c)
{
	return rt_now() + c->o->timeout;
}

/* ------------------------------------------------------------ events */

/* Events for another id (the next connect request) wait here (cm.h). */
static struct cm_stash stash;

static void handle_async(struct rt_conn *c)
{
	struct ibv_async_event ae;

	while (c->verbs && !ibv_get_async_event(c->verbs, &ae)) {
		switch (ae.event_type) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
			c->qp_fatal = true;
			break;
		case IBV_EVENT_CQ_ERR:
			c->cq_err = true;
			break;
		case IBV_EVENT_COMM_EST:
		case IBV_EVENT_QP_LAST_WQE_REACHED:
			break;
		default:
			c->async_other = true;
			break;
		}
		tap_info("%s: %s: async event %s", c->tc->name, c->role,
			 ibv_event_type_str(ae.event_type));
		ibv_ack_async_event(&ae);
	}
}

void rt_events(struct rt_conn *c, int ms)
{
	struct rdma_cm_event *ev;

	cm_idle(c->ech, c->verbs ? c->verbs->async_fd : -1, ms);
	while ((ev = cm_next_for(c->ech, &stash, c->id))) {
		tap_info("%s: %s: CM event %s (status %d)", c->tc->name,
			 c->role, rdma_event_str(ev->event), ev->status);
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
		    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			c->disconnected = true;
		rdma_ack_cm_event(ev);
	}
	handle_async(c);
}

int rt_poll(struct rt_conn *c, struct ibv_cq *cq, struct ibv_wc *wc,
	    double deadline)
{
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n > 0 ? 1 : -1;
		if (++spins > 64) {
			rt_events(c, 1);
			if (rt_now() > deadline)
				return 0;
		}
	}
}

int rt_qp_state(struct rt_conn *c)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(c->qp, &attr, IBV_QP_STATE, &init))
		return -1;
	return attr.qp_state;
}

/* ----------------------------------------------------------- messages */

int rt_post_recvs(struct rt_conn *c, unsigned int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	uint32_t slot;
	int ret;

	while (n--) {
		slot = c->rx_next++ % RT_RX_SLOTS;
		sge.addr = (uintptr_t)c->buf + slot * RT_MSG_SIZE;
		sge.length = RT_MSG_SIZE;
		sge.lkey = c->mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = RT_WR_RX | slot;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = ibv_post_recv(c->qp, &wr, &bad);
		if (ret) {
			tap_diag("%s: %s: ibv_post_recv: %s", c->tc->name,
				 c->role, strerror(ret));
			return ret;
		}
	}
	return 0;
}

void rt_msg_wr(struct rt_conn *c, struct ibv_send_wr *wr,
	       struct ibv_sge *sge, uint32_t type, uint32_t seq,
	       uint32_t arg, uint64_t wr_id, unsigned int flags)
{
	uint32_t slot = c->tx_next++ % RT_TX_SLOTS;
	struct rt_msg *m = (struct rt_msg *)(c->buf + (RT_RX_SLOTS + slot) *
					     RT_MSG_SIZE);

	memset(m, 0, sizeof(*m));
	m->magic = RT_MAGIC;
	m->type = type;
	m->seq = seq;
	m->arg = arg;
	sge->addr = (uintptr_t)m;
	sge->length = sizeof(*m);
	sge->lkey = c->mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED | flags;
}

int rt_send(struct rt_conn *c, uint32_t type, uint32_t seq, uint32_t arg,
	    unsigned int flags)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int ret;

	rt_msg_wr(c, &wr, &sge, type, seq, arg, RT_WR_TX | type, flags);
	ret = ibv_post_send(c->qp, &wr, &bad);
	if (ret)
		tap_diag("%s: %s: sending message %u: %s", c->tc->name,
			 c->role, type, strerror(ret));
	return ret;
}

const struct rt_msg *rt_rx_msg(const struct rt_conn *c, uint64_t wr_id)
{
	return (const struct rt_msg *)(c->buf + (wr_id % RT_RX_SLOTS) *
				       RT_MSG_SIZE);
}

bool rt_reap_sends(struct rt_conn *c, unsigned int n)
{
	double deadline = rt_deadline(c);
	struct ibv_wc wc;

	while (n) {
		if (rt_poll(c, c->scq, &wc, deadline) != 1) {
			tap_diag("%s: %s: send completion missing",
				 c->tc->name, c->role);
			return false;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			tap_diag("%s: %s: send %#llx: %s", c->tc->name,
				 c->role, (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
			return false;
		}
		n--;
	}
	return true;
}

bool rt_recv(struct rt_conn *c, uint32_t type, struct rt_msg *msg)
{
	double deadline = rt_deadline(c);
	const struct rt_msg *m;
	struct ibv_wc wc;
	int n;

	n = rt_poll(c, c->rcq, &wc, deadline);
	if (n != 1) {
		tap_diag("%s: %s: no message %u within %us%s", c->tc->name,
			 c->role, type, c->o->timeout,
			 c->disconnected ? " (disconnected)" : "");
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || !(wc.wr_id & RT_WR_RX) ||
	    wc.byte_len != RT_MSG_SIZE) {
		tap_diag("%s: %s: waiting for message %u: %s, %u bytes",
			 c->tc->name, c->role, type,
			 ibv_wc_status_str(wc.status), wc.byte_len);
		return false;
	}
	m = rt_rx_msg(c, wc.wr_id);
	if (m->magic != RT_MAGIC || (type && m->type != type)) {
		tap_diag("%s: %s: got message %u, want %u", c->tc->name,
			 c->role, m->type, type);
		return false;
	}
	if (msg)
		*msg = *m;
	return true;
}

int rt_doorbell(struct rt_conn *c)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req;
	struct ib_uverbs_post_send_resp resp;

	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = c->qp->handle;
	req.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(c->verbs->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno;
	return 0;
}

int rt_ring_maps(struct rt_map *maps, int max)
{
	unsigned long start, end;
	char line[512], path[256];
	int n = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &start, &end,
			   path) >= 2) {
			if (!strncmp(path, "/dev/infiniband/uverbs", 22) &&
			    n < max) {
				maps[n].start = (uint8_t *)start;
				maps[n].len = end - start;
				maps[n].dontfork = false;
				n++;
			}
			continue;
		}
		/* VmFlags follow their mapping's header line */
		if (n && !strncmp(line, "VmFlags:", 8) &&
		    strstr(line, " dc"))
			maps[n - 1].dontfork |= true;
	}
	fclose(f);
	return n;
}

/* ---------------------------------------------------------- resources */

static const struct rt_cfg *conn_cfg(const struct rt_conn *c)
{
	return c->server ? &c->tc->scfg : &c->tc->ccfg;
}

static int conn_resources(struct rt_conn *c)
{
	const struct rt_cfg *cfg = conn_cfg(c);
	struct ibv_qp_init_attr qa;

	c->verbs = c->id->verbs;
	cm_set_nonblock(c->verbs->async_fd);
	c->pd = ibv_alloc_pd(c->verbs);
	if (!c->pd)
		goto err;
	if (cfg->channel) {
		c->cch = ibv_create_comp_channel(c->verbs);
		if (!c->cch || cm_set_nonblock(c->cch->fd))
			goto err;
	}
	c->scq = ibv_create_cq(c->verbs, cfg->scqe, c, NULL, 0);
	c->rcq = ibv_create_cq(c->verbs, cfg->rcqe, c, c->cch, 0);
	if (!c->scq || !c->rcq)
		goto err;
	memset(&qa, 0, sizeof(qa));
	qa.qp_context = c;
	qa.send_cq = c->scq;
	qa.recv_cq = c->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = cfg->sq;
	qa.cap.max_recv_wr = cfg->rq;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 2;
	if (rdma_create_qp(c->id, c->pd, &qa))
		goto err;
	c->qp = c->id->qp;
	c->cap = qa.cap;
	if (posix_memalign((void **)&c->buf, 4096, RT_BUF_SIZE))
		goto err;
	memset(c->buf, 0, RT_BUF_SIZE);
	c->mr = ibv_reg_mr(c->pd, c->buf, RT_BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	if (!c->mr)
		goto err;
	tap_info("%s: %s: granted sq %u rq %u, cqe %d/%d", c->tc->name,
		 c->role, c->cap.max_send_wr, c->cap.max_recv_wr,
		 c->scq->cqe, c->rcq->cqe);
	if (c->tc->prepare)
		return c->tc->prepare(c);
	return rt_post_recvs(c, cfg->prepost);
err:
	tap_diag("%s: %s: setting up PD/CQs/QP/MR: %s", c->tc->name, c->role,
		 strerror(errno));
	return -1;
}

/* Destroys everything; one test point on the destroy verbs' results. */
static void conn_destroy(struct rt_conn *c)
{
	int rq = 0, rs = 0, rr = 0, rp = 0;

	if (c->qp) {
		rq = ibv_destroy_qp(c->qp);
		if (!rq)
			c->id->qp = NULL;
	}
	if (c->mr)
		ibv_dereg_mr(c->mr);
	free(c->buf);
	if (c->rcq && c->cq_events)
		ibv_ack_cq_events(c->rcq, c->cq_events);
	if (c->rcq)
		rr = ibv_destroy_cq(c->rcq);
	if (c->scq)
		rs = ibv_destroy_cq(c->scq);
	if (c->cch)
		ibv_destroy_comp_channel(c->cch);
	if (c->pd)
		rp = ibv_dealloc_pd(c->pd);
	if (c->verbs)
		handle_async(c);
	if (c->qp)
		tap_ok(!rq && !rr && !rs && !rp,
		       "%s: %s: QP, CQs and PD destroyed (%d %d %d %d)",
		       c->tc->name, c->role, rq, rr, rs, rp);
	if (c->id)
		cm_destroy_id(&stash, c->id);
}

static void conn_close(struct rt_conn *c)
{
	double deadline = rt_deadline(c);

	if (!c->established)
		return;
	if (!c->server && !c->disconnected)
		rdma_disconnect(c->id);
	while (!c->disconnected && rt_now() < deadline)
		rt_events(c, 20);
	if (c->server)
		rdma_disconnect(c->id);
	if (!c->disconnected)
		tap_diag("%s: %s: no DISCONNECTED", c->tc->name, c->role);
}

struct rt_hello {
	uint32_t magic;
	char name[40];
};

/* ------------------------------------------------------------- client */

static bool client_connect(struct rt_conn *c, struct sockaddr_storage *dst,
			   bool *retry)
{
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct rt_hello hello = { .magic = RT_MAGIC };
	int type;

	*retry = false;
	switch (cm_route(c->ech, &stash, &c->id, c, NULL, dst, c->o->timeout,
			 &type)) {
	case CM_ROUTED:
		break;
	case CM_FAIL_CREATE:
	case CM_FAIL_ADDR:
		tap_diag("rdma_create_id/resolve_addr: %s", strerror(errno));
		return false;
	case CM_FAIL_ADDR_EVENT:
	case CM_FAIL_ROUTE:
		tap_diag("%s: client: address resolution failed", c->tc->name);
		return false;
	case CM_FAIL_ROUTE_EVENT:
		tap_diag("%s: client: route resolution failed", c->tc->name);
		return false;
	}
	if (conn_resources(c))
		return false;
	snprintf(hello.name, sizeof(hello.name), "%s", c->tc->name);
	cm_conn_param(&param, &hello, sizeof(hello), 4);
	if (cm_connect(c->ech, &stash, c->id, &param, c->o->timeout, &ev)) {
		tap_diag("%s: client: rdma_connect: %s", c->tc->name,
			 strerror(errno));
		return false;
	}
	if (!ev) {
		tap_diag("%s: client: no answer to connect", c->tc->name);
		return false;
	}
	type = ev->event;
	tap_info("%s: client: connect: %s (status %d)", c->tc->name,
		 rdma_event_str(type), ev->status);
	rdma_ack_cm_event(ev);
	if (type == RDMA_CM_EVENT_ESTABLISHED) {
		c->established = true;
		return true;
	}
	*retry = type == RDMA_CM_EVENT_REJECTED ||
		 type == RDMA_CM_EVENT_UNREACHABLE ||
		 type == RDMA_CM_EVENT_CONNECT_ERROR;
	return false;
}

static void client_case(const struct rt_opts *o, const struct rt_case *tc,
			struct sockaddr_storage *dst, bool first)
{
	double retry_until = rt_now() + (first ? o->timeout : 2);
	struct rt_conn *c;
	bool ok, retry;

	for (;;) {
		c = calloc(1, sizeof(*c));
		if (!c)
			abort();
		c->o = o;
		c->tc = tc;
		c->role = "client";
		c->ech = cm_channel();
		if (!c->ech) {
			tap_diag("rdma_create_event_channel: %s",
				 strerror(errno));
			tap_ok(false, "%s: client: connected", tc->name);
			free(c);
			return;
		}
		ok = client_connect(c, dst, &retry);
		if (ok || !retry || rt_now() > retry_until)
			break;
		conn_destroy(c);
		rdma_destroy_event_channel(c->ech);
		free(c);
		usleep(300000);
	}
	tap_ok(ok, "%s: client: connected", tc->name);
	if (ok)
		tc->client(c);
	conn_close(c);
	conn_destroy(c);
	rdma_destroy_event_channel(c->ech);
	free(c);
}

int rt_client(const struct rt_opts *o)
{
	struct sockaddr_storage dst;
	unsigned int i;

	if (cm_resolve("ringtest", o->addr, o->port, false, &dst))
		return 1;
	for (i = 0; i < o->ncases; i++)
		client_case(o, o->cases[i], &dst, !i);
	return 0;
}

/* ------------------------------------------------------------- server */

static void server_case(const struct rt_opts *o, const struct rt_case *tc,
			struct rdma_event_channel *ech)
{
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct rt_hello hello = {};
	struct rt_conn *c;
	int type = -1;
	bool ok;

	/* the client may take a while to tear its previous case down */
	ev = cm_wait_for(ech, &stash, NULL, rt_now() + 3.0 * o->timeout);
	if (!ev) {
		tap_ok(false, "%s: server: a client connects", tc->name);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	c->o = o;
	c->tc = tc;
	c->server = true;
	c->role = "server";
	c->ech = ech;
	c->id = ev->id;
	if (ev->param.conn.private_data &&
	    ev->param.conn.private_data_len >= sizeof(hello))
		memcpy(&hello, ev->param.conn.private_data, sizeof(hello));
	rdma_ack_cm_event(ev);
	hello.name[sizeof(hello.name) - 1] = 0;
	if (hello.magic != RT_MAGIC || strcmp(hello.name, tc->name)) {
		tap_ok(false, "%s: server: the client asks for it (got \"%s\")",
		       tc->name, hello.name);
		rdma_reject(c->id, NULL, 0);
		goto out;
	}
	if (conn_resources(c)) {
		tap_ok(false, "%s: server: connected", tc->name);
		rdma_reject(c->id, NULL, 0);
		goto out;
	}
	cm_conn_param(&param, NULL, 0, 4);
	cm_accept(ech, &stash, c->id, &param, o->timeout, &type);
	ok = type == RDMA_CM_EVENT_ESTABLISHED;
	c->established = ok;
	tap_ok(ok, "%s: server: connected", tc->name);
	if (ok)
		tc->server(c);
	conn_close(c);
out:
	conn_destroy(c);
	free(c);
}

int rt_server(const struct rt_opts *o)
{
	const char *host = o->bind ? o->bind : "0.0.0.0";
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen_id;
	struct sockaddr_storage ss;
	unsigned int i;

	if (cm_resolve("ringtest", host, o->port, true, &ss))
		return 1;
	ech = cm_channel();
	if (!ech || cm_listen(ech, &ss, 8, &listen_id)) {
		fprintf(stderr, "ringtest: listening on %s port %s: %s\n",
			host, o->port, strerror(errno));
		return 1;
	}
	tap_diag("listening on %s port %s", host, o->port);
	for (i = 0; i < o->ncases; i++)
		server_case(o, o->cases[i], ech);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ech);
	return 0;
}
