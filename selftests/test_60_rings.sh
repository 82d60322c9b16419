#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The shared-ring data path (include/uapi/rdma/siw_lite-abi.h) between two
# siw_lite devices in two namespaces, with tools/testing/ringtest:
# batched posts, full rings, CQ overflow, arming races, fork() and munmap() of a process
# holding rings; plus the command data path a provider gets with
# SIW_LITE_NO_RINGS=1 on the same kernel.  dmesg must stay clean
# (vm-run.sh checks).
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"
. "$SIW_LITE_TOP/tools/testing/ringtest/rt-lib.sh"

# the rings are there: the kernel offers them, the provider maps them
if ! grep -q SIW_LITE_CAP_RINGS "$SIW_LITE_TOP/include/uapi/rdma/siw_lite-abi.h"; then
	plan 1
	skip "shared rings" "the ABI has no SIW_LITE_CAP_RINGS"
	exit 0
fi

ncases=$(rt_cases basic | wc -l)
# one point per case, ringtest's exit codes, verbs_test without rings
plan $((ncases + 2))
dp_start
kmsg "test_60_rings start"

dp_next_port
rt_run_cases basic 280

# A provider that does not want rings still gets command-based objects.
vt=$(dp_verbs_test) || bail "verbs_test does not build"
dp_next_port
export SIW_LITE_NO_RINGS=1
dp_run 200 "re:listening on" \
	"$vt" --server --bind "$DP_A4" --port "$DP_PORT" --test send,write,read \
	--timeout 20 --- \
	"$vt" --client "$DP_A4" --bind "$DP_B4" --port "$DP_PORT" \
	--test send,write,read --timeout 20 --size-max 65536 --budget 1048576
unset SIW_LITE_NO_RINGS
dp_both_ok "verbs_test send/write/read with SIW_LITE_NO_RINGS=1 (command path)"
