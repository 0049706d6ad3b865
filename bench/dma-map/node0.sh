#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: ns per DMA map+unmap through a borrowed NVMe's shadow device
# (smartio's dma_map_ops, pages mapped into the NTB's IOVA window) and
# through this node's own NVMe (the kernel's iommu-dma, same IOMMU), for
# one 4 KiB page and a 64 KiB scatterlist of 16 pages (about.md says what
# each path does). Node 1 borrows node 2's NVMe in IOMMU mode; both
# devices are measured in each of nine rounds, back to back, the order
# swapped every round: with the native domain lazy (the kernel's
# default), then with it strict, as the shadow's always is. Each ns metric
# is the median of its rounds, each ratio the median of the rounds'
# ratios. Prints "result:" lines; fails only if a map fails, the borrow
# does, or pages are left in the IOVA window.
set -eu
# shellcheck source=bench.sh
. ./bench.sh

# About a second per measurement under TCG, so that both devices of a
# round see the same load on the host, and many rounds, so that a burst
# of it sways only some; a smoke run takes seconds.
page_count=300000
sg_count=60000
if bench_smoke; then
	page_count=200
	sg_count=200
fi
rounds=9

load_lend
modprobe smartio_dma_bench
[ "$(iova_pages)" = 0 ] || fail "no empty IOVA window: $(iova_pages)"
wait_until 30 joined 2 || { show_adapters; fail "node 2 never joined"; }

# The local NVMe, named before the borrow brings a second one.
native=$(nvme_bdf)
[ "$(driver_of "$native")" = nvme ] || fail "nvme did not bind to $native"
vmctl barrier available
shadow=$(borrow_bound 20000 nvme)
# Both drivers done probing (their DMA masks set, controllers idle).
wait_until 30 nvme_ns_of "$native" >/dev/null || fail "no block device for $native"
wait_until 30 nvme_ns_of "$shadow" >/dev/null || fail "no block device for $shadow"
echo "node$NODE: shadow $shadow, native $native; $rounds rounds of" \
	"$page_count page and $sg_count sg64k map+unmaps each"
pages=$(iova_pages)

# measure_rounds MODE: the rounds, native's domain in MODE (lazy, strict);
# one file per metric, /tmp/dma-map/KIND-WHICH-MODE: its rounds' ns, a
# line each.
measure_rounds() {
	round=1
	while [ $round -le $rounds ]; do
		order="shadow native"
		[ $((round % 2)) = 1 ] || order="native shadow"
		for kind in page sg64k; do
			count=$page_count
			[ $kind = page ] || count=$sg_count
			for which in $order; do
				bdf=$shadow
				[ "$which" = shadow ] || bdf=$native
				dma_bench "$bdf" $kind $count >>"/tmp/dma-map/$kind-$which-$1"
			done
		done
		round=$((round + 1))
	done
}

# native_domain TYPE: the local NVMe's IOMMU domain made TYPE (DMA-FQ:
# lazy, the reference kernel's default; DMA: strict), which Linux allows
# only with no driver bound in the group.
native_domain() {
	group=/sys/bus/pci/devices/$native/iommu_group
	for dev in "$group"/devices/*; do
		[ ! -e "$dev/driver" ] || echo "${dev##*/}" >"$dev/driver/unbind"
	done
	echo "$1" >"$group/type" || fail "cannot make $native's domain $1"
	echo "$native" >/sys/bus/pci/drivers/nvme/bind
	wait_until 30 nvme_ns_of "$native" >/dev/null || fail "no block device for $native"
}

rm -rf /tmp/dma-map
mkdir /tmp/dma-map
[ "$(cat "/sys/bus/pci/devices/$native/iommu_group/type")" = DMA-FQ ] ||
	fail "$native's domain is not lazy (DMA-FQ)"
measure_rounds lazy
native_domain DMA
measure_rounds strict
native_domain DMA-FQ

# No growth: the runs leak nothing (the driver's own mappings may have
# shrunk meanwhile, its probe's last commands done).
[ "$(iova_pages)" -le "$pages" ] ||
	fail "$(iova_pages) pages in the IOVA window after the runs, $pages before"
# rounds_of KIND WHICH MODE: the metric's rounds, on one line.
rounds_of() {
	tr '\n' ' ' <"/tmp/dma-map/$1-$2-$3"
}
# ratios_of KIND MODE: each round's shadow over native, on one line.
ratios_of() {
	paste -d ' ' "/tmp/dma-map/$1-shadow-$2" "/tmp/dma-map/$1-native-$2" |
		while read -r s n; do
			ratio "$s" "$n" 2
		done | tr '\n' ' '
}
# The shadow's numbers are from the rounds against lazy native; those
# against strict native give the strict ratio.
for kind in page sg64k; do
	# shellcheck disable=SC2046 # one argument per round
	s=$(median $(rounds_of $kind shadow lazy))
	# shellcheck disable=SC2046
	n=$(median $(rounds_of $kind native lazy))
	# shellcheck disable=SC2046
	n_strict=$(median $(rounds_of $kind native strict))
	result "dma-map/$kind-shadow-ns" "$s" ns
	result "dma-map/$kind-native-ns" "$n" ns
	# shellcheck disable=SC2046
	result "dma-map/$kind-ratio" "$(median $(ratios_of $kind lazy))" x
	result "dma-map/$kind-native-strict-ns" "$n_strict" ns
	# shellcheck disable=SC2046
	result "dma-map/$kind-strict-ratio" "$(median $(ratios_of $kind strict))" x
	for mode in lazy strict; do
		echo "node$NODE: $kind rounds against $mode native: shadow" \
			"$(rounds_of $kind shadow $mode)native $(rounds_of $kind native $mode)"
	done
done

smartioctl return 20000 || fail "return 20000 failed"
not_present "$shadow" || fail "shadow device still there"
[ "$(iova_pages)" = 0 ] || fail "$(iova_pages) pages left in the IOVA window"
vmctl barrier returned
vmctl barrier finished
rmmod smartio_dma_bench smartio_lend smartio_ntb smartio
ntb_unload
