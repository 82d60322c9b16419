#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The port state follows the netdev's administrative state, as seen in
# sysfs, "rdma link" and (through our provider) ibv_devinfo.
. "$(dirname "$0")/lib.sh"

plan 16
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_05_port_state start"

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/24 || bail "cannot create dummy netdev d0"
link_add siwl0 d0 || bail "cannot add siwl0 on d0"

# expect_state DEV NETDEV SYSFS RDMA VERBS: all three views agree.
expect_state() {
	local dev=$1 nd=$2 sysfs=$3 rdma=$4 verbs=$5

	if wait_for 10 port_state_is "$dev" "$sysfs"; then
		pass "$nd $rdma: sysfs port state '$sysfs'"
	else
		fail "$nd $rdma: sysfs port state '$sysfs'" "got '$(port_state "$dev")'"
	fi
	run_cmd rdma link show "$dev/1"
	expect_match "$nd $rdma: rdma link says state $rdma" "$OUT" "state $rdma "
	run_cmd ibv_devinfo -d "$dev"
	expect_match "$nd $rdma: ibv_devinfo says $verbs" "$OUT" \
		"state:[[:space:]]+$verbs "
	[ $RC -eq 0 ] || diag "ibv_devinfo exited $RC: $ERR"
}

for _ in 1 2; do
	ip link set d0 down
	expect_state siwl0 d0 "1: DOWN" DOWN PORT_DOWN
	ip link set d0 up
	expect_state siwl0 d0 "4: ACTIVE" ACTIVE PORT_ACTIVE
done

# A device created on a netdev that is down starts DOWN.
add_dummy d1 || bail "cannot create d1"
ip link set d1 down
check "add siwl1 on d1 while d1 is down" link_add siwl1 d1
if wait_for 10 port_state_is siwl1 "1: DOWN"; then
	pass "siwl1 starts DOWN"
else
	fail "siwl1 starts DOWN" "got '$(port_state siwl1)'"
fi
ip link set d1 up
if wait_for 10 port_state_is siwl1 "4: ACTIVE"; then
	pass "siwl1 becomes ACTIVE when d1 comes up"
else
	fail "siwl1 becomes ACTIVE when d1 comes up" "got '$(port_state siwl1)'"
fi
if port_state_is siwl0 "4: ACTIVE"; then
	pass "siwl0 was not affected by d1"
else
	fail "siwl0 was not affected by d1" "got '$(port_state siwl0)'"
fi
