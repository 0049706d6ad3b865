# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The borrower's DMA window: its NTB's IOVA window, pages mapped one by one
# in the NTB's IOMMU domain (see borrower_dma_window).
export DMA_WINDOW=iommu
