#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Preconditions of every other test, checked once so that a missing build
# product or tool shows up as one clear failure instead of many odd ones.
. "$(dirname "$0")/lib.sh"

plan 8
require_guest
require_root

if [ -f "$SIW_LITE_KO" ]; then
	pass "siw_lite.ko is built"
else
	fail "siw_lite.ko is built" "missing $SIW_LITE_KO (run make)"
fi

# A module built for other headers would fail to insmod with an obscure
# "Invalid module format"; say what is wrong instead.
vermagic=$(modinfo -F vermagic "$SIW_LITE_KO" 2>/dev/null)
expect_eq "siw_lite.ko is built for the running kernel" \
	"${vermagic%% *}" "$(uname -r)"

if [ -f "$SIWL_PROVIDER_SO" ]; then
	pass "provider $(basename "$SIWL_PROVIDER_SO") is built"
else
	fail "provider is built" "missing $SIWL_PROVIDER_SO (run make)"
fi

run_cmd rdma link help
expect_match "rdma tool supports 'link add'" "$OUT$ERR" "link add"

missing=""
for m in ib_core iw_cm rdma_cm ib_uverbs rdma_ucm; do
	[ -d "/sys/module/$m" ] || missing+=" $m"
done
expect_eq "RDMA core modules are loaded" "${missing:-none}" none

if run_cmd siwl_load_deps; then
	pass "siw_lite's dependencies load ($(modinfo -F depends "$SIW_LITE_KO"))"
else
	fail "siw_lite's dependencies load" "$ERR"
fi

if mod_loaded; then
	fail "siw_lite is not loaded yet" "it is loaded before any test ran"
else
	pass "siw_lite is not loaded yet"
fi

if vp=$(verbs_probe_bin 2>"$SIWL_TMP/cc.err"); then
	pass "verbs_probe helper available ($vp)"
else
	fail "verbs_probe helper available" "$(cat "$SIWL_TMP/cc.err")"
fi
