#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the Linux in-tree siw: Terminate in both
# directions and Send with Invalidate.
#
# too_small / no_recv (verbs_test): a Send that does not fit, or finds
# no receive, is a DDP untagged buffer error at the receiver, which must
# send a Terminate (RFC 5040 section 4.8, RFC 5041 section 7) that the
# sender reports: siw logs "siw: got TERMINATE. ...", siw_lite "Terminate
# received: ..." ("malformed Terminate received" for siw's, whose header
# control bits are misplaced, see interop.rst).
#
# send_inv: siw_lite sending to siw: siw invalidates (the later Write to
# the STag is terminated), but libsiw never reports IBV_WC_WITH_INV.
# siw sending to siw_lite: libsiw puts wr.rdma.rkey instead of
# invalidate_rkey into the Send with Invalidate (STag 0 here), so
# siw_lite must answer with a Terminate "STag cannot be invalidated"
# (RDMAP, remote operation error, 0x09) that siw reports.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/verbs_test/dp-lib.sh"

plan 18
# Not run yet: the first complete run showed that its expectations do not
# hold against an unmodified siw (siw reports a received Terminate only
# in debug builds, leaves its QP in an unqueryable state and does not
# flush later posts, and the no_recv case then fails by cascade). The
# cells need per-side expectations first; see "Terminate" in
# Documentation/interop.rst.
skip_rest "expectations against siw not validated yet (Documentation/interop.rst)"
exit 0
dp_interop_start
kmsg "test_50_interop_term start"
dp_mpa_defaults || bail "cannot set siw_lite's MPA parameters"
export SIWL_DP_TIMEOUT=10

# expect_klog DESC MARK ERE MIN: at least MIN kernel log lines matching ERE
# since the cell's start mark.
expect_klog() {
	local n

	n=$(dp_kmsg_since "$2" | grep -cE -- "$3")
	if [ "$n" -ge "$4" ]; then
		pass "$1 ($n)"
	else
		fail "$1" "expected at least $4 kernel log lines /$3/, got $n" \
			"$(dp_kmsg_since "$2" | grep -iE 'terminat|siw' | tail -n 10)"
	fi
}

for role in client server; do
	dp_orient "$role" 2>"$SIWL_TMP/orient.err" ||
		bail "devices: $(cat "$SIWL_TMP/orient.err")"
	label="siw_lite $role vs siw"
	dp_vt_cell "term-siwl-$role" "($label)" too_small,no_recv
	# the server (ns A) receives the bad Sends and sends the Terminates
	if [ "$role" = client ]; then
		expect_klog "siw sent Terminates that siw_lite reported ($label)" \
			"interop cell term-siwl-$role start" \
			'siw_lite: qp [0-9]+: (malformed )?Terminate received' 2
	else
		expect_klog "siw_lite sent Terminates that siw reported ($label)" \
			"interop cell term-siwl-$role start" \
			'siw: got TERMINATE\. layer 1, type 2' 2
	fi
	dp_wirecheck "Terminates ($label)" "$DP_PEER_DIR"
done

dp_orient client 2>"$SIWL_TMP/orient.err" ||
	bail "devices: $(cat "$SIWL_TMP/orient.err")"
label="siw_lite client vs siw"
DP_VT_KNOWN='send_inv: server: Send with Invalidate arrives with IBV_WC_WITH_INV'
DP_VT_KNOWN_WHY="libsiw does not report IBV_WC_WITH_INV"
dp_vt_cell "sendinv-siwl-client" "($label)" send_inv
dp_wirecheck "Send with Invalidate ($label)" "$DP_PEER_DIR"

dp_orient server 2>"$SIWL_TMP/orient.err" ||
	bail "devices: $(cat "$SIWL_TMP/orient.err")"
label="siw_lite server vs siw"
DP_VT_KNOWN='send_inv: '
DP_VT_KNOWN_WHY="libsiw sends Send with Invalidate with the wrong STag"
dp_vt_cell "sendinv-siwl-server" "($label)" send_inv
DP_VT_KNOWN=""
stag=$(tshark -r "$DP_CAP_FILE" -Y 'iwarp_rdma.opcode == 4' -T fields \
	-e iwarp_rdma.inval_stag -c 1 2>/dev/null)
diag "Send with Invalidate from siw carries STag '$stag'; verbs_test asked for the rkey in its log"
expect_klog "siw_lite answers the bad Send with Invalidate with a Terminate ($label)" \
	"interop cell sendinv-siwl-server start" \
	'siw_lite: qp [0-9]+: sending Terminate: layer 0 etype 2 ecode 9' 1
expect_klog "siw reports siw_lite's Terminate ($label)" \
	"interop cell sendinv-siwl-server start" \
	'siw: got TERMINATE\. layer 0, type 2, code 9' 1
dp_wirecheck "Send with Invalidate ($label)" "$DP_PEER_DIR"
