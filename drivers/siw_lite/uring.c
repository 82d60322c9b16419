// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: memory of the rings shared with user space, and their mmap.
 *
 * A ring's pages are vmalloc'ed and inserted into the user's VMA page by
 * page, so each mapping holds its own page references and outlives the
 * ring's owner safely. The vmalloc area itself is freed with the mmap
 * entry, when the owner has unpublished it and no mmap() that found it is
 * still running.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "uring.h"

int siwl_uring_alloc(struct siwl_uring *r, struct ib_ucontext *uctx,
		     u32 min_entries, u32 entry_size, u64 *key)
{
	struct siwl_mmap_entry *me;
	void *mem;
	int rv;

	memset(r, 0, sizeof(*r));
	r->num = roundup_pow_of_two(max_t(u32, min_entries, 1));
	r->entry_size = entry_size;
	r->size = PAGE_ALIGN(SIW_LITE_RING_ENTRIES +
			     (size_t)r->num * entry_size);

	mem = vmalloc_user(r->size);
	if (!mem)
		return -ENOMEM;
	me = kzalloc(sizeof(*me), GFP_KERNEL);
	if (!me) {
		vfree(mem);
		return -ENOMEM;
	}
	me->addr = mem;
	rv = rdma_user_mmap_entry_insert(uctx, &me->base, r->size);
	if (rv) {
		kfree(me);
		vfree(mem);
		return rv;
	}
	r->hdr = mem;
	r->entries = mem + SIW_LITE_RING_ENTRIES;
	r->mentry = &me->base;
	*key = rdma_user_mmap_get_offset(&me->base);
	return 0;
}

void siwl_uring_free(struct siwl_uring *r)
{
	if (!r->hdr)
		return;
	/* Memory and entry go in siwl_mmap_free() once unreferenced. */
	rdma_user_mmap_entry_remove(r->mentry);
	r->hdr = NULL;
	r->entries = NULL;
	r->mentry = NULL;
}

int siwl_uring_wanted(struct ib_udata *udata, bool *want)
{
	struct siw_lite_ureq_create_qp req = {};
	int rv;

	/* The three create requests share one layout. */
	BUILD_BUG_ON(sizeof(struct siw_lite_ureq_create_cq) != sizeof(req));
	BUILD_BUG_ON(sizeof(struct siw_lite_ureq_create_srq) != sizeof(req));

	*want = false;
	if (!udata || !udata->inlen)
		return 0;
	/* Every field of ABI version 1, or nothing (siw_lite-abi.h). */
	if (udata->inlen < sizeof(req))
		return -EINVAL;
	if (udata->inlen > sizeof(req) &&
	    !ib_is_udata_cleared(udata, sizeof(req),
				 udata->inlen - sizeof(req)))
		return -EINVAL;
	rv = ib_copy_from_udata(&req, udata, sizeof(req));
	if (rv)
		return rv;
	if (req.flags & ~SIW_LITE_USE_RING || req.rsvd)
		return -EINVAL;
	*want = req.flags & SIW_LITE_USE_RING;
	return 0;
}

/*
 * Copies @len bytes of response, or as much as the provider has room for,
 * and zero-fills the room beyond @len: a newer provider may expect fields
 * this kernel does not know of (siw_lite-abi.h), and must read them as 0.
 */
int siwl_respond(struct ib_udata *udata, void *resp, size_t len)
{
	int rv;

	if (!udata)
		return 0;
	rv = ib_copy_to_udata(udata, resp, min(udata->outlen, len));
	if (rv)
		return rv;
	if (udata->outlen > len &&
	    clear_user(udata->outbuf + len, udata->outlen - len))
		return -EFAULT;
	return 0;
}

int siwl_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct siwl_mmap_entry *me;
	int rv;

	/* The whole ring, from its start, or nothing. */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	me = container_of(entry, struct siwl_mmap_entry, base);
	if (vma->vm_end - vma->vm_start != entry->npages * PAGE_SIZE) {
		rv = -EINVAL;
		goto out;
	}
	rv = remap_vmalloc_range(vma, me->addr, 0);
out:
	rdma_user_mmap_entry_put(entry);
	return rv;
}

void siwl_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct siwl_mmap_entry *me =
		container_of(entry, struct siwl_mmap_entry, base);

	vfree(me->addr);
	kfree(me);
}

/*
 * Device removal (rdma link delete, netdev removal, rmmod) with processes
 * still holding contexts: with this op the core destroys their objects
 * through the usual destroy verbs and lets them see EIO from then on,
 * instead of waiting for them to exit. Nothing of ours outlives that:
 * ring pages stay mapped only through the page references the mapping
 * took (remap_vmalloc_range()), never through a pointer into the kernel,
 * and no hardware needs quiescing.
 */
void siwl_disassociate_ucontext(struct ib_ucontext *uctx)
{
}
