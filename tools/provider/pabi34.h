/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Our own declaration of the libibverbs private provider interface,
 * IBVERBS_PRIVATE_34 ("PABI 34"), covering only what siw_lite uses.
 *
 * rdma-core does not install <infiniband/driver.h>, and an out-of-tree
 * provider must not pull in rdma-core's build tree, so the structures and
 * prototypes below are declared here from the published layouts.  PABI 34
 * is the private ABI of rdma-core 44 up to and including 56.x; every symbol
 * we import is versioned IBVERBS_PRIVATE_34, so a libibverbs with another
 * PABI refuses to dlopen us instead of silently misinterpreting these
 * layouts.  The _Static_asserts pin every size and offset libibverbs and
 * this provider exchange; they were measured on x86_64 against rdma-core
 * v44.0 and v56.x, which agree on all of them.
 */
#ifndef SIW_LITE_PABI34_H
#define SIW_LITE_PABI34_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

#define PABI34_VERSION 34

/*
 * The layouts below are only verified for LP64; refuse anything else rather
 * than produce a provider with unchecked offsets.
 */
_Static_assert(sizeof(void *) == 8 && sizeof(long) == 8,
	       "PABI 34 layouts are only verified for LP64");

/* Two pointers, like ccan's list_node, used for libibverbs' own lists. */
struct pabi34_list_node {
	struct pabi34_list_node *next;
	struct pabi34_list_node *prev;
};

/*
 * Match table entries.  libibverbs has no "name" kind: a name match is a
 * modalias entry whose pattern is fnmatch()ed against the string
 * "rdma_device:N<ibdev name>".
 */
enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

#define PABI34_NAME_MATCH(prefix, data)					\
	{								\
		.driver_data = (data),					\
		.u.modalias = "rdma_device:*N" prefix "*",		\
		.kind = VERBS_MATCH_MODALIAS,				\
	}

/* What libibverbs discovered about one device (netlink or sysfs). */
struct verbs_sysfs_dev {
	struct pabi34_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct verbs_device;

struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd,
					       void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device;	/* libibverbs casts; must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct pabi34_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

enum pabi34_mr_type {
	PABI34_MR_TYPE_MR,
	PABI34_MR_TYPE_NULL_MR,
	PABI34_MR_TYPE_IMPORTED_MR,
	PABI34_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum pabi34_mr_type mr_type;
	int access;
};

/*
 * Every op a provider may implement, in rdma-core's (alphabetical) order.
 * verbs_set_ops() copies the non-NULL members; a NULL op makes libibverbs
 * return EOPNOTSUPP/ENOSYS to the application.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(
		struct ibv_context *context,
		struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(
		struct ibv_context *context,
		struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(
		struct ibv_context *context,
		struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(
		struct ibv_context *context,
		struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp,
				      enum ibv_wr_opcode op, uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova,
					int fd, int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/*
 * Legacy write() command buffers: the uverbs header immediately followed by
 * the core request; libibverbs sends everything from cmd + sizeof(core) up
 * to cmd_size as the driver's private request (UHW in).  A driver request is
 * appended as a further member, see SIWL_DRV_CMD in siw_lite.h.
 */
#define PABI34_CMD(name, kabi)						\
	struct pabi34_cmd_##name {					\
		struct ib_uverbs_cmd_hdr hdr;				\
		struct kabi core;					\
	}

PABI34_CMD(get_context, ib_uverbs_get_context);
PABI34_CMD(query_port, ib_uverbs_query_port);
PABI34_CMD(alloc_pd, ib_uverbs_alloc_pd);
PABI34_CMD(reg_mr, ib_uverbs_reg_mr);
PABI34_CMD(create_cq, ib_uverbs_create_cq);
PABI34_CMD(create_qp, ib_uverbs_create_qp);
PABI34_CMD(modify_qp, ib_uverbs_modify_qp);
PABI34_CMD(query_qp, ib_uverbs_query_qp);
PABI34_CMD(create_srq, ib_uverbs_create_srq);
PABI34_CMD(modify_srq, ib_uverbs_modify_srq);
PABI34_CMD(query_srq, ib_uverbs_query_srq);

/* IBVERBS_PRIVATE_34 functions (libibverbs/driver.h of rdma-core 44..56) */
void verbs_register_driver_34(const struct verbs_device_ops *ops);

void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

enum {
	PABI34_LOG_NONE,
	PABI34_LOG_ERR,
	PABI34_LOG_WARN,
	PABI34_LOG_INFO,
	PABI34_LOG_DEBUG,
};

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

int ibv_cmd_get_context(struct verbs_context *context,
			struct pabi34_cmd_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct pabi34_cmd_query_port *cmd, size_t cmd_size);

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct pabi34_cmd_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);

int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct pabi34_cmd_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq,
		      struct pabi34_cmd_create_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_create_cq_resp *resp, size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
/* Returns the number of completions, or -1 with errno set. */
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);

int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr,
		      struct pabi34_cmd_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask,
		      struct pabi34_cmd_modify_qp *cmd, size_t cmd_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct pabi34_cmd_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
/*
 * The legacy POST_SEND/POST_RECV/POST_SRQ_RECV commands.  On failure
 * *bad_wr is the first WR the kernel did not take (the first of the list
 * when it took none).
 */
int ibv_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct pabi34_cmd_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask,
		       struct pabi34_cmd_modify_srq *cmd, size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct pabi34_cmd_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

/*
 * libibverbs' own QP type, struct verbs_qp, is
 *	union { struct ibv_qp qp; struct ibv_qp_ex qp_ex; };
 *	uint32_t comp_mask; struct verbs_xrcd *xrcd;
 * and ibv_qp_to_qp_ex() reads comp_mask from *any* ibv_qp, ours included:
 * at 352 in rdma-core 44, at 360 in 56 (ibv_qp_ex grew).  A provider that
 * does not implement the ibv_wr_* API must make that word read zero, so
 * our QP reserves PABI34_VERBS_QP_ROOM zeroed bytes from its ibv_qp on.
 */
#define PABI34_VERBS_QP_COMP_MASK_MAX	360
#define PABI34_VERBS_QP_ROOM		384

/*
 * Layout guards.  A mismatch here means the declarations above no longer
 * describe what libibverbs 34 passes us: fix the header, never the number.
 */
#define PABI34_SIZE(type, size)						\
	_Static_assert(sizeof(type) == (size), "PABI34 size of " #type)
#define PABI34_OFF(type, member, off)					\
	_Static_assert(offsetof(type, member) == (off),			\
		       "PABI34 offset of " #type "." #member)

PABI34_SIZE(struct pabi34_list_node, 16);

PABI34_SIZE(struct verbs_match_ent, 24);
PABI34_OFF(struct verbs_match_ent, u, 8);
PABI34_OFF(struct verbs_match_ent, vendor, 16);
PABI34_OFF(struct verbs_match_ent, device, 18);
PABI34_OFF(struct verbs_match_ent, kind, 20);

PABI34_SIZE(struct verbs_sysfs_dev, 992);
PABI34_OFF(struct verbs_sysfs_dev, provider_data, 16);
PABI34_OFF(struct verbs_sysfs_dev, match, 24);
PABI34_OFF(struct verbs_sysfs_dev, flags, 32);
PABI34_OFF(struct verbs_sysfs_dev, sysfs_name, 36);
PABI34_OFF(struct verbs_sysfs_dev, sysfs_cdev, 104);
PABI34_OFF(struct verbs_sysfs_dev, ibdev_name, 112);
PABI34_OFF(struct verbs_sysfs_dev, ibdev_path, 176);
PABI34_OFF(struct verbs_sysfs_dev, modalias, 432);
PABI34_OFF(struct verbs_sysfs_dev, node_guid, 944);
PABI34_OFF(struct verbs_sysfs_dev, driver_id, 952);
PABI34_OFF(struct verbs_sysfs_dev, node_type, 956);
PABI34_OFF(struct verbs_sysfs_dev, ibdev_idx, 960);
PABI34_OFF(struct verbs_sysfs_dev, num_ports, 964);
PABI34_OFF(struct verbs_sysfs_dev, abi_ver, 968);
PABI34_OFF(struct verbs_sysfs_dev, time_created, 976);

PABI34_SIZE(struct verbs_device_ops, 72);
PABI34_OFF(struct verbs_device_ops, name, 0);
PABI34_OFF(struct verbs_device_ops, match_min_abi_version, 8);
PABI34_OFF(struct verbs_device_ops, match_max_abi_version, 12);
PABI34_OFF(struct verbs_device_ops, match_table, 16);
PABI34_OFF(struct verbs_device_ops, static_providers, 24);
PABI34_OFF(struct verbs_device_ops, match_device, 32);
PABI34_OFF(struct verbs_device_ops, alloc_context, 40);
PABI34_OFF(struct verbs_device_ops, import_context, 48);
PABI34_OFF(struct verbs_device_ops, alloc_device, 56);
PABI34_OFF(struct verbs_device_ops, uninit_device, 64);

PABI34_SIZE(struct ibv_device, 664);
PABI34_SIZE(struct verbs_device, 712);
PABI34_OFF(struct verbs_device, device, 0);
PABI34_OFF(struct verbs_device, ops, 664);
PABI34_OFF(struct verbs_device, refcount, 672);
PABI34_OFF(struct verbs_device, entry, 680);
PABI34_OFF(struct verbs_device, sysfs, 696);
PABI34_OFF(struct verbs_device, core_support, 704);

PABI34_SIZE(struct verbs_context, 648);
PABI34_OFF(struct verbs_context, context, 320);

PABI34_SIZE(struct ibv_mr, 48);
PABI34_SIZE(struct verbs_mr, 56);
PABI34_OFF(struct verbs_mr, mr_type, 48);
PABI34_OFF(struct verbs_mr, access, 52);

/* One pointer per op, at 8 * (position in rdma-core's sorted list). */
#define PABI34_OP(member, idx)						\
	PABI34_OFF(struct verbs_context_ops, member, 8 * (idx))

PABI34_SIZE(struct verbs_context_ops, 608);
PABI34_OP(advise_mr, 0);
PABI34_OP(alloc_dm, 1);
PABI34_OP(alloc_mw, 2);
PABI34_OP(alloc_null_mr, 3);
PABI34_OP(alloc_parent_domain, 4);
PABI34_OP(alloc_pd, 5);
PABI34_OP(alloc_td, 6);
PABI34_OP(async_event, 7);
PABI34_OP(attach_counters_point_flow, 8);
PABI34_OP(attach_mcast, 9);
PABI34_OP(bind_mw, 10);
PABI34_OP(close_xrcd, 11);
PABI34_OP(cq_event, 12);
PABI34_OP(create_ah, 13);
PABI34_OP(create_counters, 14);
PABI34_OP(create_cq, 15);
PABI34_OP(create_cq_ex, 16);
PABI34_OP(create_flow, 17);
PABI34_OP(create_flow_action_esp, 18);
PABI34_OP(create_qp, 19);
PABI34_OP(create_qp_ex, 20);
PABI34_OP(create_rwq_ind_table, 21);
PABI34_OP(create_srq, 22);
PABI34_OP(create_srq_ex, 23);
PABI34_OP(create_wq, 24);
PABI34_OP(dealloc_mw, 25);
PABI34_OP(dealloc_pd, 26);
PABI34_OP(dealloc_td, 27);
PABI34_OP(dereg_mr, 28);
PABI34_OP(destroy_ah, 29);
PABI34_OP(destroy_counters, 30);
PABI34_OP(destroy_cq, 31);
PABI34_OP(destroy_flow, 32);
PABI34_OP(destroy_flow_action, 33);
PABI34_OP(destroy_qp, 34);
PABI34_OP(destroy_rwq_ind_table, 35);
PABI34_OP(destroy_srq, 36);
PABI34_OP(destroy_wq, 37);
PABI34_OP(detach_mcast, 38);
PABI34_OP(free_context, 39);
PABI34_OP(free_dm, 40);
PABI34_OP(get_srq_num, 41);
PABI34_OP(import_dm, 42);
PABI34_OP(import_mr, 43);
PABI34_OP(import_pd, 44);
PABI34_OP(modify_cq, 45);
PABI34_OP(modify_flow_action_esp, 46);
PABI34_OP(modify_qp, 47);
PABI34_OP(modify_qp_rate_limit, 48);
PABI34_OP(modify_srq, 49);
PABI34_OP(modify_wq, 50);
PABI34_OP(open_qp, 51);
PABI34_OP(open_xrcd, 52);
PABI34_OP(poll_cq, 53);
PABI34_OP(post_recv, 54);
PABI34_OP(post_send, 55);
PABI34_OP(post_srq_ops, 56);
PABI34_OP(post_srq_recv, 57);
PABI34_OP(query_device_ex, 58);
PABI34_OP(query_ece, 59);
PABI34_OP(query_port, 60);
PABI34_OP(query_qp, 61);
PABI34_OP(query_qp_data_in_order, 62);
PABI34_OP(query_rt_values, 63);
PABI34_OP(query_srq, 64);
PABI34_OP(read_counters, 65);
PABI34_OP(reg_dm_mr, 66);
PABI34_OP(reg_dmabuf_mr, 67);
PABI34_OP(reg_mr, 68);
PABI34_OP(req_notify_cq, 69);
PABI34_OP(rereg_mr, 70);
PABI34_OP(resize_cq, 71);
PABI34_OP(set_ece, 72);
PABI34_OP(unimport_dm, 73);
PABI34_OP(unimport_mr, 74);
PABI34_OP(unimport_pd, 75);
/* The spot checks from the measured reference, restated in bytes. */
PABI34_OFF(struct verbs_context_ops, alloc_pd, 40);
PABI34_OFF(struct verbs_context_ops, post_send, 440);
PABI34_OFF(struct verbs_context_ops, reg_mr, 544);
PABI34_OFF(struct verbs_context_ops, unimport_pd, 600);

/*
 * Command buffers: header plus core, no padding in between or after, so
 * that the driver part begins exactly at cmd + sizeof(hdr) + sizeof(core).
 */
#define PABI34_CMD_SIZE(name, kabi, size)				\
	PABI34_SIZE(struct pabi34_cmd_##name, size);			\
	PABI34_OFF(struct pabi34_cmd_##name, core,			\
		   sizeof(struct ib_uverbs_cmd_hdr));			\
	_Static_assert(sizeof(struct pabi34_cmd_##name) ==		\
		       sizeof(struct ib_uverbs_cmd_hdr) +		\
		       sizeof(struct kabi),				\
		       "PABI34 padding in pabi34_cmd_" #name)

PABI34_SIZE(struct ib_uverbs_cmd_hdr, 8);
PABI34_CMD_SIZE(get_context, ib_uverbs_get_context, 16);
PABI34_CMD_SIZE(query_port, ib_uverbs_query_port, 24);
PABI34_CMD_SIZE(alloc_pd, ib_uverbs_alloc_pd, 16);
PABI34_CMD_SIZE(reg_mr, ib_uverbs_reg_mr, 48);
PABI34_CMD_SIZE(create_cq, ib_uverbs_create_cq, 40);
PABI34_CMD_SIZE(create_qp, ib_uverbs_create_qp, 64);
PABI34_CMD_SIZE(modify_qp, ib_uverbs_modify_qp, 120);
PABI34_CMD_SIZE(query_qp, ib_uverbs_query_qp, 24);
PABI34_CMD_SIZE(create_srq, ib_uverbs_create_srq, 40);
PABI34_CMD_SIZE(modify_srq, ib_uverbs_modify_srq, 24);
PABI34_CMD_SIZE(query_srq, ib_uverbs_query_srq, 24);

/* The public objects libibverbs and we share, and verbs_qp's room. */
PABI34_SIZE(struct ibv_qp, 160);
PABI34_SIZE(struct ibv_cq, 128);
PABI34_SIZE(struct ibv_srq, 128);
_Static_assert(sizeof(struct ibv_qp_ex) + sizeof(uint32_t) <=
	       PABI34_VERBS_QP_ROOM &&
	       PABI34_VERBS_QP_COMP_MASK_MAX + sizeof(uint32_t) <=
	       PABI34_VERBS_QP_ROOM,
	       "PABI34 verbs_qp.comp_mask must lie inside our zeroed room");

/* Core responses; a driver response is appended right after these. */
PABI34_SIZE(struct ib_uverbs_get_context_resp, 8);
PABI34_SIZE(struct ib_uverbs_alloc_pd_resp, 4);
PABI34_SIZE(struct ib_uverbs_reg_mr_resp, 12);
PABI34_SIZE(struct ib_uverbs_create_cq_resp, 8);
PABI34_SIZE(struct ib_uverbs_create_qp_resp, 32);
PABI34_SIZE(struct ib_uverbs_create_srq_resp, 16);

#endif /* SIW_LITE_PABI34_H */
