/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: the transmit side of a QP (tx.c), its state and limits, and
 * the Terminate it sends on the QP's behalf.
 */
#ifndef SIWL_TX_H
#define SIWL_TX_H

#include <linux/mm.h>
#include <linux/workqueue.h>

#include "iwarp.h"
#include "wqe.h"

struct bio_vec;
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

struct siwl_qp;

/*
 * Transmits from the caller's context (a user's doorbell) while nothing
 * else transmits; otherwise leaves the work to the work item.
 */
void siwl_qp_tx_direct(struct siwl_qp *qp);
/* Frees the transmit buffers once TCP holds none of their pages. */
void siwl_tx_release_pages(struct siwl_qp *qp);
/* Under qp->lock: should a doorbell hand transmission to a worker? */
bool siwl_tx_handoff_locked(struct siwl_qp *qp);
void siwl_qp_tx_work(struct work_struct *work);

#endif /* SIWL_TX_H */
