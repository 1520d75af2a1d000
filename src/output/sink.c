/* SPDX-License-Identifier: MIT */
/* Output formats behind one small interface: begin, row, end. */
#include <config.h>

#include "output/sink.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/xalloc.h"

struct sink *sink_new(enum output_format format, const struct sink_config *cfg)
{
	static const struct sink_ops *const ops[] = {
		[FORMAT_TABLE] = &sink_table_ops,
		[FORMAT_CSV] = &sink_csv_ops,
		[FORMAT_JSON] = &sink_json_ops,
		[FORMAT_NDJSON] = &sink_ndjson_ops,
		[FORMAT_PROMETHEUS] = &sink_prom_ops,
	};
	struct sink *sink = xcalloc(1, sizeof *sink);
	sink->ops = ops[format];
	sink->cfg = *cfg;
	return sink;
}

struct sink *sink_wrap(struct sink *inner, const struct sink_ops *ops, void *state)
{
	struct sink *sink = xcalloc(1, sizeof *sink);
	sink->ops = ops;
	sink->cfg = inner->cfg;
	sink->state = state;
	sink->inner = inner;
	return sink;
}

void sink_free(struct sink *sink)
{
	if (!sink)
		return;
	if (sink->ops->free)
		sink->ops->free(sink);
	sink_free(sink->inner);
	free(sink);
}

/* errno of the first failed write: stdio keeps only the error flag, and
 * the final flush, with nothing left to write, has no errno to tell. */
static int first_write_errno;

static bool written(const struct sink *sink)
{
	for (const struct sink *s = sink; s; s = s->inner)
		if (s->failed)
			return false;
	if (!ferror(sink->cfg.out))
		return true;
	if (!first_write_errno)
		first_write_errno = errno;
	return false;
}

int sink_write_errno(void)
{
	return first_write_errno;
}

bool sink_begin(struct sink *sink)
{
	if (sink->ops->begin)
		sink->ops->begin(sink);
	else if (sink->inner)
		sink_begin(sink->inner);
	return written(sink);
}

bool sink_row(struct sink *sink, const struct row *row)
{
	sink->ops->row(sink, row);
	sink->rows++;
	return written(sink);
}

void sink_section(struct sink *sink, const char *top)
{
	if (sink->ops->section)
		sink->ops->section(sink, top);
}

bool sink_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	sink->ops->end(sink, total, errors);
	return written(sink);
}
