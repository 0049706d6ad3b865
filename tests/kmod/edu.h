/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's edu device (hw/misc/edu.c, docs/specs/edu.rst) as the test
 * drivers drive it: a DMA engine that copies between the bus and a
 * 4 KiB buffer of its own, at EDU_BUF in its DMA address space.
 */
#ifndef _SMARTIO_TEST_EDU_H
#define _SMARTIO_TEST_EDU_H

#include <linux/device.h>
#include <linux/io.h>
#include <linux/iopoll.h>

#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_CNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_DMA_RUN	0x1
#define EDU_DMA_TO_RAM	0x2	/* direction: edu's buffer to the bus */
#define EDU_BUF		0x40000
/*
 * A DMA must end short of the buffer's end: edu's range check counts an
 * end at 0x41000 outside (within() in edu.c), and then aborts QEMU.
 */
#define EDU_DMA_MAX	4095

/*
 * One edu DMA of @len bytes, waiting for its end (edu runs it from a
 * timer). The bound is for a DMA that never ends, not a speed: a
 * peer-to-peer read through two NTB hops is hundreds of round trips over
 * the emulated cable, which a loaded machine can stretch to seconds.
 */
static inline int edu_dma(void __iomem *regs, struct device *dev, u64 src,
			  u64 dst, u32 len, u32 cmd)
{
	u32 status;
	int ret;

	writeq(src, regs + EDU_DMA_SRC);
	writeq(dst, regs + EDU_DMA_DST);
	writeq(len, regs + EDU_DMA_CNT);
	writel(cmd | EDU_DMA_RUN, regs + EDU_DMA_CMD);
	ret = readl_poll_timeout(regs + EDU_DMA_CMD, status,
				 !(status & EDU_DMA_RUN), 10000, 60000000);
	if (ret)
		dev_err(dev, "DMA %#llx -> %#llx did not end\n", src, dst);
	return ret;
}

#endif /* _SMARTIO_TEST_EDU_H */
