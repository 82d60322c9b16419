// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connections: rdma_cm set-up and teardown, per-connection verbs
 * resources, event handling, control messages and bounded waits.
 *
 * Every wait has a deadline (the --timeout per wait); nothing blocks:
 * the CM event channel, the async event fd and completion channels are
 * non-blocking and polled with poll().
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "verbs_test.h"

/* ------------------------------------------------------------- helpers */

double vt_now(void)
{
	return cm_now();
}

double vt_deadline(const struct vt_conn *c)
{
	return vt_now() + c->o->timeout;
}

void *vt_alloc(size_t len)
{
	void *p;
	long pg = sysconf(_SC_PAGESIZE);

	len = (len + pg - 1) / pg * pg;
	if (!len)
		len = pg;
	if (posix_memalign(&p, pg, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

struct ibv_mr *vt_reg(struct vt_conn *c, void *buf, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(c->pd, buf, len, access);

	if (!mr)
		tap_diag("%s: %s: ibv_reg_mr(%zu bytes, access %#x): %s",
			 c->test->name, c->rname, len, access,
			 strerror(errno));
	return mr;
}

const char *vt_wc_status(enum ibv_wc_status st)
{
	return ibv_wc_status_str(st);
}

static void pdata_to_wire(struct vt_pdata *w, const struct vt_pdata *h)
{
	*w = *h;
	w->magic = htobe32(h->magic);
	w->seed = htobe64(h->seed);
	w->budget = htobe32(h->budget);
	w->size_max = htobe32(h->size_max);
	w->addr = htobe64(h->addr);
	w->rkey = htobe32(h->rkey);
	w->len = htobe32(h->len);
}

/* false if @len bytes at @p are no verbs_test private data */
static bool pdata_from_wire(struct vt_pdata *h, const void *p, size_t len)
{
	if (!p || len < sizeof(*h))
		return false;
	memcpy(h, p, sizeof(*h));
	h->magic = be32toh(h->magic);
	h->seed = be64toh(h->seed);
	h->budget = be32toh(h->budget);
	h->size_max = be32toh(h->size_max);
	h->addr = be64toh(h->addr);
	h->rkey = be32toh(h->rkey);
	h->len = be32toh(h->len);
	return h->magic == VT_MAGIC && h->version == VT_VERSION;
}

/* The private data a server rejects with; derived from the seed. */
#define VT_REJ_LEN 48
static void reject_pdata(uint8_t *buf, uint64_t seed, uint8_t kind)
{
	uint32_t magic = htobe32(VT_MAGIC);

	memcpy(buf, &magic, 4);
	buf[4] = kind;		/* 0: the reject test, 1: skip, 2: mismatch */
	vt_pat_fill(buf + 5, vt_pat_key(seed, 0xdeadu, kind), 0,
		    VT_REJ_LEN - 5);
}

/* ---------------------------------------------------------- CM events */

/* Events for another id than the one waited for (cm.h). */
static struct cm_stash stash;

static void handle_async(struct vt_conn *c)
{
	struct ibv_async_event ae;

	while (c->verbs && ibv_get_async_event(c->verbs, &ae) == 0) {
		switch (ae.event_type) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
			if (ae.element.qp == c->qp)
				c->qp_fatal = true;
			break;
		case IBV_EVENT_SRQ_LIMIT_REACHED:
			if (ae.element.srq == c->srq)
				c->srq_limit = true;
			break;
		case IBV_EVENT_CQ_ERR:
		case IBV_EVENT_SRQ_ERR:
		case IBV_EVENT_DEVICE_FATAL:
			c->async_err = true;
			break;
		default:
			break;
		}
		tap_info("%s: %s: async event %s", c->test->name, c->rname,
			 ibv_event_type_str(ae.event_type));
		ibv_ack_async_event(&ae);
	}
}

static void handle_cm(struct vt_conn *c, struct rdma_cm_event *ev)
{
	tap_info("%s: %s: CM event %s, status %d", c->test->name, c->rname,
		 rdma_event_str(ev->event), ev->status);
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
	    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		c->disconnected = true;
		c->disc_status = ev->status;
	}
	rdma_ack_cm_event(ev);
}

void vt_events(struct vt_conn *c, int ms)
{
	struct rdma_cm_event *ev;

	cm_idle(c->ech, c->verbs ? c->verbs->async_fd : -1, ms);
	while ((ev = cm_next_for(c->ech, &stash, c->id)))
		handle_cm(c, ev);
	handle_async(c);
}

int vt_try_poll(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n = ibv_poll_cq(cq, 1, wc);

	return n > 0 ? 1 : n < 0 ? -1 : 0;
}

void vt_idle(struct vt_conn *c)
{
	vt_events(c, 1);
}

int vt_poll_one(struct vt_conn *c, struct ibv_cq *cq, struct ibv_wc *wc,
		double deadline)
{
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = vt_try_poll(cq, wc);
		if (n)
			return n;
		if (++spins > 16) {
			vt_events(c, 1);
			if (vt_now() > deadline)
				return 0;
		}
	}
}

bool vt_wait_disconnected(struct vt_conn *c, double deadline)
{
	while (!c->disconnected && vt_now() < deadline)
		vt_events(c, 20);
	return c->disconnected;
}

bool vt_wait_async(struct vt_conn *c, enum ibv_event_type type,
		   double deadline)
{
	bool *flag = type == IBV_EVENT_SRQ_LIMIT_REACHED ? &c->srq_limit :
		     &c->qp_fatal;

	while (!*flag && vt_now() < deadline)
		vt_events(c, 20);
	return *flag;
}

int vt_qp_state(struct vt_conn *c)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(c->qp, &attr, IBV_QP_STATE, &init))
		return -1;
	return attr.qp_state;
}

/* ---------------------------------------------------- control messages */

int vt_ctrl_post_recv(struct vt_conn *c, unsigned int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	unsigned int slot;
	int ret;

	while (n--) {
		slot = c->ctrl_rx_next++ % VT_CTRL_SLOTS;
		sge.addr = (uintptr_t)&c->ctrl[slot];
		sge.length = sizeof(struct vt_ctrl);
		sge.lkey = c->ctrl_mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = VT_WR_CTRL_RX | slot;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = c->srq ? ibv_post_srq_recv(c->srq, &wr, &bad) :
			       ibv_post_recv(c->qp, &wr, &bad);
		if (ret) {
			tap_diag("%s: %s: posting a control receive: %s",
				 c->test->name, c->rname, strerror(ret));
			return ret;
		}
	}
	return 0;
}

int vt_ctrl_send(struct vt_conn *c, enum vt_ctrl_type type, uint64_t arg0,
		 unsigned int flags)
{
	unsigned int slot = VT_CTRL_SLOTS + c->ctrl_tx_next++ % VT_CTRL_SLOTS;
	struct vt_ctrl *m = &c->ctrl[slot];
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int ret;

	memset(m, 0, sizeof(*m));
	m->magic = VT_MAGIC;
	m->type = type;
	m->arg[0] = arg0;
	sge.addr = (uintptr_t)m;
	sge.length = sizeof(*m);
	sge.lkey = c->ctrl_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = VT_WR_CTRL_TX | slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | flags;
	ret = ibv_post_send(c->qp, &wr, &bad);
	if (ret)
		tap_diag("%s: %s: posting control message %d: %s",
			 c->test->name, c->rname, type, strerror(ret));
	else
		c->ctrl_tx_posted++;
	return ret;
}

bool vt_ctrl_tx_wc(struct vt_conn *c, const struct ibv_wc *wc)
{
	if (!(wc->wr_id & VT_WR_CTRL_TX))
		return false;
	c->ctrl_tx_done++;
	if (wc->status != IBV_WC_SUCCESS)
		tap_diag("%s: %s: control message send: %s", c->test->name,
			 c->rname, vt_wc_status(wc->status));
	return true;
}

bool vt_ctrl_flush(struct vt_conn *c)
{
	double deadline = vt_deadline(c);
	struct ibv_wc wc;
	bool ok = true;

	while (c->ctrl_tx_done < c->ctrl_tx_posted) {
		if (vt_poll_one(c, c->scq, &wc, deadline) != 1) {
			tap_diag("%s: %s: control message send did not complete",
				 c->test->name, c->rname);
			return false;
		}
		if (!vt_ctrl_tx_wc(c, &wc)) {
			tap_diag("%s: %s: unexpected send completion %#llx",
				 c->test->name, c->rname,
				 (unsigned long long)wc.wr_id);
			ok = false;
		} else if (wc.status != IBV_WC_SUCCESS) {
			ok = false;
		}
	}
	return ok;
}

bool vt_ctrl_wait(struct vt_conn *c, enum vt_ctrl_type type,
		  struct vt_ctrl *msg)
{
	struct ibv_wc wc;
	struct vt_ctrl *m;
	int n;

	n = vt_poll_one(c, c->rcq, &wc, vt_deadline(c));
	if (n != 1) {
		tap_diag("%s: %s: no control message %d within %us%s",
			 c->test->name, c->rname, type, c->o->timeout,
			 c->disconnected ? " (disconnected)" : "");
		return false;
	}
	if (!(wc.wr_id & VT_WR_CTRL_RX) || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RECV || wc.byte_len != sizeof(*m)) {
		tap_diag("%s: %s: waiting for control message %d: wr_id %#llx status %s opcode %d len %u",
			 c->test->name, c->rname, type,
			 (unsigned long long)wc.wr_id, vt_wc_status(wc.status),
			 wc.opcode, wc.byte_len);
		return false;
	}
	m = &c->ctrl[wc.wr_id & (VT_CTRL_SLOTS - 1)];
	if (m->magic != VT_MAGIC || m->type != (uint32_t)type) {
		tap_diag("%s: %s: got control message %u, want %d",
			 c->test->name, c->rname, m->type, type);
		return false;
	}
	if (msg)
		*msg = *m;
	return true;
}

int vt_post_probe(struct vt_conn *c, void *buf, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, lkey };
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = VT_WR_PROBE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	return ibv_post_send(c->qp, &wr, &bad);
}

bool vt_probe_flushed(struct vt_conn *c, void *buf, uint32_t lkey,
		      char *why, size_t whylen)
{
	double deadline = vt_deadline(c);
	struct ibv_wc wc;
	int ret;

	ret = vt_post_probe(c, buf, 8, lkey);
	if (ret) {
		snprintf(why, whylen, "post refused: %s", strerror(ret));
		return true;
	}
	for (;;) {
		if (vt_poll_one(c, c->scq, &wc, deadline) != 1) {
			snprintf(why, whylen, "no completion within %us",
				 c->o->timeout);
			return false;
		}
		if (wc.wr_id != VT_WR_PROBE)
			continue;	/* earlier WRs, flushed or not */
		snprintf(why, whylen, "completed with %s",
			 vt_wc_status(wc.status));
		return wc.status == IBV_WC_WR_FLUSH_ERR;
	}
}

/* ------------------------------------------------ connection resources */

static int conn_resources(struct vt_conn *c)
{
	struct vt_qpcfg cfg = { .max_send_wr = 16, .max_recv_wr = 16 };
	struct ibv_qp_init_attr qa;
	struct ibv_srq_init_attr sa;
	uint32_t max_sge;

	if (c->test->qpcfg)
		c->test->qpcfg(c, &cfg);

	c->verbs = c->id->verbs;
	c->iwarp = c->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	if (ibv_query_device(c->verbs, &c->dattr)) {
		tap_diag("%s: %s: ibv_query_device: %s", c->test->name,
			 c->rname, strerror(errno));
		return -1;
	}
	cm_set_nonblock(c->verbs->async_fd);
	max_sge = VT_MIN(6, c->dattr.max_sge);

	c->pd = ibv_alloc_pd(c->verbs);
	if (!c->pd)
		goto err;
	if (cfg.rcq_channel) {
		c->cch = ibv_create_comp_channel(c->verbs);
		if (!c->cch || cm_set_nonblock(c->cch->fd))
			goto err;
	}
	c->scq = ibv_create_cq(c->verbs, cfg.max_send_wr + VT_CTRL_SLOTS + 1,
			       c, NULL, 0);
	c->rcq = ibv_create_cq(c->verbs, cfg.max_recv_wr + VT_CTRL_SLOTS + 1,
			       c, c->cch, 0);
	if (!c->scq || !c->rcq)
		goto err;
	if (cfg.srq) {
		memset(&sa, 0, sizeof(sa));
		sa.attr.max_wr = cfg.max_recv_wr + VT_CTRL_SLOTS;
		sa.attr.max_sge = VT_MIN(6, c->dattr.max_srq_sge);
		c->srq = ibv_create_srq(c->pd, &sa);
		if (!c->srq)
			goto err;
		c->srq_max_sge = sa.attr.max_sge;
	}

	memset(&qa, 0, sizeof(qa));
	qa.qp_context = c;
	qa.send_cq = c->scq;
	qa.recv_cq = c->rcq;
	qa.srq = c->srq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = cfg.max_send_wr + VT_CTRL_SLOTS;
	qa.cap.max_send_sge = max_sge;
	if (!c->srq) {
		qa.cap.max_recv_wr = cfg.max_recv_wr + VT_CTRL_SLOTS;
		qa.cap.max_recv_sge = max_sge;
	}
	if (rdma_create_qp(c->id, c->pd, &qa))
		goto err;
	c->qp = c->id->qp;
	c->cap = qa.cap;

	c->ctrl = vt_alloc(2 * VT_CTRL_SLOTS * sizeof(struct vt_ctrl));
	if (!c->ctrl)
		goto err;
	c->ctrl_mr = vt_reg(c, c->ctrl,
			    2 * VT_CTRL_SLOTS * sizeof(struct vt_ctrl),
			    IBV_ACCESS_LOCAL_WRITE);
	if (!c->ctrl_mr)
		return -1;
	return 0;
err:
	tap_diag("%s: %s: setting up PD/CQs/SRQ/QP: %s", c->test->name,
		 c->rname, strerror(errno));
	return -1;
}

static void conn_destroy(struct vt_conn *c)
{
	if (c->qp)
		rdma_destroy_qp(c->id);
	c->qp = NULL;
	if (c->test->cleanup)
		c->test->cleanup(c);
	if (c->ctrl_mr)
		ibv_dereg_mr(c->ctrl_mr);
	free(c->ctrl);
	if (c->srq && ibv_destroy_srq(c->srq))
		tap_diag("%s: %s: ibv_destroy_srq failed", c->test->name,
			 c->rname);
	if (c->rcq && c->rcq_events)
		ibv_ack_cq_events(c->rcq, c->rcq_events);
	if (c->rcq && ibv_destroy_cq(c->rcq))
		tap_diag("%s: %s: ibv_destroy_cq failed", c->test->name,
			 c->rname);
	if (c->scq && ibv_destroy_cq(c->scq))
		tap_diag("%s: %s: ibv_destroy_cq failed", c->test->name,
			 c->rname);
	if (c->cch)
		ibv_destroy_comp_channel(c->cch);
	if (c->pd && ibv_dealloc_pd(c->pd))
		tap_diag("%s: %s: ibv_dealloc_pd failed", c->test->name,
			 c->rname);
	if (c->verbs)
		handle_async(c);
	if (c->id)
		cm_destroy_id(&stash, c->id);
}

static void conn_param(struct vt_conn *c, struct rdma_conn_param *p,
		       struct vt_pdata *wire)
{
	int rd = VT_MIN(8, VT_MIN(c->dattr.max_qp_rd_atom,
				  c->dattr.max_qp_init_rd_atom));

	pdata_to_wire(wire, &c->mine);
	cm_conn_param(p, wire, sizeof(*wire), rd);
}

/*
 * Ends a connection the test left intact: the client disconnects, the
 * server waits for that (and disconnects itself if it does not come).
 */
static void conn_close(struct vt_conn *c)
{
	double deadline = vt_deadline(c);
	bool ok;

	if (!c->established)
		return;
	if (c->test->breaks) {
		/* the test saw the connection go; just make sure it is */
		if (!c->disconnected)
			rdma_disconnect(c->id);
		vt_wait_disconnected(c, deadline);
		return;
	}
	if (c->role == VT_CLIENT && !c->disconnected &&
	    rdma_disconnect(c->id))
		tap_diag("%s: client: rdma_disconnect: %s", c->test->name,
			 strerror(errno));
	ok = vt_wait_disconnected(c, deadline);
	/*
	 * The passive side disconnects as well once told (rdma_disconnect(3):
	 * both sides call it); it moves the QP to error and, on IB, answers
	 * the DREQ.  Without the event it disconnects to get out.
	 */
	if (c->role == VT_SERVER)
		rdma_disconnect(c->id);
	if (!ok)
		vt_wait_disconnected(c, vt_now() + 2);
	tap_ok(ok, "%s: %s: connection closed (%s)", c->test->name, c->rname,
	       c->role == VT_CLIENT ? "rdma_disconnect" :
	       "DISCONNECTED from the client");
}

/* -------------------------------------------------------------- client */

static bool client_seen_server;

enum { CONN_OK, CONN_REJECTED, CONN_RETRY, CONN_FAIL };

/* The id, the address and the route: false after saying what failed. */
static bool client_route(struct vt_conn *c, struct sockaddr_storage *dst,
			 struct sockaddr_storage *src)
{
	const char *name = c->test->name;
	int event;

	switch (cm_route(c->ech, &stash, &c->id, c, src, dst, c->o->timeout,
			 &event)) {
	case CM_ROUTED:
		return true;
	case CM_FAIL_CREATE:
		tap_diag("rdma_create_id: %s", strerror(errno));
		break;
	case CM_FAIL_ADDR:
		tap_diag("%s: client: rdma_resolve_addr: %s", name,
			 strerror(errno));
		break;
	case CM_FAIL_ADDR_EVENT:
		tap_diag("%s: client: address resolution: %s", name,
			 event < 0 ? "timed out" : rdma_event_str(event));
		break;
	case CM_FAIL_ROUTE:
		tap_diag("%s: client: rdma_resolve_route: %s", name,
			 strerror(errno));
		break;
	case CM_FAIL_ROUTE_EVENT:
		tap_diag("%s: client: route resolution: %s", name,
			 event < 0 ? "timed out" : rdma_event_str(event));
		break;
	}
	return false;
}

/* The server accepted: its private data must be ours. Acks @ev. */
static int client_accepted(struct vt_conn *c, struct rdma_cm_event *ev)
{
	struct vt_pdata peer;

	client_seen_server = true;
	if (!pdata_from_wire(&peer, ev->param.conn.private_data,
			     ev->param.conn.private_data_len)) {
		tap_diag("%s: client: accept carries no verbs_test private data (%u bytes)",
			 c->test->name,
			 ev->param.conn.private_data_len);
		rdma_ack_cm_event(ev);
		c->established = true;
		return CONN_FAIL;
	}
	c->peer = peer;
	c->established = true;
	rdma_ack_cm_event(ev);
	return CONN_OK;
}

/*
 * A reject: the one the test asked for, an agreed skip, the server
 * refusing the test, or nobody listening yet (worth a retry until the
 * server has been seen once). Acks @ev.
 */
static int client_rejected(struct vt_conn *c, struct rdma_cm_event *ev)
{
	const uint8_t *pd = ev->param.conn.private_data;
	unsigned int len = ev->param.conn.private_data_len;
	int status = ev->status;
	uint8_t want[VT_REJ_LEN];
	uint32_t magic = htobe32(VT_MAGIC);
	bool ours = pd && len >= 5 && !memcmp(pd, &magic, 4);
	/* The private data goes with the event: read it before the ack. */
	uint8_t kind = ours ? pd[4] : 0;
	int ret;

	if (ours)
		client_seen_server = true;
	if (c->test->reject) {
		reject_pdata(want, c->seed, 0);
		tap_ok(true, "%s: client: RDMA_CM_EVENT_REJECTED (status %d)",
		       c->test->name, status);
		ret = pd && len >= VT_REJ_LEN &&
		      !memcmp(pd, want, VT_REJ_LEN);
		tap_ok(ret, "%s: client: reject private data arrives intact (%d bytes, %u delivered)",
		       c->test->name, VT_REJ_LEN, len);
		rdma_ack_cm_event(ev);
		return CONN_REJECTED;
	}
	rdma_ack_cm_event(ev);
	if (ours && kind == 1)
		return CONN_REJECTED;	/* agreed skip */
	if (ours) {
		tap_diag("%s: client: the server rejected the test (kind %u)",
			 c->test->name, kind);
		return CONN_FAIL;
	}
	tap_diag("%s: client: rejected (status %d), no server listening?",
		 c->test->name, status);
	return client_seen_server ? CONN_FAIL : CONN_RETRY;
}

static int client_connect(struct vt_conn *c, struct sockaddr_storage *dst,
			  struct sockaddr_storage *src)
{
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct vt_pdata wire;
	int type, status;

	if (!client_route(c, dst, src))
		return CONN_FAIL;
	if (conn_resources(c))
		return CONN_FAIL;
	if (c->test->iwarp_only && !c->iwarp)
		c->mine.flags |= VT_PD_SKIP;
	else if (c->test->prepare && c->test->prepare(c))
		return CONN_FAIL;

	conn_param(c, &param, &wire);
	/*
	 * The server accepts only once it has finished the previous test,
	 * whose last wait may itself take the whole timeout (a peer that
	 * never completes a WR), so one timeout is not enough here.
	 */
	if (cm_connect(c->ech, &stash, c->id, &param,
		       2.0 * c->o->timeout + 5, &ev)) {
		tap_diag("%s: client: rdma_connect: %s", c->test->name,
			 strerror(errno));
		return CONN_FAIL;
	}
	if (!ev) {
		tap_diag("%s: client: no answer to the connect within %us",
			 c->test->name, 2 * c->o->timeout + 5);
		return CONN_FAIL;
	}
	type = ev->event;
	status = ev->status;
	if (type == RDMA_CM_EVENT_ESTABLISHED)
		return client_accepted(c, ev);
	if (type == RDMA_CM_EVENT_REJECTED)
		return client_rejected(c, ev);
	tap_diag("%s: client: connect: %s (status %d)", c->test->name,
		 rdma_event_str(type), status);
	rdma_ack_cm_event(ev);
	if (type == RDMA_CM_EVENT_UNREACHABLE ||
	    type == RDMA_CM_EVENT_CONNECT_ERROR)
		return client_seen_server ? CONN_FAIL : CONN_RETRY;
	return CONN_FAIL;
}

void vt_run_client(const struct vt_opts *o, const struct vt_test *t,
		   uint64_t seed)
{
	struct sockaddr_storage dst, src;
	double retry_until = vt_now() + o->timeout, start;
	struct vt_conn *c;
	int r;

	if (cm_resolve("verbs_test", o->addr, o->port, false, &dst) ||
	    (o->bind && cm_resolve("verbs_test", o->bind, "0", false, &src))) {
		tap_ok(false, "%s: client: connected", t->name);
		return;
	}
	for (;;) {
		c = calloc(1, sizeof(*c));
		if (!c)
			abort();
		c->o = o;
		c->test = t;
		c->role = VT_CLIENT;
		c->rname = "client";
		c->seed = seed;
		c->budget = o->budget;
		c->size_max = o->size_max;
		c->no_empty = o->no_empty;
		c->mine.magic = VT_MAGIC;
		c->mine.version = VT_VERSION;
		c->mine.test = t->id;
		c->mine.seed = seed;
		c->mine.budget = o->budget;
		c->mine.size_max = o->size_max;
		if (o->no_empty)
			c->mine.flags |= VT_PD_NO_EMPTY;
		c->ech = cm_channel();
		if (!c->ech) {
			tap_diag("rdma_create_event_channel: %s",
				 strerror(errno));
			tap_ok(false, "%s: client: connected", t->name);
			free(c);
			return;
		}
		r = client_connect(c, &dst, o->bind ? &src : NULL);
		if (r != CONN_RETRY || vt_now() > retry_until)
			break;
		conn_destroy(c);
		rdma_destroy_event_channel(c->ech);
		free(c);
		usleep(500000);
	}

	if (c->mine.flags & VT_PD_SKIP) {
		if (r == CONN_REJECTED)
			tap_skip("not iWARP", "%s: client: %s", t->name, t->desc);
		else
			tap_ok(false, "%s: client: skip agreed with the server",
			       t->name);
	} else if (!t->reject) {
		/* the active side sends first; see struct vt_test */
		if (r == CONN_OK && !t->no_start &&
		    (vt_ctrl_send(c, VT_CTRL_START, 0, 0) || !vt_ctrl_flush(c))) {
			tap_diag("%s: client: the first message (START) failed",
				 t->name);
			r = CONN_FAIL;
		}
		tap_ok(r == CONN_OK, "%s: client: connected", t->name);
		start = vt_now();
		if (r == CONN_OK && t->run)
			t->run(c);
		if (c->established)
			conn_close(c);
		tap_diag("%s: client: %.1f s", t->name, vt_now() - start);
	} else if (r != CONN_REJECTED) {
		tap_ok(false, "%s: client: connect is rejected", t->name);
		if (r == CONN_OK)
			conn_close(c);
	}
	conn_destroy(c);
	rdma_destroy_event_channel(c->ech);
	free(c);
}

/* -------------------------------------------------------------- server */

int vt_server_listen(const struct vt_opts *o, struct rdma_event_channel **ech,
		     struct rdma_cm_id **listen_id)
{
	struct sockaddr_storage ss;
	const char *host = o->bind ? o->bind : "0.0.0.0";

	if (cm_resolve("verbs_test", host, o->port, true, &ss))
		return -1;
	*ech = cm_channel();
	if (!*ech) {
		fprintf(stderr, "verbs_test: rdma_create_event_channel: %s\n",
			strerror(errno));
		return -1;
	}
	if (cm_listen(*ech, &ss, 8, listen_id)) {
		fprintf(stderr, "verbs_test: listening on %s port %s: %s\n",
			host, o->port, strerror(errno));
		return -1;
	}
	tap_diag("listening on %s port %s", host, o->port);
	return 0;
}

static void server_reject(struct rdma_cm_id *id, uint64_t seed, uint8_t kind)
{
	uint8_t pd[VT_REJ_LEN];

	reject_pdata(pd, seed, kind);
	if (rdma_reject(id, pd, sizeof(pd)))
		tap_diag("rdma_reject: %s", strerror(errno));
}

/*
 * Reads the client's hello from its connect request @ev (acknowledged
 * here) and takes the test it asks for, from o->tests[*next] on: the
 * tests skipped over are reported as not run. False when the client asks
 * for none of ours (rejected).
 */
static bool server_pick(const struct vt_opts *o, unsigned int *next,
			struct vt_conn *c, struct rdma_cm_event *ev)
{
	const struct vt_test *t;
	struct vt_pdata hello;
	unsigned int i;
	bool ok;

	ok = pdata_from_wire(&hello, ev->param.conn.private_data,
			     ev->param.conn.private_data_len);
	rdma_ack_cm_event(ev);
	for (i = *next; ok && i < o->ntests; i++)
		if (o->tests[i]->id == hello.test)
			break;
	if (!ok || i == o->ntests) {
		tap_ok(false, "%s: server: the client asks for a test of our list (got %s %u)",
		       c->test->name, ok ? "test" : "no hello, test",
		       ok ? hello.test : 0);
		server_reject(c->id, ok ? hello.seed : 0, 2);
		return false;
	}
	for (; *next < i; (*next)++)
		tap_ok(false, "%s: server: the client never connected for it",
		       o->tests[*next]->name);
	(*next)++;
	t = o->tests[i];
	c->test = t;
	c->seed = hello.seed;
	c->budget = hello.budget;
	c->size_max = hello.size_max;
	c->no_empty = hello.flags & VT_PD_NO_EMPTY;
	c->peer = hello;
	c->mine.magic = VT_MAGIC;
	c->mine.version = VT_VERSION;
	c->mine.test = t->id;
	c->mine.seed = hello.seed;
	return true;
}

/* Answers the picked test's connect request and runs it. */
static void server_serve(struct vt_conn *c)
{
	const struct vt_test *t = c->test;
	struct rdma_conn_param param;
	struct vt_pdata wire;
	int type;
	bool ok;

	if (c->peer.flags & VT_PD_SKIP) {
		server_reject(c->id, c->seed, 1);
		tap_skip("not iWARP", "%s: server: %s", t->name, t->desc);
		return;
	}
	if (t->reject) {
		uint8_t pd[VT_REJ_LEN];

		reject_pdata(pd, c->seed, 0);
		ok = !rdma_reject(c->id, pd, sizeof(pd));
		tap_ok(ok, "%s: server: rdma_reject with %d bytes of private data%s%s",
		       t->name, VT_REJ_LEN, ok ? "" : ": ",
		       ok ? "" : strerror(errno));
		return;
	}

	/* the client's START comes before anything the test receives */
	if (conn_resources(c) || (!t->no_start && vt_ctrl_post_recv(c, 1)) ||
	    (t->prepare && t->prepare(c))) {
		tap_ok(false, "%s: server: connected", t->name);
		server_reject(c->id, c->seed, 2);
		return;
	}
	conn_param(c, &param, &wire);
	if (cm_accept(c->ech, &stash, c->id, &param, c->o->timeout, &type)) {
		tap_diag("%s: server: rdma_accept: %s", t->name,
			 strerror(errno));
		tap_ok(false, "%s: server: connected", t->name);
		return;
	}
	ok = type == RDMA_CM_EVENT_ESTABLISHED;
	if (!ok)
		tap_diag("%s: server: after accept: %s", t->name,
			 type < 0 ? "timed out" : rdma_event_str(type));
	c->established = ok;
	if (ok && !t->no_start && !vt_ctrl_wait(c, VT_CTRL_START, NULL)) {
		tap_diag("%s: server: no START from the client", t->name);
		ok = false;
	}
	tap_ok(ok, "%s: server: connected", t->name);
	if (ok) {
		double start = vt_now();

		if (t->run)
			t->run(c);
		conn_close(c);
		tap_diag("%s: server: %.1f s", t->name, vt_now() - start);
	} else if (c->established) {
		conn_close(c);
	}
}

/*
 * Serves the next connect request: normally for o->tests[*next]; a client
 * that could not even connect for some tests asks for a later one, and
 * the tests in between are reported as not run.  Returns false when no
 * client came within twice the timeout.
 */
bool vt_run_server(const struct vt_opts *o, unsigned int *next,
		   struct rdma_event_channel *ech)
{
	const struct vt_test *t = o->tests[*next];
	struct rdma_cm_event *ev;
	struct vt_conn *c;

	/* the client may take a while to finish its previous test */
	ev = cm_wait_for(ech, &stash, NULL, vt_now() + 2.0 * o->timeout);
	if (!ev) {
		tap_ok(false, "%s: server: a client connects within %us",
		       t->name, 2 * o->timeout);
		(*next)++;
		return false;
	}

	c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	c->o = o;
	c->test = t;
	c->role = VT_SERVER;
	c->rname = "server";
	c->ech = ech;
	c->id = ev->id;
	if (server_pick(o, next, c, ev))
		server_serve(c);
	conn_destroy(c);
	free(c);
	return true;
}
