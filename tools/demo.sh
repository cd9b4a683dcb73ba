#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build, boot a VM on the installed
# Debian kernel, load mrc.ko and show what the landed work allows
# (tools/demo-vm.sh, run in the VM): two hosts on a fabric of four
# equal-cost paths, one socket's 1 MiB messages sprayed over all four and
# verified, a path failed silently and recovered, and the figures against
# one TCP flow over the same fabric.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tools/deps.sh
kver=$(tools/vm/kver)
make -s KDIR="/lib/modules/$kver/build" module tools selftests

exec tools/vm/run-vm --timeout 600 -- bash tools/demo-vm.sh
