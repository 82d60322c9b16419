#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's demo command (README):
#
#   scripts/demo.sh
#
# Installs what is needed, builds, and boots a guest that loads siw_lite,
# creates dummy netdev d0 (192.0.2.1/24), attaches siwl0 to it and shows it
# with rdma link, ibv_devices and ibv_devinfo (through our provider).  The
# guest side is scripts/demo-guest.sh.  Fails if any step fails or the
# guest's kernel log shows a problem.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SIW_LITE_TOP"

echo "=== setup"
bash scripts/setup.sh </dev/null

kver=${SIW_LITE_KERNEL:-$(siwl_pick_kernel)} || {
	siwl_msg "no Debian kernel with headers installed"
	exit 1
}
echo "=== build for $kver"
make -j"$(nproc)" KDIR="/usr/src/linux-headers-$kver" </dev/null

echo "=== guest"
exec bash scripts/vm-run.sh --kernel "$kver" -- \
	"$SIW_LITE_TOP/scripts/demo-guest.sh" </dev/null
