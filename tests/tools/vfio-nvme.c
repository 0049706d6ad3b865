// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-vfio's commands for an NVMe: nvme, the data check of nvme.h
 * through a mediated device, and nvme-bench, random reads for the
 * benchmarks (vfio-client.c says what they print). The NVMe host's
 * registers are BAR 0's mapping, its memory is the client's, mapped into
 * the container, and its interrupts are MSI-X vectors' eventfds: nothing
 * but the device and the borrower's CPU is in the way of an I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "nvme.h"
#include "vfio.h"

struct vfio_nvme {
	int device;
	volatile uint32_t *bar0;
	uint8_t *mem;
	int efd[2];		/* NVME_VECTOR_ADMIN, NVME_VECTOR_IO */
	struct nvme_host host;
};

static uint32_t bar0_read32(void *priv, uint32_t off)
{
	struct vfio_nvme *vn = priv;

	return vn->bar0[off / 4];
}

static void bar0_write32(void *priv, uint32_t off, uint32_t val)
{
	struct vfio_nvme *vn = priv;

	vn->bar0[off / 4] = val;
}

static void mem_read(void *priv, uint64_t iova, void *buf, size_t len)
{
	struct vfio_nvme *vn = priv;

	memcpy(buf, vn->mem + (iova - vn->host.iova), len);
}

static void mem_write(void *priv, uint64_t iova, const void *buf, size_t len)
{
	struct vfio_nvme *vn = priv;

	memcpy(vn->mem + (iova - vn->host.iova), buf, len);
}

static int wait_irq(void *priv, unsigned int vector, int timeout_ms)
{
	struct vfio_nvme *vn = priv;

	return (int)vfio_eventfd_wait(vn->efd[vector], timeout_ms);
}

static const struct nvme_host_ops vfio_nvme_ops = {
	.read32 = bar0_read32,
	.write32 = bar0_write32,
	.mem_read = mem_read,
	.mem_write = mem_write,
	.wait_irq = wait_irq,
};

/*
 * Opens the mdev with the host's memory in its container at @iova, maps
 * BAR 0, gives MSI-X vectors 0 and 1 eventfds, turns Bus Master Enable on
 * and starts the NVMe host. Returns 0, or 1 after printing why.
 */
static int vfio_nvme_start(struct vfio_nvme *vn, const char *uuid,
			   uint64_t iova)
{
	int i;

	vfio_step = "memory for the device";
	vn->mem = mmap(NULL, NVME_HOST_MEM, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vn->mem == MAP_FAILED)
		return vfio_failed();
	vn->device = vfio_open(uuid, vn->mem, iova, NVME_HOST_MEM);
	if (vn->device < 0)
		return vfio_failed();
	vn->bar0 = vfio_bar0_mapped(vn->device);
	if (!vn->bar0)
		return vfio_failed();
	vfio_step = "eventfd";
	for (i = 0; i < 2; i++) {
		vn->efd[i] = eventfd(0, EFD_NONBLOCK);
		if (vn->efd[i] < 0)
			return vfio_failed();
	}
	vfio_step = "VFIO_DEVICE_SET_IRQS (eventfds for MSI-X vectors 0 and 1)";
	if (vfio_irqs_set(vn->device, VFIO_PCI_MSIX_IRQ_INDEX,
			  VFIO_IRQ_SET_DATA_EVENTFD, 2, vn->efd))
		return vfio_failed();
	if (vfio_bus_master(vn->device, 1))
		return vfio_failed();
	vn->host = (struct nvme_host){
		.ops = &vfio_nvme_ops, .priv = vn, .iova = iova,
	};
	if (nvme_host_start(&vn->host)) {
		nvme_host_perror(&vn->host, "smartio-vfio");
		return 1;
	}
	return 0;
}

/* Stops the host, turns Bus Master Enable off, frees the vectors, closes. */
static int vfio_nvme_stop(struct vfio_nvme *vn)
{
	if (nvme_host_stop(&vn->host)) {
		nvme_host_perror(&vn->host, "smartio-vfio");
		return 1;
	}
	if (vfio_bus_master(vn->device, 0))
		return vfio_failed();
	vfio_step = "VFIO_DEVICE_SET_IRQS (free the vectors)";
	if (vfio_irqs_set(vn->device, VFIO_PCI_MSIX_IRQ_INDEX,
			  VFIO_IRQ_SET_DATA_NONE, 0, NULL))
		return vfio_failed();
	close(vn->device);
	return 0;
}

int vfio_nvme_check(const char *uuid, const char *file, uint64_t iova)
{
	struct vfio_nvme vn;
	int ret;

	ret = vfio_nvme_start(&vn, uuid, iova);
	if (ret)
		return ret;
	ret = nvme_host_check_file(&vn.host, file);
	if (ret < 0) {
		nvme_host_perror(&vn.host, "smartio-vfio");
		return 1;
	}
	return vfio_nvme_stop(&vn) ?: ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Where random reads land: between 64 and 192 MiB, as the NVMe
 * benchmarks' fio (bench/lib/fio.sh).
 */
#define BENCH_OFFSET	(64ull << 20)
#define BENCH_SPAN	(128ull << 20)
#define BENCH_MAX_IOS	(1u << 20)

/*
 * Prints @line and waits for a line on stdin (or its end): a benchmark
 * counts the lender's work around the reads alone, not the open's.
 */
static void pause_at(const char *line)
{
	int c;

	printf("%s\n", line);
	fflush(stdout);
	do
		c = getchar();
	while (c != EOF && c != '\n');
}

int vfio_nvme_bench(const char *uuid, unsigned int seconds)
{
	uint64_t start, end, t, pages, rnd = 0x9e3779b97f4a7c15ull;
	uint8_t page[NVME_PAGE];
	struct vfio_nvme vn;
	uint64_t *latency;
	unsigned int ios;
	int ret;

	vfio_step = "memory for the latencies";
	latency = calloc(BENCH_MAX_IOS, sizeof(*latency));
	if (!latency)
		return vfio_failed();
	ret = vfio_nvme_start(&vn, uuid, VFIO_NVME_IOVA);
	if (ret)
		return ret;
	pages = BENCH_SPAN / NVME_PAGE;
	if (vn.host.lbas * vn.host.lba_size < BENCH_OFFSET + BENCH_SPAN) {
		vn.host.step = "the namespace: smaller than 192 MiB";
		errno = ENOSPC;
		nvme_host_perror(&vn.host, "smartio-vfio");
		return 1;
	}
	pause_at("nvme-bench: started");
	start = now_ns();
	end = start + (uint64_t)seconds * 1000000000u;
	for (ios = 0, t = start; ios < BENCH_MAX_IOS && t < end; ios++) {
		/* xorshift64: a page at random, the same sequence each run */
		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		if (nvme_host_read(&vn.host, BENCH_OFFSET + rnd % pages *
				   NVME_PAGE, page, NVME_PAGE)) {
			nvme_host_perror(&vn.host, "smartio-vfio");
			return 1;
		}
		latency[ios] = now_ns() - t;
		t += latency[ios];
	}
	qsort(latency, ios, sizeof(*latency), by_value);
	printf("nvme-bench: ios %u, seconds %.3f, median-ns %llu, p99-ns %llu\n",
	       ios, (t - start) / 1e9,
	       (unsigned long long)latency[ios / 2],
	       (unsigned long long)latency[ios - 1 - ios / 100]);
	printf("nvme: completions %llu, interrupts %llu\n",
	       (unsigned long long)vn.host.completions,
	       (unsigned long long)vn.host.interrupts);
	free(latency);
	pause_at("nvme-bench: done");
	return vfio_nvme_stop(&vn);
}
