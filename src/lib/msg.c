/* SPDX-License-Identifier: MIT */
/* Messages on standard error: "pagestat: " first, names shown safely. */
#include <config.h>

#include "lib/msg.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/progress.h"

void msg(const char *fmt, ...)
{
	va_list ap;

	progress_clear();
	fputs("pagestat: ", stderr);
	va_start(ap, fmt);
	/* clang-analyzer 14 loses va_start here (seen with glibc's stdio.h) */
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void msg_more(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* clang-analyzer 14 loses va_start here (seen with glibc's stdio.h) */
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void msg_name(const char *name, size_t len)
{
	putc('\'', stderr);
	esc_put_terminal(stderr, name, len, esc_locale_utf8_for(name, len));
	putc('\'', stderr);
}

void msg_name_str(const char *name)
{
	msg_name(name, strlen(name));
}

void msg_try_help(void)
{
	fputs("Try 'pagestat --help' for more information.\n", stderr);
}
