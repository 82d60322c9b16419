#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the Linux in-tree siw: Terminate in both
# directions and Send with Invalidate.
#
# too_small / no_recv (verbs_test): a Send that does not fit, or finds
# no receive, is a DDP untagged buffer error at the receiver, which must
# send a Terminate (RFC 5040 section 4.8, RFC 5041 section 7) that the
# sender reports.  The capture must show the receiver's Terminate, and
# the sender's kernel log must report it: siw_lite logs "Terminate
# received: ..." ("malformed Terminate received" for siw's, whose
# Terminate Control field is laid out wrongly), siw "siw: got TERMINATE.
# layer L, type T, code C" - with layer and type swapped, because siw
# reads the field with the same wrong layout (Documentation/interop.rst,
# "siw deviations").
#
# What happens on siw's own side after the connection ends is siw's
# business, but verbs_test checks it like any provider's: siw 6.1 fails
# ibv_query_qp (ENOTCONN, 107), siw 6.12 reports its QP still in RTS (3),
# and neither completes a Send posted then (not flushed).  Those two
# points are skipped as known gaps, and only
# when the Terminate was on the wire.
#
# send_inv names a plain MR (ibv_reg_mr), which a peer may not
# invalidate.  siw_lite sending to siw: siw invalidates it anyway and
# delivers the Send, so the connection does not break (known peer gap).
# siw sending to siw_lite: libsiw puts wr.rdma.rkey instead of
# invalidate_rkey into the Send with Invalidate (STag 0 here), so
# siw_lite must answer with a Terminate "STag cannot be invalidated"
# (RDMAP, remote operation error, 0x09) that siw reports.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 18
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

# The receiver of the bad Sends (ns A, the server) sent Terminates: DDP
# untagged buffer errors, in siw's swapped layout when siw sent them.
server_terminated() {
	local dir=peer

	[ "$role" = server ] && dir=ours
	dp_wire_has "$dir" "Terminate sent: layer (1 etype 2|2 etype 1)"
}

for role in client server; do
	dp_orient "$role" 2>"$SIWL_TMP/orient.err" ||
		bail "devices: $(cat "$SIWL_TMP/orient.err")"
	label="siw_lite $role vs siw"
	if [ "$role" = client ]; then
		siw=server
	else
		siw=client
	fi
	DP_VT_KNOWN="(too_small|no_recv): $siw: (the QP is in the error state \\((107|3)\\)|a Send posted now is flushed or refused \\(no completion within [0-9]+s\\))"
	DP_VT_KNOWN_WHY="siw: after the connection ends, ibv_query_qp fails with ENOTCONN (6.1) or says RTS (6.12), and a WR posted then never completes"
	DP_VT_EVIDENCE=server_terminated
	SIWL_DP_TIMEOUT=$DP_GAP_TIMEOUT \
		dp_vt_cell "term-siwl-$role" "($label)" too_small,no_recv
	DP_VT_KNOWN= DP_VT_EVIDENCE=
	if [ "$role" = client ]; then
		expect_klog "siw sent Terminates that siw_lite reported ($label)" \
			"interop cell term-siwl-$role start" \
			'siwl[AB]: qp [0-9]+: (malformed )?Terminate received' 2
	else
		# DDP (1), untagged buffer error (2), codes 5 (too long) and 2
		# (no buffer), printed by siw as layer 2, type 1
		expect_klog "siw_lite sent Terminates that siw reported ($label)" \
			"interop cell term-siwl-$role start" \
			'siw: got TERMINATE\. layer 2, type 1, code [25]$' 2
	fi
	dp_wirecheck "Terminates ($label)" "$DP_PEER_DIR"
done

dp_orient client 2>"$SIWL_TMP/orient.err" ||
	bail "devices: $(cat "$SIWL_TMP/orient.err")"
label="siw_lite client vs siw"
DP_VT_KNOWN='send_inv: (server|client): a Send with Invalidate naming'
DP_VT_KNOWN_WHY="siw invalidates a plain MR at a peer's request"
SIWL_DP_TIMEOUT=$DP_GAP_TIMEOUT \
	dp_vt_cell "sendinv-siwl-client" "($label)" send_inv
dp_wirecheck "Send with Invalidate ($label)" "$DP_PEER_DIR"

dp_orient server 2>"$SIWL_TMP/orient.err" ||
	bail "devices: $(cat "$SIWL_TMP/orient.err")"
label="siw_lite server vs siw"
DP_VT_KNOWN='send_inv: '
DP_VT_KNOWN_WHY="libsiw sends Send with Invalidate with the wrong STag"
SIWL_DP_TIMEOUT=$DP_GAP_TIMEOUT \
	dp_vt_cell "sendinv-siwl-server" "($label)" send_inv
DP_VT_KNOWN=""
# (tshark's -c counts packets read, not matched: take the first line)
stag=$(dp_tshark -r "$DP_CAP_FILE" -Y 'iwarp_rdma.opcode == 4' -T fields \
	-e iwarp_rdma.inval_stag 2>/dev/null | head -n 1)
diag "Send with Invalidate from siw carries STag '$stag'; verbs_test asked for the rkey in its log"
expect_klog "siw_lite answers the bad Send with Invalidate with a Terminate ($label)" \
	"interop cell sendinv-siwl-server start" \
	'siwl[AB]: qp [0-9]+: sending Terminate: layer 0 etype 2 ecode 9' 1
# RDMAP (0), remote operation error (2), printed by siw as layer 2, type 0
expect_klog "siw reports siw_lite's Terminate ($label)" \
	"interop cell sendinv-siwl-server start" \
	'siw: got TERMINATE\. layer 2, type 0, code 9' 1
dp_wirecheck "Send with Invalidate ($label)" "$DP_PEER_DIR"
