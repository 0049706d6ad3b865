/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Little-endian wire fields, byte by byte: the same code in the kernel and
 * in userspace, whatever the host's byte order or the field's alignment.
 */
#ifndef _SMARTIO_LE_H
#define _SMARTIO_LE_H

#include <smartio/compat.h>

static inline void smartio_put_le16(u8 *p, u16 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
}

static inline void smartio_put_le32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static inline u16 smartio_get_le16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static inline u32 smartio_get_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

#endif /* _SMARTIO_LE_H */
