/* SPDX-License-Identifier: MIT */
/* One file inspected: opened (safe_open), acted on when an action is
 * asked (action.c), then measured (probe.c).  What the walk, the workers,
 * --pid, --warm-from and --system call for each file. */
#ifndef PAGESTAT_INSPECT_H
#define PAGESTAT_INSPECT_H

#include <stdbool.h>
#include <sys/stat.h>

#include "act/action.h"
#include "kernel/probe.h"
#include "kernel/safeopen.h"

/* One thread's inspecting: its prober and its actor.  Made and freed by
 * the thread's owner; every field is that thread's. */
struct inspector {
	struct prober prober;
	struct actor actor;
};

/* setup and limit (NULL: no --rate) are the run's, shared by every
 * thread's inspector. */
void inspector_init(struct inspector *ins, const struct probe_setup *setup,
		    struct rate_limit *limit);
/* Another thread's inspector, for the same run as model's. */
void inspector_init_like(struct inspector *ins, const struct inspector *model);
void inspector_free(struct inspector *ins);

/* Opens ref (safe_open), and inspects it by req into out.  When the name
 * could not be opened and ref->id was not known, ref->id is filled in
 * from a stat of the name where that works, so that the walk can tell a
 * file it met before; still unknown, the name could not be stat()ed, and
 * the error is the stat's.  Returns 0, an errno value or a FAIL_* code. */
int inspect_at(struct inspector *ins, struct file_ref *ref, const struct file_request *req,
	       struct probe_out *out);

/* The same for an open regular file or block device (st: its fstat). */
int inspect_fd(struct inspector *ins, int fd, const struct stat *st,
	       const struct file_request *req, struct probe_out *out);

/* How a failure of req is told: "cannot inspect", or the action's
 * "cannot evict", "cannot warm". */
const char *inspect_failure_what(const struct file_request *req);

/* The counters the method of ins knows (PCS_*), and its page size. */
unsigned inspect_known(const struct inspector *ins);
uint64_t inspect_page_size(const struct inspector *ins);

#endif
