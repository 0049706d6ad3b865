#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must FAIL on a kernel warning that test.conf allows only by a call site
# its report does not hold: the frame comes after the report's end
# ("---[ end trace ]---"), so it names some other report, or none.
for line in 'WARNING: CPU: 0 PID: 1 at selftest.c:7 selftest_warn+0x0/0x10' \
	'Call Trace:' ' <TASK>' ' selftest_caller+0x1/0x20' ' </TASK>' \
	'---[ end trace 0000000000000000 ]---' ' selftest_call_site+0x1/0x20'; do
	echo "<4>$line" >/dev/kmsg
done
exit 0
