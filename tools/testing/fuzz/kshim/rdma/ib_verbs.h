/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim: the verbs objects and constants the siw_lite headers name. The
 * objects carry only the members the driver's headers and rx.c touch;
 * the numbers are this shim's own, the driver only compares them.
 */
#ifndef KSHIM_RDMA_IB_VERBS_H
#define KSHIM_RDMA_IB_VERBS_H

#include "../kshim.h"

struct ib_device {
	const char *name;
};

struct ib_udata;

struct ib_ucontext {
	struct ib_device *device;
};

struct ib_pd {
	struct ib_device *device;
};

struct ib_cq {
	struct ib_device *device;
	void (*comp_handler)(struct ib_cq *cq, void *ctx);
	void *cq_context;
};

struct ib_srq {
	struct ib_device *device;
	struct ib_pd *pd;
};

struct ib_qp {
	struct ib_device *device;
	struct ib_pd *pd;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	struct ib_srq *srq;
	u32 qp_num;
};

struct ib_mr {
	struct ib_device *device;
	struct ib_pd *pd;
	u32 lkey;
	u32 rkey;
};

struct ib_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

struct ib_recv_wr {
	struct ib_recv_wr *next;
	u64 wr_id;
	struct ib_sge *sg_list;
	int num_sge;
};

struct ib_cq_init_attr;
struct ib_wc;
struct ib_srq_init_attr;
struct ib_srq_attr;

enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE	= 0x1,
	IB_ACCESS_REMOTE_WRITE	= 0x2,
	IB_ACCESS_REMOTE_READ	= 0x4,
};

enum ib_wc_opcode {
	IB_WC_SEND,
	IB_WC_RDMA_WRITE,
	IB_WC_RDMA_READ,
	IB_WC_LOCAL_INV,
	IB_WC_REG_MR,
	IB_WC_RECV		= 0x80,	/* receive opcodes have 0x80 set */
};

enum ib_wc_status {
	IB_WC_SUCCESS,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
};

enum ib_wc_flags {
	IB_WC_WITH_INVALIDATE	= 0x1,
};

enum ib_wr_opcode {
	IB_WR_RDMA_WRITE,
	IB_WR_SEND,
	IB_WR_RDMA_READ,
	IB_WR_RDMA_READ_WITH_INV,
	IB_WR_LOCAL_INV,
	IB_WR_REG_MR,
};

enum ib_qp_state {
	IB_QPS_RESET,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_SQD,
	IB_QPS_SQE,
	IB_QPS_ERR,
};

enum ib_mr_type {
	IB_MR_TYPE_MEM_REG,
};

enum ib_cq_notify_flags {
	IB_CQ_SOLICITED		= 0x1,
	IB_CQ_NEXT_COMP		= 0x2,
};

enum ib_srq_attr_mask {
	IB_SRQ_MAX_WR		= 0x1,
	IB_SRQ_LIMIT		= 0x2,
};

/* Device messages: checked like printf formats, printed nowhere. */
static inline __attribute__((format(printf, 2, 3)))
void kshim_ibdev_printk(const struct ib_device *dev, const char *fmt, ...)
{
	(void)dev;
	(void)fmt;
}

#define ibdev_dbg(dev, ...)		kshim_ibdev_printk(dev, __VA_ARGS__)
#define ibdev_info_ratelimited(dev, ...) kshim_ibdev_printk(dev, __VA_ARGS__)
#define ibdev_warn_ratelimited(dev, ...) kshim_ibdev_printk(dev, __VA_ARGS__)

#endif /* KSHIM_RDMA_IB_VERBS_H */
