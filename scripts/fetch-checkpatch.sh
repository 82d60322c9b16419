#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extracts checkpatch.pl (and the data files it reads) from Debian's
# linux-source-6.1 into a cache outside the work tree. Nothing of the
# kernel source is ever committed here.
set -euo pipefail

cache=${SIW_LITE_CACHE:-/var/cache/siw_lite}
dir=$cache/linux-source-6.1
tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)

[ -x "$dir/scripts/checkpatch.pl" ] && exit 0
[ -n "$tarball" ] || { echo "fetch-checkpatch: install linux-source-6.1 (scripts/setup.sh)" >&2; exit 1; }
mkdir -p "$cache"
tar -C "$cache" -xJf "$tarball" \
	linux-source-6.1/scripts/checkpatch.pl \
	linux-source-6.1/scripts/spelling.txt \
	linux-source-6.1/scripts/const_structs.checkpatch
