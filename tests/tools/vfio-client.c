// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-vfio: a mediated device of smartio_mdev, opened the way QEMU's
 * vfio-pci opens one (hw/vfio/common.c: a type1 container, the mdev's
 * group, the device by its UUID), for tests and by hand.
 *
 *	smartio-vfio info UUID		open, print what the device is, close
 *	smartio-vfio hold UUID FILE	open, create FILE, stay open until
 *					SIGTERM or SIGINT, close
 *
 * info prints "device: flags F regions R irqs I", "config: size S" and
 * "ids: VENDOR DEVICE" (read from the config region). Opening borrows the
 * device, closing gives it back (mdev/main.c). Errors: one line naming
 * the step and the kernel's error, exit status 1 (2 for a bad command
 * line).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/vfio.h>

static const char *step;

static int failed(void)
{
	fprintf(stderr, "smartio-vfio: %s: %s\n", step, strerror(errno));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: smartio-vfio info UUID | hold UUID FILE\n");
	return 2;
}

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
	/* Where the mdev driver borrows the device. */
	step = "VFIO_GROUP_GET_DEVICE_FD";
	device = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, uuid);
	return device;
}

static int info(int device)
{
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
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int hold(const char *file)
{
	int fd;

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	step = file;
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return failed();
	close(fd);
	while (!stop)
		pause();
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
	} else if (argc == 4 && !strcmp(argv[1], "hold")) {
		device = vfio_open(argv[2]);
		if (device < 0)
			return failed();
		ret = hold(argv[3]);
	} else {
		return usage();
	}
	close(device);
	return ret;
}
