#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What "rdma resource show qp|cq|mr -dd" shows of siw_lite's own state
# (drivers/siw_lite/restrack.c, siw_lite(7)) for a live connection:
# ib_read_bw -R between two namespaces runs (a million 64 KiB Reads, far
# more than it gets to do) while both devices are looked at, then both
# ends are stopped.
#
#   - each side's RC QP names the TCP connection it runs on, local and
#     remote address and port, and the two agree with each other and with
#     the server's port;
#   - the QP is in RTS with MPA revision 2, IRD/ORD and its queue sizes;
#   - the client's CQs are shared rings, its MRs can send without a copy,
#     and their lengths are what perftest registered.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 10
dp_start
kmsg "test_46_restrack start"

SIZE=65536

# attr TEXT NAME: the value of driver attribute NAME (rdma prints drv_NAME)
attr() {
	grep -oE "(^| )drv_$2 [^ ]+" <<<"$1" | head -n 1 | awk '{ print $2 }'
}

# rc_qp DEV: the line of DEV's connected RC QP of the test (perftest -R
# also connects for its handshake, with a QP of one WR each way)
rc_qp() {
	rdma -dd resource show qp link "$1/1" 2>/dev/null |
		tr '\n' ' ' | sed 's/link /\nlink /g' |
		grep -E 'type RC .*drv_tcp .*drv_sq_size [1-9][0-9]' |
		tail -n 1 | grep .
}

dp_next_port
dp_start_bg 120 "port:$DP_PORT" \
	ib_read_bw -R -n 1000000 -s "$SIZE" -d "$DP_DA" -p "$DP_PORT" --- \
	ib_read_bw -R -n 1000000 -s "$SIZE" -d "$DP_DB" -p "$DP_PORT" "$DP_A4"

if wait_for 30 rc_qp "$DP_DB" && wait_for 10 rc_qp "$DP_DA"; then
	qa=$(rc_qp "$DP_DA")
	qb=$(rc_qp "$DP_DB")
	cqb=$(rdma -dd resource show cq dev "$DP_DB" 2>&1 | tr '\n' ' ')
	mrb=$(rdma -dd resource show mr dev "$DP_DB" 2>&1 | tr '\n' ' ')
	diag "client CQs: $cqb"
	diag "client MRs: $mrb"
else
	qa="" qb="" cqb="" mrb=""
	diag "no connected RC QP seen: $(rdma -dd resource show qp 2>&1)"
fi
diag "server QP: $qa"
diag "client QP: $qb"

tb=$(attr "$qb" tcp)
ta=$(attr "$qa" tcp)
expect_match "client QP: tcp is ${DP_B4}:port->${DP_A4}:$DP_PORT" "$tb" \
	"^${DP_B4//./\\.}:[0-9]+->${DP_A4//./\\.}:$DP_PORT\$"
expect_eq "server QP: tcp is the client's, turned around" "$ta" \
	"${tb#*->}->${tb%->*}"
expect_eq "both QPs in iWARP state rts" \
	"$(attr "$qa" iw_state) $(attr "$qb" iw_state)" "rts rts"
expect_eq "both connections are MPA revision 2" \
	"$(attr "$qa" mpa_rev) $(attr "$qb" mpa_rev)" "2 2"
# The client reads: it needs ORD, the server IRD.
expect_match "the reading client has an ORD, the server an IRD" \
	"$(attr "$qb" ord) $(attr "$qa" ird)" '^[1-9][0-9]* [1-9][0-9]*$'
expect_match "queue sizes and occupancy are shown" \
	"$(attr "$qb" sq_size) $(attr "$qb" sq_used) $(attr "$qb" orq_used)" \
	'^[1-9][0-9]* [0-9]+ [0-9]+$'
expect_match "the client's CQs are shared rings with their size and use" \
	"$cqb" 'drv_cq_size [1-9][0-9]* drv_cq_used [0-9]+ drv_armed [a-z]+ drv_ring 1'
expect_match "the client's MR of $SIZE bytes (or more) can send without a copy" \
	"$mrb" "mrlen (6553[6-9]|65[5-9][0-9]{2}|6[6-9][0-9]{3}|[7-9][0-9]{4}|[0-9]{6,}) .*drv_access 0x[0-9a-f]+ drv_zcopy 1"

# Still running: the numbers above are a live connection's.
if kill -0 "$DP_CPID" 2>/dev/null && kill -0 "$DP_SPID" 2>/dev/null; then
	pass "perftest was still running while it was looked at"
else
	fail "perftest was still running while it was looked at" \
		"client: $(tail -n 5 "$DP_CLI_OUT")" "server: $(tail -n 5 "$DP_SRV_OUT")"
fi
kill "$DP_CPID" "$DP_SPID" 2>/dev/null
wait "$DP_CPID" "$DP_SPID" 2>/dev/null
# The QPs go once both processes are gone.
wait_for 10 bash -c "! rdma resource show qp 2>/dev/null | grep -qE 'link ($DP_DA|$DP_DB)/.* type RC'"

# Once the connection is gone, so is its QP.
expect_eq "no RC QP left once perftest was stopped" \
	"$(rdma resource show qp 2>/dev/null | grep -E "link ($DP_DA|$DP_DB)/.* type RC")" ""
