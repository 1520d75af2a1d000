/* SPDX-License-Identifier: MIT */
/* The one table of options: each option's names, argument, help, where its
 * value goes and what a shell completes for it.  getopt_long's table,
 * --help, every value's message and the completions are made from it. */
#ifndef PAGESTAT_OPTABLE_H
#define PAGESTAT_OPTABLE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* Keys of the options that have no short letter (getopt_long's val). */
enum {
	OPT_METHOD = UCHAR_MAX + 1,
	OPT_FORMAT,
	OPT_CSV,
	OPT_OUTPUT_ALL,
	OPT_OFFSET,
	OPT_LENGTH,
	OPT_REVERSE,
	OPT_TOP,
	OPT_EXCLUDE,
	OPT_EXCLUDE_FROM,
	OPT_FILES0_FROM,
	OPT_EXPECT_CACHED,
	OPT_COUNT,
	OPT_PID,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_OUTPUT_FILE,
	OPT_EVICT,
	OPT_WARM,
	OPT_WARM_FROM,
	OPT_RATE,
	OPT_SYSTEM,
	OPT_BROWSE,
	OPT_CGROUP,
	OPT_LOCK,
	OPT_LOCK_MAX,
	OPT_DAEMON,
	OPT_PIDFILE,
	OPT_NO_FOLLOW,
	OPT_RESERVE,
	OPT_CHARGED,
	OPT_TRACE,
	OPT_TRACE_BUFFER,
	OPT_BY,
};

/* The groups of --help, in its order. */
enum opt_group {
	GROUP_ROWS,
	GROUP_WALK,
	GROUP_RANGE,
	GROUP_OUTPUT,
	GROUP_WATCH,
	GROUP_ACTIONS,
	GROUP_INFO, /* --help, --version */
	GROUP_COUNT,
};

struct opt_group_text {
	const char *title;   /* "Rows:", or NULL */
	const char *trailer; /* a paragraph after its options, or NULL */
};

extern const struct opt_group_text opt_groups[GROUP_COUNT];

enum opt_arg { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

/* How a value is read. */
enum opt_kind {
	OK_SET,     /* no value: the field takes .value */
	OK_GIVEN,   /* no value: only that it was given (the rules read it) */
	OK_WHOLE,   /* a whole number from .min to .max */
	OK_SIZE,    /* SIZE: bytes, or 64K, 1MiB, 10GB */
	OK_RATE,    /* SIZE, or SIZE/s, above 0 */
	OK_NAME,    /* one of .names, in any case; none (optional): .value */
	OK_DECIMAL, /* a plain decimal number from .min to .max */
	OK_TEXT,    /* as given */
	OK_CUSTOM,  /* .parse reads it */
};

/* Where a value goes: struct options, or parse's own state. */
enum opt_store {
	STORE_NONE,
	STORE_BOOL,
	STORE_INT,      /* an int or an enum */
	STORE_UNSIGNED,
	STORE_LONG,
	STORE_U64,
	STORE_DOUBLE,
	STORE_TEXT,     /* const char * */
};

/* What a shell completes for the value. */
enum opt_complete {
	COMPLETE_NOTHING, /* a number, a size, a pattern: .hint says what */
	COMPLETE_FILE,
	COMPLETE_COLUMNS, /* a comma-separated list, +LIST */
	COMPLETE_SORT_KEY,
	COMPLETE_PID,
	COMPLETE_NAMES,   /* .names, with their help */
	COMPLETE_CGROUP,  /* a cgroup directory, relative to the memory cgroup mount */
};

struct opt_name {
	const char *name;
	int value;
	const char *help; /* for the completions */
};

struct options;
struct options_state;

/* The fields in the order a row of the table reads, whatever the padding
 * (one table of some 45). */
/* NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding) */
struct opt_spec {
	int key;               /* getopt_long's: the short letter, or OPT_* */
	const char *long_name;
	enum opt_arg arg;
	const char *metavar;   /* "N", "SIZE", "FILE" */
	enum opt_group group;
	/* --help: its lines, the first beside the names, "\n" between */
	const char *help;
	/* the completions' one line; NULL: the help, which is one line */
	const char *brief;
	enum opt_kind kind;
	/* the field the value goes to; an OK_CUSTOM entry may name one its
	 * parse sets that other entries set too (the completions take the
	 * entries of one field as excluding each other: the last one wins) */
	enum opt_store store;
	bool in_state;         /* offset is into struct options_state */
	size_t offset;
	long long value;       /* OK_SET's; OK_NAME's without a value */
	double min, max;       /* OK_WHOLE, OK_DECIMAL */
	const struct opt_name *names; /* OK_NAME, COMPLETE_NAMES; NULL-named last */
	/* what a bad value is told was expected: OK_WHOLE and OK_DECIMAL, the
	 * words before " from MIN to MAX" ("a whole number"), then example;
	 * OK_SIZE, OK_RATE, OK_TEXT, the whole text (OK_NAME's is its names) */
	const char *expected;
	const char *example;
	/* OK_CUSTOM: NULL when arg is good, else what was expected */
	const char *(*parse)(const char *arg, struct options *opts, struct options_state *st);
	enum opt_complete complete;
	const char *hint;      /* what the value is, for the completions */
	bool repeats;          /* may be given more than once, each counting */
	/* names the files itself (a list, processes, the machine, a snapshot):
	 * no FILE operand (its RULE_ALONE rule says so, with the others it
	 * excludes), nor another such option (the completions offer neither
	 * after it) */
	bool names_files;
};

extern const struct opt_spec option_table[];
extern const size_t option_count;

/* A rule between options.  option_rules[] holds them all, in the order
 * they are checked once every option is read: the first broken one is
 * told.  A rule that looks at values or operands is code (RULE_CHECK). */
enum rule_kind {
	RULE_EXCLUDES, /* key excludes each of others */
	RULE_NEEDS,    /* key needs one of others */
	RULE_ONE_OF,   /* at most one of key and others */
	/* key names the files (.names_files): no FILE operand, nor any of
	 * others */
	RULE_ALONE,
	/* .broken looks at values or operands (key 0: always, else when key
	 * is given); .message, or, when NULL, broken told it */
	RULE_CHECK,
};

/* NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding) */
struct opt_rule {
	enum rule_kind kind;
	int key;
	int others[4]; /* 0 after the last */
	const char *message;
	int unless;    /* 0, or an option that, given too, lifts the rule */
	bool (*broken)(const struct options *opts, const struct options_state *st);
};

extern const struct opt_rule option_rules[];
extern const size_t rule_count;

/* The entry of a key (getopt's val); NULL when none has it. */
const struct opt_spec *opt_by_key(int key);

/* What the completions say of an option: its brief, else its help. */
static inline const char *opt_brief(const struct opt_spec *o)
{
	return o->brief ? o->brief : o->help;
}

#endif
