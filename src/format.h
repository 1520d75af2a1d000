/* Numbers for people and for machines: human sizes, percentages, integers. */
#ifndef PAGESTAT_FORMAT_H
#define PAGESTAT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest output of any fmt_* function, NUL included. */
#define FMT_BUFSIZE 24

/* Decimal digits of v; returns the length. */
size_t fmt_u64(char buf[FMT_BUFSIZE], uint64_t v);

/* IEC size with one decimal ("1.5G", "1023.9K"); below 1 KiB in bytes
 * ("0B", "512B").  Rounds to the nearest tenth; returns the length. */
size_t fmt_human(char buf[FMT_BUFSIZE], uint64_t bytes);

/* 100 * part / whole with one decimal, truncated rather than rounded so
 * that "100.0" is printed only when every page is cached.  Returns 0 and
 * writes nothing when whole is 0 (the percentage is undefined). */
size_t fmt_percent(char buf[FMT_BUFSIZE], uint64_t part, uint64_t whole);

/* SIZE as --offset and --length take it: digits, then K, M, G, T, P or E
 * (either case) alone or with iB (powers of 1024), or with B (powers of
 * 1000).  False for anything else, and when it does not fit in 64 bits. */
bool fmt_parse_size(const char *s, uint64_t *out);

#endif
