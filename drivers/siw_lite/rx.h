/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: the receive side of a QP (rx.c) and its reassembly state.
 */
#ifndef SIWL_RX_H
#define SIWL_RX_H

#include <linux/workqueue.h>

#include "ddp_wire.h"
#include "tx.h"		/* SIWL_HDR_MAX */

struct siwl_mr;

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
	bool read_req_kick;	/* Read Requests queued in this pass */
};

struct siwl_qp;
struct sock;

/*
 * Places what TCP has received: from sk_data_ready (BH context, socket
 * callback lock held), the RX worker and the CM's orderly close (process
 * context, socket lock held).
 */
void siwl_qp_rx(struct siwl_qp *qp, struct sock *sk);
void siwl_qp_data_ready(struct siwl_qp *qp, struct sock *sk);
/* After a process context held @sk (may sleep): reopen the rcv window. */
void siwl_rx_window_update(struct sock *sk);
void siwl_qp_rx_work(struct work_struct *work);
/* A new connection: receive state from scratch. */
void siwl_rx_reset(struct siwl_qp *qp);
/* Drops what RX still holds (an MR reference). */
void siwl_rx_release(struct siwl_qp *qp);

#endif /* SIWL_RX_H */
