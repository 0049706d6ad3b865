/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace unit tests (Check) for the smartio pure-logic code in lib/
 * and smartioctl's pure helpers in tools/.
 * Every suite is declared here and added to the runner in unit_main.c.
 */
#ifndef _SMARTIO_TESTS_UNIT_H
#define _SMARTIO_TESTS_UNIT_H

#include <check.h>

Suite *fdid_suite(void);
Suite *pci_addr_suite(void);
Suite *window_suite(void);
Suite *msg_suite(void);
Suite *ring_suite(void);
Suite *pci_config_suite(void);
Suite *args_suite(void);

#endif /* _SMARTIO_TESTS_UNIT_H */
