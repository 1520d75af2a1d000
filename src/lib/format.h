/* SPDX-License-Identifier: MIT */
/* Numbers for people and for machines: human sizes, percentages, integers. */
#ifndef PAGESTAT_FORMAT_H
#define PAGESTAT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest output of any fmt_* function, NUL included. */
#define FMT_BUFSIZE 24

/* Longest output of fmt_human ("1023K"), and of fmt_percent of a part
 * no larger than its whole with the table's '%' ("100.0%"): the widths
 * of the table's fixed columns. */
#define FMT_HUMAN_MAX 5
#define FMT_PERCENT_MAX 6

/* Decimal digits of v; returns the length. */
size_t fmt_u64(char buf[FMT_BUFSIZE], uint64_t v);

/* IEC size as du -h and ls -h print it: below 1 KiB in bytes ("0B",
 * "512B"); else in K, M, G, T, P or E (powers of 1024), with one decimal
 * below 10 ("1.5G") and whole from 10 to 1023 ("12K", "1023K").  Rounds
 * up, and 1024 of a unit is "1.0" of the next, so it is at most five
 * characters (FMT_HUMAN_MAX).  Returns the length. */
size_t fmt_human(char buf[FMT_BUFSIZE], uint64_t bytes);

/* A rate (bytes a second, without the "/s") in fmt_human's units and
 * digits, as --rate takes them ("16M" is 16 MiB), but rounded to the
 * nearest: it is a measure, and 16 MiB/s a hair over is "16M", not
 * "17M".  Returns the length. */
size_t fmt_rate(char buf[FMT_BUFSIZE], uint64_t bytes);

/* 100 * part / whole with one decimal, truncated rather than rounded so
 * that "100.0" is printed only when every page is cached.  Returns 0 and
 * writes nothing when whole is 0 (the percentage is undefined). */
size_t fmt_percent(char buf[FMT_BUFSIZE], uint64_t part, uint64_t whole);

/* SIZE as --offset and --length take it: digits, then B (bytes), or K,
 * M, G, T, P or E alone or with iB (powers of 1024), or with B (powers of
 * 1000), each letter in either case.  False for anything else, and when
 * it does not fit in 64 bits. */
bool fmt_parse_size(const char *s, uint64_t *out);

#endif
