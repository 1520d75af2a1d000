/* SPDX-License-Identifier: MIT */
/* The directory walk: getdents64 a buffer at a time, a descriptor per directory it is in. */
#include <config.h>

#include "walk/tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"

/* Bytes asked of getdents64 at a time: some 500 short names. */
#define DIRENT_BUFFER ((size_t)16 << 10)

/* Directories this deep and deeper are read to their end and closed
 * before the walk enters one of their subdirectories, so that a chain of
 * thousands holds no more than this many descriptors; their remaining
 * entries are held instead (few, in such chains), and the directory is
 * opened again through ".." when the walk comes back. */
#define LEVELS_HELD 64
_Static_assert(TREE_FDS_MAX >= LEVELS_HELD + 1 + 2, "tree.h's TREE_FDS_MAX counts them");

enum level_state {
	LEVEL_PENDING, /* returned as TREE_D, not entered yet */
	LEVEL_READING,
	LEVEL_LOST,    /* could not be opened again: err says why */
};

/* A directory the walk is in (or about to enter). */
struct level {
	enum level_state state;
	int fd;             /* -1 while pending, or once read whole */
	struct stat st;
	size_t pathlen;     /* its path is t->path[0, pathlen) */
	size_t name_off;    /* and its name starts here */
	bool skip;
	bool eof;           /* getdents64 said no more (or the buffer holds the rest) */
	int err;            /* getdents64 or LEVEL_LOST */
	char *buf;          /* struct dirent64 records */
	size_t cap, pos, end;
};

struct tree {
	int flags;
	bool started;
	dev_t root_dev;
	struct level *levels; /* [0, depth): the operand first */
	size_t depth, levels_cap;
	char *path;
	size_t path_cap;
	struct stat st;     /* of the last entry that is not a directory */
	struct tree_ent ent;
};

static bool follows(const struct tree *t, size_t level)
{
	return (t->flags & TREE_LOGICAL) || ((t->flags & TREE_COMFOLLOW) && level == 0);
}

static int open_flags(const struct tree *t, size_t level)
{
	return O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC |
	       (follows(t, level) ? 0 : O_NOFOLLOW);
}

/* Is fd the directory the walk met as st? */
static bool same_directory(int fd, const struct stat *st)
{
	struct stat now;
	return fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

static void path_reserve(struct tree *t, size_t need)
{
	XGROW(t->path, t->path_cap, need);
}

struct tree *tree_open(const char *operand, int flags)
{
	struct tree *t = xcalloc(1, sizeof *t);
	size_t len = strlen(operand);

	t->flags = flags;
	path_reserve(t, len + 1);
	memcpy(t->path, operand, len + 1);
	t->ent.pathlen = len;
	return t;
}

static struct level *push(struct tree *t, const struct stat *st, size_t pathlen,
			  size_t name_off)
{
	XGROW(t->levels, t->levels_cap, t->depth + 1);
	struct level *lv = &t->levels[t->depth++];
	*lv = (struct level){
		.state = LEVEL_PENDING,
		.fd = -1,
		.st = *st,
		.pathlen = pathlen,
		.name_off = name_off,
	};
	return lv;
}

/* The entry for the directory on top of the stack, which it then leaves. */
static struct tree_ent *pop(struct tree *t, enum tree_info info, int err)
{
	size_t k = t->depth - 1;
	struct level *lv = &t->levels[k];
	struct tree_ent *e = &t->ent;

	t->path[lv->pathlen] = '\0';
	*e = (struct tree_ent){
		.info = info,
		.level = (int)k,
		.path = t->path,
		.pathlen = lv->pathlen,
		.name = t->path + lv->name_off,
		.dirfd = k ? t->levels[k - 1].fd : AT_FDCWD,
		.statp = &lv->st, /* the slot stays until the next push */
		.err = err,
		.skipped = lv->skip,
	};
	if (lv->fd >= 0)
		close(lv->fd);
	free(lv->buf);
	t->depth--;
	return e;
}

/* Level k opened through ".." of its subdirectory, if that is still
 * where it was; else -1. */
static int reopen_up(const struct tree *t, size_t k, int child_fd)
{
	if (child_fd < 0)
		return -1;
	int fd = openat(child_fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && !same_directory(fd, &t->levels[k].st)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Level k, read whole and closed, opened again: through ".." of its
 * subdirectory, else down from the deepest directory still open, each
 * step checked.  -1 and *err when the walk cannot get back (a directory
 * was moved or removed). */
static int reopen(const struct tree *t, size_t k, int child_fd, int *err)
{
	*err = 0;
	int up = reopen_up(t, k, child_fd);
	if (up >= 0)
		return up;
	size_t j = k;
	while (j > 0 && t->levels[j - 1].fd < 0)
		j--;
	int from = j ? t->levels[j - 1].fd : AT_FDCWD;
	for (; j <= k; j++) {
		const struct level *lv = &t->levels[j];
		/* the operand's whole path, or one name */
		char *name = strndup(t->path + lv->name_off, lv->pathlen - lv->name_off);
		int fd = name ? openat(from, name, open_flags(t, j)) : -1;
		*err = name ? errno : ENOMEM;
		free(name);
		if (from >= 0 && from != t->levels[j ? j - 1 : 0].fd)
			close(from); /* one of ours, opened on the way down */
		if (fd < 0)
			return -1;
		if (!same_directory(fd, &lv->st)) {
			close(fd);
			*err = TREE_ECHANGED;
			return -1;
		}
		from = fd;
	}
	return from;
}

/* Reads a directory's next records into buf: bytes read, 0 at its end,
 * -1 and errno.  A directory removed while open has no more entries:
 * getdents64 then fails with ENOENT, which readdir(3) takes as the end,
 * as POSIX asks, and so does the walk (nothing was left unread). */
static ssize_t read_records(int fd, char *buf, size_t cap)
{
	ssize_t n = getdents64(fd, buf, cap);
	return n < 0 && errno == ENOENT ? 0 : n;
}

/* Reads the rest of a directory into its buffer and closes it. */
static void read_whole(struct level *lv)
{
	memmove(lv->buf, lv->buf + lv->pos, lv->end - lv->pos);
	lv->end -= lv->pos;
	lv->pos = 0;
	while (!lv->eof) {
		if (lv->cap - lv->end < DIRENT_BUFFER) {
			lv->cap = lv->end + 2 * DIRENT_BUFFER;
			lv->buf = xrealloc(lv->buf, lv->cap);
		}
		ssize_t n = read_records(lv->fd, lv->buf + lv->end, lv->cap - lv->end);
		if (n <= 0) {
			lv->eof = true;
			if (n < 0)
				lv->err = errno;
		} else {
			lv->end += (size_t)n;
		}
	}
	lv->cap = lv->end;
	lv->buf = xrealloc(lv->buf, lv->cap);
	close(lv->fd);
	lv->fd = -1;
}

/* Opens the directory on top of the stack; 0 or an error. */
static int enter(struct tree *t)
{
	size_t k = t->depth - 1;
	struct level *lv = &t->levels[k];
	int parent = k ? t->levels[k - 1].fd : AT_FDCWD;

	lv->fd = openat(parent, t->path + lv->name_off, open_flags(t, k));
	if (lv->fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? TREE_ECHANGED : errno;
	if (!same_directory(lv->fd, &lv->st)) {
		close(lv->fd);
		lv->fd = -1;
		return TREE_ECHANGED;
	}
	lv->cap = DIRENT_BUFFER;
	lv->buf = xrealloc(NULL, lv->cap);
	lv->state = LEVEL_READING;
	if (k >= LEVELS_HELD + 1)
		read_whole(&t->levels[k - 1]);
	return 0;
}

static bool is_dot(const char *name)
{
	return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* The next record of a directory, "." and ".." left out; NULL at its end. */
static const struct dirent64 *next_record(struct level *lv)
{
	for (;;) {
		while (lv->pos < lv->end) {
			const struct dirent64 *d = (const void *)(lv->buf + lv->pos);
			lv->pos += d->d_reclen;
			if (is_dot(d->d_name))
				continue;
			return d;
		}
		if (lv->eof)
			return NULL;
		ssize_t n = read_records(lv->fd, lv->buf, lv->cap);
		if (n <= 0) {
			lv->eof = true;
			if (n < 0)
				lv->err = errno;
			return NULL;
		}
		lv->pos = 0;
		lv->end = (size_t)n;
	}
}

/* Is a directory one of the directories the walk is in? */
static bool is_ancestor(const struct tree *t, const struct stat *st)
{
	for (size_t i = 0; i < t->depth; i++)
		if (t->levels[i].st.st_ino == st->st_ino && t->levels[i].st.st_dev == st->st_dev)
			return true;
	return false;
}

/* The entry for a record of the directory on top; NULL when it is one
 * that is not returned. */
static struct tree_ent *visit_record(struct tree *t, const struct dirent64 *d)
{
	size_t k = t->depth - 1;
	bool follow = follows(t, k + 1);

	switch (d->d_type) {
	case DT_FIFO:
	case DT_SOCK:
	case DT_CHR:
	case DT_BLK:
		return NULL;
	case DT_LNK:
		if (!follow)
			return NULL;
		break;
	default:
		break;
	}

	const struct level *lv = &t->levels[k];
	size_t base = lv->pathlen;
	size_t len = strlen(d->d_name);
	/* "dir/" and "/" take no second slash, as with fts */
	size_t name_off = base && t->path[base - 1] == '/' ? base : base + 1;
	path_reserve(t, name_off + len + 1);
	t->path[name_off - 1] = '/';
	memcpy(t->path + name_off, d->d_name, len + 1);

	struct tree_ent *e = &t->ent;
	*e = (struct tree_ent){
		.level = (int)k + 1,
		.path = t->path,
		.pathlen = name_off + len,
		.name = t->path + name_off,
		.dirfd = lv->fd,
		.statp = &t->st,
	};
	if (d->d_type == DT_REG && (t->flags & TREE_NOSTAT)) {
		e->info = TREE_F;
		e->statp = NULL;
		return e;
	}
	if (fstatat(lv->fd, e->name, &t->st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0) {
		e->err = errno;
		memset(&t->st, 0, sizeof t->st);
		e->info = TREE_NS;
		return e;
	}
	if (S_ISREG(t->st.st_mode)) {
		e->info = TREE_F;
	} else if (!S_ISDIR(t->st.st_mode)) {
		return NULL; /* a link not followed, or the name's type changed */
	} else if (is_ancestor(t, &t->st)) {
		e->info = TREE_DC;
	} else {
		e->info = TREE_D;
		e->statp = &push(t, &t->st, e->pathlen, name_off)->st;
	}
	return e;
}

static struct tree_ent *read_operand(struct tree *t)
{
	struct tree_ent *e = &t->ent;
	int flags = follows(t, 0) ? 0 : AT_SYMLINK_NOFOLLOW;

	e->level = 0;
	e->path = t->path;
	e->name = t->path;
	e->dirfd = AT_FDCWD;
	e->statp = &t->st;
	if (fstatat(AT_FDCWD, t->path, &t->st, flags) != 0) {
		e->err = errno;
		e->info = TREE_NS;
		return e;
	}
	t->root_dev = t->st.st_dev;
	if (S_ISDIR(t->st.st_mode)) {
		e->info = TREE_D;
		e->statp = &push(t, &t->st, e->pathlen, 0)->st;
	} else if (S_ISREG(t->st.st_mode)) {
		e->info = TREE_F;
	} else if (S_ISLNK(t->st.st_mode)) {
		e->info = TREE_SL;
	} else {
		e->info = TREE_DEFAULT;
	}
	return e;
}

/* Has a directory read whole entries still to walk?  (Else it is left
 * without being opened again: it cannot be lost.) */
static bool entries_left(const struct level *lv)
{
	for (size_t pos = lv->pos; pos < lv->end;) {
		const struct dirent64 *d = (const void *)(lv->buf + pos);
		pos += d->d_reclen;
		if (!is_dot(d->d_name))
			return true;
	}
	return false;
}

/* Leaves the directory on top, read to its end: the one below must then
 * be open to go on with it, if it has entries left. */
static struct tree_ent *finish(struct tree *t)
{
	size_t k = t->depth - 1;
	struct level *lv = &t->levels[k];

	if (k > 0 && t->levels[k - 1].fd < 0) {
		struct level *parent = &t->levels[k - 1];
		int err = 0;
		if (entries_left(parent)) {
			parent->fd = reopen(t, k - 1, lv->fd, &err);
			if (parent->fd < 0) {
				parent->state = LEVEL_LOST;
				parent->err = err;
			}
		} else {
			/* nothing left in it: not lost if not found, but
			 * held when "..", cheaply, finds it, for the way up */
			parent->fd = reopen_up(t, k - 1, lv->fd);
		}
	}
	if (lv->err)
		return pop(t, TREE_DNR, lv->err);
	return pop(t, TREE_DP, 0);
}

struct tree_ent *tree_read(struct tree *t)
{
	if (!t->started) {
		t->started = true;
		return read_operand(t);
	}
	while (t->depth) {
		struct level *lv = &t->levels[t->depth - 1];
		int err = 0;

		switch (lv->state) {
		case LEVEL_PENDING:
			if (lv->skip ||
			    ((t->flags & TREE_XDEV) && lv->st.st_dev != t->root_dev))
				return pop(t, TREE_DP, 0);
			err = enter(t);
			if (err)
				return pop(t, err == TREE_ECHANGED ? TREE_ERR : TREE_DNR, err);
			break;
		case LEVEL_LOST:
			return pop(t, TREE_ERR, lv->err);
		case LEVEL_READING: {
			/* read whole, the directory needs no descriptor to end */
			const struct dirent64 *d = next_record(lv);
			if (!d)
				return finish(t);
			if (lv->fd < 0) {
				/* a subdirectory was left without bringing
				 * it back (that one was lost) */
				lv->fd = reopen(t, t->depth - 1, -1, &err);
				if (lv->fd < 0) {
					lv->state = LEVEL_LOST;
					lv->err = err;
					break;
				}
			}
			struct tree_ent *e = visit_record(t, d);
			if (e)
				return e;
			break;
		}
		}
	}
	return NULL;
}

void tree_skip(struct tree *t)
{
	if (t->depth && t->levels[t->depth - 1].state == LEVEL_PENDING)
		t->levels[t->depth - 1].skip = true;
}

void tree_close(struct tree *t)
{
	if (!t)
		return;
	while (t->depth)
		pop(t, TREE_DP, 0);
	free(t->levels);
	free(t->path);
	free(t);
}
