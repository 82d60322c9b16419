// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ringtest cases on well-behaved rings: batched posts, full rings, CQ
 * overflow, arming races, fork() and munmap() of the rings.  The client
 * always sends first (iWARP); the server ends a data case with DONE,
 * whose arg says how many messages it verified.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "ringtest.h"

#define MAXWR 256

/* Receives @n DATA messages seq @first.. in order; how many were right. */
static unsigned int recv_data(struct rt_conn *c, unsigned int n,
			      uint32_t first)
{
	struct rt_msg m;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!rt_recv(c, RT_DATA, &m))
			break;
		if (m.seq != first + i) {
			tap_diag("%s: %s: message %u has seq %u", c->tc->name,
				 c->role, first + i, m.seq);
			break;
		}
	}
	return i;
}

/* Polls @n send completions: in order from wr_id @first, all SUCCESS. */
static bool send_wcs(struct rt_conn *c, unsigned int n, uint64_t first)
{
	double deadline = rt_deadline(c);
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (rt_poll(c, c->scq, &wc, deadline) != 1) {
			tap_diag("%s: %s: %u of %u send completions",
				 c->tc->name, c->role, i, n);
			return false;
		}
		if (wc.wr_id != first + i || wc.status != IBV_WC_SUCCESS) {
			tap_diag("%s: %s: send completion %u: wr_id %llu %s",
				 c->tc->name, c->role, i,
				 (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
			return false;
		}
	}
	return true;
}

/* A list of @n DATA sends, seq and wr_id @first.. */
static void data_list(struct rt_conn *c, struct ibv_send_wr *wr,
		      struct ibv_sge *sge, unsigned int n, uint32_t first,
		      unsigned int flags)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		rt_msg_wr(c, &wr[i], &sge[i], RT_DATA, first + i, 0,
			  first + i, flags);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
}

static void server_done(struct rt_conn *c, unsigned int got)
{
	if (!rt_send(c, RT_DONE, 0, got, 0))
		rt_reap_sends(c, 1);
}

static bool client_done(struct rt_conn *c, unsigned int want)
{
	struct rt_msg m;

	if (!rt_recv(c, RT_DONE, &m))
		return false;
	if (m.arg != want)
		tap_diag("%s: client: server verified %u of %u", c->tc->name,
			 m.arg, want);
	return m.arg == want;
}

/* ------------------------------------------------------------- batch */

#define BATCH 64

static void batch_client(struct rt_conn *c)
{
	static struct ibv_send_wr wr[BATCH];
	static struct ibv_sge sge[BATCH];
	struct ibv_send_wr *bad = NULL;
	int ret;

	data_list(c, wr, sge, BATCH, 0, 0);
	ret = ibv_post_send(c->qp, wr, &bad);
	tap_ok(!ret, "%s: client: %d Sends in one ibv_post_send (%s)",
	       c->tc->name, BATCH, strerror(ret));
	tap_ok(!ret && send_wcs(c, BATCH, 0),
	       "%s: client: %d completions, in order, SUCCESS", c->tc->name,
	       BATCH);
	tap_ok(client_done(c, BATCH),
	       "%s: client: server got all %d in order", c->tc->name, BATCH);
}

static void batch_server(struct rt_conn *c)
{
	unsigned int got = recv_data(c, BATCH, 0);

	tap_ok(got == BATCH, "%s: server: %u of %d messages in order",
	       c->tc->name, got, BATCH);
	server_done(c, got);
}

/* --------------------------------------------------------- ring full */

#define FULL_SQ		16
#define FULL_SENDS	24
#define FULL_RQ		32

static void full_client(struct rt_conn *c)
{
	static struct ibv_send_wr wr[FULL_SENDS];
	static struct ibv_sge sge[FULL_SENDS];
	struct ibv_send_wr *bad = NULL;
	unsigned int n = c->cap.max_send_wr;
	int ret;

	if (n >= FULL_SENDS) {
		tap_ok(false, "%s: client: granted max_send_wr %u < %d",
		       c->tc->name, n, FULL_SENDS);
		return;
	}
	data_list(c, wr, sge, FULL_SENDS, 0, 0);
	ret = ibv_post_send(c->qp, wr, &bad);
	tap_ok(ret == ENOMEM && bad == &wr[n],
	       "%s: client: %d Sends on a %u-WR SQ: ENOMEM at WR %ld (%s)",
	       c->tc->name, FULL_SENDS, n, bad ? (long)(bad - wr) : -1L,
	       strerror(ret));
	if (ret != ENOMEM || bad != &wr[n])
		return;
	tap_ok(send_wcs(c, n, 0), "%s: client: the first %u complete",
	       c->tc->name, n);
	ret = ibv_post_send(c->qp, bad, &bad);
	tap_ok(!ret && send_wcs(c, FULL_SENDS - n, n),
	       "%s: client: the rest posted again and completed (%s)",
	       c->tc->name, strerror(ret));
	tap_ok(client_done(c, FULL_SENDS),
	       "%s: client: nothing lost or duplicated at the server",
	       c->tc->name);
}

static int full_prepare(struct rt_conn *c)
{
	static struct ibv_recv_wr wr[FULL_RQ + 4];
	static struct ibv_sge sge[FULL_RQ + 4];
	struct ibv_recv_wr *bad = NULL;
	unsigned int i, n = c->cap.max_recv_wr;
	int ret;

	if (!c->server)
		return rt_post_recvs(c, 1);
	if (n < FULL_SENDS || n >= FULL_RQ + 4) {
		tap_ok(false, "%s: server: granted max_recv_wr %u in [%d, %d)",
		       c->tc->name, n, FULL_SENDS, FULL_RQ + 4);
		return -1;
	}
	for (i = 0; i < FULL_RQ + 4; i++) {
		sge[i].addr = (uintptr_t)c->buf + i * RT_MSG_SIZE;
		sge[i].length = RT_MSG_SIZE;
		sge[i].lkey = c->mr->lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = RT_WR_RX | i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < FULL_RQ + 4 ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_recv(c->qp, wr, &bad);
	c->rx_next = n;
	tap_ok(ret == ENOMEM && bad == &wr[n],
	       "%s: server: %d receives on a %u-WR RQ: ENOMEM at WR %ld (%s)",
	       c->tc->name, FULL_RQ + 4, n, bad ? (long)(bad - wr) : -1L,
	       strerror(ret));
	return 0;
}

static void full_server(struct rt_conn *c)
{
	unsigned int got = recv_data(c, FULL_SENDS, 0);

	tap_ok(got == FULL_SENDS, "%s: server: %u of %d in order",
	       c->tc->name, got, FULL_SENDS);
	server_done(c, got);
}

/* ------------------------------------------------------- CQ overflow */

#define OVF_SENDS 64

static void ovf_client(struct rt_conn *c)
{
	static struct ibv_send_wr wr[OVF_SENDS];
	static struct ibv_sge sge[OVF_SENDS];
	double deadline = rt_deadline(c);
	struct ibv_send_wr *bad = NULL;
	unsigned int n = 0, errs = 0;
	struct ibv_wc wc;
	bool order = true;
	int ret;

	data_list(c, wr, sge, OVF_SENDS, 0, 0);
	ret = ibv_post_send(c->qp, wr, &bad);
	tap_ok(!ret, "%s: client: %d Sends posted (%s)", c->tc->name,
	       OVF_SENDS, strerror(ret));
	while (!ret && n < OVF_SENDS && rt_poll(c, c->scq, &wc, deadline) == 1) {
		order &= wc.wr_id == n;
		errs += wc.status != IBV_WC_SUCCESS;
		n++;
	}
	tap_ok(n == OVF_SENDS && order,
	       "%s: client: every Send completes once, in order (%u, %u errors)",
	       c->tc->name, n, errs);
}

static void ovf_server(struct rt_conn *c)
{
	double deadline = rt_deadline(c);

	/* never poll: the CQ of 4 must overflow */
	while (!c->cq_err && !c->qp_fatal && rt_now() < deadline)
		rt_events(c, 20);
	tap_ok(c->cq_err || c->qp_fatal,
	       "%s: server: CQ of %d overflowed: %s%s", c->tc->name,
	       c->rcq->cqe, c->cq_err ? "IBV_EVENT_CQ_ERR " : "",
	       c->qp_fatal ? "QP fatal" : "no event");
	/* the QP must be in ERROR now, or be so once the CQ is gone */
	tap_info("%s: server: QP state %d", c->tc->name, rt_qp_state(c));
}

/* ------------------------------------------------------------ arming */

#define ARM_MSGS	200
#define ARM_ROUNDS	10
#define ARM_MAX		(ARM_MSGS + 4 * ARM_ROUNDS)

static void arm_client(struct rt_conn *c)
{
	struct ibv_send_wr wr[5], *bad;
	struct ibv_sge sge[5];
	unsigned int sent = 0, k, r;
	bool ok = true;
	int ret = 0;

	srand(getpid());
	while (ok && sent < ARM_MSGS) {
		k = 1 + rand() % 5;
		if (k > ARM_MSGS - sent)
			k = ARM_MSGS - sent;
		data_list(c, wr, sge, k, sent, 0);
		ret = ibv_post_send(c->qp, wr, &bad);
		ok = !ret && send_wcs(c, k, sent);
		sent += k;
		if (rand() % 2)
			usleep(rand() % 2000);
	}
	tap_ok(ok, "%s: client: %d Sends in random bursts (%s)",
	       c->tc->name, ARM_MSGS, strerror(ret));
	tap_ok(ok && client_done(c, ARM_MSGS),
	       "%s: client: server woke up for every message", c->tc->name);
	for (r = 0; ok && r < ARM_ROUNDS; r++) {
		ok = rt_recv(c, RT_GO, NULL);
		data_list(c, wr, sge, 4, sent, 0);
		wr[2].next = NULL;
		wr[3].send_flags |= IBV_SEND_SOLICITED;
		ret = ok ? ibv_post_send(c->qp, wr, &bad) : EIO;
		ok = !ret && send_wcs(c, 3, sent);
		usleep(100000);
		ret = ok ? ibv_post_send(c->qp, &wr[3], &bad) : EIO;
		ok = !ret && send_wcs(c, 1, sent + 3);
		sent += 4;
	}
	tap_ok(ok && client_done(c, ARM_ROUNDS),
	       "%s: client: %d rounds of 3 unsolicited + 1 solicited",
	       c->tc->name, ARM_ROUNDS);
}

/* Waits for a completion event of the receive CQ; false on timeout. */
static bool arm_wait(struct rt_conn *c, double deadline)
{
	struct pollfd pfd = { .fd = c->cch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	while (rt_now() < deadline) {
		if (!ibv_get_cq_event(c->cch, &cq, &ctx)) {
			c->cq_events++;
			return true;
		}
		poll(&pfd, 1, 20);
		rt_events(c, 0);
	}
	return false;
}

/* Drains the receive CQ; appends the messages' seqs to @seq. */
static int arm_drain(struct rt_conn *c, uint32_t *seq, unsigned int *n,
		     unsigned int max)
{
	struct ibv_wc wc;
	int got = 0, r;

	while ((r = ibv_poll_cq(c->rcq, 1, &wc)) == 1) {
		if (wc.status != IBV_WC_SUCCESS || *n >= max)
			return -1;
		seq[(*n)++] = rt_rx_msg(c, wc.wr_id)->seq;
		got++;
	}
	return r < 0 ? -1 : got;
}

static void arm_server(struct rt_conn *c)
{
	static uint32_t seq[ARM_MAX];
	unsigned int n = 0, waits = 0, i, r, good = 0;
	double deadline = rt_deadline(c);
	struct ibv_cq *cq;
	void *ctx;
	bool ok = true;
	int got;

	/* the race: arm, poll, sleep only if the poll found nothing */
	while (ok && n < ARM_MSGS) {
		ok = !ibv_req_notify_cq(c->rcq, 0);
		got = ok ? arm_drain(c, seq, &n, ARM_MSGS) : -1;
		if (got < 0) {
			ok = false;
		} else if (!got && n < ARM_MSGS) {
			ok = arm_wait(c, deadline);
			waits++;
		}
	}
	for (i = 0; ok && i < n; i++)
		ok = seq[i] == i;
	tap_ok(ok && n == ARM_MSGS,
	       "%s: server: %u of %d messages in order, %u waits for an event",
	       c->tc->name, n, ARM_MSGS, waits);
	server_done(c, n);
	/* events raised after we stopped waiting are stale now */
	while (!ibv_get_cq_event(c->cch, &cq, &ctx))
		c->cq_events++;

	for (r = 0; ok && r < ARM_ROUNDS; r++) {
		unsigned int before = n;

		ok = !ibv_req_notify_cq(c->rcq, 1) &&
		     arm_drain(c, seq, &n, ARM_MAX) == 0 &&
		     !rt_send(c, RT_GO, r, 0, 0) && rt_reap_sends(c, 1);
		ok = ok && arm_wait(c, rt_deadline(c));
		/* the event must come with the 4th, solicited message */
		ok = ok && arm_drain(c, seq, &n, ARM_MAX) == 4;
		if (!ok)
			tap_diag("%s: server: round %u: %u messages at the event",
				 c->tc->name, r, n - before);
		good += ok;
	}
	tap_ok(good == ARM_ROUNDS,
	       "%s: server: solicited-only arming: one event per round, after the solicited message (%u of %d)",
	       c->tc->name, good, ARM_ROUNDS);
	server_done(c, good);
}

/* -------------------------------------------------------------- fork */

#define FORK_SENDS 32

static sigjmp_buf segv_env;

static void segv_handler(int sig)
{
	siglongjmp(segv_env, sig);
}

/*
 * A child's fault ends it with this status instead of a signal: an
 * unhandled SIGSEGV would be logged by the kernel, and vm-run.sh rightly
 * takes any "segfault at" in dmesg for a problem.
 */
#define FAULT_EXIT(sig)	(100 + (sig))

static void child_fault(int sig)
{
	_exit(FAULT_EXIT(sig));
}

/* Runs @fn in a child; its wait status. */
static int in_child(void (*fn)(struct rt_conn *, struct rt_map *),
		    struct rt_conn *c, struct rt_map *m)
{
	struct sigaction sa = { .sa_handler = child_fault };
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
		alarm(10);
		fn(c, m);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void child_nothing(struct rt_conn *c, struct rt_map *m)
{
	(void)c;
	(void)m;
	_exit(0);
}

static void child_scribble(struct rt_conn *c, struct rt_map *m)
{
	(void)c;
	memset(m->start, 0xa5, m->len);
	_exit(3);	/* the rings were there: MADV_DONTFORK missing */
}

static void child_post(struct rt_conn *c, struct rt_map *m)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;

	(void)m;
	rt_msg_wr(c, &wr, &sge, RT_DATA, 9999, 0, 9999, 0);
	_exit(ibv_post_send(c->qp, &wr, &bad) ? 4 : 5);
}

static bool died_of_fault(int st)
{
	return st != -1 && WIFEXITED(st) &&
	       (WEXITSTATUS(st) == FAULT_EXIT(SIGSEGV) ||
		WEXITSTATUS(st) == FAULT_EXIT(SIGBUS));
}

static void fork_client(struct rt_conn *c)
{
	static struct ibv_send_wr wr[FORK_SENDS];
	static struct ibv_sge sge[FORK_SENDS];
	struct ibv_send_wr *bad;
	struct rt_map m[16];
	int n, i, dc = 0, st, ret;

	/* something in every ring first */
	ret = rt_send(c, RT_HELLO, 0, 0, 0);
	tap_ok(!ret && rt_reap_sends(c, 1), "%s: client: first Send",
	       c->tc->name);
	n = rt_ring_maps(m, 16);
	for (i = 0; i < n; i++)
		dc += m[i].dontfork;
	tap_ok(n >= 3 && dc == n,
	       "%s: client: %d ring mappings, %d of them MADV_DONTFORK",
	       c->tc->name, n, dc);
	if (n < 1)
		return;
	st = in_child(child_nothing, c, m);
	tap_ok(st != -1 && WIFEXITED(st) && !WEXITSTATUS(st),
	       "%s: client: a child that leaves the rings alone exits 0",
	       c->tc->name);
	st = in_child(child_scribble, c, m);
	tap_ok(died_of_fault(st),
	       "%s: client: a child writing to a ring faults: it has no mapping (status %#x)",
	       c->tc->name, st);
	st = in_child(child_post, c, m);
	tap_ok(died_of_fault(st),
	       "%s: client: a child posting on the QP faults (status %#x)",
	       c->tc->name, st);

	data_list(c, wr, sge, FORK_SENDS, 0, 0);
	ret = ibv_post_send(c->qp, wr, &bad);
	tap_ok(!ret && send_wcs(c, FORK_SENDS, 0),
	       "%s: client: the parent's QP works on: %d Sends complete",
	       c->tc->name, FORK_SENDS);
	tap_ok(client_done(c, FORK_SENDS),
	       "%s: client: server got exactly the parent's %d (nothing from the children)",
	       c->tc->name, FORK_SENDS);
}

static void fork_server(struct rt_conn *c)
{
	unsigned int got = 0;

	if (rt_recv(c, RT_HELLO, NULL))
		got = recv_data(c, FORK_SENDS, 0);
	tap_ok(got == FORK_SENDS, "%s: server: %u of %d in order",
	       c->tc->name, got, FORK_SENDS);
	server_done(c, got);
}

/* ------------------------------------------------------------ munmap */

static void munmap_client(struct rt_conn *c)
{
	static struct ibv_send_wr wr[4];
	static struct ibv_sge sge[4];
	struct sigaction sa = { .sa_handler = segv_handler }, old_segv;
	struct ibv_send_wr *bad;
	struct rt_map m[16];
	struct ibv_wc wc;
	int n, i, bad_unmap = 0, sig, ret;

	data_list(c, wr, sge, 4, 0, 0);
	ret = ibv_post_send(c->qp, wr, &bad);
	tap_ok(!ret && send_wcs(c, 4, 0) && client_done(c, 4),
	       "%s: client: 4 Sends before", c->tc->name);
	n = rt_ring_maps(m, 16);
	for (i = 0; i < n; i++)
		bad_unmap += !!munmap(m[i].start, m[i].len);
	tap_ok(n >= 3 && !bad_unmap, "%s: client: munmap of all %d rings",
	       c->tc->name, n);

	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(segv_env, 1);
	if (!sig)
		ret = ibv_poll_cq(c->scq, 1, &wc);
	sigaction(SIGSEGV, &old_segv, NULL);
	tap_ok(true, "%s: client: ibv_poll_cq afterwards: %s", c->tc->name,
	       sig ? "SIGSEGV" : ret < 0 ? "error" : "returned");
	/* teardown must work without the rings: see conn_destroy() */
}

static void munmap_server(struct rt_conn *c)
{
	unsigned int got = recv_data(c, 4, 0);

	tap_ok(got == 4, "%s: server: 4 of 4", c->tc->name);
	server_done(c, got);
}

/* ------------------------------------------------------------- table */

static const struct rt_case batch = {
	.name = "batch",
	.ccfg = { .sq = BATCH, .rq = 4, .scqe = 2 * BATCH, .rcqe = 8,
		  .prepost = 1 },
	.scfg = { .sq = 4, .rq = 2 * BATCH, .scqe = 8, .rcqe = 4 * BATCH,
		  .prepost = 2 * BATCH },
	.client = batch_client,
	.server = batch_server,
};

static const struct rt_case ring_full = {
	.name = "ring_full",
	.ccfg = { .sq = FULL_SQ, .rq = 4, .scqe = 64, .rcqe = 8,
		  .prepost = 1 },
	.scfg = { .sq = 4, .rq = FULL_RQ, .scqe = 8, .rcqe = 64 },
	/* the server's half: its RQ overfilled before accepting */
	.prepare = full_prepare,
	.client = full_client,
	.server = full_server,
};

static const struct rt_case cq_overflow = {
	.name = "cq_overflow",
	.ccfg = { .sq = 80, .rq = 4, .scqe = 160, .rcqe = 8, .prepost = 1 },
	.scfg = { .sq = 4, .rq = 80, .scqe = 8, .rcqe = 4, .prepost = 80 },
	.client = ovf_client,
	.server = ovf_server,
};

static const struct rt_case arm = {
	.name = "arm",
	.ccfg = { .sq = 64, .rq = 16, .scqe = 128, .rcqe = 32,
		  .prepost = 16 },
	.scfg = { .sq = 16, .rq = 256, .scqe = 32, .rcqe = 512,
		  .channel = true, .prepost = 250 },
	.client = arm_client,
	.server = arm_server,
};

static const struct rt_case forked = {
	.name = "fork",
	.ccfg = { .sq = 64, .rq = 4, .scqe = 128, .rcqe = 8, .prepost = 1 },
	.scfg = { .sq = 4, .rq = 64, .scqe = 8, .rcqe = 128, .prepost = 40 },
	.client = fork_client,
	.server = fork_server,
};

static const struct rt_case unmapped = {
	.name = "munmap",
	.ccfg = { .sq = 16, .rq = 4, .scqe = 32, .rcqe = 8, .prepost = 1 },
	.scfg = { .sq = 4, .rq = 16, .scqe = 8, .rcqe = 32, .prepost = 8 },
	.client = munmap_client,
	.server = munmap_server,
};

const struct rt_case *const rt_basic_cases[] = {
	&batch, &ring_full, &cq_overflow, &arm, &forked, &unmapped, NULL,
};
