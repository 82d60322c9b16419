/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: queue pairs: their verbs (qp.c) and the entry points the
 * connection manager calls. The QP object is in qp_obj.h, the engine
 * below the verbs and the data path in qp_engine.h.
 */
#ifndef SIWL_QP_H
#define SIWL_QP_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "qp_obj.h"

struct siwl_cep;
struct sockaddr_storage;
struct socket;

/*
 * What MPA negotiated for a connection (RFC 5044 section 7.1, RFC 6581),
 * handed from the connection manager to the QP when it goes to RTS.
 */
struct siwl_conn_params {
	struct socket *sock;
	bool crc;		/* MPA CRC on both directions */
	bool initiator;		/* we sent the MPA request */
	u8 mpa_rev;		/* 1 or 2 */
	u32 ird;		/* inbound RDMA Reads we accept at once */
	u32 ord;		/* outbound RDMA Reads we may have in flight */
	/*
	 * RFC 6581 RTR: for the initiator, the zero-length message type to
	 * send first (MPA_RTR_* single bit, 0 for none); for the responder,
	 * the type to expect before the first ULP message (0 for none).
	 */
	u8 rtr;
};

/*
 * Entry points from the connection manager (cm.c) into the data path
 * (qp.c, tx.c, rx.c). The CEP owns the socket and its callbacks and calls
 * these; the QP never frees the socket.
 */

/*
 * MPA is done: binds @qp to @cep and @p->sock, moves it to RTS and starts
 * TX/RX. Returns 0, or a negative errno when the QP cannot go to RTS (not
 * in INIT/RTR, or IRD/ORD beyond what it was created for), in which case
 * the CEP aborts the connection.
 */
int siwl_qp_llp_up(struct siwl_qp *qp, struct siwl_cep *cep,
		   const struct siwl_conn_params *p);

/* sk_write_space of an RTS socket: TX may continue. Any context. */
void siwl_qp_tx_wakeup(struct siwl_qp *qp);

/*
 * The TCP connection is gone (FIN, RST or error): the QP goes to ERROR and
 * flushes its queues; it no longer touches the socket once this returns.
 * Process context.
 */
void siwl_qp_llp_down(struct siwl_qp *qp);

/*
 * The device's link went down (@addr NULL), or the local address @addr
 * went away: each QP connected over it moves to ERROR and resets its
 * connection, and its work item flushes the WRs with IB_WC_WR_FLUSH_ERR.
 * TCP would keep such a connection and retransmit into a path that is
 * gone; the consumer hears of it through the flush and the CM's close
 * instead. Process context or not, any lock but the QPs' own.
 */
void siwl_qp_path_lost(struct siwl_device *sdev,
		       const struct sockaddr_storage *addr);

/* QP references, as iw_cm's iw_add_ref / iw_rem_ref use them. */
void siwl_qp_get(struct siwl_qp *qp);
void siwl_qp_put(struct siwl_qp *qp);
struct siwl_qp *siwl_qp_from_id(struct siwl_device *sdev, u32 qpn);

/* Verbs. */
int siwl_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata);
int siwl_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int siwl_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int siwl_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int siwl_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int siwl_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
void siwl_iw_add_ref(struct ib_qp *qp);
void siwl_iw_rem_ref(struct ib_qp *qp);
struct ib_qp *siwl_iw_get_qp(struct ib_device *ibdev, int qpn);

/* Device QP table (qpn -> QP) set-up and teardown. */
void siwl_qp_table_init(struct siwl_device *sdev);
void siwl_qp_table_fini(struct siwl_device *sdev);

#endif /* SIWL_QP_H */
