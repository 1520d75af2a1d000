/* SPDX-License-Identifier: MIT */
/* The mount table (/proc/self/mountinfo), parsed by libmount. */
#include <config.h>

#include "kernel/mountinfo.h"

#include <dlfcn.h>
#include <errno.h>
#include <libmount.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kernel/userfile.h"

/*
 * Debian 12 ships libmount as a shared library only, and loading it with
 * the libblkid, libselinux and pcre2 it needs costs about 0.4 ms, four
 * tenths of a run on one file.  Only --system and an overlay file need
 * the mount table, so the library is opened then.  Each pointer has the
 * type that <libmount.h> gives its function.
 */
#define LIBMOUNT_SONAME "libmount.so.1"
#define LIBMOUNT_FUNCTIONS(X)                                                             \
	X(mnt_new_table) X(mnt_unref_table) X(mnt_table_parse_stream) X(mnt_new_iter)    \
	X(mnt_free_iter) X(mnt_table_next_fs) X(mnt_fs_get_id) X(mnt_fs_get_parent_id)   \
	X(mnt_fs_get_devno) X(mnt_fs_get_root) X(mnt_fs_get_target) X(mnt_fs_get_fstype) \
	X(mnt_fs_get_source) X(mnt_fs_get_fs_options)

/* The library and what loading it came to: loaded once; the table is
 * read by one thread at a time (libmount makes no promise about
 * threads). */
static struct {
	struct {
/* NOLINTNEXTLINE(bugprone-macro-parentheses): name is a member's name there */
#define POINTER(name) __typeof__(name) *name;
		LIBMOUNT_FUNCTIONS(POINTER)
#undef POINTER
	} fn;
	void *handle; /* never closed: the library stays to the end */
	pthread_mutex_t lock;
	bool tried;
	char load_error[256]; /* why it could not be loaded, or "" */
} libmount = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void load(void)
{
	libmount.handle = dlopen(LIBMOUNT_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!libmount.handle) {
		const char *err = dlerror();
		snprintf(libmount.load_error, sizeof libmount.load_error, "%s",
			 err ? err : LIBMOUNT_SONAME);
		return;
	}
#define RESOLVE(name)                                                               \
	if (!(libmount.fn.name = (__typeof__(&(name)))dlsym(libmount.handle, #name))) { \
		snprintf(libmount.load_error, sizeof libmount.load_error,              \
			 "%s has no %s", LIBMOUNT_SONAME, #name);                      \
		return;                                                             \
	}
	LIBMOUNT_FUNCTIONS(RESOLVE)
#undef RESOLVE
}

struct reading {
	FILE *in;
	mountinfo_fn *each;
	void *arg;
	const char *why;
};

static const char *text(const char *s)
{
	return s ? s : "";
}

/* The library's work: loading it (its libraries' constructors look at
 * /proc and /sys) and parsing (a source "/dev/root" is looked up in
 * /sys and /dev), with the user's rights. */
static int read_table(void *state)
{
	struct reading *r = state;

	if (!libmount.tried) {
		libmount.tried = true;
		load();
	}
	if (*libmount.load_error) {
		r->why = libmount.load_error;
		return -1;
	}
	struct libmnt_table *table = libmount.fn.mnt_new_table();
	struct libmnt_iter *iter = libmount.fn.mnt_new_iter(MNT_ITER_FORWARD);
	int err = table && iter ? libmount.fn.mnt_table_parse_stream(table, r->in, "/proc/self/mountinfo")
				: -ENOMEM;
	struct libmnt_fs *fs;

	while (err == 0 && libmount.fn.mnt_table_next_fs(table, iter, &fs) == 0) {
		int id = libmount.fn.mnt_fs_get_id(fs);
		int parent = libmount.fn.mnt_fs_get_parent_id(fs);
		struct mountinfo m = {
			.id = id < 0 ? 0 : (unsigned long)id,
			.parent = parent < 0 ? 0 : (unsigned long)parent,
			.dev = libmount.fn.mnt_fs_get_devno(fs),
			.root = text(libmount.fn.mnt_fs_get_root(fs)),
			.point = text(libmount.fn.mnt_fs_get_target(fs)),
			.fstype = text(libmount.fn.mnt_fs_get_fstype(fs)),
			.source = text(libmount.fn.mnt_fs_get_source(fs)),
			.super = text(libmount.fn.mnt_fs_get_fs_options(fs)),
		};
		if (*m.point && *m.fstype)
			r->each(r->arg, &m);
	}
	libmount.fn.mnt_free_iter(iter);
	libmount.fn.mnt_unref_table(table);
	if (err) {
		r->why = strerror(-err);
		return -1;
	}
	return 0;
}

int mountinfo_read(FILE *in, mountinfo_fn *each, void *arg, const char **why)
{
	struct reading r = { .in = in, .each = each, .arg = arg };

	pthread_mutex_lock(&libmount.lock);
	int err = user_call(read_table, &r);
	if (err && !r.why)
		r.why = strerror(errno); /* the rights could not be changed */
	pthread_mutex_unlock(&libmount.lock);
	*why = r.why;
	return err;
}
