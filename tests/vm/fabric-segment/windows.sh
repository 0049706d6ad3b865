# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# The window manager maps through LUT windows (see segment.sh).
WINDOWS=lut
