/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: a user QP's send and receive rings (qp_uring.c), the verbs
 * side; the primitives the data path uses are in qp_engine.h.
 */
#ifndef SIWL_QP_URING_H
#define SIWL_QP_URING_H

#include <linux/types.h>

struct ib_udata;
struct siwl_qp;

int siwl_qp_uring_create(struct siwl_qp *qp, struct ib_udata *udata);
void siwl_qp_uring_destroy(struct siwl_qp *qp);
void siwl_usq_doorbell(struct siwl_qp *qp);
void siwl_uring_reset(struct siwl_qp *qp);

#endif /* SIWL_QP_URING_H */
