#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fills the compiler caches that the package test's DKMS builds read in
# the guests (selftests/test_90_packages.sh).
#
# Under TCG, DKMS's compile of siw_lite.ko took 270 s of each package
# guest; natively it takes 10 s.  So the test command first compiles the
# module here, as DKMS will in the guest: from the siw-lite-dkms package's
# source, in the same absolute build directory
# (/var/lib/dkms/siw-lite/VER/build, on a tmpfs of a private mount
# namespace, so nothing of it stays), against the same kernel headers,
# with the same compiler (the host's for Debian 12, the Debian 13 root's
# in a chroot for trixie), through ccache into
# /var/cache/siw_lite/ccache/debian-N.  The guest's compiler reads that
# cache read-only.  ccache hands back an object only for the same
# compiler, flags and preprocessed source; for anything else the guest
# compiles for real.  The cache saves time and decides nothing: DKMS, its
# dkms.conf, the package's source tree, signing, depmod and modprobe all
# still run in the guest.
#
#   scripts/dkms-ccache.sh DEBS_DIR [TRIXIE_ROOT]
#
# DEBS_DIR holds siw-lite-dkms_VER_all.deb (scripts/package.sh).  Without
# TRIXIE_ROOT (scripts/trixie-root.sh path) only the host's cache is
# filled.  Kernels: the newest 6.1 with headers on the host, the root's
# own kernel in trixie.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

debs=${1:?usage: dkms-ccache.sh DEBS_DIR [TRIXIE_ROOT]}
troot=${2:-}
cache_top=/var/cache/siw_lite/ccache

deb=$(ls "$debs"/siw-lite-dkms_*_all.deb 2>/dev/null | tail -n 1)
[ -n "$deb" ] || { siwl_msg "no siw-lite-dkms package in $debs"; exit 1; }
ver=$(dpkg-deb -f "$deb" Version)
ver=${ver%%-*}
jobs=${SIW_LITE_JOBS:-$(nproc)}

# fill ROOT SYSTEM KVER: compile the package's module for KVER inside ROOT
# ("/" for the host), as DKMS does, into the cache of SYSTEM.
fill() {
	local root=$1 sys=$2 kver=$3

	[ -x "$root/usr/bin/ccache" ] || {
		siwl_msg "$sys: no ccache in ${root}, DKMS will compile in the guest"
		return 1
	}
	mkdir -p "$cache_top/$sys" "$root/var/lib/dkms" "$root/var/cache/siw_lite"
	echo "dkms-ccache: $sys, kernel $kver, siw-lite $ver"
	unshare --mount --propagation private \
		bash -s "$root" "$sys" "$kver" "$deb" "$ver" "$jobs" <<'EOF'
set -euo pipefail
root=$1 sys=$2 kver=$3 deb=$4 ver=$5 jobs=$6
build=/var/lib/dkms/siw-lite/$ver/build

mount -t tmpfs siwl-ccache "$root/var/lib/dkms"
mkdir -p "$root$build"
dpkg-deb --fsys-tarfile "$deb" |
	tar -x -C "$root$build" --strip-components=4 "./usr/src/siw-lite-$ver/"
if [ "$root" != / ]; then
	mount --bind /var/cache/siw_lite "$root/var/cache/siw_lite"
	mount --bind /dev "$root/dev"
	mount -t proc proc "$root/proc"
fi
# DKMS's own make command (dkms.conf's MAKE[0], -j and KERNELRELEASE as
# dkms adds them); the environment is the guest's (test_90).
chroot "$root" env -i PATH=/usr/lib/ccache:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/tmp CCACHE_DIR="/var/cache/siw_lite/ccache/$sys" \
	CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=200M \
	make -s -j"$jobs" KERNELRELEASE="$kver" -C "/lib/modules/$kver/build" \
	M="$build" modules 2>&1 | grep -v 'Skipping BTF generation' || true
test -s "$root$build/drivers/siw_lite/siw_lite.ko"
EOF
}

k61=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$k61" ] || { siwl_msg "no 6.1 kernel headers on this host"; exit 1; }
fill / "debian-$(cut -d. -f1 /etc/debian_version)" "${k61#/usr/src/linux-headers-}"

if [ -n "$troot" ]; then
	tk=$(SIW_LITE_TRIXIE_ROOT=$troot \
		bash "$(dirname "${BASH_SOURCE[0]}")/trixie-root.sh" kernel)
	fill "$troot" "debian-$(cut -d. -f1 "$troot/etc/debian_version")" "$tk"
fi
