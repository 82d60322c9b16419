/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user-space stand-in for the few kernel interfaces that
 * drivers/siw_lite/rx.c and the headers it includes use, so that rx.c
 * compiles unchanged into a libFuzzer target (fuzz_rx.c). Every shim
 * header under kshim/ includes this one; the wire types (u8 ... u64,
 * unaligned access, crc32c) come from the driver's own wire_compat.h.
 *
 * Nothing here is the kernel's code: each definition is the least that
 * gives rx.c's calls their documented meaning in a single thread. Where
 * the kernel has a rule the driver must follow (lock order, no sleeping
 * under a spinlock, a WARN), the shim checks it and aborts, which
 * libFuzzer reports as a crash with the input.
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "wire_compat.h"

typedef __s8 s8;
typedef __s16 s16;
typedef __s64 s64;

#define __rcu
#define __percpu
#define __user
#define __force
#define __bitwise

#ifndef KBUILD_MODNAME
#define KBUILD_MODNAME "siw_lite"
#endif

/* ---- checks ---------------------------------------------------------- */

/* Reports a broken kernel rule at @file:@line and aborts. */
void __attribute__((noreturn)) kshim_fail(const char *file, int line,
					  const char *what);

#define KSHIM_CHECK(cond)						\
	do {								\
		if (!(cond))						\
			kshim_fail(__FILE__, __LINE__, #cond);		\
	} while (0)

/* A WARN in the driver means a state it believes impossible: a bug. */
#define WARN_ON(cond)							\
	({								\
		bool __w = !!(cond);					\
		if (__w)						\
			kshim_fail(__FILE__, __LINE__, "WARN " #cond);	\
		__w;							\
	})
#define WARN_ON_ONCE(cond)	WARN_ON(cond)

/* ---- compiler and arithmetic ----------------------------------------- */

/*
 * The kernel's single-copy accesses are volatile ones too. One thread:
 * acquire and release need no fence, only the access itself.
 */
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define smp_load_acquire(p)	READ_ONCE(*(p))
#define smp_store_release(p, v)	WRITE_ONCE(*(p), (v))

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define min(a, b)							\
	({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);		\
	   __a < __b ? __a : __b; })
#define min_t(type, a, b)	min((type)(a), (type)(b))

/* ---- locks ------------------------------------------------------------ */

/*
 * Locks have a rank (fuzz_rx.c assigns the order of siw_lite.rst,
 * "Locking and contexts"): one may be taken only while every lock held
 * ranks below it, and never twice. Unranked locks (rank 0) are only
 * checked against being taken twice.
 */
typedef struct {
	const char *name;
	int rank;
	bool held;
} spinlock_t;

void kshim_lock(spinlock_t *l);
void kshim_unlock(spinlock_t *l);
/* Number of spinlocks held: sleeping with any is a bug. */
int kshim_locks_held(void);
void kshim_might_sleep(const char *file, int line);

#define spin_lock_init(l)	(*(l) = (spinlock_t){ .name = #l })
#define spin_lock(l)		kshim_lock(l)
#define spin_unlock(l)		kshim_unlock(l)
#define spin_lock_bh(l)		kshim_lock(l)
#define spin_unlock_bh(l)	kshim_unlock(l)
#define spin_lock_irqsave(l, f)						\
	do { (f) = 0; kshim_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)					\
	do { (void)(f); kshim_unlock(l); } while (0)
#define lockdep_assert_held(l)	KSHIM_CHECK((l)->held)
#define might_sleep()		kshim_might_sleep(__FILE__, __LINE__)

struct mutex {
	bool held;
};

/* ---- RCU, references, per-CPU data ------------------------------------- */

/* Read-side nesting, back to zero after every RX pass. */
extern int kshim_rcu_depth;

#define rcu_read_lock()		((void)kshim_rcu_depth++)
#define rcu_read_unlock()	KSHIM_CHECK(kshim_rcu_depth-- > 0)
#define rcu_dereference(p)	READ_ONCE(p)

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

struct kref {
	int refcount;
};

struct completion {
	unsigned int done;
};

/* One CPU: a per-CPU variable is the variable. */
#define this_cpu_add(pcp, n)	((pcp) += (n))

typedef struct {
	int counter;
} atomic_t;

struct list_head {
	struct list_head *next, *prev;
};

/* ---- time and work ---------------------------------------------------- */

#define HZ			250
extern unsigned long jiffies;

static inline unsigned long msecs_to_jiffies(unsigned int ms)
{
	return ((unsigned long)ms * HZ + 999) / 1000;
}

#define time_after(a, b)	((long)((b) - (a)) < 0)

/*
 * Work is recorded, never run: the harness decides when (and whether) a
 * queued item runs, as a CPU elsewhere would.
 */
struct work_struct {
	void (*func)(struct work_struct *work);
	unsigned int queued;	/* times queued since last run (kshim) */
};

struct delayed_work {
	struct work_struct work;
	unsigned long delay;	/* of the last queueing (kshim) */
};

struct workqueue_struct;

static inline struct delayed_work *to_delayed_work(struct work_struct *w)
{
	return container_of(w, struct delayed_work, work);
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool queue_work_on(int cpu, struct workqueue_struct *wq,
		   struct work_struct *work);
bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw,
			unsigned long delay);
bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw,
		      unsigned long delay);

/* Set by the harness around calls that stand for a softirq. */
extern bool kshim_in_softirq;

static inline bool in_serving_softirq(void)
{
	return kshim_in_softirq;
}

static inline unsigned int num_online_cpus(void)
{
	return 2;
}

/* ---- odds and ends the driver's structures name ----------------------- */

#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)

struct page;
struct pid;
struct scatterlist;
struct vm_area_struct;

struct xarray {
	void *head;
};

#endif /* KSHIM_H */
