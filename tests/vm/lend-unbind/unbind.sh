# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of lend-unbind: fio that runs until an I/O of it fails.

# shellcheck source=../guest/lend.sh
. /usr/local/lib/vmtest/lend.sh

