#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A misbehaving local user (tools/testing/hostile_user): wrong driver data sizes
# and garbage on every verb, mmap() with wrong keys/sizes/flags, rings
# unmapped under a live QP, impossible memory registrations and
# RLIMIT_MEMLOCK, stale and foreign handles, lkeys of another PD or
# context, MRs deregistered under outstanding WRs, fork() with live
# rings, a connection set up with another process's QP number, and a
# process SIGKILLed mid-transfer on either side.  Every
# misuse must get a clear error (or a fatal error of the offender's own
# QP); the dead process's resources must vanish from "rdma res"; the
# module must unload at the end; vm-run.sh fails the run on any kernel
# complaint in dmesg.
#
# Test points: every TAP point of hostile_user, one per run for its exit
# status and completeness, and the kill scenarios'.  The plan is known
# only once hostile_user has run, so it is printed at the end.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

# Path of hostile_user: the host-built one if up to date, else built in
# the scratch directory (the guest sees the tree read-only).
hu_bin() {
	local src=$SIW_LITE_TOP/tools/testing/hostile_user bin newest

	bin=$src/hostile_user
	newest=$(ls -t "$src"/*.c "$src"/*.h "$bin" "$src"/../lib/* \
		"$SIW_LITE_TOP/include/uapi/rdma/siw_lite-abi.h" \
		"$SIW_LITE_TOP/tools/provider/pabi34.h" 2>/dev/null | head -n 1)
	if [ -x "$bin" ] && [ "$newest" = "$bin" ]; then
		echo "$bin"
		return 0
	fi
	# the same layout as tools/: the sources find ../../provider
	mkdir -p "$SIWL_TMP/hu/testing/hostile_user" "$SIWL_TMP/hu/provider" ||
		return 1
	cp "$src"/*.c "$src"/*.h "$src"/Makefile \
		"$SIWL_TMP/hu/testing/hostile_user/" &&
	cp "$SIW_LITE_TOP/tools/provider/pabi34.h" "$SIWL_TMP/hu/provider/" ||
		return 1
	make -s -C "$SIWL_TMP/hu/testing/hostile_user" \
		LIB="$SIW_LITE_TOP/tools/testing/lib" \
		CPPFLAGS="-I$SIW_LITE_TOP/include/uapi -I$SIW_LITE_TOP/tools/testing/lib" \
		hostile_user >&2 || return 1
	echo "$SIWL_TMP/hu/testing/hostile_user/hostile_user"
}

# Results are collected as lines "pass|fail|skip<TAB>DESC<TAB>DETAIL" and
# reported once the plan is known.
RES=$SIWL_TMP/results
: >"$RES"

res() {
	local d=${3:-}

	d=${d//$'\n'/ | }
	printf '%s\t%s\t%s\n' "$1" "${2//$'\n'/ }" "${d//$'\t'/ }" >>"$RES"
}

# hu_collect LABEL OUTFILE RC: one result per TAP line of a hostile_user
# run, and one for its exit status and plan.
hu_collect() {
	local label=$1 out=$2 rc=$3 line desc n=0 plan

	while IFS= read -r line; do
		case $line in
		"not ok "*)
			desc=${line#not ok * - }
			res fail "$desc" "$(grep -A3 -F -- "$line" "$out" | sed 1d | grep '^#' | head -n 3)"
			n=$((n + 1))
			;;
		"ok "*"# SKIP "*)
			desc=${line#ok * - }
			res skip "${desc%% # SKIP *}" "${desc#* # SKIP }"
			n=$((n + 1))
			;;
		"ok "*)
			res pass "${line#ok * - }"
			n=$((n + 1))
			;;
		esac
	done <"$out"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out")
	if [ "$rc" = 0 ] && [ "${plan:-x}" = "$n" ]; then
		res pass "$label: exit 0, all $n points reported"
	elif [ "$rc" = 1 ] && [ "${plan:-x}" = "$n" ]; then
		res pass "$label: ran to its end ($n points, failures above)"
	else
		res fail "$label: exit 0 and a complete plan" \
			"exit $rc, plan '${plan:-none}', $n points; last lines: $(tail -n 5 "$out")"
	fi
}

# qp/cq/mr/pd entries of PID in "rdma res show".
res_of_pid() {
	local t

	for t in qp cq mr pd; do
		rdma res show "$t" 2>/dev/null | grep -E "pid $1 " |
			sed "s/^/$t: /"
	done
}

no_res_of_pid() {
	[ -z "$(res_of_pid "$1")" ]
}

dp_start
kmsg "test_71_hostile_user start"
ulimit -c 0
HU=$(hu_bin) || bail "hostile_user does not build"
T=${SIWL_HU_TIMEOUT:-10}

# ---------------------------------------------------------- local cases
# sq_flood fills a whole send ring in one post: the kernel must copy it
# out in batches of SIWL_USQ_BATCH (drivers/siw_lite/qp_engine.h) WQEs,
# each under one hold of the QP's irqsave lock.  A kprobe sees the calls
# from other files (the flush, one batch per run of the work item), not
# the copy the compiler inlines into the doorbell, which takes the first
# batch: at least posted / 64 - 1 calls, where one batch of all took 0
# to 2.
USQ_BATCH=64
FETCH_FN=siwl_usq_fetch_locked
flood_trace=1
for c in $("$HU" --list | awk -F '\t' '$2 == "local" { print $1 }'); do
	kmsg "hostile_user $c start"
	[ "$c" != sq_flood ] || { fn_trace_start "$FETCH_FN"; flood_trace=$?; }
	ip netns exec "$DP_B" timeout -k 5 60 "$HU" --dev "$DP_DB" --case "$c" \
		--timeout "$T" >"$SIWL_TMP/$c.out" 2>&1 </dev/null
	hu_collect "hostile_user --case $c" "$SIWL_TMP/$c.out" $?
	[ "$c" = sq_flood ] || continue
	posted=$(sed -n 's/^# sq_flood: posted \([0-9]*\)$/\1/p' "$SIWL_TMP/$c.out")
	if [ "$flood_trace" != 0 ]; then
		res skip "sq_flood: the ring is fetched in batches" \
			"no kprobe event on $FETCH_FN ($flood_trace)"
		continue
	fi
	{ read -r fetches; read -r lost; } < <(fn_trace_stop "$FETCH_FN")
	if [ -z "$posted" ] || [ "${lost:-1}" != 0 ]; then
		res fail "sq_flood: the ring is fetched in batches" \
			"posted '${posted}', trace lost '${lost}' events"
	elif [ "$fetches" -ge $((posted / USQ_BATCH - 1)) ]; then
		res pass "sq_flood: $posted WQEs fetched in $fetches calls (batches of at most $USQ_BATCH)"
	else
		res fail "sq_flood: the ring is fetched in batches" \
			"$posted WQEs in $fetches calls: more than $USQ_BATCH per lock hold"
	fi
done

# --------------------------------------------------- cases with a peer
dp_next_port
SRV_OUT=$SIWL_TMP/server.out
ip netns exec "$DP_A" timeout -k 5 240 "$HU" --server --bind "$DP_A4" \
	--port "$DP_PORT" >"$SRV_OUT" 2>&1 </dev/null &
srv=$!
wait_for 20 grep -q "listening on" "$SRV_OUT" ||
	diag "server not ready after 20 s: $(cat "$SRV_OUT")"
for c in pd_cross mr_inflight fork qp_hijack; do
	kmsg "hostile_user $c start"
	ip netns exec "$DP_B" timeout -k 5 90 "$HU" --client "$DP_A4" \
		--port "$DP_PORT" --case "$c" --timeout "$T" \
		>"$SIWL_TMP/$c.out" 2>&1 </dev/null
	hu_collect "hostile_user --case $c" "$SIWL_TMP/$c.out" $?
done

# ------------------------------------- SIGKILL of the writer, mid-stream
kmsg "hostile_user kill client start"
ip netns exec "$DP_B" "$HU" --client "$DP_A4" --port "$DP_PORT" \
	--case stream --timeout "$T" >"$SIWL_TMP/kill1.out" 2>&1 </dev/null &
cli=$!
ended_before=$(grep -c ': ended:' "$SRV_OUT")
if wait_for 30 grep -q "streaming" "$SIWL_TMP/kill1.out"; then
	res pass "kill client: the client streams RDMA Writes (pid $cli)"
else
	res fail "kill client: the client streams RDMA Writes" "$(cat "$SIWL_TMP/kill1.out")"
fi
kill -KILL "$cli" 2>/dev/null
wait "$cli" 2>/dev/null
server_saw_end() {
	[ "$(grep -c ': ended:' "$SRV_OUT")" -gt "$ended_before" ]
}
if wait_for 30 server_saw_end; then
	res pass "kill client: the server sees its connection end: $(grep ': ended:' "$SRV_OUT" | tail -n 1)"
else
	res fail "kill client: the server sees its connection end" "$(tail -n 5 "$SRV_OUT")"
fi
if wait_for 15 no_res_of_pid "$cli"; then
	res pass "kill client: no QP, CQ, MR or PD of the dead process in rdma res"
else
	res fail "kill client: no QP, CQ, MR or PD of the dead process in rdma res" \
		"$(res_of_pid "$cli")"
fi

# the server serves on: one more good connection
ip netns exec "$DP_B" timeout -k 5 60 "$HU" --client "$DP_A4" \
	--port "$DP_PORT" --case pd_cross --timeout "$T" \
	>"$SIWL_TMP/after.out" 2>&1 </dev/null
if [ $? = 0 ]; then
	res pass "kill client: the server serves the next client (pd_cross again)"
else
	res fail "kill client: the server serves the next client (pd_cross again)" \
		"$(grep -E '^not ok' "$SIWL_TMP/after.out" | head -n 5)"
fi
kill -TERM "$srv" 2>/dev/null
wait "$srv"
rc=$?
if [ "$rc" = 0 ]; then
	res pass "the server exits 0 when stopped"
else
	res fail "the server exits 0 when stopped" "exit $rc: $(tail -n 5 "$SRV_OUT")"
fi
diag "$(grep -E '^conn|^server' "$SRV_OUT" | tail -n 12)"

# ------------------------------------- SIGKILL of the target, mid-stream
kmsg "hostile_user kill server start"
dp_next_port
: >"$SRV_OUT"
ip netns exec "$DP_A" "$HU" --server --bind "$DP_A4" --port "$DP_PORT" \
	>"$SRV_OUT" 2>&1 </dev/null &
srv=$!
wait_for 20 grep -q "listening on" "$SRV_OUT" ||
	diag "server not ready after 20 s: $(cat "$SRV_OUT")"
ip netns exec "$DP_B" timeout -k 5 90 "$HU" --client "$DP_A4" \
	--port "$DP_PORT" --case stream --timeout "$T" \
	>"$SIWL_TMP/kill2.out" 2>&1 </dev/null &
cli=$!
if wait_for 30 grep -q "streaming" "$SIWL_TMP/kill2.out"; then
	res pass "kill server: the client streams RDMA Writes"
else
	res fail "kill server: the client streams RDMA Writes" "$(cat "$SIWL_TMP/kill2.out")"
fi
kill -KILL "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
wait "$cli"
hu_collect "kill server: hostile_user --case stream" "$SIWL_TMP/kill2.out" $?
if wait_for 15 no_res_of_pid "$srv"; then
	res pass "kill server: no QP, CQ, MR or PD of the dead server in rdma res"
else
	res fail "kill server: no QP, CQ, MR or PD of the dead server in rdma res" \
		"$(res_of_pid "$srv")"
fi

# ------------------------------------------------------------- the end
left=$(for t in qp cq mr pd; do rdma res show "$t" 2>/dev/null | grep -E 'pid [0-9]+ ' | sed "s/^/$t: /"; done)
if [ -z "$left" ]; then
	res pass "no user QP, CQ, MR or PD left on any device"
else
	res fail "no user QP, CQ, MR or PD left on any device" "$left"
fi
dp_cleanup
for d in $(siwl_devices); do
	rdma link delete "$d" 2>/dev/null
done
if wait_for 20 siwl_unload 2>"$SIWL_TMP/rmmod.err"; then
	res pass "rmmod siw_lite succeeds"
else
	res fail "rmmod siw_lite succeeds" "$(cat "$SIWL_TMP/rmmod.err")" \
		"$(lsmod | grep siw_lite)"
fi

# ----------------------------------------------------------- report
plan "$(wc -l <"$RES")"
while IFS=$'\t' read -r kind desc detail; do
	case $kind in
	pass) pass "$desc" ;;
	skip) skip "$desc" "$detail" ;;
	*) fail "$desc" "$detail" ;;
	esac
done <"$RES"
