/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * siw_lite user/kernel ABI, shared by the kernel module and the rdma-core
 * provider (tools/provider).
 *
 * Rules every structure here follows, so that 32/64-bit and old/new user
 * space agree on the layout:
 *  - sizes are multiples of 8 and every 64-bit field is 8-byte aligned
 *    (__aligned_u64), no implicit padding;
 *  - structures only ever grow at the end; the kernel accepts a shorter
 *    request from an older provider as long as it covers every field that
 *    was defined in SIW_LITE_ABI_VERSION 1, and zero-fills a response that
 *    the provider made larger than the kernel knows;
 *  - reserved fields must be written as zero and are checked by the kernel.
 */
#ifndef SIW_LITE_ABI_H
#define SIW_LITE_ABI_H

#include <linux/types.h>

/* Reported as ib_device.ops.uverbs_abi_ver and in sysfs. */
#define SIW_LITE_ABI_VERSION 1

/*
 * The provider recognises a siw_lite device by this attribute in the
 * device's sysfs directory: /sys/class/infiniband/<ibdev>/siw_lite_abi
 * holds SIW_LITE_ABI_VERSION in decimal followed by a newline.
 */
#define SIW_LITE_SYSFS_ATTR "siw_lite_abi"

/* Capabilities reported at ucontext allocation (bitmask). */
enum siw_lite_caps {
	SIW_LITE_CAP_NONE = 0,
};

/* IB_USER_VERBS_CMD_GET_CONTEXT: no driver request, this response. */
struct siw_lite_uresp_alloc_ctx {
	__u32 abi_version;	/* SIW_LITE_ABI_VERSION */
	__u32 max_inline;	/* bytes of inline data per send WQE */
	__aligned_u64 caps;	/* enum siw_lite_caps */
};

#endif /* SIW_LITE_ABI_H */
