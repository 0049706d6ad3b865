// SPDX-License-Identifier: GPL-2.0
/*
 * PCI address ("[DDDD:]BB:DD.F") parsing and formatting.
 *
 * Pure logic: no kernel headers, built both into the kernel module and into
 * the userspace unit tests.
 */
#include <smartio/compat.h>
#include <smartio/hex.h>
#include <smartio/pci_addr.h>

#define SMARTIO_PCI_DOMAIN_MAX_DIGITS	8
#define SMARTIO_PCI_DOMAIN_MIN_DIGITS	4
#define SMARTIO_PCI_BUS_DIGITS		2
#define SMARTIO_PCI_DEV_DIGITS		2
#define SMARTIO_PCI_FN_DIGITS		1

/**
 * smartio_pci_addr_parse() - Parse a PCI function address.
 * @s: NUL-terminated string "[DDDD:]BB:DD.F" in hex (either case): an
 *	optional domain of 1 to 8 digits (0 if omitted), a bus of exactly 2
 *	digits, a device of exactly 2 digits (at most 0x1f) and a function
 *	of exactly 1 digit (at most 7).  No whitespace, sign or "0x" prefix
 *	is accepted.
 * @out: Receives the parsed address on success; left untouched on error.
 *
 * The whole string is checked for syntax before any range check, so
 * malformed input always yields -EINVAL.
 *
 * Return: 0 on success, -EINVAL if @s or @out is NULL or @s is malformed,
 * -ERANGE if the domain has more than 8 digits, the device is above 0x1f
 * or the function is above 7.
 */
int smartio_pci_addr_parse(const char *s, struct smartio_pci_addr *out)
{
	u32 f[4], domain = 0, bus, dev, fn;
	size_t n[4], dom_n = 0, bus_n, dev_n, fn_n;
	unsigned int i = 0;
	const char *p;

	if (!s || !out)
		return -EINVAL;

	/* Split into up to four hex runs: "A:B.F" or "A:B:C.F". */
	p = s;
	n[i] = smartio_hex_scan(p, &f[i]);
	p += n[i++];
	if (*p++ != ':')
		return -EINVAL;
	n[i] = smartio_hex_scan(p, &f[i]);
	p += n[i++];
	if (*p == ':') {
		p++;
		n[i] = smartio_hex_scan(p, &f[i]);
		p += n[i++];
	}
	if (*p++ != '.')
		return -EINVAL;
	n[i] = smartio_hex_scan(p, &f[i]);
	p += n[i];
	if (*p != '\0')
		return -EINVAL;

	if (i == 3) {
		domain = f[0];
		dom_n = n[0];
		if (dom_n == 0)
			return -EINVAL;
	}
	bus = f[i - 2];
	bus_n = n[i - 2];
	dev = f[i - 1];
	dev_n = n[i - 1];
	fn = f[i];
	fn_n = n[i];

	if (bus_n != SMARTIO_PCI_BUS_DIGITS ||
	    dev_n != SMARTIO_PCI_DEV_DIGITS ||
	    fn_n != SMARTIO_PCI_FN_DIGITS)
		return -EINVAL;

	if (dom_n > SMARTIO_PCI_DOMAIN_MAX_DIGITS ||
	    dev > SMARTIO_PCI_DEV_MAX || fn > SMARTIO_PCI_FN_MAX)
		return -ERANGE;

	out->domain = domain;
	out->bus = (u8)bus;
	out->dev = (u8)dev;
	out->fn = (u8)fn;
	return 0;
}
EXPORT_SYMBOL_GPL(smartio_pci_addr_parse);

/**
 * smartio_pci_addr_format() - Format a PCI function address.
 * @a: Address to format.
 * @buf: Destination buffer.
 * @len: Size of @buf in bytes; SMARTIO_PCI_ADDR_STR_MAX is always enough.
 *
 * Produces the same text as "%04x:%02x:%02x.%x": the domain has at least
 * 4 digits and more when needed (e.g. "10000:00:00.0").  When @len > 0,
 * @buf is always NUL-terminated; on error it holds "".
 *
 * Return: Number of characters written, excluding the NUL, -ENOSPC if @buf
 * is too small, or -EINVAL if @a is NULL, @buf is NULL while @len is not 0,
 * or @a has a device above 0x1f or a function above 7.
 */
int smartio_pci_addr_format(const struct smartio_pci_addr *a, char *buf,
			    size_t len)
{
	size_t dom_n, total, pos = 0;

	if (!buf && len)
		return -EINVAL;
	if (len)
		buf[0] = '\0';
	if (!a || a->dev > SMARTIO_PCI_DEV_MAX || a->fn > SMARTIO_PCI_FN_MAX)
		return -EINVAL;

	dom_n = smartio_hex_len(a->domain, SMARTIO_PCI_DOMAIN_MIN_DIGITS);
	total = dom_n + 1 + SMARTIO_PCI_BUS_DIGITS + 1 +
		SMARTIO_PCI_DEV_DIGITS + 1 + SMARTIO_PCI_FN_DIGITS;
	if (len < total + 1)
		return -ENOSPC;

	pos += smartio_hex_put(buf + pos, a->domain, dom_n);
	buf[pos++] = ':';
	pos += smartio_hex_put(buf + pos, a->bus, SMARTIO_PCI_BUS_DIGITS);
	buf[pos++] = ':';
	pos += smartio_hex_put(buf + pos, a->dev, SMARTIO_PCI_DEV_DIGITS);
	buf[pos++] = '.';
	pos += smartio_hex_put(buf + pos, a->fn, SMARTIO_PCI_FN_DIGITS);
	buf[pos] = '\0';
	return (int)pos;
}
EXPORT_SYMBOL_GPL(smartio_pci_addr_format);
