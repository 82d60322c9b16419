/* SPDX-License-Identifier: GPL-2.0 */
/*
 * siw_lite: software iWARP RNIC.
 *
 * Core objects shared by every part of the driver. The protocol layers
 * (RDMAP/DDP/MPA over TCP) live in their own files; see
 * Documentation/siw_lite.rst for the map.
 */
#ifndef SIW_LITE_H
#define SIW_LITE_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "stats.h"
#include "wqe.h"

#define SIWL_NODE_DESC		"siw_lite"
#define SIWL_PORT		1

/*
 * Device limits reported by query_device. They bound what a single user can
 * make the kernel allocate, so they are deliberately finite.
 */
#define SIWL_MAX_QP		16384
#define SIWL_MAX_QP_WR		8192
#define SIWL_MAX_CQ		16384
/*
 * libfabric's verbs;ofi_rxm sizes one CQ for a whole universe of peers,
 * (384 + 384) x 256 = 196608 entries by default; a ring entry is 32 bytes.
 */
#define SIWL_MAX_CQE		1048576
#define SIWL_MAX_MR		65536
#define SIWL_MAX_PD		16384
#define SIWL_MAX_ORD		128
#define SIWL_MAX_IRD		128
#define SIWL_MAX_SRQ		4096
#define SIWL_MAX_SRQ_WR		8192
#define SIWL_MAX_FAST_REG_PAGES	256

struct siwl_device {
	/* Must stay first: ib_alloc_device() requires it. */
	struct ib_device ibdev;

	/* Entry in the global device list, under siwl_devices_lock. */
	struct list_head list;

	/*
	 * The netdev this device is bound to, with a reference of our own.
	 * Cleared (under siwl_devices_lock, then an RCU grace period before
	 * the reference is dropped) when the netdev unregisters; readers use
	 * siwl_netdev_get().
	 */
	struct net_device __rcu *netdev;
	netdevice_tracker netdev_tracker;

	/*
	 * Link layer address backing the GID. Devices without a hardware
	 * address (loopback, tun) get a fabricated, locally administered one.
	 */
	u8 lladdr[ETH_ALEN];
	bool lladdr_fabricated;

	/*
	 * Last enum ib_port_state announced; atomic because newlink and the
	 * netdev notifier may race to set it.
	 */
	atomic_t port_state;

	/*
	 * Link speed in Mb/s, read from ethtool under RTNL when the link
	 * changes, so that query_port never needs RTNL itself.
	 */
	u32 speed_mbps;

	/* STag index (upper 24 bits of an STag) -> struct siwl_mr. */
	struct xarray mr_table;
	/* QP number -> struct siwl_qp; numbers are handed out cyclically. */
	struct xarray qp_table;
	u32 qp_next;

	/* Object counts, checked against the limits and at teardown. */
	atomic_t num_pd;
	atomic_t num_ctx;
	atomic_t num_mr;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;

	/* Per-CPU counters (stats.c); allocated and freed with the device. */
	struct siwl_stats __percpu *stats;
	/* The same, as the set a QP counts in while bound to no counter. */
	struct siwl_stat_set dev_set;
	/*
	 * The sets of this device's rdma counters. A list searched by counter
	 * pointer: the core gives a counter its id only after allocating its
	 * stats and binding its first QP.
	 */
	struct list_head counter_sets;
	struct mutex counter_lock;	/* guards counter_sets */
};

struct siwl_ucontext {
	struct ib_ucontext base;
};

struct siwl_pd {
	struct ib_pd base;
};

static inline struct siwl_device *to_siwl_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct siwl_device, ibdev);
}

/* Returns the bound netdev with a reference held, or NULL once it is gone. */
static inline struct net_device *siwl_netdev_get(struct siwl_device *sdev)
{
	struct net_device *netdev;

	rcu_read_lock();
	netdev = rcu_dereference(sdev->netdev);
	if (netdev)
		dev_hold(netdev);
	rcu_read_unlock();
	return netdev;
}

/* main.c */
void siwl_dealloc_driver(struct ib_device *ibdev);

/* device.c */
extern const struct ib_device_ops siwl_device_ops;

void siwl_port_refresh(struct siwl_device *sdev, bool notify);

#endif /* SIW_LITE_H */
