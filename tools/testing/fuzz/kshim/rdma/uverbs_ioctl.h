/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: the uverbs pieces uring.h names; RX never reaches user verbs. */
#ifndef KSHIM_RDMA_UVERBS_IOCTL_H
#define KSHIM_RDMA_UVERBS_IOCTL_H

#include "ib_verbs.h"

struct ib_udata {
	const void *inbuf;
	void *outbuf;
	size_t inlen;
	size_t outlen;
};

struct uverbs_attr_bundle {
	struct ib_udata driver_udata;
	struct ib_ucontext *context;
};

static inline struct uverbs_attr_bundle *
rdma_udata_to_uverbs_attr_bundle(struct ib_udata *udata)
{
	return container_of(udata, struct uverbs_attr_bundle, driver_udata);
}

struct rdma_user_mmap_entry {
	u64 start_pgoff;
	size_t npages;
};

#endif /* KSHIM_RDMA_UVERBS_IOCTL_H */
