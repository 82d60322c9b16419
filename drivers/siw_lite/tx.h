/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: the transmit side of a QP (tx.c). Its state, limits and the
 * Terminate it sends on the QP's behalf live in the QP object (qp_obj.h).
 */
#ifndef SIWL_TX_H
#define SIWL_TX_H

#include <linux/types.h>

struct siwl_qp;
struct work_struct;

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
