#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages as a user meets them, on the guest's own Debian:
# apt installs siw-lite-dkms and the provider package from the .deb files
# (DKMS builds siw_lite.ko here, for the running kernel), "rdma link add"
# loads the installed module by itself, the distribution's perftest moves
# data through the installed provider (no RDMAV_DRIVERS), and apt purge
# leaves neither module nor provider behind.  perftest runs with its
# default post API and with --use_old_post_send (ibv_post_send).
#
# scripts/test.sh runs it on Debian 12 (the host's root, its 6.1 kernel,
# rdma-core 44, perftest 4.5) and on Debian 13 (scripts/trixie-root.sh:
# trixie's 6.12 kernel, rdma-core 56, perftest 25.01).  The packages come
# from scripts/package.sh: the test command builds them into
# /var/cache/siw_lite/debs and writes there the commit they were built
# from (built-from).  The test skips unless that is this tree's HEAD
# (stale packages prove nothing), without headers for the running kernel
# (the debug kernel), and where the test command says another guest
# covers it (SIW_LITE_SKIP_PACKAGES: apt's DKMS build takes minutes under
# TCG); it fails if the system has no dkms.  It runs last: it changes the
# guest's (throw-away) system.
# DKMS builds for every kernel with headers, about 280 s each under TCG
# unless the compiler cache below has the objects.
# The Debian 12 guest sees both 6.1's and 6.12's (the host's /lib/modules):
# the kernels the guest does not run are hidden from DKMS there, since the
# Debian 13 guest tests a 6.12 build (SIW_LITE_DKMS_ALL_KERNELS=1 builds
# for all).  Its own time limit for run.sh, for when it does:
# siwl-timeout: 1500
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

PERF_TESTS="ib_write_bw ib_send_bw ib_read_bw ib_send_lat ib_read_lat"
plan 24
require_guest
require_root

if [ -n "${SIW_LITE_SKIP_PACKAGES:-}" ]; then
	skip_rest "$SIW_LITE_SKIP_PACKAGES"
	exit 0
fi

ver=$(cat "$SIW_LITE_TOP/VERSION")
debs=${SIW_LITE_DEBS:-/var/cache/siw_lite/debs}
dkms_deb=$debs/siw-lite-dkms_${ver}_all.deb
prov_deb=$(ls "$debs"/libsiw-lite-rdmav34_"${ver}"_*.deb 2>/dev/null | head -n 1)
kver=$(uname -r)

head=$(git -C "$SIW_LITE_TOP" rev-parse HEAD 2>/dev/null)
if [ -z "$head" ] || [ "$(cat "$debs/built-from" 2>/dev/null)" != "$head" ]; then
	skip_rest "no packages built from HEAD in $debs (SIW_LITE_PACKAGES=1 scripts/test.sh)"
	exit 0
fi
if [ ! -f "$dkms_deb" ] || [ -z "$prov_deb" ]; then
	skip_rest "no siw-lite $ver packages in $debs (scripts/package.sh)"
	exit 0
fi
if [ ! -e "/lib/modules/$kver/build" ]; then
	skip_rest "no headers for $kver"
	exit 0
fi
# Packages were built for this run: a missing dkms is a broken bench, and
# skipping would hide it (apt in the guest cannot fetch it).
if ! command -v dkms >/dev/null; then
	bail "dkms is not installed in this system (scripts/setup.sh installs it)"
fi

hidden=()
modtree=""
pkg_cleanup() {
	local d

	dp_cleanup
	siwl_unload 2>/dev/null
	apt-get purge -y -qq siw-lite-dkms libsiw-lite-rdmav34 >/dev/null 2>&1
	for d in "${hidden[@]}"; do
		umount "$d" 2>/dev/null
	done
	[ -z "$modtree" ] || umount "$modtree"
	umount "$SIWL_TMP/modtree" 2>/dev/null
}
on_exit pkg_cleanup
if [ "${SIW_LITE_DKMS_ALL_KERNELS:-0}" != 1 ]; then
	for b in /lib/modules/*/build; do
		d=${b%/build}
		[ "$d" = "/lib/modules/$kver" ] && continue
		mount -t tmpfs -o size=1M siwl-hidden "$d" && hidden+=("$d")
	done
	[ ${#hidden[@]} -gt 0 ] && diag "hidden from DKMS: ${hidden[*]}"
fi

# depmod reads every module of the kernel, some 4000 files: under TCG
# that was 80 s at install and 40 s at purge on Debian 12 (more with
# trixie's compressed modules), none of it siw_lite's.  DKMS, depmod and
# modprobe see instead, on a tmpfs bound over /lib/modules/$kver, the
# kernel's module tree cut down to what this test loads (the RDMA core,
# veth, and whatever is loaded now) with its index files; DKMS adds
# siw_lite to it as to the real one.  The real tree is back when the
# tmpfs goes (pkg_cleanup).  SIW_LITE_DKMS_FULL_TREE=1 keeps the real one.
cut_module_tree() {
	local src=/lib/modules/$kver stage=$SIWL_TMP/modtree f names

	# Loaded now, and what the test or siw_lite may load: its own
	# dependencies (ib_core, ib_uverbs, libcrc32c), and libcrc32c's crc32c
	# implementations, which it finds through the crypto API's alias.
	names=$(awk '$1 != "siw_lite" { print $1 }' /proc/modules)
	names+=" veth ib_core ib_uverbs iw_cm rdma_cm rdma_ucm"
	names+=" libcrc32c crc32c_generic crc32c-intel"
	mkdir -p "$stage" &&
		mount -t tmpfs -o size=256M siwl-modtree "$stage" || return 1
	for f in $(for n in $names; do modprobe -q -D "$n"; done 2>/dev/null |
		   awk '$1 == "insmod" { print $2 }' | sort -u); do
		cp --parents "$f" "$stage"/ || return 1
	done
	# build and source are the headers' links; modules.builtin* and
	# modules.order are depmod's inputs, the other index files its output.
	cp -a "$src"/build "$src"/source "$src"/modules.builtin* \
		"$src"/modules.order "$stage$src"/ 2>/dev/null
	mount --bind "$stage$src" "$src" || return 1
	modtree=$src
	depmod -a "$kver"
}

kmsg "test_90_packages start"
diag "Debian $(cat /etc/debian_version 2>/dev/null), kernel $kver," \
	"$(dpkg-query -W -f '${Package} ${Version}, ' libibverbs1 perftest 2>/dev/null)"

# The suite's own module must not stand in for the installed one.
siwl_cleanup
if mod_loaded; then
	bail "siw_lite is still loaded from an earlier test"
fi
if [ "${SIW_LITE_DKMS_FULL_TREE:-0}" != 1 ]; then
	if cut_module_tree; then
		diag "module tree for DKMS: $(find "$modtree" -name '*.ko*' | wc -l) modules"
	else
		bail "cannot cut the module tree down (SIW_LITE_DKMS_FULL_TREE=1 keeps it)"
	fi
fi

# DKMS would first make its signing key (MOK), some 40 s of RSA key
# generation under TCG that has nothing to do with siw_lite: the test
# command made one on the host (scripts/test.sh dkms_mok).
mok=$debs/dkms-mok
if [ ! -e /var/lib/dkms/mok.key ] && [ -s "$mok/mok.key" ]; then
	mkdir -p /var/lib/dkms && cp "$mok/mok.key" "$mok/mok.pub" /var/lib/dkms/
fi

# DKMS's compile is 270 s of TCG: the test command compiled the module
# as DKMS will here, into a compiler cache that this system's ccache
# reads (scripts/dkms-ccache.sh).  An object comes from it only for the
# same compiler, flags and preprocessed source; the rest compiles here.
ccdir=/var/cache/siw_lite/ccache/debian-$(cut -d. -f1 /etc/debian_version)
# apt runs dpkg, and so DKMS, with its own PATH (DPkg::Path).
cclog=""
aptpath=()
if [ -d "$ccdir" ] && [ -d /usr/lib/ccache ]; then
	cclog=$(mktemp)
	export CCACHE_DIR=$ccdir CCACHE_READONLY=1 CCACHE_NOHASHDIR=1 \
		CCACHE_TEMPDIR=/tmp/siwl-ccache CCACHE_LOGFILE=$cclog
	dpkg_path=""
	eval "$(apt-config shell dpkg_path DPkg::Path)"
	aptpath=(-o "DPkg::Path=/usr/lib/ccache:${dpkg_path:-/usr/sbin:/usr/bin:/sbin:/bin}")
fi

# The package ships siw_lite(7), and man-db's dpkg trigger then rebuilds
# its whole index: 380 s under TCG (the install went from 309 s to 691 s),
# nothing of it siw_lite's.  The guest's /var is an overlay, so turning
# man-db's auto-update off stays in this guest; the trigger still runs.
rm -f /var/lib/man-db/auto-update

# Its dependencies are installed already: apt fetches nothing.
export DEBIAN_FRONTEND=noninteractive
start=$(date +%s)
check "apt-get install siw-lite-dkms and libsiw-lite-rdmav34 ($ver)" \
	apt-get install -y -q "${aptpath[@]}" "$dkms_deb" "$prov_deb"
diag "install and DKMS build: $(($(date +%s) - start)) s"
expect_eq "the package installed siw_lite(7)" \
	"$(ls /usr/share/man/man7/siw_lite.7* 2>/dev/null | head -n 1)" \
	"/usr/share/man/man7/siw_lite.7.gz"
if [ -n "$cclog" ]; then
	# Kbuild's compiler probes compile /dev/null into a fresh temporary
	# name each time: never in the cache, and not siw_lite's objects.
	diag "compiler cache $ccdir: $(awk '
		/Source file:/ { src[$2] = $NF }
		/Result: (direct|preprocessed)_cache_hit/ { hit++ }
		/Result: cache_miss/ { if (src[$2] == "/dev/null") probe++; else miss++ }
		END { printf "%d objects from it, %d compiled, %d compiler probes", hit, miss, probe }
		' "$cclog")"
	unset CCACHE_DIR CCACHE_READONLY CCACHE_NOHASHDIR CCACHE_TEMPDIR \
		CCACHE_LOGFILE
	rm -f "$cclog"
fi
grep -E "Error|error:" <<<"$OUT$ERR" | head -n 5 | while read -r l; do diag "$l"; done

run_cmd dkms status -m siw-lite -v "$ver" -k "$kver"
expect_match "dkms status: siw-lite $ver installed for $kver" "$OUT" \
	"siw-lite/$ver, ${kver//+/\\+}, [^:]*: installed"

# DKMS builds for every kernel whose headers it sees (those not hidden
# above).
missing=""
for b in /lib/modules/*/build; do
	k=${b#/lib/modules/}
	k=${k%/build}
	dkms status -m siw-lite -v "$ver" -k "$k" 2>/dev/null |
		grep -q ": installed" || missing+=" $k"
done
expect_eq "DKMS built and installed siw_lite for every kernel with headers" \
	"${missing# }" ""

modpath=$(modinfo -n siw_lite 2>/dev/null)
expect_match "modprobe finds the DKMS module" "$modpath" "/updates/dkms/siw_lite\\.ko"
expect_eq "its modinfo version is $ver" \
	"$(modinfo -F version siw_lite 2>&1)" "$ver"

# The installed provider, found through /etc/libibverbs.d.
unset RDMAV_DRIVERS
expect_eq "/etc/libibverbs.d/siw_lite.driver names the provider" \
	"$(cat /etc/libibverbs.d/siw_lite.driver 2>&1)" "driver siw_lite"
prov_so=$(dpkg -L libsiw-lite-rdmav34 2>/dev/null | grep 'libsiw_lite-rdmav34\.so$')
if [ -n "$prov_so" ] && strings "$prov_so" | grep -qx "siw_lite provider $ver"; then
	pass "the provider in $(dirname "${prov_so:-?}") is release $ver"
else
	fail "the provider in $(dirname "${prov_so:-?}") is release $ver" "$prov_so"
fi

# rdma link add loads siw_lite on its own (MODULE_ALIAS_RDMA_LINK).
if dp_setup 2>"$SIWL_TMP/setup.err"; then
	pass "rdma link add in two namespaces over veth (module autoloaded)"
else
	fail "rdma link add in two namespaces over veth (module autoloaded)" \
		"$(cat "$SIWL_TMP/setup.err")"
fi
expect_eq "siw_lite is loaded, and from the package" \
	"$(cat /sys/module/siw_lite/version 2>&1)" "$ver"
run_cmd ibv_devices
expect_match "ibv_devices lists $DP_DA without RDMAV_DRIVERS" "$OUT" \
	"^[[:space:]]*$DP_DA[[:space:]]"

dp_next_port
dp_run 60 "port:$DP_PORT" \
	rping -s -a "$DP_A4" -p "$DP_PORT" -C 20 -S 4096 --- \
	rping -c -a "$DP_A4" -p "$DP_PORT" -C 20 -S 4096 -V
dp_both_ok "rping -V, 20 x 4 KiB, with the installed provider"

# perftest picks the ibv_wr_* post API by default where it was built
# with it; --use_old_post_send keeps to ibv_post_send.  Both must work.
for api in "" --use_old_post_send; do
	for t in $PERF_TESTS; do
		dp_next_port
		dp_run 120 "port:$DP_PORT" \
			"$t" -R -F -s 65536 -n 20 $api -d "$DP_DA" -p "$DP_PORT" --- \
			"$t" -R -F -s 65536 -n 20 $api -d "$DP_DB" -p "$DP_PORT" "$DP_A4"
		dp_both_ok "$t -R 64 KiB ${api:-(default post API)} with the installed provider"
	done
done

dp_cleanup
siwl_unload 2>/dev/null
check "apt-get purge siw-lite-dkms libsiw-lite-rdmav34" \
	apt-get purge -y -q siw-lite-dkms libsiw-lite-rdmav34
left=$(find /lib/modules/*/updates -name 'siw_lite.ko*' 2>/dev/null)
left+=$(ls -d /usr/src/siw-lite-* /var/lib/dkms/siw-lite /etc/libibverbs.d/siw_lite.driver \
	/usr/share/man/man7/siw_lite.7* 2>/dev/null)
[ -z "$prov_so" ] || [ ! -e "$prov_so" ] || left+=" $prov_so"
expect_eq "purge leaves no module, source, DKMS tree, provider or man page" "$left" ""
