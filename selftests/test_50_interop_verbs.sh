#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the Linux in-tree siw, data path: verbs_test's
# Send (plain and solicited), RDMA Write and RDMA Read cases between
# siw_lite and siw in two network namespaces, siw_lite as client (active
# side) and as server, default MPA (rev 2, no CRC).  verbs_test checks
# every byte and every completion on both sides; the connect and accept
# private data carry its seed and the MR it offers.  Each cell is
# captured and checked on the wire (tools/testing/wirecheck).  Send with
# Invalidate: test_50_interop_term.sh.  Needs the peer module built on
# the host: scripts/siw-peer.sh.
#
# Two bugs of siw (6.1) are known (Documentation/interop.rst, "siw
# deviations"); a cell that hits one is skipped, not passed, and only when
# siw is shown to have done it (on the wire where it can be seen there):
#  - a zero-length RDMA Read Request is answered with a Read Response
#    carrying data (RFC 5040 section 5.2).  Reads are therefore run twice:
#    without zero-length Reads, where everything must pass, and with them.
#  - libsiw (siw's provider) refuses a receive work request without
#    SGEs, which the verbs allow for a zero-length message; verbs_test
#    posts one when a zero-length message gets no slack.  Sends run again
#    without zero-length messages, where everything must pass.
#  - siw raises no completion event for a Send with Solicited Event on a
#    CQ armed for solicited completions (siw_rqe_complete() tests the
#    SIGNALLED flag, never SOLICITED).  This only shows where siw
#    receives: with siw_lite as client, whose Send with SE must then be on
#    the wire.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

# per orientation: send (case, exits, wire); solicited,write (2 cases,
# exits, wire); send,read without zero-length operations (2 cases, exits,
# wire); read with them (case, exits, wire)
plan 28
dp_interop_start
kmsg "test_50_interop_verbs start"
dp_mpa_defaults || bail "cannot set siw_lite's MPA parameters"
export SIWL_DP_TIMEOUT=10

stale_read() {
	dp_wire_has peer "Read Response carries (at least )?[0-9]+ bytes, the Read Request asked for 0$"
}

no_se_event() {
	dp_wire_has ours "\\[.*send_se [1-9]"
}

no_sge_recv() {
	grep -Eq "^# send: (client|server): posting [0-9]+ receives: .*, 0 SGEs\\)" \
		"$DP_SRV_OUT" "$DP_CLI_OUT"
}

# cell NAME LABEL TESTS KNOWN WHY EVIDENCE [CLIENT_OPTION...]: a
# dp_vt_cell and its wire check, with the known peer gap KNOWN (empty:
# none) that only counts where EVIDENCE finds it
cell() {
	local name=$1 label=$2 tests=$3

	DP_VT_KNOWN=$4 DP_VT_KNOWN_WHY=$5 DP_VT_EVIDENCE=$6
	shift 6
	dp_vt_cell "$name" "$label" "$tests" "$@"
	# a known gap that struck before any connection leaves nothing to check
	if [ -n "$DP_VT_EVIDENCE" ] && $DP_VT_EVIDENCE && dp_wire_report &&
	   grep -q "^summary: 0 MPA connections" "$DP_WIRE_REPORT"; then
		skip "wire conformance: verbs_test $tests $label" \
			"no connection: known peer gap ($DP_VT_KNOWN_WHY)"
	else
		dp_wirecheck "verbs_test $tests $label" "$DP_PEER_DIR"
	fi
	DP_VT_KNOWN= DP_VT_KNOWN_WHY= DP_VT_EVIDENCE=
}

for role in client server; do
	dp_orient "$role" 2>"$SIWL_TMP/orient.err" ||
		bail "devices: $(cat "$SIWL_TMP/orient.err")"
	label="siw_lite $role vs siw"

	# when libsiw refuses the receive, its side never connects and ours
	# waits out its timeout: give it the time to exit on its own
	SIWL_DP_TIMEOUT=$DP_GAP_TIMEOUT DP_GRACE=35 \
		cell "verbs-send-siwl-$role" "($label)" send \
		"send: (server: (the client never connected for it|a client connects within [0-9]+s)|client: connected|server: connected)" \
		"libsiw: a receive work request without SGEs is refused (EINVAL)" \
		no_sge_recv

	if [ "$role" = client ]; then
		SIWL_DP_TIMEOUT=$DP_GAP_TIMEOUT \
			cell "verbs-sol-siwl-$role" "($label)" solicited,write \
			"solicited: server: a Send with IBV_SEND_SOLICITED raises the completion event" \
			"siw: no completion event for a solicited Send on a CQ armed for solicited completions" \
			no_se_event
	else
		cell "verbs-sol-siwl-$role" "($label)" solicited,write "" "" ""
	fi

	cell "verbs-nz-siwl-$role" "($label, no zero-length operations)" \
		send,read "" "" "" --no-empty

	# siw does not flush its own work after the Terminate this provokes:
	# its verbs_test waits out its timeouts before it exits
	SIWL_DP_TIMEOUT=$DP_GAP_TIMEOUT DP_GRACE=35 \
		cell "verbs-read0-siwl-$role" "($label, with zero-length Reads)" read \
		"read: (client|server): ([0-9]+ RDMA Reads|the (server|client) reports (its reads|it is) done)" \
		"siw: Read Response with data for a zero-length RDMA Read Request, RFC 5040 section 5.2" \
		stale_read
done
