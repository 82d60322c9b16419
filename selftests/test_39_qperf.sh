#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qperf (Debian package qperf), unmodified, over rdma_cm (-cm1) between two
# namespaces, in both directions: the RC tests that need nothing beyond
# what siw_lite offers (rc_bw, rc_bi_bw, rc_lat, rc_rdma_write_poll_lat
# and the Reads).  The Read tests run at 8 B, 4 KiB and 64 KiB,
# several times each: qperf connects with IRD = ORD = 1 and issues the
# next Read the moment the last one completes, so a responder that frees
# its Read Request queue entry late terminates the connection ("Remote
# operation failure"), the way siw_lite did before its responses left
# the queue once built (tx.c, siwl_tx_irq_built).
#
# rc_bi_bw streams Sends both ways and reposts each receive only when its
# completion has been polled, counting on InfiniBand's RNR retry for a
# Send that arrives first; siw_lite holds such a Send until a receive is
# posted (rx.c, siwl_rx_wait_rqe), where the in-tree siw terminates.  It
# runs twice: with the provider's rings (the receive is found by polling)
# and without (SIW_LITE_NO_RINGS=1: ibv_post_recv is a system call that
# wakes the waiting Send).
#
# Not here: rc_rdma_write_lat/bw, which use Write with immediate data,
# and the atomics.
#
# qperf 0.4.11's server child dies of a NULL dereference inside
# ibv_destroy_qp when it closes an rdma_cm connection, after the results
# are exchanged; it does the same over the in-tree siw, so it is qperf's.
# The kernel's "segfault at" line for it would read as a kernel-log
# problem, so the exception trace is off while the qperf server runs and
# restored after.  The next test's server child listens on the same
# rdma_cm port, which stays taken until the crashed child is gone: each
# run waits for that (qperf_settle), and no core is dumped meanwhile.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

RUNS=2
SIZES="8 4096 65536"
plan 21
# scripts/test.sh runs the unmodified programs on one kernel only (6.12):
# what they ask of the kernel, perftest and rping ask of both.
if [ -n "${SIW_LITE_SKIP_APPS:-}" ]; then
	skip_rest "$SIW_LITE_SKIP_APPS"
	exit 0
fi
dp_start
kmsg "test_39_qperf start"
command -v qperf >/dev/null || { skip_rest "qperf is not installed"; exit 0; }

QPERF_PID=
QPERF_NS=
QPERF_ENV=()
ulimit -c 0
TRACE=$(sysctl -n debug.exception-trace 2>/dev/null)
qperf_stop() {
	[ -z "$QPERF_PID" ] || kill "$QPERF_PID" 2>/dev/null
	wait 2>/dev/null
	QPERF_PID=
}
qperf_cleanup() {
	qperf_stop
	[ -z "$TRACE" ] || sysctl -qw debug.exception-trace="$TRACE"
}
on_exit qperf_cleanup
[ -z "$TRACE" ] || sysctl -qw debug.exception-trace=0

# qperf_serve NS: a qperf server in NS, until qperf_stop.
qperf_serve() {
	qperf_stop
	ip netns exec "$1" env "${QPERF_ENV[@]}" qperf \
		>"$SIWL_TMP/server-$1.log" 2>&1 &
	QPERF_PID=$!
	QPERF_NS=$1
	# qperf listens on TCP 19765 for its control connection.
	wait_for 10 sh -c "ip netns exec '$1' ss -Hltn 'sport = :19765' | grep -q LISTEN"
}

# No rdma_cm id of an earlier server child left listening in the server's
# namespace.
qperf_settled() {
	! ip netns exec "$QPERF_NS" rdma res show cm_id 2>/dev/null |
		grep -q LISTEN
}

qperf_settle() {
	wait_for 10 qperf_settled ||
		echo "an earlier qperf server child still listens"
}

# qperf_runs NS HOST TEST SIZE N: N runs of TEST from NS against HOST; the
# outputs of the failed ones are printed.
qperf_runs() {
	local i out bad=0

	for i in $(seq "$5"); do
		qperf_settle
		out=$(ip netns exec "$1" timeout $((60 * SIWL_SLOW)) \
			env "${QPERF_ENV[@]}" qperf -cm1 -t 1 -m "$4" "$2" "$3" 2>&1)
		if [ $? -ne 0 ] || ! grep -Eq '(latency|bw) += ' <<<"$out"; then
			echo "run $i: $out"
			bad=1
		fi
	done
	return $bad
}

# qperf_direction CLIENT_NS SERVER_NS SERVER_ADDR
qperf_direction() {
	local t size

	qperf_serve "$2" || { bail "qperf server in $2 did not listen"; }
	for t in rc_rdma_read_lat rc_rdma_read_bw; do
		for size in $SIZES; do
			check "qperf $t $size B, $RUNS runs, $1 -> $2" \
				qperf_runs "$1" "$3" "$t" "$size" "$RUNS"
		done
	done
	check "qperf rc_lat 64 B, $1 -> $2" qperf_runs "$1" "$3" rc_lat 64 1
	check "qperf rc_rdma_write_poll_lat 64 B, $1 -> $2" \
		qperf_runs "$1" "$3" rc_rdma_write_poll_lat 64 1
	check "qperf rc_bw 64 KiB, $1 -> $2" qperf_runs "$1" "$3" rc_bw 65536 1
	check "qperf rc_bi_bw 64 KiB, 2 runs, $1 -> $2" \
		qperf_runs "$1" "$3" rc_bi_bw 65536 2
	qperf_stop
	if grep -q 'failed' "$SIWL_TMP/server-$2.log"; then
		diag "qperf server in $2:"
		diag "$(cat "$SIWL_TMP/server-$2.log")"
	fi
}

qperf_direction "$DP_B" "$DP_A" "$DP_A4"
qperf_direction "$DP_A" "$DP_B" "$DP_B4"

QPERF_ENV=(SIW_LITE_NO_RINGS=1)
qperf_serve "$DP_A" || bail "qperf server in $DP_A did not listen"
check "qperf rc_bi_bw 64 KiB, 2 runs, without rings, $DP_B -> $DP_A" \
	qperf_runs "$DP_B" "$DP_A4" rc_bi_bw 65536 2
qperf_stop
