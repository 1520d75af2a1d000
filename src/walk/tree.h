/* SPDX-License-Identifier: MIT */
/* A streaming directory walk in the manner of fts(3), in constant memory per directory. */
#ifndef PAGESTAT_TREE_H
#define PAGESTAT_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * glibc's fts reads each directory whole before it returns an entry of it,
 * some 300 bytes per entry; this walk reads a directory a buffer at a time
 * (getdents64) and holds a descriptor of each directory it is in, so memory
 * does not grow with the size of a directory, and a directory moved away
 * while the walk is in it is still walked to its end.  Entries come in the
 * order fts gives them with no comparison function: directory order,
 * depth first, a directory before (TREE_D) and after (TREE_DP) its
 * entries.  It never changes the working directory: an entry's name is
 * relative to dirfd.
 */

/* The most descriptors a walk holds at once: those of the directories it
 * keeps open, one more while it enters the next, two while it opens one
 * again on its way back (tree.c). */
#define TREE_FDS_MAX 67

enum tree_info {
	TREE_D,       /* a directory, before its entries */
	TREE_DP,      /* a directory, after its entries (or not entered) */
	TREE_F,       /* a regular file */
	TREE_DC,      /* a directory that is its own ancestor: not entered */
	TREE_DNR,     /* a directory that cannot be read (after its TREE_D) */
	TREE_ERR,     /* a directory lost during the walk (after its TREE_D) */
	TREE_NS,      /* no stat: err says why */
	TREE_SL,      /* a symbolic link, not followed (operands only) */
	TREE_DEFAULT, /* anything else (operands only) */
};

/* Entries below the operand that are neither directories nor regular
 * files (nor links to be followed) are not returned: their names say
 * enough (d_type) without a stat, and nothing is done with them. */

enum {
	TREE_LOGICAL = 1 << 0,   /* follow every symbolic link (-L) */
	TREE_COMFOLLOW = 1 << 1, /* follow the operand if it is one (-H) */
	TREE_XDEV = 1 << 2,      /* enter no directory on another file system */
	/* an entry below the operand that its directory entry says is a
	 * regular file (d_type DT_REG) is returned as TREE_F with no stat:
	 * statp NULL (as fts's FTS_NOSTAT, for regular files only) */
	TREE_NOSTAT = 1 << 3,
};

/* tree_ent.err for a directory found to be another one than the walk met
 * (moved or replaced meanwhile): no errno says that. */
enum { TREE_ECHANGED = -1 };

struct tree_ent {
	enum tree_info info;
	int level;              /* 0: the operand */
	const char *path;       /* from the operand, NUL-terminated */
	size_t pathlen;
	const char *name;       /* relative to dirfd: the operand itself at level 0 */
	int dirfd;              /* AT_FDCWD at level 0 */
	const struct stat *statp; /* NULL: a TREE_F of TREE_NOSTAT */
	int err;                /* TREE_DNR, TREE_ERR, TREE_NS: an errno, or TREE_ECHANGED */
	bool skipped;           /* TREE_DP: tree_skip was called on its TREE_D */
};

struct tree;

struct tree *tree_open(const char *operand, int flags);

/* The next entry, valid until the next call; NULL at the end. */
struct tree_ent *tree_read(struct tree *tree);

/* After a TREE_D: do not enter it; the next entry is its TREE_DP. */
void tree_skip(struct tree *tree);

void tree_close(struct tree *tree);

#endif
