/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * siw_lite user/kernel ABI, shared by the kernel module and the rdma-core
 * provider (tools/provider).
 *
 * Rules every structure here follows, so that 32/64-bit and old/new user
 * space agree on the layout:
 *  - sizes are multiples of 8 and every 64-bit field is 8-byte aligned
 *    (__aligned_u64), no implicit padding;
 *  - structures only ever grow at the end; the kernel accepts a shorter
 *    request from an older provider as long as it covers every field that
 *    was defined in SIW_LITE_ABI_VERSION 1, and zero-fills a response that
 *    the provider made larger than the kernel knows;
 *  - reserved fields must be written as zero and are checked by the kernel.
 */
#ifndef SIW_LITE_ABI_H
#define SIW_LITE_ABI_H

#include <linux/types.h>

/* Reported as ib_device.ops.uverbs_abi_ver and in sysfs. */
#define SIW_LITE_ABI_VERSION 1

/*
 * The provider recognises a siw_lite device by this attribute in the
 * device's sysfs directory: /sys/class/infiniband/<ibdev>/siw_lite_abi
 * holds SIW_LITE_ABI_VERSION in decimal followed by a newline.
 */
#define SIW_LITE_SYSFS_ATTR "siw_lite_abi"

/* Capabilities reported at ucontext allocation (bitmask). */
enum siw_lite_caps {
	/* CQ, SQ, RQ and SRQ can live in rings shared with the kernel. */
	SIW_LITE_CAP_RINGS = 0x1,
};

/* IB_USER_VERBS_CMD_GET_CONTEXT: no driver request, this response. */
struct siw_lite_uresp_alloc_ctx {
	__u32 abi_version;	/* SIW_LITE_ABI_VERSION */
	__u32 max_inline;	/* bytes of inline data per send WQE */
	__aligned_u64 caps;	/* enum siw_lite_caps */
};

/*
 * Shared rings (SIW_LITE_CAP_RINGS).
 *
 * Each ring is one mmap() of the uverbs file at the offset the create
 * response gives (mmap_key), of mmap_size bytes: a struct siw_lite_ring
 * header followed, at SIW_LITE_RING_ENTRIES, by num_entries (a power of
 * two) fixed-size entries.  Indices are free-running __u32 counters; the
 * slot of index i is i & (num_entries - 1).  The producer owns prod, the
 * consumer owns cons; each side reads the other's index with acquire
 * semantics and publishes its own with release semantics after the entry
 * contents.  The ring is empty when prod == cons and full when
 * prod - cons == num_entries.
 *
 * The kernel never trusts what user space writes: it keeps its own copy of
 * every index it owns, treats prod - cons > num_entries as a fatal error of
 * that queue (QP to ERROR, CQ error event), and copies each entry once
 * before validating and using it.
 *
 *   ring  producer  consumer  entry
 *   SQ    user      kernel    struct siw_lite_sqe   (cons moves when the
 *                                                    WQE completes, so a
 *                                                    slot is reusable only
 *                                                    then)
 *   RQ    user      kernel    struct siw_lite_rqe   (cons moves when the
 *                                                    kernel takes the WQE)
 *   SRQ   user      kernel    struct siw_lite_rqe   (likewise)
 *   CQ    kernel    user      struct siw_lite_cqe
 */
struct siw_lite_ring {
	__u32 prod;		/* written by the producer only */
	__u32 rsvd0[15];	/* own cache line */
	__u32 cons;		/* written by the consumer only */
	__u32 rsvd1[15];
	/*
	 * SQ: SIW_LITE_SQ_DOORBELL, set by the kernel when it has stopped
	 * fetching; the provider must then ring the doorbell (a POST_SEND
	 * command with no work requests) after publishing prod.  Ordering:
	 * publish prod, full barrier, read flags.
	 * CQ: enum siw_lite_cq_arm, written by the user to arm the CQ, reset
	 * to 0 by the kernel (atomically) when it raises the event.
	 * RQ: SIW_LITE_RQ_FLUSH, set by the kernel once the QP is in ERROR;
	 * the provider must then make a POST_RECV command with no work
	 * requests after publishing prod, so that the kernel completes the
	 * new WQEs with IBV_WC_WR_FLUSH_ERR (the SQ's doorbell flag stays set
	 * in ERROR for the same reason).
	 * SRQ: unused (0).
	 */
	__u32 flags;
	__u32 rsvd2[15];
};

#define SIW_LITE_RING_ENTRIES	256	/* offset of entry 0 in the mmap */

/* siw_lite_ring.flags of an SQ */
#define SIW_LITE_SQ_DOORBELL	0x1U

/* siw_lite_ring.flags of an RQ */
#define SIW_LITE_RQ_FLUSH	0x1U

/* siw_lite_ring.flags of a CQ */
enum siw_lite_cq_arm {
	SIW_LITE_CQ_ARM_NONE = 0,
	SIW_LITE_CQ_ARM_NEXT = 1,	/* event on the next completion */
	SIW_LITE_CQ_ARM_SOLICITED = 2,	/* solicited or error completion */
};

struct siw_lite_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

#define SIW_LITE_MAX_SGE	6
#define SIW_LITE_MAX_INLINE	(SIW_LITE_MAX_SGE * 16)

/* siw_lite_sqe.opcode: the subset of IBV_WR_* user space may post. */
enum siw_lite_wr_opcode {
	SIW_LITE_WR_WRITE = 0,
	SIW_LITE_WR_SEND = 1,
	SIW_LITE_WR_SEND_WITH_INV = 2,
	SIW_LITE_WR_READ = 3,
	SIW_LITE_WR_LOCAL_INV = 4,
};

/* siw_lite_sqe.flags */
#define SIW_LITE_WQE_SIGNALED	0x1U
#define SIW_LITE_WQE_SOLICITED	0x2U
#define SIW_LITE_WQE_FENCE	0x4U
#define SIW_LITE_WQE_INLINE	0x8U	/* payload in inline_data */

/* Send queue entry: 128 bytes. */
struct siw_lite_sqe {
	__aligned_u64 wr_id;
	__u8 opcode;		/* enum siw_lite_wr_opcode */
	__u8 num_sge;		/* SGEs used; 0 for inline */
	__u16 flags;		/* SIW_LITE_WQE_* */
	__u32 length;		/* inline: payload bytes; else ignored */
	__aligned_u64 remote_addr;	/* Write, Read: remote tagged offset */
	__u32 rkey;		/* Write, Read: remote STag */
	__u32 invalidate_rkey;	/* Send with Invalidate, Local Invalidate */
	union {
		struct siw_lite_sge sge[SIW_LITE_MAX_SGE];
		__u8 inline_data[SIW_LITE_MAX_INLINE];
	};
};

/* Receive queue entry (RQ and SRQ): 112 bytes. */
struct siw_lite_rqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 rsvd;
	struct siw_lite_sge sge[SIW_LITE_MAX_SGE];
};

/* siw_lite_cqe.opcode: IBV_WC_* values. */

/* siw_lite_cqe.flags */
#define SIW_LITE_CQE_WITH_INV	0x1U	/* invalidated_rkey valid */
#define SIW_LITE_CQE_SOLICITED	0x2U

/* Completion queue entry: 32 bytes. */
struct siw_lite_cqe {
	__aligned_u64 wr_id;
	__u8 opcode;		/* enum ibv_wc_opcode value */
	__u8 status;		/* enum ibv_wc_status value */
	__u8 flags;		/* SIW_LITE_CQE_* */
	__u8 rsvd0;
	__u32 byte_len;
	__u32 invalidated_rkey;
	__u32 qp_num;
	__u32 vendor_err;
	__u32 rsvd1;
};

/*
 * Create requests and responses.  A request without the SIW_LITE_USE_RING
 * flag (or an older provider sending no request) gets the command-based
 * object: post, poll and arm then go through uverbs commands.
 */
#define SIW_LITE_USE_RING	0x1U

/* IB_USER_VERBS_CMD_CREATE_CQ */
struct siw_lite_ureq_create_cq {
	__u32 flags;		/* SIW_LITE_USE_RING */
	__u32 rsvd;
};

struct siw_lite_uresp_create_cq {
	__aligned_u64 mmap_key;	/* mmap offset of the CQ ring */
	__u32 mmap_size;
	__u32 num_entries;	/* power of two, >= requested cqe */
};

/* IB_USER_VERBS_CMD_CREATE_QP */
struct siw_lite_ureq_create_qp {
	__u32 flags;		/* SIW_LITE_USE_RING */
	__u32 rsvd;
};

struct siw_lite_uresp_create_qp {
	__aligned_u64 sq_key;	/* mmap offset of the SQ ring */
	__aligned_u64 rq_key;	/* of the RQ ring; 0 with an SRQ */
	__u32 sq_size;		/* mmap bytes */
	__u32 rq_size;
	__u32 num_sqe;		/* entries, powers of two */
	__u32 num_rqe;
	__u32 qp_id;		/* QP number, as in completions */
	__u32 rsvd;
};

/* IB_USER_VERBS_CMD_CREATE_SRQ */
struct siw_lite_ureq_create_srq {
	__u32 flags;		/* SIW_LITE_USE_RING */
	__u32 rsvd;
};

struct siw_lite_uresp_create_srq {
	__aligned_u64 mmap_key;
	__u32 mmap_size;
	__u32 num_entries;
};

#endif /* SIW_LITE_ABI_H */
