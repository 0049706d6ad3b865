// SPDX-License-Identifier: GPL-2.0
/*
 * Runs all smartio unit test suites.  Every test prints one line
 * "file:line:P|F|E:tcase:test:iteration: message"; the exit status is
 * non-zero if any test failed or errored.
 */
#include <stdlib.h>

#include "unit.h"

int main(void)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(fdid_suite());
	srunner_add_suite(sr, pci_addr_suite());
	srunner_add_suite(sr, window_suite());
	srunner_add_suite(sr, msg_suite());
	srunner_add_suite(sr, ring_suite());
	srunner_add_suite(sr, pci_config_suite());
	srunner_add_suite(sr, args_suite());

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
