# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The script of mdev-guest's nested guest in its peer-to-peer case
# (node0.sh): node 2's edu and its NVMe with a controller memory buffer,
# both passed to it; the edu writes into the buffer at its guest-physical
# address (nested_p2p): the request goes from one device to the other on
# node 2, mapped there at the guest's address.

# shellcheck source=../guest/nested-guest.sh
. /lib/nested-guest.sh

nested_p2p
