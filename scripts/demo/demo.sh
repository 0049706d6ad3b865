# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The demo cluster: two nodes boot, load smartio and show it. Later steps
# (fabric, lending) extend this script, so that "make demo" always shows
# what smartio can do today.
set -eu

say() {
	echo "== node$NODE: $*"
}

say "up: $(uname -r), IOMMU $(ls /sys/class/iommu)"
vmctl barrier booted

say "loading smartio"
modprobe smartio
grep smartio /proc/modules
smartioctl version
vmctl barrier loaded

say "unloading smartio"
modprobe -r smartio
vmctl barrier unloaded
say "done"
