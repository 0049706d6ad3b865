// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-qtest: an NVMe driven through QEMU's own device code with no
 * guest kernel, for tests and by hand. QEMU runs with "-accel qtest"
 * (qtest.c speaks its protocol) and this program plays the guest: it sets
 * the device up through the config ports as firmware would, and runs
 * nvme.c's NVMe host with its registers, memory and interrupts reached
 * through qtest commands. With the device a mediated device of
 * smartio_mdev, that is QEMU's vfio-pci at work, as under a VM, without
 * a VM's weight:
 *
 *	smartio-qtest nvme FILE QEMU-DEVICE-OPTION...
 *
 *	smartio-qtest nvme /tmp/data \
 *		-device vfio-pci,sysfsdev=/sys/bus/mdev/devices/UUID
 *	smartio-qtest nvme /tmp/data \
 *		-drive if=none,id=d,file=/tmp/disk.img,format=raw \
 *		-device nvme,drive=d,serial=x	(QEMU's emulated NVMe)
 *
 * QEMU is $SMARTIO_QEMU, or qemu-system-x86_64 in PATH. It runs a q35 of
 * QEMU_RAM with no default devices and the options given; they must add
 * exactly one NVMe (class 0x010802) on bus 0. This program places the
 * function's memory BARs in the PCI hole, turns on memory space and Bus
 * Master Enable, enables MSI-X vectors NVME_VECTOR_ADMIN and
 * NVME_VECTOR_IO, and prints nvme_host_check_file()'s three lines (nvme.h)
 * for FILE:
 *
 *	nvme: model MODEL, lba size N, lbas N
 *	nvme: wrote N bytes, read them back the same   (or "... other data")
 *	nvme: completions N, interrupts N
 *
 * then disables the controller and ends QEMU (SIGTERM), which must quit
 * because of that. Exit status 0; 1 if the data read back differ, or on
 * an error, which is one line "smartio-qtest: STEP: ERROR" on stderr
 * (ERROR says how QEMU ended if it died); 2 for a bad command line.
 * QEMU's stdout and stderr are our stderr: its own errors (say, vfio-pci
 * failing to open the device) show there.
 *
 * Under qtest QEMU executes no firmware, but q35 still loads it: it needs
 * bios-256k.bin (any file of a multiple of 64 KiB will do) and warns
 * without kvmvapic.bin, in its firmware path or a directory given with
 * "-L DIR" among the options.
 *
 * The NVMe host's memory is guest RAM at NVME_GPA: under vfio-pci QEMU
 * maps all guest RAM into the container at its guest-physical address,
 * so the IOVA the device is given is that address, as for an emulated
 * device. Interrupts: each vector's MSI-X message address is a word of a
 * mailbox page in guest RAM. An MSI is a write of the message data to its
 * address; with no guest, QEMU makes that write into RAM (msix_notify():
 * hw/nvme's, and vfio-pci's MSI eventfd handler's, vfio_msi_interrupt()),
 * as libqos's virtio-pci does with its msix_addr. wait_irq() polls the
 * word and clears it (qtest_readl_clear(): no MSI can fall in between).
 * Its limit: MSIs of one vector that land between two polls count as
 * one, as an eventfd signalled twice before QEMU reads it makes one
 * notify. nvme.c has one command at a time and waits for each one's
 * interrupt before the next, so each poll sees at most one.
 *
 * No clock_step is needed: hw/nvme (7.2) handles a doorbell and posts
 * completions in bottom halves (qemu_bh_schedule()), the block layer
 * completes I/O through its thread pool's bottom half, and vfio-pci's MSI
 * eventfd is an fd handler. All run in QEMU's main loop between our
 * commands; none waits for the virtual clock, which stands still under
 * qtest.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/pci_regs.h>

#include "nvme.h"
#include "qtest.h"

/*
 * Guest RAM: enough for the mailbox and the NVMe host's memory, and no
 * more, since smartio_mdev pins and maps all of it for the device.
 */
#define QEMU_RAM		"32M"

/* Guest-physical addresses in it, clear of the legacy area below 1 MiB. */
#define MAILBOX_GPA		0x100000ull
#define NVME_GPA		0x200000ull

/* The MSI-X vectors nvme.c uses, their mailbox words and their data. */
#define MSIX_VECTORS		2
#define MSIX_MAILBOX(vector)	(MAILBOX_GPA + 4 * (vector))
#define MSIX_DATA(vector)	(0x51540000u | (vector))	/* "QT" */

/*
 * Where BARs go: q35's 32-bit PCI hole, above its MMCONFIG window
 * (0xb0000000, 256 MiB) and below the IO-APIC, where libqos puts them.
 */
#define PCI_MMIO_START		0xe0000000ull
#define PCI_MMIO_END		0xfec00000ull

/* The config ports (configuration mechanism #1) and the NVMe's class. */
#define PCI_CONFIG_ADDRESS	0xcf8
#define PCI_CONFIG_DATA		0xcfc
#define PCI_CLASS_NVME		0x010802	/* storage, NVM, NVMe */

/* wait_irq()'s polls: quick at first, then gentler on a loaded host. */
#define POLL_FIRST_US		20
#define POLL_MAX_US		1000

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

struct qtest_nvme {
	struct qtest qt;
	uint8_t devfn;		/* the NVMe's, on bus 0 */
	uint64_t bar[PCI_STD_NUM_BARS];	/* memory BARs' addresses; 0: none */
	struct nvme_host host;
	/*
	 * The first qtest error in an nvme_host_ops call, which cannot
	 * return one: nvme.c fails then (a register reads all ones,
	 * wait_irq() fails), and this is why.
	 */
	const char *error_step;
	int error;
};

static const char *step;

/* Prints "smartio-qtest: STEP: ERROR", ends QEMU, returns 1. */
static int failed(struct qtest_nvme *qn)
{
	fprintf(stderr, "smartio-qtest: %s: %s\n", step,
		qtest_strerror(&qn->qt, errno));
	qtest_quit(&qn->qt);
	return 1;
}

/* The same for nvme.c's errors, or the qtest error behind one. */
static int nvme_failed(struct qtest_nvme *qn)
{
	if (qn->error_step) {
		step = qn->error_step;
		errno = qn->error;
		return failed(qn);
	}
	nvme_host_perror(&qn->host, "smartio-qtest");
	qtest_quit(&qn->qt);
	return 1;
}

static int bad_usage(void)
{
	fprintf(stderr, "usage: smartio-qtest nvme FILE QEMU-DEVICE-OPTION...\n");
	return 2;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A dword of function @devfn's config space, bus 0, through the ports. */
static int config_read(struct qtest *qt, uint8_t devfn, unsigned int reg,
		       uint32_t *val)
{
	return qtest_outl(qt, PCI_CONFIG_ADDRESS,
			  0x80000000u | devfn << 8 | (reg & 0xfc)) ?:
	       qtest_inl(qt, PCI_CONFIG_DATA, val);
}

static int config_write(struct qtest *qt, uint8_t devfn, unsigned int reg,
			uint32_t val)
{
	return qtest_outl(qt, PCI_CONFIG_ADDRESS,
			  0x80000000u | devfn << 8 | (reg & 0xfc)) ?:
	       qtest_outl(qt, PCI_CONFIG_DATA, val);
}

/* The one NVMe on bus 0, every function of every device looked at. */
static int find_nvme(struct qtest_nvme *qn)
{
	unsigned int dev, fn, found = 0;
	uint32_t id, class, header;
	uint8_t devfn;

	step = "looking for the NVMe controller on bus 0";
	for (dev = 0; dev < 32; dev++) {
		for (fn = 0; fn < 8; fn++) {
			devfn = dev << 3 | fn;
			if (config_read(&qn->qt, devfn, PCI_VENDOR_ID, &id))
				return -1;
			if ((id & 0xffff) == 0xffff) {
				if (!fn)
					break;	/* no device */
				continue;
			}
			if (config_read(&qn->qt, devfn, PCI_CLASS_REVISION,
					&class))
				return -1;
			if (class >> 8 == PCI_CLASS_NVME) {
				qn->devfn = devfn;
				found++;
			}
			if (fn)
				continue;
			if (config_read(&qn->qt, devfn, PCI_CACHE_LINE_SIZE,
					&header))
				return -1;
			/* Functions 1 to 7 only with the multi-function bit. */
			if (!(header >> 16 & 0x80))
				break;
		}
	}
	if (found > 1) {
		step = "a second NVMe controller on bus 0";
		errno = EEXIST;
		return -1;
	}
	if (!found) {
		errno = ENODEV;
		return -1;
	}
	return 0;
}

/*
 * Sizes the function's memory BARs and places them one after another,
 * each aligned to its size, in the PCI hole; I/O BARs stay off (I/O
 * space is not enabled). BAR 0 must be one: the NVMe's registers.
 */
static int place_bars(struct qtest_nvme *qn)
{
	uint64_t next = PCI_MMIO_START, mask, size;
	uint32_t orig, lo, hi;
	unsigned int reg;
	bool is64;
	int i;

	step = "placing the BARs";
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		reg = PCI_BASE_ADDRESS_0 + 4 * i;
		if (config_read(&qn->qt, qn->devfn, reg, &orig))
			return -1;
		if (orig & PCI_BASE_ADDRESS_SPACE_IO)
			continue;
		is64 = (orig & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
		       PCI_BASE_ADDRESS_MEM_TYPE_64;
		if (is64 && i == PCI_STD_NUM_BARS - 1) {
			errno = EINVAL;	/* a 64-bit BAR needs two */
			return -1;
		}
		/* Memory space is off: sizing moves nothing. */
		hi = 0;
		if (config_write(&qn->qt, qn->devfn, reg, ~0u) ||
		    config_read(&qn->qt, qn->devfn, reg, &lo) ||
		    (is64 && (config_write(&qn->qt, qn->devfn, reg + 4, ~0u) ||
			      config_read(&qn->qt, qn->devfn, reg + 4, &hi))))
			return -1;
		lo &= PCI_BASE_ADDRESS_MEM_MASK;
		if (!lo && !hi) {	/* no BAR: it sizes as 0 (PCI 3.0, 6.2.5.1) */
			i += is64;
			continue;
		}
		mask = (is64 ? (uint64_t)hi << 32 : ~0ull << 32) | lo;
		size = ~mask + 1;
		next = (next + size - 1) & ~(size - 1);
		if (size > PCI_MMIO_END - PCI_MMIO_START ||
		    next > PCI_MMIO_END - size) {
			errno = ENOSPC;
			return -1;
		}
		if (config_write(&qn->qt, qn->devfn, reg, (uint32_t)next) ||
		    (is64 && config_write(&qn->qt, qn->devfn, reg + 4,
					  (uint32_t)(next >> 32))))
			return -1;
		qn->bar[i] = next;
		next += size;
		i += is64;
	}
	if (!qn->bar[0]) {
		step = "BAR 0 (the NVMe's registers)";
		errno = ENXIO;
		return -1;
	}
	return 0;
}

/* Memory space on, and Bus Master Enable: the NVMe's DMA and its MSIs. */
static int enable_function(struct qtest_nvme *qn)
{
	uint32_t cmd;

	step = "enabling memory space and Bus Master";
	if (config_read(&qn->qt, qn->devfn, PCI_COMMAND, &cmd))
		return -1;
	/*
	 * The dword's upper half is the status register, whose error bits
	 * a 1 clears: write 0s there.
	 */
	cmd = (cmd & 0xffff) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	return config_write(&qn->qt, qn->devfn, PCI_COMMAND, cmd);
}

/* The config space offset of capability @id, or -1 with errno ENOENT. */
static int find_capability(struct qtest_nvme *qn, uint8_t id)
{
	uint32_t val;
	unsigned int pos;
	int n;

	if (config_read(&qn->qt, qn->devfn, PCI_COMMAND, &val))
		return -1;
	if (!(val >> 16 & PCI_STATUS_CAP_LIST))
		goto none;
	if (config_read(&qn->qt, qn->devfn, PCI_CAPABILITY_LIST, &val))
		return -1;
	pos = val & 0xfc;
	/* At most 48 capabilities fit: a loop in the list ends too. */
	for (n = 0; pos && n < 48; n++) {
		if (config_read(&qn->qt, qn->devfn, pos, &val))
			return -1;
		if ((val & 0xff) == id)
			return pos;
		pos = val >> 8 & 0xfc;
	}
none:
	errno = ENOENT;
	return -1;
}

/*
 * Enables MSI-X with vectors 0 and 1 aimed at their mailbox words, in
 * the order Linux uses: enabled with every vector masked by the function
 * mask, the table entries written, then the function mask cleared (under
 * vfio-pci that is when the vectors get their eventfds).
 */
static int enable_msix(struct qtest_nvme *qn)
{
	uint32_t head, table, ctrl;
	uint64_t table_addr, entry;
	unsigned int vector, bir;
	int cap;

	step = "looking for the MSI-X capability";
	cap = find_capability(qn, PCI_CAP_ID_MSIX);
	if (cap < 0)
		return -1;
	if (config_read(&qn->qt, qn->devfn, cap, &head) ||
	    config_read(&qn->qt, qn->devfn, cap + PCI_MSIX_TABLE, &table))
		return -1;
	ctrl = head >> 16;
	if ((ctrl & PCI_MSIX_FLAGS_QSIZE) + 1 < MSIX_VECTORS) {
		step = "MSI-X vectors (two needed)";
		errno = ERANGE;
		return -1;
	}
	bir = table & PCI_MSIX_TABLE_BIR;
	if (bir >= PCI_STD_NUM_BARS || !qn->bar[bir]) {
		step = "the MSI-X table's BAR";
		errno = ENXIO;
		return -1;
	}
	table_addr = qn->bar[bir] + (table & PCI_MSIX_TABLE_OFFSET);

	step = "enabling MSI-X";
	/* The dword's lower half is the capability's id and next: RO. */
	head = (head & 0xffff) |
	       (ctrl | PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL) << 16;
	if (config_write(&qn->qt, qn->devfn, cap, head))
		return -1;
	for (vector = 0; vector < MSIX_VECTORS; vector++) {
		entry = table_addr + vector * PCI_MSIX_ENTRY_SIZE;
		if (qtest_writel(&qn->qt, MSIX_MAILBOX(vector), 0) ||
		    qtest_writel(&qn->qt, entry + PCI_MSIX_ENTRY_LOWER_ADDR,
				 (uint32_t)MSIX_MAILBOX(vector)) ||
		    qtest_writel(&qn->qt, entry + PCI_MSIX_ENTRY_UPPER_ADDR,
				 (uint32_t)(MSIX_MAILBOX(vector) >> 32)) ||
		    qtest_writel(&qn->qt, entry + PCI_MSIX_ENTRY_DATA,
				 MSIX_DATA(vector)) ||
		    qtest_writel(&qn->qt, entry + PCI_MSIX_ENTRY_VECTOR_CTRL,
				 0))
			return -1;
	}
	head &= ~((uint32_t)PCI_MSIX_FLAGS_MASKALL << 16);
	return config_write(&qn->qt, qn->devfn, cap, head);
}

/* Keeps the first qtest error of an nvme_host_ops call, with errno. */
static void ops_failed(struct qtest_nvme *qn, const char *what)
{
	if (!qn->error_step) {
		qn->error_step = what;
		qn->error = errno;
	}
}

/*
 * The ops: after an error each does nothing more (QEMU may be gone), and
 * reads give all ones, as from a device that is gone, or zeroes.
 */
static uint32_t bar0_read32(void *priv, uint32_t off)
{
	struct qtest_nvme *qn = priv;
	uint32_t val;

	if (qn->error_step)
		return ~0u;
	if (qtest_readl(&qn->qt, qn->bar[0] + off, &val)) {
		ops_failed(qn, "reading an NVMe register");
		return ~0u;
	}
	return val;
}

static void bar0_write32(void *priv, uint32_t off, uint32_t val)
{
	struct qtest_nvme *qn = priv;

	if (!qn->error_step && qtest_writel(&qn->qt, qn->bar[0] + off, val))
		ops_failed(qn, "writing an NVMe register");
}

static void mem_read(void *priv, uint64_t iova, void *buf, size_t len)
{
	struct qtest_nvme *qn = priv;

	if (qn->error_step || qtest_memread(&qn->qt, iova, buf, len)) {
		ops_failed(qn, "reading guest RAM");
		memset(buf, 0, len);
	}
}

static void mem_write(void *priv, uint64_t iova, const void *buf, size_t len)
{
	struct qtest_nvme *qn = priv;

	if (!qn->error_step && qtest_memwrite(&qn->qt, iova, buf, len))
		ops_failed(qn, "writing guest RAM");
}

/*
 * Polls @vector's mailbox word until its MSI has landed there (1) or
 * @timeout_ms has passed (0); each poll clears what it finds.
 */
static int wait_irq(void *priv, unsigned int vector, int timeout_ms)
{
	struct qtest_nvme *qn = priv;
	int64_t deadline = now_ms() + timeout_ms;
	useconds_t pause = POLL_FIRST_US;
	uint32_t data;

	if (vector >= MSIX_VECTORS) {
		errno = EINVAL;
		return -1;
	}
	if (qn->error_step) {
		errno = qn->error;
		return -1;
	}
	for (;;) {
		if (qtest_readl_clear(&qn->qt, MSIX_MAILBOX(vector), &data)) {
			ops_failed(qn, "polling an MSI-X mailbox");
			return -1;
		}
		if (data == MSIX_DATA(vector))
			return 1;
		if (data) {
			errno = EPROTO;	/* not the message we set */
			ops_failed(qn, "an MSI-X mailbox");
			return -1;
		}
		if (now_ms() >= deadline)
			return 0;
		usleep(pause);
		pause = pause * 2 < POLL_MAX_US ? pause * 2 : POLL_MAX_US;
	}
}

static const struct nvme_host_ops qtest_nvme_ops = {
	.read32 = bar0_read32,
	.write32 = bar0_write32,
	.mem_read = mem_read,
	.mem_write = mem_write,
	.wait_irq = wait_irq,
};

/* QEMU's arguments: the machine, then @options (NULL-terminated). */
static const char **machine_args(char **options)
{
	static const char *const machine[] = {
		"-machine", "q35", "-m", QEMU_RAM,
		/* Only the devices the options add: no NIC, VGA, ... */
		"-nodefaults",
		/* Nothing of the host's /etc/qemu: the same QEMU anywhere. */
		"-no-user-config",
		"-display", "none", "-serial", "none", "-monitor", "none",
	};
	size_t nmachine = ARRAY_SIZE(machine), n = 0, i;
	const char **args;

	while (options[n])
		n++;
	args = calloc(nmachine + n + 1, sizeof(*args));
	if (!args)
		return NULL;
	for (i = 0; i < nmachine; i++)
		args[i] = machine[i];
	for (i = 0; i < n; i++)
		args[nmachine + i] = options[i];
	return args;
}

static int nvme_check(const char *qemu, const char *file, char **options)
{
	static char starting[256];
	struct qtest_nvme qn = { .qt = { .fd = -1, .exited = true } };
	const char **args;
	int ret;

	step = "QEMU's arguments";
	args = machine_args(options);
	if (!args)
		return failed(&qn);
	snprintf(starting, sizeof(starting), "starting %s", qemu);
	step = starting;
	ret = qtest_start(&qn.qt, qemu, args);
	free(args);
	if (ret)
		return failed(&qn);

	if (find_nvme(&qn) || place_bars(&qn) || enable_function(&qn) ||
	    enable_msix(&qn))
		return failed(&qn);

	qn.host = (struct nvme_host){
		.ops = &qtest_nvme_ops, .priv = &qn, .iova = NVME_GPA,
	};
	if (nvme_host_start(&qn.host))
		return nvme_failed(&qn);
	ret = nvme_host_check_file(&qn.host, file);
	if (ret < 0 || nvme_host_stop(&qn.host))
		return nvme_failed(&qn);

	step = "ending QEMU";
	if (qtest_quit(&qn.qt))
		return failed(&qn);
	return ret;
}

int main(int argc, char **argv)
{
	const char *qemu = getenv("SMARTIO_QEMU");

	if (argc < 4 || strcmp(argv[1], "nvme"))
		return bad_usage();
	if (!qemu || !*qemu)
		qemu = "qemu-system-x86_64";
	return nvme_check(qemu, argv[2], argv + 3);
}
