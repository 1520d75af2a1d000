/* SPDX-License-Identifier: MIT */
/* The exit statuses of pagestat (pagestat(1), EXIT STATUS): one list. */
#ifndef PAGESTAT_STATUS_H
#define PAGESTAT_STATUS_H

enum exit_status {
	STATUS_OK = 0,         /* every file inspected */
	STATUS_SOME_FAILED = 1, /* some could not be; the rest are reported */
	STATUS_USAGE = 2,      /* bad option or value: nothing inspected */
	STATUS_FATAL = 3,      /* output not written, no method, out of memory */
	STATUS_NOT_CACHED = 4, /* --expect-cached not met */
};

/* Whether the output of a run that ends so is whole, as far as it goes
 * (--output-file then replaces FILE with it). */
static inline int status_output_whole(int status)
{
	return status == STATUS_OK || status == STATUS_SOME_FAILED || status == STATUS_NOT_CACHED;
}

#endif
