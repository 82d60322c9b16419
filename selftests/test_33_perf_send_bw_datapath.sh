#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest ib_send_bw (bandwidth) over siw_lite between two network namespaces:
# rdma_cm (-R, required on iWARP), every size (-a), few iterations; both
# exit codes checked.  Then a 64 KiB Send stream that must not stall on a
# closed receive window (below).  One script per benchmark keeps each
# within the per-script time limit of run.sh under TCG.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 3
dp_start
kmsg "test_33_perf_send_bw_datapath start"

dp_perftest ib_send_bw

# A stream of 64 KiB Sends, whose server posts a credit Send every few
# receives (perftest's flow control on iWARP). Each such post holds the
# server's socket while the client's data arrives, and 6.1 shrinks the
# advertised window by all that went through the backlog until the post
# lets go; siw_lite then reopens it (siwl_rx_window_update()). Without
# that the client stalled for a zero window probe, one RTO, several times
# a second. The trace counts the probes: there must be none, and the
# doorbells prove the trace saw the run.
STALL_FUNCS="tcp_send_probe0 siwl_qp_tx_direct"
what="ib_send_bw 64 KiB stream: no zero window stall"
traced=0
fn_trace_start "$STALL_FUNCS" || traced=$?
dp_next_port
dp_run 120 "port:$DP_PORT" \
	ib_send_bw -R -F -s 65536 -D 3 -f 1 -d "$DP_DA" -p "$DP_PORT" --- \
	ib_send_bw -R -F -s 65536 -D 3 -f 1 -d "$DP_DB" -p "$DP_PORT" "$DP_A4"
dp_both_ok "ib_send_bw -R -s 65536 -D 3 between two namespaces"
if [ $traced = 1 ]; then
	skip "$what" "this kernel has no kprobe events"
elif [ $traced = 2 ]; then
	fail "$what" "cannot trace one of: $STALL_FUNCS"
else
	counts=$(fn_trace_stop "$STALL_FUNCS")
	read -r probes posts <<<"$(head -n 1 <<<"$counts")"
	lost=$(tail -n 1 <<<"$counts")
	diag "zero window probes $probes, transmitting posts $posts," \
		"$lost trace events lost"
	if [ "$lost" != 0 ]; then
		skip "$what" "the trace lost events"
	elif [ "$posts" -gt 0 ] && [ "$probes" = 0 ]; then
		pass "$what"
	else
		fail "$what" "zero window probes: $probes, posts: $posts"
	fi
fi
