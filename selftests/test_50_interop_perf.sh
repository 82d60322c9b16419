#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability with the Linux in-tree siw: unmodified perftest with
# rdma_cm (-R), ib_write_bw and ib_read_bw at 64 KiB, siw_lite as client
# and as server.  ib_read_bw asks for 128 outstanding reads, the most both
# sides offer (IRD/ORD 128): the MPA v2 exchange must carry them (RFC 6581
# section 5), and asking for more (-o 200) must either fail cleanly or be
# cut down to 128 on the wire.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 12
dp_interop_start
kmsg "test_50_interop_perf start"
dp_mpa_defaults || bail "cannot set siw_lite's MPA parameters"
export SIWL_DP_TIMEOUT=10

# A perftest server (4.5-0.17) listens on the wildcard address (its
# --source_ip is shadowed by the raw-Ethernet option of the same name),
# so rdma_cm asks siw for a listener too, which siw opens in the CALLER's
# namespace bound to an ifindex of its own namespace: siw_lite's listener
# there is bound to its netdev, so the two coexist unless the numbers
# match, which dp_setup rules out (Documentation/interop.rst, "Wildcard
# listen in the caller's namespace").  Every cell runs: a listen failure
# is a failure.

# ird_ord: "IRD ORD" of each MPA v2 Request and Reply in the capture
# ("req_ird req_ord rep_ird rep_ord ..."); perftest's data connection is
# the last one (it exchanges parameters on a first one).
ird_ord() {
	local t pd

	dp_mpa_summary | while read -r t _ _ _ pd; do
		case $t in req|rep) ;; *) continue ;; esac
		[ "${#pd}" -ge 8 ] || continue
		printf '%d %d ' $((0x${pd:0:4} & 0x3fff)) $((0x${pd:4:4} & 0x3fff))
	done
}

for role in client server; do
	dp_orient "$role" 2>"$SIWL_TMP/orient.err" ||
		bail "devices: $(cat "$SIWL_TMP/orient.err")"
	label="siw_lite $role vs siw"
	dp_next_port
	dp_cap_run "perf-write-siwl-$role" 120 "port:$DP_PORT" \
		ib_write_bw -R -F -s 65536 -n 100 -d "$DP_DA" -p "$DP_PORT" --- \
		ib_write_bw -R -F -s 65536 -n 100 -d "$DP_DB" -p "$DP_PORT" "$DP_A4"
	dp_both_ok "ib_write_bw -R -s 65536 -n 100 ($label)"
	dp_wirecheck "ib_write_bw ($label)" "$DP_PEER_DIR"

	dp_next_port
	dp_cap_run "perf-read-siwl-$role" 120 "port:$DP_PORT" \
		ib_read_bw -R -F -s 65536 -n 100 -o 128 -d "$DP_DA" -p "$DP_PORT" --- \
		ib_read_bw -R -F -s 65536 -n 100 -o 128 -d "$DP_DB" -p "$DP_PORT" "$DP_A4"
	dp_both_ok "ib_read_bw -R -s 65536 -n 100 -o 128 ($label)"
	io=$(ird_ord | tr ' ' '\n' | grep . | tail -n 4 | xargs)
	# the Reply states what the responder will use; within 1..128
	read -r qi qo pi po <<<"$io"
	if [ -n "${po:-}" ] && [ "$pi" -ge 1 ] && [ "$pi" -le 128 ] &&
	   [ "$po" -ge 1 ] && [ "$po" -le 128 ]; then
		pass "IRD/ORD in the MPA exchange within 1..128 (Request $qi/$qo, Reply $pi/$po) ($label)"
	else
		fail "IRD/ORD in the MPA exchange within 1..128 ($label)" \
			"got '$io' from $DP_CAP_FILE"
	fi
	dp_wirecheck "ib_read_bw ($label)" "$DP_PEER_DIR"
done

# Beyond the limit: the side asking for ORD 200 is the client (ns B).
for role in client server; do
	dp_orient "$role" 2>"$SIWL_TMP/orient.err" ||
		bail "devices: $(cat "$SIWL_TMP/orient.err")"
	label="siw_lite $role vs siw"
	dp_next_port
	DP_GRACE=5 dp_cap_run "perf-read-o200-siwl-$role" 60 "port:$DP_PORT" \
		ib_read_bw -R -F -s 4096 -n 20 -o 200 -d "$DP_DA" -p "$DP_PORT" --- \
		ib_read_bw -R -F -s 4096 -n 20 -o 200 -d "$DP_DB" -p "$DP_PORT" "$DP_A4"
	io=$(ird_ord | tr ' ' '\n' | grep . | tail -n 4 | xargs)
	read -r qi qo pi po <<<"$io"
	if grep -q "rdma_listen failed" "$DP_SRV_OUT"; then
		fail "ORD 200 > 128: refused or cut down ($label)" \
			"the server could not listen: nothing was tried" \
			"$(tail -n 5 "$DP_SRV_OUT")"
	elif [ "$DP_CLI_RC" = 124 ] || [ "$DP_SRV_RC" = 124 ]; then
		fail "ORD 200 > 128: refused or cut down ($label)" "a side hung" \
			"$(tail -n 5 "$DP_CLI_OUT")"
	elif [ "$DP_CLI_RC" = 0 ] && [ "$DP_SRV_RC" = 0 ] &&
	     [ "${pi:-999}" -le 128 ] && [ "${po:-999}" -le 128 ]; then
		pass "ORD 200 > 128: cut down on the wire to $pi/$po, run passed ($label)"
	elif [ "$DP_CLI_RC" != 0 ] && [ -z "${po:-}" ]; then
		pass "ORD 200 > 128: refused before the MPA exchange, client exit $DP_CLI_RC ($label)"
		diag "$(grep -m 2 -iE 'error|fail|unable' "$DP_CLI_OUT")"
	else
		fail "ORD 200 > 128: refused or cut down ($label)" \
			"exits $DP_SRV_RC/$DP_CLI_RC, MPA IRD/ORD '$io'" \
			"--- client" "$(tail -n 8 "$DP_CLI_OUT")" \
			"--- server" "$(tail -n 8 "$DP_SRV_OUT")"
	fi
done
