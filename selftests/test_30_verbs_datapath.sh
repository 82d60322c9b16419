#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data path end to end over IPv4: tools/verbs_test (every test case)
# between two siw_lite devices in two network namespaces joined by veth;
# then Send, Write and Read again with one transmit buffer that TCP takes
# by reference (tx_pages=1: whenever TCP still holds it, TX builds in the
# buffer TCP copies from), and with none (tx_pages=0: TCP copies all).
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/verbs_test/dp-lib.sh"

# one point per verbs_test case, one for the exit codes; 3 + 1 twice
plan 19
dp_start
kmsg "test_30_verbs_datapath start"

dp_next_port
dp_verbs_test_cases IPv4 "$DP_PORT" "$DP_A4" "$DP_B4"

for n in 1 0; do
	dp_param tx_pages $n || bail "cannot set tx_pages"
	dp_vt_cell "tx-pages-$n" "(tx_pages=$n)" send,write,read
done
dp_param tx_pages 8
