// SPDX-License-Identifier: GPL-2.0
/*
 * smartioctl version: the tool's version and the loaded core module's.
 * A mismatch means the tool and the kernel may not speak the same protocol.
 */
#include <string.h>

#include "smartio/version.h"
#include "smartioctl.h"

#define MODULE_VERSION_FILE "/sys/module/smartio/version"

/* Reads the loaded module's version; returns false when it is not loaded. */
static bool module_version(char *buf, size_t len)
{
	FILE *f = fopen(MODULE_VERSION_FILE, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

int do_version(int argc, char **argv)
{
	char kernel[64];
	bool loaded;

	if (argc > 0 && is_help(argv[0])) {
		printf("Usage: smartioctl version\n"
		       "Print the versions of smartioctl and of the loaded smartio module.\n");
		return EXIT_OK;
	}
	if (argc > 0)
		return usage_error("version takes no arguments, got \"%s\"",
				   argv[0]);

	loaded = module_version(kernel, sizeof(kernel));
	if (opts.json) {
		printf("{\"smartioctl\":");
		json_string(stdout, SMARTIO_VERSION);
		printf(",\"module\":");
		if (loaded)
			json_string(stdout, kernel);
		else
			printf("null");
		printf("}\n");
	} else {
		printf("smartioctl %s\n", SMARTIO_VERSION);
		printf("module     %s\n", loaded ? kernel : "not loaded");
	}
	return EXIT_OK;
}
