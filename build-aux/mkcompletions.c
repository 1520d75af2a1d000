/* SPDX-License-Identifier: MIT */
/* The bash, zsh and fish completions, made in the build from the option
 * table (optable.h) and the columns' table: a template comes on standard
 * input and its @NAME@ placeholders are filled from the tables.  "options"
 * lists each option as the man page heads it, with the limits that its
 * paragraph must state (tests/docs.bats compares them). */
#include <config.h>

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/columns.h"
#include "optable.h"

/* Word lists are wrapped before this column. */
#define WRAP 76
/* at least option_count (main checks) */
#define OPTIONS_MAX 128

enum shell { SHELL_BASH, SHELL_ZSH, SHELL_FISH };

static bool has_short(const struct opt_spec *o)
{
	return o->key < UCHAR_MAX;
}

/* ---- what the tables say together ------------------------------------ */

static bool in_others(const struct opt_rule *r, int key)
{
	for (size_t k = 0; k < sizeof r->others / sizeof r->others[0] && r->others[k]; k++)
		if (r->others[k] == key)
			return true;
	return false;
}

static bool rule_excludes(const struct opt_rule *r, int a, int b)
{
	switch (r->kind) {
	case RULE_ONE_OF:
		return (r->key == a || in_others(r, a)) &&
		       (r->key == b || in_others(r, b));
	case RULE_EXCLUDES:
	case RULE_ALONE:
		return (r->key == a && in_others(r, b)) ||
		       (r->key == b && in_others(r, a));
	case RULE_NEEDS:
	case RULE_CHECK:
		break;
	}
	return false;
}

/* Do options a and b exclude each other: a rule says so, each names the
 * files instead of the operands, or both set one field (given together,
 * the last one wins)? */
static bool exclude_each_other(const struct opt_spec *a, const struct opt_spec *b)
{
	if (a == b)
		return false;
	if (a->store != STORE_NONE && b->store != STORE_NONE && a->in_state == b->in_state &&
	    a->offset == b->offset)
		return true;
	if (a->names_files && b->names_files)
		return true;
	for (size_t i = 0; i < rule_count; i++)
		if (rule_excludes(&option_rules[i], a->key, b->key))
			return true;
	return false;
}

static bool excludes_any(const struct opt_spec *o)
{
	for (size_t i = 0; i < option_count; i++)
		if (exclude_each_other(o, &option_table[i]))
			return true;
	return false;
}

/* --help and --version end the parse: nothing goes with them. */
static bool ends_parse(const struct opt_spec *o)
{
	return o->group == GROUP_INFO;
}

/* What the completions call the value: the table's hint, else the
 * metavariable in lower case. */
static const char *value_hint(const struct opt_spec *o)
{
	static char lower[32];
	size_t n = 0;

	if (o->hint)
		return o->hint;
	if (o->complete == COMPLETE_SORT_KEY)
		return "sort key";
	for (const char *s = o->metavar ? o->metavar : "value"; *s && n + 1 < sizeof lower; s++)
		lower[n++] = (char)tolower((unsigned char)*s);
	lower[n] = '\0';
	return lower;
}

/* ---- writing --------------------------------------------------------- */

/* Where the line being written is, for put_word: the template's column
 * at the placeholder, then put_word's. */
static int column;

/* Words, sep between them, wrapped before WRAP onto lines that start
 * with indent (after sep, less its trailing spaces, and wrap). */
static void put_word_sep(const char *word, bool first, const char *sep, const char *wrap,
			 const char *indent)
{
	int len = (int)strlen(word), sep_len = (int)strlen(sep), kept = sep_len;

	while (kept > 0 && sep[kept - 1] == ' ')
		kept--;
	if (!first && column + sep_len + len > WRAP) {
		printf("%.*s%s\n%s", kept, sep, wrap, indent);
		column = 0;
		for (const char *c = indent; *c; c++)
			column = *c == '\t' ? (column / 8 + 1) * 8 : column + 1;
	} else if (!first) {
		fputs(sep, stdout);
		column += sep_len;
	}
	fputs(word, stdout);
	column += len;
}

/* Words, a space between them, wrapped onto lines that start with a tab. */
static void put_word(const char *word, bool first)
{
	put_word_sep(word, first, " ", "", "\t");
}

/* s in a shell's single quotes, without them: bash's and zsh's close the
 * quote around an escaped quote, fish's escape it (and a backslash). */
static void put_quoted(const char *s, enum shell shell)
{
	for (; *s; s++)
		if (*s == '\'')
			fputs(shell == SHELL_FISH ? "\\'" : "'\\''", stdout);
		else if (*s == '\\' && shell == SHELL_FISH)
			fputs("\\\\", stdout);
		else
			putchar(*s);
}

/* s with each of the characters special adding a backslash before it. */
static void put_escaped(const char *s, const char *special, enum shell shell)
{
	char one[2] = { 0, 0 };

	for (; *s; s++) {
		if (strchr(special, *s))
			put_quoted("\\", shell);
		one[0] = *s;
		put_quoted(one, shell);
	}
}

/* The brief with its first letter in upper case, as fish shows them. */
static void put_capitalised(const char *s)
{
	char first[2] = { (char)toupper((unsigned char)*s), 0 };

	put_quoted(first, SHELL_FISH);
	put_quoted(s + 1, SHELL_FISH);
}

static void put_columns(bool sort_keys)
{
	bool first = true;

	for (size_t i = 0; i < COL_COUNT; i++) {
		if (sort_keys && columns[i].unsortable)
			continue;
		put_word(columns[i].name, first);
		first = false;
	}
}

/* The unsortable columns, sep between them. */
static void put_unsortable(const char *sep)
{
	bool first = true;

	for (size_t i = 0; i < COL_COUNT; i++)
		if (columns[i].unsortable) {
			printf("%s%s", first ? "" : sep, columns[i].name);
			first = false;
		}
}

/* ---- bash ------------------------------------------------------------ */

static void bash_long_options(void)
{
	char word[64];

	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *o = &option_table[i];
		if (o->arg != ARG_REQUIRED) {
			snprintf(word, sizeof word, "--%s", o->long_name);
			put_word(word, i == 0);
		}
		if (o->arg != ARG_NONE) {
			snprintf(word, sizeof word, "--%s=", o->long_name);
			put_word(word, i == 0 && o->arg == ARG_REQUIRED);
		}
	}
}

static void bash_short_options(void)
{
	char word[3] = "-";
	bool first = true;

	for (size_t i = 0; i < option_count; i++)
		if (has_short(&option_table[i])) {
			word[1] = (char)option_table[i].key;
			put_word(word, first);
			first = false;
		}
}

/* The short letters of the options whose argument is arg (ARG_NONE: the
 * letters a cluster may hold before the last one); with any_value, of
 * those that take one, required or optional. */
static void put_letters(enum opt_arg arg, bool any_value)
{
	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *o = &option_table[i];
		if (has_short(o) && (any_value ? o->arg != ARG_NONE : o->arg == arg))
			putchar(o->key);
	}
}

/* "-d | --max-depth" in a case's pattern, after " | " unless first. */
static void bash_label(const struct opt_spec *o, bool first)
{
	char word[64];

	if (has_short(o)) {
		snprintf(word, sizeof word, "-%c", o->key);
		put_word_sep(word, first, " | ", " \\", "\t\t");
		first = false;
	}
	snprintf(word, sizeof word, "--%s", o->long_name);
	put_word_sep(word, first, " | ", " \\", "\t\t");
}

/* What _pagestat_value does for a value of this kind: the helpers are
 * the template's. */
static void bash_action(const struct opt_spec *o)
{
	switch (o->complete) {
	case COMPLETE_NAMES:
		fputs("\t\t_pagestat_words \"$cur\" \"$keep\" '", stdout);
		for (const struct opt_name *n = o->names; n->name; n++) {
			fputs(n == o->names ? "" : " ", stdout);
			put_quoted(n->name, SHELL_BASH);
		}
		fputs("'\n", stdout);
		break;
	case COMPLETE_COLUMNS:
		fputs("\t\t_pagestat_column_list \"$cur\" \"$keep\"\n", stdout);
		break;
	case COMPLETE_SORT_KEY:
		/* in any case, as --sort takes them */
		fputs("\t\t_pagestat_words \"${cur,,}\" \"$keep\" \"$_pagestat_sort_keys\"\n",
		      stdout);
		break;
	case COMPLETE_FILE:
		fputs("\t\t_pagestat_files \"$cur\" \"$keep\"\n", stdout);
		break;
	case COMPLETE_PID:
		fputs("\t\t_pagestat_pids \"$cur\" \"$keep\"\n", stdout);
		break;
	case COMPLETE_CGROUP:
		fputs("\t\t_pagestat_cgroups \"$cur\" \"$keep\"\n", stdout);
		break;
	case COMPLETE_NOTHING:
		fputs("\t\t# a number, a size or a pattern: nothing to offer\n"
		      "\t\tCOMPREPLY=()\n", stdout);
		break;
	}
}

/* The arms of _pagestat_value's case: one per option that takes a value,
 * but the options that offer the same (files, nothing) share one.  An
 * optional value is one only in the word of its option. */
static void bash_value_cases(void)
{
	bool done[OPTIONS_MAX] = { false };
	bool first_arm = true;

	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *o = &option_table[i];
		if (o->arg == ARG_NONE || done[i])
			continue;
		bool shared = o->arg == ARG_REQUIRED &&
			      (o->complete == COMPLETE_FILE || o->complete == COMPLETE_NOTHING);
		printf("%s\t", first_arm ? "" : "\n");
		first_arm = false;
		column = 8;
		bash_label(o, true);
		for (size_t k = i + 1; shared && k < option_count; k++) {
			const struct opt_spec *other = &option_table[k];
			if (other->arg == ARG_REQUIRED && other->complete == o->complete) {
				bash_label(other, false);
				done[k] = true;
			}
		}
		fputs(")\n", stdout);
		if (o->arg == ARG_OPTIONAL)
			fputs("\t\t$attached || return 1\n", stdout);
		bash_action(o);
		fputs("\t\t;;", stdout);
	}
}

/* ---- zsh ------------------------------------------------------------- */

/* "-x --long" of o, for an exclusion list. */
static void zsh_names(const struct opt_spec *o, bool *first)
{
	if (has_short(o))
		printf("%s-%c", *first ? "" : " ", o->key);
	printf("%s--%s", *first && !has_short(o) ? "" : " ", o->long_name);
	*first = false;
}

/* "(...)": what o excludes, itself included unless it repeats ("*" for
 * the FILE operands, "-" for every option); nothing when it excludes
 * nothing. */
static void zsh_exclusions(const struct opt_spec *o)
{
	bool first = true;

	if (ends_parse(o)) {
		fputs("(- *)", stdout);
		return;
	}
	if (o->repeats && !o->names_files && !excludes_any(o))
		return;
	putchar('(');
	if (o->names_files) {
		putchar('*');
		first = false;
	}
	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *other = &option_table[i];
		if ((other == o && !o->repeats) || exclude_each_other(o, other))
			zsh_names(other, &first);
	}
	putchar(')');
}

/* _arguments' action for the value. */
static void zsh_action(const struct opt_spec *o)
{
	switch (o->complete) {
	case COMPLETE_NOTHING:
		break;
	case COMPLETE_FILE:
		fputs(":_files", stdout);
		break;
	case COMPLETE_COLUMNS:
		fputs(":_pagestat_columns", stdout);
		break;
	case COMPLETE_SORT_KEY:
		fputs(":_pagestat_sort_keys", stdout);
		break;
	case COMPLETE_PID:
		fputs(":_pids", stdout);
		break;
	case COMPLETE_CGROUP:
		fputs(":_pagestat_cgroups", stdout);
		break;
	case COMPLETE_NAMES:
		fputs(":((", stdout);
		for (const struct opt_name *n = o->names; n->name; n++) {
			fputs(n == o->names ? "" : " ", stdout);
			put_escaped(n->name, ":\\", SHELL_ZSH);
			fputs("\\:\"", stdout);
			put_escaped(n->help, "\"\\$`", SHELL_ZSH);
			putchar('"');
		}
		fputs("))", stdout);
		break;
	}
}

/* One spec of _arguments, a line:
 *   '(-d --max-depth)'{-d+,--max-depth=}'[brief]:hint' \ */
static void zsh_spec(const struct opt_spec *o)
{
	/* "-d+" and "--max-depth=" take a value, "-e-" and "--extents=-" one
	 * only attached */
	const char *short_tail = o->arg == ARG_REQUIRED ? "+" : o->arg == ARG_OPTIONAL ? "-" : "";
	const char *long_tail = o->arg == ARG_REQUIRED ? "=" : o->arg == ARG_OPTIONAL ? "=-" : "";

	fputs("  '", stdout);
	zsh_exclusions(o);
	if (o->repeats)
		putchar('*');
	if (has_short(o))
		printf("'{-%c%s,--%s%s}'", o->key, short_tail, o->long_name, long_tail);
	else
		printf("--%s%s", o->long_name, long_tail);
	putchar('[');
	put_escaped(opt_brief(o), "[]\\", SHELL_ZSH);
	putchar(']');
	if (o->arg != ARG_NONE) {
		fputs(o->arg == ARG_OPTIONAL ? "::" : ":", stdout);
		put_escaped(value_hint(o), ":\\", SHELL_ZSH);
		zsh_action(o);
	}
	fputs("' \\", stdout);
}

static void zsh_arguments(void)
{
	for (size_t i = 0; i < option_count; i++) {
		if (i > 0)
			putchar('\n');
		zsh_spec(&option_table[i]);
	}
}

/* 'name[help]', a line each, for _values. */
static void zsh_column_specs(void)
{
	for (size_t i = 0; i < COL_COUNT; i++) {
		printf("%s    '%s[", i > 0 ? "\n" : "", columns[i].name);
		put_escaped(columns[i].help, "[]\\", SHELL_ZSH);
		fputs("]'", stdout);
	}
}

static void zsh_unsortable(void)
{
	put_unsortable("|");
}

/* ---- fish ------------------------------------------------------------ */

/* name 'help', a line each, the arguments of a printf. */
static void fish_column_table(void)
{
	for (size_t i = 0; i < COL_COUNT; i++) {
		printf("        %s '", columns[i].name);
		put_quoted(columns[i].help, SHELL_FISH);
		fputs(i + 1 < COL_COUNT ? "' \\\n" : "'", stdout);
	}
}

static void fish_unsortable(void)
{
	put_unsortable(" ");
}

/* -a's candidates for the value, or -F for files; nothing for nothing. */
static void fish_values(const struct opt_spec *o)
{
	switch (o->complete) {
	case COMPLETE_NOTHING:
		break;
	case COMPLETE_FILE:
		fputs(" -F", stdout);
		break;
	case COMPLETE_COLUMNS:
		fputs(" -a '(__fish_pagestat_columns)'", stdout);
		break;
	case COMPLETE_SORT_KEY:
		fputs(" -a '(__fish_pagestat_sort_keys)'", stdout);
		break;
	case COMPLETE_PID:
		fputs(" -a '(__fish_complete_pids)'", stdout);
		break;
	case COMPLETE_CGROUP:
		fputs(" -a '(__fish_pagestat_cgroups)'", stdout);
		break;
	case COMPLETE_NAMES:
		fputs(" -a '", stdout);
		for (const struct opt_name *n = o->names; n->name; n++) {
			fputs("\n    ", stdout);
			put_escaped(n->name, "\"\\$", SHELL_FISH);
			fputs("\\t\"", stdout); /* a backslash that escapes nothing in '' */
			put_escaped(n->help, "\"\\$", SHELL_FISH);
			putchar('"');
		}
		putchar('\'');
		break;
	}
}

/* A flag that excludes others is offered until one of them is given
 * (one with a value keeps no such condition: it would hide its values). */
static void fish_condition(const struct opt_spec *o)
{
	if (o->arg != ARG_NONE || ends_parse(o) || !excludes_any(o))
		return;
	fputs(" -n 'not __fish_pagestat_seen", stdout);
	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *other = &option_table[i];
		if (other != o && !exclude_each_other(o, other))
			continue;
		if (has_short(other))
			printf(" -s %c", other->key);
		printf(" -l %s", other->long_name);
	}
	putchar('\'');
}

static void fish_description(const char *text)
{
	fputs(" -d '", stdout);
	put_capitalised(text);
	putchar('\'');
}

/* An optional value is taken only attached (--extents=missing, -emissing):
 * the long option's values come after its '=' (without -r fish offers
 * them only there); the short one is offered alone, and its values only
 * in its own word (marked -r, so that fish does not offer "-ea": the "a"
 * would be the value). */
static void fish_optional(const struct opt_spec *o)
{
	printf("complete -c pagestat -l %s%s", o->long_name,
	       o->complete == COMPLETE_FILE ? "" : " -f");
	fish_values(o);
	fish_description(opt_brief(o));
	if (!has_short(o))
		return;
	printf("\ncomplete -c pagestat -s %c", o->key);
	fish_description(opt_brief(o));
	printf("\ncomplete -c pagestat -s %c -r%s", o->key,
	       o->complete == COMPLETE_FILE ? "" : " -f");
	fish_values(o);
	fish_description(value_hint(o));
	fputs(" -n 'string match -qr -- ", stdout);
	put_quoted("'^-[", SHELL_FISH);
	put_letters(ARG_NONE, false);
	printf("]*%c", o->key);
	put_quoted("'", SHELL_FISH);
	fputs(" (commandline -ct)'", stdout);
}

/* Each group after a blank line, under its title's first word ("Rows"
 * of "Rows:", "Actions" of "Actions (each file...):"). */
static void fish_completes(void)
{
	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *o = &option_table[i];
		const char *title = opt_groups[o->group].title;
		if (i > 0)
			putchar('\n');
		if (i == 0 || o->group != option_table[i - 1].group) {
			if (i > 0)
				putchar('\n');
			if (title)
				printf("# %.*s\n", (int)strcspn(title, " :"), title);
		}
		if (o->arg == ARG_OPTIONAL) {
			fish_optional(o);
			continue;
		}
		fputs("complete -c pagestat", stdout);
		if (has_short(o))
			printf(" -s %c", o->key);
		printf(" -l %s", o->long_name);
		if (o->arg == ARG_REQUIRED)
			fputs(o->complete == COMPLETE_FILE ? " -r" : " -x", stdout);
		fish_condition(o);
		fish_values(o);
		fish_description(opt_brief(o));
	}
}

/* ---- the templates --------------------------------------------------- */

static void bash_columns(void)
{
	put_columns(false);
}

static void bash_sort_keys(void)
{
	put_columns(true);
}

static void flag_letters(void)
{
	put_letters(ARG_NONE, false);
}

static void value_letters(void)
{
	put_letters(ARG_REQUIRED, false);
}

static void attached_letters(void)
{
	put_letters(ARG_NONE, true);
}

struct placeholder {
	enum shell shell;
	const char *name;
	void (*put)(void);
};

static const struct placeholder placeholders[] = {
	{ SHELL_BASH, "COLUMNS", bash_columns },
	{ SHELL_BASH, "SORT_KEYS", bash_sort_keys },
	{ SHELL_BASH, "LONG_OPTIONS", bash_long_options },
	{ SHELL_BASH, "SHORT_OPTIONS", bash_short_options },
	/* the short options that take no value, which a cluster may hold
	 * before the last one; those that take one (required); any value */
	{ SHELL_BASH, "FLAG_LETTERS", flag_letters },
	{ SHELL_BASH, "VALUE_LETTERS", value_letters },
	{ SHELL_BASH, "ATTACHED_LETTERS", attached_letters },
	{ SHELL_BASH, "VALUE_CASES", bash_value_cases },
	{ SHELL_ZSH, "COLUMN_SPECS", zsh_column_specs },
	{ SHELL_ZSH, "UNSORTABLE", zsh_unsortable },
	{ SHELL_ZSH, "ARGUMENTS", zsh_arguments },
	{ SHELL_FISH, "COLUMN_TABLE", fish_column_table },
	{ SHELL_FISH, "UNSORTABLE", fish_unsortable },
	{ SHELL_FISH, "FLAG_LETTERS", flag_letters },
	{ SHELL_FISH, "COMPLETES", fish_completes },
};

static const struct placeholder *placeholder_find(enum shell shell, const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof placeholders / sizeof placeholders[0]; i++)
		if (placeholders[i].shell == shell && strlen(placeholders[i].name) == len &&
		    memcmp(placeholders[i].name, name, len) == 0)
			return &placeholders[i];
	return NULL;
}

/* Standard input, whole and NUL-terminated; NULL when it cannot be read. */
static char *read_input(void)
{
	size_t cap = 16384, n = 0;
	char *text = malloc(cap);

	while (text) {
		n += fread(text + n, 1, cap - n - 1, stdin);
		if (n < cap - 1)
			break;
		char *more = realloc(text, cap * 2);
		if (!more)
			free(text);
		text = more;
		cap *= 2;
	}
	if (!text || ferror(stdin)) {
		free(text);
		return NULL;
	}
	text[n] = '\0';
	return text;
}

/* The template on standard input with each @NAME@ filled, to standard
 * output; an @ that begins no NAME@ stays.  1 on an unknown NAME. */
static int fill_template(enum shell shell)
{
	char *text = read_input();

	if (!text) {
		fputs("mkcompletions: cannot read the template on standard input\n", stderr);
		return 1;
	}
	for (const char *s = text; *s; s++) {
		size_t len = strspn(s + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
		if (*s != '@' || len == 0 || s[1 + len] != '@') {
			putchar(*s);
			continue;
		}
		const struct placeholder *p = placeholder_find(shell, s + 1, len);
		column = 0;
		for (const char *c = s; c > text && c[-1] != '\n'; c--)
			column++;
		if (!p) {
			fprintf(stderr, "mkcompletions: the template's @%.*s@ is not one of mine\n",
				(int)len, s + 1);
			free(text);
			return 1;
		}
		p->put();
		s += len + 1;
	}
	free(text);
	return 0;
}

/* ---- the man page's list --------------------------------------------- */

/* "-d, --max-depth=N", then a tab before each thing its paragraph must
 * say: "from 0 to 2147483647", or each name a value may be. */
static void list_options(void)
{
	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *o = &option_table[i];
		if (has_short(o))
			printf("-%c, ", o->key);
		printf("--%s", o->long_name);
		if (o->arg == ARG_REQUIRED)
			printf("=%s", o->metavar);
		else if (o->arg == ARG_OPTIONAL)
			printf("[=%s]", o->metavar);
		if (o->kind == OK_WHOLE || o->kind == OK_DECIMAL)
			printf("\tfrom %.15g to %.15g", o->min, o->max);
		if (o->kind == OK_NAME)
			for (const struct opt_name *n = o->names; n->name; n++)
				printf("\t%s", n->name);
		putchar('\n');
	}
}

int main(int argc, char **argv)
{
	static const char *const shells[] = { [SHELL_BASH] = "bash", [SHELL_ZSH] = "zsh",
					      [SHELL_FISH] = "fish" };
	int status = 2;

	if (option_count > OPTIONS_MAX) {
		fputs("mkcompletions: raise OPTIONS_MAX\n", stderr);
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "options") == 0) {
		list_options();
		status = 0;
	}
	for (size_t i = 0; argc == 2 && i < sizeof shells / sizeof shells[0]; i++)
		if (strcmp(argv[1], shells[i]) == 0)
			status = fill_template((enum shell)i);
	if (status == 2) {
		fputs("usage: mkcompletions bash|zsh|fish <TEMPLATE >SCRIPT\n"
		      "       mkcompletions options\n",
		      stderr);
		return 2;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("mkcompletions: standard output");
		return 1;
	}
	return status;
}
