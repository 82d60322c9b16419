# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the host-side scripts (vm-run.sh, test.sh, demo.sh).
# Source it; it defines functions and SIW_LITE_TOP, nothing runs.

# Absolute path of the work tree this file belongs to.  Everything is derived
# from it because CI clones the project to an arbitrary folder.
SIW_LITE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
export SIW_LITE_TOP

# Print the newest Debian kernel that we can both build for (headers) and
# boot (image + modules), e.g. "6.1.0-57-amd64".  Nothing is hardcoded so an
# updated linux-image-amd64 is picked up automatically.
siwl_pick_kernel() {
	local img ver
	local -a found=()

	for img in /boot/vmlinuz-*-amd64; do
		[ -e "$img" ] || continue
		ver=${img#/boot/vmlinuz-}
		[ -d "/usr/src/linux-headers-$ver" ] || continue
		[ -d "/lib/modules/$ver/kernel" ] || continue
		found+=("$ver")
	done
	[ ${#found[@]} -gt 0 ] || return 1
	printf '%s\n' "${found[@]}" | sort -V | tail -n 1
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
