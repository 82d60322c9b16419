/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: rings shared with user space (include/uapi/rdma/siw_lite-abi.h).
 *
 * The kernel side of a ring: vmalloc'ed memory mapped into the process
 * through an rdma_user_mmap_entry. Whatever user space writes there may
 * change at any time, so the kernel reads each shared index and entry
 * exactly once (READ_ONCE / one memcpy into a private copy) and keeps the
 * index it owns in a private field of its object, never reading it back.
 */
#ifndef SIWL_URING_H
#define SIWL_URING_H

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/siw_lite-abi.h>

struct siwl_uring {
	struct siw_lite_ring *hdr;
	void *entries;
	u32 num;		/* entries, a power of two */
	u32 entry_size;
	size_t size;		/* bytes mapped */
	struct rdma_user_mmap_entry *mentry;
};

struct siwl_mmap_entry {
	struct rdma_user_mmap_entry base;
	void *addr;
};

/*
 * Allocates a ring of at least @min_entries (rounded up to a power of two)
 * and makes it mappable in @uctx; *@key is the mmap offset to hand out.
 */
int siwl_uring_alloc(struct siwl_uring *r, struct ib_ucontext *uctx,
		     u32 min_entries, u32 entry_size, u64 *key);

/* Unpublishes and frees a ring; existing mappings keep their pages. */
void siwl_uring_free(struct siwl_uring *r);

static inline void *siwl_uring_entry(const struct siwl_uring *r, u32 pos)
{
	return r->entries + (size_t)(pos & (r->num - 1)) * r->entry_size;
}

/*
 * Reads the create request every ring-capable object shares (struct
 * siw_lite_ureq_create_{cq,qp,srq}): *@want is true when user space asks
 * for rings. No request (an older provider, or a kernel consumer) means no
 * rings. Unknown flags, reserved fields or trailing bytes that are not
 * zero are refused.
 */
int siwl_uring_wanted(struct ib_udata *udata, bool *want);

/* The ucontext of a user verb's @udata. */
static inline struct ib_ucontext *siwl_uctx(struct ib_udata *udata)
{
	return rdma_udata_to_uverbs_attr_bundle(udata)->context;
}

/* Driver response of a verb, zero-filled to the provider's length. */
int siwl_respond(struct ib_udata *udata, void *resp, size_t len);

/* ib_device_ops.mmap / .mmap_free / .disassociate_ucontext */
int siwl_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void siwl_mmap_free(struct rdma_user_mmap_entry *entry);
void siwl_disassociate_ucontext(struct ib_ucontext *uctx);

#endif /* SIWL_URING_H */
