// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal NVMe host for the test clients (nvme.h): enough of NVMe 1.4
 * (registers, admin commands Identify and Create I/O Queue, Read and
 * Write) to move data through a controller with no kernel driver, counting
 * completions and the interrupts that announced them. Every register,
 * memory and interrupt access goes through the client's nvme_host_ops.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvme.h"

/* Controller registers (NVMe 1.4, 3.1). */
#define NVME_REG_CAP		0x00	/* 64-bit */
#define NVME_REG_CC		0x14
#define NVME_REG_CSTS		0x1c
#define NVME_REG_AQA		0x24
#define NVME_REG_ASQ		0x28	/* 64-bit */
#define NVME_REG_ACQ		0x30	/* 64-bit */
#define NVME_REG_DOORBELLS	0x1000

#define NVME_CC_ENABLE		(1u << 0)
#define NVME_CC_IOSQES		(6u << 16)	/* 64-byte entries */
#define NVME_CC_IOCQES		(4u << 20)	/* 16-byte entries */
#define NVME_CSTS_READY		(1u << 0)
#define NVME_CSTS_FATAL		(1u << 1)

/* Commands (NVMe 1.4, 5 and 6). */
#define NVME_ADMIN_CREATE_SQ	0x01
#define NVME_ADMIN_CREATE_CQ	0x05
#define NVME_ADMIN_IDENTIFY	0x06
#define NVME_CMD_WRITE		0x01
#define NVME_CMD_READ		0x02

#define NVME_IDENTIFY_NAMESPACE		0
#define NVME_IDENTIFY_CONTROLLER	1
#define NVME_IO_QUEUE		1

#define NVME_QUEUE_CONTIGUOUS	(1u << 0)
#define NVME_CQ_IRQ_ENABLED	(1u << 1)

/* How long a command or a state change may take (CAP.TO is longer). */
#define NVME_TIMEOUT_MS		30000

struct nvme_sqe {
	uint32_t cdw0;		/* opcode, command id << 16 */
	uint32_t nsid;
	uint64_t reserved;
	uint64_t mptr;
	uint64_t prp1;
	uint64_t prp2;
	uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};

struct nvme_cqe {
	uint32_t result;
	uint32_t reserved;
	uint16_t sq_head;
	uint16_t sq_id;
	uint16_t cid;
	uint16_t status;	/* phase in bit 0 */
};

_Static_assert(sizeof(struct nvme_sqe) == 64, "an NVMe submission entry");
_Static_assert(sizeof(struct nvme_cqe) == 16, "an NVMe completion entry");

static uint32_t reg_read(struct nvme_host *host, uint32_t off)
{
	return host->ops->read32(host->priv, off);
}

static void reg_write(struct nvme_host *host, uint32_t off, uint32_t val)
{
	host->ops->write32(host->priv, off, val);
}

/* A 64-bit register, as two 32-bit accesses, low half first. */
static void reg_write64(struct nvme_host *host, uint32_t off, uint64_t val)
{
	reg_write(host, off, (uint32_t)val);
	reg_write(host, off + 4, (uint32_t)(val >> 32));
}

static int failed(struct nvme_host *host, const char *step, int err)
{
	host->step = step;
	errno = err;
	return -1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Waits for CSTS.RDY to read @ready, for NVME_TIMEOUT_MS by the clock: a
 * register read may take a while itself (a qtest round trip).
 */
static int wait_ready(struct nvme_host *host, uint32_t ready, const char *step)
{
	int64_t end = now_ms() + NVME_TIMEOUT_MS;
	uint32_t csts;

	while (now_ms() < end) {
		csts = reg_read(host, NVME_REG_CSTS);
		if (csts == 0xffffffff)	/* the device is gone */
			return failed(host, step, ENODEV);
		if (csts & NVME_CSTS_FATAL)
			return failed(host, step, EIO);
		if ((csts & NVME_CSTS_READY) == ready)
			return 0;
		usleep(1000);
	}
	return failed(host, step, ETIMEDOUT);
}

static uint32_t doorbell(struct nvme_host *host, unsigned int qid, int cq)
{
	return NVME_REG_DOORBELLS + (2 * qid + cq) * host->doorbell_stride;
}

struct nvme_queue_pair {
	unsigned int qid;
	uint32_t sq, cq;	/* offsets in the host's memory */
	uint16_t *sq_tail, *cq_head;
	uint8_t *cq_phase;
	unsigned int vector;
};

static struct nvme_queue_pair admin_queues(struct nvme_host *host)
{
	return (struct nvme_queue_pair){
		.qid = 0, .sq = NVME_MEM_ASQ, .cq = NVME_MEM_ACQ,
		.sq_tail = &host->asq_tail, .cq_head = &host->acq_head,
		.cq_phase = &host->acq_phase, .vector = NVME_VECTOR_ADMIN,
	};
}

static struct nvme_queue_pair io_queues(struct nvme_host *host)
{
	return (struct nvme_queue_pair){
		.qid = NVME_IO_QUEUE, .sq = NVME_MEM_IOSQ, .cq = NVME_MEM_IOCQ,
		.sq_tail = &host->iosq_tail, .cq_head = &host->iocq_head,
		.cq_phase = &host->iocq_phase, .vector = NVME_VECTOR_IO,
	};
}

/*
 * Submits @cmd on @q and waits for its completion: the interrupt first
 * (every completion must raise one), then the entry. One command at a
 * time, so the entry at the head is this command's.
 */
static int submit(struct nvme_host *host, struct nvme_queue_pair q,
		  struct nvme_sqe *cmd, const char *step)
{
	const struct nvme_host_ops *ops = host->ops;
	uint64_t at = host->iova + q.cq + *q.cq_head * sizeof(struct nvme_cqe);
	struct nvme_cqe cqe;
	uint16_t cid = ++host->cid;
	int fired;

	cmd->cdw0 |= (uint32_t)cid << 16;
	ops->mem_write(host->priv, host->iova + q.sq +
		       *q.sq_tail * sizeof(*cmd), cmd, sizeof(*cmd));
	*q.sq_tail = (*q.sq_tail + 1) % NVME_QUEUE_ENTRIES;
	reg_write(host, doorbell(host, q.qid, 0), *q.sq_tail);

	for (;;) {
		fired = ops->wait_irq(host->priv, q.vector, NVME_TIMEOUT_MS);
		if (fired < 0)
			return failed(host, step, errno);
		if (!fired)
			return failed(host, step, ETIMEDOUT);
		host->interrupts += fired;
		ops->mem_read(host->priv, at, &cqe, sizeof(cqe));
		if ((cqe.status & 1) == *q.cq_phase)
			break;
	}
	host->completions++;
	*q.cq_head = (*q.cq_head + 1) % NVME_QUEUE_ENTRIES;
	if (!*q.cq_head)
		*q.cq_phase ^= 1;
	reg_write(host, doorbell(host, q.qid, 1), *q.cq_head);
	if (cqe.cid != cid)
		return failed(host, step, EPROTO);
	host->status = cqe.status >> 1;
	if (host->status)
		return failed(host, step, EIO);
	return 0;
}

static int identify(struct nvme_host *host, uint32_t cns, uint32_t nsid,
		    void *buf, const char *step)
{
	struct nvme_sqe cmd = {
		.cdw0 = NVME_ADMIN_IDENTIFY,
		.nsid = nsid,
		.prp1 = host->iova + NVME_MEM_IDENTIFY,
		.cdw10 = cns,
	};

	if (submit(host, admin_queues(host), &cmd, step))
		return -1;
	host->ops->mem_read(host->priv, host->iova + NVME_MEM_IDENTIFY, buf,
			    NVME_PAGE);
	return 0;
}

/* The model (Identify Controller, bytes 24-63), its trailing blanks cut. */
static void controller_model(struct nvme_host *host, const uint8_t *id)
{
	int n = sizeof(host->model) - 1;

	memcpy(host->model, id + 24, n);
	while (n && (host->model[n - 1] == ' ' || !host->model[n - 1]))
		n--;
	host->model[n] = '\0';
}

/* Namespace 1's size and formatted LBA size (Identify Namespace). */
static int namespace_format(struct nvme_host *host, const uint8_t *id)
{
	unsigned int format = id[26] & 0xf;
	uint32_t lbaf;

	memcpy(&host->lbas, id, sizeof(host->lbas));
	memcpy(&lbaf, id + 128 + 4 * format, sizeof(lbaf));
	host->lba_size = 1u << ((lbaf >> 16) & 0xff);
	if (!host->lbas || host->lba_size < 512 || host->lba_size > NVME_PAGE)
		return failed(host, "namespace 1's format", EINVAL);
	return 0;
}

static int create_io_queues(struct nvme_host *host)
{
	uint32_t size = (NVME_QUEUE_ENTRIES - 1) << 16 | NVME_IO_QUEUE;
	struct nvme_sqe cq = {
		.cdw0 = NVME_ADMIN_CREATE_CQ,
		.prp1 = host->iova + NVME_MEM_IOCQ,
		.cdw10 = size,
		.cdw11 = NVME_VECTOR_IO << 16 | NVME_CQ_IRQ_ENABLED |
			 NVME_QUEUE_CONTIGUOUS,
	};
	struct nvme_sqe sq = {
		.cdw0 = NVME_ADMIN_CREATE_SQ,
		.prp1 = host->iova + NVME_MEM_IOSQ,
		.cdw10 = size,
		.cdw11 = NVME_IO_QUEUE << 16 | NVME_QUEUE_CONTIGUOUS,
	};

	if (submit(host, admin_queues(host), &cq, "creating the I/O completion queue"))
		return -1;
	return submit(host, admin_queues(host), &sq,
		      "creating the I/O submission queue");
}

int nvme_host_start(struct nvme_host *host)
{
	static const uint8_t zero[NVME_HOST_MEM];
	uint8_t id[NVME_PAGE];
	uint32_t cap_high;

	/* Empty queues: a stale phase bit would read as a completion. */
	host->ops->mem_write(host->priv, host->iova, zero, sizeof(zero));
	host->asq_tail = host->acq_head = 0;
	host->iosq_tail = host->iocq_head = 0;
	host->acq_phase = host->iocq_phase = 1;
	host->completions = host->interrupts = 0;

	cap_high = reg_read(host, NVME_REG_CAP + 4);
	host->doorbell_stride = 4u << (cap_high & 0xf);
	if (nvme_host_stop(host))
		return -1;
	reg_write(host, NVME_REG_AQA, (NVME_QUEUE_ENTRIES - 1) << 16 |
				      (NVME_QUEUE_ENTRIES - 1));
	reg_write64(host, NVME_REG_ASQ, host->iova + NVME_MEM_ASQ);
	reg_write64(host, NVME_REG_ACQ, host->iova + NVME_MEM_ACQ);
	reg_write(host, NVME_REG_CC, NVME_CC_IOCQES | NVME_CC_IOSQES |
				     NVME_CC_ENABLE);
	if (wait_ready(host, NVME_CSTS_READY, "enabling the controller"))
		return -1;

	if (identify(host, NVME_IDENTIFY_CONTROLLER, 0, id,
		     "identifying the controller"))
		return -1;
	controller_model(host, id);
	if (identify(host, NVME_IDENTIFY_NAMESPACE, 1, id,
		     "identifying namespace 1"))
		return -1;
	if (namespace_format(host, id))
		return -1;
	return create_io_queues(host);
}

int nvme_host_stop(struct nvme_host *host)
{
	reg_write(host, NVME_REG_CC, 0);
	return wait_ready(host, 0, "disabling the controller");
}

/* One read or write of @bytes at byte @offset, through the data buffer. */
static int io(struct nvme_host *host, uint32_t opcode, uint64_t offset,
	      size_t bytes, const char *step)
{
	struct nvme_sqe cmd = {
		.cdw0 = opcode,
		.nsid = 1,
		.prp1 = host->iova + NVME_MEM_DATA,
	};
	uint64_t lba = offset / host->lba_size;

	if (!bytes || bytes > NVME_PAGE || bytes % host->lba_size ||
	    offset % host->lba_size || lba + bytes / host->lba_size > host->lbas)
		return failed(host, step, EINVAL);
	cmd.cdw10 = (uint32_t)lba;
	cmd.cdw11 = (uint32_t)(lba >> 32);
	cmd.cdw12 = bytes / host->lba_size - 1;
	return submit(host, io_queues(host), &cmd, step);
}

int nvme_host_write(struct nvme_host *host, uint64_t offset, const void *buf,
		    size_t bytes)
{
	if (bytes <= NVME_PAGE)
		host->ops->mem_write(host->priv, host->iova + NVME_MEM_DATA,
				     buf, bytes);
	return io(host, NVME_CMD_WRITE, offset, bytes, "writing");
}

int nvme_host_read(struct nvme_host *host, uint64_t offset, void *buf,
		   size_t bytes)
{
	if (io(host, NVME_CMD_READ, offset, bytes, "reading"))
		return -1;
	host->ops->mem_read(host->priv, host->iova + NVME_MEM_DATA, buf, bytes);
	return 0;
}

/* @file's contents, a multiple of NVME_PAGE bytes, into a new buffer. */
static uint8_t *file_pages(struct nvme_host *host, const char *file,
			   size_t *size)
{
	uint8_t *data = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	host->step = file;
	fd = open(file, O_RDONLY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		goto out;
	if (!st.st_size || st.st_size % NVME_PAGE) {
		host->step = "the file's size is not a multiple of 4096";
		errno = EINVAL;
		goto out;
	}
	data = malloc(st.st_size);
	if (!data)
		goto out;
	n = read(fd, data, st.st_size);
	if (n != st.st_size) {
		if (n >= 0)
			errno = EIO;
		free(data);
		data = NULL;
		goto out;
	}
	*size = st.st_size;
out:
	close(fd);
	return data;
}

int nvme_host_check_file(struct nvme_host *host, const char *file)
{
	uint8_t page[NVME_PAGE];
	size_t size = 0, off;
	int differ = 0;
	uint8_t *data;

	data = file_pages(host, file, &size);
	if (!data)
		return -1;
	printf("nvme: model %s, lba size %u, lbas %llu\n", host->model,
	       host->lba_size, (unsigned long long)host->lbas);
	/* Now, not at exit: a test waits for this line to know I/O began. */
	fflush(stdout);
	for (off = 0; off < size; off += NVME_PAGE)
		if (nvme_host_write(host, off, data + off, NVME_PAGE))
			goto error;
	for (off = 0; off < size; off += NVME_PAGE) {
		if (nvme_host_read(host, off, page, NVME_PAGE))
			goto error;
		differ |= memcmp(page, data + off, NVME_PAGE) != 0;
	}
	free(data);
	printf("nvme: wrote %zu bytes, %s\n", size, differ ?
	       "read back other data" : "read them back the same");
	printf("nvme: completions %llu, interrupts %llu\n",
	       (unsigned long long)host->completions,
	       (unsigned long long)host->interrupts);
	return differ;
error:
	free(data);
	return -1;
}

void nvme_host_perror(const struct nvme_host *host, const char *prog)
{
	if (errno == EIO && host->status)
		fprintf(stderr, "%s: %s: status %#x\n", prog, host->step,
			host->status);
	else
		fprintf(stderr, "%s: %s: %s\n", prog, host->step,
			strerror(errno));
}
