#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tracepoints (drivers/siw_lite/trace.h, siw_lite(7)): off until asked
# for, their formats readable by tools, and each one firing with the right
# fields while rping -V runs between two namespaces (Sends, RDMA Reads and
# Writes of 32 KiB, large enough to leave without a copy):
#
#   - cm_state: both ends reach "rdma", the client through "await_reply";
#   - mpa_tx/mpa_rx: a revision 2 Request and Reply, each sent and received;
#   - fpdu_tx/fpdu_rx: every RDMAP opcode rping uses, both ways, and as many
#     FPDUs received as sent (both devices are in this guest);
#   - wqe_post/wqe_done: every WR posted completes, successfully;
#   - zc_release: TCP let go of zero-copy buffers.
#
# Terminates (term_tx, term_rx) are traced in test_70_hostile_peer, which
# makes them happen.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 14
dp_start
kmsg "test_47_trace start"

T=/sys/kernel/tracing
[ -e $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events/siw_lite ] || bail "no $T/events/siw_lite: tracepoints missing"

EVENTS="cm_state mpa_tx mpa_rx fpdu_tx fpdu_rx term_tx term_rx wqe_post
wqe_done zc_release"
missing=""
for e in $EVENTS; do
	[ -f $T/events/siw_lite/$e/format ] || missing+=" $e"
done
expect_eq "every documented tracepoint exists" "${missing:-none missing}" \
	"none missing"
expect_eq "all are off by default" \
	"$(cat $T/events/siw_lite/*/enable | sort -u | tr '\n' ' ')" "0 "
# TRACE_DEFINE_ENUM turns the enum names into numbers in the formats that
# trace-cmd and perf read; a name left in means they cannot decode it.
expect_eq "the formats name no enum constant (tools can decode them)" \
	"$(grep -ho 'RDMAP_[A-Z_]*\|IW_TERM_[A-Z_]*' $T/events/siw_lite/*/format | sort -u)" ""

echo 0 >$T/tracing_on
: >$T/trace
# Without recording comm and tgid: those hook the scheduler's tracepoint,
# which rewrites __schedule() with text_poke_bp(), and under TCG a 6.1
# guest's CPU was seen looping in that breakpoint (see dp-lib.sh).
echo 0 >$T/options/record-cmd
echo 0 >$T/options/record-tgid 2>/dev/null
echo 8192 >$T/buffer_size_kb
echo 1 >$T/events/siw_lite/enable
echo 1 >$T/tracing_on

dp_next_port
dp_run 120 "port:$DP_PORT" \
	rping -s -V -a "$DP_A4" -p "$DP_PORT" -C 5 -S 32768 --- \
	rping -c -V -a "$DP_A4" -p "$DP_PORT" -C 5 -S 32768
dp_both_ok "rping -V -C 5 -S 32768 with every siw_lite event on"

echo 0 >$T/tracing_on
echo 0 >$T/events/siw_lite/enable
tr_out=$SIWL_TMP/trace.txt
cat $T/trace >"$tr_out"
lost=$(awk '/^overrun:/ { o += $2 } END { print o + 0 }' $T/per_cpu/cpu*/stats)
[ -n "${SIW_LITE_LOGDIR:-}" ] && cp "$tr_out" "$SIW_LITE_LOGDIR/trace-test_47.txt"
expect_eq "the trace lost no event" "$lost" "0"

# n PATTERN: lines of the trace matching PATTERN
n() {
	grep -cE -- "$1" "$tr_out"
}

expect_eq "cm_state: both ends reach rdma, the client by await_reply" \
	"$(n 'cm_state: .* -> rdma') $(n 'cm_state: .*connecting -> await_reply')" \
	"2 1"
expect_eq "mpa_tx/mpa_rx: a rev 2 Request and Reply sent and received" \
	"$(n 'mpa_tx: .* request rev=2') $(n 'mpa_rx: .* request rev=2') $(n 'mpa_tx: .* reply rev=2 .*reject=0') $(n 'mpa_rx: .* reply rev=2 .*reject=0')" \
	"1 1 1 1"
missing=""
for dir in tx rx; do
	for op in "send untagged" "read_req untagged" "read_resp tagged" \
		  "write tagged"; do
		[ "$(n "fpdu_$dir: qp=[0-9]+ $op ")" -gt 0 ] ||
			missing+=" fpdu_$dir:$op"
	done
done
expect_eq "fpdu_tx/fpdu_rx: Send, Read Request, Read Response, Write each way" \
	"${missing:-none missing}" "none missing"
expect_eq "as many FPDUs received as sent" "$(n 'fpdu_rx: ')" "$(n 'fpdu_tx: ')"
expect_match "a 32 KiB Read Response shows its length" \
	"$(grep -E 'fpdu_tx: .* read_resp tagged' "$tr_out" |
	   grep -oE 'len=[0-9]+' | sort -u | tr '\n' ' ')" 'len=[1-9]'
# rping's first Send carries its buffer's STag and address; MSNs start at 1.
expect_eq "the first untagged Send has MSN 1 and MO 0" \
	"$(grep -E 'fpdu_tx: .* send untagged' "$tr_out" | head -n 1 |
	   grep -oE 'msn=[0-9]+ mo=[0-9]+')" "msn=1 mo=0"
p=$(n 'wqe_post: ')
d=$(n 'wqe_done: ')
if [ "$p" -gt 0 ] && [ "$d" -gt 0 ]; then
	pass "wqe_post and wqe_done fire ($p posted, $d completed)"
else
	fail "wqe_post and wqe_done fire" "$p posted, $d completed"
fi
expect_eq "no completion before the end was in error" \
	"$(grep -E 'wqe_done: .* sq .*status=' "$tr_out" | grep -vc 'status=0 ')" "0"
z=$(n 'zc_release: ')
if [ "$z" -gt 0 ]; then
	pass "zc_release: TCP released $z zero-copy buffers"
else
	fail "zc_release fires for 32 KiB sends" "no zc_release in the trace"
fi

: >$T/trace
echo 1408 >$T/buffer_size_kb
