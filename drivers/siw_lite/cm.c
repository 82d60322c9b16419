// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: connection management, the iw_cm provider side: connection
 * endpoints and the iw_cm verbs.
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
 * A CEP's mutex may be held while taking the listeners' lock (in
 * cm_listen.c): a passive CEP does so to give back its place in the
 * backlog and to report CONNECT_REQUEST. Listeners never take a CEP's
 * mutex under theirs.
 *
 * The listeners, which accept connections and hand each one to
 * siwl_passive_start(), are in cm_listen.c; socket and address helpers
 * without connection state are in cm_sock.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
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
#include <net/sock.h>
#include <net/tcp_states.h>
#include <rdma/iw_cm.h>

#include "cm.h"
#include "cm_internal.h"
#include "cm_listen.h"
#include "cm_sock.h"
#include "mpa_wire.h"
#include "qp.h"
#include "qp_engine.h"
#include "rx.h"
#include "siw_lite.h"
#include "trace.h"

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
	/*
	 * Passive: the listener's device, from CONNECT_REQUEST while
	 * @iwcm_ref is held (iw_cm rejects through us before the device
	 * can go), for the counters only.
	 */
	struct ib_device *req_dev;
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

struct workqueue_struct *siwl_cm_wq;

static LIST_HEAD(siwl_ceps);
/* siwl_ceps and the iw_cm_id.provider_data of CONNECT_REQUESTs. */
static DEFINE_SPINLOCK(siwl_ceps_lock);

/* CEPs owning a socket; module unload waits for none to be left. */
static atomic_t siwl_cm_live = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(siwl_cm_idle);

/* trace.h prints the states by these numbers. */
static_assert(SIWL_CEP_NEW == 0 && SIWL_CEP_CONNECTING == 1 &&
	      SIWL_CEP_AWAIT_REPLY == 2 && SIWL_CEP_AWAIT_REQUEST == 3 &&
	      SIWL_CEP_AWAIT_ULP == 4 && SIWL_CEP_RDMA == 5 &&
	      SIWL_CEP_CLOSING == 6 && SIWL_CEP_CLOSED == 7);

static void siwl_cep_set_state(struct siwl_cep *cep,
			       enum siwl_cep_state state)
{
	trace_cm_state(cep, cep->state, state);
	cep->state = state;
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

struct siwl_cep *siwl_cep_alloc(bool active)
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

/*
 * The CEP's device while something keeps it: the connection's cm_id (held
 * until teardown), or a CONNECT_REQUEST's listener device while iw_cm
 * still has to answer it. NULL otherwise. Under cep->mutex.
 */
static struct ib_device *siwl_cep_ibdev(const struct siwl_cep *cep)
{
	if (cep->cm_id)
		return cep->cm_id->device;
	if (cep->iwcm_ref)
		return cep->req_dev;
	return NULL;
}

/* Why a peer was turned away or gave up, without flooding the log. */
static __printf(2, 3) void siwl_cep_info(struct siwl_cep *cep,
					 const char *fmt, ...)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	struct sockaddr_storage peer;
	struct ib_device *dev;
	struct va_format vaf;
	va_list args;

	if (!__ratelimit(&rs))
		return;
	siwl_cep_peer(cep, &peer);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	dev = siwl_cep_ibdev(cep);
	if (dev)
		ibdev_info(dev, "%pISpc: %pV\n", &peer, &vaf);
	else
		pr_info("%pISpc: %pV\n", &peer, &vaf);
	va_end(args);
}

/*
 * Counts @idx on the CEP's device: its connection's cm_id's, which the CEP
 * holds until teardown, or before CONNECT_REQUEST its listener's, looked
 * at under the listeners' lock: once destroy_listen has run, the device
 * may be going too, and nothing is counted. Under cep->mutex.
 */
static void siwl_cep_stat(struct siwl_cep *cep, enum siwl_stat idx)
{
	struct ib_device *dev = siwl_cep_ibdev(cep);
	struct iw_cm_id *id;

	if (dev) {
		siwl_stat_inc(to_siwl_dev(dev)->stats, idx);
		return;
	}
	if (!cep->lep)
		return;
	id = siwl_lep_lock(cep->lep);
	if (id)
		siwl_stat_inc(to_siwl_dev(id->device)->stats, idx);
	siwl_lep_unlock();
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
	siwl_cep_set_state(cep, SIWL_CEP_RDMA);
}

/* ---- what a passive CEP holds of its listener ------------------------- */

/* The ULP answered (or the CEP is gone): make room for another. */
static void siwl_cep_unpend(struct siwl_cep *cep)
{
	struct siwl_lsock *ls = cep->ls;

	if (!ls)
		return;
	cep->ls = NULL;
	siwl_lsock_unpend(ls);
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
		siwl_lep_put(cep->lep);
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
	siwl_cep_set_state(cep, SIWL_CEP_CLOSED);
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

/* mpa_rr_build() into cep->buf, traced. */
static ssize_t siwl_cep_build_rr(struct siwl_cep *cep, enum mpa_rr_type type,
				 const struct mpa_rr_build *b)
{
	ssize_t len = mpa_rr_build(cep->buf, sizeof(cep->buf), type, b);

	if (len > 0)
		trace_mpa_tx(cep, type == MPA_RR_REQUEST, b->rev, b->crc,
			     b->markers, b->reject, b->enhanced, &b->v2);
	return len;
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
		/* Whole and understood, if not acceptable. */
		if (!rv || rv == -ECONNREFUSED || rv == -EOPNOTSUPP)
			trace_mpa_rx(cep, type == MPA_RR_REQUEST, info->rev,
				     info->crc, info->markers, info->reject,
				     info->enhanced, &info->v2);
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
		len = siwl_cep_build_rr(cep, MPA_RR_REPLY, &b);
		if (len > 0 && !siwl_cep_send(cep, cep->buf, len))
			siwl_cep_stat(cep, SIWL_STAT_MPA_REJ_SENT);
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
		siwl_cep_stat(cep, SIWL_STAT_MPA_ERRORS);
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
			siwl_cep_stat(cep, SIWL_STAT_MPA_ERRORS);
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
		siwl_cep_stat(cep, SIWL_STAT_MPA_REP_RCVD);
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
		siwl_cep_stat(cep, SIWL_STAT_MPA_REJ_RCVD);
		pr_debug("cep %p: peer rejected the connection\n", cep);
		if (info.ulp_pd_len <= U8_MAX)
			siwl_cep_keep_pdata(cep, &info);
		siwl_active_fail(cep, -ECONNREFUSED, false);
		return;
	case -EPROTO:
	case -EOPNOTSUPP:
		siwl_cep_stat(cep, SIWL_STAT_MPA_ERRORS);
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
	siwl_cep_stat(cep, SIWL_STAT_MPA_REQ_SENT);
	pr_debug("cep %p: MPA Request sent (%u octets)\n", cep, cep->tx_len);
	cep->rx_len = 0;
	siwl_cep_set_state(cep, SIWL_CEP_AWAIT_REPLY);
	siwl_cep_arm(cep, SIWL_MPA_REP_TIMEOUT);
	siwl_active_reply(cep, 0);
}

/* ---- passive side ------------------------------------------------------- */

void siwl_passive_start(struct siwl_cep *cep, struct socket *sock,
			struct siwl_lep *lep, struct siwl_lsock *ls,
			void (*orig_data_ready)(struct sock *sk))
{
	tcp_sock_set_nodelay(sock->sk);
	mutex_lock(&cep->mutex);
	cep->lep = lep;
	cep->ls = ls;
	siwl_cep_attach_sock(cep, sock, orig_data_ready);
	siwl_cep_set_state(cep, SIWL_CEP_AWAIT_REQUEST);
	siwl_cep_arm(cep, SIWL_MPA_REQ_TIMEOUT);
	mutex_unlock(&cep->mutex);
	/* The Request may have arrived before our callbacks were in place. */
	siwl_cep_event(cep, SIWL_EV_DATA);
}

static void siwl_passive_deliver(struct siwl_cep *cep)
{
	struct siwl_lep *lep = cep->lep;
	u32 ird = SIWL_MAX_IRD, ord = SIWL_MAX_ORD;
	struct iw_cm_id *listen_id;
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

	siwl_cep_set_state(cep, SIWL_CEP_AWAIT_ULP);
	/* For the cm_id iw_cm creates with provider_data = cep. */
	siwl_cep_get(cep);
	cep->iwcm_ref = true;
	/*
	 * Under the listeners' lock: once destroy_listen has returned, iw_cm
	 * must not see another CONNECT_REQUEST on that id.
	 */
	listen_id = siwl_lep_lock(lep);
	if (listen_id) {
		cep->req_dev = listen_id->device;
		rv = siwl_cep_upcall(cep, listen_id,
				     IW_CM_EVENT_CONNECT_REQUEST, 0, ird, ord,
				     true);
	}
	siwl_lep_unlock();
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
	siwl_lep_put(lep);
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
	if (rv == 0 || rv == -EOPNOTSUPP)
		siwl_cep_stat(cep, SIWL_STAT_MPA_REQ_RCVD);
	else if (rv == -EPROTO)
		siwl_cep_stat(cep, SIWL_STAT_MPA_ERRORS);
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
	if (status == -ECONNRESET)
		siwl_qp_stat_inc(cep->qp, SIWL_STAT_CONN_RESETS);
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
		siwl_cep_set_state(cep, SIWL_CEP_CLOSING);
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

/*
 * Initiator: what we ask for, from the module parameters and @param, and
 * the MPA Request that says so, built into cep->buf now: the ULP's
 * private data is only ours during the connect call.
 */
static int siwl_active_build_request(struct siwl_cep *cep,
				     const struct iw_cm_conn_param *param)
{
	unsigned int rev = READ_ONCE(mpa_rev);
	struct mpa_rr_build b = {};
	ssize_t len;

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
	len = siwl_cep_build_rr(cep, MPA_RR_REQUEST, &b);
	if (len < 0)
		return -EINVAL;
	cep->tx_len = len;
	return 0;
}

/* The initiator's socket, bound if the ULP chose a local address or port. */
static int siwl_active_sock(struct iw_cm_id *id, struct socket **res)
{
	struct sockaddr_storage *laddr = &id->m_local_addr;
	struct socket *sock;
	int rv;

	rv = siwl_sock_create(to_siwl_dev(id->device),
			      id->m_remote_addr.ss_family, &sock);
	if (rv)
		return rv;
	sock_set_reuseaddr(sock->sk);
	tcp_sock_set_nodelay(sock->sk);
	if (laddr->ss_family != AF_UNSPEC &&
	    (!siwl_addr_any(laddr) || siwl_addr_port(laddr))) {
		rv = siwl_sock_bind(sock, laddr);
		if (rv) {
			sock_release(sock);
			return rv;
		}
	}
	*res = sock;
	return 0;
}

/*
 * The CEP takes @sock and @id and starts the TCP handshake. Return: 0, or
 * connect()'s error with the CEP torn down.
 */
static int siwl_active_start(struct siwl_cep *cep, struct iw_cm_id *id,
			     struct socket *sock)
{
	struct sockaddr_storage *raddr = &id->m_remote_addr;
	int rv;

	siwl_cep_get(cep);		/* ours, for the call */
	mutex_lock(&cep->mutex);
	siwl_cep_attach_sock(cep, sock, NULL);
	id->add_ref(id);
	cep->cm_id = id;
	id->provider_data = cep;
	siwl_cep_set_state(cep, SIWL_CEP_CONNECTING);
	siwl_cep_arm(cep, SIWL_TCP_CONNECT_TIMEOUT);

	/* Completion (or failure) comes back through sk_state_change. */
	rv = siwl_sock_connect(sock, raddr);
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
}

int siwl_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct sockaddr_storage *laddr = &id->m_local_addr;
	struct sockaddr_storage *raddr = &id->m_remote_addr;
	sa_family_t family = raddr->ss_family;
	struct socket *sock;
	struct siwl_cep *cep;
	struct siwl_qp *qp;
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
	rv = siwl_active_build_request(cep, param);
	if (rv)
		goto err_free;
	rv = siwl_active_sock(id, &sock);
	if (rv)
		goto err_free;
	return siwl_active_start(cep, id, sock);

err_free:
	cep->qp = NULL;
	siwl_qp_put(qp);
	siwl_cep_put(cep);
	return rv;
}

/*
 * Responder: what we grant, negotiated from the peer's Request and the
 * ULP's @param into @p, and the MPA Reply that says so, built into
 * cep->buf. Return: the Reply's length, or an error to reject with.
 */
static ssize_t siwl_passive_build_reply(struct siwl_cep *cep,
					const struct iw_cm_conn_param *param,
					struct siwl_conn_params *p)
{
	struct mpa_v2_params rep = {};
	struct mpa_rr_build b = {};
	struct iw_term term;
	ssize_t len;
	int rv;

	p->ird = param->ird;
	p->ord = param->ord;
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
			return rv;
		}
		p->ird = rep.ird;
		p->ord = rep.ord;
		p->rtr = rep.p2p ? rep.rtr : 0;
	}
	p->crc = mpa_crc_negotiate(cep->crc,
				   READ_ONCE(mpa_crc) != SIWL_CRC_ACCEPT);

	b.rev = cep->rev;
	b.crc = p->crc;
	b.enhanced = cep->enhanced;
	b.v2 = rep;
	b.ulp_pd = param->private_data;
	b.ulp_pd_len = param->private_data_len;
	len = siwl_cep_build_rr(cep, MPA_RR_REPLY, &b);
	return len < 0 ? -EINVAL : len;
}

/*
 * Sends the Reply (@len octets in cep->buf) and hands the stream to @qp,
 * whose reference the CEP takes over. Return: 0, or an error with the
 * connection reset and the reference dropped.
 */
static int siwl_passive_up(struct siwl_cep *cep, struct iw_cm_id *id,
			   struct siwl_qp *qp, struct siwl_conn_params *p,
			   size_t len)
{
	int rv;

	siwl_cep_disarm(cep);
	/* RFC 5044 section 7.1: the Reply goes out before any FPDU. */
	rv = siwl_cep_send(cep, cep->buf, len);
	if (rv) {
		siwl_qp_put(qp);
		siwl_cep_teardown(cep, true);
		return -ECONNRESET;
	}
	siwl_stat_inc(to_siwl_dev(id->device)->stats, SIWL_STAT_MPA_REP_SENT);
	p->sock = cep->sock;
	p->initiator = false;
	p->mpa_rev = cep->rev;
	rv = siwl_qp_llp_up(qp, cep, p);
	if (rv) {
		/* The peer thinks it is connected: reset it. */
		pr_debug("cep %p: QP refused RTS: %d\n", cep, rv);
		siwl_qp_put(qp);
		siwl_cep_teardown(cep, true);
		return rv;
	}

	cep->qp = qp;
	id->add_ref(id);
	cep->cm_id = id;
	siwl_cep_go_rdma(cep);
	siwl_cep_upcall(cep, id, IW_CM_EVENT_ESTABLISHED, 0, p->ird, p->ord,
			false);
	siwl_cep_kick_rx(cep);
	return 0;
}

int siwl_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siwl_conn_params p = {};
	struct siwl_cep *cep;
	struct siwl_qp *qp;
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
	len = siwl_passive_build_reply(cep, param, &p);
	if (len < 0) {
		rv = len;
		siwl_qp_put(qp);
		goto out_reject;
	}
	rv = siwl_passive_up(cep, id, qp, &p, len);
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

/* ---- iw_cm verbs: listening ------------------------------------------- */

int siwl_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct sockaddr_storage *addr = &id->m_local_addr;
	struct siwl_lep *lep;

	if (addr->ss_family != AF_INET && addr->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	/* Shared by every device: an ephemeral port would not be. */
	if (!siwl_addr_port(addr))
		return -EINVAL;
	lep = siwl_listen_create(id, max(backlog, 1));
	if (IS_ERR(lep))
		return PTR_ERR(lep);
	id->provider_data = lep;
	return 0;
}

int siwl_iw_destroy_listen(struct iw_cm_id *id)
{
	struct siwl_lep *lep = id->provider_data;

	if (!lep)
		return -EINVAL;
	siwl_listen_destroy(lep);
	id->provider_data = NULL;
	pr_debug("%s: stopped listening\n", dev_name(&id->device->dev));
	return 0;
}

/* ---- module init/exit ----------------------------------------------------- */

/* What the QP calls to close its connection and to hold its CEP. */
static const struct siwl_llp_ops siwl_cm_llp_ops = {
	.close = siwl_cm_close,
	.get = siwl_cep_get,
	.put = siwl_cep_put,
};

int siwl_cm_init(void)
{
	siwl_llp_register(&siwl_cm_llp_ops);
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
	struct siwl_cep *cep;
	unsigned long flags;
	bool found;

	siwl_listen_exit();

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
