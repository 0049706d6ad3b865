# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The borrower's DMA window: all of its RAM (see borrower_dma_window).
export DMA_WINDOW=ram
