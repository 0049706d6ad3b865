#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must FAIL: the script says why (as testlib's fail() does) and exits
# non-zero; the runner puts the reason on the verdict line.
echo "FAIL: the reason the runner must show" >&2
exit 7
