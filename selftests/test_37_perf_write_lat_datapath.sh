#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest ib_write_lat (latency) over siw_lite between two network namespaces:
# rdma_cm (-R, required on iWARP), every size (-a), few iterations; both
# exit codes checked.  One script per benchmark keeps each within the
# per-script time limit of run.sh under TCG.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 1
dp_start
kmsg "test_37_perf_write_lat_datapath start"

dp_perftest ib_write_lat
