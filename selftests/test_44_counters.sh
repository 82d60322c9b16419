#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device counters (drivers/siw_lite/stats.c, siw_lite(7)): listed by
# "rdma statistic show link" and in sysfs, and moved by perftest traffic of
# known size and count between two namespaces (device A serves, B is the
# client):
#
#   - what one device sends, per RDMAP opcode group, the other receives:
#     FPDUs and payload bytes equal, exactly;
#   - the payload bytes the client asked for are what was sent: exactly
#     iterations x size for Writes, Sends and Read Responses, the only
#     extra FPDU being the zero-length RTR of RFC 6581;
#   - every payload byte left either without a copy or copied:
#     zero-copy + copied bytes = Send + Write + Read Response bytes;
#   - every MPA Request sent is received and answered by one Reply;
#   - a client with the shared send ring rings doorbells.
#
# Error counters move in test_70_hostile_peer, where a hostile peer sends
# what makes them move.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

# Every counter siw_lite exports, in its order; siw_lite(7) explains each.
NAMES="tx_send_fpdus tx_write_fpdus tx_read_req_fpdus tx_read_resp_fpdus
tx_terminates tx_send_bytes tx_write_bytes tx_read_resp_bytes rx_send_fpdus
rx_write_fpdus rx_read_req_fpdus rx_read_resp_fpdus rx_terminates
rx_send_bytes rx_write_bytes rx_read_resp_bytes tx_zcopy_bytes tx_copy_bytes
mpa_req_sent mpa_req_rcvd mpa_rep_sent mpa_rep_rcvd mpa_rej_sent
mpa_rej_rcvd mpa_errors rx_crc_errors llp_errors ddp_errors rdmap_errors
local_errors conn_resets doorbells sq_polls cq_overflows rx_rqe_waits
rx_no_rqe"
# Opcode groups whose counters must agree between sender and receiver.
OPGROUPS="send_fpdus write_fpdus read_req_fpdus read_resp_fpdus terminates
send_bytes write_bytes read_resp_bytes"

ITERS=300
SIZE=1024

plan 40
dp_start
kmsg "test_44_counters start"

# snap DEV VAR: the device's counters into the associative array VAR
snap() {
	local -n _s=$2
	local f

	_s=()
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		# The core's own file: how long a read is cached (ms).
		[ -f "$f" ] && [ "${f##*/}" != lifespan ] || continue
		_s[${f##*/}]=$(cat "$f")
	done
}

# delta VAR_AFTER VAR_BEFORE NAME
delta() {
	local -n _a=$1 _b=$2

	echo $((${_a[$3]:-0} - ${_b[$3]:-0}))
}

# --- what is listed --------------------------------------------------------
out=$(rdma statistic show link "$DP_DA/1" 2>&1)
missing=""
for n in $NAMES; do
	grep -qw -- "$n" <<<"$out" || missing+=" $n"
done
expect_eq "rdma statistic show link $DP_DA/1 lists all $(wc -w <<<"$NAMES") counters" \
	"${missing:-none missing}" "none missing" || diag "$out"

declare -A S
snap "$DP_DA" S
missing=""
for n in $NAMES; do
	[ -n "${S[$n]:-}" ] || missing+=" $n"
done
expect_eq "sysfs ports/1/hw_counters has every counter" \
	"${missing:-none missing}" "none missing"
expect_eq "sysfs has no counter the list does not know" \
	"$(for n in "${!S[@]}"; do grep -qw -- "$n" <<<"$NAMES" || echo "$n"; done)" ""

# --- one perftest run and what it moved --------------------------------------
declare -A A0 B0 A1 B1

# measure TEST DESC [CLIENT_ENV]: one run of TEST, -s SIZE -n ITERS; the
# counters before and after in A0 B0 A1 B1
measure() {
	local t=$1 desc=$2

	snap "$DP_DA" A0
	snap "$DP_DB" B0
	dp_next_port
	dp_run 240 "port:$DP_PORT" \
		"$t" -R -F -s "$SIZE" -n "$ITERS" -d "$DP_DA" -p "$DP_PORT" --- \
		env ${3:-} "$t" -R -F -s "$SIZE" -n "$ITERS" -d "$DP_DB" \
		-p "$DP_PORT" "$DP_A4"
	dp_both_ok "$desc"
	# Both ends have closed: nothing is in flight any more.
	snap "$DP_DA" A1
	snap "$DP_DB" B1
}

# agree FROM_AFTER FROM_BEFORE TO_AFTER TO_BEFORE: "group tx rx" for each
# opcode group where what FROM sent is not what TO received
agree() {
	local g

	for g in $OPGROUPS; do
		local tx rx
		tx=$(delta "$1" "$2" "tx_$g")
		rx=$(delta "$3" "$4" "rx_$g")
		[ "$tx" = "$rx" ] || echo "$g: sent $tx, received $rx"
	done
}

# payload_split AFTER BEFORE: zero-copy + copied minus the payload sent
payload_split() {
	echo $(( $(delta "$1" "$2" tx_zcopy_bytes) +
		 $(delta "$1" "$2" tx_copy_bytes) -
		 $(delta "$1" "$2" tx_send_bytes) -
		 $(delta "$1" "$2" tx_write_bytes) -
		 $(delta "$1" "$2" tx_read_resp_bytes) ))
}

# common DESC: the points every run makes, 4 of them
common() {
	expect_eq "$1: B sent what A received, every opcode group" \
		"$(agree B1 B0 A1 A0)" ""
	expect_eq "$1: A sent what B received, every opcode group" \
		"$(agree A1 A0 B1 B0)" ""
	expect_eq "$1: zero-copy + copied bytes = payload bytes, both sides" \
		"$(payload_split B1 B0) $(payload_split A1 A0)" "0 0"
	# perftest -R connects twice (its handshake, then the test's QP).
	local m
	m="$(delta B1 B0 mpa_req_sent) $(delta A1 A0 mpa_req_rcvd) $(delta A1 A0 mpa_rep_sent) $(delta B1 B0 mpa_rep_rcvd)"
	expect_match "$1: each MPA Request sent was received and answered ($m)" \
		"$m" '^([1-9][0-9]*) \1 \1 \1$'
}

# in_range DESC VALUE LOW HIGH: one point, LOW <= VALUE <= HIGH
in_range() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then
		pass "$1: $2"
	else
		fail "$1" "got $2, not within [$3, $4]"
	fi
}

bytes=$((ITERS * SIZE))

measure ib_write_bw "ib_write_bw -R -s $SIZE -n $ITERS"
common "ib_write_bw"
expect_eq "ib_write_bw: the client's Write bytes are iterations x size" \
	"$(delta B1 B0 tx_write_bytes)" "$bytes"
in_range "ib_write_bw: the client's Write FPDUs are iterations (+1 RTR)" \
	"$(delta B1 B0 tx_write_fpdus)" "$ITERS" $((ITERS + 1))
expect_eq "ib_write_bw: no Terminate, no error on either side" \
	"$(for n in tx_terminates rx_terminates llp_errors ddp_errors rdmap_errors local_errors rx_crc_errors; do echo -n "$(delta A1 A0 $n)$(delta B1 B0 $n)"; done)" \
	"00000000000000"
in_range "ib_write_bw: the client's posts rang doorbells" \
	"$(delta B1 B0 doorbells)" 1 $((ITERS * 2))

measure ib_send_bw "ib_send_bw -R -s $SIZE -n $ITERS"
common "ib_send_bw"
# perftest's own handshake adds a few hundred bytes of Sends.
in_range "ib_send_bw: the client's Send bytes are iterations x size (+ handshake)" \
	"$(delta B1 B0 tx_send_bytes)" "$bytes" $((bytes + 4096))
expect_eq "ib_send_bw: no Send found no receive (rx_no_rqe)" \
	"$(delta A1 A0 rx_no_rqe)" "0"

measure ib_read_bw "ib_read_bw -R -s $SIZE -n $ITERS"
common "ib_read_bw"
expect_eq "ib_read_bw: the server's Read Response bytes are iterations x size" \
	"$(delta A1 A0 tx_read_resp_bytes)" "$bytes"
in_range "ib_read_bw: the client's Read Requests are iterations (+1 RTR)" \
	"$(delta B1 B0 tx_read_req_fpdus)" "$ITERS" $((ITERS + 1))

# Without the shared rings every WR goes through a system call: no doorbell.
measure ib_write_bw "ib_write_bw -R without rings (SIW_LITE_NO_RINGS=1)" \
	SIW_LITE_NO_RINGS=1
common "ib_write_bw, no rings"
expect_eq "ib_write_bw, no rings: no doorbell (posts are system calls)" \
	"$(delta B1 B0 doorbells)" "0"
expect_eq "ib_write_bw, no rings: the client's Write bytes are iterations x size" \
	"$(delta B1 B0 tx_write_bytes)" "$bytes"

# --- one QP's own counters (rdma statistic qp bind) --------------------------
# rdma_cm never names the port when it moves an iWARP QP to INIT, so the
# core's auto mode does not bind our QPs; a manual bind does.  While the
# client's QP is bound, its traffic counts in the bound counter and no
# longer in the device's (the core adds the two for "rdma statistic show
# link").
dp_next_port
dp_start_bg 120 "port:$DP_PORT" \
	ib_write_bw -R -n 100000000 -s "$SIZE" -d "$DP_DA" -p "$DP_PORT" --- \
	ib_write_bw -R -n 100000000 -s "$SIZE" -d "$DP_DB" -p "$DP_PORT" "$DP_A4"
# test_qp: the client's RC QP of the test (not perftest's handshake QP)
test_qp() {
	rdma -dd resource show qp link "$DP_DB/1" 2>/dev/null |
		tr '\n' ' ' | sed 's/link /\nlink /g' |
		grep -E 'type RC .*drv_sq_size [1-9][0-9]' | tail -n 1 |
		grep -oE 'lqpn [0-9]+' | awk '{ print $2 }' | grep .
}
wait_for 30 test_qp || diag "no test QP on $DP_DB: $(rdma -dd resource show qp 2>&1)"
lqpn=$(test_qp)
check "rdma statistic qp bind link $DP_DB/1 lqpn ${lqpn:-?}" \
	rdma statistic qp bind link "$DP_DB/1" lqpn "${lqpn:-0}"
ctr_of() {
	cat /sys/class/infiniband/"$DP_DB"/ports/1/hw_counters/tx_write_fpdus
}
bound_of() {
	rdma statistic qp show link "$DP_DB/1" 2>/dev/null |
		grep -oE 'tx_write_fpdus [0-9]+' | awk '{ print $2 }' | head -n 1
}
out=$(rdma statistic qp show link "$DP_DB/1" 2>&1)
diag "$out"
cntn=$(grep -oE 'cntn [0-9]+' <<<"$out" | awk '{ print $2 }' | head -n 1)
# The core adds every bound counter to the port's figures (sysfs and
# "show link"), so a QP counted twice would move them by twice what the
# counter moves.  Reads are a few ms apart at ~10^5 Writes/s: a margin.
d0=$(ctr_of); c0=$(bound_of)
sleep 2
d1=$(ctr_of); c1=$(bound_of)
in_range "the bound counter counts the QP's Writes" $((${c1:-0} - ${c0:-0})) \
	1 100000000
dd=$((d1 - d0)); cd=$((${c1:-0} - ${c0:-0}))
diag "port moved $dd, counter $cd (percent below)"
in_range "the port's count moves by the counter's, not twice" \
	$((dd * 100 / (cd > 0 ? cd : 1))) 70 130
check "rdma statistic qp unbind link $DP_DB/1 cntn ${cntn:-?} lqpn ${lqpn:-?}" \
	rdma statistic qp unbind link "$DP_DB/1" cntn "${cntn:-0}" \
	lqpn "${lqpn:-0}"
# Its last QP gone, the core frees the counter and keeps its figures in the
# port's history: from here on only the device's own set can move sysfs.
check "the counter is gone once its QP is unbound" \
	bash -c '! rdma statistic qp show link "$1" | grep -q "cntn $2 "' _ \
	"$DP_DB/1" "${cntn:-0}"
d0=$(ctr_of)
sleep 1
d1=$(ctr_of)
in_range "unbound, the QP counts in the device again" $((d1 - d0)) 1 100000000
kill "$DP_CPID" "$DP_SPID" 2>/dev/null
wait "$DP_CPID" "$DP_SPID" 2>/dev/null

# --- counters are per device and survive nothing ------------------------------
dp_relink "$DP_TYPE_A" "$DP_TYPE_B" 2>"$SIWL_TMP/relink.err" ||
	diag "relink: $(cat "$SIWL_TMP/relink.err")"
snap "$DP_DA" S
nz=""
for n in $NAMES; do
	[ "${S[$n]:-x}" = 0 ] || nz+=" $n=${S[$n]:-missing}"
done
expect_eq "a new device starts with every counter at 0" "${nz:-all 0}" "all 0"
