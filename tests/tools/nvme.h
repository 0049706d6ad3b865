/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal NVMe host (NVMe 1.4, as QEMU's hw/nvme serves it) for the test
 * clients that drive a device with no kernel driver: smartio-vfio through a
 * mediated device's mapped BAR and eventfds, smartio-qtest through QEMU's
 * qtest protocol. They differ only in how they reach the registers, the
 * memory the device reads and writes, and the interrupts; struct
 * nvme_host_ops is that difference, nvme.c the rest.
 *
 * One admin queue pair and one I/O queue pair, one command at a time (queue
 * depth 1), PRP1 only: an I/O moves at most one page. The memory the host
 * gives (struct nvme_host.iova, NVME_HOST_MEM bytes) holds the queues, an
 * identify buffer and a one-page data buffer at fixed offsets.
 */
#ifndef _SMARTIO_TEST_NVME_H
#define _SMARTIO_TEST_NVME_H

#include <stddef.h>
#include <stdint.h>

#define NVME_PAGE		4096u
#define NVME_QUEUE_ENTRIES	16u

/* The layout of the host's memory, as offsets from struct nvme_host.iova. */
#define NVME_MEM_ASQ		0x0000u
#define NVME_MEM_ACQ		0x1000u
#define NVME_MEM_IOSQ		0x2000u
#define NVME_MEM_IOCQ		0x3000u
#define NVME_MEM_IDENTIFY	0x4000u
#define NVME_MEM_DATA		0x5000u
#define NVME_HOST_MEM		0x6000u

/* The interrupt vectors (MSI-X) of the admin and the I/O completion queue. */
#define NVME_VECTOR_ADMIN	0
#define NVME_VECTOR_IO		1

struct nvme_host_ops {
	/* A 32-bit register at BAR 0 + @off. */
	uint32_t (*read32)(void *priv, uint32_t off);
	void (*write32)(void *priv, uint32_t off, uint32_t val);
	/* @len bytes of the memory the device reaches, at @iova. */
	void (*mem_read)(void *priv, uint64_t iova, void *buf, size_t len);
	void (*mem_write)(void *priv, uint64_t iova, const void *buf,
			  size_t len);
	/*
	 * Waits up to @timeout_ms for interrupt @vector; returns how many
	 * times it fired since the last wait (0: it did not), -1 on error.
	 */
	int (*wait_irq)(void *priv, unsigned int vector, int timeout_ms);
};

struct nvme_host {
	const struct nvme_host_ops *ops;
	void *priv;
	uint64_t iova;		/* NVME_HOST_MEM bytes, page-aligned */

	/* Filled in by nvme_host_start(). */
	uint32_t doorbell_stride;
	uint32_t lba_size;
	uint64_t lbas;		/* namespace 1's size in LBAs */
	char model[41];

	/* Queue state. */
	uint16_t asq_tail, acq_head, iosq_tail, iocq_head;
	uint8_t acq_phase, iocq_phase;
	uint16_t cid;

	/* Counters: completions seen and interrupts that announced them. */
	uint64_t completions;
	uint64_t interrupts;

	const char *step;	/* what failed, for the error line */
	uint16_t status;	/* the failed command's status field */
};

/*
 * Resets and enables the controller, identifies it and namespace 1, and
 * creates the I/O queue pair (its completions on NVME_VECTOR_IO). The
 * caller has set up the two MSI-X vectors and Bus Master Enable.
 * Returns 0, or -1 with host->step and errno saying why.
 */
int nvme_host_start(struct nvme_host *host);

/*
 * One I/O of @bytes (at most NVME_PAGE, a multiple of the LBA size) at
 * byte offset @offset of namespace 1, through the data buffer: a write
 * copies @buf there first, a read copies it to @buf after. Waits for the
 * I/O's interrupt, then its completion. Returns 0, or -1 with host->step
 * and errno set (EIO for an error status).
 */
int nvme_host_write(struct nvme_host *host, uint64_t offset, const void *buf,
		    size_t bytes);
int nvme_host_read(struct nvme_host *host, uint64_t offset, void *buf,
		   size_t bytes);

/* Disables the controller (CC.EN = 0) and waits for it to stop. */
int nvme_host_stop(struct nvme_host *host);

/*
 * The clients' data check: writes @file's contents (a multiple of
 * NVME_PAGE bytes) from byte 0 of namespace 1, a page per I/O, reads them
 * all back and compares, and prints
 *
 *	nvme: model MODEL, lba size N, lbas N
 *	nvme: wrote N bytes, read them back the same   (or "... other data")
 *	nvme: completions N, interrupts N
 *
 * Returns 0 if they read back the same, 1 if not, -1 on an error (with
 * host->step and errno set).
 */
int nvme_host_check_file(struct nvme_host *host, const char *file);

/* Prints host->step and errno (and a failed command's status) to stderr. */
void nvme_host_perror(const struct nvme_host *host, const char *prog);

#endif /* _SMARTIO_TEST_NVME_H */
