/* SPDX-License-Identifier: MIT */
/* A memory cgroup's memory.stat, v1 or v2, read through one table of keys;
 * and the machine's /proc/meminfo. */
#include <config.h>

#include "memstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "userfile.h"

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

bool memstat_parse(FILE *in, int version, struct memstat *ms)
{
	char line[256];

	*ms = (struct memstat){ .version = version };
	while (fgets(line, sizeof line, in)) {
		char *value = strchr(line, ' ');
		if (!value)
			continue;
		*value++ = '\0';
		int id = figure_of(line, version);
		if (id < 0)
			continue;
		/* a key of a newer kernel wins over its old name */
		if (memstat_known(ms, (enum memstat_id)id) && version == 2 &&
		    strcmp(line, memstat_keys[id].v2) != 0)
			continue;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(value, &end, 10);
		if (errno || end == value || (*end != '\n' && *end != '\0'))
			continue;
		ms->value[id] = (uint64_t)v;
		ms->known |= 1u << id;
	}
	return !ferror(in) && ms->known != 0;
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
