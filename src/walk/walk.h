/* SPDX-License-Identifier: MIT */
/* The walk: tree.c over the operands, one switch on what it finds, rows out. */
#ifndef PAGESTAT_WALK_H
#define PAGESTAT_WALK_H

#include <stdbool.h>

#include "output/sink.h"
#include "walk/source.h"

/* An operand names a process's /proc entry (a path beginning with
 * /proc/): reading another process's, as --pid does, needs CAP_SYS_PTRACE
 * where it is held, which caps_drop then keeps. */
bool walk_reads_processes(char *const *operands);

void walk_run(const struct walk_config *cfg, char *const *operands,
	      struct sink *sink, struct walk_result *result);

#endif
