/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private types of the siw_lite provider, shared by its source files.
 */
#ifndef SIW_LITE_PROVIDER_H
#define SIW_LITE_PROVIDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/siw_lite-abi.h>

#include "pabi34.h"

/*
 * /usr/include/rdma has other drivers' ABI headers; make sure the build
 * picked up the project's own header and not something stale.
 */
#ifndef SIW_LITE_SYSFS_ATTR
#error "rdma/siw_lite-abi.h is not the project's uapi header"
#endif

#define __maybe_unused __attribute__((unused))

#define siwl_container_of(ptr, type, member)				\
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * Request/response buffers that carry siw_lite data after the uverbs core
 * part.  libibverbs locates our part purely by sizeof(core), so any padding
 * in between would shift it; the asserts rule that out at compile time.
 */
#define SIWL_DRV_CMD(name, core_t, drv_t)				\
	struct name {							\
		struct core_t ibv;					\
		struct drv_t drv;					\
	};								\
	_Static_assert(offsetof(struct name, drv) ==			\
		       sizeof(struct core_t),				\
		       "padding before driver part of " #name);		\
	_Static_assert(sizeof(struct name) ==				\
		       sizeof(struct core_t) + sizeof(struct drv_t),	\
		       "padding after driver part of " #name)

#define SIWL_DRV_RESP(name, core_t, drv_t) SIWL_DRV_CMD(name, core_t, drv_t)

SIWL_DRV_RESP(siwl_alloc_ctx_resp, ib_uverbs_get_context_resp,
	      siw_lite_uresp_alloc_ctx);

/* Creation with shared rings (SIW_LITE_USE_RING). */
SIWL_DRV_CMD(siwl_create_cq_cmd, pabi34_cmd_create_cq,
	     siw_lite_ureq_create_cq);
SIWL_DRV_RESP(siwl_create_cq_resp, ib_uverbs_create_cq_resp,
	      siw_lite_uresp_create_cq);
SIWL_DRV_CMD(siwl_create_qp_cmd, pabi34_cmd_create_qp,
	     siw_lite_ureq_create_qp);
SIWL_DRV_RESP(siwl_create_qp_resp, ib_uverbs_create_qp_resp,
	      siw_lite_uresp_create_qp);
SIWL_DRV_CMD(siwl_create_srq_cmd, pabi34_cmd_create_srq,
	     siw_lite_ureq_create_srq);
SIWL_DRV_RESP(siwl_create_srq_resp, ib_uverbs_create_srq_resp,
	      siw_lite_uresp_create_srq);

/* The sizes the kernel sees; a change here is an ABI change. */
_Static_assert(sizeof(struct siwl_create_cq_cmd) == 48, "create_cq cmd");
_Static_assert(sizeof(struct siwl_create_cq_resp) == 24, "create_cq resp");
_Static_assert(sizeof(struct siwl_create_qp_cmd) == 72, "create_qp cmd");
_Static_assert(sizeof(struct siwl_create_qp_resp) == 72, "create_qp resp");
_Static_assert(sizeof(struct siwl_create_srq_cmd) == 48, "create_srq cmd");
_Static_assert(sizeof(struct siwl_create_srq_resp) == 32,
	       "create_srq resp");

/* The shared ring layout both sides compute offsets from. */
_Static_assert(sizeof(struct siw_lite_ring) <= SIW_LITE_RING_ENTRIES,
	       "ring header overlaps entry 0");
_Static_assert(offsetof(struct siw_lite_ring, cons) == 64 &&
	       offsetof(struct siw_lite_ring, flags) == 128,
	       "ring header layout");
_Static_assert(sizeof(struct siw_lite_sqe) == 128, "SQE size");
_Static_assert(sizeof(struct siw_lite_rqe) == 112, "RQE size");
_Static_assert(sizeof(struct siw_lite_cqe) == 32, "CQE size");

struct siwl_device {
	struct verbs_device vdev;
};

struct siwl_context {
	struct verbs_context vctx;
	uint32_t max_inline;		/* from the kernel at alloc time */
	uint64_t caps;			/* enum siw_lite_caps */
	/* new CQs, QPs and SRQs ask for shared rings (see dp_ring.c) */
	bool rings;
};

struct siwl_pd {
	struct ibv_pd ibv_pd;
};

struct siwl_mr {
	struct verbs_mr vmr;
};

struct siwl_cq;
struct siwl_qp;
struct siwl_srq;

/*
 * How an object moves work requests and completions between user space
 * and the kernel: its data-path backend, chosen when the object is
 * created and fixed for its lifetime.  Today every object uses the uverbs
 * command backend (dp_cmd.c: one write() per post/poll/arm).  A shared
 * ring backend replaces these entry points object by object once the
 * kernel offers rings (announced through siw_lite_caps), without touching
 * the verbs front ends in cq.c, qp.c and srq.c, which do the checks that
 * are the same for every backend.
 *
 * post_* stop at the first WR that fails siwl_check_*_wr() or that the
 * kernel refuses, post everything before it, and point *bad_wr at it.
 * Return values follow libibverbs: post_* and req_notify_cq return 0 or
 * a positive errno, poll_cq the number of completions or -1 with errno.
 */
struct siwl_dp_ops {
	const char *name;
	int (*post_send)(struct siwl_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_recv)(struct siwl_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_srq_recv)(struct siwl_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*poll_cq)(struct siwl_cq *cq, int ne, struct ibv_wc *wc);
	int (*req_notify_cq)(struct siwl_cq *cq, int solicited_only);
};

/* dp_cmd.c */
extern const struct siwl_dp_ops siwl_dp_cmd;
/* dp_ring.c */
extern const struct siwl_dp_ops siwl_dp_ring;

/*
 * One ring shared with the kernel (see siw_lite-abi.h).  @idx is our own
 * copy of the index we own (prod of SQ/RQ/SRQ, cons of a CQ): we publish
 * it but never read it back, so a scribble on the shared copy cannot
 * make us overwrite entries the kernel has not consumed.
 */
struct siwl_ring {
	struct siw_lite_ring *hdr;	/* the mapping; NULL: no ring */
	unsigned char *entries;
	size_t map_size;
	uint32_t num;			/* entries, a power of two */
	uint32_t limit;			/* at most this many outstanding */
	uint32_t esize;			/* bytes per entry */
	uint32_t idx;
	pthread_spinlock_t lock;
};

struct siwl_cq {
	struct ibv_cq ibv_cq;
	const struct siwl_dp_ops *dp;
	struct siwl_ring ring;
};

struct siwl_qp {
	/*
	 * libibverbs may read struct verbs_qp fields past our ibv_qp (see
	 * PABI34_VERBS_QP_ROOM); the room is zeroed and never written.
	 */
	union {
		struct ibv_qp ibv_qp;
		unsigned char verbs_qp_room[PABI34_VERBS_QP_ROOM];
	};
	const struct siwl_dp_ops *dp;
	/* What the kernel granted at create time (create_qp's attr->cap). */
	struct ibv_qp_cap cap;
	bool sig_all;
	struct siwl_ring sq, rq;	/* rq unused with an SRQ */
};

struct siwl_srq {
	struct ibv_srq ibv_srq;
	const struct siwl_dp_ops *dp;
	uint32_t max_sge;		/* granted at create time */
	uint32_t max_wr;
	struct siwl_ring ring;
};

static inline struct siwl_device *to_siwl_dev(struct ibv_device *ibdev)
{
	return siwl_container_of(ibdev, struct siwl_device, vdev.device);
}

static inline struct siwl_context *to_siwl_ctx(struct ibv_context *ibctx)
{
	return siwl_container_of(ibctx, struct siwl_context, vctx.context);
}

static inline struct siwl_pd *to_siwl_pd(struct ibv_pd *ibpd)
{
	return siwl_container_of(ibpd, struct siwl_pd, ibv_pd);
}

static inline struct siwl_mr *to_siwl_mr(struct verbs_mr *vmr)
{
	return siwl_container_of(vmr, struct siwl_mr, vmr);
}

static inline struct siwl_cq *to_siwl_cq(struct ibv_cq *ibcq)
{
	return siwl_container_of(ibcq, struct siwl_cq, ibv_cq);
}

static inline struct siwl_qp *to_siwl_qp(struct ibv_qp *ibqp)
{
	return siwl_container_of(ibqp, struct siwl_qp, ibv_qp);
}

static inline struct siwl_srq *to_siwl_srq(struct ibv_srq *ibsrq)
{
	return siwl_container_of(ibsrq, struct siwl_srq, ibv_srq);
}

/*
 * Goes to VERBS_LOG_FILE when VERBS_LOG_LEVEL asks for it; libibverbs
 * preserves errno across the call.
 */
#define siwl_log(ibctx, level, fmt, ...)				\
	__verbs_log(&to_siwl_ctx(ibctx)->vctx, (level),			\
		    "siw_lite: %s: %s: " fmt,				\
		    (ibctx)->device->name, __func__, ##__VA_ARGS__)
#define siwl_err(ibctx, fmt, ...)					\
	siwl_log(ibctx, PABI34_LOG_ERR, fmt, ##__VA_ARGS__)
#define siwl_dbg(ibctx, fmt, ...)					\
	siwl_log(ibctx, PABI34_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* verbs.c: control-path verbs that are plain uverbs commands. */
int siwl_query_device_ex(struct ibv_context *ibctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int siwl_query_port(struct ibv_context *ibctx, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *siwl_alloc_pd(struct ibv_context *ibctx);
int siwl_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_mr *siwl_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int siwl_dereg_mr(struct verbs_mr *vmr);

/*
 * The backend an object starts with (see struct siwl_dp_ops): the command
 * one; siwl_ring_attach_*() switches it to the ring backend once its
 * rings are mapped.
 */
const struct siwl_dp_ops *siwl_ctx_dp(struct siwl_context *ctx);

/*
 * dp_ring.c: map the rings the kernel described in a create response and
 * switch the object to the ring backend; 0 or a positive errno (the
 * caller then destroys the kernel object).  A response that describes no
 * ring (0 entries) leaves the object on the command backend.  _detach
 * unmaps; call it once the kernel object is gone.
 */
int siwl_ring_attach_cq(struct siwl_cq *cq,
			const struct siw_lite_uresp_create_cq *resp);
void siwl_ring_detach_cq(struct siwl_cq *cq);
int siwl_ring_attach_qp(struct siwl_qp *qp,
			const struct siw_lite_uresp_create_qp *resp);
void siwl_ring_detach_qp(struct siwl_qp *qp);
int siwl_ring_attach_srq(struct siwl_srq *srq,
			 const struct siw_lite_uresp_create_srq *resp);
void siwl_ring_detach_srq(struct siwl_srq *srq);

/* cq.c */
struct ibv_cq *siwl_create_cq(struct ibv_context *ibctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
int siwl_destroy_cq(struct ibv_cq *ibcq);
int siwl_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int siwl_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);

/* qp.c */
struct ibv_qp *siwl_create_qp(struct ibv_pd *ibpd,
			      struct ibv_qp_init_attr *attr);
int siwl_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int siwl_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int siwl_destroy_qp(struct ibv_qp *ibqp);
int siwl_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int siwl_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
/* Backend-independent WR checks: 0 or EINVAL. */
int siwl_check_send_wr(const struct siwl_qp *qp,
		       const struct ibv_send_wr *wr);
int siwl_check_recv_wr(uint32_t max_sge, const struct ibv_recv_wr *wr);

/* srq.c */
struct ibv_srq *siwl_create_srq(struct ibv_pd *ibpd,
				struct ibv_srq_init_attr *attr);
int siwl_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int siwl_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int siwl_destroy_srq(struct ibv_srq *ibsrq);
int siwl_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

#endif /* SIW_LITE_PROVIDER_H */
