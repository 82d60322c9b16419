#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-kernel consumers: an NVMe over Fabrics target (nvmet-rdma) and host
# (nvme-rdma) talk over one siw_lite device. They exercise kernel QPs,
# fast-register MRs, Read with Invalidate and Send with Invalidate; the
# data written through the fabric must read back byte for byte.
. "$(dirname "$0")/lib.sh"

plan 10
require_guest
require_root
require_module_file
kmsg "test_40_nvme_rdma start"

NQN=siwl-test-nqn
CFG=/sys/kernel/config/nvmet
LOOP=
nvme_cleanup() {
	nvme disconnect -n "$NQN" >/dev/null 2>&1 || true
	rm -f "$CFG/ports/1/subsystems/$NQN" 2>/dev/null
	rmdir "$CFG/ports/1" 2>/dev/null
	echo 0 > "$CFG/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$CFG/subsystems/$NQN/namespaces/1" 2>/dev/null
	rmdir "$CFG/subsystems/$NQN" 2>/dev/null
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null
	modprobe -r nvme_rdma nvmet_rdma nvmet 2>/dev/null
	siwl_cleanup
}
on_exit nvme_cleanup

command -v nvme >/dev/null || { skip_rest "nvme-cli is not installed"; exit 0; }
siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/24 || bail "cannot create dummy netdev d0"
check "add siwl0 on d0" link_add siwl0 d0
check "load nvmet-rdma and nvme-rdma" modprobe -a loop nvmet nvmet-rdma nvme-rdma
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

img=$SIWL_TMP/nvme.img
truncate -s 32M "$img"
LOOP=$(losetup -f --show "$img") || bail "no loop device"

mkdir -p "$CFG/subsystems/$NQN/namespaces/1" "$CFG/ports/1"
echo 1 > "$CFG/subsystems/$NQN/attr_allow_any_host"
echo "$LOOP" > "$CFG/subsystems/$NQN/namespaces/1/device_path"
echo 1 > "$CFG/subsystems/$NQN/namespaces/1/enable"
echo rdma > "$CFG/ports/1/addr_trtype"
echo ipv4 > "$CFG/ports/1/addr_adrfam"
echo 192.0.2.1 > "$CFG/ports/1/addr_traddr"
echo 4420 > "$CFG/ports/1/addr_trsvcid"
check "nvmet port on 192.0.2.1:4420 serves the subsystem" \
	ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"

check "nvme connect over rdma" \
	timeout 90 nvme connect -t rdma -n "$NQN" -a 192.0.2.1 -s 4420

dev=
for i in $(seq 50); do
	dev=$(grep -l "^$NQN\$" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null |
	      head -n1 | xargs -r dirname | xargs -r basename)
	[ -n "$dev" ] && [ -b "/dev/${dev}n1" ] && break
	sleep 0.2
done
if [ -n "$dev" ] && [ -b "/dev/${dev}n1" ]; then
	pass "namespace /dev/${dev}n1 appeared"
else
	fail "namespace appeared"
	skip_rest "no namespace"
	exit 0
fi

pattern=$SIWL_TMP/pattern
head -c 8M /dev/urandom > "$pattern"
check "write 8 MiB through the fabric (O_DIRECT)" \
	timeout 120 dd if="$pattern" of="/dev/${dev}n1" bs=1M oflag=direct status=none
check "read 8 MiB back through the fabric (O_DIRECT)" \
	timeout 120 dd if="/dev/${dev}n1" of="$SIWL_TMP/back" bs=1M count=8 iflag=direct status=none
check "data read back equals data written" cmp "$pattern" "$SIWL_TMP/back"
check "the backing file holds the data too" \
	cmp -n 8388608 "$pattern" "$img"
check "nvme disconnect" timeout 60 nvme disconnect -n "$NQN"
