/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel/userspace compatibility shim for smartio "pure logic" code.
 *
 * Files under lib/ contain no kernel headers so that the very same source
 * can be built into the kernel module (Kbuild) and into the userspace unit
 * tests (Check).  This header is the only place where the two worlds differ:
 * it provides u8/u16/u32/u64/s32, bool, size_t, the errno constants and
 * EXPORT_SYMBOL_GPL (lib/ is linked into the core module, which exports it
 * to the other smartio modules; in userspace the export expands to a
 * declaration that does nothing, so the call site needs no #ifdef).
 */
#ifndef _SMARTIO_COMPAT_H
#define _SMARTIO_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/export.h>

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

/* A file-scope forward declaration: valid after a function, does nothing. */
#define SMARTIO_NO_EXPORT(sym) struct smartio_no_export_##sym
#define EXPORT_SYMBOL_GPL SMARTIO_NO_EXPORT

#endif /* __KERNEL__ */

#endif /* _SMARTIO_COMPAT_H */
