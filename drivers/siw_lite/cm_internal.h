/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: what cm.c (connection endpoints, the iw_cm verbs) gives the
 * listeners of cm_listen.c; cm_listen.h is the other direction, cm_sock.h
 * the socket and address helpers both use. The rest of the driver sees
 * cm.h.
 *
 * Between cm.c and cm_listen.c: cm.c creates and destroys listeners and
 * gives back what a passive CEP holds of one; a listener allocates a CEP
 * before it accepts, hands it the new socket (siwl_passive_start()) and
 * runs its work on the CM work queue. Both use cm_sock.c, which uses
 * neither.
 */
#ifndef SIWL_CM_INTERNAL_H
#define SIWL_CM_INTERNAL_H

#include <linux/types.h>

struct sock;
struct socket;
struct workqueue_struct;
struct siwl_cep;
struct siwl_lep;
struct siwl_lsock;

/* Ordered; runs every CEP's and every listener's work. */
extern struct workqueue_struct *siwl_cm_wq;

struct siwl_cep *siwl_cep_alloc(bool active);
/*
 * A listener accepted @sock for @cep (from siwl_cep_alloc(false)) and
 * took a reference on @lep and a backlog place on @ls, which the CEP now
 * owns. @orig_data_ready: the listening socket's own callback.
 */
void siwl_passive_start(struct siwl_cep *cep, struct socket *sock,
			struct siwl_lep *lep, struct siwl_lsock *ls,
			void (*orig_data_ready)(struct sock *sk));

#endif /* SIWL_CM_INTERNAL_H */
