#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Builds a fake sysfs with siw_lite and foreign devices (see fakesys.c) and
# checks which provider libibverbs hands each one to, then opens a device
# against the mock uverbs ABI and runs the verbs implemented so far,
# including the data path against the mock's loopback RNIC, through
# uverbs commands and through shared rings.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
lib=$here/../libsiw_lite
[ -f "$lib-rdmav34.so" ] || { echo "build the provider first" >&2; exit 1; }

tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"' EXIT
sys=$tmp/sys
mkdir -p "$sys/class/infiniband_verbs" "$sys/class/infiniband" \
	"$tmp/conf"
echo 6 > "$sys/class/infiniband_verbs/abi_version"

n=0
# dev NAME UVERBS_ABI [SIW_LITE_ABI_FILE_CONTENT]  (omit: no attribute)
dev()
{
	uv=$sys/class/infiniband_verbs/uverbs$n
	ib=$sys/class/infiniband/$1
	mkdir -p "$uv" "$ib"
	echo "$1" > "$uv/ibdev"
	echo "1:3" > "$uv/dev"
	echo "$2" > "$uv/abi_version"
	echo "4: RNIC" > "$ib/node_type"
	[ $# -lt 3 ] || printf "$3" > "$ib/siw_lite_abi"
	n=$((n + 1))
}

dev siwl0 1 '1\n'	# ours
dev roce7 1 '1\n'	# ours, whatever the name
dev siwl1 1		# named like ours, no attribute: foreign
dev rxe0 2		# rdma_rxe device
dev rxe1 1 '1\n'	# ours even though named like rxe (see below)
dev siwl2 1 '2\n'	# siw_lite kernel with another ABI: refused
dev siwl3 2 '1\n'	# uverbs ABI out of range: libibverbs refuses
dev siwl4 1 '1x\n'	# garbage
dev siwl5 1 ''		# empty
dev siwl6 1 '01'	# no newline, leading zero: still version 1

run()
{
	LD_PRELOAD=$here/fakesys.so SYSFS_PATH=$sys \
		SIWL_TEST_CONFDIR=$tmp/conf \
		RDMAV_DRIVERS=$1 "$here/lsprov" 2>"$tmp/err" | sort
}

fail=0
expect()
{
	if [ "$1" != "$2" ]; then
		printf 'FAIL %s\n--- expected\n%s\n--- got\n%s\n' \
			"$3" "$2" "$1" >&2
		fail=1
	else
		echo "ok   $3"
	fi
}

got=$(run "$lib")
expect "$got" "roce7 siw_lite iwarp
rxe1 siw_lite iwarp
siwl0 siw_lite iwarp
siwl6 siw_lite iwarp" "siw_lite alone claims exactly the attribute devices"
grep -q 'siwl2: kernel speaks siw_lite ABI 2' "$tmp/err" ||
	expect "$(cat "$tmp/err")" "ABI 2 warning" "ABI mismatch is reported"

# rxe's table matches any name starting with "rxe" and has no match
# callback, so whichever provider registered first takes rxe1: siw_lite
# must never take rxe0.
got=$(run "rxe:$lib")
expect "$got" "roce7 siw_lite iwarp
rxe0 rxe iwarp
rxe1 rxe iwarp
siwl0 siw_lite iwarp
siwl6 siw_lite iwarp" "rxe loaded first"
got=$(run "$lib:rxe")
expect "$got" "roce7 siw_lite iwarp
rxe0 rxe iwarp
rxe1 siw_lite iwarp
siwl0 siw_lite iwarp
siwl6 siw_lite iwarp" "siw_lite loaded first"

ops()
{
	LD_PRELOAD=$here/fakesys.so SYSFS_PATH=$sys \
		SIWL_TEST_CONFDIR=$tmp/conf RDMAV_DRIVERS=$lib \
		VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=$tmp/log \
		"$here/opentest" "$1" 2>/dev/null || true
}

got=$(ops roce7)
expect "$got" "open: ok
query_device: 0 fw 1.2.3 ports 1 max_pd 100
query_device_ex: 0 fw 1.2.3
query_port: 0 state active mtu 3
alloc_pd: ok handle 7
reg_mr: ok lkey 0x100 rkey 0x200
dereg_mr: 0
create_cq: ok
destroy_cq: 0
dealloc_pd: 0
close: 0" "context, query, PD and MR verbs"

# CQ/QP/SRQ verbs and the command data path against the fake loopback
# RNIC; dptest prints one "<step>: ok" line per check and a count.
got=$(LD_PRELOAD=$here/fakesys.so SYSFS_PATH=$sys \
	SIWL_TEST_CONFDIR=$tmp/conf RDMAV_DRIVERS=$lib \
	"$here/dptest" roce7 2>/dev/null || true)
expect "$(echo "$got" | grep -v ': ok$')" "failures: 0" \
	"CQ, QP, SRQ and data-path verbs ($(echo "$got" | grep -c ': ok$') checks)"

# The same through the shared-ring backend: the fake kernel offers rings
# and runs the loopback RNIC from them.
got=$(SIWL_TEST_RINGS=1 DPTEST_RINGS=1 LD_PRELOAD=$here/fakesys.so \
	SYSFS_PATH=$sys SIWL_TEST_CONFDIR=$tmp/conf RDMAV_DRIVERS=$lib \
	"$here/dptest" roce7 2>/dev/null || true)
expect "$(echo "$got" | grep -v ': ok$')" "failures: 0" \
	"data path through shared rings ($(echo "$got" | grep -c ': ok$') checks)"

# Rings offered but refused by SIW_LITE_NO_RINGS=1: the command path
# again (its bad_wr behaviour differs from the ring path's).
got=$(SIWL_TEST_RINGS=1 SIW_LITE_NO_RINGS=1 LD_PRELOAD=$here/fakesys.so \
	SYSFS_PATH=$sys SIWL_TEST_CONFDIR=$tmp/conf RDMAV_DRIVERS=$lib \
	"$here/dptest" roce7 2>/dev/null || true)
expect "$(echo "$got" | grep -v ': ok$')" "failures: 0" \
	"SIW_LITE_NO_RINGS=1 keeps the command path"

# The ring backend in detail, this program playing the kernel.
got=$(SIWL_TEST_RINGS=1 LD_PRELOAD=$here/fakesys.so \
	SYSFS_PATH=$sys SIWL_TEST_CONFDIR=$tmp/conf RDMAV_DRIVERS=$lib \
	"$here/ringunit" roce7 2>/dev/null || true)
expect "$(echo "$got" | grep -v ': ok$')" "failures: 0" \
	"ring backend: posts, full, wrap, inline, poll, arm ($(echo "$got" | grep -c ': ok$') checks)"

got=$(SIWL_TEST_ABI=2 ops siwl0)
expect "$got" "open: Protocol error" "ucontext with another siw_lite ABI"
grep -q 'siwl_alloc_context: kernel ucontext ABI 2' "$tmp/log" ||
	expect "$(cat "$tmp/log")" "ABI 2 log line" "ucontext ABI is logged"

exit $fail
