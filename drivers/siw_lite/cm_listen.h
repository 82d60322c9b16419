/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: listeners (cm_listen.c), as cm.c creates, destroys and
 * releases them. Only the connection manager's files include it.
 */
#ifndef SIWL_CM_LISTEN_H
#define SIWL_CM_LISTEN_H

#include <rdma/iw_cm.h>

struct siwl_lep;
struct siwl_lsock;

/*
 * siwl_listen_create: makes @id listen on its m_local_addr (a non-zero
 * port), on a listening socket of its own or one other devices share.
 * Returns the id's provider_data or an ERR_PTR(). It holds a reference on
 * @id until siwl_listen_destroy() has run and no passive CEP still waits
 * to report a CONNECT_REQUEST on it.
 */
struct siwl_lep *siwl_listen_create(struct iw_cm_id *id, int backlog);
void siwl_listen_destroy(struct siwl_lep *lep);
/* Module unload: closes listeners iw_cm has left behind. */
void siwl_listen_exit(void);

/*
 * What a passive CEP holds (siwl_passive_start() gives it both): its
 * listening id until CONNECT_REQUEST, and a place in its listening
 * socket's backlog until the ULP answers or the CEP is torn down.
 */
void siwl_lep_put(struct siwl_lep *lep);
void siwl_lsock_unpend(struct siwl_lsock *ls);

/*
 * Locks the listeners and returns @lep's listening cm_id, or NULL once
 * destroy_listen has run for it. Report a CONNECT_REQUEST to it before
 * siwl_lep_unlock(): once destroy_listen has returned, iw_cm must not see
 * another one on that id.
 */
struct iw_cm_id *siwl_lep_lock(struct siwl_lep *lep);
void siwl_lep_unlock(void);

#endif /* SIWL_CM_LISTEN_H */
