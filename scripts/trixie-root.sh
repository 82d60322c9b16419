#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian 13 "trixie" system for the guest bench: a root file system that
# mmdebstrap builds from Debian's archive, with trixie's own 6.12 kernel
# and its headers (so DKMS builds in it as on a user's machine), rdma-core
# 56 and perftest 25.01.  vm-run.sh --root boots its kernel on it.  It is
# cached outside the work tree and rebuilt only when missing or when this
# list of packages changes (the stamp records it).
#
#   scripts/trixie-root.sh build    build it unless it is there (minutes)
#   scripts/trixie-root.sh path     print its directory, if it is built
#   scripts/trixie-root.sh kernel   print the kernel release it boots
#   scripts/trixie-root.sh remove   delete it
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

root=${SIW_LITE_TRIXIE_ROOT:-/var/cache/siw_lite/trixie-root}

# A user's machine running siw_lite: kernel and headers for DKMS, the RDMA
# userspace, and what the tests themselves call (git, strings, dmesg, ...;
# ccache reads the cache of scripts/dkms-ccache.sh in test_90's DKMS build).
pkgs=(linux-image-amd64 linux-headers-amd64 dkms
      rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest
      iproute2 kmod udev procps psmisc util-linux file git binutils
      ca-certificates ccache)
# The root's layout (the hook below) is part of what the stamp records.
layout=1
stamp="trixie layout $layout ${pkgs[*]}"

built() {
	[ -f "$root/.siw_lite-stamp" ] &&
		[ "$(cat "$root/.siw_lite-stamp")" = "$stamp" ]
}

kernel() {
	local k

	k=$(ls "$root"/boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n 1)
	[ -n "$k" ] || return 1
	k=${k##*/vmlinuz-}
	[ -d "$root/usr/src/linux-headers-$k" ] || return 1
	echo "$k"
}

mirror() {
	local f m=""
	local -a srcs=()

	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
		 /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && srcs+=("$f")
	done
	[ ${#srcs[@]} -eq 0 ] ||
		m=$(sed -e 's/#.*//' "${srcs[@]}" |
			grep -oE '(https?|file):[^ ]*/debian/?( |$)' |
			sed -n '1{s/ //g;p}') || m=""
	echo "${m:-http://deb.debian.org/debian}"
}

# What virtme-ng's init expects of a root it boots (it bind-mounts over
# /etc/hosts and /etc/lvm, and cannot create them on a read-only root).
customize() {
	echo siwl-trixie >"$1/etc/hostname"
	printf '127.0.0.1\tlocalhost siwl-trixie\n::1\tlocalhost ip6-localhost\n' \
		>"$1/etc/hosts"
	mkdir -p "$1/etc/lvm"
}

build() {
	local tmp missing

	if built && kernel >/dev/null; then
		echo "trixie-root: $root is built ($(kernel))"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || { echo "trixie-root: run as root" >&2; exit 1; }
	read -r -a missing <<<"$(siwl_missing_pkgs mmdebstrap debian-archive-keyring)"
	if [ ${#missing[@]} -gt 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}" >/dev/null
	fi
	# Built beside the final place and moved there whole: an interrupted
	# build never looks like a finished one.
	tmp=$root.new
	rm -rf "$tmp"
	mkdir -p "$(dirname "$root")"
	echo "trixie-root: building $root with mmdebstrap (several minutes)"
	mmdebstrap --variant=apt --mode=root --format=directory \
		--include="$(IFS=,; echo "${pkgs[*]}")" \
		--customize-hook="$(declare -f customize); customize \"\$1\"" \
		trixie "$tmp" "deb $(mirror) trixie main"
	echo "$stamp" >"$tmp/.siw_lite-stamp"
	rm -rf "$root"
	mv "$tmp" "$root"
	kernel >/dev/null || {
		echo "trixie-root: no kernel with headers in $root" >&2
		exit 1
	}
	echo "trixie-root: built $root ($(kernel))"
}

case "${1:-}" in
build)
	build
	;;
path)
	built || exit 1
	echo "$root"
	;;
kernel)
	built || exit 1
	kernel
	;;
remove)
	rm -rf "$root" "$root.new"
	;;
*)
	echo "usage: $0 build|path|kernel|remove" >&2
	exit 2
	;;
esac
