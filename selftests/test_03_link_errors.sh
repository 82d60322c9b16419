#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma link add requests the module must refuse.  Each must fail with a
# non-zero exit and an error message, and must not leave a device behind.
. "$(dirname "$0")/lib.sh"

plan 17
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_03_link_errors start"

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/24 || bail "cannot create dummy netdev d0"
add_dummy d1 192.0.2.2/32 || bail "cannot create dummy netdev d1"
link_add siwl0 d0 || bail "cannot add siwl0 on d0"

# Every refused request is checked against the devices that existed before
# it, so one wrongly accepted request does not fail the following ones.
snapshot() {
	before=$(siwl_devices | sort | xargs)
}

# no_new_device DESC
no_new_device() {
	local now
	now=$(siwl_devices | sort | xargs)
	if [ "$now" = "$before" ]; then
		pass "$1"
	else
		fail "$1" "siw_lite devices before: $before" "now: $now"
	fi
}

snapshot
check_fails "link add on a missing netdev fails" link_add siwlx nosuchdev0
no_new_device "... and creates no device"

check_fails "link add with a duplicate name fails" link_add siwl0 d1
no_new_device "... and creates no device on the other netdev"

check_fails "a second device on the same netdev fails" link_add siwl1 d0
no_new_device "... and creates no device"

# Tunnels with link types of their own are refused; a pure IP device
# without a link layer (tun) is accepted, see Documentation/siw_lite.rst.
# make_tun etc. create the netdev named $1; a failure means the guest kernel
# lacks the driver, which is a skip rather than a siw_lite failure.
# /dev/net/tun only appears once the tun module is loaded.
make_tun() { modprobe tun && ip tuntap add dev "$1" mode tun; }
make_ipip() { ip link add "$1" type ipip local 192.0.2.10 remote 192.0.2.11; }
make_gre() { ip link add "$1" type gre local 192.0.2.12 remote 192.0.2.13; }
make_sit() { ip link add "$1" type sit local 192.0.2.14 remote 192.0.2.15; }

for kind in ipip gre sit; do
	nd=sl_$kind
	if ! "make_$kind" "$nd" 2>"$SIWL_TMP/mk.err"; then
		skip "link add on a $kind netdev fails" \
			"cannot create $kind netdev: $(head -n1 "$SIWL_TMP/mk.err")"
		skip "... and creates no device" "no $kind netdev"
		continue
	fi
	track_netdev "$nd"
	ip link set "$nd" up 2>/dev/null
	diag "$nd: link type $(cat "/sys/class/net/$nd/type")"
	snapshot
	check_fails "link add on a $kind netdev fails" link_add "siwl$kind" "$nd"
	no_new_device "... and creates no device"
done

if make_tun sl_tun 2>"$SIWL_TMP/mk.err"; then
	track_netdev sl_tun
	check "link add on a tun netdev (no link layer) works" \
		link_add siwltun sl_tun
	check "... and the tun device can be deleted" link_del siwltun
else
	skip "link add on a tun netdev works" "cannot create tun: $(head -n1 "$SIWL_TMP/mk.err")"
	skip "... and the tun device can be deleted" "no tun netdev"
fi

if port_state_is siwl0 "4: ACTIVE"; then
	pass "siwl0 is unaffected by the failed requests"
else
	fail "siwl0 is unaffected by the failed requests" "state: $(port_state siwl0)"
fi

# All refused requests are gone for good: d1 is still free to use.
check "d1 can still get a device" link_add siwl1 d1
check "delete siwl1" link_del siwl1
