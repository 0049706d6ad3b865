/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's qtest protocol (QEMU's softmmu/qtest.c, the server; its
 * tests/qtest/libqtest.c, the client this follows), for test programs that
 * drive a QEMU device model, vfio-pci among them, with no guest kernel:
 * QEMU runs with "-accel qtest", executes no guest code, and does what
 * this side asks, one text line per command, one reply line per command:
 * port and memory accesses as the guest's CPU would make them, and steps
 * of the virtual clock (which stands still under qtest otherwise).
 *
 * Every call waits for its reply. A call returns 0, or -1 with errno set:
 * ECHILD when QEMU is gone (reaped; qtest_strerror() says how it ended),
 * ETIMEDOUT when it did not answer in time, EPROTO for a reply that is
 * not the command's.
 */
#ifndef _SMARTIO_TEST_QTEST_H
#define _SMARTIO_TEST_QTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct qtest {
	pid_t pid;		/* QEMU */
	int fd;			/* our end of the qtest socket */
	bool exited;		/* QEMU is reaped: wstatus says how it ended */
	int wstatus;
	char why[80];		/* qtest_strerror()'s text for that */
	/* What QEMU sent that has not been taken as a reply yet. */
	char *in;
	size_t in_len, in_size;
	size_t in_taken;	/* of it, the last line returned */
};

/*
 * Starts QEMU, @qemu (looked up in PATH unless it has a slash), with
 * @args (NULL-terminated: the machine and its devices) after the options
 * that make it a qtest server on a socket to us, and waits until it
 * answers. QEMU's stdout and stderr are our stderr; it is killed if we
 * die. Returns 0, or -1 with errno set (exec's error if it did not start,
 * ECHILD if it died), and QEMU gone. Either way qtest_quit() may follow.
 */
int qtest_start(struct qtest *qt, const char *qemu, const char *const *args);

/*
 * Ends QEMU (SIGTERM, which QEMU takes as a request to quit) and reaps
 * it. Returns 0 if it quit because of that, or -1 with errno ECHILD (how
 * it ended in qtest_strerror()).
 */
int qtest_quit(struct qtest *qt);

/* @err's text; for ECHILD once QEMU is reaped, how it ended. */
const char *qtest_strerror(const struct qtest *qt, int err);

/* I/O ports, as the CPU's in and out instructions. */
int qtest_inl(struct qtest *qt, uint16_t port, uint32_t *val);
int qtest_outl(struct qtest *qt, uint16_t port, uint32_t val);

/* A 32-bit access of the CPU's physical address space: RAM, MMIO. */
int qtest_readl(struct qtest *qt, uint64_t addr, uint32_t *val);
int qtest_writel(struct qtest *qt, uint64_t addr, uint32_t val);

/*
 * Reads a 32-bit word and writes 0 there, with nothing of QEMU's in
 * between (see qtest.c): a mailbox that a device's MSI writes fill.
 */
int qtest_readl_clear(struct qtest *qt, uint64_t addr, uint32_t *val);

/* @len bytes of the physical address space at @addr (base64 on the wire). */
int qtest_memread(struct qtest *qt, uint64_t addr, void *buf, size_t len);
int qtest_memwrite(struct qtest *qt, uint64_t addr, const void *buf,
		   size_t len);

/*
 * Advances the virtual clock by @ns (its timers due by then run), and
 * says where it is now in @now (if not NULL).
 */
int qtest_clock_step(struct qtest *qt, int64_t ns, int64_t *now);

#endif /* _SMARTIO_TEST_QTEST_H */
