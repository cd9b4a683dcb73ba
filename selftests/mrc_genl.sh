#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load mrc.ko if needed, then run mrc_genl, the generic netlink ABI test
# (kselftest_harness; each of its tests runs in a netns of its own).

. "$(dirname "$0")/lib.sh"

mrc_require_root
[ -x "$MRC_SELFTEST_DIR/mrc_genl" ] ||
	mrc_die "no $MRC_SELFTEST_DIR/mrc_genl (build it first: make -C selftests)"
mrc_load

# Not exec: lib.sh's exit trap removes its temporary directory.
"$MRC_SELFTEST_DIR/mrc_genl" "$@"
