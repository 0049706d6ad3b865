// SPDX-License-Identifier: GPL-2.0
/*
 * What a node may lend: a function it owns, that a borrower's stock driver
 * can drive across the fabric. Everything else is refused when it is
 * added for lending, with one message and no change, rather than failing
 * later on the borrower.
 *
 * Copyright (c) 2026 smartio authors
 */

#include <linux/netlink.h>
#include <linux/pci.h>
#include <linux/virtio_config.h>
#include <linux/virtio_pci.h>

#include "smartio/ntb.h"
#include "lend_priv.h"

/* Virtio's PCI functions (the virtio specification, 4.1.2). */
#define SMARTIO_VIRTIO_VENDOR		0x1af4
#define SMARTIO_VIRTIO_DEVICE_FIRST	0x1000
#define SMARTIO_VIRTIO_DEVICE_LAST	0x107f

static bool smartio_is_virtio(const struct pci_dev *pdev)
{
	return pdev->vendor == SMARTIO_VIRTIO_VENDOR &&
	       pdev->device >= SMARTIO_VIRTIO_DEVICE_FIRST &&
	       pdev->device <= SMARTIO_VIRTIO_DEVICE_LAST;
}

/*
 * The config-space offset of @pdev's first virtio capability of @cfg_type,
 * or 0.
 */
static u8 smartio_virtio_cap(struct pci_dev *pdev, u8 cfg_type)
{
	u8 pos, type;

	for (pos = pci_find_capability(pdev, PCI_CAP_ID_VNDR); pos;
	     pos = pci_find_next_capability(pdev, pos, PCI_CAP_ID_VNDR)) {
		pci_read_config_byte(pdev, pos + offsetof(struct virtio_pci_cap,
							  cfg_type), &type);
		if (type == cfg_type)
			return pos;
	}
	return 0;
}

/*
 * Does the virtio function @pdev offer VIRTIO_F_ACCESS_PLATFORM? Without
 * it, its driver hands the device physical addresses instead of mapping
 * them through the DMA API, and a borrower's would hand a lender's device
 * addresses of the borrower's memory that mean nothing on the lender.
 * Read through the PCI configuration access capability, which reaches the
 * common configuration without mapping a BAR: a window of 4 bytes at a
 * chosen BAR and offset. Only a modern device has both capabilities; a
 * legacy one offers 32 feature bits, none of them this.
 */
static bool smartio_virtio_access_platform(struct pci_dev *pdev)
{
	u8 common = smartio_virtio_cap(pdev, VIRTIO_PCI_CAP_COMMON_CFG);
	u8 window = smartio_virtio_cap(pdev, VIRTIO_PCI_CAP_PCI_CFG);
	u32 offset, features;
	u8 bar;

	if (!common || !window)
		return false;
	pci_read_config_byte(pdev, common + offsetof(struct virtio_pci_cap,
						     bar), &bar);
	pci_read_config_dword(pdev, common + offsetof(struct virtio_pci_cap,
						      offset), &offset);
	window += offsetof(struct virtio_pci_cfg_cap, cap);
	pci_write_config_byte(pdev, window + offsetof(struct virtio_pci_cap,
						      bar), bar);
	pci_write_config_dword(pdev, window + offsetof(struct virtio_pci_cap,
						       length), 4);
	/* Select feature bits 32..63, then read them. */
	pci_write_config_dword(pdev, window + offsetof(struct virtio_pci_cap,
						       offset),
			       offset + offsetof(struct virtio_pci_common_cfg,
						 device_feature_select));
	pci_write_config_dword(pdev, window + sizeof(struct virtio_pci_cap), 1);
	pci_write_config_dword(pdev, window + offsetof(struct virtio_pci_cap,
						       offset),
			       offset + offsetof(struct virtio_pci_common_cfg,
						 device_feature));
	pci_read_config_dword(pdev, window + sizeof(struct virtio_pci_cap),
			      &features);
	return features & BIT(VIRTIO_F_ACCESS_PLATFORM - 32);
}

/**
 * smartio_lendable() - May this node lend @pdev?
 * @pdev: A PCI function of this node.
 * @extack: Where the reason for a refusal goes.
 *
 * A node lends only endpoint functions it owns (not its NTB adapters, not
 * a bridge, not the shadow of a function it borrowed), and only those a
 * borrower's driver can drive across the fabric: interrupts cross as
 * message writes, so the function needs MSI or MSI-X (INTx is a wire);
 * and a virtio function must make its driver map its buffers through the
 * DMA API (VIRTIO_F_ACCESS_PLATFORM).
 *
 * Context: Process context; @pdev is not being lent yet. Reads @pdev's
 * config space, and for virtio writes the window of its PCI configuration
 * access capability (no state of the device itself changes).
 * Return: 0, or -EINVAL with the reason in @extack.
 */
int smartio_lendable(struct pci_dev *pdev, struct netlink_ext_ack *extack)
{
	if (smartio_pci_dev_is_adapter(pdev)) {
		NL_SET_ERR_MSG(extack, "an NTB adapter of this node cannot be lent");
		return -EINVAL;
	}
	if (pdev->subordinate || pdev->hdr_type != PCI_HEADER_TYPE_NORMAL) {
		NL_SET_ERR_MSG(extack, "a bridge cannot be lent, only endpoint functions");
		return -EINVAL;
	}
	if (smartio_shadow_is(pdev)) {
		NL_SET_ERR_MSG(extack, "a borrowed function cannot be lent on: only its own node lends it");
		return -EINVAL;
	}
	if (!pdev->msi_cap && !pdev->msix_cap) {
		NL_SET_ERR_MSG(extack, "a function without MSI or MSI-X cannot be lent: its INTx interrupts do not cross an NTB");
		return -EINVAL;
	}
	if (smartio_is_virtio(pdev) && !smartio_virtio_access_platform(pdev)) {
		NL_SET_ERR_MSG(extack, "a virtio function without VIRTIO_F_ACCESS_PLATFORM (iommu_platform) cannot be lent: its driver would bypass the DMA API");
		return -EINVAL;
	}
	return 0;
}
