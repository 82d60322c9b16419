// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: socket and address helpers of the connection manager.
 *
 * The plumbing under cm.c (connection endpoints) and cm_listen.c
 * (listeners), just above the kernel's TCP sockets: socket addresses
 * (length, wildcard, comparison, IPv4-mapped to IPv4, owning netdev) and
 * kernel sockets (created in the device's network namespace and pinning
 * it, options, bind, connect). Nothing here knows of CEPs, listeners or
 * iw_cm, and nothing takes a lock of the connection manager.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fcntl.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/socket.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "cm_sock.h"
#include "siw_lite.h"

/* ---- addresses -------------------------------------------------------- */

static int siwl_addr_len(sa_family_t family)
{
	return family == AF_INET ? sizeof(struct sockaddr_in) :
				   sizeof(struct sockaddr_in6);
}

bool siwl_addr_any(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return s4->sin_addr.s_addr == htonl(INADDR_ANY);
	return ipv6_addr_any(&s6->sin6_addr);
}

__be16 siwl_addr_port(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	return ss->ss_family == AF_INET ? s4->sin_port : s6->sin6_port;
}

bool siwl_addr_equal(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;

	if (a->ss_family != b->ss_family ||
	    siwl_addr_port(a) != siwl_addr_port(b))
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
	       a6->sin6_scope_id == b6->sin6_scope_id;
}

/*
 * A dual-stack listener sees IPv4 peers as ::ffff:a.b.c.d. rdma_cm looks
 * the device up by the connection's addresses and knows nothing of mapped
 * ones, so report them as the IPv4 addresses they are.
 */
void siwl_addr_unmap(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	__be32 addr;
	__be16 port;

	if (ss->ss_family != AF_INET6 || !ipv6_addr_v4mapped(&s6->sin6_addr))
		return;
	addr = s6->sin6_addr.s6_addr32[3];
	port = s6->sin6_port;
	memset(ss, 0, sizeof(*ss));
	s4->sin_family = AF_INET;
	s4->sin_port = port;
	s4->sin_addr.s_addr = addr;
}

/* ---- sockets ---------------------------------------------------------- */

/*
 * iw_cm_id carries no network namespace: rdma_cm keeps it in its private
 * context. The addresses a ULP hands us were resolved against the netdev
 * behind our device, so that netdev's namespace is where they live and
 * where the sockets belong.
 */
struct net *siwl_dev_net_get(struct siwl_device *sdev, int *ifindex)
{
	struct net_device *netdev = siwl_netdev_get(sdev);
	struct net *net;

	if (!netdev)
		return NULL;
	net = maybe_get_net(dev_net(netdev));
	if (ifindex)
		*ifindex = netdev->ifindex;
	dev_put(netdev);
	return net;
}

/*
 * A kernel socket does not pin its network namespace, yet a TCP connection
 * lives on after sock_release() (FIN_WAIT, retransmissions) and would then
 * run its timers in a namespace that may be gone. Make ours count like a
 * user's socket: the namespace now stays until the sock itself is freed,
 * whose teardown drops exactly this reference and in-use count. Accepted
 * sockets inherit it from the listener.
 */
static void siwl_sock_hold_net(struct sock *sk)
{
	struct net *net = sock_net(sk);

	sk->sk_net_refcnt = 1;
	get_net_track(net, &sk->ns_tracker, GFP_KERNEL);
	sock_inuse_add(net, 1);
}

int siwl_sock_create(struct siwl_device *sdev, sa_family_t family,
		     struct socket **res)
{
	struct net *net = siwl_dev_net_get(sdev, NULL);
	int rv;

	if (!net)
		return -ENODEV;
	rv = sock_create_kern(net, family, SOCK_STREAM, IPPROTO_TCP, res);
	if (!rv)
		siwl_sock_hold_net((*res)->sk);
	put_net(net);
	return rv;
}

void siwl_sock_set_v6only(struct sock *sk, bool on)
{
	lock_sock(sk);
	sk->sk_ipv6only = on;
	release_sock(sk);
}

int siwl_sock_bind(struct socket *sock, const struct sockaddr_storage *addr)
{
	return kernel_bind(sock, (struct sockaddr *)addr,
			   siwl_addr_len(addr->ss_family));
}

int siwl_sock_connect(struct socket *sock,
		      const struct sockaddr_storage *addr)
{
	return kernel_connect(sock, (struct sockaddr *)addr,
			      siwl_addr_len(addr->ss_family), O_NONBLOCK);
}
