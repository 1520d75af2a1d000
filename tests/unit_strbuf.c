/* SPDX-License-Identifier: MIT */
/* Unit tests of strbuf.c: appending, growing, writing out and failing to. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/strbuf.h"
#include "unit.h"

/* The buffer holds exactly want (not NUL-terminated in the buffer). */
static void expect_held(const char *what, const struct strbuf *sb, const char *want)
{
	size_t n = strlen(want);

	unit_check(sb->len == n && sb->len <= sb->cap && (n == 0 || memcmp(sb->data, want, n) == 0),
		   "%s: holds \"%.*s\" (%zu bytes), want \"%s\"", what, (int)sb->len,
		   sb->data ? sb->data : "", sb->len, want);
}

static void test_append(void)
{
	struct strbuf sb = { 0 };

	sb_putc(&sb, 'a');
	sb_puts(&sb, "bc");
	sb_put(&sb, "d\0e", 3);
	sb_u64(&sb, 0);
	sb_u64(&sb, UINT64_MAX);
	unit_check(sb.len == 27 && memcmp(sb.data, "abcd\0e018446744073709551615", 27) == 0,
		   "sb_putc, sb_puts, sb_put (a NUL inside), sb_u64: %zu bytes", sb.len);
	/* the escapers append to what is there, never overwrite it */
	sb.len = 0;
	sb_puts(&sb, "k=");
	unit_check(!esc_json_sb(&sb, "\xff", 1), "esc_json_sb must report a repaired string");
	sb_putc(&sb, ' ');
	esc_base64_sb(&sb, "fo", 2);
	expect_held("escapers append", &sb, "k=\"\xef\xbf\xbd\" Zm8=");
	sb_free(&sb);
	unit_check(sb.data == NULL && sb.len == 0 && sb.cap == 0, "sb_free leaves an empty buffer");
}

/* Past the first allocation, by one byte and by a lot: nothing lost. */
static void test_grow(void)
{
	struct strbuf sb = { 0 };
	char want[5000];

	for (size_t i = 0; i < sizeof want - 1; i++) {
		want[i] = (char)('a' + i % 26);
		sb_putc(&sb, want[i]);
	}
	want[sizeof want - 1] = '\0';
	expect_held("4999 single bytes", &sb, want);
	sb.len = 0;
	sb_put(&sb, want, 255);
	sb_put(&sb, want + 255, sizeof want - 1 - 255);
	expect_held("one large append", &sb, want);
	sb_grow(&sb, 100000);
	unit_check(sb.cap - sb.len >= 100000, "sb_grow(100000): room for %zu", sb.cap - sb.len);
	expect_held("sb_grow keeps the contents", &sb, want);
	sb_free(&sb);
}

static void test_write(void)
{
	struct strbuf sb = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!unit_check(out != NULL, "open_memstream failed"))
		return;
	unit_check(sb_write(&sb, out), "sb_write of a buffer never used");
	sb_puts(&sb, "one ");
	unit_check(sb_write(&sb, out) && sb.len == 0, "sb_write empties the buffer");
	sb_puts(&sb, "two");
	unit_check(sb_write(&sb, out), "sb_write again");
	fclose(out);
	unit_expect_str("sb_write, twice", text, "one two");
	free(text);

	/* unbuffered, so the write itself meets ENOSPC */
	FILE *full = fopen("/dev/full", "w");
	if (unit_check(full != NULL, "cannot open /dev/full")) {
		setvbuf(full, NULL, _IONBF, 0);
		sb_puts(&sb, "lost");
		unit_check(!sb_write(&sb, full), "sb_write to /dev/full must fail");
		unit_check(sb.len == 0, "sb_write empties the buffer even when it fails");
		fclose(full);
	}
	sb_free(&sb);
}

void unit_strbuf(void)
{
	test_append();
	test_grow();
	test_write();
}
