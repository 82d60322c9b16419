/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: connection management, the iw_cm provider side: TCP
 * connect/listen/accept and the MPA request/reply exchange (RFC 5044
 * section 7, RFC 6581).
 */
#ifndef SIWL_CM_H
#define SIWL_CM_H

#include <rdma/iw_cm.h>

struct siwl_cep;

/* iw_cm verbs. */
int siwl_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siwl_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siwl_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len);
int siwl_iw_create_listen(struct iw_cm_id *id, int backlog);
int siwl_iw_destroy_listen(struct iw_cm_id *id);

/*
 * What the QP (qp.c, tx.c) asks of the connection manager. It does not
 * call these directly: siwl_cm_init() registers them as the engine's
 * siwl_llp_ops (qp_engine.h), which the QP calls. Both may be called from
 * any context; the CEP defers to its work queue.
 *
 * siwl_cm_close: the QP wants the connection closed. @abortive: reset
 * (after a Terminate was sent, or IB_QPS_ERR); otherwise a graceful close
 * (the QP is in CLOSING and its send queue drained): shutdown(SHUT_WR),
 * then wait for the peer's FIN. The CEP reports IW_CM_EVENT_DISCONNECT /
 * IW_CM_EVENT_CLOSE to iw_cm and calls siwl_qp_llp_down() once the
 * connection is gone.
 */
void siwl_cm_close(struct siwl_cep *cep, bool abortive);

/*
 * References the QP holds on its CEP while bound to it (take one in
 * siwl_qp_llp_up(), drop it once the QP is done with the CEP). Any
 * context: the last put only unlinks and frees memory.
 */
void siwl_cep_get(struct siwl_cep *cep);
void siwl_cep_put(struct siwl_cep *cep);

/*
 * Module-wide set-up (the CM work queue) and teardown. siwl_cm_init()
 * must run before the first device can exist; siwl_cm_exit() after the
 * last one is gone: it resets whatever connection is left, waits for the
 * sockets to be released and destroys the work queue.
 */
int siwl_cm_init(void);
void siwl_cm_exit(void);

#endif /* SIWL_CM_H */
