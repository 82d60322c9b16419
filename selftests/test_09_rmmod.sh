#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod with devices present removes all of them and leaves the netdevs.
. "$(dirname "$0")/lib.sh"

plan 9
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_09_rmmod start"

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/32 || bail "cannot create d0"
add_dummy d1 192.0.2.2/32 || bail "cannot create d1"
add_veth v0 v1 || bail "cannot create veth pair"
ip link set d1 down	# one device with its port down

if link_add siwl0 d0 && link_add siwl1 d1 && link_add siwlv0 v0; then
	pass "three devices created"
else
	fail "three devices created"
fi

check "rmmod siw_lite with devices present" rmmod siw_lite

left=""
for d in siwl0 siwl1 siwlv0; do
	ibdev_exists "$d" && left+=" $d"
done
expect_eq "all devices are gone from sysfs" "${left:-none}" none

run_cmd rdma link show
expect_no_match "rdma link shows none of them" "$OUT" "^link siwl"

run_cmd lsmod
expect_no_match "siw_lite is no longer loaded" "$OUT" "^siw_lite[[:space:]]"

missing=""
for n in d0 d1 v0 v1; do
	[ -e "/sys/class/net/$n" ] || missing+=" $n"
done
expect_eq "the netdevs are still there" "${missing:-none}" none

# A reload starts from scratch: the names and netdevs are free again.
check "insmod again" insmod "$SIW_LITE_KO"
if link_add siwl0 d0 && link_add siwl1 d1 && link_add siwlv0 v0; then
	pass "the same devices can be created again"
else
	fail "the same devices can be created again"
fi
check "rmmod again" rmmod siw_lite
