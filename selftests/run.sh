#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every selftests/test_*.sh in order, kselftest style, inside the test
# guest (scripts/vm-run.sh runs this by default):
#
#   selftests/run.sh [PATTERN...]   only tests whose file name contains one
#                                   of the PATTERNs
#
# SIW_LITE_TESTS_ELSEWHERE="PREFIX... : REASON[; PREFIX... : REASON]"
# reports the tests whose names start with one of a group's PREFIXes
# (each "test_...") as skipped, with that group's REASON (no ";" in it):
# test.sh runs the hostile and lifecycle suites on the 6.1 debug kernel,
# not twice on 6.1.  A malformed value stops the run before any test.
#
# Each test's own TAP output is shown indented with "# ", followed by one
# "ok"/"not ok" line per test script.  The last line counts individual test
# points over all scripts:
#
#   N passed, N failed, N skipped
#
# A script that crashes, times out or exits non-zero without reporting a
# failing test point counts as one more failure.  Each script gets 600 s
# (four times that on a debug kernel) unless its header says otherwise in
# a line "# siwl-timeout: SECONDS"; SIW_LITE_TEST_TIMEOUT overrides both.
# Exit status is 0 only if nothing failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# A debug kernel (KASAN in /proc/kallsyms) is several times slower: found
# once here for every test (lib.sh looks itself only when run alone).
if [ -z "${SIWL_SLOW:-}" ]; then
	SIWL_SLOW=1
	grep -qw kasan_save_stack /proc/kallsyms 2>/dev/null && SIWL_SLOW=4
fi
export SIWL_SLOW
per_test_timeout=${SIW_LITE_TEST_TIMEOUT:-$((600 * SIWL_SLOW))}
filters=("$@")
IFS=';' read -r -a elsewhere <<<"${SIW_LITE_TESTS_ELSEWHERE:-}"
# A reason with a ";" once split into a "group" of ordinary words, and
# "on" skipped test_45_wire_conformance: every group must be prefixes,
# a colon and a reason.  Parsed once here: else_prefixes[i] (words) and
# else_why[i] per group.
else_prefixes=()
else_why=()
for group in "${elsewhere[@]}"; do
	read -r -a pats <<<"${group%%:*}"
	bad=""
	[[ $group == *:* ]] && [ -n "${group#*:}" ] && [ ${#pats[@]} -gt 0 ] ||
		bad="not PREFIX... : REASON"
	for p in "${pats[@]}"; do
		[[ $p == test_* ]] || bad="\"$p\" is not a test name prefix"
	done
	if [ -n "$bad" ]; then
		echo "run.sh: SIW_LITE_TESTS_ELSEWHERE group \"$group\": $bad" >&2
		echo "0 passed, 1 failed, 0 skipped"
		exit 2
	fi
	why=${group#*:}
	else_prefixes+=("${pats[*]}")
	else_why+=("${why#"${why%%[![:space:]]*}"}")
done

# starts_with NAME PREFIX...: NAME starts with one of the PREFIXes.
starts_with() {
	local name=$1 p
	shift
	for p in "$@"; do
		[[ $name == "$p"* ]] && return 0
	done
	return 1
}

# matches NAME PATTERN...: NAME contains one of the PATTERNs (none: all).
matches() {
	local name=$1 p
	shift
	[ $# = 0 ] && return 0
	for p in "$@"; do
		[[ $name == *"$p"* ]] && return 0
	done
	return 1
}

if [ "${SIW_LITE_IN_GUEST:-0}" != 1 ]; then
	echo "run.sh: these tests load modules and create netdevs; run them" \
		"in the VM: scripts/vm-run.sh" >&2
	exit 2
fi

tests=()
for t in "$here"/test_*.sh; do
	[ -e "$t" ] || continue
	matches "${t##*/}" "${filters[@]}" || continue
	tests+=("$t")
done

passed=0
failed=0
skipped=0
scripts_failed=()
work=$(mktemp -d "${TMPDIR:-/tmp}/siwl-run.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "TAP version 13"
echo "1..${#tests[@]}"

n=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	name=${t##*/}
	echo "# selftests: siw_lite: $name"
	why=""
	for i in "${!else_prefixes[@]}"; do
		read -r -a pats <<<"${else_prefixes[$i]}"
		if starts_with "$name" "${pats[@]}"; then
			why=${else_why[$i]}
			break
		fi
	done
	if [ -n "$why" ]; then
		echo "ok $n selftests: siw_lite: $name # SKIP $why"
		skipped=$((skipped + 1))
		continue
	fi
	t_pass=0
	t_fail=0
	t_skip=0
	start=$(date +%s)
	t_timeout=$per_test_timeout
	if [ -z "${SIW_LITE_TEST_TIMEOUT:-}" ]; then
		own=$(sed -n 's/^# siwl-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
		[ -n "$own" ] && t_timeout=$((own * SIWL_SLOW))
	fi

	# Show the test's output live while counting its test points.
	while IFS= read -r line; do
		printf '# %s\n' "$line"
		case $line in
		"not ok "*)		t_fail=$((t_fail + 1)) ;;
		"ok "*"# SKIP"*)	t_skip=$((t_skip + 1)) ;;
		"ok "*)			t_pass=$((t_pass + 1)) ;;
		esac
	done < <(cd "$here" && timeout --kill-after=10 "$t_timeout" \
			bash "$t" </dev/null 2>&1
		 echo $? >"$work/rc")
	rc=$(cat "$work/rc" 2>/dev/null || echo 255)

	extra=""
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		extra="timed out after ${t_timeout}s"
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ $t_fail -eq 0 ]; then
		extra="exited $rc without reporting a failure"
	fi
	if [ -n "$extra" ]; then
		echo "# $name: $extra"
		t_fail=$((t_fail + 1))
	fi

	passed=$((passed + t_pass))
	failed=$((failed + t_fail))
	skipped=$((skipped + t_skip))
	secs=$(($(date +%s) - start))
	if [ $t_fail -gt 0 ]; then
		echo "not ok $n selftests: siw_lite: $name # ${secs}s"
		scripts_failed+=("$name")
	elif [ "$rc" = 4 ]; then
		echo "ok $n selftests: siw_lite: $name # SKIP"
	else
		echo "ok $n selftests: siw_lite: $name # ${secs}s"
	fi

	# Whatever a test left behind must not leak into the next one.
	if [ -d /sys/module/siw_lite ]; then
		echo "# $name left siw_lite loaded; unloading it"
		for d in /sys/class/infiniband/*; do
			[ -e "$d/siw_lite_abi" ] &&
				rdma link delete "${d##*/}" >/dev/null 2>&1
		done
		rmmod siw_lite >/dev/null 2>&1 || true
	fi
done

[ ${#scripts_failed[@]} -eq 0 ] || echo "# failed: ${scripts_failed[*]}"
echo "# Totals: pass:$passed fail:$failed skip:$skipped"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
