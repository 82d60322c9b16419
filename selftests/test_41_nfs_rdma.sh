#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA: knfsd in namespace A serves a tmpfs export on the RDMA port
# (20049) as well as on TCP; the kernel NFS client in namespace B mounts it
# with proto=rdma, NFSv3 and NFSv4.2, over two siw_lite devices joined by a
# veth pair.  Files of 1 B to 64 MiB written through the mount must read back
# byte for byte after the client's caches are gone, and must be on the
# server.  The same 64 MiB over NFSv4.2/RDMA and NFSv4.2/TCP is timed for the
# record (diag lines only: a timing is never a pass condition here).
#
# The daemons run with nsenter, which changes the network namespace but not
# the mount namespace, so that the mounts outlive each command.  nfs-utils
# keeps its state in /var/lib/nfs: a tmpfs gives the test its own.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 26
dp_start
kmsg "test_41_nfs_rdma start"

for prog in rpc.nfsd rpc.mountd exportfs rpcbind mount.nfs; do
	command -v "$prog" >/dev/null && continue
	skip_rest "$prog is not installed (nfs-kernel-server, nfs-common, rpcbind)"
	exit 0
done

EXPORT=$SIWL_TMP/export
MNT=$SIWL_TMP/mnt
MOUNTD_PORT=20048
RDMA_PORT=20049
PIDS=()
# Sizes: below a page, a page and a byte, an odd MiB (inline, one chunk,
# many chunks), and 64 MiB (the throughput size).
SIZES="1 4097 1048579 67108864"

nsA() { nsenter --net="/run/netns/$DP_A" -- "$@"; }

nfs_daemons_stop() {
	local p

	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait
	PIDS=()
}

nfs_cleanup() {
	mountpoint -q "$MNT" && umount -f "$MNT"
	nsA rpc.nfsd 0
	nsA exportfs -ua
	nfs_daemons_stop
	mountpoint -q /proc/fs/nfsd && umount /proc/fs/nfsd
	mountpoint -q "$EXPORT" && umount "$EXPORT"
	mountpoint -q /var/lib/nfs && umount /var/lib/nfs
	modprobe -r nfsv4 nfsv3 nfs nfsd rpcrdma
	return 0
}
on_exit nfs_cleanup

# The server's state directory and export, both on tmpfs (tmpfs has no
# stable filesystem id, hence fsid= on the export).
nfs_dirs() {
	mount -t tmpfs -o size=16M,mode=755 siwl-nfs-state /var/lib/nfs &&
	mkdir -p /var/lib/nfs/sm /var/lib/nfs/sm.bak /var/lib/nfs/v4recovery &&
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab &&
	mkdir -p "$EXPORT" "$MNT" &&
	mount -t tmpfs -o size=400M,mode=777 siwl-nfs-export "$EXPORT"
}

# nfs_listening PORT: something in namespace A listens on TCP PORT.
nfs_listening() {
	nsA ss -Hltn "sport = :$1" | grep -q LISTEN
}

check "nfsd and rpcrdma load" modprobe -a nfsd rpcrdma
check "state and export directories on tmpfs" nfs_dirs
# NFSv3's nfsd registers with rpcbind and refuses to start without it.
nsA rpcbind -f >"$SIWL_TMP/rpcbind.log" 2>&1 &
PIDS+=($!)
nsA rpc.mountd -F -p "$MOUNTD_PORT" >"$SIWL_TMP/mountd.log" 2>&1 &
PIDS+=($!)
if wait_for 20 nfs_listening 111 && wait_for 20 nfs_listening "$MOUNTD_PORT"; then
	pass "rpcbind and rpc.mountd listen in $DP_A"
else
	fail "rpcbind and rpc.mountd listen in $DP_A" \
		"$(cat "$SIWL_TMP/rpcbind.log" "$SIWL_TMP/mountd.log")"
fi
# fsid=0: the NFSv4 pseudo root, mounted as "/"; the guest's root file
# system above the export has no file system id for mountd's own
# pseudo root.  NFSv3 mounts the path.
check "export $EXPORT to 192.0.2.0/24" nsA exportfs \
	-o rw,sync,no_root_squash,insecure,no_subtree_check,fsid=0 \
	"192.0.2.0/24:$EXPORT"
# The shortest grace period nfsd allows: NFSv4 opens wait for its end.
check "rpc.nfsd starts 4 threads with an RDMA listener" \
	nsA rpc.nfsd -G 10 -L 10 --rdma="$RDMA_PORT" 4
run_cmd cat /proc/fs/nfsd/portlist
expect_match "nfsd's port list has rdma $RDMA_PORT beside tcp 2049" \
	"$(tr '\n' ' ' <<<"$OUT")" "rdma $RDMA_PORT.*tcp 2049|tcp 2049.*rdma $RDMA_PORT"

for size in $SIZES; do
	head -c "$size" /dev/urandom >"$SIWL_TMP/f$size"
done

# nfs_mount VERS PROTO: mount the export on MNT from namespace B.
nfs_mount() {
	local opts="vers=$1,proto=$2" path=/

	case $1-$2 in
	3-rdma) opts+=",port=$RDMA_PORT,mountproto=tcp,mountport=$MOUNTD_PORT,nolock" ;;
	3-tcp)  opts+=",mountproto=tcp,mountport=$MOUNTD_PORT,nolock" ;;
	*-rdma) opts+=",port=$RDMA_PORT" ;;
	esac
	[ "$1" != 3 ] || path=$EXPORT
	timeout -k 5 $((120 * SIWL_SLOW)) nsenter --net="/run/netns/$DP_B" -- \
		mount -t nfs -o "$opts" "$DP_A4:$path" "$MNT"
}

# nfs_remount VERS PROTO: unmount and mount again with every cache
# dropped, so that what is read next comes over the wire.
nfs_remount() {
	umount "$MNT" || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount "$1" "$2"
}

# nfs_write DIR: copy every test file into DIR on the mount.
nfs_write() {
	local size

	mkdir -p "$MNT/$1" || return 1
	for size in $SIZES; do
		timeout $((120 * SIWL_SLOW)) cp "$SIWL_TMP/f$size" "$MNT/$1/" ||
			return 1
	done
	sync -f "$MNT/$1"
}

# nfs_compare ROOT DIR: every test file in ROOT/DIR equals its original.
nfs_compare() {
	local size bad=0

	for size in $SIZES; do
		timeout $((120 * SIWL_SLOW)) cmp "$SIWL_TMP/f$size" "$1/$2/f$size" ||
			bad=1
	done
	return $bad
}

for vers in 3 4.2; do
	check "NFSv$vers mount with proto=rdma" nfs_mount "$vers" rdma ||
		{ diag "$(dmesg | tail -n 20)"; continue; }
	expect_match "the NFSv$vers mount runs over rdma" \
		"$(grep " $MNT " /proc/mounts)" "vers=$vers,.*proto=rdma,port=$RDMA_PORT"
	check "NFSv$vers/RDMA: write files of $SIZES bytes" nfs_write "v$vers"
	check "NFSv$vers/RDMA: the server holds them" nfs_compare "$EXPORT" "v$vers"
	check "NFSv$vers/RDMA: remount with caches dropped" nfs_remount "$vers" rdma
	check "NFSv$vers/RDMA: files read back equal" nfs_compare "$MNT" "v$vers"
	check "NFSv$vers/RDMA: unmount" umount "$MNT"
done

# nfs_rate_of DDOUT: the rate dd reported.
nfs_rate_of() {
	sed -n 's/.*copied, \(.*\)$/\1/p' <<<"$1" | tail -n 1
}

# nfs_dd PROTO: 64 MiB written (to stable storage) and read back cold over
# NFSv4.2 on PROTO; the rates go to SIWL_TMP/rate-PROTO (check keeps
# the output of what it runs).
nfs_dd() {
	local w r

	nfs_mount 4.2 "$1" || return 1
	w=$(dd if="$SIWL_TMP/f67108864" of="$MNT/dd" bs=1M conv=fsync 2>&1) ||
		return 1
	nfs_remount 4.2 "$1" || return 1
	r=$(dd if="$MNT/dd" of="$SIWL_TMP/dd.back" bs=1M 2>&1) || return 1
	umount "$MNT" || return 1
	cmp "$SIWL_TMP/f67108864" "$SIWL_TMP/dd.back" || return 1
	echo "NFSv4.2/$1 64 MiB: write $(nfs_rate_of "$w"), read $(nfs_rate_of "$r")" \
		>"$SIWL_TMP/rate-$1"
}

check "NFSv4.2/RDMA: 64 MiB dd write and cold read" nfs_dd rdma
check "NFSv4.2/TCP on the same veth, for comparison" nfs_dd tcp
diag "$(cat "$SIWL_TMP"/rate-rdma "$SIWL_TMP"/rate-tcp 2>/dev/null)"

check "nfsd stops" nsA rpc.nfsd 0
run_cmd cat /proc/fs/nfsd/portlist
expect_eq "no nfsd listener left" "$OUT" ""
nsA exportfs -ua
nfs_daemons_stop

# nfs_devices_gone: both siw_lite devices deleted, nothing holding them.
nfs_devices_gone() {
	dp_cleanup
	wait_for 10 ibdev_gone "$DP_DA" && wait_for 10 ibdev_gone "$DP_DB"
}
check "both siw_lite devices go away" nfs_devices_gone
check "siw_lite unloads with NFS/RDMA modules still loaded" siwl_unload
