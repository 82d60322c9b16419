#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# siw_lite next to soft-RoCE (rdma_rxe, part of Debian's kernel): our
# provider must claim only siw_lite devices, even an rxe device whose name
# starts like ours ("siwlrxe"), and the module must not touch rxe devices.
. "$(dirname "$0")/lib.sh"

plan 13
require_guest
require_root
require_module_file

rxe_cleanup() {
	rdma link delete rxe0 2>/dev/null
	rdma link delete siwlrxe 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
	return 0
}
on_exit siwl_cleanup
on_exit rxe_cleanup
kmsg "test_07_rxe_coexist start"

if ! modprobe rdma_rxe 2>"$SIWL_TMP/err"; then
	diag "modprobe rdma_rxe: $(cat "$SIWL_TMP/err")"
	skip_rest "rdma_rxe is not available"
	exit 0
fi

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/32 || bail "cannot create d0"
add_dummy d1 192.0.2.2/32 || bail "cannot create d1"
add_dummy d2 192.0.2.3/32 || bail "cannot create d2"

check "add siw_lite device siwl0 on d0" link_add siwl0 d0
check "add rxe device rxe0 on d1" link_add rxe0 d1 rxe
check "add rxe device siwlrxe on d2" link_add siwlrxe d2 rxe
wait_for 10 port_state_is siwl0 "4: ACTIVE"

expect_eq "only siwl0 carries the siw_lite ABI attribute" \
	"$(siwl_devices | xargs)" "siwl0"

vp=$(verbs_probe_bin) || bail "no verbs_probe helper"
export IBV_SHOW_WARNINGS=1

run_cmd "$vp"
diag "$OUT"
all_err=$ERR

run_cmd "$vp" rxe0
expect_match "rxe0 is served by the rxe provider" "$OUT" "provider=rxe "
all_err+=$ERR
run_cmd "$vp" siwlrxe
expect_match "siwlrxe is served by the rxe provider, not ours" "$OUT" \
	"provider=rxe "
all_err+=$ERR
run_cmd "$vp" siwl0
expect_match "siwl0 is still served by ours" "$OUT" "provider=siw_lite "
all_err+=$ERR
expect_no_match "no libibverbs warnings with both providers loaded" \
	"$all_err" "[Ww]arning|couldn't"

run_cmd ibv_devinfo -d siwlrxe
expect_match "ibv_devinfo -d siwlrxe works (InfiniBand transport)" "$OUT" \
	"transport:[[:space:]]+InfiniBand"
[ $RC -eq 0 ] || diag "ibv_devinfo exited $RC: $ERR"

run_cmd ibv_devices
missing=""
for d in siwl0 rxe0 siwlrxe; do
	grep -Eq "^[[:space:]]+${d}[[:space:]]" <<<"$OUT" || missing+=" $d"
done
expect_eq "ibv_devices lists all three devices" "${missing:-none}" none

# Unloading siw_lite removes its own devices only.
check "rmmod siw_lite" rmmod siw_lite
if ibdev_exists rxe0 && ibdev_exists siwlrxe; then
	pass "rxe devices survive the rmmod"
else
	fail "rxe devices survive the rmmod" \
		"left: $(cd /sys/class/infiniband && echo *)"
fi
if wait_for 10 ibdev_gone siwl0; then
	pass "siwl0 is gone after the rmmod"
else
	fail "siwl0 is gone after the rmmod"
fi
