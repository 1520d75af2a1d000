/* SPDX-License-Identifier: MIT */
/* Escaping of names for JSON, CSV, Prometheus and terminals; base64 for exact bytes. */
#include <config.h>

#include "lib/escape.h"

#include <langinfo.h>
#include <locale.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "lib/xalloc.h"

size_t esc_utf8_length(const unsigned char *s, size_t n)
{
	if (n == 0)
		return 0;
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;

	size_t len;
	uint32_t cp, min;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, cp = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, cp = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, cp = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Bytes a JSON string holds as they are: printable ASCII but " and \. */
static const bool json_plain[256] = {
	[' ' ... '!'] = true, /* '"' between */
	['#' ... '['] = true, /* '\\' between */
	[']' ... '~'] = true,
};

bool esc_json_sb(struct strbuf *sb, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	bool valid = true;

	sb_putc(sb, '"');
	for (size_t i = 0; i < n;) {
		size_t run = i;
		while (run < n && json_plain[p[run]])
			run++;
		if (run > i) {
			sb_put(sb, p + i, run - i);
			i = run;
			continue;
		}
		unsigned char c = p[i];
		if (c >= 0x80) {
			size_t len = esc_utf8_length(p + i, n - i);
			if (len == 0) {
				sb_put(sb, "\xef\xbf\xbd", 3); /* U+FFFD */
				valid = false;
				i++;
			} else {
				sb_put(sb, p + i, len);
				i += len;
			}
			continue;
		}
		i++;
		switch (c) {
		case '"':  sb_put(sb, "\\\"", 2); break;
		case '\\': sb_put(sb, "\\\\", 2); break;
		case '\b': sb_put(sb, "\\b", 2); break;
		case '\f': sb_put(sb, "\\f", 2); break;
		case '\n': sb_put(sb, "\\n", 2); break;
		case '\r': sb_put(sb, "\\r", 2); break;
		case '\t': sb_put(sb, "\\t", 2); break;
		default: { /* the other controls, and DEL */
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };
			sb_put(sb, u, sizeof u);
		}
		}
	}
	sb_putc(sb, '"');
	return valid;
}

bool esc_prom_label(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	bool valid = true;

	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c >= 0x80) {
			size_t len = esc_utf8_length(p + i, n - i);
			if (len == 0) {
				fputs_unlocked("\xef\xbf\xbd", out); /* U+FFFD */
				valid = false;
				len = 1;
			} else {
				fwrite_unlocked(p + i, 1, len, out);
			}
			i += len;
			continue;
		}
		i++;
		switch (c) {
		case '"':  fputs_unlocked("\\\"", out); break;
		case '\\': fputs_unlocked("\\\\", out); break;
		case '\n': fputs_unlocked("\\n", out); break;
		default:   putc_unlocked(c, out); break;
		}
	}
	return valid;
}

bool esc_json_string(FILE *out, const char *s, size_t n)
{
	struct strbuf sb = { 0 };
	bool valid = esc_json_sb(&sb, s, n);
	sb_write(&sb, out);
	sb_free(&sb);
	return valid;
}

void esc_base64_sb(struct strbuf *sb, const char *s, size_t n)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="; /* pad: 64 */
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	sb_reserve(sb, (n + 2) / 3 * 4);
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		char quad[4] = { digits[v >> 18], digits[(v >> 12) & 63],
				 digits[(v >> 6) & 63], digits[v & 63] };
		sb_put(sb, quad, 4);
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		char quad[4] = { digits[v >> 18], digits[(v >> 12) & 63],
				 digits[i + 1 < n ? (v >> 6) & 63 : 64], '=' };
		sb_put(sb, quad, 4);
	}
}

void esc_base64(FILE *out, const char *s, size_t n)
{
	struct strbuf sb = { 0 };
	esc_base64_sb(&sb, s, n);
	sb_write(&sb, out);
	sb_free(&sb);
}

void esc_csv_field(FILE *out, const char *s, size_t n)
{
	bool quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';

	if (!quote) {
		fwrite_unlocked(s, 1, n, out);
		return;
	}
	putc_unlocked('"', out);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			putc_unlocked('"', out);
		putc_unlocked(s[i], out);
	}
	putc_unlocked('"', out);
}

/* Characters that are valid but would mislead a reader of a terminal:
 * C1 controls, the Unicode line separators and bidirectional overrides. */
static bool is_deceptive(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

static uint32_t utf8_decode(const unsigned char *s, size_t len)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead_mask[len];
	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

size_t esc_terminal(char *dst, size_t cap, const char *s, size_t n, bool utf8)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t out = 0;
	char tmp[16];

#define EMIT(str, len)                                                    \
	do {                                                              \
		for (size_t k_ = 0; k_ < (len); k_++, out++)              \
			if (out + 1 < cap)                                \
				dst[out] = (str)[k_];                     \
	} while (0)

	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len = c < 0x80 ? 1 : esc_utf8_length(p + i, n - i);

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			EMIT(p + i, 1);
		} else if (c == '\\') {
			EMIT("\\\\", 2);
		} else if (c == '\n') {
			EMIT("\\n", 2);
		} else if (c == '\t') {
			EMIT("\\t", 2);
		} else if (c == '\r') {
			EMIT("\\r", 2);
		} else if (c >= 0x80 && len > 0 && utf8) {
			uint32_t cp = utf8_decode(p + i, len);
			if (is_deceptive(cp)) {
				int w = snprintf(tmp, sizeof tmp, "\\u{%04x}", (unsigned)cp);
				EMIT(tmp, (size_t)w);
			} else {
				EMIT(p + i, len);
			}
		} else {
			/* a control, DEL, a stray byte, or non-ASCII on a
			 * terminal that is not UTF-8: escape byte by byte */
			len = 1;
			tmp[0] = '\\', tmp[1] = 'x';
			tmp[2] = hex[c >> 4], tmp[3] = hex[c & 0xf];
			EMIT(tmp, 4);
		}
		i += len ? len : 1;
	}
#undef EMIT
	if (cap > 0)
		dst[out < cap ? out : cap - 1] = '\0';
	return out;
}

void esc_put_terminal(FILE *out, const char *s, size_t n, bool utf8)
{
	char small[256];
	size_t need = esc_terminal(small, sizeof small, s, n, utf8) + 1;
	char *text = need <= sizeof small ? small : xrealloc(NULL, need);

	if (text != small)
		esc_terminal(text, need, s, n, utf8);
	fputs(text, out);
	if (text != small)
		free(text);
}

size_t esc_display_width(const char *s)
{
	const char *p = s;

	while (*p && (unsigned char)*p < 0x80)
		p++;
	size_t width = (size_t)(p - s), left = strlen(p);
	if (!left)
		return width;
	/* the table's cells hold such bytes only after the locale was read
	 * (a UTF-8 one); asked again so that wcwidth is the user's */
	(void)esc_locale_is_utf8();
	mbstate_t state = { 0 };
	while (left) {
		wchar_t wc;
		size_t len = mbrtowc(&wc, p, left, &state);
		if (len == (size_t)-1 || len == (size_t)-2 || len == 0) {
			/* as a terminal shows a stray byte: one column */
			memset(&state, 0, sizeof state);
			width++;
			len = 1;
		} else {
			int w = wcwidth(wc);
			width += w < 0 ? 1 : (size_t)w;
		}
		p += len;
		left -= len;
	}
	return width;
}

bool esc_locale_utf8_for(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return esc_locale_is_utf8();
	return false;
}

bool esc_locale_is_utf8(void)
{
	/* The locale is read the first time a name that is not ASCII is shown
	 * to a person (the table, a message on stderr) or the table draws a
	 * bar, not at start-up: the machine formats need none, and a run
	 * that shows ASCII names saves its files (a tenth of the start-up of
	 * one file).  After the capabilities are dropped, as every file is. */
	static int utf8 = -1;

	if (utf8 < 0) {
		setlocale(LC_CTYPE, "");
		utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	}
	return utf8;
}
