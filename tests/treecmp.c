/* SPDX-License-Identifier: MIT */
/* Walks each operand with glibc's fts(3) and with src/walk/tree.c, and fails
 * unless both give the same entries, in the same order, with the same
 * cases, errors and inodes: tree.c stands in for fts and must keep its
 * walk.
 *
 * usage: treecmp [-H | -L] [-x] PATH...
 *
 * tree.c leaves out what the walk never uses, so those are left out of
 * fts's list too: below the operand, symbolic links not followed and
 * FIFOs, sockets and devices.  fts's FTS_SLNONE (a link to follow that
 * leads nowhere) is tree.c's TREE_NS.  tree.c is walked twice: as it is,
 * and with TREE_NOSTAT (as pagestat walks), where a regular file comes
 * with no stat: its inode is then asked of its name here, so that both
 * walks must give fts's list.  Prints "ok N entries" per operand, or the
 * first difference and exits 1. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "walk/tree.h"

struct entry {
	char *text; /* "CASE LEVEL PATH errno=E ino=I" */
};

struct list {
	struct entry *entries;
	size_t count, cap;
};

static void add(struct list *list, const char *info, long level, const char *path, int err,
		const struct stat *st)
{
	if (list->count == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 256;
		list->entries = realloc(list->entries, list->cap * sizeof *list->entries);
		if (!list->entries) {
			perror("treecmp");
			exit(2);
		}
	}
	char *text;
	uintmax_t ino = st ? (uintmax_t)st->st_ino : 0;
	if (asprintf(&text, "%s %ld %s errno=%d ino=%ju", info, level, path, err, ino) < 0) {
		perror("treecmp");
		exit(2);
	}
	list->entries[list->count++].text = text;
}

static void walk_fts(struct list *list, char *operand, int follow, bool xdev)
{
	char *roots[] = { operand, NULL };
	int flags = follow == 'L' ? FTS_LOGICAL : FTS_PHYSICAL;
	if (follow == 'H')
		flags |= FTS_COMFOLLOW;
	if (xdev)
		flags |= FTS_XDEV;
	FTS *fts = fts_open(roots, flags, NULL);
	if (!fts) {
		perror("treecmp: fts_open");
		exit(2);
	}
	FTSENT *p;
	while ((errno = 0, p = fts_read(fts))) {
		const struct stat *st = p->fts_statp;
		switch (p->fts_info) {
		case FTS_D:
			add(list, "D", p->fts_level, p->fts_path, 0, st);
			break;
		case FTS_DP:
			add(list, "DP", p->fts_level, p->fts_path, 0, st);
			break;
		case FTS_F:
			add(list, "F", p->fts_level, p->fts_path, 0, st);
			break;
		case FTS_DC:
			add(list, "DC", p->fts_level, p->fts_path, 0, st);
			break;
		case FTS_DNR:
			add(list, "DNR", p->fts_level, p->fts_path, p->fts_errno, st);
			break;
		case FTS_ERR:
			add(list, "ERR", p->fts_level, p->fts_path, p->fts_errno, st);
			break;
		case FTS_NS:
			add(list, "NS", p->fts_level, p->fts_path, p->fts_errno, NULL);
			break;
		case FTS_SLNONE: {
			/* fts says not why; the walk asks stat(2) */
			struct stat ignored;
			int err = stat(p->fts_accpath, &ignored) == 0 ? 0 : errno;
			add(list, "NS", p->fts_level, p->fts_path, err, NULL);
			break;
		}
		case FTS_SL:
			if (p->fts_level == 0)
				add(list, "SL", 0, p->fts_path, 0, st);
			break;
		default:
			if (p->fts_level == 0)
				add(list, "DEFAULT", 0, p->fts_path, 0, st);
			break;
		}
	}
	if (errno) {
		perror("treecmp: fts_read");
		exit(2);
	}
	fts_close(fts);
}

static void walk_tree(struct list *list, const char *operand, int follow, bool xdev,
		      bool nostat)
{
	static const char *const names[] = {
		[TREE_D] = "D",     [TREE_DP] = "DP",   [TREE_F] = "F",
		[TREE_DC] = "DC",   [TREE_DNR] = "DNR", [TREE_ERR] = "ERR",
		[TREE_NS] = "NS",   [TREE_SL] = "SL",   [TREE_DEFAULT] = "DEFAULT",
	};
	int flags = follow == 'L' ? TREE_LOGICAL : follow == 'H' ? TREE_COMFOLLOW : 0;
	if (xdev)
		flags |= TREE_XDEV;
	if (nostat)
		flags |= TREE_NOSTAT;
	struct tree *tree = tree_open(operand, flags);
	const struct tree_ent *e;
	while ((e = tree_read(tree))) {
		const struct stat *st = e->info == TREE_NS ? NULL : e->statp;
		struct stat asked;
		if (e->info == TREE_F && !e->statp) {
			/* TREE_NOSTAT: a regular file by its entry's type */
			if (fstatat(e->dirfd, e->name, &asked, AT_SYMLINK_NOFOLLOW) != 0 ||
			    !S_ISREG(asked.st_mode)) {
				printf("TREE_NOSTAT gave %s as a regular file: it is not\n", e->path);
				exit(1);
			}
			st = &asked;
		}
		add(list, names[e->info], e->level, e->path, e->err, st);
	}
	tree_close(tree);
}

int main(int argc, char **argv)
{
	int follow = 'P', opt;
	bool xdev = false;

	while ((opt = getopt(argc, argv, "HLPx")) != -1) {
		if (opt == 'x')
			xdev = true;
		else if (opt == '?')
			return 2;
		else
			follow = opt;
	}
	int status = 0;
	for (int k = 0; k < 2 * (argc - optind); k++) {
		int i = optind + k / 2;
		bool nostat = k % 2;
		struct list by_fts = { 0 }, by_tree = { 0 };
		walk_fts(&by_fts, argv[i], follow, xdev);
		walk_tree(&by_tree, argv[i], follow, xdev, nostat);
		size_t n = by_fts.count > by_tree.count ? by_fts.count : by_tree.count;
		bool same = true;
		for (size_t j = 0; j < n && same; j++) {
			const char *a = j < by_fts.count ? by_fts.entries[j].text : "(end)";
			const char *b = j < by_tree.count ? by_tree.entries[j].text : "(end)";
			if (strcmp(a, b) != 0) {
				printf("differ at entry %zu of %s%s:\n  fts:  %s\n  tree: %s\n", j,
				       argv[i], nostat ? " (TREE_NOSTAT)" : "", a, b);
				status = 1;
				same = false;
			}
		}
		if (same)
			printf("ok %zu entries in %s%s\n", by_fts.count, argv[i],
			       nostat ? " (TREE_NOSTAT)" : "");
		for (size_t j = 0; j < by_fts.count; j++)
			free(by_fts.entries[j].text);
		for (size_t j = 0; j < by_tree.count; j++)
			free(by_tree.entries[j].text);
		free(by_fts.entries);
		free(by_tree.entries);
	}
	return status;
}
