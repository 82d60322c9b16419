#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the Linux in-tree siw: one side requires MPA CRCs
# or refuses them while the other does not.  RFC 5044 section 7.1: CRCs
# are used when the Request or the Reply has the C flag; a Responder
# that cannot accept the Request answers with the Reject flag.
#
#  cell                                   expected
#  siw_lite server mpa_crc=2, siw default  Reply with Reject (siw_lite
#                                          refuses a Request without C)
#  siw_lite client mpa_crc=2, siw default  connected with CRCs
#  siw crc-required client, siw_lite dflt  connected with CRCs
#  siw crc-required server, siw_lite dflt  connected WITHOUT CRCs: siw
#                                          does not ask for them in its
#                                          Reply (interop.rst)
#  siw crc-off server, siw_lite mpa_crc=1  Reply with Reject from siw
#  siw crc-off client, siw_lite mpa_crc=1  siw drops the connection
#                                          after a Reply with C
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 18
dp_interop_start
kmsg "test_50_interop_crc start"
DP_GRACE=3

# cell NAME ROLE VARIANT MPA_CRC OUTCOME REQ REP CRC
#   OUTCOME: ok (rping passes) or refused (the client reports REJECTED)
cell() {
	local name=$1 role=$2 variant=$3 pcrc=$4 outcome=$5 req=$6 rep=$7 crc=$8
	local label="siw_lite $role mpa_crc=$pcrc vs siw $variant"

	dp_mpa_defaults
	dp_param mpa_crc "$pcrc"
	if ! dp_orient "$role" "$variant" 2>"$SIWL_TMP/orient.err"; then
		skip "outcome ($label)" "$(cat "$SIWL_TMP/orient.err")"
		skip "MPA exchange ($label)" "peer not available"
		skip "wire conformance: $label" "peer not available"
		return
	fi
	dp_next_port
	dp_cap_run "crc-$name" 40 "port:$DP_PORT" \
		rping -s -v -V -a "$DP_A4" -p "$DP_PORT" -C 10 -S 512 --- \
		rping -c -v -V -I "$DP_B4" -a "$DP_A4" -p "$DP_PORT" -C 10 -S 512
	if [ "$outcome" = ok ]; then
		dp_both_ok "rping connects and passes ($label)"
	elif [ "$DP_CLI_RC" != 0 ] && grep -q REJECTED "$DP_CLI_OUT"; then
		pass "connection refused: the client gets REJECTED ($label)"
		diag "server exit $DP_SRV_RC (stopped when the client gave up)"
	else
		fail "connection refused: the client gets REJECTED ($label)" \
			"client exit $DP_CLI_RC, server exit $DP_SRV_RC" \
			"--- client" "$(tail -n 10 "$DP_CLI_OUT")" \
			"--- server" "$(tail -n 10 "$DP_SRV_OUT")"
	fi
	dp_expect_mpa "MPA exchange ($label)" "$req" "$rep" "$crc"
	dp_wirecheck "$label" "$DP_PEER_DIR"
}

cell lite-srv-require  server default      2 refused "2 0 0" "2 0 1" -
cell lite-cli-require  client default      2 ok      "2 1 0" "2 1 0" on
cell siw-cli-required  server crc-required 0 ok      "2 1 0" "2 1 0" on
cell siw-srv-required  client crc-required 0 ok      "2 0 0" "2 0 0" off
cell siw-srv-crcoff    client crc-off      1 refused "2 1 0" "2 0 1" -
cell siw-cli-crcoff    server crc-off      1 refused "2 0 0" "2 1 0" -
dp_mpa_defaults
