#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data path end to end over IPv6: tools/testing/verbs_test (every test case)
# between two siw_lite devices in two network namespaces joined by veth.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

# one point per verbs_test case, one for the exit codes
plan 11
dp_start
kmsg "test_31_verbs6_datapath start"

dp_next_port
dp_verbs_test_cases IPv6 "$DP_PORT" "$DP_A6" "$DP_B6"
