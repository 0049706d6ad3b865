#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must FAIL on a report of the debug kernel's alone (scripts/debug-kernel),
# here kmemleak's, which logs neither BUG: nor WARNING:: the script
# succeeds. The reference kernel has no kmemleak, so the line is made.
echo "<4>kmemleak: unreferenced object 0xffff888004a3c000 (size 64):" >/dev/kmsg
exit 0
