#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A listener's backlog bounds the connections its ULP has not answered
# (issue 17, finding 6).
#
# tools/testing/hostile/victim --hoard listens with a backlog of 4 and
# takes every CONNECT_REQUEST without ever accepting or rejecting it; hostile.py (case
# backlog-flood) opens 12 connections, each with a valid MPA Request, and
# holds them.  At most 4 may reach the ULP: the others wait in TCP until
# the ULP answers one.  Before the fix a connection left the count once
# its Request had arrived, and all 12 reached the ULP, each then kept for
# 60 s.  When the victim exits, its unanswered requests are rejected and
# nothing of them may stay behind.
. "$(dirname "$0")/lib.sh"
. "$SIW_LITE_TOP/tools/testing/verbs_test/dp-lib.sh"

HOSTILE_DIR=$SIW_LITE_TOP/tools/testing/hostile
PY=(python3 -S -B)
BACKLOG=4	# victim.c: rdma_listen(lid, 4)
CONNS=12	# hostile.py: BACKLOG_CONNS

plan 5
dp_start
kmsg "test_74_backlog start"

victim=$(dp_hostile_victim) || bail "cannot build tools/testing/hostile/victim"

hpid=""
bl_cleanup() {
	[ -n "$hpid" ] && kill -KILL "$hpid" 2>/dev/null
}
on_exit bl_cleanup

dp_next_port
VOUT=$SIWL_TMP/victim.out
HOUT=$SIWL_TMP/hostile.out
ip netns exec "$DP_A" timeout -k 5 $((120 * SIWL_SLOW)) "$victim" \
	--bind "$DP_A4" --port "$DP_PORT" --hoard --idle $((8 * SIWL_SLOW)) \
	>"$VOUT" 2>&1 </dev/null &
vpid=$!
if wait_for 15 grep -q '^listening' "$VOUT"; then
	pass "the hoarding victim listens on $DP_A4:$DP_PORT"
else
	fail "the hoarding victim listens" "$(cat "$VOUT")"
fi
ip netns exec "$DP_B" "${PY[@]}" "$HOSTILE_DIR/hostile.py" \
	--addr "$DP_A4" --port "$DP_PORT" --case backlog-flood \
	>"$HOUT" 2>&1 </dev/null &
hpid=$!

if wait_for $((60 * SIWL_SLOW)) grep -q '^holding' "$HOUT"; then
	pass "the peer holds its connections: $(grep -m 1 '^holding' "$HOUT" | cut -d' ' -f2-)"
else
	fail "the peer holds its connections" "$(tail -n 5 "$HOUT")"
fi

# The victim exits once no request has come for --idle seconds.
wait "$vpid"
hoarded=$(sed -n 's/^done hoarded=\([0-9]*\)$/\1/p' "$VOUT")
diag "victim: $(grep -c '^hoard request' "$VOUT") requests; $(tail -n 1 "$VOUT")"
if [ -z "$hoarded" ]; then
	fail "at most the backlog ($BACKLOG) of $CONNS requests reach a ULP that answers none" \
		"no count from the victim: $(tail -n 5 "$VOUT")"
elif [ "$hoarded" -ge 1 ] && [ "$hoarded" -le "$BACKLOG" ]; then
	pass "at most the backlog ($BACKLOG) of $CONNS requests reach a ULP that answers none ($hoarded)"
else
	fail "at most the backlog ($BACKLOG) of $CONNS requests reach a ULP that answers none" \
		"$hoarded reached it"
fi

kill -KILL "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
hpid=""

# The victim's exit rejected its requests, the peer's the rest.
no_cm_ids() {
	[ -z "$(ip netns exec "$DP_A" rdma res show cm_id 2>/dev/null)" ]
}
if wait_for 15 no_cm_ids; then
	pass "no cm_id is left in the victim's namespace"
else
	fail "no cm_id is left in the victim's namespace" \
		"$(ip netns exec "$DP_A" rdma res show cm_id)"
fi
conns() {
	ip netns exec "$DP_A" ss -tnH "( sport = :$DP_PORT )" | grep -v TIME-WAIT
}
no_conns() {
	[ -z "$(conns)" ]
}
if wait_for 15 no_conns; then
	pass "no connection to the port is left"
else
	fail "no connection to the port is left" "$(conns)"
fi
