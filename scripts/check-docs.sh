#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user documentation against the code (make check):
#
#   - siw_lite(7) renders without a warning (groff, as man does);
#   - it names every counter of drivers/siw_lite/stats.c, every tracepoint
#     of trace.h, every driver attribute of restrack.c and every module
#     parameter, and no counter or tracepoint that does not exist.
#
# Prints one TAP line per check and "N passed, N failed" last.
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
man=$top/Documentation/siw_lite.7
drv=$top/drivers/siw_lite
passed=0
failed=0
n=0

result() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		passed=$((passed + 1))
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
		sed 's/^/# /' <<<"$2"
	fi
}

# The page's text with font escapes and the \% hyphenation marks removed.
text=$(sed -e 's/\\f[BIRP]//g' -e 's/\\%//g' -e 's/\\-/-/g' "$man")

# missing LIST: the words of LIST the page does not name
missing() {
	local w

	for w in $1; do
		grep -qw -- "$w" <<<"$text" || echo "not documented: $w"
	done
}

result "siw_lite(7) renders without warnings" \
	"$(groff -man -t -ww -z "$man" 2>&1)"

counters=$(sed -n 's/.*\.name = "\([a-z_0-9]*\)".*/\1/p' "$drv/stats.c")
result "siw_lite(7) names all $(wc -w <<<"$counters") counters of stats.c" \
	"$(missing "$counters")"

events=$(sed -n 's/^\(TRACE_EVENT\|DEFINE_EVENT([a-z_]*,\) *\([a-z_]*\),.*/\2/p;
		  s/^TRACE_EVENT(\([a-z_]*\),.*/\1/p' "$drv/trace.h" | sort -u)
result "siw_lite(7) names all $(wc -w <<<"$events") tracepoints of trace.h" \
	"$(for e in $events; do
		grep -q "siw_lite:$e" <<<"$text" || echo "not documented: siw_lite:$e"
	   done)"

attrs=$(grep -o 'rdma_nl_put_driver_[a-z0-9_]*(msg, "[a-z_]*"' "$drv/restrack.c" |
	sed 's/.*"\([a-z_]*\)"/\1/' | sort -u)
result "siw_lite(7) names all $(wc -w <<<"$attrs") driver attributes of restrack.c" \
	"$(missing "$attrs")"

params=$(grep -ho 'module_param[a-z_]*(\([a-z_]*\)' "$drv"/*.c |
	 sed 's/.*(//' | sort -u)
result "siw_lite(7) names all $(wc -w <<<"$params") module parameters" \
	"$(missing "$params")"

# Nothing documented that is gone: tracepoint names on the page.
result "every siw_lite:EVENT on the page exists in trace.h" \
	"$(grep -o 'siw_lite:[a-z_][a-z_]*' <<<"$text" | sort -u | sed 's/siw_lite://' |
	   while read -r e; do
		grep -qw -- "$e" <<<"$events" || echo "no such tracepoint: siw_lite:$e"
	   done)"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
