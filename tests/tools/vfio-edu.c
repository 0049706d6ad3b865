// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-vfio's commands for QEMU's edu (docs/specs/edu.rst), a device
 * that raises MSIs and copies memory on demand: edu-irq and edu-dma
 * (vfio-client.c says what they print).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include "vfio.h"

/*
 * edu's 32-bit registers: raise and acknowledge an interrupt, and a DMA
 * (source, destination, count, command) between the bus and its buffer at
 * EDU_BUF.
 */
#define EDU_IRQ_RAISE	(0x60 / 4)
#define EDU_IRQ_ACK	(0x64 / 4)
#define EDU_DMA_SRC	(0x80 / 4)
#define EDU_DMA_DST	(0x88 / 4)
#define EDU_DMA_CNT	(0x90 / 4)
#define EDU_DMA_CMD	(0x98 / 4)
#define EDU_DMA_RUN	0x1
#define EDU_DMA_TO_RAM	0x2
#define EDU_BUF		0x40000

/*
 * Memory mapped into the container for the device to reach, before the
 * device is opened (as QEMU maps guest RAM, the IOVA its guest-physical
 * address): edu-dma's two pages.
 */
#define DMA_IOVA	0x200000
#define DMA_SIZE	0x2000

/* MSI vector 0's eventfd, or with @efd -1 a signal (@count 1) or a free (0). */
static int msi_set(int device, unsigned int count, int32_t efd)
{
	return vfio_irqs_set(device, VFIO_PCI_MSI_IRQ_INDEX, efd < 0 ?
			     VFIO_IRQ_SET_DATA_NONE : VFIO_IRQ_SET_DATA_EVENTFD,
			     count, &efd);
}

int vfio_edu_irq(const char *uuid)
{
	struct vfio_irq_info irq = {
		.argsz = sizeof(irq),
		.index = VFIO_PCI_MSI_IRQ_INDEX,
	};
	volatile uint32_t *regs;
	int device, efd;

	device = vfio_open(uuid, NULL, 0, 0);
	if (device < 0)
		return vfio_failed();
	vfio_step = "VFIO_DEVICE_GET_IRQ_INFO (MSI)";
	if (ioctl(device, VFIO_DEVICE_GET_IRQ_INFO, &irq))
		return vfio_failed();
	printf("msi: vectors %u\n", irq.count);
	regs = vfio_bar0_mapped(device);
	if (!regs)
		return vfio_failed();
	/* An MSI is a write the function makes: it masters the bus. */
	if (vfio_bus_master(device, 1))
		return vfio_failed();
	vfio_step = "eventfd";
	efd = eventfd(0, EFD_NONBLOCK);
	if (efd < 0)
		return vfio_failed();
	vfio_step = "VFIO_DEVICE_SET_IRQS (an eventfd for MSI vector 0)";
	if (msi_set(device, 1, efd))
		return vfio_failed();
	regs[EDU_IRQ_RAISE] = 1;
	printf("msi: raised %llu\n",
	       (unsigned long long)vfio_eventfd_wait(efd, 30000));
	regs[EDU_IRQ_ACK] = 1;
	vfio_step = "VFIO_DEVICE_SET_IRQS (loopback)";
	if (msi_set(device, 1, -1))
		return vfio_failed();
	printf("msi: loopback %llu\n",
	       (unsigned long long)vfio_eventfd_wait(efd, 30000));
	vfio_step = "VFIO_DEVICE_SET_IRQS (free the vectors)";
	if (msi_set(device, 0, -1))
		return vfio_failed();
	close(efd);
	close(device);
	return 0;
}

/* One edu DMA of @len bytes, polled to its end (edu runs it from a timer). */
static int edu_dma(volatile uint32_t *regs, uint64_t src, uint64_t dst,
		   uint32_t len, uint32_t cmd)
{
	int i;

	regs[EDU_DMA_SRC] = (uint32_t)src;
	regs[EDU_DMA_SRC + 1] = (uint32_t)(src >> 32);
	regs[EDU_DMA_DST] = (uint32_t)dst;
	regs[EDU_DMA_DST + 1] = (uint32_t)(dst >> 32);
	regs[EDU_DMA_CNT] = len;
	regs[EDU_DMA_CMD] = cmd | EDU_DMA_RUN;
	for (i = 0; i < 6000 && (regs[EDU_DMA_CMD] & EDU_DMA_RUN); i++)
		usleep(10000);
	if (regs[EDU_DMA_CMD] & EDU_DMA_RUN) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

int vfio_edu_dma(const char *uuid)
{
	volatile uint32_t *regs;
	unsigned char *mem;
	unsigned int i;
	int device;

	vfio_step = "memory for the device";
	mem = mmap(NULL, DMA_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return vfio_failed();
	for (i = 0; i < 0x800; i++)
		mem[i] = (unsigned char)(i * 7 + 1);
	device = vfio_open(uuid, mem, DMA_IOVA, DMA_SIZE);
	if (device < 0)
		return vfio_failed();
	regs = vfio_bar0_mapped(device);
	if (!regs)
		return vfio_failed();
	if (vfio_bus_master(device, 1))
		return vfio_failed();
	vfio_step = "the edu's DMA from the first page";
	if (edu_dma(regs, DMA_IOVA, EDU_BUF, 0x800, 0))
		return vfio_failed();
	vfio_step = "the edu's DMA to the second page";
	if (edu_dma(regs, EDU_BUF, DMA_IOVA + 0x1000, 0x800, EDU_DMA_TO_RAM))
		return vfio_failed();
	printf("dma: copied 0x800 bytes: %s\n",
	       memcmp(mem, mem + 0x1000, 0x800) ? "they differ" : "they match");
	if (vfio_bus_master(device, 0))
		return vfio_failed();
	close(device);
	return 0;
}
