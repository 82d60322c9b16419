// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: verbs the ib core requires a driver to provide but that the
 * data path does not implement yet. Each one fails cleanly so that a user
 * gets EOPNOTSUPP instead of a half-made object. Entries move out of this
 * table as the data path lands.
 */
#include "siw_lite.h"

static int siwl_create_cq_unsupported(struct ib_cq *cq,
				      const struct ib_cq_init_attr *attr,
				      struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int siwl_destroy_cq_unsupported(struct ib_cq *cq,
				       struct ib_udata *udata)
{
	return 0;
}

static int siwl_poll_cq_unsupported(struct ib_cq *cq, int num_entries,
				    struct ib_wc *wc)
{
	return -EOPNOTSUPP;
}

static int siwl_req_notify_cq_unsupported(struct ib_cq *cq,
					  enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

static int siwl_create_qp_unsupported(struct ib_qp *qp,
				      struct ib_qp_init_attr *attr,
				      struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int siwl_modify_qp_unsupported(struct ib_qp *qp,
				      struct ib_qp_attr *attr, int mask,
				      struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int siwl_destroy_qp_unsupported(struct ib_qp *qp,
				       struct ib_udata *udata)
{
	return 0;
}

static int siwl_post_send_unsupported(struct ib_qp *qp,
				      const struct ib_send_wr *wr,
				      const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int siwl_post_recv_unsupported(struct ib_qp *qp,
				      const struct ib_recv_wr *wr,
				      const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static struct ib_mr *siwl_get_dma_mr_unsupported(struct ib_pd *pd,
						 int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *siwl_reg_user_mr_unsupported(struct ib_pd *pd,
						  u64 start, u64 length,
						  u64 virt, int access,
						  struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int siwl_dereg_mr_unsupported(struct ib_mr *mr,
				     struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops siwl_unsupported_ops = {
	.create_cq = siwl_create_cq_unsupported,
	.create_qp = siwl_create_qp_unsupported,
	.dereg_mr = siwl_dereg_mr_unsupported,
	.destroy_cq = siwl_destroy_cq_unsupported,
	.destroy_qp = siwl_destroy_qp_unsupported,
	.get_dma_mr = siwl_get_dma_mr_unsupported,
	.modify_qp = siwl_modify_qp_unsupported,
	.poll_cq = siwl_poll_cq_unsupported,
	.post_recv = siwl_post_recv_unsupported,
	.post_send = siwl_post_send_unsupported,
	.reg_user_mr = siwl_reg_user_mr_unsupported,
	.req_notify_cq = siwl_req_notify_cq_unsupported,
};
