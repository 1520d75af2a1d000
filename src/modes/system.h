/* SPDX-License-Identifier: MIT */
/* --system: every mounted file system that holds file pages, each once;
 * the files deleted but still open, summed in a row of their own; the
 * block devices' buffer cache. */
#ifndef PAGESTAT_SYSTEM_H
#define PAGESTAT_SYSTEM_H

#include "output/sink.h"
#include "walk/source.h"

struct system;

/* Walks what --system covers (cfg as the options make it; the walk of
 * each file system adds -a and -x itself).  Rows: the files, then one
 * per file system (type filesystem; one not walked says why in its
 * note), one more of that type, "(deleted and memfd files)", that sums
 * the files no mount point leads to, and the block devices: these add
 * up to the total.  The kernel's own figures are read at the end into
 * *figures.  What it returns holds what the rows point to (the file
 * systems' types), until system_free. */
struct system *system_run(const struct walk_config *cfg, struct sink *sink,
			  struct walk_result *result, struct system_figures *figures);

/* What the walk of one of sys's file systems adds to cfg (-a, -x, no
 * symbolic link followed, the other mount points pruned): --browse walks
 * a directory of one again with it. */
void system_walk_config(const struct system *sys, struct walk_config *cfg);

/* The path of the row that sums the files no mount point leads to. */
extern const char system_deleted_row[];

void system_free(struct system *sys);

#endif
