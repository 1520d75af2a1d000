/* SPDX-License-Identifier: MIT */
/* --pid: the regular files processes map or hold open, each inspected once. */
#ifndef PAGESTAT_PIDFILES_H
#define PAGESTAT_PIDFILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "output/sink.h"
#include "walk/source.h"

/* Like walk_run, over the files of each process in pids (in that order;
 * a file met before, in this process or an earlier one, is left out):
 * first what it maps (/proc/PID/maps), then what it holds open
 * (/proc/PID/fd).  Rows are files; the total sums them.  Of the walk's
 * configuration, quiet and probe apply. */
void pid_run(const struct walk_config *cfg, const pid_t *pids, size_t npids,
	     struct sink *sink, struct walk_result *result);

/* --cgroup: like pid_run over a cgroup's processes, but a process that
 * exits during the run (or before its files are read) is counted in
 * *exited, not reported as a failure. */
void pid_run_members(const struct walk_config *cfg, const pid_t *pids, size_t npids,
		     struct sink *sink, struct walk_result *result, uint64_t *exited);

/* What --system could not see of the processes' files. */
struct pid_unseen {
	uint64_t processes; /* whose /proc entries could not be read */
	int process_err;    /* why, for the first of them */
	uint64_t files;     /* deleted files found that could not be opened */
};

/* --system: the files deleted but still open or mapped by any process
 * (memfds too), each once: a file whose name ends in " (deleted)" and
 * that has no link left (st_nlink 0; one that has is the walk's); what
 * cannot be seen is counted in *unseen, not
 * reported as failures.  Rows are files, named as the kernel names them
 * ("/tmp/x (deleted)"). */
void pid_run_deleted(const struct walk_config *cfg, struct sink *sink,
		     struct walk_result *result, struct pid_unseen *unseen);

#endif
