// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-vfio: a mediated device of smartio_mdev, opened the way QEMU's
 * vfio-pci opens one (hw/vfio/common.c: a type1 container, the mdev's
 * group, the device by its UUID), for tests and by hand.
 *
 *	smartio-vfio info UUID		open, print what the device is, close
 *	smartio-vfio hold UUID FILE	open, map BAR 0, create FILE, read
 *					its first word every 10 ms until
 *					SIGTERM or SIGINT (exit 0) or SIGBUS
 *					(print "SIGBUS", exit 0), close
 *	smartio-vfio reset UUID		open, reset the device, close
 *	smartio-vfio edu-irq UUID	open QEMU's edu, have it raise an MSI
 *					into an eventfd, close
 *	smartio-vfio edu-dma UUID	map two pages into the container at
 *					IOVA 0x200000, open QEMU's edu, have it
 *					copy 2 KiB from one to the other, close
 *
 * info prints "device: flags F regions R irqs I", "config: size S",
 * "ids: VENDOR DEVICE" (read from the config region), "bar0: size S" with
 * "bar0 area: OFFSET+SIZE" for each range that may be mapped (the region's
 * sparse mmap capability), and "bar0 word 8: READ MAPPED", the 32-bit
 * word at BAR 0 + 8 through the region's read and through a mapping of
 * the first area (an NVMe's version register). edu-irq gives MSI vector 0
 * an eventfd (VFIO_DEVICE_SET_IRQS), writes edu's interrupt raise register
 * through BAR 0's mapping, waits up to 30 s for the eventfd and prints
 * "msi: vectors N", "msi: raised COUNT"; then it signals the vector
 * itself (DATA_NONE: the eventfd's loopback) and prints "msi: loopback
 * COUNT", and frees the vectors. edu-dma turns Bus Master Enable on (the
 * mdev maps the container's memory for the device then), has the edu
 * copy 2 KiB from IOVA 0x200000 through its buffer to 0x201000, prints
 * "dma: copied 0x800 bytes: they match" (or "they differ") and turns Bus
 * Master Enable off. Opening borrows the device,
 * closing gives it back (mdev/main.c). Errors: one line naming the step
 * and the kernel's error, exit status 1 (2 for a bad command line).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/vfio.h>

#include "sigbus.h"

static const char *step;

static int failed(void)
{
	fprintf(stderr, "smartio-vfio: %s: %s\n", step, strerror(errno));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: smartio-vfio info UUID | hold UUID FILE | reset UUID |\n"
			"       edu-irq UUID | edu-dma UUID\n");
	return 2;
}

/*
 * Memory mapped into the container for the device to reach (as QEMU maps
 * guest RAM, the IOVA its guest-physical address) before the device is
 * opened: edu-dma's two pages.
 */
#define DMA_IOVA	0x200000
#define DMA_SIZE	0x2000
static void *dma_mem;

/* The device of mdev UUID, opened through a new type1 container. */
static int vfio_open(const char *uuid)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	char link[PATH_MAX], target[PATH_MAX], path[PATH_MAX];
	int container, group, device;
	ssize_t len;

	step = "/dev/vfio/vfio";
	container = open("/dev/vfio/vfio", O_RDWR);
	if (container < 0)
		return -1;
	step = "VFIO_GET_API_VERSION";
	if (ioctl(container, VFIO_GET_API_VERSION) != VFIO_API_VERSION) {
		errno = EPROTO;
		return -1;
	}
	step = "the mdev's IOMMU group";
	snprintf(link, sizeof(link), "/sys/bus/mdev/devices/%s/iommu_group",
		 uuid);
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return -1;
	target[len] = '\0';
	snprintf(path, sizeof(path), "/dev/vfio/%s", basename(target));
	step = path;
	group = open(path, O_RDWR);
	if (group < 0)
		return -1;
	step = "VFIO_GROUP_GET_STATUS";
	if (ioctl(group, VFIO_GROUP_GET_STATUS, &status))
		return -1;
	if (!(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		step = "the group is not viable";
		errno = EBUSY;
		return -1;
	}
	step = "VFIO_GROUP_SET_CONTAINER";
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container))
		return -1;
	step = "VFIO_SET_IOMMU (type1)";
	if (ioctl(container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return -1;
	if (dma_mem) {
		struct vfio_iommu_type1_dma_map map = {
			.argsz = sizeof(map),
			.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
			.vaddr = (uintptr_t)dma_mem,
			.iova = DMA_IOVA,
			.size = DMA_SIZE,
		};

		step = "VFIO_IOMMU_MAP_DMA";
		if (ioctl(container, VFIO_IOMMU_MAP_DMA, &map))
			return -1;
	}
	/* Where the mdev driver borrows the device. */
	step = "VFIO_GROUP_GET_DEVICE_FD";
	device = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, uuid);
	return device;
}

/*
 * BAR 0's region info, with its capabilities, into a buffer the caller
 * frees; NULL on error.
 */
static struct vfio_region_info *bar0_info(int device)
{
	struct vfio_region_info *info, *more;
	size_t size = sizeof(*info);

	step = "VFIO_DEVICE_GET_REGION_INFO (BAR 0)";
	info = calloc(1, size);
	for (;;) {
		if (!info)
			return NULL;
		info->argsz = size;
		info->index = VFIO_PCI_BAR0_REGION_INDEX;
		if (ioctl(device, VFIO_DEVICE_GET_REGION_INFO, info)) {
			free(info);
			return NULL;
		}
		if (info->argsz <= size)
			return info;
		size = info->argsz;
		more = realloc(info, size);
		if (!more)
			free(info);
		info = more;
	}
}

/* BAR 0's first mappable area, from its sparse mmap capability. */
static struct vfio_region_info_cap_sparse_mmap *
bar0_areas(struct vfio_region_info *info)
{
	struct vfio_info_cap_header *h;
	uint32_t off = info->cap_offset;

	while ((info->flags & VFIO_REGION_INFO_FLAG_CAPS) && off) {
		h = (void *)((char *)info + off);
		if (h->id == VFIO_REGION_INFO_CAP_SPARSE_MMAP)
			return (void *)h;
		off = h->next;
	}
	return NULL;
}

/* Maps BAR 0's first area; NULL on error. */
static volatile uint32_t *bar0_map(int device, struct vfio_region_info *info)
{
	struct vfio_region_info_cap_sparse_mmap *areas = bar0_areas(info);
	void *p;

	step = "mapping BAR 0";
	if (!areas || !areas->nr_areas || areas->areas[0].offset) {
		errno = ENXIO;	/* none that starts at 0 */
		return NULL;
	}
	p = mmap(NULL, areas->areas[0].size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, device, info->offset);
	return p == MAP_FAILED ? NULL : p;
}

/* BAR 0's first area, mapped; NULL on error. */
static volatile uint32_t *bar0_mapped(int device)
{
	struct vfio_region_info *bar0 = bar0_info(device);
	volatile uint32_t *p;

	if (!bar0)
		return NULL;
	p = bar0_map(device, bar0);
	free(bar0);
	return p;
}

static int info(int device)
{
	struct vfio_region_info_cap_sparse_mmap *areas;
	struct vfio_region_info *bar0;
	volatile uint32_t *mapped;
	uint32_t word;
	unsigned int i;
	struct vfio_device_info dev = { .argsz = sizeof(dev) };
	struct vfio_region_info config = {
		.argsz = sizeof(config),
		.index = VFIO_PCI_CONFIG_REGION_INDEX,
	};
	uint16_t ids[2];

	step = "VFIO_DEVICE_GET_INFO";
	if (ioctl(device, VFIO_DEVICE_GET_INFO, &dev))
		return failed();
	printf("device: flags %#x regions %u irqs %u\n", dev.flags,
	       dev.num_regions, dev.num_irqs);
	step = "VFIO_DEVICE_GET_REGION_INFO (config)";
	if (ioctl(device, VFIO_DEVICE_GET_REGION_INFO, &config))
		return failed();
	printf("config: size %llu\n", (unsigned long long)config.size);
	step = "reading the vendor and device ids";
	if (pread(device, ids, sizeof(ids), config.offset) != sizeof(ids))
		return failed();
	/* Config space is little-endian, as the x86 this runs on. */
	printf("ids: %04x %04x\n", ids[0], ids[1]);

	bar0 = bar0_info(device);
	if (!bar0)
		return failed();
	printf("bar0: size %llu\n", (unsigned long long)bar0->size);
	areas = bar0_areas(bar0);
	for (i = 0; areas && i < areas->nr_areas; i++)
		printf("bar0 area: %#llx+%#llx\n",
		       (unsigned long long)areas->areas[i].offset,
		       (unsigned long long)areas->areas[i].size);
	step = "reading BAR 0 + 8";
	if (pread(device, &word, sizeof(word), bar0->offset + 8) !=
	    sizeof(word)) {
		free(bar0);
		return failed();
	}
	mapped = bar0_map(device, bar0);
	free(bar0);
	if (!mapped)
		return failed();
	printf("bar0 word 8: %#x %#x\n", word, mapped[2]);
	return 0;
}

/*
 * QEMU's edu (docs/specs/edu.rst), as 32-bit registers: raise and
 * acknowledge an interrupt, and a DMA (source, destination, count,
 * command) between the bus and its buffer at EDU_BUF.
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

/* Turns the device's Bus Master Enable on or off, as a VM's driver does. */
static int bus_master(int device, int on)
{
	struct vfio_region_info config = {
		.argsz = sizeof(config),
		.index = VFIO_PCI_CONFIG_REGION_INDEX,
	};
	uint16_t cmd;

	step = "Bus Master Enable";
	if (ioctl(device, VFIO_DEVICE_GET_REGION_INFO, &config) ||
	    pread(device, &cmd, sizeof(cmd), config.offset + 4) != sizeof(cmd))
		return -1;
	cmd = on ? cmd | 0x4 : cmd & ~0x4;
	if (pwrite(device, &cmd, sizeof(cmd), config.offset + 4) != sizeof(cmd))
		return -1;
	return 0;
}

/* Sets MSI vector 0's eventfd (-1: frees the vectors), or signals it. */
static int msi_set(int device, uint32_t data_type, int count, int32_t fd)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	struct vfio_irq_set *set = (void *)buf;

	memset(buf, 0, sizeof(buf));
	set->argsz = sizeof(buf);
	set->flags = data_type | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = VFIO_PCI_MSI_IRQ_INDEX;
	set->count = count;
	memcpy(set->data, &fd, sizeof(fd));
	return ioctl(device, VFIO_DEVICE_SET_IRQS, set);
}

/* The eventfd's count once it fires, within 30 s; 0 if it does not. */
static uint64_t eventfd_wait(int efd)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t n = 0;

	if (poll(&p, 1, 30000) == 1 && read(efd, &n, sizeof(n)) != sizeof(n))
		n = 0;
	return n;
}

static int edu_irq(int device)
{
	struct vfio_irq_info irq = {
		.argsz = sizeof(irq),
		.index = VFIO_PCI_MSI_IRQ_INDEX,
	};
	volatile uint32_t *regs;
	int efd;

	step = "VFIO_DEVICE_GET_IRQ_INFO (MSI)";
	if (ioctl(device, VFIO_DEVICE_GET_IRQ_INFO, &irq))
		return failed();
	printf("msi: vectors %u\n", irq.count);
	regs = bar0_mapped(device);
	if (!regs)
		return failed();
	/* An MSI is a write the function makes: it masters the bus. */
	if (bus_master(device, 1))
		return failed();
	step = "eventfd";
	efd = eventfd(0, EFD_NONBLOCK);
	if (efd < 0)
		return failed();
	step = "VFIO_DEVICE_SET_IRQS (an eventfd for MSI vector 0)";
	if (msi_set(device, VFIO_IRQ_SET_DATA_EVENTFD, 1, efd))
		return failed();
	regs[EDU_IRQ_RAISE] = 1;
	printf("msi: raised %llu\n", (unsigned long long)eventfd_wait(efd));
	regs[EDU_IRQ_ACK] = 1;
	step = "VFIO_DEVICE_SET_IRQS (loopback)";
	if (msi_set(device, VFIO_IRQ_SET_DATA_NONE, 1, -1))
		return failed();
	printf("msi: loopback %llu\n", (unsigned long long)eventfd_wait(efd));
	step = "VFIO_DEVICE_SET_IRQS (free the vectors)";
	if (msi_set(device, VFIO_IRQ_SET_DATA_NONE, 0, -1))
		return failed();
	close(efd);
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

static int edu_dma_test(int device)
{
	unsigned char *mem = dma_mem;
	volatile uint32_t *regs;
	unsigned int i;

	for (i = 0; i < 0x800; i++) {
		mem[i] = (unsigned char)(i * 7 + 1);
		mem[0x1000 + i] = 0;
	}
	regs = bar0_mapped(device);
	if (!regs)
		return failed();
	if (bus_master(device, 1))
		return failed();
	step = "the edu's DMA from the first page";
	if (edu_dma(regs, DMA_IOVA, EDU_BUF, 0x800, 0))
		return failed();
	step = "the edu's DMA to the second page";
	if (edu_dma(regs, EDU_BUF, DMA_IOVA + 0x1000, 0x800, EDU_DMA_TO_RAM))
		return failed();
	printf("dma: copied 0x800 bytes: %s\n",
	       memcmp(mem, mem + 0x1000, 0x800) ? "they differ" : "they match");
	if (bus_master(device, 0))
		return failed();
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int hold(int device, const char *file)
{
	volatile uint32_t *mapped = bar0_mapped(device);
	int fd;

	if (!mapped)
		return failed();
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	sigbus_exits();
	(void)mapped[0];
	step = file;
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return failed();
	close(fd);
	while (!stop) {
		(void)mapped[0];
		usleep(10000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int device, ret;

	if (argc == 3 && !strcmp(argv[1], "info")) {
		device = vfio_open(argv[2]);
		if (device < 0)
			return failed();
		ret = info(device);
	} else if (argc == 3 && !strcmp(argv[1], "reset")) {
		device = vfio_open(argv[2]);
		if (device < 0)
			return failed();
		step = "VFIO_DEVICE_RESET";
		ret = ioctl(device, VFIO_DEVICE_RESET) ? failed() : 0;
	} else if (argc == 3 && !strcmp(argv[1], "edu-dma")) {
		dma_mem = mmap(NULL, DMA_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (dma_mem == MAP_FAILED) {
			step = "memory for the device";
			return failed();
		}
		device = vfio_open(argv[2]);
		if (device < 0)
			return failed();
		ret = edu_dma_test(device);
	} else if (argc == 3 && !strcmp(argv[1], "edu-irq")) {
		device = vfio_open(argv[2]);
		if (device < 0)
			return failed();
		ret = edu_irq(device);
	} else if (argc == 4 && !strcmp(argv[1], "hold")) {
		device = vfio_open(argv[2]);
		if (device < 0)
			return failed();
		ret = hold(device, argv[3]);
	} else {
		return usage();
	}
	close(device);
	return ret;
}
