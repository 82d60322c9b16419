#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iSER: an LIO iSCSI target (ib_isert) with a file-backed LUN and the
# open-iscsi initiator (ib_iser, iface.transport_name=iser) log in over one
# siw_lite device; a pattern written to the block device through the fabric
# must read back byte for byte and be in the backing file; the same 32 MiB
# over iSER and over iSCSI/TCP is timed for the record (diag lines only).
#
# One guest, one namespace: isert and the iser initiator create their
# rdma_cm ids in the initial network namespace whatever the caller's, so
# target and initiator share it, as nvmet/nvme-rdma do in test_40.
#
# The portal (Documentation/ulps.rst, "iSER"): LIO opens a portal's
# iSCSI/TCP listener first and adds the iSER listener on the same address
# and port when "iser" is switched on.  siw_lite listens with kernel TCP,
# so in one namespace that second listen finds the port taken (EADDRINUSE),
# as the first test point below shows.  The TCP listener is opened in the
# namespace of the process creating the portal, so the iSER portal is
# created from a scratch namespace that holds the same address: its TCP
# listener lands there, and the iSER listener has the port in ours.
. "$(dirname "$0")/lib.sh"

plan 23
require_guest
require_root
require_module_file
kmsg "test_42_iser start"

for prog in iscsid iscsiadm; do
	command -v "$prog" >/dev/null && continue
	skip_rest "$prog is not installed (open-iscsi)"
	exit 0
done

IQN=iqn.2026-12.org.siw-lite:target
T=/sys/kernel/config/target/iscsi/$IQN/tpgt_1
BS=/sys/kernel/config/target/core/fileio_0/siwl
ADDR=192.0.2.1
ISER_PORT=3260
TCP_PORT=3261
CLASH_PORT=3262
PORTAL_NS=siwl-portal
IMG=$SIWL_TMP/lun.img
IMG_SIZE=$((48 << 20))
ISCSID_PID=

iser_cleanup() {
	iscsiadm -m node -u >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	[ -z "$ISCSID_PID" ] || { kill "$ISCSID_PID"; wait "$ISCSID_PID"; }
	echo 0 >"$T/enable" 2>/dev/null
	rmdir "$T"/np/* 2>/dev/null
	rm -f "$T"/lun/lun_0/siwl 2>/dev/null
	rmdir "$T"/lun/lun_0 "$T" "${T%/tpgt_1}" 2>/dev/null
	rmdir "$BS" "${BS%/siwl}" 2>/dev/null
	ip netns del "$PORTAL_NS" 2>/dev/null
	mountpoint -q /etc/iscsi && umount /etc/iscsi
	modprobe -r ib_iser ib_isert iscsi_target_mod target_core_file \
		target_core_mod 2>/dev/null
	siwl_cleanup
}
on_exit iser_cleanup

# open-iscsi keeps its node database in /etc/iscsi: a tmpfs with copies of
# the configuration gives the test its own, whatever the machine has.
iser_etc() {
	mkdir -p "$SIWL_TMP/etc" &&
	cp /etc/iscsi/iscsid.conf /etc/iscsi/initiatorname.iscsi "$SIWL_TMP/etc/" &&
	mount -t tmpfs -o size=4M,mode=755 siwl-iscsi /etc/iscsi &&
	cp "$SIWL_TMP"/etc/* /etc/iscsi/ &&
	mkdir -p /run/lock/iscsi
}

# The LUN and the target, without portals.
iser_target() {
	truncate -s "$IMG_SIZE" "$IMG" &&
	mkdir -p "$BS" &&
	echo "fd_dev_name=$IMG,fd_dev_size=$IMG_SIZE" >"$BS/control" &&
	echo 1 >"$BS/enable" &&
	mkdir -p "$T/lun/lun_0" &&
	ln -s "$BS" "$T/lun/lun_0/siwl" &&
	echo 0 >"$T/attrib/authentication" &&
	echo 1 >"$T/attrib/generate_node_acls" &&
	echo 1 >"$T/attrib/cache_dynamic_acls" &&
	echo 0 >"$T/attrib/demo_mode_write_protect"
}

# iser_portal_ns: the scratch namespace holding ADDR, for the portal's
# TCP listener.
iser_portal_ns() {
	ip netns add "$PORTAL_NS" &&
	ip -n "$PORTAL_NS" link add pd0 type dummy &&
	ip -n "$PORTAL_NS" addr add "$ADDR/32" dev pd0 &&
	ip -n "$PORTAL_NS" link set pd0 up
}

# iser_on PORT: switch iSER on for the portal on ADDR:PORT.
iser_on() {
	echo 1 >"$T/np/$ADDR:$1/iser"
}

siwl_load || bail "cannot load siw_lite"
add_dummy d0 "$ADDR/24" || bail "cannot create dummy netdev d0"
check "add siwl0 on d0" link_add siwl0 d0
check "load LIO, isert and iser" modprobe -a target_core_mod target_core_file \
	iscsi_target_mod ib_isert ib_iser
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
check "file-backed LUN on an iSCSI target" iser_target

# The clash, shown once: a portal made here, then iSER switched on.
mkdir "$T/np/$ADDR:$CLASH_PORT"
check_fails "iSER beside the portal's own TCP listener: port taken" \
	iser_on "$CLASH_PORT"
rmdir "$T/np/$ADDR:$CLASH_PORT"

check "scratch namespace with $ADDR for the portal's TCP listener" iser_portal_ns
check "iSER portal $ADDR:$ISER_PORT made from the scratch namespace" \
	nsenter --net="/run/netns/$PORTAL_NS" -- mkdir "$T/np/$ADDR:$ISER_PORT"
check "iSER switched on for it" iser_on "$ISER_PORT"
check "iSCSI/TCP portal $ADDR:$TCP_PORT, for comparison" \
	mkdir "$T/np/$ADDR:$TCP_PORT"
check "target enabled" sh -c "echo 1 >'$T/enable'"

check "writable /etc/iscsi" iser_etc
# Its own session: iscsid signals its process group when it stops.
setsid iscsid -f >"$SIWL_TMP/iscsid.log" 2>&1 &
ISCSID_PID=$!
# iscsiadm reaches iscsid through an abstract unix socket.
if wait_for 20 sh -c "ss -Hxl | grep -q ISCSIADM_ABSTRACT_NAMESPACE"; then
	pass "iscsid answers"
else
	fail "iscsid answers" "$(cat "$SIWL_TMP/iscsid.log")"
fi
check "iface siwl-iser with transport iser" sh -c \
	"iscsiadm -m iface -I siwl-iser -o new &&
	 iscsiadm -m iface -I siwl-iser -o update -n iface.transport_name -v iser"

# iser_disk PORT: the sd device of the logged-in session to ADDR:PORT.
iser_disk() {
	iscsiadm -m session -P 3 2>/dev/null |
		awk -v p="$ADDR:$1," '
			/Current Portal:/ { cur = index($0, p) > 0 }
			cur && /Attached scsi disk/ { print $4; exit }'
}

# iser_login IFACE PORT: a node record and a login; echoes the disk.
iser_login() {
	local disk=

	iscsiadm -m node -o new -T "$IQN" -p "$ADDR:$2" -I "$1" >/dev/null &&
	timeout $((90 * SIWL_SLOW)) \
		iscsiadm -m node -T "$IQN" -p "$ADDR:$2" -I "$1" --login >&2 ||
		return 1
	wait_for 30 sh -c "[ -n \"\$(iscsiadm -m session -P 3 | grep 'Attached scsi disk')\" ]"
	disk=$(iser_disk "$2")
	[ -n "$disk" ] && wait_for 10 test -b "/dev/$disk" || return 1
	echo "$disk"
}

iser_logout() {
	timeout $((60 * SIWL_SLOW)) \
		iscsiadm -m node -T "$IQN" -p "$ADDR:$2" -I "$1" --logout &&
	iscsiadm -m node -o delete -T "$IQN" -p "$ADDR:$2" -I "$1"
}

# iser_rate_of DDOUT: the rate dd reported.
iser_rate_of() {
	sed -n 's/.*copied, \(.*\)$/\1/p' <<<"$1" | tail -n 1
}

# iser_io DISK WHAT: 32 MiB written and read back with O_DIRECT, compared,
# and found in the backing file; the rates go to SIWL_TMP/rates (check
# keeps the output of what it runs).
iser_io() {
	local w r

	w=$(timeout $((120 * SIWL_SLOW)) dd if="$SIWL_TMP/pattern" \
		of="/dev/$1" bs=1M oflag=direct 2>&1) || { echo "$w"; return 1; }
	r=$(timeout $((120 * SIWL_SLOW)) dd if="/dev/$1" of="$SIWL_TMP/back" \
		bs=1M count=32 iflag=direct 2>&1) || { echo "$r"; return 1; }
	cmp "$SIWL_TMP/pattern" "$SIWL_TMP/back" &&
	cmp -n $((32 << 20)) "$SIWL_TMP/pattern" "$IMG" || return 1
	echo "$2 32 MiB O_DIRECT: write $(iser_rate_of "$w"), read $(iser_rate_of "$r")" \
		>>"$SIWL_TMP/rates"
}

head -c $((32 << 20)) /dev/urandom >"$SIWL_TMP/pattern"

run_cmd iser_login siwl-iser "$ISER_PORT"
if [ $RC -eq 0 ]; then
	pass "iSER login to $ADDR:$ISER_PORT (/dev/$OUT)"
	disk=$OUT
	expect_match "the session's transport is iser" \
		"$(iscsiadm -m session 2>&1)" "^iser: "
	check "iSER: write, read back and compare 32 MiB" iser_io "$disk" iSER
	check "iSER logout" iser_logout siwl-iser "$ISER_PORT"
else
	fail "iSER login to $ADDR:$ISER_PORT" "$ERR" "$(dmesg | tail -n 20)"
	skip "iser transport" ; skip "iSER data" ; skip "iSER logout"
fi

head -c $((32 << 20)) /dev/urandom >"$SIWL_TMP/pattern"
run_cmd iser_login default "$TCP_PORT"
if [ $RC -eq 0 ]; then
	pass "iSCSI/TCP login to $ADDR:$TCP_PORT (/dev/$OUT)"
	check "iSCSI/TCP: write, read back and compare 32 MiB" \
		iser_io "$OUT" iSCSI/TCP
	check "iSCSI/TCP logout" iser_logout default "$TCP_PORT"
else
	fail "iSCSI/TCP login to $ADDR:$TCP_PORT" "$ERR"
	skip "iSCSI/TCP data" ; skip "iSCSI/TCP logout"
fi

diag "$(cat "$SIWL_TMP/rates" 2>/dev/null)"
expect_eq "no session left" "$(iscsiadm -m session 2>&1 | grep -c '^[a-z]*: \[')" 0
check "target disabled, portals removed" sh -c \
	"echo 0 >'$T/enable' && rmdir '$T'/np/*"
# iser_device_gone: siwl0 deleted, nothing holding it.
iser_device_gone() {
	link_del siwl0 && wait_for 10 ibdev_gone siwl0
}
check "the device goes away" iser_device_gone
check "siw_lite unloads with isert and iser still loaded" siwl_unload
