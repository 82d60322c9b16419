#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the Linux in-tree siw: connection management.
# verbs_test reject (rdma_reject with private data, delivered intact with
# RDMA_CM_EVENT_REJECTED) and disconnect (rdma_disconnect under traffic,
# from the client: siw_lite's side in one orientation, siw's in the
# other; every WR completes once, in order, then flushes).  Private data
# on connect and accept is exercised by every verbs_test cell (seed and
# MR offer).  perftest: test_50_interop_perf.sh.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 8
dp_interop_start
kmsg "test_50_interop_cm start"
dp_mpa_defaults || bail "cannot set siw_lite's MPA parameters"
export SIWL_DP_TIMEOUT=10

for role in client server; do
	dp_orient "$role" 2>"$SIWL_TMP/orient.err" ||
		bail "devices: $(cat "$SIWL_TMP/orient.err")"
	label="siw_lite $role vs siw"
	# siw's own completion semantics after a disconnect (interop.rst):
	# only siw's side (the server when siw_lite is the client) may
	# show them.
	peer=server
	[ "$role" = server ] && peer=client
	DP_VT_KNOWN="disconnect: $peer: (every WR completes once|outstanding WRs complete with IBV_WC_WR_FLUSH_ERR|a Send posted after the disconnect is flushed or refused)"
	DP_VT_KNOWN_WHY="siw: WR in flight completes with IBV_WC_LOC_QP_OP_ERR, queued user Sends are not flushed"
	dp_vt_cell "cm-siwl-$role" "($label)" reject,disconnect
	dp_wirecheck "reject, disconnect ($label)" "$DP_PEER_DIR"
done
