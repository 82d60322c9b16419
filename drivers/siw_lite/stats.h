/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: per-device counters, shown by "rdma statistic show link DEV/1"
 * and in /sys/class/infiniband/DEV/ports/1/hw_counters/. siw_lite(7) says
 * what each one means; the names below are what users see.
 *
 * Counting is one per-CPU add on paths that already touch the QP: no lock,
 * no shared cache line. A reader sums the CPUs; a sum taken while traffic
 * runs is a snapshot, not a transaction.
 */
#ifndef SIWL_STATS_H
#define SIWL_STATS_H

#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "iwarp.h"

struct siwl_device;

/*
 * RDMAP opcode groups (RFC 5040 section 4.5): Sends of every flavour, RDMA
 * Writes, Read Requests, Read Responses, Terminates. FPDUs are counted per
 * group, payload bytes for the groups that carry data.
 */
enum siwl_stat {
	SIWL_STAT_TX_SEND_FPDUS,
	SIWL_STAT_TX_WRITE_FPDUS,
	SIWL_STAT_TX_READ_REQ_FPDUS,
	SIWL_STAT_TX_READ_RESP_FPDUS,
	SIWL_STAT_TX_TERM_FPDUS,
	SIWL_STAT_TX_SEND_BYTES,
	SIWL_STAT_TX_WRITE_BYTES,
	SIWL_STAT_TX_READ_RESP_BYTES,
	SIWL_STAT_RX_SEND_FPDUS,
	SIWL_STAT_RX_WRITE_FPDUS,
	SIWL_STAT_RX_READ_REQ_FPDUS,
	SIWL_STAT_RX_READ_RESP_FPDUS,
	SIWL_STAT_RX_TERM_FPDUS,
	SIWL_STAT_RX_SEND_BYTES,
	SIWL_STAT_RX_WRITE_BYTES,
	SIWL_STAT_RX_READ_RESP_BYTES,
	/* Payload left in the registered pages versus copied into a buffer. */
	SIWL_STAT_TX_ZCOPY_BYTES,
	SIWL_STAT_TX_COPY_BYTES,
	/* RFC 5044 section 7: connection set-up. */
	SIWL_STAT_MPA_REQ_SENT,
	SIWL_STAT_MPA_REQ_RCVD,
	SIWL_STAT_MPA_REP_SENT,
	SIWL_STAT_MPA_REP_RCVD,
	SIWL_STAT_MPA_REJ_SENT,
	SIWL_STAT_MPA_REJ_RCVD,
	SIWL_STAT_MPA_ERRORS,
	/* Errors that end a connection with a Terminate, by layer. */
	SIWL_STAT_RX_CRC_ERRORS,
	SIWL_STAT_LLP_ERRORS,
	SIWL_STAT_DDP_ERRORS,
	SIWL_STAT_RDMAP_ERRORS,
	SIWL_STAT_LOCAL_ERRORS,
	SIWL_STAT_CONN_RESETS,
	/* The user send queue: posts that woke the kernel, polled fetches. */
	SIWL_STAT_DOORBELLS,
	SIWL_STAT_SQ_POLLS,
	SIWL_STAT_CQ_OVERFLOWS,
	/* A Send that found no receive WQE: waited for one, or gave up. */
	SIWL_STAT_RX_RQE_WAITS,
	SIWL_STAT_RX_NO_RQE,
	SIWL_NUM_STATS
};

struct siwl_stats {
	u64 v[SIWL_NUM_STATS];
};

/*
 * Where a QP counts: its device's set, or the set of the rdma counter it
 * is bound to ("rdma statistic qp bind"). A QP reads its pointer under
 * RCU; a counter's set is freed an RCU grace period after the counter.
 */
struct siwl_stat_set {
	struct siwl_stats __percpu *pcpu;
	/* The counter it belongs to (NULL: the device's); on counter_sets. */
	struct rdma_counter *counter;
	struct list_head node;
	struct rcu_head rcu;
};

static inline void siwl_stat_add(struct siwl_stats __percpu *s,
				 enum siwl_stat idx, u64 n)
{
	this_cpu_add(s->v[idx], n);
}

static inline void siwl_stat_inc(struct siwl_stats __percpu *s,
				 enum siwl_stat idx)
{
	siwl_stat_add(s, idx, 1);
}

/*
 * One FPDU of RDMAP opcode @opcode with @len payload bytes, sent or
 * received: the group's FPDU count and, for Send, Write and Read Response,
 * its bytes. The RX and TX blocks of the enum have the same layout.
 */
static inline void siwl_stat_fpdu(struct siwl_stats __percpu *s, bool rx,
				  u8 opcode, u32 len)
{
	enum siwl_stat base = rx ? SIWL_STAT_RX_SEND_FPDUS :
				   SIWL_STAT_TX_SEND_FPDUS;
	enum siwl_stat group, bytes;

	switch (opcode) {
	case RDMAP_RDMA_WRITE:
		group = SIWL_STAT_TX_WRITE_FPDUS;
		bytes = SIWL_STAT_TX_WRITE_BYTES;
		break;
	case RDMAP_RDMA_READ_REQ:
		siwl_stat_inc(s, base + SIWL_STAT_TX_READ_REQ_FPDUS);
		return;
	case RDMAP_RDMA_READ_RESP:
		group = SIWL_STAT_TX_READ_RESP_FPDUS;
		bytes = SIWL_STAT_TX_READ_RESP_BYTES;
		break;
	case RDMAP_TERMINATE:
		siwl_stat_inc(s, base + SIWL_STAT_TX_TERM_FPDUS);
		return;
	default:
		group = SIWL_STAT_TX_SEND_FPDUS;
		bytes = SIWL_STAT_TX_SEND_BYTES;
		break;
	}
	siwl_stat_inc(s, base + group);
	siwl_stat_add(s, base + bytes, len);
}

int siwl_stats_init(struct siwl_device *sdev);
void siwl_stats_fini(struct siwl_device *sdev);
u64 siwl_stat_read(struct siwl_device *sdev, enum siwl_stat idx);

struct rdma_hw_stats *siwl_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port);
struct rdma_hw_stats *siwl_counter_alloc_stats(struct rdma_counter *counter);
int siwl_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int siwl_counter_unbind_qp(struct ib_qp *ibqp);
int siwl_counter_update_stats(struct rdma_counter *counter);
int siwl_counter_dealloc(struct rdma_counter *counter);
int siwl_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index);

#endif /* SIWL_STATS_H */
