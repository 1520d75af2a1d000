/* SPDX-License-Identifier: MIT */
/* --browse's tree in memory: a node per row of the walk (every file and
 * directory), made from the rows as they come, compact. */
#ifndef PAGESTAT_BROWSE_TREE_H
#define PAGESTAT_BROWSE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/row.h"
#include "lib/strbuf.h"

#define BNODE_NONE UINT32_MAX

/* BN_GROUP: a top entry that no path names, whose files are gathered
 * again, not walked (a cgroup of --cgroup; --system's deleted files). */
enum bnode_kind { BN_ROOT, BN_FILE, BN_DIR, BN_OTHER, BN_GROUP };

/* What a refresh found of a node's cached pages (i's highlight). */
enum bnode_change { BC_SAME, BC_UP, BC_DOWN, BC_NEW };

/* 64 bytes a node, its name aside (bench/README.md). */
struct bnode {
	uint64_t size, pages;           /* bytes; pages of the range */
	uint64_t cached, dirty, evicted; /* pages */
	uint32_t parent, first, next;   /* BNODE_NONE: none */
	uint32_t name;                  /* offset of its NUL-ended name in names */
	uint32_t stamp;                 /* a directory's: index in stamps, or BNODE_NONE */
	int16_t error;                  /* 0, an errno value or a FAIL_* code */
	uint8_t kind;                   /* enum bnode_kind */
	uint8_t change;                 /* enum bnode_change */
};

/* What identifies a directory's listing when it was read (r walks again
 * a directory whose stamp differs): its identity, and its mtime and ctime
 * in ns (an entry made, removed or renamed sets both; ctime cannot be set
 * back by utimes).  dev == ino == 0: unknown (could not be stat'ed, or
 * changed too close to the walk to tell): walked again. */
struct bstamp {
	uint64_t dev, ino;
	int64_t mtime, ctime;
};

struct btree {
	struct bnode *nodes; /* [0]: the root, above the operands */
	size_t nnodes, cap;
	char *names;
	size_t names_len, names_cap;
	uint32_t free_nodes; /* freed nodes, chained by next */
	struct bstamp *stamps; /* the directories' (free ones chained by dev) */
	size_t nstamps, stamps_cap;
	uint32_t free_stamps;
	/* while rows come: the nodes that wait for their directory's row
	 * (the walk gives a directory's row after its contents) */
	struct pending {
		uint32_t node, depth;
	} *stack;
	size_t nstack, stack_cap, floor;
	char *const *operands;
	size_t op; /* the operand whose rows come */
	char *section[2]; /* --system: the file system walked, as operands */
};

void btree_init(struct btree *t);
void btree_free(struct btree *t);

/* Rows of a walk of operands follow, each given to btree_row; with no
 * operands (--pid), each row is an entry of its own below the root. */
void btree_begin(struct btree *t, char *const *operands);
/* --system (sink_section): the rows that follow are of the file system
 * walked at top, or (NULL) each named whole.  A file system's or a
 * cgroup's row takes every row since the section or group before as its
 * own, and becomes an entry below the root. */
void btree_section(struct btree *t, const char *top);
void btree_row(struct btree *t, const struct row *row);
/* The scan's end: the operands' nodes become the root's children. */
void btree_end_scan(struct btree *t, const struct row *total);
/* --pid's files read again (R): they replace the root's, each marked
 * with its change. */
void btree_end_rescan(struct btree *t, const struct row *total);
/* A walk of node's own path again (r, i, e, w): its rows replace node's
 * figures and what is below it, the directories above it are set right,
 * and with mark each child (or node itself, a file) says how its cached
 * pages changed.  False when the walk gave no row for it (node kept). */
bool btree_end_replace(struct btree *t, uint32_t node, bool mark);
/* After node's figures changed from before's: the directories above it
 * set right. */
void btree_fix_above(struct btree *t, uint32_t node, const struct bnode *before);
/* node's directories summed again from the files below them (r: each
 * file measured again in place). */
void btree_sum(struct btree *t, uint32_t node);
/* The file nodes at or below node, appended to *files. */
void btree_files(const struct btree *t, uint32_t node, uint32_t **files, size_t *n,
		 size_t *cap);
/* node's stamp (a directory's), made or replaced. */
void btree_set_stamp(struct btree *t, uint32_t node, const struct bstamp *s);
/* node's stamp, or NULL when it has none. */
const struct bstamp *btree_stamp(const struct btree *t, uint32_t node);
/* The rows so far thrown away (a walk stopped by q). */
void btree_abandon(struct btree *t);

static inline const char *btree_name(const struct btree *t, uint32_t node)
{
	return t->names + t->nodes[node].name;
}
/* The path the walk names node by: the operand, then each name. */
void btree_path(const struct btree *t, uint32_t node, struct strbuf *sb);
/* How many nodes are right below node. */
size_t btree_count_children(const struct btree *t, uint32_t node);

#endif
