/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * verbs_test: RC data-path tests over librdmacm and plain libibverbs.
 * See main.c for the command line and README for the test cases.
 */
#ifndef VERBS_TEST_H
#define VERBS_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define VT_MAGIC	0x76747374u	/* "vtst" */
#define VT_VERSION	1
#define VT_CANARY	0xa5

#define VT_MIN(a, b)	((a) < (b) ? (a) : (b))
#define VT_MAX(a, b)	((a) > (b) ? (a) : (b))
#define VT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum vt_role { VT_CLIENT, VT_SERVER };

struct vt_opts {
	enum vt_role role;
	const char *addr;		/* client: server address */
	const char *bind;		/* server: listen address; client: source */
	const char *port;
	unsigned int timeout;		/* seconds, per wait */
	uint64_t seed;
	bool seed_set;
	uint32_t size_max;		/* largest message / RDMA op */
	uint32_t budget;		/* bytes per direction and test */
	bool no_empty;			/* no zero-length operations */
	bool verbose;
	unsigned int ntests;
	const struct vt_test *tests[32];
};

/* ------------------------------------------------------------------ TAP */
#include "cm.h"	/* tools/testing/lib */
#include "tap.h"	/* tools/testing/lib; tap_info() only with --verbose */

/* -------------------------------------------------------------- pattern */
/* splitmix64: small, fast and the same on both sides. */
struct vt_rng {
	uint64_t s;
};

uint64_t vt_mix(uint64_t x);
void vt_rng_init(struct vt_rng *r, uint64_t seed, uint64_t a, uint64_t b);
uint64_t vt_rand(struct vt_rng *r);
/* Uniform in [lo, hi]. */
uint64_t vt_rand_range(struct vt_rng *r, uint64_t lo, uint64_t hi);

/*
 * The bytes of message/operation @msg of stream @stream: byte @off of it
 * is a function of (seed, stream, msg, off) only, so sender and receiver
 * agree without exchanging anything but the seed.
 */
uint64_t vt_pat_key(uint64_t seed, uint32_t stream, uint32_t msg);
void vt_pat_fill(void *dst, uint64_t key, uint64_t off, size_t len);
/* Index of the first byte that differs, or SIZE_MAX. */
size_t vt_pat_check(const void *src, uint64_t key, uint64_t off, size_t len);
size_t vt_canary_check(const void *src, size_t len);

/*
 * A message plan: the sizes of one direction's messages (or RDMA
 * operations) and, for RDMA, where each lands in the peer's buffer.  Both
 * sides compute the same plan from the seed.
 */
#define VT_PLAN_MAX	64
struct vt_plan {
	unsigned int n;
	uint32_t size[VT_PLAN_MAX];
	uint64_t roff[VT_PLAN_MAX];	/* offset in the remote buffer */
	uint64_t rspan;			/* size of the remote buffer */
	uint64_t total;
};

void vt_plan_make(struct vt_plan *p, uint64_t seed, uint32_t stream,
		  uint32_t budget, uint32_t size_max, bool no_empty);

/* A buffer piece list: SGEs with random placement inside a region. */
#define VT_SGE_MAX	16
struct vt_layout {
	unsigned int nsge;
	struct ibv_sge sge[VT_SGE_MAX];
	uint64_t start, end;		/* region used, gaps included */
	uint32_t cap;			/* sum of SGE lengths */
};

/*
 * Places @cap bytes as up to @max_sge pieces at or after @*cursor in a
 * buffer at @base (random gaps before and between pieces), advances
 * @*cursor past them.
 */
void vt_layout_make(struct vt_layout *l, struct vt_rng *r, uint8_t *base,
		    uint32_t lkey, uint64_t *cursor, uint32_t cap,
		    unsigned int max_sge);
/* Room vt_layout_make() may need for @cap bytes. */
uint64_t vt_layout_room(uint32_t cap);
void vt_layout_fill(const struct vt_layout *l, uint64_t key);
/*
 * Checks that the first @len bytes of the pieces hold the pattern, the
 * rest of the pieces and the gaps the canary (@canary_rest) or nothing
 * (!@canary_rest).  Describes the first problem in @why.
 */
bool vt_layout_check(const struct vt_layout *l, uint8_t *base, uint64_t key,
		     uint32_t len, bool canary_rest, char *why, size_t whylen);

/* ---------------------------------------------------------- connection */
/* Private data of connect and accept. */
struct vt_pdata {
	uint32_t magic;
	uint8_t version;
	uint8_t test;
	uint8_t flags;
	uint8_t reserved;
	uint64_t seed;
	uint32_t budget;
	uint32_t size_max;
	uint64_t addr;			/* an MR of the sender, if any */
	uint32_t rkey;
	uint32_t len;
} __attribute__((packed));

enum vt_pdata_flags {
	VT_PD_SKIP = 1,			/* client: skip this test */
	VT_PD_MR = 2,			/* addr/rkey/len are valid */
	VT_PD_NO_EMPTY = 4,		/* client: no zero-length operations */
};

/* Control messages, carried by Sends. */
enum vt_ctrl_type {
	VT_CTRL_BYE = 1,		/* client: all done */
	VT_CTRL_START,			/* client: the first message (iWARP) */
	VT_CTRL_DONE,			/* peer: its part is done */
	VT_CTRL_NOTIFY,			/* RDMA Writes are placed */
	VT_CTRL_GO,			/* solicited: go on */
	VT_CTRL_MSG,			/* solicited: a test message */
};

struct vt_ctrl {
	uint32_t magic;
	uint32_t type;
	uint64_t arg[4];
};

#define VT_CTRL_SLOTS	16
/* wr_id tags; data WRs use their index */
#define VT_WR_CTRL_RX	(1ull << 62)
#define VT_WR_CTRL_TX	(1ull << 61)
#define VT_WR_PROBE	(1ull << 60)

struct vt_qpcfg {
	uint32_t max_send_wr, max_recv_wr;
	bool srq;
	bool rcq_channel;		/* rcq gets a completion channel */
};

struct vt_conn {
	const struct vt_opts *o;
	const struct vt_test *test;
	enum vt_role role;
	const char *rname;		/* "client" / "server" */
	uint64_t seed;
	uint32_t budget, size_max;
	bool no_empty;

	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_context *verbs;
	bool iwarp;
	struct ibv_device_attr dattr;

	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *scq, *rcq;
	unsigned int rcq_events;	/* unacknowledged */
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;
	uint32_t srq_max_sge;

	struct vt_ctrl *ctrl;		/* [0, SLOTS) rx, [SLOTS, 2 SLOTS) tx */
	struct ibv_mr *ctrl_mr;
	unsigned int ctrl_rx_next, ctrl_tx_next;
	unsigned int ctrl_tx_posted, ctrl_tx_done;

	struct vt_pdata mine, peer;
	bool established, disconnected;
	int disc_status;
	bool qp_fatal, srq_limit, async_err;

	void *priv;			/* the test's state */
};

struct vt_test {
	const char *name;
	const char *desc;
	uint8_t id;
	bool iwarp_only;		/* semantics only iWARP defines */
	bool reject;			/* the server rejects, no data path */
	void (*qpcfg)(struct vt_conn *c, struct vt_qpcfg *cfg);
	/* MRs, receives; fills c->mine.addr/rkey/len; before connect/accept */
	int (*prepare)(struct vt_conn *c);
	/* after ESTABLISHED */
	void (*run)(struct vt_conn *c);
	/* after the QP is gone */
	void (*cleanup)(struct vt_conn *c);
	/* true: the test leaves the connection broken, no clean close */
	bool breaks;
	/*
	 * Without START: on iWARP the active side must send the first
	 * message (rdma_connect(3)), so normally the client sends START and
	 * the server sends nothing before it got it.  Tests whose server
	 * never sends, and that must control the receive queue exactly,
	 * skip that.
	 */
	bool no_start;
};

extern const struct vt_test *const vt_tests[];
const struct vt_test *vt_test_find(const char *name);

/* conn.c */
int vt_server_listen(const struct vt_opts *o, struct rdma_event_channel **ech,
		     struct rdma_cm_id **listen_id);
void vt_run_client(const struct vt_opts *o, const struct vt_test *t,
		   uint64_t seed);
/*
 * Serves the connection for o->tests[*next] (or a later one the client
 * asks for), advancing *next; false when the client went away.
 */
bool vt_run_server(const struct vt_opts *o, unsigned int *next,
		   struct rdma_event_channel *ech);

double vt_now(void);
double vt_deadline(const struct vt_conn *c);
/* Handles pending CM and async events without blocking (or up to @ms). */
void vt_events(struct vt_conn *c, int ms);

/*
 * Polls @cq for one completion until @deadline, watching CM and async
 * events meanwhile.  1: got one, 0: timed out, -1: poll error.
 */
int vt_poll_one(struct vt_conn *c, struct ibv_cq *cq, struct ibv_wc *wc,
		double deadline);
/* Nonblocking: 1, 0 or -1 like vt_poll_one. */
int vt_try_poll(struct ibv_cq *cq, struct ibv_wc *wc);
void vt_idle(struct vt_conn *c);
/* Waits for DISCONNECTED (true) until @deadline. */
bool vt_wait_disconnected(struct vt_conn *c, double deadline);

int vt_ctrl_post_recv(struct vt_conn *c, unsigned int n);
int vt_ctrl_send(struct vt_conn *c, enum vt_ctrl_type type, uint64_t arg0,
		 unsigned int flags);
/*
 * Accounts for a send-CQ completion that belongs to a control message;
 * false if @wc is not one.  A failed control send is reported.
 */
bool vt_ctrl_tx_wc(struct vt_conn *c, const struct ibv_wc *wc);
/*
 * Waits for the next receive completion; it must be a control message of
 * @type.  Send-CQ completions of control messages are reaped meanwhile.
 */
bool vt_ctrl_wait(struct vt_conn *c, enum vt_ctrl_type type,
		  struct vt_ctrl *msg);
/* Waits until every control message sent has completed. */
bool vt_ctrl_flush(struct vt_conn *c);
/* Waits for an async event of @type (QP fatal, SRQ limit...). */
bool vt_wait_async(struct vt_conn *c, enum ibv_event_type type,
		   double deadline);

/* Buffers: page aligned, zeroed, registered on c->pd. */
void *vt_alloc(size_t len);
struct ibv_mr *vt_reg(struct vt_conn *c, void *buf, size_t len, int access);
const char *vt_wc_status(enum ibv_wc_status st);
/* Posts a signaled Send of @len bytes from @buf (lkey) for probing. */
int vt_post_probe(struct vt_conn *c, void *buf, uint32_t len, uint32_t lkey);
/* Probe: a WR posted now must be refused or flushed; true if so. */
bool vt_probe_flushed(struct vt_conn *c, void *buf, uint32_t lkey,
		      char *why, size_t whylen);
/* QP state via ibv_query_qp; -1 on error. */
int vt_qp_state(struct vt_conn *c);

#endif /* VERBS_TEST_H */
