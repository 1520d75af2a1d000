/* SPDX-License-Identifier: MIT */
/* --browse: the walk's rows as a tree on a full screen (ncursesw), one
 * directory at a time; keys sort, open, refresh, evict and warm. */
#include <config.h>

#define NCURSES_WIDECHAR 1
#include "browse.h"

#include <curses.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <wchar.h>

#include "action.h"
#include "browse_tree.h"
#include "cgroup.h"
#include "escape.h"
#include "fail.h"
#include "format.h"
#include "memstat.h"
#include "msg.h"
#include "pidfiles.h"
#include "signals.h"
#include "sink.h"
#include "status.h"
#include "system.h"
#include "userfile.h"
#include "walk.h"
#include "xalloc.h"

/* tigetstr; terminfo's names of capabilities as macros not used here */
#include <term.h>
#undef columns
#undef lines

/*
 * ncursesw and libtinfo are opened with dlopen(3) when --browse starts,
 * never linked: loading them (and the terminal database's look-ups of
 * their constructors) would slow every run on one file.  configure names
 * the libraries (NCURSESW_SONAMES: of a program linked as pkg-config says,
 * what it needs of ncurses and tinfo).  Every function and variable used
 * here is one pointer of this table, with the type <curses.h> gives it;
 * after curses_open each name is defined as the table's, so the header's
 * macros (getch(), attron(), mvaddstr()...) expand to calls through it.  Variables
 * (stdscr, LINES, COLS) are resolved as data: a pointer to each.
 */
#define CURSES_FUNCTIONS(X)                                                                 \
	X(initscr) X(endwin) X(cbreak) X(noecho) X(keypad) X(set_escdelay) X(curs_set)     \
	X(has_colors) X(start_color) X(use_default_colors) X(init_pair) X(nodelay)         \
	X(wtimeout) X(wgetch) X(ungetch) X(werase) X(wclear) X(wrefresh) X(wmove)          \
	X(wclrtoeol) X(wattr_on) X(wattr_off) X(whline) X(waddch) X(waddnstr)              \
	X(waddnwstr) X(printw) X(mvprintw) X(tigetstr)
#define CURSES_VARIABLES(X) X(stdscr) X(LINES) X(COLS)

static struct {
/* NOLINTNEXTLINE(bugprone-macro-parentheses): name is a member's name there */
#define POINTER(name) __typeof__(name) *name;
	CURSES_FUNCTIONS(POINTER)
	CURSES_VARIABLES(POINTER)
#undef POINTER
} curses;

static const char *const curses_sonames[] = { NCURSESW_SONAMES };
#define NSONAMES (sizeof curses_sonames / sizeof curses_sonames[0])

struct curses_load {
	char why[512]; /* why it could not be loaded, or "" */
};

/* A symbol of the libraries opened (each in the order configure gave). */
static void *curses_symbol(void *const *handles, const char *name)
{
	for (size_t i = 0; i < NSONAMES; i++) {
		void *p = dlsym(handles[i], name);
		if (p)
			return p;
	}
	return NULL;
}

/* The libraries opened and every name of the table resolved, with the
 * user's rights (user_call: what a user names, LD_LIBRARY_PATH aside,
 * which the loader ignores for a setcap program); 0, or -1 with why. */
static int curses_open(void *arg)
{
	struct curses_load *l = arg;
	void *handles[NSONAMES];
	for (size_t i = 0; i < NSONAMES; i++) {
		handles[i] = dlopen(curses_sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (!handles[i]) {
			const char *err = dlerror();
			snprintf(l->why, sizeof l->why, "%s", err ? err : curses_sonames[i]);
			return -1;
		}
	}
	/* NOLINTNEXTLINE(bugprone-macro-parentheses): name is a member's name */
#define RESOLVE(name)                                                                      \
	if (!((curses.name) = (__typeof__(curses.name))curses_symbol(handles, #name))) {   \
		snprintf(l->why, sizeof l->why, "%s: no %s", curses_sonames[0], #name);    \
		return -1;                                                                 \
	}
	CURSES_FUNCTIONS(RESOLVE)
	CURSES_VARIABLES(RESOLVE)
#undef RESOLVE
	return 0; /* the libraries stay to the end */
}

/* from here on, each name is the table's */
#define initscr (curses.initscr)
#define endwin (curses.endwin)
#define cbreak (curses.cbreak)
#define noecho (curses.noecho)
#define keypad (curses.keypad)
#define set_escdelay (curses.set_escdelay)
#define curs_set (curses.curs_set)
#define has_colors (curses.has_colors)
#define start_color (curses.start_color)
#define use_default_colors (curses.use_default_colors)
#define init_pair (curses.init_pair)
#define nodelay (curses.nodelay)
#define wtimeout (curses.wtimeout)
#define wgetch (curses.wgetch)
#define ungetch (curses.ungetch)
#define werase (curses.werase)
#define wclear (curses.wclear)
#define wrefresh (curses.wrefresh)
#define wmove (curses.wmove)
#define wclrtoeol (curses.wclrtoeol)
#define wattr_on (curses.wattr_on)
#define wattr_off (curses.wattr_off)
#define whline (curses.whline)
#define waddch (curses.waddch)
#define waddnstr (curses.waddnstr)
#define waddnwstr (curses.waddnwstr)
#define printw (curses.printw)
#define mvprintw (curses.mvprintw)
#define tigetstr (curses.tigetstr)
#define stdscr (*curses.stdscr)
#define LINES (*curses.LINES)
#define COLS (*curses.COLS)

/* i: seconds between two measures of the directory shown */
#define REFRESH_SECONDS 2
/* the screen while the walk goes on: redrawn this often (ms) */
#define DRAW_MS 100
#define EXTENTS_KEPT 4096

enum sort_key { SORT_CACHED, SORT_SIZE, SORT_PERCENT, SORT_DIRTY, SORT_EVICTED, SORT_NAME };

enum { PAIR_HEAD = 1, PAIR_BAR, PAIR_UP, PAIR_DOWN };

struct browser {
	const struct walk_config *cfg;
	const pid_t *pids; /* --pid: the processes whose files are listed */
	size_t npids;
	struct cgroup_set *cgroups; /* --cgroup: each a group of its files */
	bool system;                /* --system: the file systems at the top */
	struct system *sys;         /* --system's last scan: its mount table */
	struct walk_config fs_cfg;  /* --system: a directory walked again by it */
	struct system_figures figures; /* --system: the kernel's, at the scan */
	/* --system: the file systems not walked, and why (their rows' notes) */
	struct bnote {
		uint32_t node;
		const char *note;
	} *notes;
	size_t nnotes, notes_cap;
	struct btree tree;
	uint64_t page_size;
	uint32_t *list; /* the directory's children, sorted */
	size_t nlist, list_cap, sel, top;
	struct timespec next_refresh; /* i: when to measure again */
	struct strbuf path;
	/* a walk under way: what it found so far, when the screen was drawn */
	uint64_t files, bytes, cached; /* cached: pages */
	struct timespec drawn;
	uint64_t errors; /* of the last walk again: what could not be inspected */
	int64_t walk_start; /* the last walk's start, CLOCK_REALTIME ns (stamps) */
	size_t rewalked;    /* r: the directories found changed, walked again */
	/* r and i: the files measured again in place, their paths the walk's
	 * operands (rows in that order), at: the next one */
	uint32_t *re_nodes;
	char **re_paths;
	size_t re_n, re_at;
	/* the detail view's file: its parts and cached extents */
	struct segment *segments;
	size_t nsegments, segments_cap;
	struct extent *extents;
	size_t nextents, extents_cap, extents_all;
	unsigned known; /* PCS_* the method knows */
	uint32_t dir;   /* the directory shown */
	/* the selected entry's name, kept across a walk that makes its node
	 * anew (an offset in the tree's names, which stay), or UINT32_MAX */
	uint32_t keep_name;
	enum sort_key key;
	unsigned polls;
	bool utf8, color;
	bool reverse, mixed; /* mixed: directories not first */
	bool interval;       /* i: measuring again every REFRESH_SECONDS */
	bool scanning, quit, remeasuring, want_detail;
	bool warming, warm_stop; /* w under way; q or Escape asked it to stop */
	bool evicting;           /* e under way (warm_stop: asked to stop too) */
	bool tty_gone;           /* the terminal went away: the browser ends (quit) */
	/* e and w under way: the rows change no figure (measured after);
	 * those that failed counted, the first's escaped name and error kept */
	bool acting;
	uint32_t detail_node; /* the file whose detail is shown, or BNODE_NONE */
	uint64_t act_failed;
	int act_error;
	char act_name[4096];
	char status[4400];
};

/* What the terminal needs back, for a signal's death (signals_on_death):
 * the process's one terminal. */
static struct termios saved_tty;
static bool tty_saved;
static char restore_seq[256];
static size_t restore_len;

static void restore_terminal(void)
{
	if (restore_len)
		(void)!write(STDOUT_FILENO, restore_seq, restore_len);
	if (tty_saved)
		(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
}

/* A fault of the program's own (signals.c leaves them alone): the
 * terminal back, then the action there was before, the fault again. */
static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
static struct sigaction fault_before[sizeof faults / sizeof faults[0]];

static void on_fault(int sig)
{
	restore_terminal();
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
		if (faults[i] == sig)
			(void)sigaction(sig, &fault_before[i], NULL);
	/* pending until the handler returns; a fault then also comes again */
	(void)raise(sig);
}

static void catch_faults(bool on)
{
	struct sigaction sa = { .sa_handler = on_fault };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
		(void)sigaction(faults[i], on ? &sa : &fault_before[i], on ? &fault_before[i] : NULL);
}

static void keep_cap(const char *name)
{
	char *s = tigetstr(name);
	/* (char *)-1: not a string capability */
	if (!s || (uintptr_t)s == UINTPTR_MAX)
		return;
	size_t n = strlen(s);
	if (restore_len + n + 1 <= sizeof restore_seq) {
		memcpy(restore_seq + restore_len, s, n + 1);
		restore_len += n;
	}
}

static uint64_t ms_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)(now.tv_sec - t->tv_sec) * 1000 +
	       (uint64_t)((now.tv_nsec - t->tv_nsec) / 1000000);
}

static void human(char buf[FMT_BUFSIZE], uint64_t bytes)
{
	fmt_human(buf, bytes);
}

static uint64_t bytes_of(const struct browser *b, uint64_t pages)
{
	return pages * b->page_size;
}

/* Text already safe to show (escaped names, our words) as wide
 * characters, cut in the middle to width columns, into out.  A byte the
 * locale does not take (an escape cut short) ends it. */
static void fit_text(const struct browser *b, const char *text, size_t width, wchar_t *out,
		     size_t cap)
{
	wchar_t wide[4096];
	size_t n = 0, total = 0;
	mbstate_t st = { 0 };
	for (const char *p = text; *p && n < sizeof wide / sizeof wide[0] - 1;) {
		size_t k = mbrtowc(&wide[n], p, strlen(p), &st);
		if (k == 0 || k == (size_t)-1 || k == (size_t)-2)
			break;
		int w = wcwidth(wide[n]);
		total += w < 0 ? 1 : (size_t)w;
		n++;
		p += k;
	}
	wide[n] = 0;
	if (total <= width || width < 3) {
		wcsncpy(out, wide, cap - 1);
		out[cap - 1] = 0;
		return;
	}
	/* the start and the end, a mark between */
	size_t room = width - 1, left = 0, lw = 0, o = 0;
	while (left < n && o < cap - 2) {
		int w = wcwidth(wide[left]);
		size_t cw = w < 0 ? 1 : (size_t)w;
		if (lw + cw > (room + 1) / 2)
			break;
		out[o++] = wide[left++];
		lw += cw;
	}
	out[o++] = b->utf8 ? L'\u2026' : L'~';
	size_t right = n, rw = 0;
	while (right > left) {
		int w = wcwidth(wide[right - 1]);
		size_t cw = w < 0 ? 1 : (size_t)w;
		if (lw + rw + cw > room)
			break;
		right--;
		rw += cw;
	}
	while (right < n && o < cap - 1)
		out[o++] = wide[right++];
	out[o] = 0;
}

/* A name escaped as the table does (escape.c), then fitted. */
static void fit_name(const struct browser *b, const char *name, size_t len, size_t width,
		     wchar_t *out, size_t cap)
{
	char esc[4096];
	esc_terminal(esc, sizeof esc, name, len, b->utf8);
	fit_text(b, esc, width, out, cap);
}

static void put_name(const struct browser *b, int y, int x, const char *name, size_t width)
{
	wchar_t w[1024];
	fit_name(b, name, strlen(name), width, w, sizeof w / sizeof w[0]);
	mvaddwstr(y, x, w);
}

/* The cached share of pages as a bar of width cells: eighths of a block
 * in UTF-8, # in ASCII. */
static void put_bar(const struct browser *b, uint64_t part, uint64_t whole, int width)
{
	static const wchar_t *const eighths[] = { L"", L"\u258f", L"\u258e", L"\u258d",
						  L"\u258c", L"\u258b", L"\u258a", L"\u2589" };
	uint64_t units = whole ? (uint64_t)((long double)part * width * 8 / whole) : 0;
	if (part && !units)
		units = 1;
	if (b->color)
		attron(COLOR_PAIR(PAIR_BAR));
	int cells = 0;
	for (; cells < width && units >= 8; cells++, units -= 8)
		addwstr(b->utf8 ? L"\u2588" : L"#");
	/* the last part: an eighth in UTF-8; in ASCII a # when half full, or
	 * when it is all there is (a share above 0 is never drawn empty) */
	if (cells < width && units && (b->utf8 || units >= 4 || cells == 0)) {
		addwstr(b->utf8 ? eighths[units] : L"#");
		cells++;
	}
	if (b->color)
		attroff(COLOR_PAIR(PAIR_BAR));
	for (; cells < width; cells++)
		addch(b->utf8 ? ' ' : '.');
}

static const char *const key_names[] = {
	[SORT_CACHED] = "cached", [SORT_SIZE] = "size", [SORT_PERCENT] = "percent",
	[SORT_DIRTY] = "dirty", [SORT_EVICTED] = "evicted", [SORT_NAME] = "name",
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* percent of a against b, compared exactly: ca/pa against cb/pb */
static int cmp_share(const struct bnode *a, const struct bnode *b)
{
	unsigned __int128 l = (unsigned __int128)a->cached * b->pages;
	unsigned __int128 r = (unsigned __int128)b->cached * a->pages;
	return l < r ? -1 : l > r;
}

static int compare_nodes(const void *pa, const void *pb, void *ctx)
{
	const struct browser *b = ctx;
	const struct bnode *x = &b->tree.nodes[*(const uint32_t *)pa];
	const struct bnode *y = &b->tree.nodes[*(const uint32_t *)pb];
	bool xd = x->kind == BN_DIR || x->kind == BN_GROUP;
	bool yd = y->kind == BN_DIR || y->kind == BN_GROUP;
	if (!b->mixed && xd != yd)
		return xd ? -1 : 1;
	int c = 0;
	switch (b->key) {
	case SORT_CACHED: c = -cmp_u64(x->cached, y->cached); break;
	case SORT_SIZE: c = -cmp_u64(x->size, y->size); break;
	case SORT_PERCENT: c = -cmp_share(x, y); break;
	case SORT_DIRTY: c = -cmp_u64(x->dirty, y->dirty); break;
	case SORT_EVICTED: c = -cmp_u64(x->evicted, y->evicted); break;
	case SORT_NAME: break;
	}
	if (c == 0 || b->key == SORT_NAME)
		c = c ? c : strcmp(btree_name(&b->tree, *(const uint32_t *)pa),
				   btree_name(&b->tree, *(const uint32_t *)pb));
	return b->reverse ? -c : c;
}

/* The directory's children in the order asked; the same node stays
 * selected. */
static void make_list(struct browser *b)
{
	uint32_t keep = b->sel < b->nlist ? b->list[b->sel] : BNODE_NONE;
	const char *keep_name = b->keep_name != UINT32_MAX ? b->tree.names + b->keep_name : NULL;
	b->keep_name = UINT32_MAX;
	b->nlist = 0;
	for (uint32_t c = b->tree.nodes[b->dir].first; c != BNODE_NONE;
	     c = b->tree.nodes[c].next) {
		XGROW(b->list, b->list_cap, b->nlist + 1);
		b->list[b->nlist++] = c;
	}
	qsort_r(b->list, b->nlist, sizeof *b->list, compare_nodes, b);
	b->sel = 0;
	for (size_t i = 0; i < b->nlist; i++)
		if (keep_name ? strcmp(btree_name(&b->tree, b->list[i]), keep_name) == 0
			      : b->list[i] == keep)
			b->sel = i;
}

/* Before a walk that makes the listed nodes anew. */
static void remember_selection(struct browser *b)
{
	b->keep_name = b->sel < b->nlist ? b->tree.nodes[b->list[b->sel]].name : UINT32_MAX;
}

static void say(struct browser *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct browser *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->status, sizeof b->status, fmt, ap);
	va_end(ap);
}

static void figure(const struct browser *b, char buf[FMT_BUFSIZE], uint64_t pages, unsigned bit)
{
	if (!(b->known & bit))
		snprintf(buf, FMT_BUFSIZE, "-");
	else
		human(buf, bytes_of(b, pages));
}

/* "12.5%", or "-" when there is no page. */
static void percent(char buf[FMT_BUFSIZE], uint64_t cached, uint64_t pages)
{
	char p[FMT_BUFSIZE];
	if (fmt_percent(p, cached, pages))
		snprintf(buf, FMT_BUFSIZE, "%.8s%%", p); /* "100.0" at most */
	else
		snprintf(buf, FMT_BUFSIZE, "-");
}

/* Why a file system of --system was not walked, or NULL. */
static const char *note_of(const struct browser *b, uint32_t node)
{
	for (size_t i = 0; i < b->nnotes; i++)
		if (b->notes[i].node == node)
			return b->notes[i].note;
	return NULL;
}

/* A file of --system's deleted files: no path leads to it. */
static bool deleted_entry(const struct browser *b, uint32_t node)
{
	if (!b->system)
		return false;
	const struct bnode *n = &b->tree.nodes[node];
	return n->kind == BN_GROUP || (n->parent != BNODE_NONE && n->parent != 0 &&
				       b->tree.nodes[n->parent].kind == BN_GROUP);
}

/* The cgroup of --cgroup whose group node is, or NULL (--system's deleted
 * files). */
static struct cgroup_figures *cgroup_of(const struct browser *b, uint32_t node)
{
	if (!b->cgroups || b->tree.nodes[node].kind != BN_GROUP)
		return NULL;
	const char *name = btree_name(&b->tree, node);
	for (size_t i = 0; i < b->cgroups->n; i++)
		if (strcmp(b->cgroups->cgroups[i].dir, name) == 0)
			return &b->cgroups->cgroups[i];
	return NULL;
}

static void draw_scan(struct browser *b, const char *path, size_t len)
{
	char files[FMT_BUFSIZE], bytes[FMT_BUFSIZE], cached[FMT_BUFSIZE];
	erase();
	fmt_u64(files, b->files);
	human(bytes, b->bytes);
	figure(b, cached, b->cached, PCS_CACHED);
	mvprintw(0, 0, "pagestat --browse: scanning");
	mvprintw(2, 2, "files %s, %s (cached %s)", files, bytes, cached);
	if (path) {
		wchar_t w[1024];
		fit_name(b, path, len, COLS > 4 ? (size_t)COLS - 4 : 1, w, sizeof w / sizeof w[0]);
		mvaddwstr(3, 2, w);
	}
	mvprintw(LINES - 1, 0, "q quits; other keys wait for the scan");
	refresh();
}

static void draw_status(struct browser *b)
{
	move(LINES - 2, 0);
	clrtoeol();
	if (b->status[0]) {
		wchar_t w[1024];
		fit_text(b, b->status, (size_t)COLS - 1, w, sizeof w / sizeof w[0]);
		/* the status is ours: no escapes needed beyond the names' */
		mvaddwstr(LINES - 2, 0, w);
	}
}

/* name, size, cached, bar, percent, dirty, evicted: the fixed part's
 * columns after the name */
#define FIXED_COLUMNS 51
#define BAR_WIDTH 10

static void draw_line(struct browser *b, int y, uint32_t n, bool selected)
{
	const struct bnode *node = &b->tree.nodes[n];
	int namew = COLS - FIXED_COLUMNS;
	if (namew < 8)
		namew = 8;
	move(y, 0);
	clrtoeol();
	if (selected) {
		attron(A_REVERSE);
		mvhline(y, 0, ' ' | A_REVERSE, COLS);
	}
	chtype mark = node->change == BC_UP ? '+' : node->change == BC_DOWN ? '-'
						  : node->change == BC_NEW ? '*' : ' ';
	if (mark != ' ') {
		int pair = node->change == BC_DOWN ? PAIR_DOWN : PAIR_UP;
		if (b->color)
			attron(COLOR_PAIR(pair));
		attron(A_BOLD);
		mvaddch(y, 0, mark);
		attroff(A_BOLD);
		if (b->color)
			attroff(COLOR_PAIR(pair));
	}
	const char *name = btree_name(&b->tree, n);
	char shown[4096];
	size_t nlen = strlen(name);
	bool slash = node->kind == BN_DIR && !(nlen && name[nlen - 1] == '/');
	snprintf(shown, sizeof shown, "%s%s", name, slash ? "/" : "");
	put_name(b, y, 1, shown, (size_t)namew - 1);
	const char *note = note_of(b, n);
	if (node->error || note) {
		char why[512];
		snprintf(why, sizeof why, " (%s)", note ? note : fail_strerror(node->error));
		mvaddnstr(y, namew, why, COLS > namew ? COLS - namew : 0);
		attroff(A_REVERSE);
		return;
	}
	char size[FMT_BUFSIZE], cached[FMT_BUFSIZE], pct[FMT_BUFSIZE], dirty[FMT_BUFSIZE],
		evicted[FMT_BUFSIZE];
	human(size, node->size);
	figure(b, cached, node->cached, PCS_CACHED);
	percent(pct, node->cached, node->pages);
	figure(b, dirty, node->dirty, PCS_DIRTY);
	figure(b, evicted, node->evicted, PCS_EVICTED);
	mvprintw(y, namew, " %6s %6s [", size, cached);
	put_bar(b, node->cached, node->pages, BAR_WIDTH);
	printw("] %6s %6s %7s", pct, dirty, evicted);
	if (selected)
		attroff(A_REVERSE);
}

static void draw_header(struct browser *b)
{
	const struct bnode *d = &b->tree.nodes[b->dir];
	if (b->color)
		attron(COLOR_PAIR(PAIR_HEAD));
	attron(A_BOLD);
	move(0, 0);
	clrtoeol();
	btree_path(&b->tree, b->dir, &b->path);
	mvaddstr(0, 0, "pagestat --browse ");
	put_name(b, 0, 18, b->dir != 0 ? b->path.data
			   : b->system	? "(the machine: its file systems, as --system finds them)"
			   : b->cgroups ? "(the cgroups of --cgroup, each with its processes' files)"
			   : b->npids	? "(the files of the processes of --pid)"
					: "(the operands)",
		 COLS > 19 ? (size_t)COLS - 19 : 1);
	attroff(A_BOLD);
	char size[FMT_BUFSIZE], cached[FMT_BUFSIZE], pct[FMT_BUFSIZE], dirty[FMT_BUFSIZE],
		evicted[FMT_BUFSIZE];
	human(size, d->size);
	figure(b, cached, d->cached, PCS_CACHED);
	percent(pct, d->cached, d->pages);
	figure(b, dirty, d->dirty, PCS_DIRTY);
	figure(b, evicted, d->evicted, PCS_EVICTED);
	move(1, 0);
	clrtoeol();
	char line[512], more[160] = "";
	const struct cgroup_figures *cg = cgroup_of(b, b->dir);
	if (cg && cg->stat_read && memstat_known(&cg->stat, MEMSTAT_FILE)) {
		/* what the cgroup's own counter says, against what its files hold */
		char file[FMT_BUFSIZE], share[FMT_BUFSIZE];
		fmt_human(file, cg->stat.value[MEMSTAT_FILE]);
		if (fmt_percent(share, bytes_of(b, d->cached), cg->stat.value[MEMSTAT_FILE]))
			snprintf(more, sizeof more, "  cgroup's file %s (%s%% in these)", file,
				 share);
		else
			snprintf(more, sizeof more, "  cgroup's file %s", file);
	}
	snprintf(line, sizeof line, "size %s  cached %s (%s)  dirty %s  evicted %s  %zu entries%s%s",
		 size, cached, pct, dirty, evicted, b->nlist, more,
		 b->interval ? "  [i: every 2s]" : "");
	mvaddnstr(1, 0, line, COLS);
	if (b->color)
		attroff(COLOR_PAIR(PAIR_HEAD));
	int namew = COLS - FIXED_COLUMNS;
	if (namew < 8)
		namew = 8;
	move(2, 0);
	clrtoeol();
	attron(A_UNDERLINE);
	char head[64];
	snprintf(head, sizeof head, "name (by %s%s%s)", key_names[b->key],
		 b->reverse ? ", reversed" : "", b->mixed ? ", mixed" : "");
	mvprintw(2, 0, " %-*.*s", namew - 1, namew - 1, head);
	printw(" %6s %6s %-12s %6s %6s %7s", "size", "cached", " share", "pct", "dirty",
	       "evicted");
	attroff(A_UNDERLINE);
}

static void draw_footer(struct browser *b)
{
	move(LINES - 1, 0);
	clrtoeol();
	attron(A_REVERSE);
	mvaddnwstr(LINES - 1, 0,
		   b->utf8 ? L"?:help q:quit \u2191\u2193 \u2192:open \u2190:up "
			     L"cspdvn:sort t:dirs r:again i:auto e:evict w:warm"
			   : L"?:help q:quit j/k l:open h:up cspdvn:sort t:dirs "
			     L"r:again i:auto e:evict w:warm",
		   COLS);
	attroff(A_REVERSE);
}

static int list_rows(void)
{
	int rows = LINES - 5;
	return rows < 1 ? 1 : rows;
}

static void draw_listing(struct browser *b)
{
	int rows = list_rows();
	if (b->sel >= b->nlist)
		b->sel = b->nlist ? b->nlist - 1 : 0;
	if (b->sel < b->top)
		b->top = b->sel;
	if (b->sel >= b->top + (size_t)rows)
		b->top = b->sel - (size_t)rows + 1;
	erase();
	draw_header(b);
	for (int i = 0; i < rows; i++) {
		size_t at = b->top + (size_t)i;
		if (at >= b->nlist)
			break;
		draw_line(b, 3 + i, b->list[at], at == b->sel);
	}
	if (b->nlist == 0)
		mvaddstr(3, 1, "(empty)");
	draw_status(b);
	draw_footer(b);
	refresh();
}

/* Has the terminal gone away (hung up, closed, at its end)?  Asked when
 * getch gave ERR, which it also gives for no key yet (nodelay, timeout). */
static bool terminal_gone(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	int n = poll(&p, 1, 0);
	if (n < 0)
		return errno != EINTR && errno != EAGAIN && errno != ENOMEM;
	return n > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* The next key (getch), or ERR when there is none yet.  A terminal that
 * went away (its window closed, the session killed: the read gives end
 * of file or EIO, for ever) ends the browser: b->quit and b->tty_gone are
 * set, and ERR returned, never a loop on it. */
static int next_key(struct browser *b)
{
	int ch = getch();
	if (ch != ERR || b->tty_gone)
		return ch;
	bool gone = terminal_gone();
	if (!gone) {
		/* input to read, yet no key: a read of nothing (end of file)
		 * or an error, unless a key came just after the ERR */
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
			ch = getch(); /* does not wait: there is input */
			gone = ch == ERR;
		}
	}
	if (gone) {
		b->tty_gone = b->quit = true;
		b->warm_stop = true; /* a warm or an evict under way stops too */
	}
	return ch;
}

/* Polled while a walk goes on: q stops it (and pagestat); other keys
 * wait.  A resize redraws. */
static void poll_keys(struct browser *b)
{
	int kept[32], ch;
	size_t n = 0;
	while ((ch = next_key(b)) != ERR) {
		if ((b->warming || b->evicting) && (ch == 'q' || ch == 'Q' || ch == 27))
			b->warm_stop = true; /* the warm or evict stops, not pagestat */
		else if (ch == 'q' || ch == 'Q')
			b->quit = true;
		else if (ch == KEY_RESIZE)
			clear(); /* the next draw fills the new size */
		else if (n < sizeof kept / sizeof kept[0])
			kept[n++] = ch;
	}
	/* for after the walk, in the order typed */
	while (n > 0)
		ungetch(kept[--n]);
}

/* r and i: a row of the operand the walk is at, the file measured again;
 * rows below an operand (the file became a directory) are passed over. */
static void remeasured(struct browser *b, const struct row *row)
{
	while (b->re_at < b->re_n) {
		const char *op = b->re_paths[b->re_at];
		size_t n = strlen(op);
		if (row->path_len == n && memcmp(row->path, op, n) == 0) {
			struct bnode *node = &b->tree.nodes[b->re_nodes[b->re_at++]];
			node->error = (int16_t)row->error;
			if (!row->error && row->type != ROW_FILE && row->type != ROW_BLOCKDEV)
				node->error = FAIL_CHANGED;
			if (!node->error) {
				node->size = row->stat.size;
				node->pages = row->stat.pages;
				node->cached = row->stat.cached;
				node->dirty = row->stat.dirty;
				node->evicted = row->stat.evicted;
			}
			return;
		}
		if (row->path_len > n && memcmp(row->path, op, n) == 0 && row->path[n] == '/')
			return;
		b->re_at++; /* that operand gave no row */
	}
}

static void sink_browse_row(struct sink *sink, const struct row *row)
{
	struct browser *b = sink->state;
	if (b->system && row->type == ROW_CGROUP)
		return; /* --system's cgroups: figures of the kernel's, no files */
	if (b->acting) {
		/* a warm stopped by q (ECANCELED) did not fail */
		if (row->path && row->error && !(row->error == ECANCELED && b->warm_stop) &&
		    b->act_failed++ == 0) {
			b->act_error = row->error;
			esc_terminal(b->act_name, sizeof b->act_name, row->path, row->path_len,
				     b->utf8);
		}
	} else if (b->remeasuring) {
		remeasured(b, row);
	} else {
		btree_row(&b->tree, row);
		if (row->note && b->tree.nstack) {
			XGROW(b->notes, b->notes_cap, b->nnotes + 1);
			b->notes[b->nnotes++] = (struct bnote){
				.node = b->tree.stack[b->tree.nstack - 1].node, .note = row->note };
		}
	}
	if (row->type == ROW_FILE && !row->error) {
		b->files++;
		b->bytes += row->stat.size;
		b->cached += row->stat.cached;
	}
	if (b->want_detail && row_has_detail(row)) {
		b->nsegments = 0;
		XGROW(b->segments, b->segments_cap, row->nsegments + 1);
		/* (a file with no cached page has no extents: a null pointer,
		 * which memcpy may not be given, even for no byte) */
		if (row->nsegments)
			memcpy(b->segments, row->segments, row->nsegments * sizeof *row->segments);
		b->nsegments = row->nsegments;
		size_t keep = row->nextents < EXTENTS_KEPT ? row->nextents : EXTENTS_KEPT;
		XGROW(b->extents, b->extents_cap, keep + 1);
		if (keep)
			memcpy(b->extents, row->extents, keep * sizeof *row->extents);
		b->nextents = keep;
		b->extents_all = row->nextents;
	}
	/* the clock is read on every row (a vDSO call): rows may come
	 * seconds apart (a slow directory, a large file's extents) */
	if (++b->polls != 1 && ms_since(&b->drawn) < DRAW_MS)
		return;
	clock_gettime(CLOCK_MONOTONIC, &b->drawn);
	nodelay(stdscr, TRUE);
	poll_keys(b);
	nodelay(stdscr, FALSE);
	if (b->quit || (b->evicting && b->warm_stop)) {
		sink->failed = true; /* the walk stops at once */
		return;
	}
	if (b->scanning) {
		draw_scan(b, row->path, row->path_len);
	} else {
		say(b, b->warming ? "warming... (%" PRIu64 " files) q or Escape stops"
		    : b->evicting ? "evicting... (%" PRIu64 " files) q or Escape stops"
				  : "measuring... (%" PRIu64 " files)", b->files);
		draw_status(b);
		refresh();
	}
}

/* w's pace, asked before each chunk of its warm (on this thread: w's
 * walk has no workers): the keyboard polled as between rows; q or Escape
 * stops it. */
static bool warm_chunk(void *ctx, uint64_t bytes)
{
	struct browser *b = ctx;
	(void)bytes;
	if (b->warm_stop)
		return true;
	if (ms_since(&b->drawn) < DRAW_MS)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &b->drawn);
	nodelay(stdscr, TRUE);
	poll_keys(b);
	nodelay(stdscr, FALSE);
	if (!b->warm_stop) {
		say(b, "warming... (%" PRIu64 " files done) q or Escape stops", b->files);
		draw_status(b);
		refresh();
	}
	return b->warm_stop;
}

static void sink_browse_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	(void)sink;
	(void)total;
	(void)errors;
}

static void sink_browse_section(struct sink *sink, const char *top)
{
	struct browser *b = sink->state;
	if (!b->remeasuring)
		btree_section(&b->tree, top);
}

static const struct sink_ops browse_ops = { .row = sink_browse_row, .end = sink_browse_end,
					    .section = sink_browse_section };

/* The browser's sink for a walk about to start, its counters at 0. */
static struct sink walk_sink(struct browser *b)
{
	b->files = b->bytes = b->cached = 0;
	b->polls = 0;
	return (struct sink){ .ops = &browse_ops,
			      .cfg = { .out = stdout, .page_size = b->page_size },
			      .state = b };
}

/* base with req's measure or action: a warm on one thread, its chunks
 * read here between polls of the keyboard. */
static struct walk_config walk_cfg(const struct walk_config *base, const struct file_request *req)
{
	struct walk_config cfg = *base;
	cfg.req = req;
	if (req->action == ACTION_WARM)
		cfg.jobs = 1;
	return cfg;
}

static int64_t realtime_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int64_t ns_of(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* A directory's stamp as r compares it, stat'ed by its path with the
 * user's own rights (no capability, no open: userfile.c); false when it
 * cannot be. */
static bool stat_stamp(struct browser *b, uint32_t node, struct bstamp *s)
{
	struct stat st;
	btree_path(&b->tree, node, &b->path);
	if (user_fstatat(AT_FDCWD, b->path.data, &st, 0) != 0 || !S_ISDIR(st.st_mode))
		return false;
	*s = (struct bstamp){ .dev = st.st_dev, .ino = st.st_ino, .mtime = ns_of(&st.st_mtim),
			      .ctime = ns_of(&st.st_ctim) };
	return true;
}

/* The stamps of node's directories, after a walk that read them: stat'ed
 * after the walk, so a stamp changed since the walk began (or within the
 * time stamps' granularity of it: 100 ms, or 2 s where they have no
 * nanoseconds) is kept unknown, and the next r walks that directory
 * again, since the walk may have read it before or after the change. */
static void stamp_dirs(struct browser *b, uint32_t node)
{
	const struct bnode *n = &b->tree.nodes[node];
	if (n->kind == BN_DIR) {
		struct bstamp s = { 0 };
		if (stat_stamp(b, node, &s)) {
			bool coarse = s.mtime % 1000000000 == 0 && s.ctime % 1000000000 == 0;
			int64_t since = b->walk_start - (coarse ? 2000000000 : 100000000);
			if (s.mtime >= since || s.ctime >= since)
				s = (struct bstamp){ 0 };
		}
		btree_set_stamp(&b->tree, node, &s);
	} else if (n->kind != BN_ROOT) {
		return;
	}
	for (uint32_t c = b->tree.nodes[node].first; c != BNODE_NONE; c = b->tree.nodes[c].next)
		stamp_dirs(b, c);
}

/* Has directory node's listing changed since its walk (or is it not
 * known)? */
static bool dir_changed(struct browser *b, uint32_t node)
{
	const struct bstamp *was = btree_stamp(&b->tree, node);
	struct bstamp now;
	if (!was || (was->dev == 0 && was->ino == 0) || !stat_stamp(b, node, &now))
		return true;
	return now.dev != was->dev || now.ino != was->ino || now.mtime != was->mtime ||
	       now.ctime != was->ctime;
}

/* The highest directories at or below node whose listing changed, in
 * *dirs (r walks them again). */
static void find_changed(struct browser *b, uint32_t node, uint32_t **dirs, size_t *n,
			 size_t *cap)
{
	const struct bnode *x = &b->tree.nodes[node];
	if (x->kind == BN_DIR && !x->error && dir_changed(b, node)) {
		XGROW(*dirs, *cap, *n + 1);
		(*dirs)[(*n)++] = node;
		return;
	}
	if (x->kind != BN_DIR && x->kind != BN_ROOT)
		return;
	for (uint32_t c = b->tree.nodes[node].first; c != BNODE_NONE; c = b->tree.nodes[c].next)
		find_changed(b, c, dirs, n, cap);
}

static int cmp_node(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The files at or below node, but not below a directory of skip (sorted). */
static void files_but(const struct btree *t, uint32_t node, const uint32_t *skip, size_t nskip,
		      uint32_t **files, size_t *n, size_t *cap)
{
	const struct bnode *x = &t->nodes[node];
	if (nskip && bsearch(&node, skip, nskip, sizeof *skip, cmp_node))
		return;
	if (x->kind == BN_FILE) {
		XGROW(*files, *cap, *n + 1);
		(*files)[(*n)++] = node;
		return;
	}
	for (uint32_t c = x->first; c != BNODE_NONE; c = t->nodes[c].next)
		files_but(t, c, skip, nskip, files, n, cap);
}

static bool regather(struct browser *b, uint32_t node);
static void measure_files(struct browser *b, uint32_t dir, const uint32_t *skip, size_t nskip,
			  const struct file_request *req);

/* A group's files measured (or acted on) where they are, by their paths;
 * the sums made again. */
static bool group_again(struct browser *b, uint32_t node, const struct file_request *req)
{
	struct bnode before = b->tree.nodes[node];
	measure_files(b, node, NULL, 0, req);
	if (b->quit)
		return false;
	btree_sum(&b->tree, node);
	btree_fix_above(&b->tree, node, &before);
	return true;
}

/* node's path walked by req, its rows into the browser's sink (under
 * --system with the settings its file systems are walked with); into_tree:
 * the rows become nodes (btree_begin: the caller ends them, or throws them
 * away).  Returns the path walked, the caller's to free. */
static char *walk_path(struct browser *b, uint32_t node, const struct file_request *req,
		       bool into_tree, struct walk_result *result)
{
	btree_path(&b->tree, node, &b->path);
	char *path = xstrdup(b->path.data);
	char *operands[2] = { path, NULL };
	struct walk_config cfg = walk_cfg(b->system ? &b->fs_cfg : b->cfg, req);
	struct sink sink = walk_sink(b);

	if (into_tree) {
		clock_gettime(CLOCK_MONOTONIC, &b->drawn);
		btree_begin(&b->tree, operands);
		b->walk_start = realtime_ns();
	}
	walk_run(&cfg, operands, &sink, result);
	return path;
}

/* Walks node's path again by req (a measure, an action), its rows in
 * place of node's; false when q stopped it or the node is gone (said).
 * A group (a cgroup, --system's deleted files) is gathered again, or its
 * files acted on by their paths. */
static bool walk_again(struct browser *b, uint32_t node, const struct file_request *req)
{
	if (b->tree.nodes[node].kind == BN_GROUP)
		return req->action == ACTION_NONE ? regather(b, node) : group_again(b, node, req);
	struct walk_result result = { 0 };
	char *path = walk_path(b, node, req, true, &result);
	b->errors = result.errors;
	bool ok = false;
	if (b->quit) {
		btree_abandon(&b->tree);
	} else if (b->evicting && b->warm_stop) {
		btree_abandon(&b->tree); /* a part of the walk: measured again after */
		ok = true;
	} else if (!btree_end_replace(&b->tree, node, true)) {
		b->tree.nodes[node].error = ENOENT;
		char name[4096];
		esc_terminal(name, sizeof name, path, strlen(path), b->utf8);
		say(b, "%s: no longer there", name);
	} else {
		ok = true;
		b->status[0] = 0;
		stamp_dirs(b, node);
	}
	free(path);
	return ok;
}

/* The files at or below dir (but not below a node of skip, sorted)
 * measured again, or acted on by req, where they are: each path an
 * operand of one walk, which opens it as it opens any file.  The sums
 * above them are left to the caller. */
static void measure_files(struct browser *b, uint32_t dir, const uint32_t *skip, size_t nskip,
			  const struct file_request *req)
{
	size_t cap = 0;
	b->re_n = b->re_at = 0;
	files_but(&b->tree, dir, skip, nskip, &b->re_nodes, &b->re_n, &cap);
	b->re_paths = xcalloc(b->re_n + 1, sizeof *b->re_paths);
	for (size_t i = 0; i < b->re_n; i++) {
		btree_path(&b->tree, b->re_nodes[i], &b->path);
		b->re_paths[i] = xstrdup(b->path.data);
	}
	struct walk_config cfg = walk_cfg(b->cfg, req);
	struct sink sink = walk_sink(b);
	struct walk_result result = { 0 };
	b->remeasuring = true;
	if (b->re_n)
		walk_run(&cfg, b->re_paths, &sink, &result);
	b->remeasuring = false;
	b->errors = result.errors;
	for (size_t i = 0; i < b->re_n; i++)
		free(b->re_paths[i]);
	free(b->re_paths);
	b->re_paths = NULL;
	free(b->re_nodes);
	b->re_nodes = NULL;
	b->re_n = 0;
}

/* r and i: each directory below dir (dir too) stat'ed, and one whose
 * stamp changed (entries made, removed, renamed) walked again in its place
 * as R does (new lines marked *); every other file measured again where it
 * is (no directory read), the sums made again, each child marked with its
 * change.  A group (a cgroup, --system's deleted files) is gathered again
 * whole: its processes' files are found anew. */
static void remeasure(struct browser *b, uint32_t dir)
{
	uint64_t errors = 0;
	if (b->tree.nodes[dir].kind == BN_GROUP) {
		regather(b, dir);
		return;
	}
	/* the children's figures before, to mark them (their nodes stay
	 * unless dir itself is walked again) */
	uint64_t *old = xcalloc(btree_count_children(&b->tree, dir) + 1, sizeof *old);
	size_t k = 0;
	for (uint32_t c = b->tree.nodes[dir].first; c != BNODE_NONE; c = b->tree.nodes[c].next)
		old[k++] = b->tree.nodes[c].cached;

	uint32_t *changed = NULL;
	size_t nchanged = 0, changed_cap = 0;
	if (!b->npids)
		find_changed(b, dir, &changed, &nchanged, &changed_cap);
	b->rewalked = nchanged;
	for (size_t i = 0; i < nchanged && !b->quit; i++) {
		walk_again(b, changed[i], b->cfg->req);
		errors += b->errors;
	}
	if (b->quit || (nchanged == 1 && changed[0] == dir)) {
		/* dir walked whole: its children are new nodes, marked */
		b->errors = errors;
		free(changed);
		free(old);
		return;
	}
	/* the groups at the top gathered again, and not measured by path */
	for (uint32_t c = b->tree.nodes[dir].first; c != BNODE_NONE && !b->quit;
	     c = b->tree.nodes[c].next)
		if (b->tree.nodes[c].kind == BN_GROUP) {
			regather(b, c);
			errors += b->errors;
			XGROW(changed, changed_cap, nchanged + 1);
			changed[nchanged++] = c;
		}
	if (nchanged) /* (qsort of no array: a null pointer) */
		qsort(changed, nchanged, sizeof *changed, cmp_node);
	/* after the walks again, which set the directories above right */
	struct bnode before = b->tree.nodes[dir];
	measure_files(b, dir, changed, nchanged, b->cfg->req);
	free(changed);
	b->errors += errors;

	btree_sum(&b->tree, dir);
	btree_fix_above(&b->tree, dir, &before);
	k = 0;
	for (uint32_t c = before.first; c != BNODE_NONE; c = b->tree.nodes[c].next, k++) {
		uint64_t was = old[k], now = b->tree.nodes[c].cached;
		b->tree.nodes[c].change = now > was ? BC_UP : now < was ? BC_DOWN : BC_SAME;
	}
	free(old);
	b->status[0] = 0;
}

static void refresh_dir(struct browser *b)
{
	remember_selection(b);
	remeasure(b, b->dir);
	if (!b->quit && !b->status[0]) {
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		char when[16];
		(void)strftime(when, sizeof when, "%H:%M:%S", &tm);
		char walked[96] = "";
		if (b->rewalked)
			snprintf(walked, sizeof walked, "; %zu dir%s walked again: * new",
				 b->rewalked, b->rewalked == 1 ? "" : "s");
		if (b->errors)
			say(b, "measured at %s: %" PRIu64 " could not be measured%s", when,
			    b->errors, walked);
		else
			say(b, "measured at %s: + more cached, - less%s", when, walked);
	}
	make_list(b);
}

/* The first walk, or --pid's, --system's or --cgroup's again: its rows
 * under the root. */
static void scan(struct browser *b, char *const *operands, struct walk_result *result)
{
	struct sink sink = walk_sink(b);
	btree_begin(&b->tree, b->npids || b->system || b->cgroups ? NULL : operands);
	b->walk_start = realtime_ns();
	if (b->system) {
		struct walk_config cfg = *b->cfg;
		b->nnotes = 0;
		cfg.every_dir = true;
		cfg.max_depth = 0; /* the cgroups' rows: passed over */
		system_free(b->sys);
		b->sys = system_run(&cfg, &sink, result, &b->figures);
		b->fs_cfg = *b->cfg;
		system_walk_config(b->sys, &b->fs_cfg);
	} else if (b->cgroups) {
		cgroup_run(b->cfg, b->cgroups, &sink, result);
	} else if (b->npids) {
		pid_run(b->cfg, b->pids, b->npids, &sink, result);
	} else {
		walk_run(b->cfg, operands, &sink, result);
	}
}

/* A group's files found again (a cgroup's processes' files; the files
 * deleted but held open), in place of what it held, each marked. */
static bool regather(struct browser *b, uint32_t node)
{
	struct sink sink = walk_sink(b);
	struct walk_result result = { 0 };
	struct cgroup_figures *cg = cgroup_of(b, node);
	btree_begin(&b->tree, NULL);
	b->walk_start = realtime_ns();
	if (cg) {
		struct cgroup_set one = { .cgroups = cg, .n = 1 };
		cgroup_run(b->cfg, &one, &sink, &result);
	} else {
		struct pid_unseen unseen = { 0 };
		pid_run_deleted(b->cfg, &sink, &result, &unseen);
		struct row sum = { .path = system_deleted_row, .path_len = strlen(system_deleted_row),
				   .type = ROW_FILESYSTEM, .stat = result.total.stat,
				   .files = result.total.files };
		if (!b->quit)
			btree_row(&b->tree, &sum);
	}
	b->errors = result.errors;
	if (b->quit) {
		btree_abandon(&b->tree);
		return false;
	}
	if (!btree_end_replace(&b->tree, node, true)) {
		btree_abandon(&b->tree);
		return false;
	}
	b->status[0] = 0;
	return true;
}

/* R: the directory walked again, files made or removed since seen too;
 * at the top of --pid, --system or --cgroup, all found again. */
static void rewalk_dir(struct browser *b)
{
	remember_selection(b);
	if (b->dir == 0 && (b->npids || b->system || b->cgroups)) {
		struct walk_result result = { 0 };
		scan(b, NULL, &result);
		if (b->quit) {
			btree_abandon(&b->tree);
		} else {
			struct row total = { .type = ROW_TOTAL, .stat = result.total.stat };
			btree_end_rescan(&b->tree, &total);
			if (b->system)
				stamp_dirs(b, 0);
			b->status[0] = 0;
		}
	} else if (b->dir == 0) {
		for (uint32_t c = b->tree.nodes[0].first; c != BNODE_NONE && !b->quit;
		     c = b->tree.nodes[c].next)
			walk_again(b, c, b->cfg->req);
	} else {
		walk_again(b, b->dir, b->cfg->req);
	}
	if (!b->quit && !b->status[0])
		say(b, "walked again: + more cached, - less, * new");
	make_list(b);
}

static void draw_detail(struct browser *b, uint32_t node);

/* The listing, or the detail shown. */
static void draw_shown(struct browser *b)
{
	if (b->detail_node != BNODE_NONE)
		draw_detail(b, b->detail_node);
	else
		draw_listing(b);
}

static bool ask(struct browser *b, const char *question)
{
	say(b, "%s [y/n]", question);
	draw_shown(b);
	for (;;) {
		int ch = next_key(b);
		if (b->quit)
			return false;
		if (ch == 'y' || ch == 'Y')
			return true;
		if (ch == KEY_RESIZE) {
			draw_shown(b);
			continue;
		}
		if (ch != ERR)
			break;
	}
	say(b, "nothing done");
	return false;
}

/* e and w: req's action on node's files (its path walked, or a group's
 * files by their paths), the tree left as it is: the caller measures
 * after what the files hold, so that one the action could not open (the
 * user may not) keeps its figures.  The rows that failed are counted. */
static void act_walk(struct browser *b, uint32_t node, const struct file_request *req)
{
	b->acting = true;
	b->act_failed = 0;
	b->act_error = 0;
	b->act_name[0] = 0;
	clock_gettime(CLOCK_MONOTONIC, &b->drawn);
	if (b->tree.nodes[node].kind == BN_GROUP) {
		measure_files(b, node, NULL, 0, req);
	} else {
		struct walk_result result = { 0 };
		free(walk_path(b, node, req, false, &result));
	}
	b->acting = false;
}

static bool measure_detail(struct browser *b, uint32_t node, const struct file_request *base);

/* e and w: the selected entry, after a question that says how much; in a
 * file's detail (in_detail), measured after as the detail is. */
static void act(struct browser *b, uint32_t node, enum action action, bool in_detail)
{
	const struct bnode *n = &b->tree.nodes[node];
	btree_path(&b->tree, node, &b->path);
	char what[FMT_BUFSIZE], question[4200], name[4096];
	esc_terminal(name, sizeof name, b->path.data, b->path.len, b->utf8);
	const char *verb0 = action == ACTION_EVICT ? "evict" : "warm";
	const char *note = note_of(b, node);
	if (note) {
		say(b, "%s: %s: nothing to %s", name, note, verb0);
		return;
	}
	if (deleted_entry(b, node)) {
		say(b, "a deleted file has no path to open as you: nothing to %s (pagestat "
		    "--evict acts on files by their names)", verb0);
		return;
	}
	uint64_t before = n->cached, dirty_before = n->dirty;
	if (action == ACTION_EVICT) {
		human(what, bytes_of(b, n->cached));
		snprintf(question, sizeof question, "evict the %s cached of %s?", what, name);
	} else {
		uint64_t missing = bytes_of(b, n->pages - n->cached), available;
		human(what, missing);
		if (meminfo_bytes("MemAvailable", &available) && missing > available) {
			char have[FMT_BUFSIZE];
			human(have, available);
			say(b, "warm: %s to read, more than the %s of memory available: nothing "
			    "read", what, have);
			return;
		}
		snprintf(question, sizeof question, "read the %s missing of %s into the cache?",
			 what, name);
	}
	if (!ask(b, question))
		return;
	struct file_request req = *b->cfg->req;
	req.action = action;
	remember_selection(b);
	b->warm_stop = false;
	if (action == ACTION_WARM) {
		b->warming = true;
		req.pace = (struct pace){ .fn = warm_chunk, .ctx = b };
	} else {
		b->evicting = true; /* stopped between two files */
	}
	act_walk(b, node, &req);
	b->warming = b->evicting = false;
	bool stopped = b->warm_stop;
	b->warm_stop = false;
	if (b->quit)
		return;
	/* what the files hold now, measured as r does: a file the action
	 * could not open is as it was, and keeps its figures and its line */
	if (!(in_detail ? measure_detail(b, node, b->cfg->req)
			: walk_again(b, node, b->cfg->req)))
		return; /* gone (said), or q */
	const char *verb = action == ACTION_EVICT ? "evict" : "warm";
	char was[FMT_BUFSIZE], now[FMT_BUFSIZE], failed[4400] = "";
	human(was, bytes_of(b, before));
	human(now, bytes_of(b, b->tree.nodes[node].cached));
	int err = b->tree.nodes[node].error;
	if (b->act_failed)
		snprintf(failed, sizeof failed, "; %" PRIu64 " could not be %sed: %s: %s%s",
			 b->act_failed, verb, b->act_name, fail_strerror(b->act_error),
			 b->act_failed > 1 ? ", and others" : "");
	if (b->act_failed && b->tree.nodes[node].kind == BN_FILE)
		say(b, "cannot %s %s: %s", verb, name, fail_strerror(b->act_error));
	else if (err)
		say(b, "%s of %s done, but it cannot be measured after: %s", verb, name,
		    fail_strerror(err));
	else if (stopped)
		say(b, "%s of %s stopped (q or Escape): cached %s before, %s now%s", verb, name,
		    was, now, failed);
	else if (b->act_failed)
		say(b, "%sed %s: cached %s before, %s now%s", verb, name, was, now, failed);
	else if (action == ACTION_EVICT && dirty_before && b->tree.nodes[node].cached)
		say(b, "evicted %s: cached %s before, %s now: the kernel drops clean pages only, "
		    "and dirty ones were being written back (e again once written, or run sync)",
		    name, was, now);
	else
		say(b, "%sed %s: cached %s before, %s now", verb, name, was, now);
	make_list(b);
}

static void draw_help(struct browser *b)
{
	static const char *const lines[] = {
		"pagestat --browse: keys",
		"",
		"  up, down, k, j     move; PgUp, PgDn, Home, End",
		"  Enter, l, right    open the directory, or a file's detail",
		"  Backspace, h, left go up (out of the detail)",
		"  c s p d v n        sort by cached, size, percent, dirty, evicted, name;",
		"                     the same key again reverses",
		"  t                  directories first, or mixed with the files",
		"  r                  measure the directory's files again; walk again a",
		"                     directory whose listing changed (* new)",
		"  R                  walk the directory again (new files too)",
		"  i                  measure it every 2 seconds (again: stop);",
		"                     + more cached, - less since the measure before",
		"                     (and * new, after R)",
		"  e                  evict the selected file or directory (asks first);",
		"                     q or Escape stops the evict",
		"  w                  warm the selected file or directory (asks first);",
		"                     q or Escape stops the warm",
		"  ?                  this help; Ctrl-L draws the screen again",
		"  q                  quit",
		"",
		"any key goes back",
	};
	erase();
	for (size_t i = 0; i < sizeof lines / sizeof lines[0] && (int)i < LINES; i++)
		mvaddnstr((int)i, 0, lines[i], COLS);
	refresh();
	while (next_key(b) == KEY_RESIZE)
		draw_help(b);
}

/* The detail of a file: measured again with COLS parts and its cached
 * extents. */
static void draw_detail(struct browser *b, uint32_t node)
{
	const struct bnode *n = &b->tree.nodes[node];
	erase();
	btree_path(&b->tree, node, &b->path);
	attron(A_BOLD);
	mvaddstr(0, 0, "pagestat --browse ");
	put_name(b, 0, 18, b->path.data, COLS > 19 ? (size_t)COLS - 19 : 1);
	attroff(A_BOLD);
	if (n->error) {
		mvprintw(2, 0, "cannot inspect: %s", fail_strerror(n->error));
	} else {
		char size[FMT_BUFSIZE], cached[FMT_BUFSIZE], pct[FMT_BUFSIZE],
			dirty[FMT_BUFSIZE], evicted[FMT_BUFSIZE], pages[FMT_BUFSIZE];
		human(size, n->size);
		fmt_u64(pages, n->pages);
		figure(b, cached, n->cached, PCS_CACHED);
		percent(pct, n->cached, n->pages);
		figure(b, dirty, n->dirty, PCS_DIRTY);
		figure(b, evicted, n->evicted, PCS_EVICTED);
		mvprintw(2, 0, "size %s (%" PRIu64 " bytes, %s pages)", size, n->size, pages);
		mvprintw(3, 0, "cached %s (%s)  dirty %s  evicted %s", cached, pct, dirty,
			 evicted);
		mvprintw(5, 0, "segment map (%zu parts across %d columns):", b->nsegments, COLS);
		move(6, 0);
		for (size_t x = 0; b->nsegments && x < (size_t)COLS; x++) {
			const struct segment *s = &b->segments[x * b->nsegments / (size_t)COLS];
			bool full = s->pages && s->cached == s->pages;
			bool none = s->cached == 0;
			const wchar_t *c = b->utf8 ? (none ? L"\u00b7" : full ? L"\u2588"
						      : s->cached * 2 >= s->pages ? L"\u2593"
										 : L"\u2591")
						 : (none ? L"." : full ? L"#" : L"+");
			if (!none && b->color)
				attron(COLOR_PAIR(PAIR_BAR));
			addwstr(c);
			if (!none && b->color)
				attroff(COLOR_PAIR(PAIR_BAR));
		}
		mvprintw(8, 0, "cached extents: %zu", b->extents_all);
		int y = 9;
		for (size_t i = 0; i < b->nextents && y < LINES - 2; i++, y++) {
			char len[FMT_BUFSIZE];
			human(len, b->extents[i].length);
			if (y == LINES - 3 && i + 1 < b->extents_all) {
				mvprintw(y, 2, "... and %zu more", b->extents_all - i);
				break;
			}
			mvprintw(y, 2, "offset %12" PRIu64 "  length %12" PRIu64 " (%s)",
				 b->extents[i].offset, b->extents[i].length, len);
		}
	}
	draw_status(b);
	move(LINES - 1, 0);
	attron(A_REVERSE);
	mvaddnstr(LINES - 1, 0, "h/left/Backspace:back r:refresh e:evict w:warm q:quit", COLS);
	attroff(A_REVERSE);
	refresh();
}

static bool measure_detail(struct browser *b, uint32_t node, const struct file_request *base)
{
	struct file_request req = *base;
	/* a part a column, but no part smaller than a page: each column
	 * then shows the part it falls in */
	uint64_t parts = COLS > 1 ? (uint64_t)COLS : 1;
	if (parts > b->tree.nodes[node].pages)
		parts = b->tree.nodes[node].pages ? b->tree.nodes[node].pages : 1;
	req.measure.segments = parts > 4096 ? 4096 : (unsigned)parts;
	req.measure.extents = EXTENTS_CACHED;
	b->want_detail = true;
	b->nsegments = b->nextents = b->extents_all = 0;
	bool ok = walk_again(b, node, &req);
	b->want_detail = false;
	return ok;
}

/* The detail view until the user leaves it; false: q. */
static bool detail(struct browser *b, uint32_t node)
{
	b->status[0] = 0;
	measure_detail(b, node, b->cfg->req);
	b->detail_node = node;
	for (;;) {
		if (b->quit) {
			b->detail_node = BNODE_NONE;
			return false;
		}
		draw_detail(b, node);
		int ch = next_key(b);
		switch (ch) {
		case 'q':
		case 'Q':
			b->detail_node = BNODE_NONE;
			return false;
		case 'h':
		case KEY_LEFT:
		case KEY_BACKSPACE:
		case 127:
		case 8:
		case 27:
			b->detail_node = BNODE_NONE;
			return true;
		case 'r':
			measure_detail(b, node, b->cfg->req);
			break;
		case 'e':
		case 'w':
			act(b, node, ch == 'e' ? ACTION_EVICT : ACTION_WARM, true);
			break;
		default:
			break;
		}
	}
}

static void set_key(struct browser *b, enum sort_key key)
{
	if (b->key == key)
		b->reverse = !b->reverse;
	else
		b->key = key, b->reverse = false;
	make_list(b);
}

static void go_up(struct browser *b)
{
	uint32_t parent = b->tree.nodes[b->dir].parent;
	if (b->dir == 0 || parent == BNODE_NONE)
		return;
	if (parent == 0 && btree_count_children(&b->tree, 0) == 1)
		return; /* one operand: its directory is the top */
	uint32_t from = b->dir;
	b->dir = parent;
	b->sel = 0;
	b->nlist = 0;
	make_list(b);
	for (size_t i = 0; i < b->nlist; i++)
		if (b->list[i] == from)
			b->sel = i;
}

/* The keys, until q. */
static void browse_loop(struct browser *b)
{
	for (;;) {
		if (b->quit)
			return;
		draw_listing(b);
		timeout(b->interval ? 200 : -1);
		int ch = next_key(b);
		timeout(-1);
		if (b->quit)
			return;
		if (b->interval) {
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec >= b->next_refresh.tv_sec) {
				refresh_dir(b);
				b->next_refresh.tv_sec = now.tv_sec + REFRESH_SECONDS;
			}
		}
		uint32_t sel = b->sel < b->nlist ? b->list[b->sel] : BNODE_NONE;
		switch (ch) {
		case 'q':
		case 'Q':
			return;
		case KEY_UP:
		case 'k':
			if (b->sel > 0)
				b->sel--;
			break;
		case KEY_DOWN:
		case 'j':
			if (b->sel + 1 < b->nlist)
				b->sel++;
			break;
		case KEY_PPAGE:
			b->sel = b->sel > (size_t)list_rows() ? b->sel - (size_t)list_rows() : 0;
			break;
		case KEY_NPAGE:
			b->sel += (size_t)list_rows();
			break;
		case KEY_HOME:
		case 'g':
			b->sel = 0;
			break;
		case KEY_END:
		case 'G':
			b->sel = b->nlist ? b->nlist - 1 : 0;
			break;
		case '\n':
		case '\r':
		case KEY_ENTER:
		case KEY_RIGHT:
		case 'l':
			if (sel == BNODE_NONE)
				break;
			if (b->tree.nodes[sel].kind == BN_DIR ||
			    b->tree.nodes[sel].kind == BN_GROUP) {
				b->dir = sel;
				b->sel = b->top = 0;
				b->nlist = 0;
				b->status[0] = 0;
				make_list(b);
			} else if (b->tree.nodes[sel].kind == BN_FILE) {
				if (!detail(b, sel))
					return;
				make_list(b);
			}
			break;
		case KEY_LEFT:
		case KEY_BACKSPACE:
		case 127:
		case 8:
		case 'h':
			b->status[0] = 0;
			go_up(b);
			break;
		case 'c': set_key(b, SORT_CACHED); break;
		case 's': set_key(b, SORT_SIZE); break;
		case 'p': set_key(b, SORT_PERCENT); break;
		case 'd': set_key(b, SORT_DIRTY); break;
		case 'v': set_key(b, SORT_EVICTED); break;
		case 'n': set_key(b, SORT_NAME); break;
		case 't':
			b->mixed = !b->mixed;
			make_list(b);
			break;
		case 'r':
			refresh_dir(b);
			break;
		case 'R':
			rewalk_dir(b);
			break;
		case 'i':
			b->interval = !b->interval;
			clock_gettime(CLOCK_MONOTONIC, &b->next_refresh);
			say(b, b->interval ? "i: measuring every %d seconds" : "i: stopped",
			    REFRESH_SECONDS);
			break;
		case 'e':
		case 'w':
			if (sel != BNODE_NONE && !b->tree.nodes[sel].error)
				act(b, sel, ch == 'e' ? ACTION_EVICT : ACTION_WARM, false);
			break;
		case '?':
			draw_help(b);
			break;
		case 'L' & 0x1f: /* Ctrl-L, as in less and top */
			clear();
			break;
		default:
			break;
		}
	}
}

static int start_curses(void *arg)
{
	(void)arg;
	initscr(); /* which ends pagestat, said, where the terminal is unknown */
	return 0;
}

static void start_screen(struct browser *b)
{
	if (tcgetattr(STDIN_FILENO, &saved_tty) == 0)
		tty_saved = true;
	/* a signal that ends pagestat ends it with the terminal given back */
	signals_catch(false);
	/* the terminal's description read with the user's rights (TERMINFO
	 * and ~/.terminfo name files of the user's choosing) */
	(void)user_call(start_curses, NULL);
	keep_cap("sgr0");
	keep_cap("cnorm");
	keep_cap("rmcup");
	signals_on_death(restore_terminal);
	catch_faults(true);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(100); /* Escape alone (out of the detail, a warm's stop) */
	curs_set(0);
	const char *no_color = getenv("NO_COLOR");
	b->color = has_colors() && !(no_color && no_color[0]);
	if (b->color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HEAD, COLOR_CYAN, -1);
		init_pair(PAIR_BAR, COLOR_GREEN, -1);
		init_pair(PAIR_UP, COLOR_GREEN, -1);
		init_pair(PAIR_DOWN, COLOR_RED, -1);
	}
}

static void end_screen(void)
{
	curs_set(1);
	endwin();
	signals_on_death(NULL);
	catch_faults(false);
}

int browse_run(const struct walk_config *cfg, const struct browse_source *src)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		msg("--browse needs a terminal: standard %s is not one\n",
		    isatty(STDOUT_FILENO) ? "input" : "output");
		return STATUS_USAGE;
	}
	struct curses_load load = { .why = "" };
	if (user_call(curses_open, &load) != 0) {
		/* as --system without libmount: said, nothing walked, status 1 */
		msg("--browse: cannot load the terminal library: %s\n",
		    load.why[0] ? load.why : strerror(errno));
		return STATUS_SOME_FAILED;
	}
	struct walk_config all = *cfg;
	all.all = true;      /* a node for every file */
	all.max_depth = LONG_MAX; /* a node for every directory too */
	all.quiet = true;    /* failures are the tree's, on the screen */
	struct browser b = {
		.cfg = &all,
		.pids = src->pids,
		.npids = src->npids,
		.system = src->system,
		.cgroups = src->cgroups,
		.page_size = inspect_page_size(cfg->ins),
		.known = inspect_known(cfg->ins),
		.utf8 = esc_locale_is_utf8(),
		.scanning = true,
		.keep_name = UINT32_MAX,
		.detail_node = BNODE_NONE,
	};
	btree_init(&b.tree);
	start_screen(&b);
	clock_gettime(CLOCK_MONOTONIC, &b.drawn);
	draw_scan(&b, NULL, 0);

	struct walk_result result = { 0 };
	scan(&b, src->operands, &result);
	b.scanning = false;
	if (!b.quit) {
		struct row total = { .type = ROW_TOTAL, .stat = result.total.stat };
		btree_end_scan(&b.tree, &total);
		if (!src->npids)
			stamp_dirs(&b, 0);
		uint32_t first = b.tree.nodes[0].first;
		if (first != BNODE_NONE && b.tree.nodes[first].next == BNODE_NONE &&
		    (b.tree.nodes[first].kind == BN_DIR || b.tree.nodes[first].kind == BN_GROUP))
			b.dir = first;
		make_list(&b);
		char share[FMT_BUFSIZE], refused[160] = "";
		if (result.refused)
			snprintf(refused, sizeof refused, " (%" PRIu64 " refused: see PRIVILEGES)",
				 result.refused);
		if (b.system && b.figures.known &&
		    fmt_percent(share, bytes_of(&b, b.tree.nodes[0].cached),
				b.figures.cached + b.figures.buffers))
		{
			char failed[96] = "";
			if (result.errors)
				snprintf(failed, sizeof failed, "; %" PRIu64 " not inspected",
					 result.errors);
			say(&b, "coverage %s%% of the page cache (Cached + Buffers)%s%s", share,
			    failed, refused);
		}
		else if (result.errors)
			say(&b, "%" PRIu64 " could not be inspected: their lines say why%s",
			    result.errors, refused);
		browse_loop(&b);
	}
	end_screen();
	btree_free(&b.tree);
	system_free(b.sys);
	free(b.notes);
	free(b.list);
	free(b.segments);
	free(b.extents);
	sb_free(&b.path);
	if (b.tty_gone) {
		/* ended as a hang-up signal ends pagestat (signals.c): by
		 * SIGHUP; where it is ignored (nohup), status 3: the screen, its
		 * output, could not be shown */
		msg("--browse: the terminal went away (hang-up or end of input)\n");
		(void)raise(SIGHUP);
		return STATUS_FATAL;
	}
	return result.errors ? STATUS_SOME_FAILED : STATUS_OK;
}
