/* SPDX-License-Identifier: MIT */
/* --trace's kernel side: a private trace instance of the filemap and
 * vmscan tracepoints, read through libtracefs and libtraceevent (opened
 * with dlopen by the runs that trace, never linked). */
#ifndef PAGESTAT_TRACEFS_H
#define PAGESTAT_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum trace_kind {
	TEV_ADD,           /* a folio added to a file's page cache */
	TEV_DELETE,        /* a folio removed from it */
	TEV_RECLAIM_BEGIN, /* the task entered reclaim (direct, a cgroup's, a node's) */
	TEV_RECLAIM_END,   /* and left it */
	TEV_EXIT,          /* a task exited: its command, while it is known */
};

/* One event, decoded.  dev is the file system's, as stat(2) gives it. */
struct trace_event {
	enum trace_kind kind;
	pid_t pid; /* the task (thread) in whose context it happened */
	dev_t dev;
	uint64_t ino, index; /* the folio's first page */
	unsigned order;      /* the folio has 1 << order pages */
	char comm[16];       /* TEV_EXIT: the task's command */
};

struct trace_config {
	const char *filter;  /* the filemap events' filter ("s_dev == 1048577"), or NULL */
	uint64_t buffer_kib; /* each CPU's buffer */
};

struct trace_session;

/* Is --trace built (libtracefs and libtraceevent found by configure)? */
bool trace_built(void);

/* The kernel dev_t encoding the tracepoints' s_dev carries, of a dev. */
uint64_t trace_kernel_dev(dev_t dev);

/* Loads the libraries, removes the instances of pagestat processes that
 * are gone, makes this process's instance ("pagestat-PID") with the
 * events enabled and starts tracing, all with the user's rights.  NULL
 * with why (what failed and the remedy, why_size bytes) otherwise; no
 * instance is left behind.  *stale: instances of dead runs removed. */
struct trace_session *trace_open(const struct trace_config *cfg, unsigned *stale, char *why,
				 size_t why_size);

/* Every event buffered so far, oldest first (all CPUs merged), to fn;
 * false when the buffers could not be read (errno). */
bool trace_read(struct trace_session *s, void (*fn)(void *ctx, const struct trace_event *ev),
		void *ctx);

/* Events the kernel could not keep (its buffers full), all CPUs. */
uint64_t trace_lost(struct trace_session *s);

/* Tracing stopped, the instance removed, everything freed (NULL: nothing). */
void trace_close(struct trace_session *s);

#endif
