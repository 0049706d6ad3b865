// SPDX-License-Identifier: GPL-2.0
/*
 * smartio-dev-fuzz: random ioctls and mmaps on /dev/smartio
 * (tests/vm/fuzz-dev; the ABI is include/uapi/linux/smartio_dev.h).
 *
 *	smartio-dev-fuzz [-C] [-s SEED] [-n COUNT] [-r NODE] [-R SEGMENT]...
 *			 [-H SEGMENT]...
 *
 * Keeps FILES open files of /dev/smartio, each in a state of its own
 * (unbound, attached to a local segment, connected to a remote one,
 * closed; duplicated onto another, mapped and then closed), and sends
 * COUNT inputs (default 100000), each one of:
 *
 *  - an ioctl of the ABI with a random argument: ids, sizes, nodes and
 *    reserved fields drawn from what exists (the remote node -r, its
 *    segments -R, small local ids) or worth trying (boundaries, random);
 *    the remote segments never those the remote node's fuzzer creates
 *    and removes (its local ids, see local_id()), but with -C;
 *  - an ioctl of the ABI with a bad pointer: NULL, a kernel address, one
 *    across the end of user space, a PROT_NONE page, a read-only page, or
 *    a struct that runs into a PROT_NONE page;
 *  - an ioctl number that is not the ABI's (its magic with another
 *    number, size or direction; or random);
 *  - an mmap at a random offset, length, protection and sharing, touched
 *    when it succeeds; a munmap, partial or whole, or a touch of a
 *    mapping kept;
 *  - a close, an open or a dup2 of one of the files.
 *
 * Local segments -H SEGMENT are held attached by a file of their own for
 * the whole run (so they cannot be removed: the test's peer maps them) and
 * are left out of the local ids this program creates, removes or exports.
 *
 * What a file is bound to is known (after each attach or connect, the
 * binding is read back with SMARTIO_IOC_SEGMENT_INFO), and what must fail
 * is checked: a mutating ioctl without CAP_SYS_ADMIN, a create of id 0 or
 * of a size that is 0, not page-aligned or above 4 GiB, an export to node
 * 0 or with its reserved field set, an attach or connect of a bound file
 * or with a reserved field set, the binding of an unbound file, an mmap of an
 * unbound file or past its segment's end, an ioctl of a bad pointer it
 * must read or write, a number not of the ABI. SMARTIO_IOC_SEGMENT_INFO of
 * a bound file must succeed and tell its binding; a mapping that was made
 * must not fault within its protection. Anything else is a violation.
 * What this program created is removed at its end.
 *
 * Prints the seed, "count:" lines per input kind and outcome ("ok" or an
 * errno name), the inputs that changed state ("state changes N": a
 * segment created, removed or exported, a file attached, connected or
 * closed, a mapping made or unmade) and a summary line; exit status 0, 1 on a violation, 2 for
 * a bad command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/smartio_dev.h>

#include "fuzz.h"

#define FILES		6
#define MAPPINGS	16
#define POOL_MAX	16
#define LOCAL_IDS	15	/* local segment ids 1..LOCAL_IDS */
#define SMALL_MAX	(256 << 10)
#define SEGMENT_MAX	(1ULL << 32)	/* ntb/segment.c's limit */
#define VIOLATIONS_SHOWN 10
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum binding { UNBOUND, LOCAL, REMOTE };

struct file_slot {
	int fd;			/* -1: closed */
	enum binding bound;
	struct smartio_segment_info info;	/* its binding, when bound */
};

struct mapping {
	uint8_t *addr;		/* NULL: free */
	size_t len;
	int prot;
};

static struct file_slot files[FILES];
static struct mapping maps[MAPPINGS];
static struct fuzz_rng rng;
static long page;
static bool admin;
static uint16_t remote_node;
static uint32_t remote_ids[POOL_MAX], held_ids[POOL_MAX];
static unsigned int remote_count, held_count;
static unsigned long violations;

static bool churn;

/*
 * Addresses an ioctl may be given: see bad_pointer(). Not an unmapped
 * page: an mmap may take it.
 */
static uint8_t *arena;		/* page 0 read-write, 1 none, 2 read-only */
static sigjmp_buf touch_jmp;
static volatile sig_atomic_t touching;

static void violation(const char *what, const char *why, int value)
{
	if (violations++ < VIOLATIONS_SHOWN)
		printf("violation: %s: %s (%d)\n", what, why, value);
}

/* "ok" or the errno name of a call's result. */
static const char *outcome(int ret)
{
	static char buf[16];

	if (!ret)
		return "ok";
	switch (ret) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case EOVERFLOW: return "EOVERFLOW";
	case ENXIO: return "ENXIO";
	case EXDEV: return "EXDEV";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENOTCONN: return "ENOTCONN";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EBADMSG: return "EBADMSG";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	default:
		snprintf(buf, sizeof(buf), "errno-%d", ret);
		return buf;
	}
}

/* Inputs that changed state: see state_input(). */
static unsigned long state_changes;

/*
 * Does INPUT change state when it succeeds: a segment created, removed or
 * exported, a file attached or connected, a mapping made or unmade, a
 * file (and what it held) closed?
 */
static bool state_input(const char *input)
{
	static const char * const kinds[] = {
		"ioctl-create", "ioctl-remove", "ioctl-export", "ioctl-attach",
		"ioctl-connect", "mmap-local", "mmap-remote", "munmap", "close",
	};
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		n = strlen(kinds[i]);
		if (!strncmp(input, kinds[i], n) && (!input[n] || input[n] == '-'))
			return true;
	}
	return false;
}

/* Counts INPUT's result RET (0 or an errno); MUST_FAIL: why it must fail. */
static void check(const char *input, int ret, const char *must_fail)
{
	fuzz_count(input, outcome(ret));
	if (!ret && state_input(input))
		state_changes++;
	if (!ret && must_fail)
		violation(input, must_fail, ret);
}

static bool held(uint32_t id)
{
	unsigned int i;

	for (i = 0; i < held_count; i++)
		if (held_ids[i] == id)
			return true;
	return false;
}

/*
 * The local ids this program creates, exports and removes (and removes
 * at its end): 1..LOCAL_IDS, and a few at the edges. A bounded set: what
 * it holds at most is bounded too.
 */
static const uint32_t edge_ids[] = {
	0, LOCAL_IDS + 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
};

static bool fuzzed_id(uint32_t id)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(edge_ids); i++)
		if (id == edge_ids[i])
			return true;
	return id >= 1 && id <= LOCAL_IDS;
}

static uint32_t local_id(void)
{
	uint32_t id;

	do {
		id = fuzz_chance(&rng, 7, 8) ? (uint32_t)(1 + fuzz_below(&rng, LOCAL_IDS)) :
		     edge_ids[fuzz_below(&rng, ARRAY_SIZE(edge_ids))];
	} while (held(id));
	return id;
}

static uint16_t some_node(void)
{
	switch (fuzz_below(&rng, 5)) {
	case 0:
	case 1:
		return remote_node;
	case 2:
		return SMARTIO_NODE_ALL;
	default:
		return (uint16_t)fuzz_int(&rng, 16);
	}
}

/*
 * A segment size: mostly small, now and then up to 4 MiB, or invalid.
 * Never a valid one above 4 MiB: ntb/segment.c takes up to 4 GiB
 * (SMARTIO_SEGMENT_MAX_SIZE) whatever the node's memory, and one such
 * create runs the node out of memory (tests/vm/fuzz-dev, case "huge").
 */
static uint64_t segment_size(void)
{
	uint64_t size;

	switch (fuzz_below(&rng, 16)) {
	case 0:
		return 0;
	case 1:		/* not page-aligned */
		return 1 + fuzz_below(&rng, SMALL_MAX);
	case 2:		/* above the limit (the limit itself is more than a VM has) */
		return SEGMENT_MAX + (uint64_t)page * (1 + fuzz_below(&rng, 3));
	case 3:
		/* Random, but never a valid size this VM could not give. */
		size = fuzz_int(&rng, 64);
		return size && !(size % page) && size <= SEGMENT_MAX ? size + 1 : size;
	case 4:		/* up to 4 MiB */
		return (uint64_t)page * (1 + fuzz_below(&rng, (4 << 20) / page));
	default:
		return (uint64_t)page * (1 + fuzz_below(&rng, SMALL_MAX / page));
	}
}

/* The binding of slot S, read back; its model follows it. */
static void sync_binding(struct file_slot *s)
{
	struct smartio_segment_info info;

	memset(&info, 0, sizeof(info));
	if (ioctl(s->fd, SMARTIO_IOC_SEGMENT_INFO, &info)) {
		if (errno != ENOENT)
			violation("info", "the binding of a file cannot be read", errno);
		s->bound = UNBOUND;
		return;
	}
	s->bound = info.flags & SMARTIO_SEGMENT_REMOTE ? REMOTE : LOCAL;
	s->info = info;
}

/*
 * A pointer for an ioctl argument of SIZE bytes. Sets *READABLE and
 * *WRITABLE as the kernel finds it; the struct at it holds random bytes
 * when it is readable.
 */
static void *bad_pointer(size_t size, bool *readable, bool *writable)
{
	*readable = false;
	*writable = false;
	switch (fuzz_below(&rng, 7)) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)(1 + fuzz_below(&rng, 4096));
	case 2:		/* the kernel's direct map */
		return (void *)(uintptr_t)0xffff888000000000ULL;
	case 3:		/* across the end of user space */
		return (void *)(uintptr_t)(0x800000000000ULL - 1 - fuzz_below(&rng, size - 1));
	case 4:		/* PROT_NONE */
		return arena + page;
	case 5:		/* read-only */
		*readable = true;
		return arena + 2 * page + fuzz_below(&rng, (uint64_t)page - size);
	default:	/* runs from a writable page into a PROT_NONE one */
		return arena + page - 1 - fuzz_below(&rng, size - 1);
	}
}

/* Puts the argument at P in the read-only page, for a moment writable. */
static void fill_read_only(void *p, const void *arg, size_t size)
{
	if (mprotect(arena + 2 * page, (size_t)page, PROT_READ | PROT_WRITE)) {
		violation("arena", "mprotect failed", errno);
		return;
	}
	memcpy(p, arg, size);
	mprotect(arena + 2 * page, (size_t)page, PROT_READ);
}

static const char *const ioctl_names[] = {
	[1] = "ioctl-create", [2] = "ioctl-remove", [3] = "ioctl-export",
	[4] = "ioctl-attach", [5] = "ioctl-connect", [6] = "ioctl-info",
};

static const unsigned long ioctl_cmds[] = {
	[1] = SMARTIO_IOC_SEGMENT_CREATE, [2] = SMARTIO_IOC_SEGMENT_REMOVE,
	[3] = SMARTIO_IOC_SEGMENT_EXPORT, [4] = SMARTIO_IOC_SEGMENT_ATTACH,
	[5] = SMARTIO_IOC_SEGMENT_CONNECT, [6] = SMARTIO_IOC_SEGMENT_INFO,
};

/* dup2 makes two slots one file: a binding of one binds both. */
static void sync_all(void)
{
	unsigned int i;

	for (i = 0; i < FILES; i++)
		if (files[i].fd >= 0)
			sync_binding(&files[i]);
}

/*
 * A segment of the remote node to connect to: one it exported (-R), or
 * one it does not have. Those its fuzzer creates, exports and removes
 * under our connections (fuzzed_id()), only with -C.
 */
static uint32_t remote_id(void)
{
	uint32_t id;

	if (remote_count && fuzz_chance(&rng, 3, 4))
		return remote_ids[fuzz_below(&rng, remote_count)];
	do {
		id = (uint32_t)fuzz_int(&rng, 32);
	} while (!churn && fuzzed_id(id));
	return id;
}

static struct file_slot *open_slot(void)
{
	return &files[fuzz_below(&rng, FILES)];
}

/* An ioctl of the ABI, with a random argument or a bad pointer. */
static void fuzz_ioctl(bool bad)
{
	struct file_slot *s = open_slot();
	unsigned int nr = (unsigned int)(1 + fuzz_below(&rng, 6));
	union {
		struct smartio_segment_create create;
		struct smartio_segment_export export;
		struct smartio_segment_info info;
		uint32_t id;
	} arg;
	static const size_t sizes[] = {
		[1] = sizeof(arg.create), [2] = sizeof(arg.id),
		[3] = sizeof(arg.export), [4] = sizeof(arg.info),
		[5] = sizeof(arg.info), [6] = sizeof(arg.info),
	};
	bool readable = true, writable = true, mutating = nr != 6;
	const char *must_fail = NULL;
	char input[48];
	void *p = &arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	switch (nr) {
	case 1:
		arg.create.segment_id = local_id();
		arg.create.adapter = fuzz_chance(&rng, 7, 8) ? 0 :
				     (uint32_t)fuzz_int(&rng, 32);
		arg.create.size = segment_size();
		if (!arg.create.segment_id || !arg.create.size ||
		    arg.create.size % page || arg.create.size > SEGMENT_MAX)
			must_fail = "a create of id 0, or of a bad size";
		break;
	case 2:
		arg.id = local_id();
		break;
	case 3:
		arg.export.segment_id = local_id();
		arg.export.node_id = fuzz_chance(&rng, 1, 8) ? 0 : some_node();
		if (fuzz_chance(&rng, 1, 8))
			arg.export.reserved = (uint16_t)(1 + fuzz_below(&rng, 0xffff));
		if (!arg.export.node_id || arg.export.reserved)
			must_fail = "an export to node 0 or with a reserved field";
		break;
	case 4:
	case 5:
		arg.info.node_id = nr == 5 ? some_node() : (uint16_t)fuzz_u64(&rng);
		arg.info.segment_id = nr == 4 ? local_id() : remote_id();
		arg.info.size = fuzz_u64(&rng);
		arg.info.flags = (uint32_t)fuzz_u64(&rng);
		if (fuzz_chance(&rng, 1, 8))
			arg.info.reserved = (uint16_t)(1 + fuzz_below(&rng, 0xffff));
		if (fuzz_chance(&rng, 1, 8))
			arg.info.reserved2 = (uint32_t)(1 + fuzz_below(&rng, 0xfffffffe));
		if (arg.info.reserved || arg.info.reserved2)
			must_fail = "a binding with a reserved field set";
		else if (s->fd >= 0 && s->bound != UNBOUND)
			must_fail = "a binding of a bound file";
		break;
	case 6:
		if (s->fd >= 0 && s->bound == UNBOUND)
			must_fail = "the binding of an unbound file";
		break;
	}
	if (bad) {
		p = bad_pointer(sizes[nr], &readable, &writable);
		if (!readable && nr != 6)
			must_fail = "an argument it cannot read";
		else if (!writable && nr >= 4)
			must_fail = "an argument it cannot write";
		else if (readable)
			fill_read_only(p, &arg, sizes[nr]);
	}
	if (s->fd < 0)
		must_fail = "a closed file";
	else if (mutating && !admin)
		must_fail = "a mutating ioctl without CAP_SYS_ADMIN";

	ret = ioctl(s->fd, ioctl_cmds[nr], p) ? errno : 0;
	snprintf(input, sizeof(input), "%s%s", ioctl_names[nr], bad ? "-badptr" : "");
	check(input, ret, must_fail);
	if (s->fd < 0)
		return;
	if (nr == 4 || nr == 5) {
		sync_all();	/* dup2 may have made it more than one slot's */
	} else if (nr == 6 && !ret && !bad) {
		/* INFO must tell the binding as it was made. */
		if (s->bound == UNBOUND || arg.info.segment_id != s->info.segment_id ||
		    arg.info.size != s->info.size || arg.info.node_id != s->info.node_id ||
		    !!(arg.info.flags & SMARTIO_SEGMENT_REMOTE) != (s->bound == REMOTE))
			violation("ioctl-info", "it tells another binding than the one made",
				  (int)arg.info.segment_id);
	}
}

/* A number that is not one of the ABI's: must fail. */
static void fuzz_ioctl_number(void)
{
	struct file_slot *s = open_slot();
	unsigned long cmd;
	unsigned int i;
	int ret;

	do {
		if (fuzz_chance(&rng, 3, 4))
			cmd = _IOC((unsigned int)fuzz_below(&rng, 4), SMARTIO_IOC_MAGIC,
				   (unsigned int)fuzz_below(&rng, 16),
				   (unsigned int)fuzz_below(&rng, 64));
		else	/* another magic: the VFS's own ioctls are not ours to judge */
			cmd = _IOC((unsigned int)fuzz_below(&rng, 4), SMARTIO_IOC_MAGIC,
				   (unsigned int)fuzz_below(&rng, 256),
				   (unsigned int)fuzz_below(&rng, 1 << 14));
		for (i = 1; i <= 6; i++)
			if (cmd == ioctl_cmds[i])
				break;
	} while (i <= 6 || cmd == SMARTIO_IOC_SEGMENT_REMOVE_FLAGS);
	fuzz_bytes(&rng, arena, (size_t)page);
	ret = ioctl(s->fd, cmd, fuzz_chance(&rng, 1, 2) ? (void *)arena : NULL) ? errno : 0;
	check("ioctl-number", ret, "an ioctl number not of the ABI");
}

static void on_fault(int sig)
{
	if (touching)
		siglongjmp(touch_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Reads or writes one byte of mapping M within its protection. */
static void touch(struct mapping *m)
{
	volatile uint8_t *b = m->addr + fuzz_below(&rng, m->len);
	int sig;

	if (!(m->prot & (PROT_READ | PROT_WRITE)))
		return;
	sig = sigsetjmp(touch_jmp, 1);
	if (sig) {
		touching = 0;
		violation("touch", "a mapping faulted within its protection", sig);
		return;
	}
	touching = 1;
	if ((m->prot & PROT_WRITE) && fuzz_chance(&rng, 1, 2))
		*b = (uint8_t)fuzz_u64(&rng);
	else
		(void)*b;
	touching = 0;
	fuzz_count("touch", "ok");
}

static void fuzz_mmap(void)
{
	static const int prots[] = {
		PROT_NONE, PROT_READ, PROT_WRITE, PROT_READ | PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	struct file_slot *s = open_slot();
	uint64_t size = s->fd >= 0 && s->bound != UNBOUND ? s->info.size : 0;
	uint64_t off, len, alen;
	const char *must_fail = NULL;
	struct mapping *m = NULL;
	int prot, flags, ret;
	unsigned int i;
	void *addr;

	switch (fuzz_below(&rng, 5)) {
	case 0:
		off = 0;
		break;
	case 1:		/* within the segment */
		off = size ? (uint64_t)page * fuzz_below(&rng, size / page) : 0;
		break;
	case 2:		/* at its end or past it */
		off = size + (uint64_t)page * fuzz_below(&rng, 3);
		break;
	case 3:		/* not page-aligned: the VFS refuses it */
		off = 1 + fuzz_below(&rng, (uint64_t)page - 1);
		break;
	default:
		off = fuzz_int(&rng, 64) & ~((uint64_t)page - 1);
		break;
	}
	switch (fuzz_below(&rng, 5)) {
	case 0:
		len = size > off ? size - off : (uint64_t)page;
		break;
	case 1:
		len = (uint64_t)page;
		break;
	case 2:
		len = 1 + fuzz_below(&rng, 4 * (uint64_t)page);
		break;
	case 3:
		len = (size > off ? size - off : 0) + (uint64_t)page;
		break;
	default:
		len = fuzz_int(&rng, 40);
		break;
	}
	prot = prots[fuzz_below(&rng, ARRAY_SIZE(prots))];
	flags = fuzz_chance(&rng, 4, 5) ? MAP_SHARED : MAP_PRIVATE;

	alen = (len + (uint64_t)page - 1) & ~((uint64_t)page - 1);
	if (s->fd < 0)
		must_fail = "a closed file";
	else if (!len)
		must_fail = "a mapping of length 0";
	else if (off % page)
		must_fail = "an offset not page-aligned";
	else if (s->bound == UNBOUND)
		must_fail = "an unbound file";
	else if (off >= size || alen > size - off)
		must_fail = "a mapping past the segment's end";

	for (i = 0; i < MAPPINGS; i++)
		if (!maps[i].addr)
			m = &maps[i];
	addr = mmap(NULL, len, prot, flags, s->fd, (off_t)off);
	ret = addr == MAP_FAILED ? errno : 0;
	check(s->bound == LOCAL ? "mmap-local" : s->bound == REMOTE ?
	      "mmap-remote" : "mmap-unbound", ret, must_fail);
	if (ret)
		return;
	if (!m) {		/* no room to keep it */
		munmap(addr, len);
		return;
	}
	m->addr = addr;
	m->len = len;
	m->prot = prot;
	if (fuzz_chance(&rng, 1, 2))
		touch(m);
}

static void fuzz_mapping(void)
{
	struct mapping *m = &maps[fuzz_below(&rng, MAPPINGS)];
	size_t part;

	if (!m->addr) {
		fuzz_count("munmap", "nothing");
		return;
	}
	if (fuzz_chance(&rng, 1, 2)) {
		touch(m);
		return;
	}
	/* The first pages only, now and then: the rest stays mapped. */
	part = m->len > (size_t)page && fuzz_chance(&rng, 1, 4) ? (size_t)page : m->len;
	check("munmap", munmap(m->addr, part) ? errno : 0, NULL);
	if (part == m->len) {
		m->addr = NULL;
	} else {
		m->addr += part;
		m->len -= part;
	}
}

static void fuzz_file(void)
{
	struct file_slot *s = open_slot(), *t = open_slot();

	switch (fuzz_below(&rng, 3)) {
	case 0:
		if (s->fd < 0) {
			fuzz_count("close", "nothing");
			break;
		}
		check("close", close(s->fd) ? errno : 0, NULL);
		s->fd = -1;
		s->bound = UNBOUND;
		break;
	case 1:
		if (s->fd >= 0)
			close(s->fd);
		s->fd = open(SMARTIO_DEV_PATH, O_RDWR);
		check("open", s->fd < 0 ? errno : 0, NULL);
		s->bound = UNBOUND;
		break;
	default:	/* two files, one binding */
		if (s == t || s->fd < 0 || t->fd < 0) {
			fuzz_count("dup2", "nothing");
			break;
		}
		check("dup2", dup2(s->fd, t->fd) < 0 ? errno : 0, NULL);
		t->bound = s->bound;
		t->info = s->info;
		break;
	}
	if (s->fd < 0 && fuzz_chance(&rng, 1, 2))
		s->fd = open(SMARTIO_DEV_PATH, O_RDWR);
}

static int usage(void)
{
	fprintf(stderr, "usage: smartio-dev-fuzz [-C] [-s SEED] [-n COUNT] [-r NODE] [-R SEGMENT]... [-H SEGMENT]...\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, count = 100000, v;
	struct sigaction sa = { .sa_handler = on_fault };
	unsigned long n;
	unsigned int i;
	int c, holder;

	while ((c = getopt(argc, argv, "Cs:n:r:R:H:")) != -1) {
		if (c == 'C') {
			churn = true;
			continue;
		}
		if (!optarg || !fuzz_parse_u64(optarg, &v))
			return usage();
		switch (c) {
		case 's':
			seed = v;
			break;
		case 'n':
			count = v;
			break;
		case 'r':
			if (v > 0xffff)
				return usage();
			remote_node = (uint16_t)v;
			break;
		case 'R':
		case 'H':
			if (v > 0xffffffffULL || remote_count == POOL_MAX ||
			    held_count == POOL_MAX)
				return usage();
			if (c == 'R')
				remote_ids[remote_count++] = (uint32_t)v;
			else
				held_ids[held_count++] = (uint32_t)v;
			break;
		default:
			return usage();
		}
	}
	if (optind != argc)
		return usage();

	page = sysconf(_SC_PAGESIZE);
	admin = geteuid() == 0;
	arena = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED || mprotect(arena + page, (size_t)page, PROT_NONE) ||
	    mprotect(arena + 2 * page, (size_t)page, PROT_READ)) {
		perror("smartio-dev-fuzz: arena");
		return 1;
	}
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);

	/* Held segments: attached by a file of their own until the end. */
	for (i = 0; i < held_count; i++) {
		struct smartio_segment_info info = { .segment_id = held_ids[i] };

		holder = open(SMARTIO_DEV_PATH, O_RDWR);
		if (holder < 0 || ioctl(holder, SMARTIO_IOC_SEGMENT_ATTACH, &info)) {
			fprintf(stderr, "smartio-dev-fuzz: cannot hold segment %u: %s\n",
				held_ids[i], strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < FILES; i++) {
		files[i].fd = open(SMARTIO_DEV_PATH, O_RDWR);
		if (files[i].fd < 0) {
			perror("smartio-dev-fuzz: " SMARTIO_DEV_PATH);
			return 1;
		}
	}
	printf("smartio-dev-fuzz: seed %llu (-s %llu repeats it), %llu inputs as uid %u\n",
	       (unsigned long long)seed, (unsigned long long)seed,
	       (unsigned long long)count, (unsigned int)geteuid());
	fflush(stdout);
	fuzz_seed(&rng, seed);

	for (n = 0; n < count; n++) {
		switch (fuzz_below(&rng, 20)) {
		case 0 ... 7:
			fuzz_ioctl(false);
			break;
		case 8 ... 9:
			fuzz_ioctl(true);
			break;
		case 10 ... 11:
			fuzz_ioctl_number();
			break;
		case 12 ... 15:
			fuzz_mmap();
			break;
		case 16 ... 17:
			fuzz_mapping();
			break;
		default:
			fuzz_file();
			sync_all();
			break;
		}
	}

	/* What this run made goes: mappings, files, local segments. */
	for (i = 0; i < MAPPINGS; i++)
		if (maps[i].addr)
			munmap(maps[i].addr, maps[i].len);
	for (i = 0; i < FILES; i++)
		if (files[i].fd >= 0)
			close(files[i].fd);
	if (admin) {
		c = open(SMARTIO_DEV_PATH, O_RDWR);
		for (v = 0; c >= 0 && v <= LOCAL_IDS + ARRAY_SIZE(edge_ids); v++) {
			uint32_t id = v <= LOCAL_IDS ? (uint32_t)v : edge_ids[v - LOCAL_IDS - 1];

			if (fuzzed_id(id) && !held(id))
				ioctl(c, SMARTIO_IOC_SEGMENT_REMOVE, &id);
		}
		if (c >= 0)
			close(c);
	}

	fuzz_tally_print(stdout);
	printf("smartio-dev-fuzz: seed %llu: state changes %lu\n",
	       (unsigned long long)seed, state_changes);
	printf("smartio-dev-fuzz: seed %llu: %lu inputs, %lu violations\n",
	       (unsigned long long)seed, n, violations);
	return violations ? 1 : 0;
}
