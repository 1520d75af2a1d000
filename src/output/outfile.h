/* SPDX-License-Identifier: MIT */
/* --output-file: the output goes to a temporary file beside FILE and is
 * renamed over FILE only once complete, so a reader never sees half. */
#ifndef PAGESTAT_OUTFILE_H
#define PAGESTAT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/* Can FILE be written?  False with *expected set (for the usage message)
 * when it is empty, names a directory or something else than a regular
 * file, or its directory does not exist.  Creates nothing. */
bool outfile_check(const char *path, const char **expected);

/* Creates .NAME.XXXXXX in FILE's directory; NULL (having said why on
 * stderr) when it cannot.  Until outfile_close, a fatal signal removes it. */
FILE *outfile_open(const char *path);

/* Ends the output: with status 0 or 1 (the output is complete as far as
 * it goes), flushes, fsyncs, sets mode 0644 less the umask and renames it
 * over FILE; with any other status, or when that fails (said on stderr),
 * removes the temporary file.  Returns the status, 3 (STATUS_FATAL) on failure. */
int outfile_close(FILE *out, int status);

#endif
