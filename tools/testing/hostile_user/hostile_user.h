/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * hostile_user: a local user of a siw_lite device that breaks the rules
 * of the verbs API on purpose (see hostile_user.c for the command line,
 * README for the cases).
 */
#ifndef HOSTILE_USER_H
#define HOSTILE_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "../../provider/pabi34.h"
#include <rdma/siw_lite-abi.h>

#define HU_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct hu_opts {
	const char *dev;	/* local cases: the RDMA device */
	const char *addr;	/* client: the server's address */
	const char *bind;	/* server: listen address */
	const char *port;
	unsigned int timeout;	/* seconds per wait */
	unsigned int count;	/* server: connections to serve, 0: any */
	bool verbose;
};

struct hu_case {
	const char *name;
	bool peer;		/* needs a --server on the other side */
	void (*run)(const struct hu_opts *o);
	const char *what;
};

/* rdma-core's struct ibv_modify_qp_ex: both headers, then the core. */
struct hu_cmd_modify_qp_ex {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
	struct ib_uverbs_ex_modify_qp core;
};

/* IBVERBS_PRIVATE_34, not in pabi34.h: the provider does not use it */
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct hu_cmd_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);

#include "tap.h"	/* tools/testing/lib */
/*
 * One point: the call failed with exactly @want (0: it succeeded).
 * @got is 0 or a positive errno.
 */
bool tap_errno(int got, int want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *hu_err(int e);	/* "EINVAL" or "success" */
double hu_now(void);

/* Opens the device of the local cases (--dev, else the first one). */
struct ibv_context *hu_open(const struct hu_opts *o);
/* /dev/infiniband/uverbsN of @ctx, opened anew: a file without ucontext. */
int hu_open_raw(struct ibv_context *ctx);

/*
 * Objects made with the ibv_cmd_* helpers directly (the provider would
 * refuse our garbage before the kernel sees it): what libibverbs' own
 * wrappers would initialise around the provider call is done here.
 */
struct ibv_cq *hu_cq_alloc(void);
struct ibv_qp *hu_qp_alloc(void);
struct ibv_srq *hu_srq_alloc(void);
void hu_free_cq(struct ibv_cq *cq);	/* ibv_cmd_destroy_cq + free */
void hu_free_qp(struct ibv_qp *qp);
void hu_free_srq(struct ibv_srq *srq);

/* local cases */
void hu_case_udata(const struct hu_opts *o);
void hu_case_stale(const struct hu_opts *o);
void hu_case_mmap(const struct hu_opts *o);
void hu_case_mr(const struct hu_opts *o);
void hu_case_flood(const struct hu_opts *o);
void hu_case_wqe(const struct hu_opts *o);

/* cases with a peer, hu_conn.c */
void hu_case_pd_cross(const struct hu_opts *o);
void hu_case_mr_inflight(const struct hu_opts *o);
void hu_case_fork(const struct hu_opts *o);
void hu_case_qp_hijack(const struct hu_opts *o);
void hu_case_stream(const struct hu_opts *o);
int hu_server(const struct hu_opts *o);

#endif /* HOSTILE_USER_H */
