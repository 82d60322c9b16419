// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ringunit IBDEV: the provider's shared-ring backend (dp_ring.c) against
 * fakesys.c's rings in memory, with this program playing the kernel
 * (fakesys_manual(1)): it reads what the provider wrote into the SQ, RQ
 * and SRQ, moves the kernel's indices itself, writes CQEs and checks
 * what ibv_poll_cq() makes of them.  All indices start just below 2^32
 * (fakesys_ring_base()) so every test wraps the free-running counters.
 * One line per step, "<step>: ok" or what went wrong.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/siw_lite-abi.h>

#define BASE		0xfffffffcu	/* wraps after 4 entries */
#define NBADOP		6

static unsigned int (*fs_doorbells)(void);
static unsigned int (*fs_dp_writes)(void);
static void (*fs_manual)(int on);
static void (*fs_ring_base)(uint32_t base);
static void *(*fs_ring)(int kind, uint32_t handle, uint32_t *num);

static unsigned char buf[1 << 16];
static int failures;

static void step(const char *name, bool ok, const char *why)
{
	printf("%s: %s\n", name, ok ? "ok" : why);
	failures += !ok;
}

static void *ent(struct siw_lite_ring *r, uint32_t num, uint32_t idx,
		 size_t esize)
{
	return (char *)r + SIW_LITE_RING_ENTRIES + (idx & (num - 1)) * esize;
}

static struct siw_lite_sqe *sqe(struct siw_lite_ring *r, uint32_t num,
				uint32_t idx)
{
	return ent(r, num, idx, sizeof(struct siw_lite_sqe));
}

/*
 * Counts ring mappings (fakesys' memfds "siwl-ring": its own view of each
 * ring and the provider's) and those marked dontcopy (MADV_DONTFORK).
 */
static void ring_maps(int *maps, int *dontfork)
{
	char line[512];
	bool ring = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	*maps = *dontfork = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* mapping lines start with a lower-case hex address */
		if (isxdigit((unsigned char)line[0]) &&
		    !isupper((unsigned char)line[0])) {
			ring = strstr(line, "siwl-ring");
			*maps += ring;
		} else if (ring && !strncmp(line, "VmFlags:", 8)) {
			*dontfork += !!strstr(line, " dc");
		}
	}
	fclose(f);
}

static void sends(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *mr)
{
	struct siw_lite_ring *sq;
	struct ibv_send_wr wr[8], *bad;
	struct ibv_sge sge[8];
	struct siw_lite_sqe *e;
	unsigned int db, w;
	uint32_t num, i;
	bool ok;
	int ret;

	sq = fs_ring(1, qp->handle, &num);
	step("SQ ring exists, 8 entries", sq && num == 8, "no SQ ring");
	if (!sq)
		return;
	step("SQ indices start at the kernel's", sq->prod == BASE &&
	     sq->cons == BASE, "wrong start");

	for (i = 0; i < 8; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)buf + 64 * i, 10 + i,
					   mr->lkey };
		wr[i] = (struct ibv_send_wr){ .wr_id = 100 + i,
			.next = &wr[i + 1], .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	}
	wr[1].opcode = IBV_WR_RDMA_WRITE;
	wr[1].wr.rdma.remote_addr = 0x1122334455667788ull;
	wr[1].wr.rdma.rkey = 0xabcd;
	wr[1].send_flags = IBV_SEND_FENCE;
	wr[2].opcode = IBV_WR_RDMA_READ;
	wr[2].wr.rdma.remote_addr = 0x99;
	wr[2].wr.rdma.rkey = 0x77;
	wr[3].opcode = IBV_WR_SEND_WITH_INV;
	wr[3].invalidate_rkey = 0x4242;
	wr[3].send_flags = IBV_SEND_SOLICITED;
	wr[4].opcode = IBV_WR_LOCAL_INV;
	wr[4].invalidate_rkey = 0x5151;
	wr[5].num_sge = 0;
	wr[6].next = NULL;	/* 7 WRs, the QP allows 6 outstanding */

	db = fs_doorbells();
	w = fs_dp_writes();
	bad = NULL;
	ret = ibv_post_send(qp, wr, &bad);
	step("7th WR beyond max_send_wr 6: ENOMEM", ret == ENOMEM &&
	     bad == &wr[6], strerror(ret));
	step("6 WRs published across the wrap", sq->prod == BASE + 6,
	     "wrong prod");
	step("one doorbell for the batch, no other command",
	     fs_doorbells() == db + 1 && fs_dp_writes() == w + 1,
	     "wrong doorbell count");

	e = sqe(sq, num, BASE);
	ok = e->wr_id == 100 && e->opcode == SIW_LITE_WR_SEND &&
	     e->num_sge == 1 && e->flags == SIW_LITE_WQE_SIGNALED &&
	     e->sge[0].addr == (uintptr_t)buf && e->sge[0].length == 10 &&
	     e->sge[0].lkey == mr->lkey;
	e = sqe(sq, num, BASE + 1);
	ok = ok && e->opcode == SIW_LITE_WR_WRITE &&
	     e->flags == SIW_LITE_WQE_FENCE &&
	     e->remote_addr == 0x1122334455667788ull && e->rkey == 0xabcd;
	e = sqe(sq, num, BASE + 2);
	ok = ok && e->opcode == SIW_LITE_WR_READ && e->remote_addr == 0x99 &&
	     e->rkey == 0x77;
	e = sqe(sq, num, BASE + 3);
	ok = ok && e->opcode == SIW_LITE_WR_SEND_WITH_INV &&
	     e->invalidate_rkey == 0x4242 &&
	     e->flags == SIW_LITE_WQE_SOLICITED;
	e = sqe(sq, num, BASE + 4);
	ok = ok && e->opcode == SIW_LITE_WR_LOCAL_INV &&
	     e->invalidate_rkey == 0x5151 && e->num_sge == 0;
	e = sqe(sq, num, BASE + 5);
	ok = ok && e->wr_id == 105 && e->num_sge == 0 &&
	     sqe(sq, num, BASE + 6)->wr_id != 106;
	if (!ok)
		for (i = 0; i < 7; i++) {
			e = sqe(sq, num, BASE + i);
			printf("# sqe %u: wr_id %llu op %u nsge %u flags %#x\n",
			       i, (unsigned long long)e->wr_id, e->opcode,
			       e->num_sge, e->flags);
		}
	step("SQEs: opcodes, flags, SGEs, remote address, keys", ok,
	     "wrong SQE contents");

	/* the kernel completes 2 and keeps fetching: no doorbell wanted */
	__atomic_store_n(&sq->cons, BASE + 2, __ATOMIC_RELEASE);
	sq->flags = 0;
	db = fs_doorbells();
	ret = ibv_post_send(qp, &wr[6], &bad);
	ret = ret ? ret : ibv_post_send(qp, &wr[7 - 1], &bad);
	step("2 more after 2 completed, no doorbell while polled",
	     !ret && sq->prod == BASE + 8 && fs_doorbells() == db &&
	     sqe(sq, num, BASE + 7)->wr_id == 106, strerror(ret));
	ret = ibv_post_send(qp, &wr[7 - 1], &bad);
	step("full again: ENOMEM, nothing written", ret == ENOMEM &&
	     bad == &wr[6] && sq->prod == BASE + 8, strerror(ret));
	sq->flags = SIW_LITE_SQ_DOORBELL;
	__atomic_store_n(&sq->cons, BASE + 8, __ATOMIC_RELEASE);

	/* bad WRs: refused before anything is written */
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].next = NULL;
	{
		static const enum ibv_wr_opcode badop[NBADOP] = {
			IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND_WITH_IMM,
			IBV_WR_ATOMIC_CMP_AND_SWP,
			IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_BIND_MW,
			IBV_WR_TSO,
		};

		ok = true;
		db = fs_doorbells();
		for (i = 0; i < NBADOP; i++) {
			wr[1].opcode = badop[i];
			bad = NULL;
			ret = ibv_post_send(qp, &wr[1], &bad);
			ok = ok && ret == EINVAL && bad == &wr[1];
		}
		step("imm, atomics, bind_mw, TSO: EINVAL, bad_wr, nothing posted",
		     ok && sq->prod == BASE + 8 && fs_doorbells() == db,
		     "accepted");
	}
	ret = ibv_post_send(qp, wr, &bad);
	step("good WR then bad: first published, one doorbell",
	     ret == EINVAL && bad == &wr[1] && sq->prod == BASE + 9 &&
	     fs_doorbells() == db + 1, strerror(ret));
	wr[1].opcode = IBV_WR_SEND;
	wr[1].num_sge = 7;
	ret = ibv_post_send(qp, &wr[1], &bad);
	step("7 SGEs: EINVAL", ret == EINVAL && sq->prod == BASE + 9,
	     strerror(ret));

	/* inline: payload copied into the SQE, no SGEs */
	memcpy(buf, "0123456789abcdefghij", 20);
	memcpy(buf + 1000, "KLMNOPQRSTUVWXYZ", 16);
	sge[0] = (struct ibv_sge){ (uintptr_t)buf, 20, 0 };
	sge[1] = (struct ibv_sge){ (uintptr_t)buf + 1000, 16, 0 };
	wr[1] = (struct ibv_send_wr){ .wr_id = 7, .sg_list = sge,
		.num_sge = 2, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE,
		.wr.rdma = { 0x5000, 0x66 } };
	ret = ibv_post_send(qp, &wr[1], &bad);
	e = sqe(sq, num, BASE + 9);
	step("inline Write of 2 pieces, 36 bytes", !ret &&
	     e->flags == SIW_LITE_WQE_INLINE && e->length == 36 &&
	     !e->num_sge && !memcmp(e->inline_data,
				    "0123456789abcdefghijKLMNOPQRSTUV", 32),
	     strerror(ret));
	sge[1].length = 45;	/* 65 > granted 64 */
	ret = ibv_post_send(qp, &wr[1], &bad);
	step("inline beyond the granted cap: EINVAL", ret == EINVAL &&
	     sq->prod == BASE + 10, strerror(ret));

	/* a kernel index beyond ours: corrupt, refuse */
	__atomic_store_n(&sq->cons, BASE + 20, __ATOMIC_RELEASE);
	sge[1].length = 4;
	ret = ibv_post_send(qp, &wr[1], &bad);
	step("SQ cons beyond prod: EIO, nothing written", ret == EIO &&
	     sq->prod == BASE + 10 && bad == &wr[1], strerror(ret));
	__atomic_store_n(&sq->cons, BASE + 10, __ATOMIC_RELEASE);
	(void)cq;
}

static void sig_all(struct ibv_qp *qp)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad;
	struct siw_lite_ring *sq;
	uint32_t num;
	int ret;

	sq = fs_ring(1, qp->handle, &num);
	ret = ibv_post_send(qp, &wr, &bad);
	step("sq_sig_all QP: an unsignaled WR is posted signaled", !ret &&
	     sq && sqe(sq, num, BASE)->flags == SIW_LITE_WQE_SIGNALED,
	     strerror(ret));
}

static void recvs(struct ibv_qp *qp, struct ibv_srq *srq, struct ibv_mr *mr)
{
	struct ibv_recv_wr wr[10], *bad;
	struct siw_lite_ring *rq, *sr;
	struct siw_lite_rqe *e;
	struct ibv_sge sge[7];
	uint32_t num, snum, i;
	unsigned int w;
	int ret;

	rq = fs_ring(2, qp->handle, &num);
	sr = fs_ring(3, srq->handle, &snum);
	step("RQ ring 4 entries, SRQ ring 8", rq && num == 4 && sr &&
	     snum == 8, "rings missing");
	if (!rq || !sr)
		return;
	for (i = 0; i < 7; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)buf + i, i + 1,
					   mr->lkey };
	for (i = 0; i < 10; i++)
		wr[i] = (struct ibv_recv_wr){ .wr_id = 500 + i,
			.next = i < 9 ? &wr[i + 1] : NULL, .sg_list = sge,
			.num_sge = 1 + i % 3 };
	w = fs_dp_writes();
	ret = ibv_post_recv(qp, wr, &bad);
	step("RQ: 4 of 10 posted, then ENOMEM", ret == ENOMEM &&
	     bad == &wr[4] && rq->prod == BASE + 4, strerror(ret));
	e = ent(rq, num, BASE + 2, sizeof(*e));
	step("RQE contents", e->wr_id == 502 && e->num_sge == 3 &&
	     e->sge[2].addr == (uintptr_t)buf + 2 && e->sge[2].length == 3 &&
	     e->sge[2].lkey == mr->lkey && !e->rsvd, "wrong RQE");
	__atomic_store_n(&rq->cons, BASE + 3, __ATOMIC_RELEASE);
	ret = ibv_post_recv(qp, &wr[4], &bad);
	step("RQ: 3 consumed, 3 more posted", ret == ENOMEM &&
	     bad == &wr[7] && rq->prod == BASE + 7 &&
	     ent(rq, num, BASE + 6, sizeof(*e)) == ent(rq, num, BASE + 2,
						       sizeof(*e)) &&
	     e->wr_id == 506, strerror(ret));
	wr[0].num_sge = 5;	/* QP granted 4 */
	wr[0].next = NULL;
	__atomic_store_n(&rq->cons, BASE + 7, __ATOMIC_RELEASE);
	ret = ibv_post_recv(qp, wr, &bad);
	step("RQ: 5 SGEs refused", ret == EINVAL && rq->prod == BASE + 7,
	     strerror(ret));

	/* the SRQ grants 5 (asked 4): 5 of 8 slots usable */
	for (i = 1; i < 10; i++)
		wr[i].num_sge = 1 + i % 2;
	ret = ibv_post_srq_recv(srq, &wr[1], &bad);
	step("SRQ: 5 of 9 posted (granted max_wr), then ENOMEM",
	     ret == ENOMEM && bad == &wr[6] && sr->prod == BASE + 5 &&
	     ((struct siw_lite_rqe *)ent(sr, snum, BASE + 4,
					 sizeof(*e)))->wr_id == 505,
	     strerror(ret));
	wr[7].num_sge = 3;	/* SRQ granted 2 */
	wr[7].next = NULL;
	__atomic_store_n(&sr->cons, BASE + 5, __ATOMIC_RELEASE);
	ret = ibv_post_srq_recv(srq, &wr[7], &bad);
	step("SRQ: 3 SGEs refused", ret == EINVAL && bad == &wr[7],
	     strerror(ret));
	step("receives made no system call", fs_dp_writes() == w,
	     "write() seen");

	/* a QP in ERROR: the kernel wants a POST_RECV per post to flush */
	rq->flags = SIW_LITE_RQ_FLUSH;
	wr[0].num_sge = 1;
	ret = ibv_post_recv(qp, wr, &bad);
	step("RQ_FLUSH set: one POST_RECV command after publishing", !ret &&
	     rq->prod == BASE + 8 && fs_dp_writes() == w + 1, strerror(ret));
	rq->flags = 0;
	__atomic_store_n(&rq->cons, BASE + 8, __ATOMIC_RELEASE);
}

static void polls(struct ibv_cq *cq)
{
	struct siw_lite_ring *r;
	struct siw_lite_cqe *c;
	struct ibv_wc wc[8];
	uint32_t num, i;
	unsigned int w;
	int n;

	r = fs_ring(0, cq->handle, &num);
	step("CQ ring 8 entries", r && num == 8, "no CQ ring");
	if (!r)
		return;
	w = fs_dp_writes();
	memset(wc, 0xff, sizeof(wc));
	step("empty CQ: nothing to poll", ibv_poll_cq(cq, 8, wc) == 0, "not empty");
	for (i = 0; i < 6; i++) {
		c = ent(r, num, BASE + i, sizeof(*c));
		memset(c, 0, sizeof(*c));
		c->wr_id = 900 + i;
		c->opcode = IBV_WC_RECV;
		c->byte_len = 1000 + i;
		c->qp_num = 0x100 + i;
	}
	c = ent(r, num, BASE + 1, sizeof(*c));
	c->flags = SIW_LITE_CQE_WITH_INV | SIW_LITE_CQE_SOLICITED;
	c->invalidated_rkey = 0xfeed;
	c = ent(r, num, BASE + 2, sizeof(*c));
	c->opcode = IBV_WC_RDMA_READ;
	c->status = IBV_WC_REM_ACCESS_ERR;
	c->vendor_err = 0x33;
	__atomic_store_n(&r->prod, BASE + 6, __ATOMIC_RELEASE);

	n = ibv_poll_cq(cq, 2, wc);
	step("poll 2 of 6", n == 2 && r->cons == BASE + 2 &&
	     wc[0].wr_id == 900 && wc[0].opcode == IBV_WC_RECV &&
	     wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 1000 &&
	     wc[0].qp_num == 0x100 && !wc[0].wc_flags && !wc[0].src_qp &&
	     wc[1].wc_flags == IBV_WC_WITH_INV &&
	     wc[1].invalidated_rkey == 0xfeed && wc[1].qp_num == 0x101,
	     "wrong completions");
	memset(wc, 0xff, sizeof(wc));
	n = ibv_poll_cq(cq, 8, wc);
	step("poll the other 4 across the wrap", n == 4 &&
	     r->cons == BASE + 6 && wc[0].wr_id == 902 &&
	     wc[0].status == IBV_WC_REM_ACCESS_ERR &&
	     wc[0].opcode == IBV_WC_RDMA_READ && wc[0].vendor_err == 0x33 &&
	     !wc[0].wc_flags && wc[3].wr_id == 905 && wc[3].byte_len == 1005,
	     "wrong completions");

	__atomic_store_n(&r->prod, BASE + 6 + num + 1, __ATOMIC_RELEASE);
	errno = 0;
	n = ibv_poll_cq(cq, 8, wc);
	step("CQ prod more than a ring ahead: -1, EIO", n == -1 &&
	     errno == EIO && r->cons == BASE + 6, "accepted");
	__atomic_store_n(&r->prod, BASE + 5, __ATOMIC_RELEASE);
	n = ibv_poll_cq(cq, 8, wc);
	step("CQ prod behind cons: -1", n == -1, "accepted");
	__atomic_store_n(&r->prod, BASE + 6, __ATOMIC_RELEASE);

	step("arm next", !ibv_req_notify_cq(cq, 0) &&
	     r->flags == SIW_LITE_CQ_ARM_NEXT, "wrong arm value");
	step("arm solicited", !ibv_req_notify_cq(cq, 1) &&
	     r->flags == SIW_LITE_CQ_ARM_SOLICITED, "wrong arm value");
	step("poll and arm made no system call", fs_dp_writes() == w,
	     "write() seen");
}

/*
 * Two threads post receives and two poll while this "kernel" consumes
 * the RQ and produces CQEs: every WR must come through exactly once.
 */
#define MT_PER_THREAD	20000

struct mt {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned int id;
	unsigned int got;
	bool bad;
};

static bool mt_stop;
static unsigned char *mt_seen;

static void *mt_poster(void *arg)
{
	struct mt *t = arg;
	struct ibv_sge sge = { (uintptr_t)buf, 8, t->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	unsigned int i = 0, full = 0;
	int ret;

	while (i < MT_PER_THREAD) {
		wr.wr_id = t->id * MT_PER_THREAD + i;
		ret = ibv_post_recv(t->qp, &wr, &bad);
		if (!ret)
			i++;
		else if (ret != ENOMEM)
			t->bad = true;
		else if (!(++full % 64))
			sched_yield();	/* 2 CPUs, 5 threads: let others run */
	}
	return NULL;
}

static void *mt_poller(void *arg)
{
	struct mt *t = arg;
	struct ibv_wc wc[7];
	bool stop;
	int n, i;

	/* everything is produced before mt_stop: stop once empty after it */
	do {
		stop = __atomic_load_n(&mt_stop, __ATOMIC_ACQUIRE);
		n = ibv_poll_cq(t->cq, 7, wc);
		if (n < 0)
			t->bad = true;
		if (!n)
			sched_yield();
		for (i = 0; i < n; i++) {
			if (wc[i].wr_id >= 2 * MT_PER_THREAD ||
			    __atomic_fetch_add(&mt_seen[wc[i].wr_id], 1,
					       __ATOMIC_RELAXED))
				t->bad = true;
			t->got++;
		}
	} while (n || !stop);
	return NULL;
}

static void mt_run(struct ibv_pd *pd, struct ibv_mr *mr)
{
	struct ibv_qp_init_attr qattr = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 256,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_cq *cq = ibv_create_cq(pd->context, 256, NULL, NULL, 0);
	struct ibv_qp *qp;
	struct siw_lite_ring *rq, *cr;
	struct mt t[4] = {};
	pthread_t th[4];
	uint32_t rnum, cnum, rc, cp, i;
	struct siw_lite_rqe *e;
	struct siw_lite_cqe *c;
	unsigned int moved = 0, total = 2 * MT_PER_THREAD;

	qattr.send_cq = cq;
	qattr.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &qattr) : NULL;
	rq = qp ? fs_ring(2, qp->handle, &rnum) : NULL;
	cr = qp ? fs_ring(0, cq->handle, &cnum) : NULL;
	mt_seen = calloc(total, 1);
	if (!rq || !cr || !mt_seen) {
		step("threads: set-up", false, "no rings");
		return;
	}
	rc = rq->cons;
	cp = cr->prod;
	for (i = 0; i < 4; i++) {
		t[i] = (struct mt){ .qp = qp, .cq = cq, .mr = mr, .id = i };
		pthread_create(&th[i], NULL, i < 2 ? mt_poster : mt_poller,
			       &t[i]);
	}
	/* the kernel: move each RQE to the CQ when there is room */
	while (moved < total) {
		if (rc == __atomic_load_n(&rq->prod, __ATOMIC_ACQUIRE) ||
		    cp - __atomic_load_n(&cr->cons, __ATOMIC_ACQUIRE) == cnum) {
			sched_yield();
			continue;
		}
		e = ent(rq, rnum, rc, sizeof(*e));
		c = ent(cr, cnum, cp, sizeof(*c));
		memset(c, 0, sizeof(*c));
		c->wr_id = e->wr_id;
		c->opcode = IBV_WC_RECV;
		__atomic_store_n(&rq->cons, ++rc, __ATOMIC_RELEASE);
		__atomic_store_n(&cr->prod, ++cp, __ATOMIC_RELEASE);
		moved++;
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	__atomic_store_n(&mt_stop, true, __ATOMIC_RELEASE);
	pthread_join(th[2], NULL);
	pthread_join(th[3], NULL);
	for (i = 0; i < total && mt_seen[i] == 1; i++)
		;
	if (i < total || t[0].bad || t[1].bad || t[2].bad || t[3].bad)
		printf("# first bad wr_id %u (seen %u), bad %d%d%d%d, got %u+%u\n",
		       i, i < total ? mt_seen[i] : 0, t[0].bad, t[1].bad,
		       t[2].bad, t[3].bad, t[2].got, t[3].got);
	step("threads: 2 posters, 2 pollers, every WR exactly once",
	     i == total && !t[0].bad && !t[1].bad && !t[2].bad &&
	     !t[3].bad && t[2].got + t[3].got == total, "lost or duplicated");
	free(mt_seen);
	step("threads: destroy", !ibv_destroy_qp(qp) && !ibv_destroy_cq(cq),
	     "failed");
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4,
						     .max_sge = 2 } };
	struct ibv_qp_init_attr qattr = {};
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_qp *qp, *sqp;
	int i, n, maps, dc, maps0, dc0;

	if (argc != 2)
		return 2;
	fs_doorbells = dlsym(RTLD_DEFAULT, "fakesys_doorbells");
	fs_dp_writes = dlsym(RTLD_DEFAULT, "fakesys_dp_writes");
	fs_manual = dlsym(RTLD_DEFAULT, "fakesys_manual");
	fs_ring_base = dlsym(RTLD_DEFAULT, "fakesys_ring_base");
	fs_ring = dlsym(RTLD_DEFAULT, "fakesys_ring");
	if (!fs_doorbells || !fs_dp_writes || !fs_manual || !fs_ring_base ||
	    !fs_ring) {
		printf("fakesys: not preloaded\n");
		return 1;
	}
	fs_manual(1);
	fs_ring_base(BASE);

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
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	cq = mr ? ibv_create_cq(ctx, 5, NULL, NULL, 0) : NULL;
	srq = cq ? ibv_create_srq(pd, &sattr) : NULL;
	if (!srq) {
		printf("setup: %s\n", strerror(errno));
		return 1;
	}
	ring_maps(&maps0, &dc0);
	qattr = (struct ibv_qp_init_attr){ .send_cq = cq, .recv_cq = cq,
		.qp_type = IBV_QPT_RC, .cap = { .max_send_wr = 6,
		.max_recv_wr = 4, .max_send_sge = 6, .max_recv_sge = 4,
		.max_inline_data = 64 } };
	qp = ibv_create_qp(pd, &qattr);
	qattr.srq = srq;
	qattr.sq_sig_all = 1;
	sqp = qp ? ibv_create_qp(pd, &qattr) : NULL;
	step("create QPs", qp && sqp, strerror(errno));
	if (!sqp)
		return 1;
	ring_maps(&maps, &dc);
	/* CQ + SRQ before; SQ + RQ and SQ now; each also in fakesys */
	step("QP rings mapped, all MADV_DONTFORK", maps0 == 4 && dc0 == 2 &&
	     maps == 10 && dc == 5, "wrong mappings");
	step("no RQ ring with an SRQ", !fs_ring(2, sqp->handle,
					       (uint32_t *)&n), "RQ ring");

	sends(qp, cq, mr);
	sig_all(sqp);
	recvs(qp, srq, mr);
	polls(cq);
	mt_run(pd, mr);

	step("destroy_qp", !ibv_destroy_qp(qp) && !ibv_destroy_qp(sqp),
	     "failed");
	ring_maps(&maps, &dc);
	step("QP rings unmapped at destroy", maps == 4 && dc == 2,
	     "still mapped");
	step("destroy_srq, destroy_cq", !ibv_destroy_srq(srq) &&
	     !ibv_destroy_cq(cq), "failed");
	ring_maps(&maps, &dc);
	step("all rings unmapped", maps == 0, "still mapped");

	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("failures: %d\n", failures);
	return failures ? 1 : 0;
}
