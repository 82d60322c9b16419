// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * churn: load and object churn for the life-cycle selftest
 * (selftests/test_72_lifecycle.sh).  Five modes:
 *
 *   churn objects --dev DEV [--iters N] [--batch B] [--hold S]
 *	create and destroy PD, CQ, MR, SRQ and QPs, B of each at a time, N
 *	times; with --hold print "holding" at the first peak and sleep S
 *	seconds, so that the caller can count them (or kill us).
 *   churn serve --bind ADDR [--conns N] ...	traffic server
 *   churn pump --connect ADDR [--bind ADDR] [--conns N] [--duration S] ...
 *	N connections writing into each other's memory (RDMA Writes, both
 *	directions) for S seconds, then an orderly disconnect.
 *   churn accept --bind ADDR [--count N] [--stop-listen-after K] [--idle S]
 *	accept connections until N were accepted and closed again; with
 *	--stop-listen-after destroy the listener after K connect requests
 *	and go on serving the connections already there.
 *   churn connect --connect ADDR [--bind ADDR] [--count N] [--expect E]
 *	N connect/disconnect cycles, one after the other; E is "ok" (every
 *	one must connect), "fail" (none may) or "any".
 *
 * Every wait is bounded.  Exit status: 0 success; 1 set-up failure or
 * broken expectation; 2 the traffic ended on an error (completion error,
 * unexpected CM event); 3 the traffic stalled and we gave up.  The last
 * line of output is always "summary: ...".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cm.h"	/* tools/testing/lib */

#define MAX_CONNS	64
#define MSG_SIZE	65536
#define DEPTH		4
#define HELLO_LEN	8

enum {
	EXIT_OK = 0,
	EXIT_SETUP = 1,
	EXIT_ERROR = 2,
	EXIT_STALL = 3,
};

static struct {
	const char *dev;
	const char *bind;
	const char *connect;
	const char *port;
	int iters;
	int batch;
	int hold;
	int conns;
	int duration;
	int stall;
	int down_grace;
	int count;
	int stop_listen_after;
	int idle;
	int timeout;
	const char *expect;
} opt = {
	.port = "7300",
	.iters = 1000,
	.batch = 1,
	.conns = 8,
	.duration = 10,
	.stall = 20,
	.down_grace = 3,
	.count = 200,
	.idle = 10,
	.timeout = 10,
	.expect = "ok",
};

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ------------------------------------------------------------ objects */

/* One round's objects; the arrays start zeroed, so teardown skips holes. */
struct obj_set {
	struct ibv_pd **pd;
	struct ibv_cq **cq;
	struct ibv_mr **mr;
	struct ibv_srq **srq;
	struct ibv_qp **qp;	/* two per PD: own receive queue, then SRQ */
	char *buf;
};

/* Returns the verb that failed (errno still set by it), or NULL. */
static const char *objects_create_one(struct ibv_context *ctx,
				      struct obj_set *o, int i)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	o->pd[i] = ibv_alloc_pd(ctx);
	if (!o->pd[i])
		return "ibv_alloc_pd";
	o->cq[i] = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!o->cq[i])
		return "ibv_create_cq";
	o->mr[i] = ibv_reg_mr(o->pd[i], o->buf + 4096 * i, 4096,
			      IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ);
	if (!o->mr[i])
		return "ibv_reg_mr";
	o->srq[i] = ibv_create_srq(o->pd[i], &sa);
	if (!o->srq[i])
		return "ibv_create_srq";
	qa.send_cq = o->cq[i];
	qa.recv_cq = o->cq[i];
	o->qp[2 * i] = ibv_create_qp(o->pd[i], &qa);
	if (!o->qp[2 * i])
		return "ibv_create_qp";
	/* and one receiving through the SRQ */
	qa.srq = o->srq[i];
	qa.cap.max_recv_wr = 0;
	qa.cap.max_recv_sge = 0;
	o->qp[2 * i + 1] = ibv_create_qp(o->pd[i], &qa);
	if (!o->qp[2 * i + 1])
		return "ibv_create_qp with SRQ";
	return NULL;
}

/* Reverse order; every destroy must succeed. */
static int objects_destroy(struct obj_set *o, int n)
{
	int i, rc = 0;

	for (i = n - 1; i >= 0; i--) {
		if (o->qp[2 * i + 1] && ibv_destroy_qp(o->qp[2 * i + 1])) {
			say("error: ibv_destroy_qp: %s", strerror(errno));
			rc = -1;
		}
		if (o->qp[2 * i] && ibv_destroy_qp(o->qp[2 * i])) {
			say("error: ibv_destroy_qp: %s", strerror(errno));
			rc = -1;
		}
		if (o->srq[i] && ibv_destroy_srq(o->srq[i])) {
			say("error: ibv_destroy_srq: %s", strerror(errno));
			rc = -1;
		}
		if (o->mr[i] && ibv_dereg_mr(o->mr[i])) {
			say("error: ibv_dereg_mr: %s", strerror(errno));
			rc = -1;
		}
		if (o->cq[i] && ibv_destroy_cq(o->cq[i])) {
			say("error: ibv_destroy_cq: %s", strerror(errno));
			rc = -1;
		}
		if (o->pd[i] && ibv_dealloc_pd(o->pd[i])) {
			say("error: ibv_dealloc_pd: %s", strerror(errno));
			rc = -1;
		}
	}
	return rc;
}

static int objects_round(struct ibv_context *ctx, int n, bool hold)
{
	struct obj_set o = {
		.pd = calloc(n, sizeof(*o.pd)),
		.cq = calloc(n, sizeof(*o.cq)),
		.mr = calloc(n, sizeof(*o.mr)),
		.srq = calloc(n, sizeof(*o.srq)),
		.qp = calloc(2 * n, sizeof(*o.qp)),
		.buf = calloc(n, 4096),
	};
	const char *what = NULL;
	int i, rc = 0;

	if (!o.pd || !o.cq || !o.mr || !o.srq || !o.qp || !o.buf) {
		say("error: out of memory");
		rc = -1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		what = objects_create_one(ctx, &o, i);
		if (what)
			break;
	}
	if (what) {
		say("error: %s #%d: %s", what, i, strerror(errno));
		rc = -1;
	} else if (hold) {
		say("holding %d pd, %d cq, %d mr, %d srq, %d qp", n, n, n, n,
		    2 * n);
		fflush(stdout);
		sleep(opt.hold);
	}
	if (objects_destroy(&o, n))
		rc = -1;
out:
	free(o.pd);
	free(o.cq);
	free(o.mr);
	free(o.srq);
	free(o.qp);
	free(o.buf);
	return rc;
}

static int run_objects(void)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	double start = cm_now();
	int i, n, rc = 0;

	if (!opt.dev) {
		say("error: objects needs --dev");
		return EXIT_SETUP;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), opt.dev))
			dev = list[i];
	if (!dev) {
		say("error: no device %s", opt.dev);
		return EXIT_SETUP;
	}
	ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!ctx) {
		say("error: ibv_open_device %s: %s", opt.dev, strerror(errno));
		return EXIT_SETUP;
	}
	for (i = 0; i < opt.iters && !rc; i++)
		rc = objects_round(ctx, opt.batch, opt.hold && i == 0);
	if (ibv_close_device(ctx)) {
		say("error: ibv_close_device: %s", strerror(errno));
		rc = -1;
	}
	say("summary: objects rounds=%d batch=%d (%d objects) %.1fs %s", i,
	    opt.batch, i * opt.batch * 6, cm_now() - start,
	    rc ? "FAILED" : "ok");
	return rc ? EXIT_SETUP : EXIT_OK;
}

/* ------------------------------------------------------------ traffic */

/* What each side tells the other in the connect private data. */
struct peer_mr {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/*
 * Control messages (Sends of one byte), so that each side knows the
 * other has no work request outstanding when the connection closes and
 * flushed work requests mean an error, never a race:
 *   client -> server  HELLO    (iWARP: the active side speaks first)
 *   server -> client  GO       once all connections are up: write
 *   client -> server  BYE      the client's writes are all complete
 *   server -> client  BYE_ACK  so are the server's: disconnect now
 * Each side receives exactly two messages per connection, so two
 * receives posted before connecting are all it needs.
 */
enum { MSG_HELLO = 'H', MSG_GO = 'G', MSG_BYE = 'B', MSG_BYE_ACK = 'A' };
#define NRECV		2
#define CTRL_OFF	(2 * MSG_SIZE)	/* receive slots, then the send slot */
#define BUF_SIZE	(CTRL_OFF + (NRECV + 1) * HELLO_LEN)

enum { WR_SEND = 2, WR_WRITE = 3, WR_RECV = 10 /* + slot */ };

struct conn {
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	/* [0, MSG_SIZE): the peer writes here; then our write source */
	char *buf;
	struct peer_mr peer;
	int inflight;
	bool have_peer;
	bool up;		/* established */
	bool ready;		/* server: HELLO in; client: GO in */
	bool writing;		/* may post writes */
	bool stopping;		/* client: duration over, BYE due */
	bool bye_sent;
	bool got_bye;		/* server: BYE_ACK due */
	bool ack_sent;
	bool closing;		/* disconnect seen or started */
	bool gone;
	unsigned long writes;
};

static struct conn conns[MAX_CONNS];
static int nconns;
static bool is_server;
static bool go_sent;
static struct ibv_pd *pd;
static struct ibv_comp_channel *comp;
static struct ibv_context *async_ctx;
static double last_progress;
static bool port_down;
static int verdict = EXIT_OK;
static const char *verdict_why = "completed";

static void set_verdict(int v, const char *why)
{
	if (verdict == EXIT_OK) {
		verdict = v;
		verdict_why = why;
	}
}

/* PD, completion channel, async fd: once per device context. */
static int ctx_setup(struct ibv_context *ctx)
{
	if (pd)
		return pd->context == ctx ? 0 : -1;
	pd = ibv_alloc_pd(ctx);
	comp = ibv_create_comp_channel(ctx);
	if (!pd || !comp || cm_set_nonblock(comp->fd) ||
	    cm_set_nonblock(ctx->async_fd)) {
		say("error: PD/completion channel: %s", strerror(errno));
		return -1;
	}
	async_ctx = ctx;
	return 0;
}

static int post_recvs(struct conn *c)
{
	struct ibv_recv_wr *bad;
	int i;

	for (i = 0; i < NRECV; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)c->buf + CTRL_OFF + i * HELLO_LEN,
			.length = HELLO_LEN,
			.lkey = c->mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = WR_RECV + i, .sg_list = &sge, .num_sge = 1,
		};

		if (ibv_post_recv(c->id->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

static int conn_resources(struct conn *c)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH + 2, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	if (ctx_setup(c->id->verbs))
		return -1;
	c->buf = calloc(1, BUF_SIZE);
	c->cq = ibv_create_cq(c->id->verbs, 2 * DEPTH + 8, c, comp, 0);
	if (!c->buf || !c->cq) {
		say("error: CQ: %s", strerror(errno));
		return -1;
	}
	c->mr = ibv_reg_mr(pd, c->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr) {
		say("error: ibv_reg_mr: %s", strerror(errno));
		return -1;
	}
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, pd, &qa)) {
		say("error: rdma_create_qp: %s", strerror(errno));
		return -1;
	}
	if (ibv_req_notify_cq(c->cq, 0) || post_recvs(c)) {
		say("error: arm CQ/post receives: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void my_mr(const struct conn *c, struct peer_mr *m)
{
	m->addr = (uintptr_t)c->buf;
	m->rkey = c->mr->rkey;
	m->len = MSG_SIZE;
}

static void conn_free(struct conn *c)
{
	if (c->gone)
		return;
	c->gone = true;
	c->up = false;
	c->writing = false;
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->buf);
	c->id = NULL;
	c->mr = NULL;
	c->cq = NULL;
	c->buf = NULL;
}

static void conn_error(struct conn *c, const char *what)
{
	say("conn %ld: %s", (long)(c - conns), what);
	set_verdict(EXIT_ERROR, what);
	c->writing = false;
	c->closing = true;
}

static void send_msg(struct conn *c, char type)
{
	char *slot = c->buf + CTRL_OFF + NRECV * HELLO_LEN;
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot, .length = HELLO_LEN,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_SEND, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	/* the slot is free: one message at a time, each waits for quiet */
	slot[0] = type;
	if (ibv_post_send(c->id->qp, &wr, &bad))
		conn_error(c, "post send failed");
	else
		c->inflight++;
}

/* Keeps DEPTH writes in flight while the connection is writing. */
static void pump(struct conn *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf + MSG_SIZE,
		.length = MSG_SIZE,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_WRITE, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = c->peer.addr,
			     .rkey = c->peer.rkey },
	};
	struct ibv_send_wr *bad;

	while (c->writing && !c->closing && c->inflight < DEPTH) {
		if (ibv_post_send(c->id->qp, &wr, &bad)) {
			conn_error(c, "post write failed");
			return;
		}
		c->inflight++;
	}
}

static int count(bool (*f)(const struct conn *))
{
	int i, n = 0;

	for (i = 0; i < nconns; i++)
		n += f(&conns[i]);
	return n;
}

static bool is_up(const struct conn *c)
{
	return c->up;
}

static bool is_ready(const struct conn *c)
{
	return c->up && c->ready;
}

static bool is_alive(const struct conn *c)
{
	return !c->gone;
}

/*
 * Server: GO everywhere once every connection is up and said HELLO.
 * Traffic starts only then - under emulation a handshake can starve for
 * many seconds behind the other connections' writes.
 */
static void server_maybe_go(void)
{
	int i;

	if (go_sent || count(is_ready) < opt.conns)
		return;
	go_sent = true;
	say("ready: %d connections", opt.conns);
	for (i = 0; i < nconns; i++) {
		send_msg(&conns[i], MSG_GO);
		conns[i].writing = true;
		pump(&conns[i]);
	}
}

/* The next control message due on @c, if its work requests are done. */
static void advance(struct conn *c)
{
	if (c->closing || c->gone)
		return;
	if (c->stopping && !c->bye_sent && !c->inflight) {
		c->bye_sent = true;
		send_msg(c, MSG_BYE);
	}
	if (c->got_bye && !c->ack_sent && !c->inflight) {
		c->ack_sent = true;
		send_msg(c, MSG_BYE_ACK);
	}
	pump(c);
}

static void got_msg(struct conn *c, char type)
{
	switch (type) {
	case MSG_HELLO:
		c->ready = true;
		server_maybe_go();
		break;
	case MSG_GO:
		c->ready = true;
		c->writing = !c->stopping;
		if (count(is_ready) == opt.conns)
			say("ready: %d connections", opt.conns);
		break;
	case MSG_BYE:
		c->got_bye = true;
		c->writing = false;
		break;
	case MSG_BYE_ACK:
		c->closing = true;
		rdma_disconnect(c->id);
		break;
	default:
		conn_error(c, "unknown control message");
	}
}

/*
 * One batch of completions of @c, and what they make due.  Only one:
 * completions come as fast as new writes are posted, so "until empty"
 * could keep us on one connection forever, away from the others, the
 * CM events and the clock.  Returns true if there may be more.
 */
#define BATCH 16

static bool drain_cq(struct conn *c)
{
	struct ibv_wc wc[BATCH];
	int i, n;

	n = c->cq ? ibv_poll_cq(c->cq, BATCH, wc) : 0;
	if (n > 0) {
		for (i = 0; i < n; i++) {
			/* opcode is undefined in error completions */
			if (wc[i].wr_id < WR_RECV && !c->inflight) {
				/* a duplicate or made-up completion */
				say("conn %ld: completion of wr_id %lu with none outstanding (%s)",
				    (long)(c - conns),
				    (unsigned long)wc[i].wr_id,
				    ibv_wc_status_str(wc[i].status));
				set_verdict(EXIT_ERROR, "spurious completion");
				c->closing = true;
				c->writing = false;
				continue;
			}
			if (wc[i].wr_id < WR_RECV)
				c->inflight--;
			if (wc[i].status != IBV_WC_SUCCESS) {
				/* flushes after a disconnect are normal */
				if (c->closing)
					continue;
				conn_error(c, ibv_wc_status_str(wc[i].status));
				continue;
			}
			last_progress = cm_now();
			if (wc[i].wr_id == WR_WRITE)
				c->writes++;
			else if (wc[i].wr_id >= WR_RECV)
				got_msg(c, c->buf[CTRL_OFF + HELLO_LEN *
					(wc[i].wr_id - WR_RECV)]);
		}
		advance(c);
		return n == BATCH;
	}
	return false;
}

/*
 * SIGUSR1: where each connection stands, for a caller that thinks we
 * hang.  Not async-signal-safe, but only diagnostics.
 */
static void dump_state(int sig)
{
	int i;

	(void)sig;
	for (i = 0; i < nconns; i++) {
		const struct conn *c = &conns[i];

		dprintf(1, "state conn %d: up %d ready %d writing %d ", i,
			c->up, c->ready, c->writing);
		dprintf(1, "stopping %d bye_sent %d got_bye %d ack_sent %d ",
			c->stopping, c->bye_sent, c->got_bye, c->ack_sent);
		dprintf(1, "closing %d gone %d inflight %d writes %lu\n",
			c->closing, c->gone, c->inflight, c->writes);
	}
	dprintf(1, "state: verdict %d, %.1fs since progress, port_down %d\n",
		verdict, cm_now() - last_progress, port_down);
}

static void handle_comp(void)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	/* re-arm only: traffic_poll() polls every CQ after this */
	while (comp && !ibv_get_cq_event(comp, &cq, &cq_ctx)) {
		ibv_ack_cq_events(cq, 1);
		ibv_req_notify_cq(cq, 0);
	}
}

static void handle_async(void)
{
	struct ibv_async_event ev;

	while (async_ctx && !ibv_get_async_event(async_ctx, &ev)) {
		say("async: %s", ibv_event_type_str(ev.event_type));
		if (ev.event_type == IBV_EVENT_PORT_ERR) {
			port_down = true;
		} else if (ev.event_type == IBV_EVENT_PORT_ACTIVE) {
			port_down = false;
			last_progress = cm_now();
		} else if (ev.event_type == IBV_EVENT_QP_FATAL ||
			   ev.event_type == IBV_EVENT_DEVICE_FATAL) {
			set_verdict(EXIT_ERROR, "fatal async event");
		}
		ibv_ack_async_event(&ev);
	}
}

static struct conn *conn_of(struct rdma_cm_id *id)
{
	return id ? id->context : NULL;
}

static void conn_accept(struct rdma_cm_event *ev)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	const void *pd_in = ev->param.conn.private_data;
	struct rdma_cm_id *id = ev->id;
	struct peer_mr pm;
	struct conn *c;

	if (nconns >= opt.conns) {
		rdma_reject(id, NULL, 0);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(id);
		return;
	}
	c = &conns[nconns++];
	c->id = id;
	id->context = c;
	if (ev->param.conn.private_data_len >= sizeof(c->peer) && pd_in) {
		memcpy(&c->peer, pd_in, sizeof(c->peer));
		c->have_peer = true;
	}
	if (!c->have_peer || conn_resources(c)) {
		say("conn %d: cannot accept", nconns - 1);
		rdma_reject(id, NULL, 0);
		rdma_ack_cm_event(ev);
		conn_free(c);
		set_verdict(EXIT_SETUP, "accept failed");
		return;
	}
	my_mr(c, &pm);
	cp.private_data = &pm;
	cp.private_data_len = sizeof(pm);
	rdma_ack_cm_event(ev);
	if (rdma_accept(id, &cp)) {
		say("conn %ld: rdma_accept: %s", (long)(c - conns),
		    strerror(errno));
		set_verdict(EXIT_SETUP, "accept failed");
	}
}

/* Client: the route is there, so make the QP and send our MR along. */
static void client_route_resolved(struct conn *c)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1,
				      .retry_count = 7 };
	struct peer_mr pm;

	if (conn_resources(c)) {
		set_verdict(EXIT_SETUP, "client resources");
		return;
	}
	my_mr(c, &pm);
	cp.private_data = &pm;
	cp.private_data_len = sizeof(pm);
	if (rdma_connect(c->id, &cp)) {
		say("error: rdma_connect: %s", strerror(errno));
		set_verdict(EXIT_SETUP, "rdma_connect failed");
	}
}

/* The client learns the server's MR only from the accept. */
static void conn_established(struct conn *c, struct rdma_cm_event *ev)
{
	c->up = true;
	last_progress = cm_now();
	if (is_server) {
		server_maybe_go();
		return;
	}
	if (ev->param.conn.private_data_len >= sizeof(c->peer)) {
		memcpy(&c->peer, ev->param.conn.private_data,
		       sizeof(c->peer));
		c->have_peer = true;
	}
	if (!c->have_peer) {
		conn_error(c, "no MR in the accept private data");
		return;
	}
	send_msg(c, MSG_HELLO);
}

/* Acks @ev before freeing, as the id goes with the connection. */
static void conn_disconnected(struct conn *c, struct rdma_cm_event *ev)
{
	if (!c->closing && !c->ack_sent) {
		say("conn %ld: disconnected by the peer",
		    (long)(c - conns));
		set_verdict(EXIT_ERROR, "peer disconnected");
	}
	if (!c->closing) {
		c->closing = true;
		rdma_disconnect(c->id);
	}
	rdma_ack_cm_event(ev);
	drain_cq(c);
	conn_free(c);
}

/* DEVICE_REMOVAL, errors, a reject; acks @ev, then frees the connection. */
static void conn_cm_failed(struct conn *c, struct rdma_cm_event *ev)
{
	enum rdma_cm_event_type type = ev->event;

	say("cm: %s on conn %ld (status %d)", rdma_event_str(type),
	    (long)(c - conns), ev->status);
	set_verdict(type == RDMA_CM_EVENT_DEVICE_REMOVAL ||
		    is_server ? EXIT_ERROR : EXIT_SETUP,
		    rdma_event_str(type));
	c->closing = true;
	rdma_ack_cm_event(ev);
	conn_free(c);
}

/* One CM event of the traffic modes; acks it. */
static void traffic_cm_event(struct rdma_cm_event *ev,
			     struct rdma_cm_id *listen_id)
{
	enum rdma_cm_event_type type = ev->event;
	struct conn *c = conn_of(ev->id);

	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		conn_accept(ev);
		return;
	}
	if (!c || ev->id == listen_id) {
		say("cm: %s on the listener", rdma_event_str(type));
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL)
			set_verdict(EXIT_ERROR, "device removal");
		rdma_ack_cm_event(ev);
		return;
	}
	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(c->id, 2000)) {
			say("error: rdma_resolve_route: %s", strerror(errno));
			set_verdict(EXIT_SETUP, "resolve_route failed");
		}
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		client_route_resolved(c);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		conn_established(c, ev);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		conn_disconnected(c, ev);
		return;
	default:
		conn_cm_failed(c, ev);
		return;
	}
	rdma_ack_cm_event(ev);
}

static void traffic_poll(struct rdma_event_channel *ch,
			 struct rdma_cm_id *listen_id, int ms)
{
	struct pollfd p[3] = {
		{ .fd = ch->fd, .events = POLLIN },
		{ .fd = comp ? comp->fd : -1, .events = POLLIN },
		{ .fd = async_ctx ? async_ctx->async_fd : -1,
		  .events = POLLIN },
	};
	struct rdma_cm_event *ev;
	static bool busy;
	int i;

	/* don't sleep while a CQ may still hold completions */
	poll(p, 3, busy ? 0 : ms);
	while (!rdma_get_cm_event(ch, &ev))
		traffic_cm_event(ev, listen_id);
	handle_async();
	handle_comp();
	/* round robin, one batch each: fair, and back to the clock soon */
	busy = false;
	for (i = 0; i < nconns; i++)
		if (!conns[i].gone && drain_cq(&conns[i]))
			busy = true;
	fflush(stdout);
}

static unsigned long total_writes(void)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < nconns; i++)
		n += conns[i].writes;
	return n;
}

/* Nothing completed for too long: the stall watchdog of both modes. */
static bool stalled(void)
{
	double limit = port_down ? opt.down_grace : opt.stall;

	if (cm_now() - last_progress <= limit)
		return false;
	say("stall: nothing completed for %.1fs%s", cm_now() - last_progress,
	    port_down ? " with the port down" : "");
	set_verdict(EXIT_STALL, "stalled");
	return true;
}

/*
 * After an error: disconnect what is left and give the events a moment
 * (END_WAIT seconds at most).  After a stall there is no point waiting.
 * Then free everything.
 */
#define END_WAIT 5

static void traffic_end(struct rdma_event_channel *ch,
			struct rdma_cm_id *listen_id)
{
	double end = cm_now() + (opt.timeout < END_WAIT ? opt.timeout : END_WAIT);
	int i;

	for (i = 0; i < nconns; i++) {
		struct conn *c = &conns[i];

		c->writing = false;
		if (!c->gone && !c->closing && c->up) {
			c->closing = true;
			rdma_disconnect(c->id);
		}
	}
	while (count(is_alive) && cm_now() < end && verdict != EXIT_STALL)
		traffic_poll(ch, listen_id, 100);
	if (count(is_alive))
		say("%d connections still open; destroying them",
		    count(is_alive));
	for (i = 0; i < nconns; i++)
		conn_free(&conns[i]);
	if (listen_id)
		rdma_destroy_id(listen_id);
	if (pd)
		ibv_dealloc_pd(pd);
	if (comp)
		ibv_destroy_comp_channel(comp);
	rdma_destroy_event_channel(ch);
}

static bool traffic_ready(void)
{
	return is_server ? go_sent : count(is_ready) == opt.conns;
}

static int traffic_listen(struct rdma_event_channel *ch,
			  struct rdma_cm_id **listen_id)
{
	struct sockaddr_storage src;

	if (cm_resolve("churn", opt.bind, opt.port, true, &src) ||
	    rdma_create_id(ch, listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(*listen_id, (struct sockaddr *)&src) ||
	    rdma_listen(*listen_id, 64)) {
		say("error: listen: %s", strerror(errno));
		return EXIT_SETUP;
	}
	say("listening on %s port %s", opt.bind ? opt.bind : "*",
	    opt.port);
	return 0;
}

/* Starts every client connection; the CM events carry them on. */
static int traffic_dial(struct rdma_event_channel *ch)
{
	struct sockaddr_storage src, dst;
	int i;

	if (!opt.connect ||
	    cm_resolve("churn", opt.connect, opt.port, false, &dst))
		return EXIT_SETUP;
	if (opt.bind && cm_resolve("churn", opt.bind, "0", false, &src))
		return EXIT_SETUP;
	for (i = 0; i < opt.conns; i++) {
		struct conn *c = &conns[nconns++];

		if (rdma_create_id(ch, &c->id, c, RDMA_PS_TCP) ||
		    rdma_resolve_addr(c->id, opt.bind ?
				      (struct sockaddr *)&src : NULL,
				      (struct sockaddr *)&dst, 2000)) {
			say("error: connect %d: %s", i, strerror(errno));
			return EXIT_SETUP;
		}
	}
	return 0;
}

/* Set-up: every connection up, with HELLO and GO, in time. */
static void traffic_wait_ready(struct rdma_event_channel *ch,
			       struct rdma_cm_id *listen_id, double start)
{
	while (!traffic_ready() && verdict == EXIT_OK) {
		if (cm_now() - start > opt.timeout) {
			say("error: %d of %d connections up, %d ready after %ds",
			    count(is_up), opt.conns, count(is_ready),
			    opt.timeout);
			set_verdict(EXIT_SETUP, "set-up timed out");
			break;
		}
		traffic_poll(ch, listen_id, 200);
	}
}

/*
 * Traffic until the duration is over (client), then BYE and its
 * acknowledgment on every connection; the server runs until the
 * client disconnected them all.
 */
static void traffic_run(struct rdma_event_channel *ch,
			struct rdma_cm_id *listen_id, bool server,
			double stop_at)
{
	int i;

	while (verdict == EXIT_OK && count(is_alive) && !stalled()) {
		if (!server && cm_now() >= stop_at) {
			stop_at = cm_now() + 1e9;
			for (i = 0; i < nconns; i++) {
				conns[i].stopping = true;
				conns[i].writing = false;
				advance(&conns[i]);
			}
		}
		traffic_poll(ch, listen_id, 200);
	}
}

static int run_traffic(bool server)
{
	struct rdma_cm_id *listen_id = NULL;
	struct rdma_event_channel *ch;
	double start = cm_now(), ready_at = 0;
	int rc;

	is_server = server;
	signal(SIGUSR1, dump_state);
	if (opt.conns < 1 || opt.conns > MAX_CONNS) {
		say("error: --conns 1..%d", MAX_CONNS);
		return EXIT_SETUP;
	}
	ch = rdma_create_event_channel();
	if (!ch || cm_set_nonblock(ch->fd)) {
		say("error: event channel: %s", strerror(errno));
		return EXIT_SETUP;
	}
	rc = server ? traffic_listen(ch, &listen_id) : traffic_dial(ch);
	if (rc)
		return rc;
	fflush(stdout);

	traffic_wait_ready(ch, listen_id, start);
	ready_at = cm_now();
	last_progress = ready_at;
	traffic_run(ch, listen_id, server, ready_at + opt.duration);
	traffic_end(ch, listen_id);
	say("summary: %s conns=%d writes=%lu (%lu MiB) traffic=%.1fs exit=%d (%s)",
	    server ? "serve" : "pump", nconns, total_writes(),
	    total_writes() * MSG_SIZE >> 20, cm_now() - ready_at, verdict,
	    verdict_why);
	return verdict;
}

/* ------------------------------------------------------- connect storms */

struct accept_stats {
	struct rdma_cm_id *listen_id;	/* NULL once stopped listening */
	int requests;
	int accepted;
	int closed;
	int failed;
	int live;
};

/* Acks @ev first: the id may be destroyed here if the accept fails. */
static void accept_request(struct accept_stats *s, struct rdma_cm_event *ev)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	struct rdma_cm_id *id = ev->id;

	s->requests++;
	rdma_ack_cm_event(ev);
	/* rdma_cm makes the PD and CQs for us */
	if (rdma_create_qp(id, NULL, &qa) || rdma_accept(id, &cp)) {
		say("accept %d: %s", s->requests, strerror(errno));
		s->failed++;
		if (id->qp)
			rdma_destroy_qp(id);
		rdma_destroy_id(id);
	} else {
		s->live++;
	}
	if (s->listen_id && opt.stop_listen_after &&
	    s->requests >= opt.stop_listen_after) {
		say("destroying the listener after %d requests", s->requests);
		rdma_destroy_id(s->listen_id);
		s->listen_id = NULL;
	}
}

static int run_accept(void)
{
	struct accept_stats s = {};
	struct rdma_event_channel *ch;
	struct sockaddr_storage src;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int rc = EXIT_OK;

	ch = rdma_create_event_channel();
	if (!ch || cm_set_nonblock(ch->fd) ||
	    cm_resolve("churn", opt.bind, opt.port, true, &src) ||
	    rdma_create_id(ch, &s.listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(s.listen_id, (struct sockaddr *)&src) ||
	    rdma_listen(s.listen_id, 64)) {
		say("error: listen: %s", strerror(errno));
		return EXIT_SETUP;
	}
	say("listening on %s port %s", opt.bind ? opt.bind : "*", opt.port);
	fflush(stdout);

	while (s.closed + s.failed < opt.count || s.live) {
		ev = cm_next(ch, opt.idle * 1000);
		if (!ev) {
			if (errno == ETIMEDOUT && !s.listen_id && !s.live)
				break;	/* nothing more can arrive */
			say("error: no CM event for %ds (%d live)", opt.idle,
			    s.live);
			rc = EXIT_SETUP;
			break;
		}
		id = ev->id;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			accept_request(&s, ev);
			continue;
		case RDMA_CM_EVENT_ESTABLISHED:
			s.accepted++;
			rdma_ack_cm_event(ev);
			continue;
		case RDMA_CM_EVENT_DISCONNECTED:
			s.closed++;
			break;
		default:
			/* connect error, reject by the peer, removal */
			say("cm: %s (status %d)", rdma_event_str(ev->event),
			    ev->status);
			if (id == s.listen_id) {
				rdma_ack_cm_event(ev);
				rc = EXIT_ERROR;
				goto out;
			}
			s.failed++;
			break;
		}
		rdma_ack_cm_event(ev);
		if (id->qp)
			rdma_destroy_qp(id);
		rdma_destroy_id(id);
		s.live--;
	}
out:
	if (s.listen_id)
		rdma_destroy_id(s.listen_id);
	rdma_destroy_event_channel(ch);
	say("summary: accept requests=%d established=%d closed=%d failed=%d exit=%d",
	    s.requests, s.accepted, s.closed, s.failed, rc);
	return rc;
}

/* One connect/disconnect cycle: 1 connected, 0 refused/failed, -1 hang. */
static int connect_once(struct rdma_event_channel *ch,
			struct sockaddr_storage *src,
			struct sockaddr_storage *dst, const char **how)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1,
				      .retry_count = 7 };
	enum rdma_cm_event_type want = RDMA_CM_EVENT_ADDR_RESOLVED, got;
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	int ms = opt.timeout * 1000, ret = 0;

	*how = "";
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return 0;
	if (rdma_resolve_addr(id, opt.bind ? (struct sockaddr *)src : NULL,
			      (struct sockaddr *)dst, 2000)) {
		*how = "resolve_addr";
		goto out;
	}
	for (;;) {
		ev = cm_next(ch, ms);
		if (!ev) {
			*how = rdma_event_str(want);
			ret = -1;
			goto out;
		}
		got = ev->event;
		rdma_ack_cm_event(ev);
		if (got != want) {
			*how = rdma_event_str(got);
			if (want == RDMA_CM_EVENT_DISCONNECTED)
				ret = 1;	/* connected, closed oddly */
			goto out;
		}
		switch (got) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			want = RDMA_CM_EVENT_ROUTE_RESOLVED;
			if (rdma_resolve_route(id, 2000))
				goto out;
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			want = RDMA_CM_EVENT_ESTABLISHED;
			if (rdma_create_qp(id, NULL, &qa) ||
			    rdma_connect(id, &cp)) {
				*how = "connect";
				goto out;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			want = RDMA_CM_EVENT_DISCONNECTED;
			ret = 1;
			if (rdma_disconnect(id))
				goto out;
			break;
		default:	/* DISCONNECTED */
			goto out;
		}
	}
out:
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return ret;
}

static int run_connect(void)
{
	struct sockaddr_storage src, dst;
	struct rdma_event_channel *ch;
	int i, ok = 0, refused = 0, hung = 0, r;
	char first_how[64] = "";
	double start = cm_now();
	const char *how;
	int rc = EXIT_OK;

	if (!opt.connect ||
	    cm_resolve("churn", opt.connect, opt.port, false, &dst))
		return EXIT_SETUP;
	if (opt.bind && cm_resolve("churn", opt.bind, "0", false, &src))
		return EXIT_SETUP;
	ch = rdma_create_event_channel();
	if (!ch || cm_set_nonblock(ch->fd)) {
		say("error: event channel: %s", strerror(errno));
		return EXIT_SETUP;
	}
	for (i = 0; i < opt.count; i++) {
		r = connect_once(ch, &src, &dst, &how);
		if (r > 0) {
			ok++;
		} else if (r == 0) {
			refused++;
			if (!first_how[0])
				snprintf(first_how, sizeof(first_how), "%s",
					 how);
		} else {
			hung++;
			say("attempt %d: no %s within %ds", i, how,
			    opt.timeout);
		}
		if (r > 0 && how[0])
			say("attempt %d: connected, then %s", i, how);
	}
	rdma_destroy_event_channel(ch);
	if (hung ||
	    (!strcmp(opt.expect, "ok") && ok != opt.count) ||
	    (!strcmp(opt.expect, "fail") && ok))
		rc = EXIT_SETUP;
	say("summary: connect attempts=%d connected=%d failed=%d (first: %s) hung=%d %.1fs exit=%d",
	    opt.count, ok, refused, first_how[0] ? first_how : "-", hung,
	    cm_now() - start, rc);
	return rc;
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: churn objects --dev DEV [--iters N] [--batch B] [--hold S]\n"
		"       churn serve [--bind ADDR] [--conns N] [traffic options]\n"
		"       churn pump --connect ADDR [--bind ADDR] [--conns N] [traffic options]\n"
		"       churn accept [--bind ADDR] [--count N] [--stop-listen-after K] [--idle S]\n"
		"       churn connect --connect ADDR [--bind ADDR] [--count N] [--expect ok|fail|any]\n"
		"common: --port P (7300), --timeout S (10: set-up and each wait)\n"
		"traffic: --duration S (10), --stall S (20), --down-grace S (3)\n");
}

/* Long options: each sets a string or an int of opt. */
static const struct {
	const char *name;
	const char **str;
	int *num;
} options[] = {
	{ "dev", &opt.dev, NULL },
	{ "bind", &opt.bind, NULL },
	{ "connect", &opt.connect, NULL },
	{ "port", &opt.port, NULL },
	{ "expect", &opt.expect, NULL },
	{ "iters", NULL, &opt.iters },
	{ "batch", NULL, &opt.batch },
	{ "hold", NULL, &opt.hold },
	{ "conns", NULL, &opt.conns },
	{ "duration", NULL, &opt.duration },
	{ "stall", NULL, &opt.stall },
	{ "down-grace", NULL, &opt.down_grace },
	{ "count", NULL, &opt.count },
	{ "stop-listen-after", NULL, &opt.stop_listen_after },
	{ "idle", NULL, &opt.idle },
	{ "timeout", NULL, &opt.timeout },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NOPTS ARRAY_SIZE(options)

int main(int argc, char **argv)
{
	struct option lo[NOPTS + 2] = {};
	const char *mode;
	unsigned int i;
	int c, idx;
	char *end;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2 || argv[1][0] == '-') {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_SETUP : EXIT_OK;
	}
	for (i = 0; i < NOPTS; i++) {
		lo[i].name = options[i].name;
		lo[i].has_arg = required_argument;
	}
	lo[NOPTS].name = "help";
	lo[NOPTS].val = 'h';
	mode = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", lo, &idx)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		if (c != 0 || idx < 0 || (unsigned int)idx >= NOPTS) {
			usage(stderr);
			return EXIT_SETUP;
		}
		if (options[idx].str) {
			*options[idx].str = optarg;
			continue;
		}
		*options[idx].num = strtol(optarg, &end, 10);
		if (*end || !*optarg) {
			fprintf(stderr, "churn: --%s needs a number\n",
				options[idx].name);
			return EXIT_SETUP;
		}
	}
	if (optind != argc || opt.batch < 1 || opt.iters < 0 ||
	    opt.timeout < 1) {
		usage(stderr);
		return EXIT_SETUP;
	}
	if (!strcmp(mode, "objects"))
		return run_objects();
	if (!strcmp(mode, "serve"))
		return run_traffic(true);
	if (!strcmp(mode, "pump"))
		return run_traffic(false);
	if (!strcmp(mode, "accept"))
		return run_accept();
	if (!strcmp(mode, "connect"))
		return run_connect();
	usage(stderr);
	return EXIT_SETUP;
}
