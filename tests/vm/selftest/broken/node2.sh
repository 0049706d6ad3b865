#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Must FAIL: the script outlives the test's timeout.
sleep 100000
