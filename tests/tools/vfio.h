/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What smartio-vfio's commands share: a mediated device opened the way
 * QEMU's vfio-pci opens one (hw/vfio/common.c: a type1 container, the
 * mdev's group, the device by its UUID), its BAR 0 mapped, its Bus Master
 * Enable, and its interrupts as eventfds.
 */
#ifndef _SMARTIO_TEST_VFIO_H
#define _SMARTIO_TEST_VFIO_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vfio.h>

/* The step that failed, for vfio_failed()'s line. */
extern const char *vfio_step;

/* Prints "smartio-vfio: STEP: ERROR" and returns 1, the exit status. */
int vfio_failed(void);

/*
 * The device of mdev @uuid, opened through a new type1 container into
 * which @size bytes at @mem are mapped first at @iova (as QEMU maps guest
 * RAM at its guest-physical address; none if @mem is NULL). Returns its
 * file descriptor, or -1 with vfio_step and errno set.
 */
int vfio_open(const char *uuid, void *mem, uint64_t iova, size_t size);

/* BAR 0's region info with its capabilities, freed by the caller. */
struct vfio_region_info *vfio_bar0_info(int device);

/* BAR 0's sparse mmap capability, NULL if it has none. */
struct vfio_region_info_cap_sparse_mmap *
vfio_bar0_areas(struct vfio_region_info *info);

/* Maps BAR 0's first area (which must start at 0); NULL on error. */
volatile uint32_t *vfio_bar0_map(int device, struct vfio_region_info *info);

/* vfio_bar0_info() and vfio_bar0_map() in one. */
volatile uint32_t *vfio_bar0_mapped(int device);

/* Turns the device's Bus Master Enable on or off, as a VM's driver does. */
int vfio_bus_master(int device, int on);

/*
 * VFIO_DEVICE_SET_IRQS of @index (VFIO_PCI_MSI_IRQ_INDEX or _MSIX_) with
 * the action TRIGGER: @count eventfds @fds (DATA_EVENTFD), or a signal to
 * @count vectors (DATA_NONE; a count of 0 frees them).
 */
int vfio_irqs_set(int device, unsigned int index, uint32_t data_type,
		  unsigned int count, const int32_t *fds);

/* The eventfd's count once it fires, within @timeout_ms; 0 if not. */
uint64_t vfio_eventfd_wait(int efd, int timeout_ms);

/*
 * smartio-vfio's commands on the device's kinds, each from opening the
 * mdev @uuid to closing it; each returns the exit status (vfio-client.c
 * documents them).
 */
int vfio_edu_irq(const char *uuid);			/* vfio-edu.c */
int vfio_edu_dma(const char *uuid);
/* Where nvme maps its memory in the container by default (as a VM's RAM). */
#define VFIO_NVME_IOVA	0x200000
int vfio_nvme_check(const char *uuid, const char *file,	/* vfio-nvme.c */
		    uint64_t iova);
int vfio_nvme_bench(const char *uuid, unsigned int seconds);

#endif /* _SMARTIO_TEST_VFIO_H */
