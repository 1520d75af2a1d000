/* Acting on the cache (--evict, --warm, --warm-from): each file opened
 * again with the user's own rights, acted on, then measured. */
#ifndef PAGESTAT_ACTION_H
#define PAGESTAT_ACTION_H

#include <stdint.h>
#include <sys/stat.h>

#include "probe.h"

/* --rate: the bytes a warm may read per second, all threads together;
 * 0, the default, is as fast as the disk goes. */
void action_set_rate(uint64_t bytes_per_second);

/* probe_fd's part when req->action is set.  fd is the file as the
 * inspection opened it (st: its fstat).  It is opened again through
 * /proc/thread-self/fd with the user's own rights, so that a setcap
 * pagestat acts only on what its user could open without it; then the
 * action, then the state after it into out (with out->dropped or
 * out->read).  Returns 0, an errno value or a FAIL_* code: on a
 * failure, nothing was done. */
int action_fd(int fd, const struct stat *st, const struct probe_request *req,
	      struct probe_detail *detail, struct pagecache_stat *out);

/* A thread that acted frees what it kept for the next file. */
void action_thread_end(void);

#endif
