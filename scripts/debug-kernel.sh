#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A debug build of Debian's 6.1 kernel (linux-source-6.1) for the guest:
# KASAN, lockdep, UBSAN, kmemleak, DEBUG_ATOMIC_SLEEP and friends catch bugs
# in siw_lite that the distro kernel lets pass silently.
#
#   scripts/debug-kernel.sh build    build it unless already cached (long:
#                                    40 CPU-minutes, so about 20 minutes
#                                    on 2 idle cores, an hour on a busy host)
#   scripts/debug-kernel.sh status   say whether it is cached, and where
#   scripts/debug-kernel.sh path     print the kernel build tree (exit 1 if
#                                    not built)
#   scripts/debug-kernel.sh release  print its kernel release (uname -r)
#   scripts/debug-kernel.sh module [DIR]
#                                    build this work tree's siw_lite.ko
#                                    against it, in a copy of the sources in
#                                    DIR (default: a dir in the cache), and
#                                    print the path of the .ko
#
# The cache lives outside the work tree, in
# $SIW_LITE_DEBUG_KERNEL_CACHE (default /var/cache/siw_lite/debug-kernel),
# one directory per <Debian source version>-<hash of the configuration>:
#   linux/      the configured and built source tree (what vng --run boots,
#               with .virtme_mods/ for the guest's modules)
#   build.log   output of the configure and build steps
#   built       stamp written last: release, build time
# A change of the configuration below or of the linux-source-6.1 package
# gives a new directory; old ones can simply be deleted.
#
# The interop peer (siw.ko and its variants, scripts/siw-peer.sh) is built
# against it too, cached under the debug kernel's release.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

TARBALL=${SIW_LITE_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
CACHE=${SIW_LITE_DEBUG_KERNEL_CACHE:-/var/cache/siw_lite/debug-kernel}

# Options applied on top of x86_64_defconfig + kvm_guest.config.  Every line
# is checked in the final .config: an option Kconfig silently dropped (a
# missing dependency) fails the build instead of giving a kernel that does
# not test what we think it tests.  "=n" means "not set".
CONFIG_FRAGMENT='
# Our own release string, never to be mistaken for the distro kernel.
LOCALVERSION="-siwl-debug"
LOCALVERSION_AUTO=n
MODULES=y
MODULE_UNLOAD=y
MODULE_SIG=n
MODVERSIONS=n

# What virtme-ng needs to boot a guest on the host filesystem.
VIRTIO=y
VIRTIO_PCI=y
VIRTIO_MMIO=y
VIRTIO_BALLOON=y
VIRTIO_CONSOLE=y
VIRTIO_NET=y
NET_9P=y
NET_9P_VIRTIO=y
9P_FS=y
9P_FS_POSIX_ACL=y
FUSE_FS=y
VIRTIO_FS=y
OVERLAY_FS=y
TMPFS=y
TMPFS_POSIX_ACL=y
DEVTMPFS=y
DEVTMPFS_MOUNT=y
BLK_DEV_INITRD=y
BINFMT_SCRIPT=y
UNIX=y
UNIX98_PTYS=y
TTY=y
SERIAL_8250=y
SERIAL_8250_CONSOLE=y
VSOCKETS=y
VIRTIO_VSOCKETS=y
SCSI=y
SCSI_VIRTIO=y
BLK_DEV_SD=y
INOTIFY_USER=y
UEVENT_HELPER=n
HYPERVISOR_GUEST=y
PARAVIRT=y
KVM_GUEST=y
RTC_CLASS=y
RTC_DRV_CMOS=y
DEBUG_FS=y
PROC_FS=y
SYSFS=y

# Networking the selftests use.
NET=y
INET=y
IPV6=y
PACKET=y
NAMESPACES=y
NET_NS=y
NETDEVICES=y
NET_CORE=y
DUMMY=m
VETH=m
TUN=m
NET_IPIP=m
NET_IPGRE_DEMUX=m
NET_IPGRE=m
IPV6_SIT=m
NETFILTER=n
BRIDGE=n

# RDMA: the core as modules (as in Debian), both software providers.
INFINIBAND=m
INFINIBAND_USER_ACCESS=m
INFINIBAND_ADDR_TRANS=y
INFINIBAND_VIRT_DMA=y
RDMA_SIW=m
RDMA_RXE=m
INFINIBAND_IPOIB=n
INFINIBAND_ISER=n
INFINIBAND_ISERT=n
INFINIBAND_SRP=n
INFINIBAND_SRPT=n
INFINIBAND_RTRS_CLIENT=n
INFINIBAND_RTRS_SERVER=n

# NVMe over Fabrics on top of it (test_40), on a loop device.
CONFIGFS_FS=y
BLK_DEV_LOOP=m
NVME_FABRICS=m
NVME_RDMA=m
NVME_TARGET=m
NVME_TARGET_RDMA=m
NVME_TCP=n
NVME_TARGET_TCP=n
NVME_TARGET_LOOP=n
NVME_TARGET_PASSTHRU=n
NVME_AUTH=n
NVME_TARGET_AUTH=n
BLK_DEV_NVME=n

# The point of this kernel.
DEBUG_KERNEL=y
KASAN=y
KASAN_GENERIC=y
KASAN_INLINE=y
KASAN_OUTLINE=n
PROVE_LOCKING=y
LOCKDEP=y
DEBUG_LOCKDEP=n
LOCKDEP_CHAINS_BITS=17
DEBUG_ATOMIC_SLEEP=y
DEBUG_KMEMLEAK=y
DEBUG_KMEMLEAK_DEFAULT_OFF=n
DEBUG_KMEMLEAK_AUTO_SCAN=n
DEBUG_KMEMLEAK_MEM_POOL_SIZE=40000
UBSAN=y
UBSAN_BOUNDS=y
UBSAN_SANITIZE_ALL=y
UBSAN_ALIGNMENT=n
UBSAN_TRAP=n
DEBUG_LIST=y
SLUB_DEBUG=y
STACKTRACE=y
KALLSYMS=y
KALLSYMS_ALL=y
PANIC_ON_OOPS=n

# Small and quick to build: no debug info, no BTF, no big subsystems.
DEBUG_INFO_NONE=y
DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=n
DEBUG_INFO_DWARF4=n
DEBUG_INFO_DWARF5=n
DEBUG_INFO_BTF=n
GCOV_KERNEL=n
KCOV=n
FTRACE=n
SOUND=n
DRM=n
AGP=n
FB=n
USB_SUPPORT=n
HID=n
INPUT_MOUSE=n
INPUT_JOYSTICK=n
INPUT_TABLET=n
INPUT_TOUCHSCREEN=n
WLAN=n
WIRELESS=n
CFG80211=n
RFKILL=n
BT=n
ETHERNET=n
ATA=n
MD=n
NFS_FS=n
NFSD=n
NETWORK_FILESYSTEMS=y
SECURITY_SELINUX=n
AUDIT=n
I2C=n
PCCARD=n
MACINTOSH_DRIVERS=n
VIRTUALIZATION=n
HYPERV=n
XEN=n
KEXEC=n
CRASH_DUMP=n
PROFILING=n
'

# Bump when the build steps change in a way that needs a rebuild.
RECIPE=1

usage() {
	sed -n '4,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
	exit "${1:-0}"
}

# The configuration without comments and blank lines.
fragment() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' <<<"$CONFIG_FRAGMENT"
}

# <Debian package version>-<config hash>: one directory per distinct build.
version_tag() {
	local src hash

	src=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null) ||
		src=$(stat -c %s-%Y "$TARBALL")
	hash=$( { fragment; echo "recipe=$RECIPE"; } | sha256sum | cut -c1-10)
	echo "$src-$hash"
}

tagdir() {
	echo "$CACHE/$(version_tag)"
}

is_built() {
	local d

	d=$(tagdir)
	[ -s "$d/built" ] && [ -f "$d/linux/arch/x86/boot/bzImage" ]
}

# Kernel release of the cached build; empty when not built.
release() {
	local d

	d=$(tagdir)
	[ -s "$d/linux/include/config/kernel.release" ] || return 1
	cat "$d/linux/include/config/kernel.release"
}

# Apply the fragment with scripts/config.
apply_fragment() {
	local line opt val
	local -a args=()

	while IFS= read -r line; do
		opt=${line%%=*}
		val=${line#*=}
		case $val in
		y)	args+=(--enable "$opt") ;;
		m)	args+=(--module "$opt") ;;
		n)	args+=(--disable "$opt") ;;
		\"*\")	val=${val#\"}; args+=(--set-str "$opt" "${val%\"}") ;;
		*)	args+=(--set-val "$opt" "$val") ;;
		esac
	done < <(fragment)
	./scripts/config --file .config "${args[@]}"
}

# Print every option of the fragment that did not end up as asked.
check_config() {
	local line opt val bad=0

	while IFS= read -r line; do
		opt=${line%%=*}
		val=${line#*=}
		if [ "$val" = n ]; then
			if grep -q "^CONFIG_$opt=" .config; then
				echo "  CONFIG_$opt: wanted not set, got" \
					"$(grep "^CONFIG_$opt=" .config)"
				bad=1
			fi
		elif ! grep -qxF "CONFIG_$opt=$val" .config; then
			echo "  CONFIG_$opt: wanted $val, got" \
				"$(grep -E "^(# )?CONFIG_${opt}[= ]" .config || echo nothing)"
			bad=1
		fi
	done < <(fragment)
	return $bad
}

fmt_time() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# Run a build step with its output in the log, showing only the step name.
step() {
	local name=$1 t0

	shift
	t0=$(date +%s)
	echo "debug-kernel: $name ..."
	echo "=== $name: $*" >>"$LOG"
	if ! "$@" >>"$LOG" 2>&1; then
		echo "debug-kernel: $name FAILED; last lines of $LOG:" >&2
		tail -n 30 "$LOG" | sed 's/^/    /' >&2
		return 1
	fi
	echo "=== $name done in $(fmt_time $(($(date +%s) - t0)))" >>"$LOG"
}

do_extract() {
	tar -xJf "$TARBALL" -C "$1"
	mv "$1"/linux-source-6.1 "$1/linux"
}

do_configure() {
	make x86_64_defconfig
	make kvm_guest.config
	apply_fragment
	make olddefconfig
	# Twice: options enabled by the first pass can unhide others.
	apply_fragment
	make olddefconfig
	if ! check_config; then
		echo "requested options missing from .config (dependency missing?)"
		return 1
	fi
}

# The interop tests load the peer siw (and its variants) from the cache of
# scripts/siw-peer.sh, keyed by the running kernel's release: build them all
# against this tree so the interop tests run on the debug kernel too.
install_peers() {
	local rel=$1 v

	for v in $("$SIW_LITE_TOP/scripts/siw-peer.sh" --list); do
		SIW_PEER_KDIR=$PWD "$SIW_LITE_TOP/scripts/siw-peer.sh" \
			--kernel "$rel" --variant "$v" || return 1
	done
}

cmd_build() {
	local d t0 rel elapsed cpu

	d=$(tagdir)
	if is_built; then
		echo "debug-kernel: already built: $d/linux ($(release))"
		return 0
	fi
	[ -r "$TARBALL" ] || {
		siwl_msg "$TARBALL missing: apt-get install linux-source-6.1"
		return 1
	}
	mkdir -p "$d"
	exec 9>"$d/.lock"
	flock -n 9 || { siwl_msg "another build is running in $d"; return 1; }

	t0=$(date +%s)
	LOG=$d/build.log
	# An unfinished earlier attempt may have left anything: start afresh.
	rm -rf "$d/linux" "$d/built"
	: >"$LOG"
	echo "debug-kernel: building in $d/linux, log in $LOG"

	step "extract $TARBALL" do_extract "$d"
	cd "$d/linux"
	step configure do_configure
	step "build (nice -n 19 make -j$(nproc))" \
		nice -n 19 make -j"$(nproc)"
	rel=$(cat include/config/kernel.release)
	# vng --run DIR finds the modules of a build tree in .virtme_mods;
	# prepare it now so the (read-only) guest run never has to.
	step "prepare modules for virtme-ng" virtme-prep-kdir-mods
	step "build the interop peer siw.ko variants" install_peers "$rel"

	elapsed=$(($(date +%s) - t0))
	# The CPU time of all the steps says how long the build takes on an
	# idle machine, whatever else ran beside it.
	cpu=$(times | sed -n 2p)
	printf 'release=%s\nelapsed=%s\ncpu=%s\nnproc=%s\ndate=%s\n' \
		"$rel" "$elapsed" "$cpu" "$(nproc)" "$(date -Is)" >"$d/built.tmp"
	mv "$d/built.tmp" "$d/built"
	echo "debug-kernel: built $rel in $d/linux"
	echo "debug-kernel: elapsed $(fmt_time "$elapsed") on $(nproc) CPUs" \
		"(CPU time user/sys of the steps: $cpu)"
}

cmd_status() {
	local d

	d=$(tagdir)
	if is_built; then
		echo "debug kernel: cached"
		echo "  tree:    $d/linux"
		echo "  release: $(release)"
		sed -n 's/^elapsed=/  build time (s): /p; s/^cpu=/  CPU time (user sys): /p
			s/^date=/  built: /p' "$d/built"
		return 0
	fi
	echo "debug kernel: not built (would go to $d/linux)"
	if [ -d "$d/linux" ]; then
		echo "  an unfinished or running build is there; log: $d/build.log"
	fi
	echo "  build it with: scripts/debug-kernel.sh build"
	return 1
}

cmd_path() {
	is_built || { siwl_msg "not built; run: scripts/debug-kernel.sh build"; return 1; }
	echo "$(tagdir)/linux"
}

cmd_release() {
	is_built || { siwl_msg "not built; run: scripts/debug-kernel.sh build"; return 1; }
	release
}

# Build siw_lite.ko against the debug tree.  Not in the work tree itself:
# Kbuild puts its objects next to the sources, which would overwrite the
# module built for the distro kernel.
cmd_module() {
	local kdir

	kdir=$(cmd_path) || return 1
	siwl_build_module "$kdir" "${1:-$(tagdir)/siw_lite}"
}

case ${1:-} in
build)		cmd_build ;;
status)		cmd_status ;;
path)		cmd_path ;;
release)	cmd_release ;;
module)		shift; cmd_module "$@" ;;
-h|--help)	usage 0 ;;
*)		usage 2 >&2 ;;
esac
