#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tearing devices down while a process holds a verbs context (and a PD).
#
# The kernel either disassociates the context or, for a driver without
# disassociate support, pins the module (rmmod says "in use") and makes
# ib_unregister_device() wait for the process to close.  Either way:
#  - rmmod must complete at once, succeeding or refusing, never hang;
#  - rdma link delete may wait for the holder, but must finish after it;
#  - ip link del may wait for the holder too, but must not hold RTNL (all of
#    networking) meanwhile;
#  - once the holder is gone everything unloads cleanly.
# Last in the list because a bug here can wedge the kernel for good.
. "$(dirname "$0")/lib.sh"

plan 11
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_10_rmmod_busy start"

hold_secs=6
slack=60
holder=""

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/24 || bail "cannot create d0"
vp=$(verbs_probe_bin) || bail "no verbs_probe helper"

# start_holder IBDEV: a background process keeping IBDEV open.
start_holder() {
	"$vp" --hold $hold_secs "$1" >"$SIWL_TMP/hold.out" 2>&1 &
	holder=$!
	if wait_for 20 grep -q holding "$SIWL_TMP/hold.out"; then
		pass "a process holds $1 open"
	else
		fail "a process holds $1 open" "$(cat "$SIWL_TMP/hold.out")"
	fi
}

stop_holder() {
	wait "$holder" 2>/dev/null
	diag "holder: $(tr '\n' ' ' <"$SIWL_TMP/hold.out")"
}

# bg_start CMD...: run CMD in the background (output in bg.out).
# bg_finish DESC LIMIT: report whether it finished within LIMIT seconds of
# its start; sets RC and ELAPSED.  A stuck command is left behind (it is
# probably in D state and could not be killed anyway).
STUCK=0
bg_start() {
	BG_CMD="$*"
	BG_START=$(date +%s)
	"$@" >"$SIWL_TMP/bg.out" 2>&1 &
	BG_PID=$!
}

bg_finish() {
	local desc=$1 limit=$2

	while kill -0 $BG_PID 2>/dev/null &&
	      [ $(($(date +%s) - BG_START)) -lt "$limit" ]; do
		sleep 0.2
	done
	ELAPSED=$(($(date +%s) - BG_START))
	if kill -0 $BG_PID 2>/dev/null; then
		STUCK=1
		RC=-1
		fail "$desc" "'$BG_CMD' still running after ${limit}s" \
			"$(cat /proc/$BG_PID/stack 2>/dev/null)"
		return 1
	fi
	wait $BG_PID
	RC=$?
	pass "$desc"
	diag "  ('$BG_CMD' -> exit $RC after ${ELAPSED}s: $(cat "$SIWL_TMP/bg.out"))"
}

# timed DESC LIMIT CMD...
timed() {
	local desc=$1 limit=$2
	shift 2
	bg_start "$@"
	bg_finish "$desc" "$limit"
}

# After a stuck command, further steps (and the cleanup) would only block on
# the same stuck teardown.
stop_if_stuck() {
	[ $STUCK = 1 ] || return 0
	skip_rest "a teardown is stuck"
	cancel_cleanups
	exit 1
}

# 1) rmmod under a live context.
link_add siwl0 d0 || bail "cannot add siwl0"
start_holder siwl0
timed "rmmod with an open context returns promptly" $((hold_secs - 2)) \
	rmmod siw_lite
if [ $STUCK = 0 ] && [ $RC -ne 0 ]; then
	# Refused: it must say why and leave a working device.
	if grep -q "in use" "$SIWL_TMP/bg.out" && ibdev_exists siwl0; then
		pass "refused rmmod says 'in use' and keeps siwl0"
	else
		fail "refused rmmod says 'in use' and keeps siwl0"
	fi
elif [ $STUCK = 0 ]; then
	# siw_lite disassociates: the module went, and the device with it.
	if ! mod_loaded && ! ibdev_exists siwl0; then
		pass "rmmod disassociated the live context: siw_lite and siwl0 are gone"
	else
		fail "rmmod disassociated the live context: siw_lite and siwl0 are gone" \
			"$(lsmod | grep siw_lite; rdma link show 2>&1)"
	fi
fi
stop_holder

stop_if_stuck

# 2) rdma link delete under a live context: may wait for the holder.
siwl_load
ibdev_exists siwl0 || link_add siwl0 d0 || bail "cannot add siwl0"
start_holder siwl0
timed "rdma link delete with an open context completes" \
	$((hold_secs + slack)) rdma link delete siwl0
if [ $STUCK = 0 ] && [ $RC -eq 0 ] && wait_for 10 ibdev_gone siwl0; then
	pass "siwl0 is gone after the delete"
else
	fail "siwl0 is gone after the delete" "exit $RC"
fi
stop_holder
stop_if_stuck

# 3) ip link del under a live context.  The ib core keeps its reference on
# the netdev until the device is deallocated, i.e. after the holder closes,
# so "ip link del" may wait for the holder (rxe behaves the same); but RTNL
# must not be held meanwhile, or all of networking would hang on a user
# process.
link_add siwl0 d0 || bail "cannot add siwl0"
start_holder siwl0
bg_start ip link del d0
sleep 1
start=$(date +%s)
track_netdev d9
if ip link add d9 type dummy && ip link del d9; then
	secs=$(($(date +%s) - start))
	if [ $secs -lt $((hold_secs - 3)) ]; then
		pass "RTNL is free while ip link del d0 is pending"
	else
		fail "RTNL is free while ip link del d0 is pending" \
			"ip link add/del of another netdev took ${secs}s"
	fi
else
	fail "RTNL is free while ip link del d0 is pending" "ip link add d9 failed"
fi
bg_finish "ip link del with an open context completes" $((hold_secs + slack))
[ $STUCK = 1 ] || [ "$ELAPSED" -lt $((hold_secs - 2)) ] ||
	diag "ip link del waited for the holder (${ELAPSED}s)"
stop_holder
stop_if_stuck
if wait_for $slack ibdev_gone siwl0; then
	pass "siwl0 went away with d0"
else
	fail "siwl0 went away with d0"
fi

# 4) Nothing is pinned any more.
check "rmmod succeeds once the holders are gone" rmmod siw_lite
