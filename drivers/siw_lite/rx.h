/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: the receive side of a QP (rx.c). Its reassembly state lives
 * in the QP object (qp_obj.h).
 */
#ifndef SIWL_RX_H
#define SIWL_RX_H

struct siwl_qp;
struct sock;
struct work_struct;

/*
 * Places what TCP has received: from sk_data_ready (BH context, socket
 * callback lock held), the RX worker and the CM's orderly close (process
 * context, socket lock held).
 */
void siwl_qp_rx(struct siwl_qp *qp, struct sock *sk);
void siwl_qp_data_ready(struct siwl_qp *qp, struct sock *sk);
/* After a process context held @sk (may sleep): reopen the rcv window. */
void siwl_rx_window_update(struct sock *sk);
void siwl_qp_rx_work(struct work_struct *work);
void siwl_qp_rqe_work(struct work_struct *work);
/* A receive WQE was posted: a Send waiting for one may go on. */
void siwl_rx_rqe_posted(struct siwl_qp *qp);
/* A new connection: receive state from scratch. */
void siwl_rx_reset(struct siwl_qp *qp);
/* Drops what RX still holds (an MR reference). */
void siwl_rx_release(struct siwl_qp *qp);

#endif /* SIWL_RX_H */
