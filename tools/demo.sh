#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build, boot a VM on the installed
# Debian kernel, load mrc.ko and show what the landed work allows
# (tools/demo-vm.sh, run in the VM): two hosts, messages moved and
# verified over mrc, a lossy link recovered from, the counters, and TCP
# over the same link.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tools/deps.sh
kver=$(tools/vm/kver)
make -s KDIR="/lib/modules/$kver/build" module tools selftests

exec tools/vm/run-vm --timeout 600 -- bash tools/demo-vm.sh
