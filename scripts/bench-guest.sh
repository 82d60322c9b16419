#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of scripts/bench.sh: runs as root inside a vm-run.sh guest and
# measures siw_lite, the in-tree siw, rdma_rxe and raw TCP on the same
# netdev set-up.  Raw outputs and a results table (results.tsv) go to OUT.
#
#   bench-guest.sh --out DIR [--siw-ko FILE] [--base-ko FILE] [options]
#
# Options:
#   --out DIR          where results.tsv, meta.txt and raw/ go (required)
#   --siw-ko FILE      the in-tree siw built by scripts/siw-peer.sh
#                      (without it the siw peer is reported missing)
#   --base-ko FILE     siw_lite.ko of another revision, measured as the
#                      peer "base" with the same --siw-lite-params (without
#                      it the base peer is reported missing)
#   --peers LIST       space-separated subset of "siw_lite siw rxe tcp
#                      base"
#   --rounds N         rounds; every (peer, test) runs once per round (3)
#   --duration S       perftest -D / iperf3 time per bandwidth run (5)
#   --margin S         perftest -f: seconds left out at both ends (1)
#   --lat-iters N      iterations per latency run (1000)
#   --retries N        repeats of a run that gave no valid value (1)
#   --bw-tests LIST    bandwidth programs (default: ib_write_bw ib_send_bw
#                      ib_read_bw); --lat-tests LIST likewise for latency
#   --bw-sizes LIST    message sizes for bandwidth (64 4096 65536 1048576);
#                      --lat-sizes LIST likewise for latency (8 4096)
#   --siw-lite-params P  siw_lite settings, name=value words: module
#                      parameters go to insmod, the data path's knobs
#                      (drivers/siw_lite/tune.h) to debugfs after it
#                      ("tx_handoff=0 sq_poll_us=100")
#   --pin              pin server and client to different CPUs
#   --profile          after the rounds, profile siw_lite runs (ftrace
#                      function_graph of the data path's functions):
#                      ib_write_bw 64 KiB and 64 B, ib_write_lat,
#                      ib_send_lat and ib_read_lat 8 B
#   --profile-runs L   profile these instead ("ib_write_bw:64 ..."); implies
#                      --profile
#   -h, --help
#
# The set-up: namespaces bench-A and bench-B joined by the veth pair
# bvA (192.0.2.1) / bvB (192.0.2.2), servers in A, clients in B, one RDMA
# device per namespace for siw_lite and siw, iperf3/tcp_pingpong for TCP.
# rdma_rxe in Debian's 6.1 opens its UDP socket and looks routes up only in
# the initial namespace, so it cannot run between namespaces: it gets one
# device on a veth (bvR0, 192.0.2.65, same MTU) in the initial namespace
# and both ends use it (rxe loops such traffic back inside the driver).
#
# Placement: the scheduler places server and client; with --pin the
# server runs on the last CPU and the client on CPU 0 (taskset), for every
# peer.  perftest's server and client both busy-poll, and in the 2-vCPU
# guest ps showed them sharing one CPU for seconds while the other idled.
# Pinning did not make siw_lite's 64 KiB Write and Send rounds agree,
# though (one guest run, 3 rounds: ib_send_bw 154, 187 and 143 MiB/s), so
# it is not the default.  Kernel threads and softirqs are never pinned.
#
# Interleaving: each round runs the tests program by program; for each
# program every peer takes its turn, in an order rotated by round and
# program, so slow drift of the guest hits all peers alike.  Only one RDMA
# driver is loaded at a time (loaded when its turn comes): siw_lite and
# base are both the module siw_lite, and one must be gone before the other
# loads.
#
# Timing: perftest converts its cycle counts with a TSC rate it samples
# over a few milliseconds, which fails on a busy TCG host (it then prints
# 0.00 or inf).  So bandwidth runs use duration mode and we take the
# number of iterations perftest counted in its sample phase divided by the
# phase's length (DURATION - 2*MARGIN s, timed by alarm()); latency runs
# report cycles (-C), converted with tools/testing/bench/tsc_mhz's rate.
#
# CPU cost: for every bandwidth run, /proc/stat is sampled over the middle
# of the run (from MARGIN+0.3 s after the client printed its result
# header to 0.3 s before MARGIN from the end).  All CPUs of the guest count,
# so both endpoints, softirq and kernel threads are included.  Reported as
# CPU seconds per GB (10^9 bytes) moved: total (user+system+irq+softirq)
# and kernel (system+irq+softirq).
#
# Exit status: 0 if the run completed (missing values are recorded as NA
# in results.tsv; bench.sh judges them), 1 on set-up failure, 2 on usage
# errors.
set -u -o pipefail

usage() {
	sed -n '4,/^set -u/p' "${BASH_SOURCE[0]}" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'
	exit "${1:-0}"
}

out=""
siw_ko=""
base_ko=""
peers="siw_lite siw rxe tcp"
rounds=3
duration=5
margin=1
lat_iters=1000
retries=1
profile=0
pin=0
BW_TESTS="ib_write_bw ib_send_bw ib_read_bw"
LAT_TESTS="ib_write_lat ib_send_lat ib_read_lat"
BW_SIZES="64 4096 65536 1048576"
LAT_SIZES="8 4096"
siwl_params=""
PROFILE_RUNS="ib_write_bw:65536 ib_write_bw:64 ib_write_lat:8 ib_send_lat:8 ib_read_lat:8"

while [ $# -gt 0 ]; do
	case $1 in
	--out)		out=${2:?}; shift 2 ;;
	--siw-ko)	siw_ko=${2:?}; shift 2 ;;
	--base-ko)	base_ko=${2:?}; shift 2 ;;
	--peers)	peers=${2:?}; shift 2 ;;
	--rounds)	rounds=${2:?}; shift 2 ;;
	--duration)	duration=${2:?}; shift 2 ;;
	--margin)	margin=${2:?}; shift 2 ;;
	--lat-iters)	lat_iters=${2:?}; shift 2 ;;
	--retries)	retries=${2:?}; shift 2 ;;
	--profile)	profile=1; shift ;;
	--pin)		pin=1; shift ;;
	--bw-tests)	BW_TESTS=${2?}; shift 2 ;;
	--lat-tests)	LAT_TESTS=${2?}; shift 2 ;;
	--bw-sizes)	BW_SIZES=${2?}; shift 2 ;;
	--lat-sizes)	LAT_SIZES=${2?}; shift 2 ;;
	--siw-lite-params) siwl_params=${2?}; shift 2 ;;
	--profile-runs)	PROFILE_RUNS=${2?}; profile=1; shift 2 ;;
	-h|--help)	usage 0 ;;
	*)		echo "bench-guest: unknown argument $1" >&2; usage 2 >&2 ;;
	esac
done

die() {
	echo "bench-guest: $*" >&2
	exit 1
}

[ -n "$out" ] || { echo "bench-guest: --out is required" >&2; exit 2; }
[[ $siwl_params =~ ^[a-z0-9_=\ ]*$ ]] ||
	{ echo "bench-guest: --siw-lite-params takes name=value words" >&2; exit 2; }
for v in rounds duration margin lat_iters retries; do
	[[ ${!v} =~ ^[0-9]+$ ]] || { echo "bench-guest: --${v/_/-} must be a number" >&2; exit 2; }
done
[ "$duration" -gt $((2 * margin)) ] ||
	{ echo "bench-guest: --duration must exceed twice --margin" >&2; exit 2; }
[ "${SIW_LITE_IN_GUEST:-0}" = 1 ] || die "run inside the test VM (scripts/bench.sh does)"
[ "$(id -u)" = 0 ] || die "must run as root"

TOP=${SIW_LITE_TOP:?}
SIWL_KO=${SIW_LITE_KO:-$TOP/drivers/siw_lite/siw_lite.ko}
PINGPONG=$TOP/tools/testing/bench/tcp_pingpong
TSC_MHZ=$TOP/tools/testing/bench/tsc_mhz
mkdir -p "$out/raw" || die "cannot write to $out"
RES=$out/results.tsv
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX") || die "no scratch dir"

NS_A=bench-A
NS_B=bench-B
IP_A=192.0.2.1
IP_B=192.0.2.2
IP_R=192.0.2.65
PORT=21000
SRV_RC=0
CLI_RC=0

log() {
	echo "bench: $*"
}

# record ROUND PEER TEST SIZE METRIC VALUE
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RES"
}

now() {
	date +%s.%N
}

# ------------------------------------------------------------ set-up

netns_cleanup() {
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	ip link del bvR0 2>/dev/null
	return 0
}

netns_setup() {
	netns_cleanup
	# The in-tree siw binds a wildcard listen to the device's ifindex and
	# the listen covers both devices: with veths created inside the
	# namespaces both get ifindex 2 and the second bind fails (EADDRINUSE).
	# Created here and moved, they keep distinct indexes.
	ip netns add "$NS_A" && ip netns add "$NS_B" &&
	ip link add bvA type veth peer name bvB &&
	ip link set bvA netns "$NS_A" && ip link set bvB netns "$NS_B" &&
	ip -n "$NS_A" addr add "$IP_A/24" dev bvA &&
	ip -n "$NS_B" addr add "$IP_B/24" dev bvB &&
	ip -n "$NS_A" link set lo up && ip -n "$NS_B" link set lo up &&
	ip -n "$NS_A" link set bvA up && ip -n "$NS_B" link set bvB up &&
	ip link add bvR0 type veth peer name bvR1 &&
	ip addr add "$IP_R/24" dev bvR0 &&
	ip link set bvR0 up && ip link set bvR1 up || return 1
	# A refused connect proves the path works and resolves the neighbour.
	local msg
	msg=$(ip netns exec "$NS_B" timeout 5 bash -c "exec 3<>/dev/tcp/$IP_A/9" 2>&1)
	grep -q refused <<<"$msg" || { echo "no TCP path from $NS_B to $IP_A: $msg" >&2; return 1; }
}

port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null
}

wait_for() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

dev_gone() {
	[ ! -e "/sys/class/infiniband/$1" ]
}

# What each peer's runs need: namespaces of server and client, the server
# address and the devices (empty for TCP).
peer_env() {
	case $1 in
	rxe)
		SRV_NS=""; CLI_NS=""; SRV_IP=$IP_R; DEV_S=bench_r; DEV_C=bench_r ;;
	*)
		SRV_NS=$NS_A; CLI_NS=$NS_B; SRV_IP=$IP_A; DEV_S=bench_a; DEV_C=bench_b ;;
	esac
}

# in_ns NS CMD...: run CMD in namespace NS ("" = the initial one).
in_ns() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

load_deps() {
	local m
	for m in ib_core iw_cm rdma_cm ib_uverbs rdma_ucm $(modinfo -F depends "$1" | tr , ' '); do
		modprobe "$m" || return 1
	done
}

# siwl_insmod_tuned KO: loads KO (this tree's siw_lite or the baseline's)
# with $siwl_params: module parameters on insmod's command line, the
# development knobs into debugfs.  A build that lacks one of them is not
# left loaded: peer_down only unloads what peer_up completed.
siwl_insmod_tuned() {
	local ko=$1 w name mod=() knob=() dbg=/sys/kernel/debug

	# Both builds are the module siw_lite: insmod must not meet the other.
	[ ! -e /sys/module/siw_lite ] || { echo "siw_lite is still loaded" >&2; return 1; }
	for w in $siwl_params; do
		name=${w%%=*}
		if modinfo -F parm "$ko" | grep -q "^$name:"; then
			mod+=("$w")
		else
			knob+=("$w")
		fi
	done
	insmod "$ko" "${mod[@]}" || return 1
	[ ${#knob[@]} = 0 ] && return 0
	mountpoint -q "$dbg" || mount -t debugfs debugfs "$dbg" || { rmmod siw_lite; return 1; }
	for w in "${knob[@]}"; do
		echo "${w#*=}" >"$dbg/siw_lite/${w%%=*}" || {
			echo "bench-guest: no siw_lite setting ${w%%=*} in $ko" >&2
			rmmod siw_lite
			return 1
		}
	done
}

LOADED=""

peer_up() {
	local p=$1 type
	peer_env "$p"
	[ "$LOADED" = "$p" ] && return 0
	peer_down
	case $p in
	tcp)
		LOADED=tcp
		return 0 ;;
	siw_lite)
		load_deps "$SIWL_KO" && siwl_insmod_tuned "$SIWL_KO" || return 1 ;;
	base)
		[ -n "$base_ko" ] && [ -f "$base_ko" ] || { echo "no baseline siw_lite.ko" >&2; return 1; }
		load_deps "$base_ko" && siwl_insmod_tuned "$base_ko" || return 1 ;;
	siw)
		[ -n "$siw_ko" ] && [ -f "$siw_ko" ] || { echo "no siw.ko" >&2; return 1; }
		load_deps "$siw_ko" && insmod "$siw_ko" || return 1 ;;
	rxe)
		modprobe rdma_rxe || return 1 ;;
	esac
	LOADED=$p
	if [ "$p" = rxe ]; then
		rdma link add bench_r type rxe netdev bvR0 || return 1
	else
		# the baseline registers the link type of its module name
		type=$p
		[ "$p" = base ] && type=siw_lite
		ip netns exec "$NS_A" rdma link add bench_a type "$type" netdev bvA &&
		ip netns exec "$NS_B" rdma link add bench_b type "$type" netdev bvB ||
			return 1
	fi
	wait_for 15 port_active "$DEV_S" && wait_for 15 port_active "$DEV_C" || {
		echo "$p ports did not become ACTIVE" >&2
		return 1
	}
}

peer_down() {
	local d mod
	case $LOADED in
	"" | tcp)
		LOADED=""
		return 0 ;;
	siw_lite | base) mod=siw_lite ;;
	siw) mod=siw ;;
	rxe) mod=rdma_rxe ;;
	esac
	for d in bench_a bench_b bench_r; do
		[ -e "/sys/class/infiniband/$d" ] || continue
		rdma link delete "$d" 2>/dev/null
		wait_for 15 dev_gone "$d" || echo "bench: device $d did not go away" >&2
	done
	rmmod "$mod" || echo "bench: rmmod $mod failed" >&2
	LOADED=""
}

cleanup() {
	peer_down
	netns_cleanup
	rm -rf "$TMP"
}
trap cleanup EXIT

# ------------------------------------------------------------ measuring

# cpu_sampler CLIENT_OUT PATTERN SKIP LENGTH RESULT: snapshots of /proc/stat
# every 0.25 s until the client ends, each with the time and the time
# PATTERN first showed up in CLIENT_OUT (empty PATTERN: from the start).
# Only builtins in the loop: forks are slow on a loaded TCG guest and
# would blur the timing.  Then picks the snapshots SKIP s after PATTERN
# and LENGTH s later, and writes "wall busy kernel" (seconds, all CPUs).
cpu_sampler() {
	local f=$1 pat=$2 skip=$3 len=$4 res=$5 t_hdr="" line fd
	[ -n "$pat" ] || t_hdr=$EPOCHREALTIME
	exec {fd}<> <(:)
	while [ ! -e "$TMP/cli.done" ]; do
		if [ -z "$t_hdr" ]; then
			while IFS= read -r line; do
				[[ $line == *"$pat"* ]] && { t_hdr=$EPOCHREALTIME; break; }
			done <"$f"
		fi
		read -r line </proc/stat
		echo "$EPOCHREALTIME ${t_hdr:-0} $line"
		read -r -t 0.25 -u "$fd"
	done >"$TMP/stat.log"
	exec {fd}<&-
	# user nice system idle iowait irq softirq steal (ticks of CLK_TCK)
	awk -v skip="$skip" -v len="$len" -v hz="$(getconf CLK_TCK)" '
		$2 > 0 { h = $2 }
		h > 0 && $1 >= h + skip && !a { a = 1; t0 = $1; for (i = 4; i <= 11; i++) x[i] = $i }
		h > 0 && $1 <= h + skip + len { t1 = $1; for (i = 4; i <= 11; i++) y[i] = $i }
		END {
			if (!a || t1 - t0 < len / 2) { print "short"; exit }
			for (i = 4; i <= 11; i++) d[i] = y[i] - x[i]
			busy = d[4] + d[5] + d[6] + d[9] + d[10] + d[11]
			kern = d[6] + d[9] + d[10]
			printf "%.3f %.3f %.3f\n", t1 - t0, busy / hz, kern / hz
		}' "$TMP/stat.log" >"$res.tmp"
	if grep -q short "$res.tmp"; then
		echo "cpu: fewer samples than half the window" >>"$TMP/note"
	else
		mv "$res.tmp" "$res"
	fi
}

# cpu_per_gb RESULT MIB_PER_S: prints "total kernel" CPU-s per 10^9 bytes.
cpu_per_gb() {
	[ -s "$1" ] || return 1
	awk -v bw="$2" '{
		if ($1 <= 0 || bw <= 0) exit 1
		gbps = bw * 1048576 / 1e9
		printf "%.3f %.3f\n", $2 / $1 / gbps, $3 / $1 / gbps
	}' "$1"
}

# A value perftest printed that we can use: a positive finite number.
good_num() {
	[[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v v="$1" 'BEGIN { exit !(v > 0) }'
}

# rdma_cm shows the id listening before the driver has its own listener:
# for the iWARP peers also wait for the TCP socket.
srv_ready_cm() {
	in_ns "$SRV_NS" rdma res show cm_id 2>/dev/null |
		grep -Eq "LISTEN.*:$PORT( |\$)" || return 1
	[ "$LOADED" = rxe ] ||
		in_ns "$SRV_NS" ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q .
}

srv_ready_re() {
	grep -Eq -- "$1" "$TMP/srv.out" 2>/dev/null
}

# pair TIMEOUT READY_FN -- SERVER... --- CLIENT...: server in SRV_NS, client
# in CLI_NS; sets SRV_RC/CLI_RC, outputs in $TMP/srv.out and $TMP/cli.out.
pair() {
	local tmo=$1 ready=$2 spid end name
	local -a srv=() cli=()
	shift 2
	while [ "$1" != "---" ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	: >"$TMP/cli.out"
	rm -f "$TMP/cli.done"
	name=${srv[0]}
	if [ "$pin" = 1 ] && [ "$(nproc)" -gt 1 ]; then
		srv=(taskset -c "$(($(nproc) - 1))" "${srv[@]}")
		cli=(taskset -c 0 "${cli[@]}")
	fi
	in_ns "$SRV_NS" timeout -k 5 "$tmo" stdbuf -oL "${srv[@]}" >"$TMP/srv.out" 2>&1 </dev/null &
	spid=$!
	: >"$TMP/note"
	wait_for 20 $ready ||
		echo "server $name not seen ready after 20 s" >>"$TMP/note"
	[ -n "${PAIR_HOOK:-}" ] && $PAIR_HOOK &
	in_ns "$CLI_NS" timeout -k 5 "$tmo" stdbuf -oL "${cli[@]}" >>"$TMP/cli.out" 2>&1 </dev/null
	CLI_RC=$?
	: >"$TMP/cli.done"
	if [ "$CLI_RC" != 0 ]; then
		end=$(($(date +%s) + 10))
		while kill -0 "$spid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
			sleep 0.5
		done
		kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	SRV_RC=$?
	wait 2>/dev/null
}

keep() {
	cp "$TMP/srv.out" "$out/raw/$1.server.log" 2>/dev/null
	cp "$TMP/cli.out" "$out/raw/$1.client.log" 2>/dev/null
	{
		echo "server exit $SRV_RC, client exit $CLI_RC"
		cat "$TMP/note" 2>/dev/null
		[ -s "$TMP/cpu" ] && echo "cpu window (wall busy kernel): $(cat "$TMP/cpu")"
	} >"$out/raw/$1.status"
}

# One perftest bandwidth run; sets VAL_BW (MiB/s), VAL_MR (Kmsg/s), VAL_CPU
# ("total kernel") or leaves them empty.
perf_bw_once() {
	local t=$1 size=$2 name=$3 line
	local -a args=(-R -F -s "$size" -D "$duration" -f "$margin")
	VAL_BW=""; VAL_MR=""; VAL_CPU=""; VAL_LAT=""
	PORT=$((PORT + 1))
	rm -f "$TMP/cpu"
	# perftest prints its result header when the timed run starts; the
	# window keeps 0.3 s off both ends of the sampled phase.
	[ -n "${PAIR_HOOK:-}" ] ||
	PAIR_HOOK="cpu_sampler $TMP/cli.out #bytes $margin.2 $(awk -v d="$duration" -v m="$margin" 'BEGIN { print d - 2 * m - 0.4 }') $TMP/cpu"
	pair $((duration + 90)) srv_ready_cm \
		"$t" "${args[@]}" -d "$DEV_S" -p "$PORT" --- \
		"$t" "${args[@]}" -d "$DEV_C" -p "$PORT" "$SRV_IP"
	PAIR_HOOK=""
	keep "$name"
	VAL_BW=""; VAL_MR=""; VAL_CPU=""
	[ "$SRV_RC" = 0 ] && [ "$CLI_RC" = 0 ] || return 1
	line=$(awk -v s="$size" '$1 == s && NF >= 5 { l = $0 } END { print l }' "$TMP/cli.out")
	set -- $line
	# $2: completions counted in the sample phase (see "Timing" above)
	[ $# -ge 5 ] && good_num "$2" || return 1
	read -r VAL_BW VAL_MR < <(awk -v n="$2" -v s="$size" -v w="$((duration - 2 * margin))" \
		'BEGIN { printf "%.4f %.4f\n", n * s / w / 1048576, n / w / 1000 }')
	VAL_CPU=$(cpu_per_gb "$TMP/cpu" "$VAL_BW") || VAL_CPU=""
	return 0
}

perf_lat_once() {
	local t=$1 size=$2 name=$3 line
	local -a args=(-R -F -C -s "$size" -n "$lat_iters")
	VAL_BW=""; VAL_MR=""; VAL_CPU=""; VAL_LAT=""
	PORT=$((PORT + 1))
	rm -f "$TMP/cpu"
	pair 300 srv_ready_cm \
		"$t" "${args[@]}" -d "$DEV_S" -p "$PORT" --- \
		"$t" "${args[@]}" -d "$DEV_C" -p "$PORT" "$SRV_IP"
	keep "$name"
	VAL_LAT=""
	[ "$SRV_RC" = 0 ] && [ "$CLI_RC" = 0 ] || return 1
	line=$(awk -v s="$size" '$1 == s && NF >= 6 { l = $0 } END { print l }' "$TMP/cli.out")
	set -- $line
	# $5: t_typical in cycles
	[ $# -ge 5 ] && good_num "$5" || return 1
	VAL_LAT=$(awk -v c="$5" -v f="$MHZ" 'BEGIN { printf "%.3f", c / f }')
}

iperf_once() {
	local len=$1 name=$2 w
	w=$((duration - 2 * margin))
	PORT=$((PORT + 1))
	rm -f "$TMP/cpu"
	# iperf3 prints nothing until the end with -J: time the window from
	# the start of the client instead.
	PAIR_HOOK="iperf_cpu_hook $w"
	pair $((duration + 60)) "srv_ready_re listening" \
		iperf3 -s -1 -B "$IP_A" -p "$PORT" --- \
		iperf3 -c "$IP_A" -p "$PORT" -t "$w" -O "$margin" -J ${len:+-l "$len"}
	PAIR_HOOK=""
	keep "$name"
	VAL_BW=""; VAL_CPU=""
	[ "$SRV_RC" = 0 ] && [ "$CLI_RC" = 0 ] || return 1
	VAL_BW=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("%.2f" % (d["end"]["sum_received"]["bits_per_second"] / 8 / 1048576))
' "$TMP/cli.out" 2>/dev/null) && good_num "$VAL_BW" || { VAL_BW=""; return 1; }
	VAL_CPU=$(cpu_per_gb "$TMP/cpu" "$VAL_BW") || VAL_CPU=""
	return 0
}

iperf_cpu_hook() {
	cpu_sampler "$TMP/cli.out" "" "$margin.2" \
		"$(awk -v w="$1" 'BEGIN { print w - 0.4 }')" "$TMP/cpu"
}

pingpong_once() {
	local size=$1 name=$2 line
	PORT=$((PORT + 1))
	rm -f "$TMP/cpu"
	pair 300 "srv_ready_re listening" \
		"$PINGPONG" --server --bind "$IP_A" --port "$PORT" --size "$size" --- \
		"$PINGPONG" --client "$IP_A" --port "$PORT" --size "$size" \
		--iters "$lat_iters" --warmup 50
	keep "$name"
	VAL_LAT=""
	[ "$SRV_RC" = 0 ] && [ "$CLI_RC" = 0 ] || return 1
	line=$(awk -v s="$size" '$1 == s && NF >= 6 { l = $0 } END { print l }' "$TMP/cli.out")
	set -- $line
	[ $# -ge 5 ] && good_num "$5" || return 1
	VAL_LAT=$5
}

# with_retry FN ARGS...: perftest prints 0.00 or inf when it cannot
# calibrate its cycle counter against gettimeofday (its regression fails
# on a busy TCG host: "Correlation coefficient r^2 < 0.9"); such a run
# counts as missing and is repeated up to RETRIES times.
with_retry() {
	local fn=$1 name=${*: -1} i
	echo "$(date +%T) $name" >>"$out/progress.log"
	"$fn" "${@:2}" && return 0
	for ((i = 1; i <= retries; i++)); do
		log "$name: no valid result (server exit $SRV_RC, client exit $CLI_RC), retrying"
		cp "$out/raw/$name.client.log" "$out/raw/$name.try$i.client.log" 2>/dev/null
		cp "$out/raw/$name.server.log" "$out/raw/$name.try$i.server.log" 2>/dev/null
		"$fn" "${@:2}" && return 0
	done
	return 1
}

# block ROUND PEER TEST: every size of one test program for one peer.
block() {
	local r=$1 p=$2 t=$3 s name
	if ! peer_up "$p" 2>"$TMP/up.err"; then
		log "round $r: cannot set up $p: $(tr '\n' ' ' <"$TMP/up.err")"
		peer_down 2>/dev/null
		case $t in *_bw) for s in $BW_SIZES; do record "$r" "$p" "$t" "$s" bw NA; done ;;
		*) for s in $LAT_SIZES; do record "$r" "$p" "$t" "$s" lat NA; done ;;
		esac
		return 0
	fi
	if [ "$p" = tcp ]; then
		case $t in
		*_bw)
			for s in 131072 65536; do
				name=r$r-tcp-iperf3-$s
				with_retry iperf_once "$([ "$s" = 65536 ] && echo 64K)" "$name"
				record "$r" tcp iperf3 "$s" bw "${VAL_BW:-NA}"
				[ -z "$VAL_CPU" ] || {
					record "$r" tcp iperf3 "$s" cpu_total "${VAL_CPU% *}"
					record "$r" tcp iperf3 "$s" cpu_kernel "${VAL_CPU#* }"
				}
				log "round $r tcp iperf3 -l $s: ${VAL_BW:-NA} MiB/s, CPU s/GB ${VAL_CPU:-NA}"
			done ;;
		*)
			for s in $LAT_SIZES; do
				name=r$r-tcp-pingpong-$s
				with_retry pingpong_once "$s" "$name"
				record "$r" tcp tcp_pingpong "$s" lat "${VAL_LAT:-NA}"
				log "round $r tcp tcp_pingpong $s B: ${VAL_LAT:-NA} us"
			done ;;
		esac
		return 0
	fi
	case $t in
	*_bw)
		for s in $BW_SIZES; do
			name=r$r-$p-$t-$s
			with_retry perf_bw_once "$t" "$s" "$name"
			record "$r" "$p" "$t" "$s" bw "${VAL_BW:-NA}"
			[ -z "$VAL_MR" ] || record "$r" "$p" "$t" "$s" mrate "$VAL_MR"
			[ -z "$VAL_CPU" ] || {
				record "$r" "$p" "$t" "$s" cpu_total "${VAL_CPU% *}"
				record "$r" "$p" "$t" "$s" cpu_kernel "${VAL_CPU#* }"
			}
			log "round $r $p $t $s B: ${VAL_BW:-NA} MiB/s, ${VAL_MR:-NA} Kmsg/s, CPU s/GB ${VAL_CPU:-NA}"
		done ;;
	*)
		for s in $LAT_SIZES; do
			name=r$r-$p-$t-$s
			with_retry perf_lat_once "$t" "$s" "$name"
			record "$r" "$p" "$t" "$s" lat "${VAL_LAT:-NA}"
			log "round $r $p $t $s B: ${VAL_LAT:-NA} us"
		done ;;
	esac
}

# ------------------------------------------------------------ profile

# Profile one run of TEST at SIZE over siw_lite into $out/profile/.
# perf's sampling does not work under TCG (there is no PMU, and cpu-clock
# samples came out 99.7 % idle while the run was busy), so this is a
# function_graph trace of the functions on the data path: how often each
# ran and how long a call took, callees included.  Tracing slows every
# traced call; the run's own result shows by how much.
PROFILE_FUNCS="ib_uverbs_write siwl_usq_doorbell siwl_qp_tx_direct siwl_qp_tx_work
 siwl_tx_step kernel_sendpage tcp_sendpage tcp_sendmsg siwl_sk_data_ready siwl_qp_rx
 siwl_qp_rx_work tcp_v4_rcv tcp_read_sock netif_rx veth_xmit net_rx_action
 siwl_cq_push siwl_mr_get crc32c siwl_queue_elsewhere siwl_qp_kick
 siwl_rx_place siwl_rx_place_send siwl_rx_take_rqe siwl_rx_hdr siwl_tx_gather skb_copy_bits"
profile_run() {
	local t=$1 size=$2 name=prof-$1-$2 pdir=$out/profile tr=/sys/kernel/tracing f
	mkdir -p "$pdir"
	peer_up siw_lite || { log "profile: cannot set up siw_lite"; return 1; }
	[ -e $tr/current_tracer ] || mount -t tracefs nodev $tr 2>/dev/null
	grep -qw function_graph $tr/available_tracers 2>/dev/null ||
		{ log "profile: no function_graph tracer"; return 1; }
	echo nop >$tr/current_tracer
	: >$tr/set_ftrace_filter
	for f in $PROFILE_FUNCS; do
		echo "$f" >>$tr/set_ftrace_filter 2>/dev/null
	done
	echo 8192 >$tr/buffer_size_kb
	echo 1 >$tr/options/funcgraph-tail 2>/dev/null
	: >$tr/trace
	echo function_graph >$tr/current_tracer
	echo 1 >$tr/tracing_on
	case $t in *_bw) perf_bw_once "$t" "$size" "$name" ;; *) perf_lat_once "$t" "$size" "$name" ;; esac
	# stop, not switch tracers: a new tracer empties the buffer
	echo 0 >$tr/tracing_on
	log "profile $t $size B (traced): ${VAL_BW:+$VAL_BW MiB/s, $VAL_MR Kmsg/s}${VAL_LAT:+$VAL_LAT us}"
	timeout 120 head -n 200 $tr/trace >"$pdir/$name.trace-head.txt"
	timeout 120 cat $tr/trace | awk '
		match($0, /[0-9]+\.[0-9]+ us +\|/) {
			d = substr($0, RSTART, RLENGTH); sub(/ us.*/, "", d)
			rest = substr($0, RSTART + RLENGTH)
			if (match(rest, /\/\* [A-Za-z0-9_.]+/))
				fn = substr(rest, RSTART + 3, RLENGTH - 3)
			else if (match(rest, /[A-Za-z0-9_.]+( \[[A-Za-z0-9_]+\])?\(\);/)) {
				# a leaf call: a function of a module ends in " [module]"
				fn = substr(rest, RSTART, RLENGTH - 3)
				sub(/ .*/, "", fn)
			}
			else
				next
			n[fn]++; tot[fn] += d
		}
		END {
			printf "%-28s %9s %12s %10s\n", "function", "calls", "total us", "us/call"
			for (f in n)
				printf "%-28s %9d %12.0f %10.2f\n", f, n[f], tot[f], tot[f] / n[f]
		}' | sort -k3,3nr >"$pdir/$name.fgraph.txt"
	echo nop >$tr/current_tracer
	: >$tr/set_ftrace_filter
	: >$tr/trace
	echo 1 >$tr/tracing_on
	log "profile $t $size B: $pdir/$name.fgraph.txt"
	sed 's/^/    /' "$pdir/$name.fgraph.txt"
}

# ------------------------------------------------------------ main

: >"$RES"
{
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "mem_mib $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)"
	echo "rounds $rounds"
	echo "duration $duration"
	echo "margin $margin"
	echo "lat_iters $lat_iters"
	echo "peers $peers"
	echo "perftest $(dpkg-query -W -f '${Version}' perftest 2>/dev/null)"
	echo "iperf3 $(dpkg-query -W -f '${Version}' iperf3 2>/dev/null)"
	echo "siw_ko ${siw_ko:-none}"
	echo "base_ko ${base_ko:-none}"
	echo "siw_lite_params ${siwl_params:-none}"
	echo "pinned $pin"
	echo "start $(date -u +%FT%TZ)"
} >"$out/meta.txt"

[ -x "$PINGPONG" ] || die "$PINGPONG not built (make -C tools/testing/bench)"
[ -f "$SIWL_KO" ] || die "$SIWL_KO not built (make)"
[ -x "$TSC_MHZ" ] || die "$TSC_MHZ not built (make -C tools/testing/bench)"
MHZ=$("$TSC_MHZ") && good_num "$MHZ" || die "cannot measure the TSC rate"
echo "tsc_mhz $MHZ" >>"$out/meta.txt"
echo "cpuinfo_mhz $(awk -F': ' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)" >>"$out/meta.txt"
log "TSC rate ${MHZ} MHz"
netns_setup 2>"$TMP/setup.err" || die "network set-up failed: $(cat "$TMP/setup.err")"

read -r -a peer_list <<<"$peers"
n=${#peer_list[@]}
t_start=$(date +%s)
for ((r = 1; r <= rounds; r++)); do
	log "---- round $r of $rounds ($(($(date +%s) - t_start)) s so far) ----"
	ti=0
	for t in $BW_TESTS $LAT_TESTS; do
		for ((k = 0; k < n; k++)); do
			p=${peer_list[$(((k + r + ti) % n))]}
			# raw TCP has one bandwidth and one latency test
			if [ "$p" = tcp ] && [ "$t" != ib_write_bw ] && [ "$t" != ib_send_lat ]; then
				continue
			fi
			block "$r" "$p" "$t"
		done
		ti=$((ti + 1))
	done
done
peer_down

[ "$profile" = 0 ] || {
	log "---- profile ----"
	for pt in $PROFILE_RUNS; do
		profile_run "${pt%:*}" "${pt#*:}"
	done
	peer_down
}
echo "end $(date -u +%FT%TZ)" >>"$out/meta.txt"
log "done in $(($(date +%s) - t_start)) s; results in $RES"
exit 0
