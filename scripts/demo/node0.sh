#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: what every node of the emulated cluster does.
. ./demo.sh
