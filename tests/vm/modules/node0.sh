#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload the smartio modules on every node at once; the runner
# fails the test if any kernel logs a warning on the way.
. ./modules.sh
