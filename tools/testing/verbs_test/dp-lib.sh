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
# scripts can be pointed at another soft RNIC; SIWL_DP_TYPE_A and
# SIWL_DP_TYPE_B override it per namespace (interop: one side siw_lite, the
# other the in-tree siw, see dp_peer_load and dp_relink).

DP_A=siwl-dpA
DP_B=siwl-dpB
DP_VA=vethA
DP_VB=vethB
# vethA and vethB interface indexes, each in its own namespace: distinct
# (see dp_setup).
DP_IDX_A=21
DP_IDX_B=22
DP_DA=siwlA
DP_DB=siwlB
DP_TYPE=${SIWL_DP_TYPE:-$SIWL_TYPE}
DP_TYPE_A=${SIWL_DP_TYPE_A:-$DP_TYPE}
DP_TYPE_B=${SIWL_DP_TYPE_B:-$DP_TYPE}
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
	# Interface indexes count per namespace, so both veths would be 2.
	# The in-tree siw binds a wildcard listener to its netdev's index in
	# the namespace of the process listening (Documentation/interop.rst,
	# "Wildcard listen in the caller's namespace"): in ns A that number
	# must not be vethA's, or siw's socket takes vethA's port.
	ip link add "$DP_VA" index "$DP_IDX_A" netns "$DP_A" type veth \
		peer name "$DP_VB" index "$DP_IDX_B" netns "$DP_B" || return 1
	ip -n "$DP_A" addr add "$DP_A4/24" dev "$DP_VA" &&
	ip -n "$DP_B" addr add "$DP_B4/24" dev "$DP_VB" &&
	ip -n "$DP_A" addr add "$DP_A6/64" dev "$DP_VA" nodad &&
	ip -n "$DP_B" addr add "$DP_B6/64" dev "$DP_VB" nodad || return 1
	for ns in "$DP_A" "$DP_B"; do
		ip -n "$ns" link set lo up || return 1
	done
	ip -n "$DP_A" link set "$DP_VA" up && ip -n "$DP_B" link set "$DP_VB" up ||
		return 1
	_dp_links || return 1
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

# _dp_links: the RDMA devices, of types DP_TYPE_A and DP_TYPE_B, on the
# veths (which must exist), active.
_dp_links() {
	ip netns exec "$DP_A" rdma link add "$DP_DA" type "$DP_TYPE_A" \
		netdev "$DP_VA" || return 1
	ip netns exec "$DP_B" rdma link add "$DP_DB" type "$DP_TYPE_B" \
		netdev "$DP_VB" || return 1
	wait_for 10 port_state_is "$DP_DA" "4: ACTIVE" &&
	wait_for 10 port_state_is "$DP_DB" "4: ACTIVE" || {
		echo "ports: $DP_DA $(port_state "$DP_DA"), $DP_DB $(port_state "$DP_DB")" >&2
		return 1
	}
}

# dp_relink TYPE_A TYPE_B: replace both devices by devices of these link
# types, keeping namespaces and veths (a swap of roles between two
# drivers needs no new set-up).
dp_relink() {
	DP_ORIENTED=""
	ip netns exec "$DP_A" rdma link delete "$DP_DA" 2>/dev/null
	ip netns exec "$DP_B" rdma link delete "$DP_DB" 2>/dev/null
	wait_for 10 ibdev_gone "$DP_DA" && wait_for 10 ibdev_gone "$DP_DB" || {
		echo "old devices $DP_DA/$DP_DB did not go away" >&2
		return 1
	}
	DP_TYPE_A=$1
	DP_TYPE_B=$2
	_dp_links
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

# Path of tools/testing/hostile/victim: the host-built one if up to date,
# else built in the scratch directory (the guest sees the tree read-only).
dp_hostile_victim() {
	local dir=$SIW_LITE_TOP/tools/testing/hostile

	if [ -x "$dir/victim" ] && [ ! "$dir/victim.c" -nt "$dir/victim" ]; then
		echo "$dir/victim"
		return 0
	fi
	mkdir -p "$SIWL_TMP/hv" || return 1
	cp "$dir/victim.c" "$dir/Makefile" "$SIWL_TMP/hv/" &&
		make -s -C "$SIWL_TMP/hv" victim >&2 || return 1
	echo "$SIWL_TMP/hv/victim"
}

# Path of verbs_test: the host-built one if up to date, else built into
# the scratch directory (the guest sees the tree read-only).
dp_verbs_test() {
	local src=$SIW_LITE_TOP/tools/testing/verbs_test bin newest

	bin=$src/verbs_test
	newest=$(ls -t "$src"/*.c "$src"/*.h "$src"/../lib/* "$bin" 2>/dev/null |
		 head -n 1)
	if [ -x "$bin" ] && [ "$newest" = "$bin" ]; then
		echo "$bin"
		return 0
	fi
	# the same layout as tools/testing/: the Makefile finds ../lib
	mkdir -p "$SIWL_TMP/vt/verbs_test" "$SIWL_TMP/vt/lib" || return 1
	cp "$src"/*.c "$src"/*.h "$src"/Makefile "$SIWL_TMP/vt/verbs_test/" &&
		cp "$src"/../lib/* "$SIWL_TMP/vt/lib/" || return 1
	make -s -C "$SIWL_TMP/vt/verbs_test" verbs_test >&2 || return 1
	echo "$SIWL_TMP/vt/verbs_test/verbs_test"
}

# Is the server ready?  "re:ERE": its output matches; "port:N": an
# rdma_cm id listens on port N (rdma res show cm_id); "tcp:N": a TCP
# socket listens on port N.
_dp_ready() {
	case $1 in
	re:*)
		grep -Eq -- "${1#re:}" "$DP_SRV_OUT"
		;;
	port:*)
		ip netns exec "$DP_A" rdma res show cm_id 2>/dev/null |
			grep -Eq "LISTEN.*:${1#port:}( |\$)"
		;;
	tcp:*)
		ip netns exec "$DP_A" ss -Hltn "sport = :${1#tcp:}" 2>/dev/null |
			grep -q LISTEN
		;;
	*)
		return 1
		;;
	esac
}

# A server that has exited will never be ready: stop waiting for it (a
# known listen failure would otherwise cost the full 20 s).
_dp_ready_or_gone() {
	kill -0 "$1" 2>/dev/null || return 0
	_dp_ready "$2"
}

# dp_run TIMEOUT READY SERVER_ARGV... --- CLIENT_ARGV...
#
# Starts the server in namespace A, waits (up to 20 s, see _dp_ready)
# until it is READY or has exited, runs the client in namespace B, then waits for the
# server.  Each side is killed after TIMEOUT seconds; a server whose client
# failed gets DP_GRACE seconds (default 15) to notice before it is
# stopped.  Sets DP_SRV_RC and DP_CLI_RC (124: timed out, 143: stopped)
# and leaves the outputs in DP_SRV_OUT and DP_CLI_OUT.
# _dp_split SERVER_ARGV... --- CLIENT_ARGV...: into _dp_srv and _dp_cli.
_dp_split() {
	_dp_srv=()
	while [ $# -gt 0 ] && [ "$1" != "---" ]; do
		_dp_srv+=("$1")
		shift
	done
	shift
	_dp_cli=("$@")
}

dp_run() {
	local tmo=$1 ready=$2 spid end
	local -a srv cli

	shift 2
	_dp_split "$@"
	srv=("${_dp_srv[@]}")
	cli=("${_dp_cli[@]}")

	ip netns exec "$DP_A" timeout -k 5 "$tmo" "${srv[@]}" \
		>"$DP_SRV_OUT" 2>&1 </dev/null &
	spid=$!
	wait_for 20 _dp_ready_or_gone "$spid" "$ready" ||
		diag "server not seen ready ($ready) after 20 s; starting the client anyway"
	kill -0 "$spid" 2>/dev/null ||
		diag "server exited before it was ready; starting the client anyway"
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

# dp_start_bg TIMEOUT READY SERVER_ARGV... --- CLIENT_ARGV...: dp_run's
# start, left running: for a test that looks at the device while traffic
# flows.  DP_SPID and DP_CPID are the two timeout(1)s to kill and wait for.
dp_start_bg() {
	local tmo=$1 ready=$2

	shift 2
	_dp_split "$@"
	ip netns exec "$DP_A" timeout -k 5 "$tmo" "${_dp_srv[@]}" \
		>"$DP_SRV_OUT" 2>&1 </dev/null &
	DP_SPID=$!
	wait_for 20 _dp_ready_or_gone "$DP_SPID" "$ready" ||
		diag "server not seen ready ($ready) after 20 s"
	ip netns exec "$DP_B" timeout -k 5 "$tmo" "${_dp_cli[@]}" \
		>"$DP_CLI_OUT" 2>&1 </dev/null &
	DP_CPID=$!
}

# dp_run_served TIMEOUT READY SERVER_ARGV... --- CLIENT_ARGV...: dp_run
# for a server that serves until stopped (cmtime, iperf, rcopy): it is
# stopped once the client is done, and DP_SRV_RC says whether it was
# still there (0) or had died (its exit code).
dp_run_served() {
	local tmo=$1 ready=$2 pid

	shift 2
	_dp_split "$@"
	ip netns exec "$DP_A" "${_dp_srv[@]}" >"$DP_SRV_OUT" 2>&1 </dev/null &
	pid=$!
	wait_for 20 _dp_ready_or_gone "$pid" "$ready" ||
		diag "server not seen ready ($ready) after 20 s"
	ip netns exec "$DP_B" timeout -k 5 "$tmo" "${_dp_cli[@]}" \
		>"$DP_CLI_OUT" 2>&1 </dev/null
	DP_CLI_RC=$?
	if kill -0 "$pid" 2>/dev/null; then
		DP_SRV_RC=0
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	else
		wait "$pid"
		DP_SRV_RC=$?
	fi
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
	_dp_vt_report "over $fam" $("$vt" --list)
	dp_both_ok "verbs_test over $fam: server and client exit 0"
}

# _dp_vt_report LABEL TEST...: one test point per verbs_test case from
# both sides' TAP lines of the last dp_run.  A case whose only failing
# lines match DP_VT_KNOWN (an ERE, for a documented peer bug) is skipped
# with DP_VT_KNOWN_WHY as the reason instead of failed.
_dp_vt_report() {
	local label=$1 t lines bad nok

	shift
	for t in "$@"; do
		lines=$(grep -hE "^(not )?ok [0-9]+ - $t: (client|server):" \
			"$DP_SRV_OUT" "$DP_CLI_OUT")
		bad=$(grep -E '^not ok' <<<"$lines")
		nok=$(grep -cE '^ok' <<<"$lines")
		if [ -n "$bad" ] && [ -n "${DP_VT_KNOWN:-}" ] &&
		   ! grep -Evq -- "$DP_VT_KNOWN" <<<"$bad"; then
			# only failures the peer is known to cause: say so
			skip "verbs_test $t $label" \
				"known peer gap ($DP_VT_KNOWN_WHY): $(head -n 1 <<<"$bad")"
		elif [ -n "$bad" ]; then
			fail "verbs_test $t $label" "$bad" \
				"$(grep -hE "^# $t: " "$DP_SRV_OUT" "$DP_CLI_OUT" | head -n 20)"
		elif [ "$nok" -eq 0 ]; then
			fail "verbs_test $t $label" "no result from either side"
		elif grep -q '# SKIP' <<<"$lines"; then
			skip "verbs_test $t $label" \
				"$(grep -m1 -o '# SKIP.*' <<<"$lines" | cut -c8-)"
		else
			pass "verbs_test $t $label ($nok checks)"
		fi
	done
}

# The per-wait timeout (seconds) of a cell whose known peer gap leaves
# one side waiting for what never comes: such a cell costs a few of these
# waits, so it gets a shorter one than SIWL_DP_TIMEOUT; still ample for
# its connection and its small messages.
DP_GAP_TIMEOUT=${SIWL_DP_GAP_TIMEOUT:-5}

# dp_vt_cell NAME LABEL TESTS [CLIENT_OPTION...]: verbs_test --test TESTS
# (comma list) between the namespaces, captured as NAME (dp_cap_start).
# Small data by default (SIWL_DP_BUDGET, SIWL_DP_SIZE_MAX).  Test points:
# one per test case, one for both exit codes.  When DP_VT_EVIDENCE names
# a command, failures are put down to DP_VT_KNOWN only if that command
# finds the peer's bug (in the capture, dp_wire_has, or in the
# programs' output); otherwise they count.  When DP_PEER_BYTES_WHY is
# set, wrong bytes a receiver of ours reports in a short message count as
# that known peer gap too, but only if the capture shows the peer sent
# exactly those bytes (_dp_peer_sent_wrong_bytes).
dp_vt_cell() {
	local name=$1 label=$2 tests=$3 vt known=${DP_VT_KNOWN:-}
	local why=${DP_VT_KNOWN_WHY:-}
	local -a common

	shift 3
	vt=$(dp_verbs_test) || {
		fail "verbs_test builds"
		return 1
	}
	dp_next_port
	common=(--port "$DP_PORT" --timeout "${SIWL_DP_TIMEOUT:-20}" --test "$tests")
	kmsg "interop cell $name start"
	dp_cap_start "$name" || diag "no capture for $name"
	dp_run 150 "re:listening on" \
		"$vt" --server --bind "$DP_A4" "${common[@]}" --- \
		"$vt" --client "$DP_A4" --bind "$DP_B4" "${common[@]}" \
		--budget "${SIWL_DP_BUDGET:-1048576}" \
		--size-max "${SIWL_DP_SIZE_MAX:-262144}" "$@"
	dp_cap_stop
	diag "$name: $(grep -m1 '^# seed' "$DP_CLI_OUT")"
	dp_keep "$name"
	if [ -n "$known" ] && [ -n "${DP_VT_EVIDENCE:-}" ] &&
	   grep -qhE '^not ok' "$DP_SRV_OUT" "$DP_CLI_OUT" &&
	   ! $DP_VT_EVIDENCE; then
		diag "$name: the capture does not show the known peer gap ($why): every failure counts"
		known= why=
	fi
	if [ -n "${DP_PEER_BYTES_WHY:-}" ] && _dp_peer_sent_wrong_bytes; then
		known="${known:+$known|}$DP_BYTES_CHECKED"
		why="${why:+$why; }$DP_PEER_BYTES_WHY"
	fi
	DP_VT_KNOWN=$known DP_VT_KNOWN_WHY=$why _dp_vt_report "$label" ${tests//,/ }
	if [ -n "$known" ] &&
	   [ "$DP_SRV_RC" -le 1 ] && [ "$DP_CLI_RC" -le 1 ] &&
	   ! grep -hE '^not ok' "$DP_SRV_OUT" "$DP_CLI_OUT" |
		grep -Evq -- "$known"; then
		dp_keep "$name"
		if [ "$DP_SRV_RC" = 0 ] && [ "$DP_CLI_RC" = 0 ]; then
			pass "verbs_test $tests $label: server and client exit 0"
		else
			skip "verbs_test $tests $label: server and client exit 0" \
				"exit $DP_SRV_RC/$DP_CLI_RC from known peer gaps only ($why)"
		fi
		return 0
	fi
	dp_both_ok "verbs_test $tests $label: server and client exit 0"
}

# verbs_test's points that compare received data byte for byte
DP_BYTES_CHECKED='(client|server): .*every byte checked$'

# _dp_peer_sent_wrong_bytes: verbs_test found wrong data from the peer
# (a failed "every byte checked" point), and every wrong byte it names
# is in a message of at most DP_PEER_BYTES_MAX bytes that went over the
# wire from the peer with exactly that byte at that offset.  Then the
# peer sent it so, and our receive side placed what it got.
_dp_peer_sent_wrong_bytes() {
	local line n=0 len byte got
	local re='\(([0-9]+) bytes[^)]*\): byte ([0-9]+) (\(piece [^)]*\) )?is 0x([0-9a-f]{2}), want 0x[0-9a-f]{2}'
	local bad

	bad=$(grep -hE "^not ok [0-9]+ - [a-z_]+: $DP_BYTES_CHECKED" \
		"$DP_SRV_OUT" "$DP_CLI_OUT" | wc -l)
	[ "$bad" -gt 0 ] || return 1
	while read -r line; do
		[[ $line =~ $re ]] || continue
		len=${BASH_REMATCH[1]} byte=${BASH_REMATCH[2]}
		got=${BASH_REMATCH[4]}
		[ "$len" -le "${DP_PEER_BYTES_MAX:-64}" ] && [ "$byte" -lt "$len" ] ||
			return 1
		dp_wire_has peer "[a-z_]+, $len bytes: ([0-9a-f]{2}){$byte}$got" ||
			return 1
		n=$((n + 1))
	done < <(grep -hE "^# [a-z_]+: (client|server): .*$re" \
		"$DP_SRV_OUT" "$DP_CLI_OUT")
	# each failed point must have named its wrong byte
	[ "$n" -ge "$bad" ]
}

# dp_wire_report: wirecheck's text report (with --payloads) on the last
# capture, in the file $DP_WIRE_REPORT; made once per capture, since a
# cell may ask it several questions.  Status 1 when there is none.
DP_WIRE_REPORT=""
_DP_WIRE_REPORT_OF=""
dp_wire_report() {
	local key

	[ -f "$DP_WIRECHECK" ] && [ -s "$DP_CAP_FILE" ] || return 1
	DP_WIRE_REPORT=$SIWL_TMP/wire_report.txt
	key="$DP_CAP_FILE $(stat -c '%Y %s' "$DP_CAP_FILE")"
	if [ "$key" != "$_DP_WIRE_REPORT_OF" ]; then
		python3 -S -B "$DP_WIRECHECK" --payloads "$DP_CAP_FILE" \
			>"$DP_WIRE_REPORT" 2>&1
		_DP_WIRE_REPORT_OF=$key
	fi
}

# dp_wire_has DIR ERE: does wirecheck's text report on the last capture
# have a line matching ERE for direction DIR ("I->R", "R->I", or "peer"
# and "ours" relative to dp_orient)?  Violation and note lines read
# "VIOLATION DIR @OFFSET [RFC]: TEXT" and "note DIR @OFFSET: TEXT";
# per-direction totals "  DIR: N FPDUs, N payload bytes [op count, ...]";
# short messages "payload DIR @OFFSET: OP, N bytes: HEX" (--payloads).
dp_wire_has() {
	local dir=$1 re=$2

	case $dir in
	peer) dir=$DP_PEER_DIR ;;
	ours) [ "$DP_PEER_DIR" = "I->R" ] && dir="R->I" || dir="I->R" ;;
	esac
	dp_wire_report || return 1
	grep -Eq -- "^ *(VIOLATION |note |payload )?$dir:? .*$re" \
		"$DP_WIRE_REPORT"
}

# dp_cap_run NAME TIMEOUT READY SERVER_ARGV... --- CLIENT_ARGV...: dp_run
# captured as NAME, outputs kept as NAME.{server,client}.log.
dp_cap_run() {
	local name=$1

	shift
	kmsg "interop cell $name start"
	dp_cap_start "$name" || diag "no capture for $name"
	dp_run "$@"
	dp_cap_stop
	dp_keep "$name"
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

# ------------------------------------------------ function traces
#
# For test points that show which code ran (counts of calls, never times).

DP_TR=/sys/kernel/tracing
# Calls are counted with kprobe events on the functions' entries, not
# with the function tracer: setting and resetting that tracer registers
# and drops the scheduler's tracepoint probes (its command-line
# recording), which rewrites __schedule() with text_poke_bp(), and under
# TCG a 6.1 guest's CPU was seen looping in that breakpoint until the
# soft-lockup watchdog fired. Kprobe events patch only the traced
# functions, and with record-cmd and record-tgid off they leave the
# scheduler alone.
DP_KP_GROUP=siwl_fn

# _fn_trace_clear: no kprobe event of ours left, enabled or defined
_fn_trace_clear() {
	local e

	[ -d $DP_TR/events/$DP_KP_GROUP ] &&
		echo 0 >$DP_TR/events/$DP_KP_GROUP/enable
	for e in $(sed -n "s|^[pr]:$DP_KP_GROUP/\([^ ]*\) .*|\1|p" \
		   $DP_TR/kprobe_events 2>/dev/null); do
		echo "-:$DP_KP_GROUP/$e" >>$DP_TR/kprobe_events
	done
}

# fn_trace_start FUNCS: counts calls of FUNCS; 1 if this kernel has no
# kprobe events, 2 if one of FUNCS cannot be probed
fn_trace_start() {
	local f

	[ -e $DP_TR/kprobe_events ] || mount -t tracefs nodev $DP_TR 2>/dev/null
	[ -e $DP_TR/kprobe_events ] || return 1
	_fn_trace_clear
	echo 0 >$DP_TR/options/record-cmd
	echo 0 >$DP_TR/options/record-tgid 2>/dev/null
	for f in $1; do
		echo "p:$DP_KP_GROUP/$f $f" >>$DP_TR/kprobe_events 2>/dev/null ||
			return 2
	done
	echo 16384 >$DP_TR/buffer_size_kb
	: >$DP_TR/trace
	echo 1 >$DP_TR/tracing_on
	echo 1 >$DP_TR/events/$DP_KP_GROUP/enable || return 2
}
# fn_trace_stop FUNCS: the calls of each of FUNCS on one line, in order,
# then the events the trace lost
fn_trace_stop() {
	local f n=()

	echo 0 >$DP_TR/events/$DP_KP_GROUP/enable
	for f in $1; do
		n+=("$(grep -c " $f: (" $DP_TR/trace)")
	done
	echo "${n[*]}"
	cat $DP_TR/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^overrun:/ { o += $2 } END { print o + 0 }'
	_fn_trace_clear
	: >$DP_TR/trace
}

# ------------------------------------------------ interop: the in-tree siw
#
# The peer module is built on the host by scripts/siw-peer.sh (the guest's
# file system is read-only) and looked up here at
#
#   ${SIW_PEER_CACHE:-/var/cache/siw_lite/siw-peer}/<kver>/<variant>/siw.ko
#
# with <kver> the guest's running kernel.  Variants: see siw-peer.sh.

DP_PEER_CACHE=${SIW_PEER_CACHE:-/var/cache/siw_lite/siw-peer}
DP_PEER_VARIANT=""	# variant loaded by dp_peer_load, "" if none
DP_PEER_LOADS=0		# times it loaded one
DP_PEER_WHY=""		# why dp_peer_load failed

dp_peer_ko() {
	echo "$DP_PEER_CACHE/${SIW_LITE_KVER:-$(uname -r)}/${1:-default}/siw.ko"
}

# The peer's devices: ours (dp_relink) that are not siw_lite's.
_dp_peer_devs() {
	local d

	for d in "$DP_DA" "$DP_DB"; do
		ibdev_exists "$d" && [ ! -e "/sys/class/infiniband/$d/siw_lite_abi" ] &&
			echo "$d"
	done
	return 0
}

# dp_peer_unload: delete the peer's devices and unload siw.
dp_peer_unload() {
	local d

	[ -d /sys/module/siw ] || { DP_PEER_VARIANT=""; return 0; }
	for d in $(_dp_peer_devs); do
		ip netns exec "$DP_A" rdma link delete "$d" 2>/dev/null ||
		ip netns exec "$DP_B" rdma link delete "$d" 2>/dev/null ||
		rdma link delete "$d" 2>/dev/null
	done
	wait_for 10 rmmod siw || {
		echo "cannot unload siw" >&2
		return 1
	}
	DP_PEER_VARIANT=""
}

# dp_peer_load [VARIANT]: load the prebuilt in-tree siw (after ib_core and
# libcrc32c), replacing another variant that is loaded; remove the
# devices first (dp_relink makes new ones).  On failure DP_PEER_WHY says
# why, for a skip.
dp_peer_load() {
	local v=${1:-default} ko

	ko=$(dp_peer_ko "$v")
	[ "$DP_PEER_VARIANT" = "$v" ] && [ -d /sys/module/siw ] && return 0
	if [ ! -f "$ko" ]; then
		DP_PEER_WHY="no prebuilt in-tree siw ($ko): run scripts/siw-peer.sh --variant $v on the host"
		return 1
	fi
	if [ -d /sys/module/siw ] && [ -z "$DP_PEER_VARIANT" ]; then
		DP_PEER_WHY="a siw module we did not load is loaded"
		return 1
	fi
	dp_peer_unload || { DP_PEER_WHY="cannot unload siw"; return 1; }
	if ! modprobe -a ib_core libcrc32c 2>"$SIWL_TMP/peer.err" ||
	   ! insmod "$ko" 2>>"$SIWL_TMP/peer.err"; then
		DP_PEER_WHY="cannot load $ko: $(cat "$SIWL_TMP/peer.err")"
		return 1
	fi
	DP_PEER_VARIANT=$v
	# Every load makes new siw devices necessary (dp_orient).
	DP_PEER_LOADS=$((DP_PEER_LOADS + 1))
}

# dp_interop_start: dp_start for a pair siw_lite/siw.  Skips the whole
# script (exit) when the peer has not been built.
dp_interop_start() {
	require_guest
	require_root
	# The captures' checks run beside the next cell (see dp_defer).
	DP_DEFER=1
	if ! dp_peer_load default; then
		skip_rest "$DP_PEER_WHY"
		exit 0
	fi
	on_exit dp_peer_unload
	# siw checks RLIMIT_MEMLOCK for every user MR even for root (no
	# CAP_IPC_LOCK exemption); verbs_test's MRs exceed the default.
	ulimit -l unlimited 2>/dev/null || diag "cannot lift RLIMIT_MEMLOCK"
	DP_TYPE_A=siw
	DP_TYPE_B=$SIWL_TYPE
	# siw_try_1seg() (6.1) copies a short payload that crosses a page
	# boundary wrongly: Documentation/interop.rst, "siw deviations"
	DP_PEER_BYTES_WHY="siw: a message of at most 32 bytes whose one source piece crosses a page boundary goes out with wrong bytes"
	DP_PEER_BYTES_MAX=32
	dp_start
}

# dp_param NAME VALUE: one of siw_lite's settings, for what comes next:
# a module parameter (the MPA policy, cm.c) or a development knob of the
# data path (drivers/siw_lite/tune.h), a file in debugfs.
dp_param() {
	local f=/sys/module/$SIWL_MOD/parameters/$1 dbg=/sys/kernel/debug

	if [ ! -e "$f" ]; then
		mountpoint -q "$dbg" || mount -t debugfs debugfs "$dbg" || return 1
		f=$dbg/$SIWL_MOD/$1
	fi
	echo "$2" >"$f"
}

# dp_mpa_defaults: siw_lite's MPA parameters back to their defaults.
dp_mpa_defaults() {
	dp_param mpa_rev 2 && dp_param mpa_crc 0 && dp_param mpa_rtr N
}

# ---------------------------------------------------- interop: captures
#
# Every interop cell is captured on ns A's veth into
# $SIW_LITE_LOGDIR/interop/NAME.pcap (scratch space without a log
# directory) and, when tools/testing/wirecheck/wirecheck.py exists,
# checked by it.

DP_CAP_PID=""
DP_CAP_FILE=""
DP_CAP_DROPS=""
DP_WIRECHECK=$SIW_LITE_TOP/tools/testing/wirecheck/wirecheck.py

dp_cap_dir() {
	local d

	if [ -n "${SIW_LITE_LOGDIR:-}" ]; then
		d=$SIW_LITE_LOGDIR/interop
	else
		d=$SIWL_TMP/interop
	fi
	mkdir -p "$d" && echo "$d"
}

# dp_cap_start NAME: tcpdump into the guest's tmpfs first (writing
# through to the shared log directory loses packets under TCG), with a
# large buffer; dp_cap_stop moves the file to its place.  -B is in KiB
# and every ring slot holds a whole snapshot (-s 0), so 64 MiB were only
# a few hundred packets: a faster ib_read_bw against siw overran it (371
# packets lost in one CI run); 256 MiB kept that test at 0 drops.
#
# --immediate-mode and -U: without them libpcap collects packets in
# TPACKET_V3 blocks that reach tcpdump only when full or after a timer,
# and the SIGINT of dp_cap_stop discards the block still open - on a
# loaded host a whole short connection (rping -C 20) was lost that way,
# leaving an empty capture.  Packet by packet, the file shows what has
# been seen so far and dp_cap_stop can wait for it to settle.
dp_cap_start() {
	local d

	d=$(dp_cap_dir) || return 1
	DP_CAP_FILE=$d/$1.pcap
	DP_CAP_DROPS=""
	rm -f "$SIWL_TMP/cap.pcap"
	# -Z root: tcpdump would otherwise drop to a user that cannot
	# write to the scratch directory.
	ip netns exec "$DP_A" tcpdump -i "$DP_VA" -s 0 -B 262144 -n -Z root \
		--immediate-mode -U \
		-w "$SIWL_TMP/cap.pcap" >"$SIWL_TMP/tcpdump.err" 2>&1 &
	DP_CAP_PID=$!
	wait_for 10 grep -q "listening on" "$SIWL_TMP/tcpdump.err" || {
		echo "tcpdump did not start: $(cat "$SIWL_TMP/tcpdump.err")" >&2
		return 1
	}
}

# dp_cap_stop: ends the capture; DP_CAP_DROPS is the number of packets
# the kernel dropped (a capture with drops cannot be checked).
dp_cap_stop() {
	local size last=-1 n=0

	[ -n "$DP_CAP_PID" ] || return 0
	# Let the last segments (FIN, RST) reach the file: stop once it has
	# not grown for half a second (at most 10 s; a loaded host is slow).
	# tcpdump writes packet by packet (-U), and both programs have
	# exited by now: the file only has the closing segments to take.
	while [ "$n" -lt 20 ]; do
		sleep 0.5
		size=$(stat -c %s "$SIWL_TMP/cap.pcap" 2>/dev/null || echo 0)
		[ "$size" = "$last" ] && break
		last=$size
		n=$((n + 1))
	done
	kill -INT "$DP_CAP_PID" 2>/dev/null
	wait "$DP_CAP_PID" 2>/dev/null
	DP_CAP_PID=""
	DP_CAP_DROPS=$(sed -nE 's/^([0-9]+) packets? dropped by kernel.*/\1/p' \
		"$SIWL_TMP/tcpdump.err")
	mv "$SIWL_TMP/cap.pcap" "$DP_CAP_FILE" 2>/dev/null
}

# dp_wirecheck DESC PEER_DIR: one test point, the conformance checker on
# the last capture, skipped while the checker does not exist.  PEER_DIR
# is the direction the peer (siw) sends in, "I->R" when it is the
# initiator, "R->I" when it responds: violations in that direction are
# the peer's, listed as diagnostics and collected in
# interop/peer-violations.txt for Documentation/interop.rst; only
# siw_lite's own fail the point.
dp_wirecheck() {
	if [ "${DP_DEFER:-0}" = 1 ]; then
		dp_defer _dp_wirecheck "$@" "$DP_CAP_FILE" "${DP_CAP_DROPS:-0}"
	else
		_dp_wirecheck "$@" "$DP_CAP_FILE" "${DP_CAP_DROPS:-0}"
	fi
}

# _dp_wirecheck DESC PEER_DIR CAPTURE DROPS: dp_wirecheck's work
_dp_wirecheck() {
	local desc=$1 peer=$2 out ours
	local DP_CAP_FILE=$3 DP_CAP_DROPS=$4

	if [ ! -f "$DP_WIRECHECK" ]; then
		skip "wire conformance: $desc" "tools/testing/wirecheck/wirecheck.py not present"
		return 0
	fi
	if [ ! -s "$DP_CAP_FILE" ]; then
		fail "wire conformance: $desc" "no capture $DP_CAP_FILE"
		return 0
	fi
	if [ "${DP_CAP_DROPS:-0}" != 0 ]; then
		fail "wire conformance: $desc" \
			"the capture lost $DP_CAP_DROPS packets: cannot check it"
		return 0
	fi
	# One interpreter, without site initialisation: each start costs
	# seconds under TCG, and this runs for every interop cell.
	out=$(python3 -S -B "$DP_WIRECHECK" --peer-dir "$peer" \
		"$DP_CAP_FILE" 2>"$SIWL_TMP/wc.err")
	if [ $? -ge 2 ]; then
		fail "wire conformance: $desc" "wirecheck.py failed:" \
			"$(cat "$SIWL_TMP/wc.err")" "$out"
		return 0
	fi
	if grep -q '^peer ' <<<"$out"; then
		diag "peer (siw) deviations on the wire, see Documentation/interop.rst:"
		diag "$(grep '^peer ' <<<"$out" | cut -d' ' -f2- | sort | uniq -c | head -n 10)"
		grep '^peer ' <<<"$out" | sed "s|^peer |${DP_CAP_FILE##*/}: |" \
			>>"$(dirname "$DP_CAP_FILE")/peer-violations.txt"
	fi
	ours=$(grep '^ours ' <<<"$out" | cut -d' ' -f2-)
	if [ -n "$ours" ]; then
		fail "wire conformance: $desc" "siw_lite's own violations:" \
			"$(head -n 20 <<<"$ours")"
	else
		pass "wire conformance: $desc"
	fi
}

# dp_tshark ARGS: tshark as every check here needs it.  The MPA
# dissector is a TCP heuristic, and by default a dissector registered on
# a port wins: rdma_cm's random source port once fell in IRC's range
# and the whole connection decoded as IRC, with no MPA frame in it.
dp_tshark() {
	tshark -o tcp.try_heuristic_first:TRUE "$@"
}

# dp_mpa_summary: what the last capture's MPA exchange negotiated, from
# tshark's iWARP dissector (independent of wirecheck), one line each:
#   req REV CRC_FLAG REJECT_FLAG PRIVATE_DATA_HEX
#   rep REV CRC_FLAG REJECT_FLAG PRIVATE_DATA_HEX
#   fpdus N crc_nonzero M
# FPDUs are counted in segments holding exactly one: their last four
# bytes are the CRC field (zero when CRCs are off; tshark does not show
# it when they are on).
dp_mpa_summary() {
	dp_tshark -r "$DP_CAP_FILE" -Y iwarp_mpa -T fields -E occurrence=f \
		-e iwarp_mpa.key.req -e iwarp_mpa.key.rep -e iwarp_mpa.rev \
		-e iwarp_mpa.crc_flag -e iwarp_mpa.rej_flag \
		-e iwarp_mpa.privatedata -e iwarp_mpa.ulpdulength \
		-e tcp.payload 2>/dev/null |
	awk -F '\t' '
		$1 != "" { print "req", $3, $4, $5, ($6 == "" ? "-" : $6); next }
		$2 != "" { print "rep", $3, $4, $5, ($6 == "" ? "-" : $6); next }
		$7 != "" {
			u = $7 + 2; u += (4 - u % 4) % 4
			if (length($8) != 2 * (u + 4)) next
			n++
			if (substr($8, length($8) - 7) != "00000000") c++
		}
		END { printf "fpdus %d crc_nonzero %d\n", n, c }'
}

# dp_orient ROLE [VARIANT]: siw_lite as "client" (ns B, active side;
# siw in ns A) or "server" (ns A; siw in ns B), against siw VARIANT
# (default "default").  Sets DP_PEER_DIR for dp_wirecheck.
#
# Devices already set up that way, on the same siw module, are kept: a
# new pair costs seconds under TCG and every cell connects on a port of
# its own, so nothing of the last cell's connection is in the way.
DP_ORIENTED=""

dp_orient() {
	local role=$1 v=${2:-default} want

	dp_peer_load "$v" || {
		echo "$DP_PEER_WHY" >&2
		DP_ORIENTED=""
		return 1
	}
	[ "$role" = client ] && DP_PEER_DIR="R->I" || DP_PEER_DIR="I->R"
	want=$role/$v/$DP_PEER_LOADS
	if [ "$DP_ORIENTED" = "$want" ] &&
	   port_state_is "$DP_DA" "4: ACTIVE" && port_state_is "$DP_DB" "4: ACTIVE"; then
		return 0
	fi
	DP_ORIENTED=""
	if [ "$role" = client ]; then
		dp_relink siw "$SIWL_TYPE" || return 1
	else
		dp_relink "$SIWL_TYPE" siw || return 1
	fi
	DP_ORIENTED=$want
}

# dp_expect_mpa DESC REQ REP CRC: one test point on the last capture's MPA
# exchange.  REQ and REP are "REV C R" (revision, CRC flag, Reject flag;
# "-" for a frame that must be absent), CRC is "on" or "off": whether
# the FPDUs carry CRCs (non-zero CRC fields) - "-" when no FPDU is
# expected.
dp_expect_mpa() {
	if [ "${DP_DEFER:-0}" = 1 ]; then
		dp_defer _dp_expect_mpa "$@" "$DP_CAP_FILE"
	else
		_dp_expect_mpa "$@" "$DP_CAP_FILE"
	fi
}

# _dp_expect_mpa DESC REQ REP CRC CAPTURE: dp_expect_mpa's work
_dp_expect_mpa() {
	local desc=$1 req=$2 rep=$3 crc=$4 sum got_req got_rep n c got_crc
	local DP_CAP_FILE=$5

	sum=$(dp_mpa_summary | sed -e 's/\bTrue\b/1/g' -e 's/\bFalse\b/0/g')
	got_req=$(awk '$1 == "req" { print $2, $3, $4; exit }' <<<"$sum")
	got_rep=$(awk '$1 == "rep" { print $2, $3, $4; exit }' <<<"$sum")
	read -r _ n _ c < <(grep '^fpdus' <<<"$sum")
	if [ "${n:-0}" -eq 0 ]; then
		got_crc=-
	elif [ "${c:-0}" -eq "$n" ]; then
		got_crc=on
	elif [ "${c:-0}" -eq 0 ]; then
		got_crc=off
	else
		got_crc="mixed ($c of $n)"
	fi
	[ -n "$got_req" ] || got_req=-
	[ -n "$got_rep" ] || got_rep=-
	if [ "$got_req" = "$req" ] && [ "$got_rep" = "$rep" ] &&
	   [ "$got_crc" = "$crc" ]; then
		pass "$desc (Request $req, Reply $rep, CRC $crc)"
	else
		fail "$desc" "expected Request [$req] Reply [$rep] CRC $crc" \
			"got      Request [$got_req] Reply [$got_rep] CRC $got_crc" \
			"capture: $DP_CAP_FILE" "$sum"
	fi
}

# dp_kmsg_since MARK: kernel log lines after the kmsg line MARK.
dp_kmsg_since() {
	dmesg | sed -n "/siw_lite-selftest: $1\$/,\$p"
}

# ------------------------------------------------ deferred checks
#
# Checking a capture (tshark, wirecheck.py) is mostly their start-up, which
# takes seconds under TCG: the interop tests spent two thirds of each cell
# there, on one vCPU, while the other idled.  dp_defer FUNC ARGS... runs
# FUNC in the background instead (one at a time) while the test goes on
# with the next cell; what FUNC reports through pass, fail, skip and diag
# is recorded and replayed, in the order of the dp_defer calls, by
# dp_defer_flush, which lib.sh's exit handler calls too.  The captures a
# deferred check reads must not be touched until then: each cell writes
# its own.

DP_DEFER_N=0
DP_DEFER_DONE=0
DP_DEFER_PID=""

# _dp_rec WORD ARGS...: one replayable call into $_dp_rec_file
_dp_rec() {
	printf '%q ' "$@" >>"$_dp_rec_file"
	echo >>"$_dp_rec_file"
}

dp_defer() {
	local f=$SIWL_TMP/deferred.$DP_DEFER_N

	[ -z "$DP_DEFER_PID" ] || wait "$DP_DEFER_PID"
	: >"$f"
	(
		_dp_rec_file=$f
		pass() { _dp_rec pass "$@"; }
		fail() { _dp_rec fail "$@"; return 0; }
		skip() { _dp_rec skip "$@"; }
		diag() { _dp_rec diag "$@"; }
		"$@"
	) </dev/null >>"$f.log" 2>&1 &
	DP_DEFER_PID=$!
	DP_DEFER_N=$((DP_DEFER_N + 1))
}

# dp_defer_flush: wait for the deferred checks and report them, in order
dp_defer_flush() {
	local f

	[ -z "$DP_DEFER_PID" ] || wait "$DP_DEFER_PID"
	DP_DEFER_PID=""
	while [ "$DP_DEFER_DONE" -lt "$DP_DEFER_N" ]; do
		f=$SIWL_TMP/deferred.$DP_DEFER_DONE
		DP_DEFER_DONE=$((DP_DEFER_DONE + 1))
		if [ ! -s "$f" ]; then
			fail "a deferred check reported nothing" \
				"$(cat "$f.log" 2>/dev/null)"
			continue
		fi
		# shellcheck disable=SC1090
		. "$f"
	done
}
