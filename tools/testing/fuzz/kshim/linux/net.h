/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: the socket and the tcp_read_sock() actor interface. */
#ifndef KSHIM_LINUX_NET_H
#define KSHIM_LINUX_NET_H

#include "../kshim.h"

struct page;
struct sk_buff;
struct sock;

struct socket {
	struct sock *sk;
};

typedef struct {
	size_t written;
	size_t count;
	union {
		char *buf;
		void *data;
	} arg;
	int error;
} read_descriptor_t;

/* Returns the bytes it used of the @len at @off; <= 0 stops the read. */
typedef int (*sk_read_actor_t)(read_descriptor_t *desc, struct sk_buff *skb,
			       unsigned int off, size_t len);

/* TX only (compat.h); fails the run if ever called from RX. */
int kernel_sendpage(struct socket *sock, struct page *page, int offset,
		    size_t size, int flags);

#endif /* KSHIM_LINUX_NET_H */
