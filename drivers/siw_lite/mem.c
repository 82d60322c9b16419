// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: memory regions, STags and copies in and out of registered
 * memory.
 *
 * This is a software device registered without a DMA device, so every
 * "DMA address" a kernel ULP hands us (DMA MR addresses, fast-register
 * page addresses) is a kernel virtual address, while user MRs are pinned
 * pages reached through temporary kernel mappings.
 */
#include <linux/crc32c.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>

#include "mem.h"
#include "siw_lite.h"

/* Rights that let the peer reach an MR; a DMA MR never grants them. */
#define SIWL_ACCESS_REMOTE \
	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)

/* What a copy does with each contiguous piece of MR memory. */
enum siwl_copy_op {
	SIWL_COPY_TO_MR,
	SIWL_COPY_FROM_MR,
	SIWL_COPY_SKB_TO_MR,
};

struct siwl_copy {
	enum siwl_copy_op op;
	const void *src;
	void *dst;
	const struct sk_buff *skb;
	int skb_offset;
	u32 *crc;
};

static void siwl_mr_release(struct kref *ref)
{
	struct siwl_mr *mr = container_of(ref, struct siwl_mr, ref);

	complete(&mr->released);
}

struct siwl_mr *siwl_mr_get(struct siwl_device *sdev, u32 stag)
{
	struct siwl_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_table, siwl_stag_index(stag));
	if (mr && (READ_ONCE(mr->stag) != stag ||
		   !kref_get_unless_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

void siwl_mr_put(struct siwl_mr *mr)
{
	kref_put(&mr->ref, siwl_mr_release);
}

int siwl_mr_check(const struct siwl_mr *mr, const struct ib_pd *pd,
		  u64 addr, u64 len, int access)
{
	u64 start, size, off;
	int granted;

	/* Pairs with the release in siwl_mr_fast_reg(): layout before valid. */
	if (!smp_load_acquire(&mr->valid))
		return -ENOENT;
	if (mr->pd != pd)
		return -EACCES;

	granted = READ_ONCE(mr->access);
	if (mr->kind == SIWL_MR_DMA)
		granted &= ~SIWL_ACCESS_REMOTE;
	if (access & ~granted)
		return -EACCES;

	/* Compare offsets, never end addresses: addr + len may wrap. */
	start = READ_ONCE(mr->iova);
	size = READ_ONCE(mr->length);
	if (addr < start)
		return -EINVAL;
	off = addr - start;
	if (off > size || len > size - off)
		return -EINVAL;
	return 0;
}

static int siwl_copy_piece(struct siwl_copy *c, void *mem, u32 n)
{
	int rv;

	switch (c->op) {
	case SIWL_COPY_TO_MR:
		memcpy(mem, c->src, n);
		c->src += n;
		break;
	case SIWL_COPY_FROM_MR:
		memcpy(c->dst, mem, n);
		c->dst += n;
		break;
	case SIWL_COPY_SKB_TO_MR:
		rv = skb_copy_bits(c->skb, c->skb_offset, mem, n);
		if (rv)
			return rv;
		c->skb_offset += n;
		/* Summing while the bytes are hot spares a second pass. */
		if (c->crc)
			*c->crc = crc32c(*c->crc, mem, n);
		break;
	}
	return 0;
}

static int siwl_copy_user(struct siwl_mr *mr, u64 addr, u32 len,
			  struct siwl_copy *c)
{
	/* The umem starts ib_umem_offset() bytes into its first page. */
	u64 off = addr - mr->iova + ib_umem_offset(mr->umem);
	u64 idx = off >> PAGE_SHIFT;
	unsigned int pgoff = off & ~PAGE_MASK;
	struct page *page;
	void *kaddr;
	u32 n;
	int rv;

	while (len) {
		/* The caller checked the bounds; this only guards our math. */
		if (WARN_ON_ONCE(idx >= mr->nupages))
			return -EINVAL;
		page = mr->upages[idx];
		n = min_t(u32, len, PAGE_SIZE - pgoff);

		kaddr = kmap_local_page(page);
		rv = siwl_copy_piece(c, kaddr + pgoff, n);
		kunmap_local(kaddr);
		/* The user may map this page at an alias of our mapping. */
		if (c->op != SIWL_COPY_FROM_MR)
			flush_dcache_page(page);
		if (rv)
			return rv;

		len -= n;
		idx++;
		pgoff = 0;
	}
	return 0;
}

static int siwl_copy_frmr(struct siwl_mr *mr, u64 addr, u32 len,
			  struct siwl_copy *c)
{
	unsigned long flags;
	u64 bsize, off, idx, kva;
	u32 n;
	int rv;

	while (len) {
		/*
		 * Recompute every piece under the lock: the ULP may have
		 * re-registered the MR since the caller's check, and a page
		 * address must never be combined with another layout's page
		 * size.
		 */
		spin_lock_irqsave(&mr->lock, flags);
		bsize = 1ULL << mr->reg_page_shift;
		off = addr - mr->iova + (mr->iova & (bsize - 1));
		idx = off >> mr->reg_page_shift;
		if (idx >= mr->reg_npages) {
			spin_unlock_irqrestore(&mr->lock, flags);
			return -EINVAL;
		}
		kva = mr->reg_pages[idx] + (off & (bsize - 1));
		n = min_t(u64, len, bsize - (off & (bsize - 1)));
		/* Keeps the time spent with interrupts off to one page. */
		n = min_t(u32, n, PAGE_SIZE - offset_in_page(kva));
		rv = siwl_copy_piece(c, (void *)(uintptr_t)kva, n);
		spin_unlock_irqrestore(&mr->lock, flags);
		if (rv)
			return rv;

		addr += n;
		len -= n;
	}
	return 0;
}

static int siwl_mr_copy(struct siwl_mr *mr, u64 addr, u32 len,
			struct siwl_copy *c)
{
	if (!len)
		return 0;

	switch (mr->kind) {
	case SIWL_MR_USER:
		return siwl_copy_user(mr, addr, len, c);
	case SIWL_MR_DMA:
		return siwl_copy_piece(c, (void *)(uintptr_t)addr, len);
	case SIWL_MR_FRMR:
		return siwl_copy_frmr(mr, addr, len, c);
	}
	return -EINVAL;
}

void siwl_mr_copy_to(struct siwl_mr *mr, u64 addr, const void *src, u32 len)
{
	struct siwl_copy c = { .op = SIWL_COPY_TO_MR, .src = src };

	siwl_mr_copy(mr, addr, len, &c);
}

void siwl_mr_copy_from(struct siwl_mr *mr, u64 addr, void *dst, u32 len)
{
	struct siwl_copy c = { .op = SIWL_COPY_FROM_MR, .dst = dst };

	/* Whatever we could not read must not leak stale kernel memory. */
	if (siwl_mr_copy(mr, addr, len, &c))
		memset(c.dst, 0, (u8 *)dst + len - (u8 *)c.dst);
}

int siwl_mr_pages(struct siwl_mr *mr, u64 addr, u32 len, struct bio_vec *bv,
		  unsigned int max, u32 *crc)
{
	u64 off = addr - mr->iova;
	unsigned int n = 0, pgoff;
	struct page *page;
	void *kaddr;
	u64 idx;
	u32 piece;

	/*
	 * Only pinned user pages: a DMA MR may name slab memory, which TCP
	 * must not take by reference, and an FRMR's layout may change under
	 * a ULP's re-registration while TCP still holds the pages.
	 */
	if (mr->kind != SIWL_MR_USER)
		return -EOPNOTSUPP;
	off += ib_umem_offset(mr->umem);
	idx = off >> PAGE_SHIFT;
	pgoff = off & ~PAGE_MASK;
	while (len) {
		/* The caller checked the bounds; this only guards our math. */
		if (WARN_ON_ONCE(idx >= mr->nupages))
			return -EINVAL;
		if (n == max)
			return -ENOSPC;
		page = mr->upages[idx];
		piece = min_t(u32, len, PAGE_SIZE - pgoff);
		if (crc) {
			kaddr = kmap_local_page(page);
			*crc = crc32c(*crc, kaddr + pgoff, piece);
			kunmap_local(kaddr);
		}
		bvec_set_page(&bv[n++], page, piece, pgoff);
		len -= piece;
		idx++;
		pgoff = 0;
	}
	return n;
}

int siwl_mr_copy_from_skb(struct siwl_mr *mr, u64 addr,
			  const struct sk_buff *skb, int offset, u32 len,
			  u32 *crc)
{
	struct siwl_copy c = {
		.op = SIWL_COPY_SKB_TO_MR,
		.skb = skb,
		.skb_offset = offset,
		.crc = crc,
	};

	/* skb_copy_bits() takes int lengths; no skb holds more anyway. */
	if (offset < 0 || len > INT_MAX)
		return -EFAULT;
	return siwl_mr_copy(mr, addr, len, &c);
}

int siwl_mr_invalidate(struct siwl_device *sdev, const struct ib_pd *pd,
		       u32 stag, bool remote)
{
	struct siwl_mr *mr;
	int rv = 0;

	mr = siwl_mr_get(sdev, stag);
	if (!mr)
		return -ENOENT;

	/*
	 * A DMA MR is the PD's window on all kernel memory; it lives as
	 * long as the PD. A peer may only end what it was allowed to reach,
	 * and only an STag its consumer can make valid again: a fast-register
	 * MR, which the next REG_MR work request revives. A plain MR has no
	 * way back: a peer could disable it for good (IB verbs, and rxe,
	 * refuse its remote invalidation too).
	 */
	if (mr->pd != pd || mr->kind == SIWL_MR_DMA)
		rv = -EACCES;
	else if (remote && (mr->kind != SIWL_MR_FRMR ||
			    !(READ_ONCE(mr->access) &
			      (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE))))
		rv = -EACCES;
	else
		WRITE_ONCE(mr->valid, false);

	siwl_mr_put(mr);
	return rv;
}

int siwl_mr_fast_reg(struct siwl_mr *mr, const struct ib_pd *pd, u32 key,
		     int access)
{
	unsigned int page_size = mr->base.page_size;
	unsigned long flags;
	u32 npages = mr->npages;

	if (mr->kind != SIWL_MR_FRMR)
		return -EINVAL;
	if (mr->pd != pd)
		return -EACCES;
	/* The index names the MR; only the consumer key is the ULP's. */
	if ((key ^ READ_ONCE(mr->stag)) & ~SIWL_STAG_KEY_MASK)
		return -EINVAL;
	if (ib_check_mr_access(mr->base.device, access))
		return -EINVAL;
	if (!npages || npages > mr->max_pages || !is_power_of_2(page_size))
		return -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	/* Registering over a valid MR would move memory under the peer. */
	if (mr->valid) {
		spin_unlock_irqrestore(&mr->lock, flags);
		return -EINVAL;
	}
	memcpy(mr->reg_pages, mr->pages, npages * sizeof(*mr->pages));
	mr->reg_npages = npages;
	mr->reg_page_shift = ilog2(page_size);
	WRITE_ONCE(mr->iova, mr->base.iova);
	WRITE_ONCE(mr->length, mr->base.length);
	WRITE_ONCE(mr->access, access);
	WRITE_ONCE(mr->stag, key);
	/* Pairs with siwl_mr_check(): the new bounds and rights first. */
	smp_store_release(&mr->valid, true);
	spin_unlock_irqrestore(&mr->lock, flags);
	return 0;
}

static struct siwl_mr *siwl_mr_alloc(struct ib_pd *pd, enum siwl_mr_kind kind,
				     int access)
{
	struct siwl_device *sdev = to_siwl_dev(pd->device);
	struct siwl_mr *mr;

	if (atomic_inc_return(&sdev->num_mr) > SIWL_MAX_MR) {
		atomic_dec(&sdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr) {
		atomic_dec(&sdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&mr->ref);
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);
	mr->kind = kind;
	mr->pd = pd;
	mr->access = access;
	/* The core sets these too, but only after lookups can see the MR. */
	mr->base.device = pd->device;
	mr->base.pd = pd;
	return mr;
}

/* Frees an MR that no lookup can find and nobody holds any more. */
static void siwl_mr_free(struct siwl_device *sdev, struct siwl_mr *mr)
{
	ib_umem_release(mr->umem);
	kvfree(mr->upages);
	kfree(mr->pages);
	kfree(mr->reg_pages);
	atomic_dec(&sdev->num_mr);
	/* A lookup may still be looking at it from before it was removed. */
	kfree_rcu(mr, rcu);
}

/*
 * Gives @mr a random STag and makes it visible to lookups. Everything a
 * lookup reads must be set before this is called.
 */
static int siwl_mr_publish(struct siwl_device *sdev, struct siwl_mr *mr)
{
	u32 start = get_random_u32_inclusive(1, SIWL_STAG_INDEX_MAX);
	u32 index;
	int rv;

	/*
	 * Reserve the index first (a NULL entry): the STag depends on it
	 * and must be in place before the MR can be found.
	 */
	rv = xa_alloc(&sdev->mr_table, &index, NULL,
		      XA_LIMIT(start, SIWL_STAG_INDEX_MAX), GFP_KERNEL);
	if (rv == -EBUSY && start > 1)
		rv = xa_alloc(&sdev->mr_table, &index, NULL,
			      XA_LIMIT(1, start - 1), GFP_KERNEL);
	if (rv)
		return rv == -EBUSY ? -ENOMEM : rv;

	mr->stag = index << SIWL_STAG_KEY_BITS |
		   (get_random_u32() & SIWL_STAG_KEY_MASK);
	mr->base.lkey = mr->stag;
	mr->base.rkey = mr->stag;

	rv = xa_err(xa_store(&sdev->mr_table, index, mr, GFP_KERNEL));
	if (rv)
		xa_erase(&sdev->mr_table, index);
	return rv;
}

struct ib_mr *siwl_get_dma_mr(struct ib_pd *pd, int access)
{
	struct siwl_device *sdev = to_siwl_dev(pd->device);
	struct siwl_mr *mr;
	int rv;

	/* All of kernel memory is for kernel ULPs only... */
	if (pd->uobject)
		return ERR_PTR(-EINVAL);
	/*
	 * ...and never for the peer: refuse IB_PD_UNSAFE_GLOBAL_RKEY here
	 * rather than hand out an rkey that siwl_mr_check() would refuse.
	 */
	if (access & SIWL_ACCESS_REMOTE)
		return ERR_PTR(-EOPNOTSUPP);

	mr = siwl_mr_alloc(pd, SIWL_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->base.iova = 0;
	mr->base.length = U64_MAX;
	mr->valid = true;

	rv = siwl_mr_publish(sdev, mr);
	if (rv) {
		siwl_mr_free(sdev, mr);
		return ERR_PTR(rv);
	}
	return &mr->base;
}

/*
 * Lists the pinned pages in address order so that a copy finds the page
 * of any MR offset directly instead of walking the scatterlist.
 */
static int siwl_umem_pages(struct siwl_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	unsigned long total = ib_umem_num_pages(umem);
	unsigned long n = 0, i, npg;
	struct scatterlist *sg;
	unsigned int k;

	/* Huge requests fail quietly: the size comes from user space. */
	mr->upages = kvmalloc_array(total, sizeof(*mr->upages),
				    GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mr->upages)
		return -ENOMEM;

	/*
	 * Without a DMA device, ib_umem_get() builds whole-page entries of
	 * physically contiguous pages, starting at the first pinned page.
	 */
	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, k) {
		npg = sg->length >> PAGE_SHIFT;
		if (WARN_ON_ONCE(sg->offset || offset_in_page(sg->length) ||
				 npg > total - n))
			return -EINVAL;
		for (i = 0; i < npg; i++)
			mr->upages[n++] = nth_page(sg_page(sg), i);
		cond_resched();
	}
	if (WARN_ON_ONCE(n != total))
		return -EINVAL;
	mr->nupages = n;
	return 0;
}

struct ib_mr *siwl_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			       u64 virt, int access, struct ib_udata *udata)
{
	struct siwl_device *sdev = to_siwl_dev(pd->device);
	struct ib_umem *umem;
	struct siwl_mr *mr;
	int rv;

	/* No driver request is defined: whatever is sent must be zero. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	if (!length || virt + length < virt ||
	    start != (unsigned long)start || length != (size_t)length)
		return ERR_PTR(-EINVAL);

	mr = siwl_mr_alloc(pd, SIWL_MR_USER, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	/* Charges RLIMIT_MEMLOCK (mm->pinned_vm) unless CAP_IPC_LOCK. */
	umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem)) {
		rv = PTR_ERR(umem);
		goto err;
	}
	mr->umem = umem;
	rv = siwl_umem_pages(mr);
	if (rv)
		goto err;

	mr->iova = virt;
	mr->length = length;
	mr->base.iova = virt;
	mr->base.length = length;
	mr->valid = true;

	rv = siwl_mr_publish(sdev, mr);
	if (rv)
		goto err;
	return &mr->base;

err:
	siwl_mr_free(sdev, mr);
	return ERR_PTR(rv);
}

struct ib_mr *siwl_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct siwl_device *sdev = to_siwl_dev(pd->device);
	struct siwl_mr *mr;
	int rv;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SIWL_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	mr = siwl_mr_alloc(pd, SIWL_MR_FRMR, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	mr->reg_pages = kcalloc(max_num_sg, sizeof(*mr->reg_pages),
				GFP_KERNEL);
	if (!mr->pages || !mr->reg_pages) {
		rv = -ENOMEM;
		goto err;
	}
	mr->max_pages = max_num_sg;
	/* Unusable until the first IB_WR_REG_MR. */
	mr->valid = false;

	rv = siwl_mr_publish(sdev, mr);
	if (rv)
		goto err;
	return &mr->base;

err:
	siwl_mr_free(sdev, mr);
	return ERR_PTR(rv);
}

static int siwl_set_page(struct ib_mr *base, u64 addr)
{
	struct siwl_mr *mr = to_siwl_mr(base);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

int siwl_map_mr_sg(struct ib_mr *base, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct siwl_mr *mr = to_siwl_mr(base);

	if (mr->kind != SIWL_MR_FRMR || !is_power_of_2(base->page_size))
		return -EINVAL;

	/* Only the staging list changes; fast-register publishes it. */
	mr->npages = 0;
	return ib_sg_to_pages(base, sg, sg_nents, sg_offset, siwl_set_page);
}

int siwl_dereg_mr(struct ib_mr *base, struct ib_udata *udata)
{
	struct siwl_mr *mr = to_siwl_mr(base);
	struct siwl_device *sdev = to_siwl_dev(base->device);
	u32 index = siwl_stag_index(READ_ONCE(mr->stag));
	void *old;

	WRITE_ONCE(mr->valid, false);

	/*
	 * Turn the entry back into a reservation: new lookups fail, but the
	 * index cannot name a new MR while an access to this one is still
	 * running.
	 */
	old = xa_store(&sdev->mr_table, index, NULL, GFP_KERNEL);
	WARN_ON_ONCE(old != mr);

	/* Drop the table's reference and wait out in-flight accesses. */
	siwl_mr_put(mr);
	wait_for_completion(&mr->released);

	xa_erase(&sdev->mr_table, index);
	siwl_mr_free(sdev, mr);
	return 0;
}

void siwl_mem_init(struct siwl_device *sdev)
{
	xa_init_flags(&sdev->mr_table, XA_FLAGS_ALLOC);
	atomic_set(&sdev->num_mr, 0);
}

void siwl_mem_fini(struct siwl_device *sdev)
{
	/* The ib core deregisters every MR before it lets a device go. */
	WARN_ON(!xa_empty(&sdev->mr_table));
	xa_destroy(&sdev->mr_table);
}
