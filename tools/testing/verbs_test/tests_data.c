// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bulk data tests: send, srq, write, read.  Both directions run at once;
 * each side checks its own completions, the bytes it received or that
 * were placed in its memory, and that its source buffers did not change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"
#include "tests.h"

/* direction streams: client->server 0, server->client 1 */
static uint32_t stream(const struct vt_conn *c, bool out)
{
	int dir = (c->role == VT_CLIENT) == out ? 0 : 1;

	return (uint32_t)c->test->id << 8 | dir;
}

static uint32_t plan_max(const struct vt_plan *p)
{
	uint32_t m = 0;
	unsigned int i;

	for (i = 0; i < p->n; i++)
		m = VT_MAX(m, p->size[i]);
	return m;
}

struct data_state {
	struct vt_plan in, out;
	uint32_t sin, sout;			/* streams */
	uint8_t *rbuf, *sbuf;			/* receive/target, send/source */
	size_t rlen, slen;
	struct ibv_mr *rmr, *smr;
	struct vt_layout rl[VT_PLAN_MAX];	/* receive buffers / sinks */
	struct vt_layout sl[VT_PLAN_MAX];	/* send buffers / sources */
	bool limit_armed;
	int limit_err;
};

static void data_cleanup(struct vt_conn *c)
{
	struct data_state *s = c->priv;

	if (!s)
		return;
	if (s->rmr)
		ibv_dereg_mr(s->rmr);
	if (s->smr)
		ibv_dereg_mr(s->smr);
	free(s->rbuf);
	free(s->sbuf);
	free(s);
	c->priv = NULL;
}

static struct data_state *data_new(struct vt_conn *c)
{
	struct data_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	c->priv = s;
	s->sin = stream(c, false);
	s->sout = stream(c, true);
	vt_plan_make(&s->in, c->seed, s->sin, c->budget, c->size_max,
		     c->no_empty);
	vt_plan_make(&s->out, c->seed, s->sout, c->budget, c->size_max,
		     c->no_empty);
	return s;
}

/* A buffer of @len bytes full of canary, registered with @access. */
static int canary_buf(struct vt_conn *c, size_t len, int access,
		      uint8_t **buf, struct ibv_mr **mr)
{
	*buf = vt_alloc(len);
	if (!*buf)
		return -1;
	memset(*buf, VT_CANARY, len);
	*mr = vt_reg(c, *buf, len, access);
	return *mr ? 0 : -1;
}

/* Source layouts for the out plan, filled with the pattern. */
static int sources(struct vt_conn *c, struct data_state *s,
		   unsigned int max_sge)
{
	struct vt_rng r;
	uint64_t cursor = 0;
	unsigned int i;

	s->slen = 4096;
	for (i = 0; i < s->out.n; i++)
		s->slen += vt_layout_room(s->out.size[i]);
	if (canary_buf(c, s->slen, 0, &s->sbuf, &s->smr))
		return -1;
	vt_rng_init(&r, c->seed, s->sout, 'S');
	for (i = 0; i < s->out.n; i++) {
		vt_layout_make(&s->sl[i], &r, s->sbuf, s->smr->lkey, &cursor,
			       s->out.size[i], max_sge);
		vt_layout_fill(&s->sl[i], vt_pat_key(c->seed, s->sout, i));
	}
	return 0;
}

static bool sources_intact(struct vt_conn *c, struct data_state *s,
			   char *why, size_t whylen)
{
	unsigned int i;

	for (i = 0; i < s->out.n; i++)
		if (!vt_layout_check(&s->sl[i], s->sbuf,
				     vt_pat_key(c->seed, s->sout, i),
				     s->out.size[i], true, why, whylen))
			return false;
	return true;
}

/* ------------------------------------------------------------ send/srq */

static void msgs_qpcfg(struct vt_conn *c, struct vt_qpcfg *cfg)
{
	cfg->max_send_wr = 32;
	cfg->max_recv_wr = VT_PLAN_MAX + 4;
	cfg->srq = c->test->id == VT_T_SRQ;
}

static int msgs_prepare(struct vt_conn *c)
{
	struct data_state *s = data_new(c);
	struct ibv_recv_wr wr[VT_PLAN_MAX], *bad;
	unsigned int i, max_rsge;
	uint64_t cursor = 0;
	struct vt_rng r;
	uint32_t slack;
	int ret;

	if (!s)
		return -1;
	max_rsge = c->srq ? c->srq_max_sge : c->cap.max_recv_sge;

	/* receive buffers: every message, with up to 32 bytes to spare */
	s->rlen = 4096;
	for (i = 0; i < s->in.n; i++)
		s->rlen += vt_layout_room(s->in.size[i] + 32);
	if (canary_buf(c, s->rlen, IBV_ACCESS_LOCAL_WRITE, &s->rbuf, &s->rmr))
		return -1;
	vt_rng_init(&r, c->seed, s->sin, 'R');
	for (i = 0; i < s->in.n; i++) {
		slack = vt_rand(&r) % 4 ? vt_rand_range(&r, 1, 32) : 0;
		vt_layout_make(&s->rl[i], &r, s->rbuf, s->rmr->lkey, &cursor,
			       s->in.size[i] + slack, max_rsge);
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = i;
		wr[i].sg_list = s->rl[i].sge;
		wr[i].num_sge = s->rl[i].nsge;
		wr[i].next = i + 1 < s->in.n ? &wr[i + 1] : NULL;
	}
	if (sources(c, s, c->cap.max_send_sge))
		return -1;

	/* all receives in one list, before the peer can send */
	bad = wr;
	ret = c->srq ? ibv_post_srq_recv(c->srq, wr, &bad) :
		       ibv_post_recv(c->qp, wr, &bad);
	if (ret) {
		tap_diag("%s: %s: posting %u receives: %s (at #%ld, %d SGEs)",
			 c->test->name, c->rname, s->in.n, strerror(abs(ret)),
			 (long)(bad - wr), bad->num_sge);
		return -1;
	}
	/* the server then gets the client's BYE */
	if (c->role == VT_SERVER && vt_ctrl_post_recv(c, 1))
		return -1;

	if (c->srq && c->role == VT_SERVER) {
		struct ibv_srq_attr a = { .srq_limit = 2 };

		/* fires when the data receives are used up */
		s->limit_err = ibv_modify_srq(c->srq, &a, IBV_SRQ_LIMIT);
		s->limit_armed = !s->limit_err;
	}
	return 0;
}

/*
 * Where a run loop stands: work requests posted and completed in order
 * (RDMA Writes: retired), messages received, and the first failure of
 * each direction for the report.
 */
struct data_tally {
	unsigned int posted, done, got;
	unsigned int errs, recv_err;	/* errs: the send side */
	bool notified, placed;		/* write: the peer's NOTIFY */
	char why[160], swhy[160];
};

/* Posts Sends while the window has room; true if it posted any. */
static bool msgs_post(struct vt_conn *c, struct data_state *s,
		      struct data_tally *t, unsigned int window)
{
	struct ibv_send_wr wr, *bad;
	bool progress = false;
	int ret;

	while (t->posted < s->out.n && t->posted - t->done < window) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = t->posted;
		wr.sg_list = s->sl[t->posted].sge;
		wr.num_sge = s->sl[t->posted].nsge;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		ret = ibv_post_send(c->qp, &wr, &bad);
		if (ret) {
			snprintf(t->swhy, sizeof(t->swhy),
				 "post_send #%u: %s", t->posted,
				 strerror(ret));
			t->errs++;
			/* nothing more will complete for it */
			t->done = s->out.n;
			t->posted = s->out.n;
			break;
		}
		t->posted++;
		progress = true;
	}
	return progress;
}

/* One Send completion, if there is one: they complete in order. */
static int msgs_poll_send(struct vt_conn *c, struct data_tally *t)
{
	struct ibv_wc wc;
	int ret;

	ret = vt_try_poll(c->scq, &wc);
	if (ret > 0 && !vt_ctrl_tx_wc(c, &wc)) {
		if (wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_SEND || wc.wr_id != t->done) {
			if (!t->errs++)
				snprintf(t->swhy, sizeof(t->swhy),
					 "send #%u: wr_id %llu %s opcode %d",
					 t->done,
					 (unsigned long long)wc.wr_id,
					 vt_wc_status(wc.status),
					 wc.opcode);
		}
		t->done++;
	}
	return ret;
}

/* One data receive, if there is one, with its length and bytes checked. */
static int msgs_poll_recv(struct vt_conn *c, struct data_state *s,
			  struct data_tally *t)
{
	struct ibv_wc wc;
	uint32_t want;
	int ret;

	/*
	 * Our data receives are all in; whatever arrives next is the
	 * peer's control message, for the control code to take.
	 */
	ret = t->got < s->in.n ? vt_try_poll(c->rcq, &wc) : 0;
	if (ret <= 0)
		return ret;
	want = s->in.size[t->got];
	if (wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RECV || wc.wr_id != t->got ||
	    wc.byte_len != want ||
	    (wc.wc_flags & (IBV_WC_WITH_INV | IBV_WC_WITH_IMM))) {
		if (!t->recv_err++)
			snprintf(t->why, sizeof(t->why),
				 "receive #%u: wr_id %llu %s opcode %d byte_len %u (want %u) flags %#x",
				 t->got, (unsigned long long)wc.wr_id,
				 vt_wc_status(wc.status),
				 wc.opcode, wc.byte_len, want,
				 wc.wc_flags);
	} else if (!vt_layout_check(&s->rl[t->got], s->rbuf,
				    vt_pat_key(c->seed, s->sin, t->got),
				    want, true, t->why, sizeof(t->why))) {
		if (!t->recv_err++)
			tap_diag("%s: %s: message #%u (%u bytes, %u SGEs): %s",
				 c->test->name, c->rname, t->got,
				 want, s->rl[t->got].nsge, t->why);
	}
	t->got++;
	return ret;
}

/* Sends out[] and receives in[] at the same time. */
static void msgs_exchange(struct vt_conn *c, struct data_state *s)
{
	double deadline = vt_deadline(c);
	struct data_tally t = {};
	unsigned int window;
	bool progress;
	int ret;

	window = c->cap.max_send_wr - VT_CTRL_SLOTS;
	while (t.done < s->out.n || t.got < s->in.n) {
		progress = msgs_post(c, s, &t, window);
		ret = msgs_poll_send(c, &t);
		progress |= ret > 0;
		ret = msgs_poll_recv(c, s, &t);
		progress |= ret > 0;
		if (ret < 0) {
			snprintf(t.why, sizeof(t.why), "ibv_poll_cq failed");
			t.recv_err++;
			break;
		}
		if (progress) {
			deadline = vt_deadline(c);
			continue;
		}
		if (vt_now() > deadline) {
			tap_diag("%s: %s: stalled: %u/%u sends completed, %u/%u received, %s",
				 c->test->name, c->rname, t.done, s->out.n,
				 t.got, s->in.n,
				 c->disconnected ? "disconnected" : "connected");
			break;
		}
		vt_idle(c);
	}
	if (t.errs && t.swhy[0])
		tap_diag("%s: %s: %s", c->test->name, c->rname, t.swhy);
	tap_ok(t.done == s->out.n && !t.errs,
	       "%s: %s: %u Sends (%u B max, up to %u SGEs) completed", c->test->name,
	       c->rname, s->out.n, plan_max(&s->out), c->cap.max_send_sge);
	if (t.recv_err && t.why[0])
		tap_diag("%s: %s: %s", c->test->name, c->rname, t.why);
	tap_ok(t.got == s->in.n && !t.recv_err,
	       "%s: %s: %u messages received%s, length and every byte checked",
	       c->test->name, c->rname, s->in.n,
	       c->srq ? " through the SRQ" : "");
	tap_ok(sources_intact(c, s, t.why, sizeof(t.why)),
	       "%s: %s: send buffers unchanged", c->test->name, c->rname);
}

/* The client says BYE when it is done; the server waits for it. */
static void finish(struct vt_conn *c)
{
	if (c->role == VT_CLIENT) {
		if (vt_ctrl_send(c, VT_CTRL_BYE, 0, 0) || !vt_ctrl_flush(c))
			tap_diag("%s: client: BYE failed", c->test->name);
	} else {
		tap_ok(vt_ctrl_wait(c, VT_CTRL_BYE, NULL),
		       "%s: server: the client reports it is done",
		       c->test->name);
	}
}

static void send_run(struct vt_conn *c)
{
	msgs_exchange(c, c->priv);
	finish(c);
}

static void srq_run(struct vt_conn *c)
{
	struct data_state *s = c->priv;
	struct ibv_recv_wr wr = { .wr_id = VT_WR_PROBE }, *bad = NULL;
	struct ibv_srq_attr a;
	int ret;

	ret = ibv_query_srq(c->srq, &a);
	tap_ok(!ret && a.max_wr >= VT_PLAN_MAX + 4 + VT_CTRL_SLOTS &&
	       a.max_sge >= c->srq_max_sge,
	       "%s: %s: ibv_query_srq: max_wr %u, max_sge %u, limit %u",
	       c->test->name, c->rname, a.max_wr, a.max_sge, a.srq_limit);
	ret = ibv_post_recv(c->qp, &wr, &bad);
	if (ret && bad != &wr)
		tap_diag("%s: %s: the provider did not set bad_wr",
			 c->test->name, c->rname);
	tap_ok(ret, "%s: %s: ibv_post_recv on a QP with an SRQ is refused (%s)",
	       c->test->name, c->rname, ret ? strerror(ret) : "accepted");
	if (c->role == VT_SERVER)
		tap_ok(s->limit_armed,
		       "%s: server: ibv_modify_srq arms a limit of 2%s%s",
		       c->test->name, s->limit_err ? ": " : "",
		       s->limit_err ? strerror(s->limit_err) : "");

	msgs_exchange(c, s);
	finish(c);

	if (c->role == VT_SERVER && s->limit_armed) {
		tap_ok(vt_wait_async(c, IBV_EVENT_SRQ_LIMIT_REACHED,
				     vt_deadline(c)),
		       "%s: server: IBV_EVENT_SRQ_LIMIT_REACHED when fewer than 2 receives are left",
		       c->test->name);
		ret = ibv_query_srq(c->srq, &a);
		tap_ok(!ret && !a.srq_limit,
		       "%s: server: the limit is disarmed after the event (limit %u)",
		       c->test->name, ret ? 99 : a.srq_limit);
	}
}

/* --------------------------------------------------------------- write */

static void rdma_qpcfg(struct vt_conn *c __attribute__((unused)),
		       struct vt_qpcfg *cfg)
{
	cfg->max_send_wr = 32;
	cfg->max_recv_wr = 4;
}

/* The remote-access buffer of in[] (target of writes, source of reads). */
static int remote_buf(struct vt_conn *c, struct data_state *s, int access)
{
	if (canary_buf(c, s->in.rspan, access, &s->rbuf, &s->rmr))
		return -1;
	s->rlen = s->in.rspan;
	c->mine.flags |= VT_PD_MR;
	c->mine.addr = (uintptr_t)s->rbuf;
	c->mine.rkey = s->rmr->rkey;
	c->mine.len = s->in.rspan;
	return 0;
}

static bool remote_check(struct vt_conn *c, struct data_state *s,
			 char *why, size_t whylen)
{
	uint64_t cursor = 0;
	unsigned int i;
	size_t bad;

	for (i = 0; i < s->in.n; i++) {
		bad = vt_canary_check(s->rbuf + cursor,
				      s->in.roff[i] - cursor);
		if (bad != SIZE_MAX) {
			snprintf(why, whylen,
				 "byte at %llu before operation #%u changed",
				 (unsigned long long)(cursor + bad), i);
			return false;
		}
		bad = vt_pat_check(s->rbuf + s->in.roff[i],
				   vt_pat_key(c->seed, s->sin, i), 0,
				   s->in.size[i]);
		if (bad != SIZE_MAX) {
			uint8_t want;

			vt_pat_fill(&want, vt_pat_key(c->seed, s->sin, i), bad,
				    1);
			snprintf(why, whylen,
				 "operation #%u (%u bytes at %llu): byte %zu is 0x%02x, want 0x%02x",
				 i, s->in.size[i],
				 (unsigned long long)s->in.roff[i], bad,
				 s->rbuf[s->in.roff[i] + bad], want);
			return false;
		}
		cursor = s->in.roff[i] + s->in.size[i];
	}
	bad = vt_canary_check(s->rbuf + cursor, s->in.rspan - cursor);
	if (bad != SIZE_MAX) {
		snprintf(why, whylen, "byte after the last operation changed");
		return false;
	}
	return true;
}

static bool peer_mr_ok(struct vt_conn *c, const struct vt_plan *out)
{
	bool ok = (c->peer.flags & VT_PD_MR) && c->peer.len >= out->rspan;

	if (!ok)
		tap_diag("%s: %s: the peer offers no buffer of %llu bytes (flags %#x len %u)",
			 c->test->name, c->rname,
			 (unsigned long long)out->rspan, c->peer.flags,
			 c->peer.len);
	return ok;
}

static int write_prepare(struct vt_conn *c)
{
	struct data_state *s = data_new(c);

	if (!s || remote_buf(c, s, IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE) ||
	    sources(c, s, c->cap.max_send_sge))
		return -1;
	/* NOTIFY from the peer; the server then gets BYE */
	return vt_ctrl_post_recv(c, c->role == VT_SERVER ? 2 : 1);
}

/*
 * Posts RDMA Writes while the window has room, then the NOTIFY Send
 * behind the last one; true if it posted any.
 */
static bool write_post(struct vt_conn *c, struct data_state *s,
		       struct data_tally *t, unsigned int window)
{
	struct ibv_send_wr wr, *bad;
	bool progress = false;
	int ret;

	while (t->posted < s->out.n && t->posted - t->done < window) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = t->posted;
		wr.sg_list = s->sl[t->posted].sge;
		wr.num_sge = s->sl[t->posted].nsge;
		wr.opcode = IBV_WR_RDMA_WRITE;
		/* two of three unsignaled: retired by the next one */
		if (t->posted % 3 == 2 || t->posted + 1 == s->out.n ||
		    t->posted - t->done + 1 == window)
			wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = c->peer.addr + s->out.roff[t->posted];
		wr.wr.rdma.rkey = c->peer.rkey;
		ret = ibv_post_send(c->qp, &wr, &bad);
		if (ret) {
			tap_diag("%s: %s: post RDMA Write #%u: %s",
				 c->test->name, c->rname, t->posted,
				 strerror(ret));
			t->errs++;
			t->posted = s->out.n;
			t->done = s->out.n;
			break;
		}
		/* the Send after the Writes: placed when it arrives */
		if (++t->posted == s->out.n &&
		    vt_ctrl_send(c, VT_CTRL_NOTIFY, s->out.n, 0))
			t->errs++;
		progress = true;
	}
	return progress;
}

/* One signaled Write, if one completed: it retires those before it. */
static int write_poll_send(struct vt_conn *c, struct data_state *s,
			   struct data_tally *t)
{
	struct ibv_wc wc;
	int ret;

	ret = vt_try_poll(c->scq, &wc);
	if (ret <= 0 || vt_ctrl_tx_wc(c, &wc))
		return ret;
	if (wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RDMA_WRITE ||
	    wc.wr_id < t->done || wc.wr_id >= t->posted) {
		if (!t->errs++)
			tap_diag("%s: %s: RDMA Write #%llu: %s opcode %d",
				 c->test->name, c->rname,
				 (unsigned long long)wc.wr_id,
				 vt_wc_status(wc.status), wc.opcode);
		if (wc.status != IBV_WC_SUCCESS)
			t->done = s->out.n;
	}
	if (wc.wr_id >= t->done && wc.wr_id < s->out.n)
		t->done = wc.wr_id + 1;
	return ret;
}

/* The peer's NOTIFY, if it came: its Writes are placed by now. */
static bool write_poll_notify(struct vt_conn *c, struct data_tally *t)
{
	struct vt_ctrl *m;
	struct ibv_wc wc;

	if (t->notified || vt_try_poll(c->rcq, &wc) <= 0)
		return false;
	m = &c->ctrl[wc.wr_id & (VT_CTRL_SLOTS - 1)];
	t->notified = true;
	t->placed = wc.status == IBV_WC_SUCCESS &&
		    (wc.wr_id & VT_WR_CTRL_RX) && m->type == VT_CTRL_NOTIFY;
	if (!t->placed)
		tap_diag("%s: %s: waiting for NOTIFY: %s", c->test->name,
			 c->rname, vt_wc_status(wc.status));
	return true;
}

static void write_report(struct vt_conn *c, struct data_state *s,
			 struct data_tally *t)
{
	bool ok;

	tap_ok(t->done == s->out.n && !t->errs,
	       "%s: %s: %u RDMA Writes (%u B max, up to %u SGEs, some unsignaled) completed",
	       c->test->name, c->rname, s->out.n, plan_max(&s->out),
	       c->cap.max_send_sge);
	tap_ok(sources_intact(c, s, t->why, sizeof(t->why)),
	       "%s: %s: write sources unchanged", c->test->name, c->rname);
	ok = t->placed && remote_check(c, s, t->why, sizeof(t->why));
	if (t->placed && !ok)
		tap_diag("%s: %s: %s", c->test->name, c->rname, t->why);
	tap_ok(ok, "%s: %s: the peer's %u RDMA Writes are placed when its Send arrives, every byte checked",
	       c->test->name, c->rname, s->in.n);
}

static void write_run(struct vt_conn *c)
{
	struct data_state *s = c->priv;
	double deadline = vt_deadline(c);
	struct data_tally t = {};
	unsigned int window;
	bool progress;

	if (!peer_mr_ok(c, &s->out)) {
		tap_ok(false, "%s: %s: RDMA Writes", c->test->name, c->rname);
		return;
	}
	window = c->cap.max_send_wr - VT_CTRL_SLOTS;
	while (t.done < s->out.n || !t.notified) {
		progress = write_post(c, s, &t, window);
		progress |= write_poll_send(c, s, &t) > 0;
		progress |= write_poll_notify(c, &t);
		if (progress) {
			deadline = vt_deadline(c);
			continue;
		}
		if (vt_now() > deadline) {
			tap_diag("%s: %s: stalled: %u/%u writes retired, %s",
				 c->test->name, c->rname, t.done, s->out.n,
				 t.notified ? "notified" : "no NOTIFY yet");
			break;
		}
		vt_idle(c);
	}
	write_report(c, s, &t);
	if (!vt_ctrl_flush(c))
		tap_diag("%s: %s: NOTIFY send failed", c->test->name,
			 c->rname);
	finish(c);
}

/* ---------------------------------------------------------------- read */

static int read_prepare(struct vt_conn *c)
{
	struct data_state *s = data_new(c);
	uint64_t cursor = 0;
	struct vt_rng r;
	unsigned int i;

	if (!s || remote_buf(c, s, IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_READ))
		return -1;
	/* what the peer reads from us */
	for (i = 0; i < s->in.n; i++)
		vt_pat_fill(s->rbuf + s->in.roff[i],
			    vt_pat_key(c->seed, s->sin, i), 0, s->in.size[i]);

	/*
	 * Sinks: one SGE each (max_sge_rd is 1 on iWARP).  On iWARP the
	 * Read Response is a tagged message placed through the sink's STag,
	 * which the RDMA Read Request advertises (RFC 5040 section 4.4), so
	 * the sink is registered for remote write as well, as perftest and
	 * rping do.
	 */
	s->slen = 4096;
	for (i = 0; i < s->out.n; i++)
		s->slen += vt_layout_room(s->out.size[i]);
	if (canary_buf(c, s->slen, IBV_ACCESS_LOCAL_WRITE |
		       (c->iwarp ? IBV_ACCESS_REMOTE_WRITE : 0),
		       &s->sbuf, &s->smr))
		return -1;
	vt_rng_init(&r, c->seed, s->sout, 'K');
	for (i = 0; i < s->out.n; i++)
		vt_layout_make(&s->sl[i], &r, s->sbuf, s->smr->lkey, &cursor,
			       s->out.size[i], 1);
	/* the client gets DONE, the server BYE */
	return vt_ctrl_post_recv(c, 1);
}

/* Posts RDMA Reads while the window has room; true if it posted any. */
static bool read_post(struct vt_conn *c, struct data_state *s,
		      struct data_tally *t, unsigned int window)
{
	struct ibv_send_wr wr, *bad;
	bool progress = false;
	int ret;

	while (t->posted < s->out.n && t->posted - t->done < window) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = t->posted;
		wr.sg_list = s->sl[t->posted].sge;
		wr.num_sge = s->sl[t->posted].nsge;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = c->peer.addr + s->out.roff[t->posted];
		wr.wr.rdma.rkey = c->peer.rkey;
		ret = ibv_post_send(c->qp, &wr, &bad);
		if (ret) {
			tap_diag("%s: %s: post RDMA Read #%u: %s",
				 c->test->name, c->rname, t->posted,
				 strerror(ret));
			t->errs++;
			t->posted = s->out.n;
			t->done = s->out.n;
			break;
		}
		t->posted++;
		progress = true;
	}
	return progress;
}

/* One Read completion, if there is one, with the bytes it brought. */
static int read_poll(struct vt_conn *c, struct data_state *s,
		     struct data_tally *t)
{
	struct ibv_wc wc;
	int ret;

	ret = vt_try_poll(c->scq, &wc);
	if (ret <= 0 || vt_ctrl_tx_wc(c, &wc))
		return ret;
	if (wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RDMA_READ || wc.wr_id != t->done) {
		if (!t->errs++)
			tap_diag("%s: %s: RDMA Read #%u: wr_id %llu %s opcode %d",
				 c->test->name, c->rname, t->done,
				 (unsigned long long)wc.wr_id,
				 vt_wc_status(wc.status), wc.opcode);
	} else if (!vt_layout_check(&s->sl[t->done], s->sbuf,
				    vt_pat_key(c->seed, s->sout, t->done),
				    s->out.size[t->done], true, t->why,
				    sizeof(t->why))) {
		if (!t->errs++)
			tap_diag("%s: %s: RDMA Read #%u (%u bytes): %s",
				 c->test->name, c->rname, t->done,
				 s->out.size[t->done], t->why);
	}
	t->done++;
	return ret;
}

/* The source may only be checked once the peer stopped reading. */
static void read_check_source(struct vt_conn *c, struct data_state *s,
			      struct data_tally *t)
{
	bool ok;

	if (c->role == VT_SERVER) {
		if (vt_ctrl_send(c, VT_CTRL_DONE, 0, 0) || !vt_ctrl_flush(c))
			tap_diag("%s: server: DONE failed", c->test->name);
		tap_ok(vt_ctrl_wait(c, VT_CTRL_BYE, NULL),
		       "%s: server: the client reports it is done",
		       c->test->name);
	} else {
		tap_ok(vt_ctrl_wait(c, VT_CTRL_DONE, NULL),
		       "%s: client: the server reports its reads done",
		       c->test->name);
	}
	ok = remote_check(c, s, t->why, sizeof(t->why));
	if (!ok)
		tap_diag("%s: %s: %s", c->test->name, c->rname, t->why);
	tap_ok(ok, "%s: %s: the buffer the peer read from is unchanged",
	       c->test->name, c->rname);
}

static void read_run(struct vt_conn *c)
{
	struct data_state *s = c->priv;
	double deadline = vt_deadline(c);
	struct data_tally t = {};
	unsigned int window;
	bool progress;

	if (!peer_mr_ok(c, &s->out)) {
		tap_ok(false, "%s: %s: RDMA Reads", c->test->name, c->rname);
		return;
	}
	/* stay within the ORD we asked for */
	window = VT_MIN(4, VT_MIN(c->dattr.max_qp_rd_atom,
				  c->dattr.max_qp_init_rd_atom));
	window = VT_MAX(window, 1u);
	while (t.done < s->out.n) {
		progress = read_post(c, s, &t, window);
		progress |= read_poll(c, s, &t) > 0;
		if (progress) {
			deadline = vt_deadline(c);
			continue;
		}
		if (vt_now() > deadline) {
			tap_diag("%s: %s: stalled: %u/%u reads completed",
				 c->test->name, c->rname, t.done, s->out.n);
			break;
		}
		vt_idle(c);
	}
	tap_ok(t.done == s->out.n && !t.errs,
	       "%s: %s: %u RDMA Reads (%u B max, %u outstanding) completed, every byte checked",
	       c->test->name, c->rname, s->out.n, plan_max(&s->out), window);
	read_check_source(c, s, &t);
	if (c->role == VT_CLIENT &&
	    (vt_ctrl_send(c, VT_CTRL_BYE, 0, 0) || !vt_ctrl_flush(c)))
		tap_diag("%s: client: BYE failed", c->test->name);
}

const struct vt_test vt_test_send = {
	.name = "send", .id = VT_T_SEND,
	.desc = "Sends of 0 B .. size-max, random offsets, multi-SGE both sides",
	.qpcfg = msgs_qpcfg, .prepare = msgs_prepare, .run = send_run,
	.cleanup = data_cleanup,
};

const struct vt_test vt_test_srq = {
	.name = "srq", .id = VT_T_SRQ,
	.desc = "the send test receiving through an SRQ, SRQ limit event",
	.qpcfg = msgs_qpcfg, .prepare = msgs_prepare, .run = srq_run,
	.cleanup = data_cleanup,
};

const struct vt_test vt_test_write = {
	.name = "write", .id = VT_T_WRITE,
	.desc = "RDMA Writes into the peer's MR, verified after a Send",
	.qpcfg = rdma_qpcfg, .prepare = write_prepare, .run = write_run,
	.cleanup = data_cleanup,
};

const struct vt_test vt_test_read = {
	.name = "read", .id = VT_T_READ,
	.desc = "RDMA Reads from the peer's MR (one SGE each)",
	.qpcfg = rdma_qpcfg, .prepare = read_prepare, .run = read_run,
	.cleanup = data_cleanup,
};
