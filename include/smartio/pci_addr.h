/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCI function addresses in the "[DDDD:]BB:DD.F" form printed by lspci and
 * used for sysfs directory names.
 */
#ifndef _SMARTIO_PCI_ADDR_H
#define _SMARTIO_PCI_ADDR_H

#include <smartio/compat.h>

/*
 * Buffer size for a formatted address: 8 domain digits, ':', 2 bus digits,
 * ':', 2 device digits, '.', 1 function digit and the NUL.
 */
#define SMARTIO_PCI_ADDR_STR_MAX	(8 + 1 + 2 + 1 + 2 + 1 + 1 + 1)

#define SMARTIO_PCI_DEV_MAX	0x1f
#define SMARTIO_PCI_FN_MAX	0x7

/**
 * struct smartio_pci_addr - Address of one PCI function.
 * @domain: PCI domain (segment).  32 bits wide because virtual root buses
 *	such as Intel VMD use domains >= 0x10000.
 * @bus: Bus number, 0x00..0xff.
 * @dev: Device number, 0x00..0x1f.
 * @fn: Function number, 0..7.
 */
struct smartio_pci_addr {
	u32 domain;
	u8 bus;
	u8 dev;
	u8 fn;
};

int smartio_pci_addr_parse(const char *s, struct smartio_pci_addr *out);
int smartio_pci_addr_format(const struct smartio_pci_addr *a, char *buf,
			    size_t len);

#endif /* _SMARTIO_PCI_ADDR_H */
