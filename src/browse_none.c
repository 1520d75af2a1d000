/* SPDX-License-Identifier: MIT */
/* --browse in a build without ncursesw: it says so. */
#include <config.h>

#include "browse.h"

#include "msg.h"
#include "status.h"

int browse_run(const struct walk_config *cfg, char *const *operands, const pid_t *pids,
	       size_t npids)
{
	(void)cfg;
	(void)operands;
	(void)pids;
	(void)npids;
	msg("--browse: this pagestat was built without ncursesw (Debian: libncurses-dev, "
	    "then configure again)\n");
	return STATUS_USAGE;
}
