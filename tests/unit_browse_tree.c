/* SPDX-License-Identifier: MIT */
/* Unit tests of browse_tree.c: the tree made from the walk's rows (a
 * directory's row after its contents), several operands, paths, a walk
 * again in place of a node, the sums made again, and --system's and
 * --cgroup's groups. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "tui/browse_tree.h"
#include "unit.h"

static void row(struct btree *t, const char *path, enum row_type type, uint64_t pages,
		uint64_t cached)
{
	struct row r = {
		.path = path,
		.path_len = strlen(path),
		.type = type,
		.stat = { .size = pages * 4096, .pages = pages, .cached = cached },
	};
	btree_row(t, &r);
}

/* The names of node's children, in order, space-separated. */
static char *children(const struct btree *t, uint32_t node)
{
	static char buf[512];
	size_t len = 0;
	buf[0] = '\0';
	for (uint32_t c = t->nodes[node].first; c != BNODE_NONE; c = t->nodes[c].next) {
		int n = snprintf(buf + len, sizeof buf - len, "%s%s", len ? " " : "",
				 btree_name(t, c));
		if (n < 0 || (size_t)n >= sizeof buf - len)
			break;
		len += (size_t)n;
	}
	return buf;
}

static uint32_t child(const struct btree *t, uint32_t node, const char *name)
{
	for (uint32_t c = t->nodes[node].first; c != BNODE_NONE; c = t->nodes[c].next)
		if (strcmp(btree_name(t, c), name) == 0)
			return c;
	return BNODE_NONE;
}

static void expect_path(const struct btree *t, uint32_t node, const char *want)
{
	struct strbuf sb = { 0 };
	btree_path(t, node, &sb);
	unit_expect_str("btree_path", sb.data, want);
	sb_free(&sb);
}

/* d/ holding a, s/ (holding b, e/ empty), c; then the file f; then x/
 * given as "x/", holding y */
static void build(struct btree *t)
{
	static char *ops[] = { "d", "f", "x/", NULL };
	btree_init(t);
	btree_begin(t, ops);
	row(t, "d/a", ROW_FILE, 2, 1);
	row(t, "d/s/b", ROW_FILE, 4, 4);
	row(t, "d/s/e", ROW_DIRECTORY, 0, 0);
	row(t, "d/s", ROW_DIRECTORY, 4, 4);
	row(t, "d/c", ROW_FILE, 1, 0);
	row(t, "d", ROW_DIRECTORY, 7, 5);
	row(t, "f", ROW_FILE, 3, 3);
	row(t, "x/y", ROW_FILE, 5, 2);
	row(t, "x/", ROW_DIRECTORY, 5, 2);
	struct row total = { .type = ROW_TOTAL, .stat = { .pages = 15, .cached = 10 } };
	btree_end_scan(t, &total);
}

static void test_build(void)
{
	struct btree t;
	build(&t);
	unit_expect_str("the operands", children(&t, 0), "d f x/");
	uint32_t d = child(&t, 0, "d"), s = child(&t, d, "s"), x = child(&t, 0, "x/");
	unit_expect_str("d's children, in walk order", children(&t, d), "a s c");
	unit_expect_str("s's children", children(&t, s), "b e");
	unit_expect_str("x/'s children", children(&t, x), "y");
	unit_check(t.nodes[s].kind == BN_DIR && t.nodes[s].cached == 4 && t.nodes[d].pages == 7,
		   "the directories' own rows give their figures");
	unit_check(t.nodes[0].cached == 10, "the root holds the total");
	expect_path(&t, child(&t, s, "b"), "d/s/b");
	expect_path(&t, child(&t, x, "y"), "x/y");
	expect_path(&t, child(&t, 0, "f"), "f");
	unit_check(btree_count_children(&t, d) == 3, "three below d");
	btree_free(&t);
}

static void test_replace(void)
{
	struct btree t;
	build(&t);
	uint32_t d = child(&t, 0, "d"), s = child(&t, d, "s");
	/* s walked again: b lost its pages, n is new, e is gone */
	static char *ops[] = { "d/s", NULL };
	btree_begin(&t, ops);
	row(&t, "d/s/b", ROW_FILE, 4, 1);
	row(&t, "d/s/n", ROW_FILE, 2, 2);
	row(&t, "d/s", ROW_DIRECTORY, 6, 3);
	unit_check(btree_end_replace(&t, s, true), "the walk gave s's row");
	unit_expect_str("s's children after", children(&t, s), "b n");
	uint32_t b = child(&t, s, "b"), n = child(&t, s, "n");
	unit_check(t.nodes[b].change == BC_DOWN && t.nodes[n].change == BC_NEW &&
			   t.nodes[s].change == BC_DOWN,
		   "marks: b down, n new, s down (%d %d %d)", t.nodes[b].change,
		   t.nodes[n].change, t.nodes[s].change);
	unit_check(t.nodes[d].cached == 4 && t.nodes[d].pages == 9 && t.nodes[0].cached == 9,
		   "the sums above follow: d %lu cached of %lu, root %lu",
		   (unsigned long)t.nodes[d].cached, (unsigned long)t.nodes[d].pages,
		   (unsigned long)t.nodes[0].cached);
	expect_path(&t, n, "d/s/n");
	/* a walk that gave no row leaves the node as it was */
	btree_begin(&t, ops);
	unit_check(!btree_end_replace(&t, s, false), "no row: nothing replaced");
	unit_expect_str("s kept", children(&t, s), "b n");
	/* freed nodes are used again: the count does not grow */
	size_t before = t.nnodes;
	btree_begin(&t, ops);
	row(&t, "d/s/b", ROW_FILE, 4, 1);
	row(&t, "d/s", ROW_DIRECTORY, 4, 1);
	btree_end_replace(&t, s, false);
	unit_check(t.nnodes == before, "nodes reused (%zu, was %zu)", t.nnodes, before);
	btree_free(&t);
}

static void test_sum(void)
{
	struct btree t;
	build(&t);
	uint32_t d = child(&t, 0, "d"), a = child(&t, d, "a");
	struct bnode before = t.nodes[d];
	t.nodes[a].cached = 2; /* measured again in place */
	btree_sum(&t, d);
	btree_fix_above(&t, d, &before);
	unit_check(t.nodes[d].cached == 6 && t.nodes[0].cached == 11,
		   "d and the root summed again: %lu, %lu", (unsigned long)t.nodes[d].cached,
		   (unsigned long)t.nodes[0].cached);
	uint32_t *files = NULL;
	size_t n = 0, cap = 0;
	btree_files(&t, d, &files, &n, &cap);
	unit_check(n == 3, "three files below d, %zu", n);
	free(files);
	btree_free(&t);
}

/* --system: each file system's rows after its section, its row last (a
 * file system's type), then the deleted files named whole, their sum, and
 * a block device named whole; a file system not walked (a note) is no
 * directory. */
static void test_system(void)
{
	struct btree t;
	btree_init(&t);
	btree_begin(&t, NULL);
	btree_section(&t, "/");
	row(&t, "/usr/a", ROW_FILE, 2, 1);
	row(&t, "/usr", ROW_DIRECTORY, 2, 1);
	row(&t, "/f", ROW_FILE, 1, 1);
	row(&t, "/", ROW_FILESYSTEM, 3, 2);
	btree_section(&t, "/boot");
	row(&t, "/boot/vmlinuz", ROW_FILE, 4, 4);
	row(&t, "/boot", ROW_FILESYSTEM, 4, 4);
	btree_section(&t, NULL);
	struct row overlay = { .path = "/merged", .path_len = 7, .type = ROW_FILESYSTEM,
			       .note = "not walked" };
	btree_row(&t, &overlay);
	btree_section(&t, NULL);
	row(&t, "/tmp/x (deleted)", ROW_FILE, 1, 0);
	row(&t, "/memfd:y (deleted)", ROW_FILE, 1, 1);
	row(&t, "(deleted and memfd files)", ROW_FILESYSTEM, 2, 1);
	btree_section(&t, NULL);
	row(&t, "/dev/vda", ROW_BLOCKDEV, 8, 3);
	struct row total = { .type = ROW_TOTAL, .stat = { .pages = 17, .cached = 10 } };
	btree_end_scan(&t, &total);

	unit_expect_str("the top: file systems, the group, the device", children(&t, 0),
			"/ /boot /merged (deleted and memfd files) /dev/vda");
	uint32_t root = child(&t, 0, "/"), boot = child(&t, 0, "/boot");
	uint32_t merged = child(&t, 0, "/merged"), del = child(&t, 0, "(deleted and memfd files)");
	unit_expect_str("/'s children", children(&t, root), "usr f");
	unit_expect_str("/boot's children", children(&t, boot), "vmlinuz");
	unit_expect_str("the deleted files, named whole", children(&t, del),
			"/tmp/x (deleted) /memfd:y (deleted)");
	unit_check(t.nodes[root].kind == BN_DIR && t.nodes[boot].kind == BN_DIR,
		   "a file system walked is a directory");
	unit_check(t.nodes[merged].kind == BN_OTHER, "a file system not walked is no directory");
	unit_check(t.nodes[del].kind == BN_GROUP, "the deleted files are a group");
	expect_path(&t, child(&t, child(&t, root, "usr"), "a"), "/usr/a");
	expect_path(&t, child(&t, boot, "vmlinuz"), "/boot/vmlinuz");
	expect_path(&t, child(&t, del, "/memfd:y (deleted)"), "/memfd:y (deleted)");
	expect_path(&t, child(&t, 0, "/dev/vda"), "/dev/vda");
	btree_free(&t);
}

/* --cgroup: each cgroup's files (named whole), then its row; gathered
 * again in place of its node, the changes marked. */
static void test_cgroups(void)
{
	struct btree t;
	btree_init(&t);
	btree_begin(&t, NULL);
	row(&t, "/usr/lib/libc.so.6", ROW_FILE, 4, 4);
	row(&t, "/srv/db", ROW_FILE, 10, 2);
	row(&t, "/sys/fs/cgroup/memory/a", ROW_CGROUP, 14, 6);
	row(&t, "/srv/other", ROW_FILE, 1, 1);
	row(&t, "/sys/fs/cgroup/memory/b", ROW_CGROUP, 1, 1);
	struct row total = { .type = ROW_TOTAL, .stat = { .pages = 15, .cached = 7 } };
	btree_end_scan(&t, &total);
	uint32_t a = child(&t, 0, "/sys/fs/cgroup/memory/a");
	unit_expect_str("the cgroups", children(&t, 0),
			"/sys/fs/cgroup/memory/a /sys/fs/cgroup/memory/b");
	unit_expect_str("a's files", children(&t, a), "/usr/lib/libc.so.6 /srv/db");
	unit_check(t.nodes[a].kind == BN_GROUP, "a cgroup is a group");
	expect_path(&t, child(&t, a, "/srv/db"), "/srv/db");

	btree_begin(&t, NULL);
	row(&t, "/usr/lib/libc.so.6", ROW_FILE, 4, 4);
	row(&t, "/srv/db", ROW_FILE, 10, 7);
	row(&t, "/srv/new", ROW_FILE, 2, 0);
	row(&t, "/sys/fs/cgroup/memory/a", ROW_CGROUP, 16, 11);
	unit_check(btree_end_replace(&t, a, true), "a gathered again");
	unit_expect_str("a's files again", children(&t, a), "/usr/lib/libc.so.6 /srv/db /srv/new");
	unit_check(t.nodes[child(&t, a, "/srv/db")].change == BC_UP &&
			   t.nodes[child(&t, a, "/srv/new")].change == BC_NEW &&
			   t.nodes[child(&t, a, "/usr/lib/libc.so.6")].change == BC_SAME,
		   "a's files marked");
	unit_check(t.nodes[a].cached == 11 && t.nodes[0].cached == 12,
		   "a and the top set right: %lu, %lu", (unsigned long)t.nodes[a].cached,
		   (unsigned long)t.nodes[0].cached);
	btree_free(&t);
}

void unit_browse_tree(void)
{
	test_build();
	test_replace();
	test_sum();
	test_system();
	test_cgroups();
}
