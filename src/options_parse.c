/* SPDX-License-Identifier: MIT */
/* The command line: read by the option table (optable.h), each value
 * checked as it is met, then the options together by option_rules[];
 * the columns resolved, and the lists read with the user's own rights. */
#include <config.h>

#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernel/caps.h"
#include "lib/format.h"
#include "lib/msg.h"
#include "optable.h"
#include "options_int.h"
#include "lib/status.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

/* ---- the values ------------------------------------------------------ */

/* "50M" or "50M/s" (the "/s" in any case): a size above 0, per second. */
static bool parse_rate(const char *s, uint64_t *out)
{
	size_t len = strlen(s);
	char value[64];

	if (len >= 2 && strcasecmp(s + len - 2, "/s") == 0)
		len -= 2;
	if (len == 0 || len >= sizeof value)
		return false;
	memcpy(value, s, len);
	value[len] = '\0';
	return fmt_parse_size(value, out) && *out > 0;
}

static bool parse_name(const char *s, const struct opt_name *names, int *out)
{
	/* any case: --format=JSON is no less clear */
	for (; names->name; names++)
		if (strcasecmp(s, names->name) == 0) {
			*out = names->value;
			return true;
		}
	return false;
}

/* "a whole number from 1 to 4096" and the like: what the entry's
 * message says was expected, from the limits the parser checks. */
static const char *expected_text(const struct opt_spec *o)
{
	static char text[512];

	switch (o->kind) {
	case OK_WHOLE:
	case OK_DECIMAL:
		snprintf(text, sizeof text, "%s from %.15g to %.15g%s", o->expected, o->min, o->max,
			 o->example ? o->example : "");
		return text;
	case OK_NAME: {
		/* "auto, cachestat or mincore" */
		size_t len = 0, n = 0;
		while (o->names[n].name)
			n++;
		for (size_t i = 0; i < n && len < sizeof text; i++)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%s",
						i == 0 ? "" : i + 1 == n ? " or " : ", ",
						o->names[i].name);
		return text;
	}
	default:
		return o->expected;
	}
}

static int tell_bad_value(const char *option, const char *value, const char *expected)
{
	msg("invalid value for %s: ", option);
	/* a value from the command line may hold anything */
	msg_name_str(value);
	msg_more(" (expected %s)\n", expected);
	msg_try_help();
	return STATUS_USAGE;
}

/* ---- the parse --------------------------------------------------------- */

static bool given(const struct options_state *st, int key)
{
	const struct opt_spec *o = opt_by_key(key);
	return o && st->given[o - option_table];
}

/* A value as read, before it goes to its field. */
struct value {
	long long whole; /* OK_SET, OK_WHOLE, OK_SIZE, OK_NAME */
	double number;   /* OK_DECIMAL */
	uint64_t size;   /* OK_SIZE, OK_RATE */
};

/* arg read as option o reads it, into v; NULL, or what a good value
 * would have been. */
static const char *read_value(const struct opt_spec *o, const char *arg, struct value *v)
{
	long count;
	int name;

	switch (o->kind) {
	case OK_SET:
		v->whole = o->value;
		break;
	case OK_WHOLE:
		if (!options_parse_count(arg, &count) || (double)count < o->min ||
		    (double)count > o->max)
			return expected_text(o);
		v->whole = count;
		break;
	case OK_SIZE:
		if (!fmt_parse_size(arg, &v->size))
			return expected_text(o);
		v->whole = (long long)v->size;
		break;
	case OK_RATE:
		if (!parse_rate(arg, &v->size))
			return expected_text(o);
		break;
	case OK_NAME:
		name = (int)o->value;
		if (arg && !parse_name(arg, o->names, &name))
			return expected_text(o);
		v->whole = name;
		break;
	case OK_DECIMAL:
		if (!options_parse_decimal(arg, &v->number) || v->number < o->min ||
		    v->number > o->max)
			return expected_text(o);
		break;
	case OK_GIVEN:
	case OK_TEXT:
	case OK_CUSTOM:
		break;
	}
	return NULL;
}

/* v (or arg, as given) into option o's field. */
static void store_value(const struct opt_spec *o, char *field, const struct value *v,
			const char *arg)
{
	switch (o->store) {
	case STORE_NONE:
		break;
	case STORE_BOOL:
		*(bool *)(void *)field = v->whole != 0;
		break;
	case STORE_INT:
		*(int *)(void *)field = (int)v->whole;
		break;
	case STORE_UNSIGNED:
		*(unsigned *)(void *)field = (unsigned)v->whole;
		break;
	case STORE_LONG:
		*(long *)(void *)field = (long)v->whole;
		break;
	case STORE_U64:
		*(uint64_t *)(void *)field = o->kind == OK_RATE ? v->size : (uint64_t)v->whole;
		break;
	case STORE_DOUBLE:
		*(double *)(void *)field = v->number;
		break;
	case STORE_TEXT:
		*(const char **)(void *)field = arg;
		break;
	}
}

/* The value of option o, arg, into its field; NULL, or what a good value
 * would have been. */
static const char *take_value(const struct opt_spec *o, const char *arg, struct options *opts,
			      struct options_state *st)
{
	struct value v = { 0, 0, 0 };

	if (o->kind == OK_GIVEN)
		return NULL;
	if (o->kind == OK_CUSTOM)
		return o->parse(arg, opts, st);
	const char *expected = read_value(o, arg, &v);
	if (expected)
		return expected;
	store_value(o, (o->in_state ? (char *)st : (char *)opts) + o->offset, &v, arg);
	return NULL;
}

/* getopt_long's table and short options, made from option_table. */
static void getopt_tables(struct option *longs, char *shorts)
{
	size_t n = 0;

	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *o = &option_table[i];
		longs[i] = (struct option){
			o->long_name,
			o->arg == ARG_NONE ? no_argument
			: o->arg == ARG_REQUIRED ? required_argument : optional_argument,
			NULL, o->key,
		};
		if (o->key >= UCHAR_MAX)
			continue;
		shorts[n++] = (char)o->key;
		if (o->arg != ARG_NONE)
			shorts[n++] = ':';
		if (o->arg == ARG_OPTIONAL)
			shorts[n++] = ':';
	}
	longs[option_count] = (struct option){ NULL, 0, NULL, 0 };
	shorts[n] = '\0';
}

int options_parse(int argc, char **argv, struct options *opts)
{
	static char *dot[] = { ".", NULL };
	struct options_state *st = xcalloc(1, sizeof *st);
	struct option longs[OPTIONS_ROOM + 1];
	char shorts[3 * OPTIONS_ROOM + 1];
	int key;

	*opts = (struct options){
		.headings = true,
		.max_depth = -1,
		/* a link named as FILE has no page cache of its own: who
		 * names /var/lib/mysql means the data */
		.follow = FOLLOW_ARGS,
		.method = PROBE_AUTO,
		.format = FORMAT_TABLE,
		.unit = UNIT_HUMAN,
		.sort_key = -1,
		.jobs = 0, /* auto */
		.expect_cached = -1,
		.trace_buffer = TRACE_BUFFER_DEFAULT,
		.state = st,
		.operands = dot,
	};
	st->offset = "0";
	st->length = "0";
	getopt_tables(longs, shorts);
	/* getopt's own messages start with argv[0]; ours with "pagestat". */
	argv[0] = (char *)"pagestat";
	/* each option in turn: the first problem, --help or --version ends
	 * the parse, told at once */
	while ((key = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct opt_spec *o = opt_by_key(key);
		if (!o) {
			msg_try_help(); /* after getopt's own message */
			return STATUS_USAGE;
		}
		st->given[o - option_table] = true;
		if (key == 'h') {
			options_usage(stdout);
			return STATUS_OK;
		}
		if (key == 'V') {
			options_version();
			return STATUS_OK;
		}
		const char *expected = take_value(o, optarg, opts, st);
		if (expected) {
			char name[64];
			snprintf(name, sizeof name, "--%s", o->long_name);
			return tell_bad_value(name, optarg, expected);
		}
	}
	st->noperands = argc - optind;
	if (optind < argc)
		opts->operands = argv + optind;
	return OPTIONS_RUN;
}

/* --system: the file systems' type (before PATH in the table), and in
 * the other formats why one was not walked, after backing (the table
 * puts that note after the path: a column would be empty on all but a
 * few rows). */
static void add_system_columns(struct options *opts, bool table)
{
	enum column_id *ids = opts->columns;
	size_t n = opts->ncolumns, at = n;

	for (size_t i = 0; i < n; i++)
		if ((table && ids[i] == COL_PATH) || (!table && ids[i] == COL_BACKING))
			at = table ? i : i + 1;
	size_t add = table ? 1 : 2;
	memmove(ids + at + add, ids + at, (n - at) * sizeof *ids);
	ids[at] = COL_FSTYPE;
	if (!table)
		ids[at + 1] = COL_NOTE;
	opts->ncolumns = n + add;
}

static int usage_error(const char *message);

/* Prometheus: does one of the columns make a family? */
static bool any_family(const struct options *opts)
{
	for (size_t i = 0; i < opts->ncolumns; i++)
		if (columns[opts->columns[i]].prom_help)
			return true;
	return false;
}

/* Has the run what a column needs (columns[].need)? */
static bool need_met(enum column_need need, const struct options *opts)
{
	switch (need) {
	case NEED_NOTHING:
		return true;
	case NEED_SEGMENTS:
		return opts->segments > 0;
	case NEED_EXTENTS:
		return opts->extents != EXTENTS_NONE;
	case NEED_INTERVAL:
		return opts->interval > 0;
	case NEED_EVICT:
		return opts->action == ACTION_EVICT;
	case NEED_WARM:
		return opts->action == ACTION_WARM || opts->action == ACTION_LISTED ||
		       opts->action == ACTION_LOCK;
	case NEED_LOCK:
		return opts->action == ACTION_LOCK;
	case NEED_SYSTEM:
		return opts->system;
	case NEED_CHARGED:
		return opts->charged;
	case NEED_TRACE:
		return opts->trace;
	case NEED_EVICT_OR_TRACE:
		return opts->action == ACTION_EVICT || opts->trace;
	case NEED_BY:
		return opts->trace_by != BY_FILE;
	}
	return false;
}

/* --trace: its columns after percent (the table: those it shows by
 * default, in the order of columns_traced). */
static void add_trace_columns(struct options *opts, bool table, bool all)
{
	enum column_id *ids = opts->columns;
	size_t n = opts->ncolumns, at = n;
	for (size_t i = 0; i < n; i++)
		if (ids[i] == COL_PERCENT || (ids[i] == COL_CACHED && at == n))
			at = i + 1;
	for (size_t k = 0; k < columns_ntraced; k++) {
		enum column_id id = columns_traced[k];
		bool listed = false;
		for (size_t i = 0; i < n; i++)
			listed |= ids[i] == id;
		if (listed || (table && !all && !columns[id].table_default))
			continue;
		memmove(ids + at + 1, ids + at, (n - at) * sizeof *ids);
		ids[at++] = id;
		n++;
	}
	opts->ncolumns = n;
}

/* --by: rows of processes or cgroups have no size or cache state: their
 * motion, the files they moved, and their name last (the table) */
static void by_columns(struct options *opts, bool table, bool all)
{
	static const enum column_id table_ids[] = { COL_ADDED, COL_RECLAIMED, COL_DROPPED,
						    COL_REFAULTED, COL_FILES, COL_TOP_FILES,
						    COL_PATH };
	static const enum column_id json_ids[] = { COL_PATH, COL_TYPE, COL_ADDED, COL_REMOVED,
						   COL_RECLAIMED, COL_DROPPED, COL_REFAULTED,
						   COL_FILES, COL_TOP_FILES };
	const enum column_id *ids = table && !all ? table_ids : json_ids;
	size_t n = table && !all ? sizeof table_ids / sizeof *ids : sizeof json_ids / sizeof *ids;
	memcpy(opts->columns, ids, n * sizeof *ids);
	opts->ncolumns = n;
	if (table && all) { /* PATH last */
		memmove(opts->columns, opts->columns + 1, (n - 1) * sizeof *ids);
		opts->columns[n - 1] = COL_PATH;
	}
}

/* -o is resolved once the format is known, since "+LIST" extends the
 * format's defaults. */
static int resolve_columns(struct options *opts, const char *list, bool all)
{
	bool table = opts->format == FORMAT_TABLE;
	opts->ncolumns = columns_default(opts->columns, table, all, opts->segments > 0,
					 opts->extents != EXTENTS_NONE);
	if (opts->interval)
		opts->ncolumns = columns_add_delta(opts->columns, opts->ncolumns);
	/* each goes after percent: --lock's read, then locked */
	if (opts->action == ACTION_LOCK)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_LOCKED);
	if (opts->action == ACTION_EVICT)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_DROPPED);
	else if (opts->action != ACTION_NONE)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_READ);
	if (opts->system)
		add_system_columns(opts, table);
	if (opts->charged)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_CHARGED);
	if (opts->trace_by != BY_FILE)
		by_columns(opts, table, all);
	else if (opts->trace)
		add_trace_columns(opts, table, all);
	if (!list || all)
		return OPTIONS_RUN;

	const char *bad;
	size_t bad_len;
	if (columns_parse(list, opts->columns, &opts->ncolumns, table, &bad, &bad_len) != 0) {
		msg("unknown column ");
		msg_name(bad, bad_len);
		msg_more(" in --output ");
		msg_name_str(list);
		msg_more(" (the columns: %s)\n", columns_names(false));
		msg_try_help();
		return STATUS_USAGE;
	}
	if (opts->format == FORMAT_PROMETHEUS && !any_family(opts))
		return usage_error("--format=prometheus: none of the columns of --output has a "
				   "Prometheus family (size, cached, dirty, writeback, evicted, "
				   "recently_evicted, files, dropped and read do)");
	for (size_t i = 0; i < opts->ncolumns; i++) {
		const struct column *col = &columns[opts->columns[i]];
		if (!need_met(col->need, opts)) {
			msg("column '%s' in --output needs %s\n", col->name, col->need_text);
			msg_try_help();
			return STATUS_USAGE;
		}
	}
	return OPTIONS_RUN;
}

static int usage_error(const char *message)
{
	msg("%s\n", message);
	msg_try_help();
	return STATUS_USAGE;
}

/* ---- the options together ---------------------------------------------- */

static size_t others_given(const struct opt_rule *r, const struct options_state *st)
{
	size_t n = 0;
	for (size_t k = 0; k < sizeof r->others / sizeof r->others[0] && r->others[k]; k++)
		n += given(st, r->others[k]);
	return n;
}

static bool rule_broken(const struct opt_rule *r, const struct options *opts,
			const struct options_state *st)
{
	bool key = !r->key || given(st, r->key);

	if (r->unless && given(st, r->unless))
		return false;
	switch (r->kind) {
	case RULE_EXCLUDES:
		return key && others_given(r, st) > 0;
	case RULE_NEEDS:
		return key && others_given(r, st) == 0;
	case RULE_ONE_OF:
		return key + others_given(r, st) > 1;
	case RULE_ALONE:
		/* an option that names the files takes no FILE operand */
		return key && (others_given(r, st) > 0 ||
			       (opt_by_key(r->key)->names_files && st->noperands > 0));
	case RULE_CHECK:
		return key && r->broken(opts, st);
	}
	return false;
}

/* What the options given make of each other, which the rules read. */
static void derive(struct options *opts, const struct options_state *st)
{
	bool evict = given(st, OPT_EVICT), warm = given(st, OPT_WARM);

	opts->action = evict ? ACTION_EVICT
		       : warm ? ACTION_WARM
		       : opts->lock ? ACTION_LOCK
		       : opts->warm_from ? ACTION_LISTED : ACTION_NONE;
	/* --charged: those trees, not the processes' files */
	opts->cgroup_walks = opts->ncgroups && opts->charged &&
			     (st->files0_from || st->noperands > 0);
}

/* What the options given leave to defaults, once they hold together. */
static void settle(struct options *opts)
{
	/* --trace: the files that moved the most first (with -i, as top(1)
	 * shows the busiest), where an order is asked or needed */
	if (opts->trace && opts->sort_key < 0 && (opts->top || opts->system || opts->interval))
		opts->sort_key = COL_ADDED;
	if (opts->top && opts->sort_key < 0)
		opts->sort_key = COL_CACHED;
	if (opts->system) {
		/* the files that hold the most, then the file systems */
		if (!opts->top)
			opts->top = SYSTEM_TOP;
		if (opts->sort_key < 0)
			opts->sort_key = COL_CACHED;
		opts->all = true;
		opts->total = true;
	}
}

/* The rules of option_rules, in their order, after the last option is
 * read: the first that fails is told. */
static int check_combinations(struct options *opts, const struct options_state *st)
{
	derive(opts, st);
	for (size_t i = 0; i < rule_count; i++) {
		const struct opt_rule *r = &option_rules[i];
		if (!rule_broken(r, opts, st))
			continue;
		if (r->message)
			return usage_error(r->message);
		return STATUS_USAGE; /* told by r->broken */
	}
	settle(opts);
	return OPTIONS_RUN;
}

/* A list is held whole in memory (-i inspects its names again, --warm
 * counts first what it will read): at most this much of it, so that an
 * endless one (/dev/zero) is refused, not read until memory runs out.
 * pagestat(1) says so. */
#define LIST_MAX ((size_t)1 << 30)
#define EXCLUDE_LIST_MAX ((size_t)16 << 20)

/* The whole of FILE ("-": standard input), NUL-terminated, its length in
 * *len, kept in st until options_free; NULL with errno set when it cannot
 * be read: EFBIG when it holds max bytes or more. */
static char *slurp(struct options_state *st, const char *file, size_t max, size_t *len)
{
	/* with the user's own rights: a setcap pagestat reads no list its
	 * user could not read without it */
	FILE *in = user_fopen_read(file);
	if (!in)
		return NULL;
	size_t cap = 4096, n = 0;
	char *text = xrealloc(NULL, cap);
	int err = 0;
	for (;;) {
		n += fread(text + n, 1, cap - n - 1, in);
		if (n < cap - 1)
			break;
		if (n >= max) {
			err = EFBIG;
			break;
		}
		size_t want = cap > max / 2 ? max + 1 : cap * 2;
		char *more = realloc(text, want);
		if (!more) {
			err = ENOMEM;
			break;
		}
		text = more;
		cap = want;
	}
	if (!err && ferror(in))
		err = errno;
	if (in != stdin)
		fclose(in);
	if (err) {
		free(text);
		errno = err;
		return NULL;
	}
	text[n] = '\0';
	*len = n;
	st->texts = options_grow(st->texts, st->ntexts, sizeof *st->texts);
	st->texts[st->ntexts++] = text;
	return text;
}

static int cannot_read(const char *option, const char *file, size_t max)
{
	int err = errno;
	msg("cannot read %s ", option);
	msg_name_str(file);
	if (err == EFBIG)
		msg_more(": a list may hold less than %zu MiB (is it endless, like "
			 "/dev/zero?)\n", max >> 20);
	else
		msg_more(": %s\n", strerror(err));
	return STATUS_USAGE;
}

/* --exclude-from: one glob a line; empty lines are skipped. */
static int read_excludes(struct options *opts, const char *file)
{
	size_t len;
	char *text = slurp(opts->state, file, EXCLUDE_LIST_MAX, &len);
	if (!text)
		return cannot_read("--exclude-from", file, EXCLUDE_LIST_MAX);
	for (char *line = text; line < text + len;) {
		char *nl = strchrnul(line, '\n');
		*nl = '\0';
		if (*line)
			options_add_exclude(opts, line);
		line = nl + 1;
	}
	return OPTIONS_RUN;
}

/* --files0-from: names ended by NUL (the last one may lack it).  An empty
 * name stays, to be reported in its place, as du does. */
static int read_names(struct options *opts, const char *file)
{
	struct options_state *st = opts->state;
	size_t len, count = 0;
	char *text = slurp(st, file, LIST_MAX, &len);
	if (!text)
		return cannot_read("--files0-from", file, LIST_MAX);
	for (size_t i = 0; i < len; i++)
		count += text[i] == '\0';
	count += len > 0 && text[len - 1] != '\0';
	st->names = calloc(count + 1, sizeof *st->names);
	if (!st->names) {
		msg("cannot read --files0-from ");
		msg_name_str(file);
		msg_more(": its %zu names do not fit in memory\n", count);
		return STATUS_USAGE;
	}
	size_t n = 0;
	for (char *name = text; name < text + len; name += strlen(name) + 1)
		st->names[n++] = name;
	st->names[n] = NULL;
	opts->operands = st->names;
	return OPTIONS_RUN;
}

int options_finish(struct options *opts)
{
	struct options_state *st = opts->state;

	int status = check_combinations(opts, st);
	if (status == OPTIONS_RUN && opts->charged && !caps_have_sys_admin())
		status = usage_error("--charged: needs CAP_SYS_ADMIN (root): without it the kernel "
				     "zeroes the frame numbers of /proc/self/pagemap and refuses "
				     "/proc/kpagecgroup (a setcap install does not grant it)");
	if (status == OPTIONS_RUN)
		status = resolve_columns(opts, st->output_list, st->output_all);
	/* read last: a usage error must not consume standard input first */
	for (size_t i = 0; status == OPTIONS_RUN && i < st->nexclude_files; i++)
		status = read_excludes(opts, st->exclude_files[i]);
	if (status == OPTIONS_RUN && st->files0_from)
		status = read_names(opts, st->files0_from);
	return status;
}

void options_free(struct options *opts)
{
	struct options_state *st = opts->state;

	if (!st)
		return;

	for (size_t i = 0; i < st->ntexts; i++)
		free(st->texts[i]);
	free(st->texts);
	free(st->names);
	free(st->exclude_files);
	free(st);
	free(opts->excludes);
	free(opts->pids);
	free(opts->cgroups);
}
