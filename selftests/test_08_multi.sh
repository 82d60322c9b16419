#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several siw_lite devices on several netdevs (dummy, veth, loopback) at
# once, and operations on one of them leaving the others alone.
. "$(dirname "$0")/lib.sh"

plan 18
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_08_multi start"

siwl_load || bail "cannot load siw_lite"
for i in 0 1 2 3; do
	add_dummy "d$i" "192.0.2.$((i + 1))/32" || bail "cannot create d$i"
done
add_veth v0 v1 || bail "cannot create veth pair"
ip addr add 192.0.2.20/32 dev v0
ip addr add 192.0.2.21/32 dev v1

# ibdev:netdev pairs
pairs="siwl0:d0 siwl1:d1 siwl2:d2 siwl3:d3 siwlv0:v0 siwlv1:v1 siwllo:lo"
all=""
for p in $pairs; do
	check "add ${p%:*} on ${p#*:}" link_add "${p%:*}" "${p#*:}"
	all+=" ${p%:*}"
done
all=${all# }

# sorted_devices: our devices in a stable order for comparisons.
sorted() { tr ' ' '\n' | sed '/^$/d' | sort | xargs; }

expect_eq "all 7 devices exist" "$(siwl_devices | sorted)" \
	"$(echo "$all" | sorted)"

run_cmd rdma link show
bad=""
for p in $pairs; do
	grep -Eq "^link ${p%:*}/1 .*netdev ${p#*:}( |$)" <<<"$OUT" || bad+=" $p"
done
expect_eq "rdma link shows each device on its own netdev" "${bad:-none}" none

bad=""
for d in $all; do
	wait_for 10 port_state_is "$d" "4: ACTIVE" || bad+=" $d:$(port_state "$d")"
	[ "$(cat "/sys/class/infiniband/$d/node_type")" = "4: RNIC" ] ||
		bad+=" $d:not-RNIC"
done
expect_eq "all devices are RNICs with an ACTIVE port" "${bad:-none}" none

vp=$(verbs_probe_bin) || bail "no verbs_probe helper"
run_cmd "$vp"
bad=""
for d in $all; do
	grep -Eq "^dev=$d provider=siw_lite .* open=ok port1=PORT_ACTIVE$" \
		<<<"$OUT" || bad+=" $d"
done
expect_eq "libibverbs opens all of them through our provider" \
	"${bad:-none}" none
[ -z "$bad" ] || diag "$OUT" "$ERR"

# Port state of one device only.
ip link set d2 down
if wait_for 10 port_state_is siwl2 "1: DOWN"; then
	pass "d2 down: siwl2 goes DOWN"
else
	fail "d2 down: siwl2 goes DOWN" "got '$(port_state siwl2)'"
fi
bad=""
for d in $all; do
	[ "$d" = siwl2 ] || port_state_is "$d" "4: ACTIVE" || bad+=" $d"
done
expect_eq "d2 down: the other devices stay ACTIVE" "${bad:-none}" none
ip link set d2 up
if wait_for 10 port_state_is siwl2 "4: ACTIVE"; then
	pass "d2 up: siwl2 is ACTIVE again"
else
	fail "d2 up: siwl2 is ACTIVE again" "got '$(port_state siwl2)'"
fi

check "rdma link delete siwl1" link_del siwl1
wait_for 10 ibdev_gone siwl1
expect_eq "only siwl1 went away" "$(siwl_devices | sorted)" \
	"$(echo "${all/siwl1/}" | sorted)"

check "ip link del d3" ip link del d3
wait_for 10 ibdev_gone siwl3
expect_eq "only siwl3 went away with d3" "$(siwl_devices | sorted)" \
	"$(echo "${all/siwl1/}" | sed 's/siwl3//' | sorted)"
