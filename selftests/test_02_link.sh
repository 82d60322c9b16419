#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma link add/delete on a dummy netdev and the attributes of the device.
. "$(dirname "$0")/lib.sh"

plan 19
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_02_link start"

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/24 || bail "cannot create dummy netdev d0"

check "rdma link add siwl0 type siw_lite netdev d0" link_add siwl0 d0

if ibdev_exists siwl0; then
	pass "/sys/class/infiniband/siwl0 exists"
else
	fail "/sys/class/infiniband/siwl0 exists"
fi

run_cmd rdma link show
expect_match "rdma link shows siwl0/1 on netdev d0" "$OUT" \
	"^link siwl0/1 .*netdev d0( |$)"

run_cmd rdma dev show siwl0
expect_match "rdma dev show siwl0 reports node_type rnic" "$OUT" \
	"siwl0: node_type rnic"

expect_eq "node_type is '4: RNIC'" \
	"$(cat /sys/class/infiniband/siwl0/node_type 2>&1)" "4: RNIC"

expect_eq "siw_lite_abi attribute is 1" \
	"$(cat /sys/class/infiniband/siwl0/siw_lite_abi 2>&1)" "1"

# The release in VERSION reaches the device: fw_ver in sysfs, and the
# provider renders the numeric firmware version the same.
ver=$(cat "$SIW_LITE_TOP/VERSION")
expect_eq "fw_ver attribute is the release and the ABI" \
	"$(cat /sys/class/infiniband/siwl0/fw_ver 2>&1)" "$ver (abi 1)"
expect_eq "modinfo says version $ver" \
	"$(modinfo -F version "$SIW_LITE_KO" 2>&1)" "$ver"
run_cmd ibv_devinfo -d siwl0
expect_match "ibv_devinfo says fw_ver $ver" "$OUT" "fw_ver:[[:space:]]+$ver$"

if wait_for 10 port_state_is siwl0 "4: ACTIVE"; then
	pass "port 1 is ACTIVE while d0 is up"
else
	fail "port 1 is ACTIVE while d0 is up" "state: $(port_state siwl0)"
fi

run_cmd rdma link show siwl0/1
expect_match "rdma link show siwl0/1 says state ACTIVE" "$OUT" "state ACTIVE"

expect_eq "port 1 link_layer is Ethernet" \
	"$(cat /sys/class/infiniband/siwl0/ports/1/link_layer 2>&1)" "Ethernet"

check "rdma link delete siwl0" link_del siwl0

if wait_for 10 ibdev_gone siwl0; then
	pass "/sys/class/infiniband/siwl0 is gone"
else
	fail "/sys/class/infiniband/siwl0 is gone"
fi

run_cmd rdma link show
expect_no_match "rdma link no longer shows siwl0" "$OUT" "^link siwl0/"

check "netdev d0 survives the link delete" ip link show d0

# The name and the netdev must be free for reuse after a delete.
check "the same name can be added again" link_add siwl0 d0
if wait_for 10 port_state_is siwl0 "4: ACTIVE"; then
	pass "re-added device is ACTIVE"
else
	fail "re-added device is ACTIVE" "state: $(port_state siwl0)"
fi
check "and deleted again" link_del siwl0
