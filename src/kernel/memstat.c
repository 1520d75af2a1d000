/* SPDX-License-Identifier: MIT */
/* A memory cgroup's memory.stat, v1 or v2, read through one table of keys;
 * this process's memory cgroup (/proc/self/cgroup); and the machine's
 * /proc/meminfo. */
#include <config.h>

#include "kernel/memstat.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/userfile.h"
#include "lib/xalloc.h"

/* The kernel's names (Documentation/admin-guide/cgroup-v2.rst, "memory.stat",
 * and cgroup-v1/memory.rst): v1's total_* are the hierarchical sums, which
 * v2's figures always are. */
const struct memstat_key memstat_keys[MEMSTAT_COUNT] = {
	[MEMSTAT_FILE] = { .name = "file", .v2 = "file", .v1 = "total_cache", .bytes = true,
			   .help = "file pages charged to the cgroup (tmpfs and shmem included)" },
	[MEMSTAT_DIRTY] = { .name = "dirty", .v2 = "file_dirty", .v1 = "total_dirty",
			    .bytes = true, .help = "file pages modified, not yet written back" },
	[MEMSTAT_WRITEBACK] = { .name = "writeback", .v2 = "file_writeback",
				.v1 = "total_writeback", .bytes = true,
				.help = "file pages being written back" },
	[MEMSTAT_SHMEM] = { .name = "shmem", .v2 = "shmem", .v1 = "total_shmem", .bytes = true,
			    .help = "tmpfs and shared memory pages (part of file)" },
	[MEMSTAT_MAPPED] = { .name = "mapped", .v2 = "file_mapped", .v1 = "total_mapped_file",
			     .bytes = true, .help = "file pages mapped by a process" },
	[MEMSTAT_ACTIVE_FILE] = { .name = "active_file", .v2 = "active_file",
				  .v1 = "total_active_file", .bytes = true,
				  .help = "file pages on the active LRU list" },
	[MEMSTAT_INACTIVE_FILE] = { .name = "inactive_file", .v2 = "inactive_file",
				    .v1 = "total_inactive_file", .bytes = true,
				    .help = "file pages on the inactive LRU list" },
	[MEMSTAT_REFAULT] = { .name = "workingset_refault_file", .v2 = "workingset_refault_file",
			      .v2_old = "workingset_refault",
			      .v1 = "total_workingset_refault_file",
			      .help = "file pages read again soon after they were evicted" },
	[MEMSTAT_ACTIVATE] = { .name = "workingset_activate_file",
			       .v2 = "workingset_activate_file", .v2_old = "workingset_activate",
			       .help = "refaulted file pages put straight on the active list" },
	[MEMSTAT_RECLAIMED] = { .name = "pgsteal", .v2 = "pgsteal",
				.help = "pages reclaimed from the cgroup, anonymous and file" },
};

/* Which figure a key of memory.stat is, in this version; -1 if none. */
static int figure_of(const char *key, int version)
{
	for (int i = 0; i < MEMSTAT_COUNT; i++) {
		const struct memstat_key *k = &memstat_keys[i];
		const char *name = version == 1 ? k->v1 : k->v2;
		if ((name && strcmp(name, key) == 0) ||
		    (version == 2 && k->v2_old && strcmp(k->v2_old, key) == 0))
			return i;
	}
	return -1;
}

/* Each "KEY VALUE" line of in whose value is a number, handed to take;
 * false on a read error.  Every reader of memory.stat goes through it. */
static bool each_figure(FILE *in, void (*take)(void *arg, const char *key, uint64_t value),
			void *arg)
{
	char line[256];

	while (fgets(line, sizeof line, in)) {
		char *value = strchr(line, ' ');
		if (!value)
			continue;
		*value++ = '\0';
		char *end;
		errno = 0;
		unsigned long long v = strtoull(value, &end, 10);
		if (errno || end == value || (*end != '\n' && *end != '\0'))
			continue;
		take(arg, line, (uint64_t)v);
	}
	return !ferror(in);
}

static void take_figure(void *arg, const char *key, uint64_t value)
{
	struct memstat *ms = arg;
	int id = figure_of(key, ms->version);

	if (id < 0)
		return;
	/* a key of a newer kernel wins over its old name */
	if (memstat_known(ms, (enum memstat_id)id) && ms->version == 2 &&
	    strcmp(key, memstat_keys[id].v2) != 0)
		return;
	ms->value[id] = value;
	ms->known |= 1u << id;
}

bool memstat_parse(FILE *in, int version, struct memstat *ms)
{
	*ms = (struct memstat){ .version = version };
	return each_figure(in, take_figure, ms) && ms->known != 0;
}

struct keys_read {
	const char *const *keys;
	uint64_t *values;
	size_t n;
};

static void take_key(void *arg, const char *key, uint64_t value)
{
	struct keys_read *r = arg;

	for (size_t i = 0; i < r->n; i++)
		if (strcmp(key, r->keys[i]) == 0)
			r->values[i] = value;
}

bool memstat_read_keys(FILE *in, const char *const *keys, uint64_t *values, size_t n)
{
	struct keys_read r = { keys, values, n };

	for (size_t i = 0; i < n; i++)
		values[i] = 0;
	return each_figure(in, take_key, &r);
}

/* Is word one of the comma-separated words of list? */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

char *memstat_self_cgroup(int *version)
{
	return memstat_task_cgroup(0, version);
}

char *memstat_task_cgroup(pid_t pid, int *version)
{
	char file[64] = "/proc/self/cgroup";
	if (pid > 0)
		snprintf(file, sizeof file, "/proc/%ld/cgroup", (long)pid);
	FILE *in = user_fopen_read(file);
	char *line = NULL, *v1 = NULL, *v2 = NULL;
	size_t size = 0;

	if (!in)
		return NULL;
	/* "ID:CONTROLLERS:PATH": v1's memory hierarchy names it, v2's is "0::" */
	while (!v1 && getline(&line, &size, in) > 0) {
		line[strcspn(line, "\n")] = '\0';
		char *controllers = strchr(line, ':');
		char *path = controllers ? strchr(controllers + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		controllers++;
		if (*version != 2 && has_word(controllers, "memory"))
			v1 = xstrdup(path);
		else if (*version != 1 && !v2 && strcmp(line, "0") == 0 && *controllers == '\0')
			v2 = xstrdup(path);
	}
	free(line);
	fclose(in);
	if (v1) {
		free(v2);
		*version = 1;
		return v1;
	}
	if (v2)
		*version = 2;
	return v2;
}

bool meminfo_bytes(const char *key, uint64_t *bytes)
{
	FILE *in = user_fopen_read("/proc/meminfo");
	char line[256];
	size_t len = strlen(key);
	bool found = false;

	if (!in)
		return false;
	while (!found && fgets(line, sizeof line, in)) {
		if (strncmp(line, key, len) != 0 || line[len] != ':')
			continue;
		char *end;
		errno = 0;
		unsigned long long kib = strtoull(line + len + 1, &end, 10);
		found = errno == 0 && end != line + len + 1 && kib <= UINT64_MAX / 1024;
		*bytes = (uint64_t)kib * 1024;
	}
	fclose(in);
	return found;
}

bool memstat_read_number(const char *dir, const char *name, uint64_t *v)
{
	char path[PATH_MAX], text[64];

	snprintf(path, sizeof path, name ? "%s/%s" : "%s", dir, name);
	FILE *in = user_fopen_read(path);
	bool ok = in && fgets(text, sizeof text, in);
	if (in)
		fclose(in);
	if (!ok || text[0] < '0' || text[0] > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (errno || (*end && *end != '\n'))
		return false;
	*v = n;
	return true;
}
