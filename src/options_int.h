/* SPDX-License-Identifier: MIT */
/* What the files of the command line share and nothing else sees: what
 * the parse keeps besides struct options, the limits the texts say, and
 * the macros a row of option_table[] is written with, which check the
 * type of the field a value goes to. */
#ifndef PAGESTAT_OPTIONS_INT_H
#define PAGESTAT_OPTIONS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "optable.h"
#include "options.h"

/* Limits, written so that the texts can say them (STR): the parser
 * checks the same constants. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define COUNT_MAX 2147483647 /* INT_MAX */
#define SEGMENTS_MAX 4096
#define SYSTEM_TOP 20
#define INTERVAL_MIN 0.001
#define TRACE_SECONDS_MAX 604800 /* --trace: a week */
#define TRACE_BUFFER_DEFAULT (8u << 20) /* --trace-buffer: bytes a CPU */

#define SIZE_EXPECTED "a size in bytes such as 4096, 64K, 1MiB or 10GB, below 2^64"

/* What the parse keeps besides struct options, and what the lists read
 * hold until options_free. */
/* Room for this many options (options.c asserts that the table fits). */
#define OPTIONS_ROOM 64

struct options_state {
	bool given[OPTIONS_ROOM]; /* by the option's index in option_table */
	const char *output_list; /* -o, resolved once the format is known */
	bool output_all;
	const char *offset, *length; /* as given, for the message on their sum */
	const char *files0_from;
	const char **exclude_files; /* --exclude-from */
	size_t nexclude_files;
	int noperands;
	char **texts; /* what the lists held */
	size_t ntexts;
	char **names; /* --files0-from's operands, pointing into texts */
};

/* ---- a row of option_table[] ------------------------------------------ */

/* A row opens with its head, in place: { key, "long-name", ARG_*,
 * metavar, GROUP_*, help, brief, then one of the macros below, which
 * says how the value is read and where it goes: IN(member) of struct
 * options, IN_STATE(member) of struct options_state.  The store is
 * chosen by the field's type, from the types the kind of value may go
 * to: a type the kind does not list does not compile (a whole number
 * into a bool, a name into a double).  An enum is its compatible
 * integer type. */
#define IN(member) struct options, false, member
#define IN_STATE(member) struct options_state, true, member

#define STORE_FLAG(f) _Generic((f), bool: STORE_BOOL, int: STORE_INT, unsigned: STORE_UNSIGNED)
#define STORE_WHOLE(f)                                                                 \
	_Generic((f), long: STORE_LONG, unsigned: STORE_UNSIGNED, uint64_t: STORE_U64)
#define STORE_ENUM(f) _Generic((f), int: STORE_INT, unsigned: STORE_UNSIGNED)
#define STORE_NUMBER(f) _Generic((f), double: STORE_DOUBLE)
#define STORE_BYTES(f) _Generic((f), uint64_t: STORE_U64)
#define STORE_STRING(f) _Generic((f), const char *: STORE_TEXT)

#define FIELD_(select, type, state, member)                                           \
	.store = select(((type *)0)->member), .in_state = (state),                     \
	.offset = offsetof(type, member)
#define FIELD(select, ...) FIELD_(select, __VA_ARGS__)

/* no value: the field takes v */
#define SET(where, v) .kind = OK_SET, FIELD(STORE_FLAG, where), .value = (v)
/* no value: only that it was given (the rules read it) */
#define GIVEN .kind = OK_GIVEN
/* a whole number from lo to hi */
#define WHOLE(where, lo, hi, hint_)                                                    \
	.kind = OK_WHOLE, FIELD(STORE_WHOLE, where), .min = (lo), .max = (hi),          \
	.expected = "a whole number", .hint = (hint_)
/* a plain decimal number from lo to hi */
#define DECIMAL(where, lo, hi, expected_, example_, hint_)                             \
	.kind = OK_DECIMAL, FIELD(STORE_NUMBER, where), .min = (lo), .max = (hi),       \
	.expected = (expected_), .example = (example_), .hint = (hint_)
/* one of names_, which the completions offer */
#define NAME(where, names_, hint_)                                                     \
	.kind = OK_NAME, FIELD(STORE_ENUM, where), .names = (names_),                   \
	.complete = COMPLETE_NAMES, .hint = (hint_)
/* SIZE or SIZE/s, above 0 */
#define RATE(where, expected_, hint_)                                                  \
	.kind = OK_RATE, FIELD(STORE_BYTES, where), .expected = (expected_), .hint = (hint_)
/* a file's name, as given */
#define FILENAME(where, hint_)                                                         \
	.kind = OK_TEXT, FIELD(STORE_STRING, where), .complete = COMPLETE_FILE, .hint = (hint_)
/* fn reads it; CLEARS(where): it also sets where, which other rows set */
#define CUSTOM(fn) .kind = OK_CUSTOM, .parse = (fn)
#define CLEARS(where) FIELD(STORE_FLAG, where)

/* ---- shared between options.c, options_parse.c, options_help.c --------- */

/* options_value.c, below both options.c and options_parse.c: */
/* The array with room for element n + 1, n elements being held. */
void *options_grow(void *array, size_t n, size_t size);

/* A non-negative decimal integer up to INT_MAX, nothing else. */
bool options_parse_count(const char *s, long *out);

/* A plain decimal number, "12", "12.5" or ".5": nothing else. */
bool options_parse_decimal(const char *s, double *out);

/* --exclude's glob (or one of --exclude-from's lines) kept. */
void options_add_exclude(struct options *opts, const char *glob);

/* --help on out, --version on standard output. */
void options_usage(FILE *out);
void options_version(void);

#endif
