// SPDX-License-Identifier: GPL-2.0
/*
 * The run-time side of kshim.h: lock rank checks, recorded work, and a
 * socket whose receive queue the harness fills with pieces of the fuzzed
 * byte stream. One thread; every check aborts.
 */
#include <string.h>

#include <net/tcp.h>

unsigned long jiffies;
bool kshim_in_softirq;
int kshim_rcu_depth;

#define KSHIM_MAX_HELD	8

static spinlock_t *kshim_held[KSHIM_MAX_HELD];
static int kshim_nheld;

void kshim_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: kernel rule broken: %s\n", file, line, what);
	abort();
}

void kshim_lock(spinlock_t *l)
{
	int i;

	/* Taking a spinlock we hold is a self-deadlock. */
	KSHIM_CHECK(!l->held);
	for (i = 0; i < kshim_nheld; i++)
		if (l->rank && kshim_held[i]->rank)
			KSHIM_CHECK(kshim_held[i]->rank < l->rank);
	KSHIM_CHECK(kshim_nheld < KSHIM_MAX_HELD);
	kshim_held[kshim_nheld++] = l;
	l->held = true;
}

void kshim_unlock(spinlock_t *l)
{
	int i;

	KSHIM_CHECK(l->held);
	for (i = 0; i < kshim_nheld; i++)
		if (kshim_held[i] == l)
			break;
	KSHIM_CHECK(i < kshim_nheld);
	/* Release order is free; keep the rest in acquisition order. */
	memmove(&kshim_held[i], &kshim_held[i + 1],
		(kshim_nheld - i - 1) * sizeof(kshim_held[0]));
	kshim_nheld--;
	l->held = false;
}

int kshim_locks_held(void)
{
	return kshim_nheld;
}

void kshim_might_sleep(const char *file, int line)
{
	if (kshim_nheld || kshim_rcu_depth)
		kshim_fail(file, line, "sleeping in atomic context");
}

/* Work: count the queueing; the harness runs items when it chooses. */
bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	(void)wq;
	return !work->queued++;
}

bool queue_work_on(int cpu, struct workqueue_struct *wq,
		   struct work_struct *work)
{
	(void)cpu;
	return queue_work(wq, work);
}

bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw,
			unsigned long delay)
{
	if (dw->work.queued)
		return false;
	dw->delay = delay;
	return queue_work(wq, &dw->work);
}

bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw,
		      unsigned long delay)
{
	bool was = dw->work.queued;

	dw->delay = delay;
	queue_work(wq, &dw->work);
	return was;
}

void lock_sock(struct sock *sk)
{
	might_sleep();
	KSHIM_CHECK(!sk->owned);
	sk->owned = true;
}

void release_sock(struct sock *sk)
{
	KSHIM_CHECK(sk->owned);
	sk->owned = false;
}

void __tcp_send_ack(struct sock *sk, u32 rcv_nxt)
{
	struct tcp_sock *tp = tcp_sk(sk);

	/* compat.h: under the socket lock. */
	KSHIM_CHECK(sk->owned);
	KSHIM_CHECK(rcv_nxt == tp->rcv_nxt);
	tp->acks++;
	/* The window we advertise now starts where the peer has got to. */
	tp->rcv_wup = tp->rcv_nxt;
}

int kernel_sendpage(struct socket *sock, struct page *page, int offset,
		    size_t size, int flags)
{
	(void)sock;
	(void)page;
	(void)offset;
	(void)size;
	(void)flags;
	kshim_fail(__FILE__, __LINE__, "RX transmitted");
}

int skb_copy_bits(const struct sk_buff *skb, int offset, void *to, int len)
{
	/* The driver passes what it computed: check before trusting it. */
	if (offset < 0 || len < 0 || (unsigned int)offset > skb->len ||
	    (unsigned int)len > skb->len - offset)
		return -EFAULT;
	memcpy(to, skb->data + offset, len);
	return 0;
}

static void kshim_skb_free(struct sock *sk)
{
	struct sk_buff *skb = sk->rx_head;

	sk->rx_head = skb->next;
	if (!sk->rx_head)
		sk->rx_tail = &sk->rx_head;
	free(skb->data);
	free(skb);
}

int tcp_read_sock(struct sock *sk, read_descriptor_t *desc,
		  sk_read_actor_t actor)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sk_buff *skb;
	int copied = 0;

	while ((skb = sk->rx_head)) {
		/* An skb may start before what was read: skip that part. */
		u64 off = sk->copied - skb->seq;
		size_t len;
		int used;

		KSHIM_CHECK(skb->seq <= sk->copied);
		if (off < skb->len) {
			len = skb->len - off;
			used = actor(desc, skb, off, len);
			if (used <= 0) {
				if (!copied)
					copied = used;
				break;
			}
			/* An actor never takes more than it was offered. */
			KSHIM_CHECK((size_t)used <= len);
			sk->copied += used;
			copied += used;
			tp->copied_seq = (u32)sk->copied;
			if ((size_t)used < len)
				continue;
		}
		kshim_skb_free(sk);
		if (!desc->count)
			break;
	}
	return copied;
}

void kshim_sk_init(struct sock *sk)
{
	sk->rx_head = NULL;
	sk->rx_tail = &sk->rx_head;
	sk->copied = 0;
	sk->queued = 0;
	sk->owned = false;
}

void kshim_sk_queue(struct sock *sk, const u8 *stream, u64 from, u64 to)
{
	struct sk_buff *skb;

	KSHIM_CHECK(from <= sk->queued && from < to);
	skb = calloc(1, sizeof(*skb));
	KSHIM_CHECK(skb);
	skb->len = to - from;
	/* Exactly the octets: ASan sees any read past the end. */
	skb->data = malloc(skb->len);
	KSHIM_CHECK(skb->data);
	memcpy(skb->data, stream + from, skb->len);
	skb->seq = from;
	*sk->rx_tail = skb;
	sk->rx_tail = &skb->next;
	if (to > sk->queued)
		sk->queued = to;
	tcp_sk(sk)->rcv_nxt = (u32)sk->queued;
}

void kshim_sk_purge(struct sock *sk)
{
	while (sk->rx_head)
		kshim_skb_free(sk);
}
