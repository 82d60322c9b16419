// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Control-path verbs of the siw_lite provider that need nothing from user
 * space beyond the generic uverbs command: the kernel owns the objects.
 *
 * Convention (libibverbs'): ops returning int return 0 or a positive errno;
 * ops returning a pointer return NULL and set errno.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "siw_lite.h"

int siwl_query_device_ex(struct ibv_context *ibctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size,
				       &resp, &resp_size);
	if (ret)
		return ret;

	/*
	 * The kernel reports fw_ver as a number only; render it the way
	 * in-tree providers do (major.minor.sub in 16-bit fields) since
	 * libibverbs leaves the string empty.
	 */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);

	return 0;
}

int siwl_query_port(struct ibv_context *ibctx, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct pabi34_cmd_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *siwl_alloc_pd(struct ibv_context *ibctx)
{
	struct pabi34_cmd_alloc_pd cmd = {};
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct siwl_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}

	return &pd->ibv_pd;
}

int siwl_dealloc_pd(struct ibv_pd *ibpd)
{
	int ret;

	/* keep the memory if the kernel still holds the PD (EBUSY) */
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;

	free(to_siwl_pd(ibpd));
	return 0;
}

struct ibv_mr *siwl_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct pabi34_cmd_reg_mr cmd = {};
	struct ib_uverbs_reg_mr_resp resp = {};
	struct siwl_mr *mr;
	int ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;

	ret = ibv_cmd_reg_mr(ibpd, addr, length, hca_va, access, &mr->vmr,
			     &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}

	return &mr->vmr.ibv_mr;
}

int siwl_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;

	free(to_siwl_mr(vmr));
	return 0;
}
