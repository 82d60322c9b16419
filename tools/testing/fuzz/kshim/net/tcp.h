/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim: the TCP socket as rx.c sees it: tcp_read_sock() over the
 * receive queue, and the receive window numbers that
 * siwl_rx_window_update() reads.
 */
#ifndef KSHIM_NET_TCP_H
#define KSHIM_NET_TCP_H

#include "../kshim.h"
#include "sock.h"

#define TCP_ESTABLISHED		1
#define TCP_CLOSE		7

struct inet_connection_sock {
	struct sock icsk_inet;
	struct {
		u32 rcv_mss;
	} icsk_ack;
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u32 rcv_nxt;
	u32 copied_seq;
	u32 rcv_wup;
	u32 rcv_wnd;
	u32 window_clamp;
	int space;			/* what tcp_space() says (kshim) */
	unsigned int acks;		/* __tcp_send_ack() calls (kshim) */
};

#define tcp_sk(s)	container_of(s, struct tcp_sock, inet_conn.icsk_inet)
#define inet_csk(s)	container_of(s, struct inet_connection_sock, icsk_inet)

/* What is left of the window last advertised. */
static inline u32 tcp_receive_window(const struct tcp_sock *tp)
{
	s32 win = tp->rcv_wup + tp->rcv_wnd - tp->rcv_nxt;

	return win < 0 ? 0 : win;
}

static inline int tcp_space(const struct sock *sk)
{
	return tcp_sk(sk)->space;
}

/*
 * Hands the unread queue to @actor, skb by skb: an skb it used up is
 * freed and the next one offered, a partly used one offered again from
 * where it stopped, and the read ends when the actor returns <= 0 or the
 * queue is empty. Returns the bytes used.
 */
int tcp_read_sock(struct sock *sk, read_descriptor_t *desc,
		  sk_read_actor_t actor);

void __tcp_send_ack(struct sock *sk, u32 rcv_nxt);

#endif /* KSHIM_NET_TCP_H */
