/* SPDX-License-Identifier: MIT */
/* What the C unit tests share: counting checks and reporting failures. */
#ifndef PAGESTAT_TESTS_UNIT_H
#define PAGESTAT_TESTS_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Counts one check; when !ok, prints "FAIL " and the message and counts
 * a failure.  Returns ok, so that a caller can skip what depends on it. */
bool unit_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* got must equal want, byte for byte. */
void unit_expect_str(const char *what, const char *got, const char *want);

/* An escaper writing to a FILE, and what it wrote to a memory stream. */
typedef void unit_writer(FILE *out, const char *s, size_t n);
void unit_expect_written(const char *what, unit_writer *fn, const char *in, size_t n,
			 const char *want);

/* The suites, one per module, in the order main() runs them. */
void unit_format(void);
void unit_escape(void);
void unit_strbuf(void);
void unit_columns(void);
void unit_aggregate(void);
void unit_rank(void);
void unit_progress(void);
void unit_browse_tree(void);
void unit_memstat(void);

#endif
