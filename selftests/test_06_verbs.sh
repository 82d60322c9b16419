#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device through libibverbs and our provider (RDMAV_DRIVERS).
. "$(dirname "$0")/lib.sh"

plan 11
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_06_verbs start"

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/24 || bail "cannot create dummy netdev d0"
link_add siwl0 d0 || bail "cannot add siwl0 on d0"
wait_for 10 port_state_is siwl0 "4: ACTIVE"

run_cmd ibv_devices
expect_match "ibv_devices lists siwl0" "$OUT" "^[[:space:]]+siwl0[[:space:]]"

export IBV_SHOW_WARNINGS=1
run_cmd ibv_devinfo -v -d siwl0
if [ $RC -eq 0 ]; then
	pass "ibv_devinfo -v -d siwl0 succeeds"
else
	fail "ibv_devinfo -v -d siwl0 succeeds" "exit $RC" "$ERR"
fi
expect_match "ibv_devinfo shows hca_id siwl0" "$OUT" "hca_id:[[:space:]]+siwl0$"
expect_match "ibv_devinfo shows transport iWARP" "$OUT" \
	"transport:[[:space:]]+iWARP"
expect_match "ibv_devinfo shows link_layer Ethernet" "$OUT" \
	"link_layer:[[:space:]]+Ethernet"
expect_match "ibv_devinfo shows PORT_ACTIVE" "$OUT" "state:[[:space:]]+PORT_ACTIVE"
expect_no_match "libibverbs prints no warning for siwl0" "$ERR" \
	"[Ww]arning|couldn't|siw_lite|siwl0"
diag "node_guid $(sed -n 's/^[[:space:]]*node_guid:[[:space:]]*//p' <<<"$OUT")"

vp=$(verbs_probe_bin) || bail "no verbs_probe helper"
run_cmd "$vp" siwl0
expect_match "siwl0 is served by the siw_lite provider" "$OUT" \
	"provider=siw_lite lib=libsiw_lite-rdmav34\.so "
expect_match "siwl0 opens and its port is active" "$OUT" \
	"open=ok port1=PORT_ACTIVE"
[ $RC -eq 0 ] || diag "verbs_probe exited $RC: $ERR"

# Without RDMAV_DRIVERS nothing claims siwl0, which shows it really is our
# provider that serves it (unless it was installed system-wide).
if ls /etc/libibverbs.d/*siw_lite* >/dev/null 2>&1; then
	skip "without RDMAV_DRIVERS siwl0 is unclaimed" \
		"the provider is installed in /etc/libibverbs.d"
	skip "... and libibverbs says so" "provider installed"
else
	run_cmd env -u RDMAV_DRIVERS ibv_devinfo -d siwl0
	if [ $RC -ne 0 ]; then
		pass "without RDMAV_DRIVERS siwl0 is unclaimed"
	else
		fail "without RDMAV_DRIVERS siwl0 is unclaimed" "$OUT"
	fi
	expect_match "... and libibverbs says so" "$ERR" \
		"no userspace device-specific driver found|not found"
fi
