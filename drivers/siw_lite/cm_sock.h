/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: addresses and kernel TCP sockets for the connection manager
 * (cm_sock.c), used by cm.c and cm_listen.c; it uses neither.
 */
#ifndef SIWL_CM_SOCK_H
#define SIWL_CM_SOCK_H

#include <linux/socket.h>
#include <linux/types.h>

struct net;
struct sock;
struct socket;
struct siwl_device;

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

#endif /* SIWL_CM_SOCK_H */
