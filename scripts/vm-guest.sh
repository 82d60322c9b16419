#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of scripts/vm-run.sh; runs as root inside the virtme-ng guest.
# Usage (done by vm-run.sh): vm-guest.sh LOGDIR
#
# LOGDIR is shared read-write with the host.  vm-run.sh put guest-env.sh (the
# environment) and cmd.sh (the command) there; we leave behind:
#   guest.started   written as soon as we run: proves the guest booted
#   dmesg-live.log  kernel log streamed while running (survives hangs)
#   cmd.status      exit status of the command
#   dmesg.txt       complete kernel log after the command
#   tainted         /proc/sys/kernel/tainted after the command
#   kmemleak.txt    with SIW_LITE_KMEMLEAK=1 (the debug kernel): the
#                   objects a kmemleak scan after the command reports
#
# No "set -e": whatever the command does, we must still write the status and
# the kernel log, otherwise the host cannot tell a failure from a crash.
set -uo pipefail

logdir=${1:?usage: vm-guest.sh LOGDIR}

# The guest's stderr is multiplexed with the kernel console on the host side;
# send everything the command prints to stdout so the host shows it live and
# in order.
exec 2>&1

if ! echo "$(uname -r) $(date +%s)" >"$logdir/guest.started"; then
	echo "vm-guest: log dir $logdir is not writable in the guest" >&2
	exit 125
fi

# Stream the kernel log to the host while we run: if the command hangs and
# the host has to kill the VM, this is all that is left of the kernel log.
dmesg --follow >"$logdir/dmesg-live.log" 2>&1 &
follow_pid=$!

# shellcheck source=/dev/null
. "$logdir/guest-env.sh"

status=0

# The host filesystem is mounted read-only; tests need scratch space.
if ! TMPDIR=$(mktemp -d /tmp/siw_lite.XXXXXX) || ! touch "$TMPDIR/.probe"; then
	echo "vm-guest: /tmp is not writable in the guest" >&2
	status=125
fi
export TMPDIR

# kmemleak only reports an object that two scans found unreferenced and
# unchanged, and none younger than 5 seconds.
kmemleak=/sys/kernel/debug/kmemleak
kmemleak_scan() {
	echo scan >"$kmemleak" && sleep 6 && echo scan >"$kmemleak" &&
		cat "$kmemleak" >"$1"
}

# The debug kernel: put aside what kmemleak suspects from the boot (kept in
# kmemleak-boot.txt) so that the scan after the command only reports what
# leaked from here on.
if [ $status -eq 0 ] && [ "${SIW_LITE_KMEMLEAK:-0}" = 1 ]; then
	[ -e "$kmemleak" ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	if ! kmemleak_scan "$logdir/kmemleak-boot.txt" ||
	   ! echo clear >"$kmemleak"; then
		echo "vm-guest: kmemleak asked for but not usable ($kmemleak)" >&2
		status=125
	fi
fi

# The RDMA core the module (and every test) depends on.  These come from the
# Debian kernel's own /lib/modules; siw_lite.ko itself is loaded by the tests.
if [ $status -eq 0 ]; then
	for m in ib_core iw_cm rdma_cm ib_uverbs rdma_ucm; do
		if ! modprobe "$m"; then
			echo "vm-guest: modprobe $m failed" >&2
			status=125
			break
		fi
	done
fi

if [ $status -eq 0 ]; then
	echo "vm-guest: kernel $(uname -r), $(nproc) CPUs," \
		"$(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"
	echo "vm-guest: running: $(cat "$logdir/cmd.txt")"
	echo "vm-guest: ---- command output ----"
	bash "$logdir/cmd.sh" </dev/null
	status=$?
	echo "vm-guest: ---- command exited with status $status ----"
fi

echo "$status" >"$logdir/cmd.status"

if [ "${SIW_LITE_KMEMLEAK:-0}" = 1 ] && [ -e "$kmemleak" ]; then
	echo "vm-guest: kmemleak scan"
	# A failed scan must not pass for a clean one.
	kmemleak_scan "$logdir/kmemleak.txt" ||
		echo "vm-guest: kmemleak scan failed" >>"$logdir/kmemleak.txt"
	if [ -s "$logdir/kmemleak.txt" ]; then
		echo "vm-guest: kmemleak: $(grep -c '^unreferenced object' \
			"$logdir/kmemleak.txt") leaked objects, see kmemleak.txt"
	fi
fi

# Give printk a moment so messages emitted by the last step (e.g. deferred
# device teardown) are in the final snapshot.
sleep 1
dmesg >"$logdir/dmesg.txt" 2>&1
cat /proc/sys/kernel/tainted >"$logdir/tainted"
kill "$follow_pid" 2>/dev/null
wait "$follow_pid" 2>/dev/null
sync
exit "$status"
