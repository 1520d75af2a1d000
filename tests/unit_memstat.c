/* SPDX-License-Identifier: MIT */
/* Unit tests of memstat.c: memory.stat read through the v1 and v2 key
 * tables, v2 against a copy of the kernel's format (tests/fixtures), and
 * by named keys. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/memstat.h"
#include "unit.h"

/* KEY's value in the text of a memory.stat, found by this test itself. */
static bool value_in(const char *text, const char *key, uint64_t *value)
{
	size_t len = strlen(key);

	for (const char *line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, key, len) == 0 && line[len] == ' ') {
			*value = strtoull(line + len + 1, NULL, 10);
			return true;
		}
	return false;
}

static struct memstat parse_text(const char *text, int version, bool *ok)
{
	struct memstat ms = { 0 };
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	*ok = in && memstat_parse(in, version, &ms);
	if (in)
		fclose(in);
	return ms;
}

/* The fixture: every figure of the v2 table is its key's line. */
static void test_v2_fixture(void)
{
	const char *dir = getenv("srcdir");
	char path[4096], text[16384];
	snprintf(path, sizeof path, "%s/tests/fixtures/cgroup2-memory.stat", dir ? dir : ".");
	FILE *f = fopen(path, "r");
	if (!f) {
		unit_check(false, "memstat: cannot open %s", path);
		return;
	}
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);

	bool ok;
	struct memstat ms = parse_text(text, 2, &ok);
	unit_check(ok, "memstat: the v2 fixture parses");
	for (int i = 0; i < MEMSTAT_COUNT; i++) {
		uint64_t want = UINT64_MAX;
		const char *key = memstat_keys[i].v2;
		unit_check(value_in(text, key, &want), "memstat: fixture has %s", key);
		unit_check(memstat_known(&ms, (enum memstat_id)i) && ms.value[i] == want,
			   "memstat v2 %s: got %" PRIu64 ", want %" PRIu64, key, ms.value[i], want);
	}
}

/* v1: the hierarchical total_* keys, not the cgroup's own; no activations. */
static void test_v1(void)
{
	bool ok;
	struct memstat ms = parse_text("cache 1\ndirty 2\ntotal_cache 10\ntotal_dirty 20\n"
				       "total_writeback 30\ntotal_shmem 40\ntotal_mapped_file 50\n"
				       "total_active_file 60\ntotal_inactive_file 70\n"
				       "total_workingset_refault_file 80\nworkingset_refault_file 8\n",
				       1, &ok);
	uint64_t want[MEMSTAT_COUNT] = { 10, 20, 30, 40, 50, 60, 70, 80, 0, 0 };
	unit_check(ok, "memstat: v1 parses");
	for (int i = 0; i < MEMSTAT_COUNT; i++) {
		bool known = memstat_known(&ms, (enum memstat_id)i);
		bool has_key = memstat_keys[i].v1 != NULL;
		unit_check(known == has_key && (!known || ms.value[i] == want[i]),
			   "memstat v1 %s: got %" PRIu64 " (%s), want %" PRIu64, memstat_keys[i].name,
			   ms.value[i], known ? "known" : "unknown", want[i]);
	}
}

/* v2 before Linux 5.9 named the refaults without _file; the new name wins. */
static void test_v2_old_names(void)
{
	bool ok;
	struct memstat ms = parse_text("workingset_refault 7\nworkingset_activate 3\n", 2, &ok);
	unit_check(ok && ms.value[MEMSTAT_REFAULT] == 7 && ms.value[MEMSTAT_ACTIVATE] == 3,
		   "memstat: v2's old refault names read");
	ms = parse_text("workingset_refault_file 9\nworkingset_refault 7\n", 2, &ok);
	unit_check(ok && ms.value[MEMSTAT_REFAULT] == 9, "memstat: the _file name wins after");
	ms = parse_text("workingset_refault 7\nworkingset_refault_file 9\n", 2, &ok);
	unit_check(ok && ms.value[MEMSTAT_REFAULT] == 9, "memstat: the _file name wins before");
	(void)parse_text("anon 5\nsock 1\n", 2, &ok);
	unit_check(!ok, "memstat: a file without a figure of ours is refused");
}

/* memstat_read_keys: any key by its exact name (not a longer one it
 * begins), 0 for one missing, the last line of a key winning; the lock's
 * guard reads its figures so. */
static void test_read_keys(void)
{
	static const char text[] = "file 100\nfile_mapped 7\nunevictable 4096\n"
				   "hierarchical_memory_limit 9223372036854771712\nfile 200\n";
	static const char *const keys[] = { "file", "unevictable", "hierarchical_memory_limit",
					    "inactive_anon", "file_map" };
	uint64_t values[5] = { 1, 1, 1, 1, 1 };
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	unit_check(in && memstat_read_keys(in, keys, values, 5), "memstat_read_keys: reads");
	if (in)
		fclose(in);
	unit_check(values[0] == 200, "memstat_read_keys: file's last line wins: %" PRIu64,
		   values[0]);
	unit_check(values[1] == 4096, "memstat_read_keys: unevictable: %" PRIu64, values[1]);
	unit_check(values[2] == UINT64_C(9223372036854771712),
		   "memstat_read_keys: a 63-bit limit: %" PRIu64, values[2]);
	unit_check(values[3] == 0 && values[4] == 0,
		   "memstat_read_keys: a key not there, or only begun by another, is 0: %" PRIu64
		   ", %" PRIu64,
		   values[3], values[4]);
}

void unit_memstat(void)
{
	test_v2_fixture();
	test_v1();
	test_v2_old_names();
	test_read_keys();
}
