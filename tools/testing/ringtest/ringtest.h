/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ringtest: guest tests of siw_lite's shared-ring data path over rdma_cm.
 * See ringtest.c for the command line and README for the test cases.
 */
#ifndef RINGTEST_H
#define RINGTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define RT_MAGIC	0x72747374u	/* "rtst" */
#define RT_MSG_SIZE	64
#define RT_RX_SLOTS	4096		/* receive slots in the buffer */
#define RT_TX_SLOTS	4096
#define RT_BUF_SIZE	((RT_RX_SLOTS + RT_TX_SLOTS) * RT_MSG_SIZE)

/* wr_id tags: data WRs carry their slot or sequence number below */
#define RT_WR_RX	(1ull << 62)
#define RT_WR_TX	(1ull << 61)
#define RT_WR_SQ_MAGIC	0x5351515151515151ull	/* finds the SQ ring */
#define RT_WR_RQ_MAGIC	0x5251515151515151ull	/* finds the RQ ring */

struct rt_opts {
	bool server;
	const char *addr;		/* client: server address */
	const char *bind;		/* server: listen address */
	const char *port;
	unsigned int timeout;		/* seconds per wait */
	bool verbose;
	unsigned int ncases;
#define RT_MAX_CASES	64
	const struct rt_case *cases[RT_MAX_CASES];
};

enum rt_msg_type {
	RT_DATA = 1,
	RT_DONE,			/* arg: what the peer verified */
	RT_GO,				/* go on / send me something */
	RT_HELLO,
	RT_PING,
};

struct rt_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t seq;
	uint32_t arg;
	uint8_t pad[RT_MSG_SIZE - 16];
};

/* Queue sizes a case asks for on one side. */
struct rt_cfg {
	uint32_t sq, rq;		/* max_send_wr, max_recv_wr */
	uint32_t scqe, rcqe;
	bool channel;			/* the receive CQ gets a channel */
	uint32_t prepost;		/* receives posted before connecting */
};

struct rt_conn {
	const struct rt_opts *o;
	const struct rt_case *tc;
	bool server;
	const char *role;

	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *scq, *rcq;
	unsigned int cq_events;		/* got, not yet acknowledged */
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;
	uint8_t *buf;
	struct ibv_mr *mr;
	uint32_t rx_next, tx_next;

	bool established, disconnected;
	bool qp_fatal, cq_err, async_other;
};

struct rt_case {
	const char *name;
	struct rt_cfg ccfg, scfg;	/* client, server */
	/* optional: replaces the pre-posting of cfg.prepost receives */
	int (*prepare)(struct rt_conn *c);
	void (*client)(struct rt_conn *c);
	void (*server)(struct rt_conn *c);
	const void *data;		/* the case's parameters */
};

/* rt_cases.c: NULL-terminated; rt_hostile.c: ends with a NULL name */
extern const struct rt_case *const rt_basic_cases[];
extern const struct rt_case rt_hostile_cases[];

#include "cm.h"	/* tools/testing/lib */
#include "tap.h"	/* tools/testing/lib */

/* rt_conn.c */
double rt_now(void);
double rt_deadline(const struct rt_conn *c);
int rt_server(const struct rt_opts *o);
int rt_client(const struct rt_opts *o);
/* CM and async events, waiting up to @ms. */
void rt_events(struct rt_conn *c, int ms);
/* 1: a completion in *wc, 0: none until @deadline, -1: poll failed. */
int rt_poll(struct rt_conn *c, struct ibv_cq *cq, struct ibv_wc *wc,
	    double deadline);
/* Posts @n receives of one message each (wr_id RT_WR_RX | slot). */
int rt_post_recvs(struct rt_conn *c, unsigned int n);
/* Fills a send WR for message @type/@seq/@arg in the next tx slot. */
void rt_msg_wr(struct rt_conn *c, struct ibv_send_wr *wr,
	       struct ibv_sge *sge, uint32_t type, uint32_t seq,
	       uint32_t arg, uint64_t wr_id, unsigned int flags);
int rt_send(struct rt_conn *c, uint32_t type, uint32_t seq, uint32_t arg,
	    unsigned int flags);
/*
 * The next receive, which must be a message of @type (0: any); *msg gets
 * it.  Send completions seen meanwhile are reaped.  false on error.
 */
bool rt_recv(struct rt_conn *c, uint32_t type, struct rt_msg *msg);
/* Waits for the send completion(s) of @n signaled control sends. */
bool rt_reap_sends(struct rt_conn *c, unsigned int n);
const struct rt_msg *rt_rx_msg(const struct rt_conn *c, uint64_t wr_id);
int rt_qp_state(struct rt_conn *c);
/* Rings the SQ doorbell directly: a POST_SEND command without WRs. */
int rt_doorbell(struct rt_conn *c);

/* Mappings of /dev/infiniband/uverbs* in this process (the rings). */
struct rt_map {
	uint8_t *start;
	size_t len;
	bool dontfork;
};

int rt_ring_maps(struct rt_map *maps, int max);

#endif /* RINGTEST_H */
