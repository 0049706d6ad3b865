/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test tools that hold a mapping until it is torn down under them
 * (smartio-seg hold, smartio-vfio hold) end the same way: at the SIGBUS
 * a touch then gets, they print "SIGBUS" and exit 0.
 */
#ifndef _SMARTIO_TEST_SIGBUS_H
#define _SMARTIO_TEST_SIGBUS_H

#include <signal.h>
#include <unistd.h>

static void sigbus_exit(int sig)
{
	static const char msg[] = "SIGBUS\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(0);
}

/* From now on, a SIGBUS ends the process as above. */
static inline void sigbus_exits(void)
{
	signal(SIGBUS, sigbus_exit);
}

#endif /* _SMARTIO_TEST_SIGBUS_H */
