// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU's qtest protocol, the client side (qtest.h): starting QEMU as a
 * qtest server, sending it commands and parsing its replies. What the
 * commands are for (a PCI device, an NVMe) is the program's business;
 * this only speaks the protocol of QEMU 7.2's softmmu/qtest.c:
 *
 *	inl PORT		OK VALUE
 *	outl PORT VALUE		OK
 *	readl ADDR		OK VALUE
 *	writel ADDR VALUE	OK
 *	b64read ADDR LEN	OK BASE64
 *	b64write ADDR LEN BASE64	OK
 *	clock_step NS		OK NOW
 *	endianness		OK little
 *
 * Numbers go as C literals (QEMU reads them with strtoul's base 0). A
 * command QEMU does not know gets "FAIL ..."; lines "IRQ raise N" and "IRQ
 * lower N" come unasked once a program intercepts interrupts (this one
 * does not, but they would not be replies).
 *
 * QEMU gets one end of a socketpair as its qtest chardev ("-chardev
 * socket,fd=N"): no path to choose or to remove, and when QEMU dies its
 * end closes and ours reads end of file, so a dead QEMU is seen at once
 * and reaped, and its exit status said.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qtest.h"

/*
 * How long a reply may take. The first one comes once QEMU has started,
 * which for vfio-pci includes opening the mediated device (borrowing it
 * over the fabric), and a config write that turns Bus Master Enable on
 * has smartio_mdev pin and map all guest RAM: generous, then.
 */
#define QTEST_REPLY_MS		60000

/* How long QEMU may take to quit on SIGTERM before it gets SIGKILL. */
#define QTEST_QUIT_MS		30000

/* A short command's text: the longest is readl_clear's two lines. */
#define QTEST_CMD_MAX		128

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Says in qt->why how QEMU ended, from its wait status. */
static void qtest_describe_exit(struct qtest *qt)
{
	int ws = qt->wstatus;

	if (WIFEXITED(ws))
		snprintf(qt->why, sizeof(qt->why), "QEMU exited with status %d",
			 WEXITSTATUS(ws));
	else if (WIFSIGNALED(ws))
		snprintf(qt->why, sizeof(qt->why),
			 "QEMU was killed by signal %d (%s)", WTERMSIG(ws),
			 strsignal(WTERMSIG(ws)));
	else
		snprintf(qt->why, sizeof(qt->why), "QEMU ended (wait status %#x)",
			 ws);
}

/*
 * Reaps QEMU, which is quitting (or should be): after @grace_ms it is
 * killed. Afterwards every call fails with ECHILD. False if QEMU was
 * reaped before, or cannot be (then qt->wstatus means nothing).
 */
static bool qtest_reap(struct qtest *qt, int grace_ms)
{
	int64_t deadline = now_ms() + grace_ms;
	pid_t pid;

	if (qt->exited)
		return false;
	for (;;) {
		pid = waitpid(qt->pid, &qt->wstatus, WNOHANG);
		if (pid == qt->pid || (pid < 0 && errno != EINTR))
			break;
		if (now_ms() >= deadline) {
			kill(qt->pid, SIGKILL);
			do
				pid = waitpid(qt->pid, &qt->wstatus, 0);
			while (pid < 0 && errno == EINTR);
			break;
		}
		usleep(10000);
	}
	qt->exited = true;
	if (pid == qt->pid)
		qtest_describe_exit(qt);
	else
		snprintf(qt->why, sizeof(qt->why), "QEMU is lost: %s",
			 strerror(errno));
	close(qt->fd);
	qt->fd = -1;
	return pid == qt->pid;
}

static int qtest_gone(void)
{
	errno = ECHILD;
	return -1;
}

const char *qtest_strerror(const struct qtest *qt, int err)
{
	if (err == ECHILD && qt->exited && qt->why[0])
		return qt->why;
	return strerror(err);
}

/* Sends @len bytes of commands, whole. */
static int qtest_send(struct qtest *qt, const char *cmd, size_t len)
{
	ssize_t n;

	if (qt->exited)
		return qtest_gone();
	while (len) {
		/* MSG_NOSIGNAL: a dead QEMU is an error, not our SIGPIPE. */
		n = send(qt->fd, cmd, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
			qtest_reap(qt, QTEST_QUIT_MS);
			return qtest_gone();
		}
		if (n < 0)
			return -1;
		cmd += n;
		len -= n;
	}
	return 0;
}

/*
 * The next line QEMU sends, its newline cut; valid until the next call.
 * NULL on end of file (QEMU is reaped then), a timeout or an error.
 */
static char *qtest_line(struct qtest *qt)
{
	int64_t deadline = now_ms() + QTEST_REPLY_MS, left;
	struct pollfd p = { .fd = qt->fd, .events = POLLIN };
	char *nl, *more;
	ssize_t n;
	int ret;

	if (qt->exited) {
		qtest_gone();
		return NULL;
	}
	for (;;) {
		nl = qt->in_len ? memchr(qt->in, '\n', qt->in_len) : NULL;
		if (nl) {
			*nl = '\0';
			/* Taken: moved out at the next call. */
			qt->in_taken = nl + 1 - qt->in;
			return qt->in;
		}
		if (qt->in_size - qt->in_len < 4096) {
			more = realloc(qt->in, qt->in_size + 8192);
			if (!more)
				return NULL;
			qt->in = more;
			qt->in_size += 8192;
		}
		left = deadline - now_ms();
		ret = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return NULL;
		if (!ret) {
			errno = ETIMEDOUT;
			return NULL;
		}
		n = read(qt->fd, qt->in + qt->in_len, qt->in_size - qt->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != ECONNRESET)
			return NULL;
		if (n <= 0) {
			qtest_reap(qt, QTEST_QUIT_MS);
			qtest_gone();
			return NULL;
		}
		qt->in_len += n;
	}
}

/* Moves the line qtest_line() last returned out of the buffer. */
static void qtest_line_done(struct qtest *qt)
{
	memmove(qt->in, qt->in + qt->in_taken, qt->in_len - qt->in_taken);
	qt->in_len -= qt->in_taken;
	qt->in_taken = 0;
}

/*
 * The reply to the oldest command not answered yet: what follows "OK"
 * (maybe ""), valid until the next reply is read. NULL with errno
 * EPROTO for a "FAIL" or "ERR".
 */
static char *qtest_reply(struct qtest *qt)
{
	char *line;

	for (;;) {
		if (qt->in_taken)
			qtest_line_done(qt);
		line = qtest_line(qt);
		if (!line)
			return NULL;
		if (!strncmp(line, "IRQ ", 4))
			continue;	/* not a reply: see above */
		if (!strcmp(line, "OK"))
			return line + 2;
		if (!strncmp(line, "OK ", 3))
			return line + 3;
		errno = EPROTO;
		return NULL;
	}
}

/* A reply that is one number: a value read, the clock. */
static int qtest_number(const char *reply, uint64_t *val)
{
	char *end;

	if (!reply)
		return -1;
	errno = 0;
	*val = strtoull(reply, &end, 0);
	if (errno || end == reply || *end) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* Sends one short command and returns its reply (qtest_reply()). */
static char *qtest_cmd(struct qtest *qt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *qtest_cmd(struct qtest *qt, const char *fmt, ...)
{
	char cmd[QTEST_CMD_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd)) {
		errno = EOVERFLOW;
		return NULL;
	}
	if (qtest_send(qt, cmd, n))
		return NULL;
	return qtest_reply(qt);
}

static const char b64_digits[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* @len bytes as base64 with padding (as glib's), into @out; its length. */
static size_t b64_encode(const uint8_t *in, size_t len, char *out)
{
	char *o = out;
	uint32_t v;
	size_t i;

	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		*o++ = b64_digits[v >> 18];
		*o++ = b64_digits[(v >> 12) & 63];
		*o++ = b64_digits[(v >> 6) & 63];
		*o++ = b64_digits[v & 63];
	}
	if (i < len) {
		v = (uint32_t)in[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		*o++ = b64_digits[v >> 18];
		*o++ = b64_digits[(v >> 12) & 63];
		*o++ = i + 1 < len ? b64_digits[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return o - out;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64_digits, c) : NULL;

	return p ? (int)(p - b64_digits) : -1;
}

/* Base64 @text into @out, which it must fill exactly. */
static int b64_decode(const char *text, uint8_t *out, size_t len)
{
	uint32_t bits = 0;
	int nbits = 0, v;
	size_t o = 0;

	for (; *text && *text != '='; text++) {
		v = b64_value(*text);
		if (v < 0)
			goto bad;
		bits = (bits << 6 | v) & 0xffffff;
		nbits += 6;
		if (nbits >= 8) {
			nbits -= 8;
			if (o == len)
				goto bad;
			out[o++] = (uint8_t)(bits >> nbits);
		}
	}
	if (o == len)
		return 0;
bad:
	errno = EPROTO;
	return -1;
}

int qtest_inl(struct qtest *qt, uint16_t port, uint32_t *val)
{
	uint64_t v;

	if (qtest_number(qtest_cmd(qt, "inl 0x%x\n", port), &v))
		return -1;
	*val = (uint32_t)v;
	return 0;
}

int qtest_outl(struct qtest *qt, uint16_t port, uint32_t val)
{
	return qtest_cmd(qt, "outl 0x%x 0x%x\n", port, val) ? 0 : -1;
}

int qtest_readl(struct qtest *qt, uint64_t addr, uint32_t *val)
{
	uint64_t v;

	if (qtest_number(qtest_cmd(qt, "readl 0x%" PRIx64 "\n", addr), &v))
		return -1;
	*val = (uint32_t)v;
	return 0;
}

int qtest_writel(struct qtest *qt, uint64_t addr, uint32_t val)
{
	return qtest_cmd(qt, "writel 0x%" PRIx64 " 0x%x\n", addr, val) ?
	       0 : -1;
}

/*
 * Both commands go in one send(), and QEMU runs every whole command line
 * it has read before it returns to its main loop (qtest_process_inbuf()),
 * where the device models run: vfio-pci's MSI eventfd handler and hw/nvme's
 * bottom halves, whose MSI writes are what lands in a mailbox. It reads
 * up to 1024 bytes at a time (qtest_can_read()) and nothing else of ours
 * is pending (every call waits for its replies), so the pair arrives in
 * one read: no write can fall between the read and the clearing, to be
 * lost.
 */
int qtest_readl_clear(struct qtest *qt, uint64_t addr, uint32_t *val)
{
	char cmd[QTEST_CMD_MAX];
	uint64_t v;
	int n;

	n = snprintf(cmd, sizeof(cmd),
		     "readl 0x%" PRIx64 "\nwritel 0x%" PRIx64 " 0x0\n",
		     addr, addr);
	if (qtest_send(qt, cmd, n))
		return -1;
	if (qtest_number(qtest_reply(qt), &v))
		return -1;
	*val = (uint32_t)v;
	return qtest_reply(qt) ? 0 : -1;
}

int qtest_memread(struct qtest *qt, uint64_t addr, void *buf, size_t len)
{
	char *reply;

	if (!len)
		return 0;	/* QEMU would answer "OK" with no data */
	reply = qtest_cmd(qt, "b64read 0x%" PRIx64 " 0x%zx\n", addr, len);
	if (!reply)
		return -1;
	return b64_decode(reply, buf, len);
}

int qtest_memwrite(struct qtest *qt, uint64_t addr, const void *buf,
		   size_t len)
{
	size_t size = QTEST_CMD_MAX + (len + 2) / 3 * 4, n;
	char *cmd;
	int ret;

	if (!len)
		return 0;	/* QEMU refuses empty data ("ERR") */
	cmd = malloc(size);
	if (!cmd)
		return -1;
	n = snprintf(cmd, size, "b64write 0x%" PRIx64 " 0x%zx ", addr, len);
	n += b64_encode(buf, len, cmd + n);
	cmd[n++] = '\n';
	ret = qtest_send(qt, cmd, n);
	free(cmd);
	if (ret)
		return -1;
	return qtest_reply(qt) ? 0 : -1;
}

int qtest_clock_step(struct qtest *qt, int64_t ns, int64_t *now)
{
	uint64_t v;

	if (qtest_number(qtest_cmd(qt, "clock_step %" PRIi64 "\n", ns), &v))
		return -1;
	if (now)
		*now = (int64_t)v;
	return 0;
}

/*
 * QEMU's argv: @qemu, the options that make it our qtest server on
 * socket @fd, then @args. Freed by the caller, with the chardev's option
 * (argv[2]).
 */
static char **qtest_argv(const char *qemu, int fd, const char *const *args)
{
	const char *const server[] = {
		"-chardev", NULL,	/* socket,id=qtest,fd=FD */
		"-qtest", "chardev:qtest",
		/* Otherwise QEMU logs every command to stderr. */
		"-qtest-log", "none",
		/* No guest code runs: QEMU only does what we ask. */
		"-accel", "qtest",
	};
	size_t nserver = ARRAY_SIZE(server), nargs = 0, i;
	char **argv;

	while (args[nargs])
		nargs++;
	argv = calloc(1 + nserver + nargs + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	argv[0] = (char *)qemu;
	for (i = 0; i < nserver; i++)
		argv[1 + i] = (char *)server[i];
	if (asprintf(&argv[2], "socket,id=qtest,fd=%d", fd) < 0) {
		free(argv);
		return NULL;
	}
	for (i = 0; i < nargs; i++)
		argv[1 + nserver + i] = (char *)args[i];
	return argv;
}

/*
 * The child: QEMU with @fd its end of the socket. Writes exec's errno to
 * @err_fd if QEMU does not start.
 */
static _Noreturn void qtest_exec(char **argv, int fd, int err_fd,
				  pid_t parent)
{
	int null, err;

	/* QEMU must not outlive us, however we end. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	/* The socketpair was made close-on-exec, for our end's sake. */
	if (fcntl(fd, F_SETFD, 0))
		goto fail;
	/*
	 * stdin: nothing of ours. stdout: our stderr, so that our stdout
	 * holds only our lines and QEMU's messages all go where its errors
	 * (a vfio-pci open error, say) go.
	 */
	null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 ||
	    dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		goto fail;
	if (null > STDERR_FILENO)
		close(null);
	execvp(argv[0], argv);
fail:
	err = errno;
	if (write(err_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

int qtest_start(struct qtest *qt, const char *qemu, const char *const *args)
{
	int sv[2], err_pipe[2], err;
	pid_t parent = getpid();
	char **argv;
	char *reply;
	ssize_t n;

	/* Nothing to end or reap until QEMU is forked. */
	*qt = (struct qtest){ .fd = -1, .exited = true };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	if (pipe2(err_pipe, O_CLOEXEC)) {
		err = errno;
		goto close_socket;
	}
	argv = qtest_argv(qemu, sv[1], args);
	if (!argv) {
		err = errno;
		goto close_pipe;
	}
	qt->pid = fork();
	if (!qt->pid)
		qtest_exec(argv, sv[1], err_pipe[1], parent);
	err = errno;
	free(argv[2]);
	free(argv);
	if (qt->pid < 0)
		goto close_pipe;
	qt->exited = false;
	close(sv[1]);
	close(err_pipe[1]);
	qt->fd = sv[0];

	/* End of file: exec worked (the pipe was close-on-exec). */
	do
		n = read(err_pipe[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(err_pipe[0]);
	if (n == sizeof(err)) {
		qtest_reap(qt, QTEST_QUIT_MS);
		errno = err;
		return -1;
	}

	/*
	 * The first reply comes once QEMU runs its main loop: it has
	 * started. "little": the values of readl and writel are the
	 * guest's little-endian words, as the device's registers are.
	 */
	reply = qtest_cmd(qt, "endianness\n");
	if (reply && !strcmp(reply, "little"))
		return 0;
	err = reply ? EPROTO : errno;
	/* Not a QEMU to use (if it is still there): it goes. */
	if (!qt->exited) {
		kill(qt->pid, SIGKILL);
		qtest_reap(qt, QTEST_QUIT_MS);
	}
	errno = err;
	return -1;

close_pipe:
	close(err_pipe[0]);
	close(err_pipe[1]);
close_socket:
	close(sv[0]);
	close(sv[1]);
	errno = err;
	return -1;
}

int qtest_quit(struct qtest *qt)
{
	bool reaped = false;
	int ws;

	/*
	 * qtest has no quit command; QEMU takes SIGTERM as a shutdown
	 * request. If it is gone already, it did not quit because of ours.
	 */
	if (!qt->exited && !kill(qt->pid, SIGTERM))
		reaped = qtest_reap(qt, QTEST_QUIT_MS);
	free(qt->in);
	qt->in = NULL;
	qt->in_len = qt->in_size = qt->in_taken = 0;
	ws = qt->wstatus;
	/*
	 * It exits 0 once its main loop sees the request, or dies of the
	 * signal if that came before it set its handler.
	 */
	if (reaped && ((WIFEXITED(ws) && !WEXITSTATUS(ws)) ||
		       (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM)))
		return 0;
	if (!qt->exited)
		return -1;	/* kill()'s error */
	return qtest_gone();
}
