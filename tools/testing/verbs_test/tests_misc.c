// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Semantics tests: send_inv, solicited, reject, disconnect, too_small,
 * no_recv.  The error cases assert what iWARP (RFC 5040/5041, the RDMA
 * verbs) defines; see README.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"
#include "tests.h"

struct misc_state {
	uint8_t *buf, *vbuf;		/* data, victim/receive */
	struct ibv_mr *mr, *vmr;
	size_t len, vlen;
};

static void misc_cleanup(struct vt_conn *c)
{
	struct misc_state *s = c->priv;

	if (!s)
		return;
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->vmr)
		ibv_dereg_mr(s->vmr);
	free(s->buf);
	free(s->vbuf);
	free(s);
	c->priv = NULL;
}

static struct misc_state *misc_new(struct vt_conn *c, size_t len, int access,
				   size_t vlen, int vaccess)
{
	struct misc_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	c->priv = s;
	s->len = len;
	s->vlen = vlen;
	s->buf = vt_alloc(len);
	if (!s->buf)
		return NULL;
	memset(s->buf, VT_CANARY, len);
	s->mr = vt_reg(c, s->buf, len, access);
	if (!s->mr)
		return NULL;
	if (vlen) {
		s->vbuf = vt_alloc(vlen);
		if (!s->vbuf)
			return NULL;
		memset(s->vbuf, VT_CANARY, vlen);
		s->vmr = vt_reg(c, s->vbuf, vlen, vaccess);
		if (!s->vmr)
			return NULL;
	}
	return s;
}

static int post_recv1(struct vt_conn *c, uint64_t wr_id, void *addr,
		      uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;
	int ret = ibv_post_recv(c->qp, &wr, &bad);

	if (ret)
		tap_diag("%s: %s: ibv_post_recv: %s", c->test->name, c->rname,
			 strerror(ret));
	return ret;
}

static int post_send1(struct vt_conn *c, uint64_t wr_id,
		      enum ibv_wr_opcode op, void *addr, uint32_t len,
		      uint32_t lkey, unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED | flags;
	if (op == IBV_WR_SEND_WITH_INV) {
		wr.invalidate_rkey = c->peer.rkey;
	} else if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = c->peer.addr;
		wr.wr.rdma.rkey = c->peer.rkey;
	}
	ret = ibv_post_send(c->qp, &wr, &bad);
	if (ret)
		tap_diag("%s: %s: ibv_post_send: %s", c->test->name, c->rname,
			 strerror(ret));
	return ret;
}

/* The next completion of @cq that is not a control message send. */
static bool next_wc(struct vt_conn *c, struct ibv_cq *cq, struct ibv_wc *wc)
{
	double deadline = vt_deadline(c);

	for (;;) {
		if (vt_poll_one(c, cq, wc, deadline) != 1)
			return false;
		if (cq != c->scq || !vt_ctrl_tx_wc(c, wc))
			return true;
	}
}

static void small_qpcfg(struct vt_conn *c __attribute__((unused)),
			struct vt_qpcfg *cfg)
{
	cfg->max_send_wr = 8;
	cfg->max_recv_wr = 8;
}

/* ------------------------------------------------------------ send_inv */

#define INV_LEN 100

static int inv_prepare(struct vt_conn *c)
{
	struct misc_state *s;
	int i;

	if (c->role == VT_CLIENT) {
		s = misc_new(c, 4096, 0, 0, 0);
		if (!s)
			return -1;
		vt_pat_fill(s->buf, vt_pat_key(c->seed, VT_T_SEND_INV, 0), 0,
			    INV_LEN);
		vt_pat_fill(s->buf + 512, vt_pat_key(c->seed, VT_T_SEND_INV, 1),
			    0, INV_LEN);
		return 0;
	}
	/* buf: receive buffers; vbuf: the MR the client names */
	s = misc_new(c, 3 * 256, IBV_ACCESS_LOCAL_WRITE, 4096,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ);
	if (!s)
		return -1;
	c->mine.flags |= VT_PD_MR;
	c->mine.addr = (uintptr_t)s->vbuf;
	c->mine.rkey = s->vmr->rkey;
	c->mine.len = s->vlen;
	for (i = 0; i < 3; i++)
		if (post_recv1(c, i, s->buf + 256 * i, 256, s->mr->lkey))
			return -1;
	return 0;
}

static bool inv_check_recv(struct vt_conn *c, struct misc_state *s, int i,
			   const struct ibv_wc *wc)
{
	size_t bad;

	if (wc->wr_id != (uint64_t)i || wc->status != IBV_WC_SUCCESS ||
	    wc->opcode != IBV_WC_RECV || wc->byte_len != INV_LEN) {
		tap_diag("%s: server: receive %d: wr_id %llu %s opcode %d len %u",
			 c->test->name, i, (unsigned long long)wc->wr_id,
			 vt_wc_status(wc->status), wc->opcode, wc->byte_len);
		return false;
	}
	bad = vt_pat_check(s->buf + 256 * i,
			   vt_pat_key(c->seed, VT_T_SEND_INV, i), 0, INV_LEN);
	if (bad != SIZE_MAX) {
		tap_diag("%s: server: receive %d: byte %zu wrong", c->test->name,
			 i, bad);
		return false;
	}
	if (wc->wc_flags & IBV_WC_WITH_INV) {
		tap_diag("%s: server: receive %d: wc_flags %#x", c->test->name,
			 i, wc->wc_flags);
		return false;
	}
	return true;
}

static void inv_server(struct vt_conn *c)
{
	struct misc_state *s = c->priv;
	struct ibv_wc wc;
	bool ok;

	ok = next_wc(c, c->rcq, &wc) && inv_check_recv(c, s, 0, &wc);
	tap_ok(ok, "%s: server: a plain Send arrives without IBV_WC_WITH_INV",
	       c->test->name);

	/*
	 * The Send with Invalidate names our plain MR, which nothing could
	 * make valid again: it must be refused with a Terminate, the QP
	 * goes to error and the receive it would have used does not
	 * succeed.
	 */
	ok = next_wc(c, c->rcq, &wc);
	if (ok && wc.status == IBV_WC_SUCCESS)
		tap_diag("%s: server: delivered, wc_flags %#x invalidated_rkey %#x",
			 c->test->name, wc.wc_flags, wc.invalidated_rkey);
	tap_ok(ok && wc.wr_id == 1 && wc.status != IBV_WC_SUCCESS,
	       "%s: server: a Send with Invalidate naming a plain MR (rkey %#x) is refused and breaks the connection (receive: %s)",
	       c->test->name, c->mine.rkey,
	       ok ? vt_wc_status(wc.status) : "no completion");
	tap_ok(vt_canary_check(s->vbuf, s->vlen) == SIZE_MAX,
	       "%s: server: the MR is untouched", c->test->name);
}

static void inv_client(struct vt_conn *c)
{
	struct misc_state *s = c->priv;
	struct ibv_wc wc;
	bool broke = false;
	double deadline;
	int ret;

	if (!(c->peer.flags & VT_PD_MR)) {
		tap_ok(false, "%s: client: the server offers an MR",
		       c->test->name);
		return;
	}
	ret = post_send1(c, 0, IBV_WR_SEND, s->buf, INV_LEN, s->mr->lkey, 0);
	tap_ok(!ret && next_wc(c, c->scq, &wc) &&
	       wc.status == IBV_WC_SUCCESS && wc.wr_id == 0,
	       "%s: client: a plain Send completes", c->test->name);

	/* It may complete itself: it only has to reach TCP. */
	ret = post_send1(c, 1, IBV_WR_SEND_WITH_INV, s->buf + 512, INV_LEN,
			 s->mr->lkey, 0);
	ret = ret ? ret : vt_post_probe(c, s->buf, 8, s->mr->lkey);
	deadline = vt_deadline(c);
	while (!ret && !broke && vt_now() < deadline) {
		if (vt_try_poll(c->scq, &wc) > 0) {
			if (!vt_ctrl_tx_wc(c, &wc) &&
			    wc.status != IBV_WC_SUCCESS) {
				broke = true;
				tap_diag("%s: client: WR %llu: %s",
					 c->test->name,
					 (unsigned long long)wc.wr_id,
					 vt_wc_status(wc.status));
			}
			continue;
		}
		if (c->disconnected)
			broke = true;
		vt_idle(c);
	}
	tap_ok(broke, "%s: client: a Send with Invalidate naming the server's plain MR (rkey %#x) breaks the connection",
	       c->test->name, c->peer.rkey);
}

static void inv_run(struct vt_conn *c)
{
	if (c->role == VT_SERVER)
		inv_server(c);
	else
		inv_client(c);
}

/* ----------------------------------------------------------- solicited */

static void sol_qpcfg(struct vt_conn *c, struct vt_qpcfg *cfg)
{
	small_qpcfg(c, cfg);
	cfg->rcq_channel = true;
}

static int sol_prepare(struct vt_conn *c)
{
	/* server: 5 messages and BYE; client: 3 GOs */
	return vt_ctrl_post_recv(c, c->role == VT_SERVER ? 6 : 3);
}

/* A completion event on rcq's channel within @ms? */
static bool cq_event(struct vt_conn *c, int ms)
{
	struct pollfd pfd = { .fd = c->cch->fd, .events = POLLIN };
	double end = vt_now() + ms / 1000.0;
	struct ibv_cq *cq;
	void *ctx;

	for (;;) {
		if (!ibv_get_cq_event(c->cch, &cq, &ctx)) {
			ibv_ack_cq_events(cq, 1);
			return cq == c->rcq;
		}
		if (vt_now() > end)
			return false;
		poll(&pfd, 1, 10);
		vt_events(c, 0);
	}
}

static bool sol_msg(struct vt_conn *c, uint64_t want)
{
	struct vt_ctrl m;

	if (!vt_ctrl_wait(c, VT_CTRL_MSG, &m))
		return false;
	if (m.arg[0] != want)
		tap_diag("%s: server: got message %llu, want %llu",
			 c->test->name, (unsigned long long)m.arg[0],
			 (unsigned long long)want);
	return m.arg[0] == want;
}

static void sol_server(struct vt_conn *c)
{
	/* half the timeout: the client waits that long for the next GO */
	int ms = 500 * c->o->timeout;
	bool ok;
	int ret;

	ret = ibv_req_notify_cq(c->rcq, 1);
	if (ret)
		tap_diag("%s: server: ibv_req_notify_cq(solicited): %s",
			 c->test->name, strerror(ret));
	vt_ctrl_send(c, VT_CTRL_GO, 1, 0);
	ok = !ret && sol_msg(c, 1) && sol_msg(c, 2) && sol_msg(c, 3);
	/* give a wrong event time to show up */
	ok = ok && !cq_event(c, 300);
	tap_ok(ok, "%s: server: 3 unsolicited Sends raise no event on a CQ armed for solicited completions",
	       c->test->name);

	vt_ctrl_send(c, VT_CTRL_GO, 2, 0);
	/* take the message even without its event, to stay in step */
	ok = cq_event(c, ms);
	ok = sol_msg(c, 4) && ok;
	tap_ok(ok, "%s: server: a Send with IBV_SEND_SOLICITED raises the completion event",
	       c->test->name);

	ret = ibv_req_notify_cq(c->rcq, 0);
	vt_ctrl_send(c, VT_CTRL_GO, 3, 0);
	ok = !ret && cq_event(c, ms) && sol_msg(c, 5);
	tap_ok(ok, "%s: server: an unsolicited Send raises the event on a CQ armed for any completion",
	       c->test->name);

	tap_ok(vt_ctrl_wait(c, VT_CTRL_BYE, NULL),
	       "%s: server: the client reports it is done", c->test->name);
	if (!vt_ctrl_flush(c))
		tap_diag("%s: server: GO sends failed", c->test->name);
}

static void sol_client(struct vt_conn *c)
{
	bool ok;

	ok = vt_ctrl_wait(c, VT_CTRL_GO, NULL) &&
	     !vt_ctrl_send(c, VT_CTRL_MSG, 1, 0) &&
	     !vt_ctrl_send(c, VT_CTRL_MSG, 2, 0) &&
	     !vt_ctrl_send(c, VT_CTRL_MSG, 3, 0) &&
	     vt_ctrl_flush(c) &&
	     vt_ctrl_wait(c, VT_CTRL_GO, NULL) &&
	     !vt_ctrl_send(c, VT_CTRL_MSG, 4, IBV_SEND_SOLICITED) &&
	     vt_ctrl_flush(c) &&
	     vt_ctrl_wait(c, VT_CTRL_GO, NULL) &&
	     !vt_ctrl_send(c, VT_CTRL_MSG, 5, 0) &&
	     !vt_ctrl_send(c, VT_CTRL_BYE, 0, 0) &&
	     vt_ctrl_flush(c);
	tap_ok(ok, "%s: client: unsolicited and solicited Sends completed",
	       c->test->name);
}

static void sol_run(struct vt_conn *c)
{
	if (c->role == VT_SERVER)
		sol_server(c);
	else
		sol_client(c);
}

/* ---------------------------------------------------------- disconnect */

#define DISC_N		128	/* messages each side sends */
#define DISC_EXTRA	16	/* receives never matched: always flushed */
#define DISC_SZ		32768

static void disc_qpcfg(struct vt_conn *c __attribute__((unused)),
		       struct vt_qpcfg *cfg)
{
	cfg->max_send_wr = DISC_N + 8;
	cfg->max_recv_wr = DISC_N + DISC_EXTRA + 8;
}

static uint32_t disc_stream(struct vt_conn *c, bool out)
{
	return VT_T_DISCONNECT << 8 | ((c->role == VT_CLIENT) == out ? 0 : 1);
}

static int disc_prepare(struct vt_conn *c)
{
	struct misc_state *s;
	unsigned int i;

	s = misc_new(c, (size_t)DISC_N * DISC_SZ, 0,
		     (size_t)(DISC_N + DISC_EXTRA) * DISC_SZ,
		     IBV_ACCESS_LOCAL_WRITE);
	if (!s)
		return -1;
	for (i = 0; i < DISC_N; i++)
		vt_pat_fill(s->buf + (size_t)i * DISC_SZ,
			    vt_pat_key(c->seed, disc_stream(c, true), i), 0,
			    DISC_SZ);
	for (i = 0; i < DISC_N + DISC_EXTRA; i++)
		if (post_recv1(c, i, s->vbuf + (size_t)i * DISC_SZ, DISC_SZ,
			       s->vmr->lkey))
			return -1;
	return 0;
}

struct disc_count {
	unsigned int done, ok, flushed, bad;
	bool flushing;
};

/* In-order accounting of one queue's completion. */
static bool disc_wc(struct vt_conn *c, struct disc_count *q,
		    const struct ibv_wc *wc, const char *what)
{
	bool good = wc->wr_id == q->done;

	if (wc->status == IBV_WC_SUCCESS) {
		good = good && !q->flushing;
		q->ok++;
	} else if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		q->flushing = true;
		q->flushed++;
	} else {
		good = false;
	}
	if (!good && !q->bad++)
		tap_diag("%s: %s: %s #%u: wr_id %llu %s%s", c->test->name,
			 c->rname, what, q->done, (unsigned long long)wc->wr_id,
			 vt_wc_status(wc->status),
			 q->flushing && wc->status == IBV_WC_SUCCESS ?
			 " after a flush" : "");
	q->done++;
	return wc->status == IBV_WC_SUCCESS;
}

/* Both queues' accounting, and what was posted to the send queue. */
struct disc_tally {
	struct disc_count sq, rq;
	unsigned int posted, corrupt;
};

/* A successful receive must carry message #wr_id intact. */
static void disc_recv(struct vt_conn *c, struct disc_tally *t,
		      const struct ibv_wc *wc)
{
	struct misc_state *s = c->priv;

	if (disc_wc(c, &t->rq, wc, "receive") &&
	    (wc->byte_len != DISC_SZ ||
	     vt_pat_check(s->vbuf + (size_t)wc->wr_id * DISC_SZ,
			  vt_pat_key(c->seed, disc_stream(c, false),
				     wc->wr_id),
			  0, DISC_SZ) != SIZE_MAX))
		t->corrupt++;
}

/* Client: once traffic flows, pull the plug. */
static void disc_client_pull(struct vt_conn *c, struct disc_tally *t)
{
	double deadline = vt_now() + 2;
	struct ibv_wc wc;
	int ret;

	while (!t->sq.done && !t->rq.done && vt_now() < deadline) {
		if (vt_try_poll(c->scq, &wc) > 0)
			disc_wc(c, &t->sq, &wc, "send");
		else if (vt_try_poll(c->rcq, &wc) > 0)
			disc_recv(c, t, &wc);
		else
			vt_idle(c);
	}
	ret = rdma_disconnect(c->id);
	tap_ok(!ret, "%s: client: rdma_disconnect with %u of %u sends and %u of %u receives outstanding",
	       c->test->name, t->posted - t->sq.done, t->posted,
	       DISC_N + DISC_EXTRA - t->rq.done, DISC_N + DISC_EXTRA);
}

/* Every work request completes, flushed or not, while they keep coming. */
static void disc_drain(struct vt_conn *c, struct disc_tally *t)
{
	double deadline = vt_deadline(c);
	struct ibv_wc wc;
	bool progress;

	while ((t->sq.done < t->posted ||
		t->rq.done < DISC_N + DISC_EXTRA) &&
	       vt_now() < deadline) {
		progress = false;
		if (vt_try_poll(c->scq, &wc) > 0) {
			disc_wc(c, &t->sq, &wc, "send");
			progress = true;
		}
		if (vt_try_poll(c->rcq, &wc) > 0) {
			disc_recv(c, t, &wc);
			progress = true;
		}
		if (progress)
			deadline = vt_deadline(c);
		else
			vt_idle(c);
	}
}

static void disc_run(struct vt_conn *c)
{
	struct misc_state *s = c->priv;
	struct disc_tally t = {};
	struct disc_count *sq = &t.sq, *rq = &t.rq;
	unsigned int i;
	char why[128];
	int ret;

	for (i = 0; i < DISC_N; i++) {
		if (post_send1(c, i, IBV_WR_SEND, s->buf + (size_t)i * DISC_SZ,
			       DISC_SZ, s->mr->lkey, 0))
			break;
		t.posted++;
	}
	if (c->role == VT_CLIENT)
		disc_client_pull(c, &t);
	tap_ok(vt_wait_disconnected(c, vt_deadline(c)),
	       "%s: %s: RDMA_CM_EVENT_DISCONNECTED", c->test->name, c->rname);
	/*
	 * Both ends call it (rdma_disconnect(3)): after the peer's, it must
	 * succeed too (librdmacm moves the QP to SQD first on iWARP).
	 */
	if (c->role == VT_SERVER) {
		ret = rdma_disconnect(c->id);
		tap_ok(!ret, "%s: server: rdma_disconnect after the peer's (%s)",
		       c->test->name, ret ? strerror(errno) : "ok");
	}

	disc_drain(c, &t);
	tap_ok(sq->done == t.posted && rq->done == DISC_N + DISC_EXTRA,
	       "%s: %s: every WR completes once: %u/%u sends (%u ok, %u flushed), %u/%u receives (%u ok, %u flushed)",
	       c->test->name, c->rname, sq->done, t.posted, sq->ok,
	       sq->flushed, rq->done, DISC_N + DISC_EXTRA, rq->ok,
	       rq->flushed);
	tap_ok(!sq->bad && !rq->bad && rq->flushed >= DISC_EXTRA,
	       "%s: %s: outstanding WRs complete with IBV_WC_WR_FLUSH_ERR, in order",
	       c->test->name, c->rname);
	tap_ok(!t.corrupt, "%s: %s: the %u messages received before the disconnect are intact",
	       c->test->name, c->rname, rq->ok);
	ret = vt_probe_flushed(c, s->buf, s->mr->lkey, why, sizeof(why));
	tap_ok(ret, "%s: %s: a Send posted after the disconnect is flushed or refused (%s)",
	       c->test->name, c->rname, why);
}

/* ----------------------------------------------------------- too_small */

#define SMALL_OFF	1000
#define SMALL_LEN	100
#define BIG_LEN		4000

static int small_prepare(struct vt_conn *c)
{
	struct misc_state *s;

	if (c->role == VT_CLIENT) {
		s = misc_new(c, 8192, 0, 0, 0);
		if (!s)
			return -1;
		vt_pat_fill(s->buf, vt_pat_key(c->seed, VT_T_TOO_SMALL, 0), 0,
			    BIG_LEN);
		return 0;
	}
	s = misc_new(c, 4096, IBV_ACCESS_LOCAL_WRITE, 0, 0);
	if (!s)
		return -1;
	/* a 100-byte receive inside a larger MR, then one more receive */
	if (post_recv1(c, 0, s->buf + SMALL_OFF, SMALL_LEN, s->mr->lkey))
		return -1;
	return vt_ctrl_post_recv(c, 1);
}

/* Both ends: the connection goes, the QP is in error, new WRs flush. */
static void torn_down(struct vt_conn *c, const char *cause)
{
	struct misc_state *s = c->priv;
	char why[128];
	int st;

	tap_ok(vt_wait_disconnected(c, vt_deadline(c)),
	       "%s: %s: %s tears the connection down (DISCONNECTED, status %d)",
	       c->test->name, c->rname, cause, c->disc_status);
	st = vt_qp_state(c);
	tap_ok(st == IBV_QPS_ERR, "%s: %s: the QP is in the error state (%d)",
	       c->test->name, c->rname, st);
	tap_ok(vt_probe_flushed(c, s->buf, s->mr->lkey, why, sizeof(why)),
	       "%s: %s: a Send posted now is flushed or refused (%s)",
	       c->test->name, c->rname, why);
	/* the QP had to get there on its own; now end it as one should */
	rdma_disconnect(c->id);
	if (c->qp_fatal)
		tap_diag("%s: %s: IBV_EVENT_QP_FATAL seen", c->test->name,
			 c->rname);
}

static void small_run(struct vt_conn *c)
{
	struct misc_state *s = c->priv;
	struct ibv_wc wc;
	bool ok, got;

	if (c->role == VT_CLIENT) {
		if (!post_send1(c, 0, IBV_WR_SEND, s->buf, BIG_LEN,
				s->mr->lkey, 0)) {
			/* success or not: it only had to leave */
			got = next_wc(c, c->scq, &wc);
			tap_diag("%s: client: the %u-byte Send completed: %s",
				 c->test->name, BIG_LEN,
				 got ? vt_wc_status(wc.status) : "no completion");
		}
		torn_down(c, "the receiver's Terminate");
		return;
	}

	got = next_wc(c, c->rcq, &wc);
	/*
	 * RFC 5041 section 7.2: a message longer than the receive buffer is
	 * a DDP untagged buffer error; the receive completes in error, the
	 * verbs status is a local length error.  A provider that only marks
	 * the QP fatal and flushes is accepted, noted as a diagnostic.
	 */
	ok = got && wc.wr_id == 0 && wc.status == IBV_WC_LOC_LEN_ERR;
	if (got && !ok && wc.wr_id == 0 && wc.status != IBV_WC_SUCCESS &&
	    vt_wait_async(c, IBV_EVENT_QP_FATAL, vt_now() + 2)) {
		tap_diag("%s: server: receive status %s with IBV_EVENT_QP_FATAL instead of IBV_WC_LOC_LEN_ERR",
			 c->test->name, vt_wc_status(wc.status));
		ok = true;
	}
	tap_ok(ok, "%s: server: a %u-byte Send into a %u-byte receive completes with IBV_WC_LOC_LEN_ERR (%s)",
	       c->test->name, BIG_LEN, SMALL_LEN,
	       got ? vt_wc_status(wc.status) : "no completion");
	ok = vt_canary_check(s->buf, SMALL_OFF) == SIZE_MAX &&
	     vt_canary_check(s->buf + SMALL_OFF + SMALL_LEN,
			     s->len - SMALL_OFF - SMALL_LEN) == SIZE_MAX;
	tap_ok(ok, "%s: server: nothing is written outside the receive buffer",
	       c->test->name);
	got = next_wc(c, c->rcq, &wc);
	tap_ok(got && wc.status == IBV_WC_WR_FLUSH_ERR,
	       "%s: server: the next receive is flushed (%s)", c->test->name,
	       got ? vt_wc_status(wc.status) : "no completion");
	torn_down(c, "the length error");
}

/* ------------------------------------------------------------- no_recv */

static int norecv_prepare(struct vt_conn *c)
{
	struct misc_state *s = misc_new(c, 4096, IBV_ACCESS_LOCAL_WRITE, 0, 0);

	/* and, on purpose, no receive at all */
	return s ? 0 : -1;
}

static void norecv_run(struct vt_conn *c)
{
	struct misc_state *s = c->priv;
	struct ibv_wc wc;
	bool got;

	if (c->role == VT_CLIENT) {
		if (!post_send1(c, 0, IBV_WR_SEND, s->buf, 1000, s->mr->lkey,
				0)) {
			got = next_wc(c, c->scq, &wc);
			tap_diag("%s: client: the Send completed: %s",
				 c->test->name,
				 got ? vt_wc_status(wc.status) : "no completion");
		}
		torn_down(c, "a Send without a posted receive");
		return;
	}
	torn_down(c, "a Send without a posted receive");
	tap_ok(vt_try_poll(c->rcq, &wc) == 0,
	       "%s: server: no receive completion appears", c->test->name);
}

/* -------------------------------------------------------------- tables */

/*
 * Only STags their consumer can make valid again may be invalidated by a
 * peer: those of memory windows and fast-register MRs, which user space
 * does not have here (kernel ULPs do: test_40's NVMe over Fabrics uses
 * Send with Invalidate on fast-register MRs). A plain ibv_reg_mr() MR
 * must be refused.
 */
const struct vt_test vt_test_send_inv = {
	.name = "send_inv", .id = VT_T_SEND_INV,
	.desc = "Send with Invalidate naming a plain MR: refused, connection ends",
	.qpcfg = small_qpcfg, .prepare = inv_prepare, .run = inv_run,
	.cleanup = misc_cleanup, .breaks = true, .iwarp_only = true,
};

const struct vt_test vt_test_solicited = {
	.name = "solicited", .id = VT_T_SOLICITED,
	.desc = "ibv_req_notify_cq(cq, 1) and solicited Sends",
	.qpcfg = sol_qpcfg, .prepare = sol_prepare, .run = sol_run,
};

const struct vt_test vt_test_reject = {
	.name = "reject", .id = VT_T_REJECT,
	.desc = "rdma_reject with private data, RDMA_CM_EVENT_REJECTED",
	.qpcfg = small_qpcfg, .reject = true,
};

const struct vt_test vt_test_disconnect = {
	.name = "disconnect", .id = VT_T_DISCONNECT,
	.desc = "rdma_disconnect under traffic: outstanding WRs flush",
	.qpcfg = disc_qpcfg, .prepare = disc_prepare, .run = disc_run,
	.cleanup = misc_cleanup, .breaks = true,
};

const struct vt_test vt_test_too_small = {
	.name = "too_small", .id = VT_T_TOO_SMALL,
	.desc = "Send larger than the receive: length error, QP to error",
	.qpcfg = small_qpcfg, .prepare = small_prepare, .run = small_run,
	.cleanup = misc_cleanup, .breaks = true, .iwarp_only = true,
	.no_start = true,
};

const struct vt_test vt_test_no_recv = {
	.name = "no_recv", .id = VT_T_NO_RECV,
	.desc = "Send without a posted receive: the connection is torn down",
	.qpcfg = small_qpcfg, .prepare = norecv_prepare, .run = norecv_run,
	.cleanup = misc_cleanup, .breaks = true, .iwarp_only = true,
	.no_start = true,
};
