/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim: a socket with a receive queue of linear skbs. lock_sock() may
 * sleep, so it checks that no spinlock is held (RX must not sleep, see
 * siw_lite.rst "Locking and contexts").
 */
#ifndef KSHIM_NET_SOCK_H
#define KSHIM_NET_SOCK_H

#include "../kshim.h"
#include "../linux/net.h"
#include "../linux/skbuff.h"

struct sock {
	int sk_state;
	bool owned;			/* lock_sock() held */
	struct sk_buff *rx_head;	/* receive queue, oldest first */
	struct sk_buff **rx_tail;
	u64 copied;			/* stream bytes read so far */
	u64 queued;			/* stream bytes queued so far */
};

void lock_sock(struct sock *sk);
void release_sock(struct sock *sk);

/*
 * The harness's side: an empty queue, a new skb holding stream octets
 * [@from, @to) of @stream (@from may lie before what was queued so far,
 * never after it), and freeing what is left.
 */
void kshim_sk_init(struct sock *sk);
void kshim_sk_queue(struct sock *sk, const u8 *stream, u64 from, u64 to);
void kshim_sk_purge(struct sock *sk);

#endif /* KSHIM_NET_SOCK_H */
