/* SPDX-License-Identifier: MIT */
/* The run the options ask for: one inspection, or -i's samples, and the
 * exit status they make. */
#ifndef PAGESTAT_RUN_H
#define PAGESTAT_RUN_H

#include "options.h"

/* Chooses the method, inspects (to stdout or --output-file), and says
 * why a status 4 had nothing to judge.  Returns the exit status. */
int run_inspection(const struct options *opts);

#endif
