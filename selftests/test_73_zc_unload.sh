#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod while TCP still holds zero-copy pages (issue 17, finding 4).
#
# tools/testing/hostile/hostile.py (case fin-unread) asks the victim for four
# 64 KiB RDMA Reads, whose responses leave zero-copy from the victim's
# registered pages, reads none of them and closes its half.  The victim
# closes in order; its socket, orphaned, keeps the unsent responses, and
# each of their skbs calls siw_lite's zero-copy callback when TCP frees
# it.  Devices gone and the module removed, the peer is killed (its
# kernel resets the connection): TCP frees the skbs then.
#
# rmmod must wait for TCP to let go, and finish once it has; the kernel
# log must stay clean.  Before the fix rmmod returned at once and the
# reset called into the unloaded module.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

HOSTILE_DIR=$SIW_LITE_TOP/tools/testing/hostile
PY=(python3 -S -B)
BAD='WARNING:|(^|[^A-Za-z_])BUG[: ]|Oops|general protection|Kernel panic|unable to handle'

plan 5
dp_start
kmsg "test_73_zc_unload start"

victim=$(dp_hostile_victim) || bail "cannot build tools/testing/hostile/victim"

hpid=""
rpid=""
zc_cleanup() {
	[ -n "$hpid" ] && kill -KILL "$hpid" 2>/dev/null
	[ -n "$rpid" ] && wait "$rpid" 2>/dev/null
}
on_exit zc_cleanup

dp_next_port
VOUT=$SIWL_TMP/victim.out
HOUT=$SIWL_TMP/hostile.out
ip netns exec "$DP_A" timeout -k 5 $((120 * SIWL_SLOW)) "$victim" \
	--bind "$DP_A4" --port "$DP_PORT" --count 1 --mr-size 65536 \
	--timeout $((15 * SIWL_SLOW)) >"$VOUT" 2>&1 </dev/null &
vpid=$!
wait_for 15 grep -q '^listening' "$VOUT" ||
	diag "victim not listening after 15 s: $(cat "$VOUT")"
ip netns exec "$DP_B" "${PY[@]}" "$HOSTILE_DIR/hostile.py" \
	--addr "$DP_A4" --port "$DP_PORT" --case fin-unread \
	>"$HOUT" 2>&1 </dev/null &
hpid=$!

# The victim's connection ends on our FIN; its socket lives on orphaned.
wait_for 30 grep -q '^holding' "$HOUT"
wait "$vpid"
diag "hostile: $(grep -m 1 '^holding' "$HOUT")"
# one state at a time: ss then prints Recv-Q, Send-Q, local, peer
orphan() {
	local st

	for st in last-ack closing fin-wait-1; do
		ip netns exec "$DP_A" ss -tnH state "$st" \
			"( sport = :$DP_PORT )"
	done
}
queued=$(orphan | awk '{ s += $2 } END { print s + 0 }')
diag "victim side: $(orphan | head -n 2)"
if [ "$queued" -gt 0 ]; then
	pass "the victim's orphaned socket holds $queued unsent bytes"
else
	fail "the victim's orphaned socket holds unsent bytes" \
		"victim: $(tail -n 5 "$VOUT"); hostile: $(tail -n 3 "$HOUT")"
fi

# Devices first (rdma link delete), then the module.
ip netns exec "$DP_A" rdma link delete "$DP_DA" 2>/dev/null
ip netns exec "$DP_B" rdma link delete "$DP_DB" 2>/dev/null
kmsg "test_73 rmmod"
timeout -k 5 $((120 * SIWL_SLOW)) rmmod "$SIWL_MOD" &
rpid=$!
sleep $((3 * SIWL_SLOW))
if kill -0 "$rpid" 2>/dev/null; then
	pass "rmmod waits while TCP holds zero-copy pages"
else
	fail "rmmod waits while TCP holds zero-copy pages" \
		"rmmod returned with $(orphan | wc -l) orphaned socket(s) left"
fi

kmsg "test_73 peer reset"
kill -KILL "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
hpid=""
t0=$(date +%s)
if wait_for 30 bash -c "! kill -0 $rpid"; then
	wait "$rpid"
	rc=$?
	rpid=""
	expect_eq "rmmod finishes once the peer resets ($(($(date +%s) - t0)) s)" \
		"$rc" 0
else
	fail "rmmod finishes once the peer resets" "still waiting after 30 s"
fi
expect_eq "no orphaned socket is left" "$(orphan | wc -l)" 0

# The reset freed the skbs: their callbacks must have found the module.
sleep 1
bad=$(dmesg | sed -n '/siw_lite-selftest: test_73 rmmod$/,$p' | grep -E -- "$BAD")
if [ -z "$bad" ]; then
	pass "kernel log clean"
else
	fail "kernel log clean" "$(head -n 20 <<<"$bad")"
fi
