/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One version for the kernel modules and the userspace programs: a module
 * and a tool from the same tree always agree on the protocol.
 */
#ifndef _SMARTIO_VERSION_H
#define _SMARTIO_VERSION_H

#define SMARTIO_VERSION "0.1.0"

#endif /* _SMARTIO_VERSION_H */
