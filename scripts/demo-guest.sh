#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of scripts/demo.sh, run by scripts/vm-run.sh inside the VM.
# Prints every command before running it, like a terminal session.
set -euo pipefail

if [ "${SIW_LITE_IN_GUEST:-0}" != 1 ]; then
	echo "demo-guest.sh loads modules: run it through scripts/demo.sh" >&2
	exit 2
fi

run() {
	echo
	echo "# $*"
	"$@"
}

# insmod does not resolve dependencies; load what modinfo lists first.
deps=$(modinfo -F depends "$SIW_LITE_KO")
[ -z "$deps" ] || run modprobe -a ${deps//,/ }
run insmod "$SIW_LITE_KO"
run ip link add d0 type dummy
run ip addr add 192.0.2.1/24 dev d0
run ip link set d0 up
run rdma link add siwl0 type siw_lite netdev d0
run rdma link
run ibv_devices
run ibv_devinfo -v -d siwl0
run rdma link delete siwl0
run rmmod siw_lite
echo
echo "# dmesg | grep siw_lite"
dmesg | grep siw_lite
