// SPDX-License-Identifier: GPL-2.0
/* siw_lite: the one place the tracepoints of trace.h are instantiated. */
#include <rdma/ib_verbs.h>

#define CREATE_TRACE_POINTS
#include "trace.h"

/* trace.h's wqe_done tells receives by this bit. */
static_assert(IB_WC_RECV == 0x80 && IB_WC_RECV_RDMA_WITH_IMM & 0x80);
