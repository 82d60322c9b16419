#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# check-abi.sh LIB PABI - fail unless the provider LIB
#  - defines no dynamic symbol at all (registration is by constructor),
#  - imports libibverbs private symbols only at IBVERBS_PRIVATE_<PABI>,
#    including verbs_register_driver_<PABI>,
#  - binds every strong import to a symbol version, so nothing can resolve
#    against a libibverbs it was not built for,
#  - needs libibverbs.so.1.

set -eu

lib=$1
pabi=$2
fail=0

err()
{
	echo "check-abi: $lib: $*" >&2
	fail=1
}

syms=$(readelf --dyn-syms -W "$lib")

# Columns: Num: Value Size Type Bind Vis Ndx Name; entry 0 is the null one.
exported=$(echo "$syms" | awk '$1 ~ /^[0-9]+:$/ && $1 != "0:" &&
			       $7 != "UND" { print $8 }')
[ -z "$exported" ] || err "exports symbols:" $exported

unversioned=$(echo "$syms" | awk '$1 ~ /^[0-9]+:$/ && $1 != "0:" &&
				  $7 == "UND" && $5 != "WEAK" &&
				  $8 !~ /@/ { print $8 }')
[ -z "$unversioned" ] || err "unversioned imports:" $unversioned

# objdump prints the version of an import in parentheses.
private=$(objdump -T "$lib" | grep PRIVATE || true)
bad=$(echo "$private" | grep -v "(IBVERBS_PRIVATE_$pabi)" || true)
[ -z "$private" ] && err "imports no IBVERBS_PRIVATE_$pabi symbol"
[ -z "$bad" ] || err "imports a private ABI other than $pabi:
$bad"
echo "$private" | grep -q " verbs_register_driver_$pabi\$" ||
	err "does not import verbs_register_driver_$pabi"

readelf -d "$lib" | grep -q 'NEEDED.*\[libibverbs\.so\.1\]' ||
	err "does not link libibverbs.so.1"

[ $fail -eq 0 ] || exit 1
echo "check-abi: $lib: OK (no exports, private imports only at" \
	"IBVERBS_PRIVATE_$pabi)"
