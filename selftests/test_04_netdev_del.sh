#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Deleting the netdev under a siw_lite device must tear the device down.
. "$(dirname "$0")/lib.sh"

plan 10
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_04_netdev_del start"

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/24 || bail "cannot create dummy netdev d0"

check "add siwl0 on d0" link_add siwl0 d0
check "ip link del d0" ip link del d0

if wait_for 10 ibdev_gone siwl0; then
	pass "siwl0 went away with d0"
else
	fail "siwl0 went away with d0" "still in /sys/class/infiniband"
fi

run_cmd rdma link show
expect_no_match "rdma link no longer shows siwl0" "$OUT" "^link siwl0/"

# Deleting one end of a veth pair deletes both: two devices at once.
add_veth v0 v1 || bail "cannot create veth pair"
ip addr add 192.0.2.20/32 dev v0
ip addr add 192.0.2.21/32 dev v1
if link_add siwlv0 v0 && link_add siwlv1 v1; then
	pass "add siwlv0 on v0 and siwlv1 on v1"
else
	fail "add siwlv0 on v0 and siwlv1 on v1"
fi
check "ip link del v0 (removes v1 too)" ip link del v0

if wait_for 10 ibdev_gone siwlv0 && wait_for 10 ibdev_gone siwlv1; then
	pass "both veth devices went away"
else
	fail "both veth devices went away" "left: $(siwl_devices | xargs)"
fi

# Nothing of the old device may linger under the reused names.
add_dummy d0 192.0.2.1/24 || bail "cannot re-create d0"
check "a new d0 can get a device named siwl0 again" link_add siwl0 d0
if wait_for 10 port_state_is siwl0 "4: ACTIVE"; then
	pass "new siwl0 is ACTIVE"
else
	fail "new siwl0 is ACTIVE" "state: $(port_state siwl0)"
fi

check "rmmod siw_lite afterwards" rmmod siw_lite
