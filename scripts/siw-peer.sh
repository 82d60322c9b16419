#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Linux in-tree siw driver (the interoperability peer) out of tree
# from Debian's kernel source and print the path of its siw.ko:
#
#   scripts/siw-peer.sh [--kernel VER] [--variant NAME] [--list]
#
# Debian does not build siw (CONFIG_RDMA_SIW is not set), but the
# linux-source-<series> package of the kernel's series (linux-source-6.1
# for 6.1.0-*, linux-source-6.12 for 6.12.*) has its source, which builds
# against the same headers as siw_lite.  The result is cached outside the
# work tree:
#
#   /var/cache/siw_lite/siw-peer/<kver>/<variant>/siw.ko
#
# (SIW_PEER_CACHE overrides /var/cache/siw_lite/siw-peer) and is rebuilt
# only when it is missing or the source tarball changed.  Only the .ko path
# goes to stdout; progress and errors go to stderr.  The guest cannot build
# it (its file system is read-only): run this on the host before booting
# the guest; selftests look the module up under the same path
# (siwl_peer_ko in tools/testing/verbs_test/dp-lib.sh).
#
# siw has no module parameters; its MPA behaviour is set by constants in
# siw_main.c.  A variant flips some of them in the cached copy of the
# source (never in the tree):
#
#   default        unmodified source: MPA rev 2, CRC used only if the
#                  peer asks, does not ask for RTR (answers a request)
#   crc-required   mpa_crc_required = true, mpa_crc_strict = true:
#                  asks for CRC and refuses a Reply without it
#   crc-off        mpa_crc_strict = true (mpa_crc_required false):
#                  refuses any peer that asks for CRC
#   rev1           mpa_version = 1 in its Requests
#   p2p            peer_to_peer = true: asks for RTR (RDMA Read or Write)
#
# Options:
#   -k, --kernel VER   kernel to build for (default: the one
#                      scripts/common.sh picks, like vm-run.sh)
#   -v, --variant NAME one of the names above (default: default)
#   -l, --list         print the variant names and exit
#   -h, --help
#
# Exit status: 0 with the path printed; 1 if the source or headers are
# missing or the build fails; 2 for usage errors.
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CACHE=${SIW_PEER_CACHE:-/var/cache/siw_lite/siw-peer}
SIW_DIR=drivers/infiniband/sw/siw
VARIANTS="default crc-required crc-off rev1 p2p"

usage() {
	sed -n '4,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'
	exit "${1:-0}"
}

die() {
	siwl_msg "$*"
	exit 1
}

# variant_sed NAME: the sed program that turns siw_main.c into the variant.
# Each expression must match exactly once; apply_variant checks that.
variant_sed() {
	case $1 in
	default)
		;;
	crc-required)
		echo 's/^const bool mpa_crc_required;/const bool mpa_crc_required = true;/'
		echo 's/^const bool mpa_crc_strict;/const bool mpa_crc_strict = true;/'
		;;
	crc-off)
		echo 's/^const bool mpa_crc_strict;/const bool mpa_crc_strict = true;/'
		;;
	rev1)
		echo 's/^u_char mpa_version = MPA_REVISION_2;/u_char mpa_version = MPA_REVISION_1;/'
		;;
	p2p)
		echo 's/^const bool peer_to_peer;/const bool peer_to_peer = true;/'
		;;
	*)
		return 1
		;;
	esac
}

# apply_variant DIR NAME: edit DIR/siw_main.c; fails if an expression did
# not apply (a changed upstream source must not silently build "default").
apply_variant() {
	local dir=$1 name=$2 expr

	while IFS= read -r expr; do
		[ -n "$expr" ] || continue
		cp "$dir/siw_main.c" "$dir/siw_main.c.orig" || return 1
		sed -i -e "$expr" "$dir/siw_main.c" || return 1
		if cmp -s "$dir/siw_main.c" "$dir/siw_main.c.orig"; then
			siwl_msg "variant $name: '$expr' did not change siw_main.c"
			return 1
		fi
	done < <(variant_sed "$name")
	rm -f "$dir/siw_main.c.orig"
	{
		echo "siw-peer variant $name of $SRC_TAR"
		variant_sed "$name"
	} >"$dir/VARIANT"
}

# The tarball's identity: a new linux-source-6.1 package means a new build.
tar_stamp() {
	stat -L -c '%n %s %Y' "$SRC_TAR"
}

# extract: the pristine siw sources in $SRC_DIR (shared by the variants
# and the kernels of a series; xz makes this the slow step, ~1 min).
extract() {
	local src=$SRC_DIR tmp

	if [ -f "$src/STAMP" ] && [ "$(cat "$src/STAMP")" = "$(tar_stamp)" ]; then
		return 0
	fi
	siwl_msg "extracting $SIW_DIR from $SRC_TAR"
	tmp=$(mktemp -d "$SRC_DIR.tmp.XXXXXX") || return 1
	if ! tar -xJf "$SRC_TAR" -C "$tmp" --strip-components=1 \
		--wildcards "*/$SIW_DIR/*" >&2; then
		rm -rf "$tmp"
		siwl_msg "cannot extract $SIW_DIR from $SRC_TAR"
		return 1
	fi
	if [ ! -f "$tmp/$SIW_DIR/siw_main.c" ]; then
		rm -rf "$tmp"
		siwl_msg "$SRC_TAR has no $SIW_DIR/siw_main.c"
		return 1
	fi
	tar_stamp >"$tmp/STAMP"
	rm -rf "$src"
	mv "$tmp" "$src"
}

build() {
	local out=$1 kdir=$2 name=$3 work

	work=$(mktemp -d "$CACHE/$kver/build.XXXXXX") || return 1
	cp "$SRC_DIR/$SIW_DIR"/* "$work/" || return 1
	apply_variant "$work" "$name" || { rm -rf "$work"; return 1; }
	siwl_msg "building siw ($name) for $kver"
	# stdout of make is chatter too: only the path may reach our stdout.
	if ! make -C "$kdir" M="$work" CONFIG_RDMA_SIW=m modules >&2; then
		siwl_msg "build of siw ($name) failed; sources kept in $work"
		return 1
	fi
	cp "$SRC_DIR/STAMP" "$work/STAMP"
	rm -rf "$out"
	mv "$work" "$out"
}

kver=""
variant=default
while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel)	kver=${2:?--kernel needs a value}; shift 2 ;;
	-v|--variant)	variant=${2:?--variant needs a value}; shift 2 ;;
	--kernel=*)	kver=${1#*=}; shift ;;
	--variant=*)	variant=${1#*=}; shift ;;
	-l|--list)	printf '%s\n' $VARIANTS; exit 0 ;;
	-h|--help)	usage 0 ;;
	*)		siwl_msg "unknown argument $1"; usage 2 >&2 ;;
	esac
done

variant_sed "$variant" >/dev/null || {
	siwl_msg "unknown variant '$variant' (one of: $VARIANTS)"
	exit 2
}
if [ -z "$kver" ]; then
	kver=$(siwl_pick_kernel) ||
		die "no Debian kernel with both /boot/vmlinuz-VER and /usr/src/linux-headers-VER"
fi
[[ $kver =~ ^[A-Za-z0-9._+-]+$ ]] || die "bad kernel version '$kver'"
# SIW_PEER_KDIR: a kernel build tree instead of Debian's headers (the debug
# kernel of scripts/debug-kernel.sh).
kdir=${SIW_PEER_KDIR:-/usr/src/linux-headers-$kver}
[ -d "$kdir" ] || die "no $kdir (install linux-headers-$kver)"
series=$(siwl_kernel_series "$kver") || die "cannot tell the series of '$kver'"
SRC_TAR=${SIW_PEER_TARBALL:-/usr/src/linux-source-$series.tar.xz}
SRC_DIR=$CACHE/src-$series
[ -f "$SRC_TAR" ] ||
	die "$SRC_TAR is missing: install the linux-source-$series package (scripts/setup.sh does)"

out=$CACHE/$kver/$variant
ko=$out/siw.ko
mkdir -p "$CACHE/$kver" || die "cannot create $CACHE/$kver"

# One builder at a time (the benchmark may call us while the tests do).
exec 9>"$CACHE/.lock" || die "cannot open $CACHE/.lock"
flock 9 || die "cannot lock $CACHE/.lock"

extract || exit 1
if [ -f "$ko" ] && [ -f "$out/STAMP" ] &&
   [ "$(cat "$out/STAMP")" = "$(cat "$SRC_DIR/STAMP")" ]; then
	siwl_msg "cached: $ko"
else
	build "$out" "$kdir" "$variant" || exit 1
	[ -f "$ko" ] || die "build produced no $ko"
fi
echo "$ko"
