# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the host-side scripts (vm-run.sh, test.sh, demo.sh).
# Source it; it defines functions and SIW_LITE_TOP, nothing runs.

# Absolute path of the work tree this file belongs to.  Everything is derived
# from it because CI clones the project to an arbitrary folder.
SIW_LITE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
export SIW_LITE_TOP

# Print those of the Debian packages named as arguments that are not
# installed, one line; nothing when all are.
siwl_missing_pkgs() {
	local p
	local -a missing=()

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	echo "${missing[*]}"
}

# Print every Debian kernel that we can both build for (headers) and boot
# (image + modules), oldest first, e.g. "6.1.0-57-amd64".  Nothing is
# hardcoded so an updated linux-image-amd64 is picked up automatically.
siwl_usable_kernels() {
	local img ver

	for img in /boot/vmlinuz-*-amd64; do
		[ -e "$img" ] || continue
		ver=${img#/boot/vmlinuz-}
		[ -d "/usr/src/linux-headers-$ver" ] || continue
		[ -d "/lib/modules/$ver/kernel" ] || continue
		echo "$ver"
	done | sort -V
}

# Print the newest usable kernel.
siwl_pick_kernel() {
	local newest

	newest=$(siwl_usable_kernels | tail -n 1)
	[ -n "$newest" ] && echo "$newest"
}

# Print the kernels the test command runs on, newest first: the newest
# usable kernel of each series installed (6.12, 6.1, ...), or those in
# $SIW_LITE_KERNELS (space separated) when set.
siwl_pick_kernels() {
	local ver
	local -A newest=()

	if [ -n "${SIW_LITE_KERNELS:-}" ]; then
		printf '%s
' $SIW_LITE_KERNELS
		return 0
	fi
	# oldest first: the last of a series wins
	for ver in $(siwl_usable_kernels); do
		newest[$(siwl_kernel_series "$ver")]=$ver
	done
	[ ${#newest[@]} -gt 0 ] || return 1
	printf '%s
' "${newest[@]}" | sort -rV
}

# "6.12" for 6.12.118+deb12-amd64, "6.1" for 6.1.0-57-amd64: the series,
# which names Debian's linux-source-<series> package.
siwl_kernel_series() {
	local v=$1

	[[ $v =~ ^([0-9]+)\.([0-9]+) ]] || return 1
	echo "${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
}

# siwl_scratch_dir DIR: make DIR, print its real path; refuse (status 2) a
# directory inside the work tree, which a build there would litter.
siwl_scratch_dir() {
	local d

	mkdir -p "$1" || return 1
	d=$(cd "$1" && pwd -P) || return 1
	case $d/ in
	"$SIW_LITE_TOP"/*)
		siwl_msg "$d is inside the work tree; pick a dir outside it"
		return 2 ;;
	esac
	echo "$d"
}

# siwl_build_module KDIR OUTDIR [MAKE-ARGS...]: build siw_lite.ko from this
# work tree's sources in a copy under OUTDIR (outside the tree: Kbuild puts
# objects beside the sources, so one tree holds one kernel's build) and
# print the .ko's path. Build output goes to stderr.
siwl_build_module() {
	local kdir=$1 out=$2

	shift 2
	out=$(siwl_scratch_dir "$out") || return
	rm -rf "$out/drivers" "$out/include"
	cp "$SIW_LITE_TOP/Kbuild" "$SIW_LITE_TOP/VERSION" "$out/" || return 1
	mkdir -p "$out/drivers/siw_lite"
	cp "$SIW_LITE_TOP"/drivers/siw_lite/{Kbuild,*.c,*.h} "$out/drivers/siw_lite/" ||
		return 1
	cp -r "$SIW_LITE_TOP/include" "$out/" || return 1
	make -s -C "$kdir" M="$out" "$@" modules >&2 || return 1
	echo "$out/drivers/siw_lite/siw_lite.ko"
}

# siwl_build_rev REV KDIR SRCDIR: build siw_lite.ko of git revision REV of
# this work tree for the kernel build dir KDIR, in SRCDIR (emptied, then
# filled by git archive: neither the work tree's edits nor its objects get
# in) and print the .ko's path. Build output goes to stderr.
siwl_build_rev() {
	local rev=$1 kdir=$2 src=$3

	src=$(siwl_scratch_dir "$src") || return
	find "$src" -mindepth 1 -delete || return 1
	git -C "$SIW_LITE_TOP" archive "$rev" | tar -x -C "$src" || return 1
	# Kbuild directly, as siwl_build_module does: every revision has the
	# top-level Kbuild, and only the module is needed, not the provider.
	make -s -C "$kdir" M="$src" modules >&2 || return 1
	[ -f "$src/drivers/siw_lite/siw_lite.ko" ] || return 1
	echo "$src/drivers/siw_lite/siw_lite.ko"
}

# Check that a kernel version given by the user is usable; prints why not.
siwl_check_kernel() {
	local ver=$1

	if [ ! -e "/boot/vmlinuz-$ver" ]; then
		siwl_msg "no /boot/vmlinuz-$ver"
		return 1
	fi
	if [ ! -d "/lib/modules/$ver/kernel" ]; then
		siwl_msg "no /lib/modules/$ver (the guest loads its RDMA modules from there)"
		return 1
	fi
	return 0
}

# A fresh log directory outside the work tree (the guest cannot write to the
# tree, and logs must not end up in commits).  Honours SIW_LITE_LOGDIR.
siwl_default_logdir() {
	echo "${SIW_LITE_LOGDIR:-/var/tmp/siw_lite-logs/$(date +%Y%m%d-%H%M%S)-$$}"
}

siwl_msg() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}
