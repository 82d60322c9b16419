# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Fixtures for the data-path selftests (selftests/test_3*_datapath.sh),
# sourced after selftests/lib.sh: two network namespaces joined by a veth
# pair, one RDMA device per namespace, and a runner for server/client
# program pairs with timeouts and both exit codes.
#
#   namespace $DP_A: veth $DP_VA  192.0.2.1/24  2001:db8::1/64  device $DP_DA
#   namespace $DP_B: veth $DP_VB  192.0.2.2/24  2001:db8::2/64  device $DP_DB
#
# SIWL_DP_TYPE picks the rdma link type (default siw_lite), so the same
# scripts can be pointed at another soft RNIC.

DP_A=siwl-dpA
DP_B=siwl-dpB
DP_VA=vethA
DP_VB=vethB
DP_DA=siwlA
DP_DB=siwlB
DP_TYPE=${SIWL_DP_TYPE:-$SIWL_TYPE}
DP_A4=192.0.2.1
DP_B4=192.0.2.2
DP_A6=2001:db8::1
DP_B6=2001:db8::2

# Exit codes and output files of the last dp_run.
DP_SRV_RC=0
DP_CLI_RC=0
DP_SRV_OUT=$SIWL_TMP/server.out
DP_CLI_OUT=$SIWL_TMP/client.out
DP_PORT=20000

# A fresh port in DP_PORT for every pair, so that no listen can trip over
# the TCP state its predecessor left behind.
dp_next_port() {
	DP_PORT=$((DP_PORT + 1))
}

dp_cleanup() {
	ip netns exec "$DP_A" rdma link delete "$DP_DA" 2>/dev/null
	ip netns exec "$DP_B" rdma link delete "$DP_DB" 2>/dev/null
	rdma link delete "$DP_DA" 2>/dev/null
	rdma link delete "$DP_DB" 2>/dev/null
	ip netns del "$DP_A" 2>/dev/null
	ip netns del "$DP_B" 2>/dev/null
	return 0
}

# dp_setup: namespaces, veth, addresses, devices; returns non-zero (with a
# message on stderr) if any step fails.
dp_setup() {
	local ns

	dp_cleanup
	ip netns add "$DP_A" && ip netns add "$DP_B" || return 1
	ip link add "$DP_VA" netns "$DP_A" type veth \
		peer name "$DP_VB" netns "$DP_B" || return 1
	ip -n "$DP_A" addr add "$DP_A4/24" dev "$DP_VA" &&
	ip -n "$DP_B" addr add "$DP_B4/24" dev "$DP_VB" &&
	ip -n "$DP_A" addr add "$DP_A6/64" dev "$DP_VA" nodad &&
	ip -n "$DP_B" addr add "$DP_B6/64" dev "$DP_VB" nodad || return 1
	for ns in "$DP_A" "$DP_B"; do
		ip -n "$ns" link set lo up || return 1
	done
	ip -n "$DP_A" link set "$DP_VA" up && ip -n "$DP_B" link set "$DP_VB" up ||
		return 1
	ip netns exec "$DP_A" rdma link add "$DP_DA" type "$DP_TYPE" \
		netdev "$DP_VA" || return 1
	ip netns exec "$DP_B" rdma link add "$DP_DB" type "$DP_TYPE" \
		netdev "$DP_VB" || return 1
	wait_for 10 port_state_is "$DP_DA" "4: ACTIVE" &&
	wait_for 10 port_state_is "$DP_DB" "4: ACTIVE" || {
		echo "ports: $DP_DA $(port_state "$DP_DA"), $DP_DB $(port_state "$DP_DB")" >&2
		return 1
	}
	# Routes and reachability over the veth, so that a failure further
	# on is not wrongly blamed on RDMA.
	if ! ip -n "$DP_B" route get "$DP_A4" | grep -q "dev $DP_VB" ||
	   ! ip -n "$DP_B" -6 route get "$DP_A6" | grep -q "dev $DP_VB"; then
		echo "no route from $DP_B to $DP_A over $DP_VB" >&2
		return 1
	fi
	if ! _dp_reach "$DP_A4" || ! _dp_reach "$DP_A6"; then
		echo "no IP connectivity between the namespaces" >&2
		return 1
	fi
}

# _dp_reach ADDR: a TCP connect from B to ADDR port 9 (discard, nobody
# listens) is refused at once if ADDR is reachable; it also leaves the
# neighbour entry resolved.  No ping needed.
_dp_reach() {
	local out

	out=$(ip netns exec "$DP_B" timeout 5 bash -c \
		"exec 3<>/dev/tcp/$1/9" 2>&1) && return 0
	grep -q "refused" <<<"$out"
}

# The whole load-and-set-up sequence every data-path test starts with.
dp_start() {
	require_guest
	require_root
	require_module_file
	require_provider_file
	on_exit siwl_cleanup
	on_exit dp_cleanup
	siwl_load || bail "cannot load siw_lite"
	dp_setup 2>"$SIWL_TMP/setup.err" ||
		bail "namespace/veth/device set-up failed: $(cat "$SIWL_TMP/setup.err")"
	export RDMAV_DRIVERS
}

# Path of verbs_test: the host-built one if up to date, else built into
# the scratch directory (the guest sees the tree read-only).
dp_verbs_test() {
	local src=$SIW_LITE_TOP/tools/verbs_test bin newest

	bin=$src/verbs_test
	newest=$(ls -t "$src"/*.c "$src"/*.h "$bin" 2>/dev/null | head -n 1)
	if [ -x "$bin" ] && [ "$newest" = "$bin" ]; then
		echo "$bin"
		return 0
	fi
	mkdir -p "$SIWL_TMP/vt" || return 1
	cp "$src"/*.c "$src"/*.h "$src"/Makefile "$SIWL_TMP/vt/" || return 1
	make -s -C "$SIWL_TMP/vt" verbs_test >&2 || return 1
	echo "$SIWL_TMP/vt/verbs_test"
}

# Is the server ready?  "re:ERE": its output matches; "port:N": an
# rdma_cm id listens on port N (rdma res show cm_id).
_dp_ready() {
	case $1 in
	re:*)
		grep -Eq -- "${1#re:}" "$DP_SRV_OUT"
		;;
	port:*)
		ip netns exec "$DP_A" rdma res show cm_id 2>/dev/null |
			grep -Eq "LISTEN.*:${1#port:}( |\$)"
		;;
	*)
		return 1
		;;
	esac
}

# dp_run TIMEOUT READY SERVER_ARGV... --- CLIENT_ARGV...
#
# Starts the server in namespace A, waits (up to 20 s, see _dp_ready)
# until it is READY, runs the client in namespace B, then waits for the
# server.  Each side is killed after TIMEOUT seconds; a server whose client
# failed gets DP_GRACE seconds (default 15) to notice before it is
# stopped.  Sets DP_SRV_RC and DP_CLI_RC (124: timed out, 143: stopped)
# and leaves the outputs in DP_SRV_OUT and DP_CLI_OUT.
dp_run() {
	local tmo=$1 ready=$2 spid end
	local -a srv=() cli=()

	shift 2
	while [ $# -gt 0 ] && [ "$1" != "---" ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")

	ip netns exec "$DP_A" timeout -k 5 "$tmo" "${srv[@]}" \
		>"$DP_SRV_OUT" 2>&1 </dev/null &
	spid=$!
	wait_for 20 _dp_ready "$ready" ||
		diag "server not seen ready ($ready) after 20 s; starting the client anyway"
	ip netns exec "$DP_B" timeout -k 5 "$tmo" "${cli[@]}" \
		>"$DP_CLI_OUT" 2>&1 </dev/null
	DP_CLI_RC=$?
	if [ "$DP_CLI_RC" != 0 ]; then
		# ip netns exec execs timeout(1), which passes TERM on
		end=$(($(date +%s) + ${DP_GRACE:-15}))
		while kill -0 "$spid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
			sleep 0.5
		done
		kill -TERM "$spid" 2>/dev/null
	fi
	wait "$spid"
	DP_SRV_RC=$?
}

# dp_keep NAME: keep both outputs of the last dp_run in the run's log
# directory (vm-run.sh's SIW_LITE_LOGDIR, outside the tree) as
# datapath/NAME.{server,client}.log.
dp_keep() {
	local d=${SIW_LITE_LOGDIR:-}/datapath

	[ -n "${SIW_LITE_LOGDIR:-}" ] && mkdir -p "$d" 2>/dev/null || return 0
	cp "$DP_SRV_OUT" "$d/$1.server.log" 2>/dev/null
	cp "$DP_CLI_OUT" "$d/$1.client.log" 2>/dev/null
	return 0
}

# dp_both_ok DESC: one test point on both exit codes, logs on failure.
dp_both_ok() {
	dp_keep "$(tr -c 'A-Za-z0-9._-' '_' <<<"$1" | cut -c1-60)"
	if [ "$DP_SRV_RC" = 0 ] && [ "$DP_CLI_RC" = 0 ]; then
		pass "$1"
	else
		fail "$1" "server exit $DP_SRV_RC, client exit $DP_CLI_RC" \
			"--- server (last 25 lines)" "$(tail -n 25 "$DP_SRV_OUT")" \
			"--- client (last 25 lines)" "$(tail -n 25 "$DP_CLI_OUT")"
	fi
}

# dp_verbs_test_cases FAMILY PORT SERVER_ADDR CLIENT_SRC
#
# Runs verbs_test --test all between the namespaces and reports one test
# point per test case (both sides' TAP lines for it) plus one for the exit
# codes.  Test points: number of test cases + 1.
dp_verbs_test_cases() {
	local fam=$1 port=$2 saddr=$3 caddr=$4 vt t lines bad nok
	local -a common

	vt=$(dp_verbs_test) || {
		fail "verbs_test builds"
		return 1
	}
	common=(--port "$port" --timeout "${SIWL_DP_TIMEOUT:-20}" --test all)
	kmsg "verbs_test $fam start"
	dp_run 280 "re:listening on" \
		"$vt" --server --bind "$saddr" "${common[@]}" --- \
		"$vt" --client "$saddr" --bind "$caddr" "${common[@]}" \
		--budget "${SIWL_DP_BUDGET:-16777216}"
	diag "$(grep -m1 '^# seed' "$DP_CLI_OUT")"
	dp_keep "verbs_test-$fam"
	for t in $("$vt" --list); do
		lines=$(grep -hE "^(not )?ok [0-9]+ - $t: (client|server):" \
			"$DP_SRV_OUT" "$DP_CLI_OUT")
		bad=$(grep -E '^not ok' <<<"$lines")
		nok=$(grep -cE '^ok' <<<"$lines")
		if [ -n "$bad" ]; then
			fail "verbs_test $t over $fam" "$bad" \
				"$(grep -hE "^# $t: " "$DP_SRV_OUT" "$DP_CLI_OUT" | head -n 20)"
		elif [ "$nok" -eq 0 ]; then
			fail "verbs_test $t over $fam" "no result from either side"
		elif grep -q '# SKIP' <<<"$lines"; then
			skip "verbs_test $t over $fam" \
				"$(grep -m1 -o '# SKIP.*' <<<"$lines" | cut -c8-)"
		else
			pass "verbs_test $t over $fam ($nok checks)"
		fi
	done
	dp_both_ok "verbs_test over $fam: server and client exit 0"
}

# dp_perftest PROGRAM: one perftest benchmark (ib_send_bw ... ib_read_lat)
# from B to A with rdma_cm (-R: iWARP needs it), all sizes 2 B .. 8 MiB
# (-a), SIWL_DP_PERF_ITERS iterations each (default 10: TCG is slow and
# the large sizes dominate).  One test point: both exit codes.
dp_perftest() {
	local t=$1 iters=${SIWL_DP_PERF_ITERS:-10}

	kmsg "$t start"
	dp_next_port
	dp_run 240 "port:$DP_PORT" \
		"$t" -R -a -F -n "$iters" -d "$DP_DA" -p "$DP_PORT" --- \
		"$t" -R -a -F -n "$iters" -d "$DP_DB" -p "$DP_PORT" "$DP_A4"
	dp_both_ok "$t -R -a -n $iters between two namespaces"
}
