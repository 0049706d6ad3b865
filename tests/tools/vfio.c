// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-vfio's VFIO plumbing (vfio.h): the open sequence of QEMU's
 * vfio-pci, BAR 0's region and mapping, Bus Master Enable and the
 * interrupts' eventfds.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vfio.h"

const char *vfio_step;

int vfio_failed(void)
{
	fprintf(stderr, "smartio-vfio: %s: %s\n", vfio_step, strerror(errno));
	return 1;
}

/* The mdev's IOMMU group, opened: /dev/vfio/N of its iommu_group link. */
static int group_open(const char *uuid)
{
	char link[PATH_MAX], target[PATH_MAX];
	static char path[PATH_MAX];
	ssize_t len;

	vfio_step = "the mdev's IOMMU group";
	snprintf(link, sizeof(link), "/sys/bus/mdev/devices/%s/iommu_group",
		 uuid);
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return -1;
	target[len] = '\0';
	snprintf(path, sizeof(path), "/dev/vfio/%s", basename(target));
	vfio_step = path;
	return open(path, O_RDWR);
}

int vfio_open(const char *uuid, void *mem, uint64_t iova, size_t size)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)mem,
		.iova = iova,
		.size = size,
	};
	int container, group;

	vfio_step = "/dev/vfio/vfio";
	container = open("/dev/vfio/vfio", O_RDWR);
	if (container < 0)
		return -1;
	vfio_step = "VFIO_GET_API_VERSION";
	if (ioctl(container, VFIO_GET_API_VERSION) != VFIO_API_VERSION) {
		errno = EPROTO;
		return -1;
	}
	group = group_open(uuid);
	if (group < 0)
		return -1;
	vfio_step = "VFIO_GROUP_GET_STATUS";
	if (ioctl(group, VFIO_GROUP_GET_STATUS, &status))
		return -1;
	if (!(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		vfio_step = "the group is not viable";
		errno = EBUSY;
		return -1;
	}
	vfio_step = "VFIO_GROUP_SET_CONTAINER";
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container))
		return -1;
	vfio_step = "VFIO_SET_IOMMU (type1)";
	if (ioctl(container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return -1;
	vfio_step = "VFIO_IOMMU_MAP_DMA";
	if (mem && ioctl(container, VFIO_IOMMU_MAP_DMA, &map))
		return -1;
	/* Where the mdev driver borrows the device. */
	vfio_step = "VFIO_GROUP_GET_DEVICE_FD";
	return ioctl(group, VFIO_GROUP_GET_DEVICE_FD, uuid);
}

struct vfio_region_info *vfio_bar0_info(int device)
{
	struct vfio_region_info *info, *more;
	size_t size = sizeof(*info);

	vfio_step = "VFIO_DEVICE_GET_REGION_INFO (BAR 0)";
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

struct vfio_region_info_cap_sparse_mmap *
vfio_bar0_areas(struct vfio_region_info *info)
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

volatile uint32_t *vfio_bar0_map(int device, struct vfio_region_info *info)
{
	struct vfio_region_info_cap_sparse_mmap *areas = vfio_bar0_areas(info);
	void *p;

	vfio_step = "mapping BAR 0";
	if (!areas || !areas->nr_areas || areas->areas[0].offset) {
		errno = ENXIO;	/* none that starts at 0 */
		return NULL;
	}
	p = mmap(NULL, areas->areas[0].size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, device, info->offset);
	return p == MAP_FAILED ? NULL : p;
}

volatile uint32_t *vfio_bar0_mapped(int device)
{
	struct vfio_region_info *bar0 = vfio_bar0_info(device);
	volatile uint32_t *p;

	if (!bar0)
		return NULL;
	p = vfio_bar0_map(device, bar0);
	free(bar0);
	return p;
}

int vfio_bus_master(int device, int on)
{
	struct vfio_region_info config = {
		.argsz = sizeof(config),
		.index = VFIO_PCI_CONFIG_REGION_INDEX,
	};
	uint16_t cmd;

	vfio_step = "Bus Master Enable";
	if (ioctl(device, VFIO_DEVICE_GET_REGION_INFO, &config) ||
	    pread(device, &cmd, sizeof(cmd), config.offset + 4) != sizeof(cmd))
		return -1;
	cmd = on ? cmd | 0x4 : cmd & ~0x4;
	if (pwrite(device, &cmd, sizeof(cmd), config.offset + 4) != sizeof(cmd))
		return -1;
	return 0;
}

int vfio_irqs_set(int device, unsigned int index, uint32_t data_type,
		  unsigned int count, const int32_t *fds)
{
	size_t fds_size = data_type == VFIO_IRQ_SET_DATA_EVENTFD ?
			  count * sizeof(int32_t) : 0;
	struct vfio_irq_set *set;
	int ret;

	set = calloc(1, sizeof(*set) + fds_size);
	if (!set)
		return -1;
	set->argsz = sizeof(*set) + fds_size;
	set->flags = data_type | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = index;
	set->count = count;
	if (fds_size)
		memcpy(set->data, fds, fds_size);
	ret = ioctl(device, VFIO_DEVICE_SET_IRQS, set);
	free(set);
	return ret;
}

uint64_t vfio_eventfd_wait(int efd, int timeout_ms)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t n = 0;

	if (poll(&p, 1, timeout_ms) == 1 && read(efd, &n, sizeof(n)) != sizeof(n))
		n = 0;
	return n;
}
