// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw_lite userspace provider for libibverbs (private ABI 34).
 *
 * How libibverbs finds us: it loads lib<name>-rdmav34.so for every
 * "driver <name>" line in /etc/libibverbs.d/ (or from RDMAV_DRIVERS), and
 * our constructor registers siwl_dev_ops.  For each RDMA device it then
 * asks each registered provider whether the device is its own.  The
 * out-of-tree kernel module cannot own an enum rdma_driver_id value, so it
 * reports RDMA_DRIVER_UNKNOWN and the driver-id match never fires.  Our
 * table's name-prefix entry "siwl" is only a hint; what decides is
 * siwl_match_device(), which libibverbs calls for every device: it claims
 * the device iff <ibdev sysfs dir>/siw_lite_abi exists and holds our ABI
 * version.  So the device may have any name, and another driver's device
 * (rxe0, or one that happens to be called siwl*) is never claimed.
 * Finally libibverbs requires the device's uverbs ABI version to lie in
 * [match_min_abi_version, match_max_abi_version].
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "siw_lite.h"

static const struct verbs_context_ops siwl_ctx_ops;

/* "strings libsiw_lite-rdmav34.so" tells which release is installed. */
static const char siwl_ident[] __attribute__((used)) =
	"siw_lite provider " SIWL_VERSION;

/*
 * The attribute holds SIW_LITE_ABI_VERSION in decimal; libibverbs strips
 * the trailing newline.  Anything else (missing, empty, garbage) means the
 * device is not ours.
 */
static bool siwl_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	int saved_errno = errno;
	unsigned long ver;
	char buf[16];
	char *end;
	int len;
	bool ours = false;

	len = ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
					SIW_LITE_SYSFS_ATTR);
	/* len == 0 leaves buf unterminated, so never parse it */
	if (len <= 0 || !isdigit((unsigned char)buf[0]))
		goto out;

	errno = 0;
	ver = strtoul(buf, &end, 10);
	if (errno || *end != '\0')
		goto out;

	if (ver != SIW_LITE_ABI_VERSION) {
		/*
		 * It is a siw_lite device, but one this provider cannot
		 * drive; say so instead of letting it silently vanish from
		 * the device list.
		 */
		fprintf(stderr,
			"siw_lite: %s: kernel speaks siw_lite ABI %lu, this provider (%s) ABI %d\n",
			sysfs_dev->ibdev_name, ver, SIWL_VERSION,
			SIW_LITE_ABI_VERSION);
		goto out;
	}
	ours = true;
out:
	/* a failed probe must not leak ENOENT into the caller's errno */
	errno = saved_errno;
	return ours;
}

static struct verbs_device *
siwl_alloc_device(struct verbs_sysfs_dev *sysfs_dev __maybe_unused)
{
	struct siwl_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->vdev;
}

static void siwl_uninit_device(struct verbs_device *vdev)
{
	free(to_siwl_dev(&vdev->device));
}

/*
 * Shared rings when the kernel offers them, unless SIW_LITE_NO_RINGS=1
 * asks for the command data path (for comparison and for debugging).
 */
static bool siwl_want_rings(const struct siwl_context *ctx)
{
	const char *env = getenv("SIW_LITE_NO_RINGS");

	if (!(ctx->caps & SIW_LITE_CAP_RINGS))
		return false;
	return !env || strcmp(env, "1");
}

static struct verbs_context *siwl_alloc_context(struct ibv_device *ibdev,
						int cmd_fd,
						void *private_data __maybe_unused)
{
	struct pabi34_cmd_get_context cmd = {};
	struct siwl_alloc_ctx_resp resp = {};
	struct siwl_context *ctx;
	int saved_errno;
	int ret;

	/*
	 * libibverbs allocates our context and initialises the embedded
	 * verbs_context at the offset we give it; on failure it has already
	 * closed cmd_fd.
	 */
	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
			(struct verbs_context *)(uintptr_t)
				offsetof(struct siwl_context, vctx),
			RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv, sizeof(resp));
	if (ret) {
		errno = ret;
		goto err;
	}

	/*
	 * An older kernel that knows no siw_lite response leaves it zeroed,
	 * which fails this check as well.
	 */
	if (resp.drv.abi_version != SIW_LITE_ABI_VERSION) {
		siwl_err(&ctx->vctx.context,
			 "kernel ucontext ABI %u, provider ABI %d\n",
			 resp.drv.abi_version, SIW_LITE_ABI_VERSION);
		errno = EPROTO;
		goto err;
	}

	ctx->max_inline = resp.drv.max_inline;
	ctx->caps = resp.drv.caps;
	ctx->rings = siwl_want_rings(ctx);

	verbs_set_ops(&ctx->vctx, &siwl_ctx_ops);

	return &ctx->vctx;

err:
	saved_errno = errno;
	/* also closes cmd_fd, which tears down any kernel ucontext */
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = saved_errno;
	return NULL;
}

/*
 * Every object starts on the command backend; one whose create response
 * describes rings moves to the ring backend when they are mapped
 * (siwl_ring_attach_*()).
 */
const struct siwl_dp_ops *siwl_ctx_dp(struct siwl_context *ctx __maybe_unused)
{
	return &siwl_dp_cmd;
}

static void siwl_free_context(struct ibv_context *ibctx)
{
	struct siwl_context *ctx = to_siwl_ctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

/*
 * Ops left NULL make libibverbs fail the verb with EOPNOTSUPP (or ENOSYS).
 * The extended creation verbs (create_cq_ex, create_qp_ex, create_srq_ex)
 * and the ibv_wr_* API are not offered: ibv_create_qp_ex() with only a PD
 * in comp_mask, as librdmacm uses it, still reaches create_qp.
 */
static const struct verbs_context_ops siwl_ctx_ops = {
	.alloc_pd = siwl_alloc_pd,
	.create_cq = siwl_create_cq,
	.create_qp = siwl_create_qp,
	.create_srq = siwl_create_srq,
	.dealloc_pd = siwl_dealloc_pd,
	.dereg_mr = siwl_dereg_mr,
	.destroy_cq = siwl_destroy_cq,
	.destroy_qp = siwl_destroy_qp,
	.destroy_srq = siwl_destroy_srq,
	.free_context = siwl_free_context,
	.modify_qp = siwl_modify_qp,
	.modify_srq = siwl_modify_srq,
	.poll_cq = siwl_poll_cq,
	.post_recv = siwl_post_recv,
	.post_send = siwl_post_send,
	.post_srq_recv = siwl_post_srq_recv,
	.query_device_ex = siwl_query_device_ex,
	.query_port = siwl_query_port,
	.query_qp = siwl_query_qp,
	.query_srq = siwl_query_srq,
	.reg_mr = siwl_reg_mr,
	.req_notify_cq = siwl_req_notify_cq,
};

static const struct verbs_match_ent siwl_match_table[] = {
	PABI34_NAME_MATCH("siwl", NULL),
	{}
};

static const struct verbs_device_ops siwl_dev_ops = {
	.name = "siw_lite",
	.match_min_abi_version = SIW_LITE_ABI_VERSION,
	.match_max_abi_version = SIW_LITE_ABI_VERSION,
	.match_table = siwl_match_table,
	.match_device = siwl_match_device,
	.alloc_device = siwl_alloc_device,
	.uninit_device = siwl_uninit_device,
	.alloc_context = siwl_alloc_context,
};

/*
 * dlopen() by libibverbs runs this; the versioned symbol makes the load
 * fail on a libibverbs whose private ABI is not 34.
 */
static void __attribute__((constructor)) siwl_register_driver(void)
{
	verbs_register_driver_34(&siwl_dev_ops);
}
