/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: a user QP's send and receive rings (qp_uring.c), as the QP
 * and the data path use them.
 */
#ifndef SIWL_QP_URING_H
#define SIWL_QP_URING_H

#include <linux/types.h>
#include <rdma/siw_lite-abi.h>

#include "wqe.h"

struct ib_udata;
struct siwl_qp;

int siwl_qp_uring_create(struct siwl_qp *qp, struct ib_udata *udata);
void siwl_qp_uring_destroy(struct siwl_qp *qp);
/* WQEs one fetch takes from a user send ring at most (8 KiB). */
#define SIWL_USQ_BATCH	64
u32 siwl_usq_fetch_locked(struct siwl_qp *qp);
bool siwl_usq_refill_locked(struct siwl_qp *qp);
void siwl_usq_doorbell(struct siwl_qp *qp);
void siwl_usq_publish_locked(struct siwl_qp *qp);
int siwl_urq_take_locked(struct siwl_qp *qp, struct siwl_rqe *rqe);
/* A private copy of a user receive WQE to a kernel one; false if bad. */
bool siwl_urqe_to_rqe(const struct siw_lite_rqe *u, u32 max_sge,
		      struct siwl_rqe *rqe);
void siwl_urq_flush_locked(struct siwl_qp *qp, bool discard);
void siwl_uring_reset(struct siwl_qp *qp);

#endif /* SIWL_QP_URING_H */
