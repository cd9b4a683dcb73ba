#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, from Debian's archive, whatever building and testing mrc needs
# and this machine lacks.  Idempotent: with everything present it only
# checks.  Run as root (CI and the README's commands do).
#
#   tools/deps.sh          packages for the module, tools and stock-VM tests
#   tools/deps.sh debug    also what building the debug kernel needs
#   tools/deps.sh bench    also what make bench needs on the host (gnuplot,
#                          perftest)
#   tools/deps.sh check    install nothing: check that every command a
#                          selftest's mrc_require_cmd / mrc_have_cmd names
#                          is in selftests/required-commands
#
# The commands the tests, selftests, demo and test VM run come from one
# list, selftests/required-commands (command and Debian package), next to
# the selftests that use them; after installing, every command in it must
# be found.  The packages below are those for building.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
list=$top/selftests/required-commands

# Commands run from root's PATH, which has the sbin directories.
PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin

req_cmds=()
req_pkgs=()
while read -r cmd pkg _; do
	case $cmd in
	'' | '#'*) continue ;;
	esac
	if [ -z "$pkg" ]; then
		echo "deps: $list: no package for $cmd" >&2
		exit 1
	fi
	req_cmds+=("$cmd")
	req_pkgs+=("$pkg")
done <"$list"

# The commands selftests/*.sh name in mrc_require_cmd / mrc_have_cmd calls
# (comments, as in lib.sh, aside).
named_cmds() {
	sed -e 's/^#.*//' -e 's/[[:space:]]#.*//' "$top"/selftests/*.sh |
		grep -oE '(^|[[:space:];!(])mrc_(require|have)_cmd([[:space:]]+[A-Za-z0-9_.+-]+)+' |
		awk '{ for (i = 2; i <= NF; i++) print $i }' | LC_ALL=C sort -u
}

if [ "${1:-}" = check ]; then
	bad=0
	n=0
	while read -r c; do
		n=$((n + 1))
		case " ${req_cmds[*]} " in
		*" $c "*) ;;
		*)
			echo "deps: selftests name '$c', which" \
				"selftests/required-commands does not list" >&2
			bad=1
			;;
		esac
	done < <(named_cmds)
	if [ "$n" -eq 0 ]; then
		echo "deps: found no mrc_require_cmd line in selftests/*.sh" >&2
		exit 1
	fi
	[ "$bad" -eq 0 ] &&
		echo "deps: selftests/required-commands lists all $n commands the selftests name"
	exit "$bad"
fi

pkgs=(
	make gcc libc6-dev pkg-config libmnl-dev sparse clang libbpf-dev
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	"${req_pkgs[@]}"
)
if [ "${1:-}" = debug ]; then
	pkgs+=(bc flex bison libelf-dev libssl-dev dwarves python3 rsync)
fi
if [ "${1:-}" = bench ]; then
	# The plots; SoftRoCE's perftest and its libibverbs provider
	# (tools/bench/efficiency.sh).
	pkgs+=(gnuplot-nox perftest ibverbs-providers)
fi

missing=()
for p in "${pkgs[@]}"; do
	case " ${missing[*]} " in
	*" $p "*) continue ;;
	esac
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

# A package that no longer has its command would go unnoticed until a
# test skipped for it.
absent=()
for i in "${!req_cmds[@]}"; do
	command -v "${req_cmds[i]}" >/dev/null 2>&1 ||
		absent+=("${req_cmds[i]} (${req_pkgs[i]})")
done
if [ "${#absent[@]}" -gt 0 ]; then
	echo "deps: installed, yet still missing: ${absent[*]}" >&2
	exit 1
fi

# kselftest headers and checkpatch come from the kernel source package.
src=/usr/src/linux-source-6.1
if [ ! -f "$src/tools/testing/selftests/kselftest_harness.h" ]; then
	echo "deps: unpacking $src"
	tar -C /usr/src -xf /usr/src/linux-source-6.1.tar.xz
fi
