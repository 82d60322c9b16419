// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * victim: the passive end that tools/testing/hostile/hostile.py attacks.
 *
 * An rdma_cm server that registers a few memory regions filled with a
 * known pattern (see hv_pattern(), hostile.py has the same formula),
 * posts some pattern-filled receives and tells the peer where everything
 * is in the accept private data, so that the attacker knows which targets
 * are valid and which must be refused. After each connection it reports,
 * one machine-readable line each, every completion, asynchronous event,
 * the final QP state and whether each buffer still holds its pattern
 * outside the ranges the caller allowed to change (--allow).
 *
 *   victim --bind ADDR --port PORT [--count N] [--recv N] [--recv-len L]
 *          [--ird N] [--timeout SECS] [--idle SECS] [--allow NAME:OFF:LEN]
 *          [--mr-size BYTES]
 *   victim --bind ADDR --port PORT --hoard [--idle SECS]
 *
 * --count 0 serves connections one after the other until none has come
 * for --idle seconds. A peer can adjust one connection with a directive
 * in its connect private data (struct hv_directive): a tag naming it in
 * the report, the number of receives to post, ranges it may change, and
 * a time after ESTABLISHED at which the victim deregisters "rw" (and
 * registers it again, with a new key, for later connections); the tag
 * "quit" ends the victim. --mr-size (default 4096) sizes rw, lw, ro and
 * pd2: from 16 KiB the victim's Read Responses leave zero-copy.
 *
 * --hoard takes every CONNECT_REQUEST and answers none (a ULP that never
 * calls accept or reject), until none has come for --idle seconds: the
 * listener's backlog (4) must bound how many reach it at once.
 *
 * Output lines (stdout):
 *   listening addr=A port=P
 *   conn=N tag=TAG
 *   conn=N established
 *   conn=N wc status=S opcode=O wr_id=W byte_len=B
 *   conn=N async event=E
 *   conn=N dereg rw rv=R ms=T   (how long ibv_dereg_mr() took)
 *   conn=N cm event=E
 *   conn=N qp_state=S
 *   conn=N recv posted=P completed=C success=S flushed=F error=E
 *   conn=N mem NAME unchanged
 *   conn=N mem NAME changed first=A last=B allowed=yes|no data=HEX
 *   conn=N end
 *   done conns=N
 *   hoard request=N           (--hoard: the Nth unanswered request)
 *   done hoarded=N
 * Exit status 0 when it ran (whatever the peer did), 1 on set-up errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define HV_MAGIC	0x4853544cU	/* "HSTL" */
#define HV_VERSION	1
#define HV_MR_SIZE	4096
#define HV_MAX_RECV	64
#define HV_MAX_ALLOW	8
#define HV_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The buffers, in the order of the private data table and the report. */
enum hv_buf { HV_RW, HV_LW, HV_RO, HV_PD2, HV_RECV, HV_NBUF };

static const char *const hv_names[HV_NBUF] = {
	"rw", "lw", "ro", "pd2", "recv"
};

/*
 * Accept private data, all fields big-endian: the attacker learns valid
 * (rw, ro) and invalid (lw: no remote access, pd2: another PD) targets.
 */
struct hv_mr_wire {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
} __attribute__((packed));

struct hv_pdata {
	uint32_t magic;
	uint16_t version;
	uint16_t nrecv;		/* receives posted on this connection */
	uint32_t recv_len;	/* bytes per receive */
	struct hv_mr_wire mr[4];	/* rw, lw, ro, pd2 */
} __attribute__((packed));

struct hv_allow {
	int buf;
	uint32_t off;
	uint32_t len;
};

/* Connect private data from the peer, big-endian; all optional. */
#define HV_DIR_MAGIC	0x48564452U	/* "HVDR" */
#define HV_DIR_ALLOW	4
#define HV_TAG_LEN	40

struct hv_directive {
	uint32_t magic;
	uint16_t nrecv;		/* 0xffff: --recv */
	uint16_t nallow;
	char tag[HV_TAG_LEN];	/* NUL-padded */
	struct {
		uint8_t buf;	/* enum hv_buf */
		uint8_t pad[3];
		uint32_t off;
		uint32_t len;
	} allow[HV_DIR_ALLOW];
	uint32_t dereg_ms;	/* 0: keep "rw" registered */
} __attribute__((packed));

static struct {
	const char *bind;
	const char *port;
	int count;
	int nrecv;
	uint32_t recv_len;
	uint32_t mr_size;
	int ird;
	int timeout;
	int idle;
	bool hoard;
	struct hv_allow allow[HV_MAX_ALLOW];
	int nallow;
} cfg = {
	.count = 1,
	.nrecv = 4,
	.recv_len = 64,
	.mr_size = HV_MR_SIZE,
	.ird = 4,
	.timeout = 20,
	.idle = 20,
};

static struct rdma_event_channel *ech;
static struct rdma_cm_id *lid;
static struct ibv_context *verbs;
static struct ibv_pd *pd, *pd2;
static struct ibv_cq *cq;
static uint8_t *buf[HV_NBUF];
static size_t buf_len[HV_NBUF];
static struct ibv_mr *mr[HV_NBUF];
/* A CONNECT_REQUEST that came while a connection was running. */
static struct rdma_cm_event *stash;

/* Per-connection state. */
static struct {
	int n;
	struct rdma_cm_id *id;
	bool established;
	bool disconnected;
	int posted;
	int completed;
	int success;
	int flushed;
	int error;
	int nrecv;
	struct hv_allow allow[HV_DIR_ALLOW];
	int nallow;
	uint32_t dereg_ms;
	double dereg_at;
	bool dereg_done;
} conn;

/* Shared with hostile.py: byte @off of buffer @b before anyone writes. */
static uint8_t hv_pattern(int b, uint32_t off)
{
	return (uint8_t)(off * 7 + (off >> 8) * 3 + b * 0x35 + 0x11);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(void)
{
	uint32_t i;
	int b;

	for (b = 0; b < HV_NBUF; b++)
		for (i = 0; i < buf_len[b]; i++)
			buf[b][i] = hv_pattern(b, i);
}

static bool allowed(int b, uint32_t first, uint32_t last)
{
	int i;

	/* One allowed range has to cover every changed byte. */
	for (i = 0; i < cfg.nallow; i++)
		if (cfg.allow[i].buf == b && first >= cfg.allow[i].off &&
		    last < cfg.allow[i].off + cfg.allow[i].len)
			return true;
	for (i = 0; i < conn.nallow; i++)
		if (conn.allow[i].buf == b && first >= conn.allow[i].off &&
		    (uint64_t)last < (uint64_t)conn.allow[i].off +
				     conn.allow[i].len)
			return true;
	return false;
}

static void report_mem(void)
{
	uint32_t i, first, last, end;
	int b;

	for (b = 0; b < HV_NBUF; b++) {
		first = UINT32_MAX;
		last = 0;
		for (i = 0; i < buf_len[b]; i++) {
			if (buf[b][i] == hv_pattern(b, i))
				continue;
			if (first == UINT32_MAX)
				first = i;
			last = i;
		}
		if (first == UINT32_MAX) {
			printf("conn=%d mem %s unchanged\n", conn.n, hv_names[b]);
			continue;
		}
		printf("conn=%d mem %s changed first=%u last=%u allowed=%s data=",
		       conn.n, hv_names[b], first, last,
		       allowed(b, first, last) ? "yes" : "no");
		end = last - first < 64 ? last + 1 : first + 64;
		for (i = first; i < end; i++)
			printf("%02x", buf[b][i]);
		printf("\n");
	}
}

static const char *wc_opcode_str(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND:		return "SEND";
	case IBV_WC_RDMA_WRITE:		return "RDMA_WRITE";
	case IBV_WC_RDMA_READ:		return "RDMA_READ";
	case IBV_WC_RECV:		return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM:	return "RECV_RDMA_WITH_IMM";
	default:			return "OTHER";
	}
}

static const char *qp_state_str(enum ibv_qp_state s)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"
	};

	return (unsigned int)s < HV_ARRAY_SIZE(names) ? names[s] : "UNKNOWN";
}

static void poll_cq(void)
{
	struct ibv_wc wc[16];
	int i, n;

	while ((n = ibv_poll_cq(cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			/* Flushed WCs carry no valid opcode: wr_id says. */
			bool recv = wc[i].wr_id >= 0x1000 &&
				    wc[i].wr_id < 0x1000 + HV_MAX_RECV;

			printf("conn=%d wc status=%s(%d) opcode=%s wr_id=%#llx byte_len=%u\n",
			       conn.n, ibv_wc_status_str(wc[i].status),
			       wc[i].status,
			       wc[i].status == IBV_WC_SUCCESS ?
			       wc_opcode_str(wc[i].opcode) :
			       (recv ? "RECV" : "SEND"),
			       (unsigned long long)wc[i].wr_id,
			       wc[i].byte_len);
			if (!recv)
				continue;
			conn.completed++;
			if (wc[i].status == IBV_WC_SUCCESS)
				conn.success++;
			else if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
				conn.flushed++;
			else
				conn.error++;
		}
	}
	if (n < 0)
		printf("conn=%d polling the CQ failed\n", conn.n);
}

static void poll_async(void)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(verbs, &ev)) {
		printf("conn=%d async event=%s\n", conn.n,
		       ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
}

/*
 * Handles one rdma_cm event if any is ready. A CONNECT_REQUEST is only
 * taken when no connection is running; one more is kept for later, any
 * beyond that refused.
 */
static int handle_cm(struct rdma_cm_event **req)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	if (rdma_get_cm_event(ech, &ev))
		return errno == EAGAIN ? 0 : -1;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (!conn.id && req && !*req) {
			*req = ev;
			return 1;
		}
		if (!stash) {
			/* Taken when the running connection is done. */
			stash = ev;
			return 1;
		}
		printf("conn=%d cm event=CONNECT_REQUEST refused (busy)\n",
		       conn.n);
		id = ev->id;
		rdma_reject(id, NULL, 0);
		/* librdmacm waits for the event's ack in rdma_destroy_id() */
		rdma_ack_cm_event(ev);
		rdma_destroy_id(id);
		return 1;
	}
	if (conn.id && ev->id == conn.id) {
		printf("conn=%d cm event=%s status=%d\n", conn.n,
		       rdma_event_str(ev->event), ev->status);
		switch (ev->event) {
		case RDMA_CM_EVENT_ESTABLISHED:
			conn.established = true;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			conn.disconnected = true;
			break;
		default:
			break;
		}
	} else {
		printf("conn=%d cm event=%s (other id)\n", conn.n,
		       rdma_event_str(ev->event));
	}
	rdma_ack_cm_event(ev);
	return 1;
}

/* One pass over every source; waits up to @ms for something to happen. */
static int pump(int ms, struct rdma_cm_event **req)
{
	struct pollfd pfd[2] = {
		{ .fd = ech->fd, .events = POLLIN },
		{ .fd = verbs->async_fd, .events = POLLIN },
	};
	int rv;

	poll(pfd, 2, ms);
	do {
		rv = handle_cm(req);
		if (rv < 0)
			return -1;
	} while (rv > 0 && !(req && *req));
	poll_async();
	poll_cq();
	fflush(stdout);
	return 0;
}

static int post_recvs(int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	int i;

	for (i = 0; i < n; i++) {
		sge.addr = (uintptr_t)buf[HV_RECV] + i * cfg.recv_len;
		sge.length = cfg.recv_len;
		sge.lkey = mr[HV_RECV]->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 0x1000 + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_recv(conn.id->qp, &wr, &bad)) {
			fprintf(stderr, "victim: ibv_post_recv: %s\n",
				strerror(errno));
			return -1;
		}
		conn.posted++;
	}
	return 0;
}

static void put_mr(struct hv_mr_wire *w, int b)
{
	w->addr = htobe64((uintptr_t)buf[b]);
	w->rkey = htonl(mr[b]->rkey);
	w->len = htonl(buf_len[b]);
}

/* Takes what the peer's directive asks for this connection. */
static void directive(const void *pdata, unsigned int len)
{
	struct hv_directive d;
	unsigned int i, n;
	char tag[HV_TAG_LEN + 1];

	conn.nrecv = cfg.nrecv;
	if (len < sizeof(d))
		return;
	memcpy(&d, pdata, sizeof(d));
	if (ntohl(d.magic) != HV_DIR_MAGIC)
		return;
	memcpy(tag, d.tag, HV_TAG_LEN);
	tag[HV_TAG_LEN] = 0;
	for (i = 0; tag[i]; i++)
		if (tag[i] <= ' ' || tag[i] > '~')
			tag[i] = '_';
	printf("conn=%d tag=%s\n", conn.n, tag);
	if (ntohs(d.nrecv) != 0xffff)
		conn.nrecv = ntohs(d.nrecv) > HV_MAX_RECV ? HV_MAX_RECV :
							   ntohs(d.nrecv);
	n = ntohs(d.nallow);
	for (i = 0; i < n && i < HV_DIR_ALLOW; i++) {
		if (d.allow[i].buf >= HV_NBUF)
			continue;
		conn.allow[conn.nallow].buf = d.allow[i].buf;
		conn.allow[conn.nallow].off = ntohl(d.allow[i].off);
		conn.allow[conn.nallow].len = ntohl(d.allow[i].len);
		conn.nallow++;
	}
	conn.dereg_ms = ntohl(d.dereg_ms);
}

/* A directive tagged "quit" ends the victim (the peer is done). */
static bool is_quit(const struct rdma_cm_event *req)
{
	const struct hv_directive *d = req->param.conn.private_data;

	return req->param.conn.private_data_len >= sizeof(*d) &&
	       ntohl(d->magic) == HV_DIR_MAGIC &&
	       !strncmp(d->tag, "quit", HV_TAG_LEN);
}

/* Accepts @req on a fresh QP; false if the connection did not start. */
static bool accept_one(struct rdma_cm_event *req)
{
	struct rdma_conn_param param;
	struct ibv_qp_init_attr qa;
	struct hv_pdata pd_wire;
	int nrecv;

	conn.id = req->id;
	printf("conn=%d cm event=CONNECT_REQUEST pdata_len=%u\n", conn.n,
	       req->param.conn.private_data_len);
	directive(req->param.conn.private_data,
		  req->param.conn.private_data_len);
	nrecv = conn.nrecv;

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_wr = HV_MAX_RECV;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(conn.id, pd, &qa)) {
		fprintf(stderr, "victim: rdma_create_qp: %s\n",
			strerror(errno));
		rdma_reject(conn.id, NULL, 0);
		rdma_ack_cm_event(req);
		return false;
	}
	if (post_recvs(nrecv)) {
		rdma_reject(conn.id, NULL, 0);
		rdma_ack_cm_event(req);
		return false;
	}

	memset(&pd_wire, 0, sizeof(pd_wire));
	pd_wire.magic = htonl(HV_MAGIC);
	pd_wire.version = htons(HV_VERSION);
	pd_wire.nrecv = htons(nrecv);
	pd_wire.recv_len = htonl(cfg.recv_len);
	put_mr(&pd_wire.mr[0], HV_RW);
	put_mr(&pd_wire.mr[1], HV_LW);
	put_mr(&pd_wire.mr[2], HV_RO);
	put_mr(&pd_wire.mr[3], HV_PD2);

	memset(&param, 0, sizeof(param));
	param.private_data = &pd_wire;
	param.private_data_len = sizeof(pd_wire);
	param.responder_resources = cfg.ird;
	param.initiator_depth = 1;
	if (rdma_accept(conn.id, &param)) {
		printf("conn=%d rdma_accept failed: %s\n", conn.n,
		       strerror(errno));
		rdma_ack_cm_event(req);
		return false;
	}
	rdma_ack_cm_event(req);
	return true;
}

static struct ibv_mr *reg(struct ibv_pd *p, int b, int access);

#define HV_RW_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

/*
 * The directive's deregistration of "rw", while the peer may be in the
 * middle of writing to it: ibv_dereg_mr() must not wait for the peer.
 */
static void dereg_rw(void)
{
	double t0 = now();
	int rv = ibv_dereg_mr(mr[HV_RW]);

	printf("conn=%d dereg rw rv=%d ms=%.0f\n", conn.n, rv,
	       (now() - t0) * 1000);
	fflush(stdout);
	conn.dereg_done = true;
	mr[HV_RW] = rv ? mr[HV_RW] : reg(pd, HV_RW, HV_RW_ACCESS);
	if (!mr[HV_RW])
		exit(1);
}

/* Runs one connection from its CONNECT_REQUEST to the report. */
static void run_conn(struct rdma_cm_event *req)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	double end;

	if (accept_one(req)) {
		end = now() + cfg.timeout;
		while (!conn.disconnected && now() < end) {
			if (pump(50, NULL))
				break;
			if (!conn.dereg_ms || !conn.established ||
			    conn.dereg_done)
				continue;
			if (!conn.dereg_at)
				conn.dereg_at = now() + conn.dereg_ms / 1000.0;
			else if (now() >= conn.dereg_at)
				dereg_rw();
		}
		if (conn.established)
			printf("conn=%d established\n", conn.n);
		if (!conn.disconnected) {
			printf("conn=%d timeout: disconnecting\n", conn.n);
			rdma_disconnect(conn.id);
			end = now() + 3;
			while (!conn.disconnected && now() < end)
				pump(50, NULL);
		}
		/* The flush follows the QP's move to ERROR: give it time. */
		end = now() + 3;
		while (conn.completed < conn.posted && now() < end)
			pump(20, NULL);
		pump(0, NULL);
	}
	if (conn.id->qp) {
		if (!ibv_query_qp(conn.id->qp, &attr, IBV_QP_STATE, &init))
			printf("conn=%d qp_state=%s\n", conn.n,
			       qp_state_str(attr.qp_state));
		else
			printf("conn=%d qp_state=query-failed(%s)\n", conn.n,
			       strerror(errno));
		rdma_destroy_qp(conn.id);
	}
	pump(0, NULL);
	printf("conn=%d recv posted=%d completed=%d success=%d flushed=%d error=%d\n",
	       conn.n, conn.posted, conn.completed, conn.success,
	       conn.flushed, conn.error);
	/* After the QP is gone nothing can still be placed: look now. */
	report_mem();
	printf("conn=%d end\n", conn.n);
	fflush(stdout);
	rdma_destroy_id(conn.id);
	fill();
}

static struct ibv_mr *reg(struct ibv_pd *p, int b, int access)
{
	struct ibv_mr *m = ibv_reg_mr(p, buf[b], buf_len[b], access);

	if (!m)
		fprintf(stderr, "victim: ibv_reg_mr(%s): %s\n", hv_names[b],
			strerror(errno));
	return m;
}

static int setup(void)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE,
				       .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *ai;
	int b, rv, flags;

	ech = rdma_create_event_channel();
	if (!ech || rdma_create_id(ech, &lid, NULL, RDMA_PS_TCP)) {
		fprintf(stderr, "victim: rdma_cm: %s\n", strerror(errno));
		return -1;
	}
	rv = rdma_getaddrinfo(cfg.bind, cfg.port, &hints, &ai);
	if (rv) {
		fprintf(stderr, "victim: rdma_getaddrinfo %s:%s failed\n",
			cfg.bind, cfg.port);
		return -1;
	}
	rv = rdma_bind_addr(lid, ai->ai_src_addr);
	rdma_freeaddrinfo(ai);
	if (rv || !lid->verbs) {
		fprintf(stderr, "victim: rdma_bind_addr %s: %s\n", cfg.bind,
			rv ? strerror(errno) : "no RDMA device behind it");
		return -1;
	}
	verbs = lid->verbs;
	flags = fcntl(verbs->async_fd, F_GETFL);
	fcntl(verbs->async_fd, F_SETFL, flags | O_NONBLOCK);
	flags = fcntl(ech->fd, F_GETFL);
	fcntl(ech->fd, F_SETFL, flags | O_NONBLOCK);

	pd = ibv_alloc_pd(verbs);
	pd2 = ibv_alloc_pd(verbs);
	cq = ibv_create_cq(verbs, 2 * HV_MAX_RECV + 16, NULL, NULL, 0);
	if (!pd || !pd2 || !cq) {
		fprintf(stderr, "victim: PD/CQ: %s\n", strerror(errno));
		return -1;
	}
	for (b = 0; b < HV_NBUF; b++) {
		buf_len[b] = b == HV_RECV ? HV_MAX_RECV * cfg.recv_len :
					    cfg.mr_size;
		buf[b] = aligned_alloc(4096, (buf_len[b] + 4095) & ~4095UL);
		if (!buf[b])
			return -1;
	}
	fill();
	mr[HV_RW] = reg(pd, HV_RW, HV_RW_ACCESS);
	mr[HV_LW] = reg(pd, HV_LW, IBV_ACCESS_LOCAL_WRITE);
	mr[HV_RO] = reg(pd, HV_RO, IBV_ACCESS_REMOTE_READ);
	mr[HV_PD2] = reg(pd2, HV_PD2, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	mr[HV_RECV] = reg(pd, HV_RECV, IBV_ACCESS_LOCAL_WRITE);
	for (b = 0; b < HV_NBUF; b++)
		if (!mr[b])
			return -1;

	if (rdma_listen(lid, 4)) {
		fprintf(stderr, "victim: rdma_listen: %s\n", strerror(errno));
		return -1;
	}
	printf("listening addr=%s port=%s\n", cfg.bind, cfg.port);
	for (b = 0; b < HV_NBUF; b++)
		printf("# %s addr=%#llx rkey=%#x len=%zu\n", hv_names[b],
		       (unsigned long long)(uintptr_t)buf[b], mr[b]->rkey,
		       buf_len[b]);
	fflush(stdout);
	return 0;
}

/* --hoard: keeps every request unanswered; exits when they stop coming. */
static void hoard(void)
{
	struct rdma_cm_event *req = NULL;
	double end = now() + cfg.idle;
	int n = 0;

	while (now() < end) {
		if (pump(100, &req))
			break;
		if (!req)
			continue;
		printf("hoard request=%d\n", ++n);
		/* The id stays ours, in CONN_RECV, until we exit. */
		rdma_ack_cm_event(req);
		req = NULL;
		end = now() + cfg.idle;
	}
	printf("done hoarded=%d\n", n);
	fflush(stdout);
}

static int parse_allow(const char *s)
{
	char name[16];
	unsigned int off, len;
	int b;

	if (cfg.nallow >= HV_MAX_ALLOW ||
	    sscanf(s, "%15[a-z0-9]:%u:%u", name, &off, &len) != 3)
		return -1;
	for (b = 0; b < HV_NBUF; b++) {
		if (strcmp(name, hv_names[b]))
			continue;
		cfg.allow[cfg.nallow].buf = b;
		cfg.allow[cfg.nallow].off = off;
		cfg.allow[cfg.nallow].len = len;
		cfg.nallow++;
		return 0;
	}
	return -1;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: victim --bind ADDR --port PORT [--count N] [--recv N]\n"
		"              [--recv-len L] [--ird N] [--timeout SECS]\n"
		"              [--idle SECS] [--allow NAME:OFF:LEN]...\n"
		"              [--mr-size BYTES]\n"
		"       victim --bind ADDR --port PORT --hoard [--idle SECS]\n");
	exit(2);
}

/* Fills cfg; exits through usage() on a bad command line. */
static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "recv", required_argument, NULL, 'r' },
		{ "idle", required_argument, NULL, 'd' },
		{ "recv-len", required_argument, NULL, 'l' },
		{ "ird", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "allow", required_argument, NULL, 'a' },
		{ "mr-size", required_argument, NULL, 'm' },
		{ "hoard", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			cfg.bind = optarg;
			break;
		case 'p':
			cfg.port = optarg;
			break;
		case 'c':
			cfg.count = atoi(optarg);
			break;
		case 'r':
			cfg.nrecv = atoi(optarg);
			break;
		case 'd':
			cfg.idle = atoi(optarg);
			break;
		case 'l':
			cfg.recv_len = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			cfg.ird = atoi(optarg);
			break;
		case 't':
			cfg.timeout = atoi(optarg);
			break;
		case 'a':
			if (parse_allow(optarg))
				usage();
			break;
		case 'm':
			cfg.mr_size = strtoul(optarg, NULL, 0);
			break;
		case 'H':
			cfg.hoard = true;
			break;
		default:
			usage();
		}
	}
	if (!cfg.bind || !cfg.port || cfg.count < 0 || cfg.nrecv < 0 ||
	    cfg.nrecv > HV_MAX_RECV || !cfg.recv_len ||
	    cfg.recv_len > 65536 || cfg.timeout < 1 || cfg.idle < 1 ||
	    cfg.mr_size < 64 || cfg.mr_size > (16U << 20))
		usage();
}

/* A request pump() stashed earlier, or the next within --idle seconds. */
static struct rdma_cm_event *next_request(void)
{
	struct rdma_cm_event *req;
	double end;

	req = stash;
	stash = NULL;
	end = now() + cfg.idle;
	while (!req && now() < end)
		if (pump(100, &req))
			break;
	return req;
}

/* Connections one after the other; returns the loop's last number. */
static int serve_conns(void)
{
	struct rdma_cm_event *req;
	int n;

	for (n = 1; !cfg.count || n <= cfg.count; n++) {
		memset(&conn, 0, sizeof(conn));
		conn.n = n;
		req = next_request();
		if (!req) {
			printf("conn=%d timeout: no connection request\n", n);
			n--;
			break;
		}
		if (is_quit(req)) {
			struct rdma_cm_id *id = req->id;

			printf("conn=%d tag=quit\n", n);
			rdma_reject(id, NULL, 0);
			rdma_ack_cm_event(req);
			rdma_destroy_id(id);
			n--;
			break;
		}
		run_conn(req);
	}
	return n;
}

/* What setup() made, in reverse. */
static void teardown(void)
{
	int b;

	rdma_destroy_id(lid);
	for (b = 0; b < HV_NBUF; b++)
		ibv_dereg_mr(mr[b]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd2);
	ibv_dealloc_pd(pd);
	rdma_destroy_event_channel(ech);
}

int main(int argc, char **argv)
{
	int n;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup())
		return 1;
	if (cfg.hoard) {
		hoard();
		return 0;
	}

	n = serve_conns();
	printf("done conns=%d\n", cfg.count && n > cfg.count ? cfg.count : n);
	fflush(stdout);

	teardown();
	return 0;
}
