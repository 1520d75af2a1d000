/* SPDX-License-Identifier: MIT */
/* overlayfs: the backing file of an overlay file, found in the mount's layers. */
#include <config.h>

#include "kernel/overlay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "kernel/mountinfo.h"
#include "lib/xalloc.h"

/*
 * How a file is found, without reading the layers' trusted.overlay.*
 * xattrs (pagestat holds no CAP_SYS_ADMIN: they would read as absent).
 * The file is visible through the overlay, so the layer that provides it
 * is the first one, top down, with an entry of that name in a directory
 * that takes part in the merge: a whiteout above it would hide it.  An
 * opaque directory only cuts the list of layers short, and the true list
 * is a prefix of the one walked here (which stops at any non-directory),
 * so the first hit is the same.  What this cannot see (a directory
 * renamed with redirect_dir, a layer covered by another mount, layers of
 * another mount namespace) is caught by comparing the candidate with the
 * overlay file: overlayfs reports the backing file's own size, blocks,
 * times and (from a lower layer) inode number.  Metadata-only copies
 * (metacopy=on) keep their data elsewhere and are not resolved.
 */

enum layer_kind { LAYER_UPPER, LAYER_LOWER, LAYER_DATA };

struct layer {
	char *path;
	enum layer_kind kind;
	bool canonical; /* path made canonical (Docker names layers by symlinks) */
};

struct ovl_mount {
	unsigned long id;
	dev_t dev;
	char *root;           /* the mount's root within the overlay: "/" but for binds */
	char *point;          /* where it is mounted */
	struct layer *layers; /* upper (if any), lowers in order, then data-only */
	size_t nlayers;
	bool userxattr;       /* overlay xattrs are user.overlay.*, readable */
	bool metacopy;        /* metadata-only copies may exist */
	const char *unusable; /* why none of its files can be resolved, or NULL */
};


/* Per layer, for a directory of the overlay: does it take part? */
enum layer_state {
	LS_ABSENT,  /* no such directory in this layer: look further down */
	LS_ACTIVE,  /* a directory here: look in it */
	LS_STOPPED, /* a non-directory here or above: no layer below counts */
	LS_UNKNOWN, /* this layer cannot be reached */
	LS_DENIED,  /* nor read by this user */
};

/* The overlay mounts and the directory last looked up, shared by the
 * threads that probe files (each has its own answer, in its caller's
 * buffer): one for a run, made by overlays_new. */
struct overlays {
	pthread_mutex_t lock;
	struct ovl_mount *mounts;
	size_t nmounts, mounts_cap;
	bool mounts_read, mounts_reread;
	char unreadable[320]; /* why the mount table could not be read, or "" */
	/* The directory last looked up, and each of its ancestors, so that a
	 * walk costs one lookup per layer per directory, not per file. */
	struct {
		const struct ovl_mount *mount;
		char *dir; /* relative to the overlay's root, no leading '/' */
		size_t dir_cap;
		size_t *ends;          /* ends[k]: length of dir at level k (0: root) */
		unsigned char *states; /* nlevels rows of `width` layers */
		size_t nlevels, levels_cap, width;
	} chain;
};

/* overlayfs's own escape in lowerdir= and upperdir=: a backslash takes
 * the next character as it is ("\:" in a layer's name). */
static void unescape(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		*d++ = *s;
	}
	*d = '\0';
}

static void add_layer(struct ovl_mount *m, const char *path, enum layer_kind kind)
{
	if (*path != '/')
		m->unusable = "its layers are named by relative paths in /proc/self/mountinfo";
	size_t n = m->nlayers;
	struct layer *layers = xrealloc(m->layers, (n + 1) * sizeof *layers);
	layers[n] = (struct layer){ xstrdup(path), kind, false };
	m->layers = layers;
	m->nlayers = n + 1;
}

/* lowerdir=A:B::D: colons part the layers ("\:" does not), and after
 * "::" come the data-only layers. */
static void add_lowerdirs(struct ovl_mount *m, char *list)
{
	enum layer_kind kind = LAYER_LOWER;
	char *start = list;

	for (char *s = list;; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			continue;
		}
		if (*s != ':' && *s != '\0')
			continue;
		bool end = *s == '\0';
		*s = '\0';
		if (*start) {
			unescape(start);
			add_layer(m, start, kind);
		}
		if (end)
			break;
		if (s[1] == ':') {
			kind = LAYER_DATA;
			s++;
		}
		start = s + 1;
	}
}

/* Is the module's default for metacopy on?  When it cannot be told,
 * assume it may be. */
static bool metacopy_default(void)
{
	FILE *f = fopen("/sys/module/overlay/parameters/metacopy", "re");
	int c = f ? getc(f) : 'Y';
	if (f)
		fclose(f);
	return c != 'N';
}

/* Does s start as an option does: a lowercase key, then '=', "+=", ','
 * or the end? */
static bool option_like(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
	return n > 0 && s[0] >= 'a' && s[0] <= 'z' &&
	       (s[n] == '\0' || s[n] == ',' || s[n] == '=' || (s[n] == '+' && s[n + 1] == '='));
}

/*
 * The end of the option at s in the super options, which libmount gives
 * decoded whole: a comma that mountinfo wrote as \054 is a comma there.
 * A path given in mount(2)'s option string has overlayfs's backslash
 * before its comma (overlayfs splits that string at unescaped commas), so
 * an escaped comma does not end an option.  A path given through
 * fsconfig(2) is shown as it was given: a comma in it is told from one
 * that ends the path by what follows, which is not an option.
 */
static char *option_end(char *s)
{
	bool path = strncmp(s, "lowerdir", 8) == 0 || strncmp(s, "datadir+=", 9) == 0 ||
		    strncmp(s, "upperdir=", 9) == 0 || strncmp(s, "workdir=", 8) == 0;

	for (;; s++) {
		if (*s == '\\' && s[1])
			s++;
		else if (*s == '\0' || (*s == ',' && (!path || option_like(s + 1))))
			return s;
	}
}

/* The super options of an overlay mount: its layers and what matters. */
static void parse_options(struct ovl_mount *m, char *opts)
{
	char *upper = NULL, *next;
	int metacopy = -1;

	for (char *opt = opts; *opt; opt = next) {
		char *end = option_end(opt);
		next = *end ? end + 1 : end;
		*end = '\0';
		if (strncmp(opt, "lowerdir=", 9) == 0) {
			add_lowerdirs(m, opt + 9);
		} else if (strncmp(opt, "lowerdir+=", 10) == 0) {
			add_layer(m, opt + 10, LAYER_LOWER); /* taken as written */
		} else if (strncmp(opt, "datadir+=", 9) == 0) {
			add_layer(m, opt + 9, LAYER_DATA);
		} else if (strncmp(opt, "upperdir=", 9) == 0) {
			upper = opt + 9;
			unescape(upper);
		} else if (strcmp(opt, "userxattr") == 0) {
			m->userxattr = true;
		} else if (strncmp(opt, "metacopy=", 9) == 0) {
			metacopy = strcmp(opt + 9, "off") != 0;
		}
	}
	if (upper) {
		add_layer(m, upper, LAYER_UPPER);
		/* the upper layer is searched first */
		struct layer top = m->layers[m->nlayers - 1];
		memmove(m->layers + 1, m->layers, (m->nlayers - 1) * sizeof *m->layers);
		m->layers[0] = top;
	}
	m->metacopy = metacopy < 0 ? metacopy_default() : metacopy;
	for (size_t i = 0; i < m->nlayers; i++)
		m->metacopy |= m->layers[i].kind == LAYER_DATA;
	if (m->nlayers == 0)
		m->unusable = "/proc/self/mountinfo names none of its layers";
}

/* A mount of the table: an overlay mount is kept. */
static void add_mount(void *arg, const struct mountinfo *mi)
{
	struct overlays *o = arg;
	if (strcmp(mi->fstype, "overlay") != 0)
		return;
	XGROW(o->mounts, o->mounts_cap, o->nmounts + 1);
	struct ovl_mount *m = &o->mounts[o->nmounts++];
	*m = (struct ovl_mount){
		.id = mi->id,
		.dev = mi->dev,
		.root = xstrdup(mi->root),
		.point = xstrdup(mi->point),
	};
	char *opts = xstrdup(mi->super);
	parse_options(m, opts);
	free(opts);
}

static void free_mounts(struct overlays *o)
{
	for (size_t i = 0; i < o->nmounts; i++) {
		struct ovl_mount *m = &o->mounts[i];
		for (size_t k = 0; k < m->nlayers; k++)
			free(m->layers[k].path);
		free(m->layers);
		free(m->root);
		free(m->point);
	}
	o->nmounts = 0;
	o->chain.mount = NULL;
	o->chain.nlevels = 0;
}

static void read_mounts(struct overlays *o)
{
	free_mounts(o);
	o->mounts_read = true;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	const char *why;
	if (!f)
		return;
	if (mountinfo_read(f, add_mount, o, &why) != 0 && !*o->unreadable)
		snprintf(o->unreadable, sizeof o->unreadable, "the mount table cannot be read (%s)",
			 why);
	fclose(f);
}

/* Does `path` lie at or below the mount point `point`?  Returns the rest
 * (without a leading '/'), or NULL. */
static const char *below(const char *path, const char *point)
{
	size_t n = strlen(point);
	if (n == 1 && point[0] == '/')
		return path + 1;
	if (strncmp(path, point, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	return path + n + (path[n] == '/');
}

/* The mount the open file is on: the one overlay mount of its device, or
 * where there are several (bind mounts of parts of it), the one of its
 * mount ID where statx gives it, else the first whose place holds path. */
static struct ovl_mount *lookup_mount(struct overlays *o, int fd, const struct stat *st,
				      const char *path)
{
	struct ovl_mount *mounts = o->mounts;
	size_t nmounts = o->nmounts;
	struct ovl_mount *first = NULL;
	size_t count = 0;

	for (size_t i = 0; i < nmounts; i++)
		if (mounts[i].dev == st->st_dev && below(path, mounts[i].point) && count++ == 0)
			first = &mounts[i];
	if (count == 1)
		return first;
#ifdef STATX_MNT_ID
	struct statx sx;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) == 0 && (sx.stx_mask & STATX_MNT_ID))
		for (size_t i = 0; i < nmounts; i++)
			if (mounts[i].id == sx.stx_mnt_id)
				return &mounts[i];
#endif
	return first;
}

/* The layer directory (or file) of `rel`: "LAYER/REL". */
static bool layer_path(char *buf, const struct layer *layer, const char *rel, size_t len)
{
	int n = len ? snprintf(buf, PATH_MAX, "%s/%.*s", layer->path, (int)len, rel)
		    : snprintf(buf, PATH_MAX, "%s", layer->path);
	return n > 0 && n < PATH_MAX;
}

static unsigned char *level_states(struct overlays *o, size_t level)
{
	return o->chain.states + level * o->chain.width;
}

/* A layer's root, followed through symbolic links once. */
static int stat_layer_root(struct layer *layer, struct stat *st)
{
	if (!layer->canonical) {
		char *real = realpath(layer->path, NULL);
		if (real) {
			free(layer->path);
			layer->path = real;
		}
		layer->canonical = true;
	}
	return stat(layer->path, st);
}

/* The states of the directory dir[0..len) from those of its parent. */
static void push_level(struct overlays *o, struct ovl_mount *m, const char *dir, size_t len)
{
	size_t level = o->chain.nlevels;

	if (level >= o->chain.levels_cap || !o->chain.states) {
		size_t old = o->chain.states ? o->chain.levels_cap : 0;
		o->chain.levels_cap = level ? level * 2 : 16;
		o->chain.ends = xrealloc(o->chain.ends, o->chain.levels_cap * sizeof *o->chain.ends);
		o->chain.states = xrealloc(o->chain.states, o->chain.levels_cap * o->chain.width);
		memset(o->chain.states + old * o->chain.width, LS_ABSENT,
		       (o->chain.levels_cap - old) * o->chain.width);
	}
	o->chain.nlevels++;
	o->chain.ends[level] = len;
	unsigned char *now = level_states(o, level);
	const unsigned char *parent = level ? level_states(o, level - 1) : NULL;
	bool stopped = false;
	char path[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < m->nlayers; i++) {
		if (m->layers[i].kind == LAYER_DATA) {
			now[i] = LS_ABSENT; /* reached only through metacopy */
			continue;
		}
		/* the parent's row was filled when it was pushed, though the
		 * analyzer loses track of it across the realloc */
		/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
		if (stopped || (parent && parent[i] != LS_ACTIVE)) {
			/* absent, unreachable or stopped in the parent: so here */
			now[i] = stopped ? LS_STOPPED : parent[i];
			stopped |= now[i] == LS_STOPPED;
			continue;
		}
		int ok;
		if (!parent) {
			ok = stat_layer_root(&m->layers[i], &st);
		} else if (layer_path(path, &m->layers[i], dir, len)) {
			ok = lstat(path, &st);
		} else {
			ok = -1;
			errno = ENAMETOOLONG;
		}
		if (ok != 0 && errno == EACCES) {
			now[i] = LS_DENIED;
		} else if (ok != 0) {
			/* a layer's own root must be there */
			now[i] = (errno == ENOENT || errno == ENOTDIR) && parent ? LS_ABSENT
										 : LS_UNKNOWN;
		} else if (S_ISDIR(st.st_mode)) {
			now[i] = LS_ACTIVE;
		} else {
			now[i] = parent ? LS_STOPPED : LS_UNKNOWN;
			stopped = parent != NULL;
		}
	}
}

/* Make the chain end at the directory dir[0..len). */
static void enter_directory(struct overlays *o, struct ovl_mount *m, const char *dir,
			    size_t len)
{
	if (o->chain.mount != m) {
		if (o->chain.width < m->nlayers) {
			free(o->chain.states);
			o->chain.states = NULL;
			o->chain.levels_cap = 0;
			o->chain.width = m->nlayers;
		}
		o->chain.mount = m;
		o->chain.nlevels = 0;
	}
	/* keep the levels that are ancestors of dir (or dir itself) */
	size_t keep = 0;
	while (keep < o->chain.nlevels) {
		size_t end = o->chain.ends[keep];
		if (end > len || memcmp(o->chain.dir, dir, end) != 0 ||
		    (end && end < len && dir[end] != '/'))
			break;
		keep++;
	}
	o->chain.nlevels = keep;
	if (len + 1 > o->chain.dir_cap) {
		o->chain.dir_cap = len + 64;
		o->chain.dir = xrealloc(o->chain.dir, o->chain.dir_cap);
	}
	memcpy(o->chain.dir, dir, len);
	o->chain.dir[len] = '\0';
	if (o->chain.nlevels == 0)
		push_level(o, m, dir, 0);
	for (size_t at = o->chain.ends[o->chain.nlevels - 1]; at < len;) {
		at += at > 0; /* the '/' */
		const char *slash = memchr(dir + at, '/', len - at);
		at = slash ? (size_t)(slash - dir) : len;
		push_level(o, m, dir, at);
	}
}

/* Inode numbers: the same, or (xino) the real one with the layer's
 * number in high bits. */
static bool same_ino(ino_t overlay, ino_t real)
{
	return overlay == real || ((overlay & real) == real && (overlay ^ real) > real);
}

/* What overlayfs reports of a file is its backing file's own. */
static bool same_file(const struct stat *ov, const struct stat *c, enum layer_kind kind)
{
	return ov->st_mode == c->st_mode && ov->st_size == c->st_size &&
	       ov->st_blocks == c->st_blocks && ov->st_mtim.tv_sec == c->st_mtim.tv_sec &&
	       ov->st_mtim.tv_nsec == c->st_mtim.tv_nsec &&
	       ov->st_ctim.tv_sec == c->st_ctim.tv_sec &&
	       ov->st_ctim.tv_nsec == c->st_ctim.tv_nsec &&
	       /* a copied-up file keeps the number of its lower origin */
	       (kind == LAYER_UPPER || same_ino(ov->st_ino, c->st_ino));
}

/* Under metacopy, a layer's file may hold metadata only. */
static const char *metacopy_check(const struct ovl_mount *m, const char *path)
{
	if (!m->metacopy)
		return NULL;
	const char *name = m->userxattr ? "user.overlay.metacopy" : "trusted.overlay.metacopy";
	if (lgetxattr(path, name, NULL, 0) >= 0)
		return "a metadata-only copy (metacopy), whose data is in another layer";
	if (errno == ENODATA && m->userxattr)
		return NULL;
	/* trusted.* reads as absent without CAP_SYS_ADMIN */
	return "the mount may hold metadata-only copies (metacopy), which pagestat cannot tell";
}

/* Look the file rel (dir: its first dir_len bytes) up, top down. */
static const char *find_in_layers(struct overlays *o, struct ovl_mount *m, const char *rel,
				  size_t dir_len,
				  const struct stat *ov, char *backing_path, struct stat *found)
{
	enter_directory(o, m, rel, dir_len);
	const unsigned char *states = level_states(o, o->chain.nlevels - 1);

	for (size_t i = 0; i < m->nlayers; i++) {
		if (states[i] == LS_STOPPED)
			break;
		if (states[i] == LS_UNKNOWN)
			return "its layers cannot be reached from here (another mount namespace?)";
		if (states[i] == LS_DENIED)
			return "its layers cannot be read by this user";
		if (states[i] == LS_ABSENT)
			continue;
		if (!layer_path(backing_path, &m->layers[i], rel, strlen(rel)))
			return "the path in the layer is too long";
		if (lstat(backing_path, found) != 0) {
			if (errno == ENOENT)
				continue;
			return errno == EACCES ? "its layers cannot be read by this user"
					       : "its place in a layer cannot be looked at";
		}
		const char *metacopy = S_ISREG(found->st_mode) ? metacopy_check(m, backing_path)
							       : NULL;
		if (metacopy)
			return metacopy;
		if (!S_ISREG(found->st_mode) || !same_file(ov, found, m->layers[i].kind))
			return "the file at its place in the layers is another one "
			       "(a layer covered by a mount, or a renamed directory)";
		return NULL;
	}
	return "it is in none of the layers /proc/self/mountinfo names";
}

static int find_backing(struct overlays *o, int fd, const struct stat *st, char *path,
			struct stat *found, const char **why)
{
	/* the thread's own table: a worker's (src/walk/jobs.c) is not the process's */
	char link[40], where[PATH_MAX], rel[PATH_MAX];

	snprintf(link, sizeof link, "/proc/thread-self/fd/%d", fd);
	ssize_t n = readlink(link, where, sizeof where - 1);
	if (n <= 0 || (size_t)n >= sizeof where - 1 || where[0] != '/') {
		*why = "its path cannot be told (/proc/thread-self/fd)";
		return -1;
	}
	where[n] = '\0';
	if (!o->mounts_read)
		read_mounts(o);
	struct ovl_mount *m = lookup_mount(o, fd, st, where);
	if (!m && !o->mounts_reread) {
		/* mounted since the table was read */
		o->mounts_reread = true;
		read_mounts(o);
		m = lookup_mount(o, fd, st, where);
	}
	const char *rest = m ? below(where, m->point) : NULL;
	if (!m || !rest) {
		*why = *o->unreadable ? o->unreadable : "its mount is not in /proc/self/mountinfo";
		return -1;
	}
	if (m->unusable) {
		*why = m->unusable;
		return -1;
	}
	/* the path within the overlay: the mount's root, then the rest */
	const char *root = m->root + (m->root[0] == '/');
	int len = snprintf(rel, sizeof rel, "%s%s%s", root, *root && *rest ? "/" : "", rest);
	const char *slash = strrchr(rel, '/');
	if (len <= 0 || (size_t)len >= sizeof rel) {
		*why = "its path is too long";
		return -1;
	}
	*why = find_in_layers(o, m, rel, slash ? (size_t)(slash - rel) : 0, st, path, found);
	return *why ? -1 : 0;
}

struct overlays *overlays_new(void)
{
	struct overlays *o = xcalloc(1, sizeof *o);
	pthread_mutex_init(&o->lock, NULL);
	return o;
}

int overlay_backing(struct overlays *o, int fd, const struct stat *st, char path[PATH_MAX],
		    struct stat *found, const char **why)
{
	pthread_mutex_lock(&o->lock);
	int err = find_backing(o, fd, st, path, found, why);
	pthread_mutex_unlock(&o->lock);
	return err;
}

void overlays_free(struct overlays *o)
{
	if (!o)
		return;
	free_mounts(o);
	free(o->mounts);
	free(o->chain.dir);
	free(o->chain.ends);
	free(o->chain.states);
	pthread_mutex_destroy(&o->lock);
	free(o);
}
