# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# The window manager maps through direct windows, which the segment's
# owner translates when asked over messaging (see segment.sh).
WINDOWS=direct
