# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers and fixtures for the siw_lite selftests.  Sourced by every
# selftests/test_*.sh; the tests run as root inside a vm-run.sh guest.
#
# TAP: plan N, then one of pass/fail/check/check_fails/expect_eq/expect_match/
# skip per test point, diag for comments, bail to give up.  When the script
# exits, test points it planned but never reached are reported "not ok", so
# a test that dies half way can never look like a pass.  Exit status is 0
# when everything passed (or was skipped), 1 otherwise, 4 (kselftest's SKIP)
# when everything was skipped.
#
# Tests use "set -u" but not "set -e": a failing check must be reported and
# the script must go on, not vanish.

set -u -o pipefail

SIW_LITE_TOP=${SIW_LITE_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)}
SIW_LITE_KO=${SIW_LITE_KO:-$SIW_LITE_TOP/drivers/siw_lite/siw_lite.ko}
: "${RDMAV_DRIVERS:=$SIW_LITE_TOP/tools/provider/libsiw_lite}"
export SIW_LITE_TOP SIW_LITE_KO RDMAV_DRIVERS
SIWL_PROVIDER_SO=${RDMAV_DRIVERS}-rdmav34.so
SIWL_MOD=siw_lite
SIWL_TYPE=siw_lite

# Time bounds scale by SIWL_SLOW: a debug kernel (KASAN, lockdep,
# kmemleak: scripts/debug-kernel.sh) runs the same work several times
# slower, and a bound that fits the stock kernel would fail there for
# nothing.
siwl_debug_kernel() {
	grep -qw kasan_save_stack /proc/kallsyms 2>/dev/null
}
if [ -z "${SIWL_SLOW:-}" ]; then
	siwl_debug_kernel && SIWL_SLOW=4 || SIWL_SLOW=1
fi
export SIWL_SLOW

# Private scratch directory for this test script.
SIWL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/siwl-test.XXXXXX")

_t_plan=0
_t_num=0
_t_failed=0
_t_skipped=0
_t_bailed=0
_t_cleanups=()

# Output of the last run_cmd.
RC=0
OUT=""
ERR=""

echo "TAP version 13"

plan() {
	_t_plan=$1
	echo "1..$1"
}

diag() {
	local line
	# One "# " per line so multi-line outputs stay valid TAP.
	while IFS= read -r line; do
		echo "# $line"
	done <<<"$*"
}

pass() {
	_t_num=$((_t_num + 1))
	echo "ok $_t_num - $1"
}

# fail DESC [DIAGNOSTIC...]
fail() {
	_t_num=$((_t_num + 1))
	_t_failed=$((_t_failed + 1))
	echo "not ok $_t_num - $1"
	shift
	local d
	for d in "$@"; do
		[ -z "$d" ] || diag "$d"
	done
	return 0
}

# skip DESC REASON
skip() {
	_t_num=$((_t_num + 1))
	_t_skipped=$((_t_skipped + 1))
	echo "ok $_t_num - $1 # SKIP $2"
}

# skip_rest REASON: skip every remaining planned test point.
skip_rest() {
	while [ $_t_num -lt $_t_plan ]; do
		skip "not run" "$1"
	done
}

# bail REASON: stop the script; the remaining test points count as failures.
bail() {
	echo "Bail out! $*"
	_t_bailed=1
	exit 1
}

# Register a cleanup function, run (latest first) when the script exits.
on_exit() {
	_t_cleanups=("$1" "${_t_cleanups[@]}")
}

# Drop the registered cleanups (when running them could hang, e.g. after a
# wedged rmmod).
cancel_cleanups() {
	_t_cleanups=()
}

_t_finish() {
	local rc=$? f

	# Checks still running in the background (dp-lib.sh's dp_defer)
	# report before anything is torn down.
	declare -F dp_defer_flush >/dev/null && dp_defer_flush

	for f in "${_t_cleanups[@]}"; do
		"$f" >>"$SIWL_TMP/cleanup.log" 2>&1 || true
	done
	while [ $_t_num -lt $_t_plan ]; do
		fail "not reached (test script ended early, status $rc)"
	done
	if [ $_t_num -gt $_t_plan ]; then
		_t_failed=$((_t_failed + 1))
		diag "ran $_t_num test points but planned $_t_plan"
	fi
	rm -rf "$SIWL_TMP"
	if [ $_t_failed -gt 0 ] || [ $_t_bailed -ne 0 ]; then
		exit 1
	fi
	if [ $_t_plan -gt 0 ] && [ $_t_skipped -eq $_t_plan ]; then
		exit 4
	fi
	exit 0
}
trap _t_finish EXIT

# run_cmd CMD...: run, keep exit status in RC, stdout in OUT, stderr in ERR.
run_cmd() {
	"$@" >"$SIWL_TMP/out" 2>"$SIWL_TMP/err"
	RC=$?
	OUT=$(cat "$SIWL_TMP/out")
	ERR=$(cat "$SIWL_TMP/err")
	return $RC
}

# check DESC CMD...: passes when CMD exits 0.
check() {
	local desc=$1
	shift
	if run_cmd "$@"; then
		pass "$desc"
	else
		fail "$desc" "'$*' exited $RC" "$ERR" "$OUT"
		return 1
	fi
}

# check_fails DESC CMD...: passes when CMD exits non-zero *and* says why on
# stderr (an error nobody can read is a bug too).
check_fails() {
	local desc=$1
	shift
	run_cmd "$@"
	if [ $RC -eq 0 ]; then
		fail "$desc" "'$*' unexpectedly succeeded" "$OUT"
		return 1
	fi
	if [ -z "$ERR" ]; then
		fail "$desc" "'$*' exited $RC but printed no error message"
		return 1
	fi
	pass "$desc"
	diag "  ($* -> exit $RC: $ERR)"
}

# expect_eq DESC ACTUAL EXPECTED
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: '$3'" "got:      '$2'"
		return 1
	fi
}

# expect_match DESC TEXT ERE
expect_match() {
	if grep -Eq -- "$3" <<<"$2"; then
		pass "$1"
	else
		fail "$1" "expected to match /$3/, got:" "$2"
		return 1
	fi
}

# expect_no_match DESC TEXT ERE
expect_no_match() {
	if grep -Eq -- "$3" <<<"$2"; then
		fail "$1" "expected not to match /$3/, got:" "$(grep -E -- "$3" <<<"$2")"
		return 1
	else
		pass "$1"
	fi
}

# wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds, for
# SECONDS x SIWL_SLOW at most.  Device teardown and port events are
# asynchronous, so tests must not race them.
wait_for() {
	local deadline=$(($(date +%s) + $1 * SIWL_SLOW))
	shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# Leave a marker in the kernel log so dmesg can be matched with the tests.
kmsg() {
	echo "siw_lite-selftest: $*" >/dev/kmsg 2>/dev/null || true
}

# ---------------------------------------------------------------- fixtures

# Refuse to run anywhere but the test guest: these tests load modules and
# create network devices.
require_guest() {
	if [ "${SIW_LITE_IN_GUEST:-0}" != 1 ]; then
		bail "run inside the test VM (scripts/vm-run.sh), not on the host"
	fi
}

require_root() {
	[ "$(id -u)" = 0 ] || bail "must run as root"
}

require_module_file() {
	[ -f "$SIW_LITE_KO" ] || bail "$SIW_LITE_KO not built (run make)"
}

require_provider_file() {
	[ -f "$SIWL_PROVIDER_SO" ] || bail "$SIWL_PROVIDER_SO not built (run make)"
}

mod_loaded() {
	[ -d "/sys/module/$SIWL_MOD" ]
}

# Load what siw_lite.ko needs: the RDMA core (vm-guest.sh normally did) and
# whatever modinfo lists as its dependencies (insmod, unlike modprobe, does
# not resolve them, and the list changes as the module grows).
siwl_load_deps() {
	local m deps

	deps=$(modinfo -F depends "$SIW_LITE_KO") || return 1
	for m in ib_core iw_cm rdma_cm ib_uverbs rdma_ucm ${deps//,/ }; do
		modprobe "$m" || return 1
	done
}

# Load siw_lite (and its dependencies) unless it is loaded.
siwl_load() {
	mod_loaded && return 0
	siwl_load_deps && insmod "$SIW_LITE_KO"
}

siwl_unload() {
	! mod_loaded || rmmod "$SIWL_MOD"
}

ibdev_exists() {
	[ -e "/sys/class/infiniband/$1" ]
}

ibdev_gone() {
	[ ! -e "/sys/class/infiniband/$1" ]
}

# Names of the RDMA devices the siw_lite module owns right now.  A device is
# ours when its sysfs directory has the ABI attribute only siw_lite creates.
siwl_devices() {
	local d
	for d in /sys/class/infiniband/*; do
		[ -e "$d/siw_lite_abi" ] && echo "${d##*/}"
	done
	return 0
}

# Netdevs created through add_netdev are deleted again when the test exits.
_siwl_netdevs=()

# add_dummy NAME [ADDR/PREFIX]: an up dummy netdev, optionally addressed.
add_dummy() {
	ip link add "$1" type dummy || return 1
	_siwl_netdevs+=("$1")
	[ $# -lt 2 ] || ip addr add "$2" dev "$1" || return 1
	ip link set "$1" up
}

# add_veth NAME PEER: an up veth pair.
add_veth() {
	ip link add "$1" type veth peer name "$2" || return 1
	_siwl_netdevs+=("$1")
	ip link set "$1" up && ip link set "$2" up
}

# track_netdev NAME: delete NAME at exit (for netdevs made by other means).
track_netdev() {
	_siwl_netdevs+=("$1")
}

del_netdevs() {
	local n
	for n in "${_siwl_netdevs[@]}"; do
		ip link del "$n" 2>/dev/null || true
	done
	_siwl_netdevs=()
}

# link_add NAME NETDEV [TYPE]
link_add() {
	rdma link add "$1" type "${3:-$SIWL_TYPE}" netdev "$2"
}

link_del() {
	rdma link delete "$1"
}

# The port state as the kernel's sysfs has it, e.g. "4: ACTIVE".
port_state() {
	cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null
}

port_state_is() {
	[ "$(port_state "$1")" = "$2" ]
}

# Default cleanup: remove our RDMA links, netdevs and the module, so the
# next test starts from a clean guest.
siwl_cleanup() {
	local d
	for d in $(siwl_devices); do
		rdma link delete "$d" 2>/dev/null || true
	done
	del_netdevs
	siwl_unload 2>/dev/null || true
}

# Path of the verbs_probe helper (see verbs_probe.c): the host-built one if
# it is up to date, else compiled into our scratch directory (the guest sees
# the tree read-only, but has a compiler).
verbs_probe_bin() {
	local src=$SIW_LITE_TOP/selftests/verbs_probe.c
	local bin=$SIW_LITE_TOP/selftests/bin/verbs_probe

	if [ -x "$bin" ] && [ ! "$src" -nt "$bin" ]; then
		echo "$bin"
		return 0
	fi
	bin=$SIWL_TMP/verbs_probe
	[ -x "$bin" ] || cc -O2 -Wall -o "$bin" "$src" -libverbs -ldl >&2 || return 1
	echo "$bin"
}
