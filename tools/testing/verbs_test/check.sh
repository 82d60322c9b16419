#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# check.sh VERBS_TEST: what can be checked without an RDMA device: the
# command line, and that a run without a reachable peer fails quickly in
# TAP instead of hanging.
set -u

vt=$1
fail=0

t()
{
	want=$1
	shift
	"$@" >/dev/null 2>&1
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: '$*' exited $rc, want $want"
		fail=1
	fi
}

t 0 "$vt" --help
t 0 "$vt" --list
t 2 "$vt"
t 2 "$vt" --server --client 192.0.2.1
t 2 "$vt" --client 192.0.2.1 --test nosuch
t 2 "$vt" --client 192.0.2.1 --timeout 0
t 2 "$vt" --client 192.0.2.1 --size-max 100 --budget 10
[ "$("$vt" --list | wc -l)" -eq 10 ] || { echo "FAIL: --list"; fail=1; }

# No peer (and on a build host no RDMA at all): fails, bounded, in TAP.
out=$(timeout 60 "$vt" --client 192.0.2.1 --test send,reject --timeout 2 2>&1)
rc=$?
case $rc in
1) ;;
*) echo "FAIL: unreachable client exited $rc"; fail=1 ;;
esac
echo "$out" | grep -q '^not ok 1 - send: client' ||
	{ echo "FAIL: no TAP failure line:"; echo "$out"; fail=1; }
echo "$out" | grep -q '^1\.\.2$' || { echo "FAIL: no plan"; fail=1; }

[ $fail -eq 0 ] && echo "check.sh: ok"
exit $fail
