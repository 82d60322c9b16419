/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: the kernel interfaces that differ between the kernels we build
 * for (Debian's 6.1 and 6.12), in one place.
 *
 * Each difference is decided by a probe of the kernel's headers at build
 * time (Kbuild defines SIWL_HAVE_*), never by LINUX_VERSION_CODE: Debian
 * and other distributions backport interface changes into their stable
 * kernels, so a version number can lie where a header cannot. The rest of
 * the driver calls the helpers below and has no #if of its own; the one
 * exception is the unaligned-access header, chosen in wire_compat.h
 * because the wire code also builds in user space.
 */
#ifndef SIWL_COMPAT_H
#define SIWL_COMPAT_H

#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/tcp.h>
#include <rdma/ib_verbs.h>

/*
 * create_cq: since 6.11 the op receives the uverbs attribute bundle (NULL
 * for a kernel consumer) instead of the udata, which is its first member.
 */
#ifdef SIWL_HAVE_CREATE_CQ_ATTRS
#include <rdma/uverbs_ioctl.h>

#define siwl_create_cq_arg uverbs_attr_bundle

static inline struct ib_udata *
siwl_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define siwl_create_cq_arg ib_udata

static inline struct ib_udata *siwl_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * Sends @len bytes of @page from @off by reference: TCP takes a page
 * reference per skb fragment and copies nothing. kernel_sendpage() was
 * removed in 6.5 for MSG_SPLICE_PAGES, which does the same through
 * sendmsg. Either way the page stays referenced until TCP (and a local
 * receiver) is done with it, which is what the FPDU buffer rotation
 * (tx.c) checks with page_count().
 */
static inline int siwl_sendpage(struct socket *sock, struct page *page,
				unsigned int off, size_t len, int flags)
{
#ifdef SIWL_HAVE_MSG_SPLICE_PAGES
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };
	struct bio_vec bv;

	bvec_set_page(&bv, page, len, off);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bv, 1, len);
	return sock_sendmsg(sock, &msg);
#else
	return kernel_sendpage(sock, page, off, len, flags);
#endif
}

/*
 * An immediate ACK carrying the current receive window (what
 * tcp_send_ack() does, which is not exported): __tcp_send_ack() gained a
 * TCP flags argument in 6.11. Under the socket lock.
 */
static inline void siwl_tcp_send_ack(struct sock *sk)
{
#ifdef SIWL_HAVE_TCP_SEND_ACK_FLAGS
	__tcp_send_ack(sk, tcp_sk(sk)->rcv_nxt, 0);
#else
	__tcp_send_ack(sk, tcp_sk(sk)->rcv_nxt);
#endif
}

/*
 * The zero-copy completion callback of a ubuf_info: a member of its own
 * until 6.9, behind struct ubuf_info_ops since 6.10.
 * SIWL_DEFINE_UBUF_OPS(name, fn) defines what siwl_ubuf_set_ops() installs.
 */
typedef void (*siwl_ubuf_complete_t)(struct sk_buff *skb,
				     struct ubuf_info *ubuf, bool success);

#ifdef SIWL_HAVE_UBUF_INFO_OPS
#define SIWL_DEFINE_UBUF_OPS(name, fn) \
	static const struct ubuf_info_ops name = { .complete = (fn) }

static inline void siwl_ubuf_set_ops(struct ubuf_info *ubuf,
				     const struct ubuf_info_ops *ops)
{
	ubuf->ops = ops;
}
#else
#define SIWL_DEFINE_UBUF_OPS(name, fn) \
	static const siwl_ubuf_complete_t name = (fn)

static inline void siwl_ubuf_set_ops(struct ubuf_info *ubuf,
				     const siwl_ubuf_complete_t *ops)
{
	ubuf->callback = *ops;
}
#endif

#endif /* SIWL_COMPAT_H */
