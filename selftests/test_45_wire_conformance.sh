#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Wire conformance: siw_lite <-> siw_lite traffic between two namespaces,
# captured with tcpdump on namespace A's veth, checked against RFC 5040,
# 5041, 5044 and 6581 by tools/testing/wirecheck (written from the RFCs,
# not from our encoder) and cross-checked with tshark's iwarp dissectors.
#
# One capture per MPA configuration (rev 2 + CRC, rev 2 without CRC,
# rev 1 + CRC, rev 2 + CRC + RTR), each holding verbs_test
# send/write/read/send_inv and an rping run.  Test points per capture:
# verbs_test, rping, wirecheck; then one for tshark over all captures.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

WIRECHECK=$SIW_LITE_TOP/tools/testing/wirecheck/wirecheck.py
PARAMS=/sys/module/siw_lite/parameters
VT_CASES=send,write,read,send_inv
# one rdma_cm connection per verbs_test case, one for rping
N_CONNS=5

# name mpa_rev mpa_crc mpa_rtr: expected "rev" and "crc" in wirecheck's
# per-connection line follow from the first three
CONFIGS=("rev2-crc 2 1 0" "rev2-nocrc 2 0 0" "rev1-crc 1 1 0"
	 "rev2-crc-rtr 2 1 1")

plan $((3 * ${#CONFIGS[@]} + 1))
dp_start
kmsg "test_45_wire_conformance start"

for p in "$WIRECHECK" /usr/bin/python3; do
	[ -e "$p" ] || bail "$p missing"
done
command -v tcpdump >/dev/null || bail "tcpdump not installed"
vt=$(dp_verbs_test) || bail "cannot build verbs_test"
TSHARK=$(command -v tshark)
# tshark wants a writable home for its profile
export HOME=$SIWL_TMP
CAPS=()
WC_CONNS=0
WC_FPDUS=0
WC_CRC_FPDUS=0

# The first tshark start in a fresh guest reads its libraries over 9p for
# minutes; let that happen while the traffic runs.
WARMUP_PID=
if [ -n "$TSHARK" ]; then
	timeout 250 "$TSHARK" -v >/dev/null 2>&1 &
	WARMUP_PID=$!
fi
stop_warmup() {
	[ -z "$WARMUP_PID" ] || kill "$WARMUP_PID" 2>/dev/null
}
on_exit stop_warmup

TCPDUMP_PID=
TCPDUMP_FILE=
stop_tcpdump() {
	local size last=-1 n=0

	[ -n "$TCPDUMP_PID" ] || return 0
	# The last segments must reach the file before tcpdump is stopped:
	# wait until it has not grown for half a second (at most 10 s).
	while [ "$n" -lt 20 ] && [ -n "$TCPDUMP_FILE" ]; do
		sleep 0.5
		size=$(stat -c %s "$TCPDUMP_FILE" 2>/dev/null || echo 0)
		[ "$size" = "$last" ] && break
		last=$size
		n=$((n + 1))
	done
	kill -INT "$TCPDUMP_PID" 2>/dev/null
	wait "$TCPDUMP_PID" 2>/dev/null
	TCPDUMP_PID=
}
on_exit stop_tcpdump

restore_params() {
	echo 2 >"$PARAMS/mpa_rev"
	echo 0 >"$PARAMS/mpa_crc"
	[ ! -e "$PARAMS/mpa_rtr" ] || echo N >"$PARAMS/mpa_rtr"
}
on_exit restore_params

# set_params REV CRC RTR
set_params() {
	echo "$1" >"$PARAMS/mpa_rev" && echo "$2" >"$PARAMS/mpa_crc" || return 1
	if [ -e "$PARAMS/mpa_rtr" ]; then
		echo "$([ "$3" = 1 ] && echo Y || echo N)" >"$PARAMS/mpa_rtr"
	else
		[ "$3" = 0 ]
	fi
}

# keep_capture FILE: copy into the run's log directory (outside the tree)
keep_capture() {
	local d=${SIW_LITE_LOGDIR:-}/wirecheck

	[ -n "${SIW_LITE_LOGDIR:-}" ] && mkdir -p "$d" 2>/dev/null || return 0
	cp "$1" "$d/" 2>/dev/null
	cp "$SIWL_TMP/wirecheck.out" "$d/$(basename "$1" .pcap).wirecheck" \
		2>/dev/null
	cp "$SIWL_TMP/tcpdump.log" "$d/$(basename "$1" .pcap).tcpdump.log" \
		2>/dev/null
	return 0
}

# check_tshark: tshark must find, over all captures, the MPA connections
# and FPDUs wirecheck found, CRC-checked where CRC was negotiated, with no
# malformed iwarp frame, bad CRC or non-zero pad byte.  One pass over the
# merged captures: tshark is slow to start under TCG.  rpcordma is off
# because its heuristic claims arbitrary Send payloads; out-of-order
# reassembly is on because the capture point sees retransmissions fill
# holes (wirecheck reassembles by sequence number).
check_tshark() {
	local t0=$SECONDS txt=$SIWL_TMP/ts.txt merged=$SIWL_TMP/all.pcap
	local req fpdus crcs bad badpad malformed desc

	desc="tshark agrees with wirecheck on all captures"
	if [ -z "$TSHARK" ] || ! command -v mergecap >/dev/null; then
		skip "$desc" "tshark/mergecap not installed"
		return
	fi
	if [ ${#CAPS[@]} -eq 0 ]; then
		fail "$desc" "no capture was made"
		return
	fi
	wait "$WARMUP_PID" 2>/dev/null
	if ! mergecap -w "$merged" "${CAPS[@]}" 2>"$SIWL_TMP/ts.err" ||
	   ! timeout 200 "$TSHARK" -n -r "$merged" \
		--disable-protocol rpcordma -O iwarp_mpa \
		-o tcp.reassemble_out_of_order:TRUE \
		-o tcp.try_heuristic_first:TRUE \
		>"$txt" 2>>"$SIWL_TMP/ts.err"; then
		fail "$desc" "mergecap/tshark failed:" \
			"$(tail -n 5 "$SIWL_TMP/ts.err")"
		return
	fi
	req=$(grep -c '^    Request frame header' "$txt")
	fpdus=$(grep -c '^        ULPDU length: ' "$txt")
	crcs=$(grep -c '^        CRC check: ' "$txt")
	bad=$(grep -c 'Bad CRC32' "$txt")
	badpad=$(grep -E '^        Padding: ' "$txt" | grep -cvE ': (00)+$')
	malformed=$(grep -ciE 'malformed|expected length|PD length field' "$txt")
	diag "tshark ($((SECONDS - t0)) s): $req MPA Requests, $fpdus FPDUs" \
	     "($crcs CRC-checked, $bad bad), $badpad bad pads, $malformed" \
	     "malformed; wirecheck: $WC_CONNS connections, $WC_FPDUS FPDUs" \
	     "($WC_CRC_FPDUS with CRC)"
	if [ "$req" != "$WC_CONNS" ] || [ "$fpdus" != "$WC_FPDUS" ] ||
	   [ "$crcs" != "$WC_CRC_FPDUS" ] || [ "$malformed" != 0 ] ||
	   [ "$bad" != 0 ] || [ "$badpad" != 0 ]; then
		fail "$desc" "counts differ or tshark found bad frames:" \
			"$(grep -iE -B12 'malformed|expected length|Bad CRC' \
			   "$txt" | head -n 30)"
	else
		pass "$desc ($fpdus FPDUs)"
	fi
}

for cfg in "${CONFIGS[@]}"; do
	read -r name rev crc rtr <<<"$cfg"
	if ! set_params "$rev" "$crc" "$rtr"; then
		skip "verbs_test $VT_CASES over $name" "cannot set MPA parameters"
		skip "rping over $name" "cannot set MPA parameters"
		skip "wirecheck on $name" "cannot set MPA parameters"
		continue
	fi
	kmsg "test_45 $name"
	cap=$SIWL_TMP/$name.pcap
	# Immediate mode: in block mode the last block can be lost at stop.
	ip netns exec "$DP_A" tcpdump -i "$DP_VA" -n --immediate-mode -U \
		-s 0 -B 8192 -w "$cap" tcp >"$SIWL_TMP/tcpdump.log" 2>&1 &
	TCPDUMP_PID=$!
	TCPDUMP_FILE=$cap
	wait_for 20 grep -q "listening on" "$SIWL_TMP/tcpdump.log" ||
		diag "tcpdump not seen listening: $(cat "$SIWL_TMP/tcpdump.log")"

	dp_next_port
	dp_run 200 "re:listening on" \
		"$vt" --server --bind "$DP_A4" --port "$DP_PORT" \
		--timeout 20 --test "$VT_CASES" --- \
		"$vt" --client "$DP_A4" --bind "$DP_B4" --port "$DP_PORT" \
		--timeout 20 --test "$VT_CASES" --budget 131072 \
		--size-max 32768
	dp_both_ok "verbs_test $VT_CASES over $name"
	vt_rcs=$DP_SRV_RC$DP_CLI_RC

	dp_next_port
	dp_run 120 "port:$DP_PORT" \
		rping -s -v -V -a "$DP_A4" -p "$DP_PORT" -C 20 -S 2048 --- \
		rping -c -v -V -I "$DP_B4" -a "$DP_A4" -p "$DP_PORT" -C 20 \
		-S 2048
	dp_both_ok "rping -C 20 -S 2048 over $name"

	tcpdump_alive=1
	kill -0 "$TCPDUMP_PID" 2>/dev/null || tcpdump_alive=0
	stop_tcpdump
	dropped=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' \
		  "$SIWL_TMP/tcpdump.log")
	t0=$SECONDS
	run_cmd timeout 200 /usr/bin/python3 "$WIRECHECK" \
		--min-connections "$N_CONNS" "$cap"
	diag "$name: wirecheck took $((SECONDS - t0)) s"
	echo "$OUT" >"$SIWL_TMP/wirecheck.out"
	keep_capture "$cap"
	want_crc=$([ "$crc" = 1 ] && echo on || echo off)
	want_rtr=$([ "$rtr" = 1 ] && echo " rtr write" || echo "")
	# Connections the client gave up on before a Reply ("crc ?") are
	# verbs_test's failure, reported above, not the wire's.
	nconn=$(grep '^conn ' <<<"$OUT" | grep -vc ' crc ?')
	nright=$(grep -c "^conn .* MPA rev $rev crc $want_crc$want_rtr\( ird\|\$\)" \
		 <<<"$OUT")
	vt_ok=$([ "$vt_rcs" = 00 ] && echo 1 || echo 0)
	if [ "$tcpdump_alive" = 0 ]; then
		fail "wirecheck on $name" "tcpdump ended before the traffic did:" \
			"$(cat "$SIWL_TMP/tcpdump.log")" \
			"$(grep -E 'VIOLATION|^conn|^summary' <<<"$OUT")"
	elif [ "$RC" != 0 ]; then
		fail "wirecheck on $name" "wirecheck exited $RC" "$ERR" \
			"$(grep -E 'VIOLATION|^conn|^summary' <<<"$OUT" |
			   head -n 40)"
	elif [ "${dropped:-x}" != 0 ]; then
		fail "wirecheck on $name" "tcpdump dropped '${dropped:-?}' packets:" \
			"$(cat "$SIWL_TMP/tcpdump.log")"
	elif [ "$nright" != "$nconn" ]; then
		fail "wirecheck on $name" \
			"expected every connection at rev $rev, crc $want_crc$want_rtr:" \
			"$(grep '^conn ' <<<"$OUT")"
	elif [ "$nconn" = 0 ]; then
		fail "wirecheck on $name" "no MPA connection got a Reply" \
			"$(grep '^conn ' <<<"$OUT")"
	elif [ "$vt_ok" = 1 ] && ! grep -q "Terminate sent" <<<"$OUT"; then
		fail "wirecheck on $name" \
			"no Terminate in the capture (send_inv names a plain MR: refused)" \
			"$(grep -E '^conn|^  [IR]->' <<<"$OUT")"
	else
		pass "wirecheck on $name: $(tail -n 1 <<<"$OUT")"
		grep '^  note' <<<"$OUT" | sort | uniq -c | head -n 10 |
			while IFS= read -r l; do diag "$l"; done
	fi
	CAPS+=("$cap")
	n=$(sed -n 's/^summary: \([0-9]*\) MPA conn.*, \([0-9]*\) FPDUs,.*/\1 \2/p' \
	    <<<"$OUT")
	read -r c f <<<"${n:-0 0}"
	WC_CONNS=$((WC_CONNS + c))
	WC_FPDUS=$((WC_FPDUS + f))
	[ "$crc" = 0 ] || WC_CRC_FPDUS=$((WC_CRC_FPDUS + f))
done
check_tshark
