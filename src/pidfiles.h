/* --pid: the regular files processes map or hold open, each inspected once. */
#ifndef PAGESTAT_PIDFILES_H
#define PAGESTAT_PIDFILES_H

#include <stddef.h>
#include <sys/types.h>

#include "sink.h"
#include "walk.h"

/* Like walk_run, over the files of each process in pids (in that order;
 * a file met before, in this process or an earlier one, is left out):
 * first what it maps (/proc/PID/maps), then what it holds open
 * (/proc/PID/fd).  Rows are files; the total sums them.  Of the walk's
 * configuration, quiet and probe apply. */
void pid_run(const struct walk_config *cfg, const pid_t *pids, size_t npids,
	     struct sink *sink, struct walk_result *result);

#endif
