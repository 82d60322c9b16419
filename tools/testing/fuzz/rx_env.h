/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_rx: the world one input sets up around the real rx.c, shared by
 * the harness (fuzz_rx.c), the models of what rx.c calls (rx_env.c) and
 * the reading of the stream that says what may be placed (rx_oracle.c).
 */
#ifndef _SIW_LITE_RX_ENV_H
#define _SIW_LITE_RX_ENV_H

#include <linux/skbuff.h>
#include <net/tcp.h>

#include "cq.h"
#include "mem.h"
#include "qp_obj.h"
#include "srq.h"

#include "fuzz_common.h"
#include "fuzz_rx.h"

/* Lock ranks, siw_lite.rst "Locking and contexts" (outermost lowest). */
enum rx_lock_rank {
	RX_RANK_RX = 4,
	RX_RANK_QP = 5,
	RX_RANK_RQ = 6,
	RX_RANK_LEAF = 7,
};

/* Arena: RX_MR_LEN bytes per MR, each between guard gaps. */
#define RX_GUARD		32
#define RX_ARENA_LEN		(RX_GUARD + RX_NR_MR * (RX_MR_LEN + RX_GUARD))

struct rx_mr {
	struct siwl_mr mr;
	bool present;		/* in the table: not deregistered */
	int refs;		/* held by callers of siwl_mr_get() */
	u32 arena_off;		/* where mr.iova lives in the arena */
};

/* A receive WQE the consumer posted, and what became of it. */
struct rx_rqe {
	struct siwl_rqe rqe;
	bool corrupt;		/* a user ring entry that is no WQE */
	bool taken;
	int taken_at;		/* FPDU being processed when RX took it */
	bool completed;		/* a completion was pushed (or lost) */
};

/* An outstanding Read of ours, as posted. */
struct rx_orqe {
	u32 sink_stag;
	u64 sink_to;
	u32 len;
	bool rtr;		/* RFC 6581 RTR Read: no send WQE */
	bool inv;		/* Read with Invalidate of RX_MR_FRMR */
	u32 sq_pos;		/* its send WQE's position, unless @rtr */
	u32 placed;		/* Response payload taken effect so far */
};

/* One FPDU of the stream as the oracle reads it (rx_oracle.c). */
struct rx_fpdu {
	u64 start;		/* stream offset of ULPDU_Length */
	u64 hdr_end;		/* payload starts here */
	u64 pay_end;
	u64 end;		/* next FPDU */
	struct ddp_hdr_info h;
	bool complete;		/* all its octets are in the stream */
	bool crc_ok;		/* complete, and the CRC matches */
	int msg_first;		/* Send: the FPDU its message began with */
	u64 placed;		/* stream offset placed up to (payload) */
	bool done;		/* took effect (trace_fpdu_rx) */
	/* A Send with payload that took effect with none of it placed. */
	bool read_through;
	bool completed;		/* a receive completion came from it */
	/* Read Request: its source could be read while it was in progress. */
	bool rreq_ok;
};

struct rx_world {
	/* The input. */
	u8 layout[4];
	const u8 *stream;
	size_t stream_len;
	u64 stream_queued;	/* octets handed to the socket */

	/* The objects around the QP. */
	struct siwl_device sdev;
	struct ib_pd pd, other_pd;
	struct siwl_cq rcq, scq;
	struct siwl_srq srq;
	struct siwl_stats stats;
	struct siwl_stat_set stat_set;
	struct siw_lite_ring urq_hdr;
	struct tcp_sock tp;
	struct socket sock;
	struct siwl_qp *qp;
	bool crc;
	enum rx_rq_mode rq_mode;

	/* Consumer memory: the arena, its initial pattern, what was placed. */
	u8 arena[RX_ARENA_LEN];
	bool written[RX_ARENA_LEN];
	struct rx_mr mrs[RX_NR_MR + 1];		/* by STag index, 0 unused */

	/* Receive WQEs in posting order; the kernel RQ's start position. */
	struct rx_rqe rqes[RX_NR_RQE];
	int nrqe_posted;
	int nrqe_taken;
	u32 rq_base;

	/* Outstanding Reads, oldest first; how many have completed. */
	struct rx_orqe orq[RX_NR_ORQ];
	int norq;
	int norq_done;
	u32 sq_base;
	int sq_reaped;

	/* Inbound Read Requests: IRQ position checked up to; FPDU scan. */
	u32 irq_seen;
	int rreq_scan;

	/* The stream as the oracle reads it. */
	struct rx_fpdu *fpdus;
	int nfpdu;
	bool oracle_stopped;	/* a header that cannot parse ends it */
	bool oracle_bad_whole;	/* ... though the whole FPDU is there */
	int fpdus_done;		/* FPDUs that took effect, in order */

	/* What RX did to the QP and the CQ. */
	bool failed;		/* QP in TERMINATE or ERROR */
	struct iw_term term;	/* the first error RX reported */
	bool term_rx;		/* the peer's Terminate was taken */
	int rcq_count;
	int rcq_cap;
	bool rcq_overflow;
	int send_err_cqes;	/* error completions of Sends */
};

/* Consumer memory's content before the run. */
static inline u8 rx_pattern(size_t i)
{
	return (u8)(i * 29 + 0x5b) ^ (u8)(i >> 7);
}

extern struct rx_world *rxw;

/* rx_oracle.c */
void rx_oracle_read(struct rx_world *w);
/* The FPDU RX is processing now: the first one not taken effect. */
struct rx_fpdu *rx_oracle_cur(struct rx_world *w);

/* rx_env.c */
void rx_env_sync_taken(struct rx_world *w);
bool rx_env_mr_allows(struct rx_world *w, u32 stag, const struct ib_pd *pd,
		      u64 addr, u64 len, int access);
struct rx_mr *rx_env_mr(struct rx_world *w, u32 stag);
/* Before the harness changes an MR (rx_env.c). */
void rx_env_before_mr_change(struct rx_world *w);
/* The receive WQE the message being received was placed into. */
struct rx_rqe *rx_env_cur_rqe(struct rx_world *w);

#endif /* _SIW_LITE_RX_ENV_H */
