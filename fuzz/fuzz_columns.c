/* SPDX-License-Identifier: MIT */
/* Fuzz target "columns": columns_parse, plain and "+LIST", against a
 * reference written from columns.h.  Input: one flags byte, then the
 * list (with flag 0x20, a first list to start from, a NUL, the list). */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "output/columns.h"
#include "fuzz.h"

const char fuzz_target_name[] = "columns";

enum {
	F_TABLE = 0x01,     /* columns_default(table) */
	F_ALL = 0x02,       /* columns_default(all) */
	F_SEGMENTS = 0x04,  /* columns_default(segments) */
	F_EXTENTS = 0x08,   /* columns_default(extents) */
	F_PATH_LAST = 0x10, /* keep_path_last */
	F_TWO_LISTS = 0x20, /* start from a first, plain list */
};

static FUZZ_ORACLE char ascii_lower(char c)
{
	if (c >= 'A' && c <= 'Z')
		return (char)(c - 'A' + 'a');
	return c;
}

/* The column named by s[0..len), any case, from the table itself. */
static FUZZ_ORACLE int reference_lookup(const char *s, size_t len)
{
	for (int id = 0; id < COL_COUNT; id++) {
		const char *name = columns[id].name;
		size_t i = 0;
		while (i < len && name[i] && ascii_lower(s[i]) == name[i])
			i++;
		if (i == len && name[i] == '\0')
			return id;
	}
	return -1;
}

static FUZZ_ORACLE bool contains(const enum column_id *ids, size_t n, int id)
{
	for (size_t i = 0; i < n; i++)
		if ((int)ids[i] == id)
			return true;
	return false;
}

/* What columns_parse must give: names in the order first named, each once;
 * "+LIST" appends to ids[0..n), before a final PATH when keep_path_last. */
static FUZZ_ORACLE int reference_parse(const char *list, const enum column_id *ids,
				       size_t n, bool keep_path_last, enum column_id *want,
				       size_t *want_n, const char **bad, size_t *bad_len)
{
	size_t count = 0;
	bool path_last = false;

	if (list[0] == '+') {
		list++;
		memcpy(want, ids, n * sizeof *ids);
		count = n;
		if (keep_path_last && n > 0 && ids[n - 1] == COL_PATH) {
			path_last = true;
			count--;
		}
	}
	const char *name = list;
	for (;;) {
		size_t len = strcspn(name, ",");
		int id = reference_lookup(name, len);
		if (id < 0) {
			*bad = name;
			*bad_len = len;
			return -1;
		}
		if (!contains(want, count, id) && !(path_last && id == COL_PATH))
			want[count++] = (enum column_id)id;
		if (name[len] == '\0')
			break;
		name += len + 1;
	}
	if (path_last)
		want[count++] = COL_PATH;
	*want_n = count;
	return 0;
}

/* Parse list starting from ids[0..*n), check it against the reference and
 * the invariants; returns the result of columns_parse. */
static FUZZ_ORACLE int check_parse(const char *list, enum column_id *ids, size_t *n,
				   bool keep_path_last)
{
	enum column_id before[COL_COUNT], want[COL_COUNT];
	size_t before_n = *n, want_n = 0;
	const char *bad = NULL, *want_bad = NULL;
	size_t bad_len = 0, want_bad_len = 0;

	memcpy(before, ids, sizeof before);
	int rc = columns_parse(list, ids, n, keep_path_last, &bad, &bad_len);
	int want_rc = reference_parse(list, before, before_n, keep_path_last, want, &want_n,
				      &want_bad, &want_bad_len);
	FUZZ_CHECK(rc == want_rc);
	if (rc != 0) {
		FUZZ_CHECK(bad == want_bad && bad_len == want_bad_len);
		FUZZ_CHECK(bad >= list && bad + bad_len <= list + strlen(list));
		FUZZ_CHECK(column_lookup(bad, bad_len) < 0);
		*n = before_n;
		memcpy(ids, before, sizeof before);
		return rc;
	}
	FUZZ_CHECK(*n == want_n && memcmp(ids, want, want_n * sizeof *ids) == 0);

	/* the promises of columns.h, whatever the reference says */
	FUZZ_CHECK(*n >= 1 && *n <= COL_COUNT);
	for (size_t i = 0; i < *n; i++) {
		FUZZ_CHECK((unsigned)ids[i] < COL_COUNT);
		FUZZ_CHECK(!contains(ids, i, (int)ids[i]));
	}
	if (list[0] == '+') {
		FUZZ_CHECK(*n >= before_n);
		for (size_t i = 0; i < before_n; i++)
			FUZZ_CHECK(contains(ids, *n, (int)before[i]));
		if (keep_path_last && before_n > 0 && before[before_n - 1] == COL_PATH)
			FUZZ_CHECK(ids[*n - 1] == COL_PATH);
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned flags = data[0];
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';

	enum column_id ids[COL_COUNT];
	memset(ids, 0, sizeof ids);
	size_t n = columns_default(ids, flags & F_TABLE, flags & F_ALL, flags & F_SEGMENTS,
				   flags & F_EXTENTS);
	FUZZ_CHECK(n >= 1 && n <= COL_COUNT);
	bool keep_path_last = flags & F_PATH_LAST;

	const char *list = text;
	if (flags & F_TWO_LISTS) {
		/* the first list, plain, replaces the defaults when it parses */
		size_t first_len = strlen(text);
		if (text[0] != '+')
			check_parse(text, ids, &n, keep_path_last);
		list = first_len + 1 < size - 1 ? text + first_len + 1 : text + first_len;
	}
	check_parse(list, ids, &n, keep_path_last);
	free(text);
	return 0;
}
