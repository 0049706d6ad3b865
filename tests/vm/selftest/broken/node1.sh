#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must FAIL: the script exits non-zero.
exit 7
