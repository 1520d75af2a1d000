/* SPDX-License-Identifier: MIT */
/* The C unit tests of the pure modules: one suite per module, one count of
 * checks and failures; exit 1 when any check failed. */
#include <config.h>

#include "unit.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures;

bool unit_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (ok)
		return true;
	failures++;
	fputs("FAIL ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return false;
}

void unit_expect_str(const char *what, const char *got, const char *want)
{
	unit_check(strcmp(got, want) == 0, "%s: got \"%s\", want \"%s\"", what, got, want);
}

void unit_expect_written(const char *what, unit_writer *fn, const char *in, size_t n,
			 const char *want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!unit_check(f != NULL, "%s: open_memstream failed", what))
		return;
	fn(f, in, n);
	fclose(f);
	unit_expect_str(what, text, want);
	free(text);
}

int main(void)
{
	unit_format();
	unit_escape();
	unit_strbuf();
	unit_columns();
	unit_aggregate();
	unit_rank();
	unit_progress();
	unit_browse_tree();
	unit_memstat();
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
