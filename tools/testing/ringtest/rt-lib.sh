# SPDX-License-Identifier: GPL-2.0
#
# Helpers for selftests/test_60_rings*.sh, sourced after selftests/lib.sh
# and tools/testing/verbs_test/dp-lib.sh: build (if needed) and run ringtest
# between the two namespaces, one test point per case.

# Path of ringtest: the host-built one if up to date, else built in the
# scratch directory (the guest sees the tree read-only).
rt_bin() {
	local src=$SIW_LITE_TOP/tools/testing/ringtest bin newest

	bin=$src/ringtest
	newest=$(ls -t "$src"/*.c "$src"/*.h "$bin" "$src"/../lib/* \
		"$SIW_LITE_TOP/include/uapi/rdma/siw_lite-abi.h" 2>/dev/null |
		head -n 1)
	if [ -x "$bin" ] && [ "$newest" = "$bin" ]; then
		echo "$bin"
		return 0
	fi
	if [ -x "$SIWL_TMP/rt/ringtest" ]; then
		echo "$SIWL_TMP/rt/ringtest"
		return 0
	fi
	mkdir -p "$SIWL_TMP/rt" || return 1
	cp "$src"/*.c "$src"/*.h "$src"/Makefile "$SIWL_TMP/rt/" || return 1
	make -s -C "$SIWL_TMP/rt" LIB="$SIW_LITE_TOP/tools/testing/lib" \
		CPPFLAGS="-I$SIW_LITE_TOP/include/uapi -I$SIW_LITE_TOP/tools/testing/lib" \
		ringtest >&2 || return 1
	echo "$SIWL_TMP/rt/ringtest"
}

# rt_cases SELECTOR: the case names "basic" or "hostile" stands for.
rt_cases() {
	local rt

	rt=$(rt_bin) || return 1
	case $1 in
	hostile)
		"$rt" --list | grep '^hostile_'
		;;
	*)
		"$rt" --list | grep -v '^hostile_'
		;;
	esac
}

# rt_run_cases SELECTOR TIMEOUT: ringtest --test SELECTOR, server in A,
# client in B.  One test point per case (every line of both sides ok, at
# least one from each) and one for both exit codes.
rt_run_cases() {
	local sel=$1 tmo=$2 rt t lines bad nsrv ncli
	local -a common

	rt=$(rt_bin) || {
		fail "ringtest builds"
		return 1
	}
	common=(--port "$DP_PORT" --test "$sel"
		--timeout "${SIWL_RT_TIMEOUT:-15}" --verbose)
	kmsg "ringtest $sel start"
	dp_run "$tmo" "re:listening on" \
		"$rt" --server --bind "$DP_A4" "${common[@]}" --- \
		"$rt" --client "$DP_A4" "${common[@]}"
	dp_keep "ringtest-$sel"
	for t in $(rt_cases "$sel"); do
		lines=$(grep -hE "^(not )?ok [0-9]+ - $t: (client|server):" \
			"$DP_SRV_OUT" "$DP_CLI_OUT")
		bad=$(grep -E '^not ok' <<<"$lines")
		nsrv=$(grep -cE "^ok [0-9]+ - $t: server:" <<<"$lines")
		ncli=$(grep -cE "^ok [0-9]+ - $t: client:" <<<"$lines")
		if [ -n "$bad" ] || [ "$nsrv" -eq 0 ] || [ "$ncli" -eq 0 ]; then
			fail "ringtest $t" "${bad:-no result from one side ($nsrv server, $ncli client points)}" \
				"$(grep -hE "^# .*$t: " "$DP_SRV_OUT" "$DP_CLI_OUT" | tail -n 20)"
		else
			pass "ringtest $t ($nsrv server, $ncli client checks)"
		fi
	done
	dp_both_ok "ringtest $sel: server and client exit 0"
}
