#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command (by default the selftests) as root in a throw-away virtme-ng
# guest booting Debian's kernel, with the RDMA core modules loaded.
#
#   scripts/vm-run.sh [options] [--] [COMMAND [ARGS...]]
#
# A single COMMAND word is run through "bash -c", so
#   scripts/vm-run.sh 'ip link; rdma link'
# works; several words are run as an argument vector.  Without a command
# selftests/run.sh is run.
#
# Options:
#   -k, --kernel VER    kernel to boot (default: newest /boot/vmlinuz-*-amd64
#                       that also has /usr/src/linux-headers-VER)
#   -m, --mem SIZE      guest memory, qemu syntax (default 2560M)
#   -c, --cpus N        guest CPUs (default 2)
#   -t, --timeout SECS  host-side limit for the whole guest run (default 900)
#   -l, --logdir DIR    where logs go (default $SIW_LITE_LOGDIR or
#                       /var/tmp/siw_lite-logs/<timestamp>-<pid>)
#   -a, --append ARGS   extra kernel command line arguments
#   -o, --ko PATH       the siw_lite.ko to test (default: the tree's when
#                       it was built for the guest kernel, else one built
#                       from the tree's sources in the log directory)
#   -d, --debug-kernel  boot the debug kernel of scripts/debug-kernel.sh
#                       (KASAN, lockdep, UBSAN, kmemleak) instead, with a
#                       siw_lite.ko built for it in the log directory; a
#                       kmemleak scan after the command must find nothing
#   -r, --root DIR      boot another Debian system: DIR is its root file
#                       system (scripts/trixie-root.sh), booted with its own
#                       kernel (--kernel: one in DIR/boot, default the
#                       newest); the guest sees it read-only with overlays
#                       as for the host's root.  No siw_lite.ko is built for
#                       it: the command brings its own (test_90_packages
#                       installs the packages) or --ko gives one
#   -e, --env NAME=VAL  export NAME=VAL to the command in the guest
#   -h, --help
#
# The command's output is shown live.  The guest's complete dmesg, the kernel
# console, the command output and a summary ("result") are saved in the log
# directory, outside the work tree.
#
# Exit status: the command's status if it failed; otherwise 1 if the kernel
# log shows a problem (WARNING, BUG, Oops, lockdep, KASAN, UBSAN, kmemleak,
# general protection fault, ...) or the kernel got tainted by one; 124 if the
# guest timed out; 125 if the guest did not boot or died before the command
# finished; 2 for usage errors.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
	sed -n '4,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
	exit "${1:-0}"
}

kver=""
mem=2560M
cpus=2
timeout_s=900
logdir=""
append=""
debug_kernel=no
ko=""
root=""
envs=()

while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel)	kver=${2:?--kernel needs a value}; shift 2 ;;
	-m|--mem)	mem=${2:?--mem needs a value}; shift 2 ;;
	-c|--cpus)	cpus=${2:?--cpus needs a value}; shift 2 ;;
	-t|--timeout)	timeout_s=${2:?--timeout needs a value}; shift 2 ;;
	-l|--logdir)	logdir=${2:?--logdir needs a value}; shift 2 ;;
	-a|--append)	append="$append ${2:?--append needs a value}"; shift 2 ;;
	-d|--debug-kernel) debug_kernel=yes; shift ;;
	-o|--ko)	ko=${2:?--ko needs a value}; shift 2 ;;
	-r|--root)	root=${2:?--root needs a value}; shift 2 ;;
	-e|--env)	envs+=("${2:?--env needs a value}"); shift 2 ;;
	--root=*)	root=${1#*=}; shift ;;
	--env=*)	envs+=("${1#*=}"); shift ;;
	--ko=*)		ko=${1#*=}; shift ;;
	--kernel=*)	kver=${1#*=}; shift ;;
	--mem=*)	mem=${1#*=}; shift ;;
	--cpus=*)	cpus=${1#*=}; shift ;;
	--timeout=*)	timeout_s=${1#*=}; shift ;;
	--logdir=*)	logdir=${1#*=}; shift ;;
	--append=*)	append="$append ${1#*=}"; shift ;;
	-h|--help)	usage 0 ;;
	--)		shift; break ;;
	-*)		siwl_msg "unknown option $1"; usage 2 >&2 ;;
	*)		break ;;
	esac
done

[[ $timeout_s =~ ^[0-9]+$ ]] || { siwl_msg "--timeout must be seconds"; exit 2; }
[[ $cpus =~ ^[0-9]+$ ]] || { siwl_msg "--cpus must be a number"; exit 2; }

command -v vng >/dev/null || { siwl_msg "vng not found; run scripts/setup.sh"; exit 125; }

for e in "${envs[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { siwl_msg "--env $e: not NAME=VALUE"; exit 2; }
done

if [ -n "$root" ]; then
	[ $debug_kernel = no ] || { siwl_msg "--root and --debug-kernel exclude each other"; exit 2; }
	[ -d "$root/boot" ] || { siwl_msg "--root $root: no Debian system there"; exit 2; }
	root=$(cd "$root" && pwd -P)
	[ -n "$kver" ] || kver=$(ls "$root"/boot/vmlinuz-* 2>/dev/null |
		sed 's|.*/vmlinuz-||' | sort -V | tail -n 1)
	boot=$root/boot/vmlinuz-$kver
	[ -n "$kver" ] && [ -f "$boot" ] && [ -d "$root/lib/modules/$kver" ] || {
		siwl_msg "--root $root: no kernel ${kver:-at all} with its modules"
		exit 125
	}
elif [ $debug_kernel = yes ]; then
	[ -z "$kver" ] || { siwl_msg "--kernel and --debug-kernel exclude each other"; exit 2; }
	# What vng boots: the build tree (it finds the modules in it).
	boot=$("$SIW_LITE_TOP/scripts/debug-kernel.sh" path) || exit 125
	kver=$("$SIW_LITE_TOP/scripts/debug-kernel.sh" release) || exit 125
else
	if [ -z "$kver" ]; then
		kver=$(siwl_pick_kernel) || {
			siwl_msg "no kernel with both /boot/vmlinuz-VER and /usr/src/linux-headers-VER"
			exit 125
		}
	fi
	siwl_check_kernel "$kver" || exit 125
	boot=$kver
fi

[ -n "$logdir" ] || logdir=$(siwl_default_logdir)
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd -P)
# vng glues its arguments into one shell command line, so a log directory
# with spaces or shell characters would be split or misparsed.
if [[ ! $logdir =~ ^[A-Za-z0-9._/+-]+$ ]]; then
	siwl_msg "log directory '$logdir' must only contain [A-Za-z0-9._/+-]"
	exit 2
fi
if [[ ! $SIW_LITE_TOP =~ ^[A-Za-z0-9._/+-]+$ ]]; then
	siwl_msg "the tree's path '$SIW_LITE_TOP' must only contain [A-Za-z0-9._/+-]"
	exit 2
fi
# Results of an earlier run in the same directory would be misread as ours.
rm -f "$logdir"/{guest.started,cmd.status,dmesg.txt,dmesg-live.log,tainted} \
	"$logdir"/{console.log,output.log,result,dmesg-problems.txt,kmemleak.txt,kmemleak-boot.txt}

# A Debian kernel uses the tree's module when that was built for it; any
# other kernel (the debug kernel, the second Debian kernel) gets its own,
# built from the tree's sources outside it.
tree_ko=$SIW_LITE_TOP/drivers/siw_lite/siw_lite.ko
if [ -n "$ko" ]; then
	[ -f "$ko" ] || { siwl_msg "--ko $ko: no such file"; exit 2; }
	# The guest's /var/tmp is its own: hand it a copy it can see.
	mkdir -p "$logdir/ko" && cp "$ko" "$logdir/ko/siw_lite.ko" || exit 125
	ko=$logdir/ko/siw_lite.ko
elif [ -n "$root" ]; then
	ko=$logdir/ko/none/siw_lite.ko
elif [ $debug_kernel = no ] &&
     [ "$(modinfo -F vermagic "$tree_ko" 2>/dev/null | cut -d' ' -f1)" = "$kver" ]; then
	ko=$tree_ko
else
	echo "vm-run: building siw_lite.ko for $kver in $logdir/siw_lite-build"
	if [ $debug_kernel = yes ]; then
		ko=$("$SIW_LITE_TOP/scripts/debug-kernel.sh" module "$logdir/siw_lite-build")
	else
		ko=$(siwl_build_module "/usr/src/linux-headers-$kver" "$logdir/siw_lite-build")
	fi || {
		siwl_msg "cannot build siw_lite.ko for $kver"
		exit 125
	}
fi

# --- what the guest runs ---------------------------------------------------
if [ $# -eq 0 ]; then
	set -- "$SIW_LITE_TOP/selftests/run.sh"
fi
{
	echo "# generated by vm-run.sh"
	if [ $# -eq 1 ]; then
		printf 'bash -c %q\n' "$1"
	else
		printf '%q ' "$@"
		echo
	fi
} >"$logdir/cmd.sh"
printf '%s\n' "$*" >"$logdir/cmd.txt"

# Environment for the command.  RDMAV_DRIVERS makes libibverbs load our
# provider straight from the build tree (it appends -rdmav34.so itself).
{
	echo "# generated by vm-run.sh"
	printf 'export SIW_LITE_TOP=%q\n' "$SIW_LITE_TOP"
	printf 'export SIW_LITE_KO=%q\n' "$ko"
	printf 'export SIW_LITE_LOGDIR=%q\n' "$logdir"
	printf 'export SIW_LITE_KVER=%q\n' "$kver"
	printf 'export SIW_LITE_IN_GUEST=1\n'
	[ $debug_kernel = no ] || printf 'export SIW_LITE_KMEMLEAK=1\n'
	printf 'export RDMAV_DRIVERS=%q\n' "$SIW_LITE_TOP/tools/provider/libsiw_lite"
	printf 'export PATH=%q\n' "$SIW_LITE_TOP/selftests:$SIW_LITE_TOP/scripts:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	printf 'export LC_ALL=C\n'
	for e in "${envs[@]}"; do
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
	# Same working directory as on the host when the guest can see it.
	printf 'cd %q 2>/dev/null || cd %q\n' "$PWD" "$SIW_LITE_TOP"
} >"$logdir/guest-env.sh"

# --- boot ---------------------------------------------------------------
# --verbose makes vng send the kernel console to its stderr, which we keep
# in console.log: it is the only record of a panic.  slub_debug catches
# use-after-free and overflows in the module's slab objects.
#
# tsc=reliable: under TCG the TSC drifts against the HPET, the clocksource
# watchdog then marks it unstable and the kernel re-patches sched_clock's
# static keys on a running system; Debian's 6.12 died of that twice here
# (an int3 oops in sched_clock_cpu mid-test, a guest lost).  Nothing we
# test depends on the clocksource.
#
# The guest sees the host's root read-only, except that virtme-ng puts fresh
# tmpfs on some directories (/var/tmp, /var/log, ...): a tree cloned there
# would be invisible, so mount the tree explicitly.  For the same reason
# start in / (a vanished working directory kills the guest's init) and let
# guest-env.sh cd back.
vng_args=(--run "$boot" --disable-kvm --verbose
	  --cpus "$cpus" --memory "$mem" --cwd /
	  --rodir "$SIW_LITE_TOP=$SIW_LITE_TOP"
	  --rwdir "$logdir=$logdir"
	  --append "slub_debug=FZP tsc=reliable$append"
	  --exec "bash $(printf %q "$SIW_LITE_TOP/scripts/vm-guest.sh") $logdir")
# Builds cached outside the tree (the siw interop peer) are hidden by the
# guest's /var overlay unless shared explicitly.
[ -d /var/cache/siw_lite ] &&
	vng_args+=(--rodir /var/cache/siw_lite=/var/cache/siw_lite)
# Another root: vng wants the working directory inside it, and every
# directory shared into the guest needs a mount point there (the guest
# cannot create one on a read-only root); empty directories, made once.
vng_dir=/
if [ -n "$root" ]; then
	for i in "${!vng_args[@]}"; do
		[ "${vng_args[$i]}" != --cwd ] || vng_args[i+1]=.
	done
	vng_args+=(--root "$root")
	vng_dir=$root
	mkdir -p "$root$SIW_LITE_TOP" "$root$logdir" "$root/var/cache/siw_lite" || exit 125
fi

echo "vm-run: kernel $kver, $cpus CPUs, $mem, timeout ${timeout_s}s, logs in $logdir"
start=$(date +%s)

# boot_guest: one boot running the command; sets vm_rc and interrupted.
boot_guest() {
	# qemu reopens /proc/self/fd/1 and /proc/self/fd/2: if those were
	# regular files (CI redirecting our output to a log) it would truncate
	# them and write at offset 0 over our own output.  Give it pipes.
	fifodir=$(mktemp -d)
	mkfifo "$fifodir/out" "$fifodir/err"
	tee -a "$logdir/output.log" <"$fifodir/out" &
	tee_pid=$!
	cat <"$fifodir/err" >>"$logdir/console.log" &
	cat_pid=$!

	# timeout(1) puts vng, its shell and qemu in a process group of their
	# own and kills the whole group when the time is up.
	(cd "$vng_dir" && exec timeout --kill-after=20 "$timeout_s" vng "${vng_args[@]}" \
		<"/dev/null" >"$fifodir/out" 2>"$fifodir/err") &
	vm_pid=$!

	# That group no longer gets the terminal's Ctrl-C, so pass signals on
	# ourselves; timeout forwards them to the group.
	interrupted=""
	forward() {
		interrupted=$1
		kill -s "$1" "$vm_pid" 2>/dev/null || true
	}
	trap 'forward INT' INT
	trap 'forward TERM' TERM
	trap 'forward HUP' HUP

	vm_rc=0
	while :; do
		wait "$vm_pid" && vm_rc=0 || vm_rc=$?
		# wait returns early when one of the traps above ran; keep waiting
		# until the VM is really gone.
		kill -0 "$vm_pid" 2>/dev/null || break
	done
	wait "$tee_pid" "$cat_pid" 2>/dev/null || true
	trap - INT TERM HUP
	rm -rf "$fifodir"
	elapsed=$(($(date +%s) - start))
}

# Debian's 6.12 under TCG now and then oopses on an int3 left by its own
# text patching (static keys), in early boot or in the first programs the
# guest runs.  When that happens before any module of ours is loaded (the
# oops says "Not tainted": no out-of-tree module yet), it is the emulator's
# and the kernel's, not ours: boot once more rather than fail the run.  The
# first console is kept beside the second.
tcg_int3_before_us() {
	grep -A1 -E 'Oops: int3' "$logdir/console.log" 2>/dev/null |
		grep -q 'Not tainted'
}

for attempt in 1 2; do
	boot_guest
	[ -z "$interrupted" ] && [ $vm_rc -ne 124 ] && [ $vm_rc -ne 137 ] &&
		[ ! -s "$logdir/cmd.status" ] && [ $attempt = 1 ] &&
		{ [ ! -s "$logdir/guest.started" ] || tcg_int3_before_us; } ||
		break
	mv "$logdir/console.log" "$logdir/console-boot1.log"
	echo "vm-run: the guest died before loading anything of ours (console: $logdir/console-boot1.log); booting again"
	rm -f "$logdir"/{guest.started,cmd.status,dmesg.txt,dmesg-live.log,tainted,output.log}
done

# --- verdict --------------------------------------------------------------
result=0
booted=no
completed=no
cmd_status=""
verdict=""

[ -s "$logdir/guest.started" ] && booted=yes
if [ -s "$logdir/cmd.status" ]; then
	completed=yes
	cmd_status=$(cat "$logdir/cmd.status")
fi

if [ -n "$interrupted" ]; then
	verdict="interrupted by SIG$interrupted"
	result=$((128 + $(kill -l "$interrupted")))
elif [ $vm_rc -eq 124 ] || [ $vm_rc -eq 137 ]; then
	verdict="TIMEOUT: guest still running after ${timeout_s}s, killed"
	result=124
elif [ $booted = no ]; then
	verdict="guest did not boot (vng exit status $vm_rc)"
	result=125
elif [ $completed = no ]; then
	verdict="guest died before the command finished (kernel panic?)"
	result=125
elif [ "$cmd_status" != 0 ]; then
	verdict="command failed with exit status $cmd_status"
	result=$cmd_status
	# vm-guest.sh uses 125 for its own setup failures.
	[ "$result" -ge 1 ] 2>/dev/null && [ "$result" -le 255 ] || result=1
else
	verdict="command succeeded"
fi

# The kernel log: the snapshot taken after the command, or if the guest
# never got there what was streamed, or failing that the console.
if [ -s "$logdir/dmesg.txt" ]; then
	klog=$logdir/dmesg.txt
elif [ -s "$logdir/dmesg-live.log" ]; then
	klog=$logdir/dmesg-live.log
else
	klog=$logdir/console.log
fi

# Anything the kernel reports when it detects a bug.  Deliberately broad: a
# false alarm is cheaper than a missed splat.
problem_re='WARNING:|(^|[^A-Za-z_])BUG[: ]|Oops|general protection|Kernel panic'
problem_re+='|possible circular locking|possible recursive locking|INFO: '
problem_re+='|KASAN|UBSAN|kmemleak|unreferenced object|Call Trace:'
problem_re+='|list_(add|del) corruption|refcount_t: |stack-protector'
problem_re+='|Poison overwritten|Redzone overwritten|double free|use-after-free'
problem_re+='|soft lockup|hard LOCKUP|blocked for more than|segfault at'
problem_re+='|waiting for .* to become free'
# Except what a debug kernel says at every boot, and kmemleak's summary
# line: its scan result (kmemleak.txt, below) is what counts.
benign_re='kmemleak: (Kernel memory leak detector initialized|[0-9]+ new suspected memory leaks)'

# problems FILE: the numbered lines of FILE that look like a kernel problem.
problems() {
	grep -En "$problem_re" "$1" | grep -Ev "$benign_re"
}

# A guest that died may have streamed its log only up to just before the
# oops; the console has the rest.
[ $completed = no ] && [ "$klog" != "$logdir/console.log" ] &&
	[ -s "$logdir/console.log" ] && klog=$logdir/console.log

dmesg_state=clean
if [ ! -s "$klog" ]; then
	dmesg_state=missing
elif problems "$klog" >/dev/null; then
	dmesg_state=dirty
	{
		echo "Kernel log problems in $klog:"
		problems "$klog" | head -n 40
		echo
		echo "Context of the first one:"
		first=$(problems "$klog" | head -n 1 | cut -d: -f1)
		sed -n "$((first > 5 ? first - 5 : 1)),$((first + 40))p" "$klog"
	} >"$logdir/dmesg-problems.txt"
fi
# The debug kernel's kmemleak scan after the command (vm-guest.sh): any
# object it lists leaked.
if [ -s "$logdir/kmemleak.txt" ]; then
	dmesg_state=dirty
	{
		echo "kmemleak found $(grep -c '^unreferenced object' "$logdir/kmemleak.txt") leaked objects ($logdir/kmemleak.txt):"
		head -n 60 "$logdir/kmemleak.txt"
	} >>"$logdir/dmesg-problems.txt"
fi

# Taint flags the kernel sets on its own when something went wrong:
# B bad page (32), D died/oops (128), W warning (512), L soft lockup (16384).
# O and E (out-of-tree, unsigned module) are expected and ignored.
taint=""
if [ -s "$logdir/tainted" ]; then
	t=$(cat "$logdir/tainted")
	for bit in 5:B 7:D 9:W 14:L; do
		(( (t >> ${bit%:*}) & 1 )) && taint+=${bit#*:}
	done
fi
[ -z "$taint" ] || [ "$dmesg_state" != clean ] || dmesg_state=dirty

if [ "$dmesg_state" = dirty ]; then
	[ "$result" -ne 0 ] || result=1
elif [ "$dmesg_state" = missing ] && [ "$result" -eq 0 ]; then
	result=125
fi

{
	echo "kernel=$kver"
	echo "booted=$booted"
	echo "completed=$completed"
	echo "cmd_status=$cmd_status"
	echo "vng_status=$vm_rc"
	echo "dmesg=$dmesg_state"
	echo "taint=$taint"
	echo "elapsed=$elapsed"
	echo "result=$result"
	echo "verdict=$verdict"
} >"$logdir/result"

echo "vm-run: $verdict (${elapsed}s)"
if [ -z "$interrupted" ] && { [ $booted = no ] || [ $completed = no ]; }; then
	echo "vm-run: last lines of the kernel console ($logdir/console.log):"
	tail -n 40 "$logdir/console.log" 2>/dev/null | sed 's/^/    /'
fi
case $dmesg_state in
dirty)
	echo "vm-run: FAIL: kernel reported problems${taint:+ (taint flags $taint)}:"
	if [ -s "$logdir/dmesg-problems.txt" ]; then
		sed 's/^/    /' "$logdir/dmesg-problems.txt" | head -n 60
	fi
	;;
missing)
	echo "vm-run: FAIL: no kernel log came back from the guest"
	;;
clean)
	echo "vm-run: kernel log clean"
	;;
esac
echo "vm-run: logs: $logdir (dmesg.txt, console.log, output.log, result)"
exit "$result"
