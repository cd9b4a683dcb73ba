#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load mrc.ko if needed, then run mrc_sockapi, the socket API test
# (kselftest_harness), in a netns of its own with lo up.  Each of its
# tests unshares a further netns, so configuration it sets (max-msg-size,
# rto, retry-limit) stays there.

. "$(dirname "$0")/lib.sh"

mrc_require_root
mrc_require_cmd ip
mrc_require_sockapi
mrc_load
mrc_run_in_netns "$@"
ip link set lo up || mrc_die "cannot bring lo up"
mrc_dmesg_mark

# Not exec: lib.sh's exit trap removes its temporary directory.
"$MRC_SOCKAPI" "$@"
rc=$?
# A splat fails the run even if every test passed.
bad=$(mrc_dmesg_new | grep -E "$MRC_DMESG_BAD")
if [ -n "$bad" ]; then
	echo "# kernel warnings during mrc_sockapi:"
	while IFS= read -r l; do echo "# $l"; done <<<"$bad"
	[ "$rc" -eq 0 ] && rc=1
fi
exit "$rc"
