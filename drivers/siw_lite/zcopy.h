/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: zero-copy transmit notifications.
 *
 * TCP sends a zero-copy buffer's payload straight from the pinned pages
 * of the registered memory and keeps referencing them until the bytes are
 * acknowledged (it may retransmit from them), and a local receiver until
 * it has consumed them. The WRs whose messages end in such a buffer
 * complete only when the stack tells us, through the buffer's ubuf_info,
 * that the last reference is gone: the consumer may then reuse its
 * memory. A notification outlives the QP when TCP outlives it (a lingering
 * close); it then finds no QP and only frees itself.
 */
#ifndef SIWL_ZCOPY_H
#define SIWL_ZCOPY_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct siwl_qp;
struct siwl_zc_ctx;

/* Zero-copy buffers in flight per QP; the next one is built by copying. */
#define SIWL_ZC_SLOTS		16

/* SQ positions [first, end) whose messages ended in a released buffer. */
struct siwl_zc_range {
	u32 first;
	u32 end;
};

/*
 * Whether a message may go zero-copy: allocates the QP's notification
 * slots on first use; false if memory is short or, unless @always, the
 * stack had to copy an earlier buffer of this QP (a receiver on this
 * host): copying ourselves is then cheaper. Under the QP's tx_mutex.
 */
bool siwl_zc_usable(struct siwl_qp *qp, bool always);

/* Notifications are in flight: completions must queue behind them. */
bool siwl_zc_busy(struct siwl_qp *qp);

/*
 * A notification for the next buffer, holding one reference of ours, or
 * NULL while SIWL_ZC_SLOTS are in flight (the oldest one's release kicks
 * the work item). Needs siwl_zc_usable() or siwl_zc_busy() first. Under
 * the QP's tx_mutex.
 */
struct ubuf_info *siwl_zc_begin(struct siwl_qp *qp);

/*
 * Drops our reference once TCP has all of the buffer's bytes (or never
 * will), recording the SQ range that completes when the stack lets go.
 */
void siwl_zc_end(struct siwl_qp *qp, struct ubuf_info *ubuf,
		 const struct siwl_zc_range *done);

/*
 * Takes the range of the oldest notification if the stack has released it
 * and all before it; false when none is. Completions stay in SQ order.
 * Under the QP's tx_mutex.
 */
bool siwl_zc_next(struct siwl_qp *qp, struct siwl_zc_range *r);

/*
 * The connection is gone (its WRs are flushed): notifications still in
 * flight complete nothing. Under the QP's tx_mutex.
 */
void siwl_zc_forget(struct siwl_qp *qp);

/* The QP is being destroyed: releases no longer kick its work item. */
void siwl_zc_detach(struct siwl_qp *qp);

/* After the work item is gone: drops the QP's hold on the slots. */
void siwl_zc_release(struct siwl_qp *qp);

/*
 * Module exit, after every socket of ours is released: waits until TCP
 * has let go of the last zero-copy buffer, whose release calls into this
 * module. An orphaned socket may hold one until its peer ACKs, resets or
 * TCP gives up on it.
 */
void siwl_zc_exit_module(void);

#endif /* SIWL_ZCOPY_H */
