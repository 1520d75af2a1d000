/* SPDX-License-Identifier: MIT */
/* Escaping of names for JSON, CSV, Prometheus and terminals; base64 for exact bytes. */
#ifndef PAGESTAT_ESCAPE_H
#define PAGESTAT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/strbuf.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when s does not
 * start one (bad lead byte, truncated, overlong, surrogate, > U+10FFFF). */
size_t esc_utf8_length(const unsigned char *s, size_t n);

/* A JSON string literal, quotes included.  Bytes that are not valid UTF-8
 * become U+FFFD, one per byte, so the output is always valid JSON.
 * Returns false when there were such bytes (the string was repaired). */
bool esc_json_string(FILE *out, const char *s, size_t n);
bool esc_json_sb(struct strbuf *sb, const char *s, size_t n);

/* A Prometheus label value (text format 0.0.4) without its quotes:
 * backslash, double quote and line feed escaped, the rest as is; bytes
 * that are not valid UTF-8 become U+FFFD, one per byte, since the format
 * is UTF-8.  Returns false when there were such bytes (the value was
 * repaired). */
bool esc_prom_label(FILE *out, const char *s, size_t n);

/* RFC 4648 base64 of s[0..n), with padding. */
void esc_base64(FILE *out, const char *s, size_t n);
void esc_base64_sb(struct strbuf *sb, const char *s, size_t n);

/* An RFC 4180 field: quoted (quotes doubled) when it holds a comma, a
 * quote, CR or LF, or starts or ends with a space; else as is. */
void esc_csv_field(FILE *out, const char *s, size_t n);

/* A name safe to show on a terminal: controls, backslash, invalid UTF-8
 * (and, when utf8 is false, every non-ASCII byte) become backslash
 * escapes (\n, \t, \\, \xHH, \u{HHHH} for C1, bidi and line-separator
 * characters).  Writes at most cap-1 bytes and a NUL; returns the length
 * the whole escape needs, like snprintf. */
size_t esc_terminal(char *dst, size_t cap, const char *s, size_t n, bool utf8);

/* esc_terminal() of s[0..n), written to out. */
void esc_put_terminal(FILE *out, const char *s, size_t n, bool utf8);

/* Whether the locale's character set (LC_CTYPE) is UTF-8. */
bool esc_locale_is_utf8(void);

/* The columns a terminal gives s, a string esc_terminal wrote: its length
 * when it is ASCII (no locale is read); else the sum of each character's
 * wcwidth(3) in the locale's character set (0 for a combining or
 * zero-width character, 2 for a wide one), 1 for a character wcwidth
 * does not know and for a byte the character set does not take. */
size_t esc_display_width(const char *s);

/* What esc_terminal needs of the locale for s: only a name with a byte
 * that is not ASCII asks it (an ASCII name is escaped alike in every
 * locale), so a run that shows only such names reads no locale file. */
bool esc_locale_utf8_for(const char *s, size_t n);

#endif
