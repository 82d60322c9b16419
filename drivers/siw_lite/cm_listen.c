// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: listeners, the passive half of the iw_cm provider side below
 * the verbs (cm.c calls in for create_listen and destroy_listen).
 *
 * rdma_cm puts one iw_cm_id per device on a wildcard address, and every
 * RDMA device in the namespace gets one for the same address and port:
 * ours, and any other iWARP device's (the in-tree siw, a hardware RNIC),
 * each opening a listening socket of its own. Each of ours is bound to its
 * device's netdev (SO_BINDTODEVICE), as siw binds its own: TCP then keeps
 * them apart by device instead of refusing the second bind, and a
 * listener sees only connections to addresses of its own netdev. So
 * there is one kernel listening socket (struct siwl_lsock) per namespace,
 * address, port and netdev, created with the first listening id (struct
 * siwl_lep) and closed with the last; the same holds for a specific
 * address, which only its own device serves. The listener hands an
 * accepted socket to cm.c (siwl_passive_start()), whose CEP reads the MPA
 * Request and reports CONNECT_REQUEST on the lep's id.
 *
 * The listening socket's data-ready callback may run in softirq context
 * and only queues the listener's accept work on the CM work queue;
 * accepting, creating and closing happen in process context.
 *
 * siwl_listen_lock may be taken under a CEP's mutex (a CEP giving back its
 * place in the backlog, or reporting CONNECT_REQUEST), never the other way
 * round: the accept work drops it before it hands a connection to cm.c.
 * Closing a listening socket waits for its accept work, which takes the
 * lock: it is done without it, unless the socket never listened.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <rdma/iw_cm.h>

#include "cm.h"
#include "cm_internal.h"
#include "cm_listen.h"
#include "cm_sock.h"
#include "siw_lite.h"

/* Connections taken per run of a listener's work before yielding. */
#define SIWL_ACCEPT_BATCH		16

/* One kernel listening socket: its device's iw_cm_ids on one address. */
struct siwl_lsock {
	struct kref ref;		/* siwl_lsocks entry, pending CEPs */
	struct list_head list;		/* in siwl_lsocks */
	struct list_head leps;		/* struct siwl_lep.entry */
	struct socket *sock;
	struct sockaddr_storage addr;	/* as bound, the lookup key ... */
	int ifindex;			/* ... with its netdev's index */
	bool afonly;
	bool dead;			/* off siwl_lsocks: stop accepting */
	int backlog;
	/*
	 * Accepted connections the ULP has not answered yet (waiting for
	 * their MPA Request, or for accept/reject): at most backlog.
	 */
	unsigned int pending;
	void (*saved_data_ready)(struct sock *sk);
	struct work_struct accept_work;
};

/* A listening iw_cm_id; its provider_data. */
struct siwl_lep {
	struct kref ref;		/* the listening id, pending CEPs */
	struct list_head entry;		/* in ls->leps */
	struct siwl_lsock *ls;		/* NULL once destroy_listen ran */
	struct iw_cm_id *cm_id;		/* with a reference of ours */
	struct siwl_device *sdev;
};

static LIST_HEAD(siwl_lsocks);
/* siwl_lsocks, each lsock's leps, pending and dead, and each lep->ls. */
static DEFINE_MUTEX(siwl_listen_lock);

/* ---- references ------------------------------------------------------- */

static void siwl_lsock_free(struct kref *ref)
{
	kfree(container_of(ref, struct siwl_lsock, ref));
}

static void siwl_lep_free(struct kref *ref)
{
	struct siwl_lep *lep = container_of(ref, struct siwl_lep, ref);

	lep->cm_id->rem_ref(lep->cm_id);
	kfree(lep);
}

void siwl_lep_put(struct siwl_lep *lep)
{
	kref_put(&lep->ref, siwl_lep_free);
}

/* The ULP answered (or the CEP is gone): make room for another. */
void siwl_lsock_unpend(struct siwl_lsock *ls)
{
	mutex_lock(&siwl_listen_lock);
	ls->pending--;
	if (!ls->dead)
		queue_work(siwl_cm_wq, &ls->accept_work);
	mutex_unlock(&siwl_listen_lock);
	kref_put(&ls->ref, siwl_lsock_free);
}

struct iw_cm_id *siwl_lep_lock(struct siwl_lep *lep)
{
	mutex_lock(&siwl_listen_lock);
	return lep->ls ? lep->cm_id : NULL;
}

void siwl_lep_unlock(void)
{
	mutex_unlock(&siwl_listen_lock);
}

/* ---- accepting -------------------------------------------------------- */

static void siwl_lsk_data_ready(struct sock *sk)
{
	struct siwl_lsock *ls;

	read_lock_bh(&sk->sk_callback_lock);
	ls = sk->sk_user_data;
	/*
	 * Accepted sockets start as clones of the listener, callbacks and
	 * sk_user_data included, until we install our own: ignore them.
	 */
	if (ls && READ_ONCE(sk->sk_state) == TCP_LISTEN)
		queue_work(siwl_cm_wq, &ls->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Return: whether a connection was taken. */
static bool siwl_lsock_accept_one(struct siwl_lsock *ls)
{
	struct siwl_lep *lep;
	struct socket *sock;
	struct siwl_cep *cep;
	int rv;

	/* Before accepting: a connection we cannot hold stays queued. */
	cep = siwl_cep_alloc(false);
	if (!cep)
		return false;

	mutex_lock(&siwl_listen_lock);
	/*
	 * Past the limit, connections wait in the TCP accept queue (and
	 * beyond it SYNs are dropped) until a pending CEP makes room.
	 */
	if (ls->dead || ls->pending >= ls->backlog) {
		mutex_unlock(&siwl_listen_lock);
		siwl_cep_put(cep);
		return false;
	}
	rv = kernel_accept(ls->sock, &sock, O_NONBLOCK);
	if (rv) {
		mutex_unlock(&siwl_listen_lock);
		if (rv != -EAGAIN)
			pr_debug("accept on %pISpc: %d\n", &ls->addr, rv);
		siwl_cep_put(cep);
		return false;
	}
	/* One netdev, one device: rdma_cm lists nothing else here. */
	lep = list_first_entry(&ls->leps, struct siwl_lep, entry);
	kref_get(&lep->ref);
	kref_get(&ls->ref);
	ls->pending++;
	/* Under the lock: only a listed lep's device is sure to exist. */
	pr_debug("cep %p: accepted on %pISpc for %s\n", cep, &ls->addr,
		 dev_name(&lep->sdev->ibdev.dev));
	mutex_unlock(&siwl_listen_lock);

	siwl_passive_start(cep, sock, lep, ls, ls->saved_data_ready);
	return true;
}

static void siwl_lsock_accept_work(struct work_struct *work)
{
	struct siwl_lsock *ls = container_of(work, struct siwl_lsock,
					     accept_work);
	int n;

	for (n = 0; n < SIWL_ACCEPT_BATCH; n++)
		if (!siwl_lsock_accept_one(ls))
			return;
	/* Let the CEPs we just queued run before taking more. */
	mutex_lock(&siwl_listen_lock);
	if (!ls->dead)
		queue_work(siwl_cm_wq, &ls->accept_work);
	mutex_unlock(&siwl_listen_lock);
}

/* ---- listening sockets ------------------------------------------------ */

static struct siwl_lsock *siwl_lsock_find(struct net *net,
					  const struct sockaddr_storage *addr,
					  int ifindex, bool afonly)
{
	struct siwl_lsock *ls;

	lockdep_assert_held(&siwl_listen_lock);
	list_for_each_entry(ls, &siwl_lsocks, list) {
		if (net_eq(sock_net(ls->sock->sk), net) &&
		    ls->ifindex == ifindex &&
		    siwl_addr_equal(&ls->addr, addr) &&
		    (addr->ss_family == AF_INET || ls->afonly == afonly))
			return ls;
	}
	return NULL;
}

/* Detaches and closes the listening socket; queued connections get RST. */
static void siwl_lsock_close(struct siwl_lsock *ls)
{
	struct sock *sk = ls->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = ls->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&ls->accept_work);
	sock_release(ls->sock);
	ls->sock = NULL;
}

static struct siwl_lsock *siwl_lsock_create(struct siwl_device *sdev,
					    const struct sockaddr_storage *addr,
					    int ifindex, bool afonly,
					    int backlog)
{
	struct siwl_lsock *ls;
	struct socket *sock;
	struct sock *sk;
	int rv;

	ls = kzalloc(sizeof(*ls), GFP_KERNEL);
	if (!ls)
		return ERR_PTR(-ENOMEM);
	kref_init(&ls->ref);
	INIT_LIST_HEAD(&ls->leps);
	INIT_WORK(&ls->accept_work, siwl_lsock_accept_work);
	ls->addr = *addr;
	ls->ifindex = ifindex;
	ls->afonly = afonly;
	ls->backlog = backlog;

	rv = siwl_sock_create(sdev, addr->ss_family, &sock);
	if (rv)
		goto err_free;
	sk = sock->sk;
	/* Restarting a listener must not wait for TIME_WAIT to drain. */
	sock_set_reuseaddr(sk);
	/* Inherited by accepted sockets. */
	tcp_sock_set_nodelay(sk);
	if (addr->ss_family == AF_INET6)
		siwl_sock_set_v6only(sk, afonly);
	rv = sock_bindtoindex(sk, ifindex, true);
	if (!rv)
		rv = siwl_sock_bind(sock, addr);
	if (rv) {
		sock_release(sock);
		goto err_free;
	}

	write_lock_bh(&sk->sk_callback_lock);
	ls->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = ls;
	sk->sk_data_ready = siwl_lsk_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	ls->sock = sock;

	rv = kernel_listen(sock, backlog);
	if (rv) {
		siwl_lsock_close(ls);
		goto err_free;
	}
	return ls;

err_free:
	kfree(ls);
	return ERR_PTR(rv);
}

/* ---- listening ids ---------------------------------------------------- */

struct siwl_lep *siwl_listen_create(struct iw_cm_id *id, int backlog)
{
	struct sockaddr_storage *addr = &id->m_local_addr;
	struct siwl_device *sdev = to_siwl_dev(id->device);
	struct siwl_lsock *ls;
	struct siwl_lep *lep;
	struct net *net;
	int ifindex;
	int rv = 0;

	net = siwl_dev_net_get(sdev, &ifindex);
	if (!net)
		return ERR_PTR(-ENODEV);
	lep = kzalloc(sizeof(*lep), GFP_KERNEL);
	if (!lep) {
		put_net(net);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&lep->ref);
	lep->sdev = sdev;

	mutex_lock(&siwl_listen_lock);
	ls = siwl_lsock_find(net, addr, ifindex, id->afonly);
	if (!ls) {
		ls = siwl_lsock_create(sdev, addr, ifindex, id->afonly,
				       backlog);
		if (IS_ERR(ls)) {
			rv = PTR_ERR(ls);
			goto out;
		}
		list_add_tail(&ls->list, &siwl_lsocks);
	} else if (backlog > ls->backlog &&
		   !kernel_listen(ls->sock, backlog)) {
		ls->backlog = backlog;
	}
	id->add_ref(id);
	lep->cm_id = id;
	lep->ls = ls;
	list_add_tail(&lep->entry, &ls->leps);
	pr_debug("%s: listening on %pISpc\n", dev_name(&sdev->ibdev.dev),
		 addr);
out:
	mutex_unlock(&siwl_listen_lock);
	put_net(net);
	if (rv) {
		pr_debug("%s: cannot listen on %pISpc: %d\n",
			 dev_name(&sdev->ibdev.dev), addr, rv);
		kfree(lep);
		return ERR_PTR(rv);
	}
	return lep;
}

void siwl_listen_destroy(struct siwl_lep *lep)
{
	struct siwl_lsock *ls;
	bool last;

	mutex_lock(&siwl_listen_lock);
	ls = lep->ls;
	lep->ls = NULL;
	list_del_init(&lep->entry);
	last = ls && list_empty(&ls->leps);
	if (last) {
		ls->dead = true;
		list_del(&ls->list);
	}
	mutex_unlock(&siwl_listen_lock);

	if (last) {
		siwl_lsock_close(ls);
		kref_put(&ls->ref, siwl_lsock_free);
	}
	/*
	 * Connections still reading their Request keep the lep, and so the
	 * id, until they find it no longer listening.
	 */
	siwl_lep_put(lep);
}

/* Called once every device is gone, hence every iw_cm_id of ours. */
void siwl_listen_exit(void)
{
	struct siwl_lsock *ls, *tmp;
	struct siwl_lep *lep, *ltmp;

	/* iw_cm destroys listeners with their device; be safe if not. */
	mutex_lock(&siwl_listen_lock);
	list_for_each_entry_safe(ls, tmp, &siwl_lsocks, list) {
		WARN_ONCE(1, "listener on %pISpc left at unload\n", &ls->addr);
		ls->dead = true;
		list_del(&ls->list);
		list_for_each_entry_safe(lep, ltmp, &ls->leps, entry) {
			lep->ls = NULL;
			list_del_init(&lep->entry);
		}
		mutex_unlock(&siwl_listen_lock);
		siwl_lsock_close(ls);
		kref_put(&ls->ref, siwl_lsock_free);
		mutex_lock(&siwl_listen_lock);
	}
	mutex_unlock(&siwl_listen_lock);
}
