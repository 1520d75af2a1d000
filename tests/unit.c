/* Unit tests of the pure functions: size and percent formatting, escaping,
 * the values of the columns. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "escape.h"
#include "format.h"

static int failures;
static int checks;

static void expect_str(const char *what, const char *got, const char *want)
{
	checks++;
	if (strcmp(got, want) != 0) {
		failures++;
		fprintf(stderr, "FAIL %s: got \"%s\", want \"%s\"\n", what, got, want);
	}
}

static void test_human(void)
{
	/* Each as GNU ls -lh and du -h --apparent-size (coreutils 9.1) print
	 * the size of a file truncated to it, with "B" where they print none. */
	static const struct {
		uint64_t bytes;
		const char *want;
	} cases[] = {
		{ 0, "0B" },
		{ 1, "1B" },
		{ 512, "512B" },
		{ 1023, "1023B" },
		{ 1024, "1.0K" },
		{ 1025, "1.1K" },                 /* rounded up, never down */
		{ 1536, "1.5K" },
		{ 2047, "2.0K" },
		{ 10137, "9.9K" },                /* 9.899K */
		{ 10138, "10K" },                 /* 9.9003K: 10.0, so whole */
		{ 10239, "10K" },
		{ 10240, "10K" },
		{ 10241, "11K" },
		{ 11265, "12K" },
		{ 1022977, "1000K" },             /* 999.001K */
		{ 1047552, "1023K" },
		{ 1047553, "1.0M" },              /* 1023.001K: 1024K is 1.0M */
		{ 1048575, "1.0M" },
		{ 1048576, "1.0M" },
		{ 1048577, "1.1M" },
		{ 10485759, "10M" },
		{ 10485760, "10M" },
		{ 10485761, "11M" },
		{ UINT64_C(3) << 29, "1.5G" },
		{ (UINT64_C(1) << 30) - 1, "1.0G" },
		{ (UINT64_C(1) << 30) + 1, "1.1G" },
		{ (UINT64_C(1) << 40) - 1, "1.0T" },
		{ UINT64_C(10) << 40, "10T" },
		{ (UINT64_C(10) << 50) + 1, "11P" },
		{ UINT64_C(1023) << 50, "1023P" },
		{ (UINT64_C(1023) << 50) + 1, "1.0E" },
		{ UINT64_C(1) << 60, "1.0E" },
		{ (UINT64_C(1) << 60) + 1, "1.1E" },
		{ INT64_MAX, "8.0E" },
		{ UINT64_MAX, "16E" },            /* beyond any file: no ls to ask */
	};
	char buf[FMT_BUFSIZE];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char what[64];
		snprintf(what, sizeof what, "fmt_human(%llu)", (unsigned long long)cases[i].bytes);
		size_t n = fmt_human(buf, cases[i].bytes);
		expect_str(what, buf, cases[i].want);
		checks++;
		if (n != strlen(buf) || n > FMT_HUMAN_MAX) {
			failures++;
			fprintf(stderr, "FAIL %s: length %zu\n", what, n);
		}
	}
}

static void test_percent(void)
{
	char buf[FMT_BUFSIZE];

	checks++;
	if (fmt_percent(buf, 0, 0) != 0) {
		failures++;
		fputs("FAIL fmt_percent(0, 0) must be undefined\n", stderr);
	}
	fmt_percent(buf, 1, 3);
	expect_str("fmt_percent(1, 3)", buf, "33.3");
	fmt_percent(buf, 2, 3);
	expect_str("fmt_percent(2, 3) truncates", buf, "66.6");
	fmt_percent(buf, 9999, 10000);
	expect_str("fmt_percent(9999, 10000) is not 100", buf, "99.9");
	fmt_percent(buf, 7, 7);
	expect_str("fmt_percent(7, 7)", buf, "100.0");
	fmt_percent(buf, 0, 7);
	expect_str("fmt_percent(0, 7)", buf, "0.0");
	fmt_percent(buf, UINT64_C(1) << 62, UINT64_C(1) << 63);
	expect_str("fmt_percent(huge)", buf, "50.0");
	fmt_u64(buf, UINT64_MAX);
	expect_str("fmt_u64(max)", buf, "18446744073709551615");
}

static void test_parse_size(void)
{
	static const struct {
		const char *in;
		bool ok;
		uint64_t want;
	} cases[] = {
		{ "0", true, 0 },
		{ "4096", true, 4096 },
		{ "1K", true, 1024 },
		{ "1k", true, 1024 },
		{ "1KiB", true, 1024 },
		{ "1KB", true, 1000 },
		{ "1kB", true, 1000 },
		{ "3M", true, UINT64_C(3) << 20 },
		{ "2GiB", true, UINT64_C(2) << 30 },
		{ "10GB", true, UINT64_C(10000000000) },
		{ "2T", true, UINT64_C(2) << 40 },
		{ "1P", true, UINT64_C(1) << 50 },
		{ "15E", true, UINT64_C(15) << 60 },
		{ "18EB", true, UINT64_C(18000000000000000000) },
		{ "18446744073709551615", true, UINT64_MAX },
		{ "18446744073709551616", false, 0 }, /* 2^64 */
		{ "16E", false, 0 },                  /* 2^64 */
		{ "19EB", false, 0 },
		{ "99999999999999999999999", false, 0 },
		{ "", false, 0 },
		{ "-1", false, 0 },
		{ "+1", false, 0 },
		{ " 1", false, 0 },
		{ "1 ", false, 0 },
		{ "1.5M", false, 0 },
		{ "0x10", false, 0 },
		{ "1X", false, 0 },
		{ "K", false, 0 },
		{ "1KiBB", false, 0 },
		{ "1Kib", false, 0 },
		{ "1B", false, 0 },
		{ "1\x80", false, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t got = 12345;
		bool ok = fmt_parse_size(cases[i].in, &got);
		checks++;
		if (ok != cases[i].ok || (ok && got != cases[i].want)) {
			failures++;
			fprintf(stderr, "FAIL fmt_parse_size(\"%s\"): %s %llu, want %s %llu\n",
				cases[i].in, ok ? "ok" : "refused", (unsigned long long)got,
				cases[i].ok ? "ok" : "refused", (unsigned long long)cases[i].want);
		}
	}
}

typedef void escaper(FILE *, const char *, size_t);

/* Runs an escaper that writes to a FILE and returns what it wrote. */
static char *capture(escaper *fn, const char *s, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	fn(f, s, n);
	fclose(f);
	return text;
}

static void expect_escaper(const char *what, escaper *fn, const char *in, size_t n,
			   const char *want)
{
	char *got = capture(fn, in, n);
	expect_str(what, got, want);
	free(got);
}

/* esc_json_string also says whether it had to repair the string. */
static bool json_valid;

static void json_string(FILE *out, const char *s, size_t n)
{
	json_valid = esc_json_string(out, s, n);
}

static void test_json(void)
{
	expect_escaper("json plain", json_string, "a/b", 3, "\"a/b\"");
	expect_escaper("json quote and backslash", json_string, "\"\\", 2, "\"\\\"\\\\\"");
	expect_escaper("json controls", json_string, "\n\t\x01\x7f", 4,
		       "\"\\n\\t\\u0001\\u007f\"");
	expect_escaper("json utf8 passes", json_string, "\xc3\xa9", 2, "\"\xc3\xa9\"");
	expect_escaper("json invalid byte", json_string, "a\xff" "b", 3,
		       "\"a\xef\xbf\xbd" "b\"");
	expect_escaper("json truncated sequence", json_string, "\xe2\x82", 2,
		       "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	expect_escaper("json overlong", json_string, "\xc0\xaf", 2,
		       "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	expect_escaper("json surrogate", json_string, "\xed\xa0\x80", 3,
		       "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	expect_escaper("json embedded NUL", json_string, "a\0b", 3, "\"a\\u0000b\"");

	checks++;
	expect_escaper("json repaired", json_string, "a\xff", 2, "\"a\xef\xbf\xbd\"");
	if (json_valid) {
		failures++;
		fputs("FAIL esc_json_string must report a repaired string\n", stderr);
	}
	checks++;
	expect_escaper("json valid", json_string, "\xc3\xa9", 2, "\"\xc3\xa9\"");
	if (!json_valid) {
		failures++;
		fputs("FAIL esc_json_string must report a valid string\n", stderr);
	}

	checks++;
	if (esc_utf8_length((const unsigned char *)"\xf4\x90\x80\x80", 4) != 0 ||
	    esc_utf8_length((const unsigned char *)"\xf0\x9f\x98\x80", 4) != 4) {
		failures++;
		fputs("FAIL esc_utf8_length: U+10FFFF bound\n", stderr);
	}
}

static bool prom_valid;

static void prom_label(FILE *out, const char *s, size_t n)
{
	prom_valid = esc_prom_label(out, s, n);
}

static void test_prom(void)
{
	expect_escaper("prom plain", prom_label, "a/b c", 5, "a/b c");
	expect_escaper("prom quote, backslash, newline", prom_label, "\"\\\n", 3,
		       "\\\"\\\\\\n");
	/* a backslash then n stays two characters: \\n, not \n */
	expect_escaper("prom backslash n", prom_label, "\\n", 2, "\\\\n");
	expect_escaper("prom tab and CR as is", prom_label, "\t\r", 2, "\t\r");
	expect_escaper("prom utf8 passes", prom_label, "\xc3\xa9", 2, "\xc3\xa9");
	expect_escaper("prom invalid bytes", prom_label, "a\xff\xc0\xaf", 4,
		       "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	checks++;
	if (prom_valid) {
		failures++;
		fputs("FAIL esc_prom_label must report a repaired value\n", stderr);
	}
	expect_escaper("prom valid", prom_label, "\xc3\xa9", 2, "\xc3\xa9");
	checks++;
	if (!prom_valid) {
		failures++;
		fputs("FAIL esc_prom_label must report a valid value\n", stderr);
	}
}

static void test_base64(void)
{
	expect_escaper("base64 empty", esc_base64, "", 0, "");
	expect_escaper("base64 1", esc_base64, "f", 1, "Zg==");
	expect_escaper("base64 2", esc_base64, "fo", 2, "Zm8=");
	expect_escaper("base64 3", esc_base64, "foo", 3, "Zm9v");
	expect_escaper("base64 6", esc_base64, "foobar", 6, "Zm9vYmFy");
	expect_escaper("base64 binary", esc_base64, "\xff\n\x00", 3, "/woA");
}

static void test_csv(void)
{
	expect_escaper("csv plain", esc_csv_field, "a/b", 3, "a/b");
	expect_escaper("csv comma", esc_csv_field, "a,b", 3, "\"a,b\"");
	expect_escaper("csv quote", esc_csv_field, "a\"b", 3, "\"a\"\"b\"");
	expect_escaper("csv newline", esc_csv_field, "a\nb", 3, "\"a\nb\"");
	expect_escaper("csv CR", esc_csv_field, "a\rb", 3, "\"a\rb\"");
	expect_escaper("csv leading space", esc_csv_field, " a", 2, "\" a\"");
	expect_escaper("csv empty", esc_csv_field, "", 0, "");
}

static void expect_terminal(const char *what, const char *in, size_t n, int utf8,
			    const char *want)
{
	char buf[256];
	size_t need = esc_terminal(buf, sizeof buf, in, n, utf8);
	expect_str(what, buf, want);
	checks++;
	if (need != strlen(want)) {
		failures++;
		fprintf(stderr, "FAIL %s: length %zu, want %zu\n", what, need, strlen(want));
	}
}

static void test_terminal(void)
{
	expect_terminal("term plain", "a b", 3, 1, "a b");
	expect_terminal("term newline", "a\nb", 3, 1, "a\\nb");
	expect_terminal("term escape char", "\x1b[31m", 5, 1, "\\x1b[31m");
	expect_terminal("term backslash", "a\\b", 3, 1, "a\\\\b");
	expect_terminal("term utf8 kept", "caf\xc3\xa9", 5, 1, "caf\xc3\xa9");
	expect_terminal("term utf8 on C locale", "caf\xc3\xa9", 5, 0, "caf\\xc3\\xa9");
	expect_terminal("term invalid", "a\xff", 2, 1, "a\\xff");
	expect_terminal("term C1 CSI", "\xc2\x9b", 2, 1, "\\u{009b}");
	/* NOLINTNEXTLINE(misc-misleading-bidirectional): the bytes are escaped, on purpose */
	expect_terminal("term bidi override", "\xe2\x80\xae", 3, 1, "\\u{202e}");

	/* Truncation keeps a NUL and reports the full length. */
	char small[4];
	size_t need = esc_terminal(small, sizeof small, "abcdef", 6, 1);
	expect_str("term truncated", small, "abc");
	checks++;
	if (need != 6) {
		failures++;
		fprintf(stderr, "FAIL term truncated length %zu\n", need);
	}
}

/* esc_put_terminal: the same text as esc_terminal, short or long. */
static void term_short(FILE *out, const char *s, size_t n)
{
	esc_put_terminal(out, s, n, true);
}

static void test_put_terminal(void)
{
	char in[300], want[601];
	memset(in, '\n', sizeof in);
	for (size_t i = 0; i < sizeof in; i++)
		memcpy(want + 2 * i, "\\n", 2);
	want[600] = '\0';
	expect_escaper("put_terminal short", term_short, "a\tb", 3, "a\\tb");
	expect_escaper("put_terminal past the stack buffer", term_short, in, sizeof in, want);
}

/* What column_known, column_value and column_text say of a row. */
static void expect_column(const char *what, enum column_id id, const struct row *row,
			  bool known, const char *text)
{
	size_t len = 0;
	const char *got = column_text(id, row, &len);

	checks++;
	if (column_known(id, row) != known) {
		failures++;
		fprintf(stderr, "FAIL %s: known is %d, want %d\n", what, !known, known);
	}
	if (columns[id].kind != KIND_TEXT)
		return;
	checks++;
	if ((got == NULL) != (text == NULL) ||
	    (got && (len != strlen(text) || memcmp(got, text, len) != 0))) {
		failures++;
		fprintf(stderr, "FAIL %s: text \"%.*s\", want \"%s\"\n", what, (int)len,
			got ? got : "(null)", text ? text : "(null)");
	}
}

static void test_columns(void)
{
	/* mincore knows only cached: no pages cached is still 0%, known */
	struct row file = { .path = "dir/f.txt", .path_len = 5, .type = ROW_FILE,
			    .stat = { .pages = 4, .known = PCS_CACHED } };
	struct row total = { .type = ROW_TOTAL, .stat = { .known = PCS_ALL } };
	uint64_t value = 7;

	expect_column("path: path_len bytes", COL_PATH, &file, true, "dir/f");
	expect_column("type", COL_TYPE, &file, true, "file");
	expect_column("no backing file", COL_BACKING, &file, false, NULL);
	expect_column("cached by mincore", COL_CACHED, &file, true, NULL);
	expect_column("dirty unknown to mincore", COL_DIRTY, &file, false, NULL);
	expect_column("percent of 4 pages", COL_PERCENT, &file, true, NULL);
	expect_column("segments of a file", COL_SEGMENTS, &file, true, NULL);
	expect_column("delta on a first sample", COL_DELTA, &file, false, NULL);
	expect_column("the total's path", COL_PATH, &total, true, "total");
	expect_column("the total's type", COL_TYPE, &total, true, "total");
	expect_column("percent of no pages", COL_PERCENT, &total, false, NULL);
	expect_column("extents of the total", COL_EXTENTS, &total, false, NULL);
	expect_column("size", COL_SIZE, &total, true, NULL);
	file.delta_known = true;
	expect_column("delta on a later sample", COL_DELTA, &file, true, NULL);

	checks++;
	if (column_value(COL_DIRTY, &file, &value) || value != 7) {
		failures++;
		fputs("FAIL column_value of an unknown counter must be false, value untouched\n",
		      stderr);
	}
	checks++;
	if (!column_value(COL_PAGES, &file, &value) || value != 4) {
		failures++;
		fprintf(stderr, "FAIL column_value pages: %llu\n", (unsigned long long)value);
	}
}

int main(void)
{
	test_human();
	test_percent();
	test_parse_size();
	test_json();
	test_prom();
	test_base64();
	test_csv();
	test_terminal();
	test_put_terminal();
	test_columns();
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
