#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data path end to end over IPv4: tools/testing/verbs_test (every test case)
# between two siw_lite devices in two network namespaces joined by veth;
# then Send, Write and Read again with one transmit buffer that TCP takes
# by reference (tx_pages=1: whenever TCP still holds it, TX builds in the
# buffer TCP copies from), and with none (tx_pages=0: TCP copies all);
# then with every doorbell transmitting in the poster's system call
# (tx_handoff=0), with the worker polling the send ring (sq_poll_us=200),
# with every receive placed by the RX worker (rx_defer=1), with Read
# Responses placed by it (rx_defer_read=1), and with every payload sent
# zero-copy (tx_zcopy=2), without and with MPA CRCs.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

# one point per verbs_test case, one for the exit codes; 3 + 1 seven
# times, plus srq in the rx_defer cell; 1 + 1 twice, with a trace point
# each; one for the zero-copy trace
plan 47
dp_start
kmsg "test_30_verbs_datapath start"

dp_next_port
dp_verbs_test_cases IPv4 "$DP_PORT" "$DP_A4" "$DP_B4"

for n in 1 0; do
	dp_param tx_pages $n || bail "cannot set tx_pages"
	dp_vt_cell "tx-pages-$n" "(tx_pages=$n)" send,write,read
done
dp_param tx_pages 8

dp_param tx_handoff 0 || bail "cannot set tx_handoff"
dp_vt_cell "tx-handoff-0" "(tx_handoff=0)" send,write,read
dp_param tx_handoff 1

dp_param sq_poll_us 200 || bail "cannot set sq_poll_us"
dp_vt_cell "sq-poll" "(sq_poll_us=200)" send,write,read
dp_param sq_poll_us 0

# srq: the client disconnects right after its last Sends, whose FIN can
# reach the server before the RX worker placed them; they must not be
# flushed (the orderly close places what TCP received first).
dp_param rx_defer 1 || bail "cannot set rx_defer"
dp_vt_cell "rx-defer" "(rx_defer=1)" send,write,read,srq
# Below, only rx_defer_read moves placement off the softirq.
dp_param rx_defer 0

# Read Responses are placed by the RX worker while Reads are outstanding
# (rx_defer_read=1: every burst), and nothing else is: a Write-only cell,
# with no Read outstanding, must not run it.  On one CPU there is no
# other CPU to place on (siwl_qp_data_ready()): neither cell runs it.
RX_FUNCS="siwl_qp_rx_work"
one_cpu=0
[ "$(nproc)" = 1 ] && one_cpu=1
dp_param rx_defer_read 1 || bail "cannot set rx_defer_read"
for c in read write; do
	traced=0
	fn_trace_start "$RX_FUNCS" || traced=$?
	dp_vt_cell "rx-defer-read-$c" "(rx_defer_read=1)" $c
	what="rx_defer_read: RX worker placed $c data"
	[ $c = write ] && what="rx_defer_read: RX worker idle without Reads"
	[ $one_cpu = 1 ] && what="rx_defer_read: RX worker idle on one CPU ($c)"
	if [ $traced = 1 ]; then
		skip "$what" "this kernel has no kprobe events"
		continue
	elif [ $traced = 2 ]; then
		fail "$what" "cannot trace $RX_FUNCS"
		continue
	fi
	counts=$(fn_trace_stop "$RX_FUNCS")
	rx_runs=$(head -n 1 <<<"$counts")
	lost=$(tail -n 1 <<<"$counts")
	diag "$c cell: RX worker ran $rx_runs times, $lost trace events lost"
	if [ "$lost" != 0 ]; then
		skip "$what" "the trace lost events"
	elif [ $one_cpu = 0 ] && [ $c = read ] && [ "$rx_runs" -gt 0 ]; then
		pass "$what"
	elif { [ $one_cpu = 1 ] || [ $c = write ]; } && [ "$rx_runs" = 0 ]; then
		pass "$what"
	else
		fail "$what" "RX worker runs: $rx_runs"
	fi
done
dp_param rx_defer_read 16384
dp_param rx_defer 16384

# Every payload from the registered pages (the stack copies it on the
# way into the other namespace); then with MPA CRCs, summed over those
# pages, which the receiver checks. The first cell runs under a function
# trace that shows the pages were listed and that TCP, not only we, let
# go of the notifications: more callbacks than notifications begun.
ZC_FUNCS="siwl_mr_pages siwl_zc_begin siwl_zc_callback"
dp_param tx_zcopy 2 && dp_param tx_zcopy_min 0 || bail "cannot set tx_zcopy"
traced=0
fn_trace_start "$ZC_FUNCS" || traced=$?
dp_vt_cell "tx-zcopy" "(tx_zcopy=2)" send,write,read
if [ $traced = 1 ]; then
	skip "zero-copy: pages listed, notifications held by TCP" \
		"this kernel has no kprobe events"
elif [ $traced = 2 ]; then
	fail "zero-copy: pages listed, notifications held by TCP" \
		"cannot trace one of: $ZC_FUNCS"
else
	zc_counts=$(fn_trace_stop "$ZC_FUNCS")
	read -r zc_p zc_b zc_c <<<"$(head -n 1 <<<"$zc_counts")"
	zc_lost=$(tail -n 1 <<<"$zc_counts")
	diag "zero-copy trace: $zc_b notifications begun, $zc_c callbacks," \
		"$zc_p page lists, $zc_lost events lost"
	if [ "$zc_lost" != 0 ]; then
		skip "zero-copy: pages listed, notifications held by TCP" \
			"the trace lost events"
	elif [ "$zc_p" -gt 0 ] && [ "$zc_b" -gt 0 ] &&
	     [ "$zc_c" -gt "$zc_b" ]; then
		pass "zero-copy: pages listed, notifications held by TCP"
	else
		fail "zero-copy: pages listed, notifications held by TCP" \
			"want page lists > 0 and more callbacks than notifications"
	fi
fi
dp_param mpa_crc 1 || bail "cannot set mpa_crc"
dp_vt_cell "tx-zcopy-crc" "(tx_zcopy=2, mpa_crc=1)" send,write,read
dp_mpa_defaults
dp_param tx_zcopy 1 && dp_param tx_zcopy_min 16384
