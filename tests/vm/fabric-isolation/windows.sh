# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# The window manager maps through direct windows, which each node points
# once at all it lets its peer reach (see segment.sh).
WINDOWS=direct
