// SPDX-License-Identifier: GPL-2.0
/*
 * Exports of the kernel-agnostic logic in lib/.
 *
 * lib/ includes no kernel headers so that the unit tests can compile it in
 * userspace; its symbols are therefore exported here, once, for the other
 * smartio modules.
 */
#include <linux/export.h>

#include "smartio/fdid.h"
#include "smartio/pci_addr.h"

EXPORT_SYMBOL_GPL(smartio_fdid_parse);
EXPORT_SYMBOL_GPL(smartio_fdid_format);
EXPORT_SYMBOL_GPL(smartio_pci_addr_parse);
EXPORT_SYMBOL_GPL(smartio_pci_addr_format);
