/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: stats.h only names these by pointer. */
#ifndef KSHIM_RDMA_RDMA_COUNTER_H
#define KSHIM_RDMA_RDMA_COUNTER_H

#include "ib_verbs.h"

struct rdma_counter;
struct rdma_hw_stats;

#endif /* KSHIM_RDMA_RDMA_COUNTER_H */
