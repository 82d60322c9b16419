// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: device and port attributes, user contexts and protection
 * domains, and the table of verbs the ib core calls.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <linux/sysfs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "cm.h"
#include "cq.h"
#include "mem.h"
#include "qp.h"
#include "restrack.h"
#include "siw_lite.h"
#include "srq.h"
#include "stats.h"
#include <rdma/siw_lite-abi.h>

static int siwl_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr,
			     struct ib_udata *udata)
{
	/* No driver-specific request or response is defined. */
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	/* IEEE OUI is not assigned: report none rather than borrow one. */
	attr->vendor_id = 0;
	attr->vendor_part_id = 0;
	attr->hw_ver = 0;
	/* the release, in the 16-bit fields providers render as a.b.c */
	attr->fw_ver = (u64)SIWL_VERSION_MAJOR << 32 |
		       (u64)SIWL_VERSION_MINOR << 16 | SIWL_VERSION_PATCH;
	attr->max_qp = SIWL_MAX_QP;
	attr->max_qp_wr = SIWL_MAX_QP_WR;
	attr->max_send_sge = SIWL_MAX_SGE;
	attr->max_recv_sge = SIWL_MAX_SGE;
	attr->max_sge_rd = SIWL_MAX_SGE_RD;
	attr->max_cq = SIWL_MAX_CQ;
	attr->max_cqe = SIWL_MAX_CQE;
	attr->max_mr = SIWL_MAX_MR;
	attr->max_pd = SIWL_MAX_PD;
	attr->max_qp_rd_atom = SIWL_MAX_IRD;
	attr->max_qp_init_rd_atom = SIWL_MAX_ORD;
	attr->max_res_rd_atom = SIWL_MAX_QP * SIWL_MAX_IRD;
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->max_srq = SIWL_MAX_SRQ;
	attr->max_srq_wr = SIWL_MAX_SRQ_WR;
	attr->max_srq_sge = SIWL_MAX_SGE;
	attr->max_fast_reg_page_list_len = SIWL_MAX_FAST_REG_PAGES;
	attr->max_pkeys = 1;
	/* Fast-register MRs and local invalidate, as kernel ULPs need. */
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	/* Lets "rdma link delete" remove the device. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	return 0;
}

static enum ib_mtu siwl_mtu_enum(unsigned int mtu)
{
	/*
	 * iWARP has no IB MTU; FPDUs follow the TCP MSS. Report the largest
	 * IB MTU that fits in the netdev MTU so tools show something sane.
	 */
	if (mtu >= 4096)
		return IB_MTU_4096;
	if (mtu >= 2048)
		return IB_MTU_2048;
	if (mtu >= 1024)
		return IB_MTU_1024;
	if (mtu >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

static bool siwl_netdev_up(const struct net_device *netdev)
{
	return netif_running(netdev) && netif_carrier_ok(netdev);
}

/* Virtual links (dummy, veth, lo) do not know their speed. */
#define SIWL_DEFAULT_SPEED_MBPS 10000

static u32 siwl_netdev_speed(struct net_device *netdev)
{
	struct ethtool_link_ksettings ks;

	ASSERT_RTNL();
	if (__ethtool_get_link_ksettings(netdev, &ks) ||
	    ks.base.speed == (u32)SPEED_UNKNOWN || !ks.base.speed)
		return SIWL_DEFAULT_SPEED_MBPS;
	return ks.base.speed;
}

/*
 * Maps an Ethernet speed to the IB lane rate and width whose product is
 * the closest at or above it, so that "rdma link" and ibv_devinfo show a
 * rate that matches the netdev.
 */
static void siwl_ib_speed(u32 mbps, u16 *speed, u8 *width)
{
	static const struct {
		u32 mbps;
		u16 speed;
		u8 width;
	} map[] = {
		{ 2500, IB_SPEED_SDR, IB_WIDTH_1X },
		{ 5000, IB_SPEED_DDR, IB_WIDTH_1X },
		{ 10000, IB_SPEED_QDR, IB_WIDTH_1X },
		{ 14000, IB_SPEED_FDR, IB_WIDTH_1X },
		{ 25000, IB_SPEED_EDR, IB_WIDTH_1X },
		{ 40000, IB_SPEED_QDR, IB_WIDTH_4X },
		{ 50000, IB_SPEED_HDR, IB_WIDTH_1X },
		{ 100000, IB_SPEED_EDR, IB_WIDTH_4X },
		{ 200000, IB_SPEED_HDR, IB_WIDTH_4X },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (mbps <= map[i].mbps) {
			*speed = map[i].speed;
			*width = map[i].width;
			return;
		}
	}
	*speed = IB_SPEED_NDR;
	*width = IB_WIDTH_4X;
}

/*
 * Re-reads link state and speed; announces a state change as an async
 * event when @notify (the device is registered), and on the way down
 * ends the device's connections. Runs under RTNL.
 */
void siwl_port_refresh(struct siwl_device *sdev, bool notify)
{
	struct net_device *netdev = siwl_netdev_get(sdev);
	enum ib_port_state state = IB_PORT_DOWN;
	struct ib_event ev = {};

	ASSERT_RTNL();
	if (netdev) {
		if (siwl_netdev_up(netdev))
			state = IB_PORT_ACTIVE;
		WRITE_ONCE(sdev->speed_mbps, siwl_netdev_speed(netdev));
		dev_put(netdev);
	}
	if (atomic_xchg(&sdev->port_state, state) == state || !notify)
		return;

	ev.device = &sdev->ibdev;
	ev.element.port_num = SIWL_PORT;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
	/* As the in-tree siw: the connections over the link end with it. */
	if (state != IB_PORT_ACTIVE)
		siwl_qp_path_lost(sdev, NULL);
}

static int siwl_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	struct siwl_device *sdev = to_siwl_dev(ibdev);
	struct net_device *netdev;

	netdev = siwl_netdev_get(sdev);
	if (!netdev)
		return -ENODEV;

	/*
	 * The core pre-fills state from carrier and IPv4 addresses; our
	 * port is usable as soon as the link is, IPv6-only included.
	 */
	if (siwl_netdev_up(netdev)) {
		attr->state = IB_PORT_ACTIVE;
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	} else {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	}
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = siwl_mtu_enum(READ_ONCE(netdev->mtu));
	attr->phys_mtu = READ_ONCE(netdev->mtu);
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = U32_MAX;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->lid = 0;
	attr->sm_lid = 0;
	dev_put(netdev);

	siwl_ib_speed(READ_ONCE(sdev->speed_mbps), &attr->active_speed,
		      &attr->active_width);
	return 0;
}

static int siwl_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	immutable->gid_tbl_len = 1;
	immutable->pkey_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

static int siwl_query_gid(struct ib_device *ibdev, u32 port, int index,
			  union ib_gid *gid)
{
	struct siwl_device *sdev = to_siwl_dev(ibdev);
	struct net_device *netdev;

	if (index != 0)
		return -EINVAL;

	/*
	 * iw_cm matches a route's source device by GID: the link layer
	 * address zero-padded to 16 bytes. Follow address changes live.
	 */
	memset(gid, 0, sizeof(*gid));
	netdev = siwl_netdev_get(sdev);
	if (netdev && !sdev->lladdr_fabricated &&
	    netdev->addr_len == ETH_ALEN)
		ether_addr_copy(gid->raw, netdev->dev_addr);
	else
		ether_addr_copy(gid->raw, sdev->lladdr);
	if (netdev)
		dev_put(netdev);
	return 0;
}

static int siwl_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index != 0)
		return -EINVAL;
	/* iWARP has no partitions; report the default full-member key. */
	*pkey = 0xffff;
	return 0;
}

static void siwl_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%s (abi %u)", SIWL_VERSION,
		 SIW_LITE_ABI_VERSION);
}

static int siwl_alloc_ucontext(struct ib_ucontext *base,
			       struct ib_udata *udata)
{
	struct siwl_device *sdev = to_siwl_dev(base->device);
	struct siw_lite_uresp_alloc_ctx resp = {};
	int rv;

	/* No request is defined: whatever a provider sends must be zero. */
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	resp.abi_version = SIW_LITE_ABI_VERSION;
	resp.max_inline = SIWL_MAX_INLINE;
	resp.caps = SIW_LITE_CAP_RINGS;
	rv = siwl_respond(udata, &resp, sizeof(resp));
	if (rv)
		return rv;

	atomic_inc(&sdev->num_ctx);
	return 0;
}

static void siwl_dealloc_ucontext(struct ib_ucontext *base)
{
	atomic_dec(&to_siwl_dev(base->device)->num_ctx);
}

static int siwl_alloc_pd(struct ib_pd *base, struct ib_udata *udata)
{
	struct siwl_device *sdev = to_siwl_dev(base->device);
	int rv;

	/* Nothing is defined either way: zero in, zero out. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	rv = siwl_respond(udata, NULL, 0);
	if (rv)
		return rv;
	if (atomic_inc_return(&sdev->num_pd) > SIWL_MAX_PD) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int siwl_dealloc_pd(struct ib_pd *base, struct ib_udata *udata)
{
	atomic_dec(&to_siwl_dev(base->device)->num_pd);
	return 0;
}

static ssize_t siw_lite_abi_show(struct device *device,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", SIW_LITE_ABI_VERSION);
}
static DEVICE_ATTR_RO(siw_lite_abi);

static struct attribute *siwl_attrs[] = {
	&dev_attr_siw_lite_abi.attr,
	NULL,
};

static const struct attribute_group siwl_attr_group = {
	.attrs = siwl_attrs,
};

const struct ib_device_ops siwl_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SIW_LITE_ABI_VERSION,
	.device_group = &siwl_attr_group,

	.alloc_hw_port_stats = siwl_alloc_hw_port_stats,
	.alloc_mr = siwl_alloc_mr,
	.counter_alloc_stats = siwl_counter_alloc_stats,
	.counter_bind_qp = siwl_counter_bind_qp,
	.counter_dealloc = siwl_counter_dealloc,
	.counter_unbind_qp = siwl_counter_unbind_qp,
	.counter_update_stats = siwl_counter_update_stats,
	.alloc_pd = siwl_alloc_pd,
	.alloc_ucontext = siwl_alloc_ucontext,
	.create_cq = siwl_create_cq,
	.create_qp = siwl_create_qp,
	.create_srq = siwl_create_srq,
	.dealloc_driver = siwl_dealloc_driver,
	.dealloc_pd = siwl_dealloc_pd,
	.dealloc_ucontext = siwl_dealloc_ucontext,
	.dereg_mr = siwl_dereg_mr,
	.destroy_cq = siwl_destroy_cq,
	.destroy_qp = siwl_destroy_qp,
	.destroy_srq = siwl_destroy_srq,
	.disassociate_ucontext = siwl_disassociate_ucontext,
	.get_dev_fw_str = siwl_get_dev_fw_str,
	.fill_res_cq_entry = siwl_fill_res_cq_entry,
	.fill_res_mr_entry = siwl_fill_res_mr_entry,
	.fill_res_qp_entry = siwl_fill_res_qp_entry,
	.get_dma_mr = siwl_get_dma_mr,
	.get_hw_stats = siwl_get_hw_stats,
	.get_port_immutable = siwl_get_port_immutable,
	.iw_accept = siwl_iw_accept,
	.iw_add_ref = siwl_iw_add_ref,
	.iw_connect = siwl_iw_connect,
	.iw_create_listen = siwl_iw_create_listen,
	.iw_destroy_listen = siwl_iw_destroy_listen,
	.iw_get_qp = siwl_iw_get_qp,
	.iw_reject = siwl_iw_reject,
	.iw_rem_ref = siwl_iw_rem_ref,
	.map_mr_sg = siwl_map_mr_sg,
	.mmap = siwl_mmap,
	.mmap_free = siwl_mmap_free,
	.modify_qp = siwl_modify_qp,
	.modify_srq = siwl_modify_srq,
	.poll_cq = siwl_poll_cq,
	.post_recv = siwl_post_recv,
	.post_send = siwl_post_send,
	.post_srq_recv = siwl_post_srq_recv,
	.query_device = siwl_query_device,
	.query_gid = siwl_query_gid,
	.query_pkey = siwl_query_pkey,
	.query_port = siwl_query_port,
	.query_qp = siwl_query_qp,
	.query_srq = siwl_query_srq,
	.reg_user_mr = siwl_reg_user_mr,
	.req_notify_cq = siwl_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, siwl_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_pd, siwl_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, siwl_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_srq, siwl_srq, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, siwl_ucontext, base),
};
