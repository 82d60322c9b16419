#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the Debian packages of siw_lite from the committed tree:
#   siw-lite-dkms         the kernel module's source, built by DKMS on the
#                         machine it is installed on
#   libsiw-lite-rdmav34   the libibverbs provider
# It installs its build dependencies from Debian's packages (only what is
# missing), exports HEAD with git archive into a temporary directory (so
# uncommitted changes are not packaged, and nothing is written to the work
# tree), runs dpkg-buildpackage -us -uc -b there, runs lintian on the
# result (any error fails the script; warnings are shown), and copies the
# .deb files (and debug symbol packages, if any) to the output directory.
#
#   scripts/package.sh [--out DIR]     default DIR: /var/tmp/siw_lite-debs
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

out=/var/tmp/siw_lite-debs

usage() {
	echo "usage: $0 [--out DIR]"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--out)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		out=$2
		shift 2
		;;
	--out=*)
		out=${1#--out=}
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
done

# What this script runs, and debian/control's Build-Depends.
need=(git build-essential dpkg-dev debhelper dh-dkms fakeroot lintian
      libibverbs-dev)

read -r -a missing <<<"$(siwl_missing_pkgs "${need[@]}")"

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "package: missing ${missing[*]}; run as root to install them" >&2
		exit 1
	fi
	echo "package: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

top=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
for f in VERSION debian/control; do
	git -C "$top" cat-file -e "HEAD:$f" 2>/dev/null || {
		echo "package: HEAD has no $f: commit the packaging first" >&2
		exit 1
	}
done
ver=$(git -C "$top" show HEAD:VERSION)
if ! git -C "$top" diff --quiet HEAD -- 2>/dev/null; then
	echo "package: note: uncommitted changes are not packaged (building HEAD)"
fi

tmp=$(mktemp -d /tmp/siw_lite-package.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
src="$tmp/siw-lite-$ver"
mkdir "$src"
git -C "$top" archive --format=tar HEAD | tar -x -C "$src"

echo "package: building siw-lite $ver from $(git -C "$top" rev-parse --short HEAD)"
(
	cd "$src"
	dpkg-checkbuilddeps
	# One job: the machine may be busy with other builds or guests.
	dpkg-buildpackage -us -uc -b -j1
) >"$tmp/build.log" 2>&1 || {
	tail -n 40 "$tmp/build.log" >&2
	echo "package: dpkg-buildpackage failed" >&2
	exit 1
}

changes=("$tmp"/siw-lite_*.changes)
echo "package: lintian ${changes[*]##*/}"
lintian --fail-on error "${changes[@]}"

install -d "$out"
shopt -s nullglob
debs=("$tmp"/*.deb "$tmp"/*.ddeb)
cp "${debs[@]}" "$out"/
for d in "${debs[@]}"; do
	echo "package: $out/${d##*/}"
done
