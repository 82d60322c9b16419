#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark siw_lite against the in-tree siw, rdma_rxe and raw TCP in one
# throw-away guest, and write the table and chart:
#
#   scripts/bench.sh [options]
#
# Builds siw_lite (make), tools/testing/bench and the in-tree siw peer
# (scripts/siw-peer.sh, cached outside the tree), boots one vm-run.sh guest
# running scripts/bench-guest.sh, then turns the raw results into a table
# of medians with ratios and the issue's targets
# (tools/testing/bench/report.py).
#
# What is measured (see bench-guest.sh for the set-up and the CPU method):
# perftest -R ib_{send,write,read}_bw at 64 B, 4 KiB, 64 KiB, 1 MiB
# (MiB/s, message rate, CPU s/GB), ib_{send,write,read}_lat at 8 B and
# 4 KiB (typical = median, us); iperf3 single stream (default and -l 64K)
# and tools/testing/bench/tcp_pingpong at 8 B and 4 KiB for raw TCP.
#
# Options:
#   --quick            1 round, short runs, for development; the table
#                      goes to the log directory, not Documentation/
#   --rounds N         rounds (default 3; every (peer, test) once a round)
#   --duration S       seconds per bandwidth run (default 5, quick 4)
#   --lat-iters N      iterations per latency run (default 1000, quick 200)
#   --retries N        repeats of a run without a valid value (default 1)
#   --kernel VER       guest kernel (default: the newest Debian kernel with
#                      headers); the siw peer is built from its series'
#                      linux-source
#   --peers LIST       subset of "siw_lite siw rxe tcp base" (quoted list)
#   --base REV         also measure siw_lite.ko of git revision REV (a
#                      commit, a branch, main~5) as the peer "base", in
#                      the same rounds as the current build, and report
#                      siw_lite against it; adds "base" to the default
#                      peers (for a quick check: --peers "siw_lite base")
#   --profile          also profile siw_lite in ib_write_bw 64 KiB and 64 B,
#                      ib_write_lat, ib_send_lat and ib_read_lat 8 B (ftrace
#                      function_graph: calls and time per data-path
#                      function); reports land in LOGDIR/bench/profile/
#   --out DIR          where the report goes (default Documentation/, or the
#                      log directory with --quick): benchmark-<series>.md
#                      and .png for the kernel's series (6.12, 6.1), and
#                      benchmark.md, every series' report in one page
#   --logdir DIR       log directory (default /var/tmp/siw_lite-logs/...)
#   --timeout S        limit for the guest run (default: from the plan)
#   --report-only DIR  redo the table from an earlier log directory
#   -h, --help
#
# Raw outputs of every run stay in LOGDIR/bench/ (raw/, results.tsv).
# Exit status: 0 if every siw_lite measurement produced a value (a missed
# target is not a failure); 1 if siw_lite (or the --base one) failed to
# build, siw_lite failed to run or the guest reported a kernel problem; 2 for usage errors; otherwise vm-run.sh's.
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
	sed -n '4,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'
	exit "${1:-0}"
}

quick=0
rounds=""
duration=""
lat_iters=""
retries=1
peers="siw_lite siw rxe tcp"
peers_given=0
base_rev=""
profile=0
outdir=""
logdir=""
timeout_s=""
report_only=""
kver=""

while [ $# -gt 0 ]; do
	case $1 in
	--quick)	quick=1; shift ;;
	--rounds)	rounds=${2:?--rounds needs a value}; shift 2 ;;
	--duration)	duration=${2:?--duration needs a value}; shift 2 ;;
	--lat-iters)	lat_iters=${2:?--lat-iters needs a value}; shift 2 ;;
	--retries)	retries=${2:?--retries needs a value}; shift 2 ;;
	--peers)	peers=${2:?--peers needs a value}; peers_given=1; shift 2 ;;
	--base)		base_rev=${2:-}; shift $(($# < 2 ? 1 : 2))
			# "--base --quick" must not read as a revision (nor git
			# take it for an option)
			[[ -n $base_rev && $base_rev != -* ]] ||
				{ siwl_msg "--base needs a revision"; usage 2 >&2; } ;;
	--kernel)	kver=${2:?--kernel needs a value}; shift 2 ;;
	--profile)	profile=1; shift ;;
	--out)		outdir=${2:?--out needs a value}; shift 2 ;;
	--logdir)	logdir=${2:?--logdir needs a value}; shift 2 ;;
	--timeout)	timeout_s=${2:?--timeout needs a value}; shift 2 ;;
	--report-only)	report_only=${2:?--report-only needs a value}; shift 2 ;;
	-h|--help)	usage 0 ;;
	*)		siwl_msg "unknown argument $1"; usage 2 >&2 ;;
	esac
done

if [ $quick = 1 ]; then
	: "${rounds:=1}" "${duration:=4}" "${lat_iters:=200}"
else
	: "${rounds:=3}" "${duration:=5}" "${lat_iters:=1000}"
fi
for v in rounds duration lat_iters; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { siwl_msg "--${v/_/-} must be a positive number"; exit 2; }
done
[[ $retries =~ ^[0-9]+$ ]] || { siwl_msg "--retries must be a number"; exit 2; }
[ "$duration" -ge 3 ] || { siwl_msg "--duration must be at least 3 s (1 s margins)"; exit 2; }
TOP=$SIW_LITE_TOP
if [ -n "$base_rev" ]; then
	# resolved now, so a typo fails before minutes of building
	base_commit=$(git -C "$TOP" rev-parse --verify -q "$base_rev^{commit}") || {
		siwl_msg "--base: git does not know the revision '$base_rev'"
		exit 2
	}
	[ $peers_given = 1 ] || peers="$peers base"
fi
for p in $peers; do
	case $p in
	siw_lite|siw|rxe|tcp|base) ;;
	*) siwl_msg "unknown peer '$p' (siw_lite siw rxe tcp base)"; exit 2 ;;
	esac
done
if [[ " $peers " == *" base "* ]] && [ -z "$base_rev" ]; then
	siwl_msg "peer base needs --base REV"
	exit 2
fi

# report LOGDIR OUTDIR: benchmark-<series>.md/.png of the run in LOGDIR,
# then benchmark.md from every series' report in OUTDIR, newest first.
report() {
	local dir=$1 out=$2 k series rc f

	mkdir -p "$out" || return 2
	k=$(sed -n 's/^kernel //p' "$dir/bench/meta.txt" 2>/dev/null)
	series=$(siwl_kernel_series "$k") || series=unknown
	python3 "$TOP/tools/testing/bench/report.py" --results "$dir/bench/results.tsv" \
		--meta "$dir/bench/meta.txt" --md "$out/benchmark-$series.md" \
		--png "$out/benchmark-$series.png"
	rc=$?
	{
		echo "# siw_lite benchmark, per kernel"
		echo
		echo "Generated by \`scripts/bench.sh\` from the per-kernel reports" \
			"beside it (do not edit by hand): each kernel in a guest of its" \
			"own, against the in-tree siw of the same kernel series."
		for f in $(ls "$out"/benchmark-*.md 2>/dev/null | sort -rV); do
			echo
			echo "## Linux ${f##*/benchmark-}" | sed 's/\.md$//'
			echo
			echo "From [${f##*/}](${f##*/}):"
			# one heading level down, below this page's own
			sed -e '1{/^# /d}' -e 's/^#\(#*\) /##\1 /' "$f"
		done
	} >"$out/benchmark.md"
	return $rc
}

if [ -n "$report_only" ]; then
	report "$report_only" "${outdir:-$report_only}"
	exit $?
fi

[ -n "$logdir" ] || logdir=${SIW_LITE_LOGDIR:-/var/tmp/siw_lite-logs/$(date +%Y%m%d-%H%M%S)-bench-$$}
mkdir -p "$logdir/bench" || { siwl_msg "cannot create $logdir"; exit 2; }
logdir=$(cd "$logdir" && pwd -P)
if [ -z "$outdir" ]; then
	if [ $quick = 1 ]; then outdir=$logdir; else outdir=$TOP/Documentation; fi
fi

if [ -z "$kver" ]; then
	kver=$(siwl_pick_kernel) || {
		siwl_msg "no kernel with both /boot/vmlinuz-VER and /usr/src/linux-headers-VER"
		exit 125
	}
fi
siwl_check_kernel "$kver" || exit 125

# --- build on the host (the guest sees the tree read-only) ------------------
echo "bench: building siw_lite and tools/testing/bench (log: $logdir/build.log)"
if ! { make -C "$TOP" KDIR="/usr/src/linux-headers-$kver" &&
	make -C "$TOP/tools/testing/bench"; } >"$logdir/build.log" 2>&1; then
	tail -n 30 "$logdir/build.log" >&2
	siwl_msg "build failed; see $logdir/build.log"
	exit 1
fi

siw_args=()
if [[ " $peers " == *" siw "* ]]; then
	echo "bench: in-tree siw peer (scripts/siw-peer.sh --kernel $kver)"
	if ko=$("$TOP/scripts/siw-peer.sh" --kernel "$kver" 2>>"$logdir/build.log") &&
	   [ -f "$ko" ]; then
		# virtme-ng may hide parts of /var from the guest: hand it a copy
		# in the log directory, which the guest always sees.
		cp "$ko" "$logdir/bench/siw.ko" && siw_args=(--siw-ko "$logdir/bench/siw.ko")
	else
		siwl_msg "the in-tree siw could not be built (see $logdir/build.log); siw results will be missing"
	fi
fi

base_args=()
if [[ " $peers " == *" base "* ]]; then
	echo "bench: baseline siw_lite of $base_rev ($(git -C "$TOP" log -1 --format='%h %s' "$base_commit"))"
	# Built from a fresh export, not a checkout: the work tree (and its
	# objects for the current build) stay untouched.
	if ko=$(siwl_build_rev "$base_commit" "/usr/src/linux-headers-$kver" \
		"$logdir/base-src" 2>>"$logdir/build.log") &&
	   cp "$ko" "$logdir/bench/siw_lite-base.ko"; then
		base_args=(--base-ko "$logdir/bench/siw_lite-base.ko")
	else
		tail -n 30 "$logdir/build.log" >&2
		siwl_msg "siw_lite of $base_rev could not be built (see $logdir/build.log)"
		exit 1
	fi
fi

# --- the guest run ----------------------------------------------------------
# About 60 perftest/TCP runs a round, each DURATION plus a few seconds of
# connection set-up under TCG, and 18 more for the baseline; generous,
# since a killed guest loses all.
if [ -z "$timeout_s" ]; then
	runs=60
	[ ${#base_args[@]} = 0 ] || runs=$((runs + 18))
	timeout_s=$((600 + rounds * runs * (duration + 12)))
	[ $profile = 0 ] || timeout_s=$((timeout_s + 300))
fi
guest=("$TOP/scripts/bench-guest.sh" --out "$logdir/bench" --rounds "$rounds"
       --duration "$duration" --lat-iters "$lat_iters" --retries "$retries"
       --peers "$peers"
       "${siw_args[@]}" "${base_args[@]}")
[ $profile = 0 ] || guest+=(--profile)

echo "bench: kernel $kver, $rounds round(s), ${duration}s per bandwidth run, $lat_iters latency iterations, peers: $peers"
"$TOP/scripts/vm-run.sh" --kernel "$kver" -t "$timeout_s" -l "$logdir" -- "${guest[@]}"
vm_rc=$?
# The guest writes meta.txt afresh; the baseline's name is known only here.
if [ ${#base_args[@]} -gt 0 ] && [ -f "$logdir/bench/meta.txt" ]; then
	git -C "$TOP" log -1 --format='base_rev %h%nbase_subject %s' "$base_commit" \
		>>"$logdir/bench/meta.txt"
fi

# --- the table ------------------------------------------------------------
if [ ! -s "$logdir/bench/results.tsv" ]; then
	siwl_msg "no results came back from the guest (vm-run.sh exit $vm_rc); logs in $logdir"
	exit $((vm_rc ? vm_rc : 1))
fi
report "$logdir" "$outdir"
rep_rc=$?
echo "bench: raw results and logs in $logdir/bench"
[ $quick = 1 ] && echo "bench: --quick: table and chart left in $outdir, not in Documentation/"
if [ $vm_rc -ne 0 ]; then
	siwl_msg "the guest run failed (vm-run.sh exit $vm_rc): see $logdir/result"
	exit "$vm_rc"
fi
exit $rep_rc
