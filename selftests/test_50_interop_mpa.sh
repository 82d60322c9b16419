#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the Linux in-tree siw: MPA revision 1 and 2, CRC
# off and on, siw_lite as client and as server.  rping -V carries the
# data (Sends, RDMA Read and Write, validated); the captured MPA Request
# and Reply must show the revision and CRC flags each side was set up
# for, and the FPDUs must carry CRCs exactly when either side asked
# (RFC 5044 section 7.1: the C flag of Request or Reply).
#
# siw has no module parameters: revision 1 as initiator is the "rev1"
# build of scripts/siw-peer.sh.  siw_lite: mpa_rev, mpa_crc (cm.c).
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

# cells: ROLE REV CRC — 8 cells, 3 points each
plan 24
dp_interop_start
kmsg "test_50_interop_mpa start"
DP_GRACE=5

cell() {
	local role=$1 rev=$2 crc=$3 variant=default name label c=0 q=()

	name=mpa-siwl-$role-rev$rev-crc$crc
	label="siw_lite $role vs siw, MPA rev $rev, CRC $crc"
	dp_mpa_defaults
	[ "$crc" = on ] && c=1
	if [ "$role" = client ]; then
		dp_param mpa_rev "$rev"
		# the initiator asks for CRCs
		dp_param mpa_crc "$c"
		# A rev 1 Request carries no IRD/ORD: siw then offers its ULP
		# 0/0, which rping's default accept takes, leaving siw no Read
		# credit (see Documentation/interop.rst).  -q accepts with 1/1.
		[ "$rev" = 1 ] && q=(-q)
	else
		[ "$rev" = 1 ] && variant=rev1
		# the responder asks for CRCs in its Reply
		dp_param mpa_crc "$c"
	fi
	if ! dp_orient "$role" "$variant" 2>"$SIWL_TMP/orient.err"; then
		skip "rping ($label)" "$(cat "$SIWL_TMP/orient.err")"
		skip "MPA exchange ($label)" "peer not available"
		skip "wire conformance: $label" "peer not available"
		return
	fi
	dp_next_port
	dp_cap_run "$name" 60 "port:$DP_PORT" \
		rping -s "${q[@]}" -v -V -a "$DP_A4" -p "$DP_PORT" -C 20 -S 1024 --- \
		rping -c -v -V -I "$DP_B4" -a "$DP_A4" -p "$DP_PORT" -C 20 -S 1024
	dp_both_ok "rping -V -C 20 -S 1024 ($label)"
	# The Reply repeats the Request's revision; CRC flags: the
	# initiator's in the Request, the responder's own in the Reply
	# (siw echoes the Request's flag, siw_lite adds its own wish).
	if [ "$role" = client ]; then
		dp_expect_mpa "MPA exchange ($label)" "$rev $c 0" "$rev $c 0" "$crc"
	else
		dp_expect_mpa "MPA exchange ($label)" "$rev 0 0" "$rev $c 0" "$crc"
	fi
	dp_wirecheck "$label" "$DP_PEER_DIR"
}

for role in client server; do
	for rev in 2 1; do
		for crc in off on; do
			cell "$role" "$rev" "$crc"
		done
	done
done
dp_mpa_defaults
