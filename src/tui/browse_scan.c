/* SPDX-License-Identifier: MIT */
/* --browse's walks: the sink their rows come to (the tree made, or a
 * measure again, or an action's failures counted, the keyboard polled),
 * the first scan, and each walk again: r's measures in place and the
 * directories found changed, R's, a group gathered again. */
#include <config.h>

#include "tui/browse_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "modes/cgroup.h"
#include "lib/escape.h"
#include "lib/fail.h"
#include "modes/pidfiles.h"
#include "output/sink.h"
#include "modes/system.h"
#include "kernel/userfile.h"
#include "walk/walk.h"
#include "lib/xalloc.h"

/* r and i: a row of the operand the walk is at, the file measured again;
 * rows below an operand (the file became a directory) are passed over. */
static void remeasured(struct browser *b, const struct row *row)
{
	while (b->walk.re_at < b->walk.re_n) {
		const char *op = b->walk.re_paths[b->walk.re_at];
		size_t n = strlen(op);
		if (row->path_len == n && memcmp(row->path, op, n) == 0) {
			struct bnode *node = &b->tree.nodes[b->walk.re_nodes[b->walk.re_at++]];
			node->error = (int16_t)row->error;
			if (!row->error && row->type != ROW_FILE && row->type != ROW_BLOCKDEV)
				node->error = FAIL_CHANGED;
			if (!node->error) {
				node->size = row->stat.size;
				node->pages = row->stat.pages;
				node->cached = row->stat.cached;
				node->dirty = row->stat.dirty;
				node->evicted = row->stat.evicted;
			}
			return;
		}
		if (row->path_len > n && memcmp(row->path, op, n) == 0 && row->path[n] == '/')
			return;
		b->walk.re_at++; /* that operand gave no row */
	}
}

/* The detail view's file: its row's parts and (at most EXTENTS_KEPT)
 * cached extents kept. */
static void keep_detail(struct browser *b, const struct row *row)
{
	b->detail.nsegments = 0;
	XGROW(b->detail.segments, b->detail.segments_cap, row->nsegments + 1);
	/* (a file with no cached page has no extents: a null pointer,
	 * which memcpy may not be given, even for no byte) */
	if (row->nsegments)
		memcpy(b->detail.segments, row->segments, row->nsegments * sizeof *row->segments);
	b->detail.nsegments = row->nsegments;
	size_t keep = row->nextents < EXTENTS_KEPT ? row->nextents : EXTENTS_KEPT;
	XGROW(b->detail.extents, b->detail.extents_cap, keep + 1);
	if (keep)
		memcpy(b->detail.extents, row->extents, keep * sizeof *row->extents);
	b->detail.nextents = keep;
	b->detail.extents_all = row->nextents;
}

static void sink_browse_row(struct sink *sink, const struct row *row)
{
	struct browser *b = sink->state;
	if (b->system && row->type == ROW_CGROUP)
		return; /* --system's cgroups: figures of the kernel's, no files */
	if (b->act.on) {
		/* a warm stopped by q (ECANCELED) did not fail */
		if (row->path && row->error && !(row->error == ECANCELED && b->act.stop) &&
		    b->act.failed++ == 0) {
			b->act.error = row->error;
			esc_terminal(b->act.name, sizeof b->act.name, row->path, row->path_len,
				     b->utf8);
		}
	} else if (b->walk.remeasuring) {
		remeasured(b, row);
	} else {
		btree_row(&b->tree, row);
		if (row->note && b->tree.nstack) {
			XGROW(b->notes, b->notes_cap, b->nnotes + 1);
			b->notes[b->nnotes++] = (struct bnote){
				.node = b->tree.stack[b->tree.nstack - 1].node, .note = row->note };
		}
	}
	if (row->type == ROW_FILE && !row->error) {
		b->walk.files++;
		b->walk.bytes += row->stat.size;
		b->walk.cached += row->stat.cached;
	}
	if (b->detail.wanted && row_has_detail(row))
		keep_detail(b, row);
	/* the clock is read on every row (a vDSO call): rows may come
	 * seconds apart (a slow directory, a large file's extents) */
	if (++b->walk.polls != 1 && ms_since(&b->walk.drawn) < DRAW_MS)
		return;
	clock_gettime(CLOCK_MONOTONIC, &b->walk.drawn);
	browse_poll_keys(b);
	if (b->quit || (b->act.evicting && b->act.stop)) {
		sink->failed = true; /* the walk stops at once */
		return;
	}
	if (b->walk.scanning) {
		browse_draw_scan(b, row->path, row->path_len);
	} else {
		browse_say(b,
			   b->act.warming    ? "warming... (%" PRIu64 " files) q or Escape stops"
			   : b->act.evicting ? "evicting... (%" PRIu64 " files) q or Escape stops"
					 : "measuring... (%" PRIu64 " files)",
			   b->walk.files);
		browse_draw_status(b);
		refresh();
	}
}

static void sink_browse_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	(void)sink;
	(void)total;
	(void)errors;
}

static void sink_browse_section(struct sink *sink, const char *top)
{
	struct browser *b = sink->state;
	if (!b->walk.remeasuring)
		btree_section(&b->tree, top);
}

static const struct sink_ops browse_ops = { .row = sink_browse_row, .end = sink_browse_end,
					    .section = sink_browse_section };

/* The browser's sink for a walk about to start, its counters at 0. */
static struct sink walk_sink(struct browser *b)
{
	b->walk.files = b->walk.bytes = b->walk.cached = 0;
	b->walk.polls = 0;
	return (struct sink){ .ops = &browse_ops,
			      .cfg = { .out = stdout, .page_size = b->page_size },
			      .state = b };
}

/* base with req's measure or action: a warm on one thread, its chunks
 * read here between polls of the keyboard. */
static struct walk_config walk_cfg(const struct walk_config *base, const struct file_request *req)
{
	struct walk_config cfg = *base;
	cfg.req = req;
	if (req->action == ACTION_WARM)
		cfg.jobs = 1;
	return cfg;
}

static int64_t realtime_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int64_t ns_of(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* A directory's stamp as r compares it, stat'ed by its path with the
 * user's own rights (no capability, no open: userfile.c); false when it
 * cannot be. */
static bool stat_stamp(struct browser *b, uint32_t node, struct bstamp *s)
{
	struct stat st;
	btree_path(&b->tree, node, &b->path);
	if (user_fstatat(AT_FDCWD, b->path.data, &st, 0) != 0 || !S_ISDIR(st.st_mode))
		return false;
	*s = (struct bstamp){ .dev = st.st_dev, .ino = st.st_ino, .mtime = ns_of(&st.st_mtim),
			      .ctime = ns_of(&st.st_ctim) };
	return true;
}

/* The stamps of node's directories, after a walk that read them: stat'ed
 * after the walk, so a stamp changed since the walk began (or within the
 * time stamps' granularity of it: 100 ms, or 2 s where they have no
 * nanoseconds) is kept unknown, and the next r walks that directory
 * again, since the walk may have read it before or after the change. */
void browse_stamp_dirs(struct browser *b, uint32_t node)
{
	const struct bnode *n = &b->tree.nodes[node];
	if (n->kind == BN_DIR) {
		struct bstamp s = { 0 };
		if (stat_stamp(b, node, &s)) {
			bool coarse = s.mtime % 1000000000 == 0 && s.ctime % 1000000000 == 0;
			int64_t since = b->walk.start - (coarse ? 2000000000 : 100000000);
			if (s.mtime >= since || s.ctime >= since)
				s = (struct bstamp){ 0 };
		}
		btree_set_stamp(&b->tree, node, &s);
	} else if (n->kind != BN_ROOT) {
		return;
	}
	for (uint32_t c = b->tree.nodes[node].first; c != BNODE_NONE; c = b->tree.nodes[c].next)
		browse_stamp_dirs(b, c);
}

/* Has directory node's listing changed since its walk (or is it not
 * known)? */
static bool dir_changed(struct browser *b, uint32_t node)
{
	const struct bstamp *was = btree_stamp(&b->tree, node);
	struct bstamp now;
	if (!was || (was->dev == 0 && was->ino == 0) || !stat_stamp(b, node, &now))
		return true;
	return now.dev != was->dev || now.ino != was->ino || now.mtime != was->mtime ||
	       now.ctime != was->ctime;
}

/* The highest directories at or below node whose listing changed, in
 * *dirs (r walks them again). */
static void find_changed(struct browser *b, uint32_t node, uint32_t **dirs, size_t *n,
			 size_t *cap)
{
	const struct bnode *x = &b->tree.nodes[node];
	if (x->kind == BN_DIR && !x->error && dir_changed(b, node)) {
		XGROW(*dirs, *cap, *n + 1);
		(*dirs)[(*n)++] = node;
		return;
	}
	if (x->kind != BN_DIR && x->kind != BN_ROOT)
		return;
	for (uint32_t c = b->tree.nodes[node].first; c != BNODE_NONE; c = b->tree.nodes[c].next)
		find_changed(b, c, dirs, n, cap);
}

static int cmp_node(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The files at or below node, but not below a directory of skip (sorted). */
static void files_but(const struct btree *t, uint32_t node, const uint32_t *skip, size_t nskip,
		      uint32_t **files, size_t *n, size_t *cap)
{
	const struct bnode *x = &t->nodes[node];
	if (nskip && bsearch(&node, skip, nskip, sizeof *skip, cmp_node))
		return;
	if (x->kind == BN_FILE) {
		XGROW(*files, *cap, *n + 1);
		(*files)[(*n)++] = node;
		return;
	}
	for (uint32_t c = x->first; c != BNODE_NONE; c = t->nodes[c].next)
		files_but(t, c, skip, nskip, files, n, cap);
}

static bool regather(struct browser *b, uint32_t node);
static void measure_files(struct browser *b, uint32_t dir, const uint32_t *skip, size_t nskip,
			  const struct file_request *req);

/* A group's files measured (or acted on) where they are, by their paths;
 * the sums made again. */
static bool group_again(struct browser *b, uint32_t node, const struct file_request *req)
{
	struct bnode before = b->tree.nodes[node];
	measure_files(b, node, NULL, 0, req);
	if (b->quit)
		return false;
	btree_sum(&b->tree, node);
	btree_fix_above(&b->tree, node, &before);
	return true;
}

/* node's path walked by req, its rows into the browser's sink (under
 * --system with the settings its file systems are walked with); into_tree:
 * the rows become nodes (btree_begin: the caller ends them, or throws them
 * away).  Returns the path walked, the caller's to free. */
static char *walk_path(struct browser *b, uint32_t node, const struct file_request *req,
		       bool into_tree, struct walk_result *result)
{
	btree_path(&b->tree, node, &b->path);
	char *path = xstrdup(b->path.data);
	char *operands[2] = { path, NULL };
	struct walk_config cfg = walk_cfg(b->system ? &b->fs_cfg : b->cfg, req);
	struct sink sink = walk_sink(b);

	if (into_tree) {
		clock_gettime(CLOCK_MONOTONIC, &b->walk.drawn);
		btree_begin(&b->tree, operands);
		b->walk.start = realtime_ns();
	}
	walk_run(&cfg, operands, &sink, result);
	return path;
}

/* Walks node's path again by req (a measure, an action), its rows in
 * place of node's; false when q stopped it or the node is gone (said).
 * A group (a cgroup, --system's deleted files) is gathered again, or its
 * files acted on by their paths. */
bool browse_walk_again(struct browser *b, uint32_t node, const struct file_request *req)
{
	if (b->tree.nodes[node].kind == BN_GROUP)
		return req->action == ACTION_NONE ? regather(b, node) : group_again(b, node, req);
	struct walk_result result = { 0 };
	char *path = walk_path(b, node, req, true, &result);
	b->walk.errors = result.errors;
	bool ok = false;
	if (b->quit) {
		btree_abandon(&b->tree);
	} else if (b->act.evicting && b->act.stop) {
		btree_abandon(&b->tree); /* a part of the walk: measured again after */
		ok = true;
	} else if (!btree_end_replace(&b->tree, node, true)) {
		b->tree.nodes[node].error = ENOENT;
		char name[4096];
		esc_terminal(name, sizeof name, path, strlen(path), b->utf8);
		browse_say(b, "%s: no longer there", name);
	} else {
		ok = true;
		b->status[0] = 0;
		browse_stamp_dirs(b, node);
	}
	free(path);
	return ok;
}

/* The files at or below dir (but not below a node of skip, sorted)
 * measured again, or acted on by req, where they are: each path an
 * operand of one walk, which opens it as it opens any file.  The sums
 * above them are left to the caller. */
static void measure_files(struct browser *b, uint32_t dir, const uint32_t *skip, size_t nskip,
			  const struct file_request *req)
{
	size_t cap = 0;
	b->walk.re_n = b->walk.re_at = 0;
	files_but(&b->tree, dir, skip, nskip, &b->walk.re_nodes, &b->walk.re_n, &cap);
	b->walk.re_paths = xcalloc(b->walk.re_n + 1, sizeof *b->walk.re_paths);
	for (size_t i = 0; i < b->walk.re_n; i++) {
		btree_path(&b->tree, b->walk.re_nodes[i], &b->path);
		b->walk.re_paths[i] = xstrdup(b->path.data);
	}
	struct walk_config cfg = walk_cfg(b->cfg, req);
	struct sink sink = walk_sink(b);
	struct walk_result result = { 0 };
	b->walk.remeasuring = true;
	if (b->walk.re_n)
		walk_run(&cfg, b->walk.re_paths, &sink, &result);
	b->walk.remeasuring = false;
	b->walk.errors = result.errors;
	for (size_t i = 0; i < b->walk.re_n; i++)
		free(b->walk.re_paths[i]);
	free(b->walk.re_paths);
	b->walk.re_paths = NULL;
	free(b->walk.re_nodes);
	b->walk.re_nodes = NULL;
	b->walk.re_n = 0;
}

/* r and i: each directory below dir (dir too) stat'ed, and one whose
 * stamp changed (entries made, removed, renamed) walked again in its place
 * as R does (new lines marked *); every other file measured again where it
 * is (no directory read), the sums made again, each child marked with its
 * change.  A group (a cgroup, --system's deleted files) is gathered again
 * whole: its processes' files are found anew. */
static void remeasure(struct browser *b, uint32_t dir)
{
	uint64_t errors = 0;
	if (b->tree.nodes[dir].kind == BN_GROUP) {
		regather(b, dir);
		return;
	}
	/* the children's figures before, to mark them (their nodes stay
	 * unless dir itself is walked again) */
	uint64_t *old = xcalloc(btree_count_children(&b->tree, dir) + 1, sizeof *old);
	size_t k = 0;
	for (uint32_t c = b->tree.nodes[dir].first; c != BNODE_NONE; c = b->tree.nodes[c].next)
		old[k++] = b->tree.nodes[c].cached;

	uint32_t *changed = NULL;
	size_t nchanged = 0, changed_cap = 0;
	if (!b->npids)
		find_changed(b, dir, &changed, &nchanged, &changed_cap);
	b->walk.rewalked = nchanged;
	for (size_t i = 0; i < nchanged && !b->quit; i++) {
		browse_walk_again(b, changed[i], b->cfg->req);
		errors += b->walk.errors;
	}
	if (b->quit || (nchanged == 1 && changed[0] == dir)) {
		/* dir walked whole: its children are new nodes, marked */
		b->walk.errors = errors;
		free(changed);
		free(old);
		return;
	}
	/* the groups at the top gathered again, and not measured by path */
	for (uint32_t c = b->tree.nodes[dir].first; c != BNODE_NONE && !b->quit;
	     c = b->tree.nodes[c].next)
		if (b->tree.nodes[c].kind == BN_GROUP) {
			regather(b, c);
			errors += b->walk.errors;
			XGROW(changed, changed_cap, nchanged + 1);
			changed[nchanged++] = c;
		}
	if (nchanged) /* (qsort of no array: a null pointer) */
		qsort(changed, nchanged, sizeof *changed, cmp_node);
	/* after the walks again, which set the directories above right */
	struct bnode before = b->tree.nodes[dir];
	measure_files(b, dir, changed, nchanged, b->cfg->req);
	free(changed);
	b->walk.errors += errors;

	btree_sum(&b->tree, dir);
	btree_fix_above(&b->tree, dir, &before);
	k = 0;
	for (uint32_t c = before.first; c != BNODE_NONE; c = b->tree.nodes[c].next, k++) {
		uint64_t was = old[k], now = b->tree.nodes[c].cached;
		b->tree.nodes[c].change = now > was ? BC_UP : now < was ? BC_DOWN : BC_SAME;
	}
	free(old);
	b->status[0] = 0;
}

void browse_refresh_dir(struct browser *b)
{
	browse_remember_selection(b);
	remeasure(b, b->dir);
	if (!b->quit && !b->status[0]) {
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		char when[16];
		(void)strftime(when, sizeof when, "%H:%M:%S", &tm);
		char walked[96] = "";
		if (b->walk.rewalked)
			snprintf(walked, sizeof walked, "; %zu dir%s walked again: * new",
				 b->walk.rewalked, b->walk.rewalked == 1 ? "" : "s");
		if (b->walk.errors)
			browse_say(b, "measured at %s: %" PRIu64 " could not be measured%s", when,
				   b->walk.errors, walked);
		else
			browse_say(b, "measured at %s: + more cached, - less%s", when, walked);
	}
	browse_make_list(b);
}

/* The first walk, or --pid's, --system's or --cgroup's again: its rows
 * under the root. */
void browse_scan(struct browser *b, char *const *operands, struct walk_result *result)
{
	struct sink sink = walk_sink(b);
	btree_begin(&b->tree, b->npids || b->system || b->cgroups ? NULL : operands);
	b->walk.start = realtime_ns();
	if (b->system) {
		struct walk_config cfg = *b->cfg;
		b->nnotes = 0;
		struct system_walk sw = { .top = cfg.system ? cfg.system->top : 0,
					  .every_dir = true };
		cfg.system = &sw;
		cfg.max_depth = 0; /* the cgroups' rows: passed over */
		system_free(b->sys);
		b->sys = system_run(&cfg, &sink, result, &b->figures);
		b->fs_cfg = *b->cfg;
		system_walk_config(b->sys, &b->fs_cfg);
	} else if (b->cgroups) {
		cgroup_run(b->cfg, b->cgroups, &sink, result);
	} else if (b->npids) {
		pid_run(b->cfg, b->pids, b->npids, &sink, result);
	} else {
		walk_run(b->cfg, operands, &sink, result);
	}
}

/* A group's files found again (a cgroup's processes' files; the files
 * deleted but held open), in place of what it held, each marked. */
static bool regather(struct browser *b, uint32_t node)
{
	struct sink sink = walk_sink(b);
	struct walk_result result = { 0 };
	struct cgroup_figures *cg = browse_cgroup_of(b, node);
	btree_begin(&b->tree, NULL);
	b->walk.start = realtime_ns();
	if (cg) {
		struct cgroup_set one = { .cgroups = cg, .n = 1 };
		cgroup_run(b->cfg, &one, &sink, &result);
	} else {
		struct pid_unseen unseen = { 0 };
		pid_run_deleted(b->cfg, &sink, &result, &unseen);
		struct row sum = { .path = system_deleted_row, .path_len = strlen(system_deleted_row),
				   .type = ROW_FILESYSTEM, .stat = result.total.stat,
				   .files = result.total.files };
		if (!b->quit)
			btree_row(&b->tree, &sum);
	}
	b->walk.errors = result.errors;
	if (b->quit) {
		btree_abandon(&b->tree);
		return false;
	}
	if (!btree_end_replace(&b->tree, node, true)) {
		btree_abandon(&b->tree);
		return false;
	}
	b->status[0] = 0;
	return true;
}

/* R: the directory walked again, files made or removed since seen too;
 * at the top of --pid, --system or --cgroup, all found again. */
void browse_rewalk_dir(struct browser *b)
{
	browse_remember_selection(b);
	if (b->dir == 0 && (b->npids || b->system || b->cgroups)) {
		struct walk_result result = { 0 };
		browse_scan(b, NULL, &result);
		if (b->quit) {
			btree_abandon(&b->tree);
		} else {
			struct row total = { .type = ROW_TOTAL, .stat = result.total.stat };
			btree_end_rescan(&b->tree, &total);
			if (b->system)
				browse_stamp_dirs(b, 0);
			b->status[0] = 0;
		}
	} else if (b->dir == 0) {
		for (uint32_t c = b->tree.nodes[0].first; c != BNODE_NONE && !b->quit;
		     c = b->tree.nodes[c].next)
			browse_walk_again(b, c, b->cfg->req);
	} else {
		browse_walk_again(b, b->dir, b->cfg->req);
	}
	if (!b->quit && !b->status[0])
		browse_say(b, "walked again: + more cached, - less, * new");
	browse_make_list(b);
}

/* e and w: req's action on node's files (its path walked, or a group's
 * files by their paths), the tree left as it is: the caller measures
 * after what the files hold, so that one the action could not open (the
 * user may not) keeps its figures.  The rows that failed are counted. */
void browse_act_walk(struct browser *b, uint32_t node, const struct file_request *req)
{
	b->act.on = true;
	b->act.failed = 0;
	b->act.error = 0;
	b->act.name[0] = 0;
	clock_gettime(CLOCK_MONOTONIC, &b->walk.drawn);
	if (b->tree.nodes[node].kind == BN_GROUP) {
		measure_files(b, node, NULL, 0, req);
	} else {
		struct walk_result result = { 0 };
		free(walk_path(b, node, req, false, &result));
	}
	b->act.on = false;
}
