// SPDX-License-Identifier: GPL-2.0
/*
 * siw_lite: the per-device counters and how the RDMA core reads them
 * (port hw stats: "rdma statistic show link", sysfs hw_counters).
 *
 * Lifetime: the per-CPU block is allocated with the device, before it can
 * be registered, and freed in siwl_dealloc_driver(), after the core has
 * unregistered it and every QP, CQ and CEP that counts into it is gone.
 */
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "qp_obj.h"
#include "siw_lite.h"
#include "stats.h"

static const struct rdma_stat_desc siwl_stat_descs[] = {
	[SIWL_STAT_TX_SEND_FPDUS].name = "tx_send_fpdus",
	[SIWL_STAT_TX_WRITE_FPDUS].name = "tx_write_fpdus",
	[SIWL_STAT_TX_READ_REQ_FPDUS].name = "tx_read_req_fpdus",
	[SIWL_STAT_TX_READ_RESP_FPDUS].name = "tx_read_resp_fpdus",
	[SIWL_STAT_TX_TERM_FPDUS].name = "tx_terminates",
	[SIWL_STAT_TX_SEND_BYTES].name = "tx_send_bytes",
	[SIWL_STAT_TX_WRITE_BYTES].name = "tx_write_bytes",
	[SIWL_STAT_TX_READ_RESP_BYTES].name = "tx_read_resp_bytes",
	[SIWL_STAT_RX_SEND_FPDUS].name = "rx_send_fpdus",
	[SIWL_STAT_RX_WRITE_FPDUS].name = "rx_write_fpdus",
	[SIWL_STAT_RX_READ_REQ_FPDUS].name = "rx_read_req_fpdus",
	[SIWL_STAT_RX_READ_RESP_FPDUS].name = "rx_read_resp_fpdus",
	[SIWL_STAT_RX_TERM_FPDUS].name = "rx_terminates",
	[SIWL_STAT_RX_SEND_BYTES].name = "rx_send_bytes",
	[SIWL_STAT_RX_WRITE_BYTES].name = "rx_write_bytes",
	[SIWL_STAT_RX_READ_RESP_BYTES].name = "rx_read_resp_bytes",
	[SIWL_STAT_TX_ZCOPY_BYTES].name = "tx_zcopy_bytes",
	[SIWL_STAT_TX_COPY_BYTES].name = "tx_copy_bytes",
	[SIWL_STAT_MPA_REQ_SENT].name = "mpa_req_sent",
	[SIWL_STAT_MPA_REQ_RCVD].name = "mpa_req_rcvd",
	[SIWL_STAT_MPA_REP_SENT].name = "mpa_rep_sent",
	[SIWL_STAT_MPA_REP_RCVD].name = "mpa_rep_rcvd",
	[SIWL_STAT_MPA_REJ_SENT].name = "mpa_rej_sent",
	[SIWL_STAT_MPA_REJ_RCVD].name = "mpa_rej_rcvd",
	[SIWL_STAT_MPA_ERRORS].name = "mpa_errors",
	[SIWL_STAT_RX_CRC_ERRORS].name = "rx_crc_errors",
	[SIWL_STAT_LLP_ERRORS].name = "llp_errors",
	[SIWL_STAT_DDP_ERRORS].name = "ddp_errors",
	[SIWL_STAT_RDMAP_ERRORS].name = "rdmap_errors",
	[SIWL_STAT_LOCAL_ERRORS].name = "local_errors",
	[SIWL_STAT_CONN_RESETS].name = "conn_resets",
	[SIWL_STAT_DOORBELLS].name = "doorbells",
	[SIWL_STAT_SQ_POLLS].name = "sq_polls",
	[SIWL_STAT_CQ_OVERFLOWS].name = "cq_overflows",
	[SIWL_STAT_RX_RQE_WAITS].name = "rx_rqe_waits",
	[SIWL_STAT_RX_NO_RQE].name = "rx_no_rqe",
};

static_assert(ARRAY_SIZE(siwl_stat_descs) == SIWL_NUM_STATS);

int siwl_stats_init(struct siwl_device *sdev)
{
	INIT_LIST_HEAD(&sdev->counter_sets);
	mutex_init(&sdev->counter_lock);
	sdev->stats = alloc_percpu(struct siwl_stats);
	sdev->dev_set.pcpu = sdev->stats;
	return sdev->stats ? 0 : -ENOMEM;
}

void siwl_stats_fini(struct siwl_device *sdev)
{
	/* The core deallocates every counter before the device. */
	WARN_ON(!list_empty(&sdev->counter_sets));
	mutex_destroy(&sdev->counter_lock);
	free_percpu(sdev->stats);
	sdev->stats = NULL;
}

static u64 siwl_stat_sum(struct siwl_stats __percpu *pcpu, int idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(pcpu, cpu)->v[idx]);
	return sum;
}

u64 siwl_stat_read(struct siwl_device *sdev, enum siwl_stat idx)
{
	return siwl_stat_sum(sdev->stats, idx);
}

struct rdma_hw_stats *siwl_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port)
{
	/* Sums over CPUs are cheap: let every read see the current values. */
	return rdma_alloc_hw_stats_struct(siwl_stat_descs, SIWL_NUM_STATS, 0);
}

int siwl_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index)
{
	struct siwl_device *sdev = to_siwl_dev(ibdev);
	int i;

	for (i = 0; i < SIWL_NUM_STATS; i++)
		stats->value[i] = siwl_stat_read(sdev, i);
	return SIWL_NUM_STATS;
}

/*
 * rdma counters ("rdma statistic qp bind", and auto mode where the core
 * offers it: it binds automatically only on a RESET to INIT transition
 * that names the port, which rdma_cm does not do for iWARP QPs). A bound
 * QP counts in its counter's set instead of the device's, as the core
 * expects: "rdma statistic show link" adds the counters' values to the
 * device's.
 *
 * Lifetime: a set lives from counter_alloc_stats until an RCU grace period
 * after counter_dealloc; the core unbinds every QP first, and a QP reads
 * its set pointer only under rcu_read_lock().
 */
struct rdma_hw_stats *siwl_counter_alloc_stats(struct rdma_counter *counter)
{
	struct siwl_device *sdev = to_siwl_dev(counter->device);
	struct rdma_hw_stats *stats;
	struct siwl_stat_set *set;

	stats = rdma_alloc_hw_stats_struct(siwl_stat_descs, SIWL_NUM_STATS, 0);
	if (!stats)
		return NULL;
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (set)
		set->pcpu = alloc_percpu(struct siwl_stats);
	if (!set || !set->pcpu) {
		kfree(set);
		rdma_free_hw_stats_struct(stats);
		return NULL;
	}
	set->counter = counter;
	mutex_lock(&sdev->counter_lock);
	list_add(&set->node, &sdev->counter_sets);
	mutex_unlock(&sdev->counter_lock);
	return stats;
}

/* Under sdev->counter_lock. */
static struct siwl_stat_set *siwl_counter_set(struct siwl_device *sdev,
					      struct rdma_counter *counter)
{
	struct siwl_stat_set *set;

	list_for_each_entry(set, &sdev->counter_sets, node)
		if (set->counter == counter)
			return set;
	return NULL;
}

int siwl_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct siwl_device *sdev = to_siwl_dev(counter->device);
	struct siwl_stat_set *set;

	mutex_lock(&sdev->counter_lock);
	set = siwl_counter_set(sdev, counter);
	if (set) {
		rcu_assign_pointer(to_siwl_qp(ibqp)->stat_set, set);
		ibqp->counter = counter;
	}
	mutex_unlock(&sdev->counter_lock);
	return set ? 0 : -EINVAL;
}

int siwl_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct siwl_qp *qp = to_siwl_qp(ibqp);

	rcu_assign_pointer(qp->stat_set, &qp->sdev->dev_set);
	ibqp->counter = NULL;
	return 0;
}

int siwl_counter_update_stats(struct rdma_counter *counter)
{
	struct siwl_device *sdev = to_siwl_dev(counter->device);
	struct siwl_stat_set *set;
	int i;

	mutex_lock(&sdev->counter_lock);
	set = siwl_counter_set(sdev, counter);
	for (i = 0; set && i < SIWL_NUM_STATS; i++)
		counter->stats->value[i] = siwl_stat_sum(set->pcpu, i);
	mutex_unlock(&sdev->counter_lock);
	return set ? 0 : -EINVAL;
}

static void siwl_stat_set_free(struct rcu_head *rcu)
{
	struct siwl_stat_set *set = container_of(rcu, struct siwl_stat_set,
						 rcu);

	free_percpu(set->pcpu);
	kfree(set);
}

int siwl_counter_dealloc(struct rdma_counter *counter)
{
	struct siwl_device *sdev = to_siwl_dev(counter->device);
	struct siwl_stat_set *set;

	mutex_lock(&sdev->counter_lock);
	set = siwl_counter_set(sdev, counter);
	if (set)
		list_del(&set->node);
	mutex_unlock(&sdev->counter_lock);
	/* A QP may still be in the middle of an add through its old pointer. */
	if (set)
		call_rcu(&set->rcu, siwl_stat_set_free);
	return 0;
}
