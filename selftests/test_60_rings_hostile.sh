#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A user that writes garbage into its own shared rings (indices, entries,
# the arm word, reserved words) and rings the doorbell: every field the
# kernel reads must end in an error completion, QP in ERROR or an async
# event for that connection only; the peer carries on, everything stays
# destroyable, and dmesg stays clean (vm-run.sh checks).  See
# tools/testing/ringtest/rt_hostile.c.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"
. "$SIW_LITE_TOP/tools/testing/ringtest/rt-lib.sh"

if ! grep -q SIW_LITE_CAP_RINGS "$SIW_LITE_TOP/include/uapi/rdma/siw_lite-abi.h"; then
	plan 1
	skip "shared rings" "the ABI has no SIW_LITE_CAP_RINGS"
	exit 0
fi

ncases=$(rt_cases hostile | wc -l)
plan $((ncases + 1))
dp_start
kmsg "test_60_rings_hostile start"

dp_next_port
SIWL_RT_TIMEOUT=${SIWL_RT_TIMEOUT:-8} rt_run_cases hostile 280
