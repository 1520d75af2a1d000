/* SPDX-License-Identifier: MIT */
/* READERS, EVICTORS and TOP_FILES as one line of text. */
#include <config.h>

#include "output/who.h"

#include <inttypes.h>
#include <stdio.h>

#include "kernel/trace_tally.h"

size_t column_files_text(const struct row *row, char *buf, size_t size)
{
	const struct tally_group *g = row->stat.group;
	char name[96];
	if (!g || g->ntop == 0 || size == 0)
		return 0;
	const char *first = tally_file_name(row->stat.tally, g->top[0].file, name, sizeof name);
	uint64_t rest = g->files - 1;
	int n = rest ? snprintf(buf, size, "%s+%" PRIu64, first, rest) : snprintf(buf, size, "%s", first);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

size_t column_who_text(enum column_id id, const struct row *row, char *buf, size_t size)
{
	enum tally_side side = id == COL_READERS ? TALLY_READERS : TALLY_EVICTORS;
	const struct tally_file *f = row->stat.traced;
	uint64_t pages, others, others_pages;
	if (!f || !row->stat.tally || size == 0)
		return 0;
	const struct tally_proc *p = tally_who(row->stat.tally, f, side, 0, &pages);
	if (!p)
		return 0;
	size_t kept = 1;
	while (kept < TALLY_WHO && tally_who(row->stat.tally, f, side, kept, &pages))
		kept++;
	tally_who_others(f, side, &others, &others_pages);
	int n = others + kept > 1
			? snprintf(buf, size, "%s[%ld]+%" PRIu64, p->comm, (long)p->pid,
				   others + kept - 1)
			: snprintf(buf, size, "%s[%ld]", p->comm, (long)p->pid);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
