// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: connection management, the iw_cm provider side.
 *
 * Every TCP connection is owned by a connection endpoint (CEP) that runs
 * the MPA Request/Reply exchange (RFC 5044 section 7.1, RFC 6581) and then
 * hands the stream to the data path. Nothing here ever blocks on the
 * network: socket callbacks and the CEP timer only record an event bit and
 * queue the CEP's work item on one ordered work queue, which reads and
 * writes with MSG_DONTWAIT.
 *
 * Life cycle (timeouts in brackets):
 *
 *   active:  NEW -> CONNECTING [10 s] -> AWAIT_REPLY [30 s] -> RDMA
 *   passive: NEW -> AWAIT_REQUEST [10 s] -> AWAIT_ULP [60 s] -> RDMA
 *   both:    RDMA -> CLOSING [5 s] -> CLOSED, or straight to CLOSED
 *
 * State changes happen in process context under cep->mutex: in the work
 * item and in the iw_cm verbs. The socket's callbacks find the CEP through
 * sk_user_data under sk_callback_lock; once the connection is in RDMA mode
 * they feed the data path directly (cep->rx_qp, written under the same
 * lock), so received FPDUs never take a detour through the work queue.
 *
 * A CEP holds one reference for as long as it is not CLOSED (dropped by
 * siwl_cep_teardown(), which also releases the socket, the QP and the
 * cm_id), one per queued work item and armed timer, one while a
 * CONNECT_REQUEST's cm_id points at it (until accept or reject), and the
 * QP holds its own while bound. CEPs that are CLOSED but still referenced
 * stay on a module-wide list so that module unload can find them.
 *
 * Listening: rdma_cm puts one iw_cm_id per device on a wildcard address,
 * so several of our devices in one netns listen on the same address and
 * port. They share one kernel listening socket (struct siwl_lsock); an
 * accepted connection goes to the device that owns its local address.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tcp.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <rdma/iw_cm.h>

#include "cm.h"
#include "mpa_wire.h"
#include "qp.h"
#include "rx.h"
#include "siw_lite.h"

/*
 * How long each step may take. The TCP handshake gets a bound of its own
 * because iw_cm makes the ULP's destroy wait for CONNECT_REPLY, and TCP
 * alone would retry SYNs for minutes. The Reply comes only once the
 * peer's ULP has accepted, which on a loaded machine (a user program
 * setting up its memory first) takes seconds: we wait 30 s for it. A
 * peer that has sent its Request gives up on the Reply after its own
 * timeout, so a ULP that has not answered within a minute is not going
 * to be heard.
 */
#define SIWL_TCP_CONNECT_TIMEOUT	(10 * HZ)
#define SIWL_MPA_REQ_TIMEOUT		(10 * HZ)
#define SIWL_MPA_REP_TIMEOUT		(30 * HZ)
#define SIWL_ULP_TIMEOUT		(60 * HZ)
#define SIWL_CLOSE_TIMEOUT		(5 * HZ)

/* Connections taken per run of a listener's work before yielding. */
#define SIWL_ACCEPT_BATCH		16

#define SIWL_MPA_RR_MAX		(sizeof(struct mpa_rr_hdr) + MPA_MAX_PRIVDATA)

/* Our limits must fit the 14-bit depths of RFC 6581 section 5. */
static_assert(SIWL_MAX_IRD <= MPA_V2_IRD_ORD_MASK);
static_assert(SIWL_MAX_ORD <= MPA_V2_IRD_ORD_MASK);

/* ---- module parameters ------------------------------------------------ */

enum siwl_crc_policy {
	SIWL_CRC_ACCEPT		= 0,	/* do not ask; use them if the peer does */
	SIWL_CRC_WANT		= 1,	/* ask for them */
	SIWL_CRC_REQUIRE	= 2,	/* refuse a peer that does not ask */
};

static unsigned int mpa_rev = MPA_REVISION_2;
static unsigned int mpa_crc = SIWL_CRC_ACCEPT;
static bool mpa_rtr;

static int siwl_set_mpa_rev(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, MPA_REVISION_1, MPA_REVISION_2);
}

static const struct kernel_param_ops siwl_mpa_rev_ops = {
	.set = siwl_set_mpa_rev,
	.get = param_get_uint,
};

module_param_cb(mpa_rev, &siwl_mpa_rev_ops, &mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev,
		 "MPA revision of our Requests: 1 (RFC 5044) or 2 (RFC 6581 enhanced, default)");

static int siwl_set_mpa_crc(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, SIWL_CRC_ACCEPT,
				     SIWL_CRC_REQUIRE);
}

static const struct kernel_param_ops siwl_mpa_crc_ops = {
	.set = siwl_set_mpa_crc,
	.get = param_get_uint,
};

module_param_cb(mpa_crc, &siwl_mpa_crc_ops, &mpa_crc, 0644);
MODULE_PARM_DESC(mpa_crc,
		 "MPA CRC: 0 = use if the peer asks (default), 1 = ask, 2 = refuse peers that do not ask");

module_param(mpa_rtr, bool, 0644);
MODULE_PARM_DESC(mpa_rtr,
		 "Initiator asks for peer-to-peer mode with a zero-length RDMA Write RTR (needs mpa_rev=2)");

/* ---- objects ---------------------------------------------------------- */

enum siwl_cep_state {
	SIWL_CEP_NEW,
	SIWL_CEP_CONNECTING,	/* active: TCP handshake in progress */
	SIWL_CEP_AWAIT_REPLY,	/* active: MPA Request sent */
	SIWL_CEP_AWAIT_REQUEST,	/* passive: accepted, reading the Request */
	SIWL_CEP_AWAIT_ULP,	/* passive: CONNECT_REQUEST delivered */
	SIWL_CEP_RDMA,		/* the data path owns the stream */
	SIWL_CEP_CLOSING,	/* our FIN is out, waiting for the peer's */
	SIWL_CEP_CLOSED,
};

/* Bits in siwl_cep.events, set from any context. */
enum siwl_cep_event {
	SIWL_EV_DATA,		/* readable */
	SIWL_EV_STATE,		/* TCP state changed */
	SIWL_EV_TIMER,		/* the CEP timer fired */
	SIWL_EV_CLOSE,		/* the QP asks for a graceful close */
	SIWL_EV_ABORT,		/* the QP (or module unload) asks for a reset */
};

/* One kernel listening socket, shared by every iw_cm_id on its address. */
struct siwl_lsock {
	struct kref ref;		/* siwl_lsocks entry, pending CEPs */
	struct list_head list;		/* in siwl_lsocks */
	struct list_head leps;		/* struct siwl_lep.entry */
	struct socket *sock;
	struct sockaddr_storage addr;	/* as bound, the lookup key */
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

struct siwl_cep {
	struct kref ref;
	struct list_head all;		/* in siwl_ceps */
	struct mutex mutex;		/* state and everything below */
	enum siwl_cep_state state;
	bool active;
	/* A CONNECT_REQUEST's cm_id has us as provider_data. */
	bool iwcm_ref;
	unsigned long events;		/* enum siwl_cep_event bits */

	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	/* Set in RDMA mode; under sk_callback_lock. */
	struct siwl_qp *rx_qp;

	struct iw_cm_id *cm_id;		/* the connection's, with a reference */
	struct siwl_lsock *ls;		/* passive, counted in ls->pending */
	struct siwl_lep *lep;		/* passive, until CONNECT_REQUEST */
	struct siwl_qp *qp;		/* with a reference */

	struct timer_list timer;
	/* The state the timer was armed for, SIWL_CEP_CLOSED for none. */
	enum siwl_cep_state tmo_state;
	unsigned long tmo_expires;
	struct work_struct work;

	/* MPA: for the initiator what we sent, for the responder the peer's. */
	u8 rev;
	bool enhanced;
	bool crc;
	struct mpa_v2_params v2;
	u32 ird;			/* initiator: iw_cm_conn_param values */
	u32 ord;
	u16 pd_off;			/* ULP private data received, in buf */
	u16 pd_len;
	u32 tx_len;			/* initiator: the Request in buf */
	u32 rx_len;			/* octets of the frame read so far */
	u8 buf[SIWL_MPA_RR_MAX];
};

static struct workqueue_struct *siwl_cm_wq;

static LIST_HEAD(siwl_lsocks);
/* siwl_lsocks, each lsock's leps, pending and dead, and each lep->ls. */
static DEFINE_MUTEX(siwl_listen_lock);

static LIST_HEAD(siwl_ceps);
/* siwl_ceps and the iw_cm_id.provider_data of CONNECT_REQUESTs. */
static DEFINE_SPINLOCK(siwl_ceps_lock);

/* CEPs owning a socket; module unload waits for none to be left. */
static atomic_t siwl_cm_live = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(siwl_cm_idle);

/* ---- addresses -------------------------------------------------------- */

static int siwl_addr_len(sa_family_t family)
{
	return family == AF_INET ? sizeof(struct sockaddr_in) :
				   sizeof(struct sockaddr_in6);
}

static bool siwl_addr_any(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return s4->sin_addr.s_addr == htonl(INADDR_ANY);
	return ipv6_addr_any(&s6->sin6_addr);
}

static __be16 siwl_addr_port(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	return ss->ss_family == AF_INET ? s4->sin_port : s6->sin6_port;
}

static bool siwl_addr_equal(const struct sockaddr_storage *a,
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
static void siwl_addr_unmap(struct sockaddr_storage *ss)
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

/* Is @ss one of @netdev's addresses? Under rcu_read_lock(). */
static bool siwl_addr_on_netdev(struct net *net,
				const struct sockaddr_storage *ss,
				const struct net_device *netdev)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	if (!netdev)
		return false;
	if (ss->ss_family == AF_INET)
		return __ip_dev_find(net, s4->sin_addr.s_addr, false) == netdev;
	/* strict: a global address on another device does not count */
	return ipv6_chk_addr(net, &s6->sin6_addr, netdev, 1);
}

/* ---- sockets ---------------------------------------------------------- */

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

/*
 * iw_cm_id carries no network namespace: rdma_cm keeps it in its private
 * context. The addresses a ULP hands us were resolved against the netdev
 * behind our device, so that netdev's namespace is where they live and
 * where the sockets belong.
 */
static int siwl_sock_create(struct siwl_device *sdev, sa_family_t family,
			    struct socket **res)
{
	struct net_device *netdev = siwl_netdev_get(sdev);
	struct net *net;
	int rv;

	if (!netdev)
		return -ENODEV;
	net = maybe_get_net(dev_net(netdev));
	dev_put(netdev);
	if (!net)
		return -ENODEV;

	rv = sock_create_kern(net, family, SOCK_STREAM, IPPROTO_TCP, res);
	if (!rv)
		siwl_sock_hold_net((*res)->sk);
	put_net(net);
	return rv;
}

static void siwl_sock_set_v6only(struct sock *sk, bool on)
{
	lock_sock(sk);
	sk->sk_ipv6only = on;
	release_sock(sk);
}

/* ---- CEP references, events, timer ------------------------------------ */

static void siwl_cep_free(struct kref *ref)
{
	struct siwl_cep *cep = container_of(ref, struct siwl_cep, ref);
	unsigned long flags;

	/* May run in BH context when the data path drops the last ref. */
	WARN_ON_ONCE(cep->sock || cep->qp || cep->cm_id || cep->lep ||
		     cep->ls);
	spin_lock_irqsave(&siwl_ceps_lock, flags);
	list_del(&cep->all);
	spin_unlock_irqrestore(&siwl_ceps_lock, flags);
	mutex_destroy(&cep->mutex);
	kfree(cep);
}

void siwl_cep_get(struct siwl_cep *cep)
{
	kref_get(&cep->ref);
}

void siwl_cep_put(struct siwl_cep *cep)
{
	kref_put(&cep->ref, siwl_cep_free);
}

/* Any context: record @ev and make sure the work item runs. */
static void siwl_cep_event(struct siwl_cep *cep, enum siwl_cep_event ev)
{
	set_bit(ev, &cep->events);
	siwl_cep_get(cep);
	if (!queue_work(siwl_cm_wq, &cep->work))
		siwl_cep_put(cep);	/* the queued work holds one */
}

static void siwl_cep_timeout(struct timer_list *t)
{
	struct siwl_cep *cep = from_timer(cep, t, timer);

	siwl_cep_event(cep, SIWL_EV_TIMER);
	siwl_cep_put(cep);		/* the armed timer's */
}

static void siwl_cep_arm(struct siwl_cep *cep, unsigned long timeout)
{
	cep->tmo_state = cep->state;
	cep->tmo_expires = jiffies + timeout;
	siwl_cep_get(cep);
	if (mod_timer(&cep->timer, cep->tmo_expires))
		siwl_cep_put(cep);	/* it was armed and had one */
}

static void siwl_cep_disarm(struct siwl_cep *cep)
{
	cep->tmo_state = SIWL_CEP_CLOSED;
	if (del_timer_sync(&cep->timer))
		siwl_cep_put(cep);
}

/*
 * Whether a timer event is for the current step: one that fired while the
 * CEP was moving on is stale and must not end the next step early.
 */
static bool siwl_cep_timed_out(struct siwl_cep *cep, unsigned long ev)
{
	return (ev & BIT(SIWL_EV_TIMER)) && cep->tmo_state == cep->state &&
	       time_after_eq(jiffies, cep->tmo_expires);
}

static void siwl_cep_work(struct work_struct *work);

static struct siwl_cep *siwl_cep_alloc(bool active)
{
	struct siwl_cep *cep;
	unsigned long flags;

	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	if (!cep)
		return NULL;
	kref_init(&cep->ref);
	mutex_init(&cep->mutex);
	cep->state = SIWL_CEP_NEW;
	cep->tmo_state = SIWL_CEP_CLOSED;
	cep->active = active;
	timer_setup(&cep->timer, siwl_cep_timeout, 0);
	INIT_WORK(&cep->work, siwl_cep_work);
	spin_lock_irqsave(&siwl_ceps_lock, flags);
	list_add_tail(&cep->all, &siwl_ceps);
	spin_unlock_irqrestore(&siwl_ceps_lock, flags);
	return cep;
}

/* Takes a reference on the CEP a CONNECT_REQUEST's cm_id points at. */
static struct siwl_cep *siwl_cep_from_id(struct iw_cm_id *id)
{
	struct siwl_cep *cep;
	unsigned long flags;

	spin_lock_irqsave(&siwl_ceps_lock, flags);
	cep = id->provider_data;
	if (cep)
		siwl_cep_get(cep);
	spin_unlock_irqrestore(&siwl_ceps_lock, flags);
	return cep;
}

/* Accept or reject is done with the cm_id iw_cm created for us. */
static void siwl_cep_drop_iwcm(struct siwl_cep *cep, struct iw_cm_id *id)
{
	unsigned long flags;
	bool had;

	spin_lock_irqsave(&siwl_ceps_lock, flags);
	if (id->provider_data == cep)
		id->provider_data = NULL;
	had = cep->iwcm_ref;
	cep->iwcm_ref = false;
	spin_unlock_irqrestore(&siwl_ceps_lock, flags);
	if (had)
		siwl_cep_put(cep);
}

static void siwl_cep_peer(struct siwl_cep *cep, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (!cep->sock ||
	    kernel_getpeername(cep->sock, (struct sockaddr *)ss) < 0) {
		if (cep->cm_id)
			*ss = cep->cm_id->m_remote_addr;
		return;
	}
	siwl_addr_unmap(ss);
}

/* Why a peer was turned away or gave up, without flooding the log. */
static __printf(2, 3) void siwl_cep_info(struct siwl_cep *cep,
					 const char *fmt, ...)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	struct sockaddr_storage peer;
	struct va_format vaf;
	va_list args;

	if (!__ratelimit(&rs))
		return;
	siwl_cep_peer(cep, &peer);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("%pISpc: %pV\n", &peer, &vaf);
	va_end(args);
}

/* ---- socket callbacks ------------------------------------------------- */

static void siwl_sk_data_ready(struct sock *sk)
{
	struct siwl_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep) {
		if (cep->rx_qp)
			siwl_qp_data_ready(cep->rx_qp, sk);
		else
			siwl_cep_event(cep, SIWL_EV_DATA);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void siwl_sk_state_change(struct sock *sk)
{
	struct siwl_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep)
		siwl_cep_event(cep, SIWL_EV_STATE);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void siwl_sk_write_space(struct sock *sk)
{
	struct siwl_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	/*
	 * As the stream default does, wait for a third of the buffer to be
	 * free, and clear NOSPACE so that TCP stops calling us on every ACK.
	 */
	if (cep && cep->rx_qp && sk_stream_is_writeable(sk)) {
		if (sk->sk_socket)
			clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		siwl_qp_tx_wakeup(cep->rx_qp);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * @orig_data_ready: for an accepted socket, the listener's original; the
 * clone inherited our listener callback, which must not be what the
 * socket keeps after we let go of it.
 */
static void siwl_cep_attach_sock(struct siwl_cep *cep, struct socket *sock,
				 void (*orig_data_ready)(struct sock *sk))
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = orig_data_ready ? orig_data_ready :
						  sk->sk_data_ready;
	cep->saved_state_change = sk->sk_state_change;
	cep->saved_write_space = sk->sk_write_space;
	sk->sk_user_data = cep;
	sk->sk_data_ready = siwl_sk_data_ready;
	sk->sk_state_change = siwl_sk_state_change;
	sk->sk_write_space = siwl_sk_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->sock = sock;
	atomic_inc(&siwl_cm_live);
}

/* @abort: reset the connection rather than close it with a FIN. */
static void siwl_cep_release_sock(struct siwl_cep *cep, bool abort)
{
	struct socket *sock = cep->sock;
	struct sock *sk;

	if (!sock)
		return;
	sk = sock->sk;
	/* Waits for callbacks in progress; none reaches the CEP after. */
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	sk->sk_write_space = cep->saved_write_space;
	cep->rx_qp = NULL;
	write_unlock_bh(&sk->sk_callback_lock);

	if (abort)
		sock_no_linger(sk);
	sock_release(sock);
	cep->sock = NULL;
	if (atomic_dec_and_test(&siwl_cm_live))
		wake_up(&siwl_cm_idle);
}

static bool siwl_cep_established(struct siwl_cep *cep)
{
	return cep->sock &&
	       READ_ONCE(cep->sock->sk->sk_state) == TCP_ESTABLISHED;
}

/*
 * Hands bytes that arrived before RDMA mode to the data path, in the
 * context the TCP receive path would have called it: socket owned,
 * callbacks locked, bottom halves off.
 */
static void siwl_cep_kick_rx(struct siwl_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	lock_sock(sk);
	siwl_sk_data_ready(sk);
	release_sock(sk);
}

static void siwl_cep_go_rdma(struct siwl_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	cep->rx_qp = cep->qp;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->state = SIWL_CEP_RDMA;
}

/* ---- listener bookkeeping --------------------------------------------- */

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

/* The ULP answered (or the CEP is gone): make room for another. */
static void siwl_cep_unpend(struct siwl_cep *cep)
{
	struct siwl_lsock *ls = cep->ls;

	if (!ls)
		return;
	cep->ls = NULL;
	mutex_lock(&siwl_listen_lock);
	ls->pending--;
	if (!ls->dead)
		queue_work(siwl_cm_wq, &ls->accept_work);
	mutex_unlock(&siwl_listen_lock);
	kref_put(&ls->ref, siwl_lsock_free);
}

/* ---- CEP teardown and upcalls ----------------------------------------- */

/*
 * Releases everything the connection holds and drops the CEP's own
 * reference; the caller holds another. Events for the cm_id must have been
 * reported before: iw_cm wants none after the reference is gone.
 */
static void siwl_cep_teardown(struct siwl_cep *cep, bool abort)
{
	struct iw_cm_id *id = cep->cm_id;

	if (cep->state == SIWL_CEP_CLOSED)
		return;
	siwl_cep_disarm(cep);
	siwl_cep_unpend(cep);
	siwl_cep_release_sock(cep, abort);
	if (cep->lep) {
		kref_put(&cep->lep->ref, siwl_lep_free);
		cep->lep = NULL;
	}
	if (cep->qp) {
		siwl_qp_put(cep->qp);
		cep->qp = NULL;
	}
	if (id) {
		WRITE_ONCE(id->provider_data, NULL);
		cep->cm_id = NULL;
		id->rem_ref(id);
	}
	pr_debug("cep %p closed (%s)\n", cep, abort ? "reset" : "orderly");
	cep->state = SIWL_CEP_CLOSED;
	siwl_cep_put(cep);
}

static int siwl_cep_upcall(struct siwl_cep *cep, struct iw_cm_id *id,
			   enum iw_cm_event_type type, int status,
			   u32 ird, u32 ord, bool pdata)
{
	struct iw_cm_event ev = {};
	int rv;

	ev.event = type;
	ev.status = status;
	ev.ird = min_t(u32, ird, U8_MAX);
	ev.ord = min_t(u32, ord, U8_MAX);
	if (pdata && cep->pd_len) {
		ev.private_data = cep->buf + cep->pd_off;
		ev.private_data_len = cep->pd_len;
	}
	if (type == IW_CM_EVENT_CONNECT_REQUEST)
		ev.provider_data = cep;

	if (type != IW_CM_EVENT_DISCONNECT && type != IW_CM_EVENT_CLOSE) {
		/*
		 * The connection's real (port mapped) addresses; iw_cm keeps
		 * them as the id's m_*_addr. Before the TCP handshake has
		 * completed only the id's own addresses are known.
		 */
		if (cep->sock &&
		    kernel_getsockname(cep->sock,
				       (struct sockaddr *)&ev.local_addr) >= 0 &&
		    kernel_getpeername(cep->sock,
				       (struct sockaddr *)&ev.remote_addr) >= 0) {
			if (!cep->active) {
				siwl_addr_unmap(&ev.local_addr);
				siwl_addr_unmap(&ev.remote_addr);
			}
		} else {
			ev.local_addr = id->local_addr;
			ev.remote_addr = id->remote_addr;
		}
	}

	pr_debug("cep %p: event %d status %d ird %u ord %u pdata %u\n", cep,
		 type, status, ev.ird, ev.ord, ev.private_data_len);
	rv = id->event_handler(id, &ev);
	if (rv && type != IW_CM_EVENT_CONNECT_REQUEST)
		pr_warn_ratelimited("iw_cm refused event %d: %d\n", type, rv);
	return rv;
}

/* ---- MPA frames on the socket ----------------------------------------- */

static int siwl_cep_send(struct siwl_cep *cep, const void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	int rv;

	/*
	 * A Request or Reply is the first thing we send, so it always fits
	 * an empty send buffer; falling short means the connection is gone.
	 */
	rv = kernel_sendmsg(cep->sock, &msg, &iov, 1, len);
	if (rv == len)
		return 0;
	return rv < 0 ? rv : -ENOBUFS;
}

/*
 * Reads the Request or Reply into cep->buf: first its header, then exactly
 * PD_Length octets, so that not one byte of what follows (the first FPDUs,
 * which belong to the data path) leaves the socket.
 *
 * Return: 0 with @info describing the frame; -EAGAIN to wait for more;
 * mpa_rr_parse()'s errors; -ECONNRESET or another socket error.
 */
static int siwl_cep_read_rr(struct siwl_cep *cep, enum mpa_rr_type type,
			    const struct mpa_rr_policy *pol,
			    struct mpa_rr_info *info, struct iw_term *term)
{
	struct msghdr msg;
	struct kvec iov;
	int rv;

	for (;;) {
		rv = mpa_rr_parse(cep->buf, cep->rx_len, type, pol, info,
				  term);
		if (rv != -EAGAIN)
			return rv;
		/*
		 * The header is validated (PD_Length <= 512) before the parser
		 * asks for more, so the frame always fits.
		 */
		if (WARN_ON_ONCE(info->frame_len > sizeof(cep->buf) ||
				 info->frame_len <= cep->rx_len))
			return -EPROTO;

		memset(&msg, 0, sizeof(msg));
		iov.iov_base = cep->buf + cep->rx_len;
		iov.iov_len = info->frame_len - cep->rx_len;
		rv = kernel_recvmsg(cep->sock, &msg, &iov, 1, iov.iov_len,
				    MSG_DONTWAIT);
		if (rv == 0)
			return -ECONNRESET;
		if (rv < 0)
			return rv;
		cep->rx_len += rv;
	}
}

static void siwl_cep_keep_pdata(struct siwl_cep *cep,
				const struct mpa_rr_info *info)
{
	cep->pd_off = info->ulp_pd - cep->buf;
	cep->pd_len = info->ulp_pd_len;
}

/*
 * Responder: refuse with a Reply carrying the R bit (RFC 5044 section
 * 7.1), then close. The Reply mirrors the Request's revision and, for an
 * enhanced Request, carries an (empty) IRD/ORD block so that the peer
 * finds any private data where it expects it.
 */
static void siwl_cep_reject(struct siwl_cep *cep, u8 rev, bool enhanced,
			    const void *pdata, u8 pdata_len)
{
	struct mpa_rr_build b = {
		.rev = rev,
		.reject = 1,
		.enhanced = rev >= MPA_REVISION_2 && enhanced,
		.ulp_pd = pdata,
		.ulp_pd_len = pdata_len,
	};
	ssize_t len;

	if (cep->sock) {
		len = mpa_rr_build(cep->buf, sizeof(cep->buf), MPA_RR_REPLY,
				   &b);
		if (len > 0)
			siwl_cep_send(cep, cep->buf, len);
	}
	siwl_cep_teardown(cep, false);
}

/* ---- active side -------------------------------------------------------- */

static void siwl_active_fail(struct siwl_cep *cep, int status, bool abort)
{
	siwl_cep_upcall(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY, status,
			0, 0, status == -ECONNREFUSED);
	siwl_cep_teardown(cep, abort);
}

static void siwl_active_up(struct siwl_cep *cep,
			   const struct mpa_rr_info *info)
{
	struct siwl_conn_params p = {
		.sock = cep->sock,
		.crc = mpa_crc_negotiate(cep->crc, info->crc),
		.initiator = true,
		.mpa_rev = info->rev,
		.ird = cep->ird,
		.ord = cep->ord,
	};
	struct mpa_v2_params res;
	struct iw_term term;
	int rv;

	if (info->ulp_pd_len > U8_MAX) {
		/* iw_cm events cannot carry it, and we do not cut it short. */
		siwl_cep_info(cep, "Reply private data too long for iw_cm (%u)",
			      info->ulp_pd_len);
		siwl_active_fail(cep, -EPROTO, true);
		return;
	}
	/*
	 * A responder that only speaks Rev 1 (or leaves the block out)
	 * negotiated nothing: we run with what the ULP asked for, no RTR.
	 */
	if (cep->enhanced && info->enhanced) {
		/* Lower our ORD to the peer's IRD rather than fail. */
		rv = mpa_v2_check_reply(&cep->v2, &info->v2, true, &res, &term);
		if (rv) {
			/*
			 * RFC 6581 section 5 would have us send a Terminate;
			 * the data path is not up yet to frame one, so the
			 * reset has to tell the peer.
			 */
			siwl_cep_info(cep,
				      "RFC 6581 negotiation failed (MPA error %#x): ird %u ord %u rtr %#x",
				      term.ecode, info->v2.ird, info->v2.ord,
				      info->v2.rtr);
			siwl_active_fail(cep, -EPROTO, true);
			return;
		}
		p.ird = res.ird;
		p.ord = res.ord;
		p.rtr = res.p2p ? res.rtr : 0;
	}
	siwl_cep_keep_pdata(cep, info);
	siwl_cep_disarm(cep);

	rv = siwl_qp_llp_up(cep->qp, cep, &p);
	if (rv) {
		pr_debug("cep %p: QP refused RTS: %d\n", cep, rv);
		siwl_active_fail(cep, rv, true);
		return;
	}
	siwl_cep_go_rdma(cep);
	siwl_cep_upcall(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY, 0,
			p.ird, p.ord, true);
	/* FPDUs may have followed the Reply in the same segment. */
	siwl_cep_kick_rx(cep);
}

static void siwl_active_reply(struct siwl_cep *cep, unsigned long ev)
{
	struct mpa_rr_policy pol = {
		.rev_min = MPA_REVISION_1,
		.rev_max = cep->rev,
	};
	struct mpa_rr_info info = {};
	struct iw_term term;
	int rv;

	if (ev & BIT(SIWL_EV_ABORT)) {
		siwl_active_fail(cep, -ECONNRESET, true);
		return;
	}
	rv = siwl_cep_read_rr(cep, MPA_RR_REPLY, &pol, &info, &term);
	switch (rv) {
	case 0:
		siwl_active_up(cep, &info);
		return;
	case -EAGAIN:
		if (siwl_cep_timed_out(cep, ev)) {
			siwl_cep_info(cep, "no MPA Reply within %u s",
				      SIWL_MPA_REP_TIMEOUT / HZ);
			siwl_active_fail(cep, -ETIMEDOUT, true);
		} else if (!siwl_cep_established(cep)) {
			siwl_active_fail(cep, -ECONNRESET, false);
		}
		return;
	case -ECONNREFUSED:
		pr_debug("cep %p: peer rejected the connection\n", cep);
		if (info.ulp_pd_len <= U8_MAX)
			siwl_cep_keep_pdata(cep, &info);
		siwl_active_fail(cep, -ECONNREFUSED, false);
		return;
	case -EPROTO:
	case -EOPNOTSUPP:
		siwl_cep_info(cep,
			      "invalid MPA Reply (flags %#x rev %u pd_len %u)",
			      info.flags, info.rev, info.pd_len);
		siwl_active_fail(cep, -EPROTO, true);
		return;
	default:
		siwl_active_fail(cep, -ECONNRESET, true);
		return;
	}
}

static void siwl_active_connecting(struct siwl_cep *cep, unsigned long ev)
{
	struct sock *sk = cep->sock->sk;
	int err;

	if (ev & BIT(SIWL_EV_ABORT)) {
		siwl_active_fail(cep, -ECONNRESET, true);
		return;
	}
	switch (READ_ONCE(sk->sk_state)) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:	/* a FIN right away: the read will tell */
		break;
	case TCP_CLOSE:
		/* Refused, unreachable or timed out: TCP says which. */
		err = READ_ONCE(sk->sk_err);
		siwl_active_fail(cep, err ? -err : -ECONNREFUSED, false);
		return;
	default:
		if (siwl_cep_timed_out(cep, ev))
			siwl_active_fail(cep, -ETIMEDOUT, true);
		return;
	}

	siwl_cep_disarm(cep);
	err = siwl_cep_send(cep, cep->buf, cep->tx_len);
	if (err) {
		siwl_active_fail(cep, -ECONNRESET, true);
		return;
	}
	pr_debug("cep %p: MPA Request sent (%u octets)\n", cep, cep->tx_len);
	cep->rx_len = 0;
	cep->state = SIWL_CEP_AWAIT_REPLY;
	siwl_cep_arm(cep, SIWL_MPA_REP_TIMEOUT);
	siwl_active_reply(cep, 0);
}

/* ---- passive side ------------------------------------------------------- */

static void siwl_passive_deliver(struct siwl_cep *cep)
{
	struct siwl_lep *lep = cep->lep;
	u32 ird = SIWL_MAX_IRD, ord = SIWL_MAX_ORD;
	int rv = -ENODEV;

	siwl_cep_disarm(cep);
	/*
	 * Still counted in the backlog: a ULP that neither accepts nor
	 * rejects would otherwise let any number of connections wait out
	 * SIWL_ULP_TIMEOUT. The answer (or the teardown) unpends it.
	 */
	/* Without RFC 6581 the peer announced nothing: offer our limits. */
	if (cep->enhanced) {
		ird = cep->v2.ird;
		ord = cep->v2.ord;
	}

	cep->state = SIWL_CEP_AWAIT_ULP;
	/* For the cm_id iw_cm creates with provider_data = cep. */
	siwl_cep_get(cep);
	cep->iwcm_ref = true;
	/*
	 * Under the listen lock: once destroy_listen has returned, iw_cm
	 * must not see another CONNECT_REQUEST on that id.
	 */
	mutex_lock(&siwl_listen_lock);
	if (lep->ls)
		rv = siwl_cep_upcall(cep, lep->cm_id,
				     IW_CM_EVENT_CONNECT_REQUEST, 0, ird, ord,
				     true);
	mutex_unlock(&siwl_listen_lock);
	if (rv) {
		cep->iwcm_ref = false;
		siwl_cep_put(cep);
		siwl_cep_info(cep, "connection refused: %s",
			      rv == -ENODEV ? "no longer listening" :
					      "listen backlog full");
		siwl_cep_reject(cep, cep->rev, cep->enhanced, NULL, 0);
		return;
	}
	/* The request is iw_cm's now; the listener may go. */
	cep->lep = NULL;
	kref_put(&lep->ref, siwl_lep_free);
	siwl_cep_arm(cep, SIWL_ULP_TIMEOUT);
}

static void siwl_passive_request(struct siwl_cep *cep, unsigned long ev)
{
	struct mpa_rr_policy pol = {
		.rev_min = MPA_REVISION_1,
		.rev_max = MPA_REVISION_2,
	};
	struct mpa_rr_info info = {};
	struct iw_term term;
	int rv;

	if (ev & BIT(SIWL_EV_ABORT)) {
		siwl_cep_teardown(cep, true);
		return;
	}
	rv = siwl_cep_read_rr(cep, MPA_RR_REQUEST, &pol, &info, &term);
	switch (rv) {
	case 0:
		break;
	case -EAGAIN:
		if (siwl_cep_timed_out(cep, ev)) {
			siwl_cep_info(cep, "no MPA Request within %u s",
				      SIWL_MPA_REQ_TIMEOUT / HZ);
			siwl_cep_teardown(cep, true);
		} else if (!siwl_cep_established(cep)) {
			siwl_cep_teardown(cep, false);
		}
		return;
	case -EOPNOTSUPP:
		/* RFC 5044 section 7.1: we cannot send Markers, so refuse. */
		siwl_cep_info(cep, "MPA Request wants Markers: rejected");
		siwl_cep_reject(cep, info.rev, info.enhanced, NULL, 0);
		return;
	case -EPROTO:
		if (cep->rx_len >= sizeof(struct mpa_rr_hdr) &&
		    !memcmp(cep->buf, MPA_KEY_REQ, MPA_KEY_SIZE) &&
		    (info.rev < MPA_REVISION_1 || info.rev > MPA_REVISION_2)) {
			/* A Reply's Rev is the Responder's own: say ours. */
			siwl_cep_info(cep, "MPA revision %u: rejected",
				      info.rev);
			siwl_cep_reject(cep, clamp_t(u8, info.rev,
						     MPA_REVISION_1,
						     MPA_REVISION_2),
					false, NULL, 0);
			return;
		}
		/* Not MPA, or broken beyond an answer. */
		siwl_cep_info(cep,
			      "invalid MPA Request (flags %#x rev %u pd_len %u): closed",
			      info.flags, info.rev, info.pd_len);
		siwl_cep_teardown(cep, true);
		return;
	default:
		/* EOF or a reset: nothing left to tell the peer. */
		siwl_cep_teardown(cep, false);
		return;
	}

	if (READ_ONCE(mpa_crc) == SIWL_CRC_REQUIRE && !info.crc) {
		siwl_cep_info(cep, "peer does not ask for MPA CRCs: rejected");
		siwl_cep_reject(cep, info.rev, info.enhanced, NULL, 0);
		return;
	}
	if (info.ulp_pd_len > U8_MAX) {
		siwl_cep_info(cep,
			      "Request private data too long for iw_cm (%u): rejected",
			      info.ulp_pd_len);
		siwl_cep_reject(cep, info.rev, info.enhanced, NULL, 0);
		return;
	}

	cep->rev = info.rev;
	cep->enhanced = info.enhanced;
	cep->crc = info.crc;
	cep->v2 = info.v2;
	siwl_cep_keep_pdata(cep, &info);
	pr_debug("cep %p: MPA Request rev %u crc %u enhanced %u ird %u ord %u p2p %u rtr %#x\n",
		 cep, info.rev, info.crc, info.enhanced, info.v2.ird,
		 info.v2.ord, info.v2.p2p, info.v2.rtr);
	siwl_passive_deliver(cep);
}

static void siwl_passive_wait_ulp(struct siwl_cep *cep, unsigned long ev)
{
	if (ev & BIT(SIWL_EV_ABORT)) {
		siwl_cep_teardown(cep, true);
	} else if (siwl_cep_timed_out(cep, ev)) {
		siwl_cep_info(cep, "ULP did not answer within %u s: rejected",
			      SIWL_ULP_TIMEOUT / HZ);
		siwl_cep_reject(cep, cep->rev, cep->enhanced, NULL, 0);
	} else if (!siwl_cep_established(cep)) {
		/* Keep the CEP: accept or reject still has to come. */
		pr_debug("cep %p: peer left before the ULP answered\n", cep);
		siwl_cep_teardown(cep, false);
	}
	/*
	 * Bytes before our Reply break RFC 5044 section 7.1; they stay
	 * unread and the connection is reset if it ever ends here.
	 */
}

/* ---- established connections ----------------------------------------- */

static void siwl_cep_disconnect(struct siwl_cep *cep, int status, bool abort)
{
	struct sock *sk = cep->sock->sk;

	siwl_cep_disarm(cep);
	/*
	 * An orderly end: the peer's last FPDUs precede its FIN and must be
	 * placed before the QP lets go of the socket, even if sk_data_ready
	 * left them to the RX worker (rx_defer), which llp_down cancels.
	 * Without this, Sends the peer saw complete were flushed here.
	 */
	if (!abort && !status) {
		lock_sock(sk);
		siwl_qp_rx(cep->qp, sk);
		release_sock(sk);
	}
	/* The data path must not be entered again while it lets go. */
	write_lock_bh(&sk->sk_callback_lock);
	cep->rx_qp = NULL;
	write_unlock_bh(&sk->sk_callback_lock);
	siwl_qp_llp_down(cep->qp);

	/*
	 * DISCONNECT moves iw_cm to CLOSING (no-op if the ULP closed first);
	 * CLOSE is the one and only end of the connection.
	 */
	siwl_cep_upcall(cep, cep->cm_id, IW_CM_EVENT_DISCONNECT, status,
			0, 0, false);
	siwl_cep_upcall(cep, cep->cm_id, IW_CM_EVENT_CLOSE, status, 0, 0,
			false);
	siwl_cep_teardown(cep, abort);
}

static void siwl_cep_rdma_event(struct siwl_cep *cep, unsigned long ev)
{
	struct sock *sk = cep->sock->sk;

	if (ev & BIT(SIWL_EV_ABORT)) {
		siwl_cep_disconnect(cep, -ECONNRESET, true);
		return;
	}
	if (siwl_cep_timed_out(cep, ev)) {
		siwl_cep_info(cep, "no FIN within %u s of ours: reset",
			      SIWL_CLOSE_TIMEOUT / HZ);
		siwl_cep_disconnect(cep, -ECONNRESET, true);
		return;
	}

	switch (READ_ONCE(sk->sk_state)) {
	case TCP_CLOSE_WAIT:
		/* The peer's FIN. */
		siwl_cep_disconnect(cep, 0, false);
		return;
	case TCP_CLOSE:
		/*
		 * A reset, or the end of our graceful close (the peer's FIN
		 * in FIN_WAIT2 takes a socket we still own straight here).
		 */
		siwl_cep_disconnect(cep, READ_ONCE(sk->sk_err) ?
					 -ECONNRESET : 0, false);
		return;
	default:
		break;
	}

	if ((ev & BIT(SIWL_EV_CLOSE)) && cep->state == SIWL_CEP_RDMA) {
		/*
		 * The QP has drained its send queue. Our FIN, then the
		 * peer's, ends the connection; a peer that never sends one
		 * gets a reset when the timer runs out.
		 */
		kernel_sock_shutdown(cep->sock, SHUT_WR);
		cep->state = SIWL_CEP_CLOSING;
		siwl_cep_arm(cep, SIWL_CLOSE_TIMEOUT);
	}
	if (ev & BIT(SIWL_EV_DATA))
		siwl_cep_kick_rx(cep);
}

static void siwl_cep_work(struct work_struct *work)
{
	struct siwl_cep *cep = container_of(work, struct siwl_cep, work);
	unsigned long ev;

	mutex_lock(&cep->mutex);
	ev = xchg(&cep->events, 0);
	switch (cep->state) {
	case SIWL_CEP_CONNECTING:
		siwl_active_connecting(cep, ev);
		break;
	case SIWL_CEP_AWAIT_REPLY:
		siwl_active_reply(cep, ev);
		break;
	case SIWL_CEP_AWAIT_REQUEST:
		siwl_passive_request(cep, ev);
		break;
	case SIWL_CEP_AWAIT_ULP:
		siwl_passive_wait_ulp(cep, ev);
		break;
	case SIWL_CEP_RDMA:
	case SIWL_CEP_CLOSING:
		siwl_cep_rdma_event(cep, ev);
		break;
	default:
		break;
	}
	mutex_unlock(&cep->mutex);
	siwl_cep_put(cep);
}

/* ---- calls from the data path ----------------------------------------- */

void siwl_cm_close(struct siwl_cep *cep, bool abortive)
{
	siwl_cep_event(cep, abortive ? SIWL_EV_ABORT : SIWL_EV_CLOSE);
}

/* ---- iw_cm verbs -------------------------------------------------------- */

/*
 * iw_cm holds the QP (iw_add_ref) across accept and connect, so the
 * lookup stays valid until we have a reference of our own.
 */
static struct siwl_qp *siwl_cm_get_qp(struct ib_device *ibdev, u32 qpn)
{
	struct ib_qp *ibqp = siwl_iw_get_qp(ibdev, qpn);
	struct siwl_qp *qp;

	if (!ibqp)
		return NULL;
	qp = to_siwl_qp(ibqp);
	siwl_qp_get(qp);
	return qp;
}

int siwl_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct sockaddr_storage *laddr = &id->m_local_addr;
	struct sockaddr_storage *raddr = &id->m_remote_addr;
	sa_family_t family = raddr->ss_family;
	unsigned int rev = READ_ONCE(mpa_rev);
	struct mpa_rr_build b = {};
	struct socket *sock;
	struct siwl_cep *cep;
	struct siwl_qp *qp;
	ssize_t len;
	int rv;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	if (laddr->ss_family != AF_UNSPEC && laddr->ss_family != family)
		return -EINVAL;
	if (param->ird > SIWL_MAX_IRD || param->ord > SIWL_MAX_ORD)
		return -EINVAL;

	qp = siwl_cm_get_qp(id->device, param->qpn);
	if (!qp)
		return -EINVAL;
	cep = siwl_cep_alloc(true);
	if (!cep) {
		siwl_qp_put(qp);
		return -ENOMEM;
	}
	cep->qp = qp;

	cep->rev = rev == MPA_REVISION_1 ? MPA_REVISION_1 : MPA_REVISION_2;
	cep->enhanced = cep->rev == MPA_REVISION_2;
	cep->crc = READ_ONCE(mpa_crc) != SIWL_CRC_ACCEPT;
	cep->ird = param->ird;
	cep->ord = param->ord;
	if (cep->enhanced) {
		cep->v2.ird = param->ird;
		cep->v2.ord = param->ord;
		if (READ_ONCE(mpa_rtr)) {
			/* Costs the responder nothing, unlike a Send or Read. */
			cep->v2.p2p = 1;
			cep->v2.rtr = MPA_RTR_WRITE;
		}
	}
	b.rev = cep->rev;
	b.crc = cep->crc;
	b.enhanced = cep->enhanced;
	b.v2 = cep->v2;
	b.ulp_pd = param->private_data;
	b.ulp_pd_len = param->private_data_len;
	/* Built now: the ULP's private data is only ours during this call. */
	len = mpa_rr_build(cep->buf, sizeof(cep->buf), MPA_RR_REQUEST, &b);
	if (len < 0) {
		rv = -EINVAL;
		goto err_free;
	}
	cep->tx_len = len;

	rv = siwl_sock_create(to_siwl_dev(id->device), family, &sock);
	if (rv)
		goto err_free;
	sock_set_reuseaddr(sock->sk);
	tcp_sock_set_nodelay(sock->sk);
	if (laddr->ss_family != AF_UNSPEC &&
	    (!siwl_addr_any(laddr) || siwl_addr_port(laddr))) {
		rv = kernel_bind(sock, (struct sockaddr *)laddr,
				 siwl_addr_len(family));
		if (rv) {
			sock_release(sock);
			goto err_free;
		}
	}

	siwl_cep_get(cep);		/* ours, for the call */
	mutex_lock(&cep->mutex);
	siwl_cep_attach_sock(cep, sock, NULL);
	id->add_ref(id);
	cep->cm_id = id;
	id->provider_data = cep;
	cep->state = SIWL_CEP_CONNECTING;
	siwl_cep_arm(cep, SIWL_TCP_CONNECT_TIMEOUT);

	/* Completion (or failure) comes back through sk_state_change. */
	rv = kernel_connect(sock, (struct sockaddr *)raddr,
			    siwl_addr_len(family), O_NONBLOCK);
	if (rv && rv != -EINPROGRESS) {
		pr_debug("connect to %pISpc failed: %d\n", raddr, rv);
		/* iw_cm takes the error; it expects no events then. */
		siwl_cep_teardown(cep, false);
	} else {
		pr_debug("cep %p: connecting to %pISpc\n", cep, raddr);
		rv = 0;
	}
	mutex_unlock(&cep->mutex);
	siwl_cep_put(cep);
	return rv;

err_free:
	cep->qp = NULL;
	siwl_qp_put(qp);
	siwl_cep_put(cep);
	return rv;
}

int siwl_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siwl_conn_params p = {};
	struct mpa_v2_params rep = {};
	struct mpa_rr_build b = {};
	struct siwl_cep *cep;
	struct siwl_qp *qp;
	struct iw_term term;
	ssize_t len;
	int rv;

	cep = siwl_cep_from_id(id);
	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->mutex);
	if (!cep->iwcm_ref) {
		/* Accepted or rejected already: not ours to touch again. */
		mutex_unlock(&cep->mutex);
		siwl_cep_put(cep);
		return -EINVAL;
	}
	/* The ULP has answered: the listener may take the next one. */
	siwl_cep_unpend(cep);
	/*
	 * An error from here on ends the connection: iw_cm moves the id to
	 * IDLE and will neither reject nor expect events.
	 */
	if (cep->state != SIWL_CEP_AWAIT_ULP || !siwl_cep_established(cep)) {
		rv = -ECONNRESET;
		siwl_cep_teardown(cep, false);
		goto out;
	}
	if (param->ird > SIWL_MAX_IRD || param->ord > SIWL_MAX_ORD) {
		rv = -EINVAL;
		goto out_reject;
	}
	qp = siwl_cm_get_qp(id->device, param->qpn);
	if (!qp) {
		rv = -EINVAL;
		goto out_reject;
	}

	p.ird = param->ird;
	p.ord = param->ord;
	if (cep->enhanced) {
		/*
		 * The data path takes any single RTR type as the first
		 * message; the helper picks the cheapest one offered.
		 */
		struct mpa_v2_params local = {
			.ird = param->ird,
			.ord = param->ord,
			.rtr = MPA_RTR_ALL,
		};

		rv = mpa_v2_negotiate_responder(&cep->v2, &local, &rep, &term);
		if (rv) {
			siwl_cep_info(cep, "no usable RTR type offered (%#x)",
				      cep->v2.rtr);
			siwl_qp_put(qp);
			goto out_reject;
		}
		p.ird = rep.ird;
		p.ord = rep.ord;
		p.rtr = rep.p2p ? rep.rtr : 0;
	}
	p.crc = mpa_crc_negotiate(cep->crc,
				  READ_ONCE(mpa_crc) != SIWL_CRC_ACCEPT);

	b.rev = cep->rev;
	b.crc = p.crc;
	b.enhanced = cep->enhanced;
	b.v2 = rep;
	b.ulp_pd = param->private_data;
	b.ulp_pd_len = param->private_data_len;
	len = mpa_rr_build(cep->buf, sizeof(cep->buf), MPA_RR_REPLY, &b);
	if (len < 0) {
		rv = -EINVAL;
		siwl_qp_put(qp);
		goto out_reject;
	}

	siwl_cep_disarm(cep);
	/* RFC 5044 section 7.1: the Reply goes out before any FPDU. */
	rv = siwl_cep_send(cep, cep->buf, len);
	if (rv) {
		rv = -ECONNRESET;
		siwl_qp_put(qp);
		siwl_cep_teardown(cep, true);
		goto out;
	}
	p.sock = cep->sock;
	p.initiator = false;
	p.mpa_rev = cep->rev;
	rv = siwl_qp_llp_up(qp, cep, &p);
	if (rv) {
		/* The peer thinks it is connected: reset it. */
		pr_debug("cep %p: QP refused RTS: %d\n", cep, rv);
		siwl_qp_put(qp);
		siwl_cep_teardown(cep, true);
		goto out;
	}

	cep->qp = qp;
	id->add_ref(id);
	cep->cm_id = id;
	siwl_cep_go_rdma(cep);
	siwl_cep_upcall(cep, id, IW_CM_EVENT_ESTABLISHED, 0, p.ird, p.ord,
			false);
	siwl_cep_kick_rx(cep);
	rv = 0;
	goto out;

out_reject:
	siwl_cep_reject(cep, cep->rev, cep->enhanced, NULL, 0);
out:
	siwl_cep_drop_iwcm(cep, id);
	if (!rv)
		WRITE_ONCE(id->provider_data, cep);
	mutex_unlock(&cep->mutex);
	siwl_cep_put(cep);
	return rv;
}

int siwl_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len)
{
	struct siwl_cep *cep = siwl_cep_from_id(id);

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->mutex);
	siwl_cep_unpend(cep);
	if (cep->iwcm_ref && cep->state == SIWL_CEP_AWAIT_ULP) {
		pr_debug("cep %p: ULP rejects\n", cep);
		siwl_cep_reject(cep, cep->rev, cep->enhanced, pdata,
				pdata_len);
	}
	siwl_cep_drop_iwcm(cep, id);
	mutex_unlock(&cep->mutex);
	siwl_cep_put(cep);
	return 0;
}

/* ---- listening ---------------------------------------------------------- */

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

/*
 * The listening id whose device owns the connection's local address, as
 * rdma_cm will look for the device behind that address; the first one if
 * none does (rdma_cm then refuses it, which is its call to make).
 */
static struct siwl_lep *siwl_lsock_pick(struct siwl_lsock *ls,
					struct socket *sock)
{
	struct siwl_lep *first, *lep, *found = NULL;
	struct sockaddr_storage local = {};

	lockdep_assert_held(&siwl_listen_lock);
	first = list_first_entry(&ls->leps, struct siwl_lep, entry);
	if (list_is_singular(&ls->leps) ||
	    kernel_getsockname(sock, (struct sockaddr *)&local) < 0)
		return first;
	siwl_addr_unmap(&local);

	rcu_read_lock();
	list_for_each_entry(lep, &ls->leps, entry) {
		if (siwl_addr_on_netdev(sock_net(sock->sk), &local,
					rcu_dereference(lep->sdev->netdev))) {
			found = lep;
			break;
		}
	}
	rcu_read_unlock();
	return found ? found : first;
}

static void siwl_passive_start(struct siwl_cep *cep, struct socket *sock,
			       void (*orig_data_ready)(struct sock *sk))
{
	tcp_sock_set_nodelay(sock->sk);
	mutex_lock(&cep->mutex);
	siwl_cep_attach_sock(cep, sock, orig_data_ready);
	cep->state = SIWL_CEP_AWAIT_REQUEST;
	siwl_cep_arm(cep, SIWL_MPA_REQ_TIMEOUT);
	mutex_unlock(&cep->mutex);
	/* The Request may have arrived before our callbacks were in place. */
	siwl_cep_event(cep, SIWL_EV_DATA);
}

/* Return: whether a connection was taken. */
static bool siwl_lsock_accept_one(struct siwl_lsock *ls)
{
	struct siwl_lep *lep;
	struct socket *sock;
	struct siwl_cep *cep;
	int rv;

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
	lep = siwl_lsock_pick(ls, sock);
	kref_get(&lep->ref);
	cep->lep = lep;
	kref_get(&ls->ref);
	cep->ls = ls;
	ls->pending++;
	/* Under the lock: only a listed lep's device is sure to exist. */
	pr_debug("cep %p: accepted on %pISpc for %s\n", cep, &ls->addr,
		 dev_name(&lep->sdev->ibdev.dev));
	mutex_unlock(&siwl_listen_lock);

	siwl_passive_start(cep, sock, ls->saved_data_ready);
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

static struct siwl_lsock *siwl_lsock_find(struct net *net,
					  const struct sockaddr_storage *addr,
					  bool afonly)
{
	struct siwl_lsock *ls;

	lockdep_assert_held(&siwl_listen_lock);
	list_for_each_entry(ls, &siwl_lsocks, list) {
		if (net_eq(sock_net(ls->sock->sk), net) &&
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
					    bool afonly, int backlog)
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
	rv = kernel_bind(sock, (struct sockaddr *)addr,
			 siwl_addr_len(addr->ss_family));
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

int siwl_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct sockaddr_storage *addr = &id->m_local_addr;
	struct siwl_device *sdev = to_siwl_dev(id->device);
	struct net_device *netdev;
	struct siwl_lsock *ls;
	struct siwl_lep *lep;
	struct net *net;
	int rv = 0;

	if (addr->ss_family != AF_INET && addr->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	/* Shared by every device: an ephemeral port would not be. */
	if (!siwl_addr_port(addr))
		return -EINVAL;
	backlog = max(backlog, 1);

	netdev = siwl_netdev_get(sdev);
	if (!netdev)
		return -ENODEV;
	net = maybe_get_net(dev_net(netdev));
	dev_put(netdev);
	if (!net)
		return -ENODEV;

	lep = kzalloc(sizeof(*lep), GFP_KERNEL);
	if (!lep) {
		put_net(net);
		return -ENOMEM;
	}
	kref_init(&lep->ref);
	lep->sdev = sdev;

	mutex_lock(&siwl_listen_lock);
	ls = siwl_lsock_find(net, addr, id->afonly);
	if (!ls) {
		ls = siwl_lsock_create(sdev, addr, id->afonly, backlog);
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
	id->provider_data = lep;
	pr_debug("%s: listening on %pISpc\n", dev_name(&sdev->ibdev.dev),
		 addr);
out:
	mutex_unlock(&siwl_listen_lock);
	put_net(net);
	if (rv) {
		pr_debug("%s: cannot listen on %pISpc: %d\n",
			 dev_name(&sdev->ibdev.dev), addr, rv);
		kfree(lep);
	}
	return rv;
}

int siwl_iw_destroy_listen(struct iw_cm_id *id)
{
	struct siwl_lep *lep = id->provider_data;
	struct siwl_lsock *ls;
	bool last;

	if (!lep)
		return -EINVAL;
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
	id->provider_data = NULL;

	if (last) {
		siwl_lsock_close(ls);
		kref_put(&ls->ref, siwl_lsock_free);
	}
	/*
	 * Connections still reading their Request keep the lep, and so the
	 * id, until they find it no longer listening.
	 */
	kref_put(&lep->ref, siwl_lep_free);
	pr_debug("%s: stopped listening\n", dev_name(&id->device->dev));
	return 0;
}

/* ---- module init/exit ----------------------------------------------------- */

int siwl_cm_init(void)
{
	/*
	 * Ordered: CM steps are short and never block, and one at a time
	 * keeps a connection's events in order. Reclaim-safe because
	 * storage ULPs close connections under memory pressure.
	 */
	siwl_cm_wq = alloc_ordered_workqueue("siwl_cm", WQ_MEM_RECLAIM);
	return siwl_cm_wq ? 0 : -ENOMEM;
}

/* Called once every device is gone, hence every iw_cm_id of ours. */
void siwl_cm_exit(void)
{
	struct siwl_lsock *ls, *tmp;
	struct siwl_lep *lep, *ltmp;
	struct siwl_cep *cep;
	unsigned long flags;
	bool found;

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

	/* Whatever still has a socket (a Request in flight) goes now. */
	spin_lock_irqsave(&siwl_ceps_lock, flags);
	list_for_each_entry(cep, &siwl_ceps, all) {
		if (!kref_get_unless_zero(&cep->ref))
			continue;
		set_bit(SIWL_EV_ABORT, &cep->events);
		/* A queued work holds a reference: never the last put. */
		if (!queue_work(siwl_cm_wq, &cep->work))
			kref_put(&cep->ref, siwl_cep_free);
	}
	spin_unlock_irqrestore(&siwl_ceps_lock, flags);

	while (!wait_event_timeout(siwl_cm_idle, !atomic_read(&siwl_cm_live),
				   10 * HZ))
		pr_warn("waiting for %d connections to close\n",
			atomic_read(&siwl_cm_live));
	destroy_workqueue(siwl_cm_wq);

	/*
	 * A CONNECT_REQUEST iw_cm dropped (no memory for the new id, or its
	 * listener was being destroyed) never gets accept or reject; with
	 * the devices gone nothing can call them any more.
	 */
	do {
		found = false;
		spin_lock_irqsave(&siwl_ceps_lock, flags);
		list_for_each_entry(cep, &siwl_ceps, all) {
			if (cep->iwcm_ref) {
				cep->iwcm_ref = false;
				found = true;
				break;
			}
		}
		spin_unlock_irqrestore(&siwl_ceps_lock, flags);
		if (found)
			siwl_cep_put(cep);
	} while (found);

	spin_lock_irqsave(&siwl_ceps_lock, flags);
	WARN_ONCE(!list_empty(&siwl_ceps),
		  "connection endpoints still referenced at unload\n");
	spin_unlock_irqrestore(&siwl_ceps_lock, flags);
}
