#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of scripts/demo.sh, run by scripts/vm-run.sh inside the VM.
# Prints every command before running it, like a terminal session:
# a device on a dummy netdev, then rping and ib_write_bw -R between two
# network namespaces through this tree's provider (vm-run.sh points
# RDMAV_DRIVERS at it).
set -euo pipefail

if [ "${SIW_LITE_IN_GUEST:-0}" != 1 ]; then
	echo "demo-guest.sh loads modules: run it through scripts/demo.sh" >&2
	exit 2
fi

run() {
	echo
	echo "# $*"
	"$@"
}

# insmod does not resolve dependencies; load what modinfo lists first.
deps=$(modinfo -F depends "$SIW_LITE_KO")
[ -z "$deps" ] || run modprobe -a ${deps//,/ }
run insmod "$SIW_LITE_KO"
run ip link add d0 type dummy
run ip addr add 192.0.2.1/24 dev d0
run ip link set d0 up
run rdma link add siwl0 type siw_lite netdev d0
run rdma link
run ibv_devices
run ibv_devinfo -v -d siwl0
run rdma link delete siwl0
run ip link del d0

# Two endpoints with their own TCP stacks: one namespace each, joined by
# a veth pair, one siw_lite device per namespace.
run ip netns add demoA
run ip netns add demoB
run ip link add vA netns demoA type veth peer name vB netns demoB
run ip -n demoA addr add 192.0.2.1/24 dev vA
run ip -n demoB addr add 192.0.2.2/24 dev vB
run ip -n demoA link set vA up
run ip -n demoB link set vB up
run ip netns exec demoA rdma link add siwlA type siw_lite netdev vA
run ip netns exec demoB rdma link add siwlB type siw_lite netdev vB

# serve CMD...: CMD in demoA in the background, until it listens on
# rdma_cm port 7174 (perftest) or 7175 (rping).
serve() {
	local port=$1 i
	shift
	echo
	echo "# ip netns exec demoA $* &"
	ip netns exec demoA "$@" >/tmp/demo-server.out 2>&1 &
	server=$!
	for i in $(seq 1 60); do
		rdma res show cm_id 2>/dev/null | grep -q "LISTEN.*:$port" &&
			return 0
		sleep 0.5
	done
	echo "server did not start listening" >&2
	return 1
}

finish() {
	local rc=0
	wait "$server" || rc=$?
	echo "# server output:"
	sed 's/^/  /' /tmp/demo-server.out
	return $rc
}

serve 7175 rping -s -v -a 192.0.2.1 -p 7175 -C 5 -S 64
run ip netns exec demoB rping -c -v -a 192.0.2.1 -p 7175 -C 5 -S 64
finish

serve 7174 ib_write_bw -R -d siwlA -s 65536 -n 500 -p 7174
run ip netns exec demoB ib_write_bw -R -d siwlB -s 65536 -n 500 -p 7174 \
	192.0.2.1
finish

run ip netns exec demoA rdma link delete siwlA
run ip netns exec demoB rdma link delete siwlB
run ip netns del demoA
run ip netns del demoB
run rmmod siw_lite
echo
echo "# dmesg | grep siw_lite"
dmesg | grep siw_lite
