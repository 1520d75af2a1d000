/* SPDX-License-Identifier: MIT */
/* The walk: tree.c over the operands, one switch on what it finds, rows out. */
#ifndef PAGESTAT_WALK_H
#define PAGESTAT_WALK_H

#include "sink.h"
#include "source.h"

void walk_run(const struct walk_config *cfg, char *const *operands,
	      struct sink *sink, struct walk_result *result);

#endif
