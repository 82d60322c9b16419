/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_rx: the input format and the fixed parts of the world it sets up,
 * shared by the harness (fuzz_rx.c, rx_env.c) and the seed generator
 * (gen_rx_seeds.c), which must address the same STags and offsets.
 *
 * Input:
 *   octet 0..3   layout (RX_L0_* ... RX_L3_*)
 *   octet 4      N, the number of schedule octets
 *   N octets     schedule: what happens, in order (RX_EV_*)
 *   the rest     the TCP byte stream from the peer, MPA FPDUs from the
 *                first octet (the MPA handshake is over)
 *
 * The stream reaches the socket only through schedule events that queue
 * a piece of it as an skb; whatever is left when the schedule ends is
 * queued in pieces of RX_MSS and read until RX has taken it all.
 */
#ifndef _SIW_LITE_FUZZ_RX_H
#define _SIW_LITE_FUZZ_RX_H

#include "wire_compat.h"

#define RX_HDR_LEN		5

/* Layout octet 0: the connection. */
#define RX_L0_CRC		0x01	/* MPA CRCs negotiated */
#define RX_L0_RQ_SHIFT		1	/* 2 bits: enum rx_rq_mode */
#define RX_L0_RTR_SHIFT		3	/* 2 bits: none, Send, Write, Read */
#define RX_L0_IRD_SHIFT		5	/* 3 bits: IRD 0..7 */

enum rx_rq_mode {
	RX_RQ_KERNEL,
	RX_RQ_KERNEL2,		/* the same: kernel RQs are the common case */
	RX_RQ_SRQ,
	RX_RQ_URING,		/* a user RQ ring (siwl_urq_take_locked) */
};

/* Layout octet 1: memory and receive queue. */
#define RX_L1_MR3_GONE		0x01	/* RX_MR_INVAL deregistered */
#define RX_L1_MR5_PLAIN		0x02	/* RX_MR_FRMR is a plain user MR */
#define RX_L1_SRQ_OTHER_PD	0x04	/* the SRQ belongs to the other PD */
#define RX_L1_MR8_REMOTE	0x08	/* RX_MR_LOCAL grants remote write */
#define RX_L1_NRQE_SHIFT	4	/* 3 bits: WQEs posted at start */
#define RX_L1_DEFER		0x80	/* siwl_tune.rx_defer set */

/* Layout octet 2: outstanding Reads, odd WQEs, counters, state. */
#define RX_L2_NORQ_MASK		0x03	/* 0..3 Reads awaiting a Response */
#define RX_L2_ORQ_RTR		0x04	/* the first one is an RTR Read */
#define RX_L2_ORQ_INV		0x08	/* the second is a Read w/ Invalidate */
#define RX_L2_CORRUPT_WQE	0x10	/* the 2nd WQE taken is malformed */
#define RX_L2_BAD_LKEY		0x20	/* WQEs 3, 7 name an unknown lkey */
#define RX_L2_WRAP		0x40	/* free-running positions near 2^32 */
#define RX_L2_CLOSING		0x80	/* start in CLOSING, not RTS */

/* Layout octet 3: CQ size and the socket's window. */
#define RX_L3_CQ_MASK		0x03	/* receive CQ: 1, 2, 3 or 64 entries */
#define RX_L3_SPACE		0x04	/* tcp_space() large: window update */

/*
 * Schedule octets. The two top bits select the kind:
 *   00 ssssss  queue the next s + 1 stream octets as one skb
 *   01 ooosss  queue the next 16 << s octets as one skb that starts o
 *              octets early (overlapping what was queued before)
 *   10 ....ee  an RX pass through entry point ee (enum rx_entry)
 *   11 kkkaaa  a local event k with argument a (enum rx_local)
 */
#define RX_EV_KIND(c)		((c) >> 6)
#define RX_EV_SMALL		0
#define RX_EV_LARGE		1
#define RX_EV_PASS		2
#define RX_EV_LOCAL		3

enum rx_entry {
	RX_ENTRY_RX,		/* siwl_qp_rx() from sk_data_ready */
	RX_ENTRY_DATA_READY,	/* siwl_qp_data_ready() in a softirq */
	RX_ENTRY_RX_WORK,	/* siwl_qp_rx_work(), the deferred RX */
	RX_ENTRY_RQE_WORK,	/* siwl_qp_rqe_work(), a waiting Send */
};

enum rx_local {
	RX_LOC_POST_RQE,	/* post a receive WQE, siwl_rx_rqe_posted() */
	RX_LOC_TICK,		/* jiffies += (a + 1) * HZ / 4 */
	RX_LOC_INVALIDATE,	/* local invalidate of MR a + 1 */
	RX_LOC_FAST_REG,	/* RX_MR_FRMR valid again, key + a + 1 */
	RX_LOC_DEREG,		/* deregister MR a + 1 */
	/*
	 * a & 3: 0 a graceful close starts (CLOSING), 1 the consumer moves
	 * the QP to ERROR, 2 the peer's FIN arrived, 3 the connection is
	 * gone (RX off, no socket).
	 */
	RX_LOC_MODIFY,
	RX_LOC_POLL_CQ,		/* the consumer empties the receive CQ */
	RX_LOC_TX_READ_RESP,	/* TX answered the oldest Read Request */
};

#define RX_EV_SMALL_LEN(c)	(((c) & 0x3f) + 1)
#define RX_EV_LARGE_LEN(c)	(16U << ((c) & 0x07))
#define RX_EV_LARGE_BACK(c)	(((c) >> 3) & 0x07)
#define RX_EV_LOCAL_KIND(c)	(((c) >> 3) & 0x07)
#define RX_EV_LOCAL_ARG(c)	((c) & 0x07)

#define RX_EV_SMALL_C(n)	((n) - 1)
#define RX_EV_PASS_C(e)		(0x80 | (e))
#define RX_EV_LOCAL_C(k, a)	(0xc0 | (k) << 3 | (a))

/* Skb size of the final drain (a typical MSS). */
#define RX_MSS			1460

/*
 * Memory regions, by STag index. Each has RX_MR_LEN bytes of arena behind
 * it; all belong to the QP's PD unless noted.
 */
enum rx_mr_idx {
	RX_MR_WRITE = 1,	/* remote write + read */
	RX_MR_RDONLY,		/* remote read only (local write) */
	RX_MR_INVAL,		/* remote write, but invalid (or gone) */
	RX_MR_FOREIGN,		/* remote write, the other PD */
	RX_MR_FRMR,		/* fast-register, remote write + read */
	RX_MR_DMA,		/* DMA MR claiming remote rights */
	RX_MR_TOP,		/* remote write, ends at 2^64 */
	RX_MR_LOCAL,		/* local write only: receives, Read sinks */
	RX_NR_MR = RX_MR_LOCAL
};

#define RX_MR_LEN		256

/* STag of MR @i: index @i, key 0xa0 + @i. */
static inline u32 rx_stag(u32 i)
{
	return i << 8 | (0xa0 + i);
}

static inline u64 rx_iova(u32 i)
{
	return i == RX_MR_TOP ? (u64)0 - RX_MR_LEN : (u64)i << 16;
}

/* Receive WQEs: wr_id; SGEs into RX_MR_LOCAL, _RDONLY and _FRMR. */
#define RX_NR_RQE		8
#define RX_WR_ID(k)		(0x1000ULL + (k))

/*
 * Outstanding Reads: sink STag, TO and length; wr_id of their WQE. The
 * first two sink into RX_MR_LOCAL, the third into RX_MR_WRITE.
 */
#define RX_NR_ORQ		3
#define RX_ORQ_WR_ID(k)		(0x2000ULL + (k))

static inline u32 rx_orq_sink(int k)
{
	return k == 2 ? rx_stag(RX_MR_WRITE) : rx_stag(RX_MR_LOCAL);
}

static inline u64 rx_orq_to(int k)
{
	return k == 2 ? rx_iova(RX_MR_WRITE) + 0xc0 :
			rx_iova(RX_MR_LOCAL) + 0xb0 + 0x30 * k;
}

static inline u32 rx_orq_len(int k)
{
	static const u32 len[RX_NR_ORQ] = { 40, 24, 32 };

	return len[k];
}

#endif /* _SIW_LITE_FUZZ_RX_H */
