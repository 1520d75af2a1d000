/* SPDX-License-Identifier: MIT */
/* What an inspection tells: rows to the sink, failures on stderr too, counted. */
#ifndef PAGESTAT_REPORT_H
#define PAGESTAT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "output/columns.h"
#include "kernel/probe.h"
#include "output/sink.h"

/* Shared by the walk (walk.c) and --pid (pidfiles.c). */
struct report {
	struct sink *sink;
	bool quiet;         /* -q: failures are counted and get rows, untold */
	uint64_t errors;    /* files and directories that could not be inspected */
	uint64_t refused;   /* of which refused by the kernel's owner rule */
	bool output_failed; /* the sink could not write: the inspection stops */
	bool told_overlay;  /* the note on unresolved overlay files is said once */
	bool limit_identity; /* walk_config's: see report_limit_identity */
};

/* What a user learns of a file they could not stat is its name and cache
 * state (PRIVILEGES in pagestat(1)): with rep->limit_identity, the
 * inode, size and mtime of a row are shown only when this is true: path
 * (as named, or found below what was named; followed if follow),
 * stat()ed with the user's own rights, is the file measured (dev, ino). */
bool report_user_sees(const struct report *rep, dev_t dev, uint64_t ino, const char *path,
		      bool follow);

/* The same question asked whatever rep->limit_identity: could the user
 * stat path themselves, and is it the file (dev, ino)?  A setcap
 * pagestat tells two names of one file apart only then. */
bool report_user_stats(dev_t dev, uint64_t ino, const char *path, bool follow);

/* "pagestat: WHAT 'PATH'" (WHAT may be empty), the path terminal-safe;
 * msg_more() says the rest. */
void report_say(const char *what, const char *path, size_t len);

/* A file's or a directory's row; detail (or NULL) holds a file's
 * segments and extents. */
void report_row(struct report *rep, const char *path, size_t len, enum row_type type,
		const struct pagecache_stat *stat, uint64_t files,
		const struct probe_detail *detail);

/* A directory's row (or a file system's: type), from its subtotal. */
void report_sum_row(struct report *rep, const char *path, size_t len, enum row_type type,
		    uint64_t files, uint64_t failed, const struct pagecache_stat *stat);

/* A file measured (before it is added up): the progress meter, and the
 * note on overlay files measured through the overlay, said once. */
void report_measured(struct report *rep, const char *path, size_t len,
		     const struct pagecache_stat *stat);

/* "pagestat: WHAT 'PATH': ERROR", unless -q or it is a refusal past the
 * first few (those are summed up by report_end); after the first
 * refusal, its remedy.  True when told, so that a note may follow. */
bool report_tell(struct report *rep, const char *what, const char *path, size_t len, int err);

/* A failure counted, and its row (JSON lists every one). */
void report_error(struct report *rep, const char *path, size_t len, enum row_type type,
		  int err);

/* After the inspection: the refusals that were not named. */
void report_end(const struct report *rep);

#endif
