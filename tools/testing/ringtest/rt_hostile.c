// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hostile user space: the client writes garbage into one field of one of
 * its rings behind the provider's back, rings the doorbell itself (a
 * POST_SEND command without WRs) or asks the server for a message (for
 * the receive side), and checks what follows.  A field the kernel reads
 * must end in an error completion, the QP in ERROR or an async event, for
 * this connection only (the server carries on with the next case); a
 * field only the provider reads (the kernel's own indices, the arm word,
 * reserved words) just must not hurt anyone.  Either way the QP and CQs
 * must be destroyable and the kernel must not complain (vm-run.sh checks
 * dmesg).
 *
 * The rings are found without provider internals: the mappings of
 * /dev/infiniband/uverbs* in /proc/self/smaps, told apart by their first
 * entry after one Send (wr_id RT_WR_SQ_MAGIC) and one receive
 * (RT_WR_RQ_MAGIC): the SQ and the send CQ both hold the Send's wr_id,
 * the SQE with opcode SIW_LITE_WR_SEND (1) at byte 8, the CQE with
 * IBV_WC_SEND (0); the RQE has num_sge 1 there, the receive CQE
 * IBV_WC_RECV (128).  Every ring index starts at 0.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rdma/siw_lite-abi.h>

#include "ringtest.h"

struct rt_rings {
	struct siw_lite_ring *sq, *rq, *scq, *rcq;
};

enum {
	H_DOORBELL = 1,		/* ring the SQ doorbell afterwards */
	H_GO = 2,		/* have the server send us a message */
	H_RECV = 4,		/* ... into a receive we post normally */
	H_MUST_ERR = 8,		/* the kernel must report an error */
};

struct rt_hostile {
	unsigned int flags;
	void (*scribble)(struct rt_conn *c, struct rt_rings *r);
};

static inline void store_rel(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static bool find_rings(struct rt_rings *r)
{
	struct rt_map m[16];
	uint64_t wr_id;
	int n, i;
	uint8_t b8;

	memset(r, 0, sizeof(*r));
	n = rt_ring_maps(m, 16);
	for (i = 0; i < n; i++) {
		if (m[i].len < SIW_LITE_RING_ENTRIES + 16)
			continue;
		memcpy(&wr_id, m[i].start + SIW_LITE_RING_ENTRIES, 8);
		b8 = m[i].start[SIW_LITE_RING_ENTRIES + 8];
		if (wr_id == RT_WR_SQ_MAGIC && b8 == SIW_LITE_WR_SEND)
			r->sq = (struct siw_lite_ring *)m[i].start;
		else if (wr_id == RT_WR_SQ_MAGIC && b8 == IBV_WC_SEND)
			r->scq = (struct siw_lite_ring *)m[i].start;
		else if (wr_id == RT_WR_RQ_MAGIC && b8 == 1)
			r->rq = (struct siw_lite_ring *)m[i].start;
		else if (wr_id == RT_WR_RQ_MAGIC && b8 == IBV_WC_RECV)
			r->rcq = (struct siw_lite_ring *)m[i].start;
	}
	return r->sq && r->rq && r->scq && r->rcq;
}

/* The next SQE / RQE slot (indices start at 0 and stay small here). */
static struct siw_lite_sqe *next_sqe(struct rt_rings *r)
{
	return (struct siw_lite_sqe *)((uint8_t *)r->sq +
		SIW_LITE_RING_ENTRIES + r->sq->prod * sizeof(struct siw_lite_sqe));
}

static struct siw_lite_rqe *next_rqe(struct rt_rings *r)
{
	return (struct siw_lite_rqe *)((uint8_t *)r->rq +
		SIW_LITE_RING_ENTRIES + r->rq->prod * sizeof(struct siw_lite_rqe));
}

/* A well-formed signaled Send of one message from our buffer. */
static struct siw_lite_sqe *good_sqe(struct rt_conn *c, struct rt_rings *r)
{
	struct siw_lite_sqe *e = next_sqe(r);

	memset(e, 0, sizeof(*e));
	e->wr_id = 0x4242;
	e->opcode = SIW_LITE_WR_SEND;
	e->flags = SIW_LITE_WQE_SIGNALED;
	e->num_sge = 1;
	e->sge[0].addr = (uintptr_t)c->buf + RT_RX_SLOTS * RT_MSG_SIZE;
	e->sge[0].length = RT_MSG_SIZE;
	e->sge[0].lkey = c->mr->lkey;
	return e;
}

static struct siw_lite_rqe *good_rqe(struct rt_conn *c, struct rt_rings *r)
{
	struct siw_lite_rqe *e = next_rqe(r);

	memset(e, 0, sizeof(*e));
	e->wr_id = RT_WR_RX | 7;
	e->num_sge = 1;
	e->sge[0].addr = (uintptr_t)c->buf + 7 * RT_MSG_SIZE;
	e->sge[0].length = RT_MSG_SIZE;
	e->sge[0].lkey = c->mr->lkey;
	return e;
}

static void publish_sqe(struct rt_rings *r)
{
	store_rel(&r->sq->prod, r->sq->prod + 1);
}

static void publish_rqe(struct rt_rings *r)
{
	store_rel(&r->rq->prod, r->rq->prod + 1);
}

/* ---------------------------------------------------------- scribbles */

static void sq_prod_ahead(struct rt_conn *c, struct rt_rings *r)
{
	(void)c;
	store_rel(&r->sq->prod, r->sq->prod + 100000);
}

static void sq_prod_behind(struct rt_conn *c, struct rt_rings *r)
{
	(void)c;
	store_rel(&r->sq->prod, r->sq->cons - 8);
}

static void sq_opcode(struct rt_conn *c, struct rt_rings *r)
{
	good_sqe(c, r)->opcode = 0x77;
	publish_sqe(r);
}

static void sq_num_sge(struct rt_conn *c, struct rt_rings *r)
{
	good_sqe(c, r)->num_sge = 200;
	publish_sqe(r);
}

static void sq_huge_len(struct rt_conn *c, struct rt_rings *r)
{
	good_sqe(c, r)->sge[0].length = 0xfffff000u;
	publish_sqe(r);
}

static void sq_unmapped(struct rt_conn *c, struct rt_rings *r)
{
	good_sqe(c, r)->sge[0].addr = 0x1000;
	publish_sqe(r);
}

static void sq_bad_lkey(struct rt_conn *c, struct rt_rings *r)
{
	good_sqe(c, r)->sge[0].lkey = 0xdeadbeef;
	publish_sqe(r);
}

static void sq_bad_rkey(struct rt_conn *c, struct rt_rings *r)
{
	struct siw_lite_sqe *e = good_sqe(c, r);

	e->opcode = SIW_LITE_WR_WRITE;
	e->remote_addr = 0x1000;
	e->rkey = 0xdeadbeef;
	publish_sqe(r);
}

static void sq_inline_len(struct rt_conn *c, struct rt_rings *r)
{
	struct siw_lite_sqe *e = good_sqe(c, r);

	e->flags |= SIW_LITE_WQE_INLINE;
	e->num_sge = 0;
	e->length = 5000;
	publish_sqe(r);
}

static void sq_flags(struct rt_conn *c, struct rt_rings *r)
{
	good_sqe(c, r)->flags = 0xffff;
	publish_sqe(r);
}

static void sq_garbage(struct rt_conn *c, struct rt_rings *r)
{
	(void)c;
	memset(next_sqe(r), 0xa5, sizeof(struct siw_lite_sqe));
	publish_sqe(r);
}

/* the kernel's index: only the provider believes it (post: EIO) */
static void sq_cons(struct rt_conn *c, struct rt_rings *r)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int ret;

	store_rel(&r->sq->cons, r->sq->prod + 1000);
	rt_msg_wr(c, &wr, &sge, RT_DATA, 0, 0, 1, 0);
	ret = ibv_post_send(c->qp, &wr, &bad);
	tap_info("%s: client: post after the scribble: %s", c->tc->name,
		 strerror(ret));
}

static void rq_prod_ahead(struct rt_conn *c, struct rt_rings *r)
{
	(void)c;
	store_rel(&r->rq->prod, r->rq->prod + 100000);
}

static void rq_num_sge(struct rt_conn *c, struct rt_rings *r)
{
	good_rqe(c, r)->num_sge = 200;
	publish_rqe(r);
}

static void rq_bad_lkey(struct rt_conn *c, struct rt_rings *r)
{
	good_rqe(c, r)->sge[0].lkey = 0xdeadbeef;
	publish_rqe(r);
}

static void rq_unmapped(struct rt_conn *c, struct rt_rings *r)
{
	good_rqe(c, r)->sge[0].addr = 0x1000;
	publish_rqe(r);
}

static void rq_huge_len(struct rt_conn *c, struct rt_rings *r)
{
	good_rqe(c, r)->sge[0].length = 0xfffff000u;
	publish_rqe(r);
}

static void cq_cons_ahead(struct rt_conn *c, struct rt_rings *r)
{
	(void)c;
	store_rel(&r->rcq->cons, r->rcq->prod + 1000);
}

static void cq_prod(struct rt_conn *c, struct rt_rings *r)
{
	(void)c;
	store_rel(&r->rcq->prod, 0xdeadbeef);
}

static void cq_arm(struct rt_conn *c, struct rt_rings *r)
{
	(void)c;
	__atomic_store_n(&r->rcq->flags, 0xdeadbeef, __ATOMIC_SEQ_CST);
}

static void rsvd(struct rt_conn *c, struct rt_rings *r)
{
	struct siw_lite_ring *h[4] = { r->sq, r->rq, r->scq, r->rcq };
	int i;

	(void)c;
	for (i = 0; i < 4; i++) {
		memset(h[i]->rsvd0, 0xff, sizeof(h[i]->rsvd0));
		memset(h[i]->rsvd1, 0xff, sizeof(h[i]->rsvd1));
		memset(h[i]->rsvd2, 0xff, sizeof(h[i]->rsvd2));
	}
}

/* ------------------------------------------------------------- client */

static int hostile_prepare(struct rt_conn *c)
{
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;

	if (c->server)
		return rt_post_recvs(c, 8);
	/* slot = wr_id % RT_RX_SLOTS, as rt_rx_msg() expects */
	sge.addr = (uintptr_t)c->buf +
		   (RT_WR_RQ_MAGIC % RT_RX_SLOTS) * RT_MSG_SIZE;
	sge.length = RT_MSG_SIZE;
	sge.lkey = c->mr->lkey;
	wr.wr_id = RT_WR_RQ_MAGIC;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(c->qp, &wr, &bad);
}

static void hostile_client(struct rt_conn *c)
{
	const struct rt_hostile *h = c->tc->data;
	struct ibv_send_wr wr, *bad;
	double deadline, next_query = 0;
	unsigned int wc_err = 0, wc_ok = 0, poll_err = 0;
	bool qp_err = false, err;
	struct rt_rings r;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	int ret, i, n;

	rt_msg_wr(c, &wr, &sge, RT_HELLO, 0, 0, RT_WR_SQ_MAGIC, 0);
	ret = ibv_post_send(c->qp, &wr, &bad);
	ret = ret ? ret : rt_poll(c, c->scq, &wc, rt_deadline(c)) == 1 &&
			  wc.status == IBV_WC_SUCCESS ? 0 : EIO;
	if (ret || !rt_recv(c, RT_HELLO, NULL) || !find_rings(&r)) {
		tap_ok(false, "%s: client: HELLO both ways, rings found (%s)",
		       c->tc->name, strerror(ret));
		return;
	}

	h->scribble(c, &r);
	if (h->flags & H_DOORBELL) {
		ret = rt_doorbell(c);
		tap_info("%s: client: doorbell: %s", c->tc->name,
			 strerror(ret));
	}
	if (h->flags & H_RECV)
		rt_post_recvs(c, 1);
	if (h->flags & H_GO)
		rt_send(c, RT_GO, 0, 0, 0);

	deadline = rt_now() + (h->flags & H_MUST_ERR ? c->o->timeout : 3);
	err = false;
	while (rt_now() < deadline && !(err && (h->flags & H_MUST_ERR))) {
		for (i = 0; i < 2; i++) {
			cq = i ? c->rcq : c->scq;
			n = ibv_poll_cq(cq, 1, &wc);
			if (n < 0)
				poll_err++;
			else if (n && wc.status != IBV_WC_SUCCESS)
				wc_err++;
			else if (n)
				wc_ok++;
		}
		rt_events(c, 1);
		if (rt_now() > next_query) {
			qp_err |= rt_qp_state(c) == IBV_QPS_ERR;
			next_query = rt_now() + 0.2;
		}
		err = wc_err || qp_err || c->qp_fatal || c->cq_err ||
		      c->async_other || c->disconnected;
	}
	tap_ok(err || !(h->flags & H_MUST_ERR),
	       "%s: client: %s: %u error / %u good completions, %u failed polls, QP %s%s%s%s",
	       c->tc->name, h->flags & H_MUST_ERR ? "must fail" : "survive",
	       wc_err, wc_ok, poll_err, qp_err ? "ERROR" : "not in error",
	       c->qp_fatal ? ", QP fatal event" : "",
	       c->cq_err ? ", CQ error event" : "",
	       c->disconnected ? ", disconnected" : "");
}

/* The peer: answers HELLO and GO until the client goes away. */
static void hostile_server(struct rt_conn *c)
{
	double deadline = rt_now() + 3.0 * c->o->timeout;
	const struct rt_msg *m;
	bool hello = false;
	struct ibv_wc wc;
	int n;

	while (!c->disconnected && rt_now() < deadline) {
		n = ibv_poll_cq(c->rcq, 1, &wc);
		if (n == 1 && wc.status == IBV_WC_SUCCESS) {
			m = rt_rx_msg(c, wc.wr_id);
			if (m->type == RT_HELLO) {
				hello = true;
				rt_send(c, RT_HELLO, 0, 0, 0);
			} else if (m->type == RT_GO) {
				rt_send(c, RT_PING, 0, 0, 0);
			}
		}
		while (ibv_poll_cq(c->scq, 1, &wc) == 1)
			;
		rt_events(c, n == 1 ? 0 : 2);
	}
	tap_ok(hello, "%s: server: served the client until it left%s",
	       c->tc->name, c->disconnected ? "" : " (no DISCONNECTED)");
}

#define HOSTILE(n, fl)							\
	{								\
		.name = "hostile_" #n,					\
		.ccfg = { .sq = 64, .rq = 16, .scqe = 128,		\
			  .rcqe = 256 },				\
		.scfg = { .sq = 16, .rq = 16, .scqe = 32,		\
			  .rcqe = 32 },					\
		.prepare = hostile_prepare,				\
		.client = hostile_client,				\
		.server = hostile_server,				\
		.data = &(const struct rt_hostile){ (fl), n },		\
	}

#define SQ_MUST		(H_DOORBELL | H_MUST_ERR)
#define RQ_MUST		(H_GO | H_MUST_ERR)

const struct rt_case rt_hostile_cases[] = {
	HOSTILE(sq_prod_ahead, SQ_MUST),
	HOSTILE(sq_prod_behind, SQ_MUST),
	HOSTILE(sq_opcode, SQ_MUST),
	HOSTILE(sq_num_sge, SQ_MUST),
	HOSTILE(sq_huge_len, SQ_MUST),
	HOSTILE(sq_unmapped, SQ_MUST),
	HOSTILE(sq_bad_lkey, SQ_MUST),
	HOSTILE(sq_bad_rkey, SQ_MUST),
	HOSTILE(sq_inline_len, SQ_MUST),
	HOSTILE(sq_flags, SQ_MUST),
	HOSTILE(sq_garbage, SQ_MUST),
	HOSTILE(sq_cons, H_DOORBELL),
	HOSTILE(rq_prod_ahead, RQ_MUST),
	HOSTILE(rq_num_sge, RQ_MUST),
	HOSTILE(rq_bad_lkey, RQ_MUST),
	HOSTILE(rq_unmapped, RQ_MUST),
	HOSTILE(rq_huge_len, H_GO),
	HOSTILE(cq_cons_ahead, H_GO | H_RECV),
	HOSTILE(cq_prod, H_GO | H_RECV),
	HOSTILE(cq_arm, H_GO | H_RECV),
	HOSTILE(rsvd, H_DOORBELL | H_GO | H_RECV),
	{ .name = NULL },
};
