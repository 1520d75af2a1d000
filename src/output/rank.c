/* SPDX-License-Identifier: MIT */
/* --sort and --top: a sink in front of the output that orders the rows. */
#include <config.h>

#include "output/rank.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

/* A row kept past the walk's callback, with its own copies of the path,
 * segments and extents, in the same allocation. */
struct kept {
	struct row row;
	uint64_t seq; /* walk order: ties keep it */
};

struct rank {
	struct rank_config cfg;
	struct kept **rows; /* with top, a heap whose root ranks last */
	size_t nrows, cap;
	struct kept **failed;
	size_t nfailed, failed_cap;
	struct kept **others; /* others_after: in the order they came */
	size_t nothers, others_cap;
	uint64_t seq;
};

static struct kept *keep(const struct row *row, uint64_t seq)
{
	size_t segs = row->nsegments * sizeof *row->segments;
	size_t exts = row->nextents * sizeof *row->extents;
	size_t backing = row->stat.backing ? strlen(row->stat.backing) + 1 : 0;
	struct kept *k = xrealloc(NULL, sizeof *k + segs + exts + backing + row->path_len + 1);
	char *tail = (char *)(k + 1);

	k->row = *row;
	k->seq = seq;
	if (segs) {
		memcpy(tail, row->segments, segs);
		k->row.segments = (const struct segment *)tail;
	}
	if (exts) {
		memcpy(tail + segs, row->extents, exts);
		k->row.extents = (const struct extent *)(tail + segs);
	}
	if (backing) {
		/* the probe's buffer holds the next file's soon */
		memcpy(tail + segs + exts, row->stat.backing, backing);
		k->row.stat.backing = tail + segs + exts;
		tail += backing;
	}
	if (row->path) {
		memcpy(tail + segs + exts, row->path, row->path_len);
		tail[segs + exts + row->path_len] = '\0';
		k->row.path = tail + segs + exts;
	}
	return k;
}

/* a before b in the natural order of the key: numbers largest first, text
 * A-Z.  *known says whether each has a value (unknown go last). */
static int natural(enum column_id key, const struct row *a, const struct row *b,
		   bool *a_known, bool *b_known)
{
	*a_known = column_known(key, a);
	*b_known = column_known(key, b);
	if (!*a_known || !*b_known)
		return 0;
	switch (columns[key].kind) {
	case KIND_TEXT: {
		size_t a_len, b_len;
		const char *a_text = column_text(key, a, &a_len);
		const char *b_text = column_text(key, b, &b_len);
		int c = memcmp(a_text, b_text, a_len < b_len ? a_len : b_len);
		return c ? c : (a_len > b_len) - (a_len < b_len);
	}
	case KIND_PERCENT: {
		/* cached/pages compared without division */
		unsigned __int128 l = (unsigned __int128)a->stat.cached * b->stat.pages;
		unsigned __int128 r = (unsigned __int128)b->stat.cached * a->stat.pages;
		return l > r ? -1 : l < r;
	}
	default: {
		uint64_t x = 0, y = 0;
		column_value(key, a, &x);
		column_value(key, b, &y);
		return x > y ? -1 : x < y;
	}
	}
}

/* Negative when a is shown before b. */
static int compare(const struct rank_config *cfg, const struct row *a, uint64_t a_seq,
		   const struct row *b, uint64_t b_seq)
{
	bool a_known, b_known;
	int c = natural(cfg->key, a, b, &a_known, &b_known);

	if (a_known != b_known)
		return a_known ? -1 : 1;
	if (cfg->reverse)
		c = -c;
	if (c)
		return c;
	return (a_seq > b_seq) - (a_seq < b_seq);
}

static int compare_kept(const void *a, const void *b, void *cfg)
{
	const struct kept *x = *(struct kept *const *)a, *y = *(struct kept *const *)b;
	return compare(cfg, &x->row, x->seq, &y->row, y->seq);
}

/* The heap of --top: every parent ranks after its children. */
static bool after(const struct rank *r, size_t i, size_t j)
{
	return compare(&r->cfg, &r->rows[i]->row, r->rows[i]->seq, &r->rows[j]->row,
		       r->rows[j]->seq) > 0;
}

static void swap(struct kept **v, size_t i, size_t j)
{
	struct kept *t = v[i];
	v[i] = v[j];
	v[j] = t;
}

static void sift_up(struct rank *r, size_t i)
{
	while (i > 0 && after(r, i, (i - 1) / 2)) {
		swap(r->rows, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct rank *r, size_t i)
{
	for (;;) {
		size_t last = i, child = 2 * i + 1;
		if (child < r->nrows && after(r, child, last))
			last = child;
		if (child + 1 < r->nrows && after(r, child + 1, last))
			last = child + 1;
		if (last == i)
			return;
		swap(r->rows, i, last);
		i = last;
	}
}

static void append(struct kept ***v, size_t *n, size_t *cap, struct kept *k)
{
	*v = xgrow(*v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = k;
}

static void rank_row(struct sink *sink, const struct row *row)
{
	struct rank *r = sink->state;
	uint64_t seq = r->seq++;

	if (row->error) {
		if (!r->cfg.top)
			append(&r->failed, &r->nfailed, &r->failed_cap, keep(row, seq));
		return;
	}
	if (r->cfg.files_only && row->type == ROW_DIRECTORY)
		return;
	if (r->cfg.others_after && row->type != ROW_FILE) {
		append(&r->others, &r->nothers, &r->others_cap, keep(row, seq));
		return;
	}
	if (!r->cfg.top) {
		append(&r->rows, &r->nrows, &r->cap, keep(row, seq));
	} else if (r->nrows < r->cfg.top) {
		append(&r->rows, &r->nrows, &r->cap, keep(row, seq));
		sift_up(r, r->nrows - 1);
	} else if (compare(&r->cfg, row, seq, &r->rows[0]->row, r->rows[0]->seq) < 0) {
		/* it displaces the row that ranks last */
		free(r->rows[0]);
		r->rows[0] = keep(row, seq);
		sift_down(r, 0);
	}
}

static void rank_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	struct rank *r = sink->state;
	bool ok = true;

	if (r->nrows) /* no row kept: rows is NULL, which qsort_r may not take */
		qsort_r(r->rows, r->nrows, sizeof *r->rows, compare_kept, &r->cfg);
	for (size_t i = 0; ok && i < r->nrows; i++)
		ok = sink_row(sink->inner, &r->rows[i]->row);
	for (size_t i = 0; ok && i < r->nothers; i++)
		ok = sink_row(sink->inner, &r->others[i]->row);
	for (size_t i = 0; ok && i < r->nfailed; i++)
		ok = sink_row(sink->inner, &r->failed[i]->row);
	if (ok)
		sink_end(sink->inner, total, errors);
}

static void rank_free(struct sink *sink)
{
	struct rank *r = sink->state;

	for (size_t i = 0; i < r->nrows; i++)
		free(r->rows[i]);
	for (size_t i = 0; i < r->nfailed; i++)
		free(r->failed[i]);
	for (size_t i = 0; i < r->nothers; i++)
		free(r->others[i]);
	free(r->others);
	free(r->rows);
	free(r->failed);
	free(r);
}

static const struct sink_ops rank_ops = {
	.row = rank_row,
	.end = rank_end,
	.free = rank_free,
};

struct sink *sink_rank_new(struct sink *out, const struct rank_config *cfg)
{
	struct rank *r = xcalloc(1, sizeof *r);

	r->cfg = *cfg;
	return sink_wrap(out, &rank_ops, r);
}
