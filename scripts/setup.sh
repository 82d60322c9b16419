#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs everything the build, the guest bench and the tests need, from
# Debian's packages only. Idempotent: a second run installs nothing.
#
# virtme-ng is not in bookworm; its trixie package is architecture-independent
# Python whose dependencies bookworm has, so we download that one .deb with a
# private apt source list and leave the machine's own sources untouched.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

need=(build-essential bc bison flex libelf-dev libssl-dev dwarves sparse
      qemu-system-x86 linux-image-amd64 linux-headers-amd64
      linux-image-6.12-amd64 linux-headers-6.12-amd64
      rdma-core ibverbs-utils rdmacm-utils perftest libibverbs-dev librdmacm-dev
      ibverbs-providers iproute2 iperf3 kmod file busybox-static udev
      python3 python3-argcomplete python3-pkg-resources python3-requests
      tcpdump tshark linux-source-6.1 linux-source-6.12 xz-utils clang libclang-rt-14-dev
      nvme-cli nfs-kernel-server open-iscsi qperf libfabric-bin iperf gnuplot-nox dkms ccache
      groff-base man-db)

read -r -a missing <<<"$(siwl_missing_pkgs "${need[@]}")"

if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v vng >/dev/null 2>&1; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/lists/partial" "$tmp/archives/partial"
	# apt downloads as _apt where it can write.
	chown -R _apt "$tmp" 2>/dev/null || true
	# Use the same Debian mirror the machine is already configured with.
	# Either format may be absent (deb822 .sources only is common).
	srcs=()
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
		 /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && srcs+=("$f")
	done
	mirror=""
	if [ ${#srcs[@]} -gt 0 ]; then
		mirror=$(sed -e 's/#.*//' "${srcs[@]}" |
			grep -oE '(https?|file):[^ ]*/debian/?( |$)' |
			sed -n '1{s/ //g;p}') || mirror=""
	fi
	[ -n "$mirror" ] || { echo "setup: no Debian mirror configured" >&2; exit 1; }
	echo "deb $mirror trixie main" >"$tmp/trixie.list"
	opts=(-o Dir::Etc::sourcelist="$tmp/trixie.list"
	      -o Dir::Etc::sourceparts=-
	      -o Dir::State::Lists="$tmp/lists"
	      -o Dir::Cache::Archives="$tmp/archives"
	      -o APT::Get::List-Cleanup=0)
	apt-get "${opts[@]}" update -qq
	(cd "$tmp" && apt-get "${opts[@]}" download virtme-ng)
	dpkg -i "$tmp"/virtme-ng_*.deb >/dev/null
	echo "setup: installed $(dpkg-query -W virtme-ng)"
fi
