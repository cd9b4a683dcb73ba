#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, from Debian's archive, whatever building and testing mrc needs
# and this machine lacks.  Idempotent: with everything present it only
# checks.  Run as root (CI and the README's commands do).
#
#   tools/deps.sh          packages for the module, tools and stock-VM tests
#   tools/deps.sh debug    also what building the debug kernel needs

set -euo pipefail

pkgs=(
	make gcc libc6-dev pkg-config libmnl-dev sparse
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 xz-utils
	qemu-system-x86 busybox-static kmod cpio
	iproute2 util-linux procps
)
if [ "${1:-}" = debug ]; then
	pkgs+=(bc flex bison libelf-dev libssl-dev dwarves python3 rsync)
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	if [ "$(id -u)" != 0 ]; then
		echo "deps: need root to install packages" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# kselftest headers and checkpatch come from the kernel source package.
src=/usr/src/linux-source-6.1
if [ ! -f "$src/tools/testing/selftests/kselftest_harness.h" ]; then
	echo "deps: unpacking $src"
	tar -C /usr/src -xf /usr/src/linux-source-6.1.tar.xz
fi
