/* SPDX-License-Identifier: GPL-2.0 */
/* siw_lite: driver attributes for "rdma resource show ... -dd". */
#ifndef SIWL_RESTRACK_H
#define SIWL_RESTRACK_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

int siwl_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int siwl_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int siwl_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);

#endif /* SIWL_RESTRACK_H */
