#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data path end to end over IPv4: tools/verbs_test (every test case)
# between two siw_lite devices in two network namespaces joined by veth;
# then Send, Write and Read again with TCP copying every transmit buffer
# (tx_sendpage=0, the path taken when TCP still holds every buffer that
# it takes by reference).
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/verbs_test/dp-lib.sh"

# one point per verbs_test case, one for the exit codes; 3 + 1 copying
plan 15
dp_start
kmsg "test_30_verbs_datapath start"

dp_next_port
dp_verbs_test_cases IPv4 "$DP_PORT" "$DP_A4" "$DP_B4"

dp_param tx_sendpage 0 || bail "cannot set tx_sendpage"
dp_vt_cell copy-tx "(tx_sendpage=0)" send,write,read
dp_param tx_sendpage 1
