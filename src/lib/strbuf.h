/* SPDX-License-Identifier: MIT */
/* A growable byte buffer: sinks build a row in it, then write it at once. */
#ifndef PAGESTAT_STRBUF_H
#define PAGESTAT_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/format.h"

struct strbuf {
	char *data;
	size_t len, cap;
};

/* Makes room for at least need more bytes. */
void sb_grow(struct strbuf *sb, size_t need);

void sb_free(struct strbuf *sb);

/* Writes what the buffer holds to out and empties it; false on error. */
bool sb_write(struct strbuf *sb, FILE *out);

static inline void sb_reserve(struct strbuf *sb, size_t need)
{
	if (sb->cap - sb->len < need)
		sb_grow(sb, need);
}

static inline void sb_putc(struct strbuf *sb, char c)
{
	sb_reserve(sb, 1);
	sb->data[sb->len++] = c;
}

static inline void sb_put(struct strbuf *sb, const void *s, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
}

static inline void sb_puts(struct strbuf *sb, const char *s)
{
	sb_put(sb, s, strlen(s));
}

static inline void sb_u64(struct strbuf *sb, uint64_t v)
{
	sb_reserve(sb, FMT_BUFSIZE);
	sb->len += fmt_u64(sb->data + sb->len, v);
}

#endif
