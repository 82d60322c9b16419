#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data path end to end over IPv4: tools/verbs_test (every test case)
# between two siw_lite devices in two network namespaces joined by veth;
# then Send, Write and Read again with one transmit buffer that TCP takes
# by reference (tx_pages=1: whenever TCP still holds it, TX builds in the
# buffer TCP copies from), and with none (tx_pages=0: TCP copies all);
# then with every doorbell transmitting in the poster's system call
# (tx_handoff=0), with the worker polling the send ring (sq_poll_us=200),
# and with every receive placed by the RX worker (rx_defer=1).
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/verbs_test/dp-lib.sh"

# one point per verbs_test case, one for the exit codes; 3 + 1 five times
plan 31
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

dp_param rx_defer 1 || bail "cannot set rx_defer"
dp_vt_cell "rx-defer" "(rx_defer=1)" send,write,read
dp_param rx_defer 0
