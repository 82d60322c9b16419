/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: queue pairs: the QP itself, its verbs (qp.c) and the entry
 * points the connection manager calls. The engine below the verbs and
 * the data path is declared in qp_engine.h.
 */
#ifndef SIWL_QP_H
#define SIWL_QP_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>

#include "iwarp.h"
#include "rx.h"
#include "siw_lite.h"
#include "tx.h"
#include "uring.h"
#include "wqe.h"

struct siwl_cep;
struct siwl_srq;

/*
 * What MPA negotiated for a connection (RFC 5044 section 7.1, RFC 6581),
 * handed from the connection manager to the QP when it goes to RTS.
 */
struct siwl_conn_params {
	struct socket *sock;
	bool crc;		/* MPA CRC on both directions */
	bool initiator;		/* we sent the MPA request */
	u8 mpa_rev;		/* 1 or 2 */
	u32 ird;		/* inbound RDMA Reads we accept at once */
	u32 ord;		/* outbound RDMA Reads we may have in flight */
	/*
	 * RFC 6581 RTR: for the initiator, the zero-length message type to
	 * send first (MPA_RTR_* single bit, 0 for none); for the responder,
	 * the type to expect before the first ULP message (0 for none).
	 */
	u8 rtr;
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

/*
 * Entry points from the connection manager (cm.c) into the data path
 * (qp.c, tx.c, rx.c). The CEP owns the socket and its callbacks and calls
 * these; the QP never frees the socket.
 */

/*
 * MPA is done: binds @qp to @cep and @p->sock, moves it to RTS and starts
 * TX/RX. Returns 0, or a negative errno when the QP cannot go to RTS (not
 * in INIT/RTR, or IRD/ORD beyond what it was created for), in which case
 * the CEP aborts the connection.
 */
int siwl_qp_llp_up(struct siwl_qp *qp, struct siwl_cep *cep,
		   const struct siwl_conn_params *p);

/* sk_write_space of an RTS socket: TX may continue. Any context. */
void siwl_qp_tx_wakeup(struct siwl_qp *qp);

/*
 * The TCP connection is gone (FIN, RST or error): the QP goes to ERROR and
 * flushes its queues; it no longer touches the socket once this returns.
 * Process context.
 */
void siwl_qp_llp_down(struct siwl_qp *qp);

/* QP references, as iw_cm's iw_add_ref / iw_rem_ref use them. */
void siwl_qp_get(struct siwl_qp *qp);
void siwl_qp_put(struct siwl_qp *qp);
struct siwl_qp *siwl_qp_from_id(struct siwl_device *sdev, u32 qpn);

/* Verbs. */
int siwl_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata);
int siwl_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int siwl_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int siwl_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int siwl_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int siwl_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
void siwl_iw_add_ref(struct ib_qp *qp);
void siwl_iw_rem_ref(struct ib_qp *qp);
struct ib_qp *siwl_iw_get_qp(struct ib_device *ibdev, int qpn);

/* Device QP table (qpn -> QP) set-up and teardown. */
void siwl_qp_table_init(struct siwl_device *sdev);
void siwl_qp_table_fini(struct siwl_device *sdev);

#endif /* SIWL_QP_H */
