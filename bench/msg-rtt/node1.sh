#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The echoing side of the messaging benchmark.
set -eu
# shellcheck source=bench.sh
. ./bench.sh

fabric_up 1
vmctl barrier finished
