/* SPDX-License-Identifier: MIT */
/* --browse in a build without ncursesw: it says so. */
#include <config.h>

#include "tui/browse.h"

#include "lib/msg.h"
#include "lib/status.h"

int browse_run(const struct walk_config *cfg, const struct browse_source *src)
{
	(void)cfg;
	(void)src;
	msg("--browse: this pagestat was built without ncursesw (Debian: libncurses-dev, "
	    "then configure again)\n");
	return STATUS_USAGE;
}
