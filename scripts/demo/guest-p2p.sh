# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# make demo's second guest (node0.sh): node 2's edu and its NVMe with a
# memory buffer, both passed to it; the edu writes into the buffer at the
# guest-physical address the guest gave it (nested_p2p).

# shellcheck source=../../tests/vm/guest/nested-guest.sh
. /lib/nested-guest.sh

nested_p2p
