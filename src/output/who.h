/* SPDX-License-Identifier: MIT */
/* The traced columns that name processes and files, as one line of text
 * for the table and CSV (JSON lists them whole): apart from columns.c so
 * that the table of columns stands alone, without the trace tally. */
#ifndef PAGESTAT_WHO_H
#define PAGESTAT_WHO_H

#include <stddef.h>

#include "output/columns.h"
#include "output/row.h"

/* A KIND_WHO column as the table and CSV show it: the first process,
 * "COMMAND[PID]", and "+N" for the N others; its length (0: none). */
size_t column_who_text(enum column_id id, const struct row *row, char *buf, size_t size);

/* KIND_FILES as the table and CSV show it: the first file, "+N" for the
 * N others; its length (0: none). */
size_t column_files_text(const struct row *row, char *buf, size_t size);

#endif
