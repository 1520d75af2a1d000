/* SPDX-License-Identifier: MIT */
/* --help, written from the option table (its groups, each option's names
 * and help lines) and the columns' table, and --version. */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kernel/caps.h"
#include "output/columns.h"
#include "optable.h"
#include "options_int.h"
#include "kernel/probe.h"

/* "  -d, --max-depth=N" and its help, the lines after the first indented
 * as --help aligns them (the help from column 26, below a long name). */
static void usage_option(FILE *out, const struct opt_spec *o)
{
	char left[64];
	int len = o->key < UCHAR_MAX ? snprintf(left, sizeof left, "  -%c, --%s", o->key, o->long_name)
				     : snprintf(left, sizeof left, "      --%s", o->long_name);
	if (o->arg == ARG_REQUIRED)
		len += snprintf(left + len, sizeof left - (size_t)len, "=%s", o->metavar);
	else if (o->arg == ARG_OPTIONAL)
		len += snprintf(left + len, sizeof left - (size_t)len, "[=%s]", o->metavar);
	fputs(left, out);
	if (len < 26)
		fprintf(out, "%*s", 26 - len, "");
	else
		fprintf(out, "\n%26s", "");
	for (const char *line = o->help;;) {
		const char *nl = strchrnul(line, '\n');
		fwrite(line, 1, (size_t)(nl - line), out);
		fputc('\n', out);
		if (!*nl)
			break;
		line = nl + 1;
		fprintf(out, "%26s", "");
	}
}

void options_usage(FILE *out)
{
	fputs("Usage: pagestat [OPTION]... [FILE]...\n"
	      "Show how much of each FILE (the current directory by default) is in the\n"
	      "page cache: cached, dirty, under writeback, evicted and recently evicted.\n"
	      "A directory's row is the total of every regular file below it.\n",
	      out);
	for (int g = 0; g < GROUP_COUNT; g++) {
		fputc('\n', out);
		if (opt_groups[g].title)
			fprintf(out, "%s\n", opt_groups[g].title);
		for (size_t i = 0; i < option_count; i++)
			if (option_table[i].group == (enum opt_group)g)
				usage_option(out, &option_table[i]);
		if (opt_groups[g].trailer)
			fputs(opt_groups[g].trailer, out);
	}
	columns_usage(out);
	fputs("\nCSV and JSON always hold exact integers: pages, and bytes in the\n"
	      "NAME_bytes twin of each page column.  Unknown counters (--method=mincore\n"
	      "knows only cached pages) are '-' in the table, empty in CSV, null in JSON.\n"
	      "\n"
	      "Exit status: 0 every file inspected; 1 some could not be; 2 usage error;\n"
	      "3 fatal (output failed, or no method usable); 4 --expect-cached not met.\n",
	      out);
}

void options_version(void)
{
	const char *why;
	struct probe_setup setup;

	printf("pagestat %s\n", PACKAGE_VERSION);
	fputs("Copyright (c) 2026 the pagestat authors\n"
	      "License MIT (Expat) <https://spdx.org/licenses/MIT.html>; there is NO WARRANTY.\n",
	      stdout);
	if (probe_init(PROBE_AUTO, &setup, &why) == 0) {
		printf("method: %s", probe_method_name(setup.method));
		if (setup.fallback_errno)
			printf(" (cachestat unavailable: %s)", strerror(setup.fallback_errno));
		putchar('\n');
	} else {
		printf("method: none (%s)\n", why);
	}
	probe_setup_free(&setup);
	printf("capabilities: %s\n", caps_describe());
}
