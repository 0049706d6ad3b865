/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel/userspace compatibility shim for smartio "pure logic" code.
 *
 * Files under lib/ contain no kernel headers so that the very same source
 * can be built into the kernel module (Kbuild) and into the userspace unit
 * tests (Check).  This header is the only place where the two worlds differ:
 * it provides u8/u16/u32/u64/s32, bool, size_t and the errno constants.
 */
#ifndef _SMARTIO_COMPAT_H
#define _SMARTIO_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>

#else /* !__KERNEL__ */

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#endif /* __KERNEL__ */

#endif /* _SMARTIO_COMPAT_H */
