/* SPDX-License-Identifier: MIT */
/* Fuzz target "escape": every escaper of escape.h with a round-trip
 * oracle.  The input is a name, any bytes; what each escaper writes is
 * decoded here by a small strict parser and must give the name back. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/escape.h"
#include "fuzz.h"

const char fuzz_target_name[] = "escape";

/* A growing byte buffer for what the decoders give back. */
struct bytes {
	unsigned char *data;
	size_t len, cap;
};

static FUZZ_ORACLE void put_byte(struct bytes *b, unsigned char c)
{
	if (b->len == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->data = realloc(b->data, b->cap);
		FUZZ_CHECK(b->data != NULL);
	}
	b->data[b->len++] = c;
}

static FUZZ_ORACLE void put_utf8(struct bytes *b, uint32_t cp)
{
	if (cp < 0x80) {
		put_byte(b, (unsigned char)cp);
	} else if (cp < 0x800) {
		put_byte(b, (unsigned char)(0xc0 | cp >> 6));
		put_byte(b, (unsigned char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		put_byte(b, (unsigned char)(0xe0 | cp >> 12));
		put_byte(b, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
		put_byte(b, (unsigned char)(0x80 | (cp & 0x3f)));
	} else {
		put_byte(b, (unsigned char)(0xf0 | cp >> 18));
		put_byte(b, (unsigned char)(0x80 | ((cp >> 12) & 0x3f)));
		put_byte(b, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
		put_byte(b, (unsigned char)(0x80 | (cp & 0x3f)));
	}
}

static FUZZ_ORACLE bool same(const struct bytes *b, const uint8_t *data, size_t size)
{
	return b->len == size && (size == 0 || memcmp(b->data, data, size) == 0);
}

/* Length of the well-formed UTF-8 sequence at s, or 0: Table 3-7 of the
 * Unicode Standard, byte ranges rather than decoding. */
static FUZZ_ORACLE size_t utf8_sequence(const unsigned char *s, size_t n)
{
	if (n == 0)
		return 0;
	unsigned char lead = s[0], lo = 0x80, hi = 0xbf;
	size_t len;
	if (lead < 0x80)
		return 1;
	if (lead >= 0xc2 && lead <= 0xdf)
		len = 2;
	else if (lead == 0xe0)
		len = 3, lo = 0xa0;
	else if (lead == 0xed)
		len = 3, hi = 0x9f;
	else if (lead >= 0xe1 && lead <= 0xef)
		len = 3;
	else if (lead == 0xf0)
		len = 4, lo = 0x90;
	else if (lead == 0xf4)
		len = 4, hi = 0x8f;
	else if (lead >= 0xf1 && lead <= 0xf3)
		len = 4;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static FUZZ_ORACLE uint32_t utf8_code_point(const unsigned char *s, size_t len)
{
	if (len == 1)
		return s[0];
	uint32_t cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

static FUZZ_ORACLE bool valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0, len; i < n; i += len)
		if ((len = utf8_sequence(s + i, n - i)) == 0)
			return false;
	return true;
}

/* Runs one escaper into memory; the caller frees *text. */
typedef void escaper(FILE *, const char *, size_t);
static FUZZ_ORACLE size_t capture(escaper *fn, const uint8_t *data, size_t size,
				  char **text)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	FUZZ_CHECK(f != NULL);
	fn(f, (const char *)data, size);
	FUZZ_CHECK(fclose(f) == 0);
	return len;
}

static FUZZ_ORACLE int hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits of a JSON \u escape at s[0..4), or -1. */
static FUZZ_ORACLE long json_hex4(const unsigned char *s, size_t avail)
{
	if (avail < 4)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hex_value(s[i]);
		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* RFC 8259: exactly one string literal, in valid UTF-8, decoded. */
static FUZZ_ORACLE bool json_decode(const unsigned char *j, size_t n, struct bytes *out)
{
	if (!valid_utf8(j, n) || n < 2 || j[0] != '"')
		return false;
	size_t i = 1;
	for (;;) {
		if (i >= n)
			return false; /* unterminated */
		unsigned char c = j[i++];
		if (c == '"')
			break;
		if (c < 0x20)
			return false; /* controls must be escaped */
		if (c != '\\') {
			put_byte(out, c);
			continue;
		}
		if (i >= n)
			return false;
		c = j[i++];
		static const char escaped[] = "\"\\/bfnrt", decoded[] = "\"\\/\b\f\n\r\t";
		const char *simple = c ? strchr(escaped, c) : NULL;
		if (simple) {
			put_byte(out, (unsigned char)decoded[simple - escaped]);
			continue;
		}
		if (c != 'u')
			return false;
		long cp = json_hex4(j + i, n - i);
		if (cp < 0)
			return false;
		i += 4;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return false; /* a lone low surrogate */
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (n - i < 6 || j[i] != '\\' || j[i + 1] != 'u')
				return false;
			long low = json_hex4(j + i + 2, n - i - 2);
			if (low < 0xdc00 || low > 0xdfff)
				return false;
			i += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
		}
		put_utf8(out, (uint32_t)cp);
	}
	return i == n;
}

/* The name as a repairing escaper should give it back: U+FFFD in place
 * of each byte that starts no valid UTF-8 sequence. */
static void want_repaired(const uint8_t *data, size_t size, struct bytes *want)
{
	for (size_t i = 0, seq; i < size; i += seq ? seq : 1) {
		seq = utf8_sequence(data + i, size - i);
		if (seq == 0)
			put_utf8(want, 0xfffd);
		for (size_t k = 0; k < seq; k++)
			put_byte(want, data[i + k]);
	}
}

/* esc_json_string: valid JSON decoding to the name, or when the name is
 * not UTF-8, to the name with U+FFFD for each byte of a bad sequence. */
static FUZZ_ORACLE void check_json(const uint8_t *data, size_t size)
{
	char *text = NULL;
	bool valid = false;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	FUZZ_CHECK(f != NULL);
	valid = esc_json_string(f, (const char *)data, size);
	FUZZ_CHECK(fclose(f) == 0);

	struct bytes got = { 0 }, want = { 0 };
	FUZZ_CHECK(json_decode((const unsigned char *)text, len, &got));
	FUZZ_CHECK(valid == valid_utf8(data, size));
	want_repaired(data, size, &want);
	FUZZ_CHECK(same(&got, want.data, want.len));
	if (valid)
		FUZZ_CHECK(same(&got, data, size));
	free(got.data);
	free(want.data);
	free(text);
}

static FUZZ_ORACLE int base64_value(unsigned char c)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(digits, c) : NULL;
	return p ? (int)(p - digits) : -1;
}

/* RFC 4648 section 4, strictly: padded, no stray bits, no other bytes. */
static FUZZ_ORACLE bool base64_decode(const unsigned char *s, size_t n, struct bytes *out)
{
	if (n % 4)
		return false;
	for (size_t i = 0; i < n; i += 4) {
		bool last = i + 4 == n;
		int pad = last ? (s[i + 3] == '=') + (s[i + 2] == '=') : 0;
		if (pad == 1 && s[i + 2] == '=')
			return false; /* "x=y=" */
		uint32_t v = 0;
		for (int k = 0; k < 4 - pad; k++) {
			int d = base64_value(s[i + k]);
			if (d < 0)
				return false;
			v = v << 6 | (uint32_t)d;
		}
		v <<= 6 * pad;
		if (pad && (v & ((pad == 2 ? 0xffffu : 0xffu))))
			return false; /* non-zero bits under the padding */
		put_byte(out, (unsigned char)(v >> 16));
		if (pad < 2)
			put_byte(out, (unsigned char)(v >> 8));
		if (pad < 1)
			put_byte(out, (unsigned char)v);
	}
	return true;
}

static FUZZ_ORACLE void check_base64(const uint8_t *data, size_t size)
{
	char *text = NULL;
	size_t len = capture(esc_base64, data, size, &text);
	struct bytes got = { 0 };

	FUZZ_CHECK(len == (size + 2) / 3 * 4);
	FUZZ_CHECK(base64_decode((const unsigned char *)text, len, &got));
	FUZZ_CHECK(same(&got, data, size));
	free(got.data);
	free(text);
}

/* One RFC 4180 record ending in CRLF; each field is appended to fields[]
 * (at most max); returns the number of fields, or -1 when malformed. */
static FUZZ_ORACLE int csv_record(const unsigned char *s, size_t n, struct bytes *fields,
				  int max)
{
	size_t i = 0;
	int count = 0;
	for (;;) {
		if (count == max)
			return -1;
		struct bytes *field = &fields[count++];
		if (i < n && s[i] == '"') {
			for (i++;; i++) {
				if (i >= n)
					return -1;
				if (s[i] == '"') {
					if (i + 1 < n && s[i + 1] == '"')
						i++;
					else
						break;
				}
				put_byte(field, s[i]);
			}
			i++;
		} else {
			for (; i < n && s[i] != ',' && s[i] != '\r' && s[i] != '\n'; i++) {
				if (s[i] == '"')
					return -1; /* quotes only in a quoted field */
				put_byte(field, s[i]);
			}
		}
		if (i + 2 == n && s[i] == '\r' && s[i + 1] == '\n')
			return count;
		if (i >= n || s[i] != ',')
			return -1;
		i++;
	}
}

/* esc_csv_field, as the middle field of a record, gives the name back. */
static FUZZ_ORACLE void check_csv(const uint8_t *data, size_t size)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	FUZZ_CHECK(f != NULL);
	fputs("first,", f);
	esc_csv_field(f, (const char *)data, size);
	fputs(",last\r\n", f);
	FUZZ_CHECK(fclose(f) == 0);

	struct bytes fields[3] = { { 0 } };
	FUZZ_CHECK(csv_record((const unsigned char *)text, len, fields, 3) == 3);
	FUZZ_CHECK(same(&fields[0], (const uint8_t *)"first", 5));
	FUZZ_CHECK(same(&fields[1], data, size));
	FUZZ_CHECK(same(&fields[2], (const uint8_t *)"last", 4));
	for (int k = 0; k < 3; k++)
		free(fields[k].data);
	free(text);
}

/* C1 controls, line and paragraph separators, bidirectional marks,
 * embeddings, overrides and isolates: Unicode's list, not escape.c's. */
static FUZZ_ORACLE bool misleading(uint32_t cp)
{
	static const uint32_t ranges[][2] = {
		{ 0x80, 0x9f },     { 0x061c, 0x061c }, { 0x200e, 0x200f },
		{ 0x2028, 0x2029 }, { 0x202a, 0x202e }, { 0x2066, 0x2069 },
	};
	for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return true;
	return false;
}

/* Decodes what esc_terminal wrote, and checks that nothing shown as is
 * could act on a terminal or mislead its reader. */
static FUZZ_ORACLE bool terminal_decode(const unsigned char *t, size_t n, bool utf8,
					struct bytes *out)
{
	for (size_t i = 0; i < n;) {
		if (t[i] != '\\') {
			if (t[i] < 0x20 || t[i] == 0x7f)
				return false;
			size_t seq = utf8_sequence(t + i, n - i);
			if (seq == 0 || (!utf8 && seq > 1) ||
			    misleading(utf8_code_point(t + i, seq)))
				return false;
			for (size_t k = 0; k < seq; k++)
				put_byte(out, t[i + k]);
			i += seq;
			continue;
		}
		if (n - i < 2)
			return false;
		unsigned char kind = t[i + 1];
		i += 2;
		switch (kind) {
		case '\\': put_byte(out, '\\'); break;
		case 'n': put_byte(out, '\n'); break;
		case 't': put_byte(out, '\t'); break;
		case 'r': put_byte(out, '\r'); break;
		case 'x': {
			if (n - i < 2 || hex_value(t[i]) < 0 || hex_value(t[i + 1]) < 0)
				return false;
			int byte = hex_value(t[i]) << 4 | hex_value(t[i + 1]);
			put_byte(out, (unsigned char)byte);
			i += 2;
			break;
		}
		case 'u': {
			if (!utf8 || n - i < 3 || t[i] != '{')
				return false;
			uint32_t cp = 0;
			size_t digits = 0;
			for (i++; i < n && hex_value(t[i]) >= 0 && digits < 6; i++, digits++)
				cp = cp << 4 | (uint32_t)hex_value(t[i]);
			/* escape.c uses it for misleading characters only, but
			 * any scalar value beyond ASCII decodes */
			if (digits < 4 || i >= n || t[i] != '}' || cp < 0x80 ||
			    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
				return false;
			i++;
			put_utf8(out, cp);
			break;
		}
		default:
			return false;
		}
	}
	return true;
}

/* A Prometheus label value (text format 0.0.4, between the quotes):
 * valid UTF-8, no bare quote or line feed, and a backslash only before
 * a backslash, a quote or n. */
static FUZZ_ORACLE bool prom_decode(const unsigned char *t, size_t n, struct bytes *out)
{
	if (!valid_utf8(t, n))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '"' || t[i] == '\n')
			return false;
		if (t[i] != '\\') {
			put_byte(out, t[i]);
			continue;
		}
		if (++i == n)
			return false;
		switch (t[i]) {
		case '\\': put_byte(out, '\\'); break;
		case '"': put_byte(out, '"'); break;
		case 'n': put_byte(out, '\n'); break;
		default: return false;
		}
	}
	return true;
}

/* esc_prom_label: decodes to the name, with U+FFFD for each byte of a bad
 * sequence as in JSON, and says whether it had to repair. */
static FUZZ_ORACLE void check_prom(const uint8_t *data, size_t size)
{
	char *text = NULL;
	bool valid = false;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	FUZZ_CHECK(f != NULL);
	valid = esc_prom_label(f, (const char *)data, size);
	FUZZ_CHECK(fclose(f) == 0);

	struct bytes got = { 0 }, want = { 0 };
	FUZZ_CHECK(prom_decode((const unsigned char *)text, len, &got));
	FUZZ_CHECK(valid == valid_utf8(data, size));
	want_repaired(data, size, &want);
	FUZZ_CHECK(same(&got, want.data, want.len));
	free(got.data);
	free(want.data);
	free(text);
}

/* esc_terminal in both modes: decodes to the name; truncated to any
 * capacity it gives a prefix and the full length; esc_put_terminal
 * writes the same text. */
static FUZZ_ORACLE void check_terminal(const uint8_t *data, size_t size, bool utf8)
{
	const char *s = (const char *)data;
	size_t need = esc_terminal(NULL, 0, s, size, utf8);
	char *full = malloc(need + 1);
	FUZZ_CHECK(full != NULL);
	FUZZ_CHECK(esc_terminal(full, need + 1, s, size, utf8) == need);
	FUZZ_CHECK(strlen(full) == need);

	struct bytes got = { 0 };
	FUZZ_CHECK(terminal_decode((const unsigned char *)full, need, utf8, &got));
	FUZZ_CHECK(same(&got, data, size));
	free(got.data);

	/* the table's width of it: ASCII counts its bytes; a character, never
	 * more columns than bytes (a wide one takes three or four) */
	size_t width = esc_display_width(full);
	FUZZ_CHECK(utf8 ? width <= need : width == need);

	/* truncated to a capacity from 1 to need + 1 that the input picks, in
	 * an exact-size heap buffer so that AddressSanitizer sees overruns */
	size_t cap = size ? (data[size - 1] + 7 * size) % (need + 1) + 1 : 1;
	size_t kept = cap - 1;
	char *part = malloc(cap);
	FUZZ_CHECK(part != NULL);
	FUZZ_CHECK(esc_terminal(part, cap, s, size, utf8) == need);
	FUZZ_CHECK(strlen(part) == kept && memcmp(part, full, kept) == 0);
	free(part);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	FUZZ_CHECK(f != NULL);
	esc_put_terminal(f, s, size, utf8);
	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(len == need && memcmp(text, full, need) == 0);
	free(text);
	free(full);
}

/* esc_utf8_length agrees with Table 3-7 at every offset. */
static FUZZ_ORACLE void check_utf8_length(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i <= size; i++)
		FUZZ_CHECK(esc_utf8_length(data + i, size - i) ==
			   utf8_sequence(data + i, size - i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_utf8_length(data, size);
	check_json(data, size);
	check_base64(data, size);
	check_csv(data, size);
	check_prom(data, size);
	check_terminal(data, size, true);
	check_terminal(data, size, false);
	return 0;
}
