#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must FAIL on a kernel warning alone: the script itself succeeds, provided
# the barrier fails (node1 is gone) instead of hanging.
echo "<4>WARNING: injected by the runner's self-test" >/dev/kmsg
if vmctl barrier never; then
	echo "barrier passed although node1 exited" >&2
	exit 3
fi
# Script output is not kernel log: this line must not fail the node.
echo "WARNING: general protection fault (printed by a script)"
exit 0
