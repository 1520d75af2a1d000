/* SPDX-License-Identifier: MIT */
/* --warm-from: a cache snapshot (what pagestat -a -e wrote, JSON or
 * ndjson) read back, checked, and its files' extents warmed. */
#ifndef PAGESTAT_SNAPSHOT_H
#define PAGESTAT_SNAPSHOT_H

#include <stdint.h>

#include "output/sink.h"
#include "walk/source.h"

struct snapshot;

/* Reads FILE ("-": standard input) with the user's own rights and checks
 * every row before anything is warmed.  On a problem it says what (the
 * line, or the row of a JSON document) and returns NULL: a usage error.
 * page_size: this machine's; *listed: the bytes of every file's extents. */
struct snapshot *snapshot_open(const char *file, uint64_t page_size, uint64_t *listed);

/* Each file of the snapshot that is as it was (inode, size, mtime):
 * its listed extents that are missing now are read, then its row goes
 * to the sink.  A file changed or gone is skipped with a note. */
void snapshot_run(struct snapshot *snap, const struct walk_config *cfg, struct sink *sink,
		  struct walk_result *result);

/* --lock --warm-from: the bytes of every file's span, from its first
 * extent's start to its last extent's end (what --lock pins). */
uint64_t snapshot_span_bytes(const struct snapshot *snap);

void snapshot_free(struct snapshot *snap);

#endif
