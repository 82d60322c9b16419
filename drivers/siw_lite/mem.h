/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: memory regions and STags.
 *
 * An STag (RFC 5040 section 2.1) is a 24-bit index into the device's MR
 * table plus an 8-bit key. Indices are allocated at random (an STag must
 * not be guessable, RFC 5042 section 5.1) and are not reused while any
 * reference to the old MR is held. Lookups by the data path hold a
 * reference for the duration of one access: deregistration waits for
 * those references, so they must never be held across a sleep or a wait
 * for the peer (socket space, an incoming message).
 */
#ifndef SIWL_MEM_H
#define SIWL_MEM_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <linux/bvec.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

struct ib_umem;
struct siwl_device;

#define SIWL_STAG_KEY_BITS	8
#define SIWL_STAG_KEY_MASK	((1U << SIWL_STAG_KEY_BITS) - 1)
/* Largest index; index 0 is never handed out so that STag 0 names nothing. */
#define SIWL_STAG_INDEX_MAX	((1U << (32 - SIWL_STAG_KEY_BITS)) - 1)

static inline u32 siwl_stag_index(u32 stag)
{
	return stag >> SIWL_STAG_KEY_BITS;
}

enum siwl_mr_kind {
	SIWL_MR_USER,		/* pinned user pages (ib_umem) */
	SIWL_MR_DMA,		/* all kernel memory, iova == kernel address */
	SIWL_MR_FRMR,		/* fast-register: kernel page list */
};

struct siwl_mr {
	struct ib_mr base;
	struct kref ref;
	/* Completed by the last siwl_mr_put(); deregistration waits for it. */
	struct completion released;
	struct rcu_head rcu;
	enum siwl_mr_kind kind;

	/*
	 * Our own copy of base.pd: the ib core writes base.pd after the MR is
	 * already visible to lookups, so the data path must not read it.
	 */
	const struct ib_pd *pd;

	/*
	 * The STag that currently names this MR; lkey == rkey == stag. Only
	 * the key byte changes, at fast-register. Compared by siwl_mr_get().
	 */
	u32 stag;

	/*
	 * Cleared by (local or remote) invalidation; an FRMR becomes valid at
	 * fast-register. Set with release semantics after the fields below.
	 */
	bool valid;
	int access;		/* IB_ACCESS_* */
	u64 iova;		/* first byte addressed by the STag */
	u64 length;

	/* SIWL_MR_USER: the pinned memory and its pages, in address order. */
	struct ib_umem *umem;
	struct page **upages;
	unsigned long nupages;

	/*
	 * SIWL_MR_FRMR. map_mr_sg fills @pages while the registration in
	 * force may still be in use (ULPs map before the invalidation they
	 * post ahead of the next registration has run); fast-register then
	 * copies it into @reg_pages. Copies only read the reg_* layout, under
	 * @lock, so a late access never mixes two layouts.
	 */
	u64 *pages;		/* page addresses (kernel virtual) */
	u32 max_pages;
	u32 npages;
	/* Serialises fast-register against copies of the layout below. */
	spinlock_t lock;
	u64 *reg_pages;
	u32 reg_npages;
	u32 reg_page_shift;
};

static inline struct siwl_mr *to_siwl_mr(struct ib_mr *mr)
{
	return container_of(mr, struct siwl_mr, base);
}

/*
 * Looks up the MR of @stag (index and key must match) in @sdev; returns it
 * with a reference held, or NULL. The caller checks PD, access and bounds
 * (siwl_mr_check) and drops the reference with siwl_mr_put(). Any context.
 */
struct siwl_mr *siwl_mr_get(struct siwl_device *sdev, u32 stag);
void siwl_mr_put(struct siwl_mr *mr);

/*
 * Checks that [@addr, @addr + @len) lies inside @mr, that @mr is valid,
 * belongs to @pd and grants @access (IB_ACCESS_LOCAL_WRITE,
 * IB_ACCESS_REMOTE_READ, IB_ACCESS_REMOTE_WRITE; 0 means local read).
 * Whoever writes into the MR must ask for a write right. A DMA MR never
 * grants remote access. Overflow safe; a zero length is allowed up to and
 * including the end of the MR. Returns 0 or -EINVAL (bounds), -EACCES
 * (rights or PD), -ENOENT (invalidated).
 */
int siwl_mr_check(const struct siwl_mr *mr, const struct ib_pd *pd,
		  u64 addr, u64 len, int access);

/*
 * Copy between a kernel buffer and MR memory at @addr (already checked).
 * Safe in softirq context (pages are pinned; uses kmap_local_page). If an
 * FRMR was re-registered since the check, bytes beyond the new layout are
 * not written, and read back as zeroes.
 */
void siwl_mr_copy_to(struct siwl_mr *mr, u64 addr, const void *src, u32 len);
void siwl_mr_copy_from(struct siwl_mr *mr, u64 addr, void *dst, u32 len);

/*
 * Zero-copy transmit: fills @bv with the pages holding [@addr, @addr +
 * @len) of @mr (already checked), at most @max entries, and folds the
 * bytes into *@crc (crc32c) unless @crc is NULL. Returns the number of
 * entries; -EOPNOTSUPP if @mr is not pinned user memory (copy instead),
 * -ENOSPC if more than @max entries are needed, -EINVAL on a bad range.
 */
int siwl_mr_pages(struct siwl_mr *mr, u64 addr, u32 len, struct bio_vec *bv,
		  unsigned int max, u32 *crc);

/*
 * Copies @len bytes at @offset of @skb into MR memory at @addr (already
 * checked), updating *@crc with crc32c over the bytes when @crc != NULL.
 * Returns 0, -EFAULT if @skb is shorter than @offset + @len, or -EINVAL
 * if an FRMR was re-registered since the check.
 */
int siwl_mr_copy_from_skb(struct siwl_mr *mr, u64 addr,
			  const struct sk_buff *skb, int offset, u32 len,
			  u32 *crc);

/*
 * Invalidates @stag if it names an MR of @pd that may be invalidated
 * (not a DMA MR, and for remote invalidation: fast-register MRs with
 * IB_ACCESS_REMOTE_* rights only, RFC 5040 section 6.4.1). Invalidating
 * an invalid MR succeeds.
 * Returns 0, -ENOENT (no MR has this STag) or -EACCES (other PD, or the
 * MR may not be invalidated this way). Any context.
 */
int siwl_mr_invalidate(struct siwl_device *sdev, const struct ib_pd *pd,
		       u32 stag, bool remote);

/*
 * Fast-register (IB_WR_REG_MR): makes @mr valid with STag @key (only the
 * key byte may differ from the MR's STag) and @access, over the pages the
 * last map_mr_sg set. The MR must be an invalid FRMR of @pd. Returns 0,
 * -EACCES (other PD) or -EINVAL. Any context.
 */
int siwl_mr_fast_reg(struct siwl_mr *mr, const struct ib_pd *pd, u32 key,
		     int access);

/* Verbs. */
struct ib_mr *siwl_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *siwl_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			       u64 virt, int access, struct ib_udata *udata);
struct ib_mr *siwl_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			    u32 max_num_sg);
int siwl_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
int siwl_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);

/* Device MR table set-up and teardown (one xarray per device). */
void siwl_mem_init(struct siwl_device *sdev);
void siwl_mem_fini(struct siwl_device *sdev);

#endif /* SIWL_MEM_H */
