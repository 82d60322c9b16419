/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: the QP object, struct siwl_qp, with the state that each
 * layer keeps in it: transmit (tx.c), receive (rx.c), the engine
 * (qp_engine.c) and the verbs (qp.c). It sits below all of them so that
 * they share the object without including each other's headers: tx.h,
 * rx.h, qp_engine.h and qp.h declare functions. Which lock guards which
 * field: Documentation/siw_lite.rst, "Locking and contexts".
 */
#ifndef SIWL_QP_OBJ_H
#define SIWL_QP_OBJ_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>

#include "ddp_wire.h"
#include "iwarp.h"
#include "siw_lite.h"
#include "uring.h"
#include "wqe.h"

struct bio_vec;
struct siwl_cep;
struct siwl_mr;
struct siwl_srq;
struct siwl_zc_ctx;
struct ubuf_info;

/* A Terminate to send: the error plus the offending segment's headers. */
#define SIWL_HDR_MAX	(MPA_HDR_SIZE + DDP_UNTAGGED_HDR_SIZE + \
			 RDMAP_TERM_MAX_BODY)
struct siwl_term {
	struct iw_term term;
	u16 bad_seg_len;
	u8 bad_len;		/* bytes of @bad (from the DDP header on) */
	u8 bad[SIWL_HDR_MAX];
};

/* One FPDU with up to this much ULPDU; smaller than MULPDU is legal. */
#define SIWL_TX_MAX_ULPDU	16384
#define SIWL_TX_MAX_FPDU	(SIWL_TX_MAX_ULPDU + MPA_HDR_SIZE + \
				 MPA_ALIGN + MPA_CRC_SIZE)
/*
 * The transmit buffer holds consecutive FPDUs of one message, handed to
 * TCP in one call: per-call costs are paid per buffer, not per segment.
 * Buffers are pages that TCP takes by reference (tx.c, tx_pages); one
 * is written again only after TCP has let go of it, so a few rotate, and
 * a buffer TCP copies from stands in when none is free.
 */
#define SIWL_TX_BUF_ORDER	4
#define SIWL_TX_BUF_SIZE	(PAGE_SIZE << SIWL_TX_BUF_ORDER)
#define SIWL_TX_PAGES		8
static_assert(SIWL_TX_BUF_SIZE >= 2 * SIWL_TX_MAX_FPDU);
/*
 * A zero-copy buffer: up to this many pieces and bytes. One FPDU takes at
 * most a header, a trailer and a piece per page of each SGE it spans.
 */
#define SIWL_TX_BVECS		256
#define SIWL_TX_FPDU_BVECS	(2 + 2 * SIWL_MAX_SGE + \
				 SIWL_TX_MAX_ULPDU / PAGE_SIZE)
#define SIWL_TX_ZC_BYTES	(256 * 1024)

/* Transmit state; one transmitter at a time touches it (tx.c). */
enum siwl_tx_kind {
	SIWL_TX_NONE,
	SIWL_TX_SQ,		/* a Send, Write or Read Request */
	SIWL_TX_IRQ,		/* a Read Response */
	SIWL_TX_RTR,		/* RFC 6581 RTR message */
	SIWL_TX_TERM,		/* Terminate */
};

struct siwl_tx {
	u8 *buf;		/* FPDUs of one message, framed and CRCed */
	u32 buf_size;
	struct page *buf_page;	/* @buf's page, or NULL for @copy_buf */
	u8 *copy_buf;		/* TCP copies from this one */
	struct page *pages[SIWL_TX_PAGES];	/* allocated as needed */
	u32 fpdu_len;		/* bytes of the buffer to send (whole FPDUs) */
	u32 fpdu_sent;
	bool fpdu_ends_msg;	/* @buf ends with the message's last segment */
	u32 buf_used;		/* bytes of @buf written: @fpdu_len unless @zc */

	/*
	 * Zero-copy buffer (tx.c, tx_zcopy): @buf holds FPDU headers and
	 * trailers, and @bvec lists the bytes to send in order, payload
	 * straight from the registered pages. @zc is its notification.
	 */
	struct ubuf_info *zc;
	struct bio_vec *bvec;	/* SIWL_TX_BVECS entries */
	u32 nbvec;
	bool zc_pages;		/* this buffer is a piece list */
	bool zc_msg;		/* the current message goes zero-copy */
	struct siwl_zc_ctx *zc_ctx;	/* zcopy.c, on first use */

	enum siwl_tx_kind kind;	/* message being segmented */
	u32 sq_idx;		/* SIWL_TX_SQ: free-running SQ position */
	u32 sq_first;		/* SIWL_TX_SQ: first message ending in @buf */
	u32 msg_len;
	u32 msg_sent;		/* payload bytes framed so far */
	u32 mulpdu;		/* per message, from the current MSS */
	u32 msn;		/* untagged messages: MSN of this message */
	u8 rtr;			/* SIWL_TX_RTR: MPA_RTR_* type */

	u32 next_msn[RDMAP_QN_COUNT];	/* RFC 5041 section 5.1: from 1 */
	bool irq_turn;		/* fairness: serve a Read Response next */
	u32 irq_more;		/* Read Responses chained before this one */
};

/* Receive state; only RX (under rx_lock) touches it (rx.c). */
enum siwl_rx_phase {
	SIWL_RX_HDR,
	SIWL_RX_PAYLOAD,
	SIWL_RX_TRAILER,
};

enum siwl_rx_kind {
	SIWL_RX_DISCARD,	/* nothing to place (zero length, RTR) */
	SIWL_RX_WRITE,
	SIWL_RX_READ_RESP,
	SIWL_RX_SEND,
	SIWL_RX_RTR_SEND,
	SIWL_RX_READ_REQ,
	SIWL_RX_TERMINATE,
	SIWL_RX_SEND_ERROR,	/* read through, then its held error */
};

struct siwl_rx {
	enum siwl_rx_phase phase;
	enum siwl_rx_kind kind;
	bool dead;		/* an error was found: discard everything */
	bool rtr_seg;		/* this segment is the awaited RTR */
	u8 rtr_expect;		/* responder: MPA_RTR_* type still awaited */

	u8 hdr[SIWL_HDR_MAX];	/* MPA + DDP/RDMAP header being assembled */
	u32 have;
	u32 need;
	u16 mpa_len;
	struct ddp_hdr_info h;
	struct iw_term term_held;	/* sent once the DDP header is in */
	/*
	 * A Send's header its receive WQE cannot take, held until the
	 * FPDU's CRC has vouched for that header (SIWL_RX_SEND_ERROR).
	 */
	enum ib_wc_status send_err_status;
	struct iw_term send_err_term;

	u32 payload_left;
	u32 payload_done;
	u32 crc;
	u8 trailer[MPA_ALIGN + MPA_CRC_SIZE];
	u32 trailer_have;
	u32 trailer_need;

	/* Tagged placement target of the current segment (reference held). */
	struct siwl_mr *mr;
	u64 addr;

	/* Untagged Send in progress (RFC 5041 section 5.3). */
	bool send_active;
	u32 send_msn;
	u32 send_mo;

	u32 next_msn[RDMAP_QN_COUNT];	/* expected MSN per queue */
	u32 segs;		/* segments taken effect; read racily by TX */
	/*
	 * A Send's first segment waits for a receive WQE until this
	 * jiffy (rx.c, siwl_rx_wait_rqe); read unlocked by the posts.
	 */
	bool rqe_wait;
	unsigned long rqe_wait_until;
	bool read_req_kick;	/* Read Requests queued in this pass */
};

/*
 * iWARP QP states (RFC 5040 section 6 and the RDMAC verbs). The IB states a
 * consumer uses map onto them: RESET, INIT and RTR are all IDLE (the IB
 * sub-state is kept for query_qp), SQD is CLOSING, SQE is TERMINATE and ERR
 * is ERROR.
 */
enum siwl_qp_state {
	SIWL_QPS_IDLE,
	SIWL_QPS_RTS,
	SIWL_QPS_CLOSING,
	SIWL_QPS_TERMINATE,
	SIWL_QPS_ERROR,
};

/* Outbound RDMA Read awaiting its Read Response (ORD bounded). */
struct siwl_orqe {
	u32 sq_idx;		/* the Read's SQ position (free-running) */
	bool rtr;		/* RFC 6581 zero-length RTR Read: no WQE */
	u32 sink_stag;
	u64 sink_to;
	u32 len;
	u32 placed;		/* Read Response payload placed so far */
	u32 inv_key;		/* RDMA_READ_WITH_INV: sink STag to invalidate */
	bool inv;
};

/* Inbound RDMA Read Request to answer with a Read Response (IRD bounded). */
struct siwl_irqe {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

/*
 * The QP. Fields beyond @base are the engine's and the data path's
 * (qp.c, qp_engine.c, tx.c, rx.c).
 * Locking: Documentation/siw_lite.rst, "Locking and contexts".
 */
struct siwl_qp {
	struct ib_qp base;
	struct siwl_device *sdev;
	struct siwl_srq *srq;
	/* The counters this QP counts in (stats.h); read under RCU. */
	struct siwl_stat_set __rcu *stat_set;

	struct kref ref;
	struct completion freed;	/* last reference gone */
	/*
	 * The process (thread group) that created a user QP, NULL for a
	 * kernel QP: only it may bind the QP to a connection by number.
	 * Held from create_qp until destroy_qp's last reference is gone.
	 */
	struct pid *owner;
	struct mutex modify_mutex;	/* modify_qp / destroy_qp */

	/* Under @lock. */
	spinlock_t lock;
	enum siwl_qp_state state;
	enum ib_qp_state ib_idle;	/* RESET/INIT/RTR while IDLE */
	int access;			/* IB_QP_ACCESS_FLAGS, reported only */
	u32 attr_ord;			/* consumer's max_rd_atomic */
	u32 attr_ird;			/* consumer's max_dest_rd_atomic */
	u32 ord;			/* live limits, set when connected */
	u32 ird;
	struct siwl_cep *cep;
	struct socket *sock;
	bool crc;
	u8 mpa_rev;			/* of the connection, for restrack */
	bool tx_enabled;		/* TX may use @sock */
	bool tx_hold;			/* responder awaiting the RTR */
	/* The last user doorbell: when, and rx.segs then (tx_handoff). */
	u64 db_ns;
	u32 db_rx_segs;
	u8 tx_rtr;			/* initiator: RTR type still to send */
	bool close_pending;		/* worker: call siwl_llp_close() */
	bool close_abortive;
	u8 close_level;			/* 0, or 1/2: graceful/abortive asked */
	bool event_pending;		/* worker: raise IB_EVENT_QP_FATAL */
	bool discard;			/* destroying: flush without CQEs */
	bool term_valid;		/* @term is to be sent */
	struct siwl_term term;

	/* Send queue: free-running positions, slot = pos % sq_size. */
	struct siwl_sqe *sq;
	u32 sq_size;
	u32 sq_head;			/* next free (producer) */
	u32 sq_next;			/* next to transmit */
	u32 sq_tail;			/* oldest not yet completed */
	struct siwl_sq_limits sq_lim;	/* what a send WQE may be */
	bool sig_all;

	/* Outbound Reads in flight and inbound Read Requests, rings. */
	struct siwl_orqe *orq;
	u32 orq_head;
	u32 orq_count;
	struct siwl_irqe *irq;
	u32 irq_head;
	u32 irq_count;

	/* Receive queue, under @rq_lock. */
	spinlock_t rq_lock;
	struct siwl_rqe *rq;
	u32 rq_size;
	u32 rq_head;			/* next free (producer) */
	u32 rq_tail;			/* next to consume */
	u32 max_recv_sge;
	struct siwl_rqe rx_rqe;		/* taken by RX, not completed yet */
	bool rx_rqe_valid;

	/* Receive side, under @rx_lock. */
	spinlock_t rx_lock;
	bool rx_enabled;
	struct siwl_rx rx;

	/*
	 * Rings shared with user space (uring.hdr NULL when none). The
	 * kernel SQ/RQ above stay the queues the data path works on: a WQE
	 * is copied from the ring into them once, validated, and from then
	 * on the ring slot is never read again. SQ positions equal ring
	 * positions, so the ring's cons is our sq_tail.
	 */
	struct siwl_uring usq;
	struct siwl_uring urq;

	/*
	 * Transmit side: the work item and its private state. @tx_mutex
	 * makes the transmitter one at a time: the work item, or a user's
	 * doorbell transmitting in its own system call.
	 */
	struct mutex tx_mutex;
	struct work_struct tx_work;
	struct work_struct rx_work;	/* RX moved off the softirq (rx_defer) */
	struct delayed_work rqe_work;	/* RX retried for a waiting Send */
	/* Raises IB_EVENT_QP_FATAL; apart from tx_work, see qp_engine.c. */
	struct work_struct event_work;
	/* Ends a TERMINATE whose Terminate cannot leave (peer not reading). */
	struct delayed_work term_work;
	struct siwl_tx tx;
};

static inline struct siwl_qp *to_siwl_qp(struct ib_qp *qp)
{
	return container_of(qp, struct siwl_qp, base);
}

static inline void siwl_qp_stat_add(struct siwl_qp *qp, enum siwl_stat idx,
				    u64 n)
{
	rcu_read_lock();
	siwl_stat_add(rcu_dereference(qp->stat_set)->pcpu, idx, n);
	rcu_read_unlock();
}

static inline void siwl_qp_stat_inc(struct siwl_qp *qp, enum siwl_stat idx)
{
	siwl_qp_stat_add(qp, idx, 1);
}

static inline void siwl_qp_stat_fpdu(struct siwl_qp *qp, bool rx, u8 opcode,
				     u32 len)
{
	rcu_read_lock();
	siwl_stat_fpdu(rcu_dereference(qp->stat_set)->pcpu, rx, opcode, len);
	rcu_read_unlock();
}

#endif /* SIWL_QP_OBJ_H */
