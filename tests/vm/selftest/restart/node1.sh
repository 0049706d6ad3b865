#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must PASS: killed during boot 1, carries on in boot 2.
set -e
if [ "$BOOT" = 1 ]; then
	vmctl barrier ready
	sleep 100000
	exit 1
fi
vmctl put node1-boot "$BOOT"
vmctl barrier back
