/* SPDX-License-Identifier: MIT */
/* A growable byte buffer: sinks build a row in it, then write it at once. */
#include <config.h>

#include "lib/strbuf.h"

#include <stdlib.h>

#include "lib/xalloc.h"

void sb_grow(struct strbuf *sb, size_t need)
{
	size_t total;
	if (__builtin_add_overflow(sb->len, need, &total))
		total = SIZE_MAX; /* no such room: xgrow says so */
	XGROW(sb->data, sb->cap, total);
}

void sb_free(struct strbuf *sb)
{
	free(sb->data);
	*sb = (struct strbuf){ 0 };
}

bool sb_write(struct strbuf *sb, FILE *out)
{
	if (sb->len == 0) /* data may still be NULL (base64 of nothing) */
		return true;
	bool ok = fwrite_unlocked(sb->data, 1, sb->len, out) == sb->len;
	sb->len = 0;
	return ok;
}
