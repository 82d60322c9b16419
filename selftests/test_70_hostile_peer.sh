#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile remote peer: tools/testing/hostile/hostile.py speaks
# MPA/DDP/RDMAP by hand over a plain TCP socket from namespace B and sends malformed input
# (bad MPA frames, bad versions, opcodes, STags, bounds, MSNs, MOs, CRCs,
# truncated FPDUs, floods, Terminates, a peer that stops reading) to
# tools/testing/hostile/victim, an rdma_cm server on siw_lite in namespace A.
# Per case:
#
#   1. hostile.py sees the answer the RFCs require (the Terminate's layer,
#      type and code, an MPA Reject, or a close), as listed by
#      hostile.py --list;
#   2. the victim's QP ends in ERROR with every receive completed (flushed,
#      none successful), a QP_FATAL event after a Terminate, and not one
#      byte of its buffers changed outside the case's allowed range (for
#      MPA failures: no connection reached the ULP at all);
#   3. a fresh, well-formed connection to the same victim afterwards works
#      (hostile.py --case good: a Write, a Read and a Send, all checked).
#
# tools/testing/hostile/verdict.py makes these three points per case
# from both reports.  At the end no QP is left, the module unloads, and dmesg has no
# WARNING or BUG (vm-run.sh checks the whole log as well).
#
# SIWL_HOSTILE_CASES="NAME ..." runs only those cases (the rest skipped).
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

HOSTILE_DIR=$SIW_LITE_TOP/tools/testing/hostile
HOSTILE=$HOSTILE_DIR/hostile.py

# Cases that hit a known siw_lite bug: NAME -> reason.  Their points are
# skipped, so that the rest of the suite stays runnable.
declare -A KNOWN=()

# -S: no site initialisation, which alone takes seconds under TCG
PY=(python3 -S -B)
ncases=$("${PY[@]}" "$HOSTILE" --list | grep -vc '^good	')
plan $((ncases * 3 + 4))
dp_start
kmsg "test_70_hostile_peer start"
VICTIM=$(dp_hostile_victim) || bail "cannot build tools/testing/hostile/victim"

VOUT=$SIWL_TMP/victim.out
HALL=$SIWL_TMP/hostile.out

# One victim serves every connection in turn (--count 0) until hostile.py
# says "quit"; one hostile.py runs every case, each followed by a good
# connection, and verdict.py judges all of it in one go.  Starting
# processes per case costs more than the cases themselves under TCG.
dp_next_port
ip netns exec "$DP_A" timeout -k 5 $((280 * SIWL_SLOW)) "$VICTIM" \
	--bind "$DP_A4" --port "$DP_PORT" --count 0 \
	--timeout $((15 * SIWL_SLOW)) --idle $((30 * SIWL_SLOW)) \
	>"$VOUT" 2>&1 </dev/null &
vpid=$!
wait_for 15 grep -q '^listening' "$VOUT" ||
	diag "victim not listening after 15 s: $(cat "$VOUT")"
ip netns exec "$DP_B" timeout -k 5 $((240 * SIWL_SLOW)) "${PY[@]}" "$HOSTILE" \
	--addr "$DP_A4" --port "$DP_PORT" --all \
	--only "${SIWL_HOSTILE_CASES:-}" >"$HALL" 2>&1 </dev/null
hrc=$?
wait "$vpid"
vrc=$?
if [ -n "${SIW_LITE_LOGDIR:-}" ] && mkdir -p "$SIW_LITE_LOGDIR/hostile"; then
	cp "$VOUT" "$SIW_LITE_LOGDIR/hostile/victim.log"
	cp "$HALL" "$SIW_LITE_LOGDIR/hostile/hostile.log"
fi
[ "$hrc" = 0 ] || diag "hostile.py exited $hrc: $(tail -n 5 "$HALL")"
[ "$vrc" = 0 ] || diag "victim exited $vrc: $(tail -n 5 "$VOUT")"
grep -q '^=== end$' "$HALL" || diag "hostile.py did not run every case"

known=()
for k in "${!KNOWN[@]}"; do
	known+=(--known "$k=${KNOWN[$k]}")
done
npoints=0
while IFS=$'\t' read -r verdict desc detail; do
	npoints=$((npoints + 1))
	case $verdict in
	PASS)	pass "$desc" ;;
	SKIP)	skip "$desc" "$detail" ;;
	*)	fail "$desc" "$(printf '%b' "$detail")" ;;
	esac
done < <("${PY[@]}" "$HOSTILE_DIR/verdict.py" "$VOUT" "$HALL" \
		--only "${SIWL_HOSTILE_CASES:-}" "${known[@]}" 2>&1)
[ "$npoints" = $((ncases * 3)) ] ||
	diag "verdict.py gave $npoints test points, $((ncases * 3)) planned"

# Nothing may be left behind.
if run_cmd ip netns exec "$DP_A" rdma res show qp; then
	expect_eq "no QP left on the devices" \
		"$(grep -E "$DP_DA|$DP_DB" <<<"$OUT")" ""
else
	fail "no QP left on the devices" "rdma res show qp: $ERR"
fi

klog=$(dmesg | sed -n '/siw_lite-selftest: test_70_hostile_peer start/,$p')
expect_no_match "no WARNING or BUG in dmesg" "$klog" \
	'WARNING:|BUG:|Oops|general protection|UBSAN|KASAN|refcount_t'
# The stalled reader's reset must come from the Terminate timeout (qp.c),
# not from anything else that happens to reset a connection.
if [[ " ${SIWL_HOSTILE_CASES:-stalled-reader} " == *" stalled-reader "* ]]; then
	expect_match "stalled-reader: the unsendable Terminate gave way to a reset" \
		"$klog" 'Terminate not sent within [0-9]+ s: reset'
else
	skip "stalled-reader: the unsendable Terminate gave way to a reset" \
		"case not selected"
fi

dp_cleanup
for d in $(siwl_devices); do
	rdma link delete "$d" 2>/dev/null
done
if wait_for 20 siwl_unload; then
	pass "siw_lite unloads"
else
	fail "siw_lite unloads" "$(lsmod | grep siw_lite)"
fi
