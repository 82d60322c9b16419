/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private types of the siw_lite provider, shared by its source files.
 */
#ifndef SIW_LITE_PROVIDER_H
#define SIW_LITE_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/siw_lite-abi.h>

#include "pabi34.h"

/*
 * /usr/include/rdma has other drivers' ABI headers; make sure the build
 * picked up the project's own header and not something stale.
 */
#ifndef SIW_LITE_SYSFS_ATTR
#error "rdma/siw_lite-abi.h is not the project's uapi header"
#endif

#define __maybe_unused __attribute__((unused))

#define siwl_container_of(ptr, type, member)				\
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * Request/response buffers that carry siw_lite data after the uverbs core
 * part.  libibverbs locates our part purely by sizeof(core), so any padding
 * in between would shift it; the asserts rule that out at compile time.
 */
#define SIWL_DRV_CMD(name, core_t, drv_t)				\
	struct name {							\
		struct core_t ibv;					\
		struct drv_t drv;					\
	};								\
	_Static_assert(offsetof(struct name, drv) ==			\
		       sizeof(struct core_t),				\
		       "padding before driver part of " #name);		\
	_Static_assert(sizeof(struct name) ==				\
		       sizeof(struct core_t) + sizeof(struct drv_t),	\
		       "padding after driver part of " #name)

#define SIWL_DRV_RESP(name, core_t, drv_t) SIWL_DRV_CMD(name, core_t, drv_t)

SIWL_DRV_RESP(siwl_alloc_ctx_resp, ib_uverbs_get_context_resp,
	      siw_lite_uresp_alloc_ctx);

struct siwl_device {
	struct verbs_device vdev;
};

struct siwl_context {
	struct verbs_context vctx;
	uint32_t max_inline;		/* from the kernel at alloc time */
	uint64_t caps;			/* enum siw_lite_caps */
};

struct siwl_pd {
	struct ibv_pd ibv_pd;
};

struct siwl_mr {
	struct verbs_mr vmr;
};

static inline struct siwl_device *to_siwl_dev(struct ibv_device *ibdev)
{
	return siwl_container_of(ibdev, struct siwl_device, vdev.device);
}

static inline struct siwl_context *to_siwl_ctx(struct ibv_context *ibctx)
{
	return siwl_container_of(ibctx, struct siwl_context, vctx.context);
}

static inline struct siwl_pd *to_siwl_pd(struct ibv_pd *ibpd)
{
	return siwl_container_of(ibpd, struct siwl_pd, ibv_pd);
}

static inline struct siwl_mr *to_siwl_mr(struct verbs_mr *vmr)
{
	return siwl_container_of(vmr, struct siwl_mr, vmr);
}

/*
 * Goes to VERBS_LOG_FILE when VERBS_LOG_LEVEL asks for it; libibverbs
 * preserves errno across the call.
 */
#define siwl_log(ibctx, level, fmt, ...)				\
	__verbs_log(&to_siwl_ctx(ibctx)->vctx, (level),			\
		    "siw_lite: %s: %s: " fmt,				\
		    (ibctx)->device->name, __func__, ##__VA_ARGS__)
#define siwl_err(ibctx, fmt, ...)					\
	siwl_log(ibctx, PABI34_LOG_ERR, fmt, ##__VA_ARGS__)
#define siwl_dbg(ibctx, fmt, ...)					\
	siwl_log(ibctx, PABI34_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* verbs.c: control-path verbs that are plain uverbs commands. */
int siwl_query_device_ex(struct ibv_context *ibctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int siwl_query_port(struct ibv_context *ibctx, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *siwl_alloc_pd(struct ibv_context *ibctx);
int siwl_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_mr *siwl_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int siwl_dereg_mr(struct verbs_mr *vmr);

#endif /* SIW_LITE_PROVIDER_H */
