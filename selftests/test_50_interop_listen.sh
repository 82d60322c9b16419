#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Wildcard listeners on a host with several iWARP devices in one network
# namespace.  rdma_cm asks every iWARP device for a listener when a
# server listens on the wildcard address (every perftest server does),
# and each device opens a TCP listening socket of its own on that port.
# siw_lite binds each of its listening sockets to its device's netdev, as
# the in-tree siw binds its own, so that they do not collide:
#
#   1. two siw_lite devices on two dummies: two wildcard perftest servers
#      at once, each with a client through its own device, and each port
#      listened on once per netdev (ss shows "%d0" and "%d1");
#   2. siw_lite beside the in-tree siw: a wildcard rdma_listen succeeds
#      (with an unbound siw_lite listener, siw's bound one failed with
#      EADDRINUSE, "cma_listen_on_dev, error -98"), and both devices carry
#      a perftest pair at the same time.
#
# All traffic stays in the guest, on 192.0.2.0/24 addresses of dummies.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

plan 9
require_guest
require_root
require_module_file
require_provider_file

PORT=20100
SIZE=65536
ITERS=200
pids=()

listen_cleanup() {
	local p

	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rdma link delete siwp0 2>/dev/null
	[ -z "$DP_PEER_VARIANT" ] || wait_for 10 rmmod siw
	return 0
}
on_exit siwl_cleanup
on_exit listen_cleanup
kmsg "test_50_interop_listen start"

siwl_load || bail "cannot load siw_lite"
add_dummy d0 192.0.2.1/32 && add_dummy d1 192.0.2.2/32 &&
	add_dummy d2 192.0.2.3/32 || bail "cannot create the dummies"
link_add siwl0 d0 && link_add siwl1 d1 || bail "cannot add the siw_lite devices"
wait_for 10 port_state_is siwl0 "4: ACTIVE" &&
	wait_for 10 port_state_is siwl1 "4: ACTIVE" ||
	bail "ports not active: $(port_state siwl0), $(port_state siwl1)"

# listeners PORT: the netdev each socket listening on PORT is bound to,
# sorted ("d0 d1"); "unbound" for one bound to none.
listeners() {
	ss -Hltn "sport = :$1" | awk '{ print $4 }' |
		sed -E 's/.*%([^:%]+):[0-9]+$/\1/; t; s/.*/unbound/' | sort | xargs
}

# server NAME PORT DEV: a wildcard perftest server in the background.
server() {
	timeout -k 5 90 ib_write_bw -R -F -s $SIZE -n $ITERS -d "$3" -p "$2" \
		>"$SIWL_TMP/$1.srv" 2>&1 &
	pids+=($!)
	eval "srv_$1=$!"
}

# client NAME PORT ADDR: its client, in the background.
client() {
	timeout -k 5 90 ib_write_bw -R -F -s $SIZE -n $ITERS -p "$2" "$3" \
		>"$SIWL_TMP/$1.cli" 2>&1 &
	pids+=($!)
	eval "cli_$1=$!"
}

# listening PORT N: at least N sockets listen on PORT.
listening() {
	[ "$(ss -Hltn "sport = :$1" | wc -l)" -ge "$2" ]
}

# gid_of NETDEV: an iWARP device's GID as perftest prints it, which
# starts with its netdev's MAC address ("162:72:53:...").
gid_of() {
	local IFS=:

	# shellcheck disable=SC2046
	set -- $(cat "/sys/class/net/$1/address")
	printf '%02d:%02d:%02d:%02d:%02d:%02d' "0x$1" "0x$2" "0x$3" "0x$4" \
		"0x$5" "0x$6"
}

# pair_ok NAME NETDEV DEV: one test point on both exit codes and on the
# device the connection ran on (perftest's "Device" line names the first
# device, whatever rdma_cm picked; the GID tells).
pair_ok() {
	local s c sp cp gid

	sp=srv_$1
	cp=cli_$1
	wait "${!sp}"
	s=$?
	wait "${!cp}"
	c=$?
	gid=$(gid_of "$2")
	if [ $s = 0 ] && [ $c = 0 ] &&
	   grep -q "GID: $gid:" "$SIWL_TMP/$1.cli"; then
		pass "ib_write_bw -R through $3 ($1)"
	else
		fail "ib_write_bw -R through $3 ($1)" \
			"server exit $s, client exit $c, $3's GID $gid:..." \
			"--- server" "$(tail -n 8 "$SIWL_TMP/$1.srv")" \
			"--- client" "$(tail -n 8 "$SIWL_TMP/$1.cli")"
	fi
}

# serve_two DESC N NAME1 PORT1 DEV1 NAME2 PORT2 DEV2: two wildcard
# servers; one test point on both ports listening on N devices each.
serve_two() {
	local desc=$1 n=$2

	server "$3" "$4" "$5"
	server "$6" "$7" "$8"
	if wait_for 20 listening "$4" "$n" && wait_for 20 listening "$7" "$n"; then
		pass "$desc"
	else
		fail "$desc" "port $4: $(listeners "$4"), port $7: $(listeners "$7")" \
			"$(tail -n 3 "$SIWL_TMP/$3.srv")" "$(tail -n 3 "$SIWL_TMP/$6.srv")"
	fi
}

# 1. Two siw_lite devices, two wildcard servers, traffic on both at once.
p1=$PORT
p2=$((PORT + 1))
serve_two "two wildcard servers listen, on both siw_lite devices each" 2 \
	a "$p1" siwl0 b "$p2" siwl1
expect_eq "port $p1: one listening socket per netdev" "$(listeners "$p1")" \
	"d0 d1"
client a "$p1" 192.0.2.1
client b "$p2" 192.0.2.2
pair_ok a d0 siwl0
pair_ok b d1 siwl1

# 2. Beside the in-tree siw.
if ! dp_peer_load default; then
	skip_rest "$DP_PEER_WHY"
	exit 0
fi
ulimit -l unlimited 2>/dev/null
check "add a siw device siwp0 on d2" link_add siwp0 d2 siw
wait_for 10 port_state_is siwp0 "4: ACTIVE" || diag "siwp0: $(port_state siwp0)"
p3=$((PORT + 2))
p4=$((PORT + 3))
kmsg "interop listen cell start"
serve_two "wildcard rdma_listen with siw beside siw_lite (siw_lite, siw)" 3 \
	c "$p3" siwl0 d "$p4" siwp0
expect_no_match "no cma_listen_on_dev error in the kernel log" \
	"$(dp_kmsg_since "interop listen cell start")" "cma_listen_on_dev"
client c "$p3" 192.0.2.1
client d "$p4" 192.0.2.3
pair_ok c d0 siwl0
pair_ok d d2 siwp0
