#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build, boot a VM on the installed
# Debian kernel, load mrc.ko and show what the landed work allows: the
# UDP/4791 sockets, the configuration and its derived active set, and
# counters moving when packets arrive.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tools/deps.sh
kver=$(tools/vm/kver)
make -s KDIR="/lib/modules/$kver/build" module tools selftests

exec tools/vm/run-vm --timeout 600 -- sh -c '
	set -e
	say() { printf "\n\$ %s\n" "$*"; "$@"; }
	say modprobe -a udp_tunnel ip6_udp_tunnel
	say insmod mrc.ko
	say sh -c "ss -uln | grep -E \"Local|:4791\""
	say tools/mrc/mrc config show
	say tools/mrc/mrc config set entropy-mask-bits 8 starting-port-offset 65280
	say tools/mrc/mrc config show
	echo "\$ tools/mrc/mrc config set starting-port-offset 65281   # breaks the rule"
	tools/mrc/mrc config set starting-port-offset 65281 || true
	say selftests/mrc_inject 127.0.0.1 probe
	say selftests/mrc_inject ::1 short5
	say tools/mrc/mrc stats
	say tools/mrc/mrc -j config show
	say rmmod mrc
'
