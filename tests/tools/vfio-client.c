// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-vfio: a mediated device of smartio_mdev, opened the way QEMU's
 * vfio-pci opens one (hw/vfio/common.c: a type1 container, the mdev's
 * group, the device by its UUID), for tests and by hand.
 *
 *	smartio-vfio info UUID		open, print what the device is, close
 *	smartio-vfio hold UUID FILE	open, map BAR 0, create FILE, read
 *					its first word every 10 ms until
 *					SIGTERM or SIGINT (exit 0), until
 *					it reads all ones, as a function
 *					that is gone reads (print "gone",
 *					and "asked to release" once its
 *					request eventfd fires within 10 s;
 *					exit 0), or SIGBUS (print "SIGBUS",
 *					exit 0); close
 *	smartio-vfio reset UUID		open, reset the device, close
 *	smartio-vfio edu-irq UUID	open QEMU's edu, have it raise an MSI
 *					into an eventfd, close
 *	smartio-vfio edu-dma UUID	map two pages into the container at
 *					IOVA 0x200000, open QEMU's edu, have it
 *					copy 2 KiB from one to the other, close
 *	smartio-vfio nvme UUID FILE [IOVA]
 *					map the NVMe host's memory (nvme.h)
 *					into the container at IOVA (0x200000),
 *					open an NVMe, write FILE to it from
 *					byte 0, read it back, close
 *	smartio-vfio nvme-bench UUID SECONDS
 *					the same open, then 4 KiB reads at
 *					random between 64 and 192 MiB, one at
 *					a time, for SECONDS; close
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
 * Master Enable off. nvme gives MSI-X vectors 0 and 1 eventfds, turns Bus
 * Master Enable on and prints nvme_host_check_file()'s three lines
 * (nvme.h): every command waits for its vector's eventfd to fire, then
 * for its completion, so "completions N, interrupts N" with equal counts
 * says that each completion's interrupt arrived. nvme-bench prints
 * "nvme-bench: started", waits for a line on stdin (or its end), reads,
 * prints "nvme-bench: ios N, seconds S, median-ns N, p99-ns N" (each
 * read's latency, submission to completion) and the counts line, prints
 * "nvme-bench: done" and waits for a line again before it closes: a
 * benchmark counts what the lender does during the reads alone. The files:
 * vfio.c the VFIO plumbing, vfio-edu.c and vfio-nvme.c the devices' commands,
 * nvme.c the NVMe host. Opening borrows the device,
 * closing gives it back (mdev/main.c). Errors: one line naming the step
 * and the kernel's error, exit status 1 (2 for a bad command line).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sigbus.h"
#include "vfio.h"

static int usage(void)
{
	fprintf(stderr, "usage: smartio-vfio info UUID | hold UUID FILE | reset UUID |\n"
			"       edu-irq UUID | edu-dma UUID | nvme UUID FILE [IOVA] |\n"
			"       nvme-bench UUID SECONDS\n");
	return 2;
}

static int info(const char *uuid)
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
	int device;

	device = vfio_open(uuid, NULL, 0, 0);
	if (device < 0)
		return vfio_failed();
	vfio_step = "VFIO_DEVICE_GET_INFO";
	if (ioctl(device, VFIO_DEVICE_GET_INFO, &dev))
		return vfio_failed();
	printf("device: flags %#x regions %u irqs %u\n", dev.flags,
	       dev.num_regions, dev.num_irqs);
	vfio_step = "VFIO_DEVICE_GET_REGION_INFO (config)";
	if (ioctl(device, VFIO_DEVICE_GET_REGION_INFO, &config))
		return vfio_failed();
	printf("config: size %llu\n", (unsigned long long)config.size);
	vfio_step = "reading the vendor and device ids";
	if (pread(device, ids, sizeof(ids), config.offset) != sizeof(ids))
		return vfio_failed();
	/* Config space is little-endian, as the x86 this runs on. */
	printf("ids: %04x %04x\n", ids[0], ids[1]);

	bar0 = vfio_bar0_info(device);
	if (!bar0)
		return vfio_failed();
	printf("bar0: size %llu\n", (unsigned long long)bar0->size);
	areas = vfio_bar0_areas(bar0);
	for (i = 0; areas && i < areas->nr_areas; i++)
		printf("bar0 area: %#llx+%#llx\n",
		       (unsigned long long)areas->areas[i].offset,
		       (unsigned long long)areas->areas[i].size);
	vfio_step = "reading BAR 0 + 8";
	if (pread(device, &word, sizeof(word), bar0->offset + 8) !=
	    sizeof(word))
		return vfio_failed();
	mapped = vfio_bar0_map(device, bar0);
	free(bar0);
	if (!mapped)
		return vfio_failed();
	printf("bar0 word 8: %#x %#x\n", word, mapped[2]);
	close(device);
	return 0;
}

static int reset(const char *uuid)
{
	int device = vfio_open(uuid, NULL, 0, 0);

	if (device < 0)
		return vfio_failed();
	vfio_step = "VFIO_DEVICE_RESET";
	if (ioctl(device, VFIO_DEVICE_RESET))
		return vfio_failed();
	close(device);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int hold(const char *uuid, const char *file)
{
	volatile uint32_t *mapped;
	int device, fd, req;

	device = vfio_open(uuid, NULL, 0, 0);
	if (device < 0)
		return vfio_failed();
	mapped = vfio_bar0_mapped(device);
	if (!mapped)
		return vfio_failed();
	/* As QEMU: the device may ask for itself back through this. */
	req = eventfd(0, EFD_NONBLOCK);
	vfio_step = "VFIO_DEVICE_SET_IRQS (the request eventfd)";
	if (req < 0 || vfio_irqs_set(device, VFIO_PCI_REQ_IRQ_INDEX,
				     VFIO_IRQ_SET_DATA_EVENTFD, 1, &req))
		return vfio_failed();
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	sigbus_exits();
	(void)mapped[0];
	vfio_step = file;
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return vfio_failed();
	close(fd);
	while (!stop) {
		if (mapped[0] == 0xffffffff) {
			printf("gone\n");
			if (vfio_eventfd_wait(req, 10000))
				printf("asked to release\n");
			break;
		}
		usleep(10000);
	}
	close(device);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	unsigned long long iova;
	unsigned long seconds;
	char *end;

	if (argc == 3 && !strcmp(cmd, "info"))
		return info(argv[2]);
	if (argc == 3 && !strcmp(cmd, "reset"))
		return reset(argv[2]);
	if (argc == 4 && !strcmp(cmd, "hold"))
		return hold(argv[2], argv[3]);
	if (argc == 3 && !strcmp(cmd, "edu-irq"))
		return vfio_edu_irq(argv[2]);
	if (argc == 3 && !strcmp(cmd, "edu-dma"))
		return vfio_edu_dma(argv[2]);
	if ((argc == 4 || argc == 5) && !strcmp(cmd, "nvme")) {
		errno = 0;
		iova = argc == 5 ? strtoull(argv[4], &end, 0) :
						VFIO_NVME_IOVA;
		if (errno || (argc == 5 && *end) || iova % 4096)
			return usage();
		return vfio_nvme_check(argv[2], argv[3], iova);
	}
	if (argc == 4 && !strcmp(cmd, "nvme-bench")) {
		errno = 0;
		seconds = strtoul(argv[3], &end, 10);
		if (errno || *end || !seconds || seconds > 3600)
			return usage();
		return vfio_nvme_bench(argv[2], seconds);
	}
	return usage();
}
