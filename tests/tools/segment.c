// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-seg: segments through /dev/smartio, for tests and by hand.
 *
 *	smartio-seg create ID SIZE [ADAPTER]	create a local segment
 *	smartio-seg export ID NODE|all		let NODE (or all) connect
 *	smartio-seg remove ID [force]		remove a local segment
 *	smartio-seg hold NODE ID FILE		map NODE's segment until SIGBUS
 *	smartio-seg fill NODE|local ID SEED	write a pattern, print its sum
 *	smartio-seg sum NODE|local ID [OFFSET LEN]	print the segment's sum
 *	smartio-seg pattern SEED LEN		print the sum of LEN pattern bytes
 *
 * SIZE takes a K, M or G suffix. fill maps the segment (connecting to
 * NODE's, or attaching to our own with "local") and writes a
 * pseudo-random pattern drawn from SEED over all of it; it prints the
 * pattern's checksum, computed from the pattern as written, so that a
 * remote segment is not read back over the fabric (but for its last word,
 * which flushes the posted writes before it). sum maps the segment
 * and checksums what it holds. remove force removes a segment other nodes
 * are connected to (SMARTIO_SEGMENT_REMOVE_FORCE). hold maps NODE's
 * segment, writes its first word, creates FILE, and then writes and reads
 * that word every 10 ms until the mapping is torn down: it prints
 * "SIGBUS" and exits 0 at the SIGBUS that follows, 1 after 300 s without
 * one. Errors: one line, exit status 1 (2 for a bad command line).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/smartio_dev.h>

#include "sigbus.h"

static const char *what;

static int failed(void)
{
	fprintf(stderr, "smartio-seg: %s: %s\n", what, strerror(errno));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: smartio-seg create ID SIZE [ADAPTER] | export ID NODE|all |\n"
			"       remove ID [force] | hold NODE ID FILE |\n"
			"       fill NODE|local ID SEED |\n"
			"       sum NODE|local ID [OFFSET LEN] | pattern SEED LEN\n");
	return 2;
}

static bool number(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || s[0] == '-')
		return false;
	switch (*end) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
		end++;
	}
	if (*end || v > max)
		return false;
	*out = v;
	return true;
}

/* xorshift64: the pattern, reproducible from its seed. */
static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Word-wise FNV-1a: cheap, and any changed word changes it. */
static uint64_t hash(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0x100000001b3ULL;
}

#define HASH_INIT 0xcbf29ce484222325ULL

/* Binds FD to segment ID of NODE (0: local) and maps it. */
static volatile uint64_t *map(int fd, uint64_t node, uint64_t id,
			      uint64_t *size)
{
	struct smartio_segment_info info = {
		.node_id = (uint16_t)node,
		.segment_id = (uint32_t)id,
	};
	void *p;

	if (ioctl(fd, node ? SMARTIO_IOC_SEGMENT_CONNECT :
			     SMARTIO_IOC_SEGMENT_ATTACH, &info))
		return NULL;
	p = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	*size = info.size;
	return p;
}

/* hold: touches the first word of P every 10 ms until SIGBUS. */
static int hold(volatile uint64_t *p, const char *file)
{
	unsigned int i;
	int fd;

	sigbus_exits();
	p[0] = 0x5eed;
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	if (fd < 0) {
		what = file;
		return failed();
	}
	close(fd);
	for (i = 0; i < 30000; i++) {
		p[0] = i;
		(void)p[0];
		usleep(10000);
	}
	fprintf(stderr, "smartio-seg: hold: no SIGBUS in 300 s\n");
	return 1;
}

int main(int argc, char **argv)
{
	uint64_t id, node = 0, size = 0, seed, n, h = HASH_INIT, i, x;
	uint64_t off = 0, len = 0;
	struct smartio_segment_create create = { 0 };
	struct smartio_segment_export export = { 0 };
	volatile uint64_t *p;
	const char *cmd;
	int fd;

	if (argc < 3)
		return usage();
	cmd = argv[1];
	what = cmd;
	if (!strcmp(cmd, "pattern") && argc == 4) {
		if (!number(argv[2], UINT64_MAX, &seed) || !seed ||
		    !number(argv[3], UINT64_MAX, &len) || len % sizeof(x))
			return usage();
		for (i = 0, x = seed; i < len / sizeof(x); i++)
			h = hash(h, next(&x));
		printf("%016" PRIx64 "\n", h);
		return 0;
	}
	fd = open(SMARTIO_DEV_PATH, O_RDWR);
	if (fd < 0) {
		what = SMARTIO_DEV_PATH;
		return failed();
	}

	if (!strcmp(cmd, "create") && (argc == 4 || argc == 5)) {
		if (!number(argv[2], UINT32_MAX, &id) ||
		    !number(argv[3], UINT64_MAX, &size) ||
		    (argc == 5 && !number(argv[4], UINT32_MAX, &n)))
			return usage();
		create.segment_id = (uint32_t)id;
		create.size = size;
		create.adapter = argc == 5 ? (uint32_t)n : 0;
		return ioctl(fd, SMARTIO_IOC_SEGMENT_CREATE, &create) ? failed() : 0;
	}
	if (!strcmp(cmd, "export") && argc == 4) {
		if (!number(argv[2], UINT32_MAX, &id))
			return usage();
		if (!strcmp(argv[3], "all"))
			node = SMARTIO_NODE_ALL;
		else if (!number(argv[3], UINT16_MAX - 1, &node) || !node)
			return usage();
		export.segment_id = (uint32_t)id;
		export.node_id = (uint16_t)node;
		return ioctl(fd, SMARTIO_IOC_SEGMENT_EXPORT, &export) ? failed() : 0;
	}
	if (!strcmp(cmd, "remove") && (argc == 3 || argc == 4)) {
		struct smartio_segment_remove remove = { 0 };
		uint32_t id32;

		if (!number(argv[2], UINT32_MAX, &id) ||
		    (argc == 4 && strcmp(argv[3], "force")))
			return usage();
		id32 = (uint32_t)id;
		if (argc == 3)
			return ioctl(fd, SMARTIO_IOC_SEGMENT_REMOVE, &id32) ? failed() : 0;
		remove.segment_id = id32;
		remove.flags = SMARTIO_SEGMENT_REMOVE_FORCE;
		return ioctl(fd, SMARTIO_IOC_SEGMENT_REMOVE_FLAGS, &remove) ?
		       failed() : 0;
	}
	if (!strcmp(cmd, "hold") && argc == 5) {
		if (!number(argv[2], UINT16_MAX - 1, &node) || !node ||
		    !number(argv[3], UINT32_MAX, &id))
			return usage();
		p = map(fd, node, id, &size);
		if (!p)
			return failed();
		return hold(p, argv[4]);
	}
	if ((!strcmp(cmd, "fill") && argc == 5) ||
	    (!strcmp(cmd, "sum") && (argc == 4 || argc == 6))) {
		bool fill = !strcmp(cmd, "fill");

		if ((strcmp(argv[2], "local") &&
		     (!number(argv[2], UINT16_MAX - 1, &node) || !node)) ||
		    !number(argv[3], UINT32_MAX, &id) ||
		    (fill && (!number(argv[4], UINT64_MAX, &seed) || !seed)) ||
		    (argc == 6 && (!number(argv[4], UINT64_MAX, &off) ||
				   !number(argv[5], UINT64_MAX, &len) ||
				   off % sizeof(x) || len % sizeof(x))))
			return usage();
		p = map(fd, node, id, &size);
		if (!p)
			return failed();
		n = size / sizeof(*p);
		if (argc == 6) {
			if (off > size || len > size - off) {
				errno = EINVAL;
				return failed();
			}
			p += off / sizeof(*p);
			n = len / sizeof(*p);
		}
		if (fill) {
			for (i = 0, x = seed; i < n; i++) {
				p[i] = next(&x);
				h = hash(h, x);
			}
			/*
			 * Writes through a window are posted; a read returns
			 * only once all before it are done (PCIe ordering):
			 * when fill exits, the pattern is in place.
			 */
			if (n && p[n - 1] != x) {
				fprintf(stderr, "smartio-seg: fill: last word reads back %#" PRIx64 ", not %#" PRIx64 "\n",
					p[n - 1], x);
				return 1;
			}
		} else {
			for (i = 0; i < n; i++)
				h = hash(h, p[i]);
		}
		printf("%016" PRIx64 "\n", h);
		return 0;
	}
	return usage();
}
