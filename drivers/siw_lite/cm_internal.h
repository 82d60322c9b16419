/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: what the connection manager's files share, and only they
 * include: cm.c (connection endpoints, the iw_cm verbs), cm_listen.c
 * (listeners) and cm_sock.c (socket and address helpers). The rest of the
 * driver sees cm.h.
 *
 * Between cm.c and cm_listen.c: cm.c creates and destroys listeners and
 * gives back what a passive CEP holds of one; a listener allocates a CEP
 * before it accepts, hands it the new socket (siwl_passive_start()) and
 * runs its work on the CM work queue. Both use cm_sock.c, which uses
 * neither.
 */
#ifndef SIWL_CM_INTERNAL_H
#define SIWL_CM_INTERNAL_H

#include <linux/socket.h>
#include <linux/types.h>
#include <rdma/iw_cm.h>

struct net;
struct net_device;
struct sock;
struct socket;
struct workqueue_struct;
struct siwl_cep;
struct siwl_device;
struct siwl_lep;
struct siwl_lsock;

/* ---- cm_sock.c: addresses and kernel sockets -------------------------- */

bool siwl_addr_any(const struct sockaddr_storage *ss);
__be16 siwl_addr_port(const struct sockaddr_storage *ss);
bool siwl_addr_equal(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b);
void siwl_addr_unmap(struct sockaddr_storage *ss);

/*
 * The network namespace of @sdev's netdev, held, and that netdev's index
 * in it (if @ifindex); NULL once the netdev is gone.
 */
struct net *siwl_dev_net_get(struct siwl_device *sdev, int *ifindex);
/* A TCP socket in that namespace, which it keeps alive. */
int siwl_sock_create(struct siwl_device *sdev, sa_family_t family,
		     struct socket **res);
void siwl_sock_set_v6only(struct sock *sk, bool on);
int siwl_sock_bind(struct socket *sock, const struct sockaddr_storage *addr);
/* Non-blocking: usually -EINPROGRESS, the outcome shows in sk_state. */
int siwl_sock_connect(struct socket *sock,
		      const struct sockaddr_storage *addr);

/* ---- cm_listen.c: listeners ------------------------------------------- */

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

/* ---- cm.c: connection endpoints --------------------------------------- */

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
