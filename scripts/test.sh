#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's test command (README, CI):
#
#   scripts/test.sh
#
# 1. scripts/setup.sh (Debian packages, virtme-ng)
# 2. make at the top, for the newest Debian kernel with headers
# 3. make check, when the top Makefile has that target
# 4. the Debian packages (scripts/package.sh: dpkg-buildpackage, lintian)
#    for test_90_packages, and the Debian 13 root it also runs on
#    (scripts/trixie-root.sh, cached); the module compiled once on the
#    host as DKMS will in those guests, into the compiler cache they read
#    (scripts/dkms-ccache.sh)
# 5. for every kernel tested (the newest of each installed series: 6.12
#    and 6.1), siw_lite.ko built for it with W=1 and sparse, which must
#    print no warning, and its in-tree siw interop peers
# 6. per kernel, one guest boot running selftests/run.sh (the same tests
#    but for the two below; scripts/vm-run.sh), whose kernel log must be free of
#    warnings/oopses; test_90_packages (apt install, DKMS, perftest, purge)
#    runs in the 6.1 guest (Debian 12 as it ships) and skips in the 6.12
#    one (same userspace, minutes of DKMS build saved); the unmodified
#    programs' tests (test_39_qperf, test_43_apps) run in the 6.12 guest
#    and skip in the 6.1 one (SIW_LITE_SKIP_APPS)
# 7. one guest on the Debian 13 root, booting trixie's own 6.12 kernel,
#    running test_90_packages there (rdma-core 56, perftest 25.01)
# 8. the hostile-peer, hostile-user, lifecycle and ring-hostile suites
#    (DEBUG_SUITES below) on the debug kernel of scripts/debug-kernel.sh
#    (Debian's 6.1 with KASAN, lockdep, UBSAN, kmemleak), in a guest boot
#    of its own whose kernel log must be as clean; the plain 6.1 guest then
#    reports those suites as skipped (they still run on plain 6.12).  The
#    debug kernel is cached outside the work tree; when it is missing this
#    step builds it first (about 20 minutes on two idle CPUs, see
#    scripts/debug-kernel.sh).  SIW_LITE_DEBUG_KERNEL=0 leaves it out, and
#    the plain 6.1 guest runs every suite again.
#
# The guest boots of 6 to 8 run one per two host CPUs at a time
# (SIW_LITE_GUEST_LANES): one after the other on a 2-CPU machine.
#
# Every step, every test point of "make check" programs that print their own
# "N passed, N failed", and every guest test point counts; the last line
# printed is
#
#   N passed, N failed
#
# and the exit status is non-zero if anything failed.  Logs go to
# $SIW_LITE_LOGDIR (default /var/tmp/siw_lite-logs/<timestamp>-<pid>/).
#
# Environment: SIW_LITE_KERNELS (kernel versions to test, space separated;
# SIW_LITE_KERNEL, one version, is still understood), SIW_LITE_VM_TIMEOUT
# (seconds, default 3600), SIW_LITE_GUEST_LANES (guests booted at once,
# default: CPUs / 2), SIW_LITE_DEBUG_VM_TIMEOUT (the debug kernel run,
# default SIW_LITE_VM_TIMEOUT), SIW_LITE_DEBUG_KERNEL=0 (no debug kernel
# guest, no debug kernel build),
# SIW_LITE_JOBS (make -j, default: CPUs), SIW_LITE_PACKAGES=0 (no
# packages, no Debian 13 guest: test_90 skips).
#
# No "set -e": a failing step is counted and reported, and the remaining
# steps still run where they can.
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

logdir=$(siwl_default_logdir)
mkdir -p "$logdir" || { echo "cannot create log dir $logdir"; echo "0 passed, 1 failed"; exit 1; }
jobs=${SIW_LITE_JOBS:-$(nproc)}

passed=0
failed=0
skipped=0
n=0

ok() {
	n=$((n + 1))
	passed=$((passed + 1))
	echo "ok $n - $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
}

skip() {
	n=$((n + 1))
	skipped=$((skipped + 1))
	echo "ok $n - $1 # SKIP $2"
}

# step NAME DESC CMD...: run CMD with its output shown (indented, so that
# only our own summary line starts a line with "N passed") and saved in
# $logdir/NAME.log; count it as one test.
step() {
	local name=$1 desc=$2 rc
	shift 2
	echo "=== $desc: $*"
	"$@" </dev/null 2>&1 | tee "$logdir/$name.log" | sed -u 's/^/  /'
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ]; then
		ok "$desc"
	else
		not_ok "$desc (exit $rc, log: $logdir/$name.log)"
	fi
	return "$rc"
}

cd "$SIW_LITE_TOP" || exit 1
echo "siw_lite tests: tree $SIW_LITE_TOP, logs in $logdir"

step setup "setup (scripts/setup.sh)" bash scripts/setup.sh

[ -z "${SIW_LITE_KERNEL:-}" ] || SIW_LITE_KERNELS=${SIW_LITE_KERNELS:-$SIW_LITE_KERNEL}
kvers=()
for v in $(siwl_pick_kernels); do
	if siwl_check_kernel "$v"; then
		kvers+=("$v")
	else
		not_ok "kernel $v has image, modules and headers"
	fi
done
if [ ${#kvers[@]} -gt 0 ]; then
	ok "Debian kernels to test: ${kvers[*]}"
	# The tree itself (provider, tools, the demo's module) is built for
	# the newest.
	kver=${kvers[0]}
	kdir=/usr/src/linux-headers-$kver
	kdir_arg=(KDIR="$kdir")
else
	not_ok "a Debian kernel with image, modules and headers is installed"
	kver=""
	kdir=""
	kdir_arg=()
fi

build_ok=0
if [ -n "$kdir" ] &&
   step build "build (make KDIR=$kdir)" make -j"$jobs" KDIR="$kdir"; then
	# The products the guest tests rely on (contract with the Makefile).
	missing=""
	for f in drivers/siw_lite/siw_lite.ko tools/provider/libsiw_lite-rdmav34.so; do
		[ -f "$f" ] || missing+=" $f"
	done
	if [ -z "$missing" ]; then
		ok "build products present"
		build_ok=1
	else
		not_ok "build products present (missing:$missing)"
	fi
elif [ -z "$kdir" ]; then
	not_ok "build (no kernel headers)"
fi

# Host-side checks, if the Makefile offers them.  "make -n" only prints, so
# this probes for the target without building anything.
if make -n check >/dev/null 2>"$logdir/check-probe.log"; then
	step check "host checks (make check)" make check "${kdir_arg[@]}"
	# Test programs under make check print their own "N passed, N failed";
	# their test points count individually too.
	while read -r p f; do
		passed=$((passed + p))
		failed=$((failed + f))
	done < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$logdir/check.log")
elif grep -q "No rule to make target 'check'" "$logdir/check-probe.log"; then
	echo "=== no 'make check' target, no host checks"
else
	not_ok "host checks (make -n check fails: $(tail -n1 "$logdir/check-probe.log"))"
fi

step helpers "selftest helpers (make -C selftests)" make -C selftests

# The Debian packages, from HEAD, where the guests find them for
# test_90_packages (install, DKMS build, data, purge), with the commit
# they were built from; and the Debian 13 system that test also runs on.
# SIW_LITE_PACKAGES=0 leaves both out (no guest sees packages then).
debs=/var/cache/siw_lite/debs
rm -f "$debs/built-from"
build_debs() {
	bash scripts/package.sh --out "$debs" &&
		dkms_mok "$debs/dkms-mok" &&
		git rev-parse HEAD >"$debs/built-from"
}
# DKMS signs what it builds with a machine key (MOK) that it makes on
# first use; under TCG openssl's RSA key generation alone takes some 40 s
# of each guest's apt install.  test_90 gives the guests this one, made
# once on the host (a user's machine makes its own, once).
dkms_mok() {
	[ -s "$1/mok.key" ] && [ -s "$1/mok.pub" ] && return 0
	command -v openssl >/dev/null || return 0
	mkdir -p "$1" &&
	openssl req -new -x509 -nodes -days 36500 \
		-subj "/CN=siw_lite test DKMS signing key" -newkey rsa:2048 \
		-keyout "$1/mok.key" -outform DER -out "$1/mok.pub" 2>/dev/null
}
packages=${SIW_LITE_PACKAGES:-1}
if [ "$packages" = 1 ]; then
	step packages "Debian packages (scripts/package.sh, lintian)" build_debs
	step trixie-root "Debian 13 root file system (scripts/trixie-root.sh)" \
		bash scripts/trixie-root.sh build
	troot=$(bash scripts/trixie-root.sh path 2>/dev/null) || troot=""
	[ -s "$debs/built-from" ] &&
		step dkms-ccache "the guests' DKMS compile, cached (scripts/dkms-ccache.sh)" \
			bash scripts/dkms-ccache.sh "$debs" "$troot"
fi

# module_for KVER: siw_lite.ko for KVER, from a copy of the sources in the
# log directory, with extra warnings and sparse; any warning fails it.
module_for() {
	local out=$logdir/module-$1 ko

	ko=$(siwl_build_module "/usr/src/linux-headers-$1" "$out" W=1 C=1 2>"$out.log") || {
		cat "$out.log"
		return 1
	}
	cat "$out.log"
	if grep -E 'warning:|error:' "$out.log"; then
		echo "the build of siw_lite.ko for $1 warns"
		return 1
	fi
	echo "$ko" >"$out.path"
}

# Per kernel: our module, and the interop peer (the in-tree siw from the
# kernel's own linux-source package), built on the host and cached
# outside the tree; the interop selftests skip without it.
for v in "${kvers[@]}"; do
	step "module-$v" "siw_lite.ko for $v (W=1 C=1, no warning)" module_for "$v"
	for p in $(bash scripts/siw-peer.sh --list); do
		step "siw-peer-$v-$p" "interop peer siw $p for $v" \
			bash scripts/siw-peer.sh --kernel "$v" --variant "$p"
	done
done

guest_pass=0
guest_fail=0
guest_skip=0

# The guests boot SIW_LITE_GUEST_LANES at a time, by default one per two
# host CPUs (each guest has two vCPUs).  Not more: a TCG guest keeps the
# host's two CPUs only about half busy on average (qemu at 95% of 200%
# over a whole 6.1 run), but two 2-vCPU guests on two CPUs ran every test
# 2 to 4 times slower than one alone (vCPU threads preempted while their
# guest spins on a lock), which lost more than the overlap gained.  Each
# boot's console goes to a file and is shown, indented like the steps'
# output, in the order they were queued, once all have ended.
lanes=${SIW_LITE_GUEST_LANES:-$(( $(nproc) / 2 ))}
[[ $lanes =~ ^[1-9][0-9]*$ ]] || lanes=1
guest_subs=()
guest_labels=()
guest_ticks=0

# guests_below N: wait until fewer than N guest boots run, saying every
# five minutes which test each running one has reached.
guests_below() {
	local sub t

	while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do
		sleep 5
		guest_ticks=$((guest_ticks + 1))
		[ $((guest_ticks % 60)) = 0 ] || continue
		for sub in "${guest_subs[@]}"; do
			[ -e "$logdir/$sub.rc" ] && continue
			t=$(grep -o 'selftests: siw_lite: test_[^ ]*' "$logdir/$sub/output.log" 2>/dev/null |
				tail -n 1)
			echo "  ... $(date +%T) $sub: ${t##* }"
		done
	done
}

# guest_start SUBDIR LABEL VM-RUN-OPTIONS...: queue one guest boot
# running the selftests (all, or those the words of $GUEST_PATTERN name), logs in
# $logdir/SUBDIR; it starts as soon as a lane is free.
guest_start() {
	local sub=$1 label=$2
	local -a pat=()
	shift 2

	read -r -a pat <<<"${GUEST_PATTERN:-}"
	guests_below "$lanes"
	echo "=== ${label}guest: scripts/vm-run.sh selftests/run.sh ${pat[*]} (started $(date +%T))"
	mkdir -p "$logdir/$sub"
	(
		bash scripts/vm-run.sh "$@" --logdir "$logdir/$sub" -- \
			"$SIW_LITE_TOP/selftests/run.sh" "${pat[@]}" \
			</dev/null >"$logdir/$sub.console" 2>&1
		echo $? >"$logdir/$sub.rc"
	) &
	guest_subs+=("$sub")
	guest_labels+=("$label")
}

# guest_report SUBDIR LABEL: show one finished boot and add its test
# points to guest_*.
guest_report() {
	local sub=$1 label=$2 vm_rc summary dmesg_state

	echo "=== ${label}guest ($sub)"
	sed 's/^/  /' "$logdir/$sub.console" 2>/dev/null
	vm_rc=$(cat "$logdir/$sub.rc" 2>/dev/null || echo "?")

	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logdir/$sub/output.log" 2>/dev/null | tail -n 1)
	if [ -n "$summary" ]; then
		guest_pass=$((guest_pass + $(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$summary")))
		guest_fail=$((guest_fail + $(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$summary")))
		if [[ $summary =~ ([0-9]+)\ skipped ]]; then
			guest_skip=$((guest_skip + BASH_REMATCH[1]))
		fi
		ok "${label}guest ran the selftests to the end"
	else
		not_ok "${label}guest ran the selftests to the end (vm-run exit $vm_rc, see $logdir/$sub)"
	fi

	dmesg_state=$(sed -n 's/^dmesg=//p' "$logdir/$sub/result" 2>/dev/null)
	if [ "$dmesg_state" = clean ]; then
		ok "${label}guest kernel log has no warnings, oopses or taint"
	else
		not_ok "${label}guest kernel log has no warnings, oopses or taint (${dmesg_state:-unknown}, see $logdir/$sub)"
	fi
}

# The debug kernel: built here when it is missing, so that a fresh machine
# runs these suites under KASAN too.
DEBUG_SUITES="test_60_rings_hostile test_70 test_71 test_72 test_73 test_74"
debug_kernel=0
if [ "${SIW_LITE_DEBUG_KERNEL:-1}" = 0 ]; then
	skip "the debug kernel (scripts/debug-kernel.sh)" "SIW_LITE_DEBUG_KERNEL=0"
elif bash scripts/debug-kernel.sh path >/dev/null 2>&1; then
	ok "the debug kernel is cached ($(bash scripts/debug-kernel.sh release))"
	debug_kernel=1
else
	echo "=== the debug kernel is not cached: building it, about 20 minutes on two idle CPUs"
	step debug-kernel "the debug kernel (scripts/debug-kernel.sh build)" \
		bash scripts/debug-kernel.sh build && debug_kernel=1
fi

vm_timeout=${SIW_LITE_VM_TIMEOUT:-3600}
for v in "${kvers[@]}"; do
	pkg_env=()
	elsewhere=()
	if [ $debug_kernel = 1 ] && [ "$(siwl_kernel_series "$v")" = 6.1 ]; then
		elsewhere+=("$DEBUG_SUITES : in the debug kernel guest (6.1 with KASAN, lockdep, UBSAN, kmemleak)")
	fi
	# perftest over every size, one program a test, is the same kernel
	# path on both series.  6.1 keeps test_33 (its own 6.1 receive window
	# check), test_50_interop_perf and test_90's perftest runs.
	if [ "$(siwl_kernel_series "$v")" = 6.1 ] &&
	   printf '%s\n' "${kvers[@]}" | grep -q '^6\.12\.'; then
		elsewhere+=("test_34 test_35 test_36 test_37 test_38 : in the 6.12 guest (on 6.1 test_33, test_50_interop_perf and test_90 run perftest)")
	fi
	if [ ${#elsewhere[@]} -gt 0 ]; then
		pkg_env+=(--env "SIW_LITE_TESTS_ELSEWHERE=$(IFS=';'; echo "${elsewhere[*]}")")
	fi
	if [ "$(siwl_kernel_series "$v")" != 6.1 ] &&
	   printf '%s\n' "${kvers[@]}" | grep -q '^6\.1\.'; then
		pkg_env+=(--env "SIW_LITE_SKIP_PACKAGES=the 6.1 guest runs it on this Debian 12 userspace, the Debian 13 guest on 6.12")
	fi
	# The unmodified programs' tests (qperf, libfabric, rsockets, cmtime:
	# minutes under TCG) run on 6.12 only; the kernel paths they use are
	# perftest's and rping's, which run on both.  The 6.1 guest also has
	# test_90's DKMS build: this keeps the two guests near each other.
	if [ "$(siwl_kernel_series "$v")" = 6.1 ] &&
	   printf '%s\n' "${kvers[@]}" | grep -q '^6\.12\.'; then
		pkg_env+=(--env "SIW_LITE_SKIP_APPS=the 6.12 guest runs the unmodified programs; perftest and rping cover 6.1's kernel paths")
	fi
	if [ $build_ok = 1 ] && [ -s "$logdir/module-$v.path" ]; then
		guest_start "vm-$v" "$v " --kernel "$v" "${pkg_env[@]}" \
			--ko "$(cat "$logdir/module-$v.path")" --timeout "$vm_timeout"
	else
		not_ok "$v guest selftests (not run: the build failed)"
	fi
done

# Debian 13 as its users have it: trixie's kernel, rdma-core and perftest;
# only the packages' test (the rest needs a module built for that kernel).
if [ "$packages" != 1 ]; then
	skip "Debian 13 guest (test_90_packages)" "SIW_LITE_PACKAGES=0"
elif troot=$(bash scripts/trixie-root.sh path 2>/dev/null); then
	GUEST_PATTERN=test_90 guest_start vm-trixie "Debian 13 " \
		--root "$troot" --timeout 1500
else
	not_ok "Debian 13 guest (not run: no Debian 13 root)"
fi

# The hostile and lifecycle suites on the debug kernel (see 8. above).
if [ $debug_kernel = 1 ] && [ $build_ok = 1 ]; then
	GUEST_PATTERN=$DEBUG_SUITES guest_start vm-debug "debug kernel " \
		--debug-kernel --timeout "${SIW_LITE_DEBUG_VM_TIMEOUT:-$vm_timeout}"
elif [ $debug_kernel = 1 ]; then
	not_ok "debug kernel guest selftests (not run: the build failed)"
fi

guests_below 1
wait
for i in "${!guest_subs[@]}"; do
	guest_report "${guest_subs[$i]}" "${guest_labels[$i]}"
done

passed=$((passed + guest_pass))
failed=$((failed + guest_fail))
skipped=$((skipped + guest_skip))

echo "=== host steps: $n ($((skipped - guest_skip)) skipped)," \
	"guest test points: $((guest_pass + guest_fail + guest_skip))" \
	"($guest_skip skipped), logs: $logdir"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
