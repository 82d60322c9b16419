/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: what struct siwl_device (siw_lite.h) names of a net device. */
#ifndef KSHIM_LINUX_NETDEVICE_H
#define KSHIM_LINUX_NETDEVICE_H

#include "../kshim.h"

#define ETH_ALEN	6

struct net_device;

typedef struct {
	int unused;
} netdevice_tracker;

static inline void dev_hold(struct net_device *dev)
{
	(void)dev;
}

#endif /* KSHIM_LINUX_NETDEVICE_H */
