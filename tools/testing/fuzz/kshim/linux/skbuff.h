/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim: a socket buffer is one linear piece of the TCP byte stream. Its
 * first @seq_skip bytes may have been read already (a retransmission or a
 * coalesced skb overlapping what was consumed), as in a real receive
 * queue; tcp_read_sock() (net/tcp.h) hands the actor the unread part.
 */
#ifndef KSHIM_LINUX_SKBUFF_H
#define KSHIM_LINUX_SKBUFF_H

#include "../kshim.h"

struct sk_buff {
	unsigned int len;	/* bytes at @data */
	u8 *data;		/* own allocation, exactly @len bytes */
	u64 seq;		/* stream offset of data[0] */
	struct sk_buff *next;	/* receive queue */
};

/*
 * Copies @len bytes at @offset of @skb to @to: 0, or -EFAULT if the skb
 * does not hold them all.
 */
int skb_copy_bits(const struct sk_buff *skb, int offset, void *to, int len);

/* Zero-copy notification; compat.h installs its callback. */
struct ubuf_info {
	void (*callback)(struct sk_buff *skb, struct ubuf_info *ubuf,
			 bool success);
};

#endif /* KSHIM_LINUX_SKBUFF_H */
