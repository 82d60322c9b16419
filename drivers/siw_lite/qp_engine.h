/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: the QP engine (qp_engine.c), the layer below the verbs and
 * the data path: QP state changes on errors, completions, flushing, the
 * QP work queue, receive WQE conversion and the user ring primitives.
 * What tx.c, rx.c, srq.c, zcopy.c, qp_uring.c and qp.c call into; it
 * calls nothing above it. The connection manager reaches it only through
 * the siwl_llp_ops it registers.
 */
#ifndef SIWL_QP_ENGINE_H
#define SIWL_QP_ENGINE_H

#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw_lite-abi.h>

#include "iwarp.h"
#include "qp_obj.h"
#include "wqe.h"

struct siwl_cep;

/*
 * The connection manager as the QP sees it: closing the connection of a
 * CEP and the references a QP holds on its CEP while bound to it (one
 * taken in siwl_qp_llp_up(), dropped once the QP is done with the CEP).
 * cm.c registers its implementation once, in siwl_cm_init(), before any
 * QP can be bound; the QP code calls it only through siwl_llp_close(),
 * siwl_llp_cep_get() and siwl_llp_cep_put(), so that nothing below the
 * connection manager calls up into it. Semantics: cm.h.
 */
struct siwl_llp_ops {
	void (*close)(struct siwl_cep *cep, bool abortive);
	void (*get)(struct siwl_cep *cep);
	void (*put)(struct siwl_cep *cep);
};

void siwl_llp_register(const struct siwl_llp_ops *ops);
void siwl_llp_close(struct siwl_cep *cep, bool abortive);
void siwl_llp_cep_get(struct siwl_cep *cep);
void siwl_llp_cep_put(struct siwl_cep *cep);

/* Module-wide work queue for QP transmit/flush work (module init/exit). */
int siwl_qp_init_module(void);
void siwl_qp_exit_module(void);

extern struct workqueue_struct *siwl_qp_wq;
extern const struct iw_term siwl_term_local;

static inline struct siwl_sqe *siwl_sq_slot(struct siwl_qp *qp, u32 pos)
{
	return &qp->sq[pos % qp->sq_size];
}

void siwl_qp_kick(struct siwl_qp *qp);
void siwl_queue_elsewhere(struct work_struct *work);
void siwl_qp_reap_locked(struct siwl_qp *qp);
/* Completions: a send WQE under qp->lock, a receive WQE under rq_lock. */
void siwl_sq_push(struct siwl_qp *qp, const struct siwl_sqe *sqe);
void siwl_rq_push(struct siwl_qp *qp, const struct siwl_rqe *rqe,
		  enum ib_wc_status status);
void siwl_qp_fail_locked(struct siwl_qp *qp, const struct iw_term *term,
			 const void *bad, u32 bad_len, u16 bad_seg_len);
void siwl_qp_error_locked(struct siwl_qp *qp, bool abortive);
void siwl_qp_flush(struct siwl_qp *qp);
void siwl_qp_sync(struct siwl_qp *qp);
/* Work functions of a QP's event_work and term_work (create_qp). */
void siwl_qp_event_work(struct work_struct *work);
void siwl_qp_term_work(struct work_struct *work);

/*
 * Copies @num_sge (bounds-checked) SGEs; returns their byte count. Inline:
 * ib_post_send() copies every WR's SGEs with it.
 */
static inline u64 siwl_copy_sges(struct siwl_sge *dst,
				 const struct ib_sge *src, int num_sge)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
		sum += src[i].length;
	}
	return sum;
}

/* Checks and copies a receive WR (ib_post_recv, ib_post_srq_recv). */
int siwl_build_rqe(u32 max_sge, const struct ib_recv_wr *wr,
		   struct siwl_rqe *rqe);
/* A private copy of a user receive WQE to a kernel one; false if bad. */
bool siwl_urqe_to_rqe(const struct siw_lite_rqe *u, u32 max_sge,
		      struct siwl_rqe *rqe);

/* A user QP's rings, as the engine and the data path use them. */
/* WQEs one fetch takes from a user send ring at most (8 KiB). */
#define SIWL_USQ_BATCH	64
u32 siwl_usq_fetch_locked(struct siwl_qp *qp);
bool siwl_usq_refill_locked(struct siwl_qp *qp);
void siwl_usq_publish_locked(struct siwl_qp *qp);
int siwl_urq_take_locked(struct siwl_qp *qp, struct siwl_rqe *rqe);
void siwl_urq_flush_locked(struct siwl_qp *qp, bool discard);

#endif /* SIWL_QP_ENGINE_H */
