/* SPDX-License-Identifier: MIT */
/* --browse: the full-screen interface over an inspection's rows. */
#ifndef PAGESTAT_BROWSE_H
#define PAGESTAT_BROWSE_H

#include <sys/types.h>

#include "source.h"

/* Walks the operands (or the files of the npids processes of --pid) as cfg says (every file a row), then lets the user
 * explore, refresh and act on the tree on the terminal; returns an exit
 * status (STATUS_USAGE when standard output is not a terminal, or when
 * pagestat was built without ncursesw). */
int browse_run(const struct walk_config *cfg, char *const *operands, const pid_t *pids,
	       size_t npids);

#endif
