#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unmodified programs that use verbs and rdma_cm their own way, between
# two namespaces, each pair in both directions:
#
# - libfabric (libfabric-bin): fi_info lists the device; fi_pingpong over
#   verbs MSG endpoints and over verbs;ofi_rxm RDM endpoints, every size
#   from 64 B to 1 MiB with its data check (-c).  rxm sizes its CQ for a
#   universe of 256 peers, 196608 entries: past the 65536 siw_lite used
#   to allow, so it failed with EINVAL until max_cqe grew.
# - rsockets (rdmacm-utils): rstream and riostream verifying every byte
#   (-T v) at 64 B, 4 KiB, 64 KiB and 1 MiB; rcopy of a 64 MiB file,
#   compared byte for byte; iperf (2) on both ends under librspreload.so,
#   its rate beside plain TCP's (iperf3 is no candidate: it asks rsockets
#   for TCP_INFO, which rsockets refuses, and then corrupts its own
#   stack; it does the same over the in-tree siw).
# - connection set-up: cmtime with 100 connections, rdma_xserver and
#   rdma_xclient.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

SIZES="64 4096 65536 1048576"
RSPRELOAD=$(ls /usr/lib/*/rsocket/librspreload.so 2>/dev/null | head -n 1)

plan 28
# scripts/test.sh runs the unmodified programs on one kernel only (6.12):
# what they ask of the kernel, perftest and rping ask of both.
if [ -n "${SIW_LITE_SKIP_APPS:-}" ]; then
	skip_rest "$SIW_LITE_SKIP_APPS"
	exit 0
fi
dp_start
kmsg "test_43_apps start"
ulimit -l unlimited 2>/dev/null || diag "cannot lift RLIMIT_MEMLOCK"

# flip: the other direction (server in B, client in A) for what follows.
flip() {
	local t

	t=$DP_A; DP_A=$DP_B; DP_B=$t
	t=$DP_A4; DP_A4=$DP_B4; DP_B4=$t
	t=$DP_DA; DP_DA=$DP_DB; DP_DB=$t
}

# have PROGRAM POINTS: skips POINTS test points when PROGRAM is missing.
have() {
	local i

	command -v "$1" >/dev/null && return 0
	for i in $(seq "$2"); do
		skip "$1" "$1 is not installed"
	done
	return 1
}

# The lines of fi_pingpong's table whose #ack column says every message
# came back ("=N"), one per size.
fi_sizes_done() {
	grep -Ec '^[0-9]+[kmg]?[[:space:]]+[0-9]+[[:space:]]+=[0-9]+' "$1"
}

fi_check() {
	local desc=$1 n

	n=$(fi_sizes_done "$DP_CLI_OUT")
	dp_keep "$(tr -c 'A-Za-z0-9._-' '_' <<<"$desc" | cut -c1-60)"
	if [ "$DP_SRV_RC" = 0 ] && [ "$DP_CLI_RC" = 0 ] && [ "$n" -ge 6 ]; then
		pass "$desc"
	else
		fail "$desc" "server exit $DP_SRV_RC, client exit $DP_CLI_RC, $n of 6 sizes" \
			"--- server" "$(tail -n 25 "$DP_SRV_OUT")" \
			"--- client" "$(tail -n 25 "$DP_CLI_OUT")"
	fi
}

fabric() {
	local dir=$1 ep

	have fi_pingpong 2 || return 0
	for ep in "verbs msg" "verbs;ofi_rxm rdm"; do
		dp_next_port
		dp_run 60 "tcp:$DP_PORT" \
			fi_pingpong -p "${ep% *}" -e "${ep##* }" -c -d "$DP_DA" \
			-B "$DP_PORT" --- \
			fi_pingpong -p "${ep% *}" -e "${ep##* }" -c -d "$DP_DB" \
			-P "$DP_PORT" "$DP_A4"
		fi_check "fi_pingpong ${ep% *} ${ep##* }, 64 B to 1 MiB, data checked, $dir"
	done
}

rstreams() {
	local dir=$1 prog size count

	for prog in rstream riostream; do
		have "$prog" 4 || continue
		for size in $SIZES; do
			count=$((size >= 65536 ? 50 : 500))
			dp_next_port
			dp_run 60 "port:$DP_PORT" \
				"$prog" -T v -S "$size" -C "$count" -p "$DP_PORT" --- \
				"$prog" -T v -S "$size" -C "$count" -p "$DP_PORT" \
				-s "$DP_A4"
			dp_both_ok "$prog -T v, $count x $size B, $dir"
		done
	done
}

# rcopy_file DIR: a 64 MiB file through rcopy, compared at the far end.
rcopy_file() {
	local dir=$1 desc="rcopy 64 MiB, identical at the far end, $1"

	have rcopy 1 || return 0
	dp_next_port
	rm -f "$SIWL_TMP/rcopy.out"
	dp_run_served 120 "port:$DP_PORT" rcopy -p "$DP_PORT" --- \
		rcopy "$SIWL_TMP/rcopy.in" "$DP_A4:$SIWL_TMP/rcopy.out" \
		-p "$DP_PORT"
	if ! cmp -s "$SIWL_TMP/rcopy.in" "$SIWL_TMP/rcopy.out" &&
	   [ "$DP_CLI_RC" = 0 ]; then
		DP_CLI_RC="0, but the copy differs"
	fi
	dp_both_ok "$desc"
}

cm_setup() {
	local dir=$1

	if have cmtime 1; then
		dp_next_port
		dp_run_served 120 "port:$DP_PORT" \
			cmtime -p "$DP_PORT" -c 100 -b "$DP_A4" --- \
			cmtime -p "$DP_PORT" -c 100 -s "$DP_A4"
		dp_both_ok "cmtime, 100 connections set up and torn down, $dir"
		grep -E '^(connect|disconnect) ' "$DP_CLI_OUT" | while read -r l; do
			diag "cmtime $dir: $l"
		done
	fi
	if have rdma_xserver 1; then
		dp_next_port
		dp_run 60 "port:$DP_PORT" \
			rdma_xserver -p "$DP_PORT" --- \
			rdma_xclient -s "$DP_A4" -p "$DP_PORT"
		dp_both_ok "rdma_xserver / rdma_xclient, $dir"
	fi
}

# iperf_pair READY [ENV...]: an iperf server in A and a client sending
# 64 MiB from B, both under ENV; the client's rate in IPERF_RATE.
iperf_pair() {
	local ready=$1

	shift
	dp_next_port
	dp_run_served 60 "$ready:$DP_PORT" env "$@" iperf -s -p "$DP_PORT" --- \
		env "$@" iperf -c "$DP_A4" -p "$DP_PORT" -n 64M
	IPERF_RATE=$(grep -Eo '[0-9.]+ [KMG]?bits/sec' "$DP_CLI_OUT" | tail -n 1)
}

rspreload_iperf() {
	local rdma

	have iperf 1 || return 0
	if [ -z "$RSPRELOAD" ]; then
		skip "iperf under librspreload" "librspreload.so not found"
		return 0
	fi
	iperf_pair port LD_PRELOAD="$RSPRELOAD"
	rdma=$IPERF_RATE
	[ -n "$rdma" ] || [ "$DP_CLI_RC" != 0 ] ||
		DP_CLI_RC="0, but no rate in its output"
	dp_both_ok "iperf, 64 MiB, both ends under librspreload.so"
	iperf_pair tcp SIWL_PLAIN_TCP=1
	diag "iperf 64 MiB over rsockets: ${rdma:-?}; over TCP: ${IPERF_RATE:-?}"
}

if command -v fi_info >/dev/null; then
	out=$(ip netns exec "$DP_B" fi_info -p verbs 2>&1)
	if grep -q "domain: $DP_DB" <<<"$out" &&
	   grep -q 'FI_PROTO_IWARP' <<<"$out" &&
	   grep -q 'FI_PROTO_RXM' <<<"$out"; then
		pass "fi_info -p verbs lists $DP_DB, MSG (iWARP) and RDM (rxm)"
	else
		fail "fi_info -p verbs lists $DP_DB, MSG (iWARP) and RDM (rxm)" \
			"$out"
	fi
else
	skip "fi_info" "libfabric-bin is not installed"
fi

head -c $((64 << 20)) /dev/urandom >"$SIWL_TMP/rcopy.in"
for dir in "B -> A" "A -> B"; do
	fabric "$dir"
	rstreams "$dir"
	rcopy_file "$dir"
	cm_setup "$dir"
	flip
done
rspreload_iperf
