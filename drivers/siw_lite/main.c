// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: module entry, "rdma link" glue and the device life cycle.
 *
 * A device exists from "rdma link add NAME type siw_lite netdev DEV" until
 * "rdma link delete NAME", the netdev's unregistration or module unload,
 * whichever comes first. Every path, failed registration included, ends in
 * the ib core calling siwl_dealloc_driver(), which is the only place a
 * device leaves our list and lets go of its netdev.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "cm.h"
#include "mem.h"
#include "qp.h"
#include "qp_engine.h"
#include "siw_lite.h"
#include "tune.h"
#include "zcopy.h"

static LIST_HEAD(siwl_devices);
/* Protects siwl_devices and every siwl_device.netdev. */
static DEFINE_MUTEX(siwl_devices_lock);

static struct siwl_device *siwl_find_by_netdev(struct net_device *netdev)
{
	struct siwl_device *sdev;

	list_for_each_entry(sdev, &siwl_devices, list)
		if (rcu_access_pointer(sdev->netdev) == netdev)
			return sdev;
	return NULL;
}

/*
 * TCP needs IP, so any netdev that carries IP would do; we accept the link
 * types whose addressing we understand: Ethernet-like devices (physical,
 * veth, dummy, bridge, bond, vlan, virtio), loopback, and pure IP devices
 * without a link layer (tun, wireguard). Tunnels with their own ARPHRD
 * types (ipip, gre, sit, ...) are refused rather than half supported.
 */
static bool siwl_netdev_supported(const struct net_device *netdev)
{
	switch (netdev->type) {
	case ARPHRD_ETHER:
	case ARPHRD_LOOPBACK:
	case ARPHRD_NONE:
		return true;
	default:
		return false;
	}
}

static void siwl_init_lladdr(struct siwl_device *sdev,
			     const struct net_device *netdev)
{
	if (netdev->addr_len == ETH_ALEN &&
	    is_valid_ether_addr(netdev->dev_addr)) {
		ether_addr_copy(sdev->lladdr, netdev->dev_addr);
		sdev->lladdr_fabricated = false;
	} else {
		/*
		 * The GID must be unique on the fabric and stable for the
		 * device's lifetime; a random locally administered unicast
		 * address is both.
		 */
		eth_random_addr(sdev->lladdr);
		sdev->lladdr_fabricated = true;
	}
}

/*
 * Lets go of the netdev reference taken in siwl_device_alloc(). Called by
 * both the netdev notifier and device teardown; the lock makes sure only
 * one of them drops it, the grace period that no reader still uses it.
 */
static void siwl_device_release_netdev(struct siwl_device *sdev)
{
	struct net_device *netdev;

	mutex_lock(&siwl_devices_lock);
	netdev = rcu_replace_pointer(sdev->netdev, NULL,
				     lockdep_is_held(&siwl_devices_lock));
	mutex_unlock(&siwl_devices_lock);
	if (netdev) {
		synchronize_net();
		netdev_put(netdev, &sdev->netdev_tracker);
	}
}

/* Modified EUI-64 from the MAC (RFC 4291 appendix A), as IB GUIDs are. */
static void siwl_node_guid(struct ib_device *ibdev, const u8 *mac)
{
	u8 guid[8] = { mac[0] ^ 0x02, mac[1], mac[2], 0xff,
		       0xfe, mac[3], mac[4], mac[5] };

	memcpy(&ibdev->node_guid, guid, sizeof(guid));
}

static struct siwl_device *siwl_device_alloc(struct net_device *netdev)
{
	struct siwl_device *sdev;
	struct ib_device *ibdev;
	int rv;

	sdev = ib_alloc_device(siwl_device, ibdev);
	if (!sdev)
		return NULL;

	ibdev = &sdev->ibdev;
	/* Before any failure path: ib_dealloc_device() tears these down. */
	siwl_mem_init(sdev);
	siwl_qp_table_init(sdev);
	INIT_LIST_HEAD(&sdev->list);
	netdev_hold(netdev, &sdev->netdev_tracker, GFP_KERNEL);
	RCU_INIT_POINTER(sdev->netdev, netdev);
	siwl_init_lladdr(sdev, netdev);
	atomic_set(&sdev->num_pd, 0);
	atomic_set(&sdev->num_ctx, 0);
	if (siwl_stats_init(sdev)) {
		ib_dealloc_device(&sdev->ibdev);
		return NULL;
	}

	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	siwl_node_guid(ibdev, sdev->lladdr);
	memcpy(ibdev->node_desc, SIWL_NODE_DESC, sizeof(SIWL_NODE_DESC));
	/*
	 * We bind and listen on the real ports ourselves; a running iwpmd
	 * must not map them.
	 */
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	strscpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	ib_set_device_ops(ibdev, &siwl_device_ops);
	/*
	 * The core leaves the data path commands off by default; user QPs
	 * and CQs post and poll through them until the shared rings land.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POLL_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	rv = ib_device_set_netdev(ibdev, netdev, SIWL_PORT);
	if (rv) {
		ib_dealloc_device(&sdev->ibdev);
		return NULL;
	}
	return sdev;
}

static bool siwl_netdev_registered(struct net_device *netdev)
{
	bool registered;

	rtnl_lock();
	registered = netdev->reg_state == NETREG_REGISTERED;
	rtnl_unlock();
	return registered;
}

static int siwl_newlink(const char *ibdev_name, struct net_device *netdev)
{
	struct siwl_device *sdev;
	struct ib_device *other;
	int rv;

	if (!siwl_netdev_supported(netdev)) {
		pr_warn("%s: cannot attach to %s: link type %u is not supported\n",
			ibdev_name, netdev->name, netdev->type);
		return -EOPNOTSUPP;
	}

	/* The core would refuse it too, with a less telling ENFILE. */
	other = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_warn("%s: cannot attach to %s: the name is in use\n",
			ibdev_name, netdev->name);
		return -EEXIST;
	}

	sdev = siwl_device_alloc(netdev);
	if (!sdev)
		return -ENOMEM;

	/*
	 * Claim the netdev before registering so that two concurrent
	 * "rdma link add" on one netdev cannot both succeed. Registration
	 * itself runs unlocked: it calls into every ib client.
	 */
	mutex_lock(&siwl_devices_lock);
	if (siwl_find_by_netdev(netdev)) {
		mutex_unlock(&siwl_devices_lock);
		pr_warn("%s: cannot attach to %s: it already has a siw_lite device\n",
			ibdev_name, netdev->name);
		ib_dealloc_device(&sdev->ibdev);
		return -EEXIST;
	}
	list_add_tail(&sdev->list, &siwl_devices);
	mutex_unlock(&siwl_devices_lock);

	rtnl_lock();
	siwl_port_refresh(sdev, false);
	rtnl_unlock();

	rv = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (rv) {
		pr_warn("%s: registration on %s failed: %d\n", ibdev_name,
			netdev->name, rv);
		ib_dealloc_device(&sdev->ibdev);
		/* Lost a race for the name against another link add. */
		return rv == -ENFILE ? -EEXIST : rv;
	}

	/*
	 * The netdev may have started unregistering while we registered;
	 * its notifier then found a device it could not unregister yet.
	 */
	if (!siwl_netdev_registered(netdev))
		ib_unregister_device_queued(&sdev->ibdev);

	pr_info("%s: attached to %s\n", ibdev_name, netdev->name);
	return 0;
}

void siwl_dealloc_driver(struct ib_device *ibdev)
{
	struct siwl_device *sdev = to_siwl_dev(ibdev);

	WARN_ON(atomic_read(&sdev->num_pd) || atomic_read(&sdev->num_ctx) ||
		atomic_read(&sdev->num_mr) || atomic_read(&sdev->num_cq) ||
		atomic_read(&sdev->num_srq) || atomic_read(&sdev->num_qp));
	siwl_qp_table_fini(sdev);
	siwl_mem_fini(sdev);
	siwl_stats_fini(sdev);

	/* Also reached for a device that never made it onto the list. */
	mutex_lock(&siwl_devices_lock);
	list_del_init(&sdev->list);
	mutex_unlock(&siwl_devices_lock);
	siwl_device_release_netdev(sdev);
}

static int siwl_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct siwl_device *sdev;
	struct ib_event ev = {};
	bool registered;

	mutex_lock(&siwl_devices_lock);
	sdev = siwl_find_by_netdev(netdev);
	if (!sdev) {
		mutex_unlock(&siwl_devices_lock);
		return NOTIFY_DONE;
	}
	if (event == NETDEV_UNREGISTER) {
		/*
		 * Let go of the netdev now, or its unregistration would
		 * wait for our device's queued teardown. The device
		 * reference keeps sdev alive against a racing link delete.
		 */
		get_device(&sdev->ibdev.dev);
		mutex_unlock(&siwl_devices_lock);
		siwl_device_release_netdev(sdev);
		ib_unregister_device_queued(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
		return NOTIFY_OK;
	}
	registered = ib_device_try_get(&sdev->ibdev);
	mutex_unlock(&siwl_devices_lock);
	if (!registered)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		siwl_port_refresh(sdev, true);
		break;
	case NETDEV_CHANGEADDR:
		if (!sdev->lladdr_fabricated) {
			ev.device = &sdev->ibdev;
			ev.element.port_num = SIWL_PORT;
			ev.event = IB_EVENT_GID_CHANGE;
			ib_dispatch_event(&ev);
		}
		break;
	default:
		break;
	}
	ib_device_put(&sdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block siwl_netdev_nb = {
	.notifier_call = siwl_netdev_event,
};

/*
 * A local address went away: the connections that use it end (see
 * siwl_qp_path_lost()). The IPv6 notifier runs in atomic context and
 * the device list has a mutex, so both notifiers queue what went and a
 * work item looks the device up. Each entry holds its netdev.
 */
struct siwl_addr_gone {
	struct list_head list;
	struct net_device *netdev;
	struct sockaddr_storage addr;
};

static LIST_HEAD(siwl_addr_gone_list);
static DEFINE_SPINLOCK(siwl_addr_gone_lock);

static void siwl_addr_gone_work(struct work_struct *work)
{
	struct siwl_addr_gone *g;
	struct siwl_device *sdev;
	bool registered;

	for (;;) {
		spin_lock_bh(&siwl_addr_gone_lock);
		g = list_first_entry_or_null(&siwl_addr_gone_list,
					     struct siwl_addr_gone, list);
		if (g)
			list_del(&g->list);
		spin_unlock_bh(&siwl_addr_gone_lock);
		if (!g)
			return;

		mutex_lock(&siwl_devices_lock);
		sdev = siwl_find_by_netdev(g->netdev);
		registered = sdev && ib_device_try_get(&sdev->ibdev);
		mutex_unlock(&siwl_devices_lock);
		if (registered) {
			siwl_qp_path_lost(sdev, &g->addr);
			ib_device_put(&sdev->ibdev);
		}
		dev_put(g->netdev);
		kfree(g);
	}
}

static DECLARE_WORK(siwl_addr_work, siwl_addr_gone_work);

static void siwl_addr_gone(struct net_device *netdev,
			   const struct sockaddr_storage *addr)
{
	struct siwl_addr_gone *g;

	/*
	 * Without memory the connections stay until TCP gives up on them,
	 * as they would without us: nothing worse.
	 */
	g = kzalloc(sizeof(*g), GFP_ATOMIC);
	if (!g)
		return;
	dev_hold(netdev);
	g->netdev = netdev;
	g->addr = *addr;
	spin_lock_bh(&siwl_addr_gone_lock);
	list_add_tail(&g->list, &siwl_addr_gone_list);
	spin_unlock_bh(&siwl_addr_gone_lock);
	schedule_work(&siwl_addr_work);
}

static int siwl_inetaddr_event(struct notifier_block *nb, unsigned long event,
			       void *arg)
{
	struct in_ifaddr *ifa = arg;
	struct sockaddr_storage ss = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	if (event != NETDEV_DOWN)
		return NOTIFY_DONE;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = ifa->ifa_local;
	siwl_addr_gone(ifa->ifa_dev->dev, &ss);
	return NOTIFY_OK;
}

static struct notifier_block siwl_inetaddr_nb = {
	.notifier_call = siwl_inetaddr_event,
};

#if IS_ENABLED(CONFIG_IPV6)
static int siwl_inet6addr_event(struct notifier_block *nb,
				unsigned long event, void *arg)
{
	struct inet6_ifaddr *ifa = arg;
	struct sockaddr_storage ss = {};
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	if (event != NETDEV_DOWN)
		return NOTIFY_DONE;
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = ifa->addr;
	siwl_addr_gone(ifa->idev->dev, &ss);
	return NOTIFY_OK;
}

static struct notifier_block siwl_inet6addr_nb = {
	.notifier_call = siwl_inet6addr_event,
};

static int siwl_register_inet6addr(void)
{
	return register_inet6addr_notifier(&siwl_inet6addr_nb);
}

static void siwl_unregister_inet6addr(void)
{
	unregister_inet6addr_notifier(&siwl_inet6addr_nb);
}
#else
static int siwl_register_inet6addr(void)
{
	return 0;
}

static void siwl_unregister_inet6addr(void)
{
}
#endif

static int siwl_addr_events_init(void)
{
	int rv;

	rv = register_inetaddr_notifier(&siwl_inetaddr_nb);
	if (rv)
		return rv;
	rv = siwl_register_inet6addr();
	if (rv)
		unregister_inetaddr_notifier(&siwl_inetaddr_nb);
	return rv;
}

/* No new entry after the notifiers are gone; the work takes the rest. */
static void siwl_addr_events_exit(void)
{
	siwl_unregister_inet6addr();
	unregister_inetaddr_notifier(&siwl_inetaddr_nb);
	flush_work(&siwl_addr_work);
}

static struct rdma_link_ops siwl_link_ops = {
	.type = "siw_lite",
	.newlink = siwl_newlink,
};

static void siwl_remove_all(void)
{
	struct siwl_device *sdev;

	for (;;) {
		mutex_lock(&siwl_devices_lock);
		sdev = list_first_entry_or_null(&siwl_devices,
						struct siwl_device, list);
		if (sdev)
			get_device(&sdev->ibdev.dev);
		mutex_unlock(&siwl_devices_lock);
		if (!sdev)
			break;
		/*
		 * Also waits for an unregistration queued by the netdev
		 * notifier; either way siwl_dealloc_driver() unlinks it.
		 */
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}

static int __init siwl_init(void)
{
	int rv;

	rv = siwl_cm_init();
	if (rv)
		return rv;
	rv = siwl_qp_init_module();
	if (rv)
		goto out_cm;
	rv = register_netdevice_notifier(&siwl_netdev_nb);
	if (rv)
		goto out_qp;
	rv = siwl_addr_events_init();
	if (rv)
		goto out_netdev;
	rdma_link_register(&siwl_link_ops);
	siwl_tune_init();
	pr_debug("loaded\n");
	return 0;

out_netdev:
	unregister_netdevice_notifier(&siwl_netdev_nb);
out_qp:
	siwl_qp_exit_module();
out_cm:
	siwl_cm_exit();
	return rv;
}

static void __exit siwl_exit(void)
{
	siwl_tune_exit();
	/* Waits for a newlink in progress; none can start afterwards. */
	rdma_link_unregister(&siwl_link_ops);
	siwl_addr_events_exit();
	unregister_netdevice_notifier(&siwl_netdev_nb);
	siwl_remove_all();
	/* Counter sets freed after a grace period (stats.c) run our code. */
	rcu_barrier();
	siwl_cm_exit();
	siwl_zc_exit_module();
	siwl_qp_exit_module();
	pr_debug("unloaded\n");
}

module_init(siwl_init);
module_exit(siwl_exit);

MODULE_AUTHOR("siw_lite developers");
MODULE_DESCRIPTION("Software iWARP RNIC (RDMAP/DDP/MPA over kernel TCP)");
MODULE_LICENSE("GPL");
MODULE_VERSION(SIWL_VERSION);
MODULE_ALIAS_RDMA_LINK("siw_lite");
