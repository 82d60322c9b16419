// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: zero-copy transmit notifications (see zcopy.h).
 *
 * Each zero-copy buffer carries a ubuf_info of its own. TCP attaches it to
 * every skb holding the buffer's pages and drops one reference per skb
 * when that skb's data is freed: after the ACK for its original, after
 * the driver or a local receiver is done with its clones. The last
 * reference marks the buffer's slot released and kicks the QP's work
 * item, which completes the WRs in SQ order (siwl_zc_next()).
 *
 * The callback runs wherever an skb is freed (softirq, process context,
 * with interrupts off under some locks), so it only flips a bit under a
 * spinlock and queues work. The notifications live in a set of slots
 * allocated once per QP and reused in order, so that transmitting never
 * allocates; the set holds a reference per notification in flight,
 * because the QP may be destroyed while TCP still holds a buffer of it.
 *
 * TCP may hold one even longer, past the connection's graceful close in
 * an orphaned socket, and past device removal. Its release calls
 * siwl_zc_callback(), our text, so module exit must wait for the last
 * one. Rule: a set counts in siwl_zc_sets from its allocation until its
 * last reference is dropped; siwl_zc_exit_module() waits for zero, and
 * then for an RCU grace period, which covers the few instructions the
 * last callback still runs after its decrement.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>

#include "compat.h"
#include "qp_engine.h"
#include "qp_obj.h"
#include "trace.h"
#include "zcopy.h"

struct siwl_zc {
	struct ubuf_info ubuf;
	struct siwl_zc_ctx *ctx;
	u32 seq;
	struct siwl_zc_range range;	/* under ctx->lock */
};

struct siwl_zc_ctx {
	spinlock_t lock;	/* the fields below, the slots' ranges */
	refcount_t ref;		/* the QP's, plus one per notification */
	struct siwl_qp *qp;	/* NULL once the QP is going */
	u32 head;		/* notifications begun, free-running */
	u32 tail;		/* notifications taken by siwl_zc_next() */
	unsigned long released;	/* bit seq % SIWL_ZC_SLOTS: stack let go */
	bool copied;		/* the stack had to copy one of our buffers */
	struct siwl_zc slot[SIWL_ZC_SLOTS];
};

static_assert(SIWL_ZC_SLOTS <= BITS_PER_LONG);

static atomic_t siwl_zc_sets = ATOMIC_INIT(0);

static void siwl_zc_ctx_put(struct siwl_zc_ctx *ctx)
{
	if (!refcount_dec_and_test(&ctx->ref))
		return;
	kfree(ctx);
	if (atomic_dec_and_test(&siwl_zc_sets))
		wake_up_var(&siwl_zc_sets);
}

/*
 * One call per reference dropped: by TCP when an skb's data goes (with
 * @success false if the stack copied the pages first, as it does before
 * delivering to a socket on this host), and by us from siwl_zc_end().
 */
static void siwl_zc_callback(struct sk_buff *skb, struct ubuf_info *ubuf,
			     bool success)
{
	struct siwl_zc *zc = container_of(ubuf, struct siwl_zc, ubuf);
	struct siwl_zc_ctx *ctx = zc->ctx;
	unsigned long flags;

	if (!success)
		WRITE_ONCE(ctx->copied, true);
	if (!refcount_dec_and_test(&ubuf->refcnt))
		return;

	spin_lock_irqsave(&ctx->lock, flags);
	trace_zc_release(ctx->qp ? ctx->qp->base.qp_num : 0, zc->seq,
			 READ_ONCE(ctx->copied));
	__set_bit(zc->seq % SIWL_ZC_SLOTS, &ctx->released);
	/* Later buffers wait for this one: only the oldest unblocks. */
	if (ctx->qp && zc->seq == ctx->tail)
		siwl_qp_kick(ctx->qp);
	spin_unlock_irqrestore(&ctx->lock, flags);
	/* Module exit's grace period waits for us to leave (see the top). */
	rcu_read_lock();
	siwl_zc_ctx_put(ctx);
	rcu_read_unlock();
}

SIWL_DEFINE_UBUF_OPS(siwl_zc_ops, siwl_zc_callback);

bool siwl_zc_usable(struct siwl_qp *qp, bool always)
{
	struct siwl_zc_ctx *ctx = qp->tx.zc_ctx;

	/* Allocated on first use: most QPs never send a large message. */
	if (!ctx) {
		ctx = kzalloc(sizeof(*ctx), GFP_NOWAIT | __GFP_NOWARN);
		if (!ctx)
			return false;
		spin_lock_init(&ctx->lock);
		refcount_set(&ctx->ref, 1);
		ctx->qp = qp;
		qp->tx.zc_ctx = ctx;
		atomic_inc(&siwl_zc_sets);
	}
	return always || !READ_ONCE(ctx->copied);
}

bool siwl_zc_busy(struct siwl_qp *qp)
{
	struct siwl_zc_ctx *ctx = qp->tx.zc_ctx;

	/* Both indices move under tx_mutex only (the caller holds it). */
	return ctx && ctx->head != ctx->tail;
}

struct ubuf_info *siwl_zc_begin(struct siwl_qp *qp)
{
	struct siwl_zc_ctx *ctx = qp->tx.zc_ctx;
	struct siwl_zc *zc;

	if (!ctx || ctx->head - ctx->tail >= SIWL_ZC_SLOTS)
		return NULL;
	zc = &ctx->slot[ctx->head % SIWL_ZC_SLOTS];
	siwl_ubuf_set_ops(&zc->ubuf, &siwl_zc_ops);
	refcount_set(&zc->ubuf.refcnt, 1);
	/* As MSG_ZEROCOPY: forwarding keeps the pages, local delivery copies. */
	zc->ubuf.flags = SKBFL_ZEROCOPY_FRAG | SKBFL_DONT_ORPHAN;
	zc->ctx = ctx;
	zc->seq = ctx->head++;
	refcount_inc(&ctx->ref);
	return &zc->ubuf;
}

void siwl_zc_end(struct siwl_qp *qp, struct ubuf_info *ubuf,
		 const struct siwl_zc_range *done)
{
	struct siwl_zc *zc = container_of(ubuf, struct siwl_zc, ubuf);
	unsigned long flags;

	spin_lock_irqsave(&zc->ctx->lock, flags);
	zc->range = *done;
	spin_unlock_irqrestore(&zc->ctx->lock, flags);
	siwl_zc_callback(NULL, ubuf, true);
}

bool siwl_zc_next(struct siwl_qp *qp, struct siwl_zc_range *r)
{
	struct siwl_zc_ctx *ctx = qp->tx.zc_ctx;
	unsigned long flags;
	bool found = false;
	u32 slot;

	/* Every transmit pass asks: nothing in flight needs no lock. */
	if (!ctx || ctx->tail == ctx->head)
		return false;
	spin_lock_irqsave(&ctx->lock, flags);
	slot = ctx->tail % SIWL_ZC_SLOTS;
	if (ctx->tail != ctx->head && test_bit(slot, &ctx->released)) {
		__clear_bit(slot, &ctx->released);
		*r = ctx->slot[slot].range;
		ctx->tail++;
		found = true;
	}
	spin_unlock_irqrestore(&ctx->lock, flags);
	return found;
}

void siwl_zc_forget(struct siwl_qp *qp)
{
	struct siwl_zc_ctx *ctx = qp->tx.zc_ctx;
	struct siwl_zc_range *r;
	unsigned long flags;
	u32 seq;

	if (!ctx)
		return;
	spin_lock_irqsave(&ctx->lock, flags);
	for (seq = ctx->tail; seq != ctx->head; seq++) {
		r = &ctx->slot[seq % SIWL_ZC_SLOTS].range;
		r->end = r->first;
	}
	spin_unlock_irqrestore(&ctx->lock, flags);
}

void siwl_zc_detach(struct siwl_qp *qp)
{
	struct siwl_zc_ctx *ctx = qp->tx.zc_ctx;
	unsigned long flags;

	if (!ctx)
		return;
	spin_lock_irqsave(&ctx->lock, flags);
	ctx->qp = NULL;
	spin_unlock_irqrestore(&ctx->lock, flags);
}

void siwl_zc_release(struct siwl_qp *qp)
{
	struct siwl_zc_ctx *ctx = qp->tx.zc_ctx;

	qp->tx.zc_ctx = NULL;
	if (ctx)
		siwl_zc_ctx_put(ctx);
}

void siwl_zc_exit_module(void)
{
	while (!wait_var_event_timeout(&siwl_zc_sets,
				       !atomic_read(&siwl_zc_sets), 10 * HZ))
		pr_info("waiting for TCP to release the zero-copy buffers of %d QP(s)\n",
			atomic_read(&siwl_zc_sets));
	synchronize_rcu();
}
