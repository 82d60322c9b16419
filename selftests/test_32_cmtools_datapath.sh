#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's rdma_cm example programs over siw_lite, IPv4 and IPv6, each
# pair in two network namespaces with a timeout and both exit codes
# checked: rping (validated ping data, server with the client's -S),
# rdma_server/rdma_client (inline Sends) and ucmatose (two connections).
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 8
dp_start
kmsg "test_32_cmtools_datapath start"

for fam in 4 6; do
	if [ $fam = 4 ]; then
		a=$DP_A4 b=$DP_B4 name=IPv4
	else
		a=$DP_A6 b=$DP_B6 name=IPv6
	fi

	# Server and client need the same -S: the server's RDMA Read of the
	# client's buffer is sized by its own.
	dp_next_port
	dp_run 240 "port:$DP_PORT" \
		rping -s -v -V -a "$a" -p "$DP_PORT" -C 1000 -S 1024 --- \
		rping -c -v -V -I "$b" -a "$a" -p "$DP_PORT" -C 1000 -S 1024
	dp_both_ok "rping -v -V -C 1000 -S 1024 over $name"
	n=$(grep -c 'ping data' "$DP_CLI_OUT")
	if [ "$n" -ne 1000 ]; then
		fail "rping client printed 1000 pings over $name" "got $n"
	else
		pass "rping client printed 1000 pings over $name"
	fi

	dp_next_port
	dp_run 60 "port:$DP_PORT" \
		rdma_server -s "$a" -p "$DP_PORT" --- \
		rdma_client -s "$a" -p "$DP_PORT"
	dp_both_ok "rdma_server/rdma_client over $name"

	dp_next_port
	dp_run 60 "port:$DP_PORT" \
		ucmatose -b "$a" -p "$DP_PORT" -c 2 -C 20 -S 1024 --- \
		ucmatose -s "$a" -b "$b" -p "$DP_PORT" -c 2 -C 20 -S 1024
	dp_both_ok "ucmatose, 2 connections x 20 messages, over $name"
done
