/* SPDX-License-Identifier: MIT */
/* The walk: tree over the operands, one switch on what it finds, rows out. */
#include <config.h>

#include "walk/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/devino.h"
#include "walk/event.h"
#include "walk/jobs.h"
#include "lib/msg.h"
#include "output/report.h"
#include "walk/tree.h"
#include "lib/xalloc.h"

/* --exclude's patterns without a glob's special characters, which
 * fnmatch() matches only by equality: a hash set (open addressing), so
 * that a million of them cost a lookup per entry, not a million calls;
 * the others are tried one by one. */
struct exclude_index {
	const char **exact; /* slots: NULL or a pattern */
	size_t mask;        /* slots - 1 (a power of 2), or 0 when none */
	const char **globs;
	size_t nglobs;
};

struct walk {
	const struct walk_config *cfg;
	struct exclude_index ex;
	struct report out;
	struct agg agg;
	struct devino_map seen;
	/* Paths may overlap when there are several operands ("db db/wal")
	 * or with -L: then directories and the operands that are files are
	 * remembered too (with -L every file), not only hard-linked files. */
	bool overlap;
	struct devino_map operand_files;
	struct probe_detail detail; /* -S, -e: filled for files with a row */
	struct probe_out measured;  /* a file's measure, when the walk's thread takes it */
	struct jobs *jobs;          /* -j N, N > 1: the workers */
	bool auto_jobs;             /* -j auto, no worker started yet */
	unsigned long files_met;    /* -j auto: files delivered so far */
};

/* A failure: told on stderr as du does, counted, and a row for JSON. */
static void fail(struct walk *w, long level, const char *path, size_t path_len,
		 enum row_type type, const char *what, int err)
{
	agg_fail(&w->agg, level);
	report_tell(&w->out, what, path, path_len, err);
	report_error(&w->out, path, path_len, type, err);
}

/* Rows below the operands: directories with -d N, files with -a (down
 * to N when -d is given too). */
static bool directory_row(const struct walk *w, long level)
{
	return level == 0 || level <= w->cfg->max_depth;
}

static bool file_row(const struct walk *w, long level)
{
	return level == 0 ||
	       (w->cfg->all && (w->cfg->max_depth < 0 || level <= w->cfg->max_depth));
}

/* Was this entry stat()ed through a symbolic link?  Then open through it. */
static bool followed(const struct walk *w, long level)
{
	return w->cfg->follow == FOLLOW_ALL || (w->cfg->follow == FOLLOW_ARGS && level == 0);
}

/* Can another path lead to this file or directory?  Only those are
 * remembered, so that memory grows with them, not with every file. */
static bool may_meet_again(const struct walk *w, const struct file_ident *id, bool dir)
{
	if (dir)
		return w->overlap;
	if (id->nlink > 1 || w->cfg->follow == FOLLOW_ALL)
		return true;
	return w->overlap && devino_has(&w->operand_files, id->dev, id->ino);
}

/* Whether the user could stat this name themselves (report.c), asked at
 * most once per name: *sees is -1 until asked. */
static bool user_stats(const struct file_ident *id, const char *path, bool follow, int *sees)
{
	if (*sees < 0)
		*sees = report_user_stats(id->dev, id->ino, path, follow);
	return *sees;
}

/* True when this file or directory was counted before in this run.  A
 * file is asked when its event is applied, in walk order, so that the
 * first name met is the one counted whatever the workers of -j do: a
 * regular file the walk made no stat of is known once inspected, and
 * one told when met (a link followed with -L) could otherwise be counted
 * before an earlier name of the same file.  With borrowed capabilities
 * a hard-linked file counts as met before only where its user could
 * stat the name: two names of one the user cannot stat count as two
 * files, as the user would count them, or FILES would tell them apart
 * (a file of one link met again is met by the same name, through
 * overlapping operands or links followed: that tells no identity). */
static bool seen_before(struct walk *w, const struct file_ident *id, bool dir, const char *path,
			bool follow, int *sees)
{
	return !w->cfg->count_links && id->known && may_meet_again(w, id, dir) &&
	       (!w->cfg->borrowed || dir || id->nlink < 2 || user_stats(id, path, follow, sees)) &&
	       !devino_add(&w->seen, id->dev, id->ino);
}

/* A file probed: counted, and a row when it gets one. */
static void file_done(struct walk *w, struct walk_event *ev)
{
	const struct file_ident *id = &ev->ref.id;
	int sees = -1;
	if (seen_before(w, id, false, ev->path, ev->ref.follow, &sees))
		return; /* counted where it was met first */
	if (ev->err && !id->known) {
		/* what the walk's stat would have said: the name cannot be
		 * reached (a directory that can be read, not searched) */
		fail(w, ev->level, ev->path, ev->path_len, ROW_UNKNOWN, "cannot access", ev->err);
		return;
	}
	if (ev->err) {
		fail(w, ev->level, ev->path, ev->path_len, ev->type,
		     inspect_failure_what(w->cfg->req), ev->err);
		return;
	}
	struct pagecache_stat *stat = &ev->out->stat;
	report_measured(&w->out, ev->path, ev->path_len, stat);
	agg_add(&w->agg, ev->level, stat);
	/* the identity a row shows (or is sorted by): only the user's */
	if (ev->row && (stat->known & PCS_IDENTITY) && w->out.limit_identity &&
	    !user_stats(&(struct file_ident){ .dev = id->dev, .ino = stat->inode }, ev->path,
			ev->ref.follow, &sees))
		stat->known &= ~(unsigned)PCS_IDENTITY;
	if (ev->row)
		report_row(&w->out, ev->path, ev->path_len, ev->type, stat, 1, ev->out->detail);
}

/* A directory that could not be read to its end: close its subtotal. */
static void abandon_directory(struct walk *w, long level)
{
	if (agg_is_open(&w->agg, level))
		agg_leave(&w->agg, level);
}

/* What the walk met, in walk order: totals, rows and messages.  With -j
 * the workers have probed the file; this runs on the walk's thread. */
static void apply(void *ctx, struct walk_event *ev)
{
	struct walk *w = ctx;
	const struct agg_sum *sum;

	if (w->out.output_failed)
		return;
	switch (ev->kind) {
	case EV_FILE:
		file_done(w, ev);
		break;
	case EV_ENTER:
		agg_enter(&w->agg, ev->level);
		break;
	case EV_LEAVE:
		sum = agg_leave(&w->agg, ev->level);
		if (ev->row)
			report_sum_row(&w->out, ev->path, ev->path_len, ROW_DIRECTORY, sum->files,
				       sum->failed, &sum->stat);
		break;
	case EV_FAIL:
		if (ev->abandon)
			abandon_directory(w, ev->level);
		fail(w, ev->level, ev->path, ev->path_len, ev->type, ev->what, ev->err);
		break;
	case EV_SYMLINK:
		if (!w->cfg->quiet) {
			report_say("", ev->path, ev->path_len);
			msg_more(" is a symbolic link: not followed with -P (-H, the default, "
				 "follows it)\n");
		}
		break;
	}
}

static void start_workers(struct walk *w, unsigned workers)
{
	struct jobs_config jobs_cfg = {
		.workers = workers,
		.req = w->cfg->req,
		.ins = w->cfg->ins,
		.apply = apply,
		.ctx = w,
	};
	w->jobs = jobs_start(&jobs_cfg); /* NULL: no thread, the walk probes */
}

/* To the workers with -j, else probed and applied at once. */
static void deliver(struct walk *w, struct walk_event *ev)
{
	if (w->auto_jobs && ev->kind == EV_FILE && ++w->files_met >= JOBS_AUTO_AFTER) {
		/* -j auto: a walk this big is worth the threads (all met so
		 * far is applied: the order holds) */
		w->auto_jobs = false;
		unsigned workers = jobs_auto_workers(w->cfg->req);
		if (workers)
			start_workers(w, workers);
	}
	if (w->jobs) {
		jobs_submit(w->jobs, ev);
		return;
	}
	if (ev->kind == EV_FILE) {
		ev->out = &w->measured;
		w->measured.detail = ev->want_detail ? &w->detail : NULL;
		ev->err = inspect_at(w->cfg->ins, &ev->ref, w->cfg->req, ev->out);
	}
	apply(w, ev);
}

static void visit_file(struct walk *w, const struct tree_ent *p, struct walk_event *ev,
		       enum row_type type)
{
	/* a regular file by its directory entry: its open tells the rest */
	ev->ref = (struct file_ref){
		.dirfd = p->dirfd,
		.name = p->name,
		.follow = followed(w, p->level),
		.id = p->statp ? file_ident_of(p->statp) : (struct file_ident){ 0 },
	};

	/* segments and extents cost calls: only for a file that gets a row */
	ev->kind = EV_FILE;
	ev->type = type;
	ev->row = file_row(w, p->level);
	ev->want_detail = ev->row && probe_wants_detail(&w->cfg->req->measure);
	deliver(w, ev);
}

static void fail_entry(struct walk *w, struct walk_event *ev, enum row_type type,
		       const char *what, int err)
{
	ev->kind = EV_FAIL;
	ev->type = type;
	ev->what = what;
	ev->err = err;
	deliver(w, ev);
}

/* The tree's error as a probe's, whose texts and names the rows carry. */
static int tree_error(int err)
{
	return err == TREE_ECHANGED ? FAIL_CHANGED : err;
}

/* FNV-1a */
static size_t hash_text(const char *s)
{
	uint64_t h = 14695981039346656037u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (size_t)(h ^ h >> 32);
}

static bool exact_has(const struct exclude_index *ex, const char *s)
{
	if (!ex->mask)
		return false;
	for (size_t i = hash_text(s) & ex->mask; ex->exact[i]; i = (i + 1) & ex->mask)
		if (strcmp(ex->exact[i], s) == 0)
			return true;
	return false;
}

/* fnmatch(pattern, s, 0) is strcmp unless the pattern holds one of these */
static bool is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[\\") != NULL;
}

static void index_excludes(struct exclude_index *ex, const char *const *pats, size_t n)
{
	size_t exact = 0, slots = 1;
	for (size_t i = 0; i < n; i++)
		exact += !is_glob(pats[i]);
	while (exact && slots < 2 * exact)
		slots *= 2; /* at most half full */
	if (exact) {
		ex->exact = xcalloc(slots, sizeof *ex->exact);
		ex->mask = slots - 1;
	}
	ex->globs = xcalloc(n - exact + 1, sizeof *ex->globs);
	for (size_t i = 0; i < n; i++) {
		/* (no exact table: every pattern is a glob) */
		if (!ex->exact || is_glob(pats[i])) {
			ex->globs[ex->nglobs++] = pats[i];
			continue;
		}
		size_t k = hash_text(pats[i]) & ex->mask;
		while (ex->exact[k] && strcmp(ex->exact[k], pats[i]) != 0)
			k = (k + 1) & ex->mask;
		ex->exact[k] = pats[i];
	}
}

/* --exclude: a glob matching the name or the whole path of an entry
 * below the operands (an operand is inspected as named). */
static bool excluded(const struct walk *w, const struct tree_ent *p)
{
	if (p->level == 0)
		return false;
	if (exact_has(&w->ex, p->name) || exact_has(&w->ex, p->path))
		return true;
	for (size_t i = 0; i < w->ex.nglobs; i++)
		if (fnmatch(w->ex.globs[i], p->name, 0) == 0 ||
		    fnmatch(w->ex.globs[i], p->path, 0) == 0)
			return true;
	return false;
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* --system: a directory below the operand that another walk covers. */
static bool pruned(const struct walk *w, const struct tree_ent *p)
{
	const char *path = p->path;
	/* a bind mount of a directory inside itself is a cycle too */
	const struct walk_prune *prune = w->cfg->prune;
	return p->level > 0 && (p->info == TREE_D || p->info == TREE_DC) &&
	       bsearch(&path, prune->points, prune->n, sizeof *prune->points, compare_paths);
}

/* What a file that is neither regular, a directory nor a block device is. */
static int not_regular(const struct stat *st)
{
	return S_ISFIFO(st->st_mode)  ? FAIL_FIFO
	       : S_ISSOCK(st->st_mode) ? FAIL_SOCK
	       : S_ISCHR(st->st_mode)  ? FAIL_CHR
				       : FAIL_NOTREG;
}

/* An entry --exclude or --system's prune leaves out: true when it is
 * (a directory is still entered, to be left at once). */
static bool left_out(struct walk *w, struct tree *tree, const struct tree_ent *p,
		     struct walk_event *ev)
{
	bool out = (w->cfg->nexcludes && excluded(w, p)) ||
		   (w->cfg->prune && w->cfg->prune->n && pruned(w, p));
	if (p->info == TREE_DP || !out)
		return false;
	if (p->info == TREE_D) {
		/* pruned: it comes once more, as TREE_DP, skipped */
		tree_skip(tree);
		ev->kind = EV_ENTER;
		deliver(w, ev);
	}
	return true;
}

/* A directory entered: its subtree skipped when it was met before. */
static void enter_dir(struct walk *w, struct tree *tree, const struct tree_ent *p,
		      struct walk_event *ev)
{
	struct file_ident dir = file_ident_of(p->statp);
	int sees = -1;
	if (seen_before(w, &dir, true, p->path, followed(w, p->level), &sees))
		tree_skip(tree);
	ev->kind = EV_ENTER;
	deliver(w, ev);
}

static void visit(struct walk *w, struct tree *tree, const struct tree_ent *p)
{
	struct walk_event ev = {
		.level = p->level,
		.path = p->path,
		.path_len = p->pathlen,
	};

	if (left_out(w, tree, p, &ev))
		return;
	switch (p->info) {
	case TREE_D:
		enter_dir(w, tree, p, &ev);
		break;
	case TREE_DP:
		/* a directory met before (or excluded) gives no row */
		ev.kind = EV_LEAVE;
		ev.row = !p->skipped && directory_row(w, p->level);
		deliver(w, &ev);
		break;
	case TREE_F:
		visit_file(w, p, &ev, ROW_FILE);
		break;
	case TREE_DC:
		fail_entry(w, &ev, ROW_DIRECTORY, "not descending into", FAIL_CYCLE);
		break;
	case TREE_DNR:
		ev.abandon = true;
		fail_entry(w, &ev, ROW_DIRECTORY, "cannot read directory", tree_error(p->err));
		break;
	case TREE_ERR:
		/* lost during the walk (moved or removed): what was counted
		 * in it stays counted */
		ev.abandon = true;
		fail_entry(w, &ev, ROW_DIRECTORY, "cannot access", tree_error(p->err));
		break;
	case TREE_NS:
		/* a link followed (an operand unless -P, any with -L) that
		 * leads nowhere, dangling or in a loop, says why, as du -H
		 * and du -L do */
		fail_entry(w, &ev, ROW_UNKNOWN, "cannot access", p->err);
		break;
	case TREE_SL:
		/* -P: a link named as an operand is not followed either */
		ev.kind = EV_SYMLINK;
		deliver(w, &ev);
		break;
	case TREE_DEFAULT:
		/* FIFOs, sockets and devices are never opened during a walk
		 * (the tree does not return them below the operands): opening
		 * them can block or have side effects.  A block device named
		 * on the command line shows its buffer cache. */
		if (S_ISBLK(p->statp->st_mode))
			visit_file(w, p, &ev, ROW_BLOCKDEV);
		else
			fail_entry(w, &ev, ROW_UNKNOWN, "cannot inspect", not_regular(p->statp));
		break;
	}
}

static int tree_flags(const struct walk_config *cfg)
{
	/* a regular file is not stat()ed by the walk: its probe opens it
	 * and fstat()s that, one lookup of its name instead of two */
	int flags = TREE_NOSTAT;
	if (cfg->follow == FOLLOW_ALL)
		flags |= TREE_LOGICAL;
	if (cfg->follow == FOLLOW_ARGS)
		flags |= TREE_COMFOLLOW;
	if (cfg->one_file_system)
		flags |= TREE_XDEV;
	return flags;
}

/* An operand that is a file can also be met inside another operand. */
static void note_operand_files(struct walk *w, char *const *operands)
{
	struct stat st;

	for (size_t i = 0; operands[i]; i++) {
		int flags = w->cfg->follow == FOLLOW_NONE ? AT_SYMLINK_NOFOLLOW : 0;
		if (fstatat(AT_FDCWD, operands[i], &st, flags) == 0 && !S_ISDIR(st.st_mode))
			devino_add(&w->operand_files, st.st_dev, st.st_ino);
	}
}

/* Walks one operand; false when the walk must stop (output failed). */
static bool walk_operand(struct walk *w, const char *operand)
{
	/* an empty name is no file; du reports it in its place */
	if (operand[0] == '\0') {
		fail(w, 0, "", 0, ROW_UNKNOWN, "cannot access", ENOENT);
		return !w->out.output_failed;
	}
	struct tree *tree = tree_open(operand, tree_flags(w->cfg));
	const struct tree_ent *p;
	while (!w->out.output_failed && (p = tree_read(tree)))
		visit(w, tree, p);
	tree_close(tree);
	return !w->out.output_failed;
}

bool walk_reads_processes(char *const *operands)
{
	for (size_t i = 0; operands && operands[i]; i++)
		if (strncmp(operands[i], "/proc/", 6) == 0)
			return true;
	return false;
}

void walk_run(const struct walk_config *cfg, char *const *operands,
	      struct sink *sink, struct walk_result *result)
{
	struct walk w = {
		.cfg = cfg,
		.out = { .sink = sink, .quiet = cfg->quiet, .limit_identity = cfg->limit_identity },
	};

	if (cfg->nexcludes)
		index_excludes(&w.ex, cfg->excludes, cfg->nexcludes);
	w.overlap = cfg->follow == FOLLOW_ALL || (operands[0] && operands[1]);
	if (w.overlap)
		note_operand_files(&w, operands);
	agg_init(&w.agg, inspect_known(cfg->ins));
	if (cfg->jobs > 1)
		start_workers(&w, cfg->jobs);
	else
		w.auto_jobs = cfg->jobs == 0;
	for (size_t i = 0; operands[i] && walk_operand(&w, operands[i]); i++)
		;
	if (w.jobs)
		jobs_stop(w.jobs);
	report_end(&w.out);

	result->total = *agg_total(&w.agg);
	result->errors = w.out.errors;
	result->refused = w.out.refused;
	result->output_failed = w.out.output_failed;
	agg_free(&w.agg);
	devino_free(&w.seen);
	devino_free(&w.operand_files);
	free(w.ex.exact);
	free(w.ex.globs);
	probe_detail_free(&w.detail);
	probe_out_free(&w.measured);
}
