/* SPDX-License-Identifier: MIT */
/* --browse's tree in memory, made from the walk's rows. */
#include <config.h>

#include "tui/browse_tree.h"

#include <stdlib.h>
#include <string.h>

#include "lib/msg.h"
#include "lib/xalloc.h"

_Static_assert(sizeof(struct bnode) <= 64, "a node is at most 64 bytes");

static uint32_t new_node(struct btree *t)
{
	uint32_t n = t->free_nodes;
	if (n != BNODE_NONE) {
		t->free_nodes = t->nodes[n].next;
	} else {
		if (t->nnodes >= BNODE_NONE) {
			msg("--browse: more than %u files and directories\n", BNODE_NONE - 1);
			abort();
		}
		XGROW(t->nodes, t->cap, t->nnodes + 1);
		n = (uint32_t)t->nnodes++;
	}
	t->nodes[n] = (struct bnode){ .parent = BNODE_NONE, .first = BNODE_NONE,
				      .next = BNODE_NONE, .stamp = BNODE_NONE };
	return n;
}

static uint32_t add_name(struct btree *t, const char *s, size_t n)
{
	if (t->names_len + n + 1 > UINT32_MAX) {
		msg("--browse: more than 4 GiB of names\n");
		abort();
	}
	XGROW(t->names, t->names_cap, t->names_len + n + 1);
	uint32_t at = (uint32_t)t->names_len;
	memcpy(t->names + at, s, n);
	t->names[at + n] = '\0';
	t->names_len += n + 1;
	return at;
}

void btree_init(struct btree *t)
{
	*t = (struct btree){ .free_nodes = BNODE_NONE, .free_stamps = BNODE_NONE };
	uint32_t root = new_node(t);
	t->nodes[root].kind = BN_ROOT;
	t->nodes[root].name = add_name(t, "", 0);
}

void btree_free(struct btree *t)
{
	free(t->nodes);
	free(t->names);
	free(t->stack);
	free(t->stamps);
	*t = (struct btree){ 0 };
}

void btree_begin(struct btree *t, char *const *operands)
{
	t->nstack = t->floor = 0;
	t->operands = operands;
	t->op = 0;
}

void btree_section(struct btree *t, const char *top)
{
	t->section[0] = (char *)top; /* only read */
	t->section[1] = NULL;
	t->operands = top ? t->section : NULL;
	t->op = 0;
	t->floor = t->nstack;
}

/* Does path begin with the operand (the walk keeps its prefix, like du)? */
static bool under_operand(const char *path, size_t len, const char *op)
{
	size_t n = strlen(op);
	if (len < n || memcmp(path, op, n) != 0)
		return false;
	return len == n || path[n] == '/' || (n > 0 && op[n - 1] == '/');
}

/* Names below the operand in path[from..len): its depth. */
static uint32_t depth_below(const char *path, size_t from, size_t len)
{
	uint32_t depth = 0;
	for (size_t i = from; i < len; i++)
		if (path[i] != '/' && (i == from || path[i - 1] == '/'))
			depth++;
	return depth;
}

static enum bnode_kind kind_of(const struct btree *t, const struct row *row)
{
	switch (row->type) {
	case ROW_FILE:
	case ROW_BLOCKDEV:
		return BN_FILE;
	case ROW_DIRECTORY:
		return BN_DIR;
	case ROW_CGROUP:
		return BN_GROUP;
	case ROW_FILESYSTEM:
		/* walked at its mount point, a directory; not walked (its note
		 * says why), nothing below it; the deleted files' sum, a group */
		return row->note ? BN_OTHER : t->operands ? BN_DIR : BN_GROUP;
	default:
		return BN_OTHER;
	}
}

/* A group's row (a file system's, a cgroup's): the rows since the group
 * before are its own. */
static bool is_group_row(const struct row *row)
{
	return row->type == ROW_FILESYSTEM || row->type == ROW_CGROUP;
}

static void set_figures(struct bnode *n, const struct row *row)
{
	n->error = (int16_t)row->error;
	if (row->error)
		return;
	n->size = row->stat.size;
	n->pages = row->stat.pages;
	n->cached = row->stat.cached;
	n->dirty = row->stat.dirty;
	n->evicted = row->stat.evicted;
}

void btree_row(struct btree *t, const struct row *row)
{
	const char *path = row->path;
	size_t len = row->path_len;
	if (!path)
		return;
	/* the operands' rows come one operand after the other */
	if (t->operands && t->operands[t->op] && !under_operand(path, len, t->operands[t->op]))
		for (size_t k = t->op + 1; t->operands[k]; k++)
			if (under_operand(path, len, t->operands[k])) {
				t->op = k;
				t->floor = t->nstack;
				break;
			}
	size_t oplen = t->operands && t->operands[t->op] ? strlen(t->operands[t->op]) : 0;
	if (oplen > len)
		oplen = len;
	/* no operands (--pid): each row a file of its own, named whole */
	uint32_t depth = t->operands ? depth_below(path, oplen, len) : 0;

	uint32_t n = new_node(t);
	struct bnode *node = &t->nodes[n];
	node->kind = kind_of(t, row);
	set_figures(node, row);
	if (depth == 0 || is_group_row(row)) {
		node->name = add_name(t, path, len);
	} else {
		size_t end = len;
		while (end > 0 && path[end - 1] == '/')
			end--;
		size_t start = end;
		while (start > 0 && path[start - 1] != '/')
			start--;
		t->nodes[n].name = add_name(t, path + start, end - start);
	}
	/* a directory's row: what waits deeper is its contents, in walk
	 * order; a group's: what waits since the group before */
	bool group = is_group_row(row);
	if (row->type == ROW_DIRECTORY || group) {
		uint32_t last = BNODE_NONE;
		while (t->nstack > t->floor && (group || t->stack[t->nstack - 1].depth > depth)) {
			uint32_t c = t->stack[--t->nstack].node;
			t->nodes[c].parent = n;
			t->nodes[c].next = last;
			last = c;
		}
		t->nodes[n].first = last;
	}
	XGROW(t->stack, t->stack_cap, t->nstack + 1);
	t->stack[t->nstack++] = (struct pending){ .node = n, .depth = depth };
	if (group)
		t->floor = t->nstack;
}

/* The nodes still waiting, chained under parent in walk order; returns
 * the first. */
static uint32_t adopt_pending(struct btree *t, uint32_t parent)
{
	uint32_t first = BNODE_NONE, *link = &first;
	for (size_t i = 0; i < t->nstack; i++) {
		uint32_t c = t->stack[i].node;
		t->nodes[c].parent = parent;
		t->nodes[c].next = BNODE_NONE;
		*link = c;
		link = &t->nodes[c].next;
	}
	t->nstack = t->floor = 0;
	return first;
}

void btree_end_scan(struct btree *t, const struct row *total)
{
	struct bnode *root = &t->nodes[0];
	root->first = adopt_pending(t, 0);
	root = &t->nodes[0];
	set_figures(root, total);
	root->error = 0;
}

struct old_child {
	const char *name;
	uint64_t cached;
};

static void free_subtree(struct btree *t, uint32_t node);
static void mark_children(struct btree *t, uint32_t node, struct old_child *olds,
			  size_t nolds);

void btree_end_rescan(struct btree *t, const struct row *total)
{
	struct old_child *olds = NULL;
	size_t nolds = 0, cap = 0;
	for (uint32_t c = t->nodes[0].first; c != BNODE_NONE; c = t->nodes[c].next) {
		XGROW(olds, cap, nolds + 1);
		olds[nolds++] = (struct old_child){ .name = btree_name(t, c),
						    .cached = t->nodes[c].cached };
	}
	uint32_t old_first = t->nodes[0].first;
	btree_end_scan(t, total);
	mark_children(t, 0, olds, nolds);
	free(olds);
	for (uint32_t c = old_first; c != BNODE_NONE;) {
		uint32_t next = t->nodes[c].next;
		free_subtree(t, c);
		c = next;
	}
}

/* node and everything below it back to the free nodes. */
static void free_subtree(struct btree *t, uint32_t node)
{
	uint32_t c = t->nodes[node].first;
	while (c != BNODE_NONE) {
		uint32_t next = t->nodes[c].next;
		free_subtree(t, c);
		c = next;
	}
	uint32_t s = t->nodes[node].stamp;
	if (s != BNODE_NONE) {
		t->stamps[s].dev = t->free_stamps;
		t->free_stamps = s;
		t->nodes[node].stamp = BNODE_NONE;
	}
	t->nodes[node].next = t->free_nodes;
	t->nodes[node].first = BNODE_NONE;
	t->free_nodes = node;
}

void btree_set_stamp(struct btree *t, uint32_t node, const struct bstamp *s)
{
	uint32_t at = t->nodes[node].stamp;
	if (at == BNODE_NONE) {
		at = t->free_stamps;
		if (at != BNODE_NONE) {
			t->free_stamps = (uint32_t)t->stamps[at].dev;
		} else {
			/* fewer directories than nodes: never more than UINT32_MAX */
			XGROW(t->stamps, t->stamps_cap, t->nstamps + 1);
			at = (uint32_t)t->nstamps++;
		}
		t->nodes[node].stamp = at;
	}
	t->stamps[at] = *s;
}

const struct bstamp *btree_stamp(const struct btree *t, uint32_t node)
{
	uint32_t at = t->nodes[node].stamp;
	return at == BNODE_NONE ? NULL : &t->stamps[at];
}

void btree_abandon(struct btree *t)
{
	for (size_t i = 0; i < t->nstack; i++)
		free_subtree(t, t->stack[i].node);
	t->nstack = t->floor = 0;
}


static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct old_child *)a)->name, ((const struct old_child *)b)->name);
}

static enum bnode_change change_of(uint64_t before, uint64_t after)
{
	return after > before ? BC_UP : after < before ? BC_DOWN : BC_SAME;
}

/* Each child of node: how its cached pages differ from olds'. */
static void mark_children(struct btree *t, uint32_t node, struct old_child *olds, size_t nolds)
{
	if (nolds)
		qsort(olds, nolds, sizeof *olds, by_name);
	for (uint32_t c = t->nodes[node].first; c != BNODE_NONE; c = t->nodes[c].next) {
		struct old_child key = { .name = btree_name(t, c) };
		struct old_child *o =
			nolds ? bsearch(&key, olds, nolds, sizeof *olds, by_name) : NULL;
		t->nodes[c].change = o ? change_of(o->cached, t->nodes[c].cached) : BC_NEW;
	}
}

bool btree_end_replace(struct btree *t, uint32_t node, bool mark)
{
	/* the walk of one operand, node's path: its own row last */
	if (t->nstack == 0) {
		return false;
	}
	uint32_t fresh = t->stack[t->nstack - 1].node;
	t->nstack--;
	btree_abandon(t);

	struct bnode before = t->nodes[node];
	struct old_child *olds = NULL;
	size_t nolds = 0, cap = 0;
	for (uint32_t c = before.first; c != BNODE_NONE; c = t->nodes[c].next) {
		if (mark) {
			XGROW(olds, cap, nolds + 1);
			olds[nolds++] = (struct old_child){ .name = btree_name(t, c),
							    .cached = t->nodes[c].cached };
		}
	}
	/* the old children go after the marks have read their names (the
	 * names stay: freed nodes keep no name) */
	struct bnode *n = &t->nodes[node], *f = &t->nodes[fresh];
	n->size = f->size;
	n->pages = f->pages;
	n->cached = f->cached;
	n->dirty = f->dirty;
	n->evicted = f->evicted;
	n->error = f->error;
	n->kind = f->kind;
	n->first = f->first;
	for (uint32_t c = n->first; c != BNODE_NONE; c = t->nodes[c].next)
		t->nodes[c].parent = node;
	f->first = BNODE_NONE;
	free_subtree(t, fresh);
	if (mark) {
		mark_children(t, node, olds, nolds);
		t->nodes[node].change = change_of(before.cached, t->nodes[node].cached);
	}
	free(olds);
	for (uint32_t c = before.first; c != BNODE_NONE;) {
		uint32_t next = t->nodes[c].next;
		free_subtree(t, c);
		c = next;
	}
	btree_fix_above(t, node, &before);
	return true;
}

void btree_fix_above(struct btree *t, uint32_t node, const struct bnode *before_)
{
	/* the directories above: their sums change by as much (modulo 2^64) */
	struct bnode before = *before_, *n = &t->nodes[node];
	uint64_t dsize = n->size - before.size, dpages = n->pages - before.pages,
		 dcached = n->cached - before.cached, ddirty = n->dirty - before.dirty,
		 devicted = n->evicted - before.evicted;
	for (uint32_t p = n->parent; p != BNODE_NONE; p = t->nodes[p].parent) {
		struct bnode *a = &t->nodes[p];
		a->size += dsize;
		a->pages += dpages;
		a->cached += dcached;
		a->dirty += ddirty;
		a->evicted += devicted;
	}
}

void btree_sum(struct btree *t, uint32_t node)
{
	struct bnode *n = &t->nodes[node];
	if (n->kind != BN_DIR && n->kind != BN_ROOT && n->kind != BN_GROUP)
		return;
	uint64_t size = 0, pages = 0, cached = 0, dirty = 0, evicted = 0;
	for (uint32_t c = n->first; c != BNODE_NONE; c = t->nodes[c].next) {
		btree_sum(t, c);
		const struct bnode *k = &t->nodes[c];
		if (k->error)
			continue;
		size += k->size;
		pages += k->pages;
		cached += k->cached;
		dirty += k->dirty;
		evicted += k->evicted;
	}
	n = &t->nodes[node];
	if (n->error)
		return; /* a directory that could not be read: nothing below it */
	n->size = size;
	n->pages = pages;
	n->cached = cached;
	n->dirty = dirty;
	n->evicted = evicted;
}

void btree_files(const struct btree *t, uint32_t node, uint32_t **files, size_t *n,
		 size_t *cap)
{
	const struct bnode *x = &t->nodes[node];
	if (x->kind == BN_FILE) {
		XGROW(*files, *cap, *n + 1);
		(*files)[(*n)++] = node;
		return;
	}
	for (uint32_t c = x->first; c != BNODE_NONE; c = t->nodes[c].next)
		btree_files(t, c, files, n, cap);
}

void btree_path(const struct btree *t, uint32_t node, struct strbuf *sb)
{
	/* filled from its end: each name, a '/' before it unless the name
	 * above ends with one (an operand given as "dir/"); an entry of a
	 * group (a cgroup's file) is named whole, as a top one */
	size_t total = 0;
	uint32_t top = BNODE_NONE; /* the first name of the path */
	for (uint32_t n = node; n != BNODE_NONE && n != 0;) {
		total += strlen(btree_name(t, n)) + 1;
		top = n;
		uint32_t p = t->nodes[n].parent;
		if (p != BNODE_NONE && t->nodes[p].kind == BN_GROUP)
			break;
		n = p;
	}
	sb->len = 0;
	sb_reserve(sb, total + 1);
	size_t at = total;
	sb->data[at] = '\0';
	for (uint32_t n = node; n != BNODE_NONE && n != 0; n = t->nodes[n].parent) {
		const char *name = btree_name(t, n);
		size_t len = strlen(name);
		at -= len;
		memcpy(sb->data + at, name, len);
		if (n == top)
			break;
		uint32_t p = t->nodes[n].parent;
		if (p != BNODE_NONE && p != 0) {
			const char *above = btree_name(t, p);
			size_t alen = strlen(above);
			if (alen == 0 || above[alen - 1] != '/')
				sb->data[--at] = '/';
		}
	}
	memmove(sb->data, sb->data + at, total - at + 1);
	sb->len = total - at;
}

size_t btree_count_children(const struct btree *t, uint32_t node)
{
	size_t n = 0;
	for (uint32_t c = t->nodes[node].first; c != BNODE_NONE; c = t->nodes[c].next)
		n++;
	return n;
}
