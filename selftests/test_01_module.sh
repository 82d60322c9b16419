#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loading and unloading the module, without any device.
. "$(dirname "$0")/lib.sh"

plan 8
require_guest
require_root
require_module_file
on_exit siwl_cleanup
kmsg "test_01_module start"

siwl_load_deps || bail "cannot load the modules siw_lite depends on"
check "insmod siw_lite.ko" insmod "$SIW_LITE_KO"

run_cmd lsmod
expect_match "lsmod lists siw_lite" "$OUT" "^siw_lite[[:space:]]"

expect_eq "loading alone creates no RDMA device" "$(siwl_devices | xargs)" ""

check "rmmod siw_lite" rmmod siw_lite

run_cmd lsmod
expect_no_match "lsmod no longer lists siw_lite" "$OUT" "^siw_lite[[:space:]]"

if [ -e /sys/module/siw_lite ]; then
	fail "/sys/module/siw_lite is gone"
else
	pass "/sys/module/siw_lite is gone"
fi

expect_eq "no siw_lite RDMA device remains" "$(siwl_devices | xargs)" ""

# Repeated cycles catch state that survives an unload (a stale link-ops
# registration, leaked sysfs entries, ...).
cycles_ok=1
for i in 1 2 3 4 5; do
	if ! insmod "$SIW_LITE_KO" 2>"$SIWL_TMP/err"; then
		cycles_ok=0
		diag "cycle $i: insmod: $(cat "$SIWL_TMP/err")"
		break
	fi
	if ! rmmod siw_lite 2>"$SIWL_TMP/err"; then
		cycles_ok=0
		diag "cycle $i: rmmod: $(cat "$SIWL_TMP/err")"
		break
	fi
done
if [ $cycles_ok = 1 ] && ! mod_loaded; then
	pass "5 insmod/rmmod cycles"
else
	fail "5 insmod/rmmod cycles"
fi
