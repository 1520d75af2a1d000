/* SPDX-License-Identifier: MIT */
/* The mount table (/proc/self/mountinfo), parsed by libmount. */
#ifndef PAGESTAT_MOUNTINFO_H
#define PAGESTAT_MOUNTINFO_H

#include <stdio.h>
#include <sys/types.h>

/* One mount, its fields decoded (mountinfo's \ooo undone); the strings
 * are valid until the callback returns, and none is NULL. */
struct mountinfo {
	unsigned long id, parent;
	dev_t dev;
	const char *root;   /* the mount's root within its file system */
	const char *point;  /* where it is mounted */
	const char *fstype;
	const char *source; /* "" when the kernel shows none */
	const char *super;  /* the file system's own options, decoded whole */
};

typedef void mountinfo_fn(void *arg, const struct mountinfo *mount);

/* Reads the table in (mountinfo's format; the caller opened it and
 * closes it) and calls each(arg, mount) for its mounts in their order.
 * libmount is loaded on the first call, so that a run that needs no
 * mount table does not pay for it, and it runs with the user's rights.
 * Returns 0, or -1 with *why saying why the table could not be read.
 * Safe to call from several threads. */
int mountinfo_read(FILE *in, mountinfo_fn *each, void *arg, const char **why);

#endif
